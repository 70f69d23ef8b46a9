/* Validation of the lumps outside the core: a static prop naming a model
 * past the dictionary, an overlay on a face that does not exist and a
 * displacement whose vertices run past DISP_VERTS are each reported as an
 * index error on their lump; the intact sample reports none of them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bspkit/bspkit.h"
#include "bspkit/write.h"

#include <stdio.h>
#include <string.h>

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void putf(uint8_t *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put32(p, u);
}

/* Build the little-endian Source sample with `edit` applied, validate, and
 * count the problems on `lump` whose message contains `needle`. */
static size_t problems_with(void (*edit)(bspkit_builder *), int lump, const char *needle)
{
    bspkit_builder *b;
    bspkit_write_options opts;
    bspkit_error err;
    assert_int_equal(bspkit_sample_builder(BSPKIT_SAMPLE_SOURCE_ROOM, &b, &opts, &err), BSPKIT_OK);
    if (edit)
        edit(b);
    uint8_t *data;
    size_t size;
    assert_int_equal(bspkit_builder_write(b, &opts, &data, &size, &err), BSPKIT_OK);
    bspkit_builder_free(b);
    bspkit_map *map;
    assert_int_equal(bspkit_open_memory(data, size, NULL, &map, &err), BSPKIT_OK);
    bspkit_report rep;
    assert_int_equal(bspkit_validate(map, &rep, &err), BSPKIT_OK);
    size_t hits = 0;
    for (size_t i = 0; i < rep.count; i++)
        if (rep.problems[i].lump == lump && strstr(rep.problems[i].message, needle) &&
            rep.problems[i].code == BSPKIT_ERR_INDEX && rep.problems[i].severity == BSPKIT_SEVERITY_ERROR)
            hits++;
    bspkit_report_free(&rep);
    bspkit_close(map);
    bspkit_free_buffer(data);
    return hits;
}

/* sprp v5: one dictionary name, one leaf (0), one 60-byte prop with PropType 3. */
static void bad_static_prop(bspkit_builder *b)
{
    static uint8_t lump[4 + 128 + 4 + 2 + 4 + 60];
    memset(lump, 0, sizeof lump);
    uint8_t *p = lump;
    put32(p, 1);
    memcpy(p + 4, "models/box.mdl", 14);
    p += 4 + 128;
    put32(p, 1);
    put16(p + 4, 0);
    p += 6;
    put32(p, 1);
    p += 4;
    put16(p + 24, 3); /* PropType */
    put16(p + 26, 0); /* FirstLeaf */
    put16(p + 28, 1); /* LeafCount */
    putf(p + 56, 1.0f);
    bspkit_game_lump_data gl = {0x73707270u, 0, 5, lump, sizeof lump};
    bspkit_error err;
    assert_int_equal(bspkit_builder_set_game_lumps(b, &gl, 1, &err), BSPKIT_OK);
}

/* One 352-byte overlay on face 9999 with texinfo 0. */
static void bad_overlay(bspkit_builder *b)
{
    static uint8_t rec[352];
    memset(rec, 0, sizeof rec);
    put16(rec + 4, 0);    /* TexInfo */
    put16(rec + 6, 1);    /* one face */
    put32(rec + 8, 9999); /* Ofaces[0] */
    bspkit_error err;
    assert_int_equal(bspkit_builder_set_lump(b, BSPKIT_S_OVERLAYS, rec, sizeof rec, 0, &err), BSPKIT_OK);
}

/* One power-2 dispinfo on face 0 whose 25 vertices start past the 25 stored. */
static void bad_displacement(bspkit_builder *b)
{
    static uint8_t info[176], verts[25 * 20];
    memset(info, 0, sizeof info);
    memset(verts, 0, sizeof verts);
    put32(info + 12, 1); /* DispVertStart: 1 + 25 > 25 */
    put32(info + 20, 2); /* power */
    bspkit_error err;
    assert_int_equal(bspkit_builder_set_lump(b, BSPKIT_S_DISPINFO, info, sizeof info, 0, &err), BSPKIT_OK);
    assert_int_equal(bspkit_builder_set_lump(b, BSPKIT_S_DISP_VERTS, verts, sizeof verts, 0, &err), BSPKIT_OK);
}

static void test_intact(void **state)
{
    (void)state;
    assert_int_equal(problems_with(NULL, BSPKIT_S_GAME_LUMP, ""), 0);
    assert_int_equal(problems_with(NULL, BSPKIT_S_OVERLAYS, ""), 0);
    assert_int_equal(problems_with(NULL, BSPKIT_S_DISPINFO, ""), 0);
}

static void test_static_prop(void **state)
{
    (void)state;
    assert_int_equal(problems_with(bad_static_prop, BSPKIT_S_GAME_LUMP, "PropType 3 exceeds"), 1);
}

static void test_overlay(void **state)
{
    (void)state;
    assert_int_equal(problems_with(bad_overlay, BSPKIT_S_OVERLAYS, "face 9999 exceeds"), 1);
}

static void test_displacement(void **state)
{
    (void)state;
    assert_int_equal(problems_with(bad_displacement, BSPKIT_S_DISPINFO, "DispVertStart 1"), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_intact),
        cmocka_unit_test(test_static_prop),
        cmocka_unit_test(test_overlay),
        cmocka_unit_test(test_displacement),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
