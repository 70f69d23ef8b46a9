/* Geometry export: the mesh builder on the generated sample maps (every
 * flavour, both byte orders) and on a hand-built Source map with a
 * displacement, a rotated brush entity, a trigger and a tool texture; then
 * the GLB container parsed here and read back against the mesh, and OBJ
 * text checked line by line. Expected counts, plane distances, texture
 * coordinates and transforms are computed in the test from the lumps. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"

#include "bspkit/displacement.h"
#include "bspkit/export.h"
#include "bspkit/quake3.h"
#include "bspkit/write.h"
#include "core/bytes.h"
#include "export/mesh.h"
#include "export/writers.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bspkit_map *open_bytes(const uint8_t *buf, size_t size)
{
    bspkit_options o = {.flags = BSPKIT_OPEN_COPY};
    bspkit_map *m;
    CHECK(bspkit_open_memory(buf, size, &o, &m, ERR));
    return m;
}

static bspkit_map *open_sample(bspkit_sample_kind kind)
{
    uint8_t *buf;
    size_t size;
    CHECK(bspkit_sample_build(kind, &buf, &size, ERR));
    bspkit_map *m = open_bytes(buf, size);
    bspkit_free_buffer(buf);
    return m;
}

/* ---- independent expectations from the lumps ---------------------------- */

typedef struct lumps {
    const bspkit_face *faces;
    const bspkit_plane *planes;
    const bspkit_texinfo *texinfo;
    const int32_t *surfedges;
    const bspkit_edge *edges;
    const bspkit_vec3 *verts;
    const bspkit_model *models;
    size_t nfaces, nplanes, ntexinfo, nsurfedges, nedges, nverts, nmodels;
} lumps;

static lumps load(bspkit_map *m)
{
    lumps l;
    memset(&l, 0, sizeof l);
    CHECK(bspkit_get_faces(m, &l.faces, &l.nfaces, ERR));
    CHECK(bspkit_get_planes(m, &l.planes, &l.nplanes, ERR));
    CHECK(bspkit_get_texinfo(m, &l.texinfo, &l.ntexinfo, ERR));
    CHECK(bspkit_get_surfedges(m, &l.surfedges, &l.nsurfedges, ERR));
    CHECK(bspkit_get_edges(m, &l.edges, &l.nedges, ERR));
    CHECK(bspkit_get_vertexes(m, &l.verts, &l.nverts, ERR));
    CHECK(bspkit_get_models(m, &l.models, &l.nmodels, ERR));
    return l;
}

/* Σ(num_edges - 2) over drawable faces of the models, plus 2·(2^p)² per displacement. */
static size_t expected_triangles(bspkit_map *m, const lumps *l, const bool *skip_model)
{
    const bspkit_dispinfo *d = NULL;
    size_t nd = 0;
    CHECK(bspkit_get_dispinfo(m, &d, &nd, ERR));
    size_t total = 0;
    for (size_t i = 0; i < l->nmodels; i++) {
        if (skip_model && skip_model[i])
            continue;
        for (int32_t k = 0; k < l->models[i].num_faces; k++) {
            const bspkit_face *f = &l->faces[l->models[i].first_face + k];
            if (f->num_edges < 3 || f->texinfo < 0)
                continue;
            if (bspkit_map_format(m)->family == BSPKIT_FAMILY_SOURCE && f->dispinfo >= 0) {
                size_t side = (size_t)1 << d[f->dispinfo].power;
                total += 2 * side * side;
            } else {
                total += (size_t)f->num_edges - 2;
            }
        }
    }
    return total;
}

static double texture_size(bspkit_map *m, int32_t texture, int axis)
{
    double s;
    if (texture < 0) /* Quake 2: a named texture outside the map, UVs in texels */
        return 1;
    if (bspkit_map_format(m)->family == BSPKIT_FAMILY_SOURCE) {
        const bspkit_texdata *td;
        size_t n;
        CHECK(bspkit_get_texdata(m, &td, &n, ERR));
        s = axis == 0 ? td[texture].width : td[texture].height;
    } else {
        const bspkit_miptex *mt;
        size_t n;
        CHECK(bspkit_get_miptex(m, &mt, &n, ERR));
        s = axis == 0 ? mt[texture].width : mt[texture].height;
    }
    return s > 0 ? s : 1;
}

static void expect_uv(bspkit_map *m, const bspkit_texinfo *ti, const double p[3], const float uv[2])
{
    for (int a = 0; a < 2; a++) {
        const float *v = ti->texture_vecs[a];
        double want = (v[0] * p[0] + v[1] * p[1] + v[2] * p[2] + v[3]) / texture_size(m, ti->texture, a);
        assert_true(fabs(want - uv[a]) < 1e-4);
    }
}

static bool is_corner(const lumps *l, const bspkit_face *f, const float p[3])
{
    for (int32_t k = 0; k < f->num_edges; k++) {
        int32_t se = l->surfedges[f->first_edge + k];
        bspkit_vec3 v = l->verts[se < 0 ? l->edges[-se].v[1] : l->edges[se].v[0]];
        if (v.x == p[0] && v.y == p[1] && v.z == p[2])
            return true;
    }
    return false;
}

/* Every vertex of a plain face lies on the face's plane, is one of its
 * corners, has the test's texture coordinate and the signed plane normal;
 * every triangle turns counter-clockwise about that normal. Returns the
 * number of triangles seen. */
static size_t check_mesh(bspkit_map *m, const lumps *l, const bk_xmesh *x)
{
    size_t tris = 0;
    for (size_t i = 0; i < x->model_count; i++) {
        for (size_t p = 0; p < x->models[i].prim_count; p++) {
            const bk_xprim *pr = &x->models[i].prims[p];
            assert_int_equal(pr->index_count % 3, 0);
            tris += pr->index_count / 3;
            for (size_t v = 0; v < pr->vert_count; v++) {
                const bk_xvertex *xv = &pr->verts[v];
                const bspkit_face *f = &l->faces[xv->face];
                const bspkit_plane *pl = &l->planes[f->plane];
                double sign = f->side ? -1 : 1;
                double n[3] = {sign * pl->normal.x, sign * pl->normal.y, sign * pl->normal.z};
                double len = sqrt(xv->normal[0] * xv->normal[0] + xv->normal[1] * xv->normal[1] +
                                  xv->normal[2] * xv->normal[2]);
                assert_true(fabs(len - 1) < 1e-5);
                assert_string_equal(x->materials[pr->material].name,
                                    x->materials[pr->material].name); /* allocated and terminated */
                if (bspkit_map_format(m)->family == BSPKIT_FAMILY_SOURCE && f->dispinfo >= 0)
                    continue; /* displaced vertices are checked by their own test */
                double d = pl->normal.x * xv->pos[0] + pl->normal.y * xv->pos[1] + pl->normal.z * xv->pos[2];
                assert_true(fabs(d - pl->dist) < 0.01);
                assert_true(is_corner(l, f, xv->pos));
                for (int k = 0; k < 3; k++)
                    assert_true(fabs(xv->normal[k] - n[k]) < 1e-5);
                double pos[3] = {xv->pos[0], xv->pos[1], xv->pos[2]};
                expect_uv(m, &l->texinfo[f->texinfo], pos, xv->uv0);
            }
            for (size_t t = 0; t < pr->index_count; t += 3) {
                const float *a = pr->verts[pr->indices[t]].pos, *b = pr->verts[pr->indices[t + 1]].pos,
                            *c = pr->verts[pr->indices[t + 2]].pos;
                double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
                double g[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                               e1[0] * e2[1] - e1[1] * e2[0]};
                const float *n = pr->verts[pr->indices[t]].normal;
                assert_true(g[0] * n[0] + g[1] * n[1] + g[2] * n[2] > 0);
            }
        }
    }
    return tris;
}

static void test_samples(void **state)
{
    (void)state;
    for (int k = 0; k < BSPKIT_SAMPLE_COUNT; k++) {
        if (k == BSPKIT_SAMPLE_QUAKE3_ROOM)
            continue; /* surfaces, not faces: test_quake3_room */
        bspkit_map *m = open_sample((bspkit_sample_kind)k);
        lumps l = load(m);
        bk_xmesh x;
        CHECK(bk_xmesh_build(m, NULL, &x, ERR));
        size_t want = expected_triangles(m, &l, NULL);
        assert_true(want > 0);
        assert_int_equal(x.triangles, want);
        assert_int_equal(check_mesh(m, &l, &x), want);
        assert_int_equal(x.model_count, l.nmodels);
        assert_string_equal(x.nodes[0].name, "worldspawn");
        bk_xmesh_free(&x);
        bspkit_close(m);
    }
}

/* ---- Quake 3 surfaces and patches ------------------------------------------- */

/* The point of a biquadratic Bézier patch of w x h control points at grid
 * parameters (u, v) in [0, (w-1)/2] x [0, (h-1)/2]: block floor(u), floor(v)
 * (the last block at the far edge) at the fractional parts. */
static void bezier_point(const bspkit_drawvert *c, int w, int h, double u, double v, double out[3])
{
    int bx = (int)u < (w - 1) / 2 ? (int)u : (w - 1) / 2 - 1, by = (int)v < (h - 1) / 2 ? (int)v : (h - 1) / 2 - 1;
    double s = u - bx, t = v - by;
    double bu[3] = {(1 - s) * (1 - s), 2 * s * (1 - s), s * s}, bv[3] = {(1 - t) * (1 - t), 2 * t * (1 - t), t * t};
    out[0] = out[1] = out[2] = 0;
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
            const bspkit_drawvert *p = &c[(2 * by + j) * w + 2 * bx + i];
            out[0] += bu[i] * bv[j] * p->xyz.x;
            out[1] += bu[i] * bv[j] * p->xyz.y;
            out[2] += bu[i] * bv[j] * p->xyz.z;
        }
}

/* The quake3-room sample: 6 quads of 2 triangles, and the 3 x 3 patch as a
 * grid of 8 x 8 cells (2 triangles each) whose every vertex lies on the
 * Bézier surface of its control points at an (i / 8, j / 8) parameter, and
 * whose triangles face up (the patch's normals point up). */
static void test_quake3_room(void **state)
{
    (void)state;
    bspkit_map *m = open_sample(BSPKIT_SAMPLE_QUAKE3_ROOM);
    const bspkit_surface *su;
    const bspkit_drawvert *dv;
    size_t ns, ndv;
    CHECK(bspkit_get_surfaces(m, &su, &ns, ERR));
    CHECK(bspkit_get_drawverts(m, &dv, &ndv, ERR));
    const bspkit_surface *patch = NULL;
    size_t patch_index = 0;
    for (size_t i = 0; i < ns; i++)
        if (su[i].type == BSPKIT_Q3_SURFACE_PATCH)
            patch = &su[i], patch_index = i;
    assert_non_null(patch);
    bk_xmesh x;
    CHECK(bk_xmesh_build(m, NULL, &x, ERR));
    assert_int_equal(x.triangles, 6 * 2 + 8 * 8 * 2);
    size_t patch_verts = 0, patch_tris = 0;
    for (size_t p = 0; p < x.models[0].prim_count; p++) {
        const bk_xprim *pr = &x.models[0].prims[p];
        for (size_t v = 0; v < pr->vert_count; v++) {
            if (pr->verts[v].face != patch_index)
                continue;
            patch_verts++;
            bool on_surface = false;
            for (int j = 0; j <= 8 && !on_surface; j++)
                for (int i = 0; i <= 8 && !on_surface; i++) {
                    double q[3];
                    bezier_point(dv + patch->first_vert, 3, 3, i / 8.0, j / 8.0, q);
                    on_surface = fabs(q[0] - pr->verts[v].pos[0]) < 1e-4 && fabs(q[1] - pr->verts[v].pos[1]) < 1e-4 &&
                                 fabs(q[2] - pr->verts[v].pos[2]) < 1e-4;
                }
            if (!on_surface)
                fail_msg("patch vertex (%g, %g, %g) is not on the Bezier surface", pr->verts[v].pos[0],
                         pr->verts[v].pos[1], pr->verts[v].pos[2]);
        }
        for (size_t t = 0; t + 2 < pr->index_count; t += 3) {
            const bk_xvertex *a = &pr->verts[pr->indices[t]], *b = &pr->verts[pr->indices[t + 1]],
                             *c = &pr->verts[pr->indices[t + 2]];
            if (a->face != patch_index)
                continue;
            patch_tris++;
            double e1[2] = {b->pos[0] - a->pos[0], b->pos[1] - a->pos[1]};
            double e2[2] = {c->pos[0] - a->pos[0], c->pos[1] - a->pos[1]};
            assert_true(e1[0] * e2[1] - e1[1] * e2[0] > 0); /* counter-clockwise seen from above */
        }
    }
    assert_int_equal(patch_verts, 9 * 9);
    assert_int_equal(patch_tris, 8 * 8 * 2);
    bk_xmesh_free(&x);
    bspkit_close(m);
}

/* ---- a hand-built Source map ---------------------------------------------- */

#define POWER 2
#define SIDE ((1 << POWER) + 1)

/* Face 0: displaced 64x64 floor (model 0). Faces 1-3: model 1, a brush
 * entity at origin (100, 20, 30) turned 90 degrees: a quad on the plane's
 * back side with a tool texture, a triangle, and a two-edge face. Face 4:
 * model 2, a triangle owned by a trigger_once. */
static uint8_t *build_custom(bool be, size_t *size, int32_t bad_first_edge)
{
    bspkit_builder *b;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_SOURCE, 20, &b, ERR));
    bspkit_vec3 verts[] = {{0, 0, 0},   {64, 0, 0},   {64, 64, 0},  {0, 64, 0},   {100, 0, 0},
                           {132, 0, 0}, {132, 32, 0}, {100, 32, 0}, {200, 0, 0}, {240, 8, 0}};
    bspkit_edge edges[] = {{{0, 0}}, {{0, 1}}, {{1, 2}}, {{2, 3}}, {{3, 0}}, {{4, 5}},
                           {{5, 6}}, {{6, 7}}, {{7, 4}}, {{8, 9}}, {{9, 4}}, {{4, 8}}};
    /* Floor wound clockwise seen from above (its front, +z), as compilers do. */
    int32_t surfedges[] = {-4, -3, -2, -1, 5, 6, 7, 8, 9, 10, 11, 9, 10};
    bspkit_plane planes[] = {{{0, 0, 1}, 0, 2}};
    bspkit_face faces[5];
    memset(faces, 0, sizeof faces);
    int32_t first[5] = {0, 4, 8, 11, 8}, count[5] = {4, 4, 3, 2, 3}, tex[5] = {0, 1, 0, 0, 0};
    for (int i = 0; i < 5; i++) {
        faces[i].first_edge = first[i];
        faces[i].num_edges = count[i];
        faces[i].texinfo = tex[i];
        faces[i].dispinfo = i == 0 ? 0 : -1;
        faces[i].orig_face = -1;
        faces[i].light_offset = -1;
        faces[i].side = i == 1;
        memset(faces[i].styles, 255, 4);
    }
    if (bad_first_edge)
        faces[2].first_edge = bad_first_edge;
    bspkit_texinfo ti[2];
    memset(ti, 0, sizeof ti);
    float v0[2][4] = {{1, 0, 0, 8}, {0, -1, 0, 4}}, v1[2][4] = {{0.5f, 0.25f, 0, 3}, {0, 0.5f, 0.1f, -2}};
    memcpy(ti[0].texture_vecs, v0, sizeof v0);
    memcpy(ti[1].texture_vecs, v1, sizeof v1);
    ti[1].texture = 1;
    ti[1].flags = 0x80; /* SURF_NODRAW */
    bspkit_texdata td[2] = {{.name_id = 0, .width = 64, .height = 32}, {.name_id = 1, .width = 0, .height = 0}};
    const char *names[2] = {"DEV/FLOOR", "TOOLS/TOOLSNODRAW"};
    bspkit_model models[3];
    memset(models, 0, sizeof models);
    models[0].num_faces = 1;
    models[1].first_face = 1;
    models[1].num_faces = 3;
    models[2].first_face = 4;
    models[2].num_faces = 1;
    const char *ents = "{\n\"classname\" \"worldspawn\"\n}\n"
                       "{\n\"classname\" \"func_brush\"\n\"model\" \"*1\"\n\"targetname\" \"door_a\"\n"
                       "\"origin\" \"100 20 30\"\n\"angles\" \"0 90 0\"\n\"spawnflags\" \"1\"\n\"spawnflags\" \"2\"\n}\n"
                       "{\n\"classname\" \"trigger_once\"\n\"model\" \"*2\"\n}\n"
                       "{\n\"classname\" \"info_player_start\"\n\"origin\" \"1 2 3\"\n\"angle\" \"45\"\n}\n";
    CHECK(bspkit_builder_set_vertexes(b, verts, sizeof verts / sizeof verts[0], ERR));
    CHECK(bspkit_builder_set_edges(b, edges, sizeof edges / sizeof edges[0], ERR));
    CHECK(bspkit_builder_set_surfedges(b, surfedges, sizeof surfedges / sizeof surfedges[0], ERR));
    CHECK(bspkit_builder_set_planes(b, planes, 1, ERR));
    CHECK(bspkit_builder_set_faces(b, faces, 5, ERR));
    CHECK(bspkit_builder_set_texinfo(b, ti, 2, ERR));
    CHECK(bspkit_builder_set_texdata(b, td, 2, ERR));
    CHECK(bspkit_builder_set_texdata_strings(b, names, 2, ERR));
    CHECK(bspkit_builder_set_models(b, models, 3, ERR));
    CHECK(bspkit_builder_set_entities(b, ents, strlen(ents), ERR));
    /* ddispinfo_t (176 bytes): startPosition at corner 0, power 2, MapFace 0. */
    uint8_t info[176], dverts[20 * SIDE * SIDE], dtris[2 * 2 * (SIDE - 1) * (SIDE - 1)];
    memset(info, 0, sizeof info);
    wr_u32(info + 20, POWER, be);
    for (int v = 0; v < SIDE * SIDE; v++) {
        uint8_t *p = dverts + 20 * v;
        wr_f32(p, 0, be);
        wr_f32(p + 4, 0, be);
        wr_f32(p + 8, 1, be);
        wr_f32(p + 12, 0.5f * (float)v, be);
        wr_f32(p + 16, 0, be);
    }
    memset(dtris, 0, sizeof dtris);
    CHECK(bspkit_builder_set_lump(b, BSPKIT_S_DISPINFO, info, sizeof info, 0, ERR));
    CHECK(bspkit_builder_set_lump(b, BSPKIT_S_DISP_VERTS, dverts, sizeof dverts, 0, ERR));
    CHECK(bspkit_builder_set_lump(b, BSPKIT_S_DISP_TRIS, dtris, sizeof dtris, 0, ERR));
    uint8_t *buf;
    bspkit_write_options o = {.big_endian = be};
    CHECK(bspkit_builder_write(b, &o, &buf, size, ERR));
    bspkit_builder_free(b);
    return buf;
}

static bspkit_map *open_custom(bool be)
{
    size_t size;
    uint8_t *buf = build_custom(be, &size, 0);
    bspkit_map *m = open_bytes(buf, size);
    bspkit_free_buffer(buf);
    return m;
}

static const bk_xnode *find_node(const bk_xmesh *x, const char *name)
{
    for (size_t i = 0; i < x->node_count; i++)
        if (strcmp(x->nodes[i].name, name) == 0)
            return &x->nodes[i];
    fail_msg("no node %s", name);
    return NULL;
}

static void check_custom(bool be)
{
    bspkit_map *m = open_custom(be);
    lumps l = load(m);
    bk_xmesh x;
    CHECK(bk_xmesh_build(m, NULL, &x, ERR));
    /* 32 displaced triangles + quad 2 + triangle 1 (two-edge face skipped) + trigger triangle 1 */
    size_t want = expected_triangles(m, &l, NULL);
    assert_int_equal(want, 2 * 4 * 4 + 2 + 1 + 1);
    assert_int_equal(x.triangles, want);
    assert_int_equal(check_mesh(m, &l, &x), want);
    assert_int_equal(x.displacements, 1);
    assert_int_equal(x.degenerate_faces, 1);
    assert_int_equal(x.zero_size_textures, 1);

    /* The displacement: every vertex is its flat point moved straight up, so
     * the flat point is (x, y, 0); the heights are 0.5 * grid index. */
    const bk_xprim *dp = &x.models[0].prims[0];
    assert_int_equal(dp->vert_count, SIDE * SIDE);
    double zsum = 0;
    for (size_t v = 0; v < dp->vert_count; v++) {
        const bk_xvertex *xv = &dp->verts[v];
        double flat[3] = {xv->pos[0], xv->pos[1], 0};
        assert_true(xv->pos[0] >= 0 && xv->pos[0] <= 64 && xv->pos[1] >= 0 && xv->pos[1] <= 64);
        assert_true(fmod(xv->pos[0], 16) == 0 && fmod(xv->pos[1], 16) == 0);
        expect_uv(m, &l.texinfo[0], flat, xv->uv0);
        zsum += xv->pos[2];
    }
    assert_true(fabs(zsum - 0.5 * (SIDE * SIDE - 1) * SIDE * SIDE / 2.0) < 1e-3);

    /* Nodes: brush entity named by targetname, placed by origin and yaw. */
    const bk_xnode *door = find_node(&x, "door_a*1");
    assert_int_equal(door->model, 1);
    assert_true(door->translation[0] == 100 && door->translation[1] == 20 && door->translation[2] == 30);
    double h = sqrt(0.5);
    assert_true(fabs(door->rotation[0]) < 1e-9 && fabs(door->rotation[1]) < 1e-9);
    assert_true(fabs(door->rotation[2] - h) < 1e-9 && fabs(door->rotation[3] - h) < 1e-9);
    const bk_xnode *start = find_node(&x, "info_player_start");
    assert_true(start->translation[2] == 3 && fabs(start->rotation[2] - sin(45 * M_PI / 360)) < 1e-9);
    find_node(&x, "trigger_once*2");
    bk_xmesh_free(&x);

    /* Skips: the tool-textured quad (by name, and as SURF_NODRAW) and the trigger model. */
    bk_xmesh_options o = {.skip = BSPKIT_SKIP_TOOL};
    CHECK(bk_xmesh_build(m, &o, &x, ERR));
    assert_int_equal(x.triangles, want - 2);
    assert_int_equal(x.skipped_faces, 1);
    bk_xmesh_free(&x);
    o.skip = BSPKIT_SKIP_NODRAW;
    CHECK(bk_xmesh_build(m, &o, &x, ERR));
    assert_int_equal(x.triangles, want - 2);
    bk_xmesh_free(&x);
    o.skip = BSPKIT_SKIP_TRIGGER;
    CHECK(bk_xmesh_build(m, &o, &x, ERR));
    bool skip_model[3] = {false, false, true};
    assert_int_equal(x.triangles, expected_triangles(m, &l, skip_model));
    assert_int_equal(x.triangles, want - 1);
    assert_true(x.models[2].skipped);
    bk_xmesh_free(&x);
    bspkit_close(m);
}

static void test_custom_le(void **state)
{
    (void)state;
    check_custom(false);
}

static void test_custom_be(void **state)
{
    (void)state;
    check_custom(true);
}

static void test_skip_names(void **state)
{
    (void)state;
    assert_true(bk_xmesh_skips(BSPKIT_FAMILY_GOLDSRC, BSPKIT_SKIP_TOOL, "AAATRIGGER", 0));
    assert_true(bk_xmesh_skips(BSPKIT_FAMILY_QUAKE, BSPKIT_SKIP_TOOL, "clip", 0));
    assert_false(bk_xmesh_skips(BSPKIT_FAMILY_QUAKE, BSPKIT_SKIP_TOOL, "clipboard", 0));
    /* tools* materials in any folder, either separator; not a bare name that happens to start so. */
    assert_true(bk_xmesh_skips(BSPKIT_FAMILY_TITANFALL, BSPKIT_SKIP_TOOL, "common\\toolsnodraw", 0));
    assert_true(bk_xmesh_skips(BSPKIT_FAMILY_SOURCE, BSPKIT_SKIP_TOOL, "maps/x/TOOLSclip", 0));
    assert_false(bk_xmesh_skips(BSPKIT_FAMILY_GOLDSRC, BSPKIT_SKIP_TOOL, "toolshed", 0));
    assert_false(bk_xmesh_skips(BSPKIT_FAMILY_SOURCE, BSPKIT_SKIP_TOOL, "world/floor_tool", 0));
    assert_true(bk_xmesh_skips(BSPKIT_FAMILY_QUAKE, BSPKIT_SKIP_SKY, "sky4", 0));
    assert_false(bk_xmesh_skips(BSPKIT_FAMILY_GOLDSRC, BSPKIT_SKIP_SKY, "sky4", 0));
    assert_true(bk_xmesh_skips(BSPKIT_FAMILY_GOLDSRC, BSPKIT_SKIP_SKY, "SKY", 0));
    assert_true(bk_xmesh_skips(BSPKIT_FAMILY_SOURCE, BSPKIT_SKIP_SKY, "tools/toolsskybox", 0x4));
    assert_true(bk_xmesh_skips(BSPKIT_FAMILY_SOURCE, BSPKIT_SKIP_SKY, "x", 0x2));
    assert_true(bk_xmesh_skips(BSPKIT_FAMILY_SOURCE, BSPKIT_SKIP_TOOL, "x", 0x100));
    assert_true(bk_xmesh_skips(BSPKIT_FAMILY_SOURCE, BSPKIT_SKIP_TOOL, "x", 0x200));
    assert_true(bk_xmesh_skips(BSPKIT_FAMILY_SOURCE, BSPKIT_SKIP_TOOL, "x", 0x40));
    assert_false(bk_xmesh_skips(BSPKIT_FAMILY_SOURCE, BSPKIT_SKIP_TOOL, "x", 0x80));
    assert_false(bk_xmesh_skips(BSPKIT_FAMILY_SOURCE, 0, "tools/toolsclip", 0x80));
}

/* Angles to quaternion against rotation matrices built here: Source's
 * forward vector is (cos p cos y, cos p sin y, -sin p). */
static void test_angles(void **state)
{
    (void)state;
    const double cases[][3] = {{0, 90, 0}, {30, 0, 0}, {-20, 135, 10}, {45, 200, -60}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double q[4], f[3], one[3] = {1, 0, 0};
        bk_angles_quat(cases[i][0], cases[i][1], cases[i][2], q);
        bk_quat_rotate(q, one, f);
        double p = cases[i][0] * M_PI / 180, y = cases[i][1] * M_PI / 180;
        assert_true(fabs(f[0] - cos(p) * cos(y)) < 1e-9);
        assert_true(fabs(f[1] - cos(p) * sin(y)) < 1e-9);
        assert_true(fabs(f[2] + sin(p)) < 1e-9);
        assert_true(fabs(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] - 1) < 1e-12);
    }
}

/* ---- GLB read back -------------------------------------------------------- */

static json_t *jget(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    if (!v)
        fail_msg("missing %s", k);
    return v;
}

static size_t jint(json_t *o, const char *k) { return (size_t)json_integer_value(jget(o, k)); }

/* Returns whether the door node was found and checked. */
static bool check_glb(bspkit_map *m, const bspkit_export_options *opts, double scale)
{
    uint8_t *glb;
    size_t size;
    bspkit_export_stats st;
    CHECK(bspkit_export_glb_memory(m, opts, &glb, &size, &st, ERR));
    assert_true(size >= 28);
    assert_int_equal(rd_le32(glb), 0x46546C67u);
    assert_int_equal(rd_le32(glb + 4), 2);
    assert_int_equal(rd_le32(glb + 8), size);
    size_t jlen = rd_le32(glb + 12);
    assert_int_equal(jlen % 4, 0);
    assert_int_equal(rd_le32(glb + 16), 0x4E4F534Au);
    assert_true(20 + jlen + 8 <= size);
    const uint8_t *bin_hdr = glb + 20 + jlen;
    size_t blen = rd_le32(bin_hdr);
    assert_int_equal(rd_le32(bin_hdr + 4), 0x004E4942u);
    assert_int_equal(blen % 4, 0);
    assert_int_equal(20 + jlen + 8 + blen, size);
    const uint8_t *bin = bin_hdr + 8;
    json_error_t je;
    json_t *root = json_loadb((const char *)glb + 20, jlen, 0, &je);
    assert_non_null(root);
    assert_string_equal(json_string_value(jget(jget(root, "asset"), "version")), "2.0");
    json_t *buffers = jget(root, "buffers"), *views = jget(root, "bufferViews"), *acc = jget(root, "accessors");
    assert_true(jint(json_array_get(buffers, 0), "byteLength") <= blen);
    assert_null(json_object_get(json_array_get(buffers, 0), "uri"));
    size_t i;
    json_t *v;
    json_array_foreach(views, i, v)
    {
        size_t off = jint(v, "byteOffset"), len = jint(v, "byteLength");
        assert_int_equal(off % 4, 0);
        assert_true(off + len <= blen);
    }

    bk_xmesh x;
    /* The export leaves out the kinds `keep` does not name, and `skip`'s. */
    bk_xmesh_options mo = {.skip = opts ? (opts->skip | (BSPKIT_SKIP_ALL & ~opts->keep)) & BSPKIT_SKIP_ALL
                                        : BSPKIT_SKIP_ALL};
    CHECK(bk_xmesh_build(m, &mo, &x, ERR));
    json_t *meshes = jget(root, "meshes");
    size_t mesh_index = 0, triangles = 0;
    for (size_t mi = 0; mi < x.model_count; mi++) {
        if (x.models[mi].prim_count == 0)
            continue;
        json_t *prims = jget(json_array_get(meshes, mesh_index++), "primitives");
        assert_int_equal(json_array_size(prims), x.models[mi].prim_count);
        for (size_t p = 0; p < x.models[mi].prim_count; p++) {
            const bk_xprim *pr = &x.models[mi].prims[p];
            json_t *attr = jget(json_array_get(prims, p), "attributes");
            json_t *pa = json_array_get(acc, jint(attr, "POSITION"));
            json_t *ia = json_array_get(acc, jint(json_array_get(prims, p), "indices"));
            assert_int_equal(jint(pa, "count"), pr->vert_count);
            assert_int_equal(jint(pa, "componentType"), 5126);
            assert_int_equal(jint(ia, "count"), pr->index_count);
            assert_int_equal(jint(ia, "componentType"), pr->vert_count < 65536 ? 5123 : 5125);
            json_t *pv = json_array_get(views, jint(pa, "bufferView"));
            assert_true(jint(pv, "byteLength") >= pr->vert_count * 12);
            const uint8_t *data = bin + jint(pv, "byteOffset");
            json_t *mn = jget(pa, "min"), *mx = jget(pa, "max");
            for (size_t k = 0; k < pr->vert_count; k++) {
                float g[3];
                for (int c = 0; c < 3; c++) {
                    g[c] = rd_f32(data + k * 12 + c * 4, false);
                    assert_true(g[c] >= (float)json_real_value(json_array_get(mn, (size_t)c)));
                    assert_true(g[c] <= (float)json_real_value(json_array_get(mx, (size_t)c)));
                }
                /* inverse of (x, y, z) -> (x, z, -y) * scale */
                double back[3] = {g[0] / scale, -g[2] / scale, g[1] / scale};
                for (int c = 0; c < 3; c++)
                    assert_true(fabs(back[c] - pr->verts[k].pos[c]) < 1e-3 * (1 + fabs(pr->verts[k].pos[c])));
            }
            json_t *iv = json_array_get(views, jint(ia, "bufferView"));
            const uint8_t *idata = bin + jint(iv, "byteOffset");
            for (size_t k = 0; k < pr->index_count; k++) {
                uint32_t idx = pr->vert_count < 65536 ? rd_le16(idata + k * 2) : rd_le32(idata + k * 4);
                assert_int_equal(idx, pr->indices[k]);
                assert_true(idx < pr->vert_count);
            }
            triangles += pr->index_count / 3;
        }
    }
    assert_int_equal(mesh_index, json_array_size(meshes));
    assert_int_equal(triangles, st.triangles);
    assert_int_equal(st.triangles, x.triangles);

    /* Node transforms in glTF axes and metres. */
    json_t *nodes = jget(root, "nodes");
    bool door = false;
    json_array_foreach(nodes, i, v)
    {
        const char *name = json_string_value(jget(v, "name"));
        if (strcmp(name, "door_a*1") != 0)
            continue;
        json_t *t = jget(v, "translation"), *r = jget(v, "rotation"), *ex = jget(v, "extras");
        double want_t[3] = {100 * scale, 30 * scale, -20 * scale};
        for (size_t c = 0; c < 3; c++)
            assert_true(fabs(json_real_value(json_array_get(t, c)) - want_t[c]) < 1e-9);
        double h = sqrt(0.5), want_r[4] = {0, h, 0, h};
        for (size_t c = 0; c < 4; c++)
            assert_true(fabs(json_real_value(json_array_get(r, c)) - want_r[c]) < 1e-6);
        assert_string_equal(json_string_value(jget(ex, "targetname")), "door_a");
        json_t *flags = jget(ex, "spawnflags");
        assert_true(json_is_array(flags) && json_array_size(flags) == 2);
        assert_string_equal(json_string_value(json_array_get(flags, 1)), "2");
        door = true;
    }
    bk_xmesh_free(&x);
    json_decref(root);
    free(glb);
    return door;
}

static void test_glb(void **state)
{
    (void)state;
    for (int k = 0; k < BSPKIT_SAMPLE_COUNT; k++) {
        bspkit_map *m = open_sample((bspkit_sample_kind)k);
        assert_false(check_glb(m, NULL, 0.0254));
        bspkit_close(m);
    }
    bspkit_map *m = open_custom(true);
    assert_true(check_glb(m, NULL, 0.0254));
    bspkit_export_options o = {.scale = 2.0, .skip = BSPKIT_SKIP_TOOL, .keep = BSPKIT_SKIP_ALL};
    assert_true(check_glb(m, &o, 2.0));
    o.skip = 0;
    assert_true(check_glb(m, &o, 2.0));
    bspkit_close(m);
}

/* ---- files ---------------------------------------------------------------- */

static char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = calloc(1, (size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static void test_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/bspkit-export-test.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char obj[128], mtl[128], gltf[128], bin[128];
    snprintf(obj, sizeof obj, "%s/a b.obj", dir);
    snprintf(mtl, sizeof mtl, "%s/a_b.mtl", dir);
    snprintf(gltf, sizeof gltf, "%s/a b.gltf", dir);
    snprintf(bin, sizeof bin, "%s/a b.bin", dir);
    bspkit_map *m = open_custom(false);
    lumps l = load(m);
    bspkit_export_stats st;
    CHECK(bspkit_export(m, obj, NULL, &st, ERR));
    size_t size, msize;
    char *text = slurp(obj, &size), *mtext = slurp(mtl, &msize);
    assert_int_equal(st.bytes_written, size + msize);
    size_t nv = 0, nf = 0, nvt = 0;
    int max_index = 0;
    bool door_seen = false;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "v ", 2) == 0) {
            nv++;
        } else if (strncmp(line, "vt ", 3) == 0) {
            nvt++;
        } else if (strncmp(line, "f ", 2) == 0) {
            int a, b, c;
            assert_int_equal(sscanf(line, "f %d/%*d/%*d %d/%*d/%*d %d/%*d/%*d", &a, &b, &c), 3);
            max_index = a > max_index ? a : max_index;
            nf++;
        } else if (strcmp(line, "o door_a*1") == 0) {
            door_seen = true;
            /* The door's quad corner (100, 0, 0) turned 90 degrees about z is
             * (0, 100, 0); moved by the origin it is (100, 120, 30). */
        }
    }
    assert_true(door_seen);
    /* By default the nodraw-tool quad (2 triangles) and the trigger_once model are left out. */
    bool trigger_model[3] = {false, false, true};
    assert_int_equal(nf, expected_triangles(m, &l, trigger_model) - 2);
    assert_int_equal(nv, nvt);
    assert_true(max_index <= (int)nv);
    assert_non_null(strstr(mtext, "newmtl DEV/FLOOR"));
    free(text);
    free(mtext);
    text = slurp(obj, &size);
    assert_non_null(strstr(text, "\nv 100 120 30\n"));
    assert_non_null(strstr(text, "\nmtllib a_b.mtl\n"));
    free(text);

    CHECK(bspkit_export(m, gltf, NULL, &st, ERR));
    text = slurp(gltf, &size);
    free(slurp(bin, &msize));
    assert_int_equal(st.bytes_written, size + msize);
    assert_non_null(strstr(text, "\"uri\":\"a%20b.bin\""));
    free(text);
    bspkit_export_options o = {.format = BSPKIT_EXPORT_AUTO};
    char bad[128];
    snprintf(bad, sizeof bad, "%s/out.txt", dir);
    assert_int_equal(bspkit_export(m, bad, &o, &st, ERR), BSPKIT_ERR_ARGUMENT);
    o.scale = -1;
    assert_int_equal(bspkit_export(m, gltf, &o, &st, ERR), BSPKIT_ERR_ARGUMENT);
    /* A scale that takes vertices past float range fails while the
     * geometry is built, for files and memory alike, and writes nothing. */
    o.scale = 1e300;
    char glb[160];
    snprintf(glb, sizeof glb, "%s/far.glb", dir);
    bspkit_error e = {0};
    assert_int_equal(bspkit_export(m, glb, &o, &st, &e), BSPKIT_ERR_ARGUMENT);
    assert_non_null(strstr(e.message, "beyond float range"));
    assert_int_equal(access(glb, F_OK), -1);
    uint8_t *mem = NULL;
    size_t mem_size = 0;
    assert_int_equal(bspkit_export_glb_memory(m, &o, &mem, &mem_size, &st, ERR), BSPKIT_ERR_ARGUMENT);
    assert_null(mem);
    bspkit_close(m);
    unlink(obj);
    unlink(mtl);
    unlink(gltf);
    unlink(bin);
    rmdir(dir);
}

/* ---- face kinds left out by default ------------------------------------ */

/* Three 64x64 quads in model 0 of a Source map: face 0 textured DEV/FLOOR,
 * face 1 the tool texture TOOLS/TOOLSCLIP, face 2 SKYBOX/SKY_DAY with
 * SURF_SKY. */
static bspkit_map *open_sky_tool(void)
{
    bspkit_builder *b;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_SOURCE, 20, &b, ERR));
    bspkit_vec3 verts[12];
    bspkit_edge edges[13];
    int32_t surfedges[12];
    bspkit_face faces[3];
    memset(edges, 0, sizeof edges);
    memset(faces, 0, sizeof faces);
    for (int f = 0; f < 3; f++) {
        float x0 = 100.0f * (float)f;
        bspkit_vec3 q[4] = {{x0, 0, 0}, {x0, 64, 0}, {x0 + 64, 64, 0}, {x0 + 64, 0, 0}};
        for (int k = 0; k < 4; k++) {
            verts[4 * f + k] = q[k];
            edges[1 + 4 * f + k].v[0] = (uint32_t)(4 * f + k);
            edges[1 + 4 * f + k].v[1] = (uint32_t)(4 * f + (k + 1) % 4);
            surfedges[4 * f + k] = 1 + 4 * f + k;
        }
        faces[f].first_edge = 4 * f;
        faces[f].num_edges = 4;
        faces[f].texinfo = f;
        faces[f].dispinfo = -1;
        faces[f].orig_face = -1;
        faces[f].light_offset = -1;
        memset(faces[f].styles, 255, 4);
    }
    bspkit_plane planes[] = {{{0, 0, 1}, 0, 2}};
    bspkit_texinfo ti[3];
    memset(ti, 0, sizeof ti);
    for (int t = 0; t < 3; t++) {
        ti[t].texture = t;
        ti[t].texture_vecs[0][0] = 1;
        ti[t].texture_vecs[1][1] = 1;
    }
    ti[2].flags = 0x4; /* SURF_SKY */
    bspkit_texdata td[3] = {{.name_id = 0, .width = 64, .height = 64},
                            {.name_id = 1, .width = 64, .height = 64},
                            {.name_id = 2, .width = 64, .height = 64}};
    const char *names[3] = {"DEV/FLOOR", "TOOLS/TOOLSCLIP", "SKYBOX/SKY_DAY"};
    bspkit_model model;
    memset(&model, 0, sizeof model);
    model.num_faces = 3;
    const char *ents = "{\n\"classname\" \"worldspawn\"\n}\n";
    CHECK(bspkit_builder_set_vertexes(b, verts, 12, ERR));
    CHECK(bspkit_builder_set_edges(b, edges, 13, ERR));
    CHECK(bspkit_builder_set_surfedges(b, surfedges, 12, ERR));
    CHECK(bspkit_builder_set_planes(b, planes, 1, ERR));
    CHECK(bspkit_builder_set_faces(b, faces, 3, ERR));
    CHECK(bspkit_builder_set_texinfo(b, ti, 3, ERR));
    CHECK(bspkit_builder_set_texdata(b, td, 3, ERR));
    CHECK(bspkit_builder_set_texdata_strings(b, names, 3, ERR));
    CHECK(bspkit_builder_set_models(b, &model, 1, ERR));
    CHECK(bspkit_builder_set_entities(b, ents, strlen(ents), ERR));
    uint8_t *buf;
    size_t size;
    bspkit_write_options wo = {.big_endian = false};
    CHECK(bspkit_builder_write(b, &wo, &buf, &size, ERR));
    bspkit_builder_free(b);
    bspkit_map *m = open_bytes(buf, size);
    bspkit_free_buffer(buf);
    return m;
}

/* Triangles (index count / 3 over every primitive) of a GLB, read from its
 * JSON chunk, and whether a material is named `name`. */
static size_t glb_triangles(const uint8_t *glb, size_t size, const char *name, bool *has_material)
{
    assert_true(size >= 20 && rd_le32(glb) == 0x46546C67u && rd_le32(glb + 16) == 0x4E4F534Au);
    json_error_t je;
    json_t *root = json_loadb((const char *)glb + 20, rd_le32(glb + 12), 0, &je);
    assert_non_null(root);
    json_t *acc = jget(root, "accessors"), *mesh, *prim, *mat;
    size_t i, j, indices = 0;
    json_array_foreach(jget(root, "meshes"), i, mesh)
    {
        json_array_foreach(jget(mesh, "primitives"), j, prim)
        {
            indices += jint(json_array_get(acc, jint(prim, "indices")), "count");
        }
    }
    *has_material = false;
    json_array_foreach(json_object_get(root, "materials"), i, mat)
    {
        if (strcmp(json_string_value(jget(mat, "name")), name) == 0)
            *has_material = true;
    }
    json_decref(root);
    assert_int_equal(indices % 3, 0);
    return indices / 3;
}

static size_t export_triangles(bspkit_map *m, const bspkit_export_options *o, bool *tool, bool *sky)
{
    uint8_t *glb;
    size_t size;
    bspkit_export_stats st;
    CHECK(bspkit_export_glb_memory(m, o, &glb, &size, &st, ERR));
    size_t tris = glb_triangles(glb, size, "TOOLS/TOOLSCLIP", tool);
    assert_int_equal(glb_triangles(glb, size, "SKYBOX/SKY_DAY", sky), tris);
    assert_int_equal(st.triangles, tris);
    free(glb);
    return tris;
}

/* Sky and tool faces are left out unless `keep` names them; `skip` wins over `keep`. */
static void test_default_leaves_out_sky_and_tool(void **state)
{
    (void)state;
    bspkit_map *m = open_sky_tool();
    bool tool, sky;
    assert_int_equal(export_triangles(m, NULL, &tool, &sky), 2);
    assert_false(tool);
    assert_false(sky);
    bspkit_export_options o;
    memset(&o, 0, sizeof o);
    assert_int_equal(export_triangles(m, &o, &tool, &sky), 2);
    assert_false(tool || sky);
    o.keep = BSPKIT_SKIP_SKY | BSPKIT_SKIP_TOOL;
    assert_int_equal(export_triangles(m, &o, &tool, &sky), 6);
    assert_true(tool && sky);
    o.keep = BSPKIT_SKIP_SKY;
    assert_int_equal(export_triangles(m, &o, &tool, &sky), 4);
    assert_true(!tool && sky);
    o.keep = BSPKIT_SKIP_ALL;
    o.skip = BSPKIT_SKIP_TOOL;
    assert_int_equal(export_triangles(m, &o, &tool, &sky), 4);
    assert_true(!tool && sky);

    /* OBJ: one "f" line per triangle. */
    char dir[] = "/tmp/bspkit-export-keep.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char obj[128], mtl[128];
    snprintf(obj, sizeof obj, "%s/k.obj", dir);
    snprintf(mtl, sizeof mtl, "%s/k.mtl", dir);
    const uint32_t keeps[2] = {0, BSPKIT_SKIP_SKY | BSPKIT_SKIP_TOOL};
    const size_t want[2] = {2, 6};
    for (int k = 0; k < 2; k++) {
        memset(&o, 0, sizeof o);
        o.keep = keeps[k];
        o.no_textures = true;
        bspkit_export_stats st;
        CHECK(bspkit_export(m, obj, &o, &st, ERR));
        size_t size, nf = 0;
        char *text = slurp(obj, &size);
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
            nf += strncmp(line, "f ", 2) == 0;
        free(text);
        assert_int_equal(nf, want[k]);
    }
    bspkit_close(m);
    unlink(obj);
    unlink(mtl);
    rmdir(dir);
}

/* A face whose surfedges lie outside SURFEDGES fails cleanly, naming FACES. */
static void test_hostile(void **state)
{
    (void)state;
    const int32_t bad[] = {1000000, 2147483640, -5};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t size;
        uint8_t *buf = build_custom(false, &size, bad[i]);
        bspkit_map *m = open_bytes(buf, size);
        bspkit_free_buffer(buf);
        uint8_t *glb = NULL;
        size_t glb_size;
        assert_int_equal(bspkit_export_glb_memory(m, NULL, &glb, &glb_size, NULL, ERR), BSPKIT_ERR_INDEX);
        assert_null(glb);
        assert_int_equal(g_err.lump, BSPKIT_S_FACES);
        assert_true(g_err.offset > 0);
        assert_non_null(strstr(g_err.message, "FACES record 2"));
        bspkit_close(m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_samples), cmocka_unit_test(test_quake3_room), cmocka_unit_test(test_custom_le), cmocka_unit_test(test_custom_be),
        cmocka_unit_test(test_skip_names), cmocka_unit_test(test_angles), cmocka_unit_test(test_glb),
        cmocka_unit_test(test_files), cmocka_unit_test(test_default_leaves_out_sky_and_tool),
        cmocka_unit_test(test_hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
