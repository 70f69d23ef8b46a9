/* Native record structs -> file bytes. Record arrays are encoded by their
 * layout's schema (formats/{quake,quake2,source}/records.c), whose encoder first
 * checks that each field fits its file field and only then writes, so the
 * same code validates records when they are set (dst == NULL) and encodes
 * them when the file is written. Also the Quake/GoldSrc miptex lump and the
 * visibility run-length compression. */
#include "write/encode.h"
#include "bspkit/quake3.h"

#include "formats/quake/records.h"
#include "formats/quake2/records.h"
#include "formats/quake3/records.h"
#include "formats/source/records.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Record arrays                                                             */
/* ------------------------------------------------------------------------ */

typedef struct rec_info {
    size_t native_size;
    int source_lump;        /* -1: Source lacks the kind */
    const bk_schema *quake; /* the BSP29/BSP30 layout; NULL: Quake/GoldSrc lack the kind */
    int quake_lump;
    const bk_schema *quake2; /* the IBSP 38 layout; NULL: Quake 2 lacks the kind */
    int quake2_lump;
    const bk_schema *quake3; /* the IBSP 46 layout; NULL: Quake 3 lacks the kind */
    int quake3_lump;
} rec_info;

#define Q(schema, lump) &(schema), (lump)
#define NONE NULL, -1 /* the family lacks the kind */

static const rec_info RECS[BK_REC_COUNT] = {
    [BK_REC_PLANES] = {sizeof(bspkit_plane), BSPKIT_S_PLANES, Q(bk_plane_schema, BSPKIT_Q_PLANES),
        Q(bk_plane_schema, BSPKIT_Q2_PLANES),
        Q(bk_q3_plane, BSPKIT_Q3_PLANES)},
    [BK_REC_VERTEXES] = {sizeof(bspkit_vec3), BSPKIT_S_VERTEXES, Q(bk_vertex_schema, BSPKIT_Q_VERTEXES),
        Q(bk_vertex_schema, BSPKIT_Q2_VERTEXES), NONE},
    [BK_REC_EDGES] = {sizeof(bspkit_edge), BSPKIT_S_EDGES, Q(bk_edge16_schema, BSPKIT_Q_EDGES),
        Q(bk_edge16_schema, BSPKIT_Q2_EDGES), NONE},
    [BK_REC_SURFEDGES] = {sizeof(int32_t), BSPKIT_S_SURFEDGES, Q(bk_surfedge_schema, BSPKIT_Q_SURFEDGES),
        Q(bk_surfedge_schema, BSPKIT_Q2_SURFEDGES), NONE},
    [BK_REC_FACES] = {sizeof(bspkit_face), BSPKIT_S_FACES, Q(bk_quake_face29, BSPKIT_Q_FACES),
        Q(bk_q2_face, BSPKIT_Q2_FACES), NONE},
    [BK_REC_ORIG_FACES] = {sizeof(bspkit_face), BSPKIT_S_ORIGINALFACES, NONE, NONE, NONE},
    [BK_REC_HDR_FACES] = {sizeof(bspkit_face), BSPKIT_S_FACES_HDR, NONE, NONE, NONE},
    [BK_REC_NODES] = {sizeof(bspkit_node), BSPKIT_S_NODES, Q(bk_quake_node29, BSPKIT_Q_NODES),
        Q(bk_q2_node, BSPKIT_Q2_NODES),
        Q(bk_q3_node, BSPKIT_Q3_NODES)},
    [BK_REC_LEAFS] = {sizeof(bspkit_leaf), BSPKIT_S_LEAFS, Q(bk_quake_leaf29, BSPKIT_Q_LEAFS),
        Q(bk_q2_leaf, BSPKIT_Q2_LEAFS),
        Q(bk_q3_leaf, BSPKIT_Q3_LEAFS)},
    [BK_REC_MODELS] = {sizeof(bspkit_model), BSPKIT_S_MODELS, Q(bk_quake_model, BSPKIT_Q_MODELS),
        Q(bk_model_onehead_schema, BSPKIT_Q2_MODELS),
        Q(bk_q3_model, BSPKIT_Q3_MODELS)},
    [BK_REC_TEXINFO] = {sizeof(bspkit_texinfo), BSPKIT_S_TEXINFO, Q(bk_quake_texinfo, BSPKIT_Q_TEXINFO),
        Q(bk_q2_texinfo, BSPKIT_Q2_TEXINFO), NONE},
    [BK_REC_CLIPNODES] = {sizeof(bspkit_clipnode), -1, Q(bk_quake_clipnode29, BSPKIT_Q_CLIPNODES), NONE, NONE},
    [BK_REC_LEAF_FACES] = {sizeof(uint32_t), BSPKIT_S_LEAFFACES, Q(bk_quake_marksurface29, BSPKIT_Q_MARKSURFACES),
        Q(bk_index16_schema, BSPKIT_Q2_LEAFFACES),
        Q(bk_index32_schema, BSPKIT_Q3_LEAFSURFACES)},
    [BK_REC_LEAF_BRUSHES] = {sizeof(uint32_t), BSPKIT_S_LEAFBRUSHES, NONE,
        Q(bk_index16_schema, BSPKIT_Q2_LEAFBRUSHES),
        Q(bk_index32_schema, BSPKIT_Q3_LEAFBRUSHES)},
    [BK_REC_BRUSHES] = {sizeof(bspkit_brush), BSPKIT_S_BRUSHES, NONE,
        Q(bk_brush_schema, BSPKIT_Q2_BRUSHES),
        Q(bk_q3_brush, BSPKIT_Q3_BRUSHES)},
    [BK_REC_BRUSHSIDES] = {sizeof(bspkit_brushside), BSPKIT_S_BRUSHSIDES, NONE,
        Q(bk_q2_brushside, BSPKIT_Q2_BRUSHSIDES),
        Q(bk_q3_brushside, BSPKIT_Q3_BRUSHSIDES)},
    [BK_REC_TEXDATA] = {sizeof(bspkit_texdata), BSPKIT_S_TEXDATA, NONE, NONE, NONE},
    [BK_REC_STRING_TABLE] = {sizeof(int32_t), BSPKIT_S_TEXDATA_STRING_TABLE, NONE, NONE, NONE},
    [BK_REC_AREAS] = {sizeof(bspkit_area), BSPKIT_S_AREAS, NONE,
        Q(bk_area_schema, BSPKIT_Q2_AREAS), NONE},
    [BK_REC_AREAPORTALS] = {sizeof(bspkit_areaportal), BSPKIT_S_AREAPORTALS, NONE,
        Q(bk_q2_areaportal, BSPKIT_Q2_AREAPORTALS), NONE},
    [BK_REC_CUBEMAPS] = {sizeof(bspkit_cubemap), BSPKIT_S_CUBEMAPS, NONE, NONE, NONE},
    [BK_REC_SHADERS] = {sizeof(bspkit_shader), -1, NONE, NONE, Q(bk_q3_shader, BSPKIT_Q3_SHADERS)},
    [BK_REC_DRAWVERTS] = {sizeof(bspkit_drawvert), -1, NONE, NONE, Q(bk_q3_drawvert, BSPKIT_Q3_DRAWVERTS)},
    [BK_REC_DRAWINDEXES] = {sizeof(int32_t), -1, NONE, NONE, Q(bk_q3_drawindex, BSPKIT_Q3_DRAWINDEXES)},
    [BK_REC_SURFACES] = {sizeof(bspkit_surface), -1, NONE, NONE, Q(bk_q3_surface, BSPKIT_Q3_SURFACES)},
    [BK_REC_FOGS] = {sizeof(bspkit_fog), -1, NONE, NONE, Q(bk_q3_fog, BSPKIT_Q3_FOGS)},
    [BK_REC_LIGHTGRID] = {sizeof(bspkit_lightgrid_cell), -1, NONE, NONE, Q(bk_q3_lightgrid, BSPKIT_Q3_LIGHTGRID)},
};

/* The layout `kind` is written in for the target: the builder writes the
 * standard (not Strata, not Left 4 Dead 2) Source layouts, BSP29/BSP30 and IBSP 38. */
static const bk_schema *target_schema(const bk_target *t, bk_rec kind)
{
    if (kind >= BK_REC_COUNT)
        return NULL;
    if (t->family == BSPKIT_FAMILY_QUAKE2)
        return RECS[kind].quake2;
    if (t->family == BSPKIT_FAMILY_QUAKE3)
        return RECS[kind].quake3;
    if (t->family != BSPKIT_FAMILY_SOURCE)
        return RECS[kind].quake;
    if (RECS[kind].source_lump < 0)
        return NULL;
    return bk_source_schema(t->version, 0, RECS[kind].source_lump, t->lump_version);
}

/* What a record of `kind` is called in messages: its layout's name, taken
 * from whichever family has the kind. */
static const char *kind_name(bk_rec kind)
{
    if (kind >= BK_REC_COUNT)
        return "record";
    const bk_schema *s = RECS[kind].quake    ? RECS[kind].quake
                         : RECS[kind].quake3 ? RECS[kind].quake3
                                             : bk_source_schema(20, 0, RECS[kind].source_lump, 1);
    return s ? s->name : "record";
}

size_t bk_rec_native_size(bk_rec kind)
{
    return kind < BK_REC_COUNT ? RECS[kind].native_size : 0;
}

int bk_rec_lump(bspkit_family family, bk_rec kind)
{
    if (kind >= BK_REC_COUNT)
        return -1;
    if (family == BSPKIT_FAMILY_QUAKE2)
        return RECS[kind].quake2_lump;
    if (family == BSPKIT_FAMILY_QUAKE3)
        return RECS[kind].quake3 ? RECS[kind].quake3_lump : -1;
    return family == BSPKIT_FAMILY_SOURCE ? RECS[kind].source_lump : RECS[kind].quake_lump;
}

size_t bk_rec_file_size(const bk_target *t, bk_rec kind)
{
    const bk_schema *s = target_schema(t, kind);
    return s ? s->record_size : 0;
}

bspkit_result bk_encode_records(const bk_target *t, bk_rec kind, const void *items, size_t count, uint8_t *dst,
                                int lump, bspkit_error *err)
{
    const bk_schema *s = target_schema(t, kind);
    if (!s)
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, lump, -1, -1, "%s records do not exist in %s maps",
                       kind_name(kind), bspkit_family_name(t->family));
    const uint8_t *src = items;
    bk_field_ctx c = {s->name, lump, 0, err};
    for (size_t i = 0; i < count; i++) {
        c.record = i;
        bspkit_result rc = s->encode(src + i * s->native_size, dst ? dst + i * s->record_size : NULL,
                                     t->big_endian, &c);
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
