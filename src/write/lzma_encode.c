/* Valve LZMA lumps: "LZMA", uint32 actualSize, uint32 lzmaSize (both
 * little-endian whatever the file's byte order), the 5 LZMA1 property bytes,
 * then the raw LZMA1 stream. The stream carries an end marker: decoders that
 * stop on the output size ignore it, and those that wait for the end of the
 * stream need it. */
#include "write/encode.h"

#include <lzma.h>
#include <stdlib.h>

bspkit_result bk_lzma_compress(const uint8_t *src, size_t size, uint8_t **out, size_t *out_size, int lump,
                               bspkit_error *err)
{
    if (size > 0xFFFFFFFFu)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1, "lump %d: %zu bytes is too large for an LZMA lump",
                       lump, size);
    lzma_options_lzma opt;
    if (lzma_lzma_preset(&opt, 6))
        return bk_fail(err, BSPKIT_ERR_COMPRESSION, lump, -1, -1, "lump %d: LZMA preset unavailable", lump);
    /* A dictionary larger than the input buys nothing but memory: preset 6
     * asks for 8 MiB, which liblzma would allocate and clear for every lump. */
    uint32_t dict = LZMA_DICT_SIZE_MIN;
    while (dict < size && dict < opt.dict_size)
        dict <<= 1;
    opt.dict_size = dict;

    lzma_filter filters[2] = {{.id = LZMA_FILTER_LZMA1, .options = &opt}, {.id = LZMA_VLI_UNKNOWN, .options = NULL}};
    uint8_t props[5];
    if (lzma_properties_encode(&filters[0], props) != LZMA_OK)
        return bk_fail(err, BSPKIT_ERR_COMPRESSION, lump, -1, -1, "lump %d: cannot encode LZMA properties", lump);

    lzma_stream strm = LZMA_STREAM_INIT;
    lzma_ret ret = lzma_raw_encoder(&strm, filters);
    if (ret != LZMA_OK)
        return bk_fail(err, ret == LZMA_MEM_ERROR ? BSPKIT_ERR_NOMEM : BSPKIT_ERR_COMPRESSION, lump, -1, -1,
                       "lump %d: cannot start the LZMA encoder (liblzma code %d)", lump, (int)ret);

    size_t cap = BK_LZMA_HEADER_SIZE + size + size / 8 + 256;
    uint8_t *buf = malloc(cap);
    if (!buf) {
        lzma_end(&strm);
        return bk_fail(err, BSPKIT_ERR_NOMEM, lump, -1, -1, "lump %d: out of memory", lump);
    }
    strm.next_in = src;
    strm.avail_in = size;
    strm.next_out = buf + BK_LZMA_HEADER_SIZE;
    strm.avail_out = cap - BK_LZMA_HEADER_SIZE;
    for (;;) {
        ret = lzma_code(&strm, LZMA_FINISH);
        if (ret == LZMA_STREAM_END)
            break;
        if (ret != LZMA_OK) {
            lzma_end(&strm);
            free(buf);
            return bk_fail(err, ret == LZMA_MEM_ERROR ? BSPKIT_ERR_NOMEM : BSPKIT_ERR_COMPRESSION, lump, -1, -1,
                           "lump %d: LZMA compression failed (liblzma code %d)", lump, (int)ret);
        }
        if (strm.avail_out == 0) {
            /* Incompressible data can outgrow the first guess. */
            size_t used = cap;
            size_t grown = cap * 2;
            uint8_t *bigger = realloc(buf, grown);
            if (!bigger) {
                lzma_end(&strm);
                free(buf);
                return bk_fail(err, BSPKIT_ERR_NOMEM, lump, -1, -1, "lump %d: out of memory", lump);
            }
            buf = bigger;
            cap = grown;
            strm.next_out = buf + used;
            strm.avail_out = cap - used;
        }
    }
    uint64_t packed = strm.total_out;
    lzma_end(&strm);
    if (packed > 0xFFFFFFFFu - BK_LZMA_HEADER_SIZE) {
        free(buf);
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1, "lump %d: compressed stream too large", lump);
    }
    memcpy(buf, "LZMA", 4);
    wr_le32(buf + 4, (uint32_t)size);
    wr_le32(buf + 8, (uint32_t)packed);
    memcpy(buf + 12, props, 5);
    *out = buf;
    *out_size = BK_LZMA_HEADER_SIZE + (size_t)packed;
    return BSPKIT_OK;
}
