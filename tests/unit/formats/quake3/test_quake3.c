/* Quake 3 (IBSP 46/47): a small map written byte by byte here from the
 * layouts in id's qfiles.h (dheader_t with 17 lump_t, dshader_t, dplane_t,
 * dnode_t, dleaf_t, dmodel_t, dbrush_t, dbrushside_t, drawVert_t, dfog_t,
 * dsurface_t, the visibility header), so the expected values never come
 * from our own writer: detection (17 entries, 18 with Quake Live's
 * ADVERTISEMENTS, a q3map2 banner after 17), every record decoded field by
 * field, validation (clean, then each kind of damage), visibility rows,
 * point contents through brush shaders, the lightmap rectangle of a surface,
 * and an unchanged save that reproduces the file byte for byte. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "byte_out.h"
#include "check.h"
#include "bspkit/bspkit.h"
#include "bspkit/edit.h"
#include "bspkit/lighting.h"
#include "bspkit/quake3.h"
#include "bspkit/query.h"

#include <stdlib.h>
#include <math.h>
#include <string.h>

/* What to break in the built map. */
typedef enum damage {
    NONE,
    SURFACE_SHADER,   /* surface 0 names shader 9 of 2 */
    PATCH_SHAPE,      /* the patch claims 4 x 3 control points */
    INDEX_OUTSIDE,    /* a draw index 7 of a 3-vertex surface */
    INDEX_AT_COUNT,   /* a draw index 3 of a 3-vertex surface: one past the last */
    INDEX_NEGATIVE,   /* a draw index -1 */
    FOG_SIDE,         /* the fog's visible side 9 of a 6-sided brush */
    LIGHTMAP_PAGE,    /* surface 0 names lightmap page 3 of 1 */
    BRUSH_SHADER,     /* brush 0 names shader 4 of 2 */
    GRID_SHORT,       /* the light grid has 3 cells where the bounds give 4 */
    RECT_FROM_VERTS,  /* surface 0 stores a 0 x 0 lightmap rectangle (newer q3map2) */
    RECT_VERT_INF,    /* ... and one of its vertices an infinite lightmap coordinate */
    LEAF_SURFACE_NEG, /* nine leaf surfaces, the fourth -1 (eight are checked as one vector) */
} damage;

typedef struct spec {
    int version;
    int lumps;       /* 17, or 18 with an ADVERTISEMENTS entry */
    bool banner;     /* bytes after the 17 entries, as older q3map2 writes */
    damage dmg;
    const float *tri_lm; /* with RECT_FROM_VERTS: the triangle's lightmap coordinates (u, v) x 3, or NULL */
} spec;

static void vertex(out *o, float x, float y, float z, float s, float t, float lu, float lv)
{
    f32(o, x), f32(o, y), f32(o, z), f32(o, s), f32(o, t), f32(o, lu), f32(o, lv);
    f32(o, 0), f32(o, 0), f32(o, 1); /* normal */
    u8(o, 255), u8(o, 128), u8(o, 64), u8(o, 255);
}

/* Lump contents, in lump order. The map is a 64-unit box brush under a
 * triangle on z = 0 and a 3 x 3 patch. */
static void lump_bytes(int lump, out *o, const spec *sp)
{
    switch (lump) {
    case 0: text(o, "{\n\"classname\" \"worldspawn\"\n}\n", 31); break;
    case 1: /* shaders: name[64], surfaceFlags, contentFlags */
        text(o, "textures/base_floor/clang_floor", 64), i32(o, 0), i32(o, 1);
        text(o, "textures/liquids/calm_poollight", 64), i32(o, 0x4), i32(o, 0x20);
        break;
    case 2: /* planes: the box's six sides, normal and dist */
        f32(o, 1), f32(o, 0), f32(o, 0), f32(o, 64);
        f32(o, -1), f32(o, 0), f32(o, 0), f32(o, 0);
        f32(o, 0), f32(o, 1), f32(o, 0), f32(o, 64);
        f32(o, 0), f32(o, -1), f32(o, 0), f32(o, 0);
        f32(o, 0), f32(o, 0), f32(o, 1), f32(o, 0);
        f32(o, 0), f32(o, 0), f32(o, -1), f32(o, 64);
        break;
    case 3: /* node: planeNum 4 (z = 0), children leaf 0 and leaf 1, int bounds */
        i32(o, 4), i32(o, -1), i32(o, -2);
        i32(o, 0), i32(o, 0), i32(o, -64), i32(o, 64), i32(o, 64), i32(o, 64);
        break;
    case 4: /* leafs: cluster, area, mins, maxs, leaf surfaces, leaf brushes */
        i32(o, 0), i32(o, 0), i32(o, 0), i32(o, 0), i32(o, 0), i32(o, 64), i32(o, 64), i32(o, 64);
        i32(o, 0), i32(o, 2), i32(o, 0), i32(o, 0);
        i32(o, 1), i32(o, 0), i32(o, 0), i32(o, 0), i32(o, -64), i32(o, 64), i32(o, 64), i32(o, 0);
        i32(o, 0), i32(o, 0), i32(o, 0), i32(o, 1);
        break;
    case 5: /* leaf surfaces */
        i32(o, 0), i32(o, 1);
        if (sp->dmg == LEAF_SURFACE_NEG)
            for (int k = 2; k < 9; k++)
                i32(o, k == 3 ? -1 : k % 2);
        break;
    case 6: i32(o, 0); break;             /* leaf brushes */
    case 7: /* model: mins, maxs, firstSurface, numSurfaces, firstBrush, numBrushes */
        f32(o, 0), f32(o, 0), f32(o, -64), f32(o, 64), f32(o, 64), f32(o, 64);
        i32(o, 0), i32(o, 2), i32(o, 0), i32(o, 1);
        break;
    case 8: i32(o, 0), i32(o, 6), i32(o, sp->dmg == BRUSH_SHADER ? 4 : 1); break; /* firstSide, numSides, shader */
    case 9: /* brush sides: planeNum, shaderNum; the top (z = 0, plane 4) is the water's */
        for (int k = 0; k < 6; k++)
            i32(o, k), i32(o, k == 4 ? 1 : 0);
        break;
    case 10: /* draw vertices: a triangle, then the 3 x 3 patch */
        if (sp->tri_lm) {
            vertex(o, 0, 0, 0, 0, 0, sp->tri_lm[0], sp->tri_lm[1]);
            vertex(o, 64, 0, 0, 1, 0, sp->tri_lm[2], sp->tri_lm[3]);
            vertex(o, 0, 64, 0, 0, 1, sp->tri_lm[4], sp->tri_lm[5]);
        } else {
            vertex(o, 0, 0, 0, 0, 0, 0.25f, 0.25f);
            vertex(o, 64, 0, 0, 1, 0, sp->dmg == RECT_VERT_INF ? INFINITY : 0.75f, 0.25f);
            vertex(o, 0, 64, 0, 0, 1, 0.25f, 0.75f);
        }
        for (int y = 0; y < 3; y++)
            for (int x = 0; x < 3; x++)
                vertex(o, 32.0f * (float)x, 32.0f * (float)y, x == 1 && y == 1 ? 16.0f : 0, 0, 0, 0, 0);
        break;
    case 11: i32(o, 0), i32(o, 2), i32(o, sp->dmg == INDEX_OUTSIDE ? 7 : sp->dmg == INDEX_AT_COUNT ? 3 : sp->dmg == INDEX_NEGATIVE ? -1 : 1); break; /* draw indices */
    case 12: text(o, "textures/fogs/fog", 64), i32(o, 0), i32(o, sp->dmg == FOG_SIDE ? 9 : 4); break;
    case 13: /* surfaces */
        /* planar: shader, fog, type, firstVert, numVerts, firstIndex, numIndexes, lightmapNum, X, Y, W, H */
        i32(o, sp->dmg == SURFACE_SHADER ? 9 : 0), i32(o, 0), i32(o, 1), i32(o, 0), i32(o, 3), i32(o, 0), i32(o, 3);
        {
            int32_t side = sp->dmg == RECT_FROM_VERTS || sp->dmg == RECT_VERT_INF ? 0 : 64;
            i32(o, sp->dmg == LIGHTMAP_PAGE ? 3 : 0), i32(o, 16), i32(o, 16), i32(o, side), i32(o, side);
        }
        for (int k = 0; k < 12; k++) /* lightmapOrigin, lightmapVecs */
            f32(o, k == 11 ? 1.0f : 0.0f);
        i32(o, 0), i32(o, 0);
        /* patch: vertex lit, 3 x 3 control points */
        i32(o, 0), i32(o, -1), i32(o, 2), i32(o, 3), i32(o, 9), i32(o, 0), i32(o, 0);
        i32(o, -1), i32(o, 0), i32(o, 0), i32(o, 0), i32(o, 0);
        for (int k = 0; k < 12; k++)
            f32(o, 0);
        i32(o, sp->dmg == PATCH_SHAPE ? 4 : 3), i32(o, 3);
        break;
    case 14: /* one 128 x 128 RGB lightmap page: luxel (x, y) = (x, y, 7) */
        for (int y = 0; y < 128; y++)
            for (int x = 0; x < 128; x++)
                u8(o, (unsigned)x), u8(o, (unsigned)y), u8(o, 7);
        break;
    case 15: /* light grid: the model spans x 0..64 and y 0..64 in 64-unit steps (2 x 2) and z -64..64
              * in 128-unit steps (the points at 0 only: 1): 4 cells of 8 bytes */
        for (int k = 0; k < (sp->dmg == GRID_SHORT ? 3 : 4); k++)
            u8(o, 10), u8(o, 20), u8(o, 30), u8(o, 40), u8(o, 50), u8(o, 60), u8(o, (unsigned)k), u8(o, 128);
        break;
    case 16: /* visibility: 2 clusters, 8 bytes a row; cluster 0 sees both, cluster 1 itself */
        i32(o, 2), i32(o, 8);
        u8(o, 0x03);
        for (int k = 0; k < 7; k++)
            u8(o, 0);
        u8(o, 0x02);
        for (int k = 0; k < 7; k++)
            u8(o, 0);
        break;
    case 17: text(o, "ad", 4); break; /* Quake Live's advertisements: opaque bytes */
    default: break;
    }
}

/* The whole file: header, then each lump 4-byte aligned. */
static uint8_t *build(const spec *sp, size_t *size)
{
    out *o = calloc(1, sizeof *o);
    assert_non_null(o);
    memcpy(o->b, "IBSP", 4);
    o->n = 4;
    i32(o, sp->version);
    size_t dir = o->n;
    o->n += 8 * (size_t)sp->lumps;
    if (sp->banner)
        text(o, "I LOVE MY Q3MAP2", 16);
    for (int l = 0; l < sp->lumps; l++) {
        size_t start = o->n;
        lump_bytes(l, o, sp);
        end_lump(o, dir, l, start);
    }
    uint8_t *data = malloc(o->n);
    assert_non_null(data);
    memcpy(data, o->b, o->n);
    *size = o->n;
    free(o);
    return data;
}

static bspkit_map *open_built(const spec *sp, uint8_t **data, size_t *size)
{
    *data = build(sp, size);
    bspkit_map *map = NULL;
    CHECK(bspkit_open_memory(*data, *size, NULL, &map, ERR));
    return map;
}

static const spec PLAIN = {46, 17, false, NONE, NULL};

static void test_detect(void **state)
{
    (void)state;
    uint8_t *data;
    size_t size;
    const spec cases[] = {{46, 17, false, NONE, NULL}, {46, 17, true, NONE, NULL}, {47, 18, false, NONE, NULL}};
    const int lumps[] = {17, 17, 18};
    const char *names[] = {"Quake 3 IBSP 46", "Quake 3 IBSP 46", "Quake Live / RTCW IBSP 47"};
    for (int k = 0; k < 3; k++) {
        bspkit_map *map = open_built(&cases[k], &data, &size);
        const bspkit_format *f = bspkit_map_format(map);
        assert_int_equal(f->family, BSPKIT_FAMILY_QUAKE3);
        assert_int_equal(f->version, cases[k].version);
        assert_int_equal(f->lump_count, lumps[k]);
        assert_string_equal(f->name, names[k]);
        assert_string_equal(bspkit_family_name(f->family), "quake3");
        if (lumps[k] == 18) {
            const uint8_t *bytes;
            size_t n;
            CHECK(bspkit_lump_bytes(map, BSPKIT_QL_ADVERTISEMENTS, &bytes, &n, ERR));
            assert_int_equal(n, 4);
            assert_memory_equal(bytes, "ad", 2);
        }
        bspkit_close(map);
        free(data);
    }
    /* A header cut inside the 17 entries is truncated. */
    data = build(&PLAIN, &size);
    bspkit_format fmt;
    bspkit_error e;
    assert_int_equal(bspkit_detect(data, 8 + 8 * 16, &fmt, &e), BSPKIT_ERR_TRUNCATED);
    free(data);
}

static void test_records(void **state)
{
    (void)state;
    uint8_t *data;
    size_t size, n;
    bspkit_map *map = open_built(&PLAIN, &data, &size);

    const bspkit_shader *sh;
    CHECK(bspkit_get_shaders(map, &sh, &n, ERR));
    assert_int_equal(n, 2);
    assert_string_equal(sh[1].name, "textures/liquids/calm_poollight");
    assert_int_equal(sh[1].surface_flags, 4);
    assert_int_equal(sh[1].contents, 0x20);

    const bspkit_plane *pl;
    CHECK(bspkit_get_planes(map, &pl, &n, ERR));
    assert_int_equal(n, 6);
    assert_true(pl[5].normal.z == -1.0f && pl[5].dist == 64.0f);

    const bspkit_node *no;
    CHECK(bspkit_get_nodes(map, &no, &n, ERR));
    assert_int_equal(n, 1);
    assert_int_equal(no[0].plane, 4);
    assert_int_equal(no[0].children[1], -2);
    assert_true(no[0].mins.z == -64.0f && no[0].maxs.x == 64.0f);

    const bspkit_leaf *le;
    CHECK(bspkit_get_leafs(map, &le, &n, ERR));
    assert_int_equal(n, 2);
    assert_int_equal(le[1].cluster, 1);
    assert_int_equal(le[0].num_leaf_faces, 2);
    assert_int_equal(le[1].num_leaf_brushes, 1);
    assert_true(le[1].mins.z == -64.0f);

    const bspkit_model *mo;
    CHECK(bspkit_get_models(map, &mo, &n, ERR));
    assert_int_equal(n, 1);
    assert_int_equal(mo[0].num_faces, 2);
    assert_int_equal(mo[0].num_brushes, 1);
    assert_true(mo[0].maxs.z == 64.0f);

    const bspkit_brush *br;
    const bspkit_brushside *bs;
    CHECK(bspkit_get_brushes(map, &br, &n, ERR));
    assert_int_equal(n, 1);
    assert_int_equal(br[0].shader, 1);
    CHECK(bspkit_get_brushsides(map, &bs, &n, ERR));
    assert_int_equal(n, 6);
    assert_int_equal(bs[4].plane, 4);
    assert_int_equal(bs[4].shader, 1);
    assert_int_equal(bs[3].shader, 0);
    assert_int_equal(bs[0].texinfo, -1);

    const bspkit_drawvert *dv;
    CHECK(bspkit_get_drawverts(map, &dv, &n, ERR));
    assert_int_equal(n, 12);
    assert_true(dv[1].xyz.x == 64.0f && dv[1].st[0] == 1.0f && dv[1].lightmap[0] == 0.75f);
    assert_true(dv[7].xyz.z == 16.0f);
    assert_int_equal(dv[0].color[1], 128);

    const int32_t *ix;
    CHECK(bspkit_get_drawindexes(map, &ix, &n, ERR));
    assert_int_equal(n, 3);
    assert_int_equal(ix[1], 2);

    const bspkit_fog *fo;
    CHECK(bspkit_get_fogs(map, &fo, &n, ERR));
    assert_int_equal(n, 1);
    assert_string_equal(fo[0].shader, "textures/fogs/fog");
    assert_int_equal(fo[0].visible_side, 4);

    const bspkit_lightgrid_cell *lg;
    CHECK(bspkit_get_lightgrid(map, &lg, &n, ERR));
    assert_int_equal(n, 4);
    assert_int_equal(lg[2].directed[2], 60);
    assert_int_equal(lg[2].direction[0], 2);

    const bspkit_surface *su;
    CHECK(bspkit_get_surfaces(map, &su, &n, ERR));
    assert_int_equal(n, 2);
    assert_int_equal(su[0].type, BSPKIT_Q3_SURFACE_PLANAR);
    assert_int_equal(su[0].num_indexes, 3);
    assert_int_equal(su[0].lightmap_width, 64);
    assert_true(su[0].lightmap_vecs[2].z == 1.0f);
    assert_int_equal(su[1].type, BSPKIT_Q3_SURFACE_PATCH);
    assert_int_equal(su[1].patch_width, 3);
    assert_int_equal(su[1].lightmap, -1);
    bspkit_close(map);
    free(data);
}

static size_t errors_naming(bspkit_map *map, int lump, const char *needle)
{
    bspkit_report rep;
    CHECK(bspkit_validate(map, &rep, ERR));
    size_t hits = 0;
    for (size_t i = 0; i < rep.count; i++)
        if (rep.problems[i].severity == BSPKIT_SEVERITY_ERROR && rep.problems[i].lump == lump &&
            strstr(rep.problems[i].message, needle ? needle : ""))
            hits++;
    size_t errors = rep.errors;
    bspkit_report_free(&rep);
    return needle ? hits : errors;
}

static void test_validate(void **state)
{
    (void)state;
    uint8_t *data;
    size_t size;
    bspkit_map *map = open_built(&PLAIN, &data, &size);
    assert_int_equal(errors_naming(map, -1, NULL), 0);
    bspkit_close(map);
    free(data);

    const struct {
        damage dmg;
        int lump;
        const char *message;
    } cases[] = {
        {SURFACE_SHADER, BSPKIT_Q3_SURFACES, "surface 0: shader 9 exceeds 2 shaders"},
        {PATCH_SHAPE, BSPKIT_Q3_SURFACES, "surface 1: patch of 4 x 3 control points"},
        {INDEX_OUTSIDE, BSPKIT_Q3_SURFACES, "drawindex 2 = 7 outside its 3 vertices"},
        {INDEX_AT_COUNT, BSPKIT_Q3_SURFACES, "drawindex 2 = 3 outside its 3 vertices"},
        {INDEX_NEGATIVE, BSPKIT_Q3_SURFACES, "drawindex 2 = -1 outside its 3 vertices"},
        {FOG_SIDE, BSPKIT_Q3_FOGS, "visibleSide 9 outside brush 0's 6 sides"},
        {LIGHTMAP_PAGE, BSPKIT_Q3_SURFACES, "lightmapNum 3 exceeds 1 lightmap pages"},
        {BRUSH_SHADER, BSPKIT_Q3_BRUSHES, "brush 0: shader 4 exceeds 2 shaders"},
        {LEAF_SURFACE_NEG, BSPKIT_Q3_LEAFSURFACES, "leafsurface 3: face 4294967295 exceeds 2 surfaces"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        spec sp = PLAIN;
        sp.dmg = cases[k].dmg;
        map = open_built(&sp, &data, &size);
        if (errors_naming(map, cases[k].lump, cases[k].message) != 1)
            fail_msg("damage %d: no error naming \"%s\"", (int)cases[k].dmg, cases[k].message);
        bspkit_close(map);
        free(data);
    }

    /* A light grid of the wrong size is a warning: the engine ignores the grid. */
    spec sp = PLAIN;
    sp.dmg = GRID_SHORT;
    map = open_built(&sp, &data, &size);
    bspkit_report rep;
    CHECK(bspkit_validate(map, &rep, ERR));
    assert_int_equal(rep.errors, 0);
    assert_int_equal(rep.warnings, 1);
    assert_int_equal(rep.problems[0].lump, BSPKIT_Q3_LIGHTGRID);
    assert_non_null(strstr(rep.problems[0].message, "3 cells, but the world's bounds in steps of 64 64 128 give 2 x 2 x 1 = 4"));
    bspkit_report_free(&rep);
    bspkit_close(map);
    free(data);
}

static void test_queries(void **state)
{
    (void)state;
    uint8_t *data;
    size_t size;
    bspkit_map *map = open_built(&PLAIN, &data, &size);

    /* Rows are read as stored, without decompression; there is no PAS. */
    uint32_t rows, row_bytes;
    CHECK(bspkit_vis_dimensions(map, &rows, &row_bytes, ERR));
    assert_int_equal(rows, 2);
    assert_int_equal(row_bytes, 1);
    uint8_t row = 0;
    CHECK(bspkit_vis_row(map, 1, BSPKIT_VIS_PVS, &row, 1, ERR));
    assert_int_equal(row, 0x02);
    bspkit_error e;
    assert_int_equal(bspkit_vis_row(map, 0, BSPKIT_VIS_PAS, &row, 1, &e), BSPKIT_ERR_NOT_FOUND);

    /* Contents: the box below z = 0 takes its brush's shader's (the pool's WATER); outside it, nothing. */
    int32_t contents;
    uint32_t leaf;
    CHECK(bspkit_point_contents(map, (bspkit_vec3){32, 32, -32}, 0, &contents, ERR));
    assert_int_equal(contents, 0x20);
    CHECK(bspkit_point_leaf(map, 0, (bspkit_vec3){32, 32, -32}, &leaf, ERR));
    assert_int_equal(leaf, 1);
    CHECK(bspkit_point_contents(map, (bspkit_vec3){32, 32, 32}, 0, &contents, ERR));
    assert_int_equal(contents, 0);
    CHECK(bspkit_point_contents(map, (bspkit_vec3){100, 32, -32}, 0, &contents, ERR));
    assert_int_equal(contents, 0);
    char names[64];
    bspkit_contents_describe(BSPKIT_FAMILY_QUAKE3, 0x20 | 0x8000000, names, sizeof names);
    assert_string_equal(names, "WATER|DETAIL");

    /* Surface 0's lightmap: its stored 64 x 64 rectangle at (16, 16) of page 0. */
    const bspkit_face_lightmap *lm;
    size_t n;
    CHECK(bspkit_get_face_lightmaps(map, false, &lm, &n, ERR));
    assert_int_equal(n, 2);
    assert_true(lm[0].lit && lm[0].in_range);
    assert_int_equal(lm[0].width, 64);
    assert_int_equal(lm[0].offset, (16 * 128 + 16) * 3);
    assert_false(lm[1].lit); /* the patch is vertex lit */
    bspkit_close(map);
    free(data);
}

/* The built map's lightmap entries, one per surface (two). */
static const bspkit_face_lightmap *built_lightmaps(const spec *sp, bspkit_map **map, uint8_t **data)
{
    size_t size, n;
    *map = open_built(sp, data, &size);
    const bspkit_face_lightmap *lm;
    CHECK(bspkit_get_face_lightmaps(*map, false, &lm, &n, ERR));
    assert_int_equal(n, 2);
    return lm;
}

/* A surface that stores a 0 x 0 rectangle gets the one its vertices'
 * lightmap coordinates span: (0.25 .. 0.75) x 128 luxels is 64 x 64 at
 * (32, 32). One infinite coordinate leaves it without a lightmap. */
static void test_lightmap_from_vertices(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        spec sp = PLAIN;
        sp.dmg = k ? RECT_VERT_INF : RECT_FROM_VERTS;
        uint8_t *data;
        bspkit_map *map;
        const bspkit_face_lightmap *lm = built_lightmaps(&sp, &map, &data);
        if (k) {
            assert_false(lm[0].lit);
        } else {
            assert_true(lm[0].lit && lm[0].in_range);
            assert_int_equal(lm[0].mins[0], 32);
            assert_int_equal(lm[0].mins[1], 32);
            assert_int_equal(lm[0].width, 64);
            assert_int_equal(lm[0].height, 64);
            assert_int_equal(lm[0].offset, (32 * 128 + 32) * 3);
        }
        bspkit_close(map);
        free(data);
    }
}

/* The rectangle from vertices against the formula written out with the C
 * library: luxels floor(min) .. ceil(max) of coordinate x 128, clamped to
 * the page, at least one luxel wide where the page leaves room. Corners
 * outside the page, on luxel boundaries, between them and all equal. */
static void test_lightmap_from_vertices_clamped(void **state)
{
    (void)state;
    static const float pick[] = {0.0f, 1.0f, 0.5f, 0.25f, 0.2f, 0.999f, 1.5f, -0.001f, -0.5f, -3.0f,
                                 7.0f,  1e30f, -1e30f, 1.0f / 128, 127.5f / 128, 0.0078f};
    const size_t npick = sizeof pick / sizeof pick[0];
    uint32_t rng = 12345;
    for (int trial = 0; trial < 400; trial++) {
        float uv[6];
        for (int k = 0; k < 6; k++) {
            rng = rng * 1103515245u + 12345u;
            uv[k] = trial % 2 ? pick[(rng >> 16) % npick] : (float)((rng >> 8) % 4000) / 1000.0f - 1.0f;
        }
        if (trial == 0) /* all three corners on one point inside the page */
            for (int k = 0; k < 6; k++)
                uv[k] = 0.3f;
        if (trial == 2) /* all three on the far edge: no luxel left */
            for (int k = 0; k < 6; k++)
                uv[k] = 1.0f;
        spec sp = PLAIN;
        sp.dmg = RECT_FROM_VERTS;
        sp.tri_lm = uv;
        uint8_t *data;
        bspkit_map *map;
        const bspkit_face_lightmap *lm = built_lightmaps(&sp, &map, &data);
        double first[2], end[2];
        for (int a = 0; a < 2; a++) {
            double lo = 128, hi = 0;
            for (int k = 0; k < 3; k++) {
                double u = (double)uv[2 * k + a] * 128;
                lo = fmin(lo, u);
                hi = fmax(hi, u);
            }
            first[a] = fmax(0.0, floor(lo));
            end[a] = fmin(128.0, ceil(hi));
            if (end[a] <= first[a])
                end[a] = fmin(128.0, first[a] + 1);
        }
        bool lit = end[0] > first[0] && end[1] > first[1];
        assert_int_equal(lm[0].lit, lit);
        if (lit) {
            assert_int_equal(lm[0].mins[0], (int32_t)first[0]);
            assert_int_equal(lm[0].mins[1], (int32_t)first[1]);
            assert_int_equal(lm[0].width, (int32_t)(end[0] - first[0]));
            assert_int_equal(lm[0].height, (int32_t)(end[1] - first[1]));
            assert_int_equal(lm[0].offset, ((int64_t)first[1] * 128 + (int64_t)first[0]) * 3);
            assert_true(lm[0].in_range);
        }
        bspkit_close(map);
        free(data);
    }
}

static void test_unchanged_save(void **state)
{
    (void)state;
    const spec cases[] = {{46, 17, true, NONE, NULL}, {47, 18, false, NONE, NULL}};
    for (int k = 0; k < 2; k++) {
        uint8_t *data;
        size_t size;
        bspkit_map *map = open_built(&cases[k], &data, &size);
        bspkit_edit *e;
        CHECK(bspkit_edit_new(map, &e, ERR));
        uint8_t *saved;
        size_t saved_size;
        CHECK(bspkit_edit_write(e, NULL, &saved, &saved_size, ERR));
        assert_int_equal(saved_size, size);
        assert_memory_equal(saved, data, size);
        bspkit_free(saved);
        /* A longer entity lump moves the lumps after it; the map still reads the same. */
        const char *ents = "{\n\"classname\" \"worldspawn\"\n\"message\" \"edited\"\n}\n";
        CHECK(bspkit_edit_set_entities_text(e, ents, strlen(ents), ERR));
        CHECK(bspkit_edit_write(e, NULL, &saved, &saved_size, ERR));
        bspkit_edit_free(e);
        bspkit_close(map);
        CHECK(bspkit_open_memory(saved, saved_size, NULL, &map, ERR));
        assert_int_equal(bspkit_map_format(map)->lump_count, cases[k].lumps);
        assert_int_equal(errors_naming(map, -1, NULL), 0);
        const bspkit_surface *su;
        size_t n;
        CHECK(bspkit_get_surfaces(map, &su, &n, ERR));
        assert_int_equal(su[1].patch_height, 3);
        bspkit_close(map);
        bspkit_free(saved);
        free(data);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_detect),   cmocka_unit_test(test_records),        cmocka_unit_test(test_validate), cmocka_unit_test(test_lightmap_from_vertices),
        cmocka_unit_test(test_lightmap_from_vertices_clamped),
        cmocka_unit_test(test_queries),  cmocka_unit_test(test_unchanged_save),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
