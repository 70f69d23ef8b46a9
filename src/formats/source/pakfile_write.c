/* Writing the PAKFILE zip through libzip, as Valve's writers lay it out. */
#include "pakfile_internal.h"

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
            if (pak_read_item(s->ws->p, s->it, &s->owned, &s->data_size, &e) != BSPKIT_OK) {
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
        return pak_no_memory(err);
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
        if (pak_read_item(p, it, &check, &check_size, err) != BSPKIT_OK)
            return NULL;
        free(check);
        zip_source_t *zs = zip_source_zip(zo, p->za, (zip_uint64_t)it->zindex, ZIP_FL_COMPRESSED, 0, -1);
        if (!zs)
            pak_fail(err, BSPKIT_ERR_COMPRESSION, "entry '%s': %s", it->name, zip_strerror(zo));
        return zs;
    }

    entry_source *s = calloc(1, sizeof *s);
    if (!s) {
        pak_no_memory(err);
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
            if (pak_read_item(p, it, &plain, &plain_size, err) != BSPKIT_OK) {
                free(s);
                return NULL;
            }
            src = plain;
        }
        bspkit_result r = pak_lzma_entry_encode(it->name, src, (size_t)it->size, &s->packed, &s->packed_size, err);
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
        return pak_no_memory(err);
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
        return pak_no_memory(err);
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
