#include "core/cpu.h"

#include <stdatomic.h>

#if BK_CPU_AVX2
#include <cpuid.h>

/* CPUID leaf 1 (AVX, OSXSAVE, POPCNT), XCR0 (XMM and YMM state), CPUID
 * leaf 7 (AVX2, BMI1). PCLMULQDQ comes with every AVX2 processor but is
 * asked all the same. */
static bool ask_cpu(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_AVX) || !(c & bit_POPCNT) ||
        !(c & bit_PCLMUL))
        return false;
    unsigned xcr0_lo, xcr0_hi;
    __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
    (void)xcr0_hi;
    if ((xcr0_lo & 6) != 6)
        return false;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX2) && (b & bit_BMI);
}

/* 0: not yet asked, 1: no, 2: yes. Threads that race all store the same answer. */
static atomic_int avx2_state;
#endif
static atomic_bool avx2_refused; /* bk_cpu_allow_avx2(false) */

void bk_cpu_allow_avx2(bool allow)
{
    atomic_store_explicit(&avx2_refused, !allow, memory_order_relaxed);
}

bool bk_cpu_has_avx2(void)
{
#if BK_CPU_AVX2
    if (atomic_load_explicit(&avx2_refused, memory_order_relaxed))
        return false;
    int state = atomic_load_explicit(&avx2_state, memory_order_relaxed);
    if (state == 0) {
        state = ask_cpu() ? 2 : 1;
        atomic_store_explicit(&avx2_state, state, memory_order_relaxed);
    }
    return state == 2;
#else
    return false;
#endif
}
