/* The two decompilers behind bspkit_decompile_memory(): each appends its
 * whole output to `out` and adds to `stats`, which the caller zeroed. */
#ifndef BSPKIT_DECOMPILE_INTERNAL_H
#define BSPKIT_DECOMPILE_INTERNAL_H

#include "bspkit/decompile.h"

#include "core/textbuf.h"
#include "poly.h"

/* A coordinate or value as both formats write it: an integer when it is one
 * to within 1e-6, else ten significant digits. `size` of 32 is enough. */
void bk_decompile_num(char *buf, size_t size, double v);
/* bk_decompile_num into out[0 .. BK_FMT_NUM_CAP) without the NUL; returns the length. */
size_t bk_decompile_num_to(char *out, double v);

/* Valve 220 side text, shared by the .map writers: the three points as
 * "( x y z ) ( x y z ) ( x y z ) ", then the texture name, its axes
 * "[ ux uy uz offset ] [ vx vy vz offset ]", rotation 0 and the two scales.
 * The axes come from the texinfo, its offsets moved by `shift` (a brush
 * entity's origin) so texels stay in place; without a usable texinfo,
 * Quake's default axes for a plane of that normal. No newline is written. */
void bk_decompile_put_points(bk_tbuf *t, const bk_dvec p[3]);
void bk_decompile_put_texture(bk_tbuf *t, bk_dvec normal, bk_dvec shift, const char *name, const bspkit_texinfo *ti);

/* owner[b] (nbrushes entries) = the first model whose BSP tree reaches brush
 * b through the leafs' brush lists, or -1. Trees are walked iteratively,
 * each node once per model, so shared or cyclic children cannot loop. */
bspkit_result bk_decompile_brush_owners(bspkit_map *map, size_t nbrushes, int32_t *owner, bspkit_error *err);

/* Source: Hammer VMF. */
bspkit_result bk_decompile_vmf(bspkit_map *map, const bspkit_decompile_options *opts, bk_tbuf *out,
                               bspkit_decompile_stats *stats, bspkit_error *err);

/* Quake 2 (Valve 220 .map with Quake 2's contents, flags and value) and
 * Quake 3 (Quake 3 .map with patchDef2 patches), from the brush lumps. */
bspkit_result bk_decompile_brushmap(bspkit_map *map, const bspkit_decompile_options *opts, bk_tbuf *out,
                                    bspkit_decompile_stats *stats, bspkit_error *err);

/* Quake and GoldSrc: Valve 220 .map. */
bspkit_result bk_decompile_map220(bspkit_map *map, const bspkit_decompile_options *opts, bk_tbuf *out,
                                  bspkit_decompile_stats *stats, bspkit_error *err);

#endif
