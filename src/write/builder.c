/* The in-memory map model and its serializer. Each lump slot holds raw bytes
 * or copies of native records; encoding into the file layout happens only in
 * bspkit_builder_write(), because byte order and compression are options of
 * the output, not of the model. */
#include "bspkit/quake3.h"
#include "write/encode.h"
#include "bspkit/edit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define Q_HEADER_SIZE (4 + 8 * BSPKIT_Q_LUMP_COUNT)   /* 124 */
#define S_HEADER_SIZE (8 + 16 * BSPKIT_S_LUMP_COUNT + 4) /* 1036 */
#define MAX_FILE 0x7FFFFFFFu /* directory offsets and lengths are int32 */

typedef enum slot_kind {
    SLOT_EMPTY = 0,
    SLOT_RAW,     /* bytes written as given */
    SLOT_RECORDS, /* native records encoded at write time */
    SLOT_VIS,     /* Source visibility: compressed rows, header encoded at write time */
    SLOT_GAME     /* Source game lumps: directory encoded once the lump's offset is known */
} slot_kind;

typedef struct bk_slot {
    slot_kind kind;
    bk_rec rec;
    void *items;
    size_t count;
    uint8_t *raw;
    size_t raw_size;
    int32_t version;
    bool version_set;
} bk_slot;

/* Source visibility: `rows` {pvs, pas} offsets relative to the row data. */
typedef struct vis_store {
    uint32_t rows;
    uint32_t *rel; /* 2 * rows */
} vis_store;

typedef struct game_store {
    bspkit_game_lump_data *entries; /* data pointers into owned copies */
    size_t count;
} game_store;

struct bspkit_builder {
    bspkit_family family;
    int32_t version;
    int lump_count;
    bk_slot slots[BSPKIT_S_LUMP_COUNT];
    vis_store vis;
    game_store game;
};

/* ------------------------------------------------------------------------ */
/* Lifetime                                                                  */
/* ------------------------------------------------------------------------ */

static void game_clear(game_store *g)
{
    for (size_t i = 0; i < g->count; i++)
        free((void *)g->entries[i].data);
    free(g->entries);
    g->entries = NULL;
    g->count = 0;
}

static void slot_clear_content(bspkit_builder *b, int lump)
{
    bk_slot *s = &b->slots[lump];
    if (s->kind == SLOT_VIS) {
        free(b->vis.rel);
        b->vis.rel = NULL;
        b->vis.rows = 0;
    }
    if (s->kind == SLOT_GAME)
        game_clear(&b->game);
    free(s->items);
    free(s->raw);
    s->items = NULL;
    s->raw = NULL;
    s->count = 0;
    s->raw_size = 0;
    s->kind = SLOT_EMPTY;
}

bspkit_result bspkit_builder_new(bspkit_family family, int32_t version, bspkit_builder **out, bspkit_error *err)
{
    bk_error_clear(err);
    if (!out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "builder: NULL output pointer");
    *out = NULL;
    bool ok = (family == BSPKIT_FAMILY_QUAKE && version == 29) || (family == BSPKIT_FAMILY_GOLDSRC && version == 30) ||
              (family == BSPKIT_FAMILY_SOURCE && version >= 19 && version <= 21) ||
              (family == BSPKIT_FAMILY_QUAKE2 && version == 38) || (family == BSPKIT_FAMILY_QUAKE3 && version == 46);
    if (!ok)
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1,
                       "cannot write %s maps of version %d (supported: quake 29, goldsrc 30, source 19-21, quake2 38, "
                       "quake3 46)",
                       bspkit_family_name(family), (int)version);
    bspkit_builder *b = calloc(1, sizeof *b);
    if (!b)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    b->family = family;
    b->version = version;
    b->lump_count = family == BSPKIT_FAMILY_SOURCE   ? BSPKIT_S_LUMP_COUNT
                    : family == BSPKIT_FAMILY_QUAKE2 ? BSPKIT_Q2_LUMP_COUNT
                    : family == BSPKIT_FAMILY_QUAKE3 ? BSPKIT_Q3_LUMP_COUNT
                                                     : BSPKIT_Q_LUMP_COUNT;
    *out = b;
    return BSPKIT_OK;
}

void bspkit_builder_free(bspkit_builder *b)
{
    if (!b)
        return;
    for (int i = 0; i < b->lump_count; i++)
        slot_clear_content(b, i);
    free(b);
}

bspkit_family bspkit_builder_family(const bspkit_builder *b) { return b ? b->family : BSPKIT_FAMILY_UNKNOWN; }
int32_t bspkit_builder_version(const bspkit_builder *b) { return b ? b->version : 0; }

void bspkit_free_buffer(void *buffer) { bspkit_free(buffer); }

static bool is_source(const bspkit_builder *b) { return b->family == BSPKIT_FAMILY_SOURCE; }
static bool is_quake2(const bspkit_builder *b) { return b->family == BSPKIT_FAMILY_QUAKE2; }
static bool is_quake3(const bspkit_builder *b) { return b->family == BSPKIT_FAMILY_QUAKE3; }
/* Maps whose header starts "IBSP" and the version. */
static bool is_ibsp(const bspkit_builder *b) { return is_quake2(b) || is_quake3(b); }
/* Visibility rows per cluster with PVS and PAS offsets (Source, Quake 2). */
static bool cluster_vis(const bspkit_builder *b) { return is_source(b) || is_quake2(b); }

static bspkit_result check_lump(const bspkit_builder *b, int lump, bspkit_error *err)
{
    bk_error_clear(err);
    if (!b)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "builder: NULL builder");
    if (lump < 0 || lump >= b->lump_count)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1, "lump %d does not exist in %s maps", lump,
                       bspkit_family_name(b->family));
    return BSPKIT_OK;
}

/* The directory versions real maps carry for lumps with versioned layouts. */
static int32_t default_lump_version(const bspkit_builder *b, int lump)
{
    if (!is_source(b))
        return 0;
    switch (lump) {
    case BSPKIT_S_FACES:
    case BSPKIT_S_FACES_HDR:
    case BSPKIT_S_LIGHTING:
    case BSPKIT_S_LIGHTING_HDR: return 1;
    case BSPKIT_S_LEAFS: return b->version >= 20 ? 1 : 0;
    default: return 0;
    }
}

static int32_t lump_version(const bspkit_builder *b, int lump)
{
    const bk_slot *s = &b->slots[lump];
    return s->version_set ? s->version : default_lump_version(b, lump);
}

/* ------------------------------------------------------------------------ */
/* Setters                                                                   */
/* ------------------------------------------------------------------------ */

static bspkit_result store_raw(bspkit_builder *b, int lump, const void *data, size_t size, bspkit_error *err)
{
    uint8_t *copy = NULL;
    if (size) {
        copy = malloc(size);
        if (!copy)
            return bk_fail(err, BSPKIT_ERR_NOMEM, lump, -1, -1, "lump %d: out of memory for %zu bytes", lump, size);
        memcpy(copy, data, size);
    }
    slot_clear_content(b, lump);
    b->slots[lump].kind = size ? SLOT_RAW : SLOT_EMPTY;
    b->slots[lump].raw = copy;
    b->slots[lump].raw_size = size;
    return BSPKIT_OK;
}

bspkit_result bspkit_builder_set_lump(bspkit_builder *b, int lump, const void *data, size_t size,
                                      int32_t lump_version_value, bspkit_error *err)
{
    bspkit_result rc = check_lump(b, lump, err);
    if (rc != BSPKIT_OK)
        return rc;
    if (!data && size)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1, "lump %d: NULL data with size %zu", lump, size);
    if (size > MAX_FILE)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1, "lump %d: %zu bytes exceeds 2 GiB", lump, size);
    if (is_source(b) && lump == BSPKIT_S_GAME_LUMP)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1,
                       "GAME_LUMP holds absolute file offsets: set it with bspkit_builder_set_game_lumps");
    rc = store_raw(b, lump, data, size, err);
    if (rc != BSPKIT_OK)
        return rc;
    if (is_source(b)) {
        b->slots[lump].version = lump_version_value;
        b->slots[lump].version_set = true;
    }
    return BSPKIT_OK;
}

bspkit_result bspkit_builder_set_lump_version(bspkit_builder *b, int lump, int32_t lump_version_value,
                                              bspkit_error *err)
{
    bspkit_result rc = check_lump(b, lump, err);
    if (rc != BSPKIT_OK)
        return rc;
    if (is_source(b)) {
        b->slots[lump].version = lump_version_value;
        b->slots[lump].version_set = true;
    }
    return BSPKIT_OK;
}

bspkit_result bspkit_builder_clear_lump(bspkit_builder *b, int lump, bspkit_error *err)
{
    bspkit_result rc = check_lump(b, lump, err);
    if (rc != BSPKIT_OK)
        return rc;
    slot_clear_content(b, lump);
    b->slots[lump].version = 0;
    b->slots[lump].version_set = false;
    return BSPKIT_OK;
}

/* Copies records into `lump` after checking they fit the layout. */
static bspkit_result set_records_in(bspkit_builder *b, bk_rec kind, int lump, const void *items, size_t count,
                                    bspkit_error *err)
{
    bk_error_clear(err);
    if (!b)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "builder: NULL builder");
    if (lump < 0)
        return bk_encode_records(&(bk_target){b->family, b->version, 0, false}, kind, NULL, 0, NULL, -1, err);
    if (!items && count)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1, "lump %d: NULL records with count %zu", lump, count);
    bk_target t = {b->family, b->version, lump_version(b, lump), false};
    size_t rec = bk_rec_file_size(&t, kind);
    if (count > MAX_FILE / (rec ? rec : 1))
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1, "lump %d: %zu records exceed 2 GiB", lump, count);
    bspkit_result rc = bk_encode_records(&t, kind, items, count, NULL, lump, err);
    if (rc != BSPKIT_OK)
        return rc;
    size_t bytes = count * bk_rec_native_size(kind);
    void *copy = NULL;
    if (bytes) {
        copy = malloc(bytes);
        if (!copy)
            return bk_fail(err, BSPKIT_ERR_NOMEM, lump, -1, -1, "lump %d: out of memory", lump);
        memcpy(copy, items, bytes);
    }
    slot_clear_content(b, lump);
    bk_slot *s = &b->slots[lump];
    s->kind = count ? SLOT_RECORDS : SLOT_EMPTY;
    s->rec = kind;
    s->items = copy;
    s->count = count;
    return BSPKIT_OK;
}

static bspkit_result set_records(bspkit_builder *b, bk_rec kind, const void *items, size_t count,
                                 bspkit_error *err)
{
    return set_records_in(b, kind, b ? bk_rec_lump(b->family, kind) : -1, items, count, err);
}

bspkit_result bspkit_builder_set_planes(bspkit_builder *b, const bspkit_plane *p, size_t n, bspkit_error *err)
{
    return set_records(b, BK_REC_PLANES, p, n, err);
}

bspkit_result bspkit_builder_set_vertexes(bspkit_builder *b, const bspkit_vec3 *v, size_t n, bspkit_error *err)
{
    return set_records(b, BK_REC_VERTEXES, v, n, err);
}

bspkit_result bspkit_builder_set_edges(bspkit_builder *b, const bspkit_edge *e, size_t n, bspkit_error *err)
{
    return set_records(b, BK_REC_EDGES, e, n, err);
}

bspkit_result bspkit_builder_set_surfedges(bspkit_builder *b, const int32_t *s, size_t n, bspkit_error *err)
{
    return set_records(b, BK_REC_SURFEDGES, s, n, err);
}

bspkit_result bspkit_builder_set_faces(bspkit_builder *b, const bspkit_face *f, size_t n, bspkit_error *err)
{
    return set_records(b, BK_REC_FACES, f, n, err);
}

static bspkit_result set_source_faces(bspkit_builder *b, int lump, const bspkit_face *f, size_t n,
                                      bspkit_error *err)
{
    bk_error_clear(err);
    if (b && !is_source(b))
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1, "lump %d exists only in Source maps", lump);
    return set_records_in(b, BK_REC_FACES, lump, f, n, err);
}

bspkit_result bspkit_builder_set_orig_faces(bspkit_builder *b, const bspkit_face *f, size_t n, bspkit_error *err)
{
    return set_source_faces(b, BSPKIT_S_ORIGINALFACES, f, n, err);
}

bspkit_result bspkit_builder_set_hdr_faces(bspkit_builder *b, const bspkit_face *f, size_t n, bspkit_error *err)
{
    return set_source_faces(b, BSPKIT_S_FACES_HDR, f, n, err);
}

bspkit_result bspkit_builder_set_nodes(bspkit_builder *b, const bspkit_node *nd, size_t n, bspkit_error *err)
{
    return set_records(b, BK_REC_NODES, nd, n, err);
}

bspkit_result bspkit_builder_set_leafs(bspkit_builder *b, const bspkit_leaf *l, size_t n, bspkit_error *err)
{
    return set_records(b, BK_REC_LEAFS, l, n, err);
}

bspkit_result bspkit_builder_set_models(bspkit_builder *b, const bspkit_model *m, size_t n, bspkit_error *err)
{
    return set_records(b, BK_REC_MODELS, m, n, err);
}

bspkit_result bspkit_builder_set_texinfo(bspkit_builder *b, const bspkit_texinfo *t, size_t n, bspkit_error *err)
{
    return set_records(b, BK_REC_TEXINFO, t, n, err);
}

bspkit_result bspkit_builder_set_clipnodes(bspkit_builder *b, const bspkit_clipnode *c, size_t n,
                                           bspkit_error *err)
{
    return set_records(b, BK_REC_CLIPNODES, c, n, err);
}

bspkit_result bspkit_builder_set_leaf_faces(bspkit_builder *b, const uint32_t *f, size_t n, bspkit_error *err)
{
    return set_records(b, BK_REC_LEAF_FACES, f, n, err);
}

bspkit_result bspkit_builder_set_leaf_brushes(bspkit_builder *b, const uint32_t *br, size_t n, bspkit_error *err)
{
    return set_records(b, BK_REC_LEAF_BRUSHES, br, n, err);
}

bspkit_result bspkit_builder_set_brushes(bspkit_builder *b, const bspkit_brush *br, size_t n, bspkit_error *err)
{
    return set_records(b, BK_REC_BRUSHES, br, n, err);
}

bspkit_result bspkit_builder_set_brushsides(bspkit_builder *b, const bspkit_brushside *s, size_t n,
                                            bspkit_error *err)
{
    return set_records(b, BK_REC_BRUSHSIDES, s, n, err);
}

bspkit_result bspkit_builder_set_texdata(bspkit_builder *b, const bspkit_texdata *t, size_t n, bspkit_error *err)
{
    return set_records(b, BK_REC_TEXDATA, t, n, err);
}

bspkit_result bspkit_builder_set_texdata_string_table(bspkit_builder *b, const int32_t *o, size_t n,
                                                      bspkit_error *err)
{
    return set_records(b, BK_REC_STRING_TABLE, o, n, err);
}

bspkit_result bspkit_builder_set_areas(bspkit_builder *b, const bspkit_area *a, size_t n, bspkit_error *err)
{
    return set_records(b, BK_REC_AREAS, a, n, err);
}

bspkit_result bspkit_builder_set_areaportals(bspkit_builder *b, const bspkit_areaportal *p, size_t n,
                                             bspkit_error *err)
{
    return set_records(b, BK_REC_AREAPORTALS, p, n, err);
}

bspkit_result bspkit_builder_set_cubemaps(bspkit_builder *b, const bspkit_cubemap *c, size_t n, bspkit_error *err)
{
    return set_records(b, BK_REC_CUBEMAPS, c, n, err);
}
bspkit_result bspkit_builder_set_shaders(bspkit_builder *b, const bspkit_shader *s, size_t n, bspkit_error *err)
{
    return set_records(b, BK_REC_SHADERS, s, n, err);
}
bspkit_result bspkit_builder_set_drawverts(bspkit_builder *b, const bspkit_drawvert *v, size_t n, bspkit_error *err)
{
    return set_records(b, BK_REC_DRAWVERTS, v, n, err);
}
bspkit_result bspkit_builder_set_drawindexes(bspkit_builder *b, const int32_t *i, size_t n, bspkit_error *err)
{
    return set_records(b, BK_REC_DRAWINDEXES, i, n, err);
}
bspkit_result bspkit_builder_set_surfaces(bspkit_builder *b, const bspkit_surface *s, size_t n, bspkit_error *err)
{
    return set_records(b, BK_REC_SURFACES, s, n, err);
}
bspkit_result bspkit_builder_set_fogs(bspkit_builder *b, const bspkit_fog *f, size_t n, bspkit_error *err)
{
    return set_records(b, BK_REC_FOGS, f, n, err);
}

bspkit_result bspkit_builder_set_texdata_strings(bspkit_builder *b, const char *const *names, size_t count,
                                                 bspkit_error *err)
{
    bk_error_clear(err);
    if (!b || (!names && count))
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "texdata strings: NULL argument");
    if (!is_source(b))
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1, "texdata strings exist only in Source maps");
    size_t total = 0;
    for (size_t i = 0; i < count; i++) {
        if (!names[i])
            return bk_fail(err, BSPKIT_ERR_ARGUMENT, BSPKIT_S_TEXDATA_STRING_DATA, -1, -1,
                           "texdata string %zu is NULL", i);
        total += strlen(names[i]) + 1;
        if (total > MAX_FILE)
            return bk_fail(err, BSPKIT_ERR_ARGUMENT, BSPKIT_S_TEXDATA_STRING_DATA, -1, -1,
                           "texdata strings exceed 2 GiB");
    }
    char *data = malloc(total ? total : 1);
    int32_t *table = malloc((count ? count : 1) * sizeof *table);
    bspkit_result rc = BSPKIT_OK;
    if (!data || !table) {
        rc = bk_fail(err, BSPKIT_ERR_NOMEM, BSPKIT_S_TEXDATA_STRING_DATA, -1, -1, "out of memory");
    } else {
        size_t pos = 0;
        for (size_t i = 0; i < count; i++) {
            size_t len = strlen(names[i]) + 1;
            table[i] = (int32_t)pos;
            memcpy(data + pos, names[i], len);
            pos += len;
        }
        rc = set_records(b, BK_REC_STRING_TABLE, table, count, err);
        if (rc == BSPKIT_OK)
            rc = store_raw(b, BSPKIT_S_TEXDATA_STRING_DATA, data, total, err);
    }
    free(data);
    free(table);
    return rc;
}

bspkit_result bspkit_builder_set_entities(bspkit_builder *b, const char *text, size_t size, bspkit_error *err)
{
    bk_error_clear(err);
    if (!b || (!text && size))
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, 0, -1, -1, "entities: NULL argument");
    if (size >= MAX_FILE)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, 0, -1, -1, "entities: %zu bytes exceeds 2 GiB", size);
    bool terminated = size > 0 && text[size - 1] == '\0';
    size_t total = terminated ? size : size + 1;
    char *copy = malloc(total);
    if (!copy)
        return bk_fail(err, BSPKIT_ERR_NOMEM, 0, -1, -1, "entities: out of memory");
    if (size)
        memcpy(copy, text, size);
    copy[total - 1] = '\0';
    bspkit_result rc = store_raw(b, 0, copy, total, err);
    free(copy);
    return rc;
}

bspkit_result bspkit_builder_set_miptex(bspkit_builder *b, const bspkit_miptex *textures, size_t count,
                                        bspkit_error *err)
{
    bk_error_clear(err);
    if (!b || (!textures && count))
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "miptex: NULL argument");
    if (is_source(b) || is_ibsp(b))
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1, "miptex exist only in Quake/GoldSrc maps");
    if (count == 0)
        return store_raw(b, BSPKIT_Q_TEXTURES, NULL, 0, err);
    uint8_t *bytes = NULL;
    size_t size = 0;
    bspkit_result rc = bk_encode_miptex(b->family, textures, count, &bytes, &size, err);
    if (rc != BSPKIT_OK)
        return rc;
    /* Textures are always little-endian: the families that have them are. */
    slot_clear_content(b, BSPKIT_Q_TEXTURES);
    b->slots[BSPKIT_Q_TEXTURES].kind = SLOT_RAW;
    b->slots[BSPKIT_Q_TEXTURES].raw = bytes;
    b->slots[BSPKIT_Q_TEXTURES].raw_size = size;
    return BSPKIT_OK;
}

bspkit_result bspkit_builder_set_lighting(bspkit_builder *b, bool hdr, const void *data, size_t size,
                                          bspkit_error *err)
{
    bk_error_clear(err);
    if (!b || (!data && size))
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "lighting: NULL argument");
    if (hdr && !is_source(b))
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1, "HDR lighting exists only in Source maps");
    int lump = is_quake2(b)   ? BSPKIT_Q2_LIGHTING
               : is_quake3(b) ? BSPKIT_Q3_LIGHTMAPS
               : !is_source(b) ? BSPKIT_Q_LIGHTING
               : hdr         ? BSPKIT_S_LIGHTING_HDR
                             : BSPKIT_S_LIGHTING;
    if (size > MAX_FILE)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1, "lighting: %zu bytes exceeds 2 GiB", size);
    return store_raw(b, lump, data, size, err);
}

/* Quake 3: the cluster count, the row size, then the rows as given (no
 * compression, no PAS). */
static bspkit_result set_bitset_visibility(bspkit_builder *b, int lump, uint32_t rows, uint32_t row_bytes,
                                           const uint8_t *pvs, const uint8_t *pas, int32_t *row_offsets,
                                           bspkit_error *err)
{
    if (pas)
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, lump, -1, -1, "visibility: Quake 3 maps store no PAS rows");
    if (rows > INT32_MAX || row_bytes > INT32_MAX || row_bytes < (rows + 7) / 8 ||
        (uint64_t)rows * row_bytes + 8 > MAX_FILE)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1,
                       "visibility: %u rows of %u bytes do not hold one bit per cluster within 2 GiB", rows, row_bytes);
    size_t size = 8 + (size_t)rows * row_bytes;
    uint8_t *data = malloc(size);
    if (!data)
        return bk_fail(err, BSPKIT_ERR_NOMEM, lump, -1, -1, "visibility: out of memory");
    wr_le32(data, rows);
    wr_le32(data + 4, row_bytes);
    memcpy(data + 8, pvs, size - 8);
    if (row_offsets)
        for (uint32_t i = 0; i < rows; i++)
            row_offsets[i] = (int32_t)(8 + (size_t)i * row_bytes);
    slot_clear_content(b, lump);
    b->slots[lump].kind = SLOT_RAW;
    b->slots[lump].raw = data;
    b->slots[lump].raw_size = size;
    return BSPKIT_OK;
}

/* Appends one compressed row to a growing buffer. */
static bspkit_result append_row(uint8_t **buf, size_t *len, size_t *cap, const uint8_t *row, size_t row_bytes,
                                int lump, bspkit_error *err)
{
    size_t need = BSPKIT_VIS_COMPRESS_BOUND(row_bytes);
    if (*cap - *len < need) {
        size_t grown = *cap ? *cap : 256;
        while (grown - *len < need)
            grown *= 2;
        uint8_t *bigger = realloc(*buf, grown);
        if (!bigger)
            return bk_fail(err, BSPKIT_ERR_NOMEM, lump, -1, -1, "visibility: out of memory");
        *buf = bigger;
        *cap = grown;
    }
    size_t written = 0;
    bspkit_vis_compress(row, row_bytes, *buf + *len, *cap - *len, &written);
    *len += written;
    if (*len > MAX_FILE)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1, "visibility exceeds 2 GiB");
    return BSPKIT_OK;
}

bspkit_result bspkit_builder_set_visibility(bspkit_builder *b, uint32_t rows, uint32_t row_bytes,
                                            const uint8_t *pvs, const uint8_t *pas, int32_t *row_offsets,
                                            bspkit_error *err)
{
    bk_error_clear(err);
    if (!b)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "visibility: NULL builder");
    int lump = is_source(b)   ? BSPKIT_S_VISIBILITY
               : is_quake2(b) ? BSPKIT_Q2_VISIBILITY
               : is_quake3(b) ? BSPKIT_Q3_VISIBILITY
                              : BSPKIT_Q_VISIBILITY;
    if (rows == 0) {
        slot_clear_content(b, lump);
        return BSPKIT_OK;
    }
    if (!pvs || row_bytes == 0)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1, "visibility: %u rows need PVS data and a row size",
                       rows);
    if (is_quake3(b))
        return set_bitset_visibility(b, lump, rows, row_bytes, pvs, pas, row_offsets, err);
    if (pas && !cluster_vis(b))
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, lump, -1, -1,
                       "visibility: PAS rows exist only in Source and Quake 2 maps");
    size_t header = cluster_vis(b) ? 4 + 8 * (size_t)rows : 0;
    if ((uint64_t)rows * row_bytes > MAX_FILE || header > MAX_FILE)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1, "visibility: %u rows of %u bytes exceed 2 GiB",
                       rows, row_bytes);

    uint32_t *rel = malloc(2 * (size_t)rows * sizeof *rel);
    if (!rel)
        return bk_fail(err, BSPKIT_ERR_NOMEM, lump, -1, -1, "visibility: out of memory");
    uint8_t *data = NULL;
    size_t len = 0, cap = 0;
    bspkit_result rc = BSPKIT_OK;
    for (uint32_t i = 0; i < rows && rc == BSPKIT_OK; i++) {
        rel[2 * i] = (uint32_t)len;
        rc = append_row(&data, &len, &cap, pvs + (size_t)i * row_bytes, row_bytes, lump, err);
    }
    for (uint32_t i = 0; i < rows && rc == BSPKIT_OK; i++) {
        rel[2 * i + 1] = rel[2 * i];
        if (pas) {
            rel[2 * i + 1] = (uint32_t)len;
            rc = append_row(&data, &len, &cap, pas + (size_t)i * row_bytes, row_bytes, lump, err);
        }
    }
    if (rc == BSPKIT_OK && header + len > MAX_FILE)
        rc = bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1, "visibility exceeds 2 GiB");
    if (rc != BSPKIT_OK) {
        free(rel);
        free(data);
        return rc;
    }
    if (row_offsets)
        for (uint32_t i = 0; i < rows; i++)
            row_offsets[i] = (int32_t)(header + rel[2 * i]);

    slot_clear_content(b, lump);
    bk_slot *s = &b->slots[lump];
    s->raw = data;
    s->raw_size = len;
    if (cluster_vis(b)) {
        /* The dvis_t header holds int32s: encoded at write time in the output byte order. */
        s->kind = SLOT_VIS;
        b->vis.rows = rows;
        b->vis.rel = rel;
    } else {
        s->kind = SLOT_RAW;
        free(rel);
    }
    return BSPKIT_OK;
}

bspkit_result bspkit_builder_set_game_lumps(bspkit_builder *b, const bspkit_game_lump_data *lumps, size_t count,
                                            bspkit_error *err)
{
    bk_error_clear(err);
    if (!b || (!lumps && count))
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, BSPKIT_S_GAME_LUMP, -1, -1, "game lumps: NULL argument");
    if (!is_source(b))
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1, "game lumps exist only in Source maps");
    if (count > 0xFFFFFF)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, BSPKIT_S_GAME_LUMP, -1, -1, "game lumps: %zu entries", count);
    uint64_t total = 0;
    for (size_t i = 0; i < count; i++) {
        if (!lumps[i].data && lumps[i].size)
            return bk_fail(err, BSPKIT_ERR_ARGUMENT, BSPKIT_S_GAME_LUMP, -1, -1, "game lump %zu: NULL data", i);
        total += lumps[i].size;
        if (total > MAX_FILE)
            return bk_fail(err, BSPKIT_ERR_ARGUMENT, BSPKIT_S_GAME_LUMP, -1, -1, "game lumps exceed 2 GiB");
    }
    bspkit_game_lump_data *entries = calloc(count ? count : 1, sizeof *entries);
    if (!entries)
        return bk_fail(err, BSPKIT_ERR_NOMEM, BSPKIT_S_GAME_LUMP, -1, -1, "game lumps: out of memory");
    for (size_t i = 0; i < count; i++) {
        entries[i] = lumps[i];
        entries[i].data = NULL;
        if (lumps[i].size) {
            void *copy = malloc(lumps[i].size);
            if (!copy) {
                for (size_t k = 0; k < i; k++)
                    free((void *)entries[k].data);
                free(entries);
                return bk_fail(err, BSPKIT_ERR_NOMEM, BSPKIT_S_GAME_LUMP, -1, -1, "game lumps: out of memory");
            }
            memcpy(copy, lumps[i].data, lumps[i].size);
            entries[i].data = copy;
        }
    }
    slot_clear_content(b, BSPKIT_S_GAME_LUMP);
    b->slots[BSPKIT_S_GAME_LUMP].kind = SLOT_GAME;
    b->game.entries = entries;
    b->game.count = count;
    return BSPKIT_OK;
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                   */
/* ------------------------------------------------------------------------ */

/* Lump order of qbsp3's WriteBSPFile. */
static const int QUAKE2_ORDER[BSPKIT_Q2_LUMP_COUNT] = {
    BSPKIT_Q2_PLANES,   BSPKIT_Q2_LEAFS,      BSPKIT_Q2_VERTEXES,   BSPKIT_Q2_NODES,      BSPKIT_Q2_TEXINFO,
    BSPKIT_Q2_FACES,    BSPKIT_Q2_BRUSHES,    BSPKIT_Q2_BRUSHSIDES, BSPKIT_Q2_LEAFFACES,  BSPKIT_Q2_LEAFBRUSHES,
    BSPKIT_Q2_SURFEDGES, BSPKIT_Q2_EDGES,     BSPKIT_Q2_MODELS,     BSPKIT_Q2_AREAS,      BSPKIT_Q2_AREAPORTALS,
    BSPKIT_Q2_LIGHTING, BSPKIT_Q2_VISIBILITY, BSPKIT_Q2_ENTITIES,   BSPKIT_Q2_POP,
};

/* Lump order of q3map2's WriteIBSPFile. */
static const int QUAKE3_ORDER[BSPKIT_Q3_LUMP_COUNT] = {
    BSPKIT_Q3_SHADERS,    BSPKIT_Q3_PLANES,     BSPKIT_Q3_LEAFS,       BSPKIT_Q3_NODES,       BSPKIT_Q3_BRUSHES,
    BSPKIT_Q3_BRUSHSIDES, BSPKIT_Q3_LEAFSURFACES, BSPKIT_Q3_LEAFBRUSHES, BSPKIT_Q3_MODELS,   BSPKIT_Q3_DRAWVERTS,
    BSPKIT_Q3_SURFACES,   BSPKIT_Q3_VISIBILITY, BSPKIT_Q3_LIGHTMAPS,   BSPKIT_Q3_LIGHTGRID,   BSPKIT_Q3_ENTITIES,
    BSPKIT_Q3_FOGS,       BSPKIT_Q3_DRAWINDEXES,
};

/* Lump order of the id/Valve Quake-lineage compilers (WriteBSPFile). */
static const int QUAKE_ORDER[BSPKIT_Q_LUMP_COUNT] = {
    BSPKIT_Q_PLANES,       BSPKIT_Q_LEAFS,     BSPKIT_Q_VERTEXES, BSPKIT_Q_NODES,    BSPKIT_Q_TEXINFO,
    BSPKIT_Q_FACES,        BSPKIT_Q_CLIPNODES, BSPKIT_Q_MARKSURFACES, BSPKIT_Q_SURFEDGES, BSPKIT_Q_EDGES,
    BSPKIT_Q_MODELS,       BSPKIT_Q_LIGHTING,  BSPKIT_Q_VISIBILITY, BSPKIT_Q_ENTITIES, BSPKIT_Q_TEXTURES,
};

typedef struct out_lump {
    uint8_t *owned;       /* bytes to free after writing, or NULL */
    const uint8_t *bytes; /* stored bytes (compressed when compressed) */
    size_t size;          /* stored size */
    uint32_t fourcc;      /* uncompressed size when compressed, else 0 */
    uint32_t offset;
    bool present;         /* has a directory entry worth writing */
} out_lump;

static size_t game_lump_size(const game_store *g, bool *terminator)
{
    *terminator = false;
    size_t data = 0;
    for (size_t i = 0; i < g->count; i++) {
        data += g->entries[i].size;
        if (g->entries[i].flags & 1)
            *terminator = true;
    }
    return 4 + 16 * (g->count + (*terminator ? 1 : 0)) + data;
}

static void write_game_lump(const game_store *g, uint8_t *dst, uint32_t lump_offset, bool be)
{
    bool terminator;
    game_lump_size(g, &terminator);
    size_t entries = g->count + (terminator ? 1 : 0);
    wr_u32(dst, (uint32_t)entries, be);
    uint32_t at = lump_offset + 4 + 16 * (uint32_t)entries; /* absolute: first data byte */
    uint8_t *data = dst + 4 + 16 * entries;
    for (size_t i = 0; i < g->count; i++) {
        const bspkit_game_lump_data *e = &g->entries[i];
        uint8_t *d = dst + 4 + 16 * i;
        wr_u32(d, e->id, be);
        wr_u16(d + 4, e->flags, be);
        wr_u16(d + 6, e->version, be);
        wr_u32(d + 8, at, be);
        wr_u32(d + 12, (uint32_t)e->size, be);
        if (e->size)
            memcpy(data, e->data, e->size);
        data += e->size;
        at += (uint32_t)e->size;
    }
    if (terminator) {
        /* Readers size the last compressed game lump from this entry's offset. */
        uint8_t *d = dst + 4 + 16 * g->count;
        memset(d, 0, 16);
        wr_u32(d + 8, at, be);
    }
}

/* Encodes one slot's uncompressed bytes. Game lumps are handled at layout. */
static bspkit_result encode_slot(const bspkit_builder *b, int lump, bool be, out_lump *o, bspkit_error *err)
{
    const bk_slot *s = &b->slots[lump];
    switch (s->kind) {
    case SLOT_EMPTY:
    case SLOT_GAME:
        return BSPKIT_OK;
    case SLOT_RAW:
        o->bytes = s->raw;
        o->size = s->raw_size;
        return BSPKIT_OK;
    case SLOT_RECORDS: {
        bk_target t = {b->family, b->version, lump_version(b, lump), be};
        size_t size = s->count * bk_rec_file_size(&t, s->rec);
        uint8_t *buf = malloc(size ? size : 1);
        if (!buf)
            return bk_fail(err, BSPKIT_ERR_NOMEM, lump, -1, -1, "lump %d: out of memory", lump);
        bspkit_result rc = bk_encode_records(&t, s->rec, s->items, s->count, buf, lump, err);
        if (rc != BSPKIT_OK) {
            free(buf);
            return rc;
        }
        o->owned = buf;
        o->bytes = buf;
        o->size = size;
        return BSPKIT_OK;
    }
    case SLOT_VIS: {
        size_t header = 4 + 8 * (size_t)b->vis.rows;
        size_t size = header + s->raw_size;
        uint8_t *buf = malloc(size);
        if (!buf)
            return bk_fail(err, BSPKIT_ERR_NOMEM, lump, -1, -1, "visibility: out of memory");
        wr_u32(buf, b->vis.rows, be);
        for (size_t i = 0; i < 2 * (size_t)b->vis.rows; i++)
            wr_u32(buf + 4 + 4 * i, (uint32_t)(header + b->vis.rel[i]), be);
        memcpy(buf + header, s->raw, s->raw_size);
        o->owned = buf;
        o->bytes = buf;
        o->size = size;
        return BSPKIT_OK;
    }
    }
    return BSPKIT_OK;
}

static void free_out(out_lump *o, int n)
{
    for (int i = 0; i < n; i++)
        free(o[i].owned);
}

bspkit_result bspkit_builder_write(const bspkit_builder *b, const bspkit_write_options *opts, uint8_t **out,
                                   size_t *size, bspkit_error *err)
{
    bk_error_clear(err);
    if (!b || !out || !size)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "write: NULL argument");
    *out = NULL;
    *size = 0;
    bspkit_write_options o = {0};
    if (opts)
        o = *opts;
    if (!is_source(b) && (o.big_endian || o.compress_lzma))
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1,
                       "%s maps are always little-endian and uncompressed", bspkit_family_name(b->family));

    out_lump lumps[BSPKIT_S_LUMP_COUNT];
    memset(lumps, 0, sizeof lumps);
    bspkit_result rc = BSPKIT_OK;
    for (int i = 0; i < b->lump_count && rc == BSPKIT_OK; i++) {
        rc = encode_slot(b, i, o.big_endian, &lumps[i], err);
        lumps[i].present = lumps[i].size > 0;
    }
    if (rc == BSPKIT_OK && is_source(b)) {
        bool terminator;
        /* Every Source map carries a game-lump directory, if only an empty one. */
        lumps[BSPKIT_S_GAME_LUMP].size = game_lump_size(&b->game, &terminator);
        lumps[BSPKIT_S_GAME_LUMP].present = true;
    }
    if (rc == BSPKIT_OK && o.compress_lzma) {
        for (int i = 0; i < b->lump_count && rc == BSPKIT_OK; i++) {
            out_lump *l = &lumps[i];
            /* PAKFILE stays a plain zip and game lumps compress one by one. */
            if (i == BSPKIT_S_PAKFILE || i == BSPKIT_S_GAME_LUMP || l->size == 0)
                continue;
            uint8_t *packed = NULL;
            size_t packed_size = 0;
            rc = bk_lzma_compress(l->bytes, l->size, &packed, &packed_size, i, err);
            if (rc != BSPKIT_OK)
                break;
            l->fourcc = (uint32_t)l->size;
            free(l->owned);
            l->owned = packed;
            l->bytes = packed;
            l->size = packed_size;
        }
    }
    if (rc != BSPKIT_OK) {
        free_out(lumps, b->lump_count);
        return rc;
    }

    /* Lay the lumps out after the header. */
    int order[BSPKIT_S_LUMP_COUNT];
    int n = 0;
    if (is_source(b)) {
        for (int i = 1; i < BSPKIT_S_LUMP_COUNT; i++)
            if (i != BSPKIT_S_PAKFILE)
                order[n++] = i;
        order[n++] = BSPKIT_S_ENTITIES;
        order[n++] = BSPKIT_S_PAKFILE;
    } else if (is_quake2(b)) {
        for (int i = 0; i < BSPKIT_Q2_LUMP_COUNT; i++)
            order[n++] = QUAKE2_ORDER[i];
    } else if (is_quake3(b)) {
        for (int i = 0; i < BSPKIT_Q3_LUMP_COUNT; i++)
            order[n++] = QUAKE3_ORDER[i];
    } else {
        for (int i = 0; i < BSPKIT_Q_LUMP_COUNT; i++)
            order[n++] = QUAKE_ORDER[i];
    }
    uint64_t pos = is_source(b) ? S_HEADER_SIZE : is_ibsp(b) ? 8 + 8 * (uint64_t)b->lump_count : Q_HEADER_SIZE;
    for (int k = 0; k < n; k++) {
        out_lump *l = &lumps[order[k]];
        if (is_source(b) && l->size == 0)
            continue; /* absent Source lumps keep an all-zero entry */
        uint64_t align = (is_source(b) && order[k] == BSPKIT_S_PAKFILE) ? 2048 : 4;
        pos = (pos + align - 1) / align * align;
        l->offset = (uint32_t)pos;
        pos += l->size;
        if (pos > MAX_FILE) {
            free_out(lumps, b->lump_count);
            return bk_fail(err, BSPKIT_ERR_LIMIT, order[k], -1, -1, "the map would exceed 2 GiB");
        }
    }
    size_t total = (size_t)((pos + 3) & ~(uint64_t)3);
    uint8_t *file = calloc(1, total);
    if (!file) {
        free_out(lumps, b->lump_count);
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory for a %zu-byte map", total);
    }

    bool be = o.big_endian;
    if (is_source(b)) {
        wr_u32(file, 0x50534256u, be); /* "VBSP" little-endian, "PSBV" big-endian */
        wr_u32(file + 4, (uint32_t)b->version, be);
        for (int i = 0; i < BSPKIT_S_LUMP_COUNT; i++) {
            uint8_t *e = file + 8 + 16 * i;
            const out_lump *l = &lumps[i];
            const bk_slot *s = &b->slots[i];
            if (l->size) {
                wr_u32(e, l->offset, be);
                wr_u32(e + 4, (uint32_t)l->size, be);
            }
            if (l->size || s->version_set)
                wr_u32(e + 8, (uint32_t)lump_version(b, i), be);
            wr_u32(e + 12, l->fourcc, be);
        }
        wr_u32(file + 8 + 16 * BSPKIT_S_LUMP_COUNT, (uint32_t)o.revision, be);
    } else {
        /* Quake/GoldSrc: the version, then the directory; Quake 2 and 3: "IBSP" first. */
        size_t dir = 4;
        if (is_ibsp(b)) {
            memcpy(file, "IBSP", 4);
            dir = 8;
        }
        wr_le32(file + dir - 4, (uint32_t)b->version);
        for (int i = 0; i < b->lump_count; i++) {
            wr_le32(file + dir + 8 * i, lumps[i].offset);
            wr_le32(file + dir + 4 + 8 * i, (uint32_t)lumps[i].size);
        }
    }
    for (int i = 0; i < b->lump_count; i++) {
        const out_lump *l = &lumps[i];
        if (is_source(b) && i == BSPKIT_S_GAME_LUMP)
            write_game_lump(&b->game, file + l->offset, l->offset, be);
        else if (l->size)
            memcpy(file + l->offset, l->bytes, l->size);
    }
    free_out(lumps, b->lump_count);
    *out = file;
    *size = total;
    return BSPKIT_OK;
}

bspkit_result bspkit_builder_save(const bspkit_builder *b, const char *path, const bspkit_write_options *opts,
                                  bspkit_error *err)
{
    bk_error_clear(err);
    if (!b || !path || !*path)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "save: NULL builder or empty path");
    /* Encode first: a map that cannot be built never touches the disk. */
    uint8_t *data = NULL;
    size_t size = 0;
    bspkit_result rc = bspkit_builder_write(b, opts, &data, &size, err);
    if (rc != BSPKIT_OK)
        return rc;
    rc = bspkit_save_file(path, data, size, err);
    free(data);
    return rc;
}
