/* Format detection from bytes alone, and reading of the lump directory. */
#include "core/map.h"

#include <stdio.h>
#include <string.h>

#define Q_HEADER_SIZE (4 + 15 * 8)
#define S_HEADER_SIZE (8 + 64 * 16 + 4)

/* ------------------------------------------------------------------------ */
/* Names                                                                     */
/* ------------------------------------------------------------------------ */

static const char *const Q_NAMES[BSPKIT_Q_LUMP_COUNT] = {
    "ENTITIES", "PLANES", "TEXTURES", "VERTEXES", "VISIBILITY", "NODES", "TEXINFO", "FACES",
    "LIGHTING", "CLIPNODES", "LEAFS", "MARKSURFACES", "EDGES", "SURFEDGES", "MODELS"};
static const char *const Q_KEYS[BSPKIT_Q_LUMP_COUNT] = {
    NULL, "planes", NULL, "vertexes", NULL, "nodes", "texinfo", "faces",
    NULL, "clipnodes", "leafs", "marksurfaces", "edges", "surfedges", "models"};

static const char *const S_NAMES[BSPKIT_S_LUMP_COUNT] = {
    "ENTITIES", "PLANES", "TEXDATA", "VERTEXES", "VISIBILITY", "NODES", "TEXINFO", "FACES",
    "LIGHTING", "OCCLUSION", "LEAFS", "FACEIDS", "EDGES", "SURFEDGES", "MODELS", "WORLDLIGHTS",
    "LEAFFACES", "LEAFBRUSHES", "BRUSHES", "BRUSHSIDES", "AREAS", "AREAPORTALS", "PORTALS",
    "CLUSTERS", "PORTALVERTS", "CLUSTERPORTALS", "DISPINFO", "ORIGINALFACES", "PHYSDISP",
    "PHYSCOLLIDE", "VERTNORMALS", "VERTNORMALINDICES", "DISP_LIGHTMAP_ALPHAS", "DISP_VERTS",
    "DISP_LIGHTMAP_SAMPLE_POSITIONS", "GAME_LUMP", "LEAFWATERDATA", "PRIMITIVES", "PRIMVERTS",
    "PRIMINDICES", "PAKFILE", "CLIPPORTALVERTS", "CUBEMAPS", "TEXDATA_STRING_DATA",
    "TEXDATA_STRING_TABLE", "OVERLAYS", "LEAFMINDISTTOWATER", "FACE_MACRO_TEXTURE_INFO",
    "DISP_TRIS", "PHYSCOLLIDESURFACE", "WATEROVERLAYS", "LEAF_AMBIENT_INDEX_HDR",
    "LEAF_AMBIENT_INDEX", "LIGHTING_HDR", "WORLDLIGHTS_HDR", "LEAF_AMBIENT_LIGHTING_HDR",
    "LEAF_AMBIENT_LIGHTING", "XZIPPAKFILE", "FACES_HDR", "MAP_FLAGS", "OVERLAY_FADES",
    "OVERLAY_SYSTEM_LEVELS", "PHYSLEVEL", "DISP_MULTIBLEND"};
static const char *const S_KEYS[BSPKIT_S_LUMP_COUNT] = {
    NULL, "planes", "texdata", "vertexes", NULL, "nodes", "texinfo", "faces",
    NULL, NULL, "leafs", "faceids", "edges", "surfedges", "models", "worldlights",
    "leaffaces", "leafbrushes", "brushes", "brushsides", "areas", "areaportals", NULL,
    NULL, NULL, NULL, "dispinfo", "origfaces", NULL,
    NULL, "vertnormals", "vertnormalindices", NULL, "dispverts",
    NULL, NULL, "leafwaterdata", "primitives", "primverts",
    "primindices", NULL, "clipportalverts", "cubemaps", NULL,
    "texdata_string_table", "overlays", "leafmindisttowater", "face_macro_texture_info",
    "disptris", NULL, "wateroverlays", "leaf_ambient_index_hdr",
    "leaf_ambient_index", NULL, "worldlights_hdr", "leaf_ambient_lighting_hdr",
    "leaf_ambient_lighting", NULL, "faces_hdr", NULL, "overlay_fades",
    "overlay_system_levels", NULL, NULL};

/* Source v21+ reuses slots 22-25 for static-prop collision data. */
static const char *const S_NAMES_V21[4] = {"PROPCOLLISION", "PROPHULLS", "PROPHULLVERTS", "PROPTRIS"};

const char *bk_lump_name(const bspkit_map *map, int index)
{
    if (!map || index < 0 || index >= map->lump_count)
        return "lump";
    if (map->format.family != BSPKIT_FAMILY_SOURCE)
        return Q_NAMES[index];
    if (index >= 22 && index <= 25 && map->format.version >= 21)
        return S_NAMES_V21[index - 22];
    if (index == BSPKIT_S_PROP_BLOB && map->format.version >= 21)
        return "PROP_BLOB";
    return S_NAMES[index];
}

const char *bk_lump_key(const bspkit_map *map, int index)
{
    if (!map || index < 0 || index >= map->lump_count)
        return NULL;
    return map->format.family == BSPKIT_FAMILY_SOURCE ? S_KEYS[index] : Q_KEYS[index];
}

const char *bspkit_family_name(bspkit_family family)
{
    switch (family) {
    case BSPKIT_FAMILY_QUAKE: return "quake";
    case BSPKIT_FAMILY_GOLDSRC: return "goldsrc";
    case BSPKIT_FAMILY_SOURCE: return "source";
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
static bool foreign_format(const uint8_t *d, size_t size, bspkit_error *err, bspkit_result *r)
{
    char what[96];
    int32_t ver = size >= 8 ? (int32_t)rd_le32(d + 4) : -1;
    if (magic_is(d, "IBSP")) {
        const char *game = ver == 38 ? "Quake 2" : ver == 46 ? "Quake 3" : ver == 47 ? "Return to Castle Wolfenstein / Enemy Territory"
                         : ver == 22 ? "Call of Duty 4" : ver == 59 ? "Call of Duty" : "id Tech 2/3 family";
        snprintf(what, sizeof what, "%s IBSP version %d", game, (int)ver);
    } else if (magic_is(d, "rBSP")) {
        snprintf(what, sizeof what, "Respawn rBSP version %d (Titanfall / Apex Legends)", (int)ver);
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
    } else if (magic_is(d, "VBSP") && ver == 0x40014) {
        snprintf(what, sizeof what, "Dark Messiah of Might and Magic VBSP (version 0x40014)");
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

/* Does the byte range look like entity text (first non-blank byte '{')? */
static bool looks_like_entities(const uint8_t *d, size_t size, uint32_t ofs, uint32_t len)
{
    if (!range_ok(ofs, len, size) || len == 0)
        return false;
    for (uint32_t i = 0; i < len && i < 256; i++) {
        uint8_t c = d[ofs + i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
            continue;
        return c == '{';
    }
    return false;
}

/*
 * Version-29 files are either Quake maps or early Half-Life maps with GoldSrc
 * lumps. The number does not tell; the content does: an embedded GoldSrc
 * miptex carries a 256-entry palette after its mips, and GoldSrc lighting is
 * RGB, so every lightmap offset is a multiple of three.
 */
static bool v29_has_goldsrc_lumps(const uint8_t *d, size_t size)
{
    uint32_t tofs = rd_le32(d + 4 + 8 * BSPKIT_Q_TEXTURES), tlen = rd_le32(d + 8 + 8 * BSPKIT_Q_TEXTURES);
    if (range_ok(tofs, tlen, size) && tlen >= 4) {
        const uint8_t *t = d + tofs;
        uint32_t n = rd_le32(t);
        for (uint32_t i = 0; i < n && (uint64_t)4 + 4 * (uint64_t)i + 4 <= tlen && i < 4096; i++) {
            int32_t mo = (int32_t)rd_le32(t + 4 + 4 * i);
            if (mo < 0 || !range_ok((uint32_t)mo, 40, tlen))
                continue;
            const uint8_t *m = t + mo;
            uint32_t w = rd_le32(m + 16), h = rd_le32(m + 20), o3 = rd_le32(m + 36);
            if (rd_le32(m + 24) == 0 || w == 0 || h == 0 || w > 4096 || h > 4096)
                continue;
            uint64_t pal = (uint64_t)(uint32_t)mo + o3 + (uint64_t)(w / 8) * (h / 8);
            if (pal + 2 <= tlen)
                return rd_le16(t + pal) == 256;
            return false;
        }
    }
    uint32_t lofs = rd_le32(d + 4 + 8 * BSPKIT_Q_FACES), llen = rd_le32(d + 8 + 8 * BSPKIT_Q_FACES);
    uint32_t light_len = rd_le32(d + 8 + 8 * BSPKIT_Q_LIGHTING);
    if (!range_ok(lofs, llen, size) || light_len == 0 || light_len % 3)
        return false;
    unsigned lit = 0;
    for (uint32_t f = 0; f + 20 <= llen; f += 20) {
        int32_t o = (int32_t)rd_le32(d + lofs + f + 16);
        if (o < 0)
            continue;
        if (o % 3)
            return false;
        lit++;
    }
    return lit >= 3;
}

static bspkit_result detect_quake(const uint8_t *d, size_t size, bspkit_format *f, bspkit_error *err)
{
    if (size < Q_HEADER_SIZE)
        return bk_fail(err, BSPKIT_ERR_TRUNCATED, -1, (int64_t)size, -1,
                       "truncated: %zu bytes, but a Quake/GoldSrc header needs %d", size, Q_HEADER_SIZE);
    f->lump_count = BSPKIT_Q_LUMP_COUNT;
    if (magic_is(d, "BSP2") || magic_is(d, "2PSB")) {
        f->family = BSPKIT_FAMILY_QUAKE;
        f->version = 29;
        f->variant |= d[0] == 'B' ? BSPKIT_VARIANT_BSP2 : BSPKIT_VARIANT_2PSB;
        snprintf(f->name, sizeof f->name, "Quake %.4s", (const char *)d);
    } else {
        f->version = (int32_t)rd_le32(d);
        if (f->version == 30) {
            f->family = BSPKIT_FAMILY_GOLDSRC;
            /* Blue Shift stores PLANES in slot 0 and ENTITIES in slot 1. */
            uint32_t o0 = rd_le32(d + 4), l0 = rd_le32(d + 8), o1 = rd_le32(d + 12), l1 = rd_le32(d + 16);
            if (!looks_like_entities(d, size, o0, l0) && looks_like_entities(d, size, o1, l1) && l0 % 20 == 0)
                f->variant |= BSPKIT_VARIANT_BLUESHIFT;
            snprintf(f->name, sizeof f->name, "GoldSrc BSP30%s",
                     f->variant & BSPKIT_VARIANT_BLUESHIFT ? " (Blue Shift)" : "");
        } else {
            f->family = v29_has_goldsrc_lumps(d, size) ? BSPKIT_FAMILY_GOLDSRC : BSPKIT_FAMILY_QUAKE;
            snprintf(f->name, sizeof f->name, "%s BSP29",
                     f->family == BSPKIT_FAMILY_GOLDSRC ? "GoldSrc (version 29)" : "Quake");
        }
    }
    /* BSPX: an extension directory after the last lump, 4-byte aligned. */
    if (bk_bspx_offset(d, size))
        f->variant |= BSPKIT_VARIANT_BSPX;
    return BSPKIT_OK;
}

/* A directory entry is plausible when empty or fully inside the file past the header. */
static bool entry_plausible(uint32_t ofs, uint32_t len, uint32_t ver, size_t size)
{
    if (len == 0)
        return true;
    return ofs >= S_HEADER_SIZE && range_ok(ofs, len, size) && ver < 0x10000;
}

/* Left 4 Dead 2 stores lump_t as {version, offset, length, fourCC}: pick the order that makes sense. */
static bool l4d2_directory(const uint8_t *d, size_t size, bool be)
{
    int standard = 0, swapped = 0;
    for (int i = 0; i < 64; i++) {
        const uint8_t *e = d + 8 + 16 * i;
        uint32_t a = rd_u32(e, be), b = rd_u32(e + 4, be), c = rd_u32(e + 8, be);
        standard += entry_plausible(a, b, c, size);
        swapped += entry_plausible(b, c, a, size);
    }
    return swapped > standard;
}

static bspkit_result detect_source(const uint8_t *d, size_t size, bspkit_format *f, bspkit_error *err)
{
    bool be = magic_is(d, "PSBV");
    f->family = BSPKIT_FAMILY_SOURCE;
    f->big_endian = be;
    f->lump_count = BSPKIT_S_LUMP_COUNT;
    if (size < 8)
        return bk_fail(err, BSPKIT_ERR_TRUNCATED, -1, (int64_t)size, -1,
                       "truncated: %zu bytes, but a Source header needs %d", size, S_HEADER_SIZE);
    f->version = (int32_t)rd_u32(d + 4, be);
    /* 17 (Bloodlines) through the Strata v25 line and the later numbers seen in the wild. */
    if (f->version < 17 || f->version > 64) {
        bspkit_result r;
        foreign_format(d, size, err, &r);
        return r;
    }
    if (size < S_HEADER_SIZE)
        return bk_fail(err, BSPKIT_ERR_TRUNCATED, -1, (int64_t)size, -1,
                       "truncated: %zu bytes, but a Source header needs %d", size, S_HEADER_SIZE);
    f->revision = (int32_t)rd_u32(d + 8 + 64 * 16, be);
    if (l4d2_directory(d, size, be))
        f->variant |= BSPKIT_VARIANT_L4D2_DIRECTORY;
    snprintf(f->name, sizeof f->name, "Source VBSP %d%s", (int)f->version, be ? " (big-endian)" : "");
    return BSPKIT_OK;
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
    if (magic_is(d, "VBSP") || magic_is(d, "PSBV")) {
        if (magic_is(d, "VBSP") && size >= 8 && rd_le32(d + 4) == 0x40014) {
            bspkit_result r;
            foreign_format(d, size, err, &r);
            return r;
        }
        return detect_source(d, size, out, err);
    }
    if (magic_is(d, "BSP2") || magic_is(d, "2PSB") || rd_le32(d) == 29 || rd_le32(d) == 30)
        return detect_quake(d, size, out, err);
    bspkit_result r;
    if (foreign_format(d, size, err, &r))
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
    const char *name = bk_lump_name(map, i);
    if (l->length && !range_ok(l->offset, l->length, map->size))
        return bk_fail(err, BSPKIT_ERR_LUMP_RANGE, i, l->offset, -1,
                       "%s (lump %d): offset %u + length %u runs past the end of the %zu-byte file", name, i,
                       l->offset, l->length, map->size);
    l->uncompressed_length = l->length;
    if (map->format.family == BSPKIT_FAMILY_SOURCE && l->length && i != BSPKIT_S_PAKFILE &&
        i != BSPKIT_S_GAME_LUMP && bk_is_lzma(map->data + l->offset, l->length)) {
        uint32_t actual, packed;
        if (!bk_lzma_sizes(map->data + l->offset, l->length, &actual, &packed))
            return bk_fail(err, BSPKIT_ERR_COMPRESSION, i, l->offset, 0,
                           "%s (lump %d): LZMA header at offset %u claims %u compressed bytes but the lump holds %u",
                           name, i, l->offset, packed, l->length - BK_LZMA_HEADER_SIZE);
        if (l->fourcc && l->fourcc != actual)
            return bk_fail(err, BSPKIT_ERR_COMPRESSION, i, l->offset, 0,
                           "%s (lump %d): directory says %u uncompressed bytes, LZMA header says %u", name, i,
                           l->fourcc, actual);
        l->compressed = true;
        l->uncompressed_length = actual;
        map->format.variant |= BSPKIT_VARIANT_COMPRESSED;
    }
    l->layout = map->format.family == BSPKIT_FAMILY_SOURCE ? bk_source_layout(map, i) : bk_quake_layout(map, i);
    if (l->layout.record_size && l->uncompressed_length % l->layout.record_size)
        return bk_fail(err, BSPKIT_ERR_LUMP_SIZE, i, l->offset, -1,
                       "%s (lump %d, version %d): %u bytes is not a multiple of the %u-byte record", name, i,
                       (int)l->version, l->uncompressed_length, l->layout.record_size);
    return BSPKIT_OK;
}

bspkit_result bk_read_directory(bspkit_map *map, bspkit_error *err)
{
    const uint8_t *d = map->data;
    map->lump_count = map->format.lump_count;
    if (map->format.family == BSPKIT_FAMILY_SOURCE) {
        bool be = map->format.big_endian, l4d2 = map->format.variant & BSPKIT_VARIANT_L4D2_DIRECTORY;
        for (int i = 0; i < 64; i++) {
            const uint8_t *e = d + 8 + 16 * i;
            uint32_t a = rd_u32(e, be), b = rd_u32(e + 4, be), c = rd_u32(e + 8, be);
            bk_lump *l = &map->lumps[i];
            l->offset = l4d2 ? b : a;
            l->length = l4d2 ? c : b;
            l->version = (int32_t)(l4d2 ? a : c);
            l->fourcc = rd_u32(e + 12, be);
        }
        /* Strata's v25 widens indices to 32 bits and marks those lumps with new versions. */
        if (map->format.version >= 25 && map->lumps[BSPKIT_S_FACES].version == 2)
            map->format.variant |= BSPKIT_VARIANT_WIDE_LUMPS;
    } else {
        bool blueshift = map->format.variant & BSPKIT_VARIANT_BLUESHIFT;
        for (int i = 0; i < BSPKIT_Q_LUMP_COUNT; i++) {
            int slot = blueshift && i < 2 ? 1 - i : i;
            map->lumps[i].offset = rd_le32(d + 4 + 8 * slot);
            map->lumps[i].length = rd_le32(d + 8 + 8 * slot);
        }
    }
    for (int i = 0; i < map->lump_count; i++) {
        bspkit_result r = check_lump(map, i, err);
        if (r != BSPKIT_OK)
            return r;
    }
    return BSPKIT_OK;
}
