/* Fuzz target: Valve LZMA lump streams. Input: one selector byte (lump index
 * = byte % 64), then the lump's stored bytes. The directory's fourCC carries
 * the size the stream header claims, as compilers write it, so the
 * decompressor is reached; every accessor then decodes what came out. */
#include "exercise.h"
#include "vbsp_frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int lump = data[0] % 64;
    const uint8_t *stream = data + 1;
    size_t stream_size = size - 1;
    uint32_t fourcc = stream_size >= 8 ? (uint32_t)stream[4] | (uint32_t)stream[5] << 8 |
                                             (uint32_t)stream[6] << 16 | (uint32_t)stream[7] << 24
                                       : 0;
    size_t file_size = 0;
    uint8_t *file = vbsp_frame(20, lump, 0, fourcc, stream, stream_size, &file_size);
    if (file == NULL)
        return 0;
    exercise ex = {.check = exercise_check_abort, .decode_only = 1};
    exercise_bytes(&ex, file, file_size, &exercise_fuzz_limits, exercise_report_abort);
    free(file);
    return 0;
}
