/* The Quake 3 family: id's IBSP 46 (Quake 3, OpenArena and every q3map2
 * game) and IBSP 47 (Quake Live, Return to Castle Wolfenstein): detection,
 * the lump directory, lump names and record layouts. */
#include "core/family.h"
#include "formats/quake3/records.h"

#include <stdio.h>
#include <string.h>

#define Q3_VERSION 46
#define QL_VERSION 47
#define DIRECTORY 8 /* "IBSP" and the version */

static const char *const NAMES[BSPKIT_QL_LUMP_COUNT] = {
    "ENTITIES", "SHADERS", "PLANES", "NODES", "LEAFS", "LEAFSURFACES", "LEAFBRUSHES", "MODELS", "BRUSHES",
    "BRUSHSIDES", "DRAWVERTS", "DRAWINDEXES", "FOGS", "SURFACES", "LIGHTMAPS", "LIGHTGRID", "VISIBILITY",
    "ADVERTISEMENTS"};
static const char *const KEYS[BSPKIT_QL_LUMP_COUNT] = {
    NULL, "shaders", "planes", "nodes", "leafs", "leafsurfaces", "leafbrushes", "models", "brushes",
    "brushsides", "drawverts", "drawindexes", "fogs", "surfaces", NULL, "lightgrid", NULL, NULL};

static bool reads(bspkit_family family) { return family == BSPKIT_FAMILY_QUAKE3; }

static bool claims(const uint8_t *d, size_t size)
{
    if (size < 8 || memcmp(d, "IBSP", 4) != 0)
        return false;
    int32_t v = (int32_t)rd_le32(d + 4);
    return v == Q3_VERSION || v == QL_VERSION;
}

/* Whether directory entry `i` can be a lump of a directory of `lumps`
 * entries: inside the file and not inside the directory itself. */
static bool plausible_entry(const uint8_t *d, size_t size, int i, int lumps)
{
    uint64_t ofs = rd_le32(d + DIRECTORY + 8 * (size_t)i), len = rd_le32(d + DIRECTORY + 4 + 8 * (size_t)i);
    if (ofs + len > size)
        return false;
    return len == 0 || ofs >= DIRECTORY + 8 * (uint64_t)lumps;
}

/* Seventeen lumps, or eighteen when the file has Quake Live's
 * ADVERTISEMENTS entry (which newer q3map2 builds also write, empty, for
 * Quake 3). Older q3map2 builds put their "I LOVE MY Q3MAP2" banner right
 * after the seventeen entries, which no plausible entry reads as. */
static int lump_count_of(const uint8_t *d, size_t size)
{
    int n = BSPKIT_QL_LUMP_COUNT;
    if (size < DIRECTORY + 8 * (size_t)n || !plausible_entry(d, size, BSPKIT_QL_ADVERTISEMENTS, n))
        return BSPKIT_Q3_LUMP_COUNT;
    for (int i = 0; i < BSPKIT_Q3_LUMP_COUNT; i++)
        if (!plausible_entry(d, size, i, n))
            return BSPKIT_Q3_LUMP_COUNT;
    return n;
}

static bspkit_result detect(const uint8_t *d, size_t size, bspkit_format *f, bspkit_error *err)
{
    int32_t version = (int32_t)rd_le32(d + 4);
    size_t header = DIRECTORY + 8 * (size_t)BSPKIT_Q3_LUMP_COUNT;
    if (size < header)
        return bk_fail(err, BSPKIT_ERR_TRUNCATED, -1, (int64_t)size, -1,
                       "truncated: %zu bytes, but an IBSP %d header needs %zu", size, (int)version, header);
    f->family = BSPKIT_FAMILY_QUAKE3;
    f->version = version;
    f->lump_count = lump_count_of(d, size);
    snprintf(f->name, sizeof f->name, "%s IBSP %d", version == QL_VERSION ? "Quake Live / RTCW" : "Quake 3",
             (int)version);
    return BSPKIT_OK;
}

static void read_directory(bspkit_map *map) { bk_read_pair_directory(map, 8); }

static const char *lump_name(const bspkit_map *map, int lump)
{
    (void)map;
    return NAMES[lump];
}

static const char *lump_key(const bspkit_map *map, int lump)
{
    (void)map;
    return KEYS[lump];
}

static bk_layout layout(const bspkit_map *map, int lump)
{
    (void)map;
    switch (lump) {
    case BSPKIT_Q3_SHADERS: return bk_schema_layout(&bk_q3_shader, BK_REC_SHADERS);
    case BSPKIT_Q3_PLANES: return bk_schema_layout(&bk_q3_plane, BK_REC_PLANES);
    case BSPKIT_Q3_NODES: return bk_schema_layout(&bk_q3_node, BK_REC_NODES);
    case BSPKIT_Q3_LEAFS: return bk_schema_layout(&bk_q3_leaf, BK_REC_LEAFS);
    case BSPKIT_Q3_LEAFSURFACES: return bk_schema_layout(&bk_index32_schema, BK_REC_LEAF_FACES);
    case BSPKIT_Q3_LEAFBRUSHES: return bk_schema_layout(&bk_index32_schema, BK_REC_LEAF_BRUSHES);
    case BSPKIT_Q3_MODELS: return bk_schema_layout(&bk_q3_model, BK_REC_MODELS);
    case BSPKIT_Q3_BRUSHES: return bk_schema_layout(&bk_q3_brush, BK_REC_BRUSHES);
    case BSPKIT_Q3_BRUSHSIDES: return bk_schema_layout(&bk_q3_brushside, BK_REC_BRUSHSIDES);
    case BSPKIT_Q3_DRAWVERTS: return bk_schema_layout(&bk_q3_drawvert, BK_REC_DRAWVERTS);
    case BSPKIT_Q3_DRAWINDEXES: return bk_schema_layout(&bk_q3_drawindex, BK_REC_DRAWINDEXES);
    case BSPKIT_Q3_FOGS: return bk_schema_layout(&bk_q3_fog, BK_REC_FOGS);
    case BSPKIT_Q3_SURFACES: return bk_schema_layout(&bk_q3_surface, BK_REC_SURFACES);
    case BSPKIT_Q3_LIGHTGRID: return bk_schema_layout(&bk_q3_lightgrid, BK_REC_LIGHTGRID);
    default: return (bk_layout){0, 0, NULL, -1, NULL};
    }
}

static int lump_for(const bspkit_map *map, bk_lump_role role)
{
    (void)map;
    switch (role) {
    case BK_ROLE_LIGHTING: return BSPKIT_Q3_LIGHTMAPS;
    case BK_ROLE_VISIBILITY: return BSPKIT_Q3_VISIBILITY;
    default: return -1;
    }
}

/* Uncompressed visibility rows per cluster, and RGB lightmap pages. */
static unsigned traits(const bspkit_map *map)
{
    (void)map;
    return BK_TRAIT_CLUSTER_VIS | BK_TRAIT_BITSET_VIS | BK_TRAIT_RGB_LIGHTMAPS;
}

static const char *raw_note(const bspkit_map *map, int lump)
{
    (void)map;
    switch (lump) {
    case BSPKIT_Q3_LIGHTMAPS: return "128x128 RGB lightmap pages, named by each surface's lightmapNum";
    case BSPKIT_Q3_VISIBILITY:
        return "cluster count, bytes per row, then one uncompressed PVS bit row per cluster: see 'bspkit vis'";
    case BSPKIT_QL_ADVERTISEMENTS: return "Quake Live advertisement placements";
    default: return NULL;
    }
}

const bk_family_ops bk_quake3_family = {
    reads, claims, detect, read_directory, bk_never_compressed, lump_name, lump_key, layout, lump_for,
    bk_no_dump_tables, bk_no_dump_named, raw_note, traits, 0, DIRECTORY, NULL, NULL,
};
