/* The Quake/GoldSrc .map decompiler on the generated rooms and on small
 * trees built here by hand. The output is read back by tests/decompile's
 * .map reader and checked against the map itself: planes from the three
 * points against the map's PLANES and the model's box, contents at random
 * points against bspkit_point_contents_model(), texture names against the
 * faces, key/values against the entity lump. Brush counts of the hand-built
 * trees follow from their construction (an L merges to 2, two boxes of
 * different depth stay 2). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"

#include "bspkit/decompile.h"
#include "bspkit/write.h"
#include "decompile/map_read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct result {
    char *text;
    size_t size;
    bspkit_decompile_stats st;
    mr_map m;
} result;

static void decompile(bspkit_map *map, bool no_merge, result *r)
{
    bspkit_decompile_options o = {.no_merge = no_merge};
    CHECK(bspkit_decompile_memory(map, &o, &r->text, &r->size, &r->st, ERR));
    char why[256];
    if (!mr_parse(r->text, r->size, &r->m, why, sizeof why))
        fail_msg("output does not parse: %s\n%s", why, r->text);
}

static void result_free(result *r)
{
    free(r->text);
    mr_free(&r->m);
}

static bspkit_map *open_owned(uint8_t *buf, size_t size)
{
    bspkit_options o = {.flags = BSPKIT_OPEN_COPY};
    bspkit_map *m;
    CHECK(bspkit_open_memory(buf, size, &o, &m, ERR));
    bspkit_free_buffer(buf);
    return m;
}

static void assert_agrees(bspkit_map *map, const mr_map *m, size_t min_models)
{
    mr_agreement ag;
    char why[256];
    if (!mr_agree(map, m, 4000, 777, &ag, why, sizeof why))
        fail_msg("%s", why);
    assert_true(ag.models >= min_models);
    assert_true(ag.solid_points > 0);
    if (ag.worst < 99.9)
        fail_msg("model %d: %.3f%% of points agree", ag.worst_model, ag.worst);
}

/* Every side's plane, rebuilt from its points as qbsp does, is one of the
 * map's planes (either orientation) or a face of its model's box, moved by
 * the entity's origin; and the brush's point average lies behind it. */
static void assert_planes(bspkit_map *map, const mr_map *m)
{
    const bspkit_plane *planes;
    const bspkit_model *models;
    size_t np, nm;
    CHECK(bspkit_get_planes(map, &planes, &np, ERR));
    CHECK(bspkit_get_models(map, &models, &nm, ERR));
    for (size_t e = 0; e < m->nents; e++) {
        const char *o = mr_value(m, e, "origin");
        double sh[3] = {0, 0, 0};
        if (m->ents[e].nbrushes && o)
            assert_int_equal(sscanf(o, "%lf %lf %lf", &sh[0], &sh[1], &sh[2]), 3);
        for (size_t bi = 0; bi < m->ents[e].nbrushes; bi++) {
            const mr_brush *b = &m->brushes[m->ents[e].first_brush + bi];
            if (mr_brush_kind(m, m->ents[e].first_brush + bi) == MR_ORIGIN)
                continue;
            double c[3] = {0, 0, 0};
            for (size_t s = 0; s < b->nsides; s++)
                for (int k = 0; k < 3; k++)
                    for (int j = 0; j < 3; j++)
                        c[j] += m->sides[b->first_side + s].pts[k][j] / (3.0 * (double)b->nsides);
            for (size_t s = 0; s < b->nsides; s++) {
                const mr_side *sd = &m->sides[b->first_side + s];
                assert_true(sd->n[0] * c[0] + sd->n[1] * c[1] + sd->n[2] * c[2] - sd->d < -1e-3);
                double d = sd->d - (sd->n[0] * sh[0] + sd->n[1] * sh[1] + sd->n[2] * sh[2]);
                bool found = false;
                for (size_t p = 0; p < np && !found; p++) {
                    double dot = sd->n[0] * planes[p].normal.x + sd->n[1] * planes[p].normal.y +
                                 sd->n[2] * planes[p].normal.z;
                    found = (dot > 1 - 1e-6 && fabs(d - planes[p].dist) < 1e-3) ||
                            (dot < -1 + 1e-6 && fabs(d + planes[p].dist) < 1e-3);
                }
                for (size_t mi = 0; mi < nm && !found; mi++) {
                    const float lo[3] = {models[mi].mins.x, models[mi].mins.y, models[mi].mins.z};
                    const float hi[3] = {models[mi].maxs.x, models[mi].maxs.y, models[mi].maxs.z};
                    for (int j = 0; j < 3 && !found; j++)
                        found = (sd->n[j] > 1 - 1e-9 && fabs(d - hi[j]) < 1e-3) ||
                                (sd->n[j] < -1 + 1e-9 && fabs(d + lo[j]) < 1e-3);
                }
                if (!found)
                    fail_msg("entity %zu brush %zu side %zu: plane (%g %g %g) %g is no plane of the map", e, bi, s,
                             sd->n[0], sd->n[1], sd->n[2], sd->d);
            }
        }
    }
}

static bool has_texture(const mr_map *m, const char *name)
{
    for (size_t s = 0; s < m->nsides; s++)
        if (strcmp(m->sides[s].tex, name) == 0)
            return true;
    return false;
}

/* ---- the generated rooms ------------------------------------------------------ */

static void room(bspkit_sample_kind kind, const char *tool)
{
    uint8_t *buf;
    size_t size;
    CHECK(bspkit_sample_build(kind, &buf, &size, ERR));
    bspkit_map *map = open_owned(buf, size);
    result r = {0};
    decompile(map, false, &r);
    assert_agrees(map, &r.m, 1);
    assert_planes(map, &r.m);
    /* Every face's texture is on some side; the rest are the tool texture. */
    const bspkit_face *faces;
    const bspkit_texinfo *ti;
    const bspkit_miptex *mt;
    size_t nf, nti, nmt;
    CHECK(bspkit_get_faces(map, &faces, &nf, ERR));
    CHECK(bspkit_get_texinfo(map, &ti, &nti, ERR));
    CHECK(bspkit_get_miptex(map, &mt, &nmt, ERR));
    assert_true(nf > 0);
    for (size_t f = 0; f < nf; f++)
        assert_true(has_texture(&r.m, mt[ti[faces[f].texinfo].texture].name));
    assert_true(has_texture(&r.m, tool));
    assert_int_equal(r.st.tool_sides + nf, r.st.sides); /* the room's 6 faces each texture one side */
    /* The world: the first entity, with the map's keys and mapversion 220. */
    assert_string_equal(mr_value(&r.m, 0, "classname"), "worldspawn");
    assert_string_equal(mr_value(&r.m, 0, "mapversion"), "220");
    assert_string_equal(mr_value(&r.m, 0, "message"), "bspkit sample room");
    assert_string_equal(mr_value(&r.m, 1, "classname"), "info_player_start");
    assert_int_equal(r.m.nents, 3);
    assert_int_equal(r.m.nbrushes, r.st.brushes);
    /* The shell of a room cannot merge: six slabs. */
    assert_int_equal(r.st.leaves, 6);
    assert_int_equal(r.st.brushes, 6);
    result_free(&r);
    bspkit_close(map);
}

static void test_goldsrc_room(void **state)
{
    (void)state;
    room(BSPKIT_SAMPLE_GOLDSRC_ROOM, "NULL");
}

static void test_quake_room(void **state)
{
    (void)state;
    room(BSPKIT_SAMPLE_QUAKE_ROOM, "skip");
}

static void test_source_refused(void **state)
{
    (void)state;
    uint8_t *buf;
    size_t size;
    CHECK(bspkit_sample_build(BSPKIT_SAMPLE_SOURCE_ROOM, &buf, &size, ERR));
    bspkit_map *map = open_owned(buf, size);
    bspkit_decompile_options o = {.format = BSPKIT_DECOMPILE_MAP};
    char *text;
    size_t n;
    assert_int_equal(bspkit_decompile_memory(map, &o, &text, &n, NULL, ERR), BSPKIT_ERR_UNSUPPORTED);
    bspkit_close(map);
}

/* ---- hand-built trees ---------------------------------------------------------- */

enum { SOLID = -2, EMPTY = -1 };

static bspkit_plane axial(int axis, float dist)
{
    bspkit_plane p = {.dist = dist, .type = axis};
    float *n = &p.normal.x;
    n[axis] = 1;
    return p;
}

static bspkit_node node(int32_t plane, int32_t front, int32_t back)
{
    bspkit_node n = {.plane = plane, .children = {front, back}};
    n.mins = (bspkit_vec3){-128, -128, -128};
    n.maxs = (bspkit_vec3){128, 128, 128};
    return n;
}

#define LEAF(i) (-(i) - 1)

/* A builder holding planes, nodes, leaves of the given contents, models and entity text. */
static bspkit_builder *begin(bspkit_family family, const bspkit_plane *planes, size_t np, const bspkit_node *nodes,
                             size_t nn, const int32_t *contents, size_t nl, const bspkit_model *models, size_t nm,
                             const char *ents)
{
    bspkit_builder *b;
    CHECK(bspkit_builder_new(family, family == BSPKIT_FAMILY_GOLDSRC ? 30 : 29, &b, ERR));
    bspkit_leaf leafs[16];
    assert_true(nl <= 16);
    memset(leafs, 0, sizeof leafs);
    for (size_t i = 0; i < nl; i++) {
        leafs[i].contents = contents[i];
        leafs[i].vis_offset = -1;
        leafs[i].cluster = -1;
    }
    CHECK(bspkit_builder_set_planes(b, planes, np, ERR));
    CHECK(bspkit_builder_set_nodes(b, nodes, nn, ERR));
    CHECK(bspkit_builder_set_leafs(b, leafs, nl, ERR));
    CHECK(bspkit_builder_set_models(b, models, nm, ERR));
    CHECK(bspkit_builder_set_entities(b, ents, strlen(ents), ERR));
    return b;
}

static bspkit_map *finish(bspkit_builder *b)
{
    uint8_t *buf;
    size_t size;
    CHECK(bspkit_builder_write(b, NULL, &buf, &size, ERR));
    bspkit_builder_free(b);
    return open_owned(buf, size);
}

/* A map from planes, nodes, leaf contents, models and entity text. */
static bspkit_map *build(bspkit_family family, const bspkit_plane *planes, size_t np, const bspkit_node *nodes,
                         size_t nn, const int32_t *contents, size_t nl, const bspkit_model *models, size_t nm,
                         const char *ents)
{
    return finish(begin(family, planes, np, nodes, nn, contents, nl, models, nm, ents));
}

static bspkit_model box_model(int32_t head, float lo, float hi, float zlo, float zhi)
{
    bspkit_model m = {.headnode = {head, 0, 0, 0}};
    m.mins = (bspkit_vec3){lo, lo, zlo};
    m.maxs = (bspkit_vec3){hi, hi, zhi};
    return m;
}

/* World (0,0,0)-(64,64,16): an L of solid, built as three leaves (x<32 split
 * at y=32, plus x>=32,y<32), so one merge gives two convex brushes and no
 * more can. Model 1 is a 16-unit cube split at x=0 into two solid leaves
 * that merge into one, used by a rotating door with an origin. */
static void test_l_shape_merges_to_two(void **state)
{
    (void)state;
    const bspkit_plane planes[] = {axial(1, 32), axial(0, 32), axial(0, 0)};
    const bspkit_node nodes[] = {
        node(0, 1, 2),                 /* y = 32 */
        node(1, LEAF(1), LEAF(2)),     /* y >= 32: x >= 32 empty, x < 32 solid */
        node(1, LEAF(3), LEAF(4)),     /* y < 32: both solid */
        node(2, LEAF(5), LEAF(6)),     /* model 1: x = 0, both solid */
    };
    const int32_t contents[] = {SOLID, EMPTY, SOLID, SOLID, SOLID, SOLID, SOLID};
    const bspkit_model models[] = {box_model(0, 0, 64, 0, 16), box_model(3, -8, 8, -8, 8)};
    static const char ents[] = "{\n\"classname\" \"worldspawn\"\n\"wad\" \"\\half-life\\valve\\halflife.wad\"\n}\n"
                               "{\n\"classname\" \"func_door_rotating\"\n\"model\" \"*1\"\n\"origin\" \"100 20 8\"\n"
                               "\"speed\" \"100\"\n}\n"
                               "{\n\"classname\" \"info_player_start\"\n\"origin\" \"16 48 8\"\n}\n";
    bspkit_map *map = build(BSPKIT_FAMILY_GOLDSRC, planes, 3, nodes, 4, contents, 7, models, 2, ents);

    result r = {0};
    decompile(map, true, &r);
    assert_int_equal(r.st.leaves, 5);
    assert_int_equal(r.st.brushes, 5);
    assert_agrees(map, &r.m, 2);
    result_free(&r);

    decompile(map, false, &r);
    assert_int_equal(r.st.leaves, 5);
    assert_int_equal(r.st.brushes, 3 + 0); /* L: 2, door: 1 */
    assert_int_equal(r.m.ents[0].nbrushes, 2);
    assert_agrees(map, &r.m, 2);
    assert_planes(map, &r.m);
    /* No faces: every side is the tool texture. */
    assert_int_equal(r.st.tool_sides, 6 * 3);
    assert_string_equal(mr_value(&r.m, 0, "wad"), "\\half-life\\valve\\halflife.wad");
    assert_string_equal(mr_value(&r.m, 0, "mapversion"), "220");
    /* The door: inline brushes instead of "model", its keys kept, an origin brush centred on the origin. */
    assert_null(mr_value(&r.m, 1, "model"));
    assert_string_equal(mr_value(&r.m, 1, "speed"), "100");
    assert_string_equal(mr_value(&r.m, 1, "origin"), "100 20 8");
    assert_int_equal(r.m.ents[1].nbrushes, 2);
    size_t origin_brush = SIZE_MAX;
    for (size_t b = 0; b < 2; b++)
        if (mr_brush_kind(&r.m, r.m.ents[1].first_brush + b) == MR_ORIGIN)
            origin_brush = r.m.ents[1].first_brush + b;
    assert_true(origin_brush != SIZE_MAX);
    double centre[3] = {100, 20, 8};
    assert_true(mr_brush_contains(&r.m, origin_brush, centre, 0));
    double outside[3] = {100, 20, 20};
    assert_false(mr_brush_contains(&r.m, origin_brush, outside, 0));
    /* The door's cube sits around the origin, not around (0,0,0). */
    size_t door = r.m.ents[1].first_brush + (origin_brush == r.m.ents[1].first_brush ? 1 : 0);
    double at_origin_corner[3] = {107, 27, 15}, at_zero[3] = {0, 0, 0};
    assert_true(mr_brush_contains(&r.m, door, at_origin_corner, 0));
    assert_false(mr_brush_contains(&r.m, door, at_zero, 0));
    assert_int_equal(r.m.ents[2].nbrushes, 0);
    assert_string_equal(mr_value(&r.m, 2, "origin"), "16 48 8");
    result_free(&r);
    bspkit_close(map);
}

/* Two solid boxes touching at x = 32, of different depth in y: their union is
 * not convex, so they stay two brushes. Quake flavour. */
static void test_unequal_boxes_stay_apart(void **state)
{
    (void)state;
    const bspkit_plane planes[] = {axial(1, 32), axial(0, 32), axial(1, 16)};
    const bspkit_node nodes[] = {
        node(0, LEAF(1), 1),       /* y >= 32 empty */
        node(1, 2, LEAF(2)),       /* x < 32 solid */
        node(2, LEAF(1), LEAF(3)), /* x >= 32: y < 16 solid */
    };
    const int32_t contents[] = {SOLID, EMPTY, SOLID, SOLID};
    const bspkit_model models[] = {box_model(0, 0, 64, 0, 16)};
    static const char ents[] = "{\n\"classname\" \"worldspawn\"\n}\n";
    bspkit_map *map = build(BSPKIT_FAMILY_QUAKE, planes, 3, nodes, 3, contents, 4, models, 1, ents);
    result r = {0};
    decompile(map, false, &r);
    assert_int_equal(r.st.leaves, 2);
    assert_int_equal(r.st.brushes, 2);
    assert_true(has_texture(&r.m, "skip"));
    assert_agrees(map, &r.m, 1);
    assert_planes(map, &r.m);
    result_free(&r);
    bspkit_close(map);
}

/* Geometry and two faces on plane `plane` (facing against it when `side`):
 * face 0 uses the first n0 surfedges, face 1 the next n1; their textures
 * (16x16, in a WAD) are named a and b. */
static void set_two_faces(bspkit_builder *b, uint32_t plane, uint8_t side, int32_t n0, int32_t n1, const char *a,
                          const char *name_b, const bspkit_vec3 *verts, size_t nv, const bspkit_edge *edges,
                          size_t ne, const int32_t *surfedges, size_t ns)
{
    bspkit_face faces[2];
    bspkit_texinfo ti[2];
    bspkit_miptex tex[2];
    memset(faces, 0, sizeof faces);
    memset(ti, 0, sizeof ti);
    memset(tex, 0, sizeof tex);
    for (int i = 0; i < 2; i++) {
        faces[i].plane = plane;
        faces[i].side = side;
        faces[i].first_edge = i ? n0 : 0;
        faces[i].num_edges = i ? n1 : n0;
        faces[i].texinfo = i;
        faces[i].light_offset = -1;
        memset(faces[i].styles, 255, sizeof faces[i].styles);
        ti[i].texture_vecs[0][0] = 1;
        ti[i].texture_vecs[1][1] = -1;
        ti[i].texture = i;
        tex[i].width = tex[i].height = 16;
    }
    snprintf(tex[0].name, sizeof tex[0].name, "%s", a);
    snprintf(tex[1].name, sizeof tex[1].name, "%s", name_b);
    CHECK(bspkit_builder_set_vertexes(b, verts, nv, ERR));
    CHECK(bspkit_builder_set_edges(b, edges, ne, ERR));
    CHECK(bspkit_builder_set_surfedges(b, surfedges, ns, ERR));
    CHECK(bspkit_builder_set_faces(b, faces, 2, ERR));
    CHECK(bspkit_builder_set_texinfo(b, ti, 2, ERR));
    CHECK(bspkit_builder_set_miptex(b, tex, 2, ERR));
}

/* Index of a side of a brush of entity 0 with outward normal `n` and
 * distance `d` whose brush holds `p`, or SIZE_MAX; the brush in *brush. */
static size_t side_at(const mr_map *m, const double n[3], double d, const double p[3], size_t *brush)
{
    const mr_entity *e = &m->ents[0];
    for (size_t b = e->first_brush; b < e->first_brush + e->nbrushes; b++) {
        if (!mr_brush_contains(m, b, p, 1e-6))
            continue;
        const mr_brush *br = &m->brushes[b];
        for (size_t s = br->first_side; s < br->first_side + br->nsides; s++) {
            const mr_side *sd = &m->sides[s];
            if (sd->n[0] * n[0] + sd->n[1] * n[1] + sd->n[2] * n[2] > 0.9999 && fabs(sd->d - d) < 1e-4) {
                *brush = b;
                return s;
            }
        }
    }
    return SIZE_MAX;
}

/* One solid leaf (0..64 x 0..64 x 0..16) whose top shows two textures, as
 * two abutting brushes with different tops compile: floor_a on x < 32,
 * floor_b on x > 32, and no node between them. One brush side shows one
 * texture, so the leaf is cut once at x = 32, and the two parts stay apart.
 * With `negated`, the faces name plane 1, the negation of the node's plane 0
 * (GoldSrc stores each plane beside its negation), facing against it. */
static void leaf_cut_between_textures(bool negated)
{
    const bspkit_plane planes[] = {axial(2, 16), {.normal = {0, 0, -1}, .dist = -16, .type = 2}};
    const bspkit_node nodes[] = {node(0, LEAF(1), LEAF(2))}; /* above z = 16 empty, below solid */
    const int32_t contents[] = {SOLID, EMPTY, SOLID};
    bspkit_model models[] = {box_model(0, 0, 64, 0, 32)};
    models[0].num_faces = 2;
    static const char ents[] = "{\n\"classname\" \"worldspawn\"\n}\n";
    bspkit_builder *b = begin(BSPKIT_FAMILY_GOLDSRC, planes, 2, nodes, 1, contents, 3, models, 1, ents);
    const bspkit_vec3 verts[] = {{0, 0, 16}, {32, 0, 16}, {32, 64, 16}, {0, 64, 16}, {64, 0, 16}, {64, 64, 16}};
    const bspkit_edge edges[] = {{{0, 0}}, {{0, 1}}, {{1, 2}}, {{2, 3}}, {{3, 0}}, {{1, 4}}, {{4, 5}}, {{5, 2}}};
    const int32_t surfedges[] = {1, 2, 3, 4, 5, 6, 7, -2};
    set_two_faces(b, negated ? 1 : 0, negated, 4, 4, "floor_a", "floor_b", verts, 6, edges, 8, surfedges, 8);
    const uint32_t leaf_faces[] = {0, 1};
    CHECK(bspkit_builder_set_leaf_faces(b, leaf_faces, 2, ERR));
    bspkit_map *map = finish(b);

    result r = {0};
    decompile(map, false, &r);
    assert_agrees(map, &r.m, 1);
    const double up[3] = {0, 0, 1};
    const double on_a[3] = {16, 32, 16}, on_b[3] = {48, 32, 16};
    size_t ba = SIZE_MAX, bb = SIZE_MAX;
    size_t sa = side_at(&r.m, up, 16, on_a, &ba), sb = side_at(&r.m, up, 16, on_b, &bb);
    assert_true(sa != SIZE_MAX && sb != SIZE_MAX);
    assert_string_equal(r.m.sides[sa].tex, "floor_a");
    assert_string_equal(r.m.sides[sb].tex, "floor_b");
    /* The cut is the plane x = 32: neither brush reaches into the other's half. */
    const double in_a[3] = {24, 32, 8}, in_b[3] = {40, 32, 8};
    assert_true(mr_brush_contains(&r.m, ba, in_a, 1e-6) && !mr_brush_contains(&r.m, ba, in_b, 1e-6));
    assert_true(mr_brush_contains(&r.m, bb, in_b, 1e-6) && !mr_brush_contains(&r.m, bb, in_a, 1e-6));
    assert_int_equal(r.st.leaves, 1);
    assert_int_equal(r.st.texture_splits, 1);
    assert_int_equal(r.st.brushes, 2);
    result_free(&r);
    bspkit_close(map);
}

static void test_leaf_cut_between_textures(void **state)
{
    (void)state;
    leaf_cut_between_textures(false);
}

static void test_faces_on_negated_plane(void **state)
{
    (void)state;
    leaf_cut_between_textures(true);
}

/* A face need not be convex in a damaged file: a comb-shaped face whose
 * teeth cross the side of the leaf it lies on again and again, next to a
 * face of another texture. Clipping it against the side gains a point per
 * crossing; the clip stops at its buffer instead of writing past it. */
static void test_comb_face_stays_in_bounds(void **state)
{
    (void)state;
    enum { TEETH = 40 };
    /* Solid below z = 16 where x >= 0: the leaf's top side ends at x = 0, which the comb crosses. */
    const bspkit_plane planes[] = {axial(2, 16), axial(0, 0)};
    const bspkit_node nodes[] = {node(0, LEAF(1), 1), node(1, LEAF(2), LEAF(1))};
    const int32_t contents[] = {SOLID, EMPTY, SOLID};
    bspkit_model models[] = {box_model(0, 0, 64, 0, 32)};
    models[0].num_faces = 2;
    static const char ents[] = "{\n\"classname\" \"worldspawn\"\n}\n";
    bspkit_builder *b = begin(BSPKIT_FAMILY_GOLDSRC, planes, 2, nodes, 2, contents, 3, models, 1, ents);
    /* Face 0: the square 32..64 x 0..64. Face 1: a comb along x = 0, teeth at x = -8 and x = 8. */
    bspkit_vec3 verts[4 + TEETH + 2];
    size_t nv = 0;
    verts[nv++] = (bspkit_vec3){32, 0, 16};
    verts[nv++] = (bspkit_vec3){64, 0, 16};
    verts[nv++] = (bspkit_vec3){64, 64, 16};
    verts[nv++] = (bspkit_vec3){32, 64, 16};
    verts[nv++] = (bspkit_vec3){24, 0, 16};
    for (int i = 0; i < TEETH; i++)
        verts[nv++] = (bspkit_vec3){i % 2 ? 8.0f : -8.0f, 1.0f + 1.5f * (float)i, 16};
    verts[nv++] = (bspkit_vec3){24, 62, 16};
    bspkit_edge edges[1 + 4 + TEETH + 2];
    int32_t surfedges[4 + TEETH + 2];
    size_t ne = 1, ns = 0;
    edges[0] = (bspkit_edge){{0, 0}};
    for (uint32_t i = 0; i < 4; i++) {
        edges[ne] = (bspkit_edge){{i, (i + 1) % 4}};
        surfedges[ns++] = (int32_t)ne++;
    }
    uint32_t comb = 4, count = TEETH + 2;
    for (uint32_t i = 0; i < count; i++) {
        edges[ne] = (bspkit_edge){{comb + i, comb + (i + 1) % count}};
        surfedges[ns++] = (int32_t)ne++;
    }
    set_two_faces(b, 0, 0, 4, (int32_t)count, "floor_a", "comb_b", verts, nv, edges, ne, surfedges, ns);
    bspkit_map *map = finish(b);
    result r = {0};
    decompile(map, false, &r);
    assert_agrees(map, &r.m, 1);
    /* The square's texture still reaches a side. */
    assert_true(has_texture(&r.m, "floor_a"));
    result_free(&r);
    bspkit_close(map);
}

/* A clip brush (0..64 on every axis) in an empty world, as the compilers
 * store it: nowhere in hull 0, and in the smallest player hull (GoldSrc 3,
 * Quake 1) as the box grown by the player box. The standing hull of the
 * GoldSrc map is solid everywhere, as a low crawl space would make it: it
 * must not turn into clip. */
static void clip_brush_from_player_hull(bspkit_family family)
{
    bool goldsrc = family == BSPKIT_FAMILY_GOLDSRC;
    float mins[3] = {-16, -16, goldsrc ? -18.0f : -24.0f}, maxs[3] = {16, 16, goldsrc ? 18.0f : 32.0f};
    /* Grown by the box, a plane facing +axis moves out by -mins, one facing -axis by maxs. */
    bspkit_plane planes[7];
    for (int a = 0; a < 3; a++) {
        planes[2 * a] = axial(a, 0 - maxs[a]); /* the low side: 0 - maxs */
        planes[2 * a + 1] = axial(a, 64 - mins[a]);
    }
    planes[6] = axial(2, -100);
    /* x >= lo, x < hi, y >= lo, y < hi, z >= lo, z < hi: solid; outside: empty. */
    bspkit_clipnode clip[7];
    for (int a = 0; a < 3; a++) {
        clip[2 * a] = (bspkit_clipnode){2 * a, {2 * a + 1, EMPTY}};
        clip[2 * a + 1] = (bspkit_clipnode){2 * a + 1, {EMPTY, a == 2 ? SOLID : 2 * a + 2}};
    }
    clip[6] = (bspkit_clipnode){6, {SOLID, SOLID}};
    const bspkit_node nodes[] = {node(6, LEAF(1), LEAF(1))}; /* hull 0: open everywhere */
    const int32_t contents[] = {SOLID, EMPTY};
    bspkit_model models[] = {box_model(0, -128, 128, -128, 128)};
    int player = goldsrc ? 3 : 1;
    for (int h = 1; h < 4; h++)
        models[0].headnode[h] = h == player ? 0 : 6;
    static const char ents[] = "{\n\"classname\" \"worldspawn\"\n}\n";
    bspkit_builder *b = begin(family, planes, 7, nodes, 1, contents, 2, models, 1, ents);
    CHECK(bspkit_builder_set_clipnodes(b, clip, 7, ERR));
    bspkit_map *map = finish(b);

    result r = {0};
    decompile(map, false, &r);
    assert_int_equal(r.st.clip_brushes, 1);
    assert_int_equal(r.st.brushes, 1);
    size_t brush = r.m.ents[0].first_brush;
    assert_int_equal(mr_brush_kind(&r.m, brush), MR_CLIP);
    assert_string_equal(r.m.sides[r.m.brushes[brush].first_side].tex, goldsrc ? "CLIP" : "clip");
    const double inside[][3] = {{1, 1, 1}, {63, 63, 63}, {32, 32, 32}};
    const double outside[][3] = {{-1, 32, 32}, {65, 32, 32}, {32, -1, 32}, {32, 65, 32}, {32, 32, -1}, {32, 32, 65}};
    for (size_t i = 0; i < 3; i++)
        assert_true(mr_brush_contains(&r.m, brush, inside[i], 1e-6));
    for (size_t i = 0; i < 6; i++)
        assert_false(mr_brush_contains(&r.m, brush, outside[i], 1e-6));
    mr_hull_agreement ha;
    char why[256];
    assert_true(mr_agree_hull(map, &r.m, 4000, 3, &ha, why, sizeof why));
    assert_int_equal(ha.hull, player);
    assert_true(ha.clip_points > 0);
    assert_int_equal(ha.agreed, ha.points);
    result_free(&r);

    bspkit_decompile_options o = {.skip = BSPKIT_DECOMPILE_NO_CLIP};
    char *text;
    size_t size;
    bspkit_decompile_stats st;
    CHECK(bspkit_decompile_memory(map, &o, &text, &size, &st, ERR));
    assert_int_equal(st.clip_brushes, 0);
    assert_int_equal(st.brushes, 0);
    free(text);
    bspkit_close(map);
}

/* Six clip brushes in a row (x = 128 i .. 128 i + 64, y and z 0..64), each
 * grown by the GoldSrc crouching box in hull 3, with splits between them:
 * many jobs for the threads that recover clip. Every thread count gives the
 * same text, with the six brushes where they were. */
#define CLIP_ROW 6
static void test_clip_same_for_any_thread_count(void **state)
{
    (void)state;
    const float mins[3] = {-16, -16, -18}, maxs[3] = {16, 16, 18};
    enum { SPLITS = CLIP_ROW * 6, STAND = SPLITS + CLIP_ROW - 1 };
    bspkit_plane planes[STAND + 1];
    bspkit_clipnode clip[STAND + 1];
    for (int i = 0; i < CLIP_ROW; i++)
        for (int a = 0; a < 3; a++) {
            float lo = a == 0 ? 128.0f * (float)i : 0, hi = lo + 64;
            int at = 6 * i + 2 * a;
            planes[at] = axial(a, lo - maxs[a]);
            planes[at + 1] = axial(a, hi - mins[a]);
            clip[at] = (bspkit_clipnode){at, {at + 1, EMPTY}};
            clip[at + 1] = (bspkit_clipnode){at + 1, {EMPTY, a == 2 ? SOLID : at + 2}};
        }
    /* Split i (x = 128 i + 104) has box i behind it, the next split or the last box in front. */
    for (int i = 0; i + 1 < CLIP_ROW; i++) {
        planes[SPLITS + i] = axial(0, 128.0f * (float)i + 104);
        int32_t front = i + 2 < CLIP_ROW ? SPLITS + i + 1 : 6 * (i + 1);
        clip[SPLITS + i] = (bspkit_clipnode){SPLITS + i, {front, 6 * i}};
    }
    planes[STAND] = axial(2, -100);
    clip[STAND] = (bspkit_clipnode){STAND, {SOLID, SOLID}};
    const bspkit_node nodes[] = {node(STAND, LEAF(1), LEAF(1))}; /* hull 0: open everywhere */
    const int32_t contents[] = {SOLID, EMPTY};
    bspkit_model models[] = {box_model(0, -128, 896, -128, 128)};
    for (int h = 1; h < 4; h++)
        models[0].headnode[h] = h == 3 ? SPLITS : STAND;
    static const char ents[] = "{\n\"classname\" \"worldspawn\"\n}\n";
    bspkit_builder *b = begin(BSPKIT_FAMILY_GOLDSRC, planes, STAND + 1, nodes, 1, contents, 2, models, 1, ents);
    CHECK(bspkit_builder_set_clipnodes(b, clip, STAND + 1, ERR));
    bspkit_map *map = finish(b);

    char *first = NULL;
    size_t first_size = 0;
    const unsigned counts[] = {1, 2, 3, 8, 0};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        bspkit_decompile_options o = {.threads = counts[k]};
        char *text;
        size_t size;
        bspkit_decompile_stats st;
        CHECK(bspkit_decompile_memory(map, &o, &text, &size, &st, ERR));
        assert_int_equal(st.clip_brushes, CLIP_ROW);
        if (!first) {
            first = text;
            first_size = size;
            continue;
        }
        assert_int_equal(size, first_size);
        assert_memory_equal(text, first, size);
        free(text);
    }
    mr_map m;
    char why[256];
    if (!mr_parse(first, first_size, &m, why, sizeof why))
        fail_msg("output does not parse: %s", why);
    assert_int_equal(m.nbrushes, CLIP_ROW);
    for (int i = 0; i < CLIP_ROW; i++) {
        const double in[3] = {128.0 * i + 32, 32, 32}, out[3] = {128.0 * i + 96, 32, 32};
        size_t holding = 0;
        for (size_t br = 0; br < m.nbrushes; br++) {
            assert_int_equal(mr_brush_kind(&m, br), MR_CLIP);
            holding += mr_brush_contains(&m, br, in, 1e-6);
            assert_false(mr_brush_contains(&m, br, out, 1e-6));
        }
        assert_int_equal(holding, 1);
    }
    mr_free(&m);
    free(first);
    bspkit_close(map);
}

/* A player hull pointing at a clipnode that does not exist: the map still
 * decompiles, without clip. */
static void test_broken_clip_hull_gives_no_clip(void **state)
{
    (void)state;
    const bspkit_plane planes[] = {axial(2, -100), axial(0, 0)};
    const bspkit_clipnode clip[] = {{1, {EMPTY, 99}}};
    const bspkit_node nodes[] = {node(1, LEAF(1), LEAF(2))}; /* hull 0: solid where x < 0 */
    const int32_t contents[] = {SOLID, EMPTY, SOLID};
    bspkit_model models[] = {box_model(0, -128, 128, -128, 128)};
    models[0].headnode[1] = models[0].headnode[2] = models[0].headnode[3] = 0;
    static const char ents[] = "{\n\"classname\" \"worldspawn\"\n}\n";
    bspkit_builder *b = begin(BSPKIT_FAMILY_GOLDSRC, planes, 2, nodes, 1, contents, 3, models, 1, ents);
    CHECK(bspkit_builder_set_clipnodes(b, clip, 1, ERR));
    bspkit_map *map = finish(b);
    result r = {0};
    decompile(map, false, &r);
    assert_int_equal(r.st.clip_brushes, 0);
    assert_int_equal(r.st.brushes, 1);
    assert_agrees(map, &r.m, 1);
    result_free(&r);
    bspkit_close(map);
}

static void test_clip_brush_goldsrc(void **state)
{
    (void)state;
    clip_brush_from_player_hull(BSPKIT_FAMILY_GOLDSRC);
}

static void test_clip_brush_quake(void **state)
{
    (void)state;
    clip_brush_from_player_hull(BSPKIT_FAMILY_QUAKE);
}

/* Liquid and sky leaves become brushes of their own kind, which do not merge with solid ones. */
static void test_liquid_and_sky(void **state)
{
    (void)state;
    const bspkit_plane planes[] = {axial(2, 8), axial(2, 12)};
    const bspkit_node nodes[] = {
        node(0, 1, LEAF(2)),       /* z < 8: water */
        node(1, LEAF(3), LEAF(4)), /* z >= 12: sky; 8..12 solid */
    };
    const int32_t contents[] = {SOLID, EMPTY, -3, -6, SOLID};
    const bspkit_model models[] = {box_model(0, 0, 64, 0, 16)};
    static const char ents[] = "{\n\"classname\" \"worldspawn\"\n}\n";
    bspkit_map *map = build(BSPKIT_FAMILY_QUAKE, planes, 2, nodes, 2, contents, 5, models, 1, ents);
    result r = {0};
    decompile(map, false, &r);
    assert_int_equal(r.st.brushes, 3);
    int kinds[4] = {0};
    for (size_t b = 0; b < r.m.nbrushes; b++)
        kinds[mr_brush_kind(&r.m, b)]++;
    assert_int_equal(kinds[MR_SOLID], 1);
    assert_int_equal(kinds[MR_LIQUID], 1);
    assert_int_equal(kinds[MR_SKY], 1);
    assert_agrees(map, &r.m, 1);
    result_free(&r);
    bspkit_close(map);
}

/* ---- hostile trees -------------------------------------------------------------- */

static void test_cyclic_tree(void **state)
{
    (void)state;
    const bspkit_plane planes[] = {axial(0, 32), axial(1, 32)};
    /* Node 1's back child is node 0 again; node 0's back child is node 1 (a DAG and a cycle). */
    const bspkit_node nodes[] = {node(0, 1, 1), node(1, LEAF(0), 0)};
    const int32_t contents[] = {SOLID, EMPTY};
    const bspkit_model models[] = {box_model(0, 0, 64, 0, 16)};
    static const char ents[] = "{\n\"classname\" \"worldspawn\"\n}\n";
    bspkit_map *map = build(BSPKIT_FAMILY_GOLDSRC, planes, 2, nodes, 2, contents, 2, models, 1, ents);
    char *text = NULL;
    size_t n;
    bspkit_decompile_stats st;
    bspkit_result rc = bspkit_decompile_memory(map, NULL, &text, &n, &st, ERR);
    assert_int_equal(rc, BSPKIT_OK); /* each node once: the repeats are skipped */
    assert_true(st.leaves <= 2);
    free(text);
    bspkit_close(map);
}

static void test_deep_tree_refused(void **state)
{
    (void)state;
    enum { N = 1000 };
    bspkit_plane *planes = calloc(N, sizeof *planes);
    bspkit_node *nodes = calloc(N, sizeof *nodes);
    assert_non_null(planes);
    assert_non_null(nodes);
    /* A chain of planes x = 0.06 i, each cutting a thin solid slab off the rest. */
    for (int i = 0; i < N; i++) {
        planes[i] = axial(0, 0.06f * (float)i + 1);
        nodes[i] = node(i, i + 1 < N ? i + 1 : LEAF(1), LEAF(0));
    }
    const int32_t contents[] = {SOLID, EMPTY};
    const bspkit_model models[] = {box_model(0, 0, 64, 0, 16)};
    static const char ents[] = "{\n\"classname\" \"worldspawn\"\n}\n";
    bspkit_map *map = build(BSPKIT_FAMILY_GOLDSRC, planes, N, nodes, N, contents, 2, models, 1, ents);
    char *text = NULL;
    size_t n;
    bspkit_result rc = bspkit_decompile_memory(map, NULL, &text, &n, NULL, ERR);
    assert_int_equal(rc, BSPKIT_ERR_LIMIT);
    assert_int_equal(g_err.lump, BSPKIT_Q_NODES);
    assert_non_null(strstr(g_err.message, "deeper"));
    free(planes);
    free(nodes);
    bspkit_close(map);
}

static void test_bad_plane_refused(void **state)
{
    (void)state;
    bspkit_plane planes[] = {axial(0, 32)};
    planes[0].normal = (bspkit_vec3){0, 0, 0};
    planes[0].type = 3;
    const bspkit_node nodes[] = {node(0, LEAF(1), LEAF(0))};
    const int32_t contents[] = {SOLID, EMPTY};
    const bspkit_model models[] = {box_model(0, 0, 64, 0, 16)};
    static const char ents[] = "{\n\"classname\" \"worldspawn\"\n}\n";
    bspkit_map *map = build(BSPKIT_FAMILY_GOLDSRC, planes, 1, nodes, 1, contents, 2, models, 1, ents);
    char *text = NULL;
    size_t n;
    assert_int_equal(bspkit_decompile_memory(map, NULL, &text, &n, NULL, ERR), BSPKIT_ERR_INDEX);
    assert_int_equal(g_err.lump, BSPKIT_Q_PLANES);
    assert_true(g_err.offset > 0);
    bspkit_close(map);
}

/* ---- the reader itself ------------------------------------------------------------ */

static void test_reader_classic_and_valve(void **state)
{
    (void)state;
    static const char text[] = "// comment\n{\n\"classname\" \"worldspawn\"\n{\n"
                               "( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) base 0 0 0 1 1\n"
                               "( 0 0 8 ) ( 1 0 8 ) ( 0 1 8 ) top [ 1 0 0 4 ] [ 0 -1 0 2 ] 0 0.5 2\n"
                               "}\n}\n";
    mr_map m;
    char why[128];
    assert_true(mr_parse(text, sizeof text - 1, &m, why, sizeof why));
    assert_int_equal(m.nents, 1);
    assert_int_equal(m.nbrushes, 1);
    assert_int_equal(m.nsides, 2);
    /* (p0 - p1) x (p2 - p1): (0,-1,0) x (1,-1,0) = (0,0,1), d = 0; (-1,0,0) x (-1,1,0) = (0,0,-1), d = -8. */
    assert_true(fabs(m.sides[0].n[2] - 1) < 1e-12 && fabs(m.sides[0].d) < 1e-12);
    assert_true(fabs(m.sides[1].n[2] + 1) < 1e-12 && fabs(m.sides[1].d + 8) < 1e-12);
    assert_false(m.sides[0].valve);
    assert_true(m.sides[1].valve);
    assert_true(m.sides[1].u[3] == 4 && m.sides[1].v[1] == -1 && m.sides[1].scale[0] == 0.5);
    mr_free(&m);
    assert_false(mr_parse("{ \"a\" }", 7, &m, why, sizeof why));
    mr_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader_classic_and_valve),
        cmocka_unit_test(test_goldsrc_room),
        cmocka_unit_test(test_quake_room),
        cmocka_unit_test(test_source_refused),
        cmocka_unit_test(test_l_shape_merges_to_two),
        cmocka_unit_test(test_unequal_boxes_stay_apart),
        cmocka_unit_test(test_leaf_cut_between_textures),
        cmocka_unit_test(test_faces_on_negated_plane),
        cmocka_unit_test(test_comb_face_stays_in_bounds),
        cmocka_unit_test(test_clip_brush_goldsrc),
        cmocka_unit_test(test_broken_clip_hull_gives_no_clip),
        cmocka_unit_test(test_clip_brush_quake),
        cmocka_unit_test(test_clip_same_for_any_thread_count),
        cmocka_unit_test(test_liquid_and_sky),
        cmocka_unit_test(test_cyclic_tree),
        cmocka_unit_test(test_deep_tree_refused),
        cmocka_unit_test(test_bad_plane_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
