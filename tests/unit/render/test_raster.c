/* The rasterizer on hand-made triangles: coverage of sample centres (edges
 * included), back faces culled, the depth test, perspective-correct
 * attributes and their screen derivatives against the point on the 3-D
 * triangle each sample ray meets, and the
 * rounded mean of the supersample resolve. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "render/raster.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t BG[3] = {1, 2, 3};

typedef struct colour_ctx {
    uint8_t rgb[3];
    double last[BK_RATTRS];
    double grad[4];
} colour_ctx;

static bool flat(const void *ctx, const double attr[BK_RATTRS], const double grad[4], uint8_t rgb[3])
{
    colour_ctx *c = (colour_ctx *)(uintptr_t)ctx;
    memcpy(c->last, attr, sizeof c->last);
    memcpy(c->grad, grad, sizeof c->grad);
    memcpy(rgb, c->rgb, 3);
    return true;
}

static bk_rvert vert(double x, double y, double key)
{
    bk_rvert v;
    memset(&v, 0, sizeof v);
    v.x = x;
    v.y = y;
    v.key = key;
    v.q = 1;
    return v;
}

static size_t count_colour(const bk_rtarget *t, const uint8_t rgb[3])
{
    size_t n = 0;
    for (size_t i = 0; i < (size_t)t->width * t->height; i++)
        n += memcmp(t->rgb + i * 3, rgb, 3) == 0;
    return n;
}

static void test_coverage_and_culling(void **state)
{
    (void)state;
    bk_rtarget t;
    assert_true(bk_rtarget_init(&t, 10, 10, BG));
    colour_ctx red = {{200, 0, 0}, {0}, {0}};
    /* Front-facing means counter-clockwise seen from the front, which is
     * clockwise on the y-down grid: (0,0) -> (0,10) -> (10,0) is the other way, culled. */
    bk_rvert back[3] = {vert(0, 0, 1), vert(10, 0, 1), vert(0, 10, 1)};
    assert_false(bk_raster_triangle(&t, back, BK_RPASS_NEAREST, flat, &red));
    assert_int_equal(count_colour(&t, red.rgb), 0);
    bk_rvert front[3] = {vert(0, 0, 1), vert(0, 10, 1), vert(10, 0, 1)};
    assert_true(bk_raster_triangle(&t, front, BK_RPASS_NEAREST, flat, &red));
    /* Centres (x + 0.5, y + 0.5) with x + y + 1 <= 10: 10 + 9 + ... + 1. */
    assert_int_equal(count_colour(&t, red.rgb), 55);
    /* A nearer triangle over all of it wins, a farther one loses. */
    colour_ctx blue = {{0, 0, 200}, {0}, {0}}, green = {{0, 200, 0}, {0}, {0}};
    bk_rvert far[3] = {vert(0, 0, 0.5), vert(0, 20, 0.5), vert(20, 0, 0.5)};
    assert_true(bk_raster_triangle(&t, far, BK_RPASS_NEAREST, flat, &green));
    assert_int_equal(count_colour(&t, red.rgb), 55);
    bk_rvert near[3] = {vert(0, 0, 2), vert(0, 20, 2), vert(20, 0, 2)};
    assert_true(bk_raster_triangle(&t, near, BK_RPASS_NEAREST, flat, &blue));
    assert_int_equal(count_colour(&t, blue.rgb), 100);
    bk_rtarget_free(&t);
}

static void test_perspective_correct(void **state)
{
    (void)state;
    /* A triangle in view space, depths 1, 4 and 2, attribute 0 = its view-space x.
     * Projected with focal 10 around the centre (50, 50) of a 100 x 100 grid. */
    double P[3][3] = {{-1, -1, 1}, {0, 3, 4}, {2, -1, 2}};
    bk_rvert v[3];
    for (int i = 0; i < 3; i++) {
        v[i].x = 50 + 10 * P[i][0] / P[i][2];
        v[i].y = 50 - 10 * P[i][1] / P[i][2];
        v[i].q = 1 / P[i][2];
        v[i].key = v[i].q;
        for (int k = 0; k < BK_RATTRS; k++)
            v[i].attr[k] = k == 0 ? P[i][0] : k == 1 ? P[i][2] : 0;
    }
    /* Either winding: draw whichever order is front-facing. */
    bk_rtarget t;
    assert_true(bk_rtarget_init(&t, 100, 100, BG));
    colour_ctx c = {{9, 9, 9}, {0}, {0}};
    if (!bk_raster_triangle(&t, v, BK_RPASS_NEAREST, flat, &c)) {
        bk_rvert w[3] = {v[0], v[2], v[1]};
        assert_true(bk_raster_triangle(&t, w, BK_RPASS_NEAREST, flat, &c));
    }
    /* The last sample drawn: its ray hits the triangle's plane at a point whose x and z the attributes must equal. */
    size_t last = 0;
    for (size_t i = 0; i < 100 * 100; i++)
        if (t.rgb[i * 3] == 9)
            last = i;
    double sx = (double)(last % 100) + 0.5, sy = (double)(last / 100) + 0.5;
    double dir[3] = {(sx - 50) / 10, -(sy - 50) / 10, 1};
    double e1[3], e2[3], n[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = P[1][k] - P[0][k];
        e2[k] = P[2][k] - P[0][k];
    }
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    double s = (n[0] * P[0][0] + n[1] * P[0][1] + n[2] * P[0][2]) / (n[0] * dir[0] + n[1] * dir[1] + n[2] * dir[2]);
    assert_true(fabs(c.last[0] - dir[0] * s) < 1e-9);
    assert_true(fabs(c.last[1] - s) < 1e-9);
    /* The derivatives against finite differences of the same ray-plane hit one sample either side. */
    for (int axis = 0; axis < 2; axis++) {
        double at[2];
        for (int side = 0; side < 2; side++) {
            double h = side ? 1e-4 : -1e-4;
            double d[3] = {(sx + (axis == 0 ? h : 0) - 50) / 10, -(sy + (axis == 1 ? h : 0) - 50) / 10, 1};
            double hit = (n[0] * P[0][0] + n[1] * P[0][1] + n[2] * P[0][2]) / (n[0] * d[0] + n[1] * d[1] + n[2] * d[2]);
            at[side] = d[0] * hit;
        }
        double numeric = (at[1] - at[0]) / 2e-4;
        if (fabs(c.grad[axis] - numeric) > 1e-6 * (1 + fabs(numeric)))
            fail_msg("d(attr0)/d%c = %g, finite difference %g", axis ? 'y' : 'x', c.grad[axis], numeric);
    }
    bk_rtarget_free(&t);
}

static void test_resolve(void **state)
{
    (void)state;
    bk_rtarget t;
    assert_true(bk_rtarget_init(&t, 4, 2, BG));
    const uint8_t s[8][3] = {{0, 0, 0}, {255, 1, 1}, {10, 10, 10}, {10, 10, 10},
                             {1, 1, 0}, {1, 1, 0},   {10, 10, 10}, {10, 10, 13}};
    memcpy(t.rgb, s, sizeof s);
    uint8_t out[2 * 4];
    bk_rtarget_resolve(&t, 2, out);
    /* (0 + 255 + 1 + 1) / 4 = 64.25 -> 64; (0 + 1 + 1 + 1) / 4 = 0.75 -> 1; (1 + 0 + 0) / 4 -> 0. */
    const uint8_t want[8] = {64, 1, 0, 255, 10, 10, 11, 255};
    assert_memory_equal(out, want, sizeof want);
    bk_rtarget_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_coverage_and_culling),
        cmocka_unit_test(test_perspective_correct),
        cmocka_unit_test(test_resolve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
