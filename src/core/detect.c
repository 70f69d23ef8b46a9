/* Format detection from bytes alone, and reading of the lump directory,
 * through the registered families (core/family.h): the core asks each family
 * whether the header is its own and checks every lump the family lists. */
#include "core/family.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Names                                                                     */
/* ------------------------------------------------------------------------ */

const char *bk_lump_name(const bspkit_map *map, int index)
{
    if (!map || index < 0 || index >= map->lump_count || !map->family_ops)
        return "lump";
    return map->family_ops->lump_name(map, index);
}

const char *bk_lump_key(const bspkit_map *map, int index)
{
    if (!map || index < 0 || index >= map->lump_count || !map->family_ops)
        return NULL;
    return map->family_ops->lump_key(map, index);
}

const char *bspkit_family_name(bspkit_family family)
{
    switch (family) {
    case BSPKIT_FAMILY_QUAKE: return "quake";
    case BSPKIT_FAMILY_GOLDSRC: return "goldsrc";
    case BSPKIT_FAMILY_SOURCE: return "source";
    case BSPKIT_FAMILY_QUAKE2: return "quake2";
    case BSPKIT_FAMILY_QUAKE3: return "quake3";
    case BSPKIT_FAMILY_TITANFALL: return "titanfall";
    default: return "unknown";
    }
}

/* ------------------------------------------------------------------------ */
/* Detection                                                                 */
/* ------------------------------------------------------------------------ */

static bool magic_is(const uint8_t *d, const char *m) { return memcmp(d, m, 4) == 0; }

static bspkit_result unsupported(bspkit_error *err, const char *what)
{
    return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, 0, -1, "not supported: %s", what);
}

/* Known formats that are not ours: name them so the user learns what the file is. */
bool bk_name_unsupported_format(const uint8_t *d, size_t size, bspkit_error *err, bspkit_result *r)
{
    char what[96];
    int32_t ver = size >= 8 ? (int32_t)rd_le32(d + 4) : -1;
    if (magic_is(d, "IBSP")) {
        const char *game = ver == 22 ? "Call of Duty 4" : ver == 59 ? "Call of Duty" : "id Tech 2/3 family";
        snprintf(what, sizeof what, "%s IBSP version %d", game, (int)ver);
    } else if (magic_is(d, "rBSP")) {
        /* Titanfall 2 (37) is read; the others are named. */
        const char *game = ver == 29 ? "Titanfall" : ver == 36 ? "Titanfall 2 tech test"
                         : ver >= 47 ? "Apex Legends" : "Respawn";
        snprintf(what, sizeof what, "%s rBSP version %d (only Titanfall 2 rBSP 37 is read)", game,
                 (int)(ver & 0xFFFF));
    } else if (magic_is(d, "RBSP")) {
        snprintf(what, sizeof what, "Raven RBSP version %d (Jedi Knight / Soldier of Fortune)", (int)ver);
    } else if (magic_is(d, "FBSP")) {
        snprintf(what, sizeof what, "QFusion FBSP version %d", (int)ver);
    } else if (magic_is(d, "FAKK") || magic_is(d, "EF2!")) {
        snprintf(what, sizeof what, "Ritual %.4s BSP", (const char *)d);
    } else if (d[0] == 'P' && d[1] == 'K' && (d[2] == 3 || d[2] == 5) && (d[3] == 4 || d[3] == 6)) {
        snprintf(what, sizeof what, "a zip archive, not a map (extract the .bsp first)");
    } else if (d[0] == 'B' && d[1] == 'Z' && d[2] == 'h') {
        snprintf(what, sizeof what, "a bzip2-compressed file (decompress the .bsp.bz2 first)");
    } else if (d[0] == 0x1f && d[1] == 0x8b) {
        snprintf(what, sizeof what, "a gzip-compressed file (decompress it first)");
    } else if (magic_is(d, "WAD2") || magic_is(d, "WAD3")) {
        snprintf(what, sizeof what, "a %.4s texture archive, not a map", (const char *)d);
    } else if (magic_is(d, "VBSP") || magic_is(d, "PSBV")) {
        int32_t v = magic_is(d, "PSBV") ? (int32_t)rd_be32(d + 4) : ver;
        snprintf(what, sizeof what, "Source VBSP version %d", (int)v);
    } else {
        /* Text input: a VMF/MAP source or an entity dump rather than a compiled map. */
        size_t i = 0;
        while (i < size && i < 64 && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n'))
            i++;
        if (i < size && (d[i] == '{' || d[i] == '/' || (size - i >= 11 && memcmp(d + i, "versioninfo", 11) == 0))) {
            snprintf(what, sizeof what, "a text file (map source or entity list), not a compiled map");
        } else {
            return false;
        }
    }
    *r = unsupported(err, what);
    return true;
}

bspkit_result bspkit_detect(const void *data, size_t size, bspkit_format *out, bspkit_error *err)
{
    bk_error_clear(err);
    if (!out || (!data && size))
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_detect: NULL argument");
    memset(out, 0, sizeof *out);
    const uint8_t *d = data;
    if (size == 0)
        return bk_fail(err, BSPKIT_ERR_EMPTY, -1, 0, -1, "empty file (0 bytes)");
    if (size < 4)
        return bk_fail(err, BSPKIT_ERR_TRUNCATED, -1, (int64_t)size, -1,
                       "truncated: %zu bytes is too short for any map header", size);
    for (size_t i = 0; i < bk_family_count; i++)
        if (bk_families[i]->claims(d, size))
            return bk_families[i]->detect(d, size, out, err);
    bspkit_result r;
    if (bk_name_unsupported_format(d, size, err, &r))
        return r;
    return bk_fail(err, BSPKIT_ERR_UNKNOWN_FORMAT, -1, 0, -1,
                   "unknown format: first bytes %02x %02x %02x %02x are no map header we know", d[0], d[1], d[2],
                   d[3]);
}

/* ------------------------------------------------------------------------ */
/* Directory                                                                 */
/* ------------------------------------------------------------------------ */

static bspkit_result check_lump(bspkit_map *map, int i, bspkit_error *err)
{
    bk_lump *l = &map->lumps[i];
    /* The lump's name goes only into messages: looked up for one. */
    if (!l->external && l->length && !range_ok(l->offset, l->length, map->size))
        return bk_fail(err, BSPKIT_ERR_LUMP_RANGE, i, l->offset, -1,
                       "%s (lump %d): offset %u + length %u runs past the end of the %zu-byte file",
                       bk_lump_name(map, i), i, l->offset, l->length, map->size);
    l->uncompressed_length = l->length;
    if (!l->external && l->length && map->family_ops->lump_may_be_compressed(map, i) &&
        bk_is_lzma(map->data + l->offset, l->length)) {
        uint32_t actual, packed;
        if (!bk_lzma_sizes(map->data + l->offset, l->length, &actual, &packed))
            return bk_fail(err, BSPKIT_ERR_COMPRESSION, i, l->offset, 0,
                           "%s (lump %d): LZMA header at offset %u claims %u compressed bytes but the lump holds %u",
                           bk_lump_name(map, i), i, l->offset, packed, l->length - BK_LZMA_HEADER_SIZE);
        if (l->fourcc && l->fourcc != actual)
            return bk_fail(err, BSPKIT_ERR_COMPRESSION, i, l->offset, 0,
                           "%s (lump %d): directory says %u uncompressed bytes, LZMA header says %u",
                           bk_lump_name(map, i), i, l->fourcc, actual);
        l->compressed = true;
        l->uncompressed_length = actual;
        map->format.variant |= BSPKIT_VARIANT_COMPRESSED;
    }
    /* Member by member: the family returns the layout in memory written a
     * member at a time, and a whole-struct copy reads it back 16 bytes at a
     * time, which cannot be forwarded from those stores (a stall per lump). */
    const bk_layout layout = map->family_ops->layout(map, i);
    l->layout.record_size = layout.record_size;
    l->layout.native_size = layout.native_size;
    l->layout.decode = layout.decode;
    l->layout.decoded = layout.decoded;
    l->layout.schema = layout.schema;
    if (l->layout.record_size && l->uncompressed_length % l->layout.record_size) {
        if (l->external)
            return bk_fail(err, BSPKIT_ERR_LUMP_SIZE, i, -1, -1,
                           "%s (lump %d, version %d): external file %s: %u bytes is not a multiple of the %u-byte "
                           "record",
                           bk_lump_name(map, i), i, (int)l->version, l->external, l->uncompressed_length,
                           l->layout.record_size);
        return bk_fail(err, BSPKIT_ERR_LUMP_SIZE, i, l->offset, -1,
                       "%s (lump %d, version %d): %u bytes is not a multiple of the %u-byte record",
                       bk_lump_name(map, i), i, (int)l->version, l->uncompressed_length, l->layout.record_size);
    }
    return BSPKIT_OK;
}

bspkit_result bk_read_directory(bspkit_map *map, bspkit_error *err)
{
    map->family_ops = bk_family_of(map->format.family);
    if (!map->family_ops)
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, 0, -1, "no reader for the %s family",
                       bspkit_family_name(map->format.family));
    int n = map->format.lump_count;
    if (n <= 0 || n > BK_MAX_LUMPS)
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, 0, -1, "%d lumps in the directory", n);
    /* Both tables in one cleared block: an entry of each per lump. */
    _Static_assert(sizeof(bk_lump) % _Alignof(bk_bytes_cache) == 0, "the bytes table follows the lumps aligned");
    bk_lump *lumps = bk_raw_alloc(map, (size_t)n * (sizeof(bk_lump) + sizeof(bk_bytes_cache)), true);
    if (!lumps)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    map->lumps = lumps;
    map->bytes = (bk_bytes_cache *)(void *)(lumps + n);
    map->lump_count = n;
    map->family_ops->read_directory(map);
    for (int d = 0; d < BK_REC_COUNT; d++)
        map->dec_lump[d] = -1;
    if (map->family_ops->external_lump_suffix && !map->path)
        map->format.variant |= BSPKIT_VARIANT_NO_EXTERNAL;
    for (int i = 0; i < map->lump_count; i++) {
        bspkit_result r = bk_read_external_lump(map, i, err);
        if (r == BSPKIT_OK)
            r = check_lump(map, i, err);
        if (r != BSPKIT_OK)
            return r;
        if (map->lumps[i].layout.decode && map->lumps[i].layout.decoded >= 0)
            map->dec_lump[map->lumps[i].layout.decoded] = i;
    }
    return BSPKIT_OK;
}
