/* Titanfall 2 (Respawn rBSP 37) records, read-only: the world geometry
 * lumps (models, meshes, material sorts, mesh indices, the vertex lumps,
 * vertex normals and mesh bounds). Planes, vertices, texture data, its
 * string table and cubemaps come through the shared accessors in bspkit.h
 * (bspkit_get_planes, _vertexes, _texdata, _texdata_string_table,
 * _cubemaps, and bspkit_texdata_name), and the entity partitions (their
 * entities come through bspkit_get_entities). Field names follow bsp_tool. Every
 * accessor decodes on first use and returns an empty array for other
 * families. */
#ifndef BSPKIT_TITANFALL_H
#define BSPKIT_TITANFALL_H

#include "bspkit/bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Mesh and texture-data flags: the vertex lump a mesh's vertices are in (mask 0x600), and surface bits. */
enum {
    BSPKIT_R2_MESH_SKY_2D = 0x2,
    BSPKIT_R2_MESH_SKY = 0x4,
    BSPKIT_R2_MESH_WARP = 0x8,
    BSPKIT_R2_MESH_TRANSLUCENT = 0x10,
    BSPKIT_R2_MESH_VERTEX_LIT_FLAT = 0x000, /**< VERTEX_LIT_FLAT */
    BSPKIT_R2_MESH_VERTEX_LIT_BUMP = 0x200, /**< VERTEX_LIT_BUMP */
    BSPKIT_R2_MESH_VERTEX_UNLIT = 0x400,    /**< VERTEX_UNLIT */
    BSPKIT_R2_MESH_VERTEX_UNLIT_TS = 0x600, /**< VERTEX_UNLIT_TS */
    BSPKIT_R2_MESH_VERTEX_MASK = 0x600,
    BSPKIT_R2_MESH_SKIP = 0x20000,
    BSPKIT_R2_MESH_TRIGGER = 0x40000
};

/** MODELS (32 bytes): a bounding box and a run of MESHES; model 0 is the world. */
typedef struct bspkit_r2_model {
    bspkit_vec3 mins, maxs;
    uint32_t first_mesh, num_meshes;
} bspkit_r2_model;

/** MESHES (28 bytes): triangles in MESH_INDICES, drawn with one material sort. */
typedef struct bspkit_r2_mesh {
    uint32_t first_mesh_index; /**< into MESH_INDICES */
    uint32_t num_triangles;    /**< 3 indices each */
    uint32_t first_vertex, num_vertices;
    uint8_t vertex_type;
    int32_t cubemap;           /**< signed byte in the file */
    uint8_t styles[4];         /**< 255 = none */
    int32_t luxel_origin[2];
    uint8_t luxel_offset_max[2];
    uint32_t material_sort;    /**< into MATERIAL_SORTS */
    uint32_t flags;            /**< BSPKIT_R2_MESH_* */
} bspkit_r2_mesh;

/** MATERIAL_SORTS (12 bytes): texture data, lightmap and cubemap of meshes, and where their vertices start. */
typedef struct bspkit_r2_material_sort {
    int32_t texture_data;      /**< into TEXTURE_DATA */
    int32_t lightmap_header;   /**< into LIGHTMAP_HEADERS, -1 = none */
    int32_t cubemap;           /**< into CUBEMAPS, -1 = none */
    int32_t last_vertex;
    uint32_t vertex_offset;    /**< added to each mesh index: a record of the mesh's vertex lump */
} bspkit_r2_material_sort;

/**
 * One record of VERTEX_UNLIT (20 bytes), VERTEX_LIT_FLAT (36), VERTEX_LIT_BUMP
 * (44) or VERTEX_UNLIT_TS (28); fields a layout lacks are 0.
 */
typedef struct bspkit_r2_vertex {
    uint32_t position_index;   /**< into VERTICES */
    uint32_t normal_index;     /**< into VERTEX_NORMALS */
    float albedo_uv[2];
    uint8_t colour[4];         /**< RGBA */
    float lightmap_uv[2];      /**< lit layouts */
    float lightmap_step[2];    /**< lit layouts */
    int32_t tangent[2];        /**< VERTEX_LIT_BUMP, VERTEX_UNLIT_TS */
} bspkit_r2_vertex;

/** MESH_BOUNDS (32 bytes), parallel to MESHES. */
typedef struct bspkit_r2_mesh_bounds {
    bspkit_vec3 origin;
    float radius;
    bspkit_vec3 extents;
    float tan_yaw;
} bspkit_r2_mesh_bounds;

/** Which vertex lump: one of BSPKIT_R2_VERTEX_UNLIT, _LIT_FLAT, _LIT_BUMP, _UNLIT_TS. */
BSPKIT_API bspkit_result bspkit_get_r2_vertices(bspkit_map *map, int lump, const bspkit_r2_vertex **out,
                                                size_t *count, bspkit_error *err);
BSPKIT_API bspkit_result bspkit_get_r2_models(bspkit_map *map, const bspkit_r2_model **out, size_t *count,
                                              bspkit_error *err);
BSPKIT_API bspkit_result bspkit_get_r2_meshes(bspkit_map *map, const bspkit_r2_mesh **out, size_t *count,
                                              bspkit_error *err);
BSPKIT_API bspkit_result bspkit_get_r2_mesh_bounds(bspkit_map *map, const bspkit_r2_mesh_bounds **out,
                                                   size_t *count, bspkit_error *err);
BSPKIT_API bspkit_result bspkit_get_r2_material_sorts(bspkit_map *map, const bspkit_r2_material_sort **out,
                                                      size_t *count, bspkit_error *err);
/** MESH_INDICES: uint16 in the file. */
BSPKIT_API bspkit_result bspkit_get_r2_mesh_indices(bspkit_map *map, const uint32_t **out, size_t *count,
                                                    bspkit_error *err);
/** VERTEX_NORMALS: 3 floats each. */
BSPKIT_API bspkit_result bspkit_get_r2_vertex_normals(bspkit_map *map, const bspkit_vec3 **out, size_t *count,
                                                      bspkit_error *err);

/**
 * One entity partition ENTITY_PARTITIONS names ("01* env spawn": after the
 * entity lump's marker, the partitions env and spawn). A retail map keeps
 * its entities in `<map>_<name>.ent` beside the .bsp: a header line, then
 * entity text.
 */
typedef struct bspkit_r2_entity_partition {
    const char *name;            /**< "env", "fx", "script", "snd", "spawn", ... */
    const char *file;            /**< the .ent path looked for; NULL when the map was opened from memory */
    const char *header;          /**< the file's first line ("ENTITIES01"), or NULL when not read */
    bool read;                   /**< the file was read: its entities are in bspkit_get_entities()'s list */
    size_t first_entity;         /**< where they start in that list */
    size_t num_entities;         /**< how many (0 when not read) */
} bspkit_r2_entity_partition;

/**
 * The entity partitions, in the lump's order, with what was read of each
 * (reads the entities first: fails as bspkit_get_entities() does). ENTITY_
 * PARTITIONS text other than a marker (digits and '*') followed by names of
 * letters, digits, '_' and '-' separated by single spaces, up to a NUL, is
 * refused naming the byte. Count 0 for other families.
 */
BSPKIT_API bspkit_result bspkit_get_r2_entity_partitions(bspkit_map *map, const bspkit_r2_entity_partition **out,
                                                         size_t *count, bspkit_error *err);

/** The vertex lump (BSPKIT_R2_VERTEX_*) of mesh flags `flags`. */
BSPKIT_API int bspkit_r2_vertex_lump(uint32_t flags);

#ifdef __cplusplus
}
#endif

#endif
