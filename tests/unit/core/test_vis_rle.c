/* The run-length decoder against a plain byte-at-a-time reference written
 * from the format notes, on rows mixing long literal spans (bulk path) and
 * short ones (bytewise path), whole and truncated; and the walk that only
 * checks a row against the decoder's result and consumed count, also over
 * a lump of rows compressed as vis compilers do. */
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

/* A nonzero byte is itself; a zero byte is followed by a count of zeros. */
static int reference(const uint8_t *src, size_t n, uint8_t *dst, size_t row, size_t *used)
{
    size_t in = 0, out = 0;
    memset(dst, 0, row);
    while (out < row) {
        if (in >= n)
            break;
        uint8_t b = src[in++];
        if (b) {
            dst[out++] = b;
            continue;
        }
        if (in >= n)
            break;
        size_t run = src[in++];
        out += run < row - out ? run : row - out;
    }
    *used = in;
    return out == row ? 0 : -1;
}

static uint32_t next(uint32_t *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 8;
}

/* Literal spans of 0..80 bytes between zero runs of 0..255: runs follow
 * each other directly too, and a count of 0 is itself a zero byte. */
static size_t make_row(uint32_t *seed, uint8_t *out, size_t cap)
{
    size_t o = 0;
    while (o + 90 < cap) {
        size_t lit = next(seed) % 4 == 0 ? 0 : 1 + next(seed) % (next(seed) % 2 ? 8 : 80);
        for (size_t i = 0; i < lit; i++)
            out[o++] = (uint8_t)(1 + next(seed) % 255);
        out[o++] = 0;
        /* Short runs too, so that rows often end inside a literal span,
         * where a miscount shows in the consumed bytes. */
        out[o++] = (uint8_t)(next(seed) % (next(seed) % 2 ? 16 : 256));
        if (next(seed) % 16 == 0)
            break;
    }
    return o;
}

static void test_decoder_and_walk_match_reference(void **state)
{
    (void)state;
    enum { CAP = 4096 };
    uint8_t src[CAP], want[8 * CAP], got[8 * CAP];
    uint32_t seed = 2024;
    unsigned checked = 0, decoded = 0;
    for (int trial = 0; trial < 400; trial++) {
        size_t n = make_row(&seed, src, CAP);
        /* Mostly rows the source fills (ending inside a literal span or a
         * run), some it cannot. */
        size_t full = 0, ignore;
        reference(src, n, want, sizeof want, &ignore);
        for (size_t in = 0; in < n; in++)
            full += src[in] ? 1 : (in + 1 < n ? src[++in] : 0);
        size_t row = 1 + next(&seed) % (trial % 5 == 0 ? 8 * CAP - 1 : full);
        /* Whole sources and truncated ones. */
        size_t cut = trial % 3 == 0 ? next(&seed) % (n + 1) : n;
        size_t want_used = 0, got_used = 0, walk_used = 0;
        int ok = reference(src, cut, want, row, &want_used);
        memset(got, 0xEE, row);
        bspkit_result r = bspkit_vis_decompress(src, cut, got, row, &got_used);
        assert_int_equal(r, ok == 0 ? BSPKIT_OK : BSPKIT_ERR_VISIBILITY);
        assert_memory_equal(got, want, row);
        assert_int_equal(got_used, want_used);
        assert_int_equal(bk_vis_walk(src, cut, row, &walk_used), r);
        assert_int_equal(walk_used, want_used);
        checked++;
        decoded += r == BSPKIT_OK;
    }
    assert_int_equal(checked, 400);
    assert_true(decoded > 200); /* most trials decode a whole row */
}

/* Rows as vis compilers write them (id's CompressVis: a nonzero byte as
 * itself, a run of zero bytes as 0 and its length, at most 255 per pair,
 * never 0), one after another in a lump: each row walked from its start
 * must end exactly where the next begins. Densities from sparse to full
 * give blocks of 64 code bytes with many runs, few runs and none, rows
 * that end inside a block and rows longer than several blocks. */
static size_t compress_row(const uint8_t *row, size_t n, uint8_t *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        out[o++] = row[i];
        if (row[i])
            continue;
        size_t rep = 1;
        while (i + 1 < n && row[i + 1] == 0 && rep < 255)
            i++, rep++;
        out[o++] = (uint8_t)rep;
    }
    return o;
}

static void test_walk_compiled_rows(void **state)
{
    (void)state;
    enum { ROWS = 300, MAX_ROW = 2048 };
    static uint8_t lump[ROWS * 2 * MAX_ROW + 64];
    static size_t start[ROWS + 1];
    static size_t row_len[ROWS];
    uint8_t row[MAX_ROW];
    uint32_t seed = 77;
    size_t at = 0;
    for (int r = 0; r < ROWS; r++) {
        size_t n = 1 + next(&seed) % (r % 4 == 0 ? MAX_ROW : 200);
        unsigned density = next(&seed) % 101; /* percent of nonzero bytes */
        for (size_t i = 0; i < n; i++)
            row[i] = next(&seed) % 100 < density ? (uint8_t)(1 + next(&seed) % 255) : 0;
        start[r] = at;
        row_len[r] = n;
        at += compress_row(row, n, lump + at);
    }
    start[ROWS] = at;
    /* A tail of other data after the last row, as in a real lump. */
    for (int k = 0; k < 64; k++)
        lump[at + (size_t)k] = (uint8_t)(next(&seed) % 3);
    size_t whole_blocks = 0;
    for (int r = 0; r < ROWS; r++) {
        size_t used = 0;
        assert_int_equal(bk_vis_walk(lump + start[r], at + 64 - start[r], row_len[r], &used), BSPKIT_OK);
        if (used != start[r + 1] - start[r])
            fail_msg("row %d (%zu bytes): walked %zu code bytes, compressed to %zu", r, row_len[r], used,
                     start[r + 1] - start[r]);
        whole_blocks += used / 64;
    }
    assert_true(whole_blocks > 500); /* many blocks inside rows, not only rows' ends */
}

/* Which bytes of src[from..n) start a code (a literal, or a zero and its
 * count), reading one code after another from `from`: 1 per such byte. */
static void code_starts(const uint8_t *src, size_t n, size_t from, uint8_t *starts)
{
    memset(starts, 0, n);
    for (size_t in = from; in < n;) {
        starts[in] = 1;
        in += src[in] ? 1 : 2;
    }
}

/* Marked positions against the plain reading above: true exactly when no
 * marked byte in [from, last] is a count. Code streams mix counts of 0 (a
 * zero right after a zero), so blocks take both the mask path and the
 * zero-by-zero one; `from` and the marks fall at block edges too. */
static void test_marks_start_codes_match_reference(void **state)
{
    (void)state;
    enum { CAP = 1024 };
    uint8_t src[CAP], starts[CAP];
    uint64_t marks[CAP / 64 + 1];
    uint32_t seed = 99;
    unsigned yes = 0, no = 0;
    for (int trial = 0; trial < 3000; trial++) {
        size_t n = make_row(&seed, src, CAP);
        if (n < 2)
            continue;
        size_t from = trial % 4 == 0 ? 64 * (next(&seed) % (n / 64 + 1)) : next(&seed) % n;
        if (from >= n)
            from = n - 1;
        code_starts(src, n, from, starts);
        memset(marks, 0, sizeof marks);
        /* The marks: `from`, then code starts (and, in some trials, one
         * more byte), the last of them `last`. */
        size_t last = from;
        marks[from / 64] |= UINT64_C(1) << (from % 64);
        for (size_t p = from + 1; p < n; p++)
            if (starts[p] && next(&seed) % 8 == 0) {
                marks[p / 64] |= UINT64_C(1) << (p % 64);
                last = p;
            }
        if (trial % 2) {
            /* In half of these the first count from a random byte on. */
            size_t p = from + next(&seed) % (n - from);
            while (trial % 4 == 1 && p + 1 < n && starts[p])
                p++;
            marks[p / 64] |= UINT64_C(1) << (p % 64);
            last = p > last ? p : last;
        }
        bool want = true;
        for (size_t p = from; p <= last; p++)
            if (((marks[p / 64] >> (p % 64)) & 1) && !starts[p])
                want = false;
        bool got = bk_vis_marks_start_codes(src, n, from, last, marks);
        if (got != want)
            fail_msg("trial %d: %zu bytes from %zu to %zu: %d, the reading says %d", trial, n, from, last, got, want);
        yes += want;
        no += !want;
    }
    assert_true(yes > 1000 && no > 400); /* both answers, many times */
    /* Outside the code: no answer. */
    const uint8_t one[] = {5, 6};
    uint64_t all = ~UINT64_C(0);
    assert_false(bk_vis_marks_start_codes(one, 2, 1, 0, &all));
    assert_false(bk_vis_marks_start_codes(one, 2, 0, 2, &all));
    assert_true(bk_vis_marks_start_codes(one, 2, 0, 1, &all));
}

static void test_walk_arguments(void **state)
{
    (void)state;
    size_t used = 5;
    assert_int_equal(bk_vis_walk(NULL, 3, 1, &used), BSPKIT_ERR_ARGUMENT);
    assert_int_equal(used, 0);
    assert_int_equal(bk_vis_walk(NULL, 0, 0, NULL), BSPKIT_OK);
    const uint8_t one[] = {7};
    assert_int_equal(bk_vis_walk(one, 1, 2, NULL), BSPKIT_ERR_VISIBILITY);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decoder_and_walk_match_reference),
        cmocka_unit_test(test_walk_compiled_rows),
        cmocka_unit_test(test_marks_start_codes_match_reference),
        cmocka_unit_test(test_walk_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
