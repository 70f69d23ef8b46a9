/* Fuzz target: format detection from raw bytes. */
#include "exercise.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bspkit_format fmt;
    bspkit_error err;
    memset(&err, 0, sizeof err);
    bspkit_result r = bspkit_detect(data, size, &fmt, &err);
    exercise_check_abort(NULL, "bspkit_detect", r, &err);
    if (r != BSPKIT_OK)
        return 0;
    if (memchr(fmt.name, '\0', sizeof fmt.name) == NULL || fmt.name[0] == '\0')
        exercise_fail("bspkit_detect", "format without a NUL-terminated name");
    if (fmt.family == BSPKIT_FAMILY_UNKNOWN || fmt.family > BSPKIT_FAMILY_TITANFALL)
        exercise_fail("bspkit_detect", "OK with an unknown family");
    if (fmt.lump_count <= 0 || fmt.lump_count > BSPKIT_MAX_LUMPS)
        exercise_fail("bspkit_detect", "lump count out of range");
    if (strcmp(bspkit_family_name(fmt.family), "unknown") == 0)
        exercise_fail("bspkit_detect", "family without a name");
    return 0;
}
