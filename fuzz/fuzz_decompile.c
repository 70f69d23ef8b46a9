/* Fuzz target: decompiling any bytes that open as a map (VMF for Source,
 * Valve 220 .map otherwise), with the defaults and with every optional part
 * left out and merging off. */
#include "exercise.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    exercise ex = {.check = exercise_check_abort};
    bspkit_map *map = exercise_open(&ex, data, size, &exercise_fuzz_limits);
    if (map == NULL)
        return 0;
    const bspkit_decompile_options plain = {.skip = ~0u, .no_merge = true};
    if (!exercise_decompile(&ex, map, NULL) || !exercise_decompile(&ex, map, &plain))
        exercise_fail("bspkit_decompile_memory", "output text is not terminated");
    bspkit_close(map);
    return 0;
}
