/* Wavefront OBJ + MTL writer. OBJ has no node hierarchy, so each brush
 * model's vertices are placed by its node here (rotation, then origin), and
 * static props and point entities, which carry no geometry, are left out.
 * Texture v is written as 1 - v: OBJ counts v up from the image's bottom
 * row, the maps count t down from its top. */
#include "export/writers.h"

#include "core/map.h"
#include "core/textbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* OBJ and MTL names end at white space: blanks become '_'. */
static void sb_name(bk_tbuf *s, const char *name)
{
    char buf[256];
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < sizeof buf; p++)
        buf[n++] = (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') ? '_' : *p;
    buf[n] = '\0';
    tb_printf(s, "%s", n ? buf : "unnamed");
}

static const bk_xnode *model_node(const bk_xmesh *m, size_t model)
{
    for (size_t i = 0; i < m->node_count; i++)
        if (m->nodes[i].model == (int64_t)model)
            return &m->nodes[i];
    return NULL;
}

/* Node placement, then axes, then scale. */
static void place(const bk_xnode *n, const float in[3], bool normal, bool y_up, double scale, double out[3])
{
    double v[3] = {in[0], in[1], in[2]}, r[3];
    if (n) {
        bk_quat_rotate(n->rotation, v, r);
        for (int k = 0; k < 3; k++)
            v[k] = normal ? r[k] : r[k] + n->translation[k];
    }
    if (!normal)
        for (int k = 0; k < 3; k++)
            v[k] *= scale;
    if (y_up) {
        out[0] = v[0];
        out[1] = v[2];
        out[2] = -v[1];
    } else {
        memcpy(out, v, sizeof v);
    }
}

bspkit_result bk_obj_build(const bk_xmesh *m, const bk_xmedia *media, double scale, bool y_up, bool bake,
                           const char *mtl_name, const char *image_dir, bk_obj_doc *out,
                           bspkit_export_stats *stats, bspkit_error *err)
{
    bake = bake && media && media->lightmap_image >= 0;
    memset(out, 0, sizeof *out);
    bk_tbuf obj = {0}, mtl = {0};
    bool *used = calloc(m->material_count + 1, sizeof *used);
    if (!used)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    tb_printf(&obj, "# bspkit %s\nmtllib ", BSPKIT_VERSION_STRING);
    sb_name(&obj, mtl_name);
    tb_printf(&obj, "\n");
    uint64_t base = 1; /* OBJ indices start at 1 and run over the whole file */
    for (size_t i = 0; i < m->model_count; i++) {
        const bk_xmodel *xm = &m->models[i];
        if (xm->prim_count == 0)
            continue;
        const bk_xnode *node = model_node(m, i);
        tb_printf(&obj, "o ");
        sb_name(&obj, node ? node->name : "model");
        tb_printf(&obj, "\n");
        for (size_t p = 0; p < xm->prim_count; p++) {
            const bk_xprim *pr = &xm->prims[p];
            const bk_xmaterial *mat = &m->materials[pr->material];
            used[pr->material] = true;
            tb_printf(&obj, "g ");
            sb_name(&obj, node ? node->name : "model");
            tb_printf(&obj, "\nusemtl ");
            sb_name(&obj, mat->name);
            tb_printf(&obj, "\n");
            for (size_t v = 0; v < pr->vert_count; v++) {
                double q[3], n[3];
                place(node, pr->verts[v].pos, false, y_up, scale, q);
                place(node, pr->verts[v].normal, true, y_up, 1.0, n);
                const float *uv = bake ? pr->verts[v].uv1 : pr->verts[v].uv0;
                tb_printf(&obj, "v %.9g %.9g %.9g\nvt %.9g %.9g\nvn %.6f %.6f %.6f\n", q[0], q[1], q[2],
                          (double)uv[0], 1.0 - (double)uv[1], n[0], n[1], n[2]);
            }
            for (size_t t = 0; t + 2 < pr->index_count; t += 3) {
                uint64_t a = base + pr->indices[t], b = base + pr->indices[t + 1], c = base + pr->indices[t + 2];
                tb_printf(&obj, "f %llu/%llu/%llu %llu/%llu/%llu %llu/%llu/%llu\n", (unsigned long long)a,
                          (unsigned long long)a, (unsigned long long)a, (unsigned long long)b,
                          (unsigned long long)b, (unsigned long long)b, (unsigned long long)c,
                          (unsigned long long)c, (unsigned long long)c);
            }
            base += pr->vert_count;
        }
    }
    tb_printf(&mtl, "# bspkit %s\n", BSPKIT_VERSION_STRING);
    size_t materials = 0;
    for (size_t i = 0; i < m->material_count; i++) {
        if (!used[i])
            continue;
        materials++;
        tb_printf(&mtl, "\nnewmtl ");
        sb_name(&mtl, m->materials[i].name);
        int32_t image = !media ? -1 : bake ? media->lightmap_image : media->material_image[i];
        if (image >= 0) {
            /* Image file names hold no blanks; the directory's are '_' too. */
            tb_printf(&mtl, "\nKa 0 0 0\nKd 1 1 1\nKs 0 0 0\nd 1\nillum 1\nmap_Kd %s/%s\n", image_dir,
                      media->images[image].file);
        } else {
            const float *c = media ? media->material_colour[i] : (const float[3]){1, 1, 1};
            tb_printf(&mtl, "\nKa 0 0 0\nKd %.4g %.4g %.4g\nKs 0 0 0\nd 1\nillum 1\n", (double)c[0],
                      (double)c[1], (double)c[2]);
        }
    }
    free(used);
    if (obj.failed || mtl.failed || !obj.data || !mtl.data) {
        free(obj.data);
        free(mtl.data);
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory writing OBJ");
    }
    out->obj = obj.data;
    out->obj_size = obj.size;
    out->mtl = mtl.data;
    out->mtl_size = mtl.size;
    stats->materials = materials;
    if (media) {
        stats->images = media->texture_images;
        stats->missing_textures = media->missing_textures;
    }
    for (size_t i = 0; i < m->node_count; i++)
        if (m->nodes[i].kind == BK_XNODE_WORLD || m->nodes[i].kind == BK_XNODE_BRUSH)
            stats->nodes++;
    return BSPKIT_OK;
}

void bk_obj_doc_free(bk_obj_doc *doc)
{
    if (!doc)
        return;
    free(doc->obj);
    free(doc->mtl);
    memset(doc, 0, sizeof *doc);
}
