/* Byte-order conversion of Source lumps and game lumps (src/formats/source/swap.c).
 *
 *  - The generated room written little- and big-endian: converting every lump
 *    of one gives exactly the bytes of the other, both ways.
 *  - Records the sample lacks are built here field by field in both byte
 *    orders (bit-fields packed as each compiler packs them, per the IVP
 *    byte_swap() code), and one order must convert into the other.
 *  - The Xbox 360 map: every lump converted to little-endian decodes through
 *    bspkit's own decoders to the same records; converting twice restores it.
 *  - Unknown layouts leave the data untouched; corrupt counts, sizes and
 *    offsets fail with the lump and byte position, also leaving it untouched,
 *    and truncated or mutated real lumps never read out of bounds. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bspkit/bspkit.h"
#include "bspkit/write.h"
#include "core/family.h"
#include "core/map.h"
#include "formats/source/swap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define X360_MAP BSPKIT_SHARED_MAPS "/bsp_tool/maps/Xbox360/The Orange Box/shack.360.bsp"
#define ID(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (uint32_t)(d))

static const bk_swap_target VBSP19 = {19, 0};
static const bk_swap_target VBSP20 = {20, 0};

/* ------------------------------------------------------------------------ */
/* The same data written in both byte orders                                 */
/* ------------------------------------------------------------------------ */

#define TWIN_CAPACITY 8192

typedef struct twin {
    uint8_t le[TWIN_CAPACITY];
    uint8_t be[TWIN_CAPACITY];
    size_t size;
} twin;

static twin *twin_new(void)
{
    twin *t = calloc(1, sizeof *t);
    assert_non_null(t);
    return t;
}

/* Appends `width` bytes holding `le_value` little-endian and `be_value` big-endian. */
static size_t put_pair(twin *t, int width, uint32_t le_value, uint32_t be_value)
{
    assert_true(t->size + (size_t)width <= TWIN_CAPACITY);
    size_t at = t->size;
    for (int i = 0; i < width; i++) {
        t->le[at + i] = (uint8_t)(le_value >> (8 * i));
        t->be[at + i] = (uint8_t)(be_value >> (8 * (width - 1 - i)));
    }
    t->size += (size_t)width;
    return at;
}

static size_t put32(twin *t, uint32_t v) { return put_pair(t, 4, v, v); }
static size_t put16(twin *t, uint16_t v) { return put_pair(t, 2, v, v); }

static size_t put_float(twin *t, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return put32(t, u);
}

/* Bytes stored identically in both orders (chars, colours, padding). */
static size_t put_bytes(twin *t, const void *bytes, size_t n)
{
    assert_true(t->size + n <= TWIN_CAPACITY);
    size_t at = t->size;
    memcpy(t->le + at, bytes, n);
    memcpy(t->be + at, bytes, n);
    t->size += n;
    return at;
}

static size_t put_byte(twin *t, uint8_t b) { return put_bytes(t, &b, 1); }

static size_t put_name(twin *t, const char *name, size_t length)
{
    char buf[256] = {0};
    assert_true(length <= sizeof buf && strlen(name) < length);
    memcpy(buf, name, strlen(name));
    return put_bytes(t, buf, length);
}

/* Rewrites a 32-bit value at `at` in both orders. */
static void patch32(twin *t, size_t at, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        t->le[at + i] = (uint8_t)(v >> (8 * i));
        t->be[at + i] = (uint8_t)(v >> (8 * (3 - i)));
    }
}

/* Field values whose byte-reversed form differs from the original, so a
 * missing or misplaced swap always shows. */
static uint32_t g_seed = 0x2545F491u;

static uint32_t value32(void)
{
    for (;;) {
        g_seed = g_seed * 1664525u + 1013904223u;
        uint32_t v = g_seed;
        if ((v & 0xFF) != (v >> 24) && ((v >> 8) & 0xFF) != ((v >> 16) & 0xFF))
            return v;
    }
}

static uint16_t value16(void)
{
    for (;;) {
        uint16_t v = (uint16_t)value32();
        if ((v & 0xFF) != (v >> 8))
            return v;
    }
}

static uint8_t value8(void) { return (uint8_t)value32(); }

static void put32s(twin *t, int n)
{
    for (int i = 0; i < n; i++)
        put32(t, value32());
}

static void put16s(twin *t, int n)
{
    for (int i = 0; i < n; i++)
        put16(t, value16());
}

static void put8s(twin *t, int n)
{
    for (int i = 0; i < n; i++)
        put_byte(t, value8());
}

/* Converting either order must give exactly the other, and report the layout known. */
static void expect_lump_pair(const bk_swap_target *target, int lump, int32_t version, const twin *t)
{
    uint8_t *buf = malloc(t->size);
    assert_non_null(buf);
    for (int from_be = 0; from_be < 2; from_be++) {
        memcpy(buf, from_be ? t->be : t->le, t->size);
        bool known = false;
        bspkit_error err;
        bspkit_result r = bk_swap_lump(target, lump, version, buf, t->size, from_be, &known, &err);
        if (r != BSPKIT_OK)
            fail_msg("lump %d v%d: %s", lump, (int)version, err.message);
        assert_true(known);
        assert_memory_equal(buf, from_be ? t->le : t->be, t->size);
    }
    free(buf);
}

static void expect_game_lump_pair(uint32_t id, uint16_t version, const twin *t)
{
    uint8_t *buf = malloc(t->size);
    assert_non_null(buf);
    for (int from_be = 0; from_be < 2; from_be++) {
        memcpy(buf, from_be ? t->be : t->le, t->size);
        bool known = false;
        bspkit_error err;
        bspkit_result r = bk_swap_game_lump(&VBSP20, id, version, buf, t->size, from_be, &known, &err);
        if (r != BSPKIT_OK)
            fail_msg("game lump v%u: %s", (unsigned)version, err.message);
        assert_true(known);
        assert_memory_equal(buf, from_be ? t->le : t->be, t->size);
    }
    free(buf);
}

/* An unknown layout: known = false, bytes unchanged. */
static void expect_lump_unknown(const bk_swap_target *target, int lump, int32_t version, const uint8_t *data,
                                size_t size, bool from_be)
{
    uint8_t *buf = malloc(size);
    assert_non_null(buf);
    memcpy(buf, data, size);
    bool known = true;
    assert_int_equal(bk_swap_lump(target, lump, version, buf, size, from_be, &known, NULL), BSPKIT_OK);
    assert_false(known);
    assert_memory_equal(buf, data, size);
    free(buf);
}

static void expect_game_lump_unknown(uint32_t id, uint16_t version, const uint8_t *data, size_t size)
{
    uint8_t *buf = malloc(size);
    assert_non_null(buf);
    memcpy(buf, data, size);
    bool known = true;
    assert_int_equal(bk_swap_game_lump(&VBSP20, id, version, buf, size, false, &known, NULL), BSPKIT_OK);
    assert_false(known);
    assert_memory_equal(buf, data, size);
    free(buf);
}

/* A failure with `code` at lump byte `pos`, data unchanged. */
static void expect_lump_failure(const bk_swap_target *target, int lump, int32_t version, const uint8_t *data,
                                size_t size, bool from_be, bspkit_result code, int64_t pos)
{
    uint8_t *buf = malloc(size ? size : 1);
    assert_non_null(buf);
    memcpy(buf, data, size);
    bool known;
    bspkit_error err;
    assert_int_equal(bk_swap_lump(target, lump, version, buf, size, from_be, &known, &err), code);
    assert_int_equal(err.code, code);
    assert_int_equal(err.lump, lump);
    if (pos >= 0)
        assert_int_equal(err.lump_offset, pos);
    assert_non_null(strstr(err.message, "byte"));
    assert_memory_equal(buf, data, size);
    free(buf);
}

static void expect_game_lump_failure(uint32_t id, uint16_t version, const uint8_t *data, size_t size, bool from_be,
                                     int64_t pos)
{
    uint8_t *buf = malloc(size);
    assert_non_null(buf);
    memcpy(buf, data, size);
    bool known;
    bspkit_error err;
    assert_int_equal(bk_swap_game_lump(&VBSP20, id, version, buf, size, from_be, &known, &err),
                     BSPKIT_ERR_GAME_LUMP);
    assert_int_equal(err.lump, BSPKIT_S_GAME_LUMP);
    assert_int_equal(err.lump_offset, pos);
    assert_memory_equal(buf, data, size);
    free(buf);
}

/* ------------------------------------------------------------------------ */
/* 1. The sample room, little- and big-endian                                */
/* ------------------------------------------------------------------------ */

static void test_sample_room_orders_convert_into_each_other(void **state)
{
    (void)state;
    uint8_t *le_file, *be_file;
    size_t le_size, be_size;
    bspkit_error err;
    assert_int_equal(bspkit_sample_build(BSPKIT_SAMPLE_SOURCE_ROOM, &le_file, &le_size, &err), BSPKIT_OK);
    assert_int_equal(bspkit_sample_build(BSPKIT_SAMPLE_SOURCE_ROOM_BE, &be_file, &be_size, &err), BSPKIT_OK);
    bspkit_map *le_map, *be_map;
    assert_int_equal(bspkit_open_memory(le_file, le_size, NULL, &le_map, &err), BSPKIT_OK);
    assert_int_equal(bspkit_open_memory(be_file, be_size, NULL, &be_map, &err), BSPKIT_OK);
    const bspkit_format *f = bspkit_map_format(be_map);
    assert_true(f->big_endian);
    bk_swap_target target = {f->version, f->variant};

    int converted = 0;
    for (int lump = 0; lump < BSPKIT_S_LUMP_COUNT; lump++) {
        const uint8_t *le, *be;
        size_t ls, bs;
        assert_int_equal(bspkit_lump_bytes(le_map, lump, &le, &ls, &err), BSPKIT_OK);
        assert_int_equal(bspkit_lump_bytes(be_map, lump, &be, &bs, &err), BSPKIT_OK);
        assert_int_equal(ls, bs);
        bspkit_lump_info info;
        assert_int_equal(bspkit_get_lump_info(be_map, lump, &info), BSPKIT_OK);
        uint8_t *buf = malloc(bs + 1);
        assert_non_null(buf);
        bool known;
        if (lump == BSPKIT_S_GAME_LUMP) {
            memcpy(buf, be, bs);
            assert_int_equal(bk_swap_lump(&target, lump, info.version, buf, bs, true, &known, &err),
                             BSPKIT_ERR_ARGUMENT);
            free(buf);
            continue;
        }
        memcpy(buf, be, bs);
        if (bk_swap_lump(&target, lump, info.version, buf, bs, true, &known, &err) != BSPKIT_OK)
            fail_msg("%s: %s", info.name, err.message);
        assert_true(known);
        if (memcmp(buf, le, bs) != 0)
            fail_msg("%s: big-endian bytes converted differ from the little-endian lump", info.name);
        memcpy(buf, le, ls);
        assert_int_equal(bk_swap_lump(&target, lump, info.version, buf, ls, false, &known, &err), BSPKIT_OK);
        assert_true(known);
        if (memcmp(buf, be, bs) != 0)
            fail_msg("%s: little-endian bytes converted differ from the big-endian lump", info.name);
        if (bs && memcmp(le, be, bs) != 0)
            converted++;
        free(buf);
    }
    assert_true(converted >= 15); /* the comparison has something to compare */
    bspkit_close(le_map);
    bspkit_close(be_map);
    bspkit_free_buffer(le_file);
    bspkit_free_buffer(be_file);
}

/* ------------------------------------------------------------------------ */
/* 2. Hand-built records                                                     */
/* ------------------------------------------------------------------------ */

static void put_dispinfo(twin *t)
{
    put32s(t, 3); /* startPosition */
    put32s(t, 6); /* vert start, tri start, power, minTess, smoothingAngle, contents */
    put16(t, value16()); /* m_iMapFace */
    put_bytes(t, "\x7e\x7f", 2); /* padding: copied as it is */
    put32s(t, 2);        /* lightmap alpha start, sample position start */
    for (int edge = 0; edge < 4; edge++)
        for (int sub = 0; sub < 2; sub++) {
            put16(t, value16()); /* m_iNeighbor */
            put8s(t, 3);         /* orientation, span, neighbour span */
            put_byte(t, 0xa5);   /* padding */
        }
    for (int corner = 0; corner < 4; corner++) {
        put16s(t, 4); /* m_Neighbors */
        put_byte(t, value8());
        put_byte(t, 0x5a);
    }
    put32s(t, 10); /* m_AllowedVerts */
}

static void test_dispinfo_and_small_records(void **state)
{
    (void)state;
    twin *t = twin_new();
    put_dispinfo(t);
    assert_int_equal(t->size, 176);
    put_dispinfo(t);
    expect_lump_pair(&VBSP20, BSPKIT_S_DISPINFO, 0, t);

    /* dworldlight_t version 0 and 1: 32-bit fields only. */
    t->size = 0;
    put32s(t, 22);
    expect_lump_pair(&VBSP20, BSPKIT_S_WORLDLIGHTS, 0, t);
    t->size = 0;
    put32s(t, 25 * 2);
    expect_lump_pair(&VBSP20, BSPKIT_S_WORLDLIGHTS_HDR, 1, t);

    /* doverlay_t and dwateroverlay_t. */
    for (int water = 0; water < 2; water++) {
        t->size = 0;
        put32(t, value32());           /* nId */
        put16(t, value16());           /* nTexInfo */
        put16(t, 0xC000 | value16()); /* face count + render order in the top bits */
        put32s(t, water ? 256 : 64);
        put32s(t, 4 + 12 + 3 + 3);
        assert_int_equal(t->size, water ? 1120 : 352);
        expect_lump_pair(&VBSP20, water ? BSPKIT_S_WATEROVERLAYS : BSPKIT_S_OVERLAYS, 0, t);
    }

    /* dcubemapsample_t: the size is an unsigned char followed by padding. */
    t->size = 0;
    put32s(t, 3);
    put_bytes(t, "\x06\x01\x02\x03", 4);
    expect_lump_pair(&VBSP20, BSPKIT_S_CUBEMAPS, 0, t);

    /* dprimitive_t: type byte, pad, 4 unsigned shorts. */
    t->size = 0;
    put_bytes(t, "\x01\xcc", 2);
    put16s(t, 4);
    expect_lump_pair(&VBSP20, BSPKIT_S_PRIMITIVES, 0, t);

    /* dleafwaterdata_t: 2 floats, a short, 2 pad bytes. */
    t->size = 0;
    put_float(t, 96.5f);
    put_float(t, -12.25f);
    put16(t, value16());
    put_bytes(t, "\x11\x22", 2);
    expect_lump_pair(&VBSP20, BSPKIT_S_LEAFWATERDATA, 0, t);

    /* Disp multiblend, overlay fades, map flags, leaf ambient index, faceids. */
    t->size = 0;
    put32s(t, 20);
    expect_lump_pair(&VBSP20, BSPKIT_S_DISP_MULTIBLEND, 0, t);
    t->size = 0;
    put32s(t, 4);
    expect_lump_pair(&VBSP20, BSPKIT_S_OVERLAY_FADES, 0, t);
    t->size = 0;
    put32(t, value32());
    expect_lump_pair(&VBSP20, BSPKIT_S_MAP_FLAGS, 645568690, t);
    t->size = 0;
    put16s(t, 6);
    expect_lump_pair(&VBSP20, BSPKIT_S_LEAF_AMBIENT_INDEX_HDR, 0, t);
    expect_lump_pair(&VBSP20, BSPKIT_S_FACEIDS, 0, t);
    expect_lump_pair(&VBSP20, BSPKIT_S_LEAFMINDISTTOWATER, 0, t);
    free(t);
}

/* dface_t in its three layouts. */
static void test_faces_all_layouts(void **state)
{
    (void)state;
    twin *t = twin_new();
    for (int r = 0; r < 2; r++) {
        put16(t, value16());           /* planenum */
        put_bytes(t, "\x01\x00", 2);   /* side, onNode */
        put32(t, value32());           /* firstedge */
        put16s(t, 4);                  /* numedges, texinfo, dispinfo, fog volume */
        put_bytes(t, "\x00\x01\xff\xff", 4); /* styles */
        put32s(t, 2);                  /* lightofs, area */
        put32s(t, 5);                  /* lightmap mins/size, origFace */
        put16(t, 0x8000 | value16()); /* numPrims with the no-shadow flag */
        put16(t, value16());           /* firstPrimID */
        put32(t, value32());           /* smoothingGroups */
    }
    assert_int_equal(t->size, 112);
    expect_lump_pair(&VBSP20, BSPKIT_S_FACES, 1, t);
    expect_lump_pair(&VBSP20, BSPKIT_S_FACES_HDR, 1, t);
    expect_lump_pair(&VBSP20, BSPKIT_S_ORIGINALFACES, 0, t);

    /* Bloodlines (v17): 8 colours first, 24 style bytes, no primitives. */
    t->size = 0;
    put8s(t, 32);
    put16(t, value16());
    put_bytes(t, "\x00\x01", 2);
    put32(t, value32());
    put16s(t, 4);
    put8s(t, 24);
    put32s(t, 2);
    put32s(t, 5);
    put32(t, value32());
    assert_int_equal(t->size, 104);
    const bk_swap_target v17 = {17, 0};
    expect_lump_pair(&v17, BSPKIT_S_FACES, 0, t);

    /* Strata v25: 32-bit indices. */
    t->size = 0;
    put32(t, value32());
    put_bytes(t, "\x01\x01\x00\x00", 4);
    put32s(t, 5);
    put_bytes(t, "\x00\xff\xff\xff", 4);
    put32s(t, 2 + 5 + 3);
    assert_int_equal(t->size, 72);
    const bk_swap_target strata = {25, BSPKIT_VARIANT_WIDE_LUMPS};
    expect_lump_pair(&strata, BSPKIT_S_FACES, 2, t);
    expect_lump_pair(&strata, BSPKIT_S_ORIGINALFACES, 0, t);
    free(t);
}

/* Leafs, nodes, brush sides, edges, area portals across versions. */
static void test_tree_records_all_layouts(void **state)
{
    (void)state;
    twin *t = twin_new();
    const bk_swap_target strata = {25, BSPKIT_VARIANT_WIDE_LUMPS};
    for (int with_cube = 0; with_cube < 2; with_cube++) {
        t->size = 0;
        put32(t, value32());                /* contents */
        put16(t, value16());                /* cluster */
        put16(t, (uint16_t)(3 | (5 << 9))); /* area:9 = 3, flags:7 = 5, swapped as one short */
        put16s(t, 6 + 4 + 1);
        if (with_cube)
            put8s(t, 24);
        put_bytes(t, "\x33\x44", 2);
        assert_int_equal(t->size, with_cube ? 56 : 32);
        expect_lump_pair(&VBSP19, BSPKIT_S_LEAFS, with_cube ? 0 : 1, t);
    }
    t->size = 0;
    put32s(t, 14);
    expect_lump_pair(&strata, BSPKIT_S_LEAFS, 2, t);

    t->size = 0; /* dnode_t */
    put32s(t, 3);
    put16s(t, 9);
    put_bytes(t, "\x01\x02", 2);
    expect_lump_pair(&VBSP20, BSPKIT_S_NODES, 0, t);
    t->size = 0; /* Strata node */
    put32s(t, 3 + 6 + 2);
    put16(t, value16());
    put_bytes(t, "\x01\x02", 2);
    expect_lump_pair(&strata, BSPKIT_S_NODES, 1, t);

    t->size = 0; /* bevel as a short (v20, Left 4 Dead 2) */
    put16s(t, 4);
    expect_lump_pair(&VBSP20, BSPKIT_S_BRUSHSIDES, 0, t);
    const bk_swap_target l4d2 = {21, BSPKIT_VARIANT_L4D2_DIRECTORY};
    expect_lump_pair(&l4d2, BSPKIT_S_BRUSHSIDES, 0, t);
    t->size = 0; /* v21: bevel and thin bytes */
    put16s(t, 3);
    put_bytes(t, "\x01\x00", 2);
    const bk_swap_target v21 = {21, 0};
    expect_lump_pair(&v21, BSPKIT_S_BRUSHSIDES, 0, t);
    t->size = 0;
    put32s(t, 3);
    put_bytes(t, "\x01\x01\x00\x00", 4);
    expect_lump_pair(&strata, BSPKIT_S_BRUSHSIDES, 1, t);

    t->size = 0;
    put16s(t, 4);
    put32(t, value32());
    expect_lump_pair(&VBSP20, BSPKIT_S_AREAPORTALS, 0, t);
    t->size = 0;
    put32s(t, 2);
    expect_lump_pair(&strata, BSPKIT_S_EDGES, 1, t);
    free(t);
}

/* Occlusion (versions 1 and 2, and 0 when it fits), visibility, physdisp. */
static void test_variable_lumps(void **state)
{
    (void)state;
    twin *t = twin_new();
    for (int version = 0; version <= 2; version++) {
        t->size = 0;
        int record = version == 1 ? 9 : 10;
        put32(t, 2);
        put32s(t, 2 * record);
        put32(t, 3);
        put32s(t, 3 * 3);
        put32(t, 5);
        put32s(t, 5);
        expect_lump_pair(&VBSP20, BSPKIT_S_OCCLUSION, version, t);
    }

    t->size = 0;
    put32(t, 3);
    for (int i = 0; i < 6; i++)
        put32(t, 28 + (uint32_t)i);
    put8s(t, 13); /* compressed rows are bytes */
    expect_lump_pair(&VBSP20, BSPKIT_S_VISIBILITY, 0, t);

    t->size = 0;
    put16(t, 3);
    put16(t, 5);
    put16(t, 0x102);
    put16(t, 7);
    put8s(t, 5 + 0x102 + 7); /* displacement hulls are byte streams */
    expect_lump_pair(&VBSP20, BSPKIT_S_PHYSDISP, 0, t);
    free(t);
}

/* StaticPropLump_t of one version and record size, written field by field. */
static void put_static_prop(twin *t, int version, int size)
{
    size_t start = t->size;
    put32s(t, 6);                 /* Origin, Angles */
    put16s(t, 3);                 /* PropType, FirstLeaf, LeafCount */
    put_bytes(t, "\x06\x02", 2); /* Solid, Flags (TF2: Solid, unused) */
    put32(t, value32());          /* Skin */
    put32s(t, 5);                 /* FadeMin/MaxDist, LightingOrigin */
    if (version >= 5)
        put32(t, value32()); /* ForcedFadeScale */
    static const uint8_t levels[8] = {1, 2, 3, 4, 0xff, 0xfe, 0xfd, 0xfc};
    if ((version == 7 || version == 10) && size == 72) { /* Team Fortress 2 */
        put16s(t, 2);                                     /* Min/MaxDXLevel */
        put32(t, value32());                              /* Flags */
        put16s(t, 2);                                     /* lightmap resolution X/Y */
    } else if (version == 6 || version == 7) {
        put16s(t, 2); /* Min/MaxDXLevel */
        if (version == 7)
            put_bytes(t, "\x10\x20\x30\x40", 4); /* DiffuseModulation */
    } else if (version >= 8) {
        put_bytes(t, levels, 8); /* Min/Max CPU/GPU levels, DiffuseModulation */
        switch (size) {
        case 72: put32(t, 1); break;                 /* v9: DisableX360 */
        case 76: put32s(t, 2); break;                /* v10: DisableX360, FlagsEx; v11: FlagsEx, UniformScale */
        case 80: put32s(t, 3); break;                /* v11/v12: FlagsEx, UniformScale, one more */
        case 88: put32s(t, 2 + 3); break;            /* v13: + scale vector */
        default: break;                              /* v8 */
        }
    }
    assert_int_equal(t->size - start, size);
}

static void build_static_props(twin *t, int version, int size, int props)
{
    t->size = 0;
    put32(t, 2);
    put_name(t, "models/props_foliage/shrub_01a.mdl", 128);
    put_name(t, "models/props_c17/oildrum001.mdl", 128);
    put32(t, 3);
    for (int i = 0; i < 3; i++) {
        if (version >= 12)
            put32(t, value32()); /* Strata widens the leaf list */
        else
            put16(t, value16());
    }
    put32(t, (uint32_t)props);
    for (int i = 0; i < props; i++)
        put_static_prop(t, version, size);
}

static void test_static_props_every_layout(void **state)
{
    (void)state;
    static const int layouts[][2] = {{4, 56},  {5, 60},  {6, 64},  {7, 68},  {7, 72},  {8, 68}, {9, 72},
                                     {10, 72}, {10, 76}, {11, 76}, {11, 80}, {12, 80}, {13, 88}};
    twin *t = twin_new();
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        build_static_props(t, layouts[i][0], layouts[i][1], 3);
        expect_game_lump_pair(ID('s', 'p', 'r', 'p'), (uint16_t)layouts[i][0], t);
    }
    build_static_props(t, 6, 64, 0);
    expect_game_lump_pair(ID('s', 'p', 'r', 'p'), 6, t);

    /* A size no known layout has (one byte short), and versions bspkit does not know. */
    build_static_props(t, 6, 64, 2);
    expect_game_lump_unknown(ID('s', 'p', 'r', 'p'), 6, t->le, t->size - 2);
    expect_game_lump_unknown(ID('s', 'p', 'r', 'p'), 8, t->le, t->size);
    expect_game_lump_unknown(ID('s', 'p', 'r', 'p'), 3, t->le, t->size);
    expect_game_lump_unknown(ID('s', 'p', 'r', 'p'), 14, t->le, t->size);
    free(t);
}

static void test_detail_props_and_lighting(void **state)
{
    (void)state;
    twin *t = twin_new();
    put32(t, 2);
    put_name(t, "models/detail/grass.mdl", 128);
    put_name(t, "models/detail/rock.mdl", 128);
    put32(t, 2);
    put32s(t, 2 * 8); /* 4 Vector2D per sprite */
    put32(t, 3);
    for (int i = 0; i < 3; i++) {
        put32s(t, 6);                                          /* Origin, Angles */
        put16s(t, 2);                                          /* DetailModel, Leaf */
        put_bytes(t, "\x80\x40\x20\xfe", 4);                   /* Lighting */
        put32(t, value32());                                   /* LightStyles */
        put_bytes(t, "\x01\x02\x03\x04\x00\xaa\xbb\xcc\x01\xdd\xee\xff", 12); /* counts, pads, type */
        put_float(t, 0.75f);                                   /* flScale */
    }
    expect_game_lump_pair(ID('d', 'p', 'r', 'p'), 4, t);
    expect_game_lump_unknown(ID('d', 'p', 'r', 'p'), 3, t->le, t->size);

    t->size = 0;
    put32(t, 3);
    put8s(t, 15); /* ColorRGBExp32 + style, 5 bytes each */
    expect_game_lump_pair(ID('d', 'p', 'l', 't'), 0, t);
    expect_game_lump_pair(ID('d', 'p', 'l', 'h'), 0, t);
    expect_game_lump_unknown(ID('t', 'm', 'p', 'r'), 0, t->le, t->size);
    free(t);
}

/* ---- PHYSCOLLIDE ---- */

/* IVP bit-fields: the PC compiler packs the first field into the low bits,
 * the Xbox 360 compiler into the high bits (IVP's byte_swap() moves each
 * field to the mirrored position). These pack each order explicitly. */
static void put_surface_bits(twin *t, uint32_t deviation, uint32_t byte_size)
{
    put_pair(t, 4, deviation | byte_size << 8, deviation << 24 | byte_size);
}

static void put_ledge_bits(twin *t, uint32_t children, uint32_t compact, uint32_t dummy, uint32_t size16)
{
    put_pair(t, 4, children | compact << 2 | dummy << 4 | size16 << 8,
             children << 30 | compact << 28 | dummy << 24 | size16);
}

static void put_triangle_bits(twin *t, uint32_t index, uint32_t pierce, uint32_t material, uint32_t is_virtual)
{
    put_pair(t, 4, index | pierce << 12 | material << 24 | is_virtual << 31,
             index << 20 | pierce << 8 | material << 1 | is_virtual);
}

static void put_edge(twin *t, uint32_t start, int32_t opposite, uint32_t is_virtual)
{
    uint32_t opp = (uint32_t)opposite & 0x7FFF;
    put_pair(t, 4, start | opp << 16 | is_virtual << 31, start << 16 | opp << 1 | is_virtual);
}

static void put_ledge(twin *t, int32_t point_offset, int triangles, const uint8_t (*corners)[3])
{
    put32(t, (uint32_t)point_offset);
    put32(t, 0); /* client data */
    put_ledge_bits(t, 0, 1, 0x5, (uint32_t)(1 + triangles + 2));
    put16(t, (uint16_t)triangles);
    put16(t, value16()); /* for_future_use */
    for (int i = 0; i < triangles; i++) {
        put_triangle_bits(t, (uint32_t)i, (uint32_t)(0x7A0 + i), 0x2D, (uint32_t)(i & 1));
        for (int e = 0; e < 3; e++)
            put_edge(t, corners[i][e], e == 1 ? -3 - i : 2 + e, e == 2);
    }
}

static void put_node(twin *t, int32_t right, int32_t ledge)
{
    put32(t, (uint32_t)right);
    put32(t, (uint32_t)ledge);
    put32s(t, 4); /* center, radius */
    put_bytes(t, "\x11\x22\x33\x00", 4); /* box_sizes, free_0 */
}

/* A 308-byte compact surface: ledge A (2 triangles) at 48, ledge B at 96,
 * 6 points at 128 (the last one unreferenced), a root node with A as hull and
 * two terminal sons (left: B, right: A again) at 224, 252 and 280. */
#define SURFACE_BYTES 308

static void put_compact_surface(twin *t)
{
    size_t s = t->size;
    put32s(t, 7); /* mass centre, rotation inertia, radius */
    put_surface_bits(t, 0xEB, SURFACE_BYTES);
    put32(t, 224);        /* offset_ledgetree_root */
    put32s(t, 2);         /* dummy[0], dummy[1] */
    put32(t, 0x53505649); /* dummy[2]: 'IVPS' in little-endian bytes */
    static const uint8_t a_corners[2][3] = {{0, 1, 2}, {2, 3, 0}};
    static const uint8_t b_corners[1][3] = {{4, 1, 3}};
    put_ledge(t, 128 - 48, 2, a_corners);
    put_ledge(t, 128 - 96, 1, b_corners);
    assert_int_equal(t->size - s, 128);
    for (int p = 0; p < 5; p++)
        put32s(t, 4);
    put_bytes(t, "unreferenced pt", 16); /* nothing points here: left as it is */
    put_node(t, 280 - 224, 48 - 224);
    put_node(t, 0, 96 - 252);
    put_node(t, 0, 48 - 280);
    assert_int_equal(t->size - s, SURFACE_BYTES);
}

static void build_physcollide(twin *t)
{
    t->size = 0;
    /* Model 0: one solid with Valve's collide header. */
    size_t model = put32(t, 0);
    put32(t, 4 + 28 + SURFACE_BYTES);
    put32(t, 9);
    put32(t, 1);
    put32(t, 28 + SURFACE_BYTES);
    put_bytes(t, "VPHY", 4); /* written as an int: reversed in big-endian files */
    memcpy(t->be + t->size - 4, "YHPV", 4);
    put16(t, 0x100);
    put16(t, 0);
    put32(t, SURFACE_BYTES);
    put32s(t, 3); /* dragAxisAreas */
    put32(t, 0);  /* axisMapSize */
    put_compact_surface(t);
    put_bytes(t, "solid {}\n", 9); /* odd-length keydata: the next model is unaligned */
    assert_int_equal(t->size - model, 16 + 4 + 28 + SURFACE_BYTES + 9);
    /* Model 3: an older solid holding a bare compact surface. */
    put32(t, 3);
    put32(t, 4 + SURFACE_BYTES);
    put32(t, 0);
    put32(t, 1);
    put32(t, SURFACE_BYTES);
    put_compact_surface(t);
    /* Terminator. */
    put32(t, 0xFFFFFFFF);
    put32(t, 0xFFFFFFFF);
    put32(t, 0);
    put32(t, 0);
}

static void test_physcollide_field_exact(void **state)
{
    (void)state;
    twin *t = twin_new();
    build_physcollide(t);
    expect_lump_pair(&VBSP20, BSPKIT_S_PHYSCOLLIDE, 0, t);

    /* A MOPP solid (model type 1) and a Strata collide version: unknown, untouched. */
    size_t model_type = 16 + 4 + 6, version = 16 + 4 + 4;
    uint8_t *copy = malloc(t->size);
    assert_non_null(copy);
    memcpy(copy, t->le, t->size);
    copy[model_type] = 1;
    expect_lump_unknown(&VBSP20, BSPKIT_S_PHYSCOLLIDE, 0, copy, t->size, false);
    memcpy(copy, t->be, t->size);
    copy[version + 1] = 1;
    expect_lump_unknown(&VBSP20, BSPKIT_S_PHYSCOLLIDE, 0, copy, t->size, true);
    free(copy);
    free(t);
}

static void test_physcollide_corrupt(void **state)
{
    (void)state;
    twin *t = twin_new();
    build_physcollide(t);
    size_t solid = 16, surface = 16 + 4 + 28, root = surface + 32;

    /* The solid's size runs past the model's data. */
    twin *bad = twin_new();
    *bad = *t;
    patch32(bad, solid, 0x7FFFFFF0);
    expect_lump_failure(&VBSP20, BSPKIT_S_PHYSCOLLIDE, 0, bad->be, bad->size, true, BSPKIT_ERR_LUMP_SIZE,
                        (int64_t)solid);
    /* The root node offset points outside the surface. */
    *bad = *t;
    patch32(bad, root, SURFACE_BYTES);
    expect_lump_failure(&VBSP20, BSPKIT_S_PHYSCOLLIDE, 0, bad->le, bad->size, false, BSPKIT_ERR_LUMP_SIZE,
                        (int64_t)root);
    /* The left son's right son is the root again: a cycle, caught when the root is reached twice. */
    *bad = *t;
    patch32(bad, surface + 252, (uint32_t)(224 - 252));
    expect_lump_failure(&VBSP20, BSPKIT_S_PHYSCOLLIDE, 0, bad->be, bad->size, true, BSPKIT_ERR_LUMP_SIZE,
                        (int64_t)(surface + 224));
    /* A triangle's point index beyond the surface. */
    *bad = *t;
    size_t first_edge = surface + 48 + 16 + 4;
    bad->le[first_edge] = 0xFF, bad->le[first_edge + 1] = 0x7F;
    bad->be[first_edge] = 0x7F, bad->be[first_edge + 1] = 0xFF;
    expect_lump_failure(&VBSP20, BSPKIT_S_PHYSCOLLIDE, 0, bad->le, bad->size, false, BSPKIT_ERR_LUMP_SIZE,
                        (int64_t)first_edge);
    expect_lump_failure(&VBSP20, BSPKIT_S_PHYSCOLLIDE, 0, bad->be, bad->size, true, BSPKIT_ERR_LUMP_SIZE,
                        (int64_t)first_edge);
    /* No terminator. */
    expect_lump_failure(&VBSP20, BSPKIT_S_PHYSCOLLIDE, 0, t->le, t->size - 16, false, BSPKIT_ERR_LUMP_SIZE,
                        (int64_t)(t->size - 16));
    /* Every truncation fails cleanly or converts only what is there. */
    for (size_t n = 0; n < t->size; n++) {
        uint8_t *buf = malloc(n ? n : 1);
        assert_non_null(buf);
        memcpy(buf, t->be, n);
        bool known;
        bspkit_result r = bk_swap_lump(&VBSP20, BSPKIT_S_PHYSCOLLIDE, 0, buf, n, true, &known, NULL);
        if (n > 0)
            assert_int_equal(r, BSPKIT_ERR_LUMP_SIZE);
        assert_memory_equal(buf, t->be, n);
        free(buf);
    }
    free(bad);
    free(t);
}

/* ------------------------------------------------------------------------ */
/* 4. Unknown layouts, arguments, corrupt counts                              */
/* ------------------------------------------------------------------------ */

static void test_unknown_layouts_untouched(void **state)
{
    (void)state;
    uint8_t data[352];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 37 + 11);
    const bk_swap_target v21 = {21, 0};
    const bk_swap_target strata = {25, BSPKIT_VARIANT_WIDE_LUMPS};
    expect_lump_unknown(&VBSP20, 49, 0, data, 64, true);                    /* havok surface */
    expect_lump_unknown(&v21, 22, 0, data, 64, true);                       /* prop collision */
    expect_lump_unknown(&v21, 23, 0, data, 64, true);
    expect_lump_unknown(&VBSP20, BSPKIT_S_XZIPPAKFILE, 0, data, 64, true);
    expect_lump_unknown(&v21, BSPKIT_S_PHYSLEVEL, 0, data, 64, true);
    expect_lump_unknown(&VBSP20, BSPKIT_S_WORLDLIGHTS, 2, data, 88, true);
    expect_lump_unknown(&VBSP20, BSPKIT_S_LEAF_AMBIENT_LIGHTING, 36792, data, 28, true);
    expect_lump_unknown(&VBSP20, BSPKIT_S_OCCLUSION, 3, data, 12, true);
    expect_lump_unknown(&VBSP20, BSPKIT_S_OCCLUSION, 0, data, 12, true); /* version 0 that fits no layout */
    expect_lump_unknown(&strata, BSPKIT_S_DISPINFO, 1, data, 232, true);
    expect_lump_unknown(&strata, BSPKIT_S_OVERLAYS, 1, data, 352, true);
    expect_lump_unknown(&strata, BSPKIT_S_PHYSDISP, 2, data, 4, true);

    /* Pure byte lumps are known and unchanged. */
    static const int byte_lumps[] = {BSPKIT_S_ENTITIES, BSPKIT_S_LIGHTING, BSPKIT_S_LIGHTING_HDR, BSPKIT_S_PAKFILE,
                                     BSPKIT_S_TEXDATA_STRING_DATA, BSPKIT_S_DISP_LIGHTMAP_ALPHAS,
                                     BSPKIT_S_DISP_LIGHTMAP_SAMPLE_POSITIONS, BSPKIT_S_LEAF_AMBIENT_LIGHTING,
                                     BSPKIT_S_LEAF_AMBIENT_LIGHTING_HDR, BSPKIT_S_OVERLAY_SYSTEM_LEVELS};
    for (size_t i = 0; i < sizeof byte_lumps / sizeof byte_lumps[0]; i++) {
        uint8_t buf[56];
        memcpy(buf, data, sizeof buf);
        bool known = false;
        assert_int_equal(bk_swap_lump(&VBSP20, byte_lumps[i], 1, buf, sizeof buf, true, &known, NULL), BSPKIT_OK);
        assert_true(known);
        assert_memory_equal(buf, data, sizeof buf);
    }

    /* Arguments. */
    bool known;
    bspkit_error err;
    uint8_t buf[16] = {0};
    assert_int_equal(bk_swap_lump(&VBSP20, BSPKIT_S_GAME_LUMP, 0, buf, 16, true, &known, &err), BSPKIT_ERR_ARGUMENT);
    assert_int_equal(err.lump, BSPKIT_S_GAME_LUMP);
    assert_int_equal(bk_swap_lump(&VBSP20, 64, 0, buf, 16, true, &known, NULL), BSPKIT_ERR_ARGUMENT);
    assert_int_equal(bk_swap_lump(&VBSP20, -1, 0, buf, 16, true, &known, NULL), BSPKIT_ERR_ARGUMENT);
    assert_int_equal(bk_swap_lump(&VBSP20, 1, 0, buf, 16, true, NULL, NULL), BSPKIT_ERR_ARGUMENT);
    assert_int_equal(bk_swap_lump(NULL, 1, 0, buf, 16, true, &known, NULL), BSPKIT_ERR_ARGUMENT);
    assert_int_equal(bk_swap_lump(&VBSP20, 1, 0, NULL, 0, true, &known, NULL), BSPKIT_OK);
    assert_true(known);
}

static void test_corrupt_counts_fail_cleanly(void **state)
{
    (void)state;
    twin *t = twin_new();

    /* Records: not a whole number. */
    put32s(t, 11);
    expect_lump_failure(&VBSP20, BSPKIT_S_PLANES, 0, t->le, 44, false, BSPKIT_ERR_LUMP_SIZE, 40);
    expect_lump_failure(&VBSP20, BSPKIT_S_DISPINFO, 0, t->be, 44, true, BSPKIT_ERR_LUMP_SIZE, 0);

    /* Visibility: cluster count beyond the lump, negative, too short for the count. */
    t->size = 0;
    put32(t, 1000);
    put32s(t, 4);
    expect_lump_failure(&VBSP20, BSPKIT_S_VISIBILITY, 0, t->be, t->size, true, BSPKIT_ERR_VISIBILITY, 4);
    patch32(t, 0, 0x80000000u);
    expect_lump_failure(&VBSP20, BSPKIT_S_VISIBILITY, 0, t->le, t->size, false, BSPKIT_ERR_VISIBILITY, 0);
    expect_lump_failure(&VBSP20, BSPKIT_S_VISIBILITY, 0, t->le, 3, false, BSPKIT_ERR_VISIBILITY, 0);

    /* Occlusion: the polygon count runs past the end; bytes follow the indices. */
    t->size = 0;
    put32(t, 1);
    put32s(t, 10);
    put32(t, 1000);
    put32s(t, 3);
    expect_lump_failure(&VBSP20, BSPKIT_S_OCCLUSION, 2, t->be, t->size, true, BSPKIT_ERR_LUMP_SIZE, 48);
    patch32(t, 44, 0); /* no polygons */
    patch32(t, 48, 1); /* one vertex index, then 4 bytes too many */
    expect_lump_failure(&VBSP20, BSPKIT_S_OCCLUSION, 2, t->le, t->size, false, BSPKIT_ERR_LUMP_SIZE, 56);

    /* Physdisp: sizes beyond the data. */
    t->size = 0;
    put16(t, 2);
    put16(t, 4);
    put16(t, 9);
    put8s(t, 12);
    expect_lump_failure(&VBSP20, BSPKIT_S_PHYSDISP, 0, t->be, t->size, true, BSPKIT_ERR_LUMP_SIZE, 6);
    expect_lump_failure(&VBSP20, BSPKIT_S_PHYSDISP, 0, t->le, 4, false, BSPKIT_ERR_LUMP_SIZE, 2);

    /* Static props: dictionary and leaf counts that overrun. */
    build_static_props(t, 6, 64, 1);
    twin *bad = twin_new();
    *bad = *t;
    patch32(bad, 0, 1u << 24);
    expect_game_lump_failure(ID('s', 'p', 'r', 'p'), 6, bad->be, bad->size, true, 4);
    *bad = *t;
    patch32(bad, 4 + 256, 5000);
    expect_game_lump_failure(ID('s', 'p', 'r', 'p'), 6, bad->le, bad->size, false, 4 + 256 + 4);
    expect_game_lump_failure(ID('s', 'p', 'r', 'p'), 6, t->le, 100, false, 4);
    /* Detail props: an object count past the end. */
    t->size = 0;
    put32(t, 0);
    put32(t, 0);
    put32(t, 7);
    put32s(t, 13);
    expect_game_lump_failure(ID('d', 'p', 'r', 'p'), 4, t->be, t->size, true, 12);
    free(bad);
    free(t);
}

/* Record sizes agree with the decoders' layouts (the Source family's layout()) for every
 * version and variant combination bspkit distinguishes. */
static void test_record_sizes_match_decoders(void **state)
{
    (void)state;
    struct bspkit_map *map = calloc(1, sizeof *map);
    assert_non_null(map);
    static bk_lump lumps[BSPKIT_S_LUMP_COUNT]; /* the directory's entries, as opening would make them */
    map->lumps = lumps;
    static const int32_t versions[] = {17, 18, 19, 20, 21, 25};
    static const unsigned variants[] = {0, BSPKIT_VARIANT_L4D2_DIRECTORY, BSPKIT_VARIANT_WIDE_LUMPS};
    int compared = 0;
    for (size_t vi = 0; vi < sizeof versions / sizeof versions[0]; vi++)
        for (size_t vv = 0; vv < sizeof variants / sizeof variants[0]; vv++)
            for (int32_t lump_version = 0; lump_version <= 2; lump_version++) {
                map->format.family = BSPKIT_FAMILY_SOURCE;
                map->format.version = versions[vi];
                map->format.variant = variants[vv];
                map->lump_count = BSPKIT_S_LUMP_COUNT;
                bk_swap_target target = {versions[vi], variants[vv]};
                for (int lump = 0; lump < BSPKIT_S_LUMP_COUNT; lump++) {
                    map->lumps[lump].version = lump_version;
                    size_t decoder = bk_family_of(BSPKIT_FAMILY_SOURCE)->layout(map, lump).record_size;
                    size_t swap = bk_swap_record_size(&target, lump, lump_version);
                    if (decoder && swap) {
                        if (decoder != swap)
                            fail_msg("v%d variant %u lump %d version %d: decoder %zu bytes, conversion %zu",
                                     (int)versions[vi], variants[vv], lump, (int)lump_version, decoder, swap);
                        compared++;
                    } else if (decoder) {
                        /* Byte-only records, and Strata's dispinfo whose neighbours are undocumented. */
                        bool bytes = lump == BSPKIT_S_LEAF_AMBIENT_LIGHTING ||
                                     lump == BSPKIT_S_LEAF_AMBIENT_LIGHTING_HDR;
                        bool wide_disp = lump == BSPKIT_S_DISPINFO && (variants[vv] & BSPKIT_VARIANT_WIDE_LUMPS);
                        /* Strata lump versions bspkit has no wide layout for are reported unknown. */
                        bool wide_gate = (variants[vv] & BSPKIT_VARIANT_WIDE_LUMPS) && lump_version >= 1;
                        if (!bytes && !wide_disp && !wide_gate)
                            fail_msg("v%d lump %d version %d: decoder has %zu-byte records, conversion none",
                                     (int)versions[vi], lump, (int)lump_version, decoder);
                    }
                }
            }
    assert_true(compared > 500);
    free(map);
}

/* ------------------------------------------------------------------------ */
/* 3. The Xbox 360 map                                                       */
/* ------------------------------------------------------------------------ */

static bspkit_map *open_x360(void)
{
    if (access(X360_MAP, R_OK) != 0) {
        print_message("%s not present: Xbox 360 checks not run\n", X360_MAP);
        skip();
    }
    bspkit_map *map;
    bspkit_error err;
    if (bspkit_open_file(X360_MAP, NULL, &map, &err) != BSPKIT_OK)
        fail_msg("%s", err.message);
    assert_true(bspkit_map_format(map)->big_endian);
    return map;
}

static uint8_t *copy_of(const uint8_t *data, size_t size)
{
    uint8_t *c = malloc(size ? size : 1);
    assert_non_null(c);
    memcpy(c, data, size);
    return c;
}

/* Decodes `size` bytes of lump records through bspkit's own decoder. */
static void *decode_records(const bk_layout *l, const uint8_t *data, size_t size, bool be, size_t *count)
{
    *count = size / l->record_size;
    void *out = calloc(*count ? *count : 1, l->native_size);
    assert_non_null(out);
    l->decode(data, *count, be, out);
    return out;
}

static void test_x360_lumps_decode_the_same(void **state)
{
    (void)state;
    bspkit_map *map = open_x360();
    const bspkit_format *f = bspkit_map_format(map);
    bk_swap_target target = {f->version, f->variant};
    bspkit_error err;
    int decoded = 0;
    for (int lump = 0; lump < BSPKIT_S_LUMP_COUNT; lump++) {
        if (lump == BSPKIT_S_GAME_LUMP)
            continue;
        const uint8_t *be;
        size_t size;
        assert_int_equal(bspkit_lump_bytes(map, lump, &be, &size, &err), BSPKIT_OK);
        if (size == 0)
            continue;
        bspkit_lump_info info;
        bspkit_get_lump_info(map, lump, &info);
        uint8_t *le = copy_of(be, size);
        bool known = false;
        if (bk_swap_lump(&target, lump, info.version, le, size, true, &known, &err) != BSPKIT_OK)
            fail_msg("%s: %s", info.name, err.message);
        if (!known)
            fail_msg("%s: layout reported unknown", info.name);

        bk_layout l = bk_family_of(BSPKIT_FAMILY_SOURCE)->layout(map, lump);
        if (l.decode) {
            size_t n1, n2;
            void *from_be = decode_records(&l, be, size, true, &n1);
            void *from_le = decode_records(&l, le, size, false, &n2);
            assert_int_equal(n1, n2);
            if (memcmp(from_be, from_le, n1 * l.native_size) != 0)
                fail_msg("%s: records decode differently after conversion", info.name);
            free(from_be);
            free(from_le);
            decoded++;
        }
        /* Back again gives the original bytes. */
        assert_int_equal(bk_swap_lump(&target, lump, info.version, le, size, false, &known, &err), BSPKIT_OK);
        assert_memory_equal(le, be, size);
        free(le);
    }
    assert_true(decoded >= 15);
    bspkit_close(map);
}

/* Lumps without record decoders: compare chosen fields read in each order. */
static void test_x360_other_lumps_fieldwise(void **state)
{
    (void)state;
    bspkit_map *map = open_x360();
    const bspkit_format *f = bspkit_map_format(map);
    bk_swap_target target = {f->version, f->variant};
    bspkit_error err;
    const uint8_t *be;
    size_t size;
    bool known;

    /* Dispinfo: power, map face, neighbour index, allowed verts. */
    assert_int_equal(bspkit_lump_bytes(map, BSPKIT_S_DISPINFO, &be, &size, &err), BSPKIT_OK);
    assert_true(size >= 176 && size % 176 == 0);
    uint8_t *le = copy_of(be, size);
    assert_int_equal(bk_swap_lump(&target, BSPKIT_S_DISPINFO, 0, le, size, true, &known, &err), BSPKIT_OK);
    for (size_t i = 0; i < size; i += 176) {
        int32_t power = rd_i32(le + i + 20, false);
        assert_true(power >= 2 && power <= 4);
        assert_int_equal(power, rd_i32(be + i + 20, true));
        assert_int_equal(rd_u16(le + i + 36, false), rd_u16(be + i + 36, true));
        assert_int_equal(rd_u16(le + i + 48, false), rd_u16(be + i + 48, true));
        assert_int_equal(le[i + 50], be[i + 50]);
        assert_int_equal(rd_u32(le + i + 136, false), rd_u32(be + i + 136, true));
    }
    free(le);

    /* Visibility: cluster count and offsets. */
    assert_int_equal(bspkit_lump_bytes(map, BSPKIT_S_VISIBILITY, &be, &size, &err), BSPKIT_OK);
    le = copy_of(be, size);
    assert_int_equal(bk_swap_lump(&target, BSPKIT_S_VISIBILITY, 0, le, size, true, &known, &err), BSPKIT_OK);
    int32_t clusters = rd_i32(le, false);
    assert_true(clusters > 0 && clusters == rd_i32(be, true));
    for (int32_t i = 0; i < 2 * clusters; i++) {
        int32_t ofs = rd_i32(le + 4 + 4 * i, false);
        assert_true(ofs >= 4 + 8 * clusters && (size_t)ofs < size);
    }
    assert_memory_equal(le + 4 + 8 * clusters, be + 4 + 8 * clusters, size - 4 - 8 * (size_t)clusters);
    free(le);

    /* Physdisp: count and sizes add up to the lump. */
    assert_int_equal(bspkit_lump_bytes(map, BSPKIT_S_PHYSDISP, &be, &size, &err), BSPKIT_OK);
    le = copy_of(be, size);
    assert_int_equal(bk_swap_lump(&target, BSPKIT_S_PHYSDISP, 0, le, size, true, &known, &err), BSPKIT_OK);
    size_t count = rd_u16(le, false), total = 2 + 2 * count;
    for (size_t i = 0; i < count; i++)
        total += rd_u16(le + 2 + 2 * i, false);
    assert_int_equal(total, size);
    free(le);

    /* Primitives: index ranges inside PRIMINDICES. */
    const uint8_t *indices;
    size_t index_bytes;
    assert_int_equal(bspkit_lump_bytes(map, BSPKIT_S_PRIMINDICES, &indices, &index_bytes, &err), BSPKIT_OK);
    assert_int_equal(bspkit_lump_bytes(map, BSPKIT_S_PRIMITIVES, &be, &size, &err), BSPKIT_OK);
    assert_true(size > 0 && size % 10 == 0);
    le = copy_of(be, size);
    assert_int_equal(bk_swap_lump(&target, BSPKIT_S_PRIMITIVES, 0, le, size, true, &known, &err), BSPKIT_OK);
    for (size_t i = 0; i < size; i += 10) {
        assert_true(le[i] <= 1);
        assert_true(rd_u16(le + i + 2, false) + rd_u16(le + i + 4, false) <= index_bytes / 2);
    }
    free(le);
    bspkit_close(map);
}

/* Physcollide: the converted lump reads as a PC lump. */
static void test_x360_physcollide(void **state)
{
    (void)state;
    bspkit_map *map = open_x360();
    const bspkit_format *f = bspkit_map_format(map);
    bk_swap_target target = {f->version, f->variant};
    bspkit_error err;
    const uint8_t *be;
    size_t size;
    bool known;
    assert_int_equal(bspkit_lump_bytes(map, BSPKIT_S_PHYSCOLLIDE, &be, &size, &err), BSPKIT_OK);
    uint8_t *le = copy_of(be, size);
    assert_int_equal(bk_swap_lump(&target, BSPKIT_S_PHYSCOLLIDE, 0, le, size, true, &known, &err), BSPKIT_OK);
    assert_true(known);

    size_t pos = 0;
    int solids_seen = 0;
    while (rd_i32(le + pos, false) != -1) {
        int32_t data_size = rd_i32(le + pos + 4, false), key_size = rd_i32(le + pos + 8, false);
        int32_t solids = rd_i32(le + pos + 12, false);
        assert_int_equal(data_size, rd_i32(be + pos + 4, true));
        size_t q = pos + 16;
        for (int32_t i = 0; i < solids; i++, solids_seen++) {
            int32_t solid = rd_i32(le + q, false);
            const uint8_t *s = le + q + 4;
            assert_memory_equal(s, "VPHY", 4);
            assert_int_equal(rd_u16(s + 4, false), 0x100);
            uint32_t surface_size = rd_u32(s + 8, false);
            const uint8_t *surface = s + 28;
            /* PC packing: byte_size in the high 24 bits, and 'IVPS' in order. */
            assert_int_equal(rd_u32(surface + 28, false) >> 8, surface_size);
            assert_memory_equal(surface + 44, "IVPS", 4);
            /* The first ledge's triangles number themselves 0, 1, 2... in their low 12 bits. */
            const uint8_t *ledge = surface + 48;
            int16_t triangles = rd_i16(ledge + 12, false);
            assert_true(triangles > 0);
            /* Each bit-field read the PC way (low bits first) equals the console way (high bits first). */
            const uint8_t *ledge_be = be + (ledge - le);
            uint32_t bits_le = rd_u32(ledge + 8, false), bits_be = rd_u32(ledge_be + 8, true);
            assert_int_equal(bits_le & 3, bits_be >> 30);                /* has_chilren_flag */
            assert_int_equal((bits_le >> 2) & 3, (bits_be >> 28) & 3);   /* is_compact_flag */
            assert_int_equal(bits_le >> 8, bits_be & 0xFFFFFF);          /* size_div_16 */
            assert_true((bits_le >> 8) >= (uint32_t)(1 + triangles));
            for (int16_t k = 0; k < triangles; k++) {
                uint32_t tri_le = rd_u32(ledge + 16 + 16 * k, false), tri_be = rd_u32(ledge_be + 16 + 16 * k, true);
                assert_int_equal(tri_le & 0xFFF, (uint32_t)k);            /* tri_index */
                assert_int_equal(tri_be >> 20, (uint32_t)k);
                assert_int_equal((tri_le >> 12) & 0xFFF, (tri_be >> 8) & 0xFFF); /* pierce_index */
                assert_int_equal((tri_le >> 24) & 0x7F, (tri_be >> 1) & 0x7F);  /* material_index */
                for (int e = 0; e < 3; e++) {
                    uint32_t edge_le = rd_u32(ledge + 20 + 16 * k + 4 * e, false);
                    uint32_t edge_be = rd_u32(ledge_be + 20 + 16 * k + 4 * e, true);
                    assert_int_equal(edge_le & 0xFFFF, edge_be >> 16);            /* start_point_index */
                    assert_int_equal((edge_le >> 16) & 0x7FFF, (edge_be >> 1) & 0x7FFF); /* opposite_index */
                    assert_int_equal(edge_le >> 31, edge_be & 1);                /* is_virtual */
                }
            }
            /* Points: floats read the same in both orders. */
            int32_t points = rd_i32(ledge, false);
            uint32_t first_point = rd_u32(ledge + 16 + 4, false) & 0xFFFF;
            const uint8_t *p_le = ledge + points + 16 * first_point;
            const uint8_t *p_be = be + (p_le - le);
            for (int c = 0; c < 4; c++)
                assert_int_equal(rd_u32(p_le + 4 * c, false), rd_u32(p_be + 4 * c, true));
            q += 4 + (size_t)solid;
        }
        pos = q + (size_t)key_size;
        assert_memory_equal(le + q, be + q, (size_t)key_size); /* keydata text unchanged */
    }
    assert_true(solids_seen > 0);

    /* Back to big-endian gives the original bytes. */
    assert_int_equal(bk_swap_lump(&target, BSPKIT_S_PHYSCOLLIDE, 0, le, size, false, &known, &err), BSPKIT_OK);
    assert_memory_equal(le, be, size);
    free(le);
    bspkit_close(map);
}

static void test_x360_game_lumps(void **state)
{
    (void)state;
    bspkit_map *map = open_x360();
    const bspkit_format *f = bspkit_map_format(map);
    bk_swap_target target = {f->version, f->variant};
    bspkit_error err;
    const bspkit_game_lump *gl;
    size_t count;
    assert_int_equal(bspkit_get_game_lumps(map, &gl, &count, &err), BSPKIT_OK);
    int static_props = 0;
    for (size_t i = 0; i < count; i++) {
        const uint8_t *be;
        size_t size;
        assert_int_equal(bspkit_game_lump_bytes(map, i, &be, &size, &err), BSPKIT_OK);
        uint8_t *le = copy_of(be, size);
        bool known;
        if (bk_swap_game_lump(&target, gl[i].id, gl[i].version, le, size, true, &known, &err) != BSPKIT_OK)
            fail_msg("game lump %zu: %s", i, err.message);
        assert_true(known);
        if (gl[i].id == ID('s', 'p', 'r', 'p')) {
            uint32_t names = rd_u32(le, false);
            assert_int_equal(names, rd_u32(be, true));
            assert_memory_equal(le + 4, be + 4, 128 * names); /* names unchanged */
            assert_non_null(memchr(le + 4, '\0', 128));
            size_t at = 4 + 128 * names;
            uint32_t leafs = rd_u32(le + at, false);
            assert_int_equal(leafs, rd_u32(be + at, true));
            for (uint32_t k = 0; k < leafs; k++)
                assert_int_equal(rd_u16(le + at + 4 + 2 * k, false), rd_u16(be + at + 4 + 2 * k, true));
            at += 4 + 2 * leafs;
            uint32_t props = rd_u32(le + at, false);
            assert_int_equal(props, rd_u32(be + at, true));
            assert_int_equal(size - at - 4, props * 64); /* version 6 records */
            for (uint32_t k = 0; k < props; k++) {
                const uint8_t *pl = le + at + 4 + 64 * k, *pb = be + at + 4 + 64 * k;
                for (int c = 0; c < 6; c++)
                    assert_int_equal(rd_u32(pl + 4 * c, false), rd_u32(pb + 4 * c, true)); /* origin, angles */
                assert_true(rd_u16(pl + 24, false) < names);                              /* PropType */
                assert_int_equal(rd_u16(pl + 26, false) + rd_u16(pl + 28, false) <= leafs, 1);
                assert_int_equal(pl[30], pb[30]);
                assert_int_equal(rd_u32(pl + 56, false), 0x3f800000); /* ForcedFadeScale 1.0 */
            }
            static_props++;
        }
        assert_int_equal(bk_swap_game_lump(&target, gl[i].id, gl[i].version, le, size, false, &known, &err),
                         BSPKIT_OK);
        assert_memory_equal(le, be, size);
        free(le);
    }
    assert_int_equal(static_props, 1);
    bspkit_close(map);
}

/* Truncated and mutated copies of the real variable-length lumps never read
 * out of bounds (the suite runs under ASan) and leave data untouched on failure. */
static void test_x360_truncated_and_mutated(void **state)
{
    (void)state;
    bspkit_map *map = open_x360();
    const bspkit_format *f = bspkit_map_format(map);
    bk_swap_target target = {f->version, f->variant};
    static const int lumps[] = {BSPKIT_S_VISIBILITY, BSPKIT_S_PHYSDISP, BSPKIT_S_PHYSCOLLIDE, BSPKIT_S_OCCLUSION,
                                BSPKIT_S_FACES_HDR};
    uint32_t seed = 12345;
    for (size_t li = 0; li < sizeof lumps / sizeof lumps[0]; li++) {
        const uint8_t *be;
        size_t size;
        bspkit_error err;
        assert_int_equal(bspkit_lump_bytes(map, lumps[li], &be, &size, &err), BSPKIT_OK);
        bspkit_lump_info info;
        bspkit_get_lump_info(map, lumps[li], &info);
        size_t step = size > 2000 ? size / 1000 : 1;
        for (size_t n = 0; n < size; n += step) {
            uint8_t *buf = copy_of(be, n);
            bool known;
            bspkit_result r = bk_swap_lump(&target, lumps[li], info.version, buf, n, true, &known, &err);
            if (r != BSPKIT_OK)
                assert_memory_equal(buf, be, n);
            free(buf);
        }
        for (int m = 0; m < 300; m++) {
            uint8_t *buf = copy_of(be, size), *orig = copy_of(be, size);
            for (int k = 0; k < 3; k++) {
                seed = seed * 1103515245u + 12345u;
                size_t at = (seed >> 8) % size;
                buf[at] ^= (uint8_t)(1u << (seed & 7));
                orig[at] = buf[at];
            }
            bool known;
            bspkit_result r = bk_swap_lump(&target, lumps[li], info.version, buf, size, true, &known, &err);
            if (r != BSPKIT_OK || !known)
                assert_memory_equal(buf, orig, size);
            free(buf);
            free(orig);
        }
    }
    bspkit_close(map);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sample_room_orders_convert_into_each_other),
        cmocka_unit_test(test_dispinfo_and_small_records),
        cmocka_unit_test(test_faces_all_layouts),
        cmocka_unit_test(test_tree_records_all_layouts),
        cmocka_unit_test(test_variable_lumps),
        cmocka_unit_test(test_static_props_every_layout),
        cmocka_unit_test(test_detail_props_and_lighting),
        cmocka_unit_test(test_physcollide_field_exact),
        cmocka_unit_test(test_physcollide_corrupt),
        cmocka_unit_test(test_unknown_layouts_untouched),
        cmocka_unit_test(test_corrupt_counts_fail_cleanly),
        cmocka_unit_test(test_record_sizes_match_decoders),
        cmocka_unit_test(test_x360_lumps_decode_the_same),
        cmocka_unit_test(test_x360_other_lumps_fieldwise),
        cmocka_unit_test(test_x360_physcollide),
        cmocka_unit_test(test_x360_game_lumps),
        cmocka_unit_test(test_x360_truncated_and_mutated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
