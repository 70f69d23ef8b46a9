/* The generated sample maps: each opens as the right format, validates with
 * no errors or warnings, has the record counts its construction implies, and
 * is geometrically consistent (tree walks, windings, lightmap sizes). The
 * LZMA flavour is checked against the plain one byte for byte, and the
 * big-endian one against the little-endian one record by record. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bspkit/bspkit.h"
#include "bspkit/write.h"
#include "core/bytes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* The room as documented in write.h. */
static const bspkit_vec3 CENTRE = {0, 0, 64};
static const bspkit_vec3 BOX_CENTRE = {32, 0, 32};

typedef struct sample {
    uint8_t *bytes;
    size_t size;
    bspkit_map *map;
} sample;

static sample open_sample(bspkit_sample_kind kind)
{
    sample s = {0};
    CHECK(bspkit_sample_build(kind, &s.bytes, &s.size, ERR));
    CHECK(bspkit_open_memory(s.bytes, s.size, NULL, &s.map, ERR));
    return s;
}

static void close_sample(sample *s)
{
    bspkit_close(s->map);
    bspkit_free_buffer(s->bytes);
}

static void assert_valid(bspkit_map *m, const char *name)
{
    bspkit_report r;
    CHECK(bspkit_validate(m, &r, ERR));
    for (size_t i = 0; i < r.count; i++)
        print_error("%s: %s: lump %d record %lld: %s\n", name,
                    r.problems[i].severity == BSPKIT_SEVERITY_ERROR ? "error" : "warning", r.problems[i].lump,
                    (long long)r.problems[i].record, r.problems[i].message);
    size_t errors = r.errors, warnings = r.warnings;
    bspkit_report_free(&r);
    assert_int_equal(errors, 0);
    assert_int_equal(warnings, 0);
}

static float plane_dist(const bspkit_plane *p, bspkit_vec3 v)
{
    return p->normal.x * v.x + p->normal.y * v.y + p->normal.z * v.z - p->dist;
}

/* Leaf index reached from `head` the way the engines walk: front when >= 0. */
static int32_t walk_nodes(bspkit_map *m, int32_t head, bspkit_vec3 p)
{
    const bspkit_node *nodes;
    const bspkit_plane *planes;
    size_t nn, np;
    CHECK(bspkit_get_nodes(m, &nodes, &nn, ERR));
    CHECK(bspkit_get_planes(m, &planes, &np, ERR));
    int32_t n = head;
    for (size_t steps = 0; n >= 0; steps++) {
        assert_true(steps <= nn);
        assert_true((size_t)n < nn);
        assert_true((size_t)nodes[n].plane < np);
        n = nodes[n].children[plane_dist(&planes[nodes[n].plane], p) >= 0 ? 0 : 1];
    }
    return -(n + 1);
}

static int32_t walk_clipnodes(bspkit_map *m, int32_t head, bspkit_vec3 p)
{
    const bspkit_clipnode *clip;
    const bspkit_plane *planes;
    size_t nc, np;
    CHECK(bspkit_get_clipnodes(m, &clip, &nc, ERR));
    CHECK(bspkit_get_planes(m, &planes, &np, ERR));
    int32_t n = head;
    for (size_t steps = 0; n >= 0; steps++) {
        assert_true(steps <= nc);
        assert_true((size_t)n < nc);
        n = clip[n].children[plane_dist(&planes[clip[n].plane], p) >= 0 ? 0 : 1];
    }
    return n;
}

static bspkit_vec3 sub(bspkit_vec3 a, bspkit_vec3 b) { return (bspkit_vec3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static float dot3(bspkit_vec3 a, bspkit_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static bspkit_vec3 cross(bspkit_vec3 a, bspkit_vec3 b)
{
    return (bspkit_vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

/* Vertex `k` of face `f` through surfedges and edges. */
static bspkit_vec3 face_vertex(bspkit_map *m, const bspkit_face *f, int32_t k)
{
    const int32_t *se;
    const bspkit_edge *edges;
    const bspkit_vec3 *verts;
    size_t ns, ne, nv;
    CHECK(bspkit_get_surfedges(m, &se, &ns, ERR));
    CHECK(bspkit_get_edges(m, &edges, &ne, ERR));
    CHECK(bspkit_get_vertexes(m, &verts, &nv, ERR));
    assert_true(f->first_edge >= 0 && (size_t)(f->first_edge + k) < ns);
    int32_t s = se[f->first_edge + k];
    uint32_t e = (uint32_t)(s < 0 ? -s : s);
    assert_true(e > 0 && e < ne);
    uint32_t v = s < 0 ? edges[e].v[1] : edges[e].v[0];
    assert_true(v < nv);
    return verts[v];
}

/* Windings clockwise seen from the front: (p2-p0) x (p1-p0) along the face
 * normal; every vertex on the face's plane; the face looks towards `toward`
 * (into the room) or away from `away` (out of a box). */
static void check_face_geometry(bspkit_map *m, size_t face, const bspkit_vec3 *toward, const bspkit_vec3 *away)
{
    const bspkit_face *faces;
    const bspkit_plane *planes;
    size_t nf, np;
    CHECK(bspkit_get_faces(m, &faces, &nf, ERR));
    CHECK(bspkit_get_planes(m, &planes, &np, ERR));
    const bspkit_face *f = &faces[face];
    assert_true(f->plane < np);
    const bspkit_plane *pl = &planes[f->plane];
    float sign = f->side ? -1.0f : 1.0f;
    bspkit_vec3 fn = {pl->normal.x * sign, pl->normal.y * sign, pl->normal.z * sign};
    bspkit_vec3 p0 = face_vertex(m, f, 0), p1 = face_vertex(m, f, 1), p2 = face_vertex(m, f, 2);
    assert_true(dot3(cross(sub(p2, p0), sub(p1, p0)), fn) > 0);
    for (int32_t k = 0; k < f->num_edges; k++)
        assert_true(plane_dist(pl, face_vertex(m, f, k)) == 0);
    if (toward)
        assert_true(dot3(fn, sub(*toward, p0)) > 0);
    if (away)
        assert_true(dot3(fn, sub(*away, p0)) < 0);
}

/* Each edge of a closed surface is walked once in each direction. */
static void check_closed(bspkit_map *m, int32_t first_face, int32_t num_faces)
{
    const bspkit_face *faces;
    const int32_t *se;
    size_t nf, ns;
    CHECK(bspkit_get_faces(m, &faces, &nf, ERR));
    CHECK(bspkit_get_surfedges(m, &se, &ns, ERR));
    int plus[64] = {0}, minus[64] = {0};
    for (int32_t f = first_face; f < first_face + num_faces; f++)
        for (int32_t k = 0; k < faces[f].num_edges; k++) {
            int32_t s = se[faces[f].first_edge + k];
            assert_true(s != 0 && (s < 0 ? -s : s) < 64);
            if (s > 0)
                plus[s]++;
            else
                minus[-s]++;
        }
    for (int e = 0; e < 64; e++)
        assert_int_equal(plus[e], minus[e]);
}

static int32_t floor_div16(double v)
{
    double q = v / 16;
    int32_t i = (int32_t)q;
    return (double)i > q ? i - 1 : i;
}

static int32_t ceil_div16(double v)
{
    double q = v / 16;
    int32_t i = (int32_t)q;
    return (double)i < q ? i + 1 : i;
}

/* Asserts the record count an accessor returns. */
#define ASSERT_COUNT(getter, type, m, expected)                                                    \
    do {                                                                                           \
        const type *items_;                                                                        \
        size_t n_;                                                                                 \
        CHECK(getter((m), &items_, &n_, ERR));                                                     \
        assert_int_equal(n_, (expected));                                                          \
    } while (0)

static void check_entities(bspkit_map *m, const char *const *classnames, size_t n)
{
    const bspkit_entities *ents;
    CHECK(bspkit_get_entities(m, &ents, ERR));
    assert_int_equal(ents->count, n);
    assert_int_equal(ents->trailing_bytes, 0);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(bspkit_entity_value(ents, i, "classname"), classnames[i]);
}

/* ------------------------------------------------------------------------ */

static void test_names(void **state)
{
    (void)state;
    for (int k = 0; k < BSPKIT_SAMPLE_COUNT; k++) {
        const char *name = bspkit_sample_name((bspkit_sample_kind)k);
        assert_non_null(name);
        assert_int_equal(bspkit_sample_find(name), k);
    }
    assert_string_equal(bspkit_sample_name(BSPKIT_SAMPLE_SOURCE_ROOM_LZMA), "source-room-lzma");
    assert_null(bspkit_sample_name(BSPKIT_SAMPLE_COUNT));
    assert_int_equal(bspkit_sample_find("nope"), -1);
    assert_int_equal(bspkit_sample_find(NULL), -1);
    uint8_t *out;
    size_t size;
    bspkit_error err;
    assert_int_equal(bspkit_sample_build(BSPKIT_SAMPLE_COUNT, &out, &size, &err), BSPKIT_ERR_ARGUMENT);
}

static void test_deterministic(void **state)
{
    (void)state;
    for (int k = 0; k < BSPKIT_SAMPLE_COUNT; k++) {
        uint8_t *a, *b;
        size_t na, nb;
        CHECK(bspkit_sample_build((bspkit_sample_kind)k, &a, &na, ERR));
        CHECK(bspkit_sample_build((bspkit_sample_kind)k, &b, &nb, ERR));
        assert_int_equal(na, nb);
        assert_memory_equal(a, b, na);
        free(a);
        free(b);
    }
}

/* ------------------------------------------------------------------------ */
/* Quake and GoldSrc rooms                                                   */
/* ------------------------------------------------------------------------ */

static void check_quake_room(bool goldsrc)
{
    bspkit_sample_kind kind = goldsrc ? BSPKIT_SAMPLE_GOLDSRC_ROOM : BSPKIT_SAMPLE_QUAKE_ROOM;
    sample s = open_sample(kind);
    bspkit_map *m = s.map;
    const bspkit_format *f = bspkit_map_format(m);
    assert_int_equal(f->family, goldsrc ? BSPKIT_FAMILY_GOLDSRC : BSPKIT_FAMILY_QUAKE);
    assert_int_equal(f->version, goldsrc ? 30 : 29);
    assert_false(f->big_endian);
    assert_int_equal(f->variant, 0);
    assert_valid(m, bspkit_sample_name(kind));

    /* Planes: 6 walls + 6 per clip hull, hulls sharing some (see sample.c). */
    ASSERT_COUNT(bspkit_get_planes, bspkit_plane, m, goldsrc ? 20 : 17);
    ASSERT_COUNT(bspkit_get_vertexes, bspkit_vec3, m, 8);
    ASSERT_COUNT(bspkit_get_edges, bspkit_edge, m, 13); /* 12 + reserved edge 0 */
    ASSERT_COUNT(bspkit_get_surfedges, int32_t, m, 24);
    ASSERT_COUNT(bspkit_get_faces, bspkit_face, m, 6);
    ASSERT_COUNT(bspkit_get_nodes, bspkit_node, m, 6);
    ASSERT_COUNT(bspkit_get_leafs, bspkit_leaf, m, 2);
    ASSERT_COUNT(bspkit_get_clipnodes, bspkit_clipnode, m, goldsrc ? 18 : 12);
    ASSERT_COUNT(bspkit_get_leaf_faces, uint32_t, m, 6);
    ASSERT_COUNT(bspkit_get_models, bspkit_model, m, 1);
    ASSERT_COUNT(bspkit_get_texinfo, bspkit_texinfo, m, 3);
    static const char *const classes[3] = {"worldspawn", "info_player_start", "light"};
    check_entities(m, classes, 3);

    const bspkit_model *model;
    size_t n;
    CHECK(bspkit_get_models(m, &model, &n, ERR));
    assert_int_equal(model[0].headnode[0], 0);
    assert_int_equal(model[0].vis_leafs, 1);
    assert_int_equal(model[0].first_face, 0);
    assert_int_equal(model[0].num_faces, 6);

    /* Hull 0: the centre is in empty leaf 1, anything outside in solid leaf 0. */
    const bspkit_leaf *leafs;
    CHECK(bspkit_get_leafs(m, &leafs, &n, ERR));
    int32_t leaf = walk_nodes(m, model[0].headnode[0], CENTRE);
    assert_int_equal(leaf, 1);
    assert_int_equal(leafs[1].contents, -1);
    assert_int_equal(leafs[0].contents, -2);
    assert_int_equal(walk_nodes(m, 0, (bspkit_vec3){0, 0, -100}), 0);
    assert_int_equal(walk_nodes(m, 0, (bspkit_vec3){200, 0, 64}), 0);
    assert_int_equal(walk_nodes(m, 0, (bspkit_vec3){0, -63, 1}), 1);

    /* Clip hulls: a point where every hull box fits is empty (Quake's hull 2,
     * 88 units tall, only fits with its origin in z 24..64); near the floor
     * or above the ceiling the box does not fit. */
    int hulls = goldsrc ? 3 : 2;
    for (int h = 1; h <= hulls; h++) {
        assert_int_equal(walk_clipnodes(m, model[0].headnode[h], (bspkit_vec3){0, 0, 48}), -1);
        assert_int_equal(walk_clipnodes(m, model[0].headnode[h], (bspkit_vec3){-20, 20, 50}), -1);
        assert_int_equal(walk_clipnodes(m, model[0].headnode[h], (bspkit_vec3){0, 0, 10}), -2);
        assert_int_equal(walk_clipnodes(m, model[0].headnode[h], (bspkit_vec3){0, 0, 1000}), -2);
    }

    /* Geometry: closed, wound consistently, facing in. */
    for (size_t i = 0; i < 6; i++)
        check_face_geometry(m, i, &CENTRE, NULL);
    check_closed(m, 0, 6);

    /* Leaf 1 lists every face; PVS row of leaf 1 sees itself. */
    assert_int_equal(leafs[1].first_leaf_face, 0);
    assert_int_equal(leafs[1].num_leaf_faces, 6);
    uint32_t rows, row_bytes;
    CHECK(bspkit_vis_dimensions(m, &rows, &row_bytes, ERR));
    assert_int_equal(rows, 1);
    assert_int_equal(row_bytes, 1);
    uint8_t row;
    CHECK(bspkit_vis_row(m, 1, BSPKIT_VIS_PVS, &row, 1, ERR));
    assert_int_equal(row, 0x01);

    /* Lighting sized exactly by the extent rule, faces back to back. */
    const bspkit_face *faces;
    const bspkit_texinfo *ti;
    size_t nt;
    CHECK(bspkit_get_faces(m, &faces, &n, ERR));
    CHECK(bspkit_get_texinfo(m, &ti, &nt, ERR));
    const uint8_t *light;
    size_t light_size;
    CHECK(bspkit_get_lighting(m, false, &light, &light_size, ERR));
    size_t expect = 0, per_luxel = goldsrc ? 3 : 1;
    for (size_t i = 0; i < n; i++) {
        assert_true((size_t)faces[i].texinfo < nt);
        assert_int_equal(faces[i].light_offset, (int32_t)expect);
        assert_int_equal(faces[i].styles[0], 0);
        assert_int_equal(faces[i].styles[1], 255);
        int32_t luxels[2];
        for (int a = 0; a < 2; a++) {
            double lo = 1e30, hi = -1e30;
            for (int32_t k = 0; k < faces[i].num_edges; k++) {
                bspkit_vec3 v = face_vertex(m, &faces[i], k);
                const float *vec = ti[faces[i].texinfo].texture_vecs[a];
                double val = (double)v.x * vec[0] + (double)v.y * vec[1] + (double)v.z * vec[2] + vec[3];
                lo = val < lo ? val : lo;
                hi = val > hi ? val : hi;
            }
            luxels[a] = ceil_div16(hi) - floor_div16(lo) + 1;
            assert_true(luxels[a] >= 2 && luxels[a] <= 17); /* extents within the engines' 256 */
        }
        expect += (size_t)luxels[0] * (size_t)luxels[1] * per_luxel;
    }
    assert_int_equal(light_size, expect);

    /* Two embedded textures with their mips (and GoldSrc palettes) located. */
    const bspkit_miptex *mt;
    CHECK(bspkit_get_miptex(m, &mt, &n, ERR));
    assert_int_equal(n, 2);
    const uint8_t *tex_lump;
    size_t tex_size;
    CHECK(bspkit_lump_bytes(m, BSPKIT_Q_TEXTURES, &tex_lump, &tex_size, ERR));
    static const char *const names[2] = {"bk_floor", "bk_wall"};
    for (size_t i = 0; i < 2; i++) {
        uint32_t w = i == 0 ? 16 : 32;
        assert_string_equal(mt[i].name, names[i]);
        assert_true(mt[i].embedded);
        assert_int_equal(mt[i].width, w);
        assert_int_equal(mt[i].height, w);
        assert_int_equal(mt[i].mip_offsets[0], 40);
        for (int k = 0; k < 4; k++) {
            assert_non_null(mt[i].mips[k]);
            assert_ptr_equal(mt[i].mips[k], tex_lump + mt[i].lump_offset + mt[i].mip_offsets[k]);
        }
        assert_int_equal(mt[i].mip_offsets[3], 40 + w * w + w * w / 4 + w * w / 16);
        if (goldsrc) {
            assert_int_equal(mt[i].palette_size, 256);
            const uint8_t *pal = tex_lump + mt[i].lump_offset + mt[i].mip_offsets[3] + (w / 8) * (w / 8) + 2;
            assert_ptr_equal(mt[i].palette, pal);
            assert_int_equal(rd_le16(pal - 2), 256);
            assert_true(pal + 768 <= tex_lump + tex_size);
        } else {
            assert_null(mt[i].palette);
        }
        assert_true(mt[i].mips[0][0] != mt[i].mips[0][4]); /* a checkerboard, not a blank */
    }
    for (size_t i = 0; i < 3; i++)
        assert_true(ti[i].texture >= 0 && ti[i].texture < 2);

    close_sample(&s);
}

static void test_goldsrc_room(void **state)
{
    (void)state;
    check_quake_room(true);
}

static void test_quake_room(void **state)
{
    (void)state;
    check_quake_room(false);
}

/* ------------------------------------------------------------------------ */
/* Source rooms                                                              */
/* ------------------------------------------------------------------------ */

static void check_source_room(bspkit_sample_kind kind, bool be, bool lzma)
{
    sample s = open_sample(kind);
    bspkit_map *m = s.map;
    const bspkit_format *f = bspkit_map_format(m);
    assert_int_equal(f->family, BSPKIT_FAMILY_SOURCE);
    assert_int_equal(f->version, 20);
    assert_int_equal(f->big_endian, be);
    assert_int_equal(f->variant, lzma ? BSPKIT_VARIANT_COMPRESSED : 0);
    assert_int_equal(f->revision, 1);
    assert_memory_equal(s.bytes, be ? "PSBV" : "VBSP", 4);
    assert_valid(m, bspkit_sample_name(kind));

    ASSERT_COUNT(bspkit_get_planes, bspkit_plane, m, 36); /* 18 positions, each with its flipped twin */
    ASSERT_COUNT(bspkit_get_vertexes, bspkit_vec3, m, 16);
    ASSERT_COUNT(bspkit_get_edges, bspkit_edge, m, 25);
    ASSERT_COUNT(bspkit_get_surfedges, int32_t, m, 48);
    ASSERT_COUNT(bspkit_get_faces, bspkit_face, m, 12);
    ASSERT_COUNT(bspkit_get_orig_faces, bspkit_face, m, 12);
    ASSERT_COUNT(bspkit_get_hdr_faces, bspkit_face, m, 0);
    ASSERT_COUNT(bspkit_get_nodes, bspkit_node, m, 12);
    ASSERT_COUNT(bspkit_get_leafs, bspkit_leaf, m, 15);
    ASSERT_COUNT(bspkit_get_models, bspkit_model, m, 2);
    ASSERT_COUNT(bspkit_get_texinfo, bspkit_texinfo, m, 4);
    ASSERT_COUNT(bspkit_get_texdata, bspkit_texdata, m, 2);
    ASSERT_COUNT(bspkit_get_brushes, bspkit_brush, m, 7);
    ASSERT_COUNT(bspkit_get_brushsides, bspkit_brushside, m, 42);
    ASSERT_COUNT(bspkit_get_leaf_faces, uint32_t, m, 12);
    ASSERT_COUNT(bspkit_get_leaf_brushes, uint32_t, m, 7);
    ASSERT_COUNT(bspkit_get_areas, bspkit_area, m, 2);
    ASSERT_COUNT(bspkit_get_areaportals, bspkit_areaportal, m, 1);
    ASSERT_COUNT(bspkit_get_cubemaps, bspkit_cubemap, m, 0);
    ASSERT_COUNT(bspkit_get_game_lumps, bspkit_game_lump, m, 0);
    ASSERT_COUNT(bspkit_get_texdata_string_table, int32_t, m, 2);
    static const char *const classes[4] = {"worldspawn", "info_player_start", "light", "func_brush"};
    check_entities(m, classes, 4);
    const bspkit_entities *ents;
    CHECK(bspkit_get_entities(m, &ents, ERR));
    assert_string_equal(bspkit_entity_value(ents, 3, "model"), "*1");
    assert_string_equal(bspkit_texdata_name(m, 0), "DEV/DEV_MEASUREGENERIC01B");
    assert_string_equal(bspkit_texdata_name(m, 1), "TOOLS/TOOLSNODRAW");

    const bspkit_plane *planes;
    size_t np;
    CHECK(bspkit_get_planes(m, &planes, &np, ERR));
    for (size_t i = 0; i < np; i += 2) {
        assert_true(planes[i + 1].normal.x == -planes[i].normal.x);
        assert_true(planes[i + 1].normal.z == -planes[i].normal.z);
        assert_true(planes[i + 1].dist == -planes[i].dist);
    }

    /* World tree: the centre is in leaf 1 (cluster 0, area 1). */
    const bspkit_model *models;
    const bspkit_leaf *leafs;
    size_t n;
    CHECK(bspkit_get_models(m, &models, &n, ERR));
    CHECK(bspkit_get_leafs(m, &leafs, &n, ERR));
    int32_t leaf = walk_nodes(m, models[0].headnode[0], CENTRE);
    assert_int_equal(leaf, 1);
    assert_int_equal(leafs[1].contents, 0);
    assert_int_equal(leafs[1].cluster, 0);
    assert_int_equal(leafs[1].area, 1);
    assert_int_equal(leafs[0].contents, 1); /* the solid placeholder */

    /* Inside a wall: a solid leaf whose brush contains the point. */
    const bspkit_brush *brushes;
    const bspkit_brushside *sides;
    const uint32_t *leaf_brushes;
    size_t nb, nsides, nlb;
    CHECK(bspkit_get_brushes(m, &brushes, &nb, ERR));
    CHECK(bspkit_get_brushsides(m, &sides, &nsides, ERR));
    CHECK(bspkit_get_leaf_brushes(m, &leaf_brushes, &nlb, ERR));
    const bspkit_vec3 in_walls[3] = {{0, 0, -8}, {72, 0, 64}, {0, -70, 100}};
    for (int i = 0; i < 3; i++) {
        int32_t l = walk_nodes(m, 0, in_walls[i]);
        assert_int_equal(leafs[l].contents, 1);
        assert_int_equal(leafs[l].cluster, -1);
        assert_int_equal(leafs[l].num_leaf_brushes, 1);
        const bspkit_brush *br = &brushes[leaf_brushes[leafs[l].first_leaf_brush]];
        for (int32_t k = 0; k < br->num_sides; k++)
            assert_true(plane_dist(&planes[sides[br->first_side + k].plane], in_walls[i]) < 0);
    }

    /* func_brush model 1: its own tree, solid inside, empty around. */
    assert_int_equal(models[1].headnode[0], 6);
    int32_t inside = walk_nodes(m, models[1].headnode[0], BOX_CENTRE);
    assert_int_equal(inside, 8);
    assert_int_equal(leafs[inside].contents, 1);
    assert_int_equal(leaf_brushes[leafs[inside].first_leaf_brush], 6);
    int32_t outside = walk_nodes(m, models[1].headnode[0], CENTRE);
    assert_true(outside >= 9 && outside <= 14);
    assert_int_equal(leafs[outside].contents, 0);

    /* Every brush side faces out of its brush. */
    for (size_t b = 0; b < nb; b++) {
        const bspkit_brush *br = &brushes[b];
        assert_int_equal(br->contents, 1);
        bspkit_vec3 c = {0, 0, 0};
        for (int32_t k = 0; k < br->num_sides; k++) {
            const bspkit_plane *p = &planes[sides[br->first_side + k].plane];
            c.x += p->normal.x * p->dist;
            c.y += p->normal.y * p->dist;
            c.z += p->normal.z * p->dist;
        }
        /* For an axial box the sides' points n*d sum to twice the centre. */
        c = (bspkit_vec3){c.x / 2, c.y / 2, c.z / 2};
        for (int32_t k = 0; k < br->num_sides; k++)
            assert_true(plane_dist(&planes[sides[br->first_side + k].plane], c) < 0);
    }

    for (size_t i = 0; i < 6; i++)
        check_face_geometry(m, i, &CENTRE, NULL);
    for (size_t i = 6; i < 12; i++)
        check_face_geometry(m, i, NULL, &BOX_CENTRE);
    check_closed(m, 0, 6);
    check_closed(m, 6, 6);

    /* Lightmaps: vbsp's extents from the lightmap vectors; samples preceded
     * by one average per face. */
    const bspkit_face *faces;
    const bspkit_texinfo *ti;
    size_t nf, nt;
    CHECK(bspkit_get_faces(m, &faces, &nf, ERR));
    CHECK(bspkit_get_texinfo(m, &ti, &nt, ERR));
    const uint8_t *light, *light_hdr;
    size_t light_size, hdr_size;
    CHECK(bspkit_get_lighting(m, false, &light, &light_size, ERR));
    CHECK(bspkit_get_lighting(m, true, &light_hdr, &hdr_size, ERR));
    assert_int_equal(hdr_size, light_size);
    size_t at = 0;
    for (size_t i = 0; i < nf; i++) {
        const bspkit_face *fc = &faces[i];
        const bspkit_texinfo *t = &ti[fc->texinfo];
        for (int a = 0; a < 2; a++) {
            double lo = 1e30, hi = -1e30;
            for (int32_t k = 0; k < fc->num_edges; k++) {
                bspkit_vec3 v = face_vertex(m, fc, k);
                const float *vec = t->lightmap_vecs[a];
                double val = (double)v.x * vec[0] + (double)v.y * vec[1] + (double)v.z * vec[2] + vec[3];
                lo = val < lo ? val : lo;
                hi = val > hi ? val : hi;
            }
            int32_t mins = floor_div16(16 * lo), maxs = ceil_div16(16 * hi);
            assert_int_equal(fc->lightmap_mins[a], mins);
            assert_int_equal(fc->lightmap_size[a], maxs - mins);
        }
        assert_int_equal(fc->light_offset, (int32_t)(at + 4));
        assert_int_equal(fc->dispinfo, -1);
        assert_int_equal(fc->orig_face, (int32_t)i);
        at += 4 + 4 * (size_t)(fc->lightmap_size[0] + 1) * (size_t)(fc->lightmap_size[1] + 1);
    }
    assert_int_equal(light_size, at);

    uint32_t rows, row_bytes;
    CHECK(bspkit_vis_dimensions(m, &rows, &row_bytes, ERR));
    assert_int_equal(rows, 1);
    assert_int_equal(row_bytes, 1);
    uint8_t row;
    CHECK(bspkit_vis_row(m, 0, BSPKIT_VIS_PVS, &row, 1, ERR));
    assert_int_equal(row, 0x01);
    CHECK(bspkit_vis_row(m, 0, BSPKIT_VIS_PAS, &row, 1, ERR));
    assert_int_equal(row, 0x01);

    const uint8_t *pak;
    size_t pak_size;
    CHECK(bspkit_get_pakfile(m, &pak, &pak_size, ERR));
    assert_int_equal(pak_size, 22);
    assert_memory_equal(pak, "PK\x05\x06", 4);
    bspkit_lump_info info;
    CHECK(bspkit_get_lump_info(m, BSPKIT_S_PAKFILE, &info));
    assert_int_equal(info.offset % 2048, 0);
    assert_true(info.offset + info.length <= s.size && s.size - (info.offset + info.length) < 4);
    for (int i = 0; i < bspkit_lump_count(m); i++) {
        bspkit_lump_info li;
        CHECK(bspkit_get_lump_info(m, i, &li));
        if (li.length && i != BSPKIT_S_PAKFILE)
            assert_true(li.offset + li.length <= info.offset); /* PAKFILE last */
        assert_int_equal(li.offset % 4, 0);
        if (lzma)
            assert_int_equal(li.compressed, li.length > 0 && i != BSPKIT_S_PAKFILE && i != BSPKIT_S_GAME_LUMP);
    }

    close_sample(&s);
}

static void test_source_room(void **state)
{
    (void)state;
    check_source_room(BSPKIT_SAMPLE_SOURCE_ROOM, false, false);
}

static void test_source_room_be(void **state)
{
    (void)state;
    check_source_room(BSPKIT_SAMPLE_SOURCE_ROOM_BE, true, false);
}

static void test_source_room_lzma(void **state)
{
    (void)state;
    check_source_room(BSPKIT_SAMPLE_SOURCE_ROOM_LZMA, false, true);
}

/* The LZMA flavour's decompressed lumps equal the plain flavour's lumps as
 * read from its directory by hand. */
static void test_lzma_matches_plain(void **state)
{
    (void)state;
    sample plain = open_sample(BSPKIT_SAMPLE_SOURCE_ROOM);
    sample packed = open_sample(BSPKIT_SAMPLE_SOURCE_ROOM_LZMA);
    assert_true(packed.size < plain.size);
    for (int i = 0; i < BSPKIT_S_LUMP_COUNT; i++) {
        const uint8_t *e = plain.bytes + 8 + 16 * i;
        uint32_t ofs = rd_le32(e), len = rd_le32(e + 4);
        const uint8_t *data;
        size_t size;
        CHECK(bspkit_lump_bytes(packed.map, i, &data, &size, ERR));
        assert_int_equal(size, len);
        if (i == BSPKIT_S_GAME_LUMP) {
            assert_int_equal(rd_le32(data), 0); /* no entries: no offsets that could differ */
            continue;
        }
        if (len)
            assert_memory_equal(data, plain.bytes + ofs, len);
    }
    close_sample(&plain);
    close_sample(&packed);
}

/* Big-endian decodes to the same records as little-endian. */
static void test_be_matches_le(void **state)
{
    (void)state;
    sample le = open_sample(BSPKIT_SAMPLE_SOURCE_ROOM);
    sample be = open_sample(BSPKIT_SAMPLE_SOURCE_ROOM_BE);
    assert_int_equal(le.size, be.size);
    size_t n1, n2;

    const bspkit_plane *p1, *p2;
    CHECK(bspkit_get_planes(le.map, &p1, &n1, ERR));
    CHECK(bspkit_get_planes(be.map, &p2, &n2, ERR));
    assert_int_equal(n1, n2);
    for (size_t i = 0; i < n1; i++) {
        assert_true(p1[i].normal.x == p2[i].normal.x && p1[i].normal.y == p2[i].normal.y &&
                    p1[i].normal.z == p2[i].normal.z && p1[i].dist == p2[i].dist);
        assert_int_equal(p1[i].type, p2[i].type);
    }
    const bspkit_face *f1, *f2;
    CHECK(bspkit_get_faces(le.map, &f1, &n1, ERR));
    CHECK(bspkit_get_faces(be.map, &f2, &n2, ERR));
    assert_int_equal(n1, n2);
    for (size_t i = 0; i < n1; i++) {
        assert_int_equal(f1[i].plane, f2[i].plane);
        assert_int_equal(f1[i].side, f2[i].side);
        assert_int_equal(f1[i].first_edge, f2[i].first_edge);
        assert_int_equal(f1[i].num_edges, f2[i].num_edges);
        assert_int_equal(f1[i].texinfo, f2[i].texinfo);
        assert_int_equal(f1[i].light_offset, f2[i].light_offset);
        assert_true(f1[i].area == f2[i].area);
        assert_int_equal(f1[i].lightmap_size[0], f2[i].lightmap_size[0]);
        assert_int_equal(f1[i].lightmap_mins[1], f2[i].lightmap_mins[1]);
    }
    const bspkit_node *d1, *d2;
    CHECK(bspkit_get_nodes(le.map, &d1, &n1, ERR));
    CHECK(bspkit_get_nodes(be.map, &d2, &n2, ERR));
    for (size_t i = 0; i < n1; i++) {
        assert_int_equal(d1[i].plane, d2[i].plane);
        assert_int_equal(d1[i].children[0], d2[i].children[0]);
        assert_int_equal(d1[i].children[1], d2[i].children[1]);
        assert_true(d1[i].mins.x == d2[i].mins.x && d1[i].maxs.z == d2[i].maxs.z);
        assert_int_equal(d1[i].area, d2[i].area);
    }
    const bspkit_leaf *l1, *l2;
    CHECK(bspkit_get_leafs(le.map, &l1, &n1, ERR));
    CHECK(bspkit_get_leafs(be.map, &l2, &n2, ERR));
    for (size_t i = 0; i < n1; i++) {
        assert_int_equal(l1[i].contents, l2[i].contents);
        assert_int_equal(l1[i].cluster, l2[i].cluster);
        assert_int_equal(l1[i].area, l2[i].area);
        assert_int_equal(l1[i].flags, l2[i].flags);
        assert_int_equal(l1[i].first_leaf_face, l2[i].first_leaf_face);
        assert_int_equal(l1[i].num_leaf_brushes, l2[i].num_leaf_brushes);
        assert_int_equal(l1[i].leaf_water, l2[i].leaf_water);
    }
    const bspkit_texinfo *t1, *t2;
    CHECK(bspkit_get_texinfo(le.map, &t1, &n1, ERR));
    CHECK(bspkit_get_texinfo(be.map, &t2, &n2, ERR));
    for (size_t i = 0; i < n1; i++) {
        for (int a = 0; a < 2; a++)
            for (int k = 0; k < 4; k++) {
                assert_true(t1[i].texture_vecs[a][k] == t2[i].texture_vecs[a][k]);
                assert_true(t1[i].lightmap_vecs[a][k] == t2[i].lightmap_vecs[a][k]);
            }
        assert_int_equal(t1[i].flags, t2[i].flags);
        assert_int_equal(t1[i].texture, t2[i].texture);
    }
    const bspkit_brushside *s1, *s2;
    CHECK(bspkit_get_brushsides(le.map, &s1, &n1, ERR));
    CHECK(bspkit_get_brushsides(be.map, &s2, &n2, ERR));
    for (size_t i = 0; i < n1; i++) {
        assert_int_equal(s1[i].plane, s2[i].plane);
        assert_int_equal(s1[i].texinfo, s2[i].texinfo);
        assert_int_equal(s1[i].dispinfo, s2[i].dispinfo);
        assert_int_equal(s1[i].bevel, s2[i].bevel);
    }
    const int32_t *e1, *e2;
    CHECK(bspkit_get_surfedges(le.map, &e1, &n1, ERR));
    CHECK(bspkit_get_surfedges(be.map, &e2, &n2, ERR));
    assert_memory_equal(e1, e2, n1 * sizeof *e1);
    /* Byte lumps are identical in either order. */
    static const int byte_lumps[] = {BSPKIT_S_ENTITIES, BSPKIT_S_LIGHTING, BSPKIT_S_LIGHTING_HDR,
                                     BSPKIT_S_TEXDATA_STRING_DATA, BSPKIT_S_PAKFILE};
    for (size_t i = 0; i < sizeof byte_lumps / sizeof byte_lumps[0]; i++) {
        const uint8_t *b1, *b2;
        CHECK(bspkit_lump_bytes(le.map, byte_lumps[i], &b1, &n1, ERR));
        CHECK(bspkit_lump_bytes(be.map, byte_lumps[i], &b2, &n2, ERR));
        assert_int_equal(n1, n2);
        assert_memory_equal(b1, b2, n1);
    }
    uint32_t c1, c2;
    CHECK(bspkit_map_crc(le.map, &c1, ERR));
    CHECK(bspkit_map_crc(be.map, &c2, ERR));
    assert_true(c1 != c2); /* the stored bytes differ */
    close_sample(&le);
    close_sample(&be);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_goldsrc_room),
        cmocka_unit_test(test_quake_room),
        cmocka_unit_test(test_source_room),
        cmocka_unit_test(test_source_room_be),
        cmocka_unit_test(test_source_room_lzma),
        cmocka_unit_test(test_lzma_matches_plain),
        cmocka_unit_test(test_be_matches_le),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
