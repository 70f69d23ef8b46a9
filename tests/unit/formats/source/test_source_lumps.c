/* Unit tests for bspkit/source_lumps.h. Every lump is encoded byte by byte
 * here, in the byte order under test, and put into a sample map with the
 * builder's raw-lump setter; the expected values are the ones encoded. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bspkit/bspkit.h"
#include "bspkit/source_lumps.h"
#include "bspkit/write.h"
#include "check.h"
#include "core/bytes.h"
#include "core/table.h"
#include "formats/source/family.h"

#include <stdlib.h>
#include <string.h>

/* ---- encoding --------------------------------------------------------- */

typedef struct enc {
    uint8_t data[8192];
    size_t size;
    bool be;
} enc;

static void put8(enc *e, uint8_t v)
{
    assert_true(e->size + 1 <= sizeof e->data);
    e->data[e->size++] = v;
}

static void put16(enc *e, uint16_t v)
{
    assert_true(e->size + 2 <= sizeof e->data);
    wr_u16(e->data + e->size, v, e->be);
    e->size += 2;
}

static void put32(enc *e, uint32_t v)
{
    assert_true(e->size + 4 <= sizeof e->data);
    wr_u32(e->data + e->size, v, e->be);
    e->size += 4;
}

static void putf(enc *e, float f) { put32(e, float_to_bits(f)); }

static void putraw(enc *e, const void *p, size_t n)
{
    assert_true(e->size + n <= sizeof e->data);
    memcpy(e->data + e->size, p, n);
    e->size += n;
}

/* A float that differs per record and per field, so a swapped field shows. */
static float fv(int rec, int field) { return (float)rec * 100.0f + (float)field + 0.25f; }

/* ---- maps --------------------------------------------------------------- */

typedef struct lump_bytes {
    int lump;
    const enc *e;
    int32_t version;
} lump_bytes;

/* The Source sample room (VBSP 20) in byte order `be` with the given raw lumps. */
static bspkit_map *open_with(bool be, const lump_bytes *lumps, size_t n, uint8_t **file)
{
    bspkit_builder *b;
    bspkit_write_options opts;
    CHECK(bspkit_sample_builder(be ? BSPKIT_SAMPLE_SOURCE_ROOM_BE : BSPKIT_SAMPLE_SOURCE_ROOM, &b, &opts, ERR));
    for (size_t i = 0; i < n; i++)
        CHECK(bspkit_builder_set_lump(b, lumps[i].lump, lumps[i].e->data, lumps[i].e->size, lumps[i].version, ERR));
    size_t size;
    CHECK(bspkit_builder_write(b, &opts, file, &size, ERR));
    bspkit_builder_free(b);
    bspkit_map *map;
    CHECK(bspkit_open_memory(*file, size, NULL, &map, ERR));
    assert_int_equal(bspkit_map_format(map)->big_endian, be);
    return map;
}

/* An otherwise empty map of `version` holding only the given raw lumps. */
static uint8_t *write_bare(int32_t version, bool be, const lump_bytes *lumps, size_t n, size_t *size)
{
    bspkit_builder *b;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_SOURCE, version, &b, ERR));
    for (size_t i = 0; i < n; i++)
        CHECK(bspkit_builder_set_lump(b, lumps[i].lump, lumps[i].e->data, lumps[i].e->size, lumps[i].version, ERR));
    bspkit_write_options opts = {.big_endian = be};
    uint8_t *file;
    CHECK(bspkit_builder_write(b, &opts, &file, size, ERR));
    bspkit_builder_free(b);
    return file;
}

static void close_map(bspkit_map *map, uint8_t *file)
{
    bspkit_close(map);
    bspkit_free_buffer(file);
}

/* ---- overlays ----------------------------------------------------------- */

static void encode_overlay(enc *e, int rec, int nfaces, uint16_t face_count, uint16_t order)
{
    put32(e, (uint32_t)(1000 + rec));                   /* Id */
    put16(e, (uint16_t)(int16_t)(rec == 1 ? -1 : 7));   /* TexInfo (negative in record 1) */
    put16(e, (uint16_t)(face_count | (order << 14)));  /* FaceCountAndRenderOrder */
    for (int k = 0; k < nfaces; k++)
        put32(e, (uint32_t)(k < face_count ? rec * 1000 + k : 0));
    for (int k = 0; k < 22; k++)
        putf(e, fv(rec, k));                            /* U[2] V[2] UVPoints[4] Origin BasisNormal */
}

static void check_overlay_tail(const float *u, const float *v, const bspkit_vec3 *uvp, const bspkit_vec3 *origin,
                               const bspkit_vec3 *normal, int rec)
{
    assert_true(u[0] == fv(rec, 0) && u[1] == fv(rec, 1));
    assert_true(v[0] == fv(rec, 2) && v[1] == fv(rec, 3));
    for (int k = 0; k < 4; k++) {
        assert_true(uvp[k].x == fv(rec, 4 + 3 * k));
        assert_true(uvp[k].y == fv(rec, 5 + 3 * k));
        assert_true(uvp[k].z == fv(rec, 6 + 3 * k));
    }
    assert_true(origin->x == fv(rec, 16) && origin->y == fv(rec, 17) && origin->z == fv(rec, 18));
    assert_true(normal->x == fv(rec, 19) && normal->y == fv(rec, 20) && normal->z == fv(rec, 21));
}

static void overlays_in(bool be)
{
    enc ov = {.be = be}, wov = {.be = be}, fades = {.be = be}, levels = {.be = be};
    encode_overlay(&ov, 0, 64, 3, 2);
    encode_overlay(&ov, 1, 64, 64, 3);
    assert_int_equal(ov.size, 2 * 352);
    encode_overlay(&wov, 0, 256, 256, 1);
    assert_int_equal(wov.size, 1120);
    for (int i = 0; i < 2; i++) {
        putf(&fades, fv(i, 30));
        putf(&fades, fv(i, 31));
        const uint8_t lv[4] = {(uint8_t)(1 + i), (uint8_t)(2 + i), (uint8_t)(3 + i), (uint8_t)(4 + i)};
        putraw(&levels, lv, 4);
    }
    const lump_bytes lumps[] = {{BSPKIT_S_OVERLAYS, &ov, 0},
                                {BSPKIT_S_WATEROVERLAYS, &wov, 0},
                                {BSPKIT_S_OVERLAY_FADES, &fades, 0},
                                {BSPKIT_S_OVERLAY_SYSTEM_LEVELS, &levels, 0}};
    uint8_t *file;
    bspkit_map *map = open_with(be, lumps, 4, &file);

    const bspkit_overlay *o;
    size_t n;
    CHECK(bspkit_get_overlays(map, &o, &n, ERR));
    assert_int_equal(n, 2);
    assert_int_equal(o[0].id, 1000);
    assert_int_equal(o[0].texinfo, 7);
    assert_int_equal(o[0].face_count, 3);
    assert_int_equal(o[0].render_order, 2);
    assert_int_equal(o[0].face_count_and_render_order, 3 | (2 << 14));
    assert_int_equal(o[0].faces[2], 2);
    assert_int_equal(o[1].id, 1001);
    assert_int_equal(o[1].texinfo, -1);
    assert_int_equal(o[1].face_count, 64);
    assert_int_equal(o[1].render_order, 3);
    for (int k = 0; k < 64; k++)
        assert_int_equal(o[1].faces[k], 1000 + k);
    for (int r = 0; r < 2; r++)
        check_overlay_tail(o[r].u, o[r].v, o[r].uv_points, &o[r].origin, &o[r].basis_normal, r);

    const bspkit_water_overlay *w;
    CHECK(bspkit_get_water_overlays(map, &w, &n, ERR));
    assert_int_equal(n, 1);
    assert_int_equal(w[0].face_count, 256);
    assert_int_equal(w[0].render_order, 1);
    assert_int_equal(w[0].faces[255], 255);
    check_overlay_tail(w[0].u, w[0].v, w[0].uv_points, &w[0].origin, &w[0].basis_normal, 0);

    const bspkit_overlay_fade *f;
    CHECK(bspkit_get_overlay_fades(map, &f, &n, ERR));
    assert_int_equal(n, 2);
    assert_true(f[1].fade_dist_min_sq == fv(1, 30) && f[1].fade_dist_max_sq == fv(1, 31));
    const bspkit_overlay_system_level *l;
    CHECK(bspkit_get_overlay_system_levels(map, &l, &n, ERR));
    assert_int_equal(n, 2);
    assert_int_equal(l[1].min_cpu_level, 2);
    assert_int_equal(l[1].max_cpu_level, 3);
    assert_int_equal(l[1].min_gpu_level, 4);
    assert_int_equal(l[1].max_gpu_level, 5);

    /* The dump table describes the same records. */
    bspkit_dump d;
    memset(&d, 0, sizeof d);
    CHECK(bk_tables_source(map, BSPKIT_S_OVERLAYS, 0, &d, ERR));
    assert_int_equal(d.table_count, 1);
    assert_int_equal(d.tables[0].count, 2);
    const bspkit_field *fid = NULL;
    for (size_t i = 0; i < d.tables[0].field_count; i++)
        if (strcmp(d.tables[0].fields[i].name, "Id") == 0)
            fid = &d.tables[0].fields[i];
    assert_non_null(fid);
    int32_t id;
    memcpy(&id, (const uint8_t *)bspkit_table_record(&d.tables[0], 1) + fid->offset, 4);
    assert_int_equal(id, 1001);
    memset(&d, 0, sizeof d);
    assert_int_equal(bk_tables_source(map, BSPKIT_S_PLANES, 0, &d, ERR), BSPKIT_ERR_NOT_FOUND);
    close_map(map, file);
}

/* Little-endian, then the same bytes' meaning encoded big-endian. */
static void test_overlays(void **state)
{
    (void)state;
    overlays_in(false);
    overlays_in(true);
}

/* ---- occlusion ---------------------------------------------------------- */

static void occlusion_in(bool be, int32_t version)
{
    enc e = {.be = be};
    put32(&e, 2); /* occluders */
    for (int i = 0; i < 2; i++) {
        put32(&e, (uint32_t)(10 + i)); /* flags */
        put32(&e, (uint32_t)i);        /* firstpoly */
        put32(&e, 1);                  /* polycount */
        for (int k = 0; k < 6; k++)
            putf(&e, fv(i, k));
        if (version >= 2)
            put32(&e, (uint32_t)(5 + i)); /* area */
    }
    put32(&e, 2); /* polygons */
    for (int i = 0; i < 2; i++) {
        put32(&e, (uint32_t)(3 * i));
        put32(&e, 3);
        put32(&e, (uint32_t)(40 + i));
    }
    put32(&e, 6); /* vertex indices */
    for (int i = 0; i < 6; i++)
        put32(&e, (uint32_t)(i * 2));
    const lump_bytes lumps[] = {{BSPKIT_S_OCCLUSION, &e, version}};
    uint8_t *file;
    bspkit_map *map = open_with(be, lumps, 1, &file);
    const bspkit_occlusion *oc;
    CHECK(bspkit_get_occlusion(map, &oc, ERR));
    assert_int_equal(oc->version, version);
    assert_int_equal(oc->occluder_count, 2);
    assert_int_equal(oc->occluders[1].flags, 11);
    assert_int_equal(oc->occluders[1].first_poly, 1);
    assert_int_equal(oc->occluders[1].poly_count, 1);
    assert_true(oc->occluders[1].mins.x == fv(1, 0) && oc->occluders[1].maxs.z == fv(1, 5));
    assert_int_equal(oc->occluders[0].area, version >= 2 ? 5 : -1);
    assert_int_equal(oc->occluders[1].area, version >= 2 ? 6 : -1);
    assert_int_equal(oc->poly_count, 2);
    assert_int_equal(oc->polys[1].first_vertex_index, 3);
    assert_int_equal(oc->polys[1].vertex_count, 3);
    assert_int_equal(oc->polys[1].plane, 41);
    assert_int_equal(oc->vertex_index_count, 6);
    assert_int_equal(oc->vertex_indices[5], 10);
    assert_int_equal(oc->trailing_bytes, 0);
    close_map(map, file);
}

static void test_occlusion_versions(void **state)
{
    (void)state;
    occlusion_in(false, 2);
    occlusion_in(false, 1);
    occlusion_in(true, 2);
    occlusion_in(true, 1);
}

/* ---- physics ------------------------------------------------------------ */

static void put_solid(enc *e, uint32_t size, const char *id_at0, const char *id_at44)
{
    put32(e, size);
    uint8_t body[64] = {0};
    assert_true(size <= sizeof body);
    if (id_at0)
        memcpy(body, id_at0, 4);
    if (id_at44)
        memcpy(body + 44, id_at44, 4);
    for (uint32_t k = 8; k < size && k < 44; k++)
        body[k] = (uint8_t)k;
    putraw(e, body, size);
}

static void physics_in(bool be)
{
    enc pc = {.be = be}, pd = {.be = be};
    const char *key0 = "solid { \"index\" \"0\" }";
    const char *key1 = "editparams { }";
    /* Model 0: three solids (a VPHY one, an older IVPS one, a Bloodlines MOPP one:
     * its id is an int like VPHY's, so a big-endian file shows it reversed). */
    size_t h0 = pc.size;
    put32(&pc, 0);
    put32(&pc, (4 + 20) + (4 + 48) + (4 + 48)); /* dataSize */
    put32(&pc, (uint32_t)strlen(key0));
    put32(&pc, 3);
    size_t s0 = pc.size;
    put_solid(&pc, 20, be ? "YHPV" : "VPHY", NULL);
    size_t s1 = pc.size;
    put_solid(&pc, 48, NULL, "IVPS");
    size_t s_mopp = pc.size;
    put_solid(&pc, 48, NULL, be ? "PPOM" : "MOPP");
    size_t k0 = pc.size;
    putraw(&pc, key0, strlen(key0));
    /* Model 1: one solid without a known id. */
    size_t h1 = pc.size;
    put32(&pc, 1);
    put32(&pc, 4 + 12);
    put32(&pc, (uint32_t)strlen(key1));
    put32(&pc, 1);
    size_t s2 = pc.size;
    put_solid(&pc, 12, NULL, NULL);
    putraw(&pc, key1, strlen(key1));
    /* Terminator. */
    put32(&pc, 0xFFFFFFFFu);
    put32(&pc, 0xFFFFFFFFu);
    put32(&pc, 0);
    put32(&pc, 0);

    put16(&pd, 2);
    put16(&pd, 5);
    put16(&pd, 3);
    putraw(&pd, "abcdeXYZ", 8);

    const lump_bytes lumps[] = {{BSPKIT_S_PHYSCOLLIDE, &pc, 0}, {BSPKIT_S_PHYSDISP, &pd, 0}};
    uint8_t *file;
    bspkit_map *map = open_with(be, lumps, 2, &file);
    const bspkit_physcollide *p;
    CHECK(bspkit_get_physcollide(map, &p, ERR));
    assert_true(p->terminated);
    assert_int_equal(p->end_offset, pc.size);
    assert_int_equal(p->model_count, 2);
    assert_int_equal(p->solid_count, 4);
    assert_int_equal(p->models[0].model_index, 0);
    assert_int_equal(p->models[0].offset, h0);
    assert_int_equal(p->models[0].data_size, 24 + 52 + 52);
    assert_int_equal(p->models[0].solid_count, 3);
    assert_int_equal(p->models[0].first_solid, 0);
    assert_int_equal(p->models[0].keydata_length, strlen(key0));
    assert_memory_equal(p->models[0].keydata, key0, strlen(key0));
    const uint8_t *lump;
    size_t lsize;
    CHECK(bspkit_lump_bytes(map, BSPKIT_S_PHYSCOLLIDE, &lump, &lsize, ERR));
    assert_ptr_equal(p->models[0].keydata, (const char *)lump + k0);
    assert_int_equal(p->models[1].model_index, 1);
    assert_int_equal(p->models[1].offset, h1);
    assert_int_equal(p->models[1].first_solid, 3);
    assert_memory_equal(p->models[1].keydata, key1, strlen(key1));
    assert_int_equal(p->solids[0].offset, s0);
    assert_int_equal(p->solids[0].size, 20);
    assert_string_equal(p->solids[0].id, "VPHY");
    assert_int_equal(p->solids[1].offset, s1);
    assert_int_equal(p->solids[1].size, 48);
    assert_string_equal(p->solids[1].id, "IVPS");
    assert_int_equal(p->solids[2].offset, s_mopp);
    assert_string_equal(p->solids[2].id, "MOPP");
    assert_int_equal(p->solids[3].offset, s2);
    assert_string_equal(p->solids[3].id, "");

    const bspkit_physdisp_entry *d;
    size_t n;
    CHECK(bspkit_get_physdisp(map, &d, &n, ERR));
    assert_int_equal(n, 2);
    assert_int_equal(d[0].offset, 6);
    assert_int_equal(d[0].size, 5);
    assert_int_equal(d[1].offset, 11);
    assert_int_equal(d[1].size, 3);
    close_map(map, file);
}

/* Little-endian, then the same bytes' meaning encoded big-endian. */
static void test_physics(void **state)
{
    (void)state;
    physics_in(false);
    physics_in(true);
}

/* ---- water, primitives, normals, per-face arrays ------------------------ */

static void surfaces_in(bool be)
{
    /* The sample's faces decide how many vertex normal indices there are. */
    uint8_t *file0;
    bspkit_map *map0 = open_with(be, NULL, 0, &file0);
    const bspkit_face *faces;
    size_t nfaces;
    CHECK(bspkit_get_faces(map0, &faces, &nfaces, ERR));
    assert_true(nfaces > 2);
    int32_t edges[64];
    assert_true(nfaces <= 64);
    size_t total = 0;
    for (size_t f = 0; f < nfaces; f++)
        total += (size_t)(edges[f] = faces[f].num_edges);
    close_map(map0, file0);

    enc lw = {.be = be}, md = {.be = be}, pr = {.be = be}, pv = {.be = be}, pi = {.be = be}, vn = {.be = be},
        vni = {.be = be}, ids = {.be = be}, mac = {.be = be}, cpv = {.be = be}, flags = {.be = be};
    for (int i = 0; i < 2; i++) {
        putf(&lw, fv(i, 0));
        putf(&lw, fv(i, 1));
        put16(&lw, (uint16_t)(int16_t)(i ? -3 : 4));
        put16(&lw, 0); /* padding */
    }
    for (int i = 0; i < 3; i++)
        put16(&md, (uint16_t)(65535 - i));
    for (int i = 0; i < 2; i++) {
        put8(&pr, (uint8_t)i); /* type */
        put8(&pr, 0);          /* padding */
        put16(&pr, (uint16_t)(100 + i));
        put16(&pr, (uint16_t)(200 + i));
        put16(&pr, (uint16_t)(300 + i));
        put16(&pr, (uint16_t)(60000 + i));
    }
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 3; k++)
            putf(&pv, fv(i, 10 + k));
    for (int i = 0; i < 5; i++)
        put16(&pi, (uint16_t)(i * 1000 + 7));
    const int nnormals = 3;
    for (int i = 0; i < nnormals; i++)
        for (int k = 0; k < 3; k++)
            putf(&vn, fv(i, 20 + k));
    for (size_t i = 0; i < total; i++)
        put16(&vni, (uint16_t)((i * 7) % (size_t)nnormals));
    for (size_t f = 0; f < nfaces; f++) {
        put16(&ids, (uint16_t)(500 + f));
        put16(&mac, f == 1 ? 0xFFFF : (uint16_t)f);
    }
    for (int k = 0; k < 6; k++)
        putf(&cpv, fv(3, k));
    put32(&flags, 0x7Eu);
    const lump_bytes lumps[] = {
        {BSPKIT_S_LEAFWATERDATA, &lw, 0},     {BSPKIT_S_LEAFMINDISTTOWATER, &md, 0},
        {BSPKIT_S_PRIMITIVES, &pr, 0},        {BSPKIT_S_PRIMVERTS, &pv, 0},
        {BSPKIT_S_PRIMINDICES, &pi, 0},       {BSPKIT_S_VERTNORMALS, &vn, 0},
        {BSPKIT_S_VERTNORMALINDICES, &vni, 0}, {BSPKIT_S_FACEIDS, &ids, 0},
        {BSPKIT_S_FACE_MACRO_TEXTURE_INFO, &mac, 0}, {BSPKIT_S_CLIPPORTALVERTS, &cpv, 0},
        {BSPKIT_S_MAP_FLAGS, &flags, 0},
    };
    uint8_t *file;
    bspkit_map *map = open_with(be, lumps, sizeof lumps / sizeof lumps[0], &file);
    size_t n;

    const bspkit_leaf_water *w;
    CHECK(bspkit_get_leaf_water(map, &w, &n, ERR));
    assert_int_equal(n, 2);
    assert_true(w[1].surface_z == fv(1, 0) && w[1].min_z == fv(1, 1));
    assert_int_equal(w[0].texinfo, 4);
    assert_int_equal(w[1].texinfo, -3);
    const uint16_t *u16;
    CHECK(bspkit_get_leaf_min_dist_to_water(map, &u16, &n, ERR));
    assert_int_equal(n, 3);
    assert_int_equal(u16[2], 65533);
    const bspkit_primitive *p;
    CHECK(bspkit_get_primitives(map, &p, &n, ERR));
    assert_int_equal(n, 2);
    assert_int_equal(p[1].type, 1);
    assert_int_equal(p[1].first_index, 101);
    assert_int_equal(p[1].index_count, 201);
    assert_int_equal(p[1].first_vert, 301);
    assert_int_equal(p[1].vert_count, 60001);
    const bspkit_vec3 *v3;
    CHECK(bspkit_get_prim_verts(map, &v3, &n, ERR));
    assert_int_equal(n, 2);
    assert_true(v3[1].x == fv(1, 10) && v3[1].z == fv(1, 12));
    const uint32_t *u32;
    CHECK(bspkit_get_prim_indices(map, &u32, &n, ERR));
    assert_int_equal(n, 5);
    assert_int_equal(u32[4], 4007);
    CHECK(bspkit_get_vert_normals(map, &v3, &n, ERR));
    assert_int_equal(n, nnormals);
    assert_true(v3[2].y == fv(2, 21));
    CHECK(bspkit_get_vert_normal_indices(map, &u32, &n, ERR));
    assert_int_equal(n, total);
    /* Per-face lookup: face f's entries follow those of faces 0..f-1. */
    size_t at = 0;
    for (size_t f = 0; f < nfaces; f++)
        for (int32_t k = 0; k < edges[f]; k++, at++) {
            bspkit_vec3 nrm;
            uint32_t idx;
            CHECK(bspkit_face_vertex_normal(map, f, (uint32_t)k, &nrm, &idx, ERR));
            assert_int_equal(idx, (at * 7) % (size_t)nnormals);
            assert_true(nrm.x == fv((int)idx, 20) && nrm.z == fv((int)idx, 22));
        }
    bspkit_vec3 nrm;
    assert_int_equal(bspkit_face_vertex_normal(map, 0, (uint32_t)edges[0], &nrm, NULL, ERR), BSPKIT_ERR_INDEX);
    assert_int_equal(bspkit_face_vertex_normal(map, nfaces, 0, &nrm, NULL, ERR), BSPKIT_ERR_INDEX);
    CHECK(bspkit_get_face_ids(map, &u32, &n, ERR));
    assert_int_equal(n, nfaces);
    assert_int_equal(u32[nfaces - 1], 500 + nfaces - 1);
    CHECK(bspkit_get_face_macro_texinfo(map, &u16, &n, ERR));
    assert_int_equal(n, nfaces);
    assert_int_equal(u16[1], 0xFFFF);
    assert_int_equal(u16[2], 2);
    CHECK(bspkit_get_clip_portal_verts(map, &v3, &n, ERR));
    assert_int_equal(n, 2);
    assert_true(v3[1].x == fv(3, 3));
    uint32_t fl;
    CHECK(bspkit_get_map_flags(map, &fl, &n, ERR));
    assert_int_equal(n, 1);
    assert_int_equal(fl, 0x7E);

    /* Lumps this map lacks: OK and empty. */
    const bspkit_overlay *o;
    CHECK(bspkit_get_overlays(map, &o, &n, ERR));
    assert_int_equal(n, 0);
    const bspkit_physcollide *pc;
    CHECK(bspkit_get_physcollide(map, &pc, ERR));
    assert_int_equal(pc->model_count, 0);
    const bspkit_portal *portals;
    CHECK(bspkit_get_portals(map, &portals, &n, ERR));
    assert_int_equal(n, 0); /* version 20: lumps 22-25 are not portals */
    close_map(map, file);
}

/* Little-endian, then the same bytes' meaning encoded big-endian. */
static void test_surfaces(void **state)
{
    (void)state;
    surfaces_in(false);
    surfaces_in(true);
}

/* ---- portals (v19) ------------------------------------------------------ */

static void test_portals_v19(void **state)
{
    (void)state;
    for (int be = 0; be < 2; be++) {
        enc po = {.be = be}, cl = {.be = be}, pv = {.be = be}, cp = {.be = be};
        for (int i = 0; i < 2; i++) {
            put32(&po, (uint32_t)(4 * i));
            put32(&po, 4);
            put32(&po, (uint32_t)(9 + i));
            put16(&po, (uint16_t)i);
            put16(&po, (uint16_t)(i + 1));
            put32(&cl, (uint32_t)i);
            put32(&cl, 1);
            put16(&cp, (uint16_t)(1 - i));
        }
        for (int k = 0; k < 24; k++)
            putf(&pv, fv(k / 3, k % 3));
        const lump_bytes lumps[] = {{22, &po, 0}, {23, &cl, 0}, {24, &pv, 0}, {25, &cp, 0}};
        size_t size;
        uint8_t *file = write_bare(19, be, lumps, 4, &size);
        bspkit_map *map;
        CHECK(bspkit_open_memory(file, size, NULL, &map, ERR));
        size_t n;
        const bspkit_portal *p;
        CHECK(bspkit_get_portals(map, &p, &n, ERR));
        assert_int_equal(n, 2);
        assert_int_equal(p[1].first_portal_vert, 4);
        assert_int_equal(p[1].num_portal_verts, 4);
        assert_int_equal(p[1].plane, 10);
        assert_int_equal(p[1].cluster[0], 1);
        assert_int_equal(p[1].cluster[1], 2);
        const bspkit_cluster *c;
        CHECK(bspkit_get_clusters(map, &c, &n, ERR));
        assert_int_equal(n, 2);
        assert_int_equal(c[1].first_portal, 1);
        assert_int_equal(c[1].num_portals, 1);
        const bspkit_vec3 *v;
        CHECK(bspkit_get_portal_verts(map, &v, &n, ERR));
        assert_int_equal(n, 8);
        assert_true(v[7].x == fv(7, 0) && v[7].z == fv(7, 2));
        const uint32_t *u;
        CHECK(bspkit_get_cluster_portals(map, &u, &n, ERR));
        assert_int_equal(n, 2);
        assert_int_equal(u[0], 1);
        assert_int_equal(u[1], 0);
        const bspkit_prop_collision *pc;
        CHECK(bspkit_get_prop_collision(map, &pc, ERR));
        assert_int_equal(pc->collision_count, 0);
        bspkit_close(map);
        bspkit_free_buffer(file);
    }
}

/* ---- Left 4 Dead 2 prop collision (v21, rotated directory) -------------- */

static void test_prop_collision_l4d2(void **state)
{
    (void)state;
    for (int be = 0; be < 2; be++) {
        enc co = {.be = be}, hu = {.be = be}, hv = {.be = be}, tr = {.be = be};
        for (int i = 0; i < 2; i++) {
            put32(&co, (uint32_t)(1 + i)); /* m_nHullCount */
            put32(&co, (uint32_t)i);       /* m_nHullStart */
            put32(&tr, (uint32_t)(6 * i));  /* m_nIndexStart */
            put32(&tr, 6);                  /* m_nIndexCount */
        }
        for (int i = 0; i < 3; i++) {
            put32(&hu, (uint32_t)(4 + i));
            put32(&hu, (uint32_t)(4 * i));
            put32(&hu, (uint32_t)(20 + i));
            put32(&hu, 0x80000001u);
        }
        for (int k = 0; k < 36; k++)
            putf(&hv, fv(k / 3, k % 3));
        const lump_bytes lumps[] = {{22, &co, 0}, {23, &hu, 0}, {24, &hv, 0}, {25, &tr, 0}};
        size_t size;
        uint8_t *file = write_bare(21, be, lumps, 4, &size);

        /* As written (standard lump_t order) lumps 22-25 are not prop collision. */
        bspkit_map *map;
        CHECK(bspkit_open_memory(file, size, NULL, &map, ERR));
        const bspkit_prop_collision *pc;
        CHECK(bspkit_get_prop_collision(map, &pc, ERR));
        assert_int_equal(pc->hull_count, 0);
        bspkit_close(map);

        /* Rotate every entry to {version, offset, length, fourCC}. */
        for (int i = 0; i < 64; i++) {
            uint8_t *e = file + 8 + 16 * i;
            uint8_t tmp[12];
            memcpy(tmp, e + 8, 4);
            memcpy(tmp + 4, e, 8);
            memcpy(e, tmp, 12);
        }
        CHECK(bspkit_open_memory(file, size, NULL, &map, ERR));
        assert_true(bspkit_map_format(map)->variant & BSPKIT_VARIANT_L4D2_DIRECTORY);
        CHECK(bspkit_get_prop_collision(map, &pc, ERR));
        assert_int_equal(pc->collision_count, 2);
        assert_int_equal(pc->collisions[1].hull_count, 2);
        assert_int_equal(pc->collisions[1].hull_start, 1);
        assert_int_equal(pc->hull_count, 3);
        assert_int_equal(pc->hulls[2].vert_count, 6);
        assert_int_equal(pc->hulls[2].vert_start, 8);
        assert_int_equal(pc->hulls[2].surface_prop, 22);
        assert_int_equal(pc->hulls[2].contents, 0x80000001u);
        assert_int_equal(pc->hull_vert_count, 12);
        assert_true(pc->hull_verts[11].y == fv(11, 1));
        assert_int_equal(pc->tris_count, 2);
        assert_int_equal(pc->tris[1].index_start, 6);
        assert_int_equal(pc->tris[1].index_count, 6);
        bspkit_dump d;
        memset(&d, 0, sizeof d);
        CHECK(bk_tables_source(map, 23, 0, &d, ERR));
        assert_int_equal(d.tables[0].count, 3);
        assert_string_equal(d.tables[0].fields[0].name, "m_nVertCount");
        bspkit_close(map);
        bspkit_free_buffer(file);
    }
}

/* ---- malformed input ---------------------------------------------------- */

/* Opens the sample with one raw lump and expects `call` to fail cleanly
 * with LUMP_SIZE at lump offset `lump_ofs` (and the matching file offset). */
typedef bspkit_result (*probe_fn)(bspkit_map *map);

static bspkit_result probe_occlusion(bspkit_map *map)
{
    const bspkit_occlusion *o;
    return bspkit_get_occlusion(map, &o, ERR);
}

static bspkit_result probe_physcollide(bspkit_map *map)
{
    const bspkit_physcollide *p;
    return bspkit_get_physcollide(map, &p, ERR);
}

static bspkit_result probe_physdisp(bspkit_map *map)
{
    const bspkit_physdisp_entry *p;
    size_t n;
    return bspkit_get_physdisp(map, &p, &n, ERR);
}

static bspkit_result probe_overlays(bspkit_map *map)
{
    const bspkit_overlay *p;
    size_t n;
    return bspkit_get_overlays(map, &p, &n, ERR);
}

static void expect_overrun(bool be, int lump, const enc *e, int32_t version, probe_fn probe, int64_t lump_ofs)
{
    const lump_bytes lumps[] = {{lump, e, version}};
    uint8_t *file;
    bspkit_map *map = open_with(be, lumps, 1, &file);
    assert_int_equal(probe(map), BSPKIT_ERR_LUMP_SIZE);
    assert_int_equal(g_err.code, BSPKIT_ERR_LUMP_SIZE);
    assert_int_equal(g_err.lump, lump);
    assert_int_equal(g_err.lump_offset, lump_ofs);
    bspkit_lump_info li;
    CHECK(bspkit_get_lump_info(map, lump, &li));
    assert_int_equal(g_err.offset, (int64_t)li.offset + lump_ofs);
    assert_non_null(strstr(g_err.message, bk_lump_name(map, lump)));
    /* The failure is cached: asking again gives the same answer. */
    assert_int_equal(probe(map), BSPKIT_ERR_LUMP_SIZE);
    assert_int_equal(g_err.lump_offset, lump_ofs);
    close_map(map, file);
}

static void test_overruns(void **state)
{
    (void)state;
    for (int be = 0; be < 2; be++) {
        enc e = {.be = be};
        put32(&e, 1000000); /* occluder count far beyond the bytes */
        put32(&e, 0);
        expect_overrun(be, BSPKIT_S_OCCLUSION, &e, 2, probe_occlusion, 0);

        e.size = 0;
        put32(&e, 0);         /* no occluders */
        put32(&e, 0x7FFFFFFF); /* polygon count overruns */
        expect_overrun(be, BSPKIT_S_OCCLUSION, &e, 2, probe_occlusion, 4);

        e.size = 0;
        put32(&e, 0);
        put32(&e, 0);
        put32(&e, 0xFFFFFFFFu); /* negative vertex index count */
        expect_overrun(be, BSPKIT_S_OCCLUSION, &e, 2, probe_occlusion, 8);

        e.size = 0; /* a solid whose size runs past dataSize */
        put32(&e, 0);
        put32(&e, 8);
        put32(&e, 0);
        put32(&e, 1);
        put32(&e, 100);
        put32(&e, 0);
        expect_overrun(be, BSPKIT_S_PHYSCOLLIDE, &e, 0, probe_physcollide, 16);

        e.size = 0; /* solids that do not fill dataSize exactly */
        put32(&e, 0);
        put32(&e, 12);
        put32(&e, 0);
        put32(&e, 1);
        put32(&e, 4);
        put32(&e, 0);
        put32(&e, 0);
        expect_overrun(be, BSPKIT_S_PHYSCOLLIDE, &e, 0, probe_physcollide, 0);

        e.size = 0; /* keydataSize past the lump end */
        put32(&e, 0);
        put32(&e, 0);
        put32(&e, 1000);
        put32(&e, 0);
        expect_overrun(be, BSPKIT_S_PHYSCOLLIDE, &e, 0, probe_physcollide, 0);

        e.size = 0; /* a header cut short after a model */
        put32(&e, 0);
        put32(&e, 0);
        put32(&e, 0);
        put32(&e, 0);
        put32(&e, 0xFFFFFFFFu);
        expect_overrun(be, BSPKIT_S_PHYSCOLLIDE, &e, 0, probe_physcollide, 16);

        e.size = 0; /* physdisp blob past the end */
        put16(&e, 1);
        put16(&e, 50);
        put32(&e, 0);
        expect_overrun(be, BSPKIT_S_PHYSDISP, &e, 0, probe_physdisp, 2);

        e.size = 0; /* physdisp size table past the end */
        put16(&e, 40);
        put16(&e, 0);
        expect_overrun(be, BSPKIT_S_PHYSDISP, &e, 0, probe_physdisp, 0);

        e.size = 0; /* one and a half overlays */
        encode_overlay(&e, 0, 64, 1, 0);
        putraw(&e, e.data, 100);
        expect_overrun(be, BSPKIT_S_OVERLAYS, &e, 0, probe_overlays, 352);
    }
}

/* ---- non-Source maps ---------------------------------------------------- */

static void test_goldsrc_empty(void **state)
{
    (void)state;
    uint8_t *file;
    size_t size;
    CHECK(bspkit_sample_build(BSPKIT_SAMPLE_GOLDSRC_ROOM, &file, &size, ERR));
    bspkit_map *map;
    CHECK(bspkit_open_memory(file, size, NULL, &map, ERR));
    size_t n = 99;
    const bspkit_overlay *o;
    CHECK(bspkit_get_overlays(map, &o, &n, ERR));
    assert_int_equal(n, 0);
    const bspkit_occlusion *oc;
    CHECK(bspkit_get_occlusion(map, &oc, ERR)); /* lump 9 is CLIPNODES here: not read as occlusion */
    assert_int_equal(oc->occluder_count, 0);
    uint32_t flags = 5;
    CHECK(bspkit_get_map_flags(map, &flags, &n, ERR));
    assert_int_equal(n, 0);
    assert_int_equal(flags, 0);
    bspkit_dump d;
    memset(&d, 0, sizeof d);
    assert_int_equal(bk_tables_source(map, 9, 0, &d, ERR), BSPKIT_ERR_NOT_FOUND);
    bspkit_close(map);
    bspkit_free_buffer(file);
}

/* ---- Bloodlines faces ---------------------------------------------------- */

/* One 104-byte Bloodlines (v17) face, written from the layout bsp_tool and
 * the format document's game table give: eight ColorRGBExp32, planenum,
 * side, onNode, firstedge, numedges, texinfo, dispinfo, surfaceFogVolumeID,
 * 3 x 8 style bytes (base, day, night), lightofs, area, lightmap mins and
 * size, origFace, smoothingGroups. The map is a VBSP 20 file whose version
 * word says 17 (the header is the same). */
static void test_bloodlines_faces(void **state)
{
    (void)state;
    for (int be = 0; be < 2; be++) {
        enc f = {.be = be};
        for (int k = 0; k < 32; k++)
            put8(&f, (uint8_t)(0xC0 + k));
        put16(&f, 3), put8(&f, 1), put8(&f, 0);
        put32(&f, 10), put16(&f, 4), put16(&f, 2), put16(&f, 0xFFFF), put16(&f, 5);
        const uint8_t base[8] = {0, 2, 255, 255, 255, 255, 255, 255};
        putraw(&f, base, 8);
        for (int k = 0; k < 16; k++)
            put8(&f, 0);
        put32(&f, 96), putf(&f, 64.5f);
        put32(&f, (uint32_t)-2), put32(&f, 3), put32(&f, 7), put32(&f, 3);
        put32(&f, 9), put32(&f, 0x11);
        assert_int_equal(f.size, 104);
        const lump_bytes lumps[] = {{BSPKIT_S_FACES, &f, 0}};
        size_t size;
        uint8_t *file = write_bare(20, be, lumps, 1, &size);
        wr_u32(file + 4, 17, be);
        bspkit_map *map;
        CHECK(bspkit_open_memory(file, size, NULL, &map, ERR));
        assert_int_equal(bspkit_map_format(map)->version, 17);
        const bspkit_face *fa;
        size_t n;
        CHECK(bspkit_get_faces(map, &fa, &n, ERR));
        assert_int_equal(n, 1);
        assert_int_equal(fa[0].plane, 3);
        assert_int_equal(fa[0].side, 1);
        assert_int_equal(fa[0].first_edge, 10);
        assert_int_equal(fa[0].num_edges, 4);
        assert_int_equal(fa[0].texinfo, 2);
        assert_int_equal(fa[0].dispinfo, -1);
        assert_int_equal(fa[0].fog_volume, 5);
        assert_int_equal(fa[0].styles[0], 0);
        assert_int_equal(fa[0].styles[1], 2);
        assert_int_equal(fa[0].styles[2], 255);
        assert_int_equal(fa[0].light_offset, 96);
        assert_true(fa[0].area == 64.5f);
        assert_int_equal(fa[0].lightmap_mins[0], -2);
        assert_int_equal(fa[0].lightmap_size[0], 7);
        assert_int_equal(fa[0].lightmap_size[1], 3);
        assert_int_equal(fa[0].orig_face, 9);
        assert_int_equal(fa[0].smoothing_groups, 0x11);
        close_map(map, file);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overlays),       cmocka_unit_test(test_occlusion_versions),
        cmocka_unit_test(test_bloodlines_faces),
        cmocka_unit_test(test_physics),        cmocka_unit_test(test_surfaces),
        cmocka_unit_test(test_portals_v19),    cmocka_unit_test(test_prop_collision_l4d2),
        cmocka_unit_test(test_overruns),       cmocka_unit_test(test_goldsrc_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
