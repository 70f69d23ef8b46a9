/* Source game-lump directory and per-entry bytes. Entry offsets are absolute
 * on PC and relative to the game lump on some console builds; a compressed
 * entry's stored size is the distance to the next entry's offset (writers
 * append an empty terminating entry for that purpose). */
#include "core/map.h"
#include "formats/source/family.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bspkit_result gl_fail(bspkit_map *map, bspkit_error *err, uint64_t pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bspkit_result gl_fail(bspkit_map *map, bspkit_error *err, uint64_t pos, const char *fmt, ...)
{
    char msg[192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return bk_fail(err, BSPKIT_ERR_GAME_LUMP, BSPKIT_S_GAME_LUMP, bk_file_offset(map, BSPKIT_S_GAME_LUMP, pos),
                   (int64_t)pos, "GAME_LUMP: %s", msg);
}

/* Where each field of a dgamelump_t lies. */
typedef struct gl_entry_layout {
    size_t stride, id, flags, version, offset, length;
    bool wide; /* flags and version are ints, not unsigned shorts */
} gl_entry_layout;

static const gl_entry_layout GL_STANDARD = {16, 0, 4, 6, 8, 12, false};
/* Vindictus: id, int flags, int version, offset, length. */
static const gl_entry_layout GL_VINDICTUS = {20, 0, 4, 8, 12, 16, true};
/* Dark Messiah: 20-byte entries with one unknown int. BSPSource reads it
 * before the id, bsp_tool after the length; the reading whose ids are all
 * letters and digits is used (before the id when both are). */
static const gl_entry_layout GL_DARK_MESSIAH_LEAD = {20, 4, 8, 10, 12, 16, false};
static const gl_entry_layout GL_DARK_MESSIAH_TRAIL = {20, 0, 4, 6, 8, 12, false};

static bool gl_ids_alnum(const uint8_t *d, size_t size, uint32_t count, const gl_entry_layout *l)
{
    for (uint32_t i = 0; i < count; i++) {
        size_t at = 4 + l->stride * i + l->id;
        if (at + 4 > size)
            return false;
        for (int k = 0; k < 4; k++) {
            uint8_t c = d[at + (size_t)k];
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
                return false;
        }
    }
    return true;
}

static const gl_entry_layout *gl_layout(const bspkit_map *map, const uint8_t *d, size_t size)
{
    if (map->format.variant & BSPKIT_VARIANT_VINDICTUS)
        return &GL_VINDICTUS;
    if (map->format.variant & BSPKIT_VARIANT_DARK_MESSIAH) {
        uint32_t count = size >= 4 ? rd_le32(d) : 0;
        if (!gl_ids_alnum(d, size, count, &GL_DARK_MESSIAH_LEAD) && gl_ids_alnum(d, size, count, &GL_DARK_MESSIAH_TRAIL))
            return &GL_DARK_MESSIAH_TRAIL;
        return &GL_DARK_MESSIAH_LEAD;
    }
    return &GL_STANDARD;
}

bspkit_result bk_decode_game_lumps(bspkit_map *map, bspkit_error *err)
{
    const uint8_t *d;
    size_t size;
    bspkit_result r = bk_lump_bytes(map, BSPKIT_S_GAME_LUMP, &d, &size, err);
    if (r != BSPKIT_OK || size == 0)
        return r;
    bool be = map->format.big_endian;
    if (size < 4)
        return gl_fail(map, err, 0, "%zu bytes cannot hold the entry count", size);
    const gl_entry_layout *L = gl_layout(map, d, size);
    const size_t st = L->stride;
    int32_t count = rd_i32(d, be);
    if (count < 0 || (uint64_t)count > (size - 4) / st)
        return gl_fail(map, err, 0, "entry count %d needs %lld bytes but the lump has %zu", (int)count,
                       (long long)st * count + 4, size);
    bspkit_game_lump *gl = bk_calloc_array(map, (size_t)count, sizeof *gl, BSPKIT_S_GAME_LUMP, err);
    if (!gl)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    uint64_t base = map->lumps[BSPKIT_S_GAME_LUMP].offset;
    /* Relative offsets: every non-empty entry would fall outside the file or inside the directory otherwise. */
    bool relative = false;
    for (int32_t i = 0; i < count; i++) {
        const uint8_t *e = d + 4 + st * (size_t)i;
        uint32_t ofs = rd_u32(e + L->offset, be), len = rd_u32(e + L->length, be);
        if (len && ofs < base + 4 + (uint64_t)st * (uint32_t)count && range_ok(ofs, len, size)) {
            relative = true;
            break;
        }
    }
    for (int32_t i = 0; i < count; i++) {
        const uint8_t *e = d + 4 + st * (size_t)i;
        bspkit_game_lump *g = &gl[i];
        g->id = rd_u32(e + L->id, be);
        g->flags = L->wide ? (uint16_t)rd_u32(e + L->flags, be) : rd_u16(e + L->flags, be);
        g->version = L->wide ? (uint16_t)rd_u32(e + L->version, be) : rd_u16(e + L->version, be);
        uint64_t ofs = rd_u32(e + L->offset, be) + (relative ? base : 0);
        uint32_t len = rd_u32(e + L->length, be);
        g->compressed = g->flags & 1;
        if (g->compressed && len) {
            /* Stored size runs to the next entry's offset, or to the end of the lump. */
            uint64_t next = base + size;
            if (i + 1 < count)
                next = rd_u32(e + st + L->offset, be) + (relative ? base : 0);
            if (next < ofs || !range_ok(ofs, next - ofs, map->size)) {
                r = gl_fail(map, err, 4 + (uint64_t)st * (uint32_t)i, "entry %d: compressed data at %llu..%llu outside the file",
                            (int)i, (unsigned long long)ofs, (unsigned long long)next);
                goto fail;
            }
            uint32_t actual, packed;
            if (!bk_lzma_sizes(map->data + ofs, next - ofs, &actual, &packed)) {
                r = gl_fail(map, err, 4 + (uint64_t)st * (uint32_t)i, "entry %d: invalid LZMA header at file offset %llu",
                            (int)i, (unsigned long long)ofs);
                goto fail;
            }
            g->length = (uint32_t)(next - ofs);
            g->uncompressed_length = actual;
        } else {
            g->compressed = false;
            g->length = len;
            g->uncompressed_length = len;
            if (len && !range_ok(ofs, len, map->size)) {
                r = gl_fail(map, err, 4 + (uint64_t)st * (uint32_t)i,
                            "entry %d: offset %llu + length %u runs past the end of the %zu-byte file", (int)i,
                            (unsigned long long)ofs, len, map->size);
                goto fail;
            }
        }
        g->offset = (uint32_t)ofs;
    }
    map->game_lumps_relative = relative;
    map->game_lumps.items = map->game_lumps.owned = gl;
    map->game_lumps.count = (size_t)count;
    return BSPKIT_OK;
fail:
    bk_free(map, gl, (size_t)count * sizeof *gl);
    return r;
}

bspkit_result bspkit_get_game_lumps(bspkit_map *map, const bspkit_game_lump **out, size_t *count, bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !out || !count)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_get_game_lumps: NULL argument");
    *out = NULL;
    *count = 0;
    if (map->format.family != BSPKIT_FAMILY_SOURCE)
        return BSPKIT_OK;
    bk_array_cache *c = &map->game_lumps;
    if (!c->done) {
        bspkit_error e;
        bk_error_clear(&e);
        c->done = true;
        c->result = bk_decode_game_lumps(map, &e);
        if (c->result != BSPKIT_OK)
            c->error = bk_keep_error(map, &e);
    }
    if (c->result != BSPKIT_OK) {
        bk_error_copy(err, c->error);
        return c->result;
    }
    *out = c->items;
    *count = c->count;
    return BSPKIT_OK;
}

bspkit_result bspkit_game_lump_bytes(bspkit_map *map, size_t index, const uint8_t **data, size_t *size,
                                     bspkit_error *err)
{
    const bspkit_game_lump *gl;
    size_t count;
    if (!data || !size)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_game_lump_bytes: NULL argument");
    bspkit_result r = bspkit_get_game_lumps(map, &gl, &count, err);
    if (r != BSPKIT_OK)
        return r;
    if (index >= count)
        return bk_fail(err, BSPKIT_ERR_NOT_FOUND, BSPKIT_S_GAME_LUMP, -1, -1, "game lump %zu of %zu does not exist",
                       index, count);
    if (!map->game_lump_bytes) {
        map->game_lump_bytes = bk_raw_alloc(map, count * sizeof *map->game_lump_bytes, true);
        if (!map->game_lump_bytes)
            return bk_fail(err, BSPKIT_ERR_NOMEM, BSPKIT_S_GAME_LUMP, -1, -1, "out of memory");
    }
    bk_bytes_cache *c = &map->game_lump_bytes[index];
    const bspkit_game_lump *g = &gl[index];
    if (!c->done) {
        char what[48];
        snprintf(what, sizeof what, "game lump %zu", index);
        bk_fill_bytes_cache(map, c, BSPKIT_S_GAME_LUMP, what, g->offset, g->length, g->compressed,
                            g->uncompressed_length);
    }
    return bk_cached_bytes(c, data, size, err);
}

int bk_game_lump_find(bspkit_map *map, uint32_t id)
{
    const bspkit_game_lump *gl;
    size_t n;
    if (bspkit_get_game_lumps(map, &gl, &n, NULL) != BSPKIT_OK)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (gl[i].id == id)
            return (int)i;
    return -1;
}
