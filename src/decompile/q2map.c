/* Quake 2 .map from the brush lumps: Quake 2 keeps every brush the compiler
 * built (brushes, brush sides with their planes and texinfo), so each brush
 * is written back side by side, its sides' three points taken from the
 * polygon the other sides cut from its plane. Output is the Valve 220 form
 * with Quake 2's contents, flags and value after each side, which
 * TrenchBroom and ericw-tools' qbsp -q2bsp read. A brush belongs to the
 * first model whose BSP tree reaches it through the leafs' brush lists;
 * world brushes go to worldspawn, the others to their entity. */
#include "decompile_internal.h"

#include "bspkit/bspkit.h"
#include "core/map.h"
#include "entities/values.h"

#include <stdlib.h>
#include <string.h>

/* Sides a brush may have: more is a damaged file (qbsp caps at 128 with bevels). */
#define MAX_SIDES 256

typedef struct q2ctx {
    bspkit_map *map;
    bspkit_error *err;
    bk_tbuf *out;
    bspkit_decompile_stats *st;
    const bspkit_plane *planes;
    const bspkit_brush *brushes;
    const bspkit_brushside *sides;
    const bspkit_texinfo *texinfo;
    size_t nplanes, nbrushes, nsides, ntexinfo;
    double extent;
    bk_dplane scratch[MAX_SIDES];
    bk_dvec poly_a[BK_POLY_MAX_POINTS(MAX_SIDES)], poly_b[BK_POLY_MAX_POINTS(MAX_SIDES)];
} q2ctx;

/* One side line: the Valve 220 side (decompile_internal.h), then Quake 2's
 * contents, surface flags and value. */
static void write_side(q2ctx *c, const bk_dvec pts[3], const bk_dplane *pl, const bspkit_texinfo *ti,
                       int32_t contents, bk_dvec offset)
{
    bk_dvec moved[3];
    for (int q = 0; q < 3; q++)
        moved[q] = dv_add(pts[q], offset);
    bk_decompile_put_points(c->out, moved);
    bk_decompile_put_texture(c->out, pl->n, offset, ti && ti->texture_name[0] ? ti->texture_name : "e1u1/clip", ti);
    tb_printf(c->out, " %ld %ld %ld\n", (long)contents, ti ? (long)ti->flags : 0L, ti ? (long)ti->value : 0L);
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
        /* Bevel sides qbsp adds for collision touch the brush at an edge or corner: no area. */
        has_area[i] = m >= 3 && bk_poly_area(poly, m) >= 1e-3;
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
        int32_t t = c->sides[(size_t)br->first_side + i].texinfo;
        const bspkit_texinfo *ti = t >= 0 && (size_t)t < c->ntexinfo ? &c->texinfo[t] : NULL;
        write_side(c, pts[i], &c->scratch[i], ti, br->contents, offset);
        c->st->sides++;
    }
    tb_puts(c->out, "}\n");
    c->st->brushes++;
    return true;
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

bspkit_result bk_decompile_q2map(bspkit_map *map, const bspkit_decompile_options *opts, bk_tbuf *out,
                                 bspkit_decompile_stats *stats, bspkit_error *err)
{
    (void)opts;
    q2ctx *c = calloc(1, sizeof *c);
    if (!c)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "decompile: out of memory");
    c->map = map, c->err = err, c->out = out, c->st = stats;
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
    /* The square each side's polygon is cut from must cover the map. */
    c->extent = 65536;
    if (!(owner = malloc((c->nbrushes + 1) * sizeof *owner))) {
        r = bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "decompile: out of memory");
        goto done;
    }
    if ((r = bk_decompile_brush_owners(map, c->nbrushes, owner, err)) != BSPKIT_OK)
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
        if (model == 0)
            tb_puts(out, "\"mapversion\" \"220\"\n");
        if (model >= 0 && (size_t)model < nm) {
            bk_dvec offset = {0, 0, 0};
            double o[3];
            /* Brushes of a model moved to its origin brush are stored around the origin. */
            if (model > 0 && bk_parse_vec3(bspkit_entity_value(ents, e, "origin"), o))
                offset = (bk_dvec){o[0], o[1], o[2]};
            for (size_t b = 0; b < c->nbrushes; b++) {
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
