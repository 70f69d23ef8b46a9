/*
 * Corpus check for the VMF decompiler over every Source map in MAPS_DIR. The
 * output is read back with the tests' own VMF reader and checked against the
 * map's lumps:
 *  - planes: every non-bevel plane of every brush appears on some side of
 *    the VMF, recomputed from the side's three points as Hammer/vbsp do
 *    (normal = (p0 - p1) x (p2 - p1), dist = p0 . normal), in the world or
 *    moved by the origin of one of the map's brush entities;
 *  - solids in the file = the solids the stats report;
 *  - every key/value of every lump entity survives, in order of entities
 *    (outputs may sit in the entity's connections block; brush "model"s go);
 *  - every dispinfo block has 2^p + 1 rows of 3 (2^p + 1) normals and of
 *    2^p + 1 distances, and there is one per DISPINFO record;
 *  - every face's texture name appears as a side or overlay material, either
 *    as is or as the tail of a patched name "maps/<map>/<M>" + patch suffixes;
 *  - vbspinfo's dispinfos, overlays and cubemapsamples rows (in
 *    <map>.info.txt, when present) against the dispinfo blocks, info_overlay
 *    and env_cubemap entities written;
 *  - where the map's own source <map>.vmf sits beside it: overlays (basis,
 *    uv, texture range) and the placement of area portal and occluder
 *    brushes against the source's.
 * It also reads every .vmf source under MAPS_DIR with the same reader.
 * Usage: corpus_check_decompile_vmf MAPS_DIR
 */
#include "bspkit/bspkit.h"
#include "bspkit/decompile.h"
#include "bspkit/props.h"
#include "corpus_walk.h"
#include "vmf_read.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static int failures, maps_checked, info_compared, vmf_sources;
static size_t generated_faces, solids_total, sides_total, planes_checked, planes_matched, disp_total, names_checked, kv_checked;

static void fail_map(const char *rel, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL %s: ", rel);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    failures++;
}

static char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n + 65536 + 1 > cap) {
            cap = (n + 65536 + 1) * 2;
            char *nb = realloc(buf, cap);
            if (!nb)
                break;
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    *size = n;
    return buf;
}

typedef struct vplane {
    double n[3], d;
} vplane;

static int cmp_d(const void *a, const void *b)
{
    double x = ((const vplane *)a)->d, y = ((const vplane *)b)->d;
    return x < y ? -1 : x > y;
}

static int side_plane(const vmf_node *side, vplane *out) { return vmf_side_plane(side, out->n, &out->d); }

/* Collected from the VMF: side planes, materials, solid count, dispinfo blocks. */
typedef struct vmf_facts {
    vplane *planes;
    size_t nplanes, cap;
    char **materials;
    size_t nmat, matcap;
    size_t solids, disp_blocks, disp_bad, overlays, cubemaps;
    const vmf_node **props, **cubes; /* prop_static and env_cubemap entities, in file order */
    size_t nprops, ncubes, propcap, cubecap;
} vmf_facts;

static void add_node(const vmf_node ***list, size_t *n, size_t *cap, const vmf_node *node)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        *list = realloc(*list, *cap * sizeof **list);
    }
    (*list)[(*n)++] = node;
}

static void add_material(vmf_facts *f, const char *m)
{
    if (!m)
        return;
    if (f->nmat == f->matcap) {
        f->matcap = f->matcap ? 2 * f->matcap : 256;
        f->materials = realloc(f->materials, f->matcap * sizeof *f->materials);
    }
    f->materials[f->nmat++] = strdup(m);
}

static size_t count_numbers(const char *s)
{
    size_t n = 0;
    char *end;
    for (const char *q = s; q && *q; q = end) {
        strtod(q, &end);
        if (end == q)
            break;
        n++;
    }
    return n;
}

static void check_disp(vmf_facts *f, const vmf_node *disp)
{
    f->disp_blocks++;
    const char *pw = vmf_value(disp, "power");
    int p = pw ? atoi(pw) : -1;
    const vmf_node *normals = vmf_child(disp, "normals", 0), *dist = vmf_child(disp, "distances", 0);
    if (p < 2 || p > 4 || !normals || !dist) {
        f->disp_bad++;
        return;
    }
    size_t side = ((size_t)1 << p) + 1, nn = 0, nd = 0;
    if (normals->pair_count != side || dist->pair_count != side)
        f->disp_bad++;
    for (size_t i = 0; i < normals->pair_count; i++)
        nn += count_numbers(normals->pairs[i].value);
    for (size_t i = 0; i < dist->pair_count; i++)
        nd += count_numbers(dist->pairs[i].value);
    if (nn != 3 * side * side || nd != side * side)
        f->disp_bad++;
}

static void collect(vmf_facts *f, const vmf_node *blk)
{
    const char *cls = vmf_value(blk, "classname");
    if (cls && strcmp(cls, "info_overlay") == 0) {
        f->overlays++;
        add_material(f, vmf_value(blk, "material"));
    }
    if (cls && strcmp(cls, "env_cubemap") == 0) {
        f->cubemaps++;
        add_node(&f->cubes, &f->ncubes, &f->cubecap, blk);
    }
    if (cls && strcmp(cls, "prop_static") == 0)
        add_node(&f->props, &f->nprops, &f->propcap, blk);
    for (size_t s = 0; s < vmf_count(blk, "solid"); s++) {
        const vmf_node *solid = vmf_child(blk, "solid", s);
        f->solids++;
        for (size_t k = 0; k < vmf_count(solid, "side"); k++) {
            const vmf_node *side = vmf_child(solid, "side", k);
            vplane p;
            if (side_plane(side, &p) == 0) {
                if (f->nplanes == f->cap) {
                    f->cap = f->cap ? 2 * f->cap : 1024;
                    f->planes = realloc(f->planes, f->cap * sizeof *f->planes);
                }
                f->planes[f->nplanes++] = p;
            }
            add_material(f, vmf_value(side, "material"));
            const vmf_node *disp = vmf_child(side, "dispinfo", 0);
            if (disp)
                check_disp(f, disp);
        }
    }
}

static bool has_plane(const vmf_facts *f, const double n[3], double d)
{
    size_t lo = 0, hi = f->nplanes;
    while (lo < hi) { /* first plane with dist >= d - 0.01 */
        size_t mid = (lo + hi) / 2;
        if (f->planes[mid].d < d - 0.01)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < f->nplanes && f->planes[i].d <= d + 0.01; i++)
        if (fabs(f->planes[i].n[0] - n[0]) < 0.01 && fabs(f->planes[i].n[1] - n[1]) < 0.01 &&
            fabs(f->planes[i].n[2] - n[2]) < 0.01)
            return true;
    return false;
}

/* Is `name` the material m written, or a patched copy "maps/<map>/<m>" + suffixes? */
static bool name_matches(const char *name, const char *m)
{
    if (strcasecmp(name, m) == 0)
        return true;
    if (strncasecmp(name, "maps/", 5) != 0)
        return false;
    const char *rest = strchr(name + 5, '/');
    size_t ml = strlen(m);
    if (!rest || strncasecmp(rest + 1, m, ml) != 0)
        return false;
    /* what follows must be made of patch suffixes only */
    const char *s = rest + 1 + ml;
    while (*s) {
        if (strncasecmp(s, "_wvt_patch", 10) == 0) {
            s += 10;
            continue;
        }
        if (strncasecmp(s, "_depth_", 7) == 0)
            s += 6;
        if (*s != '_')
            return false;
        s++;
        if (*s == '-')
            s++;
        if (!isdigit((unsigned char)*s))
            return false;
        while (isdigit((unsigned char)*s))
            s++;
    }
    return true;
}

/* A row of vbspinfo's table: the first figure after the name, or -1. */
static long info_row(const char *info, const char *row)
{
    for (const char *p = info; (p = strstr(p, row)) != NULL; p++) {
        if (p != info && p[-1] != '\n')
            continue;
        const char *q = p + strlen(row);
        if (*q != ' ')
            continue;
        return strtol(q, NULL, 10);
    }
    return -1;
}

static void check_entities(const char *rel, const bspkit_entities *ents, const vmf_node *root)
{
    size_t v = 0;
    for (size_t e = 0; e < ents->count; e++) {
        const vmf_node *blk = e == 0 ? vmf_child(root, "world", 0) : vmf_child(root, "entity", v++);
        if (!blk) {
            fail_map(rel, "entity %zu has no VMF block", e);
            return;
        }
        const vmf_node *conn = vmf_child(blk, "connections", 0);
        for (size_t k = 0; k < ents->entities[e].num_pairs; k++) {
            const bspkit_keyvalue *kv = &ents->pairs[ents->entities[e].first_pair + k];
            if (strcmp(kv->key, "model") == 0 && kv->value[0] == '*')
                continue;
            kv_checked++;
            bool found = false;
            for (size_t i = 0; i < blk->pair_count && !found; i++)
                found = strcmp(blk->pairs[i].key, kv->key) == 0 && strcmp(blk->pairs[i].value, kv->value) == 0;
            for (size_t i = 0; conn && i < conn->pair_count && !found; i++)
                found = strcmp(conn->pairs[i].key, kv->key) == 0 && strcmp(conn->pairs[i].value, kv->value) == 0;
            if (!found) {
                fail_map(rel, "entity %zu: \"%s\" \"%.40s\" is missing", e, kv->key, kv->value);
                return;
            }
        }
    }
}

static void check_planes(const char *rel, bspkit_map *m, const bspkit_entities *ents, const vmf_facts *f)
{
    const bspkit_brush *br;
    const bspkit_brushside *bs;
    const bspkit_plane *pl;
    size_t nb, ns, np;
    bspkit_error err;
    if (bspkit_get_brushes(m, &br, &nb, &err) || bspkit_get_brushsides(m, &bs, &ns, &err) ||
        bspkit_get_planes(m, &pl, &np, &err)) {
        fail_map(rel, "%s", err.message);
        return;
    }
    /* origins of brush entities: their brushes are written moved by them */
    double (*origins)[3] = calloc(ents->count + 1, sizeof *origins);
    size_t no = 1;
    for (size_t e = 1; e < ents->count; e++) {
        const char *mdl = bspkit_entity_value(ents, e, "model"), *org = bspkit_entity_value(ents, e, "origin");
        double o[3];
        if (mdl && mdl[0] == '*' && org && sscanf(org, "%lf %lf %lf", &o[0], &o[1], &o[2]) == 3 &&
            (o[0] != 0 || o[1] != 0 || o[2] != 0))
            memcpy(origins[no++], o, sizeof o);
    }
    size_t missed = 0, checked = 0;
    for (size_t b = 0; b < nb; b++) {
        if (br[b].first_side < 0 || br[b].num_sides < 0 || (size_t)br[b].first_side + (size_t)br[b].num_sides > ns)
            continue;
        for (int32_t k = 0; k < br[b].num_sides; k++) {
            const bspkit_brushside *s = &bs[br[b].first_side + k];
            if (s->bevel || s->plane >= np)
                continue;
            double n[3] = {pl[s->plane].normal.x, pl[s->plane].normal.y, pl[s->plane].normal.z};
            bool hit = false;
            for (size_t o = 0; o < no && !hit; o++)
                hit = has_plane(f, n, pl[s->plane].dist + n[0] * origins[o][0] + n[1] * origins[o][1] +
                                          n[2] * origins[o][2]);
            checked++;
            missed += !hit;
            if (!hit && getenv("VMF_CHECK_VERBOSE"))
                printf("  brush %zu (contents 0x%x) plane %u: (%g %g %g) %g\n", b, (unsigned)br[b].contents,
                       s->plane, n[0], n[1], n[2], pl[s->plane].dist);
        }
    }
    free(origins);
    planes_checked += checked;
    planes_matched += checked - missed;
    /* A side whose polygon has no area (a redundant plane) is rightly left out, and a side only a
     * few units wide cannot carry its plane within 0.01 far from the origin: allow 1%. */
    if (missed * 100 > checked)
        fail_map(rel, "%zu of %zu brush planes are on no VMF side", missed, checked);
}

/* Case-insensitive substring test. */
static bool contains_ci(const char *s, const char *sub)
{
    size_t n = strlen(sub);
    for (; *s; s++)
        if (strncasecmp(s, sub, n) == 0)
            return true;
    return false;
}

static void check_names(const char *rel, bspkit_map *m, const vmf_facts *f)
{
    const bspkit_face *faces;
    const bspkit_texinfo *ti;
    size_t nf, nti;
    bspkit_error err;
    if (bspkit_get_faces(m, &faces, &nf, &err) || bspkit_get_texinfo(m, &ti, &nti, &err))
        return;
    const char *last = NULL;
    for (size_t i = 0; i < nf; i++) {
        if (faces[i].texinfo < 0 || (size_t)faces[i].texinfo >= nti || ti[faces[i].texinfo].texture < 0)
            continue;
        const char *name = bspkit_texdata_name(m, (size_t)ti[faces[i].texinfo].texture);
        if (!name || name == last)
            continue;
        last = name;
        names_checked++;
        bool found = false;
        for (size_t k = 0; k < f->nmat && !found; k++)
            found = name_matches(name, f->materials[k]);
        /* vbsp adds the underside of a water surface itself, from the water material's
         * $bottommaterial: such names have no side in any source map. */
        if (!found && (contains_ci(name, "beneath") || contains_ci(name, "_bottom"))) {
            found = true;
            generated_faces++;
        }
        if (!found) {
            fail_map(rel, "face %zu texture %s is in no side or overlay material", i, name);
            return;
        }
    }
}

static size_t props_checked, cubemaps_checked;

/* Three numbers of `key` in `n` within `eps` of x, y, z. */
static bool vec_is(const vmf_node *n, const char *key, double x, double y, double z, double eps)
{
    const char *v = vmf_value(n, key);
    double a, b, c;
    return v && sscanf(v, "%lf %lf %lf", &a, &b, &c) == 3 && fabs(a - x) <= eps && fabs(b - y) <= eps &&
           fabs(c - z) <= eps;
}

/* prop_static entities against the static prop lump (same order), env_cubemap
 * against CUBEMAPS: position, model, skin, size. */
static void check_props_and_cubemaps(const char *rel, bspkit_map *m, const vmf_facts *f)
{
    const bspkit_static_props *sp;
    bspkit_error err;
    if (bspkit_get_static_props(m, &sp, &err) == BSPKIT_OK && sp->present && sp->layout_known) {
        if (f->nprops != sp->prop_count)
            fail_map(rel, "%zu prop_static entities for %zu static props", f->nprops, sp->prop_count);
        for (size_t i = 0; i < f->nprops && i < sp->prop_count; i++) {
            const bspkit_static_prop *p = &sp->props[i];
            const vmf_node *e = f->props[i];
            const char *model = vmf_value(e, "model"), *skin = vmf_value(e, "skin");
            bool model_ok = p->prop_type < sp->dictionary_count && model &&
                            strcmp(model, sp->dictionary[p->prop_type].name) == 0;
            if (!vec_is(e, "origin", p->origin.x, p->origin.y, p->origin.z, 0.01) ||
                !vec_is(e, "angles", p->angles.x, p->angles.y, p->angles.z, 0.01) || !model_ok || !skin ||
                atol(skin) != p->skin) {
                fail_map(rel, "prop_static %zu differs from static prop %zu (origin, angles, model or skin)", i, i);
                break;
            }
            props_checked++;
        }
    }
    const bspkit_cubemap *cm;
    size_t ncm;
    if (bspkit_get_cubemaps(m, &cm, &ncm, &err) == BSPKIT_OK) {
        if (f->ncubes != ncm)
            fail_map(rel, "%zu env_cubemap entities for %zu cubemap samples", f->ncubes, ncm);
        for (size_t i = 0; i < f->ncubes && i < ncm; i++) {
            const char *size = vmf_value(f->cubes[i], "cubemapsize");
            if (!vec_is(f->cubes[i], "origin", cm[i].origin[0], cm[i].origin[1], cm[i].origin[2], 0) || !size ||
                atol(size) != cm[i].size) {
                fail_map(rel, "env_cubemap %zu differs from cubemap sample %zu", i, i);
                break;
            }
            cubemaps_checked++;
        }
    }
}

/* ---- against the map's own VMF source, when it sits beside the map -------- */

static size_t source_pairs, overlays_matched, brush_entities_matched;

static bool vec3_of(const vmf_node *n, const char *key, double v[3])
{
    const char *s = vmf_value(n, key);
    return s && sscanf(s, "%lf %lf %lf", &v[0], &v[1], &v[2]) == 3;
}

static bool vec3_near(const vmf_node *a, const vmf_node *b, const char *key, double eps)
{
    double x[3], y[3];
    if (!vec3_of(a, key, x) || !vec3_of(b, key, y))
        return false;
    return fabs(x[0] - y[0]) <= eps && fabs(x[1] - y[1]) <= eps && fabs(x[2] - y[2]) <= eps;
}

static bool number_near(const vmf_node *a, const vmf_node *b, const char *key, double eps)
{
    const char *x = vmf_value(a, key), *y = vmf_value(b, key);
    return x && y && fabs(atof(x) - atof(y)) <= eps;
}

/* Bounds of every side point of an entity's solids; false when it has none. */
static bool solid_bounds(const vmf_node *e, double lo[3], double hi[3])
{
    bool any = false;
    for (size_t i = 0; i < vmf_count(e, "solid"); i++) {
        const vmf_node *solid = vmf_child(e, "solid", i);
        for (size_t j = 0; j < vmf_count(solid, "side"); j++) {
            const char *pl = vmf_value(vmf_child(solid, "side", j), "plane");
            double p[9];
            if (!pl || sscanf(pl, "(%lf %lf %lf) (%lf %lf %lf) (%lf %lf %lf)", &p[0], &p[1], &p[2], &p[3], &p[4],
                              &p[5], &p[6], &p[7], &p[8]) != 9)
                continue;
            for (int k = 0; k < 9; k++) {
                if (!any || p[k] < lo[k % 3])
                    lo[k % 3] = p[k];
                if (!any || p[k] > hi[k % 3])
                    hi[k % 3] = p[k];
                if (k % 3 == 2)
                    any = true;
            }
        }
    }
    return any;
}

static const char *classname(const vmf_node *e)
{
    const char *c = vmf_value(e, "classname");
    return c ? c : "";
}

/* Every info_overlay of the source has one in the output at the same basis
 * origin with the same material, basis vectors and texture coordinates; every
 * area portal and occluder of the source (matched by its id, which vbsp keeps
 * as "hammerid") has its rebuilt brushes within 2 units of the source brush. */
static void check_against_source(const char *rel, const char *map_path, const vmf_node *out)
{
    char src_path[4200];
    size_t n = strlen(map_path);
    if (n < 4 || n - 4 + 5 > sizeof src_path)
        return;
    snprintf(src_path, sizeof src_path, "%.*s.vmf", (int)(n - 4), map_path);
    size_t size;
    char *text = read_all(src_path, &size);
    if (!text)
        return;
    vmf_node src;
    char msg[128];
    if (vmf_parse(text, size, &src, msg, sizeof msg) != 0) {
        free(text);
        return; /* read_sources reports it */
    }
    source_pairs++;
    static const char *const uv_keys[] = {"uv0", "uv1", "uv2", "uv3"};
    static const char *const range_keys[] = {"StartU", "EndU", "StartV", "EndV"};
    for (size_t i = 0; i < vmf_count(&src, "entity"); i++) {
        const vmf_node *se = vmf_child(&src, "entity", i);
        const char *cls = classname(se);
        if (strcmp(cls, "info_overlay") == 0) {
            const vmf_node *match = NULL;
            for (size_t j = 0; j < vmf_count(out, "entity") && !match; j++) {
                const vmf_node *oe = vmf_child(out, "entity", j);
                const char *sm = vmf_value(se, "material"), *om = vmf_value(oe, "material");
                if (strcmp(classname(oe), "info_overlay") == 0 && vec3_near(se, oe, "BasisOrigin", 0.01) && sm &&
                    om && strcasecmp(sm, om) == 0)
                    match = oe;
            }
            if (!match) {
                fail_map(rel, "source overlay %s at %s has no overlay at its basis origin", vmf_value(se, "id"),
                         vmf_value(se, "BasisOrigin"));
                continue;
            }
            bool same = vec3_near(se, match, "BasisU", 1e-3) && vec3_near(se, match, "BasisV", 1e-3) &&
                        vec3_near(se, match, "BasisNormal", 1e-3);
            for (int k = 0; k < 4; k++)
                same = same && vec3_near(se, match, uv_keys[k], 0.01) && number_near(se, match, range_keys[k], 1e-3);
            if (!same)
                fail_map(rel, "overlay at %s differs from its source in basis, uv or texture range",
                         vmf_value(se, "BasisOrigin"));
            else
                overlays_matched++;
        } else if (strcmp(cls, "func_areaportal") == 0 || strcmp(cls, "func_occluder") == 0) {
            const char *id = vmf_value(se, "id");
            const vmf_node *match = NULL;
            for (size_t j = 0; j < vmf_count(out, "entity") && !match && id; j++) {
                const vmf_node *oe = vmf_child(out, "entity", j);
                const char *hid = vmf_value(oe, "hammerid");
                if (strcmp(classname(oe), cls) == 0 && hid && strcmp(hid, id) == 0)
                    match = oe;
            }
            double slo[3], shi[3], olo[3], ohi[3];
            if (!match || !solid_bounds(se, slo, shi) || !solid_bounds(match, olo, ohi)) {
                fail_map(rel, "source %s %s has no rebuilt brush", cls, id ? id : "?");
                continue;
            }
            bool inside = true;
            for (int k = 0; k < 3; k++)
                inside = inside && olo[k] >= slo[k] - 2.01 && ohi[k] <= shi[k] + 2.01;
            if (!inside)
                fail_map(rel, "%s %s: rebuilt brush (%g %g %g)-(%g %g %g) is not at the source brush (%g %g %g)-(%g %g %g)",
                         cls, id, olo[0], olo[1], olo[2], ohi[0], ohi[1], ohi[2], slo[0], slo[1], slo[2], shi[0],
                         shi[1], shi[2]);
            else
                brush_entities_matched++;
        }
    }
    vmf_free(&src);
    free(text);
}

static void visit(const char *root, const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    bspkit_map *m;
    bspkit_error err;
    bspkit_result r = bspkit_open_file(path, NULL, &m, &err);
    if (r == BSPKIT_ERR_UNSUPPORTED || (r == BSPKIT_OK && bspkit_map_format(m)->family != BSPKIT_FAMILY_SOURCE)) {
        if (r == BSPKIT_OK)
            bspkit_close(m);
        return;
    }
    if (r != BSPKIT_OK)
        return; /* the reader's own corpus test covers maps that do not open */
    char *text = NULL;
    size_t size;
    bspkit_decompile_stats st;
    r = bspkit_decompile_memory(m, NULL, &text, &size, &st, &err);
    if (r != BSPKIT_OK) {
        fail_map(rel, "decompile: %s", err.message);
        bspkit_close(m);
        return;
    }
    maps_checked++;
    vmf_node vmf;
    char msg[128];
    if (vmf_parse(text, size, &vmf, msg, sizeof msg) != 0) {
        fail_map(rel, "output does not read back: %s", msg);
        free(text);
        bspkit_close(m);
        return;
    }
    vmf_facts f = {0};
    for (size_t i = 0; i < vmf.child_count; i++)
        collect(&f, &vmf.children[i]);
    qsort(f.planes, f.nplanes, sizeof *f.planes, cmp_d);
    solids_total += f.solids;
    sides_total += f.nplanes;
    disp_total += f.disp_blocks;
    if (f.solids != st.brushes)
        fail_map(rel, "%zu solids in the file, stats say %zu", f.solids, st.brushes);
    const bspkit_entities *ents;
    if (bspkit_get_entities(m, &ents, &err) == BSPKIT_OK) {
        check_entities(rel, ents, &vmf);
        check_planes(rel, m, ents, &f);
    }
    check_names(rel, m, &f);
    check_props_and_cubemaps(rel, m, &f);
    check_against_source(rel, path, &vmf);
    if (f.disp_bad)
        fail_map(rel, "%zu dispinfo blocks have wrong row or value counts", f.disp_bad);
    size_t ndisp = 0;
    uint64_t recs = 0;
    if (bspkit_lump_record_count(m, BSPKIT_S_DISPINFO, &recs) == BSPKIT_OK)
        ndisp = (size_t)recs;
    if (f.disp_blocks != ndisp)
        fail_map(rel, "%zu dispinfo blocks for %zu DISPINFO records", f.disp_blocks, ndisp);
    char info_path[4200];
    snprintf(info_path, sizeof info_path, "%s.info.txt", path);
    size_t isz;
    char *info = read_all(info_path, &isz);
    if (info) {
        info_compared++;
        long d = info_row(info, "dispinfos"), o = info_row(info, "overlays"), c = info_row(info, "cubemapsamples");
        if (d >= 0 && (size_t)d != f.disp_blocks)
            fail_map(rel, "vbspinfo dispinfos %ld, VMF has %zu", d, f.disp_blocks);
        if (o >= 0 && (size_t)o != f.overlays)
            fail_map(rel, "vbspinfo overlays %ld, VMF has %zu", o, f.overlays);
        if (c >= 0 && (size_t)c != f.cubemaps)
            fail_map(rel, "vbspinfo cubemapsamples %ld, VMF has %zu", c, f.cubemaps);
        free(info);
    }
    for (size_t i = 0; i < f.nmat; i++)
        free(f.materials[i]);
    free(f.materials);
    free(f.planes);
    free(f.props);
    free(f.cubes);
    vmf_free(&vmf);
    free(text);
    bspkit_close(m);
}

/* Every .vmf source below dir: it must read, and hold a world block. */
static void read_sources(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (!d || depth > 16) {
        if (d)
            closedir(d);
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        struct stat sb;
        if (stat(path, &sb) != 0)
            continue;
        if (S_ISDIR(sb.st_mode)) {
            read_sources(path, depth + 1);
            continue;
        }
        size_t len = strlen(de->d_name);
        if (len < 4 || strcasecmp(de->d_name + len - 4, ".vmf") != 0)
            continue;
        size_t size;
        char *text = read_all(path, &size);
        if (!text)
            continue;
        vmf_node root;
        char msg[128];
        if (vmf_parse(text, size, &root, msg, sizeof msg) != 0) {
            fail_map(path, "VMF source does not read: %s", msg);
        } else {
            vmf_sources++;
            if (!vmf_child(&root, "world", 0) && root.child_count > 0 && vmf_count(&root, "versioninfo"))
                fail_map(path, "VMF source has no world block");
            vmf_free(&root);
        }
        free(text);
    }
    closedir(d);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s MAPS_DIR\n", argv[0]);
        return 2;
    }
    struct stat sb;
    if (stat(argv[1], &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        printf("skipped: %s not present\n", argv[1]);
        return 0;
    }
    corpus_walk(argv[1], visit);
    read_sources(argv[1], 0);
    printf("decompile vmf: %d maps, %zu solids, %zu sides, %zu/%zu brush planes matched, %zu displacements, "
           "%zu face names (%zu water undersides), %zu key/values, %zu static props and %zu cubemaps equal to their "
           "lumps, %d vbspinfo files, %d VMF sources read; beside %zu sources: %zu overlays and %zu area portal/occluder "
           "entities equal to theirs; %d failures\n",
           maps_checked, solids_total, sides_total, planes_matched, planes_checked, disp_total, names_checked,
           generated_faces, kv_checked, props_checked, cubemaps_checked, info_compared, vmf_sources, source_pairs,
           overlays_matched, brush_entities_matched, failures);
    return failures ? 1 : 0;
}
