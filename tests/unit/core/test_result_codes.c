/* Result codes are part of the ABI: programs built against one release
 * compare them with the values of another. These values must never change. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "bspkit/bspkit.h"

_Static_assert(BSPKIT_OK == 0, "pinned");
_Static_assert(BSPKIT_ERR_ARGUMENT == 1, "pinned");
_Static_assert(BSPKIT_ERR_IO == 2, "pinned");
_Static_assert(BSPKIT_ERR_NOMEM == 3, "pinned");
_Static_assert(BSPKIT_ERR_LIMIT == 4, "pinned");
_Static_assert(BSPKIT_ERR_EMPTY == 5, "pinned");
_Static_assert(BSPKIT_ERR_TRUNCATED == 6, "pinned");
_Static_assert(BSPKIT_ERR_UNKNOWN_FORMAT == 7, "pinned");
_Static_assert(BSPKIT_ERR_UNSUPPORTED == 8, "pinned");
_Static_assert(BSPKIT_ERR_LUMP_RANGE == 9, "pinned");
_Static_assert(BSPKIT_ERR_LUMP_SIZE == 10, "pinned");
_Static_assert(BSPKIT_ERR_COMPRESSION == 11, "pinned");
_Static_assert(BSPKIT_ERR_ENTITIES == 12, "pinned");
_Static_assert(BSPKIT_ERR_VISIBILITY == 13, "pinned");
_Static_assert(BSPKIT_ERR_TEXTURES == 14, "pinned");
_Static_assert(BSPKIT_ERR_GAME_LUMP == 15, "pinned");
_Static_assert(BSPKIT_ERR_INDEX == 16, "pinned");
_Static_assert(BSPKIT_ERR_ENGINE_LIMIT == 17, "pinned");
_Static_assert(BSPKIT_ERR_NOT_FOUND == 18, "pinned");
_Static_assert(BSPKIT_ERR_INCOMPLETE == 19, "pinned");

/* Every code has its own description; codes outside the range say so. */
static void test_descriptions(void **state)
{
    (void)state;
    for (int a = 0; a < BSPKIT_RESULT_COUNT; a++) {
        const char *da = bspkit_strerror((bspkit_result)a);
        assert_non_null(da);
        assert_true(da[0] != '\0');
        for (int b = 0; b < a; b++)
            assert_string_not_equal(da, bspkit_strerror((bspkit_result)b));
    }
    assert_string_equal(bspkit_strerror(BSPKIT_RESULT_COUNT), "unknown result code");
    assert_string_equal(bspkit_strerror((bspkit_result)-1), "unknown result code");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_descriptions)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
