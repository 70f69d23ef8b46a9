/* Per-face lightmap geometry for every family: which bytes of the lighting
 * lump belong to which face (Quake 3: surface), and whether they are all there. */
#include "bspkit/bspx.h"
#include "bspkit/lighting.h"
#include "bspkit/quake3.h"
#include "core/cpu.h"
#include "core/family.h"
#include "core/surfedge.h"

#include "analysis/lightmap_internal.h"

#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
/* x86-64 hosts with AVX2 project two vertices per step (chosen at run
 * time: the library is built for plain x86-64). */
#if BK_CPU_AVX2
#include <immintrin.h>
#endif

/* Far beyond any engine's lightmap page; keeps width * height * styles * 4
 * * 4 far below 2^64. */
#define MAX_LUXELS_PER_AXIS (1 << 20)

typedef bk_lightmap_faces lm_ctx;

static const bspkit_texinfo *texinfo_of(const lm_ctx *c, const bspkit_face *f)
{
    if (f->texinfo < 0 || (size_t)f->texinfo >= c->texinfo_n)
        return NULL;
    return &c->texinfo[f->texinfo];
}

/* floor() and ceil() for |x| < 2^31, by truncation: without SSE4.1 the
 * library calls cost more than the rest of a face's extents. */
static inline int32_t floor_int(double x)
{
    int32_t i = (int32_t)x;
    return i - (x < (double)i);
}

static inline int32_t ceil_int(double x)
{
    int32_t i = (int32_t)x;
    return i + (x > (double)i);
}

#if defined(__SSE2__)
/* Luxel grids from the projections' ranges, lanes 0 = s and 1 = t (float
 * lanes 2 and 3 unused), both axes at once, as the scalar path computes
 * them. False when a range is out of bounds or NaN. */
static inline bool extents_grid(__m128d dlo, __m128d dhi, __m128 flov, __m128 fhiv, int32_t mins[2], int32_t size[2])
{
    /* Floats widen exactly, and 1e9 is exact in float too. */
    const __m128d fl = _mm_cvtps_pd(flov), fh = _mm_cvtps_pd(fhiv);
    const __m128d big = _mm_set1_pd(1e9), nbig = _mm_set1_pd(-1e9);
    __m128d ok = _mm_and_pd(_mm_and_pd(_mm_cmpgt_pd(dlo, nbig), _mm_cmplt_pd(dhi, big)), _mm_cmple_pd(dlo, dhi));
    ok = _mm_and_pd(ok, _mm_and_pd(_mm_and_pd(_mm_cmpgt_pd(fl, nbig), _mm_cmplt_pd(fh, big)), _mm_cmple_pd(fl, fh)));
    if (_mm_movemask_pd(ok) != 3)
        return false; /* out of range or NaN */
    const __m128d sixteenth = _mm_set1_pd(1.0 / 16.0), one = _mm_set1_pd(1.0);
    /* floor and ceil by truncation (|x| < 2^31 here) */
    __m128d xs = _mm_mul_pd(dlo, sixteenth), tr = _mm_cvtepi32_pd(_mm_cvttpd_epi32(xs));
    const __m128d vdmin = _mm_sub_pd(tr, _mm_and_pd(_mm_cmplt_pd(xs, tr), one));
    xs = _mm_mul_pd(dhi, sixteenth), tr = _mm_cvtepi32_pd(_mm_cvttpd_epi32(xs));
    const __m128d vdmax = _mm_add_pd(tr, _mm_and_pd(_mm_cmpgt_pd(xs, tr), one));
    xs = _mm_mul_pd(fl, sixteenth), tr = _mm_cvtepi32_pd(_mm_cvttpd_epi32(xs));
    const __m128d vfmin = _mm_sub_pd(tr, _mm_and_pd(_mm_cmplt_pd(xs, tr), one));
    xs = _mm_mul_pd(fh, sixteenth), tr = _mm_cvtepi32_pd(_mm_cvttpd_epi32(xs));
    const __m128d vfmax = _mm_add_pd(tr, _mm_and_pd(_mm_cmpgt_pd(xs, tr), one));
    /* per axis the smaller grid */
    const __m128d take_f = _mm_cmplt_pd(_mm_sub_pd(vfmax, vfmin), _mm_sub_pd(vdmax, vdmin));
    const __m128d gmin = _mm_or_pd(_mm_and_pd(take_f, vfmin), _mm_andnot_pd(take_f, vdmin));
    const __m128d gmax = _mm_or_pd(_mm_and_pd(take_f, vfmax), _mm_andnot_pd(take_f, vdmax));
    int32_t m[4], n[4];
    _mm_storeu_si128((__m128i *)m, _mm_cvttpd_epi32(gmin));
    _mm_storeu_si128((__m128i *)n, _mm_cvttpd_epi32(_mm_add_pd(_mm_sub_pd(gmax, gmin), one)));
    mins[0] = m[0], mins[1] = m[1], size[0] = n[0], size[1] = n[1];
    return true;
}
#endif

/* The corner-projection bounds of a Quake/GoldSrc face, per axis (s, t):
 * summed in double precision (lo, hi) and, when `floats`, in float (flo,
 * fhi). False when an index on the way is out of range. `floats` is a
 * constant at each call site (these are inlined).
 *
 * The double sum is ericw-tools' and QuakeSpasm's; id's and Valve's tools
 * and engines sum in float, and a vertex on a 16-texel boundary can then
 * land one luxel either way. Real GoldSrc maps hold lightmaps of both
 * sizes, so the extents take per axis the smaller of the two grids: it is
 * the one every engine reads within. */
#if defined(__SSE2__)
/* Both axes at once, lane 0 = s and lane 1 = t (float lanes 2 and 3
 * unused). Every lane operation is the scalar one, in the same order, so
 * the results are the same bits; min/max keep the scalar form's operand
 * order, which passes over a NaN projection. */
static inline __attribute__((always_inline)) bool corner_bounds(const lm_ctx *c, const bspkit_face *f,
                                                                const bspkit_texinfo *ti, bool floats, __m128d *lo,
                                                                __m128d *hi, __m128 *flo, __m128 *fhi)
{
    if (f->first_edge < 0 || f->num_edges <= 0 || (uint64_t)f->first_edge + (uint64_t)f->num_edges > c->surfedges_n)
        return false;
    const int32_t *se = c->surfedges + f->first_edge;
    const float *s = ti->texture_vecs[0], *t = ti->texture_vecs[1];
    const __m128d d0 = _mm_setr_pd(s[0], t[0]), d1 = _mm_setr_pd(s[1], t[1]), d2 = _mm_setr_pd(s[2], t[2]),
                  d3 = _mm_setr_pd(s[3], t[3]);
    __m128 f0 = _mm_setzero_ps(), f1 = f0, f2 = f0, f3 = f0;
    if (floats) {
        f0 = _mm_setr_ps(s[0], t[0], 0, 0), f1 = _mm_setr_ps(s[1], t[1], 0, 0);
        f2 = _mm_setr_ps(s[2], t[2], 0, 0), f3 = _mm_setr_ps(s[3], t[3], 0, 0);
    }
    __m128d dlo = _mm_set1_pd(INFINITY), dhi = _mm_set1_pd(-INFINITY);
    __m128 flov = _mm_set1_ps(INFINITY), fhiv = _mm_set1_ps(-INFINITY);
    for (int32_t k = 0; k < f->num_edges; k++) {
        int64_t vi = bk_surfedge_vertex(se[k], c->edges, c->edges_n, c->verts_n);
        if (vi < 0)
            return false;
        const bspkit_vec3 *v = &c->verts[vi];
        __m128d dp = _mm_add_pd(_mm_add_pd(_mm_add_pd(_mm_mul_pd(_mm_set1_pd(v->x), d0), _mm_mul_pd(_mm_set1_pd(v->y), d1)),
                                           _mm_mul_pd(_mm_set1_pd(v->z), d2)),
                                d3);
        dlo = _mm_min_pd(dp, dlo);
        dhi = _mm_max_pd(dp, dhi);
        if (floats) {
            __m128 fp = _mm_add_ps(
                _mm_add_ps(_mm_add_ps(_mm_mul_ps(_mm_set1_ps(v->x), f0), _mm_mul_ps(_mm_set1_ps(v->y), f1)),
                           _mm_mul_ps(_mm_set1_ps(v->z), f2)),
                f3);
            flov = _mm_min_ps(fp, flov);
            fhiv = _mm_max_ps(fp, fhiv);
        }
    }
    *lo = dlo, *hi = dhi, *flo = flov, *fhi = fhiv;
    return true;
}
#else
static inline bool corner_bounds(const lm_ctx *c, const bspkit_face *f, const bspkit_texinfo *ti, bool floats,
                                 double lo[2], double hi[2], float flo[2], float fhi[2])
{
    if (f->first_edge < 0 || f->num_edges <= 0 || (uint64_t)f->first_edge + (uint64_t)f->num_edges > c->surfedges_n)
        return false;
    const int32_t *se = c->surfedges + f->first_edge;
    lo[0] = lo[1] = INFINITY, hi[0] = hi[1] = -INFINITY;
    flo[0] = flo[1] = INFINITY, fhi[0] = fhi[1] = -INFINITY;
    for (int32_t k = 0; k < f->num_edges; k++) {
        int64_t vi = bk_surfedge_vertex(se[k], c->edges, c->edges_n, c->verts_n);
        if (vi < 0)
            return false;
        const bspkit_vec3 *v = &c->verts[vi];
        for (int axis = 0; axis < 2; axis++) {
            const float *tv = ti->texture_vecs[axis];
            double d = (double)v->x * tv[0] + (double)v->y * tv[1] + (double)v->z * tv[2] + tv[3];
            lo[axis] = d < lo[axis] ? d : lo[axis];
            hi[axis] = d > hi[axis] ? d : hi[axis];
            if (floats) {
                /* Each step rounded to float, as the float-summing code does. */
                float fs = v->x * tv[0];
                fs = fs + (float)(v->y * tv[1]);
                fs = fs + (float)(v->z * tv[2]);
                fs = fs + tv[3];
                flo[axis] = fs < flo[axis] ? fs : flo[axis];
                fhi[axis] = fs > fhi[axis] ? fs : fhi[axis];
            }
        }
    }
    return true;
}
#endif

/* Texture-space extents of a Quake/GoldSrc face, in luxels. False when an
 * index is out of range or the projection is not finite. */
static bool quake_extents(const lm_ctx *c, const bspkit_face *f, const bspkit_texinfo *ti, int32_t mins[2],
                          int32_t size[2])
{
#if defined(__SSE2__)
    __m128d lo, hi;
    __m128 flo, fhi;
    return corner_bounds(c, f, ti, true, &lo, &hi, &flo, &fhi) && extents_grid(lo, hi, flo, fhi, mins, size);
#else
    double lo[2], hi[2];
    float flo[2], fhi[2];
    if (!corner_bounds(c, f, ti, true, lo, hi, flo, fhi))
        return false;
    for (int axis = 0; axis < 2; axis++) {
        /* Also rejects NaN (comparisons false) before any float-to-int conversion. */
        if (!(lo[axis] > -1e9 && hi[axis] < 1e9 && lo[axis] <= hi[axis] && flo[axis] > -1e9f && fhi[axis] < 1e9f &&
              flo[axis] <= fhi[axis]))
            return false;
        int32_t dmin = floor_int(lo[axis] / 16.0), dmax = ceil_int(hi[axis] / 16.0);
        int32_t fmin = floor_int(flo[axis] / 16.0), fmax = ceil_int(fhi[axis] / 16.0);
        if (fmax - fmin < dmax - dmin) {
            dmin = fmin;
            dmax = fmax;
        }
        mins[axis] = dmin;
        size[axis] = dmax - dmin + 1;
    }
    return true;
#endif
}

#if BK_CPU_AVX2
/* corner_bounds two vertices per step: the double lanes are (s, t) of one
 * vertex and (s, t) of the next, the float lanes likewise. Every lane
 * operation is the scalar one, in the same order (no fused multiply-add:
 * the target is AVX2 alone), so each projection is the same bits. The
 * scalar form's min/max operand order drops a NaN projection, so the two
 * halves combine into the same minimum and maximum in either order. */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) bool
corner_bounds_avx2(const lm_ctx *c, const bspkit_face *f, const bspkit_texinfo *ti, bool floats, __m128d *lo,
                   __m128d *hi, __m128 *flo, __m128 *fhi)
{
    if (f->first_edge < 0 || f->num_edges <= 0 || (uint64_t)f->first_edge + (uint64_t)f->num_edges > c->surfedges_n)
        return false;
    const int32_t *se = c->surfedges + f->first_edge;
    const float *s = ti->texture_vecs[0], *t = ti->texture_vecs[1];
    const __m256d d0 = _mm256_setr_pd(s[0], t[0], s[0], t[0]), d1 = _mm256_setr_pd(s[1], t[1], s[1], t[1]),
                  d2 = _mm256_setr_pd(s[2], t[2], s[2], t[2]), d3 = _mm256_setr_pd(s[3], t[3], s[3], t[3]);
    __m128 f0 = _mm_setzero_ps(), f1 = f0, f2 = f0, f3 = f0;
    if (floats) {
        f0 = _mm_setr_ps(s[0], t[0], s[0], t[0]), f1 = _mm_setr_ps(s[1], t[1], s[1], t[1]);
        f2 = _mm_setr_ps(s[2], t[2], s[2], t[2]), f3 = _mm_setr_ps(s[3], t[3], s[3], t[3]);
    }
    __m256d dlo = _mm256_set1_pd(INFINITY), dhi = _mm256_set1_pd(-INFINITY);
    __m128 flov = _mm_set1_ps(INFINITY), fhiv = _mm_set1_ps(-INFINITY);
    const int32_t corners = f->num_edges;
    for (int32_t k = 0; k < corners; k += 2) {
        int64_t va = bk_surfedge_vertex(se[k], c->edges, c->edges_n, c->verts_n);
        /* An odd count ends on its last vertex twice, which moves no bound. */
        int64_t vb = k + 1 < corners ? bk_surfedge_vertex(se[k + 1], c->edges, c->edges_n, c->verts_n) : va;
        if ((va | vb) < 0)
            return false;
        const bspkit_vec3 *a = &c->verts[va], *b = &c->verts[vb];
        /* x and y as one 8-byte load, z alone: a vertex is 12 bytes. */
        __m128 xy = _mm_unpacklo_ps(_mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)&a->x)),
                                    _mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)&b->x)));
        __m128 zz = _mm_unpacklo_ps(_mm_load_ss(&a->z), _mm_load_ss(&b->z));
        __m128 x = _mm_shuffle_ps(xy, xy, _MM_SHUFFLE(1, 1, 0, 0)); /* xa xa xb xb */
        __m128 y = _mm_shuffle_ps(xy, xy, _MM_SHUFFLE(3, 3, 2, 2));
        __m128 z = _mm_shuffle_ps(zz, zz, _MM_SHUFFLE(1, 1, 0, 0));
        if (floats) {
            __m128 fp = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(x, f0), _mm_mul_ps(y, f1)), _mm_mul_ps(z, f2)), f3);
            flov = _mm_min_ps(fp, flov);
            fhiv = _mm_max_ps(fp, fhiv);
        }
        __m256d dp = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(_mm256_cvtps_pd(x), d0),
                                                               _mm256_mul_pd(_mm256_cvtps_pd(y), d1)),
                                                 _mm256_mul_pd(_mm256_cvtps_pd(z), d2)),
                                   d3);
        dlo = _mm256_min_pd(dp, dlo);
        dhi = _mm256_max_pd(dp, dhi);
    }
    *lo = _mm_min_pd(_mm256_extractf128_pd(dlo, 1), _mm256_castpd256_pd128(dlo));
    *hi = _mm_max_pd(_mm256_extractf128_pd(dhi, 1), _mm256_castpd256_pd128(dhi));
    *flo = _mm_min_ps(_mm_movehl_ps(flov, flov), flov);
    *fhi = _mm_max_ps(_mm_movehl_ps(fhiv, fhiv), fhiv);
    return true;
}

/* quake_extents on the AVX2 path. */
__attribute__((target("avx2"))) static bool quake_extents_avx2(const lm_ctx *c, const bspkit_face *f,
                                                               const bspkit_texinfo *ti, int32_t mins[2],
                                                               int32_t size[2])
{
    __m128d lo, hi;
    __m128 flov, fhiv;
    if (!corner_bounds_avx2(c, f, ti, true, &lo, &hi, &flov, &fhiv))
        return false;
    /* extents_grid's steps on all four ranges at once: lanes s and t of
     * the double sums, then s and t of the float sums (widened exactly);
     * AVX's floor and ceil are exact, as the truncation there is. */
    const __m256d lo4 = _mm256_insertf128_pd(_mm256_castpd128_pd256(lo), _mm_cvtps_pd(flov), 1);
    const __m256d hi4 = _mm256_insertf128_pd(_mm256_castpd128_pd256(hi), _mm_cvtps_pd(fhiv), 1);
    const __m256d ok = _mm256_and_pd(_mm256_and_pd(_mm256_cmp_pd(lo4, _mm256_set1_pd(-1e9), _CMP_GT_OQ),
                                                   _mm256_cmp_pd(hi4, _mm256_set1_pd(1e9), _CMP_LT_OQ)),
                                     _mm256_cmp_pd(lo4, hi4, _CMP_LE_OQ));
    if (_mm256_movemask_pd(ok) != 15)
        return false; /* out of range or NaN */
    const __m256d sixteenth = _mm256_set1_pd(1.0 / 16.0);
    const __m256d first = _mm256_floor_pd(_mm256_mul_pd(lo4, sixteenth));
    const __m256d span = _mm256_sub_pd(_mm256_ceil_pd(_mm256_mul_pd(hi4, sixteenth)), first);
    /* per axis the smaller grid */
    const __m128d dspan = _mm256_castpd256_pd128(span), fspan = _mm256_extractf128_pd(span, 1);
    const __m128d take_f = _mm_cmplt_pd(fspan, dspan);
    const __m128d gmin = _mm_blendv_pd(_mm256_castpd256_pd128(first), _mm256_extractf128_pd(first, 1), take_f);
    const __m128d gspan = _mm_blendv_pd(dspan, fspan, take_f);
    int32_t m[4], n[4];
    _mm_storeu_si128((__m128i *)m, _mm_cvttpd_epi32(gmin));
    _mm_storeu_si128((__m128i *)n, _mm_cvttpd_epi32(_mm_add_pd(gspan, _mm_set1_pd(1.0))));
    mins[0] = m[0], mins[1] = m[1], size[0] = n[0], size[1] = n[1];
    return true;
}

#endif

/* One face's entry. `avx2` is a constant at each call site, so each face
 * loop below inlines one extents path. */
static inline __attribute__((always_inline)) void quake_face(const lm_ctx *c, size_t i, const bspkit_face *f,
                                                             bspkit_face_lightmap *o, bool avx2)
{
    bool rgb = c->rgb_luxels;
    o->bytes_per_luxel = rgb ? 3 : 1;
    const bspkit_texinfo *ti = texinfo_of(c, f);
    if (!ti || (ti->flags & c->no_lightmap) || o->styles == 0)
        return;
    int64_t offset = f->light_offset;
    int32_t mins[2] = {0, 0}, size[2] = {0, 0};
    if (c->decoupled && i < c->decoupled_n) {
        const bspkit_bspx_decoupled_lm *d = &c->decoupled[i];
        o->decoupled = true;
        offset = d->offset;
        size[0] = d->lmwidth;
        size[1] = d->lmheight;
    } else {
#if BK_CPU_AVX2
        bool ok = avx2 ? quake_extents_avx2(c, f, ti, mins, size) : quake_extents(c, f, ti, mins, size);
#else
        (void)avx2;
        bool ok = quake_extents(c, f, ti, mins, size);
#endif
        if (!ok)
            return;
    }
    if (offset < 0 || size[0] <= 0 || size[1] <= 0)
        return;
    o->lit = true;
    o->mins[0] = mins[0];
    o->mins[1] = mins[1];
    o->width = size[0];
    o->height = size[1];
    o->offset = offset;
    uint64_t luxels = (uint64_t)size[0] * (uint64_t)size[1] * (uint64_t)o->styles;
    o->bytes = luxels * (uint64_t)o->bytes_per_luxel;
    o->in_range = range_ok((uint64_t)offset, o->bytes, c->light_size);
    if (c->has_rgb && !rgb) {
        o->rgb_offset = offset * 3;
        o->rgb_in_range = range_ok((uint64_t)o->rgb_offset, luxels * 3, c->rgb_size);
    }
}

/* ------------------------------------------------------------------------ */
/* Screening for validation                                                  */
/* ------------------------------------------------------------------------ */

/* The double-precision luxel grid of a face alone, as the entry computes
 * it before choosing per axis the smaller of it and the float grid: an
 * entry is never larger. False where the entry's extents fail too (an index
 * out of range, a range out of bounds or NaN). */
static inline bool grid_from_double(double lo_s, double lo_t, double hi_s, double hi_t, int32_t size[2])
{
    if (!(lo_s > -1e9 && hi_s < 1e9 && lo_s <= hi_s && lo_t > -1e9 && hi_t < 1e9 && lo_t <= hi_t))
        return false;
    size[0] = ceil_int(hi_s / 16.0) - floor_int(lo_s / 16.0) + 1;
    size[1] = ceil_int(hi_t / 16.0) - floor_int(lo_t / 16.0) + 1;
    return true;
}

static bool double_grid(const lm_ctx *c, const bspkit_face *f, const bspkit_texinfo *ti, int32_t size[2])
{
    double l[2], h[2];
#if defined(__SSE2__)
    __m128d lo, hi;
    __m128 unused_lo, unused_hi;
    if (!corner_bounds(c, f, ti, false, &lo, &hi, &unused_lo, &unused_hi))
        return false;
    _mm_storeu_pd(l, lo);
    _mm_storeu_pd(h, hi);
#else
    float unused_lo[2], unused_hi[2];
    if (!corner_bounds(c, f, ti, false, l, h, unused_lo, unused_hi))
        return false;
#endif
    return grid_from_double(l[0], l[1], h[0], h[1], size);
}

#if BK_CPU_AVX2
/* double_grid on the AVX2 path: corner_bounds_avx2's double lanes, then
 * grid_from_double's steps on both axes at once (AVX's floor and ceil are
 * exact, as the truncation there is). */
__attribute__((target("avx2"))) static bool double_grid_avx2(const lm_ctx *c, const bspkit_face *f,
                                                             const bspkit_texinfo *ti, int32_t size[2])
{
    __m128d lo, hi;
    __m128 unused_lo, unused_hi;
    if (!corner_bounds_avx2(c, f, ti, false, &lo, &hi, &unused_lo, &unused_hi))
        return false;
    const __m128d ok = _mm_and_pd(_mm_and_pd(_mm_cmpgt_pd(lo, _mm_set1_pd(-1e9)), _mm_cmplt_pd(hi, _mm_set1_pd(1e9))),
                                  _mm_cmple_pd(lo, hi));
    if (_mm_movemask_pd(ok) != 3)
        return false;
    const __m128d sixteenth = _mm_set1_pd(1.0 / 16.0);
    const __m128d span = _mm_sub_pd(_mm_ceil_pd(_mm_mul_pd(hi, sixteenth)), _mm_floor_pd(_mm_mul_pd(lo, sixteenth)));
    const __m128i n = _mm_cvttpd_epi32(_mm_add_pd(span, _mm_set1_pd(1.0)));
    size[0] = _mm_cvtsi128_si32(n);
    size[1] = _mm_cvtsi128_si32(_mm_srli_si128(n, 4));
    return true;
}
#endif

/* Luxels of any face with texinfo `ti` at most, from the extent of all
 * vertexes: a face's projections along a row span at most the sum over the
 * axes of |coefficient| x extent, and its grid at most that / 16 + 3
 * columns (floor and ceil add one each, the grid one more). The margin
 * covers the double sums' rounding many times over. UINT64_MAX when the
 * row is not finite or the bound is of no use. */
static inline uint64_t luxel_bound(const bspkit_texinfo *ti, const double range[3], const double magnitude[3])
{
    double cols[2];
#if defined(__SSE2__)
    /* Both rows at once (lane 0 = s, lane 1 = t), each lane the scalar
     * sums below in the same order. */
    const __m128d sign = _mm_set1_pd(-0.0);
    const float *s = ti->texture_vecs[0], *t = ti->texture_vecs[1];
    __m128d span = _mm_setzero_pd(), magnitude_sum = _mm_andnot_pd(sign, _mm_setr_pd(s[3], t[3]));
    for (int k = 0; k < 3; k++) {
        const __m128d a = _mm_andnot_pd(sign, _mm_setr_pd(s[k], t[k]));
        span = _mm_add_pd(span, _mm_mul_pd(a, _mm_set1_pd(range[k])));
        magnitude_sum = _mm_add_pd(magnitude_sum, _mm_mul_pd(a, _mm_set1_pd(magnitude[k])));
    }
    const __m128d c = _mm_add_pd(
        _mm_div_pd(_mm_add_pd(_mm_add_pd(span, _mm_mul_pd(_mm_set1_pd(1e-9), magnitude_sum)), _mm_set1_pd(1e-6)),
                   _mm_set1_pd(16.0)),
        _mm_set1_pd(3.0));
    _mm_storeu_pd(cols, c);
#else
    for (int axis = 0; axis < 2; axis++) {
        const float *v = ti->texture_vecs[axis];
        double span = 0, magnitude_sum = fabs((double)v[3]);
        for (int k = 0; k < 3; k++) {
            span += fabs((double)v[k]) * range[k];
            magnitude_sum += fabs((double)v[k]) * magnitude[k];
        }
        cols[axis] = (span + 1e-9 * magnitude_sum + 1e-6) / 16.0 + 3.0;
    }
#endif
    if (!(cols[0] < 1e6 && cols[1] < 1e6)) /* also NaN */
        return UINT64_MAX;
    /* Signed conversions: both are below 1e6, and the unsigned ones cost
     * a branch each. */
    return (uint64_t)(int64_t)cols[0] * (uint64_t)(int64_t)cols[1];
}

/* face_may_overflow past its bound test: the face's double grid against
 * the bytes after its light offset. */
static inline __attribute__((always_inline)) bool grid_may_overflow(const lm_ctx *c, size_t i, const bspkit_face *f,
                                                                    const bspkit_texinfo *ti, bool avx2)
{
    if (c->decoupled && i < c->decoupled_n)
        return true;
    int32_t size[2];
#if BK_CPU_AVX2
    bool ok = avx2 ? double_grid_avx2(c, f, ti, size) : double_grid(c, f, ti, size);
#else
    (void)avx2;
    bool ok = double_grid(c, f, ti, size);
#endif
    if (!ok)
        return false;
    uint64_t per_luxel = (uint64_t)bk_face_style_count(f) * (c->rgb_luxels ? 3u : 1u);
    uint64_t need = (uint64_t)size[0] * (uint64_t)size[1] * per_luxel;
    return (uint64_t)f->light_offset > c->light_size || need > c->light_size - (uint64_t)f->light_offset;
}

/* Whether face i's entry could need more bytes than the lighting lump has
 * after its light offset. False only where the entry is not lit or fits:
 * by its texinfo's luxel bound, or else by the double grid's size, neither
 * of which the entry's ever exceeds. A face sized by DECOUPLED_LM is left
 * to its entry. `avx2` is a constant at each call site, as in quake_face. */
static inline __attribute__((always_inline)) bool face_may_overflow(const lm_ctx *c, size_t i, const bspkit_face *f,
                                                                    bool avx2)
{
    const bspkit_texinfo *ti = texinfo_of(c, f);
    /* Most faces' lightmaps end far before the lump does: the bound from
     * all vertexes' extent clears them without visiting their corners. */
    if (!ti || (ti->flags & c->no_lightmap) || !bk_lightmap_face_needs_screen(c, i, f, (size_t)(ti - c->texinfo)))
        return false;
    return grid_may_overflow(c, i, f, ti, avx2);
}

static void source_face(const lm_ctx *c, const bspkit_face *f, bspkit_face_lightmap *o)
{
    o->bytes_per_luxel = 4;
    o->mins[0] = f->lightmap_mins[0];
    o->mins[1] = f->lightmap_mins[1];
    const bspkit_texinfo *ti = texinfo_of(c, f);
    int32_t flags = ti ? ti->flags : 0;
    if (f->light_offset < 0 || o->styles == 0 || (flags & BSPKIT_SURF_NOLIGHT))
        return;
    o->lit = true;
    o->offset = f->light_offset;
    o->sets = (flags & BSPKIT_SURF_BUMPLIGHT) ? 4 : 1;
    /* Bloodlines (v17) keeps each style's average in the face record's
     * eight colours; later versions store them before the samples. */
    o->average_offset = c->map->format.version == 17 ? -1 : o->offset - 4 * (int64_t)o->styles;
    for (int axis = 0; axis < 2; axis++)
        if (f->lightmap_size[axis] < 0 || f->lightmap_size[axis] >= MAX_LUXELS_PER_AXIS)
            return; /* lit, but no meaningful size: not in range */
    o->width = f->lightmap_size[0] + 1;
    o->height = f->lightmap_size[1] + 1;
    o->bytes = (uint64_t)o->width * (uint64_t)o->height * (uint64_t)o->styles * (uint64_t)o->sets * 4u;
    o->in_range = (o->average_offset >= 0 || c->map->format.version == 17) &&
                  range_ok((uint64_t)o->offset, o->bytes, c->light_size);
}

/* ------------------------------------------------------------------------ */
/* Building                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct lm_set {
    bspkit_face_lightmap *items;
    size_t count;
} lm_set;

static bspkit_result load_geometry(lm_ctx *c, bspkit_error *err)
{
    bspkit_map *map = c->map;
    bspkit_result r = bspkit_get_texinfo(map, &c->texinfo, &c->texinfo_n, err);
    if (r == BSPKIT_OK && map->format.family != BSPKIT_FAMILY_SOURCE) {
        if ((r = bspkit_get_surfedges(map, &c->surfedges, &c->surfedges_n, err)) != BSPKIT_OK)
            return r;
        if ((r = bspkit_get_edges(map, &c->edges, &c->edges_n, err)) != BSPKIT_OK)
            return r;
        if ((r = bspkit_get_vertexes(map, &c->verts, &c->verts_n, err)) != BSPKIT_OK)
            return r;
        if ((r = bspkit_get_bspx_decoupled_lm(map, &c->decoupled, &c->decoupled_n, err)) != BSPKIT_OK)
            return r;
        if (c->decoupled_n == 0)
            c->decoupled = NULL;
        const uint8_t *rgb;
        size_t rgb_size;
        bspkit_error ignore;
        /* RGBLIGHTING is optional colour on top of LIGHTING: a missing or
         * malformed one leaves the faces without rgb_offset. */
        if ((map->format.variant & BSPKIT_VARIANT_BSPX) && /* else no lookup (and no message formatted) */
            bspkit_bspx_lump(map, "RGBLIGHTING", &rgb, &rgb_size, &ignore) == BSPKIT_OK) {
            c->has_rgb = true;
            c->rgb_size = rgb_size;
        }
    }
    return r;
}

/* A surface's rectangle in its page from its vertices' lightmap
 * coordinates (newer q3map2 builds store 0 x 0 rectangles: the engine never
 * reads them). False when the surface has no usable vertex. */
static bool rect_from_verts(const bspkit_surface *s, const bspkit_drawvert *dv, size_t ndv, int32_t mins[2],
                            int32_t size[2])
{
    const double side = BSPKIT_Q3_LIGHTMAP_PAGE_SIZE;
    if (s->first_vert < 0 || s->num_verts <= 0 || (uint64_t)s->first_vert + (uint64_t)s->num_verts > ndv)
        return false;
    double lo[2] = {side, side}, hi[2] = {0, 0};
    /* Plain comparisons, not fmin/fmax calls: every value that reaches the
     * result is finite, and a zero's sign cannot change the integer rectangle. */
    const bspkit_drawvert *v = dv + s->first_vert;
#if defined(__SSE2__)
    /* Both axes at once; the same bounds as the scalar loop. */
    const __m128d sidev = _mm_set1_pd(side), zero = _mm_setzero_pd();
    __m128d lov = sidev, hiv = zero, finite = _mm_cmpeq_pd(zero, zero);
    for (int32_t k = 0; k < s->num_verts; k++) {
        const __m128 uv = _mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)v[k].lightmap));
        const __m128d u = _mm_mul_pd(_mm_cvtps_pd(uv), sidev);
        finite = _mm_and_pd(finite, _mm_cmpeq_pd(_mm_sub_pd(u, u), zero)); /* inf - inf and NaN are NaN */
        lov = _mm_min_pd(u, lov);
        hiv = _mm_max_pd(u, hiv);
    }
    if (_mm_movemask_pd(finite) != 3)
        return false;
    _mm_storeu_pd(lo, lov);
    _mm_storeu_pd(hi, hiv);
#else
    bool finite = true;
    for (int32_t k = 0; k < s->num_verts; k++)
        for (int a = 0; a < 2; a++) {
            double u = v[k].lightmap[a] * side;
            finite &= isfinite(u);
            lo[a] = u < lo[a] ? u : lo[a];
            hi[a] = u > hi[a] ? u : hi[a];
        }
    if (!finite)
        return false;
#endif
    for (int a = 0; a < 2; a++) {
        /* max(0, floor(lo)) as floor(max(lo, 0)), min(side, ceil(hi)) as
         * ceil(min(hi, side)): the same integers, and both in int32 range. */
        int32_t first = floor_int(lo[a] > 0 ? lo[a] : 0), end = ceil_int(hi[a] < side ? hi[a] : side);
        if (end <= first)
            end = first + 1 < (int32_t)side ? first + 1 : (int32_t)side;
        mins[a] = first;
        size[a] = end - first;
    }
    return size[0] > 0 && size[1] > 0;
}

/* Quake 3 surfaces: rectangles inside 128 x 128 pages. */
static bspkit_result surface_lightmaps(bspkit_map *map, lm_set *set, bspkit_error *err)
{
    const uint32_t side = BSPKIT_Q3_LIGHTMAP_PAGE_SIZE;
    const bspkit_surface *surf;
    const bspkit_drawvert *dv;
    const uint8_t *light;
    size_t n, ndv, size;
    bspkit_result r;
    if ((r = bspkit_get_surfaces(map, &surf, &n, err)) != BSPKIT_OK ||
        (r = bspkit_get_drawverts(map, &dv, &ndv, err)) != BSPKIT_OK ||
        (r = bspkit_get_lighting(map, false, &light, &size, err)) != BSPKIT_OK)
        return r;
    set->items = bk_keep_alloc(map, n, sizeof *set->items, map->dec_lump[BK_REC_SURFACES], err);
    if (!set->items)
        return err->code;
    for (size_t i = 0; i < n; i++) {
        const bspkit_surface *s = &surf[i];
        bspkit_face_lightmap *o = &set->items[i];
        o->offset = o->average_offset = o->rgb_offset = -1;
        o->sets = 1;
        o->bytes_per_luxel = 3;
        int32_t mins[2] = {s->lightmap_x, s->lightmap_y}, dim[2] = {s->lightmap_width, s->lightmap_height};
        if (s->lightmap < 0 || s->type == BSPKIT_Q3_SURFACE_FLARE || mins[0] < 0 || mins[1] < 0 || dim[0] < 0 ||
            dim[1] < 0 || ((dim[0] == 0 || dim[1] == 0) && !rect_from_verts(s, dv, ndv, mins, dim)))
            continue;
        o->lit = true;
        o->styles = 1;
        o->mins[0] = mins[0];
        o->mins[1] = mins[1];
        o->width = dim[0];
        o->height = dim[1];
        o->offset = ((int64_t)s->lightmap * side * side + (int64_t)mins[1] * side + mins[0]) * 3;
        o->bytes = (uint64_t)o->width * (uint64_t)o->height * 3u;
        o->in_range = (uint64_t)mins[0] + (uint64_t)dim[0] <= side && (uint64_t)mins[1] + (uint64_t)dim[1] <= side &&
                      ((uint64_t)s->lightmap + 1) * side * side * 3u <= size;
    }
    set->count = n;
    return BSPKIT_OK;
}

/* Each entry is cleared as it is filled: one pass over the memory, not two. */
static inline __attribute__((always_inline)) void start_entry(const bspkit_face *f, bspkit_face_lightmap *o)
{
    memset(o, 0, sizeof *o);
    o->offset = o->average_offset = o->rgb_offset = -1;
    o->sets = 1;
    o->styles = bk_face_style_count(f);
}

static inline __attribute__((always_inline)) void finish_entry(bspkit_face_lightmap *o)
{
    if (!o->lit) {
        o->offset = o->average_offset = -1;
        o->bytes = 0;
    }
}

static void fill_source(const lm_ctx *c, const bspkit_face *faces, size_t n, bspkit_face_lightmap *items)
{
    for (size_t i = 0; i < n; i++) {
        start_entry(&faces[i], &items[i]);
        source_face(c, &faces[i], &items[i]);
        finish_entry(&items[i]);
    }
}

/* Quake-family faces first .. first + n: their entries, or (screen) may[]
 * as face_may_overflow gives it. `avx2` is a constant in each wrapper
 * below, each compiled for its target and flattened, so the extents are
 * inlined into the loop and their constants loaded once per call. */
static inline __attribute__((always_inline)) void quake_faces(const lm_ctx *c, size_t first, size_t n, bool screen,
                                                              bspkit_face_lightmap *items, bool *may, bool avx2)
{
    /* Indexed from c->faces itself: a map without faces has none (NULL),
     * and no pointer is made from it. */
    for (size_t i = 0; i < n; i++) {
        const bspkit_face *f = &c->faces[first + i];
        if (screen) {
            may[i] = face_may_overflow(c, first + i, f, avx2);
            continue;
        }
        start_entry(f, &items[i]);
        quake_face(c, first + i, f, &items[i], avx2);
        finish_entry(&items[i]);
    }
}

__attribute__((flatten)) static void fill_quake(const lm_ctx *c, size_t first, size_t n, bspkit_face_lightmap *items)
{
    quake_faces(c, first, n, false, items, NULL, false);
}

__attribute__((flatten)) static void screen_quake(const lm_ctx *c, size_t first, size_t n, bool *may)
{
    quake_faces(c, first, n, true, NULL, may, false);
}

#if BK_CPU_AVX2
__attribute__((target("avx2"), flatten)) static void fill_quake_avx2(const lm_ctx *c, size_t first, size_t n,
                                                                      bspkit_face_lightmap *items)
{
    quake_faces(c, first, n, false, items, NULL, true);
}

__attribute__((target("avx2"), flatten)) static void screen_quake_avx2(const lm_ctx *c, size_t first, size_t n,
                                                                        bool *may)
{
    quake_faces(c, first, n, true, NULL, may, true);
}
#endif

void bk_lightmap_faces_fill(const bk_lightmap_faces *c, size_t first, size_t n, bspkit_face_lightmap *out)
{
#if BK_CPU_AVX2
    if (c->avx2) {
        fill_quake_avx2(c, first, n, out);
        return;
    }
#endif
    fill_quake(c, first, n, out);
}

__attribute__((flatten)) static bool grid_may_overflow_plain(const lm_ctx *c, size_t i, const bspkit_face *f)
{
    return grid_may_overflow(c, i, f, &c->texinfo[f->texinfo], false);
}

#if BK_CPU_AVX2
__attribute__((target("avx2"), flatten)) static bool grid_may_overflow_avx2(const lm_ctx *c, size_t i,
                                                                             const bspkit_face *f)
{
    return grid_may_overflow(c, i, f, &c->texinfo[f->texinfo], true);
}
#endif

bool bk_lightmap_face_grid_may_overflow(const bk_lightmap_faces *c, size_t i, const bspkit_face *f)
{
#if BK_CPU_AVX2
    if (c->avx2)
        return grid_may_overflow_avx2(c, i, f);
#endif
    return grid_may_overflow_plain(c, i, f);
}

/* The screen's double grid for the faces `list` names: one call for many,
 * so that consecutive faces' loads and sums overlap. */
static inline __attribute__((always_inline)) void grid_list(const lm_ctx *c, const uint32_t *list, size_t n,
                                                            bool *may, bool avx2)
{
    for (size_t k = 0; k < n; k++) {
        const bspkit_face *f = &c->faces[list[k]];
        may[k] = grid_may_overflow(c, list[k], f, &c->texinfo[f->texinfo], avx2);
    }
}

__attribute__((flatten)) static void grid_list_plain(const lm_ctx *c, const uint32_t *list, size_t n, bool *may)
{
    grid_list(c, list, n, may, false);
}

#if BK_CPU_AVX2
__attribute__((target("avx2"), flatten)) static void grid_list_avx2(const lm_ctx *c, const uint32_t *list, size_t n,
                                                                     bool *may)
{
    grid_list(c, list, n, may, true);
}
#endif

void bk_lightmap_faces_grid_list(const bk_lightmap_faces *c, const uint32_t *list, size_t n, bool *may)
{
#if BK_CPU_AVX2
    if (c->avx2) {
        grid_list_avx2(c, list, n, may);
        return;
    }
#endif
    grid_list_plain(c, list, n, may);
}

void bk_lightmap_faces_screen(const bk_lightmap_faces *c, size_t first, size_t n, bool *may)
{
#if BK_CPU_AVX2
    if (c->avx2) {
        screen_quake_avx2(c, first, n, may);
        return;
    }
#endif
    screen_quake(c, first, n, may);
}

/* The faces and everything their entries read. */
static bspkit_result prepare(bspkit_map *map, bool hdr, lm_ctx *c, bspkit_error *err)
{
    memset(c, 0, sizeof *c);
    bspkit_result r = bspkit_get_faces(map, &c->faces, &c->faces_n, err);
    if (r != BSPKIT_OK)
        return r;
    if (hdr) {
        const bspkit_face *hf;
        size_t hn;
        if ((r = bspkit_get_hdr_faces(map, &hf, &hn, err)) != BSPKIT_OK)
            return r;
        if (hn > 0) {
            c->faces = hf;
            c->faces_n = hn;
        }
    }
    /* Per map, not per face: the family's answers do not change. */
    c->map = map;
    c->rgb_luxels = (bk_map_traits(map) & BK_TRAIT_RGB_LIGHTMAPS) != 0;
    c->no_lightmap = bk_map_no_lightmap_flags(map);
    c->avx2 = bk_cpu_has_avx2();
    const uint8_t *light;
    if ((r = bspkit_get_lighting(map, hdr, &light, &c->light_size, err)) != BSPKIT_OK)
        return r;
    return load_geometry(c, err);
}

/* Per axis, the smallest and largest coordinate of v[i .. n) folded into
 * lo and hi, and whether each is finite (x - x is 0 only for a finite x). */
static inline __attribute__((always_inline)) bool vertex_tail(const bspkit_vec3 *v, size_t i, size_t n, float lo[3],
                                                              float hi[3])
{
    bool finite = true;
    for (; i < n; i++) {
        const float p[3] = {v[i].x, v[i].y, v[i].z};
        for (int k = 0; k < 3; k++) {
            finite &= p[k] - p[k] == 0.0f;
            lo[k] = p[k] < lo[k] ? p[k] : lo[k];
            hi[k] = p[k] > hi[k] ? p[k] : hi[k];
        }
    }
    return finite;
}

/* Lanes l[k] and h[k] (k < count), each of axis k % 3, folded into the
 * per-axis extremes. */
static inline void fold_lanes(const float *l, const float *h, int count, float lo[3], float hi[3])
{
    for (int k = 0; k < count; k++) {
        lo[k % 3] = l[k] < lo[k % 3] ? l[k] : lo[k % 3];
        hi[k % 3] = h[k] > hi[k % 3] ? h[k] : hi[k % 3];
    }
}

/* range and magnitude from the per-axis extremes; false when a coordinate
 * was not finite or there is none. */
static bool bounds_of(bool finite, size_t n, const float lo[3], const float hi[3], double range[3],
                      double magnitude[3])
{
    if (!finite || n == 0)
        return false;
    for (int k = 0; k < 3; k++) {
        range[k] = (double)hi[k] - (double)lo[k];
        magnitude[k] = fmax(fabs((double)lo[k]), fabs((double)hi[k]));
    }
    return true;
}

/* The vertexes' extent and largest magnitude per axis; false when a
 * coordinate is not finite. */
static bool vertex_bounds(const bspkit_vec3 *v, size_t n, double range[3], double magnitude[3])
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    bool finite = true;
    size_t i = 0;
#if defined(__SSE2__)
    /* Four vertexes (48 bytes) per step as three vectors, whose lanes hold
     * the axes x y z x, y z x y and z x y z. */
    if (n >= 4) {
        const float *f = &v[0].x;
        __m128 lo0 = _mm_loadu_ps(f), lo1 = _mm_loadu_ps(f + 4), lo2 = _mm_loadu_ps(f + 8);
        __m128 hi0 = lo0, hi1 = lo1, hi2 = lo2;
        /* 0 x a coordinate is a zero for a finite one and NaN otherwise:
         * OR-ed together, the exponent bits stay clear while all are finite. */
        __m128 odd = _mm_setzero_ps();
        const __m128 zero = _mm_setzero_ps();
        for (; i + 4 <= n; i += 4) {
            const __m128 a = _mm_loadu_ps(f + 3 * i), b = _mm_loadu_ps(f + 3 * i + 4), c = _mm_loadu_ps(f + 3 * i + 8);
            odd = _mm_or_ps(odd, _mm_or_ps(_mm_mul_ps(a, zero), _mm_or_ps(_mm_mul_ps(b, zero), _mm_mul_ps(c, zero))));
            lo0 = _mm_min_ps(lo0, a), lo1 = _mm_min_ps(lo1, b), lo2 = _mm_min_ps(lo2, c);
            hi0 = _mm_max_ps(hi0, a), hi1 = _mm_max_ps(hi1, b), hi2 = _mm_max_ps(hi2, c);
        }
        const __m128 exponent = _mm_castsi128_ps(_mm_set1_epi32(0x7F800000));
        finite = _mm_movemask_ps(_mm_cmpeq_ps(_mm_and_ps(odd, exponent), zero)) == 15;
        float l[12], h[12];
        _mm_storeu_ps(l, lo0), _mm_storeu_ps(l + 4, lo1), _mm_storeu_ps(l + 8, lo2);
        _mm_storeu_ps(h, hi0), _mm_storeu_ps(h + 4, hi1), _mm_storeu_ps(h + 8, hi2);
        fold_lanes(l, h, 12, lo, hi);
    }
#endif
    finite &= vertex_tail(v, i, n, lo, hi);
    return bounds_of(finite, n, lo, hi, range, magnitude);
}

#if BK_CPU_AVX2
/* vertex_bounds eight vertexes (96 bytes) per step, as three 8-lane
 * vectors whose lane k holds axis (8j + k) % 3. The same extremes: min and
 * max are exact, so the order they are taken in does not matter for finite
 * coordinates, and any other gives false. */
__attribute__((target("avx2"))) static bool vertex_bounds_avx2(const bspkit_vec3 *v, size_t n, double range[3],
                                                               double magnitude[3])
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    bool finite = true;
    size_t i = 0;
    if (n >= 8) {
        const float *f = &v[0].x;
        __m256 lo0 = _mm256_loadu_ps(f), lo1 = _mm256_loadu_ps(f + 8), lo2 = _mm256_loadu_ps(f + 16);
        __m256 hi0 = lo0, hi1 = lo1, hi2 = lo2;
        __m256 odd = _mm256_setzero_ps();
        const __m256 zero = _mm256_setzero_ps();
        for (; i + 8 <= n; i += 8) {
            const __m256 a = _mm256_loadu_ps(f + 3 * i), b = _mm256_loadu_ps(f + 3 * i + 8),
                         c = _mm256_loadu_ps(f + 3 * i + 16);
            odd = _mm256_or_ps(odd, _mm256_or_ps(_mm256_mul_ps(a, zero),
                                                 _mm256_or_ps(_mm256_mul_ps(b, zero), _mm256_mul_ps(c, zero))));
            lo0 = _mm256_min_ps(lo0, a), lo1 = _mm256_min_ps(lo1, b), lo2 = _mm256_min_ps(lo2, c);
            hi0 = _mm256_max_ps(hi0, a), hi1 = _mm256_max_ps(hi1, b), hi2 = _mm256_max_ps(hi2, c);
        }
        const __m256 exponent = _mm256_castsi256_ps(_mm256_set1_epi32(0x7F800000));
        finite = _mm256_movemask_ps(_mm256_cmp_ps(_mm256_and_ps(odd, exponent), zero, _CMP_EQ_OQ)) == 0xFF;
        float l[24], h[24];
        _mm256_storeu_ps(l, lo0), _mm256_storeu_ps(l + 8, lo1), _mm256_storeu_ps(l + 16, lo2);
        _mm256_storeu_ps(h, hi0), _mm256_storeu_ps(h + 8, hi1), _mm256_storeu_ps(h + 16, hi2);
        fold_lanes(l, h, 24, lo, hi);
    }
    finite &= vertex_tail(v, i, n, lo, hi);
    return bounds_of(finite, n, lo, hi, range, magnitude);
}
#endif

/* vertex_bounds of the faces' vertexes, on the AVX2 path where it may run. */
static bool vertex_bounds_of(const lm_ctx *c, double range[3], double magnitude[3])
{
#if BK_CPU_AVX2
    if (c->avx2)
        return vertex_bounds_avx2(c->verts, c->verts_n, range, magnitude);
#endif
    return vertex_bounds(c->verts, c->verts_n, range, magnitude);
}

bspkit_result bk_lightmap_faces_begin(bspkit_map *map, bk_lightmap_faces *c, bspkit_error *err)
{
    bspkit_family family = map->format.family;
    if (family == BSPKIT_FAMILY_SOURCE || family == BSPKIT_FAMILY_QUAKE3)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bk_lightmap_faces_begin: not a Quake-family face map");
    bspkit_result r = prepare(map, false, c, err);
    double range[3], magnitude[3];
    /* Without the table (a coordinate not finite, or no memory) every face
     * takes the exact screen. */
    if (r == BSPKIT_OK && c->texinfo_n && c->texinfo_n <= SIZE_MAX / sizeof(uint64_t) &&
        vertex_bounds_of(c, range, magnitude)) {
        bspkit_error ignore;
        const size_t inline_n = sizeof c->style_bytes_inline / sizeof c->style_bytes_inline[0];
        uint64_t *b = c->texinfo_n <= inline_n
                          ? c->style_bytes_inline
                          : bk_alloc(map, c->texinfo_n * sizeof *b, map->dec_lump[BK_REC_TEXINFO], &ignore);
        if (b) {
            const uint64_t luxel_bytes = c->rgb_luxels ? 3 : 1;
            for (size_t t = 0; t < c->texinfo_n; t++) {
                uint64_t luxels = luxel_bound(&c->texinfo[t], range, magnitude);
                b[t] = (c->texinfo[t].flags & c->no_lightmap) ? 0
                       : luxels <= UINT64_MAX / 12            ? luxels * luxel_bytes
                                                              : UINT64_MAX;
            }
            c->style_bytes_bound = b;
        }
    }
    return r;
}

void bk_lightmap_faces_end(bk_lightmap_faces *c)
{
    if (c->style_bytes_bound && c->style_bytes_bound != c->style_bytes_inline)
        bk_free(c->map, (void *)c->style_bytes_bound, c->texinfo_n * sizeof *c->style_bytes_bound);
    c->style_bytes_bound = NULL;
}

static bspkit_result build_lightmaps(bspkit_map *map, bool hdr, const void **value, bspkit_error *err)
{
    lm_set *set = bk_keep_alloc(map, 1, sizeof *set, -1, err);
    if (!set)
        return err->code;
    *value = set;
    bool source = map->format.family == BSPKIT_FAMILY_SOURCE;
    if (hdr && !source)
        return BSPKIT_OK;
    if (map->format.family == BSPKIT_FAMILY_QUAKE3)
        return surface_lightmaps(map, set, err);

    lm_ctx c;
    bspkit_result r = prepare(map, hdr, &c, err);
    if (r != BSPKIT_OK)
        return r;
    set->items = bk_keep_alloc_records(map, c.faces_n, sizeof *set->items, map->dec_lump[BK_REC_FACES], err);
    if (!set->items)
        return err->code;
    if (source)
        fill_source(&c, c.faces, c.faces_n, set->items);
    else
        bk_lightmap_faces_fill(&c, 0, c.faces_n, set->items);
    set->count = c.faces_n;
    return BSPKIT_OK;
}

static bspkit_result build_ldr(bspkit_map *map, const void **value, bspkit_error *err)
{
    return build_lightmaps(map, false, value, err);
}

static bspkit_result build_hdr(bspkit_map *map, const void **value, bspkit_error *err)
{
    return build_lightmaps(map, true, value, err);
}

bspkit_result bspkit_get_face_lightmaps(bspkit_map *map, bool hdr, const bspkit_face_lightmap **out,
                                        size_t *count, bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !out || !count)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_get_face_lightmaps: NULL argument");
    *out = NULL;
    *count = 0;
    const void *v;
    bspkit_result r = bk_extra_get(map, hdr ? EX_FACE_LIGHTMAPS_HDR : EX_FACE_LIGHTMAPS, hdr ? build_hdr : build_ldr,
                                   &v, err);
    if (r != BSPKIT_OK)
        return r;
    const lm_set *set = v;
    *out = set->items;
    *count = set->count;
    return BSPKIT_OK;
}
