/* Dump tables for the lumps the core reader decodes (the structs of
 * bspkit.h): record arrays take theirs from their schema (core/schema.h);
 * the texture names, the game-lump directory and the miptex directory are
 * described here. */
#include "core/schema.h"
#include "core/table.h"

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

bspkit_result bk_tables_core(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out, bspkit_error *err)
{
    if (game_id || lump < 0 || lump >= map->lump_count)
        return BSPKIT_ERR_NOT_FOUND;
    bool source = map->format.family == BSPKIT_FAMILY_SOURCE;
    const bk_layout *l = &map->lumps[lump].layout;
    if (l->decode && l->decoded >= 0 && l->schema) {
        const void *items;
        size_t n, nf;
        bspkit_result r = bk_get_array(map, (bk_decoded)l->decoded, lump, &items, &n, err);
        if (r != BSPKIT_OK)
            return r;
        const bspkit_field *fields = l->schema->dump_fields(&nf);
        bk_dump_add_table(out, "records", fields, nf, items, l->native_size, n);
        return BSPKIT_OK;
    }
    if (source && lump == BSPKIT_S_TEXDATA_STRING_DATA)
        return string_data_table(map, out, err);
    if (source && lump == BSPKIT_S_GAME_LUMP) {
        const bspkit_game_lump *gl;
        size_t n;
        bspkit_result r = bspkit_get_game_lumps(map, &gl, &n, err);
        if (r != BSPKIT_OK)
            return r;
        bk_dump_add_table(out, "directory", GAME_LUMP, BK_COUNT_OF(GAME_LUMP), gl, sizeof *gl, n);
        return BSPKIT_OK;
    }
    if (!source && lump == BSPKIT_Q_TEXTURES) {
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
