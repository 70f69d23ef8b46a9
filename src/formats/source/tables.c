/* The Source family's dump tables: its providers in order, the texture
 * names behind TEXDATA_STRING_DATA, the game-lump directory, game lumps
 * named by id, and why other lumps are shown raw. */
#include "core/family.h"
#include "core/table.h"
#include "formats/source/family.h"

#include <stdio.h>
#include <string.h>

#define F(type, member, name, ftype) BK_FIELD(type, member, name, ftype)

static const bspkit_field GAME_LUMP[] = {
    F(bspkit_game_lump, id, "id", BSPKIT_FIELD_FOURCC),
    F(bspkit_game_lump, flags, "flags", BSPKIT_FIELD_U16),
    F(bspkit_game_lump, version, "version", BSPKIT_FIELD_U16),
    F(bspkit_game_lump, offset, "fileofs", BSPKIT_FIELD_U32),
    F(bspkit_game_lump, length, "filelen", BSPKIT_FIELD_U32),
    F(bspkit_game_lump, uncompressed_length, "uncompressed_length", BSPKIT_FIELD_U32),
};

/* TEXDATA_STRING_DATA as the names the string table points at. */
typedef struct texture_name {
    int32_t offset;
    const char *name;
} texture_name;
static const bspkit_field TEXTURE_NAME[] = {
    F(texture_name, offset, "offset", BSPKIT_FIELD_I32),
    F(texture_name, name, "name", BSPKIT_FIELD_STRING),
};

/* Built once per map: a dump of the lump can be asked for any number of times. */
static bspkit_result build_texture_names(bspkit_map *map, const void **value, bspkit_error *err)
{
    const bspkit_texdata *td;
    size_t ntd;
    bspkit_result r = bspkit_get_texdata(map, &td, &ntd, err);
    if (r != BSPKIT_OK)
        return r;
    const int32_t *table;
    size_t ntable;
    r = bspkit_get_texdata_string_table(map, &table, &ntable, err);
    if (r != BSPKIT_OK)
        return r;
    bk_array_value *v = bk_keep_alloc(map, 1, sizeof *v, BSPKIT_S_TEXDATA_STRING_DATA, err);
    texture_name *names = v ? bk_keep_alloc(map, ntd, sizeof *names, BSPKIT_S_TEXDATA_STRING_DATA, err) : NULL;
    if (!names)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    for (size_t i = 0; i < ntd; i++) {
        int32_t id = td[i].name_id;
        names[i].offset = id >= 0 && (size_t)id < ntable ? table[id] : -1;
        names[i].name = bspkit_texdata_name(map, i);
    }
    v->items = names;
    v->count = ntd;
    *value = v;
    return BSPKIT_OK;
}

static bspkit_result string_data_table(bspkit_map *map, bspkit_dump *out, bspkit_error *err)
{
    const void *value;
    bspkit_result r = bk_extra_get(map, EX_TEXDATA_NAMES, build_texture_names, &value, err);
    if (r != BSPKIT_OK)
        return r;
    const bk_array_value *v = value;
    bk_dump_add_table(out, "texdata_names", TEXTURE_NAME, BK_COUNT_OF(TEXTURE_NAME), v->items, sizeof(texture_name),
                      v->count);
    return BSPKIT_OK;
}

/* TEXDATA_STRING_DATA and the GAME_LUMP directory. */
static bspkit_result tables_directories(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out,
                                        bspkit_error *err)
{
    if (game_id || lump < 0)
        return BSPKIT_ERR_NOT_FOUND;
    if (lump == BSPKIT_S_TEXDATA_STRING_DATA)
        return string_data_table(map, out, err);
    if (lump == BSPKIT_S_GAME_LUMP) {
        const bspkit_game_lump *gl;
        size_t n;
        bspkit_result r = bspkit_get_game_lumps(map, &gl, &n, err);
        if (r != BSPKIT_OK)
            return r;
        bk_dump_add_table(out, "directory", GAME_LUMP, BK_COUNT_OF(GAME_LUMP), gl, sizeof *gl, n);
        return BSPKIT_OK;
    }
    return BSPKIT_ERR_NOT_FOUND;
}

static const bk_tables_fn PROVIDERS[] = {
    tables_directories, bk_tables_disp, bk_tables_props, bk_tables_lighting, bk_tables_source,
};

bspkit_result bk_source_dump_tables(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out,
                                    bspkit_error *err)
{
    return bk_tables_first(PROVIDERS, BK_COUNT_OF(PROVIDERS), map, lump, game_id, out, err);
}

/* A game lump by its four-character id. */
bspkit_result bk_source_dump_named(bspkit_map *map, const char *which, bspkit_dump *out, bspkit_error *err)
{
    if (strlen(which) != 4)
        return BSPKIT_ERR_NOT_FOUND;
    const bspkit_game_lump *gl;
    size_t n;
    bspkit_result r = bspkit_get_game_lumps(map, &gl, &n, err);
    if (r != BSPKIT_OK)
        return r;
    uint32_t id = rd_be32((const uint8_t *)which); /* first character in the high byte */
    for (size_t i = 0; i < n; i++) {
        if (gl[i].id != id)
            continue;
        out->lump_index = BSPKIT_S_GAME_LUMP;
        out->version = gl[i].version;
        snprintf(out->lump, sizeof out->lump, "%s", which);
        r = bspkit_game_lump_bytes(map, i, &out->raw, &out->raw_size, err);
        if (r != BSPKIT_OK)
            return r;
        return bk_dump_ask(map, -1, id, out, err);
    }
    return BSPKIT_ERR_NOT_FOUND;
}

const char *bk_source_raw_note(const bspkit_map *map, int lump)
{
    (void)map;
    switch (lump) {
    case BSPKIT_S_VISIBILITY: return "run-length compressed PVS/PAS rows per cluster: see 'bspkit vis'";
    case BSPKIT_S_LIGHTING:
    case BSPKIT_S_LIGHTING_HDR: return "ColorRGBExp32 lightmap samples, addressed by each face's lightofs";
    case BSPKIT_S_PAKFILE: return "a zip archive: see 'bspkit pak'";
    case BSPKIT_S_TEXDATA_STRING_DATA: return "NUL-terminated texture names";
    default: return NULL;
    }
}
