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

/** Largest atlas accepted, in pixels (padding included): 2^26, 256 MiB of RGBA. A map's atlas is
    further limited to 2^22 + 8 x its file size in pixels (hostile faces can share lightmap bytes). */
#define BSPKIT_ATLAS_MAX_PIXELS (UINT64_C(1) << 26)

/**
 * Build the atlas. GoldSrc/Quake samples are copied (Quake's grey bytes as
 * R = G = B, or BSPX RGBLIGHTING where it covers the face); Source
 * ColorRGBExp32 samples are converted to linear light
 * v = c * 2^exponent / 255, clamped to 0..1 and gamma-encoded as
 * round(255 * v^(1/2.2)); bump-mapped Source faces use their first sample
 * set. Quake/GoldSrc maps ignore `hdr`.
 *
 * A face is placed when bspkit_get_face_lightmaps() says it is lit and in
 * range and it has style slot `style`. Rectangles are packed by a
 * deterministic skyline (bottom-left) packer, tallest first, into a width of
 * about the square root of their padded area (at most max_width); the height
 * is what the packing needs. Each padding luxel repeats the nearest edge
 * luxel of its face, so bilinear filtering does not bleed. Luxels outside
 * every rectangle are opaque black; with no placed face the image is 1x1.
 *
 * Quake 3 maps keep their lightmaps in 128 x 128 pages that the compiler
 * packed already: the pages are copied whole, in rows of ceil(sqrt(pages))
 * (fewer when max_width is smaller), padding is not added, and each
 * surface's rectangle is the one bspkit_get_face_lightmaps() gives inside
 * its page; only style 0 places surfaces.
 *
 * Errors: BSPKIT_ERR_ARGUMENT for style > 3, padding > 64 or
 * max_width > 32768; BSPKIT_ERR_LIMIT naming the size when a face (with
 * padding) is wider than max_width, when the padded rectangles add up to
 * more than the pixel limit (BSPKIT_ATLAS_MAX_PIXELS), or when the atlas would be taller than
 * 32768; errors of bspkit_get_face_lightmaps() and bspkit_get_lighting().
 */
BSPKIT_API bspkit_result bspkit_lightmap_atlas_build(bspkit_map *map, const bspkit_atlas_options *opts,
                                          bspkit_lightmap_atlas *out, bspkit_error *err);
/** Free the image and rectangles and zero the struct; safe on a zeroed struct. */
BSPKIT_API void bspkit_lightmap_atlas_free(bspkit_lightmap_atlas *atlas);

/**
 * Atlas texture coordinate (0..1, origin top-left) of world point `p` on
 * face `face`, from the face's lightmap vectors (Source) or texture vectors
 * (Quake/GoldSrc, 16 units per luxel). The luxel coordinate is
 * Source: s = dot(lightmap_vecs[0].xyz, p) + lightmap_vecs[0][3] - mins[0];
 * Quake/GoldSrc: s = (dot(texture_vecs[0].xyz, p) + texture_vecs[0][3]) / 16
 * - mins[0]; BSPX DECOUPLED_LM faces: s = dot(world_to_lm[0].xyz, p) +
 * world_to_lm[0][3]; t likewise. Luxel k's sample lies at s = k, so
 * u = (rect.x + s + 0.5) / image.width and v = (rect.y + t + 0.5) /
 * image.height (luxel centres). Nothing is clamped: a point off the face
 * may map outside its rectangle. Source displacement faces get the
 * coordinate of the point on the base face: the engine lays their lightmap
 * over the displacement grid instead. `map` must be the map the atlas was
 * built from. Returns false when the face is not placed or its texinfo (or
 * decoupled record) is missing, and for Quake 3 maps, whose draw vertices
 * carry their lightmap coordinate (page coordinate u maps to
 * (rect.x - mins[0] + u * 128) / image.width, mins from
 * bspkit_get_face_lightmaps()).
 */
BSPKIT_API bool bspkit_lightmap_atlas_uv(bspkit_map *map, const bspkit_lightmap_atlas *atlas, size_t face,
                              bspkit_vec3 p, float uv[2]);

#ifdef __cplusplus
}
#endif
#endif
