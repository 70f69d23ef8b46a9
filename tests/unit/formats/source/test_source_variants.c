/* Source game variants: v18 (HL2 beta) faces, Dark Messiah, Vindictus,
 * Tactical Intervention's XOR encryption, Contagion's v27 header and the
 * Dota 2 beta (v22/v23) records. Every map here is written byte by byte from
 * the public descriptions of these layouts (BSPSource's struct readers and
 * bsp_tool's branch scripts), never through bspkit's writers; the expected
 * values are the ones written. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bspkit/bspkit.h"
#include "bspkit/displacement.h"
#include "bspkit/props.h"
#include "bspkit/source_lumps.h"
#include "bspkit/edit.h"
#include "byte_out.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a Source file: header, 64 {offset, length, version, fourCC}, revision ---- */

static out O;

enum { L_ENTITIES = 0, L_PLANES = 1, L_TEXDATA = 2, L_VERTEXES = 3, L_NODES = 5, L_TEXINFO = 6, L_FACES = 7,
       L_LEAFS = 10, L_EDGES = 12, L_SURFEDGES = 13, L_MODELS = 14, L_LEAFFACES = 16, L_BRUSHSIDES = 19,
       L_AREAPORTALS = 21, L_DISPINFO = 26, L_GAME_LUMP = 35, L_TEXDATA_STRING_DATA = 43,
       L_TEXDATA_STRING_TABLE = 44, L_OVERLAYS = 45, L_FACE_MACRO = 47 };

#define REVISION 77

/* Starts a file: ident, the version word as stored, Contagion's extra int
 * when `extra`, an empty directory and the revision. Returns where the
 * directory starts. */
static size_t header(const char *ident, uint32_t version, bool extra)
{
    memset(&O, 0, sizeof O);
    text(&O, ident, 4);
    i32(&O, version);
    if (extra)
        i32(&O, 0);
    size_t dir = O.n;
    for (int k = 0; k < 64 * 16; k++)
        u8(&O, 0);
    i32(&O, REVISION);
    return dir;
}

/* Closes lump `l` written from `start`: its directory entry, then padding. */
static void end(size_t dir, int l, size_t start, int version)
{
    size_t len = O.n - start, save = O.n;
    O.n = dir + 16 * (size_t)l;
    i32(&O, len ? (int64_t)start : 0);
    i32(&O, (int64_t)len);
    i32(&O, version);
    i32(&O, 0);
    O.n = save;
    while (O.n % 4)
        u8(&O, 0);
}

static void entities(size_t dir)
{
    size_t s = O.n;
    const char *t = "{\n\"classname\" \"worldspawn\"\n}\n";
    text(&O, t, strlen(t) + 1);
    end(dir, L_ENTITIES, s, 0);
}

static void vec(float x, float y, float z)
{
    f32(&O, x);
    f32(&O, y);
    f32(&O, z);
}

static bspkit_map *open_bytes(void)
{
    bspkit_map *map;
    CHECK(bspkit_open_memory(O.b, O.n, NULL, &map, ERR));
    return map;
}

static bspkit_result open_fails(void)
{
    bspkit_map *map = NULL;
    bspkit_result r = bspkit_open_memory(O.b, O.n, NULL, &map, ERR);
    assert_null(map);
    return r;
}

static void assert_vec(bspkit_vec3 v, float x, float y, float z)
{
    assert_float_equal(v.x, x, 0);
    assert_float_equal(v.y, y, 0);
    assert_float_equal(v.z, z, 0);
}

/* ---- v18: a small room whose faces are the 72-byte HL2 beta records ---- */

typedef struct v18_opts {
    int face_plane;      /* planenum of face 1 (1 is valid) */
    bool torn_face_lump; /* 4 stray bytes after the faces */
    int macro_entries;   /* FACE_MACRO_TEXTURE_INFO entries */
} v18_opts;

/* DFaceBSP18: avgLightColor[4] (ColorRGBExp32), then dface_t with
 * firstPrimID before m_NumPrims. */
static void face_v18(int rec, int plane, int side, int first_edge)
{
    for (int k = 0; k < 16; k++)
        u8(&O, (unsigned)(0xA0 + k)); /* average light colours: not decoded */
    i16(&O, plane);
    u8(&O, (unsigned)side);
    u8(&O, 1);                        /* onNode */
    i32(&O, first_edge);
    i16(&O, 4);                       /* numedges */
    i16(&O, 0);                       /* texinfo */
    i16(&O, -1);                      /* dispinfo */
    i16(&O, -1);                      /* surfaceFogVolumeID */
    u8(&O, 0);                        /* styles */
    u8(&O, (unsigned)(rec ? 2 : 255));
    u8(&O, 255);
    u8(&O, 255);
    i32(&O, -1);                      /* lightofs */
    f32(&O, 4096.0f + (float)rec);    /* area */
    i32(&O, -4 - rec);                /* m_LightmapTextureMinsInLuxels */
    i32(&O, -8);
    i32(&O, 15 + rec);                /* m_LightmapTextureSizeInLuxels */
    i32(&O, 16);
    i32(&O, -1);                      /* origFace */
    i16(&O, 300 + rec);               /* firstPrimID */
    i16(&O, 0);                       /* m_NumPrims */
    i32(&O, 0x10u << rec);            /* smoothingGroups */
}

static void write_v18(const v18_opts *o)
{
    size_t dir = header("VBSP", 18, false), s;
    entities(dir);
    s = O.n; /* planes: z = 0 up and down */
    vec(0, 0, 1), f32(&O, 0), i32(&O, 2);
    vec(0, 0, -1), f32(&O, 0), i32(&O, 2);
    end(dir, L_PLANES, s, 0);
    s = O.n;
    vec(0, 0, 0), vec(64, 0, 0), vec(64, 64, 0), vec(0, 64, 0);
    end(dir, L_VERTEXES, s, 0);
    s = O.n; /* edges: the unused 0, then the square */
    i16(&O, 0), i16(&O, 0), i16(&O, 0), i16(&O, 1), i16(&O, 1), i16(&O, 2), i16(&O, 2), i16(&O, 3), i16(&O, 3),
        i16(&O, 0);
    end(dir, L_EDGES, s, 0);
    s = O.n;
    i32(&O, 1), i32(&O, 2), i32(&O, 3), i32(&O, 4), i32(&O, -4), i32(&O, -3), i32(&O, -2), i32(&O, -1);
    end(dir, L_SURFEDGES, s, 0);
    s = O.n;
    text(&O, "tools/toolsnodraw", 18);
    end(dir, L_TEXDATA_STRING_DATA, s, 0);
    s = O.n;
    i32(&O, 0);
    end(dir, L_TEXDATA_STRING_TABLE, s, 0);
    s = O.n; /* dtexdata_t: reflectivity, nameStringTableID, width, height, view width, view height */
    vec(0.5f, 0.5f, 0.5f), i32(&O, 0), i32(&O, 64), i32(&O, 64), i32(&O, 64), i32(&O, 64);
    end(dir, L_TEXDATA, s, 0);
    s = O.n; /* texinfo_t: texture and lightmap vectors, flags SURF_NOLIGHT, texdata 0 */
    for (int k = 0; k < 16; k++)
        f32(&O, k == 0 || k == 5 ? 1.0f : k == 8 || k == 13 ? 0.0625f : 0.0f);
    i32(&O, 0x400), i32(&O, 0);
    end(dir, L_TEXINFO, s, 0);
    s = O.n;
    face_v18(0, 0, 0, 0);
    face_v18(1, o->face_plane, 1, 4);
    if (o->torn_face_lump)
        i32(&O, 0);
    end(dir, L_FACES, s, 0);
    s = O.n;
    for (int k = 0; k < o->macro_entries; k++)
        i16(&O, 0xFFFF);
    end(dir, L_FACE_MACRO, s, 0);
    s = O.n; /* dnode_t: plane 0, children leaf 0 and leaf 1, bounds, faces 0..1, area 0 */
    i32(&O, 0), i32(&O, -1), i32(&O, -2);
    i16(&O, 0), i16(&O, 0), i16(&O, -16), i16(&O, 64), i16(&O, 64), i16(&O, 16);
    i16(&O, 0), i16(&O, 2), i16(&O, 0), i16(&O, 0);
    end(dir, L_NODES, s, 0);
    s = O.n; /* dleaf_t version 1: one empty leaf above, one solid below */
    for (int k = 0; k < 2; k++) {
        i32(&O, k ? 1 : 0); /* contents */
        i16(&O, -1);        /* cluster */
        i16(&O, 0);         /* area:9 flags:7 */
        i16(&O, 0), i16(&O, 0), i16(&O, k ? -16 : 0), i16(&O, 64), i16(&O, 64), i16(&O, k ? 0 : 16);
        i16(&O, 0), i16(&O, 0), i16(&O, 0), i16(&O, 0); /* leaf faces, leaf brushes */
        i16(&O, -1);        /* leafWaterDataID */
        i16(&O, 0);
    }
    end(dir, L_LEAFS, s, 1);
    s = O.n; /* dmodel_t */
    vec(0, 0, -16), vec(64, 64, 16), vec(0, 0, 0), i32(&O, 0), i32(&O, 0), i32(&O, 2);
    end(dir, L_MODELS, s, 0);
}

static void test_v18_faces(void **state)
{
    (void)state;
    write_v18(&(v18_opts){1, false, 2});
    bspkit_map *map = open_bytes();
    const bspkit_format *f = bspkit_map_format(map);
    assert_int_equal(f->version, 18);
    assert_true(f->variant & BSPKIT_VARIANT_V18_FACES);
    assert_string_equal(f->name, "Source VBSP 18 (Half-Life 2 beta)");
    const bspkit_face *faces;
    size_t n;
    CHECK(bspkit_get_faces(map, &faces, &n, ERR));
    assert_int_equal(n, 2);
    for (int i = 0; i < 2; i++) {
        const bspkit_face *fc = &faces[i];
        assert_int_equal(fc->plane, (unsigned)i);
        assert_int_equal(fc->side, i);
        assert_int_equal(fc->on_node, 1);
        assert_int_equal(fc->first_edge, 4 * i);
        assert_int_equal(fc->num_edges, 4);
        assert_int_equal(fc->texinfo, 0);
        assert_int_equal(fc->dispinfo, -1);
        assert_int_equal(fc->fog_volume, -1);
        assert_int_equal(fc->styles[0], 0);
        assert_int_equal(fc->styles[1], i ? 2 : 255);
        assert_int_equal(fc->styles[2], 255);
        assert_int_equal(fc->styles[3], 255);
        assert_int_equal(fc->light_offset, -1);
        assert_float_equal(fc->area, 4096.0f + (float)i, 0);
        assert_int_equal(fc->lightmap_mins[0], -4 - i);
        assert_int_equal(fc->lightmap_mins[1], -8);
        assert_int_equal(fc->lightmap_size[0], 15 + i);
        assert_int_equal(fc->lightmap_size[1], 16);
        assert_int_equal(fc->orig_face, -1);
        assert_int_equal(fc->first_prim, 300 + i);
        assert_int_equal(fc->num_prims, 0);
        assert_int_equal(fc->smoothing_groups, 0x10u << i);
    }
    bspkit_report rep;
    CHECK(bspkit_validate(map, &rep, ERR));
    for (size_t i = 0; i < rep.count; i++)
        if (rep.problems[i].severity == BSPKIT_SEVERITY_ERROR)
            print_message("problem: %s\n", rep.problems[i].message);
    assert_int_equal(rep.errors, 0);
    bspkit_report_free(&rep);
    bspkit_close(map);
}

static void test_v18_damaged(void **state)
{
    (void)state;
    /* A face on a plane that does not exist: validation names it. */
    write_v18(&(v18_opts){9, false, 2});
    bspkit_map *map = open_bytes();
    bspkit_report rep;
    CHECK(bspkit_validate(map, &rep, ERR));
    assert_true(rep.errors >= 1);
    bspkit_report_free(&rep);
    bspkit_close(map);
    /* Four stray bytes: neither 72- nor 56-byte records. */
    write_v18(&(v18_opts){1, true, 2});
    assert_int_equal(open_fails(), BSPKIT_ERR_LUMP_SIZE);
    assert_int_equal(g_err.lump, L_FACES);
}

/* 504 bytes hold seven 72-byte or nine 56-byte faces: the macro texture
 * lump's count decides. */
static void test_v18_ambiguous_size(void **state)
{
    (void)state;
    for (int macro = 7; macro <= 9; macro += 2) {
        size_t dir = header("VBSP", 18, false), s = O.n;
        for (int k = 0; k < 504; k++)
            u8(&O, 0);
        end(dir, L_FACES, s, 0);
        s = O.n;
        for (int k = 0; k < macro; k++)
            i16(&O, 0xFFFF);
        end(dir, L_FACE_MACRO, s, 0);
        bspkit_map *map = open_bytes();
        uint64_t count;
        CHECK(bspkit_lump_record_count(map, L_FACES, &count));
        assert_int_equal(count, (uint64_t)macro);
        assert_int_equal((bspkit_map_format(map)->variant & BSPKIT_VARIANT_V18_FACES) != 0, macro == 7);
        bspkit_close(map);
    }
}

/* ---- Dark Messiah ---- */

/* Writes a Dark Messiah map: dmodel_t with an unknown int (52 bytes),
 * texinfo_t with 24 unknown bytes (96), and a game lump of 20-byte entries,
 * the unknown int before the id (`lead`, as BSPSource reads it) or after the
 * length (as bsp_tool reads it), holding one v6 sprp of 136-byte records. */
static void write_dark_messiah(bool lead, bool torn_models)
{
    size_t dir = header("VBSP", 0x40014, false), s;
    entities(dir);
    s = O.n;
    for (int m = 0; m < 2; m++) {
        vec(-1.0f - (float)m, -2, -3), vec(4, 5, 6.0f + (float)m), vec(7, 8, 9);
        i32(&O, 0x5EEDu + (unsigned)m); /* unknown */
        i32(&O, m);                     /* headnode */
        i32(&O, 10 * m);                /* firstface */
        i32(&O, 3 + m);                 /* numfaces */
    }
    if (torn_models)
        i32(&O, 0);
    end(dir, L_MODELS, s, 0);
    s = O.n;
    for (int k = 0; k < 16; k++)
        f32(&O, (float)k + 0.5f);
    for (int k = 0; k < 24; k++)
        u8(&O, 0xEE);
    i32(&O, 0x204), i32(&O, 5);
    end(dir, L_TEXINFO, s, 0);
    /* The game lump: count, one entry, then the sprp bytes. */
    s = O.n;
    size_t sprp_at = s + 4 + 20;
    i32(&O, 1);
    if (lead)
        i32(&O, 0x12345678);
    text(&O, "prps", 4); /* 'sprp' as a little-endian int */
    i16(&O, 0), i16(&O, 6);
    i32(&O, (int64_t)sprp_at);
    size_t len_at = O.n;
    i32(&O, 0);
    if (!lead)
        i32(&O, 0x12345678);
    size_t g = O.n;
    i32(&O, 1), text(&O, "models/barrel.mdl", 128); /* dictionary */
    i32(&O, 1), i16(&O, 0);                          /* leaves */
    i32(&O, 1);                                      /* props: v6 (64 bytes) + 72 unknown */
    vec(1, 2, 3), vec(0, 90, 0);
    i16(&O, 0), i16(&O, 0), i16(&O, 1), u8(&O, 6), u8(&O, 0);
    i32(&O, 2), f32(&O, 100), f32(&O, 900), vec(1, 2, 40), f32(&O, 1.5f), i16(&O, 80), i16(&O, 95);
    for (int k = 0; k < 72; k++)
        u8(&O, 0xDD);
    size_t save = O.n;
    O.n = len_at;
    i32(&O, (int64_t)(save - g));
    O.n = save;
    end(dir, L_GAME_LUMP, s, 0);
}

static void test_dark_messiah(void **state)
{
    (void)state;
    for (int lead = 0; lead < 2; lead++) {
        write_dark_messiah(lead, false);
        bspkit_map *map = open_bytes();
        const bspkit_format *f = bspkit_map_format(map);
        assert_int_equal(f->version, 20);
        assert_true(f->variant & BSPKIT_VARIANT_DARK_MESSIAH);
        assert_string_equal(f->name, "Source VBSP 20 (Dark Messiah)");
        assert_int_equal(f->revision, REVISION);
        const bspkit_model *m;
        size_t n;
        CHECK(bspkit_get_models(map, &m, &n, ERR));
        assert_int_equal(n, 2);
        for (int i = 0; i < 2; i++) {
            assert_vec(m[i].mins, -1.0f - (float)i, -2, -3);
            assert_vec(m[i].maxs, 4, 5, 6.0f + (float)i);
            assert_vec(m[i].origin, 7, 8, 9);
            assert_int_equal(m[i].headnode[0], i);
            assert_int_equal(m[i].first_face, 10 * i);
            assert_int_equal(m[i].num_faces, 3 + i);
        }
        const bspkit_texinfo *t;
        CHECK(bspkit_get_texinfo(map, &t, &n, ERR));
        assert_int_equal(n, 1);
        for (int k = 0; k < 8; k++) {
            assert_float_equal(t[0].texture_vecs[k / 4][k % 4], (float)k + 0.5f, 0);
            assert_float_equal(t[0].lightmap_vecs[k / 4][k % 4], (float)(k + 8) + 0.5f, 0);
        }
        assert_int_equal(t[0].flags, 0x204);
        assert_int_equal(t[0].texture, 5);
        const bspkit_game_lump *gl;
        CHECK(bspkit_get_game_lumps(map, &gl, &n, ERR));
        assert_int_equal(n, 1);
        assert_int_equal(gl[0].id, 0x73707270u);
        assert_int_equal(gl[0].version, 6);
        assert_int_equal(gl[0].flags, 0);
        assert_int_equal(gl[0].length, 4 + 128 + 4 + 2 + 4 + 136);
        const bspkit_static_props *sp;
        CHECK(bspkit_get_static_props(map, &sp, ERR));
        assert_string_equal(sp->layout, "v6-dark-messiah");
        assert_int_equal(sp->prop_count, 1);
        assert_string_equal(sp->dictionary[0].name, "models/barrel.mdl");
        assert_vec(sp->props[0].origin, 1, 2, 3);
        assert_int_equal(sp->props[0].min_dx_level, 80);
        assert_int_equal(sp->props[0].max_dx_level, 95);
        /* Read, never written: an edit is refused naming the game. */
        bspkit_edit *e = NULL;
        assert_int_equal(bspkit_edit_new(map, &e, ERR), BSPKIT_ERR_UNSUPPORTED);
        assert_non_null(strstr(g_err.message, "Dark Messiah"));
        bspkit_close(map);
    }
    /* Models 4 bytes short of a record. */
    write_dark_messiah(true, true);
    assert_int_equal(open_fails(), BSPKIT_ERR_LUMP_SIZE);
    assert_int_equal(g_err.lump, L_MODELS);
}

/* ---- Vindictus ---- */

/* A Vindictus map: game lump entries of 20 bytes (id, int flags, int
 * version, offset, length), FACES version 2 (76 bytes), and the int-widened
 * nodes, leafs, edges, leaf faces, brush sides and area portals. With
 * `standard_game_lump` the same records sit beside a standard game lump. */
static void write_vindictus(bool standard_game_lump)
{
    size_t dir = header("VBSP", 20, false), s;
    entities(dir);
    s = O.n;
    i32(&O, 2);
    size_t stride = standard_game_lump ? 16 : 20;
    size_t data = s + 4 + 2 * stride;
    const char *ids[2] = {"prps", "prpd"};
    for (int k = 0; k < 2; k++) {
        text(&O, ids[k], 4);
        if (standard_game_lump) {
            i16(&O, 0), i16(&O, 4 + k);
        } else {
            i32(&O, 0), i32(&O, 4 + k);
        }
        i32(&O, (int64_t)(data + 4 * (size_t)k)), i32(&O, 4);
    }
    i32(&O, 0), i32(&O, 0); /* two 4-byte bodies, not read here */
    end(dir, L_GAME_LUMP, s, 0);
    s = O.n; /* face v2, bsp_tool's order */
    i32(&O, 70000);     /* planenum */
    u8(&O, 1), u8(&O, 0), i16(&O, 0x7777);
    i32(&O, 123456), i32(&O, 40000), i32(&O, 33000), i32(&O, -1), i32(&O, 41000);
    i32(&O, 0x0BADF00D); /* the version 2 int */
    u8(&O, 0), u8(&O, 1), u8(&O, 2), u8(&O, 255);
    i32(&O, 9999), f32(&O, 12.5f), i32(&O, -7), i32(&O, -9), i32(&O, 31), i32(&O, 15), i32(&O, 88);
    i32(&O, (int64_t)0x80000000u | 5); /* m_NumPrims with the no-shadows bit */
    i32(&O, 100000), i32(&O, 6);
    end(dir, L_FACES, s, 2);
    s = O.n; /* node: 12 ints */
    i32(&O, 7), i32(&O, 70000), i32(&O, -70001);
    i32(&O, -100), i32(&O, -200), i32(&O, -300), i32(&O, 100), i32(&O, 200), i32(&O, 300);
    i32(&O, 66000), i32(&O, 12), i32(&O, 0);
    end(dir, L_NODES, s, 0);
    s = O.n; /* leaf: contents, cluster, area/flags, six int bounds, four uint32, leafWaterDataID */
    i32(&O, 1), i32(&O, 40000), i32(&O, 3 | (2 << 17));
    i32(&O, -8), i32(&O, -16), i32(&O, -24), i32(&O, 8), i32(&O, 16), i32(&O, 24);
    i32(&O, 70000), i32(&O, 3), i32(&O, 80000), i32(&O, 4), i32(&O, -1);
    end(dir, L_LEAFS, s, 1);
    s = O.n;
    i32(&O, 70000), i32(&O, 70001);
    end(dir, L_EDGES, s, 0);
    s = O.n;
    i32(&O, 90000);
    end(dir, L_LEAFFACES, s, 0);
    s = O.n; /* brush side: plane, texinfo, dispinfo, bevel as ints */
    i32(&O, 70002), i32(&O, 40001), i32(&O, -1), i32(&O, 1);
    end(dir, L_BRUSHSIDES, s, 0);
    s = O.n;
    i32(&O, 70003), i32(&O, 2), i32(&O, 70004), i32(&O, 4), i32(&O, 9);
    end(dir, L_AREAPORTALS, s, 0);
    s = O.n; /* dispinfo: bsp_tool's "3f3if2iI2i144B10I" */
    vec(-1.5f, 2.5f, -3.5f);
    i32(&O, 700), i32(&O, 800), i32(&O, 3), f32(&O, 30.0f), i32(&O, 0x7777), i32(&O, 0x21), i32(&O, 65600);
    i32(&O, 900), i32(&O, 1000);
    for (int k = 0; k < 144; k++)
        u8(&O, (unsigned)k); /* neighbours: layout not described */
    for (int k = 0; k < 10; k++)
        i32(&O, 0x2000 + k);
    end(dir, L_DISPINFO, s, 0);
    s = O.n; /* overlay: Id, TexInfo and FaceCountAndRenderOrder as ints, 64 faces, 22 floats */
    i32(&O, 42), i32(&O, 40002), i32(&O, 3 | (2 << 14));
    for (int k = 0; k < 64; k++)
        i32(&O, k < 3 ? 70000 + k : 0);
    for (int k = 0; k < 22; k++)
        f32(&O, (float)k + 0.5f);
    end(dir, L_OVERLAYS, s, 0);
}

static void test_vindictus(void **state)
{
    (void)state;
    write_vindictus(false);
    bspkit_map *map = open_bytes();
    const bspkit_format *f = bspkit_map_format(map);
    assert_true(f->variant & BSPKIT_VARIANT_VINDICTUS);
    assert_string_equal(f->name, "Source VBSP 20 (Vindictus)");
    const bspkit_game_lump *gl;
    size_t n;
    CHECK(bspkit_get_game_lumps(map, &gl, &n, ERR));
    assert_int_equal(n, 2);
    assert_int_equal(gl[0].id, 0x73707270u);
    assert_int_equal(gl[1].id, 0x64707270u);
    assert_int_equal(gl[0].version, 4);
    assert_int_equal(gl[1].version, 5);
    assert_int_equal(gl[1].length, 4);
    const bspkit_face *fc;
    CHECK(bspkit_get_faces(map, &fc, &n, ERR));
    assert_int_equal(n, 1);
    assert_int_equal(fc->plane, 70000);
    assert_int_equal(fc->side, 1);
    assert_int_equal(fc->on_node, 0);
    assert_int_equal(fc->first_edge, 123456);
    assert_int_equal(fc->num_edges, 40000);
    assert_int_equal(fc->texinfo, 33000);
    assert_int_equal(fc->dispinfo, -1);
    assert_int_equal(fc->fog_volume, 41000);
    assert_int_equal(fc->styles[0], 0);
    assert_int_equal(fc->styles[1], 1);
    assert_int_equal(fc->styles[2], 2);
    assert_int_equal(fc->styles[3], 255);
    assert_int_equal(fc->light_offset, 9999);
    assert_float_equal(fc->area, 12.5f, 0);
    assert_int_equal(fc->lightmap_mins[0], -7);
    assert_int_equal(fc->lightmap_mins[1], -9);
    assert_int_equal(fc->lightmap_size[0], 31);
    assert_int_equal(fc->lightmap_size[1], 15);
    assert_int_equal(fc->orig_face, 88);
    assert_int_equal(fc->num_prims, 5);
    assert_int_equal(fc->first_prim, 100000);
    assert_int_equal(fc->smoothing_groups, 6);
    const bspkit_node *nd;
    CHECK(bspkit_get_nodes(map, &nd, &n, ERR));
    assert_int_equal(n, 1);
    assert_int_equal(nd->plane, 7);
    assert_int_equal(nd->children[0], 70000);
    assert_int_equal(nd->children[1], -70001);
    assert_vec(nd->mins, -100, -200, -300);
    assert_vec(nd->maxs, 100, 200, 300);
    assert_int_equal(nd->first_face, 66000);
    assert_int_equal(nd->num_faces, 12);
    const bspkit_leaf *lf;
    CHECK(bspkit_get_leafs(map, &lf, &n, ERR));
    assert_int_equal(n, 1);
    assert_int_equal(lf->contents, 1);
    assert_int_equal(lf->cluster, 40000);
    assert_int_equal(lf->area, 3);
    assert_int_equal(lf->flags, 2);
    assert_vec(lf->mins, -8, -16, -24);
    assert_vec(lf->maxs, 8, 16, 24);
    assert_int_equal(lf->first_leaf_face, 70000);
    assert_int_equal(lf->num_leaf_faces, 3);
    assert_int_equal(lf->first_leaf_brush, 80000);
    assert_int_equal(lf->num_leaf_brushes, 4);
    assert_int_equal(lf->leaf_water, -1);
    const bspkit_edge *ed;
    CHECK(bspkit_get_edges(map, &ed, &n, ERR));
    assert_int_equal(n, 1);
    assert_int_equal(ed->v[0], 70000);
    assert_int_equal(ed->v[1], 70001);
    const uint32_t *lfaces;
    CHECK(bspkit_get_leaf_faces(map, &lfaces, &n, ERR));
    assert_int_equal(n, 1);
    assert_int_equal(lfaces[0], 90000);
    const bspkit_brushside *bs;
    CHECK(bspkit_get_brushsides(map, &bs, &n, ERR));
    assert_int_equal(n, 1);
    assert_int_equal(bs->plane, 70002);
    assert_int_equal(bs->texinfo, 40001);
    assert_int_equal(bs->dispinfo, -1);
    assert_int_equal(bs->bevel, 1);
    const bspkit_areaportal *ap;
    CHECK(bspkit_get_areaportals(map, &ap, &n, ERR));
    assert_int_equal(n, 1);
    assert_int_equal(ap->portal_key, 70003);
    assert_int_equal(ap->other_area, 2);
    assert_int_equal(ap->first_clip_vert, 70004);
    assert_int_equal(ap->num_clip_verts, 4);
    assert_int_equal(ap->plane, 9);
    const bspkit_dispinfo *di;
    CHECK(bspkit_get_dispinfo(map, &di, &n, ERR));
    assert_int_equal(n, 1);
    assert_vec(di->start_position, -1.5f, 2.5f, -3.5f);
    assert_int_equal(di->disp_vert_start, 700);
    assert_int_equal(di->disp_tri_start, 800);
    assert_int_equal(di->power, 3);
    assert_float_equal(di->smoothing_angle, 30.0f, 0);
    assert_int_equal(di->min_tess, 0);
    assert_int_equal(di->contents, 0x21);
    assert_int_equal(di->map_face, 65600);
    assert_int_equal(di->lightmap_alpha_start, 900);
    assert_int_equal(di->lightmap_sample_position_start, 1000);
    for (int e = 0; e < 4; e++) {
        assert_int_equal(di->edge_neighbor[e][0], -1);
        assert_int_equal(di->edge_neighbor[e][1], -1);
        assert_int_equal(di->edge_neighbor_orientation[e][1], 0);
        assert_int_equal(di->corner_neighbors[e][3], -1);
        assert_int_equal(di->corner_neighbor_count[e], 0);
    }
    for (int k = 0; k < 10; k++)
        assert_int_equal(di->allowed_verts[k], 0x2000 + k);
    const bspkit_overlay *ov;
    CHECK(bspkit_get_overlays(map, &ov, &n, ERR));
    assert_int_equal(n, 1);
    assert_int_equal(ov->id, 42);
    assert_int_equal(ov->texinfo, 40002);
    assert_int_equal(ov->face_count, 3);
    assert_int_equal(ov->render_order, 2);
    assert_int_equal(ov->faces[2], 70002);
    assert_float_equal(ov->u[0], 0.5f, 0);
    assert_vec(ov->basis_normal, 19.5f, 20.5f, 21.5f);
    /* Engine-limit rows count records by their size in this file (one
     * 8-byte edge, one 48-byte node, one 56-byte leaf), and give memory as
     * the count times the engine's struct (vbspinfo's column). */
    bspkit_limit_usage rows[64];
    size_t nrows = 0;
    assert_int_equal(bspkit_limits(map, rows, 64, &nrows), BSPKIT_OK);
    int seen = 0;
    for (size_t i = 0; i < nrows && i < 64; i++) {
        if (strcmp(rows[i].name, "edges") == 0 || strcmp(rows[i].name, "nodes") == 0 ||
            strcmp(rows[i].name, "leaves") == 0) {
            assert_int_equal(rows[i].count, 1);
            seen++;
        }
        if (strcmp(rows[i].name, "edges") == 0)
            assert_int_equal(rows[i].bytes, 4);
    }
    assert_int_equal(seen, 3);
    bspkit_close(map);

    /* The same records beside a standard game lump: not Vindictus, so the
     * first lump checked, the 48-byte nodes, is no multiple of dnode_t's 32
     * bytes. */
    write_vindictus(true);
    assert_int_equal(open_fails(), BSPKIT_ERR_LUMP_SIZE);
    assert_int_equal(g_err.lump, L_NODES);
}

/* ---- Tactical Intervention: the whole file XORed with a 32-byte key ---- */

static void write_plain_v21(void)
{
    size_t dir = header("VBSP", 21, false), s;
    entities(dir);
    s = O.n;
    vec(0, 1, 0), f32(&O, 48.0f), i32(&O, 1);
    end(dir, L_PLANES, s, 0);
}

static void test_xor_encrypted(void **state)
{
    (void)state;
    write_plain_v21();
    for (int k = 0; k < 32; k++) /* the plain file's zero bytes where the key will show */
        assert_int_equal(O.b[384 + k], 0);
    const char *key = "Key(32 bytes) of an encoded map!";
    size_t size = O.n;
    uint8_t *enc = malloc(size);
    assert_non_null(enc);
    for (size_t i = 0; i < size; i++)
        enc[i] = O.b[i] ^ (uint8_t)key[i % 32];
    uint8_t *copy = malloc(size);
    assert_non_null(copy);
    memcpy(copy, enc, size);

    bspkit_format det;
    CHECK(bspkit_detect(enc, size, &det, ERR));
    assert_true(det.variant & BSPKIT_VARIANT_XOR_ENCRYPTED);
    assert_int_equal(det.version, 21);
    assert_string_equal(det.name, "Source VBSP 21 (Tactical Intervention)");

    bspkit_map *map;
    CHECK(bspkit_open_memory(enc, size, NULL, &map, ERR));
    const uint8_t *d;
    size_t n;
    CHECK(bspkit_lump_bytes(map, L_ENTITIES, &d, &n, ERR));
    assert_true(n > 0 && d[0] == '{');
    const bspkit_plane *p;
    CHECK(bspkit_get_planes(map, &p, &n, ERR));
    assert_int_equal(n, 1);
    assert_vec(p->normal, 0, 1, 0);
    assert_float_equal(p->dist, 48.0f, 0);
    assert_int_equal(p->type, 1);
    assert_int_equal(bspkit_map_format(map)->revision, REVISION);
    bspkit_close(map);
    assert_memory_equal(enc, copy, size); /* borrowed input left as it was */

    /* One key byte changed: the ident no longer decodes. */
    enc[384] ^= 0x01;
    assert_int_not_equal(bspkit_detect(enc, size, &det, ERR), BSPKIT_OK);
    free(enc);
    free(copy);
}

/* ---- Contagion: v27 with an int between the version and the directory ---- */

static void test_contagion(void **state)
{
    (void)state;
    for (int extra = 0; extra < 2; extra++) {
        size_t dir = header("VBSP", 27, extra), s;
        entities(dir);
        s = O.n;
        vec(1, 0, 0), f32(&O, -8.0f), i32(&O, 0);
        vec(0, 0, 1), f32(&O, 16.0f), i32(&O, 2);
        end(dir, L_PLANES, s, 0);
        bspkit_map *map = open_bytes();
        const bspkit_format *f = bspkit_map_format(map);
        assert_int_equal((f->variant & BSPKIT_VARIANT_CONTAGION) != 0, extra);
        assert_string_equal(f->name, extra ? "Source VBSP 27 (Contagion)" : "Source VBSP 27");
        assert_int_equal(f->revision, REVISION);
        const bspkit_plane *p;
        size_t n;
        CHECK(bspkit_get_planes(map, &p, &n, ERR));
        assert_int_equal(n, 2);
        assert_vec(p[1].normal, 0, 0, 1);
        assert_float_equal(p[1].dist, 16.0f, 0);
        assert_int_equal(p[1].type, 2);
        bspkit_close(map);
    }
}

/* ---- Dota 2 betas: ddispinfo_t with one (v22) or two (v23) more ints ---- */

static void dispinfo_dota(int version)
{
    vec(1.5f, 2.5f, 3.5f);
    i32(&O, 100), i32(&O, 200), i32(&O, 3), i32(&O, 4), f32(&O, 45.0f), i32(&O, 0x20);
    if (version == 23)
        i32(&O, 0x7EADBEEF);
    i16(&O, 17), i16(&O, 0);
    i32(&O, 300), i32(&O, 400);
    i32(&O, 0x6EADBEEF);
    for (int e = 0; e < 4; e++) /* CDispNeighbor: two CDispSubNeighbor {index, orientation, span, neighbour span, pad} */
        for (int k = 0; k < 2; k++) {
            i16(&O, e == 1 && k == 0 ? 9 : 0xFFFF);
            u8(&O, (unsigned)e), u8(&O, 1), u8(&O, 2), u8(&O, 0);
        }
    for (int c = 0; c < 4; c++) { /* CDispCornerNeighbors {index[4], count, pad} */
        for (int k = 0; k < 4; k++)
            i16(&O, c == 2 && k == 0 ? 11 : 0xFFFF);
        u8(&O, c == 2 ? 1 : 0), u8(&O, 0);
    }
    for (int k = 0; k < 10; k++)
        i32(&O, 0x1000 + k);
}

static void test_dota2_beta(void **state)
{
    (void)state;
    for (int version = 22; version <= 23; version++) {
        size_t dir = header("VBSP", (uint32_t)version, false), s;
        entities(dir);
        s = O.n;
        dispinfo_dota(version);
        end(dir, L_DISPINFO, s, 0);
        bspkit_map *map = open_bytes();
        const bspkit_format *f = bspkit_map_format(map);
        assert_true(f->variant & BSPKIT_VARIANT_DOTA2_BETA);
        char want[40];
        snprintf(want, sizeof want, "Source VBSP %d (Dota 2 beta)", version);
        assert_string_equal(f->name, want);
        const bspkit_dispinfo *di;
        size_t n;
        CHECK(bspkit_get_dispinfo(map, &di, &n, ERR));
        assert_int_equal(n, 1);
        assert_vec(di->start_position, 1.5f, 2.5f, 3.5f);
        assert_int_equal(di->disp_vert_start, 100);
        assert_int_equal(di->disp_tri_start, 200);
        assert_int_equal(di->power, 3);
        assert_int_equal(di->min_tess, 4);
        assert_float_equal(di->smoothing_angle, 45.0f, 0);
        assert_int_equal(di->contents, 0x20);
        assert_int_equal(di->map_face, 17);
        assert_int_equal(di->lightmap_alpha_start, 300);
        assert_int_equal(di->lightmap_sample_position_start, 400);
        assert_int_equal(di->edge_neighbor[1][0], 9);
        assert_int_equal(di->edge_neighbor[0][0], -1);
        assert_int_equal(di->edge_neighbor_orientation[3][1], 3);
        assert_int_equal(di->corner_neighbors[2][0], 11);
        assert_int_equal(di->corner_neighbor_count[2], 1);
        for (int k = 0; k < 10; k++)
            assert_int_equal(di->allowed_verts[k], 0x1000 + k);
        bspkit_close(map);
        /* A standard 176-byte record is no multiple of the beta's. */
        dir = header("VBSP", (uint32_t)version, false);
        s = O.n;
        for (int k = 0; k < 176; k++)
            u8(&O, 0);
        end(dir, L_DISPINFO, s, 0);
        assert_int_equal(open_fails(), BSPKIT_ERR_LUMP_SIZE);
    }
}

/* Dota 2's v23 doverlay_t: the standard record and one more int. */
static void test_dota2_overlay(void **state)
{
    (void)state;
    for (int torn = 0; torn < 2; torn++) {
        size_t dir = header("VBSP", 23, false), s;
        entities(dir);
        s = O.n;
        for (int r = 0; r < 2; r++) {
            i32(&O, 500 + r);                  /* Id */
            i16(&O, r ? -1 : 3);               /* TexInfo */
            i16(&O, (2 + r) | (r ? 1 << 14 : 0)); /* FaceCountAndRenderOrder */
            for (int k = 0; k < 64; k++)
                i32(&O, k < 2 + r ? 40 * r + k : 0);
            for (int k = 0; k < 22; k++)       /* U, V, UVPoints, Origin, BasisNormal */
                f32(&O, (float)(r * 100 + k) + 0.25f);
            i32(&O, 0x0DD0 + r);               /* the v23 int */
        }
        if (torn)
            i16(&O, 0);
        end(dir, L_OVERLAYS, s, 0);
        bspkit_map *map = open_bytes();
        const bspkit_overlay *ov;
        size_t n;
        if (torn) {
            /* 714 bytes: no whole number of 356-byte records. */
            assert_int_not_equal(bspkit_get_overlays(map, &ov, &n, ERR), BSPKIT_OK);
            bspkit_close(map);
            continue;
        }
        CHECK(bspkit_get_overlays(map, &ov, &n, ERR));
        assert_int_equal(n, 2);
        for (int r = 0; r < 2; r++) {
            assert_int_equal(ov[r].id, 500 + r);
            assert_int_equal(ov[r].texinfo, r ? -1 : 3);
            assert_int_equal(ov[r].face_count, 2 + r);
            assert_int_equal(ov[r].render_order, r);
            for (int k = 0; k < 2 + r; k++)
                assert_int_equal(ov[r].faces[k], 40 * r + k);
            assert_float_equal(ov[r].u[0], (float)(r * 100) + 0.25f, 0);
            assert_float_equal(ov[r].v[1], (float)(r * 100 + 3) + 0.25f, 0);
            assert_vec(ov[r].uv_points[3], (float)(r * 100 + 13) + 0.25f, (float)(r * 100 + 14) + 0.25f,
                       (float)(r * 100 + 15) + 0.25f);
            assert_vec(ov[r].origin, (float)(r * 100 + 16) + 0.25f, (float)(r * 100 + 17) + 0.25f,
                       (float)(r * 100 + 18) + 0.25f);
            assert_vec(ov[r].basis_normal, (float)(r * 100 + 19) + 0.25f, (float)(r * 100 + 20) + 0.25f,
                       (float)(r * 100 + 21) + 0.25f);
        }
        bspkit_close(map);
    }
}

/* An encrypted map opened from a file (mapped, then decrypted into a copy). */
static void test_xor_encrypted_file(void **state)
{
    (void)state;
    write_plain_v21();
    const char *key = "0123456789abcdefghijklmnopqrstuv";
    for (size_t i = 0; i < O.n; i++)
        O.b[i] ^= (uint8_t)key[i % 32];
    char path[] = "/tmp/bspkit_xor_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *fp = fdopen(fd, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(O.b, 1, O.n, fp), O.n);
    fclose(fp);
    for (int nommap = 0; nommap < 2; nommap++) {
        bspkit_options opts = {0};
        opts.flags = nommap ? BSPKIT_OPEN_NO_MMAP : 0;
        bspkit_map *map;
        CHECK(bspkit_open_file(path, &opts, &map, ERR));
        assert_true(bspkit_map_format(map)->variant & BSPKIT_VARIANT_XOR_ENCRYPTED);
        const bspkit_plane *p;
        size_t n;
        CHECK(bspkit_get_planes(map, &p, &n, ERR));
        assert_int_equal(n, 1);
        assert_float_equal(p->dist, 48.0f, 0);
        bspkit_close(map);
    }
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v18_faces),      cmocka_unit_test(test_v18_damaged),
        cmocka_unit_test(test_v18_ambiguous_size), cmocka_unit_test(test_dark_messiah),
        cmocka_unit_test(test_vindictus),      cmocka_unit_test(test_xor_encrypted),
        cmocka_unit_test(test_contagion),      cmocka_unit_test(test_dota2_beta),
        cmocka_unit_test(test_dota2_overlay),  cmocka_unit_test(test_xor_encrypted_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
