/* The Source PAKFILE lump: a zip archive read and written through libzip.
 *
 * Reading: libzip lists the entries and inflates deflated ones. LZMA
 * entries (method 14, written by CS:GO-era bspzip) are decoded here with
 * liblzma, because the distribution libzip is commonly built without it:
 * the raw entry is a 2-byte LZMA SDK version, a 2-byte properties size (5),
 * the 5 property bytes and a raw LZMA1 stream, with an end marker only when
 * general-purpose flag bit 1 says so. Every entry is checked against its
 * CRC-32 here, whoever decompressed it.
 *
 * Writing: a new archive is assembled with libzip. Entries kept as they
 * were are copied raw (zip_source_zip with ZIP_FL_COMPRESSED, which keeps
 * the method, flags and time); LZMA entries made here are handed to libzip
 * already compressed through a source whose stat reports method 14 with
 * both sizes and the CRC, which libzip then copies without touching (it
 * only recompresses when the reported method differs from the entry's).
 * Entries added through sources carry no extra fields, and libzip writes
 * neither data descriptors (its output is seekable) nor zip64 records while
 * sizes and counts fit in 32/16 bits: together what Valve's reader, which
 * locates data from the central directory alone, needs. */
#include "bspkit/pak.h"

#include "core/bytes.h"
#include "core/map.h"
#include "core/glob.h"

#include <lzma.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#define PAK_LUMP BSPKIT_S_PAKFILE
#define PAK_DEFAULT_MAX_ENTRY (256ull << 20)
#define PAK_MAX_ENTRIES 65535u   /* the end record's 16-bit count: more needs zip64 */
#define PAK_NAME_LIMIT 260u      /* the engine copies names into char[MAX_PATH] */

#define ZIP_EOCD_SIZE 22u
#define ZIP_CDH_SIZE 46u
#define ZIP_LFH_SIZE 30u
#define ZIP_SIG_EOCD 0x06054b50u
#define ZIP_SIG_CDH 0x02014b50u
#define ZIP_SIG_LFH 0x04034b50u
#define ZIP_FLAG_ENCRYPTED 0x0001u

/* The zip LZMA header: SDK version (2), properties size (2), properties (5). */
#define ZIP_LZMA_HEADER 9u
#define ZIP_LZMA_PROPS 5u

typedef struct pak_item {
    char *name;
    uint64_t size, comp_size;
    uint16_t method, flags;
    uint32_t crc;
    time_t mtime;
    bool has_mtime;
    bool engine_ok;
    zip_int64_t zindex; /* entry of the opened archive, or -1 for added bytes */
    uint8_t *data;      /* added entries: the uncompressed bytes */
} pak_item;

struct bspkit_pak {
    uint8_t *bytes; /* the archive libzip reads (normalised when it was XZP2) */
    size_t size;
    zip_t *za;      /* NULL for an empty archive */
    char *comment;  /* raw archive comment kept for writing, or NULL */
    size_t comment_len;
    pak_item *items;
    size_t count, cap;
    uint64_t max_entry;
};

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

static bspkit_result pak_fail(bspkit_error *err, bspkit_result code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static bspkit_result pak_fail(bspkit_error *err, bspkit_result code, const char *fmt, ...)
{
    char msg[sizeof err->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return bk_fail(err, code, PAK_LUMP, -1, -1, "PAKFILE: %s", msg);
}

static bspkit_result no_memory(bspkit_error *err)
{
    return pak_fail(err, BSPKIT_ERR_NOMEM, "out of memory");
}

/* ------------------------------------------------------------------------ */
/* Names                                                                     */
/* ------------------------------------------------------------------------ */

/* Source compares names case-blind with either slash. */
static int name_fold(int c)
{
    if (c == '\\')
        return '/';
    return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

/* The next path component at *s, skipping empty and "." ones as the
 * engine's path cleanup does; NULL at the end. */
static const char *next_component(const char **s, size_t *len)
{
    const char *p = *s;
    for (;;) {
        while (*p == '/' || *p == '\\')
            p++;
        if (*p == '\0') {
            *s = p;
            return NULL;
        }
        const char *start = p;
        while (*p && *p != '/' && *p != '\\')
            p++;
        if (p - start == 1 && start[0] == '.')
            continue;
        *s = p;
        *len = (size_t)(p - start);
        return start;
    }
}

static bool name_equal(const char *a, const char *b)
{
    for (;;) {
        size_t la = 0, lb = 0;
        const char *ca = next_component(&a, &la), *cb = next_component(&b, &lb);
        if (!ca || !cb)
            return !ca && !cb;
        if (la != lb)
            return false;
        for (size_t i = 0; i < la; i++)
            if (name_fold((unsigned char)ca[i]) != name_fold((unsigned char)cb[i]))
                return false;
    }
}

bspkit_result bspkit_pak_safe_path(const char *name, char **out, bspkit_error *err)
{
    if (out)
        *out = NULL;
    if (!name || !out)
        return pak_fail(err, BSPKIT_ERR_ARGUMENT, "safe_path: NULL argument");
    size_t len = strlen(name);
    if (len == 0)
        return pak_fail(err, BSPKIT_ERR_ARGUMENT, "empty entry name");
    if (name[0] == '/' || name[0] == '\\')
        return pak_fail(err, BSPKIT_ERR_ARGUMENT, "'%s' is an absolute path", name);
    if (((name[0] >= 'A' && name[0] <= 'Z') || (name[0] >= 'a' && name[0] <= 'z')) && name[1] == ':')
        return pak_fail(err, BSPKIT_ERR_ARGUMENT, "'%s' names a drive", name);

    char *buf = malloc(len + 1);
    if (!buf)
        return no_memory(err);
    size_t w = 0;
    const char *p = name;
    while (*p) {
        const char *start = p;
        while (*p && *p != '/' && *p != '\\')
            p++;
        size_t clen = (size_t)(p - start);
        if (*p)
            p++;
        if (clen == 0 || (clen == 1 && start[0] == '.'))
            continue;
        if (clen == 2 && start[0] == '.' && start[1] == '.') {
            free(buf);
            return pak_fail(err, BSPKIT_ERR_ARGUMENT, "'%s' leads out of its directory (\"..\")", name);
        }
        for (size_t i = 0; i < clen; i++) {
            unsigned char c = (unsigned char)start[i];
            if (c < 0x20 || c == 0x7f) {
                free(buf);
                return pak_fail(err, BSPKIT_ERR_ARGUMENT, "entry name holds control character 0x%02x", c);
            }
        }
        if (w > 0)
            buf[w++] = '/';
        memcpy(buf + w, start, clen);
        w += clen;
    }
    if (w == 0) {
        free(buf);
        return pak_fail(err, BSPKIT_ERR_ARGUMENT, "'%s' names no file", name);
    }
    if (name[len - 1] == '/' || name[len - 1] == '\\')
        buf[w++] = '/';
    buf[w] = '\0';
    *out = buf;
    return BSPKIT_OK;
}

bool bspkit_pak_glob_match(const char *glob, const char *name)
{
    return bk_glob_match(glob, name, BK_GLOB_FOLD_CASE | BK_GLOB_PATH);
}

const char *bspkit_pak_method_name(uint16_t method)
{
    switch (method) {
    case 0: return "store";
    case 1: return "shrink";
    case 6: return "implode";
    case 8: return "deflate";
    case 9: return "deflate64";
    case 12: return "bzip2";
    case 14: return "lzma";
    case 93: return "zstd";
    case 95: return "xz";
    case 98: return "ppmd";
    case 99: return "aes";
    default: return NULL;
    }
}

/* ------------------------------------------------------------------------ */
/* The raw central directory                                                 */
/* ------------------------------------------------------------------------ */

typedef struct zip_end {
    size_t pos;
    uint16_t entries;
    uint32_t cd_size, cd_offset;
    uint16_t comment_len;
} zip_end;

typedef struct zip_cd_entry {
    uint16_t flags, method, name_len, extra_len, comment_len;
    uint32_t local_offset;
    const uint8_t *name;
} zip_cd_entry;

/* The end record, searched backwards from the end as the engine does. */
static bool find_end(const uint8_t *z, size_t n, zip_end *e)
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
static bool comment_is_xzp2(const uint8_t *c, size_t len)
{
    return len >= 4 && (c[0] == 'X' || c[0] == 'x') && (c[1] == 'Z' || c[1] == 'z') && (c[2] == 'P' || c[2] == 'p') &&
           c[3] == '2';
}

static bool holds_end_signature(const uint8_t *c, size_t len)
{
    for (size_t i = 0; i + 4 <= len; i++)
        if (rd_le32(c + i) == ZIP_SIG_EOCD)
            return true;
    return false;
}

static bool is_xzp2(const uint8_t *z, const zip_end *e)
{
    return comment_is_xzp2(z + e->pos + ZIP_EOCD_SIZE, e->comment_len);
}

/* Reads the central header at *pos; `compact` skips no extra/comment bytes. */
static bool cd_next(const uint8_t *z, size_t n, size_t *pos, bool compact, zip_cd_entry *e)
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
static bool cd_engine_ok(const uint8_t *z, size_t n, const zip_cd_entry *e)
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
static bspkit_result normalise_xzp2(uint8_t **bytes, size_t *size, const zip_end *e, bspkit_error *err)
{
    const uint8_t *z = *bytes;
    if (e->cd_offset > e->pos)
        return pak_fail(err, BSPKIT_ERR_UNKNOWN_FORMAT, "central directory offset %u lies outside the archive",
                        e->cd_offset);
    size_t pos = e->cd_offset, cd_size = 0;
    zip_cd_entry ce;
    for (unsigned i = 0; i < e->entries; i++) {
        if (!cd_next(z, e->pos, &pos, true, &ce))
            return pak_fail(err, BSPKIT_ERR_UNKNOWN_FORMAT, "XZP2 central directory entry %u is damaged", i);
        cd_size += ZIP_CDH_SIZE + ce.name_len;
    }
    size_t out_size = (size_t)e->cd_offset + cd_size + ZIP_EOCD_SIZE + e->comment_len;
    uint8_t *o = malloc(out_size);
    if (!o)
        return no_memory(err);
    memcpy(o, z, e->cd_offset);
    size_t w = e->cd_offset;
    pos = e->cd_offset;
    for (unsigned i = 0; i < e->entries; i++) {
        size_t start = pos;
        cd_next(z, e->pos, &pos, true, &ce);
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

static bspkit_result lzma_entry_decode(const pak_item *it, const uint8_t *src, size_t n, uint8_t *dst,
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
static bspkit_result lzma_entry_encode(const char *name, const uint8_t *src, size_t size, uint8_t **out,
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
        return no_memory(err);
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

/* ------------------------------------------------------------------------ */
/* Opening                                                                   */
/* ------------------------------------------------------------------------ */

static void item_clear(pak_item *it)
{
    free(it->name);
    free(it->data);
    memset(it, 0, sizeof *it);
}

void bspkit_pak_free(bspkit_pak *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->count; i++)
        item_clear(&p->items[i]);
    free(p->items);
    if (p->za)
        zip_discard(p->za); /* also frees the buffer source over p->bytes */
    free(p->bytes);
    free(p->comment);
    free(p);
}

static bool items_reserve(bspkit_pak *p, size_t n)
{
    if (n <= p->cap)
        return true;
    size_t cap = p->cap ? p->cap : 16;
    while (cap < n)
        cap *= 2;
    pak_item *grown = realloc(p->items, cap * sizeof *grown);
    if (!grown)
        return false;
    p->items = grown;
    p->cap = cap;
    return true;
}

static bspkit_result libzip_open_failed(bspkit_error *err, zip_error_t *ze)
{
    bspkit_result r = pak_fail(err, zip_error_code_zip(ze) == ZIP_ER_MEMORY ? BSPKIT_ERR_NOMEM
                                                                          : BSPKIT_ERR_UNKNOWN_FORMAT,
                               "not a readable zip archive: %s", zip_error_strerror(ze));
    zip_error_fini(ze);
    return r;
}

/* Fills the items from libzip's directory, adding the flags and the engine
 * check from the raw central directory when both list the same names. */
static bspkit_result load_items(bspkit_pak *p, const uint8_t *raw, size_t raw_size, const zip_end *end,
                                bool compact, bspkit_error *err)
{
    zip_int64_t n = zip_get_num_entries(p->za, 0);
    /* Every central header takes 46 bytes: a larger count is not believed. */
    if (n < 0 || (uint64_t)n > raw_size / ZIP_CDH_SIZE)
        return pak_fail(err, BSPKIT_ERR_UNKNOWN_FORMAT, "cannot count the archive's entries");
    if (!items_reserve(p, (size_t)n))
        return no_memory(err);
    size_t cd_pos = end->cd_offset;
    bool cd_ok = end->cd_offset <= end->pos;
    for (zip_int64_t i = 0; i < n; i++) {
        zip_stat_t st;
        if (zip_stat_index(p->za, (zip_uint64_t)i, ZIP_FL_ENC_RAW, &st) != 0)
            return pak_fail(err, BSPKIT_ERR_UNKNOWN_FORMAT, "entry %lld: %s", (long long)i, zip_strerror(p->za));
        zip_uint64_t need = ZIP_STAT_NAME | ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD | ZIP_STAT_CRC;
        if ((st.valid & need) != need)
            return pak_fail(err, BSPKIT_ERR_UNKNOWN_FORMAT, "entry %lld: incomplete directory entry", (long long)i);
        pak_item *it = &p->items[p->count];
        memset(it, 0, sizeof *it);
        it->name = strdup(st.name);
        if (!it->name)
            return no_memory(err);
        p->count++;
        it->zindex = i;
        it->size = st.size;
        it->comp_size = st.comp_size;
        it->method = st.comp_method;
        it->crc = st.crc;
        if (st.valid & ZIP_STAT_MTIME) {
            it->mtime = st.mtime;
            it->has_mtime = true;
        }
        bool encrypted = (st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE;
        it->flags = encrypted ? ZIP_FLAG_ENCRYPTED : 0;
        it->engine_ok = (it->method == 0 || it->method == 14) && !encrypted && strlen(it->name) < PAK_NAME_LIMIT;

        zip_cd_entry ce;
        if (cd_ok && cd_next(raw, end->pos, &cd_pos, compact, &ce)) {
            if (ce.name_len == strlen(it->name) && memcmp(ce.name, it->name, ce.name_len) == 0) {
                it->flags = ce.flags;
                it->engine_ok = it->engine_ok && cd_engine_ok(raw, raw_size, &ce);
            }
        } else {
            cd_ok = false;
        }
    }
    return BSPKIT_OK;
}

bspkit_result bspkit_pak_open(const void *zip, size_t size, const bspkit_pak_options *opts, bspkit_pak **out,
                              bspkit_error *err)
{
    if (out)
        *out = NULL;
    if (!out || (size > 0 && !zip))
        return pak_fail(err, BSPKIT_ERR_ARGUMENT, "bspkit_pak_open: NULL argument");
    bspkit_pak *p = calloc(1, sizeof *p);
    if (!p)
        return no_memory(err);
    p->max_entry = opts && opts->max_entry_size ? opts->max_entry_size : PAK_DEFAULT_MAX_ENTRY;
    if (size == 0) {
        *out = p;
        return BSPKIT_OK;
    }

    const uint8_t *raw = zip;
    zip_end end;
    if (!find_end(raw, size, &end)) {
        bspkit_pak_free(p);
        return pak_fail(err, BSPKIT_ERR_UNKNOWN_FORMAT,
                        "not a zip archive (no end-of-central-directory record in %zu bytes)", size);
    }
    p->bytes = malloc(size);
    if (!p->bytes) {
        bspkit_pak_free(p);
        return no_memory(err);
    }
    memcpy(p->bytes, raw, size);
    p->size = size;
    bool xzp2 = is_xzp2(raw, &end);
    bspkit_result r;
    if (xzp2 && (r = normalise_xzp2(&p->bytes, &p->size, &end, err)) != BSPKIT_OK) {
        bspkit_pak_free(p);
        return r;
    }

    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_buffer_create(p->bytes, p->size, 0, &ze);
    if (!src) {
        bspkit_pak_free(p);
        return libzip_open_failed(err, &ze);
    }
    p->za = zip_open_from_source(src, ZIP_RDONLY, &ze);
    if (!p->za) {
        zip_source_free(src);
        bspkit_pak_free(p);
        return libzip_open_failed(err, &ze);
    }
    zip_error_fini(&ze);

    /* The comment is written back, but an XZP2 marker would tell a console
     * engine to misparse the ordinary central directory written here. */
    int clen = 0;
    const char *comment = zip_get_archive_comment(p->za, &clen, ZIP_FL_ENC_RAW);
    /* libzip may pick another end record than the scan above in a damaged
     * archive, so its comment is checked for the marker too; and a comment
     * holding an end-record signature would make readers that scan backwards
     * (the engine, this file) find a forged record in what is written. */
    if (comment && clen > 0 && !xzp2 && !comment_is_xzp2((const uint8_t *)comment, (size_t)clen) &&
        !holds_end_signature((const uint8_t *)comment, (size_t)clen)) {
        p->comment = malloc((size_t)clen);
        if (!p->comment) {
            bspkit_pak_free(p);
            return no_memory(err);
        }
        memcpy(p->comment, comment, (size_t)clen);
        p->comment_len = (size_t)clen;
    }

    /* The raw walk runs over the caller's bytes: in an XZP2 archive the
     * extra lengths there are the ones the engine uses. */
    if ((r = load_items(p, raw, size, &end, xzp2, err)) != BSPKIT_OK) {
        bspkit_pak_free(p);
        return r;
    }
    *out = p;
    return BSPKIT_OK;
}

size_t bspkit_pak_count(const bspkit_pak *p)
{
    return p ? p->count : 0;
}

bspkit_result bspkit_pak_entry_info(const bspkit_pak *p, size_t index, bspkit_pak_entry *out, bspkit_error *err)
{
    if (!p || !out)
        return pak_fail(err, BSPKIT_ERR_ARGUMENT, "bspkit_pak_entry_info: NULL argument");
    if (index >= p->count)
        return pak_fail(err, BSPKIT_ERR_ARGUMENT, "entry index %zu out of range (%zu entries)", index, p->count);
    const pak_item *it = &p->items[index];
    out->name = it->name;
    out->size = it->size;
    out->compressed_size = it->comp_size;
    out->method = it->method;
    out->flags = it->flags;
    out->crc32 = it->crc;
    out->added = it->zindex < 0;
    out->engine_readable = it->engine_ok;
    return BSPKIT_OK;
}

bspkit_result bspkit_pak_find(const bspkit_pak *p, const char *name, size_t *index, bspkit_error *err)
{
    if (!p || !name || !index)
        return pak_fail(err, BSPKIT_ERR_ARGUMENT, "bspkit_pak_find: NULL argument");
    for (size_t i = 0; i < p->count; i++) {
        if (name_equal(p->items[i].name, name)) {
            *index = i;
            return BSPKIT_OK;
        }
    }
    return pak_fail(err, BSPKIT_ERR_NOT_FOUND, "no entry named '%s'", name);
}

/* ------------------------------------------------------------------------ */
/* Reading                                                                   */
/* ------------------------------------------------------------------------ */

/* Reads exactly `want` bytes, then probes for one more: an entry that
 * decompresses past its declared size is refused instead of followed. */
static bspkit_result read_exact(zip_file_t *zf, const pak_item *it, uint8_t *dst, size_t want, bool probe,
                                bspkit_error *err)
{
    size_t got = 0;
    while (got < want) {
        zip_int64_t n = zip_fread(zf, dst + got, want - got);
        if (n < 0)
            return pak_fail(err, BSPKIT_ERR_COMPRESSION, "entry '%s': %s", it->name, zip_file_strerror(zf));
        if (n == 0)
            return pak_fail(err, BSPKIT_ERR_COMPRESSION, "entry '%s': data ends after %zu of %zu bytes", it->name,
                            got, want);
        got += (size_t)n;
    }
    if (probe) {
        uint8_t extra;
        zip_int64_t n = zip_fread(zf, &extra, 1);
        if (n < 0)
            return pak_fail(err, BSPKIT_ERR_COMPRESSION, "entry '%s': %s", it->name, zip_file_strerror(zf));
        if (n > 0)
            return pak_fail(err, BSPKIT_ERR_COMPRESSION, "entry '%s': data goes on past its declared %zu bytes",
                            it->name, want);
    }
    return BSPKIT_OK;
}

static bspkit_result read_item(bspkit_pak *p, const pak_item *it, uint8_t **out, size_t *out_size,
                               bspkit_error *err)
{
    *out = NULL;
    *out_size = 0;
    if (it->size > p->max_entry || it->size > (uint64_t)SIZE_MAX - 1)
        return pak_fail(err, BSPKIT_ERR_LIMIT, "entry '%s': %llu bytes is over the %llu-byte entry limit", it->name,
                        (unsigned long long)it->size, (unsigned long long)p->max_entry);
    size_t size = (size_t)it->size;
    if (it->zindex < 0) {
        uint8_t *copy = malloc(size ? size : 1);
        if (!copy)
            return no_memory(err);
        if (size)
            memcpy(copy, it->data, size);
        *out = copy;
        *out_size = size;
        return BSPKIT_OK;
    }
    if (it->flags & ZIP_FLAG_ENCRYPTED)
        return pak_fail(err, BSPKIT_ERR_UNSUPPORTED, "entry '%s' is encrypted", it->name);
    if (it->comp_size > p->size)
        return pak_fail(err, BSPKIT_ERR_COMPRESSION, "entry '%s': %llu compressed bytes in a %zu-byte archive",
                        it->name, (unsigned long long)it->comp_size, p->size);
    bool lzma = it->method == BSPKIT_PAK_METHOD_LZMA;
    if (!lzma && !zip_compression_method_supported((zip_int32_t)it->method, 0)) {
        const char *mname = bspkit_pak_method_name(it->method);
        return pak_fail(err, BSPKIT_ERR_UNSUPPORTED, "entry '%s': compression method %u (%s) is not supported",
                        it->name, it->method, mname ? mname : "unknown");
    }

    uint8_t *buf = malloc(size ? size : 1);
    if (!buf)
        return no_memory(err);
    bspkit_result r = BSPKIT_OK;
    zip_file_t *zf = zip_fopen_index(p->za, (zip_uint64_t)it->zindex, lzma ? ZIP_FL_COMPRESSED : 0);
    if (!zf) {
        r = pak_fail(err, BSPKIT_ERR_COMPRESSION, "entry '%s': %s", it->name, zip_strerror(p->za));
    } else if (lzma) {
        size_t packed = (size_t)it->comp_size;
        uint8_t *raw = malloc(packed ? packed : 1);
        if (!raw)
            r = no_memory(err);
        if (r == BSPKIT_OK)
            r = read_exact(zf, it, raw, packed, false, err);
        if (r == BSPKIT_OK)
            r = lzma_entry_decode(it, raw, packed, buf, size, err);
        free(raw);
    } else {
        r = read_exact(zf, it, buf, size, true, err);
    }
    if (zf)
        zip_fclose(zf);
    if (r == BSPKIT_OK) {
        uint32_t crc = bk_crc32(buf, size, 0);
        if (crc != it->crc)
            r = pak_fail(err, BSPKIT_ERR_COMPRESSION, "entry '%s': CRC-32 %08x, the directory says %08x", it->name,
                         (unsigned)crc, (unsigned)it->crc);
    }
    if (r != BSPKIT_OK) {
        free(buf);
        return r;
    }
    *out = buf;
    *out_size = size;
    return BSPKIT_OK;
}

bspkit_result bspkit_pak_read(bspkit_pak *p, size_t index, uint8_t **out, size_t *size, bspkit_error *err)
{
    if (out)
        *out = NULL;
    if (size)
        *size = 0;
    if (!p || !out || !size)
        return pak_fail(err, BSPKIT_ERR_ARGUMENT, "bspkit_pak_read: NULL argument");
    if (index >= p->count)
        return pak_fail(err, BSPKIT_ERR_ARGUMENT, "entry index %zu out of range (%zu entries)", index, p->count);
    return read_item(p, &p->items[index], out, size, err);
}

/* ------------------------------------------------------------------------ */
/* Changing                                                                  */
/* ------------------------------------------------------------------------ */

bspkit_result bspkit_pak_add(bspkit_pak *p, const char *name, const void *data, size_t size, bspkit_error *err)
{
    if (!p || !name || (size > 0 && !data))
        return pak_fail(err, BSPKIT_ERR_ARGUMENT, "bspkit_pak_add: NULL argument");
    if ((uint64_t)size > p->max_entry || (uint64_t)size > 0xFFFFFFFFu)
        return pak_fail(err, BSPKIT_ERR_LIMIT, "'%s': %zu bytes is over the %llu-byte entry limit", name, size,
                        (unsigned long long)(p->max_entry < 0xFFFFFFFFu ? p->max_entry : 0xFFFFFFFFu));
    char *clean = NULL;
    bspkit_result r = bspkit_pak_safe_path(name, &clean, err);
    if (r != BSPKIT_OK)
        return r;
    size_t len = strlen(clean);
    if (clean[len - 1] == '/') {
        free(clean);
        return pak_fail(err, BSPKIT_ERR_ARGUMENT, "'%s' names a directory, not a file", name);
    }
    if (len >= PAK_NAME_LIMIT) {
        free(clean);
        return pak_fail(err, BSPKIT_ERR_ARGUMENT, "'%s': names of %u bytes or more overflow the engine's buffer",
                        name, PAK_NAME_LIMIT);
    }
    for (size_t i = 0; i < len; i++)
        clean[i] = (char)name_fold((unsigned char)clean[i]);

    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) {
        free(clean);
        return no_memory(err);
    }
    if (size)
        memcpy(copy, data, size);

    /* The first entry of the name is replaced in place, later ones go. */
    size_t slot = SIZE_MAX, w = 0;
    for (size_t i = 0; i < p->count; i++) {
        if (name_equal(p->items[i].name, clean)) {
            if (slot == SIZE_MAX) {
                slot = w;
            } else {
                item_clear(&p->items[i]);
                continue;
            }
        }
        p->items[w++] = p->items[i];
    }
    p->count = w;
    if (slot == SIZE_MAX) {
        if (p->count >= PAK_MAX_ENTRIES || !items_reserve(p, p->count + 1)) {
            bool full = p->count >= PAK_MAX_ENTRIES;
            free(clean);
            free(copy);
            return full ? pak_fail(err, BSPKIT_ERR_LIMIT, "'%s': the archive already holds %u entries, the most a zip "
                                                          "without zip64 can",
                                   name, PAK_MAX_ENTRIES)
                        : no_memory(err);
        }
        slot = p->count++;
    } else {
        item_clear(&p->items[slot]);
    }
    pak_item *it = &p->items[slot];
    memset(it, 0, sizeof *it);
    it->name = clean;
    it->data = copy;
    it->size = size;
    it->comp_size = size;
    it->method = BSPKIT_PAK_METHOD_STORE;
    it->crc = bk_crc32(copy, size, 0);
    it->zindex = -1;
    it->engine_ok = true;
    return BSPKIT_OK;
}

bspkit_result bspkit_pak_remove(bspkit_pak *p, const char *glob, size_t *removed, bspkit_error *err)
{
    if (removed)
        *removed = 0;
    if (!p || !glob)
        return pak_fail(err, BSPKIT_ERR_ARGUMENT, "bspkit_pak_remove: NULL argument");
    size_t w = 0, gone = 0;
    for (size_t i = 0; i < p->count; i++) {
        if (bspkit_pak_glob_match(glob, p->items[i].name)) {
            item_clear(&p->items[i]);
            gone++;
            continue;
        }
        p->items[w++] = p->items[i];
    }
    p->count = w;
    if (removed)
        *removed = gone;
    return BSPKIT_OK;
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                   */
/* ------------------------------------------------------------------------ */

/* The first failure inside a libzip callback, reported after zip_close. */
typedef struct write_state {
    bspkit_pak *p;
    bool failed;
    bspkit_error error;
} write_state;

/* One entry handed to libzip: stored bytes fetched when libzip opens it
 * (so only one entry's data is in memory at a time), or LZMA bytes
 * compressed beforehand. */
typedef struct entry_source {
    write_state *ws;
    const pak_item *it;
    uint16_t method;
    uint8_t *packed;
    size_t packed_size;
    const uint8_t *data;
    uint8_t *owned;
    size_t data_size, pos;
    zip_error_t zerr;
} entry_source;

static void entry_source_release(entry_source *s)
{
    free(s->owned);
    s->owned = NULL;
    s->data = NULL;
    s->data_size = 0;
}

static zip_int64_t entry_source_cb(void *userdata, void *data, zip_uint64_t len, zip_source_cmd_t cmd)
{
    entry_source *s = userdata;
    switch (cmd) {
    case ZIP_SOURCE_OPEN:
        s->pos = 0;
        if (s->method == BSPKIT_PAK_METHOD_LZMA) {
            s->data = s->packed;
            s->data_size = s->packed_size;
        } else if (s->it->zindex < 0) {
            s->data = s->it->data;
            s->data_size = (size_t)s->it->size;
        } else {
            bspkit_error e;
            if (read_item(s->ws->p, s->it, &s->owned, &s->data_size, &e) != BSPKIT_OK) {
                if (!s->ws->failed) {
                    s->ws->failed = true;
                    s->ws->error = e;
                }
                zip_error_set(&s->zerr, ZIP_ER_READ, 0);
                return -1;
            }
            s->data = s->owned;
        }
        return 0;
    case ZIP_SOURCE_READ: {
        size_t left = s->data_size - s->pos;
        size_t n = len < left ? (size_t)len : left;
        if (n)
            memcpy(data, s->data + s->pos, n);
        s->pos += n;
        return (zip_int64_t)n;
    }
    case ZIP_SOURCE_CLOSE:
        entry_source_release(s);
        return 0;
    case ZIP_SOURCE_STAT: {
        if (len < sizeof(zip_stat_t)) {
            zip_error_set(&s->zerr, ZIP_ER_INVAL, 0);
            return -1;
        }
        zip_stat_t *st = data;
        zip_stat_init(st);
        st->valid = ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD | ZIP_STAT_CRC |
                    ZIP_STAT_ENCRYPTION_METHOD;
        st->size = s->it->size;
        st->comp_size = s->method == BSPKIT_PAK_METHOD_LZMA ? s->packed_size : s->it->size;
        st->comp_method = s->method;
        st->crc = s->it->crc;
        st->encryption_method = ZIP_EM_NONE;
        if (s->it->has_mtime) {
            st->valid |= ZIP_STAT_MTIME;
            st->mtime = s->it->mtime;
        }
        return sizeof(zip_stat_t);
    }
    case ZIP_SOURCE_ERROR:
        return zip_error_to_data(&s->zerr, data, len);
    case ZIP_SOURCE_FREE:
        entry_source_release(s);
        free(s->packed);
        zip_error_fini(&s->zerr);
        free(s);
        return 0;
    case ZIP_SOURCE_SUPPORTS:
        return zip_source_make_command_bitmap(ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE, ZIP_SOURCE_STAT,
                                              ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE, -1);
    default:
        zip_error_set(&s->zerr, ZIP_ER_OPNOTSUPP, 0);
        return -1;
    }
}

/* The end record alone, with the kept comment. */
static bspkit_result write_empty(const bspkit_pak *p, uint8_t **out, size_t *out_size, bspkit_error *err)
{
    size_t clen = p->comment_len <= 0xFFFF ? p->comment_len : 0;
    uint8_t *buf = calloc(1, ZIP_EOCD_SIZE + clen);
    if (!buf)
        return no_memory(err);
    wr_le32(buf, ZIP_SIG_EOCD);
    wr_le16(buf + 20, (uint16_t)clen);
    if (clen)
        memcpy(buf + ZIP_EOCD_SIZE, p->comment, clen);
    *out = buf;
    *out_size = ZIP_EOCD_SIZE + clen;
    return BSPKIT_OK;
}

/* Method an entry is written with. */
static uint16_t target_method(const pak_item *it, bspkit_pak_method method)
{
    switch (method) {
    case BSPKIT_PAK_LZMA:
        return it->size > 0 ? BSPKIT_PAK_METHOD_LZMA : BSPKIT_PAK_METHOD_STORE;
    case BSPKIT_PAK_STORE:
        return BSPKIT_PAK_METHOD_STORE;
    case BSPKIT_PAK_KEEP:
    default:
        return it->zindex >= 0 && it->method == BSPKIT_PAK_METHOD_LZMA ? BSPKIT_PAK_METHOD_LZMA
                                                                      : BSPKIT_PAK_METHOD_STORE;
    }
}

/* Builds the source for one entry, or NULL with `err` filled. */
static zip_source_t *entry_source_new(write_state *ws, zip_t *zo, const pak_item *it, uint16_t method,
                                      bspkit_error *err)
{
    bspkit_pak *p = ws->p;
    /* Kept as it was: checked, then copied raw. */
    if (it->zindex >= 0 && it->method == method) {
        uint8_t *check = NULL;
        size_t check_size = 0;
        if (read_item(p, it, &check, &check_size, err) != BSPKIT_OK)
            return NULL;
        free(check);
        zip_source_t *zs = zip_source_zip(zo, p->za, (zip_uint64_t)it->zindex, ZIP_FL_COMPRESSED, 0, -1);
        if (!zs)
            pak_fail(err, BSPKIT_ERR_COMPRESSION, "entry '%s': %s", it->name, zip_strerror(zo));
        return zs;
    }

    entry_source *s = calloc(1, sizeof *s);
    if (!s) {
        no_memory(err);
        return NULL;
    }
    s->ws = ws;
    s->it = it;
    s->method = BSPKIT_PAK_METHOD_STORE;
    zip_error_init(&s->zerr);
    if (method == BSPKIT_PAK_METHOD_LZMA) {
        uint8_t *plain = NULL;
        size_t plain_size = 0;
        const uint8_t *src = it->data;
        if (it->zindex >= 0) {
            if (read_item(p, it, &plain, &plain_size, err) != BSPKIT_OK) {
                free(s);
                return NULL;
            }
            src = plain;
        }
        bspkit_result r = lzma_entry_encode(it->name, src, (size_t)it->size, &s->packed, &s->packed_size, err);
        free(plain);
        if (r != BSPKIT_OK) {
            free(s);
            return NULL;
        }
        if (s->packed)
            s->method = BSPKIT_PAK_METHOD_LZMA;
    }
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *zs = zip_source_function_create(entry_source_cb, s, &ze);
    if (!zs) {
        pak_fail(err, BSPKIT_ERR_NOMEM, "entry '%s': %s", it->name, zip_error_strerror(&ze));
        zip_error_fini(&ze);
        free(s->packed);
        free(s);
        return NULL;
    }
    zip_error_fini(&ze);
    return zs;
}

/* Adds every entry to `zo`; first failure wins. */
static bspkit_result add_entries(write_state *ws, zip_t *zo, bspkit_pak_method method, bspkit_error *err)
{
    bspkit_pak *p = ws->p;
    for (size_t i = 0; i < p->count; i++) {
        const pak_item *it = &p->items[i];
        uint16_t m = target_method(it, method);
        zip_source_t *zs = entry_source_new(ws, zo, it, m, err);
        if (!zs)
            return err ? err->code : BSPKIT_ERR_COMPRESSION;
        zip_int64_t idx = zip_file_add(zo, it->name, zs, ZIP_FL_ENC_GUESS);
        if (idx < 0) {
            zip_source_free(zs);
            if (zip_error_code_zip(zip_get_error(zo)) == ZIP_ER_EXISTS) {
                zip_error_clear(zo);
                continue; /* a duplicate name: the first one stands */
            }
            return pak_fail(err, BSPKIT_ERR_ARGUMENT, "entry '%s': %s", it->name, zip_strerror(zo));
        }
        /* Stored sources would otherwise be deflated by default. */
        zip_stat_t st;
        bool stored = zip_source_stat(zs, &st) == 0 && (st.valid & ZIP_STAT_COMP_METHOD) &&
                      st.comp_method == ZIP_CM_STORE;
        if (stored && zip_set_file_compression(zo, (zip_uint64_t)idx, ZIP_CM_STORE, 0) != 0)
            return pak_fail(err, BSPKIT_ERR_COMPRESSION, "entry '%s': %s", it->name, zip_strerror(zo));
        /* 1980-01-01 00:00, the first DOS date: reproducible output. */
        if (it->zindex < 0 && zip_file_set_dostime(zo, (zip_uint64_t)idx, 0, (1 << 5) | 1, 0) != 0)
            return pak_fail(err, BSPKIT_ERR_ARGUMENT, "entry '%s': %s", it->name, zip_strerror(zo));
    }
    return BSPKIT_OK;
}

/* Copies the finished archive out of libzip's buffer source, appending the
 * kept comment. libzip refuses comments holding NUL bytes, and Valve pads
 * its "XZP1 0" to 32 bytes with them, so the comment goes in here: the end
 * record libzip wrote has none and ends the buffer. */
static bspkit_result take_output(const bspkit_pak *p, zip_source_t *buf, uint8_t **out, size_t *out_size,
                                 bspkit_error *err)
{
    zip_stat_t st;
    if (zip_source_stat(buf, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
        return pak_fail(err, BSPKIT_ERR_IO, "cannot size the written archive");
    if (st.size > 0xFFFFFFFFu)
        return pak_fail(err, BSPKIT_ERR_LIMIT, "the archive would be %llu bytes; a lump holds at most 4 GiB - 1",
                        (unsigned long long)st.size);
    size_t n = (size_t)st.size;
    size_t clen = p->comment_len <= 0xFFFF ? p->comment_len : 0;
    if (n < ZIP_EOCD_SIZE || n + clen > 0xFFFFFFFFu)
        return pak_fail(err, BSPKIT_ERR_LIMIT, "the archive would be %zu bytes; a lump holds at most 4 GiB - 1",
                        n + clen);
    uint8_t *o = malloc(n + clen);
    if (!o)
        return no_memory(err);
    if (zip_source_open(buf) != 0) {
        free(o);
        return pak_fail(err, BSPKIT_ERR_IO, "cannot read the written archive: %s",
                        zip_error_strerror(zip_source_error(buf)));
    }
    zip_int64_t got = zip_source_read(buf, o, n);
    zip_source_close(buf);
    if (got < 0 || (size_t)got != n || rd_le32(o + n - ZIP_EOCD_SIZE) != ZIP_SIG_EOCD ||
        rd_le16(o + n - 2) != 0) {
        free(o);
        return pak_fail(err, BSPKIT_ERR_IO, "cannot read the written archive");
    }
    if (clen) {
        wr_le16(o + n - 2, (uint16_t)clen);
        memcpy(o + n, p->comment, clen);
    }
    *out = o;
    *out_size = n + clen;
    return BSPKIT_OK;
}

bspkit_result bspkit_pak_write(bspkit_pak *p, bspkit_pak_method method, uint8_t **out, size_t *size,
                               bspkit_error *err)
{
    if (out)
        *out = NULL;
    if (size)
        *size = 0;
    if (!p || !out || !size)
        return pak_fail(err, BSPKIT_ERR_ARGUMENT, "bspkit_pak_write: NULL argument");
    if (method != BSPKIT_PAK_KEEP && method != BSPKIT_PAK_STORE && method != BSPKIT_PAK_LZMA)
        return pak_fail(err, BSPKIT_ERR_ARGUMENT, "unknown write method %d", (int)method);
    if (p->count > PAK_MAX_ENTRIES)
        return pak_fail(err, BSPKIT_ERR_LIMIT, "%zu entries; a zip without zip64 holds at most %u", p->count,
                        PAK_MAX_ENTRIES);
    if (p->count == 0)
        return write_empty(p, out, size, err);

    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *buf = zip_source_buffer_create(NULL, 0, 0, &ze);
    if (!buf) {
        zip_error_fini(&ze);
        return no_memory(err);
    }
    zip_source_keep(buf); /* zip_close() would free it with the archive */
    zip_t *zo = zip_open_from_source(buf, ZIP_TRUNCATE, &ze);
    if (!zo) {
        bspkit_result r = pak_fail(err, BSPKIT_ERR_IO, "cannot start a new archive: %s", zip_error_strerror(&ze));
        zip_error_fini(&ze);
        zip_source_free(buf);
        zip_source_free(buf);
        return r;
    }
    zip_error_fini(&ze);

    write_state ws;
    memset(&ws, 0, sizeof ws);
    ws.p = p;
    bspkit_result r = add_entries(&ws, zo, method, err);
    if (r != BSPKIT_OK) {
        zip_discard(zo);
        zip_source_free(buf);
        return r;
    }
    if (zip_close(zo) != 0) {
        if (ws.failed) {
            bk_error_copy(err, &ws.error);
            r = ws.error.code;
        } else {
            r = pak_fail(err, BSPKIT_ERR_IO, "writing the archive failed: %s", zip_strerror(zo));
        }
        zip_discard(zo);
        zip_source_free(buf);
        return r;
    }
    r = take_output(p, buf, out, size, err);
    zip_source_free(buf);
    return r;
}
