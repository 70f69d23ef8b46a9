/* Dump tables: the list a lump's description is built in, and the order in
 * which a lump is described (its schema's records, else its family's
 * tables, else raw bytes with a note). */
#include "core/table.h"

#include "core/family.h"
#include "core/schema.h"

#include <stdio.h>

void bk_dump_add_table(bspkit_dump *out, const char *name, const bspkit_field *fields, size_t field_count,
                       const void *records, size_t stride, size_t count)
{
    if (out->table_count >= BSPKIT_DUMP_MAX_TABLES)
        return;
    out->tables[out->table_count++] = (bspkit_table){name, fields, field_count, records, stride, count};
}

void bk_dump_add_schema_table(bspkit_dump *out, const char *name, const bk_schema *schema, const void *records,
                              size_t count)
{
    size_t nf;
    const bspkit_field *fields = schema->dump_fields(&nf);
    bk_dump_add_table(out, name, fields, nf, records, schema->native_size, count);
}

bspkit_result bk_tables_first(const bk_tables_fn *providers, size_t count, bspkit_map *map, int lump,
                              uint32_t game_id, bspkit_dump *out, bspkit_error *err)
{
    for (size_t i = 0; i < count; i++) {
        out->table_count = 0;
        bspkit_result r = providers[i](map, lump, game_id, out, err);
        if (r != BSPKIT_ERR_NOT_FOUND)
            return r;
    }
    return BSPKIT_ERR_NOT_FOUND;
}

/* A record array declared as a schema: its records with the schema's fields. */
static bspkit_result schema_table(bspkit_map *map, int lump, bspkit_dump *out, bspkit_error *err)
{
    const bk_layout *l = &map->lumps[lump].layout;
    const void *items;
    size_t n;
    bspkit_result r = bk_get_array(map, (bk_rec)l->decoded, lump, &items, &n, err);
    if (r != BSPKIT_OK)
        return r;
    bk_dump_add_schema_table(out, "records", l->schema, items, n);
    return BSPKIT_OK;
}

bspkit_result bk_dump_ask(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out, bspkit_error *err)
{
    out->table_count = 0;
    if (!game_id && lump >= 0 && lump < map->lump_count) {
        const bk_layout *l = &map->lumps[lump].layout;
        if (l->decode && l->decoded >= 0 && l->schema)
            return schema_table(map, lump, out, err);
    }
    bspkit_result r = map->family_ops->dump_tables(map, lump, game_id, out, err);
    if (r != BSPKIT_ERR_NOT_FOUND)
        return r;
    out->table_count = 0;
    bk_error_clear(err);
    const char *why = lump >= 0 ? map->family_ops->raw_note(map, lump) : NULL;
    snprintf(out->note, sizeof out->note, "%s", why ? why : "no decoder for this lump: raw bytes");
    return BSPKIT_OK;
}

