/*
 * Corpus test over the real maps in ../shared/maps (skipped, saying so, when
 * the directory is absent). For every map file:
 *  - supported formats must open, decode every lump and validate with no
 *    errors, unless listed in known_failures.tsv with a reason;
 *  - record counts must agree with Valve's vbspinfo / ericw-tools bspinfo
 *    output (`<map>.info.txt`) where one exists; a single count can be
 *    excepted as `<map>#<key>` in known_failures.tsv, with the reason;
 *  - out-of-scope formats (Quake 3, Titanfall, Call of Duty) must give
 *    BSPKIT_ERR_UNSUPPORTED with a message naming what the file is.
 * Usage: corpus_test MAPS_DIR KNOWN_FAILURES_TSV [-v]
 */
#include "bspkit/bspkit.h"
#include "corpus_walk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int verbose;
static int failures;
static int checked, supported, unsupported_ok, known, info_compared;

/* MANIFEST.tsv notes for a path (column 7), used to check what unsupported files are called. */
static char manifest_path[1100];

static int manifest_note(const char *rel, char *note, size_t cap)
{
    FILE *f = fopen(manifest_path, "r");
    if (!f)
        return 0;
    char line[4096];
    int found = 0;
    size_t n = strlen(rel);
    while (!found && fgets(line, sizeof line, f)) {
        if (strncmp(line, rel, n) == 0 && line[n] == '\t') {
            const char *col = line;
            for (int c = 0; c < 6 && col; c++) {
                col = strchr(col, '\t');
                if (col)
                    col++;
            }
            if (col) {
                snprintf(note, cap, "%s", col);
                found = 1;
            }
        }
    }
    fclose(f);
    return found;
}

static void fail(const char *rel, const char *fmt, const char *detail)
{
    printf("FAIL %s: ", rel);
    printf(fmt, detail);
    printf("\n");
    failures++;
}

/* Maps vbspinfo / bspinfo row names to our counting keys. */
static const struct {
    const char *info;
    const char *key;
} INFO_KEYS[] = {
    {"models", "models"},         {"brushes", "brushes"},     {"brushsides", "brushsides"},
    {"planes", "planes"},         {"vertexes", "vertexes"},   {"nodes", "nodes"},
    {"texinfos", "texinfo"},      {"texdata", "texdata"},     {"faces", "faces"},
    {"origfaces", "origfaces"},   {"leaves", "leafs"},        {"leafs", "leafs"},
    {"leaffaces", "leaffaces"},   {"leafbrushes", "leafbrushes"}, {"areas", "areas"},
    {"surfedges", "surfedges"},   {"edges", "edges"},         {"clipnodes", "clipnodes"},
    {"marksurfaces", "marksurfaces"}, {"cubemapsamples", "cubemaps"}, {"dispinfos", "dispinfo"},
    {"disp_verts", "dispverts"},  {"disp_tris", "disptris"},
};

/* vbspinfo rows of [variable] size whose Memory column is a lump's byte length. */
static const struct {
    const char *info;
    const char *lump;
} INFO_BYTES[] = {{"entdata", "ENTITIES"}, {"pakfile", "PAKFILE"}};

/* Whether `key` is one of the "<map>#<key>" exceptions this test looks up. */
static int is_info_key(const char *key)
{
    for (size_t k = 0; k < sizeof INFO_KEYS / sizeof INFO_KEYS[0]; k++)
        if (strcmp(key, INFO_KEYS[k].key) == 0)
            return 1;
    for (size_t k = 0; k < sizeof INFO_BYTES / sizeof INFO_BYTES[0]; k++)
        if (strcmp(key, INFO_BYTES[k].info) == 0)
            return 1;
    return 0;
}

/* Rows "entdata [variable] 246/393216": compared with the lump's length. */
static int compare_info_bytes(bspkit_map *map, const char *rel, const char *line)
{
    char name[64];
    unsigned long long bytes;
    if (sscanf(line, " %63s [variable] %llu/", name, &bytes) != 2)
        return 0;
    for (size_t k = 0; k < sizeof INFO_BYTES / sizeof INFO_BYTES[0]; k++) {
        if (strcmp(name, INFO_BYTES[k].info) != 0)
            continue;
        bspkit_lump_info li;
        int lump = bspkit_lump_find(map, INFO_BYTES[k].lump);
        if (lump < 0 || bspkit_get_lump_info(map, lump, &li) != BSPKIT_OK)
            return 0;
        char exception[1200];
        snprintf(exception, sizeof exception, "%s#%s", rel, name);
        const char *reason = corpus_known_find(rel, name);
        if (reason) {
            corpus_known_seen(rel, name);
            known++;
            printf("known %s: ours %u, reference %llu (%s)\n", exception, li.uncompressed_length, bytes, reason);
        } else if (li.uncompressed_length != bytes) {
            char detail[160];
            snprintf(detail, sizeof detail, "%s bytes: ours %u, reference %llu", name, li.uncompressed_length, bytes);
            fail(rel, "size differs from the reference dump: %s", detail);
        }
        return 1;
    }
    return 0;
}

/* Compare counts with a vbspinfo/bspinfo dump: lines "<name> <count>/<max> ..." or "<count> <name> ...". */
static void compare_info(bspkit_map *map, const char *rel, const char *info_path)
{
    FILE *f = fopen(info_path, "r");
    if (!f)
        return;
    char line[512];
    int compared = 0;
    while (fgets(line, sizeof line, f)) {
        char name[64];
        unsigned long long count;
        int ok = 0;
        if (compare_info_bytes(map, rel, line)) {
            compared++;
            continue;
        }
        /* "hdr faces  0/65536 ..." is the one row whose name has a space. */
        if (sscanf(line, " hdr faces %llu/", &count) == 1) {
            uint64_t ours = 0;
            int hdr = bspkit_lump_find(map, "FACES_HDR");
            if (hdr >= 0)
                bspkit_lump_record_count(map, hdr, &ours);
            if (ours != count) {
                char detail[160];
                snprintf(detail, sizeof detail, "hdr faces: ours %llu, reference %llu", (unsigned long long)ours, count);
                fail(rel, "count differs from the reference dump: %s", detail);
            }
            compared++;
            continue;
        }
        if (sscanf(line, " %63s %llu/", name, &count) == 2)
            ok = 1;
        else if (sscanf(line, " %llu %63s", &count, name) == 2)
            ok = 1;
        if (!ok)
            continue;
        for (size_t k = 0; k < sizeof INFO_KEYS / sizeof INFO_KEYS[0]; k++) {
            if (strcmp(name, INFO_KEYS[k].info) != 0)
                continue;
            int lump = bspkit_lump_find(map, INFO_KEYS[k].key);
            uint64_t ours = 0;
            if (lump >= 0 && bspkit_lump_record_count(map, lump, &ours) != BSPKIT_OK)
                break;
            /* vbspinfo counts HDR faces as "faces" when the LDR lump is empty (console maps). */
            if (strcmp(INFO_KEYS[k].key, "faces") == 0 && ours == 0) {
                int hdr = bspkit_lump_find(map, "FACES_HDR");
                if (hdr >= 0)
                    bspkit_lump_record_count(map, hdr, &ours);
            }
            char exception[1200];
            snprintf(exception, sizeof exception, "%s#%s", rel, INFO_KEYS[k].key);
            const char *reason = corpus_known_find(rel, INFO_KEYS[k].key);
            if (reason) {
                corpus_known_seen(rel, INFO_KEYS[k].key);
                known++;
                printf("known %s: ours %llu, reference %llu (%s)\n", exception, (unsigned long long)ours, count,
                       reason);
                compared++;
                break;
            }
            if (ours != count) {
                char detail[160];
                snprintf(detail, sizeof detail, "%s: ours %llu, reference %llu", name, (unsigned long long)ours,
                         count);
                fail(rel, "count differs from the reference dump: %s", detail);
            }
            compared++;
            break;
        }
    }
    fclose(f);
    if (compared) {
        info_compared++;
        if (verbose)
            printf("     compared %d counts with %s\n", compared, info_path);
    }
}

/* Every accessor, every lump, every vis row: a full decode. */
static int decode_everything(bspkit_map *map, bspkit_error *err)
{
    const void *p;
    size_t n;
#define TRY(call)                                                                                      \
    do {                                                                                               \
        if ((call) != BSPKIT_OK)                                                                       \
            return 0;                                                                                  \
    } while (0)
    TRY(bspkit_get_planes(map, (const bspkit_plane **)&p, &n, err));
    TRY(bspkit_get_vertexes(map, (const bspkit_vec3 **)&p, &n, err));
    TRY(bspkit_get_edges(map, (const bspkit_edge **)&p, &n, err));
    TRY(bspkit_get_surfedges(map, (const int32_t **)&p, &n, err));
    TRY(bspkit_get_faces(map, (const bspkit_face **)&p, &n, err));
    TRY(bspkit_get_orig_faces(map, (const bspkit_face **)&p, &n, err));
    TRY(bspkit_get_hdr_faces(map, (const bspkit_face **)&p, &n, err));
    TRY(bspkit_get_nodes(map, (const bspkit_node **)&p, &n, err));
    TRY(bspkit_get_leafs(map, (const bspkit_leaf **)&p, &n, err));
    TRY(bspkit_get_models(map, (const bspkit_model **)&p, &n, err));
    TRY(bspkit_get_texinfo(map, (const bspkit_texinfo **)&p, &n, err));
    TRY(bspkit_get_leaf_faces(map, (const uint32_t **)&p, &n, err));
    TRY(bspkit_get_leaf_brushes(map, (const uint32_t **)&p, &n, err));
    TRY(bspkit_get_clipnodes(map, (const bspkit_clipnode **)&p, &n, err));
    TRY(bspkit_get_brushes(map, (const bspkit_brush **)&p, &n, err));
    TRY(bspkit_get_brushsides(map, (const bspkit_brushside **)&p, &n, err));
    TRY(bspkit_get_texdata(map, (const bspkit_texdata **)&p, &n, err));
    TRY(bspkit_get_texdata_string_table(map, (const int32_t **)&p, &n, err));
    TRY(bspkit_get_areas(map, (const bspkit_area **)&p, &n, err));
    TRY(bspkit_get_areaportals(map, (const bspkit_areaportal **)&p, &n, err));
    TRY(bspkit_get_cubemaps(map, (const bspkit_cubemap **)&p, &n, err));
    TRY(bspkit_get_miptex(map, (const bspkit_miptex **)&p, &n, err));
    const bspkit_game_lump *gl;
    size_t ngl;
    TRY(bspkit_get_game_lumps(map, &gl, &ngl, err));
    for (size_t i = 0; i < ngl; i++) {
        const uint8_t *b;
        size_t s;
        TRY(bspkit_game_lump_bytes(map, i, &b, &s, err));
    }
    for (int i = 0; i < bspkit_lump_count(map); i++) {
        const uint8_t *b;
        size_t s;
        TRY(bspkit_lump_bytes(map, i, &b, &s, err));
    }
    const bspkit_entities *ents;
    TRY(bspkit_get_entities(map, &ents, err));
    return 1;
#undef TRY
}

static void check_file(const char *root, const char *rel)
{
    char path[2048], info[2100];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    checked++;
    const char *known_reason = corpus_known_find(rel, NULL);
    bspkit_map *map = NULL;
    bspkit_error err;
    bspkit_result r = bspkit_open_file(path, NULL, &map, &err);
    if (r == BSPKIT_ERR_UNSUPPORTED) {
        unsupported_ok++;
        if (verbose)
            printf("ok   %s: %s\n", rel, err.message);
        if (strncmp(err.message, "not supported: ", 15) != 0)
            fail(rel, "unsupported error does not say what the file is: %s", err.message);
        /* The message must name the same game as the corpus manifest does. */
        static const char *const GAMES[] = {"Quake 2", "Quake 3", "Titanfall", "Call of Duty 4"};
        char note[2048];
        if (manifest_note(rel, note, sizeof note))
            for (size_t g = 0; g < sizeof GAMES / sizeof GAMES[0]; g++)
                if (strstr(note, GAMES[g]) && !strstr(err.message, GAMES[g]))
                    fail(rel, "unsupported message does not name the game from the manifest: %s", err.message);
        return;
    }
    if (r != BSPKIT_OK) {
        if (known_reason) {
            corpus_known_seen(rel, NULL);
            known++;
            printf("known %s: %s (%s)\n", rel, err.message, known_reason);
        } else {
            fail(rel, "does not open: %s", err.message);
        }
        return;
    }
    supported++;
    int ok = decode_everything(map, &err);
    bspkit_report report = {0};
    if (ok && bspkit_validate(map, &report, &err) != BSPKIT_OK)
        ok = 0;
    if (!ok || report.errors) {
        char detail[400];
        if (!ok)
            snprintf(detail, sizeof detail, "%s", err.message);
        else
            snprintf(detail, sizeof detail, "%zu errors, first: %s", report.errors,
                     report.count ? report.problems[0].message : "?");
        if (known_reason) {
            corpus_known_seen(rel, NULL);
            known++;
            printf("known %s: %s (%s)\n", rel, detail, known_reason);
        } else {
            fail(rel, ok ? "validation errors: %s" : "decode failed: %s", detail);
        }
    } else {
        if (known_reason)
            fail(rel, "listed in known_failures.tsv but now passes: %s", known_reason);
        if (verbose)
            printf("ok   %s: %s, %zu warnings\n", rel, bspkit_map_format(map)->name, report.warnings);
    }
    bspkit_report_free(&report);
    snprintf(info, sizeof info, "%s.info.txt", path);
    compare_info(map, rel, info);
    bspkit_close(map);
}

/* Entries whose key is none of ours (e.g. "#props") belong to a checks/ program, which reports them. */
static void stale_entry(const char *entry, const char *key, const char *reason)
{
    if (key && !is_info_key(key))
        return;
    fail(entry, "listed in known_failures.tsv but not found or not failing: %s", reason);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: corpus_test MAPS_DIR KNOWN_FAILURES_TSV [-v]\n");
        return 2;
    }
    verbose = argc > 3 && strcmp(argv[3], "-v") == 0;
    struct stat st;
    if (stat(argv[1], &st) != 0 || !S_ISDIR(st.st_mode)) {
        printf("skipped: %s not present, corpus checks not run\n", argv[1]);
        return 0;
    }
    corpus_known_load(argv[2]);
    snprintf(manifest_path, sizeof manifest_path, "%s/MANIFEST.tsv", argv[1]);
    corpus_walk(argv[1], check_file);
    corpus_known_unseen(stale_entry);
    printf("corpus: %d map files, %d supported and decoded, %d out of scope rejected as unsupported, "
           "%d known failures, %d compared with reference dumps, %d failures\n",
           checked, supported, unsupported_ok, known, info_compared, failures);
    if (checked == 0) {
        printf("FAIL: no map files found under %s\n", argv[1]);
        return 1;
    }
    return failures ? 1 : 0;
}
