/*
 * BSPX — the extension block some Quake and GoldSrc compilers append after
 * the last lump: "BSPX", int32 count, then `count` entries of
 * {char name[24]; int32 offset; int32 length}, offsets counted from the
 * start of the file, all little-endian. The block starts at the end of the
 * last lump rounded up to 4 bytes.
 *
 * Every function returns borrowed data (valid until bspkit_close()). Maps
 * without a BSPX block (and Source maps) give an empty directory; asking for
 * a named lump that is not there gives BSPKIT_ERR_NOT_FOUND.
 */
#ifndef BSPKIT_BSPX_H
#define BSPKIT_BSPX_H

#include "bspkit/bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One BSPX directory entry. */
typedef struct bspkit_bspx_entry {
    char name[25];   /**< the 24-byte name, always NUL-terminated */
    uint32_t offset; /**< absolute file offset of the data */
    uint32_t length; /**< bytes of data */
} bspkit_bspx_entry;

/**
 * The BSPX directory. The header, every entry and every entry's data range
 * are checked against the file; a range outside it fails the whole
 * directory with BSPKIT_ERR_LUMP_RANGE naming the entry and its file offset.
 */
BSPKIT_API bspkit_result bspkit_bspx_entries(bspkit_map *map, const bspkit_bspx_entry **out, size_t *count,
                                  bspkit_error *err);

/** The bytes of the first BSPX lump called `name` (exact, case-sensitive). */
BSPKIT_API bspkit_result bspkit_bspx_lump(bspkit_map *map, const char *name, const uint8_t **data, size_t *size,
                               bspkit_error *err);

/**
 * RGBLIGHTING (Quake: the colour of each LIGHTING luxel, 3 bytes per luxel,
 * so a face's colours start at 3 * its light offset) or LIGHTINGDIR (a
 * direction per luxel, 3 bytes). `name` is "RGBLIGHTING" or "LIGHTINGDIR";
 * the lump must hold exactly 3 bytes per luxel of LIGHTING
 * (BSPKIT_ERR_LUMP_SIZE otherwise). `*luxels` gets the number of luxels.
 */
BSPKIT_API bspkit_result bspkit_bspx_luxel_lump(bspkit_map *map, const char *name, const uint8_t **data, size_t *luxels,
                                     bspkit_error *err);

/** DECOUPLED_LM per-face record (40 bytes in the file). */
typedef struct bspkit_bspx_decoupled_lm {
    uint16_t lmwidth;         /**< lightmap width in luxels */
    uint16_t lmheight;        /**< lightmap height in luxels */
    int32_t offset;           /**< byte offset into LIGHTING, replacing the face's; -1 = unlit */
    float world_to_lm[2][4];  /**< rows s, t: luxel coordinate = dot(xyz, row) + row[3] */
} bspkit_bspx_decoupled_lm;

/**
 * DECOUPLED_LM: one record per face of FACES. A lump whose length is not
 * 40 bytes per face gives BSPKIT_ERR_LUMP_SIZE; count 0 when absent.
 */
BSPKIT_API bspkit_result bspkit_get_bspx_decoupled_lm(bspkit_map *map, const bspkit_bspx_decoupled_lm **out, size_t *count,
                                           bspkit_error *err);
/** Former name of bspkit_get_bspx_decoupled_lm(). */
BSPKIT_API bspkit_result bspkit_bspx_decoupled_lm_get(bspkit_map *map, const bspkit_bspx_decoupled_lm **out, size_t *count,
                                           bspkit_error *err)
    BSPKIT_DEPRECATED("bspkit_get_bspx_decoupled_lm");

/** BRUSHLIST model header: {int32 ver, modelnum, numbrushes, numfaces}. */
typedef struct bspkit_bspx_brush_model {
    int32_t ver;          /**< record version (1) */
    int32_t modelnum;     /**< the model the brushes belong to */
    int32_t numbrushes;   /**< brushes that follow */
    int32_t numfaces;     /**< planes stored for all those brushes together */
    uint32_t first_brush; /**< index of its first brush in bspkit_bspx_brushlist.brushes */
} bspkit_bspx_brush_model;

/** BRUSHLIST brush: {vec3 mins, maxs; int16 contents; uint16 numfaces}, its planes right after it. */
typedef struct bspkit_bspx_brush {
    bspkit_vec3 mins, maxs;
    int16_t contents;     /**< Quake contents value (-1 empty, -2 solid, ...) */
    uint16_t numfaces;    /**< planes stored for this brush (non-axial sides only) */
    uint32_t first_plane; /**< index of its first plane in bspkit_bspx_brushlist.planes */
} bspkit_bspx_brush;

/** BRUSHLIST plane: {vec3 normal; float dist}. */
typedef struct bspkit_bspx_plane {
    bspkit_vec3 normal;
    float dist;
} bspkit_bspx_plane;

/** The whole BRUSHLIST lump, flattened. */
typedef struct bspkit_bspx_brushlist {
    const bspkit_bspx_brush_model *models;
    size_t model_count;
    const bspkit_bspx_brush *brushes;
    size_t brush_count;
    const bspkit_bspx_plane *planes;
    size_t plane_count;
} bspkit_bspx_brushlist;

/**
 * BRUSHLIST: a sequence of models, each a header followed by its brushes,
 * each brush followed by its planes. A record running past the lump, or a
 * model whose numfaces differs from the sum over its brushes, gives
 * BSPKIT_ERR_LUMP_SIZE with the lump offset. Empty when absent.
 */
BSPKIT_API bspkit_result bspkit_get_bspx_brushlist(bspkit_map *map, const bspkit_bspx_brushlist **out, bspkit_error *err);
/** Former name of bspkit_get_bspx_brushlist(). */
BSPKIT_API bspkit_result bspkit_bspx_brushlist_get(bspkit_map *map, const bspkit_bspx_brushlist **out, bspkit_error *err)
    BSPKIT_DEPRECATED("bspkit_get_bspx_brushlist");

#ifdef __cplusplus
}
#endif

#endif /* BSPKIT_BSPX_H */
