/* Entity comparison and the Stripper configs made from it. Expected pairings
 * and key changes are written out by hand from the rules in bspkit/diff.h;
 * every config is applied with bspkit_stripper_apply and the result compared
 * with the target list by this file's own comparison. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bspkit/bspkit.h"
#include "bspkit/diff.h"
#include "bspkit/entities_edit.h"

#include "check.h"

static bspkit_entlist *list_from_text(const char *text)
{
    bspkit_entlist *list = NULL;
    CHECK(bspkit_entlist_parse(text, strlen(text), &list, ERR));
    return list;
}

/* Pair indices of an entity sorted by lower-case key, ties kept in order. */
static void key_order(const bspkit_keyvalue *p, size_t n, size_t *idx)
{
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        while (j > 0 && strcasecmp(p[idx[j - 1]].key, p[i].key) > 0) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = i;
    }
}

static bool entity_equal(const bspkit_entlist *x, size_t i, const bspkit_entlist *y, size_t j)
{
    size_t nx, ny;
    const bspkit_keyvalue *px = bspkit_entlist_pairs(x, i, &nx), *py = bspkit_entlist_pairs(y, j, &ny);
    if (nx != ny)
        return false;
    size_t ix[64], iy[64];
    assert_true(nx <= 64);
    key_order(px, nx, ix);
    key_order(py, ny, iy);
    for (size_t k = 0; k < nx; k++)
        if (strcmp(px[ix[k]].key, py[iy[k]].key) || strcmp(px[ix[k]].value, py[iy[k]].value))
            return false;
    return true;
}

/* Same entities as a multiset. */
static bool lists_equal(const bspkit_entlist *x, const bspkit_entlist *y)
{
    size_t n = bspkit_entlist_count(x);
    if (n != bspkit_entlist_count(y))
        return false;
    bool used[64] = {0};
    assert_true(n <= 64);
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < n && (used[j] || !entity_equal(x, i, y, j)))
            j++;
        if (j == n)
            return false;
        used[j] = true;
    }
    return true;
}

/* The config from a to b, applied to a copy of a, must give b. Returns the config text (caller frees). */
static char *roundtrip(const char *ta, const char *tb)
{
    bspkit_entlist *a = list_from_text(ta), *b = list_from_text(tb), *c = list_from_text(ta);
    char *cfg_text = NULL;
    size_t size = 0;
    CHECK(bspkit_diff_stripper(a, b, &cfg_text, &size, ERR));
    assert_int_equal(strlen(cfg_text), size);
    bspkit_stripper *cfg = NULL;
    CHECK(bspkit_stripper_parse(cfg_text, size, &cfg, ERR));
    CHECK(bspkit_stripper_apply(cfg, c, NULL, ERR));
    if (!lists_equal(c, b))
        fail_msg("config does not give B:\n%s", cfg_text);
    bspkit_stripper_free(cfg);
    bspkit_entlist_free(a);
    bspkit_entlist_free(b);
    bspkit_entlist_free(c);
    return cfg_text;
}

static bspkit_diff *diff_texts(const char *ta, const char *tb)
{
    bspkit_entlist *a = list_from_text(ta), *b = list_from_text(tb);
    bspkit_diff *d = NULL;
    CHECK(bspkit_diff_entlists(a, b, &d, ERR));
    bspkit_entlist_free(a);
    bspkit_entlist_free(b);
    return d;
}

static bool is_classname(const char *key) { return strcasecmp(key, "classname") == 0; }

static const char *WORLD = "{\n\"classname\" \"worldspawn\"\n\"skyname\" \"sky_day01_01\"\n}\n";

static void test_equal_lists(void **state)
{
    (void)state;
    /* Key order between different keys is not a difference. */
    const char *a = "{ \"classname\" \"light\" \"origin\" \"0 0 0\" \"_light\" \"255 255 255 200\" }";
    const char *b = "{ \"_light\" \"255 255 255 200\" \"origin\" \"0 0 0\" \"classname\" \"light\" }";
    bspkit_diff *d = diff_texts(a, b);
    assert_int_equal(d->entity_diff_count, 0);
    assert_true(bspkit_diff_is_empty(d));
    assert_false(d->lumps_compared);
    bspkit_diff_free(d);
    free(roundtrip(a, b));
}

static void test_pairing_and_keys(void **state)
{
    (void)state;
    char a[512], b[512];
    snprintf(a, sizeof a,
             "%s{ \"classname\" \"func_door\" \"targetname\" \"door1\" \"speed\" \"100\" \"hammerid\" \"7\" }"
             "{ \"classname\" \"light\" \"origin\" \"1 2 3\" }"
             "{ \"classname\" \"info_target\" \"targetname\" \"gone\" }",
             WORLD);
    /* door1 renamed (still paired by hammerid), speed changed, wait added;
     * the light moved (paired by classname); gone removed; relay added. */
    snprintf(b, sizeof b,
             "%s{ \"classname\" \"func_door\" \"targetname\" \"door2\" \"speed\" \"200\" \"hammerid\" \"7\" "
             "\"wait\" \"4\" }"
             "{ \"classname\" \"light\" \"origin\" \"1 2 4\" }"
             "{ \"classname\" \"logic_relay\" \"targetname\" \"new\" }",
             WORLD);
    bspkit_diff *d = diff_texts(a, b);
    assert_int_equal(d->entity_count_a, 4);
    assert_int_equal(d->entity_count_b, 4);
    assert_int_equal(d->changed, 2);
    assert_int_equal(d->removed, 1);
    assert_int_equal(d->added, 1);
    assert_int_equal(d->entity_diff_count, 4);
    const bspkit_diff_entity *e = &d->entities[0];
    assert_int_equal(e->kind, BSPKIT_DIFF_CHANGED);
    assert_int_equal(e->index_a, 1);
    assert_int_equal(e->index_b, 1);
    assert_int_equal(e->match, BSPKIT_DIFF_MATCH_HAMMERID);
    assert_string_equal(e->id, "7");
    assert_int_equal(e->key_count, 3); /* speed, targetname, wait: by key */
    assert_string_equal(e->keys[0].key, "speed");
    assert_int_equal(e->keys[0].kind, BSPKIT_DIFF_CHANGED);
    assert_string_equal(e->keys[0].old_value, "100");
    assert_string_equal(e->keys[0].new_value, "200");
    assert_string_equal(e->keys[1].key, "targetname");
    assert_string_equal(e->keys[1].new_value, "door2");
    assert_int_equal(e->keys[2].kind, BSPKIT_DIFF_ADDED);
    assert_string_equal(e->keys[2].key, "wait");
    assert_null(e->keys[2].old_value);
    e = &d->entities[1];
    assert_int_equal(e->kind, BSPKIT_DIFF_CHANGED);
    assert_int_equal(e->index_a, 2);
    assert_int_equal(e->match, BSPKIT_DIFF_MATCH_CLASSNAME);
    assert_int_equal(e->key_count, 1);
    assert_string_equal(e->keys[0].new_value, "1 2 4");
    e = &d->entities[2];
    assert_int_equal(e->kind, BSPKIT_DIFF_REMOVED);
    assert_int_equal(e->index_a, 3);
    assert_int_equal(e->index_b, SIZE_MAX);
    assert_string_equal(e->classname, "info_target");
    assert_string_equal(e->id, "gone");
    assert_int_equal(e->pair_count, 2);
    e = &d->entities[3];
    assert_int_equal(e->kind, BSPKIT_DIFF_ADDED);
    assert_int_equal(e->index_b, 3);
    assert_string_equal(e->classname, "logic_relay");
    bspkit_diff_free(d);
    free(roundtrip(a, b));
}

static void test_outputs(void **state)
{
    (void)state;
    const char *a = "{ \"classname\" \"logic_relay\" \"targetname\" \"r\" \"OnTrigger\" \"a,Open,,0,-1\" "
                    "\"OnTrigger\" \"b,Open,,0,-1\" \"OnTrigger\" \"c,Open,,0,-1\" }";
    const char *b = "{ \"classname\" \"logic_relay\" \"targetname\" \"r\" \"OnTrigger\" \"a,Open,,0,-1\" "
                    "\"OnTrigger\" \"c,Open,,0,-1\" \"OnTrigger\" \"d\x1bOpen\x1b\x1b" "0\x1b-1\" }";
    bspkit_diff *d = diff_texts(a, b);
    assert_int_equal(d->changed, 1);
    const bspkit_diff_entity *e = &d->entities[0];
    assert_int_equal(e->match, BSPKIT_DIFF_MATCH_TARGETNAME);
    assert_int_equal(e->key_count, 2);
    assert_int_equal(e->keys[0].kind, BSPKIT_DIFF_REMOVED);
    assert_string_equal(e->keys[0].old_value, "b,Open,,0,-1");
    assert_true(e->keys[0].output);
    assert_int_equal(e->keys[1].kind, BSPKIT_DIFF_ADDED);
    assert_true(e->keys[1].output);
    assert_false(e->reordered);
    bspkit_diff_free(d);
    free(roundtrip(a, b));

    /* The same connections in another order: reordered, no key listed. */
    const char *c = "{ \"classname\" \"logic_relay\" \"targetname\" \"r\" \"OnTrigger\" \"c,Open,,0,-1\" "
                    "\"OnTrigger\" \"a,Open,,0,-1\" \"OnTrigger\" \"b,Open,,0,-1\" }";
    d = diff_texts(a, c);
    assert_int_equal(d->changed, 1);
    assert_int_equal(d->entities[0].key_count, 0);
    assert_true(d->entities[0].reordered);
    bspkit_diff_free(d);
    free(roundtrip(a, c));
}

static void test_duplicates(void **state)
{
    (void)state;
    /* Two identical entities, one changed: no match can tell them apart. */
    const char *a = "{ \"classname\" \"info_target\" \"origin\" \"0 0 0\" }"
                    "{ \"classname\" \"info_target\" \"origin\" \"0 0 0\" }";
    const char *b = "{ \"classname\" \"info_target\" \"origin\" \"0 0 0\" }"
                    "{ \"classname\" \"info_target\" \"origin\" \"0 0 0\" \"spawnflags\" \"1\" }";
    bspkit_diff *d = diff_texts(a, b);
    assert_int_equal(d->changed, 1);
    assert_int_equal(d->entities[0].index_a, 1); /* A's first is equal to B's first and pairs with it */
    bspkit_diff_free(d);
    char *cfg = roundtrip(a, b);
    assert_non_null(strstr(cfg, "filter:"));
    free(cfg);

    /* Removing an entity whose pairs another entity holds too. */
    const char *c = "{ \"classname\" \"light\" \"origin\" \"0 0 0\" }"
                    "{ \"classname\" \"light\" \"origin\" \"0 0 0\" \"targetname\" \"x\" }";
    const char *e = "{ \"classname\" \"light\" \"origin\" \"0 0 0\" \"targetname\" \"x\" }";
    free(roundtrip(c, e));
    /* And the other way round, and a value only its case tells apart. */
    free(roundtrip(e, c));
    const char *f = "{ \"classname\" \"light\" \"targetname\" \"Lamp\" }{ \"classname\" \"light\" \"targetname\" \"lamp\" }";
    const char *g = "{ \"classname\" \"light\" \"targetname\" \"Lamp\" }{ \"classname\" \"light\" \"targetname\" \"LAMP\" }";
    free(roundtrip(f, g));
    /* A value the plugin would read as a regular expression. */
    const char *h = "{ \"classname\" \"point_servercommand\" \"message\" \"/say hi/\" }"
                    "{ \"classname\" \"point_servercommand\" \"message\" \"x\" }";
    const char *i = "{ \"classname\" \"point_servercommand\" \"message\" \"/say bye/\" }"
                    "{ \"classname\" \"point_servercommand\" \"message\" \"x\" }";
    free(roundtrip(h, i));
}

static void test_unsupported(void **state)
{
    (void)state;
    bspkit_entlist *a = list_from_text(WORLD);
    bspkit_entlist *b = list_from_text("{ \"classname\" \"worldspawn\" \"skyname\" \"sky_day01_01\" }"
                                       "{ \"targetname\" \"no_class\" }");
    char *text = (char *)1;
    size_t size = 1;
    assert_int_equal(bspkit_diff_stripper(a, b, &text, &size, ERR), BSPKIT_ERR_UNSUPPORTED);
    assert_null(text);
    assert_non_null(strstr(g_err.message, "classname"));
    bspkit_entlist_free(b);
    b = list_from_text("{ \"classname\" \"worldspawn\" \"skyname\" \"two\nlines\" }");
    assert_int_equal(bspkit_diff_stripper(a, b, &text, &size, ERR), BSPKIT_ERR_UNSUPPORTED);
    assert_non_null(strstr(g_err.message, "line break"));
    /* The comparison itself still works. */
    bspkit_diff *d = NULL;
    CHECK(bspkit_diff_entlists(a, b, &d, ERR));
    assert_int_equal(d->changed, 1);
    bspkit_diff_free(d);
    assert_int_equal(bspkit_diff_entlists(NULL, b, &d, ERR), BSPKIT_ERR_ARGUMENT);
    bspkit_entlist_free(a);
    bspkit_entlist_free(b);
}

/* A small deterministic generator (xorshift), so a failure replays. */
static uint32_t rnd(uint32_t *state)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

/* Entity text from few classes, keys and values, so that duplicates, supersets, case variants,
 * repeated outputs and values the plugin reads as regular expressions all occur. */
static void random_entities(uint32_t *state, char *out, size_t cap, const char *base_text, bool mutate)
{
    static const char *const CLASSES[] = {"light", "Light", "info_target", "logic_relay"};
    static const char *const KEYS[] = {"origin", "Origin", "targetname", "OnTrigger", "spawnflags", "hammerid"};
    static const char *const VALUES[] = {"0 0 0", "x", "X", "/r/", "a,Open,,0,-1", "b,Open,,0,-1", "1", ""};
    size_t n = 0;
    out[0] = '\0';
    bspkit_entlist *base = NULL;
    if (base_text)
        base = list_from_text(base_text);
    size_t count = base ? bspkit_entlist_count(base) : 1 + rnd(state) % 7;
    for (size_t e = 0; e < count; e++) {
        if (mutate && rnd(state) % 5 == 0)
            continue; /* removed */
        n += (size_t)snprintf(out + n, cap - n, "{ ");
        size_t np = 0;
        const bspkit_keyvalue *pairs = base ? bspkit_entlist_pairs(base, e, &np) : NULL;
        if (!base) {
            n += (size_t)snprintf(out + n, cap - n, "\"classname\" \"%s\" ", CLASSES[rnd(state) % 4]);
            np = rnd(state) % 4;
        }
        for (size_t k = 0; k < np; k++) {
            const char *key = base ? pairs[k].key : KEYS[rnd(state) % 6];
            const char *value = base ? pairs[k].value : VALUES[rnd(state) % 8];
            if (mutate && !is_classname(key) && rnd(state) % 4 == 0)
                value = VALUES[rnd(state) % 8];
            if (mutate && !is_classname(key) && rnd(state) % 8 == 0)
                continue;
            n += (size_t)snprintf(out + n, cap - n, "\"%s\" \"%s\" ", key, value);
        }
        if (mutate && rnd(state) % 4 == 0)
            n += (size_t)snprintf(out + n, cap - n, "\"%s\" \"%s\" ", KEYS[rnd(state) % 6], VALUES[rnd(state) % 8]);
        n += (size_t)snprintf(out + n, cap - n, "}\n");
    }
    if (mutate && rnd(state) % 3 == 0)
        n += (size_t)snprintf(out + n, cap - n, "{ \"classname\" \"%s\" \"targetname\" \"%s\" }\n",
                              CLASSES[rnd(state) % 4], VALUES[rnd(state) % 3]);
    assert_true(n < cap);
    bspkit_entlist_free(base);
}

/* Many random pairs of lists: every config must reproduce B, and A against itself is no difference. */
static void test_random_lists(void **state)
{
    (void)state;
    uint32_t seed = 2463534242u;
    char a[4096], b[4096];
    for (int round = 0; round < 400; round++) {
        random_entities(&seed, a, sizeof a, NULL, false);
        random_entities(&seed, b, sizeof b, a, true);
        free(roundtrip(a, b));
        free(roundtrip(b, a));
        bspkit_diff *d = diff_texts(a, a);
        assert_int_equal(d->entity_diff_count, 0);
        bspkit_diff_free(d);
        d = diff_texts(a, b);
        assert_int_equal(d->entity_count_a + d->added, d->entity_count_b + d->removed);
        bspkit_diff_free(d);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equal_lists), cmocka_unit_test(test_pairing_and_keys), cmocka_unit_test(test_outputs),
        cmocka_unit_test(test_duplicates),  cmocka_unit_test(test_unsupported), cmocka_unit_test(test_random_lists),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
