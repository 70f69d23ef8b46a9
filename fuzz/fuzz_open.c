/* Fuzz target: open a map from memory, then every accessor, validation and
 * the limits table. */
#include "exercise.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    exercise ex = {.check = exercise_check_abort, .touch = 1, .vis_budget = 4u << 20};
    exercise_bytes(&ex, data, size, &exercise_fuzz_limits, exercise_report_abort);
    return 0;
}
