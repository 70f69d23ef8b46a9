/* bspkit_dump_lump(): finds the lump a name stands for and describes it
 * (bk_dump_ask: record arrays by their schema, other lumps by their
 * family's tables; lumps nobody decodes are returned raw). */
#include "core/family.h"
#include "core/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bspkit_result bspkit_dump_lump(bspkit_map *map, const char *which, bspkit_dump *out, bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !which || !out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_dump_lump: NULL argument");
    memset(out, 0, sizeof *out);
    out->lump_index = -1;

    /* A lump index or name first. */
    int lump = -1;
    char *end;
    long v = strtol(which, &end, 10);
    if (*which && *end == '\0') {
        if (v < 0 || v >= map->lump_count)
            return bk_fail(err, BSPKIT_ERR_NOT_FOUND, -1, -1, -1, "no lump %s: the map has lumps 0..%d", which,
                           map->lump_count - 1);
        lump = (int)v;
    } else {
        lump = bspkit_lump_find(map, which);
    }
    if (lump >= 0) {
        out->lump_index = lump;
        out->version = map->lumps[lump].version;
        snprintf(out->lump, sizeof out->lump, "%s", bk_lump_name(map, lump));
        bspkit_result r = bk_lump_bytes(map, lump, &out->raw, &out->raw_size, err);
        if (r != BSPKIT_OK)
            return r;
        if (lump == 0) { /* ENTITIES in every family's logical order */
            out->text = true;
            return BSPKIT_OK;
        }
        return bk_dump_ask(map, lump, 0, out, err);
    }

    /* A lump named another way: a Source game lump id, a BSPX lump name. */
    bspkit_result r = map->family_ops->dump_named(map, which, out, err);
    if (r != BSPKIT_ERR_NOT_FOUND)
        return r;
    return bk_fail(err, BSPKIT_ERR_NOT_FOUND, -1, -1, -1, "no lump named '%s' in this %s map", which,
                   bspkit_family_name(map->format.family));
}
