/* Lossless byte-order conversion of Source lump and game-lump contents
 * (PC little-endian <-> Xbox 360 / PS3 big-endian). Each call converts the
 * decompressed bytes of one lump in place, field by field, following the
 * record layouts Valve's own converter uses (the byte-swap data descriptions
 * in the SDK's bsplib.cpp). Nothing here is part of the public API. */
#ifndef BSPKIT_FORMATS_SOURCE_SWAP_H
#define BSPKIT_FORMATS_SOURCE_SWAP_H

#include "bspkit/bspkit.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What decides record layouts besides the lump's own version. */
typedef struct bk_swap_target {
    int32_t version;  /* VBSP header version */
    unsigned variant; /* BSPKIT_VARIANT_* bits (WIDE_LUMPS, L4D2_DIRECTORY) */
} bk_swap_target;

/*
 * Convert the decompressed contents of Source lump `lump` (BSPKIT_S_*) whose
 * directory version is `lump_version`, from big-endian to little-endian when
 * `from_be`, else the reverse, in place. Counts inside variable-length lumps
 * are read in the source byte order.
 *
 * *known is set to false, and the data left untouched, when bspkit does not
 * know the lump's layout (then the bytes cannot be converted exactly). Empty
 * data is always known. GAME_LUMP is refused with BSPKIT_ERR_ARGUMENT: its
 * directory holds file offsets, so the caller rebuilds it and converts each
 * entry with bk_swap_game_lump().
 *
 * When the bytes do not fit the layout (a count or size runs past the end, a
 * length is not a whole number of records, an internal offset points outside
 * the data) the call fails with BSPKIT_ERR_LUMP_SIZE (BSPKIT_ERR_VISIBILITY
 * for VISIBILITY), naming the lump and the byte position in err->lump_offset,
 * and the data is left untouched.
 */
bspkit_result bk_swap_lump(const bk_swap_target *t, int lump, int32_t lump_version, uint8_t *data, size_t size,
                           bool from_be, bool *known, bspkit_error *err);

/*
 * The same for the decompressed data of one game lump, identified by its id
 * (four characters, first in the high byte: 'sprp' = 0x73707270) and version.
 * Failures use BSPKIT_ERR_GAME_LUMP with err->lump = BSPKIT_S_GAME_LUMP and
 * err->lump_offset relative to the game lump's data.
 */
bspkit_result bk_swap_game_lump(const bk_swap_target *t, uint32_t id, uint16_t version, uint8_t *data, size_t size,
                                bool from_be, bool *known, bspkit_error *err);

/* Bytes per record the conversion assumes for a fixed-record lump, or 0 when
 * the lump is not a record array or its layout is unknown. */
size_t bk_swap_record_size(const bk_swap_target *t, int lump, int32_t lump_version);

#endif
