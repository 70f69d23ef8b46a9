/*
 * bspkit/displacement.h — Source displacement surfaces.
 *
 * A displacement replaces one four-sided face (its MapFace) by a grid of
 * (2^power + 1)^2 vertices, each moved off the flat face along its own
 * direction. The data is spread over several lumps:
 *  - DISPINFO (26): one ddispinfo_t per displacement (176 bytes; 232 bytes in
 *    Strata Source v25 maps whose DISPINFO lump version is >= 1);
 *  - DISP_VERTS (33): one CDispVert per grid vertex, (2^power + 1)^2 per
 *    displacement starting at DispVertStart;
 *  - DISP_TRIS (48): one 16-bit tag word per triangle, 2 * (2^power)^2 per
 *    displacement starting at DispTriStart;
 *  - DISP_LIGHTMAP_ALPHAS (32) and DISP_LIGHTMAP_SAMPLE_POSITIONS (34): byte
 *    streams addressed by LightmapAlphaStart / LightmapSamplePositionStart;
 *  - DISP_MULTIBLEND (63, Alien Swarm / CS:GO era): one CDispMultiBlend per
 *    vertex of each displacement flagged BSPKIT_DISP_FLAG_HAS_MULTIBLEND.
 *
 * Accessors follow bspkit.h's conventions: arrays are decoded on first use,
 * cached, and BORROWED from the map until bspkit_close(). Maps of other
 * families, and Source maps without the lump, give count 0.
 * Values are decoded field by field in the file's byte order (Xbox 360 maps
 * included); nothing is range-checked against other lumps here — the mesh
 * builder does that for the displacement it builds.
 */
#ifndef BSPKIT_DISPLACEMENT_H
#define BSPKIT_DISPLACEMENT_H

#include "bspkit/bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Smallest and largest power the engine accepts (4x4 to 16x16 quads). */
#define BSPKIT_DISP_MIN_POWER 2
#define BSPKIT_DISP_MAX_POWER 4

/** Bits of ddispinfo_t.minTess in maps from the multiblend era on. */
#define BSPKIT_DISP_FLAG_HAS_MULTIBLEND 0x40000000u /**< vertices have DISP_MULTIBLEND records */
#define BSPKIT_DISP_FLAG_MAGIC 0x80000000u          /**< minTess holds flags, not a tessellation count */

/** DISP_TRIS tag bits (CDispTri::m_uiTags). */
enum {
    BSPKIT_DISPTRI_TAG_SURFACE = 1 << 0,
    BSPKIT_DISPTRI_TAG_WALKABLE = 1 << 1,
    BSPKIT_DISPTRI_TAG_BUILDABLE = 1 << 2,
    BSPKIT_DISPTRI_FLAG_SURFPROP1 = 1 << 3,
    BSPKIT_DISPTRI_FLAG_SURFPROP2 = 1 << 4
};

/**
 * One ddispinfo_t. Neighbour arrays are flattened so that each holds values
 * of one type: edge `e` (NEIGHBOREDGE_ order: left, top, right, bottom),
 * sub-neighbour `s` (0 or 1, the two halves of the edge). Neighbour indices
 * of -1 mean "none" (stored as 0xFFFF, or 0xFFFFFFFF in the 232-byte layout).
 */
typedef struct bspkit_dispinfo {
    bspkit_vec3 start_position;    /**< startPosition: near the base-face corner that becomes grid corner 0 */
    int32_t disp_vert_start;       /**< DispVertStart: first DISP_VERTS record */
    int32_t disp_tri_start;        /**< DispTriStart: first DISP_TRIS record */
    int32_t power;                 /**< grid of 2^power quads per side; 2..4 in valid maps */
    int32_t min_tess;              /**< minTess as stored; with BSPKIT_DISP_FLAG_MAGIC set it holds flags */
    float smoothing_angle;         /**< smoothingAngle: lighting smoothing angle, degrees */
    int32_t contents;              /**< contents: CONTENTS_* bits of the surface */
    uint32_t map_face;             /**< MapFace: index into FACES (uint16, or uint32 in the 232-byte layout) */
    int32_t lightmap_alpha_start;  /**< LightmapAlphaStart: byte offset into DISP_LIGHTMAP_ALPHAS */
    int32_t lightmap_sample_position_start; /**< LightmapSamplePositionStart: byte offset into DISP_LIGHTMAP_SAMPLE_POSITIONS */
    int32_t edge_neighbor[4][2];            /**< EdgeNeighbors[e].m_SubNeighbors[s].m_iNeighbor, -1 = none */
    uint8_t edge_neighbor_orientation[4][2]; /**< m_NeighborOrientation: neighbour's CCW rotation, 0..3 */
    uint8_t edge_span[4][2];                /**< m_Span: where the neighbour lies along this edge */
    uint8_t edge_neighbor_span[4][2];       /**< m_NeighborSpan: where this edge lies along the neighbour's */
    int32_t corner_neighbors[4][4];         /**< CornerNeighbors[c].m_Neighbors, -1 = none; valid up to the count */
    uint8_t corner_neighbor_count[4];       /**< CornerNeighbors[c].m_nNeighbors (0..4 in valid maps) */
    uint32_t allowed_verts[10];             /**< AllowedVerts: bit set of vertices kept at lower LOD */
    /** Derived by bspkit, not stored in the file: first DISP_MULTIBLEND record
     *  of this displacement (the flagged displacements' vertices follow one
     *  another in DISPINFO order), or -1 when it has none. */
    int64_t multiblend_start;
} bspkit_dispinfo;

/** One CDispVert: the vertex sits at its flat grid position + vec * dist. */
typedef struct bspkit_disp_vert {
    bspkit_vec3 vec; /**< unit direction of the offset */
    float dist;      /**< length of the offset */
    float alpha;     /**< blend between the two textures, 0..255 */
} bspkit_disp_vert;

/** One CDispMultiBlend (80 bytes): per-vertex blend of up to four materials. */
typedef struct bspkit_disp_multiblend {
    float multiblend[4];         /**< m_vMultiBlend */
    float alphablend[4];         /**< m_vAlphaBlend */
    bspkit_vec3 colors[4];       /**< m_vMultiBlendColors */
} bspkit_disp_multiblend;

/** Vertices of a displacement of `power`: (2^power + 1)^2; 0 outside 0..30. */
static inline uint64_t bspkit_disp_vert_count(int32_t power)
{
    return power < 0 || power > 30 ? 0 : ((1ull << power) + 1) * ((1ull << power) + 1);
}

/** Triangles of a displacement of `power`: 2 * (2^power)^2; 0 outside 0..30. */
static inline uint64_t bspkit_disp_tri_count(int32_t power)
{
    return power < 0 || power > 30 ? 0 : 2ull << (2 * power);
}

/**
 * DISPINFO records. BSPKIT_ERR_LUMP_SIZE when the (decompressed) lump is not
 * a whole number of records.
 */
BSPKIT_API bspkit_result bspkit_get_dispinfo(bspkit_map *map, const bspkit_dispinfo **out, size_t *count, bspkit_error *err);

/** DISP_VERTS records (20 bytes each). */
BSPKIT_API bspkit_result bspkit_get_disp_verts(bspkit_map *map, const bspkit_disp_vert **out, size_t *count,
                                    bspkit_error *err);

/** DISP_TRIS tag words (BSPKIT_DISPTRI_* bits), one per triangle. */
BSPKIT_API bspkit_result bspkit_get_disp_tris(bspkit_map *map, const uint16_t **out, size_t *count, bspkit_error *err);

/**
 * DISP_LIGHTMAP_ALPHAS as bytes: per-luxel blend alphas of each
 * displacement's lightmap, from LightmapAlphaStart (the exact packing is not
 * publicly documented, so bspkit does not decode it). The format documents
 * call the lump unused since 2006; later compilers leave it empty.
 */
BSPKIT_API bspkit_result bspkit_get_disp_lightmap_alphas(bspkit_map *map, const uint8_t **data, size_t *size,
                                              bspkit_error *err);

/**
 * DISP_LIGHTMAP_SAMPLE_POSITIONS as bytes: a variable-length stream per
 * displacement, at LightmapSamplePositionStart, that tells the lighting
 * compiler which triangle and barycentric point each luxel samples. bspkit
 * does not decode it (the encoding is not publicly specified); Valve's
 * vbspinfo reports its byte count as "disp_lmsamples". Xbox 360 builds drop it.
 */
BSPKIT_API bspkit_result bspkit_get_disp_lightmap_sample_positions(bspkit_map *map, const uint8_t **data, size_t *size,
                                                        bspkit_error *err);

/** DISP_MULTIBLEND records (80 bytes each); BSPKIT_ERR_LUMP_SIZE when the lump is not a multiple of 80. */
BSPKIT_API bspkit_result bspkit_get_disp_multiblend(bspkit_map *map, const bspkit_disp_multiblend **out, size_t *count,
                                         bspkit_error *err);

/* ------------------------------------------------------------------------ */
/* Displaced mesh                                                            */
/* ------------------------------------------------------------------------ */

/**
 * The triangulated surface of one displacement, in world coordinates. Every
 * array is allocated by bspkit_disp_build_mesh() and OWNED by the caller,
 * released with bspkit_disp_mesh_free().
 *
 * Grid order (the engine's): vertex (i, j) is index i * side + j. Row i
 * steps from corner 0 towards corner 1; within a row, j steps from the point
 * on edge 0->1 to the matching point on edge 3->2. So index 0 is corner 0,
 * side - 1 is corner 3, (side - 1) * side is corner 1 and side * side - 1 is
 * corner 2.
 *
 * Triangles (the engine's alternating diagonal): quad (i, j) with top-left
 * index n = i * side + j (i, j < side - 1) gives two triangles, in quad
 * order. When n is odd the diagonal runs n+1 .. n+side:
 * {n, n+side, n+1}, {n+1, n+side, n+side+1}; when n is even it runs
 * n .. n+side+1: {n, n+side, n+side+1}, {n, n+side+1, n+1}. Since side is odd
 * this is a checkerboard. Triangle t carries DISP_TRIS tag DispTriStart + t.
 */
typedef struct bspkit_disp_mesh {
    int32_t power;            /**< the displacement's power */
    uint32_t side;            /**< vertices per grid row: 2^power + 1 */
    bspkit_vec3 corners[4];   /**< base-face corners, rotated so corners[0] is nearest startPosition */
    int first_corner;         /**< which corner of the face's winding became corners[0] (0..3) */
    size_t vertex_count;      /**< side * side */
    bspkit_vec3 *positions;   /**< flat grid position + vec * dist, per vertex */
    bspkit_vec3 *normals;     /**< unit vertex normals: sum of the adjacent triangles' (b-a)x(c-a), normalised; 0 if degenerate */
    float *alphas;            /**< CDispVert alpha per vertex */
    size_t triangle_count;    /**< 2 * (2^power)^2 */
    uint32_t *indices;        /**< 3 vertex indices per triangle */
    uint16_t *tags;           /**< DISP_TRIS tags per triangle; NULL when the map has no DISP_TRIS lump at all */
} bspkit_disp_mesh;

/**
 * Build the displaced mesh of displacement `disp_index`. The base face is
 * DISPINFO's MapFace in FACES (in FACES_HDR when FACES is empty, as in
 * HDR-only Xbox 360 builds); it must have exactly 4 edges whose surfedges,
 * edges and vertices are in range. Fails with BSPKIT_ERR_ARGUMENT when
 * `disp_index` is not a displacement of the map, and with BSPKIT_ERR_INDEX
 * naming the DISPINFO record when its power is outside 2..4, its MapFace,
 * DispVertStart or DispTriStart range lies outside its lump, or its face is
 * not a valid quadrilateral. On failure `*out` is left zeroed.
 */
BSPKIT_API bspkit_result bspkit_disp_build_mesh(bspkit_map *map, size_t disp_index, bspkit_disp_mesh *out, bspkit_error *err);

/** Release the arrays of a mesh and zero it. NULL and zeroed meshes are allowed. The arrays share
 *  one allocation: release them only through this call, never one by one. */
BSPKIT_API void bspkit_disp_mesh_free(bspkit_disp_mesh *mesh);

#ifdef __cplusplus
}
#endif

#endif /* BSPKIT_DISPLACEMENT_H */
