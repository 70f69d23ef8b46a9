/* What the Quake/GoldSrc family's files offer each other beyond its
 * bk_family_ops (core/family.h). */
#ifndef BSPKIT_GOLDSRC_FAMILY_H
#define BSPKIT_GOLDSRC_FAMILY_H

#include "core/table.h"

/* Dump tables (tables.c). */
bspkit_result bk_quake_dump_tables(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out,
                                   bspkit_error *err);
bspkit_result bk_quake_dump_named(bspkit_map *map, const char *which, bspkit_dump *out, bspkit_error *err);
const char *bk_quake_raw_note(const bspkit_map *map, int lump);

#endif
