/* Unit tests for lighting: face lightmap geometry (extents worked out by
 * hand here, sample maps checked for tiling), Source world lights and leaf
 * ambient samples encoded byte by byte in both byte orders, and the dump
 * tables of those lumps. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"
#include "bspkit/bspkit.h"
#include "bspkit/lighting.h"
#include "bspkit/write.h"
#include "core/table.h"
#include "formats/source/family.h"

#include <stdlib.h>
#include <string.h>

/* ---- byte encoding in either order ----------------------------------- */

typedef struct enc {
    uint8_t buf[1024];
    size_t n;
    bool be;
} enc;

static void put32(enc *e, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        e->buf[e->n + (size_t)i] = (uint8_t)(e->be ? v >> (24 - 8 * i) : v >> (8 * i));
    e->n += 4;
}

static void putf(enc *e, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put32(e, u);
}

static void put16(enc *e, uint16_t v)
{
    e->buf[e->n++] = (uint8_t)(e->be ? v >> 8 : v);
    e->buf[e->n++] = (uint8_t)(e->be ? v : v >> 8);
}

static void put8(enc *e, uint8_t v) { e->buf[e->n++] = v; }

static bspkit_map *open_built(bspkit_builder *b, bool be, uint8_t **bytes)
{
    bspkit_write_options wo = {0};
    wo.big_endian = be;
    size_t size;
    CHECK(bspkit_builder_write(b, &wo, bytes, &size, ERR));
    bspkit_map *m = NULL;
    CHECK(bspkit_open_memory(*bytes, size, NULL, &m, ERR));
    return m;
}

/* ---- Quake/GoldSrc extents by hand ----------------------------------- */

/* One quad (0,0,0) (40,0,0) (40,20,0) (0,20,0) with s = x + 8, t = y - 3:
 * s spans 8..48 -> luxels floor(8/16)=0 .. ceil(48/16)=3 -> 4 wide;
 * t spans -3..17 -> floor(-3/16)=-1 .. ceil(17/16)=2 -> 4 high, mins (0,-1).
 * Face 0: styles 0 and 5 at offset 8; face 1: same at an offset that runs
 * past the lump; face 2: TEX_SPECIAL. */
static void quake_map(bspkit_family fam, int32_t version, size_t per_luxel)
{
    bspkit_builder *b;
    CHECK(bspkit_builder_new(fam, version, &b, ERR));
    const bspkit_vec3 v[4] = {{0, 0, 0}, {40, 0, 0}, {40, 20, 0}, {0, 20, 0}};
    const bspkit_edge e[5] = {{{0, 0}}, {{0, 1}}, {{1, 2}}, {{2, 3}}, {{3, 0}}};
    /* Edge 3 walked backwards starts at vertex 3; the corners still span the same extents. */
    const int32_t se[4] = {1, 2, -3, 4};
    bspkit_texinfo ti[2];
    memset(ti, 0, sizeof ti);
    ti[0].texture_vecs[0][0] = 1;
    ti[0].texture_vecs[0][3] = 8;
    ti[0].texture_vecs[1][1] = 1;
    ti[0].texture_vecs[1][3] = -3;
    ti[1] = ti[0];
    ti[1].flags = BSPKIT_TEX_SPECIAL;
    bspkit_face f[3];
    memset(f, 0, sizeof f);
    for (int i = 0; i < 3; i++) {
        f[i].num_edges = 4;
        f[i].styles[0] = 0;
        f[i].styles[1] = 5;
        f[i].styles[2] = f[i].styles[3] = 255;
        f[i].dispinfo = -1;
    }
    size_t need = 4 * 4 * 2 * per_luxel; /* luxels * styles * bytes */
    f[0].light_offset = 8;
    f[1].light_offset = 9; /* one byte too far */
    f[2].texinfo = 1;
    f[2].light_offset = 0;
    uint8_t light[8 + 4 * 4 * 2 * 3];
    memset(light, 7, sizeof light);
    bspkit_plane pl = {{0, 0, 1}, 0, 2};
    CHECK(bspkit_builder_set_planes(b, &pl, 1, ERR));
    CHECK(bspkit_builder_set_vertexes(b, v, 4, ERR));
    CHECK(bspkit_builder_set_edges(b, e, 5, ERR));
    CHECK(bspkit_builder_set_surfedges(b, se, 4, ERR));
    CHECK(bspkit_builder_set_texinfo(b, ti, 2, ERR));
    CHECK(bspkit_builder_set_faces(b, f, 3, ERR));
    CHECK(bspkit_builder_set_lighting(b, false, light, 8 + need, ERR));
    uint8_t *bytes;
    bspkit_map *m = open_built(b, false, &bytes);
    bspkit_builder_free(b);

    const bspkit_face_lightmap *lm;
    size_t n;
    CHECK(bspkit_get_face_lightmaps(m, false, &lm, &n, ERR));
    assert_int_equal(n, 3);
    assert_true(lm[0].lit && lm[0].in_range && !lm[0].decoupled);
    assert_int_equal(lm[0].mins[0], 0);
    assert_int_equal(lm[0].mins[1], -1);
    assert_int_equal(lm[0].width, 4);
    assert_int_equal(lm[0].height, 4);
    assert_int_equal(lm[0].styles, 2);
    assert_int_equal(lm[0].sets, 1);
    assert_int_equal(lm[0].bytes_per_luxel, (int)per_luxel);
    assert_int_equal(lm[0].offset, 8);
    assert_int_equal(lm[0].bytes, need);
    assert_int_equal(lm[0].average_offset, -1);
    assert_int_equal(lm[0].rgb_offset, -1);
    assert_true(lm[1].lit && !lm[1].in_range);
    assert_false(lm[2].lit);
    assert_int_equal(lm[2].offset, -1);
    /* Quake/GoldSrc have no HDR set. */
    CHECK(bspkit_get_face_lightmaps(m, true, &lm, &n, ERR));
    assert_int_equal(n, 0);
    bspkit_close(m);
    bspkit_free_buffer(bytes);
}

static void test_quake_extents(void **state)
{
    (void)state;
    quake_map(BSPKIT_FAMILY_QUAKE, 29, 1);
}

static void test_goldsrc_extents(void **state)
{
    (void)state;
    quake_map(BSPKIT_FAMILY_GOLDSRC, 30, 3);
}

/* ---- sample maps: lightmaps tile the lighting lump ------------------- */

static int by_offset(const void *a, const void *b)
{
    const bspkit_face_lightmap *x = a, *y = b;
    return (x->offset > y->offset) - (x->offset < y->offset);
}

static void test_sample_maps_tile(void **state)
{
    (void)state;
    for (int k = 0; k < BSPKIT_SAMPLE_COUNT; k++) {
        if (k == BSPKIT_SAMPLE_QUAKE3_ROOM)
            continue; /* rectangles inside lightmap pages, not runs of the lump: test_quake3 */
        uint8_t *bytes;
        size_t size;
        CHECK(bspkit_sample_build((bspkit_sample_kind)k, &bytes, &size, ERR));
        bspkit_map *m;
        CHECK(bspkit_open_memory(bytes, size, NULL, &m, ERR));
        bool source = bspkit_map_format(m)->family == BSPKIT_FAMILY_SOURCE;
        const bspkit_face *faces;
        size_t nf;
        CHECK(bspkit_get_faces(m, &faces, &nf, ERR));
        const uint8_t *light;
        size_t light_size;
        CHECK(bspkit_get_lighting(m, false, &light, &light_size, ERR));
        const bspkit_face_lightmap *lm;
        size_t n;
        CHECK(bspkit_get_face_lightmaps(m, false, &lm, &n, ERR));
        assert_int_equal(n, nf);
        bspkit_face_lightmap *lit = calloc(n, sizeof *lit);
        size_t nl = 0;
        for (size_t i = 0; i < n; i++) {
            if (!lm[i].lit)
                continue;
            assert_true(lm[i].in_range);
            assert_int_equal(lm[i].offset, faces[i].light_offset);
            if (source) {
                /* The sample's texinfo does not bump; averages precede the samples. */
                assert_int_equal(lm[i].width, faces[i].lightmap_size[0] + 1);
                assert_int_equal(lm[i].average_offset, lm[i].offset - 4 * lm[i].styles);
            }
            lit[nl++] = lm[i];
        }
        assert_true(nl > 0);
        qsort(lit, nl, sizeof *lit, by_offset);
        /* Each lightmap (plus its averages) starts where the previous ended. */
        uint64_t pos = 0;
        for (size_t i = 0; i < nl; i++) {
            uint64_t head = source ? 4u * (uint64_t)lit[i].styles : 0;
            assert_int_equal((uint64_t)lit[i].offset, pos + head);
            pos = (uint64_t)lit[i].offset + lit[i].bytes;
        }
        assert_int_equal(pos, light_size);
        free(lit);
        bspkit_close(m);
        bspkit_free_buffer(bytes);
    }
}

/* ---- Source: styles, bump sets, averages ----------------------------- */

static void source_faces(bool be)
{
    bspkit_builder *b;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_SOURCE, 20, &b, ERR));
    bspkit_texinfo ti[3];
    memset(ti, 0, sizeof ti);
    ti[0].flags = BSPKIT_SURF_BUMPLIGHT;
    ti[2].flags = BSPKIT_SURF_BUMPLIGHT | BSPKIT_SURF_NOLIGHT;
    bspkit_face f[4];
    memset(f, 0, sizeof f);
    for (int i = 0; i < 4; i++) {
        f[i].styles[0] = 0;
        f[i].styles[1] = 1;
        f[i].styles[2] = f[i].styles[3] = 255;
        f[i].lightmap_mins[0] = -2;
        f[i].lightmap_mins[1] = 5;
        f[i].lightmap_size[0] = 3; /* 4 luxels */
        f[i].lightmap_size[1] = 1; /* 2 luxels */
        f[i].dispinfo = -1;
    }
    /* Face 0 bumped: 8 luxels * 2 styles * 4 sets * 4 bytes = 256, averages 8 bytes before. */
    f[0].texinfo = 0;
    f[0].light_offset = 8;
    /* Face 1 flat, one style: 8 * 4 = 32 bytes at 264 + 4. */
    f[1].texinfo = 1;
    f[1].styles[1] = 255;
    f[1].light_offset = 268;
    /* Face 2: NOLIGHT wins over BUMPLIGHT. */
    f[2].texinfo = 2;
    f[2].light_offset = 0;
    /* Face 3: averages would start before the lump. */
    f[3].texinfo = 1;
    f[3].light_offset = 4;
    uint8_t light[300];
    memset(light, 1, sizeof light);
    CHECK(bspkit_builder_set_texinfo(b, ti, 3, ERR));
    CHECK(bspkit_builder_set_faces(b, f, 4, ERR));
    CHECK(bspkit_builder_set_lighting(b, false, light, sizeof light, ERR));
    uint8_t *bytes;
    bspkit_map *m = open_built(b, be, &bytes);
    bspkit_builder_free(b);
    assert_int_equal(bspkit_map_format(m)->big_endian, be);

    const bspkit_face_lightmap *lm;
    size_t n;
    CHECK(bspkit_get_face_lightmaps(m, false, &lm, &n, ERR));
    assert_int_equal(n, 4);
    assert_true(lm[0].lit && lm[0].in_range);
    assert_int_equal(lm[0].sets, 4);
    assert_int_equal(lm[0].styles, 2);
    assert_int_equal(lm[0].width, 4);
    assert_int_equal(lm[0].height, 2);
    assert_int_equal(lm[0].mins[0], -2);
    assert_int_equal(lm[0].mins[1], 5);
    assert_int_equal(lm[0].bytes_per_luxel, 4);
    assert_int_equal(lm[0].bytes, 256);
    assert_int_equal(lm[0].average_offset, 0);
    assert_true(lm[1].lit && lm[1].in_range);
    assert_int_equal(lm[1].sets, 1);
    assert_int_equal(lm[1].styles, 1);
    assert_int_equal(lm[1].bytes, 32);
    assert_int_equal(lm[1].average_offset, 264);
    assert_int_equal(lm[1].offset + (int64_t)lm[1].bytes, 300);
    assert_false(lm[2].lit);
    assert_true(lm[3].lit && !lm[3].in_range);
    /* No HDR faces or lighting: the HDR set has the faces, none in range. */
    CHECK(bspkit_get_face_lightmaps(m, true, &lm, &n, ERR));
    assert_int_equal(n, 4);
    assert_false(lm[0].in_range);
    bspkit_close(m);
    bspkit_free_buffer(bytes);
}

static void test_source_faces_le(void **state)
{
    (void)state;
    source_faces(false);
}

static void test_source_faces_be(void **state)
{
    (void)state;
    source_faces(true);
}

/* ---- world lights ---------------------------------------------------- */

static void encode_light(enc *e, bool v1, float base)
{
    for (int i = 0; i < 9; i++)
        putf(e, base + (float)i); /* origin, intensity, normal */
    if (v1)
        for (int i = 0; i < 3; i++)
            putf(e, -1.0f - (float)i);
    put32(e, 7);              /* cluster */
    put32(e, 2);              /* type: spotlight */
    put32(e, 32);             /* style */
    putf(e, 0.5f);            /* stopdot */
    putf(e, 0.25f);           /* stopdot2 */
    putf(e, 1.0f);            /* exponent */
    putf(e, 512.0f);          /* radius */
    putf(e, 0.0f);            /* constant */
    putf(e, 0.0f);            /* linear */
    putf(e, 1.0f);            /* quadratic */
    put32(e, 1);              /* flags */
    put32(e, (uint32_t)-1);   /* texinfo */
    put32(e, 3);              /* owner */
}

static void worldlights(bool be)
{
    enc v0 = {.be = be}, v1 = {.be = be};
    encode_light(&v0, false, 10);
    encode_light(&v0, false, 20);
    encode_light(&v1, true, 30);
    assert_int_equal(v0.n, 2 * 88);
    assert_int_equal(v1.n, 100);
    bspkit_builder *b;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_SOURCE, 20, &b, ERR));
    CHECK(bspkit_builder_set_lump(b, BSPKIT_S_WORLDLIGHTS, v0.buf, v0.n, 0, ERR));
    CHECK(bspkit_builder_set_lump(b, BSPKIT_S_WORLDLIGHTS_HDR, v1.buf, v1.n, 1, ERR));
    uint8_t *bytes;
    bspkit_map *m = open_built(b, be, &bytes);
    bspkit_builder_free(b);

    const bspkit_worldlight *w;
    size_t n;
    CHECK(bspkit_get_worldlights(m, false, &w, &n, ERR));
    assert_int_equal(n, 2);
    assert_true(w[1].origin.x == 20.0f && w[1].origin.z == 22.0f);
    assert_true(w[1].intensity.y == 24.0f && w[1].normal.z == 28.0f);
    assert_true(w[1].shadow_cast_offset.x == 0.0f);
    assert_int_equal(w[1].cluster, 7);
    assert_int_equal(w[1].type, BSPKIT_EMIT_SPOTLIGHT);
    assert_int_equal(w[1].style, 32);
    assert_true(w[1].stopdot == 0.5f && w[1].stopdot2 == 0.25f && w[1].radius == 512.0f);
    assert_true(w[1].quadratic_attn == 1.0f);
    assert_int_equal(w[1].flags, 1);
    assert_int_equal(w[1].texinfo, -1);
    assert_int_equal(w[1].owner, 3);

    CHECK(bspkit_get_worldlights(m, true, &w, &n, ERR));
    assert_int_equal(n, 1);
    assert_true(w[0].origin.x == 30.0f && w[0].normal.z == 38.0f);
    assert_true(w[0].shadow_cast_offset.x == -1.0f && w[0].shadow_cast_offset.z == -3.0f);
    assert_int_equal(w[0].cluster, 7);
    assert_int_equal(w[0].owner, 3);

    /* The dump provider describes the records with the document's names. */
    bspkit_dump d;
    memset(&d, 0, sizeof d);
    CHECK(bk_tables_lighting(m, BSPKIT_S_WORLDLIGHTS_HDR, 0, &d, ERR));
    assert_int_equal(d.table_count, 1);
    assert_int_equal(d.tables[0].count, 1);
    assert_string_equal(d.tables[0].fields[0].name, "origin");
    assert_string_equal(d.tables[0].fields[3].name, "shadow_cast_offset");
    assert_string_equal(d.tables[0].fields[d.tables[0].field_count - 1].name, "owner");
    const bspkit_worldlight *rec = bspkit_table_record(&d.tables[0], 0);
    assert_true(rec->intensity.x == 33.0f);
    memset(&d, 0, sizeof d);
    assert_int_equal(bk_tables_lighting(m, BSPKIT_S_PLANES, 0, &d, ERR), BSPKIT_ERR_NOT_FOUND);
    bspkit_close(m);
    bspkit_free_buffer(bytes);
}

static void test_worldlights_le(void **state)
{
    (void)state;
    worldlights(false);
}

static void test_worldlights_be(void **state)
{
    (void)state;
    worldlights(true);
}

static void test_worldlights_unknown_version(void **state)
{
    (void)state;
    enc e = {.be = false};
    encode_light(&e, true, 1);
    bspkit_builder *b;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_SOURCE, 20, &b, ERR));
    CHECK(bspkit_builder_set_lump(b, BSPKIT_S_WORLDLIGHTS, e.buf, e.n, 5, ERR));
    uint8_t *bytes;
    bspkit_map *m = open_built(b, false, &bytes);
    bspkit_builder_free(b);
    const bspkit_worldlight *w;
    size_t n;
    assert_int_equal(bspkit_get_worldlights(m, false, &w, &n, ERR), BSPKIT_ERR_UNSUPPORTED);
    assert_int_equal(g_err.lump, BSPKIT_S_WORLDLIGHTS);
    assert_non_null(strstr(g_err.message, "version 5"));
    /* The dump falls back to raw bytes with a note. */
    bspkit_dump d;
    memset(&d, 0, sizeof d);
    CHECK(bk_tables_lighting(m, BSPKIT_S_WORLDLIGHTS, 0, &d, ERR));
    assert_int_equal(d.table_count, 0);
    assert_non_null(strstr(d.note, "version 5"));
    bspkit_close(m);
    bspkit_free_buffer(bytes);
}

/* ---- leaf ambient ---------------------------------------------------- */

static void ambient(bool be)
{
    enc idx = {.be = be}, smp = {.be = be};
    /* Leaf 0: samples 0..1; leaf 1: none (first left at 99); leaf 2: 2 samples from 1 (past the end). */
    put16(&idx, 2);
    put16(&idx, 0);
    put16(&idx, 0);
    put16(&idx, 99);
    put16(&idx, 2);
    put16(&idx, 1);
    for (int s = 0; s < 2; s++) {
        for (int k = 0; k < 6; k++) {
            put8(&smp, (uint8_t)(10 * s + k));
            put8(&smp, 2);
            put8(&smp, 3);
            put8(&smp, (uint8_t)(int8_t)-2);
        }
        put8(&smp, 128);
        put8(&smp, (uint8_t)(s ? 255 : 0));
        put8(&smp, 64);
        put8(&smp, 0);
    }
    assert_int_equal(smp.n, 56);
    bspkit_builder *b;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_SOURCE, 20, &b, ERR));
    CHECK(bspkit_builder_set_lump(b, BSPKIT_S_LEAF_AMBIENT_INDEX_HDR, idx.buf, idx.n, 0, ERR));
    CHECK(bspkit_builder_set_lump(b, BSPKIT_S_LEAF_AMBIENT_LIGHTING_HDR, smp.buf, smp.n, 1, ERR));
    uint8_t *bytes;
    bspkit_map *m = open_built(b, be, &bytes);
    bspkit_builder_free(b);

    const bspkit_leaf_ambient *a;
    CHECK(bspkit_get_leaf_ambient(m, false, &a, ERR));
    assert_int_equal(a->index_count, 0);
    assert_int_equal(a->sample_count, 0);
    CHECK(bspkit_get_leaf_ambient(m, true, &a, ERR));
    assert_int_equal(a->index_count, 3);
    assert_int_equal(a->index[0].sample_count, 2);
    assert_int_equal(a->index[0].first_sample, 0);
    assert_int_equal(a->index[1].first_sample, 99);
    assert_int_equal(a->index[2].first_sample, 1);
    assert_int_equal(a->sample_count, 2);
    assert_int_equal(a->samples[1].cube[5].r, 15);
    assert_int_equal(a->samples[1].cube[5].exponent, -2);
    assert_int_equal(a->samples[1].y, 255);
    assert_int_equal(a->samples[0].z, 64);
    /* Only leaf 2 is bad: leaf 1 has no samples, so its first index is not used. */
    assert_int_equal(a->bad_ranges, 1);

    bspkit_dump d;
    memset(&d, 0, sizeof d);
    CHECK(bk_tables_lighting(m, BSPKIT_S_LEAF_AMBIENT_INDEX_HDR, 0, &d, ERR));
    assert_int_equal(d.tables[0].count, 3);
    assert_string_equal(d.tables[0].fields[0].name, "ambientSampleCount");
    assert_string_equal(d.tables[0].fields[1].name, "firstAmbientSample");
    memset(&d, 0, sizeof d);
    CHECK(bk_tables_lighting(m, BSPKIT_S_LEAF_AMBIENT_LIGHTING_HDR, 0, &d, ERR));
    assert_int_equal(d.tables[0].count, 2);
    assert_string_equal(d.tables[0].fields[0].name, "cube");
    assert_int_equal(d.tables[0].fields[0].count, 6);
    bspkit_close(m);
    bspkit_free_buffer(bytes);
}

static void test_ambient_le(void **state)
{
    (void)state;
    ambient(false);
}

static void test_ambient_be(void **state)
{
    (void)state;
    ambient(true);
}

static void test_rgbexp(void **state)
{
    (void)state;
    const uint8_t raw[4] = {1, 2, 3, 0xFF};
    bspkit_rgbexp c = bspkit_rgbexp_read(raw);
    assert_int_equal(c.exponent, -1);
    float rgb[3];
    bspkit_rgbexp_to_float(c, rgb);
    assert_true(rgb[0] == 0.5f && rgb[1] == 1.0f && rgb[2] == 1.5f);
    bspkit_rgbexp big = {255, 0, 1, 4};
    bspkit_rgbexp_to_float(big, rgb);
    assert_true(rgb[0] == 4080.0f && rgb[1] == 0.0f && rgb[2] == 16.0f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quake_extents),
        cmocka_unit_test(test_goldsrc_extents),
        cmocka_unit_test(test_sample_maps_tile),
        cmocka_unit_test(test_source_faces_le),
        cmocka_unit_test(test_source_faces_be),
        cmocka_unit_test(test_worldlights_le),
        cmocka_unit_test(test_worldlights_be),
        cmocka_unit_test(test_worldlights_unknown_version),
        cmocka_unit_test(test_ambient_le),
        cmocka_unit_test(test_ambient_be),
        cmocka_unit_test(test_rgbexp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
