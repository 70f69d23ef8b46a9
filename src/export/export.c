/* Public export entry points: choose the format, build the lightmap atlas,
 * the mesh and the images once, hand them to the glTF or OBJ writer and save
 * every file atomically. */
#include "bspkit/edit.h"
#include "bspkit/export.h"
#include "core/map.h"
#include "core/save_file.h"
#include "core/parallel.h"
#include "export/writers.h"
#include "core/ascii.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <errno.h>

#define DEFAULT_GLTF_SCALE 0.0254

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && bk_ascii_casecmp(s + n - k, suffix) == 0;
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

/* The mesh, and beside it the atlas's PNG (the mesh only reads the atlas). */
typedef struct mesh_job {
    bspkit_map *map;
    const bk_xmesh_options *mo;
    const bspkit_export_options *o;
    bool textures;
    bk_xmesh *mesh;
    bk_xmedia *media;
    bk_gltf_geometry *geometry; /* NULL: none wanted */
    bspkit_error err[4];
    bspkit_result res[4]; /* mesh, atlas, textures, geometry: the first failure is reported */
} mesh_job;

static double gltf_scale(const bspkit_export_options *o)
{
    return o && o->scale > 0 ? o->scale : DEFAULT_GLTF_SCALE;
}

/* Two jobs: the mesh, then its glTF geometry and its textures; the atlas's
 * pixels and PNG. */
static void mesh_or_atlas(void *ctx, size_t i)
{
    mesh_job *j = ctx;
    if (i == 1) {
        j->res[1] = bk_xmedia_encode_atlas(j->media, &j->err[1]);
        return;
    }
    j->res[0] = bk_xmesh_build(j->map, j->mo, j->mesh, &j->err[0]);
    if (j->res[0] != BSPKIT_OK)
        return;
    if (j->geometry)
        j->res[3] = bk_gltf_geometry_build(j->mesh, j->media->have_atlas, gltf_scale(j->o), j->geometry, &j->err[3]);
    j->res[2] = bk_xmedia_textures(j->map, j->mesh, j->o, j->textures, j->media, &j->err[2]);
}

/* Atlas, mesh and images, and with `geometry` the glTF's geometry. `bake`
 * (OBJ) wants the atlas as the colour map, so texture images are only made
 * when there is no atlas to bake. On failure nothing is left to free. */
static bspkit_result prepare(bspkit_map *map, const bspkit_export_options *o, bool obj, bk_xmesh *mesh,
                             bk_xmedia *media, bk_gltf_geometry *geometry, bspkit_error *err)
{
    /* OBJ has one texture coordinate per vertex: lightmaps only when baked. */
    bool bake = obj && o && o->obj_bake_lightmaps;
    bool lightmaps = !(o && o->no_lightmaps) && (!obj || bake);
    bspkit_result r = bk_xmedia_atlas(map, o, lightmaps, media, err);
    if (r != BSPKIT_OK)
        return r;
    bk_xmesh_options mo = {0};
    mo.skip = o ? (o->skip | (BSPKIT_SKIP_ALL & ~o->keep)) & BSPKIT_SKIP_ALL : BSPKIT_SKIP_ALL;
    mo.atlas = media->have_atlas ? &media->atlas : NULL;
    bool textures = !(o && o->no_textures) && !(bake && media->have_atlas);
    mesh_job j = {map, &mo, o, textures, mesh, media, geometry, {{0}}, {BSPKIT_OK, BSPKIT_OK, BSPKIT_OK, BSPKIT_OK}};
    if (geometry)
        memset(geometry, 0, sizeof *geometry);
    bk_parallel_for(media->have_atlas ? 2 : 1, o ? o->threads : 0, mesh_or_atlas, &j);
    int failed = -1;
    for (int k = 0; k < 4 && failed < 0; k++)
        if (j.res[k] != BSPKIT_OK)
            failed = k;
    if (failed < 0)
        r = bk_xmedia_add_atlas(media, err);
    else {
        bk_error_copy(err, &j.err[failed]);
        r = j.res[failed];
    }
    if (r != BSPKIT_OK) {
        bk_xmesh_free(mesh); /* which bk_xmesh_build did already when it failed */
        bk_xmedia_free(media);
        bk_gltf_geometry_free(geometry);
    }
    return r;
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
    bk_xmedia media;
    bk_gltf_geometry geometry;
    if ((r = prepare(map, opts, false, &mesh, &media, &geometry, err)) != BSPKIT_OK)
        return r;
    bk_gltf_doc doc;
    r = bk_gltf_build(map, &mesh, &geometry, &media, NULL, NULL, &doc, &st, err);
    fill_stats(&mesh, &st);
    if (r == BSPKIT_OK)
        r = bk_glb_pack(&doc, out, size, err);
    bk_gltf_doc_free(&doc);
    bk_xmesh_free(&mesh);
    bk_xmedia_free(&media);
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

/* The image folder beside `path`: its stem + "_images", blanks in that
 * last component made '_' so OBJ's map_Kd can name it. malloc'ed. */
static char *image_dir_of(const char *path)
{
    char *dir = sibling(path, "_images");
    if (!dir)
        return NULL;
    char *slash = strrchr(dir, '/');
    for (char *c = slash ? slash + 1 : dir; *c; c++)
        if (*c == ' ' || *c == '\t')
            *c = '_';
    return dir;
}

/* Every image of `media` into `dir` (created when missing), each file
 * written atomically. Adds the bytes to st->bytes_written. */
static bspkit_result save_images(const char *dir, const bk_xmedia *media, bspkit_export_stats *st,
                                 bspkit_error *err)
{
    if (media->image_count == 0)
        return BSPKIT_OK;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return bk_fail(err, BSPKIT_ERR_IO, -1, -1, -1, "%s: cannot create the image folder: %s", dir,
                       strerror(errno));
    size_t dn = strlen(dir);
    for (size_t i = 0; i < media->image_count; i++) {
        const bk_ximage *im = &media->images[i];
        size_t n = dn + strlen(im->file) + 2;
        char *file = malloc(n);
        if (!file)
            return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
        snprintf(file, n, "%s/%s", dir, im->file);
        bspkit_result r = bk_save_bytes(file, im->png, im->png_size, BK_SAVE_DERIVED, err);
        free(file);
        if (r != BSPKIT_OK)
            return r;
        st->bytes_written += im->png_size;
    }
    return BSPKIT_OK;
}

/* The side file first, the main file last: it appears when all it names
 * exists. The main file's text comes in parts. */
static bspkit_result save_two(const char *path, const bk_save_part *a, size_t a_parts, const char *side_path,
                              const void *b, size_t b_size, bspkit_export_stats *st, bspkit_error *err)
{
    bspkit_result r = bk_save_bytes(side_path, b, b_size, BK_SAVE_DERIVED, err);
    if (r == BSPKIT_OK)
        r = bk_save_parts(path, a, a_parts, BK_SAVE_DERIVED, err);
    if (r == BSPKIT_OK) {
        st->bytes_written += b_size;
        for (size_t k = 0; k < a_parts; k++)
            st->bytes_written += a[k].size;
    }
    return r;
}

static bspkit_result export_gltf(bspkit_map *map, const bk_xmesh *mesh, bk_gltf_geometry *geometry,
                                 const bk_xmedia *media, const char *path, bool glb, bspkit_export_stats *st,
                                 bspkit_error *err)
{
    char *bin_path = glb ? NULL : sibling(path, ".bin");
    char *uri = bin_path ? uri_of(bin_path) : NULL;
    char *dir = glb ? NULL : image_dir_of(path);
    char *dir_uri = dir ? uri_of(dir) : NULL;
    bspkit_result r = BSPKIT_OK;
    if (!glb && (!bin_path || !uri || !dir || !dir_uri))
        r = bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    bk_gltf_doc doc = {0};
    if (r == BSPKIT_OK)
        r = bk_gltf_build(map, mesh, geometry, media, uri, dir_uri, &doc, st, err);
    else
        bk_gltf_geometry_free(geometry);
    if (r == BSPKIT_OK && glb) {
        size_t size = 0;
        r = bk_glb_save(&doc, path, &size, err);
        st->bytes_written = size;
    } else if (r == BSPKIT_OK) {
        r = save_images(dir, media, st, err);
        if (r == BSPKIT_OK)
            r = save_two(path, doc.json, doc.json_parts, bin_path, doc.bin, doc.bin_size, st, err);
    }
    bk_gltf_doc_free(&doc);
    free(bin_path);
    free(uri);
    free(dir);
    free(dir_uri);
    return r;
}

static bspkit_result export_obj(const bk_xmesh *mesh, const bk_xmedia *media, const char *path,
                                const bspkit_export_options *opts, bspkit_export_stats *st, bspkit_error *err)
{
    char *mtl_path = sibling(path, ".mtl");
    char *dir = image_dir_of(path);
    if (!mtl_path || !dir) {
        free(mtl_path);
        free(dir);
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    }
    /* `mtllib` ends its file name at a blank, so the .mtl gets none. */
    char *slash = strrchr(mtl_path, '/');
    for (char *c = slash ? slash + 1 : mtl_path; *c; c++)
        if (*c == ' ' || *c == '\t')
            *c = '_';
    const char *dir_slash = strrchr(dir, '/');
    bk_obj_doc doc;
    double scale = opts && opts->scale > 0 ? opts->scale : 1.0;
    bspkit_result r = bk_obj_build(mesh, media, scale, opts && opts->obj_y_up, opts && opts->obj_bake_lightmaps,
                                   slash ? slash + 1 : mtl_path, dir_slash ? dir_slash + 1 : dir, &doc, st, err);
    if (r == BSPKIT_OK)
        r = save_images(dir, media, st, err);
    if (r == BSPKIT_OK)
        r = save_two(path, &(bk_save_part){doc.obj, doc.obj_size}, 1, mtl_path, doc.mtl, doc.mtl_size, st, err);
    bk_obj_doc_free(&doc);
    free(mtl_path);
    free(dir);
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
    bk_xmedia media;
    bk_gltf_geometry geometry;
    bool obj = fmt == BSPKIT_EXPORT_OBJ;
    if ((r = prepare(map, opts, obj, &mesh, &media, obj ? NULL : &geometry, err)) != BSPKIT_OK)
        return r;
    if (obj)
        r = export_obj(&mesh, &media, path, opts, &st, err);
    else
        r = export_gltf(map, &mesh, &geometry, &media, path, fmt == BSPKIT_EXPORT_GLB, &st, err);
    fill_stats(&mesh, &st);
    bk_xmesh_free(&mesh);
    bk_xmedia_free(&media);
    if (r == BSPKIT_OK && stats)
        *stats = st;
    return r;
}
