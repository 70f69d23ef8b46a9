/* A map's textures: embedded miptex of the generated maps round-trip through
 * PNG (decoded with libpng) as palette[index] with the index and palette read
 * from the TEXTURES lump by this test; a built GoldSrc map resolves its
 * external textures through the worldspawn "wad" key and a WAD written here;
 * a Source sample with a VTF added to its pakfile resolves it in both byte
 * orders. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bspkit/pak.h"
#include "bspkit/textures.h"
#include "bspkit/write.h"
#include "check.h"
#include "core/bytes.h"
#include "media/texture_internal.h"

#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static bspkit_map *open_sample(bspkit_sample_kind kind, uint8_t **bytes)
{
    size_t size;
    CHECK(bspkit_sample_build(kind, bytes, &size, ERR));
    bspkit_map *map;
    CHECK(bspkit_open_memory(*bytes, size, NULL, &map, ERR));
    return map;
}

/* RGBA pixels of `img` after a PNG round trip through libpng's reader. */
static uint8_t *png_roundtrip(const bspkit_image *img)
{
    uint8_t *png;
    size_t size;
    CHECK(bspkit_image_encode_png(img, &png, &size, ERR));
    png_image back;
    memset(&back, 0, sizeof back);
    back.version = PNG_IMAGE_VERSION;
    assert_true(png_image_begin_read_from_memory(&back, png, size));
    assert_int_equal(back.width, img->width);
    assert_int_equal(back.height, img->height);
    back.format = PNG_FORMAT_RGBA;
    uint8_t *pixels = malloc(PNG_IMAGE_SIZE(back));
    assert_non_null(pixels);
    assert_true(png_image_finish_read(&back, NULL, pixels, 0, NULL));
    free(png);
    return pixels;
}

/* Every embedded miptex: index and palette located from the lump bytes here. */
static void check_embedded(bspkit_sample_kind kind, bool goldsrc)
{
    uint8_t *bytes;
    bspkit_map *map = open_sample(kind, &bytes);
    const uint8_t *lump;
    size_t lsize;
    CHECK(bspkit_lump_bytes(map, BSPKIT_Q_TEXTURES, &lump, &lsize, ERR));
    assert_true(lsize >= 4);
    uint32_t count = rd_le32(lump);
    bspkit_textures *t;
    CHECK(bspkit_textures_resolve(map, NULL, &t, ERR));
    assert_int_equal(bspkit_textures_count(t), count);
    assert_true(count > 0);
    for (uint32_t i = 0; i < count; i++) {
        uint32_t ofs = rd_le32(lump + 4 + 4 * i);
        const uint8_t *m = lump + ofs;
        uint32_t w = rd_le32(m + 16), h = rd_le32(m + 20);
        const uint8_t *mip0 = m + rd_le32(m + 24);
        const uint8_t *pal = goldsrc ? m + rd_le32(m + 36) + (w / 8) * (h / 8) + 2 : bk_quake_palette;
        const bspkit_texture *x = bspkit_textures_get(t, i);
        assert_int_equal(x->source, BSPKIT_TEXTURE_EMBEDDED);
        assert_int_equal(x->width, w);
        assert_true(x->decodable);
        bspkit_image img;
        CHECK(bspkit_textures_load_image(t, i, &img, ERR));
        uint8_t *px = png_roundtrip(&img);
        for (uint32_t p = 0; p < w * h; p++) {
            uint8_t want[4] = {pal[3 * mip0[p]], pal[3 * mip0[p] + 1], pal[3 * mip0[p] + 2], 255};
            assert_memory_equal(px + 4 * p, want, 4);
        }
        free(px);
        bspkit_image_free(&img);
    }
    assert_null(bspkit_textures_get(t, count));
    bspkit_textures_free(t);
    bspkit_close(map);
    bspkit_free_buffer(bytes);
}

static void test_generated_embedded(void **state)
{
    (void)state;
    check_embedded(BSPKIT_SAMPLE_GOLDSRC_ROOM, true);
    check_embedded(BSPKIT_SAMPLE_QUAKE_ROOM, false);
}

/* ---- GoldSrc map built here, with a WAD beside it ---- */

static uint8_t g_pal[768];
static uint8_t g_pix[16 * 16 * 85 / 64];

static void make_palette(void)
{
    for (int c = 0; c < 256; c++) {
        g_pal[3 * c] = (uint8_t)(c * 3);
        g_pal[3 * c + 1] = (uint8_t)(c ^ 0x5a);
        g_pal[3 * c + 2] = (uint8_t)(200 - c);
    }
    for (size_t i = 0; i < sizeof g_pix; i++)
        g_pix[i] = i % 5 == 0 ? 255 : (uint8_t)(i * 11);
}

/* A one-entry WAD3 file: 16x16 miptex `name`, indices g_pix, palette g_pal. */
static void write_wad(const char *path, const char *name)
{
    uint8_t buf[12 + 40 + sizeof g_pix + 2 + 768 + 32] = {0};
    memcpy(buf, "WAD3", 4);
    wr_le32(buf + 4, 1);
    uint8_t *m = buf + 12;
    memcpy(m, name, strlen(name));
    wr_le32(m + 16, 16);
    wr_le32(m + 20, 16);
    uint32_t ofs = 40;
    for (int k = 0; k < 4; k++) {
        wr_le32(m + 24 + 4 * k, ofs);
        ofs += (16u >> k) * (16u >> k);
    }
    memcpy(m + 40, g_pix, sizeof g_pix);
    wr_le16(m + 40 + sizeof g_pix, 256);
    memcpy(m + 42 + sizeof g_pix, g_pal, 768);
    size_t dir = 12 + 40 + sizeof g_pix + 2 + 768;
    wr_le32(buf + 8, (uint32_t)dir);
    wr_le32(buf + dir, 12);
    wr_le32(buf + dir + 4, (uint32_t)(dir - 12));
    buf[dir + 12] = 0x43;
    memcpy(buf + dir + 16, name, strlen(name));
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, sizeof buf, f), sizeof buf);
    fclose(f);
}

static void expect_g_pixels(const bspkit_image *img, bool fence)
{
    for (size_t p = 0; p < 256; p++) {
        uint8_t k = g_pix[p];
        const uint8_t *px = img->rgba + 4 * p;
        if (fence && k == 255) {
            assert_int_equal(px[3], 0);
            continue;
        }
        uint8_t want[4] = {g_pal[3 * k], g_pal[3 * k + 1], g_pal[3 * k + 2], 255};
        assert_memory_equal(px, want, 4);
    }
}

static bspkit_map *build_goldsrc(uint8_t **bytes)
{
    bspkit_builder *b;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_GOLDSRC, 30, &b, ERR));
    bspkit_miptex tex[4];
    memset(tex, 0, sizeof tex);
    strcpy(tex[0].name, "{grate");
    tex[0].width = tex[0].height = 16;
    tex[0].embedded = true;
    tex[0].mips[0] = g_pix;
    tex[0].mips[1] = g_pix + 256;
    tex[0].mips[2] = g_pix + 256 + 64;
    tex[0].mips[3] = g_pix + 256 + 64 + 16;
    tex[0].palette = g_pal;
    tex[0].palette_size = 256;
    strcpy(tex[1].name, "Ext_Tex");
    tex[1].width = tex[1].height = 16;
    tex[2].lump_offset = -1;
    strcpy(tex[3].name, "nowhere");
    tex[3].width = tex[3].height = 32;
    CHECK(bspkit_builder_set_miptex(b, tex, 4, ERR));
    static const char ents[] = "{\n\"classname\" \"worldspawn\"\n"
                               "\"wad\" \"\\half-life\\valve\\missing.wad;C:/x/Test.WAD; ;;\\q\\\\test.wad\"\n}\n";
    CHECK(bspkit_builder_set_entities(b, ents, sizeof ents - 1, ERR));
    size_t size;
    CHECK(bspkit_builder_write(b, NULL, bytes, &size, ERR));
    bspkit_builder_free(b);
    bspkit_map *map;
    CHECK(bspkit_open_memory(*bytes, size, NULL, &map, ERR));
    return map;
}

static void check_wad_resolution(bspkit_map *map, const char *search, const char *wad_path)
{
    const char *paths[] = {"/nonexistent-dir", search};
    bspkit_texture_options opts = {.wad_paths = paths, .wad_path_count = 2};
    bspkit_textures *t;
    CHECK(bspkit_textures_resolve(map, &opts, &t, ERR));
    assert_int_equal(bspkit_textures_count(t), 4);
    const bspkit_texture *x = bspkit_textures_get(t, 0);
    assert_int_equal(x->source, BSPKIT_TEXTURE_EMBEDDED);
    assert_string_equal(x->format, "paletted");
    x = bspkit_textures_get(t, 1);
    assert_int_equal(x->source, BSPKIT_TEXTURE_WAD);
    assert_string_equal(x->location, wad_path);
    assert_int_equal(x->width, 16);
    assert_int_equal(bspkit_textures_get(t, 2)->source, BSPKIT_TEXTURE_MISSING);
    assert_int_equal(bspkit_textures_get(t, 3)->source, BSPKIT_TEXTURE_MISSING);
    assert_null(bspkit_textures_get(t, 3)->location);
    /* The key names missing.wad and test.wad (twice, in other spellings). */
    assert_string_equal(bspkit_textures_missing_wad(t, 0), "missing.wad");
    assert_null(bspkit_textures_missing_wad(t, 1));

    bspkit_image img;
    CHECK(bspkit_textures_load_image(t, 0, &img, ERR));
    expect_g_pixels(&img, true);
    bspkit_image_free(&img);
    CHECK(bspkit_textures_load_image(t, 1, &img, ERR));
    expect_g_pixels(&img, false);
    bspkit_image_free(&img);
    assert_int_equal(bspkit_textures_load_image(t, 3, &img, NULL), BSPKIT_ERR_NOT_FOUND);
    assert_int_equal(bspkit_textures_load_image(t, 9, &img, NULL), BSPKIT_ERR_NOT_FOUND);
    bspkit_textures_free(t);

    /* Without search paths both WADs are missing. */
    CHECK(bspkit_textures_resolve(map, NULL, &t, ERR));
    assert_int_equal(bspkit_textures_get(t, 1)->source, BSPKIT_TEXTURE_MISSING);
    assert_string_equal(bspkit_textures_missing_wad(t, 1), "Test.WAD");
    bspkit_textures_free(t);
}

static void test_goldsrc_wad_key(void **state)
{
    (void)state;
    make_palette();
    char dir[] = "/tmp/bspkit-tex-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char wad[64];
    snprintf(wad, sizeof wad, "%s/test.wad", dir);
    write_wad(wad, "EXT_TEX");
    uint8_t *bytes;
    bspkit_map *map = build_goldsrc(&bytes);
    check_wad_resolution(map, dir, wad); /* a directory searched by name */
    check_wad_resolution(map, wad, wad); /* the WAD file itself */
    bspkit_image img;
    CHECK(bspkit_miptex_load_image(map, 0, &img, ERR));
    expect_g_pixels(&img, true);
    bspkit_image_free(&img);
    assert_int_equal(bspkit_miptex_load_image(map, 1, &img, NULL), BSPKIT_ERR_NOT_FOUND);
    bspkit_close(map);
    bspkit_free_buffer(bytes);
    unlink(wad);
    rmdir(dir);
}

/* ---- Source: a VTF in the pakfile ---- */

static void check_source_pakfile(bspkit_sample_kind kind)
{
    /* 7.2 BGRA8888 2x2, one mip, no thumbnail. */
    uint8_t vtf[80 + 16] = {'V', 'T', 'F', 0};
    wr_le32(vtf + 4, 7);
    wr_le32(vtf + 8, 2);
    wr_le32(vtf + 12, 80);
    wr_le16(vtf + 16, 2);
    wr_le16(vtf + 18, 2);
    wr_le16(vtf + 24, 1);
    wr_le32(vtf + 52, 12);
    vtf[56] = 1;
    wr_le32(vtf + 57, 0xffffffffu);
    wr_le16(vtf + 63, 1);
    for (int i = 0; i < 16; i++)
        vtf[80 + i] = (uint8_t)(i * 16 + 1);
    bspkit_pak *pak;
    CHECK(bspkit_pak_open(NULL, 0, NULL, &pak, ERR));
    CHECK(bspkit_pak_add(pak, "materials/dev/dev_measuregeneric01b.vtf", vtf, sizeof vtf, ERR));
    uint8_t *zip;
    size_t zip_size;
    CHECK(bspkit_pak_write(pak, BSPKIT_PAK_STORE, &zip, &zip_size, ERR));
    bspkit_pak_close(pak);

    bspkit_builder *b;
    bspkit_write_options wo;
    CHECK(bspkit_sample_builder(kind, &b, &wo, ERR));
    CHECK(bspkit_builder_set_lump(b, BSPKIT_S_PAKFILE, zip, zip_size, 0, ERR));
    uint8_t *bytes;
    size_t size;
    CHECK(bspkit_builder_write(b, &wo, &bytes, &size, ERR));
    bspkit_builder_free(b);
    free(zip);
    bspkit_map *map;
    CHECK(bspkit_open_memory(bytes, size, NULL, &map, ERR));
    bspkit_textures *t;
    CHECK(bspkit_textures_resolve(map, NULL, &t, ERR));
    const bspkit_texdata *td;
    size_t ntd;
    CHECK(bspkit_get_texdata(map, &td, &ntd, ERR));
    assert_int_equal(bspkit_textures_count(t), ntd);
    size_t found = 0;
    for (size_t i = 0; i < ntd; i++) {
        const bspkit_texture *x = bspkit_textures_get(t, i);
        assert_int_equal(x->width, (uint32_t)td[i].width);
        /* The map names it in upper case; the lookup ignores case. */
        if (strcasecmp(x->name, "dev/dev_measuregeneric01b") != 0) {
            assert_int_equal(x->source, BSPKIT_TEXTURE_MISSING);
            continue;
        }
        found++;
        assert_int_equal(x->source, BSPKIT_TEXTURE_PAKFILE);
        assert_string_equal(x->format, "BGRA8888");
        assert_string_equal(x->location, "materials/dev/dev_measuregeneric01b.vtf");
        assert_true(x->decodable);
        bspkit_image img;
        CHECK(bspkit_textures_load_image(t, i, &img, ERR));
        for (int p = 0; p < 4; p++) {
            const uint8_t *s = vtf + 80 + 4 * p;
            uint8_t want[4] = {s[2], s[1], s[0], s[3]};
            assert_memory_equal(img.rgba + 4 * p, want, 4);
        }
        bspkit_image_free(&img);
    }
    assert_int_equal(found, 1);
    bspkit_textures_free(t);
    bspkit_close(map);
    bspkit_free_buffer(bytes);
}

static void test_source_pakfile(void **state)
{
    (void)state;
    check_source_pakfile(BSPKIT_SAMPLE_SOURCE_ROOM);
    check_source_pakfile(BSPKIT_SAMPLE_SOURCE_ROOM_BE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generated_embedded),
        cmocka_unit_test(test_goldsrc_wad_key),
        cmocka_unit_test(test_source_pakfile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
