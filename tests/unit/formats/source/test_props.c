/* Prop game lumps: static prop layouts of several versions and record
 * sizes, detail props and detail-prop lighting, encoded by hand here in both
 * byte orders and written into maps with the builder; overrunning counts;
 * the dump tables. Field orders per layout are spelt out in this file from
 * the format documents, independently of the decoder's table. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bspkit/bspkit.h"
#include "bspkit/props.h"
#include "bspkit/write.h"
#include "core/bytes.h"
#include "core/table.h"
#include "formats/source/family.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"

/* ---- a little-/big-endian byte writer ---------------------------------- */

typedef struct enc {
    uint8_t b[4096];
    size_t n;
    bool be;
} enc;

static void put_u8(enc *e, uint8_t v) { e->b[e->n++] = v; }
static void put_u16(enc *e, uint16_t v) { wr_u16(e->b + e->n, v, e->be), e->n += 2; }
static void put_u32(enc *e, uint32_t v) { wr_u32(e->b + e->n, v, e->be), e->n += 4; }
static void put_f32(enc *e, float v) { wr_f32(e->b + e->n, v, e->be), e->n += 4; }
static void put_name(enc *e, const char *s)
{
    memset(e->b + e->n, 0, 128);
    memcpy(e->b + e->n, s, strlen(s));
    e->n += 128;
}

/* ---- maps holding one or more game lumps ------------------------------- */

typedef struct built {
    uint8_t *bytes;
    size_t size;
    bspkit_map *map;
} built;

static void build_map(built *out, const bspkit_game_lump_data *gl, size_t n, bool be)
{
    bspkit_builder *b;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_SOURCE, 20, &b, ERR));
    CHECK(bspkit_builder_set_game_lumps(b, gl, n, ERR));
    bspkit_write_options o = {0};
    o.big_endian = be;
    CHECK(bspkit_builder_write(b, &o, &out->bytes, &out->size, ERR));
    bspkit_builder_free(b);
    CHECK(bspkit_open_memory(out->bytes, out->size, NULL, &out->map, ERR));
}

static void free_map(built *m)
{
    bspkit_close(m->map);
    bspkit_free_buffer(m->bytes);
}

static void build_one(built *out, uint32_t id, uint16_t version, const enc *e)
{
    bspkit_game_lump_data gl = {id, 0, version, e->b, e->n};
    build_map(out, &gl, 1, e->be);
}

/* ---- static props -------------------------------------------------------- */

/* Parts of a record after the common 56-byte v4 part, in file order. */
enum part { FADE, DX, CPU, LIGHTMAP, DIFFUSE, SKIP4, X360, FLAGS_EX, SCALE1, SCALE3, END };

typedef struct sp_case {
    const char *layout;
    uint16_t version;
    unsigned size;
    enum part parts[10];
    int leaf_width;
    bool known;
} sp_case;

static const sp_case CASES[] = {
    {"v4", 4, 56, {END}, 2, true},
    {"v5", 5, 60, {FADE, END}, 2, true},
    {"v6", 6, 64, {FADE, DX, END}, 2, true},
    {"v7-l4d", 7, 68, {FADE, DX, DIFFUSE, END}, 2, true},
    {"sdk2013-lightmap", 7, 72, {FADE, DX, LIGHTMAP, END}, 2, true},
    {"v8", 8, 68, {FADE, CPU, DIFFUSE, END}, 2, true},
    {"v9", 9, 72, {FADE, CPU, DIFFUSE, X360, END}, 2, true},
    {"sdk2013-lightmap", 10, 72, {FADE, DX, LIGHTMAP, END}, 2, true},
    {"v10-csgo", 10, 76, {FADE, CPU, DIFFUSE, X360, FLAGS_EX, END}, 2, true},
    {"v11-csgo", 11, 80, {FADE, CPU, DIFFUSE, X360, FLAGS_EX, SCALE1, END}, 2, true},
    {"v11-blackmesa", 11, 80, {FADE, DX, LIGHTMAP, DIFFUSE, FLAGS_EX, END}, 2, true},
    {"v11-blackmesa-76", 11, 76, {FADE, DX, LIGHTMAP, DIFFUSE, END}, 2, true},
    {"v12", 12, 80, {FADE, CPU, DIFFUSE, X360, FLAGS_EX, SCALE1, END}, 4, true},
    {"v13", 13, 88, {FADE, CPU, DIFFUSE, X360, FLAGS_EX, SCALE3, END}, 4, true},
    /* 70-byte v5 records: no such layout. */
    {"unknown", 5, 70, {FADE, END}, 2, false},
};

#define NPROPS 3
#define NLEAFS 5

static bool has(const sp_case *c, enum part p)
{
    for (int i = 0; c->parts[i] != END; i++)
        if (c->parts[i] == p)
            return true;
    return false;
}

/* Prop i's values: distinct per field and per prop. */
static void encode_prop(enc *e, const sp_case *c, int i)
{
    size_t start = e->n;
    put_f32(e, 100.0f + i), put_f32(e, -200.0f), put_f32(e, 50.5f);
    put_f32(e, 1.0f), put_f32(e, 90.0f + i), put_f32(e, -3.0f);
    put_u16(e, (uint16_t)(i % 2));         /* PropType */
    put_u16(e, (uint16_t)i);               /* FirstLeaf */
    put_u16(e, 2);                         /* LeafCount */
    put_u8(e, 6);                          /* Solid */
    put_u8(e, has(c, LIGHTMAP) ? 0xEE : (uint8_t)(0x10 + i)); /* Flags, or padding */
    put_u32(e, (uint32_t)(2 + i));         /* Skin */
    put_f32(e, 100.0f), put_f32(e, 900.0f);
    put_f32(e, 1.5f), put_f32(e, 2.5f), put_f32(e, 3.5f);
    for (int k = 0; c->parts[k] != END; k++) {
        switch (c->parts[k]) {
        case FADE: put_f32(e, 0.75f); break;
        case DX: put_u16(e, 80), put_u16(e, 95); break;
        case CPU: put_u8(e, 1), put_u8(e, 2), put_u8(e, 3), put_u8(e, 4); break;
        case LIGHTMAP: put_u32(e, 0x104u + (uint32_t)i), put_u16(e, 64), put_u16(e, 128); break;
        case DIFFUSE: put_u8(e, 10), put_u8(e, 20), put_u8(e, 30), put_u8(e, 40); break;
        case SKIP4: put_u32(e, 0xDEADBEEFu); break;
        case X360: put_u8(e, 1), put_u8(e, 0), put_u8(e, 0), put_u8(e, 0); break;
        case FLAGS_EX: put_u32(e, 7u + (uint32_t)i); break;
        case SCALE1: put_f32(e, 1.25f); break;
        case SCALE3: put_f32(e, 1.0f), put_f32(e, 2.0f), put_f32(e, 3.0f); break;
        case END: break;
        }
    }
    while (e->n < start + c->size)
        put_u8(e, 0xAB);
}

static void encode_sprp(enc *e, const sp_case *c)
{
    put_u32(e, 2);
    put_name(e, "models/a.mdl");
    put_name(e, "models/props/b.mdl");
    put_u32(e, NLEAFS);
    for (int i = 0; i < NLEAFS; i++)
        c->leaf_width == 4 ? put_u32(e, 70000u + (uint32_t)i) : put_u16(e, (uint16_t)(30 + i));
    put_u32(e, NPROPS);
    for (int i = 0; i < NPROPS; i++)
        encode_prop(e, c, i);
}

static void check_prop(const sp_case *c, const bspkit_static_prop *p, int i, const uint8_t *raw)
{
    assert_true(p->origin.x == 100.0f + i && p->origin.y == -200.0f && p->origin.z == 50.5f);
    assert_true(p->angles.x == 1.0f && p->angles.y == 90.0f + i && p->angles.z == -3.0f);
    assert_int_equal(p->prop_type, i % 2);
    assert_int_equal(p->first_leaf, i);
    assert_int_equal(p->leaf_count, 2);
    assert_int_equal(p->solid, 6);
    assert_int_equal(p->skin, 2 + i);
    assert_true(p->fade_min_dist == 100.0f && p->fade_max_dist == 900.0f);
    assert_true(p->lighting_origin.x == 1.5f && p->lighting_origin.y == 2.5f && p->lighting_origin.z == 3.5f);
    assert_ptr_equal(p->raw, raw);
    if (!c->known) {
        /* Only the common part: the rest stays 0. */
        assert_int_equal(p->flags, 0x10 + i);
        assert_true(p->forced_fade_scale == 0.0f);
        return;
    }
    assert_int_equal(p->flags, has(c, LIGHTMAP) ? 0x104 + i : 0x10 + i);
    assert_true(p->forced_fade_scale == (has(c, FADE) ? 0.75f : 0.0f));
    assert_int_equal(p->min_dx_level, has(c, DX) ? 80 : 0);
    assert_int_equal(p->max_dx_level, has(c, DX) ? 95 : 0);
    assert_int_equal(p->min_cpu_level, has(c, CPU) ? 1 : 0);
    assert_int_equal(p->max_cpu_level, has(c, CPU) ? 2 : 0);
    assert_int_equal(p->min_gpu_level, has(c, CPU) ? 3 : 0);
    assert_int_equal(p->max_gpu_level, has(c, CPU) ? 4 : 0);
    assert_int_equal(p->lightmap_resolution_x, has(c, LIGHTMAP) ? 64 : 0);
    assert_int_equal(p->lightmap_resolution_y, has(c, LIGHTMAP) ? 128 : 0);
    assert_int_equal(p->diffuse_modulation[0], has(c, DIFFUSE) ? 10 : 0);
    assert_int_equal(p->diffuse_modulation[3], has(c, DIFFUSE) ? 40 : 0);
    assert_int_equal(p->disable_x360, has(c, X360));
    assert_int_equal(p->flags_ex, has(c, FLAGS_EX) ? 7 + i : 0);
    assert_true(p->uniform_scale == (has(c, SCALE1) ? 1.25f : 0.0f));
    assert_true(p->non_uniform_scale.x == (has(c, SCALE3) ? 1.0f : 0.0f));
    assert_true(p->non_uniform_scale.z == (has(c, SCALE3) ? 3.0f : 0.0f));
    assert_null(p->targetname);
}

static void run_case(const sp_case *c, bool be)
{
    enc e = {.be = be};
    encode_sprp(&e, c);
    built m;
    build_one(&m, BSPKIT_GAME_LUMP_STATIC_PROPS, c->version, &e);
    const bspkit_static_props *sp;
    CHECK(bspkit_get_static_props(m.map, &sp, ERR));
    assert_true(sp->present);
    assert_int_equal(sp->version, c->version);
    assert_string_equal(sp->layout, c->layout);
    assert_int_equal(sp->layout_known, c->known);
    /* Black Mesa's layouts name the game; layouts many games share name none. */
    const char *game = bspkit_map_game(m.map);
    if (strncmp(c->layout, "v11-blackmesa", 13) == 0)
        assert_string_equal(game, "Black Mesa");
    else
        assert_null(game);
    assert_int_equal(sp->record_size, c->size);
    assert_int_equal(sp->leaf_index_size, c->leaf_width);
    assert_int_equal(sp->dictionary_count, 2);
    assert_string_equal(sp->dictionary[1].name, "models/props/b.mdl");
    assert_int_equal(sp->leaf_count, NLEAFS);
    for (int i = 0; i < NLEAFS; i++)
        assert_int_equal(sp->leafs[i], c->leaf_width == 4 ? 70000u + (unsigned)i : 30u + (unsigned)i);
    assert_int_equal(sp->prop_count, NPROPS);
    assert_int_equal(sp->warning[0] != '\0', !c->known);
    /* Records start after three counts, two names and the leaf array. */
    size_t first = 12 + 2 * 128 + (size_t)c->leaf_width * NLEAFS;
    const uint8_t *d;
    size_t size;
    CHECK(bspkit_game_lump_bytes(m.map, 0, &d, &size, ERR));
    assert_int_equal(size, first + NPROPS * c->size);
    for (int i = 0; i < NPROPS; i++)
        check_prop(c, &sp->props[i], i, d + first + (size_t)i * c->size);
    free_map(&m);
}

static void static_prop_layouts(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof CASES / sizeof CASES[0]; k++)
        for (int be = 0; be < 2; be++)
            run_case(&CASES[k], be);
}

/* Zeno Clash's v7: a second name list before the leaf array, 68-byte records
 * of v6 plus 4 unknown bytes. */
static void zeno_clash_v7(void **state)
{
    (void)state;
    static const sp_case zc = {"v7-zeno-clash", 7, 68, {FADE, DX, SKIP4, END}, 2, true};
    for (int be = 0; be < 2; be++) {
        enc e = {.be = be};
        put_u32(&e, 2);
        put_name(&e, "models/a.mdl");
        put_name(&e, "models/props/b.mdl");
        put_u32(&e, 1);
        put_name(&e, "paths/x");
        put_u32(&e, NLEAFS);
        for (int i = 0; i < NLEAFS; i++)
            put_u16(&e, (uint16_t)(30 + i));
        put_u32(&e, NPROPS);
        size_t first = e.n;
        for (int i = 0; i < NPROPS; i++)
            encode_prop(&e, &zc, i);
        built m;
        build_one(&m, BSPKIT_GAME_LUMP_STATIC_PROPS, 7, &e);
        const bspkit_static_props *sp;
        CHECK(bspkit_get_static_props(m.map, &sp, ERR));
        assert_string_equal(sp->layout, "v7-zeno-clash");
        /* Only Zeno Clash writes this layout: the map is named after it. */
        assert_string_equal(bspkit_map_game(m.map), "Zeno Clash");
        assert_int_equal(sp->extra_name_count, 1);
        assert_string_equal(sp->extra_names[0].name, "paths/x");
        assert_int_equal(sp->leaf_count, NLEAFS);
        assert_int_equal(sp->leafs[4], 34);
        const uint8_t *d;
        size_t size;
        CHECK(bspkit_game_lump_bytes(m.map, 0, &d, &size, ERR));
        for (int i = 0; i < NPROPS; i++)
            check_prop(&zc, &sp->props[i], i, d + first + (size_t)i * 68);
        free_map(&m);
    }
}

/* Dear Esther's v9: 76-byte records in which 4 unknown bytes follow Flags,
 * so Skin sits at byte 36; then fades, a lighting origin, ForcedFadeScale at
 * 60, CPU/GPU levels at 64..67, a pad byte, DiffuseModulation at 69..72 and 3
 * pad bytes (BSPSource's DStaticPropV9DE). Every value is placed by its byte
 * position here. */
static void dear_esther_v9(void **state)
{
    (void)state;
    for (int be = 0; be < 2; be++) {
        enc e = {.be = be};
        put_u32(&e, 1);
        put_name(&e, "models/esther/rock.mdl");
        put_u32(&e, NLEAFS);
        for (int i = 0; i < NLEAFS; i++)
            put_u16(&e, (uint16_t)(40 + i));
        put_u32(&e, NPROPS);
        size_t first = e.n;
        for (int i = 0; i < NPROPS; i++) {
            uint8_t *r = e.b + e.n;
            memset(r, 0xCD, 76);
            wr_f32(r + 0, 10.0f * (float)i, e.be), wr_f32(r + 4, -5.0f, e.be), wr_f32(r + 8, 7.5f, e.be);
            wr_f32(r + 12, 0.0f, e.be), wr_f32(r + 16, 45.0f + (float)i, e.be), wr_f32(r + 20, 0.0f, e.be);
            wr_u16(r + 24, 0, e.be);                   /* PropType */
            wr_u16(r + 26, (uint16_t)i, e.be);         /* FirstLeaf */
            wr_u16(r + 28, 1, e.be);                   /* LeafCount */
            r[30] = 6;                                 /* Solid */
            r[31] = (uint8_t)(0x20 + i);               /* Flags */
            wr_u32(r + 32, 0x01020304u, e.be);         /* unknown */
            wr_u32(r + 36, (uint32_t)(3 + i), e.be);   /* Skin */
            wr_f32(r + 40, 250.0f, e.be);              /* FadeMinDist */
            wr_f32(r + 44, 1250.0f, e.be);             /* FadeMaxDist */
            wr_f32(r + 48, 1.0f, e.be), wr_f32(r + 52, 2.0f, e.be), wr_f32(r + 56, 3.0f, e.be);
            wr_f32(r + 60, 0.5f, e.be);                /* ForcedFadeScale */
            r[64] = 1, r[65] = 2, r[66] = 3, r[67] = 4; /* Min/Max CPU, Min/Max GPU */
            r[69] = 11, r[70] = 22, r[71] = 33, r[72] = 44; /* DiffuseModulation */
            e.n += 76;
        }
        built m;
        build_one(&m, BSPKIT_GAME_LUMP_STATIC_PROPS, 9, &e);
        const bspkit_static_props *sp;
        CHECK(bspkit_get_static_props(m.map, &sp, ERR));
        assert_string_equal(sp->layout, "v9-dear-esther");
        assert_true(sp->layout_known);
        assert_int_equal(sp->record_size, 76);
        assert_string_equal(bspkit_map_game(m.map), "Dear Esther");
        assert_int_equal(sp->prop_count, NPROPS);
        const uint8_t *d;
        size_t size;
        CHECK(bspkit_game_lump_bytes(m.map, 0, &d, &size, ERR));
        for (int i = 0; i < NPROPS; i++) {
            const bspkit_static_prop *p = &sp->props[i];
            assert_ptr_equal(p->raw, d + first + (size_t)i * 76);
            assert_true(p->origin.x == 10.0f * (float)i && p->origin.z == 7.5f && p->angles.y == 45.0f + (float)i);
            assert_int_equal(p->first_leaf, i);
            assert_int_equal(p->solid, 6);
            assert_int_equal(p->flags, 0x20 + i);
            assert_int_equal(p->skin, 3 + i);
            assert_true(p->fade_min_dist == 250.0f && p->fade_max_dist == 1250.0f);
            assert_true(p->lighting_origin.x == 1.0f && p->lighting_origin.z == 3.0f);
            assert_true(p->forced_fade_scale == 0.5f);
            assert_int_equal(p->min_cpu_level, 1);
            assert_int_equal(p->max_gpu_level, 4);
            assert_int_equal(p->diffuse_modulation[0], 11);
            assert_int_equal(p->diffuse_modulation[3], 44);
            assert_int_equal(p->disable_x360, 0);
        }
        free_map(&m);
    }
}

/* A lump without props names its version's layout; a map without the lump is empty. */
static void empty_and_absent(void **state)
{
    (void)state;
    enc e = {.be = false};
    put_u32(&e, 0), put_u32(&e, 0), put_u32(&e, 0);
    built m;
    build_one(&m, BSPKIT_GAME_LUMP_STATIC_PROPS, 5, &e);
    const bspkit_static_props *sp;
    CHECK(bspkit_get_static_props(m.map, &sp, ERR));
    assert_true(sp->present);
    assert_string_equal(sp->layout, "v5");
    assert_int_equal(sp->record_size, 60);
    assert_int_equal(sp->prop_count + sp->leaf_count + sp->dictionary_count, 0);
    assert_string_equal(sp->warning, "");
    const bspkit_detail_props *dp;
    CHECK(bspkit_get_detail_props(m.map, &dp, ERR));
    assert_false(dp->present);
    assert_int_equal(dp->prop_count, 0);
    const bspkit_detail_lighting *dl;
    CHECK(bspkit_get_detail_lighting(m.map, true, &dl, ERR));
    assert_false(dl->present);
    assert_int_equal(dl->count, 0);
    free_map(&m);

    build_map(&m, NULL, 0, false);
    CHECK(bspkit_get_static_props(m.map, &sp, ERR));
    assert_false(sp->present);
    assert_int_equal(sp->version, 0);
    assert_int_equal(sp->prop_count, 0);
    free_map(&m);
}

/* Counts that run past the lump: a clean error naming the count's offset. */
static void expect_error(enc *e, uint16_t version, uint32_t id, int64_t lump_offset)
{
    built m;
    build_one(&m, id, version, e);
    bspkit_error err;
    bspkit_result r;
    if (id == BSPKIT_GAME_LUMP_STATIC_PROPS) {
        const bspkit_static_props *sp;
        r = bspkit_get_static_props(m.map, &sp, &err);
        assert_null(sp);
    } else if (id == BSPKIT_GAME_LUMP_DETAIL_PROPS) {
        const bspkit_detail_props *dp;
        r = bspkit_get_detail_props(m.map, &dp, &err);
    } else {
        const bspkit_detail_lighting *dl;
        r = bspkit_get_detail_lighting(m.map, false, &dl, &err);
    }
    assert_int_equal(r, BSPKIT_ERR_GAME_LUMP);
    assert_int_equal(err.code, BSPKIT_ERR_GAME_LUMP);
    assert_int_equal(err.lump, BSPKIT_S_GAME_LUMP);
    assert_int_equal(err.lump_offset, lump_offset);
    /* Uncompressed entry: the file offset is the entry's offset plus lump_offset. */
    const bspkit_game_lump *gl;
    size_t n;
    CHECK(bspkit_get_game_lumps(m.map, &gl, &n, ERR));
    assert_int_equal(err.offset, (int64_t)gl[0].offset + lump_offset);
    free_map(&m);
}

static void overrunning_counts(void **state)
{
    (void)state;
    for (int be = 0; be < 2; be++) {
        enc e = {.be = be};
        put_u32(&e, 3); /* three names, one present */
        put_name(&e, "models/a.mdl");
        expect_error(&e, 5, BSPKIT_GAME_LUMP_STATIC_PROPS, 0);

        e.n = 0;
        put_u32(&e, 0xFFFFFFFFu); /* negative */
        put_u32(&e, 0), put_u32(&e, 0);
        expect_error(&e, 5, BSPKIT_GAME_LUMP_STATIC_PROPS, 0);

        e.n = 0;
        put_u32(&e, 0);
        put_u32(&e, 2);
        put_u16(&e, 1); /* ends inside the leaf array */
        expect_error(&e, 5, BSPKIT_GAME_LUMP_STATIC_PROPS, 4);

        e.n = 0;
        put_u32(&e, 0), put_u32(&e, 0); /* ends before the prop count */
        expect_error(&e, 5, BSPKIT_GAME_LUMP_STATIC_PROPS, 8);

        e.n = 0;
        put_u32(&e, 1);
        put_name(&e, "models/a.mdl");
        put_u32(&e, 0);
        put_u32(&e, 4); /* four props, one record */
        encode_prop(&e, &CASES[1], 0);
        expect_error(&e, 5, BSPKIT_GAME_LUMP_STATIC_PROPS, 4 + 128 + 4);

        e.n = 0;
        put_u32(&e, 0), put_u32(&e, 1);
        for (int k = 0; k < 32; k++)
            put_u8(&e, 0);
        put_u32(&e, 2); /* two detail props of 52 bytes, one present */
        for (int k = 0; k < 52; k++)
            put_u8(&e, 0);
        expect_error(&e, 4, BSPKIT_GAME_LUMP_DETAIL_PROPS, 4 + 4 + 32);

        e.n = 0;
        put_u32(&e, 3); /* three 5-byte light styles, two present */
        for (int k = 0; k < 10; k++)
            put_u8(&e, 0);
        expect_error(&e, 0, BSPKIT_GAME_LUMP_DETAIL_LIGHTING, 0);
    }
}

/* ---- detail props and lighting ------------------------------------------- */

static void encode_detail(enc *e, int i, uint8_t type)
{
    put_f32(e, 10.0f * i), put_f32(e, 20.0f), put_f32(e, -30.0f);
    put_f32(e, 0.0f), put_f32(e, 45.0f + i), put_f32(e, 5.0f);
    put_u16(e, 0);                /* DetailModel */
    put_u16(e, (uint16_t)(7 + i)); /* Leaf */
    put_u8(e, 11), put_u8(e, 22), put_u8(e, 33), put_u8(e, 0xFE); /* Lighting, exponent -2 */
    put_u32(e, (uint32_t)i);      /* LightStyles */
    put_u8(e, 1);                 /* LightStyleCount */
    put_u8(e, 200);               /* SwayAmount */
    put_u8(e, 30);                /* ShapeAngle */
    put_u8(e, 40);                /* ShapeSize */
    put_u8(e, 2);                 /* Orientation */
    put_u8(e, 0xCC), put_u8(e, 0xCC), put_u8(e, 0xCC);
    put_u8(e, type);              /* Type */
    put_u8(e, 0xCC), put_u8(e, 0xCC), put_u8(e, 0xCC);
    put_f32(e, 1.5f + i);         /* Scale */
}

static void put_style(enc *e, uint8_t r, uint8_t g, uint8_t b, uint8_t exponent, uint8_t style)
{
    put_u8(e, r), put_u8(e, g), put_u8(e, b), put_u8(e, exponent), put_u8(e, style);
}

/* A map with three game lumps. */
static void build_three(built *m, const uint32_t ids[3], const uint16_t versions[3], const enc *lumps[3])
{
    bspkit_game_lump_data gl[3];
    for (int i = 0; i < 3; i++)
        gl[i] = (bspkit_game_lump_data){ids[i], 0, versions[i], lumps[i]->b, lumps[i]->n};
    build_map(m, gl, 3, lumps[0]->be);
}

static void detail_props_and_lighting(void **state)
{
    (void)state;
    for (int be = 0; be < 2; be++) {
        enc dp_bytes = {.be = be}, lt = {.be = be}, lh = {.be = be};
        put_u32(&dp_bytes, 1);
        put_name(&dp_bytes, "models/detail/grass.mdl");
        put_u32(&dp_bytes, 1);
        const float sprite[8] = {-8, 16, 8, 0, 0.25f, 0.5f, 0.75f, 1.0f};
        for (int k = 0; k < 8; k++)
            put_f32(&dp_bytes, sprite[k]);
        put_u32(&dp_bytes, 2);
        encode_detail(&dp_bytes, 0, 0);
        encode_detail(&dp_bytes, 1, 1);
        put_u32(&lt, 2);
        for (int k = 0; k < 2; k++)
            put_style(&lt, 1, 2, 3, 4, (uint8_t)(32 + k));
        put_u32(&lh, 1);
        put_style(&lh, 9, 8, 7, 0x80, 5);
        put_u8(&lh, 0); /* one byte nobody accounts for */
        built m;
        build_three(&m,
                    (const uint32_t[3]){BSPKIT_GAME_LUMP_DETAIL_PROPS, BSPKIT_GAME_LUMP_DETAIL_LIGHTING,
                                        BSPKIT_GAME_LUMP_DETAIL_LIGHTING_HDR},
                    (const uint16_t[3]){4, 0, 0}, (const enc *[3]){&dp_bytes, &lt, &lh});
        const bspkit_detail_props *dp;
        CHECK(bspkit_get_detail_props(m.map, &dp, ERR));
        assert_true(dp->present);
        assert_int_equal(dp->version, 4);
        assert_int_equal(dp->record_size, 52);
        assert_string_equal(dp->warning, "");
        assert_int_equal(dp->model_count, 1);
        assert_string_equal(dp->models[0].name, "models/detail/grass.mdl");
        assert_int_equal(dp->sprite_count, 1);
        assert_true(dp->sprites[0].upper_left[0] == -8 && dp->sprites[0].upper_left[1] == 16);
        assert_true(dp->sprites[0].lower_right[0] == 8 && dp->sprites[0].lower_right[1] == 0);
        assert_true(dp->sprites[0].tex_upper_left[0] == 0.25f && dp->sprites[0].tex_upper_left[1] == 0.5f);
        assert_true(dp->sprites[0].tex_lower_right[0] == 0.75f && dp->sprites[0].tex_lower_right[1] == 1.0f);
        assert_int_equal(dp->prop_count, 2);
        for (int i = 0; i < 2; i++) {
            const bspkit_detail_prop *p = &dp->props[i];
            assert_true(p->origin.x == 10.0f * i && p->origin.y == 20.0f && p->origin.z == -30.0f);
            assert_true(p->angles.y == 45.0f + i && p->angles.z == 5.0f);
            assert_int_equal(p->detail_model, 0);
            assert_int_equal(p->leaf, 7 + i);
            assert_int_equal(p->lighting.r, 11);
            assert_int_equal(p->lighting.b, 33);
            assert_int_equal(p->lighting.exponent, -2);
            assert_int_equal(p->light_styles, i);
            assert_int_equal(p->light_style_count, 1);
            assert_int_equal(p->sway_amount, 200);
            assert_int_equal(p->shape_angle, 30);
            assert_int_equal(p->shape_size, 40);
            assert_int_equal(p->orientation, 2);
            assert_int_equal(p->type, i);
            assert_true(p->scale == 1.5f + i);
        }
        const bspkit_detail_lighting *dl;
        CHECK(bspkit_get_detail_lighting(m.map, false, &dl, ERR));
        assert_true(dl->present);
        assert_int_equal(dl->count, 2);
        assert_int_equal(dl->records[1].lighting.g, 2);
        assert_int_equal(dl->records[1].lighting.exponent, 4);
        assert_int_equal(dl->records[1].style, 33);
        assert_string_equal(dl->warning, "");
        CHECK(bspkit_get_detail_lighting(m.map, true, &dl, ERR));
        assert_int_equal(dl->count, 1);
        assert_int_equal(dl->records[0].lighting.r, 9);
        assert_int_equal(dl->records[0].lighting.exponent, -128);
        assert_int_equal(dl->records[0].style, 5);
        assert_string_not_equal(dl->warning, "");
        free_map(&m);
    }
}

/* Version 2 (Vampire: The Masquerade - Bloodlines): the model dictionary,
 * then the prop count and 40-byte records (DetailObjectLump_t through
 * ShapeSize); no sprite dictionary. Also the empty form: two zero counts. */
static void detail_props_v2(void **state)
{
    (void)state;
    for (int be = 0; be < 2; be++) {
        enc dp_bytes = {.be = be};
        put_u32(&dp_bytes, 1);
        put_name(&dp_bytes, "models\\scenery\\plants\\weedc\\weedc.mdl");
        put_u32(&dp_bytes, 2);
        for (int i = 0; i < 2; i++) {
            enc rec = {.be = be};
            encode_detail(&rec, i, 0);
            for (size_t k = 0; k < 40; k++) /* the first 40 bytes of the v4 record */
                put_u8(&dp_bytes, rec.b[k]);
        }
        bspkit_game_lump_data gl = {BSPKIT_GAME_LUMP_DETAIL_PROPS, 0, 2, dp_bytes.b, dp_bytes.n};
        built m;
        build_map(&m, &gl, 1, be);
        const bspkit_detail_props *dp;
        CHECK(bspkit_get_detail_props(m.map, &dp, ERR));
        assert_int_equal(dp->version, 2);
        assert_int_equal(dp->record_size, 40);
        assert_string_equal(dp->warning, "");
        assert_int_equal(dp->model_count, 1);
        assert_int_equal(dp->sprite_count, 0);
        assert_int_equal(dp->prop_count, 2);
        for (int i = 0; i < 2; i++) {
            const bspkit_detail_prop *p = &dp->props[i];
            assert_true(p->origin.x == 10.0f * i && p->origin.z == -30.0f);
            assert_int_equal(p->leaf, 7 + i);
            assert_int_equal(p->lighting.exponent, -2);
            assert_int_equal(p->light_styles, i);
            assert_int_equal(p->sway_amount, 200);
            assert_int_equal(p->shape_size, 40);
            assert_int_equal(p->orientation, 0);
            assert_int_equal(p->type, 0);
        }
        free_map(&m);

        enc empty = {.be = be};
        put_u32(&empty, 0), put_u32(&empty, 0);
        gl = (bspkit_game_lump_data){BSPKIT_GAME_LUMP_DETAIL_PROPS, 0, 2, empty.b, empty.n};
        build_map(&m, &gl, 1, be);
        CHECK(bspkit_get_detail_props(m.map, &dp, ERR));
        assert_int_equal(dp->prop_count, 0);
        assert_int_equal(dp->model_count, 0);
        assert_string_equal(dp->warning, "");
        free_map(&m);
    }
}

/* ---- dump tables --------------------------------------------------------- */

static const bspkit_field *field_named(const bspkit_table *t, const char *name)
{
    for (size_t i = 0; i < t->field_count; i++)
        if (strcmp(t->fields[i].name, name) == 0)
            return &t->fields[i];
    return NULL;
}

/* The provider's tables for game lump `id`, checked by name. */
static void ask_tables(bspkit_map *map, uint32_t id, bspkit_dump *out, const char *t0, const char *t1,
                       const char *t2)
{
    const char *want[] = {t0, t1, t2};
    size_t n = t2 ? 3 : 1;
    memset(out, 0, sizeof *out);
    CHECK(bk_tables_props(map, -1, id, out, ERR));
    assert_int_equal(out->table_count, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(out->tables[i].name, want[i]);
}

static void dump_tables(void **state)
{
    (void)state;
    enc sp_bytes = {.be = true}, dp_bytes = {.be = true}, lt = {.be = true};
    encode_sprp(&sp_bytes, &CASES[8]); /* v10-csgo */
    put_u32(&dp_bytes, 0), put_u32(&dp_bytes, 0), put_u32(&dp_bytes, 1);
    encode_detail(&dp_bytes, 1, 1);
    put_u32(&lt, 1);
    put_style(&lt, 1, 2, 3, 4, 6);
    built m;
    build_three(&m,
                (const uint32_t[3]){BSPKIT_GAME_LUMP_STATIC_PROPS, BSPKIT_GAME_LUMP_DETAIL_PROPS,
                                    BSPKIT_GAME_LUMP_DETAIL_LIGHTING_HDR},
                (const uint16_t[3]){10, 4, 0}, (const enc *[3]){&sp_bytes, &dp_bytes, &lt});
    bspkit_dump out;
    ask_tables(m.map, BSPKIT_GAME_LUMP_STATIC_PROPS, &out, "dictionary", "leafs", "props");
    assert_int_equal(out.tables[0].count, 2);
    assert_int_equal(out.tables[1].count, NLEAFS);
    assert_int_equal(out.tables[2].count, NPROPS);
    const char *names[] = {"Origin", "Angles", "PropType", "FirstLeaf", "LeafCount", "Solid", "Flags", "Skin",
                           "FadeMinDist", "FadeMaxDist", "LightingOrigin", "ForcedFadeScale", "MinDXLevel",
                           "MaxDXLevel", "MinCPULevel", "MaxCPULevel", "MinGPULevel", "MaxGPULevel",
                           "DiffuseModulation", "DisableX360", "FlagsEx", "UniformScale"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        assert_non_null(field_named(&out.tables[2], names[i]));
    /* Values through the table: prop 2's Skin and FlagsEx, leaf 4, name 0. */
    const bspkit_field *f = field_named(&out.tables[2], "Skin");
    assert_int_equal(f->type, BSPKIT_FIELD_I32);
    int32_t skin;
    memcpy(&skin, (const uint8_t *)bspkit_table_record(&out.tables[2], 2) + f->offset, sizeof skin);
    assert_int_equal(skin, 4);
    f = field_named(&out.tables[2], "FlagsEx");
    uint32_t fex;
    memcpy(&fex, (const uint8_t *)bspkit_table_record(&out.tables[2], 2) + f->offset, sizeof fex);
    assert_int_equal(fex, 9);
    uint32_t leaf;
    memcpy(&leaf, bspkit_table_record(&out.tables[1], 4), sizeof leaf);
    assert_int_equal(leaf, 34);
    assert_string_equal((const char *)bspkit_table_record(&out.tables[0], 0), "models/a.mdl");
    assert_string_equal(out.note, "");

    ask_tables(m.map, BSPKIT_GAME_LUMP_DETAIL_PROPS, &out, "models", "sprites", "props");
    assert_int_equal(out.tables[2].count, 1);
    f = field_named(&out.tables[2], "SwayAmount");
    assert_non_null(f);
    assert_int_equal(*((const uint8_t *)bspkit_table_record(&out.tables[2], 0) + f->offset), 200);

    ask_tables(m.map, BSPKIT_GAME_LUMP_DETAIL_LIGHTING_HDR, &out, "records", NULL, NULL);
    assert_int_equal(out.tables[0].count, 1);
    f = field_named(&out.tables[0], "Style");
    assert_int_equal(*((const uint8_t *)bspkit_table_record(&out.tables[0], 0) + f->offset), 6);

    /* An absent dplt gives an empty table; other ids and plain lumps are not this provider's. */
    ask_tables(m.map, BSPKIT_GAME_LUMP_DETAIL_LIGHTING, &out, "records", NULL, NULL);
    assert_int_equal(out.tables[0].count, 0);
    memset(&out, 0, sizeof out);
    assert_int_equal(bk_tables_props(m.map, -1, 0x74657374u, &out, ERR), BSPKIT_ERR_NOT_FOUND);
    assert_int_equal(bk_tables_props(m.map, BSPKIT_S_PLANES, 0, &out, ERR), BSPKIT_ERR_NOT_FOUND);
    free_map(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(static_prop_layouts), cmocka_unit_test(zeno_clash_v7),
        cmocka_unit_test(dear_esther_v9),
        cmocka_unit_test(empty_and_absent),    cmocka_unit_test(overrunning_counts),
        cmocka_unit_test(detail_props_and_lighting),
        cmocka_unit_test(detail_props_v2), cmocka_unit_test(dump_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
