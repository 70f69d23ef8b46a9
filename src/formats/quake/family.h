/* What the Quake/GoldSrc family's files offer each other beyond its
 * bk_family_ops (core/family.h). */
#ifndef BSPKIT_FORMATS_QUAKE_FAMILY_H
#define BSPKIT_FORMATS_QUAKE_FAMILY_H

#include "core/table.h"

/* Decodes the miptex directory into map->miptex (textures.c). */
bspkit_result bk_decode_miptex(bspkit_map *map, bspkit_error *err);
/* File offset of the BSPX block after the last lump (4-byte aligned, magic
 * and count present), from the raw directory; 0 when none (bspx.c). */
uint64_t bk_bspx_offset(const uint8_t *data, size_t size);

/* The layout of `lump` in a Quake/GoldSrc map with these BSPKIT_VARIANT_*
 * bits (BSP2, 2PSB or neither), or a layout without schema (family.c). */
bk_layout bk_quake_variant_layout(unsigned variant, int lump);

/* Dump tables (tables.c). */
bspkit_result bk_quake_dump_tables(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out,
                                   bspkit_error *err);
bspkit_result bk_quake_dump_named(bspkit_map *map, const char *which, bspkit_dump *out, bspkit_error *err);
const char *bk_quake_raw_note(const bspkit_map *map, int lump);

#endif
