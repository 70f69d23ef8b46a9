/* Stripper:Source configs: parsing, the filter/add/modify semantics of the
 * plugin, regular expressions and errors with line numbers. Expected entity
 * texts are written by hand from the documented semantics. */
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

static const char *MAP =
    "{\n\"classname\" \"worldspawn\"\n\"skyname\" \"sky_day01\"\n}\n"
    "{\n\"classname\" \"info_player_start\"\n\"origin\" \"0 0 64\"\n}\n"
    "{\n\"classname\" \"light\"\n\"targetname\" \"lamp1\"\n\"_light\" \"255 255 255 200\"\n}\n"
    "{\n\"classname\" \"func_door\"\n\"targetname\" \"door1\"\n\"speed\" \"100\"\n"
    "\"OnOpen\" \"relay_a,Trigger,,0,-1\"\n\"OnOpen\" \"lamp1,TurnOn,,0,-1\"\n"
    "\"OnClose\" \"relay_b,Trigger,,0,-1\"\n}\n"
    "{\n\"classname\" \"func_door_rotating\"\n\"targetname\" \"door2\"\n\"speed\" \"50\"\n\"speed\" \"60\"\n}\n"
    "{\n\"classname\" \"logic_relay\"\n\"targetname\" \"relay_a\"\n\"OnTrigger\" \"door1,Close,,5,-1\"\n"
    "\"OnTrigger\" \"door2,Open,,5,-1\"\n}\n";

static bspkit_entlist *map_list(void)
{
    bspkit_entities *ents = NULL;
    CHECK(bspkit_entities_parse(MAP, strlen(MAP), &ents, ERR));
    bspkit_entlist *list = NULL;
    CHECK(bspkit_entlist_from_entities(ents, &list, ERR));
    bspkit_entities_free(ents);
    return list;
}

static bspkit_stripper *parse_cfg(const char *cfg)
{
    bspkit_stripper *s = NULL;
    CHECK(bspkit_stripper_parse(cfg, strlen(cfg), &s, ERR));
    return s;
}

/* Applies `cfg` to MAP; checks the stats and the resulting text. */
static void expect_apply(const char *cfg, size_t removed, size_t added, size_t modified, const char *expected)
{
    bspkit_entlist *list = map_list();
    bspkit_stripper *s = parse_cfg(cfg);
    bspkit_stripper_stats st;
    memset(&st, 0x55, sizeof st);
    CHECK(bspkit_stripper_apply(s, list, &st, ERR));
    char *text = NULL;
    size_t size = 0;
    CHECK(bspkit_entlist_serialize(list, &text, &size, ERR));
    if (strcmp(text, expected) != 0)
        fail_msg("config:\n%s\n--- expected\n%s--- actual\n%s", cfg, expected, text);
    assert_int_equal(size, strlen(expected) + 1);
    assert_int_equal(st.removed, removed);
    assert_int_equal(st.added, added);
    assert_int_equal(st.modified, modified);
    free(text);
    bspkit_stripper_free(s);
    bspkit_entlist_free(list);
}

/* The MAP entities, one string each, to build expected texts from. */
#define E_WORLD "{\n\"classname\" \"worldspawn\"\n\"skyname\" \"sky_day01\"\n}\n"
#define E_START "{\n\"classname\" \"info_player_start\"\n\"origin\" \"0 0 64\"\n}\n"
#define E_LIGHT "{\n\"classname\" \"light\"\n\"targetname\" \"lamp1\"\n\"_light\" \"255 255 255 200\"\n}\n"
#define E_DOOR1                                                                                    \
    "{\n\"classname\" \"func_door\"\n\"targetname\" \"door1\"\n\"speed\" \"100\"\n"                \
    "\"OnOpen\" \"relay_a,Trigger,,0,-1\"\n\"OnOpen\" \"lamp1,TurnOn,,0,-1\"\n"                      \
    "\"OnClose\" \"relay_b,Trigger,,0,-1\"\n}\n"
#define E_DOOR2                                                                                    \
    "{\n\"classname\" \"func_door_rotating\"\n\"targetname\" \"door2\"\n\"speed\" \"50\"\n\"speed\" \"60\"\n}\n"
#define E_RELAY                                                                                    \
    "{\n\"classname\" \"logic_relay\"\n\"targetname\" \"relay_a\"\n\"OnTrigger\" \"door1,Close,,5,-1\"\n" \
    "\"OnTrigger\" \"door2,Open,,5,-1\"\n}\n"

/* ---- filter ---------------------------------------------------------------- */

static void test_filter(void **state)
{
    (void)state;
    /* One keyword, several blocks, each on its own; values compare
     * case-insensitively, keys too. */
    expect_apply("filter:\n{\n\t\"classname\" \"LIGHT\"\n}\n{\n\t\"ClassName\" \"info_player_start\"\n}\n", 2, 0, 0,
                 E_WORLD E_DOOR1 E_DOOR2 E_RELAY);
    /* remove: is an alias; all pairs of a block must hold. */
    expect_apply("remove:\n{\n\"classname\" \"func_door\"\n\"targetname\" \"door2\"\n}\n", 0, 0, 0,
                 E_WORLD E_START E_LIGHT E_DOOR1 E_DOOR2 E_RELAY);
    expect_apply("remove:\n{\n\"classname\" \"func_door_rotating\"\n\"targetname\" \"door2\"\n}\n", 1, 0, 0,
                 E_WORLD E_START E_LIGHT E_DOOR1 E_RELAY);
    /* Blocks before any keyword filter, as in the plugin. */
    expect_apply("{ \"targetname\" \"relay_a\" }", 1, 0, 0, E_WORLD E_START E_LIGHT E_DOOR1 E_DOOR2);
    /* Any occurrence of a duplicated key satisfies a pair. */
    expect_apply("filter:\n{\n\"OnOpen\" \"lamp1,TurnOn,,0,-1\"\n}\n", 1, 0, 0,
                 E_WORLD E_START E_LIGHT E_DOOR2 E_RELAY);
    /* Two matching outputs do not stand in for a missing classname (the
     * plugin's match counter would remove this door). */
    expect_apply("filter:\n{\n\"classname\" \"light\"\n\"OnOpen\" \"/Trigger|TurnOn/\"\n}\n", 0, 0, 0,
                 E_WORLD E_START E_LIGHT E_DOOR1 E_DOOR2 E_RELAY);
    /* A pair naming a key the entity lacks never matches. */
    expect_apply("filter:\n{\n\"classname\" \"light\"\n\"spawnflags\" \"/.*/\"\n}\n", 0, 0, 0,
                 E_WORLD E_START E_LIGHT E_DOOR1 E_DOOR2 E_RELAY);
}

/* ---- regular expressions ------------------------------------------------------ */

static void test_regex(void **state)
{
    (void)state;
    /* Unanchored, case-insensitive. */
    expect_apply("filter:\n{ \"classname\" \"/DOOR/\" }\n", 2, 0, 0, E_WORLD E_START E_LIGHT E_RELAY);
    /* Anchors. */
    expect_apply("filter:\n{ \"classname\" \"/^func_door$/\" }\n", 1, 0, 0,
                 E_WORLD E_START E_LIGHT E_DOOR2 E_RELAY);
    /* PCRE shorthands are translated: \d, \w, \s and bracket members. */
    expect_apply("filter:\n{ \"targetname\" \"/^door\\d$/\" }\n", 2, 0, 0, E_WORLD E_START E_LIGHT E_RELAY);
    expect_apply("filter:\n{ \"origin\" \"/^\\d+\\s\\d+\\s\\d+$/\" }\n", 1, 0, 0,
                 E_WORLD E_LIGHT E_DOOR1 E_DOOR2 E_RELAY);
    expect_apply("filter:\n{ \"targetname\" \"/^[\\w]+_a$/\" }\n", 1, 0, 0,
                 E_WORLD E_START E_LIGHT E_DOOR1 E_DOOR2);
    expect_apply("filter:\n{ \"_light\" \"/^[\\d\\s]+$/\" }\n", 1, 0, 0,
                 E_WORLD E_START E_DOOR1 E_DOOR2 E_RELAY);
    /* \W and a quoted dot; alternation. */
    expect_apply("filter:\n{ \"classname\" \"/^info\\Wplayer|^logic\\.relay/\" }\n", 0, 0, 0,
                 E_WORLD E_START E_LIGHT E_DOOR1 E_DOOR2 E_RELAY);
    expect_apply("filter:\n{ \"classname\" \"/^info_player|^logic.relay/\" }\n", 2, 0, 0,
                 E_WORLD E_LIGHT E_DOOR1 E_DOOR2);
    /* "/x" is not a regex: a literal value starting with a slash. */
    expect_apply("filter:\n{ \"classname\" \"/light\" }\n", 0, 0, 0,
                 E_WORLD E_START E_LIGHT E_DOOR1 E_DOOR2 E_RELAY);
    /* Lazy quantifiers are accepted. */
    expect_apply("filter:\n{ \"targetname\" \"/^l.*?1$/\" }\n", 1, 0, 0, E_WORLD E_START E_DOOR1 E_DOOR2 E_RELAY);
    /* The rest of PCRE, as in the plugin: word boundaries, lookahead,
     * back-references, hex escapes and inline options. */
    expect_apply("filter:\n{ \"targetname\" \"/\\bdoor\\d\\b/\" }\n", 2, 0, 0, E_WORLD E_START E_LIGHT E_RELAY);
    expect_apply("filter:\n{ \"classname\" \"/^func_door(?!_)/\" }\n", 1, 0, 0,
                 E_WORLD E_START E_LIGHT E_DOOR2 E_RELAY);
    expect_apply("filter:\n{ \"classname\" \"/^(.)\\1/\" }\n", 0, 0, 0,
                 E_WORLD E_START E_LIGHT E_DOOR1 E_DOOR2 E_RELAY);
    expect_apply("filter:\n{ \"classname\" \"/^\\x6Cight$/\" }\n", 1, 0, 0,
                 E_WORLD E_START E_DOOR1 E_DOOR2 E_RELAY);
    expect_apply("filter:\n{ \"classname\" \"/(?-i)^LIGHT$/\" }\n", 0, 0, 0,
                 E_WORLD E_START E_LIGHT E_DOOR1 E_DOOR2 E_RELAY);
}

/* Which single-character values a /regex/ on key "v" selects. */
static void expect_set(const char *regex, const char *expect)
{
    static const char *const values[] = {"]", "^", "-", "b", "\\", "a"};
    bspkit_entlist *list = NULL;
    CHECK(bspkit_entlist_new(&list, ERR));
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        const bspkit_keyvalue kv[] = {{.key = "v", .value = values[i]}};
        CHECK(bspkit_entlist_add_entity(list, kv, 1, NULL, ERR));
    }
    char cfg[128];
    snprintf(cfg, sizeof cfg, "filter:\n{ \"v\" \"/%s/\" }\n", regex);
    bspkit_stripper *s = parse_cfg(cfg);
    CHECK(bspkit_stripper_apply(s, list, NULL, ERR));
    /* The removed ones are the selected ones. */
    char got[16] = "";
    for (size_t i = 0, k = 0; i < sizeof values / sizeof values[0]; i++) {
        const char *v = k < bspkit_entlist_count(list) ? bspkit_entlist_value(list, k, "v") : NULL;
        if (v && strcmp(v, values[i]) == 0)
            k++;
        else
            strncat(got, values[i], sizeof got - strlen(got) - 1);
    }
    if (strcmp(got, expect) != 0)
        fail_msg("regex /%s/ selected '%s', expected '%s'", regex, got, expect);
    bspkit_stripper_free(s);
    bspkit_entlist_free(list);
}

/* PCRE bracket expressions whose members POSIX wants in another order or
 * spelling. */
static void test_regex_sets(void **state)
{
    (void)state;
    expect_set("^[\\]]$", "]");
    expect_set("^[\\^]$", "^");
    expect_set("^[-^]$", "^-");
    expect_set("^[\\^-]$", "^-");
    expect_set("^[a\\-c]$", "-a");
    expect_set("^[\\\\]$", "\\");
    expect_set("^[^\\]^]$", "-b\\a");
    expect_set("^[]a]$", "]a");
    expect_set("^[[:alpha:]]$", "ba");
    expect_set("^[\\w]$", "ba");
    expect_set("^\\^$", "^");
    expect_set("^\\\\$", "\\");
    expect_set("^[\\]\\\\]$", "]\\");
}

/* ---- add ------------------------------------------------------------------- */

static void test_add(void **state)
{
    (void)state;
    /* Several blocks, pairs in order, duplicates kept, values literal. */
    expect_apply("add:\n{\n\"classname\" \"info_target\"\n\"targetname\" \"/t1/\"\n}\n"
                 "{\n\"classname\" \"logic_auto\"\n\"OnMapSpawn\" \"a,b,,0,-1\"\n\"OnMapSpawn\" \"c,d,,0,-1\"\n}\n",
                 0, 2, 0,
                 E_WORLD E_START E_LIGHT E_DOOR1 E_DOOR2 E_RELAY
                 "{\n\"classname\" \"info_target\"\n\"targetname\" \"/t1/\"\n}\n"
                 "{\n\"classname\" \"logic_auto\"\n\"OnMapSpawn\" \"a,b,,0,-1\"\n\"OnMapSpawn\" \"c,d,,0,-1\"\n}\n");
    /* File order: an entity added first can be filtered by a later block,
     * and a filter before the add does not see it. */
    expect_apply("filter:\n{ \"classname\" \"info_target\" }\nadd:\n{ \"classname\" \"info_target\" }\n"
                 "{ \"classname\" \"info_null\" }\nfilter:\n{ \"classname\" \"info_null\" }\n",
                 1, 2, 0,
                 E_WORLD E_START E_LIGHT E_DOOR1 E_DOOR2 E_RELAY "{\n\"classname\" \"info_target\"\n}\n");
}

/* ---- modify ------------------------------------------------------------------ */

static void test_modify(void **state)
{
    (void)state;
    /* replace changes every occurrence of an existing key and adds none;
     * insert appends (even a key that exists). */
    expect_apply("modify:\n{\n\tmatch:\n\t{\n\t\t\"classname\" \"/^func_door/\"\n\t}\n"
                 "\treplace:\n\t{\n\t\t\"speed\" \"200\"\n\t\t\"wait\" \"4\"\n\t}\n"
                 "\tinsert:\n\t{\n\t\t\"speed\" \"300\"\n\t}\n}\n",
                 0, 0, 2,
                 E_WORLD E_START E_LIGHT
                 "{\n\"classname\" \"func_door\"\n\"targetname\" \"door1\"\n\"speed\" \"200\"\n"
                 "\"OnOpen\" \"relay_a,Trigger,,0,-1\"\n\"OnOpen\" \"lamp1,TurnOn,,0,-1\"\n"
                 "\"OnClose\" \"relay_b,Trigger,,0,-1\"\n\"speed\" \"300\"\n}\n"
                 "{\n\"classname\" \"func_door_rotating\"\n\"targetname\" \"door2\"\n\"speed\" \"200\"\n"
                 "\"speed\" \"200\"\n\"speed\" \"300\"\n}\n" E_RELAY);
    /* delete matches key and value (literal, case-insensitive, or regex);
     * it runs before replace, so a deleted key is not replaced. Parts may
     * come in any order. */
    expect_apply("modify:\n{\n\treplace:\n\t{\n\t\t\"speed\" \"1\"\n\t}\n"
                 "\tmatch:\n\t{\n\t\t\"targetname\" \"door1\"\n\t}\n"
                 "\tdelete:\n\t{\n\t\t\"OnOpen\" \"/^relay_/\"\n\t\t\"SPEED\" \"100\"\n"
                 "\t\t\"OnClose\" \"RELAY_B,trigger,,0,-1\"\n\t}\n}\n",
                 0, 0, 1,
                 E_WORLD E_START E_LIGHT
                 "{\n\"classname\" \"func_door\"\n\"targetname\" \"door1\"\n\"OnOpen\" \"lamp1,TurnOn,,0,-1\"\n}\n"
                 E_DOOR2 E_RELAY);
    /* delete only removes pairs whose value matches too. */
    expect_apply("modify:\n{\nmatch:\n{\n\"classname\" \"func_door_rotating\"\n}\n"
                 "delete:\n{\n\"speed\" \"60\"\n}\n}\n",
                 0, 0, 1,
                 E_WORLD E_START E_LIGHT E_DOOR1
                 "{\n\"classname\" \"func_door_rotating\"\n\"targetname\" \"door2\"\n\"speed\" \"50\"\n}\n" E_RELAY);
    /* Several groups after one keyword; the first replace pair for a key
     * wins; a replace that changes nothing does not count as modified. */
    expect_apply("modify:\n{ match: { \"targetname\" \"relay_a\" } replace: { \"targetname\" \"relay_a\" } }\n"
                 "{ match: { \"classname\" \"light\" } replace: { \"_light\" \"0 0 0 0\" \"_light\" \"1 1 1 1\" } }\n",
                 0, 0, 1,
                 E_WORLD E_START
                 "{\n\"classname\" \"light\"\n\"targetname\" \"lamp1\"\n\"_light\" \"0 0 0 0\"\n}\n" E_DOOR1 E_DOOR2
                     E_RELAY);
    /* Values of replace and insert are literal even when written /x/. */
    expect_apply("modify:\n{ match: { \"classname\" \"info_player_start\" } insert: { \"angles\" \"/0 90 0/\" } }\n", 0,
                 0, 1,
                 E_WORLD "{\n\"classname\" \"info_player_start\"\n\"origin\" \"0 0 64\"\n\"angles\" \"/0 90 0/\"\n}\n"
                     E_LIGHT E_DOOR1 E_DOOR2 E_RELAY);
    /* Matching happens before any change of the same block. */
    expect_apply("modify:\n{ match: { \"classname\" \"light\" \"targetname\" \"lamp1\" } "
                 "delete: { \"targetname\" \"lamp1\" } insert: { \"targetname\" \"lamp2\" } }\n",
                 0, 0, 1,
                 E_WORLD E_START
                 "{\n\"classname\" \"light\"\n\"_light\" \"255 255 255 200\"\n\"targetname\" \"lamp2\"\n}\n"
                     E_DOOR1 E_DOOR2 E_RELAY);
}

/* ---- lexical ----------------------------------------------------------------- */

static void test_comments(void **state)
{
    (void)state;
    /* ';', '#' and '//' comments, on their own line or after a pair, CRLF,
     * keywords in any case, a ';' inside a quoted value. */
    expect_apply("; header comment\r\n# another\r\n// and another\r\nFILTER: ; trailing\r\n{\r\n"
                 "\t\"classname\" \"light\" // why\r\n}\r\n"
                 "Add:\r\n{\r\n\"classname\" \"point_servercommand\" # no\r\n\"targetname\" \"a;b#c//d\"\r\n}\r\n",
                 1, 1, 0,
                 E_WORLD E_START E_DOOR1 E_DOOR2 E_RELAY
                 "{\n\"classname\" \"point_servercommand\"\n\"targetname\" \"a;b#c//d\"\n}\n");
    /* Empty values are allowed; a config of only comments does nothing. */
    bspkit_stripper *s = parse_cfg(";nothing\n\n   \n# here\n");
    assert_int_equal(bspkit_stripper_block_count(s), 0);
    bspkit_stripper_free(s);
    s = parse_cfg("add:\n{ \"classname\" \"info_target\" \"targetname\" \"\" }\nfilter:{\"a\" \"b\"}{\"c\" \"d\"}");
    assert_int_equal(bspkit_stripper_block_count(s), 3);
    bspkit_stripper_free(s);
}

/* ---- errors ------------------------------------------------------------------ */

static void expect_error(const char *cfg, const char *message)
{
    bspkit_stripper *s = (bspkit_stripper *)&s;
    memset(&g_err, 0, sizeof g_err);
    assert_int_equal(bspkit_stripper_parse(cfg, strlen(cfg), &s, ERR), BSPKIT_ERR_ARGUMENT);
    assert_null(s);
    assert_int_equal(g_err.code, BSPKIT_ERR_ARGUMENT);
    if (strcmp(g_err.message, message) != 0)
        fail_msg("config:\n%s\nmessage '%s', expected '%s'", cfg, g_err.message, message);
    assert_int_equal(bspkit_stripper_parse(cfg, strlen(cfg), &s, NULL), BSPKIT_ERR_ARGUMENT);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("filter:\n{\n\"classname\" \"light\n}\n",
                 "stripper: line 3: unterminated string (strings end on the line they start)");
    expect_error("add:\n\"classname\" \"x\"\n}\n", "stripper: line 2: key/value pair outside a block (missing '{'?)");
    expect_error("; x\nfliter:\n{ \"a\" \"b\" }\n",
                 "stripper: line 2: unknown keyword 'fliter:' (expected filter:, remove:, add: or modify:)");
    expect_error("match:\n{ \"a\" \"b\" }\n", "stripper: line 1: 'match:' outside a modify block");
    expect_error("filter:\n\n{\n}\n", "stripper: line 3: empty filter block (it would remove every entity)");
    expect_error("add:\n{\n\"targetname\" \"x\"\n}\n", "stripper: line 2: add block without a \"classname\" pair");
    expect_error("modify:\n{\n  replace: { \"a\" \"b\" }\n}\n",
                 "stripper: line 2: modify block without match: pairs (it would change every entity)");
    expect_error("filter:\n{\n\"a\" \"b\"\n", "stripper: line 2: '{' is never closed");
    expect_error("modify:\n{\nmatch:\n{ \"a\" \"b\" }\n", "stripper: line 2: modify block '{' is never closed");
    expect_error("filter:\n{ \"a\" \"b\" }\n}\n", "stripper: line 3: '}' without a matching '{'");
    expect_error("filter:\n{ \"a\" \"/(unclosed/\" }\n",
                 "stripper: line 2: bad regular expression \"/(unclosed/\": missing closing parenthesis (at offset 9)");
    expect_error("filter:\n{ \"a\" \"/x{2,1}/\" }\n",
                 "stripper: line 2: bad regular expression \"/x{2,1}/\": numbers out of order in {} quantifier "
                 "(at offset 5)");
    expect_error("modify:\n{\nmatch: { \"a\" \"b\" }\nmatch: { \"c\" \"d\" }\n}\n",
                 "stripper: line 4: second 'match:' in one modify block");
    expect_error("filter:\n{\n\"a\"\n}\n", "stripper: line 3: key \"a\" has no quoted value");
    expect_error("filter:\n{\n\"a\" \"b\"\n{\n", "stripper: line 4: '{' inside a block of key/value pairs");
    expect_error("filter:\n{\n\"a\" \"b\"\nadd:\n}\n",
                 "stripper: line 4: 'add:' inside a block of key/value pairs (missing '}'?)");
    expect_error("modify:\n{\n\"a\" \"b\"\n}\n", "stripper: line 3: key/value pair in a modify block outside match:, "
                                                 "replace:, delete: or insert:");
    expect_error("modify:\n{\nmatch:\n\"a\" \"b\"\n}\n", "stripper: line 3: 'match:' must be followed by '{'");
    expect_error("modify:\n{\nfoo: { }\n}\n",
                 "stripper: line 3: 'foo:' in a modify block (expected match:, replace:, delete: or insert:)");
    /* The byte offset of the error is in lump_offset. */
    bspkit_stripper *s = NULL;
    assert_int_equal(bspkit_stripper_parse("add:\n}", 6, &s, ERR), BSPKIT_ERR_ARGUMENT);
    assert_int_equal(g_err.lump_offset, 5);
    /* A NUL ends the text. */
    s = NULL;
    CHECK(bspkit_stripper_parse("filter: { \"a\" \"b\" }\0}}}", 23, &s, ERR));
    assert_int_equal(bspkit_stripper_block_count(s), 1);
    bspkit_stripper_free(s);
}

/* Applying keeps the list's change tracking accurate. */
/* A pattern that backtracks exponentially on a value stops at the match
 * limit with an error naming its line and the key, instead of stalling. */
static void test_regex_bounds(void **state)
{
    (void)state;
    expect_error("filter:\n{\n\"classname\" \"/a++++++++++++++++++++++++/\"\n}\n",
                 "stripper: line 3: bad regular expression \"/a++++++++++++++++++++++++/\": quantifier does not "
                 "follow a repeatable item (at offset 3)");
    /* Deep nesting and large counts cost nothing at compile time with PCRE. */
    bspkit_stripper_free(parse_cfg("filter:\n{\n\"classname\" \"/((((((((((a))))))))))/\"\n}\n"));
    bspkit_stripper_free(parse_cfg("filter:\n{\n\"classname\" \"/(a{40}){40}/\"\n}\n"));

    bspkit_entlist *list = NULL;
    CHECK(bspkit_entlist_new(&list, ERR));
    char value[64];
    memset(value, 'a', 40);
    strcpy(value + 40, "b");
    const bspkit_keyvalue kv[] = {{.key = "targetname", .value = value}};
    CHECK(bspkit_entlist_add_entity(list, kv, 1, NULL, ERR));
    bspkit_stripper *s = parse_cfg("; backtracking\nfilter:\n{ \"targetname\" \"/^(a+)+$/\" }\n");
    assert_int_equal(bspkit_stripper_apply(s, list, NULL, ERR), BSPKIT_ERR_LIMIT);
    assert_string_equal(g_err.message, "stripper: line 3: regular expression \"/^(a+)+$/\" stopped on a value of "
                                       "key \"targetname\": match limit exceeded");
    assert_int_equal(bspkit_entlist_count(list), 1);
    bspkit_stripper_free(s);
    /* The same in a modify block's match and delete parts. */
    s = parse_cfg("modify:\n{\nmatch: { \"targetname\" \"/^(a+)+$/\" }\ninsert: { \"x\" \"1\" }\n}\n");
    assert_int_equal(bspkit_stripper_apply(s, list, NULL, ERR), BSPKIT_ERR_LIMIT);
    bspkit_stripper_free(s);
    s = parse_cfg("modify:\n{\nmatch: { \"targetname\" \"/a/\" }\ndelete: { \"targetname\" \"/^(a+)+$/\" }\n}\n");
    assert_int_equal(bspkit_stripper_apply(s, list, NULL, ERR), BSPKIT_ERR_LIMIT);
    bspkit_stripper_free(s);
    bspkit_entlist_free(list);
}

static void test_changes(void **state)
{
    (void)state;
    bspkit_entlist *list = map_list();
    bspkit_stripper *s = parse_cfg("filter: { \"classname\" \"light\" }\n"
                                   "add: { \"classname\" \"info_target\" }\n"
                                   "modify: { match: { \"classname\" \"/door/\" } insert: { \"wait\" \"-1\" } }\n"
                                   "modify: { match: { \"targetname\" \"door1\" } replace: { \"speed\" \"5\" } }\n");
    bspkit_stripper_stats st;
    CHECK(bspkit_stripper_apply(s, list, &st, ERR));
    assert_int_equal(st.removed, 1);
    assert_int_equal(st.added, 1);
    assert_int_equal(st.modified, 3); /* door1 twice, door2 once */
    bspkit_entlist_changes c;
    bspkit_entlist_get_changes(list, &c);
    assert_int_equal(c.changed, 2);
    assert_int_equal(c.removed, 1);
    assert_int_equal(c.added, 1);
    /* Applying NULL stats is fine; bad arguments are refused. */
    CHECK(bspkit_stripper_apply(s, list, NULL, ERR));
    assert_int_equal(bspkit_stripper_apply(NULL, list, NULL, ERR), BSPKIT_ERR_ARGUMENT);
    bspkit_stripper_free(s);
    bspkit_entlist_free(list);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filter),   cmocka_unit_test(test_regex),    cmocka_unit_test(test_regex_sets),
        cmocka_unit_test(test_add),
        cmocka_unit_test(test_modify),   cmocka_unit_test(test_comments), cmocka_unit_test(test_errors),
        cmocka_unit_test(test_changes),  cmocka_unit_test(test_regex_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
