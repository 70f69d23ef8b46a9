/* The Quake 2 family: id's IBSP 38 and Daikatana's IBSP 41, which adds two
 * lumps after Quake 2's nineteen: detection, the lump directory, lump names
 * and record layouts. */
#include "bspkit/lighting.h"
#include "core/family.h"
#include "formats/quake2/records.h"

#include <stdio.h>
#include <string.h>

#define Q2_VERSION 38
#define DK_VERSION 41

static const char *const NAMES[BSPKIT_DK_LUMP_COUNT] = {
    "ENTITIES", "PLANES", "VERTEXES", "VISIBILITY", "NODES", "TEXINFO", "FACES",
    "LIGHTING", "LEAFS", "LEAFFACES", "LEAFBRUSHES", "EDGES", "SURFEDGES", "MODELS",
    "BRUSHES", "BRUSHSIDES", "POP", "AREAS", "AREAPORTALS",
    /* Daikatana's additions; what they hold is not publicly described. */
    "DK_LUMP_19", "DK_LUMP_20"};
static const char *const KEYS[BSPKIT_DK_LUMP_COUNT] = {
    NULL, "planes", "vertexes", NULL, "nodes", "texinfo", "faces", NULL, "leafs", "leaffaces",
    "leafbrushes", "edges", "surfedges", "models", "brushes", "brushsides", NULL, "areas", "areaportals",
    NULL, NULL};

static bool reads(bspkit_family family) { return family == BSPKIT_FAMILY_QUAKE2; }

static bool claims(const uint8_t *d, size_t size)
{
    if (size < 8 || memcmp(d, "IBSP", 4) != 0)
        return false;
    int32_t v = (int32_t)rd_le32(d + 4);
    return v == Q2_VERSION || v == DK_VERSION;
}

static bspkit_result detect(const uint8_t *d, size_t size, bspkit_format *f, bspkit_error *err)
{
    int32_t version = (int32_t)rd_le32(d + 4);
    int lumps = version == DK_VERSION ? BSPKIT_DK_LUMP_COUNT : BSPKIT_Q2_LUMP_COUNT;
    size_t header = 8 + 8 * (size_t)lumps;
    if (size < header)
        return bk_fail(err, BSPKIT_ERR_TRUNCATED, -1, (int64_t)size, -1,
                       "truncated: %zu bytes, but an IBSP %d header needs %zu", size, (int)version, header);
    f->family = BSPKIT_FAMILY_QUAKE2;
    f->version = version;
    f->lump_count = lumps;
    snprintf(f->name, sizeof f->name, "%s IBSP %d", version == DK_VERSION ? "Daikatana" : "Quake 2", (int)version);
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
    case BSPKIT_Q2_PLANES: return bk_schema_layout(&bk_plane_schema, BK_REC_PLANES);
    case BSPKIT_Q2_VERTEXES: return bk_schema_layout(&bk_vertex_schema, BK_REC_VERTEXES);
    case BSPKIT_Q2_NODES: return bk_schema_layout(&bk_q2_node, BK_REC_NODES);
    case BSPKIT_Q2_TEXINFO: return bk_schema_layout(&bk_q2_texinfo, BK_REC_TEXINFO);
    case BSPKIT_Q2_FACES: return bk_schema_layout(&bk_q2_face, BK_REC_FACES);
    case BSPKIT_Q2_LEAFS: return bk_schema_layout(&bk_q2_leaf, BK_REC_LEAFS);
    case BSPKIT_Q2_LEAFFACES: return bk_schema_layout(&bk_index16_schema, BK_REC_LEAF_FACES);
    case BSPKIT_Q2_LEAFBRUSHES: return bk_schema_layout(&bk_index16_schema, BK_REC_LEAF_BRUSHES);
    case BSPKIT_Q2_EDGES: return bk_schema_layout(&bk_edge16_schema, BK_REC_EDGES);
    case BSPKIT_Q2_SURFEDGES: return bk_schema_layout(&bk_surfedge_schema, BK_REC_SURFEDGES);
    case BSPKIT_Q2_MODELS: return bk_schema_layout(&bk_model_onehead_schema, BK_REC_MODELS);
    case BSPKIT_Q2_BRUSHES: return bk_schema_layout(&bk_brush_schema, BK_REC_BRUSHES);
    case BSPKIT_Q2_BRUSHSIDES: return bk_schema_layout(&bk_q2_brushside, BK_REC_BRUSHSIDES);
    case BSPKIT_Q2_AREAS: return bk_schema_layout(&bk_area_schema, BK_REC_AREAS);
    case BSPKIT_Q2_AREAPORTALS: return bk_schema_layout(&bk_q2_areaportal, BK_REC_AREAPORTALS);
    default: return (bk_layout){0, 0, NULL, -1, NULL};
    }
}

static int lump_for(const bspkit_map *map, bk_lump_role role)
{
    (void)map;
    switch (role) {
    case BK_ROLE_LIGHTING: return BSPKIT_Q2_LIGHTING;
    case BK_ROLE_VISIBILITY: return BSPKIT_Q2_VISIBILITY;
    default: return -1;
    }
}

/* RGB lightmaps and cluster visibility (PVS and PHS), as Source inherited them. */
static unsigned traits(const bspkit_map *map)
{
    (void)map;
    return BK_TRAIT_CLUSTER_VIS | BK_TRAIT_RGB_LIGHTMAPS;
}

static const char *raw_note(const bspkit_map *map, int lump)
{
    (void)map;
    switch (lump) {
    case BSPKIT_Q2_VISIBILITY: return "run-length compressed PVS and PHS rows per cluster: see 'bspkit vis'";
    case BSPKIT_Q2_LIGHTING: return "RGB lightmap samples, addressed by each face's lightofs";
    case BSPKIT_Q2_POP: return "an unused lump the compiler leaves empty or zeroed";
    case BSPKIT_Q2_LUMP_COUNT:
    case BSPKIT_Q2_LUMP_COUNT + 1: return "Daikatana data with no public description";
    default: return NULL;
    }
}

const bk_family_ops bk_quake2_family = {
    reads, claims, detect, read_directory, bk_never_compressed, lump_name, lump_key, layout, lump_for,
    bk_no_dump_tables, bk_no_dump_named, raw_note, traits, BSPKIT_Q2_SURF_SKY | BSPKIT_Q2_SURF_WARP, 8, NULL, NULL,
};
