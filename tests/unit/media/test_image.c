/* PNG encoding: images decoded again by libpng's reader (an independent
 * decoder) give back the exact pixels; opaque images become RGB. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bspkit/image.h"
#include "media/image_internal.h"
#include "media/texture_internal.h"

#include "png_pixels.h"
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static void fill(bspkit_image *img, bool with_alpha)
{
    for (uint32_t i = 0; i < img->width * img->height; i++) {
        img->rgba[i * 4 + 0] = (uint8_t)(i * 7);
        img->rgba[i * 4 + 1] = (uint8_t)(i * 13 + 1);
        img->rgba[i * 4 + 2] = (uint8_t)(255 - i);
        img->rgba[i * 4 + 3] = with_alpha && i % 3 == 0 ? (uint8_t)(i & 0x7f) : 255;
    }
}

static void check_roundtrip(bool with_alpha)
{
    bspkit_image img = {0};
    bspkit_error err;
    assert_int_equal(bspkit_image_alloc(&img, 19, 7, &err), BSPKIT_OK);
    fill(&img, with_alpha);
    uint8_t *png = NULL;
    size_t size = 0;
    assert_int_equal(bspkit_image_encode_png(&img, &png, &size, &err), BSPKIT_OK);

    uint32_t w, h;
    bool alpha;
    uint8_t *pixels = png_pixels(png, size, &w, &h, &alpha);
    assert_int_equal(w, 19);
    assert_int_equal(h, 7);
    assert_int_equal(alpha, with_alpha);
    assert_memory_equal(pixels, img.rgba, (size_t)19 * 7 * 4);
    free(pixels);
    free(png);
    bspkit_image_free(&img);
    assert_null(img.rgba);
}

static void test_png_rgb(void **state)
{
    (void)state;
    check_roundtrip(false);
}

static void test_png_rgba(void **state)
{
    (void)state;
    check_roundtrip(true);
}

/* The export's fast PNGs: an image of at most 256 colours is written
 * paletted (colour type 3, with tRNS when some colour is not opaque), one
 * with more as RGB or RGBA; libpng gives back the exact pixels either way. */
static void check_fast(uint32_t w, uint32_t h, unsigned colours, bool with_alpha, int want_type)
{
    bspkit_image img = {0};
    bspkit_error err;
    assert_int_equal(bspkit_image_alloc(&img, w, h, &err), BSPKIT_OK);
    for (uint32_t i = 0; i < w * h; i++) {
        unsigned c = (i * 7 + i / 5) % colours; /* every colour used, in no simple order */
        img.rgba[i * 4 + 0] = (uint8_t)(c * 37);
        img.rgba[i * 4 + 1] = (uint8_t)(c >> 2);
        img.rgba[i * 4 + 2] = (uint8_t)(c >> 8);
        img.rgba[i * 4 + 3] = with_alpha && c % 4 == 1 ? (uint8_t)(c & 0x7f) : 255;
    }
    uint8_t *png = NULL;
    size_t size = 0;
    assert_int_equal(bk_image_encode_png_fast(&img, &png, &size, &err), BSPKIT_OK);
    assert_true(size > 33);
    assert_int_equal(png[25], want_type); /* IHDR colour type */
    bool trns = false;
    for (size_t k = 0; k + 4 <= size; k++)
        trns = trns || memcmp(png + k, "tRNS", 4) == 0;
    assert_int_equal(trns, want_type == 3 && with_alpha);
    uint32_t bw, bh;
    bool alpha;
    uint8_t *pixels = png_pixels(png, size, &bw, &bh, &alpha);
    assert_int_equal(bw, w);
    assert_int_equal(bh, h);
    assert_int_equal(alpha, with_alpha && want_type != 2);
    assert_memory_equal(pixels, img.rgba, (size_t)w * h * 4);
    free(pixels);
    free(png);
    bspkit_image_free(&img);
}

static void test_png_fast_palette(void **state)
{
    (void)state;
    check_fast(33, 21, 3, false, 3);
    check_fast(33, 21, 3, true, 3);
    check_fast(64, 64, 256, true, 3);   /* exactly 256: still paletted */
    check_fast(64, 64, 257, false, 2);  /* one more: RGB */
    check_fast(64, 64, 257, true, 6);   /* RGBA */
    check_fast(1, 1, 1, false, 3);
}

/* Two encodings of `rgba` are the same bytes, and libpng reads exactly
 * its pixels back from them; frees both. */
static void same_png(uint8_t *a, size_t na, uint8_t *b, size_t nb, const bspkit_image *rgba)
{
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na);
    uint32_t pw, ph;
    uint8_t *pixels = png_pixels(a, na, &pw, &ph, NULL);
    assert_int_equal(pw, rgba->width);
    assert_int_equal(ph, rgba->height);
    assert_memory_equal(pixels, rgba->rgba, (size_t)rgba->width * rgba->height * 4);
    free(pixels);
    free(a);
    free(b);
}

/* A palette texture encoded from its indices: the same PNG as its expanded
 * pixels give, and libpng reads back exactly those pixels. Palettes with
 * repeated colours, a short palette (indices past it are black) and a '{'
 * texture (index 255 transparent) are among them. */
static void check_indexed(uint32_t w, uint32_t h, size_t colours, bool transparent, unsigned seed)
{
    uint8_t palette[768];
    for (size_t i = 0; i < sizeof palette; i++)
        palette[i] = (uint8_t)((i * 37u + seed * 11u) % 7u * 40u); /* few distinct values: repeated colours */
    uint8_t *indices = malloc((size_t)w * h);
    assert_non_null(indices);
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < (size_t)w * h; i++) {
        x = x * 1103515245u + 12345u;
        indices[i] = (uint8_t)(i % 5 == 0 ? 255 : x >> 24);
    }
    bk_indexed_image ix = {.width = w, .height = h, .indices = indices};
    bk_paletted_table(palette, colours, transparent, ix.rgba);
    bspkit_image rgba = {0};
    bspkit_error err;
    assert_int_equal(bk_indexed_expand(&ix, &rgba, &err), BSPKIT_OK);
    for (size_t i = 0; i < (size_t)w * h; i++) {
        const uint8_t *px = rgba.rgba + 4 * i;
        uint8_t k = indices[i];
        if (transparent && k == 255) {
            assert_int_equal(px[3], 0);
        } else {
            assert_int_equal(px[3], 255);
            for (int c = 0; c < 3; c++)
                assert_int_equal(px[c], k < colours ? palette[3 * k + c] : 0);
        }
    }
    assert_int_equal(bk_indexed_opaque(&ix), bk_image_opaque(&rgba));
    uint8_t *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    assert_int_equal(bk_indexed_encode_png_fast(&ix, &a, &na, &err), BSPKIT_OK);
    assert_int_equal(bk_image_encode_png_fast(&rgba, &b, &nb, &err), BSPKIT_OK);
    same_png(a, na, b, nb, &rgba);
    free(indices);
    bspkit_image_free(&rgba);
}

static void test_png_indexed(void **state)
{
    (void)state;
    check_indexed(64, 32, 256, false, 1);
    check_indexed(64, 32, 256, true, 2);
    check_indexed(17, 9, 40, false, 3); /* short palette */
    check_indexed(17, 9, 40, true, 4);
    check_indexed(1, 1, 256, true, 5);
}

/* An opaque image given as PNG rows (a filter byte, then RGB): the same
 * PNG as from its RGBA pixels, paletted or not, and libpng reads back
 * exactly those pixels. */
static void check_rgb_rows(uint32_t w, uint32_t h, unsigned colours)
{
    bspkit_image rgba = {0};
    bspkit_error err;
    assert_int_equal(bspkit_image_alloc(&rgba, w, h, &err), BSPKIT_OK);
    size_t stride = (size_t)w * 3 + 1;
    uint8_t *rows = calloc(stride * h, 1);
    assert_non_null(rows);
    uint32_t x = colours * 2654435761u + w;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t i = 0; i < w; i++) {
            x = x * 1103515245u + 12345u;
            uint32_t c = (x >> 8) % colours;
            uint8_t px[4] = {(uint8_t)(c * 7), (uint8_t)(c >> 3), (uint8_t)(255 - c), 255};
            memcpy(rgba.rgba + ((size_t)y * w + i) * 4, px, 4);
            memcpy(rows + (size_t)y * stride + 1 + (size_t)i * 3, px, 3);
        }
    uint8_t *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    assert_int_equal(bk_rgb_rows_encode_png_fast(rows, w, h, &a, &na, &err), BSPKIT_OK);
    assert_int_equal(bk_image_encode_png_fast(&rgba, &b, &nb, &err), BSPKIT_OK);
    /* IHDR colour type: paletted (3) when at most 256 colours can show */
    assert_true(na > 25);
    assert_int_equal(a[25], colours <= 256 || (size_t)w * h <= 256 ? 3 : 2);
    same_png(a, na, b, nb, &rgba);
    bspkit_image_free(&rgba);
}

static void test_png_rgb_rows(void **state)
{
    (void)state;
    check_rgb_rows(40, 30, 5);
    check_rgb_rows(64, 64, 256);  /* still paletted */
    check_rgb_rows(64, 64, 5000); /* RGB with SUB rows */
    check_rgb_rows(1, 1, 1);
    check_rgb_rows(2, 3, 5000);   /* six pixels: paletted */
    bspkit_error err;
    uint8_t *out = NULL;
    size_t size = 0;
    assert_int_equal(bk_rgb_rows_encode_png_fast(calloc(4, 1), 0, 1, &out, &size, &err), BSPKIT_ERR_ARGUMENT);
    assert_null(out);
}

static void test_bad_sizes(void **state)
{
    (void)state;
    bspkit_image img = {0};
    bspkit_error err;
    assert_int_equal(bspkit_image_alloc(&img, 0, 4, &err), BSPKIT_ERR_ARGUMENT);
    assert_int_equal(bspkit_image_alloc(&img, 4, 40000, &err), BSPKIT_ERR_ARGUMENT);
    uint8_t *out = NULL;
    size_t size = 0;
    assert_int_equal(bspkit_image_encode_png(&img, &out, &size, &err), BSPKIT_ERR_ARGUMENT);
    bspkit_image_free(&img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_png_rgb),
        cmocka_unit_test(test_png_rgba),
        cmocka_unit_test(test_png_fast_palette),
        cmocka_unit_test(test_png_indexed),
        cmocka_unit_test(test_png_rgb_rows),
        cmocka_unit_test(test_bad_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
