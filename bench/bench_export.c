/* Export throughput: the largest maps of the corpus (or the files given)
 * opened from memory and exported to GLB in memory, timed beside a memcpy of
 * the same bytes in the same run so the rate reads against the machine's
 * memory bandwidth. Reports MB of map input per second; never fails on a
 * figure.
 *
 *   bench_export [-n MAPS] [-t SECONDS] [FILE|DIR...]
 *
 * Directories are searched recursively for *.bsp; without arguments the
 * shared corpus is used. -n keeps the MAPS largest maps bspkit opens
 * (default 5); passes repeat until exporting has taken -t seconds (default 1).
 * Two configurations are timed: the default (texture images and lightmap
 * atlas) and geometry only (no_textures, no_lightmaps). */
#include "bspkit/bspkit.h"
#include "bspkit/export.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#ifndef BSPKIT_SHARED_MAPS
#define BSPKIT_SHARED_MAPS "../shared/maps"
#endif

typedef struct map_file {
    char *path;
    uint8_t *data;
    size_t size;
} map_file;

static map_file *g_maps;
static size_t g_count, g_cap;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void add_file(const char *path)
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
    bspkit_map *map = NULL;
    uint8_t *glb = NULL;
    size_t glb_size;
    /* Only maps that open and export are measured. */
    if (!data || bspkit_open_memory(data, size, NULL, &map, NULL) != BSPKIT_OK ||
        bspkit_export_glb_memory(map, NULL, &glb, &glb_size, NULL, NULL) != BSPKIT_OK) {
        bspkit_close(map);
        free(data);
        return;
    }
    free(glb);
    bspkit_close(map);
    if (g_count == g_cap) {
        g_cap = g_cap ? g_cap * 2 : 64;
        map_file *grown = realloc(g_maps, g_cap * sizeof *g_maps);
        if (!grown) {
            fprintf(stderr, "bench_export: out of memory\n");
            exit(1);
        }
        g_maps = grown;
    }
    g_maps[g_count].path = strdup(path);
    g_maps[g_count].data = data;
    g_maps[g_count].size = size;
    g_count++;
}

static void walk(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return;
    if (!S_ISDIR(st.st_mode)) {
        size_t n = strlen(path);
        if (n > 4 && strcmp(path + n - 4, ".bsp") == 0)
            add_file(path);
        return;
    }
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
            walk(child);
            free(child);
        }
    }
    closedir(d);
}

static int by_size_desc(const void *a, const void *b)
{
    const map_file *x = a, *y = b;
    return x->size < y->size ? 1 : x->size > y->size ? -1 : 0;
}

int main(int argc, char **argv)
{
    size_t keep = 5;
    double min_seconds = 1.0;
    int first_path = argc;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
            keep = (size_t)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
            min_seconds = strtod(argv[++i], NULL);
        else {
            first_path = i;
            break;
        }
    }
    if (first_path < argc)
        for (int i = first_path; i < argc; i++)
            walk(argv[i]);
    else
        walk(BSPKIT_SHARED_MAPS);
    if (g_count == 0) {
        printf("bench_export: no maps found\n");
        return 0;
    }
    qsort(g_maps, g_count, sizeof *g_maps, by_size_desc);
    if (keep > 0 && keep < g_count)
        g_count = keep;

    size_t max_size = 0;
    for (size_t i = 0; i < g_count; i++)
        max_size = g_maps[i].size > max_size ? g_maps[i].size : max_size;
    uint8_t *scratch = malloc(max_size);
    if (!scratch)
        return 1;
    for (size_t i = 0; i < g_count; i++)
        printf("map %zu: %s (%.1f MB)\n", i + 1, g_maps[i].path, (double)g_maps[i].size / 1e6);
    const bspkit_export_options geometry_only = {.no_textures = true, .no_lightmaps = true};
    const struct { const char *label; const bspkit_export_options *opts; } configs[] = {
        {"images and lightmaps", NULL}, {"geometry only", &geometry_only}};
    for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++) {
        double export_s = 0, copy_s = 0, bytes = 0, out_bytes = 0;
        unsigned passes = 0;
        while (export_s < min_seconds || passes == 0) {
            for (size_t i = 0; i < g_count; i++) {
                const map_file *m = &g_maps[i];
                double t0 = now();
                bspkit_map *map = NULL;
                uint8_t *glb = NULL;
                size_t size = 0;
                if (bspkit_open_memory(m->data, m->size, NULL, &map, NULL) == BSPKIT_OK)
                    bspkit_export_glb_memory(map, configs[c].opts, &glb, &size, NULL, NULL);
                bspkit_close(map);
                free(glb);
                double t1 = now();
                memcpy(scratch, m->data, m->size);
                __asm__ __volatile__("" : : "r"(scratch) : "memory");
                double t2 = now();
                export_s += t1 - t0;
                copy_s += t2 - t1;
                bytes += (double)m->size;
                out_bytes += (double)size;
            }
            passes++;
        }
        printf("export to GLB in memory (%s): %zu maps, %u passes, %.1f MB in, %.1f MB out, %.1f MB/s "
               "(memcpy of the same bytes %.0f MB/s; target 200 MB/s)\n",
               configs[c].label, g_count, passes, bytes / 1e6, out_bytes / 1e6, bytes / 1e6 / export_s,
               bytes / 1e6 / copy_s);
    }
    for (size_t i = 0; i < g_count; i++) {
        free(g_maps[i].path);
        free(g_maps[i].data);
    }
    free(g_maps);
    free(scratch);
    return 0;
}
