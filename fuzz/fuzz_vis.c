/* Fuzz target: visibility run-length decoding. The first two bytes give the
 * row size (little-endian); the rest is decoded row after row, and every row
 * the library accepts is compared with a direct reading of the format. The
 * validator's walk (rows counted, not written) must give the decoder's
 * answer and consumed count for every row, accepted or not. */
#include "exercise.h"
#include "core/vis_rle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The format read directly: a zero byte is followed by a count of zeros; a
 * run past the row end is clamped (compilers pad the last run). Returns the
 * bytes consumed, or 0 when the source ends before the row is full. */
static size_t reference_row(const uint8_t *src, size_t src_size, uint8_t *dst, size_t row_bytes)
{
    size_t in = 0, out = 0;
    while (out < row_bytes) {
        if (in >= src_size)
            return 0;
        if (src[in] != 0) {
            dst[out++] = src[in++];
            continue;
        }
        if (in + 1 >= src_size)
            return 0;
        size_t run = src[in + 1];
        in += 2;
        if (run > row_bytes - out)
            run = row_bytes - out;
        memset(dst + out, 0, run);
        out += run;
    }
    return in;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    size_t row_bytes = (size_t)data[0] | ((size_t)data[1] << 8);
    const uint8_t *src = data + 2;
    size_t src_size = size - 2;

    /* Exact-size buffers so any write past the row is caught. */
    uint8_t *row = malloc(row_bytes ? row_bytes : 1);
    uint8_t *expect = malloc(row_bytes ? row_bytes : 1);
    if (row == NULL || expect == NULL) {
        free(row);
        free(expect);
        return 0;
    }
    size_t pos = 0;
    while (pos < src_size) {
        size_t consumed = 0;
        bspkit_result r = bspkit_vis_decompress(src + pos, src_size - pos, row, row_bytes, &consumed);
        if (r != BSPKIT_OK && r != BSPKIT_ERR_VISIBILITY && r != BSPKIT_ERR_ARGUMENT)
            exercise_fail("bspkit_vis_decompress", "unexpected result code");
        size_t walked = 0;
        if (bk_vis_walk(src + pos, src_size - pos, row_bytes, &walked) != r || walked != consumed)
            exercise_fail("bk_vis_walk", "differs from bspkit_vis_decompress");
        if (r != BSPKIT_OK)
            break;
        if (consumed > src_size - pos)
            exercise_fail("bspkit_vis_decompress", "consumed more bytes than given");
        size_t ref = reference_row(src + pos, src_size - pos, expect, row_bytes);
        if (ref != consumed || (row_bytes > 0 && memcmp(row, expect, row_bytes) != 0))
            exercise_fail("bspkit_vis_decompress", "row differs from the format's definition");
        if (consumed == 0)
            break;
        pos += consumed;
    }
    free(row);
    free(expect);
    return 0;
}
