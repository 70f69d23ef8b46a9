/* Fuzz target: the entity JSON codec. Input that reads as JSON must write
 * back as JSON that reads to the same entities (keys, values, order). */
#include "bspkit/entities_edit.h"
#include "exercise.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same_lists(const bspkit_entlist *a, const bspkit_entlist *b)
{
    if (bspkit_entlist_count(a) != bspkit_entlist_count(b))
        return false;
    for (size_t e = 0; e < bspkit_entlist_count(a); e++) {
        size_t na, nb;
        const bspkit_keyvalue *pa = bspkit_entlist_pairs(a, e, &na), *pb = bspkit_entlist_pairs(b, e, &nb);
        if (na != nb)
            return false;
        for (size_t i = 0; i < na; i++)
            if (strcmp(pa[i].key, pb[i].key) != 0 || strcmp(pa[i].value, pb[i].value) != 0)
                return false;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1u << 16)
        return 0;
    (void)bspkit_entities_text_is_json((const char *)data, size);
    bspkit_entlist *list = NULL;
    bspkit_error err;
    bspkit_result r = bspkit_entlist_from_json((const char *)data, size, &list, &err);
    exercise_check_abort(NULL, "bspkit_entlist_from_json", r, &err);
    if (r != BSPKIT_OK)
        return 0;
    char *json = NULL;
    size_t len = 0, lossy = 0;
    r = bspkit_entlist_to_json(list, &json, &len, &lossy, &err);
    exercise_check_abort(NULL, "bspkit_entlist_to_json", r, &err);
    if (r == BSPKIT_OK) {
        bspkit_entlist *back = NULL;
        /* Repeated keys grouped into arrays move next to their first occurrence, so the
         * order can differ from the input's; a second round trip must be exact. */
        if (bspkit_entlist_from_json(json, len, &back, &err) != BSPKIT_OK)
            exercise_fail("bspkit_entlist_to_json", "output does not read back");
        char *again = NULL;
        size_t len2 = 0;
        if (bspkit_entlist_to_json(back, &again, &len2, NULL, &err) != BSPKIT_OK)
            exercise_fail("bspkit_entlist_to_json", "second write failed");
        bspkit_entlist *third = NULL;
        if (bspkit_entlist_from_json(again, len2, &third, &err) != BSPKIT_OK)
            exercise_fail("bspkit_entlist_to_json", "second output does not read back");
        if (lossy == 0 && !same_lists(back, third))
            exercise_fail("bspkit_entlist_to_json", "entities changed through a second round trip");
        if (lossy == 0 && (len2 != len || memcmp(json, again, len) != 0))
            exercise_fail("bspkit_entlist_to_json", "the JSON of the read-back list differs");
        bspkit_entlist_free(third);
        bspkit_entlist_free(back);
        bspkit_free(again);
    }
    bspkit_free(json);
    bspkit_entlist_free(list);
    return 0;
}
