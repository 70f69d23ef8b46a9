/* Quake 2 (IBSP 38) and Daikatana (IBSP 41) record layouts, each declared
 * once in records.c as a schema (core/schema.h). Field names follow id's
 * qfiles.h. Planes, vertexes, edges, surfedges, the two index arrays,
 * models, brushes and areas use the shared layouts (core/records.h). */
#ifndef BSPKIT_FORMATS_QUAKE2_RECORDS_H
#define BSPKIT_FORMATS_QUAKE2_RECORDS_H

#include "core/records.h"

extern const bk_schema bk_q2_node, bk_q2_texinfo, bk_q2_face, bk_q2_leaf, bk_q2_brushside, bk_q2_areaportal;

#endif
