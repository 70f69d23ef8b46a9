/* Convex polygon clipping in double precision (see poly.h). */
#include "poly.h"

#include <math.h>
#include <stdbool.h>

bk_dvec dv_normalize(bk_dvec a)
{
    double len = dv_length(a);
    return len > 0 ? dv_scale(a, 1.0 / len) : (bk_dvec){0, 0, 0};
}

void bk_poly_base(const bk_dplane *plane, double extent, bk_dvec out[4])
{
    bk_dvec n = plane->n;
    /* Any vector not parallel to the normal gives the square's axes. */
    bk_dvec up = fabs(n.z) > 0.7 ? (bk_dvec){1, 0, 0} : (bk_dvec){0, 0, 1};
    bk_dvec u = dv_normalize(dv_sub(up, dv_scale(n, dv_dot(up, n))));
    bk_dvec v = dv_cross(n, u); /* u x v = n */
    bk_dvec c = dv_scale(n, plane->d);
    bk_dvec ue = dv_scale(u, extent), ve = dv_scale(v, extent);
    out[0] = dv_sub(dv_sub(c, ue), ve);
    out[1] = dv_sub(dv_add(c, ue), ve);
    out[2] = dv_add(dv_add(c, ue), ve);
    out[3] = dv_add(dv_sub(c, ue), ve);
}

/* One edge p -> q of a clip, with both ends' distances: p when it is kept,
 * then the crossing point when the edge strictly crosses the plane. False
 * when that would pass `cap` (only a polygon that is not convex can). */
static inline bool clip_edge(bk_dvec p, bk_dvec q, double dp, double dq, double eps, bk_dvec *out, size_t *m,
                             size_t cap)
{
    bool cross = (dp < -eps && dq > eps) || (dp > eps && dq < -eps);
    if (*m + (dp <= eps) + cross > cap)
        return false;
    if (dp <= eps)
        out[(*m)++] = p;
    if (cross) {
        double t = dp / (dp - dq);
        out[(*m)++] = dv_add(p, dv_scale(dv_sub(q, p), t));
    }
    return true;
}

size_t bk_poly_clip_back(const bk_dvec *in, size_t n, const bk_dplane *plane, double eps, bk_dvec *out, size_t cap)
{
    if (n == 0)
        return 0;
    /* Each point's distance once: an edge's end is the next edge's start. */
    const double first = dv_dot(plane->n, in[0]) - plane->d;
    double dp = first;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        bool last = i + 1 == n;
        double dq = last ? first : dv_dot(plane->n, in[i + 1]) - plane->d;
        if (!clip_edge(in[i], in[last ? 0 : i + 1], dp, dq, eps, out, &m, cap))
            return 0;
        dp = dq;
    }
    return m;
}

size_t bk_poly_clip_back_known(const bk_dvec *in, const double *dist, double sign, size_t n, double eps,
                               bk_dvec *out, size_t cap)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = i + 1 == n ? 0 : i + 1;
        if (!clip_edge(in[i], in[j], sign * dist[i], sign * dist[j], eps, out, &m, cap))
            return 0;
    }
    return m;
}

size_t bk_poly_side(const bk_dplane *planes, size_t count, size_t side, double extent, double eps, bk_dvec *a,
                    bk_dvec *b, bk_dvec **result)
{
    const bk_dplane *own = &planes[side];
    bk_poly_base(own, extent, a);
    size_t n = 4;
    bk_dvec *cur = a, *next = b;
    for (size_t i = 0; i < count && n >= 3; i++) {
        if (i == side)
            continue;
        const bk_dplane *pl = &planes[i];
        if (dv_dot(pl->n, own->n) > 1.0 - 1e-6 && fabs(pl->d - own->d) <= eps)
            continue;
        n = bk_poly_clip_back(cur, n, pl, eps, next, BK_POLY_MAX_POINTS(count));
        bk_dvec *t = cur;
        cur = next;
        next = t;
    }
    *result = cur;
    return n;
}

double bk_poly_area(const bk_dvec *p, size_t n)
{
    bk_dvec sum = {0, 0, 0};
    for (size_t i = 1; i + 1 < n; i++)
        sum = dv_add(sum, dv_cross(dv_sub(p[i], p[0]), dv_sub(p[i + 1], p[0])));
    return 0.5 * dv_length(sum);
}

bool bk_poly_wider_than(const bk_dvec *p, size_t n, double width)
{
    if (n < 3)
        return false;
    size_t far = 0;
    double far_d = -1;
    for (size_t i = 1; i < n; i++) {
        bk_dvec d = dv_sub(p[i], p[0]);
        if (dv_dot(d, d) > far_d) {
            far_d = dv_dot(d, d);
            far = i;
        }
    }
    bk_dvec axis = dv_sub(p[far], p[0]);
    double len = dv_length(axis);
    if (!(len > 0))
        return false;
    for (size_t i = 1; i < n; i++)
        if (dv_length(dv_cross(axis, dv_sub(p[i], p[0]))) / len > width)
            return true;
    return false;
}

/* Three points of polygon p[0..n) (CCW seen from the front) spread as far apart as the polygon
 * allows, in the order Hammer and vbsp read back as the same plane:
 * normal = (p0 - p1) x (p2 - p1), i.e. clockwise seen from the front. */
void bk_poly_plane_points(const bk_dvec *p, size_t n, bk_dvec out[3])
{
    size_t i = 0, j = 1, k = 2;
    double best = -1;
    for (size_t a = 1; a < n; a++) {
        double d = dv_dot(dv_sub(p[a], p[0]), dv_sub(p[a], p[0]));
        if (d > best)
            best = d, j = a;
    }
    best = -1;
    for (size_t a = 1; a < n; a++) {
        if (a == j)
            continue;
        double ar = dv_length(dv_cross(dv_sub(p[j], p[0]), dv_sub(p[a], p[0])));
        if (ar > best)
            best = ar, k = a;
    }
    /* keep winding order: indices ascending around the CCW polygon */
    size_t lo = j < k ? j : k, hi = j < k ? k : j;
    out[0] = p[hi], out[1] = p[lo], out[2] = p[i];
}
