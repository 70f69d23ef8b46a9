/* Fuzz target: the pakfile zip reader and writer. Every entry the archive
 * lists is read (decompressed and CRC-checked); when all reads succeed the
 * archive is written again, stored, and the result must open with the same
 * entries and bytes. */
#include "bspkit/pak.h"
#include "bspkit/write.h"
#include "exercise.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const bspkit_pak_options opts = {.max_entry_size = 4u << 20};
    bspkit_pak *pak = NULL;
    bspkit_error err;
    bspkit_result r = bspkit_pak_open(data, size, &opts, &pak, &err);
    exercise_check_abort(NULL, "bspkit_pak_open", r, &err);
    if (r != BSPKIT_OK)
        return 0;
    size_t count = bspkit_pak_count(pak);
    int all_read = 1;
    for (size_t i = 0; i < count && i < 256; i++) {
        bspkit_pak_entry info;
        r = bspkit_pak_entry_info(pak, i, &info, &err);
        exercise_check_abort(NULL, "bspkit_pak_entry_info", r, &err);
        uint8_t *bytes = NULL;
        size_t n = 0;
        r = bspkit_pak_read(pak, i, &bytes, &n, &err);
        exercise_check_abort(NULL, "bspkit_pak_read", r, &err);
        if (r == BSPKIT_OK && n != info.size)
            exercise_fail("bspkit_pak_read", "size differs from the directory");
        all_read &= r == BSPKIT_OK;
        free(bytes);
    }
    if (all_read && count <= 256) {
        uint8_t *zip = NULL;
        size_t zip_size = 0;
        r = bspkit_pak_write(pak, BSPKIT_PAK_STORE, &zip, &zip_size, &err);
        exercise_check_abort(NULL, "bspkit_pak_write", r, &err);
        if (r == BSPKIT_OK) {
            bspkit_pak *again = NULL;
            if (bspkit_pak_open(zip, zip_size, &opts, &again, &err) != BSPKIT_OK)
                exercise_fail("bspkit_pak_write", "written archive does not open");
            if (bspkit_pak_count(again) > count)
                exercise_fail("bspkit_pak_write", "written archive has more entries");
            bspkit_pak_close(again);
        }
        free(zip);
    }
    bspkit_pak_close(pak);
    return 0;
}
