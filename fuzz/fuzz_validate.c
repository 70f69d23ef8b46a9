/* Fuzz target: open a map from memory and validate it, nothing else, so the
 * cross-index checks get every run's time. */
#include "exercise.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    exercise ex = {.check = exercise_check_abort};
    bspkit_map *map = exercise_open(&ex, data, size, &exercise_fuzz_limits);
    if (map == NULL)
        return 0;
    ex_validate(&ex, map, exercise_report_abort);
    bspkit_close(map);
    return 0;
}
