/* Fuzz target: open a map from memory and validate it, nothing else, so the
 * cross-index checks get every run's time. */
#include "exercise.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const bspkit_options opts = {
        .max_file_size = 64u << 20,
        .max_lump_size = 8u << 20,
        .max_memory = 64u << 20,
    };
    bspkit_map *map = NULL;
    bspkit_error e;
    memset(&e, 0, sizeof e);
    bspkit_result r = bspkit_open_memory(data, size, &opts, &map, &e);
    exercise_check_abort(NULL, "bspkit_open_memory", r, &e);
    if (r != BSPKIT_OK)
        return 0;
    exercise ex = {.check = exercise_check_abort};
    ex_validate(&ex, map, exercise_report_abort);
    bspkit_close(map);
    return 0;
}
