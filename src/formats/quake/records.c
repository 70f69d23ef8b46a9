/* Quake and GoldSrc record layouts: the one place each is written down.
 * Every layout is little-endian on disk. The families share every record
 * layout except textures and lighting; BSP2 widens indices to 32 bits and
 * bounds to floats, 2PSB widens indices only. Planes, vertexes, surfedges and
 * edges have the layouts every family shares (core/records.c). */
#include "formats/quake/records.h"

#define TEXINFO(F)                                                                                     \
    F(DEFAULT, .next_texinfo, -1, "")                                                                  \
    F(MAT24, .texture_vecs, 1, "vecs")                                                                 \
    F(I32, .texture, 1, "miptex")                                                                      \
    F(I32, .flags, 1, "flags")
BK_SCHEMA(bk_quake_texinfo, bspkit_texinfo, 40, "texinfo", TEXINFO);

#define MODEL(F)                                                                                       \
    F(VEC3, .mins, 1, "mins")                                                                          \
    F(VEC3, .maxs, 1, "maxs")                                                                          \
    F(VEC3, .origin, 1, "origin")                                                                      \
    F(I32A, .headnode, 4, "headnode")                                                                  \
    F(I32, .vis_leafs, 1, "visleafs")                                                                  \
    F(I32, .first_face, 1, "firstface")                                                                \
    F(I32, .num_faces, 1, "numfaces")
BK_SCHEMA(bk_quake_model, bspkit_model, 64, "model", MODEL);

/* ---- BSP29 / BSP30 ---- */

/* Fields Quake faces lack hold -1 ("none"). */
#define FACE_DEFAULTS(F)                                                                               \
    F(DEFAULT, .dispinfo, -1, "")                                                                      \
    F(DEFAULT, .fog_volume, -1, "")                                                                    \
    F(DEFAULT, .orig_face, -1, "")

#define FACE29(F)                                                                                      \
    FACE_DEFAULTS(F)                                                                                   \
    F(U16, .plane, 1, "planenum")                                                                      \
    F(BOOL16, .side, 1, "side")                                                                        \
    F(I32, .first_edge, 1, "firstedge")                                                                \
    F(U16, .num_edges, 1, "numedges")                                                                  \
    F(U16, .texinfo, 1, "texinfo")                                                                     \
    F(U8A, .styles, 4, "styles")                                                                       \
    F(I32, .light_offset, 1, "lightofs")
BK_SCHEMA(bk_quake_face29, bspkit_face, 20, "face", FACE29);

#define NODE29(F)                                                                                      \
    F(DEFAULT, .area, -1, "")                                                                          \
    F(I32, .plane, 1, "planenum")                                                                      \
    F(I16A, .children, 2, "children")                                                                  \
    F(BMIN16, .mins, 1, "mins")                                                                        \
    F(BMAX16, .maxs, 1, "maxs")                                                                        \
    F(U16, .first_face, 1, "firstface")                                                                \
    F(U16, .num_faces, 1, "numfaces")
BK_SCHEMA(bk_quake_node29, bspkit_node, 24, "node", NODE29);

/* Quake leafs have no cluster or water data: -1. */
#define LEAF_DEFAULTS(F)                                                                               \
    F(DEFAULT, .cluster, -1, "")                                                                       \
    F(DEFAULT, .leaf_water, -1, "")

#define LEAF29(F)                                                                                      \
    LEAF_DEFAULTS(F)                                                                                   \
    F(I32, .contents, 1, "contents")                                                                   \
    F(I32, .vis_offset, 1, "visofs")                                                                   \
    F(BMIN16, .mins, 1, "mins")                                                                        \
    F(BMAX16, .maxs, 1, "maxs")                                                                        \
    F(U16, .first_leaf_face, 1, "firstmarksurface")                                                    \
    F(U16, .num_leaf_faces, 1, "nummarksurfaces")                                                      \
    F(U8A, .ambient_sound, 4, "ambient_level")
BK_SCHEMA(bk_quake_leaf29, bspkit_leaf, 28, "leaf", LEAF29);

#define CLIPNODE29(F)                                                                                  \
    F(I32, .plane, 1, "planenum")                                                                      \
    F(I16A, .children, 2, "children")
BK_SCHEMA(bk_quake_clipnode29, bspkit_clipnode, 8, "clipnode", CLIPNODE29);

#define MARKSURFACE29(F) F(U16, , 1, "marksurface")
BK_SCHEMA(bk_quake_marksurface29, uint32_t, 2, "leaf face", MARKSURFACE29);

/* ---- BSP2 ---- */

#define FACE_BSP2(F)                                                                                   \
    FACE_DEFAULTS(F)                                                                                   \
    F(U32, .plane, 1, "planenum")                                                                      \
    F(BOOL32, .side, 1, "side")                                                                        \
    F(I32, .first_edge, 1, "firstedge")                                                                \
    F(I32, .num_edges, 1, "numedges")                                                                  \
    F(I32, .texinfo, 1, "texinfo")                                                                     \
    F(U8A, .styles, 4, "styles")                                                                       \
    F(I32, .light_offset, 1, "lightofs")
BK_SCHEMA(bk_quake_face_bsp2, bspkit_face, 28, "face", FACE_BSP2);

#define NODE_BSP2(F)                                                                                   \
    F(DEFAULT, .area, -1, "")                                                                          \
    F(I32, .plane, 1, "planenum")                                                                      \
    F(I32A, .children, 2, "children")                                                                  \
    F(VEC3, .mins, 1, "mins")                                                                          \
    F(VEC3, .maxs, 1, "maxs")                                                                          \
    F(U32, .first_face, 1, "firstface")                                                                \
    F(U32, .num_faces, 1, "numfaces")
BK_SCHEMA(bk_quake_node_bsp2, bspkit_node, 44, "node", NODE_BSP2);

#define LEAF_BSP2(F)                                                                                   \
    LEAF_DEFAULTS(F)                                                                                   \
    F(I32, .contents, 1, "contents")                                                                   \
    F(I32, .vis_offset, 1, "visofs")                                                                   \
    F(VEC3, .mins, 1, "mins")                                                                          \
    F(VEC3, .maxs, 1, "maxs")                                                                          \
    F(U32, .first_leaf_face, 1, "firstmarksurface")                                                    \
    F(U32, .num_leaf_faces, 1, "nummarksurfaces")                                                      \
    F(U8A, .ambient_sound, 4, "ambient_level")
BK_SCHEMA(bk_quake_leaf_bsp2, bspkit_leaf, 44, "leaf", LEAF_BSP2);

#define CLIPNODE_BSP2(F)                                                                               \
    F(I32, .plane, 1, "planenum")                                                                      \
    F(I32A, .children, 2, "children")
BK_SCHEMA(bk_quake_clipnode_bsp2, bspkit_clipnode, 12, "clipnode", CLIPNODE_BSP2);

#define MARKSURFACE_BSP2(F) F(U32, , 1, "marksurface")
BK_SCHEMA(bk_quake_marksurface_bsp2, uint32_t, 4, "leaf face", MARKSURFACE_BSP2);

/* ---- 2PSB ---- */

#define NODE_2PSB(F)                                                                                   \
    F(DEFAULT, .area, -1, "")                                                                          \
    F(I32, .plane, 1, "planenum")                                                                      \
    F(I32A, .children, 2, "children")                                                                  \
    F(BMIN16, .mins, 1, "mins")                                                                        \
    F(BMAX16, .maxs, 1, "maxs")                                                                        \
    F(U32, .first_face, 1, "firstface")                                                                \
    F(U32, .num_faces, 1, "numfaces")
BK_SCHEMA(bk_quake_node_2psb, bspkit_node, 32, "node", NODE_2PSB);

#define LEAF_2PSB(F)                                                                                   \
    LEAF_DEFAULTS(F)                                                                                   \
    F(I32, .contents, 1, "contents")                                                                   \
    F(I32, .vis_offset, 1, "visofs")                                                                   \
    F(BMIN16, .mins, 1, "mins")                                                                        \
    F(BMAX16, .maxs, 1, "maxs")                                                                        \
    F(U32, .first_leaf_face, 1, "firstmarksurface")                                                    \
    F(U32, .num_leaf_faces, 1, "nummarksurfaces")                                                      \
    F(U8A, .ambient_sound, 4, "ambient_level")
BK_SCHEMA(bk_quake_leaf_2psb, bspkit_leaf, 32, "leaf", LEAF_2PSB);
