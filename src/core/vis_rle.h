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

#endif
