/* Export media: the lightmap atlas and one PNG per texture the exported mesh
 * uses. Each texture is resolved once and decoded once; a texture that cannot
 * be found or decoded leaves its material with a flat colour. */
#include "export/media.h"

#include "bspkit/image.h"
#include "bspkit/textures.h"
#include "core/map.h"
#include "core/parallel.h"
#include "media/atlas_internal.h"
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
    bspkit_result r = bk_atlas_layout(map, &ao, &out->atlas, &out->atlas_pixels, err);
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
    if (md->atlas_pixels.drawn)
        return bk_image_encode_png_fast(&md->atlas.image, &md->atlas_png, &md->atlas_png_size, err);
    /* Drawn straight as PNG rows: no RGBA image to fill and convert. */
    uint8_t *rows;
    bspkit_result r = bk_atlas_draw_rows(&md->atlas_pixels, &md->atlas, &rows, err);
    if (r == BSPKIT_OK)
        r = bk_rgb_rows_encode_png_fast(rows, md->atlas.image.width, md->atlas.image.height, &md->atlas_png,
                                        &md->atlas_png_size, err);
    return r;
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

/* PNGs of the textures a map holds itself (embedded miptex, pakfile VTFs),
 * kept with the open map (EX_TEXTURE_PNGS, memory charged to it): a later
 * export of the same map copies them instead of decoding and encoding
 * again. Textures from WAD files on disk are made every time, since a file
 * may change between exports. */
enum { PNG_UNKNOWN, PNG_KEPT, PNG_NONE /* in the map, but does not decode */ };
typedef struct png_entry {
    uint8_t state;
    bool mask;
    uint32_t width, height;
    const uint8_t *png;
    size_t png_size;
} png_entry;
typedef struct png_cache {
    png_entry *entries; /* one per map texture; NULL until the first export */
    size_t count;
} png_cache;

/* One used material's texture on its way to a PNG. Loading from the map,
 * its WADs and its pakfile stays on the calling thread (the pakfile reader
 * is not shared across threads); VTF decoding, the alpha test and the PNG
 * are jobs on every core. */
typedef struct tex_job {
    size_t material;
    png_entry *cache; /* where its outcome is kept, or NULL */
    bool cached;      /* the PNG came from the cache: nothing to run */
    bk_indexed_image indexed; /* a palette texture's indices (held by the map or WAD) */
    bool is_indexed;
    bspkit_image image;       /* else pixels already loaded, */
    uint8_t *vtf;             /* or a VTF file read from the pakfile */
    size_t vtf_size;
    uint64_t pixel_bytes;     /* RGBA bytes the job holds at its peak */
    bool mask;                /* alpha below 255 somewhere */
    uint32_t width, height;
    uint8_t *png;
    size_t png_size;
    bspkit_result result;
    bspkit_error error;
} tex_job;

static bspkit_result build_png_cache(bspkit_map *map, const void **value, bspkit_error *err)
{
    png_cache *c = bk_keep_alloc(map, 1, sizeof *c, -1, err);
    *value = c;
    return c ? BSPKIT_OK : err->code;
}

/* The map's cache entry for texture `t`, or NULL when it is not kept
 * (from outside the map, or no memory for the table). */
static png_entry *cache_entry(bspkit_map *map, const bspkit_textures *tex, const bspkit_texture *info, int32_t t)
{
    if (!info || t < 0 || (info->source != BSPKIT_TEXTURE_EMBEDDED && info->source != BSPKIT_TEXTURE_PAKFILE))
        return NULL;
    const void *v;
    bspkit_error e;
    if (bk_extra_get(map, EX_TEXTURE_PNGS, build_png_cache, &v, &e) != BSPKIT_OK)
        return NULL;
    png_cache *c = (png_cache *)v; /* the map's own, filled here */
    if (!c->entries) {
        size_t n = bspkit_textures_count(tex);
        if (n == 0 || !(c->entries = bk_keep_alloc(map, n, sizeof *c->entries, -1, &e)))
            return NULL;
        c->count = n;
    }
    return (size_t)t < c->count ? &c->entries[t] : NULL;
}

/* Keeps what became of job `j` (not a fatal failure) in its cache entry:
 * its PNG, or that the texture does not load or decode. The copies stay
 * within the first half of the map's memory limit, so keeping them never
 * makes a later decode of the map fail; past it (or without memory) the
 * texture is simply made again next time. */
static void cache_keep(bspkit_map *map, const tex_job *j)
{
    png_entry *entry = j->cache;
    if (!entry || entry->state != PNG_UNKNOWN)
        return;
    if (j->result != BSPKIT_OK) {
        entry->state = PNG_NONE;
        return;
    }
    if (j->png_size > map->opts.max_memory / 2 || map->memory_used > map->opts.max_memory / 2 - j->png_size)
        return;
    bspkit_error e;
    uint8_t *copy = bk_keep_alloc(map, j->png_size, 1, -1, &e);
    if (!copy)
        return;
    memcpy(copy, j->png, j->png_size);
    *entry = (png_entry){PNG_KEPT, j->mask, j->width, j->height, copy, j->png_size};
}

/* RGBA pixels held for encoding at most: a batch runs when they reach it. */
#define PENDING_LIMIT (64u << 20)

static void tex_job_run(void *ctx, size_t k)
{
    tex_job *j = &((tex_job *)ctx)[k];
    if (j->cached)
        return;
    if (j->is_indexed) {
        j->width = j->indexed.width;
        j->height = j->indexed.height;
        j->mask = !bk_indexed_opaque(&j->indexed);
        j->result = bk_indexed_encode_png_fast(&j->indexed, &j->png, &j->png_size, &j->error);
        return;
    }
    if (j->vtf) {
        j->result = bspkit_vtf_decode(j->vtf, j->vtf_size, &j->image, NULL, &j->error);
        free(j->vtf);
        j->vtf = NULL;
        if (j->result != BSPKIT_OK)
            return;
    }
    j->width = j->image.width;
    j->height = j->image.height;
    j->mask = !bk_image_opaque(&j->image);
    j->result = bk_image_encode_png_fast(&j->image, &j->png, &j->png_size, &j->error);
    bspkit_image_free(&j->image);
}

static void tex_job_clear(tex_job *j)
{
    free(j->vtf);
    bspkit_image_free(&j->image);
    free(j->png);
    memset(j, 0, sizeof *j);
}

/* A texture that is absent or does not decode is not an export error: its
 * material keeps a flat colour and is counted. Running out of memory or
 * over a limit still is. */
static bool fatal(bspkit_result r)
{
    return r == BSPKIT_ERR_NOMEM || r == BSPKIT_ERR_LIMIT;
}

static bspkit_result add_image(bk_xmedia *md, const char *name, char *file, uint32_t width, uint32_t height,
                               uint8_t *png, size_t png_size, bspkit_error *err)
{
    if (!file) {
        free(png);
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    }
    if (md->image_count == md->image_cap) {
        size_t ncap = md->image_cap ? md->image_cap * 2 : 16;
        bk_ximage *p = realloc(md->images, ncap * sizeof *p);
        if (!p) {
            free(file);
            free(png);
            return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
        }
        md->images = p;
        md->image_cap = ncap;
    }
    bk_ximage *im = &md->images[md->image_count++];
    *im = (bk_ximage){file, bk_xdup(name), png, png_size, width, height};
    return im->name ? BSPKIT_OK : bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
}

/* Runs the batch's jobs, then gives each texture that became a PNG the next
 * image index, in material order: the same images, names and order for
 * any thread count. The first fatal failure in material order is the result. */
static bspkit_result run_batch(bspkit_map *map, bk_xmedia *md, const bk_xmesh *mesh, tex_job *jobs, size_t n,
                               bspkit_error *err)
{
    bk_parallel_for(n, md->threads, tex_job_run, jobs);
    bspkit_result r = BSPKIT_OK;
    for (size_t k = 0; k < n; k++) {
        tex_job *j = &jobs[k];
        if (!fatal(j->result))
            cache_keep(map, j);
        if (r != BSPKIT_OK) {
            /* past the first fatal failure: only freed */
        } else if (j->result == BSPKIT_OK) {
            size_t i = j->material;
            md->material_image[i] = (int32_t)md->image_count;
            md->material_mask[i] = j->mask;
            r = add_image(md, mesh->materials[i].name, file_name(md->image_count, mesh->materials[i].name), j->width,
                          j->height, j->png, j->png_size, err);
            j->png = NULL;
            md->texture_images += r == BSPKIT_OK;
        } else if (fatal(j->result)) {
            bk_error_copy(err, &j->error);
            r = j->result;
        } else {
            md->missing_textures++;
        }
        tex_job_clear(j);
    }
    return r;
}

/* Loads the used material's texture into a job; false (nothing to encode)
 * when it is missing or does not load. */
static bool load_texture(bspkit_textures *tex, const bspkit_texture *info, int32_t t, tex_job *j,
                         bspkit_result *fail, bspkit_error *err)
{
    *fail = BSPKIT_OK;
    if (!info || info->source == BSPKIT_TEXTURE_MISSING || !info->decodable)
        return false;
    bspkit_error load_err;
    /* Palette textures are encoded from their indices, never expanded to RGBA. */
    bspkit_result lr = bk_textures_load_indexed(tex, (size_t)t, &j->indexed, &load_err);
    j->is_indexed = lr == BSPKIT_OK;
    if (lr == BSPKIT_ERR_UNSUPPORTED) {
        lr = info->source == BSPKIT_TEXTURE_PAKFILE
                 ? bk_textures_read_file(tex, (size_t)t, &j->vtf, &j->vtf_size, &load_err)
                 : bspkit_textures_load_image(tex, (size_t)t, &j->image, &load_err);
        j->pixel_bytes = (uint64_t)info->width * info->height * 4u;
    }
    if (fatal(lr)) {
        bk_error_copy(err, &load_err);
        *fail = lr;
    }
    return lr == BSPKIT_OK;
}

static bspkit_result texture_images(bspkit_map *map, const bk_xmesh *mesh, const bspkit_export_options *opts,
                                    const bool *used, bk_xmedia *md, bspkit_error *err)
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
    tex_job *jobs = calloc(mesh->material_count ? mesh->material_count : 1, sizeof *jobs);
    if (!jobs)
        r = bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    size_t n = 0;
    uint64_t pending = 0;
    for (size_t i = 0; i < mesh->material_count && r == BSPKIT_OK; i++) {
        if (!used[i])
            continue;
        int32_t t = mesh->materials[i].texture;
        const bspkit_texture *info = t >= 0 ? bspkit_textures_get(tex, (size_t)t) : NULL;
        tex_job *j = &jobs[n];
        j->material = i;
        j->cache = cache_entry(map, tex, info, t);
        if (j->cache && j->cache->state == PNG_NONE) {
            md->missing_textures++;
            tex_job_clear(j);
            continue;
        }
        if (j->cache && j->cache->state == PNG_KEPT) {
            /* Made by an earlier export of this map: the same bytes. */
            const png_entry *c = j->cache;
            j->cached = true;
            j->png = malloc(c->png_size ? c->png_size : 1);
            if (!j->png) {
                r = bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
                break;
            }
            memcpy(j->png, c->png, c->png_size);
            j->png_size = c->png_size;
            j->width = c->width;
            j->height = c->height;
            j->mask = c->mask;
            n++;
            continue;
        }
        if (!load_texture(tex, info, t, j, &r, err)) {
            /* Counted in its place among the others: the count is all that shows. */
            if (r == BSPKIT_OK) {
                md->missing_textures++;
                j->result = BSPKIT_ERR_NOT_FOUND; /* kept as not loading */
                cache_keep(map, j);
            }
            tex_job_clear(j);
            continue;
        }
        n++;
        pending += j->pixel_bytes;
        if (pending >= PENDING_LIMIT) {
            r = run_batch(map, md, mesh, jobs, n, err);
            n = 0;
            pending = 0;
        }
    }
    if (r == BSPKIT_OK)
        r = run_batch(map, md, mesh, jobs, n, err);
    else
        for (size_t k = 0; k < n; k++)
            tex_job_clear(&jobs[k]);
    free(jobs);
    bspkit_textures_free(tex); /* palette indices are read from its WADs until here */
    return r;
}

bspkit_result bk_xmedia_textures(bspkit_map *map, const bk_xmesh *mesh, const bspkit_export_options *opts,
                                 bool textures, bk_xmedia *md, bspkit_error *err)
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
    if (r == BSPKIT_OK && textures)
        r = texture_images(map, mesh, opts, used, md, err);
    free(used);
    return r;
}

bspkit_result bk_xmedia_add_atlas(bk_xmedia *md, bspkit_error *err)
{
    bspkit_result r = BSPKIT_OK;
    if (md->have_atlas && (r = bk_xmedia_encode_atlas(md, err)) == BSPKIT_OK) {
        md->lightmap_image = (int32_t)md->image_count;
        r = add_image(md, "lightmap", bk_xdup("lightmap.png"), md->atlas.image.width, md->atlas.image.height,
                      md->atlas_png, md->atlas_png_size, err);
        md->atlas_png = NULL;
    }
    bspkit_image_free(&md->atlas.image);
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
    }
    free(md->images);
    free(md->material_image);
    free(md->material_mask);
    free(md->material_colour);
    free(md->atlas_png);
    memset(md, 0, sizeof *md);
    md->lightmap_image = -1;
}
