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
#include "pakfile_internal.h"

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

bspkit_result pak_fail(bspkit_error *err, bspkit_result code, const char *fmt, ...)
{
    char msg[sizeof err->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return bk_fail(err, code, PAK_LUMP, -1, -1, "PAKFILE: %s", msg);
}

bspkit_result pak_no_memory(bspkit_error *err)
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
        return pak_no_memory(err);
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
/* Opening                                                                   */
/* ------------------------------------------------------------------------ */

static void item_clear(pak_item *it)
{
    free(it->name);
    free(it->data);
    memset(it, 0, sizeof *it);
}

void bspkit_pak_close(bspkit_pak *p)
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
        return pak_no_memory(err);
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
            return pak_no_memory(err);
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
        if (cd_ok && pak_cd_next(raw, end->pos, &cd_pos, compact, &ce)) {
            if (ce.name_len == strlen(it->name) && memcmp(ce.name, it->name, ce.name_len) == 0) {
                it->flags = ce.flags;
                it->engine_ok = it->engine_ok && pak_cd_engine_ok(raw, raw_size, &ce);
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
    bspkit_result lr = bk_zip_require(err); /* every later pak call may use libzip */
    if (lr != BSPKIT_OK)
        return lr;
    bspkit_pak *p = calloc(1, sizeof *p);
    if (!p)
        return pak_no_memory(err);
    p->max_entry = opts && opts->max_entry_size ? opts->max_entry_size : PAK_DEFAULT_MAX_ENTRY;
    if (size == 0) {
        *out = p;
        return BSPKIT_OK;
    }

    const uint8_t *raw = zip;
    zip_end end;
    if (!pak_find_end(raw, size, &end)) {
        bspkit_pak_close(p);
        return pak_fail(err, BSPKIT_ERR_UNKNOWN_FORMAT,
                        "not a zip archive (no end-of-central-directory record in %zu bytes)", size);
    }
    p->bytes = malloc(size);
    if (!p->bytes) {
        bspkit_pak_close(p);
        return pak_no_memory(err);
    }
    memcpy(p->bytes, raw, size);
    p->size = size;
    bool xzp2 = pak_is_xzp2(raw, &end);
    bspkit_result r;
    if (xzp2 && (r = pak_normalise_xzp2(&p->bytes, &p->size, &end, err)) != BSPKIT_OK) {
        bspkit_pak_close(p);
        return r;
    }

    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_buffer_create(p->bytes, p->size, 0, &ze);
    if (!src) {
        bspkit_pak_close(p);
        return libzip_open_failed(err, &ze);
    }
    p->za = zip_open_from_source(src, ZIP_RDONLY, &ze);
    if (!p->za) {
        zip_source_free(src);
        bspkit_pak_close(p);
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
    if (comment && clen > 0 && !xzp2 && !pak_comment_is_xzp2((const uint8_t *)comment, (size_t)clen) &&
        !pak_holds_end_signature((const uint8_t *)comment, (size_t)clen)) {
        p->comment = malloc((size_t)clen);
        if (!p->comment) {
            bspkit_pak_close(p);
            return pak_no_memory(err);
        }
        memcpy(p->comment, comment, (size_t)clen);
        p->comment_len = (size_t)clen;
    }

    /* The raw walk runs over the caller's bytes: in an XZP2 archive the
     * extra lengths there are the ones the engine uses. */
    if ((r = load_items(p, raw, size, &end, xzp2, err)) != BSPKIT_OK) {
        bspkit_pak_close(p);
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

bspkit_result pak_read_item(bspkit_pak *p, const pak_item *it, uint8_t **out, size_t *out_size,
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
            return pak_no_memory(err);
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
        return pak_no_memory(err);
    bspkit_result r = BSPKIT_OK;
    zip_file_t *zf = zip_fopen_index(p->za, (zip_uint64_t)it->zindex, lzma ? ZIP_FL_COMPRESSED : 0);
    if (!zf) {
        r = pak_fail(err, BSPKIT_ERR_COMPRESSION, "entry '%s': %s", it->name, zip_strerror(p->za));
    } else if (lzma) {
        size_t packed = (size_t)it->comp_size;
        uint8_t *raw = malloc(packed ? packed : 1);
        if (!raw)
            r = pak_no_memory(err);
        if (r == BSPKIT_OK)
            r = read_exact(zf, it, raw, packed, false, err);
        if (r == BSPKIT_OK)
            r = pak_lzma_entry_decode(it, raw, packed, buf, size, err);
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
    return pak_read_item(p, &p->items[index], out, size, err);
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
        return pak_no_memory(err);
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
                        : pak_no_memory(err);
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

/* Former name, kept for programs built against earlier releases. */
void bspkit_pak_free(bspkit_pak *p)
{
    bspkit_pak_close(p);
}
