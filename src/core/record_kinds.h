/* The record kinds of the native structs, shared by the reader, the
 * builder and the reference table without the rest of the map state. */
#ifndef BSPKIT_CORE_RECORD_KINDS_H
#define BSPKIT_CORE_RECORD_KINDS_H

/* The record kinds of the native structs: one decoded-array cache per kind
 * in a map, and the arrays the builder holds and encodes. */
typedef enum bk_rec {
    BK_REC_PLANES, BK_REC_VERTEXES, BK_REC_EDGES, BK_REC_SURFEDGES, BK_REC_FACES, BK_REC_ORIG_FACES, BK_REC_HDR_FACES,
    BK_REC_NODES, BK_REC_LEAFS, BK_REC_MODELS, BK_REC_TEXINFO, BK_REC_LEAF_FACES, BK_REC_LEAF_BRUSHES, BK_REC_CLIPNODES,
    BK_REC_BRUSHES, BK_REC_BRUSHSIDES, BK_REC_TEXDATA, BK_REC_STRING_TABLE, BK_REC_AREAS, BK_REC_AREAPORTALS,
    BK_REC_CUBEMAPS,
    /* Quake 3's own records */
    BK_REC_SHADERS, BK_REC_DRAWVERTS, BK_REC_DRAWINDEXES, BK_REC_SURFACES, BK_REC_FOGS, BK_REC_LIGHTGRID,
    /* Titanfall 2 */
    BK_REC_R2_MODELS, BK_REC_R2_MESHES, BK_REC_R2_MESH_BOUNDS, BK_REC_R2_MATERIAL_SORTS, BK_REC_R2_MESH_INDICES,
    BK_REC_R2_VERTEX_NORMALS, BK_REC_R2_VERTEX_UNLIT, BK_REC_R2_VERTEX_LIT_FLAT, BK_REC_R2_VERTEX_LIT_BUMP,
    BK_REC_R2_VERTEX_UNLIT_TS, BK_REC_COUNT
} bk_rec;

#endif
