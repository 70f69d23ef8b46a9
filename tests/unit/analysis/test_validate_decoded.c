/* Validation of Source maps built from the sample room with one broken
 * index each: a static prop naming a model past the dictionary, an overlay
 * on a face that does not exist, a displacement whose vertices run past
 * DISP_VERTS, and the brush, side, area, portal and leaf-brush references
 * are each reported as an index error on their lump, with the message the
 * format's field names give; the intact sample reports none of them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bspkit/bspkit.h"
#include "bspkit/write.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void putf(uint8_t *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put32(p, u);
}

/* Build the little-endian Source sample with `edit` applied, validate, and
 * count the problems on `lump` whose message contains `needle`. */
/* The little-endian Source sample with `edit` (or NULL) applied, opened
 * from *data, which the caller frees after closing the map. */
static bspkit_map *open_sample_of(bspkit_sample_kind sample, void (*edit)(bspkit_builder *), uint8_t **data)
{
    bspkit_builder *b;
    bspkit_write_options opts;
    bspkit_error err;
    assert_int_equal(bspkit_sample_builder(sample, &b, &opts, &err), BSPKIT_OK);
    if (edit)
        edit(b);
    size_t size;
    assert_int_equal(bspkit_builder_write(b, &opts, data, &size, &err), BSPKIT_OK);
    bspkit_builder_free(b);
    bspkit_map *map;
    assert_int_equal(bspkit_open_memory(*data, size, NULL, &map, &err), BSPKIT_OK);
    return map;
}

static bspkit_map *open_sample(void (*edit)(bspkit_builder *), uint8_t **data)
{
    return open_sample_of(BSPKIT_SAMPLE_SOURCE_ROOM, edit, data);
}

/* problems_with for any sample; lump -1 counts problems of every lump and kind. */
static size_t problems_in(bspkit_sample_kind sample, void (*edit)(bspkit_builder *), int lump, const char *needle)
{
    uint8_t *data;
    bspkit_map *map = open_sample_of(sample, edit, &data);
    bspkit_error err;
    bspkit_report rep;
    assert_int_equal(bspkit_validate(map, &rep, &err), BSPKIT_OK);
    size_t hits = 0;
    for (size_t i = 0; i < rep.count; i++)
        if (lump < 0 || (rep.problems[i].lump == lump && strstr(rep.problems[i].message, needle) &&
                         rep.problems[i].code == BSPKIT_ERR_INDEX &&
                         rep.problems[i].severity == BSPKIT_SEVERITY_ERROR))
            hits++;
    bspkit_report_free(&rep);
    bspkit_close(map);
    bspkit_free_buffer(data);
    return hits;
}

static size_t problems_with(void (*edit)(bspkit_builder *), int lump, const char *needle)
{
    return problems_in(BSPKIT_SAMPLE_SOURCE_ROOM, edit, lump, needle);
}

/* sprp v5: one dictionary name, one leaf (0), one 60-byte prop with PropType 3. */
static void bad_static_prop(bspkit_builder *b)
{
    static uint8_t lump[4 + 128 + 4 + 2 + 4 + 60];
    memset(lump, 0, sizeof lump);
    uint8_t *p = lump;
    put32(p, 1);
    memcpy(p + 4, "models/box.mdl", 14);
    p += 4 + 128;
    put32(p, 1);
    put16(p + 4, 0);
    p += 6;
    put32(p, 1);
    p += 4;
    put16(p + 24, 3); /* PropType */
    put16(p + 26, 0); /* FirstLeaf */
    put16(p + 28, 1); /* LeafCount */
    putf(p + 56, 1.0f);
    bspkit_game_lump_data gl = {0x73707270u, 0, 5, lump, sizeof lump};
    bspkit_error err;
    assert_int_equal(bspkit_builder_set_game_lumps(b, &gl, 1, &err), BSPKIT_OK);
}

/* One 352-byte overlay on face 9999 with texinfo 0. */
static void bad_overlay(bspkit_builder *b)
{
    static uint8_t rec[352];
    memset(rec, 0, sizeof rec);
    put16(rec + 4, 0);    /* TexInfo */
    put16(rec + 6, 1);    /* one face */
    put32(rec + 8, 9999); /* Ofaces[0] */
    bspkit_error err;
    assert_int_equal(bspkit_builder_set_lump(b, BSPKIT_S_OVERLAYS, rec, sizeof rec, 0, &err), BSPKIT_OK);
}

/* One power-2 dispinfo on face 0 whose 25 vertices start past the 25 stored. */
static void bad_displacement(bspkit_builder *b)
{
    static uint8_t info[176], verts[25 * 20];
    memset(info, 0, sizeof info);
    memset(verts, 0, sizeof verts);
    put32(info + 12, 1); /* DispVertStart: 1 + 25 > 25 */
    put32(info + 20, 2); /* power */
    bspkit_error err;
    assert_int_equal(bspkit_builder_set_lump(b, BSPKIT_S_DISPINFO, info, sizeof info, 0, &err), BSPKIT_OK);
    assert_int_equal(bspkit_builder_set_lump(b, BSPKIT_S_DISP_VERTS, verts, sizeof verts, 0, &err), BSPKIT_OK);
}

/* Brushes, sides, areas, portals and leaf brushes small enough to state:
 * every index valid except the one a case breaks. Planes 0 and 1 and
 * texinfo 0 exist in the sample room. */
static bspkit_brush brushes[1];
static bspkit_brushside sides[2];
static bspkit_area areas[2];
static bspkit_areaportal portals[1];
/* The sample's leafs use the first 8 leaf brushes. */
static uint32_t leaf_brushes[8];

static void reset_refs(void)
{
    brushes[0] = (bspkit_brush){.first_side = 0, .num_sides = 2, .contents = 1};
    sides[0] = (bspkit_brushside){.plane = 0, .texinfo = 0, .dispinfo = 0};
    sides[1] = (bspkit_brushside){.plane = 1, .texinfo = -1, .dispinfo = -1};
    areas[0] = (bspkit_area){.num_portals = 0, .first_portal = 0};
    areas[1] = (bspkit_area){.num_portals = 1, .first_portal = 0};
    portals[0] = (bspkit_areaportal){.portal_key = 1, .other_area = 1, .first_clip_vert = 0, .num_clip_verts = 0,
                                     .plane = 0};
    memset(leaf_brushes, 0, sizeof leaf_brushes);
}

static void set_refs(bspkit_builder *b)
{
    bspkit_error err;
    assert_int_equal(bspkit_builder_set_brushes(b, brushes, 1, &err), BSPKIT_OK);
    assert_int_equal(bspkit_builder_set_brushsides(b, sides, 2, &err), BSPKIT_OK);
    assert_int_equal(bspkit_builder_set_areas(b, areas, 2, &err), BSPKIT_OK);
    assert_int_equal(bspkit_builder_set_areaportals(b, portals, 1, &err), BSPKIT_OK);
    assert_int_equal(bspkit_builder_set_leaf_brushes(b, leaf_brushes, 8, &err), BSPKIT_OK);
}

static size_t ref_problems(int lump, const char *needle)
{
    size_t n = problems_with(set_refs, lump, needle);
    reset_refs();
    return n;
}

static void test_references(void **state)
{
    (void)state;
    reset_refs();
    /* The references as given are valid. */
    assert_int_equal(ref_problems(BSPKIT_S_BRUSHES, ""), 0);
    assert_int_equal(ref_problems(BSPKIT_S_BRUSHSIDES, ""), 0);
    assert_int_equal(ref_problems(BSPKIT_S_AREAS, ""), 0);
    assert_int_equal(ref_problems(BSPKIT_S_AREAPORTALS, ""), 0);
    assert_int_equal(ref_problems(BSPKIT_S_LEAFBRUSHES, ""), 0);
    assert_int_equal(ref_problems(BSPKIT_S_LEAFS, ""), 0);

    brushes[0].num_sides = 3;
    assert_int_equal(ref_problems(BSPKIT_S_BRUSHES, "brush 0: first_side+num_sides 3 exceeds 2 brushsides"), 1);
    brushes[0].first_side = -1;
    assert_int_equal(ref_problems(BSPKIT_S_BRUSHES, "brush 0: first_side -1 / num_sides 2 negative"), 1);

    sides[1].plane = 60000;
    assert_int_equal(ref_problems(BSPKIT_S_BRUSHSIDES, "brushside 1: plane 60000 exceeds"), 1);
    sides[1].texinfo = 5000;
    assert_int_equal(ref_problems(BSPKIT_S_BRUSHSIDES, "brushside 1: texinfo 5000 exceeds"), 1);
    /* No DISPINFO records: any displacement other than the "none" values -1 and 0 is out of range. */
    sides[1].dispinfo = 1;
    assert_int_equal(ref_problems(BSPKIT_S_BRUSHSIDES, "brushside 1: dispinfo 1 exceeds 0 dispinfos"), 1);

    areas[1].first_portal = 1;
    assert_int_equal(ref_problems(BSPKIT_S_AREAS, "area 1: first_portal+num_portals 2 exceeds 1 areaportals"), 1);
    portals[0].other_area = 2;
    assert_int_equal(ref_problems(BSPKIT_S_AREAPORTALS, "areaportal 0: other_area 2 exceeds 2 areas"), 1);
    portals[0].plane = -2;
    assert_int_equal(ref_problems(BSPKIT_S_AREAPORTALS, "areaportal 0: plane -2 exceeds"), 1);
    portals[0].num_clip_verts = 4;
    assert_int_equal(ref_problems(BSPKIT_S_AREAPORTALS, "areaportal 0: first_clip_vert+num_clip_verts 4 exceeds 0 clipportalverts"), 1);
    leaf_brushes[5] = 1;
    assert_int_equal(ref_problems(BSPKIT_S_LEAFBRUSHES, "leafbrush 5: brush 1 exceeds 1 brushes"), 1);
}

/* Eleven brush sides, every field valid or "none" (groups of four and a
 * tail, as the validator's vector screen reads them), with one field of
 * one side broken by `side_case` at `side_at`. */
static int side_at, side_case;
static uint32_t room_planes, room_texinfo; /* the sample room's counts */

static void set_sides(bspkit_builder *b)
{
    static bspkit_brushside many[11];
    for (int i = 0; i < 11; i++)
        many[i] = (bspkit_brushside){.plane = (uint32_t)(i % 2), .texinfo = i % 3 ? 0 : -1,
                                     .dispinfo = i % 2 ? 0 : -1, .shader = -1};
    bspkit_brushside *s = &many[side_at];
    switch (side_case) {
    case 0: s->plane = 60000; break;
    case 1: s->plane = UINT16_MAX; break; /* the file's fields: unsigned short, shorts */
    case 2: s->texinfo = 5000; break;
    case 3: s->texinfo = -2; break;
    case 4: s->dispinfo = 1; break;
    case 5: s->dispinfo = INT16_MIN; break;
    case 6: s->shader = 5000; break; /* no SHADERS lump in Source: not checked */
    case 7: s->plane = room_planes; break; /* the first past the end */
    case 8: s->texinfo = (int32_t)room_texinfo; break;
    case 9: s->plane = room_planes - 1, s->texinfo = (int32_t)room_texinfo - 1; break; /* the last that fit */
    default: break;
    }
    bspkit_error err;
    assert_int_equal(bspkit_builder_set_brushsides(b, many, 11, &err), BSPKIT_OK);
}

static void test_brushsides_every_position(void **state)
{
    (void)state;
    uint8_t *data;
    bspkit_map *map = open_sample(NULL, &data);
    uint64_t n;
    assert_int_equal(bspkit_lump_record_count(map, BSPKIT_S_PLANES, &n), BSPKIT_OK);
    room_planes = (uint32_t)n;
    assert_int_equal(bspkit_lump_record_count(map, BSPKIT_S_TEXINFO, &n), BSPKIT_OK);
    room_texinfo = (uint32_t)n;
    bspkit_close(map);
    bspkit_free_buffer(data);
    assert_true(room_planes > 1 && room_texinfo > 1);

    char past_planes[64], past_texinfo[64];
    snprintf(past_planes, sizeof past_planes, "plane %u exceeds %u", room_planes, room_planes);
    snprintf(past_texinfo, sizeof past_texinfo, "texinfo %u exceeds %u", room_texinfo, room_texinfo);
    /* By side_case; NULL: the side stays valid (or is not checked). */
    const char *const needles[] = {"plane 60000 exceeds", "plane 65535 exceeds", "texinfo 5000 exceeds",
                                   "texinfo -2 exceeds",  "dispinfo 1 exceeds",  "dispinfo -32768 exceeds",
                                   NULL,                  past_planes,           past_texinfo,
                                   NULL,                  NULL};
    for (side_case = 0; side_case < 11; side_case++)
        for (side_at = 0; side_at < 11; side_at++) {
            char needle[96];
            if (needles[side_case])
                snprintf(needle, sizeof needle, "brushside %d: %s", side_at, needles[side_case]);
            size_t hits = problems_with(set_sides, BSPKIT_S_BRUSHSIDES, needles[side_case] ? needle : "");
            if (hits != (needles[side_case] ? 1u : 0u))
                fail_msg("case %d at side %d: %zu problems", side_case, side_at, hits);
        }
}

/* Leafs: the sample's leafs repeated to eleven, then one field of one
 * leaf out of its interval: found, and only that, at every position.
 * Quake keeps visibility offsets, Quake 2 and Source clusters. */
static int leaf_sample, leaf_at, leaf_case;
static bspkit_leaf sample_leafs[11];
static uint64_t sample_marks, sample_brushes, sample_rows, sample_vis_bytes;

static void set_leafs(bspkit_builder *b)
{
    bspkit_leaf many[11];
    memcpy(many, sample_leafs, sizeof many);
    bspkit_leaf *l = &many[leaf_at];
    switch (leaf_case) {
    case 0: l->first_leaf_face = (uint32_t)sample_marks, l->num_leaf_faces = 1; break;
    case 1: l->first_leaf_face = 0, l->num_leaf_faces = (uint32_t)sample_marks + 1; break;
    case 2: l->cluster = (int32_t)sample_rows, l->vis_offset = (int32_t)sample_vis_bytes; break;
    case 3: l->cluster = -2, l->vis_offset = -2; break;
    case 4: l->first_leaf_face = (uint32_t)sample_marks, l->num_leaf_faces = 0; break; /* the last that fit */
    case 6: l->first_leaf_brush = (uint32_t)sample_brushes, l->num_leaf_brushes = 1; break;
    default: break;
    }
    bspkit_error err;
    assert_int_equal(bspkit_builder_set_leafs(b, many, 11, &err), BSPKIT_OK);
}

static void test_leafs_every_position(void **state)
{
    (void)state;
    static const bspkit_sample_kind samples[] = {BSPKIT_SAMPLE_QUAKE_ROOM, BSPKIT_SAMPLE_QUAKE2_ROOM,
                                            BSPKIT_SAMPLE_SOURCE_ROOM};
    static const int leaf_lumps[] = {BSPKIT_Q_LEAFS, BSPKIT_Q2_LEAFS, BSPKIT_S_LEAFS};
    for (leaf_sample = 0; leaf_sample < 3; leaf_sample++) {
        uint8_t *data;
        bspkit_map *map = open_sample_of(samples[leaf_sample], NULL, &data);
        bspkit_error err;
        const bspkit_leaf *leafs;
        const uint32_t *marks, *brush_list;
        size_t n, nm, nb;
        uint32_t rows, row_bytes;
        assert_int_equal(bspkit_get_leafs(map, &leafs, &n, &err), BSPKIT_OK);
        assert_int_equal(bspkit_get_leaf_faces(map, &marks, &nm, &err), BSPKIT_OK);
        assert_int_equal(bspkit_get_leaf_brushes(map, &brush_list, &nb, &err), BSPKIT_OK);
        assert_int_equal(bspkit_vis_dimensions(map, &rows, &row_bytes, &err), BSPKIT_OK);
        bspkit_lump_info vis;
        assert_int_equal(bspkit_get_lump_info(map,
                                              leaf_sample == 0   ? BSPKIT_Q_VISIBILITY
                                              : leaf_sample == 1 ? BSPKIT_Q2_VISIBILITY
                                                                 : BSPKIT_S_VISIBILITY,
                                              &vis),
                         BSPKIT_OK);
        assert_true(n >= 2 && nm >= 1 && rows >= 1);
        for (int i = 0; i < 11; i++)
            sample_leafs[i] = leafs[i < (int)n ? i : (int)n - 1];
        sample_marks = nm;
        sample_brushes = nb;
        sample_rows = rows;
        sample_vis_bytes = vis.length;
        bspkit_close(map);
        bspkit_free_buffer(data);

        /* The eleven leafs may cost the sample problems of their own
         * (Quake 2 leafs naming areas, for one); each case adds one. */
        leaf_case = -1;
        leaf_at = 0;
        const size_t clean_all = problems_in(samples[leaf_sample], set_leafs, -1, "");
        assert_int_equal(problems_in(samples[leaf_sample], set_leafs, leaf_lumps[leaf_sample], ""), 0);
        char needle[96];
        for (leaf_case = 0; leaf_case < 7; leaf_case++)
            for (leaf_at = 0; leaf_at < 11; leaf_at++) {
                const char *want = NULL;
                switch (leaf_case) {
                case 0:
                    snprintf(needle, sizeof needle, "first_leaf_face+num_leaf_faces %" PRIu64 " exceeds",
                             sample_marks + 1);
                    want = needle;
                    break;
                case 1:
                    snprintf(needle, sizeof needle, "first_leaf_face+num_leaf_faces %" PRIu64 " exceeds",
                             sample_marks + 1);
                    want = needle;
                    break;
                case 2:
                case 3:
                    /* Quake's leaf 0 is never looked up: its offset is not checked. */
                    if (leaf_sample == 0 && leaf_at == 0)
                        break;
                    if (leaf_sample == 0)
                        snprintf(needle, sizeof needle, "vis_offset %d outside",
                                 leaf_case == 2 ? (int)sample_vis_bytes : -2);
                    else
                        snprintf(needle, sizeof needle, "cluster %d exceeds", leaf_case == 2 ? (int)sample_rows : -2);
                    want = needle;
                    break;
                case 6:
                    /* Quake has no leaf brushes: nothing to exceed. */
                    if (leaf_sample == 0)
                        break;
                    snprintf(needle, sizeof needle, "first_leaf_brush+num_leaf_brushes %" PRIu64 " exceeds",
                             sample_brushes + 1);
                    want = needle;
                    break;
                default: break;
                }
                size_t all = problems_in(samples[leaf_sample], set_leafs, -1, "");
                size_t hits = problems_in(samples[leaf_sample], set_leafs, leaf_lumps[leaf_sample], want ? want : "");
                if (hits != (want ? 1u : 0u) || all != clean_all + hits)
                    fail_msg("sample %d case %d at leaf %d: %zu problems on LEAFS, %zu in all", leaf_sample,
                             leaf_case, leaf_at, hits, all);
            }
    }
}

static void test_intact(void **state)
{
    (void)state;
    assert_int_equal(problems_with(NULL, BSPKIT_S_GAME_LUMP, ""), 0);
    assert_int_equal(problems_with(NULL, BSPKIT_S_OVERLAYS, ""), 0);
    assert_int_equal(problems_with(NULL, BSPKIT_S_DISPINFO, ""), 0);
}

static void test_static_prop(void **state)
{
    (void)state;
    assert_int_equal(problems_with(bad_static_prop, BSPKIT_S_GAME_LUMP, "PropType 3 exceeds"), 1);
}

static void test_overlay(void **state)
{
    (void)state;
    assert_int_equal(problems_with(bad_overlay, BSPKIT_S_OVERLAYS, "face 9999 exceeds"), 1);
}

static void test_displacement(void **state)
{
    (void)state;
    assert_int_equal(problems_with(bad_displacement, BSPKIT_S_DISPINFO, "DispVertStart 1"), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_intact),
        cmocka_unit_test(test_static_prop),
        cmocka_unit_test(test_overlay),
        cmocka_unit_test(test_displacement),
        cmocka_unit_test(test_references),
        cmocka_unit_test(test_brushsides_every_position),
        cmocka_unit_test(test_leafs_every_position),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
