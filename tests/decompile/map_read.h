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
 * '!' names), sky ("sky..."), the origin marker, or solid. */
typedef enum mr_kind { MR_SOLID, MR_LIQUID, MR_SKY, MR_ORIGIN } mr_kind;
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

#endif
