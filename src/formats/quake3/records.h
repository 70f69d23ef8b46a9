/* Quake 3 (IBSP 46, 47) record layouts, each declared once in records.c as a
 * schema (core/schema.h). Field names follow id's qfiles.h. Leaf surfaces
 * and leaf brushes use the shared 32-bit index layout, brushes the Quake 2
 * brush's shape with a shader in place of contents. */
#ifndef BSPKIT_FORMATS_QUAKE3_RECORDS_H
#define BSPKIT_FORMATS_QUAKE3_RECORDS_H

#include "bspkit/quake3.h"
#include "core/records.h"

extern const bk_schema bk_q3_shader, bk_q3_plane, bk_q3_node, bk_q3_leaf, bk_q3_model, bk_q3_brush,
    bk_q3_brushside, bk_q3_drawvert, bk_q3_drawindex, bk_q3_fog, bk_q3_surface, bk_q3_lightgrid;

#endif
