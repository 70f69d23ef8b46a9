/* Quake (BSP29, BSP2, 2PSB) and GoldSrc (BSP30) record layouts, each declared
 * once in records.c as a schema (core/schema.h) from which the decoder, the
 * encoder and the dump table are generated. Field names follow the id and
 * Valve compiler headers. */
#ifndef BSPKIT_FORMATS_QUAKE_RECORDS_H
#define BSPKIT_FORMATS_QUAKE_RECORDS_H

#include "core/records.h"

/* Shared by every variant. */
extern const bk_schema bk_quake_texinfo, bk_quake_model;
/* BSP29 and BSP30: 16-bit indices and bounds. */
extern const bk_schema bk_quake_face29, bk_quake_node29, bk_quake_leaf29, bk_quake_clipnode29,
    bk_quake_marksurface29;
/* BSP2: 32-bit indices, float bounds. */
extern const bk_schema bk_quake_face_bsp2, bk_quake_node_bsp2, bk_quake_leaf_bsp2, bk_quake_clipnode_bsp2,
    bk_quake_marksurface_bsp2;
/* 2PSB: 32-bit indices, 16-bit bounds (faces, edges, clipnodes and marksurfaces as in BSP2). */
extern const bk_schema bk_quake_node_2psb, bk_quake_leaf_2psb;

#endif
