/* Fuzz target: entity comparison and the Stripper config made from it. The
 * input is entity text A, a NUL byte, entity text B. The comparison must
 * succeed; the config must either be made (checked by the library against B
 * before it is returned) or be refused as something a config cannot say. */
#include "bspkit/diff.h"
#include "exercise.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1u << 14)
        return 0; /* the planner is quadratic in the entities a match may hit */
    const uint8_t *nul = memchr(data, 0, size);
    size_t na = nul ? (size_t)(nul - data) : size;
    const char *tb = nul ? (const char *)nul + 1 : "";
    size_t nb = nul ? size - na - 1 : 0;
    bspkit_entlist *a = NULL, *b = NULL;
    bspkit_error err;
    if (bspkit_entlist_parse((const char *)data, na, &a, &err) != BSPKIT_OK ||
        bspkit_entlist_parse(tb, nb, &b, &err) != BSPKIT_OK) {
        bspkit_entlist_free(a);
        return 0;
    }
    bspkit_diff *d = NULL;
    bspkit_result r = bspkit_diff_entlists(a, b, &d, &err);
    exercise_check_abort(NULL, "bspkit_diff_entlists", r, &err);
    if (r != BSPKIT_OK && r != BSPKIT_ERR_NOMEM)
        exercise_fail("bspkit_diff_entlists", "comparing two parsed lists failed");
    if (r == BSPKIT_OK && d->entity_count_a + d->added != d->entity_count_b + d->removed)
        exercise_fail("bspkit_diff_entlists", "added and removed entities do not account for the counts");
    bspkit_diff_free(d);
    char *text = NULL;
    size_t len = 0;
    r = bspkit_diff_stripper(a, b, &text, &len, &err);
    exercise_check_abort(NULL, "bspkit_diff_stripper", r, &err);
    static const char NOT_B[] = "diff: the Stripper config does not reproduce"; /* the self-check's message */
    if (r == BSPKIT_ERR_UNSUPPORTED && strncmp(err.message, NOT_B, sizeof NOT_B - 1) == 0)
        exercise_fail("bspkit_diff_stripper", "the config made does not turn A into B");
    if (r != BSPKIT_OK && r != BSPKIT_ERR_UNSUPPORTED && r != BSPKIT_ERR_NOMEM && r != BSPKIT_ERR_LIMIT)
        exercise_fail("bspkit_diff_stripper", "unexpected failure");
    bspkit_free(text);
    bspkit_entlist_free(a);
    bspkit_entlist_free(b);
    return 0;
}
