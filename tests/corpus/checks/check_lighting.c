/*
 * Lighting over the real maps: every lit face's samples (and, for Source,
 * the per-style averages before them) lie inside the lighting lump; for
 * Quake/GoldSrc maps the lightmaps should tile the lump (reported, not
 * required); leaf ambient indexes have one entry per leaf and ranges inside
 * the samples; BSPX ranges lie inside the file; and the counts and sizes
 * agree with Valve's vbspinfo output (`<map>.info.txt`) where present.
 * Usage: corpus_check_lighting MAPS_DIR
 */
#include "bspkit/bspkit.h"
#include "bspkit/bspx.h"
#include "bspkit/lighting.h"
#include "corpus_walk.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int failures, maps, unsupported, not_opened;
static uint64_t faces_checked, lit_checked, lights_checked, ambient_checked, bspx_checked, info_rows;
static int tile_maps, tile_ok, source_tile_maps, source_tile_ok;

#define FAIL(rel, ...)                                                                                             \
    do {                                                                                                           \
        printf("FAIL %s: ", rel);                                                                                  \
        printf(__VA_ARGS__);                                                                                       \
        printf("\n");                                                                                              \
        failures++;                                                                                                \
    } while (0)

static uint32_t lump_length(bspkit_map *m, int lump)
{
    bspkit_lump_info li;
    if (bspkit_get_lump_info(m, lump, &li) != BSPKIT_OK)
        return 0;
    return li.compressed ? li.uncompressed_length : li.length;
}

/* Faces against one lighting lump. */
static void check_faces(const char *rel, bspkit_map *m, bool hdr)
{
    bspkit_error err;
    const bspkit_face_lightmap *lm;
    size_t n;
    if (bspkit_get_face_lightmaps(m, hdr, &lm, &n, &err) != BSPKIT_OK) {
        FAIL(rel, "face lightmaps%s: %s", hdr ? " (HDR)" : "", err.message);
        return;
    }
    const uint8_t *light;
    size_t light_size;
    if (bspkit_get_lighting(m, hdr, &light, &light_size, &err) != BSPKIT_OK) {
        FAIL(rel, "lighting: %s", err.message);
        return;
    }
    faces_checked += n;
    /* Without lighting data the engines draw fullbright and never follow the offsets. */
    if (light_size == 0)
        return;
    uint64_t max_end = 0;
    size_t out_of_range = 0, lit = 0;
    for (size_t i = 0; i < n; i++) {
        if (!lm[i].lit)
            continue;
        lit++;
        /* Recomputed here from the fields, independently of in_range. */
        uint64_t expect = (uint64_t)lm[i].width * (uint64_t)lm[i].height * (uint64_t)lm[i].styles *
                          (uint64_t)lm[i].sets * (uint64_t)lm[i].bytes_per_luxel;
        bool inside = lm[i].offset >= 0 && (uint64_t)lm[i].offset + expect <= light_size;
        if (lm[i].average_offset != -1 && lm[i].average_offset < 0)
            inside = false;
        if (expect != lm[i].bytes || inside != lm[i].in_range)
            FAIL(rel, "face %zu: bytes %" PRIu64 " / in_range %d disagree with the fields", i, lm[i].bytes,
                 lm[i].in_range);
        if (!inside) {
            if (out_of_range++ < 3)
                FAIL(rel, "%sface %zu: lightmap %" PRId64 "+%" PRIu64 " (%dx%d, %d styles, %d sets) past %zu bytes",
                     hdr ? "HDR " : "", i, lm[i].offset, expect, lm[i].width, lm[i].height, lm[i].styles,
                     lm[i].sets, light_size);
            continue;
        }
        if ((uint64_t)lm[i].offset + expect > max_end)
            max_end = (uint64_t)lm[i].offset + expect;
    }
    lit_checked += lit;
    bool source = bspkit_map_format(m)->family == BSPKIT_FAMILY_SOURCE;
    if (lit == 0)
        return;
    if (source) {
        source_tile_maps++;
        source_tile_ok += max_end == light_size;
        if (max_end != light_size)
            printf("note %s: lightmaps end at %" PRIu64 " of %zu %s bytes\n", rel, max_end, light_size,
                   hdr ? "LIGHTING_HDR" : "LIGHTING");
    } else {
        tile_maps++;
        if (max_end == light_size)
            tile_ok++;
        else
            printf("note %s: lightmaps end at %" PRIu64 " of %zu LIGHTING bytes\n", rel, max_end, light_size);
    }
}

static void check_ambient(const char *rel, bspkit_map *m, bool hdr, size_t leaf_count)
{
    bspkit_error err;
    const bspkit_leaf_ambient *a;
    if (bspkit_get_leaf_ambient(m, hdr, &a, &err) != BSPKIT_OK) {
        FAIL(rel, "leaf ambient%s: %s", hdr ? " (HDR)" : "", err.message);
        return;
    }
    ambient_checked += a->index_count + a->sample_count;
    if (a->index_count && a->index_count != leaf_count)
        FAIL(rel, "%s ambient index has %zu entries for %zu leafs", hdr ? "HDR" : "LDR", a->index_count, leaf_count);
    size_t bad = 0;
    for (size_t i = 0; i < a->index_count; i++)
        if (a->index[i].sample_count &&
            (uint64_t)a->index[i].first_sample + a->index[i].sample_count > a->sample_count)
            bad++;
    if (bad != a->bad_ranges)
        FAIL(rel, "bad_ranges %zu, recount %zu", a->bad_ranges, bad);
    if (bad)
        FAIL(rel, "%zu %s ambient index ranges run past %zu samples", bad, hdr ? "HDR" : "LDR", a->sample_count);
}

static void check_bspx(const char *rel, bspkit_map *m)
{
    bspkit_error err;
    const bspkit_bspx_entry *e;
    size_t n, size;
    if (bspkit_bspx_entries(m, &e, &n, &err) != BSPKIT_OK) {
        FAIL(rel, "BSPX: %s", err.message);
        return;
    }
    const uint8_t *bytes = bspkit_map_bytes(m, &size);
    (void)bytes;
    bool flagged = (bspkit_map_format(m)->variant & BSPKIT_VARIANT_BSPX) != 0;
    if (flagged != (n > 0) && flagged)
        printf("note %s: BSPX block with no entries\n", rel);
    for (size_t i = 0; i < n; i++) {
        bspx_checked++;
        if ((uint64_t)e[i].offset + e[i].length > size)
            FAIL(rel, "BSPX %s: %u+%u past %zu bytes", e[i].name, e[i].offset, e[i].length, size);
        printf("bspx %s: %s %u bytes\n", rel, e[i].name, e[i].length);
    }
    const bspkit_bspx_decoupled_lm *d;
    size_t dn;
    if (bspkit_get_bspx_decoupled_lm(m, &d, &dn, &err) != BSPKIT_OK)
        FAIL(rel, "DECOUPLED_LM: %s", err.message);
    const bspkit_bspx_brushlist *bl;
    if (bspkit_get_bspx_brushlist(m, &bl, &err) != BSPKIT_OK)
        FAIL(rel, "BRUSHLIST: %s", err.message);
    else if (bl->model_count)
        printf("bspx %s: BRUSHLIST %zu models, %zu brushes, %zu planes\n", rel, bl->model_count, bl->brush_count,
               bl->plane_count);
}

/* One vbspinfo row: "<name>  <count>/<max>  <bytes>/<maxbytes>" or "<name> [variable] <bytes>/<max>". */
static bool info_row(const char *text, const char *name, long long *count, long long *bytes)
{
    const char *p = text;
    size_t n = strlen(name);
    while ((p = strstr(p, name)) != NULL) {
        if ((p == text || p[-1] == '\n') && p[n] == ' ')
            break;
        p += n;
    }
    if (!p)
        return false;
    p += n;
    while (*p == ' ')
        p++;
    *count = -1;
    if (strncmp(p, "[variable]", 10) == 0)
        p += 10;
    else if (sscanf(p, "%lld", count) != 1)
        return false;
    else
        p = strchr(p, ' ');
    return p && sscanf(p, " %lld", bytes) == 1;
}

/* Our figures for the rows vbspinfo prints, for LDR or HDR lumps. */
typedef struct figures {
    bool ok;
    long long lights, light_bytes, lightdata, table, samples;
} figures;

static figures our_figures(const char *rel, bspkit_map *m, bool hdr)
{
    figures f = {0};
    bspkit_error err;
    const bspkit_worldlight *w;
    size_t n;
    const uint8_t *d;
    size_t size;
    const bspkit_leaf_ambient *a;
    if (bspkit_get_worldlights(m, hdr, &w, &n, &err) != BSPKIT_OK ||
        bspkit_get_lighting(m, hdr, &d, &size, &err) != BSPKIT_OK ||
        bspkit_get_leaf_ambient(m, hdr, &a, &err) != BSPKIT_OK) {
        FAIL(rel, "%s lighting lumps: %s", hdr ? "HDR" : "LDR", err.message);
        return f;
    }
    f.ok = true;
    f.lights = (long long)n;
    f.light_bytes = lump_length(m, hdr ? BSPKIT_S_WORLDLIGHTS_HDR : BSPKIT_S_WORLDLIGHTS);
    f.lightdata = (long long)size;
    f.table = (long long)a->index_count;
    f.samples = (long long)a->sample_count;
    return f;
}

/* One row: count (or bytes when count is -1) must match. */
static void compare_row(const char *rel, const char *text, const char *name, long long ours, long long fallback,
                        bool by_bytes)
{
    long long count, bytes;
    if (!info_row(text, name, &count, &bytes))
        return;
    long long theirs = by_bytes ? bytes : count;
    /* vbspinfo prints the HDR lumps in the LDR rows of maps that have only HDR data (Xbox 360). */
    if (ours != theirs && !(ours == 0 && fallback == theirs))
        FAIL(rel, "%s: ours %lld, vbspinfo %lld", name, ours, theirs);
    info_rows++;
}

static void compare_info(const char *rel, const char *path, bspkit_map *m)
{
    char info[1300];
    snprintf(info, sizeof info, "%s.info.txt", path);
    FILE *f = fopen(info, "rb");
    if (!f)
        return;
    static char text[65536];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    figures fig[2] = {our_figures(rel, m, false), our_figures(rel, m, true)};
    if (!fig[0].ok || !fig[1].ok)
        return;
    for (int hdr = 0; hdr < 2; hdr++) {
        const char *tag = hdr ? "HDR" : "LDR";
        const figures *o = &fig[hdr], *alt = &fig[1];
        long long none = -1;
        char name[64];
        snprintf(name, sizeof name, "%s worldlights", tag);
        compare_row(rel, text, name, o->lights, hdr ? none : alt->lights, false);
        /* vbspinfo's bytes are its count times its own sizeof(dworldlight_t) (88), not the lump length. */
        long long count, bytes;
        if (info_row(text, name, &count, &bytes) && bytes != count * 88 && bytes != o->light_bytes)
            FAIL(rel, "%s: vbspinfo %lld bytes for %lld records, lump %lld", name, bytes, count, o->light_bytes);
        snprintf(name, sizeof name, "%s lightdata", tag);
        compare_row(rel, text, name, o->lightdata, hdr ? none : alt->lightdata, true);
        snprintf(name, sizeof name, "%s ambient table", tag);
        compare_row(rel, text, name, o->table, hdr ? none : alt->table, false);
        snprintf(name, sizeof name, "%s leaf ambient", tag);
        compare_row(rel, text, name, o->samples, hdr ? none : alt->samples, false);
    }
}

static void visit(const char *root, const char *rel)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    bspkit_map *m = NULL;
    bspkit_error err;
    bspkit_result r = bspkit_open_file(path, NULL, &m, &err);
    if (r == BSPKIT_ERR_UNSUPPORTED) {
        unsupported++;
        return;
    }
    if (r != BSPKIT_OK) {
        /* Maps the reader rejects are the general corpus test's business. */
        printf("note %s: does not open: %s\n", rel, err.message);
        not_opened++;
        return;
    }
    maps++;
    check_faces(rel, m, false);
    if (bspkit_map_format(m)->family == BSPKIT_FAMILY_SOURCE) {
        check_faces(rel, m, true);
        const bspkit_leaf *leafs;
        size_t nleafs = 0;
        if (bspkit_get_leafs(m, &leafs, &nleafs, &err) != BSPKIT_OK)
            FAIL(rel, "leafs: %s", err.message);
        check_ambient(rel, m, false, nleafs);
        check_ambient(rel, m, true, nleafs);
        for (int hdr = 0; hdr < 2; hdr++) {
            const bspkit_worldlight *w;
            size_t n;
            if (bspkit_get_worldlights(m, hdr, &w, &n, &err) != BSPKIT_OK)
                FAIL(rel, "worldlights: %s", err.message);
            else
                lights_checked += n;
        }
        compare_info(rel, path, m);
    } else {
        check_bspx(rel, m);
    }
    bspkit_close(m);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    struct stat st;
    if (stat(argv[1], &st) != 0) {
        printf("skipped: %s not present, lighting checks not run\n", argv[1]);
        return 0;
    }
    corpus_walk(argv[1], visit);
    printf("lighting: %d maps checked (%d unsupported, %d not opened), %" PRIu64 " faces, %" PRIu64
           " lit lightmaps in range checks, %" PRIu64 " world lights, %" PRIu64 " ambient records, %" PRIu64
           " BSPX entries, %" PRIu64 " vbspinfo rows compared; Quake/GoldSrc lightmaps tile LIGHTING in %d/%d maps, "
           "Source in %d/%d lumps; %d failures\n",
           maps, unsupported, not_opened, faces_checked, lit_checked, lights_checked, ambient_checked, bspx_checked,
           info_rows, tile_ok, tile_maps, source_tile_ok, source_tile_maps, failures);
    return failures ? 1 : 0;
}
