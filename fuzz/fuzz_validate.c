/* Fuzz target: open a map from memory and validate it, nothing else, so the
 * cross-index checks get every run's time. The map is then validated again
 * by other paths, and every report must be the same, problem by problem and
 * in the same order: without AVX2 where the CPU has it (the face checks take
 * eight faces a step on the AVX2 path), in a fresh map with the entity
 * readers' one-pass paths switched off (validation otherwise reads plain
 * entity text without making the list), and in a fresh map decoded
 * without AVX2 (the records' shuffle plans, core/schema_plan.h, are not
 * used then). */
#include "exercise.h"

#include "core/cpu.h"
#include "core/entities.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same_problem(const bspkit_problem *a, const bspkit_problem *b)
{
    return a->severity == b->severity && a->code == b->code && a->lump == b->lump && a->record == b->record &&
           a->offset == b->offset && strcmp(a->message, b->message) == 0;
}

static bool same_report(const bspkit_report *a, const bspkit_report *b)
{
    bool same = a->count == b->count && a->errors == b->errors && a->warnings == b->warnings;
    for (size_t i = 0; same && i < a->count; i++)
        same = same_problem(&a->problems[i], &b->problems[i]);
    return same;
}

static void differ(const char *what, const bspkit_report *a, const bspkit_report *b)
{
    fprintf(stderr, "fuzz_validate: %s report differently (%zu against %zu problems)\n", what, a->count, b->count);
    abort();
}

/* The input opened again and validated: its report must be `first`'s. */
static void compare_fresh(const char *what, const uint8_t *data, size_t size, bspkit_result r1,
                          const bspkit_report *first)
{
    bspkit_map *fresh = NULL;
    if (bspkit_open_memory(data, size, &exercise_fuzz_limits, &fresh, NULL) != BSPKIT_OK)
        return;
    bspkit_report again;
    memset(&again, 0, sizeof again);
    bspkit_result r2 = bspkit_validate(fresh, &again, NULL);
    if (r1 != r2 || !same_report(first, &again))
        differ(what, first, &again);
    bspkit_report_free(&again);
    bspkit_close(fresh);
}

static void compare_paths(bspkit_map *map, const uint8_t *data, size_t size)
{
    bspkit_report first, again;
    memset(&first, 0, sizeof first);
    bspkit_result r1 = bspkit_validate(map, &first, NULL);
    if (bk_cpu_has_avx2()) {
        memset(&again, 0, sizeof again);
        bk_cpu_allow_avx2(false);
        bspkit_result r2 = bspkit_validate(map, &again, NULL);
        bk_cpu_allow_avx2(true);
        if (r1 != r2 || !same_report(&first, &again))
            differ("the AVX2 and plain paths", &first, &again);
        bspkit_report_free(&again);
    }
    /* Fresh maps: the first may hold the entity list by now. */
    bk_entities_allow_fast_pairs(false);
    compare_fresh("the entity scan and the entity list", data, size, r1, &first);
    bk_entities_allow_fast_pairs(true);
    if (bk_cpu_has_avx2()) {
        bk_cpu_allow_avx2(false);
        compare_fresh("records decoded by plan and field by field", data, size, r1, &first);
        bk_cpu_allow_avx2(true);
    }
    bspkit_report_free(&first);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    exercise ex = {.check = exercise_check_abort};
    bspkit_map *map = exercise_open(&ex, data, size, &exercise_fuzz_limits);
    if (map == NULL)
        return 0;
    ex_validate(&ex, map, exercise_report_abort);
    compare_paths(map, data, size);
    bspkit_close(map);
    return 0;
}
