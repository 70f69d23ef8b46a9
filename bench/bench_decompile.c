/* Decompile time: the largest maps of the corpus (or the files given), each
 * opened from memory and decompiled to text in memory (VMF for Source, Valve
 * 220 .map otherwise), timed beside just opening the same map and beside a
 * memcpy of its bytes, in the same run. Reports per map and the time scaled
 * to a 10 MB map (target: under 1 s); never fails on a figure.
 *
 *   bench_decompile [-n MAPS] [-t SECONDS] [FILE|DIR...]
 *
 * Directories are searched recursively for *.bsp; without arguments the
 * shared corpus is used. -n keeps the MAPS largest maps bspkit decompiles
 * (default 6); each map is repeated until it has taken -t seconds
 * (default 0.5). */
#include "bspkit/bspkit.h"
#include "bspkit/decompile.h"

#include "bench_maps.h"

#ifndef BSPKIT_SHARED_MAPS
#define BSPKIT_SHARED_MAPS "../shared/maps"
#endif

/* Only maps that open and decompile are measured. */
static int opens_and_decompiles(const uint8_t *data, size_t size)
{
    bspkit_map *map = NULL;
    char *text = NULL;
    size_t text_size;
    int ok = bspkit_open_memory(data, size, NULL, &map, NULL) == BSPKIT_OK &&
             bspkit_decompile_memory(map, NULL, &text, &text_size, NULL, NULL) == BSPKIT_OK;
    free(text);
    bspkit_close(map);
    return ok;
}

int main(int argc, char **argv)
{
    size_t keep = 6;
    double min_seconds = 0.5;
    int first_path = bench_parse_args(argc, argv, &keep, &min_seconds);
    bench_maps set = {.accept = opens_and_decompiles};
    bench_load(&set, argv + first_path, argc - first_path, BSPKIT_SHARED_MAPS, keep);
    if (set.count == 0) {
        printf("bench_decompile: no maps found\n");
        return 0;
    }
    uint8_t *scratch = malloc(set.maps[0].size);
    if (!scratch)
        return 1;
    double worst_per_10mb = 0, worst_cpu_per_10mb = 0;
    for (size_t i = 0; i < set.count; i++) {
        const map_file *m = &set.maps[i];
        double open_s = 0, decompile_s = 0, decompile_cpu_s = 0, copy_s = 0;
        size_t out_size = 0, brushes = 0;
        unsigned passes = 0;
        while (decompile_s < min_seconds || passes == 0) {
            double t0 = bench_now();
            bspkit_map *map = NULL;
            bspkit_open_memory(m->data, m->size, NULL, &map, NULL);
            double t1 = bench_now(), c1 = bench_cpu_now();
            char *text = NULL;
            bspkit_decompile_stats stats = {0};
            bspkit_decompile_memory(map, NULL, &text, &out_size, &stats, NULL);
            bspkit_close(map);
            free(text);
            double t2 = bench_now(), c2 = bench_cpu_now();
            memcpy(scratch, m->data, m->size);
            __asm__ __volatile__("" : : "r"(scratch) : "memory");
            double t3 = bench_now();
            open_s += t1 - t0;
            decompile_s += t2 - t1;
            decompile_cpu_s += c2 - c1;
            copy_s += t3 - t2;
            brushes = stats.brushes;
            passes++;
        }
        double per = decompile_s / passes, per_10mb = per * 10e6 / (double)m->size;
        double cpu_per_10mb = decompile_cpu_s / passes * 10e6 / (double)m->size;
        worst_per_10mb = per_10mb > worst_per_10mb ? per_10mb : worst_per_10mb;
        worst_cpu_per_10mb = cpu_per_10mb > worst_cpu_per_10mb ? cpu_per_10mb : worst_cpu_per_10mb;
        printf("%s (%.1f MB): open %.3f ms, decompile %.1f ms (CPU %.1f ms; %zu brushes, %.1f MB of text), "
               "%.1f MB/s; memcpy %.3f ms; %.2f s per 10 MB (CPU %.2f s)\n",
               m->path, (double)m->size / 1e6, open_s / passes * 1e3, per * 1e3, decompile_cpu_s / passes * 1e3,
               brushes, (double)out_size / 1e6, (double)m->size / 1e6 / per, copy_s / passes * 1e3, per_10mb,
               cpu_per_10mb);
    }
    printf("decompile: %zu maps, slowest %.2f s per 10 MB of map, %.2f s of CPU (target under 1 s for a 10 MB "
           "map)\n",
           set.count, worst_per_10mb, worst_cpu_per_10mb);
    bench_free(&set);
    free(scratch);
    return 0;
}
