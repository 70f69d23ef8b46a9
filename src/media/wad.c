/* WAD2 (Quake) and WAD3 (GoldSrc) texture archives: a 12-byte header, a
 * directory of 32-byte entries, and miptex / qpic entries decoded through
 * their palette. The whole file is kept in memory; every offset is checked
 * against it before use. */
#include "bspkit/textures.h"
#include "core/map.h"
#include "media/texture_internal.h"
#include "core/ascii.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define QPIC_HEADER_SIZE 8
/* Files above this size are refused before they are read. */
#define WAD_MAX_FILE (1ull << 30)

struct bspkit_wad {
    uint8_t *data;
    size_t size;
    int version; /* 2 or 3 */
    bspkit_wad_entry *entries;
    size_t count;
};

static bool is_miptex(const bspkit_wad *wad, uint8_t type)
{
    /* In WAD2, 0x43 is a sound lump; Quake's miptex type is 0x44. */
    return wad->version == 3 ? type == WAD_TYPE_MIPTEX3 : type == WAD_TYPE_MIPTEX2;
}

/* Width and height from the entry's own header, or 0 when the entry is not
 * an image, is compressed, or does not hold the pixels its header claims. */
static void entry_size(const bspkit_wad *wad, bspkit_wad_entry *e)
{
    e->width = e->height = 0;
    if (e->compression != 0 || !range_ok(e->offset, e->size, wad->size))
        return;
    const uint8_t *p = wad->data + e->offset;
    uint32_t w, h;
    uint64_t header;
    if (is_miptex(wad, e->type) && e->size >= MIPTEX_HEADER_SIZE) {
        w = rd_le32(p + 16);
        h = rd_le32(p + 20);
        header = MIPTEX_HEADER_SIZE;
    } else if (e->type == WAD_TYPE_QPIC && e->size >= QPIC_HEADER_SIZE) {
        w = rd_le32(p);
        h = rd_le32(p + 4);
        header = QPIC_HEADER_SIZE;
    } else {
        return;
    }
    if (w == 0 || h == 0 || w > BK_TEX_MAX_SIDE || h > BK_TEX_MAX_SIDE || (uint64_t)w * h > e->size - header)
        return;
    e->width = w;
    e->height = h;
}

bspkit_result bspkit_wad_open_memory(const void *data, size_t size, bspkit_wad **out, bspkit_error *err)
{
    bk_error_clear(err);
    if (!out || (!data && size))
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "wad: NULL argument");
    *out = NULL;
    if (size == 0)
        return bk_fail(err, BSPKIT_ERR_EMPTY, -1, -1, -1, "wad: no bytes");
    const uint8_t *d = data;
    if (size < WAD_HEADER_SIZE)
        return bk_fail(err, BSPKIT_ERR_TRUNCATED, -1, (int64_t)size, -1, "wad: %zu bytes cannot hold the 12-byte header",
                       size);
    int version;
    if (memcmp(d, "WAD3", 4) == 0)
        version = 3;
    else if (memcmp(d, "WAD2", 4) == 0)
        version = 2;
    else
        return bk_fail(err, BSPKIT_ERR_UNKNOWN_FORMAT, -1, 0, -1, "wad: not a WAD2/WAD3 file (magic %02x %02x %02x %02x)",
                       d[0], d[1], d[2], d[3]);
    uint32_t count = rd_le32(d + 4), dir = rd_le32(d + 8);
    /* The directory must be present in full before anything is allocated. */
    if (!range_ok(dir, (uint64_t)count * WAD_ENTRY_SIZE, size))
        return bk_fail(err, BSPKIT_ERR_TRUNCATED, -1, 8, -1,
                       "wad: directory of %u entries at byte %u runs past the end of the %zu-byte file", count, dir,
                       size);
    bspkit_wad *w = calloc(1, sizeof *w);
    if (!w)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "wad: out of memory");
    w->data = malloc(size);
    w->entries = calloc(count ? count : 1, sizeof *w->entries);
    if (!w->data || !w->entries) {
        bspkit_wad_close(w);
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "wad: out of memory for %zu bytes", size);
    }
    memcpy(w->data, d, size);
    w->size = size;
    w->version = version;
    w->count = count;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *p = w->data + dir + (size_t)i * WAD_ENTRY_SIZE;
        bspkit_wad_entry *e = &w->entries[i];
        e->offset = rd_le32(p);
        e->size = rd_le32(p + 4); /* disk size; +8 is the uncompressed size */
        e->type = p[12];
        e->compression = p[13];
        /* Names are 16 bytes, NUL-padded; bytes after the first NUL are junk. */
        memcpy(e->name, p + 16, 16);
        e->name[16] = '\0';
        e->name[strnlen(e->name, 16)] = '\0';
        entry_size(w, e);
    }
    *out = w;
    return BSPKIT_OK;
}

bspkit_result bspkit_wad_open_file(const char *path, bspkit_wad **out, bspkit_error *err)
{
    bk_error_clear(err);
    if (!path || !out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "wad: NULL argument");
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return bk_fail(err, BSPKIT_ERR_IO, -1, -1, -1, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return bk_fail(err, BSPKIT_ERR_IO, -1, -1, -1, "%s: not a regular file", path);
    }
    if ((uint64_t)st.st_size > WAD_MAX_FILE) {
        fclose(f);
        return bk_fail(err, BSPKIT_ERR_LIMIT, -1, -1, -1, "%s: %lld bytes is larger than the 1 GiB WAD limit", path,
                       (long long)st.st_size);
    }
    size_t size = (size_t)st.st_size;
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf) {
        fclose(f);
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "%s: out of memory", path);
    }
    size_t got = fread(buf, 1, size, f);
    bool failed = ferror(f) != 0;
    fclose(f);
    if (failed || got != size) {
        free(buf);
        return bk_fail(err, BSPKIT_ERR_IO, -1, -1, -1, "%s: read failed", path);
    }
    bspkit_result r = bspkit_wad_open_memory(buf, size, out, err);
    free(buf);
    if (r != BSPKIT_OK && err) {
        /* Name the file in front of the parser's message. */
        char msg[2 * sizeof err->message + 4];
        snprintf(msg, sizeof msg, "%.255s: %s", path, err->message);
        msg[sizeof err->message - 1] = '\0';
        memcpy(err->message, msg, sizeof err->message);
    }
    return r;
}

void bspkit_wad_close(bspkit_wad *wad)
{
    if (!wad)
        return;
    free(wad->data);
    free(wad->entries);
    free(wad);
}

size_t bspkit_wad_count(const bspkit_wad *wad) { return wad ? wad->count : 0; }

bspkit_result bspkit_wad_entry_info(const bspkit_wad *wad, size_t index, bspkit_wad_entry *out, bspkit_error *err)
{
    bk_error_clear(err);
    if (!wad || !out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "wad: NULL argument");
    if (index >= wad->count)
        return bk_fail(err, BSPKIT_ERR_NOT_FOUND, -1, -1, -1, "wad: no entry %zu (%zu entries)", index, wad->count);
    *out = wad->entries[index];
    return BSPKIT_OK;
}

bspkit_result bspkit_wad_find(const bspkit_wad *wad, const char *name, size_t *index, bspkit_error *err)
{
    bk_error_clear(err);
    if (!wad || !name || !index)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "wad: NULL argument");
    for (size_t i = 0; i < wad->count; i++) {
        if (bk_ascii_casecmp(wad->entries[i].name, name) == 0) {
            *index = i;
            return BSPKIT_OK;
        }
    }
    return bk_fail(err, BSPKIT_ERR_NOT_FOUND, -1, -1, -1, "wad: no entry named '%s'", name);
}

static bspkit_result entry_fail(bspkit_error *err, const bspkit_wad_entry *e, size_t index, uint64_t at,
                                const char *what)
{
    return bk_fail(err, BSPKIT_ERR_TEXTURES, -1, (int64_t)at, (int64_t)(at - e->offset),
                   "wad: entry %zu '%s' at byte %llu: %s", index, e->name, (unsigned long long)at, what);
}

bspkit_result bspkit_wad_load_image(const bspkit_wad *wad, size_t index, bspkit_image *out, bspkit_error *err)
{
    bk_error_clear(err);
    if (!wad || !out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "wad: NULL argument");
    memset(out, 0, sizeof *out);
    bk_indexed_image img;
    bspkit_result r = bk_wad_load_indexed(wad, index, &img, err);
    return r == BSPKIT_OK ? bk_indexed_expand(&img, out, err) : r;
}

bspkit_result bk_wad_load_indexed(const bspkit_wad *wad, size_t index, bk_indexed_image *out, bspkit_error *err)
{
    bk_error_clear(err);
    if (!wad || !out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "wad: NULL argument");
    if (index >= wad->count)
        return bk_fail(err, BSPKIT_ERR_NOT_FOUND, -1, -1, -1, "wad: no entry %zu (%zu entries)", index, wad->count);
    const bspkit_wad_entry *e = &wad->entries[index];
    bool mip = is_miptex(wad, e->type);
    if (!mip && e->type != WAD_TYPE_QPIC)
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, e->offset, -1,
                       "wad: entry %zu '%s' has type 0x%02x, not a miptex or qpic", index, e->name, e->type);
    if (e->compression != 0)
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, e->offset, -1, "wad: entry %zu '%s' uses compression %u",
                       index, e->name, e->compression);
    if (!range_ok(e->offset, e->size, wad->size))
        return entry_fail(err, e, index, e->offset, "the entry runs past the end of the file");
    if (e->width == 0)
        return entry_fail(err, e, index, e->offset, "the header's size is zero, implausible or larger than the entry");
    const uint8_t *p = wad->data + e->offset;
    uint64_t pixels_at, pixels_end;
    if (mip) {
        /* Mip 0 where the header puts it; mips 1-3 are not needed. */
        pixels_at = rd_le32(p + 24);
        pixels_end = pixels_at + (uint64_t)e->width * e->height;
        if (pixels_at < MIPTEX_HEADER_SIZE || !range_ok(pixels_at, (uint64_t)e->width * e->height, e->size))
            return entry_fail(err, e, index, e->offset + 24ull, "mip 0 offset points outside the entry");
        if (wad->version == 3) {
            /* The palette follows the smallest mip (1/64 of mip 0 past mip 3's offset). */
            pixels_end = (uint64_t)rd_le32(p + 36) + (uint64_t)(e->width >> 3) * (e->height >> 3);
        }
    } else {
        pixels_at = QPIC_HEADER_SIZE;
        pixels_end = pixels_at + (uint64_t)e->width * e->height;
    }
    const uint8_t *palette = bk_quake_palette;
    size_t colours = 256;
    if (wad->version == 3) {
        if (!range_ok(pixels_end, 2, e->size))
            return entry_fail(err, e, index, e->offset + pixels_end, "the palette size lies outside the entry");
        colours = rd_le16(p + pixels_end);
        if (colours > 256 || !range_ok(pixels_end + 2, 3ull * colours, e->size))
            return entry_fail(err, e, index, e->offset + pixels_end,
                              "the palette does not fit in the entry or has more than 256 colours");
        palette = p + pixels_end + 2;
    }
    *out = (bk_indexed_image){.width = e->width, .height = e->height, .indices = p + pixels_at};
    bk_paletted_table(palette, colours, bk_tex_transparent_name(e->name), out->rgba);
    return BSPKIT_OK;
}
