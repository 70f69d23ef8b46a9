/* Sample maps generated from scratch: a closed box room in each family, built
 * as native records and serialized by the builder. Geometry is derived from a
 * few constants so every index, bound and lightmap size follows from the
 * construction and stays consistent:
 *  - Planes with axial normals are stored facing +axis (the engines' point
 *    tests assume it for types 0-2); faces facing -axis set `side`. Source
 *    also stores each plane's flipped twin right after it, as vbsp does, so
 *    brush sides can name their outward plane.
 *  - Face windings are clockwise seen from the front: (p2-p0) x (p1-p0) points
 *    along the face normal.
 *  - The world tree is a chain of one node per wall; the interior side leads
 *    to the next node and finally to the empty leaf 1. */
#include "write/encode.h"

#include "write/sample_internal.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Room geometry                                                             */
/* ------------------------------------------------------------------------ */

#define WALL_COUNT 6

static const float ROOM_MIN[3] = {-64, -64, 0}, ROOM_MAX[3] = {64, 64, 128};
static const float WORLD_MIN[3] = {-80, -80, -16}, WORLD_MAX[3] = {80, 80, 144};
/* Source func_brush box, away from the room centre (0, 0, 64). */
static const float BOX_MIN[3] = {16, -16, 16}, BOX_MAX[3] = {48, 16, 48};

/* One axis-aligned wall: the face lies on `axis` = `coord` and faces `facing`
 * (+1 or -1 along the axis). World walls face into the room. */
typedef struct wall {
    int axis;
    float coord;
    int facing;
} wall;

/* Order of the node chain: floor, ceiling, -x, +x, -y, +y. */
static const wall ROOM_WALLS[WALL_COUNT] = {
    {2, 0, +1}, {2, 128, -1}, {0, -64, +1}, {0, 64, -1}, {1, -64, +1}, {1, 64, -1},
};

/* Source wall brushes, one behind each room wall, 16 units thick. */
static const float WALL_BRUSH[WALL_COUNT][2][3] = {
    {{-80, -80, -16}, {80, 80, 0}},  {{-80, -80, 128}, {80, 80, 144}}, {{-80, -64, 0}, {-64, 64, 128}},
    {{64, -64, 0}, {80, 64, 128}},   {{-64, -80, 0}, {64, -64, 128}},  {{-64, 64, 0}, {64, 80, 128}},
};

typedef struct scene {
    bool plane_pairs;
    bspkit_plane planes[64];
    size_t nplanes;
    bspkit_vec3 verts[32];
    size_t nverts;
    bspkit_edge edges[64];
    size_t nedges;
    int32_t surfedges[96];
    size_t nsurfedges;
    bspkit_face faces[16];
    bspkit_vec3 corners[16][4]; /* each face's winding, for lightmap extents */
    size_t nfaces;
} scene;

static bspkit_vec3 vec3(float x, float y, float z) { return (bspkit_vec3){x, y, z}; }

static float comp(const bspkit_vec3 *v, int axis) { return axis == 0 ? v->x : axis == 1 ? v->y : v->z; }

static void set_comp(bspkit_vec3 *v, int axis, float f)
{
    if (axis == 0)
        v->x = f;
    else if (axis == 1)
        v->y = f;
    else
        v->z = f;
}

static float dot(const bspkit_vec3 *a, const float v[4]) { return a->x * v[0] + a->y * v[1] + a->z * v[2] + v[3]; }

/* Index of the +axis plane at `dist`; Source adds the flipped twin after it. */
static uint32_t plane_find(scene *sc, int axis, float dist)
{
    for (size_t i = 0; i < sc->nplanes; i++) {
        const bspkit_plane *p = &sc->planes[i];
        if (p->type == axis && comp(&p->normal, axis) == 1.0f && p->dist == dist)
            return (uint32_t)i;
    }
    size_t i = sc->nplanes;
    bspkit_plane p = {vec3(0, 0, 0), dist, axis};
    set_comp(&p.normal, axis, 1.0f);
    sc->planes[sc->nplanes++] = p;
    if (sc->plane_pairs) {
        bspkit_plane q = {vec3(0, 0, 0), -dist, axis};
        set_comp(&q.normal, axis, -1.0f);
        sc->planes[sc->nplanes++] = q;
    }
    return (uint32_t)i;
}

static uint32_t vert_find(scene *sc, bspkit_vec3 v)
{
    for (size_t i = 0; i < sc->nverts; i++)
        if (sc->verts[i].x == v.x && sc->verts[i].y == v.y && sc->verts[i].z == v.z)
            return (uint32_t)i;
    sc->verts[sc->nverts] = v;
    return (uint32_t)sc->nverts++;
}

/* Surfedge for the directed edge a->b: an existing edge is reused, negated
 * when stored the other way round. Edge 0 is reserved: -0 cannot mark a
 * reversed edge. */
static int32_t edge_find(scene *sc, uint32_t a, uint32_t b)
{
    for (size_t i = 1; i < sc->nedges; i++) {
        if (sc->edges[i].v[0] == a && sc->edges[i].v[1] == b)
            return (int32_t)i;
        if (sc->edges[i].v[0] == b && sc->edges[i].v[1] == a)
            return -(int32_t)i;
    }
    sc->edges[sc->nedges] = (bspkit_edge){{a, b}};
    return (int32_t)sc->nedges++;
}

static void scene_init(scene *sc, bool plane_pairs)
{
    memset(sc, 0, sizeof *sc);
    sc->plane_pairs = plane_pairs;
    sc->nedges = 1;
}

/* Adds the rectangle of wall `w` spanning [lo, hi] on the two other axes. */
static size_t add_face(scene *sc, const wall *w, const float lo[3], const float hi[3], int32_t texinfo)
{
    int u = (w->axis + 1) % 3, v = (w->axis + 2) % 3;
    bspkit_vec3 c[4];
    const float cu[4] = {lo[u], hi[u], hi[u], lo[u]}, cv[4] = {lo[v], lo[v], hi[v], hi[v]};
    for (int k = 0; k < 4; k++) {
        set_comp(&c[k], w->axis, w->coord);
        set_comp(&c[k], u, cu[k]);
        set_comp(&c[k], v, cv[k]);
    }
    /* Winding normal (p2-p0) x (p1-p0) along the axis; reverse when it
     * disagrees with the facing. */
    bspkit_vec3 a = vec3(c[2].x - c[0].x, c[2].y - c[0].y, c[2].z - c[0].z);
    bspkit_vec3 b = vec3(c[1].x - c[0].x, c[1].y - c[0].y, c[1].z - c[0].z);
    bspkit_vec3 n = vec3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
    if (comp(&n, w->axis) * (float)w->facing < 0) {
        bspkit_vec3 t = c[1];
        c[1] = c[3];
        c[3] = t;
    }

    size_t fi = sc->nfaces++;
    bspkit_face *f = &sc->faces[fi];
    memset(f, 0, sizeof *f);
    f->plane = plane_find(sc, w->axis, w->coord);
    f->side = w->facing < 0;
    f->first_edge = (int32_t)sc->nsurfedges;
    f->num_edges = 4;
    f->texinfo = texinfo;
    f->dispinfo = -1;
    f->fog_volume = -1;
    f->orig_face = -1;
    f->styles[0] = 0;
    f->styles[1] = f->styles[2] = f->styles[3] = 255;
    f->area = (hi[u] - lo[u]) * (hi[v] - lo[v]);
    uint32_t vi[4];
    for (int k = 0; k < 4; k++) {
        vi[k] = vert_find(sc, c[k]);
        sc->corners[fi][k] = c[k];
    }
    for (int k = 0; k < 4; k++)
        sc->surfedges[sc->nsurfedges++] = edge_find(sc, vi[k], vi[(k + 1) % 4]);
    return fi;
}

/* Room wall k spans the room interior on its two other axes. */
static size_t add_room_face(scene *sc, int k, int32_t texinfo)
{
    return add_face(sc, &ROOM_WALLS[k], ROOM_MIN, ROOM_MAX, texinfo);
}

/* Floor of x / 16 and ceiling of x / 16 for the small exact values used here. */
static int32_t floor_div(double x, double d)
{
    double q = x / d;
    int32_t i = (int32_t)q;
    return (double)i > q ? i - 1 : i;
}

static int32_t ceil_div(double x, double d)
{
    double q = x / d;
    int32_t i = (int32_t)q;
    return (double)i < q ? i + 1 : i;
}

/* Min and max of s/t over the face's corners for texture vector `vec`. */
static void face_range(const scene *sc, size_t face, const float vec[4], double *lo, double *hi)
{
    *lo = 1e30;
    *hi = -1e30;
    for (int k = 0; k < 4; k++) {
        double val = dot(&sc->corners[face][k], vec);
        if (val < *lo)
            *lo = val;
        if (val > *hi)
            *hi = val;
    }
}

/* Quake's default texture axes per dominant normal axis (x, y, z). */
static const float TEX_S[3][3] = {{0, 1, 0}, {1, 0, 0}, {1, 0, 0}};
static const float TEX_T[3][3] = {{0, 0, -1}, {0, 0, -1}, {0, -1, 0}};

static void fill_palette(uint8_t pal[768])
{
    for (int i = 0; i < 256; i++) {
        pal[3 * i] = (uint8_t)i;
        pal[3 * i + 1] = (uint8_t)(64 + i / 2);
        pal[3 * i + 2] = (uint8_t)(255 - i);
    }
}

/* A checkerboard of 4-texel squares at mip 0, sampled consistently at every level. */
static void fill_mips(uint8_t *pixels, uint32_t w, uint32_t h, uint8_t a, uint8_t b, const uint8_t *mips[4])
{
    uint8_t *p = pixels;
    for (int k = 0; k < 4; k++) {
        mips[k] = p;
        for (uint32_t y = 0; y < (h >> k); y++)
            for (uint32_t x = 0; x < (w >> k); x++)
                *p++ = ((((x << k) >> 2) + ((y << k) >> 2)) & 1) ? a : b;
    }
}

#define TRY(expr)                                                                                  \
    do {                                                                                           \
        rc = (expr);                                                                               \
        if (rc != BSPKIT_OK)                                                                       \
            goto fail;                                                                             \
    } while (0)

/* ------------------------------------------------------------------------ */
/* Quake / GoldSrc room                                                      */
/* ------------------------------------------------------------------------ */

/* Player hulls 1-3 (GoldSrc: standing, large, crouching; Quake: 1-2 only). */
static const float GOLDSRC_HULLS[3][2][3] = {
    {{-16, -16, -36}, {16, 16, 36}}, {{-32, -32, -32}, {32, 32, 32}}, {{-16, -16, -18}, {16, 16, 18}}};
static const float QUAKE_HULLS[2][2][3] = {{{-16, -16, -24}, {16, 16, 32}}, {{-32, -32, -24}, {32, 32, 64}}};

static const char GOLDSRC_ENTITIES[] = "{\n"
                                       "\"classname\" \"worldspawn\"\n"
                                       "\"mapversion\" \"220\"\n"
                                       "\"message\" \"bspkit sample room\"\n"
                                       "}\n"
                                       "{\n"
                                       "\"classname\" \"info_player_start\"\n"
                                       "\"origin\" \"0 0 40\"\n"
                                       "\"angles\" \"0 0 0\"\n"
                                       "}\n"
                                       "{\n"
                                       "\"classname\" \"light\"\n"
                                       "\"origin\" \"0 0 96\"\n"
                                       "\"_light\" \"255 255 255 200\"\n"
                                       "}\n";

static const char QUAKE_ENTITIES[] = "{\n"
                                     "\"classname\" \"worldspawn\"\n"
                                     "\"message\" \"bspkit sample room\"\n"
                                     "}\n"
                                     "{\n"
                                     "\"classname\" \"info_player_start\"\n"
                                     "\"origin\" \"0 0 25\"\n"
                                     "\"angle\" \"0\"\n"
                                     "}\n"
                                     "{\n"
                                     "\"classname\" \"light\"\n"
                                     "\"origin\" \"0 0 96\"\n"
                                     "\"light\" \"300\"\n"
                                     "}\n";

/* Texinfo per dominant axis: z (floor, ceiling) -> 0, x -> 1, y -> 2. */
static int32_t axis_texinfo(int axis) { return axis == 2 ? 0 : axis + 1; }

static bspkit_result build_quake_room(bool goldsrc, bspkit_builder **out, bspkit_error *err)
{
    bspkit_result rc;
    bspkit_builder *b = NULL;
    scene *sc = calloc(1, sizeof *sc);
    uint8_t *lighting = NULL, *pixels = NULL;
    if (!sc)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    TRY(bspkit_builder_new(goldsrc ? BSPKIT_FAMILY_GOLDSRC : BSPKIT_FAMILY_QUAKE, goldsrc ? 30 : 29, &b, err));
    scene_init(sc, false);

    /* Texinfo: Quake default axes, shifted so texture space does not start
     * on a luxel boundary (exercises the floor/ceil extent rule). */
    bspkit_texinfo texinfo[3];
    memset(texinfo, 0, sizeof texinfo);
    for (int axis = 0; axis < 3; axis++) {
        bspkit_texinfo *t = &texinfo[axis_texinfo(axis)];
        memcpy(t->texture_vecs[0], TEX_S[axis], sizeof TEX_S[axis]);
        memcpy(t->texture_vecs[1], TEX_T[axis], sizeof TEX_T[axis]);
        t->texture_vecs[0][3] = 8;
        t->texture_vecs[1][3] = 4;
        t->texture = axis == 2 ? 0 : 1; /* floor/ceiling texture, wall texture */
    }

    for (int k = 0; k < WALL_COUNT; k++)
        add_room_face(sc, k, axis_texinfo(ROOM_WALLS[k].axis));

    /* Lightmaps: per axis ceil(max/16) - floor(min/16) + 1 luxels. */
    size_t bytes_per_luxel = goldsrc ? 3 : 1;
    size_t light_size = 0;
    int32_t lm_w[WALL_COUNT], lm_h[WALL_COUNT];
    for (size_t f = 0; f < sc->nfaces; f++) {
        const bspkit_texinfo *t = &texinfo[sc->faces[f].texinfo];
        double lo, hi;
        face_range(sc, f, t->texture_vecs[0], &lo, &hi);
        lm_w[f] = ceil_div(hi, 16) - floor_div(lo, 16) + 1;
        face_range(sc, f, t->texture_vecs[1], &lo, &hi);
        lm_h[f] = ceil_div(hi, 16) - floor_div(lo, 16) + 1;
        sc->faces[f].light_offset = (int32_t)light_size;
        light_size += (size_t)lm_w[f] * (size_t)lm_h[f] * bytes_per_luxel;
    }
    lighting = malloc(light_size);
    if (!lighting) {
        rc = bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
        goto fail;
    }
    for (size_t f = 0; f < sc->nfaces; f++) {
        uint8_t *p = lighting + sc->faces[f].light_offset;
        for (int32_t y = 0; y < lm_h[f]; y++)
            for (int32_t x = 0; x < lm_w[f]; x++) {
                uint8_t level = (uint8_t)(96 + 8 * x + 4 * y + 6 * (int32_t)f);
                if (goldsrc) {
                    *p++ = level;
                    *p++ = (uint8_t)(level - 16);
                    *p++ = (uint8_t)(200 - 4 * y);
                } else {
                    *p++ = level;
                }
            }
    }

    /* Hull 0: one node per wall; interior side -> next node, last -> leaf 1. */
    bspkit_node nodes[WALL_COUNT];
    memset(nodes, 0, sizeof nodes);
    for (int k = 0; k < WALL_COUNT; k++) {
        const wall *w = &ROOM_WALLS[k];
        int32_t inward = k + 1 < WALL_COUNT ? k + 1 : -(1 + 1);
        int32_t outward = -(0 + 1); /* every solid side is leaf 0 */
        nodes[k].plane = (int32_t)plane_find(sc, w->axis, w->coord);
        nodes[k].children[0] = w->facing > 0 ? inward : outward;
        nodes[k].children[1] = w->facing > 0 ? outward : inward;
        nodes[k].mins = vec3(WORLD_MIN[0], WORLD_MIN[1], WORLD_MIN[2]);
        nodes[k].maxs = vec3(WORLD_MAX[0], WORLD_MAX[1], WORLD_MAX[2]);
        nodes[k].first_face = (uint32_t)k;
        nodes[k].num_faces = 1;
        nodes[k].area = -1;
    }

    /* Hulls 1-3: the same chain with planes pushed in by the hull box. */
    int hulls = goldsrc ? 3 : 2;
    bspkit_clipnode clip[3 * WALL_COUNT];
    int32_t headnode[4] = {0, 0, 0, 0};
    for (int h = 0; h < hulls; h++) {
        const float(*box)[3] = goldsrc ? GOLDSRC_HULLS[h] : QUAKE_HULLS[h];
        int32_t base = h * WALL_COUNT;
        headnode[h + 1] = base;
        for (int k = 0; k < WALL_COUNT; k++) {
            const wall *w = &ROOM_WALLS[k];
            float coord = w->coord - (w->facing > 0 ? box[0][w->axis] : box[1][w->axis]);
            int32_t inward = k + 1 < WALL_COUNT ? base + k + 1 : -1; /* CONTENTS_EMPTY */
            int32_t outward = -2;                                   /* CONTENTS_SOLID */
            bspkit_clipnode *c = &clip[base + k];
            c->plane = (int32_t)plane_find(sc, w->axis, coord);
            c->children[0] = w->facing > 0 ? inward : outward;
            c->children[1] = w->facing > 0 ? outward : inward;
        }
    }

    /* Visibility: leaf 1 sees itself (bit 0 of its row stands for leaf 1). */
    const uint8_t pvs_row[1] = {0x01};
    int32_t vis_offset[1];
    TRY(bspkit_builder_set_visibility(b, 1, 1, pvs_row, NULL, vis_offset, err));

    bspkit_leaf leafs[2];
    memset(leafs, 0, sizeof leafs);
    leafs[0].contents = -2; /* CONTENTS_SOLID */
    leafs[0].vis_offset = -1;
    leafs[0].cluster = -1;
    leafs[1].contents = -1; /* CONTENTS_EMPTY */
    leafs[1].vis_offset = vis_offset[0];
    leafs[1].cluster = -1;
    leafs[1].mins = vec3(ROOM_MIN[0], ROOM_MIN[1], ROOM_MIN[2]);
    leafs[1].maxs = vec3(ROOM_MAX[0], ROOM_MAX[1], ROOM_MAX[2]);
    leafs[1].first_leaf_face = 0;
    leafs[1].num_leaf_faces = WALL_COUNT;
    uint32_t marksurfaces[WALL_COUNT];
    for (int k = 0; k < WALL_COUNT; k++)
        marksurfaces[k] = (uint32_t)k;

    bspkit_model model;
    memset(&model, 0, sizeof model);
    model.mins = vec3(WORLD_MIN[0], WORLD_MIN[1], WORLD_MIN[2]);
    model.maxs = vec3(WORLD_MAX[0], WORLD_MAX[1], WORLD_MAX[2]);
    memcpy(model.headnode, headnode, sizeof headnode);
    model.vis_leafs = 1;
    model.first_face = 0;
    model.num_faces = WALL_COUNT;

    /* Two embedded textures with all four mips (and, GoldSrc, a palette). */
    size_t pix16 = 16 * 16 * 85 / 64, pix32 = 32 * 32 * 85 / 64;
    pixels = malloc(pix16 + pix32);
    if (!pixels) {
        rc = bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
        goto fail;
    }
    uint8_t palette[768];
    fill_palette(palette);
    bspkit_miptex tex[2];
    memset(tex, 0, sizeof tex);
    strcpy(tex[0].name, "bk_floor");
    tex[0].width = tex[0].height = 16;
    strcpy(tex[1].name, "bk_wall");
    tex[1].width = tex[1].height = 32;
    fill_mips(pixels, 16, 16, 40, 180, tex[0].mips);
    fill_mips(pixels + pix16, 32, 32, 90, 220, tex[1].mips);
    for (int i = 0; i < 2; i++) {
        tex[i].embedded = true;
        if (goldsrc) {
            tex[i].palette = palette;
            tex[i].palette_size = 256;
        }
    }

    TRY(bspkit_builder_set_planes(b, sc->planes, sc->nplanes, err));
    TRY(bspkit_builder_set_vertexes(b, sc->verts, sc->nverts, err));
    TRY(bspkit_builder_set_edges(b, sc->edges, sc->nedges, err));
    TRY(bspkit_builder_set_surfedges(b, sc->surfedges, sc->nsurfedges, err));
    TRY(bspkit_builder_set_faces(b, sc->faces, sc->nfaces, err));
    TRY(bspkit_builder_set_texinfo(b, texinfo, 3, err));
    TRY(bspkit_builder_set_miptex(b, tex, 2, err));
    TRY(bspkit_builder_set_lighting(b, false, lighting, light_size, err));
    TRY(bspkit_builder_set_nodes(b, nodes, WALL_COUNT, err));
    TRY(bspkit_builder_set_clipnodes(b, clip, (size_t)hulls * WALL_COUNT, err));
    TRY(bspkit_builder_set_leafs(b, leafs, 2, err));
    TRY(bspkit_builder_set_leaf_faces(b, marksurfaces, WALL_COUNT, err));
    TRY(bspkit_builder_set_models(b, &model, 1, err));
    const char *ents = goldsrc ? GOLDSRC_ENTITIES : QUAKE_ENTITIES;
    TRY(bspkit_builder_set_entities(b, ents, strlen(ents), err));

    free(sc);
    free(lighting);
    free(pixels);
    *out = b;
    return BSPKIT_OK;
fail:
    bspkit_builder_free(b);
    free(sc);
    free(lighting);
    free(pixels);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Source room                                                               */
/* ------------------------------------------------------------------------ */

#define S_CONTENTS_SOLID 1
#define S_SURF_NODRAW 0x80
#define S_SURF_NOLIGHT 0x400
#define S_NODRAW_TEXINFO 3
#define S_BRUSHES (WALL_COUNT + 1)
#define S_LEAFS 15 /* 0 dummy, 1 room, 2-7 walls, 8 func_brush, 9-14 around it */

/* func_brush box faces, facing out: -x, +x, -y, +y, -z, +z. */
static void box_wall(int j, wall *w)
{
    w->axis = j / 2;
    w->facing = j % 2 ? +1 : -1;
    w->coord = j % 2 ? BOX_MAX[w->axis] : BOX_MIN[w->axis];
}

static const char SOURCE_ENTITIES[] = "{\n"
                                      "\"world_mins\" \"-80 -80 -16\"\n"
                                      "\"world_maxs\" \"80 80 144\"\n"
                                      "\"skyname\" \"sky_day01_01\"\n"
                                      "\"maxpropscreenwidth\" \"-1\"\n"
                                      "\"mapversion\" \"1\"\n"
                                      "\"classname\" \"worldspawn\"\n"
                                      "}\n"
                                      "{\n"
                                      "\"origin\" \"-32 0 1\"\n"
                                      "\"angles\" \"0 0 0\"\n"
                                      "\"classname\" \"info_player_start\"\n"
                                      "}\n"
                                      "{\n"
                                      "\"origin\" \"0 0 96\"\n"
                                      "\"_light\" \"255 255 255 200\"\n"
                                      "\"classname\" \"light\"\n"
                                      "}\n"
                                      "{\n"
                                      "\"model\" \"*1\"\n"
                                      "\"origin\" \"0 0 0\"\n"
                                      "\"Solidity\" \"0\"\n"
                                      "\"StartDisabled\" \"0\"\n"
                                      "\"rendermode\" \"0\"\n"
                                      "\"renderamt\" \"255\"\n"
                                      "\"rendercolor\" \"255 255 255\"\n"
                                      "\"classname\" \"func_brush\"\n"
                                      "}\n";

static const char *const SOURCE_MATERIALS[2] = {"DEV/DEV_MEASUREGENERIC01B", "TOOLS/TOOLSNODRAW"};

static const char QUAKE2_ENTITIES[] = "{\n"
                                      "\"message\" \"bspkit sample room\"\n"
                                      "\"classname\" \"worldspawn\"\n"
                                      "}\n"
                                      "{\n"
                                      "\"origin\" \"-32 0 25\"\n"
                                      "\"angle\" \"0\"\n"
                                      "\"classname\" \"info_player_start\"\n"
                                      "}\n"
                                      "{\n"
                                      "\"origin\" \"0 0 96\"\n"
                                      "\"light\" \"200\"\n"
                                      "\"classname\" \"light\"\n"
                                      "}\n"
                                      "{\n"
                                      "\"model\" \"*1\"\n"
                                      "\"classname\" \"func_wall\"\n"
                                      "}\n";

/* Quake 2 texture names (textures/<name>.wal): floor/ceiling, walls, nodraw. */
static const char *const QUAKE2_TEXTURES[3] = {"bspkit/floor", "bspkit/wall", "bspkit/nodraw"};

/* The smallest valid zip: an end-of-central-directory record with no entries. */
static const uint8_t EMPTY_ZIP[22] = {'P', 'K', 5, 6};

static void set_box(bspkit_vec3 *mins, bspkit_vec3 *maxs, const float lo[3], const float hi[3])
{
    *mins = vec3(lo[0], lo[1], lo[2]);
    *maxs = vec3(hi[0], hi[1], hi[2]);
}

/* RGB lightmaps by Quake's extent rule (16 units a luxel along the texture
 * axes): each face's samples into a new buffer, its offset into the face. */
static uint8_t *quake2_lighting(scene *sc, const bspkit_texinfo *texinfo, size_t *size)
{
    size_t light_size = 0;
    int32_t w[16], h[16];
    for (size_t f = 0; f < sc->nfaces; f++) {
        const bspkit_texinfo *t = &texinfo[sc->faces[f].texinfo];
        double lo, hi;
        face_range(sc, f, t->texture_vecs[0], &lo, &hi);
        w[f] = ceil_div(hi, 16) - floor_div(lo, 16) + 1;
        face_range(sc, f, t->texture_vecs[1], &lo, &hi);
        h[f] = ceil_div(hi, 16) - floor_div(lo, 16) + 1;
        sc->faces[f].light_offset = (int32_t)light_size;
        light_size += 3 * (size_t)w[f] * (size_t)h[f];
    }
    uint8_t *light = malloc(light_size);
    if (!light)
        return NULL;
    for (size_t f = 0; f < sc->nfaces; f++) {
        uint8_t *p = light + sc->faces[f].light_offset;
        for (int32_t y = 0; y < h[f]; y++)
            for (int32_t x = 0; x < w[f]; x++) {
                *p++ = (uint8_t)(110 + 8 * x);
                *p++ = (uint8_t)(100 + 8 * y);
                *p++ = (uint8_t)(80 + 10 * (int32_t)f);
            }
    }
    *size = light_size;
    return light;
}

/* The Source room, or (quake2) the same room in Quake 2's records: brushes,
 * clusters and areas as Source kept them from Quake 2; named textures
 * instead of texdata, RGB lightmaps sized by the texture axes, and no
 * original faces, HDR lighting, game lumps or pakfile. */
static bspkit_result build_source_room(bool quake2, bspkit_builder **out, bspkit_error *err)
{
    bspkit_result rc;
    bspkit_builder *b = NULL;
    scene *sc = calloc(1, sizeof *sc);
    uint8_t *ldr = NULL, *hdr = NULL;
    if (!sc)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    TRY(bspkit_builder_new(quake2 ? BSPKIT_FAMILY_QUAKE2 : BSPKIT_FAMILY_SOURCE, quake2 ? 38 : 20, &b, err));
    scene_init(sc, true);

    /* Texinfo 0-2: the dev material on each axis, 4 texels per unit and a
     * luxel every 16 units, offset off the luxel grid; 3: nodraw. */
    bspkit_texinfo texinfo[4];
    memset(texinfo, 0, sizeof texinfo);
    for (int axis = 0; axis < 3; axis++) {
        bspkit_texinfo *t = &texinfo[axis_texinfo(axis)];
        for (int k = 0; k < 3; k++) {
            t->texture_vecs[0][k] = 4 * TEX_S[axis][k];
            t->texture_vecs[1][k] = 4 * TEX_T[axis][k];
            t->lightmap_vecs[0][k] = TEX_S[axis][k] / 16;
            t->lightmap_vecs[1][k] = TEX_T[axis][k] / 16;
        }
        t->lightmap_vecs[0][3] = 0.5f;
        t->lightmap_vecs[1][3] = 0.25f;
        t->texture = 0;
    }
    memcpy(texinfo[S_NODRAW_TEXINFO].texture_vecs[0], TEX_S[2], sizeof TEX_S[2]);
    memcpy(texinfo[S_NODRAW_TEXINFO].texture_vecs[1], TEX_T[2], sizeof TEX_T[2]);
    texinfo[S_NODRAW_TEXINFO].flags = S_SURF_NODRAW | S_SURF_NOLIGHT;
    texinfo[S_NODRAW_TEXINFO].texture = 1;
    if (quake2) {
        /* One texel a unit, off the luxel grid; SURF_NODRAW has Source's value. */
        for (int axis = 0; axis < 3; axis++) {
            bspkit_texinfo *t = &texinfo[axis_texinfo(axis)];
            memcpy(t->texture_vecs[0], TEX_S[axis], sizeof TEX_S[axis]);
            memcpy(t->texture_vecs[1], TEX_T[axis], sizeof TEX_T[axis]);
            t->texture_vecs[0][3] = 8;
            t->texture_vecs[1][3] = 4;
            strcpy(t->texture_name, QUAKE2_TEXTURES[axis == 2 ? 0 : 1]);
        }
        texinfo[S_NODRAW_TEXINFO].flags = S_SURF_NODRAW;
        strcpy(texinfo[S_NODRAW_TEXINFO].texture_name, QUAKE2_TEXTURES[2]);
        for (int i = 0; i < 4; i++) {
            texinfo[i].texture = -1;
            texinfo[i].next_texinfo = -1;
        }
    }

    bspkit_texdata texdata[2];
    memset(texdata, 0, sizeof texdata);
    texdata[0].reflectivity = vec3(0.5f, 0.5f, 0.5f);
    texdata[0].name_id = 0;
    texdata[0].width = texdata[0].height = texdata[0].view_width = texdata[0].view_height = 512;
    texdata[1].name_id = 1;
    texdata[1].width = texdata[1].height = texdata[1].view_width = texdata[1].view_height = 64;

    /* Faces 0-5: the room, facing in; 6-11: the func_brush box, facing out. */
    for (int k = 0; k < WALL_COUNT; k++)
        add_room_face(sc, k, axis_texinfo(ROOM_WALLS[k].axis));
    wall box_walls[WALL_COUNT];
    for (int j = 0; j < WALL_COUNT; j++) {
        box_wall(j, &box_walls[j]);
        add_face(sc, &box_walls[j], BOX_MIN, BOX_MAX, axis_texinfo(box_walls[j].axis));
    }

    /* Lightmaps, vbsp's rule: mins = floor(min), size = ceil(max) - floor(min)
     * in luxels; (size + 1) per axis samples, preceded by one average sample
     * per style. */
    size_t light_size = 0;
    if (quake2) {
        if (!(ldr = quake2_lighting(sc, texinfo, &light_size))) {
            rc = bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
            goto fail;
        }
    }
    for (size_t f = 0; f < sc->nfaces && !quake2; f++) {
        bspkit_face *face = &sc->faces[f];
        const bspkit_texinfo *t = &texinfo[face->texinfo];
        for (int a = 0; a < 2; a++) {
            double lo, hi;
            face_range(sc, f, t->lightmap_vecs[a], &lo, &hi);
            face->lightmap_mins[a] = floor_div(lo, 1);
            face->lightmap_size[a] = ceil_div(hi, 1) - face->lightmap_mins[a];
        }
        face->on_node = 1;
        face->orig_face = (int32_t)f;
        face->light_offset = (int32_t)(light_size + 4);
        light_size += 4 + 4 * (size_t)(face->lightmap_size[0] + 1) * (size_t)(face->lightmap_size[1] + 1);
    }
    if (!quake2) {
        ldr = malloc(light_size);
        hdr = malloc(light_size);
    }
    if (!ldr || (!hdr && !quake2)) {
        rc = bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
        goto fail;
    }
    for (size_t f = 0; f < sc->nfaces && !quake2; f++) {
        const bspkit_face *face = &sc->faces[f];
        size_t at = (size_t)face->light_offset - 4;
        /* Average sample, then the luxels row by row. */
        const uint8_t avg[4] = {160, 150, 140, 0};
        memcpy(ldr + at, avg, 4);
        memcpy(hdr + at, avg, 4);
        hdr[at + 3] = (uint8_t)(int8_t)-1;
        at += 4;
        for (int32_t y = 0; y <= face->lightmap_size[1]; y++)
            for (int32_t x = 0; x <= face->lightmap_size[0]; x++, at += 4) {
                ldr[at] = (uint8_t)(120 + 8 * x);
                ldr[at + 1] = (uint8_t)(120 + 8 * y);
                ldr[at + 2] = (uint8_t)(100 + 10 * (int32_t)f);
                ldr[at + 3] = 0;
                memcpy(hdr + at, ldr + at, 3);
                hdr[at + 3] = (uint8_t)(int8_t)-1; /* HDR keeps more range: same colour, half the scale */
            }
    }

    /* Brushes: the 6 walls, then the func_brush box; sides -x, +x, -y, +y, -z, +z
     * on outward planes. Only a wall's side facing the room is textured. */
    bspkit_brush brushes[S_BRUSHES];
    bspkit_brushside sides[S_BRUSHES * 6];
    for (int k = 0; k < S_BRUSHES; k++) {
        const float *lo = k < WALL_COUNT ? WALL_BRUSH[k][0] : BOX_MIN;
        const float *hi = k < WALL_COUNT ? WALL_BRUSH[k][1] : BOX_MAX;
        brushes[k] = (bspkit_brush){6 * k, 6, S_CONTENTS_SOLID, -1};
        for (int j = 0; j < 6; j++) {
            int axis = j / 2, facing = j % 2 ? +1 : -1;
            uint32_t positive = plane_find(sc, axis, facing > 0 ? hi[axis] : lo[axis]);
            bool visible = k == WALL_COUNT ||
                           (ROOM_WALLS[k].axis == axis && ROOM_WALLS[k].facing == facing);
            bspkit_brushside *s = &sides[6 * k + j];
            memset(s, 0, sizeof *s);
            s->plane = facing > 0 ? positive : positive + 1; /* the twin faces -axis */
            s->texinfo = visible ? axis_texinfo(axis) : S_NODRAW_TEXINFO;
            s->dispinfo = -1;
        }
    }

    /* Nodes 0-5: world chain; 6-11: the func_brush chain. */
    bspkit_node nodes[2 * WALL_COUNT];
    memset(nodes, 0, sizeof nodes);
    for (int k = 0; k < WALL_COUNT; k++) {
        const wall *w = &ROOM_WALLS[k];
        int32_t inward = k + 1 < WALL_COUNT ? k + 1 : -(1 + 1);
        int32_t outward = -((2 + k) + 1); /* the solid leaf of wall k */
        bspkit_node *n = &nodes[k];
        n->plane = (int32_t)plane_find(sc, w->axis, w->coord);
        n->children[0] = w->facing > 0 ? inward : outward;
        n->children[1] = w->facing > 0 ? outward : inward;
        set_box(&n->mins, &n->maxs, WORLD_MIN, WORLD_MAX);
        n->first_face = (uint32_t)k;
        n->num_faces = 1;
        n->area = -1; /* leaves of areas 0 and 1 below */
    }
    for (int j = 0; j < WALL_COUNT; j++) {
        const wall *w = &box_walls[j];
        int32_t inside = j + 1 < WALL_COUNT ? WALL_COUNT + j + 1 : -(8 + 1);
        int32_t outside = -((9 + j) + 1);
        bspkit_node *n = &nodes[WALL_COUNT + j];
        n->plane = (int32_t)plane_find(sc, w->axis, w->coord);
        /* Faces point out of the box: the inside is behind them. */
        n->children[0] = w->facing > 0 ? outside : inside;
        n->children[1] = w->facing > 0 ? inside : outside;
        set_box(&n->mins, &n->maxs, BOX_MIN, BOX_MAX);
        n->first_face = (uint32_t)(WALL_COUNT + j);
        n->num_faces = 1;
        n->area = 0;
    }

    bspkit_leaf leafs[S_LEAFS];
    memset(leafs, 0, sizeof leafs);
    for (int i = 0; i < S_LEAFS; i++) {
        leafs[i].cluster = -1;
        leafs[i].vis_offset = -1;
        leafs[i].leaf_water = -1;
    }
    leafs[0].contents = S_CONTENTS_SOLID; /* leaf 0 is the engines' solid dummy */
    leafs[1].contents = 0;
    leafs[1].cluster = 0;
    leafs[1].area = 1;
    set_box(&leafs[1].mins, &leafs[1].maxs, ROOM_MIN, ROOM_MAX);
    leafs[1].first_leaf_face = 0;
    leafs[1].num_leaf_faces = WALL_COUNT;
    for (int k = 0; k < WALL_COUNT; k++) {
        bspkit_leaf *l = &leafs[2 + k];
        l->contents = S_CONTENTS_SOLID;
        set_box(&l->mins, &l->maxs, WALL_BRUSH[k][0], WALL_BRUSH[k][1]);
        l->first_leaf_brush = (uint32_t)k;
        l->num_leaf_brushes = 1;
    }
    leafs[8].contents = S_CONTENTS_SOLID;
    set_box(&leafs[8].mins, &leafs[8].maxs, BOX_MIN, BOX_MAX);
    leafs[8].first_leaf_brush = WALL_COUNT;
    leafs[8].num_leaf_brushes = 1;
    for (int j = 0; j < WALL_COUNT; j++) {
        bspkit_leaf *l = &leafs[9 + j];
        set_box(&l->mins, &l->maxs, BOX_MIN, BOX_MAX);
        l->first_leaf_face = (uint32_t)(WALL_COUNT + j);
        l->num_leaf_faces = 1;
    }
    uint32_t leaf_faces[2 * WALL_COUNT], leaf_brushes[S_BRUSHES];
    for (int i = 0; i < 2 * WALL_COUNT; i++)
        leaf_faces[i] = (uint32_t)i;
    for (int i = 0; i < S_BRUSHES; i++)
        leaf_brushes[i] = (uint32_t)i;

    bspkit_model models[2];
    memset(models, 0, sizeof models);
    set_box(&models[0].mins, &models[0].maxs, WORLD_MIN, WORLD_MAX);
    models[0].headnode[0] = 0;
    models[0].first_face = 0;
    models[0].num_faces = WALL_COUNT;
    set_box(&models[1].mins, &models[1].maxs, BOX_MIN, BOX_MAX);
    models[1].headnode[0] = WALL_COUNT;
    models[1].first_face = WALL_COUNT;
    models[1].num_faces = WALL_COUNT;

    /* Original faces: each face is its own unsplit original. */
    bspkit_face orig[2 * WALL_COUNT];
    memcpy(orig, sc->faces, sizeof orig);
    for (int i = 0; i < 2 * WALL_COUNT; i++)
        orig[i].orig_face = 0;

    /* Area 0 is the outside; area 1 the room. Portal 0 is the unused
     * placeholder vbsp always writes. */
    const bspkit_area areas[2] = {{0, 0}, {0, 1}};
    const bspkit_areaportal portal0 = {0, 0, 0, 0, 0};

    const uint8_t vis_row[1] = {0x01}; /* cluster 0 sees and hears itself */

    TRY(bspkit_builder_set_planes(b, sc->planes, sc->nplanes, err));
    TRY(bspkit_builder_set_vertexes(b, sc->verts, sc->nverts, err));
    TRY(bspkit_builder_set_edges(b, sc->edges, sc->nedges, err));
    TRY(bspkit_builder_set_surfedges(b, sc->surfedges, sc->nsurfedges, err));
    TRY(bspkit_builder_set_faces(b, sc->faces, sc->nfaces, err));
    TRY(bspkit_builder_set_texinfo(b, texinfo, 4, err));
    TRY(bspkit_builder_set_lighting(b, false, ldr, light_size, err));
    if (!quake2) {
        TRY(bspkit_builder_set_orig_faces(b, orig, 2 * WALL_COUNT, err));
        TRY(bspkit_builder_set_texdata(b, texdata, 2, err));
        TRY(bspkit_builder_set_texdata_strings(b, SOURCE_MATERIALS, 2, err));
        TRY(bspkit_builder_set_lighting(b, true, hdr, light_size, err));
    }
    TRY(bspkit_builder_set_brushes(b, brushes, S_BRUSHES, err));
    TRY(bspkit_builder_set_brushsides(b, sides, S_BRUSHES * 6, err));
    TRY(bspkit_builder_set_nodes(b, nodes, 2 * WALL_COUNT, err));
    TRY(bspkit_builder_set_leafs(b, leafs, S_LEAFS, err));
    TRY(bspkit_builder_set_leaf_faces(b, leaf_faces, 2 * WALL_COUNT, err));
    TRY(bspkit_builder_set_leaf_brushes(b, leaf_brushes, S_BRUSHES, err));
    TRY(bspkit_builder_set_models(b, models, 2, err));
    TRY(bspkit_builder_set_visibility(b, 1, 1, vis_row, vis_row, NULL, err));
    TRY(bspkit_builder_set_areas(b, areas, 2, err));
    TRY(bspkit_builder_set_areaportals(b, &portal0, 1, err));
    if (quake2) {
        TRY(bspkit_builder_set_entities(b, QUAKE2_ENTITIES, strlen(QUAKE2_ENTITIES), err));
    } else {
        TRY(bspkit_builder_set_game_lumps(b, NULL, 0, err));
        TRY(bspkit_builder_set_lump(b, BSPKIT_S_PAKFILE, EMPTY_ZIP, sizeof EMPTY_ZIP, 0, err));
        TRY(bspkit_builder_set_entities(b, SOURCE_ENTITIES, strlen(SOURCE_ENTITIES), err));
    }

    free(sc);
    free(ldr);
    free(hdr);
    *out = b;
    return BSPKIT_OK;
fail:
    bspkit_builder_free(b);
    free(sc);
    free(ldr);
    free(hdr);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Public entry points                                                       */
/* ------------------------------------------------------------------------ */

static const char *const SAMPLE_NAMES[BSPKIT_SAMPLE_COUNT] = {
    "goldsrc-room", "quake-room", "source-room", "source-room-be", "source-room-lzma", "quake2-room", "quake3-room",
};

const char *bspkit_sample_name(bspkit_sample_kind kind)
{
    return (unsigned)kind < BSPKIT_SAMPLE_COUNT ? SAMPLE_NAMES[kind] : NULL;
}

int bspkit_sample_find(const char *name)
{
    for (int i = 0; name && i < BSPKIT_SAMPLE_COUNT; i++)
        if (strcmp(name, SAMPLE_NAMES[i]) == 0)
            return i;
    return -1;
}

bspkit_result bspkit_sample_builder(bspkit_sample_kind kind, bspkit_builder **out, bspkit_write_options *opts,
                                    bspkit_error *err)
{
    bk_error_clear(err);
    if (!out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "sample: NULL output pointer");
    *out = NULL;
    bspkit_write_options o = {0};
    bspkit_result rc;
    switch (kind) {
    case BSPKIT_SAMPLE_GOLDSRC_ROOM: rc = build_quake_room(true, out, err); break;
    case BSPKIT_SAMPLE_QUAKE_ROOM: rc = build_quake_room(false, out, err); break;
    case BSPKIT_SAMPLE_SOURCE_ROOM:
    case BSPKIT_SAMPLE_SOURCE_ROOM_BE:
    case BSPKIT_SAMPLE_SOURCE_ROOM_LZMA:
        rc = build_source_room(false, out, err);
        o.revision = 1;
        o.big_endian = kind == BSPKIT_SAMPLE_SOURCE_ROOM_BE;
        o.compress_lzma = kind == BSPKIT_SAMPLE_SOURCE_ROOM_LZMA;
        break;
    case BSPKIT_SAMPLE_QUAKE2_ROOM: rc = build_source_room(true, out, err); break;
    case BSPKIT_SAMPLE_QUAKE3_ROOM: rc = bk_sample_quake3_room(out, err); break;
    default: return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "unknown sample kind %d", (int)kind);
    }
    if (rc == BSPKIT_OK && opts)
        *opts = o;
    return rc;
}

bspkit_result bspkit_sample_build(bspkit_sample_kind kind, uint8_t **out, size_t *size, bspkit_error *err)
{
    bk_error_clear(err);
    if (!out || !size)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "sample: NULL output pointer");
    *out = NULL;
    *size = 0;
    bspkit_builder *b = NULL;
    bspkit_write_options opts;
    bspkit_result rc = bspkit_sample_builder(kind, &b, &opts, err);
    if (rc != BSPKIT_OK)
        return rc;
    rc = bspkit_builder_write(b, &opts, out, size, err);
    bspkit_builder_free(b);
    return rc;
}
