/*
 * bspkit/source_lumps.h — the remaining Source lumps: overlays, occluders,
 * physics collision data, water data, primitives ("water strips"), vertex
 * normals, face ids, clip portal vertices, level flags, the early portal /
 * cluster lumps and Left 4 Dead 2's static prop collision lumps.
 *
 * Conventions (as in bspkit.h):
 *  - Each accessor decodes its lump on first use and caches the result (or
 *    the failure). Returned pointers are borrowed and live until
 *    bspkit_close().
 *  - A map without the lump — or a Quake/GoldSrc map — gives BSPKIT_OK and
 *    count 0.
 *  - Counts and ranges read from the file are checked against the bytes
 *    present; an overrun fails with BSPKIT_ERR_LUMP_SIZE naming the lump and
 *    the byte offset (file offset when the lump is stored uncompressed).
 *  - Record layouts follow the map: Strata (v25, BSPKIT_VARIANT_WIDE_LUMPS)
 *    widens several of them when the lump version says so; the widened
 *    layouts decode into the same structs.
 */
#ifndef BSPKIT_SOURCE_LUMPS_H
#define BSPKIT_SOURCE_LUMPS_H

#include "bspkit/bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Overlays (lumps 45, 50, 60, 61)                                           */
/* ------------------------------------------------------------------------ */

#define BSPKIT_OVERLAY_FACES 64        /**< OVERLAY_BSP_FACE_COUNT */
#define BSPKIT_WATER_OVERLAY_FACES 256 /**< WATEROVERLAY_BSP_FACE_COUNT */

/**
 * doverlay_t: 352 bytes; Strata (v25, lump version >= 1) stores TexInfo as
 * an int and pads after FaceCountAndRenderOrder (356 bytes).
 */
typedef struct bspkit_overlay {
    int32_t id;                  /**< Id */
    int32_t texinfo;             /**< TexInfo: index into TEXINFO */
    uint16_t face_count_and_render_order; /**< FaceCountAndRenderOrder as stored */
    uint16_t face_count;         /**< low 14 bits: entries of `faces` in use */
    uint8_t render_order;        /**< top 2 bits */
    int32_t faces[BSPKIT_OVERLAY_FACES]; /**< Ofaces: indices into FACES */
    float u[2];                  /**< U: min and max texture coordinate */
    float v[2];                  /**< V: min and max texture coordinate */
    bspkit_vec3 uv_points[4];    /**< UVPoints: corners in the overlay's basis */
    bspkit_vec3 origin;          /**< Origin */
    bspkit_vec3 basis_normal;    /**< BasisNormal */
} bspkit_overlay;

/** dwateroverlay_t: as doverlay_t with 256 faces (1120 bytes; Strata 1124). */
typedef struct bspkit_water_overlay {
    int32_t id;
    int32_t texinfo;
    uint16_t face_count_and_render_order;
    uint16_t face_count;         /**< low 14 bits */
    uint8_t render_order;        /**< top 2 bits */
    int32_t faces[BSPKIT_WATER_OVERLAY_FACES];
    float u[2];
    float v[2];
    bspkit_vec3 uv_points[4];
    bspkit_vec3 origin;
    bspkit_vec3 basis_normal;
} bspkit_water_overlay;

/** doverlayfade_t: one per overlay, squared fade distances. */
typedef struct bspkit_overlay_fade {
    float fade_dist_min_sq; /**< flFadeDistMinSq */
    float fade_dist_max_sq; /**< flFadeDistMaxSq */
} bspkit_overlay_fade;

/** doverlaysystemlevel_t: one per overlay, CPU/GPU levels that draw it. */
typedef struct bspkit_overlay_system_level {
    uint8_t min_cpu_level; /**< nMinCPULevel */
    uint8_t max_cpu_level; /**< nMaxCPULevel */
    uint8_t min_gpu_level; /**< nMinGPULevel */
    uint8_t max_gpu_level; /**< nMaxGPULevel */
} bspkit_overlay_system_level;

/** OVERLAYS (45). */
BSPKIT_API bspkit_result bspkit_get_overlays(bspkit_map *map, const bspkit_overlay **out, size_t *count, bspkit_error *err);
/** WATEROVERLAYS (50). */
BSPKIT_API bspkit_result bspkit_get_water_overlays(bspkit_map *map, const bspkit_water_overlay **out, size_t *count,
                                        bspkit_error *err);
/** OVERLAY_FADES (60). */
BSPKIT_API bspkit_result bspkit_get_overlay_fades(bspkit_map *map, const bspkit_overlay_fade **out, size_t *count,
                                       bspkit_error *err);
/** OVERLAY_SYSTEM_LEVELS (61). */
BSPKIT_API bspkit_result bspkit_get_overlay_system_levels(bspkit_map *map, const bspkit_overlay_system_level **out,
                                               size_t *count, bspkit_error *err);

/* ------------------------------------------------------------------------ */
/* Occlusion (lump 9)                                                        */
/* ------------------------------------------------------------------------ */

/** doccluderdata_t (40 bytes; lump versions 0 and 1 lack `area`: 36 bytes). */
typedef struct bspkit_occluder {
    int32_t flags;      /**< flags */
    int32_t first_poly; /**< firstpoly: index into bspkit_occlusion.polys */
    int32_t poly_count; /**< polycount */
    bspkit_vec3 mins;   /**< mins */
    bspkit_vec3 maxs;   /**< maxs */
    int32_t area;       /**< area (lump version 2); -1 when the lump version has none */
} bspkit_occluder;

/** doccluderpolydata_t (12 bytes). */
typedef struct bspkit_occluder_poly {
    int32_t first_vertex_index; /**< firstvertexindex: into bspkit_occlusion.vertex_indices */
    int32_t vertex_count;       /**< vertexcount */
    int32_t plane;              /**< planenum: index into PLANES */
} bspkit_occluder_poly;

/** The three counted arrays of the occlusion lump. */
typedef struct bspkit_occlusion {
    int32_t version;                     /**< the lump version that chose the occluder layout */
    const bspkit_occluder *occluders;
    size_t occluder_count;
    const bspkit_occluder_poly *polys;
    size_t poly_count;
    const int32_t *vertex_indices;       /**< indices into VERTEXES */
    size_t vertex_index_count;
    size_t trailing_bytes;               /**< bytes after the third array (0 in well-formed maps) */
} bspkit_occlusion;

/**
 * OCCLUSION (9): int count, doccluderdata_t[count], int polyDataCount,
 * doccluderpolydata_t[...], int vertexIndexCount, int[...]. Each count is
 * checked against the bytes that follow it (negative counts fail). An empty
 * lump gives a zeroed struct.
 */
BSPKIT_API bspkit_result bspkit_get_occlusion(bspkit_map *map, const bspkit_occlusion **out, bspkit_error *err);

/* ------------------------------------------------------------------------ */
/* Physics (lumps 28, 29)                                                    */
/* ------------------------------------------------------------------------ */

/** One collision solid of a physics model: a 4-byte size, then `size` bytes. */
typedef struct bspkit_phys_solid {
    uint64_t offset; /**< lump offset of the solid's size field */
    uint32_t size;   /**< bytes of collision data after the size field */
    char id[5];      /**< "VPHY" (compactsurfaceheader_t, either byte order), "IVPS" (older
                          solids: the IVP compact surface's id at data byte 44), "MOPP"
                          (Bloodlines: the same compact surface with a Havok MOPP tree over
                          its ledges; id at data byte 44), else "" */
} bspkit_phys_solid;

/** dphysmodel_t and the data it heads. */
typedef struct bspkit_phys_model {
    int32_t model_index;    /**< modelIndex: index into MODELS */
    int32_t data_size;      /**< dataSize: bytes of all solids, size fields included */
    int32_t keydata_size;   /**< keydataSize */
    int32_t solid_count;    /**< solidCount */
    uint64_t offset;        /**< lump offset of the dphysmodel_t header */
    const char *keydata;    /**< key-value text (borrowed from the lump, NOT NUL-terminated) */
    size_t keydata_length;  /**< equals keydata_size */
    size_t first_solid;     /**< index of this model's first solid in bspkit_physcollide.solids */
} bspkit_phys_model;

typedef struct bspkit_physcollide {
    const bspkit_phys_model *models; /**< in file order, terminator excluded */
    size_t model_count;
    const bspkit_phys_solid *solids; /**< every model's solids, in file order */
    size_t solid_count;
    bool terminated;       /**< a dphysmodel_t with modelIndex -1 ended the list */
    uint64_t end_offset;   /**< lump offset just after the terminator (or the last model) */
} bspkit_physcollide;

/**
 * PHYSCOLLIDE (29): a sequence of dphysmodel_t headers, each followed by
 * solidCount solids (4-byte size + data) and keydataSize bytes of text,
 * ended by a header with modelIndex -1. dataSize must equal the bytes the
 * solids take. A list that ends exactly at the lump end without a terminator
 * is accepted (terminated = false); any overrun fails.
 */
BSPKIT_API bspkit_result bspkit_get_physcollide(bspkit_map *map, const bspkit_physcollide **out, bspkit_error *err);

/** One displacement's collision blob in PHYSDISP. */
typedef struct bspkit_physdisp_entry {
    uint64_t offset; /**< lump offset of the blob */
    uint32_t size;   /**< dataSize[i] */
} bspkit_physdisp_entry;

/**
 * PHYSDISP (28): uint16 numDisplacements, uint16 dataSize[n], then the
 * blobs back to back (Strata lump version 2: 32-bit count and sizes). The
 * blobs must fit in the lump.
 */
BSPKIT_API bspkit_result bspkit_get_physdisp(bspkit_map *map, const bspkit_physdisp_entry **out, size_t *count,
                                  bspkit_error *err);

/* ------------------------------------------------------------------------ */
/* Water, primitives, normals, per-face arrays                               */
/* ------------------------------------------------------------------------ */

/** dleafwaterdata_t (12 bytes: two floats, a short, 2 bytes padding). */
typedef struct bspkit_leaf_water {
    float surface_z; /**< surfaceZ */
    float min_z;     /**< minZ */
    int32_t texinfo; /**< surfaceTexInfoID: index into TEXINFO */
} bspkit_leaf_water;

/**
 * dprimitive_t: unsigned char type, a pad byte, then four unsigned shorts
 * (10 bytes); Strata (v25, lump version >= 1): type, 3 pad bytes, four
 * uint32 (20 bytes).
 */
typedef struct bspkit_primitive {
    uint8_t type;         /**< type: 0 = triangle list, 1 = triangle strip */
    uint32_t first_index; /**< firstIndex: into PRIMINDICES */
    uint32_t index_count; /**< indexCount */
    uint32_t first_vert;  /**< firstVert: into PRIMVERTS */
    uint32_t vert_count;  /**< vertCount */
} bspkit_primitive;

/** LEAFWATERDATA (36). */
BSPKIT_API bspkit_result bspkit_get_leaf_water(bspkit_map *map, const bspkit_leaf_water **out, size_t *count,
                                    bspkit_error *err);
/** LEAFMINDISTTOWATER (46): one uint16 per leaf. */
BSPKIT_API bspkit_result bspkit_get_leaf_min_dist_to_water(bspkit_map *map, const uint16_t **out, size_t *count,
                                                bspkit_error *err);
/** PRIMITIVES (37), vbspinfo's "waterstrips". */
BSPKIT_API bspkit_result bspkit_get_primitives(bspkit_map *map, const bspkit_primitive **out, size_t *count,
                                    bspkit_error *err);
/** PRIMVERTS (38). */
BSPKIT_API bspkit_result bspkit_get_prim_verts(bspkit_map *map, const bspkit_vec3 **out, size_t *count, bspkit_error *err);
/** PRIMINDICES (39): uint16 each (uint32 in Strata lump version >= 1), widened. */
BSPKIT_API bspkit_result bspkit_get_prim_indices(bspkit_map *map, const uint32_t **out, size_t *count, bspkit_error *err);
/** VERTNORMALS (30). */
BSPKIT_API bspkit_result bspkit_get_vert_normals(bspkit_map *map, const bspkit_vec3 **out, size_t *count,
                                      bspkit_error *err);
/** VERTNORMALINDICES (31): indices into VERTNORMALS, uint16 (uint32 in Strata lump version >= 1). */
BSPKIT_API bspkit_result bspkit_get_vert_normal_indices(bspkit_map *map, const uint32_t **out, size_t *count,
                                             bspkit_error *err);

/**
 * Normal of vertex `k` (0 <= k < num_edges) of face `face`. VERTNORMALINDICES
 * holds one entry per face vertex, faces in index order and each face's
 * vertices in surfedge order, so face f's entries start at the sum of
 * num_edges over faces 0..f-1. The faces are FACES, or FACES_HDR when the map
 * has no LDR faces (HDR-only maps). Fails with BSPKIT_ERR_INDEX when
 * `face`/`k` are out of range, when the face sizes do not add up to the index
 * count, or when the index is outside VERTNORMALS. `index` (may be NULL) gets
 * the VERTNORMALS index.
 */
BSPKIT_API bspkit_result bspkit_face_vertex_normal(bspkit_map *map, size_t face, uint32_t k, bspkit_vec3 *normal,
                                        uint32_t *index, bspkit_error *err);

/** FACEIDS (11): hammerfaceid per face (uint16; Strata stores uint32 when the lump is 4 bytes a face). */
BSPKIT_API bspkit_result bspkit_get_face_ids(bspkit_map *map, const uint32_t **out, size_t *count, bspkit_error *err);
/** FACE_MACRO_TEXTURE_INFO (47): uint16 per face, an index into the texdata string table; 0xFFFF = none. */
BSPKIT_API bspkit_result bspkit_get_face_macro_texinfo(bspkit_map *map, const uint16_t **out, size_t *count,
                                            bspkit_error *err);
/** CLIPPORTALVERTS (41): area portal polygon vertices. */
BSPKIT_API bspkit_result bspkit_get_clip_portal_verts(bspkit_map *map, const bspkit_vec3 **out, size_t *count,
                                           bspkit_error *err);
/**
 * MAP_FLAGS (59): dflagslump_t's m_LevelFlags (bit 0: LVLFLAGS_BAKED_STATIC_PROP_LIGHTING_NONHDR,
 * bit 1: ..._HDR). `*count` is 1 when the lump is present, else 0 and *flags 0.
 */
BSPKIT_API bspkit_result bspkit_get_map_flags(bspkit_map *map, uint32_t *flags, size_t *count, bspkit_error *err);

/* ------------------------------------------------------------------------ */
/* Lumps 22-25                                                               */
/* ------------------------------------------------------------------------ */

/**
 * dportal_t (16 bytes). PORTALS/CLUSTERS/PORTALVERTS/CLUSTERPORTALS are
 * decoded for VBSP versions up to 19 only; from version 20 on the slots are
 * unused (Valve) or hold other data (Left 4 Dead 2's prop collision, CS:GO
 * and Strata face-brush lists).
 */
typedef struct bspkit_portal {
    int32_t first_portal_vert; /**< firstportalvert: into PORTALVERTS */
    int32_t num_portal_verts;  /**< numportalverts */
    int32_t plane;             /**< planenum */
    uint16_t cluster[2];       /**< cluster */
} bspkit_portal;

/** dcluster_t (8 bytes). */
typedef struct bspkit_cluster {
    int32_t first_portal; /**< firstportal: into CLUSTERPORTALS */
    int32_t num_portals;  /**< numportals */
} bspkit_cluster;

/** PORTALS (22), VBSP <= 19. */
BSPKIT_API bspkit_result bspkit_get_portals(bspkit_map *map, const bspkit_portal **out, size_t *count, bspkit_error *err);
/** CLUSTERS (23), VBSP <= 19. */
BSPKIT_API bspkit_result bspkit_get_clusters(bspkit_map *map, const bspkit_cluster **out, size_t *count, bspkit_error *err);
/** PORTALVERTS (24), VBSP <= 19. */
BSPKIT_API bspkit_result bspkit_get_portal_verts(bspkit_map *map, const bspkit_vec3 **out, size_t *count,
                                      bspkit_error *err);
/** CLUSTERPORTALS (25), VBSP <= 19: uint16 portal indices, widened. */
BSPKIT_API bspkit_result bspkit_get_cluster_portals(bspkit_map *map, const uint32_t **out, size_t *count,
                                         bspkit_error *err);

/** dpropcollision_t (8 bytes): the hulls of one static prop model. */
typedef struct bspkit_prop_collision_entry {
    int32_t hull_count; /**< m_nHullCount */
    int32_t hull_start; /**< m_nHullStart: into hulls */
} bspkit_prop_collision_entry;

/** dprophull_t (16 bytes). */
typedef struct bspkit_prop_hull {
    int32_t vert_count;   /**< m_nVertCount */
    int32_t vert_start;   /**< m_nVertStart: into hull_verts */
    int32_t surface_prop; /**< m_nSurfaceProp */
    uint32_t contents;    /**< m_nContents */
} bspkit_prop_hull;

/** dprophulltris_t (8 bytes), one per hull. */
typedef struct bspkit_prop_hull_tris {
    int32_t index_start; /**< m_nIndexStart */
    int32_t index_count; /**< m_nIndexCount */
} bspkit_prop_hull_tris;

/** Left 4 Dead 2's static prop collision lumps 22-25. */
typedef struct bspkit_prop_collision {
    const bspkit_prop_collision_entry *collisions; /**< PROPCOLLISION (22) */
    size_t collision_count;
    const bspkit_prop_hull *hulls;                 /**< PROPHULLS (23) */
    size_t hull_count;
    const bspkit_vec3 *hull_verts;                 /**< PROPHULLVERTS (24) */
    size_t hull_vert_count;
    const bspkit_prop_hull_tris *tris;             /**< PROPTRIS (25) */
    size_t tris_count;
} bspkit_prop_collision;

/**
 * Lumps 22-25 as Left 4 Dead 2 stores them: decoded for VBSP 21 maps with
 * the Left 4 Dead 2 directory (BSPKIT_VARIANT_L4D2_DIRECTORY); other maps
 * give a zeroed struct. PROP_BLOB (49) has no public layout: read it with
 * bspkit_lump_bytes().
 */
BSPKIT_API bspkit_result bspkit_get_prop_collision(bspkit_map *map, const bspkit_prop_collision **out, bspkit_error *err);

#ifdef __cplusplus
}
#endif

#endif /* BSPKIT_SOURCE_LUMPS_H */
