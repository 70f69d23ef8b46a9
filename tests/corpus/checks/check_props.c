/*
 * Corpus check for the prop game lumps (sprp, dprp, dplt, dplh) over every
 * Source map in MAPS_DIR:
 *  - the lump is fully accounted for: the byte total recomputed here from
 *    the decoded counts, the record size and each layout's own structure
 *    equals the game lump's size, or a warning is recorded;
 *  - the record size is the one this check's own table gives the layout;
 *  - PropType < dictionary size, FirstLeaf + LeafCount <= leaf array size,
 *    every leaf index < the map's leaf count, origins finite and inside the
 *    world model's bounds plus a margin (a wrong layout shifts them), model
 *    names ending in ".mdl";
 *  - detail props: model/sprite index in range, leaf in range, origin in
 *    bounds, light-style ranges inside the dplt/dplh records;
 *  - prop_static entities in the map's .vmf source (same base name) against
 *    the static prop count;
 *  - vbspinfo's "static props" / "detail props" rows (their second figure is
 *    the game lump's byte size) against the decompressed lump size.
 * A map listed as "<map>#props" in KNOWN_FAILURES_TSV reports its failures
 * as known, and a note when it passes.
 * Usage: corpus_check_props MAPS_DIR [KNOWN_FAILURES_TSV]
 */
#include "bspkit/bspkit.h"
#include "bspkit/props.h"
#include "corpus_walk.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define MARGIN 256.0f

static int failures, known_failures, maps_checked, maps_sprp, maps_dprp, vmf_compared, info_compared;
static size_t props_decoded, detail_decoded, lightstyles_decoded;

/* Figures per version/layout. */
typedef struct {
    char key[64];
    int maps;
    size_t props;
} tally;
static tally tallies[64];
static int tally_count;

static void count_layout(const char *key, size_t props)
{
    for (int i = 0; i < tally_count; i++)
        if (strcmp(tallies[i].key, key) == 0) {
            tallies[i].maps++;
            tallies[i].props += props;
            return;
        }
    if (tally_count < 64) {
        snprintf(tallies[tally_count].key, sizeof tallies[0].key, "%s", key);
        tallies[tally_count].maps = 1;
        tallies[tally_count].props = props;
        tally_count++;
    }
}

static void fail(const char *rel, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Set while comparing with a source kept for another build: differences are notes. */
static bool soft_failures;
/* known_failures.tsv reason for the map being checked, and whether it failed. */
static const char *known_reason;
static bool map_failed;

static void fail(const char *rel, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (soft_failures) {
        printf("note (source of another build) %s: ", rel);
        vprintf(fmt, ap);
        printf("\n");
    } else if (known_reason) {
        printf("known %s: ", rel);
        vprintf(fmt, ap);
        printf(" (%s)\n", known_reason);
        known_failures++;
        map_failed = true;
        corpus_known_seen(rel, "props");
    } else {
        printf("FAIL %s: ", rel);
        vprintf(fmt, ap);
        printf("\n");
        failures++;
        map_failed = true;
    }
    va_end(ap);
}

/* Record sizes and structure extras per layout, written out here from the
 * format documents rather than taken from the library. */
static const struct {
    const char *name;
    unsigned size;
} EXPECTED[] = {
    {"v4", 56}, {"v5", 60}, {"v6", 64}, {"v7-l4d", 68}, {"v8", 68}, {"v9", 72}, {"v10-csgo", 76},
    {"v11-csgo", 80}, {"v12", 80}, {"v13", 88}, {"sdk2013-lightmap", 72}, {"v11-blackmesa-76", 76},
    {"v11-blackmesa", 80}, {"v7-zeno-clash", 68}, {"v5-the-ship", 188}, {"v6-bgt", 192},
    {"v6-dark-messiah", 136}, {"v6-vindictus", 60}, {"v7-vindictus", 64},
};

static int expected_size(const char *layout)
{
    for (size_t i = 0; i < sizeof EXPECTED / sizeof EXPECTED[0]; i++)
        if (strcmp(EXPECTED[i].name, layout) == 0)
            return (int)EXPECTED[i].size;
    return -1;
}

/* ---- .vmf sources ------------------------------------------------------ */

static char vmf_paths[256][1024];
static int vmf_count;

static void find_vmfs(const char *dir)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        if (name[0] != '.') {
            char full[1024];
            snprintf(full, sizeof full, "%s/%s", dir, name);
            struct stat st;
            size_t len = strlen(name);
            if (stat(full, &st) == 0 && S_ISDIR(st.st_mode))
                find_vmfs(full);
            else if (len > 4 && strcasecmp(name + len - 4, ".vmf") == 0 && vmf_count < 256)
                snprintf(vmf_paths[vmf_count++], sizeof vmf_paths[0], "%s", full);
        }
        free(names[i]);
    }
    if (n >= 0)
        free(names);
}

/* Copies as much of `src` as fits in `cap` bytes (truncating long paths is fine here). */
static void copy_bounded(char *out, size_t cap, const char *src)
{
    size_t n = strnlen(src, cap - 1);
    memcpy(out, src, n);
    out[n] = '\0';
}

static void base_name(const char *path, char *out, size_t cap)
{
    const char *slash = strrchr(path, '/');
    copy_bounded(out, cap, slash ? slash + 1 : path);
    char *dot = strrchr(out, '.');
    if (dot)
        *dot = '\0';
    dot = strrchr(out, '.');
    if (dot && strcmp(dot, ".360") == 0) /* console build of the same map */
        *dot = '\0';
}

/* Name of the directory holding `path` ("Team Fortress 2"). */
static void parent_name(const char *path, char *out, size_t cap)
{
    char tmp[1024];
    copy_bounded(tmp, sizeof tmp, path);
    char *slash = strrchr(tmp, '/');
    if (slash)
        *slash = '\0';
    slash = strrchr(tmp, '/');
    snprintf(out, cap, "%s", slash ? slash + 1 : tmp);
}

/* The .vmf with the map's base name: one beside it or in a folder of the
 * same name (*exact), else the only one with that base name anywhere (a
 * source kept for another build of the map: differences are reported, not
 * failed). */
static const char *vmf_for(const char *root, const char *rel, bool *exact)
{
    *exact = false;
    char base[1024], parent[1024], full[2048];
    snprintf(full, sizeof full, "%s/%s", root, rel);
    base_name(rel, base, sizeof base);
    parent_name(full, parent, sizeof parent);
    const char *any = NULL;
    int matches = 0;
    for (int i = 0; i < vmf_count; i++) {
        char vb[1024], vp[1024];
        base_name(vmf_paths[i], vb, sizeof vb);
        if (strcmp(vb, base) != 0)
            continue;
        parent_name(vmf_paths[i], vp, sizeof vp);
        if (strcmp(vp, parent) == 0) {
            *exact = true;
            return vmf_paths[i];
        }
        any = vmf_paths[i];
        matches++;
    }
    return matches == 1 ? any : NULL;
}

/* prop_static entities in a VMF. Hammer writes objects hidden in the editor
 * inside `hidden { ... }` blocks, and vbsp drops a prop_static whose model is
 * not a .mdl, so those are counted apart. */
#define VMF_MAX_PROPS 4096
typedef struct {
    long visible, hidden, not_mdl, instances;
    bspkit_vec3 origin[VMF_MAX_PROPS]; /* of the first visible .mdl props */
} vmf_props;

static const char *quoted(const char *p, char *out, size_t cap)
{
    p = strchr(p, '"');
    if (!p)
        return NULL;
    const char *e = strchr(p + 1, '"');
    if (!e)
        return NULL;
    size_t n = (size_t)(e - p - 1) < cap - 1 ? (size_t)(e - p - 1) : cap - 1;
    memcpy(out, p + 1, n);
    out[n] = '\0';
    return e + 1;
}

static bool count_vmf_props(const char *path, vmf_props *out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    memset(out, 0, sizeof *out);
    char line[4096], pending[64] = "", stack[32][64];
    int depth = 0, entity_depth = -1;
    bool hidden = false, is_prop = false, mdl = false;
    bspkit_vec3 origin = {0, 0, 0};
    while (fgets(line, sizeof line, f)) {
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        p[strcspn(p, "\r\n")] = '\0';
        if (*p == '{') {
            if (depth < 32)
                snprintf(stack[depth], sizeof stack[0], "%s", pending);
            if (strcmp(pending, "entity") == 0 && entity_depth < 0) {
                entity_depth = depth;
                hidden = false;
                for (int i = 0; i < depth && i < 32; i++)
                    hidden |= strcmp(stack[i], "hidden") == 0;
                is_prop = mdl = false;
            }
            depth++;
        } else if (*p == '}') {
            depth--;
            if (depth == entity_depth) {
                entity_depth = -1;
                if (is_prop && !hidden && mdl && out->visible < VMF_MAX_PROPS)
                    out->origin[out->visible] = origin;
                if (is_prop)
                    *(hidden ? &out->hidden : mdl ? &out->visible : &out->not_mdl) += 1;
            }
        } else if (*p == '"') {
            char key[64], value[1024];
            const char *rest = quoted(p, key, sizeof key);
            if (rest && quoted(rest, value, sizeof value) && depth == entity_depth + 1) {
                size_t n = strlen(value);
                if (strcmp(key, "classname") == 0) {
                    is_prop = strcmp(value, "prop_static") == 0;
                    out->instances += strcmp(value, "func_instance") == 0;
                } else if (strcmp(key, "model") == 0) {
                    mdl = n >= 4 && strcasecmp(value + n - 4, ".mdl") == 0;
                } else if (strcmp(key, "origin") == 0) {
                    if (sscanf(value, "%f %f %f", &origin.x, &origin.y, &origin.z) != 3)
                        origin = (bspkit_vec3){NAN, NAN, NAN};
                }
            }
        } else if (*p) {
            snprintf(pending, sizeof pending, "%.63s", p);
        }
    }
    fclose(f);
    return true;
}

static bool same_point(bspkit_vec3 a, bspkit_vec3 b)
{
    return fabsf(a.x - b.x) < 0.5f && fabsf(a.y - b.y) < 0.5f && fabsf(a.z - b.z) < 0.5f;
}

/* The leaf holding `p`, walking the world's node tree; NULL when the tree is unusable. */
static const bspkit_leaf *point_leaf(bspkit_map *map, bspkit_vec3 p)
{
    const bspkit_node *nodes;
    const bspkit_plane *planes;
    const bspkit_leaf *leafs;
    size_t nn, np, nl;
    if (bspkit_get_nodes(map, &nodes, &nn, NULL) || bspkit_get_planes(map, &planes, &np, NULL) ||
        bspkit_get_leafs(map, &leafs, &nl, NULL))
        return NULL;
    int32_t child = 0;
    for (size_t steps = 0; child >= 0 && steps <= nn; steps++) {
        if ((size_t)child >= nn || (size_t)nodes[child].plane >= np)
            return NULL;
        const bspkit_plane *pl = &planes[nodes[child].plane];
        float d = pl->normal.x * p.x + pl->normal.y * p.y + pl->normal.z * p.z - pl->dist;
        child = nodes[child].children[d >= 0 ? 0 : 1];
    }
    size_t leaf = (size_t)(-1 - (int64_t)child);
    return child < 0 && leaf < nl ? &leafs[leaf] : NULL;
}

/* Every static prop must come from a compilable prop_static of the source at
 * the same origin; a source prop missing from the map must be one vbsp drops
 * (its origin in solid space). */
static void compare_vmf(const char *rel, bspkit_map *map, const bspkit_static_props *sp, const char *vmf,
                        const vmf_props *v)
{
    if (v->visible > VMF_MAX_PROPS || v->instances > 0) {
        if (v->visible != (long)sp->prop_count)
            printf("note %s: %ld prop_static in %s, %zu static props (%ld func_instance)\n", rel, v->visible, vmf,
                   sp->prop_count, v->instances);
        return;
    }
    long in_solid = 0;
    for (size_t i = 0; i < sp->prop_count; i++) {
        long k = 0;
        while (k < v->visible && !same_point(v->origin[k], sp->props[i].origin))
            k++;
        if (k == v->visible)
            fail(rel, "static prop %zu at (%g %g %g) has no prop_static there in %s", i, sp->props[i].origin.x,
                 sp->props[i].origin.y, sp->props[i].origin.z, vmf);
    }
    for (long k = 0; k < v->visible; k++) {
        size_t i = 0;
        while (i < sp->prop_count && !same_point(v->origin[k], sp->props[i].origin))
            i++;
        if (i < sp->prop_count)
            continue;
        const bspkit_leaf *leaf = point_leaf(map, v->origin[k]);
        if (leaf && ((leaf->contents & 1) || leaf->cluster < 0))
            in_solid++;
        else
            fail(rel, "prop_static at (%g %g %g) in %s is missing from the map (leaf contents %d, cluster %d)",
                 v->origin[k].x, v->origin[k].y, v->origin[k].z, vmf, leaf ? (int)leaf->contents : -1,
                 leaf ? (int)leaf->cluster : -1);
    }
    if (v->hidden || v->not_mdl || in_solid)
        printf("note %s: %zu static props from %ld prop_static in %s; not compiled: %ld hidden in the editor, %ld "
               "without a .mdl model, %ld with the origin in solid or outside space\n",
               rel, sp->prop_count, v->visible + v->hidden + v->not_mdl, vmf, v->hidden, v->not_mdl, in_solid);
}

/* ---- vbspinfo ---------------------------------------------------------- */

/* Second figure of a `name [variable] a/b` row, or -1. */
static long info_row(const char *root, const char *rel, const char *row)
{
    char path[2100];
    snprintf(path, sizeof path, "%s/%s.info.txt", root, rel);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[512];
    long value = -1;
    size_t n = strlen(row);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, row, n) != 0 || line[n] != ' ')
            continue;
        const char *slash = strchr(line, '/');
        if (slash)
            value = strtol(slash + 1, NULL, 10);
        break;
    }
    fclose(f);
    return value;
}

/* Decompressed size of game lump `id`, or -1 when absent. */
static long game_lump_size(bspkit_map *map, uint32_t id)
{
    const bspkit_game_lump *gl;
    size_t n;
    if (bspkit_get_game_lumps(map, &gl, &n, NULL) != BSPKIT_OK)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (gl[i].id == id) {
            const uint8_t *d;
            size_t size;
            if (bspkit_game_lump_bytes(map, i, &d, &size, NULL) != BSPKIT_OK)
                return -1;
            return (long)size;
        }
    return -1;
}

static void compare_info(const char *root, const char *rel, bspkit_map *map, const char *row, uint32_t id)
{
    long want = info_row(root, rel, row);
    if (want < 0)
        return;
    long have = game_lump_size(map, id);
    info_compared++;
    if (have != want)
        fail(rel, "vbspinfo '%s' gives %ld bytes, the game lump has %ld", row, want, have);
}

/* ---- checks ------------------------------------------------------------ */

static bool in_bounds(bspkit_vec3 v, const bspkit_model *world)
{
    return isfinite(v.x) && isfinite(v.y) && isfinite(v.z) && v.x >= world->mins.x - MARGIN &&
           v.y >= world->mins.y - MARGIN && v.z >= world->mins.z - MARGIN && v.x <= world->maxs.x + MARGIN &&
           v.y <= world->maxs.y + MARGIN && v.z <= world->maxs.z + MARGIN;
}

static void check_static(const char *root, const char *rel, bspkit_map *map, const bspkit_model *world,
                         size_t map_leafs)
{
    const bspkit_static_props *sp;
    bspkit_error err;
    if (bspkit_get_static_props(map, &sp, &err) != BSPKIT_OK) {
        fail(rel, "static props: %s", err.message);
        return;
    }
    if (!sp->present)
        return;
    maps_sprp++;
    char key[64];
    snprintf(key, sizeof key, "sprp v%d %s/%u", (int)sp->version, sp->layout, sp->record_size);
    count_layout(key, sp->prop_count);
    props_decoded += sp->prop_count;

    /* Byte total from the decoded counts. */
    uint64_t total = 12 + 128ull * sp->dictionary_count + (uint64_t)sp->leaf_index_size * sp->leaf_count +
                     (uint64_t)sp->record_size * sp->prop_count;
    if (sp->extra_names)
        total += 4 + 128ull * sp->extra_name_count;
    if (strstr(sp->layout, "vindictus"))
        total += 4; /* scaling list count; its entries are not exposed */
    long size = game_lump_size(map, BSPKIT_GAME_LUMP_STATIC_PROPS);
    if (sp->warning[0])
        printf("note %s: sprp: %s\n", rel, sp->warning);
    else if ((long)total != size)
        fail(rel, "sprp: counts account for %llu bytes, the lump has %ld", (unsigned long long)total, size);
    if (sp->layout_known) {
        int want = expected_size(sp->layout);
        if (want < 0 || (unsigned)want != sp->record_size)
            fail(rel, "sprp layout %s with %u-byte records (expected %d)", sp->layout, sp->record_size, want);
    } else if (!sp->warning[0]) {
        fail(rel, "sprp layout unknown without a warning");
    }
    if (sp->leaf_index_size != (sp->version >= 12 ? 4u : 2u))
        printf("note %s: sprp v%d leaf indices are %u bytes\n", rel, (int)sp->version, sp->leaf_index_size);

    for (size_t i = 0; i < sp->dictionary_count; i++) {
        const char *name = sp->dictionary[i].name;
        size_t n = strlen(name);
        if (n < 4 || strcasecmp(name + n - 4, ".mdl") != 0)
            fail(rel, "sprp dictionary[%zu] '%s' is not a .mdl", i, name);
    }
    for (size_t i = 0; i < sp->leaf_count; i++)
        if (sp->leafs[i] >= map_leafs) {
            fail(rel, "sprp leaf[%zu] = %u, the map has %zu leafs", i, sp->leafs[i], map_leafs);
            break;
        }
    for (size_t i = 0; i < sp->prop_count; i++) {
        const bspkit_static_prop *p = &sp->props[i];
        if (p->prop_type >= sp->dictionary_count)
            fail(rel, "prop %zu: PropType %u >= %zu names", i, p->prop_type, sp->dictionary_count);
        if ((size_t)p->first_leaf + p->leaf_count > sp->leaf_count)
            fail(rel, "prop %zu: leaves %u+%u past %zu", i, p->first_leaf, p->leaf_count, sp->leaf_count);
        if (!in_bounds(p->origin, world))
            fail(rel, "prop %zu: origin (%g %g %g) outside the world bounds", i, p->origin.x, p->origin.y,
                 p->origin.z);
        if (!isfinite(p->angles.x) || !isfinite(p->angles.y) || !isfinite(p->angles.z) ||
            fabsf(p->angles.x) > 360.0f * 4 || fabsf(p->angles.y) > 360.0f * 4 || fabsf(p->angles.z) > 360.0f * 4)
            fail(rel, "prop %zu: angles (%g %g %g) implausible", i, p->angles.x, p->angles.y, p->angles.z);
        if (p->fade_min_dist > p->fade_max_dist && p->fade_max_dist > 0)
            fail(rel, "prop %zu: FadeMinDist %g > FadeMaxDist %g", i, p->fade_min_dist, p->fade_max_dist);
        if (strstr(sp->layout, "csgo") && !(p->uniform_scale > 0) && !strstr(sp->layout, "v10"))
            fail(rel, "prop %zu: UniformScale %g", i, p->uniform_scale);
    }

    bool exact;
    const char *vmf = vmf_for(root, rel, &exact);
    if (vmf) {
        static vmf_props v;
        if (count_vmf_props(vmf, &v)) {
            vmf_compared++;
            soft_failures = !exact;
            compare_vmf(rel, map, sp, vmf, &v);
            soft_failures = false;
        }
    }
    compare_info(root, rel, map, "static props", BSPKIT_GAME_LUMP_STATIC_PROPS);
}

static void check_detail(const char *root, const char *rel, bspkit_map *map, const bspkit_model *world,
                         size_t map_leafs)
{
    const bspkit_detail_props *dp;
    const bspkit_detail_lighting *dl[2];
    bspkit_error err;
    if (bspkit_get_detail_props(map, &dp, &err) != BSPKIT_OK) {
        fail(rel, "detail props: %s", err.message);
        return;
    }
    for (int h = 0; h < 2; h++) {
        if (bspkit_get_detail_lighting(map, h, &dl[h], &err) != BSPKIT_OK) {
            fail(rel, "detail lighting: %s", err.message);
            return;
        }
        if (dl[h]->present) {
            lightstyles_decoded += dl[h]->count;
            long size = game_lump_size(map, h ? BSPKIT_GAME_LUMP_DETAIL_LIGHTING_HDR : BSPKIT_GAME_LUMP_DETAIL_LIGHTING);
            if (!dl[h]->warning[0] && size != (long)(4 + 5 * dl[h]->count))
                fail(rel, "%s: %zu records do not account for %ld bytes", h ? "dplh" : "dplt", dl[h]->count, size);
            char key[64];
            snprintf(key, sizeof key, "%s v%d", h ? "dplh" : "dplt", (int)dl[h]->version);
            count_layout(key, dl[h]->count);
        }
    }
    if (!dp->present)
        return;
    maps_dprp++;
    detail_decoded += dp->prop_count;
    char key[64];
    snprintf(key, sizeof key, "dprp v%d/%u", (int)dp->version, dp->record_size);
    count_layout(key, dp->prop_count);
    long size = game_lump_size(map, BSPKIT_GAME_LUMP_DETAIL_PROPS);
    /* Three counts (models, sprites, props); version 2 (Bloodlines) has no sprite dictionary. */
    uint64_t counts = dp->version == 2 ? 8 : 12;
    uint64_t total = counts + 128ull * dp->model_count + 32ull * dp->sprite_count +
                     (uint64_t)dp->record_size * dp->prop_count;
    if (dp->warning[0])
        printf("note %s: dprp: %s\n", rel, dp->warning);
    else if ((long)total != size)
        fail(rel, "dprp: counts account for %llu bytes, the lump has %ld", (unsigned long long)total, size);
    if (dp->version == 4 && dp->record_size != 52)
        fail(rel, "dprp v4 with %u-byte records", dp->record_size);
    if (dp->version == 2 && (dp->record_size != 40 || dp->sprite_count != 0))
        fail(rel, "dprp v2 with %u-byte records and %zu sprites", dp->record_size, dp->sprite_count);
    for (size_t i = 0; i < dp->model_count; i++) {
        size_t n = strlen(dp->models[i].name);
        if (n < 4 || strcasecmp(dp->models[i].name + n - 4, ".mdl") != 0)
            fail(rel, "dprp model[%zu] '%s' is not a .mdl", i, dp->models[i].name);
    }
    for (size_t i = 0; i < dp->prop_count; i++) {
        const bspkit_detail_prop *p = &dp->props[i];
        size_t limit = p->type == 0 ? dp->model_count : dp->sprite_count;
        if (p->type > 3)
            fail(rel, "detail prop %zu: type %u", i, p->type);
        else if (p->detail_model >= limit)
            fail(rel, "detail prop %zu: DetailModel %u >= %zu", i, p->detail_model, limit);
        if (p->leaf >= map_leafs)
            fail(rel, "detail prop %zu: leaf %u >= %zu", i, p->leaf, map_leafs);
        if (!in_bounds(p->origin, world))
            fail(rel, "detail prop %zu: origin (%g %g %g) outside the world bounds", i, p->origin.x, p->origin.y,
                 p->origin.z);
        if (p->orientation > 2)
            fail(rel, "detail prop %zu: orientation %u", i, p->orientation);
        if (p->light_style_count) {
            for (int h = 0; h < 2; h++)
                if (dl[h]->present && (uint64_t)p->light_styles + p->light_style_count > dl[h]->count)
                    fail(rel, "detail prop %zu: light styles %u+%u past %zu %s records", i, p->light_styles,
                         p->light_style_count, dl[h]->count, h ? "dplh" : "dplt");
        }
    }
    compare_info(root, rel, map, "detail props", BSPKIT_GAME_LUMP_DETAIL_PROPS);
}

/* False for files this check does not look at (not opening, not Source). */
static bool check_map(const char *root, const char *rel)
{
    char path[2100];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    bspkit_map *map;
    bspkit_error err;
    bspkit_result r = bspkit_open_file(path, NULL, &map, &err);
    if (r == BSPKIT_ERR_UNSUPPORTED || r == BSPKIT_ERR_UNKNOWN_FORMAT)
        return false;
    if (r != BSPKIT_OK)
        return false; /* opening is the corpus test's business */
    if (bspkit_map_format(map)->family != BSPKIT_FAMILY_SOURCE) {
        bspkit_close(map);
        return false;
    }
    const bspkit_game_lump *gl;
    size_t ngl;
    const bspkit_model *models;
    size_t nmodels;
    const bspkit_leaf *leafs;
    size_t nleafs;
    if (bspkit_get_game_lumps(map, &gl, &ngl, &err) != BSPKIT_OK ||
        bspkit_get_models(map, &models, &nmodels, &err) != BSPKIT_OK ||
        bspkit_get_leafs(map, &leafs, &nleafs, &err) != BSPKIT_OK) {
        fail(rel, "%s", err.message);
        bspkit_close(map);
        return true;
    }
    maps_checked++;
    if (nmodels == 0) {
        bspkit_close(map);
        return true;
    }
    check_static(root, rel, map, &models[0], nleafs);
    check_detail(root, rel, map, &models[0], nleafs);
    bspkit_close(map);
    return true;
}

static void visit(const char *root, const char *rel)
{
    known_reason = corpus_known_reason(rel, "props");
    map_failed = false;
    bool checked = check_map(root, rel);
    /* A stale entry would hide the next real failure of the map: show it. */
    if (checked && !map_failed && corpus_known_find(rel, "props")) {
        printf("note %s#props: listed as a known failure but passed\n", rel);
        corpus_known_seen(rel, "props");
    }
    known_reason = NULL;
}

static void not_checked(const char *entry, const char *key, const char *reason)
{
    (void)reason;
    if (key && strcmp(key, "props") == 0)
        printf("note %s: listed as a known failure but not checked (no such map, or not an opening Source map)\n",
               entry);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s MAPS_DIR [KNOWN_FAILURES_TSV]\n", argv[0]);
        return 2;
    }
    struct stat st;
    if (stat(argv[1], &st) != 0 || !S_ISDIR(st.st_mode)) {
        printf("skipped: %s not present\n", argv[1]);
        return 0;
    }
    if (argc > 2 && corpus_known_load(argv[2]) < 0) {
        fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[2]);
        return 2;
    }
    find_vmfs(argv[1]);
    corpus_walk(argv[1], visit);
    corpus_known_unseen(not_checked);
    for (int i = 0; i < tally_count; i++)
        printf("  %-40s %3d maps %6zu records\n", tallies[i].key, tallies[i].maps, tallies[i].props);
    printf("props: %d Source maps checked, %d with sprp (%zu static props), %d with dprp (%zu detail props), "
           "%zu detail light styles; %d VMF and %d vbspinfo comparisons; %d known failures, %d failures\n",
           maps_checked, maps_sprp, props_decoded, maps_dprp, detail_decoded, lightstyles_decoded, vmf_compared,
           info_compared, known_failures, failures);
    return failures ? 1 : 0;
}
