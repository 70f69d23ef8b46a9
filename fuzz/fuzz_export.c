/* Fuzz target: geometry export of any bytes that open as a map, to GLB in
 * memory with textures and lightmaps, then to GLB without them. */
#include "exercise.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    exercise ex = {.check = exercise_check_abort};
    bspkit_map *map = exercise_open(&ex, data, size, &exercise_fuzz_limits);
    if (map == NULL)
        return 0;
    for (int plain = 0; plain < 2; plain++) {
        bspkit_export_options xo = {.no_textures = plain, .no_lightmaps = plain};
        if (!exercise_export(&ex, map, &xo))
            exercise_fail("bspkit_export_glb_memory", "output is not a GLB");
    }
    bspkit_close(map);
    return 0;
}
