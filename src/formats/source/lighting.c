/* Source lighting lumps beyond the lightmaps: world lights and per-leaf
 * ambient samples; and the dump tables for them. */
#include "bspkit/lighting.h"
#include "core/table.h"
#include "formats/source/family.h"
#include "formats/source/records.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* World lights                                                              */
/* ------------------------------------------------------------------------ */

typedef struct wl_set {
    bspkit_worldlight *items;
    size_t count;
} wl_set;

static bspkit_result build_worldlights(bspkit_map *map, bool hdr, const void **value, bspkit_error *err)
{
    wl_set *set = bk_keep_alloc(map, 1, sizeof *set, -1, err);
    if (!set)
        return err->code;
    *value = set;
    if (map->format.family != BSPKIT_FAMILY_SOURCE)
        return BSPKIT_OK;
    int lump = hdr ? BSPKIT_S_WORLDLIGHTS_HDR : BSPKIT_S_WORLDLIGHTS;
    const uint8_t *p;
    size_t size;
    bspkit_result r = bk_lump_bytes(map, lump, &p, &size, err);
    if (r != BSPKIT_OK || size == 0)
        return r;
    int32_t version = map->lumps[lump].version;
    const bk_schema *s = bk_source_map_array_schema(map, lump);
    if (!s)
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, lump, bk_file_offset(map, lump, 0), 0,
                       "%s: version %d is not a known dworldlight_t layout (0: 88 bytes, 1: 100 bytes)",
                       bk_lump_name(map, lump), version);
    size_t rec = s->record_size;
    if (size % rec != 0)
        return bk_fail(err, BSPKIT_ERR_LUMP_SIZE, lump, bk_file_offset(map, lump, 0), 0,
                       "%s: %zu bytes is not a whole number of %zu-byte version %d records",
                       bk_lump_name(map, lump), size, rec, version);
    size_t n = size / rec;
    set->items = bk_keep_alloc(map, n, sizeof *set->items, lump, err);
    if (!set->items)
        return err->code;
    s->decode(p, n, map->format.big_endian, set->items);
    set->count = n;
    return BSPKIT_OK;
}

static bspkit_result build_wl_ldr(bspkit_map *map, const void **value, bspkit_error *err)
{
    return build_worldlights(map, false, value, err);
}

static bspkit_result build_wl_hdr(bspkit_map *map, const void **value, bspkit_error *err)
{
    return build_worldlights(map, true, value, err);
}

bspkit_result bspkit_get_worldlights(bspkit_map *map, bool hdr, const bspkit_worldlight **out, size_t *count,
                                     bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !out || !count)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_get_worldlights: NULL argument");
    *out = NULL;
    *count = 0;
    const void *v;
    bspkit_result r =
        bk_extra_get(map, hdr ? EX_WORLDLIGHTS_HDR : EX_WORLDLIGHTS, hdr ? build_wl_hdr : build_wl_ldr, &v, err);
    if (r != BSPKIT_OK)
        return r;
    const wl_set *set = v;
    *out = set->items;
    *count = set->count;
    return BSPKIT_OK;
}

/* ------------------------------------------------------------------------ */
/* Leaf ambient lighting                                                     */
/* ------------------------------------------------------------------------ */

static bspkit_result decode_ambient_index(bspkit_map *map, int lump, bspkit_leaf_ambient *a, bspkit_error *err)
{
    const uint8_t *p;
    size_t size;
    bspkit_result r = bk_lump_bytes(map, lump, &p, &size, err);
    if (r != BSPKIT_OK || size == 0)
        return r;
    /* Open has already checked the length against this record size. */
    const bk_schema *s = bk_source_map_array_schema(map, lump);
    if (!s)
        return bk_fail(err, BSPKIT_ERR_LUMP_SIZE, lump, bk_file_offset(map, lump, 0), 0,
                       "%s: no known record layout", bk_lump_name(map, lump));
    size_t n = size / s->record_size;
    bspkit_leaf_ambient_index *idx = bk_keep_alloc(map, n, sizeof *idx, lump, err);
    if (!idx)
        return err->code;
    s->decode(p, n, map->format.big_endian, idx);
    a->index = idx;
    a->index_count = n;
    return BSPKIT_OK;
}

static bspkit_result decode_ambient_samples(bspkit_map *map, int lump, bspkit_leaf_ambient *a, bspkit_error *err)
{
    const uint8_t *p;
    size_t size;
    bspkit_result r = bk_lump_bytes(map, lump, &p, &size, err);
    const bk_schema *layout = bk_source_map_array_schema(map, lump); /* none: not dleafambientlighting_t */
    if (r != BSPKIT_OK || size == 0 || !layout)
        return r;
    size_t n = size / layout->record_size;
    bspkit_leaf_ambient_sample *s = bk_keep_alloc(map, n, sizeof *s, lump, err);
    if (!s)
        return err->code;
    layout->decode(p, n, map->format.big_endian, s);
    a->samples = s;
    a->sample_count = n;
    return BSPKIT_OK;
}

static bspkit_result build_ambient(bspkit_map *map, bool hdr, const void **value, bspkit_error *err)
{
    bspkit_leaf_ambient *a = bk_keep_alloc(map, 1, sizeof *a, -1, err);
    if (!a)
        return err->code;
    *value = a;
    if (map->format.family != BSPKIT_FAMILY_SOURCE)
        return BSPKIT_OK;
    int index_lump = hdr ? BSPKIT_S_LEAF_AMBIENT_INDEX_HDR : BSPKIT_S_LEAF_AMBIENT_INDEX;
    int sample_lump = hdr ? BSPKIT_S_LEAF_AMBIENT_LIGHTING_HDR : BSPKIT_S_LEAF_AMBIENT_LIGHTING;
    bspkit_result r = decode_ambient_index(map, index_lump, a, err);
    if (r == BSPKIT_OK)
        r = decode_ambient_samples(map, sample_lump, a, err);
    if (r != BSPKIT_OK)
        return r;
    /* Leaves without samples keep whatever first index the compiler left. */
    for (size_t i = 0; i < a->index_count; i++)
        if (a->index[i].sample_count && !range_ok(a->index[i].first_sample, a->index[i].sample_count, a->sample_count))
            a->bad_ranges++;
    return BSPKIT_OK;
}

static bspkit_result build_amb_ldr(bspkit_map *map, const void **value, bspkit_error *err)
{
    return build_ambient(map, false, value, err);
}

static bspkit_result build_amb_hdr(bspkit_map *map, const void **value, bspkit_error *err)
{
    return build_ambient(map, true, value, err);
}

bspkit_result bspkit_get_leaf_ambient(bspkit_map *map, bool hdr, const bspkit_leaf_ambient **out,
                                      bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_get_leaf_ambient: NULL argument");
    *out = NULL;
    const void *v;
    bspkit_result r = bk_extra_get(map, hdr ? EX_LEAF_AMBIENT_HDR : EX_LEAF_AMBIENT,
                                   hdr ? build_amb_hdr : build_amb_ldr, &v, err);
    if (r == BSPKIT_OK)
        *out = v;
    return r;
}

/* ------------------------------------------------------------------------ */
/* Dump tables                                                               */
/* ------------------------------------------------------------------------ */

/* The schema behind `lump`'s table; an empty lump of a version without one
 * shows the columns of version 1, which every version's records have. */
static const bk_schema *table_schema(const bspkit_map *map, int lump)
{
    const bk_schema *s = bk_source_map_array_schema(map, lump);
    return s ? s : bk_source_array_schema(map->format.version, map->format.variant, lump, 1);
}

static bspkit_result worldlight_tables(bspkit_map *map, int lump, bspkit_dump *out, bspkit_error *err)
{
    int32_t v = map->lumps[lump].version;
    if (v != 0 && v != 1 && map->lumps[lump].length > 0) {
        /* Unknown layouts (e.g. wide-lump variants) stay raw with a note. */
        snprintf(out->note, sizeof out->note, "dworldlight_t version %d is not a known layout: raw bytes", v);
        return BSPKIT_OK;
    }
    const bspkit_worldlight *w;
    size_t n;
    bspkit_result r = bspkit_get_worldlights(map, lump == BSPKIT_S_WORLDLIGHTS_HDR, &w, &n, err);
    if (r != BSPKIT_OK)
        return r;
    /* Version 0 records lack shadow_cast_offset: it prints as 0 there. */
    bk_dump_add_schema_table(out, "records", table_schema(map, lump), w, n);
    return BSPKIT_OK;
}

bspkit_result bk_tables_lighting(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out, bspkit_error *err)
{
    if (game_id)
        return BSPKIT_ERR_NOT_FOUND;
    if (lump < 0 || map->format.family != BSPKIT_FAMILY_SOURCE)
        return BSPKIT_ERR_NOT_FOUND;
    switch (lump) {
    case BSPKIT_S_WORLDLIGHTS:
    case BSPKIT_S_WORLDLIGHTS_HDR: return worldlight_tables(map, lump, out, err);
    case BSPKIT_S_LEAF_AMBIENT_INDEX:
    case BSPKIT_S_LEAF_AMBIENT_INDEX_HDR:
    case BSPKIT_S_LEAF_AMBIENT_LIGHTING:
    case BSPKIT_S_LEAF_AMBIENT_LIGHTING_HDR: {
        bool hdr = lump == BSPKIT_S_LEAF_AMBIENT_INDEX_HDR || lump == BSPKIT_S_LEAF_AMBIENT_LIGHTING_HDR;
        bool index = lump == BSPKIT_S_LEAF_AMBIENT_INDEX || lump == BSPKIT_S_LEAF_AMBIENT_INDEX_HDR;
        const bspkit_leaf_ambient *a;
        bspkit_result r = bspkit_get_leaf_ambient(map, hdr, &a, err);
        if (r != BSPKIT_OK)
            return r;
        if (index)
            bk_dump_add_schema_table(out, "records", table_schema(map, lump), a->index, a->index_count);
        else if (bk_source_map_array_schema(map, lump) || map->lumps[lump].length == 0)
            bk_dump_add_schema_table(out, "records", table_schema(map, lump), a->samples, a->sample_count);
        else
            snprintf(out->note, sizeof out->note, "version %d is not dleafambientlighting_t: raw bytes",
                     map->lumps[lump].version);
        return BSPKIT_OK;
    }
    default: return BSPKIT_ERR_NOT_FOUND;
    }
}

/* ColorRGBExp32 samples. */
void bspkit_rgbexp_to_float(bspkit_rgbexp c, float out[3])
{
    /* ldexpf keeps tiny and huge exponents exact where powf would round. */
    out[0] = ldexpf((float)c.r, c.exponent);
    out[1] = ldexpf((float)c.g, c.exponent);
    out[2] = ldexpf((float)c.b, c.exponent);
}

bspkit_rgbexp bspkit_rgbexp_read(const uint8_t *p)
{
    bspkit_rgbexp c = {p[0], p[1], p[2], (int8_t)p[3]};
    return c;
}
