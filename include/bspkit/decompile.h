/*
 * Decompiling: a map back to an editable source.
 *
 * Source maps become Hammer VMF text. Brushes come from the BRUSHES and
 * BRUSHSIDES lumps: each non-bevel side's polygon is the side's plane
 * clipped by the brush's other planes, written as Hammer's three points on
 * that polygon, with the material from texinfo -> texdata (names patched for
 * cubemaps, "maps/<map>/<name>_X_Y_Z", turned back into <name>), uaxis and
 * vaxis from the texture vectors and the lightmap scale from the lightmap
 * vectors. Sides without a face or texinfo get a tool material chosen from
 * the brush contents. World brushes go into "world", CONTENTS_DETAIL ones
 * into func_detail entities, the brushes of model N into the entity whose
 * "model" is "*N" (moved back by that entity's origin). Displacements are
 * written as dispinfo blocks on their side. Entities keep every key/value in
 * order (outputs go into a "connections" block); static props, overlays,
 * cubemaps, area portals and occluders are rebuilt as entities.
 *
 * Quake and GoldSrc maps have no brush lump: convex brushes are rebuilt
 * from each model's hull-0 BSP tree (every solid, sky or liquid leaf is the
 * intersection of the half-spaces on the path to it), neighbouring pieces
 * are merged while their union stays convex, and every side takes the
 * texture and alignment of the face lying on it (a tool texture otherwise:
 * GoldSrc "NULL", Quake "skip"; liquid and sky brushes keep their own
 * texture on every side). Brush entities whose entity has an "origin" get
 * their brushes moved by it plus an "origin"-textured 16-unit brush centred
 * on it. Translucent and ladder leaves are not rebuilt.
 * The output is a Valve 220 .map (texture axes with shift and scale), as
 * J.A.C.K., Hammer 3.5 and TrenchBroom read it.
 *
 * Quake 2 and Quake 3 maps keep their brushes, so those are written back
 * side by side (bevel sides, which touch the brush without area, left out):
 * Quake 2 as a Valve 220 .map with each side's contents, flags and value;
 * Quake 3 as a Quake 3 .map (the BSP keeps no texture alignment for brush
 * sides: shift 0, scale 0.5) with every Bézier patch as a patchDef2 of its
 * control points.
 */
#ifndef BSPKIT_DECOMPILE_H
#define BSPKIT_DECOMPILE_H

#include "bspkit/bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bspkit_decompile_format {
    BSPKIT_DECOMPILE_AUTO = 0, /**< VMF for Source maps, MAP for the others */
    BSPKIT_DECOMPILE_VMF,      /**< Hammer VMF (Source maps only) */
    BSPKIT_DECOMPILE_MAP       /**< .map (Quake, GoldSrc, Quake 2, Quake 3 maps) */
} bspkit_decompile_format;

/** Parts that can be left out of a VMF. */
enum {
    BSPKIT_DECOMPILE_NO_PROPS = 0x1,       /**< prop_static entities from the static prop lump */
    BSPKIT_DECOMPILE_NO_OVERLAYS = 0x2,    /**< info_overlay entities */
    BSPKIT_DECOMPILE_NO_CUBEMAPS = 0x4,    /**< env_cubemap entities */
    BSPKIT_DECOMPILE_NO_AREAPORTALS = 0x8, /**< func_areaportal(window) brushes */
    BSPKIT_DECOMPILE_NO_OCCLUDERS = 0x10,  /**< func_occluder brushes */
    BSPKIT_DECOMPILE_NO_DETAIL = 0x20,     /**< func_detail brushes */
    BSPKIT_DECOMPILE_NO_DISPLACEMENTS = 0x40, /**< dispinfo blocks (the base brush is kept) */
    BSPKIT_DECOMPILE_NO_BRUSH_ENTITIES = 0x80, /**< brushes of models other than the world */
    BSPKIT_DECOMPILE_NO_CLIP = 0x100       /**< Quake/GoldSrc: clip brushes recovered from the player hull */
};

typedef struct bspkit_decompile_options {
    bspkit_decompile_format format;
    uint32_t skip;      /**< BSPKIT_DECOMPILE_NO_* flags */
    bool no_merge;      /**< Quake/GoldSrc: one brush per BSP leaf, without merging */
    /** Quake/GoldSrc: threads that rebuild the brushes, 0 = one per online
     *  CPU (the default; a map of fewer than 1200 nodes and clipnodes is done
     *  on the calling thread, sooner than threads would start), 1 = the
     *  calling thread only. The output is the same for any count. */
    unsigned threads;
} bspkit_decompile_options;

/** What a decompile wrote. */
typedef struct bspkit_decompile_stats {
    size_t brushes;        /**< solids written, all models */
    size_t sides;          /**< sides written */
    size_t world_brushes;  /**< solids in world (or worldspawn) */
    size_t detail_brushes; /**< solids in func_detail */
    size_t entity_brushes; /**< solids inside brush entities */
    size_t tool_sides;     /**< sides given a tool material: no face lies on them, or their brush is clip */
    size_t skipped_brushes;/**< brushes left out (degenerate, or of a model no entity uses) */
    size_t unowned_brushes;/**< VMF: brushes no model's BSP tree reaches, written into the world */
    size_t entities;       /**< entities written, the world included */
    size_t displacements;
    size_t props;          /**< prop_static entities */
    size_t overlays;       /**< info_overlay entities */
    size_t cubemaps;       /**< env_cubemap entities */
    size_t leaves;         /**< Quake/GoldSrc: BSP leaves turned into brushes before merging */
    size_t texture_splits; /**< Quake/GoldSrc: cuts through a leaf between two textures on one of its sides */
    size_t clip_brushes;   /**< Quake/GoldSrc: CLIP brushes recovered from the player hull (in the world) */
    size_t bytes_written;
    size_t patches;        /**< Quake 3: Bézier patches written as patchDef2 */
} bspkit_decompile_stats;

/**
 * Decompile `map` into text (NUL-terminated; free with bspkit_free()). `opts` and
 * `stats` may be NULL.
 */
BSPKIT_API bspkit_result bspkit_decompile_memory(bspkit_map *map, const bspkit_decompile_options *opts, char **out,
                                      size_t *size, bspkit_decompile_stats *stats, bspkit_error *err);

/** Decompile `map` into the file `path`, written to a temporary name and renamed into place
 * (not synced to disk first: the file can be made again). */
BSPKIT_API bspkit_result bspkit_decompile(bspkit_map *map, const char *path, const bspkit_decompile_options *opts,
                               bspkit_decompile_stats *stats, bspkit_error *err);

#ifdef __cplusplus
}
#endif
#endif
