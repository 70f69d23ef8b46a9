/* Image helpers shared inside the library. Not public. */
#ifndef BSPKIT_MEDIA_IMAGE_INTERNAL_H
#define BSPKIT_MEDIA_IMAGE_INTERNAL_H

#include "bspkit/image.h"

/* True when every pixel's alpha is 255. */
bool bk_image_opaque(const bspkit_image *img);

/* As bspkit_image_encode_png, tuned for speed over size (zlib level 1, one
 * row filter): for images written in bulk, such as an export's textures. */
bspkit_result bk_image_encode_png_fast(const bspkit_image *img, uint8_t **out, size_t *size, bspkit_error *err);

/* bk_image_encode_png_fast of an opaque image given as PNG scanlines
 * (bk_atlas_draw_rows: (3 * width + 1) * height bytes, each row a filter
 * byte and then RGB), byte for byte; `rows` is taken (filtered in place,
 * then freed). */
bspkit_result bk_rgb_rows_encode_png_fast(uint8_t *rows, uint32_t width, uint32_t height, uint8_t **out,
                                          size_t *size, bspkit_error *err);

/* A palette texture before its pixels are expanded: width * height indices
 * (borrowed from the map or WAD, which must stay open) and each index's RGBA. */
typedef struct bk_indexed_image {
    uint32_t width, height;
    const uint8_t *indices;
    uint8_t rgba[256][4];
} bk_indexed_image;

/* bk_image_encode_png_fast of the expanded image, byte for byte, without expanding it. */
bspkit_result bk_indexed_encode_png_fast(const bk_indexed_image *img, uint8_t **out, size_t *size,
                                         bspkit_error *err);
/* bk_image_opaque of the expanded image. */
bool bk_indexed_opaque(const bk_indexed_image *img);

#endif
