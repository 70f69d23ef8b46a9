/* The Source family: VBSP (little-endian) and PSBV (big-endian console)
 * files, versions 17 to 64 as seen in the wild, Left 4 Dead 2's reordered
 * directory and Strata Source's widened lumps: detection, the lump
 * directory, lump names and record layouts. */
#include "bspkit/lighting.h"
#include "core/family.h"
#include "formats/source/family.h"
#include "formats/source/records.h"

#include <stdio.h>
#include <string.h>

#define S_HEADER_SIZE (8 + 64 * 16 + 4)

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

static bool reads(bspkit_family family) { return family == BSPKIT_FAMILY_SOURCE; }

/* Tactical Intervention XORs the whole file with a 32-byte key, byte i with
 * key[i % 32]. Its maps leave directory entries 23 to 25 empty, so the plain
 * file holds 32 zero bytes at offset 384 and the encrypted file holds the key
 * itself there: a file whose first bytes XORed with those at 384 read "VBSP"
 * is taken to be such a file (a heuristic: a map with data in those entries
 * would not be recognised). */
bool bk_source_xor_encrypted(const uint8_t *d, size_t size)
{
    if (size < S_HEADER_SIZE || memcmp(d, "VBSP", 4) == 0 || memcmp(d, "PSBV", 4) == 0)
        return false;
    for (int i = 0; i < 4; i++)
        if ((uint8_t)(d[i] ^ d[BK_XOR_KEY_OFFSET + i]) != (uint8_t)"VBSP"[i])
            return false;
    return true;
}

static bool claims(const uint8_t *d, size_t size)
{
    return memcmp(d, "VBSP", 4) == 0 || memcmp(d, "PSBV", 4) == 0 || bk_source_xor_encrypted(d, size);
}

/* A directory entry is plausible when empty or fully inside the file past the header. */
static bool entry_plausible(uint32_t ofs, uint32_t len, uint32_t ver, size_t size)
{
    if (len == 0)
        return true;
    return ofs >= S_HEADER_SIZE && range_ok(ofs, len, size) && ver < 0x10000;
}

/* Entries among the 64 of a directory at `start` that are plausible in the
 * standard {offset, length, version} order (or, with `l4d2`, in Left 4 Dead
 * 2's {version, offset, length}). */
static int plausible_entries(const uint8_t *d, size_t start, size_t size, bool be, bool l4d2)
{
    int n = 0;
    for (int i = 0; i < 64; i++) {
        const uint8_t *e = d + start + 16 * i;
        uint32_t a = rd_u32(e, be), b = rd_u32(e + 4, be), c = rd_u32(e + 8, be);
        n += l4d2 ? entry_plausible(b, c, a, size) : entry_plausible(a, b, c, size);
    }
    return n;
}

/* Left 4 Dead 2 stores lump_t as {version, offset, length, fourCC}: pick the order that makes sense. */
static bool l4d2_directory(const uint8_t *d, size_t size, bool be)
{
    return plausible_entries(d, 8, size, be, true) > plausible_entries(d, 8, size, be, false);
}

/* Bytes before the lump directory: Contagion's v27 header has one more int
 * after the version. */
static size_t directory_start(unsigned variant) { return variant & BSPKIT_VARIANT_CONTAGION ? 12 : 8; }

/* Whether `count` game-lump entries of `stride` bytes after the count all
 * carry a four-character id of letters and digits. */
static bool game_lump_ids_plausible(const uint8_t *g, size_t size, uint32_t count, size_t stride)
{
    if (count == 0 || (size - 4) / stride < count)
        return false;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *id = g + 4 + stride * i;
        for (int k = 0; k < 4; k++)
            if (!((id[k] >= '0' && id[k] <= '9') || (id[k] >= 'a' && id[k] <= 'z') || (id[k] >= 'A' && id[k] <= 'Z')))
                return false;
    }
    return true;
}

/* Vindictus (VBSP 20) widens dgamelump_t's flags and version to ints (20
 * bytes per entry): its game-lump directory reads as ids only with that
 * stride. A heuristic from the bytes: a map with one game lump reads the same
 * both ways and is taken as standard. */
static bool vindictus_game_lumps(const uint8_t *d, size_t size)
{
    const uint8_t *e = d + 8 + 16 * BSPKIT_S_GAME_LUMP;
    uint32_t ofs = rd_le32(e), len = rd_le32(e + 4);
    if (len < 4 || !range_ok(ofs, len, size) || bk_is_lzma(d + ofs, len))
        return false;
    const uint8_t *g = d + ofs;
    uint32_t count = rd_le32(g);
    return !game_lump_ids_plausible(g, len, count, 16) && game_lump_ids_plausible(g, len, count, 20);
}

static bspkit_result detect(const uint8_t *data, size_t size, bspkit_format *f, bspkit_error *err)
{
    /* Tactical Intervention: detection reads the decrypted header. */
    uint8_t plain[S_HEADER_SIZE + 4] = {0};
    const uint8_t *d = data;
    bool xor = bk_source_xor_encrypted(data, size);
    if (xor) {
        for (size_t i = 0; i < sizeof plain && i < size; i++)
            plain[i] = data[i] ^ data[BK_XOR_KEY_OFFSET + i % BK_XOR_KEY_SIZE];
        d = plain;
    }
    bool be = memcmp(d, "PSBV", 4) == 0;
    f->family = BSPKIT_FAMILY_SOURCE;
    f->big_endian = be;
    f->lump_count = BSPKIT_S_LUMP_COUNT;
    if (xor)
        f->variant |= BSPKIT_VARIANT_XOR_ENCRYPTED;
    if (size < 8)
        return bk_fail(err, BSPKIT_ERR_TRUNCATED, -1, (int64_t)size, -1,
                       "truncated: %zu bytes, but a Source header needs %d", size, S_HEADER_SIZE);
    f->version = (int32_t)rd_u32(d + 4, be);
    /* Dark Messiah writes 20 | 4 << 16: the BSP version in the low half. */
    if (!be && f->version == 0x40014) {
        f->version = 20;
        f->variant |= BSPKIT_VARIANT_DARK_MESSIAH;
    }
    /* 17 (Bloodlines) through the Strata v25 line and the later numbers seen in the wild. */
    if (f->version < 17 || f->version > 64) {
        bspkit_result r;
        bk_name_unsupported_format(d, size, err, &r);
        return r;
    }
    if (size < S_HEADER_SIZE)
        return bk_fail(err, BSPKIT_ERR_TRUNCATED, -1, (int64_t)size, -1,
                       "truncated: %zu bytes, but a Source header needs %d", size, S_HEADER_SIZE);
    /* Contagion (v27): the directory reads as one only 4 bytes further on. */
    if (f->version == 27 && !xor && size >= S_HEADER_SIZE + 4 &&
        plausible_entries(d, 12, size, be, false) > plausible_entries(d, 8, size, be, false))
        f->variant |= BSPKIT_VARIANT_CONTAGION;
    size_t start = directory_start(f->variant);
    f->revision = (int32_t)rd_u32(d + start + 64 * 16, be);
    if (!(f->variant & BSPKIT_VARIANT_CONTAGION) && l4d2_directory(d, size, be))
        f->variant |= BSPKIT_VARIANT_L4D2_DIRECTORY;
    if (f->version == 20 && !be && !xor && !(f->variant & BSPKIT_VARIANT_DARK_MESSIAH) &&
        vindictus_game_lumps(d, size))
        f->variant |= BSPKIT_VARIANT_VINDICTUS;
    if (f->version == 22 || f->version == 23)
        f->variant |= BSPKIT_VARIANT_DOTA2_BETA;
    const char *game = be ? "big-endian"
                     : f->variant & BSPKIT_VARIANT_DARK_MESSIAH ? "Dark Messiah"
                     : f->variant & BSPKIT_VARIANT_VINDICTUS ? "Vindictus"
                     : xor ? "Tactical Intervention"
                     : f->variant & BSPKIT_VARIANT_CONTAGION ? "Contagion"
                     : f->variant & BSPKIT_VARIANT_DOTA2_BETA ? "Dota 2 beta"
                     : f->version == 18 ? "Half-Life 2 beta"
                     : NULL;
    if (game)
        snprintf(f->name, sizeof f->name, "Source VBSP %d (%s)", (int)f->version, game);
    else
        snprintf(f->name, sizeof f->name, "Source VBSP %d", (int)f->version);
    return BSPKIT_OK;
}

/* v18 (HL2 beta era) faces are 72 bytes; FACE_MACRO_TEXTURE_INFO holds one
 * entry per face, so where 56-byte records would fit too its count decides. */
static bool v18_faces(const bspkit_map *map)
{
    uint32_t len = map->lumps[BSPKIT_S_FACES].length;
    uint32_t macro = map->lumps[BSPKIT_S_FACE_MACRO_TEXTURE_INFO].length / 2;
    if (map->format.version != 18 || map->lumps[BSPKIT_S_FACES].fourcc || len % 72)
        return false;
    return !(len % 56 == 0 && macro && len / 56 == macro);
}

static void read_directory(bspkit_map *map)
{
    bool be = map->format.big_endian, l4d2 = map->format.variant & BSPKIT_VARIANT_L4D2_DIRECTORY;
    size_t start = directory_start(map->format.variant);
    for (int i = 0; i < 64; i++) {
        const uint8_t *e = map->data + start + 16 * i;
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
    if (v18_faces(map))
        map->format.variant |= BSPKIT_VARIANT_V18_FACES;
}

/* The pakfile is a zip and the game lump holds its own compression. */
static bool lump_may_be_compressed(const bspkit_map *map, int lump)
{
    (void)map;
    return lump != BSPKIT_S_PAKFILE && lump != BSPKIT_S_GAME_LUMP;
}

const char *bk_source_lump_name(int32_t version, int index)
{
    if (index < 0 || index >= BSPKIT_S_LUMP_COUNT)
        return "lump";
    if (index >= 22 && index <= 25 && version >= 21)
        return S_NAMES_V21[index - 22];
    if (index == BSPKIT_S_PROP_BLOB && version >= 21)
        return "PROP_BLOB";
    return S_NAMES[index];
}

static const char *lump_name(const bspkit_map *map, int index)
{
    return bk_source_lump_name(map->format.version, index);
}

static const char *lump_key(const bspkit_map *map, int index)
{
    (void)map;
    return S_KEYS[index];
}

/* The decoded-array slot of each lump with a schema. */
static int decoded_slot(int lump)
{
    switch (lump) {
    case BSPKIT_S_PLANES: return BK_REC_PLANES;
    case BSPKIT_S_TEXDATA: return BK_REC_TEXDATA;
    case BSPKIT_S_VERTEXES: return BK_REC_VERTEXES;
    case BSPKIT_S_NODES: return BK_REC_NODES;
    case BSPKIT_S_TEXINFO: return BK_REC_TEXINFO;
    case BSPKIT_S_FACES: return BK_REC_FACES;
    case BSPKIT_S_ORIGINALFACES: return BK_REC_ORIG_FACES;
    case BSPKIT_S_FACES_HDR: return BK_REC_HDR_FACES;
    case BSPKIT_S_LEAFS: return BK_REC_LEAFS;
    case BSPKIT_S_EDGES: return BK_REC_EDGES;
    case BSPKIT_S_SURFEDGES: return BK_REC_SURFEDGES;
    case BSPKIT_S_MODELS: return BK_REC_MODELS;
    case BSPKIT_S_LEAFFACES: return BK_REC_LEAF_FACES;
    case BSPKIT_S_LEAFBRUSHES: return BK_REC_LEAF_BRUSHES;
    case BSPKIT_S_BRUSHES: return BK_REC_BRUSHES;
    case BSPKIT_S_BRUSHSIDES: return BK_REC_BRUSHSIDES;
    case BSPKIT_S_AREAS: return BK_REC_AREAS;
    case BSPKIT_S_AREAPORTALS: return BK_REC_AREAPORTALS;
    case BSPKIT_S_CUBEMAPS: return BK_REC_CUBEMAPS;
    case BSPKIT_S_TEXDATA_STRING_TABLE: return BK_REC_STRING_TABLE;
    default: return -1;
    }
}

#define RECORDS(size) ((bk_layout){(size), 0, NULL, -1, NULL})
#define NOT_ARRAY ((bk_layout){0, 0, NULL, -1, NULL})

static bk_layout layout(const bspkit_map *map, int lump)
{
    int32_t v = map->lumps[lump].version;
    const bk_schema *s = bk_source_schema(map->format.version, map->format.variant, lump, v);
    if (s)
        return bk_schema_layout(s, decoded_slot(lump));
    bool wide = (map->format.variant & BSPKIT_VARIANT_WIDE_LUMPS) && v >= 1;
    switch (lump) {
    /* Record arrays decoded elsewhere or later; their sizes are still checked at open. */
    case BSPKIT_S_DISPINFO:
    case BSPKIT_S_DISP_VERTS:
    case BSPKIT_S_DISP_TRIS:
    case BSPKIT_S_WORLDLIGHTS:
    case BSPKIT_S_WORLDLIGHTS_HDR:
    case BSPKIT_S_LEAF_AMBIENT_INDEX:
    case BSPKIT_S_LEAF_AMBIENT_INDEX_HDR:
    case BSPKIT_S_LEAF_AMBIENT_LIGHTING:
    case BSPKIT_S_LEAF_AMBIENT_LIGHTING_HDR:
        s = bk_source_array_schema(map->format.version, map->format.variant, lump, v);
        return s ? RECORDS(s->record_size) : NOT_ARRAY;
    case BSPKIT_S_VERTNORMALS: return RECORDS(12);
    case BSPKIT_S_VERTNORMALINDICES: return wide ? RECORDS(4) : RECORDS(2);
    case BSPKIT_S_CLIPPORTALVERTS: return RECORDS(12);
    case BSPKIT_S_PRIMVERTS: return RECORDS(12);
    case BSPKIT_S_PRIMINDICES: return wide ? RECORDS(4) : RECORDS(2);
    default: return NOT_ARRAY;
    }
}

/* The Source map CRC servers compare: CRC32 over every lump but ENTITIES. */
bspkit_result bspkit_map_crc(bspkit_map *map, uint32_t *crc, bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !crc)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_map_crc: NULL argument");
    if (map->format.family != BSPKIT_FAMILY_SOURCE)
        return bk_fail(err, BSPKIT_ERR_NOT_FOUND, -1, -1, -1, "the map CRC is defined for Source maps only");
    uint32_t c = 0;
    for (int i = 0; i < map->lump_count; i++) {
        if (i == BSPKIT_S_ENTITIES)
            continue;
        const bk_lump *l = &map->lumps[i];
        if (l->length) /* empty lumps may carry any offset */
            c = bk_crc32(map->data + l->offset, l->length, c);
    }
    *crc = c;
    return BSPKIT_OK;
}

static int lump_for(const bspkit_map *map, bk_lump_role role)
{
    (void)map;
    switch (role) {
    case BK_ROLE_LIGHTING: return BSPKIT_S_LIGHTING;
    case BK_ROLE_LIGHTING_HDR: return BSPKIT_S_LIGHTING_HDR;
    case BK_ROLE_PAKFILE: return BSPKIT_S_PAKFILE;
    case BK_ROLE_VISIBILITY: return BSPKIT_S_VISIBILITY;
    case BK_ROLE_TEXDATA_STRING_DATA: return BSPKIT_S_TEXDATA_STRING_DATA;
    default: return -1;
    }
}

/* Cluster visibility; lightmaps are ColorRGBExp32, described by the faces themselves. */
static unsigned traits(const bspkit_map *map)
{
    (void)map;
    return BK_TRAIT_CLUSTER_VIS;
}

const bk_family_ops bk_source_family = {
    reads, claims, detect, read_directory, lump_may_be_compressed, lump_name, lump_key, layout, lump_for,
    bk_source_dump_tables, bk_source_dump_named, bk_source_raw_note, traits, BSPKIT_SURF_NOLIGHT, 0, NULL, NULL,
};
