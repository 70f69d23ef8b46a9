/* Source displacement lumps: DISPINFO, DISP_VERTS, DISP_TRIS, DISP_MULTIBLEND
 * decoded into native records, the two lightmap byte streams passed through,
 * and their dump tables.
 *
 * ddispinfo_t packing (176 bytes, offsets in bytes):
 *   0 startPosition  12 DispVertStart  16 DispTriStart  20 power  24 minTess
 *   28 smoothingAngle  32 contents  36 MapFace (u16 + 2 pad)
 *   40 LightmapAlphaStart  44 LightmapSamplePositionStart
 *   48 EdgeNeighbors[4]: 12 bytes each = 2 x CDispSubNeighbor
 *      {u16 neighbor, u8 orientation, u8 span, u8 neighborSpan, pad}
 *   96 CornerNeighbors[4]: 10 bytes each = {u16 neighbors[4], u8 count, pad}
 *   136 AllowedVerts[10] (u32)
 * The 232-byte layout (Strata v25, DISPINFO version >= 1) widens every
 * displacement or face index to 32 bits and keeps the rest: MapFace u32 at 36,
 * sub-neighbours of 8 bytes {u32, u8, u8, u8, pad} from 48, corner records of
 * 20 bytes {u32[4], u8, pad[3]} from 112, AllowedVerts from 192. Each field is
 * byte-swapped on its own in Xbox 360 files, so the offsets do not change. */
#include "bspkit/displacement.h"
#include "core/table.h"

#include <stdio.h>
#include <string.h>

#define DISPINFO_SIZE 176u
#define DISPINFO_WIDE_SIZE 232u
#define DISP_VERT_SIZE 20u
#define DISP_MULTIBLEND_SIZE 80u

typedef struct disp_array {
    const void *items;
    size_t count;
} disp_array;

/* 0xFFFF means "none" in the 16-bit layout; in the wide one 0xFFFFFFFF reads as -1 by itself. */
static int32_t narrow_index(uint16_t v) { return v == 0xFFFFu ? -1 : (int32_t)v; }

static void decode_dispinfo(const uint8_t *src, bool be, bool wide, bspkit_dispinfo *o)
{
    bk_rd_vec3(src, be, &o->start_position);
    o->disp_vert_start = rd_i32(src + 12, be);
    o->disp_tri_start = rd_i32(src + 16, be);
    o->power = rd_i32(src + 20, be);
    o->min_tess = rd_i32(src + 24, be);
    o->smoothing_angle = rd_f32(src + 28, be);
    o->contents = rd_i32(src + 32, be);
    o->map_face = wide ? rd_u32(src + 36, be) : rd_u16(src + 36, be);
    o->lightmap_alpha_start = rd_i32(src + 40, be);
    o->lightmap_sample_position_start = rd_i32(src + 44, be);
    const unsigned sub = wide ? 8 : 6, corner = wide ? 20 : 10, idx = wide ? 4 : 2;
    const uint8_t *p = src + 48;
    for (int e = 0; e < 4; e++)
        for (int s = 0; s < 2; s++, p += sub) {
            o->edge_neighbor[e][s] = wide ? rd_i32(p, be) : narrow_index(rd_u16(p, be));
            o->edge_neighbor_orientation[e][s] = p[idx];
            o->edge_span[e][s] = p[idx + 1];
            o->edge_neighbor_span[e][s] = p[idx + 2];
        }
    for (int c = 0; c < 4; c++, p += corner) {
        for (int k = 0; k < 4; k++)
            o->corner_neighbors[c][k] =
                wide ? rd_i32(p + 4 * k, be) : narrow_index(rd_u16(p + 2 * k, be));
        o->corner_neighbor_count[c] = p[4 * idx];
    }
    for (int k = 0; k < 10; k++)
        o->allowed_verts[k] = rd_u32(p + 4 * k, be);
}

/* Bytes of a lump that holds whole records of `record` bytes; count 0 outside Source. */
static bspkit_result record_bytes(bspkit_map *map, int lump, uint32_t record, const uint8_t **data, size_t *count,
                                  bspkit_error *err)
{
    *data = NULL;
    *count = 0;
    if (map->format.family != BSPKIT_FAMILY_SOURCE || lump >= map->lump_count)
        return BSPKIT_OK;
    size_t size;
    bspkit_result r = bk_lump_bytes(map, lump, data, &size, err);
    if (r != BSPKIT_OK)
        return r;
    if (size % record)
        return bk_fail(err, BSPKIT_ERR_LUMP_SIZE, lump, map->lumps[lump].offset, (int64_t)(size - size % record),
                       "%s: %zu bytes is not a multiple of the %u-byte record", bk_lump_name(map, lump), size,
                       record);
    *count = size / record;
    return BSPKIT_OK;
}

static bspkit_result build_dispinfo(bspkit_map *map, const void **value, bspkit_error *err)
{
    uint32_t record = map->lump_count > BSPKIT_S_DISPINFO ? map->lumps[BSPKIT_S_DISPINFO].layout.record_size : 0;
    if (record != DISPINFO_SIZE && record != DISPINFO_WIDE_SIZE)
        record = DISPINFO_SIZE;
    const uint8_t *d;
    size_t n;
    bspkit_result r = record_bytes(map, BSPKIT_S_DISPINFO, record, &d, &n, err);
    if (r != BSPKIT_OK)
        return r;
    disp_array *a = bk_keep_alloc(map, 1, sizeof *a, BSPKIT_S_DISPINFO, err);
    bspkit_dispinfo *o = a ? bk_keep_alloc(map, n, sizeof *o, BSPKIT_S_DISPINFO, err) : NULL;
    if (!o)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    bool be = map->format.big_endian, wide = record == DISPINFO_WIDE_SIZE;
    /* Flagged displacements own consecutive DISP_MULTIBLEND runs, in DISPINFO order. */
    uint64_t multiblend = 0;
    for (size_t i = 0; i < n; i++) {
        decode_dispinfo(d + i * record, be, wide, &o[i]);
        /* An invalid power gets no run: its vertex count is unknown to the engine too. */
        bool valid = o[i].power >= 0 && o[i].power <= BSPKIT_DISP_MAX_POWER;
        uint64_t verts = valid ? bspkit_disp_vert_count(o[i].power) : 0;
        o[i].multiblend_start = -1;
        if (((uint32_t)o[i].min_tess & BSPKIT_DISP_FLAG_HAS_MULTIBLEND) && valid) {
            o[i].multiblend_start = (int64_t)multiblend;
            multiblend += verts;
        }
    }
    a->items = o;
    a->count = n;
    *value = a;
    return BSPKIT_OK;
}

static bspkit_result build_disp_verts(bspkit_map *map, const void **value, bspkit_error *err)
{
    const uint8_t *d;
    size_t n;
    bspkit_result r = record_bytes(map, BSPKIT_S_DISP_VERTS, DISP_VERT_SIZE, &d, &n, err);
    if (r != BSPKIT_OK)
        return r;
    disp_array *a = bk_keep_alloc(map, 1, sizeof *a, BSPKIT_S_DISP_VERTS, err);
    bspkit_disp_vert *o = a ? bk_keep_alloc(map, n, sizeof *o, BSPKIT_S_DISP_VERTS, err) : NULL;
    if (!o)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    bool be = map->format.big_endian;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = d + i * DISP_VERT_SIZE;
        bk_rd_vec3(p, be, &o[i].vec);
        o[i].dist = rd_f32(p + 12, be);
        o[i].alpha = rd_f32(p + 16, be);
    }
    a->items = o;
    a->count = n;
    *value = a;
    return BSPKIT_OK;
}

static bspkit_result build_disp_tris(bspkit_map *map, const void **value, bspkit_error *err)
{
    const uint8_t *d;
    size_t n;
    bspkit_result r = record_bytes(map, BSPKIT_S_DISP_TRIS, 2, &d, &n, err);
    if (r != BSPKIT_OK)
        return r;
    disp_array *a = bk_keep_alloc(map, 1, sizeof *a, BSPKIT_S_DISP_TRIS, err);
    uint16_t *o = a ? bk_keep_alloc(map, n, sizeof *o, BSPKIT_S_DISP_TRIS, err) : NULL;
    if (!o)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        o[i] = rd_u16(d + 2 * i, map->format.big_endian);
    a->items = o;
    a->count = n;
    *value = a;
    return BSPKIT_OK;
}

static bspkit_result build_disp_multiblend(bspkit_map *map, const void **value, bspkit_error *err)
{
    const uint8_t *d;
    size_t n;
    bspkit_result r = record_bytes(map, BSPKIT_S_DISP_MULTIBLEND, DISP_MULTIBLEND_SIZE, &d, &n, err);
    if (r != BSPKIT_OK)
        return r;
    disp_array *a = bk_keep_alloc(map, 1, sizeof *a, BSPKIT_S_DISP_MULTIBLEND, err);
    bspkit_disp_multiblend *o = a ? bk_keep_alloc(map, n, sizeof *o, BSPKIT_S_DISP_MULTIBLEND, err) : NULL;
    if (!o)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    bool be = map->format.big_endian;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = d + i * DISP_MULTIBLEND_SIZE;
        for (int k = 0; k < 4; k++) {
            o[i].multiblend[k] = rd_f32(p + 4 * k, be);
            o[i].alphablend[k] = rd_f32(p + 16 + 4 * k, be);
            bk_rd_vec3(p + 32 + 12 * k, be, &o[i].colors[k]);
        }
    }
    a->items = o;
    a->count = n;
    *value = a;
    return BSPKIT_OK;
}

/* One cached array slot behind a public accessor. */
static bspkit_result get_array(bspkit_map *map, bk_extra slot, bk_extra_build build, bool args_ok,
                               const disp_array **a, bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !args_ok)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "displacement accessor: NULL argument");
    const void *v;
    bspkit_result r = bk_extra_get(map, slot, build, &v, err);
    *a = v;
    return r;
}

#define DISP_ACCESSOR(fn, type, slot, build)                                                           \
    bspkit_result fn(bspkit_map *map, const type **out, size_t *count, bspkit_error *err)              \
    {                                                                                                  \
        const disp_array *a = NULL;                                                                    \
        bspkit_result r = get_array(map, slot, build, out && count, &a, err);                          \
        if (r == BSPKIT_OK) {                                                                          \
            *out = a->items;                                                                           \
            *count = a->count;                                                                         \
        }                                                                                              \
        return r;                                                                                      \
    }

DISP_ACCESSOR(bspkit_get_dispinfo, bspkit_dispinfo, EX_DISPINFO, build_dispinfo)
DISP_ACCESSOR(bspkit_get_disp_verts, bspkit_disp_vert, EX_DISP_VERTS, build_disp_verts)
DISP_ACCESSOR(bspkit_get_disp_tris, uint16_t, EX_DISP_TRIS, build_disp_tris)
DISP_ACCESSOR(bspkit_get_disp_multiblend, bspkit_disp_multiblend, EX_DISP_MULTIBLEND, build_disp_multiblend)

static bspkit_result source_bytes(bspkit_map *map, int lump, const uint8_t **data, size_t *size, bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !data || !size)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "displacement accessor: NULL argument");
    static const uint8_t none[1] = {0};
    *data = none;
    *size = 0;
    if (map->format.family != BSPKIT_FAMILY_SOURCE || lump >= map->lump_count)
        return BSPKIT_OK;
    return bk_lump_bytes(map, lump, data, size, err);
}

bspkit_result bspkit_get_disp_lightmap_alphas(bspkit_map *map, const uint8_t **data, size_t *size,
                                              bspkit_error *err)
{
    return source_bytes(map, BSPKIT_S_DISP_LIGHTMAP_ALPHAS, data, size, err);
}

bspkit_result bspkit_get_disp_lightmap_sample_positions(bspkit_map *map, const uint8_t **data, size_t *size,
                                                        bspkit_error *err)
{
    return source_bytes(map, BSPKIT_S_DISP_LIGHTMAP_SAMPLE_POSITIONS, data, size, err);
}

/* ---- dump tables ---- */

static const bspkit_field DISPINFO_FIELDS[] = {
    BK_FIELD(bspkit_dispinfo, start_position, "startPosition", BSPKIT_FIELD_VEC3),
    BK_FIELD(bspkit_dispinfo, disp_vert_start, "DispVertStart", BSPKIT_FIELD_I32),
    BK_FIELD(bspkit_dispinfo, disp_tri_start, "DispTriStart", BSPKIT_FIELD_I32),
    BK_FIELD(bspkit_dispinfo, power, "power", BSPKIT_FIELD_I32),
    BK_FIELD(bspkit_dispinfo, min_tess, "minTess", BSPKIT_FIELD_I32),
    BK_FIELD(bspkit_dispinfo, smoothing_angle, "smoothingAngle", BSPKIT_FIELD_F32),
    BK_FIELD(bspkit_dispinfo, contents, "contents", BSPKIT_FIELD_I32),
    BK_FIELD(bspkit_dispinfo, map_face, "MapFace", BSPKIT_FIELD_U32),
    BK_FIELD(bspkit_dispinfo, lightmap_alpha_start, "LightmapAlphaStart", BSPKIT_FIELD_I32),
    BK_FIELD(bspkit_dispinfo, lightmap_sample_position_start, "LightmapSamplePositionStart", BSPKIT_FIELD_I32),
    BK_FIELDS(bspkit_dispinfo, edge_neighbor, "EdgeNeighbors.m_iNeighbor", BSPKIT_FIELD_I32, 8),
    BK_FIELDS(bspkit_dispinfo, edge_neighbor_orientation, "EdgeNeighbors.m_NeighborOrientation",
              BSPKIT_FIELD_U8, 8),
    BK_FIELDS(bspkit_dispinfo, edge_span, "EdgeNeighbors.m_Span", BSPKIT_FIELD_U8, 8),
    BK_FIELDS(bspkit_dispinfo, edge_neighbor_span, "EdgeNeighbors.m_NeighborSpan", BSPKIT_FIELD_U8, 8),
    BK_FIELDS(bspkit_dispinfo, corner_neighbors, "CornerNeighbors.m_Neighbors", BSPKIT_FIELD_I32, 16),
    BK_FIELDS(bspkit_dispinfo, corner_neighbor_count, "CornerNeighbors.m_nNeighbors", BSPKIT_FIELD_U8, 4),
    BK_FIELDS(bspkit_dispinfo, allowed_verts, "AllowedVerts", BSPKIT_FIELD_U32, 10),
};

static const bspkit_field DISP_VERT_FIELDS[] = {
    BK_FIELD(bspkit_disp_vert, vec, "vec", BSPKIT_FIELD_VEC3),
    BK_FIELD(bspkit_disp_vert, dist, "dist", BSPKIT_FIELD_F32),
    BK_FIELD(bspkit_disp_vert, alpha, "alpha", BSPKIT_FIELD_F32),
};

static const bspkit_field DISP_TRI_FIELDS[] = {{"Tags", BSPKIT_FIELD_U16, 0, 1}};
static const bspkit_field BYTE_FIELDS[] = {{"byte", BSPKIT_FIELD_U8, 0, 1}};

static const bspkit_field MULTIBLEND_FIELDS[] = {
    BK_FIELDS(bspkit_disp_multiblend, multiblend, "m_vMultiBlend", BSPKIT_FIELD_F32, 4),
    BK_FIELDS(bspkit_disp_multiblend, alphablend, "m_vAlphaBlend", BSPKIT_FIELD_F32, 4),
    BK_FIELDS(bspkit_disp_multiblend, colors, "m_vMultiBlendColors", BSPKIT_FIELD_VEC3, 4),
};

bspkit_result bk_tables_disp(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out, bspkit_error *err)
{
    if (game_id || lump < 0 || map->format.family != BSPKIT_FAMILY_SOURCE)
        return BSPKIT_ERR_NOT_FOUND;
    size_t n = 0;
    bspkit_result r;
    switch (lump) {
    case BSPKIT_S_DISPINFO: {
        const bspkit_dispinfo *d;
        if ((r = bspkit_get_dispinfo(map, &d, &n, err)) == BSPKIT_OK)
            bk_dump_add_table(out, "records", DISPINFO_FIELDS, BK_COUNT_OF(DISPINFO_FIELDS), d, sizeof *d, n);
        return r;
    }
    case BSPKIT_S_DISP_VERTS: {
        const bspkit_disp_vert *v;
        if ((r = bspkit_get_disp_verts(map, &v, &n, err)) == BSPKIT_OK)
            bk_dump_add_table(out, "records", DISP_VERT_FIELDS, BK_COUNT_OF(DISP_VERT_FIELDS), v, sizeof *v, n);
        return r;
    }
    case BSPKIT_S_DISP_TRIS: {
        const uint16_t *t;
        if ((r = bspkit_get_disp_tris(map, &t, &n, err)) == BSPKIT_OK)
            bk_dump_add_table(out, "records", DISP_TRI_FIELDS, 1, t, sizeof *t, n);
        return r;
    }
    case BSPKIT_S_DISP_LIGHTMAP_ALPHAS:
    case BSPKIT_S_DISP_LIGHTMAP_SAMPLE_POSITIONS: {
        const uint8_t *b;
        if ((r = source_bytes(map, lump, &b, &n, err)) == BSPKIT_OK) {
            bk_dump_add_table(out, "bytes", BYTE_FIELDS, 1, b, 1, n);
            snprintf(out->note, sizeof out->note, "byte stream addressed by %s; its encoding is not decoded",
                     lump == BSPKIT_S_DISP_LIGHTMAP_ALPHAS ? "LightmapAlphaStart" : "LightmapSamplePositionStart");
        }
        return r;
    }
    case BSPKIT_S_DISP_MULTIBLEND: {
        const bspkit_disp_multiblend *m;
        if ((r = bspkit_get_disp_multiblend(map, &m, &n, err)) == BSPKIT_OK)
            bk_dump_add_table(out, "records", MULTIBLEND_FIELDS, BK_COUNT_OF(MULTIBLEND_FIELDS), m, sizeof *m, n);
        return r;
    }
    default:
        return BSPKIT_ERR_NOT_FOUND;
    }
}
