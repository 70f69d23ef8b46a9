/* VMF decompiler: the output is read back with the tests' own VMF reader and
 * checked against the map's lumps and against values encoded here by hand:
 *  - every non-bevel plane of each brush appears on one solid, the plane
 *    recomputed from the side's three points as Hammer/vbsp do
 *    (normal = (p0 - p1) x (p2 - p1), dist = p0 . normal), in both byte
 *    orders and compressed;
 *  - the solid count equals the brush count, entity key/values survive;
 *  - hand-built clip / npcclip / playerclip / areaportal brushes without
 *    texinfo get their tool materials, patched names are un-patched;
 *  - a hand-encoded displacement comes back with (2^p+1)^2 normals and
 *    distances carrying the encoded values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "bspkit/bspkit.h"
#include "bspkit/decompile.h"
#include "bspkit/query.h"
#include "bspkit/write.h"
#include "check.h"
#include "vmf_read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct dplane {
    double n[3], d;
} dplane;


/* DISP_TRIS tag bits (bspfile.h: SURFACE 1, WALKABLE 2, BUILDABLE 4,
 * SURFPROP1 8) and the values Hammer's VMF holds for them (mapdisp.h /
 * builddisp.h COREDISPTRI_TAG_*: WALKABLE 1, BUILDABLE 8; the surface and
 * surface-property bits have no VMF form). */
static const uint8_t BSP_TRI_TAGS[6] = {0, 2, 4, 6, 9, 3};
static const long VMF_TRI_TAGS[6] = {0, 1, 8, 9, 0, 1};
static int plane_from_side(const vmf_node *side, dplane *out) { return vmf_side_plane(side, out->n, &out->d); }

static bool solid_has_plane(const vmf_node *solid, const double n[3], double d)
{
    for (size_t i = 0; i < vmf_count(solid, "side"); i++) {
        dplane p;
        if (plane_from_side(vmf_child(solid, "side", i), &p) != 0)
            continue;
        if (fabs(p.n[0] - n[0]) < 0.01 && fabs(p.n[1] - n[1]) < 0.01 && fabs(p.n[2] - n[2]) < 0.01 &&
            fabs(p.d - d) < 0.01)
            return true;
    }
    return false;
}

/* Every solid of the file: world's and every entity's. */
static size_t collect_solids(const vmf_node *root, const vmf_node **out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < root->child_count; i++) {
        const vmf_node *blk = &root->children[i];
        if (strcmp(blk->name, "world") != 0 && strcmp(blk->name, "entity") != 0)
            continue;
        for (size_t k = 0; k < vmf_count(blk, "solid") && n < cap; k++)
            out[n++] = vmf_child(blk, "solid", k);
    }
    return n;
}

static char *decompile(bspkit_map *m, vmf_node *root, bspkit_decompile_stats *st)
{
    char *text;
    size_t size;
    CHECK(bspkit_decompile_memory(m, NULL, &text, &size, st, ERR));
    assert_int_equal(strlen(text), size);
    char msg[128];
    if (vmf_parse(text, size, root, msg, sizeof msg) != 0)
        fail_msg("VMF does not parse: %s", msg);
    return text;
}

/* Each brush's non-bevel planes appear together on one solid (entity brushes moved by origin 0 here). */
static void check_brush_planes(bspkit_map *m, const vmf_node *root, size_t expect_solids)
{
    const bspkit_brush *br;
    const bspkit_brushside *bs;
    const bspkit_plane *pl;
    size_t nb, ns, np;
    CHECK(bspkit_get_brushes(m, &br, &nb, ERR));
    CHECK(bspkit_get_brushsides(m, &bs, &ns, ERR));
    CHECK(bspkit_get_planes(m, &pl, &np, ERR));
    const vmf_node *solids[64];
    size_t nsol = collect_solids(root, solids, 64);
    assert_int_equal(nsol, expect_solids);
    bool used[64] = {0};
    for (size_t b = 0; b < nb; b++) {
        bool found = false;
        for (size_t s = 0; s < nsol && !found; s++) {
            if (used[s])
                continue;
            bool all = true;
            for (int32_t k = 0; k < br[b].num_sides && all; k++) {
                const bspkit_brushside *side = &bs[br[b].first_side + k];
                if (side->bevel)
                    continue;
                const bspkit_plane *p = &pl[side->plane];
                double n[3] = {p->normal.x, p->normal.y, p->normal.z};
                all = solid_has_plane(solids[s], n, p->dist);
            }
            if (all && (size_t)br[b].num_sides == vmf_count(solids[s], "side"))
                found = used[s] = true;
        }
        if (!found)
            fail_msg("brush %zu: no solid carries all its planes", b);
    }
}

/* Every key/value of every entity is in the matching VMF block (outputs in connections). */
static void check_entities(bspkit_map *m, const vmf_node *root)
{
    const bspkit_entities *ents;
    CHECK(bspkit_get_entities(m, &ents, ERR));
    size_t vmf_ents = vmf_count(root, "entity");
    for (size_t e = 0; e < ents->count; e++) {
        bool found = false;
        for (size_t v = 0; v < (e == 0 ? 1 : vmf_ents) && !found; v++) {
            const vmf_node *blk = e == 0 ? vmf_child(root, "world", 0) : vmf_child(root, "entity", v);
            assert_non_null(blk);
            const vmf_node *conn = vmf_child(blk, "connections", 0);
            bool all = true;
            for (size_t k = 0; k < ents->entities[e].num_pairs && all; k++) {
                const bspkit_keyvalue *kv = &ents->pairs[ents->entities[e].first_pair + k];
                if (strcmp(kv->key, "model") == 0 && kv->value[0] == '*')
                    continue; /* brushes are inline now */
                const char *got = vmf_value(blk, kv->key);
                if ((!got || strcmp(got, kv->value) != 0) && conn)
                    got = vmf_value(conn, kv->key);
                all = got && strcmp(got, kv->value) == 0;
            }
            found = all;
        }
        if (!found)
            fail_msg("entity %zu: its key/values are not all in any VMF entity", e);
    }
}

static void sample_case(bspkit_sample_kind kind)
{
    uint8_t *data;
    size_t size;
    CHECK(bspkit_sample_build(kind, &data, &size, ERR));
    bspkit_map *m;
    CHECK(bspkit_open_memory(data, size, NULL, &m, ERR));
    vmf_node root;
    bspkit_decompile_stats st;
    char *text = decompile(m, &root, &st);
    /* source-room: 6 walls in the world, 1 brush in the func_brush */
    check_brush_planes(m, &root, 7);
    assert_int_equal(st.brushes, 7);
    assert_int_equal(vmf_count(vmf_child(&root, "world", 0), "solid"), 6);
    check_entities(m, &root);
    /* the func_brush keeps its keys but not "model", and holds its brush */
    bool func_brush = false;
    for (size_t i = 0; i < vmf_count(&root, "entity"); i++) {
        const vmf_node *e = vmf_child(&root, "entity", i);
        const char *cls = vmf_value(e, "classname");
        if (cls && strcmp(cls, "func_brush") == 0) {
            func_brush = true;
            assert_null(vmf_value(e, "model"));
            assert_int_equal(vmf_count(e, "solid"), 1);
        }
    }
    assert_true(func_brush);
    assert_non_null(vmf_child(&root, "versioninfo", 0));
    assert_non_null(vmf_child(&root, "cameras", 0));
    vmf_free(&root);
    free(text);
    bspkit_close(m);
    bspkit_free_buffer(data);
}

static void test_source_room(void **state) { (void)state, sample_case(BSPKIT_SAMPLE_SOURCE_ROOM); }
static void test_source_room_be(void **state) { (void)state, sample_case(BSPKIT_SAMPLE_SOURCE_ROOM_BE); }
static void test_source_room_lzma(void **state) { (void)state, sample_case(BSPKIT_SAMPLE_SOURCE_ROOM_LZMA); }

/* ---- hand-built map ------------------------------------------------------ */

/* Five 32-unit boxes along x; planes: 6 per box, each stored with its flipped twin. */
#define BOXES 5
static const int32_t BOX_CONTENTS[BOXES] = {
    BSPKIT_S_CONTENTS_PLAYERCLIP | BSPKIT_S_CONTENTS_MONSTERCLIP, /* tools/toolsclip */
    BSPKIT_S_CONTENTS_MONSTERCLIP,                               /* tools/toolsnpcclip */
    BSPKIT_S_CONTENTS_PLAYERCLIP,                                /* tools/toolsplayerclip */
    BSPKIT_S_CONTENTS_AREAPORTAL,                                /* tools/toolsareaportal */
    BSPKIT_S_CONTENTS_SOLID,                                     /* patched names, a displacement on top */
};
static const char *const EXPECT[BOXES] = {"TOOLS/TOOLSCLIP", "TOOLS/TOOLSNPCCLIP", "TOOLS/TOOLSPLAYERCLIP",
                                          "TOOLS/TOOLSAREAPORTAL", NULL};
static const char *const NAMES[3] = {"maps/test_map/brick/wall01_-128_256_64", "maps/test_map/nature/blend_wvt_patch",
                                     "maps/test_map/nature/water_canal_depth_32"};
static const char *const UNPATCHED[3] = {"brick/wall01", "nature/blend", "nature/water_canal"};

static void le32(uint8_t *p, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        p[k] = (uint8_t)(v >> (8 * k));
}
static void lef(uint8_t *p, float f)
{
    uint32_t v;
    memcpy(&v, &f, 4);
    le32(p, v);
}

static void test_hand_built(void **state)
{
    (void)state;
    bspkit_builder *b;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_SOURCE, 20, &b, ERR));
    bspkit_plane planes[BOXES * 12];
    bspkit_brush brushes[BOXES];
    bspkit_brushside sides[BOXES * 6];
    for (int i = 0; i < BOXES; i++) {
        float lo[3] = {(float)(64 * i), 0, 0}, hi[3] = {(float)(64 * i + 32), 32, 32};
        for (int a = 0; a < 3; a++)
            for (int s = 0; s < 2; s++) {
                int k = i * 12 + a * 4 + s * 2;
                float nv[3] = {0, 0, 0};
                nv[a] = s ? 1.0f : -1.0f;
                float d = s ? hi[a] : -lo[a];
                planes[k] = (bspkit_plane){{nv[0], nv[1], nv[2]}, d, a};
                planes[k + 1] = (bspkit_plane){{-nv[0], -nv[1], -nv[2]}, -d, a};
                bspkit_brushside *bs = &sides[i * 6 + a * 2 + s];
                *bs = (bspkit_brushside){.plane = (uint32_t)k, .texinfo = -1, .dispinfo = -1};
                if (i == BOXES - 1)
                    bs->texinfo = a == 2 && s ? 0 : (a == 0 ? 1 : 2);
            }
        brushes[i] = (bspkit_brush){i * 6, 6, BOX_CONTENTS[i], -1};
    }
    CHECK(bspkit_builder_set_planes(b, planes, BOXES * 12, ERR));
    CHECK(bspkit_builder_set_brushes(b, brushes, BOXES, ERR));
    CHECK(bspkit_builder_set_brushsides(b, sides, BOXES * 6, ERR));
    bspkit_texinfo ti[3];
    memset(ti, 0, sizeof ti);
    for (int t = 0; t < 3; t++) {
        ti[t].texture_vecs[0][0] = 0.25f, ti[t].texture_vecs[1][1] = -0.25f;
        ti[t].lightmap_vecs[0][0] = 1.0f / 32, ti[t].lightmap_vecs[1][1] = -1.0f / 32;
        ti[t].texture = t;
    }
    CHECK(bspkit_builder_set_texinfo(b, ti, 3, ERR));
    bspkit_texdata td[3] = {{.name_id = 0}, {.name_id = 1}, {.name_id = 2}};
    CHECK(bspkit_builder_set_texdata(b, td, 3, ERR));
    CHECK(bspkit_builder_set_texdata_strings(b, NAMES, 3, ERR));
    /* One node whose two leaves hold all brushes. */
    bspkit_node node = {.plane = 0, .children = {-1, -2}, .mins = {-16, -16, -16}, .maxs = {400, 64, 64}};
    bspkit_leaf leafs[2];
    memset(leafs, 0, sizeof leafs);
    leafs[0].first_leaf_brush = 0, leafs[0].num_leaf_brushes = BOXES;
    leafs[1].cluster = -1, leafs[0].leaf_water = leafs[1].leaf_water = -1;
    uint32_t lb[BOXES] = {0, 1, 2, 3, 4};
    CHECK(bspkit_builder_set_nodes(b, &node, 1, ERR));
    CHECK(bspkit_builder_set_leafs(b, leafs, 2, ERR));
    CHECK(bspkit_builder_set_leaf_brushes(b, lb, BOXES, ERR));
    bspkit_model model = {.mins = {0, 0, 0}, .maxs = {320, 32, 32}};
    CHECK(bspkit_builder_set_models(b, &model, 1, ERR));
    /* The top of the last box as a face carrying a power-2 displacement. */
    float x0 = 64 * (BOXES - 1), x1 = x0 + 32;
    bspkit_vec3 verts[4] = {{x0, 0, 32}, {x0, 32, 32}, {x1, 32, 32}, {x1, 0, 32}};
    bspkit_edge edges[5] = {{{0, 0}}, {{0, 1}}, {{1, 2}}, {{2, 3}}, {{3, 0}}};
    int32_t surfedges[4] = {1, 2, 3, 4};
    bspkit_face face = {.plane = (uint32_t)((BOXES - 1) * 12 + 10), .first_edge = 0, .num_edges = 4, .texinfo = 0,
                        .dispinfo = 0, .light_offset = -1, .orig_face = -1};
    memset(face.styles, 255, 4);
    CHECK(bspkit_builder_set_vertexes(b, verts, 4, ERR));
    CHECK(bspkit_builder_set_edges(b, edges, 5, ERR));
    CHECK(bspkit_builder_set_surfedges(b, surfedges, 4, ERR));
    CHECK(bspkit_builder_set_faces(b, &face, 1, ERR));
    uint8_t info[176], dverts[25 * 20], dtris[32 * 2];
    memset(info, 0, sizeof info);
    lef(info, x0), lef(info + 4, 0), lef(info + 8, 32); /* startPosition at corner 0 */
    le32(info + 20, 2);                                   /* power */
    for (int v = 0; v < 25; v++) {
        lef(dverts + 20 * v, 0), lef(dverts + 20 * v + 4, 0), lef(dverts + 20 * v + 8, 1);
        lef(dverts + 20 * v + 12, (float)v), lef(dverts + 20 * v + 16, 0);
    }
    for (int t = 0; t < 32; t++)
        dtris[2 * t] = BSP_TRI_TAGS[t % 6], dtris[2 * t + 1] = 0;
    CHECK(bspkit_builder_set_lump(b, BSPKIT_S_DISPINFO, info, sizeof info, 0, ERR));
    CHECK(bspkit_builder_set_lump(b, BSPKIT_S_DISP_VERTS, dverts, sizeof dverts, 0, ERR));
    CHECK(bspkit_builder_set_lump(b, BSPKIT_S_DISP_TRIS, dtris, sizeof dtris, 0, ERR));
    static const char ents[] = "{\n\"classname\" \"worldspawn\"\n}\n{\n\"classname\" \"trigger_once\"\n"
                               "\"OnTrigger\" \"door,Open,,0,-1\"\n\"wait\" \"1\"\n}\n";
    CHECK(bspkit_builder_set_entities(b, ents, sizeof ents - 1, ERR));
    uint8_t *data;
    size_t size;
    CHECK(bspkit_builder_write(b, NULL, &data, &size, ERR));
    bspkit_builder_free(b);
    bspkit_map *m;
    CHECK(bspkit_open_memory(data, size, NULL, &m, ERR));
    vmf_node root;
    bspkit_decompile_stats st;
    char *text = decompile(m, &root, &st);
    check_brush_planes(m, &root, BOXES);
    check_entities(m, &root);
    const vmf_node *world = vmf_child(&root, "world", 0);
    assert_int_equal(vmf_count(world, "solid"), BOXES);
    for (int i = 0; i < BOXES; i++) {
        const vmf_node *solid = vmf_child(world, "solid", (size_t)i);
        for (size_t s = 0; s < vmf_count(solid, "side"); s++) {
            const vmf_node *side = vmf_child(solid, "side", s);
            const char *mat = vmf_value(side, "material");
            assert_non_null(mat);
            if (EXPECT[i]) {
                assert_string_equal(mat, EXPECT[i]);
                continue;
            }
            dplane p;
            assert_int_equal(plane_from_side(side, &p), 0);
            int want = p.n[2] > 0.5 ? 0 : (fabs(p.n[0]) > 0.5 ? 1 : 2);
            assert_string_equal(mat, UNPATCHED[want]);
            assert_string_equal(vmf_value(side, "uaxis"), "[1 0 0 0] 4");
            assert_string_equal(vmf_value(side, "lightmapscale"), "32");
            const vmf_node *disp = vmf_child(side, "dispinfo", 0);
            if (want != 0) {
                assert_null(disp);
                continue;
            }
            assert_non_null(disp);
            assert_string_equal(vmf_value(disp, "power"), "2");
            const vmf_node *normals = vmf_child(disp, "normals", 0), *dist = vmf_child(disp, "distances", 0);
            assert_non_null(normals);
            assert_non_null(dist);
            assert_int_equal(normals->pair_count, 5);
            assert_int_equal(dist->pair_count, 5);
            size_t values = 0;
            for (size_t r = 0; r < 5; r++) {
                char key[8];
                snprintf(key, sizeof key, "row%zu", r);
                const char *row = vmf_value(dist, key);
                assert_non_null(row);
                char *end;
                for (const char *q = row; *q; q = end) {
                    double v = strtod(q, &end);
                    if (end == q)
                        break;
                    assert_true(fabs(v - (double)values) < 1e-6); /* encoded: distance v for vertex v */
                    values++;
                }
                int nums = 0;
                for (const char *q = vmf_value(normals, key); q && *q; q = end) {
                    strtod(q, &end);
                    if (end == q)
                        break;
                    nums++;
                }
                assert_int_equal(nums, 15);
            }
            assert_int_equal(values, 25); /* (2^2 + 1)^2 */
            const vmf_node *tags = vmf_child(disp, "triangle_tags", 0);
            assert_int_equal(tags->pair_count, 4);
            /* Hammer's tags, not the BSP's: row i holds the 8 triangles of quads (i, *). */
            for (int row = 0; row < 4; row++) {
                char key[8];
                snprintf(key, sizeof key, "row%d", row);
                const char *q = vmf_value(tags, key);
                assert_non_null(q);
                for (int t = 0; t < 8; t++) {
                    char *after;
                    long got = strtol(q, &after, 10);
                    assert_true(after != q);
                    assert_int_equal(got, VMF_TRI_TAGS[(8 * row + t) % 6]);
                    q = after;
                }
            }
        }
    }
    assert_int_equal(st.displacements, 1);
    /* the output went into connections */
    bool conn = false;
    for (size_t i = 0; i < vmf_count(&root, "entity"); i++) {
        const vmf_node *c = vmf_child(vmf_child(&root, "entity", i), "connections", 0);
        if (c && vmf_value(c, "OnTrigger") && strcmp(vmf_value(c, "OnTrigger"), "door,Open,,0,-1") == 0)
            conn = true;
    }
    assert_true(conn);
    vmf_free(&root);
    free(text);
    bspkit_close(m);
    bspkit_free_buffer(data);
}

/* The reader itself: nested blocks, comments, quoted values across lines, errors. */
static void test_reader(void **state)
{
    (void)state;
    static const char text[] = "// c\nworld\n{\n\"a\" \"1\"\nsolid\n{\n\"b\" \"x\ny\"\n}\n}\nentity { k v }\n";
    vmf_node root;
    char msg[64];
    assert_int_equal(vmf_parse(text, sizeof text - 1, &root, msg, sizeof msg), 0);
    assert_int_equal(root.child_count, 2);
    const vmf_node *w = vmf_child(&root, "world", 0);
    assert_string_equal(vmf_value(w, "a"), "1");
    assert_string_equal(vmf_value(vmf_child(w, "solid", 0), "b"), "x\ny");
    assert_string_equal(vmf_value(vmf_child(&root, "entity", 0), "k"), "v");
    vmf_free(&root);
    static const char bad[] = "world\n{\n\"a\" \"1\"\n";
    assert_int_equal(vmf_parse(bad, sizeof bad - 1, &root, msg, sizeof msg), -1);
}

/* A Quake map cannot become a VMF; the refusal names the format. */
static void test_refuses_quake(void **state)
{
    (void)state;
    uint8_t *data;
    size_t size;
    CHECK(bspkit_sample_build(BSPKIT_SAMPLE_QUAKE_ROOM, &data, &size, ERR));
    bspkit_map *m;
    CHECK(bspkit_open_memory(data, size, NULL, &m, ERR));
    bspkit_decompile_options o = {.format = BSPKIT_DECOMPILE_VMF};
    char *text;
    size_t n;
    assert_int_equal(bspkit_decompile_memory(m, &o, &text, &n, NULL, ERR), BSPKIT_ERR_UNSUPPORTED);
    bspkit_close(m);
    bspkit_free_buffer(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader),         cmocka_unit_test(test_source_room),
        cmocka_unit_test(test_source_room_be), cmocka_unit_test(test_source_room_lzma),
        cmocka_unit_test(test_hand_built),     cmocka_unit_test(test_refuses_quake),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
