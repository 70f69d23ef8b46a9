/* The Quake/GoldSrc family's dump tables: the miptex directory, BSPX lumps
 * named by their name, and why other lumps are shown raw. */
#include "bspkit/bspx.h"
#include "core/family.h"
#include "core/table.h"
#include "formats/quake/family.h"

#include <stdio.h>
#include <string.h>

#define F(type, member, name, ftype) BK_FIELD(type, member, name, ftype)
#define FN(type, member, name, ftype, n) BK_FIELDS(type, member, name, ftype, n)

static const bspkit_field MIPTEX[] = {
    FN(bspkit_miptex, name, "name", BSPKIT_FIELD_CHARS, 17),
    F(bspkit_miptex, width, "width", BSPKIT_FIELD_U32),
    F(bspkit_miptex, height, "height", BSPKIT_FIELD_U32),
    FN(bspkit_miptex, mip_offsets, "offsets", BSPKIT_FIELD_U32, 4),
    F(bspkit_miptex, lump_offset, "lump_offset", BSPKIT_FIELD_I64),
    F(bspkit_miptex, embedded, "embedded", BSPKIT_FIELD_BOOL),
};
static const bspkit_field DECOUPLED_FIELDS[] = {
    BK_FIELD(bspkit_bspx_decoupled_lm, lmwidth, "lmwidth", BSPKIT_FIELD_U16),
    BK_FIELD(bspkit_bspx_decoupled_lm, lmheight, "lmheight", BSPKIT_FIELD_U16),
    BK_FIELD(bspkit_bspx_decoupled_lm, offset, "offset", BSPKIT_FIELD_I32),
    BK_FIELDS(bspkit_bspx_decoupled_lm, world_to_lm, "world_to_lm_space", BSPKIT_FIELD_F32, 8),
};

static const bspkit_field BRUSH_MODEL_FIELDS[] = {
    BK_FIELD(bspkit_bspx_brush_model, ver, "ver", BSPKIT_FIELD_I32),
    BK_FIELD(bspkit_bspx_brush_model, modelnum, "modelnum", BSPKIT_FIELD_I32),
    BK_FIELD(bspkit_bspx_brush_model, numbrushes, "numbrushes", BSPKIT_FIELD_I32),
    BK_FIELD(bspkit_bspx_brush_model, numfaces, "numfaces", BSPKIT_FIELD_I32),
};

static const bspkit_field BRUSH_FIELDS[] = {
    BK_FIELD(bspkit_bspx_brush, mins, "mins", BSPKIT_FIELD_VEC3),
    BK_FIELD(bspkit_bspx_brush, maxs, "maxs", BSPKIT_FIELD_VEC3),
    BK_FIELD(bspkit_bspx_brush, contents, "contents", BSPKIT_FIELD_I16),
    BK_FIELD(bspkit_bspx_brush, numfaces, "numfaces", BSPKIT_FIELD_U16),
};

static const bspkit_field BRUSH_PLANE_FIELDS[] = {
    BK_FIELD(bspkit_bspx_plane, normal, "normal", BSPKIT_FIELD_VEC3),
    BK_FIELD(bspkit_bspx_plane, dist, "dist", BSPKIT_FIELD_F32),
};

static bspkit_result bspx_tables(bspkit_map *map, bspkit_dump *out, bspkit_error *err)
{
    char name[sizeof out->lump];
    memcpy(name, out->lump, sizeof name);
    name[sizeof name - 1] = '\0';
    const uint8_t *data;
    size_t size;
    bspkit_result r = bspkit_bspx_lump(map, name, &data, &size, err);
    if (r != BSPKIT_OK)
        return r;
    out->raw = data;
    out->raw_size = size;
    if (strcmp(name, "DECOUPLED_LM") == 0) {
        const bspkit_bspx_decoupled_lm *d;
        size_t n;
        if ((r = bspkit_get_bspx_decoupled_lm(map, &d, &n, err)) != BSPKIT_OK)
            return r;
        bk_dump_add_table(out, "faces", DECOUPLED_FIELDS, BK_COUNT_OF(DECOUPLED_FIELDS), d, sizeof *d, n);
    } else if (strcmp(name, "BRUSHLIST") == 0) {
        const bspkit_bspx_brushlist *bl;
        if ((r = bspkit_get_bspx_brushlist(map, &bl, err)) != BSPKIT_OK)
            return r;
        bk_dump_add_table(out, "models", BRUSH_MODEL_FIELDS, BK_COUNT_OF(BRUSH_MODEL_FIELDS), bl->models,
                          sizeof *bl->models, bl->model_count);
        bk_dump_add_table(out, "brushes", BRUSH_FIELDS, BK_COUNT_OF(BRUSH_FIELDS), bl->brushes,
                          sizeof *bl->brushes, bl->brush_count);
        bk_dump_add_table(out, "planes", BRUSH_PLANE_FIELDS, BK_COUNT_OF(BRUSH_PLANE_FIELDS), bl->planes,
                          sizeof *bl->planes, bl->plane_count);
    } else {
        snprintf(out->note, sizeof out->note, "BSPX lump without a decoder: raw bytes");
    }
    return BSPKIT_OK;
}

bspkit_result bk_quake_dump_tables(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out,
                                   bspkit_error *err)
{
    if (game_id)
        return BSPKIT_ERR_NOT_FOUND;
    if (lump == -1)
        return bspx_tables(map, out, err);
    if (lump == BSPKIT_Q_TEXTURES) {
        const bspkit_miptex *mt;
        size_t n;
        bspkit_result r = bspkit_get_miptex(map, &mt, &n, err);
        if (r != BSPKIT_OK)
            return r;
        bk_dump_add_table(out, "miptex", MIPTEX, BK_COUNT_OF(MIPTEX), mt, sizeof *mt, n);
        return BSPKIT_OK;
    }
    return BSPKIT_ERR_NOT_FOUND;
}

/* A BSPX lump by name. */
bspkit_result bk_quake_dump_named(bspkit_map *map, const char *which, bspkit_dump *out, bspkit_error *err)
{
    if (strlen(which) >= sizeof out->lump)
        return BSPKIT_ERR_NOT_FOUND;
    snprintf(out->lump, sizeof out->lump, "%s", which);
    out->table_count = 0;
    return bspx_tables(map, out, err);
}

const char *bk_quake_raw_note(const bspkit_map *map, int lump)
{
    (void)map;
    switch (lump) {
    case BSPKIT_Q_VISIBILITY: return "run-length compressed PVS rows per leaf: see 'bspkit vis'";
    case BSPKIT_Q_LIGHTING: return "lightmap samples, addressed by each face's lightofs";
    default: return NULL;
    }
}
