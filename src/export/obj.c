/* Wavefront OBJ + MTL writer. OBJ has no node hierarchy, so each brush
 * model's vertices are placed by its node here (rotation, then origin), and
 * static props and point entities, which carry no geometry, are left out.
 * Texture v is written as 1 - v: OBJ counts v up from the image's bottom
 * row, the maps count t down from its top. */
#include "export/writers.h"

#include "core/map.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sbuf {
    char *data;
    size_t size, cap;
    bool failed;
} sbuf;

static void sb_printf(sbuf *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void sb_printf(sbuf *s, const char *fmt, ...)
{
    if (s->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = s->cap - s->size;
        int n = vsnprintf(s->data ? s->data + s->size : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0) {
            s->failed = true;
            return;
        }
        if ((size_t)n < room) {
            s->size += (size_t)n;
            return;
        }
        size_t ncap = s->cap ? s->cap : 4096;
        while (ncap - s->size <= (size_t)n) {
            if (ncap > SIZE_MAX / 2) {
                s->failed = true;
                return;
            }
            ncap *= 2;
        }
        char *p = realloc(s->data, ncap);
        if (!p) {
            s->failed = true;
            return;
        }
        s->data = p;
        s->cap = ncap;
    }
}

/* OBJ and MTL names end at white space: blanks become '_'. */
static void sb_name(sbuf *s, const char *name)
{
    char buf[256];
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < sizeof buf; p++)
        buf[n++] = (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') ? '_' : *p;
    buf[n] = '\0';
    sb_printf(s, "%s", n ? buf : "unnamed");
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

bspkit_result bk_obj_build(const bk_xmesh *m, double scale, bool y_up, const char *mtl_name, bk_obj_doc *out,
                           bspkit_export_stats *stats, bspkit_error *err)
{
    memset(out, 0, sizeof *out);
    sbuf obj = {0}, mtl = {0};
    bool *used = calloc(m->material_count + 1, sizeof *used);
    if (!used)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    sb_printf(&obj, "# bspkit %s\nmtllib ", BSPKIT_VERSION_STRING);
    sb_name(&obj, mtl_name);
    sb_printf(&obj, "\n");
    uint64_t base = 1; /* OBJ indices start at 1 and run over the whole file */
    for (size_t i = 0; i < m->model_count; i++) {
        const bk_xmodel *xm = &m->models[i];
        if (xm->prim_count == 0)
            continue;
        const bk_xnode *node = model_node(m, i);
        sb_printf(&obj, "o ");
        sb_name(&obj, node ? node->name : "model");
        sb_printf(&obj, "\n");
        for (size_t p = 0; p < xm->prim_count; p++) {
            const bk_xprim *pr = &xm->prims[p];
            const bk_xmaterial *mat = &m->materials[pr->material];
            used[pr->material] = true;
            sb_printf(&obj, "g ");
            sb_name(&obj, node ? node->name : "model");
            sb_printf(&obj, "\nusemtl ");
            sb_name(&obj, mat->name);
            sb_printf(&obj, "\n");
            for (size_t v = 0; v < pr->vert_count; v++) {
                double q[3], n[3];
                place(node, pr->verts[v].pos, false, y_up, scale, q);
                place(node, pr->verts[v].normal, true, y_up, 1.0, n);
                sb_printf(&obj, "v %.9g %.9g %.9g\nvt %.9g %.9g\nvn %.6f %.6f %.6f\n", q[0], q[1], q[2],
                          (double)pr->verts[v].uv0[0], 1.0 - (double)pr->verts[v].uv0[1], n[0], n[1], n[2]);
            }
            for (size_t t = 0; t + 2 < pr->index_count; t += 3) {
                uint64_t a = base + pr->indices[t], b = base + pr->indices[t + 1], c = base + pr->indices[t + 2];
                sb_printf(&obj, "f %llu/%llu/%llu %llu/%llu/%llu %llu/%llu/%llu\n", (unsigned long long)a,
                          (unsigned long long)a, (unsigned long long)a, (unsigned long long)b,
                          (unsigned long long)b, (unsigned long long)b, (unsigned long long)c,
                          (unsigned long long)c, (unsigned long long)c);
            }
            base += pr->vert_count;
        }
    }
    sb_printf(&mtl, "# bspkit %s\n", BSPKIT_VERSION_STRING);
    size_t materials = 0;
    for (size_t i = 0; i < m->material_count; i++) {
        if (!used[i])
            continue;
        materials++;
        sb_printf(&mtl, "\nnewmtl ");
        sb_name(&mtl, m->materials[i].name);
        /* A texture image, when exported, is named here by map_Kd. */
        sb_printf(&mtl, "\nKa 0 0 0\nKd 1 1 1\nKs 0 0 0\nd 1\nillum 1\n");
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
