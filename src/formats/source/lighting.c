/* Source lighting lumps beyond the lightmaps: world lights and per-leaf
 * ambient samples; and the dump tables for them. */
#include "bspkit/lighting.h"
#include "core/table.h"
#include "formats/source/family.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define WORLDLIGHT_V0_SIZE 88
#define WORLDLIGHT_V1_SIZE 100
#define AMBIENT_SAMPLE_SIZE 28

/* ------------------------------------------------------------------------ */
/* World lights                                                              */
/* ------------------------------------------------------------------------ */

typedef struct wl_set {
    bspkit_worldlight *items;
    size_t count;
} wl_set;

static void decode_worldlight(const uint8_t *p, bool be, bool v1, bspkit_worldlight *w)
{
    bk_rd_vec3(p, be, &w->origin);
    bk_rd_vec3(p + 12, be, &w->intensity);
    bk_rd_vec3(p + 24, be, &w->normal);
    p += 36;
    if (v1) {
        bk_rd_vec3(p, be, &w->shadow_cast_offset);
        p += 12;
    }
    w->cluster = rd_i32(p, be);
    w->type = rd_i32(p + 4, be);
    w->style = rd_i32(p + 8, be);
    w->stopdot = rd_f32(p + 12, be);
    w->stopdot2 = rd_f32(p + 16, be);
    w->exponent = rd_f32(p + 20, be);
    w->radius = rd_f32(p + 24, be);
    w->constant_attn = rd_f32(p + 28, be);
    w->linear_attn = rd_f32(p + 32, be);
    w->quadratic_attn = rd_f32(p + 36, be);
    w->flags = rd_i32(p + 40, be);
    w->texinfo = rd_i32(p + 44, be);
    w->owner = rd_i32(p + 48, be);
}

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
    if (version != 0 && version != 1)
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, lump, bk_file_offset(map, lump, 0), 0,
                       "%s: version %d is not a known dworldlight_t layout (0: 88 bytes, 1: 100 bytes)",
                       bk_lump_name(map, lump), version);
    size_t rec = version == 1 ? WORLDLIGHT_V1_SIZE : WORLDLIGHT_V0_SIZE;
    if (size % rec != 0)
        return bk_fail(err, BSPKIT_ERR_LUMP_SIZE, lump, bk_file_offset(map, lump, 0), 0,
                       "%s: %zu bytes is not a whole number of %zu-byte version %d records",
                       bk_lump_name(map, lump), size, rec, version);
    size_t n = size / rec;
    set->items = bk_keep_alloc(map, n, sizeof *set->items, lump, err);
    if (!set->items)
        return err->code;
    for (size_t i = 0; i < n; i++)
        decode_worldlight(p + i * rec, map->format.big_endian, version == 1, &set->items[i]);
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
    bool be = map->format.big_endian;
    /* Open has already checked the length against this record size. */
    uint32_t rec = map->lumps[lump].layout.record_size;
    bool wide = rec == 8;
    if (rec != 4 && rec != 8)
        return bk_fail(err, BSPKIT_ERR_LUMP_SIZE, lump, bk_file_offset(map, lump, 0), 0,
                       "%s: no known record layout", bk_lump_name(map, lump));
    size_t n = size / rec;
    bspkit_leaf_ambient_index *idx = bk_keep_alloc(map, n, sizeof *idx, lump, err);
    if (!idx)
        return err->code;
    for (size_t i = 0; i < n; i++, p += rec) {
        idx[i].sample_count = wide ? rd_u32(p, be) : rd_u16(p, be);
        idx[i].first_sample = wide ? rd_u32(p + 4, be) : rd_u16(p + 2, be);
    }
    a->index = idx;
    a->index_count = n;
    return BSPKIT_OK;
}

static bspkit_result decode_ambient_samples(bspkit_map *map, int lump, bspkit_leaf_ambient *a, bspkit_error *err)
{
    const uint8_t *p;
    size_t size;
    bspkit_result r = bk_lump_bytes(map, lump, &p, &size, err);
    if (r != BSPKIT_OK || size == 0 || map->lumps[lump].layout.record_size != AMBIENT_SAMPLE_SIZE)
        return r;
    size_t n = size / AMBIENT_SAMPLE_SIZE;
    bspkit_leaf_ambient_sample *s = bk_keep_alloc(map, n, sizeof *s, lump, err);
    if (!s)
        return err->code;
    for (size_t i = 0; i < n; i++, p += AMBIENT_SAMPLE_SIZE) {
        for (int k = 0; k < 6; k++)
            s[i].cube[k] = bspkit_rgbexp_read(p + 4 * k);
        s[i].x = p[24];
        s[i].y = p[25];
        s[i].z = p[26];
        s[i].pad = p[27];
    }
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

static const bspkit_field WORLDLIGHT_FIELDS[] = {
    BK_FIELD(bspkit_worldlight, origin, "origin", BSPKIT_FIELD_VEC3),
    BK_FIELD(bspkit_worldlight, intensity, "intensity", BSPKIT_FIELD_VEC3),
    BK_FIELD(bspkit_worldlight, normal, "normal", BSPKIT_FIELD_VEC3),
    BK_FIELD(bspkit_worldlight, shadow_cast_offset, "shadow_cast_offset", BSPKIT_FIELD_VEC3),
    BK_FIELD(bspkit_worldlight, cluster, "cluster", BSPKIT_FIELD_I32),
    BK_FIELD(bspkit_worldlight, type, "type", BSPKIT_FIELD_I32),
    BK_FIELD(bspkit_worldlight, style, "style", BSPKIT_FIELD_I32),
    BK_FIELD(bspkit_worldlight, stopdot, "stopdot", BSPKIT_FIELD_F32),
    BK_FIELD(bspkit_worldlight, stopdot2, "stopdot2", BSPKIT_FIELD_F32),
    BK_FIELD(bspkit_worldlight, exponent, "exponent", BSPKIT_FIELD_F32),
    BK_FIELD(bspkit_worldlight, radius, "radius", BSPKIT_FIELD_F32),
    BK_FIELD(bspkit_worldlight, constant_attn, "constant_attn", BSPKIT_FIELD_F32),
    BK_FIELD(bspkit_worldlight, linear_attn, "linear_attn", BSPKIT_FIELD_F32),
    BK_FIELD(bspkit_worldlight, quadratic_attn, "quadratic_attn", BSPKIT_FIELD_F32),
    BK_FIELD(bspkit_worldlight, flags, "flags", BSPKIT_FIELD_I32),
    BK_FIELD(bspkit_worldlight, texinfo, "texinfo", BSPKIT_FIELD_I32),
    BK_FIELD(bspkit_worldlight, owner, "owner", BSPKIT_FIELD_I32),
};

static const bspkit_field AMBIENT_INDEX_FIELDS[] = {
    BK_FIELD(bspkit_leaf_ambient_index, sample_count, "ambientSampleCount", BSPKIT_FIELD_U32),
    BK_FIELD(bspkit_leaf_ambient_index, first_sample, "firstAmbientSample", BSPKIT_FIELD_U32),
};

static const bspkit_field AMBIENT_SAMPLE_FIELDS[] = {
    BK_FIELDS(bspkit_leaf_ambient_sample, cube, "cube", BSPKIT_FIELD_RGBEXP, 6),
    BK_FIELD(bspkit_leaf_ambient_sample, x, "x", BSPKIT_FIELD_U8),
    BK_FIELD(bspkit_leaf_ambient_sample, y, "y", BSPKIT_FIELD_U8),
    BK_FIELD(bspkit_leaf_ambient_sample, z, "z", BSPKIT_FIELD_U8),
    BK_FIELD(bspkit_leaf_ambient_sample, pad, "pad", BSPKIT_FIELD_U8),
};

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
    bk_dump_add_table(out, "records", WORLDLIGHT_FIELDS, BK_COUNT_OF(WORLDLIGHT_FIELDS), w, sizeof *w, n);
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
            bk_dump_add_table(out, "records", AMBIENT_INDEX_FIELDS, BK_COUNT_OF(AMBIENT_INDEX_FIELDS), a->index,
                              sizeof *a->index, a->index_count);
        else if (map->lumps[lump].layout.record_size == AMBIENT_SAMPLE_SIZE || map->lumps[lump].length == 0)
            bk_dump_add_table(out, "records", AMBIENT_SAMPLE_FIELDS, BK_COUNT_OF(AMBIENT_SAMPLE_FIELDS), a->samples,
                              sizeof *a->samples, a->sample_count);
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
