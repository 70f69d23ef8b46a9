/* A reader for .map text (Valve 220 and classic Quake side lines) for the
 * decompiler's tests, and the geometric agreement check they share: points
 * inside the read brushes against the contents the map's BSP tree gives. */
#ifndef BSPKIT_TESTS_MAP_READ_H
#define BSPKIT_TESTS_MAP_READ_H

#include "bspkit/bspkit.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct mr_side {
    double pts[3][3];  /* the three points as written */
    double n[3], d;    /* plane from the points as qbsp builds it: n = (p0 - p1) x (p2 - p1), unit; d = n . p1 */
    char tex[64];
    bool valve;        /* Valve 220 axes were given */
    double u[4], v[4]; /* Valve 220: axis and shift; classic: u[3] and v[3] hold the offsets */
    double rotation, scale[2];
} mr_side;

typedef struct mr_brush { size_t first_side, nsides; } mr_brush;
typedef struct mr_pair { char *key, *value; } mr_pair;
typedef struct mr_entity { size_t first_pair, npairs, first_brush, nbrushes; } mr_entity;

typedef struct mr_map {
    mr_entity *ents;
    size_t nents;
    mr_pair *pairs;
    size_t npairs;
    mr_brush *brushes;
    size_t nbrushes;
    mr_side *sides;
    size_t nsides;
} mr_map;

/* Parses `size` bytes of .map text; false with a message in `why` on a syntax error. Free with mr_free(). */
bool mr_parse(const char *text, size_t size, mr_map *out, char *why, size_t why_size);
void mr_free(mr_map *m);
/* First value of `key` in entity `ent`, or NULL. */
const char *mr_value(const mr_map *m, size_t ent, const char *key);
/* Whether `p` lies behind (within eps) every side plane of brush `b`. */
bool mr_brush_contains(const mr_map *m, size_t b, const double p[3], double eps);

/* What a brush stands for, from its first side's texture: liquid ('*' or
 * '!' names), sky ("sky..."), the origin marker, clip ("clip", any case:
 * only in the clip hulls), or solid. */
typedef enum mr_kind { MR_SOLID, MR_LIQUID, MR_SKY, MR_ORIGIN, MR_CLIP } mr_kind;
mr_kind mr_brush_kind(const mr_map *m, size_t b);

/* Agreement between the brushes of `m` and the hull-0 contents of `map`:
 * entity i of `m` is entity i of the map (after a worldspawn the decompiler
 * added when the map had none); for each model an entity uses ("*N", the
 * world for worldspawn), `points` seeded random points in the model's
 * bounds are classed by bspkit_point_contents_model() (solid, liquid, sky)
 * and by the entity's brushes of each kind, moved back by the entity's
 * "origin" for brush models. */
typedef struct mr_agreement {
    size_t models;
    uint64_t points, agreed;
    uint64_t solid_points;   /* points solid in the tree */
    double worst;            /* lowest per-model agreement, percent */
    int worst_model;
} mr_agreement;
bool mr_agree(bspkit_map *map, const mr_map *m, size_t points, uint32_t seed, mr_agreement *out, char *why,
              size_t why_size);

/* Agreement of the world's brushes with the smallest player hull (GoldSrc
 * hull 3, Quake hull 1): at `points` seeded random points in the world's
 * bounds, "solid or sky in the hull" (bspkit_point_contents_model) against "inside
 * a solid, sky or clip brush of the worldspawn grown by the hull's box"
 * (side planes pushed out by the box, and the brush's bounds grown by it;
 * edge bevels are left out, so corners of slanted brushes grow a little
 * more than the compilers grow them). Points solid in the hull but in no
 * grown solid or sky brush are clip points: covered when a clip brush
 * grown by the box holds them. A map without clip hulls compares no points. */
typedef struct mr_hull_agreement {
    int hull;
    uint64_t points, agreed;
    uint64_t clip_points, clip_covered; /* clip points, and those a grown clip brush holds */
    uint64_t false_clip;                /* open in the hull, but held by a grown clip brush only */
} mr_hull_agreement;
bool mr_agree_hull(bspkit_map *map, const mr_map *m, size_t points, uint32_t seed, mr_hull_agreement *out, char *why,
                   size_t why_size);

#endif
