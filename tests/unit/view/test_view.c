/* The page of bspkit_view_html(), taken apart here: its GLB block (base64,
 * raw deflate, decoded by this test) is a GLB whose materials say their face
 * kind in extras.class exactly when every face of theirs is of that kind (the
 * GoldSrc room's floor miptex renamed to "sky" or "clip" in the file's bytes;
 * the walls keep no class), while a default export of the same map has no
 * class and no such material; the JSON block has the map's entity count and
 * the spawn eye (the sample's info_player_start at 0 0 40 plus GoldSrc's 28),
 * and holds no '<' even when the title does; the title is escaped in <title>;
 * the same map gives the same page. A library built without the viewer script
 * answers BSPKIT_ERR_UNSUPPORTED. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"

#include "bspkit/export.h"
#include "bspkit/view.h"
#include "bspkit/write.h"
#include "core/bytes.h"

#include <jansson.h>
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

/* The GoldSrc room with the floor's miptex renamed to `floor` (NULL: as generated). */
static bspkit_map *room(const char *floor, uint8_t **bytes)
{
    size_t size;
    CHECK(bspkit_sample_build(BSPKIT_SAMPLE_GOLDSRC_ROOM, bytes, &size, ERR));
    bspkit_options o = {.flags = BSPKIT_OPEN_COPY};
    bspkit_map *m;
    CHECK(bspkit_open_memory(*bytes, size, &o, &m, ERR));
    if (!floor)
        return m;
    /* The room's miptex are bk_floor and bk_wall: find the floor's name in the TEXTURES lump. */
    bspkit_lump_info li;
    CHECK(bspkit_get_lump_info(m, bspkit_lump_find(m, "TEXTURES"), &li));
    uint32_t n = rd_le32(*bytes + li.offset);
    bool renamed = false;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *name = *bytes + li.offset + rd_le32(*bytes + li.offset + 4 + 4 * (size_t)i);
        if (strcmp((const char *)name, "bk_floor") == 0) {
            memset(name, 0, 16);
            memcpy(name, floor, strlen(floor));
            renamed = true;
        }
    }
    assert_true(renamed);
    bspkit_close(m);
    CHECK(bspkit_open_memory(*bytes, size, &o, &m, ERR));
    return m;
}

/* The text of the <script> element with this id (malloc'ed, NUL-terminated). */
static char *block(const char *page, const char *id)
{
    char open[64];
    snprintf(open, sizeof open, "id=\"%s\">", id);
    const char *p = strstr(page, open);
    assert_non_null(p);
    p += strlen(open);
    const char *end = strstr(p, "</script>");
    assert_non_null(end);
    char *s = strndup(p, (size_t)(end - p));
    assert_non_null(s);
    return s;
}

static uint8_t *base64_decode(const char *s, size_t *n)
{
    size_t len = strlen(s);
    assert_int_equal(len % 4, 0);
    uint8_t *out = malloc(len / 4 * 3 + 1);
    assert_non_null(out);
    *n = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len && s[i] != '='; i++) {
        const char *abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        const char *c = strchr(abc, s[i]);
        assert_non_null(c);
        acc = acc << 6 | (uint32_t)(c - abc);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[(*n)++] = (uint8_t)(acc >> bits);
        }
    }
    return out;
}

/* The GLB's JSON chunk, parsed. */
static json_t *glb_json(const uint8_t *glb, size_t size)
{
    assert_true(size >= 20);
    assert_memory_equal(glb, "glTF", 4);
    uint32_t len = rd_le32(glb + 12);
    assert_true(20 + (size_t)len <= size);
    json_error_t je;
    json_t *j = json_loadb((const char *)glb + 20, len, 0, &je);
    assert_non_null(j);
    return j;
}

/* extras.class of the material named `name`: "" when it has none, NULL when there is no such material. */
static const char *material_class(json_t *gltf, const char *name)
{
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(gltf, "materials"), i, m)
    {
        if (strcmp(json_string_value(json_object_get(m, "name")), name) != 0)
            continue;
        const char *c = json_string_value(json_object_get(json_object_get(m, "extras"), "class"));
        return c ? c : "";
    }
    return NULL;
}

static void page_of(bspkit_map *m, const char *title, char **page, size_t *size, bspkit_view_stats *st)
{
    bspkit_view_options o = {.title = title};
    CHECK(bspkit_view_html(m, &o, (uint8_t **)page, size, st, ERR));
    assert_int_equal(strlen(*page), *size);
    assert_int_equal(st->html_bytes, *size);
}

static void test_classes(void **state)
{
    (void)state;
    static const struct { const char *floor, *kind; } CASES[] = {{"sky", "sky"}, {"clip", "tool"}};
    for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++) {
        uint8_t *bytes;
        bspkit_map *m = room(CASES[c].floor, &bytes);
        char *page;
        size_t size;
        bspkit_view_stats st;
        page_of(m, NULL, &page, &size, &st);
        char *b64 = block(page, "bspkit-glb");
        size_t packed_size, glb_size;
        uint8_t *packed = base64_decode(b64, &packed_size);
        assert_int_equal(packed_size, st.glb_deflated);
        uint8_t *glb = malloc(st.glb_bytes);
        assert_non_null(glb);
        struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
        assert_int_equal(libdeflate_deflate_decompress(d, packed, packed_size, glb, st.glb_bytes, &glb_size),
                         LIBDEFLATE_SUCCESS);
        libdeflate_free_decompressor(d);
        assert_int_equal(glb_size, st.glb_bytes);
        json_t *gltf = glb_json(glb, glb_size);
        printf("floor named %s: class \"%s\", wall \"%s\"\n", CASES[c].floor, material_class(gltf, CASES[c].floor),
               material_class(gltf, "bk_wall"));
        assert_string_equal(material_class(gltf, CASES[c].floor), CASES[c].kind);
        assert_string_equal(material_class(gltf, "bk_wall"), "");
        json_decref(gltf);

        /* The default export leaves the floor out and classes nothing. */
        uint8_t *plain;
        size_t plain_size;
        CHECK(bspkit_export_glb_memory(m, NULL, &plain, &plain_size, NULL, ERR));
        json_t *pj = glb_json(plain, plain_size);
        assert_null(material_class(pj, CASES[c].floor));
        assert_string_equal(material_class(pj, "bk_wall"), "");
        json_decref(pj);
        bspkit_free(plain);
        free(glb);
        free(packed);
        free(b64);
        bspkit_free(page);
        bspkit_close(m);
        bspkit_free(bytes);
    }
}

static void test_meta_and_title(void **state)
{
    (void)state;
    uint8_t *bytes;
    bspkit_map *m = room(NULL, &bytes);
    char *page, *again;
    size_t size, again_size;
    bspkit_view_stats st;
    page_of(m, "</script><b>&\"", &page, &size, &st);
    assert_non_null(strstr(page, "<title>&lt;/script&gt;&lt;b&gt;&amp;&quot;</title>"));
    char *meta = block(page, "bspkit-meta");
    assert_null(strchr(meta, '<'));
    json_error_t je;
    json_t *j = json_loads(meta, 0, &je);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "title")), "</script><b>&\"");
    assert_string_equal(json_string_value(json_object_get(j, "format")), "goldsrc");
    const bspkit_entities *ents;
    CHECK(bspkit_get_entities(m, &ents, ERR));
    assert_int_equal(json_integer_value(json_object_get(j, "entities")), ents->count);
    uint64_t faces;
    CHECK(bspkit_lump_record_count(m, bspkit_lump_find(m, "FACES"), &faces));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "counts"), "faces")), faces);
    /* info_player_start at 0 0 40, angles 0 0 0; GoldSrc's eye is 28 over the origin; fov 90. */
    const double want[6] = {0, 0, 68, 0, 0, 90};
    json_t *spawn = json_object_get(j, "spawn");
    assert_int_equal(json_array_size(spawn), 6);
    for (size_t i = 0; i < 6; i++)
        assert_true(json_number_value(json_array_get(spawn, i)) == want[i]);
    json_decref(j);
    free(meta);
    page_of(m, "</script><b>&\"", &again, &again_size, &st);
    assert_int_equal(again_size, size);
    assert_memory_equal(again, page, size);
    bspkit_free(again);
    bspkit_free(page);
    bspkit_close(m);
    bspkit_free(bytes);
}

static void test_unavailable(void **state)
{
    (void)state;
    uint8_t *bytes;
    bspkit_map *m = room(NULL, &bytes);
    uint8_t *page = (uint8_t *)"x";
    size_t size = 1;
    bspkit_result r = bspkit_view_html(m, NULL, &page, &size, NULL, ERR);
    if (bspkit_view_available()) {
        assert_int_equal(r, BSPKIT_OK);
        bspkit_free(page);
    } else {
        assert_int_equal(r, BSPKIT_ERR_UNSUPPORTED);
        assert_non_null(strstr(g_err.message, "npm ci"));
        assert_null(page);
        assert_int_equal(size, 0);
    }
    assert_int_equal(bspkit_view_html(NULL, NULL, &page, &size, NULL, ERR), BSPKIT_ERR_ARGUMENT);
    bspkit_close(m);
    bspkit_free(bytes);
}

int main(void)
{
    const struct CMUnitTest with_script[] = {
        cmocka_unit_test(test_classes),
        cmocka_unit_test(test_meta_and_title),
        cmocka_unit_test(test_unavailable),
    };
    const struct CMUnitTest without_script[] = {
        cmocka_unit_test(test_unavailable),
    };
    if (!bspkit_view_available()) {
        printf("this library has no viewer script: only its refusal is tested\n");
        return cmocka_run_group_tests(without_script, NULL, NULL);
    }
    return cmocka_run_group_tests(with_script, NULL, NULL);
}
