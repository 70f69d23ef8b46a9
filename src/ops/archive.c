/* GMA and VPK directories, bzip2/gzip streams, and mapping whole files. */
#include "ops/archive.h"

#include "core/ascii.h"
#include "core/bytes.h"
#include "core/grow.h"
#include "core/map.h"

#include <bzlib.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

void bk_arc_list_free(bk_arc_list *list)
{
    if (!list)
        return;
    for (size_t i = 0; i < list->count; i++)
        free(list->entries[i].name);
    free(list->entries);
    list->entries = NULL;
    list->count = 0;
}

/* A NUL-terminated string at *pos, which must end before `size`. */
static bool read_cstring(const uint8_t *data, size_t size, size_t *pos, const char **out, size_t *len)
{
    if (*pos >= size)
        return false;
    const uint8_t *nul = memchr(data + *pos, 0, size - *pos);
    if (!nul)
        return false;
    *out = (const char *)data + *pos;
    *len = (size_t)(nul - (data + *pos));
    *pos += *len + 1;
    return true;
}

static bool append_entry(bk_arc_list *list, size_t *cap, const bk_arc_entry *e)
{
    if (!bk_grow((void **)&list->entries, cap, list->count + 1, sizeof *list->entries))
        return false;
    list->entries[list->count++] = *e;
    return true;
}

/* ---- Garry's Mod addon --------------------------------------------------- */
/* "GMAD", u8 version, u64 SteamID, u64 time, (version > 1: strings up to an
 * empty one), name, description, author, i32 addon version, then entries
 * {u32 number (0 ends), name, i64 size, u32 crc} and the files' bytes in
 * entry order. */
bspkit_result bk_gma_list(const uint8_t *data, size_t size, bk_arc_list *out, bspkit_error *err)
{
    bk_error_clear(err);
    memset(out, 0, sizeof *out);
    if (size < 21 || memcmp(data, "GMAD", 4) != 0)
        return bk_fail(err, BSPKIT_ERR_UNKNOWN_FORMAT, -1, 0, -1, "gma: no GMAD header");
    unsigned version = data[4];
    if (version < 1 || version > 3)
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, 4, -1, "gma: version %u at offset 4", version);
    size_t pos = 21;
    const char *s;
    size_t len;
    if (version > 1) {
        do {
            if (!read_cstring(data, size, &pos, &s, &len))
                return bk_fail(err, BSPKIT_ERR_TRUNCATED, -1, (int64_t)pos, -1,
                               "gma: required-content list runs past the end at offset %zu", pos);
        } while (len > 0);
    }
    for (int i = 0; i < 3; i++)
        if (!read_cstring(data, size, &pos, &s, &len))
            return bk_fail(err, BSPKIT_ERR_TRUNCATED, -1, (int64_t)pos, -1,
                           "gma: addon description runs past the end at offset %zu", pos);
    if (size - pos < 4)
        return bk_fail(err, BSPKIT_ERR_TRUNCATED, -1, (int64_t)pos, -1, "gma: ends at offset %zu before the file list",
                       pos);
    pos += 4;

    size_t cap = 0;
    bspkit_result r = BSPKIT_OK;
    for (;;) {
        if (size - pos < 4) {
            r = bk_fail(err, BSPKIT_ERR_TRUNCATED, -1, (int64_t)pos, -1, "gma: file list ends at offset %zu", pos);
            break;
        }
        uint32_t number = rd_le32(data + pos);
        pos += 4;
        if (number == 0)
            break;
        size_t at = pos;
        if (!read_cstring(data, size, &pos, &s, &len) || size - pos < 12) {
            r = bk_fail(err, BSPKIT_ERR_TRUNCATED, -1, (int64_t)at, -1, "gma: file entry at offset %zu is cut off", at);
            break;
        }
        uint64_t fsize = rd_le64(data + pos);
        uint32_t crc = rd_le32(data + pos + 8);
        pos += 12;
        if (fsize > (uint64_t)INT64_MAX) {
            r = bk_fail(err, BSPKIT_ERR_LUMP_RANGE, -1, (int64_t)at, -1, "gma: file entry at offset %zu has a negative size",
                        at);
            break;
        }
        bk_arc_entry e = {.size = fsize, .crc = crc};
        e.name = strndup(s, len);
        if (!e.name || !append_entry(out, &cap, &e)) {
            free(e.name);
            r = bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "gma: out of memory");
            break;
        }
    }
    /* The files' bytes follow the list, one after the other. */
    uint64_t offset = pos;
    for (size_t i = 0; r == BSPKIT_OK && i < out->count; i++) {
        bk_arc_entry *e = &out->entries[i];
        if (e->size > size || offset > size - e->size) {
            r = bk_fail(err, BSPKIT_ERR_LUMP_RANGE, -1, (int64_t)offset, -1,
                        "gma: '%s' (%llu bytes at offset %llu) runs past the end of the file (%zu bytes)", e->name,
                        (unsigned long long)e->size, (unsigned long long)offset, size);
            break;
        }
        e->offset = offset;
        offset += e->size;
    }
    if (r != BSPKIT_OK)
        bk_arc_list_free(out);
    return r;
}

/* ---- Source VPK directory ------------------------------------------------ */
#define VPK_SIGNATURE 0x55aa1234u

/* "ext", "dir/sub" and "name" joined as dir/sub/name.ext; a single space
 * stands for an empty extension or directory. */
static char *vpk_name(const char *ext, size_t ext_len, const char *dir, size_t dir_len, const char *name,
                      size_t name_len)
{
    bool no_ext = ext_len == 1 && ext[0] == ' ';
    bool no_dir = dir_len == 1 && dir[0] == ' ';
    size_t total = (no_dir ? 0 : dir_len + 1) + name_len + (no_ext ? 0 : ext_len + 1) + 1;
    char *s = malloc(total);
    if (!s)
        return NULL;
    size_t n = 0;
    if (!no_dir) {
        memcpy(s, dir, dir_len);
        n = dir_len;
        s[n++] = '/';
    }
    memcpy(s + n, name, name_len);
    n += name_len;
    if (!no_ext) {
        s[n++] = '.';
        memcpy(s + n, ext, ext_len);
        n += ext_len;
    }
    s[n] = '\0';
    return s;
}

bspkit_result bk_vpk_list(const uint8_t *data, size_t size, bk_arc_list *out, bspkit_error *err)
{
    bk_error_clear(err);
    memset(out, 0, sizeof *out);
    if (size < 12 || rd_le32(data) != VPK_SIGNATURE)
        return bk_fail(err, BSPKIT_ERR_UNKNOWN_FORMAT, -1, 0, -1, "vpk: no VPK signature");
    uint32_t version = rd_le32(data + 4);
    size_t header = version == 1 ? 12 : version == 2 ? 28 : 0;
    if (header == 0)
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, 4, -1, "vpk: version %u at offset 4", (unsigned)version);
    if (size < header)
        return bk_fail(err, BSPKIT_ERR_TRUNCATED, -1, 0, -1, "vpk: header cut off (%zu bytes)", size);
    uint32_t tree_size = rd_le32(data + 8);
    if (tree_size > size - header)
        return bk_fail(err, BSPKIT_ERR_LUMP_RANGE, -1, 8, -1,
                       "vpk: directory tree of %u bytes runs past the end of the file (%zu bytes)", (unsigned)tree_size,
                       size);
    size_t end = header + tree_size; /* the tree's end; the embedded data starts here */
    size_t pos = header, cap = 0;
    const char *ext, *dir, *name;
    size_t ext_len, dir_len, name_len;
    bspkit_result r = BSPKIT_OK;

#define VPK_STRING(s, l)                                                                                          \
    if (!read_cstring(data, end, &pos, &s, &l)) {                                                              \
        r = bk_fail(err, BSPKIT_ERR_TRUNCATED, -1, (int64_t)pos, -1, "vpk: name at offset %zu runs past the tree", \
                    pos);                                                                                          \
        goto done;                                                                                                 \
    }
    for (;;) {
        VPK_STRING(ext, ext_len);
        if (ext_len == 0)
            break;
        for (;;) {
            VPK_STRING(dir, dir_len);
            if (dir_len == 0)
                break;
            for (;;) {
                VPK_STRING(name, name_len);
                if (name_len == 0)
                    break;
                size_t at = pos;
                if (end - pos < 18) {
                    r = bk_fail(err, BSPKIT_ERR_TRUNCATED, -1, (int64_t)at, -1,
                                "vpk: entry at offset %zu runs past the tree", at);
                    goto done;
                }
                bk_arc_entry e = {0};
                e.crc = rd_le32(data + pos);
                e.preload_size = rd_le16(data + pos + 4);
                e.archive = rd_le16(data + pos + 6);
                e.offset = rd_le32(data + pos + 8);
                e.size = rd_le32(data + pos + 12);
                uint16_t terminator = rd_le16(data + pos + 16);
                pos += 18;
                if (terminator != 0xffff) {
                    r = bk_fail(err, BSPKIT_ERR_UNKNOWN_FORMAT, -1, (int64_t)(at + 16), -1,
                                "vpk: entry terminator 0x%04x at offset %zu (0xffff expected)", terminator, at + 16);
                    goto done;
                }
                if (e.preload_size > end - pos) {
                    r = bk_fail(err, BSPKIT_ERR_LUMP_RANGE, -1, (int64_t)at, -1,
                                "vpk: preload data of the entry at offset %zu runs past the tree", at);
                    goto done;
                }
                e.preload_offset = pos;
                pos += e.preload_size;
                if (e.archive == BK_VPK_DIR_ARCHIVE) {
                    if (e.offset > size - end || e.size > size - end - e.offset) {
                        r = bk_fail(err, BSPKIT_ERR_LUMP_RANGE, -1, (int64_t)at, -1,
                                    "vpk: data of the entry at offset %zu (%llu bytes at %llu) runs past the end of the "
                                    "file (%zu bytes)",
                                    at, (unsigned long long)e.size, (unsigned long long)(end + e.offset), size);
                        goto done;
                    }
                    e.offset += end;
                }
                e.name = vpk_name(ext, ext_len, dir, dir_len, name, name_len);
                if (!e.name || !append_entry(out, &cap, &e)) {
                    free(e.name);
                    r = bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "vpk: out of memory");
                    goto done;
                }
            }
        }
    }
#undef VPK_STRING
done:
    if (r != BSPKIT_OK)
        bk_arc_list_free(out);
    return r;
}

/* `len` bytes at `offset` of the file `path` into buf. */
static bspkit_result read_range(const char *path, uint64_t offset, size_t len, uint8_t *buf, bspkit_error *err)
{
    if (len == 0)
        return BSPKIT_OK;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return bk_fail(err, errno == ENOENT ? BSPKIT_ERR_NOT_FOUND : BSPKIT_ERR_IO, -1, -1, -1, "vpk: %s: %s", path,
                       strerror(errno));
    bspkit_result r = BSPKIT_OK;
    if (offset > (uint64_t)INT64_MAX - len)
        r = bk_fail(err, BSPKIT_ERR_LUMP_RANGE, -1, -1, -1, "vpk: %s: offset %llu is out of range", path,
                    (unsigned long long)offset);
    for (size_t done = 0; r == BSPKIT_OK && done < len;) {
        ssize_t n = pread(fd, buf + done, len - done, (off_t)(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            r = bk_fail(err, n < 0 ? BSPKIT_ERR_IO : BSPKIT_ERR_TRUNCATED, -1, (int64_t)(offset + done), -1,
                        "vpk: %s ends before offset %llu (%zu bytes at %llu wanted)", path,
                        (unsigned long long)(offset + len), len, (unsigned long long)offset);
        else
            done += (size_t)n;
    }
    close(fd);
    return r;
}

bspkit_result bk_vpk_read(const char *dir_path, const bk_arc_entry *e, uint64_t limit, uint8_t **out, size_t *out_size,
                          bspkit_error *err)
{
    bk_error_clear(err);
    *out = NULL;
    *out_size = 0;
    uint64_t total = (uint64_t)e->preload_size + e->size;
    if (total > limit || total > SIZE_MAX - 1)
        return bk_fail(err, BSPKIT_ERR_LIMIT, -1, -1, -1, "vpk: '%s' of %llu bytes is above the limit of %llu",
                       e->name ? e->name : "entry", (unsigned long long)total, (unsigned long long)limit);
    size_t len = strlen(dir_path);
    bool dir_named = len >= 8 && bk_ascii_equal(dir_path + len - 8, "_dir.vpk");
    if (e->archive != BK_VPK_DIR_ARCHIVE && e->size > 0 && !dir_named)
        return bk_fail(err, BSPKIT_ERR_NOT_FOUND, -1, -1, -1,
                       "vpk: '%s' is in archive %u, but %s is not named NAME_dir.vpk", e->name ? e->name : "entry",
                       (unsigned)e->archive, dir_path);
    uint8_t *buf = malloc((size_t)total + 1);
    if (!buf)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "vpk: out of memory");
    bspkit_result r = read_range(dir_path, e->preload_offset, e->preload_size, buf, err);
    if (r == BSPKIT_OK && e->archive == BK_VPK_DIR_ARCHIVE) {
        r = read_range(dir_path, e->offset, (size_t)e->size, buf + e->preload_size, err);
    } else if (r == BSPKIT_OK && e->size > 0) {
        char *data_path = malloc(len + 1);
        if (!data_path) {
            r = bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "vpk: out of memory");
        } else {
            snprintf(data_path, len + 1, "%.*s_%03u.vpk", (int)(len - 8), dir_path, e->archive % 1000u);
            r = read_range(data_path, e->offset, (size_t)e->size, buf + e->preload_size, err);
            free(data_path);
        }
    }
    if (r != BSPKIT_OK) {
        free(buf);
        return r;
    }
    buf[total] = 0;
    *out = buf;
    *out_size = (size_t)total;
    return BSPKIT_OK;
}

/* ---- bzip2 and gzip streams ---------------------------------------------- */
/* Output grows by doubling up to `limit`; a stream that wants more is refused
 * (decompression bombs). */
static bool grow_output(uint8_t **buf, size_t *cap, size_t used, uint64_t limit)
{
    if (used < *cap)
        return true;
    if ((uint64_t)*cap >= limit)
        return false;
    uint64_t n = *cap ? (uint64_t)*cap * 2 : 1u << 20;
    if (n > limit)
        n = limit;
    if (n > SIZE_MAX)
        return false;
    uint8_t *p = realloc(*buf, (size_t)n);
    if (!p)
        return false;
    *buf = p;
    *cap = (size_t)n;
    return true;
}

bspkit_result bk_bz2_decompress(const uint8_t *data, size_t size, uint64_t limit, uint8_t **out, size_t *out_size,
                                bspkit_error *err)
{
    bk_error_clear(err);
    bool counting = out == NULL;
    if (out)
        *out = NULL;
    *out_size = 0;
    uint8_t *buf = NULL;
    size_t cap = 0, used = 0, pos = 0;
    bspkit_result r = BSPKIT_OK;
    if (counting) {
        cap = 64u << 10;
        if (!(buf = malloc(cap)))
            return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "bzip2: out of memory");
    }
    /* Each pass reads one bzip2 stream; concatenated streams (pbzip2) follow one another. */
    while (r == BSPKIT_OK && (pos < size || pos == 0)) {
        bz_stream s;
        memset(&s, 0, sizeof s);
        if (BZ2_bzDecompressInit(&s, 0, 0) != BZ_OK)
            return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "bzip2: out of memory");
        size_t in_left = size - pos;
        s.next_in = (char *)(uintptr_t)(data + pos); /* bzlib's API is not const-correct; it only reads */
        s.avail_in = in_left > UINT32_MAX ? UINT32_MAX : (unsigned)in_left;
        int rc = BZ_OK;
        while (rc == BZ_OK) {
            if (counting ? used > limit : !grow_output(&buf, &cap, used, limit)) {
                r = bk_fail(err, counting || cap >= limit ? BSPKIT_ERR_LIMIT : BSPKIT_ERR_NOMEM, -1, -1, -1,
                            "bzip2: decompresses to more than %llu bytes", (unsigned long long)limit);
                break;
            }
            size_t room = counting ? cap : cap - used; /* counting: the buffer is written over each time */
            s.next_out = (char *)buf + (counting ? 0 : used);
            s.avail_out = room > UINT32_MAX ? UINT32_MAX : (unsigned)room;
            unsigned before_out = s.avail_out;
            unsigned before_in = s.avail_in;
            rc = BZ2_bzDecompress(&s);
            used += before_out - s.avail_out;
            pos += before_in - s.avail_in;
            if (rc == BZ_OK && s.avail_in == 0 && before_out == s.avail_out) {
                in_left = size - pos;
                if (in_left == 0) {
                    r = bk_fail(err, BSPKIT_ERR_TRUNCATED, -1, (int64_t)pos, -1,
                                "bzip2: stream ends early at offset %zu", pos);
                    break;
                }
                s.avail_in = in_left > UINT32_MAX ? UINT32_MAX : (unsigned)in_left;
                s.next_in = (char *)(uintptr_t)(data + pos);
            }
        }
        if (r == BSPKIT_OK && rc != BZ_STREAM_END)
            r = bk_fail(err, rc == BZ_MEM_ERROR ? BSPKIT_ERR_NOMEM : BSPKIT_ERR_COMPRESSION, -1, (int64_t)pos, -1,
                        "bzip2: damaged stream near offset %zu (error %d)", pos, rc);
        BZ2_bzDecompressEnd(&s);
        /* Bytes after a stream that do not start another are ignored, as bzip2 -d does. */
        if (pos == 0 || size - pos < 3 || memcmp(data + pos, "BZh", 3) != 0)
            break;
    }
    if (r == BSPKIT_OK && counting && used > limit)
        r = bk_fail(err, BSPKIT_ERR_LIMIT, -1, -1, -1, "bzip2: decompresses to more than %llu bytes",
                    (unsigned long long)limit);
    if (r != BSPKIT_OK || counting) {
        free(buf);
        if (r == BSPKIT_OK)
            *out_size = used;
        return r;
    }
    *out = buf;
    *out_size = used;
    return BSPKIT_OK;
}

bspkit_result bk_gz_decompress(const uint8_t *data, size_t size, uint64_t limit, uint8_t **out, size_t *out_size,
                               bspkit_error *err)
{
    bk_error_clear(err);
    *out = NULL;
    *out_size = 0;
    z_stream s;
    memset(&s, 0, sizeof s);
    if (inflateInit2(&s, 16 + MAX_WBITS) != Z_OK) /* 16: gzip header and trailer */
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "gzip: out of memory");
    uint8_t *buf = NULL;
    size_t cap = 0, used = 0, pos = 0;
    bspkit_result r = BSPKIT_OK;
    s.next_in = (Bytef *)(uintptr_t)data; /* zlib only reads the input */
    s.avail_in = size > UINT32_MAX ? UINT32_MAX : (uInt)size;
    for (;;) {
        if (!grow_output(&buf, &cap, used, limit)) {
            r = bk_fail(err, cap >= limit ? BSPKIT_ERR_LIMIT : BSPKIT_ERR_NOMEM, -1, -1, -1,
                        "gzip: decompresses to more than %llu bytes", (unsigned long long)limit);
            break;
        }
        size_t room = cap - used;
        s.next_out = buf + used;
        s.avail_out = room > UINT32_MAX ? UINT32_MAX : (uInt)room;
        uInt before_out = s.avail_out, before_in = s.avail_in;
        int rc = inflate(&s, Z_NO_FLUSH);
        used += before_out - s.avail_out;
        pos += before_in - s.avail_in;
        if (rc == Z_STREAM_END) {
            /* Bytes after a member that do not start another are ignored, as gzip -d does. */
            if (size - pos < 2 || data[pos] != 0x1f || data[pos + 1] != 0x8b)
                break;
            inflateReset(&s); /* another gzip member follows */
        } else if (rc == Z_BUF_ERROR && s.avail_in == 0 && pos >= size) {
            r = bk_fail(err, BSPKIT_ERR_TRUNCATED, -1, (int64_t)pos, -1, "gzip: stream ends early at offset %zu", pos);
            break;
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            r = bk_fail(err, rc == Z_MEM_ERROR ? BSPKIT_ERR_NOMEM : BSPKIT_ERR_COMPRESSION, -1, (int64_t)pos, -1,
                        "gzip: damaged stream near offset %zu (%s)", pos, s.msg ? s.msg : "error");
            break;
        }
        if (s.avail_in == 0 && pos < size) {
            size_t left = size - pos;
            s.next_in = (Bytef *)(uintptr_t)(data + pos);
            s.avail_in = left > UINT32_MAX ? UINT32_MAX : (uInt)left;
        }
    }
    inflateEnd(&s);
    if (r != BSPKIT_OK) {
        free(buf);
        return r;
    }
    *out = buf;
    *out_size = used;
    return BSPKIT_OK;
}

bspkit_result bk_bz2_compress(const uint8_t *data, size_t size, uint8_t **out, size_t *out_size, bspkit_error *err)
{
    bk_error_clear(err);
    *out = NULL;
    *out_size = 0;
    /* bzip2's documented bound: 1% more than the input plus 600 bytes. */
    if (size > (UINT32_MAX - 600) / 101 * 100)
        return bk_fail(err, BSPKIT_ERR_LIMIT, -1, -1, -1, "bzip2: %zu bytes is too large to compress in one piece",
                       size);
    unsigned cap = (unsigned)(size + size / 100 + 600);
    uint8_t *buf = malloc(cap);
    if (!buf)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "bzip2: out of memory");
    int rc = BZ2_bzBuffToBuffCompress((char *)buf, &cap, (char *)(uintptr_t)data, (unsigned)size, 9, 0, 0);
    if (rc != BZ_OK) {
        free(buf);
        return bk_fail(err, rc == BZ_MEM_ERROR ? BSPKIT_ERR_NOMEM : BSPKIT_ERR_COMPRESSION, -1, -1, -1,
                       "bzip2: compression failed (error %d)", rc);
    }
    *out = buf;
    *out_size = cap;
    return BSPKIT_OK;
}

/* ---- whole files ------------------------------------------------------- */
bspkit_result bk_ops_map_file(const char *path, const uint8_t **data, size_t *size, bspkit_error *err)
{
    bk_error_clear(err);
    *data = NULL;
    *size = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return bk_fail(err, BSPKIT_ERR_IO, -1, -1, -1, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return bk_fail(err, BSPKIT_ERR_IO, -1, -1, -1, "%s: not a regular file", path);
    }
    if ((uint64_t)st.st_size > SIZE_MAX) {
        close(fd);
        return bk_fail(err, BSPKIT_ERR_LIMIT, -1, -1, -1, "%s: too large to map", path);
    }
    if (st.st_size == 0) {
        close(fd);
        return BSPKIT_OK;
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return bk_fail(err, BSPKIT_ERR_IO, -1, -1, -1, "%s: mmap: %s", path, strerror(errno));
    *data = p;
    *size = (size_t)st.st_size;
    return BSPKIT_OK;
}

void bk_ops_unmap_file(const uint8_t *data, size_t size)
{
    if (data && size)
        munmap((void *)(uintptr_t)data, size);
}
