/* Export media: the lightmap atlas and one PNG per texture the exported mesh
 * uses. Each texture is resolved once and decoded once; a texture that cannot
 * be found or decoded leaves its material with a flat colour. */
#include "export/media.h"

#include "bspkit/image.h"
#include "bspkit/textures.h"
#include "core/map.h"
#include "core/parallel.h"
#include "media/image_internal.h"
#include "media/texture_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Grey for textures with nothing better to show. */
#define FLAT_GREY 0.5f
#define MAX_FILE_STEM 80

bspkit_result bk_xmedia_atlas(bspkit_map *map, const bspkit_export_options *opts, bool lightmaps, bk_xmedia *out,
                              bspkit_error *err)
{
    memset(out, 0, sizeof *out);
    out->lightmap_image = -1;
    if (!lightmaps)
        return BSPKIT_OK;
    bspkit_atlas_options ao = {.hdr = opts && opts->lightmap_hdr};
    bspkit_result r = bspkit_lightmap_atlas_build(map, &ao, &out->atlas, err);
    if (r != BSPKIT_OK)
        return r;
    for (size_t i = 0; i < out->atlas.rect_count; i++) {
        if (out->atlas.rects[i].placed) {
            out->have_atlas = true;
            return BSPKIT_OK;
        }
    }
    bspkit_lightmap_atlas_free(&out->atlas);
    return BSPKIT_OK;
}

bspkit_result bk_xmedia_encode_atlas(bk_xmedia *md, bspkit_error *err)
{
    if (!md->have_atlas || md->atlas_png)
        return BSPKIT_OK;
    return bk_image_encode_png_fast(&md->atlas.image, &md->atlas_png, &md->atlas_png_size, err);
}

/* "<index>_<name>.png" with every byte outside [A-Za-z0-9._-] as '_': the
 * index keeps names unique after that folding, also on case-blind disks. */
static char *file_name(size_t index, const char *name)
{
    char stem[MAX_FILE_STEM + 1];
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)name; *p && n < MAX_FILE_STEM; p++)
        stem[n++] = (char)(isalnum(*p) || *p == '-' || *p == '.' || *p == '_' ? *p : '_');
    stem[n] = '\0';
    size_t size = n + 32;
    char *s = malloc(size);
    if (s)
        snprintf(s, size, "%zu_%s.png", index, stem);
    return s;
}

/* Pixels held for encoding at most: a batch is encoded when they reach it. */
#define PENDING_LIMIT (64u << 20)

typedef struct encode_batch {
    bk_ximage *images;
    size_t *index; /* the images to encode */
    bspkit_result *result;
    bspkit_error *error;
} encode_batch;

static void encode_one(void *ctx, size_t k)
{
    encode_batch *b = ctx;
    bk_ximage *im = &b->images[b->index[k]];
    b->result[k] = im->pending_indexed
                       ? bk_indexed_encode_png_fast(&im->indexed, &im->png, &im->png_size, &b->error[k])
                       : bk_image_encode_png_fast(&im->pending, &im->png, &im->png_size, &b->error[k]);
}

/* Encodes every image still pending, on all cores; the first failure in
 * image order is the result, whatever the thread count. */
static bspkit_result encode_pending(bk_xmedia *md, bspkit_error *err)
{
    unsigned threads = md->threads;
    size_t n = 0;
    for (size_t i = 0; i < md->image_count; i++)
        n += md->images[i].pending.rgba != NULL || md->images[i].pending_indexed;
    if (n == 0)
        return BSPKIT_OK;
    encode_batch b = {md->images, malloc(n * sizeof *b.index), malloc(n * sizeof *b.result),
                      malloc(n * sizeof *b.error)};
    bspkit_result r = BSPKIT_OK;
    if (!b.index || !b.result || !b.error) {
        r = bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    } else {
        for (size_t i = 0, k = 0; i < md->image_count; i++)
            if (md->images[i].pending.rgba || md->images[i].pending_indexed)
                b.index[k++] = i;
        bk_parallel_for(n, threads, encode_one, &b);
        for (size_t k = 0; k < n && r == BSPKIT_OK; k++)
            if ((r = b.result[k]) != BSPKIT_OK)
                bk_error_copy(err, &b.error[k]);
    }
    for (size_t i = 0; i < md->image_count; i++) {
        bspkit_image_free(&md->images[i].pending);
        md->images[i].pending_indexed = false;
    }
    md->pending_bytes = 0;
    free(b.index);
    free(b.result);
    free(b.error);
    return r;
}

/* Adds an image to encode: `img`'s pixels (taken from the caller), or with
 * `indexed` a palette texture's indices (which stay in the map or WAD). */
static bspkit_result add_image(bk_xmedia *md, size_t *cap, bspkit_image *img, const bk_indexed_image *indexed,
                               const char *name, char *file, bspkit_error *err)
{
    if (!file)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    if (md->image_count == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        bk_ximage *p = realloc(md->images, ncap * sizeof *p);
        if (!p) {
            free(file);
            return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
        }
        md->images = p;
        *cap = ncap;
    }
    bk_ximage *im = &md->images[md->image_count];
    memset(im, 0, sizeof *im);
    im->file = file;
    im->name = bk_xdup(name);
    im->width = indexed ? indexed->width : img->width;
    im->height = indexed ? indexed->height : img->height;
    md->image_count++;
    if (!im->name)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    /* The pixels are kept (taken from the caller) and encoded in batches on
     * every core: PNG compression is most of an export's time. Indices hold
     * no memory of their own. */
    if (indexed) {
        im->indexed = *indexed;
        im->pending_indexed = true;
        return BSPKIT_OK;
    }
    if (!img->rgba) /* encoded already: the caller set the PNG */
        return BSPKIT_OK;
    im->pending = *img;
    *img = (bspkit_image){0};
    md->pending_bytes += (uint64_t)im->width * im->height * 4u;
    return md->pending_bytes >= PENDING_LIMIT ? encode_pending(md, err) : BSPKIT_OK;
}

/* Source texdata reflectivity is the material's average colour; others get grey. */
static void flat_colour(const bspkit_texdata *td, size_t ntd, int32_t texture, float out[3])
{
    out[0] = out[1] = out[2] = FLAT_GREY;
    if (!td || texture < 0 || (size_t)texture >= ntd)
        return;
    float c[3] = {td[texture].reflectivity.x, td[texture].reflectivity.y, td[texture].reflectivity.z};
    for (int k = 0; k < 3; k++)
        if (!isfinite(c[k]) || c[k] < 0 || c[k] > 1)
            return;
    memcpy(out, c, sizeof c);
}

static bspkit_result texture_images(bspkit_map *map, const bk_xmesh *mesh, const bspkit_export_options *opts,
                                    const bool *used, bk_xmedia *md, size_t *cap, bspkit_error *err)
{
    bspkit_texture_options to = {0};
    if (opts) {
        to.wad_paths = opts->wad_paths;
        to.wad_path_count = opts->wad_path_count;
    }
    bspkit_textures *tex;
    bspkit_result r = bspkit_textures_resolve(map, &to, &tex, err);
    if (r != BSPKIT_OK)
        return r;
    md->textures = tex; /* closed once every image is encoded */
    for (size_t i = 0; i < mesh->material_count && r == BSPKIT_OK; i++) {
        if (!used[i])
            continue;
        int32_t t = mesh->materials[i].texture;
        const bspkit_texture *info = t >= 0 ? bspkit_textures_get(tex, (size_t)t) : NULL;
        bspkit_image img = {0};
        /* A texture that is absent or does not decode is not an export
         * error: its material keeps a flat colour and is counted. Running
         * out of memory or over a limit still is. */
        bspkit_error load_err;
        bspkit_result lr = BSPKIT_ERR_NOT_FOUND;
        /* Palette textures are encoded from their indices, never expanded to RGBA. */
        bk_indexed_image indexed;
        bool have_indexed = false;
        if (info && info->source != BSPKIT_TEXTURE_MISSING && info->decodable) {
            lr = bk_textures_load_indexed(tex, (size_t)t, &indexed, &load_err);
            have_indexed = lr == BSPKIT_OK;
            if (lr == BSPKIT_ERR_UNSUPPORTED)
                lr = bspkit_textures_load_image(tex, (size_t)t, &img, &load_err);
        }
        if (lr == BSPKIT_ERR_NOMEM || lr == BSPKIT_ERR_LIMIT) {
            bk_error_copy(err, &load_err);
            r = lr;
            break;
        }
        if (lr != BSPKIT_OK) {
            md->missing_textures++;
            continue;
        }
        md->material_image[i] = (int32_t)md->image_count;
        md->material_mask[i] = have_indexed ? !bk_indexed_opaque(&indexed) : !bk_image_opaque(&img);
        r = add_image(md, cap, &img, have_indexed ? &indexed : NULL, mesh->materials[i].name,
                      file_name(md->image_count, mesh->materials[i].name), err);
        bspkit_image_free(&img);
        if (r == BSPKIT_OK)
            md->texture_images++;
    }
    return r;
}

bspkit_result bk_xmedia_images(bspkit_map *map, const bk_xmesh *mesh, const bspkit_export_options *opts,
                               bool textures, bool lightmap_png, bk_xmedia *md, bspkit_error *err)
{
    md->threads = opts ? opts->threads : 0;
    size_t n = mesh->material_count + 1;
    md->material_image = malloc(n * sizeof *md->material_image);
    md->material_mask = calloc(n, sizeof *md->material_mask);
    md->material_colour = malloc(n * sizeof *md->material_colour);
    bool *used = calloc(n, sizeof *used);
    bspkit_result r = BSPKIT_OK;
    if (!md->material_image || !md->material_mask || !md->material_colour || !used)
        r = bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    const bspkit_texdata *td = NULL;
    size_t ntd = 0;
    if (r == BSPKIT_OK && mesh->family == BSPKIT_FAMILY_SOURCE)
        r = bspkit_get_texdata(map, &td, &ntd, err);
    if (r == BSPKIT_OK) {
        for (size_t i = 0; i < mesh->material_count; i++) {
            md->material_image[i] = -1;
            flat_colour(td, ntd, mesh->materials[i].texture, md->material_colour[i]);
        }
        for (size_t m = 0; m < mesh->model_count; m++)
            for (size_t p = 0; p < mesh->models[m].prim_count; p++)
                used[mesh->models[m].prims[p].material] = true;
    }
    size_t cap = 0;
    if (r == BSPKIT_OK && textures)
        r = texture_images(map, mesh, opts, used, md, &cap, err);
    free(used);
    if (r == BSPKIT_OK && lightmap_png && md->have_atlas) {
        md->lightmap_image = (int32_t)md->image_count;
        bspkit_image none = {md->atlas.image.width, md->atlas.image.height, NULL};
        r = add_image(md, &cap, md->atlas_png ? &none : &md->atlas.image, NULL, "lightmap", bk_xdup("lightmap.png"),
                      err);
        if (r == BSPKIT_OK && md->atlas_png) {
            md->images[md->lightmap_image].png = md->atlas_png;
            md->images[md->lightmap_image].png_size = md->atlas_png_size;
            md->atlas_png = NULL;
        }
    }
    bspkit_image_free(&md->atlas.image);
    bspkit_error enc_err;
    bspkit_result er = encode_pending(md, &enc_err);
    if (r == BSPKIT_OK && er != BSPKIT_OK) {
        bk_error_copy(err, &enc_err);
        r = er;
    }
    bspkit_textures_free(md->textures);
    md->textures = NULL;
    return r;
}

void bk_xmedia_free(bk_xmedia *md)
{
    if (!md)
        return;
    bspkit_lightmap_atlas_free(&md->atlas);
    for (size_t i = 0; i < md->image_count; i++) {
        free(md->images[i].file);
        free(md->images[i].name);
        free(md->images[i].png);
        bspkit_image_free(&md->images[i].pending);
    }
    free(md->images);
    free(md->material_image);
    free(md->material_mask);
    free(md->material_colour);
    bspkit_textures_free(md->textures);
    free(md->atlas_png);
    memset(md, 0, sizeof *md);
    md->lightmap_image = -1;
}
