/* Field tables behind bspkit_dump_lump(). Each area of the decoder provides
 * one function that describes the lumps it decodes; dump.c asks them in
 * turn. */
#ifndef BSPKIT_CORE_TABLE_H
#define BSPKIT_CORE_TABLE_H

#include "bspkit/dump.h"
#include "core/map.h"

#include <stddef.h>

/* One field of native struct `type`; `name` is the format document's member name. */
#define BK_FIELD(type, member, name, ftype) {(name), (ftype), (uint32_t)offsetof(type, member), 1}
#define BK_FIELDS(type, member, name, ftype, n) {(name), (ftype), (uint32_t)offsetof(type, member), (n)}
#define BK_COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Append a table to `out` (at most BSPKIT_DUMP_MAX_TABLES). */
void bk_dump_add_table(bspkit_dump *out, const char *name, const bspkit_field *fields, size_t field_count,
                       const void *records, size_t stride, size_t count);

/*
 * A provider fills `out->tables` for lump `lump` (directory index; -1 with
 * `game_id` 0 means the BSPX lump named in out->lump) or for the game lump
 * `game_id` (nonzero, out->lump_index is BSPKIT_S_GAME_LUMP). It returns
 * BSPKIT_ERR_NOT_FOUND when the lump is not one it decodes, BSPKIT_OK when
 * it filled the tables (out->note may carry a layout warning), or the
 * decode error.
 */
typedef bspkit_result (*bk_tables_fn)(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out,
                                      bspkit_error *err);

bspkit_result bk_tables_core(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out, bspkit_error *err);
/* Static and detail props (sprp, dprp, dplt, dplh). */
bspkit_result bk_tables_props(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out, bspkit_error *err);
/* Displacements: dispinfo, dispverts, disptris, lightmap alphas and sample positions, multiblend. */
bspkit_result bk_tables_disp(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out, bspkit_error *err);
/* Lighting: world lights, leaf ambient index and samples; BSPX lumps. */
bspkit_result bk_tables_lighting(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out, bspkit_error *err);
/* Other Source lumps: overlays, occlusion, physics, water, primitives, normals, face ids, portals, flags. */
bspkit_result bk_tables_source(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out, bspkit_error *err);

#endif
