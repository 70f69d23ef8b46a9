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

#endif
