/* WAD2/WAD3 files built byte by byte here: directory, miptex with their own
 * palette (WAD3) or the Quake palette (WAD2), qpic, '{' transparency,
 * case-insensitive lookup, and hostile directories and entries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bspkit/textures.h"
#include "bspkit/write.h"
#include "check.h"
#include "core/crc32.h"
#include "core/map.h"

#include <stdlib.h>
#include <string.h>

typedef struct wbuf { uint8_t d[1 << 16]; size_t n; } wbuf;

static size_t wput(wbuf *b, const void *p, size_t n)
{
    assert_true(b->n + n <= sizeof b->d);
    size_t at = b->n;
    memcpy(b->d + at, p, n);
    b->n += n;
    return at;
}
static void w32(wbuf *b, uint32_t v) { uint8_t x[4]; wr_le32(x, v); wput(b, x, 4); }

typedef struct entry { const char *name; uint8_t type; size_t at, size; } entry;

/* A miptex entry: header, four mips (pixel(i) = idx(i) for mip 0, others
 * 0x55), then for WAD3 a 256-colour palette. */
static entry put_miptex(wbuf *b, const char *name, uint32_t w, uint32_t h, uint8_t (*idx)(uint32_t), bool wad3)
{
    entry e = {name, wad3 ? 0x43 : 0x44, b->n, 0};
    char nm[16] = {0};
    memcpy(nm, name, strnlen(name, 16));
    wput(b, nm, 16);
    w32(b, w);
    w32(b, h);
    uint32_t ofs = 40;
    for (int k = 0; k < 4; k++) {
        w32(b, ofs);
        ofs += (w >> k) * (h >> k);
    }
    for (uint32_t i = 0; i < w * h; i++) {
        uint8_t v = idx(i);
        wput(b, &v, 1);
    }
    for (int k = 1; k < 4; k++)
        for (uint32_t i = 0; i < (w >> k) * (h >> k); i++)
            wput(b, "\x55", 1);
    if (wad3) {
        uint8_t pal[2 + 768];
        wr_le16(pal, 256);
        for (int c = 0; c < 256; c++) {
            pal[2 + 3 * c] = (uint8_t)c;
            pal[3 + 3 * c] = (uint8_t)(255 - c);
            pal[4 + 3 * c] = (uint8_t)(c * 7);
        }
        wput(b, pal, sizeof pal);
    }
    e.size = b->n - e.at;
    return e;
}

static uint8_t idx_ramp(uint32_t i) { return (uint8_t)i; }
static uint8_t idx_fence(uint32_t i) { return i % 3 == 0 ? 255 : (uint8_t)(i * 5); }

static void put_directory(wbuf *b, const entry *e, size_t count)
{
    uint32_t dir = (uint32_t)b->n;
    for (size_t i = 0; i < count; i++) {
        w32(b, (uint32_t)e[i].at);
        w32(b, (uint32_t)e[i].size);
        w32(b, (uint32_t)e[i].size);
        uint8_t t[4] = {e[i].type, 0, 0, 0};
        wput(b, t, 4);
        char nm[16] = {0};
        memcpy(nm, e[i].name, strnlen(e[i].name, 16));
        wput(b, nm, 16);
    }
    wr_le32(b->d + 4, (uint32_t)count);
    wr_le32(b->d + 8, dir);
}

/* WAD3: two miptex, a qpic (with palette) and a font lump. */
static void build_wad3(wbuf *b, entry e[4])
{
    b->n = 0;
    wput(b, "WAD3", 4);
    w32(b, 0);
    w32(b, 0);
    e[0] = put_miptex(b, "Brick_A", 16, 8, idx_ramp, true);
    e[1] = put_miptex(b, "{fence", 16, 16, idx_fence, true);
    e[2] = (entry){"pic", 0x42, b->n, 0};
    w32(b, 3);
    w32(b, 2);
    wput(b, "\x00\x01\x02\x03\x04\x05", 6);
    uint8_t pal[2 + 9] = {3, 0, 10, 20, 30, 40, 50, 60, 70, 80, 90};
    wput(b, pal, sizeof pal); /* 3 colours: indices 3-5 fall outside */
    e[2].size = b->n - e[2].at;
    e[3] = (entry){"font", 0x46, b->n, 16};
    wput(b, "0123456789abcdef", 16);
    put_directory(b, e, 4);
}

static void expect_paletted(const bspkit_image *img, uint8_t (*idx)(uint32_t), bool fence)
{
    for (uint32_t i = 0; i < img->width * img->height; i++) {
        uint8_t k = idx(i);
        const uint8_t *px = img->rgba + 4 * i;
        if (fence && k == 255) {
            assert_int_equal(px[3], 0);
            continue;
        }
        uint8_t want[4] = {k, (uint8_t)(255 - k), (uint8_t)(k * 7), 255};
        assert_memory_equal(px, want, 4);
    }
}

static void test_wad3(void **state)
{
    (void)state;
    static wbuf b;
    entry e[4];
    build_wad3(&b, e);
    bspkit_wad *wad;
    CHECK(bspkit_wad_open_memory(b.d, b.n, &wad, ERR));
    assert_int_equal(bspkit_wad_count(wad), 4);
    bspkit_wad_entry info;
    CHECK(bspkit_wad_entry_info(wad, 0, &info, ERR));
    assert_string_equal(info.name, "Brick_A");
    assert_int_equal(info.type, 0x43);
    assert_int_equal(info.width, 16);
    assert_int_equal(info.height, 8);
    assert_int_equal(info.offset, e[0].at);
    assert_int_equal(info.size, e[0].size);
    size_t k;
    CHECK(bspkit_wad_find(wad, "BRICK_a", &k, ERR));
    assert_int_equal(k, 0);
    assert_int_equal(bspkit_wad_find(wad, "brick", &k, NULL), BSPKIT_ERR_NOT_FOUND);

    bspkit_image img;
    CHECK(bspkit_wad_load_image(wad, 0, &img, ERR));
    assert_int_equal(img.width, 16);
    assert_int_equal(img.height, 8);
    expect_paletted(&img, idx_ramp, false);
    bspkit_image_free(&img);
    CHECK(bspkit_wad_load_image(wad, 1, &img, ERR));
    expect_paletted(&img, idx_fence, true);
    bspkit_image_free(&img);

    /* qpic: 3x2 through its 3-colour palette; indices past it are black. */
    CHECK(bspkit_wad_load_image(wad, 2, &img, ERR));
    assert_int_equal(img.width, 3);
    assert_int_equal(img.height, 2);
    static const uint8_t want[6][4] = {{10, 20, 30, 255}, {40, 50, 60, 255}, {70, 80, 90, 255},
                                       {0, 0, 0, 255},    {0, 0, 0, 255},    {0, 0, 0, 255}};
    assert_memory_equal(img.rgba, want, sizeof want);
    bspkit_image_free(&img);
    assert_int_equal(bspkit_wad_load_image(wad, 3, &img, NULL), BSPKIT_ERR_UNSUPPORTED);
    assert_int_equal(bspkit_wad_load_image(wad, 4, &img, NULL), BSPKIT_ERR_NOT_FOUND);
    bspkit_wad_close(wad);
}

/* WAD2 miptex use the Quake palette: a 16x16 texture holding every index
 * gives the whole table, compared with the CRC-32 of palette.lmp as two
 * independent public copies of it agree (0x202e6346) and spot values. */
static void test_wad2_quake_palette(void **state)
{
    (void)state;
    static wbuf b;
    b.n = 0;
    wput(&b, "WAD2", 4);
    w32(&b, 0);
    w32(&b, 0);
    entry e = put_miptex(&b, "*water0", 16, 16, idx_ramp, false);
    put_directory(&b, &e, 1);
    bspkit_wad *wad;
    CHECK(bspkit_wad_open_memory(b.d, b.n, &wad, ERR));
    bspkit_image img;
    CHECK(bspkit_wad_load_image(wad, 0, &img, ERR));
    uint8_t rgb[768];
    for (int i = 0; i < 256; i++) {
        memcpy(rgb + 3 * i, img.rgba + 4 * i, 3);
        assert_int_equal(img.rgba[4 * i + 3], 255);
    }
    assert_int_equal(bk_crc32(rgb, sizeof rgb, 0), 0x202e6346u);
    static const uint8_t spots[][4] = {{0, 0, 0, 0}, {1, 15, 15, 15}, {15, 235, 235, 235}, {254, 255, 255, 255},
                                       {255, 159, 91, 83}};
    for (size_t s = 0; s < sizeof spots / sizeof spots[0]; s++)
        assert_memory_equal(rgb + 3 * spots[s][0], spots[s] + 1, 3);
    bspkit_image_free(&img);
    bspkit_wad_close(wad);
}

static void test_hostile(void **state)
{
    (void)state;
    static wbuf b;
    entry e[4];
    bspkit_wad *wad;
    bspkit_error err;
    /* A directory count far beyond the bytes present. */
    build_wad3(&b, e);
    wr_le32(b.d + 4, 0x7fffffff);
    assert_int_equal(bspkit_wad_open_memory(b.d, b.n, &wad, &err), BSPKIT_ERR_TRUNCATED);
    assert_non_null(strstr(err.message, "directory"));
    assert_int_equal(bspkit_wad_open_memory("WAD9\0\0\0\0\0\0\0\0", 12, &wad, NULL), BSPKIT_ERR_UNKNOWN_FORMAT);
    assert_int_equal(bspkit_wad_open_memory("WAD3", 4, &wad, NULL), BSPKIT_ERR_TRUNCATED);

    /* Entry past the end; mip 0 offset outside the entry; palette too large. */
    build_wad3(&b, e);
    size_t dir = rd_le32(b.d + 8);
    wr_le32(b.d + dir, 0xfffffff0u);
    CHECK(bspkit_wad_open_memory(b.d, b.n, &wad, ERR));
    bspkit_image img;
    assert_int_equal(bspkit_wad_load_image(wad, 0, &img, &err), BSPKIT_ERR_TEXTURES);
    assert_null(img.rgba);
    bspkit_wad_close(wad);

    build_wad3(&b, e);
    wr_le32(b.d + e[0].at + 24, 0x7ffffff0u);
    CHECK(bspkit_wad_open_memory(b.d, b.n, &wad, ERR));
    assert_int_equal(bspkit_wad_load_image(wad, 0, &img, &err), BSPKIT_ERR_TEXTURES);
    assert_non_null(strstr(err.message, "Brick_A"));
    bspkit_wad_close(wad);

    build_wad3(&b, e);
    size_t pal = e[0].at + 40 + 16 * 8 + 8 * 4 + 4 * 2 + 2 * 1;
    wr_le16(b.d + pal, 300);
    CHECK(bspkit_wad_open_memory(b.d, b.n, &wad, ERR));
    assert_int_equal(bspkit_wad_load_image(wad, 0, &img, &err), BSPKIT_ERR_TEXTURES);
    assert_non_null(strstr(err.message, "palette"));
    bspkit_wad_close(wad);

    /* Huge declared width: no entry can hold it, so it reads as malformed. */
    build_wad3(&b, e);
    wr_le32(b.d + e[1].at + 16, 16000);
    wr_le32(b.d + e[1].at + 20, 16000);
    CHECK(bspkit_wad_open_memory(b.d, b.n, &wad, ERR));
    bspkit_wad_entry info;
    CHECK(bspkit_wad_entry_info(wad, 1, &info, ERR));
    assert_int_equal(info.width, 0);
    assert_int_equal(bspkit_wad_load_image(wad, 1, &img, NULL), BSPKIT_ERR_TEXTURES);
    bspkit_wad_close(wad);

    /* Every truncation either fails to open or fails cleanly per entry. */
    build_wad3(&b, e);
    size_t opened = 0;
    for (size_t n = 0; n < b.n; n += 7) {
        if (bspkit_wad_open_memory(b.d, n, &wad, NULL) != BSPKIT_OK)
            continue;
        opened++;
        for (size_t i = 0; i < bspkit_wad_count(wad); i++) {
            if (bspkit_wad_load_image(wad, i, &img, NULL) == BSPKIT_OK)
                bspkit_image_free(&img);
        }
        bspkit_wad_close(wad);
    }
    assert_int_equal(opened, 0); /* the directory is at the end: no prefix holds it */
}

/* A map's embedded textures written as a WAD read back through the WAD
 * reader: WAD3 for GoldSrc, WAD2 for Quake, one miptex entry per embedded
 * texture, named as in the map, each decoding to the map's own pixels. */
static void test_write_from_map(void **state)
{
    (void)state;
    const bspkit_sample_kind kinds[2] = {BSPKIT_SAMPLE_GOLDSRC_ROOM, BSPKIT_SAMPLE_QUAKE_ROOM};
    for (int k = 0; k < 2; k++) {
        uint8_t *data;
        size_t size;
        CHECK(bspkit_sample_build(kinds[k], &data, &size, ERR));
        bspkit_map *map;
        CHECK(bspkit_open_memory(data, size, NULL, &map, ERR));
        uint8_t *wad_bytes;
        size_t wad_size, written;
        CHECK(bspkit_miptex_write_wad(map, &wad_bytes, &wad_size, &written, ERR));
        assert_memory_equal(wad_bytes, k == 0 ? "WAD3" : "WAD2", 4);
        bspkit_wad *wad;
        CHECK(bspkit_wad_open_memory(wad_bytes, wad_size, &wad, ERR));
        const bspkit_miptex *tex;
        size_t count;
        CHECK(bspkit_get_miptex(map, &tex, &count, ERR));
        assert_int_equal(count, 2);
        assert_int_equal(written, 2);
        assert_int_equal(bspkit_wad_count(wad), 2);
        for (size_t i = 0; i < count; i++) {
            bspkit_wad_entry e;
            CHECK(bspkit_wad_entry_info(wad, i, &e, ERR));
            assert_string_equal(e.name, tex[i].name);
            assert_int_equal(e.type, k == 0 ? 0x43 : 0x44);
            assert_int_equal(e.width, tex[i].width);
            bspkit_image from_wad, from_map;
            CHECK(bspkit_wad_load_image(wad, i, &from_wad, ERR));
            CHECK(bspkit_miptex_load_image(map, i, &from_map, ERR));
            assert_int_equal(from_wad.width, from_map.width);
            assert_int_equal(from_wad.height, from_map.height);
            assert_memory_equal(from_wad.rgba, from_map.rgba, (size_t)from_map.width * from_map.height * 4);
            bspkit_image_free(&from_wad);
            bspkit_image_free(&from_map);
        }
        bspkit_wad_close(wad);
        bspkit_free(wad_bytes);
        bspkit_close(map);
        bspkit_free(data);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wad3),
        cmocka_unit_test(test_wad2_quake_palette),
        cmocka_unit_test(test_hostile),
        cmocka_unit_test(test_write_from_map),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
