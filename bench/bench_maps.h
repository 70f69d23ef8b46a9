/* Map loading shared by the benchmarks: files given on the command line or
 * found under directories (recursively, *.bsp), read into memory, kept when
 * a caller's check accepts them, sorted largest first. */
#ifndef BSPKIT_BENCH_MAPS_H
#define BSPKIT_BENCH_MAPS_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "seen_files.h"

typedef struct map_file {
    char *path;
    uint8_t *data;
    size_t size;
} map_file;

typedef struct bench_maps {
    map_file *maps;
    size_t count, cap;
    /* Only maps for which this returns nonzero are kept (e.g. "opens and exports"). */
    int (*accept)(const uint8_t *data, size_t size);
} bench_maps;

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of this process: steadier than the wall clock when other work shares the machine. */
static inline double bench_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void bench_add_file(bench_maps *set, const char *path)
{
    struct stat st;
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    uint8_t *data = NULL;
    size_t size = 0;
    if (fstat(fileno(f), &st) == 0 && st.st_size > 0) {
        size = (size_t)st.st_size;
        data = malloc(size);
        if (data && fread(data, 1, size, f) != size) {
            free(data);
            data = NULL;
        }
    }
    fclose(f);
    if (!data || (set->accept && !set->accept(data, size))) {
        free(data);
        return;
    }
    if (set->count == set->cap) {
        set->cap = set->cap ? set->cap * 2 : 64;
        map_file *grown = realloc(set->maps, set->cap * sizeof *set->maps);
        if (!grown) {
            fprintf(stderr, "bench: out of memory\n");
            exit(1);
        }
        set->maps = grown;
    }
    set->maps[set->count].path = strdup(path);
    set->maps[set->count].data = data;
    set->maps[set->count].size = size;
    set->count++;
}

static void bench_walk(bench_maps *set, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return;
    if (!S_ISDIR(st.st_mode)) {
        size_t n = strlen(path);
        if (n > 4 && strcmp(path + n - 4, ".bsp") == 0 && !seen_before(&st))
            bench_add_file(set, path);
        return;
    }
    if (seen_before(&st))
        return;
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        size_t n = strlen(path) + strlen(e->d_name) + 2;
        char *child = malloc(n);
        if (child) {
            snprintf(child, n, "%s/%s", path, e->d_name);
            bench_walk(set, child);
            free(child);
        }
    }
    closedir(d);
}

static int bench_by_size_desc(const void *a, const void *b)
{
    const map_file *x = a, *y = b;
    return x->size < y->size ? 1 : x->size > y->size ? -1 : 0;
}

/* Walks paths[0..n) (or `fallback` when n is 0), sorts largest first and keeps
 * the `keep` largest (0 = all). */
static void bench_load(bench_maps *set, char **paths, int n, const char *fallback, size_t keep)
{
    if (n > 0)
        for (int i = 0; i < n; i++)
            bench_walk(set, paths[i]);
    else
        bench_walk(set, fallback);
    if (set->count > 0)
        qsort(set->maps, set->count, sizeof *set->maps, bench_by_size_desc);
    if (keep > 0 && keep < set->count) {
        for (size_t i = keep; i < set->count; i++) {
            free(set->maps[i].path);
            free(set->maps[i].data);
        }
        set->count = keep;
    }
}

/* Reads "-n MAPS" and "-t SECONDS" ahead of the paths; returns the index of
 * the first path (argc when none). */
static int bench_parse_args(int argc, char **argv, size_t *keep, double *min_seconds)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
            *keep = (size_t)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
            *min_seconds = strtod(argv[++i], NULL);
        else
            return i;
    }
    return argc;
}

static void bench_free(bench_maps *set)
{
    for (size_t i = 0; i < set->count; i++) {
        free(set->maps[i].path);
        free(set->maps[i].data);
    }
    free(set->maps);
}

#endif
