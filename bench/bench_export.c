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
 * atlas) and geometry only (no_textures, no_lightmaps). A third line times
 * a second default export of a map still open from the first, which reuses
 * the PNGs of the textures the map holds. */
#include "bspkit/bspkit.h"
#include "bspkit/export.h"

#include "bench_maps.h"

#ifndef BSPKIT_SHARED_MAPS
#define BSPKIT_SHARED_MAPS "../shared/maps"
#endif

/* Only maps that open and export are measured. */
static int opens_and_exports(const uint8_t *data, size_t size)
{
    bspkit_map *map = NULL;
    uint8_t *glb = NULL;
    size_t glb_size;
    int ok = bspkit_open_memory(data, size, NULL, &map, NULL) == BSPKIT_OK &&
             bspkit_export_glb_memory(map, NULL, &glb, &glb_size, NULL, NULL) == BSPKIT_OK;
    free(glb);
    bspkit_close(map);
    return ok;
}

int main(int argc, char **argv)
{
    size_t keep = 5;
    double min_seconds = 1.0;
    int first_path = bench_parse_args(argc, argv, &keep, &min_seconds);
    bench_maps set = {.accept = opens_and_exports};
    bench_load(&set, argv + first_path, argc - first_path, BSPKIT_SHARED_MAPS, keep);
    if (set.count == 0) {
        printf("bench_export: no maps found\n");
        return 0;
    }
    const map_file *maps = set.maps;
    size_t count = set.count;

    size_t max_size = 0;
    for (size_t i = 0; i < count; i++)
        max_size = maps[i].size > max_size ? maps[i].size : max_size;
    uint8_t *scratch = malloc(max_size);
    if (!scratch)
        return 1;
    for (size_t i = 0; i < count; i++)
        printf("map %zu: %s (%.1f MB)\n", i + 1, maps[i].path, (double)maps[i].size / 1e6);
    const bspkit_export_options geometry_only = {.no_textures = true, .no_lightmaps = true};
    const struct { const char *label; const bspkit_export_options *opts; int target; } configs[] = {
        {"images and lightmaps", NULL, 200}, {"geometry only", &geometry_only, 1000}};
    for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++) {
        double export_s = 0, copy_s = 0, bytes = 0, out_bytes = 0;
        unsigned passes = 0;
        while (export_s < min_seconds || passes == 0) {
            for (size_t i = 0; i < count; i++) {
                const map_file *m = &maps[i];
                double t0 = bench_now();
                bspkit_map *map = NULL;
                uint8_t *glb = NULL;
                size_t size = 0;
                if (bspkit_open_memory(m->data, m->size, NULL, &map, NULL) == BSPKIT_OK)
                    bspkit_export_glb_memory(map, configs[c].opts, &glb, &size, NULL, NULL);
                bspkit_close(map);
                free(glb);
                double t1 = bench_now();
                memcpy(scratch, m->data, m->size);
                __asm__ __volatile__("" : : "r"(scratch) : "memory");
                double t2 = bench_now();
                export_s += t1 - t0;
                copy_s += t2 - t1;
                bytes += (double)m->size;
                out_bytes += (double)size;
            }
            passes++;
        }
        printf("export to GLB in memory (%s): %zu maps, %u passes, %.1f MB in, %.1f MB out, %.1f MB/s "
               "(memcpy of the same bytes %.0f MB/s; target %d MB/s)\n",
               configs[c].label, count, passes, bytes / 1e6, out_bytes / 1e6, bytes / 1e6 / export_s,
               bytes / 1e6 / copy_s, configs[c].target);
    }
    /* Again on an open map: the first export (untimed) keeps its texture PNGs. */
    double again_s = 0, again_bytes = 0;
    unsigned again_passes = 0;
    while (again_s < min_seconds || again_passes == 0) {
        for (size_t i = 0; i < count; i++) {
            bspkit_map *map = NULL;
            uint8_t *glb = NULL;
            size_t size = 0;
            if (bspkit_open_memory(maps[i].data, maps[i].size, NULL, &map, NULL) != BSPKIT_OK)
                continue;
            bspkit_export_glb_memory(map, NULL, &glb, &size, NULL, NULL);
            free(glb);
            glb = NULL;
            double t0 = bench_now();
            bspkit_export_glb_memory(map, NULL, &glb, &size, NULL, NULL);
            again_s += bench_now() - t0;
            again_bytes += (double)maps[i].size;
            free(glb);
            bspkit_close(map);
        }
        again_passes++;
    }
    printf("export to GLB in memory, a second time on the open map (images and lightmaps): %u passes, %.1f MB/s\n",
           again_passes, again_bytes / 1e6 / again_s);
    bench_free(&set);
    free(scratch);
    return 0;
}
