/* Titanfall 2 (rBSP 37) record layouts, each declared once in records.c as
 * a schema (core/schema.h). Field names follow bsp_tool's
 * branches/respawn/titanfall.py and titanfall2.py. Vertices and vertex
 * normals use the shared vertex layout (core/records.h). */
#ifndef BSPKIT_FORMATS_TITANFALL_RECORDS_H
#define BSPKIT_FORMATS_TITANFALL_RECORDS_H

#include "bspkit/titanfall.h"
#include "core/records.h"

extern const bk_schema bk_r2_plane, bk_r2_texture_data, bk_r2_string_table, bk_r2_model, bk_r2_cubemap,
    bk_r2_mesh, bk_r2_mesh_bounds, bk_r2_material_sort, bk_r2_vertex_unlit, bk_r2_vertex_lit_flat,
    bk_r2_vertex_lit_bump, bk_r2_vertex_unlit_ts;

/* Lumps decoded for the dump only: their layout and `info --json` key, or NULL. */
const bk_schema *bk_r2_extra_schema(int lump);
const char *bk_r2_extra_key(int lump);

/* The family's more_entities (core/family.h): the entity partitions' .ent
 * files (entities.c). */
bspkit_result bk_r2_more_entities(bspkit_map *map, bspkit_entities *ents, unsigned flags, bspkit_error *err);

#endif
