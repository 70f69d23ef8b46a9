/* CRC-32 tests: bk_crc32 is compared with liblzma's lzma_crc32, an
 * independent implementation of the same zlib/IEEE CRC with the same
 * chaining rule, over every short length and alignment and a large buffer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/crc32.h"

#include <lzma.h>
#include <stdlib.h>
#include <string.h>

typedef uint32_t (*crc_fn)(const uint8_t *data, size_t size, uint32_t crc);

typedef struct impl {
    crc_fn fn;
} impl;

static impl dispatch = {bk_crc32};

#define BIG_SIZE (9u << 20) /* about the size of a large Source map */

/* Fixed-seed xorshift, so failures reproduce. */
static void fill_random(uint8_t *p, size_t n, uint64_t seed)
{
    uint64_t s = seed | 1;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        p[i] = (uint8_t)(s >> 32);
    }
}

/* Buffer aligned to 64 so a start offset means exactly that alignment. */
static uint8_t *random_buffer(size_t n, uint64_t seed)
{
    uint8_t *p = aligned_alloc(64, (n + 63) & ~(size_t)63);
    assert_non_null(p);
    fill_random(p, n, seed);
    return p;
}

static crc_fn impl_of(void **state)
{
    const impl *im = *state;
    return im->fn;
}

static void test_empty(void **state)
{
    crc_fn crc = impl_of(state);
    uint8_t byte = 0x5a;
    assert_int_equal(crc(NULL, 0, 0), 0);
    assert_int_equal(crc(NULL, 0, 0xdeadbeef), 0xdeadbeef);
    assert_int_equal(crc(&byte, 0, 0x12345678), lzma_crc32(&byte, 0, 0x12345678));
}

static void test_check_value(void **state)
{
    crc_fn crc = impl_of(state);
    const uint8_t *s = (const uint8_t *)"123456789";
    assert_int_equal(crc(s, 9, 0), 0xCBF43926u);
    assert_int_equal(lzma_crc32(s, 9, 0), 0xCBF43926u);
}

/* Covers the short-input cutoff, every head and tail length and a few
 * rounds of the four-lane loop, with zero and non-zero starting CRCs. */
static void test_lengths_alignments(void **state)
{
    crc_fn crc = impl_of(state);
    enum { MAX_LEN = 300, MAX_ALIGN = 15 };
    uint8_t *buf = random_buffer(MAX_LEN + MAX_ALIGN, 1);
    for (size_t align = 0; align <= MAX_ALIGN; align++) {
        for (size_t len = 0; len <= MAX_LEN; len++) {
            const uint8_t *p = buf + align;
            uint32_t seed = (uint32_t)(len * 0x9e3779b9u + align);
            uint32_t want0 = lzma_crc32(p, len, 0), want1 = lzma_crc32(p, len, seed);
            uint32_t got0 = crc(p, len, 0), got1 = crc(p, len, seed);
            if (got0 != want0 || got1 != want1)
                fail_msg("align %zu len %zu: got %08x/%08x, want %08x/%08x", align, len, got0, got1, want0,
                         want1);
        }
    }
    free(buf);
}

static void test_big_buffer(void **state)
{
    crc_fn crc = impl_of(state);
    uint8_t *buf = random_buffer(BIG_SIZE, 2);
    assert_int_equal(crc(buf, BIG_SIZE, 0), lzma_crc32(buf, BIG_SIZE, 0));
    /* Odd start and length: unaligned head and a short tail around the bulk. */
    assert_int_equal(crc(buf + 3, BIG_SIZE - 10, 0x1234), lzma_crc32(buf + 3, BIG_SIZE - 10, 0x1234));
    free(buf);
}

/* crc(b, crc(a, c)) == crc(a || b, c) wherever the split falls. */
static void test_chaining(void **state)
{
    crc_fn crc = impl_of(state);
    enum { SMALL = 1000 };
    uint8_t *buf = random_buffer(BIG_SIZE, 3);

    uint32_t whole = lzma_crc32(buf, SMALL, 0);
    for (size_t cut = 0; cut <= SMALL; cut++) {
        uint32_t got = crc(buf + cut, SMALL - cut, crc(buf, cut, 0));
        if (got != whole)
            fail_msg("split at %zu of %d: got %08x, want %08x", cut, SMALL, got, whole);
    }

    whole = lzma_crc32(buf, BIG_SIZE, 0);
    uint64_t s = 12345;
    for (int i = 0; i < 40; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        size_t cut = (size_t)(s >> 33) % (BIG_SIZE + 1);
        uint32_t got = crc(buf + cut, BIG_SIZE - cut, crc(buf, cut, 0));
        if (got != whole)
            fail_msg("split at %zu of %u: got %08x, want %08x", cut, BIG_SIZE, got, whole);
    }

    /* Many pieces of varying size, each crossing the fast-path cutoffs. */
    uint32_t c = 0;
    size_t pos = 0;
    for (size_t piece = 1; pos < BIG_SIZE; piece = piece * 3 % 70001 + 1) {
        size_t n = piece < BIG_SIZE - pos ? piece : BIG_SIZE - pos;
        c = crc(buf + pos, n, c);
        pos += n;
    }
    assert_int_equal(c, whole);
    free(buf);
}

#define IMPL_TEST(f, im) {#f " (" #im ")", f, NULL, NULL, &im}

int main(void)
{
    const struct CMUnitTest tests[] = {
        IMPL_TEST(test_empty, dispatch),
        IMPL_TEST(test_check_value, dispatch),
        IMPL_TEST(test_lengths_alignments, dispatch),
        IMPL_TEST(test_big_buffer, dispatch),
        IMPL_TEST(test_chaining, dispatch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
