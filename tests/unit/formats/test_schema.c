/* Record schemas (core/schema.h) and the Quake/GoldSrc layouts declared with
 * them (formats/quake/records.c). Expected bytes and sizes are written here from
 * the GoldSrc format texts (dnode_t, dface_t, dleaf_t, dclipnode_t,
 * dmodel_t, texinfo_t in the BSP30 descriptions; BSP2's widened variants),
 * not taken from the decoder. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/map.h"
#include "core/schema.h"
#include "formats/quake/records.h"
#include "formats/source/records.h"

/* Little writer for hand-built records. */
typedef struct rec {
    uint8_t b[128];
    size_t n;
    bool be;
} rec;

static void put(rec *r, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        r->b[r->n + i] = (uint8_t)(v >> (8 * (r->be ? bytes - 1 - i : i)));
    r->n += (size_t)bytes;
}
static void put_f(rec *r, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put(r, u, 4);
}

/* dnode_t (BSP29/30): int planenum; short children[2]; short mins[3], maxs[3];
 * ushort firstface, numfaces. */
static rec node29_bytes(bool be)
{
    rec r = {.be = be};
    put(&r, 7, 4);
    put(&r, (uint16_t)3, 2);
    put(&r, (uint16_t)-5, 2); /* a leaf: -(4 + 1) */
    put(&r, (uint16_t)-64, 2);
    put(&r, (uint16_t)-32, 2);
    put(&r, (uint16_t)-16, 2);
    put(&r, 64, 2);
    put(&r, 32, 2);
    put(&r, 16, 2);
    put(&r, 40000, 2); /* unsigned: above INT16_MAX */
    put(&r, 2, 2);
    return r;
}

static void test_node29_decode_both_orders(void **state)
{
    (void)state;
    for (int be = 0; be < 2; be++) {
        rec r = node29_bytes(be);
        assert_int_equal(r.n, 24);
        assert_int_equal(bk_quake_node29.record_size, 24);
        bspkit_node n;
        memset(&n, 0x55, sizeof n);
        bk_quake_node29.decode(r.b, 1, be, &n);
        assert_int_equal(n.plane, 7);
        assert_int_equal(n.children[0], 3);
        assert_int_equal(n.children[1], -5);
        assert_true(n.mins.x == -64.0f && n.mins.y == -32.0f && n.mins.z == -16.0f);
        assert_true(n.maxs.x == 64.0f && n.maxs.y == 32.0f && n.maxs.z == 16.0f);
        assert_int_equal(n.first_face, 40000);
        assert_int_equal(n.num_faces, 2);
        assert_int_equal(n.area, -1); /* Quake nodes have no area */
    }
}

static void test_node29_encode_round_trip(void **state)
{
    (void)state;
    for (int be = 0; be < 2; be++) {
        rec r = node29_bytes(be);
        bspkit_node n;
        bk_quake_node29.decode(r.b, 1, be, &n);
        uint8_t out[24];
        memset(out, 0xAA, sizeof out);
        bk_field_ctx c = {"node", BSPKIT_Q_NODES, 0, NULL};
        assert_int_equal(bk_quake_node29.encode(&n, out, be, &c), BSPKIT_OK);
        assert_memory_equal(out, r.b, 24);
    }
}

/* Float bounds are stored rounded outwards, so the stored box holds the float one. */
static void test_bounds_round_outwards(void **state)
{
    (void)state;
    bspkit_node n = {0};
    n.mins = (bspkit_vec3){-1.5f, 2.25f, 0.0f};
    n.maxs = (bspkit_vec3){1.5f, 2.25f, -0.5f};
    uint8_t out[24];
    bk_field_ctx c = {"node", BSPKIT_Q_NODES, 0, NULL};
    assert_int_equal(bk_quake_node29.encode(&n, out, false, &c), BSPKIT_OK);
    int16_t want[6] = {-2, 2, 0, 2, 3, 0};
    for (int k = 0; k < 6; k++)
        assert_int_equal((int16_t)(out[8 + 2 * k] | out[9 + 2 * k] << 8), want[k]);
}

static void test_encode_refuses_values_that_do_not_fit(void **state)
{
    (void)state;
    bspkit_error err;
    bk_field_ctx c = {"node", BSPKIT_Q_NODES, 12, &err};
    bspkit_node n = {0};
    n.children[1] = 40000; /* int16 in BSP29 */
    assert_int_equal(bk_quake_node29.encode(&n, NULL, false, &c), BSPKIT_ERR_ARGUMENT);
    assert_int_equal(err.lump, BSPKIT_Q_NODES);
    assert_string_equal(err.message,
                        "lump 5: node 12: children[1] = 40000 does not fit the file's signed 16-bit field");

    n.children[1] = 0;
    n.maxs.z = 40000.0f;
    assert_int_equal(bk_quake_node29.encode(&n, NULL, false, &c), BSPKIT_ERR_ARGUMENT);
    assert_string_equal(err.message,
                        "lump 5: node 12: maxs[2] = 40000 does not fit the file's signed 16-bit bound");

    bspkit_face f = {0};
    f.texinfo = 70000;
    c.record_name = "face";
    c.lump = BSPKIT_Q_FACES;
    assert_int_equal(bk_quake_face29.encode(&f, NULL, false, &c), BSPKIT_ERR_ARGUMENT);
    assert_string_equal(err.message,
                        "lump 7: face 12: texinfo = 70000 does not fit the file's unsigned 16-bit field");

    /* The same values fit BSP2's 32-bit fields. */
    uint8_t out[28];
    assert_int_equal(bk_quake_face_bsp2.encode(&f, out, false, &c), BSPKIT_OK);
    assert_int_equal(out[16] | out[17] << 8 | out[18] << 16, 70000);

    /* A marksurface is the record itself: the message calls it "index". */
    uint32_t mark = 65536;
    c.record_name = "leaf face";
    c.lump = BSPKIT_Q_MARKSURFACES;
    assert_int_equal(bk_quake_marksurface29.encode(&mark, NULL, false, &c), BSPKIT_ERR_ARGUMENT);
    assert_string_equal(err.message,
                        "lump 11: leaf face 12: index = 65536 does not fit the file's unsigned 16-bit field");
}

/* dface_t (BSP29/30): ushort planenum; short side; int firstedge; short numedges;
 * short texinfo; byte styles[4]; int lightofs. BSP2 widens the shorts to ints. */
static void test_faces(void **state)
{
    (void)state;
    rec r = {.be = false};
    put(&r, 300, 2);
    put(&r, 1, 2);
    put(&r, 1234, 4);
    put(&r, 5, 2);
    put(&r, 9, 2);
    put(&r, 0x030201FF, 4); /* styles bytes FF 01 02 03 */
    put(&r, 4096, 4);
    assert_int_equal(r.n, bk_quake_face29.record_size);
    bspkit_face f;
    memset(&f, 0, sizeof f);
    bk_quake_face29.decode(r.b, 1, false, &f);
    assert_int_equal(f.plane, 300);
    assert_int_equal(f.side, 1);
    assert_int_equal(f.first_edge, 1234);
    assert_int_equal(f.num_edges, 5);
    assert_int_equal(f.texinfo, 9);
    assert_int_equal(f.styles[0], 255);
    assert_int_equal(f.styles[3], 3);
    assert_int_equal(f.light_offset, 4096);
    assert_int_equal(f.dispinfo, -1);
    assert_int_equal(f.fog_volume, -1);
    assert_int_equal(f.orig_face, -1);

    rec w = {.be = false};
    put(&w, 70000, 4);
    put(&w, 2, 4); /* any nonzero side is "back" */
    put(&w, 8, 4);
    put(&w, 3, 4);
    put(&w, 100000, 4);
    put(&w, 0, 4);
    put(&w, (uint32_t)-1, 4);
    assert_int_equal(w.n, bk_quake_face_bsp2.record_size);
    bk_quake_face_bsp2.decode(w.b, 1, false, &f);
    assert_int_equal(f.plane, 70000);
    assert_int_equal(f.side, 1);
    assert_int_equal(f.texinfo, 100000);
    assert_int_equal(f.light_offset, -1);
}

/* Record sizes from the format texts. */
static void test_record_sizes(void **state)
{
    (void)state;
    const struct {
        const bk_schema *s;
        uint32_t size;
    } want[] = {
        {&bk_plane_schema, 20},        {&bk_vertex_schema, 12},       {&bk_surfedge_schema, 4},
        {&bk_quake_texinfo, 40},       {&bk_quake_model, 64},         {&bk_edge16_schema, 4},
        {&bk_quake_face29, 20},        {&bk_quake_node29, 24},        {&bk_quake_leaf29, 28},
        {&bk_quake_clipnode29, 8},     {&bk_quake_marksurface29, 2},  {&bk_edge32_schema, 8},
        {&bk_quake_face_bsp2, 28},     {&bk_quake_node_bsp2, 44},     {&bk_quake_leaf_bsp2, 44},
        {&bk_quake_clipnode_bsp2, 12}, {&bk_quake_marksurface_bsp2, 4}, {&bk_quake_node_2psb, 32},
        {&bk_quake_leaf_2psb, 32},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_int_equal(want[i].s->record_size, want[i].size);
}

/* The dump table: names of the format texts, types of the native members. */
static void test_dump_fields(void **state)
{
    (void)state;
    size_t n;
    const bspkit_field *f = bk_quake_leaf29.dump_fields(&n);
    const char *names[] = {"contents", "visofs", "mins", "maxs", "firstmarksurface", "nummarksurfaces",
                           "ambient_level"};
    assert_int_equal(n, 7); /* the -1 defaults are not file fields */
    for (size_t i = 0; i < n; i++)
        assert_string_equal(f[i].name, names[i]);
    assert_int_equal(f[0].type, BSPKIT_FIELD_I32);
    assert_int_equal(f[2].type, BSPKIT_FIELD_VEC3);
    assert_int_equal(f[2].offset, offsetof(bspkit_leaf, mins));
    assert_int_equal(f[4].type, BSPKIT_FIELD_U32);
    assert_int_equal(f[6].type, BSPKIT_FIELD_U8);
    assert_int_equal(f[6].count, 4);
    assert_int_equal(f[6].offset, offsetof(bspkit_leaf, ambient_sound));

    f = bk_quake_texinfo.dump_fields(&n);
    assert_int_equal(n, 3);
    assert_string_equal(f[0].name, "vecs");
    assert_int_equal(f[0].count, 8);
    assert_int_equal(f[0].type, BSPKIT_FIELD_F32);

    f = bk_vertex_schema.dump_fields(&n);
    assert_int_equal(n, 1);
    assert_string_equal(f[0].name, "point");
    assert_int_equal(f[0].offset, 0);
    assert_int_equal(f[0].type, BSPKIT_FIELD_VEC3);
}

/* texinfo_t: float vecs[2][4]; int miptex; int flags. dmodel_t: float mins[3], maxs[3],
 * origin[3]; int headnode[4]; int visleafs; int firstface, numfaces. */
static void test_texinfo_and_model(void **state)
{
    (void)state;
    rec r = {.be = false};
    for (int k = 0; k < 8; k++)
        put_f(&r, (float)k + 0.5f);
    put(&r, 3, 4);
    put(&r, 1, 4);
    bspkit_texinfo t;
    bk_quake_texinfo.decode(r.b, 1, false, &t);
    assert_true(t.texture_vecs[0][0] == 0.5f && t.texture_vecs[1][3] == 7.5f);
    assert_int_equal(t.texture, 3);
    assert_int_equal(t.flags, 1);

    rec m = {.be = false};
    for (int k = 0; k < 9; k++)
        put_f(&m, (float)k);
    for (int h = 0; h < 4; h++)
        put(&m, (uint32_t)(h - 1), 4);
    put(&m, 17, 4);
    put(&m, 0, 4);
    put(&m, 42, 4);
    bspkit_model md;
    bk_quake_model.decode(m.b, 1, false, &md);
    assert_true(md.maxs.x == 3.0f && md.origin.z == 8.0f);
    assert_int_equal(md.headnode[0], -1);
    assert_int_equal(md.headnode[3], 2);
    assert_int_equal(md.vis_leafs, 17);
    assert_int_equal(md.num_faces, 42);
    uint8_t out[64];
    bk_field_ctx c = {"model", BSPKIT_Q_MODELS, 0, NULL};
    assert_int_equal(bk_quake_model.encode(&md, out, false, &c), BSPKIT_OK);
    assert_memory_equal(out, m.b, 64);
}

/* ---- Source ---- */

/* Bloodlines dface_t (104 bytes): 32 bytes of ColorRGBExp32, then planenum (ushort), side,
 * onNode (bytes), firstedge (int), numedges, texinfo, dispinfo and one more short, 24 bytes of
 * styles, six ints of undocumented lighting data, origFace (int, at byte 96) and
 * smoothingGroups. */
static rec face_v17_bytes(bool be)
{
    rec r = {.be = be};
    for (int k = 0; k < 32; k++)
        put(&r, (uint64_t)k, 1);
    put(&r, 77, 2);
    put(&r, 1, 1);
    put(&r, 0, 1);
    put(&r, 500, 4);
    put(&r, 4, 2);
    put(&r, 12, 2);
    put(&r, (uint16_t)-1, 2);
    put(&r, 0x1234, 2);
    for (int k = 0; k < 24; k++)
        put(&r, 0xA0 + (uint64_t)k, 1);
    for (int k = 0; k < 6; k++)
        put(&r, 0x01020304u + (uint64_t)k, 4);
    put(&r, 9, 4); /* origFace */
    put(&r, 0x80000001u, 4);
    return r;
}

static void test_source_face_v17(void **state)
{
    (void)state;
    const bk_schema *s = bk_source_schema(17, 0, BSPKIT_S_FACES, 0);
    assert_non_null(s);
    assert_int_equal(s->record_size, 104);
    for (int be = 0; be < 2; be++) {
        rec r = face_v17_bytes(be);
        assert_int_equal(r.n, 104);
        bspkit_face f;
        s->decode(r.b, 1, be, &f);
        assert_int_equal(f.plane, 77);
        assert_int_equal(f.side, 1);
        assert_int_equal(f.first_edge, 500);
        assert_int_equal(f.num_edges, 4);
        assert_int_equal(f.texinfo, 12);
        assert_int_equal(f.dispinfo, -1);
        assert_int_equal(f.orig_face, 9);
        assert_int_equal(f.smoothing_groups, 0x80000001u);
        /* Lighting fields Bloodlines does not document take their "none" values. */
        assert_int_equal(f.fog_volume, -1);
        assert_int_equal(f.light_offset, -1);
        assert_int_equal(f.styles[0], 255);
        assert_int_equal(f.styles[3], 255);
    }
    /* Converting the big-endian record gives the little-endian one, unknown fields included. */
    rec big = face_v17_bytes(true), little = face_v17_bytes(false);
    s->swap(big.b, 1);
    assert_memory_equal(big.b, little.b, 104);

    /* The dump shows the same columns as every other Source face layout. */
    size_t n17, n19;
    const bspkit_field *f17 = s->dump_fields(&n17);
    const bspkit_field *f19 = bk_source_schema(20, 0, BSPKIT_S_FACES, 0)->dump_fields(&n19);
    assert_int_equal(n17, 17);
    assert_int_equal(n17, n19);
    for (size_t i = 0; i < n17; i++) {
        assert_string_equal(f17[i].name, f19[i].name);
        assert_int_equal(f17[i].offset, f19[i].offset);
        assert_int_equal(f17[i].type, f19[i].type);
        assert_int_equal(f17[i].count, f19[i].count);
    }
}

/* dleaf_t version 1 (32 bytes): int contents; short cluster; short area:9, flags:7;
 * short mins[3], maxs[3]; ushort firstleafface, numleaffaces, firstleafbrush,
 * numleafbrushes; short leafWaterDataID; 2 pad. Version 0 puts a 24-byte light cube
 * before the pad. */
static void test_source_leafs(void **state)
{
    (void)state;
    const bk_schema *v1 = bk_source_schema(20, 0, BSPKIT_S_LEAFS, 1);
    const bk_schema *v0 = bk_source_schema(20, 0, BSPKIT_S_LEAFS, 0);
    assert_int_equal(v1->record_size, 32);
    assert_int_equal(v0->record_size, 56);
    /* Bloodlines' version-0 leafs have no light cube. */
    assert_int_equal(bk_source_schema(17, 0, BSPKIT_S_LEAFS, 0)->record_size, 32);
    assert_int_equal(bk_source_schema(25, BSPKIT_VARIANT_WIDE_LUMPS, BSPKIT_S_LEAFS, 2)->record_size, 56);

    rec r = {.be = true};
    put(&r, 1, 4);
    put(&r, 3, 2);
    put(&r, (127u << 9) | 300u, 2);
    for (int k = 0; k < 6; k++)
        put(&r, (uint16_t)(k < 3 ? -8 : 8), 2);
    put(&r, 10, 2);
    put(&r, 2, 2);
    put(&r, 20, 2);
    put(&r, 1, 2);
    put(&r, (uint16_t)-1, 2);
    for (int k = 0; k < 24; k++)
        put(&r, (uint64_t)(k == 3 ? 0xFE : k), 1);
    put(&r, 0, 2);
    assert_int_equal(r.n, 56);
    bspkit_leaf l;
    memset(&l, 0, sizeof l);
    v0->decode(r.b, 1, true, &l);
    assert_int_equal(l.cluster, 3);
    assert_int_equal(l.area, 300);
    assert_int_equal(l.flags, 127);
    assert_int_equal(l.first_leaf_brush, 20);
    assert_int_equal(l.leaf_water, -1);
    assert_int_equal(l.vis_offset, -1);
    assert_true(l.has_ambient_cube);
    assert_int_equal(l.ambient_cube[0].exponent, -2);
    assert_int_equal(l.ambient_cube[5].b, 22);

    uint8_t out[56];
    bk_field_ctx c = {"leaf", BSPKIT_S_LEAFS, 4, NULL};
    assert_int_equal(v0->encode(&l, out, true, &c), BSPKIT_OK);
    assert_memory_equal(out, r.b, 56);

    bspkit_error err;
    c.err = &err;
    l.area = 512;
    assert_int_equal(v1->encode(&l, NULL, false, &c), BSPKIT_ERR_ARGUMENT);
    assert_string_equal(err.message, "lump 10: leaf 4: area = 512 does not fit the file's 9-bit area field");
    l.area = 0;
    l.flags = 128;
    assert_int_equal(v1->encode(&l, NULL, false, &c), BSPKIT_ERR_ARGUMENT);
    assert_string_equal(err.message, "lump 10: leaf 4: flags = 128 does not fit the file's 7-bit flags field");
}

/* Brush sides: a 16-bit bevel up to v20 and in Left 4 Dead 2, bevel + thin bytes after. */
static void test_source_brushsides(void **state)
{
    (void)state;
    const bk_schema *old = bk_source_schema(20, 0, BSPKIT_S_BRUSHSIDES, 0);
    const bk_schema *l4d2 = bk_source_schema(21, BSPKIT_VARIANT_L4D2_DIRECTORY, BSPKIT_S_BRUSHSIDES, 0);
    const bk_schema *csgo = bk_source_schema(21, 0, BSPKIT_S_BRUSHSIDES, 0);
    assert_ptr_equal(old, l4d2);
    assert_ptr_not_equal(old, csgo);
    const uint8_t bytes[8] = {5, 0, 1, 0, 0xFF, 0xFF, 1, 1};
    bspkit_brushside a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    old->decode(bytes, 1, false, &a);
    csgo->decode(bytes, 1, false, &b);
    assert_int_equal(a.bevel, 1); /* the short 0x0101 is nonzero */
    assert_int_equal(a.thin, 0);
    assert_int_equal(b.bevel, 1);
    assert_int_equal(b.thin, 1);
    assert_int_equal(a.dispinfo, -1);
    /* Converting swaps the short bevel but not the two bytes. */
    uint8_t sw[8];
    memcpy(sw, bytes, 8);
    csgo->swap(sw, 1);
    const uint8_t want[8] = {0, 5, 0, 1, 0xFF, 0xFF, 1, 1};
    assert_memory_equal(sw, want, 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_node29_decode_both_orders),
        cmocka_unit_test(test_node29_encode_round_trip),
        cmocka_unit_test(test_bounds_round_outwards),
        cmocka_unit_test(test_encode_refuses_values_that_do_not_fit),
        cmocka_unit_test(test_faces),
        cmocka_unit_test(test_record_sizes),
        cmocka_unit_test(test_dump_fields),
        cmocka_unit_test(test_texinfo_and_model),
        cmocka_unit_test(test_source_face_v17),
        cmocka_unit_test(test_source_leafs),
        cmocka_unit_test(test_source_brushsides),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
