/*
 * Lightmap atlas over the real maps. For every map (and for Source maps
 * with HDR lighting, the HDR atlas too):
 *  - a face is placed exactly when it is lit, in range and has a style;
 *  - each rectangle's size is the face's extents, recomputed here from the
 *    vertices and texture vectors (Quake/GoldSrc: floor/ceil of min/max / 16,
 *    summed in double or in float) or from LightmapTextureSizeInLuxels + 1
 *    (Source), and size x styles x sets x bytes per luxel is the face's
 *    share of the lighting lump;
 *  - no two padded rectangles overlap and all lie inside the image;
 *  - GoldSrc pixels equal the lump's RGB bytes, Quake pixels its grey bytes
 *    (when no RGBLIGHTING), Source pixels the RGBExp -> 8-bit formula of
 *    atlas.h computed here; padding repeats the edge luxels;
 *  - every vertex of a placed (non-displacement) face maps inside its
 *    rectangle, with half a luxel of margin;
 *  - against Valve's vbspinfo (`<map>.info.txt`): the face count, and the
 *    placed faces' bytes (plus Source's per-style averages) add up to no more
 *    than "lightdata" (how many account for all of it is reported).
 * Usage: corpus_check_atlas MAPS_DIR
 */
#include "bspkit/atlas.h"
#include "bspkit/bspkit.h"
#include "bspkit/bspx.h"
#include "bspkit/lighting.h"
#include "bspkit/quake3.h"
#include "corpus_walk.h"
#include "face_vertex.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int failures, maps, unsupported, not_opened, atlases, info_rows, info_lightdata, info_lightdata_full;
static uint64_t faces_seen, placed_total, luxels_total, pixels_total, pixels_checked, uv_checked, uv_skipped_disp;
static double occupancy_sum;
static int occupancy_maps;
static double occupancy_min = 2.0;

#define FAIL(rel, ...)                                                                                             \
    do {                                                                                                           \
        printf("FAIL %s: ", rel);                                                                                  \
        printf(__VA_ARGS__);                                                                                       \
        printf("\n");                                                                                              \
        failures++;                                                                                                \
    } while (0)

/* Everything one map's checks read. */
typedef struct map_data {
    bspkit_map *m;
    bspkit_family family;
    const bspkit_face *faces;
    size_t nfaces;
    const bspkit_texinfo *ti;
    size_t nti;
    face_geometry geo;
    const bspkit_bspx_decoupled_lm *dec;
    size_t ndec;
    const uint8_t *light;
    size_t light_size;
    bool has_rgb;
} map_data;

/* Vertex k of face f, or NULL when an index is out of range. */
static const bspkit_vec3 *face_vertex(const map_data *d, const bspkit_face *f, int32_t k)
{
    return face_vertex_at(&d->geo, f, k);
}

/* Quake/GoldSrc lightmap size along one axis, from the vertices: summed in
 * double (dsize) and in float (fsize). False when a vertex is missing. */
static bool quake_size(const map_data *d, const bspkit_face *f, const bspkit_texinfo *t, int axis, int *dsize,
                       int *fsize)
{
    double lo = 1e30, hi = -1e30;
    float flo = 1e30f, fhi = -1e30f;
    const float *v4 = t->texture_vecs[axis];
    for (int32_t k = 0; k < f->num_edges; k++) {
        const bspkit_vec3 *p = face_vertex(d, f, k);
        if (!p)
            return false;
        double s = (double)p->x * v4[0] + (double)p->y * v4[1] + (double)p->z * v4[2] + v4[3];
        float fs = p->x * v4[0];
        fs += p->y * v4[1];
        fs += p->z * v4[2];
        fs += v4[3];
        lo = fmin(lo, s);
        hi = fmax(hi, s);
        flo = fminf(flo, fs);
        fhi = fmaxf(fhi, fs);
    }
    *dsize = (int)(ceil(hi / 16) - floor(lo / 16)) + 1;
    *fsize = (int)(ceilf(fhi / 16) - floorf(flo / 16)) + 1;
    return true;
}

/* The 8-bit value atlas.h promises for one ColorRGBExp32 channel. */
static uint8_t tone(uint8_t c, int8_t e)
{
    double v = (double)c * pow(2.0, e) / 255.0;
    v = v > 1.0 ? 1.0 : v;
    return (uint8_t)floor(255.0 * pow(v, 1.0 / 2.2) + 0.5);
}

static uint64_t first_difference;

/* Expected colour of luxel (s, t) of face i, style slot 0. */
static void expected_luxel(const map_data *d, const bspkit_face_lightmap *lm, int s, int t, uint8_t rgb[3])
{
    uint64_t i = (uint64_t)t * (uint64_t)lm->width + (uint64_t)s;
    const uint8_t *p = d->light + lm->offset;
    if (d->family == BSPKIT_FAMILY_GOLDSRC || d->family == BSPKIT_FAMILY_QUAKE2) {
        memcpy(rgb, p + 3 * i, 3);
    } else if (d->family == BSPKIT_FAMILY_QUAKE) {
        rgb[0] = rgb[1] = rgb[2] = p[i];
    } else {
        for (int c = 0; c < 3; c++)
            rgb[c] = tone(p[4 * i + (uint64_t)c], (int8_t)p[4 * i + 3]);
    }
}

/* Pixels of one placed face: the samples, and each padding luxel equal to the nearest edge luxel. */
static void check_pixels(const char *rel, const map_data *d, const bspkit_lightmap_atlas *a, size_t face,
                         const bspkit_face_lightmap *lm)
{
    /* Quake colour from RGBLIGHTING is not recomputed here. */
    if (d->family == BSPKIT_FAMILY_QUAKE && d->has_rgb && lm->rgb_in_range)
        return;
    const bspkit_atlas_rect *r = &a->rects[face];
    int w = (int)r->width, h = (int)r->height;
    for (int y = -1; y <= h; y++) {
        for (int x = -1; x <= w; x++) {
            int s = x < 0 ? 0 : (x >= w ? w - 1 : x), t = y < 0 ? 0 : (y >= h ? h - 1 : y);
            uint8_t want[3];
            expected_luxel(d, lm, s, t, want);
            const uint8_t *px = a->image.rgba + (((uint64_t)r->y + (uint64_t)(int64_t)y) * a->image.width +
                                                  (uint64_t)((int64_t)r->x + x)) * 4u;
            pixels_checked++;
            if (memcmp(px, want, 3) != 0 || px[3] != 255) {
                if (first_difference++ < 5)
                    FAIL(rel, "face %zu luxel (%d,%d): atlas %u %u %u %u, expected %u %u %u", face, x, y, px[0], px[1],
                         px[2], px[3], want[0], want[1], want[2]);
                else
                    failures++;
                return;
            }
        }
    }
}

/* Every vertex's atlas coordinate lies in the face's rectangle, half a luxel of margin. */
static void check_uv(const char *rel, const map_data *d, const bspkit_lightmap_atlas *a, size_t face, int *bad)
{
    const bspkit_face *f = &d->faces[face];
    if (d->family == BSPKIT_FAMILY_SOURCE && f->dispinfo >= 0) {
        uv_skipped_disp++;
        return;
    }
    const bspkit_atlas_rect *r = &a->rects[face];
    for (int32_t k = 0; k < f->num_edges; k++) {
        const bspkit_vec3 *p = face_vertex(d, f, k);
        if (!p)
            return;
        float uv[2];
        if (!bspkit_lightmap_atlas_uv(d->m, a, face, *p, uv)) {
            FAIL(rel, "face %zu placed but has no UV", face);
            return;
        }
        uv_checked++;
        /* Pixel-edge coordinates: the rectangle spans [x, x + width]. */
        double px = (double)uv[0] * a->image.width, py = (double)uv[1] * a->image.height;
        double eps = 0.01;
        if (!(px >= r->x - eps && px <= r->x + r->width + eps && py >= r->y - eps && py <= r->y + r->height + eps)) {
            if ((*bad)++ < 3)
                FAIL(rel, "face %zu vertex %d maps to (%.3f, %.3f), outside %ux%u at (%u, %u)", face, k, px, py,
                     r->width, r->height, r->x, r->y);
        }
    }
}

/* The expected size of face i's lightmap, from the face's own fields; false when this check cannot tell. */
static bool expected_size(const char *rel, const map_data *d, size_t i, const bspkit_face_lightmap *lm,
                          const bspkit_atlas_rect *r)
{
    const bspkit_face *f = &d->faces[i];
    if (d->family == BSPKIT_FAMILY_SOURCE)
        return (int)r->width == f->lightmap_size[0] + 1 && (int)r->height == f->lightmap_size[1] + 1;
    if (lm->decoupled)
        return i < d->ndec && r->width == d->dec[i].lmwidth && r->height == d->dec[i].lmheight;
    if (f->texinfo < 0 || (size_t)f->texinfo >= d->nti)
        return false;
    int ds[2], fs[2];
    for (int axis = 0; axis < 2; axis++)
        if (!quake_size(d, f, &d->ti[f->texinfo], axis, &ds[axis], &fs[axis]))
            return false;
    int got[2] = {(int)r->width, (int)r->height};
    for (int axis = 0; axis < 2; axis++) {
        if (got[axis] != ds[axis] && got[axis] != fs[axis]) {
            FAIL(rel, "face %zu axis %d: %d luxels, extents give %d (double) or %d (float)", i, axis, got[axis],
                 ds[axis], fs[axis]);
            return true;
        }
    }
    return true;
}

/* vbspinfo's "<name>  <count>/..." or "<name> [variable] <bytes>/..." row; false when absent. */
static bool vbspinfo_value(const char *text, const char *name, bool bytes, long long *out)
{
    for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        const char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        size_t n = strlen(name);
        if (strncmp(p, name, n) != 0 || p[n] != ' ')
            continue;
        p += n;
        long long count = -1, size = -1;
        if (sscanf(p, " [variable] %lld", &size) == 1 || sscanf(p, " %lld/%*d %lld", &count, &size) == 2) {
            *out = bytes ? size : count;
            return *out >= 0;
        }
    }
    return false;
}

static void compare_vbspinfo(const char *rel, const char *path, const bspkit_lightmap_atlas *a,
                             uint64_t placed_bytes, bool all_placed)
{
    char name[1300];
    snprintf(name, sizeof name, "%s.info.txt", path);
    FILE *fp = fopen(name, "rb");
    if (!fp)
        return;
    static char text[65536];
    size_t len = fread(text, 1, sizeof text - 1, fp);
    fclose(fp);
    text[len] = '\0';
    long long v;
    if (vbspinfo_value(text, a->hdr ? "hdr faces" : "faces", false, &v)) {
        info_rows++;
        /* An empty FACES_HDR means the HDR lighting is addressed through FACES. */
        if ((long long)a->rect_count != v && !(a->hdr && v == 0))
            FAIL(rel, "%zu rectangles, vbspinfo %lld faces", a->rect_count, v);
    }
    if (vbspinfo_value(text, a->hdr ? "HDR lightdata" : "LDR lightdata", true, &v)) {
        info_rows++;
        if (placed_bytes > (unsigned long long)v)
            FAIL(rel, "placed lightmaps hold %" PRIu64 " bytes, vbspinfo lightdata %lld", placed_bytes, v);
        /* Some compilers leave gaps between lightmaps, so a shortfall is reported, not failed. */
        info_lightdata++;
        if (all_placed && placed_bytes == (unsigned long long)v)
            info_lightdata_full++;
        else
            printf("note %s: placed lightmaps hold %" PRIu64 " of %lld lightdata bytes\n", rel, placed_bytes, v);
    }
}

/* Quake 3: the atlas copies whole 128 x 128 pages. Each placed surface's
 * rectangle must hold, luxel for luxel, the bytes of its page in LIGHTMAPS
 * (read here from the lump), and every lit surface whose vertices' lightmap
 * coordinates (page units) lie in the page must be placed, with those
 * coordinates inside its rectangle give or take a luxel. */
static void check_page_atlas(const char *rel, bspkit_map *m)
{
    bspkit_error err;
    bspkit_lightmap_atlas a;
    const bspkit_surface *s;
    const bspkit_drawvert *dv;
    const uint8_t *light;
    size_t ns, ndv, size;
    if (bspkit_lightmap_atlas_build(m, NULL, &a, &err) != BSPKIT_OK) {
        FAIL(rel, "atlas: %s", err.message);
        return;
    }
    if (bspkit_get_surfaces(m, &s, &ns, &err) != BSPKIT_OK || bspkit_get_drawverts(m, &dv, &ndv, &err) != BSPKIT_OK ||
        bspkit_get_lighting(m, false, &light, &size, &err) != BSPKIT_OK || a.rect_count != ns) {
        FAIL(rel, "atlas: %zu rectangles for %zu surfaces (%s)", a.rect_count, ns, err.message);
        bspkit_lightmap_atlas_free(&a);
        return;
    }
    atlases++;
    const uint32_t side = 128, pages = (uint32_t)(size / (3u * side * side));
    int bad = 0;
    for (size_t i = 0; i < ns && bad < 3; i++) {
        const bspkit_atlas_rect *r = &a.rects[i];
        bool lit = s[i].lightmap >= 0 && (uint32_t)s[i].lightmap < pages && s[i].type != BSPKIT_Q3_SURFACE_FLARE &&
                   s[i].num_verts > 0 && s[i].first_vert >= 0 && (size_t)s[i].first_vert + (size_t)s[i].num_verts <= ndv;
        faces_seen++;
        if (!r->placed) {
            if (lit) {
                FAIL(rel, "surface %zu is lit (page %d) but not placed", i, (int)s[i].lightmap);
                bad++;
            }
            continue;
        }
        placed_total++;
        luxels_total += (uint64_t)r->width * r->height;
        /* The rectangle's page corner in the atlas: pages lie in rows of `cols`. */
        uint32_t cols = a.image.width / side, page = (uint32_t)s[i].lightmap;
        uint32_t px = page % cols * side, py = page / cols * side;
        if (r->x < px || r->y < py || r->x + r->width > px + side || r->y + r->height > py + side) {
            FAIL(rel, "surface %zu: rectangle (%u, %u) %ux%u outside page %u at (%u, %u)", i, r->x, r->y, r->width,
                 r->height, page, px, py);
            bad++;
            continue;
        }
        for (uint32_t y = 0; y < r->height; y++)
            for (uint32_t x = 0; x < r->width; x++) {
                size_t at = ((size_t)(r->y + y) * a.image.width + r->x + x) * 4;
                size_t src = ((size_t)page * side * side + (size_t)(r->y - py + y) * side + (r->x - px + x)) * 3;
                pixels_checked++;
                if (memcmp(a.image.rgba + at, light + src, 3) != 0 && bad++ < 3)
                    FAIL(rel, "surface %zu: atlas luxel (%u, %u) differs from page %u", i, r->x + x, r->y + y, page);
            }
        for (int32_t k = 0; k < s[i].num_verts; k++) {
            const bspkit_drawvert *v = &dv[s[i].first_vert + k];
            double u = px + v->lightmap[0] * side, w = py + v->lightmap[1] * side;
            uv_checked++;
            if ((u < r->x - 1.0 || u > r->x + r->width + 1.0 || w < r->y - 1.0 || w > r->y + r->height + 1.0) &&
                bad++ < 3)
                FAIL(rel, "surface %zu vertex %d: lightmap (%.2f, %.2f) outside its rectangle", i, k, u, w);
        }
    }
    bspkit_lightmap_atlas_free(&a);
}

/* Returns whether the atlas used the HDR lumps (false also when it could not be built). */
static bool check_atlas(const char *rel, const char *path, map_data *d, bool hdr)
{
    bspkit_error err;
    bspkit_atlas_options o = {0};
    o.hdr = hdr;
    bspkit_lightmap_atlas a;
    if (bspkit_lightmap_atlas_build(d->m, &o, &a, &err) != BSPKIT_OK) {
        FAIL(rel, "%s atlas: %s", hdr ? "HDR" : "LDR", err.message);
        return false;
    }
    const bspkit_face_lightmap *lm;
    size_t n;
    if (bspkit_get_face_lightmaps(d->m, a.hdr, &lm, &n, &err) != BSPKIT_OK ||
        bspkit_get_lighting(d->m, a.hdr, &d->light, &d->light_size, &err) != BSPKIT_OK ||
        (a.hdr && bspkit_get_hdr_faces(d->m, &d->faces, &d->nfaces, &err) != BSPKIT_OK) ||
        ((!a.hdr || d->nfaces == 0) && bspkit_get_faces(d->m, &d->faces, &d->nfaces, &err) != BSPKIT_OK)) {
        FAIL(rel, "lightmaps: %s", err.message);
        bspkit_lightmap_atlas_free(&a);
        return false;
    }
    atlases++;
    if (a.rect_count != n || n != d->nfaces)
        FAIL(rel, "%zu rectangles for %zu faces (%zu lightmaps)", a.rect_count, d->nfaces, n);
    uint32_t W = a.image.width, H = a.image.height;
    uint8_t *used = calloc((size_t)W * H, 1);
    uint64_t luxels = 0, placed = 0, placed_bytes = 0;
    int overlaps = 0, size_bad = 0, uv_bad = 0;
    bool all_placed = true;
    first_difference = 0;
    for (size_t i = 0; i < a.rect_count && i < n && used; i++) {
        const bspkit_atlas_rect *r = &a.rects[i];
        bool eligible = lm[i].lit && lm[i].in_range && lm[i].styles > 0;
        all_placed &= r->placed || !lm[i].lit;
        if (r->placed != eligible) {
            FAIL(rel, "face %zu placed %d, lit %d in range %d styles %d", i, r->placed, lm[i].lit, lm[i].in_range,
                 lm[i].styles);
            continue;
        }
        if (!r->placed)
            continue;
        placed++;
        luxels += (uint64_t)r->width * r->height;
        uint64_t bytes = (uint64_t)r->width * r->height * (uint64_t)lm[i].styles * (uint64_t)lm[i].sets *
                         (uint64_t)lm[i].bytes_per_luxel;
        placed_bytes += bytes + (d->family == BSPKIT_FAMILY_SOURCE ? 4u * (uint64_t)lm[i].styles : 0);
        if (bytes != lm[i].bytes || !expected_size(rel, d, i, &lm[i], r)) {
            if (size_bad++ < 3)
                FAIL(rel, "face %zu: %ux%u rectangle, %d styles x %d sets, %" PRIu64 " lump bytes", i, r->width,
                     r->height, lm[i].styles, lm[i].sets, lm[i].bytes);
            continue;
        }
        /* Padding 1 by default: the padded rectangle must lie inside and be unused. */
        if (r->x < 1 || r->y < 1 || (uint64_t)r->x + r->width + 1 > W || (uint64_t)r->y + r->height + 1 > H) {
            FAIL(rel, "face %zu: %ux%u at (%u, %u) leaves the %ux%u atlas", i, r->width, r->height, r->x, r->y, W, H);
            continue;
        }
        for (uint32_t y = r->y - 1; y <= r->y + r->height; y++)
            for (uint32_t x = r->x - 1; x <= r->x + r->width; x++)
                if (used[(size_t)y * W + x]++ && overlaps++ < 3)
                    FAIL(rel, "face %zu overlaps another at luxel (%u, %u)", i, x, y);
        check_pixels(rel, d, &a, i, &lm[i]);
        check_uv(rel, d, &a, i, &uv_bad);
    }
    if (!used)
        FAIL(rel, "out of memory for a %ux%u map of the atlas", W, H);
    free(used);
    failures += (overlaps > 3 ? overlaps - 3 : 0) + (size_bad > 3 ? size_bad - 3 : 0) + (uv_bad > 3 ? uv_bad - 3 : 0);
    faces_seen += n;
    placed_total += placed;
    luxels_total += luxels;
    pixels_total += (uint64_t)W * H;
    if (placed > 0) {
        double occ = (double)luxels / ((double)W * H);
        occupancy_sum += occ;
        occupancy_maps++;
        if (occ < occupancy_min)
            occupancy_min = occ;
    }
    if (d->family == BSPKIT_FAMILY_SOURCE)
        compare_vbspinfo(rel, path, &a, placed_bytes, all_placed);
    bool used_hdr = a.hdr;
    bspkit_lightmap_atlas_free(&a);
    return used_hdr;
}

static void visit(const char *root, const char *rel)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    map_data d;
    memset(&d, 0, sizeof d);
    bspkit_error err;
    bspkit_result r = bspkit_open_file(path, NULL, &d.m, &err);
    if (r == BSPKIT_ERR_UNSUPPORTED) {
        unsupported++;
        return;
    }
    if (r != BSPKIT_OK) {
        printf("note %s: does not open: %s\n", rel, err.message);
        not_opened++;
        return;
    }
    maps++;
    d.family = bspkit_map_format(d.m)->family;
    if (d.family == BSPKIT_FAMILY_QUAKE3) {
        check_page_atlas(rel, d.m);
        bspkit_close(d.m);
        return;
    }
    const uint8_t *rgb;
    size_t rgb_size;
    d.has_rgb = bspkit_bspx_lump(d.m, "RGBLIGHTING", &rgb, &rgb_size, &err) == BSPKIT_OK;
    if (bspkit_get_texinfo(d.m, &d.ti, &d.nti, &err) != BSPKIT_OK ||
        bspkit_get_vertexes(d.m, &d.geo.verts, &d.geo.nverts, &err) != BSPKIT_OK ||
        bspkit_get_edges(d.m, &d.geo.edges, &d.geo.nedges, &err) != BSPKIT_OK ||
        bspkit_get_surfedges(d.m, &d.geo.surfedges, &d.geo.nsurfedges, &err) != BSPKIT_OK ||
        bspkit_get_bspx_decoupled_lm(d.m, &d.dec, &d.ndec, &err) != BSPKIT_OK) {
        printf("note %s: geometry does not decode: %s\n", rel, err.message);
        bspkit_close(d.m);
        return;
    }
    /* A map with only HDR lighting gets the HDR atlas on the first call already. */
    bool had_hdr = check_atlas(rel, path, &d, false);
    const uint8_t *hdr;
    size_t hdr_size = 0;
    if (!had_hdr && d.family == BSPKIT_FAMILY_SOURCE &&
        bspkit_get_lighting(d.m, true, &hdr, &hdr_size, &err) == BSPKIT_OK && hdr_size > 0)
        check_atlas(rel, path, &d, true);
    bspkit_close(d.m);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    struct stat st;
    if (stat(argv[1], &st) != 0) {
        printf("skipped: %s not present, atlas checks not run\n", argv[1]);
        return 0;
    }
    corpus_walk(argv[1], visit);
    printf("atlas: %d maps checked (%d unsupported, %d not opened), %d atlases, %" PRIu64 " faces, %" PRIu64
           " placed, %" PRIu64 " luxels in %" PRIu64 " atlas pixels (occupancy %.1f%% overall, mean %.1f%%, "
           "lowest %.1f%%), %" PRIu64 " pixels compared, %" PRIu64 " vertex UVs checked (%" PRIu64
           " displacement faces skipped), %d vbspinfo rows compared (lightdata fully "
           "placed in %d/%d); %d failures\n",
           maps, unsupported, not_opened, atlases, faces_seen, placed_total, luxels_total, pixels_total,
           pixels_total ? 100.0 * (double)luxels_total / (double)pixels_total : 0.0,
           occupancy_maps ? 100.0 * occupancy_sum / occupancy_maps : 0.0, occupancy_min <= 1.0 ? 100.0 * occupancy_min : 0.0,
           pixels_checked, uv_checked, uv_skipped_disp, info_rows, info_lightdata_full, info_lightdata, failures);
    return failures ? 1 : 0;
}
