/* LZMA glue (core/lzma.h). Valve's LZMA lumps: a 17-byte header ("LZMA",
 * uint32 actualSize, uint32 lzmaSize, 5 property bytes; both sizes
 * little-endian even in big-endian files) followed by a raw LZMA1 stream
 * that may or may not end with an end marker, so decoding stops when the
 * output is full. Written streams carry the end marker: decoders that stop
 * on the output size ignore it, and those that wait for the end need it. */
#include "core/lzma.h"

#include "core/map.h"

#include <stdlib.h>
#include <string.h>

uint32_t bk_lzma_dict_for_input(size_t size, uint32_t preset_dict)
{
    uint32_t dict = LZMA_DICT_SIZE_MIN;
    while (dict < size && dict < preset_dict)
        dict <<= 1;
    return dict;
}

uint32_t bk_lzma_dict_cap(size_t out_size)
{
    return out_size > LZMA_DICT_SIZE_MIN ? (uint32_t)out_size : LZMA_DICT_SIZE_MIN;
}

lzma_ret bk_lzma_pump(lzma_stream *strm, lzma_action action, bool stop_when_full)
{
    for (;;) {
        size_t in_before = strm->avail_in, out_before = strm->avail_out;
        lzma_ret ret = lzma_code(strm, action);
        if (ret != LZMA_OK || (stop_when_full && strm->avail_out == 0))
            return ret;
        if (strm->avail_in == in_before && strm->avail_out == out_before)
            return ret; /* input exhausted: the stream is short */
    }
}

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
    uint32_t dict_cap = bk_lzma_dict_cap(dst_size);
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
    ret = bk_lzma_pump(&strm, LZMA_RUN, true);
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
    opt.dict_size = bk_lzma_dict_for_input(size, opt.dict_size);

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
