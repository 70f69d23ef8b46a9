/* Valve's LZMA lumps: a 17-byte header ("LZMA", uint32 actualSize,
 * uint32 lzmaSize, 5 property bytes; both sizes little-endian even in
 * big-endian files) followed by a raw LZMA1 stream that may or may not end
 * with an end marker, so decoding stops when the output is full. */
#include "core/map.h"

#include <lzma.h>
#include <stdlib.h>

bool bk_is_lzma(const uint8_t *data, size_t size)
{
    return size >= 4 && rd_le32(data) == BK_LZMA_ID;
}

bool bk_lzma_sizes(const uint8_t *data, size_t size, uint32_t *actual, uint32_t *compressed)
{
    if (size < BK_LZMA_HEADER_SIZE || rd_le32(data) != BK_LZMA_ID)
        return false;
    *actual = rd_le32(data + 4);
    *compressed = rd_le32(data + 8);
    return *compressed <= size - BK_LZMA_HEADER_SIZE;
}

bspkit_result bk_lzma_decompress(const uint8_t *src, size_t src_size, uint8_t *dst, size_t dst_size, int lump,
                                 bspkit_error *err)
{
    uint32_t actual, packed;
    if (!bk_lzma_sizes(src, src_size, &actual, &packed))
        return bk_fail(err, BSPKIT_ERR_COMPRESSION, lump, -1, 0, "lump %d: invalid LZMA header", lump);
    if (actual != dst_size)
        return bk_fail(err, BSPKIT_ERR_COMPRESSION, lump, -1, 4,
                       "lump %d: LZMA header says %u bytes, expected %zu", lump, actual, dst_size);

    lzma_filter filters[2] = {{.id = LZMA_FILTER_LZMA1, .options = NULL}, {.id = LZMA_VLI_UNKNOWN}};
    if (lzma_properties_decode(&filters[0], NULL, src + 12, 5) != LZMA_OK)
        return bk_fail(err, BSPKIT_ERR_COMPRESSION, lump, -1, 12, "lump %d: invalid LZMA properties", lump);
    /* The dictionary never needs to exceed the output; without this cap a few
     * hostile property bytes make liblzma allocate gigabytes. */
    lzma_options_lzma *lz = filters[0].options;
    uint32_t dict_cap = dst_size > LZMA_DICT_SIZE_MIN ? (uint32_t)dst_size : LZMA_DICT_SIZE_MIN;
    if (lz->dict_size > dict_cap)
        lz->dict_size = dict_cap;
    lzma_stream strm = LZMA_STREAM_INIT;
    lzma_ret ret = lzma_raw_decoder(&strm, filters);
    free(filters[0].options);
    if (ret != LZMA_OK)
        return bk_fail(err, ret == LZMA_MEM_ERROR ? BSPKIT_ERR_NOMEM : BSPKIT_ERR_COMPRESSION, lump, -1, 12,
                       "lump %d: cannot start the LZMA decoder (liblzma code %d)", lump, (int)ret);
    strm.next_in = src + BK_LZMA_HEADER_SIZE;
    strm.avail_in = packed;
    strm.next_out = dst;
    strm.avail_out = dst_size;
    /* Stop as soon as the output is full: some streams have no end marker. */
    for (;;) {
        size_t in_before = strm.avail_in, out_before = strm.avail_out;
        ret = lzma_code(&strm, LZMA_RUN);
        if (ret != LZMA_OK || strm.avail_out == 0)
            break;
        if (strm.avail_in == in_before && strm.avail_out == out_before)
            break; /* input exhausted: the stream is short */
    }
    size_t produced = dst_size - strm.avail_out;
    uint64_t consumed = strm.total_in;
    lzma_end(&strm);
    if (ret != LZMA_OK && ret != LZMA_STREAM_END)
        return bk_fail(err, BSPKIT_ERR_COMPRESSION, lump, -1, (int64_t)(BK_LZMA_HEADER_SIZE + consumed),
                       "lump %d: corrupt LZMA stream near compressed byte %llu (liblzma code %d)", lump,
                       (unsigned long long)consumed, (int)ret);
    if (produced != dst_size)
        return bk_fail(err, BSPKIT_ERR_COMPRESSION, lump, -1, (int64_t)(BK_LZMA_HEADER_SIZE + consumed),
                       "lump %d: LZMA stream ends after %zu of %zu bytes", lump, produced, dst_size);
    return BSPKIT_OK;
}
