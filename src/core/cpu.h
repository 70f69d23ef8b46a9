/* What the processor running the library can do, for the few loops that
 * have a faster form than plain x86-64 offers. Internal to the library. */
#ifndef BSPKIT_CORE_CPU_H
#define BSPKIT_CORE_CPU_H

#include <stdbool.h>

/* x86-64 hosts: the library may build functions for AVX2 with BMI1,
 * POPCNT and PCLMULQDQ (target attributes) and call them when bk_cpu_has_avx2() says so. */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__SSE2__)
#define BK_CPU_AVX2 1
#else
#define BK_CPU_AVX2 0
#endif

/* AVX2, BMI1, POPCNT and PCLMULQDQ are there and the OS saves the YMM registers.
 * Asked once; any thread may call it. False where BK_CPU_AVX2 is 0. */
bool bk_cpu_has_avx2(void);

/* Lets bk_cpu_has_avx2() answer as the processor does (the default) or
 * always false, so that tests can compare both paths. */
void bk_cpu_allow_avx2(bool allow);

#endif
