/* A map's embedded textures as a WAD file: WAD2 for Quake (type 0x44, the
 * miptex alone), WAD3 for GoldSrc (type 0x43, the miptex with its palette),
 * each entry the miptex bytes exactly as the map holds them. */
#include "bspkit/textures.h"
#include "core/map.h"
#include "media/texture_internal.h"

#include <stdlib.h>
#include <string.h>

/* Bytes of one embedded miptex: header, four mips, and for GoldSrc the
 * palette count, palette and the two pad bytes compilers write. */
static uint64_t miptex_bytes(const bspkit_miptex *t, bool goldsrc)
{
    uint64_t w = t->width, h = t->height, n = MIPTEX_HEADER_SIZE;
    for (int i = 0; i < 4; i++)
        n += (w >> i) * (h >> i);
    if (goldsrc)
        n += 2 + 3ull * t->palette_size + 2;
    return n;
}

/* Bytes of texture `t` to copy into the WAD, or 0 when it has none in the map. */
static uint64_t entry_bytes(const bspkit_miptex *t, bool goldsrc, size_t lump_size)
{
    if (!t->embedded || t->lump_offset < 0 || (uint64_t)t->lump_offset >= lump_size || (goldsrc && !t->palette))
        return 0;
    uint64_t bytes = miptex_bytes(t, goldsrc);
    /* The last texture of some maps lacks the trailing pad bytes. */
    if ((uint64_t)t->lump_offset + bytes > lump_size)
        bytes = lump_size - (uint64_t)t->lump_offset;
    return bytes;
}

bspkit_result bspkit_miptex_write_wad(bspkit_map *map, uint8_t **out, size_t *size, size_t *written,
                                      bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !out || !size)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_miptex_write_wad: NULL argument");
    *out = NULL;
    *size = 0;
    if (written)
        *written = 0;
    bspkit_family family = map->format.family;
    if (family != BSPKIT_FAMILY_QUAKE && family != BSPKIT_FAMILY_GOLDSRC)
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1, "%s maps embed no miptex", map->format.name);
    bool goldsrc = family == BSPKIT_FAMILY_GOLDSRC;
    const bspkit_miptex *tex;
    size_t count;
    bspkit_result r = bspkit_get_miptex(map, &tex, &count, err);
    if (r != BSPKIT_OK)
        return r;
    const uint8_t *lump;
    size_t lump_size;
    if ((r = bk_lump_bytes(map, BSPKIT_Q_TEXTURES, &lump, &lump_size, err)) != BSPKIT_OK)
        return r;

    /* Entries whose bytes lie inside the lump, in map order. */
    uint64_t total = WAD_HEADER_SIZE;
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        uint64_t bytes = entry_bytes(&tex[i], goldsrc, lump_size);
        if (bytes) {
            total += (bytes + 3) & ~3ull;
            n++;
        }
    }
    total += (uint64_t)n * WAD_ENTRY_SIZE;
    if (total > 0x7FFFFFFFu)
        return bk_fail(err, BSPKIT_ERR_LIMIT, BSPKIT_Q_TEXTURES, -1, -1, "TEXTURES: the WAD would exceed 2 GiB");
    uint8_t *buf = calloc(1, (size_t)total);
    if (!buf)
        return bk_fail(err, BSPKIT_ERR_NOMEM, BSPKIT_Q_TEXTURES, -1, -1, "TEXTURES: out of memory");

    memcpy(buf, goldsrc ? "WAD3" : "WAD2", 4);
    uint64_t dir = total - (uint64_t)n * WAD_ENTRY_SIZE;
    wr_le32(buf + 4, (uint32_t)n);
    wr_le32(buf + 8, (uint32_t)dir);
    uint64_t pos = WAD_HEADER_SIZE;
    size_t k = 0;
    for (size_t i = 0; i < count; i++) {
        const bspkit_miptex *t = &tex[i];
        uint64_t bytes = entry_bytes(t, goldsrc, lump_size);
        if (!bytes)
            continue;
        memcpy(buf + pos, lump + t->lump_offset, (size_t)bytes);
        uint8_t *e = buf + dir + (uint64_t)k * WAD_ENTRY_SIZE;
        wr_le32(e, (uint32_t)pos);         /* filepos */
        wr_le32(e + 4, (uint32_t)bytes);   /* disksize */
        wr_le32(e + 8, (uint32_t)bytes);   /* size */
        e[12] = goldsrc ? WAD_TYPE_MIPTEX3 : WAD_TYPE_MIPTEX2;
        e[13] = 0;                         /* not compressed */
        memcpy(e + 16, t->name, strnlen(t->name, 16));
        pos += (bytes + 3) & ~3ull;
        k++;
    }
    *out = buf;
    *size = (size_t)total;
    if (written)
        *written = n;
    return BSPKIT_OK;
}
