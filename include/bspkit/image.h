/*
 * Images: 8-bit RGBA pixel buffers and their PNG encoding, shared by texture
 * extraction, the lightmap atlas and geometry export.
 */
#ifndef BSPKIT_IMAGE_H
#define BSPKIT_IMAGE_H

#include "bspkit/bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Pixels row by row from the top-left, 4 bytes (R, G, B, A) each. Owned: free with bspkit_image_free(). */
typedef struct bspkit_image {
    uint32_t width;
    uint32_t height;
    uint8_t *rgba; /**< width * height * 4 bytes */
} bspkit_image;

/** Allocate a zeroed (transparent black) image; width and height must be 1..32768. */
BSPKIT_API bspkit_result bspkit_image_alloc(bspkit_image *img, uint32_t width, uint32_t height, bspkit_error *err);

/** Free the pixels and zero the struct; safe on a zeroed struct. */
BSPKIT_API void bspkit_image_free(bspkit_image *img);

/**
 * Encode as PNG into a new buffer (free with bspkit_free()).
 * Images whose alpha is 255 everywhere are written as RGB, others as RGBA.
 */
BSPKIT_API bspkit_result bspkit_image_encode_png(const bspkit_image *img, uint8_t **out, size_t *size, bspkit_error *err);

/** Write as PNG to `path` through a temporary file renamed into place. */
BSPKIT_API bspkit_result bspkit_image_write_png(const bspkit_image *img, const char *path, bspkit_error *err);

#ifdef __cplusplus
}
#endif
#endif
