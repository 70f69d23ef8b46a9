/* Source OCCLUSION lump: three counted arrays (occluders, their polygons,
 * the polygons' vertex indices), each count checked against the bytes
 * that follow it before anything is allocated. The record layouts are
 * declared in source/records.c. */
#include "bspkit/source_lumps.h"
#include "core/map.h"
#include "formats/source/records.h"

/* Reads the int count at *pos and proves count * record bytes follow it. */
static bspkit_result read_count(bspkit_map *map, const uint8_t *data, size_t size, uint64_t *pos, uint32_t record,
                                const char *what, size_t *count, bspkit_error *err)
{
    const int lump = BSPKIT_S_OCCLUSION;
    if (!range_ok(*pos, 4, size))
        return bk_fail(err, BSPKIT_ERR_LUMP_SIZE, lump, bk_file_offset(map, lump, *pos), (int64_t)*pos,
                       "OCCLUSION: lump ends at %zu before the %s count at lump offset %llu", size, what,
                       (unsigned long long)*pos);
    int32_t n = rd_i32(data + *pos, map->format.big_endian);
    if (n < 0 || !range_ok(*pos + 4, (uint64_t)n * record, size))
        return bk_fail(err, BSPKIT_ERR_LUMP_SIZE, lump, bk_file_offset(map, lump, *pos), (int64_t)*pos,
                       "OCCLUSION: %s count %d at lump offset %llu needs %llu bytes, %llu remain", what, n,
                       (unsigned long long)*pos, (unsigned long long)((uint64_t)(n < 0 ? 0 : n) * record),
                       (unsigned long long)(size - *pos - 4));
    *pos += 4;
    *count = (size_t)n;
    return BSPKIT_OK;
}

static bspkit_result build_occlusion(bspkit_map *map, const void **value, bspkit_error *err)
{
    const int lump = BSPKIT_S_OCCLUSION;
    const bool be = map->format.big_endian;
    bspkit_occlusion *occ = bk_keep_alloc(map, 1, sizeof *occ, lump, err);
    if (!occ)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    occ->version = map->lumps[lump].version;
    const uint8_t *data;
    size_t size;
    bspkit_result r = bk_lump_bytes(map, lump, &data, &size, err);
    if (r != BSPKIT_OK)
        return r;
    if (size == 0) {
        *value = occ;
        return BSPKIT_OK;
    }
    const bk_schema *occluder = bk_source_occluder_schema(occ->version), *polygon = &bk_source_occluder_poly;
    uint64_t pos = 0;
    size_t n;

    if ((r = read_count(map, data, size, &pos, occluder->record_size, "occluder", &n, err)) != BSPKIT_OK)
        return r;
    bspkit_occluder *o = bk_keep_alloc(map, n, sizeof *o, lump, err);
    if (n && !o)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    occluder->decode(data + pos, n, be, o);
    pos += (uint64_t)n * occluder->record_size;
    occ->occluders = o;
    occ->occluder_count = n;

    if ((r = read_count(map, data, size, &pos, polygon->record_size, "occluder polygon", &n, err)) != BSPKIT_OK)
        return r;
    bspkit_occluder_poly *poly = bk_keep_alloc(map, n, sizeof *poly, lump, err);
    if (n && !poly)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    polygon->decode(data + pos, n, be, poly);
    pos += (uint64_t)n * polygon->record_size;
    occ->polys = poly;
    occ->poly_count = n;

    if ((r = read_count(map, data, size, &pos, 4, "occluder vertex index", &n, err)) != BSPKIT_OK)
        return r;
    int32_t *vi = bk_keep_alloc(map, n, sizeof *vi, lump, err);
    if (n && !vi)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    bk_decode_i32(data + pos, n, be, vi);
    pos += 4 * (uint64_t)n;
    occ->vertex_indices = vi;
    occ->vertex_index_count = n;
    occ->trailing_bytes = size - (size_t)pos;
    *value = occ;
    return BSPKIT_OK;
}

bspkit_result bspkit_get_occlusion(bspkit_map *map, const bspkit_occlusion **out, bspkit_error *err)
{
    static const bspkit_occlusion EMPTY;
    if (!out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "NULL argument");
    const void *value;
    bspkit_result r = bk_source_value_get(map, EX_OCCLUSION, build_occlusion, &EMPTY, &value, err);
    *out = value;
    return r;
}
