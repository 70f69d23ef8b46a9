#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "bspkit/bspkit.h"

/* The example from the format notes: raw 60 00 00 00 00 01 80 9A. */
static void test_documented_example(void **state)
{
    (void)state;
    const uint8_t src[] = {0x60, 0x00, 0x04, 0x01, 0x80, 0x9A};
    const uint8_t want[] = {0x60, 0x00, 0x00, 0x00, 0x00, 0x01, 0x80, 0x9A};
    uint8_t dst[8];
    size_t used = 99;
    memset(dst, 0xEE, sizeof dst);
    assert_int_equal(bspkit_vis_decompress(src, sizeof src, dst, sizeof dst, &used), BSPKIT_OK);
    assert_memory_equal(dst, want, sizeof want);
    assert_int_equal(used, 6);
}

static void test_run_ends_row_exactly(void **state)
{
    (void)state;
    const uint8_t src[] = {0xFF, 0x00, 0x07};
    uint8_t dst[9];
    size_t used = 0;
    memset(dst, 0xEE, sizeof dst);
    assert_int_equal(bspkit_vis_decompress(src, sizeof src, dst, 8, &used), BSPKIT_OK);
    assert_int_equal(dst[0], 0xFF);
    for (int i = 1; i < 8; i++)
        assert_int_equal(dst[i], 0);
    assert_int_equal(dst[8], 0xEE); /* nothing written past the row */
    assert_int_equal(used, 3);
}

/* A padding run longer than the row is clamped; the count byte is still consumed,
 * so the next row starts right after it. */
static void test_overlong_run_clamped(void **state)
{
    (void)state;
    const uint8_t src[] = {0x01, 0x00, 0x20, 0x02, 0x03};
    uint8_t dst[6];
    size_t used = 0;
    memset(dst, 0xEE, sizeof dst);
    assert_int_equal(bspkit_vis_decompress(src, sizeof src, dst, 4, &used), BSPKIT_OK);
    const uint8_t want[] = {0x01, 0x00, 0x00, 0x00, 0xEE, 0xEE};
    assert_memory_equal(dst, want, sizeof want);
    assert_int_equal(used, 3);

    assert_int_equal(bspkit_vis_decompress(src + used, sizeof src - used, dst, 2, &used), BSPKIT_OK);
    assert_int_equal(dst[0], 0x02);
    assert_int_equal(dst[1], 0x03);
    assert_int_equal(used, 2);
}

static void test_stops_when_row_full(void **state)
{
    (void)state;
    const uint8_t src[] = {0x01, 0x02, 0x03, 0x04, 0x05};
    uint8_t dst[3];
    size_t used = 0;
    assert_int_equal(bspkit_vis_decompress(src, sizeof src, dst, sizeof dst, &used), BSPKIT_OK);
    assert_int_equal(dst[0], 1);
    assert_int_equal(dst[2], 3);
    assert_int_equal(used, 3);
}

static void test_zero_count_writes_nothing(void **state)
{
    (void)state;
    const uint8_t src[] = {0x00, 0x00, 0x05, 0x00, 0x01};
    uint8_t dst[2];
    size_t used = 0;
    assert_int_equal(bspkit_vis_decompress(src, sizeof src, dst, sizeof dst, &used), BSPKIT_OK);
    assert_int_equal(dst[0], 0x05);
    assert_int_equal(dst[1], 0x00);
    assert_int_equal(used, 5);
}

static void test_truncated_literals(void **state)
{
    (void)state;
    const uint8_t src[] = {0x01, 0x02};
    uint8_t dst[4];
    size_t used = 0;
    memset(dst, 0xEE, sizeof dst);
    assert_int_equal(bspkit_vis_decompress(src, sizeof src, dst, sizeof dst, &used), BSPKIT_ERR_VISIBILITY);
    assert_int_equal(used, 2);
    /* The unfilled tail is zeroed rather than left as whatever was there. */
    const uint8_t want[] = {0x01, 0x02, 0x00, 0x00};
    assert_memory_equal(dst, want, sizeof want);
}

static void test_truncated_after_zero(void **state)
{
    (void)state;
    const uint8_t src[] = {0x01, 0x00};
    uint8_t dst[4];
    size_t used = 0;
    assert_int_equal(bspkit_vis_decompress(src, sizeof src, dst, sizeof dst, &used), BSPKIT_ERR_VISIBILITY);
    assert_int_equal(used, 2);
}

static void test_truncated_short_run(void **state)
{
    (void)state;
    const uint8_t src[] = {0x00, 0x02};
    uint8_t dst[4];
    size_t used = 0;
    assert_int_equal(bspkit_vis_decompress(src, sizeof src, dst, sizeof dst, &used), BSPKIT_ERR_VISIBILITY);
    assert_int_equal(used, 2);
}

static void test_empty_source(void **state)
{
    (void)state;
    uint8_t dst[1] = {0xEE};
    size_t used = 7;
    assert_int_equal(bspkit_vis_decompress(NULL, 0, dst, 1, &used), BSPKIT_ERR_VISIBILITY);
    assert_int_equal(used, 0);
    assert_int_equal(dst[0], 0);
}

static void test_row_bytes_zero(void **state)
{
    (void)state;
    size_t used = 7;
    assert_int_equal(bspkit_vis_decompress(NULL, 0, NULL, 0, &used), BSPKIT_OK);
    assert_int_equal(used, 0);

    const uint8_t src[] = {0x12, 0x00, 0x03};
    uint8_t dst[1] = {0xEE};
    used = 7;
    assert_int_equal(bspkit_vis_decompress(src, sizeof src, dst, 0, &used), BSPKIT_OK);
    assert_int_equal(used, 0);
    assert_int_equal(dst[0], 0xEE);
}

static void test_consumed_may_be_null(void **state)
{
    (void)state;
    const uint8_t src[] = {0x00, 0x03};
    uint8_t dst[3] = {1, 1, 1};
    assert_int_equal(bspkit_vis_decompress(src, sizeof src, dst, sizeof dst, NULL), BSPKIT_OK);
    assert_int_equal(dst[0] | dst[1] | dst[2], 0);
    assert_int_equal(bspkit_vis_decompress(src, 1, dst, sizeof dst, NULL), BSPKIT_ERR_VISIBILITY);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    const uint8_t src[] = {0x01};
    uint8_t dst[1];
    size_t used = 7;
    assert_int_equal(bspkit_vis_decompress(NULL, 4, dst, 1, &used), BSPKIT_ERR_ARGUMENT);
    assert_int_equal(used, 0);
    assert_int_equal(bspkit_vis_decompress(src, 1, NULL, 1, &used), BSPKIT_ERR_ARGUMENT);
}

/* Encoder as the vis tools write it: zero runs of at most 255. */
static size_t encode(const uint8_t *raw, size_t n, uint8_t *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        out[o++] = raw[i];
        if (raw[i])
            continue;
        size_t run = 1;
        while (i + 1 < n && raw[i + 1] == 0 && run < 255) {
            run++;
            i++;
        }
        out[o++] = (uint8_t)run;
    }
    return o;
}

static void test_round_trip_many_rows(void **state)
{
    (void)state;
    enum { ROWS = 64, ROW = 700 };
    uint8_t *raw = malloc((size_t)ROWS * ROW);
    uint8_t *enc = malloc((size_t)ROWS * ROW * 2);
    uint8_t *dec = malloc(ROW);
    assert_non_null(raw);
    assert_non_null(enc);
    assert_non_null(dec);
    uint32_t seed = 12345;
    for (size_t i = 0; i < (size_t)ROWS * ROW; i++) {
        seed = seed * 1103515245u + 12345u;
        /* Mostly zeros, with long runs (over 255) in some rows. */
        size_t row = i / ROW;
        uint8_t v = (uint8_t)(seed >> 24);
        raw[i] = (row % 3 == 0 || (seed >> 8) % 4) ? 0 : v;
    }
    size_t enc_size = 0;
    for (size_t r = 0; r < ROWS; r++)
        enc_size += encode(raw + r * ROW, ROW, enc + enc_size);

    size_t pos = 0;
    for (size_t r = 0; r < ROWS; r++) {
        size_t used = 0;
        assert_int_equal(bspkit_vis_decompress(enc + pos, enc_size - pos, dec, ROW, &used), BSPKIT_OK);
        assert_memory_equal(dec, raw + r * ROW, ROW);
        pos += used;
    }
    assert_int_equal(pos, enc_size);
    free(raw);
    free(enc);
    free(dec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_documented_example),
        cmocka_unit_test(test_run_ends_row_exactly),
        cmocka_unit_test(test_overlong_run_clamped),
        cmocka_unit_test(test_stops_when_row_full),
        cmocka_unit_test(test_zero_count_writes_nothing),
        cmocka_unit_test(test_truncated_literals),
        cmocka_unit_test(test_truncated_after_zero),
        cmocka_unit_test(test_truncated_short_run),
        cmocka_unit_test(test_empty_source),
        cmocka_unit_test(test_row_bytes_zero),
        cmocka_unit_test(test_consumed_may_be_null),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_round_trip_many_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
