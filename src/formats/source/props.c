/* Source prop game lumps: static props (sprp), detail props (dprp) and
 * detail-prop lighting (dplt, dplh). Static prop layouts share version
 * numbers between engine branches, so a layout is accepted only when the
 * version, the bytes per record and the lump's structure all agree (see
 * bspkit/props.h for the table). */
#include "bspkit/props.h"
#include "core/map.h"
#include "formats/source/family.h"
#include "core/table.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* One game lump being decoded                                               */
/* ------------------------------------------------------------------------ */

typedef struct gl_ctx {
    char id[5];
    const uint8_t *d;
    size_t size;
    bool be;
    int64_t file_base; /* file offset of byte 0, or -1 when the entry is compressed */
} gl_ctx;

static bspkit_result gl_error(const gl_ctx *c, bspkit_error *err, uint64_t pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bspkit_result gl_error(const gl_ctx *c, bspkit_error *err, uint64_t pos, const char *fmt, ...)
{
    char msg[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return bk_fail(err, BSPKIT_ERR_GAME_LUMP, BSPKIT_S_GAME_LUMP, c->file_base < 0 ? -1 : c->file_base + (int64_t)pos,
                   (int64_t)pos, "game lump %s: %s (offset %llu of %zu bytes)", c->id, msg, (unsigned long long)pos,
                   c->size);
}

/* Finds game lump `id` and its (decompressed) bytes; *present is false when
 * the map has none, which is not an error. */
static bspkit_result gl_open(bspkit_map *map, uint32_t id, gl_ctx *c, bool *present, int32_t *version,
                             bspkit_error *err)
{
    memset(c, 0, sizeof *c);
    *present = false;
    *version = 0;
    if (map->format.family != BSPKIT_FAMILY_SOURCE)
        return BSPKIT_OK;
    const bspkit_game_lump *gl;
    size_t n;
    bspkit_result r = bspkit_get_game_lumps(map, &gl, &n, err);
    if (r != BSPKIT_OK)
        return r;
    int index = bk_game_lump_find(map, id);
    if (index < 0)
        return BSPKIT_OK;
    r = bspkit_game_lump_bytes(map, (size_t)index, &c->d, &c->size, err);
    if (r != BSPKIT_OK)
        return r;
    for (int i = 0; i < 4; i++)
        c->id[i] = (char)(id >> (24 - 8 * i));
    c->be = map->format.big_endian;
    c->file_base = gl[index].compressed ? -1 : (int64_t)gl[index].offset;
    *present = true;
    *version = gl[index].version;
    return BSPKIT_OK;
}

/* Reads the int32 count at *pos and checks that count records of at least
 * `elem` bytes follow; leaves *pos after the count. */
static bspkit_result read_count(const gl_ctx *c, uint64_t *pos, uint64_t elem, const char *what, size_t *count,
                                bspkit_error *err)
{
    if (!range_ok(*pos, 4, c->size))
        return gl_error(c, err, *pos, "the lump ends before the %s count", what);
    int32_t n = rd_i32(c->d + *pos, c->be);
    uint64_t avail = c->size - *pos - 4;
    if (n < 0 || (elem && (uint64_t)n > avail / elem))
        return gl_error(c, err, *pos, "%s count %d needs %llu bytes but %llu remain", what, (int)n,
                        (unsigned long long)((uint64_t)(n < 0 ? 0 : n) * elem), (unsigned long long)avail);
    *pos += 4;
    *count = (size_t)n;
    return BSPKIT_OK;
}

/* Copies `n` 128-byte names into NUL-terminated slots. */
static bspkit_prop_name *read_names(bspkit_map *map, const uint8_t *src, size_t n, bspkit_error *err)
{
    bspkit_prop_name *names = bk_keep_alloc(map, n, sizeof *names, BSPKIT_S_GAME_LUMP, err);
    if (names)
        for (size_t i = 0; i < n; i++)
            memcpy(names[i].name, src + 128 * i, 128);
    return names;
}

/* ------------------------------------------------------------------------ */
/* Static prop layouts                                                       */
/* ------------------------------------------------------------------------ */

/* Field groups in the order they follow the common 56-byte v4 part. */
enum {
    F_FADE_SCALE = 1u << 0, /* float ForcedFadeScale */
    F_DX = 1u << 1,         /* uint16 Min/MaxDXLevel */
    F_CPU_GPU = 1u << 2,    /* uint8 Min/Max CPU, Min/Max GPU level */
    F_LIGHTMAP = 1u << 3,   /* uint32 Flags, uint16 LightmapResolutionX/Y */
    F_DIFFUSE = 1u << 4,    /* color32 DiffuseModulation */
    F_SKIP4 = 1u << 5,      /* 4 unknown bytes (Zeno Clash) */
    F_X360 = 1u << 6,       /* bool DisableX360 + 3 padding */
    F_FLAGS_EX = 1u << 7,   /* uint32 FlagsEx */
    F_SCALE1 = 1u << 8,     /* float UniformScale */
    F_SCALE3 = 1u << 9,     /* Vector NonUniformScale */
    F_NAME = 1u << 10,      /* char targetname[128] */
    F_SKIP72 = 1u << 11,    /* 72 unknown bytes (Dark Messiah) */
    F_GAP32 = 1u << 12,     /* 4 unknown bytes between Flags and Skin move the rest of the v4 part (Dear Esther) */
    F_PAD1 = 1u << 13       /* 1 padding byte (Dear Esther, before DiffuseModulation) */
};

/* How the lump around the records is built. */
enum { S_STD, S_ZENO, S_VINDICTUS };

typedef struct sp_layout {
    const char *name;
    int version;
    uint32_t size;
    unsigned fields;
    int structure;
} sp_layout;

#define CSGO10 (F_FADE_SCALE | F_CPU_GPU | F_DIFFUSE | F_X360 | F_FLAGS_EX)
#define LIGHTMAP (F_FADE_SCALE | F_DX | F_LIGHTMAP)

static const sp_layout SP_LAYOUTS[] = {
    {"v4", 4, 56, 0, S_STD},
    {"v5", 5, 60, F_FADE_SCALE, S_STD},
    {"v6", 6, 64, F_FADE_SCALE | F_DX, S_STD},
    {"v7-l4d", 7, 68, F_FADE_SCALE | F_DX | F_DIFFUSE, S_STD},
    {"v8", 8, 68, F_FADE_SCALE | F_CPU_GPU | F_DIFFUSE, S_STD},
    {"v9", 9, 72, F_FADE_SCALE | F_CPU_GPU | F_DIFFUSE | F_X360, S_STD},
    {"v10-csgo", 10, 76, CSGO10, S_STD},
    {"v11-csgo", 11, 80, CSGO10 | F_SCALE1, S_STD},
    {"v12", 12, 80, CSGO10 | F_SCALE1, S_STD},
    {"v13", 13, 88, CSGO10 | F_SCALE3, S_STD},
    {"sdk2013-lightmap", 7, 72, LIGHTMAP, S_STD},
    {"sdk2013-lightmap", 10, 72, LIGHTMAP, S_STD},
    {"v11-blackmesa-76", 11, 76, LIGHTMAP | F_DIFFUSE, S_STD},
    {"v11-blackmesa", 11, 80, LIGHTMAP | F_DIFFUSE | F_FLAGS_EX, S_STD},
    {"v7-zeno-clash", 7, 68, F_FADE_SCALE | F_DX | F_SKIP4, S_ZENO},
    {"v5-the-ship", 5, 188, F_FADE_SCALE | F_NAME, S_STD},
    {"v6-bgt", 6, 192, F_FADE_SCALE | F_DX | F_NAME, S_STD},
    {"v6-dark-messiah", 6, 136, F_FADE_SCALE | F_DX | F_SKIP72, S_STD},
    /* Dear Esther, as BSPSource reads it: 76 bytes, DiffuseModulation at
     * byte 69 and 3 bytes of padding after it. */
    {"v9-dear-esther", 9, 76, F_GAP32 | F_FADE_SCALE | F_CPU_GPU | F_PAD1 | F_DIFFUSE, S_STD},
    {"v6-vindictus", 6, 60, F_FADE_SCALE, S_VINDICTUS},
    {"v7-vindictus", 7, 64, F_FADE_SCALE | F_DX, S_VINDICTUS},
};

/* The layout used for the common v4 part of unknown records. */
static const sp_layout SP_UNKNOWN = {"unknown", 0, 56, 0, S_STD};

static const sp_layout *find_layout(const char *name)
{
    for (size_t i = 0; i < BK_COUNT_OF(SP_LAYOUTS); i++)
        if (strcmp(SP_LAYOUTS[i].name, name) == 0)
            return &SP_LAYOUTS[i];
    return NULL;
}

/* CS:GO keeps a float UniformScale at byte 76 of an 80-byte v11 record where
 * Black Mesa keeps its FlagsEx word: small integers everywhere mean Black Mesa. */
static bool looks_blackmesa(const uint8_t *recs, size_t n, bool be)
{
    for (size_t i = 0; i < n; i++)
        if (rd_u32(recs + 80 * i + 76, be) >= (1u << 24))
            return false;
    return true;
}

static const sp_layout *match_layout(int version, uint32_t size, int structure, const uint8_t *recs, size_t n,
                                     bool be)
{
    if (version == 11 && size == 80 && structure == S_STD)
        return find_layout(looks_blackmesa(recs, n, be) ? "v11-blackmesa" : "v11-csgo");
    for (size_t i = 0; i < BK_COUNT_OF(SP_LAYOUTS); i++) {
        const sp_layout *l = &SP_LAYOUTS[i];
        if (l->version == version && l->size == size && l->structure == structure)
            return l;
    }
    return NULL;
}

/* The layout named when a lump has no props: the first standard one of its
 * version; v10 before VBSP 21 is Source 2013's. */
static const sp_layout *default_layout(int version, int bsp_version)
{
    if (version == 10 && bsp_version < 21)
        return find_layout("sdk2013-lightmap");
    for (size_t i = 0; i < BK_COUNT_OF(SP_LAYOUTS); i++)
        if (SP_LAYOUTS[i].version == version && SP_LAYOUTS[i].structure == S_STD)
            return &SP_LAYOUTS[i];
    return NULL;
}

/* Where each part of an sprp lump lies under one structural reading. */
typedef struct sp_parse {
    uint32_t leaf_width;
    int structure;
    uint64_t dict_pos, extra_pos, leaf_pos, scale_pos, props_pos;
    size_t dict_n, extra_n, leaf_n, scale_n, prop_n;
    uint64_t rem; /* bytes after the prop count */
} sp_parse;

static bspkit_result sp_structure(const gl_ctx *c, uint32_t leaf_width, int structure, sp_parse *p,
                                  bspkit_error *err)
{
    memset(p, 0, sizeof *p);
    p->leaf_width = leaf_width;
    p->structure = structure;
    uint64_t pos = 0;
    bspkit_result r = read_count(c, &pos, 128, "dictionary", &p->dict_n, err);
    if (r != BSPKIT_OK)
        return r;
    p->dict_pos = pos;
    pos += 128ull * p->dict_n;
    if (structure == S_ZENO) {
        if ((r = read_count(c, &pos, 128, "model path", &p->extra_n, err)) != BSPKIT_OK)
            return r;
        p->extra_pos = pos;
        pos += 128ull * p->extra_n;
    }
    if ((r = read_count(c, &pos, leaf_width, "leaf", &p->leaf_n, err)) != BSPKIT_OK)
        return r;
    p->leaf_pos = pos;
    pos += (uint64_t)leaf_width * p->leaf_n;
    if (structure == S_VINDICTUS) {
        if ((r = read_count(c, &pos, 16, "scaling", &p->scale_n, err)) != BSPKIT_OK)
            return r;
        p->scale_pos = pos;
        pos += 16ull * p->scale_n;
    }
    /* Every layout is at least the 56-byte v4 record. */
    if ((r = read_count(c, &pos, 56, "prop", &p->prop_n, err)) != BSPKIT_OK)
        return r;
    p->props_pos = pos;
    p->rem = c->size - pos;
    return BSPKIT_OK;
}

/* Decodes one record of layout `l`; fields it lacks stay 0. */
static void decode_static_prop(const uint8_t *s, const sp_layout *l, bool be, bspkit_static_prop *o,
                               bspkit_prop_name *name_slot)
{
    bk_rd_vec3(s, be, &o->origin);
    bk_rd_vec3(s + 12, be, &o->angles);
    o->prop_type = rd_u16(s + 24, be);
    o->first_leaf = rd_u16(s + 26, be);
    o->leaf_count = rd_u16(s + 28, be);
    o->solid = s[30];
    o->flags = s[31];
    unsigned f = l->fields;
    const uint8_t *t = s + ((f & F_GAP32) ? 4 : 0); /* Skin and what follows it */
    o->skin = rd_i32(t + 32, be);
    o->fade_min_dist = rd_f32(t + 36, be);
    o->fade_max_dist = rd_f32(t + 40, be);
    bk_rd_vec3(t + 44, be, &o->lighting_origin);
    o->raw = s;
    const uint8_t *p = t + 56;
    if (f & F_FADE_SCALE) {
        o->forced_fade_scale = rd_f32(p, be);
        p += 4;
    }
    if (f & F_DX) {
        o->min_dx_level = rd_u16(p, be);
        o->max_dx_level = rd_u16(p + 2, be);
        p += 4;
    }
    if (f & F_CPU_GPU) {
        o->min_cpu_level = p[0];
        o->max_cpu_level = p[1];
        o->min_gpu_level = p[2];
        o->max_gpu_level = p[3];
        p += 4;
    }
    if (f & F_LIGHTMAP) {
        /* These layouts dropped the flags byte (offset 31 is padding) for a 32-bit word. */
        o->flags = rd_u32(p, be);
        o->lightmap_resolution_x = rd_u16(p + 4, be);
        o->lightmap_resolution_y = rd_u16(p + 6, be);
        p += 8;
    }
    if (f & F_PAD1)
        p += 1;
    if (f & F_DIFFUSE) {
        memcpy(o->diffuse_modulation, p, 4);
        p += 4;
    }
    if (f & F_SKIP4)
        p += 4;
    if (f & F_X360) {
        o->disable_x360 = p[0] != 0;
        p += 4;
    }
    if (f & F_FLAGS_EX) {
        o->flags_ex = rd_u32(p, be);
        p += 4;
    }
    if (f & F_SCALE1) {
        o->uniform_scale = rd_f32(p, be);
        p += 4;
    }
    if (f & F_SCALE3) {
        bk_rd_vec3(p, be, &o->non_uniform_scale);
        p += 12;
    }
    if ((f & F_NAME) && name_slot) {
        memcpy(name_slot->name, p, 128);
        o->targetname = name_slot->name;
    }
}

static bool sp_accepts(const gl_ctx *c, const sp_parse *p, int version, const sp_layout **layout)
{
    *layout = NULL;
    if (p->prop_n == 0)
        return p->rem == 0;
    if (p->rem % p->prop_n != 0 || p->rem / p->prop_n > UINT32_MAX)
        return false;
    *layout = match_layout(version, (uint32_t)(p->rem / p->prop_n), p->structure, c->d + p->props_pos, p->prop_n,
                           c->be);
    return *layout != NULL;
}

static bspkit_result build_static_props(bspkit_map *map, const void **value, bspkit_error *err)
{
    bspkit_static_props *sp = bk_keep_alloc(map, 1, sizeof *sp, BSPKIT_S_GAME_LUMP, err);
    if (!sp)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    sp->layout = "";
    *value = sp;
    gl_ctx c;
    bspkit_result r = gl_open(map, BSPKIT_GAME_LUMP_STATIC_PROPS, &c, &sp->present, &sp->version, err);
    if (r != BSPKIT_OK || !sp->present)
        return r;

    /* Structural readings in order of preference; the first whose records
     * match a known layout wins. */
    uint32_t std_width = sp->version >= 12 ? 4 : 2;
    const struct {
        uint32_t width;
        int structure;
        bool applies;
    } tries[] = {
        {std_width, S_STD, true},
        {6 - std_width, S_STD, true},
        {2, S_ZENO, sp->version == 7},
        {std_width, S_VINDICTUS, sp->version == 6 || sp->version == 7},
    };
    sp_parse p;
    const sp_layout *layout = NULL;
    bool found = false;
    for (size_t i = 0; i < BK_COUNT_OF(tries) && !found; i++)
        if (tries[i].applies && sp_structure(&c, tries[i].width, tries[i].structure, &p, NULL) == BSPKIT_OK)
            found = sp_accepts(&c, &p, sp->version, &layout);
    if (!found) {
        /* No layout fits: the standard reading decides between an error and
         * a warning. */
        if ((r = sp_structure(&c, std_width, S_STD, &p, err)) != BSPKIT_OK)
            return r;
        if (p.prop_n == 0) {
            sp->trailing_bytes = p.rem;
            snprintf(sp->warning, sizeof sp->warning, "%llu bytes follow an empty prop array",
                     (unsigned long long)p.rem);
        } else {
            uint64_t size = p.rem / p.prop_n;
            sp->trailing_bytes = p.rem % p.prop_n;
            if (size <= UINT32_MAX)
                layout = match_layout(sp->version, (uint32_t)size, S_STD, c.d + p.props_pos, p.prop_n, c.be);
            if (layout)
                snprintf(sp->warning, sizeof sp->warning, "%zu bytes after the last %s record",
                         sp->trailing_bytes, layout->name);
            else
                snprintf(sp->warning, sizeof sp->warning,
                         "unknown static prop layout: version %d with %llu bytes per record%s; only the common v4 "
                         "fields are decoded",
                         (int)sp->version, (unsigned long long)size, sp->trailing_bytes ? " and trailing bytes" : "");
            sp->record_size = (uint32_t)(size <= UINT32_MAX ? size : UINT32_MAX);
        }
    }
    if (!layout && p.prop_n == 0) {
        layout = default_layout(sp->version, map->format.version);
        if (!layout && !sp->warning[0])
            snprintf(sp->warning, sizeof sp->warning, "unknown static prop version %d", (int)sp->version);
    }
    sp->layout_known = layout != NULL;
    if (!layout)
        layout = &SP_UNKNOWN;
    sp->layout = layout->name;
    if (p.prop_n == 0 || sp->record_size == 0)
        sp->record_size = layout == &SP_UNKNOWN ? (p.prop_n ? (uint32_t)(p.rem / p.prop_n) : 0) : layout->size;
    sp->leaf_index_size = p.leaf_width;

    bspkit_prop_name *dict = read_names(map, c.d + p.dict_pos, p.dict_n, err);
    bspkit_prop_name *extra = read_names(map, c.d + p.extra_pos, p.extra_n, err);
    uint32_t *leafs = bk_keep_alloc(map, p.leaf_n, sizeof *leafs, BSPKIT_S_GAME_LUMP, err);
    bspkit_static_prop *props = bk_keep_alloc(map, p.prop_n, sizeof *props, BSPKIT_S_GAME_LUMP, err);
    bspkit_prop_name *targets = NULL;
    if (dict && extra && leafs && props && (layout->fields & F_NAME))
        targets = bk_keep_alloc(map, p.prop_n, sizeof *targets, BSPKIT_S_GAME_LUMP, err);
    if (!dict || !extra || !leafs || !props || ((layout->fields & F_NAME) && !targets))
        return err ? err->code : BSPKIT_ERR_NOMEM;
    for (size_t i = 0; i < p.leaf_n; i++) {
        const uint8_t *q = c.d + p.leaf_pos + (uint64_t)p.leaf_width * i;
        leafs[i] = p.leaf_width == 4 ? rd_u32(q, c.be) : rd_u16(q, c.be);
    }
    for (size_t i = 0; i < p.prop_n; i++)
        decode_static_prop(c.d + p.props_pos + (uint64_t)sp->record_size * i, layout, c.be, &props[i],
                           targets ? &targets[i] : NULL);
    /* Vindictus lists per-prop scales before the records. */
    for (size_t i = 0; i < p.scale_n; i++) {
        const uint8_t *q = c.d + p.scale_pos + 16 * i;
        int32_t which = rd_i32(q, c.be);
        if (which >= 0 && (size_t)which < p.prop_n)
            bk_rd_vec3(q + 4, c.be, &props[which].non_uniform_scale);
    }
    sp->dictionary = dict;
    sp->dictionary_count = p.dict_n;
    sp->extra_names = p.structure == S_ZENO ? extra : NULL;
    sp->extra_name_count = p.extra_n;
    sp->leafs = leafs;
    sp->leaf_count = p.leaf_n;
    sp->props = props;
    sp->prop_count = p.prop_n;
    return BSPKIT_OK;
}

bspkit_result bspkit_get_static_props(bspkit_map *map, const bspkit_static_props **out, bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_get_static_props: NULL argument");
    const void *v;
    bspkit_result r = bk_extra_get(map, EX_STATIC_PROPS, build_static_props, &v, err);
    *out = v;
    return r;
}

/* ------------------------------------------------------------------------ */
/* Detail props and their lighting                                           */
/* ------------------------------------------------------------------------ */

#define DP_RECORD_SIZE 52u
#define DP_MIN_SIZE 32u /* through Lighting: the fields every record needs */
#define DP_V2_RECORD_SIZE 40u /* version 2: through ShapeSize */

/* Decodes the fields of a DetailObjectLump_t that lie inside `size` bytes. */
static void decode_detail_prop(const uint8_t *s, uint32_t size, bool be, bspkit_detail_prop *o)
{
    bk_rd_vec3(s, be, &o->origin);
    bk_rd_vec3(s + 12, be, &o->angles);
    o->detail_model = rd_u16(s + 24, be);
    o->leaf = rd_u16(s + 26, be);
    o->lighting = (bspkit_rgbexp){s[28], s[29], s[30], (int8_t)s[31]};
    o->raw = s;
    if (size >= 36)
        o->light_styles = rd_u32(s + 32, be);
    /* One byte each from offset 36 on; 41..43 and 45..47 are padding. */
    uint8_t b[9] = {0};
    memcpy(b, s + 36, size >= 45 ? 9 : (size > 36 ? size - 36 : 0));
    o->light_style_count = b[0];
    o->sway_amount = b[1];
    o->shape_angle = b[2];
    o->shape_size = b[3];
    o->orientation = b[4];
    o->type = b[8];
    if (size >= 52)
        o->scale = rd_f32(s + 48, be);
}

static bspkit_result build_detail_props(bspkit_map *map, const void **value, bspkit_error *err)
{
    bspkit_detail_props *dp = bk_keep_alloc(map, 1, sizeof *dp, BSPKIT_S_GAME_LUMP, err);
    if (!dp)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    *value = dp;
    gl_ctx c;
    bspkit_result r = gl_open(map, BSPKIT_GAME_LUMP_DETAIL_PROPS, &c, &dp->present, &dp->version, err);
    if (r != BSPKIT_OK || !dp->present)
        return r;
    uint64_t pos = 0, models_pos, sprites_pos;
    size_t nm, ns, np;
    if ((r = read_count(&c, &pos, 128, "model dictionary", &nm, err)) != BSPKIT_OK)
        return r;
    models_pos = pos;
    pos += 128ull * nm;
    /* Version 2 (Bloodlines) has no sprite dictionary and 40-byte records:
     * DetailObjectLump_t up to ShapeSize, before orientation, type and scale. */
    bool v2 = dp->version == 2;
    uint32_t expected = v2 ? DP_V2_RECORD_SIZE : DP_RECORD_SIZE;
    ns = 0;
    if (!v2 && (r = read_count(&c, &pos, 32, "sprite dictionary", &ns, err)) != BSPKIT_OK)
        return r;
    sprites_pos = pos;
    pos += 32ull * ns;
    /* Version 4 records are 52 bytes; other versions are decoded as far as their records reach. */
    if ((r = read_count(&c, &pos, dp->version == 4 || v2 ? expected : DP_MIN_SIZE, "prop", &np, err)) != BSPKIT_OK)
        return r;
    uint64_t rem = c.size - pos;
    uint32_t size = expected;
    if (np) {
        uint64_t s = rem / np;
        size = (uint32_t)(s > UINT32_MAX ? UINT32_MAX : s);
    }
    uint64_t trailing = rem - (uint64_t)size * np;
    if (size != expected)
        snprintf(dp->warning, sizeof dp->warning, "detail prop records of %u bytes (version %d); expected %u",
                 size, (int)dp->version, expected);
    else if (trailing)
        snprintf(dp->warning, sizeof dp->warning, "%llu bytes after the last detail prop",
                 (unsigned long long)trailing);
    dp->record_size = size;

    bspkit_prop_name *models = read_names(map, c.d + models_pos, nm, err);
    bspkit_detail_sprite *sprites = bk_keep_alloc(map, ns, sizeof *sprites, BSPKIT_S_GAME_LUMP, err);
    bspkit_detail_prop *props = bk_keep_alloc(map, np, sizeof *props, BSPKIT_S_GAME_LUMP, err);
    if (!models || !sprites || !props)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    for (size_t i = 0; i < ns; i++) {
        const uint8_t *s = c.d + sprites_pos + 32 * i;
        float *dst[] = {sprites[i].upper_left, sprites[i].lower_right, sprites[i].tex_upper_left,
                        sprites[i].tex_lower_right};
        for (int k = 0; k < 4; k++) {
            dst[k][0] = rd_f32(s + 8 * k, c.be);
            dst[k][1] = rd_f32(s + 8 * k + 4, c.be);
        }
    }
    for (size_t i = 0; i < np; i++)
        decode_detail_prop(c.d + pos + (uint64_t)size * i, size, c.be, &props[i]);
    dp->models = models;
    dp->model_count = nm;
    dp->sprites = sprites;
    dp->sprite_count = ns;
    dp->props = props;
    dp->prop_count = np;
    return BSPKIT_OK;
}

bspkit_result bspkit_get_detail_props(bspkit_map *map, const bspkit_detail_props **out, bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_get_detail_props: NULL argument");
    const void *v;
    bspkit_result r = bk_extra_get(map, EX_DETAIL_PROPS, build_detail_props, &v, err);
    *out = v;
    return r;
}

static bspkit_result build_lighting(bspkit_map *map, uint32_t id, const void **value, bspkit_error *err)
{
    bspkit_detail_lighting *dl = bk_keep_alloc(map, 1, sizeof *dl, BSPKIT_S_GAME_LUMP, err);
    if (!dl)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    *value = dl;
    gl_ctx c;
    bspkit_result r = gl_open(map, id, &c, &dl->present, &dl->version, err);
    if (r != BSPKIT_OK || !dl->present)
        return r;
    uint64_t pos = 0;
    size_t n;
    if ((r = read_count(&c, &pos, 5, "light style", &n, err)) != BSPKIT_OK)
        return r;
    bspkit_detail_lightstyle *recs = bk_keep_alloc(map, n, sizeof *recs, BSPKIT_S_GAME_LUMP, err);
    if (!recs)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *s = c.d + pos + 5 * i;
        recs[i].lighting = (bspkit_rgbexp){s[0], s[1], s[2], (int8_t)s[3]};
        recs[i].style = s[4];
    }
    uint64_t trailing = c.size - pos - 5ull * n;
    if (trailing)
        snprintf(dl->warning, sizeof dl->warning, "%llu bytes after the last light style record",
                 (unsigned long long)trailing);
    dl->records = recs;
    dl->count = n;
    return BSPKIT_OK;
}

static bspkit_result build_lighting_ldr(bspkit_map *map, const void **value, bspkit_error *err)
{
    return build_lighting(map, BSPKIT_GAME_LUMP_DETAIL_LIGHTING, value, err);
}

static bspkit_result build_lighting_hdr(bspkit_map *map, const void **value, bspkit_error *err)
{
    return build_lighting(map, BSPKIT_GAME_LUMP_DETAIL_LIGHTING_HDR, value, err);
}

bspkit_result bspkit_get_detail_lighting(bspkit_map *map, bool hdr, const bspkit_detail_lighting **out,
                                         bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_get_detail_lighting: NULL argument");
    const void *v;
    bspkit_result r = hdr ? bk_extra_get(map, EX_DETAIL_LIGHTING_HDR, build_lighting_hdr, &v, err)
                          : bk_extra_get(map, EX_DETAIL_LIGHTING, build_lighting_ldr, &v, err);
    *out = v;
    return r;
}

/* ------------------------------------------------------------------------ */
/* Dump tables                                                               */
/* ------------------------------------------------------------------------ */

static const bspkit_field NAME_FIELDS[] = {
    BK_FIELDS(bspkit_prop_name, name, "name", BSPKIT_FIELD_CHARS, 129),
};

static const bspkit_field LEAF_FIELDS[] = {
    {"leaf", BSPKIT_FIELD_U32, 0, 1},
};

static const bspkit_field STATIC_PROP_FIELDS[] = {
    BK_FIELD(bspkit_static_prop, origin, "Origin", BSPKIT_FIELD_VEC3),
    BK_FIELD(bspkit_static_prop, angles, "Angles", BSPKIT_FIELD_VEC3),
    BK_FIELD(bspkit_static_prop, prop_type, "PropType", BSPKIT_FIELD_U16),
    BK_FIELD(bspkit_static_prop, first_leaf, "FirstLeaf", BSPKIT_FIELD_U16),
    BK_FIELD(bspkit_static_prop, leaf_count, "LeafCount", BSPKIT_FIELD_U16),
    BK_FIELD(bspkit_static_prop, solid, "Solid", BSPKIT_FIELD_U8),
    BK_FIELD(bspkit_static_prop, flags, "Flags", BSPKIT_FIELD_U32),
    BK_FIELD(bspkit_static_prop, skin, "Skin", BSPKIT_FIELD_I32),
    BK_FIELD(bspkit_static_prop, fade_min_dist, "FadeMinDist", BSPKIT_FIELD_F32),
    BK_FIELD(bspkit_static_prop, fade_max_dist, "FadeMaxDist", BSPKIT_FIELD_F32),
    BK_FIELD(bspkit_static_prop, lighting_origin, "LightingOrigin", BSPKIT_FIELD_VEC3),
    BK_FIELD(bspkit_static_prop, forced_fade_scale, "ForcedFadeScale", BSPKIT_FIELD_F32),
    BK_FIELD(bspkit_static_prop, min_dx_level, "MinDXLevel", BSPKIT_FIELD_U16),
    BK_FIELD(bspkit_static_prop, max_dx_level, "MaxDXLevel", BSPKIT_FIELD_U16),
    BK_FIELD(bspkit_static_prop, min_cpu_level, "MinCPULevel", BSPKIT_FIELD_U8),
    BK_FIELD(bspkit_static_prop, max_cpu_level, "MaxCPULevel", BSPKIT_FIELD_U8),
    BK_FIELD(bspkit_static_prop, min_gpu_level, "MinGPULevel", BSPKIT_FIELD_U8),
    BK_FIELD(bspkit_static_prop, max_gpu_level, "MaxGPULevel", BSPKIT_FIELD_U8),
    BK_FIELDS(bspkit_static_prop, diffuse_modulation, "DiffuseModulation", BSPKIT_FIELD_U8, 4),
    BK_FIELD(bspkit_static_prop, disable_x360, "DisableX360", BSPKIT_FIELD_BOOL),
    BK_FIELD(bspkit_static_prop, flags_ex, "FlagsEx", BSPKIT_FIELD_U32),
    BK_FIELD(bspkit_static_prop, uniform_scale, "UniformScale", BSPKIT_FIELD_F32),
    BK_FIELD(bspkit_static_prop, non_uniform_scale, "NonUniformScale", BSPKIT_FIELD_VEC3),
    BK_FIELD(bspkit_static_prop, lightmap_resolution_x, "LightmapResolutionX", BSPKIT_FIELD_U16),
    BK_FIELD(bspkit_static_prop, lightmap_resolution_y, "LightmapResolutionY", BSPKIT_FIELD_U16),
    BK_FIELD(bspkit_static_prop, targetname, "targetname", BSPKIT_FIELD_STRING),
};

static const bspkit_field SPRITE_FIELDS[] = {
    BK_FIELDS(bspkit_detail_sprite, upper_left, "UL", BSPKIT_FIELD_F32, 2),
    BK_FIELDS(bspkit_detail_sprite, lower_right, "LR", BSPKIT_FIELD_F32, 2),
    BK_FIELDS(bspkit_detail_sprite, tex_upper_left, "TexUL", BSPKIT_FIELD_F32, 2),
    BK_FIELDS(bspkit_detail_sprite, tex_lower_right, "TexLR", BSPKIT_FIELD_F32, 2),
};

static const bspkit_field DETAIL_PROP_FIELDS[] = {
    BK_FIELD(bspkit_detail_prop, origin, "Origin", BSPKIT_FIELD_VEC3),
    BK_FIELD(bspkit_detail_prop, angles, "Angles", BSPKIT_FIELD_VEC3),
    BK_FIELD(bspkit_detail_prop, detail_model, "DetailModel", BSPKIT_FIELD_U16),
    BK_FIELD(bspkit_detail_prop, leaf, "Leaf", BSPKIT_FIELD_U16),
    BK_FIELD(bspkit_detail_prop, lighting, "Lighting", BSPKIT_FIELD_RGBEXP),
    BK_FIELD(bspkit_detail_prop, light_styles, "LightStyles", BSPKIT_FIELD_U32),
    BK_FIELD(bspkit_detail_prop, light_style_count, "LightStyleCount", BSPKIT_FIELD_U8),
    BK_FIELD(bspkit_detail_prop, sway_amount, "SwayAmount", BSPKIT_FIELD_U8),
    BK_FIELD(bspkit_detail_prop, shape_angle, "ShapeAngle", BSPKIT_FIELD_U8),
    BK_FIELD(bspkit_detail_prop, shape_size, "ShapeSize", BSPKIT_FIELD_U8),
    BK_FIELD(bspkit_detail_prop, orientation, "Orientation", BSPKIT_FIELD_U8),
    BK_FIELD(bspkit_detail_prop, type, "Type", BSPKIT_FIELD_U8),
    BK_FIELD(bspkit_detail_prop, scale, "Scale", BSPKIT_FIELD_F32),
};

static const bspkit_field LIGHTSTYLE_FIELDS[] = {
    BK_FIELD(bspkit_detail_lightstyle, lighting, "Lighting", BSPKIT_FIELD_RGBEXP),
    BK_FIELD(bspkit_detail_lightstyle, style, "Style", BSPKIT_FIELD_U8),
};

static void set_note(bspkit_dump *out, const char *warning)
{
    _Static_assert(sizeof out->note >= sizeof ((bspkit_static_props *)0)->warning, "note holds a warning");
    if (warning[0])
        memcpy(out->note, warning, strlen(warning) + 1);
}

bspkit_result bk_tables_props(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out, bspkit_error *err)
{
    (void)lump;
    bspkit_result r;
    switch (game_id) {
    case BSPKIT_GAME_LUMP_STATIC_PROPS: {
        const bspkit_static_props *sp;
        if ((r = bspkit_get_static_props(map, &sp, err)) != BSPKIT_OK)
            return r;
        bk_dump_add_table(out, "dictionary", NAME_FIELDS, BK_COUNT_OF(NAME_FIELDS), sp->dictionary,
                          sizeof *sp->dictionary, sp->dictionary_count);
        bk_dump_add_table(out, "leafs", LEAF_FIELDS, BK_COUNT_OF(LEAF_FIELDS), sp->leafs, sizeof *sp->leafs,
                          sp->leaf_count);
        bk_dump_add_table(out, "props", STATIC_PROP_FIELDS, BK_COUNT_OF(STATIC_PROP_FIELDS), sp->props,
                          sizeof *sp->props, sp->prop_count);
        set_note(out, sp->warning);
        return BSPKIT_OK;
    }
    case BSPKIT_GAME_LUMP_DETAIL_PROPS: {
        const bspkit_detail_props *dp;
        if ((r = bspkit_get_detail_props(map, &dp, err)) != BSPKIT_OK)
            return r;
        bk_dump_add_table(out, "models", NAME_FIELDS, BK_COUNT_OF(NAME_FIELDS), dp->models, sizeof *dp->models,
                          dp->model_count);
        bk_dump_add_table(out, "sprites", SPRITE_FIELDS, BK_COUNT_OF(SPRITE_FIELDS), dp->sprites,
                          sizeof *dp->sprites, dp->sprite_count);
        bk_dump_add_table(out, "props", DETAIL_PROP_FIELDS, BK_COUNT_OF(DETAIL_PROP_FIELDS), dp->props,
                          sizeof *dp->props, dp->prop_count);
        set_note(out, dp->warning);
        return BSPKIT_OK;
    }
    case BSPKIT_GAME_LUMP_DETAIL_LIGHTING:
    case BSPKIT_GAME_LUMP_DETAIL_LIGHTING_HDR: {
        const bspkit_detail_lighting *dl;
        r = bspkit_get_detail_lighting(map, game_id == BSPKIT_GAME_LUMP_DETAIL_LIGHTING_HDR, &dl, err);
        if (r != BSPKIT_OK)
            return r;
        bk_dump_add_table(out, "records", LIGHTSTYLE_FIELDS, BK_COUNT_OF(LIGHTSTYLE_FIELDS), dl->records,
                          sizeof *dl->records, dl->count);
        set_note(out, dl->warning);
        return BSPKIT_OK;
    }
    default:
        return BSPKIT_ERR_NOT_FOUND;
    }
}
