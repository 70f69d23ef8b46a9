/* Record layouts more than one family uses (most come from Quake, a few
 * from Quake 2): declared once here as schemas (core/schema.h) and used by
 * each family's layout choice. */
#ifndef BSPKIT_CORE_RECORDS_H
#define BSPKIT_CORE_RECORDS_H

#include "core/schema.h"

/* dplane_t, a vertex, a surfedge (int32), an edge of two uint16 or two uint32 vertex indices. */
extern const bk_schema bk_plane_schema, bk_vertex_schema, bk_surfedge_schema, bk_edge16_schema,
    bk_edge32_schema;
/* An array of plain indices: uint16 or uint32 in the file, uint32_t in memory. */
extern const bk_schema bk_index16_schema, bk_index32_schema;
/* Quake 2's model (one head node), brush and area, which Source kept unchanged. */
extern const bk_schema bk_model_onehead_schema, bk_brush_schema, bk_area_schema;

/* bk_model_onehead_schema's fields in two parts, for layouts that insert
 * fields between them (Dark Messiah): the unused clip-hull slots and the
 * bounds and origin; then the head node and the face range. */
#define BK_MODEL_ONEHEAD_BOUNDS(F)                                                                     \
    F(DEFAULT, .headnode[1], -1, "")                                                                   \
    F(DEFAULT, .headnode[2], -1, "")                                                                   \
    F(DEFAULT, .headnode[3], -1, "")                                                                   \
    F(VEC3, .mins, 1, "mins")                                                                          \
    F(VEC3, .maxs, 1, "maxs")                                                                          \
    F(VEC3, .origin, 1, "origin")
#define BK_MODEL_ONEHEAD_FACES(F)                                                                      \
    F(I32, .headnode[0], 1, "headnode")                                                                \
    F(I32, .first_face, 1, "firstface")                                                                \
    F(I32, .num_faces, 1, "numfaces")

#endif
