/* The run-length walk behind bspkit_vis_decompress(), for readers that only
 * need to know a row decodes (validation): no output row is written. */
#ifndef BSPKIT_CORE_VIS_RLE_H
#define BSPKIT_CORE_VIS_RLE_H

#include "bspkit/bspkit.h"

/* As bspkit_vis_decompress() with no destination: the same result and
 * *consumed (may be NULL). */
bspkit_result bk_vis_walk(const uint8_t *src, size_t src_size, size_t row_bytes, size_t *consumed);

/* bspkit_vis_row() without an output row: whether the row decodes, with the
 * same error. Used by validation, which decodes every row. */
bspkit_result bk_vis_row_check(bspkit_map *map, uint32_t index, bspkit_vis_kind kind, bspkit_error *err);

/* What checking every row needs, looked up once: validation asks for
 * thousands of rows, and the per-row lookups cost as much as walking the
 * rows. */
typedef struct bk_vis_rows {
    const uint8_t *lump; /* the visibility lump, decompressed */
    size_t size;
    uint32_t rows, row_bytes;
    bool bitset, cluster, big_endian;
    const bspkit_leaf *leafs; /* Quake and GoldSrc: the offsets */
    size_t nleafs;
} bk_vis_rows;
/* False when the lump or its dimensions cannot be read (then only
 * bk_vis_row_check answers). */
bool bk_vis_rows_init(bspkit_map *map, bk_vis_rows *v);
/* True when bk_vis_row_check() of the same row succeeds; false when it may
 * not, and it is to be asked for the error. */
bool bk_vis_row_fine(const bk_vis_rows *v, uint32_t index, bspkit_vis_kind kind);

#endif
