/* Fuzz target: geometry export of any bytes that open as a map, to GLB in
 * memory with textures and lightmaps, then to GLB without them. */
#include "bspkit/export.h"
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
    for (int plain = 0; plain < 2; plain++) {
        bspkit_export_options xo = {.no_textures = plain, .no_lightmaps = plain};
        bspkit_export_stats stats;
        uint8_t *glb = NULL;
        size_t glb_size = 0;
        memset(&e, 0, sizeof e);
        r = bspkit_export_glb_memory(map, &xo, &glb, &glb_size, &stats, &e);
        exercise_check_abort(NULL, "bspkit_export_glb_memory", r, &e);
        if (r == BSPKIT_OK && (glb_size < 12 || memcmp(glb, "glTF", 4) != 0))
            exercise_fail("bspkit_export_glb_memory", "output is not a GLB");
        free(glb);
    }
    bspkit_close(map);
    return 0;
}
