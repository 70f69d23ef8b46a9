/* PNG bytes to RGBA pixels with libpng's simplified reader: the tests'
 * decoder, independent of bspkit's writer. Include after <cmocka.h>. */
#ifndef BSPKIT_TESTS_PNG_PIXELS_H
#define BSPKIT_TESTS_PNG_PIXELS_H

#include <png.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The pixels (malloc'd, width * height * 4 bytes); fails the test when the
 * bytes do not decode. `alpha` (may be NULL) says whether the file holds
 * alpha (an alpha channel, or tRNS). */
static inline uint8_t *png_pixels(const uint8_t *png, size_t size, uint32_t *w, uint32_t *h, bool *alpha)
{
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    assert_true(png_image_begin_read_from_memory(&pi, png, size));
    if (alpha)
        *alpha = (pi.format & PNG_FORMAT_FLAG_ALPHA) != 0;
    pi.format = PNG_FORMAT_RGBA;
    uint8_t *px = malloc(PNG_IMAGE_SIZE(pi));
    assert_non_null(px);
    assert_true(png_image_finish_read(&pi, NULL, px, 0, NULL));
    *w = pi.width;
    *h = pi.height;
    return px;
}

#endif
