/* VTF decoding: files built byte by byte here (7.2 with a thumbnail, 7.4/7.5
 * with a resource directory, cube maps with and without the sphere-map
 * face), DXT blocks encoded with chosen endpoints and the expected colours
 * computed from the DXT formulas in this file, uncompressed channel orders,
 * partial blocks, and hostile headers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bspkit/textures.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

enum { F_RGBA8888 = 0, F_ABGR8888 = 1, F_RGB888 = 2, F_BGR888 = 3, F_RGB565 = 4, F_I8 = 5, F_IA88 = 6, F_A8 = 8,
       F_ARGB8888 = 11, F_BGRA8888 = 12, F_DXT1 = 13, F_DXT3 = 14, F_DXT5 = 15, F_BGRX8888 = 16, F_BGR565 = 17,
       F_BGRA4444 = 19, F_BGRA5551 = 21, F_UV88 = 22, F_RGBA16161616F = 24 };

/* A growing byte buffer. */
typedef struct buf { uint8_t *p; size_t n; } buf;

static void put(buf *b, const void *data, size_t n)
{
    b->p = realloc(b->p, b->n + n);
    assert_non_null(b->p);
    memcpy(b->p + b->n, data, n);
    b->n += n;
}
static void put8(buf *b, uint8_t v) { put(b, &v, 1); }
static void put16(buf *b, uint16_t v) { uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)}; put(b, x, 2); }
static void put32(buf *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(b, x, 4);
}
static void fill(buf *b, uint8_t v, size_t n) { for (size_t i = 0; i < n; i++) put8(b, v); }
static void set32(buf *b, size_t at, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        b->p[at + k] = (uint8_t)(v >> (8 * k));
}

typedef struct hdr {
    uint32_t minor, w, h, flags, frames, first_frame, mips, depth;
    int32_t format, low_format;
    uint32_t low_w, low_h;
    uint32_t resources; /* 7.3+: entries follow, written by the caller */
} hdr;

/* Header through the resource count; header size 80 (+8 per resource). */
static void put_header(buf *b, const hdr *h)
{
    put(b, "VTF\0", 4);
    put32(b, 7);
    put32(b, h->minor);
    put32(b, 80 + 8 * h->resources);
    put16(b, (uint16_t)h->w);
    put16(b, (uint16_t)h->h);
    put32(b, h->flags);
    put16(b, (uint16_t)h->frames);
    put16(b, (uint16_t)h->first_frame);
    fill(b, 0, 4 + 12 + 4 + 4); /* padding, reflectivity, padding, bump scale */
    put32(b, (uint32_t)h->format);
    put8(b, (uint8_t)h->mips);
    put32(b, (uint32_t)h->low_format);
    put8(b, (uint8_t)h->low_w);
    put8(b, (uint8_t)h->low_h);
    put16(b, (uint16_t)h->depth);
    fill(b, 0, 3);
    put32(b, h->resources);
    fill(b, 0, 8);
    assert_int_equal(b->n, 80);
}

/* ---- expected colours, computed independently of the decoder ---- */

static uint8_t x5(unsigned v) { return (uint8_t)(v * 8 + v / 4); }
static uint8_t x6(unsigned v) { return (uint8_t)(v * 4 + v / 16); }

static void exp565(uint16_t c, int rgb[3])
{
    rgb[0] = x5(c >> 11);
    rgb[1] = x6((c >> 5) & 0x3f);
    rgb[2] = x5(c & 0x1f);
}

/* Colour `code` (0-3) of a block with endpoints c0, c1; alpha through *a. */
static void exp_dxt(uint16_t c0, uint16_t c1, bool dxt1, int code, uint8_t out[4])
{
    int e0[3], e1[3];
    exp565(c0, e0);
    exp565(c1, e1);
    out[3] = 255;
    for (int k = 0; k < 3; k++) {
        int v;
        if (code == 0)
            v = e0[k];
        else if (code == 1)
            v = e1[k];
        else if (c0 > c1 || !dxt1)
            v = code == 2 ? (2 * e0[k] + e1[k]) / 3 : (e0[k] + 2 * e1[k]) / 3;
        else
            v = code == 2 ? (e0[k] + e1[k]) / 2 : 0;
        out[k] = (uint8_t)v;
    }
    if (dxt1 && c0 <= c1 && code == 3)
        out[3] = 0;
}

static void put_colour_block(buf *b, uint16_t c0, uint16_t c1, const int codes[16])
{
    put16(b, c0);
    put16(b, c1);
    uint32_t bits = 0;
    for (int i = 0; i < 16; i++)
        bits |= (uint32_t)codes[i] << (2 * i);
    put32(b, bits);
}

static void decode_ok(buf *b, bspkit_image *img, bspkit_vtf_info *info)
{
    CHECK(bspkit_vtf_decode(b->p, b->n, img, info, ERR));
}

static void expect_px(const bspkit_image *img, uint32_t x, uint32_t y, const uint8_t want[4])
{
    const uint8_t *px = img->rgba + ((size_t)y * img->width + x) * 4;
    if (memcmp(px, want, 4) != 0)
        fail_msg("pixel %u,%u is %u,%u,%u,%u, expected %u,%u,%u,%u", x, y, px[0], px[1], px[2], px[3], want[0],
                 want[1], want[2], want[3]);
}

static hdr h72(uint32_t w, uint32_t h, int32_t format)
{
    hdr x = {.minor = 2, .w = w, .h = h, .frames = 1, .mips = 1, .depth = 1, .format = format, .low_format = -1};
    return x;
}

/* DXT1, both modes, in one 8x4 image (two blocks). */
static void test_dxt1_modes(void **state)
{
    (void)state;
    int codes[16];
    for (int i = 0; i < 16; i++)
        codes[i] = (i * 5 + i / 4) & 3;
    const uint16_t a0 = 0xF81F, a1 = 0x07E0; /* a0 > a1: four colours */
    const uint16_t b0 = 0x0410, b1 = 0xC618; /* b0 <= b1: three colours + transparent */
    buf b = {0};
    hdr h = h72(8, 4, F_DXT1);
    put_header(&b, &h);
    put_colour_block(&b, a0, a1, codes);
    put_colour_block(&b, b0, b1, codes);
    bspkit_image img;
    bspkit_vtf_info info;
    decode_ok(&b, &img, &info);
    assert_string_equal(info.format_name, "DXT1");
    assert_true(info.format_supported);
    int transparent = 0;
    for (int i = 0; i < 16; i++) {
        uint8_t want[4];
        exp_dxt(a0, a1, true, codes[i], want);
        expect_px(&img, (uint32_t)i % 4, (uint32_t)i / 4, want);
        exp_dxt(b0, b1, true, codes[i], want);
        expect_px(&img, 4 + (uint32_t)i % 4, (uint32_t)i / 4, want);
        transparent += want[3] == 0;
    }
    assert_true(transparent > 0); /* the 3-colour mode was exercised */
    bspkit_image_free(&img);
    free(b.p);
}

/* DXT3: explicit 4-bit alpha; the colour block is always four colours. */
static void test_dxt3(void **state)
{
    (void)state;
    int codes[16];
    for (int i = 0; i < 16; i++)
        codes[i] = 3 - (i & 3);
    buf b = {0};
    hdr h = h72(4, 4, F_DXT3);
    put_header(&b, &h);
    uint64_t alpha = 0;
    for (int i = 0; i < 16; i++)
        alpha |= (uint64_t)(15 - i) << (4 * i);
    for (int k = 0; k < 8; k++)
        put8(&b, (uint8_t)(alpha >> (8 * k)));
    const uint16_t c0 = 0x0010, c1 = 0xFFE0; /* c0 < c1, still four colours in DXT3 */
    put_colour_block(&b, c0, c1, codes);
    bspkit_image img;
    decode_ok(&b, &img, NULL);
    for (int i = 0; i < 16; i++) {
        uint8_t want[4];
        exp_dxt(c0, c1, false, codes[i], want);
        want[3] = (uint8_t)((15 - i) * 255 / 15);
        expect_px(&img, (uint32_t)i % 4, (uint32_t)i / 4, want);
    }
    bspkit_image_free(&img);
    free(b.p);
}

/* DXT5 alpha value `code` for endpoints a0, a1. */
static uint8_t exp_dxt5_alpha(int a0, int a1, int code)
{
    if (code == 0)
        return (uint8_t)a0;
    if (code == 1)
        return (uint8_t)a1;
    if (a0 > a1)
        return (uint8_t)(((8 - code) * a0 + (code - 1) * a1) / 7);
    if (code == 6)
        return 0;
    if (code == 7)
        return 255;
    return (uint8_t)(((6 - code) * a0 + (code - 1) * a1) / 5);
}

static void test_dxt5_modes(void **state)
{
    (void)state;
    const int ends[2][2] = {{200, 50}, {50, 200}}; /* eight-value, then six-value mode */
    int codes[16];
    for (int i = 0; i < 16; i++)
        codes[i] = i & 3;
    buf b = {0};
    hdr h = h72(8, 4, F_DXT5);
    put_header(&b, &h);
    const uint16_t c0 = 0x1234, c1 = 0x8765;
    for (int blk = 0; blk < 2; blk++) {
        put8(&b, (uint8_t)ends[blk][0]);
        put8(&b, (uint8_t)ends[blk][1]);
        uint64_t bits = 0;
        for (int i = 0; i < 16; i++)
            bits |= (uint64_t)((i + blk) & 7) << (3 * i);
        for (int k = 0; k < 6; k++)
            put8(&b, (uint8_t)(bits >> (8 * k)));
        put_colour_block(&b, c0, c1, codes);
    }
    bspkit_image img;
    decode_ok(&b, &img, NULL);
    for (int blk = 0; blk < 2; blk++) {
        for (int i = 0; i < 16; i++) {
            uint8_t want[4];
            exp_dxt(c0, c1, false, codes[i], want);
            want[3] = exp_dxt5_alpha(ends[blk][0], ends[blk][1], (i + blk) & 7);
            expect_px(&img, (uint32_t)(blk * 4 + i % 4), (uint32_t)i / 4, want);
        }
    }
    bspkit_image_free(&img);
    free(b.p);
}

/* A 6x5 DXT1 image: 2x2 blocks, of which only the covered pixels appear. */
static void test_partial_blocks(void **state)
{
    (void)state;
    buf b = {0};
    hdr h = h72(6, 5, F_DXT1);
    h.mips = 3; /* 3x2 and 1x1 mips come first: one block each */
    put_header(&b, &h);
    int zero[16] = {0};
    put_colour_block(&b, 0xFFFF, 0, zero); /* mip 2 */
    put_colour_block(&b, 0xFFFF, 0, zero); /* mip 1 */
    uint16_t ends[4][2] = {{0xF800, 0x0001}, {0x07E0, 0x0002}, {0x001F, 0x0003}, {0x8410, 0x0004}};
    int codes[16];
    for (int i = 0; i < 16; i++)
        codes[i] = (i + i / 4) & 3;
    for (int k = 0; k < 4; k++)
        put_colour_block(&b, ends[k][0], ends[k][1], codes);
    bspkit_image img;
    decode_ok(&b, &img, NULL);
    assert_int_equal(img.width, 6);
    assert_int_equal(img.height, 5);
    for (uint32_t y = 0; y < 5; y++) {
        for (uint32_t x = 0; x < 6; x++) {
            int blk = (int)(y / 4) * 2 + (int)(x / 4), i = (int)(y % 4) * 4 + (int)(x % 4);
            uint8_t want[4];
            exp_dxt(ends[blk][0], ends[blk][1], true, codes[i], want);
            expect_px(&img, x, y, want);
        }
    }
    bspkit_image_free(&img);
    free(b.p);
}

/* One pixel of each uncompressed format; expectations follow the format
 * name (byte order for 8-bit channels, bit order from bit 0 for 16-bit). */
static void test_uncompressed_orders(void **state)
{
    (void)state;
    static const struct {
        int32_t format;
        uint8_t bytes[4];
        size_t n;
        uint8_t want[4];
    } cases[] = {
        {F_RGBA8888, {0x11, 0x22, 0x33, 0x44}, 4, {0x11, 0x22, 0x33, 0x44}},
        {F_ABGR8888, {0x11, 0x22, 0x33, 0x44}, 4, {0x44, 0x33, 0x22, 0x11}},
        {F_ARGB8888, {0x11, 0x22, 0x33, 0x44}, 4, {0x22, 0x33, 0x44, 0x11}},
        {F_BGRA8888, {0x11, 0x22, 0x33, 0x44}, 4, {0x33, 0x22, 0x11, 0x44}},
        {F_BGRX8888, {0x11, 0x22, 0x33, 0x44}, 4, {0x33, 0x22, 0x11, 0xff}},
        {F_RGB888, {0x11, 0x22, 0x33}, 3, {0x11, 0x22, 0x33, 0xff}},
        {F_BGR888, {0x11, 0x22, 0x33}, 3, {0x33, 0x22, 0x11, 0xff}},
        {F_I8, {0x5a}, 1, {0x5a, 0x5a, 0x5a, 0xff}},
        {F_IA88, {0x5a, 0x80}, 2, {0x5a, 0x5a, 0x5a, 0x80}},
        {F_A8, {0x80}, 1, {0, 0, 0, 0x80}},
        {F_UV88, {0x12, 0xf0}, 2, {0x12, 0xf0, 0, 0xff}},
        /* 0x001f: the lowest five bits set */
        {F_RGB565, {0x1f, 0x00}, 2, {255, 0, 0, 255}},
        {F_BGR565, {0x1f, 0x00}, 2, {0, 0, 255, 255}},
        {F_BGR565, {0x00, 0xf8}, 2, {255, 0, 0, 255}},
        {F_BGR565, {0xe0, 0x07}, 2, {0, 255, 0, 255}},
        /* 0x8421 BGRA4444: B=1 G=2 R=4 A=8 */
        {F_BGRA4444, {0x21, 0x84}, 2, {0x44, 0x22, 0x11, 0x88}},
        /* BGRA5551: 0x7c00 = red, no alpha bit; 0x801f = blue + alpha */
        {F_BGRA5551, {0x00, 0x7c}, 2, {255, 0, 0, 0}},
        {F_BGRA5551, {0x1f, 0x80}, 2, {0, 0, 255, 255}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        buf b = {0};
        hdr h = h72(1, 1, cases[c].format);
        put_header(&b, &h);
        put(&b, cases[c].bytes, cases[c].n);
        bspkit_image img;
        decode_ok(&b, &img, NULL);
        if (memcmp(img.rgba, cases[c].want, 4) != 0)
            fail_msg("case %zu (format %d): got %u,%u,%u,%u", c, cases[c].format, img.rgba[0], img.rgba[1],
                     img.rgba[2], img.rgba[3]);
        bspkit_image_free(&img);
        free(b.p);
    }
}

/* 7.2: a DXT1 thumbnail, then mips 4x4 (junk) and 8x8 BGRA8888 (the image). */
static void test_v72_thumbnail_and_mips(void **state)
{
    (void)state;
    buf b = {0};
    hdr h = h72(8, 8, F_BGRA8888);
    h.mips = 2;
    h.low_format = F_DXT1;
    h.low_w = h.low_h = 4;
    put_header(&b, &h);
    fill(&b, 0xEE, 8);       /* thumbnail */
    fill(&b, 0xDD, 4 * 4 * 4); /* mip 1 */
    for (int i = 0; i < 64; i++) {
        uint8_t px[4] = {(uint8_t)i, (uint8_t)(i * 2), (uint8_t)(i * 3), (uint8_t)(255 - i)};
        put(&b, px, 4);
    }
    bspkit_image img;
    bspkit_vtf_info info;
    decode_ok(&b, &img, &info);
    assert_int_equal(info.version_minor, 2);
    assert_int_equal(info.mip_count, 2);
    assert_int_equal(info.frames, 1);
    assert_int_equal(info.faces, 1);
    for (int i = 0; i < 64; i++) {
        uint8_t want[4] = {(uint8_t)(i * 3), (uint8_t)(i * 2), (uint8_t)i, (uint8_t)(255 - i)};
        expect_px(&img, (uint32_t)i % 8, (uint32_t)i / 8, want);
    }
    bspkit_image_free(&img);
    free(b.p);
}

/* 7.4/7.5 cube maps with two frames and two mips, data placed by the 0x30
 * resource: 7.4 has a seventh (sphere) face, 7.5 does not; with first frame
 * 0xFFFF 7.4 has six too. Face 0 of frame 0 of mip 0 is decoded. */
static void check_resources(uint32_t minor, uint32_t first_frame, uint32_t faces)
{
    buf b = {0};
    hdr h = {.minor = minor, .w = 4, .h = 4, .flags = 0x4000, .frames = 2, .first_frame = first_frame, .mips = 2,
             .depth = 1, .format = F_RGBA8888, .low_format = F_DXT1, .low_w = 4, .low_h = 4, .resources = 3};
    put_header(&b, &h);
    put(&b, "\x01\0\0\0", 4); /* thumbnail */
    put32(&b, 0);
    put(&b, "CRC\x02", 4); /* a value stored in the entry itself */
    put32(&b, 0xDEADBEEF);
    put(&b, "\x30\0\0\0", 4); /* high-resolution image */
    put32(&b, 0);
    fill(&b, 0x77, 13); /* unrelated bytes */
    set32(&b, 80 + 4, (uint32_t)b.n);
    fill(&b, 0xEE, 8);
    set32(&b, 80 + 20, (uint32_t)b.n);
    fill(&b, 0xDD, (size_t)2 * faces * 2 * 2 * 4); /* mip 1: 2 frames x faces x 2x2 */
    for (int i = 0; i < 16; i++)
        put32(&b, 0x01020304u * (uint32_t)(i + 1));
    fill(&b, 0xCC, (size_t)(2 * faces - 1) * 16 * 4); /* the other faces and frames of mip 0 */
    bspkit_image img;
    bspkit_vtf_info info;
    decode_ok(&b, &img, &info);
    assert_int_equal(info.faces, faces);
    assert_int_equal(info.frames, 2);
    for (int i = 0; i < 16; i++) {
        uint32_t v = 0x01020304u * (uint32_t)(i + 1);
        uint8_t want[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
        expect_px(&img, (uint32_t)i % 4, (uint32_t)i / 4, want);
    }
    bspkit_image_free(&img);
    free(b.p);
}

static void test_v74_v75_resources(void **state)
{
    (void)state;
    check_resources(4, 0, 7);
    check_resources(4, 0xFFFF, 6);
    check_resources(5, 0, 6);
}

static void expect_error(buf *b, bspkit_result code, const char *fragment)
{
    bspkit_image img;
    bspkit_error err;
    bspkit_result r = bspkit_vtf_decode(b->p, b->n, &img, NULL, &err);
    if (r != code)
        fail_msg("got %d (%s), expected %d", (int)r, err.message, (int)code);
    assert_null(img.rgba);
    if (fragment && !strstr(err.message, fragment))
        fail_msg("message '%s' lacks '%s'", err.message, fragment);
}

static void test_hostile(void **state)
{
    (void)state;
    buf b = {0};
    /* 65535 x 65535 BGRA with 16 bytes present: refused before allocating. */
    hdr h = h72(65535, 65535, F_BGRA8888);
    h.frames = 65535;
    h.depth = 65535;
    h.mips = 255;
    put_header(&b, &h);
    fill(&b, 0, 16);
    expect_error(&b, BSPKIT_ERR_TRUNCATED, "past the end");
    free(b.p);

    /* A resource count the header cannot hold. */
    b = (buf){0};
    h = h72(4, 4, F_BGRA8888);
    h.minor = 4;
    put_header(&b, &h);
    set32(&b, 68, 0x20000000u);
    expect_error(&b, BSPKIT_ERR_TEXTURES, "resources");
    free(b.p);

    /* The high-resolution resource points past the end. */
    b = (buf){0};
    h.resources = 1;
    put_header(&b, &h);
    put(&b, "\x30\0\0\0", 4);
    put32(&b, 0xFFFFFFF0u);
    expect_error(&b, BSPKIT_ERR_TRUNCATED, NULL);
    free(b.p);

    /* Header size beyond the file, bad signature, version, format. */
    b = (buf){0};
    h = h72(4, 4, F_BGRA8888);
    put_header(&b, &h);
    set32(&b, 12, 5000);
    expect_error(&b, BSPKIT_ERR_TEXTURES, "header size");
    set32(&b, 12, 80);
    b.p[0] = 'X';
    expect_error(&b, BSPKIT_ERR_UNKNOWN_FORMAT, NULL);
    b.p[0] = 'V';
    set32(&b, 8, 6);
    expect_error(&b, BSPKIT_ERR_UNSUPPORTED, "7.6");
    set32(&b, 8, 2);
    set32(&b, 52, F_RGBA16161616F);
    fill(&b, 0, 4 * 4 * 8);
    expect_error(&b, BSPKIT_ERR_UNSUPPORTED, "RGBA16161616F");
    bspkit_vtf_info info;
    CHECK(bspkit_vtf_read_info(b.p, b.n, &info, ERR));
    assert_false(info.format_supported);
    set32(&b, 52, 12345);
    CHECK(bspkit_vtf_read_info(b.p, b.n, &info, ERR));
    assert_string_equal(info.format_name, "unknown");
    /* Every truncation of a valid file fails cleanly. */
    set32(&b, 52, F_BGRA8888);
    size_t full = b.n;
    for (size_t n = 0; n < 80 + 64; n++) {
        b.n = n;
        bspkit_image img;
        assert_int_not_equal(bspkit_vtf_decode(b.p, b.n, &img, NULL, NULL), BSPKIT_OK);
    }
    b.n = full;
    free(b.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dxt1_modes),      cmocka_unit_test(test_dxt3),
        cmocka_unit_test(test_dxt5_modes),      cmocka_unit_test(test_partial_blocks),
        cmocka_unit_test(test_uncompressed_orders), cmocka_unit_test(test_v72_thumbnail_and_mips),
        cmocka_unit_test(test_v74_v75_resources), cmocka_unit_test(test_hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
