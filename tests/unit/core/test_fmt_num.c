/* The printf-free number formatter against the C library's own "%.*g" and
 * "%lld" on millions of values: random bit patterns over the whole range
 * the fast path serves and beyond it, decimal fractions as maps hold them,
 * exact decimal ties (round half to even), and the notation boundaries. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/fmt_num.h"

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static unsigned mismatches;

static void check_g(double v, int precision)
{
    char want[64], got[BK_FMT_NUM_CAP];
    int wn = snprintf(want, sizeof want, "%.*g", precision, v);
    size_t gn = bk_fmt_g(got, v, precision);
    if ((size_t)wn != gn || strcmp(want, got) != 0) {
        if (mismatches++ < 10)
            print_error("%.17g at %d: printf '%s', bk_fmt_g '%s'\n", v, precision, want, got);
    }
}

static const int PRECISIONS[] = {1, 6, 9, 10, 15, 17};
#define NPREC (sizeof PRECISIONS / sizeof PRECISIONS[0])

static void test_random_bits(void **state)
{
    (void)state;
    uint64_t s = 0x9E3779B97F4A7C15ull;
    mismatches = 0;
    for (int i = 0; i < 400000; i++) {
        /* mantissa of 1..53 bits, binary exponents from 2^-80 to 2^70 */
        int bits = 1 + (int)(rng(&s) % 53);
        double mant = (double)(rng(&s) >> (64 - bits));
        double v = ldexp(mant, (int)(rng(&s) % 150) - 80 - bits);
        if (rng(&s) & 1)
            v = -v;
        check_g(v, PRECISIONS[i % NPREC]);
    }
    assert_int_equal(mismatches, 0);
}

static void test_decimal_fractions(void **state)
{
    (void)state;
    uint64_t s = 12345;
    mismatches = 0;
    /* n / 10^j and n / 2^j: the coordinates, texture axes and offsets of real maps */
    for (int i = 0; i < 300000; i++) {
        long long n = (long long)(rng(&s) % 2000000000ull) - 1000000000ll;
        int j = (int)(rng(&s) % 12);
        double v = (rng(&s) & 1) ? (double)n / pow(10, j) : ldexp((double)n, -j);
        check_g(v, PRECISIONS[i % NPREC]);
        check_g(v + 1e-7, 10);
    }
    assert_int_equal(mismatches, 0);
}

static void test_ties_and_boundaries(void **state)
{
    (void)state;
    mismatches = 0;
    /* exact ties: (2m+1)/4 has its eleventh significant digit 5 followed by zeros */
    for (long long m = 500000000; m < 500002000; m++)
        check_g((double)(2 * m + 1) / 4.0, 10);
    for (long long m = 1; m < 5000; m++) {
        check_g((double)(2 * m + 1) / 2.0, 1 + (int)(m % 4));
        check_g((double)(2 * m + 1) / 8.0, 1 + (int)(m % 5));
    }
    /* around every power of ten the notation and the digit count change */
    for (int p = -6; p <= 18; p++) {
        double t = pow(10, p);
        double near[] = {t, nextafter(t, 0), nextafter(t, INFINITY), t * (1 - 1e-11), t * (1 + 1e-11),
                         t * (1 - 5e-10), t * 0.99999999995, t * 9.9999999995};
        for (size_t k = 0; k < sizeof near / sizeof near[0]; k++)
            for (size_t q = 0; q < NPREC; q++) {
                check_g(near[k], PRECISIONS[q]);
                check_g(-near[k], PRECISIONS[q]);
            }
    }
    const double special[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, DBL_MIN, DBL_MAX, DBL_TRUE_MIN, 1e-4, 9e-5,
                              0.0001, 0.00009999999999, 123456789.25, 0.5, 1.5, 2.5, 1e17, 1e16, 99999.5};
    for (size_t k = 0; k < sizeof special / sizeof special[0]; k++)
        for (size_t q = 0; q < NPREC; q++)
            check_g(special[k], PRECISIONS[q]);
    assert_int_equal(mismatches, 0);
}

static void test_integers(void **state)
{
    (void)state;
    const long long vals[] = {0, 1, -1, 9, 10, -10, 123456789, -987654321, 4294967296ll, LLONG_MAX, LLONG_MIN};
    for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++) {
        char want[32], got[BK_FMT_NUM_CAP];
        int wn = snprintf(want, sizeof want, "%lld", vals[k]);
        assert_int_equal(bk_fmt_int(got, vals[k]), (size_t)wn);
        assert_string_equal(got, want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_bits),
        cmocka_unit_test(test_decimal_fractions),
        cmocka_unit_test(test_ties_and_boundaries),
        cmocka_unit_test(test_integers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
