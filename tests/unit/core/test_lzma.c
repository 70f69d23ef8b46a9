/* LZMA lump tests. Streams are produced here with liblzma's own encoder
 * (not bspkit's writer) and wrapped in Valve's 17-byte header, with and
 * without an end marker, then read back through a hand-built Source map. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bspkit/bspkit.h"
#include "core/bytes.h"
#include "core/map.h"

#include <lzma.h>
#include <stdlib.h>
#include <string.h>

/* Compress `size` bytes into Valve's layout; `end_marker` selects the stream flavour. */
static uint8_t *valve_lzma(const uint8_t *src, size_t size, bool end_marker, size_t *out_size)
{
    lzma_options_lzma opt;
    assert_false(lzma_lzma_preset(&opt, 6));
    lzma_filter filters[2] = {{.id = LZMA_FILTER_LZMA1, .options = &opt}, {.id = LZMA_VLI_UNKNOWN}};
    lzma_stream strm = LZMA_STREAM_INIT;
    assert_int_equal(lzma_raw_encoder(&strm, filters), LZMA_OK);
    size_t cap = size + size / 2 + 1024;
    uint8_t *out = malloc(cap);
    assert_non_null(out);
    strm.next_in = src;
    strm.avail_in = size;
    strm.next_out = out + 17;
    strm.avail_out = cap - 17;
    lzma_ret r;
    do
        r = lzma_code(&strm, LZMA_FINISH);
    while (r == LZMA_OK);
    assert_int_equal(r, LZMA_STREAM_END);
    size_t packed = cap - 17 - strm.avail_out;
    lzma_end(&strm);
    /* The raw LZMA1 encoder always writes an end marker (5-6 bytes); without
     * one, the decoder must stop on the output size, so strip it. */
    if (!end_marker)
        packed -= 6;
    memcpy(out, "LZMA", 4);
    wr_le32(out + 4, (uint32_t)size);
    wr_le32(out + 8, (uint32_t)packed);
    uint32_t props;
    lzma_filter pf = {.id = LZMA_FILTER_LZMA1, .options = &opt};
    assert_int_equal(lzma_properties_size(&props, &pf), LZMA_OK);
    assert_int_equal(props, 5);
    assert_int_equal(lzma_properties_encode(&pf, out + 12), LZMA_OK);
    *out_size = 17 + packed;
    return out;
}

static uint8_t *sample_bytes(size_t n)
{
    uint8_t *p = malloc(n);
    assert_non_null(p);
    uint32_t x = 12345;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        p[i] = (uint8_t)((i % 7 == 0) ? (x >> 24) : (uint8_t)(i / 64)); /* compressible but not trivial */
    }
    return p;
}

static void roundtrip(bool end_marker)
{
    size_t n = 100000, packed_size;
    uint8_t *raw = sample_bytes(n);
    uint8_t *packed = valve_lzma(raw, n, end_marker, &packed_size);
    uint8_t *out = malloc(n);
    bspkit_error e;
    assert_int_equal(bk_lzma_decompress(packed, packed_size, out, n, 3, &e), BSPKIT_OK);
    assert_memory_equal(out, raw, n);
    /* A stream cut short must fail, not return partial data. */
    wr_le32(packed + 8, (uint32_t)(packed_size - 17) / 2);
    assert_int_equal(bk_lzma_decompress(packed, 17 + (packed_size - 17) / 2, out, n, 3, &e), BSPKIT_ERR_COMPRESSION);
    assert_int_equal(e.lump, 3);
    free(raw);
    free(packed);
    free(out);
}

static void test_roundtrip_with_end_marker(void **state)
{
    (void)state;
    roundtrip(true);
}

static void test_roundtrip_without_end_marker(void **state)
{
    (void)state;
    roundtrip(false);
}

static void test_header_checks(void **state)
{
    (void)state;
    uint8_t hdr[17] = {'L', 'Z', 'M', 'A'};
    uint32_t actual, packed;
    wr_le32(hdr + 4, 100);
    wr_le32(hdr + 8, 1);
    assert_false(bk_lzma_sizes(hdr, 17, &actual, &packed)); /* claims a byte that is not there */
    wr_le32(hdr + 8, 0);
    assert_true(bk_lzma_sizes(hdr, 17, &actual, &packed));
    assert_int_equal(actual, 100);
    assert_false(bk_is_lzma((const uint8_t *)"LZM", 3));
    uint8_t out[100];
    bspkit_error e;
    hdr[12] = 0xFF; /* invalid lc/lp/pb properties */
    assert_int_equal(bk_lzma_decompress(hdr, 17, out, 100, 1, &e), BSPKIT_ERR_COMPRESSION);
    /* Expected size must match the header's. */
    hdr[12] = 0x5D;
    assert_int_equal(bk_lzma_decompress(hdr, 17, out, 99, 1, &e), BSPKIT_ERR_COMPRESSION);
}

/* A v20 Source map whose VERTEXES lump is compressed; `big` selects PSBV. */
static uint8_t *map_with_compressed_vertexes(bool big, const uint8_t *packed, size_t packed_size, uint32_t raw_size,
                                             size_t *size)
{
    size_t total = 1036 + packed_size;
    uint8_t *f = calloc(1, total);
    assert_non_null(f);
    memcpy(f, big ? "PSBV" : "VBSP", 4);
    wr_u32(f + 4, 20, big);
    uint8_t *e = f + 8 + 16 * BSPKIT_S_VERTEXES;
    wr_u32(e, 1036, big);
    wr_u32(e + 4, (uint32_t)packed_size, big);
    wr_u32(e + 12, raw_size, big); /* fourCC holds the uncompressed size */
    memcpy(f + 1036, packed, packed_size);
    *size = total;
    return f;
}

static void compressed_map(bool big)
{
    /* 300 vertexes, written in the file's byte order before compression. */
    size_t n = 300 * 12;
    uint8_t *raw = malloc(n);
    for (int i = 0; i < 300; i++)
        for (int k = 0; k < 3; k++)
            wr_f32(raw + 12 * i + 4 * k, (float)(i * 3 + k), big);
    size_t packed_size, size;
    uint8_t *packed = valve_lzma(raw, n, true, &packed_size);
    uint8_t *f = map_with_compressed_vertexes(big, packed, packed_size, (uint32_t)n, &size);
    bspkit_map *map;
    bspkit_error e;
    assert_int_equal(bspkit_open_memory(f, size, NULL, &map, &e), BSPKIT_OK);
    assert_true(bspkit_map_format(map)->variant & BSPKIT_VARIANT_COMPRESSED);
    bspkit_lump_info li;
    assert_int_equal(bspkit_get_lump_info(map, BSPKIT_S_VERTEXES, &li), BSPKIT_OK);
    assert_true(li.compressed);
    assert_int_equal(li.length, packed_size);
    assert_int_equal(li.uncompressed_length, n);
    uint64_t count;
    assert_int_equal(bspkit_lump_record_count(map, BSPKIT_S_VERTEXES, &count), BSPKIT_OK);
    assert_int_equal(count, 300);
    const bspkit_vec3 *v;
    size_t nv;
    assert_int_equal(bspkit_get_vertexes(map, &v, &nv, &e), BSPKIT_OK);
    assert_int_equal(nv, 300);
    assert_true(v[299].z == 899.0f && v[7].x == 21.0f);
    const uint8_t *bytes;
    size_t bsize;
    assert_int_equal(bspkit_lump_bytes(map, BSPKIT_S_VERTEXES, &bytes, &bsize, &e), BSPKIT_OK);
    assert_int_equal(bsize, n);
    assert_memory_equal(bytes, raw, n);
    bspkit_close(map);

    /* The lump limit is checked before allocating the decompressed buffer. */
    bspkit_options opts = {0};
    opts.max_lump_size = n - 1;
    assert_int_equal(bspkit_open_memory(f, size, &opts, &map, &e), BSPKIT_OK);
    assert_int_equal(bspkit_get_vertexes(map, &v, &nv, &e), BSPKIT_ERR_LIMIT);
    assert_int_equal(e.lump, BSPKIT_S_VERTEXES);
    assert_int_equal(bspkit_map_memory_used(map), 0);
    bspkit_close(map);

    /* Directory and LZMA header disagreeing on the size is caught at open. */
    wr_u32(f + 8 + 16 * BSPKIT_S_VERTEXES + 12, (uint32_t)n + 12, big);
    assert_int_equal(bspkit_open_memory(f, size, NULL, &map, &e), BSPKIT_ERR_COMPRESSION);
    assert_int_equal(e.lump, BSPKIT_S_VERTEXES);
    assert_int_equal(e.offset, 1036);

    /* Corrupt the stream: decoding fails cleanly with the lump named. */
    wr_u32(f + 8 + 16 * BSPKIT_S_VERTEXES + 12, (uint32_t)n, big);
    memset(f + 1036 + 17, 0xFF, packed_size - 17);
    assert_int_equal(bspkit_open_memory(f, size, NULL, &map, &e), BSPKIT_OK);
    assert_int_equal(bspkit_get_vertexes(map, &v, &nv, &e), BSPKIT_ERR_COMPRESSION);
    assert_int_equal(e.lump, BSPKIT_S_VERTEXES);
    assert_int_equal(e.offset, 1036);
    bspkit_close(map);
    free(f);
    free(packed);
    free(raw);
}

/* A decompression bomb: a few kilobytes of LZMA claiming 96 MiB. The default
 * memory limit (a base plus a multiple of the file size) refuses it before
 * allocating, naming the lump; an explicit larger limit decodes it. */
static void test_decompression_bomb(void **state)
{
    (void)state;
    size_t n = 96u << 20;
    uint8_t *zeros = calloc(1, n);
    assert_non_null(zeros);
    size_t packed_size, size;
    uint8_t *packed = valve_lzma(zeros, n, true, &packed_size);
    free(zeros);
    uint8_t *f = map_with_compressed_vertexes(false, packed, packed_size, (uint32_t)n, &size);
    assert_true(size < (1u << 20));
    bspkit_map *map;
    bspkit_error e;
    const uint8_t *bytes;
    size_t bsize;
    assert_int_equal(bspkit_open_memory(f, size, NULL, &map, &e), BSPKIT_OK);
    assert_int_equal(bspkit_lump_bytes(map, BSPKIT_S_VERTEXES, &bytes, &bsize, &e), BSPKIT_ERR_LIMIT);
    assert_int_equal(e.lump, BSPKIT_S_VERTEXES);
    assert_non_null(strstr(e.message, "memory limit"));
    assert_int_equal(bspkit_map_memory_used(map), 0);
    bspkit_close(map);

    bspkit_options opts = {.max_memory = 128u << 20};
    assert_int_equal(bspkit_open_memory(f, size, &opts, &map, &e), BSPKIT_OK);
    assert_int_equal(bspkit_lump_bytes(map, BSPKIT_S_VERTEXES, &bytes, &bsize, &e), BSPKIT_OK);
    assert_int_equal(bsize, n);
    assert_true(bytes[0] == 0 && bytes[n - 1] == 0);
    bspkit_close(map);
    free(f);
    free(packed);
}

static void test_compressed_lump_little_endian(void **state)
{
    (void)state;
    compressed_map(false);
}

static void test_compressed_lump_big_endian(void **state)
{
    (void)state;
    compressed_map(true);
}

/* A v20 Source map with three LZMA lumps (vertexes and lighting, 84 KB
 * hardly compressible, and a few surfedges) and, with `corrupt`, the
 * lighting stream damaged. */
static uint8_t *map_with_three_lumps(bool corrupt, uint8_t *raw[3], size_t raw_size[3], size_t *size)
{
    static const int lumps[3] = {BSPKIT_S_VERTEXES, BSPKIT_S_SURFEDGES, BSPKIT_S_LIGHTING};
    raw_size[0] = 2000 * 12;
    raw_size[1] = 16 * 4;
    raw_size[2] = 60000;
    uint8_t *packed[3];
    size_t packed_size[3], total = 1036;
    uint32_t x = 777;
    for (int k = 0; k < 3; k++) {
        raw[k] = malloc(raw_size[k]);
        assert_non_null(raw[k]);
        for (size_t i = 0; i < raw_size[k]; i++) {
            x = x * 1103515245u + 12345u;
            raw[k][i] = k == 1 ? 0 : (uint8_t)(x >> 24); /* surfedges 0: few problems to report */
        }
        packed[k] = valve_lzma(raw[k], raw_size[k], true, &packed_size[k]);
        total += packed_size[k];
    }
    uint8_t *f = calloc(1, total);
    assert_non_null(f);
    memcpy(f, "VBSP", 4);
    wr_le32(f + 4, 20);
    size_t at = 1036;
    for (int k = 0; k < 3; k++) {
        uint8_t *e = f + 8 + 16 * lumps[k];
        wr_le32(e, (uint32_t)at);
        wr_le32(e + 4, (uint32_t)packed_size[k]);
        wr_le32(e + 12, (uint32_t)raw_size[k]);
        memcpy(f + at, packed[k], packed_size[k]);
        if (corrupt && k == 2)
            memset(f + at + 17 + packed_size[k] / 2, 0xFF, 64);
        at += packed_size[k];
        free(packed[k]);
    }
    *size = total;
    return f;
}

static bspkit_report validated(const uint8_t *f, size_t size, bool lumps_first)
{
    bspkit_map *map;
    bspkit_error e;
    assert_int_equal(bspkit_open_memory(f, size, NULL, &map, &e), BSPKIT_OK);
    if (lumps_first) /* one by one, as asked: nothing is left to decompress together */
        for (int i = 0; i < bspkit_lump_count(map); i++) {
            const uint8_t *bytes;
            size_t n;
            (void)bspkit_lump_bytes(map, i, &bytes, &n, &e);
        }
    bspkit_report report;
    assert_int_equal(bspkit_validate_ex(map, 0, &report, &e), BSPKIT_OK);
    bspkit_close(map);
    return report;
}

/* Validation decompresses a map's LZMA lumps together, on several threads:
 * the bytes are the lumps' own, and the report (a damaged lump's error
 * included) is the one reading the lumps one by one gives. */
static void test_lumps_decompressed_together(void **state)
{
    (void)state;
    for (int corrupt = 0; corrupt < 2; corrupt++) {
        uint8_t *raw[3];
        size_t raw_size[3], size;
        uint8_t *f = map_with_three_lumps(corrupt, raw, raw_size, &size);

        bspkit_map *map;
        bspkit_error e;
        assert_int_equal(bspkit_open_memory(f, size, NULL, &map, &e), BSPKIT_OK);
        bspkit_report report;
        assert_int_equal(bspkit_validate_ex(map, 0, &report, &e), BSPKIT_OK);
        static const int lumps[3] = {BSPKIT_S_VERTEXES, BSPKIT_S_SURFEDGES, BSPKIT_S_LIGHTING};
        for (int k = 0; k < 3; k++) {
            const uint8_t *bytes;
            size_t n;
            bspkit_result r = bspkit_lump_bytes(map, lumps[k], &bytes, &n, &e);
            if (corrupt && k == 2) {
                assert_int_equal(r, BSPKIT_ERR_COMPRESSION);
                assert_int_equal(e.lump, BSPKIT_S_LIGHTING);
                continue;
            }
            assert_int_equal(r, BSPKIT_OK);
            assert_int_equal(n, raw_size[k]);
            assert_memory_equal(bytes, raw[k], n);
        }
        bspkit_report_free(&report);
        bspkit_close(map);

        bspkit_report together = validated(f, size, false), apart = validated(f, size, true);
        assert_int_equal(together.errors, apart.errors);
        assert_int_equal(together.warnings, apart.warnings);
        assert_int_equal(together.count, apart.count);
        assert_true(together.count > 0);
        bool lighting_named = false;
        for (size_t i = 0; i < together.count; i++) {
            assert_int_equal(together.problems[i].code, apart.problems[i].code);
            assert_int_equal(together.problems[i].lump, apart.problems[i].lump);
            assert_string_equal(together.problems[i].message, apart.problems[i].message);
            lighting_named |= together.problems[i].code == BSPKIT_ERR_COMPRESSION &&
                              together.problems[i].lump == BSPKIT_S_LIGHTING;
        }
        assert_int_equal(lighting_named, corrupt);
        bspkit_report_free(&together);
        bspkit_report_free(&apart);
        for (int k = 0; k < 3; k++)
            free(raw[k]);
        free(f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_with_end_marker),
        cmocka_unit_test(test_roundtrip_without_end_marker),
        cmocka_unit_test(test_header_checks),
        cmocka_unit_test(test_compressed_lump_little_endian),
        cmocka_unit_test(test_compressed_lump_big_endian),
        cmocka_unit_test(test_decompression_bomb),
        cmocka_unit_test(test_lumps_decompressed_together),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
