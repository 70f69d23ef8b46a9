/* Quake 2 record layouts: the one place each is written down. Every layout
 * is little-endian. Daikatana's IBSP 41 keeps all of them. The model, brush
 * and area layouts, which Source kept, are in core/records.c. */
#include "formats/quake2/records.h"

#define NODE(F)                                                                                        \
    F(DEFAULT, .area, -1, "")                                                                          \
    F(I32, .plane, 1, "planenum")                                                                      \
    F(I32A, .children, 2, "children")                                                                  \
    F(BMIN16, .mins, 1, "mins")                                                                        \
    F(BMAX16, .maxs, 1, "maxs")                                                                        \
    F(U16, .first_face, 1, "firstface")                                                                \
    F(U16, .num_faces, 1, "numfaces")
BK_SCHEMA(bk_q2_node, bspkit_node, 28, "node", NODE);

/* No texture index: the texture is named in the record. */
#define TEXINFO(F)                                                                                     \
    F(DEFAULT, .texture, -1, "")                                                                       \
    F(MAT24, .texture_vecs, 1, "vecs")                                                                 \
    F(I32, .flags, 1, "flags")                                                                         \
    F(I32, .value, 1, "value")                                                                         \
    F(CHARS, .texture_name, 32, "texture")                                                             \
    F(I32, .next_texinfo, 1, "nexttexinfo")
BK_SCHEMA(bk_q2_texinfo, bspkit_texinfo, 76, "texinfo", TEXINFO);

#define FACE(F)                                                                                        \
    F(DEFAULT, .dispinfo, -1, "")                                                                      \
    F(DEFAULT, .fog_volume, -1, "")                                                                    \
    F(DEFAULT, .orig_face, -1, "")                                                                     \
    F(U16, .plane, 1, "planenum")                                                                      \
    F(BOOL16, .side, 1, "side")                                                                        \
    F(I32, .first_edge, 1, "firstedge")                                                                \
    F(I16, .num_edges, 1, "numedges")                                                                  \
    F(I16, .texinfo, 1, "texinfo")                                                                     \
    F(U8A, .styles, 4, "styles")                                                                       \
    F(I32, .light_offset, 1, "lightofs")
BK_SCHEMA(bk_q2_face, bspkit_face, 20, "face", FACE);

/* Visibility is by cluster; there is no per-leaf offset or water data. */
#define LEAF(F)                                                                                        \
    F(DEFAULT, .vis_offset, -1, "")                                                                    \
    F(DEFAULT, .leaf_water, -1, "")                                                                    \
    F(I32, .contents, 1, "contents")                                                                   \
    F(I16, .cluster, 1, "cluster")                                                                     \
    F(I16, .area, 1, "area")                                                                           \
    F(BMIN16, .mins, 1, "mins")                                                                        \
    F(BMAX16, .maxs, 1, "maxs")                                                                        \
    F(U16, .first_leaf_face, 1, "firstleafface")                                                       \
    F(U16, .num_leaf_faces, 1, "numleaffaces")                                                         \
    F(U16, .first_leaf_brush, 1, "firstleafbrush")                                                     \
    F(U16, .num_leaf_brushes, 1, "numleafbrushes")
BK_SCHEMA(bk_q2_leaf, bspkit_leaf, 28, "leaf", LEAF);

#define BRUSHSIDE(F)                                                                                   \
    F(DEFAULT, .shader, -1, "")                                                                        \
    F(DEFAULT, .dispinfo, -1, "")                                                                      \
    F(U16, .plane, 1, "planenum")                                                                      \
    F(I16, .texinfo, 1, "texinfo")
BK_SCHEMA(bk_q2_brushside, bspkit_brushside, 4, "brush side", BRUSHSIDE);

/* A portal names the area on its other side; no plane or clip vertices. */
#define AREAPORTAL(F)                                                                                  \
    F(DEFAULT, .plane, -1, "")                                                                         \
    F(U32, .portal_key, 1, "portalnum")                                                                \
    F(U32, .other_area, 1, "otherarea")
BK_SCHEMA(bk_q2_areaportal, bspkit_areaportal, 8, "area portal", AREAPORTAL);
