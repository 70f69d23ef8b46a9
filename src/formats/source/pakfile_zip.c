/* The PAKFILE zip: its raw central directory (checked and rewritten as the
 * engine reads it) and LZMA entries (method 14) in and out. */
#include "pakfile_internal.h"

/* ------------------------------------------------------------------------ */
/* The raw central directory                                                 */
/* ------------------------------------------------------------------------ */

/* The end record, searched backwards from the end as the engine does. */
bool pak_find_end(const uint8_t *z, size_t n, zip_end *e)
{
    if (n < ZIP_EOCD_SIZE)
        return false;
    size_t pos = n - ZIP_EOCD_SIZE;
    size_t stop = pos > 0xFFFF ? pos - 0xFFFF : 0;
    for (;;) {
        if (rd_le32(z + pos) == ZIP_SIG_EOCD && rd_le16(z + pos + 20) <= n - pos - ZIP_EOCD_SIZE) {
            e->pos = pos;
            e->entries = rd_le16(z + pos + 10);
            e->cd_size = rd_le32(z + pos + 12);
            e->cd_offset = rd_le32(z + pos + 16);
            e->comment_len = rd_le16(z + pos + 20);
            return true;
        }
        if (pos == stop)
            return false;
        pos--;
    }
}

/* True when the end record's comment marks an Xbox 360 "incompatible" zip,
 * whose central headers are not followed by the extra bytes they count. */
bool pak_comment_is_xzp2(const uint8_t *c, size_t len)
{
    return len >= 4 && (c[0] == 'X' || c[0] == 'x') && (c[1] == 'Z' || c[1] == 'z') && (c[2] == 'P' || c[2] == 'p') &&
           c[3] == '2';
}

bool pak_holds_end_signature(const uint8_t *c, size_t len)
{
    for (size_t i = 0; i + 4 <= len; i++)
        if (rd_le32(c + i) == ZIP_SIG_EOCD)
            return true;
    return false;
}

bool pak_is_xzp2(const uint8_t *z, const zip_end *e)
{
    return pak_comment_is_xzp2(z + e->pos + ZIP_EOCD_SIZE, e->comment_len);
}

/* Reads the central header at *pos; `compact` skips no extra/comment bytes. */
bool pak_cd_next(const uint8_t *z, size_t n, size_t *pos, bool compact, zip_cd_entry *e)
{
    size_t p = *pos;
    if (p > n || n - p < ZIP_CDH_SIZE || rd_le32(z + p) != ZIP_SIG_CDH)
        return false;
    e->flags = rd_le16(z + p + 8);
    e->method = rd_le16(z + p + 10);
    e->name_len = rd_le16(z + p + 28);
    e->extra_len = rd_le16(z + p + 30);
    e->comment_len = rd_le16(z + p + 32);
    e->local_offset = rd_le32(z + p + 42);
    size_t need = ZIP_CDH_SIZE + e->name_len + (compact ? 0 : (size_t)e->extra_len + e->comment_len);
    if (n - p < need)
        return false;
    e->name = z + p + ZIP_CDH_SIZE;
    *pos = p + need;
    return true;
}

/* What the engine needs of one entry: a method it reads, no encryption, a
 * name that fits its buffer, and data where the central header's lengths
 * put it (it never reads the local header's own lengths). */
bool pak_cd_engine_ok(const uint8_t *z, size_t n, const zip_cd_entry *e)
{
    if ((e->method != 0 && e->method != 14) || (e->flags & ZIP_FLAG_ENCRYPTED) || e->name_len >= PAK_NAME_LIMIT)
        return false;
    size_t lo = e->local_offset;
    if (lo > n || n - lo < ZIP_LFH_SIZE || rd_le32(z + lo) != ZIP_SIG_LFH)
        return false;
    return (uint32_t)rd_le16(z + lo + 26) + rd_le16(z + lo + 28) == (uint32_t)e->name_len + e->extra_len;
}

/* Rewrites an XZP2 archive as an ordinary one: central headers get the
 * extra and comment lengths their (absent) bytes had, 0. Local headers keep
 * their padding, so every data offset stays where it was. */
bspkit_result pak_normalise_xzp2(uint8_t **bytes, size_t *size, const zip_end *e, bspkit_error *err)
{
    const uint8_t *z = *bytes;
    if (e->cd_offset > e->pos)
        return pak_fail(err, BSPKIT_ERR_UNKNOWN_FORMAT, "central directory offset %u lies outside the archive",
                        e->cd_offset);
    size_t pos = e->cd_offset, cd_size = 0;
    zip_cd_entry ce;
    for (unsigned i = 0; i < e->entries; i++) {
        if (!pak_cd_next(z, e->pos, &pos, true, &ce))
            return pak_fail(err, BSPKIT_ERR_UNKNOWN_FORMAT, "XZP2 central directory entry %u is damaged", i);
        cd_size += ZIP_CDH_SIZE + ce.name_len;
    }
    size_t out_size = (size_t)e->cd_offset + cd_size + ZIP_EOCD_SIZE + e->comment_len;
    uint8_t *o = malloc(out_size);
    if (!o)
        return pak_no_memory(err);
    memcpy(o, z, e->cd_offset);
    size_t w = e->cd_offset;
    pos = e->cd_offset;
    for (unsigned i = 0; i < e->entries; i++) {
        size_t start = pos;
        pak_cd_next(z, e->pos, &pos, true, &ce);
        memcpy(o + w, z + start, pos - start);
        wr_le16(o + w + 30, 0);
        wr_le16(o + w + 32, 0);
        w += pos - start;
    }
    memcpy(o + w, z + e->pos, ZIP_EOCD_SIZE + e->comment_len);
    wr_le32(o + w + 12, (uint32_t)cd_size);
    free(*bytes);
    *bytes = o;
    *size = out_size;
    return BSPKIT_OK;
}

/* ------------------------------------------------------------------------ */
/* LZMA inside zip                                                           */
/* ------------------------------------------------------------------------ */

bspkit_result pak_lzma_entry_decode(const pak_item *it, const uint8_t *src, size_t n, uint8_t *dst,
                                       size_t size, bspkit_error *err)
{
    if (n < ZIP_LZMA_HEADER)
        return pak_fail(err, BSPKIT_ERR_COMPRESSION, "entry '%s': LZMA header truncated (%zu bytes)", it->name, n);
    if (rd_le16(src + 2) != ZIP_LZMA_PROPS)
        return pak_fail(err, BSPKIT_ERR_COMPRESSION, "entry '%s': LZMA properties size %u, expected 5", it->name,
                        rd_le16(src + 2));
    /* Property byte (pb * 5 + lp) * 9 + lc, then the dictionary size. */
    unsigned b = src[4];
    if (b >= 9 * 5 * 5)
        return pak_fail(err, BSPKIT_ERR_COMPRESSION, "entry '%s': invalid LZMA properties", it->name);
    lzma_options_lzma opt;
    memset(&opt, 0, sizeof opt);
    opt.lc = b % 9;
    opt.lp = (b / 9) % 5;
    opt.pb = b / 45;
    opt.dict_size = rd_le32(src + 5);
    /* The dictionary never needs to exceed the output; a hostile size would
     * otherwise make liblzma allocate it. */
    uint32_t cap = bk_lzma_dict_cap(size);
    if (opt.dict_size > cap || opt.dict_size < LZMA_DICT_SIZE_MIN)
        opt.dict_size = cap;
    /* Valve writes no end marker, others (flag bit 1) do: accept either
     * after exactly `size` bytes. */
    opt.ext_flags = LZMA_LZMA1EXT_ALLOW_EOPM;
    lzma_set_ext_size(opt, (uint64_t)size);
    lzma_filter filters[2] = {{.id = LZMA_FILTER_LZMA1EXT, .options = &opt}, {.id = LZMA_VLI_UNKNOWN, .options = NULL}};
    lzma_stream strm = LZMA_STREAM_INIT;
    lzma_ret ret = lzma_raw_decoder(&strm, filters);
    if (ret != LZMA_OK)
        return pak_fail(err, ret == LZMA_MEM_ERROR ? BSPKIT_ERR_NOMEM : BSPKIT_ERR_COMPRESSION,
                        "entry '%s': cannot start the LZMA decoder (liblzma code %d)", it->name, (int)ret);
    strm.next_in = src + ZIP_LZMA_HEADER;
    strm.avail_in = n - ZIP_LZMA_HEADER;
    strm.next_out = dst;
    strm.avail_out = size;
    ret = bk_lzma_pump(&strm, LZMA_FINISH, false);
    uint64_t produced = strm.total_out, consumed = strm.total_in;
    lzma_end(&strm);
    if (ret != LZMA_STREAM_END || produced != size)
        return pak_fail(err, BSPKIT_ERR_COMPRESSION,
                        "entry '%s': corrupt LZMA data near compressed byte %llu (%llu of %zu bytes decoded)",
                        it->name, (unsigned long long)consumed, (unsigned long long)produced, size);
    return BSPKIT_OK;
}

/* Compresses as Valve's zip writer does: SDK version, properties size,
 * properties, raw LZMA1 without an end marker. *out stays NULL when the
 * result would not be smaller than the input. */
bspkit_result pak_lzma_entry_encode(const char *name, const uint8_t *src, size_t size, uint8_t **out,
                                       size_t *out_size, bspkit_error *err)
{
    *out = NULL;
    *out_size = 0;
    if (size <= ZIP_LZMA_HEADER)
        return BSPKIT_OK;
    lzma_options_lzma opt;
    if (lzma_lzma_preset(&opt, LZMA_PRESET_DEFAULT))
        return pak_fail(err, BSPKIT_ERR_COMPRESSION, "entry '%s': LZMA preset unavailable", name);
    /* The engine allocates the dictionary for every open compressed file,
     * so it is no larger than the entry needs. */
    opt.dict_size = bk_lzma_dict_for_input(size, opt.dict_size);
    opt.ext_flags = 0;
    lzma_filter filters[2] = {{.id = LZMA_FILTER_LZMA1EXT, .options = &opt}, {.id = LZMA_VLI_UNKNOWN, .options = NULL}};

    /* Room for no more than the input: anything longer is stored instead. */
    uint8_t *buf = malloc(size);
    if (!buf)
        return pak_no_memory(err);
    buf[0] = 9; /* LZMA SDK version 9.20, the format liblzma follows */
    buf[1] = 20;
    wr_le16(buf + 2, ZIP_LZMA_PROPS);
    buf[4] = (uint8_t)((opt.pb * 5 + opt.lp) * 9 + opt.lc);
    wr_le32(buf + 5, opt.dict_size);
    size_t pos = 0;
    lzma_ret ret = lzma_raw_buffer_encode(filters, NULL, src, size, buf + ZIP_LZMA_HEADER, &pos,
                                          size - ZIP_LZMA_HEADER);
    if (ret == LZMA_BUF_ERROR) {
        free(buf);
        return BSPKIT_OK;
    }
    if (ret != LZMA_OK) {
        free(buf);
        return pak_fail(err, ret == LZMA_MEM_ERROR ? BSPKIT_ERR_NOMEM : BSPKIT_ERR_COMPRESSION,
                        "entry '%s': LZMA compression failed (liblzma code %d)", name, (int)ret);
    }
    if (ZIP_LZMA_HEADER + pos >= size) {
        free(buf);
        return BSPKIT_OK;
    }
    *out = buf;
    *out_size = ZIP_LZMA_HEADER + pos;
    return BSPKIT_OK;
}
