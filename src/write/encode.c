/* Native record structs -> file bytes, per family and layout. Every encoder
 * first checks that each field fits its file field and only then writes, so
 * the same code validates records when they are set (dst == NULL) and encodes
 * them when the file is written. Layouts follow Valve's bspfile.h (Source)
 * and the id/Valve compiler headers (Quake BSP29, GoldSrc BSP30). */
#include "write/encode.h"

#include "goldsrc/records.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Field checks                                                              */
/* ------------------------------------------------------------------------ */

static const char *const REC_NAMES[BK_REC_COUNT] = {
    "plane", "vertex", "edge", "surfedge", "face", "node", "leaf", "model", "texinfo", "clipnode",
    "leaf face", "leaf brush", "brush", "brush side", "texdata", "string table entry", "area", "area portal",
    "cubemap",
};

typedef struct field_ctx {
    bk_rec kind;
    int lump;
    size_t record;
    bspkit_error *err;
} field_ctx;

static bspkit_result field_fail(const field_ctx *c, const char *field, long long value, const char *range)
{
    return bk_fail(c->err, BSPKIT_ERR_ARGUMENT, c->lump, -1, -1,
                   "lump %d: %s %zu: %s = %lld does not fit the file's %s field", c->lump, REC_NAMES[c->kind],
                   c->record, field, value, range);
}

#define NEED_U16(c, field, v)                                                                   \
    do {                                                                                        \
        long long v_ = (long long)(v);                                                          \
        if (v_ < 0 || v_ > 0xFFFF)                                                              \
            return field_fail((c), (field), v_, "unsigned 16-bit");                             \
    } while (0)

#define NEED_I16(c, field, v)                                                                   \
    do {                                                                                        \
        long long v_ = (long long)(v);                                                          \
        if (v_ < INT16_MIN || v_ > INT16_MAX)                                                   \
            return field_fail((c), (field), v_, "signed 16-bit");                               \
    } while (0)

#define NEED_RANGE(c, field, v, lo, hi, what)                                                   \
    do {                                                                                        \
        long long v_ = (long long)(v);                                                          \
        if (v_ < (lo) || v_ > (hi))                                                             \
            return field_fail((c), (field), v_, (what));                                        \
    } while (0)

/* Bounds stored as int16 round outwards (mins down, maxs up) so the stored
 * box always contains the float one (bk_bound_to_i16). */
static bspkit_result bounds_i16(const field_ctx *c, const bspkit_vec3 *mins, const bspkit_vec3 *maxs,
                                int16_t out[6])
{
    const float v[6] = {mins->x, mins->y, mins->z, maxs->x, maxs->y, maxs->z};
    for (int k = 0; k < 6; k++) {
        if (!bk_bound_to_i16(v[k], k >= 3, &out[k]))
            return bk_fail(c->err, BSPKIT_ERR_ARGUMENT, c->lump, -1, -1,
                           "lump %d: %s %zu: %s[%d] = %g does not fit the file's signed 16-bit bound", c->lump,
                           REC_NAMES[c->kind], c->record, k < 3 ? "mins" : "maxs", k % 3, (double)v[k]);
    }
    return BSPKIT_OK;
}

/* ------------------------------------------------------------------------ */
/* Byte writers                                                              */
/* ------------------------------------------------------------------------ */

static void put_i16(uint8_t *p, int32_t v, bool be) { wr_u16(p, (uint16_t)(int16_t)v, be); }
static void put_u16(uint8_t *p, uint32_t v, bool be) { wr_u16(p, (uint16_t)v, be); }
static void put_i32(uint8_t *p, int32_t v, bool be) { wr_u32(p, (uint32_t)v, be); }

static void put_vec3(uint8_t *p, const bspkit_vec3 *v, bool be)
{
    wr_f32(p, v->x, be);
    wr_f32(p + 4, v->y, be);
    wr_f32(p + 8, v->z, be);
}

static void put_short6(uint8_t *p, const int16_t s[6], bool be)
{
    for (int k = 0; k < 6; k++)
        put_i16(p + 2 * k, s[k], be);
}

/* ------------------------------------------------------------------------ */
/* Per-record encoders: check, then write when d != NULL                     */
/* ------------------------------------------------------------------------ */

static bool is_source(const bk_target *t) { return t->family == BSPKIT_FAMILY_SOURCE; }

static bspkit_result enc_plane(const bk_target *t, const field_ctx *c, const void *item, uint8_t *d)
{
    (void)c;
    const bspkit_plane *r = item;
    if (d) {
        put_vec3(d, &r->normal, t->big_endian);
        wr_f32(d + 12, r->dist, t->big_endian);
        put_i32(d + 16, r->type, t->big_endian);
    }
    return BSPKIT_OK;
}

static bspkit_result enc_vertex(const bk_target *t, const field_ctx *c, const void *item, uint8_t *d)
{
    (void)c;
    if (d)
        put_vec3(d, item, t->big_endian);
    return BSPKIT_OK;
}

static bspkit_result enc_edge(const bk_target *t, const field_ctx *c, const void *item, uint8_t *d)
{
    const bspkit_edge *r = item;
    NEED_U16(c, "v[0]", r->v[0]);
    NEED_U16(c, "v[1]", r->v[1]);
    if (d) {
        put_u16(d, r->v[0], t->big_endian);
        put_u16(d + 2, r->v[1], t->big_endian);
    }
    return BSPKIT_OK;
}

static bspkit_result enc_i32(const bk_target *t, const field_ctx *c, const void *item, uint8_t *d)
{
    (void)c;
    if (d)
        put_i32(d, *(const int32_t *)item, t->big_endian);
    return BSPKIT_OK;
}

static bspkit_result enc_u16_index(const bk_target *t, const field_ctx *c, const void *item, uint8_t *d)
{
    uint32_t v = *(const uint32_t *)item;
    NEED_U16(c, "index", v);
    if (d)
        put_u16(d, v, t->big_endian);
    return BSPKIT_OK;
}

static bspkit_result enc_face(const bk_target *t, const field_ctx *c, const void *item, uint8_t *d)
{
    const bspkit_face *r = item;
    bool be = t->big_endian;
    NEED_U16(c, "plane", r->plane);
    NEED_I16(c, "num_edges", r->num_edges);
    NEED_I16(c, "texinfo", r->texinfo);
    NEED_I16(c, "dispinfo", r->dispinfo);
    NEED_I16(c, "fog_volume", r->fog_volume);
    NEED_U16(c, "num_prims", r->num_prims);
    NEED_U16(c, "first_prim", r->first_prim);
    if (!d)
        return BSPKIT_OK;
    put_u16(d, r->plane, be);
    d[2] = r->side;
    d[3] = r->on_node;
    put_i32(d + 4, r->first_edge, be);
    put_i16(d + 8, r->num_edges, be);
    put_i16(d + 10, r->texinfo, be);
    put_i16(d + 12, r->dispinfo, be);
    put_i16(d + 14, r->fog_volume, be);
    memcpy(d + 16, r->styles, 4);
    put_i32(d + 20, r->light_offset, be);
    wr_f32(d + 24, r->area, be);
    put_i32(d + 28, r->lightmap_mins[0], be);
    put_i32(d + 32, r->lightmap_mins[1], be);
    put_i32(d + 36, r->lightmap_size[0], be);
    put_i32(d + 40, r->lightmap_size[1], be);
    put_i32(d + 44, r->orig_face, be);
    put_u16(d + 48, r->num_prims, be);
    put_u16(d + 50, r->first_prim, be);
    wr_u32(d + 52, r->smoothing_groups, be);
    return BSPKIT_OK;
}

static bspkit_result enc_node(const bk_target *t, const field_ctx *c, const void *item, uint8_t *d)
{
    const bspkit_node *r = item;
    bool be = t->big_endian;
    int16_t b[6];
    bspkit_result rc = bounds_i16(c, &r->mins, &r->maxs, b);
    if (rc != BSPKIT_OK)
        return rc;
    NEED_U16(c, "first_face", r->first_face);
    NEED_U16(c, "num_faces", r->num_faces);
    NEED_I16(c, "area", r->area);
    if (!d)
        return BSPKIT_OK;
    put_i32(d, r->plane, be);
    put_i32(d + 4, r->children[0], be);
    put_i32(d + 8, r->children[1], be);
    put_short6(d + 12, b, be);
    put_u16(d + 24, r->first_face, be);
    put_u16(d + 26, r->num_faces, be);
    put_i16(d + 28, r->area, be);
    put_i16(d + 30, 0, be);
    return BSPKIT_OK;
}

static bspkit_result enc_leaf(const bk_target *t, const field_ctx *c, const void *item, uint8_t *d)
{
    const bspkit_leaf *r = item;
    bool be = t->big_endian;
    int16_t b[6];
    bspkit_result rc = bounds_i16(c, &r->mins, &r->maxs, b);
    if (rc != BSPKIT_OK)
        return rc;
    NEED_U16(c, "first_leaf_face", r->first_leaf_face);
    NEED_U16(c, "num_leaf_faces", r->num_leaf_faces);
    NEED_I16(c, "cluster", r->cluster);
    NEED_RANGE(c, "area", r->area, 0, 511, "9-bit area");
    NEED_RANGE(c, "flags", r->flags, 0, 127, "7-bit flags");
    NEED_U16(c, "first_leaf_brush", r->first_leaf_brush);
    NEED_U16(c, "num_leaf_brushes", r->num_leaf_brushes);
    NEED_I16(c, "leaf_water", r->leaf_water);
    if (!d)
        return BSPKIT_OK;
    put_i32(d, r->contents, be);
    put_i16(d + 4, r->cluster, be);
    /* area:9 and flags:7 share one short, area in the low bits. */
    put_u16(d + 6, (uint32_t)r->area | ((uint32_t)r->flags << 9), be);
    put_short6(d + 8, b, be);
    put_u16(d + 20, r->first_leaf_face, be);
    put_u16(d + 22, r->num_leaf_faces, be);
    put_u16(d + 24, r->first_leaf_brush, be);
    put_u16(d + 26, r->num_leaf_brushes, be);
    put_i16(d + 28, r->leaf_water, be);
    if (t->lump_version == 0) {
        for (int k = 0; k < 6; k++) {
            d[30 + 4 * k] = r->ambient_cube[k].r;
            d[31 + 4 * k] = r->ambient_cube[k].g;
            d[32 + 4 * k] = r->ambient_cube[k].b;
            d[33 + 4 * k] = (uint8_t)r->ambient_cube[k].exponent;
        }
        put_i16(d + 54, 0, be);
    } else {
        put_i16(d + 30, 0, be);
    }
    return BSPKIT_OK;
}

static bspkit_result enc_model(const bk_target *t, const field_ctx *c, const void *item, uint8_t *d)
{
    (void)c;
    const bspkit_model *r = item;
    bool be = t->big_endian;
    if (!d)
        return BSPKIT_OK;
    put_vec3(d, &r->mins, be);
    put_vec3(d + 12, &r->maxs, be);
    put_vec3(d + 24, &r->origin, be);
    put_i32(d + 36, r->headnode[0], be);
    put_i32(d + 40, r->first_face, be);
    put_i32(d + 44, r->num_faces, be);
    return BSPKIT_OK;
}

static bspkit_result enc_texinfo(const bk_target *t, const field_ctx *c, const void *item, uint8_t *d)
{
    (void)c;
    const bspkit_texinfo *r = item;
    bool be = t->big_endian;
    if (!d)
        return BSPKIT_OK;
    for (int a = 0; a < 2; a++)
        for (int k = 0; k < 4; k++)
            wr_f32(d + 16 * a + 4 * k, r->texture_vecs[a][k], be);
    for (int a = 0; a < 2; a++)
        for (int k = 0; k < 4; k++)
            wr_f32(d + 32 + 16 * a + 4 * k, r->lightmap_vecs[a][k], be);
    put_i32(d + 64, r->flags, be);
    put_i32(d + 68, r->texture, be);
    return BSPKIT_OK;
}

static bspkit_result enc_brush(const bk_target *t, const field_ctx *c, const void *item, uint8_t *d)
{
    (void)c;
    const bspkit_brush *r = item;
    if (d) {
        put_i32(d, r->first_side, t->big_endian);
        put_i32(d + 4, r->num_sides, t->big_endian);
        put_i32(d + 8, r->contents, t->big_endian);
    }
    return BSPKIT_OK;
}

static bspkit_result enc_brushside(const bk_target *t, const field_ctx *c, const void *item, uint8_t *d)
{
    const bspkit_brushside *r = item;
    bool be = t->big_endian;
    NEED_U16(c, "plane", r->plane);
    NEED_I16(c, "texinfo", r->texinfo);
    NEED_I16(c, "dispinfo", r->dispinfo);
    if (!d)
        return BSPKIT_OK;
    put_u16(d, r->plane, be);
    put_i16(d + 2, r->texinfo, be);
    put_i16(d + 4, r->dispinfo, be);
    if (t->version >= 21) {
        d[6] = r->bevel;
        d[7] = r->thin;
    } else {
        put_i16(d + 6, r->bevel, be);
    }
    return BSPKIT_OK;
}

static bspkit_result enc_texdata(const bk_target *t, const field_ctx *c, const void *item, uint8_t *d)
{
    (void)c;
    const bspkit_texdata *r = item;
    bool be = t->big_endian;
    if (d) {
        put_vec3(d, &r->reflectivity, be);
        put_i32(d + 12, r->name_id, be);
        put_i32(d + 16, r->width, be);
        put_i32(d + 20, r->height, be);
        put_i32(d + 24, r->view_width, be);
        put_i32(d + 28, r->view_height, be);
    }
    return BSPKIT_OK;
}

static bspkit_result enc_area(const bk_target *t, const field_ctx *c, const void *item, uint8_t *d)
{
    (void)c;
    const bspkit_area *r = item;
    if (d) {
        put_i32(d, r->num_portals, t->big_endian);
        put_i32(d + 4, r->first_portal, t->big_endian);
    }
    return BSPKIT_OK;
}

static bspkit_result enc_areaportal(const bk_target *t, const field_ctx *c, const void *item, uint8_t *d)
{
    const bspkit_areaportal *r = item;
    bool be = t->big_endian;
    NEED_U16(c, "portal_key", r->portal_key);
    NEED_U16(c, "other_area", r->other_area);
    NEED_U16(c, "first_clip_vert", r->first_clip_vert);
    NEED_U16(c, "num_clip_verts", r->num_clip_verts);
    if (d) {
        put_u16(d, r->portal_key, be);
        put_u16(d + 2, r->other_area, be);
        put_u16(d + 4, r->first_clip_vert, be);
        put_u16(d + 6, r->num_clip_verts, be);
        put_i32(d + 8, r->plane, be);
    }
    return BSPKIT_OK;
}

/* dcubemapsample_t: int origin[3], then one unsigned byte of size and three
 * bytes of padding. */
static bspkit_result enc_cubemap(const bk_target *t, const field_ctx *c, const void *item, uint8_t *d)
{
    const bspkit_cubemap *r = item;
    NEED_RANGE(c, "size", r->size, 0, 255, "unsigned 8-bit");
    if (d) {
        for (int k = 0; k < 3; k++)
            put_i32(d + 4 * k, r->origin[k], t->big_endian);
        d[12] = (uint8_t)r->size;
        d[13] = d[14] = d[15] = 0;
    }
    return BSPKIT_OK;
}

/* ------------------------------------------------------------------------ */
/* Kind tables                                                               */
/* ------------------------------------------------------------------------ */

typedef bspkit_result (*enc_fn)(const bk_target *t, const field_ctx *c, const void *item, uint8_t *d);

typedef struct rec_info {
    size_t native_size;
    enc_fn source_encode;        /* NULL: Source lacks the kind */
    int source_lump;
    uint32_t source_size;
    const bk_schema *quake;      /* the BSP29/BSP30 layout; NULL: Quake/GoldSrc lack the kind */
    int quake_lump;
} rec_info;

#define Q(schema, lump) &(schema), (lump)
#define NO_QUAKE NULL, -1

static const rec_info RECS[BK_REC_COUNT] = {
    [BK_REC_PLANES] = {sizeof(bspkit_plane), enc_plane, BSPKIT_S_PLANES, 20, Q(bk_quake_plane, BSPKIT_Q_PLANES)},
    [BK_REC_VERTEXES] = {sizeof(bspkit_vec3), enc_vertex, BSPKIT_S_VERTEXES, 12,
                         Q(bk_quake_vertex, BSPKIT_Q_VERTEXES)},
    [BK_REC_EDGES] = {sizeof(bspkit_edge), enc_edge, BSPKIT_S_EDGES, 4, Q(bk_quake_edge29, BSPKIT_Q_EDGES)},
    [BK_REC_SURFEDGES] = {sizeof(int32_t), enc_i32, BSPKIT_S_SURFEDGES, 4,
                          Q(bk_quake_surfedge, BSPKIT_Q_SURFEDGES)},
    [BK_REC_FACES] = {sizeof(bspkit_face), enc_face, BSPKIT_S_FACES, 56, Q(bk_quake_face29, BSPKIT_Q_FACES)},
    [BK_REC_NODES] = {sizeof(bspkit_node), enc_node, BSPKIT_S_NODES, 32, Q(bk_quake_node29, BSPKIT_Q_NODES)},
    [BK_REC_LEAFS] = {sizeof(bspkit_leaf), enc_leaf, BSPKIT_S_LEAFS, 32, Q(bk_quake_leaf29, BSPKIT_Q_LEAFS)},
    [BK_REC_MODELS] = {sizeof(bspkit_model), enc_model, BSPKIT_S_MODELS, 48, Q(bk_quake_model, BSPKIT_Q_MODELS)},
    [BK_REC_TEXINFO] = {sizeof(bspkit_texinfo), enc_texinfo, BSPKIT_S_TEXINFO, 72,
                        Q(bk_quake_texinfo, BSPKIT_Q_TEXINFO)},
    [BK_REC_CLIPNODES] = {sizeof(bspkit_clipnode), NULL, -1, 0, Q(bk_quake_clipnode29, BSPKIT_Q_CLIPNODES)},
    [BK_REC_LEAF_FACES] = {sizeof(uint32_t), enc_u16_index, BSPKIT_S_LEAFFACES, 2,
                           Q(bk_quake_marksurface29, BSPKIT_Q_MARKSURFACES)},
    [BK_REC_LEAF_BRUSHES] = {sizeof(uint32_t), enc_u16_index, BSPKIT_S_LEAFBRUSHES, 2, NO_QUAKE},
    [BK_REC_BRUSHES] = {sizeof(bspkit_brush), enc_brush, BSPKIT_S_BRUSHES, 12, NO_QUAKE},
    [BK_REC_BRUSHSIDES] = {sizeof(bspkit_brushside), enc_brushside, BSPKIT_S_BRUSHSIDES, 8, NO_QUAKE},
    [BK_REC_TEXDATA] = {sizeof(bspkit_texdata), enc_texdata, BSPKIT_S_TEXDATA, 32, NO_QUAKE},
    [BK_REC_STRING_TABLE] = {sizeof(int32_t), enc_i32, BSPKIT_S_TEXDATA_STRING_TABLE, 4, NO_QUAKE},
    [BK_REC_AREAS] = {sizeof(bspkit_area), enc_area, BSPKIT_S_AREAS, 8, NO_QUAKE},
    [BK_REC_AREAPORTALS] = {sizeof(bspkit_areaportal), enc_areaportal, BSPKIT_S_AREAPORTALS, 12, NO_QUAKE},
    [BK_REC_CUBEMAPS] = {sizeof(bspkit_cubemap), enc_cubemap, BSPKIT_S_CUBEMAPS, 16, NO_QUAKE},
};

size_t bk_rec_native_size(bk_rec kind)
{
    return kind < BK_REC_COUNT ? RECS[kind].native_size : 0;
}

int bk_rec_lump(bspkit_family family, bk_rec kind)
{
    if (kind >= BK_REC_COUNT)
        return -1;
    return family == BSPKIT_FAMILY_SOURCE ? RECS[kind].source_lump : RECS[kind].quake_lump;
}

size_t bk_rec_file_size(const bk_target *t, bk_rec kind)
{
    if (kind >= BK_REC_COUNT)
        return 0;
    if (!is_source(t))
        return RECS[kind].quake ? RECS[kind].quake->record_size : 0;
    if (kind == BK_REC_LEAFS && t->lump_version == 0)
        return 56; /* dleaf_t with the inline CompressedLightCube */
    return RECS[kind].source_size;
}

bspkit_result bk_encode_records(const bk_target *t, bk_rec kind, const void *items, size_t count, uint8_t *dst,
                                int lump, bspkit_error *err)
{
    size_t rec = bk_rec_file_size(t, kind);
    if (rec == 0)
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, lump, -1, -1, "%s records do not exist in %s maps",
                       REC_NAMES[kind], bspkit_family_name(t->family));
    const uint8_t *src = items;
    size_t native = RECS[kind].native_size;
    if (!is_source(t)) {
        const bk_schema *s = RECS[kind].quake;
        bk_field_ctx c = {REC_NAMES[kind], lump, 0, err};
        for (size_t i = 0; i < count; i++) {
            c.record = i;
            bspkit_result rc = s->encode(src + i * native, dst ? dst + i * rec : NULL, t->big_endian, &c);
            if (rc != BSPKIT_OK)
                return rc;
        }
        return BSPKIT_OK;
    }
    field_ctx c = {kind, lump, 0, err};
    for (size_t i = 0; i < count; i++) {
        c.record = i;
        bspkit_result rc = RECS[kind].source_encode(t, &c, src + i * native, dst ? dst + i * rec : NULL);
        if (rc != BSPKIT_OK)
            return rc;
    }
    return BSPKIT_OK;
}

/* ------------------------------------------------------------------------ */
/* Miptex lump                                                               */
/* ------------------------------------------------------------------------ */

static size_t mip_bytes(uint32_t w, uint32_t h)
{
    size_t total = 0;
    for (int i = 0; i < 4; i++)
        total += (size_t)(w >> i) * (h >> i);
    return total;
}

static uint16_t palette_entries(const bspkit_miptex *m)
{
    return m->palette_size ? m->palette_size : 256;
}

/* Bytes one texture occupies after its directory offset. */
static size_t miptex_size(bspkit_family family, const bspkit_miptex *m)
{
    if (m->lump_offset < 0)
        return 0;
    if (!m->embedded)
        return 40;
    size_t n = 40 + mip_bytes(m->width, m->height);
    if (family == BSPKIT_FAMILY_GOLDSRC)
        n += 2 + 3 * (size_t)palette_entries(m);
    return (n + 3) & ~(size_t)3;
}

bspkit_result bk_encode_miptex(bspkit_family family, const bspkit_miptex *tex, size_t count, uint8_t **out,
                               size_t *size, bspkit_error *err)
{
    const int lump = BSPKIT_Q_TEXTURES;
    if (count > 0x7FFFFFFF / 64)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1, "too many textures: %zu", count);
    size_t total = 4 + 4 * count;
    for (size_t i = 0; i < count; i++) {
        const bspkit_miptex *m = &tex[i];
        if (m->lump_offset >= 0 && m->embedded) {
            /* The engines reject textures not 16-aligned; the bound keeps sizes sane. */
            if (m->width == 0 || m->height == 0 || m->width % 16 || m->height % 16 || m->width > 4096 ||
                m->height > 4096)
                return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1,
                               "texture %zu: embedded size %ux%u must be a multiple of 16 up to 4096", i,
                               m->width, m->height);
            for (int k = 0; k < 4; k++)
                if (!m->mips[k])
                    return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1, "texture %zu: mip level %d missing",
                                   i, k);
            if (family == BSPKIT_FAMILY_GOLDSRC && (!m->palette || palette_entries(m) > 256))
                return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1,
                               "texture %zu: GoldSrc embedded textures need a palette of at most 256 colours",
                               i);
        }
        total += miptex_size(family, m);
        if (total > 0x7FFFFFFF)
            return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1, "texture lump exceeds 2 GiB");
    }

    uint8_t *buf = calloc(1, total);
    if (!buf)
        return bk_fail(err, BSPKIT_ERR_NOMEM, lump, -1, -1, "out of memory for %zu bytes of textures", total);
    wr_le32(buf, (uint32_t)count);
    size_t pos = 4 + 4 * count;
    for (size_t i = 0; i < count; i++) {
        const bspkit_miptex *m = &tex[i];
        if (m->lump_offset < 0) {
            wr_le32(buf + 4 + 4 * i, 0xFFFFFFFFu); /* empty slot */
            continue;
        }
        wr_le32(buf + 4 + 4 * i, (uint32_t)pos);
        uint8_t *h = buf + pos;
        memcpy(h, m->name, strnlen(m->name, 16));
        wr_le32(h + 16, m->width);
        wr_le32(h + 20, m->height);
        if (m->embedded) {
            size_t at = 40;
            for (int k = 0; k < 4; k++) {
                size_t n = (size_t)(m->width >> k) * (m->height >> k);
                wr_le32(h + 24 + 4 * k, (uint32_t)at);
                memcpy(h + at, m->mips[k], n);
                at += n;
            }
            if (family == BSPKIT_FAMILY_GOLDSRC) {
                uint16_t colours = palette_entries(m);
                wr_le16(h + at, colours);
                memcpy(h + at + 2, m->palette, 3 * (size_t)colours);
            }
        }
        pos += miptex_size(family, m);
    }
    *out = buf;
    *size = total;
    return BSPKIT_OK;
}

/* ------------------------------------------------------------------------ */
/* Visibility run-length compression                                         */
/* ------------------------------------------------------------------------ */

bspkit_result bspkit_vis_compress(const uint8_t *row, size_t row_bytes, uint8_t *dst, size_t dst_size,
                                  size_t *written)
{
    if (written)
        *written = 0;
    if ((!row && row_bytes) || (!dst && dst_size))
        return BSPKIT_ERR_ARGUMENT;
    size_t out = 0;
    for (size_t j = 0; j < row_bytes; j++) {
        if (out >= dst_size)
            return BSPKIT_ERR_ARGUMENT;
        dst[out++] = row[j];
        if (row[j])
            continue;
        /* A zero byte starts a run; the count byte includes it. */
        size_t rep = 1;
        while (j + 1 < row_bytes && row[j + 1] == 0 && rep < 255) {
            rep++;
            j++;
        }
        if (out >= dst_size)
            return BSPKIT_ERR_ARGUMENT;
        dst[out++] = (uint8_t)rep;
    }
    if (written)
        *written = out;
    return BSPKIT_OK;
}
