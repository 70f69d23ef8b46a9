/* Quake 2 and Quake 3 .map from the brush lumps: both keep every brush the
 * compiler built (brushes, brush sides with their planes and texinfo or
 * shader), so each brush is written back side by side, its sides' three
 * points taken from the polygon the other sides cut from its plane.
 *
 * Quake 2: the Valve 220 form with Quake 2's contents, flags and value after
 * each side, which TrenchBroom and ericw-tools' qbsp -q2bsp read; a brush
 * belongs to the first model whose BSP tree reaches it through the leafs'
 * brush lists. Quake 3: the Quake 3 form (shader without its "textures/"
 * prefix, default alignment: the BSP keeps no texture axes for brush sides,
 * then the shader's contents and surface flags), each model naming its own
 * brushes, and every Bézier patch of a model written back as a patchDef2 of
 * its control points. World brushes go to worldspawn, the others to their
 * entity. */
#include "decompile_internal.h"

#include "bspkit/bspkit.h"
#include "bspkit/quake3.h"
#include "core/map.h"
#include "entities/values.h"

#include <stdlib.h>
#include <string.h>

/* Sides a brush may have: more is a damaged file (qbsp caps at 128 with bevels). */
#define MAX_SIDES 256
/* Widest side polygon still taken for a bevel: the compilers' ON_EPSILON. */
#define BEVEL_SLIVER 0.1

typedef struct q2ctx {
    bspkit_map *map;
    bspkit_error *err;
    bk_tbuf *out;
    bspkit_decompile_stats *st;
    const bspkit_plane *planes;
    const bspkit_brush *brushes;
    const bspkit_brushside *sides;
    const bspkit_texinfo *texinfo;
    const bspkit_shader *shaders; /* Quake 3 */
    const bspkit_surface *surfaces;
    const bspkit_drawvert *drawverts;
    size_t nplanes, nbrushes, nsides, ntexinfo, nshaders, nsurfaces, ndrawverts;
    bool quake3;
    double extent;
    bk_dplane scratch[MAX_SIDES];
    bk_dvec poly_a[BK_POLY_MAX_POINTS(MAX_SIDES)], poly_b[BK_POLY_MAX_POINTS(MAX_SIDES)];
} q2ctx;

/* One Quake 2 side line: the Valve 220 side (decompile_internal.h), then
 * Quake 2's contents, surface flags and value. */
static void write_q2_side(q2ctx *c, const bk_dvec pts[3], const bk_dplane *pl, const bspkit_texinfo *ti,
                          int32_t contents, bk_dvec offset)
{
    bk_dvec moved[3];
    for (int q = 0; q < 3; q++)
        moved[q] = dv_add(pts[q], offset);
    bk_decompile_put_points(c->out, moved);
    bk_decompile_put_texture(c->out, pl->n, offset, ti && ti->texture_name[0] ? ti->texture_name : "e1u1/clip", ti);
    tb_printf(c->out, " %ld %ld %ld\n", (long)contents, ti ? (long)ti->flags : 0L, ti ? (long)ti->value : 0L);
}

/* A Quake 3 shader as a .map names it: without the "textures/" prefix. */
static const char *map_shader_name(const bspkit_shader *sh)
{
    if (!sh || !sh->name[0])
        return "common/caulk";
    return strncmp(sh->name, "textures/", 9) == 0 ? sh->name + 9 : sh->name;
}

/* One Quake 3 side line: the three points, the shader, shift 0 0, rotation
 * 0, scale 0.5 0.5, then the shader's contents (its detail bit makes a
 * detail brush again) and surface flags and a value of 0. */
static void write_q3_side(q2ctx *c, const bk_dvec pts[3], const bspkit_shader *sh, bk_dvec offset)
{
    bk_dvec moved[3];
    for (int q = 0; q < 3; q++)
        moved[q] = dv_add(pts[q], offset);
    bk_decompile_put_points(c->out, moved);
    tb_printf(c->out, " %s 0 0 0 0.5 0.5 %ld %ld 0\n", map_shader_name(sh), sh ? (long)sh->contents : 0L,
              sh ? (long)sh->surface_flags : 0L);
}

static const bspkit_shader *shader_at(const q2ctx *c, int32_t i)
{
    return i >= 0 && (size_t)i < c->nshaders ? &c->shaders[i] : NULL;
}

/* Writes brush `b` when at least four of its sides have area; returns whether it did. */
static bool write_brush(q2ctx *c, size_t b, bk_dvec offset)
{
    const bspkit_brush *br = &c->brushes[b];
    if (br->first_side < 0 || br->num_sides < 4 || br->num_sides > MAX_SIDES ||
        (uint64_t)br->first_side + (uint64_t)br->num_sides > c->nsides)
        return false;
    size_t n = (size_t)br->num_sides;
    for (size_t i = 0; i < n; i++) {
        uint32_t p = c->sides[(size_t)br->first_side + i].plane;
        if (p >= c->nplanes)
            return false;
        const bspkit_plane *pl = &c->planes[p];
        c->scratch[i] = (bk_dplane){{pl->normal.x, pl->normal.y, pl->normal.z}, pl->dist};
    }
    bk_dvec pts[MAX_SIDES][3];
    bool has_area[MAX_SIDES];
    size_t good = 0;
    for (size_t i = 0; i < n; i++) {
        bk_dvec *poly;
        size_t m = bk_poly_side(c->scratch, n, i, c->extent, 0.01, c->poly_a, c->poly_b, &poly);
        /* Bevel sides the compilers add for collision touch the brush at an edge or corner;
         * the rounding of their stored planes can leave a sliver narrower than the
         * compilers' ON_EPSILON (0.1), which is not a face of the brush either. */
        has_area[i] = bk_poly_wider_than(poly, m, BEVEL_SLIVER);
        if (has_area[i]) {
            bk_poly_plane_points(poly, m, pts[i]);
            good++;
        }
    }
    if (good < 4)
        return false;
    tb_puts(c->out, "{\n");
    for (size_t i = 0; i < n; i++) {
        if (!has_area[i])
            continue;
        const bspkit_brushside *side = &c->sides[(size_t)br->first_side + i];
        if (c->quake3) {
            /* A side without its own shader takes the brush's. */
            const bspkit_shader *sh = shader_at(c, side->shader);
            write_q3_side(c, pts[i], sh ? sh : shader_at(c, br->shader), offset);
        } else {
            int32_t t = side->texinfo;
            const bspkit_texinfo *ti = t >= 0 && (size_t)t < c->ntexinfo ? &c->texinfo[t] : NULL;
            write_q2_side(c, pts[i], &c->scratch[i], ti, br->contents, offset);
        }
        c->st->sides++;
    }
    tb_puts(c->out, "}\n");
    c->st->brushes++;
    return true;
}

/* Quake 3: a patch surface as patchDef2: the shader, the control grid's
 * width and height, then one parenthesised column per control point
 * across (x y z s t each, moved by `offset`). */
static bool write_patch(q2ctx *c, const bspkit_surface *s, bk_dvec offset)
{
    if (s->patch_width < 3 || s->patch_height < 3 || (int64_t)s->patch_width * s->patch_height != s->num_verts ||
        s->first_vert < 0 || (uint64_t)s->first_vert + (uint64_t)s->num_verts > c->ndrawverts)
        return false;
    tb_printf(c->out, "{\npatchDef2\n{\n%s\n( %ld %ld 0 0 0 )\n(\n", map_shader_name(shader_at(c, s->shader)),
              (long)s->patch_width, (long)s->patch_height);
    for (int32_t x = 0; x < s->patch_width; x++) {
        tb_puts(c->out, "(");
        for (int32_t y = 0; y < s->patch_height; y++) {
            const bspkit_drawvert *v = &c->drawverts[s->first_vert + (size_t)y * s->patch_width + x];
            const double vals[5] = {v->xyz.x + offset.x, v->xyz.y + offset.y, v->xyz.z + offset.z, v->st[0], v->st[1]};
            tb_puts(c->out, " (");
            for (int k = 0; k < 5; k++) {
                char num[32];
                bk_decompile_num(num, sizeof num, vals[k]);
                tb_printf(c->out, " %s", num);
            }
            tb_puts(c->out, " )");
        }
        tb_puts(c->out, " )\n");
    }
    tb_puts(c->out, ")\n}\n}\n");
    return true;
}

/* Quake 3: every brush and patch of model `model`, which names them itself. */
static void write_q3_model(q2ctx *c, const bspkit_model *md, int64_t model, bk_dvec offset)
{
    bspkit_decompile_stats *stats = c->st;
    if (md->first_brush >= 0 && md->num_brushes >= 0 &&
        (uint64_t)md->first_brush + (uint64_t)md->num_brushes <= c->nbrushes) {
        for (int32_t b = 0; b < md->num_brushes; b++) {
            if (!write_brush(c, (size_t)md->first_brush + (size_t)b, offset))
                stats->skipped_brushes++;
            else if (model == 0)
                stats->world_brushes++;
            else
                stats->entity_brushes++;
        }
    }
    if (md->first_face >= 0 && md->num_faces >= 0 && (uint64_t)md->first_face + (uint64_t)md->num_faces <= c->nsurfaces)
        for (int32_t k = 0; k < md->num_faces; k++) {
            const bspkit_surface *s = &c->surfaces[md->first_face + k];
            if (s->type == BSPKIT_Q3_SURFACE_PATCH && write_patch(c, s, offset))
                stats->patches++;
        }
}

/* "*N" names brush model N; -1 otherwise. */
static int64_t model_number(const char *v)
{
    if (!v || v[0] != '*' || !v[1])
        return -1;
    int64_t n = 0;
    for (const char *p = v + 1; *p; p++) {
        if (*p < '0' || *p > '9' || n > 1000000)
            return -1;
        n = n * 10 + (*p - '0');
    }
    return n;
}

bspkit_result bk_decompile_brushmap(bspkit_map *map, const bspkit_decompile_options *opts, bk_tbuf *out,
                                    bspkit_decompile_stats *stats, bspkit_error *err)
{
    (void)opts;
    q2ctx *c = calloc(1, sizeof *c);
    if (!c)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "decompile: out of memory");
    c->map = map, c->err = err, c->out = out, c->st = stats;
    c->quake3 = map->format.family == BSPKIT_FAMILY_QUAKE3;
    const bspkit_entities *ents;
    const bspkit_model *models;
    size_t nm;
    int32_t *owner = NULL;
    bspkit_result r;
    if ((r = bspkit_get_planes(map, &c->planes, &c->nplanes, err)) != BSPKIT_OK ||
        (r = bspkit_get_brushes(map, &c->brushes, &c->nbrushes, err)) != BSPKIT_OK ||
        (r = bspkit_get_brushsides(map, &c->sides, &c->nsides, err)) != BSPKIT_OK ||
        (r = bspkit_get_texinfo(map, &c->texinfo, &c->ntexinfo, err)) != BSPKIT_OK ||
        (r = bspkit_get_models(map, &models, &nm, err)) != BSPKIT_OK ||
        (r = bspkit_get_entities(map, &ents, err)) != BSPKIT_OK)
        goto done;
    if (c->quake3 && ((r = bspkit_get_shaders(map, &c->shaders, &c->nshaders, err)) != BSPKIT_OK ||
                      (r = bspkit_get_surfaces(map, &c->surfaces, &c->nsurfaces, err)) != BSPKIT_OK ||
                      (r = bspkit_get_drawverts(map, &c->drawverts, &c->ndrawverts, err)) != BSPKIT_OK))
        goto done;
    /* The square each side's polygon is cut from must cover the map. */
    c->extent = 65536;
    if (!(owner = malloc((c->nbrushes + 1) * sizeof *owner))) {
        r = bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "decompile: out of memory");
        goto done;
    }
    if (!c->quake3 && (r = bk_decompile_brush_owners(map, c->nbrushes, owner, err)) != BSPKIT_OK)
        goto done;
    for (size_t e = 0; e < ents->count; e++) {
        const char *cls = bspkit_entity_value(ents, e, "classname");
        int64_t model = cls && strcmp(cls, "worldspawn") == 0 ? 0 : model_number(bspkit_entity_value(ents, e, "model"));
        tb_puts(out, "{\n");
        const bspkit_entity *ent = &ents->entities[e];
        for (size_t k = 0; k < ent->num_pairs; k++) {
            const bspkit_keyvalue *kv = &ents->pairs[ent->first_pair + k];
            if (model > 0 && strcmp(kv->key, "model") == 0)
                continue; /* the brushes follow inline */
            tb_printf(out, "\"%s\" \"%s\"\n", kv->key, kv->value);
        }
        if (model == 0 && !c->quake3)
            tb_puts(out, "\"mapversion\" \"220\"\n");
        if (model >= 0 && (size_t)model < nm) {
            bk_dvec offset = {0, 0, 0};
            double o[3];
            /* Brushes of a model moved to its origin brush are stored around the origin. */
            if (model > 0 && bk_parse_vec3(bspkit_entity_value(ents, e, "origin"), o))
                offset = (bk_dvec){o[0], o[1], o[2]};
            if (c->quake3)
                write_q3_model(c, &models[model], model, offset);
            for (size_t b = 0; b < c->nbrushes && !c->quake3; b++) {
                if (owner[b] != model)
                    continue;
                if (!write_brush(c, b, offset))
                    stats->skipped_brushes++;
                else if (model == 0)
                    stats->world_brushes++;
                else
                    stats->entity_brushes++;
            }
        }
        tb_puts(out, "}\n");
        stats->entities++;
    }
done:
    free(owner);
    free(c);
    return r;
}
