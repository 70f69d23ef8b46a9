/* The Titanfall 2 family: Respawn's rBSP 37, read-only. A 16-byte header
 * (magic, version, map revision, 127) and 128 lump entries of {offset,
 * length, version, fourCC}, all little-endian; retail maps keep lumps in
 * `<map>.bsp.<xxxx>.bsp_lump` files beside the map, which the core reads in
 * place of the lump in the .bsp (core/external.c). Lump names follow
 * bsp_tool. */
#include "core/family.h"
#include "core/table.h"
#include "formats/titanfall/records.h"

#include <stdio.h>
#include <string.h>

#define R2_VERSION 37
#define R2_HEADER_SIZE (16 + 16 * BSPKIT_R2_LUMP_COUNT)

static const char *const NAMES[BSPKIT_R2_LUMP_COUNT] = {
    "ENTITIES", "PLANES", "TEXTURE_DATA", "VERTICES", "LIGHTPROBE_PARENT_INFOS", "SHADOW_ENVIRONMENTS",
    "LIGHTPROBE_BSP_NODES", "LIGHTPROBE_BSP_REF_IDS", "UNUSED_8", "UNUSED_9", "UNUSED_10", "UNUSED_11",
    "UNUSED_12", "UNUSED_13", "MODELS", "UNUSED_15", "UNUSED_16", "UNUSED_17", "UNUSED_18", "UNUSED_19",
    "UNUSED_20", "UNUSED_21", "UNUSED_22", "UNUSED_23", "ENTITY_PARTITIONS", "UNUSED_25", "UNUSED_26",
    "UNUSED_27", "UNUSED_28", "PHYSICS_COLLIDE", "VERTEX_NORMALS", "UNUSED_31", "UNUSED_32", "UNUSED_33",
    "UNUSED_34", "GAME_LUMP", "LEAF_WATER_DATA", "UNUSED_37", "UNUSED_38", "UNUSED_39", "PAKFILE",
    "UNUSED_41", "CUBEMAPS", "TEXTURE_DATA_STRING_DATA", "TEXTURE_DATA_STRING_TABLE", "UNUSED_45",
    "UNUSED_46", "UNUSED_47", "UNUSED_48", "UNUSED_49", "UNUSED_50", "UNUSED_51", "UNUSED_52", "UNUSED_53",
    "WORLD_LIGHTS", "WORLD_LIGHT_PARENT_INFOS", "UNUSED_56", "UNUSED_57", "UNUSED_58", "UNUSED_59",
    "UNUSED_60", "UNUSED_61", "UNUSED_62", "UNUSED_63", "UNUSED_64", "UNUSED_65", "TRICOLL_TRIANGLES",
    "UNUSED_67", "TRICOLL_NODES", "TRICOLL_HEADERS", "UNUSED_70", "VERTEX_UNLIT", "VERTEX_LIT_FLAT",
    "VERTEX_LIT_BUMP", "VERTEX_UNLIT_TS", "VERTEX_BLINN_PHONG", "VERTEX_RESERVED_5", "VERTEX_RESERVED_6",
    "VERTEX_RESERVED_7", "MESH_INDICES", "MESHES", "MESH_BOUNDS", "MATERIAL_SORTS", "LIGHTMAP_HEADERS",
    "UNUSED_84", "CM_GRID", "CM_GRID_CELLS", "CM_GEO_SETS", "CM_GEO_SET_BOUNDS", "CM_PRIMITIVES",
    "CM_PRIMITIVE_BOUNDS", "CM_UNIQUE_CONTENTS", "CM_BRUSHES", "CM_BRUSH_SIDE_PLANE_OFFSETS",
    "CM_BRUSH_SIDE_PROPERTIES", "CM_BRUSH_SIDE_TEXTURE_VECTORS", "TRICOLL_BEVEL_STARTS",
    "TRICOLL_BEVEL_INDICES", "LIGHTMAP_DATA_SKY", "CSM_AABB_NODES", "CSM_OBJ_REFERENCES", "LIGHTPROBES",
    "STATIC_PROP_LIGHTPROBE_INDICES", "LIGHTPROBE_TREE", "LIGHTPROBE_REFERENCES",
    "LIGHTMAP_DATA_REAL_TIME_LIGHTS", "CELL_BSP_NODES", "CELLS", "PORTALS", "PORTAL_VERTICES", "PORTAL_EDGES",
    "PORTAL_VERTEX_EDGES", "PORTAL_VERTEX_REFERENCES", "PORTAL_EDGE_REFERENCES", "PORTAL_EDGE_INTERSECT_EDGE",
    "PORTAL_EDGE_INTERSECT_VERTEX", "PORTAL_EDGE_INTERSECT_HEADER", "OCCLUSION_MESH_VERTICES",
    "OCCLUSION_MESH_INDICES", "CELL_AABB_NODES", "OBJ_REFERENCES", "OBJ_REFERENCE_BOUNDS",
    "LIGHTMAP_DATA_RTL_PAGES", "LEVEL_INFO", "SHADOW_MESH_OPAQUE_VERTICES", "SHADOW_MESH_ALPHA_VERTICES",
    "SHADOW_MESH_INDICES", "SHADOW_MESHES",
};

static bool reads(bspkit_family family) { return family == BSPKIT_FAMILY_TITANFALL; }

static bool claims(const uint8_t *d, size_t size)
{
    return size >= 8 && memcmp(d, "rBSP", 4) == 0 && rd_le32(d + 4) == R2_VERSION;
}

static bspkit_result detect(const uint8_t *d, size_t size, bspkit_format *f, bspkit_error *err)
{
    if (size < R2_HEADER_SIZE)
        return bk_fail(err, BSPKIT_ERR_TRUNCATED, -1, (int64_t)size, -1,
                       "truncated: %zu bytes, but an rBSP %d header needs %d", size, R2_VERSION, R2_HEADER_SIZE);
    f->family = BSPKIT_FAMILY_TITANFALL;
    f->version = R2_VERSION;
    f->revision = (int32_t)rd_le32(d + 8);
    f->lump_count = BSPKIT_R2_LUMP_COUNT;
    snprintf(f->name, sizeof f->name, "Titanfall 2 rBSP %d", R2_VERSION);
    return BSPKIT_OK;
}

static void read_directory(bspkit_map *map)
{
    for (int i = 0; i < BSPKIT_R2_LUMP_COUNT; i++) {
        const uint8_t *e = map->data + 16 + 16 * i;
        map->lumps[i].offset = rd_le32(e);
        map->lumps[i].length = rd_le32(e + 4);
        map->lumps[i].version = (int32_t)rd_le32(e + 8);
        map->lumps[i].fourcc = rd_le32(e + 12);
    }
}

static const char *lump_name(const bspkit_map *map, int lump)
{
    (void)map;
    return NAMES[lump];
}

static const char *lump_key(const bspkit_map *map, int lump)
{
    (void)map;
    switch (lump) {
    case BSPKIT_R2_PLANES: return "planes";
    case BSPKIT_R2_TEXTURE_DATA: return "texdata";
    case BSPKIT_R2_VERTICES: return "vertices";
    case BSPKIT_R2_MODELS: return "models";
    case BSPKIT_R2_VERTEX_NORMALS: return "vertex_normals";
    case BSPKIT_R2_CUBEMAPS: return "cubemaps";
    case BSPKIT_R2_TEXTURE_DATA_STRING_TABLE: return "texdata_string_table";
    case BSPKIT_R2_VERTEX_UNLIT: return "vertex_unlit";
    case BSPKIT_R2_VERTEX_LIT_FLAT: return "vertex_lit_flat";
    case BSPKIT_R2_VERTEX_LIT_BUMP: return "vertex_lit_bump";
    case BSPKIT_R2_VERTEX_UNLIT_TS: return "vertex_unlit_ts";
    case BSPKIT_R2_MESH_INDICES: return "mesh_indices";
    case BSPKIT_R2_MESHES: return "meshes";
    case BSPKIT_R2_MESH_BOUNDS: return "mesh_bounds";
    case BSPKIT_R2_MATERIAL_SORTS: return "material_sorts";
    default: return bk_r2_extra_key(lump);
    }
}

static bk_layout layout(const bspkit_map *map, int lump)
{
    (void)map;
    switch (lump) {
    case BSPKIT_R2_PLANES: return bk_schema_layout(&bk_r2_plane, BK_REC_PLANES);
    case BSPKIT_R2_TEXTURE_DATA: return bk_schema_layout(&bk_r2_texture_data, BK_REC_TEXDATA);
    case BSPKIT_R2_VERTICES: return bk_schema_layout(&bk_vertex_schema, BK_REC_VERTEXES);
    case BSPKIT_R2_MODELS: return bk_schema_layout(&bk_r2_model, BK_REC_R2_MODELS);
    case BSPKIT_R2_VERTEX_NORMALS: return bk_schema_layout(&bk_vertex_schema, BK_REC_R2_VERTEX_NORMALS);
    case BSPKIT_R2_CUBEMAPS: return bk_schema_layout(&bk_r2_cubemap, BK_REC_CUBEMAPS);
    case BSPKIT_R2_TEXTURE_DATA_STRING_TABLE: return bk_schema_layout(&bk_r2_string_table, BK_REC_STRING_TABLE);
    case BSPKIT_R2_VERTEX_UNLIT: return bk_schema_layout(&bk_r2_vertex_unlit, BK_REC_R2_VERTEX_UNLIT);
    case BSPKIT_R2_VERTEX_LIT_FLAT: return bk_schema_layout(&bk_r2_vertex_lit_flat, BK_REC_R2_VERTEX_LIT_FLAT);
    case BSPKIT_R2_VERTEX_LIT_BUMP: return bk_schema_layout(&bk_r2_vertex_lit_bump, BK_REC_R2_VERTEX_LIT_BUMP);
    case BSPKIT_R2_VERTEX_UNLIT_TS: return bk_schema_layout(&bk_r2_vertex_unlit_ts, BK_REC_R2_VERTEX_UNLIT_TS);
    case BSPKIT_R2_MESH_INDICES: return bk_schema_layout(&bk_index16_schema, BK_REC_R2_MESH_INDICES);
    case BSPKIT_R2_MESHES: return bk_schema_layout(&bk_r2_mesh, BK_REC_R2_MESHES);
    case BSPKIT_R2_MESH_BOUNDS: return bk_schema_layout(&bk_r2_mesh_bounds, BK_REC_R2_MESH_BOUNDS);
    case BSPKIT_R2_MATERIAL_SORTS: return bk_schema_layout(&bk_r2_material_sort, BK_REC_R2_MATERIAL_SORTS);
    default: {
        const bk_schema *s = bk_r2_extra_schema(lump);
        return s ? bk_schema_layout(s, -1) : (bk_layout){0, 0, NULL, -1, NULL};
    }
    }
}

static int lump_for(const bspkit_map *map, bk_lump_role role)
{
    (void)map;
    switch (role) {
    case BK_ROLE_PAKFILE: return BSPKIT_R2_PAKFILE;
    case BK_ROLE_TEXDATA_STRING_DATA: return BSPKIT_R2_TEXTURE_DATA_STRING_DATA;
    default: return -1;
    }
}

static unsigned traits(const bspkit_map *map)
{
    (void)map;
    return 0;
}

/* Lumps with a record layout but no decoded array of their own: decoded
 * for the dump only. */
static bspkit_result dump_tables(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out, bspkit_error *err)
{
    if (game_id || lump < 0 || lump >= map->lump_count)
        return BSPKIT_ERR_NOT_FOUND;
    const bk_layout *l = &map->lumps[lump].layout;
    if (!l->schema)
        return BSPKIT_ERR_NOT_FOUND;
    const uint8_t *data;
    size_t size;
    bspkit_result r = bk_lump_bytes(map, lump, &data, &size, err);
    if (r != BSPKIT_OK)
        return r;
    size_t n = size / l->record_size;
    void *items = bk_keep_alloc(map, n, l->native_size, lump, err);
    if (!items)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    l->decode(data, n, false, items);
    bk_dump_add_schema_table(out, "records", l->schema, items, n);
    return BSPKIT_OK;
}

static const char *raw_note(const bspkit_map *map, int lump)
{
    (void)map;
    switch (lump) {
    case BSPKIT_R2_ENTITIES: return "entity text (more entities are in the <map>_<partition>.ent files beside the map)";
    case BSPKIT_R2_ENTITY_PARTITIONS: return "the entity lump's marker and the names of the entity partitions "
                                             "(<map>_<name>.ent files; bspkit info lists them)";
    case BSPKIT_R2_TEXTURE_DATA_STRING_DATA: return "NUL-terminated material names";
    case BSPKIT_R2_PAKFILE: return "a zip archive (cubemaps)";
    case BSPKIT_R2_GAME_LUMP: return "game lumps (static props): not decoded";
    case BSPKIT_R2_PHYSICS_COLLIDE: return "physics collision models: not decoded";
    default: return lump >= 0 && lump < BSPKIT_R2_LUMP_COUNT && strncmp(NAMES[lump], "UNUSED_", 7) == 0
                        ? "a lump slot the game does not use"
                        : "not decoded (Titanfall 2 support is read-only and covers the geometry lumps)";
    }
}

/* "<map>.bsp.0050.bsp_lump" for lump 0x50. */
static bool external_lump_suffix(const bspkit_map *map, int lump, char *buf, size_t size)
{
    (void)map;
    return snprintf(buf, size, ".%04x.bsp_lump", (unsigned)lump) < (int)size;
}

const bk_family_ops bk_titanfall_family = {
    reads, claims, detect, read_directory, bk_never_compressed, lump_name, lump_key, layout, lump_for,
    dump_tables, bk_no_dump_named, raw_note, traits, 0, 0, external_lump_suffix, bk_r2_more_entities,
};
