/* bspkit_dump_lump(): finds the lump a name stands for and asks each area's
 * table provider to describe it; lumps nobody decodes are returned raw. */
#include "core/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void bk_dump_add_table(bspkit_dump *out, const char *name, const bspkit_field *fields, size_t field_count,
                       const void *records, size_t stride, size_t count)
{
    if (out->table_count >= BSPKIT_DUMP_MAX_TABLES)
        return;
    out->tables[out->table_count++] = (bspkit_table){name, fields, field_count, records, stride, count};
}

static const bk_tables_fn PROVIDERS[] = {
    bk_tables_core,
    bk_tables_disp,
    bk_tables_props,
    bk_tables_lighting,
    bk_tables_source,
};

/* Why a lump without a decoder table is shown raw, and where to look instead. */
static const char *raw_note(const bspkit_map *map, int lump)
{
    if (map->format.family == BSPKIT_FAMILY_SOURCE) {
        switch (lump) {
        case BSPKIT_S_VISIBILITY: return "run-length compressed PVS/PAS rows per cluster: see 'bspkit vis'";
        case BSPKIT_S_LIGHTING:
        case BSPKIT_S_LIGHTING_HDR: return "ColorRGBExp32 lightmap samples, addressed by each face's lightofs";
        case BSPKIT_S_PAKFILE: return "a zip archive: see 'bspkit pak'";
        case BSPKIT_S_TEXDATA_STRING_DATA: return "NUL-terminated texture names";
        default: return NULL;
        }
    }
    switch (lump) {
    case BSPKIT_Q_VISIBILITY: return "run-length compressed PVS rows per leaf: see 'bspkit vis'";
    case BSPKIT_Q_LIGHTING: return "lightmap samples, addressed by each face's lightofs";
    default: return NULL;
    }
}

static uint32_t fourcc_of(const char *s)
{
    return ((uint32_t)(uint8_t)s[0] << 24) | ((uint32_t)(uint8_t)s[1] << 16) | ((uint32_t)(uint8_t)s[2] << 8) |
           (uint8_t)s[3];
}

static bspkit_result ask_providers(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out,
                                   bspkit_error *err)
{
    for (size_t i = 0; i < BK_COUNT_OF(PROVIDERS); i++) {
        out->table_count = 0;
        bspkit_result r = PROVIDERS[i](map, lump, game_id, out, err);
        if (r != BSPKIT_ERR_NOT_FOUND)
            return r;
    }
    out->table_count = 0;
    bk_error_clear(err);
    const char *why = lump >= 0 ? raw_note(map, lump) : NULL;
    snprintf(out->note, sizeof out->note, "%s", why ? why : "no decoder for this lump: raw bytes");
    return BSPKIT_OK;
}

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
        return ask_providers(map, lump, 0, out, err);
    }

    /* A game lump by its four-character id. */
    if (map->format.family == BSPKIT_FAMILY_SOURCE && strlen(which) == 4) {
        const bspkit_game_lump *gl;
        size_t n;
        bspkit_result r = bspkit_get_game_lumps(map, &gl, &n, err);
        if (r != BSPKIT_OK)
            return r;
        uint32_t id = fourcc_of(which);
        for (size_t i = 0; i < n; i++) {
            if (gl[i].id != id)
                continue;
            out->lump_index = BSPKIT_S_GAME_LUMP;
            out->version = gl[i].version;
            snprintf(out->lump, sizeof out->lump, "%s", which);
            r = bspkit_game_lump_bytes(map, i, &out->raw, &out->raw_size, err);
            if (r != BSPKIT_OK)
                return r;
            return ask_providers(map, -1, id, out, err);
        }
    }

    /* A BSPX lump by name: the providers look it up. */
    if (map->format.family != BSPKIT_FAMILY_SOURCE && strlen(which) < sizeof out->lump) {
        snprintf(out->lump, sizeof out->lump, "%s", which);
        for (size_t i = 0; i < BK_COUNT_OF(PROVIDERS); i++) {
            out->table_count = 0;
            bspkit_result r = PROVIDERS[i](map, -1, 0, out, err);
            if (r != BSPKIT_ERR_NOT_FOUND)
                return r;
        }
    }
    return bk_fail(err, BSPKIT_ERR_NOT_FOUND, -1, -1, -1, "no lump named '%s' in this %s map", which,
                   bspkit_family_name(map->format.family));
}
