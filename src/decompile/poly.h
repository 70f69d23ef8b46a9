/* Convex polygons in double precision, for turning brush planes back into
 * sides: a side's polygon is a large square on its plane clipped by every
 * other plane of the brush. Doubles keep nearly parallel planes from
 * producing spurious slivers that float arithmetic would. */
#ifndef BSPKIT_DECOMPILE_POLY_H
#define BSPKIT_DECOMPILE_POLY_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct bk_dvec { double x, y, z; } bk_dvec;

/* The points p with dot(n, p) == d; the half-space kept by a clip is
 * dot(n, p) <= d, so a brush is the intersection of its planes' back sides. */
typedef struct bk_dplane { bk_dvec n; double d; } bk_dplane;

static inline bk_dvec dv_add(bk_dvec a, bk_dvec b) { return (bk_dvec){a.x + b.x, a.y + b.y, a.z + b.z}; }
static inline bk_dvec dv_sub(bk_dvec a, bk_dvec b) { return (bk_dvec){a.x - b.x, a.y - b.y, a.z - b.z}; }
static inline bk_dvec dv_scale(bk_dvec a, double s) { return (bk_dvec){a.x * s, a.y * s, a.z * s}; }
static inline double dv_dot(bk_dvec a, bk_dvec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline bk_dvec dv_cross(bk_dvec a, bk_dvec b)
{
    return (bk_dvec){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline double dv_length(bk_dvec a) { return sqrt(dv_dot(a, a)); }
/* fmax() and fmin(), NaN handling included (a NaN operand gives the
 * other), but inline: the library calls cost a twentieth of a GoldSrc
 * decompile. As with fmax(), which zero a tie of +0 and -0 gives is left
 * open (compilers swap fmax's operands freely). */
static inline double dv_fmax(double a, double b) { return b > a || a != a ? b : a; }
static inline double dv_fmin(double a, double b) { return b < a || a != a ? b : a; }
/* max over the box lo..hi of dot(n, q): no point of the box gives more,
 * also after rounding (each product and sum rounds monotonically). */
static inline double dv_box_support(bk_dvec n, bk_dvec lo, bk_dvec hi)
{
    return (n.x > 0 ? hi.x : lo.x) * n.x + (n.y > 0 ? hi.y : lo.y) * n.y + (n.z > 0 ? hi.z : lo.z) * n.z;
}
/* a / |a|, or the zero vector when |a| is 0. */
bk_dvec dv_normalize(bk_dvec a);

/* Largest number of points a polygon can reach after clipping a base square
 * by `planes` planes: each clip adds at most one point. */
#define BK_POLY_MAX_POINTS(planes) ((size_t)(planes) + 4)

/* A square of half-size `extent` centred on the point of the plane nearest
 * the origin, written to out[0..3], counter-clockwise seen from the front
 * (the side the normal points to): (out[1]-out[0]) x (out[2]-out[1]) has
 * the direction of the normal. The normal must be unit length. */
void bk_poly_base(const bk_dplane *plane, double extent, bk_dvec out[4]);

/* Keep the part of polygon in[0..n) with dot(normal, p) <= d + eps; points
 * within eps of the plane count as on it and are kept unmoved. Writes to
 * `out` (which must not alias `in`; room for `cap` points), keeps the
 * winding, and returns the count (0 when nothing is left; below 3 means
 * degenerate). A convex polygon gains at most one point; one that would
 * need more than `cap` (only a polygon that is not convex can) gives 0. */
size_t bk_poly_clip_back(const bk_dvec *in, size_t n, const bk_dplane *plane, double eps, bk_dvec *out, size_t cap);

/* bk_poly_clip_back with each point's signed distance given: in[i] lies
 * sign * dist[i] in front of the plane (sign 1 or -1: a distance to the
 * plane's negation is exactly the negated distance). */
size_t bk_poly_clip_back_known(const bk_dvec *in, const double *dist, double sign, size_t n, double eps,
                               bk_dvec *out, size_t cap);

/* The polygon of planes[side] clipped by the back sides of every other plane
 * in planes[0..count), starting from a square of half-size `extent`. Planes
 * equal to the side's own (normal within 1e-6 and distance within eps) are
 * skipped, so duplicates do not cut the side away. `a` and `b` are scratch
 * arrays of BK_POLY_MAX_POINTS(count) points each; the result points into
 * one of them. Returns the point count (below 3: the side has no area). */
size_t bk_poly_side(const bk_dplane *planes, size_t count, size_t side, double extent, double eps, bk_dvec *a,
                    bk_dvec *b, bk_dvec **result);

/* Area of a planar polygon (half the length of the summed cross products). */
double bk_poly_area(const bk_dvec *p, size_t n);

/* Whether some point of polygon p[0..n) lies farther than `width` from the
 * line through its first point and the point farthest from it: a face
 * rather than an edge, a corner, or a sliver narrower than `width`. */
bool bk_poly_wider_than(const bk_dvec *p, size_t n, double width);

/* Three points of polygon p[0..n) (counter-clockwise seen from the front),
 * spread as far apart as the polygon allows, in the order the map editors
 * and compilers read back as the same plane: normal = (p0 - p1) x (p2 - p1). */
void bk_poly_plane_points(const bk_dvec *p, size_t n, bk_dvec out[3]);

#endif
