/* Source physics lumps: PHYSCOLLIDE (per-model collision solids and their
 * key-value text), PHYSDISP (per-displacement collision blobs) and Left 4
 * Dead 2's static prop collision lumps 22-25. Variable-length data is
 * walked once to prove every size against the bytes, then again to fill
 * arrays of exactly the counted length. */
#include "bspkit/source_lumps.h"
#include "core/map.h"

#include <string.h>

/* ------------------------------------------------------------------------ */
/* PHYSCOLLIDE                                                               */
/* ------------------------------------------------------------------------ */

static bspkit_result phys_fail(bspkit_map *map, bspkit_error *err, uint64_t pos, const char *what, int32_t value,
                               uint64_t need, size_t size)
{
    const int lump = BSPKIT_S_PHYSCOLLIDE;
    return bk_fail(err, BSPKIT_ERR_LUMP_SIZE, lump, bk_file_offset(map, lump, pos), (int64_t)pos,
                   "PHYSCOLLIDE: %s %d at lump offset %llu needs %llu bytes, the lump has %zu", what, value,
                   (unsigned long long)pos, (unsigned long long)need, size);
}

static void solid_id(const uint8_t *p, uint32_t size, char id[5])
{
    /* compactsurfaceheader_t starts with 'VPHY' stored as an int, so a
     * big-endian file shows it reversed. Older solids have no such header:
     * the IVP compact surface (id 'IVPS' at byte 44) starts right away.
     * Bloodlines writes the same compact surface with 'MOPP' there: its
     * convex ledges follow the 48-byte header as in IVPS solids, but the
     * tree over them is Havok MOPP code instead of IVP's ledge tree. */
    memset(id, 0, 5);
    if (size >= 4 && (memcmp(p, "VPHY", 4) == 0 || memcmp(p, "YHPV", 4) == 0))
        memcpy(id, "VPHY", 4);
    else if (size >= 48 && (memcmp(p + 44, "IVPS", 4) == 0 || memcmp(p + 44, "SPVI", 4) == 0))
        memcpy(id, "IVPS", 4);
    else if (size >= 48 && (memcmp(p + 44, "MOPP", 4) == 0 || memcmp(p + 44, "PPOM", 4) == 0))
        memcpy(id, "MOPP", 4);
}

/* One pass over the lump. With `out` NULL it only checks and counts. */
static bspkit_result walk_physcollide(bspkit_map *map, const uint8_t *data, size_t size, bspkit_physcollide *out,
                                      bspkit_phys_model *models, bspkit_phys_solid *solids, size_t *model_count,
                                      size_t *solid_count, bspkit_error *err)
{
    const bool be = map->format.big_endian;
    uint64_t pos = 0;
    size_t nm = 0, ns = 0;
    bool terminated = false;
    while (pos < size) {
        if (!range_ok(pos, 16, size))
            return phys_fail(map, err, pos, "dphysmodel_t header, bytes left", (int32_t)(size - pos), 16, size);
        const uint8_t *h = data + pos;
        int32_t model_index = rd_i32(h, be);
        if (model_index == -1) {
            terminated = true;
            pos += 16;
            break;
        }
        int32_t data_size = rd_i32(h + 4, be), key_size = rd_i32(h + 8, be), count = rd_i32(h + 12, be);
        if (data_size < 0 || !range_ok(pos + 16, (uint64_t)data_size, size))
            return phys_fail(map, err, pos, "dataSize", data_size, (uint64_t)(data_size < 0 ? 0 : data_size), size);
        if (count < 0 || (uint64_t)count * 4 > (uint64_t)data_size)
            return phys_fail(map, err, pos, "solidCount", count, (uint64_t)(count < 0 ? 0 : count) * 4, size);
        if (models) {
            models[nm] = (bspkit_phys_model){model_index, data_size, key_size, count, pos, NULL, 0, ns};
        }
        uint64_t model_pos = pos;
        pos += 16;
        uint64_t solids_end = pos + (uint64_t)data_size;
        for (int32_t k = 0; k < count; k++) {
            if (!range_ok(pos, 4, solids_end))
                return phys_fail(map, err, pos, "solid size field in a dataSize of", data_size, 4, size);
            int32_t sz = rd_i32(data + pos, be);
            if (sz < 0 || !range_ok(pos + 4, (uint64_t)sz, solids_end))
                return phys_fail(map, err, pos, "solid size", sz, (uint64_t)(sz < 0 ? 0 : sz), size);
            if (solids) {
                solids[ns].offset = pos;
                solids[ns].size = (uint32_t)sz;
                solid_id(data + pos + 4, (uint32_t)sz, solids[ns].id);
            }
            ns++;
            pos += 4 + (uint64_t)sz;
        }
        if (pos != solids_end)
            return bk_fail(err, BSPKIT_ERR_LUMP_SIZE, BSPKIT_S_PHYSCOLLIDE,
                           bk_file_offset(map, BSPKIT_S_PHYSCOLLIDE, model_pos), (int64_t)model_pos,
                           "PHYSCOLLIDE: model %d at lump offset %llu: its %d solids take %llu bytes, dataSize says %d",
                           model_index, (unsigned long long)model_pos, count,
                           (unsigned long long)(pos - model_pos - 16), data_size);
        if (key_size < 0 || !range_ok(pos, (uint64_t)key_size, size))
            return phys_fail(map, err, model_pos, "keydataSize", key_size, (uint64_t)(key_size < 0 ? 0 : key_size),
                             size);
        if (models) {
            models[nm].keydata = (const char *)data + pos;
            models[nm].keydata_length = (size_t)key_size;
        }
        pos += (uint64_t)key_size;
        nm++;
    }
    *model_count = nm;
    *solid_count = ns;
    if (out) {
        out->terminated = terminated;
        out->end_offset = pos;
    }
    return BSPKIT_OK;
}

static bspkit_result build_physcollide(bspkit_map *map, const void **value, bspkit_error *err)
{
    const int lump = BSPKIT_S_PHYSCOLLIDE;
    bspkit_physcollide *pc = bk_keep_alloc(map, 1, sizeof *pc, lump, err);
    if (!pc)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    const uint8_t *data;
    size_t size, nm, ns;
    bspkit_result r = bk_lump_bytes(map, lump, &data, &size, err);
    if (r == BSPKIT_OK)
        r = walk_physcollide(map, data, size, NULL, NULL, NULL, &nm, &ns, err);
    if (r != BSPKIT_OK)
        return r;
    bspkit_phys_model *models = bk_keep_alloc(map, nm, sizeof *models, lump, err);
    bspkit_phys_solid *solids = models ? bk_keep_alloc(map, ns, sizeof *solids, lump, err) : NULL;
    if (!solids)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    r = walk_physcollide(map, data, size, pc, models, solids, &nm, &ns, err);
    if (r != BSPKIT_OK)
        return r;
    pc->models = models;
    pc->model_count = nm;
    pc->solids = solids;
    pc->solid_count = ns;
    *value = pc;
    return BSPKIT_OK;
}

bspkit_result bspkit_get_physcollide(bspkit_map *map, const bspkit_physcollide **out, bspkit_error *err)
{
    static const bspkit_physcollide EMPTY;
    if (!out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "NULL argument");
    const void *value;
    bspkit_result r = bk_source_value_get(map, EX_PHYSCOLLIDE, build_physcollide, &EMPTY, &value, err);
    *out = value;
    return r;
}

/* ------------------------------------------------------------------------ */
/* PHYSDISP                                                                  */
/* ------------------------------------------------------------------------ */

static bspkit_result build_physdisp(bspkit_map *map, const void **value, bspkit_error *err)
{
    const int lump = BSPKIT_S_PHYSDISP;
    const bool be = map->format.big_endian;
    bk_array_value *v = bk_keep_alloc(map, 1, sizeof *v, lump, err);
    if (!v)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    const uint8_t *data;
    size_t size;
    bspkit_result r = bk_lump_bytes(map, lump, &data, &size, err);
    if (r != BSPKIT_OK)
        return r;
    if (size == 0) {
        *value = v;
        return BSPKIT_OK;
    }
    /* Strata's lump version 2 widens the count and the sizes to 32 bits. */
    const uint32_t w = (map->format.variant & BSPKIT_VARIANT_WIDE_LUMPS) && map->lumps[lump].version >= 2 ? 4 : 2;
    if (size < w)
        return bk_fail(err, BSPKIT_ERR_LUMP_SIZE, lump, bk_file_offset(map, lump, 0), 0,
                       "PHYSDISP: %zu bytes cannot hold the %u-byte displacement count", size, w);
    uint64_t n = w == 4 ? rd_u32(data, be) : rd_u16(data, be);
    if (!range_ok(w, n * w, size))
        return bk_fail(err, BSPKIT_ERR_LUMP_SIZE, lump, bk_file_offset(map, lump, 0), 0,
                       "PHYSDISP: %llu displacement sizes need %llu bytes, the lump has %zu", (unsigned long long)n,
                       (unsigned long long)(w + n * w), size);
    bspkit_physdisp_entry *e = bk_keep_alloc(map, (size_t)n, sizeof *e, lump, err);
    if (!e)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    uint64_t pos = w + n * w;
    for (uint64_t i = 0; i < n; i++) {
        const uint8_t *p = data + w + i * w;
        uint32_t sz = w == 4 ? rd_u32(p, be) : rd_u16(p, be);
        if (!range_ok(pos, sz, size))
            return bk_fail(err, BSPKIT_ERR_LUMP_SIZE, lump, bk_file_offset(map, lump, w + i * w),
                           (int64_t)(w + i * w),
                           "PHYSDISP: displacement %llu's %u bytes at lump offset %llu run past the lump end (%zu)",
                           (unsigned long long)i, sz, (unsigned long long)pos, size);
        e[i] = (bspkit_physdisp_entry){pos, sz};
        pos += sz;
    }
    v->items = e;
    v->count = (size_t)n;
    *value = v;
    return BSPKIT_OK;
}

bspkit_result bspkit_get_physdisp(bspkit_map *map, const bspkit_physdisp_entry **out, size_t *count,
                                  bspkit_error *err)
{
    const void *items = NULL;
    bspkit_result r = bk_array_get(map, EX_PHYSDISP, build_physdisp, &items, count, err);
    if (out)
        *out = items;
    return r;
}

/* ------------------------------------------------------------------------ */
/* Left 4 Dead 2 static prop collision (lumps 22-25)                         */
/* ------------------------------------------------------------------------ */

static void decode_prop_collisions(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_prop_collision_entry *o = dst;
    for (size_t i = 0; i < n; i++, src += 8)
        o[i] = (bspkit_prop_collision_entry){rd_i32(src, be), rd_i32(src + 4, be)};
}

static void decode_prop_hulls(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_prop_hull *o = dst;
    for (size_t i = 0; i < n; i++, src += 16)
        o[i] = (bspkit_prop_hull){rd_i32(src, be), rd_i32(src + 4, be), rd_i32(src + 8, be), rd_u32(src + 12, be)};
}

static void decode_hull_verts(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_vec3 *o = dst;
    for (size_t i = 0; i < n; i++)
        bk_rd_vec3(src + 12 * i, be, &o[i]);
}

static void decode_hull_tris(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_prop_hull_tris *o = dst;
    for (size_t i = 0; i < n; i++, src += 8)
        o[i] = (bspkit_prop_hull_tris){rd_i32(src, be), rd_i32(src + 4, be)};
}

static bspkit_result build_prop_collision(bspkit_map *map, const void **value, bspkit_error *err)
{
    bspkit_prop_collision *pc = bk_keep_alloc(map, 1, sizeof *pc, 22, err);
    if (!pc)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    if (map->format.version == 21 && (map->format.variant & BSPKIT_VARIANT_L4D2_DIRECTORY)) {
        const bk_array_spec specs[4] = {
            {22, 8, sizeof(bspkit_prop_collision_entry), decode_prop_collisions},
            {23, 16, sizeof(bspkit_prop_hull), decode_prop_hulls},
            {24, 12, sizeof(bspkit_vec3), decode_hull_verts},
            {25, 8, sizeof(bspkit_prop_hull_tris), decode_hull_tris},
        };
        bk_array_value a[4];
        for (int i = 0; i < 4; i++) {
            bspkit_result r = bk_decode_records(map, &specs[i], &a[i], err);
            if (r != BSPKIT_OK)
                return r;
        }
        pc->collisions = a[0].items;
        pc->collision_count = a[0].count;
        pc->hulls = a[1].items;
        pc->hull_count = a[1].count;
        pc->hull_verts = a[2].items;
        pc->hull_vert_count = a[2].count;
        pc->tris = a[3].items;
        pc->tris_count = a[3].count;
    }
    *value = pc;
    return BSPKIT_OK;
}

bspkit_result bspkit_get_prop_collision(bspkit_map *map, const bspkit_prop_collision **out, bspkit_error *err)
{
    static const bspkit_prop_collision EMPTY;
    if (!out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "NULL argument");
    const void *value;
    bspkit_result r = bk_source_value_get(map, EX_PROP_COLLISION, build_prop_collision, &EMPTY, &value, err);
    *out = value;
    return r;
}
