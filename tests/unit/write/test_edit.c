/* Editing and saving maps (bspkit/edit.h) on the generated sample maps:
 * unchanged saves, same-size and growing edits, game lumps, LZMA lumps,
 * byte order and Blue Shift conversion, BSPX blocks and lump files. Expected
 * bytes come from the sample builder (which encodes each flavour on its own)
 * or from reading the raw directory here, never from the editor itself. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bspkit/bspkit.h"
#include "bspkit/edit.h"
#include "bspkit/write.h"
#include "core/bytes.h"
#include "valve_lzma.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"

typedef struct sample {
    uint8_t *bytes;
    size_t size;
    bspkit_map *map;
} sample;

static sample load_sample(bspkit_sample_kind kind)
{
    sample s = {0};
    CHECK(bspkit_sample_build(kind, &s.bytes, &s.size, ERR));
    CHECK(bspkit_open_memory(s.bytes, s.size, NULL, &s.map, ERR));
    return s;
}

static void free_sample(sample *s)
{
    bspkit_close(s->map);
    bspkit_free_buffer(s->bytes);
}

static uint8_t *save_edit(bspkit_edit *e, const bspkit_save_options *o, size_t *size)
{
    uint8_t *out = NULL;
    CHECK(bspkit_edit_write(e, o, &out, size, ERR));
    return out;
}

static bspkit_map *open_valid(const uint8_t *buf, size_t size)
{
    bspkit_map *m = NULL;
    CHECK(bspkit_open_memory(buf, size, NULL, &m, ERR));
    bspkit_report rep;
    CHECK(bspkit_validate(m, &rep, ERR));
    if (rep.errors)
        fail_msg("output has %zu validation errors, first: %s", rep.errors, rep.problems[0].message);
    bspkit_report_free(&rep);
    return m;
}

static void assert_lump_equal(bspkit_map *a, bspkit_map *b, int lump)
{
    const uint8_t *da, *db;
    size_t na, nb;
    CHECK(bspkit_lump_bytes(a, lump, &da, &na, ERR));
    CHECK(bspkit_lump_bytes(b, lump, &db, &nb, ERR));
    assert_int_equal(na, nb);
    if (na)
        assert_memory_equal(da, db, na);
}

/* ------------------------------------------------------------------------ */

static void unchanged_save_is_identical(void **state)
{
    (void)state;
    for (int k = 0; k < BSPKIT_SAMPLE_COUNT; k++) {
        sample s = load_sample((bspkit_sample_kind)k);
        bspkit_edit *e;
        CHECK(bspkit_edit_new(s.map, &e, ERR));
        size_t n;
        uint8_t *out = save_edit(e, NULL, &n);
        assert_int_equal(n, s.size);
        assert_memory_equal(out, s.bytes, n);
        free(out);
        bspkit_edit_free(e);
        free_sample(&s);
    }
}

/* A same-size change rewrites that lump's bytes and nothing else. */
static void same_size_edit_moves_nothing(void **state)
{
    (void)state;
    sample s = load_sample(BSPKIT_SAMPLE_SOURCE_ROOM);
    bspkit_lump_info li;
    CHECK(bspkit_get_lump_info(s.map, BSPKIT_S_PLANES, &li));
    assert_true(li.length >= 20);
    uint8_t *planes = malloc(li.length);
    memcpy(planes, s.bytes + li.offset, li.length);
    wr_le32(planes + 12, float_to_bits(1234.5f)); /* plane 0's dist */
    bspkit_edit *e;
    CHECK(bspkit_edit_new(s.map, &e, ERR));
    CHECK(bspkit_edit_set_lump(e, BSPKIT_S_PLANES, planes, li.length, ERR));
    assert_true(bspkit_edit_lump_changed(e, BSPKIT_S_PLANES));
    assert_false(bspkit_edit_lump_changed(e, BSPKIT_S_VERTEXES));
    size_t n;
    uint8_t *out = save_edit(e, NULL, &n);
    assert_int_equal(n, s.size);
    for (size_t i = 0; i < n; i++)
        if (out[i] != s.bytes[i] && !(i >= li.offset + 12 && i < li.offset + 16))
            fail_msg("byte %zu changed outside plane 0's dist", i);
    bspkit_map *m = open_valid(out, n);
    const bspkit_plane *p;
    size_t count;
    CHECK(bspkit_get_planes(m, &p, &count, ERR));
    assert_true(p[0].dist == 1234.5f);
    bspkit_close(m);
    free(out);
    bspkit_edit_free(e);
    free(planes);
    free_sample(&s);
}

/* Offsets of the non-empty lumps, ordered by position. */
static int lump_order(bspkit_map *m, int *order)
{
    int n = 0, count = bspkit_lump_count(m);
    uint32_t offs[64];
    for (int i = 0; i < count; i++) {
        bspkit_lump_info li;
        CHECK(bspkit_get_lump_info(m, i, &li));
        if (!li.length)
            continue;
        int k = n++;
        while (k > 0 && offs[k - 1] > li.offset) {
            offs[k] = offs[k - 1];
            order[k] = order[k - 1];
            k--;
        }
        offs[k] = li.offset;
        order[k] = i;
    }
    return n;
}

static void grown_entities_keep_everything_else(void **state)
{
    (void)state;
    static const char extra[] = "{\n\"classname\" \"info_target\"\n\"targetname\" \"added\"\n}\n";
    for (int k = 0; k < BSPKIT_SAMPLE_COUNT; k++) {
        sample s = load_sample((bspkit_sample_kind)k);
        const uint8_t *text;
        size_t size;
        CHECK(bspkit_lump_bytes(s.map, 0, &text, &size, ERR));
        size_t len = strnlen((const char *)text, size);
        char *grown = malloc(len + sizeof extra);
        memcpy(grown, text, len);
        memcpy(grown + len, extra, sizeof extra);
        bspkit_edit *e;
        CHECK(bspkit_edit_new(s.map, &e, ERR));
        CHECK(bspkit_edit_set_entities_text(e, grown, len + sizeof extra - 1, ERR));
        size_t n;
        uint8_t *out = save_edit(e, NULL, &n);
        bspkit_map *m = open_valid(out, n);
        const bspkit_format *f = bspkit_map_format(s.map);
        for (int i = 1; i < f->lump_count; i++)
            assert_lump_equal(s.map, m, i);
        const bspkit_entities *ents;
        CHECK(bspkit_get_entities(m, &ents, ERR));
        assert_string_equal(bspkit_entity_value(ents, ents->count - 1, "targetname"), "added");
        /* The lump text ends with exactly one NUL, as compilers write it. */
        CHECK(bspkit_lump_bytes(m, 0, &text, &size, ERR));
        assert_int_equal(size, len + sizeof extra);
        assert_int_equal(text[size - 1], 0);
        if (f->family == BSPKIT_FAMILY_SOURCE) {
            uint32_t c1, c2;
            CHECK(bspkit_map_crc(s.map, &c1, ERR));
            CHECK(bspkit_map_crc(m, &c2, ERR));
            assert_int_equal(c1, c2);
            bspkit_lump_info pak;
            CHECK(bspkit_get_lump_info(m, BSPKIT_S_PAKFILE, &pak));
            assert_int_equal(pak.offset % 2048, 0);
            assert_int_equal(((uint64_t)pak.offset + pak.length + 3) & ~3ull, n); /* last, then padding */
            assert_int_equal(bspkit_map_format(m)->revision, f->revision);
        }
        /* Lumps keep their relative order in the file (the PAKFILE stays last). */
        int before[64], after[64];
        int nb = lump_order(s.map, before), na = lump_order(m, after);
        assert_int_equal(nb, na);
        if (f->family != BSPKIT_FAMILY_SOURCE)
            assert_memory_equal(before, after, (size_t)nb * sizeof *before);
        for (int i = 0; i < bspkit_lump_count(m); i++) {
            bspkit_lump_info li;
            CHECK(bspkit_get_lump_info(m, i, &li));
            if (li.length)
                assert_int_equal(li.offset % 4, 0);
        }
        bspkit_close(m);
        free(out);
        bspkit_edit_free(e);
        free(grown);
        free_sample(&s);
    }
}

static void malformed_entities_are_refused(void **state)
{
    (void)state;
    sample s = load_sample(BSPKIT_SAMPLE_GOLDSRC_ROOM);
    bspkit_edit *e;
    CHECK(bspkit_edit_new(s.map, &e, ERR));
    static const char bad[] = "{\n\"classname\" \"worldspawn\"\n";
    assert_int_equal(bspkit_edit_set_entities_text(e, bad, sizeof bad - 1, ERR), BSPKIT_ERR_ENTITIES);
    assert_int_equal(g_err.lump, 0);
    assert_false(bspkit_edit_lump_changed(e, 0));
    bspkit_edit_free(e);
    free_sample(&s);
}

static void lump_size_and_game_lump_rules(void **state)
{
    (void)state;
    sample s = load_sample(BSPKIT_SAMPLE_SOURCE_ROOM);
    bspkit_edit *e;
    CHECK(bspkit_edit_new(s.map, &e, ERR));
    uint8_t junk[21] = {0};
    assert_int_equal(bspkit_edit_set_lump(e, BSPKIT_S_PLANES, junk, 21, ERR), BSPKIT_ERR_LUMP_SIZE);
    assert_int_equal(bspkit_edit_set_lump(e, BSPKIT_S_GAME_LUMP, junk, 20, ERR), BSPKIT_ERR_ARGUMENT);
    assert_int_equal(bspkit_edit_set_lump(e, 64, junk, 4, ERR), BSPKIT_ERR_ARGUMENT);
    bspkit_save_options o = {.lump_order = BSPKIT_LUMP_ORDER_BLUESHIFT};
    uint8_t *out;
    size_t n;
    assert_int_equal(bspkit_edit_write(e, &o, &out, &n, ERR), BSPKIT_ERR_UNSUPPORTED);
    bspkit_edit_free(e);
    free_sample(&s);

    s = load_sample(BSPKIT_SAMPLE_GOLDSRC_ROOM);
    CHECK(bspkit_edit_new(s.map, &e, ERR));
    o = (bspkit_save_options){.compression = BSPKIT_COMPRESSION_LZMA};
    assert_int_equal(bspkit_edit_write(e, &o, &out, &n, ERR), BSPKIT_ERR_UNSUPPORTED);
    o = (bspkit_save_options){.byte_order = BSPKIT_BYTE_ORDER_BIG};
    assert_int_equal(bspkit_edit_write(e, &o, &out, &n, ERR), BSPKIT_ERR_UNSUPPORTED);
    assert_int_equal(bspkit_edit_set_game_lump(e, 0x74737431, 1, junk, 4, ERR), BSPKIT_ERR_UNSUPPORTED);
    bspkit_edit_free(e);
    free_sample(&s);
}

/* Game lumps: add an entry, check the directory by hand, remove it again. */
static void game_lump_entries(void **state)
{
    (void)state;
    for (int k = BSPKIT_SAMPLE_SOURCE_ROOM; k <= BSPKIT_SAMPLE_SOURCE_ROOM_BE; k++) {
        sample s = load_sample((bspkit_sample_kind)k);
        bool be = k == BSPKIT_SAMPLE_SOURCE_ROOM_BE;
        bspkit_edit *e;
        CHECK(bspkit_edit_new(s.map, &e, ERR));
        const uint8_t data[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
        const uint32_t id = 0x74737431; /* 'tst1' */
        CHECK(bspkit_edit_set_game_lump(e, id, 3, data, sizeof data, ERR));
        size_t n;
        uint8_t *out = save_edit(e, NULL, &n);
        bspkit_map *m = open_valid(out, n);
        bspkit_lump_info gl;
        CHECK(bspkit_get_lump_info(m, BSPKIT_S_GAME_LUMP, &gl));
        /* The directory read here by hand: one entry, data right after it, absolute offset. */
        const uint8_t *d = out + gl.offset;
        assert_int_equal(rd_u32(d, be), 1);
        assert_int_equal(rd_u32(d + 4, be), id);
        assert_int_equal(rd_u16(d + 8, be), 0);
        assert_int_equal(rd_u16(d + 10, be), 3);
        assert_int_equal(rd_u32(d + 12, be), gl.offset + 20);
        assert_int_equal(rd_u32(d + 16, be), sizeof data);
        assert_memory_equal(d + 20, data, sizeof data);
        for (int i = 0; i < BSPKIT_S_LUMP_COUNT; i++)
            if (i != BSPKIT_S_GAME_LUMP)
                assert_lump_equal(s.map, m, i);

        bspkit_edit *e2;
        CHECK(bspkit_edit_new(m, &e2, ERR));
        CHECK(bspkit_edit_set_game_lump(e2, id, 0, NULL, 0, ERR));
        assert_int_equal(bspkit_edit_set_game_lump(e2, id, 0, NULL, 0, ERR), BSPKIT_ERR_NOT_FOUND);
        size_t n2;
        uint8_t *out2 = save_edit(e2, NULL, &n2);
        bspkit_map *m2 = open_valid(out2, n2);
        const bspkit_game_lump *g;
        size_t count;
        CHECK(bspkit_get_game_lumps(m2, &g, &count, ERR));
        assert_int_equal(count, 0);
        bspkit_close(m2);
        free(out2);
        bspkit_edit_free(e2);
        bspkit_close(m);
        free(out);
        bspkit_edit_free(e);
        free_sample(&s);
    }
}

/* A changed lump of an LZMA map is compressed again; the directory's fourCC holds its size. */
static void compressed_lumps_stay_compressed(void **state)
{
    (void)state;
    sample s = load_sample(BSPKIT_SAMPLE_SOURCE_ROOM_LZMA);
    bspkit_lump_info li;
    CHECK(bspkit_get_lump_info(s.map, BSPKIT_S_PLANES, &li));
    assert_true(li.compressed);
    const uint8_t *planes;
    size_t size;
    CHECK(bspkit_lump_bytes(s.map, BSPKIT_S_PLANES, &planes, &size, ERR));
    uint8_t *twice = malloc(size * 2);
    memcpy(twice, planes, size);
    memcpy(twice + size, planes, size);
    bspkit_edit *e;
    CHECK(bspkit_edit_new(s.map, &e, ERR));
    CHECK(bspkit_edit_set_lump(e, BSPKIT_S_PLANES, twice, size * 2, ERR));
    size_t n;
    uint8_t *out = save_edit(e, NULL, &n);
    bspkit_map *m = open_valid(out, n);
    CHECK(bspkit_get_lump_info(m, BSPKIT_S_PLANES, &li));
    assert_true(li.compressed);
    /* The directory entry read by hand: {offset, length, version, fourCC}. */
    const uint8_t *dir = out + 8 + 16 * BSPKIT_S_PLANES;
    assert_int_equal(rd_le32(dir + 12), size * 2);
    assert_true(valve_lzma_lump_equals(out + li.offset, li.length, twice, size * 2));
    bspkit_close(m);
    free(out);
    bspkit_edit_free(e);
    free(twice);
    free_sample(&s);
}

/* Both conversions must reproduce what the builder encodes for the other
 * flavour on its own. */
static void conversions_match_the_builder(void **state)
{
    (void)state;
    static const struct {
        bspkit_sample_kind from, to;
        bspkit_save_options opts;
    } CASES[] = {
        {BSPKIT_SAMPLE_SOURCE_ROOM_BE, BSPKIT_SAMPLE_SOURCE_ROOM, {.byte_order = BSPKIT_BYTE_ORDER_LITTLE}},
        {BSPKIT_SAMPLE_SOURCE_ROOM, BSPKIT_SAMPLE_SOURCE_ROOM_BE, {.byte_order = BSPKIT_BYTE_ORDER_BIG}},
        {BSPKIT_SAMPLE_SOURCE_ROOM_LZMA, BSPKIT_SAMPLE_SOURCE_ROOM, {.compression = BSPKIT_COMPRESSION_NONE}},
    };
    for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++) {
        sample from = load_sample(CASES[c].from), to = load_sample(CASES[c].to);
        bspkit_edit *e;
        CHECK(bspkit_edit_new(from.map, &e, ERR));
        bspkit_save_options o = CASES[c].opts;
        o.strict = true;
        size_t n;
        uint8_t *out = save_edit(e, &o, &n);
        assert_int_equal(n, to.size);
        assert_memory_equal(out, to.bytes, n);
        free(out);
        bspkit_edit_free(e);
        free_sample(&from);
        free_sample(&to);
    }
}

static void blueshift_order(void **state)
{
    (void)state;
    sample s = load_sample(BSPKIT_SAMPLE_GOLDSRC_ROOM);
    bspkit_edit *e;
    CHECK(bspkit_edit_new(s.map, &e, ERR));
    bspkit_save_options o = {.lump_order = BSPKIT_LUMP_ORDER_BLUESHIFT};
    size_t n;
    uint8_t *out = save_edit(e, &o, &n);
    assert_int_equal(n, s.size);
    /* Directory slots 0 and 1 swapped, everything else the same. */
    assert_memory_equal(out + 4, s.bytes + 12, 8);
    assert_memory_equal(out + 12, s.bytes + 4, 8);
    assert_memory_equal(out + 20, s.bytes + 20, n - 20);
    assert_memory_equal(out, s.bytes, 4);
    bspkit_map *m = open_valid(out, n);
    assert_true(bspkit_map_format(m)->variant & BSPKIT_VARIANT_BLUESHIFT);
    for (int i = 0; i < BSPKIT_Q_LUMP_COUNT; i++)
        assert_lump_equal(s.map, m, i);
    bspkit_edit *back;
    CHECK(bspkit_edit_new(m, &back, ERR));
    o.lump_order = BSPKIT_LUMP_ORDER_STANDARD;
    size_t n2;
    uint8_t *out2 = save_edit(back, &o, &n2);
    assert_int_equal(n2, s.size);
    assert_memory_equal(out2, s.bytes, n2);
    free(out2);
    bspkit_edit_free(back);
    bspkit_close(m);
    free(out);
    bspkit_edit_free(e);
    free_sample(&s);
}

/* Quake's record layouts: BSP29 -> BSP2 -> 2PSB -> BSP29 gives the input
 * back; in between, the header magic and the record sizes are those of the
 * layout (BSP2 faces 28 bytes, nodes 44, leafs 44, clipnodes 12, edges 8,
 * marksurfaces 4; 2PSB nodes and leafs 32) and every record decodes to the
 * same native values. Other families are refused. */
static void quake_formats(void **state)
{
    (void)state;
    static const struct {
        bspkit_quake_format format;
        const char *magic;
        uint32_t face, node, leaf, clip, edge, mark;
    } steps[] = {
        {BSPKIT_QUAKE_FORMAT_BSP2, "BSP2", 28, 44, 44, 12, 8, 4},
        {BSPKIT_QUAKE_FORMAT_2PSB, "2PSB", 28, 32, 32, 12, 8, 4},
        {BSPKIT_QUAKE_FORMAT_BSP29, "\x1d\0\0\0", 20, 24, 28, 8, 4, 2},
    };
    sample s = load_sample(BSPKIT_SAMPLE_QUAKE_ROOM);
    bspkit_map *m = s.map;
    uint8_t *prev = NULL;
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
        bspkit_edit *e;
        CHECK(bspkit_edit_new(m, &e, ERR));
        bspkit_save_options o = {.quake_format = steps[k].format};
        size_t n;
        uint8_t *out = save_edit(e, &o, &n);
        bspkit_edit_free(e);
        assert_memory_equal(out, steps[k].magic, 4);
        bspkit_map *next = open_valid(out, n);
        const int lumps[6] = {BSPKIT_Q_FACES, BSPKIT_Q_NODES, BSPKIT_Q_LEAFS, BSPKIT_Q_CLIPNODES, BSPKIT_Q_EDGES,
                              BSPKIT_Q_MARKSURFACES};
        const uint32_t sizes[6] = {steps[k].face, steps[k].node, steps[k].leaf, steps[k].clip, steps[k].edge,
                                   steps[k].mark};
        for (int i = 0; i < 6; i++) {
            bspkit_lump_info li;
            CHECK(bspkit_get_lump_info(next, lumps[i], &li));
            assert_int_equal(li.record_size, sizes[i]);
        }
        const bspkit_face *fa, *fb;
        const bspkit_node *na, *nb;
        size_t c1, c2;
        CHECK(bspkit_get_faces(s.map, &fa, &c1, ERR));
        CHECK(bspkit_get_faces(next, &fb, &c2, ERR));
        assert_int_equal(c1, c2);
        assert_memory_equal(fa, fb, c1 * sizeof *fa);
        CHECK(bspkit_get_nodes(s.map, &na, &c1, ERR));
        CHECK(bspkit_get_nodes(next, &nb, &c2, ERR));
        assert_int_equal(c1, c2);
        assert_memory_equal(na, nb, c1 * sizeof *na);
        if (m != s.map)
            bspkit_close(m);
        free(prev);
        prev = out;
        m = next;
        if (steps[k].format == BSPKIT_QUAKE_FORMAT_BSP29) {
            assert_int_equal(n, s.size);
            assert_memory_equal(out, s.bytes, n);
        }
    }
    bspkit_close(m);
    free(prev);
    free_sample(&s);

    s = load_sample(BSPKIT_SAMPLE_GOLDSRC_ROOM);
    bspkit_edit *e;
    CHECK(bspkit_edit_new(s.map, &e, ERR));
    bspkit_save_options o = {.quake_format = BSPKIT_QUAKE_FORMAT_BSP2};
    uint8_t *out = NULL;
    size_t n = 0;
    bspkit_error err;
    assert_int_equal(bspkit_edit_write(e, &o, &out, &n, &err), BSPKIT_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "Quake"));
    bspkit_edit_free(e);
    free_sample(&s);
}

/* A BSPX block after the lumps moves with them and its offsets follow. */
static void bspx_block_moves(void **state)
{
    (void)state;
    sample s = load_sample(BSPKIT_SAMPLE_GOLDSRC_ROOM);
    size_t end = 0;
    for (int i = 0; i < BSPKIT_Q_LUMP_COUNT; i++) {
        size_t e = rd_le32(s.bytes + 4 + 8 * i) + (size_t)rd_le32(s.bytes + 8 + 8 * i);
        if (e > end)
            end = e;
    }
    end = (end + 3) & ~(size_t)3;
    static const uint8_t payload[8] = {'b', 's', 'p', 'x', 'd', 'a', 't', 'a'};
    size_t size = end + 8 + 32 + sizeof payload;
    uint8_t *file = calloc(1, size);
    memcpy(file, s.bytes, s.size);
    memcpy(file + end, "BSPX", 4);
    wr_le32(file + end + 4, 1);
    memcpy(file + end + 8, "TESTLUMP", 8);
    wr_le32(file + end + 8 + 24, (uint32_t)(end + 40));
    wr_le32(file + end + 8 + 28, sizeof payload);
    memcpy(file + end + 40, payload, sizeof payload);
    bspkit_map *map;
    CHECK(bspkit_open_memory(file, size, NULL, &map, ERR));
    assert_true(bspkit_map_format(map)->variant & BSPKIT_VARIANT_BSPX);

    bspkit_edit *e;
    CHECK(bspkit_edit_new(map, &e, ERR));
    static const char text[] = "{\n\"classname\" \"worldspawn\"\n\"message\" \"a much longer entity lump than before\"\n}\n";
    CHECK(bspkit_edit_set_entities_text(e, text, sizeof text - 1, ERR));
    size_t n;
    uint8_t *out = save_edit(e, NULL, &n);
    bspkit_map *m = open_valid(out, n);
    assert_true(bspkit_map_format(m)->variant & BSPKIT_VARIANT_BSPX);
    size_t new_end = 0;
    for (int i = 0; i < BSPKIT_Q_LUMP_COUNT; i++) {
        size_t le = rd_le32(out + 4 + 8 * i) + (size_t)rd_le32(out + 8 + 8 * i);
        if (le > new_end)
            new_end = le;
    }
    new_end = (new_end + 3) & ~(size_t)3;
    assert_true(new_end != end);
    assert_memory_equal(out + new_end, "BSPX", 4);
    uint32_t ofs = rd_le32(out + new_end + 8 + 24);
    assert_int_equal(ofs, new_end + 40);
    assert_memory_equal(out + ofs, payload, sizeof payload);
    bspkit_close(m);
    free(out);
    bspkit_edit_free(e);
    bspkit_close(map);
    free(file);
    free_sample(&s);
}

static void lump_files(void **state)
{
    (void)state;
    for (int k = BSPKIT_SAMPLE_SOURCE_ROOM; k <= BSPKIT_SAMPLE_SOURCE_ROOM_BE; k++) {
        sample s = load_sample((bspkit_sample_kind)k);
        bool be = k == BSPKIT_SAMPLE_SOURCE_ROOM_BE;
        bspkit_edit *e;
        CHECK(bspkit_edit_new(s.map, &e, ERR));
        uint8_t *lmp;
        size_t size;
        CHECK(bspkit_lmp_make(e, BSPKIT_S_PLANES, &lmp, &size, ERR));
        bspkit_lump_info li;
        CHECK(bspkit_get_lump_info(s.map, BSPKIT_S_PLANES, &li));
        /* Header fields read by hand, in the map's byte order. */
        assert_int_equal(size, 20 + li.length);
        assert_int_equal(rd_u32(lmp, be), 20);
        assert_int_equal(rd_u32(lmp + 4, be), BSPKIT_S_PLANES);
        assert_int_equal(rd_u32(lmp + 8, be), (uint32_t)li.version);
        assert_int_equal(rd_u32(lmp + 12, be), li.length);
        assert_int_equal(rd_u32(lmp + 16, be), (uint32_t)bspkit_map_format(s.map)->revision);
        assert_memory_equal(lmp + 20, s.bytes + li.offset, li.length);

        /* Change plane 1's dist in the lump file and apply it. */
        wr_f32(lmp + 20 + 20 + 12, -77.25f, be);
        wr_u32(lmp + 8, 7, be); /* a different lump version must reach the directory */
        bspkit_lmp_header h;
        CHECK(bspkit_edit_apply_lmp(e, lmp, size, &h, ERR));
        assert_int_equal(h.lump, BSPKIT_S_PLANES);
        size_t n;
        uint8_t *out = save_edit(e, NULL, &n);
        bspkit_map *m;
        CHECK(bspkit_open_memory(out, n, NULL, &m, ERR));
        const bspkit_plane *p;
        size_t count;
        CHECK(bspkit_get_planes(m, &p, &count, ERR));
        assert_true(p[1].dist == -77.25f);
        CHECK(bspkit_get_lump_info(m, BSPKIT_S_PLANES, &li));
        assert_int_equal(li.version, 7);

        /* Malformed lump files. */
        assert_int_equal(bspkit_edit_apply_lmp(e, lmp, 19, NULL, ERR), BSPKIT_ERR_TRUNCATED);
        wr_u32(lmp + 12, (uint32_t)size, be); /* length past the end */
        assert_int_equal(bspkit_edit_apply_lmp(e, lmp, size, NULL, ERR), BSPKIT_ERR_LUMP_RANGE);
        wr_u32(lmp + 4, BSPKIT_S_GAME_LUMP, be);
        assert_int_equal(bspkit_edit_apply_lmp(e, lmp, size, NULL, ERR), BSPKIT_ERR_UNSUPPORTED);
        wr_u32(lmp + 4, 64, be);
        assert_int_equal(bspkit_edit_apply_lmp(e, lmp, size, NULL, ERR), BSPKIT_ERR_ARGUMENT);
        uint8_t *gl;
        assert_int_equal(bspkit_lmp_make(e, BSPKIT_S_GAME_LUMP, &gl, &n, ERR), BSPKIT_ERR_UNSUPPORTED);
        bspkit_close(m);
        free(out);
        free(lmp);
        bspkit_edit_free(e);
        free_sample(&s);
    }
    sample q = load_sample(BSPKIT_SAMPLE_GOLDSRC_ROOM);
    bspkit_edit *e;
    CHECK(bspkit_edit_new(q.map, &e, ERR));
    uint8_t *lmp;
    size_t size;
    assert_int_equal(bspkit_lmp_make(e, 1, &lmp, &size, ERR), BSPKIT_ERR_UNSUPPORTED);
    bspkit_edit_free(e);
    free_sample(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unchanged_save_is_identical),
        cmocka_unit_test(same_size_edit_moves_nothing),
        cmocka_unit_test(grown_entities_keep_everything_else),
        cmocka_unit_test(malformed_entities_are_refused),
        cmocka_unit_test(lump_size_and_game_lump_rules),
        cmocka_unit_test(game_lump_entries),
        cmocka_unit_test(compressed_lumps_stay_compressed),
        cmocka_unit_test(conversions_match_the_builder),
        cmocka_unit_test(blueshift_order),
        cmocka_unit_test(quake_formats),
        cmocka_unit_test(bspx_block_moves),
        cmocka_unit_test(lump_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
