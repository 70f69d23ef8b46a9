/* Fuzz target: open a map from memory, then every accessor, validation and
 * the limits table. */
#include "exercise.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Small limits so a forged size field cannot stall or exhaust the run. */
    const bspkit_options opts = {
        .max_file_size = 64u << 20,
        .max_lump_size = 8u << 20,
        .max_memory = 64u << 20,
    };
    exercise ex = {.check = exercise_check_abort, .touch = 1, .vis_budget = 4u << 20};
    exercise_bytes(&ex, data, size, &opts, exercise_report_abort);
    return 0;
}
