/* Source VBSP record layouts, each declared once in records.c as a schema
 * (core/schema.h), and the choice of layout for a lump. Field names follow
 * Valve's bspfile.h. */
#ifndef BSPKIT_FORMATS_SOURCE_RECORDS_H
#define BSPKIT_FORMATS_SOURCE_RECORDS_H

#include "core/map.h"
#include "core/schema.h"
#include "core/table.h"

/* The schema of `lump` in a Source file of header `version` and `variant`
 * (BSPKIT_VARIANT_* bits) whose directory gives the lump `lump_version`;
 * NULL for lumps that are not one array of fixed records decoded by the
 * core reader. The layout follows the BSP version, the lump's own version
 * (LEAFS; Strata's 32-bit lumps in v25) and, for brush sides, the Left 4
 * Dead 2 directory variant. */
const bk_schema *bk_source_schema(int32_t version, uint32_t variant, int lump, int32_t lump_version);

/* The schema of `lump` when it is an array of fixed records that is not
 * read by the core but decoded into an extras slot on first use (water data,
 * primitives, portals, ...), chosen the same way; NULL when the lump is not
 * such an array in this map. */
const bk_schema *bk_source_array_schema(int32_t version, uint32_t variant, int lump, int32_t lump_version);

/* The records of the OCCLUSION lump: doccluderdata_t of lump version
 * `lump_version` (the area from version 2 on), and doccluderpolydata_t. */
const bk_schema *bk_source_occluder_schema(int32_t lump_version);
extern const bk_schema bk_source_occluder_poly;

/* bk_source_array_schema for `lump` of `map` (NULL when the map has no such lump). */
const bk_schema *bk_source_map_array_schema(const bspkit_map *map, int lump);
/* How the records of `lump` are decoded into an extras slot: by their
 * schema, or lump -1 ("not in this map") when there is none. */
bk_array_spec bk_source_array_spec(const bspkit_map *map, int lump);

/* Defines accessor `fn` for the records of `lump` decoded by their schema, cached in `slot`. */
#define BK_SOURCE_ARRAY_ACCESSOR(fn, type, slot, lump)                                                 \
    static bk_array_spec fn##_spec(bspkit_map *m_) { return bk_source_array_spec(m_, (lump)); }        \
    BK_ARRAY_ACCESSOR(fn, type, slot, fn##_spec)

/* In a dump provider, with map, lump, out, err, a bspkit_result r and a size_t n in
 * scope: the records `getter` returns, in a table with the columns of their schema. */
#define BK_SOURCE_RECORDS_TABLE(getter, type)                                                          \
    do {                                                                                               \
        const type *p_;                                                                                \
        if ((r = getter(map, &p_, &n, err)) == BSPKIT_OK)                                              \
            bk_dump_add_schema_table(out, "records", bk_source_map_array_schema(map, lump), p_, n);    \
    } while (0)

#endif
