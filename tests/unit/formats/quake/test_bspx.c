/* Unit tests for the BSPX extension block: a block appended by hand to a
 * generated Quake map, every decoder, DECOUPLED_LM and RGBLIGHTING feeding
 * the face lightmaps, the dump provider, and malformed blocks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"
#include "bspkit/bspkit.h"
#include "bspkit/bspx.h"
#include "bspkit/lighting.h"
#include "bspkit/write.h"
#include "core/table.h"
#include "formats/quake/family.h"

#include <stdlib.h>
#include <string.h>

static void le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void lef(uint8_t *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    le32(p, u);
}

typedef struct lump_src {
    const char *name;
    const uint8_t *data;
    size_t size;
} lump_src;

/* The map plus a BSPX block: 4-byte aligned after the last lump, the
 * directory, then each lump's data. `bad_entry` >= 0 moves that entry's
 * offset past the end of the file. */
static uint8_t *append_bspx(const uint8_t *map, size_t map_size, const lump_src *lumps, int n, int bad_entry,
                            size_t *out_size)
{
    size_t start = (map_size + 3) & ~(size_t)3;
    size_t total = start + 8 + 32 * (size_t)n;
    for (int i = 0; i < n; i++)
        total += (lumps[i].size + 3) & ~(size_t)3;
    uint8_t *out = calloc(1, total);
    memcpy(out, map, map_size);
    memcpy(out + start, "BSPX", 4);
    le32(out + start + 4, (uint32_t)n);
    size_t pos = start + 8 + 32 * (size_t)n;
    for (int i = 0; i < n; i++) {
        uint8_t *e = out + start + 8 + 32 * i;
        strncpy((char *)e, lumps[i].name, 24);
        le32(e + 24, i == bad_entry ? (uint32_t)total - 2 : (uint32_t)pos);
        le32(e + 28, (uint32_t)lumps[i].size);
        memcpy(out + pos, lumps[i].data, lumps[i].size);
        pos += (lumps[i].size + 3) & ~(size_t)3;
    }
    *out_size = total;
    return out;
}

/* The generated Quake room, its face count and LIGHTING size. */
static uint8_t *quake_room(size_t *size, size_t *faces, size_t *light)
{
    uint8_t *bytes;
    CHECK(bspkit_sample_build(BSPKIT_SAMPLE_QUAKE_ROOM, &bytes, size, ERR));
    bspkit_map *m;
    CHECK(bspkit_open_memory(bytes, *size, NULL, &m, ERR));
    assert_false(bspkit_map_format(m)->variant & BSPKIT_VARIANT_BSPX);
    const bspkit_face *f;
    CHECK(bspkit_get_faces(m, &f, faces, ERR));
    const uint8_t *l;
    CHECK(bspkit_get_lighting(m, false, &l, light, ERR));
    bspkit_close(m);
    return bytes;
}

static void test_bspx_decoders(void **state)
{
    (void)state;
    size_t size, nfaces, light;
    uint8_t *room = quake_room(&size, &nfaces, &light);
    assert_true(nfaces >= 2);

    uint8_t *rgb = malloc(light * 3), *dir = malloc(light * 3);
    for (size_t i = 0; i < light * 3; i++) {
        rgb[i] = (uint8_t)i;
        dir[i] = (uint8_t)(255 - i);
    }
    /* DECOUPLED_LM: face 0 gets a 2x3 lightmap at offset 4, face 1 none, the rest 1x1 at 0. */
    uint8_t *dlm = calloc(nfaces, 40);
    for (size_t i = 0; i < nfaces; i++) {
        uint8_t *p = dlm + 40 * i;
        p[0] = 1;
        p[2] = 1;
        le32(p + 4, 0);
        for (int k = 0; k < 8; k++)
            lef(p + 8 + 4 * k, (float)k + 0.5f);
    }
    dlm[0] = 2;
    dlm[2] = 3;
    le32(dlm + 4, 4);
    le32(dlm + 40 + 4, (uint32_t)-1);
    /* BRUSHLIST: model 0 with two brushes (1 plane, 0 planes), model 3 with one brush (2 planes). */
    uint8_t bl[16 + 28 + 16 + 28 + 16 + 28 + 32];
    memset(bl, 0, sizeof bl);
    uint8_t *p = bl;
    le32(p, 1), le32(p + 4, 0), le32(p + 8, 2), le32(p + 12, 1), p += 16;
    lef(p, -8), lef(p + 12, 8), p[24] = 0xFE, p[25] = 0xFF, p[26] = 1, p += 28; /* contents -2, 1 plane */
    lef(p, 0.6f), lef(p + 4, 0.8f), lef(p + 12, 3.5f), p += 16;
    p[24] = 0xFF, p[25] = 0xFF, p += 28; /* contents -1, no planes */
    le32(p, 1), le32(p + 4, 3), le32(p + 8, 1), le32(p + 12, 2), p += 16;
    p[26] = 2, p += 28;
    lef(p + 8, 1), lef(p + 12, 16), lef(p + 16 + 8, -1), lef(p + 16 + 12, 4), p += 32;
    assert_int_equal(p - bl, sizeof bl);
    const uint8_t other[5] = {1, 2, 3, 4, 5};

    const lump_src lumps[] = {{"RGBLIGHTING", rgb, light * 3},
                              {"LIGHTINGDIR", dir, light * 3},
                              {"DECOUPLED_LM", dlm, nfaces * 40},
                              {"BRUSHLIST", bl, sizeof bl},
                              {"LMSHIFT", other, sizeof other}};
    size_t total;
    uint8_t *file = append_bspx(room, size, lumps, 5, -1, &total);
    bspkit_map *m;
    CHECK(bspkit_open_memory(file, total, NULL, &m, ERR));
    assert_true(bspkit_map_format(m)->variant & BSPKIT_VARIANT_BSPX);

    const bspkit_bspx_entry *e;
    size_t n;
    CHECK(bspkit_bspx_entries(m, &e, &n, ERR));
    assert_int_equal(n, 5);
    assert_string_equal(e[3].name, "BRUSHLIST");
    assert_int_equal(e[3].length, sizeof bl);
    assert_int_equal(e[0].offset, ((size + 3) & ~(size_t)3) + 8 + 5 * 32);

    const uint8_t *data;
    size_t dsize;
    CHECK(bspkit_bspx_lump(m, "LMSHIFT", &data, &dsize, ERR));
    assert_int_equal(dsize, 5);
    assert_memory_equal(data, other, 5);
    assert_int_equal(bspkit_bspx_lump(m, "NOPE", &data, &dsize, ERR), BSPKIT_ERR_NOT_FOUND);

    size_t luxels;
    CHECK(bspkit_bspx_luxel_lump(m, "RGBLIGHTING", &data, &luxels, ERR));
    assert_int_equal(luxels, light);
    assert_int_equal(data[7], 7);
    CHECK(bspkit_bspx_luxel_lump(m, "LIGHTINGDIR", &data, &luxels, ERR));
    assert_int_equal(data[0], 255);
    assert_int_equal(bspkit_bspx_luxel_lump(m, "BRUSHLIST", &data, &luxels, ERR), BSPKIT_ERR_ARGUMENT);

    const bspkit_bspx_decoupled_lm *d;
    CHECK(bspkit_get_bspx_decoupled_lm(m, &d, &n, ERR));
    assert_int_equal(n, nfaces);
    assert_int_equal(d[0].lmwidth, 2);
    assert_int_equal(d[0].lmheight, 3);
    assert_int_equal(d[0].offset, 4);
    assert_int_equal(d[1].offset, -1);
    assert_true(d[2].world_to_lm[0][0] == 0.5f && d[2].world_to_lm[1][3] == 7.5f);

    /* Face lightmaps follow DECOUPLED_LM, and RGBLIGHTING gives their colour. */
    const bspkit_face_lightmap *lm;
    CHECK(bspkit_get_face_lightmaps(m, false, &lm, &n, ERR));
    assert_int_equal(n, nfaces);
    assert_true(lm[0].lit && lm[0].decoupled && lm[0].in_range);
    assert_int_equal(lm[0].width, 2);
    assert_int_equal(lm[0].height, 3);
    assert_int_equal(lm[0].offset, 4);
    assert_int_equal(lm[0].bytes, 6);
    assert_int_equal(lm[0].rgb_offset, 12);
    assert_true(lm[0].rgb_in_range);
    assert_false(lm[1].lit);

    const bspkit_bspx_brushlist *b;
    CHECK(bspkit_get_bspx_brushlist(m, &b, ERR));
    assert_int_equal(b->model_count, 2);
    assert_int_equal(b->brush_count, 3);
    assert_int_equal(b->plane_count, 3);
    assert_int_equal(b->models[1].modelnum, 3);
    assert_int_equal(b->models[1].first_brush, 2);
    assert_int_equal(b->brushes[0].contents, -2);
    assert_true(b->brushes[0].mins.x == -8.0f && b->brushes[0].maxs.x == 8.0f);
    assert_int_equal(b->brushes[1].contents, -1);
    assert_int_equal(b->brushes[2].numfaces, 2);
    assert_int_equal(b->brushes[2].first_plane, 1);
    assert_true(b->planes[0].normal.x == 0.6f && b->planes[0].dist == 3.5f);
    assert_true(b->planes[2].normal.z == -1.0f && b->planes[2].dist == 4.0f);

    /* The dump provider: tables for BRUSHLIST and DECOUPLED_LM, raw for the rest. */
    bspkit_dump dump;
    memset(&dump, 0, sizeof dump);
    strcpy(dump.lump, "BRUSHLIST");
    CHECK(bk_quake_dump_tables(m, -1, 0, &dump, ERR));
    assert_int_equal(dump.table_count, 3);
    assert_int_equal(dump.raw_size, sizeof bl);
    assert_int_equal(dump.tables[1].count, 3);
    assert_string_equal(dump.tables[0].fields[0].name, "ver");
    memset(&dump, 0, sizeof dump);
    strcpy(dump.lump, "DECOUPLED_LM");
    CHECK(bk_quake_dump_tables(m, -1, 0, &dump, ERR));
    assert_int_equal(dump.table_count, 1);
    assert_int_equal(dump.tables[0].count, nfaces);
    assert_string_equal(dump.tables[0].fields[0].name, "lmwidth");
    memset(&dump, 0, sizeof dump);
    strcpy(dump.lump, "RGBLIGHTING");
    CHECK(bk_quake_dump_tables(m, -1, 0, &dump, ERR));
    assert_int_equal(dump.table_count, 0);
    assert_int_equal(dump.raw_size, light * 3);
    assert_true(dump.note[0] != '\0');
    memset(&dump, 0, sizeof dump);
    strcpy(dump.lump, "MISSING");
    assert_int_equal(bk_quake_dump_tables(m, -1, 0, &dump, ERR), BSPKIT_ERR_NOT_FOUND);

    bspkit_close(m);
    free(file);
    free(rgb);
    free(dir);
    free(dlm);
    bspkit_free_buffer(room);
}

static void test_bspx_out_of_range(void **state)
{
    (void)state;
    size_t size, nfaces, light;
    uint8_t *room = quake_room(&size, &nfaces, &light);
    const uint8_t data[8] = {0};
    const lump_src lumps[] = {{"FIRST", data, 8}, {"BROKEN", data, 8}};
    size_t total;
    uint8_t *file = append_bspx(room, size, lumps, 2, 1, &total);
    bspkit_map *m;
    CHECK(bspkit_open_memory(file, total, NULL, &m, ERR));
    const bspkit_bspx_entry *e;
    size_t n;
    assert_int_equal(bspkit_bspx_entries(m, &e, &n, ERR), BSPKIT_ERR_LUMP_RANGE);
    assert_non_null(strstr(g_err.message, "BROKEN"));
    assert_int_equal(g_err.offset, (int64_t)((size + 3) & ~(size_t)3) + 8 + 32);
    /* Every BSPX accessor reports the same failure; the map itself still reads. */
    const uint8_t *d;
    size_t ds;
    assert_int_equal(bspkit_bspx_lump(m, "FIRST", &d, &ds, ERR), BSPKIT_ERR_LUMP_RANGE);
    const bspkit_face_lightmap *lm;
    assert_int_equal(bspkit_get_face_lightmaps(m, false, &lm, &n, ERR), BSPKIT_ERR_LUMP_RANGE);
    const bspkit_plane *pl;
    CHECK(bspkit_get_planes(m, &pl, &n, ERR));
    bspkit_close(m);
    free(file);

    /* A directory count that runs past the file. */
    file = append_bspx(room, size, lumps, 1, -1, &total);
    le32(file + ((size + 3) & ~(size_t)3) + 4, 0x10000000u);
    CHECK(bspkit_open_memory(file, total, NULL, &m, ERR));
    assert_int_equal(bspkit_bspx_entries(m, &e, &n, ERR), BSPKIT_ERR_LUMP_RANGE);
    bspkit_close(m);
    free(file);
    bspkit_free_buffer(room);
}

static void test_bspx_malformed_lumps(void **state)
{
    (void)state;
    size_t size, nfaces, light;
    uint8_t *room = quake_room(&size, &nfaces, &light);
    /* BRUSHLIST: a model declaring one brush with 3 planes, only one plane present. */
    uint8_t bl[16 + 28 + 16];
    memset(bl, 0, sizeof bl);
    le32(bl, 1);
    le32(bl + 8, 1);
    le32(bl + 12, 3);
    bl[16 + 26] = 3;
    /* DECOUPLED_LM one record short; RGBLIGHTING one byte short. */
    uint8_t *dlm = calloc(nfaces, 40);
    uint8_t *rgb = calloc(light, 3);
    const lump_src lumps[] = {
        {"BRUSHLIST", bl, sizeof bl}, {"DECOUPLED_LM", dlm, (nfaces - 1) * 40}, {"RGBLIGHTING", rgb, light * 3 - 1}};
    size_t total;
    uint8_t *file = append_bspx(room, size, lumps, 3, -1, &total);
    bspkit_map *m;
    CHECK(bspkit_open_memory(file, total, NULL, &m, ERR));
    const bspkit_bspx_brushlist *b;
    assert_int_equal(bspkit_get_bspx_brushlist(m, &b, ERR), BSPKIT_ERR_LUMP_SIZE);
    assert_int_equal(g_err.lump_offset, 16 + 28);
    const bspkit_bspx_decoupled_lm *d;
    size_t n;
    assert_int_equal(bspkit_get_bspx_decoupled_lm(m, &d, &n, ERR), BSPKIT_ERR_LUMP_SIZE);
    const uint8_t *data;
    assert_int_equal(bspkit_bspx_luxel_lump(m, "RGBLIGHTING", &data, &n, ERR), BSPKIT_ERR_LUMP_SIZE);
    /* A broken DECOUPLED_LM makes the face lightmaps fail rather than guess. */
    const bspkit_face_lightmap *lm;
    assert_int_equal(bspkit_get_face_lightmaps(m, false, &lm, &n, ERR), BSPKIT_ERR_LUMP_SIZE);
    bspkit_close(m);
    free(file);
    free(dlm);
    free(rgb);
    bspkit_free_buffer(room);
}

static void test_no_bspx(void **state)
{
    (void)state;
    uint8_t *bytes;
    size_t size;
    CHECK(bspkit_sample_build(BSPKIT_SAMPLE_SOURCE_ROOM, &bytes, &size, ERR));
    bspkit_map *m;
    CHECK(bspkit_open_memory(bytes, size, NULL, &m, ERR));
    const bspkit_bspx_entry *e;
    size_t n = 99;
    CHECK(bspkit_bspx_entries(m, &e, &n, ERR));
    assert_int_equal(n, 0);
    const bspkit_bspx_brushlist *b;
    CHECK(bspkit_get_bspx_brushlist(m, &b, ERR));
    assert_int_equal(b->model_count, 0);
    bspkit_dump dump;
    memset(&dump, 0, sizeof dump);
    strcpy(dump.lump, "BRUSHLIST");
    assert_int_equal(bk_quake_dump_tables(m, -1, 0, &dump, ERR), BSPKIT_ERR_NOT_FOUND);
    bspkit_close(m);
    bspkit_free_buffer(bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bspx_decoders),
        cmocka_unit_test(test_bspx_out_of_range),
        cmocka_unit_test(test_bspx_malformed_lumps),
        cmocka_unit_test(test_no_bspx),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
