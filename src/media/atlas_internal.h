/* Lightmap atlas pieces shared inside the library. Not public. */
#ifndef BSPKIT_MEDIA_ATLAS_INTERNAL_H
#define BSPKIT_MEDIA_ATLAS_INTERNAL_H

#include "bspkit/atlas.h"
#include "bspkit/image.h"
#include "bspkit/lighting.h"

/* What drawing the atlas reads, found while laying it out: the draw then
 * touches no map accessor and may run beside other work on the map. */
typedef struct bk_atlas_pixels {
    const bspkit_face_lightmap *lm;
    size_t count;
    const uint8_t *light; /* lighting lump (HDR when the atlas is) */
    const uint8_t *rgb;   /* Quake BSPX RGBLIGHTING, or NULL */
    bspkit_family family;
    bool rgb_light;       /* 3-byte luxels */
    uint32_t style, pad;
    bool drawn;           /* Quake 3: the pages were copied with the layout */
} bk_atlas_pixels;

/* bspkit_lightmap_atlas_build in two steps. The layout fills the rectangles
 * and the image's size; its pixels stay NULL unless px->drawn (Quake 3
 * pages). The draw makes the pixels into `img` (the atlas is only read, so
 * others may read it meanwhile). */
bspkit_result bk_atlas_layout(bspkit_map *map, const bspkit_atlas_options *opts, bspkit_lightmap_atlas *out,
                              bk_atlas_pixels *px, bspkit_error *err);
bspkit_result bk_atlas_draw(const bk_atlas_pixels *px, const bspkit_lightmap_atlas *atlas, bspkit_image *img,
                            bspkit_error *err);
/* The same pixels drawn straight as PNG scanlines, for
 * bk_rgb_rows_encode_png_fast: (3 * width + 1) * height bytes (malloc'ed),
 * each row a 0 filter byte and then RGB; every atlas pixel is opaque. */
bspkit_result bk_atlas_draw_rows(const bk_atlas_pixels *px, const bspkit_lightmap_atlas *atlas, uint8_t **rows,
                                 bspkit_error *err);

/* What bspkit_lightmap_atlas_uv() looks up for one face, looked up once: an
 * exporter asks for every corner of every face. */
typedef struct bk_atlas_face_uv {
    const float *vec[2]; /* the lightmap (or texture) vectors, borrowed from the map */
    double scale;        /* 1/16 for Quake-family texture vectors */
    double mins[2];
    double origin[2];    /* the face's rectangle in the atlas */
    double size[2];      /* the atlas image */
} bk_atlas_face_uv;

/* False when bspkit_lightmap_atlas_uv() returns false for this face (for any point). */
bool bk_atlas_face_uv_init(bspkit_map *map, const bspkit_lightmap_atlas *atlas, size_t face, bk_atlas_face_uv *out);

/* bspkit_lightmap_atlas_uv() of `p` on the face, the same floats. */
static inline void bk_atlas_face_uv_at(const bk_atlas_face_uv *f, bspkit_vec3 p, float uv[2])
{
    for (int a = 0; a < 2; a++) {
        const float *v = f->vec[a];
        double s = ((double)v[0] * p.x + (double)v[1] * p.y + (double)v[2] * p.z + v[3]) * f->scale - f->mins[a];
        uv[a] = (float)((f->origin[a] + s + 0.5) / f->size[a]);
    }
}

#endif
