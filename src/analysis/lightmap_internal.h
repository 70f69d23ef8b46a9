/* Lightmap geometry internals shared with the tests. */
#ifndef BSPKIT_ANALYSIS_LIGHTMAP_INTERNAL_H
#define BSPKIT_ANALYSIS_LIGHTMAP_INTERNAL_H

#include <stdbool.h>

/* Whether face extents may take the AVX2 path where the CPU has it (the
 * default). Tests turn it off to compare the two paths on one host; maps
 * already opened keep the tables they built. */
void bk_lightmap_allow_avx2(bool allow);

#endif
