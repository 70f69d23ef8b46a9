/* The edit overlay: what replaced which lump, game-lump entries, lump files.
 * Laying the result out as a file is layout.c's job. */
#include "write/edit_state.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bspkit_result check_edit(const bspkit_edit *e, const char *fn, bspkit_error *err)
{
    if (!e)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "%s: NULL edit", fn);
    return BSPKIT_OK;
}

static bspkit_result check_lump_index(const bspkit_edit *e, int lump, bspkit_error *err)
{
    if (lump < 0 || lump >= e->map->lump_count)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "lump %d does not exist in a %s map (0..%d)", lump,
                       bspkit_family_name(e->map->format.family), e->map->lump_count - 1);
    return BSPKIT_OK;
}

static bool is_source(const bspkit_edit *e) { return e->map->format.family == BSPKIT_FAMILY_SOURCE; }

bspkit_result bspkit_edit_new(bspkit_map *map, bspkit_edit **out, bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_edit_new: NULL argument");
    *out = NULL;
    if (map->format.family == BSPKIT_FAMILY_TITANFALL ||
        (map->format.family == BSPKIT_FAMILY_SOURCE && (map->format.variant & BSPKIT_VARIANT_READ_ONLY)))
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1,
                       "%s maps are read-only: bspkit reads them but does not edit, convert or write them",
                       map->format.name);
    bspkit_edit *e = calloc(1, sizeof *e);
    if (!e)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    e->map = map;
    *out = e;
    return BSPKIT_OK;
}

void bspkit_edit_free(bspkit_edit *e)
{
    if (!e)
        return;
    for (int i = 0; i < BK_MAX_LUMPS; i++)
        free(e->lumps[i].data);
    for (size_t i = 0; i < e->game_count; i++)
        free(e->games[i].data);
    free(e->games);
    free(e);
}

bspkit_map *bspkit_edit_map(const bspkit_edit *e) { return e ? e->map : NULL; }

bspkit_result bspkit_edit_lump(bspkit_edit *e, int lump, const uint8_t **data, size_t *size, bspkit_error *err)
{
    bk_error_clear(err);
    bspkit_result r = check_edit(e, "bspkit_edit_lump", err);
    if (r == BSPKIT_OK && (!data || !size))
        r = bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_edit_lump: NULL argument");
    if (r == BSPKIT_OK)
        r = check_lump_index(e, lump, err);
    if (r != BSPKIT_OK)
        return r;
    const ed_lump *l = &e->lumps[lump];
    if (l->replaced) {
        *data = l->data;
        *size = l->size;
        return BSPKIT_OK;
    }
    return bk_lump_bytes(e->map, lump, data, size, err);
}

/* Store a copy of `data` as lump `lump`'s new contents. */
static bspkit_result replace_lump(bspkit_edit *e, int lump, const void *data, size_t size, bspkit_error *err)
{
    uint8_t *copy = NULL;
    if (size) {
        copy = malloc(size);
        if (!copy)
            return bk_fail(err, BSPKIT_ERR_NOMEM, lump, -1, -1, "%s: out of memory for %zu bytes",
                           bk_lump_name(e->map, lump), size);
        memcpy(copy, data, size);
    }
    ed_lump *l = &e->lumps[lump];
    free(l->data);
    l->data = copy;
    l->size = size;
    l->replaced = true;
    return BSPKIT_OK;
}

bspkit_result bspkit_edit_set_lump(bspkit_edit *e, int lump, const void *data, size_t size, bspkit_error *err)
{
    bk_error_clear(err);
    bspkit_result r = check_edit(e, "bspkit_edit_set_lump", err);
    if (r == BSPKIT_OK)
        r = check_lump_index(e, lump, err);
    if (r != BSPKIT_OK)
        return r;
    if (!data && size)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1, "bspkit_edit_set_lump: NULL data");
    const char *name = bk_lump_name(e->map, lump);
    if (is_source(e) && lump == BSPKIT_S_GAME_LUMP)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1,
                       "GAME_LUMP holds file offsets and cannot be replaced as bytes; set its entries instead");
    if (size > 0xFFFFFFFFu)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1, "%s: %zu bytes do not fit a 32-bit lump length",
                       name, size);
    uint32_t record = e->map->lumps[lump].layout.record_size;
    if (record && size % record)
        return bk_fail(err, BSPKIT_ERR_LUMP_SIZE, lump, -1, -1,
                       "%s: %zu bytes is not a multiple of the %u-byte record", name, size, record);
    return replace_lump(e, lump, data, size, err);
}

bspkit_result bspkit_edit_set_lump_version(bspkit_edit *e, int lump, int32_t version, bspkit_error *err)
{
    bk_error_clear(err);
    bspkit_result r = check_edit(e, "bspkit_edit_set_lump_version", err);
    if (r == BSPKIT_OK)
        r = check_lump_index(e, lump, err);
    if (r != BSPKIT_OK)
        return r;
    if (!is_source(e))
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, lump, -1, -1, "only Source lumps have versions");
    e->lumps[lump].version_set = true;
    e->lumps[lump].version = version;
    return BSPKIT_OK;
}

bool bspkit_edit_lump_changed(const bspkit_edit *e, int lump)
{
    if (!e || lump < 0 || lump >= BK_MAX_LUMPS)
        return false;
    if (e->lumps[lump].replaced || e->lumps[lump].version_set)
        return true;
    return is_source(e) && lump == BSPKIT_S_GAME_LUMP && e->games_changed;
}

bspkit_result bspkit_edit_set_entities_text(bspkit_edit *e, const char *text, size_t size, bspkit_error *err)
{
    bk_error_clear(err);
    bspkit_result r = check_edit(e, "bspkit_edit_set_entities_text", err);
    if (r != BSPKIT_OK)
        return r;
    if (!text && size)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, 0, -1, -1, "bspkit_edit_set_entities_text: NULL text");
    bspkit_entities *parsed = NULL;
    r = bspkit_entities_parse(text, size, &parsed, err);
    if (r != BSPKIT_OK) {
        if (err)
            err->lump = 0;
        return r;
    }
    bspkit_entities_free(parsed);
    bool has_nul = size && text[size - 1] == '\0';
    if (size + !has_nul > 0xFFFFFFFFu)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, 0, -1, -1, "ENTITIES: %zu bytes do not fit a lump", size);
    uint8_t *copy = malloc(size + 1);
    if (!copy)
        return bk_fail(err, BSPKIT_ERR_NOMEM, 0, -1, -1, "ENTITIES: out of memory");
    if (size)
        memcpy(copy, text, size);
    copy[size] = '\0';
    ed_lump *l = &e->lumps[0]; /* ENTITIES is lump 0 in every family */
    free(l->data);
    l->data = copy;
    l->size = size + !has_nul;
    l->replaced = true;
    return BSPKIT_OK;
}

bspkit_result bspkit_edit_set_pakfile(bspkit_edit *e, const void *zip, size_t size, bspkit_error *err)
{
    bk_error_clear(err);
    bspkit_result r = check_edit(e, "bspkit_edit_set_pakfile", err);
    if (r != BSPKIT_OK)
        return r;
    if (!is_source(e))
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1, "%s maps have no pakfile",
                       bspkit_family_name(e->map->format.family));
    return bspkit_edit_set_lump(e, BSPKIT_S_PAKFILE, zip, size, err);
}

/* ------------------------------------------------------------------------ */
/* Game lumps                                                                */
/* ------------------------------------------------------------------------ */

bspkit_result ed_load_game_lumps(bspkit_edit *e, bspkit_error *err)
{
    if (e->games_loaded)
        return BSPKIT_OK;
    const bspkit_game_lump *gl;
    size_t count;
    bspkit_result r = bspkit_get_game_lumps(e->map, &gl, &count, err);
    if (r != BSPKIT_OK)
        return r;
    if (count) {
        e->games = calloc(count, sizeof *e->games);
        if (!e->games)
            return bk_fail(err, BSPKIT_ERR_NOMEM, BSPKIT_S_GAME_LUMP, -1, -1, "GAME_LUMP: out of memory");
    }
    for (size_t i = 0; i < count; i++) {
        e->games[i].id = gl[i].id;
        e->games[i].flags = gl[i].flags;
        e->games[i].version = gl[i].version;
        e->games[i].source = i;
    }
    e->game_count = e->game_cap = count;
    e->games_loaded = true;
    return BSPKIT_OK;
}

bspkit_result ed_game_lump_bytes(bspkit_edit *e, const ed_game_lump *g, const uint8_t **data, size_t *size,
                                 bspkit_error *err)
{
    if (g->replaced || g->source == SIZE_MAX) {
        *data = g->data;
        *size = g->size;
        return BSPKIT_OK;
    }
    return bspkit_game_lump_bytes(e->map, g->source, data, size, err);
}

bspkit_result bspkit_edit_set_game_lump(bspkit_edit *e, uint32_t id, uint16_t version, const void *data, size_t size,
                                        bspkit_error *err)
{
    bk_error_clear(err);
    bspkit_result r = check_edit(e, "bspkit_edit_set_game_lump", err);
    if (r != BSPKIT_OK)
        return r;
    if (!is_source(e))
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1, "%s maps have no game lumps",
                       bspkit_family_name(e->map->format.family));
    if ((!data && size) || id == 0)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, BSPKIT_S_GAME_LUMP, -1, -1,
                       "bspkit_edit_set_game_lump: NULL data or id 0 (reserved for the terminating entry)");
    if (size > 0xFFFFFFFFu)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, BSPKIT_S_GAME_LUMP, -1, -1, "game lump: %zu bytes is too large",
                       size);
    r = ed_load_game_lumps(e, err);
    if (r != BSPKIT_OK)
        return r;
    size_t at = SIZE_MAX;
    for (size_t i = 0; i < e->game_count; i++)
        if (e->games[i].id == id) {
            at = i;
            break;
        }
    if (!data) {
        if (at == SIZE_MAX)
            return bk_fail(err, BSPKIT_ERR_NOT_FOUND, BSPKIT_S_GAME_LUMP, -1, -1, "no game lump with id %08x",
                           (unsigned)id);
        free(e->games[at].data);
        memmove(&e->games[at], &e->games[at + 1], (e->game_count - at - 1) * sizeof *e->games);
        e->game_count--;
        e->games_changed = true;
        return BSPKIT_OK;
    }
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return bk_fail(err, BSPKIT_ERR_NOMEM, BSPKIT_S_GAME_LUMP, -1, -1, "game lump: out of memory");
    if (size)
        memcpy(copy, data, size);
    if (at == SIZE_MAX) {
        /* New entries go before a terminating id-0 entry, which must stay last. */
        size_t pos = e->game_count;
        if (pos && e->games[pos - 1].id == 0)
            pos--;
        if (e->game_count == e->game_cap) {
            size_t cap = e->game_cap ? e->game_cap * 2 : 4;
            ed_game_lump *grown = realloc(e->games, cap * sizeof *grown);
            if (!grown) {
                free(copy);
                return bk_fail(err, BSPKIT_ERR_NOMEM, BSPKIT_S_GAME_LUMP, -1, -1, "game lump: out of memory");
            }
            e->games = grown;
            e->game_cap = cap;
        }
        memmove(&e->games[pos + 1], &e->games[pos], (e->game_count - pos) * sizeof *e->games);
        e->game_count++;
        e->games[pos] = (ed_game_lump){.id = id, .flags = 0, .source = SIZE_MAX};
        at = pos;
    }
    ed_game_lump *g = &e->games[at];
    free(g->data);
    g->data = copy;
    g->size = size;
    g->replaced = true;
    g->version = version;
    e->games_changed = true;
    return BSPKIT_OK;
}

/* ------------------------------------------------------------------------ */
/* Lump files                                                                */
/* ------------------------------------------------------------------------ */

#define LMP_HEADER_SIZE 20

static bspkit_result check_lmp_lump(const bspkit_edit *e, int lump, bspkit_error *err)
{
    if (!is_source(e))
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1, "lump files exist for Source maps only");
    if (lump < 0 || lump >= BSPKIT_S_LUMP_COUNT)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "lump %d does not exist (0..63)", lump);
    if (lump == BSPKIT_S_GAME_LUMP)
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, lump, -1, -1,
                       "GAME_LUMP cannot go through a lump file: its entries hold offsets into the map file");
    return BSPKIT_OK;
}

bspkit_result bspkit_lmp_make(bspkit_edit *e, int lump, uint8_t **out, size_t *size, bspkit_error *err)
{
    bk_error_clear(err);
    bspkit_result r = check_edit(e, "bspkit_lmp_make", err);
    if (r == BSPKIT_OK && (!out || !size))
        r = bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_lmp_make: NULL argument");
    if (r == BSPKIT_OK)
        r = check_lmp_lump(e, lump, err);
    if (r != BSPKIT_OK)
        return r;
    const uint8_t *data;
    size_t len;
    r = bspkit_edit_lump(e, lump, &data, &len, err);
    if (r != BSPKIT_OK)
        return r;
    uint8_t *buf = malloc(LMP_HEADER_SIZE + len);
    if (!buf)
        return bk_fail(err, BSPKIT_ERR_NOMEM, lump, -1, -1, "lump file: out of memory");
    bool be = e->map->format.big_endian;
    wr_u32(buf, LMP_HEADER_SIZE, be);
    wr_u32(buf + 4, (uint32_t)lump, be);
    wr_u32(buf + 8, (uint32_t)ed_lump_version(e, lump), be);
    wr_u32(buf + 12, (uint32_t)len, be);
    wr_u32(buf + 16, (uint32_t)e->map->format.revision, be);
    if (len)
        memcpy(buf + LMP_HEADER_SIZE, data, len);
    *out = buf;
    *size = LMP_HEADER_SIZE + len;
    return BSPKIT_OK;
}

bspkit_result bspkit_edit_apply_lmp(bspkit_edit *e, const void *data, size_t size, bspkit_lmp_header *header,
                                    bspkit_error *err)
{
    bk_error_clear(err);
    bspkit_result r = check_edit(e, "bspkit_edit_apply_lmp", err);
    if (r == BSPKIT_OK && !data && size)
        r = bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_edit_apply_lmp: NULL data");
    if (r != BSPKIT_OK)
        return r;
    if (size < LMP_HEADER_SIZE)
        return bk_fail(err, BSPKIT_ERR_TRUNCATED, -1, (int64_t)size, -1,
                       "lump file: %zu bytes cannot hold the 20-byte header", size);
    const uint8_t *p = data;
    bool be = e->map->format.big_endian;
    bspkit_lmp_header h = {
        .data_offset = rd_i32(p, be),
        .lump = rd_i32(p + 4, be),
        .version = rd_i32(p + 8, be),
        .length = rd_i32(p + 12, be),
        .revision = rd_i32(p + 16, be),
    };
    if (header)
        *header = h;
    r = check_lmp_lump(e, h.lump, err);
    if (r != BSPKIT_OK)
        return r;
    if (h.data_offset < LMP_HEADER_SIZE || h.length < 0 || !range_ok((uint32_t)h.data_offset, (uint32_t)h.length, size))
        return bk_fail(err, BSPKIT_ERR_LUMP_RANGE, h.lump, -1, 0,
                       "lump file: data at offset %d, length %d does not lie inside its %zu bytes", (int)h.data_offset,
                       (int)h.length, size);
    /* Records are checked against the layout of the map's lump version; a
     * lump file of another version brings a layout bspkit cannot check here. */
    if (h.version == e->map->lumps[h.lump].version)
        r = bspkit_edit_set_lump(e, h.lump, p + h.data_offset, (size_t)h.length, err);
    else
        r = replace_lump(e, h.lump, p + h.data_offset, (size_t)h.length, err);
    if (r != BSPKIT_OK)
        return r;
    e->lumps[h.lump].version_set = true;
    e->lumps[h.lump].version = h.version;
    return BSPKIT_OK;
}
