/* RGBA images and PNG encoding into memory, so that files are written
 * atomically by bspkit_save_file(). The PNG container (signature, IHDR,
 * IDAT, IEND, each chunk with its CRC) is a few lines; the filtered rows are
 * compressed by libdeflate, which at the levels used here is several times
 * faster than zlib (which libpng is bound to) for the same size or smaller. */
#include "bspkit/image.h"
#include "bspkit/edit.h"
#include "core/grow.h"
#include "core/map.h"
#include "core/save_file.h"
#include "media/image_internal.h"

#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IMAGE_MAX_SIDE 32768u

bspkit_result bspkit_image_alloc(bspkit_image *img, uint32_t width, uint32_t height, bspkit_error *err)
{
    bk_error_clear(err);
    if (!img)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "image: NULL image");
    memset(img, 0, sizeof *img);
    if (width == 0 || height == 0 || width > IMAGE_MAX_SIDE || height > IMAGE_MAX_SIDE)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "image: size %ux%u outside 1..%u", width, height,
                       IMAGE_MAX_SIDE);
    img->rgba = calloc((size_t)width * height, 4);
    if (!img->rgba)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "image: out of memory for %ux%u pixels", width, height);
    img->width = width;
    img->height = height;
    return BSPKIT_OK;
}

void bspkit_image_free(bspkit_image *img)
{
    if (!img)
        return;
    free(img->rgba);
    memset(img, 0, sizeof *img);
}

bool bk_image_opaque(const bspkit_image *img)
{
    size_t n = (size_t)img->width * img->height;
    for (size_t i = 0; i < n; i++)
        if (img->rgba[i * 4 + 3] != 255)
            return false;
    return true;
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* A chunk's length, type, data (already at p + 8) and CRC; returns its end. */
static uint8_t *close_chunk(uint8_t *p, const char type[4], size_t length)
{
    put_be32(p, (uint32_t)length);
    memcpy(p + 4, type, 4);
    put_be32(p + 8 + length, (uint32_t)libdeflate_crc32(0, p + 4, length + 4));
    return p + 12 + length;
}

static uint8_t paeth(uint8_t a, uint8_t b, uint8_t c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Row y with filter `type` (PNG filter types 0-4) into out[0..n); `prev`
 * is the unfiltered row above (NULL for the first). Returns the sum of the
 * filtered bytes taken as signed: the adaptive choice keeps the smallest. */
static unsigned filter_row(int type, const uint8_t *row, const uint8_t *prev, size_t n, unsigned bpp, uint8_t *out)
{
    unsigned sum = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t a = i >= bpp ? row[i - bpp] : 0, b = prev ? prev[i] : 0, c = prev && i >= bpp ? prev[i - bpp] : 0;
        uint8_t pred = type == 1 ? a : type == 2 ? b : type == 3 ? (uint8_t)((a + b) >> 1) : type == 4 ? paeth(a, b, c) : 0;
        uint8_t v = (uint8_t)(row[i] - pred);
        out[i] = v;
        sum += v < 128 ? v : 256u - v;
    }
    return sum;
}

/* The image's rows as PNG scanlines: RGB when every pixel is opaque, else
 * RGBA, each row led by its filter type. Fast: SUB on every row (most of the
 * gain of filtering at a fraction of the cost); else per row the filter
 * whose output has the smallest sum of magnitudes, as libpng chooses. */
static uint8_t *scanlines(const bspkit_image *img, bool opaque, bool fast, size_t *size)
{
    const unsigned bpp = opaque ? 3 : 4;
    const size_t n = (size_t)img->width * bpp, stride = n + 1;
    uint8_t *raw = malloc(stride * img->height), *rows = malloc(2 * n), *trial = malloc(n);
    if (!raw || !rows || !trial) {
        free(raw);
        free(rows);
        free(trial);
        return NULL;
    }
    uint8_t *cur = rows, *prev = NULL;
    for (uint32_t y = 0; y < img->height; y++) {
        const uint8_t *src = img->rgba + (size_t)y * img->width * 4;
        if (opaque)
            for (uint32_t x = 0; x < img->width; x++)
                memcpy(cur + (size_t)x * 3, src + (size_t)x * 4, 3);
        else
            memcpy(cur, src, n);
        uint8_t *line = raw + (size_t)y * stride;
        if (fast) {
            line[0] = 1; /* SUB: each byte less the one a pixel before it */
            memcpy(line + 1, cur, bpp);
            for (size_t i = bpp; i < n; i++)
                line[1 + i] = (uint8_t)(cur[i] - cur[i - bpp]);
        } else {
            unsigned best = UINT32_MAX;
            for (int type = 0; type <= 4; type++) {
                unsigned sum = filter_row(type, cur, prev, n, bpp, trial);
                if (sum < best) {
                    best = sum;
                    line[0] = (uint8_t)type;
                    memcpy(line + 1, trial, n);
                }
            }
        }
        prev = cur;
        cur = cur == rows ? rows + n : rows;
    }
    free(rows);
    free(trial);
    *size = stride * img->height;
    return raw;
}

/* A palette of at most 256 colours (RGBA, in order of first use) and the
 * image's rows as PNG scanlines of indices (filter None), when the image
 * has no more: textures from WADs and miptex are drawn from 256 colours,
 * and one byte a pixel is a quarter of what the filter and deflate would
 * otherwise handle. False as soon as a 257th colour shows. The pixels are
 * RGBA (bpp 4) or opaque RGB (bpp 3), rows `stride` bytes apart from `px`;
 * `raw` holds (width + 1) * height bytes. */
static bool palette_scanlines(const uint8_t *px, size_t stride, unsigned bpp, uint32_t width, uint32_t height,
                              uint32_t pal[256], unsigned *npal, uint8_t *raw)
{
    enum { SLOTS = 1024 }; /* open addressing, under a quarter full */
    uint32_t colour[SLOTS];
    int16_t slot_index[SLOTS];
    memset(slot_index, -1, sizeof slot_index);
    unsigned n = 0;
    uint32_t last = 0;
    int last_index = -1;
    for (uint32_t y = 0; y < height; y++) {
        const uint8_t *p = px + (size_t)y * stride;
        uint8_t *line = raw + (size_t)y * (width + 1);
        *line++ = 0; /* filter None */
        for (uint32_t x = 0; x < width; x++, p += bpp) {
            uint32_t c;
            if (bpp == 4) {
                memcpy(&c, p, 4);
            } else {
                const uint8_t rgba[4] = {p[0], p[1], p[2], 255};
                memcpy(&c, rgba, 4);
            }
            if (last_index < 0 || c != last) { /* runs of one colour are common */
                unsigned h = (c * 2654435761u) >> 22;
                while (slot_index[h] >= 0 && colour[h] != c)
                    h = (h + 1) & (SLOTS - 1);
                if (slot_index[h] < 0) {
                    if (n == 256)
                        return false;
                    colour[h] = c;
                    slot_index[h] = (int16_t)n;
                    pal[n++] = c;
                }
                last = c;
                last_index = slot_index[h];
            }
            line[x] = (uint8_t)last_index;
        }
    }
    *npal = n;
    return true;
}

/* The PNG of `raw` (raw_size bytes of scanlines, each led by its filter
 * type): paletted with pal[0..npal) (RGBA) when `paletted`, else RGB when
 * `opaque`, else RGBA. Takes `raw` (freed here). */
static bspkit_result write_png(uint8_t *raw, size_t raw_size, uint32_t width, uint32_t height, bool paletted,
                               bool opaque, const uint32_t *pal, unsigned npal, bool fast, uint8_t **out,
                               size_t *size, bspkit_error *err)
{
    struct libdeflate_compressor *z = raw ? libdeflate_alloc_compressor(fast ? 1 : 6) : NULL;
    size_t bound = z ? libdeflate_zlib_compress_bound(z, raw_size) : 0;
    /* signature, IHDR (13 bytes of data), PLTE and tRNS when paletted, IDAT, IEND */
    uint8_t *png = z ? malloc(8 + 25 + (12 + 768) + (12 + 256) + 12 + bound + 12) : NULL;
    if (!png) {
        free(raw);
        if (z)
            libdeflate_free_compressor(z);
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "png: out of memory encoding %ux%u image", width, height);
    }
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    memcpy(png, signature, 8);
    uint8_t *p = png + 8;
    put_be32(p + 8, width);
    put_be32(p + 12, height);
    p[16] = 8;                                   /* bits per channel (or per index) */
    p[17] = paletted ? 3 : opaque ? 2 : 6;        /* paletted, RGB or RGBA */
    p[18] = p[19] = p[20] = 0;                    /* deflate, adaptive filtering, no interlace */
    p = close_chunk(p, "IHDR", 13);
    if (paletted) {
        unsigned alphas = 0; /* tRNS: the alpha of each entry up to the last that is not opaque */
        for (unsigned i = 0; i < npal; i++) {
            const uint8_t *c = (const uint8_t *)&pal[i];
            memcpy(p + 8 + i * 3, c, 3);
            p[8 + 768 + 12 + i] = c[3];
            if (c[3] != 255)
                alphas = i + 1;
        }
        uint8_t *trns = p + 8 + 768 + 12; /* the alphas, moved after PLTE below */
        p = close_chunk(p, "PLTE", (size_t)npal * 3);
        if (alphas) {
            memmove(p + 8, trns, alphas);
            p = close_chunk(p, "tRNS", alphas);
        }
    }
    size_t packed = libdeflate_zlib_compress(z, raw, raw_size, p + 8, bound);
    libdeflate_free_compressor(z);
    free(raw);
    if (packed == 0) { /* cannot happen with the bound's room */
        free(png);
        return bk_fail(err, BSPKIT_ERR_IO, -1, -1, -1, "png: compression failed");
    }
    p = close_chunk(p, "IDAT", packed);
    p = close_chunk(p, "IEND", 0);
    *out = png;
    *size = (size_t)(p - png);
    return BSPKIT_OK;
}

static bspkit_result encode_png(const bspkit_image *img, bool fast, uint8_t **out, size_t *size, bspkit_error *err)
{
    bk_error_clear(err);
    if (!img || !img->rgba || !out || !size || img->width == 0 || img->height == 0 || img->width > IMAGE_MAX_SIDE ||
        img->height > IMAGE_MAX_SIDE)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "png: empty or oversized image, or NULL output");
    *out = NULL;
    *size = 0;
    size_t raw_size = ((size_t)img->width + 1) * img->height;
    uint32_t pal[256];
    unsigned npal = 0;
    bool opaque = true;
    uint8_t *raw = NULL;
    bool paletted = false, nomem = false;
    if (fast) { /* paletted when the colours allow */
        raw = malloc(raw_size);
        nomem = raw == NULL; /* an error below, not another layout */
        paletted = raw && palette_scanlines(img->rgba, (size_t)img->width * 4u, 4, img->width, img->height, pal,
                                            &npal, raw);
        if (!paletted) {
            free(raw);
            raw = NULL;
        }
    }
    if (!paletted && !nomem) {
        opaque = bk_image_opaque(img);
        raw = scanlines(img, opaque, fast, &raw_size);
    }
    return write_png(raw, raw_size, img->width, img->height, paletted, opaque, pal, npal, fast, out, size, err);
}

bspkit_result bk_indexed_encode_png_fast(const bk_indexed_image *img, uint8_t **out, size_t *size, bspkit_error *err)
{
    bk_error_clear(err);
    if (!img || !img->indices || !out || !size || img->width == 0 || img->height == 0 ||
        img->width > IMAGE_MAX_SIDE || img->height > IMAGE_MAX_SIDE)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "png: empty or oversized image, or NULL output");
    *out = NULL;
    *size = 0;
    size_t raw_size = ((size_t)img->width + 1) * img->height;
    uint8_t *raw = malloc(raw_size);
    /* The palette in the order its colours first show, as palette_scanlines
     * builds it from the expanded pixels: the same PNG, from one table
     * lookup a pixel. */
    uint32_t pal[256];
    unsigned npal = 0;
    int16_t remap[256];
    memset(remap, -1, sizeof remap);
    const uint8_t *ix = img->indices;
    for (uint32_t y = 0; raw && y < img->height; y++) {
        uint8_t *line = raw + (size_t)y * (img->width + 1);
        *line++ = 0; /* filter None */
        for (uint32_t x = 0; x < img->width; x++) {
            uint8_t k = *ix++;
            if (remap[k] < 0) {
                uint32_t c;
                memcpy(&c, img->rgba[k], 4);
                unsigned at = 0;
                while (at < npal && pal[at] != c)
                    at++;
                if (at == npal)
                    pal[npal++] = c;
                remap[k] = (int16_t)at;
            }
            line[x] = (uint8_t)remap[k];
        }
    }
    return write_png(raw, raw_size, img->width, img->height, true, true, pal, npal, true, out, size, err);
}

bspkit_result bk_rgb_rows_encode_png_fast(uint8_t *rows, uint32_t width, uint32_t height, uint8_t **out,
                                          size_t *size, bspkit_error *err)
{
    bk_error_clear(err);
    *out = NULL;
    *size = 0;
    if (!rows || width == 0 || height == 0 || width > IMAGE_MAX_SIDE || height > IMAGE_MAX_SIDE) {
        free(rows);
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "png: empty or oversized image");
    }
    const size_t n = (size_t)width * 3u, stride = n + 1;
    /* As encode_png decides: paletted when the colours allow, else RGB
     * with SUB on every row. */
    uint32_t pal[256];
    unsigned npal = 0;
    size_t index_size = ((size_t)width + 1) * height;
    uint8_t *indices = malloc(index_size);
    if (!indices) {
        free(rows);
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "png: out of memory encoding %ux%u image", width, height);
    }
    if (palette_scanlines(rows + 1, stride, 3, width, height, pal, &npal, indices)) {
        free(rows);
        return write_png(indices, index_size, width, height, true, true, pal, npal, true, out, size, err);
    }
    free(indices);
    for (uint32_t y = 0; y < height; y++) {
        uint8_t *line = rows + (size_t)y * stride;
        line[0] = 1; /* SUB, in place from the right: each byte less the one a pixel before it */
        for (size_t i = n; i > 3; i--)
            line[i] = (uint8_t)(line[i] - line[i - 3]);
    }
    return write_png(rows, stride * height, width, height, false, true, NULL, 0, true, out, size, err);
}

bool bk_indexed_opaque(const bk_indexed_image *img)
{
    bool shows[256] = {false};
    size_t n = (size_t)img->width * img->height;
    for (size_t i = 0; i < n; i++)
        shows[img->indices[i]] = true;
    for (unsigned k = 0; k < 256; k++)
        if (shows[k] && img->rgba[k][3] != 255)
            return false;
    return true;
}

bspkit_result bspkit_image_encode_png(const bspkit_image *img, uint8_t **out, size_t *size, bspkit_error *err)
{
    return encode_png(img, false, out, size, err);
}

bspkit_result bk_image_encode_png_fast(const bspkit_image *img, uint8_t **out, size_t *size, bspkit_error *err)
{
    return encode_png(img, true, out, size, err);
}

bspkit_result bspkit_image_write_png(const bspkit_image *img, const char *path, bspkit_error *err)
{
    uint8_t *png = NULL;
    size_t size = 0;
    bspkit_result r = bspkit_image_encode_png(img, &png, &size, err);
    if (r != BSPKIT_OK)
        return r;
    r = bk_save_bytes(path, png, size, BK_SAVE_DERIVED, err);
    free(png);
    return r;
}
