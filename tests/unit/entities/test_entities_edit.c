/* The mutable entity list, its serialisation, glob patterns and selectors.
 * Expected texts are written out by hand from the documented format, and
 * results are re-read with the independent reader bspkit_entities_parse(). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bspkit/bspkit.h"
#include "bspkit/entities_edit.h"

#include "check.h"

static bspkit_entlist *list_from_text(const char *text)
{
    bspkit_entities *ents = NULL;
    CHECK(bspkit_entities_parse(text, strlen(text), &ents, ERR));
    bspkit_entlist *list = NULL;
    CHECK(bspkit_entlist_from_entities(ents, &list, ERR));
    bspkit_entities_free(ents);
    return list;
}

/* Serialises and compares with `expected` plus the terminating NUL. */
static void assert_text(const bspkit_entlist *list, const char *expected)
{
    char *text = NULL;
    size_t size = 0;
    CHECK(bspkit_entlist_serialize(list, &text, &size, ERR));
    size_t want = strlen(expected) + 1;
    if (size != want || memcmp(text, expected, want) != 0)
        fail_msg("serialised text differs:\n--- expected (%zu bytes)\n%s\n--- actual (%zu bytes)\n%.*s", want,
                 expected, size, (int)size, text);
    free(text);
}

/* Re-reads serialised text with the reader and checks every pair. `pairs`
 * lists key, value, ... per entity, each entity ended by NULL. */
static void assert_reparsed(const bspkit_entlist *list, size_t n_ents, const char *const *pairs)
{
    char *text = NULL;
    size_t size = 0;
    CHECK(bspkit_entlist_serialize(list, &text, &size, ERR));
    assert_int_equal(text[size - 1], '\0');
    bspkit_entities *ents = NULL;
    CHECK(bspkit_entities_parse(text, size, &ents, ERR));
    assert_int_equal(ents->count, n_ents);
    assert_int_equal(ents->trailing_bytes, 0);
    const char *const *p = pairs;
    for (size_t e = 0; e < n_ents; e++) {
        size_t n = 0;
        while (p[2 * n])
            n++;
        assert_int_equal(ents->entities[e].num_pairs, n);
        for (size_t i = 0; i < n; i++) {
            const bspkit_keyvalue *kv = &ents->pairs[ents->entities[e].first_pair + i];
            assert_string_equal(kv->key, p[2 * i]);
            assert_string_equal(kv->value, p[2 * i + 1]);
        }
        p += 2 * n + 1;
    }
    bspkit_entities_free(ents);
    free(text);
}

static void assert_changes(const bspkit_entlist *list, size_t changed, size_t removed, size_t added)
{
    bspkit_entlist_changes c;
    bspkit_entlist_get_changes(list, &c);
    assert_int_equal(c.changed, changed);
    assert_int_equal(c.removed, removed);
    assert_int_equal(c.added, added);
}

/* ---- serialisation ------------------------------------------------------- */

static void test_serialise_canonical(void **state)
{
    (void)state;
    /* Unquoted tokens, comments, CRLF and odd spacing all come out in the
     * compilers' layout; braces and newlines inside values survive. */
    bspkit_entlist *list = list_from_text("// comment\r\n{ classname worldspawn \"wad\" \"\\a\\b.wad\" }\r\n"
                                          "{\"classname\"\"info_target\"\n\"message\" \"two\nlines { }\"}");
    assert_text(list, "{\n\"classname\" \"worldspawn\"\n\"wad\" \"\\a\\b.wad\"\n}\n"
                      "{\n\"classname\" \"info_target\"\n\"message\" \"two\nlines { }\"\n}\n");
    bspkit_entlist_free(list);

    /* Empty entities and empty strings. */
    list = list_from_text("{}{\"\" \"\"}");
    assert_text(list, "{\n}\n{\n\"\" \"\"\n}\n");
    bspkit_entlist_free(list);

    /* An empty list is one NUL. */
    CHECK(bspkit_entlist_new(&list, ERR));
    char *text = NULL;
    size_t size = 99;
    CHECK(bspkit_entlist_serialize(list, &text, &size, ERR));
    assert_int_equal(size, 1);
    assert_int_equal(text[0], '\0');
    free(text);
    bspkit_entlist_free(list);
}

static void test_edit_roundtrip(void **state)
{
    (void)state;
    bspkit_entlist *list = list_from_text("{\n\"classname\" \"worldspawn\"\n\"skyname\" \"sky_day01\"\n}\n"
                                          "{\n\"classname\" \"logic_relay\"\n\"targetname\" \"r1\"\n"
                                          "\"OnTrigger\" \"a,Open,,0,-1\"\n\"OnTrigger\" \"b,Close,,1,-1\"\n}\n"
                                          "{\n\"classname\" \"light\"\n\"_light\" \"255 255 255 200\"\n}\n");
    assert_int_equal(bspkit_entlist_count(list), 3);
    assert_changes(list, 0, 0, 0);

    /* set: replaces the first occurrence, keeps spelling and position. */
    CHECK(bspkit_entlist_set(list, 0, "SkyName", "sky_night", ERR));
    /* set: appends a missing key. */
    CHECK(bspkit_entlist_set(list, 0, "maxpropscreenwidth", "-1", ERR));
    /* add_pair keeps duplicates. */
    CHECK(bspkit_entlist_add_pair(list, 1, "OnTrigger", "c,Kill,,2,1", ERR));
    /* set on a duplicated key touches only the first. */
    CHECK(bspkit_entlist_set(list, 1, "ontrigger", "a,Toggle,,0,-1", ERR));
    /* delete a key. */
    size_t removed = 0;
    CHECK(bspkit_entlist_delete_key(list, 2, "_LIGHT", &removed, ERR));
    assert_int_equal(removed, 1);
    /* add an entity, delete another. */
    const bspkit_keyvalue kv[] = {{.key = "classname", .value = "info_player_start"},
                                  {.key = "origin", .value = "0 0 64"}};
    size_t index = 0;
    CHECK(bspkit_entlist_add_entity(list, kv, 2, &index, ERR));
    assert_int_equal(index, 3);
    CHECK(bspkit_entlist_delete_entity(list, 2, ERR));

    assert_text(list, "{\n\"classname\" \"worldspawn\"\n\"skyname\" \"sky_night\"\n\"maxpropscreenwidth\" \"-1\"\n}\n"
                      "{\n\"classname\" \"logic_relay\"\n\"targetname\" \"r1\"\n\"OnTrigger\" \"a,Toggle,,0,-1\"\n"
                      "\"OnTrigger\" \"b,Close,,1,-1\"\n\"OnTrigger\" \"c,Kill,,2,1\"\n}\n"
                      "{\n\"classname\" \"info_player_start\"\n\"origin\" \"0 0 64\"\n}\n");
    static const char *const expect[] = {
        "classname", "worldspawn", "skyname", "sky_night", "maxpropscreenwidth", "-1", NULL,
        "classname", "logic_relay", "targetname", "r1", "OnTrigger", "a,Toggle,,0,-1", "OnTrigger",
        "b,Close,,1,-1", "OnTrigger", "c,Kill,,2,1", NULL,
        "classname", "info_player_start", "origin", "0 0 64", NULL,
    };
    assert_reparsed(list, 3, expect);
    assert_changes(list, 2, 1, 1);

    /* Accessors: pairs with lengths, case-insensitive value lookup. */
    size_t n = 0;
    const bspkit_keyvalue *pairs = bspkit_entlist_pairs(list, 1, &n);
    assert_int_equal(n, 5);
    assert_string_equal(pairs[4].value, "c,Kill,,2,1");
    assert_int_equal(pairs[4].value_length, 11);
    assert_int_equal(pairs[4].key_length, 9);
    assert_string_equal(bspkit_entlist_value(list, 1, "TARGETNAME"), "r1");
    assert_null(bspkit_entlist_value(list, 1, "missing"));
    assert_null(bspkit_entlist_pairs(list, 3, &n));
    assert_int_equal(n, 0);
    bspkit_entlist_free(list);
}

static void test_pair_ops(void **state)
{
    (void)state;
    bspkit_entlist *list = list_from_text("{ \"a\" \"1\" \"b\" \"2\" \"a\" \"3\" }");
    CHECK(bspkit_entlist_set_pair_value(list, 0, 2, "three", ERR));
    CHECK(bspkit_entlist_delete_pair(list, 0, 0, ERR));
    assert_text(list, "{\n\"b\" \"2\"\n\"a\" \"three\"\n}\n");
    size_t removed = 9;
    CHECK(bspkit_entlist_delete_key(list, 0, "missing", &removed, ERR));
    assert_int_equal(removed, 0);

    /* Errors carry the right code and a message. */
    memset(&g_err, 0, sizeof g_err);
    assert_int_equal(bspkit_entlist_delete_pair(list, 0, 2, ERR), BSPKIT_ERR_NOT_FOUND);
    assert_int_equal(g_err.code, BSPKIT_ERR_NOT_FOUND);
    assert_string_equal(g_err.message, "entities: entity 0 has no pair 2 (it has 2)");
    assert_int_equal(bspkit_entlist_set(list, 1, "k", "v", ERR), BSPKIT_ERR_NOT_FOUND);
    assert_string_equal(g_err.message, "entities: no entity 1 (the list has 1)");
    assert_int_equal(bspkit_entlist_delete_entity(list, 5, NULL), BSPKIT_ERR_NOT_FOUND);
    assert_int_equal(bspkit_entlist_set(list, 0, "k", "say \"hi\"", ERR), BSPKIT_ERR_ARGUMENT);
    assert_string_equal(g_err.message, "entities: value contains a double quote");
    assert_int_equal(bspkit_entlist_add_pair(list, 0, "k\"", "v", ERR), BSPKIT_ERR_ARGUMENT);
    assert_string_equal(g_err.message, "entities: key contains a double quote");
    assert_int_equal(bspkit_entlist_set(list, 0, NULL, "v", ERR), BSPKIT_ERR_ARGUMENT);
    const bspkit_keyvalue bad[] = {{.key = "classname", .value = "x\"y"}};
    assert_int_equal(bspkit_entlist_add_entity(list, bad, 1, NULL, ERR), BSPKIT_ERR_ARGUMENT);
    assert_int_equal(bspkit_entlist_count(list), 1);
    /* Nothing refused changed the list. */
    assert_text(list, "{\n\"b\" \"2\"\n\"a\" \"three\"\n}\n");
    bspkit_entlist_free(list);
}

static void test_changes(void **state)
{
    (void)state;
    bspkit_entlist *list = list_from_text("{\"classname\" \"a\"}{\"classname\" \"b\"}{\"classname\" \"c\"}");
    /* Setting the value it already has is no change. */
    CHECK(bspkit_entlist_set(list, 0, "classname", "a", ERR));
    assert_changes(list, 0, 0, 0);
    CHECK(bspkit_entlist_set(list, 1, "classname", "B", ERR));
    assert_changes(list, 1, 0, 0);
    /* Added then changed is still added. */
    const bspkit_keyvalue kv[] = {{.key = "classname", .value = "d"}};
    CHECK(bspkit_entlist_add_entity(list, kv, 1, NULL, ERR));
    CHECK(bspkit_entlist_set(list, 3, "x", "1", ERR));
    assert_changes(list, 1, 0, 1);
    /* A changed entity that is removed counts as removed only. */
    CHECK(bspkit_entlist_delete_entity(list, 1, ERR));
    assert_changes(list, 0, 1, 1);

    /* Parsed text has no originals. */
    bspkit_entlist *parsed = NULL;
    CHECK(bspkit_entlist_parse("{\"a\" \"b\"}", 9, &parsed, ERR));
    assert_changes(parsed, 0, 0, 1);
    bspkit_entlist_free(parsed);
    bspkit_entlist_free(list);
}

static void test_replace(void **state)
{
    (void)state;
    bspkit_entlist *list = list_from_text("{\"classname\" \"a\"}{\"classname\" \"b\"}{\"classname\" \"c\"}"
                                          "{\"classname\" \"d\"}");
    /* New text: a kept (moved), b gone, c edited, d kept, e new. */
    bspkit_entlist *from = NULL;
    const char *text = "{\"classname\" \"d\"}{\"classname\" \"c\" \"x\" \"1\"}{\"classname\" \"a\"}"
                       "{\"classname\" \"e\" \"y\" \"2\"}";
    CHECK(bspkit_entlist_parse(text, strlen(text), &from, ERR));
    CHECK(bspkit_entlist_replace(list, from, ERR));
    bspkit_entlist_free(from);
    /* d and a are equal to originals; the two others pair with b and c. */
    assert_changes(list, 2, 0, 0);
    assert_text(list, "{\n\"classname\" \"d\"\n}\n{\n\"classname\" \"c\"\n\"x\" \"1\"\n}\n{\n\"classname\" \"a\"\n}\n"
                      "{\n\"classname\" \"e\"\n\"y\" \"2\"\n}\n");

    /* Fewer entities: the surplus originals count as removed. */
    CHECK(bspkit_entlist_parse("{\"classname\" \"a\"}", 18, &from, ERR));
    CHECK(bspkit_entlist_replace(list, from, ERR));
    bspkit_entlist_free(from);
    assert_changes(list, 0, 3, 0);

    /* Replacing with an empty list. */
    CHECK(bspkit_entlist_new(&from, ERR));
    CHECK(bspkit_entlist_replace(list, from, ERR));
    bspkit_entlist_free(from);
    assert_changes(list, 0, 4, 0);
    assert_int_equal(bspkit_entlist_count(list), 0);
    bspkit_entlist_free(list);
}

/* ---- globs and selectors ------------------------------------------------- */

static void test_glob(void **state)
{
    (void)state;
    static const struct {
        const char *pattern, *text;
        bool sensitive, expect;
    } cases[] = {
        {"info_player_*", "info_player_start", true, true},
        {"info_player_*", "info_player_", true, true},
        {"info_player_*", "info_player", true, false},
        {"*", "", true, true},
        {"", "", true, true},
        {"", "x", true, false},
        {"*_door*", "func_door_rotating", true, true},
        {"*a*b*c", "xxaxxbxxbxc", true, true},
        {"*a*b*c", "xxaxxbxxbxcx", true, false},
        {"light?", "light_spot", true, false},
        {"light_????", "light_spot", true, true},
        {"[a-c]x", "bx", true, true},
        {"[a-c]x", "dx", true, false},
        {"[!a-c]x", "dx", true, true},
        {"[^a-c]x", "ax", true, false},
        {"[]]", "]", true, true},
        {"[a-]", "-", true, true},
        {"[", "[", true, true},
        {"a[b", "a[b", true, true},
        {"\\*", "*", true, true},
        {"\\*", "x", true, false},
        {"models/*.mdl", "models/props/crate.mdl", true, true},
        {"LIGHT", "light", true, false},
        {"LIGHT", "light", false, true},
        {"[A-C]x", "bX", false, true},
        {"[a-c]x", "BX", false, true},
        {"[a-c]x", "BX", true, false},
        {"trailing\\", "trailing\\", true, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bool got = bspkit_glob_match(cases[i].pattern, cases[i].text, cases[i].sensitive);
        if (got != cases[i].expect)
            fail_msg("glob '%s' vs '%s' (%s): got %d", cases[i].pattern, cases[i].text,
                     cases[i].sensitive ? "sensitive" : "folded", got);
    }
}

static bspkit_selector *selector(const char *text, unsigned flags)
{
    bspkit_selector *sel = NULL;
    CHECK(bspkit_selector_parse(text, flags, &sel, ERR));
    return sel;
}

static const char *SELECT_TEXT =
    "{\"classname\" \"worldspawn\"}"
    "{\"classname\" \"info_player_start\" \"origin\" \"0 0 0\"}"
    "{\"classname\" \"info_player_deathmatch\" \"targetname\" \"dm1\"}"
    "{\"classname\" \"light\" \"targetname\" \"Door1\"}"
    "{\"classname\" \"func_door\" \"targetname\" \"door1\" \"OnOpen\" \"a,b,c\" \"OnOpen\" \"relay,Trigger\"}"
    "{\"classname\" \"func_wall\"}";

/* The indices of the entities the selector picks, as a string "1,2". */
static void assert_selects(const bspkit_entlist *list, const char *text, unsigned flags, const char *expect)
{
    bspkit_selector *sel = selector(text, flags);
    char got[64] = "";
    for (size_t i = 0; i < bspkit_entlist_count(list); i++)
        if (bspkit_selector_match(sel, list, i))
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%zu", got[0] ? "," : "", i);
    if (strcmp(got, expect) != 0)
        fail_msg("selector '%s': selected '%s', expected '%s'", text, got, expect);
    bspkit_selector_free(sel);
}

static void test_selectors(void **state)
{
    (void)state;
    bspkit_entlist *list = list_from_text(SELECT_TEXT);
    assert_selects(list, "classname=info_player_*", 0, "1,2");
    assert_selects(list, "classname=light", 0, "3");
    /* Values case-insensitive by default, keys always. */
    assert_selects(list, "targetname=door1", 0, "3,4");
    assert_selects(list, "TargetName=door1", BSPKIT_SELECT_CASE_SENSITIVE, "4");
    assert_selects(list, "CLASSNAME=FUNC_*", 0, "4,5");
    assert_selects(list, "classname=FUNC_*", BSPKIT_SELECT_CASE_SENSITIVE, "");
    /* AND of conditions. */
    assert_selects(list, "classname=light,targetname=door1", 0, "3");
    assert_selects(list, "classname=func_*,targetname=door1", 0, "4");
    assert_selects(list, "classname=light,targetname=dm1", 0, "");
    /* Negation: no pair matches. */
    assert_selects(list, "classname=func_*,targetname!=*", 0, "5");
    assert_selects(list, "classname!=info_*", 0, "0,3,4,5");
    /* Any occurrence of a duplicated key may match. */
    assert_selects(list, "OnOpen=relay\\,*", 0, "4");
    assert_selects(list, "OnOpen=relay*", 0, "4");
    assert_selects(list, "OnOpen=a*,OnOpen=relay*", 0, "4");
    /* An escaped comma belongs to the pattern. */
    assert_selects(list, "onopen=a\\,b\\,c", 0, "4");
    /* Key globs. */
    assert_selects(list, "On*=*", 0, "4");
    assert_selects(list, "origin=*", 0, "1");
    /* A quoted '!' is part of the key. */
    assert_selects(list, "classname\\!=x", 0, "");
    /* '=' in the value. */
    assert_selects(list, "classname=a=b", 0, "");

    /* Errors. */
    static const char *const bad[] = {"", "classname", "=x", "!=x", "classname=a,", ",classname=a", "a=b,,c=d"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bspkit_selector *sel = (bspkit_selector *)&sel;
        memset(&g_err, 0, sizeof g_err);
        assert_int_equal(bspkit_selector_parse(bad[i], 0, &sel, ERR), BSPKIT_ERR_ARGUMENT);
        assert_null(sel);
        assert_int_equal(g_err.code, BSPKIT_ERR_ARGUMENT);
        assert_true(strncmp(g_err.message, "selector: ", 10) == 0);
    }
    bspkit_selector *sel = NULL;
    assert_int_equal(bspkit_selector_parse("classname", 0, &sel, ERR), BSPKIT_ERR_ARGUMENT);
    assert_string_equal(g_err.message, "selector: condition 'classname' has no '=' (KEY=GLOB)");
    assert_int_equal(bspkit_selector_parse("a=b", 0x80, &sel, ERR), BSPKIT_ERR_ARGUMENT);
    bspkit_entlist_free(list);
}

static bool select_pred(void *ctx, const bspkit_keyvalue *pairs, size_t count)
{
    return bspkit_selector_match_pairs(ctx, pairs, count);
}

static void test_delete_if(void **state)
{
    (void)state;
    bspkit_entlist *list = list_from_text(SELECT_TEXT);
    bspkit_selector *sel = selector("classname=info_*", 0);
    size_t removed = 0;
    CHECK(bspkit_entlist_delete_if(list, select_pred, sel, &removed, ERR));
    assert_int_equal(removed, 2);
    assert_int_equal(bspkit_entlist_count(list), 4);
    assert_string_equal(bspkit_entlist_value(list, 1, "classname"), "light");
    assert_changes(list, 0, 2, 0);
    bspkit_selector_free(sel);

    /* Removing everything. */
    sel = selector("classname=*", 0);
    CHECK(bspkit_entlist_delete_if(list, select_pred, sel, &removed, ERR));
    assert_int_equal(removed, 4);
    assert_text(list, "");
    bspkit_selector_free(sel);
    bspkit_entlist_free(list);
}

/* ---- real maps ----------------------------------------------------------- */

/* Maps written by Valve's and id's compilers: parse the entity lump, write it
 * back unchanged and compare. Maps that differ must still parse back to the
 * same pairs. */
static void test_sample_maps(void **state)
{
    (void)state;
    const char *paths[] = {
        BSPKIT_SHARED_MAPS "/barnuri+cs1.6-server/maps/de_dust2.bsp",
        BSPKIT_SHARED_MAPS "/bsp_tool/maps/Team Fortress 2/test2.bsp",
        BSPKIT_SHARED_MAPS "/c0burn+Slipgate/maps/e1m2.bsp",
    };
    size_t checked = 0;
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        bspkit_map *map = NULL;
        if (bspkit_open_file(paths[i], NULL, &map, NULL) != BSPKIT_OK)
            continue;
        const uint8_t *lump = NULL;
        size_t size = 0;
        CHECK(bspkit_lump_bytes(map, 0, &lump, &size, ERR));
        const bspkit_entities *ents = NULL;
        CHECK(bspkit_get_entities(map, &ents, ERR));
        bspkit_entlist *list = NULL;
        CHECK(bspkit_entlist_from_entities(ents, &list, ERR));
        char *text = NULL;
        size_t text_size = 0;
        CHECK(bspkit_entlist_serialize(list, &text, &text_size, ERR));
        if (text_size != size || memcmp(text, lump, size) != 0)
            fail_msg("%s: entity lump not reproduced (%zu bytes, wrote %zu)", paths[i], size, text_size);
        free(text);
        bspkit_entlist_free(list);
        bspkit_close(map);
        checked++;
    }
    if (checked == 0)
        skip();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_serialise_canonical),
        cmocka_unit_test(test_edit_roundtrip),
        cmocka_unit_test(test_pair_ops),
        cmocka_unit_test(test_changes),
        cmocka_unit_test(test_replace),
        cmocka_unit_test(test_glob),
        cmocka_unit_test(test_selectors),
        cmocka_unit_test(test_delete_if),
        cmocka_unit_test(test_sample_maps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
