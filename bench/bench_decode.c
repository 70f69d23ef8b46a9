/* Decode throughput: for every map, open from memory, run every accessor and
 * validation (which decodes every visibility row), close — and, in the same
 * run, memcpy the same bytes, so the decode rate can be read against the
 * machine's memory bandwidth. The Source map CRC is timed separately, and
 * so is saving: an unchanged save (open + edit + write into a new buffer,
 * byte-identical to the input) and a save after the entity lump grew by one
 * entity (every lump after it moves).
 *
 *   bench_decode [-n REPS] [-t SECONDS] [-v] [FILE|DIR...]
 *
 * -v adds one row per map, slowest against memcpy first.
 *
 * Directories are searched recursively for *.bsp; without arguments the
 * shared map corpus is used. Files bspkit does not read are skipped and
 * counted. Without -n, whole passes over all maps repeat until decoding has
 * taken at least -t seconds (default 1). */
#include "bspkit/bspkit.h"
#include "bspkit/edit.h"
#include "exercise.h"
#include "seen_files.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#ifndef BSPKIT_SHARED_MAPS
#define BSPKIT_SHARED_MAPS "../shared/maps"
#endif

typedef struct map_file {
    char *path;
    uint8_t *data;
    size_t size;
    bspkit_family family;
    bool lzma;               /* some lump LZMA-compressed (console Source maps) */
    double decode_s, copy_s; /* this map's share, for -v */
    /* Fastest decode + validate and fastest memcpy over the passes: a
     * pass the machine interrupted moves a sum, not these. */
    double dv_best_s, copy_best_s;
} map_file;

typedef struct totals {
    unsigned files;
    double bytes;
    double decode_s;
    double copy_s;
    double crc_s;
    double rewrite_s;
    double relayout_s;
    double save_copy_s;
    /* open + every record array + validation + close, apart from the rest */
    double dv_open_s, dv_arrays_s, dv_validate_s, dv_close_s;
    double dv_bytes, dv_copy_s; /* the maps it ran on (not LZMA) and their memcpy */
    double dv_best_s, dv_copy_best_s; /* sums of the maps' fastest passes */
} totals;

/* Open, edit and write the map; with `grow`, one entity is appended first. */
static void save_once(const map_file *m, int grow)
{
    bspkit_map *map = NULL;
    bspkit_edit *e = NULL;
    uint8_t *out = NULL;
    size_t size = 0;
    if (bspkit_open_memory(m->data, m->size, NULL, &map, NULL) != BSPKIT_OK)
        return;
    if (bspkit_edit_new(map, &e, NULL) == BSPKIT_OK) {
        if (grow) {
            const uint8_t *text;
            size_t len;
            static const char extra[] = "{\n\"classname\" \"info_null\"\n}\n";
            if (bspkit_lump_bytes(map, 0, &text, &len, NULL) == BSPKIT_OK) {
                len = strnlen((const char *)text, len);
                char *grown = malloc(len + sizeof extra);
                if (grown) {
                    memcpy(grown, text, len);
                    memcpy(grown + len, extra, sizeof extra);
                    bspkit_edit_set_entities_text(e, grown, len + sizeof extra - 1, NULL);
                    free(grown);
                }
            }
        }
        bspkit_edit_write(e, NULL, &out, &size, NULL);
    }
    __asm__ __volatile__("" : : "r"(out) : "memory");
    free(out);
    bspkit_edit_free(e);
    bspkit_close(map);
}

static map_file *g_maps;
static size_t g_count, g_cap;
static unsigned g_unsupported, g_unopenable, g_unreadable;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    uint8_t *data = NULL;
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && st.st_size >= 0) {
        *size = (size_t)st.st_size;
        data = malloc(*size ? *size : 1);
        if (data != NULL && fread(data, 1, *size, f) != *size) {
            free(data);
            data = NULL;
        }
    }
    fclose(f);
    return data;
}

static void add_file(const char *path)
{
    size_t size = 0;
    uint8_t *data = read_file(path, &size);
    if (data == NULL) {
        g_unreadable++;
        return;
    }
    bspkit_format fmt;
    bspkit_map *map = NULL;
    if (bspkit_detect(data, size, &fmt, NULL) != BSPKIT_OK) {
        g_unsupported++;
        free(data);
        return;
    }
    if (bspkit_open_memory(data, size, NULL, &map, NULL) != BSPKIT_OK) {
        g_unopenable++;
        free(data);
        return;
    }
    bool lzma = (bspkit_map_format(map)->variant & BSPKIT_VARIANT_COMPRESSED) != 0;
    bspkit_close(map);
    if (g_count == g_cap) {
        g_cap = g_cap ? g_cap * 2 : 64;
        map_file *grown = realloc(g_maps, g_cap * sizeof *g_maps);
        if (grown == NULL) {
            fprintf(stderr, "bench_decode: out of memory\n");
            exit(1);
        }
        g_maps = grown;
    }
    g_maps[g_count++] =
        (map_file){.path = strdup(path), .data = data, .size = size, .family = fmt.family, .lzma = lzma};
}

/* Decoding and validation alone, stage by stage: open, every record array
 * the public API hands out, bspkit_validate_ex (which also builds what it
 * checks: lightmap geometry, entities, visibility rows), close. */
static void decode_validate(map_file *m, totals *t)
{
    double t0 = now();
    bspkit_map *map = NULL;
    if (bspkit_open_memory(m->data, m->size, NULL, &map, NULL) != BSPKIT_OK)
        return;
    double t1 = now();
    exercise ex = {.touch = 0};
    ex_arrays(&ex, map);
    double t2 = now();
    bspkit_report report;
    memset(&report, 0, sizeof report);
    bspkit_validate_ex(map, 0, &report, NULL);
    bspkit_report_free(&report);
    double t3 = now();
    bspkit_close(map);
    double t4 = now();
    t->dv_open_s += t1 - t0;
    t->dv_arrays_s += t2 - t1;
    t->dv_validate_s += t3 - t2;
    t->dv_close_s += t4 - t3;
    if (m->dv_best_s == 0 || t4 - t0 < m->dv_best_s)
        m->dv_best_s = t4 - t0;
}

static int has_bsp_suffix(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && strcasecmp(name + n - 4, ".bsp") == 0;
}

/* Explicitly named files are taken whatever their name; inside directories
 * only *.bsp. */
static void add_path(const char *path, int named)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "bench_decode: %s: %s\n", path, strerror(errno));
        return;
    }
    if (!S_ISDIR(st.st_mode)) {
        if ((named || has_bsp_suffix(path)) && !seen_before(&st))
            add_file(path);
        return;
    }
    if (seen_before(&st))
        return;
    DIR *dir = opendir(path);
    if (dir == NULL)
        return;
    struct dirent *de;
    while ((de = readdir(dir)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        size_t len = strlen(path) + strlen(de->d_name) + 2;
        char *child = malloc(len);
        if (child == NULL)
            break;
        snprintf(child, len, "%s/%s", path, de->d_name);
        add_path(child, 0);
        free(child);
    }
    closedir(dir);
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const map_file *)a)->path, ((const map_file *)b)->path);
}

/* Slowest against memcpy first. */
static int by_ratio(const void *a, const void *b)
{
    const map_file *x = a, *y = b;
    double rx = x->copy_s > 0 ? x->decode_s / x->copy_s : 0;
    double ry = y->copy_s > 0 ? y->decode_s / y->copy_s : 0;
    return (rx < ry) - (rx > ry);
}

static void decode_all(exercise *ex)
{
    for (size_t i = 0; i < g_count; i++)
        exercise_bytes(ex, g_maps[i].data, g_maps[i].size, NULL, NULL);
}

static void print_row(const char *name, const totals *t)
{
    double mb = t->bytes / 1e6;
    double dec = t->decode_s > 0 ? t->bytes / t->decode_s / 1e9 : 0;
    double cpy = t->copy_s > 0 ? t->bytes / t->copy_s / 1e9 : 0;
    double ratio = t->copy_s > 0 ? t->decode_s / t->copy_s : 0;
    printf("%-8s %6u %10.1f %10.3f %9.3f %10.4f %9.2f %10.1fx\n", name, t->files, mb, t->decode_s, dec,
           t->copy_s, cpy, ratio);
}

int main(int argc, char **argv)
{
    long reps = 0;
    double target = 1.0;
    int named = 0, per_map = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
            reps = strtol(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc) {
            target = strtod(argv[++i], NULL);
        } else if (strcmp(argv[i], "-v") == 0) {
            per_map = 1;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: bench_decode [-n REPS] [-t SECONDS] [-v] [FILE|DIR...]\n"
                   "default input: %s\n",
                   BSPKIT_SHARED_MAPS);
            return 0;
        } else {
            add_path(argv[i], 1);
            named = 1;
        }
    }
    if (!named)
        add_path(BSPKIT_SHARED_MAPS, 0);
    if (g_count == 0) {
        fprintf(stderr, "bench_decode: no map bspkit can open (%u unsupported, %u failed to open)\n",
                g_unsupported, g_unopenable);
        return 1;
    }
    qsort(g_maps, g_count, sizeof *g_maps, by_path);

    size_t largest = 0;
    for (size_t i = 0; i < g_count; i++)
        if (g_maps[i].size > largest)
            largest = g_maps[i].size;
    uint8_t *copy = malloc(largest ? largest : 1);
    if (copy == NULL)
        return 1;
    memset(copy, 0, largest); /* fault the pages in before timing copies */

    /* Bytes are not re-read for hashing: only the library's work is timed.
     * Validation decodes every visibility row, so the separate row loop is
     * left out; the map CRC is timed on its own below. */
    exercise ex = {.touch = 0, .decode_only = 1};
    decode_all(&ex); /* warm-up: caches, allocator, lazily bound symbols */

    /* One row per family value: the enum's last member is the largest. */
    totals fam[BSPKIT_FAMILY_TITANFALL + 1];
    memset(fam, 0, sizeof fam);
    for (size_t i = 0; i < g_count; i++)
        fam[g_maps[i].family].files++;
    double decoding = 0;
    long done = 0;
    for (; reps > 0 ? done < reps : decoding < target; done++) {
        for (size_t i = 0; i < g_count; i++) {
            map_file *m = &g_maps[i];
            totals *t = &fam[m->family];
            double t0 = now();
            exercise_bytes(&ex, m->data, m->size, NULL, NULL);
            double t1 = now();
            memcpy(copy, m->data, m->size);
            /* Keep the copy from being optimised away. */
            __asm__ __volatile__("" : : "r"(copy) : "memory");
            double t2 = now();
            bspkit_map *map = NULL;
            uint32_t crc = 0;
            if (m->family == BSPKIT_FAMILY_SOURCE && bspkit_open_memory(m->data, m->size, NULL, &map, NULL) == BSPKIT_OK) {
                bspkit_map_crc(map, &crc, NULL);
                bspkit_close(map);
            }
            __asm__ __volatile__("" : : "r"(crc) : "memory");
            double t3 = now();
            /* A second copy right before the saves: the baseline for them
             * sees the same cache state. */
            memcpy(copy, m->data, m->size);
            __asm__ __volatile__("" : : "r"(copy) : "memory");
            double t3b = now();
            t->save_copy_s += t3b - t3;
            t3 = t3b;
            save_once(m, 0);
            double t4 = now();
            save_once(m, 1);
            double t5 = now();
            t->rewrite_s += t4 - t3;
            t->relayout_s += t5 - t4;
            t->bytes += (double)m->size;
            t->decode_s += t1 - t0;
            t->copy_s += t2 - t1;
            g_maps[i].decode_s += t1 - t0;
            g_maps[i].copy_s += t2 - t1;
            t->crc_s += t3 - t2;
            if (!m->lzma) { /* liblzma's speed would hide everything else */
                decode_validate(m, t);
                t->dv_bytes += (double)m->size;
                t->dv_copy_s += t2 - t1;
                if (m->copy_best_s == 0 || t2 - t1 < m->copy_best_s)
                    m->copy_best_s = t2 - t1;
            }
            decoding += t1 - t0;
        }
    }

    for (size_t i = 0; i < g_count; i++) {
        fam[g_maps[i].family].dv_best_s += g_maps[i].dv_best_s;
        fam[g_maps[i].family].dv_copy_best_s += g_maps[i].copy_best_s;
    }
    printf("bspkit %s decode benchmark: %zu maps, %ld repetitions", BSPKIT_VERSION_STRING, g_count, done);
    printf(" (skipped: %u unsupported, %u failed to open, %u unreadable)\n", g_unsupported, g_unopenable,
           g_unreadable);
    printf("%-8s %6s %10s %10s %9s %10s %9s %11s\n", "family", "files", "MB", "decode s", "GB/s", "memcpy s",
           "GB/s", "decode/cpy");
    totals all;
    memset(&all, 0, sizeof all);
    for (int f = BSPKIT_FAMILY_QUAKE; f <= BSPKIT_FAMILY_TITANFALL; f++) {
        if (fam[f].files == 0)
            continue;
        print_row(bspkit_family_name((bspkit_family)f), &fam[f]);
        all.files += fam[f].files;
        all.bytes += fam[f].bytes;
        all.decode_s += fam[f].decode_s;
        all.copy_s += fam[f].copy_s;
        all.crc_s += fam[f].crc_s;
        all.rewrite_s += fam[f].rewrite_s;
        all.relayout_s += fam[f].relayout_s;
        all.save_copy_s += fam[f].save_copy_s;
        all.dv_open_s += fam[f].dv_open_s;
        all.dv_arrays_s += fam[f].dv_arrays_s;
        all.dv_validate_s += fam[f].dv_validate_s;
        all.dv_close_s += fam[f].dv_close_s;
        all.dv_bytes += fam[f].dv_bytes;
        all.dv_copy_s += fam[f].dv_copy_s;
        all.dv_best_s += fam[f].dv_best_s;
        all.dv_copy_best_s += fam[f].dv_copy_best_s;
    }
    print_row("total", &all);
    /* LZMA lumps decode at liblzma's speed, far below memory speed: the
     * maps with them are shown apart, and the rest without them. */
    totals packed, plain;
    memset(&packed, 0, sizeof packed);
    memset(&plain, 0, sizeof plain);
    for (size_t i = 0; i < g_count; i++) {
        totals *t = g_maps[i].lzma ? &packed : &plain;
        t->files++;
        t->bytes += (double)g_maps[i].size * (double)done;
        t->decode_s += g_maps[i].decode_s;
        t->copy_s += g_maps[i].copy_s;
    }
    if (packed.files > 0) {
        print_row("LZMA", &packed);
        print_row("not LZMA", &plain);
    }
    /* The same maps through decoding and validation alone. */
    printf("decode + validate alone, maps without LZMA (open, every record array, bspkit_validate_ex, close);\n"
           "fastest passes: each map's fastest decode + validate over its fastest memcpy, summed per family:\n");
    printf("%-8s %9s %11s %7s %7s %9s %7s %14s\n", "family", "GB/s", "vs memcpy", "open", "arrays", "validate",
           "close", "fastest passes");
    for (int f = BSPKIT_FAMILY_QUAKE; f <= BSPKIT_FAMILY_TITANFALL + 1; f++) {
        const totals *t = f <= BSPKIT_FAMILY_TITANFALL ? &fam[f] : &all; /* one past the last: the total */
        double sum = t->dv_open_s + t->dv_arrays_s + t->dv_validate_s + t->dv_close_s;
        if (t->files == 0 || sum <= 0 || t->dv_copy_s <= 0)
            continue;
        printf("%-8s %9.3f %10.2fx %6.0f%% %6.0f%% %8.0f%% %6.0f%% %13.2fx\n",
               f <= BSPKIT_FAMILY_TITANFALL ? bspkit_family_name((bspkit_family)f) : "total", t->dv_bytes / sum / 1e9,
               sum / t->dv_copy_s, 100 * t->dv_open_s / sum, 100 * t->dv_arrays_s / sum, 100 * t->dv_validate_s / sum,
               100 * t->dv_close_s / sum, t->dv_copy_best_s > 0 ? t->dv_best_s / t->dv_copy_best_s : 0);
    }
    if (fam[BSPKIT_FAMILY_SOURCE].crc_s > 0)
        printf("Source map CRC (open + CRC32 of every lump but ENTITIES): %.2f GB/s beside memcpy %.2f GB/s\n",
               fam[BSPKIT_FAMILY_SOURCE].bytes / fam[BSPKIT_FAMILY_SOURCE].crc_s / 1e9,
               fam[BSPKIT_FAMILY_SOURCE].bytes / fam[BSPKIT_FAMILY_SOURCE].copy_s / 1e9);
    printf("Unchanged save (open + edit + write, byte-identical): %.2f GB/s; after growing the entity lump: "
           "%.2f GB/s; memcpy of the same bytes: %.2f GB/s\n",
           all.bytes / all.rewrite_s / 1e9, all.bytes / all.relayout_s / 1e9, all.bytes / all.save_copy_s / 1e9);
    printf("(library calls per pass: %llu)\n", (unsigned long long)(ex.calls / (unsigned long long)(done + 1)));
    if (per_map) {
        qsort(g_maps, g_count, sizeof *g_maps, by_ratio);
        printf("%-10s %9s %10s %10s  %s\n", "family", "MB", "decode GB/s", "decode/cpy", "map");
        for (size_t i = 0; i < g_count; i++) {
            const map_file *m = &g_maps[i];
            double bytes = (double)m->size * (double)done;
            printf("%-10s %9.2f %10.3f %10.1fx  %s\n", bspkit_family_name(m->family), (double)m->size / 1e6,
                   m->decode_s > 0 ? bytes / m->decode_s / 1e9 : 0, m->copy_s > 0 ? m->decode_s / m->copy_s : 0,
                   m->path);
        }
    }

    for (size_t i = 0; i < g_count; i++) {
        free(g_maps[i].path);
        free(g_maps[i].data);
    }
    free(g_maps);
    free(copy);
    return 0;
}
