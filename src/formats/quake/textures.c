/* Quake/GoldSrc miptex directory: headers decoded, embedded mip levels and
 * GoldSrc palettes located and bounds-checked (pixels stay in the lump). */
#include "core/map.h"
#include "formats/quake/family.h"

#include <stdio.h>
#include <string.h>

/* Reject absurd sizes early so later arithmetic cannot overflow. */
#define MAX_MIPTEX_DIMENSION 16384u

static bspkit_result tex_fail(bspkit_map *map, bspkit_error *err, uint64_t pos, uint32_t index, const char *name,
                              const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

static bspkit_result tex_fail(bspkit_map *map, bspkit_error *err, uint64_t pos, uint32_t index, const char *name,
                              const char *fmt, ...)
{
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return bk_fail(err, BSPKIT_ERR_TEXTURES, BSPKIT_Q_TEXTURES, bk_file_offset(map, BSPKIT_Q_TEXTURES, pos),
                   (int64_t)pos, "TEXTURES: miptex %u%s%s%s at lump byte %llu: %s", index, name ? " '" : "",
                   name ? name : "", name ? "'" : "", (unsigned long long)pos, what);
}

bspkit_result bk_decode_miptex(bspkit_map *map, bspkit_error *err)
{
    const uint8_t *d;
    size_t size;
    bspkit_result r = bk_lump_bytes(map, BSPKIT_Q_TEXTURES, &d, &size, err);
    if (r != BSPKIT_OK)
        return r;
    if (size == 0)
        return BSPKIT_OK;
    if (size < 4)
        return tex_fail(map, err, 0, 0, NULL, "lump of %zu bytes cannot hold the count", size);
    uint32_t count = rd_le32(d);
    if (count > (size - 4) / 4)
        return tex_fail(map, err, 0, 0, NULL, "count %u needs %llu bytes of offsets", count, 4ull * count);
    bspkit_miptex *tex = bk_calloc_array(map, count, sizeof *tex, BSPKIT_Q_TEXTURES, err);
    if (!tex)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    bool goldsrc = map->format.family == BSPKIT_FAMILY_GOLDSRC;
    for (uint32_t i = 0; i < count; i++) {
        bspkit_miptex *t = &tex[i];
        int32_t ofs = (int32_t)rd_le32(d + 4 + 4 * (size_t)i);
        if (ofs < 0) { /* compilers write -1 for a texture they could not find */
            t->lump_offset = -1;
            continue;
        }
        t->lump_offset = ofs;
        if (!range_ok((uint32_t)ofs, 40, size)) {
            r = tex_fail(map, err, (uint32_t)ofs, i, NULL, "header needs 40 bytes, lump ends at %zu", size);
            goto fail;
        }
        const uint8_t *m = d + ofs;
        memcpy(t->name, m, 16);
        t->name[16] = '\0';
        t->width = rd_le32(m + 16);
        t->height = rd_le32(m + 20);
        for (int k = 0; k < 4; k++)
            t->mip_offsets[k] = rd_le32(m + 24 + 4 * k);
        t->embedded = t->mip_offsets[0] != 0;
        if (t->width > MAX_MIPTEX_DIMENSION || t->height > MAX_MIPTEX_DIMENSION) {
            r = tex_fail(map, err, (uint32_t)ofs, i, t->name, "size %ux%u is implausible", t->width, t->height);
            goto fail;
        }
        if (!t->embedded)
            continue;
        for (int k = 0; k < 4; k++) {
            uint64_t at = (uint64_t)(uint32_t)ofs + t->mip_offsets[k];
            uint64_t bytes = (uint64_t)(t->width >> k) * (t->height >> k);
            if (!range_ok(at, bytes, size)) {
                r = tex_fail(map, err, at, i, t->name, "mip level %d of %llu bytes runs past the lump", k,
                             (unsigned long long)bytes);
                goto fail;
            }
            t->mips[k] = d + at;
        }
        if (goldsrc) {
            /* GoldSrc: uint16 palette size and RGB triples follow the smallest mip. */
            uint64_t at = (uint64_t)(uint32_t)ofs + t->mip_offsets[3] + (uint64_t)(t->width >> 3) * (t->height >> 3);
            if (!range_ok(at, 2, size)) {
                r = tex_fail(map, err, at, i, t->name, "palette size missing (lump ends at %zu)", size);
                goto fail;
            }
            uint16_t colours = rd_le16(d + at);
            if (colours > 256 || !range_ok(at + 2, 3ull * colours, size)) {
                r = tex_fail(map, err, at, i, t->name, "palette of %u colours does not fit (lump ends at %zu)",
                             (unsigned)colours, size);
                goto fail;
            }
            t->palette_size = colours;
            t->palette = d + at + 2;
        }
    }
    map->miptex.items = map->miptex.owned = tex;
    map->miptex.count = count;
    return BSPKIT_OK;
fail:
    bk_free(map, tex, (size_t)count * sizeof *tex);
    return r;
}

bspkit_result bspkit_get_miptex(bspkit_map *map, const bspkit_miptex **out, size_t *count, bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !out || !count)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_get_miptex: NULL argument");
    *out = NULL;
    *count = 0;
    /* Only Quake and GoldSrc embed miptex (Source has texdata, Quake 2 names textures). */
    if (map->format.family != BSPKIT_FAMILY_QUAKE && map->format.family != BSPKIT_FAMILY_GOLDSRC)
        return BSPKIT_OK;
    if (!map->miptex.done) {
        bspkit_error e;
        bk_error_clear(&e);
        map->miptex.done = true;
        map->miptex.result = bk_decode_miptex(map, &e);
        if (map->miptex.result != BSPKIT_OK)
            map->miptex.error = bk_keep_error(map, &e);
    }
    if (map->miptex.result != BSPKIT_OK) {
        bk_error_copy(err, map->miptex.error);
        return map->miptex.result;
    }
    *out = map->miptex.items;
    *count = map->miptex.count;
    return BSPKIT_OK;
}
