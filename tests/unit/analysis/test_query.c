/* Spatial queries on the sample rooms and on hand-built maps. Expectations
 * come from the room geometry documented in src/write/sample.c (room
 * [-64,64]x[-64,64]x[0,128], 16-unit walls, player hull boxes), from the
 * engines' plane rules, and from vis bits written by hand here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "bspkit/query.h"
#include "bspkit/write.h"
#include "check.h"

static bspkit_vec3 v3(float x, float y, float z) { return (bspkit_vec3){x, y, z}; }

typedef struct opened {
    uint8_t *bytes;
    size_t size;
    bspkit_map *map;
} opened;

static opened open_kind(bspkit_sample_kind kind)
{
    opened o = {0};
    CHECK(bspkit_sample_build(kind, &o.bytes, &o.size, ERR));
    CHECK(bspkit_open_memory(o.bytes, o.size, NULL, &o.map, ERR));
    return o;
}

static opened open_builder(const bspkit_builder *b, const bspkit_write_options *opts)
{
    opened o = {0};
    CHECK(bspkit_builder_write(b, opts, &o.bytes, &o.size, ERR));
    CHECK(bspkit_open_memory(o.bytes, o.size, NULL, &o.map, ERR));
    return o;
}

static void close_opened(opened *o)
{
    bspkit_close(o->map);
    bspkit_free_buffer(o->bytes);
}

static uint32_t leaf_at(bspkit_map *map, int model, bspkit_vec3 p)
{
    uint32_t leaf = 999;
    CHECK(bspkit_point_leaf(map, model, p, &leaf, ERR));
    return leaf;
}

static int32_t contents_at(bspkit_map *map, bspkit_vec3 p, int hull)
{
    int32_t c = 12345;
    CHECK(bspkit_point_contents(map, p, hull, &c, ERR));
    return c;
}

/* ---- Quake / GoldSrc rooms ------------------------------------------------ */

static void check_quake_room_hull0(bspkit_map *m)
{
    /* Room interior: the one empty leaf 1. */
    assert_int_equal(leaf_at(m, 0, v3(0, 0, 64)), 1);
    assert_int_equal(contents_at(m, v3(0, 0, 64), 0), BSPKIT_Q_CONTENTS_EMPTY);
    assert_int_equal(contents_at(m, v3(-63, 63, 1), 0), BSPKIT_Q_CONTENTS_EMPTY);
    /* Inside the floor, the +x wall and the ceiling: the solid leaf 0. */
    assert_int_equal(leaf_at(m, 0, v3(0, 0, -8)), 0);
    assert_int_equal(contents_at(m, v3(0, 0, -8), 0), BSPKIT_Q_CONTENTS_SOLID);
    assert_int_equal(contents_at(m, v3(72, 0, 64), 0), BSPKIT_Q_CONTENTS_SOLID);
    assert_int_equal(contents_at(m, v3(0, 0, 136), 0), BSPKIT_Q_CONTENTS_SOLID);
    /* Far outside the map. */
    assert_int_equal(contents_at(m, v3(5000, -5000, 64), 0), BSPKIT_Q_CONTENTS_SOLID);
    assert_int_equal(contents_at(m, v3(0, 0, -9000), 0), BSPKIT_Q_CONTENTS_SOLID);
    /* Ties go to the front child: on the floor plane (normal +z, front is
     * the room) the point is in the room; on the ceiling plane (stored
     * facing +z, front is outside) it is solid. */
    assert_int_equal(contents_at(m, v3(0, 0, 0), 0), BSPKIT_Q_CONTENTS_EMPTY);
    assert_int_equal(contents_at(m, v3(0, 0, 128), 0), BSPKIT_Q_CONTENTS_SOLID);
    assert_int_equal(contents_at(m, v3(0, 0, 127.5f), 0), BSPKIT_Q_CONTENTS_EMPTY);
}

static void test_goldsrc_room(void **state)
{
    (void)state;
    opened o = open_kind(BSPKIT_SAMPLE_GOLDSRC_ROOM);
    bspkit_map *m = o.map;
    check_quake_room_hull0(m);

    /* Hull 1, standing player box z -36..36: the clip floor is at z = 36 and
     * the ceiling at 128 - 36 = 92; x walls at +-(64 - 16). */
    assert_int_equal(contents_at(m, v3(0, 0, 64), 1), BSPKIT_Q_CONTENTS_EMPTY);
    assert_int_equal(contents_at(m, v3(0, 0, 20), 1), BSPKIT_Q_CONTENTS_SOLID);
    assert_int_equal(contents_at(m, v3(0, 0, 20), 0), BSPKIT_Q_CONTENTS_EMPTY);
    assert_int_equal(contents_at(m, v3(56, 0, 64), 1), BSPKIT_Q_CONTENTS_SOLID);
    assert_int_equal(contents_at(m, v3(47, 0, 64), 1), BSPKIT_Q_CONTENTS_EMPTY);
    assert_int_equal(contents_at(m, v3(0, 0, 93), 1), BSPKIT_Q_CONTENTS_SOLID);
    assert_int_equal(contents_at(m, v3(0, 0, -500), 1), BSPKIT_Q_CONTENTS_SOLID);
    /* Hull 2, large box -32..32: floor at 32, ceiling at 96. */
    assert_int_equal(contents_at(m, v3(0, 0, 31), 2), BSPKIT_Q_CONTENTS_SOLID);
    assert_int_equal(contents_at(m, v3(0, 0, 33), 2), BSPKIT_Q_CONTENTS_EMPTY);
    assert_int_equal(contents_at(m, v3(-40, 0, 64), 2), BSPKIT_Q_CONTENTS_SOLID);
    /* Hull 3, crouching box z -18..18: floor at 18. */
    assert_int_equal(contents_at(m, v3(0, 0, 20), 3), BSPKIT_Q_CONTENTS_EMPTY);
    assert_int_equal(contents_at(m, v3(0, 0, 17), 3), BSPKIT_Q_CONTENTS_SOLID);

    int32_t c;
    assert_int_equal(bspkit_point_contents(m, v3(0, 0, 64), 4, &c, ERR), BSPKIT_ERR_ARGUMENT);
    assert_int_equal(bspkit_point_contents(m, v3(0, 0, 64), -1, &c, ERR), BSPKIT_ERR_ARGUMENT);
    assert_int_equal(bspkit_point_leaf(m, 1, v3(0, 0, 64), &(uint32_t){0}, ERR), BSPKIT_ERR_ARGUMENT);
    close_opened(&o);
}

static void test_quake_room(void **state)
{
    (void)state;
    opened o = open_kind(BSPKIT_SAMPLE_QUAKE_ROOM);
    bspkit_map *m = o.map;
    check_quake_room_hull0(m);
    /* Hull 1 box z -24..32: floor at 24, ceiling at 96. */
    assert_int_equal(contents_at(m, v3(0, 0, 23), 1), BSPKIT_Q_CONTENTS_SOLID);
    assert_int_equal(contents_at(m, v3(0, 0, 25), 1), BSPKIT_Q_CONTENTS_EMPTY);
    /* Hull 2 box z -24..64: ceiling plane at 64; a point on it goes to the
     * front child, which faces out of the room. */
    assert_int_equal(contents_at(m, v3(0, 0, 64), 2), BSPKIT_Q_CONTENTS_SOLID);
    assert_int_equal(contents_at(m, v3(0, 0, 63.5f), 2), BSPKIT_Q_CONTENTS_EMPTY);
    /* Quake has no hull 3. */
    int32_t c;
    assert_int_equal(bspkit_point_contents(m, v3(0, 0, 64), 3, &c, ERR), BSPKIT_ERR_ARGUMENT);
    close_opened(&o);
}

/* ---- Source rooms ------------------------------------------------------------ */

static void check_source_room(bspkit_map *m)
{
    /* Leaf 1 is the room, leafs 2-7 the walls in the chain order floor,
     * ceiling, -x, +x, -y, +y; leaf 8 the func_brush box (model 1). */
    assert_int_equal(leaf_at(m, 0, v3(0, 0, 64)), 1);
    assert_int_equal(contents_at(m, v3(0, 0, 64), 0), BSPKIT_S_CONTENTS_EMPTY);
    assert_int_equal(leaf_at(m, 0, v3(0, 0, -8)), 2);
    assert_int_equal(leaf_at(m, 0, v3(0, 0, 136)), 3);
    assert_int_equal(leaf_at(m, 0, v3(-72, 0, 64)), 4);
    assert_int_equal(leaf_at(m, 0, v3(72, 0, 64)), 5);
    assert_int_equal(leaf_at(m, 0, v3(0, -72, 64)), 6);
    assert_int_equal(leaf_at(m, 0, v3(0, 72, 64)), 7);
    assert_int_equal(contents_at(m, v3(0, 0, -8), 0), BSPKIT_S_CONTENTS_SOLID);
    assert_int_equal(contents_at(m, v3(72, 0, 64), 0), BSPKIT_S_CONTENTS_SOLID);
    assert_int_equal(contents_at(m, v3(0, 72, 64), 0), BSPKIT_S_CONTENTS_SOLID);
    /* Outside the map: in the ceiling leaf but in no brush; the leaf's
     * contents apply. */
    assert_int_equal(leaf_at(m, 0, v3(0, 0, 1000)), 3);
    assert_int_equal(contents_at(m, v3(0, 0, 1000), 0), BSPKIT_S_CONTENTS_SOLID);
    /* The box belongs to model 1, not to the world tree. */
    assert_int_equal(contents_at(m, v3(32, 0, 32), 0), BSPKIT_S_CONTENTS_EMPTY);
    assert_int_equal(leaf_at(m, 1, v3(32, 0, 32)), 8);
    int32_t c = -1;
    CHECK(bspkit_point_contents_model(m, 1, v3(32, 0, 32), 0, &c, ERR));
    assert_int_equal(c, BSPKIT_S_CONTENTS_SOLID);
    uint32_t outside_box = leaf_at(m, 1, v3(0, 0, 64));
    assert_true(outside_box >= 9 && outside_box <= 14);
    CHECK(bspkit_point_contents_model(m, 1, v3(0, 0, 64), 0, &c, ERR));
    assert_int_equal(c, 0);
    /* Hulls are a Quake/GoldSrc notion. */
    assert_int_equal(bspkit_point_contents(m, v3(0, 0, 64), 1, &c, ERR), BSPKIT_ERR_ARGUMENT);
    assert_non_null(strstr(g_err.message, "Source"));
}

static void test_source_rooms(void **state)
{
    (void)state;
    const bspkit_sample_kind kinds[] = {BSPKIT_SAMPLE_SOURCE_ROOM, BSPKIT_SAMPLE_SOURCE_ROOM_BE,
                                        BSPKIT_SAMPLE_SOURCE_ROOM_LZMA};
    for (size_t i = 0; i < 3; i++) {
        opened o = open_kind(kinds[i]);
        check_source_room(o.map);
        close_opened(&o);
    }
}

/* The brushes decide over the leaf: brush 0 (the floor slab z -16..0)
 * becomes WATER|DETAIL while its leaf stays SOLID. */
static void test_source_brush_contents(void **state)
{
    (void)state;
    opened src = open_kind(BSPKIT_SAMPLE_SOURCE_ROOM);
    const bspkit_brush *brushes;
    size_t nbrushes;
    CHECK(bspkit_get_brushes(src.map, &brushes, &nbrushes, ERR));
    assert_int_equal(nbrushes, 7);
    bspkit_brush *copy = malloc(nbrushes * sizeof *copy);
    assert_non_null(copy);
    memcpy(copy, brushes, nbrushes * sizeof *copy);
    copy[0].contents = BSPKIT_S_CONTENTS_WATER | BSPKIT_S_CONTENTS_DETAIL;

    bspkit_builder *b;
    bspkit_write_options opts;
    CHECK(bspkit_sample_builder(BSPKIT_SAMPLE_SOURCE_ROOM, &b, &opts, ERR));
    CHECK(bspkit_builder_set_brushes(b, copy, nbrushes, ERR));
    for (int be = 0; be < 2; be++) {
        opts.big_endian = be;
        opened o = open_builder(b, &opts);
        assert_int_equal(contents_at(o.map, v3(0, 0, -8), 0), BSPKIT_S_CONTENTS_WATER | BSPKIT_S_CONTENTS_DETAIL);
        /* On the slab's bottom face: still inside (behind or on every side). */
        assert_int_equal(leaf_at(o.map, 0, v3(0, 0, -16)), 2);
        assert_int_equal(contents_at(o.map, v3(0, 0, -16), 0), BSPKIT_S_CONTENTS_WATER | BSPKIT_S_CONTENTS_DETAIL);
        /* Below the slab, still in leaf 2: no brush, so the leaf's SOLID. */
        assert_int_equal(leaf_at(o.map, 0, v3(0, 0, -20)), 2);
        assert_int_equal(contents_at(o.map, v3(0, 0, -20), 0), BSPKIT_S_CONTENTS_SOLID);
        close_opened(&o);
    }
    bspkit_builder_free(b);
    free(copy);
    close_opened(&src);
}

/* ---- hostile trees ------------------------------------------------------------ */

/* A Quake map with one plane (x = 0, axial), `n` nodes and 2 leafs. */
static opened quake_tree(const bspkit_node *nodes, size_t n, int32_t headnode, const bspkit_clipnode *clip,
                         size_t nclip)
{
    bspkit_builder *b;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_GOLDSRC, 30, &b, ERR));
    const bspkit_plane plane = {{1, 0, 0}, 0, 0};
    bspkit_leaf leafs[2];
    memset(leafs, 0, sizeof leafs);
    leafs[0].contents = -2;
    leafs[1].contents = -1;
    leafs[0].vis_offset = leafs[1].vis_offset = -1;
    bspkit_model model;
    memset(&model, 0, sizeof model);
    model.headnode[0] = headnode;
    model.headnode[1] = 0;
    CHECK(bspkit_builder_set_planes(b, &plane, 1, ERR));
    CHECK(bspkit_builder_set_nodes(b, nodes, n, ERR));
    CHECK(bspkit_builder_set_leafs(b, leafs, 2, ERR));
    CHECK(bspkit_builder_set_models(b, &model, 1, ERR));
    if (clip)
        CHECK(bspkit_builder_set_clipnodes(b, clip, nclip, ERR));
    opened o = open_builder(b, NULL);
    bspkit_builder_free(b);
    return o;
}

static void expect_index_error(bspkit_map *m, bspkit_vec3 p, const char *fragment)
{
    uint32_t leaf;
    assert_int_equal(bspkit_point_leaf(m, 0, p, &leaf, ERR), BSPKIT_ERR_INDEX);
    if (!strstr(g_err.message, fragment))
        fail_msg("message '%s' lacks '%s'", g_err.message, fragment);
    int32_t c;
    assert_int_equal(bspkit_point_contents(m, p, 0, &c, ERR), BSPKIT_ERR_INDEX);
}

static void test_cyclic_tree(void **state)
{
    (void)state;
    /* Node 0's front (x >= 0) leads to node 1, whose front leads back. */
    bspkit_node nodes[2];
    memset(nodes, 0, sizeof nodes);
    nodes[0].children[0] = 1;
    nodes[0].children[1] = -1;
    nodes[1].children[0] = 0;
    nodes[1].children[1] = -2;
    bspkit_clipnode clip[2] = {{0, {1, -1}}, {0, {0, -2}}};
    opened o = quake_tree(nodes, 2, 0, clip, 2);
    expect_index_error(o.map, v3(5, 0, 0), "cycle");
    assert_int_equal(g_err.lump, BSPKIT_Q_NODES);
    /* The back side is a clean leaf. */
    assert_int_equal(leaf_at(o.map, 0, v3(-5, 0, 0)), 0);
    /* The same cycle in the clip hull. */
    int32_t c;
    assert_int_equal(bspkit_point_contents(o.map, v3(5, 0, 0), 1, &c, ERR), BSPKIT_ERR_INDEX);
    assert_int_equal(g_err.lump, BSPKIT_Q_CLIPNODES);
    assert_int_equal(contents_at(o.map, v3(-5, 0, 0), 1), -1);
    close_opened(&o);

    /* A node that is its own child. */
    nodes[0].children[0] = 0;
    o = quake_tree(nodes, 1, 0, NULL, 0);
    expect_index_error(o.map, v3(5, 0, 0), "cycle");
    /* No clipnodes at all: hull 1 cannot be walked. */
    assert_int_equal(bspkit_point_contents(o.map, v3(5, 0, 0), 1, &c, ERR), BSPKIT_ERR_NOT_FOUND);
    close_opened(&o);
}

static void test_bad_indices(void **state)
{
    (void)state;
    bspkit_node node;
    memset(&node, 0, sizeof node);

    node.children[0] = 7; /* no node 7 */
    node.children[1] = -1;
    opened o = quake_tree(&node, 1, 0, NULL, 0);
    expect_index_error(o.map, v3(1, 0, 0), "outside");
    assert_true(g_err.offset > 0); /* the node record's place in the file */
    close_opened(&o);

    node.children[0] = -9; /* leaf 8 of 2 */
    o = quake_tree(&node, 1, 0, NULL, 0);
    expect_index_error(o.map, v3(1, 0, 0), "leaf 8");
    close_opened(&o);

    node.children[0] = -2;
    node.plane = 3; /* one plane only */
    o = quake_tree(&node, 1, 0, NULL, 0);
    expect_index_error(o.map, v3(1, 0, 0), "plane 3");
    close_opened(&o);

    node.plane = 0;
    o = quake_tree(&node, 1, 4, NULL, 0); /* head node 4 of 1 */
    expect_index_error(o.map, v3(1, 0, 0), "head node 4");
    close_opened(&o);

    o = quake_tree(&node, 1, 0, NULL, 0); /* the healthy tree */
    assert_int_equal(leaf_at(o.map, 0, v3(1, 0, 0)), 1);
    assert_int_equal(leaf_at(o.map, 0, v3(-1, 0, 0)), 0);
    close_opened(&o);
}

/* A Source room whose last chain node points back at the first: every
 * point inside the room walks the whole chain and loops. */
static void test_source_cycle(void **state)
{
    (void)state;
    opened src = open_kind(BSPKIT_SAMPLE_SOURCE_ROOM);
    const bspkit_node *nodes;
    size_t n;
    CHECK(bspkit_get_nodes(src.map, &nodes, &n, ERR));
    assert_int_equal(n, 12);
    bspkit_node copy[12];
    memcpy(copy, nodes, sizeof copy);
    /* Node 5 is the +y wall (facing -y): its back child leads inward. */
    assert_int_equal(copy[5].children[1], -2);
    copy[5].children[1] = 0;
    bspkit_builder *b;
    bspkit_write_options opts;
    CHECK(bspkit_sample_builder(BSPKIT_SAMPLE_SOURCE_ROOM, &b, &opts, ERR));
    CHECK(bspkit_builder_set_nodes(b, copy, 12, ERR));
    for (int be = 0; be < 2; be++) {
        opts.big_endian = be;
        opened o = open_builder(b, &opts);
        expect_index_error(o.map, v3(0, 0, 64), "cycle");
        assert_int_equal(leaf_at(o.map, 0, v3(0, 0, -8)), 2); /* walls still resolve */
        close_opened(&o);
    }
    bspkit_builder_free(b);
    close_opened(&src);
}

/* ---- visibility ------------------------------------------------------------------ */

static uint32_t clusters_seen(bspkit_map *m, uint32_t leaf, bspkit_vis_kind kind)
{
    uint32_t n = 999;
    CHECK(bspkit_leaf_visible_clusters(m, leaf, kind, &n, ERR));
    return n;
}

static uint32_t leafs_seen(bspkit_map *m, uint32_t leaf, bspkit_vis_kind kind)
{
    uint32_t n = 999;
    CHECK(bspkit_leaf_visible_leafs(m, leaf, kind, &n, ERR));
    return n;
}

static int32_t cluster_of(bspkit_map *m, uint32_t leaf)
{
    int32_t c = 999;
    CHECK(bspkit_leaf_cluster(m, leaf, &c, ERR));
    return c;
}

static void test_sample_vis(void **state)
{
    (void)state;
    /* Every sample has one vis row in which the room sees itself. */
    for (int k = 0; k < BSPKIT_SAMPLE_COUNT; k++) {
        opened o = open_kind((bspkit_sample_kind)k);
        assert_int_equal(cluster_of(o.map, 0), -1);
        assert_int_equal(cluster_of(o.map, 1), 0);
        assert_int_equal(clusters_seen(o.map, 1, BSPKIT_VIS_PVS), 1);
        assert_int_equal(clusters_seen(o.map, 1, BSPKIT_VIS_PAS), 1);
        assert_int_equal(leafs_seen(o.map, 1, BSPKIT_VIS_PVS), 1);
        assert_int_equal(clusters_seen(o.map, 0, BSPKIT_VIS_PVS), 0);
        struct bspkit_vis_stats st;
        CHECK(bspkit_vis_stats(o.map, &st, ERR));
        assert_int_equal(st.rows, 1);
        assert_true(st.average_visible == 100.0);
        assert_int_equal(st.min_visible, 1);
        assert_int_equal(st.max_visible, 1);
        bspkit_lump_info li;
        bspkit_family family = bspkit_map_format(o.map)->family;
        CHECK(bspkit_get_lump_info(o.map,
                                   family == BSPKIT_FAMILY_QUAKE2   ? BSPKIT_Q2_VISIBILITY
                                   : family == BSPKIT_FAMILY_QUAKE3 ? BSPKIT_Q3_VISIBILITY
                                                                    : BSPKIT_Q_VISIBILITY,
                                   &li));
        assert_int_equal(st.compressed_size, li.uncompressed_length);
        int32_t dummy;
        assert_int_equal(bspkit_leaf_cluster(o.map, 5000, &dummy, ERR), BSPKIT_ERR_ARGUMENT);
        close_opened(&o);
    }
}

/* Quake: 4 visible leafs (rows 0-3 = leafs 1-4) and one brush-model leaf 5.
 * PVS bits: leaf 1 {0,1}, leaf 2 {1,2}, leaf 3 {2} with no vis data (offset
 * -1: sees all), leaf 4 {0,3}. */
static void test_quake_vis(void **state)
{
    (void)state;
    bspkit_builder *b;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_QUAKE, 29, &b, ERR));
    const uint8_t rows[4] = {0x03, 0x06, 0x04, 0x09};
    int32_t ofs[4];
    CHECK(bspkit_builder_set_visibility(b, 4, 1, rows, NULL, ofs, ERR));
    bspkit_leaf leafs[6];
    memset(leafs, 0, sizeof leafs);
    for (int i = 0; i < 6; i++) {
        leafs[i].contents = i == 0 ? -2 : -1;
        leafs[i].vis_offset = i >= 1 && i <= 4 ? ofs[i - 1] : -1;
    }
    leafs[3].vis_offset = -1;
    bspkit_model model;
    memset(&model, 0, sizeof model);
    model.vis_leafs = 4;
    CHECK(bspkit_builder_set_leafs(b, leafs, 6, ERR));
    CHECK(bspkit_builder_set_models(b, &model, 1, ERR));
    opened o = open_builder(b, NULL);
    bspkit_builder_free(b);
    bspkit_map *m = o.map;

    assert_int_equal(cluster_of(m, 0), -1);
    assert_int_equal(cluster_of(m, 3), 2);
    assert_int_equal(cluster_of(m, 5), -1); /* past vis_leafs */
    /* PVS. Leaf 3 sees all 4 rows; bits past row 3 are not counted. */
    assert_int_equal(clusters_seen(m, 1, BSPKIT_VIS_PVS), 2);
    assert_int_equal(clusters_seen(m, 2, BSPKIT_VIS_PVS), 2);
    assert_int_equal(clusters_seen(m, 3, BSPKIT_VIS_PVS), 4);
    assert_int_equal(clusters_seen(m, 4, BSPKIT_VIS_PVS), 2);
    assert_int_equal(leafs_seen(m, 4, BSPKIT_VIS_PVS), 2);
    assert_int_equal(clusters_seen(m, 5, BSPKIT_VIS_PVS), 0);
    /* PAS = PVS ORed with the PVS of each visible leaf:
     * leaf 1: {0,1} | {0,1} | {1,2} = {0,1,2}
     * leaf 2: {1,2} | {1,2} | all = all
     * leaf 4: {0,3} | {0,1} | {0,3} = {0,1,3} */
    uint8_t row[1];
    CHECK(bspkit_leaf_vis_row(m, 1, BSPKIT_VIS_PAS, row, 1, ERR));
    assert_int_equal(row[0], 0x07);
    CHECK(bspkit_leaf_vis_row(m, 2, BSPKIT_VIS_PAS, row, 1, ERR));
    assert_int_equal(row[0], 0x0F);
    CHECK(bspkit_leaf_vis_row(m, 4, BSPKIT_VIS_PAS, row, 1, ERR));
    assert_int_equal(row[0], 0x0B);
    assert_int_equal(clusters_seen(m, 4, BSPKIT_VIS_PAS), 3);
    CHECK(bspkit_leaf_vis_row(m, 3, BSPKIT_VIS_PVS, row, 1, ERR));
    assert_int_equal(row[0], 0x0F);

    /* Stats: visible counts 2, 2, 4, 2 of 4 rows. */
    struct bspkit_vis_stats st;
    CHECK(bspkit_vis_stats(m, &st, ERR));
    assert_int_equal(st.rows, 4);
    assert_int_equal(st.row_bytes, 1);
    assert_int_equal(st.visible_pairs, 10);
    assert_true(st.average_visible > 62.4999 && st.average_visible < 62.5001);
    assert_int_equal(st.min_visible, 2);
    assert_int_equal(st.max_visible, 4);
    assert_int_equal(st.uncompressed_size, 4);
    bspkit_lump_info li;
    CHECK(bspkit_get_lump_info(m, BSPKIT_Q_VISIBILITY, &li));
    assert_int_equal(st.compressed_size, li.length);
    close_opened(&o);
}

/* Source: 10 clusters (2-byte rows). PVS of cluster c = {c, c+1}, PAS =
 * {c, c+1, c+2} (mod 10). Leaf 0 has no cluster; leaf i (1..12) is in
 * cluster (i - 1) % 10, so clusters 0 and 1 hold two leafs each. */
static void test_source_vis(void **state)
{
    (void)state;
    uint8_t pvs[20], pas[20];
    memset(pvs, 0, sizeof pvs);
    memset(pas, 0, sizeof pas);
    for (int c = 0; c < 10; c++)
        for (int k = 0; k < 3; k++) {
            int bit = (c + k) % 10;
            if (k < 2)
                pvs[2 * c + bit / 8] |= (uint8_t)(1u << (bit % 8));
            pas[2 * c + bit / 8] |= (uint8_t)(1u << (bit % 8));
        }
    bspkit_leaf leafs[13];
    memset(leafs, 0, sizeof leafs);
    for (int i = 0; i < 13; i++) {
        leafs[i].cluster = i == 0 ? -1 : (i - 1) % 10;
        leafs[i].vis_offset = -1;
        leafs[i].leaf_water = -1;
        leafs[i].contents = i == 0 ? 1 : 0;
    }
    bspkit_builder *b;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_SOURCE, 20, &b, ERR));
    CHECK(bspkit_builder_set_visibility(b, 10, 2, pvs, pas, NULL, ERR));
    CHECK(bspkit_builder_set_leafs(b, leafs, 13, ERR));
    for (int mode = 0; mode < 3; mode++) {
        bspkit_write_options opts = {0};
        opts.big_endian = mode == 1;
        opts.compress_lzma = mode == 2;
        opened o = open_builder(b, &opts);
        bspkit_map *m = o.map;
        assert_int_equal(cluster_of(m, 11), 0);
        assert_int_equal(clusters_seen(m, 1, BSPKIT_VIS_PVS), 2);
        assert_int_equal(leafs_seen(m, 1, BSPKIT_VIS_PVS), 4);  /* leafs 1, 2, 11, 12 */
        assert_int_equal(clusters_seen(m, 1, BSPKIT_VIS_PAS), 3);
        assert_int_equal(leafs_seen(m, 1, BSPKIT_VIS_PAS), 5);  /* + leaf 3 */
        assert_int_equal(leafs_seen(m, 10, BSPKIT_VIS_PVS), 3); /* clusters 9, 0: leafs 10, 1, 11 */
        assert_int_equal(leafs_seen(m, 0, BSPKIT_VIS_PVS), 0);
        uint8_t row[2];
        CHECK(bspkit_leaf_vis_row(m, 9, BSPKIT_VIS_PAS, row, 2, ERR)); /* cluster 8: {8, 9, 0} */
        assert_int_equal(row[0], 0x01);
        assert_int_equal(row[1], 0x03);
        assert_int_equal(bspkit_leaf_vis_row(m, 9, BSPKIT_VIS_PAS, row, 1, ERR), BSPKIT_ERR_ARGUMENT);
        struct bspkit_vis_stats st;
        CHECK(bspkit_vis_stats(m, &st, ERR));
        assert_int_equal(st.rows, 10);
        assert_int_equal(st.row_bytes, 2);
        assert_true(st.average_visible > 19.9999 && st.average_visible < 20.0001);
        assert_int_equal(st.min_visible, 2);
        assert_int_equal(st.max_visible, 2);
        assert_int_equal(st.uncompressed_size, 4 + 8 * 10 + 2 * 10 * 2);
        bspkit_lump_info li;
        CHECK(bspkit_get_lump_info(m, BSPKIT_S_VISIBILITY, &li));
        assert_int_equal(st.compressed_size, li.uncompressed_length);
        close_opened(&o);
    }
    /* Validation walks every row: cluster 3's PAS made to start at the
     * lump's last byte (a 2-byte row cannot come from it) and cluster 5's
     * PVS past the lump are reported, and nothing else about visibility. */
    {
        opened w = open_builder(b, NULL);
        bspkit_lump_info vi;
        CHECK(bspkit_get_lump_info(w.map, BSPKIT_S_VISIBILITY, &vi));
        bspkit_close(w.map);
        uint8_t *vis = w.bytes + vi.offset;
        uint32_t last = (uint32_t)vi.length - 1, past = (uint32_t)vi.length;
        memcpy(vis + 4 + 8 * 3 + 4, &last, 4); /* little-endian, as written */
        memcpy(vis + 4 + 8 * 5, &past, 4);
        CHECK(bspkit_open_memory(w.bytes, w.size, NULL, &w.map, ERR));
        bspkit_report rep;
        CHECK(bspkit_validate(w.map, &rep, ERR));
        int seen = 0;
        for (size_t i = 0; i < rep.count; i++) {
            const bspkit_problem *pr = &rep.problems[i];
            if (pr->code != BSPKIT_ERR_VISIBILITY)
                continue;
            seen++;
            if (pr->record == 3)
                assert_non_null(strstr(pr->message, "PAS of cluster 3: VISIBILITY: row 3"));
            else
                assert_non_null(strstr(pr->message, "PVS of cluster 5: VISIBILITY: row 5 offset"));
        }
        assert_int_equal(seen, 2);
        bspkit_report_free(&rep);
        close_opened(&w);
    }
    /* A leaf naming a cluster the vis data lacks. */
    leafs[4].cluster = 10;
    CHECK(bspkit_builder_set_leafs(b, leafs, 13, ERR));
    opened o = open_builder(b, NULL);
    int32_t c;
    assert_int_equal(bspkit_leaf_cluster(o.map, 4, &c, ERR), BSPKIT_ERR_INDEX);
    assert_int_equal(g_err.lump, BSPKIT_S_LEAFS);
    close_opened(&o);
    bspkit_builder_free(b);
}

static void test_contents_names(void **state)
{
    (void)state;
    char buf[128];
    assert_string_equal(bspkit_quake_contents_name(-1), "EMPTY");
    assert_string_equal(bspkit_quake_contents_name(-2), "SOLID");
    assert_string_equal(bspkit_quake_contents_name(-3), "WATER");
    assert_string_equal(bspkit_quake_contents_name(-6), "SKY");
    assert_string_equal(bspkit_quake_contents_name(-16), "LADDER");
    assert_null(bspkit_quake_contents_name(0));
    assert_null(bspkit_quake_contents_name(-17));
    assert_null(bspkit_quake_contents_name(INT32_MIN));
    bspkit_contents_describe(BSPKIT_FAMILY_GOLDSRC, -5, buf, sizeof buf);
    assert_string_equal(buf, "LAVA");
    bspkit_contents_describe(BSPKIT_FAMILY_QUAKE, 3, buf, sizeof buf);
    assert_string_equal(buf, "UNKNOWN(3)");
    bspkit_contents_describe(BSPKIT_FAMILY_SOURCE, 0, buf, sizeof buf);
    assert_string_equal(buf, "EMPTY");
    bspkit_contents_describe(BSPKIT_FAMILY_SOURCE, 0x1 | 0x20 | 0x8000000, buf, sizeof buf);
    assert_string_equal(buf, "SOLID|WATER|DETAIL");
    size_t need = bspkit_contents_describe(BSPKIT_FAMILY_SOURCE, (int32_t)0x80000201u, buf, sizeof buf);
    assert_string_equal(buf, "SOLID|0x200|0x80000000");
    assert_int_equal(need, strlen(buf));
    /* Truncation keeps a terminated prefix and reports the full length. */
    char small[6];
    need = bspkit_contents_describe(BSPKIT_FAMILY_SOURCE, 0x1 | 0x20, small, sizeof small);
    assert_int_equal(need, strlen("SOLID|WATER"));
    assert_string_equal(small, "SOLID");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_goldsrc_room),    cmocka_unit_test(test_quake_room),
        cmocka_unit_test(test_source_rooms),    cmocka_unit_test(test_source_brush_contents),
        cmocka_unit_test(test_cyclic_tree),     cmocka_unit_test(test_bad_indices),
        cmocka_unit_test(test_source_cycle),    cmocka_unit_test(test_sample_vis),
        cmocka_unit_test(test_quake_vis),       cmocka_unit_test(test_source_vis),
        cmocka_unit_test(test_contents_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
