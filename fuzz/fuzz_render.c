/* Fuzz target: rendering any bytes that open as a map, small (the cost of a
 * picture grows with its pixels, not with what is being tested): the top,
 * iso and spawn views and a camera inside the world, each at 24 x 16 with
 * 2 x 2 samples. Every result is a known code; a picture has its size and
 * opaque pixels. */
#include "bspkit/render.h"
#include "exercise.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    exercise ex = {.check = exercise_check_abort};
    bspkit_map *map = exercise_open(&ex, data, size, &exercise_fuzz_limits);
    if (map == NULL)
        return 0;
    const bspkit_render_view views[] = {BSPKIT_RENDER_TOP, BSPKIT_RENDER_ISO, BSPKIT_RENDER_SPAWN,
                                        BSPKIT_RENDER_CAMERA};
    for (size_t v = 0; v < sizeof views / sizeof views[0]; v++) {
        bspkit_render_options o = {.view = views[v], .width = 24, .height = 16, .camera = {{0, 0, 64}, 10, 30, 100}};
        bspkit_image img;
        bspkit_error err;
        bspkit_result r = bspkit_render(map, &o, &img, NULL, &err);
        exercise_check_abort(NULL, "bspkit_render", r, &err);
        if (r != BSPKIT_OK)
            continue;
        if (img.width != 24 || img.height != 16 || !img.rgba)
            exercise_fail("bspkit_render", "picture of the wrong size");
        for (size_t i = 0; i < (size_t)24 * 16; i++)
            if (img.rgba[i * 4 + 3] != 255)
                exercise_fail("bspkit_render", "pixel not opaque");
        bspkit_image_free(&img);
    }
    bspkit_close(map);
    return 0;
}
