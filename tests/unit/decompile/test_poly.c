/* Polygon helpers of the decompiler: the inline fmax/fmin give the C
 * library's results (outputs must not change with them), and
 * clipping keeps what lies behind the plane. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "decompile/poly.h"

#include <math.h>
#include <string.h>

static uint64_t bits(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

/* The same value, or NaN for both (a NaN's payload is not compared, nor
 * which zero a tie of +0 and -0 gives, which C leaves open). */
static void same(double want, double got)
{
    if (isnan(want)) {
        assert_true(isnan(got));
        return;
    }
    if (want == 0 && got == 0)
        return;
    assert_int_equal(bits(want), bits(got));
}

static void test_fmax_fmin_match_libm(void **state)
{
    (void)state;
    volatile double special[] = {0.0, -0.0, 1.0, -1.0, 0.5, -2.5, INFINITY, -INFINITY, NAN, -NAN,
                                 1e-310, -1e-310, 1e308, -1e308};
    size_t n = sizeof special / sizeof special[0];
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            double a = special[i], b = special[j];
            same(fmax(a, b), dv_fmax(a, b));
            same(fmin(a, b), dv_fmin(a, b));
        }
    /* A NaN operand gives the other one. */
    assert_true(dv_fmax(NAN, 2.0) == 2.0 && dv_fmax(2.0, NAN) == 2.0);
    assert_true(dv_fmin(NAN, -2.0) == -2.0 && dv_fmin(-2.0, NAN) == -2.0);
    uint32_t x = 12345;
    for (int k = 0; k < 100000; k++) {
        x = x * 1103515245u + 12345u;
        double a = (double)(int32_t)x / 65536.0;
        x = x * 1103515245u + 12345u;
        double b = (x & 7) == 0 ? a : (double)(int32_t)x / 65536.0;
        same(fmax(a, b), dv_fmax(a, b));
        same(fmin(a, b), dv_fmin(a, b));
    }
}

static void test_clip_keeps_back(void **state)
{
    (void)state;
    /* A unit square cut by x <= 0.5: half of it, with the two new corners on the plane. */
    bk_dvec sq[4] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}}, out[8];
    bk_dplane pl = {{1, 0, 0}, 0.5};
    size_t n = bk_poly_clip_back(sq, 4, &pl, 1e-9, out, 8);
    assert_int_equal(n, 4);
    assert_true(fabs(bk_poly_area(out, n) - 0.5) < 1e-12);
    for (size_t i = 0; i < n; i++)
        assert_true(out[i].x <= 0.5 + 1e-12);
    assert_true(fabs(dv_length((bk_dvec){3, 4, 12}) - 13) < 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fmax_fmin_match_libm),
        cmocka_unit_test(test_clip_keeps_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
