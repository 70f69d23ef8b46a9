/* The dependency scan's parts: path normalisation, the KeyValues reader,
 * material keys, and VPK directory names (a version 2 archive written here
 * byte by byte, then cut short). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bspkit/bspkit.h"
#include "bspkit/write.h"
#include "ops/deps_internal.h"

#include "check.h"

static void test_normalize(void **state)
{
    (void)state;
    char *s = dk_normalize("materials/", "Materials\\Brick//Wall01.VMT", ".vmt");
    assert_string_equal(s, "materials/brick/wall01.vmt");
    free(s);
    s = dk_normalize("materials/", "/brick/wall01", ".vtf");
    assert_string_equal(s, "materials/brick/wall01.vtf");
    free(s);
    s = dk_normalize("materials/", "materials/detail/noise.vtf", ".vtf"); /* prefix and extension kept once */
    assert_string_equal(s, "materials/detail/noise.vtf");
    free(s);
    s = dk_normalize("sound/", "ambience\\Wind1.wav", NULL);
    assert_string_equal(s, "sound/ambience/wind1.wav");
    free(s);
}

typedef struct pairs {
    char text[512];
} pairs;

static void collect(void *ctx, const char *key, const char *value)
{
    pairs *p = ctx;
    size_t n = strlen(p->text);
    snprintf(p->text + n, sizeof p->text - n, "%s=%s;", key, value);
}

static void test_vmt(void **state)
{
    (void)state;
    const char *vmt = "\"LightmappedGeneric\"\n{\n  // $basetexture \"commented/out\"\n"
                      "  $basetexture brick/wall01\n  \"$bumpmap\" \"brick/wall01_normal\" // trailing\n"
                      "  \"Proxies\" { \"AnimatedTexture\" { \"animatedtexturevar\" \"$basetexture\" } }\n"
                      "  \"$surfaceprop\" \"brick\"\n}\n";
    pairs p = {{0}};
    dk_vmt_parse(vmt, strlen(vmt), collect, &p);
    assert_string_equal(p.text, "$basetexture=brick/wall01;$bumpmap=brick/wall01_normal;"
                                "animatedtexturevar=$basetexture;$surfaceprop=brick;");
    /* Cut inside a quoted string: what came before is still read. */
    memset(&p, 0, sizeof p);
    dk_vmt_parse("x { \"a\" \"b\" \"c\" \"d", 19, collect, &p);
    assert_string_equal(p.text, "a=b;c=d;");
    assert_int_equal(dk_vmt_key_kind("$BaseTexture", "brick/wall01"), DK_VMT_TEXTURE);
    assert_int_equal(dk_vmt_key_kind("$envmap", "env_cubemap"), DK_VMT_OTHER);
    assert_int_equal(dk_vmt_key_kind("$basetexture", "_rt_FullFrameFB"), DK_VMT_OTHER);
    assert_int_equal(dk_vmt_key_kind("$envmap", "0"), DK_VMT_OTHER);
    assert_int_equal(dk_vmt_key_kind("include", "materials/a.vmt"), DK_VMT_MATERIAL);
    assert_int_equal(dk_vmt_key_kind("$surfaceprop", "brick"), DK_VMT_OTHER);
    assert_int_equal(dk_vmt_key_kind("$basetexture", ""), DK_VMT_OTHER);
}

static size_t put(uint8_t *p, size_t at, const void *src, size_t n)
{
    memcpy(p + at, src, n);
    return at + n;
}

static size_t put_le(uint8_t *p, size_t at, uint32_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[at + (size_t)i] = (uint8_t)(v >> (8 * i));
    return at + (size_t)bytes;
}

/* One directory entry: CRC, preload count, archive index, offset, length, terminator, preload bytes. */
static size_t put_entry(uint8_t *p, size_t at, const char *name, uint16_t preload)
{
    at = put(p, at, name, strlen(name) + 1);
    at = put_le(p, at, 0, 4);
    at = put_le(p, at, preload, 2);
    at = put_le(p, at, 0x7fff, 2);
    at = put_le(p, at, 0, 4);
    at = put_le(p, at, 0, 4);
    at = put_le(p, at, 0xffff, 2);
    memset(p + at, 'x', preload);
    return at + preload;
}

static bspkit_map *small_map(uint8_t **bytes)
{
    bspkit_builder *b = NULL;
    size_t size = 0;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_GOLDSRC, 30, &b, ERR));
    CHECK(bspkit_builder_write(b, NULL, bytes, &size, ERR));
    bspkit_builder_free(b);
    bspkit_map *map = NULL;
    CHECK(bspkit_open_memory(*bytes, size, NULL, &map, ERR));
    return map;
}

static void write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    fclose(f);
}

static void test_vpk(void **state)
{
    (void)state;
    uint8_t vpk[512];
    size_t at = 28; /* version 2 header */
    at = put(vpk, at, "vmt", 4);
    at = put(vpk, at, "materials/Brick", 16);
    at = put_entry(vpk, at, "Wall01", 3);
    at = put_entry(vpk, at, "wall02", 0);
    at = put(vpk, at, "", 1); /* end of names */
    at = put(vpk, at, " ", 2); /* the root directory */
    at = put_entry(vpk, at, "readme", 0);
    at = put(vpk, at, "\0\0", 2); /* end of names, of paths */
    at = put(vpk, at, " ", 2); /* no extension */
    at = put(vpk, at, " ", 2);
    at = put_entry(vpk, at, "LICENSE", 0);
    at = put(vpk, at, "\0\0\0", 3);
    put_le(vpk, 0, 0x55aa1234, 4);
    put_le(vpk, 4, 2, 4);
    put_le(vpk, 8, (uint32_t)(at - 28), 4);
    memset(vpk + 12, 0, 16);
    char dir[] = "/tmp/bspkit-vpk-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/pak01_dir.vpk", dir);
    write_file(path, vpk, at);

    uint8_t *bytes = NULL;
    bspkit_map *map = small_map(&bytes);
    const char *dirs[] = {dir};
    dk_vpk_set set = {0};
    dk_vpk_load(&set, map, dirs, 1);
    assert_false(set.failed);
    assert_int_equal(set.count, 4);
    const dk_vpk_name *wall = dk_vpk_find(&set, "materials/brick/wall01.vmt");
    assert_non_null(wall);
    assert_string_equal(set.archives[wall->archive], path);
    /* Its three preload bytes, and nothing from a data archive (its length is 0). */
    uint8_t *bytes_read = NULL;
    size_t nread = 0;
    CHECK(bk_vpk_read(set.archives[wall->archive], &wall->entry, 1024, &bytes_read, &nread, ERR));
    assert_int_equal(nread, 3);
    assert_memory_equal(bytes_read, "xxx", 3);
    free(bytes_read);
    assert_int_equal(bk_vpk_read(set.archives[wall->archive], &wall->entry, 2, &bytes_read, &nread, ERR), BSPKIT_ERR_LIMIT);
    assert_non_null(dk_vpk_find(&set, "materials/brick/wall02.vmt"));
    assert_non_null(dk_vpk_find(&set, "readme.vmt"));
    assert_non_null(dk_vpk_find(&set, "license"));
    assert_null(dk_vpk_find(&set, "materials/brick/wall03.vmt"));
    dk_vpk_free(&set);

    /* Cut inside the second entry: the directory is damaged and skipped whole, nothing is read past the end. */
    put_le(vpk, 8, 4 + 16 + 7 + 18 + 3 + 5, 4);
    write_file(path, vpk, 28 + 4 + 16 + 7 + 18 + 3 + 5);
    dk_vpk_load(&set, map, dirs, 1);
    assert_false(set.failed);
    assert_int_equal(set.count, 0);
    dk_vpk_free(&set);

    /* Damaged copies: bytes changed at random places must be read or refused, never read past. */
    uint32_t seed = 88172645u;
    for (int round = 0; round < 300; round++) {
        uint8_t bad[512];
        memcpy(bad, vpk, at);
        for (int k = 0; k < 4; k++) {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            bad[seed % at] = (uint8_t)(seed >> 8);
        }
        write_file(path, bad, at - (round % 3 == 0 ? seed % 16 : 0));
        dk_vpk_load(&set, map, dirs, 1);
        assert_false(set.failed);
        dk_vpk_free(&set);
        pairs p = {{0}};
        dk_vmt_parse((const char *)bad, at, collect, &p);
    }

    unlink(path);
    rmdir(dir);
    bspkit_close(map);
    bspkit_free(bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_normalize), cmocka_unit_test(test_vmt),
                                       cmocka_unit_test(test_vpk)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
