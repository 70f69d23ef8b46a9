/* Record schemas (core/schema.h) and the Quake/GoldSrc and Source layouts
 * declared with them (formats/quake/records.c, formats/source/records.c).
 * Expected bytes and sizes are written here from the format texts (dnode_t,
 * dface_t, dleaf_t, dclipnode_t, dmodel_t, texinfo_t in the BSP30
 * descriptions; BSP2's widened variants; the Source structs quoted above
 * each test), not taken from the decoder. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "bspkit/displacement.h"
#include "bspkit/lighting.h"
#include "bspkit/source_lumps.h"
#include "core/cpu.h"
#include "core/map.h"
#include "core/schema.h"
#include "formats/quake/records.h"
#include "formats/quake2/records.h"
#include "formats/quake3/records.h"
#include "formats/source/records.h"
#include "formats/titanfall/records.h"

/* Little writer for hand-built records. */
typedef struct rec {
    uint8_t b[1200];
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
        /* The lighting fields: fog volume, the first four of the eight base style
         * bytes, then (after day and night styles) lightofs, area, mins and size. */
        assert_int_equal(f.fog_volume, 0x1234);
        assert_int_equal(f.styles[0], 0xA0);
        assert_int_equal(f.styles[3], 0xA3);
        assert_int_equal(f.light_offset, 0x01020304);
        assert_int_equal(f.lightmap_mins[0], 0x01020306);
        assert_int_equal(f.lightmap_size[1], 0x01020309);
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

/* ---- Source lumps decoded into extras slots ---- */

static const bk_schema *array_schema(int32_t version, uint32_t variant, int lump, int32_t lump_version)
{
    const bk_schema *s = bk_source_array_schema(version, variant, lump, lump_version);
    assert_non_null(s);
    return s;
}

/* Field names and types of a schema's dump table, in order. */
static void expect_columns(const bk_schema *s, const char *const *names, const bspkit_field_type *types, size_t n)
{
    size_t nf;
    const bspkit_field *f = s->dump_fields(&nf);
    assert_int_equal(nf, n);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(f[i].name, names[i]);
        assert_int_equal(f[i].type, types[i]);
    }
}

/* Byte-swapping the big-endian record gives the little-endian one. */
static void expect_swap(const bk_schema *s, rec big, const rec *little)
{
    assert_int_equal(big.n, s->record_size);
    s->swap(big.b, 1);
    assert_memory_equal(big.b, little->b, s->record_size);
}

/* dleafwaterdata_t: float surfaceZ, minZ; short surfaceTexInfoID; 2 pad bytes. */
static rec leaf_water_bytes(bool be)
{
    rec r = {.be = be};
    put_f(&r, 48.5f);
    put_f(&r, -16.0f);
    put(&r, (uint16_t)-1, 2);
    put(&r, 0, 2);
    return r;
}

static void test_source_leaf_water(void **state)
{
    (void)state;
    const bk_schema *s = array_schema(20, 0, BSPKIT_S_LEAFWATERDATA, 0);
    assert_int_equal(s->record_size, 12);
    for (int be = 0; be < 2; be++) {
        rec r = leaf_water_bytes(be);
        bspkit_leaf_water w;
        s->decode(r.b, 1, be, &w);
        assert_true(w.surface_z == 48.5f && w.min_z == -16.0f);
        assert_int_equal(w.texinfo, -1);
        uint8_t out[12];
        memset(out, 0xAA, sizeof out);
        bk_field_ctx c = {"leaf water", BSPKIT_S_LEAFWATERDATA, 0, NULL};
        assert_int_equal(s->encode(&w, out, be, &c), BSPKIT_OK);
        assert_memory_equal(out, r.b, 12);
    }
    rec little = leaf_water_bytes(false);
    expect_swap(s, leaf_water_bytes(true), &little);
    static const char *const names[] = {"surfaceZ", "minZ", "surfaceTexInfoID"};
    static const bspkit_field_type types[] = {BSPKIT_FIELD_F32, BSPKIT_FIELD_F32, BSPKIT_FIELD_I32};
    expect_columns(s, names, types, 3);
}

/* dprimitive_t: unsigned char type, a pad byte, unsigned short firstIndex, indexCount,
 * firstVert, vertCount. Strata (lump version 1): type, 3 pad bytes, four uint32. */
static rec primitive_bytes(bool be, bool wide)
{
    rec r = {.be = be};
    const int w = wide ? 4 : 2;
    put(&r, 1, 1);
    put(&r, 0, w - 1);
    put(&r, 600, w);
    put(&r, wide ? 70000 : 40000, w);
    put(&r, 7, w);
    put(&r, 12, w);
    return r;
}

static void test_source_primitives(void **state)
{
    (void)state;
    const bk_schema *narrow = array_schema(20, 0, BSPKIT_S_PRIMITIVES, 0);
    const bk_schema *wide = array_schema(25, BSPKIT_VARIANT_WIDE_LUMPS, BSPKIT_S_PRIMITIVES, 1);
    assert_int_equal(narrow->record_size, 10);
    assert_int_equal(wide->record_size, 20);
    /* Lump version 0 in a Strata map keeps the 10-byte record. */
    assert_ptr_equal(array_schema(25, BSPKIT_VARIANT_WIDE_LUMPS, BSPKIT_S_PRIMITIVES, 0), narrow);
    for (int be = 0; be < 2; be++)
        for (int w = 0; w < 2; w++) {
            rec r = primitive_bytes(be, w);
            bspkit_primitive p;
            (w ? wide : narrow)->decode(r.b, 1, be, &p);
            assert_int_equal(p.type, 1);
            assert_int_equal(p.first_index, 600);
            assert_int_equal(p.index_count, w ? 70000 : 40000);
            assert_int_equal(p.first_vert, 7);
            assert_int_equal(p.vert_count, 12);
        }
    /* The type byte and its pad stay as they are; the shorts are swapped. */
    uint8_t sw[10] = {1, 0, 0x12, 0x34, 0, 1, 0, 2, 0, 3};
    narrow->swap(sw, 1);
    const uint8_t want[10] = {1, 0, 0x34, 0x12, 1, 0, 2, 0, 3, 0};
    assert_memory_equal(sw, want, 10);
}

/* Lumps of one unsigned short per record. */
static void test_source_u16_lumps(void **state)
{
    (void)state;
    static const int lumps[] = {BSPKIT_S_LEAFMINDISTTOWATER, BSPKIT_S_FACE_MACRO_TEXTURE_INFO, BSPKIT_S_DISP_TRIS};
    static const char *const names[] = {"minDistToWater", "macroTextureIndex", "Tags"};
    static const bspkit_field_type u16[] = {BSPKIT_FIELD_U16};
    for (int i = 0; i < 3; i++) {
        const bk_schema *s = array_schema(20, 0, lumps[i], 0);
        assert_int_equal(s->record_size, 2);
        assert_int_equal(s->native_size, sizeof(uint16_t));
        const uint8_t b[4] = {0xFF, 0xFF, 0x12, 0x34};
        uint16_t v[2];
        s->decode(b, 2, true, v);
        assert_int_equal(v[0], 0xFFFF);
        assert_int_equal(v[1], 0x1234);
        expect_columns(s, &names[i], u16, 1);
    }
}

/* dportal_t: int firstportalvert, numportalverts, planenum; unsigned short cluster[2].
 * dcluster_t: int firstportal, numportals. Only up to VBSP 19. */
static void test_source_portals(void **state)
{
    (void)state;
    const bk_schema *portal = array_schema(19, 0, 22, 0);
    const bk_schema *cluster = array_schema(17, 0, 23, 0);
    assert_int_equal(portal->record_size, 16);
    assert_int_equal(cluster->record_size, 8);
    assert_null(bk_source_array_schema(20, 0, 22, 0));
    assert_null(bk_source_array_schema(21, BSPKIT_VARIANT_L4D2_DIRECTORY, 23, 0));
    rec r = {.be = true};
    put(&r, 10, 4);
    put(&r, 4, 4);
    put(&r, 99, 4);
    put(&r, 3, 2);
    put(&r, 65000, 2);
    bspkit_portal p;
    portal->decode(r.b, 1, true, &p);
    assert_int_equal(p.first_portal_vert, 10);
    assert_int_equal(p.num_portal_verts, 4);
    assert_int_equal(p.plane, 99);
    assert_int_equal(p.cluster[0], 3);
    assert_int_equal(p.cluster[1], 65000);
    static const char *const names[] = {"firstportalvert", "numportalverts", "planenum", "cluster"};
    static const bspkit_field_type types[] = {BSPKIT_FIELD_I32, BSPKIT_FIELD_I32, BSPKIT_FIELD_I32,
                                              BSPKIT_FIELD_U16};
    expect_columns(portal, names, types, 4);
}

/* ddispinfo_t (176 bytes): Vector startPosition; int DispVertStart, DispTriStart, power,
 * minTess; float smoothingAngle; int contents; unsigned short MapFace (+2 pad); int
 * LightmapAlphaStart, LightmapSamplePositionStart; 4 CDispNeighbor of 2 CDispSubNeighbor
 * {unsigned short m_iNeighbor; unsigned char m_NeighborOrientation, m_Span,
 * m_NeighborSpan; pad}; 4 CDispCornerNeighbors {unsigned short m_Neighbors[4];
 * unsigned char m_nNeighbors; pad}; unsigned int AllowedVerts[10]. Strata's 232-byte
 * form has 32-bit MapFace and neighbour indices (corner records padded to 20 bytes). */
static rec dispinfo_bytes(bool be, bool wide)
{
    rec r = {.be = be};
    const int w = wide ? 4 : 2;
    put_f(&r, 1.0f);
    put_f(&r, -2.0f);
    put_f(&r, 3.5f);
    put(&r, 25, 4);
    put(&r, 32, 4);
    put(&r, 2, 4);
    put(&r, 0x80000000u, 4);
    put_f(&r, 0.5f);
    put(&r, 1, 4);
    put(&r, 1234, w);
    if (!wide)
        put(&r, 0, 2);
    put(&r, 16, 4);
    put(&r, 1296, 4);
    for (int k = 0; k < 8; k++) { /* sub-neighbour k: edge k / 2, half k % 2 */
        put(&r, k == 5 ? 7 : wide ? 0xFFFFFFFFu : 0xFFFFu, w);
        put(&r, (uint64_t)k, 1);
        put(&r, (uint64_t)(10 + k), 1);
        put(&r, (uint64_t)(20 + k), 1);
        put(&r, 0, 1);
    }
    for (int c = 0; c < 4; c++) {
        for (int k = 0; k < 4; k++)
            put(&r, c == 2 && k < 2 ? (uint64_t)(100 + k) : 0, w);
        put(&r, c == 2 ? 2 : 0, 1);
        put(&r, 0, w - 1);
    }
    for (int k = 0; k < 10; k++)
        put(&r, 0xFFFFFFFFu - (uint64_t)k, 4);
    return r;
}

static void expect_dispinfo(const bspkit_dispinfo *d)
{
    assert_true(d->start_position.x == 1.0f && d->start_position.y == -2.0f && d->start_position.z == 3.5f);
    assert_int_equal(d->disp_vert_start, 25);
    assert_int_equal(d->disp_tri_start, 32);
    assert_int_equal(d->power, 2);
    assert_int_equal((uint32_t)d->min_tess, 0x80000000u);
    assert_true(d->smoothing_angle == 0.5f);
    assert_int_equal(d->contents, 1);
    assert_int_equal(d->map_face, 1234);
    assert_int_equal(d->lightmap_alpha_start, 16);
    assert_int_equal(d->lightmap_sample_position_start, 1296);
    for (int k = 0; k < 8; k++) {
        assert_int_equal(d->edge_neighbor[k / 2][k % 2], k == 5 ? 7 : -1);
        assert_int_equal(d->edge_neighbor_orientation[k / 2][k % 2], k);
        assert_int_equal(d->edge_span[k / 2][k % 2], 10 + k);
        assert_int_equal(d->edge_neighbor_span[k / 2][k % 2], 20 + k);
    }
    assert_int_equal(d->corner_neighbors[2][0], 100);
    assert_int_equal(d->corner_neighbors[2][1], 101);
    assert_int_equal(d->corner_neighbors[2][2], 0);
    assert_int_equal(d->corner_neighbor_count[2], 2);
    assert_int_equal(d->corner_neighbor_count[3], 0);
    assert_int_equal(d->allowed_verts[0], 0xFFFFFFFFu);
    assert_int_equal(d->allowed_verts[9], 0xFFFFFFF6u);
}

static void test_source_dispinfo(void **state)
{
    (void)state;
    const bk_schema *s = array_schema(20, 0, BSPKIT_S_DISPINFO, 0);
    const bk_schema *wide = array_schema(25, BSPKIT_VARIANT_WIDE_LUMPS, BSPKIT_S_DISPINFO, 1);
    assert_int_equal(s->record_size, 176);
    assert_int_equal(wide->record_size, 232);
    bk_field_ctx c = {"dispinfo", BSPKIT_S_DISPINFO, 3, NULL};
    for (int be = 0; be < 2; be++)
        for (int w = 0; w < 2; w++) {
            const bk_schema *layout = w ? wide : s;
            rec r = dispinfo_bytes(be, w);
            assert_int_equal(r.n, layout->record_size);
            bspkit_dispinfo d;
            memset(&d, 0x55, sizeof d);
            layout->decode(r.b, 1, be, &d);
            expect_dispinfo(&d);
            uint8_t out[232];
            memset(out, 0xAA, sizeof out);
            assert_int_equal(layout->encode(&d, out, be, &c), BSPKIT_OK);
            assert_memory_equal(out, r.b, layout->record_size);
        }
    /* Converting swaps the indices and leaves the bytes beside them. */
    rec little = dispinfo_bytes(false, false);
    expect_swap(s, dispinfo_bytes(true, false), &little);
    rec wide_little = dispinfo_bytes(false, true);
    expect_swap(wide, dispinfo_bytes(true, true), &wide_little);

    /* A 16-bit neighbour index holds 0..0xFFFE or -1. */
    rec r = dispinfo_bytes(false, false);
    bspkit_dispinfo d;
    s->decode(r.b, 1, false, &d);
    bspkit_error err;
    c.err = &err;
    d.corner_neighbors[1][3] = 0xFFFF;
    assert_int_equal(s->encode(&d, NULL, false, &c), BSPKIT_ERR_ARGUMENT);
    assert_string_equal(err.message,
                        "lump 26: dispinfo 3: corner_neighbors[7] = 65535 does not fit the file's 16-bit neighbour field");
    assert_int_equal(wide->encode(&d, NULL, false, &c), BSPKIT_OK);

    static const char *const names[] = {
        "startPosition", "DispVertStart", "DispTriStart", "power", "minTess", "smoothingAngle", "contents",
        "MapFace", "LightmapAlphaStart", "LightmapSamplePositionStart", "EdgeNeighbors.m_iNeighbor",
        "EdgeNeighbors.m_NeighborOrientation", "EdgeNeighbors.m_Span", "EdgeNeighbors.m_NeighborSpan",
        "CornerNeighbors.m_Neighbors", "CornerNeighbors.m_nNeighbors", "AllowedVerts"};
    static const bspkit_field_type types[] = {
        BSPKIT_FIELD_VEC3, BSPKIT_FIELD_I32, BSPKIT_FIELD_I32, BSPKIT_FIELD_I32, BSPKIT_FIELD_I32,
        BSPKIT_FIELD_F32,  BSPKIT_FIELD_I32, BSPKIT_FIELD_U32, BSPKIT_FIELD_I32, BSPKIT_FIELD_I32,
        BSPKIT_FIELD_I32,  BSPKIT_FIELD_U8,  BSPKIT_FIELD_U8,  BSPKIT_FIELD_U8,  BSPKIT_FIELD_I32,
        BSPKIT_FIELD_U8,   BSPKIT_FIELD_U32};
    expect_columns(s, names, types, 17);
    expect_columns(wide, names, types, 17);
    size_t nf;
    const bspkit_field *f = s->dump_fields(&nf);
    assert_int_equal(f[10].count, 8);
    assert_int_equal(f[14].count, 16);
    assert_int_equal(f[15].count, 4);
    assert_int_equal(f[16].count, 10);
}

/* CDispVert: Vector vec; float dist, alpha. CDispMultiBlend: Vector4D m_vMultiBlend,
 * m_vAlphaBlend; Vector m_vMultiBlendColors[4]. */
static void test_source_disp_records(void **state)
{
    (void)state;
    const bk_schema *vert = array_schema(20, 0, BSPKIT_S_DISP_VERTS, 0);
    const bk_schema *blend = array_schema(21, 0, BSPKIT_S_DISP_MULTIBLEND, 0);
    assert_int_equal(vert->record_size, 20);
    assert_int_equal(blend->record_size, 80);
    rec r = {.be = true};
    for (int k = 0; k < 20; k++)
        put_f(&r, (float)k);
    bspkit_disp_multiblend m;
    blend->decode(r.b, 1, true, &m);
    assert_true(m.multiblend[3] == 3.0f && m.alphablend[0] == 4.0f);
    assert_true(m.colors[0].x == 8.0f && m.colors[3].z == 19.0f);
    bspkit_disp_vert v;
    vert->decode(r.b, 1, true, &v);
    assert_true(v.vec.z == 2.0f && v.dist == 3.0f && v.alpha == 4.0f);
    size_t nf;
    const bspkit_field *f = blend->dump_fields(&nf);
    assert_int_equal(nf, 3);
    assert_string_equal(f[2].name, "m_vMultiBlendColors");
    assert_int_equal(f[2].type, BSPKIT_FIELD_VEC3);
    assert_int_equal(f[2].count, 4);
}

/* doverlay_t: int Id; short TexInfo; unsigned short FaceCountAndRenderOrder (face count in
 * the low 14 bits, render order in the top 2); int Ofaces[64]; float U[2], V[2]; Vector
 * UVPoints[4], Origin, BasisNormal. Strata: int TexInfo and the ushort padded to 4 bytes. */
static rec overlay_bytes(bool be, bool wide, int faces)
{
    rec r = {.be = be};
    put(&r, 17, 4);
    put(&r, (uint32_t)-3, wide ? 4 : 2);
    put(&r, (2u << 14) | 3u, 2);
    if (wide)
        put(&r, 0, 2);
    for (int k = 0; k < faces; k++)
        put(&r, k < 3 ? (uint64_t)(500 + k) : 0, 4);
    for (int k = 0; k < 22; k++)
        put_f(&r, (float)k / 2);
    return r;
}

static void test_source_overlays(void **state)
{
    (void)state;
    const bk_schema *s = array_schema(20, 0, BSPKIT_S_OVERLAYS, 0);
    const bk_schema *wide = array_schema(25, BSPKIT_VARIANT_WIDE_LUMPS, BSPKIT_S_OVERLAYS, 1);
    const bk_schema *water = array_schema(20, 0, BSPKIT_S_WATEROVERLAYS, 0);
    assert_int_equal(s->record_size, 352);
    assert_int_equal(wide->record_size, 356);
    assert_int_equal(water->record_size, 1120);
    assert_int_equal(array_schema(25, BSPKIT_VARIANT_WIDE_LUMPS, BSPKIT_S_WATEROVERLAYS, 1)->record_size, 1124);
    bk_field_ctx c = {"overlay", BSPKIT_S_OVERLAYS, 0, NULL};
    for (int be = 0; be < 2; be++)
        for (int w = 0; w < 2; w++) {
            const bk_schema *layout = w ? wide : s;
            rec r = overlay_bytes(be, w, BSPKIT_OVERLAY_FACES);
            assert_int_equal(r.n, layout->record_size);
            bspkit_overlay o;
            memset(&o, 0x55, sizeof o);
            layout->decode(r.b, 1, be, &o);
            assert_int_equal(o.id, 17);
            assert_int_equal(o.texinfo, -3);
            assert_int_equal(o.face_count_and_render_order, 0x8003);
            assert_int_equal(o.face_count, 3);
            assert_int_equal(o.render_order, 2);
            assert_int_equal(o.faces[2], 502);
            assert_int_equal(o.faces[63], 0);
            assert_true(o.u[1] == 0.5f && o.v[0] == 1.0f);
            assert_true(o.uv_points[0].x == 2.0f && o.uv_points[3].z == 7.5f);
            assert_true(o.origin.x == 8.0f && o.basis_normal.z == 10.5f);
            uint8_t out[356];
            memset(out, 0xAA, sizeof out);
            assert_int_equal(layout->encode(&o, out, be, &c), BSPKIT_OK);
            assert_memory_equal(out, r.b, layout->record_size);
        }
    rec little = overlay_bytes(false, false, BSPKIT_WATER_OVERLAY_FACES);
    expect_swap(water, overlay_bytes(true, false, BSPKIT_WATER_OVERLAY_FACES), &little);
    bspkit_water_overlay wo;
    water->decode(little.b, 1, false, &wo);
    assert_int_equal(wo.faces[1], 501);
    assert_true(wo.basis_normal.x == 9.5f);

    /* The face count has 14 bits. */
    bspkit_overlay o;
    memset(&o, 0, sizeof o);
    o.face_count = 0x4000;
    bspkit_error err;
    c.err = &err;
    assert_int_equal(s->encode(&o, NULL, false, &c), BSPKIT_ERR_ARGUMENT);
    assert_string_equal(err.message,
                        "lump 45: overlay 0: face_count = 16384 does not fit the file's 14-bit face count field");

    static const char *const names[] = {"Id", "TexInfo", "FaceCountAndRenderOrder", "FaceCount", "RenderOrder",
                                        "Ofaces", "U", "V", "UVPoints", "Origin", "BasisNormal"};
    static const bspkit_field_type types[] = {BSPKIT_FIELD_I32, BSPKIT_FIELD_I32,  BSPKIT_FIELD_U16,
                                              BSPKIT_FIELD_U16, BSPKIT_FIELD_U8,   BSPKIT_FIELD_I32,
                                              BSPKIT_FIELD_F32, BSPKIT_FIELD_F32,  BSPKIT_FIELD_VEC3,
                                              BSPKIT_FIELD_VEC3, BSPKIT_FIELD_VEC3};
    expect_columns(s, names, types, 11);
    expect_columns(water, names, types, 11);
    size_t nf;
    assert_int_equal(water->dump_fields(&nf)[5].count, BSPKIT_WATER_OVERLAY_FACES);
    assert_int_equal(s->dump_fields(&nf)[8].count, 4);

    /* doverlayfade_t: float flFadeDistMinSq, flFadeDistMaxSq; doverlaysystemlevel_t: 4 bytes. */
    assert_int_equal(array_schema(20, 0, BSPKIT_S_OVERLAY_FADES, 0)->record_size, 8);
    const bk_schema *levels = array_schema(21, 0, BSPKIT_S_OVERLAY_SYSTEM_LEVELS, 0);
    const uint8_t lb[4] = {1, 2, 3, 4};
    bspkit_overlay_system_level l;
    levels->decode(lb, 1, true, &l);
    assert_int_equal(l.min_cpu_level, 1);
    assert_int_equal(l.max_gpu_level, 4);
}

/* dworldlight_t version 0: Vector origin, intensity, normal; int cluster, type, style;
 * float stopdot, stopdot2, exponent, radius, constant_attn, linear_attn, quadratic_attn;
 * int flags, texinfo, owner. Version 1 puts Vector shadow_cast_offset after the normal. */
static rec worldlight_bytes(bool be, bool v1)
{
    rec r = {.be = be};
    for (int k = 0; k < (v1 ? 12 : 9); k++)
        put_f(&r, (float)(k + 1));
    put(&r, 5, 4);
    put(&r, 2, 4);
    put(&r, 32, 4);
    for (int k = 0; k < 7; k++)
        put_f(&r, 0.25f * (float)k);
    put(&r, 1, 4);
    put(&r, (uint32_t)-1, 4);
    put(&r, 9, 4);
    return r;
}

static void test_source_worldlights(void **state)
{
    (void)state;
    const bk_schema *v0 = array_schema(20, 0, BSPKIT_S_WORLDLIGHTS, 0);
    const bk_schema *v1 = array_schema(21, 0, BSPKIT_S_WORLDLIGHTS_HDR, 1);
    assert_int_equal(v0->record_size, 88);
    assert_int_equal(v1->record_size, 100);
    assert_null(bk_source_array_schema(21, 0, BSPKIT_S_WORLDLIGHTS, 2));
    for (int be = 0; be < 2; be++)
        for (int ver = 0; ver < 2; ver++) {
            const bk_schema *s = ver ? v1 : v0;
            rec r = worldlight_bytes(be, ver);
            assert_int_equal(r.n, s->record_size);
            bspkit_worldlight w;
            memset(&w, 0x55, sizeof w);
            s->decode(r.b, 1, be, &w);
            assert_true(w.origin.x == 1.0f && w.normal.z == 9.0f);
            if (ver)
                assert_true(w.shadow_cast_offset.x == 10.0f && w.shadow_cast_offset.z == 12.0f);
            else
                assert_true(w.shadow_cast_offset.x == 0.0f && w.shadow_cast_offset.z == 0.0f);
            assert_int_equal(w.cluster, 5);
            assert_int_equal(w.type, 2);
            assert_int_equal(w.style, 32);
            assert_true(w.stopdot2 == 0.25f && w.quadratic_attn == 1.5f);
            assert_int_equal(w.flags, 1);
            assert_int_equal(w.texinfo, -1);
            assert_int_equal(w.owner, 9);
        }
    rec little = worldlight_bytes(false, true);
    expect_swap(v1, worldlight_bytes(true, true), &little);
    /* Both versions show the same columns. */
    size_t n0, n1;
    const bspkit_field *f0 = v0->dump_fields(&n0), *f1 = v1->dump_fields(&n1);
    assert_int_equal(n0, 17);
    assert_int_equal(n0, n1);
    for (size_t i = 0; i < n0; i++) {
        assert_string_equal(f0[i].name, f1[i].name);
        assert_int_equal(f0[i].offset, f1[i].offset);
        assert_int_equal(f0[i].type, f1[i].type);
    }
    assert_string_equal(f0[3].name, "shadow_cast_offset");
}

/* dleafambientindex_t: unsigned short ambientSampleCount, firstAmbientSample (uint32 each
 * in Strata's wide lumps). dleafambientlighting_t: CompressedLightCube (6 ColorRGBExp32
 * {r, g, b, signed exponent}); byte x, y, z, pad. */
static void test_source_leaf_ambient(void **state)
{
    (void)state;
    const bk_schema *index = array_schema(20, 0, BSPKIT_S_LEAF_AMBIENT_INDEX, 0);
    const bk_schema *wide = array_schema(25, BSPKIT_VARIANT_WIDE_LUMPS, BSPKIT_S_LEAF_AMBIENT_INDEX_HDR, 1);
    const bk_schema *sample = array_schema(20, 0, BSPKIT_S_LEAF_AMBIENT_LIGHTING, 1);
    assert_int_equal(index->record_size, 4);
    assert_int_equal(wide->record_size, 8);
    assert_int_equal(sample->record_size, 28);
    assert_null(bk_source_array_schema(20, 0, BSPKIT_S_LEAF_AMBIENT_LIGHTING_HDR, 0));
    const uint8_t ib[4] = {0x00, 0x03, 0x01, 0x00};
    bspkit_leaf_ambient_index i;
    index->decode(ib, 1, true, &i);
    assert_int_equal(i.sample_count, 3);
    assert_int_equal(i.first_sample, 256);
    const uint8_t wb[8] = {3, 0, 0, 0, 0, 0, 1, 0};
    wide->decode(wb, 1, false, &i);
    assert_int_equal(i.sample_count, 3);
    assert_int_equal(i.first_sample, 65536);

    rec r = {.be = true};
    for (int k = 0; k < 24; k++)
        put(&r, (uint64_t)(k % 4 == 3 ? 0xF8 : k), 1);
    put(&r, 0, 1);
    put(&r, 128, 1);
    put(&r, 255, 1);
    put(&r, 0, 1);
    bspkit_leaf_ambient_sample a;
    sample->decode(r.b, 1, true, &a);
    assert_int_equal(a.cube[1].r, 4);
    assert_int_equal(a.cube[1].exponent, -8);
    assert_int_equal(a.y, 128);
    assert_int_equal(a.z, 255);
    /* Nothing in the sample is wider than a byte. */
    rec little = r;
    little.be = false;
    expect_swap(sample, r, &little);
    static const char *const names[] = {"cube", "x", "y", "z", "pad"};
    static const bspkit_field_type types[] = {BSPKIT_FIELD_RGBEXP, BSPKIT_FIELD_U8, BSPKIT_FIELD_U8,
                                              BSPKIT_FIELD_U8, BSPKIT_FIELD_U8};
    expect_columns(sample, names, types, 5);
}

/* doccluderdata_t: int flags, firstpoly, polycount; Vector mins, maxs; int area (lump
 * version 2 on). doccluderpolydata_t: int firstvertexindex, vertexcount, planenum. */
/* bk_widen_u16_le: every value widened, and the largest returned, on
 * lengths around the eight-value steps and values at the edges of the
 * signed/unsigned flip (0x7FFF, 0x8000, 0xFFFF). The expected maximum is a
 * plain loop over the same values. */
static void test_widen_u16_keeps_the_largest(void **state)
{
    (void)state;
    enum { MAX_N = 120 }; /* past 64: the AVX2 form's sixteen-value steps and its tail */
    static const uint16_t edges[] = {0, 1, 0x7FFE, 0x7FFF, 0x8000, 0x8001, 0xFFFE, 0xFFFF};
    uint32_t seed = 12345;
    for (int avx2 = 0; avx2 < 2; avx2++) {
        bk_cpu_allow_avx2(avx2 == 1);
        for (size_t n = 0; n <= MAX_N; n++) {
            for (int round = 0; round < 100; round++) {
                uint8_t src[2 * MAX_N];
                uint16_t v[MAX_N];
                uint32_t dst[MAX_N + 1];
                uint16_t expect = 0;
                for (size_t i = 0; i < n; i++) {
                    seed = seed * 1103515245u + 12345u;
                    /* Mostly small values, with an edge value or a random one now and then. */
                    uint32_t pick = seed >> 16;
                    v[i] = pick % 4 == 0   ? edges[(pick >> 2) % 8]
                           : pick % 4 == 1 ? (uint16_t)(pick >> 2)
                                           : (uint16_t)(pick % 97);
                    src[2 * i] = (uint8_t)v[i];
                    src[2 * i + 1] = (uint8_t)(v[i] >> 8);
                    expect = v[i] > expect ? v[i] : expect;
                }
                dst[n] = 0xDEADBEEF;
                assert_int_equal(bk_widen_u16_le(src, n, dst), expect);
                for (size_t i = 0; i < n; i++)
                    assert_int_equal(dst[i], v[i]);
                assert_int_equal(dst[n], 0xDEADBEEF);
            }
        }
    }
    bk_cpu_allow_avx2(true);
}

static void test_source_occluders(void **state)
{
    (void)state;
    const bk_schema *v1 = bk_source_occluder_schema(1), *v2 = bk_source_occluder_schema(2);
    assert_int_equal(bk_source_occluder_schema(0)->record_size, 36);
    assert_int_equal(v1->record_size, 36);
    assert_int_equal(v2->record_size, 40);
    assert_int_equal(bk_source_occluder_poly.record_size, 12);
    rec r = {.be = true};
    put(&r, 4, 4);
    put(&r, 10, 4);
    put(&r, 2, 4);
    for (int k = 0; k < 6; k++)
        put_f(&r, k < 3 ? -8.0f : 8.0f);
    put(&r, 3, 4);
    bspkit_occluder o;
    v2->decode(r.b, 1, true, &o);
    assert_int_equal(o.flags, 4);
    assert_int_equal(o.first_poly, 10);
    assert_int_equal(o.poly_count, 2);
    assert_true(o.mins.y == -8.0f && o.maxs.z == 8.0f);
    assert_int_equal(o.area, 3);
    v1->decode(r.b, 1, true, &o);
    assert_int_equal(o.area, -1);
    size_t n1, n2;
    const bspkit_field *f1 = v1->dump_fields(&n1), *f2 = v2->dump_fields(&n2);
    assert_int_equal(n1, 6);
    assert_int_equal(n2, 6);
    assert_string_equal(f1[5].name, "area");
    assert_int_equal(f1[5].offset, f2[5].offset);
}

/* Every record a decoder writes is the same whatever the memory held
 * before: records whose fields fill every byte are not cleared first
 * (BK_FILL_*), so a kind that claimed more bytes than it writes would leave
 * them as they were. Each schema of every family (Source's for every
 * version, variant bit, lump and lump version that has one) decodes random
 * records over zeros and over 0xFF bytes, in both byte orders; the two
 * results must be the same bytes. */
static void add_schema(const bk_schema **list, size_t *n, size_t cap, const bk_schema *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < *n; i++)
        if (list[i] == s)
            return;
    assert_true(*n < cap);
    list[(*n)++] = s;
}

/* Every schema of every family, each once. */
static size_t all_schemas(const bk_schema **list, size_t cap)
{
    size_t n = 0;
    const bk_schema *fixed[] = {
        &bk_plane_schema, &bk_vertex_schema, &bk_surfedge_schema, &bk_edge16_schema, &bk_edge32_schema,
        &bk_index16_schema, &bk_index32_schema, &bk_model_onehead_schema, &bk_brush_schema, &bk_area_schema,
        &bk_quake_texinfo, &bk_quake_model, &bk_quake_face29, &bk_quake_node29, &bk_quake_leaf29,
        &bk_quake_clipnode29, &bk_quake_marksurface29, &bk_quake_face_bsp2, &bk_quake_node_bsp2,
        &bk_quake_leaf_bsp2, &bk_quake_clipnode_bsp2, &bk_quake_marksurface_bsp2, &bk_quake_node_2psb,
        &bk_quake_leaf_2psb, &bk_q2_node, &bk_q2_texinfo, &bk_q2_face, &bk_q2_leaf, &bk_q2_brushside,
        &bk_q2_areaportal, &bk_q3_shader, &bk_q3_plane, &bk_q3_node, &bk_q3_leaf, &bk_q3_model, &bk_q3_brush,
        &bk_q3_brushside, &bk_q3_drawvert, &bk_q3_drawindex, &bk_q3_fog, &bk_q3_surface, &bk_q3_lightgrid,
        &bk_r2_plane, &bk_r2_texture_data, &bk_r2_string_table, &bk_r2_model, &bk_r2_cubemap, &bk_r2_mesh,
        &bk_r2_mesh_bounds, &bk_r2_material_sort, &bk_r2_vertex_unlit, &bk_r2_vertex_lit_flat,
        &bk_r2_vertex_lit_bump, &bk_r2_vertex_unlit_ts, &bk_source_occluder_poly,
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        add_schema(list, &n, cap, fixed[i]);
    for (int lump = 0; lump < 128; lump++)
        add_schema(list, &n, cap, bk_r2_extra_schema(lump));
    for (int32_t lv = 0; lv < 8; lv++)
        add_schema(list, &n, cap, bk_source_occluder_schema(lv));
    for (int32_t version = 17; version <= 29; version++)
        for (int bit = -1; bit < 16; bit++) {
            uint32_t variant = bit < 0 ? 0 : 1u << bit;
            for (int lump = 0; lump < 64; lump++)
                for (int32_t lv = 0; lv < 8; lv++) {
                    add_schema(list, &n, cap, bk_source_schema(version, variant, lump, lv));
                    add_schema(list, &n, cap, bk_source_array_schema(version, variant, lump, lv));
                }
        }
    return n;
}

/* `records` random file records of schema `sc` and two buffers for their
 * native records. */
typedef struct decoding {
    uint8_t *src, *a, *b;
    size_t out_size;
} decoding;

static decoding random_records(const bk_schema *sc, size_t records, uint64_t *x)
{
    size_t in_size = (size_t)sc->record_size * records;
    decoding d = {malloc(in_size), NULL, NULL, sc->native_size * records};
    d.a = malloc(d.out_size);
    d.b = malloc(d.out_size);
    assert_non_null(d.src);
    assert_non_null(d.a);
    assert_non_null(d.b);
    for (size_t k = 0; k < in_size; k++) {
        *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
        d.src[k] = (uint8_t)*x;
    }
    return d;
}

static void free_records(decoding *d)
{
    free(d->src);
    free(d->a);
    free(d->b);
}

static void test_decoders_fill_every_byte(void **state)
{
    (void)state;
    enum { CAP = 1024, RECORDS = 3 };
    static const bk_schema *list[CAP];
    size_t n = all_schemas(list, CAP);
    assert_true(n > 100);
    uint64_t x = 0x9E3779B97F4A7C15u;
    size_t skipped_clear = 0;
    for (size_t i = 0; i < n; i++) {
        const bk_schema *sc = list[i];
        decoding d = random_records(sc, RECORDS, &x);
        uint8_t *src = d.src, *a = d.a, *b = d.b;
        size_t out_size = d.out_size;
        for (int be = 0; be < 2; be++) {
            memset(a, 0x00, out_size);
            memset(b, 0xFF, out_size);
            sc->decode(src, RECORDS, be, a);
            sc->decode(src, RECORDS, be, b);
            if (memcmp(a, b, out_size) != 0)
                fail_msg("%s (%u-byte records): a decoded record keeps bytes it was given", sc->name,
                         sc->record_size);
        }
        skipped_clear += sc->native_size <= 64;
        free_records(&d);
    }
    assert_true(skipped_clear > 10);
}

/* The shuffle plans (core/schema_plan.h) decode every schema's records to
 * the bytes the field-by-field decoder writes: random records in both byte
 * orders, with AVX2 allowed (plans) and refused (fields), over zeros and
 * 0xFF bytes. The records of the large lumps must have plans. */
static void test_plans_decode_as_fields(void **state)
{
    (void)state;
    if (!bk_cpu_has_avx2()) {
        print_message("no AVX2 here: the plans are not used\n");
        skip();
    }
    enum { CAP = 1024 };
    /* Counts around every group size (records under 32 bytes are planned
     * a few at a time), and one that is not near any. */
    static const size_t counts[] = {16, 17, 18, 19, 20, 21, 22, 23, 61};
    static const bk_schema *list[CAP];
    size_t n = all_schemas(list, CAP);
    uint64_t x = 0x2545F4914F6CDD1Du;
    size_t planned = 0;
    for (size_t i = 0; i < n; i++) {
        const bk_schema *sc = list[i];
        bk_plan plan;
        planned += sc->plan && sc->plan(&plan, false);
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            const size_t records = counts[c];
            decoding d = random_records(sc, records, &x);
            uint8_t *src = d.src, *a = d.a, *b = d.b;
            size_t out_size = d.out_size;
            for (int be = 0; be < 2; be++)
                for (int fill = 0; fill < 2; fill++) {
                    memset(a, fill ? 0xFF : 0x00, out_size);
                    memset(b, fill ? 0x00 : 0xFF, out_size);
                    sc->decode(src, records, be, a);
                    bk_cpu_allow_avx2(false);
                    sc->decode(src, records, be, b);
                    bk_cpu_allow_avx2(true);
                    for (size_t k = 0; k < out_size; k++)
                        if (a[k] != b[k])
                            fail_msg("%s (%u-byte records, %s): record %zu byte %zu is %02X with the plan, %02X "
                                     "field by field",
                                     sc->name, sc->record_size, be ? "big-endian" : "little-endian",
                                     k / sc->native_size, k % sc->native_size, a[k], b[k]);
                }
            free_records(&d);
        }
    }
    const bk_schema *must[] = {&bk_quake_face29, &bk_quake_node29, &bk_quake_leaf29, &bk_quake_face_bsp2,
                               &bk_quake_node_bsp2, &bk_quake_leaf_bsp2, &bk_q2_face, &bk_q2_node,
                               &bk_q2_leaf, &bk_q3_node, &bk_q3_leaf, &bk_q3_surface,
                               &bk_quake_clipnode29};
    for (size_t i = 0; i < sizeof must / sizeof must[0]; i++) {
        bk_plan plan;
        if (!must[i]->plan || !must[i]->plan(&plan, false) || !must[i]->plan(&plan, true))
            fail_msg("%s (%u-byte records): no plan", must[i]->name, must[i]->record_size);
    }
    print_message("%zu of %zu schemas decode by plan\n", planned, n);
    assert_true(planned > 40);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_node29_decode_both_orders),
        cmocka_unit_test(test_widen_u16_keeps_the_largest),
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
        cmocka_unit_test(test_source_leaf_water),
        cmocka_unit_test(test_source_primitives),
        cmocka_unit_test(test_source_u16_lumps),
        cmocka_unit_test(test_source_portals),
        cmocka_unit_test(test_source_dispinfo),
        cmocka_unit_test(test_source_disp_records),
        cmocka_unit_test(test_source_overlays),
        cmocka_unit_test(test_source_worldlights),
        cmocka_unit_test(test_source_leaf_ambient),
        cmocka_unit_test(test_source_occluders),
        cmocka_unit_test(test_plans_decode_as_fields),
        cmocka_unit_test(test_decoders_fill_every_byte),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
