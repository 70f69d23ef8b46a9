/* The software rasterizer: triangles in sample coordinates into a depth and
 * colour buffer, perspective-correct attributes, a shading callback per
 * covered sample. Doubles throughout so results do not depend on how the
 * compiler contracts float arithmetic. */
#ifndef BSPKIT_RENDER_RASTER_H
#define BSPKIT_RENDER_RASTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BK_RATTRS 4

typedef struct bk_rtarget {
    uint32_t width, height; /* samples */
    double *depth;          /* per sample: nearness key, larger is nearer; -HUGE_VAL when empty */
    uint8_t *rgb;           /* per sample */
} bk_rtarget;

/* A projected vertex: sample-space position (y down), its nearness key,
 * q = 1/w (1 for orthographic) and attributes (not divided by w). */
typedef struct bk_rvert {
    double x, y, key, q;
    double attr[BK_RATTRS];
} bk_rvert;

/* Colour of a sample from interpolated attributes and the screen-space
 * derivatives of the first two (d0/dx, d0/dy, d1/dx, d1/dy per sample, for
 * choosing a mip level); false discards it (cut-out texels). */
typedef bool (*bk_rshade_fn)(const void *ctx, const double attr[BK_RATTRS], const double grad[4], uint8_t rgb[3]);

/* Allocate a target of width x height samples cleared to `bg`; false when out of memory. */
bool bk_rtarget_init(bk_rtarget *t, uint32_t width, uint32_t height, const uint8_t bg[3]);
void bk_rtarget_free(bk_rtarget *t);

/* How a triangle meets the depth buffer. Opaque triangles go through
 * DEPTH first and EQUAL second, so each sample is shaded once, by the
 * triangle that ends up in front; cut-out triangles (whose samples may be
 * discarded) are drawn NEAREST in the second pass. */
typedef enum bk_rpass {
    BK_RPASS_NEAREST, /* shade and keep samples nearer than the buffer */
    BK_RPASS_DEPTH,   /* only record the nearest depth */
    BK_RPASS_EQUAL    /* shade samples at exactly the recorded depth */
} bk_rpass;

/* Draw one triangle when it is front-facing (clockwise on the y-down sample
 * grid, i.e. counter-clockwise seen from the front as the map's triangles are);
 * returns whether it was front-facing with some area. A sample is covered when
 * its centre is inside or on an edge. The depth of a sample is computed the
 * same way in every pass, so EQUAL finds exactly what DEPTH recorded. */
bool bk_raster_triangle(bk_rtarget *t, const bk_rvert v[3], bk_rpass pass, bk_rshade_fn shade, const void *ctx);

/* The mean of each s x s block of samples, rounded, into width/s x height/s RGBA pixels (alpha 255). */
void bk_rtarget_resolve(const bk_rtarget *t, uint32_t s, uint8_t *rgba);

#endif
