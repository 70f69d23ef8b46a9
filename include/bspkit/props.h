/*
 * bspkit/props.h — Source static props (game lump `sprp`), detail props
 * (`dprp`) and detail-prop lighting (`dplt` LDR, `dplh` HDR).
 *
 * Conventions (as in bspkit.h): results are decoded once, cached and
 * BORROWED from the map until bspkit_close(). A Source map without the game
 * lump, and a map of another family, give BSPKIT_OK with every count 0.
 * Fields a record layout lacks hold 0.
 *
 * Static prop records exist in many layouts that share version numbers, so
 * the layout is chosen from the game-lump version together with the bytes
 * per record (bytes after the prop count divided by the count) and, where
 * those still collide, the structure of the lump:
 *
 *   layout           version  bytes  record after the common v4 part (56 B)
 *   v4                  4      56    -
 *   v5                  5      60    ForcedFadeScale
 *   v6                  6      64    v5 + Min/MaxDXLevel
 *   v7-l4d              7      68    v6 + DiffuseModulation
 *   v7-zeno-clash       7      68    v6 + 4 unknown bytes; a second 128-byte
 *                                    name list precedes the leaf array
 *   v8                  8      68    v5 + Min/MaxCPULevel, Min/MaxGPULevel,
 *                                    DiffuseModulation
 *   v9                  9      72    v8 + DisableX360 (1 byte + 3 padding)
 *   v10-csgo           10      76    v9 + FlagsEx
 *   v11-csgo           11      80    v10-csgo + UniformScale
 *   sdk2013-lightmap  7, 10    72    v6 + Flags (uint32; the byte at 31 is
 *                                    padding) + LightmapResolutionX/Y (uint16)
 *   v11-blackmesa-76   11      76    sdk2013-lightmap + DiffuseModulation
 *   v11-blackmesa      11      80    v11-blackmesa-76 + FlagsEx
 *   v12                12      80    as v11-csgo; leaf array of uint32
 *   v13                13      88    v10-csgo + NonUniformScale (3 floats);
 *                                    leaf array of uint32
 *   v5-the-ship         5     188    v5 + targetname[128]
 *   v6-bgt              6     192    v6 + targetname[128] (Bloody Good Time)
 *   v6-dark-messiah     6     136    v6 + 72 unknown bytes
 *   v6-vindictus        6      60    as v5; a scaling list {int prop, Vector
 *   v7-vindictus        7      64    as v6;  scale} precedes the prop count
 *
 * v11 records of 80 bytes are Black Mesa's when every record holds an
 * integer flag word (below 2^24) where CS:GO keeps its float UniformScale,
 * CS:GO's otherwise. Any other combination is decoded as the common v4 part
 * with layout "unknown" and a warning; the record bytes stay available.
 */
#ifndef BSPKIT_PROPS_H
#define BSPKIT_PROPS_H

#include "bspkit/bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Game-lump ids (first character in the high byte). */
#define BSPKIT_GAME_LUMP_STATIC_PROPS 0x73707270u       /**< 'sprp' */
#define BSPKIT_GAME_LUMP_DETAIL_PROPS 0x64707270u       /**< 'dprp' */
#define BSPKIT_GAME_LUMP_DETAIL_LIGHTING 0x64706c74u    /**< 'dplt' */
#define BSPKIT_GAME_LUMP_DETAIL_LIGHTING_HDR 0x64706c68u /**< 'dplh' */

/** A 128-byte model or target name from the file, always NUL-terminated here. */
typedef struct bspkit_prop_name {
    char name[129];
} bspkit_prop_name;

/** One static prop (StaticPropLump_t), every field any layout has. */
typedef struct bspkit_static_prop {
    bspkit_vec3 origin;          /**< Origin */
    bspkit_vec3 angles;          /**< Angles: pitch, yaw, roll in degrees */
    uint16_t prop_type;          /**< PropType: index into the dictionary */
    uint16_t first_leaf;         /**< FirstLeaf: index into the leaf array */
    uint16_t leaf_count;         /**< LeafCount */
    uint8_t solid;               /**< Solid: solidity type */
    uint32_t flags;              /**< Flags: the byte at offset 31, or the uint32 Flags of sdk2013-lightmap/blackmesa */
    int32_t skin;                /**< Skin */
    float fade_min_dist;         /**< FadeMinDist */
    float fade_max_dist;         /**< FadeMaxDist */
    bspkit_vec3 lighting_origin; /**< LightingOrigin */
    float forced_fade_scale;     /**< ForcedFadeScale (v5 on) */
    uint16_t min_dx_level;       /**< MinDXLevel (v6, v7, sdk2013, Black Mesa) */
    uint16_t max_dx_level;       /**< MaxDXLevel */
    uint8_t min_cpu_level;       /**< MinCPULevel (v8 on, CS:GO-style) */
    uint8_t max_cpu_level;       /**< MaxCPULevel */
    uint8_t min_gpu_level;       /**< MinGPULevel */
    uint8_t max_gpu_level;       /**< MaxGPULevel */
    uint8_t diffuse_modulation[4]; /**< DiffuseModulation RGBA (v7-l4d, v8 on, Black Mesa) */
    bool disable_x360;           /**< DisableX360 (v9, CS:GO-style v10 on) */
    uint32_t flags_ex;           /**< FlagsEx (CS:GO-style v10 on, v11-blackmesa) */
    float uniform_scale;         /**< UniformScale (v11-csgo, v12) */
    bspkit_vec3 non_uniform_scale; /**< NonUniformScale (v13; Vindictus scaling list) */
    uint16_t lightmap_resolution_x; /**< LightmapResolutionX (sdk2013-lightmap, Black Mesa) */
    uint16_t lightmap_resolution_y; /**< LightmapResolutionY */
    const char *targetname;      /**< NUL-terminated targetname (The Ship, Bloody Good Time), else NULL */
    const uint8_t *raw;          /**< this record's bytes in the decompressed game lump (file byte order) */
} bspkit_static_prop;

/** The decoded `sprp` game lump. */
typedef struct bspkit_static_props {
    bool present;                /**< the map has an `sprp` game lump */
    int32_t version;             /**< game-lump version; 0 when absent */
    uint32_t record_size;        /**< bytes per prop record in the file (the layout's size when there are no props) */
    const char *layout;          /**< layout name from the table above; "unknown"; "" when absent */
    bool layout_known;           /**< false: only the common v4 part was decoded */
    uint32_t leaf_index_size;    /**< bytes per leaf-array entry: 2, or 4 from v12 on */
    const bspkit_prop_name *dictionary; /**< model names (StaticPropDictLump_t) */
    size_t dictionary_count;
    const uint32_t *leafs;       /**< leaf array: indices into LEAFS */
    size_t leaf_count;
    const bspkit_static_prop *props;
    size_t prop_count;
    const bspkit_prop_name *extra_names; /**< Zeno Clash's second name list, else NULL */
    size_t extra_name_count;
    size_t trailing_bytes;       /**< bytes after the last record that no layout accounts for */
    char warning[160];           /**< why the layout is unknown or bytes were left over; empty when none */
} bspkit_static_props;

/**
 * Decode the map's static props. A count that runs past the end of the game
 * lump fails with BSPKIT_ERR_GAME_LUMP; lump_offset is the count's offset
 * inside the (decompressed) game lump. Indices (PropType, leaves) are not
 * checked here.
 */
BSPKIT_API bspkit_result bspkit_get_static_props(bspkit_map *map, const bspkit_static_props **out, bspkit_error *err);

/** A sprite rectangle and its texture coordinates (DetailSpriteDictLump_t). */
typedef struct bspkit_detail_sprite {
    float upper_left[2];   /**< UL: upper-left corner, in units */
    float lower_right[2];  /**< LR: lower-right corner */
    float tex_upper_left[2];  /**< TexUL */
    float tex_lower_right[2]; /**< TexLR */
} bspkit_detail_sprite;

/** One detail prop (DetailObjectLump_t, 52 bytes in version 4). */
typedef struct bspkit_detail_prop {
    bspkit_vec3 origin;        /**< Origin */
    bspkit_vec3 angles;        /**< Angles */
    uint16_t detail_model;     /**< DetailModel: model index (Type 0) or sprite index */
    uint16_t leaf;             /**< Leaf */
    bspkit_rgbexp lighting;    /**< Lighting */
    uint32_t light_styles;     /**< LightStyles: first index into the dplt/dplh records */
    uint8_t light_style_count; /**< LightStyleCount */
    uint8_t sway_amount;       /**< SwayAmount */
    uint8_t shape_angle;       /**< ShapeAngle */
    uint8_t shape_size;        /**< ShapeSize */
    uint8_t orientation;       /**< Orientation: 0 normal, 1 screen-aligned, 2 screen-aligned vertical */
    uint8_t type;              /**< Type: 0 model, 1 sprite, 2 triangle shape, 3 cross shape */
    float scale;               /**< Scale (sprites) */
    const uint8_t *raw;        /**< this record's bytes in the decompressed game lump */
} bspkit_detail_prop;

/** The decoded `dprp` game lump. */
typedef struct bspkit_detail_props {
    bool present;
    int32_t version;           /**< game-lump version; 0 when absent */
    uint32_t record_size;      /**< bytes per prop record (52 when there are none) */
    const bspkit_prop_name *models; /**< model dictionary */
    size_t model_count;
    const bspkit_detail_sprite *sprites;
    size_t sprite_count;
    const bspkit_detail_prop *props;
    size_t prop_count;
    char warning[160];         /**< unexpected record size or leftover bytes; empty when none */
} bspkit_detail_props;

/**
 * Decode the detail props. Records other than 52 bytes are decoded field by
 * field as far as they reach, with a warning. Overrunning counts fail with
 * BSPKIT_ERR_GAME_LUMP.
 */
BSPKIT_API bspkit_result bspkit_get_detail_props(bspkit_map *map, const bspkit_detail_props **out, bspkit_error *err);

/** One lighting sample of a detail prop's light style (DetailPropLightstyleLump_t, 5 bytes). */
typedef struct bspkit_detail_lightstyle {
    bspkit_rgbexp lighting; /**< Lighting */
    uint8_t style;          /**< Style */
} bspkit_detail_lightstyle;

/** The decoded `dplt` (LDR) or `dplh` (HDR) game lump: int count + records. */
typedef struct bspkit_detail_lighting {
    bool present;
    int32_t version;
    const bspkit_detail_lightstyle *records;
    size_t count;
    char warning[160];      /**< leftover bytes after the records; empty when none */
} bspkit_detail_lighting;

/** Decode `dplh` when `hdr`, else `dplt`. Overrunning counts fail with BSPKIT_ERR_GAME_LUMP. */
BSPKIT_API bspkit_result bspkit_get_detail_lighting(bspkit_map *map, bool hdr, const bspkit_detail_lighting **out,
                                         bspkit_error *err);

#ifdef __cplusplus
}
#endif

#endif /* BSPKIT_PROPS_H */
