/* The bare C cost the Python package's open + `.faces` is measured against:
 * bspkit_open_file, bspkit_get_faces and bspkit_close on one map, repeated,
 * best of several rounds, in microseconds per iteration.
 *   bench_open_faces MAP [ITERATIONS]
 * bench/bench_python.py runs it beside the same loop in Python. */
#include "bspkit/bspkit.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_open_faces MAP [ITERATIONS]\n");
        return 64;
    }
    long iterations = argc > 2 ? strtol(argv[2], NULL, 10) : 2000;
    if (iterations < 1)
        iterations = 1;
    double best = 0;
    size_t faces = 0;
    for (int round = 0; round < 5; round++) {
        double start = now();
        for (long i = 0; i < iterations; i++) {
            bspkit_map *map = NULL;
            bspkit_error err;
            const bspkit_face *f = NULL;
            if (bspkit_open_file(argv[1], NULL, &map, &err) != BSPKIT_OK ||
                bspkit_get_faces(map, &f, &faces, &err) != BSPKIT_OK) {
                fprintf(stderr, "bench_open_faces: %s: %s\n", argv[1], err.message);
                bspkit_close(map);
                return 2;
            }
            bspkit_close(map);
        }
        double t = (now() - start) / (double)iterations * 1e6;
        if (round == 0 || t < best)
            best = t;
    }
    printf("%.3f us per open + get_faces + close (%zu faces, best of 5 x %ld)\n", best, faces, iterations);
    return 0;
}
