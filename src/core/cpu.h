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

#if defined(__SSE2__)
#include <emmintrin.h>
#include <stdint.h>

/* Bit i for byte i of 64 whose compare result (four 16-byte vectors, in
 * order) is true. */
static inline uint64_t bk_mask64(__m128i m0, __m128i m1, __m128i m2, __m128i m3)
{
    return (uint64_t)(uint32_t)_mm_movemask_epi8(m0) | (uint64_t)(uint32_t)_mm_movemask_epi8(m1) << 16 |
           (uint64_t)(uint32_t)_mm_movemask_epi8(m2) << 32 | (uint64_t)(uint32_t)_mm_movemask_epi8(m3) << 48;
}
#endif

#endif
