/* Lightmap atlas: every placed face's luxels packed into one RGB image by a
 * skyline packer, and the atlas coordinate of a point on a face. */
#include "bspkit/atlas.h"
#include "bspkit/bspx.h"
#include "bspkit/lighting.h"
#include "bspkit/quake3.h"
#include "core/family.h"
#include "media/atlas_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ATLAS_MAX_SIDE 32768u
#define ATLAS_MAX_PADDING 64u
#define ATLAS_DEFAULT_WIDTH 4096u
#define ATLAS_BASE_PIXELS (UINT64_C(1) << 22)
#define ATLAS_PIXELS_PER_FILE_BYTE 8u

/* One rectangle to pack: the face's luxels plus padding on every side. */
typedef struct pack_item {
    uint32_t face;
    uint32_t w, h; /* padded */
} pack_item;

/* Skyline segment: the packed area's top edge is at `y` over [x, x + w). */
typedef struct segment {
    uint32_t x, y, w;
} segment;

/* Tallest first, then widest, then by face: a total order, so the packing
 * does not depend on qsort's stability. */
static int by_size(const void *a, const void *b)
{
    const pack_item *p = a, *q = b;
    if (p->h != q->h)
        return p->h < q->h ? 1 : -1;
    if (p->w != q->w)
        return p->w < q->w ? 1 : -1;
    return (p->face > q->face) - (p->face < q->face);
}

/* Lowest top the rectangle can rest on with its left edge at segment i, or
 * UINT32_MAX when it would cross the right edge. */
static uint32_t rest_height(const segment *s, size_t n, size_t i, uint32_t w, uint32_t width)
{
    if ((uint64_t)s[i].x + w > width)
        return UINT32_MAX;
    uint32_t y = 0;
    uint64_t covered = 0;
    for (size_t k = i; k < n && covered < w; k++) {
        if (s[k].y > y)
            y = s[k].y;
        covered += s[k].w;
    }
    return y;
}

/* Bottom-left skyline packing at a fixed width. Segments never outnumber
 * items + 1 (each placement adds at most one). Returns the packed height. */
static uint64_t skyline_pack(pack_item *items, size_t n, uint32_t width, uint32_t *xs, uint32_t *ys, segment *s)
{
    size_t ns = 1;
    s[0] = (segment){0, 0, width};
    uint64_t height = 0;
    for (size_t it = 0; it < n; it++) {
        uint32_t w = items[it].w, h = items[it].h;
        size_t best = SIZE_MAX;
        uint32_t best_y = UINT32_MAX;
        for (size_t i = 0; i < ns; i++) {
            uint32_t y = rest_height(s, ns, i, w, width);
            /* Lower top first; on a tie the leftmost (earlier) segment stays. */
            if (y != UINT32_MAX && (best == SIZE_MAX || (uint64_t)y + h < (uint64_t)best_y + h)) {
                best = i;
                best_y = y;
            }
        }
        /* Every item is at most `width` wide, so segment 0 always fits. */
        uint32_t x = s[best].x;
        xs[it] = x;
        ys[it] = best_y;
        uint64_t top = (uint64_t)best_y + h;
        if (top > height)
            height = top;
        /* Cut the segments under the new one: drop those wholly covered,
         * shorten the one it ends inside. */
        uint32_t end = x + w;
        size_t k = best;
        while (k < ns && s[k].x + s[k].w <= end)
            k++;
        if (k < ns && s[k].x < end) {
            s[k].w -= end - s[k].x;
            s[k].x = end;
        }
        /* Replace segments [best, k) by the new one. */
        size_t removed = k - best;
        if (removed == 0) {
            memmove(&s[best + 1], &s[best], (ns - best) * sizeof *s);
            ns++;
        } else if (removed > 1) {
            memmove(&s[best + 1], &s[k], (ns - k) * sizeof *s);
            ns -= removed - 1;
        }
        s[best] = (segment){x, (uint32_t)top, w};
        /* Merge neighbours at the same height so the scan stays short. */
        if (best + 1 < ns && s[best + 1].y == s[best].y) {
            s[best].w += s[best + 1].w;
            memmove(&s[best + 1], &s[best + 2], (ns - best - 2) * sizeof *s);
            ns--;
        }
        if (best > 0 && s[best - 1].y == s[best].y) {
            s[best - 1].w += s[best].w;
            memmove(&s[best], &s[best + 1], (ns - best - 1) * sizeof *s);
            ns--;
        }
    }
    return height;
}

/* Colour of one luxel, by family. */
typedef struct sampler {
    const bk_atlas_pixels *px; /* the lumps and how to read them */
    uint8_t gamma[256][256];   /* Source: [exponent + 128][channel] -> 8 bits */
} sampler;

/* The tone curve of atlas.h, tabulated once per build: every ColorRGBExp32
 * channel is one of 256 * 256 (value, exponent) pairs. */
static void build_gamma(sampler *sm)
{
    for (int e = 0; e < 256; e++) {
        /* Most exponents need no pow(): from 2^8 every non-zero value is
         * past 1 (255), and below 2^-22 even 255 stays under 1e-6, whose
         * curve value times 255 is under 0.48 (0). */
        if (e - 128 >= 8 || e - 128 < -22) {
            memset(sm->gamma[e], e - 128 >= 8 ? 255 : 0, 256);
            sm->gamma[e][0] = 0;
            continue;
        }
        for (int c = 0; c < 256; c++) {
            double v = ldexp((double)c, e - 128) / 255.0;
            if (v > 1.0)
                v = 1.0;
            sm->gamma[e][c] = (uint8_t)floor(255.0 * pow(v, 1.0 / 2.2) + 0.5);
        }
    }
}

/* Where luxels are stored: RGBA pixels, or PNG scanlines (RGB, each row
 * led by its filter byte). */
typedef struct canvas {
    uint8_t *data;
    size_t stride; /* bytes per row */
    size_t lead;   /* bytes before each row's first pixel */
    size_t bpp;    /* 4 (RGBA) or 3 (RGB) */
} canvas;

/* One luxel's colour into a pixel; RGBA pixels are opaque. */
static inline void put_pixel(uint8_t *out, size_t bpp, uint8_t r, uint8_t g, uint8_t b)
{
    out[0] = r, out[1] = g, out[2] = b;
    if (bpp == 4)
        out[3] = 255;
}

/* Writes the face's luxels (style block `style`, first sample set) and the
 * padding around them. Ranges were proven by bspkit_get_face_lightmaps(). */
static inline void draw_face_as(const sampler *sm, const bspkit_face_lightmap *lm, const bspkit_atlas_rect *r,
                                const canvas *cv, const size_t bpp)
{
    const bk_atlas_pixels *px = sm->px;
    const uint64_t style = px->style;
    uint64_t luxels = (uint64_t)lm->width * (uint64_t)lm->height;
    const uint8_t *base;
    int kind; /* 0 grey, 1 RGB, 2 RGBExp */
    if (px->family == BSPKIT_FAMILY_SOURCE) {
        base = px->light + lm->offset + (uint64_t)style * (uint64_t)lm->sets * luxels * 4u;
        kind = 2;
    } else if (px->rgb_light) {
        base = px->light + lm->offset + (uint64_t)style * luxels * 3u;
        kind = 1;
    } else if (px->rgb && lm->rgb_in_range) {
        base = px->rgb + lm->rgb_offset + (uint64_t)style * luxels * 3u;
        kind = 1;
    } else {
        base = px->light + lm->offset + (uint64_t)style * luxels;
        kind = 0;
    }
    /* One source row per output row (the padding repeats the edge luxels),
     * each luxel turned into a pixel once and then stored with the left and
     * right padding copies. */
    const size_t w = (size_t)lm->width, h = (size_t)lm->height, p = px->pad;
    const size_t bpl = kind == 2 ? 4 : kind == 1 ? 3 : 1; /* bytes per luxel */
    for (size_t oy = 0; oy < h + 2 * p; oy++) {
        size_t sy = oy < p ? 0 : oy - p >= h ? h - 1 : oy - p;
        const uint8_t *src = base + sy * w * bpl;
        uint8_t *row = cv->data + (size_t)(r->y - p + oy) * cv->stride + cv->lead + (size_t)(r->x - p) * bpp;
        uint8_t *out = row + p * bpp;
        if (kind == 0) {
            for (size_t x = 0; x < w; x++, out += bpp)
                put_pixel(out, bpp, src[x], src[x], src[x]);
        } else if (kind == 1) {
            for (size_t x = 0; x < w; x++, out += bpp, src += 3)
                put_pixel(out, bpp, src[0], src[1], src[2]);
        } else {
            for (size_t x = 0; x < w; x++, out += bpp, src += 4) {
                const uint8_t *g = sm->gamma[(int)(int8_t)src[3] + 128];
                put_pixel(out, bpp, g[src[0]], g[src[1]], g[src[2]]);
            }
        }
        for (size_t x = 0; x < p; x++) {
            memcpy(row + x * bpp, row + p * bpp, bpp);
            memcpy(row + (p + w + x) * bpp, row + (p + w - 1) * bpp, bpp);
        }
    }
}

/* Every placed face onto the canvas; false when out of memory. The
 * pixel size is a constant in each branch, so each gets its own loops. */
static bool draw_faces(const bk_atlas_pixels *px, const bspkit_lightmap_atlas *atlas, const canvas *cv)
{
    sampler *sm = malloc(sizeof *sm);
    if (!sm)
        return false;
    sm->px = px;
    if (px->family == BSPKIT_FAMILY_SOURCE)
        build_gamma(sm);
    for (size_t i = 0; i < px->count; i++) {
        if (!atlas->rects[i].placed)
            continue;
        if (cv->bpp == 4)
            draw_face_as(sm, &px->lm[i], &atlas->rects[i], cv, 4);
        else
            draw_face_as(sm, &px->lm[i], &atlas->rects[i], cv, 3);
    }
    free(sm);
    return true;
}

/* Source maps with only HDR lighting get the HDR set even when LDR was asked for. */
static bspkit_result choose_hdr(bspkit_map *map, bool want, bool *hdr, bspkit_error *err)
{
    *hdr = false;
    if (map->format.family != BSPKIT_FAMILY_SOURCE)
        return BSPKIT_OK;
    if (want) {
        *hdr = true;
        return BSPKIT_OK;
    }
    const uint8_t *d;
    size_t ldr, hdr_size;
    bspkit_result r = bspkit_get_lighting(map, false, &d, &ldr, err);
    if (r == BSPKIT_OK)
        r = bspkit_get_lighting(map, true, &d, &hdr_size, err);
    if (r == BSPKIT_OK && ldr == 0 && hdr_size > 0)
        *hdr = true;
    return r;
}

static bspkit_result check_options(const bspkit_atlas_options *o, uint32_t *style, uint32_t *pad, uint32_t *maxw,
                                   bspkit_error *err)
{
    *style = o ? o->style : 0;
    *pad = o && o->padding ? o->padding : 1;
    *maxw = o && o->max_width ? o->max_width : ATLAS_DEFAULT_WIDTH;
    if (*style > 3)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "lightmap atlas: style slot %u is not 0..3", *style);
    if (*pad > ATLAS_MAX_PADDING)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "lightmap atlas: padding %u is over %u", *pad,
                       ATLAS_MAX_PADDING);
    if (*maxw > ATLAS_MAX_SIDE)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "lightmap atlas: max width %u is over %u", *maxw,
                       ATLAS_MAX_SIDE);
    return BSPKIT_OK;
}

/* The faces to place, with padded sizes; fails when one cannot fit or the
 * total passes the pixel limit. */
static bspkit_result collect(const bspkit_face_lightmap *lm, size_t n, uint32_t style, uint32_t pad, uint32_t maxw,
                             uint64_t max_pixels, int lump, pack_item *items, size_t *count, uint64_t *area, uint32_t *widest,
                             bspkit_error *err)
{
    size_t k = 0;
    uint64_t total = 0;
    uint32_t wmax = 1;
    for (size_t i = 0; i < n; i++) {
        const bspkit_face_lightmap *f = &lm[i];
        if (!f->lit || !f->in_range || f->styles <= (int32_t)style || f->width <= 0 || f->height <= 0)
            continue;
        /* in_range bounds each side by the lump size, far below 2^32. */
        uint64_t w = (uint64_t)f->width + 2u * pad, h = (uint64_t)f->height + 2u * pad;
        if (w > maxw || h > ATLAS_MAX_SIDE)
            return bk_fail(err, BSPKIT_ERR_LIMIT, lump, -1, -1,
                           "lightmap atlas: face %zu lightmap %dx%d (%llux%llu padded) does not fit an atlas %u wide",
                           i, f->width, f->height, (unsigned long long)w, (unsigned long long)h, maxw);
        total += w * h;
        if (total > max_pixels)
            return bk_fail(err, BSPKIT_ERR_LIMIT, lump, -1, -1,
                           "lightmap atlas: padded lightmaps pass %llu pixels by face %zu",
                           (unsigned long long)max_pixels, i);
        items[k++] = (pack_item){(uint32_t)i, (uint32_t)w, (uint32_t)h};
        if (w > wmax)
            wmax = (uint32_t)w;
    }
    *count = k;
    *area = total;
    *widest = wmax;
    return BSPKIT_OK;
}

/* Lays the items out and fills the rectangles; the atlas size comes back. */
static bspkit_result pack(pack_item *items, size_t k, uint64_t area, uint32_t widest, uint32_t pad, uint32_t maxw,
                          uint64_t max_pixels, int lump, bspkit_atlas_rect *rects, uint32_t *width, uint32_t *height, bspkit_error *err)
{
    /* About square: the padded area's square root, never narrower than the widest face. */
    uint64_t w = (uint64_t)ceil(sqrt((double)area));
    if (w < widest)
        w = widest;
    if (w > maxw)
        w = maxw;
    if (w == 0)
        w = 1;
    uint32_t *xs = malloc((k + 1) * 2 * sizeof *xs);
    segment *segs = malloc((k + 1) * sizeof *segs);
    if (!xs || !segs) {
        free(xs);
        free(segs);
        return bk_fail(err, BSPKIT_ERR_NOMEM, lump, -1, -1, "lightmap atlas: out of memory for %zu faces", k);
    }
    qsort(items, k, sizeof *items, by_size);
    uint64_t h = skyline_pack(items, k, (uint32_t)w, xs, xs + k + 1, segs);
    for (size_t i = 0; i < k; i++) {
        bspkit_atlas_rect *r = &rects[items[i].face];
        r->placed = true;
        r->x = xs[i] + pad;
        r->y = xs[k + 1 + i] + pad;
        r->width = items[i].w - 2 * pad;
        r->height = items[i].h - 2 * pad;
    }
    free(xs);
    free(segs);
    if (h == 0)
        h = 1;
    if (h > ATLAS_MAX_SIDE || w * h > max_pixels)
        return bk_fail(err, BSPKIT_ERR_LIMIT, lump, -1, -1,
                       "lightmap atlas: %llux%llu luxels is over the limit (%u high, %llu pixels)",
                       (unsigned long long)w, (unsigned long long)h, ATLAS_MAX_SIDE, (unsigned long long)max_pixels);
    *width = (uint32_t)w;
    *height = (uint32_t)h;
    return BSPKIT_OK;
}

/* Quake 3 keeps its lightmaps in 128 x 128 pages that q3map2 already
 * packed (with borders): the pages are copied whole, in rows of
 * ceil(sqrt(pages)), and each surface's rectangle is its part of its page
 * (bspkit_get_face_lightmaps).
 * There is one light style; another slot places nothing. */
static bspkit_result build_page_atlas(bspkit_map *map, uint32_t style, uint32_t maxw, bspkit_lightmap_atlas *out,
                                      bspkit_error *err)
{
    const uint32_t side = BSPKIT_Q3_LIGHTMAP_PAGE_SIZE, page_bytes = 3u * side * side;
    const bspkit_face_lightmap *lm;
    size_t n, size;
    const uint8_t *light;
    bspkit_result r;
    if ((r = bspkit_get_face_lightmaps(map, false, &lm, &n, err)) != BSPKIT_OK ||
        (r = bspkit_get_lighting(map, false, &light, &size, err)) != BSPKIT_OK)
        return r;
    uint32_t pages = (uint32_t)(size / page_bytes); /* a partial last page is left out (validate reports it) */
    uint32_t cols = 1;
    while ((uint64_t)cols * cols < pages)
        cols++;
    uint32_t rows = pages ? (pages + cols - 1) / cols : 1;
    if (pages > 0 && (uint64_t)cols * side > maxw) {
        cols = maxw / side ? maxw / side : 1;
        rows = (pages + cols - 1) / cols;
    }
    if ((uint64_t)rows * side > ATLAS_MAX_SIDE)
        return bk_fail(err, BSPKIT_ERR_LIMIT, BSPKIT_Q3_LIGHTMAPS, -1, -1,
                       "lightmap atlas: %u lightmap pages need %u rows of %u, over %u luxels", pages, rows, side,
                       ATLAS_MAX_SIDE);
    out->rects = calloc(n ? n : 1, sizeof *out->rects);
    if (!out->rects)
        return bk_fail(err, BSPKIT_ERR_NOMEM, BSPKIT_Q3_LIGHTMAPS, -1, -1, "lightmap atlas: out of memory");
    out->rect_count = n;
    if ((r = bspkit_image_alloc(&out->image, pages ? cols * side : 1, pages ? rows * side : 1, err)) != BSPKIT_OK) {
        bspkit_lightmap_atlas_free(out);
        return r;
    }
    uint8_t *px = out->image.rgba;
    for (size_t i = 3; i < (size_t)out->image.width * out->image.height * 4u; i += 4)
        px[i] = 255;
    for (uint32_t p = 0; p < pages; p++) {
        uint32_t x0 = p % cols * side, y0 = p / cols * side;
        const uint8_t *src = light + (size_t)p * page_bytes;
        for (uint32_t y = 0; y < side; y++)
            for (uint32_t x = 0; x < side; x++) {
                uint8_t *d = px + (((size_t)(y0 + y) * out->image.width) + x0 + x) * 4u;
                memcpy(d, src + ((size_t)y * side + x) * 3u, 3);
            }
    }
    for (size_t i = 0; i < n && style == 0; i++) {
        if (!lm[i].lit || !lm[i].in_range)
            continue;
        uint32_t page = (uint32_t)((uint64_t)lm[i].offset / page_bytes);
        out->rects[i] = (bspkit_atlas_rect){true, page % cols * side + (uint32_t)lm[i].mins[0],
                                            page / cols * side + (uint32_t)lm[i].mins[1], (uint32_t)lm[i].width,
                                            (uint32_t)lm[i].height};
    }
    return BSPKIT_OK;
}

bspkit_result bk_atlas_layout(bspkit_map *map, const bspkit_atlas_options *opts, bspkit_lightmap_atlas *out,
                              bk_atlas_pixels *px, bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !out || !px)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_lightmap_atlas_build: NULL argument");
    memset(out, 0, sizeof *out);
    memset(px, 0, sizeof *px);
    uint32_t style, pad, maxw;
    bspkit_result r = check_options(opts, &style, &pad, &maxw, err);
    bool hdr;
    if (r == BSPKIT_OK && map->format.family == BSPKIT_FAMILY_QUAKE3) {
        px->drawn = true; /* the pages are copied with the layout */
        return build_page_atlas(map, style, maxw, out, err);
    }
    if (r == BSPKIT_OK)
        r = choose_hdr(map, opts && opts->hdr, &hdr, err);
    if (r != BSPKIT_OK)
        return r;
    int lump = bk_map_lump_for(map, hdr ? BK_ROLE_LIGHTING_HDR : BK_ROLE_LIGHTING);

    const bspkit_face_lightmap *lm;
    size_t n;
    size_t light_size;
    px->family = map->format.family;
    px->rgb_light = bk_map_traits(map) & BK_TRAIT_RGB_LIGHTMAPS;
    px->style = style;
    px->pad = pad;
    if ((r = bspkit_get_face_lightmaps(map, hdr, &lm, &n, err)) != BSPKIT_OK ||
        (r = bspkit_get_lighting(map, hdr, &px->light, &light_size, err)) != BSPKIT_OK)
        return r;
    px->lm = lm;
    px->count = n;
    if (map->format.family == BSPKIT_FAMILY_QUAKE) {
        size_t rgb_size;
        bspkit_error ignore;
        /* Optional colour: without a usable RGBLIGHTING the grey samples stand. */
        if (bspkit_bspx_lump(map, "RGBLIGHTING", &px->rgb, &rgb_size, &ignore) != BSPKIT_OK)
            px->rgb = NULL;
    }

    /* Counts come from lumps already decoded, so these sizes are proven by bytes present. */
    pack_item *items = malloc((n ? n : 1) * sizeof *items);
    out->rects = calloc(n ? n : 1, sizeof *out->rects);
    if (!items || !out->rects) {
        free(items);
        bspkit_lightmap_atlas_free(out);
        return bk_fail(err, BSPKIT_ERR_NOMEM, lump, -1, -1, "lightmap atlas: out of memory for %zu faces", n);
    }
    out->rect_count = n;
    out->hdr = hdr;
    size_t k = 0;
    uint64_t area = 0;
    uint32_t widest = 1, width = 1, height = 1;
    /* Faces may share lightmap bytes, so the luxel total is not bounded by the
     * lump: the image is bounded by the file size instead. */
    uint64_t max_pixels = ATLAS_BASE_PIXELS + (uint64_t)map->size * ATLAS_PIXELS_PER_FILE_BYTE;
    if (max_pixels > BSPKIT_ATLAS_MAX_PIXELS)
        max_pixels = BSPKIT_ATLAS_MAX_PIXELS;
    r = collect(lm, n, style, pad, maxw, max_pixels, lump, items, &k, &area, &widest, err);
    if (r == BSPKIT_OK)
        r = pack(items, k, area, widest, pad, maxw, max_pixels, lump, out->rects, &width, &height, err);
    free(items);
    if (r != BSPKIT_OK) {
        bspkit_lightmap_atlas_free(out);
        return r;
    }
    out->image.width = width;
    out->image.height = height;
    return BSPKIT_OK;
}

bspkit_result bk_atlas_draw(const bk_atlas_pixels *px, const bspkit_lightmap_atlas *atlas, bspkit_image *img,
                            bspkit_error *err)
{
    *img = (bspkit_image){0};
    bspkit_result r = bspkit_image_alloc(img, atlas->image.width, atlas->image.height, err);
    if (r != BSPKIT_OK)
        return r;
    /* Opaque black where no face lands (the image starts zeroed). */
    for (size_t i = 3; i < (size_t)img->width * img->height * 4u; i += 4)
        img->rgba[i] = 255;
    canvas cv = {img->rgba, (size_t)img->width * 4u, 0, 4};
    if (!draw_faces(px, atlas, &cv)) {
        bspkit_image_free(img);
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "lightmap atlas: out of memory");
    }
    return BSPKIT_OK;
}

bspkit_result bk_atlas_draw_rows(const bk_atlas_pixels *px, const bspkit_lightmap_atlas *atlas, uint8_t **rows,
                                 bspkit_error *err)
{
    const size_t stride = (size_t)atlas->image.width * 3u + 1u;
    /* Black where no face lands, and every filter byte 0, from calloc. */
    *rows = calloc(stride * atlas->image.height + 1, 1);
    canvas cv = {*rows, stride, 1, 3};
    if (!*rows || !draw_faces(px, atlas, &cv)) {
        free(*rows);
        *rows = NULL;
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "lightmap atlas: out of memory for %ux%u pixels",
                       atlas->image.width, atlas->image.height);
    }
    return BSPKIT_OK;
}

bspkit_result bspkit_lightmap_atlas_build(bspkit_map *map, const bspkit_atlas_options *opts,
                                          bspkit_lightmap_atlas *out, bspkit_error *err)
{
    bk_atlas_pixels px;
    bspkit_result r = bk_atlas_layout(map, opts, out, &px, err);
    if (r != BSPKIT_OK || px.drawn)
        return r;
    bspkit_image img;
    if ((r = bk_atlas_draw(&px, out, &img, err)) != BSPKIT_OK)
        bspkit_lightmap_atlas_free(out);
    else
        out->image = img;
    return r;
}

void bspkit_lightmap_atlas_free(bspkit_lightmap_atlas *atlas)
{
    if (!atlas)
        return;
    bspkit_image_free(&atlas->image);
    free(atlas->rects);
    memset(atlas, 0, sizeof *atlas);
}

bool bk_atlas_face_uv_init(bspkit_map *map, const bspkit_lightmap_atlas *atlas, size_t face, bk_atlas_face_uv *out)
{
    if (!map || !atlas || face >= atlas->rect_count || !atlas->rects[face].placed || atlas->image.width == 0 ||
        atlas->image.height == 0 || map->format.family == BSPKIT_FAMILY_QUAKE3)
        return false;
    const bspkit_face_lightmap *lm;
    size_t n;
    bspkit_error err;
    if (bspkit_get_face_lightmaps(map, atlas->hdr, &lm, &n, &err) != BSPKIT_OK || face >= n)
        return false;
    out->scale = 1.0;
    if (lm[face].decoupled) {
        const bspkit_bspx_decoupled_lm *d;
        size_t dn;
        if (bspkit_get_bspx_decoupled_lm(map, &d, &dn, &err) != BSPKIT_OK || face >= dn)
            return false;
        out->vec[0] = d[face].world_to_lm[0];
        out->vec[1] = d[face].world_to_lm[1];
    } else {
        const bspkit_face *faces;
        size_t fn = 0;
        /* The same face array bspkit_get_face_lightmaps() read. */
        if (atlas->hdr && bspkit_get_hdr_faces(map, &faces, &fn, &err) != BSPKIT_OK)
            return false;
        if (fn == 0 && bspkit_get_faces(map, &faces, &fn, &err) != BSPKIT_OK)
            return false;
        const bspkit_texinfo *ti;
        size_t tn;
        if (face >= fn || bspkit_get_texinfo(map, &ti, &tn, &err) != BSPKIT_OK || faces[face].texinfo < 0 ||
            (size_t)faces[face].texinfo >= tn)
            return false;
        const bspkit_texinfo *t = &ti[faces[face].texinfo];
        bool source = map->format.family == BSPKIT_FAMILY_SOURCE;
        out->vec[0] = source ? t->lightmap_vecs[0] : t->texture_vecs[0];
        out->vec[1] = source ? t->lightmap_vecs[1] : t->texture_vecs[1];
        out->scale = source ? 1.0 : 1.0 / 16.0;
    }
    const bspkit_atlas_rect *r = &atlas->rects[face];
    out->mins[0] = lm[face].mins[0];
    out->mins[1] = lm[face].mins[1];
    out->origin[0] = r->x;
    out->origin[1] = r->y;
    out->size[0] = atlas->image.width;
    out->size[1] = atlas->image.height;
    return true;
}

bool bspkit_lightmap_atlas_uv(bspkit_map *map, const bspkit_lightmap_atlas *atlas, size_t face, bspkit_vec3 p,
                              float uv[2])
{
    bk_atlas_face_uv f;
    if (!uv || !bk_atlas_face_uv_init(map, atlas, face, &f))
        return false;
    bk_atlas_face_uv_at(&f, p, uv);
    return true;
}
