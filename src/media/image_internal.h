/* Image helpers shared inside the library. Not public. */
#ifndef BSPKIT_MEDIA_IMAGE_INTERNAL_H
#define BSPKIT_MEDIA_IMAGE_INTERNAL_H

#include "bspkit/image.h"

/* True when every pixel's alpha is 255. */
bool bk_image_opaque(const bspkit_image *img);

/* As bspkit_image_encode_png, tuned for speed over size (zlib level 1, one
 * row filter): for images written in bulk, such as an export's textures. */
bspkit_result bk_image_encode_png_fast(const bspkit_image *img, uint8_t **out, size_t *size, bspkit_error *err);

#endif
