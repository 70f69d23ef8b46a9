/* Shared by the unit and corpus tests: an independent check of a Valve LZMA
 * lump ("LZMA", uint32 actualSize, uint32 lzmaSize, 5 property bytes, raw
 * LZMA1). The property bytes and the 64-bit size are rebuilt into the 13-byte
 * .lzma header and the stream is decoded by liblzma's own "alone" decoder,
 * none of bspkit's code involved. */
#ifndef BSPKIT_TESTS_VALVE_LZMA_H
#define BSPKIT_TESTS_VALVE_LZMA_H

#include "core/bytes.h"

#include <lzma.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* True when `lump` is a well-formed Valve LZMA lump decoding to exactly the
 * `expect_size` bytes at `expect`. */
static inline bool valve_lzma_lump_equals(const uint8_t *lump, size_t size, const uint8_t *expect,
                                          size_t expect_size)
{
    if (size < 17 || memcmp(lump, "LZMA", 4) != 0)
        return false;
    uint32_t actual = rd_le32(lump + 4), packed = rd_le32(lump + 8);
    if (actual != expect_size || 17ull + packed > size)
        return false;
    size_t alone_size = 13 + (size_t)packed;
    uint8_t *alone = malloc(alone_size);
    uint8_t *plain = malloc(actual ? actual : 1);
    bool ok = alone && plain;
    if (ok) {
        memcpy(alone, lump + 12, 5);
        for (int i = 0; i < 8; i++)
            alone[5 + i] = (uint8_t)((uint64_t)actual >> (8 * i));
        memcpy(alone + 13, lump + 17, packed);
    }
    lzma_stream s = LZMA_STREAM_INIT;
    ok = ok && lzma_alone_decoder(&s, UINT64_MAX) == LZMA_OK;
    if (ok) {
        s.next_in = alone;
        s.avail_in = alone_size;
        s.next_out = plain;
        s.avail_out = actual;
        lzma_ret r = lzma_code(&s, LZMA_FINISH);
        ok = (r == LZMA_STREAM_END || r == LZMA_OK) && s.total_out == actual && memcmp(plain, expect, actual) == 0;
    }
    lzma_end(&s);
    free(alone);
    free(plain);
    return ok;
}

#endif
