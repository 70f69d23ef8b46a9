/* The Titanfall 2 record accessors of bspkit/titanfall.h: each reads one
 * decoded slot from the lump the family's layouts assign to it. */
#include "bspkit/titanfall.h"
#include "core/map.h"

static bspkit_result get(bspkit_map *map, bk_rec kind, const void **out, size_t *count, bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !out || !count)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "Titanfall accessor: NULL argument");
    const void *items = NULL;
    bspkit_result r = bk_get_array(map, kind, map->dec_lump[kind], &items, count, err);
    *out = r == BSPKIT_OK ? items : NULL;
    if (r != BSPKIT_OK)
        *count = 0;
    return r;
}

#define R2_ACCESSOR(fn, type, kind)                                                                    \
    bspkit_result fn(bspkit_map *map, const type **out, size_t *count, bspkit_error *err)              \
    {                                                                                                  \
        return get(map, kind, (const void **)out, count, err);                                         \
    }

R2_ACCESSOR(bspkit_get_r2_models, bspkit_r2_model, BK_REC_R2_MODELS)
R2_ACCESSOR(bspkit_get_r2_meshes, bspkit_r2_mesh, BK_REC_R2_MESHES)
R2_ACCESSOR(bspkit_get_r2_mesh_bounds, bspkit_r2_mesh_bounds, BK_REC_R2_MESH_BOUNDS)
R2_ACCESSOR(bspkit_get_r2_material_sorts, bspkit_r2_material_sort, BK_REC_R2_MATERIAL_SORTS)
R2_ACCESSOR(bspkit_get_r2_mesh_indices, uint32_t, BK_REC_R2_MESH_INDICES)
R2_ACCESSOR(bspkit_get_r2_vertex_normals, bspkit_vec3, BK_REC_R2_VERTEX_NORMALS)

/* The decoded slot of a vertex lump, or -1. */
static int vertex_kind(int lump)
{
    switch (lump) {
    case BSPKIT_R2_VERTEX_UNLIT: return BK_REC_R2_VERTEX_UNLIT;
    case BSPKIT_R2_VERTEX_LIT_FLAT: return BK_REC_R2_VERTEX_LIT_FLAT;
    case BSPKIT_R2_VERTEX_LIT_BUMP: return BK_REC_R2_VERTEX_LIT_BUMP;
    case BSPKIT_R2_VERTEX_UNLIT_TS: return BK_REC_R2_VERTEX_UNLIT_TS;
    default: return -1;
    }
}

bspkit_result bspkit_get_r2_vertices(bspkit_map *map, int lump, const bspkit_r2_vertex **out, size_t *count,
                                     bspkit_error *err)
{
    int kind = vertex_kind(lump);
    if (kind < 0) {
        bk_error_clear(err);
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1, "bspkit_get_r2_vertices: lump %d is no vertex lump",
                       lump);
    }
    return get(map, (bk_rec)kind, (const void **)out, count, err);
}

int bspkit_r2_vertex_lump(uint32_t flags)
{
    switch (flags & BSPKIT_R2_MESH_VERTEX_MASK) {
    case BSPKIT_R2_MESH_VERTEX_LIT_BUMP: return BSPKIT_R2_VERTEX_LIT_BUMP;
    case BSPKIT_R2_MESH_VERTEX_UNLIT: return BSPKIT_R2_VERTEX_UNLIT;
    case BSPKIT_R2_MESH_VERTEX_UNLIT_TS: return BSPKIT_R2_VERTEX_UNLIT_TS;
    default: return BSPKIT_R2_VERTEX_LIT_FLAT;
    }
}
