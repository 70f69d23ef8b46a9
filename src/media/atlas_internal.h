/* Lightmap atlas pieces shared inside the library. Not public. */
#ifndef BSPKIT_MEDIA_ATLAS_INTERNAL_H
#define BSPKIT_MEDIA_ATLAS_INTERNAL_H

#include "bspkit/atlas.h"

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
