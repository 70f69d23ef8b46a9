/* Fuzz target: entity text parsing, checking the documented shape of the
 * result on every input, and that the parser's fast paths (plain text in
 * one pass, SSE2 or AVX2 by the input's length; `"key" "value"` lines in
 * one step) give exactly what its general path gives. */
#include "exercise.h"

#include "core/cpu.h"
#include "core/entities.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_entities(const char *text, size_t size, const bspkit_entities *ents)
{
    const char *end = memchr(text, '\0', size);
    size_t parsed = end != NULL ? (size_t)(end - text) : size; /* parsing stops at a NUL */
    size_t pairs_seen = 0;
    for (size_t i = 0; i < ents->count; i++) {
        const bspkit_entity *ent = &ents->entities[i];
        if (ent->first_pair > ents->pair_count || ent->num_pairs > ents->pair_count - ent->first_pair)
            exercise_fail("bspkit_entities_parse", "entity pair range outside the pair array");
        if (ent->offset >= parsed || text[ent->offset] != '{' || ent->line == 0)
            exercise_fail("bspkit_entities_parse", "entity position does not point at its brace");
        pairs_seen += ent->num_pairs;
        for (size_t k = ent->first_pair; k < ent->first_pair + ent->num_pairs; k++) {
            const bspkit_keyvalue *kv = &ents->pairs[k];
            if (kv->key == NULL || kv->value == NULL || strlen(kv->key) != kv->key_length ||
                strlen(kv->value) != kv->value_length)
                exercise_fail("bspkit_entities_parse", "pair lengths disagree with the strings");
            if (kv->key_length > parsed || kv->value_length > parsed)
                exercise_fail("bspkit_entities_parse", "pair longer than the text");
        }
        /* The first value for a key present in the entity must be found. */
        if (ent->num_pairs > 0) {
            const bspkit_keyvalue *kv = &ents->pairs[ent->first_pair];
            if (bspkit_entity_value(ents, i, kv->key) == NULL)
                exercise_fail("bspkit_entity_value", "key of the entity not found");
        }
    }
    if (pairs_seen > ents->pair_count)
        exercise_fail("bspkit_entities_parse", "entities claim more pairs than exist");
    if (bspkit_entity_value(ents, ents->count, "classname") != NULL)
        exercise_fail("bspkit_entity_value", "value found past the last entity");
    if (ents->trailing_bytes > 0 &&
        (ents->trailing_offset >= parsed || ents->trailing_bytes > parsed - ents->trailing_offset))
        exercise_fail("bspkit_entities_parse", "trailing bytes outside the text");
}

static bool same_text(const char *a, uint32_t na, const char *b, uint32_t nb)
{
    return na == nb && memcmp(a, b, na + 1u) == 0;
}

/* The same text parsed without the one-step path must give the same result. */
static void check_same_without_fast_pairs(const char *text, size_t size, bspkit_result r, const bspkit_error *err,
                                          const bspkit_entities *ents)
{
    bspkit_entities *ref = NULL;
    bspkit_error ref_err;
    memset(&ref_err, 0, sizeof ref_err);
    bk_entities_allow_fast_pairs(false);
    bspkit_result ref_r = bspkit_entities_parse(text, size, &ref, &ref_err);
    bk_entities_allow_fast_pairs(true);
    if (ref_r != r)
        exercise_fail("bspkit_entities_parse", "one-step pairs change the result");
    if (r != BSPKIT_OK) {
        if (ref_err.lump_offset != err->lump_offset || strcmp(ref_err.message, err->message) != 0)
            exercise_fail("bspkit_entities_parse", "one-step pairs change the error");
        return;
    }
    bool same = ref->count == ents->count && ref->pair_count == ents->pair_count &&
                ref->warning_count == ents->warning_count && ref->trailing_bytes == ents->trailing_bytes &&
                ref->trailing_offset == ents->trailing_offset;
    for (size_t i = 0; same && i < ref->count; i++)
        same = ref->entities[i].first_pair == ents->entities[i].first_pair &&
               ref->entities[i].num_pairs == ents->entities[i].num_pairs &&
               ref->entities[i].line == ents->entities[i].line && ref->entities[i].offset == ents->entities[i].offset;
    for (size_t i = 0; same && i < ref->pair_count; i++)
        same = same_text(ref->pairs[i].key, ref->pairs[i].key_length, ents->pairs[i].key, ents->pairs[i].key_length) &&
               same_text(ref->pairs[i].value, ref->pairs[i].value_length, ents->pairs[i].value,
                         ents->pairs[i].value_length);
    for (size_t i = 0; same && i < ref->warning_count; i++)
        same = ref->warnings[i].line == ents->warnings[i].line && ref->warnings[i].offset == ents->warnings[i].offset &&
               strcmp(ref->warnings[i].message, ents->warnings[i].message) == 0;
    bspkit_entities_free(ref);
    if (!same)
        exercise_fail("bspkit_entities_parse", "one-step pairs change the entities");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    bspkit_entities *ents = NULL;
    bspkit_error err;
    memset(&err, 0, sizeof err);
    bk_cpu_allow_avx2(size % 2 == 0);
    bspkit_result r = bspkit_entities_parse(text, size, &ents, &err);
    bk_cpu_allow_avx2(true);
    check_same_without_fast_pairs(text, size, r, &err, ents);
    exercise_check_abort(NULL, "bspkit_entities_parse", r, &err);
    if (r == BSPKIT_OK) {
        if (ents == NULL)
            exercise_fail("bspkit_entities_parse", "OK without a result");
        check_entities(text, size, ents);
    } else if (err.lump_offset > (int64_t)size) {
        exercise_fail("bspkit_entities_parse", "error position past the end of the text");
    }
    if (ents != NULL)
        bspkit_entities_free(ents);
    return 0;
}
