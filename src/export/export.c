/* Public export entry points: choose the format, build the mesh once, hand it
 * to the glTF or OBJ writer and save every file atomically. */
#include "bspkit/edit.h"
#include "bspkit/export.h"
#include "core/map.h"
#include "export/writers.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define DEFAULT_GLTF_SCALE 0.0254

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

static bspkit_result check_options(const bspkit_export_options *o, bspkit_error *err)
{
    if (o && (!isfinite(o->scale) || o->scale < 0))
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "scale must be a positive finite number");
    if (o && o->wad_path_count > 0 && !o->wad_paths)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "wad_path_count without wad_paths");
    return BSPKIT_OK;
}

static void fill_stats(const bk_xmesh *m, bspkit_export_stats *s)
{
    s->faces = m->faces;
    s->triangles = m->triangles;
    s->vertices = m->vertices;
    s->displacements = m->displacements;
    s->props = m->props;
}

static bspkit_result build_mesh(bspkit_map *map, const bspkit_export_options *o, bk_xmesh *mesh, bspkit_error *err)
{
    bk_xmesh_options mo = {0};
    mo.skip = o ? o->skip : 0;
    return bk_xmesh_build(map, &mo, mesh, err);
}

static double gltf_scale(const bspkit_export_options *o)
{
    return o && o->scale > 0 ? o->scale : DEFAULT_GLTF_SCALE;
}

bspkit_result bspkit_export_glb_memory(bspkit_map *map, const bspkit_export_options *opts, uint8_t **out,
                                       size_t *size, bspkit_export_stats *stats, bspkit_error *err)
{
    if (!map || !out || !size)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "map, out and size are required");
    *out = NULL;
    *size = 0;
    bspkit_result r = check_options(opts, err);
    if (r != BSPKIT_OK)
        return r;
    bspkit_export_stats st = {0};
    bk_xmesh mesh;
    if ((r = build_mesh(map, opts, &mesh, err)) != BSPKIT_OK)
        return r;
    bk_gltf_doc doc;
    r = bk_gltf_build(map, &mesh, gltf_scale(opts), NULL, &doc, &st, err);
    fill_stats(&mesh, &st);
    bk_xmesh_free(&mesh);
    if (r == BSPKIT_OK)
        r = bk_glb_pack(&doc, out, size, err);
    bk_gltf_doc_free(&doc);
    if (r == BSPKIT_OK && stats) {
        st.bytes_written = *size;
        *stats = st;
    }
    return r;
}

/* `path` with its extension replaced by `ext` (".bin"); malloc'ed. */
static char *sibling(const char *path, const char *ext)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(path, '.');
    size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - path) : strlen(path);
    char *s = malloc(stem + strlen(ext) + 1);
    if (s) {
        memcpy(s, path, stem);
        strcpy(s + stem, ext);
    }
    return s;
}

/* The file-name part of `path`, percent-encoded as a relative URI reference. */
static char *uri_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    size_t n = strlen(name);
    char *u = malloc(n * 3 + 1);
    if (!u)
        return NULL;
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        if (isalnum(*p) || *p == '-' || *p == '_' || *p == '.' || *p == '~') {
            u[k++] = (char)*p;
        } else {
            static const char HEX[] = "0123456789ABCDEF";
            u[k++] = '%';
            u[k++] = HEX[*p >> 4];
            u[k++] = HEX[*p & 15];
        }
    }
    u[k] = '\0';
    return u;
}

static bspkit_result save_two(const char *path, const void *a, size_t a_size, const char *side_path, const void *b,
                              size_t b_size, bspkit_export_stats *st, bspkit_error *err)
{
    bspkit_result r = bspkit_save_file(side_path, b, b_size, err);
    if (r == BSPKIT_OK)
        r = bspkit_save_file(path, a, a_size, err);
    if (r == BSPKIT_OK)
        st->bytes_written = a_size + b_size;
    return r;
}

static bspkit_result export_gltf(bspkit_map *map, const bk_xmesh *mesh, const char *path, bool glb,
                                 const bspkit_export_options *opts, bspkit_export_stats *st, bspkit_error *err)
{
    char *bin_path = glb ? NULL : sibling(path, ".bin");
    char *uri = bin_path ? uri_of(bin_path) : NULL;
    if (!glb && (!bin_path || !uri)) {
        free(bin_path);
        free(uri);
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    }
    bk_gltf_doc doc;
    bspkit_result r = bk_gltf_build(map, mesh, gltf_scale(opts), uri, &doc, st, err);
    if (r == BSPKIT_OK && glb) {
        uint8_t *data;
        size_t size;
        if ((r = bk_glb_pack(&doc, &data, &size, err)) == BSPKIT_OK) {
            r = bspkit_save_file(path, data, size, err);
            st->bytes_written = size;
            free(data);
        }
    } else if (r == BSPKIT_OK) {
        r = save_two(path, doc.json, doc.json_size, bin_path, doc.bin, doc.bin_size, st, err);
    }
    bk_gltf_doc_free(&doc);
    free(bin_path);
    free(uri);
    return r;
}

static bspkit_result export_obj(const bk_xmesh *mesh, const char *path, const bspkit_export_options *opts,
                                bspkit_export_stats *st, bspkit_error *err)
{
    char *mtl_path = sibling(path, ".mtl");
    if (!mtl_path)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    /* `mtllib` ends its file name at a blank, so the .mtl gets none. */
    char *slash = strrchr(mtl_path, '/');
    for (char *c = slash ? slash + 1 : mtl_path; *c; c++)
        if (*c == ' ' || *c == '\t')
            *c = '_';
    bk_obj_doc doc;
    double scale = opts && opts->scale > 0 ? opts->scale : 1.0;
    bspkit_result r = bk_obj_build(mesh, scale, opts && opts->obj_y_up, slash ? slash + 1 : mtl_path, &doc, st, err);
    if (r == BSPKIT_OK)
        r = save_two(path, doc.obj, doc.obj_size, mtl_path, doc.mtl, doc.mtl_size, st, err);
    bk_obj_doc_free(&doc);
    free(mtl_path);
    return r;
}

bspkit_result bspkit_export(bspkit_map *map, const char *path, const bspkit_export_options *opts,
                            bspkit_export_stats *stats, bspkit_error *err)
{
    if (!map || !path || !path[0])
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "map and output path are required");
    bspkit_result r = check_options(opts, err);
    if (r != BSPKIT_OK)
        return r;
    bspkit_export_format fmt = opts ? opts->format : BSPKIT_EXPORT_AUTO;
    if (fmt == BSPKIT_EXPORT_AUTO) {
        if (ends_with(path, ".glb"))
            fmt = BSPKIT_EXPORT_GLB;
        else if (ends_with(path, ".gltf"))
            fmt = BSPKIT_EXPORT_GLTF;
        else if (ends_with(path, ".obj"))
            fmt = BSPKIT_EXPORT_OBJ;
        else
            return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1,
                           "%s: cannot tell the format from the extension (.glb, .gltf or .obj)", path);
    }
    if (fmt != BSPKIT_EXPORT_GLB && fmt != BSPKIT_EXPORT_GLTF && fmt != BSPKIT_EXPORT_OBJ)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "unknown export format %d", (int)fmt);
    bspkit_export_stats st = {0};
    bk_xmesh mesh;
    if ((r = build_mesh(map, opts, &mesh, err)) != BSPKIT_OK)
        return r;
    if (fmt == BSPKIT_EXPORT_OBJ)
        r = export_obj(&mesh, path, opts, &st, err);
    else
        r = export_gltf(map, &mesh, path, fmt == BSPKIT_EXPORT_GLB, opts, &st, err);
    fill_stats(&mesh, &st);
    bk_xmesh_free(&mesh);
    if (r == BSPKIT_OK && stats)
        *stats = st;
    return r;
}
