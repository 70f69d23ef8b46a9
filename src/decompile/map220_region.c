/* Convex regions cut by planes (see map220_region.h). */
#include "map220_region.h"

#include "core/grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void bk_region_free(bk_region *r)
{
    free(r->faces);
    free(r->points);
    *r = (bk_region){0};
}

void bk_region_recycle(bk_region_ctx *c, bk_region *r)
{
    if (c->npool == BK_REGION_POOL || (!r->cap_faces && !r->cap_points)) {
        bk_region_free(r);
        return;
    }
    r->nfaces = r->npoints = 0;
    c->pool[c->npool++] = *r;
    *r = (bk_region){0};
}

bk_region bk_region_take(bk_region_ctx *c)
{
    return c->npool > 0 ? c->pool[--c->npool] : (bk_region){0};
}

void bk_region_ctx_free(bk_region_ctx *c)
{
    while (c->npool > 0)
        bk_region_free(&c->pool[--c->npool]);
    free(c->a);
    free(c->b);
    free(c->dist);
    c->a = c->b = NULL;
    c->dist = NULL;
    c->cap = c->cap_dist = 0;
}

bool bk_region_ctx_reserve(bk_region_ctx *c, size_t need)
{
    if (need <= c->cap)
        return true;
    bk_dvec *a = realloc(c->a, need * sizeof *a);
    if (a)
        c->a = a;
    bk_dvec *b = a ? realloc(c->b, need * sizeof *b) : NULL;
    if (!b)
        return false;
    c->b = b;
    c->cap = need;
    return true;
}

bool bk_region_add_face(bk_region *r, const bk_dplane *pl, int32_t plane, uint8_t flip, const bk_dvec *pts,
                        size_t n)
{
    if (!bk_grow((void **)&r->faces, &r->cap_faces, r->nfaces + 1, sizeof *r->faces) ||
        !bk_grow((void **)&r->points, &r->cap_points, r->npoints + n, sizeof *r->points))
        return false;
    r->faces[r->nfaces++] = (bk_rface){*pl, plane, flip, 0, (uint32_t)r->npoints, (uint32_t)n};
    if (n > 0)
        memcpy(r->points + r->npoints, pts, n * sizeof *pts);
    r->npoints += n;
    return true;
}

bool bk_region_box(bk_region *r, bk_dvec lo, bk_dvec hi)
{
    r->nfaces = r->npoints = 0;
    if (!bk_grow((void **)&r->faces, &r->cap_faces, 6, sizeof *r->faces) ||
        !bk_grow((void **)&r->points, &r->cap_points, 24, sizeof *r->points))
        return false;
    /* Per axis the +axis face then the -axis face, each counter-clockwise seen from outside. */
    const double x0 = lo.x, y0 = lo.y, z0 = lo.z, x1 = hi.x, y1 = hi.y, z1 = hi.z;
    const bk_dvec q[6][4] = {
        {{x1, y0, z0}, {x1, y1, z0}, {x1, y1, z1}, {x1, y0, z1}},
        {{x0, y0, z0}, {x0, y0, z1}, {x0, y1, z1}, {x0, y1, z0}},
        {{x0, y1, z0}, {x0, y1, z1}, {x1, y1, z1}, {x1, y1, z0}},
        {{x0, y0, z0}, {x1, y0, z0}, {x1, y0, z1}, {x0, y0, z1}},
        {{x0, y0, z1}, {x1, y0, z1}, {x1, y1, z1}, {x0, y1, z1}},
        {{x0, y0, z0}, {x0, y1, z0}, {x1, y1, z0}, {x1, y0, z0}},
    };
    const bk_dplane pl[6] = {{{1, 0, 0}, x1},  {{-1, 0, 0}, -x0}, {{0, 1, 0}, y1},
                             {{0, -1, 0}, -y0}, {{0, 0, 1}, z1},  {{0, 0, -1}, -z0}};
    for (int i = 0; i < 6; i++)
        if (!bk_region_add_face(r, &pl[i], -1, 0, q[i], 4))
            return false;
    return true;
}

/* The cut of bk_region_cut once the distances of in's points are known:
 * point i lies sign * c->dist[i] in front of `pl`, lo..hi their range. */
static bool cut_known(bk_region_ctx *c, const bk_region *in, double sign, double lo, double hi,
                      const bk_dplane *pl, int32_t plane, uint8_t flip, bk_region *out, bk_cut *result)
{
    c->work += in->npoints;
    if (hi <= BK_REGION_ON_EPS) {
        *result = BK_CUT_WHOLE;
        return true;
    }
    if (lo >= -BK_REGION_ON_EPS) {
        *result = BK_CUT_EMPTY;
        return true;
    }
    /* Buffers for the largest polygon: a face plus one point, or the new
     * face's square clipped by every face. */
    size_t need = BK_POLY_MAX_POINTS(in->nfaces);
    for (size_t f = 0; f < in->nfaces; f++)
        need = in->faces[f].count + 1 > need ? in->faces[f].count + 1 : need;
    if (!bk_region_ctx_reserve(c, need))
        return false;
    /* Room for every face gaining a point, and the new face: one allocation at most. */
    if (!out->cap_faces && !out->cap_points)
        *out = bk_region_take(c);
    out->nfaces = out->npoints = 0;
    if (!bk_grow((void **)&out->faces, &out->cap_faces, in->nfaces + 1, sizeof *out->faces) ||
        !bk_grow((void **)&out->points, &out->cap_points, in->npoints + in->nfaces + need, sizeof *out->points))
        return false;
    const double *dist = c->dist;
    for (size_t f = 0; f < in->nfaces; f++) {
        const bk_rface *face = &in->faces[f];
        const bk_dvec *pts = in->points + face->first;
        const double *d = dist + face->first;
        /* Written so that a NaN distance takes the general path, as the clip treats it. */
        bool all_front = true, all_kept = true;
        for (uint32_t i = 0; i < face->count; i++) {
            double s = sign * d[i];
            all_front &= s > BK_REGION_ON_EPS;
            all_kept &= s <= BK_REGION_ON_EPS;
        }
        if (all_front)
            continue; /* nothing is kept */
        const bk_dvec *kept = pts;
        size_t n = face->count;
        bool area_ok = face->area_ok;
        if (!all_kept) {
            n = bk_poly_clip_back_known(pts, d, sign, face->count, BK_REGION_ON_EPS, c->a, c->cap);
            kept = c->a;
            area_ok = false;
        }
        /* A face left whole keeps its points unmoved, and the area they were checked to hold. */
        if (n >= 3 && (area_ok || bk_poly_area(kept, n) > BK_REGION_AREA_EPS)) {
            if (!bk_region_add_face(out, &face->pl, face->plane, face->flip, kept, n))
                return false;
            out->faces[out->nfaces - 1].area_ok = 1;
        }
    }
    bk_poly_base(pl, c->extent, c->a);
    size_t n = 4;
    bk_dvec *cur = c->a, *next = c->b;
    for (size_t f = 0; f < in->nfaces && n >= 3; f++) {
        n = bk_poly_clip_back(cur, n, &in->faces[f].pl, BK_REGION_ON_EPS, next, c->cap);
        bk_dvec *t = cur;
        cur = next;
        next = t;
    }
    c->work += in->nfaces * 8;
    if (n >= 3 && bk_poly_area(cur, n) > BK_REGION_AREA_EPS) {
        if (!bk_region_add_face(out, pl, plane, flip, cur, n))
            return false;
        out->faces[out->nfaces - 1].area_ok = 1;
    }
    *result = out->nfaces >= 4 ? BK_CUT_PART : BK_CUT_EMPTY;
    return true;
}

bool bk_region_cut(bk_region_ctx *c, const bk_region *in, const bk_dplane *pl, int32_t plane, uint8_t flip,
                   bk_region *out, bk_cut *result)
{
    if (!bk_grow((void **)&c->dist, &c->cap_dist, in->npoints ? in->npoints : 1, sizeof *c->dist))
        return false;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < in->npoints; i++) {
        double s = dv_dot(pl->n, in->points[i]) - pl->d;
        c->dist[i] = s;
        lo = s < lo ? s : lo;
        hi = s > hi ? s : hi;
    }
    c->dist_lo = lo;
    c->dist_hi = hi;
    return cut_known(c, in, 1.0, lo, hi, pl, plane, flip, out, result);
}

bool bk_region_cut_again(bk_region_ctx *c, const bk_region *in, const bk_dplane *pl, int32_t plane, uint8_t flip,
                         bk_region *out, bk_cut *result)
{
    return cut_known(c, in, -1.0, -c->dist_hi, -c->dist_lo, pl, plane, flip, out, result);
}

double bk_region_volume(const bk_region *r, bk_dvec ref)
{
    /* Sum of the pyramids from `ref` over every face. */
    double v = 0;
    for (size_t f = 0; f < r->nfaces; f++) {
        const bk_rface *face = &r->faces[f];
        double h = face->pl.d - dv_dot(face->pl.n, ref);
        v += h * bk_poly_area(r->points + face->first, face->count);
    }
    return v / 3;
}
