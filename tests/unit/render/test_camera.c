/* Views: the pitch/yaw basis (Source convention: pitch down is positive),
 * the spawn eye picked from entity text (first spawn classname in file
 * order, "angles" over "angle", eye height per family), and the
 * orthographic fit of a box into the sample grid. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"

#include "render/camera.h"

#include <math.h>
#include <string.h>

static void near3(const double a[3], double x, double y, double z)
{
    if (fabs(a[0] - x) > 1e-12 || fabs(a[1] - y) > 1e-12 || fabs(a[2] - z) > 1e-12)
        fail_msg("(%g %g %g), expected (%g %g %g)", a[0], a[1], a[2], x, y, z);
}

static void test_basis(void **state)
{
    (void)state;
    double f[3], r[3], u[3];
    bk_rcam_basis(0, 0, f, r, u);
    near3(f, 1, 0, 0);
    near3(r, 0, -1, 0);
    near3(u, 0, 0, 1);
    bk_rcam_basis(0, 90, f, r, u);
    near3(f, 0, 1, 0);
    near3(r, 1, 0, 0);
    /* Pitch 90 looks straight down; with yaw 90, +X is right and +Y is up the image. */
    bk_rcam_basis(90, 90, f, r, u);
    near3(f, 0, 0, -1);
    near3(r, 1, 0, 0);
    near3(u, 0, 1, 0);
}

static void test_spawn(void **state)
{
    (void)state;
    static const char TEXT[] = "{ \"classname\" \"worldspawn\" }\n"
                               "{ \"classname\" \"info_player_terrorist\" \"origin\" \"bad\" }\n"
                               "{ \"origin\" \"10 20 30\" \"angle\" \"45\" \"classname\" \"info_player_deathmatch\" }\n"
                               "{ \"classname\" \"info_player_start\" \"origin\" \"1 2 3\" \"angles\" \"10 20 0\" }\n";
    bspkit_entities *e;
    CHECK(bspkit_entities_parse(TEXT, sizeof TEXT - 1, &e, ERR));
    bspkit_render_camera c;
    /* The terrorist spawn has no usable origin: the next spawn in file order is taken. */
    assert_true(bk_render_spawn(e, BSPKIT_FAMILY_QUAKE, &c));
    near3(c.origin, 10, 20, 52);
    assert_true(c.pitch == 0 && c.yaw == 45 && c.fov == 90);
    assert_true(bk_render_spawn(e, BSPKIT_FAMILY_SOURCE, &c));
    near3(c.origin, 10, 20, 94);
    bspkit_entities_free(e);
    static const char TEXT2[] = "{ \"classname\" \"info_player_start\" \"origin\" \"1 2 3\" \"angles\" \"10 20 0\" }\n";
    CHECK(bspkit_entities_parse(TEXT2, sizeof TEXT2 - 1, &e, ERR));
    assert_true(bk_render_spawn(e, BSPKIT_FAMILY_GOLDSRC, &c));
    near3(c.origin, 1, 2, 31);
    assert_true(c.pitch == 10 && c.yaw == 20);
    bspkit_entities_free(e);
    static const char NONE[] = "{ \"classname\" \"worldspawn\" }\n";
    CHECK(bspkit_entities_parse(NONE, sizeof NONE - 1, &e, ERR));
    assert_false(bk_render_spawn(e, BSPKIT_FAMILY_QUAKE, &c));
    bspkit_entities_free(e);
}

static void test_ortho_fit(void **state)
{
    (void)state;
    bk_rcam cam;
    double mn[3] = {-100, 0, -5}, mx[3] = {300, 100, 5};
    bk_rcam_ortho(&cam, 90, 90, mn, mx, 800, 800);
    /* 400 units across 800 samples: the wider side sets the scale. */
    assert_true(fabs(cam.scale - 2) < 1e-12);
    assert_true(fabs(cam.centre_r - 100) < 1e-9 && fabs(cam.centre_u - 50) < 1e-9);
    double v[3], p[3] = {300, 100, 0};
    bk_rcam_view(&cam, p, v);
    assert_true(fabs(cam.width / 2 + (v[0] - cam.centre_r) * cam.scale - 800) < 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basis),
        cmocka_unit_test(test_spawn),
        cmocka_unit_test(test_ortho_fit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
