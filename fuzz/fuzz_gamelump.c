/* Fuzz target: the game-lump directory and the props inside it. Input: one
 * selector byte (map version 19, 20, 21 or 25 by its low bits), then the
 * GAME_LUMP bytes. Game-lump offsets are absolute, so the lump sits at a
 * known place: right after the 1036-byte header. */
#include "exercise.h"
#include "vbsp_frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int32_t versions[4] = {19, 20, 21, 25};
    if (size < 1)
        return 0;
    size_t file_size = 0;
    uint8_t *file = vbsp_frame(versions[data[0] & 3], 35, 0, 0, data + 1, size - 1, &file_size);
    if (file == NULL)
        return 0;
    exercise ex = {.check = exercise_check_abort, .decode_only = 1};
    exercise_bytes(&ex, file, file_size, &exercise_fuzz_limits, exercise_report_abort);
    free(file);
    return 0;
}
