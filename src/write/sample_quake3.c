/* The quake3-room sample: the six-walled room of the other samples in
 * Quake 3's records. Six box brushes of caulk whose inner sides carry the
 * floor and wall shaders, the six inner faces as planar surfaces lit from
 * one 128 x 128 lightmap page, a 3 x 3 Bézier patch bulging up from the
 * floor, a one-node tree on the floor plane with the room (cluster 0) above
 * and the outside (cluster -1) below, and uncompressed visibility. */
#include "write/sample_internal.h"

#include "bspkit/quake3.h"

#include <stdlib.h>
#include <string.h>

#define FACES 6
#define PAGE BSPKIT_Q3_LIGHTMAP_PAGE_SIZE
#define CELL 32 /* each face's square of the lightmap page */

enum { SH_FLOOR, SH_WALL, SH_CAULK, SH_PIPE, SHADERS };

static const char QUAKE3_ENTITIES[] = "{\n"
                                      "\"classname\" \"worldspawn\"\n"
                                      "\"message\" \"bspkit quake3-room sample\"\n"
                                      "}\n"
                                      "{\n"
                                      "\"classname\" \"info_player_deathmatch\"\n"
                                      "\"origin\" \"-32 -32 24\"\n"
                                      "\"angle\" \"45\"\n"
                                      "}\n"
                                      "{\n"
                                      "\"classname\" \"light\"\n"
                                      "\"origin\" \"0 0 96\"\n"
                                      "\"light\" \"300\"\n"
                                      "}\n";

/* The wall boxes, one behind each room face (floor, ceiling, -x, +x, -y, +y). */
static const float BOX[FACES][2][3] = {
    {{-80, -80, -16}, {80, 80, 0}},  {{-80, -80, 128}, {80, 80, 144}}, {{-80, -64, 0}, {-64, 64, 128}},
    {{64, -64, 0}, {80, 64, 128}},   {{-64, -80, 0}, {64, -64, 128}},  {{-64, 64, 0}, {64, 80, 128}},
};
/* Each room face: its axis, its coordinate, and the way it faces (into the room). */
static const struct { int axis; float coord; int facing; } FACE[FACES] = {
    {2, 0, +1}, {2, 128, -1}, {0, -64, +1}, {0, 64, -1}, {1, -64, +1}, {1, 64, -1},
};
static const float ROOM_LO[3] = {-64, -64, 0}, ROOM_HI[3] = {64, 64, 128};

typedef struct q3scene {
    bspkit_plane planes[64];
    size_t nplanes;
    bspkit_drawvert verts[FACES * 4 + 9];
    size_t nverts;
    int32_t indexes[FACES * 6];
    size_t nindexes;
    bspkit_surface surfaces[FACES + 1];
    size_t nsurfaces;
} q3scene;

/* Index of the plane through `coord` on `axis` whose normal is +axis (sign
 * +1) or -axis; planes come in pairs, the positive first, as q3map2 writes them. */
static int32_t plane_of(q3scene *sc, int axis, int sign, float coord)
{
    for (size_t i = 0; i < sc->nplanes; i++) {
        const float *n = &sc->planes[i].normal.x;
        if (n[axis] == (float)sign && sc->planes[i].dist == (float)sign * coord)
            return (int32_t)i;
    }
    for (int s = +1; s >= -1; s -= 2) {
        bspkit_plane p = {{0, 0, 0}, (float)s * coord, 3};
        (&p.normal.x)[axis] = (float)s;
        sc->planes[sc->nplanes++] = p;
    }
    return plane_of(sc, axis, sign, coord);
}

static void set_vec(bspkit_vec3 *v, int axis, float f) { (&v->x)[axis] = f; }

/* Room face k as a quad: four vertices with texture coordinates in 64-unit
 * tiles and lightmap coordinates inside the face's cell of the page. */
static void add_face(q3scene *sc, int k)
{
    int a = FACE[k].axis, u = (a + 1) % 3, v = (a + 2) % 3;
    uint32_t first = (uint32_t)sc->nverts;
    const float cu[4] = {ROOM_LO[u], ROOM_HI[u], ROOM_HI[u], ROOM_LO[u]};
    const float cv[4] = {ROOM_LO[v], ROOM_LO[v], ROOM_HI[v], ROOM_HI[v]};
    float cell_x = (float)(k % 4 * CELL), cell_y = (float)(k / 4 * CELL);
    for (int c = 0; c < 4; c++) {
        bspkit_drawvert *d = &sc->verts[sc->nverts++];
        memset(d, 0, sizeof *d);
        set_vec(&d->xyz, a, FACE[k].coord);
        set_vec(&d->xyz, u, cu[c]);
        set_vec(&d->xyz, v, cv[c]);
        set_vec(&d->normal, a, (float)FACE[k].facing);
        d->st[0] = cu[c] / 64.0f;
        d->st[1] = -cv[c] / 64.0f;
        /* Luxel centres of the cell's inner 30 x 30, in page units. */
        d->lightmap[0] = (cell_x + 1.0f + (c == 1 || c == 2 ? 29.0f : 0.0f) + 0.5f) / PAGE;
        d->lightmap[1] = (cell_y + 1.0f + (c >= 2 ? 29.0f : 0.0f) + 0.5f) / PAGE;
        memset(d->color, 255, 4);
    }
    /* Two triangles, wound so their normal is the face's (q3map2 stores the
     * other winding; the exporters turn each triangle by its normals). */
    bool flip = FACE[k].facing < 0;
    static const int TRI[6] = {0, 1, 2, 0, 2, 3};
    size_t first_index = sc->nindexes;
    for (int t = 0; t < 6; t++)
        sc->indexes[sc->nindexes++] = flip ? TRI[5 - t] : TRI[t];
    bspkit_surface *s = &sc->surfaces[sc->nsurfaces++];
    memset(s, 0, sizeof *s);
    s->shader = a == 2 ? SH_FLOOR : SH_WALL;
    s->fog = -1;
    s->type = BSPKIT_Q3_SURFACE_PLANAR;
    s->first_vert = (int32_t)first;
    s->num_verts = 4;
    s->first_index = (int32_t)first_index;
    s->num_indexes = 6;
    s->lightmap = 0;
    s->lightmap_x = (int32_t)cell_x;
    s->lightmap_y = (int32_t)cell_y;
    s->lightmap_width = s->lightmap_height = CELL;
    s->lightmap_origin = sc->verts[first].xyz;
    set_vec(&s->lightmap_vecs[2], a, (float)FACE[k].facing);
}

/* A 3 x 3 patch over the middle of the floor, its centre raised 32 units. */
static void add_patch(q3scene *sc)
{
    uint32_t first = (uint32_t)sc->nverts;
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 3; x++) {
            bspkit_drawvert *d = &sc->verts[sc->nverts++];
            memset(d, 0, sizeof *d);
            d->xyz = (bspkit_vec3){-32.0f + 32.0f * (float)x, -32.0f + 32.0f * (float)y, x == 1 && y == 1 ? 32.0f : 0.0f};
            d->normal = (bspkit_vec3){0, 0, 1};
            d->st[0] = (float)x / 2.0f;
            d->st[1] = (float)y / 2.0f;
            memset(d->color, 255, 4);
        }
    bspkit_surface *s = &sc->surfaces[sc->nsurfaces++];
    memset(s, 0, sizeof *s);
    s->shader = SH_PIPE;
    s->fog = -1;
    s->type = BSPKIT_Q3_SURFACE_PATCH;
    s->first_vert = (int32_t)first;
    s->num_verts = 9;
    s->lightmap = -1; /* vertex lit */
    s->patch_width = s->patch_height = 3;
}

/* One page: each face's cell a gradient of its own colour. */
static uint8_t *lightmap_page(size_t *size)
{
    *size = (size_t)PAGE * PAGE * 3;
    uint8_t *px = calloc(1, *size);
    if (!px)
        return NULL;
    static const uint8_t TINT[FACES][3] = {{255, 200, 140}, {200, 200, 255}, {255, 160, 160},
                                           {160, 255, 160}, {160, 160, 255}, {255, 255, 160}};
    for (int k = 0; k < FACES; k++)
        for (int y = 0; y < CELL; y++)
            for (int x = 0; x < CELL; x++) {
                uint8_t *p = px + ((size_t)(k / 4 * CELL + y) * PAGE + (size_t)(k % 4 * CELL + x)) * 3;
                for (int c = 0; c < 3; c++)
                    p[c] = (uint8_t)(TINT[k][c] * (64 + 3 * x + 2 * y) / 255);
            }
    return px;
}

#define TRY(x)                                                                                          \
    do {                                                                                                \
        if ((rc = (x)) != BSPKIT_OK)                                                                    \
            goto done;                                                                                  \
    } while (0)

bspkit_result bk_sample_quake3_room(bspkit_builder **out, bspkit_error *err)
{
    q3scene *sc = calloc(1, sizeof *sc);
    if (!sc)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "sample: out of memory");
    bspkit_builder *b = NULL;
    uint8_t *page = NULL;
    bspkit_result rc;
    TRY(bspkit_builder_new(BSPKIT_FAMILY_QUAKE3, 46, &b, err));

    bspkit_shader shaders[SHADERS];
    memset(shaders, 0, sizeof shaders);
    static const char *const NAMES[SHADERS] = {"textures/bspkit/floor", "textures/bspkit/wall",
                                               "textures/common/caulk", "textures/bspkit/pipe"};
    for (int i = 0; i < SHADERS; i++) {
        strcpy(shaders[i].name, NAMES[i]);
        shaders[i].contents = BSPKIT_Q3_CONTENTS_SOLID;
    }
    shaders[SH_CAULK].surface_flags = BSPKIT_Q3_SURF_NODRAW | BSPKIT_Q3_SURF_NOLIGHTMAP;

    /* Brushes: each box's sides -x, +x, -y, +y, -z, +z on outward planes;
     * the side facing into the room carries that face's shader. */
    bspkit_brush brushes[FACES];
    bspkit_brushside sides[FACES * 6];
    for (int k = 0; k < FACES; k++) {
        brushes[k] = (bspkit_brush){6 * k, 6, 0, SH_CAULK};
        for (int j = 0; j < 6; j++) {
            int axis = j / 2, sign = j % 2 ? +1 : -1;
            bspkit_brushside *s = &sides[6 * k + j];
            memset(s, 0, sizeof *s);
            s->plane = (uint32_t)plane_of(sc, axis, sign, BOX[k][sign > 0 ? 1 : 0][axis]);
            s->texinfo = -1;
            s->dispinfo = -1;
            bool inner = FACE[k].axis == axis && FACE[k].facing == sign;
            s->shader = inner ? (axis == 2 ? SH_FLOOR : SH_WALL) : SH_CAULK;
        }
    }
    for (int k = 0; k < FACES; k++)
        add_face(sc, k);
    add_patch(sc);

    /* One node on the floor plane: above it the room, leaf 1 (cluster 0,
     * every surface and brush); below it leaf 0, outside the world (cluster
     * -1, the floor box). */
    int32_t split = plane_of(sc, 2, +1, 0);
    bspkit_node node;
    memset(&node, 0, sizeof node);
    node.plane = split;
    node.children[0] = -2;
    node.children[1] = -1;
    node.mins = (bspkit_vec3){-80, -80, -16};
    node.maxs = (bspkit_vec3){80, 80, 144};
    node.area = -1;
    bspkit_leaf leafs[2];
    memset(leafs, 0, sizeof leafs);
    uint32_t leaf_surfaces[FACES + 1], leaf_brushes[FACES + 1];
    size_t nls = 0, nlb = 0;
    for (int l = 0; l < 2; l++) {
        bspkit_leaf *lf = &leafs[l];
        lf->cluster = l == 1 ? 0 : -1;
        lf->area = l == 1 ? 0 : -1;
        lf->vis_offset = -1;
        lf->leaf_water = -1;
        lf->mins = (bspkit_vec3){-80, -80, l == 1 ? 0.0f : -16.0f};
        lf->maxs = (bspkit_vec3){80, 80, l == 1 ? 144.0f : 0.0f};
        lf->first_leaf_face = (uint32_t)nls;
        for (uint32_t s = 0; l == 1 && s < FACES + 1; s++)
            leaf_surfaces[nls++] = s;
        lf->num_leaf_faces = (uint32_t)nls - lf->first_leaf_face;
        lf->first_leaf_brush = (uint32_t)nlb;
        for (uint32_t k = 0; k < FACES; k++)
            if (l == 1 || k == 0)
                leaf_brushes[nlb++] = k;
        lf->num_leaf_brushes = (uint32_t)nlb - lf->first_leaf_brush;
    }
    bspkit_model model;
    memset(&model, 0, sizeof model);
    model.mins = (bspkit_vec3){-80, -80, -16};
    model.maxs = (bspkit_vec3){80, 80, 144};
    model.first_face = 0;
    model.num_faces = (int32_t)sc->nsurfaces;
    model.first_brush = 0;
    model.num_brushes = FACES;
    for (int h = 0; h < 4; h++)
        model.headnode[h] = -1;

    size_t page_size;
    if (!(page = lightmap_page(&page_size))) {
        rc = bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "sample: out of memory");
        goto done;
    }
    /* One cluster that sees itself, its row padded to 8 bytes as q3map2 pads it. */
    static const uint8_t ROW[8] = {1};

    TRY(bspkit_builder_set_entities(b, QUAKE3_ENTITIES, strlen(QUAKE3_ENTITIES), err));
    TRY(bspkit_builder_set_shaders(b, shaders, SHADERS, err));
    TRY(bspkit_builder_set_planes(b, sc->planes, sc->nplanes, err));
    TRY(bspkit_builder_set_nodes(b, &node, 1, err));
    TRY(bspkit_builder_set_leafs(b, leafs, 2, err));
    TRY(bspkit_builder_set_leaf_faces(b, leaf_surfaces, nls, err));
    TRY(bspkit_builder_set_leaf_brushes(b, leaf_brushes, nlb, err));
    TRY(bspkit_builder_set_models(b, &model, 1, err));
    TRY(bspkit_builder_set_brushes(b, brushes, FACES, err));
    TRY(bspkit_builder_set_brushsides(b, sides, FACES * 6, err));
    TRY(bspkit_builder_set_drawverts(b, sc->verts, sc->nverts, err));
    TRY(bspkit_builder_set_drawindexes(b, sc->indexes, sc->nindexes, err));
    TRY(bspkit_builder_set_surfaces(b, sc->surfaces, sc->nsurfaces, err));
    TRY(bspkit_builder_set_lighting(b, false, page, page_size, err));
    TRY(bspkit_builder_set_visibility(b, 1, 8, ROW, NULL, NULL, err));
done:
    free(page);
    free(sc);
    if (rc != BSPKIT_OK) {
        bspkit_builder_free(b);
        b = NULL;
    }
    *out = b;
    return rc;
}
