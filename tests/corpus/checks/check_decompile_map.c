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
 *    lie inside the world's bounds, as the compiler moved them around it;
 *  - the player hull (GoldSrc 3, Quake 1) against the world's solid, sky and
 *    clip brushes grown by its box (>= 99% per map); of the points solid in
 *    the hull only through clip, >= 98% lie in a grown clip brush, and
 *    fewer than 0.05% of all points are open in the hull but in one;
 *  - textures: >= 99.9% of the world's (non-liquid, non-sky) face area lies
 *    on a side of a worldspawn brush naming the face's texture, and >= 99%
 *    of the face texture names appear on some side.
 * Prints figures: maps, leaves -> brushes, textured vs tool sides, worst
 * agreement, time per map. */
#include "bspkit/bspkit.h"
#include "bspkit/decompile.h"
#include "corpus_walk.h"
#include "face_vertex.h"
#include "decompile/map_read.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

static int maps, failures;
static uint64_t leaves, splits, brushes, sides, tool_sides, points, agreed, origin_entities, origin_inside;
static double worst = 100, slowest, total_time;
static uint64_t hull_points, hull_agreed, clip_points, clip_covered, false_clip, clip_brushes;
static double hull_worst = 100;
static char hull_worst_map[512];
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

/* Where each world face lands: the face's area whose centre lies on a side
 * of a worldspawn brush (same outward plane, centre inside the brush) that
 * names the face's own texture ("matched"), only other textures ("wrong"),
 * or on no side at all ("unplaced"). Liquid and sky faces are left out:
 * their brushes carry one texture on every side by design. */
static double area_all, area_matched, area_wrong, area_unplaced;

typedef struct side_ref {
    double d;
    size_t side, brush;
} side_ref;

static int side_ref_cmp(const void *pa, const void *pb)
{
    const side_ref *a = pa, *b = pb;
    return a->d < b->d ? -1 : a->d > b->d;
}

static void face_textures_on_sides(bspkit_map *map, const mr_map *m, const char *rel)
{
    double before_all = area_all, before_matched = area_matched;
    const bspkit_face *faces;
    const bspkit_texinfo *ti;
    const bspkit_miptex *mt;
    const bspkit_model *models;
    const bspkit_plane *planes;
    const bspkit_vec3 *verts;
    const bspkit_edge *edges;
    const int32_t *surfedges;
    size_t nf, nti, nmt, nmodels, nplanes, nv, ne, nse;
    if (bspkit_get_faces(map, &faces, &nf, NULL) || bspkit_get_texinfo(map, &ti, &nti, NULL) ||
        bspkit_get_miptex(map, &mt, &nmt, NULL) || bspkit_get_models(map, &models, &nmodels, NULL) ||
        bspkit_get_planes(map, &planes, &nplanes, NULL) || bspkit_get_vertexes(map, &verts, &nv, NULL) ||
        bspkit_get_edges(map, &edges, &ne, NULL) || bspkit_get_surfedges(map, &surfedges, &nse, NULL) || !nmodels)
        return;
    size_t world = m->nents;
    for (size_t i = 0; i < m->nents && world == m->nents; i++) {
        const char *cls = mr_value(m, i, "classname");
        if (cls && strcmp(cls, "worldspawn") == 0)
            world = i;
    }
    if (world == m->nents)
        return;
    const mr_entity *we = &m->ents[world];
    size_t nrefs = 0;
    for (size_t b = 0; b < we->nbrushes; b++)
        nrefs += m->brushes[we->first_brush + b].nsides;
    side_ref *refs = malloc((nrefs ? nrefs : 1) * sizeof *refs);
    if (!refs)
        return;
    nrefs = 0;
    for (size_t b = 0; b < we->nbrushes; b++) {
        const mr_brush *br = &m->brushes[we->first_brush + b];
        for (size_t s = 0; s < br->nsides; s++)
            refs[nrefs++] = (side_ref){m->sides[br->first_side + s].d, br->first_side + s, we->first_brush + b};
    }
    qsort(refs, nrefs, sizeof *refs, side_ref_cmp);
    const bspkit_model *wm = &models[0];
    face_geometry geo = {verts, nv, edges, ne, surfedges, nse};
    for (int64_t f = wm->first_face; f >= 0 && f < (int64_t)wm->first_face + wm->num_faces && (size_t)f < nf; f++) {
        const bspkit_face *face = &faces[f];
        if (face->texinfo < 0 || (size_t)face->texinfo >= nti || face->plane >= nplanes || face->num_edges < 3 ||
            face->first_edge < 0 || (size_t)face->first_edge + (size_t)face->num_edges > nse)
            continue;
        int32_t t = ti[face->texinfo].texture;
        if (t < 0 || (size_t)t >= nmt)
            continue;
        const char *name = mt[t].name;
        if (!name[0] || name[0] == '*' || name[0] == '!' || strncasecmp(name, "sky", 3) == 0)
            continue;
        /* Vertex average (inside the convex face) and area by a fan from the first vertex. */
        double c[3] = {0, 0, 0}, p0[3] = {0, 0, 0}, prev[3] = {0, 0, 0}, area_v[3] = {0, 0, 0};
        bool ok = true;
        for (int32_t e = 0; e < face->num_edges && ok; e++) {
            const bspkit_vec3 *v = face_vertex_at(&geo, face, e);
            if (!v) {
                ok = false;
                break;
            }
            double p[3] = {v->x, v->y, v->z};
            for (int k = 0; k < 3; k++)
                c[k] += p[k] / face->num_edges;
            if (e == 0)
                memcpy(p0, p, sizeof p0);
            if (e >= 2) {
                double a[3] = {prev[0] - p0[0], prev[1] - p0[1], prev[2] - p0[2]};
                double b[3] = {p[0] - p0[0], p[1] - p0[1], p[2] - p0[2]};
                area_v[0] += a[1] * b[2] - a[2] * b[1];
                area_v[1] += a[2] * b[0] - a[0] * b[2];
                area_v[2] += a[0] * b[1] - a[1] * b[0];
            }
            memcpy(prev, p, sizeof prev);
        }
        if (!ok)
            continue;
        double area = 0.5 * sqrt(area_v[0] * area_v[0] + area_v[1] * area_v[1] + area_v[2] * area_v[2]);
        double sign = face->side ? -1 : 1;
        const bspkit_plane *pl = &planes[face->plane];
        double n[3] = {sign * pl->normal.x, sign * pl->normal.y, sign * pl->normal.z}, d = sign * pl->dist;
        /* The sides with d within 0.05: binary search for the first. */
        size_t lo = 0, hi = nrefs;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (refs[mid].d < d - 0.05)
                lo = mid + 1;
            else
                hi = mid;
        }
        bool found = false, same = false;
        for (size_t k = lo; k < nrefs && refs[k].d <= d + 0.05 && !same; k++) {
            const mr_side *sd = &m->sides[refs[k].side];
            if (sd->n[0] * n[0] + sd->n[1] * n[1] + sd->n[2] * n[2] < 0.9999 ||
                !mr_brush_contains(m, refs[k].brush, c, 0.05))
                continue;
            found = true;
            same = strcasecmp(sd->tex, name) == 0;
        }
        area_all += area;
        if (same)
            area_matched += area;
        else if (found)
            area_wrong += area;
        else
            area_unplaced += area;
    }
    free(refs);
    double map_all = area_all - before_all, map_matched = area_matched - before_matched;
    if (map_all > 0 && map_matched < 0.99 * map_all)
        printf("NOTE %s: %.2f%% of the world's face area lies on a side of its own texture\n", rel,
               100 * map_matched / map_all);
}

static void visit(const char *root, const char *rel)
{
    char path[4096], why[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    bspkit_map *map = NULL;
    bspkit_error err;
    if (bspkit_open_file(path, NULL, &map, &err) != BSPKIT_OK)
        return; /* unsupported and broken files are the reader's corpus test's business */
    bspkit_family family = bspkit_map_format(map)->family;
    if (family != BSPKIT_FAMILY_QUAKE && family != BSPKIT_FAMILY_GOLDSRC) {
        /* Source maps are the VMF check's; Quake 2 maps are written from their brush lumps, which
         * corpus_quake2_decompile_qbsp compiles again: here every brush must come out. */
        if (family == BSPKIT_FAMILY_QUAKE2) {
            char *text = NULL;
            size_t size = 0;
            bspkit_decompile_stats st;
            const bspkit_brush *q2_brushes;
            size_t nbrushes = 0;
            if (bspkit_decompile_memory(map, NULL, &text, &size, &st, &err) != BSPKIT_OK)
                fail(rel, err.message);
            else if (bspkit_get_brushes(map, &q2_brushes, &nbrushes, &err) != BSPKIT_OK || st.brushes == 0 ||
                     st.brushes + 16 < nbrushes)
                fail(rel, "a Quake 2 decompile lost brushes");
            bspkit_free(text);
        }
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
    splits += st.texture_splits;
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
        /* A sky name on a solid brush's face is written as the tool texture
         * (it would turn the brush into sky), so a few names are missed:
         * each map's misses are listed, the total is bounded below. */
        if (!textures_kept(map, &m, why, sizeof why))
            printf("NOTE %s: %s\n", rel, why);
        face_textures_on_sides(map, &m, rel);
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
    if (m.nbrushes >= st.brushes) {
        mr_hull_agreement ha;
        if (!mr_agree_hull(map, &m, 2000, 777, &ha, why, sizeof why)) {
            fail(rel, why);
        } else {
            hull_points += ha.points;
            hull_agreed += ha.agreed;
            clip_points += ha.clip_points;
            clip_covered += ha.clip_covered;
            false_clip += ha.false_clip;
            double pct = ha.points ? 100.0 * (double)ha.agreed / (double)ha.points : 100;
            if (pct < hull_worst) {
                hull_worst = pct;
                snprintf(hull_worst_map, sizeof hull_worst_map, "%s", rel);
            }
            if (pct < 99.0) {
                snprintf(why, sizeof why, "hull %d: agreement %.2f%% below 99%%", ha.hull, pct);
                fail(rel, why);
            }
        }
    }
    clip_brushes += st.clip_brushes;
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
    printf("decompile .map: %d Quake/GoldSrc maps, %llu leaves (cut %llu times between textures) -> %llu brushes, %llu sides (%llu textured, %llu "
           "tool), %llu points %.4f%% agree, worst %.3f%% %s, %.3f s total, slowest %.3f s %s; origin entities %llu, "
           "%llu inside the world; %llu face texture names, %llu not on any side\n",
           maps, (unsigned long long)leaves, (unsigned long long)splits, (unsigned long long)brushes, (unsigned long long)sides,
           (unsigned long long)(sides - tool_sides), (unsigned long long)tool_sides, (unsigned long long)points,
           points ? 100.0 * (double)agreed / (double)points : 100.0, worst, worst_map, total_time, slowest,
           slowest_map, (unsigned long long)origin_entities, (unsigned long long)origin_inside,
           (unsigned long long)face_names, (unsigned long long)face_names_missing);
    printf("player hull (GoldSrc 3, Quake 1) against the world's brushes grown by its box: %llu points %.3f%% agree, "
           "worst %.3f%% %s; %llu clip brushes; of %llu points solid in the hull only through clip, %llu (%.1f%%) in a "
           "clip brush; %llu points open in the hull but in a clip brush\n",
           (unsigned long long)hull_points, hull_points ? 100.0 * (double)hull_agreed / (double)hull_points : 100.0,
           hull_worst, hull_worst_map, (unsigned long long)clip_brushes, (unsigned long long)clip_points,
           (unsigned long long)clip_covered, clip_points ? 100.0 * (double)clip_covered / (double)clip_points : 100.0,
           (unsigned long long)false_clip);
    printf("world face area on a side of its own texture: %.3f%% (other texture %.3f%%, on no side %.3f%%)\n",
           area_all > 0 ? 100 * area_matched / area_all : 100.0, area_all > 0 ? 100 * area_wrong / area_all : 0.0,
           area_all > 0 ? 100 * area_unplaced / area_all : 0.0);
    if (clip_covered < 0.98 * (double)clip_points) {
        printf("FAIL clip: %llu of %llu points solid in the player hull only through clip are in no clip brush\n",
               (unsigned long long)(clip_points - clip_covered), (unsigned long long)clip_points);
        failures++;
    }
    if (false_clip * 2000 > hull_points) {
        printf("FAIL clip: %llu points open in the player hull are in a clip brush (more than 0.05%%)\n",
               (unsigned long long)false_clip);
        failures++;
    }
    if (area_all > 0 && area_matched < 0.999 * area_all) {
        printf("FAIL face textures: less than 99.9%% of the world's face area lies on a side of its texture\n");
        failures++;
    }
    if (face_names_missing * 100 > face_names) {
        printf("FAIL face textures: %llu of %llu face texture names are on no side (more than 1%%)\n",
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
