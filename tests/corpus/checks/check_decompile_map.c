/* The Quake/GoldSrc .map decompiler over the shared corpus. For every
 * Quake, GoldSrc and BSP2 map:
 *  - the output parses as a .map (tests/decompile/map_read.c);
 *  - at 2000 seeded random points per used model, "inside a solid / liquid /
 *    sky brush of the entity" agrees with the hull-0 contents
 *    bspkit_point_contents_model() gives (>= 99.9% per model);
 *  - every side's three points give a plane on which they lie, with the
 *    brush's vertex average behind it (outward orientation);
 *  - entities keep their order and key/values (brush entities lose "model");
 *  - brush entities with an "origin": the model's bounds moved by the origin
 *    lie inside the world's bounds, as the compiler moved them around it.
 * Prints figures: maps, leaves -> brushes, textured vs tool sides, worst
 * agreement, time per map. */
#include "bspkit/bspkit.h"
#include "bspkit/decompile.h"
#include "corpus_walk.h"
#include "decompile/map_read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

static int maps, failures;
static uint64_t leaves, brushes, sides, tool_sides, points, agreed, origin_entities, origin_inside;
static double worst = 100, slowest, total_time;
static char worst_map[512], slowest_map[512];

static void fail(const char *rel, const char *why)
{
    printf("FAIL %s: %s\n", rel, why);
    failures++;
}

/* Entities and key/values against the map's; returns false with `why`. */
static bool same_entities(bspkit_map *map, const mr_map *m, char *why, size_t n)
{
    bspkit_error err;
    const bspkit_entities *ents;
    if (bspkit_get_entities(map, &ents, &err) != BSPKIT_OK) {
        snprintf(why, n, "%s", err.message);
        return false;
    }
    size_t added = m->nents - ents->count;
    for (size_t i = 0; i < ents->count; i++) {
        const bspkit_entity *e = &ents->entities[i];
        const mr_entity *o = &m->ents[i + added];
        size_t k = 0;
        for (size_t j = 0; j < e->num_pairs; j++) {
            const bspkit_keyvalue *kv = &ents->pairs[e->first_pair + j];
            bool brush_model = strcmp(kv->key, "model") == 0 && kv->value[0] == '*' && o->nbrushes > 0;
            if (brush_model || strcmp(kv->key, "mapversion") == 0 || strchr(kv->value, '"'))
                continue;
            /* Same order: find the pair at or after k. */
            while (k < o->npairs && (strcmp(m->pairs[o->first_pair + k].key, kv->key) != 0 ||
                                     strcmp(m->pairs[o->first_pair + k].value, kv->value) != 0))
                k++;
            if (k == o->npairs) {
                snprintf(why, n, "entity %zu lost \"%s\" \"%.60s\"", i, kv->key, kv->value);
                return false;
            }
            k++;
        }
    }
    return true;
}

/* Every side's points on its plane and the brush's point average behind every side. */
static bool planes_consistent(const mr_map *m, char *why, size_t n)
{
    for (size_t b = 0; b < m->nbrushes; b++) {
        const mr_brush *br = &m->brushes[b];
        double c[3] = {0, 0, 0};
        for (size_t s = 0; s < br->nsides; s++)
            for (int k = 0; k < 3; k++)
                for (int j = 0; j < 3; j++)
                    c[j] += m->sides[br->first_side + s].pts[k][j] / (3.0 * (double)br->nsides);
        for (size_t s = 0; s < br->nsides; s++) {
            const mr_side *sd = &m->sides[br->first_side + s];
            double dist = sd->n[0] * c[0] + sd->n[1] * c[1] + sd->n[2] * c[2] - sd->d;
            if (!(dist < 0)) {
                snprintf(why, n, "brush %zu side %zu faces inwards (centre %.3f in front)", b, s, dist);
                return false;
            }
        }
    }
    return true;
}

static void origin_check(bspkit_map *map)
{
    bspkit_error err;
    const bspkit_entities *ents;
    const bspkit_model *models;
    size_t nmodels;
    if (bspkit_get_entities(map, &ents, &err) || bspkit_get_models(map, &models, &nmodels, &err) || !nmodels)
        return;
    for (size_t i = 0; i < ents->count; i++) {
        const char *mv = bspkit_entity_value(ents, i, "model"), *o = bspkit_entity_value(ents, i, "origin");
        double v[3];
        long mi = mv && mv[0] == '*' ? strtol(mv + 1, NULL, 10) : -1;
        if (mi <= 0 || (size_t)mi >= nmodels || !o || sscanf(o, "%lf %lf %lf", &v[0], &v[1], &v[2]) != 3 ||
            (v[0] == 0 && v[1] == 0 && v[2] == 0))
            continue;
        const bspkit_model *md = &models[mi], *w = &models[0];
        origin_entities++;
        origin_inside += md->mins.x + v[0] >= w->mins.x - 1 && md->maxs.x + v[0] <= w->maxs.x + 1 &&
                         md->mins.y + v[1] >= w->mins.y - 1 && md->maxs.y + v[1] <= w->maxs.y + 1 &&
                         md->mins.z + v[2] >= w->mins.z - 1 && md->maxs.z + v[2] <= w->maxs.z + 1;
    }
}

/* Every texture a face of the map shows must be named by some side. */
static uint64_t face_names, face_names_missing;
static bool textures_kept(bspkit_map *map, const mr_map *m, char *why, size_t n)
{
    const bspkit_face *faces;
    const bspkit_texinfo *ti;
    const bspkit_miptex *mt;
    size_t nf, nti, nmt;
    if (bspkit_get_faces(map, &faces, &nf, NULL) != BSPKIT_OK ||
        bspkit_get_texinfo(map, &ti, &nti, NULL) != BSPKIT_OK || bspkit_get_miptex(map, &mt, &nmt, NULL) != BSPKIT_OK)
        return true; /* the reader's own corpus test reports undecodable lumps */
    bool *seen = calloc(nmt ? nmt : 1, sizeof *seen);
    if (!seen)
        return true;
    size_t missing = 0;
    const char *first = NULL;
    for (size_t f = 0; f < nf; f++) {
        int32_t t = faces[f].texinfo;
        if (t < 0 || (size_t)t >= nti || ti[t].texture < 0 || (size_t)ti[t].texture >= nmt || seen[ti[t].texture])
            continue;
        const char *name = mt[ti[t].texture].name;
        seen[ti[t].texture] = true;
        if (name[0] == '\0')
            continue;
        face_names++;
        size_t s = 0;
        while (s < m->nsides && strcasecmp(m->sides[s].tex, name) != 0)
            s++;
        if (s == m->nsides) {
            missing++;
            first = first ? first : name;
        }
    }
    free(seen);
    face_names_missing += missing;
    if (missing)
        snprintf(why, n, "%zu face texture names not on any side (first: %s)", missing, first);
    return missing == 0;
}

static void visit(const char *root, const char *rel)
{
    char path[4096], why[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    bspkit_map *map = NULL;
    bspkit_error err;
    if (bspkit_open_file(path, NULL, &map, &err) != BSPKIT_OK)
        return; /* unsupported and broken files are the reader's corpus test's business */
    if (bspkit_map_format(map)->family == BSPKIT_FAMILY_SOURCE) {
        bspkit_close(map);
        return;
    }
    maps++;
    bspkit_decompile_stats st;
    char *text = NULL;
    size_t size = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    bspkit_result r = bspkit_decompile_memory(map, NULL, &text, &size, &st, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double dt = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    total_time += dt;
    if (dt > slowest) {
        slowest = dt;
        snprintf(slowest_map, sizeof slowest_map, "%s", rel);
    }
    if (r != BSPKIT_OK) {
        fail(rel, err.message);
        bspkit_close(map);
        return;
    }
    leaves += st.leaves;
    brushes += st.brushes;
    sides += st.sides;
    tool_sides += st.tool_sides;
    mr_map m;
    mr_agreement ag;
    if (!mr_parse(text, size, &m, why, sizeof why)) {
        fail(rel, why);
    } else {
        if (m.nbrushes < st.brushes) {
            snprintf(why, sizeof why, "%zu brushes read back of %zu written", m.nbrushes, st.brushes);
            fail(rel, why);
        }
        if (!planes_consistent(&m, why, sizeof why) || !same_entities(map, &m, why, sizeof why))
            fail(rel, why);
        /* Not yet every face's texture finds a side (a known gap, see the
         * summary): each map's misses are listed, the total is bounded below. */
        if (!textures_kept(map, &m, why, sizeof why))
            printf("NOTE %s: %s\n", rel, why);
        if (!mr_agree(map, &m, 2000, 12345, &ag, why, sizeof why)) {
            fail(rel, why);
        } else {
            points += ag.points;
            agreed += ag.agreed;
            if (ag.worst < worst) {
                worst = ag.worst;
                snprintf(worst_map, sizeof worst_map, "%s (model %d)", rel, ag.worst_model);
            }
            if (ag.worst < 99.9) {
                snprintf(why, sizeof why, "model %d: inside-agreement %.2f%% below 99.9%%", ag.worst_model,
                         ag.worst);
                fail(rel, why);
            }
        }
    }
    origin_check(map);
    mr_free(&m);
    free(text);
    bspkit_close(map);
}

int main(int argc, char **argv)
{
    const char *root = argc > 1 ? argv[1] : "../shared/maps";
    struct stat sb;
    if (stat(root, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        printf("skipped: %s not present\n", root);
        return 0;
    }
    corpus_walk(root, visit);
    printf("decompile .map: %d Quake/GoldSrc maps, %llu leaves -> %llu brushes, %llu sides (%llu textured, %llu "
           "tool), %llu points %.4f%% agree, worst %.3f%% %s, %.3f s total, slowest %.3f s %s; origin entities %llu, "
           "%llu inside the world; %llu face texture names, %llu not on any side\n",
           maps, (unsigned long long)leaves, (unsigned long long)brushes, (unsigned long long)sides,
           (unsigned long long)(sides - tool_sides), (unsigned long long)tool_sides, (unsigned long long)points,
           points ? 100.0 * (double)agreed / (double)points : 100.0, worst, worst_map, total_time, slowest,
           slowest_map, (unsigned long long)origin_entities, (unsigned long long)origin_inside,
           (unsigned long long)face_names, (unsigned long long)face_names_missing);
    if (face_names_missing * 20 > face_names) {
        printf("FAIL face textures: %llu of %llu face texture names are on no side (more than 5%%)\n",
               (unsigned long long)face_names_missing, (unsigned long long)face_names);
        failures++;
    }
    if (origin_inside < origin_entities) {
        printf("FAIL origin entities: %llu of %llu models moved by their origin leave the world\n",
               (unsigned long long)(origin_entities - origin_inside), (unsigned long long)origin_entities);
        failures++;
    }
    return failures ? 1 : 0;
}
