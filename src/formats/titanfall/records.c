/* Titanfall 2 record layouts: the one place each is written down. Every
 * layout is little-endian. */
#include "formats/titanfall/records.h"

/* Quake 3's plane: no axial type. */
#define PLANE(F)                                                                                       \
    F(DEFAULT, .type, -1, "")                                                                          \
    F(VEC3, .normal, 1, "normal")                                                                      \
    F(F32, .dist, 1, "distance")
BK_SCHEMA(bk_r2_plane, bspkit_plane, 16, "plane", PLANE);

/* Source's dtexdata_t with the surface flags after it. */
#define TEXTURE_DATA(F)                                                                                \
    F(VEC3, .reflectivity, 1, "reflectivity")                                                          \
    F(I32, .name_id, 1, "name_index")                                                                  \
    F(I32, .width, 1, "size.width")                                                                    \
    F(I32, .height, 1, "size.height")                                                                  \
    F(I32, .view_width, 1, "view.width")                                                               \
    F(I32, .view_height, 1, "view.height")                                                             \
    F(I32, .flags, 1, "flags")
BK_SCHEMA(bk_r2_texture_data, bspkit_texdata, 36, "texture data", TEXTURE_DATA);

#define STRING_TABLE(F) F(I32, , 1, "offset")
BK_SCHEMA(bk_r2_string_table, int32_t, 4, "string table entry", STRING_TABLE);

#define MODEL(F)                                                                                       \
    F(VEC3, .mins, 1, "mins")                                                                          \
    F(VEC3, .maxs, 1, "maxs")                                                                          \
    F(U32, .first_mesh, 1, "first_mesh")                                                               \
    F(U32, .num_meshes, 1, "num_meshes")
BK_SCHEMA(bk_r2_model, bspkit_r2_model, 32, "model", MODEL);

/* An integer origin and a field of unknown use where Source keeps the size. */
#define CUBEMAP(F)                                                                                     \
    F(I32A, .origin, 3, "origin")                                                                      \
    F(SKIP32, , 1, "unknown")
BK_SCHEMA(bk_r2_cubemap, bspkit_cubemap, 16, "cubemap", CUBEMAP);

#define MESH(F)                                                                                        \
    F(U32, .first_mesh_index, 1, "first_mesh_index")                                                   \
    F(U16, .num_triangles, 1, "num_triangles")                                                         \
    F(U16, .first_vertex, 1, "first_vertex")                                                           \
    F(U16, .num_vertices, 1, "num_vertices")                                                           \
    F(U8, .vertex_type, 1, "vertex_type")                                                              \
    F(I8, .cubemap, 1, "cubemap")                                                                      \
    F(U8A, .styles, 4, "styles")                                                                       \
    F(I16A, .luxel_origin, 2, "luxel_origin")                                                          \
    F(U8A, .luxel_offset_max, 2, "luxel_offset_max")                                                   \
    F(U16, .material_sort, 1, "material_sort")                                                         \
    F(U32, .flags, 1, "flags")
BK_SCHEMA(bk_r2_mesh, bspkit_r2_mesh, 28, "mesh", MESH);

#define MESH_BOUNDS(F)                                                                                 \
    F(VEC3, .origin, 1, "origin")                                                                      \
    F(F32, .radius, 1, "radius")                                                                       \
    F(VEC3, .extents, 1, "extents")                                                                    \
    F(F32, .tan_yaw, 1, "tan_yaw")
BK_SCHEMA(bk_r2_mesh_bounds, bspkit_r2_mesh_bounds, 32, "mesh bounds", MESH_BOUNDS);

#define MATERIAL_SORT(F)                                                                               \
    F(I16, .texture_data, 1, "texture_data")                                                           \
    F(I16, .lightmap_header, 1, "lightmap_header")                                                     \
    F(I16, .cubemap, 1, "cubemap")                                                                     \
    F(U16, .last_vertex, 1, "last_vertex")                                                             \
    F(U32, .vertex_offset, 1, "vertex_offset")
BK_SCHEMA(bk_r2_material_sort, bspkit_r2_material_sort, 12, "material sort", MATERIAL_SORT);

/* The vertex lumps: each starts with a position, a normal, the texture
 * coordinates and a colour; lit vertices add lightmap coordinates, bump
 * and tangent-space vertices two tangent indices. */
#define VERTEX_HEAD(F)                                                                                 \
    F(U32, .position_index, 1, "position_index")                                                       \
    F(U32, .normal_index, 1, "normal_index")                                                           \
    F(F32A, .albedo_uv, 2, "albedo_uv")                                                                \
    F(U8A, .colour, 4, "colour")
#define VERTEX_LIGHTMAP(F)                                                                             \
    F(F32A, .lightmap_uv, 2, "lightmap.uv")                                                            \
    F(F32A, .lightmap_step, 2, "lightmap.step")
#define VERTEX_TANGENT(F) F(I32A, .tangent, 2, "tangent")

#define VERTEX_UNLIT(F) VERTEX_HEAD(F)
BK_SCHEMA(bk_r2_vertex_unlit, bspkit_r2_vertex, 20, "unlit vertex", VERTEX_UNLIT);
#define VERTEX_LIT_FLAT(F) VERTEX_HEAD(F) VERTEX_LIGHTMAP(F)
BK_SCHEMA(bk_r2_vertex_lit_flat, bspkit_r2_vertex, 36, "lit flat vertex", VERTEX_LIT_FLAT);
#define VERTEX_LIT_BUMP(F) VERTEX_HEAD(F) VERTEX_LIGHTMAP(F) VERTEX_TANGENT(F)
BK_SCHEMA(bk_r2_vertex_lit_bump, bspkit_r2_vertex, 44, "lit bump vertex", VERTEX_LIT_BUMP);
#define VERTEX_UNLIT_TS(F) VERTEX_HEAD(F) VERTEX_TANGENT(F)
BK_SCHEMA(bk_r2_vertex_unlit_ts, bspkit_r2_vertex, 28, "unlit tangent-space vertex", VERTEX_UNLIT_TS);

/* ---- Lumps decoded for the dump only (no accessor of their own) ---- */

typedef struct r2_lightmap_header { uint32_t type, width, height; } r2_lightmap_header;
#define LIGHTMAP_HEADER(F)                                                                             \
    F(U32, .type, 1, "type")                                                                           \
    F(U16, .width, 1, "width")                                                                         \
    F(U16, .height, 1, "height")
BK_SCHEMA(r2_lightmap_header_schema, r2_lightmap_header, 8, "lightmap header", LIGHTMAP_HEADER);

typedef struct r2_grid {
    float scale;
    int32_t offset[2], count[2], num_straddle_groups, first_brush_plane;
} r2_grid;
#define GRID(F)                                                                                        \
    F(F32, .scale, 1, "scale")                                                                         \
    F(I32A, .offset, 2, "offset")                                                                      \
    F(I32A, .count, 2, "count")                                                                        \
    F(I32, .num_straddle_groups, 1, "num_straddle_groups")                                             \
    F(I32, .first_brush_plane, 1, "first_brush_plane")
BK_SCHEMA(r2_grid_schema, r2_grid, 28, "collision grid", GRID);

typedef struct r2_level_info {
    uint32_t first_decal_mesh, first_transparent_mesh, first_sky_mesh, num_static_props;
    bspkit_vec3 sun_normal;
} r2_level_info;
#define LEVEL_INFO(F)                                                                                  \
    F(U32, .first_decal_mesh, 1, "first_decal_mesh")                                                   \
    F(U32, .first_transparent_mesh, 1, "first_transparent_mesh")                                       \
    F(U32, .first_sky_mesh, 1, "first_sky_mesh")                                                       \
    F(U32, .num_static_props, 1, "num_static_props")                                                   \
    F(VEC3, .sun_normal, 1, "sun_normal")
BK_SCHEMA(r2_level_info_schema, r2_level_info, 28, "level info", LEVEL_INFO);

typedef struct r2_shadow_environment {
    int32_t first_csm_aabb_node, first_csm_obj_reference, first_shadow_mesh;
    int32_t last_csm_aabb_node, last_csm_obj_reference, last_shadow_mesh;
    bspkit_vec3 sun_normal;
} r2_shadow_environment;
#define SHADOW_ENVIRONMENT(F)                                                                          \
    F(I32, .first_csm_aabb_node, 1, "first_csm_aabb_node")                                             \
    F(I32, .first_csm_obj_reference, 1, "first_csm_obj_reference")                                     \
    F(I32, .first_shadow_mesh, 1, "first_shadow_mesh")                                                 \
    F(I32, .last_csm_aabb_node, 1, "last_csm_aabb_node")                                               \
    F(I32, .last_csm_obj_reference, 1, "last_csm_obj_reference")                                       \
    F(I32, .last_shadow_mesh, 1, "last_shadow_mesh")                                                   \
    F(VEC3, .sun_normal, 1, "sun_normal")
BK_SCHEMA(r2_shadow_environment_schema, r2_shadow_environment, 36, "shadow environment", SHADOW_ENVIRONMENT);

typedef struct r2_cell_bsp_node { int32_t plane; uint32_t child; } r2_cell_bsp_node;
#define CELL_BSP_NODE(F)                                                                               \
    F(I32, .plane, 1, "plane")                                                                         \
    F(U32, .child, 1, "child")
BK_SCHEMA(r2_cell_bsp_node_schema, r2_cell_bsp_node, 8, "cell BSP node", CELL_BSP_NODE);

typedef struct r2_cell { uint32_t num_portals, first_portal, flags; int32_t leaf_water_data; } r2_cell;
#define CELL(F)                                                                                        \
    F(U16, .num_portals, 1, "num_portals")                                                             \
    F(U16, .first_portal, 1, "first_portal")                                                           \
    F(U16, .flags, 1, "flags")                                                                         \
    F(I16, .leaf_water_data, 1, "leaf_water_data")
BK_SCHEMA(r2_cell_schema, r2_cell, 8, "cell", CELL);

typedef struct r2_portal {
    uint8_t is_reversed, type, num_refs, padding;
    uint32_t first_ref, cell, plane;
} r2_portal;
#define PORTAL(F)                                                                                      \
    F(U8, .is_reversed, 1, "is_reversed")                                                              \
    F(U8, .type, 1, "type")                                                                            \
    F(U8, .num_refs, 1, "num_refs")                                                                    \
    F(U8, .padding, 1, "padding")                                                                      \
    F(U16, .first_ref, 1, "first_ref")                                                                 \
    F(U16, .cell, 1, "cell")                                                                           \
    F(U32, .plane, 1, "plane")
BK_SCHEMA(r2_portal_schema, r2_portal, 12, "portal", PORTAL);

typedef struct r2_bounds_box { bspkit_vec3 mins; int32_t mins_zero; bspkit_vec3 maxs; int32_t maxs_zero; } r2_bounds_box;
#define OBJ_REF_BOUNDS(F)                                                                              \
    F(VEC3, .mins, 1, "mins")                                                                          \
    F(I32, .mins_zero, 1, "mins_zero")                                                                 \
    F(VEC3, .maxs, 1, "maxs")                                                                          \
    F(I32, .maxs_zero, 1, "maxs_zero")
BK_SCHEMA(r2_obj_ref_bounds_schema, r2_bounds_box, 32, "object reference bounds", OBJ_REF_BOUNDS);

typedef struct r2_shadow_mesh { uint32_t vertex_offset, num_triangles; int32_t is_opaque, material_sort; } r2_shadow_mesh;
#define SHADOW_MESH(F)                                                                                 \
    F(U32, .vertex_offset, 1, "vertex_offset")                                                         \
    F(U32, .num_triangles, 1, "num_triangles")                                                         \
    F(I16, .is_opaque, 1, "is_opaque")                                                                 \
    F(I16, .material_sort, 1, "material_sort")
BK_SCHEMA(r2_shadow_mesh_schema, r2_shadow_mesh, 12, "shadow mesh", SHADOW_MESH);

/* Bounds as int16: origin, a cosine, extents, a sine (collision geo sets and primitives). */
typedef struct r2_bounds { int32_t origin[3], negative_cos, extents[3], positive_sin; } r2_bounds;
#define BOUNDS(F)                                                                                      \
    F(I16A, .origin, 3, "origin")                                                                      \
    F(I16, .negative_cos, 1, "negative_cos")                                                           \
    F(I16A, .extents, 3, "extents")                                                                    \
    F(I16, .positive_sin, 1, "positive_sin")
BK_SCHEMA(r2_bounds_schema, r2_bounds, 16, "bounds", BOUNDS);

typedef struct r2_grid_cell { uint32_t first_geo_set, num_geo_sets; } r2_grid_cell;
#define GRID_CELL(F)                                                                                   \
    F(U16, .first_geo_set, 1, "first_geo_set")                                                         \
    F(U16, .num_geo_sets, 1, "num_geo_sets")
BK_SCHEMA(r2_grid_cell_schema, r2_grid_cell, 4, "grid cell", GRID_CELL);

typedef struct r2_geo_set { uint32_t straddle_group, num_primitives, primitive; } r2_geo_set;
#define GEO_SET(F)                                                                                     \
    F(U16, .straddle_group, 1, "straddle_group")                                                       \
    F(U16, .num_primitives, 1, "num_primitives")                                                       \
    F(U32, .primitive, 1, "primitive")
BK_SCHEMA(r2_geo_set_schema, r2_geo_set, 8, "geo set", GEO_SET);

typedef struct r2_cm_brush {
    bspkit_vec3 origin;
    uint32_t num_non_axial_no_discard, num_plane_offsets;
    int32_t index;
    bspkit_vec3 extents;
    int32_t brush_side_offset;
} r2_cm_brush;
#define CM_BRUSH(F)                                                                                    \
    F(VEC3, .origin, 1, "origin")                                                                      \
    F(U8, .num_non_axial_no_discard, 1, "num_non_axial_no_discard")                                    \
    F(U8, .num_plane_offsets, 1, "num_plane_offsets")                                                  \
    F(I16, .index, 1, "index")                                                                         \
    F(VEC3, .extents, 1, "extents")                                                                    \
    F(I32, .brush_side_offset, 1, "brush_side_offset")
BK_SCHEMA(r2_cm_brush_schema, r2_cm_brush, 32, "collision brush", CM_BRUSH);

typedef struct r2_texture_vector { float s[4], t[4]; } r2_texture_vector;
#define TEXTURE_VECTOR(F)                                                                              \
    F(F32A, .s, 4, "s")                                                                                \
    F(F32A, .t, 4, "t")
BK_SCHEMA(r2_texture_vector_schema, r2_texture_vector, 32, "brush side texture vector", TEXTURE_VECTOR);

typedef struct r2_aabb_node {
    bspkit_vec3 mins, maxs;
    uint32_t num_children, num_obj_refs, total_obj_refs, first_child, first_obj_ref;
} r2_aabb_node;
#define AABB_NODE(F)                                                                                   \
    F(VEC3, .mins, 1, "mins")                                                                          \
    F(U8, .num_children, 1, "num_children")                                                            \
    F(U8, .num_obj_refs, 1, "num_obj_refs")                                                            \
    F(U16, .total_obj_refs, 1, "total_obj_refs")                                                       \
    F(VEC3, .maxs, 1, "maxs")                                                                          \
    F(U16, .first_child, 1, "first_child")                                                             \
    F(U16, .first_obj_ref, 1, "first_obj_ref")
BK_SCHEMA(r2_aabb_node_schema, r2_aabb_node, 32, "AABB node", AABB_NODE);

typedef struct r2_lightprobe_ref { bspkit_vec3 origin; uint32_t lightprobe; int32_t unknown; } r2_lightprobe_ref;
#define LIGHTPROBE_REF(F)                                                                              \
    F(VEC3, .origin, 1, "origin")                                                                      \
    F(U32, .lightprobe, 1, "lightprobe")                                                               \
    F(I32, .unknown, 1, "unknown")
BK_SCHEMA(r2_lightprobe_ref_schema, r2_lightprobe_ref, 20, "light probe reference", LIGHTPROBE_REF);

#define U32_VALUE(F) F(U32, , 1, "value")
BK_SCHEMA(r2_u32_schema, uint32_t, 4, "value", U32_VALUE);

static const struct {
    int lump;
    const bk_schema *schema;
    const char *key;
} EXTRA[] = {
    {BSPKIT_R2_SHADOW_ENVIRONMENTS, &r2_shadow_environment_schema, "shadow_environments"},
    {BSPKIT_R2_LIGHTMAP_HEADERS, &r2_lightmap_header_schema, "lightmap_headers"},
    {BSPKIT_R2_CM_GRID, &r2_grid_schema, "cm_grid"},
    {BSPKIT_R2_CM_GRID_CELLS, &r2_grid_cell_schema, "cm_grid_cells"},
    {BSPKIT_R2_CM_GEO_SETS, &r2_geo_set_schema, "cm_geo_sets"},
    {BSPKIT_R2_CM_GEO_SET_BOUNDS, &r2_bounds_schema, "cm_geo_set_bounds"},
    {BSPKIT_R2_CM_PRIMITIVES, &r2_u32_schema, "cm_primitives"},
    {BSPKIT_R2_CM_PRIMITIVE_BOUNDS, &r2_bounds_schema, "cm_primitive_bounds"},
    {BSPKIT_R2_CM_UNIQUE_CONTENTS, &r2_u32_schema, "cm_unique_contents"},
    {BSPKIT_R2_CM_BRUSHES, &r2_cm_brush_schema, "cm_brushes"},
    {BSPKIT_R2_CM_BRUSH_SIDE_PLANE_OFFSETS, &bk_index16_schema, "cm_brush_side_plane_offsets"},
    {BSPKIT_R2_CM_BRUSH_SIDE_PROPERTIES, &bk_index16_schema, "cm_brush_side_properties"},
    {BSPKIT_R2_CM_BRUSH_SIDE_TEXTURE_VECTORS, &r2_texture_vector_schema, "cm_brush_side_texture_vectors"},
    {BSPKIT_R2_CSM_AABB_NODES, &r2_aabb_node_schema, "csm_aabb_nodes"},
    {BSPKIT_R2_CSM_OBJ_REFERENCES, &bk_index16_schema, "csm_obj_references"},
    {BSPKIT_R2_LIGHTPROBE_REFERENCES, &r2_lightprobe_ref_schema, "lightprobe_references"},
    {BSPKIT_R2_CELL_BSP_NODES, &r2_cell_bsp_node_schema, "cell_bsp_nodes"},
    {BSPKIT_R2_CELLS, &r2_cell_schema, "cells"},
    {BSPKIT_R2_PORTALS, &r2_portal_schema, "portals"},
    {BSPKIT_R2_PORTAL_VERTICES, &bk_vertex_schema, "portal_vertices"},
    {BSPKIT_R2_PORTAL_EDGES, &bk_index16_schema, "portal_edges"},
    {BSPKIT_R2_PORTAL_VERTEX_REFERENCES, &bk_index16_schema, "portal_vertex_references"},
    {BSPKIT_R2_PORTAL_EDGE_REFERENCES, &bk_index16_schema, "portal_edge_references"},
    {BSPKIT_R2_OCCLUSION_MESH_VERTICES, &bk_vertex_schema, "occlusion_mesh_vertices"},
    {BSPKIT_R2_CELL_AABB_NODES, &r2_aabb_node_schema, "cell_aabb_nodes"},
    {BSPKIT_R2_OBJ_REFERENCES, &bk_index16_schema, "obj_references"},
    {BSPKIT_R2_OBJ_REFERENCE_BOUNDS, &r2_obj_ref_bounds_schema, "obj_reference_bounds"},
    {BSPKIT_R2_LEVEL_INFO, &r2_level_info_schema, "level_info"},
    {BSPKIT_R2_SHADOW_MESH_OPAQUE_VERTICES, &bk_vertex_schema, "shadow_mesh_opaque_vertices"},
    {BSPKIT_R2_SHADOW_MESH_INDICES, &bk_index16_schema, "shadow_mesh_indices"},
    {BSPKIT_R2_SHADOW_MESHES, &r2_shadow_mesh_schema, "shadow_meshes"},
};

const bk_schema *bk_r2_extra_schema(int lump)
{
    for (size_t i = 0; i < sizeof EXTRA / sizeof EXTRA[0]; i++)
        if (EXTRA[i].lump == lump)
            return EXTRA[i].schema;
    return NULL;
}

const char *bk_r2_extra_key(int lump)
{
    for (size_t i = 0; i < sizeof EXTRA / sizeof EXTRA[0]; i++)
        if (EXTRA[i].lump == lump)
            return EXTRA[i].key;
    return NULL;
}
