/* Unit tests for the byte readers, format detection, the lump directory and
 * each record decoder. Inputs are written byte by byte in the tests, so the
 * expected values never come from our own writer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bspkit/bspkit.h"
#include "core/bytes.h"
#include "core/map.h"

#include <stdlib.h>
#include <string.h>

/* ---- byte readers ---------------------------------------------------- */

static void test_readers(void **state)
{
    (void)state;
    const uint8_t b[] = {0x01, 0x02, 0x03, 0x04, 0x00, 0x00, 0x80, 0x3F};
    assert_int_equal(rd_le16(b), 0x0201);
    assert_int_equal(rd_be16(b), 0x0102);
    assert_int_equal(rd_le32(b), 0x04030201u);
    assert_int_equal(rd_be32(b), 0x01020304u);
    assert_true(rd_le64(b) == 0x3F80000004030201ull);
    assert_true(rd_f32(b + 4, false) == 1.0f);
    const uint8_t neg[] = {0xFF, 0xFE};
    assert_int_equal(rd_i16(neg, false), -257);
    assert_int_equal(rd_i16(neg, true), -2);
    const uint8_t m1[] = {0xFF, 0xFF, 0xFF, 0xFF};
    assert_int_equal(rd_i32(m1, true), -1);
    uint8_t w[4];
    wr_u32(w, 0xA1B2C3D4u, true);
    assert_int_equal(w[0], 0xA1);
    assert_int_equal(rd_u32(w, true), 0xA1B2C3D4u);
    wr_f32(w, -2.5f, false);
    assert_true(rd_f32(w, false) == -2.5f);
}

static void test_range_ok(void **state)
{
    (void)state;
    assert_true(range_ok(0, 10, 10));
    assert_true(range_ok(10, 0, 10));
    assert_false(range_ok(11, 0, 10));
    assert_false(range_ok(5, 6, 10));
    /* must not wrap around */
    assert_false(range_ok(UINT64_MAX - 1, 4, 10));
    assert_false(range_ok(4, UINT64_MAX, 10));
}

/* ---- hand-built files ------------------------------------------------- */

typedef struct {
    uint8_t *data;
    size_t size, cap;
} buf;

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

static void put32(buf *b, uint32_t v, bool be)
{
    uint8_t t[4];
    wr_u32(t, v, be);
    put(b, t, 4);
}

static void put16(buf *b, uint16_t v, bool be)
{
    uint8_t t[2];
    wr_u16(t, v, be);
    put(b, t, 2);
}

static void putf(buf *b, float f, bool be) { put32(b, float_to_bits(f), be); }

static void align4(buf *b)
{
    static const uint8_t z[4];
    put(b, z, (4 - b->size % 4) % 4);
}

/* A GoldSrc/Quake file: header, then each lump's bytes in index order. */
static buf make_q(int32_t version, buf lumps[15])
{
    buf f = {0};
    put32(&f, (uint32_t)version, false);
    size_t dir = f.size;
    for (int i = 0; i < 15; i++) {
        put32(&f, 0, false);
        put32(&f, 0, false);
    }
    for (int i = 0; i < 15; i++) {
        align4(&f);
        wr_le32(f.data + dir + 8 * i, (uint32_t)f.size);
        wr_le32(f.data + dir + 8 * i + 4, (uint32_t)lumps[i].size);
        if (lumps[i].size)
            put(&f, lumps[i].data, lumps[i].size);
        free(lumps[i].data);
    }
    return f;
}

/* A Source file: header, then the lumps (optionally in the L4D2 entry order). */
static buf make_s(int32_t version, bool be, bool l4d2, buf lumps[64], const int32_t versions[64])
{
    buf f = {0};
    put(&f, be ? "PSBV" : "VBSP", 4);
    put32(&f, (uint32_t)version, be);
    size_t dir = f.size;
    for (int i = 0; i < 64 * 4; i++)
        put32(&f, 0, be);
    put32(&f, 7, be); /* map revision */
    for (int i = 0; i < 64; i++) {
        align4(&f);
        uint8_t *e = f.data + dir + 16 * i;
        uint32_t ofs = (uint32_t)f.size, len = (uint32_t)lumps[i].size, ver = versions ? (uint32_t)versions[i] : 0;
        wr_u32(e + (l4d2 ? 4 : 0), ofs, be);
        wr_u32(e + (l4d2 ? 8 : 4), len, be);
        wr_u32(e + (l4d2 ? 0 : 8), ver, be);
        if (lumps[i].size)
            put(&f, lumps[i].data, lumps[i].size);
        free(lumps[i].data);
        e = NULL;
    }
    return f;
}

/* ---- detection -------------------------------------------------------- */

static bspkit_result detect(const void *d, size_t n, bspkit_format *f, bspkit_error *e)
{
    return bspkit_detect(d, n, f, e);
}

static void test_detect_foreign(void **state)
{
    (void)state;
    bspkit_format f;
    bspkit_error e;
    assert_int_equal(detect("", 0, &f, &e), BSPKIT_ERR_EMPTY);
    assert_int_equal(detect("VB", 2, &f, &e), BSPKIT_ERR_TRUNCATED);
    const uint8_t cod[8] = {'I', 'B', 'S', 'P', 59, 0, 0, 0};
    assert_int_equal(detect(cod, 8, &f, &e), BSPKIT_ERR_UNSUPPORTED);
    assert_non_null(strstr(e.message, "Call of Duty"));
    const uint8_t raven[8] = {'R', 'B', 'S', 'P', 1, 0, 0, 0};
    assert_int_equal(detect(raven, 8, &f, &e), BSPKIT_ERR_UNSUPPORTED);
    assert_non_null(strstr(e.message, "Raven RBSP"));
    /* Quake 3 is read: a header cut short is truncated, not foreign. */
    const uint8_t q3[8] = {'I', 'B', 'S', 'P', 46, 0, 0, 0};
    assert_int_equal(detect(q3, 8, &f, &e), BSPKIT_ERR_TRUNCATED);
    assert_non_null(strstr(e.message, "IBSP 46"));
    /* Quake 2 is read: a header cut short is truncated, not foreign. */
    const uint8_t q2[8] = {'I', 'B', 'S', 'P', 38, 0, 0, 0};
    assert_int_equal(detect(q2, 8, &f, &e), BSPKIT_ERR_TRUNCATED);
    assert_non_null(strstr(e.message, "IBSP 38"));
    /* Titanfall 2 (rBSP 37) is read; Titanfall (29) and Apex Legends (47+) are named. */
    const uint8_t r[8] = {'r', 'B', 'S', 'P', 37, 0, 0, 0};
    assert_int_equal(detect(r, 8, &f, &e), BSPKIT_ERR_TRUNCATED);
    assert_non_null(strstr(e.message, "rBSP 37"));
    const uint8_t r1[8] = {'r', 'B', 'S', 'P', 29, 0, 0, 0};
    assert_int_equal(detect(r1, 8, &f, &e), BSPKIT_ERR_UNSUPPORTED);
    assert_non_null(strstr(e.message, "Titanfall rBSP version 29"));
    const uint8_t apex[8] = {'r', 'B', 'S', 'P', 47, 0, 0, 0};
    assert_int_equal(detect(apex, 8, &f, &e), BSPKIT_ERR_UNSUPPORTED);
    assert_non_null(strstr(e.message, "Apex Legends"));
    const uint8_t zip[8] = {'P', 'K', 3, 4, 0, 0, 0, 0};
    assert_int_equal(detect(zip, 8, &f, &e), BSPKIT_ERR_UNSUPPORTED);
    assert_non_null(strstr(e.message, "zip"));
    /* Dark Messiah (0x40014) is read: a header cut short is truncated, not foreign. */
    const uint8_t dm[8] = {'V', 'B', 'S', 'P', 0x14, 0x00, 0x04, 0x00};
    assert_int_equal(detect(dm, 8, &f, &e), BSPKIT_ERR_TRUNCATED);
    const uint8_t junk[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    assert_int_equal(detect(junk, 8, &f, &e), BSPKIT_ERR_UNKNOWN_FORMAT);
    const char *vmf = "versioninfo\n{\n}";
    assert_int_equal(detect(vmf, strlen(vmf), &f, &e), BSPKIT_ERR_UNSUPPORTED);
    /* A VBSP header cut inside the directory. */
    uint8_t vb[100] = {'V', 'B', 'S', 'P', 20};
    assert_int_equal(detect(vb, sizeof vb, &f, &e), BSPKIT_ERR_TRUNCATED);
    /* A BSP30 header cut inside the directory. */
    uint8_t gs[40] = {30};
    assert_int_equal(detect(gs, sizeof gs, &f, &e), BSPKIT_ERR_TRUNCATED);
}

static buf entity_lump(const char *text)
{
    buf b = {0};
    put(&b, text, strlen(text) + 1);
    return b;
}

static buf one_plane(void)
{
    buf b = {0};
    putf(&b, 0, false);
    putf(&b, 0, false);
    putf(&b, 1, false);
    putf(&b, 64, false);
    put32(&b, 2, false);
    return b;
}

static void test_detect_goldsrc_and_blueshift(void **state)
{
    (void)state;
    buf lumps[15] = {0};
    lumps[0] = entity_lump("{\n\"classname\" \"worldspawn\"\n}\n");
    lumps[1] = one_plane();
    buf f = make_q(30, lumps);
    bspkit_map *map;
    bspkit_error e;
    assert_int_equal(bspkit_open_memory(f.data, f.size, NULL, &map, &e), BSPKIT_OK);
    assert_int_equal(bspkit_map_format(map)->family, BSPKIT_FAMILY_GOLDSRC);
    assert_false(bspkit_map_format(map)->variant & BSPKIT_VARIANT_BLUESHIFT);
    assert_string_equal(bspkit_map_format(map)->name, "GoldSrc BSP30");
    const bspkit_plane *p;
    size_t n;
    assert_int_equal(bspkit_get_planes(map, &p, &n, &e), BSPKIT_OK);
    assert_int_equal(n, 1);
    assert_true(p[0].dist == 64.0f && p[0].normal.z == 1.0f && p[0].type == 2);
    bspkit_close(map);

    /* Swap the two directory entries: Blue Shift order, read back the same. */
    uint8_t tmp[8];
    memcpy(tmp, f.data + 4, 8);
    memcpy(f.data + 4, f.data + 12, 8);
    memcpy(f.data + 12, tmp, 8);
    assert_int_equal(bspkit_open_memory(f.data, f.size, NULL, &map, &e), BSPKIT_OK);
    assert_true(bspkit_map_format(map)->variant & BSPKIT_VARIANT_BLUESHIFT);
    assert_string_equal(bspkit_map_format(map)->name, "GoldSrc BSP30 (Blue Shift)");
    assert_int_equal(bspkit_get_planes(map, &p, &n, &e), BSPKIT_OK);
    assert_int_equal(n, 1);
    assert_true(p[0].dist == 64.0f);
    const bspkit_entities *ents;
    assert_int_equal(bspkit_get_entities(map, &ents, &e), BSPKIT_OK);
    assert_int_equal(ents->count, 1);
    assert_string_equal(bspkit_entity_value(ents, 0, "classname"), "worldspawn");
    bspkit_close(map);
    free(f.data);
}

static void test_lump_range_and_size_errors(void **state)
{
    (void)state;
    buf lumps[15] = {0};
    lumps[1] = one_plane();
    lumps[3].data = malloc(13);
    memset(lumps[3].data, 0, 13);
    lumps[3].size = 13; /* vertexes: not a multiple of 12 */
    buf f = make_q(30, lumps);
    bspkit_map *map;
    bspkit_error e;
    assert_int_equal(bspkit_open_memory(f.data, f.size, NULL, &map, &e), BSPKIT_ERR_LUMP_SIZE);
    assert_int_equal(e.lump, BSPKIT_Q_VERTEXES);
    assert_int_equal(e.offset, (int64_t)rd_le32(f.data + 4 + 8 * 3));
    assert_non_null(strstr(e.message, "VERTEXES"));
    /* Now point PLANES past the end of the file. */
    wr_le32(f.data + 4 + 8 * 3 + 4, 12);
    wr_le32(f.data + 4 + 8 * 1, (uint32_t)f.size - 8);
    assert_int_equal(bspkit_open_memory(f.data, f.size, NULL, &map, &e), BSPKIT_ERR_LUMP_RANGE);
    assert_int_equal(e.lump, BSPKIT_Q_PLANES);
    assert_non_null(strstr(e.message, "PLANES"));
    free(f.data);
}

/* ---- GoldSrc/Quake decoders --------------------------------------------- */

static void test_goldsrc_records(void **state)
{
    (void)state;
    buf L[15] = {0};
    /* node: plane 3, children 1 and -2, mins (-16,-32,-48) maxs (16,32,48), faces 5+2 */
    put32(&L[5], 3, false);
    put16(&L[5], 1, false);
    put16(&L[5], (uint16_t)-2, false);
    int16_t bb[6] = {-16, -32, -48, 16, 32, 48};
    for (int i = 0; i < 6; i++)
        put16(&L[5], (uint16_t)bb[i], false);
    put16(&L[5], 5, false);
    put16(&L[5], 2, false);
    /* face: plane 7, side 1, first edge 9, 4 edges, texinfo 65535 (u16), styles 0 255 255 255, light 300 */
    put16(&L[7], 7, false);
    put16(&L[7], 1, false);
    put32(&L[7], 9, false);
    put16(&L[7], 4, false);
    put16(&L[7], 65535, false);
    const uint8_t styles[4] = {0, 255, 255, 255};
    put(&L[7], styles, 4);
    put32(&L[7], 300, false);
    /* clipnode: plane 2, children 0 and -2 (solid) */
    put32(&L[9], 2, false);
    put16(&L[9], 0, false);
    put16(&L[9], (uint16_t)-2, false);
    /* leaf: contents -1, visofs 12, box, marksurfaces 3+4, ambient 1 2 3 4 */
    put32(&L[10], (uint32_t)-1, false);
    put32(&L[10], 12, false);
    for (int i = 0; i < 6; i++)
        put16(&L[10], (uint16_t)bb[i], false);
    put16(&L[10], 3, false);
    put16(&L[10], 4, false);
    const uint8_t amb[4] = {1, 2, 3, 4};
    put(&L[10], amb, 4);
    /* marksurfaces, edges, surfedges */
    put16(&L[11], 65534, false);
    put16(&L[12], 10, false);
    put16(&L[12], 65535, false);
    put32(&L[13], (uint32_t)-5, false);
    /* texinfo: s = (1,0,0,8) t = (0,-1,0,16), miptex 1, flags 1 */
    const float tv[8] = {1, 0, 0, 8, 0, -1, 0, 16};
    for (int i = 0; i < 8; i++)
        putf(&L[6], tv[i], false);
    put32(&L[6], 1, false);
    put32(&L[6], 1, false);
    /* model: bounds, origin, headnodes 0 1 2 3, visleafs 9, faces 4+5 */
    for (int i = 0; i < 9; i++)
        putf(&L[14], (float)i, false);
    for (int i = 0; i < 4; i++)
        put32(&L[14], (uint32_t)i, false);
    put32(&L[14], 9, false);
    put32(&L[14], 4, false);
    put32(&L[14], 5, false);
    buf f = make_q(30, L);

    bspkit_map *map;
    bspkit_error e;
    assert_int_equal(bspkit_open_memory(f.data, f.size, NULL, &map, &e), BSPKIT_OK);
    size_t n;
    const bspkit_node *nodes;
    assert_int_equal(bspkit_get_nodes(map, &nodes, &n, &e), BSPKIT_OK);
    assert_int_equal(n, 1);
    assert_int_equal(nodes[0].plane, 3);
    assert_int_equal(nodes[0].children[0], 1);
    assert_int_equal(nodes[0].children[1], -2);
    assert_true(nodes[0].mins.y == -32 && nodes[0].maxs.z == 48);
    assert_int_equal(nodes[0].first_face, 5);
    assert_int_equal(nodes[0].num_faces, 2);
    const bspkit_face *faces;
    assert_int_equal(bspkit_get_faces(map, &faces, &n, &e), BSPKIT_OK);
    assert_int_equal(faces[0].plane, 7);
    assert_int_equal(faces[0].side, 1);
    assert_int_equal(faces[0].first_edge, 9);
    assert_int_equal(faces[0].num_edges, 4);
    assert_int_equal(faces[0].texinfo, 65535);
    assert_int_equal(faces[0].styles[1], 255);
    assert_int_equal(faces[0].light_offset, 300);
    assert_int_equal(faces[0].dispinfo, -1);
    const bspkit_clipnode *cn;
    assert_int_equal(bspkit_get_clipnodes(map, &cn, &n, &e), BSPKIT_OK);
    assert_int_equal(cn[0].plane, 2);
    assert_int_equal(cn[0].children[1], -2);
    const bspkit_leaf *leafs;
    assert_int_equal(bspkit_get_leafs(map, &leafs, &n, &e), BSPKIT_OK);
    assert_int_equal(leafs[0].contents, -1);
    assert_int_equal(leafs[0].vis_offset, 12);
    assert_int_equal(leafs[0].first_leaf_face, 3);
    assert_int_equal(leafs[0].num_leaf_faces, 4);
    assert_int_equal(leafs[0].ambient_sound[3], 4);
    assert_int_equal(leafs[0].cluster, -1);
    const uint32_t *ms;
    assert_int_equal(bspkit_get_leaf_faces(map, &ms, &n, &e), BSPKIT_OK);
    assert_int_equal(ms[0], 65534);
    const bspkit_edge *edges;
    assert_int_equal(bspkit_get_edges(map, &edges, &n, &e), BSPKIT_OK);
    assert_int_equal(edges[0].v[1], 65535);
    const int32_t *se;
    assert_int_equal(bspkit_get_surfedges(map, &se, &n, &e), BSPKIT_OK);
    assert_int_equal(se[0], -5);
    const bspkit_texinfo *ti;
    assert_int_equal(bspkit_get_texinfo(map, &ti, &n, &e), BSPKIT_OK);
    assert_true(ti[0].texture_vecs[1][1] == -1.0f && ti[0].texture_vecs[1][3] == 16.0f);
    assert_int_equal(ti[0].texture, 1);
    assert_int_equal(ti[0].flags, 1);
    const bspkit_model *models;
    assert_int_equal(bspkit_get_models(map, &models, &n, &e), BSPKIT_OK);
    assert_true(models[0].maxs.x == 3.0f && models[0].origin.z == 8.0f);
    assert_int_equal(models[0].headnode[3], 3);
    assert_int_equal(models[0].vis_leafs, 9);
    assert_int_equal(models[0].first_face, 4);
    assert_int_equal(models[0].num_faces, 5);
    /* Source-only accessors answer with nothing. */
    const bspkit_brush *br;
    assert_int_equal(bspkit_get_brushes(map, &br, &n, &e), BSPKIT_OK);
    assert_int_equal(n, 0);

    /* One count per record lump, in lump order, from the bytes written above;
     * the miptex lump (key "textures") is not a record array. */
    static const struct {
        const char *key;
        uint64_t count;
    } want[] = {{"planes", 0},   {"vertexes", 0},     {"nodes", 1}, {"texinfo", 1},  {"faces", 1},
                {"clipnodes", 1}, {"leafs", 1}, {"marksurfaces", 1}, {"edges", 1}, {"surfedges", 1}, {"models", 1}};
    const size_t nwant = sizeof want / sizeof want[0];
    bspkit_record_count rc[BSPKIT_MAX_LUMPS];
    assert_int_equal(bspkit_map_record_counts(map, NULL, 0), nwant);
    assert_int_equal(bspkit_map_record_counts(map, rc, 3), nwant); /* writes only the first 3 */
    assert_string_equal(rc[2].key, "nodes");
    memset(rc, 0, sizeof rc);
    assert_int_equal(bspkit_map_record_counts(map, rc, BSPKIT_MAX_LUMPS), nwant);
    for (size_t k = 0; k < nwant; k++) {
        assert_string_equal(rc[k].key, want[k].key);
        assert_int_equal(rc[k].count, want[k].count);
    }
    assert_null(rc[nwant].key);
    bspkit_close(map);
    free(f.data);
}

static void test_bsp2_records(void **state)
{
    (void)state;
    buf L[15] = {0};
    /* BSP2 node: int32 plane, int32 children, float bounds, uint32 faces */
    put32(&L[5], 70000, false);
    put32(&L[5], 40000, false);
    put32(&L[5], (uint32_t)-70001, false);
    for (int i = 0; i < 6; i++)
        putf(&L[5], 0.5f * (float)i, false);
    put32(&L[5], 100000, false);
    put32(&L[5], 3, false);
    /* BSP2 edge: two uint32 */
    put32(&L[12], 123456, false);
    put32(&L[12], 7, false);
    buf f = make_q(29, L);
    memcpy(f.data, "BSP2", 4);
    bspkit_map *map;
    bspkit_error e;
    assert_int_equal(bspkit_open_memory(f.data, f.size, NULL, &map, &e), BSPKIT_OK);
    assert_true(bspkit_map_format(map)->variant & BSPKIT_VARIANT_BSP2);
    assert_int_equal(bspkit_map_format(map)->family, BSPKIT_FAMILY_QUAKE);
    assert_string_equal(bspkit_map_format(map)->name, "Quake BSP2");
    size_t n;
    const bspkit_node *nodes;
    assert_int_equal(bspkit_get_nodes(map, &nodes, &n, &e), BSPKIT_OK);
    assert_int_equal(n, 1);
    assert_int_equal(nodes[0].plane, 70000);
    assert_int_equal(nodes[0].children[1], -70001);
    assert_true(nodes[0].maxs.z == 2.5f);
    assert_int_equal(nodes[0].first_face, 100000);
    const bspkit_edge *edges;
    assert_int_equal(bspkit_get_edges(map, &edges, &n, &e), BSPKIT_OK);
    assert_int_equal(edges[0].v[0], 123456);
    bspkit_close(map);
    free(f.data);
}

static void add_miptex(buf *b, const char *name, uint32_t w, uint32_t h, bool embedded, bool palette)
{
    size_t start = b->size;
    char nm[16] = {0};
    strncpy(nm, name, 15);
    put(b, nm, 16);
    put32(b, w, false);
    put32(b, h, false);
    uint32_t ofs = 40;
    for (int k = 0; k < 4; k++) {
        put32(b, embedded ? ofs : 0, false);
        ofs += (w >> k) * (h >> k);
    }
    if (!embedded)
        return;
    for (uint32_t i = 0; i < ofs - 40; i++) {
        uint8_t px = (uint8_t)i;
        put(b, &px, 1);
    }
    if (palette) {
        put16(b, 256, false);
        for (int i = 0; i < 768; i++) {
            uint8_t c = (uint8_t)(i / 3);
            put(b, &c, 1);
        }
        put16(b, 0, false);
    }
    (void)start;
}

static void test_miptex(void **state)
{
    (void)state;
    buf L[15] = {0};
    buf tex = {0};
    put32(&tex, 3, false);
    put32(&tex, 16, false);          /* first miptex right after the 3 offsets */
    put32(&tex, (uint32_t)-1, false); /* missing texture */
    put32(&tex, 0, false);           /* patched below */
    add_miptex(&tex, "BRICK", 16, 16, true, true);
    uint32_t second = (uint32_t)tex.size;
    wr_le32(tex.data + 12, second);
    add_miptex(&tex, "{FENCE", 32, 16, false, false);
    L[2] = tex;
    buf f = make_q(30, L);
    bspkit_map *map;
    bspkit_error e;
    assert_int_equal(bspkit_open_memory(f.data, f.size, NULL, &map, &e), BSPKIT_OK);
    const bspkit_miptex *m;
    size_t n;
    assert_int_equal(bspkit_get_miptex(map, &m, &n, &e), BSPKIT_OK);
    assert_int_equal(n, 3);
    assert_string_equal(m[0].name, "BRICK");
    assert_true(m[0].embedded);
    assert_int_equal(m[0].width, 16);
    assert_non_null(m[0].mips[3]);
    assert_int_equal(m[0].mips[0][5], 5); /* pixel i holds i */
    assert_int_equal(m[0].mips[1][0], (uint8_t)256);
    assert_int_equal(m[0].palette_size, 256);
    assert_int_equal(m[0].palette[3 * 200], 200);
    assert_int_equal(m[1].lump_offset, -1);
    assert_string_equal(m[2].name, "{FENCE");
    assert_false(m[2].embedded);
    assert_null(m[2].mips[0]);
    assert_int_equal(m[2].lump_offset, second);
    bspkit_close(map);

    /* Cut the first texture's palette: the error names the texture and the lump byte. */
    uint32_t tofs = rd_le32(f.data + 4 + 8 * 2);
    uint32_t pal_at = 16 + 40 + 256 + 64 + 16 + 4;
    memset(f.data + tofs + pal_at, 0xFF, 2); /* palette size 65535 */
    assert_int_equal(bspkit_open_memory(f.data, f.size, NULL, &map, &e), BSPKIT_OK);
    assert_int_equal(bspkit_get_miptex(map, &m, &n, &e), BSPKIT_ERR_TEXTURES);
    assert_int_equal(e.lump, BSPKIT_Q_TEXTURES);
    assert_int_equal(e.lump_offset, pal_at);
    assert_int_equal(e.offset, tofs + pal_at);
    assert_non_null(strstr(e.message, "BRICK"));
    bspkit_close(map);
    free(f.data);
}

/* ---- Source decoders ---------------------------------------------------- */

static void source_records(bool be, bool l4d2, int32_t version)
{
    buf L[64] = {0};
    int32_t versions[64] = {0};
    put(&L[0], "{\n\"classname\" \"worldspawn\"\n}\n", 30);
    /* face (56 bytes) */
    put16(&L[7], 513, be);
    const uint8_t so[2] = {1, 0};
    put(&L[7], so, 2);
    put32(&L[7], 1000, be);
    put16(&L[7], 5, be);
    put16(&L[7], 42, be);
    put16(&L[7], (uint16_t)-1, be);
    put16(&L[7], 3, be);
    const uint8_t styles[4] = {0, 1, 255, 255};
    put(&L[7], styles, 4);
    put32(&L[7], 2048, be);
    putf(&L[7], 96.5f, be);
    put32(&L[7], (uint32_t)-4, be);
    put32(&L[7], 8, be);
    put32(&L[7], 15, be);
    put32(&L[7], 3, be);
    put32(&L[7], 77, be);
    put16(&L[7], 0x8002, be); /* 2 primitives + the no-shadows flag */
    put16(&L[7], 9, be);
    put32(&L[7], 0x10, be);
    versions[7] = 1;
    /* leaf version 1 (32 bytes): area 300, flags 5 */
    put32(&L[10], 1, be);
    put16(&L[10], 12, be);
    put16(&L[10], (uint16_t)(300 | (5 << 9)), be);
    for (int i = 0; i < 6; i++)
        put16(&L[10], (uint16_t)(i * 10), be);
    put16(&L[10], 1, be);
    put16(&L[10], 2, be);
    put16(&L[10], 3, be);
    put16(&L[10], 4, be);
    put16(&L[10], (uint16_t)-1, be);
    put16(&L[10], 0, be);
    versions[10] = 1;
    /* node (32 bytes) */
    put32(&L[5], 4, be);
    put32(&L[5], 1, be);
    put32(&L[5], (uint32_t)-3, be);
    for (int i = 0; i < 6; i++)
        put16(&L[5], (uint16_t)(-i), be);
    put16(&L[5], 60000, be);
    put16(&L[5], 6, be);
    put16(&L[5], (uint16_t)-1, be);
    put16(&L[5], 0, be);
    /* texinfo (72) */
    for (int i = 0; i < 16; i++)
        putf(&L[6], (float)i, be);
    put32(&L[6], 0x800, be);
    put32(&L[6], 1, be);
    /* texdata (32), string table, string data */
    putf(&L[2], 0.25f, be);
    putf(&L[2], 0.5f, be);
    putf(&L[2], 0.75f, be);
    put32(&L[2], 1, be);
    put32(&L[2], 256, be);
    put32(&L[2], 128, be);
    put32(&L[2], 256, be);
    put32(&L[2], 128, be);
    put(&L[43], "TOOLS/NODRAW\0BRICK/WALL01", 26); /* no final NUL on purpose */
    put32(&L[44], 0, be);
    put32(&L[44], 13, be);
    /* model (48) */
    for (int i = 0; i < 9; i++)
        putf(&L[14], (float)-i, be);
    put32(&L[14], 0, be);
    put32(&L[14], 2, be);
    put32(&L[14], 30, be);
    /* brush, brushside */
    put32(&L[18], 10, be);
    put32(&L[18], 6, be);
    put32(&L[18], 0x8000001, be);
    put16(&L[19], 65000, be);
    put16(&L[19], 11, be);
    put16(&L[19], (uint16_t)-1, be);
    put16(&L[19], 1, be);
    /* edges, surfedges, leaffaces, leafbrushes */
    put16(&L[12], 1, be);
    put16(&L[12], 65535, be);
    put32(&L[13], (uint32_t)-7, be);
    put16(&L[16], 40000, be);
    put16(&L[17], 123, be);
    /* area, areaportal, cubemap */
    put32(&L[20], 2, be);
    put32(&L[20], 5, be);
    put16(&L[21], 1, be);
    put16(&L[21], 2, be);
    put16(&L[21], 3, be);
    put16(&L[21], 4, be);
    put32(&L[21], 99, be);
    put32(&L[42], (uint32_t)-100, be);
    put32(&L[42], 200, be);
    put32(&L[42], 300, be);
    put(&L[42], "\x06\0\0", 4); /* unsigned char size + padding, the same in either byte order */
    /* visibility: 2 clusters; cluster 0 PVS at 20 ("01"), PAS at 21 ("02");
     * cluster 1 PVS at 22 ("03"), PAS at 23 ("00 01": a run of one zero byte) */
    put32(&L[4], 2, be);
    put32(&L[4], 20, be);
    put32(&L[4], 21, be);
    put32(&L[4], 22, be);
    put32(&L[4], 23, be);
    const uint8_t rows[5] = {0x01, 0x02, 0x03, 0x00, 0x01};
    put(&L[4], rows, 5);

    buf f = make_s(version, be, l4d2, L, versions);
    bspkit_map *map;
    bspkit_error e;
    assert_int_equal(bspkit_open_memory(f.data, f.size, NULL, &map, &e), BSPKIT_OK);
    const bspkit_format *fmt = bspkit_map_format(map);
    assert_int_equal(fmt->family, BSPKIT_FAMILY_SOURCE);
    assert_int_equal(fmt->version, version);
    assert_int_equal(fmt->big_endian, be);
    assert_int_equal(fmt->revision, 7);
    assert_int_equal(!!(fmt->variant & BSPKIT_VARIANT_L4D2_DIRECTORY), l4d2);
    size_t n;
    const bspkit_face *faces;
    assert_int_equal(bspkit_get_faces(map, &faces, &n, &e), BSPKIT_OK);
    assert_int_equal(n, 1);
    assert_int_equal(faces[0].plane, 513);
    assert_int_equal(faces[0].side, 1);
    assert_int_equal(faces[0].first_edge, 1000);
    assert_int_equal(faces[0].num_edges, 5);
    assert_int_equal(faces[0].texinfo, 42);
    assert_int_equal(faces[0].dispinfo, -1);
    assert_int_equal(faces[0].fog_volume, 3);
    assert_int_equal(faces[0].styles[1], 1);
    assert_int_equal(faces[0].light_offset, 2048);
    assert_true(faces[0].area == 96.5f);
    assert_int_equal(faces[0].lightmap_mins[0], -4);
    assert_int_equal(faces[0].lightmap_size[1], 3);
    assert_int_equal(faces[0].orig_face, 77);
    assert_int_equal(faces[0].num_prims, 2);
    assert_int_equal(faces[0].first_prim, 9);
    assert_int_equal(faces[0].smoothing_groups, 0x10);
    const bspkit_leaf *leafs;
    assert_int_equal(bspkit_get_leafs(map, &leafs, &n, &e), BSPKIT_OK);
    assert_int_equal(leafs[0].cluster, 12);
    assert_int_equal(leafs[0].area, 300);
    assert_int_equal(leafs[0].flags, 5);
    assert_true(leafs[0].maxs.z == 50);
    assert_int_equal(leafs[0].num_leaf_brushes, 4);
    assert_int_equal(leafs[0].leaf_water, -1);
    assert_false(leafs[0].has_ambient_cube);
    const bspkit_node *nodes;
    assert_int_equal(bspkit_get_nodes(map, &nodes, &n, &e), BSPKIT_OK);
    assert_int_equal(nodes[0].children[1], -3);
    assert_true(nodes[0].maxs.z == -5);
    assert_int_equal(nodes[0].first_face, 60000);
    assert_int_equal(nodes[0].area, -1);
    const bspkit_texinfo *ti;
    assert_int_equal(bspkit_get_texinfo(map, &ti, &n, &e), BSPKIT_OK);
    assert_true(ti[0].texture_vecs[1][2] == 6.0f && ti[0].lightmap_vecs[1][3] == 15.0f);
    assert_int_equal(ti[0].flags, 0x800);
    assert_int_equal(ti[0].texture, 1);
    const bspkit_texdata *td;
    assert_int_equal(bspkit_get_texdata(map, &td, &n, &e), BSPKIT_OK);
    assert_true(td[0].reflectivity.z == 0.75f);
    assert_int_equal(td[0].name_id, 1);
    assert_int_equal(td[0].view_height, 128);
    assert_string_equal(bspkit_texdata_name(map, 0), "BRICK/WALL01");
    assert_null(bspkit_texdata_name(map, 1));
    const bspkit_model *models;
    assert_int_equal(bspkit_get_models(map, &models, &n, &e), BSPKIT_OK);
    assert_true(models[0].origin.z == -8.0f);
    assert_int_equal(models[0].num_faces, 30);
    const bspkit_brush *br;
    assert_int_equal(bspkit_get_brushes(map, &br, &n, &e), BSPKIT_OK);
    assert_int_equal(br[0].contents, 0x8000001);
    const bspkit_brushside *bs;
    assert_int_equal(bspkit_get_brushsides(map, &bs, &n, &e), BSPKIT_OK);
    assert_int_equal(bs[0].plane, 65000);
    assert_int_equal(bs[0].dispinfo, -1);
    assert_int_equal(bs[0].bevel, 1);
    const bspkit_edge *edges;
    assert_int_equal(bspkit_get_edges(map, &edges, &n, &e), BSPKIT_OK);
    assert_int_equal(edges[0].v[1], 65535);
    const int32_t *se;
    assert_int_equal(bspkit_get_surfedges(map, &se, &n, &e), BSPKIT_OK);
    assert_int_equal(se[0], -7);
    const uint32_t *lf, *lb;
    assert_int_equal(bspkit_get_leaf_faces(map, &lf, &n, &e), BSPKIT_OK);
    assert_int_equal(lf[0], 40000);
    assert_int_equal(bspkit_get_leaf_brushes(map, &lb, &n, &e), BSPKIT_OK);
    assert_int_equal(lb[0], 123);
    const bspkit_area *ar;
    assert_int_equal(bspkit_get_areas(map, &ar, &n, &e), BSPKIT_OK);
    assert_int_equal(ar[0].first_portal, 5);
    const bspkit_areaportal *ap;
    assert_int_equal(bspkit_get_areaportals(map, &ap, &n, &e), BSPKIT_OK);
    assert_int_equal(ap[0].num_clip_verts, 4);
    assert_int_equal(ap[0].plane, 99);
    const bspkit_cubemap *cm;
    assert_int_equal(bspkit_get_cubemaps(map, &cm, &n, &e), BSPKIT_OK);
    assert_int_equal(cm[0].origin[0], -100);
    assert_int_equal(cm[0].size, 6);
    uint32_t nrows, row_bytes;
    assert_int_equal(bspkit_vis_dimensions(map, &nrows, &row_bytes, &e), BSPKIT_OK);
    assert_int_equal(nrows, 2);
    assert_int_equal(row_bytes, 1);
    uint8_t row;
    assert_int_equal(bspkit_vis_row(map, 1, BSPKIT_VIS_PVS, &row, 1, &e), BSPKIT_OK);
    assert_int_equal(row, 0x03);
    assert_int_equal(bspkit_vis_row(map, 1, BSPKIT_VIS_PAS, &row, 1, &e), BSPKIT_OK);
    assert_int_equal(row, 0x00);
    assert_int_equal(bspkit_vis_row(map, 0, BSPKIT_VIS_PAS, &row, 1, &e), BSPKIT_OK);
    assert_int_equal(row, 0x02);
    assert_int_equal(bspkit_vis_row(map, 2, BSPKIT_VIS_PVS, &row, 1, &e), BSPKIT_ERR_ARGUMENT);
    bspkit_close(map);
    free(f.data);
}

static void test_source_records_le(void **state)
{
    (void)state;
    source_records(false, false, 20);
}

static void test_source_records_be(void **state)
{
    (void)state;
    source_records(true, false, 20);
}

static void test_source_records_l4d2_directory(void **state)
{
    (void)state;
    source_records(false, true, 21);
}

static void test_source_leaf_v0_ambient_cube(void **state)
{
    (void)state;
    buf L[64] = {0};
    put32(&L[10], 1, false);
    put16(&L[10], 0, false);
    put16(&L[10], 1, false);
    for (int i = 0; i < 11; i++)
        put16(&L[10], 0, false);
    for (int i = 0; i < 24; i++) {
        uint8_t c = (uint8_t)(i + 1);
        put(&L[10], &c, 1);
    }
    put16(&L[10], 0, false);
    assert_int_equal(L[10].size, 56);
    buf f = make_s(19, false, false, L, NULL);
    bspkit_map *map;
    bspkit_error e;
    assert_int_equal(bspkit_open_memory(f.data, f.size, NULL, &map, &e), BSPKIT_OK);
    const bspkit_leaf *leafs;
    size_t n;
    assert_int_equal(bspkit_get_leafs(map, &leafs, &n, &e), BSPKIT_OK);
    assert_int_equal(n, 1);
    assert_true(leafs[0].has_ambient_cube);
    assert_int_equal(leafs[0].ambient_cube[0].r, 1);
    assert_int_equal(leafs[0].ambient_cube[5].exponent, 24);
    bspkit_close(map);
    free(f.data);
}

/* ---- memory limits ------------------------------------------------------ */

static void test_memory_limit(void **state)
{
    (void)state;
    buf L[15] = {0};
    for (int i = 0; i < 1000; i++) {
        put32(&L[13], (uint32_t)i, false); /* 1000 surfedges: read where they are */
        put32(&L[12], (uint32_t)i, false); /* 1000 edges of two 16-bit indices: 8000 decoded bytes */
    }
    buf f = make_q(30, L);
    bspkit_options opts = {0};
    opts.max_memory = 1000;
    bspkit_map *map;
    bspkit_error e;
    assert_int_equal(bspkit_open_memory(f.data, f.size, &opts, &map, &e), BSPKIT_OK);
    const bspkit_edge *edges;
    size_t n;
    assert_int_equal(bspkit_get_edges(map, &edges, &n, &e), BSPKIT_ERR_LIMIT);
    assert_int_equal(e.lump, BSPKIT_Q_EDGES);
    assert_true(bspkit_map_memory_used(map) <= 1000);
    /* Surfedges need no memory: the lump's own bytes are the records (a
     * 4-byte-aligned lump of a little-endian map on a little-endian host). */
    uint64_t used = bspkit_map_memory_used(map);
    const int32_t *se;
    const uint8_t *raw;
    size_t raw_size;
    assert_int_equal(bspkit_get_surfedges(map, &se, &n, &e), BSPKIT_OK);
    assert_int_equal(n, 1000);
    assert_int_equal(se[999], 999);
    assert_int_equal(bspkit_map_memory_used(map), used);
    assert_int_equal(bspkit_lump_bytes(map, BSPKIT_Q_SURFEDGES, &raw, &raw_size, &e), BSPKIT_OK);
    assert_ptr_equal((const void *)se, (const void *)raw);
    bspkit_close(map);
    /* The same bytes one byte off alignment: copied out, the same values. */
    uint8_t *shifted = malloc(f.size + 1);
    assert_non_null(shifted);
    memcpy(shifted + 1, f.data, f.size);
    assert_int_equal(bspkit_open_memory(shifted + 1, f.size, NULL, &map, &e), BSPKIT_OK);
    assert_int_equal(bspkit_get_surfedges(map, &se, &n, &e), BSPKIT_OK);
    assert_int_equal(n, 1000);
    assert_true(((uintptr_t)(const void *)se & 3) == 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(se[i], (int32_t)i);
    assert_true(bspkit_map_memory_used(map) >= 4000);
    bspkit_close(map);
    free(shifted);
    opts.max_file_size = f.size - 1;
    assert_int_equal(bspkit_open_memory(f.data, f.size, &opts, &map, &e), BSPKIT_ERR_LIMIT);
    free(f.data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_readers),
        cmocka_unit_test(test_range_ok),
        cmocka_unit_test(test_detect_foreign),
        cmocka_unit_test(test_detect_goldsrc_and_blueshift),
        cmocka_unit_test(test_lump_range_and_size_errors),
        cmocka_unit_test(test_goldsrc_records),
        cmocka_unit_test(test_bsp2_records),
        cmocka_unit_test(test_miptex),
        cmocka_unit_test(test_source_records_le),
        cmocka_unit_test(test_source_records_be),
        cmocka_unit_test(test_source_records_l4d2_directory),
        cmocka_unit_test(test_source_leaf_v0_ambient_cube),
        cmocka_unit_test(test_memory_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
