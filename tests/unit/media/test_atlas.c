/* Unit tests for the lightmap atlas. Every expectation is worked out here
 * from the map's own records: extents from the vertices and texture vectors
 * (Quake/GoldSrc) or LightmapTextureSizeInLuxels + 1 (Source), each face's
 * share of the lighting lump from the gaps between light offsets, pixels
 * from the lump bytes (and, for Source, this file's own RGBExp -> 8-bit
 * formula), padding from the edge luxels, and lightmap UVs from the
 * vertices. Hand-built Source maps in both byte orders cover bump sets,
 * style slots, overbright samples and HDR-only lighting; the Quake room
 * with a hand-appended BSPX block covers RGBLIGHTING colour and
 * DECOUPLED_LM sizes, offsets and UVs; hostile sizes must give
 * BSPKIT_ERR_LIMIT. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"
#include "bspkit/atlas.h"
#include "bspkit/bspkit.h"
#include "bspkit/lighting.h"
#include "bspkit/write.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- independent expectations ----------------------------------------- */

/* 8 bits for one ColorRGBExp32 channel: linear = c * 2^e / 255, clamped to 1, gamma 1/2.2. */
static uint8_t expect_tone(uint8_t c, int8_t e)
{
    double linear = (double)c * exp2((double)e) / 255.0;
    if (linear > 1.0)
        linear = 1.0;
    return (uint8_t)floor(pow(linear, 1.0 / 2.2) * 255.0 + 0.5);
}

/* A map's records, read once. */
typedef struct rec {
    bspkit_map *m;
    bspkit_family family;
    const bspkit_face *faces;
    size_t nfaces;
    const bspkit_texinfo *ti;
    size_t nti;
    const bspkit_vec3 *verts;
    size_t nverts;
    const bspkit_edge *edges;
    size_t nedges;
    const int32_t *se;
    size_t nse;
    const uint8_t *light;
    size_t light_size;
} rec;

static void load(rec *r, bspkit_map *m, bool hdr)
{
    memset(r, 0, sizeof *r);
    r->m = m;
    r->family = bspkit_map_format(m)->family;
    /* HDR lighting is addressed by FACES_HDR when the map has it. */
    if (hdr)
        CHECK(bspkit_get_hdr_faces(m, &r->faces, &r->nfaces, ERR));
    if (r->nfaces == 0)
        CHECK(bspkit_get_faces(m, &r->faces, &r->nfaces, ERR));
    CHECK(bspkit_get_texinfo(m, &r->ti, &r->nti, ERR));
    CHECK(bspkit_get_vertexes(m, &r->verts, &r->nverts, ERR));
    CHECK(bspkit_get_edges(m, &r->edges, &r->nedges, ERR));
    CHECK(bspkit_get_surfedges(m, &r->se, &r->nse, ERR));
    CHECK(bspkit_get_lighting(m, hdr, &r->light, &r->light_size, ERR));
}

static bspkit_vec3 vertex_of(const rec *r, const bspkit_face *f, int32_t k)
{
    int32_t s = r->se[f->first_edge + k];
    uint32_t e = (uint32_t)(s < 0 ? -s : s);
    assert_true(e < r->nedges);
    uint32_t v = s < 0 ? r->edges[e].v[1] : r->edges[e].v[0];
    assert_true(v < r->nverts);
    return r->verts[v];
}

static int count_styles(const bspkit_face *f)
{
    int n = 0;
    while (n < 4 && f->styles[n] != 255)
        n++;
    return n;
}

static int sets_of(const rec *r, const bspkit_face *f)
{
    if (r->family != BSPKIT_FAMILY_SOURCE || f->texinfo < 0)
        return 1;
    return (r->ti[f->texinfo].flags & BSPKIT_SURF_BUMPLIGHT) ? 4 : 1;
}

static int bytes_per_luxel(bspkit_family fam)
{
    return fam == BSPKIT_FAMILY_SOURCE ? 4 : (fam == BSPKIT_FAMILY_GOLDSRC ? 3 : 1);
}

/* Lightmap size in luxels, from the face's vertices (Quake/GoldSrc) or its size field (Source). */
static void expect_extents(const rec *r, const bspkit_face *f, int size[2], int mins[2])
{
    if (r->family == BSPKIT_FAMILY_SOURCE) {
        for (int a = 0; a < 2; a++) {
            size[a] = f->lightmap_size[a] + 1;
            mins[a] = f->lightmap_mins[a];
        }
        return;
    }
    const bspkit_texinfo *t = &r->ti[f->texinfo];
    for (int a = 0; a < 2; a++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int32_t k = 0; k < f->num_edges; k++) {
            bspkit_vec3 p = vertex_of(r, f, k);
            double s = p.x * (double)t->texture_vecs[a][0] + p.y * (double)t->texture_vecs[a][1] +
                       p.z * (double)t->texture_vecs[a][2] + (double)t->texture_vecs[a][3];
            lo = fmin(lo, s);
            hi = fmax(hi, s);
        }
        mins[a] = (int)floor(lo / 16.0);
        size[a] = (int)ceil(hi / 16.0) - mins[a] + 1;
    }
}

/* The lump bytes face i owns: from its offset to the start of the next lightmap
 * (Source: to the next face's per-style averages), or to the end of the lump. */
static uint64_t owned_bytes(const rec *r, size_t i)
{
    int64_t start = r->faces[i].light_offset, end = (int64_t)r->light_size;
    for (size_t j = 0; j < r->nfaces; j++) {
        int64_t o = r->faces[j].light_offset;
        if (o < 0 || o <= start || count_styles(&r->faces[j]) == 0)
            continue;
        int64_t next = o - (r->family == BSPKIT_FAMILY_SOURCE ? 4 * count_styles(&r->faces[j]) : 0);
        if (next < end)
            end = next;
    }
    return (uint64_t)(end - start);
}

/* Expected RGB of luxel (s, t) in style slot `style`, first sample set. */
static void expect_luxel(const rec *r, const bspkit_face *f, const int size[2], int style, int s, int t,
                         uint8_t out[3])
{
    uint64_t luxels = (uint64_t)size[0] * (uint64_t)size[1];
    uint64_t i = (uint64_t)t * (uint64_t)size[0] + (uint64_t)s;
    const uint8_t *p = r->light + f->light_offset;
    if (r->family == BSPKIT_FAMILY_GOLDSRC) {
        memcpy(out, p + 3 * (luxels * (uint64_t)style + i), 3);
    } else if (r->family == BSPKIT_FAMILY_QUAKE) {
        out[0] = out[1] = out[2] = p[luxels * (uint64_t)style + i];
    } else {
        const uint8_t *c = p + 4 * (luxels * (uint64_t)sets_of(r, f) * (uint64_t)style + i);
        for (int k = 0; k < 3; k++)
            out[k] = expect_tone(c[k], (int8_t)c[3]);
    }
}

/* ---- the whole-atlas check --------------------------------------------- */

/* Checks one built atlas against the records; returns the number of placed faces. */
static size_t check_atlas(const rec *r, const bspkit_lightmap_atlas *a, int style, uint32_t pad)
{
    assert_int_equal(a->rect_count, r->nfaces);
    uint32_t W = a->image.width, H = a->image.height;
    uint8_t *used = calloc((size_t)W * H, 1);
    assert_non_null(used);
    size_t placed = 0;
    for (size_t i = 0; i < r->nfaces; i++) {
        const bspkit_face *f = &r->faces[i];
        const bspkit_atlas_rect *rc = &a->rects[i];
        int32_t flags = f->texinfo >= 0 ? r->ti[f->texinfo].flags : 0;
        bool lit = f->light_offset >= 0 && count_styles(f) > style &&
                   !(flags & (r->family == BSPKIT_FAMILY_SOURCE ? BSPKIT_SURF_NOLIGHT : BSPKIT_TEX_SPECIAL));
        assert_int_equal(rc->placed, lit);
        if (!lit)
            continue;
        placed++;
        int size[2], mins[2];
        expect_extents(r, f, size, mins);
        assert_int_equal(rc->width, size[0]);
        assert_int_equal(rc->height, size[1]);
        /* luxels x styles x sets x bytes per luxel fill exactly the face's share of the lump. */
        assert_int_equal((uint64_t)size[0] * (uint64_t)size[1] * (uint64_t)count_styles(f) *
                             (uint64_t)sets_of(r, f) * (uint64_t)bytes_per_luxel(r->family),
                         owned_bytes(r, i));
        /* Inside the image with padding, and no luxel used twice. */
        assert_true(rc->x >= pad && rc->y >= pad);
        assert_true((uint64_t)rc->x + rc->width + pad <= W && (uint64_t)rc->y + rc->height + pad <= H);
        for (int64_t y = (int64_t)rc->y - pad; y < (int64_t)(rc->y + rc->height + pad); y++) {
            for (int64_t x = (int64_t)rc->x - pad; x < (int64_t)(rc->x + rc->width + pad); x++) {
                assert_int_equal(used[(size_t)y * W + (size_t)x]++, 0);
                /* Padding luxels repeat the nearest edge luxel. */
                int s = (int)(x - rc->x), t = (int)(y - rc->y);
                s = s < 0 ? 0 : (s >= size[0] ? size[0] - 1 : s);
                t = t < 0 ? 0 : (t >= size[1] ? size[1] - 1 : t);
                uint8_t want[3];
                expect_luxel(r, f, size, style, s, t, want);
                const uint8_t *px = a->image.rgba + ((size_t)y * W + (size_t)x) * 4;
                assert_memory_equal(px, want, 3);
                assert_int_equal(px[3], 255);
            }
        }
        /* Each vertex lands in its rectangle, within half a luxel. */
        for (int32_t k = 0; k < f->num_edges && r->nse; k++) {
            float uv[2];
            bspkit_vec3 p = vertex_of(r, f, k);
            assert_true(bspkit_lightmap_atlas_uv(r->m, a, i, p, uv));
            double px = (double)uv[0] * W - 0.5 - rc->x, py = (double)uv[1] * H - 0.5 - rc->y;
            assert_true(px >= -0.5 - 1e-3 && px <= size[0] - 0.5 + 1e-3);
            assert_true(py >= -0.5 - 1e-3 && py <= size[1] - 0.5 + 1e-3);
        }
    }
    free(used);
    return placed;
}

/* ---- sample maps -------------------------------------------------------- */

static void sample_atlas(bspkit_sample_kind kind, bool hdr)
{
    uint8_t *bytes;
    size_t size;
    CHECK(bspkit_sample_build(kind, &bytes, &size, ERR));
    bspkit_map *m;
    CHECK(bspkit_open_memory(bytes, size, NULL, &m, ERR));
    bool source = bspkit_map_format(m)->family == BSPKIT_FAMILY_SOURCE;
    bspkit_atlas_options o = {0};
    o.hdr = hdr;
    bspkit_lightmap_atlas a;
    CHECK(bspkit_lightmap_atlas_build(m, &o, &a, ERR));
    assert_int_equal(a.hdr, hdr && source);
    rec r;
    load(&r, m, a.hdr);
    /* Every sample face is lit. */
    assert_int_equal(check_atlas(&r, &a, 0, 1), r.nfaces);
    assert_true(a.image.width <= 4096);
    /* No style slot 1 in the samples: nothing placed, a 1x1 image. */
    bspkit_lightmap_atlas a1;
    o.style = 1;
    CHECK(bspkit_lightmap_atlas_build(m, &o, &a1, ERR));
    assert_int_equal(check_atlas(&r, &a1, 1, 1), 0);
    assert_int_equal(a1.image.width, 1);
    assert_int_equal(a1.image.height, 1);
    bspkit_lightmap_atlas_free(&a1);
    /* A narrow limit and wider padding: same faces, still no overlap. */
    bspkit_lightmap_atlas a2;
    o.style = 0;
    o.max_width = 40;
    o.padding = 3;
    CHECK(bspkit_lightmap_atlas_build(m, &o, &a2, ERR));
    assert_true(a2.image.width <= 40);
    assert_int_equal(check_atlas(&r, &a2, 0, 3), r.nfaces);
    bspkit_lightmap_atlas_free(&a2);
    /* Deterministic: the same rectangles twice. */
    bspkit_lightmap_atlas b;
    o.max_width = 0;
    o.padding = 0;
    CHECK(bspkit_lightmap_atlas_build(m, &o, &b, ERR));
    assert_int_equal(b.image.width, a.image.width);
    assert_memory_equal(b.rects, a.rects, a.rect_count * sizeof *a.rects);
    bspkit_lightmap_atlas_free(&b);
    bspkit_lightmap_atlas_free(&a);
    bspkit_close(m);
    bspkit_free_buffer(bytes);
}

static void test_goldsrc_room(void **state)
{
    (void)state;
    sample_atlas(BSPKIT_SAMPLE_GOLDSRC_ROOM, false);
    /* HDR does not exist there: the request is ignored. */
    sample_atlas(BSPKIT_SAMPLE_GOLDSRC_ROOM, true);
}

static void test_quake_room(void **state)
{
    (void)state;
    sample_atlas(BSPKIT_SAMPLE_QUAKE_ROOM, false);
}

static void test_source_room(void **state)
{
    (void)state;
    sample_atlas(BSPKIT_SAMPLE_SOURCE_ROOM, false);
    sample_atlas(BSPKIT_SAMPLE_SOURCE_ROOM, true);
}

static void test_source_room_be(void **state)
{
    (void)state;
    sample_atlas(BSPKIT_SAMPLE_SOURCE_ROOM_BE, false);
    sample_atlas(BSPKIT_SAMPLE_SOURCE_ROOM_BE, true);
}

static void test_source_room_lzma(void **state)
{
    (void)state;
    sample_atlas(BSPKIT_SAMPLE_SOURCE_ROOM_LZMA, true);
}

/* ---- hand-built Source maps -------------------------------------------- */

/* One 48x32 quad at z = 0 with lightmap s = x/16 + 0.5, t = y/16 + 0.25:
 * s spans 0.5..3.5 -> mins 0, 5 luxels; t spans 0.25..2.25 -> 4 luxels.
 * Face 0: flat, styles 0 and 3. Face 1: bump-mapped, style 0 only (4 sets).
 * Face 2: unlit. Samples vary per luxel with exponents from -8 to 5, so
 * overbright values are clamped. */
#define HB_W 5
#define HB_H 4
#define HB_LUX (HB_W * HB_H)
/* face 0: 8 bytes of averages + 2 styles; face 1: 4 bytes + 4 sets. */
#define HB_OFS0 8
#define HB_OFS1 (HB_OFS0 + 2 * HB_LUX * 4 + 4)
#define HB_SIZE (HB_OFS1 + 4 * HB_LUX * 4)

static bspkit_map *hand_source(bool be, bool hdr_only, uint8_t **bytes, uint8_t *light)
{
    bspkit_builder *b;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_SOURCE, 20, &b, ERR));
    const bspkit_vec3 v[4] = {{0, 0, 0}, {48, 0, 0}, {48, 32, 0}, {0, 32, 0}};
    const bspkit_edge e[5] = {{{0, 0}}, {{0, 1}}, {{1, 2}}, {{3, 2}}, {{3, 0}}};
    const int32_t se[4] = {1, 2, -3, 4};
    bspkit_texinfo ti[2];
    memset(ti, 0, sizeof ti);
    ti[0].lightmap_vecs[0][0] = 1.0f / 16;
    ti[0].lightmap_vecs[0][3] = 0.5f;
    ti[0].lightmap_vecs[1][1] = 1.0f / 16;
    ti[0].lightmap_vecs[1][3] = 0.25f;
    ti[1] = ti[0];
    ti[1].flags = BSPKIT_SURF_BUMPLIGHT;
    bspkit_face f[3];
    memset(f, 0, sizeof f);
    for (int i = 0; i < 3; i++) {
        f[i].num_edges = 4;
        f[i].dispinfo = -1;
        f[i].texinfo = i == 1;
        f[i].lightmap_size[0] = HB_W - 1;
        f[i].lightmap_size[1] = HB_H - 1;
        memset(f[i].styles, 255, 4);
        f[i].styles[0] = 0;
    }
    f[0].styles[1] = 3;
    f[0].light_offset = HB_OFS0;
    f[1].light_offset = HB_OFS1;
    f[2].light_offset = -1;
    for (int i = 0; i < HB_SIZE; i++)
        light[i] = (uint8_t)(i * 37 + 11);
    static const int8_t exps[] = {-8, -3, -1, 0, 1, 2, 5};
    for (int i = 3; i < HB_SIZE; i += 4)
        light[i] = (uint8_t)exps[(i / 4) % 7];
    bspkit_plane pl = {{0, 0, 1}, 0, 2};
    CHECK(bspkit_builder_set_planes(b, &pl, 1, ERR));
    CHECK(bspkit_builder_set_vertexes(b, v, 4, ERR));
    CHECK(bspkit_builder_set_edges(b, e, 5, ERR));
    CHECK(bspkit_builder_set_surfedges(b, se, 4, ERR));
    CHECK(bspkit_builder_set_texinfo(b, ti, 2, ERR));
    CHECK(bspkit_builder_set_faces(b, f, 3, ERR));
    CHECK(bspkit_builder_set_lighting(b, hdr_only, light, HB_SIZE, ERR));
    bspkit_write_options wo = {0};
    wo.big_endian = be;
    size_t size;
    CHECK(bspkit_builder_write(b, &wo, bytes, &size, ERR));
    bspkit_builder_free(b);
    bspkit_map *m;
    CHECK(bspkit_open_memory(*bytes, size, NULL, &m, ERR));
    assert_int_equal(bspkit_map_format(m)->big_endian, be);
    return m;
}

static void hand_built(bool be)
{
    uint8_t light[HB_SIZE], *bytes;
    bspkit_map *m = hand_source(be, false, &bytes, light);
    rec r;
    load(&r, m, false);
    bspkit_lightmap_atlas a;
    CHECK(bspkit_lightmap_atlas_build(m, NULL, &a, ERR));
    assert_false(a.hdr);
    assert_int_equal(check_atlas(&r, &a, 0, 1), 2);
    assert_false(a.rects[2].placed);
    /* One pixel by hand: face 1's luxel (2, 1), first set. */
    const uint8_t *c = light + HB_OFS1 + 4 * (1 * HB_W + 2);
    const uint8_t *px = a.image.rgba + (((size_t)a.rects[1].y + 1) * a.image.width + a.rects[1].x + 2) * 4;
    for (int k = 0; k < 3; k++)
        assert_int_equal(px[k], expect_tone(c[k], (int8_t)c[3]));
    /* Exact UV of corner (0, 0, 0): s = 0.5, t = 0.25 -> luxel centre offset + 0.5. */
    float uv[2];
    bspkit_vec3 o = {0, 0, 0};
    assert_true(bspkit_lightmap_atlas_uv(m, &a, 0, o, uv));
    assert_float_equal(uv[0], (a.rects[0].x + 1.0) / a.image.width, 1e-6);
    assert_float_equal(uv[1], (a.rects[0].y + 0.75) / a.image.height, 1e-6);
    assert_false(bspkit_lightmap_atlas_uv(m, &a, 2, o, uv));
    assert_false(bspkit_lightmap_atlas_uv(m, &a, 3, o, uv));
    bspkit_lightmap_atlas_free(&a);
    /* Style slot 1: only face 0, from its second block. */
    bspkit_atlas_options opt = {0};
    opt.style = 1;
    CHECK(bspkit_lightmap_atlas_build(m, &opt, &a, ERR));
    assert_int_equal(check_atlas(&r, &a, 1, 1), 1);
    assert_true(a.rects[0].placed && !a.rects[1].placed);
    bspkit_lightmap_atlas_free(&a);
    /* Explicit HDR with no HDR lighting: nothing is in range. */
    opt.style = 0;
    opt.hdr = true;
    CHECK(bspkit_lightmap_atlas_build(m, &opt, &a, ERR));
    assert_true(a.hdr);
    assert_false(a.rects[0].placed || a.rects[1].placed);
    bspkit_lightmap_atlas_free(&a);
    bspkit_close(m);
    bspkit_free_buffer(bytes);

    /* Only HDR lighting: used without being asked for. */
    m = hand_source(be, true, &bytes, light);
    load(&r, m, true);
    CHECK(bspkit_lightmap_atlas_build(m, NULL, &a, ERR));
    assert_true(a.hdr);
    assert_int_equal(check_atlas(&r, &a, 0, 1), 2);
    bspkit_lightmap_atlas_free(&a);
    bspkit_close(m);
    bspkit_free_buffer(bytes);
}

static void test_hand_built_le(void **state)
{
    (void)state;
    hand_built(false);
}

static void test_hand_built_be(void **state)
{
    (void)state;
    hand_built(true);
}

/* ---- Quake with BSPX: RGBLIGHTING colour and DECOUPLED_LM geometry ---- */

static void put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* The Quake room with a BSPX block holding one lump `name` (the block sits at
 * the 4-byte-aligned end of the file: "BSPX", count, {name[24], offset, length}). */
static bspkit_map *quake_bspx(const char *name, const uint8_t *data, size_t size, uint8_t **file)
{
    uint8_t *room;
    size_t room_size;
    CHECK(bspkit_sample_build(BSPKIT_SAMPLE_QUAKE_ROOM, &room, &room_size, ERR));
    size_t start = (room_size + 3) & ~(size_t)3, total = start + 8 + 32 + size;
    *file = calloc(1, total);
    assert_non_null(*file);
    memcpy(*file, room, room_size);
    bspkit_free_buffer(room);
    uint8_t *b = *file + start;
    memcpy(b, "BSPX", 4);
    put_le32(b + 4, 1);
    memcpy(b + 8, name, strlen(name));
    put_le32(b + 32, (uint32_t)(start + 40));
    put_le32(b + 36, (uint32_t)size);
    memcpy(b + 40, data, size);
    bspkit_map *m;
    CHECK(bspkit_open_memory(*file, total, NULL, &m, ERR));
    return m;
}

static void test_quake_rgblighting(void **state)
{
    (void)state;
    uint8_t *plain;
    size_t plain_size;
    CHECK(bspkit_sample_build(BSPKIT_SAMPLE_QUAKE_ROOM, &plain, &plain_size, ERR));
    bspkit_map *pm;
    CHECK(bspkit_open_memory(plain, plain_size, NULL, &pm, ERR));
    const uint8_t *grey;
    size_t light;
    CHECK(bspkit_get_lighting(pm, false, &grey, &light, ERR));
    uint8_t *rgb = malloc(3 * light);
    assert_non_null(rgb);
    for (size_t i = 0; i < 3 * light; i++)
        rgb[i] = (uint8_t)(i * 7 + 1);
    bspkit_close(pm);
    bspkit_free_buffer(plain);

    uint8_t *file;
    bspkit_map *m = quake_bspx("RGBLIGHTING", rgb, 3 * light, &file);
    rec r;
    load(&r, m, false);
    bspkit_lightmap_atlas a;
    CHECK(bspkit_lightmap_atlas_build(m, NULL, &a, ERR));
    size_t checked = 0;
    for (size_t i = 0; i < r.nfaces; i++) {
        const bspkit_atlas_rect *rc = &a.rects[i];
        assert_true(rc->placed);
        /* Luxel k of a face at light offset o has its colour at 3 * (o + k). */
        for (uint32_t t = 0; t < rc->height; t++)
            for (uint32_t s = 0; s < rc->width; s++, checked++) {
                const uint8_t *want = rgb + 3 * ((size_t)r.faces[i].light_offset + t * rc->width + s);
                const uint8_t *px = a.image.rgba + (((size_t)rc->y + t) * a.image.width + rc->x + s) * 4;
                assert_memory_equal(px, want, 3);
            }
    }
    assert_true(checked > 0);
    bspkit_lightmap_atlas_free(&a);
    bspkit_close(m);
    free(file);
    free(rgb);
}

static void put_lef(uint8_t *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put_le32(p, u);
}

static void test_quake_decoupled(void **state)
{
    (void)state;
    uint8_t *plain;
    size_t plain_size, nfaces;
    CHECK(bspkit_sample_build(BSPKIT_SAMPLE_QUAKE_ROOM, &plain, &plain_size, ERR));
    bspkit_map *pm;
    CHECK(bspkit_open_memory(plain, plain_size, NULL, &pm, ERR));
    const bspkit_face *pf;
    CHECK(bspkit_get_faces(pm, &pf, &nfaces, ERR));
    bspkit_close(pm);
    bspkit_free_buffer(plain);
    /* Every face: a 3x2 lightmap at offset 6 * i, s = x / 8 + 1, t = y / 8 + 2; face 1 unlit. */
    uint8_t *dlm = calloc(nfaces, 40);
    assert_non_null(dlm);
    for (size_t i = 0; i < nfaces; i++) {
        uint8_t *p = dlm + 40 * i;
        p[0] = 3;
        p[2] = 2;
        put_le32(p + 4, i == 1 ? UINT32_MAX : (uint32_t)(6 * i));
        put_lef(p + 8, 0.125f);
        put_lef(p + 20, 1.0f);
        put_lef(p + 28, 0.125f);
        put_lef(p + 36, 2.0f);
    }
    uint8_t *file;
    bspkit_map *m = quake_bspx("DECOUPLED_LM", dlm, 40 * nfaces, &file);
    free(dlm);
    const uint8_t *light;
    size_t light_size;
    CHECK(bspkit_get_lighting(m, false, &light, &light_size, ERR));
    bspkit_lightmap_atlas a;
    CHECK(bspkit_lightmap_atlas_build(m, NULL, &a, ERR));
    assert_int_equal(a.rect_count, nfaces);
    assert_false(a.rects[1].placed);
    for (size_t i = 0; i < nfaces; i++) {
        if (i == 1)
            continue;
        const bspkit_atlas_rect *rc = &a.rects[i];
        assert_true(rc->placed);
        assert_int_equal(rc->width, 3);
        assert_int_equal(rc->height, 2);
        /* Grey bytes from the decoupled offset. */
        const uint8_t *px = a.image.rgba + (((size_t)rc->y + 1) * a.image.width + rc->x + 2) * 4;
        assert_int_equal(px[0], light[6 * i + 1 * 3 + 2]);
        assert_int_equal(px[2], px[0]);
        /* (16, -8, 5): s = 16/8 + 1 = 3, t = -8/8 + 2 = 1. */
        bspkit_vec3 p = {16, -8, 5};
        float uv[2];
        assert_true(bspkit_lightmap_atlas_uv(m, &a, i, p, uv));
        assert_float_equal(uv[0], (rc->x + 3.5) / a.image.width, 1e-6);
        assert_float_equal(uv[1], (rc->y + 1.5) / a.image.height, 1e-6);
    }
    bspkit_lightmap_atlas_free(&a);
    bspkit_close(m);
    free(file);
}

/* ---- limits and arguments ---------------------------------------------- */

static void test_arguments(void **state)
{
    (void)state;
    uint8_t light[HB_SIZE], *bytes;
    bspkit_map *m = hand_source(false, false, &bytes, light);
    bspkit_lightmap_atlas a;
    bspkit_atlas_options o = {0};
    o.style = 4;
    assert_int_equal(bspkit_lightmap_atlas_build(m, &o, &a, ERR), BSPKIT_ERR_ARGUMENT);
    o.style = 0;
    o.padding = 65;
    assert_int_equal(bspkit_lightmap_atlas_build(m, &o, &a, ERR), BSPKIT_ERR_ARGUMENT);
    o.padding = 0;
    o.max_width = 32769;
    assert_int_equal(bspkit_lightmap_atlas_build(m, &o, &a, ERR), BSPKIT_ERR_ARGUMENT);
    /* A 5-luxel face with 1 luxel of padding needs 7. */
    o.max_width = 6;
    assert_int_equal(bspkit_lightmap_atlas_build(m, &o, &a, ERR), BSPKIT_ERR_LIMIT);
    assert_non_null(strstr(g_err.message, "face 0"));
    assert_null(a.rects);
    o.max_width = 7;
    CHECK(bspkit_lightmap_atlas_build(m, &o, &a, ERR));
    assert_int_equal(a.image.width, 7);
    bspkit_lightmap_atlas_free(&a);
    bspkit_lightmap_atlas_free(&a); /* safe twice */
    assert_int_equal(bspkit_lightmap_atlas_build(NULL, NULL, &a, ERR), BSPKIT_ERR_ARGUMENT);
    bspkit_close(m);
    bspkit_free_buffer(bytes);
}

/* `faces` faces sharing one 256x256 lightmap: each is in range on its own.
 * `filler` bytes of an unread lump make the file (and so its atlas limit) larger. */
static bspkit_map *shared_lightmap(int faces, size_t filler, uint8_t **bytes)
{
    enum { SIDE = 256 };
    bspkit_builder *b;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_SOURCE, 20, &b, ERR));
    bspkit_texinfo ti;
    memset(&ti, 0, sizeof ti);
    bspkit_face *f = calloc((size_t)faces, sizeof *f);
    uint8_t *light = calloc(4 + SIDE * SIDE * 4, 1);
    assert_non_null(f);
    assert_non_null(light);
    for (int i = 0; i < faces; i++) {
        f[i].dispinfo = -1;
        memset(f[i].styles, 255, 4);
        f[i].styles[0] = 0;
        f[i].light_offset = 4;
        f[i].lightmap_size[0] = f[i].lightmap_size[1] = SIDE - 1;
    }
    CHECK(bspkit_builder_set_texinfo(b, &ti, 1, ERR));
    CHECK(bspkit_builder_set_faces(b, f, (size_t)faces, ERR));
    CHECK(bspkit_builder_set_lighting(b, false, light, 4 + SIDE * SIDE * 4, ERR));
    uint8_t *zeros = calloc(filler ? filler : 1, 1);
    assert_non_null(zeros);
    if (filler)
        CHECK(bspkit_builder_set_lump(b, BSPKIT_S_PAKFILE, zeros, filler, 0, ERR));
    free(zeros);
    size_t size;
    bspkit_write_options wo = {0};
    CHECK(bspkit_builder_write(b, &wo, bytes, &size, ERR));
    bspkit_builder_free(b);
    free(f);
    free(light);
    bspkit_map *m;
    CHECK(bspkit_open_memory(*bytes, size, NULL, &m, ERR));
    return m;
}

/* Together the faces would need more than BSPKIT_ATLAS_MAX_PIXELS: refused before any image is made. */
static void test_hostile_total(void **state)
{
    (void)state;
    /* (256 + 2)^2 * 1100 = 73 million padded luxels > 2^26. */
    assert_true((uint64_t)258 * 258 * 1100 > BSPKIT_ATLAS_MAX_PIXELS);
    uint8_t *bytes;
    bspkit_map *m = shared_lightmap(1100, 0, &bytes);
    bspkit_lightmap_atlas a;
    assert_int_equal(bspkit_lightmap_atlas_build(m, NULL, &a, ERR), BSPKIT_ERR_LIMIT);
    assert_int_equal(g_err.lump, BSPKIT_S_LIGHTING);
    assert_null(a.image.rgba);
    bspkit_close(m);
    bspkit_free_buffer(bytes);
}

/* Few enough pixels, but at one face per row the atlas would be taller than 32768. */
static void test_hostile_height(void **state)
{
    (void)state;
    /* 140 * 258^2 = 9.3 million pixels, but in an atlas 300 wide one face per row: 140 * 258 = 36120 rows. */
    assert_true((uint64_t)258 * 258 * 140 < BSPKIT_ATLAS_MAX_PIXELS);
    uint8_t *bytes;
    bspkit_map *m = shared_lightmap(140, 0, &bytes);
    bspkit_lightmap_atlas a;
    /* In a file of about 270 KB the limit is 2^22 + 8 * size, about 6.3 million pixels: refused. */
    assert_int_equal(bspkit_lightmap_atlas_build(m, NULL, &a, ERR), BSPKIT_ERR_LIMIT);
    assert_non_null(strstr(g_err.message, "pixels"));
    assert_null(a.image.rgba);
    bspkit_close(m);
    bspkit_free_buffer(bytes);
    /* With 1 MiB more file the same faces fit the limit. */
    m = shared_lightmap(140, 1u << 20, &bytes);
    bspkit_atlas_options o = {0};
    o.max_width = 300;
    assert_int_equal(bspkit_lightmap_atlas_build(m, &o, &a, ERR), BSPKIT_ERR_LIMIT);
    assert_non_null(strstr(g_err.message, "300x36120"));
    /* The default width fits them: about sqrt(140) = 12 faces per row. */
    CHECK(bspkit_lightmap_atlas_build(m, NULL, &a, ERR));
    assert_true(a.image.height < 32768);
    size_t placed = 0;
    for (size_t i = 0; i < a.rect_count; i++)
        placed += a.rects[i].placed;
    assert_int_equal(placed, 140);
    bspkit_lightmap_atlas_free(&a);
    bspkit_close(m);
    bspkit_free_buffer(bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_goldsrc_room),   cmocka_unit_test(test_quake_room),
        cmocka_unit_test(test_source_room),    cmocka_unit_test(test_source_room_be),
        cmocka_unit_test(test_source_room_lzma), cmocka_unit_test(test_hand_built_le),
        cmocka_unit_test(test_hand_built_be),  cmocka_unit_test(test_arguments),
        cmocka_unit_test(test_hostile_total),  cmocka_unit_test(test_hostile_height),
        cmocka_unit_test(test_quake_rgblighting), cmocka_unit_test(test_quake_decoupled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
