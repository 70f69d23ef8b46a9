#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bspkit/bspkit.h"
#include "core/vis_rle.h"

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

/* Rows checked together (bk_vis_rows_fine_together) against each row
 * walked on its own: whenever the rows are said to decode together, every
 * one that starts inside the lump decodes. Lumps of (PVS, PAS) rows per
 * cluster, compressed as compilers do, then damaged: cut short, an offset
 * moved by a byte or two or anywhere, a byte slipped in between rows, rows
 * shared or out of order, offsets outside the lump. Untouched lumps, and
 * rows only reordered or shared, are shown together. */
static uint32_t rnd(uint32_t *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 8;
}

static void put_i32(uint8_t *p, int32_t v)
{
    uint32_t u = (uint32_t)v;
    for (int k = 0; k < 4; k++)
        p[k] = (uint8_t)(u >> (8 * k));
}

static bool row_walks(const bk_vis_rows *v, int64_t ofs)
{
    return bk_vis_walk(v->lump + ofs, v->size - (size_t)ofs, v->row_bytes, NULL) == BSPKIT_OK;
}

static void test_rows_together_imply_each_row(void **state)
{
    (void)state;
    enum { MAX_CLUSTERS = 160, CAP = 4 + 8 * MAX_CLUSTERS + 2 * MAX_CLUSTERS * 2 * 21 + 64 };
    static uint8_t lump[CAP];
    uint8_t raw[21];
    uint32_t seed = 4242;
    unsigned together_damaged = 0, apart = 0, together_clean = 0;
    for (int trial = 0; trial < 2000; trial++) {
        uint32_t clusters = 1 + rnd(&seed) % MAX_CLUSTERS, row_bytes = (clusters + 7) / 8;
        size_t at = 4 + 8 * (size_t)clusters;
        put_i32(lump, (int32_t)clusters);
        int damage = trial % 8;
        uint32_t victim = rnd(&seed) % clusters;
        for (uint32_t i = 0; i < clusters; i++)
            for (int kind = 0; kind < 2; kind++) {
                unsigned density = rnd(&seed) % 101;
                for (uint32_t b = 0; b < row_bytes; b++)
                    raw[b] = rnd(&seed) % 100 < density ? (uint8_t)(1 + rnd(&seed) % 255) : 0;
                if (damage == 4 && i == victim && kind == 0)
                    lump[at++] = (uint8_t)(rnd(&seed) % 2); /* a stray byte before this row */
                put_i32(lump + 4 + 8 * i + 4 * kind, (int32_t)at);
                at += encode(raw, row_bytes, lump + at);
            }
        size_t size = at;
        uint8_t *entry = lump + 4 + 8 * victim + 4 * (rnd(&seed) % 2);
        int32_t ofs = (int32_t)(entry[0] | entry[1] << 8 | entry[2] << 16 | (uint32_t)entry[3] << 24);
        switch (damage) {
        case 1: size -= 1 + rnd(&seed) % (size - 4 - 8 * clusters); break; /* cut short */
        case 2: put_i32(entry, ofs + (int32_t)(rnd(&seed) % 5) - 2); break;
        case 3: put_i32(entry, (int32_t)(rnd(&seed) % size)); break;
        case 5: put_i32(entry, rnd(&seed) % 2 ? -1 - (int32_t)(rnd(&seed) % 9) : (int32_t)size); break;
        case 6: { /* shared and out of order: clean */
            uint8_t *other = lump + 4 + 8 * (rnd(&seed) % clusters) + 4 * (rnd(&seed) % 2);
            uint8_t keep[4];
            memcpy(keep, other, 4);
            memcpy(other, entry, 4);
            if (rnd(&seed) % 2)
                memcpy(entry, keep, 4);
            break;
        }
        default: break; /* 0 and 7 clean, 4 already damaged */
        }
        bk_vis_rows v = {.lump = lump, .size = size, .rows = clusters, .row_bytes = row_bytes, .cluster = true};
        bool together = bk_vis_rows_fine_together(&v, clusters, true);
        bool clean = damage == 0 || damage == 6 || damage == 7 || damage == 5;
        for (uint32_t i = 0; i < clusters; i++)
            for (int kind = 0; kind < 2; kind++) {
                const uint8_t *e = lump + 4 + 8 * i + 4 * kind;
                int64_t o = (int32_t)(e[0] | e[1] << 8 | e[2] << 16 | (uint32_t)e[3] << 24);
                bool inside = o >= 0 && (uint64_t)o < size;
                assert_int_equal(bk_vis_row_inside(&v, i, (bspkit_vis_kind)kind), inside);
                if (together && inside && !row_walks(&v, o))
                    fail_msg("trial %d (damage %d): the rows were said to decode, yet cluster %u's %s row at %lld "
                             "does not",
                             trial, damage, i, kind ? "PAS" : "PVS", (long long)o);
            }
        if (clean && !together)
            fail_msg("trial %d (damage %d): untouched rows not shown together", trial, damage);
        together_clean += clean && together;
        together_damaged += !clean && together;
        apart += !together;
    }
    /* Damage both hidden (a moved offset that still starts a row's code)
     * and found. */
    assert_true(together_clean > 900 && together_damaged > 50 && apart > 300);

    /* Leafs 1 .. count (Quake): leaf 0's offset and a negative one are
     * no rows; only the first `count` leafs count. */
    static const uint8_t rows[] = {0x01, 0x00, 0x01, 0x02, 0x03, 0xFF, 0x00, 0x02};
    bspkit_leaf leafs[5];
    memset(leafs, 0, sizeof leafs);
    /* Codes start at 0, 1, 3, 4, 5 and 6; leaf 4's row is cut short. */
    int32_t offsets[5] = {5, 0, 3, -1, 6};
    for (int i = 0; i < 5; i++)
        leafs[i].vis_offset = offsets[i];
    bk_vis_rows q = {.lump = rows, .size = sizeof rows, .rows = 4, .row_bytes = 3, .leafs = leafs, .nleafs = 5};
    assert_true(bk_vis_rows_fine_together(&q, 3, false));
    assert_false(bk_vis_rows_fine_together(&q, 4, false));
    leafs[2].vis_offset = 1;
    assert_true(bk_vis_rows_fine_together(&q, 3, false));
    leafs[2].vis_offset = 2; /* a count */
    assert_false(bk_vis_rows_fine_together(&q, 3, false));
    /* A row that starts on a count reads the code differently from there
     * on, and may decode less than the rows after it: here the row at 4
     * (the count of the zero at 3) reads 00 00, then 03 as one literal. */
    static const uint8_t shifted[] = {0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x03};
    int32_t starts[4] = {-1, 0, 4, 5};
    for (int i = 0; i < 4; i++)
        leafs[i].vis_offset = starts[i];
    bk_vis_rows s = {.lump = shifted, .size = sizeof shifted, .rows = 3, .row_bytes = 3, .leafs = leafs, .nleafs = 4};
    assert_true(row_walks(&s, 5));
    assert_false(row_walks(&s, 4));
    assert_false(bk_vis_rows_fine_together(&s, 3, false));
    leafs[2].vis_offset = 3;
    assert_true(bk_vis_rows_fine_together(&s, 3, false));
    bk_vis_rows bits = {.lump = rows, .size = sizeof rows, .rows = 4, .row_bytes = 1, .bitset = true};
    assert_false(bk_vis_rows_fine_together(&bits, 4, false));
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
        cmocka_unit_test(test_rows_together_imply_each_row),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
