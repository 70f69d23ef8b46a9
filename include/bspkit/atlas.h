/*
 * Lightmap atlas: every lit face's luxels packed into one image, with each
 * face's rectangle, and the lightmap texture coordinate of a point on a face.
 */
#ifndef BSPKIT_ATLAS_H
#define BSPKIT_ATLAS_H

#include "bspkit/bspkit.h"
#include "bspkit/image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bspkit_atlas_options {
    bool hdr;          /**< Source: use LIGHTING_HDR/FACES_HDR (used anyway when the map has only HDR) */
    uint32_t style;    /**< which of a face's style slots (0..3); faces without it are left out */
    uint32_t padding;  /**< luxels of border copied around each rectangle; 0 = default 1 */
    uint32_t max_width;/**< atlas width limit in luxels; 0 = default 4096 */
} bspkit_atlas_options;

/** Where one face's lightmap lies in the atlas. */
typedef struct bspkit_atlas_rect {
    bool placed;           /**< the face is lit (and has the style) and its samples are in the lump */
    uint32_t x, y;         /**< top-left luxel of the face's samples (inside the padding) */
    uint32_t width, height;/**< the face's lightmap size in luxels */
} bspkit_atlas_rect;

typedef struct bspkit_lightmap_atlas {
    bspkit_image image;        /**< opaque RGB (alpha 255) */
    bspkit_atlas_rect *rects;  /**< one per face */
    size_t rect_count;
    bool hdr;                  /**< the HDR lumps were used */
} bspkit_lightmap_atlas;

/**
 * Build the atlas. GoldSrc/Quake samples are copied (Quake's grey bytes, or
 * BSPX RGBLIGHTING when present); Source ColorRGBExp32 samples are
 * converted to linear light, tone-mapped and gamma-encoded to 8 bits;
 * bump-mapped Source faces use their first sample set.
 */
bspkit_result bspkit_lightmap_atlas_build(bspkit_map *map, const bspkit_atlas_options *opts,
                                          bspkit_lightmap_atlas *out, bspkit_error *err);
void bspkit_lightmap_atlas_free(bspkit_lightmap_atlas *atlas);

/**
 * Atlas texture coordinate (0..1, origin top-left) of world point `p` on
 * face `face`, from the face's lightmap vectors (Source) or texture vectors
 * (Quake/GoldSrc, 16 units per luxel). Returns false when the face is not
 * placed.
 */
bool bspkit_lightmap_atlas_uv(bspkit_map *map, const bspkit_lightmap_atlas *atlas, size_t face,
                              bspkit_vec3 p, float uv[2]);

#ifdef __cplusplus
}
#endif
#endif
