/* The run-length walk behind bspkit_vis_decompress(), for readers that only
 * need to know a row decodes (validation): no output row is written. */
#ifndef BSPKIT_CORE_VIS_RLE_H
#define BSPKIT_CORE_VIS_RLE_H

#include "bspkit/bspkit.h"

#include <stdbool.h>
#include <stdint.h>

/* As bspkit_vis_decompress() with no destination: the same result and
 * *consumed (may be NULL). */
bspkit_result bk_vis_walk(const uint8_t *src, size_t src_size, size_t row_bytes, size_t *consumed);

/* Rows that start where the walk of the rows before them stops need no
 * walk of their own. Reading the code from `from` to the end of src, a
 * byte starts a code (a literal, or a zero and its count) or is a count.
 * True when every position p in [from, last] with bit p of `marks` set
 * (bit p % 64 of word p / 64) starts a code; false when one is a count, or
 * when from > last or last >= size. A row at such a position decodes
 * exactly as the code from there on, which adds no more bytes than the code
 * from any earlier marked position: if the row at `last` decodes, all of
 * them do. `marks` holds (last / 64 + 1) words. */
bool bk_vis_marks_start_codes(const uint8_t *src, size_t size, size_t from, size_t last, const uint64_t *marks);

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
/* Whether the row exists and starts inside the lump (not for bitset rows). */
bool bk_vis_row_inside(const bk_vis_rows *v, uint32_t index, bspkit_vis_kind kind);
/* True when every row that starts inside the lump, among clusters
 * 0 .. count - 1 (their PVS, and their PAS when `pas`) or leafs 1 .. count,
 * decodes: shown at once where the rows follow one another
 * (bk_vis_marks_start_codes, then a walk of the last row). False when that
 * cannot be shown, or for bitset rows: then each row is asked on its own. */
bool bk_vis_rows_fine_together(const bk_vis_rows *v, uint32_t count, bool pas);

#endif
