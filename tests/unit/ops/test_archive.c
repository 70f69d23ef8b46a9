/* The GMA and VPK directory readers and the bzip2/gzip stream readers, on
 * containers written byte by byte here from the published layouts (gmad's
 * AddonReader; Valve's VPK version 1/2 description), then cut short at
 * every length and with sizes, offsets and terminators made hostile. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "byte_out.h"
#include "check.h"
#include "ops/archive.h"

#include <bzlib.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static void cstr(out *o, const char *s)
{
    text(o, s, strlen(s) + 1);
}

static void u64(out *o, uint64_t v)
{
    i32(o, (int64_t)(v & 0xffffffffu));
    i32(o, (int64_t)(v >> 32));
}

/* GMA version `version` holding "maps/a.bsp" (5 bytes) and "b.txt" (3 bytes). */
static void make_gma(out *o, unsigned version)
{
    o->n = 0;
    text(o, "GMAD", 4);
    u8(o, version);
    u64(o, 76561197960287930ull);
    u64(o, 1700000000);
    if (version > 1) {
        cstr(o, "req1");
        cstr(o, "");
    }
    cstr(o, "name");
    cstr(o, "description");
    cstr(o, "author");
    i32(o, 1);
    i32(o, 1);
    cstr(o, "maps/a.bsp");
    u64(o, 5);
    i32(o, 0x11111111);
    i32(o, 2);
    cstr(o, "b.txt");
    u64(o, 3);
    i32(o, 0x22222222);
    i32(o, 0);
    text(o, "AAAAA", 5);
    text(o, "BBB", 3);
    i32(o, 0); /* the addon's CRC, not read */
}

static void test_gma(void **state)
{
    (void)state;
    static out o;
    for (unsigned version = 1; version <= 3; version++) {
        make_gma(&o, version);
        bk_arc_list l;
        CHECK(bk_gma_list(o.b, o.n, &l, ERR));
        assert_int_equal(l.count, 2);
        assert_string_equal(l.entries[0].name, "maps/a.bsp");
        assert_int_equal(l.entries[0].size, 5);
        assert_int_equal(l.entries[0].crc, 0x11111111);
        assert_memory_equal(o.b + l.entries[0].offset, "AAAAA", 5);
        assert_string_equal(l.entries[1].name, "b.txt");
        assert_memory_equal(o.b + l.entries[1].offset, "BBB", 3);
        bk_arc_list_free(&l);
    }
}

static void test_gma_hostile(void **state)
{
    (void)state;
    static out o;
    make_gma(&o, 3);
    bk_arc_list l;
    /* Every cut before the last file's end fails; the trailing CRC may be missing. */
    for (size_t n = 0; n + 4 < o.n; n++) {
        bspkit_result r = bk_gma_list(o.b, n, &l, ERR);
        assert_int_not_equal(r, BSPKIT_OK);
        assert_null(l.entries);
    }
    CHECK(bk_gma_list(o.b, o.n - 4, &l, ERR));
    bk_arc_list_free(&l);
    /* A size of 2^63 - 1 and a negative size. */
    size_t size_at = 0;
    for (size_t i = 0; i + 11 < o.n; i++)
        if (memcmp(o.b + i, "maps/a.bsp", 11) == 0)
            size_at = i + 11;
    assert_true(size_at > 0);
    static out bad;
    bad = o;
    memset(bad.b + size_at, 0xff, 7);
    bad.b[size_at + 7] = 0x7f;
    assert_int_equal(bk_gma_list(bad.b, bad.n, &l, ERR), BSPKIT_ERR_LUMP_RANGE);
    assert_non_null(strstr(g_err.message, "maps/a.bsp"));
    bad.b[size_at + 7] = 0xff;
    assert_int_equal(bk_gma_list(bad.b, bad.n, &l, ERR), BSPKIT_ERR_LUMP_RANGE);
    /* Wrong magic and version. */
    bad = o;
    bad.b[0] = 'X';
    assert_int_equal(bk_gma_list(bad.b, bad.n, &l, ERR), BSPKIT_ERR_UNKNOWN_FORMAT);
    bad = o;
    bad.b[4] = 9;
    assert_int_equal(bk_gma_list(bad.b, bad.n, &l, ERR), BSPKIT_ERR_UNSUPPORTED);
}

/* VPK version `version`: "maps/a.bsp" with 2 preload bytes "PP" and 4 bytes
 * at offset 3 of the embedded data; "readme" (no extension, no directory)
 * in archive 7 at offset 100, 9 bytes. Returns where the first entry's
 * 18 bytes start. */
static size_t make_vpk(out *o, unsigned version)
{
    o->n = 0;
    i32(o, 0x55aa1234);
    i32(o, version);
    size_t tree_size_at = o->n;
    i32(o, 0);
    if (version == 2)
        for (int k = 0; k < 4; k++)
            i32(o, 0);
    size_t tree = o->n;
    cstr(o, "bsp");
    cstr(o, "maps");
    cstr(o, "a");
    size_t entry = o->n;
    i32(o, 0xabcdef01);
    i16(o, 2);
    i16(o, 0x7fff);
    i32(o, 3);
    i32(o, 4);
    i16(o, 0xffff);
    text(o, "PP", 2);
    cstr(o, "");
    cstr(o, "");
    cstr(o, " ");
    cstr(o, " ");
    cstr(o, "readme");
    i32(o, 0);
    i16(o, 0);
    i16(o, 7);
    i32(o, 100);
    i32(o, 9);
    i16(o, 0xffff);
    cstr(o, "");
    cstr(o, "");
    cstr(o, "");
    size_t end = o->n;
    o->n = tree_size_at;
    i32(o, (int64_t)(end - tree));
    o->n = end;
    text(o, "xxxDATA", 7);
    return entry;
}

static void test_vpk(void **state)
{
    (void)state;
    static out o;
    for (unsigned version = 1; version <= 2; version++) {
        make_vpk(&o, version);
        bk_arc_list l;
        CHECK(bk_vpk_list(o.b, o.n, &l, ERR));
        assert_int_equal(l.count, 2);
        assert_string_equal(l.entries[0].name, "maps/a.bsp");
        assert_int_equal(l.entries[0].archive, BK_VPK_DIR_ARCHIVE);
        assert_int_equal(l.entries[0].preload_size, 2);
        assert_memory_equal(o.b + l.entries[0].preload_offset, "PP", 2);
        assert_int_equal(l.entries[0].size, 4);
        assert_memory_equal(o.b + l.entries[0].offset, "DATA", 4); /* made absolute */
        assert_int_equal(l.entries[0].crc, 0xabcdef01);
        assert_string_equal(l.entries[1].name, "readme");
        assert_int_equal(l.entries[1].archive, 7);
        assert_int_equal(l.entries[1].offset, 100);
        assert_int_equal(l.entries[1].size, 9);
        bk_arc_list_free(&l);
    }
}

static void test_vpk_hostile(void **state)
{
    (void)state;
    static out o, bad;
    size_t entry = make_vpk(&o, 2);
    bk_arc_list l;
    /* Cut anywhere before the embedded data ends: the tree or the data no longer fits. */
    for (size_t n = 0; n < o.n; n++) {
        assert_int_not_equal(bk_vpk_list(o.b, n, &l, ERR), BSPKIT_OK);
        assert_null(l.entries);
    }
    bad = o;
    bad.b[entry + 16] = 0; /* terminator */
    assert_int_equal(bk_vpk_list(bad.b, bad.n, &l, ERR), BSPKIT_ERR_UNKNOWN_FORMAT);
    assert_non_null(strstr(g_err.message, "offset"));
    bad = o;
    memset(bad.b + entry + 8, 0xff, 4); /* offset 2^32 - 1 */
    assert_int_equal(bk_vpk_list(bad.b, bad.n, &l, ERR), BSPKIT_ERR_LUMP_RANGE);
    bad = o;
    memset(bad.b + entry + 12, 0xff, 4); /* length 2^32 - 1 */
    assert_int_equal(bk_vpk_list(bad.b, bad.n, &l, ERR), BSPKIT_ERR_LUMP_RANGE);
    bad = o;
    memset(bad.b + entry + 4, 0xff, 2); /* preload 65535 bytes */
    assert_int_equal(bk_vpk_list(bad.b, bad.n, &l, ERR), BSPKIT_ERR_LUMP_RANGE);
    bad = o;
    memset(bad.b + 8, 0xff, 4); /* tree size */
    assert_int_equal(bk_vpk_list(bad.b, bad.n, &l, ERR), BSPKIT_ERR_LUMP_RANGE);
    bad = o;
    bad.b[4] = 3;
    assert_int_equal(bk_vpk_list(bad.b, bad.n, &l, ERR), BSPKIT_ERR_UNSUPPORTED);
    bad = o;
    bad.b[0] = 0;
    assert_int_equal(bk_vpk_list(bad.b, bad.n, &l, ERR), BSPKIT_ERR_UNKNOWN_FORMAT);
}

/* Streams made by the libraries themselves (not by bspkit's encoder), two of them concatenated. */
static void test_streams(void **state)
{
    (void)state;
    enum { N = 300000 };
    uint8_t *plain = malloc(N);
    assert_non_null(plain);
    for (size_t i = 0; i < N; i++)
        plain[i] = (uint8_t)((i * 7) ^ (i >> 9));
    unsigned bz_cap = N + N / 100 + 600;
    uint8_t *bz = malloc(2 * (size_t)bz_cap);
    unsigned bz_n = bz_cap;
    assert_int_equal(BZ2_bzBuffToBuffCompress((char *)bz, &bz_n, (char *)plain, N, 9, 0, 0), BZ_OK);
    memcpy(bz + bz_n, bz, bz_n); /* a second stream */

    uint8_t *back;
    size_t back_n;
    CHECK(bk_bz2_decompress(bz, bz_n, N, &back, &back_n, ERR));
    assert_int_equal(back_n, N);
    assert_memory_equal(back, plain, N);
    free(back);
    CHECK(bk_bz2_decompress(bz, 2 * (size_t)bz_n, 2 * N, &back, &back_n, ERR));
    assert_int_equal(back_n, 2 * N);
    assert_memory_equal(back + N, plain, N);
    free(back);
    assert_int_equal(bk_bz2_decompress(bz, bz_n, N - 1, &back, &back_n, ERR), BSPKIT_ERR_LIMIT);
    for (size_t cut = 0; cut < bz_n; cut += bz_n / 7 + 1)
        assert_int_not_equal(bk_bz2_decompress(bz, cut, N, &back, &back_n, ERR), BSPKIT_OK);
    /* Counted only (no output buffer): the same sizes and refusals. */
    size_t counted = 0;
    CHECK(bk_bz2_decompress(bz, bz_n, N, NULL, &counted, ERR));
    assert_int_equal(counted, N);
    CHECK(bk_bz2_decompress(bz, 2 * (size_t)bz_n, 2 * N, NULL, &counted, ERR));
    assert_int_equal(counted, 2 * N);
    assert_int_equal(bk_bz2_decompress(bz, bz_n, N - 1, NULL, &counted, ERR), BSPKIT_ERR_LIMIT);
    for (size_t cut = 0; cut < bz_n; cut += bz_n / 7 + 1)
        assert_int_not_equal(bk_bz2_decompress(bz, cut, N, NULL, &counted, ERR), BSPKIT_OK);

    /* gzip through zlib's deflate with a gzip wrapper. */
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t gz_cap = deflateBound(&z, N);
    uint8_t *gz = malloc(gz_cap);
    z.next_in = plain;
    z.avail_in = N;
    z.next_out = gz;
    z.avail_out = (uInt)gz_cap;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    size_t gz_n = gz_cap - z.avail_out;
    deflateEnd(&z);
    CHECK(bk_gz_decompress(gz, gz_n, N, &back, &back_n, ERR));
    assert_int_equal(back_n, N);
    assert_memory_equal(back, plain, N);
    free(back);
    assert_int_equal(bk_gz_decompress(gz, gz_n, N / 2, &back, &back_n, ERR), BSPKIT_ERR_LIMIT);
    for (size_t cut = 0; cut < gz_n; cut += gz_n / 7 + 1)
        assert_int_not_equal(bk_gz_decompress(gz, cut, N, &back, &back_n, ERR), BSPKIT_OK);
    gz[gz_n / 2] ^= 0xff;
    assert_int_not_equal(bk_gz_decompress(gz, gz_n, N, &back, &back_n, ERR), BSPKIT_OK);

    free(gz);
    free(bz);
    free(plain);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gma),
        cmocka_unit_test(test_gma_hostile),
        cmocka_unit_test(test_vpk),
        cmocka_unit_test(test_vpk_hostile),
        cmocka_unit_test(test_streams),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
