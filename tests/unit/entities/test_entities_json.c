/* The entity JSON codec (bspkit_entlist_from_json / _to_json). Expected JSON
 * is written here by hand from the documented shape. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "bspkit/entities_edit.h"

static bspkit_error g_err;

static void test_detect(void **state)
{
    (void)state;
    const char *json[] = {"[]", " \n[{}]", "{ \"classname\": \"x\" }", "\xEF\xBB\xBF{\"a\" :1}"};
    const char *text[] = {"{\n\"classname\" \"worldspawn\"\n}", "", "{ \"a\" \"b:c\" }", "{}"};
    for (size_t i = 0; i < 4; i++) {
        assert_true(bspkit_entities_text_is_json(json[i], strlen(json[i])));
        assert_false(bspkit_entities_text_is_json(text[i], strlen(text[i])));
    }
}

static void test_round_trip(void **state)
{
    (void)state;
    const char *in = "[{\"classname\": \"logic_relay\", \"OnTrigger\": [\"a,B,,0,-1\", \"c,D,,1,-1\"], "
                     "\"spawnflags\": 3, \"targetname\": \"r\"}, {\"classname\": \"info_null\"}]";
    bspkit_entlist *list = NULL;
    assert_int_equal(bspkit_entlist_from_json(in, strlen(in), &list, &g_err), BSPKIT_OK);
    assert_int_equal(bspkit_entlist_count(list), 2);
    size_t n = 0;
    const bspkit_keyvalue *kv = bspkit_entlist_pairs(list, 0, &n);
    assert_int_equal(n, 5); /* the array is two pairs, the integer one */
    assert_string_equal(kv[1].key, "OnTrigger");
    assert_string_equal(kv[2].value, "c,D,,1,-1");
    assert_string_equal(kv[3].value, "3");
    char *out = NULL;
    size_t size = 0, lossy = 9;
    assert_int_equal(bspkit_entlist_to_json(list, &out, &size, &lossy, &g_err), BSPKIT_OK);
    assert_int_equal(lossy, 0);
    assert_int_equal(size, strlen(out));
    assert_string_equal(out, "[\n  {\n    \"classname\": \"logic_relay\",\n    \"OnTrigger\": [\n      \"a,B,,0,-1\",\n"
                             "      \"c,D,,1,-1\"\n    ],\n    \"spawnflags\": \"3\",\n    \"targetname\": \"r\"\n  },\n"
                             "  {\n    \"classname\": \"info_null\"\n  }\n]");
    free(out);
    bspkit_entlist_free(list);
}

static void test_not_utf8(void **state)
{
    (void)state;
    bspkit_entlist *list = NULL;
    assert_int_equal(bspkit_entlist_new(&list, &g_err), BSPKIT_OK);
    const bspkit_keyvalue kv[] = {{.key = "message", .value = "caf\xE9"}, {.key = "ok", .value = "caf\xC3\xA9"}};
    assert_int_equal(bspkit_entlist_add_entity(list, kv, 2, NULL, &g_err), BSPKIT_OK);
    char *out = NULL;
    size_t lossy = 0;
    assert_int_equal(bspkit_entlist_to_json(list, &out, NULL, &lossy, &g_err), BSPKIT_OK);
    assert_int_equal(lossy, 1);
    assert_non_null(strstr(out, "\"message\": \"caf?\""));
    assert_non_null(strstr(out, "\"ok\": \"caf\xC3\xA9\""));
    free(out);
    bspkit_entlist_free(list);
}

static void expect_error(const char *json, const char *message)
{
    bspkit_entlist *list = (bspkit_entlist *)1;
    assert_int_equal(bspkit_entlist_from_json(json, strlen(json), &list, &g_err), BSPKIT_ERR_ENTITIES);
    assert_null(list);
    assert_string_equal(g_err.message, message);
}

static void test_errors(void **state)
{
    (void)state;
    /* A NUL inside a string is refused by the JSON reader itself. */
    bspkit_entlist *nul = NULL;
    assert_int_equal(bspkit_entlist_from_json("[{\"a\": \"x\\u0000y\"}]", 19, &nul, &g_err), BSPKIT_ERR_ENTITIES);
    assert_non_null(strstr(g_err.message, "line 1, column 17"));
    expect_error("[{}, {\"a\": 1.5}]", "entity 1, key \"a\": values must be strings, integers or arrays of them");
    expect_error("[{\"a\": [\"x\", {}]}]", "entity 0, key \"a\": values must be strings, integers or arrays of them");
    expect_error("[{}, 3]", "entity 1 is not a JSON object");
    /* The reader accepts only an array or an object at the top. */
    bspkit_entlist *top = NULL;
    assert_int_equal(bspkit_entlist_from_json("\"x\"", 3, &top, &g_err), BSPKIT_ERR_ENTITIES);
    bspkit_entlist *list = NULL;
    assert_int_equal(bspkit_entlist_from_json("[{\"a\": }]", 9, &list, &g_err), BSPKIT_ERR_ENTITIES);
    assert_non_null(strstr(g_err.message, "line 1, column"));
    /* Keys may not repeat inside one object: a repeated key is an array. */
    assert_int_equal(bspkit_entlist_from_json("{\"a\": \"1\", \"a\": \"2\"}", 20, &list, &g_err),
                     BSPKIT_ERR_ENTITIES);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_detect),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_not_utf8),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
