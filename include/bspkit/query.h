/*
 * bspkit spatial queries: which leaf holds a point, what contents a point
 * has in each collision hull, and what a leaf can see and hear (PVS/PAS).
 *
 * Conventions (as in bspkit.h): functions return a bspkit_result and fill
 * `err` when it is not NULL. Every index read from the map (head nodes, node
 * children, planes, leafs, leaf brushes, brush sides, vis offsets) is checked
 * before use; a bad index fails with BSPKIT_ERR_INDEX naming the lump and the
 * record, and a walk is bounded by the node count, so a cyclic tree fails
 * with BSPKIT_ERR_INDEX instead of looping.
 *
 * Plane tests follow the engines: for a plane of type 0-2 the distance is
 * point[type] - dist (the axial shortcut, which assumes the normal is +axis
 * as compilers store node planes), otherwise dot(normal, point) - dist. A
 * distance below 0 selects the back child (children[1]); 0 and above select
 * the front child (children[0]), as Quake's SV_HullPointContents and Source's
 * CM_PointLeafnum do.
 */
#ifndef BSPKIT_QUERY_H
#define BSPKIT_QUERY_H

#include "bspkit/bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Contents values                                                           */
/* ------------------------------------------------------------------------ */

/** Quake/GoldSrc contents (negative leaf and clipnode values). */
enum {
    BSPKIT_Q_CONTENTS_EMPTY = -1,
    BSPKIT_Q_CONTENTS_SOLID = -2,
    BSPKIT_Q_CONTENTS_WATER = -3,
    BSPKIT_Q_CONTENTS_SLIME = -4,
    BSPKIT_Q_CONTENTS_LAVA = -5,
    BSPKIT_Q_CONTENTS_SKY = -6,
    BSPKIT_Q_CONTENTS_ORIGIN = -7,   /**< removed by the compiler */
    BSPKIT_Q_CONTENTS_CLIP = -8,     /**< GoldSrc: clip brushes */
    BSPKIT_Q_CONTENTS_CURRENT_0 = -9,    /**< GoldSrc water currents -9 .. -14 */
    BSPKIT_Q_CONTENTS_CURRENT_DOWN = -14,
    BSPKIT_Q_CONTENTS_TRANSLUCENT = -15, /**< GoldSrc */
    BSPKIT_Q_CONTENTS_LADDER = -16       /**< GoldSrc */
};

/** Source CONTENTS_* bits (bspflags.h). */
enum {
    BSPKIT_S_CONTENTS_EMPTY = 0,
    BSPKIT_S_CONTENTS_SOLID = 0x1,
    BSPKIT_S_CONTENTS_WINDOW = 0x2,
    BSPKIT_S_CONTENTS_AUX = 0x4,
    BSPKIT_S_CONTENTS_GRATE = 0x8,
    BSPKIT_S_CONTENTS_SLIME = 0x10,
    BSPKIT_S_CONTENTS_WATER = 0x20,
    BSPKIT_S_CONTENTS_BLOCKLOS = 0x40,
    BSPKIT_S_CONTENTS_OPAQUE = 0x80,
    BSPKIT_S_CONTENTS_TESTFOGVOLUME = 0x100,
    BSPKIT_S_CONTENTS_TEAM1 = 0x800,
    BSPKIT_S_CONTENTS_TEAM2 = 0x1000,
    BSPKIT_S_CONTENTS_IGNORE_NODRAW_OPAQUE = 0x2000,
    BSPKIT_S_CONTENTS_MOVEABLE = 0x4000,
    BSPKIT_S_CONTENTS_AREAPORTAL = 0x8000,
    BSPKIT_S_CONTENTS_PLAYERCLIP = 0x10000,
    BSPKIT_S_CONTENTS_MONSTERCLIP = 0x20000,
    BSPKIT_S_CONTENTS_CURRENT_0 = 0x40000,
    BSPKIT_S_CONTENTS_CURRENT_90 = 0x80000,
    BSPKIT_S_CONTENTS_CURRENT_180 = 0x100000,
    BSPKIT_S_CONTENTS_CURRENT_270 = 0x200000,
    BSPKIT_S_CONTENTS_CURRENT_UP = 0x400000,
    BSPKIT_S_CONTENTS_CURRENT_DOWN = 0x800000,
    BSPKIT_S_CONTENTS_ORIGIN = 0x1000000,
    BSPKIT_S_CONTENTS_MONSTER = 0x2000000,
    BSPKIT_S_CONTENTS_DEBRIS = 0x4000000,
    BSPKIT_S_CONTENTS_DETAIL = 0x8000000,
    BSPKIT_S_CONTENTS_TRANSLUCENT = 0x10000000,
    BSPKIT_S_CONTENTS_LADDER = 0x20000000,
    BSPKIT_S_CONTENTS_HITBOX = 0x40000000
};

/**
 * Name of a Quake/GoldSrc contents value without the CONTENTS_ prefix
 * ("EMPTY", "SOLID", "WATER", "CURRENT_90", ...), or NULL when unknown.
 */
BSPKIT_API const char *bspkit_quake_contents_name(int32_t contents);

/**
 * Name of Source contents bit number `bit` (0-31) without the CONTENTS_
 * prefix ("SOLID", "WATER", ...), or NULL for a bit with no name.
 */
BSPKIT_API const char *bspkit_source_contents_bit_name(unsigned bit);

/**
 * Writes the names of `contents` for `family` into `buf` (always
 * NUL-terminated when size > 0): Quake/GoldSrc one name ("SOLID"), or
 * "UNKNOWN(-42)"; Source, Quake 2 and Quake 3 the set bits, named as in
 * each game's headers, joined by '|' ("SOLID|DETAIL"),
 * "EMPTY" for 0, and unnamed bits as "0x...". Returns the length the full
 * text needs (as snprintf does).
 */
BSPKIT_API size_t bspkit_contents_describe(bspkit_family family, int32_t contents, char *buf, size_t size);

/* ------------------------------------------------------------------------ */
/* Points                                                                    */
/* ------------------------------------------------------------------------ */

/**
 * Leaf holding `point` in the hull-0 tree of model `model` (0 = world):
 * walks NODES from models[model].headnode[0]; a child < 0 is leaf
 * -(child + 1). Works for every family. Quake/GoldSrc leaf 0 is the shared
 * solid leaf, so points inside walls and outside the map land there.
 * Fails with BSPKIT_ERR_ARGUMENT for a model that does not exist and
 * BSPKIT_ERR_INDEX for a bad head node, child, plane or leaf index, or a
 * walk longer than the node count (a cycle).
 */
BSPKIT_API bspkit_result bspkit_point_leaf(bspkit_map *map, int model, bspkit_vec3 point, uint32_t *leaf, bspkit_error *err);

/**
 * Contents of `point` in the world (model 0) for collision hull `hull`:
 *  - Quake/GoldSrc hull 0: the contents of the leaf bspkit_point_leaf finds.
 *  - Quake/GoldSrc hulls 1-3 (Quake: 1-2): walks CLIPNODES from
 *    models[0].headnode[hull]; a child < 0 is the contents. The clip hulls
 *    are the world expanded by the player boxes, so a point is tested as
 *    the centre of such a box. A map without CLIPNODES gives
 *    BSPKIT_ERR_NOT_FOUND.
 *  - Source, hull 0 only: the OR of the contents of the leaf's brushes that
 *    contain the point (behind or on every side plane, full dot product);
 *    when no brush does, the leaf's own contents. Another hull gives
 *    BSPKIT_ERR_ARGUMENT (Source collides against brushes, not hulls).
 * The result is a Quake contents value (BSPKIT_Q_CONTENTS_*) or a set of
 * Source bits (BSPKIT_S_CONTENTS_*).
 */
BSPKIT_API bspkit_result bspkit_point_contents(bspkit_map *map, bspkit_vec3 point, int hull, int32_t *contents,
                                    bspkit_error *err);

/** bspkit_point_contents() in the tree of model `model` instead of the world. */
BSPKIT_API bspkit_result bspkit_point_contents_model(bspkit_map *map, int model, bspkit_vec3 point, int hull,
                                          int32_t *contents, bspkit_error *err);

/* ------------------------------------------------------------------------ */
/* Visibility per leaf                                                       */
/* ------------------------------------------------------------------------ */

/**
 * Visibility cluster of leaf `leaf`, or -1 when it has none. Source: the
 * leaf's cluster field. Quake/GoldSrc, where every visible leaf is its own
 * cluster: leaf - 1 for leafs 1 .. model 0's vis_leafs (vis row leaf - 1);
 * -1 for the solid leaf 0 and for leafs of brush models past vis_leafs. Any
 * family: -1 when the map has no vis data. BSPKIT_ERR_ARGUMENT when the leaf
 * does not exist; BSPKIT_ERR_INDEX for a Source cluster past the vis rows.
 */
BSPKIT_API bspkit_result bspkit_leaf_cluster(bspkit_map *map, uint32_t leaf, int32_t *cluster, bspkit_error *err);

/**
 * The decompressed PVS or PAS row (bit c = cluster c; row_bytes from
 * bspkit_vis_dimensions) of leaf `leaf` into `out`. A leaf without a cluster
 * gives an all-zero row. Quake and GoldSrc store no PAS; it is computed here
 * as QuakeWorld's server does: the leaf's PVS row ORed with the PVS rows of
 * every leaf that row marks visible. Bits past the row count are cleared.
 */
BSPKIT_API bspkit_result bspkit_leaf_vis_row(bspkit_map *map, uint32_t leaf, bspkit_vis_kind kind, uint8_t *out,
                                  size_t out_size, bspkit_error *err);

/**
 * Number of clusters visible (PVS) or audible (PAS) from leaf `leaf`: the
 * set bits of its bspkit_leaf_vis_row(). Quake/GoldSrc clusters are visible
 * leafs. 0 for a leaf without a cluster or a map without vis data.
 */
BSPKIT_API bspkit_result bspkit_leaf_visible_clusters(bspkit_map *map, uint32_t leaf, bspkit_vis_kind kind, uint32_t *count,
                                           bspkit_error *err);

/**
 * Number of leafs whose cluster is set in the PVS or PAS row of leaf
 * `leaf`. Equals the cluster count for Quake/GoldSrc; for Source, every
 * leaf of a visible cluster is counted.
 */
BSPKIT_API bspkit_result bspkit_leaf_visible_leafs(bspkit_map *map, uint32_t leaf, bspkit_vis_kind kind, uint32_t *count,
                                        bspkit_error *err);

/* ------------------------------------------------------------------------ */
/* Visibility of the whole map                                               */
/* ------------------------------------------------------------------------ */

/**
 * Figures about the PVS of a map, filled by the function of the same name
 * (a struct tag, so both names can coexist). All zero when the map has no
 * vis data.
 */
struct bspkit_vis_stats {
    uint32_t rows;            /**< clusters (Source) or visible leafs (Quake/GoldSrc): PVS rows */
    uint32_t row_bytes;       /**< bytes per decompressed row */
    double average_visible;   /**< mean over rows of (visible clusters / rows) * 100 */
    uint32_t min_visible;     /**< fewest clusters visible from one row */
    uint32_t max_visible;     /**< most clusters visible from one row */
    uint64_t visible_pairs;   /**< sum over rows of visible clusters */
    uint64_t compressed_size; /**< bytes of the VISIBILITY lump as the engine reads it (after any LZMA) */
    /** The same data with every row stored uncompressed: Source 4 + 8 * rows
     *  header bytes plus a PVS and a PAS row per cluster; Quake/GoldSrc one
     *  PVS row per visible leaf. */
    uint64_t uncompressed_size;
};

/**
 * Decode every PVS row and fill `out`. Rows whose leaf has no vis data
 * (Quake/GoldSrc vis offset -1) count as seeing everything, as the engines
 * treat them.
 */
BSPKIT_API bspkit_result bspkit_vis_stats(bspkit_map *map, struct bspkit_vis_stats *out, bspkit_error *err);

#ifdef __cplusplus
}
#endif

#endif /* BSPKIT_QUERY_H */
