/*
 * Lighting: where each face's lightmap lies in the lighting lump (every
 * family), Source world lights and per-leaf ambient light samples.
 *
 * All arrays are borrowed from the map and stay valid until bspkit_close().
 * `hdr` selects Source's HDR lumps (LIGHTING_HDR, FACES_HDR, WORLDLIGHTS_HDR,
 * LEAF_AMBIENT_*_HDR); Quake and GoldSrc maps have none, so `hdr` gives
 * count 0 there.
 */
#ifndef BSPKIT_LIGHTING_H
#define BSPKIT_LIGHTING_H

#include "bspkit/bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Texinfo flags that decide lightmaps. */
enum {
    BSPKIT_TEX_SPECIAL = 0x1,       /**< Quake/GoldSrc: sky and liquids, never lightmapped */
    BSPKIT_SURF_NOLIGHT = 0x400,    /**< Source: no lightmap */
    BSPKIT_SURF_BUMPLIGHT = 0x800,  /**< Source: three extra bump-direction lightmaps */
    BSPKIT_Q2_SURF_SKY = 0x4,       /**< Quake 2: sky, never lightmapped */
    BSPKIT_Q2_SURF_WARP = 0x8       /**< Quake 2: warped liquid, never lightmapped */
};

/** Where one face's lightmap samples are. */
typedef struct bspkit_face_lightmap {
    bool lit;             /**< the face has samples: light offset != -1, at least one style, and
                               (Quake/GoldSrc) not TEX_SPECIAL, (Quake 2) not SURF_SKY or
                               SURF_WARP, (Source) not SURF_NOLIGHT */
    bool in_range;        /**< lit and every sample (Source: and the averages) inside the lighting lump */
    bool decoupled;       /**< size and offset come from BSPX DECOUPLED_LM */
    int32_t mins[2];      /**< luxel coordinates of the first luxel (s, t); 0 when decoupled */
    int32_t width;        /**< luxels along s */
    int32_t height;       /**< luxels along t */
    int32_t styles;       /**< light styles in use: the styles[] entries before the first 255 */
    int32_t sets;         /**< sample sets per style: 4 for Source bump-mapped faces, else 1 */
    int32_t bytes_per_luxel; /**< 1 Quake, 3 GoldSrc, 4 Source (ColorRGBExp32) */
    int64_t offset;       /**< byte offset of the samples in the lighting lump; -1 when not lit */
    uint64_t bytes;       /**< width * height * styles * sets * bytes_per_luxel; 0 when not lit */
    int64_t average_offset; /**< Source: offset of the per-style averages (one ColorRGBExp32 per style,
                                 stored in reverse style order) = offset - 4 * styles; -1 otherwise
                                 (and for Bloodlines, whose face records hold their averages) */
    int64_t rgb_offset;   /**< Quake with BSPX RGBLIGHTING: offset of the face's RGB samples in it
                               (3 * offset); -1 otherwise */
    bool rgb_in_range;    /**< rgb_offset >= 0 and width * height * styles * 3 bytes fit in RGBLIGHTING */
} bspkit_face_lightmap;

/**
 * One entry per face: FACES, or with `hdr` FACES_HDR (FACES when FACES_HDR
 * is empty), against LIGHTING or LIGHTING_HDR.
 *
 * Quake/GoldSrc: the face's vertices are projected with the texinfo's s/t
 * vectors (dot product plus offset); mins = floor(min / 16), size =
 * ceil(max / 16) - mins + 1 per axis. The sums are done both in double
 * precision (ericw-tools, QuakeSpasm) and in float (id's and Valve's tools);
 * they can differ by one luxel, and per axis the smaller grid is used. A BSPX
 * DECOUPLED_LM lump overrides size and offset. Source: size =
 * LightmapTextureSizeInLuxels + 1, mins = LightmapTextureMinsInLuxels.
 *
 * Quake 3: one entry per surface, against LIGHTMAPS. A lit surface
 * (lightmapNum >= 0, not a flare) has its rectangle lightmapX/Y/Width/Height
 * (or, where those are 0 x 0 as newer q3map2 builds write them, the luxels
 * its vertices' lightmap coordinates span) inside page lightmapNum of
 * 128 x 128 RGB luxels, whose rows are 128 luxels apart:
 * mins is the rectangle's corner in the page, offset the byte of its first
 * luxel, bytes its luxel count x 3; in_range says the rectangle lies inside
 * the page and the page inside the lump.
 *
 * A lightmap reaching past the lighting lump is not an error: its entry has
 * in_range false. Faces whose texinfo, edges or vertices are out of range
 * are reported not lit (bspkit_validate names those).
 */
BSPKIT_API bspkit_result bspkit_get_face_lightmaps(bspkit_map *map, bool hdr, const bspkit_face_lightmap **out,
                                        size_t *count, bspkit_error *err);

/** Colour of a ColorRGBExp32 sample: each channel * 2^exponent (0..255 scale for exponent 0). */
BSPKIT_API void bspkit_rgbexp_to_float(bspkit_rgbexp c, float out[3]);

/** The ColorRGBExp32 at `p` (4 bytes r, g, b, signed exponent; same in both byte orders). */
BSPKIT_API bspkit_rgbexp bspkit_rgbexp_read(const uint8_t *p);

/** dworldlight_t emittype values. */
typedef enum bspkit_emittype {
    BSPKIT_EMIT_SURFACE = 0,
    BSPKIT_EMIT_POINT = 1,
    BSPKIT_EMIT_SPOTLIGHT = 2,
    BSPKIT_EMIT_SKYLIGHT = 3,
    BSPKIT_EMIT_QUAKELIGHT = 4,
    BSPKIT_EMIT_SKYAMBIENT = 5
} bspkit_emittype;

/** Source world light (dworldlight_t, lump version 0: 88 bytes, version 1: 100 bytes). */
typedef struct bspkit_worldlight {
    bspkit_vec3 origin;
    bspkit_vec3 intensity;
    bspkit_vec3 normal;             /**< for spotlights and surfaces */
    bspkit_vec3 shadow_cast_offset; /**< version 1 only; 0 otherwise */
    int32_t cluster;
    int32_t type;                   /**< bspkit_emittype */
    int32_t style;
    float stopdot;                  /**< spotlight inner cone cosine */
    float stopdot2;                 /**< spotlight outer cone cosine */
    float exponent;
    float radius;                   /**< maximum distance, 0 = unlimited */
    float constant_attn;
    float linear_attn;
    float quadratic_attn;
    int32_t flags;
    int32_t texinfo;
    int32_t owner;                  /**< entity that owns the light, 0 = world */
} bspkit_worldlight;

/**
 * WORLDLIGHTS (or WORLDLIGHTS_HDR). Lump versions 0 and 1 are decoded; any
 * other version with data gives BSPKIT_ERR_UNSUPPORTED naming it.
 */
BSPKIT_API bspkit_result bspkit_get_worldlights(bspkit_map *map, bool hdr, const bspkit_worldlight **out, size_t *count,
                                     bspkit_error *err);

/** dleafambientindex_t: the samples of one leaf. */
typedef struct bspkit_leaf_ambient_index {
    uint32_t sample_count; /**< ambientSampleCount */
    uint32_t first_sample; /**< firstAmbientSample: index into the samples */
} bspkit_leaf_ambient_index;

/** dleafambientlighting_t: a light cube at a point given as fractions (0..255) of the leaf's bounds. */
typedef struct bspkit_leaf_ambient_sample {
    bspkit_rgbexp cube[6]; /**< +x, -x, +y, -y, +z, -z */
    uint8_t x, y, z, pad;
} bspkit_leaf_ambient_sample;

/** Per-leaf ambient lighting: the index (one entry per leaf) and the samples. */
typedef struct bspkit_leaf_ambient {
    const bspkit_leaf_ambient_index *index;
    size_t index_count;
    const bspkit_leaf_ambient_sample *samples;
    size_t sample_count;
    size_t bad_ranges; /**< index entries with samples whose range runs past sample_count */
} bspkit_leaf_ambient;

/**
 * LEAF_AMBIENT_INDEX + LEAF_AMBIENT_LIGHTING (or the _HDR pair). The index
 * is 4 bytes per leaf ({u16 count, u16 first}) or, in Strata-style wide
 * maps, 8 ({u32, u32}). Sample lumps whose version is not 1 hold other data
 * in some compilers' output and give sample_count 0. Maps before version 20
 * keep a light cube in each leaf instead (bspkit_leaf.ambient_cube).
 */
BSPKIT_API bspkit_result bspkit_get_leaf_ambient(bspkit_map *map, bool hdr, const bspkit_leaf_ambient **out,
                                      bspkit_error *err);

#ifdef __cplusplus
}
#endif

#endif /* BSPKIT_LIGHTING_H */
