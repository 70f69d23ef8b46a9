#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bspkit/bspkit.h"
#include "core/cpu.h"
#include "core/entities.h"

static bspkit_entities *parse_ok(const char *text, size_t size)
{
    bspkit_entities *ents = NULL;
    bspkit_error err;
    memset(&err, 0, sizeof err);
    bspkit_result r = bspkit_entities_parse(text, size, &ents, &err);
    if (r != BSPKIT_OK)
        fail_msg("parse failed: %s", err.message);
    assert_non_null(ents);
    return ents;
}

static bspkit_entities *parse_str(const char *text)
{
    return parse_ok(text, strlen(text));
}

static const bspkit_keyvalue *pair(const bspkit_entities *ents, size_t ent, size_t i)
{
    assert_true(ent < ents->count);
    assert_true(i < ents->entities[ent].num_pairs);
    return &ents->pairs[ents->entities[ent].first_pair + i];
}

static void assert_pair(const bspkit_entities *ents, size_t ent, size_t i, const char *key, const char *value)
{
    const bspkit_keyvalue *kv = pair(ents, ent, i);
    assert_string_equal(kv->key, key);
    assert_string_equal(kv->value, value);
    assert_int_equal(kv->key_length, strlen(key));
    assert_int_equal(kv->value_length, strlen(value));
}

/* Parses `text`, expecting failure; checks every error field and the message. */
static void expect_error(const char *text, size_t size, int64_t pos, const char *message)
{
    bspkit_entities *ents = (bspkit_entities *)&ents; /* must be reset to NULL */
    bspkit_error err;
    memset(&err, 0x55, sizeof err);
    assert_int_equal(bspkit_entities_parse(text, size, &ents, &err), BSPKIT_ERR_ENTITIES);
    assert_null(ents);
    assert_int_equal(err.code, BSPKIT_ERR_ENTITIES);
    assert_int_equal(err.lump, -1);
    assert_int_equal(err.offset, -1);
    assert_int_equal(err.lump_offset, pos);
    assert_string_equal(err.message, message);
    /* A NULL error pointer is allowed and gives the same result. */
    assert_int_equal(bspkit_entities_parse(text, size, &ents, NULL), BSPKIT_ERR_ENTITIES);
}

/* Byte offsets below are counted from the literals: "{\n" is bytes 0-1, etc. */
static void test_order_and_duplicates(void **state)
{
    (void)state;
    const char *text = "{\n"                                     /* 0-1 */
                       "\"classname\" \"worldspawn\"\n"          /* 2-26 */
                       "\"wad\" \"\\quiver\\valve\\halflife.wad\"\n" /* 27-61 */
                       "}\n"                                     /* 62-63 */
                       "{\n"                                     /* 64-65, line 5 */
                       "\"classname\" \"logic_relay\"\n"
                       "\"OnTrigger\" \"door,Open,,0,-1\"\n"
                       "\"targetname\" \"relay\"\n"
                       "\"OnTrigger\" \"door,Close,,5,-1\"\n"
                       "}\n";
    bspkit_entities *ents = parse_str(text);
    assert_int_equal(ents->count, 2);
    assert_int_equal(ents->pair_count, 6);
    assert_int_equal(ents->trailing_bytes, 0);

    assert_int_equal(ents->entities[0].first_pair, 0);
    assert_int_equal(ents->entities[0].num_pairs, 2);
    assert_int_equal(ents->entities[0].line, 1);
    assert_int_equal(ents->entities[0].offset, 0);
    assert_int_equal(ents->entities[1].first_pair, 2);
    assert_int_equal(ents->entities[1].num_pairs, 4);
    assert_int_equal(ents->entities[1].line, 5);
    assert_int_equal(ents->entities[1].offset, 64);

    assert_pair(ents, 0, 0, "classname", "worldspawn");
    assert_pair(ents, 0, 1, "wad", "\\quiver\\valve\\halflife.wad");
    assert_pair(ents, 1, 0, "classname", "logic_relay");
    assert_pair(ents, 1, 1, "OnTrigger", "door,Open,,0,-1");
    assert_pair(ents, 1, 2, "targetname", "relay");
    assert_pair(ents, 1, 3, "OnTrigger", "door,Close,,5,-1");
    bspkit_entities_free(ents);
}

static void test_entity_value(void **state)
{
    (void)state;
    bspkit_entities *ents = parse_str("{ \"classname\" \"a\" \"OnTrigger\" \"first\" \"OnTrigger\" \"second\" }"
                                      "{ \"classname\" \"b\" }");
    assert_string_equal(bspkit_entity_value(ents, 0, "OnTrigger"), "first");
    assert_string_equal(bspkit_entity_value(ents, 0, "classname"), "a");
    assert_string_equal(bspkit_entity_value(ents, 1, "classname"), "b");
    assert_null(bspkit_entity_value(ents, 1, "OnTrigger"));  /* key of another entity */
    assert_null(bspkit_entity_value(ents, 0, "ClassName"));  /* case-sensitive */
    assert_null(bspkit_entity_value(ents, 0, "class"));      /* no prefix match */
    assert_null(bspkit_entity_value(ents, 2, "classname"));  /* index out of range */
    assert_null(bspkit_entity_value(ents, 0, NULL));
    assert_null(bspkit_entity_value(NULL, 0, "classname"));
    bspkit_entities_free(ents);
}

static void test_braces_and_newlines_in_values(void **state)
{
    (void)state;
    const char *text = "{ \"message\" \"a { b } c\" \"m\" \"x\ny\nz\" \"k\" \"}\" }\n" /* line 1-3 */
                       "{ \"after\" \"{\" }";                                    /* line 4 */
    bspkit_entities *ents = parse_str(text);
    assert_int_equal(ents->count, 2);
    assert_pair(ents, 0, 0, "message", "a { b } c");
    assert_pair(ents, 0, 1, "m", "x\ny\nz");
    assert_pair(ents, 0, 2, "k", "}");
    assert_pair(ents, 1, 0, "after", "{");
    /* Newlines inside the value still count as lines. */
    assert_int_equal(ents->entities[1].line, 4);
    assert_int_equal(ents->entities[1].offset, 46);
    bspkit_entities_free(ents);
}

static void test_backslashes_literal(void **state)
{
    (void)state;
    /* A trailing backslash does not escape the closing quote. */
    bspkit_entities *ents = parse_str("{ \"dir\" \"C:\\maps\\\" \"wad\" \"\\\\server\\share\\x.wad;\\n\" }");
    assert_int_equal(ents->count, 1);
    assert_int_equal(ents->pair_count, 2);
    assert_pair(ents, 0, 0, "dir", "C:\\maps\\");
    assert_pair(ents, 0, 1, "wad", "\\\\server\\share\\x.wad;\\n");
    bspkit_entities_free(ents);
}

static void test_unquoted_tokens(void **state)
{
    (void)state;
    bspkit_entities *ents = parse_str("{ classname info_player_start origin \"0 0 64\" angle 90 }\n"
                                      "{classname light}\n"
                                      "{\"target\"t1 key\"value\" url http://example.com/x }");
    assert_int_equal(ents->count, 3);
    assert_int_equal(ents->entities[0].num_pairs, 3);
    assert_pair(ents, 0, 0, "classname", "info_player_start");
    assert_pair(ents, 0, 1, "origin", "0 0 64");
    assert_pair(ents, 0, 2, "angle", "90");
    assert_int_equal(ents->entities[1].num_pairs, 1);
    assert_pair(ents, 1, 0, "classname", "light");
    assert_int_equal(ents->entities[2].num_pairs, 3);
    assert_pair(ents, 2, 0, "target", "t1");
    assert_pair(ents, 2, 1, "key", "value");
    /* "//" inside a token is not a comment. */
    assert_pair(ents, 2, 2, "url", "http://example.com/x");
    bspkit_entities_free(ents);
}

/* Thousands of pairs, the first half quoted and the rest not: the pair
 * array sized from the quotes has to grow past that for the second half,
 * and every pair comes back in order. */
static void test_many_pairs_mixed_quoting(void **state)
{
    (void)state;
    enum { PAIRS = 3000 };
    size_t cap = (size_t)PAIRS * 32 + 16, n = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    n += (size_t)snprintf(text + n, cap - n, "{\n");
    for (int i = 0; i < PAIRS; i++)
        n += (size_t)snprintf(text + n, cap - n, i < PAIRS / 2 ? "\"k%d\" \"v%d\"\n" : "k%d v%d\n", i, i);
    n += (size_t)snprintf(text + n, cap - n, "}\n");
    bspkit_entities *ents = parse_str(text);
    assert_int_equal(ents->count, 1);
    assert_int_equal(ents->pair_count, PAIRS);
    char key[16], value[16];
    for (int i = 0; i < PAIRS; i++) {
        snprintf(key, sizeof key, "k%d", i);
        snprintf(value, sizeof value, "v%d", i);
        assert_pair(ents, 0, (size_t)i, key, value);
    }
    bspkit_entities_free(ents);
    free(text);
}

static void test_comments(void **state)
{
    (void)state;
    const char *text = "// header { \"not\" \"parsed\" }\n" /* 0-28, line 1 */
                       "{ // opening\n"                   /* brace at 29, line 2 */
                       "\"a\" // between key and value\n"
                       "\"b\" // after value\n"
                       "\"c\" \"// kept\"\n"
                       "}\n"
                       "// footer with no newline";
    bspkit_entities *ents = parse_str(text);
    assert_int_equal(ents->count, 1);
    assert_int_equal(ents->entities[0].line, 2);
    assert_int_equal(ents->entities[0].offset, 29);
    assert_int_equal(ents->pair_count, 2);
    assert_pair(ents, 0, 0, "a", "b");
    assert_pair(ents, 0, 1, "c", "// kept");
    assert_int_equal(ents->trailing_bytes, 0);
    bspkit_entities_free(ents);
}

static void test_crlf(void **state)
{
    (void)state;
    const char *text = "{\r\n\"a\" \"b\"\r\n}\r\n"  /* 0-14 */
                       "{\r\n\"c\" \"two\r\nlines\"\r\n}\r\n";
    bspkit_entities *ents = parse_str(text);
    assert_int_equal(ents->count, 2);
    assert_pair(ents, 0, 0, "a", "b");
    assert_pair(ents, 1, 0, "c", "two\r\nlines");
    assert_int_equal(ents->entities[1].line, 4);
    assert_int_equal(ents->entities[1].offset, 15);
    assert_int_equal(ents->trailing_bytes, 0);
    bspkit_entities_free(ents);
}

static void test_non_ascii(void **state)
{
    (void)state;
    const char text[] = "{ \"message\" \"caf\xc3\xa9 \xff\x80\" name \xe9t\xe9 }";
    bspkit_entities *ents = parse_ok(text, sizeof text - 1);
    assert_int_equal(ents->count, 1);
    assert_pair(ents, 0, 0, "message", "caf\xc3\xa9 \xff\x80");
    assert_int_equal(pair(ents, 0, 0)->value_length, 8);
    assert_pair(ents, 0, 1, "name", "\xe9t\xe9");
    bspkit_entities_free(ents);
}

static void test_empty_strings_and_blocks(void **state)
{
    (void)state;
    bspkit_entities *ents = parse_str("{}{ \"\" \"\" }{ \"k\" \"\" }");
    assert_int_equal(ents->count, 3);
    assert_int_equal(ents->entities[0].num_pairs, 0);
    assert_int_equal(ents->entities[1].num_pairs, 1);
    assert_pair(ents, 1, 0, "", "");
    assert_pair(ents, 2, 0, "k", "");
    assert_string_equal(bspkit_entity_value(ents, 2, "k"), "");
    bspkit_entities_free(ents);
}

/* Strings are copies: the input may change or go away after parsing. */
static void test_strings_are_copies(void **state)
{
    (void)state;
    char text[] = "{ \"classname\" \"worldspawn\" }";
    bspkit_entities *ents = parse_ok(text, strlen(text));
    memset(text, 'X', strlen(text));
    assert_pair(ents, 0, 0, "classname", "worldspawn");
    bspkit_entities_free(ents);
}

static void test_nul_terminates(void **state)
{
    (void)state;
    /* Everything after the NUL, even an unterminated string, is ignored. */
    const char text[] = "{ \"a\" \"b\" }\n\0{ garbage \"unterminated";
    bspkit_entities *ents = parse_ok(text, sizeof text - 1);
    assert_int_equal(ents->count, 1);
    assert_int_equal(ents->trailing_bytes, 0);
    assert_pair(ents, 0, 0, "a", "b");
    bspkit_entities_free(ents);

    /* A NUL inside a quoted string ends the text, leaving the string open. */
    const char cut[] = "{ \"a\" \"b\0c\" }";
    expect_error(cut, sizeof cut - 1, 6, "entities: line 1, byte 6: unterminated quoted string");
}

static void test_trailing_junk(void **state)
{
    (void)state;
    const char *text = "{\n"             /* 0-1 */
                       "\"a\" \"b\"\n"   /* 2-9 */
                       "}\n"             /* 10-11 */
                       "JUNK } x\n  \n"; /* J at 12; non-blank: JUNK, }, x = 6 */
    bspkit_entities *ents = parse_str(text);
    assert_int_equal(ents->count, 1);
    assert_pair(ents, 0, 0, "a", "b");
    assert_int_equal(ents->trailing_offset, 12);
    assert_int_equal(ents->trailing_bytes, 6);
    bspkit_entities_free(ents);

    /* Nothing after the junk is parsed, not even a well-formed block. */
    ents = parse_str("{ }\n} { \"a\" \"b\" }");
    assert_int_equal(ents->count, 1);
    assert_int_equal(ents->pair_count, 0);
    assert_int_equal(ents->trailing_offset, 4);
    assert_int_equal(ents->trailing_bytes, 9); /* } { "a" "b" } */
    bspkit_entities_free(ents);

    /* Junk that looks like an open string is still junk, not an error. */
    ents = parse_str("{ } \"abc");
    assert_int_equal(ents->count, 1);
    assert_int_equal(ents->trailing_offset, 4);
    assert_int_equal(ents->trailing_bytes, 4);
    bspkit_entities_free(ents);

    /* Binary junk up to the end of the lump. */
    const char bin[] = "{ }\x01\x7f\x80\xff";
    ents = parse_ok(bin, sizeof bin - 1);
    assert_int_equal(ents->count, 1);
    assert_int_equal(ents->trailing_offset, 4);
    assert_int_equal(ents->trailing_bytes, 3); /* 0x01 is blank */
    bspkit_entities_free(ents);

    /* Blanks and comments after the last block are not junk. */
    ents = parse_str("{ }\r\n\t // done\n  ");
    assert_int_equal(ents->count, 1);
    assert_int_equal(ents->trailing_bytes, 0);
    bspkit_entities_free(ents);
}

/* Values of every length up to 70 bytes, with a newline at every position
 * (or none), each followed by an entity whose line number counts them: the
 * strings are copied in blocks of sixteen bytes where the machine allows,
 * so each length and newline position meets a block edge somewhere. */
static void test_long_values_and_newlines(void **state)
{
    (void)state;
    char value[80], text[256];
    for (int len = 0; len <= 70; len++) {
        for (int nl = -1; nl < len; nl++) {
            for (int i = 0; i < len; i++)
                value[i] = (char)('a' + (i * 7 + len) % 26);
            if (nl >= 0)
                value[nl] = '\n';
            value[len] = '\0';
            int n = snprintf(text, sizeof text, "{ \"k\" \"%s\" }\n{ \"x\" \"y\" }", value);
            bspkit_entities *ents = parse_ok(text, (size_t)n);
            assert_int_equal(ents->count, 2);
            assert_pair(ents, 0, 0, "k", value);
            assert_pair(ents, 1, 0, "x", "y");
            assert_int_equal(ents->entities[1].line, nl >= 0 ? 3 : 2);
            assert_int_equal(ents->entities[1].offset, (int64_t)(11 + len)); /* "{ \"k\" \"" VALUE "\" }\n" */
            bspkit_entities_free(ents);
        }
    }
    /* unterminated after a long run: the error still names the opening quote's line */
    const char *bad = "{\n\"k\" \"0123456789abcdef0123456789abcdef0123456789\n";
    expect_error(bad, strlen(bad), 6, "entities: line 2, byte 6: unterminated quoted string");
}

static void test_error_unterminated_string(void **state)
{
    (void)state;
    /* "{\n" 0-1, "\"classname\"" 2-12, space 13, opening quote 14 on line 2. */
    const char *text = "{\n\"classname\" \"worldspawn\n}\n";
    expect_error(text, strlen(text), 14, "entities: line 2, byte 14: unterminated quoted string");
    /* Unterminated key. */
    text = "{ \"a\" \"b\" }\n{\n\n\"key";
    expect_error(text, strlen(text), 15, "entities: line 4, byte 15: unterminated quoted string");
}

static void test_error_unterminated_block(void **state)
{
    (void)state;
    /* First block is 0-10, newlines at 11 and 12, second brace at 13 on line 3. */
    const char *text = "{ \"a\" \"b\" }\n\n{\n\"c\" \"d\"\n";
    expect_error(text, strlen(text), 13, "entities: line 3, byte 13: unterminated block");
    expect_error("{", 1, 0, "entities: line 1, byte 0: unterminated block");
}

static void test_error_key_without_value(void **state)
{
    (void)state;
    /* "{\n" 0-1, "\"a\" \"b\"\n" 2-9, "\"lonely\"" at 10 on line 3. */
    const char *text = "{\n\"a\" \"b\"\n\"lonely\"\n}\n";
    expect_error(text, strlen(text), 10, "entities: line 3, byte 10: key without a value");
    /* Unquoted key at the end of the text: 'k' at 10. */
    text = "{ \"a\" \"b\" key";
    expect_error(text, strlen(text), 10, "entities: line 1, byte 10: key without a value");
}

static void test_error_stray_close(void **state)
{
    (void)state;
    const char *text = "\n  }\n{ }";
    expect_error(text, strlen(text), 3, "entities: line 2, byte 3: stray '}'");
}

static void test_error_text_before_block(void **state)
{
    (void)state;
    /* "// c\n" is 0-4; the token starts at 5 on line 2. */
    const char *text = "// c\nclassname worldspawn\n{ }";
    expect_error(text, strlen(text), 5, "entities: line 2, byte 5: text before the first '{'");
    text = "\"a\" \"b\"";
    expect_error(text, strlen(text), 0, "entities: line 1, byte 0: text before the first '{'");
}

static void test_error_nested_open(void **state)
{
    (void)state;
    /* "{\n" 0-1, "\"a\" \"b\"\n" 2-9, inner brace at 10 on line 3. */
    const char *text = "{\n\"a\" \"b\"\n{\n\"c\" \"d\"\n}\n";
    expect_error(text, strlen(text), 10, "entities: line 3, byte 10: '{' inside a block");
    /* As a value: brace at 6. */
    text = "{ \"a\" { }";
    expect_error(text, strlen(text), 6, "entities: line 1, byte 6: '{' inside a block");
}

/* ---- lenient parsing: damaged text read as the engines read it ---------- */

static bspkit_entities *parse_lenient(const char *text)
{
    bspkit_entities *ents = NULL;
    bspkit_error err;
    memset(&err, 0, sizeof err);
    if (bspkit_entities_parse_ex(text, strlen(text), BSPKIT_ENTITIES_LENIENT, &ents, &err) != BSPKIT_OK)
        fail_msg("lenient parse failed: %s", err.message);
    return ents;
}

static void expect_warning(const bspkit_entities *ents, size_t i, uint32_t line, const char *needle)
{
    assert_true(i < ents->warning_count);
    assert_int_equal(ents->warnings[i].line, line);
    if (!strstr(ents->warnings[i].message, needle))
        fail_msg("warning \"%s\" lacks \"%s\"", ents->warnings[i].message, needle);
}

static void test_lenient_stray_quote_shifts_pairs(void **state)
{
    (void)state;
    /* A quote inside a value: the tokenizer sees message / "say " / hi / " now",
     * so the engine loads two odd pairs and goes on. Both modes agree. */
    const char *text = "{\n\"classname\" \"worldspawn\"\n\"message\" \"say \"hi\" now\"\n}\n";
    bspkit_entities *ents = parse_lenient(text);
    assert_int_equal(ents->count, 1);
    assert_int_equal(ents->warning_count, 0);
    assert_string_equal(bspkit_entity_value(ents, 0, "message"), "say ");
    assert_string_equal(bspkit_entity_value(ents, 0, "hi"), " now");
    bspkit_entities_free(ents);
    bspkit_entities_free(parse_str(text));
}

static void test_lenient_key_without_value(void **state)
{
    (void)state;
    const char *text = "{\n\"a\" \"1\"\n\"b\"\n}\n{\n\"c\" \"3\"\n}\n";
    bspkit_entities *ents = NULL;
    bspkit_error err;
    assert_int_equal(bspkit_entities_parse(text, strlen(text), &ents, &err), BSPKIT_ERR_ENTITIES);
    ents = parse_lenient(text);
    assert_int_equal(ents->count, 2);
    assert_int_equal(ents->entities[0].num_pairs, 1);
    assert_string_equal(bspkit_entity_value(ents, 0, "a"), "1");
    assert_null(bspkit_entity_value(ents, 0, "b"));
    assert_string_equal(bspkit_entity_value(ents, 1, "c"), "3");
    assert_int_equal(ents->warning_count, 1);
    expect_warning(ents, 0, 3, "key without a value");
    bspkit_entities_free(ents);
}

static void test_lenient_missing_close(void **state)
{
    (void)state;
    /* The first block lost its '}': it ends where the next one opens (line 3). */
    const char *text = "{\n\"a\" \"1\"\n{\n\"b\" \"2\"\n}\n";
    bspkit_entities *ents = parse_lenient(text);
    assert_int_equal(ents->count, 2);
    assert_string_equal(bspkit_entity_value(ents, 0, "a"), "1");
    assert_string_equal(bspkit_entity_value(ents, 1, "b"), "2");
    assert_int_equal(ents->entities[1].line, 3);
    assert_int_equal(ents->warning_count, 1);
    expect_warning(ents, 0, 3, "'{' inside a block");
    bspkit_entities_free(ents);
}

static void test_lenient_unterminated_quote(void **state)
{
    (void)state;
    const char *text = "{\n\"a\" \"1\"\n}\n{\n\"b\" \"2\n";
    bspkit_entities *ents = parse_lenient(text);
    assert_int_equal(ents->count, 2);
    assert_string_equal(bspkit_entity_value(ents, 1, "b"), "2\n");
    assert_int_equal(ents->warning_count, 2);
    expect_warning(ents, 0, 5, "closing quote");
    expect_warning(ents, 1, 6, "closing '}'");
    bspkit_entities_free(ents);
}

static void test_lenient_text_before_block(void **state)
{
    (void)state;
    const char *text = "junk\n} more\n{\n\"a\" \"1\"\n}\n";
    bspkit_entities *ents = parse_lenient(text);
    assert_int_equal(ents->count, 1);
    assert_int_equal(ents->entities[0].line, 3);
    assert_int_equal(ents->warning_count, 1);
    expect_warning(ents, 0, 1, "text before the first '{'");
    bspkit_entities_free(ents);
}

static void test_empty_input(void **state)
{
    (void)state;
    bspkit_entities_free(NULL);

    const char *inputs[] = {"", " \n\t\r\n ", "// only a comment\n// and another"};
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        bspkit_entities *ents = parse_str(inputs[i]);
        assert_int_equal(ents->count, 0);
        assert_int_equal(ents->pair_count, 0);
        assert_int_equal(ents->trailing_bytes, 0);
        assert_null(bspkit_entity_value(ents, 0, "classname"));
        bspkit_entities_free(ents);
    }
    const char nuls[] = "\0\0\0{ junk";
    bspkit_entities *ents = parse_ok(nuls, sizeof nuls - 1);
    assert_int_equal(ents->count, 0);
    bspkit_entities_free(ents);

    ents = parse_ok(NULL, 0);
    assert_int_equal(ents->count, 0);
    bspkit_entities_free(ents);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    bspkit_error err;
    memset(&err, 0x55, sizeof err);
    assert_int_equal(bspkit_entities_parse("{}", 2, NULL, &err), BSPKIT_ERR_ARGUMENT);
    assert_int_equal(err.code, BSPKIT_ERR_ARGUMENT);
    assert_int_equal(err.lump, -1);
    assert_int_equal(err.offset, -1);
    assert_int_equal(err.lump_offset, -1);
    bspkit_entities *ents = (bspkit_entities *)&ents;
    assert_int_equal(bspkit_entities_parse(NULL, 5, &ents, NULL), BSPKIT_ERR_ARGUMENT);
    assert_null(ents);
}

static void test_large_input(void **state)
{
    (void)state;
    enum { N = 100000 };
    const size_t cap = (size_t)N * 128;
    char *text = malloc(cap);
    uint64_t *offsets = malloc(N * sizeof *offsets);
    assert_non_null(text);
    assert_non_null(offsets);
    size_t len = 0;
    for (int i = 0; i < N; i++) {
        offsets[i] = len;
        int n = snprintf(text + len, cap - len,
                         "{\n\"classname\" \"info_node\"\n\"origin\" \"%d 0 0\"\n"
                         "\"OnTrigger\" \"a\"\n\"OnTrigger\" \"b\"\n}\n",
                         i);
        assert_true(n > 0 && (size_t)n < cap - len);
        len += (size_t)n;
    }
    bspkit_entities *ents = parse_ok(text, len);
    free(text); /* the result must not point into the input */
    assert_int_equal(ents->count, N);
    assert_int_equal(ents->pair_count, (size_t)N * 4);
    assert_int_equal(ents->trailing_bytes, 0);
    for (int i = 0; i < N; i++) {
        /* Six lines per entity. */
        assert_int_equal(ents->entities[i].line, 1 + 6 * (uint32_t)i);
        assert_int_equal(ents->entities[i].offset, offsets[i]);
        assert_int_equal(ents->entities[i].first_pair, (size_t)i * 4);
        assert_int_equal(ents->entities[i].num_pairs, 4);
    }
    const int spot[] = {0, 1, 4242, N - 1};
    for (size_t s = 0; s < sizeof spot / sizeof spot[0]; s++) {
        char want[32];
        snprintf(want, sizeof want, "%d 0 0", spot[s]);
        assert_string_equal(bspkit_entity_value(ents, (size_t)spot[s], "origin"), want);
        assert_string_equal(bspkit_entity_value(ents, (size_t)spot[s], "OnTrigger"), "a");
        assert_pair(ents, (size_t)spot[s], 3, "OnTrigger", "b");
    }
    free(offsets);
    bspkit_entities_free(ents);
}

/* ---- the one-step path for `"key" "value"` lines against the general one ---- */

static uint32_t next_rand(uint32_t *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 8;
}

/* Random text near the one-step path's edges: quoted pairs whose closing
 * quote falls on either side of the 32-byte window, blanks of every kind
 * (or none) between key and value, newlines, braces and quotes where they
 * end or break a line, comments, unquoted tokens, and texts that end close
 * to the 64 bytes the path needs. Sometimes damaged. */
static size_t make_text(uint32_t *seed, char *out, size_t cap)
{
    /* Mostly blanks; the last three put a token or a brace between key and value. */
    static const char *const blanks[] = {" ", "", "\t", "  ", "\r", " \t ", "\n", " // c\n", "x", "}", "{"};
    static const char filler[] = "abcdefghij{}klmnop qrstuvwxyz0123456789_-*/.";
    size_t o = 0;
    int blocks = 1 + (int)(next_rand(seed) % 6);
    for (int b = 0; b < blocks && o + 400 < cap; b++) {
        out[o++] = '{';
        out[o++] = next_rand(seed) % 2 ? '\n' : ' ';
        int pairs = (int)(next_rand(seed) % 8);
        for (int k = 0; k < pairs && o + 200 < cap; k++) {
            for (int side = 0; side < 2; side++) {
                if (next_rand(seed) % 16 == 0) { /* unquoted */
                    int n = 1 + (int)(next_rand(seed) % 6);
                    for (int i = 0; i < n; i++)
                        out[o++] = (char)('a' + next_rand(seed) % 26);
                } else {
                    out[o++] = '"';
                    int n = (int)(next_rand(seed) % (next_rand(seed) % 3 ? 16 : 40));
                    for (int i = 0; i < n; i++) {
                        uint32_t r = next_rand(seed) % 64;
                        out[o++] = r == 0 ? '\n' : r == 1 ? '\t' : filler[r % (sizeof filler - 1)];
                    }
                    if (next_rand(seed) % 64 != 0) /* else a quote left open */
                        out[o++] = '"';
                }
                uint32_t pick = next_rand(seed) % 8;
                if (pick == 0)
                    pick = 8 + next_rand(seed) % 3;
                const char *blank = blanks[pick];
                if (side == 1)
                    blank = next_rand(seed) % 4 ? "\n" : blank;
                memcpy(out + o, blank, strlen(blank));
                o += strlen(blank);
            }
        }
        if (next_rand(seed) % 32 != 0) /* else a block left open */
            out[o++] = '}';
        out[o++] = '\n';
    }
    return o;
}

static void parse_both(const char *whole, size_t size, unsigned flags)
{
    /* A buffer of exactly the text, so that a read past it is caught under
     * the address sanitizer. */
    char *text = malloc(size ? size : 1);
    assert_non_null(text);
    memcpy(text, whole, size);
    bspkit_entities *ref = NULL, *got = NULL;
    bspkit_error ref_err, got_err;
    memset(&ref_err, 0, sizeof ref_err);
    memset(&got_err, 0, sizeof got_err);
    bk_entities_allow_fast_pairs(false);
    bspkit_result ref_r = bspkit_entities_parse_ex(text, size, flags, &ref, &ref_err);
    bk_entities_allow_fast_pairs(true);
    bspkit_result got_r = bspkit_entities_parse_ex(text, size, flags, &got, &got_err);
    assert_int_equal(got_r, ref_r);
    if (ref_r != BSPKIT_OK) {
        assert_int_equal(got_err.lump_offset, ref_err.lump_offset);
        assert_string_equal(got_err.message, ref_err.message);
        free(text);
        return;
    }
    assert_int_equal(got->count, ref->count);
    assert_int_equal(got->pair_count, ref->pair_count);
    assert_int_equal(got->warning_count, ref->warning_count);
    assert_int_equal(got->trailing_offset, ref->trailing_offset);
    assert_int_equal(got->trailing_bytes, ref->trailing_bytes);
    for (size_t i = 0; i < ref->count; i++) {
        assert_int_equal(got->entities[i].first_pair, ref->entities[i].first_pair);
        assert_int_equal(got->entities[i].num_pairs, ref->entities[i].num_pairs);
        assert_int_equal(got->entities[i].line, ref->entities[i].line);
        assert_int_equal(got->entities[i].offset, ref->entities[i].offset);
    }
    for (size_t i = 0; i < ref->pair_count; i++) {
        const bspkit_keyvalue *a = &ref->pairs[i], *b = &got->pairs[i];
        assert_int_equal(b->key_length, a->key_length);
        assert_int_equal(b->value_length, a->value_length);
        assert_memory_equal(b->key, a->key, a->key_length + 1);
        assert_memory_equal(b->value, a->value, a->value_length + 1);
    }
    for (size_t i = 0; i < ref->warning_count; i++) {
        assert_int_equal(got->warnings[i].line, ref->warnings[i].line);
        assert_int_equal(got->warnings[i].offset, ref->warnings[i].offset);
        assert_string_equal(got->warnings[i].message, ref->warnings[i].message);
    }
    bspkit_entities_free(ref);
    bspkit_entities_free(got);
    free(text);
}

typedef struct plain_gen {
    uint32_t *seed;
    char *out;
    size_t o;
    size_t defect_at; /* SIZE_MAX once placed, or for none */
} plain_gen;

static void put(plain_gen *g, const char *s, size_t n)
{
    memcpy(g->out + g->o, s, n);
    g->o += n;
}

static void put_blank(plain_gen *g)
{
    static const char *const blanks[] = {" ", "\n", "\t", "\r\n", "", "  \n\t"};
    const char *b = blanks[next_rand(g->seed) % 6];
    put(g, b, strlen(b));
}

/* The defect, when the text has reached its place; true when it was put.
 * `sometimes`: only half of the times it could be. */
static bool put_defect(plain_gen *g, bool sometimes)
{
    static const char *const defects[] = {"x", "// c\n", "}", "{", "\"", "\0", "y", "\x7f", "\x80"};
    if (g->o < g->defect_at || (sometimes && next_rand(g->seed) % 2))
        return false;
    const char *d = defects[next_rand(g->seed) % 9];
    put(g, d, d[0] ? strlen(d) : 1);
    g->defect_at = SIZE_MAX;
    return true;
}

/* Text in the shape nearly every entity lump has (quoted pairs in blocks,
 * blanks between), which the library reads in one pass over 64-byte
 * pieces: strings of 0-150 bytes that cross pieces and hold braces,
 * newlines, 'y', DEL, "//" and bytes >= 0x80; now and then more than a
 * thousand quotes. With `defect`, one change that breaks the shape at a
 * random place (before a string or a brace, or in place of a brace): the
 * general reader must then decide. */
static size_t make_plain_text(uint32_t *seed, char *out, size_t cap, bool defect)
{
    static const char inner[] = "abcxyz{}\n/\x7f\x80\xff 019_";
    plain_gen g = {seed, out, 0, defect ? next_rand(seed) % 1200 : SIZE_MAX};
    int blocks = (int)(next_rand(seed) % (next_rand(seed) % 8 ? 6 : 60));
    for (int b = 0; b < blocks && g.o + 2000 < cap; b++) {
        put_blank(&g);
        if (!(put_defect(&g, true) && next_rand(seed) % 2))
            put(&g, "{", 1);
        int pairs = (int)(next_rand(seed) % 9);
        for (int k = 0; k < 2 * pairs; k++) {
            put_blank(&g);
            put_defect(&g, false);
            put(&g, "\"", 1);
            int n = (int)(next_rand(seed) % (next_rand(seed) % 4 ? 20 : 150));
            for (int i = 0; i < n; i++)
                out[g.o++] = inner[next_rand(seed) % (sizeof inner - 1)];
            put(&g, "\"", 1);
        }
        put_blank(&g);
        if (!(put_defect(&g, true) && next_rand(seed) % 2))
            put(&g, "}", 1);
    }
    if (next_rand(seed) % 2)
        put(&g, "\n", 1);
    return g.o;
}

static void test_plain_text_in_one_pass_matches_general_path(void **state)
{
    (void)state;
    enum { CAP = 1 << 17 };
    char *text = malloc(CAP);
    assert_non_null(text);
    uint32_t seed = 2026;
    size_t in_place = 0;
    for (int trial = 0; trial < 3000; trial++) {
        bool defect = trial % 2 == 0;
        size_t n = make_plain_text(&seed, text, CAP, defect);
        for (int avx2 = 0; avx2 < 2; avx2++) {
            bk_cpu_allow_avx2(avx2 == 1);
            parse_both(text, n, 0);
            parse_both(text, n, BSPKIT_ENTITIES_LENIENT);
            if (defect)
                continue;
            /* Read in one pass, the strings stay where the text has them:
             * a value starts its key's length, two quotes and the blanks
             * between after the key, where the token reader packs it right
             * after the key's NUL. So this tells that the one-pass reader
             * ran. */
            bspkit_entities *ents = parse_ok(text, n);
            for (size_t i = 0; i < ents->pair_count; i++) {
                const bspkit_keyvalue *kv = &ents->pairs[i];
                assert_true(kv->value >= kv->key + kv->key_length + 2);
                assert_int_equal(kv->key[kv->key_length], '\0');
                assert_int_equal(kv->value[kv->value_length], '\0');
            }
            in_place += ents->pair_count > 0;
            bspkit_entities_free(ents);
        }
        bk_cpu_allow_avx2(true);
    }
    /* Most texts without a defect have pairs, read both ways. */
    assert_true(in_place > 2000);
    bk_cpu_allow_avx2(true);
    free(text);
}

/* Lines counted over long runs of newlines, between blocks and inside
 * strings: more than a byte counter holds. */
static void test_plain_text_lines_after_long_runs(void **state)
{
    (void)state;
    enum { RUN = 70000 };
    char *text = malloc(3 * RUN + 64);
    assert_non_null(text);
    size_t o = 0;
    memset(text + o, '\n', RUN);
    o += RUN;
    memcpy(text + o, "{\"a\" \"", 6);
    o += 6;
    memset(text + o, '\n', RUN);
    o += RUN;
    memcpy(text + o, "\"}", 2);
    o += 2;
    memset(text + o, '\n', RUN);
    o += RUN;
    memcpy(text + o, "{\"b\" \"c\"}", 9);
    o += 9;
    bspkit_entities *ents = parse_ok(text, o);
    assert_int_equal(ents->count, 2);
    assert_int_equal(ents->entities[0].line, RUN + 1);
    assert_int_equal(ents->entities[1].line, 3 * RUN + 1);
    assert_true(ents->pairs[0].value >= ents->pairs[0].key + 3); /* read in one pass */
    bspkit_entities_free(ents);
    for (int avx2 = 0; avx2 < 2; avx2++) {
        bk_cpu_allow_avx2(avx2 == 1);
        parse_both(text, o, 0);
    }
    bk_cpu_allow_avx2(true);
    free(text);
}

static void test_one_step_pairs_match_general_path(void **state)
{
    (void)state;
    enum { CAP = 8192 };
    char *text = malloc(CAP);
    assert_non_null(text);
    uint32_t seed = 77;
    for (int trial = 0; trial < 3000; trial++) {
        size_t n = make_text(&seed, text, CAP);
        /* Whole texts, and texts cut short so that they end near the
         * one-step path's 64 bytes. */
        size_t cut = trial % 4 == 0 ? next_rand(&seed) % (n + 1) : n;
        parse_both(text, cut, 0);
        parse_both(text, cut, BSPKIT_ENTITIES_LENIENT);
    }
    bk_entities_allow_fast_pairs(true);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_and_duplicates),
        cmocka_unit_test(test_entity_value),
        cmocka_unit_test(test_braces_and_newlines_in_values),
        cmocka_unit_test(test_backslashes_literal),
        cmocka_unit_test(test_unquoted_tokens),
        cmocka_unit_test(test_many_pairs_mixed_quoting),
        cmocka_unit_test(test_comments),
        cmocka_unit_test(test_crlf),
        cmocka_unit_test(test_non_ascii),
        cmocka_unit_test(test_empty_strings_and_blocks),
        cmocka_unit_test(test_strings_are_copies),
        cmocka_unit_test(test_nul_terminates),
        cmocka_unit_test(test_trailing_junk),
        cmocka_unit_test(test_long_values_and_newlines),
        cmocka_unit_test(test_error_unterminated_string),
        cmocka_unit_test(test_error_unterminated_block),
        cmocka_unit_test(test_error_key_without_value),
        cmocka_unit_test(test_error_stray_close),
        cmocka_unit_test(test_error_text_before_block),
        cmocka_unit_test(test_error_nested_open),
        cmocka_unit_test(test_lenient_stray_quote_shifts_pairs),
        cmocka_unit_test(test_lenient_key_without_value),
        cmocka_unit_test(test_lenient_missing_close),
        cmocka_unit_test(test_lenient_unterminated_quote),
        cmocka_unit_test(test_lenient_text_before_block),
        cmocka_unit_test(test_empty_input),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_large_input),
        cmocka_unit_test(test_one_step_pairs_match_general_path),
        cmocka_unit_test(test_plain_text_in_one_pass_matches_general_path),
        cmocka_unit_test(test_plain_text_lines_after_long_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
