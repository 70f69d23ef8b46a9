/* The two decompilers behind bspkit_decompile_memory(): each appends its
 * whole output to `out` and adds to `stats`, which the caller zeroed. */
#ifndef BSPKIT_DECOMPILE_INTERNAL_H
#define BSPKIT_DECOMPILE_INTERNAL_H

#include "bspkit/decompile.h"

#include "core/textbuf.h"

/* A coordinate or value as both formats write it: an integer when it is one
 * to within 1e-6, else ten significant digits. `size` of 32 is enough. */
void bk_decompile_num(char *buf, size_t size, double v);

/* Source: Hammer VMF. */
bspkit_result bk_decompile_vmf(bspkit_map *map, const bspkit_decompile_options *opts, bk_tbuf *out,
                               bspkit_decompile_stats *stats, bspkit_error *err);

/* Quake and GoldSrc: Valve 220 .map. */
bspkit_result bk_decompile_map220(bspkit_map *map, const bspkit_decompile_options *opts, bk_tbuf *out,
                                  bspkit_decompile_stats *stats, bspkit_error *err);

#endif
