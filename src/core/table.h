/* Field tables behind bspkit_dump_lump(). Record arrays take theirs from
 * their schema; each family describes its other lumps through its
 * dump_tables hook (core/family.h), built from providers like these. */
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
/* Append `count` native records of `schema` at `records` as a table with the schema's dump fields. */
void bk_dump_add_schema_table(bspkit_dump *out, const char *name, const bk_schema *schema, const void *records,
                              size_t count);

/*
 * A table provider fills `out->tables` for lump `lump` (directory index; -1
 * with `game_id` 0 means the extension lump named in out->lump) or for the
 * game lump `game_id` (nonzero). It returns BSPKIT_ERR_NOT_FOUND when the
 * lump is not one it decodes, BSPKIT_OK when it filled the tables
 * (out->note may carry a layout warning), or the decode error.
 */
typedef bspkit_result (*bk_tables_fn)(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out,
                                      bspkit_error *err);

/* The first provider of `providers` that knows the lump, else BSPKIT_ERR_NOT_FOUND. */
bspkit_result bk_tables_first(const bk_tables_fn *providers, size_t count, bspkit_map *map, int lump,
                              uint32_t game_id, bspkit_dump *out, bspkit_error *err);

/* Describes a lump, game lump or extension lump the way bspkit_dump_lump
 * does once it has found it: its schema's record table, else the family's
 * tables, else raw bytes with a note. */
bspkit_result bk_dump_ask(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out, bspkit_error *err);

#endif
