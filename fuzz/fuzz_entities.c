/* Fuzz target: entity text parsing, checking the documented shape of the
 * result on every input. */
#include "exercise.h"

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    bspkit_entities *ents = NULL;
    bspkit_error err;
    memset(&err, 0, sizeof err);
    bspkit_result r = bspkit_entities_parse(text, size, &ents, &err);
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
