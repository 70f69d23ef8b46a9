/* The JSON writer's strings: plain text is copied between quotes; quotes,
 * backslashes and control bytes are escaped; text that is not valid UTF-8
 * has its high bytes written as '?'. Each expected text is written out by
 * hand from those rules, and the result must also parse with jansson. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <string.h>

#include "core/textbuf.h"

/* `value` as the only string of an array, against `want` (the whole text). */
static void check_string(const char *value, const char *want)
{
    bk_tbuf t = {0};
    jw_arr(&t);
    jw_str(&t, value);
    jw_end_arr(&t);
    assert_false(t.failed);
    assert_string_equal(t.data, want);
    json_error_t e;
    json_t *doc = json_loads(t.data, 0, &e);
    assert_non_null(doc);
    json_decref(doc);
    tb_free(&t);
}

static void plain_text_is_copied(void **state)
{
    (void)state;
    check_string("", "[\"\"]");
    check_string("worldspawn", "[\"worldspawn\"]");
    check_string("maps/de_dust2.bsp {1 2 3} ~!@#$%^&*()", "[\"maps/de_dust2.bsp {1 2 3} ~!@#$%^&*()\"]");
}

static void quotes_backslashes_and_controls_are_escaped(void **state)
{
    (void)state;
    check_string("say \"hi\"", "[\"say \\\"hi\\\"\"]");
    check_string("c:\\quake\\id1", "[\"c:\\\\quake\\\\id1\"]");
    check_string("a\tb\nc\x01", "[\"a\\u0009b\\u000ac\\u0001\"]");
    check_string("\x1f", "[\"\\u001f\"]");
}

static void utf8_is_kept_and_other_high_bytes_are_replaced(void **state)
{
    (void)state;
    check_string("caf\xc3\xa9", "[\"caf\xc3\xa9\"]");                /* valid UTF-8: as is */
    check_string("caf\xe9 \"x\"", "[\"caf? \\\"x\\\"\"]");            /* Latin-1: '?' */
    check_string("\xff\xfe", "[\"??\"]");
}

static void keys_take_the_same_rules(void **state)
{
    (void)state;
    bk_tbuf t = {0};
    jw_obj(&t);
    jw_key(&t, "name");
    jw_str(&t, "x");
    jw_key(&t, "we\"ird");
    jw_int(&t, 7);
    jw_end_obj(&t);
    assert_false(t.failed);
    assert_string_equal(t.data, "{\"name\":\"x\",\"we\\\"ird\":7}");
    tb_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plain_text_is_copied),
        cmocka_unit_test(quotes_backslashes_and_controls_are_escaped),
        cmocka_unit_test(utf8_is_kept_and_other_high_bytes_are_replaced),
        cmocka_unit_test(keys_take_the_same_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
