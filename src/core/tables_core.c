/* Dump tables for the lumps the core reader decodes (bspkit.h's structs). */
#include "core/table.h"

static const bspkit_field PLANE_FIELDS[] = {
    BK_FIELD(bspkit_plane, normal, "normal", BSPKIT_FIELD_VEC3),
    BK_FIELD(bspkit_plane, dist, "dist", BSPKIT_FIELD_F32),
    BK_FIELD(bspkit_plane, type, "type", BSPKIT_FIELD_I32),
};

bspkit_result bk_tables_core(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out, bspkit_error *err)
{
    if (game_id || lump < 0)
        return BSPKIT_ERR_NOT_FOUND;
    if (lump == (map->format.family == BSPKIT_FAMILY_SOURCE ? BSPKIT_S_PLANES : BSPKIT_Q_PLANES)) {
        const bspkit_plane *p;
        size_t n;
        bspkit_result r = bspkit_get_planes(map, &p, &n, err);
        if (r != BSPKIT_OK)
            return r;
        bk_dump_add_table(out, "records", PLANE_FIELDS, BK_COUNT_OF(PLANE_FIELDS), p, sizeof *p, n);
        return BSPKIT_OK;
    }
    return BSPKIT_ERR_NOT_FOUND;
}
