/* Numbers as text without printf: the exporters and decompilers write
 * millions of coordinates, and printf's general float path dominated them. */
#ifndef BSPKIT_CORE_FMT_NUM_H
#define BSPKIT_CORE_FMT_NUM_H

#include <stddef.h>

/* Room for any result of bk_fmt_g() and bk_fmt_int(), with the NUL. */
#define BK_FMT_NUM_CAP 32

/* Exactly what snprintf(out, BK_FMT_NUM_CAP, "%.*g", precision, v) writes
 * (1 <= precision <= 17), with round-half-even on exact decimal ties as
 * glibc does in the default rounding mode. The common case (fixed
 * notation) is computed with exact 128-bit integer arithmetic; zero,
 * exponent notation, NaN and infinities go through snprintf. Returns the
 * length. */
size_t bk_fmt_g(char out[BK_FMT_NUM_CAP], double v, int precision);

/* A signed integer in decimal. Returns the length. */
size_t bk_fmt_int(char out[BK_FMT_NUM_CAP], long long v);

#endif
