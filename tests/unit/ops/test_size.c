/* Lump groups by name, and the byte accounting on a map built in memory
 * whose lumps overlap and leave gaps: the expected shares are worked out by
 * hand from the offsets written here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "bspkit/bspkit.h"
#include "bspkit/size.h"

#include "check.h"

static void test_groups(void **state)
{
    (void)state;
    assert_int_equal(bspkit_size_group_of("VERTEXES"), BSPKIT_SIZE_GEOMETRY);
    assert_int_equal(bspkit_size_group_of("TEXDATA_STRING_DATA"), BSPKIT_SIZE_TEXTURES);
    assert_int_equal(bspkit_size_group_of("LIGHTING"), BSPKIT_SIZE_LIGHTING_LDR);
    assert_int_equal(bspkit_size_group_of("LIGHTING_HDR"), BSPKIT_SIZE_LIGHTING_HDR);
    assert_int_equal(bspkit_size_group_of("LEAF_AMBIENT_LIGHTING_HDR"), BSPKIT_SIZE_LIGHTING_HDR);
    assert_int_equal(bspkit_size_group_of("FACES_HDR"), BSPKIT_SIZE_LIGHTING_HDR);
    assert_int_equal(bspkit_size_group_of("DISP_LIGHTMAP_ALPHAS"), BSPKIT_SIZE_DISPLACEMENTS);
    assert_int_equal(bspkit_size_group_of("PHYSCOLLIDE"), BSPKIT_SIZE_COLLISION);
    assert_int_equal(bspkit_size_group_of("CLIPNODES"), BSPKIT_SIZE_COLLISION);
    assert_int_equal(bspkit_size_group_of("GAME_LUMP"), BSPKIT_SIZE_PROPS);
    assert_int_equal(bspkit_size_group_of("PAKFILE"), BSPKIT_SIZE_PAKFILE);
    assert_int_equal(bspkit_size_group_of("VISIBILITY"), BSPKIT_SIZE_VISIBILITY);
    assert_int_equal(bspkit_size_group_of("MARKSURFACES"), BSPKIT_SIZE_BSP_TREE);
    assert_int_equal(bspkit_size_group_of("ENTITIES"), BSPKIT_SIZE_ENTITIES);
    assert_int_equal(bspkit_size_group_of("MAP_FLAGS"), BSPKIT_SIZE_OTHER);
    assert_int_equal(bspkit_size_group_of(NULL), BSPKIT_SIZE_OTHER);
    assert_string_equal(bspkit_size_group_name(BSPKIT_SIZE_BSP_TREE), "bsp_tree");
    assert_string_equal(bspkit_size_group_name(BSPKIT_SIZE_GROUP_COUNT), "unknown");
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* A GoldSrc BSP30 directory (124 bytes) with: ENTITIES at 124+16 (4 bytes of
 * gap before it), PLANES 20 bytes at 200, VERTEXES 12 bytes at 212 (8 bytes
 * inside PLANES), and 3 bytes after the last lump. */
static void test_accounting(void **state)
{
    (void)state;
    uint8_t file[227];
    memset(file, 0, sizeof file);
    put32(file, 30);
    const char ents[] = "{\n\"classname\" \"worldspawn\"\n}\n";
    memcpy(file + 128, ents, sizeof ents - 1);
    put32(file + 4, 128);                      /* ENTITIES */
    put32(file + 8, (uint32_t)sizeof ents - 1); /* 29 bytes: 128..157 */
    put32(file + 12, 200);                     /* PLANES: 200..220 */
    put32(file + 16, 20);
    put32(file + 28, 212); /* VERTEXES (lump 3): 212..224 */
    put32(file + 32, 12);
    for (int i = 0; i < 15; i++)
        if (i != 0 && i != 1 && i != 3)
            put32(file + 4 + 8 * i, 124);
    bspkit_map *map = NULL;
    CHECK(bspkit_open_memory(file, sizeof file, NULL, &map, ERR));
    bspkit_size_report *r = NULL;
    CHECK(bspkit_size_report_map(map, NULL, &r, ERR));
    assert_int_equal(r->file_size, 227);
    assert_int_equal(r->header_bytes, 124);
    assert_int_equal(r->lumps[0].unique_bytes, 29);
    assert_int_equal(r->lumps[1].unique_bytes, 20);
    assert_int_equal(r->lumps[3].unique_bytes, 4); /* 220..224 */
    assert_int_equal(r->trailing_bytes, 3);
    /* gaps 124..128 and 157..200, then 224..227 */
    assert_int_equal(r->padding_bytes, 4 + 43 + 3);
    uint64_t sum = 0;
    for (int g = 0; g < BSPKIT_SIZE_GROUP_COUNT; g++)
        sum += r->group_bytes[g];
    assert_int_equal(sum, 227);
    assert_int_equal(r->group_bytes[BSPKIT_SIZE_GEOMETRY], 4);
    assert_false(r->has_pakfile);
    bspkit_size_report_free(r);
    bspkit_close(map);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_groups), cmocka_unit_test(test_accounting)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
