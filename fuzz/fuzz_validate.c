/* Fuzz target: open a map from memory and validate it, nothing else, so the
 * cross-index checks get every run's time. Where the CPU has AVX2 the map is
 * validated again without it, and both reports must be the same, problem by
 * problem and in the same order (the face checks take eight faces a step on
 * the AVX2 path). */
#include "exercise.h"

#include "core/cpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same_problem(const bspkit_problem *a, const bspkit_problem *b)
{
    return a->severity == b->severity && a->code == b->code && a->lump == b->lump && a->record == b->record &&
           a->offset == b->offset && strcmp(a->message, b->message) == 0;
}

static void compare_paths(bspkit_map *map)
{
    if (!bk_cpu_has_avx2())
        return;
    bspkit_report with, without;
    memset(&with, 0, sizeof with);
    memset(&without, 0, sizeof without);
    bspkit_result r1 = bspkit_validate(map, &with, NULL);
    bk_cpu_allow_avx2(false);
    bspkit_result r2 = bspkit_validate(map, &without, NULL);
    bk_cpu_allow_avx2(true);
    bool same = r1 == r2 && with.count == without.count && with.errors == without.errors &&
                with.warnings == without.warnings;
    for (size_t i = 0; same && i < with.count; i++)
        same = same_problem(&with.problems[i], &without.problems[i]);
    if (!same) {
        fprintf(stderr, "fuzz_validate: the AVX2 and plain paths report differently (%zu against %zu problems)\n",
                with.count, without.count);
        abort();
    }
    bspkit_report_free(&with);
    bspkit_report_free(&without);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    exercise ex = {.check = exercise_check_abort};
    bspkit_map *map = exercise_open(&ex, data, size, &exercise_fuzz_limits);
    if (map == NULL)
        return 0;
    ex_validate(&ex, map, exercise_report_abort);
    compare_paths(map);
    bspkit_close(map);
    return 0;
}
