/* Content references: material text read for the textures it names, and
 * names from map bytes kept only as safe relative lower-case paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ops/content.h"

#include <string.h>

static void test_vmt(void **state)
{
    (void)state;
    static const char text[] = "\"LightmappedGeneric\"\n"
                               "{\n"
                               "  // \"$detail\" \"commented/out\"\n"
                               "  \"$basetexture\" \"Brick/Wall01\"\n"
                               "  $bumpmap brick\\wall01_normal\n"
                               "  \"$envmaptint\" \"[.5 .5 .5]\"\n"
                               "  \"$surfaceprop\" \"brick\"\n"
                               "  \"%keywords\" \"tf\"\n"
                               "  \"$alpha\" \"0.5\"\n"
                               "  \"Proxies\" { \"AnimatedTexture\" { \"animatedtexturevar\" \"$basetexture\" } }\n"
                               "  \"$detail\" \"materials/detail/noise.vtf\"\n"
                               "  \"$unterminated\" \"x";
    bk_strset s = {0};
    assert_true(bk_vmt_textures(text, strlen(text), &s));
    /* $surfaceprop reads as a texture name too: the lookup in the content directory drops it. */
    const char *want[] = {"materials/brick/wall01.vtf", "materials/brick/wall01_normal.vtf", "materials/brick.vtf",
                          "materials/detail/noise.vtf", "materials/x.vtf"};
    assert_int_equal(s.count, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < s.count; i++)
        assert_string_equal(s.items[i], want[i]);
    bk_strset_free(&s);
}

static void test_safe_names(void **state)
{
    (void)state;
    bk_strset s = {0};
    const char *refused[] = {"../x", "materials/../../x", "/etc/passwd", "C:x", "a/\x01b", "", "dir/"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        assert_true(bk_strset_add(&s, refused[i]));
    assert_int_equal(s.count, 0);
    assert_true(bk_strset_add(&s, "Materials\\Dev//Wall.VMT"));
    assert_true(bk_strset_add(&s, "materials/dev/wall.vmt")); /* the same file */
    assert_int_equal(s.count, 1);
    assert_string_equal(s.items[0], "materials/dev/wall.vmt");
    assert_true(bk_strset_has(&s, "materials/dev/wall.vmt"));
    bk_strset_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vmt),
        cmocka_unit_test(test_safe_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
