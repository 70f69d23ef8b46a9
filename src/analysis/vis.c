/* Visibility rows: per cluster (Source and Quake 2, PVS and PAS; Quake 3,
 * PVS as plain bit rows) or per visible leaf (Quake/GoldSrc, PVS). The
 * run-length decoder lives in vis_rle.c. */
#include "core/family.h"
#include "core/vis_rle.h"

#include <stdlib.h>
#include <string.h>

static int vis_lump(const bspkit_map *map) { return bk_map_lump_for(map, BK_ROLE_VISIBILITY); }

bspkit_result bspkit_vis_dimensions(bspkit_map *map, uint32_t *rows, uint32_t *row_bytes, bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !rows || !row_bytes)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_vis_dimensions: NULL argument");
    *rows = *row_bytes = 0;
    int lump = vis_lump(map);
    const uint8_t *d;
    size_t size;
    bspkit_result r = bk_lump_bytes(map, lump, &d, &size, err);
    if (r != BSPKIT_OK || size == 0)
        return r;
    uint64_t n;
    if (bk_map_bitset_vis(map)) {
        int32_t clusters = size >= 8 ? rd_i32(d, map->format.big_endian) : -1;
        int32_t stride = size >= 8 ? rd_i32(d + 4, map->format.big_endian) : -1;
        if (clusters < 0 || stride < 0 || (uint64_t)stride < ((uint64_t)clusters + 7) / 8 ||
            (uint64_t)clusters * (uint64_t)stride > size - 8)
            return bk_fail(err, BSPKIT_ERR_VISIBILITY, lump, bk_file_offset(map, lump, 0), 0,
                           "VISIBILITY: %d clusters of %d bytes do not fit the %zu-byte lump", (int)clusters,
                           (int)stride, size);
        n = (uint64_t)clusters;
    } else if (bk_map_cluster_vis(map)) {
        int32_t clusters = size >= 4 ? rd_i32(d, map->format.big_endian) : -1;
        if (clusters < 0 || (uint64_t)clusters * 8 > size - 4)
            return bk_fail(err, BSPKIT_ERR_VISIBILITY, lump, bk_file_offset(map, lump, 0), 0,
                           "VISIBILITY: cluster count %d does not fit the %zu-byte lump", (int)clusters, size);
        n = (uint64_t)clusters;
    } else {
        const bspkit_model *models;
        const bspkit_leaf *leafs;
        size_t nmodels, nleafs;
        if ((r = bspkit_get_models(map, &models, &nmodels, err)) != BSPKIT_OK ||
            (r = bspkit_get_leafs(map, &leafs, &nleafs, err)) != BSPKIT_OK)
            return r;
        if (nmodels == 0)
            return BSPKIT_OK;
        int32_t visleafs = models[0].vis_leafs;
        if (visleafs < 0 || (uint64_t)visleafs >= (nleafs ? nleafs : 1))
            return bk_fail(err, BSPKIT_ERR_VISIBILITY, BSPKIT_Q_MODELS, bk_file_offset(map, BSPKIT_Q_MODELS, 52), 52,
                           "MODELS: model 0 claims %d visible leafs but the map has %zu leafs", (int)visleafs, nleafs);
        n = (uint64_t)visleafs;
    }
    *rows = (uint32_t)n;
    *row_bytes = (uint32_t)((n + 7) / 8);
    return BSPKIT_OK;
}

/* One row into `out`, or with `out` NULL only checked. */
static bspkit_result vis_row(bspkit_map *map, uint32_t index, bspkit_vis_kind kind, uint8_t *out, size_t out_size,
                             bool check_only, bspkit_error *err)
{
    uint32_t rows, row_bytes;
    bspkit_result r = bspkit_vis_dimensions(map, &rows, &row_bytes, err);
    if (r != BSPKIT_OK)
        return r;
    if ((!check_only && (!out || out_size < row_bytes)) || (kind != BSPKIT_VIS_PVS && kind != BSPKIT_VIS_PAS))
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_vis_row: output of %zu bytes, need %u",
                       out_size, row_bytes);
    int lump = vis_lump(map);
    const uint8_t *d;
    size_t size;
    if ((r = bk_lump_bytes(map, lump, &d, &size, err)) != BSPKIT_OK)
        return r;
    int64_t ofs;
    if (bk_map_bitset_vis(map)) {
        if (kind != BSPKIT_VIS_PVS)
            return bk_fail(err, BSPKIT_ERR_NOT_FOUND, lump, -1, -1, "Quake 3 maps store no PAS");
        if (index >= rows)
            return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1, "cluster %u of %u does not exist", index, rows);
        /* Rows are padded (q3map2: to 8 bytes); bits past the last cluster are dropped. */
        uint64_t stride = (uint32_t)rd_i32(d + 4, map->format.big_endian);
        if (check_only)
            return BSPKIT_OK;
        memcpy(out, d + 8 + stride * index, row_bytes);
        if (rows % 8)
            out[row_bytes - 1] &= (uint8_t)((1u << (rows % 8)) - 1);
        return BSPKIT_OK;
    }
    if (bk_map_cluster_vis(map)) {
        if (index >= rows)
            return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1, "cluster %u of %u does not exist", index, rows);
        uint64_t at = 4 + 8ull * index + 4ull * kind;
        ofs = rd_i32(d + at, map->format.big_endian);
    } else {
        if (kind != BSPKIT_VIS_PVS)
            return bk_fail(err, BSPKIT_ERR_NOT_FOUND, lump, -1, -1, "Quake and GoldSrc maps store no PAS");
        const bspkit_leaf *leafs;
        size_t nleafs;
        if ((r = bspkit_get_leafs(map, &leafs, &nleafs, err)) != BSPKIT_OK)
            return r;
        if (index == 0 || index > rows)
            return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1, "leaf %u is not a visible leaf (1..%u)", index, rows);
        ofs = leafs[index].vis_offset;
        if (ofs < 0) { /* no vis data for this leaf: the engines treat everything as visible */
            if (!check_only)
                memset(out, 0xFF, row_bytes);
            return BSPKIT_OK;
        }
    }
    if (ofs < 0 || (uint64_t)ofs >= size)
        return bk_fail(err, BSPKIT_ERR_VISIBILITY, lump, -1, -1, "VISIBILITY: row %u offset %lld outside the %zu-byte lump",
                       index, (long long)ofs, size);
    r = check_only ? bk_vis_walk(d + ofs, size - (size_t)ofs, row_bytes, NULL)
                   : bspkit_vis_decompress(d + ofs, size - (size_t)ofs, out, row_bytes, NULL);
    if (r != BSPKIT_OK)
        return bk_fail(err, r, lump, bk_file_offset(map, lump, (uint64_t)ofs), ofs,
                       "VISIBILITY: row %u at lump byte %lld ends before its %u bytes are decoded", index,
                       (long long)ofs, row_bytes);
    return BSPKIT_OK;
}

bspkit_result bspkit_vis_row(bspkit_map *map, uint32_t index, bspkit_vis_kind kind, uint8_t *out, size_t out_size,
                             bspkit_error *err)
{
    return vis_row(map, index, kind, out, out_size, false, err);
}

bspkit_result bk_vis_row_check(bspkit_map *map, uint32_t index, bspkit_vis_kind kind, bspkit_error *err)
{
    return vis_row(map, index, kind, NULL, 0, true, err);
}

bool bk_vis_rows_init(bspkit_map *map, bk_vis_rows *v)
{
    memset(v, 0, sizeof *v);
    bspkit_error e;
    if (bspkit_vis_dimensions(map, &v->rows, &v->row_bytes, &e) != BSPKIT_OK ||
        bk_lump_bytes(map, vis_lump(map), &v->lump, &v->size, &e) != BSPKIT_OK)
        return false;
    v->bitset = bk_map_bitset_vis(map);
    v->cluster = bk_map_cluster_vis(map);
    v->big_endian = map->format.big_endian;
    if (!v->bitset && !v->cluster && bspkit_get_leafs(map, &v->leafs, &v->nleafs, &e) != BSPKIT_OK)
        return false;
    return true;
}

/* Where row `index` of `kind` starts in the lump (*ofs, not yet checked
 * against the lump): 1, or 0 for a leaf without visibility data (nothing to
 * decode), or -1 when there is no such row. Not for bitset rows. */
static int row_start(const bk_vis_rows *v, uint32_t index, bspkit_vis_kind kind, int64_t *ofs)
{
    if (kind != BSPKIT_VIS_PVS && kind != BSPKIT_VIS_PAS)
        return -1;
    if (v->cluster) {
        if (index >= v->rows)
            return -1;
        *ofs = rd_i32(v->lump + 4 + 8ull * index + 4ull * kind, v->big_endian);
        return 1;
    }
    if (kind != BSPKIT_VIS_PVS || index == 0 || index > v->rows || index >= v->nleafs)
        return -1;
    *ofs = v->leafs[index].vis_offset;
    return *ofs < 0 ? 0 : 1;
}

/* vis_row()'s checks in the same order, without an error to fill. */
bool bk_vis_row_fine(const bk_vis_rows *v, uint32_t index, bspkit_vis_kind kind)
{
    if (v->bitset)
        return kind == BSPKIT_VIS_PVS && index < v->rows;
    int64_t ofs;
    int start = row_start(v, index, kind, &ofs);
    if (start <= 0)
        return start == 0;
    if (ofs < 0 || (uint64_t)ofs >= v->size)
        return false;
    return bk_vis_walk(v->lump + ofs, v->size - (size_t)ofs, v->row_bytes, NULL) == BSPKIT_OK;
}

bool bk_vis_row_inside(const bk_vis_rows *v, uint32_t index, bspkit_vis_kind kind)
{
    int64_t ofs;
    return !v->bitset && row_start(v, index, kind, &ofs) == 1 && ofs >= 0 && (uint64_t)ofs < v->size;
}

/* Marks a row that starts inside the lump. */
static inline void mark_start(int64_t ofs, size_t size, uint64_t *marks, size_t *first, size_t *last)
{
    if (ofs < 0 || (uint64_t)ofs >= size)
        return;
    size_t at = (size_t)ofs;
    marks[at / 64] |= UINT64_C(1) << (at % 64);
    *first = at < *first ? at : *first;
    *last = at > *last ? at : *last;
}

bool bk_vis_rows_fine_together(const bk_vis_rows *v, uint32_t count, bool pas)
{
    if (v->bitset || v->size == 0)
        return false;
    uint64_t *marks = calloc(v->size / 64 + 1, sizeof *marks);
    if (!marks)
        return false;
    size_t first = SIZE_MAX, last = 0;
    /* The offsets are read here rather than through row_start, which asks
     * per row what these loops settle once (e1m2's 1,304 leafs: 4.8 against
     * 5.8 µs); the rows are the same: row_start refuses none of these. */
    if (v->cluster) {
        /* Clusters 0 .. count - 1: the table of (PVS, PAS) offsets after the count. */
        uint32_t n = count < v->rows ? count : v->rows;
        for (uint32_t i = 0; i < n; i++) {
            const uint8_t *at = v->lump + 4 + 8ull * i;
            mark_start(rd_i32(at, v->big_endian), v->size, marks, &first, &last);
            if (pas)
                mark_start(rd_i32(at + 4, v->big_endian), v->size, marks, &first, &last);
        }
    } else {
        /* Leafs 1 .. count (leaf 0 has no row); a negative offset has no row either. */
        uint64_t end = (uint64_t)(count < v->rows ? count : v->rows) + 1;
        if (end > v->nleafs)
            end = v->nleafs;
        for (uint64_t i = 1; i < end; i++)
            mark_start(v->leafs[i].vis_offset, v->size, marks, &first, &last);
    }
    bool fine = first == SIZE_MAX || (bk_vis_marks_start_codes(v->lump, v->size, first, last, marks) &&
                                      bk_vis_walk(v->lump + last, v->size - last, v->row_bytes, NULL) == BSPKIT_OK);
    free(marks);
    return fine;
}
