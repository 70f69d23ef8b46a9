/* Displacements: DISPINFO / DISP_VERTS / DISP_TRIS / DISP_MULTIBLEND records
 * encoded byte by byte here (both byte orders, and Strata's 232-byte
 * layout), decoded back field by field, and the displaced mesh checked
 * against corners, offsets and triangle indices computed in the test. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"

#include "bspkit/displacement.h"
#include "bspkit/write.h"
#include "core/bytes.h"
#include "core/table.h"
#include "formats/source/family.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the map: one square face, one power-2 displacement ------------------ */

#define SIDE 5
#define NVERTS (SIDE * SIDE)
#define NTRIS 32

static const bspkit_vec3 FACE_CORNERS[4] = {{0, 0, 0}, {64, 0, 0}, {64, 64, 0}, {0, 64, 0}};

/* Hand-chosen values of the record, as the test encodes them. */
typedef struct disp_spec {
    bspkit_vec3 start;
    int32_t vert_start, tri_start, power, min_tess;
    float smoothing;
    int32_t contents;
    uint32_t map_face;
    int32_t alpha_start, sample_start;
    uint32_t sub_index[4][2]; /* as stored: 0xFFFF / 0xFFFFFFFF = none */
    uint8_t orient[4][2], span[4][2], nspan[4][2];
    uint32_t corner[4][4];
    uint8_t corner_count[4];
    uint32_t allowed[10];
} disp_spec;

static disp_spec default_spec(int start_corner)
{
    disp_spec s = {0};
    bspkit_vec3 c = FACE_CORNERS[start_corner];
    s.start = (bspkit_vec3){c.x + 1.5f, c.y - 0.5f, c.z + 2.0f};
    s.power = 2;
    s.min_tess = (int32_t)(BSPKIT_DISP_FLAG_MAGIC | BSPKIT_DISP_FLAG_HAS_MULTIBLEND | 3u);
    s.smoothing = 45.5f;
    s.contents = 0x1;
    s.alpha_start = 7;
    s.sample_start = 11;
    for (int e = 0; e < 4; e++)
        for (int k = 0; k < 2; k++) {
            s.sub_index[e][k] = (e + k) % 3 == 0 ? 0xFFFFu : (uint32_t)(e * 2 + k);
            s.orient[e][k] = (uint8_t)((e + k) & 3);
            s.span[e][k] = (uint8_t)(k + 1);
            s.nspan[e][k] = (uint8_t)(2 - k);
        }
    for (int c4 = 0; c4 < 4; c4++) {
        for (int k = 0; k < 4; k++)
            s.corner[c4][k] = k < c4 ? (uint32_t)(10 * c4 + k) : 0xFFFFu;
        s.corner_count[c4] = (uint8_t)c4;
    }
    for (int k = 0; k < 10; k++)
        s.allowed[k] = 0x01010101u * (uint32_t)(k + 1);
    return s;
}

static void put_u16(uint8_t *p, uint32_t v, bool be) { wr_u16(p, (uint16_t)v, be); }

/* ddispinfo_t: 176 bytes, or Strata's 232 with 32-bit indices. */
static size_t encode_dispinfo(const disp_spec *s, bool be, bool wide, uint8_t *o)
{
    size_t size = wide ? 232 : 176;
    memset(o, 0xAB, size); /* padding bytes must be ignored */
    wr_f32(o, s->start.x, be);
    wr_f32(o + 4, s->start.y, be);
    wr_f32(o + 8, s->start.z, be);
    wr_u32(o + 12, (uint32_t)s->vert_start, be);
    wr_u32(o + 16, (uint32_t)s->tri_start, be);
    wr_u32(o + 20, (uint32_t)s->power, be);
    wr_u32(o + 24, (uint32_t)s->min_tess, be);
    wr_f32(o + 28, s->smoothing, be);
    wr_u32(o + 32, (uint32_t)s->contents, be);
    if (wide)
        wr_u32(o + 36, s->map_face, be);
    else
        put_u16(o + 36, s->map_face, be);
    wr_u32(o + 40, (uint32_t)s->alpha_start, be);
    wr_u32(o + 44, (uint32_t)s->sample_start, be);
    uint8_t *p = o + 48;
    for (int e = 0; e < 4; e++)
        for (int k = 0; k < 2; k++) {
            uint8_t *q = p + (wide ? 16 * e + 8 * k : 12 * e + 6 * k);
            int idx = wide ? 4 : 2;
            if (wide)
                wr_u32(q, s->sub_index[e][k] == 0xFFFFu ? 0xFFFFFFFFu : s->sub_index[e][k], be);
            else
                put_u16(q, s->sub_index[e][k], be);
            q[idx] = s->orient[e][k];
            q[idx + 1] = s->span[e][k];
            q[idx + 2] = s->nspan[e][k];
        }
    p = o + (wide ? 112 : 96);
    for (int c = 0; c < 4; c++) {
        uint8_t *q = p + (wide ? 20 : 10) * c;
        for (int k = 0; k < 4; k++) {
            if (wide)
                wr_u32(q + 4 * k, s->corner[c][k] == 0xFFFFu ? 0xFFFFFFFFu : s->corner[c][k], be);
            else
                put_u16(q + 2 * k, s->corner[c][k], be);
        }
        q[wide ? 16 : 8] = s->corner_count[c];
    }
    p = o + (wide ? 192 : 136);
    for (int k = 0; k < 10; k++)
        wr_u32(p + 4 * k, s->allowed[k], be);
    return size;
}

/* Vertex v: corners get slanted offsets, the rest straight up by v / 2. */
static void vert_of(int v, bspkit_vec3 *vec, float *dist, float *alpha)
{
    bool corner = v == 0 || v == SIDE - 1 || v == NVERTS - SIDE || v == NVERTS - 1;
    *vec = corner ? (bspkit_vec3){0.6f, 0.0f, 0.8f} : (bspkit_vec3){0, 0, 1};
    *dist = corner ? 10.0f + (float)v : 0.5f * (float)v;
    *alpha = 10.0f * (float)v;
}

static uint16_t tag_of(int t) { return (uint16_t)((t * 37 + 5) & 0x1F); }

static void encode_verts_tris(bool be, uint8_t *verts, uint8_t *tris)
{
    for (int v = 0; v < NVERTS; v++) {
        bspkit_vec3 vec;
        float dist, alpha;
        vert_of(v, &vec, &dist, &alpha);
        uint8_t *p = verts + 20 * v;
        wr_f32(p, vec.x, be);
        wr_f32(p + 4, vec.y, be);
        wr_f32(p + 8, vec.z, be);
        wr_f32(p + 12, dist, be);
        wr_f32(p + 16, alpha, be);
    }
    for (int t = 0; t < NTRIS; t++)
        wr_u16(tris + 2 * t, tag_of(t), be);
}

/* Face 0: the square through surfedges {-1, 2, 3, 4} (edge 1 stored reversed); face 1: a triangle. */
static void set_geometry(bspkit_builder *b, bool faces_typed)
{
    bspkit_vec3 verts[4];
    memcpy(verts, FACE_CORNERS, sizeof verts);
    bspkit_edge edges[5] = {{{0, 0}}, {{1, 0}}, {{1, 2}}, {{2, 3}}, {{3, 0}}};
    int32_t surfedges[7] = {-1, 2, 3, 4, -1, 2, 3};
    CHECK(bspkit_builder_set_vertexes(b, verts, 4, ERR));
    CHECK(bspkit_builder_set_edges(b, edges, 5, ERR));
    CHECK(bspkit_builder_set_surfedges(b, surfedges, 7, ERR));
    if (faces_typed) {
        bspkit_face faces[2] = {{.first_edge = 0, .num_edges = 4, .dispinfo = 0, .orig_face = -1},
                                {.first_edge = 4, .num_edges = 3, .dispinfo = -1, .orig_face = -1}};
        for (int i = 0; i < 2; i++) {
            faces[i].light_offset = -1;
            memset(faces[i].styles, 255, 4);
        }
        CHECK(bspkit_builder_set_faces(b, faces, 2, ERR));
    }
}

static uint8_t g_file[1 << 16];

/* A v20 map holding `spec` (and a DISP_MULTIBLEND lump of 25 records) in byte order `be`. */
static bspkit_map *open_disp_map(const disp_spec *spec, bool be)
{
    bspkit_builder *b;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_SOURCE, 20, &b, ERR));
    set_geometry(b, true);
    uint8_t info[232], verts[20 * NVERTS], tris[2 * NTRIS], blend[80 * NVERTS], samples[3] = {9, 8, 7};
    size_t n = encode_dispinfo(spec, be, false, info);
    encode_verts_tris(be, verts, tris);
    for (int i = 0; i < 20 * NVERTS; i++)
        wr_f32(blend + 4 * i, (float)i * 0.25f, be);
    CHECK(bspkit_builder_set_lump(b, BSPKIT_S_DISPINFO, info, n, 0, ERR));
    CHECK(bspkit_builder_set_lump(b, BSPKIT_S_DISP_VERTS, verts, sizeof verts, 0, ERR));
    CHECK(bspkit_builder_set_lump(b, BSPKIT_S_DISP_TRIS, tris, sizeof tris, 0, ERR));
    CHECK(bspkit_builder_set_lump(b, BSPKIT_S_DISP_MULTIBLEND, blend, sizeof blend, 0, ERR));
    CHECK(bspkit_builder_set_lump(b, BSPKIT_S_DISP_LIGHTMAP_SAMPLE_POSITIONS, samples, 3, 0, ERR));
    uint8_t *buf;
    size_t size;
    bspkit_write_options o = {.big_endian = be};
    CHECK(bspkit_builder_write(b, &o, &buf, &size, ERR));
    bspkit_builder_free(b);
    assert_true(size <= sizeof g_file);
    memcpy(g_file, buf, size);
    bspkit_free_buffer(buf);
    bspkit_map *m;
    CHECK(bspkit_open_memory(g_file, size, NULL, &m, ERR));
    assert_int_equal(bspkit_map_format(m)->big_endian, be);
    return m;
}

static void assert_fields(const bspkit_dispinfo *d, const disp_spec *s)
{
    assert_true(d->start_position.x == s->start.x && d->start_position.y == s->start.y &&
                d->start_position.z == s->start.z);
    assert_int_equal(d->disp_vert_start, s->vert_start);
    assert_int_equal(d->disp_tri_start, s->tri_start);
    assert_int_equal(d->power, s->power);
    assert_int_equal(d->min_tess, s->min_tess);
    assert_true(d->smoothing_angle == s->smoothing);
    assert_int_equal(d->contents, s->contents);
    assert_int_equal(d->map_face, s->map_face);
    assert_int_equal(d->lightmap_alpha_start, s->alpha_start);
    assert_int_equal(d->lightmap_sample_position_start, s->sample_start);
    for (int e = 0; e < 4; e++)
        for (int k = 0; k < 2; k++) {
            int32_t want = s->sub_index[e][k] == 0xFFFFu ? -1 : (int32_t)s->sub_index[e][k];
            assert_int_equal(d->edge_neighbor[e][k], want);
            assert_int_equal(d->edge_neighbor_orientation[e][k], s->orient[e][k]);
            assert_int_equal(d->edge_span[e][k], s->span[e][k]);
            assert_int_equal(d->edge_neighbor_span[e][k], s->nspan[e][k]);
        }
    for (int c = 0; c < 4; c++) {
        for (int k = 0; k < 4; k++)
            assert_int_equal(d->corner_neighbors[c][k], s->corner[c][k] == 0xFFFFu ? -1 : (int32_t)s->corner[c][k]);
        assert_int_equal(d->corner_neighbor_count[c], s->corner_count[c]);
    }
    for (int k = 0; k < 10; k++)
        assert_int_equal(d->allowed_verts[k], s->allowed[k]);
}

static bool near(bspkit_vec3 a, bspkit_vec3 b)
{
    return fabsf(a.x - b.x) < 1e-4f && fabsf(a.y - b.y) < 1e-4f && fabsf(a.z - b.z) < 1e-4f;
}

/* Grid corners 0..3 sit at indices 0, 20, 24, 4; corner k is face corner (first + k) % 4 plus its offset. */
static void assert_mesh(bspkit_map *m, int first)
{
    bspkit_disp_mesh mesh;
    CHECK(bspkit_disp_build_mesh(m, 0, &mesh, ERR));
    assert_int_equal(mesh.vertex_count, 25);
    assert_int_equal(mesh.triangle_count, 32);
    assert_int_equal(mesh.side, 5);
    assert_int_equal(mesh.first_corner, first);
    static const int grid[4] = {0, NVERTS - SIDE, NVERTS - 1, SIDE - 1};
    for (int k = 0; k < 4; k++) {
        bspkit_vec3 c = FACE_CORNERS[(first + k) % 4], vec;
        float dist, alpha;
        vert_of(grid[k], &vec, &dist, &alpha);
        bspkit_vec3 want = {c.x + vec.x * dist, c.y + vec.y * dist, c.z + vec.z * dist};
        assert_true(near(mesh.positions[grid[k]], want));
        assert_true(near(mesh.corners[k], c));
    }
    /* Vertex (i, j) = lerp between the edge points; vertex 7 is row 1, column 2. */
    bspkit_vec3 c0 = FACE_CORNERS[first], c1 = FACE_CORNERS[(first + 1) % 4], c2 = FACE_CORNERS[(first + 2) % 4],
                c3 = FACE_CORNERS[(first + 3) % 4];
    bspkit_vec3 e0 = {c0.x + (c1.x - c0.x) * 0.25f, c0.y + (c1.y - c0.y) * 0.25f, 0};
    bspkit_vec3 e1 = {c3.x + (c2.x - c3.x) * 0.25f, c3.y + (c2.y - c3.y) * 0.25f, 0};
    bspkit_vec3 want7 = {e0.x + (e1.x - e0.x) * 0.5f, e0.y + (e1.y - e0.y) * 0.5f, 3.5f};
    assert_true(near(mesh.positions[7], want7));
    for (int v = 0; v < NVERTS; v++) {
        bspkit_vec3 vec;
        float dist, alpha;
        vert_of(v, &vec, &dist, &alpha);
        assert_true(mesh.alphas[v] == alpha);
    }
    for (int t = 0; t < NTRIS; t++)
        assert_int_equal(mesh.tags[t], tag_of(t));
    /* The engine's first two quads: n = 0 (even) splits 0..6, n = 1 (odd) splits 2..6. */
    static const uint32_t first_quads[12] = {0, 5, 6, 0, 6, 1, 1, 6, 2, 2, 6, 7};
    for (int i = 0; i < 12; i++)
        assert_int_equal(mesh.indices[i], first_quads[i]);
    /* The last quad, n = 18 (even). */
    static const uint32_t last_quad[6] = {18, 23, 24, 18, 24, 19};
    for (int i = 0; i < 6; i++)
        assert_int_equal(mesh.indices[3 * NTRIS - 6 + i], last_quad[i]);
    for (int v = 0; v < NVERTS; v++) {
        bspkit_vec3 n = mesh.normals[v];
        assert_true(fabsf(n.x * n.x + n.y * n.y + n.z * n.z - 1.0f) < 1e-4f);
    }
    bspkit_disp_mesh_free(&mesh);
    assert_null(mesh.positions);
}

static void decode_and_build(bool be)
{
    disp_spec s = default_spec(0);
    bspkit_map *m = open_disp_map(&s, be);
    const bspkit_dispinfo *d;
    size_t n;
    CHECK(bspkit_get_dispinfo(m, &d, &n, ERR));
    assert_int_equal(n, 1);
    assert_fields(&d[0], &s);
    assert_int_equal(d[0].multiblend_start, 0);

    const bspkit_disp_vert *dv;
    CHECK(bspkit_get_disp_verts(m, &dv, &n, ERR));
    assert_int_equal(n, NVERTS);
    for (int v = 0; v < NVERTS; v++) {
        bspkit_vec3 vec;
        float dist, alpha;
        vert_of(v, &vec, &dist, &alpha);
        assert_true(near(dv[v].vec, vec) && dv[v].dist == dist && dv[v].alpha == alpha);
    }
    const uint16_t *tags;
    CHECK(bspkit_get_disp_tris(m, &tags, &n, ERR));
    assert_int_equal(n, NTRIS);
    for (int t = 0; t < NTRIS; t++)
        assert_int_equal(tags[t], tag_of(t));
    const bspkit_disp_multiblend *mb;
    CHECK(bspkit_get_disp_multiblend(m, &mb, &n, ERR));
    assert_int_equal(n, NVERTS);
    assert_true(mb[1].multiblend[0] == 20 * 0.25f && mb[1].alphablend[3] == 27 * 0.25f &&
                mb[1].colors[3].z == 39 * 0.25f);
    const uint8_t *bytes;
    CHECK(bspkit_get_disp_lightmap_sample_positions(m, &bytes, &n, ERR));
    assert_int_equal(n, 3);
    assert_int_equal(bytes[2], 7);
    CHECK(bspkit_get_disp_lightmap_alphas(m, &bytes, &n, ERR));
    assert_int_equal(n, 0);
    assert_mesh(m, 0);
    bspkit_close(m);
}

static void test_little_endian(void **state)
{
    (void)state;
    decode_and_build(false);
}

static void test_big_endian(void **state)
{
    (void)state;
    decode_and_build(true);
}

/* startPosition near each corner in turn: the grid starts there. */
static void test_start_rotation(void **state)
{
    (void)state;
    for (int be = 0; be < 2; be++)
        for (int first = 0; first < 4; first++) {
            disp_spec s = default_spec(first);
            bspkit_map *m = open_disp_map(&s, be);
            assert_mesh(m, first);
            bspkit_close(m);
        }
}

static void expect_build_error(const disp_spec *s, size_t index, bspkit_result code, const char *text)
{
    bspkit_map *m = open_disp_map(s, false);
    bspkit_disp_mesh mesh;
    memset(&mesh, 0x5A, sizeof mesh);
    assert_int_equal(bspkit_disp_build_mesh(m, index, &mesh, ERR), code);
    assert_int_equal(ERR->lump, BSPKIT_S_DISPINFO);
    assert_non_null(strstr(ERR->message, text));
    assert_null(mesh.positions);
    assert_int_equal(mesh.vertex_count, 0);
    bspkit_close(m);
}

static void test_bad_records(void **state)
{
    (void)state;
    disp_spec s = default_spec(0);
    expect_build_error(&s, 1, BSPKIT_ERR_ARGUMENT, "does not exist");
    s.vert_start = 1; /* 1 + 25 > 25 records */
    expect_build_error(&s, 0, BSPKIT_ERR_INDEX, "DispVertStart 1");
    s = default_spec(0);
    s.vert_start = -25;
    expect_build_error(&s, 0, BSPKIT_ERR_INDEX, "DispVertStart -25");
    s = default_spec(0);
    s.tri_start = 3;
    expect_build_error(&s, 0, BSPKIT_ERR_INDEX, "DispTriStart 3");
    for (int p = 0; p < 3; p++) {
        static const int32_t powers[3] = {1, 5, -2147483647 - 1};
        s = default_spec(0);
        s.power = powers[p];
        expect_build_error(&s, 0, BSPKIT_ERR_INDEX, "power");
    }
    s = default_spec(0);
    s.map_face = 2; /* only faces 0 and 1 exist */
    expect_build_error(&s, 0, BSPKIT_ERR_INDEX, "MapFace 2");
    s.map_face = 1; /* a triangle */
    expect_build_error(&s, 0, BSPKIT_ERR_INDEX, "four-edged");
    s.map_face = 0xFFFF;
    expect_build_error(&s, 0, BSPKIT_ERR_INDEX, "MapFace 65535");
}

/* DISPINFO that is not a whole number of records does not open at all; a
 * stored LZMA stream of the wrong size is caught by the accessor. */
static void test_lump_size(void **state)
{
    (void)state;
    bspkit_builder *b;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_SOURCE, 20, &b, ERR));
    set_geometry(b, true);
    uint8_t blend[81] = {0};
    CHECK(bspkit_builder_set_lump(b, BSPKIT_S_DISP_MULTIBLEND, blend, sizeof blend, 0, ERR));
    uint8_t *buf;
    size_t size;
    CHECK(bspkit_builder_write(b, NULL, &buf, &size, ERR));
    bspkit_builder_free(b);
    bspkit_map *m;
    CHECK(bspkit_open_memory(buf, size, NULL, &m, ERR));
    const bspkit_disp_multiblend *mb;
    size_t n;
    assert_int_equal(bspkit_get_disp_multiblend(m, &mb, &n, ERR), BSPKIT_ERR_LUMP_SIZE);
    assert_int_equal(ERR->lump, BSPKIT_S_DISP_MULTIBLEND);
    const bspkit_dispinfo *d;
    CHECK(bspkit_get_dispinfo(m, &d, &n, ERR));
    assert_int_equal(n, 0);
    bspkit_close(m);
    bspkit_free_buffer(buf);
}

/* ---- Strata v25: 232-byte records ----------------------------------------- */

static void put_face72(uint8_t *p, int32_t first_edge, int32_t num_edges, int32_t dispinfo)
{
    memset(p, 0, 72);
    wr_le32(p + 8, (uint32_t)first_edge);
    wr_le32(p + 12, (uint32_t)num_edges);
    wr_le32(p + 16, 0xFFFFFFFFu); /* texinfo */
    wr_le32(p + 20, (uint32_t)dispinfo);
    memset(p + 28, 255, 4);
    wr_le32(p + 32, 0xFFFFFFFFu);
    wr_le32(p + 56, 0xFFFFFFFFu);
}

static void test_wide_layout(void **state)
{
    (void)state;
    bspkit_builder *b;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_SOURCE, 21, &b, ERR));
    set_geometry(b, false);
    uint8_t faces[144];
    put_face72(faces, 0, 4, 0);
    put_face72(faces + 72, 4, 3, -1);
    disp_spec s = default_spec(3);
    s.sub_index[1][1] = 70000; /* beyond 16 bits */
    s.corner[3][0] = 123456;
    s.map_face = 0;
    uint8_t info[232], verts[20 * NVERTS], tris[2 * NTRIS];
    assert_int_equal(encode_dispinfo(&s, false, true, info), 232);
    encode_verts_tris(false, verts, tris);
    CHECK(bspkit_builder_set_lump(b, BSPKIT_S_FACES, faces, sizeof faces, 2, ERR));
    CHECK(bspkit_builder_set_lump(b, BSPKIT_S_DISPINFO, info, sizeof info, 1, ERR));
    CHECK(bspkit_builder_set_lump(b, BSPKIT_S_DISP_VERTS, verts, sizeof verts, 0, ERR));
    CHECK(bspkit_builder_set_lump(b, BSPKIT_S_DISP_TRIS, tris, sizeof tris, 0, ERR));
    uint8_t *buf;
    size_t size;
    CHECK(bspkit_builder_write(b, NULL, &buf, &size, ERR));
    bspkit_builder_free(b);
    wr_le32(buf + 4, 25); /* the header version makes it a Strata map */
    bspkit_map *m;
    CHECK(bspkit_open_memory(buf, size, NULL, &m, ERR));
    assert_true(bspkit_map_format(m)->variant & BSPKIT_VARIANT_WIDE_LUMPS);
    const bspkit_dispinfo *d;
    size_t n;
    CHECK(bspkit_get_dispinfo(m, &d, &n, ERR));
    assert_int_equal(n, 1);
    assert_fields(&d[0], &s);
    assert_int_equal(d[0].edge_neighbor[1][1], 70000);
    assert_int_equal(d[0].corner_neighbors[3][0], 123456);
    assert_mesh(m, 3);
    bspkit_close(m);
    bspkit_free_buffer(buf);
}

/* ---- dump tables ---------------------------------------------------------- */

static const bspkit_field *field_named(const bspkit_table *t, const char *name)
{
    for (size_t i = 0; i < t->field_count; i++)
        if (strcmp(t->fields[i].name, name) == 0)
            return &t->fields[i];
    fail_msg("no field %s", name);
    return NULL;
}

static void test_dump_tables(void **state)
{
    (void)state;
    disp_spec s = default_spec(1);
    s.vert_start = 0;
    s.contents = 0x7654321;
    bspkit_map *m = open_disp_map(&s, true);
    bspkit_dump out;
    memset(&out, 0, sizeof out);
    CHECK(bk_tables_disp(m, BSPKIT_S_DISPINFO, 0, &out, ERR));
    assert_int_equal(out.table_count, 1);
    assert_int_equal(out.tables[0].count, 1);
    const bspkit_field *f = field_named(&out.tables[0], "contents");
    int32_t contents;
    memcpy(&contents, (const uint8_t *)bspkit_table_record(&out.tables[0], 0) + f->offset, sizeof contents);
    assert_int_equal(contents, 0x7654321);
    f = field_named(&out.tables[0], "AllowedVerts");
    assert_int_equal(f->count, 10);
    field_named(&out.tables[0], "startPosition");
    field_named(&out.tables[0], "MapFace");

    memset(&out, 0, sizeof out);
    CHECK(bk_tables_disp(m, BSPKIT_S_DISP_VERTS, 0, &out, ERR));
    assert_int_equal(out.tables[0].count, NVERTS);
    f = field_named(&out.tables[0], "dist");
    float dist;
    memcpy(&dist, (const uint8_t *)bspkit_table_record(&out.tables[0], 3) + f->offset, sizeof dist);
    assert_true(dist == 1.5f);
    field_named(&out.tables[0], "vec");
    field_named(&out.tables[0], "alpha");

    memset(&out, 0, sizeof out);
    CHECK(bk_tables_disp(m, BSPKIT_S_DISP_TRIS, 0, &out, ERR));
    assert_int_equal(out.tables[0].count, NTRIS);
    f = field_named(&out.tables[0], "Tags");
    uint16_t tag;
    memcpy(&tag, (const uint8_t *)bspkit_table_record(&out.tables[0], 9) + f->offset, sizeof tag);
    assert_int_equal(tag, tag_of(9));

    memset(&out, 0, sizeof out);
    CHECK(bk_tables_disp(m, BSPKIT_S_DISP_LIGHTMAP_SAMPLE_POSITIONS, 0, &out, ERR));
    assert_int_equal(out.tables[0].count, 3);
    assert_int_equal(*(const uint8_t *)bspkit_table_record(&out.tables[0], 0), 9);

    memset(&out, 0, sizeof out);
    CHECK(bk_tables_disp(m, BSPKIT_S_DISP_MULTIBLEND, 0, &out, ERR));
    assert_int_equal(out.tables[0].count, NVERTS);
    field_named(&out.tables[0], "m_vMultiBlendColors");

    memset(&out, 0, sizeof out);
    assert_int_equal(bk_tables_disp(m, BSPKIT_S_FACES, 0, &out, ERR), BSPKIT_ERR_NOT_FOUND);
    assert_int_equal(bk_tables_disp(m, -1, 0, &out, ERR), BSPKIT_ERR_NOT_FOUND);
    assert_int_equal(out.table_count, 0);
    bspkit_close(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_little_endian), cmocka_unit_test(test_big_endian),
        cmocka_unit_test(test_start_rotation), cmocka_unit_test(test_bad_records),
        cmocka_unit_test(test_lump_size), cmocka_unit_test(test_wide_layout),
        cmocka_unit_test(test_dump_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
