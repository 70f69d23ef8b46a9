/* Fuzz target: geometry export of any bytes that open as a map, to GLB in
 * memory with textures and lightmaps, then without them, then with them
 * again: the last export (which reuses the texture PNGs kept with the map)
 * must give the first one's result and bytes. */
#include "exercise.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One export with textures and lightmaps; *glb is malloc'ed or NULL. */
static bspkit_result textured(exercise *ex, bspkit_map *map, uint8_t **glb, size_t *glb_size)
{
    bspkit_error e;
    memset(&e, 0, sizeof e);
    *glb = NULL;
    *glb_size = 0;
    bspkit_result r = bspkit_export_glb_memory(map, NULL, glb, glb_size, NULL, &e);
    ex_note(ex, "bspkit_export_glb_memory", r, &e);
    if (r == BSPKIT_OK && (*glb_size < 12 || memcmp(*glb, "glTF", 4) != 0))
        exercise_fail("bspkit_export_glb_memory", "output is not a GLB");
    return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    exercise ex = {.check = exercise_check_abort};
    bspkit_map *map = exercise_open(&ex, data, size, &exercise_fuzz_limits);
    if (map == NULL)
        return 0;
    uint8_t *first = NULL, *again = NULL;
    size_t first_size = 0, again_size = 0;
    bspkit_result r1 = textured(&ex, map, &first, &first_size);
    bspkit_export_options plain = {.no_textures = true, .no_lightmaps = true};
    if (!exercise_export(&ex, map, &plain))
        exercise_fail("bspkit_export_glb_memory", "output is not a GLB");
    bspkit_result r2 = textured(&ex, map, &again, &again_size);
    /* Memory limits can only have been reached the first time: what the map
     * decoded then stays decoded. */
    if (r1 == BSPKIT_OK && (r2 != BSPKIT_OK || again_size != first_size || memcmp(first, again, first_size) != 0))
        exercise_fail("bspkit_export_glb_memory", "a second export of the map differs from the first");
    free(first);
    free(again);
    bspkit_close(map);
    return 0;
}
