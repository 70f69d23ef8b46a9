#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/cpu.h"
#include "bspkit/bspkit.h"
#include "core/entities.h"

/* ------------------------------------------------------------------------ */
/* A tiny GoldSrc BSP30 map built byte by byte                              */
/* ------------------------------------------------------------------------ */

/* One triangle (0,0,0) (64,0,0) (0,64,0) on plane z=0, in the one visible
 * leaf, lit with a 5x5 RGB lightmap (texture vectors 1:1, so the extents
 * are 0..64 on both axes: floor(0/16)..ceil(64/16) = 5 luxels each). */
enum { NLUMPS = 15, LIGHT_BYTES = 5 * 5 * 3 };

typedef struct buf {
    uint8_t *data;
    size_t size, cap;
} buf;

typedef struct testmap {
    buf lump[NLUMPS];
    uint8_t *file;
    size_t file_size;
    uint32_t ofs[NLUMPS]; /* absolute offsets after assemble() */
    bspkit_map *map;
} testmap;

static void put(buf *b, const void *p, size_t n)
{
    if (b->size + n > b->cap) {
        b->cap = (b->size + n) * 2 + 64;
        b->data = realloc(b->data, b->cap);
        assert_non_null(b->data);
    }
    memcpy(b->data + b->size, p, n);
    b->size += n;
}

static void put_u8(buf *b, uint8_t v) { put(b, &v, 1); }
static void put_u16(buf *b, uint16_t v)
{
    uint8_t p[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    put(b, p, 2);
}
static void put_i16(buf *b, int16_t v) { put_u16(b, (uint16_t)v); }
static void put_u32(buf *b, uint32_t v)
{
    uint8_t p[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(b, p, 4);
}
static void put_i32(buf *b, int32_t v) { put_u32(b, (uint32_t)v); }
static void put_f32(buf *b, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put_u32(b, u);
}

static void wr_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static void wr_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Record sizes of the BSP30 layout, for computing expected offsets. */
enum {
    SZ_PLANE = 20, SZ_VERTEX = 12, SZ_NODE = 24, SZ_TEXINFO = 40, SZ_FACE = 20, SZ_CLIPNODE = 8,
    SZ_LEAF = 28, SZ_MARK = 2, SZ_EDGE = 4, SZ_SURFEDGE = 4, SZ_MODEL = 64
};

static const char base_entities[] = "{\n\"classname\" \"worldspawn\"\n}\n";

/* The room's bounds, as nodes and leafs store them. */
static const int16_t room_box[6] = {-8, -8, -8, 72, 72, 8};

/* One BSP29 node: plane, children, the room's box, faces first .. first + num. */
static void put_node(buf *b, uint32_t plane, int16_t front, int16_t back, uint16_t first_face, uint16_t num_faces)
{
    put_u32(b, plane);
    put_i16(b, front);
    put_i16(b, back);
    for (int k = 0; k < 6; k++)
        put_i16(b, room_box[k]);
    put_u16(b, first_face);
    put_u16(b, num_faces);
}

static void build_lumps(testmap *t, const char *entities)
{
    memset(t, 0, sizeof *t);
    buf *L = t->lump;

    put(&L[BSPKIT_Q_ENTITIES], entities, strlen(entities) + 1);

    /* planes: z=0 and x=0 */
    const float planes[2][4] = {{0, 0, 1, 0}, {1, 0, 0, 0}};
    const int32_t types[2] = {2, 0};
    for (int i = 0; i < 2; i++) {
        for (int k = 0; k < 4; k++)
            put_f32(&L[BSPKIT_Q_PLANES], planes[i][k]);
        put_i32(&L[BSPKIT_Q_PLANES], types[i]);
    }

    /* textures: one external miptex */
    put_i32(&L[BSPKIT_Q_TEXTURES], 1);
    put_i32(&L[BSPKIT_Q_TEXTURES], 8);
    char name[16] = "test";
    put(&L[BSPKIT_Q_TEXTURES], name, 16);
    put_u32(&L[BSPKIT_Q_TEXTURES], 16);
    put_u32(&L[BSPKIT_Q_TEXTURES], 16);
    for (int i = 0; i < 4; i++)
        put_u32(&L[BSPKIT_Q_TEXTURES], 0);

    const float verts[3][3] = {{0, 0, 0}, {64, 0, 0}, {0, 64, 0}};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            put_f32(&L[BSPKIT_Q_VERTEXES], verts[i][k]);

    /* visibility: leaf 1 sees itself */
    put_u8(&L[BSPKIT_Q_VISIBILITY], 0x01);

    /* node 0: front = leaf 1, back = leaf 0 */
    put_node(&L[BSPKIT_Q_NODES], 0, -2, -1, 0, 1);

    const float tv[8] = {1, 0, 0, 0, 0, 1, 0, 0};
    for (int k = 0; k < 8; k++)
        put_f32(&L[BSPKIT_Q_TEXINFO], tv[k]);
    put_u32(&L[BSPKIT_Q_TEXINFO], 0); /* miptex */
    put_u32(&L[BSPKIT_Q_TEXINFO], 0); /* flags */

    put_u16(&L[BSPKIT_Q_FACES], 0); /* plane */
    put_u16(&L[BSPKIT_Q_FACES], 0); /* side */
    put_i32(&L[BSPKIT_Q_FACES], 0); /* first edge */
    put_u16(&L[BSPKIT_Q_FACES], 3); /* num edges */
    put_u16(&L[BSPKIT_Q_FACES], 0); /* texinfo */
    const uint8_t styles[4] = {0, 255, 255, 255};
    put(&L[BSPKIT_Q_FACES], styles, 4);
    put_i32(&L[BSPKIT_Q_FACES], 0); /* light offset */

    for (int i = 0; i < LIGHT_BYTES; i++)
        put_u8(&L[BSPKIT_Q_LIGHTING], (uint8_t)i);

    put_i32(&L[BSPKIT_Q_CLIPNODES], 0);
    put_i16(&L[BSPKIT_Q_CLIPNODES], -1);
    put_i16(&L[BSPKIT_Q_CLIPNODES], -2);

    /* leaf 0: the shared solid leaf; leaf 1: empty, holds the face */
    const int32_t contents[2] = {-2, -1}, visofs[2] = {-1, 0};
    const uint16_t nmark[2] = {0, 1};
    for (int i = 0; i < 2; i++) {
        put_i32(&L[BSPKIT_Q_LEAFS], contents[i]);
        put_i32(&L[BSPKIT_Q_LEAFS], visofs[i]);
        for (int k = 0; k < 6; k++)
            put_i16(&L[BSPKIT_Q_LEAFS], room_box[k]);
        put_u16(&L[BSPKIT_Q_LEAFS], 0);
        put_u16(&L[BSPKIT_Q_LEAFS], nmark[i]);
        put_u32(&L[BSPKIT_Q_LEAFS], 0);
    }

    put_u16(&L[BSPKIT_Q_MARKSURFACES], 0);

    const uint16_t edges[4][2] = {{0, 0}, {0, 1}, {1, 2}, {2, 0}};
    for (int i = 0; i < 4; i++) {
        put_u16(&L[BSPKIT_Q_EDGES], edges[i][0]);
        put_u16(&L[BSPKIT_Q_EDGES], edges[i][1]);
    }

    for (int32_t i = 1; i <= 3; i++)
        put_i32(&L[BSPKIT_Q_SURFEDGES], i);

    const float mbox[9] = {-8, -8, -8, 72, 72, 8, 0, 0, 0};
    for (int k = 0; k < 9; k++)
        put_f32(&L[BSPKIT_Q_MODELS], mbox[k]);
    for (int k = 0; k < 4; k++)
        put_i32(&L[BSPKIT_Q_MODELS], 0); /* head nodes */
    put_i32(&L[BSPKIT_Q_MODELS], 1);     /* vis leafs */
    put_i32(&L[BSPKIT_Q_MODELS], 0);     /* first face */
    put_i32(&L[BSPKIT_Q_MODELS], 1);     /* num faces */
}

/* Lays the lumps out after the header, 4-byte aligned, in lump order. */
static void assemble(testmap *t)
{
    size_t size = 4 + NLUMPS * 8;
    for (int i = 0; i < NLUMPS; i++) {
        size = (size + 3) & ~(size_t)3;
        t->ofs[i] = (uint32_t)size;
        size += t->lump[i].size;
    }
    size = (size + 3) & ~(size_t)3;
    t->file = calloc(1, size);
    assert_non_null(t->file);
    t->file_size = size;
    wr_u32(t->file, 30);
    for (int i = 0; i < NLUMPS; i++) {
        wr_u32(t->file + 4 + i * 8, t->ofs[i]);
        wr_u32(t->file + 8 + i * 8, (uint32_t)t->lump[i].size);
        if (t->lump[i].size)
            memcpy(t->file + t->ofs[i], t->lump[i].data, t->lump[i].size);
    }
}

static void open_map(testmap *t)
{
    assemble(t);
    bspkit_error err;
    bspkit_result r = bspkit_open_memory(t->file, t->file_size, NULL, &t->map, &err);
    if (r != BSPKIT_OK)
        fail_msg("open failed: %s", err.message);
}

static void free_map(testmap *t)
{
    bspkit_close(t->map);
    free(t->file);
    for (int i = 0; i < NLUMPS; i++)
        free(t->lump[i].data);
    memset(t, 0, sizeof *t);
}

/* Pointer to byte `at` of record `rec` of a lump, for patching before assembly. */
static uint8_t *field(testmap *t, int lump, size_t rec_size, size_t rec, size_t at)
{
    assert_true(rec * rec_size + at < t->lump[lump].size);
    return t->lump[lump].data + rec * rec_size + at;
}

static void print_report(const bspkit_report *rep)
{
    for (size_t i = 0; i < rep->count; i++)
        print_message("  [%s] lump %d record %lld offset %lld: %s\n",
                      rep->problems[i].severity == BSPKIT_SEVERITY_ERROR ? "error" : "warning",
                      rep->problems[i].lump, (long long)rep->problems[i].record,
                      (long long)rep->problems[i].offset, rep->problems[i].message);
}

static void validate_ok(testmap *t, bspkit_report *rep)
{
    bspkit_error err;
    assert_int_equal(bspkit_validate(t->map, rep, &err), BSPKIT_OK);
    size_t total = rep->errors + rep->warnings;
    assert_int_equal(rep->count, total < 1000 ? total : 1000);
}

/* Validates and checks that exactly one problem was found, and what it is. */
static void expect_one(testmap *t, bspkit_severity sev, bspkit_result code, int lump, int64_t record,
                       int64_t offset, const char *needle)
{
    bspkit_report rep;
    validate_ok(t, &rep);
    if (rep.count != 1)
        print_report(&rep);
    assert_int_equal(rep.count, 1);
    assert_int_equal(rep.errors, sev == BSPKIT_SEVERITY_ERROR ? 1 : 0);
    assert_int_equal(rep.warnings, sev == BSPKIT_SEVERITY_WARNING ? 1 : 0);
    const bspkit_problem *p = &rep.problems[0];
    assert_int_equal(p->severity, sev);
    assert_int_equal(p->code, code);
    assert_int_equal(p->lump, lump);
    assert_int_equal(p->record, record);
    assert_int_equal(p->offset, offset);
    if (needle && !strstr(p->message, needle))
        fail_msg("message \"%s\" lacks \"%s\"", p->message, needle);
    bspkit_report_free(&rep);
    assert_null(rep.problems);
    assert_int_equal(rep.count, 0);
}

/* Validation finds nothing at all. */
static void expect_clean(testmap *t)
{
    bspkit_report rep;
    validate_ok(t, &rep);
    if (rep.count)
        print_report(&rep);
    assert_int_equal(rep.count, 0);
    bspkit_report_free(&rep);
}

/* ------------------------------------------------------------------------ */
/* Synthetic maps                                                            */
/* ------------------------------------------------------------------------ */

static void test_clean_map(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    open_map(&t);
    bspkit_report rep;
    validate_ok(&t, &rep);
    if (rep.count)
        print_report(&rep);
    assert_int_equal(rep.errors, 0);
    assert_int_equal(rep.warnings, 0);
    assert_int_equal(rep.count, 0);
    bspkit_report_free(&rep);
    free_map(&t);
}

static void test_surfedge_past_edges(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    wr_u32(field(&t, BSPKIT_Q_SURFEDGES, SZ_SURFEDGE, 1, 0), 7);
    open_map(&t);
    expect_one(&t, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_Q_SURFEDGES, 1,
               t.ofs[BSPKIT_Q_SURFEDGES] + 1 * SZ_SURFEDGE, "edge 7 exceeds 4 edges");
    free_map(&t);
}

static void test_surfedge_int_min(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    wr_u32(field(&t, BSPKIT_Q_SURFEDGES, SZ_SURFEDGE, 2, 0), 0x80000000u);
    open_map(&t);
    expect_one(&t, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_Q_SURFEDGES, 2,
               t.ofs[BSPKIT_Q_SURFEDGES] + 2 * SZ_SURFEDGE, "surfedge 2");
    free_map(&t);
}

/* Eleven surfedges, so that they fill whole groups of four and a tail: the
 * largest fitting values (+3 and -3, of 4 edges) pass, and a value at the
 * limit (4 or -4) or INT32_MIN is found at every position. */
static testmap eleven_surfedges(void)
{
    testmap t;
    build_lumps(&t, base_entities);
    for (int i = 0; i < 8; i++)
        put_i32(&t.lump[BSPKIT_Q_SURFEDGES], i % 2 ? -3 : 3);
    return t;
}

/* `body` with the AVX2 checks (eight indices, two nodes a step) and without. */
static void on_both_paths(void (*body)(void))
{
    for (int avx2 = 0; avx2 < 2; avx2++) {
        bk_cpu_allow_avx2(avx2 == 1);
        body();
    }
    bk_cpu_allow_avx2(true);
}

static void surfedge_limit_every_position_once(void)
{
    testmap t = eleven_surfedges();
    open_map(&t);
    expect_clean(&t);
    free_map(&t);
    static const uint32_t bad[] = {4, (uint32_t)-4, 0x80000000u};
    for (size_t at = 0; at < 11; at++)
        for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
            t = eleven_surfedges();
            wr_u32(field(&t, BSPKIT_Q_SURFEDGES, SZ_SURFEDGE, at, 0), bad[b]);
            open_map(&t);
            expect_one(&t, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_Q_SURFEDGES, (int64_t)at,
                       t.ofs[BSPKIT_Q_SURFEDGES] + (int64_t)at * SZ_SURFEDGE, "surfedge");
            free_map(&t);
        }
}

static void test_surfedge_limit_every_position(void **state)
{
    (void)state;
    on_both_paths(surfedge_limit_every_position_once);
}

static void test_edge_vertex_past_vertexes(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    wr_u16(field(&t, BSPKIT_Q_EDGES, SZ_EDGE, 1, 2), 3);
    open_map(&t);
    expect_one(&t, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_Q_EDGES, 1, t.ofs[BSPKIT_Q_EDGES] + SZ_EDGE,
               "v[1] 3 exceeds 3 vertexes");
    free_map(&t);
}

/* Edge 0 is the compilers' unused dummy: whatever it holds is not an error. */
static void test_edge0_unused(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    wr_u16(field(&t, BSPKIT_Q_EDGES, SZ_EDGE, 0, 0), 9);
    wr_u16(field(&t, BSPKIT_Q_EDGES, SZ_EDGE, 0, 2), 9);
    open_map(&t);
    expect_clean(&t);
    free_map(&t);
}

/* --lint (BSPKIT_VALIDATE_COMPILER_LINT): a node whose children are both
 * leaf 1 and a vertex 0.5 units off the face's plane z = 0 are reported as
 * warnings on request only; the default check finds nothing. */
static void test_compiler_lint(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    uint8_t *children = field(&t, BSPKIT_Q_NODES, SZ_NODE, 0, 4);
    wr_u16(children + 2, (uint16_t)(int16_t)-2); /* children[1] = children[0] = leaf 1 */
    wr_u16(children, (uint16_t)(int16_t)-2);
    float z = 0.5f;
    uint32_t bits;
    memcpy(&bits, &z, 4);
    wr_u32(field(&t, BSPKIT_Q_VERTEXES, SZ_VERTEX, 2, 8), bits);
    open_map(&t);
    expect_clean(&t);
    bspkit_report rep;
    bspkit_error err;
    assert_int_equal(bspkit_validate_ex(t.map, BSPKIT_VALIDATE_COMPILER_LINT, &rep, &err), BSPKIT_OK);
    if (rep.count != 2)
        print_report(&rep);
    assert_int_equal(rep.count, 2);
    assert_int_equal(rep.warnings, 2);
    bool node = false, off = false;
    for (size_t i = 0; i < rep.count; i++) {
        node |= strstr(rep.problems[i].message, "node 0: both children are -2") != NULL;
        off |= strstr(rep.problems[i].message, "1 faces have a vertex more than 0.1 units off their plane") != NULL;
    }
    assert_true(node && off);
    bspkit_report_free(&rep);
    free_map(&t);
}

/* What hlcsg leaves when the compile stops after CSG: planes, texinfo,
 * textures, entities and the dummy edge 0 = (0, 0) with no vertex at all.
 * One problem says so; nothing else is reported. */
static void test_unfinished_compile(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    static const int gone[] = {BSPKIT_Q_VERTEXES, BSPKIT_Q_VISIBILITY, BSPKIT_Q_NODES, BSPKIT_Q_FACES,
                               BSPKIT_Q_LIGHTING, BSPKIT_Q_CLIPNODES, BSPKIT_Q_LEAFS, BSPKIT_Q_MARKSURFACES,
                               BSPKIT_Q_SURFEDGES, BSPKIT_Q_MODELS};
    for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++)
        t.lump[gone[i]].size = 0;
    t.lump[BSPKIT_Q_EDGES].size = SZ_EDGE;
    memset(t.lump[BSPKIT_Q_EDGES].data, 0, SZ_EDGE);
    open_map(&t);
    expect_one(&t, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INCOMPLETE, -1, -1, -1, "unfinished compile");
    free_map(&t);
}

static void test_node_child_past_leafs(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    wr_u16(field(&t, BSPKIT_Q_NODES, SZ_NODE, 0, 6), (uint16_t)-3); /* children[1] = leaf 2 */
    open_map(&t);
    expect_one(&t, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_Q_NODES, 0, t.ofs[BSPKIT_Q_NODES],
               "children[1] -3");
    free_map(&t);
}

/* Node and clipnode children on each side of the bounds of their interval
 * (nodes [0, 1) or leafs [-2, -1]; clipnodes [0, 1) or contents [-15, -1]). */
static void test_tree_children_bounds(void **state)
{
    (void)state;
    static const struct {
        int lump, size, at;
        int16_t value;
        const char *needle; /* NULL: the map stays clean */
    } cases[] = {
        {BSPKIT_Q_NODES, SZ_NODE, 4, 1, "children[0] 1 exceeds 1 nodes"},
        {BSPKIT_Q_NODES, SZ_NODE, 6, 1, "children[1] 1 exceeds 1 nodes"},
        {BSPKIT_Q_NODES, SZ_NODE, 4, -1, NULL},
        {BSPKIT_Q_NODES, SZ_NODE, 6, -3, "children[1] -3 is leaf 2"},
        {BSPKIT_Q_NODES, SZ_NODE, 4, INT16_MIN, "children[0] -32768 is leaf 32767"},
        {BSPKIT_Q_NODES, SZ_NODE, 4, INT16_MAX, "children[0] 32767 exceeds 1 nodes"},
        {BSPKIT_Q_CLIPNODES, SZ_CLIPNODE, 4, 1, "children[0] 1 exceeds 1 clipnodes"},
        {BSPKIT_Q_CLIPNODES, SZ_CLIPNODE, 6, 1, "children[1] 1 exceeds 1 clipnodes"},
        {BSPKIT_Q_CLIPNODES, SZ_CLIPNODE, 4, -15, NULL},
        {BSPKIT_Q_CLIPNODES, SZ_CLIPNODE, 6, -15, NULL},
        {BSPKIT_Q_CLIPNODES, SZ_CLIPNODE, 4, -16, "children[0] -16 is not a contents value"},
        {BSPKIT_Q_CLIPNODES, SZ_CLIPNODE, 6, INT16_MIN, "children[1] -32768 is not a contents value"},
        {BSPKIT_Q_CLIPNODES, SZ_CLIPNODE, 4, INT16_MAX, "children[0] 32767 exceeds 1 clipnodes"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        testmap t;
        build_lumps(&t, base_entities);
        wr_u16(field(&t, cases[k].lump, cases[k].size, 0, cases[k].at), (uint16_t)cases[k].value);
        open_map(&t);
        if (cases[k].needle)
            expect_one(&t, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, cases[k].lump, 0, t.ofs[cases[k].lump],
                       cases[k].needle);
        else
            expect_clean(&t);
        free_map(&t);
    }
}

/* Eleven clipnodes and five nodes whose every field fits, at the edge of
 * its interval where it has one (planes [0, 2), clipnode children
 * [-15, 11), node children [-2, 5), faces 0 + 1 of 1): whole groups of
 * four and a tail, as the validator's vector screens read them. */
static testmap many_tree_records(void)
{
    testmap t;
    build_lumps(&t, base_entities);
    for (int i = 1; i < 11; i++) {
        put_i32(&t.lump[BSPKIT_Q_CLIPNODES], 1);
        put_i16(&t.lump[BSPKIT_Q_CLIPNODES], -15);
        put_i16(&t.lump[BSPKIT_Q_CLIPNODES], 10);
    }
    for (int i = 1; i < 5; i++)
        put_node(&t.lump[BSPKIT_Q_NODES], 1, -2, 4, 0, 1);
    return t;
}

/* One field out of its interval, at every record and in every field the
 * screens test: found, and only that. */
static void tree_records_every_position_once(void)
{
    testmap t = many_tree_records();
    open_map(&t);
    expect_clean(&t);
    free_map(&t);
    static const struct {
        int lump, size, records, at, width; /* width 2 or 4 bytes */
        uint32_t value;
        uint32_t second; /* for num_faces when at is first_face, else unused (0 = leave) */
        const char *needle;
    } cases[] = {
        {BSPKIT_Q_CLIPNODES, SZ_CLIPNODE, 11, 0, 4, 2, 0, "plane 2 exceeds 2 planes"},
        {BSPKIT_Q_CLIPNODES, SZ_CLIPNODE, 11, 0, 4, 0x80000000u, 0, "plane -2147483648"},
        {BSPKIT_Q_CLIPNODES, SZ_CLIPNODE, 11, 0, 4, 0xFFFFFFFFu, 0, "plane -1"},
        {BSPKIT_Q_CLIPNODES, SZ_CLIPNODE, 11, 4, 2, 11, 0, "children[0] 11 exceeds 11 clipnodes"},
        {BSPKIT_Q_CLIPNODES, SZ_CLIPNODE, 11, 6, 2, 11, 0, "children[1] 11 exceeds 11 clipnodes"},
        {BSPKIT_Q_CLIPNODES, SZ_CLIPNODE, 11, 4, 2, (uint16_t)-16, 0, "children[0] -16 is not a contents value"},
        {BSPKIT_Q_CLIPNODES, SZ_CLIPNODE, 11, 6, 2, 0x8000, 0, "children[1] -32768 is not a contents value"},
        {BSPKIT_Q_NODES, SZ_NODE, 5, 0, 4, 2, 0, "plane 2 exceeds 2 planes"},
        {BSPKIT_Q_NODES, SZ_NODE, 5, 0, 4, 0x80000000u, 0, "plane -2147483648"},
        {BSPKIT_Q_NODES, SZ_NODE, 5, 4, 2, 5, 0, "children[0] 5 exceeds 5 nodes"},
        {BSPKIT_Q_NODES, SZ_NODE, 5, 6, 2, (uint16_t)-3, 0, "children[1] -3 is leaf 2"},
        {BSPKIT_Q_NODES, SZ_NODE, 5, 6, 2, 0x7FFF, 0, "children[1] 32767 exceeds 5 nodes"},
        {BSPKIT_Q_NODES, SZ_NODE, 5, 20, 2, 2, 0, "first_face+num_faces 3 exceeds 1 faces"},
        {BSPKIT_Q_NODES, SZ_NODE, 5, 20, 2, 1, 1, "first_face+num_faces 2 exceeds 1 faces"},
        {BSPKIT_Q_NODES, SZ_NODE, 5, 22, 2, 2, 0, "first_face+num_faces 2 exceeds 1 faces"},
        {BSPKIT_Q_NODES, SZ_NODE, 5, 20, 2, 0xFFFF, 0xFFFF, "first_face+num_faces 131070 exceeds 1 faces"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int rec = 0; rec < cases[k].records; rec++) {
            t = many_tree_records();
            uint8_t *p = field(&t, cases[k].lump, cases[k].size, (size_t)rec, (size_t)cases[k].at);
            if (cases[k].width == 4)
                wr_u32(p, cases[k].value);
            else
                wr_u16(p, (uint16_t)cases[k].value);
            if (cases[k].second)
                wr_u16(p + 2, (uint16_t)cases[k].second);
            open_map(&t);
            expect_one(&t, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, cases[k].lump, rec,
                       t.ofs[cases[k].lump] + (int64_t)rec * cases[k].size, cases[k].needle);
            free_map(&t);
        }
}

static void test_tree_records_every_position(void **state)
{
    (void)state;
    on_both_paths(tree_records_every_position_once);
}

static void test_face_plane_past_planes(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    wr_u16(field(&t, BSPKIT_Q_FACES, SZ_FACE, 0, 0), 5);
    open_map(&t);
    expect_one(&t, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_Q_FACES, 0, t.ofs[BSPKIT_Q_FACES],
               "plane 5 exceeds 2 planes");
    free_map(&t);
}

static void test_face_edges_past_surfedges(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    wr_u32(field(&t, BSPKIT_Q_FACES, SZ_FACE, 0, 4), 1); /* first edge 1 + 3 > 3 */
    open_map(&t);
    expect_one(&t, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_Q_FACES, 0, t.ofs[BSPKIT_Q_FACES],
               "first_edge+num_edges 4 exceeds 3 surfedges");
    free_map(&t);
}

static void test_face_texinfo_past_texinfo(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    wr_u16(field(&t, BSPKIT_Q_FACES, SZ_FACE, 0, 10), 1);
    open_map(&t);
    expect_one(&t, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_Q_FACES, 0, t.ofs[BSPKIT_Q_FACES],
               "texinfo 1 exceeds 1 texinfos");
    free_map(&t);
}

static void test_model_faces_past_faces(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    wr_u32(field(&t, BSPKIT_Q_MODELS, SZ_MODEL, 0, 60), 2); /* num faces */
    open_map(&t);
    expect_one(&t, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_Q_MODELS, 0, t.ofs[BSPKIT_Q_MODELS],
               "first_face+num_faces 2 exceeds 1 faces");
    free_map(&t);
}

static void test_model_clip_headnode(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    wr_u32(field(&t, BSPKIT_Q_MODELS, SZ_MODEL, 0, 36 + 4 * 2), 2); /* headnode[2] = clipnode 2 */
    open_map(&t);
    expect_one(&t, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_Q_MODELS, 0, t.ofs[BSPKIT_Q_MODELS],
               "headnode[2] 2 exceeds 1 clipnodes");
    free_map(&t);
}

/* Tolerated by the engines and written by real compilers: a clip head node
 * equal to the clipnode count (hull not written, e.g. func_illusionary), a
 * hull that is all one contents, leaf 0 with vis offset 0, and light offsets
 * of 0 in a map without lighting. */
static void test_compiler_conventions_accepted(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    wr_u32(field(&t, BSPKIT_Q_MODELS, SZ_MODEL, 0, 36 + 4 * 1), 1);          /* headnode[1] = count */
    wr_u32(field(&t, BSPKIT_Q_MODELS, SZ_MODEL, 0, 36 + 4 * 3), (uint32_t)-2); /* hull 3 all solid */
    wr_u32(field(&t, BSPKIT_Q_LEAFS, SZ_LEAF, 0, 4), 0);
    open_map(&t);
    expect_clean(&t);
    free_map(&t);

    build_lumps(&t, base_entities);
    t.lump[BSPKIT_Q_LIGHTING].size = 0;
    open_map(&t);
    expect_clean(&t);
    free_map(&t);

    /* Without vis data no offset is followed, whatever its value. */
    build_lumps(&t, base_entities);
    t.lump[BSPKIT_Q_VISIBILITY].size = 0;
    wr_u32(field(&t, BSPKIT_Q_LEAFS, SZ_LEAF, 1, 4), 0);
    open_map(&t);
    expect_clean(&t);
    free_map(&t);
}

static void test_light_offset_past_lighting(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    wr_u32(field(&t, BSPKIT_Q_FACES, SZ_FACE, 0, 16), LIGHT_BYTES);
    open_map(&t);
    expect_one(&t, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_Q_FACES, 0, t.ofs[BSPKIT_Q_FACES],
               "light_offset 75 outside 75 bytes");
    free_map(&t);
}

/* The offset is inside the lump but the 5x5 RGB lightmap runs past its end. */
static void test_lightmap_extent_overruns(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    wr_u32(field(&t, BSPKIT_Q_FACES, SZ_FACE, 0, 16), 3);
    open_map(&t);
    expect_one(&t, BSPKIT_SEVERITY_WARNING, BSPKIT_ERR_INDEX, BSPKIT_Q_FACES, 0, t.ofs[BSPKIT_Q_FACES],
               "needs 75 bytes");
    free_map(&t);
}

/* Two styles double the lightmap: the same 75-byte lump is now too short. */
static void test_lightmap_styles_count(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    *field(&t, BSPKIT_Q_FACES, SZ_FACE, 0, 13) = 1;
    open_map(&t);
    expect_one(&t, BSPKIT_SEVERITY_WARNING, BSPKIT_ERR_INDEX, BSPKIT_Q_FACES, 0, t.ofs[BSPKIT_Q_FACES],
               "needs 150 bytes");
    free_map(&t);
}

/* Sky and liquid faces (TEX_SPECIAL) have no lightmap, whatever the offset says. */
static void test_special_face_has_no_lightmap(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    wr_u32(field(&t, BSPKIT_Q_FACES, SZ_FACE, 0, 16), 1000);
    wr_u32(field(&t, BSPKIT_Q_TEXINFO, SZ_TEXINFO, 0, 36), 1);
    open_map(&t);
    expect_clean(&t);
    free_map(&t);
}

static void test_texinfo_miptex_past_textures(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    wr_u32(field(&t, BSPKIT_Q_TEXINFO, SZ_TEXINFO, 0, 32), 1);
    open_map(&t);
    expect_one(&t, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_Q_TEXINFO, 0, t.ofs[BSPKIT_Q_TEXINFO],
               "texture 1 exceeds 1 miptex");
    free_map(&t);
}

static void test_marksurface_past_faces(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    wr_u16(field(&t, BSPKIT_Q_MARKSURFACES, SZ_MARK, 0, 0), 1);
    open_map(&t);
    expect_one(&t, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_Q_MARKSURFACES, 0,
               t.ofs[BSPKIT_Q_MARKSURFACES], "face 1 exceeds 1 faces");
    free_map(&t);
}

static void test_leaf_marksurfaces_range(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    wr_u16(field(&t, BSPKIT_Q_LEAFS, SZ_LEAF, 1, 20), 1); /* first mark 1 + 1 > 1 */
    open_map(&t);
    expect_one(&t, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_Q_LEAFS, 1, t.ofs[BSPKIT_Q_LEAFS] + SZ_LEAF,
               "first_leaf_face+num_leaf_faces 2 exceeds 1 marksurfaces");
    free_map(&t);
}

static void test_leaf_vis_offset_past_vis(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    wr_u32(field(&t, BSPKIT_Q_LEAFS, SZ_LEAF, 1, 4), 4);
    open_map(&t);
    expect_one(&t, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_Q_LEAFS, 1, t.ofs[BSPKIT_Q_LEAFS] + SZ_LEAF,
               "vis_offset 4 outside 1 bytes");
    free_map(&t);
}

/* A zero byte starts a run and needs a count byte after it: the row cannot
 * be decoded from a one-byte lump. */
static void test_vis_row_undecodable(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    t.lump[BSPKIT_Q_VISIBILITY].data[0] = 0;
    open_map(&t);
    bspkit_report rep;
    validate_ok(&t, &rep);
    if (rep.count != 1)
        print_report(&rep);
    assert_int_equal(rep.count, 1);
    assert_int_equal(rep.errors, 1);
    assert_int_equal(rep.problems[0].code, BSPKIT_ERR_VISIBILITY);
    assert_int_equal(rep.problems[0].lump, BSPKIT_Q_VISIBILITY);
    assert_int_equal(rep.problems[0].record, 1);
    bspkit_report_free(&rep);
    free_map(&t);
}

static void test_clipnode_bad_contents(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    wr_u16(field(&t, BSPKIT_Q_CLIPNODES, SZ_CLIPNODE, 0, 6), (uint16_t)-16);
    open_map(&t);
    expect_one(&t, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_Q_CLIPNODES, 0, t.ofs[BSPKIT_Q_CLIPNODES],
               "children[1] -16");
    free_map(&t);
}

static void test_clipnode_plane_past_planes(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    wr_u32(field(&t, BSPKIT_Q_CLIPNODES, SZ_CLIPNODE, 0, 0), 2);
    open_map(&t);
    expect_one(&t, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_Q_CLIPNODES, 0, t.ofs[BSPKIT_Q_CLIPNODES],
               "plane 2 exceeds 2 planes");
    free_map(&t);
}

static void test_entity_model_past_models(void **state)
{
    (void)state;
    static const char ents[] = "{\n\"classname\" \"worldspawn\"\n}\n"
                               "{\n\"classname\" \"func_wall\"\n\"model\" \"*1\"\n}\n";
    testmap t;
    build_lumps(&t, ents);
    open_map(&t);
    size_t brace = (size_t)(strchr(ents + 1, '{') - ents);
    expect_one(&t, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_Q_ENTITIES, 1,
               t.ofs[BSPKIT_Q_ENTITIES] + (int64_t)brace, "\"*1\" exceeds 1 models");
    free_map(&t);
}

static void test_entity_trailing_junk(void **state)
{
    (void)state;
    static const char ents[] = "{\n\"classname\" \"worldspawn\"\n}\njunk";
    testmap t;
    build_lumps(&t, ents);
    open_map(&t);
    expect_one(&t, BSPKIT_SEVERITY_WARNING, BSPKIT_ERR_ENTITIES, BSPKIT_Q_ENTITIES, -1,
               t.ofs[BSPKIT_Q_ENTITIES] + (int64_t)(strlen(ents) - 4), "trailing");
    free_map(&t);
}

/* Entity text with a dangling key on line 3: read as the engines read it
 * (the key dropped), reported by validation as a warning naming the line
 * and the byte; refused when the map is opened with strict entities. */
static void test_entity_damage_is_read_and_reported(void **state)
{
    (void)state;
    static const char ents[] = "{\n\"classname\" \"worldspawn\"\n\"wad\"\n}\n";
    testmap t;
    build_lumps(&t, ents);
    open_map(&t);
    const bspkit_entities *e;
    bspkit_error err;
    assert_int_equal(bspkit_get_entities(t.map, &e, &err), BSPKIT_OK);
    assert_int_equal(e->count, 1);
    assert_int_equal(e->warning_count, 1);
    expect_one(&t, BSPKIT_SEVERITY_WARNING, BSPKIT_ERR_ENTITIES, BSPKIT_Q_ENTITIES, -1,
               t.ofs[BSPKIT_Q_ENTITIES] + (int64_t)(strstr(ents, "\"wad") - ents),
               "entity text line 3: key without a value");

    bspkit_map *strict;
    bspkit_options opts = {.flags = BSPKIT_OPEN_STRICT_ENTITIES};
    assert_int_equal(bspkit_open_memory(t.file, t.file_size, &opts, &strict, &err), BSPKIT_OK);
    assert_int_equal(bspkit_get_entities(strict, &e, &err), BSPKIT_ERR_ENTITIES);
    assert_non_null(strstr(err.message, "line 3"));
    bspkit_close(strict);
    free_map(&t);
}

/* A lump whose accessor fails is one problem carrying the accessor's code;
 * the other checks still run. */
static void test_decode_failure_is_reported(void **state)
{
    (void)state;
    testmap t;
    /* An unterminated block is read as the engines read it (a warning); a
     * miptex count past the lump makes the TEXTURES accessor fail. */
    build_lumps(&t, "{\n\"classname\" \"worldspawn\"\n");
    wr_u32(field(&t, BSPKIT_Q_TEXTURES, 4, 0, 0), 400); /* under the engine limit of 512 */
    wr_u16(field(&t, BSPKIT_Q_FACES, SZ_FACE, 0, 0), 5);
    open_map(&t);
    bspkit_report rep;
    validate_ok(&t, &rep);
    if (rep.count != 3)
        print_report(&rep);
    assert_int_equal(rep.count, 3);
    assert_int_equal(rep.errors, 2);
    assert_int_equal(rep.warnings, 1);
    bool entities = false, textures = false, face = false;
    for (size_t i = 0; i < rep.count; i++) {
        const bspkit_problem *p = &rep.problems[i];
        if (p->code == BSPKIT_ERR_ENTITIES && p->lump == BSPKIT_Q_ENTITIES && p->severity == BSPKIT_SEVERITY_WARNING)
            entities = true;
        if (p->code == BSPKIT_ERR_TEXTURES && p->lump == BSPKIT_Q_TEXTURES)
            textures = true;
        if (p->code == BSPKIT_ERR_INDEX && p->lump == BSPKIT_Q_FACES && p->record == 0)
            face = true;
    }
    assert_true(entities);
    assert_true(textures);
    assert_true(face);
    bspkit_report_free(&rep);
    free_map(&t);
}

/* 1500 broken surfedges: 1000 stored, all 1500 counted. */
static void test_problem_cap(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    for (int i = 0; i < 1497; i++)
        put_i32(&t.lump[BSPKIT_Q_SURFEDGES], 100);
    for (int i = 0; i < 3; i++)
        wr_u32(field(&t, BSPKIT_Q_SURFEDGES, SZ_SURFEDGE, (size_t)i, 0), 100);
    open_map(&t);
    bspkit_report rep;
    validate_ok(&t, &rep);
    assert_int_equal(rep.errors, 1500);
    assert_int_equal(rep.warnings, 0);
    assert_int_equal(rep.count, 1000);
    for (size_t i = 0; i < rep.count; i++) {
        assert_int_equal(rep.problems[i].lump, BSPKIT_Q_SURFEDGES);
        assert_int_equal(rep.problems[i].record, (int64_t)i);
        assert_int_equal(rep.problems[i].offset, t.ofs[BSPKIT_Q_SURFEDGES] + (int64_t)i * SZ_SURFEDGE);
    }
    bspkit_report_free(&rep);
    free_map(&t);
}

/* 32768 planes: one over GoldSrc's 32767. */
static void test_engine_limit_warning(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    for (int i = 2; i < 32768; i++) {
        put_f32(&t.lump[BSPKIT_Q_PLANES], 0);
        put_f32(&t.lump[BSPKIT_Q_PLANES], 1);
        put_f32(&t.lump[BSPKIT_Q_PLANES], 0);
        put_f32(&t.lump[BSPKIT_Q_PLANES], (float)i);
        put_i32(&t.lump[BSPKIT_Q_PLANES], 1);
    }
    open_map(&t);
    expect_one(&t, BSPKIT_SEVERITY_WARNING, BSPKIT_ERR_ENGINE_LIMIT, -1, -1, -1,
               "planes: 32768 of 32767 (100.0%)");
    free_map(&t);
}

static const bspkit_limit_usage *find_row(const bspkit_limit_usage *rows, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].name, name) == 0)
            return &rows[i];
    fail_msg("no limit row \"%s\"", name);
    return NULL;
}

static void test_goldsrc_limits(void **state)
{
    (void)state;
    testmap t;
    build_lumps(&t, base_entities);
    open_map(&t);

    size_t n = 0;
    assert_int_equal(bspkit_limits(t.map, NULL, 0, &n), BSPKIT_OK);
    assert_true(n > 10);
    bspkit_limit_usage *rows = calloc(n, sizeof *rows);
    size_t got = 0;
    assert_int_equal(bspkit_limits(t.map, rows, n, &got), BSPKIT_OK);
    assert_int_equal(got, n);

    const struct { const char *name; uint64_t count, max, bytes; } want[] = {
        {"models", 1, 400, 64},   {"planes", 2, 32767, 40},  {"vertexes", 3, 65535, 36},
        {"nodes", 1, 32767, 24},  {"texinfos", 1, 8192, 40}, {"faces", 1, 65535, 20},
        {"clipnodes", 1, 32767, 8}, {"leaves", 2, 8192, 56}, {"marksurfaces", 1, 65535, 2},
        {"edges", 4, 256000, 16}, {"surfedges", 3, 512000, 12}, {"textures", 1, 512, 0},
        {"entities", 1, 1024, 0},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const bspkit_limit_usage *r = find_row(rows, n, want[i].name);
        assert_int_equal(r->count, want[i].count);
        assert_int_equal(r->max_count, want[i].max);
        assert_int_equal(r->bytes, want[i].bytes);
    }
    const bspkit_limit_usage *light = find_row(rows, n, "lightdata");
    assert_int_equal(light->bytes, LIGHT_BYTES);
    assert_int_equal(light->max_bytes, 0x200000);
    assert_int_equal(find_row(rows, n, "entdata")->bytes, strlen(base_entities) + 1);

    /* A short buffer gets the first rows and the full count. */
    bspkit_limit_usage two[2];
    got = 0;
    assert_int_equal(bspkit_limits(t.map, two, 2, &got), BSPKIT_OK);
    assert_int_equal(got, n);
    assert_string_equal(two[0].name, rows[0].name);

    free(rows);
    free_map(&t);
}

static void test_arguments(void **state)
{
    (void)state;
    bspkit_report rep;
    bspkit_error err;
    assert_int_equal(bspkit_validate(NULL, &rep, &err), BSPKIT_ERR_ARGUMENT);
    assert_int_equal(err.code, BSPKIT_ERR_ARGUMENT);

    testmap t;
    build_lumps(&t, base_entities);
    open_map(&t);
    assert_int_equal(bspkit_validate(t.map, NULL, NULL), BSPKIT_ERR_ARGUMENT);
    size_t n = 0;
    assert_int_equal(bspkit_limits(NULL, NULL, 0, &n), BSPKIT_ERR_ARGUMENT);
    assert_int_equal(bspkit_limits(t.map, NULL, 0, NULL), BSPKIT_ERR_ARGUMENT);
    assert_int_equal(bspkit_limits(t.map, NULL, 3, &n), BSPKIT_ERR_ARGUMENT);

    /* Freeing zeroes the report and tolerates NULL. */
    rep.problems = malloc(16);
    rep.count = 3;
    rep.errors = 2;
    rep.warnings = 1;
    bspkit_report_free(&rep);
    assert_null(rep.problems);
    assert_int_equal(rep.count + rep.errors + rep.warnings, 0);
    bspkit_report_free(NULL);
    free_map(&t);
}

/* ------------------------------------------------------------------------ */
/* Real maps                                                                 */
/* ------------------------------------------------------------------------ */

static bool have_corpus(void)
{
    struct stat st;
    if (stat(BSPKIT_SHARED_MAPS, &st) == 0 && S_ISDIR(st.st_mode))
        return true;
    print_message("skipped: ../shared/maps not present\n");
    return false;
}

static bspkit_map *open_corpus(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", BSPKIT_SHARED_MAPS, rel);
    bspkit_map *map = NULL;
    bspkit_error err;
    if (bspkit_open_file(path, NULL, &map, &err) != BSPKIT_OK)
        fail_msg("%s: %s", rel, err.message);
    return map;
}

static void test_corpus_clean(void **state)
{
    (void)state;
    if (!have_corpus())
        return;
    static const char *const maps[] = {
        "barnuri+cs1.6-server/maps/de_dust2.bsp",
        "c0burn+Slipgate/maps/e1m2.bsp",
        "bsp_tool/maps/Team Fortress 2/mp_lobby.bsp",
    };
    static const bspkit_family families[] = {BSPKIT_FAMILY_GOLDSRC, BSPKIT_FAMILY_QUAKE, BSPKIT_FAMILY_SOURCE};
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
        bspkit_map *map = open_corpus(maps[i]);
        assert_int_equal(bspkit_map_format(map)->family, families[i]);
        bspkit_report rep;
        bspkit_error err;
        assert_int_equal(bspkit_validate(map, &rep, &err), BSPKIT_OK);
        if (rep.errors) {
            print_message("%s:\n", maps[i]);
            print_report(&rep);
        }
        assert_int_equal(rep.errors, 0);
        bspkit_report_free(&rep);
        bspkit_close(map);
    }
}

/* Compares our rows with the table vbspinfo printed for the same map. */
static void compare_with_vbspinfo(const char *bsp, const char *info)
{
    static const char *const names[] = {"models", "brushes", "brushsides", "planes", "vertexes",
                                        "nodes", "texinfos", "texdata", "faces", "leaves",
                                        "leaffaces", "leafbrushes", "areas", "surfedges", "edges"};
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", BSPKIT_SHARED_MAPS, info);
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open %s", path);

    bspkit_map *map = open_corpus(bsp);
    bspkit_limit_usage rows[128];
    size_t n = 0;
    assert_int_equal(bspkit_limits(map, rows, 128, &n), BSPKIT_OK);
    assert_true(n <= 128);

    size_t matched = 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            size_t len = strlen(names[i]);
            if (strncmp(line, names[i], len) != 0 || line[len] != ' ')
                continue;
            unsigned long long count, max, bytes, max_bytes;
            if (sscanf(line + len, " %llu/%llu %llu/%llu", &count, &max, &bytes, &max_bytes) != 4)
                fail_msg("unparsed line: %s", line);
            const bspkit_limit_usage *r = find_row(rows, n, names[i]);
            if (r->count != count || r->max_count != max || r->bytes != bytes || r->max_bytes != max_bytes)
                fail_msg("%s: %s: ours %llu/%llu %llu/%llu, vbspinfo %llu/%llu %llu/%llu", bsp, names[i],
                         (unsigned long long)r->count, (unsigned long long)r->max_count,
                         (unsigned long long)r->bytes, (unsigned long long)r->max_bytes, count, max, bytes,
                         max_bytes);
            matched++;
        }
    }
    fclose(f);
    bspkit_close(map);
    assert_int_equal(matched, sizeof names / sizeof names[0]);
}

static void test_corpus_limits_match_vbspinfo(void **state)
{
    (void)state;
    if (!have_corpus())
        return;
    compare_with_vbspinfo("bsp_tool/maps/Team Fortress 2/mp_lobby.bsp",
                          "bsp_tool/maps/Team Fortress 2/mp_lobby.bsp.info.txt");
    compare_with_vbspinfo("bsp_tool/maps/Team Fortress 2/test2.bsp",
                          "bsp_tool/maps/Team Fortress 2/test2.bsp.info.txt");
    /* Strata Source (v25): wider structs and its own maxima. */
    compare_with_vbspinfo("bsp_tool/maps/Momentum Mod/mp_lobby.bsp",
                          "bsp_tool/maps/Momentum Mod/mp_lobby.bsp.info.txt");
}

/* Maps whose quirks once looked like broken indices; each is fine in its
 * engine, so validation must find no index problem at all:
 *  - aim_ak-colt3, de_cbble, brick1: lightmaps sized with float sums end
 *    exactly at the lump end (double sums give one luxel row more);
 *  - awp_nightdust: func_illusionary models with clip head node = count;
 *  - car_fight, b_batt0: leaf 0 with vis offset 0 and no vis data;
 *  - 123kill, gmod_tooltextures: light offsets 0 and no lighting lump;
 *  - shack.360: Xbox 360 HDR-only map, FACES empty, tree indexes FACES_HDR;
 *  - test2 (TF2): brush sides with dispinfo 0 besides real displacements,
 *    stale original-face texinfos. */
static void test_corpus_no_false_positives(void **state)
{
    (void)state;
    if (!have_corpus())
        return;
    static const char *const maps[] = {
        "barnuri+cs1.6-server/maps/aim_ak-colt3.bsp",
        "barnuri+cs1.6-server/maps/de_cbble.bsp",
        "c0burn+Slipgate/maps/brick1.bsp",
        "barnuri+cs1.6-server/maps/awp_nightdust.bsp",
        "barnuri+cs1.6-server/maps/car_fight.bsp",
        "c0burn+Slipgate/maps/b_batt0.bsp",
        "barnuri+cs1.6-server/maps/123kill.bsp",
        ("ata4+bspsrc/bspsrc-decompiler/src/test/resources/info/ata4/bspsrc/decompiler/modules/texture/"
         "gmod_tooltextures.bsp"),
        "bsp_tool/maps/Xbox360/The Orange Box/shack.360.bsp",
        "bsp_tool/maps/Team Fortress 2/test2.bsp",
    };
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
        bspkit_map *map = open_corpus(maps[i]);
        bspkit_report rep;
        bspkit_error err;
        assert_int_equal(bspkit_validate(map, &rep, &err), BSPKIT_OK);
        size_t index_problems = 0;
        for (size_t k = 0; k < rep.count; k++)
            if (rep.problems[k].code == BSPKIT_ERR_INDEX)
                index_problems++;
        if (rep.errors || index_problems) {
            print_message("%s:\n", maps[i]);
            print_report(&rep);
        }
        assert_int_equal(rep.errors, 0);
        assert_int_equal(index_problems, 0);
        bspkit_report_free(&rep);
        bspkit_close(map);
    }
}

/* Validation reads entity text of the plain shape without making the
 * entity list (core/entities.c, bk_entities_scan_models). Its reports and
 * the entity limit row must be those of the list, which the tokenizer
 * makes when the one-pass readers are switched off: over model values
 * good, past the models, not numbers, too long to show whole, given twice
 * in one entity or as another key's value, with `"model"` moved across the
 * 64-byte pieces the scan reads; and over text of other shapes (a comment,
 * trailing junk, a block left open), which is read as a list either way. */
static void validate_copy(bspkit_map *map, bspkit_report *rep, uint64_t *entity_row)
{
    memset(rep, 0, sizeof *rep);
    assert_int_equal(bspkit_validate(map, rep, NULL), BSPKIT_OK);
    bspkit_limit_usage rows[64];
    size_t n = 0;
    assert_int_equal(bspkit_limits(map, rows, 64, &n), BSPKIT_OK);
    *entity_row = UINT64_MAX;
    for (size_t i = 0; i < n && i < 64; i++)
        if (strcmp(rows[i].name, "entities") == 0)
            *entity_row = rows[i].count;
}

static bool scan_all_fit(const char *value, size_t length, void *arg)
{
    (void)value, (void)length, (void)arg;
    return true;
}

static void test_entity_scan_agrees_with_list(void **state)
{
    (void)state;
    static const char *const bodies[] = {
        "\"model\" \"*0\"", "\"model\" \"*1\"", "\"model\" \"*\"", "\"model\" \"*12x\"",
        "\"model\" \"*99999999999999999999\"", "\"model\" \"models/props/crate.mdl\"",
        "\"model\" \"*7\" \"model\" \"*0\"", "\"model\" \"*0\" \"model\" \"*7\"", "\"targetname\" \"model\"",
        "\"model2\" \"*5\"", "\"model\" \"*1111111111111111111111111111111111111111111111\"",
        "\"model\"\"*3\"", "\"model\" \"\"", "\"Model\" \"*4\"",
    };
    static const char *const others[] = {
        "{\n\"classname\" \"worldspawn\"\n}\n// a comment\n{\n\"model\" \"*2\"\n}\n",
        "{\n\"classname\" \"worldspawn\"\n}\n{\n\"model\" \"*2\"\n}\njunk",
        "", "{\n\"model\" \"*2\"\n",
    };
    size_t scanned = 0, listed = 0, reports = 0;
    char text[4096];
    const int others_n = (int)(sizeof others / sizeof others[0]);
    for (int round = 0; round < 140 + others_n; round++) {
        if (round < 140) {
            /* worldspawn, padding that moves the next `"model"` through a
             * piece boundary, then entities with the bodies */
            int pad = round % 70;
            int at = snprintf(text, sizeof text, "{\n\"classname\" \"worldspawn\"\n\"wad\" \"%*s\"\n}\n", pad, "");
            for (size_t b = 0; b < sizeof bodies / sizeof bodies[0]; b++)
                at += snprintf(text + at, sizeof text - (size_t)at, "{\n\"classname\" \"func_wall\"\n%s\n}\n",
                               bodies[(b + (size_t)round) % (sizeof bodies / sizeof bodies[0])]);
        } else {
            snprintf(text, sizeof text, "%s", others[round - 140]);
        }
        bspkit_report rep[2];
        uint64_t row[2];
        size_t count, bad_count;
        bk_model_ref *bad;
        bool scan_used = bk_entities_scan_models(text, strlen(text) + 1, scan_all_fit, NULL, &count, &bad, &bad_count);
        free(bad);
        for (int pass = 0; pass < 2; pass++) {
            bk_entities_allow_fast_pairs(pass == 0);
            testmap t;
            build_lumps(&t, text);
            open_map(&t);
            validate_copy(t.map, &rep[pass], &row[pass]);
            free_map(&t);
        }
        bk_entities_allow_fast_pairs(true);
        if (scan_used)
            scanned++;
        else
            listed++;
        assert_int_equal(row[0], row[1]);
        assert_int_equal(rep[0].count, rep[1].count);
        for (size_t k = 0; k < rep[0].count; k++) {
            const bspkit_problem *a = &rep[0].problems[k], *b = &rep[1].problems[k];
            if (a->severity != b->severity || a->code != b->code || a->record != b->record ||
                a->offset != b->offset || strcmp(a->message, b->message) != 0)
                fail_msg("round %d problem %zu: \"%s\" against \"%s\"", round, k, a->message, b->message);
        }
        reports += rep[0].count;
        bspkit_report_free(&rep[0]);
        bspkit_report_free(&rep[1]);
    }
    /* The plain texts are the scan's, the others the list's, and there
     * were reports to compare. */
    assert_int_equal(scanned, 141); /* with the empty text */
    assert_int_equal(listed, 3);
    assert_true(reports > 140 * 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_map),
        cmocka_unit_test(test_surfedge_past_edges),
        cmocka_unit_test(test_surfedge_int_min),
        cmocka_unit_test(test_surfedge_limit_every_position),
        cmocka_unit_test(test_edge_vertex_past_vertexes),
        cmocka_unit_test(test_node_child_past_leafs),
        cmocka_unit_test(test_face_plane_past_planes),
        cmocka_unit_test(test_face_edges_past_surfedges),
        cmocka_unit_test(test_face_texinfo_past_texinfo),
        cmocka_unit_test(test_model_faces_past_faces),
        cmocka_unit_test(test_model_clip_headnode),
        cmocka_unit_test(test_compiler_conventions_accepted),
        cmocka_unit_test(test_light_offset_past_lighting),
        cmocka_unit_test(test_lightmap_extent_overruns),
        cmocka_unit_test(test_lightmap_styles_count),
        cmocka_unit_test(test_special_face_has_no_lightmap),
        cmocka_unit_test(test_texinfo_miptex_past_textures),
        cmocka_unit_test(test_marksurface_past_faces),
        cmocka_unit_test(test_leaf_marksurfaces_range),
        cmocka_unit_test(test_leaf_vis_offset_past_vis),
        cmocka_unit_test(test_vis_row_undecodable),
        cmocka_unit_test(test_clipnode_bad_contents),
        cmocka_unit_test(test_tree_children_bounds),
        cmocka_unit_test(test_tree_records_every_position),
        cmocka_unit_test(test_clipnode_plane_past_planes),
        cmocka_unit_test(test_entity_model_past_models),
        cmocka_unit_test(test_entity_scan_agrees_with_list),
        cmocka_unit_test(test_entity_trailing_junk),
        cmocka_unit_test(test_decode_failure_is_reported),
        cmocka_unit_test(test_problem_cap),
        cmocka_unit_test(test_engine_limit_warning),
        cmocka_unit_test(test_goldsrc_limits),
        cmocka_unit_test(test_arguments),
        cmocka_unit_test(test_edge0_unused),
        cmocka_unit_test(test_compiler_lint),
        cmocka_unit_test(test_entity_damage_is_read_and_reported),
        cmocka_unit_test(test_unfinished_compile),
        cmocka_unit_test(test_corpus_clean),
        cmocka_unit_test(test_corpus_limits_match_vbspinfo),
        cmocka_unit_test(test_corpus_no_false_positives),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
