/* Convex regions for rebuilding Quake/GoldSrc brushes from a BSP tree: a
 * region is a closed convex polyhedron kept as its faces, each a plane
 * (outward normal: the region is behind every face plane) with the polygon
 * the region has on it. Cutting a region by a plane keeps its back part,
 * so walking down a tree splits a parent region into its two children. */
#ifndef BSPKIT_DECOMPILE_MAP220_REGION_H
#define BSPKIT_DECOMPILE_MAP220_REGION_H

#include "poly.h"

#include <stdbool.h>
#include <stdint.h>

/* A point within this distance of a plane counts as on it. */
#define BK_REGION_ON_EPS 0.001
/* A face polygon with less area than this is no face. */
#define BK_REGION_AREA_EPS 0.001

typedef struct bk_rface {
    bk_dplane pl;         /* unit outward normal */
    int32_t plane;        /* the map's plane index; -1 for a face of the bounding box, other negative values are the caller's */
    uint8_t flip;         /* 1: the outward normal is the map plane's normal negated */
    uint8_t area_ok;      /* 1: the polygon is known to hold more than BK_REGION_AREA_EPS */
    uint32_t first, count; /* polygon: points[first .. first + count), counter-clockwise seen from outside */
} bk_rface;

typedef struct bk_region {
    bk_rface *faces;
    size_t nfaces, cap_faces;
    bk_dvec *points;
    size_t npoints, cap_points;
} bk_region;

/* Freed regions whose buffers a context keeps for the next cuts. */
#define BK_REGION_POOL 32

/* Scratch space and the running amount of work shared by region operations. */
typedef struct bk_region_ctx {
    bk_dvec *a, *b;  /* clip buffers of `cap` points each */
    size_t cap;
    double extent;   /* half-size of the square a cut starts its new face from */
    uint64_t work;   /* points visited so far: callers bound it */
    /* The last cut's distances of its region's points to its plane, and
     * their extremes, kept for bk_region_cut_again. */
    double *dist;
    size_t cap_dist;
    double dist_lo, dist_hi;
    bk_region pool[BK_REGION_POOL]; /* empty regions with buffers (bk_region_recycle) */
    size_t npool;
} bk_region_ctx;

typedef enum bk_cut { BK_CUT_EMPTY, BK_CUT_WHOLE, BK_CUT_PART } bk_cut;

void bk_region_free(bk_region *r);
/* bk_region_free, the buffers kept in `c` for the output of a later cut
 * (walks free and cut regions by the thousand). */
void bk_region_recycle(bk_region_ctx *c, bk_region *r);
/* An empty region, with buffers kept by bk_region_recycle when there are some. */
bk_region bk_region_take(bk_region_ctx *c);
void bk_region_ctx_free(bk_region_ctx *c);
/* Make both clip buffers hold at least `need` points; false when out of memory. */
bool bk_region_ctx_reserve(bk_region_ctx *c, size_t need);

/* Appends a face with polygon pts[0..n); false when out of memory. */
bool bk_region_add_face(bk_region *r, const bk_dplane *pl, int32_t plane, uint8_t flip, const bk_dvec *pts,
                        size_t n);

/* The box mins..maxs as six faces with plane -1; false when out of memory. */
bool bk_region_box(bk_region *r, bk_dvec mins, bk_dvec maxs);

/* The part of `in` behind `pl` (dot(n, p) <= d): *result says whether that
 * is nothing, all of `in` (then `out` is untouched), or a proper part
 * written to `out` (emptied first; must differ from `in`), whose new face
 * on `pl` gets `plane` and `flip`. False when out of memory. */
bool bk_region_cut(bk_region_ctx *c, const bk_region *in, const bk_dplane *pl, int32_t plane, uint8_t flip,
                   bk_region *out, bk_cut *result);

/* bk_region_cut by the negation of the plane of the last bk_region_cut,
 * on the same (unchanged) region `in`: the same result as a fresh cut, with
 * the distances of the first reused. */
bool bk_region_cut_again(bk_region_ctx *c, const bk_region *in, const bk_dplane *pl, int32_t plane, uint8_t flip,
                         bk_region *out, bk_cut *result);

/* Volume, measured from `ref` to limit cancellation with large coordinates. */
double bk_region_volume(const bk_region *r, bk_dvec ref);

#endif
