/* The builder: typed setters round-tripped through the readers in every
 * flavour (little-endian, big-endian, LZMA), record layouts checked against
 * hand-written bytes independent of the readers, Valve LZMA lump headers
 * decoded with liblzma directly, and atomic saving. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bspkit/bspkit.h"
#include "bspkit/write.h"
#include "core/bytes.h"

#include <dirent.h>
#include <fcntl.h>
#include <lzma.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

#include "check.h"

#define ASSERT_VEC(v, X, Y, Z)                                                                     \
    do {                                                                                           \
        assert_true((v).x == (X));                                                                 \
        assert_true((v).y == (Y));                                                                 \
        assert_true((v).z == (Z));                                                                 \
    } while (0)

static bspkit_vec3 v3(float x, float y, float z) { return (bspkit_vec3){x, y, z}; }

static uint8_t *write_map(const bspkit_builder *b, const bspkit_write_options *o, size_t *size)
{
    uint8_t *buf = NULL;
    CHECK(bspkit_builder_write(b, o, &buf, size, ERR));
    assert_non_null(buf);
    return buf;
}

static bspkit_map *open_buf(const uint8_t *buf, size_t size)
{
    bspkit_map *m = NULL;
    CHECK(bspkit_open_memory(buf, size, NULL, &m, ERR));
    return m;
}

/* Directory entries read straight from the bytes, independent of the readers. */
typedef struct entry { uint32_t offset, length, version, fourcc; } entry;

static entry source_entry(const uint8_t *file, bool be, int lump)
{
    const uint8_t *e = file + 8 + 16 * lump;
    return (entry){rd_u32(e, be), rd_u32(e + 4, be), rd_u32(e + 8, be), rd_u32(e + 12, be)};
}

static entry quake_entry(const uint8_t *file, int lump)
{
    return (entry){rd_le32(file + 4 + 8 * lump), rd_le32(file + 8 + 8 * lump), 0, 0};
}

/* Independent liblzma decode of a Valve LZMA lump. */
static uint8_t *valve_lzma_decode(const uint8_t *src, size_t size, size_t *out_size)
{
    assert_true(size >= 17);
    assert_memory_equal(src, "LZMA", 4);
    uint32_t actual = rd_le32(src + 4), packed = rd_le32(src + 8);
    assert_int_equal(packed, size - 17);
    lzma_filter filters[2] = {{.id = LZMA_FILTER_LZMA1, .options = NULL}, {.id = LZMA_VLI_UNKNOWN}};
    assert_int_equal(lzma_properties_decode(&filters[0], NULL, src + 12, 5), LZMA_OK);
    lzma_stream s = LZMA_STREAM_INIT;
    assert_int_equal(lzma_raw_decoder(&s, filters), LZMA_OK);
    free(filters[0].options);
    uint8_t *out = malloc(actual ? actual : 1);
    assert_non_null(out);
    s.next_in = src + 17;
    s.avail_in = packed;
    s.next_out = out;
    s.avail_out = actual;
    lzma_ret r;
    do {
        r = lzma_code(&s, LZMA_FINISH);
    } while (r == LZMA_OK && s.avail_out > 0);
    assert_true(r == LZMA_OK || r == LZMA_STREAM_END);
    assert_int_equal(s.avail_out, 0);
    lzma_end(&s);
    *out_size = actual;
    return out;
}

/* ------------------------------------------------------------------------ */
/* Source test content                                                       */
/* ------------------------------------------------------------------------ */

static const bspkit_plane S_PLANES[3] = {
    {{1, 0, 0}, 64, 0}, {{0, -1, 0}, -32.5f, 1}, {{0.6f, 0, 0.8f}, 12.25f, 5}};
static const bspkit_vec3 S_VERTS[3] = {{1.5f, -2, 3}, {-64, 64, 128}, {1e6f, -1e-3f, 0}};
static const bspkit_edge S_EDGES[3] = {{{0, 0}}, {{1, 2}}, {{65535, 7}}};
static const int32_t S_SURFEDGES[4] = {1, -2, 3, -1};
static const uint32_t S_LEAF_FACES[3] = {0, 1, 65535};
static const uint32_t S_LEAF_BRUSHES[2] = {1, 0};
static const bspkit_brush S_BRUSHES[2] = {{0, 6, 1, -1}, {6, 2, 0x8000001, -1}};
static const bspkit_area S_AREAS[2] = {{0, 0}, {1, 1}};
static const bspkit_areaportal S_PORTALS[2] = {{0, 0, 0, 0, 0}, {7, 1, 2, 4, 3}};
static const bspkit_cubemap S_CUBEMAPS[1] = {{{-100, 200, 300}, 6}};
static const char *const S_NAMES[2] = {"DEV/DEV_MEASUREGENERIC01B", "TOOLS/TOOLSNODRAW"};
static const char S_ENTS[] = "{\n\"classname\" \"worldspawn\"\n}\n";
static const uint8_t S_LIGHT[8] = {1, 2, 3, 0, 4, 5, 6, (uint8_t)-2};
static const uint8_t S_PVS[2] = {0x03, 0x02}, S_PAS[2] = {0x03, 0x03};
static const uint8_t SPRP[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
static const uint8_t DPRP[8] = {0xAA, 0xBB, 0xCC, 0xDD, 0, 0, 0, 0};
static const uint8_t EMPTY_ZIP[22] = {'P', 'K', 5, 6};

static void source_faces(bspkit_face f[2])
{
    memset(f, 0, 2 * sizeof *f);
    f[0] = (bspkit_face){.plane = 5, .side = 1, .on_node = 1, .first_edge = 10, .num_edges = 4, .texinfo = 2,
                         .dispinfo = -1, .fog_volume = -1, .styles = {0, 1, 2, 255}, .light_offset = 64,
                         .area = 123.5f, .lightmap_mins = {-3, 7}, .lightmap_size = {9, 4}, .orig_face = 1,
                         .num_prims = 2, .first_prim = 3, .smoothing_groups = 0xDEADBEEFu};
    f[1] = (bspkit_face){.plane = 65535, .side = 0, .on_node = 0, .first_edge = 0, .num_edges = 3, .texinfo = -1,
                         .dispinfo = 7, .fog_volume = 2, .styles = {255, 255, 255, 255}, .light_offset = -1,
                         .area = 0.5f, .lightmap_mins = {0, 0}, .lightmap_size = {0, 0}, .orig_face = 0};
}

static void source_nodes(bspkit_node n[2])
{
    memset(n, 0, 2 * sizeof *n);
    n[0] = (bspkit_node){.plane = 1, .children = {1, -3}, .mins = {-10.5f, -20, 0}, .maxs = {10.25f, 20, 30},
                         .first_face = 0, .num_faces = 2, .area = -1};
    n[1] = (bspkit_node){.plane = 2, .children = {-1, -2}, .mins = {-32768, 0, 0}, .maxs = {32767, 1, 1},
                         .first_face = 65535, .num_faces = 0, .area = 3};
}

static void source_leafs(bspkit_leaf l[2])
{
    memset(l, 0, 2 * sizeof *l);
    l[0].contents = 1;
    l[0].cluster = -1;
    l[0].leaf_water = -1;
    l[1].contents = 0x20000001;
    l[1].cluster = 5;
    l[1].area = 300;
    l[1].flags = 100;
    l[1].mins = v3(-64, -64, 0);
    l[1].maxs = v3(64, 64, 128);
    l[1].first_leaf_face = 2;
    l[1].num_leaf_faces = 3;
    l[1].first_leaf_brush = 4;
    l[1].num_leaf_brushes = 5;
    l[1].leaf_water = 7;
    for (int k = 0; k < 6; k++)
        l[1].ambient_cube[k] = (bspkit_rgbexp){(uint8_t)(10 * k), (uint8_t)(10 * k + 1), (uint8_t)(10 * k + 2),
                                               (int8_t)(k - 3)};
}

static void source_models(bspkit_model m[2])
{
    memset(m, 0, 2 * sizeof *m);
    m[0] = (bspkit_model){.mins = {-80, -80, -16}, .maxs = {80, 80, 144}, .origin = {0, 0, 0},
                          .headnode = {0}, .first_face = 0, .num_faces = 6};
    m[1] = (bspkit_model){.mins = {16, -16, 16}, .maxs = {48, 16, 48}, .origin = {32, 0, 32},
                          .headnode = {6}, .first_face = 6, .num_faces = 6};
}

static void source_texinfo(bspkit_texinfo t[2])
{
    memset(t, 0, 2 * sizeof *t);
    for (int a = 0; a < 2; a++)
        for (int k = 0; k < 4; k++) {
            t[0].texture_vecs[a][k] = (float)(a * 4 + k) * 0.5f;
            t[0].lightmap_vecs[a][k] = (float)(a * 4 + k) / 16;
        }
    t[0].flags = 0x400;
    t[0].texture = 1;
    t[1].texture = 0;
    t[1].flags = 0;
}

static void source_texdata(bspkit_texdata t[2])
{
    memset(t, 0, 2 * sizeof *t);
    t[0] = (bspkit_texdata){{0.5f, 0.25f, 0.125f}, 0, 512, 256, 512, 256, 0};
    t[1] = (bspkit_texdata){{0, 0, 0}, 1, 64, 64, 32, 32, 0};
}

static void source_sides(bspkit_brushside s[2])
{
    memset(s, 0, 2 * sizeof *s);
    s[0] = (bspkit_brushside){.plane = 0x1234, .texinfo = -1, .dispinfo = -1, .bevel = 1, .thin = 0};
    s[1] = (bspkit_brushside){.plane = 2, .texinfo = 1, .dispinfo = 0, .bevel = 0, .thin = 0};
}

static bspkit_builder *source_builder(int32_t version)
{
    bspkit_builder *b = NULL;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_SOURCE, version, &b, ERR));
    bspkit_face faces[2];
    bspkit_node nodes[2];
    bspkit_leaf leafs[2];
    bspkit_model models[2];
    bspkit_texinfo texinfo[2];
    bspkit_texdata texdata[2];
    bspkit_brushside sides[2];
    source_faces(faces);
    source_nodes(nodes);
    source_leafs(leafs);
    source_models(models);
    source_texinfo(texinfo);
    source_texdata(texdata);
    source_sides(sides);
    CHECK(bspkit_builder_set_planes(b, S_PLANES, 3, ERR));
    CHECK(bspkit_builder_set_vertexes(b, S_VERTS, 3, ERR));
    CHECK(bspkit_builder_set_edges(b, S_EDGES, 3, ERR));
    CHECK(bspkit_builder_set_surfedges(b, S_SURFEDGES, 4, ERR));
    CHECK(bspkit_builder_set_faces(b, faces, 2, ERR));
    CHECK(bspkit_builder_set_orig_faces(b, faces, 1, ERR));
    CHECK(bspkit_builder_set_hdr_faces(b, faces + 1, 1, ERR));
    CHECK(bspkit_builder_set_nodes(b, nodes, 2, ERR));
    CHECK(bspkit_builder_set_leafs(b, leafs, 2, ERR));
    CHECK(bspkit_builder_set_models(b, models, 2, ERR));
    CHECK(bspkit_builder_set_texinfo(b, texinfo, 2, ERR));
    CHECK(bspkit_builder_set_leaf_faces(b, S_LEAF_FACES, 3, ERR));
    CHECK(bspkit_builder_set_leaf_brushes(b, S_LEAF_BRUSHES, 2, ERR));
    CHECK(bspkit_builder_set_brushes(b, S_BRUSHES, 2, ERR));
    CHECK(bspkit_builder_set_brushsides(b, sides, 2, ERR));
    CHECK(bspkit_builder_set_texdata(b, texdata, 2, ERR));
    CHECK(bspkit_builder_set_texdata_strings(b, S_NAMES, 2, ERR));
    CHECK(bspkit_builder_set_areas(b, S_AREAS, 2, ERR));
    CHECK(bspkit_builder_set_areaportals(b, S_PORTALS, 2, ERR));
    CHECK(bspkit_builder_set_cubemaps(b, S_CUBEMAPS, 1, ERR));
    CHECK(bspkit_builder_set_entities(b, S_ENTS, strlen(S_ENTS), ERR));
    CHECK(bspkit_builder_set_lighting(b, false, S_LIGHT, sizeof S_LIGHT, ERR));
    CHECK(bspkit_builder_set_lighting(b, true, S_LIGHT, 4, ERR));
    CHECK(bspkit_builder_set_visibility(b, 2, 1, S_PVS, S_PAS, NULL, ERR));
    const bspkit_game_lump_data games[2] = {{0x73707270u, 0, 10, SPRP, sizeof SPRP},
                                            {0x64707270u, 0, 4, DPRP, sizeof DPRP}};
    CHECK(bspkit_builder_set_game_lumps(b, games, 2, ERR));
    CHECK(bspkit_builder_set_lump(b, BSPKIT_S_PAKFILE, EMPTY_ZIP, sizeof EMPTY_ZIP, 0, ERR));
    return b;
}

static void check_source_face(const bspkit_face *got, const bspkit_face *want)
{
    assert_int_equal(got->plane, want->plane);
    assert_int_equal(got->side, want->side);
    assert_int_equal(got->on_node, want->on_node);
    assert_int_equal(got->first_edge, want->first_edge);
    assert_int_equal(got->num_edges, want->num_edges);
    assert_int_equal(got->texinfo, want->texinfo);
    assert_int_equal(got->dispinfo, want->dispinfo);
    assert_int_equal(got->fog_volume, want->fog_volume);
    assert_memory_equal(got->styles, want->styles, 4);
    assert_int_equal(got->light_offset, want->light_offset);
    assert_true(got->area == want->area);
    for (int a = 0; a < 2; a++) {
        assert_int_equal(got->lightmap_mins[a], want->lightmap_mins[a]);
        assert_int_equal(got->lightmap_size[a], want->lightmap_size[a]);
    }
    assert_int_equal(got->orig_face, want->orig_face);
    assert_int_equal(got->num_prims, want->num_prims);
    assert_int_equal(got->first_prim, want->first_prim);
    assert_int_equal(got->smoothing_groups, want->smoothing_groups);
}

/* Everything set by source_builder() comes back through the readers. */
static void check_source_map(bspkit_map *m, int32_t version, bool be, bool compressed)
{
    const bspkit_format *f = bspkit_map_format(m);
    assert_int_equal(f->family, BSPKIT_FAMILY_SOURCE);
    assert_int_equal(f->version, version);
    assert_int_equal(f->big_endian, be);
    assert_int_equal((f->variant & BSPKIT_VARIANT_COMPRESSED) != 0, compressed);
    assert_int_equal(f->revision, 77);

    const bspkit_plane *planes;
    size_t n;
    CHECK(bspkit_get_planes(m, &planes, &n, ERR));
    assert_int_equal(n, 3);
    for (size_t i = 0; i < n; i++) {
        ASSERT_VEC(planes[i].normal, S_PLANES[i].normal.x, S_PLANES[i].normal.y, S_PLANES[i].normal.z);
        assert_true(planes[i].dist == S_PLANES[i].dist);
        assert_int_equal(planes[i].type, S_PLANES[i].type);
    }
    const bspkit_vec3 *verts;
    CHECK(bspkit_get_vertexes(m, &verts, &n, ERR));
    assert_int_equal(n, 3);
    for (size_t i = 0; i < n; i++)
        ASSERT_VEC(verts[i], S_VERTS[i].x, S_VERTS[i].y, S_VERTS[i].z);
    const bspkit_edge *edges;
    CHECK(bspkit_get_edges(m, &edges, &n, ERR));
    assert_int_equal(n, 3);
    assert_int_equal(edges[2].v[0], 65535);
    assert_int_equal(edges[2].v[1], 7);
    const int32_t *surfedges;
    CHECK(bspkit_get_surfedges(m, &surfedges, &n, ERR));
    assert_int_equal(n, 4);
    assert_memory_equal(surfedges, S_SURFEDGES, sizeof S_SURFEDGES);

    bspkit_face want[2];
    source_faces(want);
    const bspkit_face *faces;
    CHECK(bspkit_get_faces(m, &faces, &n, ERR));
    assert_int_equal(n, 2);
    check_source_face(&faces[0], &want[0]);
    check_source_face(&faces[1], &want[1]);
    CHECK(bspkit_get_orig_faces(m, &faces, &n, ERR));
    assert_int_equal(n, 1);
    check_source_face(&faces[0], &want[0]);
    CHECK(bspkit_get_hdr_faces(m, &faces, &n, ERR));
    assert_int_equal(n, 1);
    check_source_face(&faces[0], &want[1]);

    const bspkit_node *nodes;
    CHECK(bspkit_get_nodes(m, &nodes, &n, ERR));
    assert_int_equal(n, 2);
    assert_int_equal(nodes[0].plane, 1);
    assert_int_equal(nodes[0].children[0], 1);
    assert_int_equal(nodes[0].children[1], -3);
    ASSERT_VEC(nodes[0].mins, -11, -20, 0); /* rounded outwards */
    ASSERT_VEC(nodes[0].maxs, 11, 20, 30);
    assert_int_equal(nodes[0].num_faces, 2);
    assert_int_equal(nodes[0].area, -1);
    ASSERT_VEC(nodes[1].mins, -32768, 0, 0);
    ASSERT_VEC(nodes[1].maxs, 32767, 1, 1);
    assert_int_equal(nodes[1].first_face, 65535);
    assert_int_equal(nodes[1].area, 3);

    const bspkit_leaf *leafs;
    CHECK(bspkit_get_leafs(m, &leafs, &n, ERR));
    assert_int_equal(n, 2);
    assert_int_equal(leafs[0].contents, 1);
    assert_int_equal(leafs[0].cluster, -1);
    assert_int_equal(leafs[1].contents, 0x20000001);
    assert_int_equal(leafs[1].cluster, 5);
    assert_int_equal(leafs[1].area, 300);
    assert_int_equal(leafs[1].flags, 100);
    ASSERT_VEC(leafs[1].mins, -64, -64, 0);
    ASSERT_VEC(leafs[1].maxs, 64, 64, 128);
    assert_int_equal(leafs[1].first_leaf_face, 2);
    assert_int_equal(leafs[1].num_leaf_faces, 3);
    assert_int_equal(leafs[1].first_leaf_brush, 4);
    assert_int_equal(leafs[1].num_leaf_brushes, 5);
    assert_int_equal(leafs[1].leaf_water, 7);

    const bspkit_model *models;
    CHECK(bspkit_get_models(m, &models, &n, ERR));
    assert_int_equal(n, 2);
    ASSERT_VEC(models[1].mins, 16, -16, 16);
    ASSERT_VEC(models[1].maxs, 48, 16, 48);
    ASSERT_VEC(models[1].origin, 32, 0, 32);
    assert_int_equal(models[1].headnode[0], 6);
    assert_int_equal(models[1].first_face, 6);
    assert_int_equal(models[1].num_faces, 6);

    bspkit_texinfo ti_want[2];
    source_texinfo(ti_want);
    const bspkit_texinfo *ti;
    CHECK(bspkit_get_texinfo(m, &ti, &n, ERR));
    assert_int_equal(n, 2);
    for (int a = 0; a < 2; a++)
        for (int k = 0; k < 4; k++) {
            assert_true(ti[0].texture_vecs[a][k] == ti_want[0].texture_vecs[a][k]);
            assert_true(ti[0].lightmap_vecs[a][k] == ti_want[0].lightmap_vecs[a][k]);
        }
    assert_int_equal(ti[0].flags, 0x400);
    assert_int_equal(ti[0].texture, 1);

    const uint32_t *idx;
    CHECK(bspkit_get_leaf_faces(m, &idx, &n, ERR));
    assert_int_equal(n, 3);
    assert_int_equal(idx[2], 65535);
    CHECK(bspkit_get_leaf_brushes(m, &idx, &n, ERR));
    assert_int_equal(n, 2);
    assert_int_equal(idx[0], 1);

    const bspkit_brush *brushes;
    CHECK(bspkit_get_brushes(m, &brushes, &n, ERR));
    assert_int_equal(n, 2);
    assert_int_equal(brushes[1].first_side, 6);
    assert_int_equal(brushes[1].num_sides, 2);
    assert_int_equal(brushes[1].contents, 0x8000001);
    const bspkit_brushside *sides;
    CHECK(bspkit_get_brushsides(m, &sides, &n, ERR));
    assert_int_equal(n, 2);
    assert_int_equal(sides[0].plane, 0x1234);
    assert_int_equal(sides[0].texinfo, -1);
    assert_int_equal(sides[0].dispinfo, -1);
    assert_int_equal(sides[0].bevel, 1);
    assert_int_equal(sides[1].texinfo, 1);
    assert_int_equal(sides[1].dispinfo, 0);

    const bspkit_texdata *td;
    CHECK(bspkit_get_texdata(m, &td, &n, ERR));
    assert_int_equal(n, 2);
    ASSERT_VEC(td[0].reflectivity, 0.5f, 0.25f, 0.125f);
    assert_int_equal(td[0].width, 512);
    assert_int_equal(td[0].height, 256);
    assert_int_equal(td[1].view_width, 32);
    assert_string_equal(bspkit_texdata_name(m, 0), S_NAMES[0]);
    assert_string_equal(bspkit_texdata_name(m, 1), S_NAMES[1]);
    const int32_t *table;
    CHECK(bspkit_get_texdata_string_table(m, &table, &n, ERR));
    assert_int_equal(n, 2);
    assert_int_equal(table[0], 0);
    assert_int_equal(table[1], (int32_t)strlen(S_NAMES[0]) + 1);

    const bspkit_area *areas;
    CHECK(bspkit_get_areas(m, &areas, &n, ERR));
    assert_int_equal(n, 2);
    assert_int_equal(areas[1].num_portals, 1);
    assert_int_equal(areas[1].first_portal, 1);
    const bspkit_areaportal *portals;
    CHECK(bspkit_get_areaportals(m, &portals, &n, ERR));
    assert_int_equal(n, 2);
    assert_int_equal(portals[1].portal_key, 7);
    assert_int_equal(portals[1].other_area, 1);
    assert_int_equal(portals[1].first_clip_vert, 2);
    assert_int_equal(portals[1].num_clip_verts, 4);
    assert_int_equal(portals[1].plane, 3);
    const bspkit_cubemap *cubes;
    CHECK(bspkit_get_cubemaps(m, &cubes, &n, ERR));
    assert_int_equal(n, 1);
    assert_int_equal(cubes[0].origin[0], -100);
    assert_int_equal(cubes[0].origin[2], 300);
    assert_int_equal(cubes[0].size, 6);

    const bspkit_entities *ents;
    CHECK(bspkit_get_entities(m, &ents, ERR));
    assert_int_equal(ents->count, 1);
    assert_string_equal(bspkit_entity_value(ents, 0, "classname"), "worldspawn");
    const uint8_t *bytes;
    size_t size;
    CHECK(bspkit_lump_bytes(m, BSPKIT_S_ENTITIES, &bytes, &size, ERR));
    assert_int_equal(size, strlen(S_ENTS) + 1); /* NUL appended */
    assert_int_equal(bytes[size - 1], 0);

    CHECK(bspkit_get_lighting(m, false, &bytes, &size, ERR));
    assert_int_equal(size, sizeof S_LIGHT);
    assert_memory_equal(bytes, S_LIGHT, sizeof S_LIGHT);
    CHECK(bspkit_get_lighting(m, true, &bytes, &size, ERR));
    assert_int_equal(size, 4);

    uint32_t rows, row_bytes;
    CHECK(bspkit_vis_dimensions(m, &rows, &row_bytes, ERR));
    assert_int_equal(rows, 2);
    assert_int_equal(row_bytes, 1);
    uint8_t row;
    for (uint32_t c = 0; c < 2; c++) {
        CHECK(bspkit_vis_row(m, c, BSPKIT_VIS_PVS, &row, 1, ERR));
        assert_int_equal(row, S_PVS[c]);
        CHECK(bspkit_vis_row(m, c, BSPKIT_VIS_PAS, &row, 1, ERR));
        assert_int_equal(row, S_PAS[c]);
    }

    const bspkit_game_lump *games;
    CHECK(bspkit_get_game_lumps(m, &games, &n, ERR));
    assert_int_equal(n, 2);
    bspkit_lump_info gl;
    CHECK(bspkit_get_lump_info(m, BSPKIT_S_GAME_LUMP, &gl));
    assert_false(gl.compressed);
    assert_int_equal(games[0].id, 0x73707270u);
    assert_int_equal(games[0].version, 10);
    assert_int_equal(games[0].length, sizeof SPRP);
    assert_int_equal(games[0].offset, gl.offset + 4 + 2 * 16); /* absolute: right after the directory */
    assert_int_equal(games[1].offset, games[0].offset + sizeof SPRP);
    CHECK(bspkit_game_lump_bytes(m, 0, &bytes, &size, ERR));
    assert_int_equal(size, sizeof SPRP);
    assert_memory_equal(bytes, SPRP, sizeof SPRP);
    CHECK(bspkit_game_lump_bytes(m, 1, &bytes, &size, ERR));
    assert_memory_equal(bytes, DPRP, sizeof DPRP);

    CHECK(bspkit_get_pakfile(m, &bytes, &size, ERR));
    assert_int_equal(size, sizeof EMPTY_ZIP);
    assert_memory_equal(bytes, EMPTY_ZIP, sizeof EMPTY_ZIP);
    bspkit_lump_info pk;
    CHECK(bspkit_get_lump_info(m, BSPKIT_S_PAKFILE, &pk));
    assert_false(pk.compressed);
    assert_int_equal(pk.offset % 2048, 0);
}

static void source_round_trip(bool be, bool lzma)
{
    bspkit_builder *b = source_builder(20);
    bspkit_write_options o = {.big_endian = be, .compress_lzma = lzma, .revision = 77};
    size_t size;
    uint8_t *buf = write_map(b, &o, &size);
    bspkit_map *m = open_buf(buf, size);
    check_source_map(m, 20, be, lzma);
    bspkit_report report;
    CHECK(bspkit_validate(m, &report, ERR));
    bspkit_report_free(&report);
    bspkit_close(m);
    bspkit_free_buffer(buf);
    bspkit_builder_free(b);
}

static void test_source_round_trip_le(void **state)
{
    (void)state;
    source_round_trip(false, false);
}

static void test_source_round_trip_be(void **state)
{
    (void)state;
    source_round_trip(true, false);
}

static void test_source_round_trip_lzma(void **state)
{
    (void)state;
    source_round_trip(false, true);
}

static void test_source_round_trip_be_lzma(void **state)
{
    (void)state;
    source_round_trip(true, true);
}

/* ------------------------------------------------------------------------ */
/* GoldSrc and Quake round trips                                             */
/* ------------------------------------------------------------------------ */

static void make_mips(uint8_t *pixels, uint32_t w, uint32_t h, const uint8_t *mips[4])
{
    uint8_t *p = pixels;
    for (int k = 0; k < 4; k++) {
        mips[k] = p;
        size_t n = (size_t)(w >> k) * (h >> k);
        for (size_t i = 0; i < n; i++)
            p[i] = (uint8_t)(i * 7 + (size_t)k);
        p += n;
    }
}

static void quake_family_round_trip(bool goldsrc)
{
    bspkit_builder *b = NULL;
    CHECK(bspkit_builder_new(goldsrc ? BSPKIT_FAMILY_GOLDSRC : BSPKIT_FAMILY_QUAKE, goldsrc ? 30 : 29, &b, ERR));
    bspkit_face faces[1];
    memset(faces, 0, sizeof faces);
    faces[0] = (bspkit_face){.plane = 65535, .side = 1, .first_edge = 70000, .num_edges = 65535,
                             .texinfo = 65535, .styles = {0, 32, 255, 255}, .light_offset = 300};
    bspkit_node nodes[1] = {{.plane = 9, .children = {32767, -32768}, .mins = {-1, -2, -3}, .maxs = {4, 5, 6},
                             .first_face = 1, .num_faces = 2}};
    /* Leaf 0 solid, leafs 1-3 visible (model 0 vis_leafs = 3). */
    bspkit_leaf leafs[4];
    memset(leafs, 0, sizeof leafs);
    leafs[0].contents = -2;
    leafs[0].vis_offset = -1;
    for (int i = 1; i < 4; i++) {
        leafs[i].contents = -1;
        leafs[i].mins = v3(-8, -8, -8);
        leafs[i].maxs = v3(8, 8, 8);
    }
    leafs[1].first_leaf_face = 3;
    leafs[1].num_leaf_faces = 4;
    memcpy(leafs[1].ambient_sound, "\x01\x02\x03\x04", 4);
    bspkit_model model = {.mins = {-1, -2, -3}, .maxs = {1, 2, 3}, .origin = {5, 6, 7}, .headnode = {0, 1, 2, 3},
                          .vis_leafs = 3, .first_face = 0, .num_faces = 1};
    bspkit_texinfo ti;
    memset(&ti, 0, sizeof ti);
    ti.texture_vecs[0][0] = 1;
    ti.texture_vecs[0][3] = 8;
    ti.texture_vecs[1][1] = -1;
    ti.texture_vecs[1][3] = 4;
    ti.texture = 1;
    ti.flags = 1;
    bspkit_clipnode clip[2] = {{0, {1, -2}}, {3, {-1, -2}}};
    const uint32_t marks[2] = {0, 65535};

    uint8_t pixels[16 * 16 * 85 / 64];
    uint8_t palette[768];
    for (int i = 0; i < 768; i++)
        palette[i] = (uint8_t)(i / 3);
    bspkit_miptex tex[3];
    memset(tex, 0, sizeof tex);
    strcpy(tex[0].name, "embedded");
    tex[0].width = tex[0].height = 16;
    tex[0].embedded = true;
    make_mips(pixels, 16, 16, tex[0].mips);
    tex[0].palette = palette;
    tex[0].palette_size = 256;
    strcpy(tex[1].name, "in_a_wad");
    tex[1].width = 64;
    tex[1].height = 32;
    tex[2].lump_offset = -1; /* empty slot */

    const uint8_t pvs[3] = {0x01, 0x00, 0x05};
    int32_t vis_offsets[3];
    CHECK(bspkit_builder_set_planes(b, S_PLANES, 3, ERR));
    CHECK(bspkit_builder_set_vertexes(b, S_VERTS, 3, ERR));
    CHECK(bspkit_builder_set_edges(b, S_EDGES, 3, ERR));
    CHECK(bspkit_builder_set_surfedges(b, S_SURFEDGES, 4, ERR));
    CHECK(bspkit_builder_set_faces(b, faces, 1, ERR));
    CHECK(bspkit_builder_set_nodes(b, nodes, 1, ERR));
    CHECK(bspkit_builder_set_visibility(b, 3, 1, pvs, NULL, vis_offsets, ERR));
    for (int i = 1; i < 4; i++)
        leafs[i].vis_offset = vis_offsets[i - 1];
    CHECK(bspkit_builder_set_leafs(b, leafs, 4, ERR));
    CHECK(bspkit_builder_set_models(b, &model, 1, ERR));
    CHECK(bspkit_builder_set_texinfo(b, &ti, 1, ERR));
    CHECK(bspkit_builder_set_clipnodes(b, clip, 2, ERR));
    CHECK(bspkit_builder_set_leaf_faces(b, marks, 2, ERR));
    CHECK(bspkit_builder_set_miptex(b, tex, 3, ERR));
    CHECK(bspkit_builder_set_lighting(b, false, S_LIGHT, 6, ERR));
    CHECK(bspkit_builder_set_entities(b, S_ENTS, strlen(S_ENTS), ERR));

    /* Compressed rows back to back: 01 | 00 01 | 05. */
    assert_int_equal(vis_offsets[0], 0);
    assert_int_equal(vis_offsets[1], 1);
    assert_int_equal(vis_offsets[2], 3);

    size_t size;
    uint8_t *buf = write_map(b, NULL, &size);
    bspkit_map *m = open_buf(buf, size);
    const bspkit_format *f = bspkit_map_format(m);
    assert_int_equal(f->family, goldsrc ? BSPKIT_FAMILY_GOLDSRC : BSPKIT_FAMILY_QUAKE);
    assert_int_equal(f->version, goldsrc ? 30 : 29);

    size_t n;
    const bspkit_face *gf;
    CHECK(bspkit_get_faces(m, &gf, &n, ERR));
    assert_int_equal(n, 1);
    assert_int_equal(gf[0].plane, 65535);
    assert_int_equal(gf[0].side, 1);
    assert_int_equal(gf[0].first_edge, 70000);
    assert_int_equal(gf[0].num_edges, 65535);
    assert_int_equal(gf[0].texinfo, 65535);
    assert_memory_equal(gf[0].styles, faces[0].styles, 4);
    assert_int_equal(gf[0].light_offset, 300);
    const bspkit_node *gn;
    CHECK(bspkit_get_nodes(m, &gn, &n, ERR));
    assert_int_equal(gn[0].plane, 9);
    assert_int_equal(gn[0].children[0], 32767);
    assert_int_equal(gn[0].children[1], -32768);
    ASSERT_VEC(gn[0].mins, -1, -2, -3);
    ASSERT_VEC(gn[0].maxs, 4, 5, 6);
    assert_int_equal(gn[0].first_face, 1);
    assert_int_equal(gn[0].num_faces, 2);
    const bspkit_leaf *gl;
    CHECK(bspkit_get_leafs(m, &gl, &n, ERR));
    assert_int_equal(n, 4);
    assert_int_equal(gl[3].vis_offset, 3);
    assert_int_equal(gl[0].contents, -2);
    assert_int_equal(gl[0].vis_offset, -1);
    assert_int_equal(gl[1].contents, -1);
    assert_int_equal(gl[1].vis_offset, 0);
    assert_int_equal(gl[1].first_leaf_face, 3);
    assert_int_equal(gl[1].num_leaf_faces, 4);
    assert_memory_equal(gl[1].ambient_sound, "\x01\x02\x03\x04", 4);
    const bspkit_model *gm;
    CHECK(bspkit_get_models(m, &gm, &n, ERR));
    for (int h = 0; h < 4; h++)
        assert_int_equal(gm[0].headnode[h], h);
    assert_int_equal(gm[0].vis_leafs, 3);
    ASSERT_VEC(gm[0].origin, 5, 6, 7);
    const bspkit_texinfo *gt;
    CHECK(bspkit_get_texinfo(m, &gt, &n, ERR));
    assert_true(gt[0].texture_vecs[0][3] == 8);
    assert_true(gt[0].texture_vecs[1][1] == -1);
    assert_int_equal(gt[0].texture, 1);
    assert_int_equal(gt[0].flags, 1);
    const bspkit_clipnode *gc;
    CHECK(bspkit_get_clipnodes(m, &gc, &n, ERR));
    assert_int_equal(n, 2);
    assert_int_equal(gc[0].children[0], 1);
    assert_int_equal(gc[1].plane, 3);
    assert_int_equal(gc[1].children[0], -1);
    assert_int_equal(gc[1].children[1], -2);
    const uint32_t *gmarks;
    CHECK(bspkit_get_leaf_faces(m, &gmarks, &n, ERR));
    assert_int_equal(n, 2);
    assert_int_equal(gmarks[1], 65535);

    const bspkit_miptex *mt;
    CHECK(bspkit_get_miptex(m, &mt, &n, ERR));
    assert_int_equal(n, 3);
    assert_string_equal(mt[0].name, "embedded");
    assert_true(mt[0].embedded);
    assert_int_equal(mt[0].mip_offsets[0], 40);
    assert_int_equal(mt[0].mip_offsets[1], 40 + 256);
    assert_int_equal(mt[0].mip_offsets[2], 40 + 256 + 64);
    assert_int_equal(mt[0].mip_offsets[3], 40 + 256 + 64 + 16);
    for (int k = 0; k < 4; k++) {
        assert_non_null(mt[0].mips[k]);
        assert_memory_equal(mt[0].mips[k], tex[0].mips[k], (size_t)(16 >> k) * (16 >> k));
    }
    if (goldsrc) {
        assert_int_equal(mt[0].palette_size, 256);
        assert_non_null(mt[0].palette);
        assert_memory_equal(mt[0].palette, palette, 768);
    } else {
        assert_null(mt[0].palette);
    }
    assert_string_equal(mt[1].name, "in_a_wad");
    assert_false(mt[1].embedded);
    assert_int_equal(mt[1].width, 64);
    assert_int_equal(mt[2].lump_offset, -1);

    uint32_t rows, row_bytes;
    CHECK(bspkit_vis_dimensions(m, &rows, &row_bytes, ERR));
    assert_int_equal(rows, 3);
    for (uint32_t leaf = 1; leaf <= 3; leaf++) {
        uint8_t row;
        CHECK(bspkit_vis_row(m, leaf, BSPKIT_VIS_PVS, &row, 1, ERR));
        assert_int_equal(row, pvs[leaf - 1]);
    }

    bspkit_close(m);
    bspkit_free_buffer(buf);
    bspkit_builder_free(b);
}

static void test_goldsrc_round_trip(void **state)
{
    (void)state;
    quake_family_round_trip(true);
}

static void test_quake_round_trip(void **state)
{
    (void)state;
    quake_family_round_trip(false);
}

/* ------------------------------------------------------------------------ */
/* Leaf and brush side layouts selected by version                           */
/* ------------------------------------------------------------------------ */

static void check_ambient_leafs(int32_t version, bool force_v0)
{
    bspkit_builder *b = NULL;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_SOURCE, version, &b, ERR));
    bspkit_leaf leafs[2];
    source_leafs(leafs);
    if (force_v0)
        CHECK(bspkit_builder_set_lump_version(b, BSPKIT_S_LEAFS, 0, ERR));
    CHECK(bspkit_builder_set_leafs(b, leafs, 2, ERR));
    size_t size;
    uint8_t *buf = write_map(b, NULL, &size);
    entry e = source_entry(buf, false, BSPKIT_S_LEAFS);
    assert_int_equal(e.version, 0);
    assert_int_equal(e.length, 2 * 56);
    bspkit_map *m = open_buf(buf, size);
    const bspkit_leaf *got;
    size_t n;
    CHECK(bspkit_get_leafs(m, &got, &n, ERR));
    assert_int_equal(n, 2);
    assert_true(got[1].has_ambient_cube);
    for (int k = 0; k < 6; k++) {
        assert_int_equal(got[1].ambient_cube[k].r, leafs[1].ambient_cube[k].r);
        assert_int_equal(got[1].ambient_cube[k].b, leafs[1].ambient_cube[k].b);
        assert_int_equal(got[1].ambient_cube[k].exponent, leafs[1].ambient_cube[k].exponent);
    }
    assert_int_equal(got[1].leaf_water, 7);
    assert_int_equal(got[1].area, 300);
    bspkit_close(m);
    free(buf);
    bspkit_builder_free(b);
}

static void test_leafs_version0(void **state)
{
    (void)state;
    check_ambient_leafs(19, false); /* v19 default */
    check_ambient_leafs(20, true);  /* explicit lump version */
}

static void test_brushside_v21(void **state)
{
    (void)state;
    bspkit_builder *b = NULL;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_SOURCE, 21, &b, ERR));
    bspkit_brushside s = {.plane = 0x1234, .texinfo = -1, .dispinfo = -1, .bevel = 1, .thin = 1};
    CHECK(bspkit_builder_set_brushsides(b, &s, 1, ERR));
    size_t size;
    uint8_t *buf = write_map(b, NULL, &size);
    entry e = source_entry(buf, false, BSPKIT_S_BRUSHSIDES);
    static const uint8_t want[8] = {0x34, 0x12, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x01};
    assert_int_equal(e.length, 8);
    assert_memory_equal(buf + e.offset, want, 8);
    bspkit_map *m = open_buf(buf, size);
    const bspkit_brushside *got;
    size_t n;
    CHECK(bspkit_get_brushsides(m, &got, &n, ERR));
    assert_int_equal(got[0].bevel, 1);
    assert_int_equal(got[0].thin, 1);
    bspkit_close(m);
    free(buf);
    bspkit_builder_free(b);
}

/* ------------------------------------------------------------------------ */
/* Byte layouts against hand-written bytes                                   */
/* ------------------------------------------------------------------------ */

static void test_layout_goldsrc_records(void **state)
{
    (void)state;
    bspkit_builder *b = NULL;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_GOLDSRC, 30, &b, ERR));
    bspkit_node node = {.plane = 7, .children = {1, -2}, .mins = {-16, -32, -48}, .maxs = {16, 32, 48},
                        .first_face = 3, .num_faces = 2};
    bspkit_texinfo ti;
    memset(&ti, 0, sizeof ti);
    ti.texture_vecs[0][0] = 1;
    ti.texture_vecs[0][3] = 8;
    ti.texture_vecs[1][1] = -1;
    ti.texture_vecs[1][3] = 4;
    ti.texture = 1;
    ti.flags = 0;
    ti.lightmap_vecs[0][0] = 99; /* not in the GoldSrc layout: ignored */
    bspkit_face face;
    memset(&face, 0, sizeof face);
    face = (bspkit_face){.plane = 2, .side = 1, .first_edge = 12, .num_edges = 4, .texinfo = 1,
                         .styles = {0, 255, 255, 255}, .light_offset = 300, .dispinfo = -1};
    bspkit_clipnode clip = {5, {-1, -2}};
    CHECK(bspkit_builder_set_nodes(b, &node, 1, ERR));
    CHECK(bspkit_builder_set_texinfo(b, &ti, 1, ERR));
    CHECK(bspkit_builder_set_faces(b, &face, 1, ERR));
    CHECK(bspkit_builder_set_clipnodes(b, &clip, 1, ERR));
    CHECK(bspkit_builder_set_planes(b, S_PLANES, 1, ERR));
    size_t size;
    uint8_t *buf = write_map(b, NULL, &size);

    assert_int_equal(rd_le32(buf), 30);
    entry planes = quake_entry(buf, BSPKIT_Q_PLANES);
    assert_int_equal(planes.offset, 124); /* PLANES first, right after the header */
    static const uint8_t plane[20] = {0, 0, 0x80, 0x3F, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x42, 0, 0, 0, 0};
    assert_memory_equal(buf + planes.offset, plane, 20);

    static const uint8_t want_node[24] = {7,    0,    0,    0,    1,    0, 0xFE, 0xFF, 0xF0, 0xFF, 0xE0, 0xFF,
                                          0xD0, 0xFF, 0x10, 0x00, 0x20, 0, 0x30, 0,    3,    0,    2,    0};
    entry e = quake_entry(buf, BSPKIT_Q_NODES);
    assert_int_equal(e.length, 24);
    assert_memory_equal(buf + e.offset, want_node, 24);

    static const uint8_t want_ti[40] = {0, 0, 0x80, 0x3F, 0, 0, 0, 0, 0,    0,    0,    0,    0, 0, 0x00, 0x41,
                                        0, 0, 0,    0,    0, 0, 0x80, 0xBF, 0, 0, 0, 0, 0, 0, 0x80, 0x40,
                                        1, 0, 0,    0,    0, 0, 0,    0};
    e = quake_entry(buf, BSPKIT_Q_TEXINFO);
    assert_int_equal(e.length, 40);
    assert_memory_equal(buf + e.offset, want_ti, 40);

    static const uint8_t want_face[20] = {2, 0, 1, 0, 12, 0, 0, 0, 4, 0, 1, 0, 0, 255, 255, 255, 0x2C, 1, 0, 0};
    e = quake_entry(buf, BSPKIT_Q_FACES);
    assert_int_equal(e.length, 20);
    assert_memory_equal(buf + e.offset, want_face, 20);

    static const uint8_t want_clip[8] = {5, 0, 0, 0, 0xFF, 0xFF, 0xFE, 0xFF};
    e = quake_entry(buf, BSPKIT_Q_CLIPNODES);
    assert_memory_equal(buf + e.offset, want_clip, 8);

    /* Every lump 4-byte aligned, in the compilers' order. */
    static const int order[] = {BSPKIT_Q_PLANES, BSPKIT_Q_LEAFS, BSPKIT_Q_VERTEXES, BSPKIT_Q_NODES,
                                BSPKIT_Q_TEXINFO, BSPKIT_Q_FACES, BSPKIT_Q_CLIPNODES};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        entry x = quake_entry(buf, order[i]);
        assert_int_equal(x.offset % 4, 0);
        if (i > 0)
            assert_true(x.offset >= quake_entry(buf, order[i - 1]).offset);
    }
    free(buf);
    bspkit_builder_free(b);
}

static void test_layout_source_records(void **state)
{
    (void)state;
    bspkit_builder *b = NULL;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_SOURCE, 20, &b, ERR));
    bspkit_leaf leaf;
    memset(&leaf, 0, sizeof leaf);
    leaf.contents = 1;
    leaf.cluster = 2;
    leaf.area = 5;
    leaf.flags = 3;
    leaf.mins = v3(-1, -2, -3);
    leaf.maxs = v3(4, 5, 6);
    leaf.first_leaf_face = 7;
    leaf.num_leaf_faces = 8;
    leaf.first_leaf_brush = 9;
    leaf.num_leaf_brushes = 10;
    leaf.leaf_water = -1;
    bspkit_face faces[2];
    source_faces(faces);
    bspkit_brushside sides[2];
    source_sides(sides);
    CHECK(bspkit_builder_set_leafs(b, &leaf, 1, ERR));
    CHECK(bspkit_builder_set_faces(b, faces, 1, ERR));
    CHECK(bspkit_builder_set_brushsides(b, sides, 1, ERR));

    static const uint8_t leaf_le[32] = {1, 0, 0, 0, 2, 0, 0x05, 0x06, 0xFF, 0xFF, 0xFE, 0xFF, 0xFD, 0xFF, 4, 0,
                                        5, 0, 6, 0, 7, 0, 8,    0,    9,    0,    10,   0,    0xFF, 0xFF, 0, 0};
    static const uint8_t leaf_be[32] = {0, 0, 0, 1, 0, 2, 0x06, 0x05, 0xFF, 0xFF, 0xFF, 0xFE, 0xFF, 0xFD, 0, 4,
                                        0, 5, 0, 6, 0, 7, 0,    8,    0,    9,    0,    10,   0xFF, 0xFF, 0, 0};
    static const uint8_t face_le[56] = {5,    0,    1,    1,    10,   0,    0,    0,    4,    0,    2,    0,
                                        0xFF, 0xFF, 0xFF, 0xFF, 0,    1,    2,    0xFF, 64,   0,    0,    0,
                                        0,    0,    0xF7, 0x42, 0xFD, 0xFF, 0xFF, 0xFF, 7,    0,    0,    0,
                                        9,    0,    0,    0,    4,    0,    0,    0,    1,    0,    0,    0,
                                        2,    0,    3,    0,    0xEF, 0xBE, 0xAD, 0xDE};
    static const uint8_t side_be[8] = {0x12, 0x34, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x01};
    static const uint8_t side_le[8] = {0x34, 0x12, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00};

    for (int be = 0; be < 2; be++) {
        bspkit_write_options o = {.big_endian = be, .revision = 0x01020304};
        size_t size;
        uint8_t *buf = write_map(b, &o, &size);
        assert_memory_equal(buf, be ? "PSBV" : "VBSP", 4);
        assert_int_equal(rd_u32(buf + 4, be), 20);
        assert_int_equal(rd_u32(buf + 1032, be), 0x01020304);
        entry e = source_entry(buf, be, BSPKIT_S_LEAFS);
        assert_int_equal(e.version, 1);
        assert_int_equal(e.length, 32);
        assert_memory_equal(buf + e.offset, be ? leaf_be : leaf_le, 32);
        e = source_entry(buf, be, BSPKIT_S_FACES);
        assert_int_equal(e.version, 1);
        assert_int_equal(e.length, 56);
        if (!be)
            assert_memory_equal(buf + e.offset, face_le, 56);
        else
            assert_int_equal(rd_be16(buf + e.offset), 5);
        e = source_entry(buf, be, BSPKIT_S_BRUSHSIDES);
        assert_memory_equal(buf + e.offset, be ? side_be : side_le, 8);
        /* An absent lump has an all-zero entry; the game-lump directory is always there. */
        e = source_entry(buf, be, BSPKIT_S_PLANES);
        assert_int_equal(e.offset | e.length | e.version | e.fourcc, 0);
        e = source_entry(buf, be, BSPKIT_S_GAME_LUMP);
        assert_int_equal(e.length, 4);
        assert_int_equal(rd_u32(buf + e.offset, be), 0);
        for (int i = 0; i < BSPKIT_S_LUMP_COUNT; i++)
            assert_int_equal(source_entry(buf, be, i).offset % 4, 0);
        free(buf);
    }
    bspkit_builder_free(b);
}

static void test_layout_source_visibility(void **state)
{
    (void)state;
    bspkit_builder *b = NULL;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_SOURCE, 20, &b, ERR));
    const uint8_t pvs[2 * 2] = {0x01, 0x00, 0x02, 0x80};
    int32_t offsets[2];
    CHECK(bspkit_builder_set_visibility(b, 2, 2, pvs, NULL, offsets, ERR));
    assert_int_equal(offsets[0], 20); /* 4 + 2 * 8 header bytes */
    assert_int_equal(offsets[1], 23); /* 01 00 01 */
    size_t size;
    uint8_t *buf = write_map(b, &(bspkit_write_options){.big_endian = true}, &size);
    entry e = source_entry(buf, true, BSPKIT_S_VISIBILITY);
    static const uint8_t want[25] = {0, 0, 0, 2, 0, 0, 0, 20, 0, 0, 0, 20, 0, 0, 0, 23, 0, 0, 0, 23,
                                     0x01, 0x00, 0x01, 0x02, 0x80};
    assert_int_equal(e.length, sizeof want);
    assert_memory_equal(buf + e.offset, want, sizeof want);
    free(buf);
    bspkit_builder_free(b);
}

static void test_layout_miptex(void **state)
{
    (void)state;
    bspkit_builder *b = NULL;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_GOLDSRC, 30, &b, ERR));
    uint8_t pixels[340];
    uint8_t palette[768];
    memset(palette, 0x5A, sizeof palette);
    bspkit_miptex tex[3];
    memset(tex, 0, sizeof tex);
    strcpy(tex[0].name, "abc");
    tex[0].width = tex[0].height = 16;
    tex[0].embedded = true;
    make_mips(pixels, 16, 16, tex[0].mips);
    tex[0].palette = palette;
    strcpy(tex[1].name, "0123456789abcdef"); /* 16 characters: no NUL in the file */
    tex[1].width = 32;
    tex[1].height = 16;
    tex[2].lump_offset = -1;
    CHECK(bspkit_builder_set_miptex(b, tex, 3, ERR));
    size_t size;
    uint8_t *buf = write_map(b, NULL, &size);
    entry e = quake_entry(buf, BSPKIT_Q_TEXTURES);
    const uint8_t *t = buf + e.offset;
    assert_int_equal(e.length, 16 + 1152 + 40);
    assert_int_equal(rd_le32(t), 3);
    assert_int_equal(rd_le32(t + 4), 16);
    assert_int_equal(rd_le32(t + 8), 16 + 1152);
    assert_int_equal(rd_le32(t + 12), 0xFFFFFFFFu);
    const uint8_t *m0 = t + 16;
    assert_memory_equal(m0, "abc\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
    assert_int_equal(rd_le32(m0 + 16), 16);
    assert_int_equal(rd_le32(m0 + 20), 16);
    assert_int_equal(rd_le32(m0 + 24), 40);
    assert_int_equal(rd_le32(m0 + 28), 296);
    assert_int_equal(rd_le32(m0 + 32), 360);
    assert_int_equal(rd_le32(m0 + 36), 376);
    assert_memory_equal(m0 + 40, pixels, 340);
    assert_int_equal(rd_le16(m0 + 380), 256); /* palette_size 0 means 256 */
    assert_memory_equal(m0 + 382, palette, 768);
    assert_int_equal(m0[1150], 0);
    assert_int_equal(m0[1151], 0);
    const uint8_t *m1 = t + 16 + 1152;
    assert_memory_equal(m1, "0123456789abcdef", 16);
    assert_int_equal(rd_le32(m1 + 16), 32);
    for (int k = 0; k < 4; k++)
        assert_int_equal(rd_le32(m1 + 24 + 4 * k), 0);
    free(buf);
    bspkit_builder_free(b);
}

static void test_vis_compress(void **state)
{
    (void)state;
    uint8_t out[1024];
    size_t n;
    const uint8_t a[5] = {0x01, 0, 0, 0, 0x80};
    assert_int_equal(bspkit_vis_compress(a, 5, out, sizeof out, &n), BSPKIT_OK);
    assert_int_equal(n, 4);
    assert_memory_equal(out, "\x01\x00\x03\x80", 4);
    uint8_t zeros[300];
    memset(zeros, 0, sizeof zeros);
    assert_int_equal(bspkit_vis_compress(zeros, 300, out, sizeof out, &n), BSPKIT_OK);
    assert_int_equal(n, 4);
    assert_memory_equal(out, "\x00\xFF\x00\x2D", 4);
    assert_int_equal(bspkit_vis_compress(zeros, 1, out, sizeof out, &n), BSPKIT_OK);
    assert_int_equal(n, 2);
    assert_int_equal(bspkit_vis_compress(a, 0, out, sizeof out, &n), BSPKIT_OK);
    assert_int_equal(n, 0);
    assert_int_equal(bspkit_vis_compress(a, 5, out, 3, &n), BSPKIT_ERR_ARGUMENT);
    /* Inverse of the shared decoder, for every byte pattern of a 3-byte row. */
    for (unsigned v = 0; v < (1u << 12); v++) {
        uint8_t row[3] = {(uint8_t)((v & 0xF) * (v & 0x10 ? 1 : 0)), (uint8_t)(v >> 4 & 0xF),
                          (uint8_t)(v >> 8 & 0xF)};
        uint8_t back[3];
        size_t used;
        assert_int_equal(bspkit_vis_compress(row, 3, out, BSPKIT_VIS_COMPRESS_BOUND(3), &n), BSPKIT_OK);
        assert_int_equal(bspkit_vis_decompress(out, n, back, 3, &used), BSPKIT_OK);
        assert_int_equal(used, n);
        assert_memory_equal(back, row, 3);
    }
}

/* ------------------------------------------------------------------------ */
/* LZMA lumps                                                                */
/* ------------------------------------------------------------------------ */

static void check_lzma_against_plain(bool be)
{
    bspkit_builder *b = source_builder(20);
    size_t plain_size, packed_size;
    uint8_t *plain = write_map(b, &(bspkit_write_options){.big_endian = be}, &plain_size);
    uint8_t *packed = write_map(b, &(bspkit_write_options){.big_endian = be, .compress_lzma = true}, &packed_size);
    int compressed = 0;
    for (int i = 0; i < BSPKIT_S_LUMP_COUNT; i++) {
        entry p = source_entry(plain, be, i), z = source_entry(packed, be, i);
        assert_int_equal(p.fourcc, 0);
        assert_int_equal(z.version, p.version);
        if (p.length == 0) {
            assert_int_equal(z.length, 0);
            continue;
        }
        if (i == BSPKIT_S_PAKFILE || i == BSPKIT_S_GAME_LUMP) {
            assert_int_equal(z.fourcc, 0); /* never compressed */
            assert_int_equal(z.length, p.length);
            if (i == BSPKIT_S_PAKFILE)
                assert_memory_equal(packed + z.offset, plain + p.offset, p.length);
            continue;
        }
        const uint8_t *h = packed + z.offset;
        assert_memory_equal(h, "LZMA", 4);
        /* Both sizes little-endian even in a big-endian file. */
        assert_int_equal(rd_le32(h + 4), p.length);
        assert_int_equal(rd_le32(h + 8), z.length - 17);
        assert_int_equal(z.fourcc, p.length); /* directory: uncompressed size */
        assert_int_equal(h[12], 0x5D);        /* lc=3 lp=0 pb=2 */
        uint32_t dict = rd_le32(h + 13);
        assert_true(dict >= 4096 && (dict & (dict - 1)) == 0);
        size_t n;
        uint8_t *dec = valve_lzma_decode(h, z.length, &n);
        assert_int_equal(n, p.length);
        assert_memory_equal(dec, plain + p.offset, n);
        free(dec);
        compressed++;
    }
    assert_true(compressed >= 20);
    free(plain);
    free(packed);
    bspkit_builder_free(b);
}

static void test_lzma_lumps(void **state)
{
    (void)state;
    check_lzma_against_plain(false);
    check_lzma_against_plain(true);
}

static void test_lzma_incompressible(void **state)
{
    (void)state;
    /* Random bytes grow under LZMA; the output buffer must grow with them. */
    size_t n = 200000;
    uint8_t *noise = malloc(n);
    assert_non_null(noise);
    uint32_t x = 0x12345678;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        noise[i] = (uint8_t)x;
    }
    bspkit_builder *b = NULL;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_SOURCE, 20, &b, ERR));
    CHECK(bspkit_builder_set_lump(b, BSPKIT_S_PHYSCOLLIDE, noise, n, 0, ERR));
    size_t size;
    uint8_t *buf = write_map(b, &(bspkit_write_options){.compress_lzma = true}, &size);
    entry e = source_entry(buf, false, BSPKIT_S_PHYSCOLLIDE);
    assert_int_equal(e.fourcc, n);
    size_t got;
    uint8_t *dec = valve_lzma_decode(buf + e.offset, e.length, &got);
    assert_int_equal(got, n);
    assert_memory_equal(dec, noise, n);
    free(dec);
    free(buf);
    free(noise);
    bspkit_builder_free(b);
}

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

static void test_rejects_values_the_layout_cannot_hold(void **state)
{
    (void)state;
    bspkit_builder *g = NULL, *s = NULL;
    bspkit_error err;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_GOLDSRC, 30, &g, ERR));
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_SOURCE, 20, &s, ERR));

    bspkit_edge big = {{65536, 0}};
    assert_int_equal(bspkit_builder_set_edges(s, &big, 1, &err), BSPKIT_ERR_ARGUMENT);
    assert_int_equal(err.lump, BSPKIT_S_EDGES);
    assert_non_null(strstr(err.message, "v[0]"));

    bspkit_face f;
    memset(&f, 0, sizeof f);
    f.texinfo = -1;
    assert_int_equal(bspkit_builder_set_faces(g, &f, 1, &err), BSPKIT_ERR_ARGUMENT);
    assert_int_equal(bspkit_builder_set_faces(s, &f, 1, &err), BSPKIT_OK); /* Source texinfo is signed */

    bspkit_node n;
    memset(&n, 0, sizeof n);
    n.maxs.x = 40000;
    assert_int_equal(bspkit_builder_set_nodes(s, &n, 1, &err), BSPKIT_ERR_ARGUMENT);
    n.maxs.x = NAN;
    assert_int_equal(bspkit_builder_set_nodes(s, &n, 1, &err), BSPKIT_ERR_ARGUMENT);
    n.maxs.x = 0;
    n.children[1] = -40000;
    assert_int_equal(bspkit_builder_set_nodes(g, &n, 1, &err), BSPKIT_ERR_ARGUMENT);
    assert_int_equal(bspkit_builder_set_nodes(s, &n, 1, &err), BSPKIT_OK); /* int32 children */

    bspkit_leaf l;
    memset(&l, 0, sizeof l);
    l.area = 512;
    assert_int_equal(bspkit_builder_set_leafs(s, &l, 1, &err), BSPKIT_ERR_ARGUMENT);
    l.area = 0;
    l.flags = 128;
    assert_int_equal(bspkit_builder_set_leafs(s, &l, 1, &err), BSPKIT_ERR_ARGUMENT);

    /* Kinds a family lacks, and options a family lacks. */
    bspkit_brush br = {0, 0, 0, -1};
    assert_int_equal(bspkit_builder_set_brushes(g, &br, 1, &err), BSPKIT_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "brush records do not exist in goldsrc maps"));
    bspkit_clipnode c = {0, {0, 0}};
    assert_int_equal(bspkit_builder_set_clipnodes(s, &c, 1, &err), BSPKIT_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "clipnode records do not exist in source maps"));
    assert_int_equal(bspkit_builder_set_miptex(s, NULL, 0, &err), BSPKIT_ERR_UNSUPPORTED);
    uint8_t *out;
    size_t size;
    assert_int_equal(bspkit_builder_write(g, &(bspkit_write_options){.big_endian = true}, &out, &size, &err),
                     BSPKIT_ERR_ARGUMENT);
    assert_int_equal(bspkit_builder_set_lump(s, BSPKIT_S_GAME_LUMP, "x", 1, 0, &err), BSPKIT_ERR_ARGUMENT);
    assert_int_equal(bspkit_builder_set_lump(g, 15, "x", 1, 0, &err), BSPKIT_ERR_ARGUMENT);

    bspkit_miptex bad;
    memset(&bad, 0, sizeof bad);
    bad.embedded = true;
    bad.width = 24;
    bad.height = 16;
    assert_int_equal(bspkit_builder_set_miptex(g, &bad, 1, &err), BSPKIT_ERR_ARGUMENT);

    bspkit_builder *none = NULL;
    assert_int_equal(bspkit_builder_new(BSPKIT_FAMILY_GOLDSRC, 29, &none, &err), BSPKIT_ERR_UNSUPPORTED);
    assert_int_equal(bspkit_builder_new(BSPKIT_FAMILY_SOURCE, 17, &none, &err), BSPKIT_ERR_UNSUPPORTED);
    assert_null(none);

    bspkit_builder_free(g);
    bspkit_builder_free(s);
}

static void test_clear_and_replace(void **state)
{
    (void)state;
    bspkit_builder *b = NULL;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_GOLDSRC, 30, &b, ERR));
    CHECK(bspkit_builder_set_planes(b, S_PLANES, 3, ERR));
    CHECK(bspkit_builder_set_planes(b, S_PLANES, 1, ERR)); /* replaces */
    CHECK(bspkit_builder_set_lump(b, BSPKIT_Q_LIGHTING, "abc", 3, 0, ERR));
    CHECK(bspkit_builder_clear_lump(b, BSPKIT_Q_LIGHTING, ERR));
    size_t size;
    uint8_t *buf = write_map(b, NULL, &size);
    assert_int_equal(quake_entry(buf, BSPKIT_Q_PLANES).length, 20);
    assert_int_equal(quake_entry(buf, BSPKIT_Q_LIGHTING).length, 0);
    assert_int_equal(bspkit_builder_family(b), BSPKIT_FAMILY_GOLDSRC);
    assert_int_equal(bspkit_builder_version(b), 30);
    free(buf);
    bspkit_builder_free(b);
}

/* ------------------------------------------------------------------------ */
/* Atomic save                                                               */
/* ------------------------------------------------------------------------ */

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void assert_file_text(const char *path, const char *text)
{
    char buf[64] = {0};
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    assert_int_equal(n, strlen(text));
    assert_string_equal(buf, text);
}

static void test_atomic_save(void **state)
{
    (void)state;
    char dir[] = "/tmp/bspkit-save-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char target[256], missing[256], sub[256];
    snprintf(target, sizeof target, "%s/map.bsp", dir);
    snprintf(missing, sizeof missing, "%s/no-such-dir/map.bsp", dir);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    bspkit_builder *b = source_builder(20);
    bspkit_error err;

    /* A directory that does not exist: error, nothing created. */
    assert_int_equal(bspkit_builder_save(b, missing, NULL, &err), BSPKIT_ERR_IO);
    assert_non_null(strstr(err.message, "no-such-dir"));
    assert_int_equal(count_entries(dir), 0);

    /* Success replaces an existing file and leaves no temporary behind. */
    write_text(target, "old contents");
    CHECK(bspkit_builder_save(b, target, &(bspkit_write_options){.revision = 3}, ERR));
    assert_int_equal(count_entries(dir), 1);
    size_t size;
    uint8_t *want = write_map(b, &(bspkit_write_options){.revision = 3}, &size);
    struct stat st;
    assert_int_equal(stat(target, &st), 0);
    assert_int_equal((size_t)st.st_size, size);
    bspkit_map *m = NULL;
    CHECK(bspkit_open_file(target, NULL, &m, ERR));
    const uint8_t *got = bspkit_map_bytes(m, &size);
    assert_memory_equal(got, want, size);
    bspkit_close(m);
    free(want);

    /* A map that cannot be encoded never touches the target. */
    bspkit_builder *g = NULL;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_GOLDSRC, 30, &g, ERR));
    write_text(target, "keep me");
    assert_int_equal(bspkit_builder_save(g, target, &(bspkit_write_options){.compress_lzma = true}, &err),
                     BSPKIT_ERR_ARGUMENT);
    assert_file_text(target, "keep me");
    assert_int_equal(count_entries(dir), 1);

    /* rename() fails when the target is a directory: the temporary goes away. */
    assert_int_equal(mkdir(sub, 0755), 0);
    assert_int_equal(bspkit_builder_save(g, sub, NULL, &err), BSPKIT_ERR_IO);
    assert_int_equal(count_entries(dir), 2);
    assert_int_equal(count_entries(sub), 0);

    /* A directory we may not write to (root may write anywhere). */
    if (geteuid() != 0) {
        assert_int_equal(chmod(dir, 0555), 0);
        assert_int_equal(bspkit_builder_save(g, target, NULL, &err), BSPKIT_ERR_IO);
        assert_file_text(target, "keep me");
        assert_int_equal(chmod(dir, 0755), 0);
        assert_int_equal(count_entries(dir), 2);
    }

    rmdir(sub);
    unlink(target);
    rmdir(dir);
    bspkit_builder_free(g);
    bspkit_builder_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_source_round_trip_le),
        cmocka_unit_test(test_source_round_trip_be),
        cmocka_unit_test(test_source_round_trip_lzma),
        cmocka_unit_test(test_source_round_trip_be_lzma),
        cmocka_unit_test(test_goldsrc_round_trip),
        cmocka_unit_test(test_quake_round_trip),
        cmocka_unit_test(test_leafs_version0),
        cmocka_unit_test(test_brushside_v21),
        cmocka_unit_test(test_layout_goldsrc_records),
        cmocka_unit_test(test_layout_source_records),
        cmocka_unit_test(test_layout_source_visibility),
        cmocka_unit_test(test_layout_miptex),
        cmocka_unit_test(test_vis_compress),
        cmocka_unit_test(test_lzma_lumps),
        cmocka_unit_test(test_lzma_incompressible),
        cmocka_unit_test(test_rejects_values_the_layout_cannot_hold),
        cmocka_unit_test(test_clear_and_replace),
        cmocka_unit_test(test_atomic_save),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
