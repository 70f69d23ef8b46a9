/* Quake 2 (IBSP 38) and Daikatana (IBSP 41): a small map written byte by
 * byte here from the layouts in id's qfiles.h (dheader_t with 19 lump_t,
 * dnode_t, texinfo_t, dface_t, dleaf_t, dmodel_t, dbrush_t, dbrushside_t,
 * darea_t, dareaportal_t, dvis_t), so the expected values never come from our
 * own writer: detection, every record decoded field by field, validation
 * (clean, then with one broken index), cluster visibility with PVS and PHS,
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
#include "bspkit/query.h"
#include "bspkit/textures.h"

#include <stdlib.h>
#include <string.h>

/* Lump contents, in lump order (Quake 2 numbering). */
static void lump_bytes(int lump, out *o, int brushside_plane)
{
    switch (lump) {
    case 0: text(o, "{\n\"classname\" \"worldspawn\"\n}\n", 31); break;
    case 1: /* planes: z = 0 (type 2) and x = 64 (type 0) */
        f32(o, 0), f32(o, 0), f32(o, 1), f32(o, 0), i32(o, 2);
        f32(o, 1), f32(o, 0), f32(o, 0), f32(o, 64), i32(o, 0);
        break;
    case 2: /* vertexes of one triangle on z = 0 */
        f32(o, 0), f32(o, 0), f32(o, 0);
        f32(o, 64), f32(o, 0), f32(o, 0);
        f32(o, 0), f32(o, 64), f32(o, 0);
        break;
    case 3: /* one cluster: numclusters, bitofs[0] = {PVS 12, PHS 13}, one literal byte each */
        i32(o, 1), i32(o, 12), i32(o, 13), u8(o, 0x01), u8(o, 0x01);
        break;
    case 4: /* node: planenum, children (leaf 0, leaf 1), mins, maxs, firstface, numfaces */
        i32(o, 0), i32(o, -1), i32(o, -2);
        i16(o, -8), i16(o, -8), i16(o, -8), i16(o, 72), i16(o, 72), i16(o, 8);
        i16(o, 0), i16(o, 1);
        break;
    case 5: /* texinfo: vecs, flags, value, texture[32], nexttexinfo */
        f32(o, 1), f32(o, 0), f32(o, 0), f32(o, 0), f32(o, 0), f32(o, 1), f32(o, 0), f32(o, 0);
        i32(o, 0x1), i32(o, 300), text(o, "e1u1/floor1_3", 32), i32(o, -1);
        break;
    case 6: /* face: planenum, side, firstedge, numedges, texinfo, styles[4], lightofs */
        i16(o, 0), i16(o, 1), i32(o, 0), i16(o, 3), i16(o, 0);
        u8(o, 0), u8(o, 255), u8(o, 255), u8(o, 255), i32(o, -1);
        break;
    case 8: /* leafs: contents, cluster, area, mins, maxs, leaf face and brush ranges */
        i32(o, 1), i16(o, -1), i16(o, 0);
        for (int k = 0; k < 6; k++)
            i16(o, 0);
        i16(o, 0), i16(o, 0), i16(o, 0), i16(o, 0);
        i32(o, 0), i16(o, 0), i16(o, 1);
        i16(o, -8), i16(o, -8), i16(o, -8), i16(o, 72), i16(o, 72), i16(o, 8);
        i16(o, 0), i16(o, 1), i16(o, 0), i16(o, 1);
        break;
    case 9: i16(o, 0); break;  /* leaf faces */
    case 10: i16(o, 0); break; /* leaf brushes */
    case 11: i16(o, 0), i16(o, 1), i16(o, 1), i16(o, 2), i16(o, 2), i16(o, 0); break;
    case 12: i32(o, 0), i32(o, 1), i32(o, -2); break; /* surfedges */
    case 13: /* model: mins, maxs, origin, headnode, firstface, numfaces */
        f32(o, -8), f32(o, -8), f32(o, -8), f32(o, 72), f32(o, 72), f32(o, 8), f32(o, 0), f32(o, 0), f32(o, 0);
        i32(o, 0), i32(o, 0), i32(o, 1);
        break;
    case 14: i32(o, 0), i32(o, 1), i32(o, 1); break;      /* brush: firstside, numsides, contents */
    case 15: i16(o, brushside_plane), i16(o, 0); break; /* brush side: planenum, texinfo */
    case 17: i32(o, 0), i32(o, 0), i32(o, 1), i32(o, 1); break; /* areas: numareaportals, firstareaportal */
    case 18: i32(o, 0), i32(o, 0), i32(o, 7), i32(o, 1); break; /* portals: portalnum, otherarea */
    case 19: i32(o, 0x12345678); break;                   /* Daikatana's extra lumps */
    case 20: i32(o, 0x9abcdef0), i32(o, 0); break;
    default: break;
    }
}

/* The whole file: header, then each lump 4-byte aligned. */
static uint8_t *build(int version, int brushside_plane, size_t *size)
{
    int lumps = version == 41 ? 21 : 19;
    out *o = calloc(1, sizeof *o);
    assert_non_null(o);
    memcpy(o->b, "IBSP", 4);
    o->n = 4;
    i32(o, version);
    size_t dir = o->n;
    o->n += 8 * (size_t)lumps;
    for (int l = 0; l < lumps; l++) {
        size_t start = o->n;
        lump_bytes(l, o, brushside_plane);
        end_lump(o, dir, l, start);
    }
    uint8_t *data = malloc(o->n);
    assert_non_null(data);
    memcpy(data, o->b, o->n);
    *size = o->n;
    free(o);
    return data;
}

static bspkit_map *open_built(int version, int brushside_plane, uint8_t **data, size_t *size)
{
    *data = build(version, brushside_plane, size);
    bspkit_map *map = NULL;
    CHECK(bspkit_open_memory(*data, *size, NULL, &map, ERR));
    return map;
}

static void test_detect(void **state)
{
    (void)state;
    uint8_t *data;
    size_t size;
    bspkit_map *map = open_built(38, 1, &data, &size);
    const bspkit_format *f = bspkit_map_format(map);
    assert_int_equal(f->family, BSPKIT_FAMILY_QUAKE2);
    assert_int_equal(f->version, 38);
    assert_int_equal(f->lump_count, 19);
    assert_string_equal(f->name, "Quake 2 IBSP 38");
    assert_string_equal(bspkit_family_name(f->family), "quake2");
    bspkit_close(map);
    free(data);

    map = open_built(41, 1, &data, &size);
    f = bspkit_map_format(map);
    assert_int_equal(f->family, BSPKIT_FAMILY_QUAKE2);
    assert_int_equal(f->lump_count, 21);
    assert_string_equal(f->name, "Daikatana IBSP 41");
    const uint8_t *bytes;
    size_t n;
    CHECK(bspkit_lump_bytes(map, 20, &bytes, &n, ERR));
    assert_int_equal(n, 8);
    assert_int_equal(bytes[0], 0xf0);
    bspkit_close(map);
    free(data);

    /* A header cut inside the directory is truncated. */
    data = build(38, 1, &size);
    bspkit_format fmt;
    bspkit_error e;
    assert_int_equal(bspkit_detect(data, 8 + 8 * 18, &fmt, &e), BSPKIT_ERR_TRUNCATED);
    free(data);
}

static void test_records(void **state)
{
    (void)state;
    uint8_t *data;
    size_t size, n;
    bspkit_map *map = open_built(38, 1, &data, &size);

    const bspkit_texinfo *ti;
    CHECK(bspkit_get_texinfo(map, &ti, &n, ERR));
    assert_int_equal(n, 1);
    assert_true(ti[0].texture_vecs[1][1] == 1.0f);
    assert_int_equal(ti[0].flags, 1);
    assert_int_equal(ti[0].value, 300);
    assert_string_equal(ti[0].texture_name, "e1u1/floor1_3");
    assert_int_equal(ti[0].next_texinfo, -1);
    assert_int_equal(ti[0].texture, -1);

    const bspkit_face *fa;
    CHECK(bspkit_get_faces(map, &fa, &n, ERR));
    assert_int_equal(n, 1);
    assert_int_equal(fa[0].plane, 0);
    assert_int_equal(fa[0].side, 1);
    assert_int_equal(fa[0].num_edges, 3);
    assert_int_equal(fa[0].texinfo, 0);
    assert_int_equal(fa[0].styles[0], 0);
    assert_int_equal(fa[0].styles[1], 255);
    assert_int_equal(fa[0].light_offset, -1);
    assert_int_equal(fa[0].dispinfo, -1);

    const bspkit_node *no;
    CHECK(bspkit_get_nodes(map, &no, &n, ERR));
    assert_int_equal(n, 1);
    assert_int_equal(no[0].children[0], -1);
    assert_int_equal(no[0].children[1], -2);
    assert_true(no[0].maxs.x == 72.0f && no[0].mins.z == -8.0f);
    assert_int_equal(no[0].num_faces, 1);

    const bspkit_leaf *le;
    CHECK(bspkit_get_leafs(map, &le, &n, ERR));
    assert_int_equal(n, 2);
    assert_int_equal(le[0].contents, 1);
    assert_int_equal(le[0].cluster, -1);
    assert_int_equal(le[1].cluster, 0);
    assert_int_equal(le[1].area, 1);
    assert_int_equal(le[1].num_leaf_faces, 1);
    assert_int_equal(le[1].num_leaf_brushes, 1);
    assert_int_equal(le[1].vis_offset, -1);

    const bspkit_model *mo;
    CHECK(bspkit_get_models(map, &mo, &n, ERR));
    assert_int_equal(n, 1);
    assert_int_equal(mo[0].headnode[0], 0);
    assert_int_equal(mo[0].headnode[1], -1);
    assert_int_equal(mo[0].num_faces, 1);

    const bspkit_brushside *bs;
    CHECK(bspkit_get_brushsides(map, &bs, &n, ERR));
    assert_int_equal(n, 1);
    assert_int_equal(bs[0].plane, 1);
    assert_int_equal(bs[0].texinfo, 0);
    assert_int_equal(bs[0].dispinfo, -1);

    const bspkit_areaportal *ap;
    CHECK(bspkit_get_areaportals(map, &ap, &n, ERR));
    assert_int_equal(n, 2);
    assert_int_equal(ap[1].portal_key, 7);
    assert_int_equal(ap[1].other_area, 1);
    assert_int_equal(ap[1].plane, -1);

    const uint32_t *lb;
    CHECK(bspkit_get_leaf_brushes(map, &lb, &n, ERR));
    assert_int_equal(n, 1);

    /* The texture is named, not embedded: listed once, found nowhere. */
    bspkit_textures *tex;
    CHECK(bspkit_textures_resolve(map, NULL, &tex, ERR));
    assert_int_equal(bspkit_textures_count(tex), 1);
    assert_string_equal(bspkit_textures_get(tex, 0)->name, "e1u1/floor1_3");
    assert_int_equal(bspkit_textures_get(tex, 0)->source, BSPKIT_TEXTURE_MISSING);
    bspkit_textures_free(tex);
    const bspkit_miptex *mt;
    CHECK(bspkit_get_miptex(map, &mt, &n, ERR));
    assert_int_equal(n, 0);
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
            strstr(rep.problems[i].message, needle))
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
    bspkit_map *map = open_built(38, 1, &data, &size);
    assert_int_equal(errors_naming(map, -1, NULL), 0);
    bspkit_close(map);
    free(data);

    /* Brush side 0 names plane 5 of 2: reported on BRUSHSIDES (lump 15). */
    map = open_built(38, 5, &data, &size);
    assert_int_equal(errors_naming(map, 15, "brushside 0: plane 5 exceeds 2 planes"), 1);
    bspkit_close(map);
    free(data);
}

static void test_visibility(void **state)
{
    (void)state;
    uint8_t *data;
    size_t size;
    bspkit_map *map = open_built(38, 1, &data, &size);
    uint32_t rows, row_bytes;
    CHECK(bspkit_vis_dimensions(map, &rows, &row_bytes, ERR));
    assert_int_equal(rows, 1);
    assert_int_equal(row_bytes, 1);
    uint8_t row = 0;
    CHECK(bspkit_vis_row(map, 0, BSPKIT_VIS_PVS, &row, 1, ERR));
    assert_int_equal(row, 1);
    row = 0;
    CHECK(bspkit_vis_row(map, 0, BSPKIT_VIS_PAS, &row, 1, ERR));
    assert_int_equal(row, 1);
    int32_t cluster;
    CHECK(bspkit_leaf_cluster(map, 1, &cluster, ERR));
    assert_int_equal(cluster, 0);
    CHECK(bspkit_leaf_cluster(map, 0, &cluster, ERR));
    assert_int_equal(cluster, -1);
    bspkit_close(map);
    free(data);
}

/* qfiles.h maxima for IBSP 38; none claimed for Daikatana. */
static void test_limits(void **state)
{
    (void)state;
    uint8_t *data;
    size_t size, n = 0;
    bspkit_map *map = open_built(38, 1, &data, &size);
    bspkit_limit_usage rows[32];
    assert_int_equal(bspkit_limits(map, rows, 32, &n), BSPKIT_OK);
    bool models = false, edges = false;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(rows[i].name, "models") == 0) {
            models = true;
            assert_int_equal(rows[i].count, 1);
            assert_int_equal(rows[i].max_count, 1024);
        }
        if (strcmp(rows[i].name, "edges") == 0) {
            edges = true;
            assert_int_equal(rows[i].count, 3);
            assert_int_equal(rows[i].max_count, 128000);
        }
    }
    assert_true(models && edges);
    bspkit_close(map);
    free(data);

    map = open_built(41, 1, &data, &size);
    assert_int_equal(bspkit_limits(map, rows, 32, &n), BSPKIT_OK);
    assert_int_equal(n, 0);
    bspkit_close(map);
    free(data);
}

static void test_unchanged_save(void **state)
{
    (void)state;
    for (int version = 38; version <= 41; version += 3) {
        uint8_t *data, *saved;
        size_t size, saved_size;
        bspkit_map *map = open_built(version, 1, &data, &size);
        bspkit_edit *e;
        CHECK(bspkit_edit_new(map, &e, ERR));
        CHECK(bspkit_edit_write(e, NULL, &saved, &saved_size, ERR));
        assert_int_equal(saved_size, size);
        assert_memory_equal(saved, data, size);
        bspkit_free(saved);
        /* A longer entity lump moves every lump after it; the map still reads the same. */
        const char *ents = "{\n\"classname\" \"worldspawn\"\n\"message\" \"edited\"\n}\n";
        CHECK(bspkit_edit_set_entities_text(e, ents, strlen(ents), ERR));
        CHECK(bspkit_edit_write(e, NULL, &saved, &saved_size, ERR));
        bspkit_edit_free(e);
        bspkit_close(map);
        CHECK(bspkit_open_memory(saved, saved_size, NULL, &map, ERR));
        assert_int_equal(bspkit_map_format(map)->version, version);
        assert_int_equal(errors_naming(map, -1, NULL), 0);
        const bspkit_texinfo *ti;
        size_t n;
        CHECK(bspkit_get_texinfo(map, &ti, &n, ERR));
        assert_string_equal(ti[0].texture_name, "e1u1/floor1_3");
        bspkit_close(map);
        bspkit_free(saved);
        free(data);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_detect),         cmocka_unit_test(test_records),
        cmocka_unit_test(test_validate),       cmocka_unit_test(test_visibility),
        cmocka_unit_test(test_limits),         cmocka_unit_test(test_unchanged_save),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
