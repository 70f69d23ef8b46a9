/* Source displacement lumps: DISPINFO, DISP_VERTS, DISP_TRIS, DISP_MULTIBLEND
 * decoded into native records, the two lightmap byte streams passed through,
 * and their dump tables. The record layouts (ddispinfo_t in its 176-byte form
 * and Strata's 232-byte one, CDispVert, CDispTri, CDispMultiBlend) are
 * declared in source/records.c. */
#include "bspkit/displacement.h"
#include "core/table.h"
#include "formats/source/records.h"

#include <stdio.h>
#include <string.h>

typedef struct disp_array {
    const void *items;
    size_t count;
} disp_array;

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

/* The records of a displacement lump, decoded by their schema (source/records.c). */
static bspkit_result build_records(bspkit_map *map, int lump, disp_array **out, bspkit_error *err)
{
    const bk_schema *s = bk_source_map_array_schema(map, lump);
    const uint8_t *d = NULL;
    size_t n = 0;
    if (s) {
        bspkit_result r = record_bytes(map, lump, s->record_size, &d, &n, err);
        if (r != BSPKIT_OK)
            return r;
    }
    disp_array *a = bk_keep_alloc(map, 1, sizeof *a, lump, err);
    void *o = a ? bk_keep_alloc_records(map, n, s ? s->native_size : 1, lump, err) : NULL;
    if (!o)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    if (n)
        s->decode(d, n, map->format.big_endian, o);
    a->items = o;
    a->count = n;
    *out = a;
    return BSPKIT_OK;
}

static bspkit_result build_dispinfo(bspkit_map *map, const void **value, bspkit_error *err)
{
    disp_array *a = NULL;
    bspkit_result r = build_records(map, BSPKIT_S_DISPINFO, &a, err);
    if (r != BSPKIT_OK)
        return r;
    bspkit_dispinfo *o = (bspkit_dispinfo *)(uintptr_t)a->items;
    /* Flagged displacements own consecutive DISP_MULTIBLEND runs, in DISPINFO order. */
    uint64_t multiblend = 0;
    for (size_t i = 0; i < a->count; i++) {
        /* An invalid power gets no run: its vertex count is unknown to the engine too. */
        bool valid = o[i].power >= 0 && o[i].power <= BSPKIT_DISP_MAX_POWER;
        uint64_t verts = valid ? bspkit_disp_vert_count(o[i].power) : 0;
        o[i].multiblend_start = -1;
        if (((uint32_t)o[i].min_tess & BSPKIT_DISP_FLAG_HAS_MULTIBLEND) && valid) {
            o[i].multiblend_start = (int64_t)multiblend;
            multiblend += verts;
        }
    }
    *value = a;
    return BSPKIT_OK;
}

/* The other displacement lumps are their records alone. */
#define BUILD_RECORDS(name, lump)                                                                      \
    static bspkit_result name(bspkit_map *map, const void **value, bspkit_error *err)                  \
    {                                                                                                  \
        disp_array *a = NULL;                                                                          \
        bspkit_result r = build_records(map, (lump), &a, err);                                         \
        if (r == BSPKIT_OK)                                                                            \
            *value = a;                                                                                \
        return r;                                                                                      \
    }
BUILD_RECORDS(build_disp_verts, BSPKIT_S_DISP_VERTS)
BUILD_RECORDS(build_disp_tris, BSPKIT_S_DISP_TRIS)
BUILD_RECORDS(build_disp_multiblend, BSPKIT_S_DISP_MULTIBLEND)

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

static const bspkit_field BYTE_FIELDS[] = {{"byte", BSPKIT_FIELD_U8, 0, 1}};

bspkit_result bk_tables_disp(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out, bspkit_error *err)
{
    if (game_id || lump < 0 || map->format.family != BSPKIT_FAMILY_SOURCE)
        return BSPKIT_ERR_NOT_FOUND;
    size_t n = 0;
    bspkit_result r;
    switch (lump) {
    case BSPKIT_S_DISPINFO: BK_SOURCE_RECORDS_TABLE(bspkit_get_dispinfo, bspkit_dispinfo);
        return r;
    case BSPKIT_S_DISP_VERTS: BK_SOURCE_RECORDS_TABLE(bspkit_get_disp_verts, bspkit_disp_vert);
        return r;
    case BSPKIT_S_DISP_TRIS: BK_SOURCE_RECORDS_TABLE(bspkit_get_disp_tris, uint16_t);
        return r;
    case BSPKIT_S_DISP_MULTIBLEND:
        BK_SOURCE_RECORDS_TABLE(bspkit_get_disp_multiblend, bspkit_disp_multiblend);
        return r;
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
    default:
        return BSPKIT_ERR_NOT_FOUND;
    }
}
