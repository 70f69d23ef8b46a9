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

static bool claims(const uint8_t *d, size_t size)
{
    (void)size;
    return memcmp(d, "VBSP", 4) == 0 || memcmp(d, "PSBV", 4) == 0;
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

static bspkit_result detect(const uint8_t *d, size_t size, bspkit_format *f, bspkit_error *err)
{
    bspkit_result r;
    /* Dark Messiah's VBSP variant is named, not read. */
    if (memcmp(d, "VBSP", 4) == 0 && size >= 8 && rd_le32(d + 4) == 0x40014) {
        bk_name_unsupported_format(d, size, err, &r);
        return r;
    }
    bool be = memcmp(d, "PSBV", 4) == 0;
    f->family = BSPKIT_FAMILY_SOURCE;
    f->big_endian = be;
    f->lump_count = BSPKIT_S_LUMP_COUNT;
    if (size < 8)
        return bk_fail(err, BSPKIT_ERR_TRUNCATED, -1, (int64_t)size, -1,
                       "truncated: %zu bytes, but a Source header needs %d", size, S_HEADER_SIZE);
    f->version = (int32_t)rd_u32(d + 4, be);
    /* 17 (Bloodlines) through the Strata v25 line and the later numbers seen in the wild. */
    if (f->version < 17 || f->version > 64) {
        bk_name_unsupported_format(d, size, err, &r);
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

static void read_directory(bspkit_map *map)
{
    bool be = map->format.big_endian, l4d2 = map->format.variant & BSPKIT_VARIANT_L4D2_DIRECTORY;
    for (int i = 0; i < 64; i++) {
        const uint8_t *e = map->data + 8 + 16 * i;
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
