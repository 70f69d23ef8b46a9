/* .map reading and the brush/tree agreement check (see map_read.h). */
#include "decompile/map_read.h"

#include "bspkit/query.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct lexer {
    const char *s, *end;
    char tok[1024];
    bool quoted;
    char *why;
    size_t why_size;
} lexer;

static bool failf(lexer *lx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(lx->why, lx->why_size, fmt, ap);
    va_end(ap);
    return false;
}

/* Next token into lx->tok: a quoted string, one of {}()[] or a bare word. False at the end. */
static bool next(lexer *lx)
{
    for (;;) {
        while (lx->s < lx->end && isspace((unsigned char)*lx->s))
            lx->s++;
        if (lx->end - lx->s >= 2 && lx->s[0] == '/' && lx->s[1] == '/') {
            while (lx->s < lx->end && *lx->s != '\n')
                lx->s++;
            continue;
        }
        break;
    }
    if (lx->s >= lx->end)
        return false;
    size_t n = 0;
    lx->quoted = *lx->s == '"';
    if (lx->quoted) {
        lx->s++;
        while (lx->s < lx->end && *lx->s != '"' && n + 1 < sizeof lx->tok)
            lx->tok[n++] = *lx->s++;
        if (lx->s >= lx->end || *lx->s != '"')
            return false;
        lx->s++;
    } else if (strchr("{}()[]", *lx->s)) {
        lx->tok[n++] = *lx->s++;
    } else {
        while (lx->s < lx->end && !isspace((unsigned char)*lx->s) && !strchr("{}()[]\"", *lx->s) &&
               n + 1 < sizeof lx->tok)
            lx->tok[n++] = *lx->s++;
    }
    lx->tok[n] = 0;
    return true;
}

static bool expect(lexer *lx, const char *what)
{
    if (!next(lx) || lx->quoted || strcmp(lx->tok, what) != 0)
        return failf(lx, "expected '%s', got '%s'", what, lx->tok);
    return true;
}

static bool number(lexer *lx, double *v)
{
    if (!next(lx))
        return failf(lx, "text ends where a number belongs");
    char *e;
    *v = strtod(lx->tok, &e);
    if (e == lx->tok || *e)
        return failf(lx, "'%s' is not a number", lx->tok);
    return true;
}

/* Appends one zeroed element; capacity doubles at each power of two, so the count alone tells when to grow. */
static bool push(void **p, size_t *n, size_t elem)
{
    if (*n == 0 || (*n & (*n - 1)) == 0) {
        void *q = realloc(*p, (*n ? *n * 2 : 1) * elem);
        if (!q)
            return false;
        *p = q;
    }
    memset((char *)*p + *n * elem, 0, elem);
    (*n)++;
    return true;
}

static bool read_side(lexer *lx, mr_side *s)
{
    for (int k = 0; k < 3; k++) {
        if (k && !expect(lx, "("))
            return false;
        for (int j = 0; j < 3; j++)
            if (!number(lx, &s->pts[k][j]))
                return false;
        if (!expect(lx, ")"))
            return false;
    }
    /* A texture name is everything up to white space: GoldSrc names may start with '{'. */
    while (lx->s < lx->end && isspace((unsigned char)*lx->s))
        lx->s++;
    size_t tn = 0;
    while (lx->s < lx->end && !isspace((unsigned char)*lx->s) && tn + 1 < sizeof lx->tok)
        lx->tok[tn++] = *lx->s++;
    lx->tok[tn] = 0;
    if (!tn)
        return failf(lx, "side without a texture");
    if (strlen(lx->tok) >= sizeof s->tex)
        return failf(lx, "texture name '%.40s...' too long", lx->tok);
    memcpy(s->tex, lx->tok, strlen(lx->tok) + 1);
    const char *save = lx->s;
    if (next(lx) && !lx->quoted && strcmp(lx->tok, "[") == 0) {
        s->valve = true;
        for (int a = 0; a < 2; a++) {
            double *axis = a ? s->v : s->u;
            if (a && !expect(lx, "["))
                return false;
            for (int j = 0; j < 4; j++)
                if (!number(lx, &axis[j]))
                    return false;
            if (!expect(lx, "]"))
                return false;
        }
    } else {
        lx->s = save;
        if (!number(lx, &s->u[3]) || !number(lx, &s->v[3]))
            return false;
    }
    if (!number(lx, &s->rotation) || !number(lx, &s->scale[0]) || !number(lx, &s->scale[1]))
        return false;
    double a[3], b[3];
    for (int j = 0; j < 3; j++) {
        a[j] = s->pts[0][j] - s->pts[1][j];
        b[j] = s->pts[2][j] - s->pts[1][j];
    }
    double n[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(len > 0))
        return failf(lx, "side points are collinear");
    for (int j = 0; j < 3; j++)
        s->n[j] = n[j] / len;
    s->d = s->n[0] * s->pts[1][0] + s->n[1] * s->pts[1][1] + s->n[2] * s->pts[1][2];
    return true;
}

bool mr_parse(const char *text, size_t size, mr_map *m, char *why, size_t why_size)
{
    memset(m, 0, sizeof *m);
    lexer lx = {.s = text, .end = text + size, .why = why, .why_size = why_size};
    why[0] = 0;
    while (next(&lx)) {
        if (lx.quoted || strcmp(lx.tok, "{") != 0)
            return failf(&lx, "expected an entity, got '%s'", lx.tok);
        if (!push((void **)&m->ents, &m->nents, sizeof *m->ents))
            return failf(&lx, "out of memory");
        mr_entity *e = &m->ents[m->nents - 1];
        e->first_pair = m->npairs;
        e->first_brush = m->nbrushes;
        for (;;) {
            if (!next(&lx))
                return failf(&lx, "entity %zu is not closed", m->nents - 1);
            if (!lx.quoted && strcmp(lx.tok, "}") == 0)
                break;
            if (lx.quoted) {
                char *key = strdup(lx.tok);
                if (!key || !next(&lx) || !lx.quoted) {
                    free(key);
                    return failf(&lx, "key without a quoted value in entity %zu", m->nents - 1);
                }
                char *value = strdup(lx.tok);
                if (!value || !push((void **)&m->pairs, &m->npairs, sizeof *m->pairs)) {
                    free(key);
                    free(value);
                    return failf(&lx, "out of memory");
                }
                m->pairs[m->npairs - 1] = (mr_pair){key, value};
                e = &m->ents[m->nents - 1];
                e->npairs++;
                continue;
            }
            if (strcmp(lx.tok, "{") != 0)
                return failf(&lx, "unexpected '%s' in entity %zu", lx.tok, m->nents - 1);
            if (!push((void **)&m->brushes, &m->nbrushes, sizeof *m->brushes))
                return failf(&lx, "out of memory");
            mr_brush *b = &m->brushes[m->nbrushes - 1];
            b->first_side = m->nsides;
            for (;;) {
                if (!next(&lx))
                    return failf(&lx, "brush %zu is not closed", m->nbrushes - 1);
                if (!lx.quoted && strcmp(lx.tok, "}") == 0)
                    break;
                if (lx.quoted || strcmp(lx.tok, "(") != 0)
                    return failf(&lx, "expected a side in brush %zu, got '%s'", m->nbrushes - 1, lx.tok);
                if (!push((void **)&m->sides, &m->nsides, sizeof *m->sides))
                    return failf(&lx, "out of memory");
                if (!read_side(&lx, &m->sides[m->nsides - 1]))
                    return false;
                m->brushes[m->nbrushes - 1].nsides++;
            }
            m->ents[m->nents - 1].nbrushes++;
        }
    }
    return true;
}

void mr_free(mr_map *m)
{
    for (size_t i = 0; i < m->npairs; i++) {
        free(m->pairs[i].key);
        free(m->pairs[i].value);
    }
    free(m->pairs);
    free(m->ents);
    free(m->brushes);
    free(m->sides);
    memset(m, 0, sizeof *m);
}

const char *mr_value(const mr_map *m, size_t ent, const char *key)
{
    const mr_entity *e = &m->ents[ent];
    for (size_t i = 0; i < e->npairs; i++)
        if (strcmp(m->pairs[e->first_pair + i].key, key) == 0)
            return m->pairs[e->first_pair + i].value;
    return NULL;
}

bool mr_brush_contains(const mr_map *m, size_t b, const double p[3], double eps)
{
    const mr_brush *br = &m->brushes[b];
    for (size_t i = 0; i < br->nsides; i++) {
        const mr_side *s = &m->sides[br->first_side + i];
        if (s->n[0] * p[0] + s->n[1] * p[1] + s->n[2] * p[2] - s->d > eps)
            return false;
    }
    return br->nsides >= 4;
}

mr_kind mr_brush_kind(const mr_map *m, size_t b)
{
    const mr_brush *br = &m->brushes[b];
    if (br->nsides == 0)
        return MR_SOLID;
    const char *t = m->sides[br->first_side].tex;
    if (t[0] == '*' || t[0] == '!')
        return MR_LIQUID;
    if (strncasecmp(t, "sky", 3) == 0)
        return MR_SKY;
    if (strcasecmp(t, "origin") == 0)
        return MR_ORIGIN;
    if (strcasecmp(t, "clip") == 0)
        return MR_CLIP;
    return MR_SOLID;
}

static int tree_kind(int32_t c)
{
    if (c == BSPKIT_Q_CONTENTS_SOLID)
        return MR_SOLID;
    if ((c <= BSPKIT_Q_CONTENTS_WATER && c >= BSPKIT_Q_CONTENTS_LAVA) ||
        (c <= BSPKIT_Q_CONTENTS_CURRENT_0 && c >= BSPKIT_Q_CONTENTS_CURRENT_DOWN))
        return MR_LIQUID;
    if (c == BSPKIT_Q_CONTENTS_SKY)
        return MR_SKY;
    return -1;
}

static uint32_t rnd(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

bool mr_agree(bspkit_map *map, const mr_map *m, size_t points, uint32_t seed, mr_agreement *out, char *why,
              size_t why_size)
{
    memset(out, 0, sizeof *out);
    out->worst = 100;
    out->worst_model = -1;
    bspkit_error err;
    const bspkit_entities *ents;
    const bspkit_model *models;
    size_t nmodels;
    if (bspkit_get_entities(map, &ents, &err) != BSPKIT_OK || bspkit_get_models(map, &models, &nmodels, &err)) {
        snprintf(why, why_size, "%s", err.message);
        return false;
    }
    bool has_world = false;
    for (size_t i = 0; i < ents->count; i++) {
        const char *cls = bspkit_entity_value(ents, i, "classname");
        has_world |= cls && strcmp(cls, "worldspawn") == 0;
    }
    size_t added = has_world || nmodels == 0 ? 0 : 1;
    if (m->nents != ents->count + added) {
        snprintf(why, why_size, "%zu entities written for %zu in the map", m->nents, ents->count);
        return false;
    }
    uint8_t *seen = calloc(nmodels + 1, 1);
    if (!seen) {
        snprintf(why, why_size, "out of memory");
        return false;
    }
    uint32_t state = seed ? seed : 1;
    bool ok = true;
    for (size_t oi = 0; oi < m->nents && ok; oi++) {
        long model = -1;
        double shift[3] = {0, 0, 0};
        if (oi < added) {
            model = 0;
        } else {
            size_t ei = oi - added;
            const char *cls = bspkit_entity_value(ents, ei, "classname");
            const char *mv = bspkit_entity_value(ents, ei, "model");
            if (cls && strcmp(cls, "worldspawn") == 0 && !added && !seen[0])
                model = 0;
            else if (mv && mv[0] == '*') {
                char *e;
                model = strtol(mv + 1, &e, 10);
                if (*e || model < 0 || (size_t)model >= nmodels)
                    model = -1;
                const char *o = bspkit_entity_value(ents, ei, "origin");
                if (model > 0 && o && sscanf(o, "%lf %lf %lf", &shift[0], &shift[1], &shift[2]) != 3)
                    shift[0] = shift[1] = shift[2] = 0;
            }
        }
        if (model < 0 || seen[model])
            continue;
        seen[model] = 1;
        const bspkit_model *md = &models[model];
        double lo[3] = {md->mins.x, md->mins.y, md->mins.z}, hi[3] = {md->maxs.x, md->maxs.y, md->maxs.z};
        if (!(lo[0] < hi[0] && lo[1] < hi[1] && lo[2] < hi[2]))
            continue;
        const mr_entity *e = &m->ents[oi];
        uint64_t agreed = 0;
        for (size_t k = 0; k < points; k++) {
            double p[3];
            for (int j = 0; j < 3; j++)
                p[j] = lo[j] + (hi[j] - lo[j]) * ((rnd(&state) + 0.5) / 4294967296.0);
            int32_t contents;
            if (bspkit_point_contents_model(map, (int)model, (bspkit_vec3){(float)p[0], (float)p[1], (float)p[2]}, 0,
                                            &contents, &err) != BSPKIT_OK) {
                snprintf(why, why_size, "model %ld: %s", model, err.message);
                ok = false;
                break;
            }
            /* The float the tree was asked about is the point tested against the brushes. */
            double q[3] = {(float)p[0] + shift[0], (float)p[1] + shift[1], (float)p[2] + shift[2]};
            bool in[3] = {false, false, false};
            for (size_t b = 0; b < e->nbrushes; b++) {
                mr_kind kind = mr_brush_kind(m, e->first_brush + b);
                if (kind < 3 && !in[kind] && mr_brush_contains(m, e->first_brush + b, q, 1e-4))
                    in[kind] = true;
            }
            int tk = tree_kind(contents);
            out->solid_points += tk == MR_SOLID;
            bool same = true;
            for (int kind = 0; kind < 3; kind++)
                same &= in[kind] == (tk == kind);
            agreed += same;
        }
        out->models++;
        out->points += points;
        out->agreed += agreed;
        double pct = points ? 100.0 * (double)agreed / (double)points : 100;
        if (pct < out->worst) {
            out->worst = pct;
            out->worst_model = (int)model;
        }
    }
    free(seen);
    return ok;
}

/* ---- the player hull ---------------------------------------------------- */

typedef struct grown_brush {
    size_t brush;
    mr_kind kind;
    double lo[3], hi[3]; /* the brush's bounds grown by the box */
} grown_brush;

/* Bounds of brush b from its corners (every three side planes meeting inside the rest). */
static bool brush_bounds(const mr_map *m, size_t b, double lo[3], double hi[3])
{
    const mr_brush *br = &m->brushes[b];
    bool any = false;
    for (size_t i = 0; i < br->nsides; i++)
        for (size_t j = i + 1; j < br->nsides; j++)
            for (size_t k = j + 1; k < br->nsides; k++) {
                const mr_side *a = &m->sides[br->first_side + i], *c = &m->sides[br->first_side + j],
                              *e = &m->sides[br->first_side + k];
                /* Cramer's rule for n_a.x = d_a, n_c.x = d_c, n_e.x = d_e. */
                double cx[3] = {c->n[1] * e->n[2] - c->n[2] * e->n[1], c->n[2] * e->n[0] - c->n[0] * e->n[2],
                                c->n[0] * e->n[1] - c->n[1] * e->n[0]};
                double det = a->n[0] * cx[0] + a->n[1] * cx[1] + a->n[2] * cx[2];
                if (fabs(det) < 1e-9)
                    continue;
                double ex[3] = {e->n[1] * a->n[2] - e->n[2] * a->n[1], e->n[2] * a->n[0] - e->n[0] * a->n[2],
                                e->n[0] * a->n[1] - e->n[1] * a->n[0]};
                double ax[3] = {a->n[1] * c->n[2] - a->n[2] * c->n[1], a->n[2] * c->n[0] - a->n[0] * c->n[2],
                                a->n[0] * c->n[1] - a->n[1] * c->n[0]};
                double p[3];
                for (int q = 0; q < 3; q++)
                    p[q] = (a->d * cx[q] + c->d * ex[q] + e->d * ax[q]) / det;
                if (!mr_brush_contains(m, b, p, 1e-3))
                    continue;
                for (int q = 0; q < 3; q++) {
                    lo[q] = any ? fmin(lo[q], p[q]) : p[q];
                    hi[q] = any ? fmax(hi[q], p[q]) : p[q];
                }
                any = true;
            }
    return any;
}

/* Whether p lies in brush b grown by the box mins..maxs (faces and bounds; no edge bevels). */
static bool grown_contains(const mr_map *m, const grown_brush *g, const double p[3], const double mins[3],
                           const double maxs[3])
{
    for (int q = 0; q < 3; q++)
        if (p[q] < g->lo[q] || p[q] > g->hi[q])
            return false;
    const mr_brush *br = &m->brushes[g->brush];
    for (size_t i = 0; i < br->nsides; i++) {
        const mr_side *s = &m->sides[br->first_side + i];
        /* The box mirrored: a point is blocked when the box around it reaches the brush. */
        double grow = 0;
        for (int q = 0; q < 3; q++)
            grow += s->n[q] > 0 ? -mins[q] * s->n[q] : -maxs[q] * s->n[q];
        if (s->n[0] * p[0] + s->n[1] * p[1] + s->n[2] * p[2] - s->d > grow + 1e-3)
            return false;
    }
    return true;
}

bool mr_agree_hull(bspkit_map *map, const mr_map *m, size_t points, uint32_t seed, mr_hull_agreement *out, char *why,
                   size_t why_size)
{
    memset(out, 0, sizeof *out);
    bspkit_error err;
    const bspkit_model *models;
    size_t nmodels;
    if (bspkit_get_models(map, &models, &nmodels, &err) != BSPKIT_OK || nmodels == 0) {
        snprintf(why, why_size, "no models");
        return false;
    }
    bool goldsrc = bspkit_map_format(map)->family == BSPKIT_FAMILY_GOLDSRC;
    out->hull = goldsrc ? 3 : 1;
    double mins[3] = {-16, -16, goldsrc ? -18 : -24}, maxs[3] = {16, 16, goldsrc ? 18 : 32};
    size_t world = m->nents;
    for (size_t i = 0; i < m->nents && world == m->nents; i++) {
        const char *cls = mr_value(m, i, "classname");
        if (cls && strcmp(cls, "worldspawn") == 0)
            world = i;
    }
    if (world == m->nents) {
        snprintf(why, why_size, "no worldspawn");
        return false;
    }
    const mr_entity *e = &m->ents[world];
    grown_brush *g = calloc(e->nbrushes ? e->nbrushes : 1, sizeof *g);
    if (!g) {
        snprintf(why, why_size, "out of memory");
        return false;
    }
    size_t ng = 0;
    for (size_t b = 0; b < e->nbrushes; b++) {
        size_t bi = e->first_brush + b;
        mr_kind kind = mr_brush_kind(m, bi);
        if ((kind != MR_SOLID && kind != MR_SKY && kind != MR_CLIP) || !brush_bounds(m, bi, g[ng].lo, g[ng].hi))
            continue;
        for (int q = 0; q < 3; q++) {
            g[ng].lo[q] -= maxs[q] + 1e-3;
            g[ng].hi[q] -= mins[q] - 1e-3;
        }
        g[ng].brush = bi;
        g[ng].kind = kind;
        ng++;
    }
    const bspkit_model *w = &models[0];
    double lo[3] = {w->mins.x, w->mins.y, w->mins.z}, hi[3] = {w->maxs.x, w->maxs.y, w->maxs.z};
    uint32_t state = seed ? seed : 1;
    bool ok = true;
    for (size_t k = 0; k < points && ok; k++) {
        double p[3];
        for (int j = 0; j < 3; j++)
            p[j] = (float)(lo[j] + (hi[j] - lo[j]) * ((rnd(&state) + 0.5) / 4294967296.0));
        int32_t contents;
        if (bspkit_point_contents_model(map, 0, (bspkit_vec3){(float)p[0], (float)p[1], (float)p[2]}, out->hull,
                                        &contents, &err) != BSPKIT_OK) {
            if (err.code == BSPKIT_ERR_NOT_FOUND)
                break; /* no clip hulls in this map (compiled without them): nothing to compare */
            snprintf(why, why_size, "hull %d: %s", out->hull, err.message);
            ok = false;
            break;
        }
        /* Sky brushes stay sky in the clip hulls of some compilers. */
        bool solid = contents == BSPKIT_Q_CONTENTS_SOLID || contents == BSPKIT_Q_CONTENTS_SKY;
        bool by_brush = false, by_clip = false;
        for (size_t i = 0; i < ng && !by_brush; i++) {
            if (g[i].kind == MR_CLIP && by_clip)
                continue;
            if (grown_contains(m, &g[i], p, mins, maxs)) {
                if (g[i].kind == MR_CLIP)
                    by_clip = true;
                else
                    by_brush = true;
            }
        }
        out->points++;
        out->agreed += solid == (by_brush || by_clip);
        if (solid && !by_brush) {
            out->clip_points++;
            out->clip_covered += by_clip;
        }
        out->false_clip += !solid && !by_brush && by_clip;
    }
    free(g);
    return ok;
}
