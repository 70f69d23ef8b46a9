/* Quake 3 record layouts: the one place each is written down. Every layout
 * is little-endian; Quake Live and Return to Castle Wolfenstein (IBSP 47)
 * keep all of them. */
#include "formats/quake3/records.h"

#define SHADER(F)                                                                                      \
    F(CHARS, .name, 64, "shader")                                                                      \
    F(I32, .surface_flags, 1, "surfaceFlags")                                                          \
    F(I32, .contents, 1, "contentFlags")
BK_SCHEMA(bk_q3_shader, bspkit_shader, 72, "shader", SHADER);

/* No stored type: the engine works it out on load. 3 (not axial) keeps
 * every distance a full dot product, which is what it computes for the
 * negated axial planes anyway. */
#define PLANE(F)                                                                                       \
    F(DEFAULT, .type, 3, "")                                                                           \
    F(VEC3, .normal, 1, "normal")                                                                      \
    F(F32, .dist, 1, "dist")
BK_SCHEMA(bk_q3_plane, bspkit_plane, 16, "plane", PLANE);

/* Nodes hold no faces and no area. */
#define NODE(F)                                                                                        \
    F(DEFAULT, .area, -1, "")                                                                          \
    F(I32, .plane, 1, "planeNum")                                                                      \
    F(I32A, .children, 2, "children")                                                                  \
    F(BMIN32, .mins, 1, "mins")                                                                        \
    F(BMAX32, .maxs, 1, "maxs")
BK_SCHEMA(bk_q3_node, bspkit_node, 36, "node", NODE);

/* Contents come from the leaf's brushes, not the leaf; first_leaf_face and
 * num_leaf_faces are the leaf's surfaces. */
#define LEAF(F)                                                                                        \
    F(DEFAULT, .vis_offset, -1, "")                                                                    \
    F(DEFAULT, .leaf_water, -1, "")                                                                    \
    F(I32, .cluster, 1, "cluster")                                                                     \
    F(I32, .area, 1, "area")                                                                           \
    F(BMIN32, .mins, 1, "mins")                                                                        \
    F(BMAX32, .maxs, 1, "maxs")                                                                        \
    F(U32, .first_leaf_face, 1, "firstLeafSurface")                                                    \
    F(U32, .num_leaf_faces, 1, "numLeafSurfaces")                                                      \
    F(U32, .first_leaf_brush, 1, "firstLeafBrush")                                                     \
    F(U32, .num_leaf_brushes, 1, "numLeafBrushes")
BK_SCHEMA(bk_q3_leaf, bspkit_leaf, 48, "leaf", LEAF);

/* No head node or origin: the world model's tree starts at node 0 and
 * brush models collide with their brushes. */
#define MODEL(F)                                                                                       \
    F(DEFAULT, .headnode[0], -1, "")                                                                   \
    F(DEFAULT, .headnode[1], -1, "")                                                                   \
    F(DEFAULT, .headnode[2], -1, "")                                                                   \
    F(DEFAULT, .headnode[3], -1, "")                                                                   \
    F(VEC3, .mins, 1, "mins")                                                                          \
    F(VEC3, .maxs, 1, "maxs")                                                                          \
    F(I32, .first_face, 1, "firstSurface")                                                             \
    F(I32, .num_faces, 1, "numSurfaces")                                                               \
    F(I32, .first_brush, 1, "firstBrush")                                                              \
    F(I32, .num_brushes, 1, "numBrushes")
BK_SCHEMA(bk_q3_model, bspkit_model, 40, "model", MODEL);

#define BRUSH(F)                                                                                       \
    F(I32, .first_side, 1, "firstSide")                                                                \
    F(I32, .num_sides, 1, "numSides")                                                                  \
    F(I32, .shader, 1, "shaderNum")
BK_SCHEMA(bk_q3_brush, bspkit_brush, 12, "brush", BRUSH);

#define BRUSHSIDE(F)                                                                                   \
    F(DEFAULT, .texinfo, -1, "")                                                                       \
    F(DEFAULT, .dispinfo, -1, "")                                                                      \
    F(U32, .plane, 1, "planeNum")                                                                      \
    F(I32, .shader, 1, "shaderNum")
BK_SCHEMA(bk_q3_brushside, bspkit_brushside, 8, "brush side", BRUSHSIDE);

#define DRAWVERT(F)                                                                                    \
    F(VEC3, .xyz, 1, "xyz")                                                                            \
    F(F32A, .st, 2, "st")                                                                              \
    F(F32A, .lightmap, 2, "lightmap")                                                                  \
    F(VEC3, .normal, 1, "normal")                                                                      \
    F(U8A, .color, 4, "color")
BK_SCHEMA(bk_q3_drawvert, bspkit_drawvert, 44, "draw vertex", DRAWVERT);

#define DRAWINDEX(F) F(I32, , 1, "index")
BK_SCHEMA(bk_q3_drawindex, int32_t, 4, "draw index", DRAWINDEX);

#define FOG(F)                                                                                         \
    F(CHARS, .shader, 64, "shader")                                                                    \
    F(I32, .brush, 1, "brushNum")                                                                      \
    F(I32, .visible_side, 1, "visibleSide")
BK_SCHEMA(bk_q3_fog, bspkit_fog, 72, "fog", FOG);

#define SURFACE(F)                                                                                     \
    F(I32, .shader, 1, "shaderNum")                                                                    \
    F(I32, .fog, 1, "fogNum")                                                                          \
    F(I32, .type, 1, "surfaceType")                                                                    \
    F(I32, .first_vert, 1, "firstVert")                                                                \
    F(I32, .num_verts, 1, "numVerts")                                                                  \
    F(I32, .first_index, 1, "firstIndex")                                                              \
    F(I32, .num_indexes, 1, "numIndexes")                                                              \
    F(I32, .lightmap, 1, "lightmapNum")                                                                \
    F(I32, .lightmap_x, 1, "lightmapX")                                                                \
    F(I32, .lightmap_y, 1, "lightmapY")                                                                \
    F(I32, .lightmap_width, 1, "lightmapWidth")                                                        \
    F(I32, .lightmap_height, 1, "lightmapHeight")                                                      \
    F(VEC3, .lightmap_origin, 1, "lightmapOrigin")                                                     \
    F(VEC3A, .lightmap_vecs, 3, "lightmapVecs")                                                        \
    F(I32, .patch_width, 1, "patchWidth")                                                              \
    F(I32, .patch_height, 1, "patchHeight")
BK_SCHEMA(bk_q3_surface, bspkit_surface, 104, "surface", SURFACE);

#define LIGHTGRID(F)                                                                                   \
    F(U8A, .ambient, 3, "ambientLight")                                                                \
    F(U8A, .directed, 3, "directedLight")                                                              \
    F(U8A, .direction, 2, "latLong")
BK_SCHEMA(bk_q3_lightgrid, bspkit_lightgrid_cell, 8, "light-grid cell", LIGHTGRID);
