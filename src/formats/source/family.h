/* What the Source family offers the rest of its folder beyond its
 * bk_family_ops (core/family.h). */
#ifndef BSPKIT_FORMATS_SOURCE_FAMILY_H
#define BSPKIT_FORMATS_SOURCE_FAMILY_H

#include "core/table.h"

#include <stdint.h>

/* Directory name of Source lump `index` in a file of header `version`
 * (v21+ reuses slots 22-25 and 49), or "lump" when out of range. */
const char *bk_source_lump_name(int32_t version, int index);

/* True when `d` is a Source map XORed with the 32-byte key at
 * BK_XOR_KEY_OFFSET (Tactical Intervention); plain VBSP/PSBV files never are. */
bool bk_source_xor_encrypted(const uint8_t *d, size_t size);

/* Decodes the game-lump directory into map->game_lumps (gamelump.c). */
bspkit_result bk_decode_game_lumps(bspkit_map *map, bspkit_error *err);
/* Index of the first game lump with `id` ('sprp' = 0x73707270), or -1 (also when the directory is bad). */
int bk_game_lump_find(bspkit_map *map, uint32_t id);

/* Dump tables (tables.c and the areas' providers). */
bspkit_result bk_source_dump_tables(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out,
                                    bspkit_error *err);
bspkit_result bk_source_dump_named(bspkit_map *map, const char *which, bspkit_dump *out, bspkit_error *err);
const char *bk_source_raw_note(const bspkit_map *map, int lump);
/* Static and detail props (sprp, dprp, dplt, dplh). */
bspkit_result bk_tables_props(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out, bspkit_error *err);
/* Displacements: dispinfo, dispverts, disptris, lightmap alphas and sample positions, multiblend. */
bspkit_result bk_tables_disp(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out, bspkit_error *err);
/* Lighting: world lights, leaf ambient index and samples. */
bspkit_result bk_tables_lighting(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out, bspkit_error *err);
/* Other lumps: overlays, occlusion, physics, water, primitives, normals, face ids, portals, flags. */
bspkit_result bk_tables_source(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out, bspkit_error *err);

#endif
