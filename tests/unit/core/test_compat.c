/* Former public names still link and behave as the names that replaced them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "bspkit/bspkit.h"
#include "bspkit/bspx.h"
#include "bspkit/entities_edit.h"
#include "bspkit/pak.h"
#include "bspkit/write.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static void test_former_names(void **state)
{
    (void)state;
    bspkit_error err;
    uint8_t *bytes = NULL;
    size_t size = 0;
    assert_int_equal(bspkit_sample_build(BSPKIT_SAMPLE_GOLDSRC_ROOM, &bytes, &size, &err), BSPKIT_OK);
    bspkit_map *map = NULL;
    assert_int_equal(bspkit_open_memory(bytes, size, NULL, &map, &err), BSPKIT_OK);
    for (int i = 0; i < bspkit_lump_count(map); i++) {
        bspkit_lump_info a, b;
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        assert_int_equal(bspkit_lump_info_get(map, i, &a), bspkit_get_lump_info(map, i, &b));
        assert_memory_equal(&a, &b, sizeof a);
    }
    const bspkit_bspx_brushlist *bl1 = NULL, *bl2 = NULL;
    assert_int_equal(bspkit_bspx_brushlist_get(map, &bl1, &err), bspkit_get_bspx_brushlist(map, &bl2, &err));
    assert_ptr_equal(bl1, bl2);
    const bspkit_bspx_decoupled_lm *d1 = NULL, *d2 = NULL;
    size_t n1 = 7, n2 = 9;
    assert_int_equal(bspkit_bspx_decoupled_lm_get(map, &d1, &n1, &err), bspkit_get_bspx_decoupled_lm(map, &d2, &n2, &err));
    assert_int_equal(n1, n2);
    bspkit_close(map);
    bspkit_free_buffer(bytes);

    bspkit_entlist *list = NULL;
    assert_int_equal(bspkit_entlist_parse("{\n\"classname\" \"worldspawn\"\n}\n", 29, &list, &err), BSPKIT_OK);
    assert_int_equal(bspkit_entlist_set(list, 0, "wad", "a.wad", &err), BSPKIT_OK);
    bspkit_entlist_changes c1, c2;
    bspkit_entlist_changes_get(list, &c1);
    bspkit_entlist_get_changes(list, &c2);
    assert_memory_equal(&c1, &c2, sizeof c1);
    bspkit_entlist_free(list);

    bspkit_pak *p = NULL;
    assert_int_equal(bspkit_pak_open(NULL, 0, NULL, &p, &err), BSPKIT_OK);
    bspkit_pak_free(p);
    bspkit_pak_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_former_names)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
