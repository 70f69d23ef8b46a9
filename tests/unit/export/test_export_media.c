/* Export media: the PNG images embedded in a GLB decoded again by libpng's
 * reader and compared pixel by pixel with the miptex indices and palette the
 * test reads from the TEXTURES lump itself; '{' textures as alpha masks;
 * TEXCOORD_1 of every vertex inside its face's atlas rectangle; the lightmap
 * image at the atlas size; and the bound on faces sharing surfedge ranges. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"

#include "bspkit/atlas.h"
#include "bspkit/export.h"
#include "bspkit/write.h"
#include "core/bytes.h"
#include "export/mesh.h"

#include <jansson.h>
#include "png_pixels.h"
#include <stdlib.h>
#include <string.h>

static bspkit_map *open_bytes(const uint8_t *buf, size_t size)
{
    bspkit_options o = {.flags = BSPKIT_OPEN_COPY};
    bspkit_map *m;
    CHECK(bspkit_open_memory(buf, size, &o, &m, ERR));
    return m;
}

/* ---- GLB reading ---------------------------------------------------------- */

typedef struct glb {
    uint8_t *data;
    size_t size;
    json_t *root;
    const uint8_t *bin;
    size_t bin_size;
} glb;

static glb export_glb(bspkit_map *m, const bspkit_export_options *o, bspkit_export_stats *st)
{
    glb g;
    memset(&g, 0, sizeof g);
    CHECK(bspkit_export_glb_memory(m, o, &g.data, &g.size, st, ERR));
    assert_true(g.size >= 28);
    size_t jlen = rd_le32(g.data + 12);
    json_error_t je;
    g.root = json_loadb((const char *)g.data + 20, jlen, 0, &je);
    assert_non_null(g.root);
    g.bin = g.data + 20 + jlen + 8;
    g.bin_size = rd_le32(g.data + 20 + jlen);
    return g;
}

static void glb_free(glb *g)
{
    json_decref(g->root);
    free(g->data);
}

static json_t *jget(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        fail_msg("no key %s", key);
    return v;
}

static size_t jint(json_t *o, const char *key) { return (size_t)json_integer_value(jget(o, key)); }

/* Bytes of bufferView `view`, bounds-checked against the BIN chunk. */
static const uint8_t *view_bytes(const glb *g, size_t view, size_t *len)
{
    json_t *v = json_array_get(jget(g->root, "bufferViews"), view);
    assert_non_null(v);
    size_t off = jint(v, "byteOffset");
    *len = jint(v, "byteLength");
    assert_true(off + *len <= g->bin_size);
    return g->bin + off;
}

/* Decode the PNG of texture `tex` to RGBA with libpng's simplified reader. */
static uint8_t *texture_pixels(const glb *g, size_t tex, uint32_t *w, uint32_t *h)
{
    json_t *t = json_array_get(jget(g->root, "textures"), tex);
    json_t *img = json_array_get(jget(g->root, "images"), jint(t, "source"));
    assert_string_equal(json_string_value(jget(img, "mimeType")), "image/png");
    size_t len;
    const uint8_t *png = view_bytes(g, jint(img, "bufferView"), &len);
    return png_pixels(png, len, w, h, NULL);
}

/* ---- GoldSrc textures ------------------------------------------------------ */

/* GoldSrc header: version, then 15 (offset, length) pairs; TEXTURES is lump 2. */
static uint8_t *textures_lump(uint8_t *file, size_t *len)
{
    *len = rd_le32(file + 4 + 2 * 8 + 4);
    return file + rd_le32(file + 4 + 2 * 8);
}

/* Miptex `i` of the lump: header at the returned pointer (name[16], width,
 * height, 4 mip offsets), pixels of mip 0 and the palette after mip 3. */
static uint8_t *miptex_at(uint8_t *lump, size_t len, uint32_t i)
{
    uint32_t n = rd_le32(lump);
    assert_true(i < n && 4 + 4 * (size_t)n <= len);
    uint32_t off = rd_le32(lump + 4 + 4 * i);
    assert_true(off + 40 <= len);
    return lump + off;
}

static void check_goldsrc_textures(void **state)
{
    (void)state;
    uint8_t *file;
    size_t size;
    CHECK(bspkit_sample_build(BSPKIT_SAMPLE_GOLDSRC_ROOM, &file, &size, ERR));
    size_t len;
    uint8_t *lump = textures_lump(file, &len);
    uint32_t count = rd_le32(lump);
    assert_true(count >= 2);
    /* Texture 1 becomes a cut-out: its name starts with '{' and its first
     * pixel uses index 255, the transparent one. */
    uint8_t *cut = miptex_at(lump, len, 1);
    cut[0] = '{';
    cut[rd_le32(cut + 24)] = 255;
    bspkit_map *m = open_bytes(file, size);

    bspkit_export_stats st;
    glb g = export_glb(m, NULL, &st);
    json_t *materials = jget(g.root, "materials");
    size_t i, checked = 0, masks = 0;
    json_t *mat;
    json_array_foreach(materials, i, mat)
    {
        const char *name = json_string_value(jget(mat, "name"));
        uint8_t *mt = NULL;
        for (uint32_t k = 0; k < count && !mt; k++) {
            uint8_t *c = miptex_at(lump, len, k);
            if (strncmp((const char *)c, name, 16) == 0)
                mt = c;
        }
        assert_non_null(mt);
        uint32_t w = rd_le32(mt + 16), h = rd_le32(mt + 20);
        const uint8_t *pixels = mt + rd_le32(mt + 24);
        const uint8_t *pal = mt + rd_le32(mt + 36) + (size_t)(w / 8) * (h / 8);
        assert_int_equal(rd_le16(pal), 256);
        pal += 2;
        assert_true(pal + 768 <= lump + len);
        bool cutout = name[0] == '{';
        json_t *base = jget(jget(mat, "pbrMetallicRoughness"), "baseColorTexture");
        assert_int_equal(jint(base, "texCoord"), 0);
        uint32_t pw, ph;
        uint8_t *px = texture_pixels(&g, jint(base, "index"), &pw, &ph);
        assert_int_equal(pw, w);
        assert_int_equal(ph, h);
        for (size_t p = 0; p < (size_t)w * h; p++) {
            uint8_t idx = pixels[p];
            uint8_t want[4] = {pal[idx * 3], pal[idx * 3 + 1], pal[idx * 3 + 2], 255};
            if (cutout && idx == 255)
                memset(want, 0, 4);
            if (memcmp(px + p * 4, want, 4) != 0)
                fail_msg("%s pixel %zu: %u %u %u %u, want %u %u %u %u", name, p, px[p * 4], px[p * 4 + 1],
                         px[p * 4 + 2], px[p * 4 + 3], want[0], want[1], want[2], want[3]);
        }
        free(px);
        json_t *mode = json_object_get(mat, "alphaMode");
        if (cutout) {
            assert_string_equal(json_string_value(mode), "MASK");
            assert_true(json_real_value(jget(mat, "alphaCutoff")) == 0.5);
            masks++;
        } else {
            assert_null(mode);
        }
        checked++;
    }
    assert_int_equal(masks, 1);
    assert_int_equal(checked, st.materials);
    assert_int_equal(st.images, checked);
    assert_int_equal(st.missing_textures, 0);
    /* Samplers repeat for textures. */
    json_t *s0 = json_array_get(jget(g.root, "samplers"), 0);
    assert_int_equal(jint(s0, "wrapS"), 10497);
    assert_int_equal(jint(s0, "wrapT"), 10497);
    glb_free(&g);

    /* Without textures: no images, and a flat colour instead. */
    bspkit_export_options o = {.no_textures = true, .no_lightmaps = true};
    g = export_glb(m, &o, &st);
    assert_null(json_object_get(g.root, "images"));
    assert_int_equal(st.images, 0);
    json_array_foreach(jget(g.root, "materials"), i, mat)
        assert_null(json_object_get(jget(mat, "pbrMetallicRoughness"), "baseColorTexture"));
    glb_free(&g);
    bspkit_close(m);
    bspkit_free_buffer(file);
}

/* ---- textures kept with the map -------------------------------------------- */

/* Bytes of the texture PNGs a GLB embeds (the lightmap atlas left out). */
static size_t texture_png_bytes(const glb *g)
{
    size_t i, total = 0;
    json_t *img;
    json_array_foreach(jget(g->root, "images"), i, img)
    {
        if (strcmp(json_string_value(jget(img, "name")), "lightmap") == 0)
            continue;
        size_t len;
        view_bytes(g, jint(img, "bufferView"), &len);
        total += len;
    }
    return total;
}

/* A second export of the same open map reuses the PNGs of the textures the
 * map holds: the same GLB, the PNGs charged to the map once, and (the map
 * reading its bytes in place) pixels changed after the first export do not
 * show, since nothing is decoded again. */
static void test_texture_cache(void **state)
{
    (void)state;
    uint8_t *file;
    size_t size;
    CHECK(bspkit_sample_build(BSPKIT_SAMPLE_GOLDSRC_ROOM, &file, &size, ERR));
    bspkit_map *m;
    CHECK(bspkit_open_memory(file, size, NULL, &m, ERR)); /* borrows `file` */
    bspkit_export_options plain = {.no_textures = true};
    bspkit_export_stats st;
    glb g = export_glb(m, &plain, &st); /* every lump the export reads, decoded */
    glb_free(&g);
    size_t before = bspkit_map_memory_used(m);
    glb first = export_glb(m, NULL, &st);
    assert_true(st.images >= 2);
    size_t kept = bspkit_map_memory_used(m) - before;
    assert_true(kept >= texture_png_bytes(&first));

    /* Every embedded texture's pixels changed in the map's bytes. */
    size_t len;
    uint8_t *lump = textures_lump(file, &len);
    for (uint32_t k = 0; k < rd_le32(lump); k++) {
        uint8_t *mt = miptex_at(lump, len, k);
        uint32_t w = rd_le32(mt + 16), h = rd_le32(mt + 20);
        for (size_t p = 0; p < (size_t)w * h; p++)
            mt[rd_le32(mt + 24) + p] ^= 0x55;
    }
    glb second = export_glb(m, NULL, &st);
    assert_int_equal(second.size, first.size);
    assert_memory_equal(second.data, first.data, first.size);
    assert_int_equal(bspkit_map_memory_used(m), before + kept);
    glb_free(&second);
    bspkit_close(m);

    /* A fresh map of the changed bytes shows the change: the cache was what kept the old pixels. */
    m = open_bytes(file, size);
    glb changed = export_glb(m, NULL, &st);
    assert_true(changed.size != first.size || memcmp(changed.data, first.data, first.size) != 0);
    glb_free(&changed);
    bspkit_close(m);

    glb_free(&first);
    bspkit_free_buffer(file);
}

/* ---- lightmap coordinates ------------------------------------------------- */

static size_t check_lightmap_uvs(bspkit_sample_kind kind)
{
    uint8_t *file;
    size_t size;
    CHECK(bspkit_sample_build(kind, &file, &size, ERR));
    bspkit_map *m = open_bytes(file, size);
    bspkit_free_buffer(file);
    bspkit_lightmap_atlas atlas;
    CHECK(bspkit_lightmap_atlas_build(m, NULL, &atlas, ERR));
    size_t placed = 0;
    for (size_t f = 0; f < atlas.rect_count; f++)
        placed += atlas.rects[f].placed;
    glb g = export_glb(m, NULL, NULL);
    /* The mesh in the order the writer used, for each vertex's face. */
    bk_xmesh x;
    bk_xmesh_options mo = {.atlas = &atlas};
    CHECK(bk_xmesh_build(m, &mo, &x, ERR));
    json_t *meshes = jget(g.root, "meshes"), *acc = jget(g.root, "accessors");
    size_t mesh_index = 0, inside = 0;
    double W = atlas.image.width, H = atlas.image.height;
    for (size_t mi = 0; mi < x.model_count; mi++) {
        if (x.models[mi].prim_count == 0)
            continue;
        json_t *prims = jget(json_array_get(meshes, mesh_index++), "primitives");
        for (size_t p = 0; p < x.models[mi].prim_count; p++) {
            const bk_xprim *pr = &x.models[mi].prims[p];
            json_t *attr = jget(json_array_get(prims, p), "attributes");
            if (placed == 0) {
                assert_null(json_object_get(attr, "TEXCOORD_1"));
                continue;
            }
            json_t *a = json_array_get(acc, jint(attr, "TEXCOORD_1"));
            assert_int_equal(jint(a, "count"), pr->vert_count);
            size_t vlen;
            const uint8_t *uv = view_bytes(&g, jint(a, "bufferView"), &vlen);
            assert_true(vlen >= pr->vert_count * 8);
            for (size_t v = 0; v < pr->vert_count; v++) {
                float u = rd_f32(uv + v * 8, false), t = rd_f32(uv + v * 8 + 4, false);
                const bspkit_atlas_rect *r = &atlas.rects[pr->verts[v].face];
                if (!r->placed) {
                    assert_true(u == 0 && t == 0);
                    continue;
                }
                /* Face points lie between the centres of the rectangle's
                 * first and last luxels, x + 0.5 .. x + w - 0.5. */
                assert_true(u * W >= r->x + 0.5 - 1e-3 && u * W <= r->x + r->width - 0.5 + 1e-3);
                assert_true(t * H >= r->y + 0.5 - 1e-3 && t * H <= r->y + r->height - 0.5 + 1e-3);
                inside++;
            }
        }
    }
    if (placed > 0) {
        /* The lightmap texture decodes to the atlas size and pixels. */
        json_t *tex;
        size_t i, lm = SIZE_MAX;
        json_array_foreach(jget(g.root, "textures"), i, tex)
            if (strcmp(json_string_value(jget(tex, "name")), "lightmap") == 0)
                lm = i;
        assert_true(lm != SIZE_MAX);
        uint32_t w, h;
        uint8_t *px = texture_pixels(&g, lm, &w, &h);
        assert_int_equal(w, atlas.image.width);
        assert_int_equal(h, atlas.image.height);
        assert_memory_equal(px, atlas.image.rgba, (size_t)w * h * 4);
        free(px);
        /* Every lit material names it. */
        json_t *mat;
        json_array_foreach(jget(g.root, "materials"), i, mat)
        {
            json_t *ex = json_object_get(mat, "extras");
            if (ex) {
                assert_int_equal(jint(jget(ex, "lightmap"), "index"), lm);
                assert_int_equal(jint(jget(ex, "lightmap"), "texCoord"), 1);
            }
        }
        assert_true(inside > 0);
    }
    bk_xmesh_free(&x);
    glb_free(&g);
    bspkit_lightmap_atlas_free(&atlas);
    bspkit_close(m);
    return inside;
}

static void test_lightmap_uvs(void **state)
{
    (void)state;
    size_t total = 0;
    for (int k = 0; k < BSPKIT_SAMPLE_COUNT; k++)
        total += check_lightmap_uvs((bspkit_sample_kind)k);
    assert_true(total > 0);
    /* The big-endian Source sample places the same vertices as the little-endian one. */
    assert_int_equal(check_lightmap_uvs(BSPKIT_SAMPLE_SOURCE_ROOM), check_lightmap_uvs(BSPKIT_SAMPLE_SOURCE_ROOM_BE));
}

/* ---- output bound ----------------------------------------------------------- */

/* A Quake map whose `nfaces` faces all use the same 4 surfedges. */
static bspkit_map *shared_edges_map(size_t nfaces)
{
    bspkit_builder *b;
    CHECK(bspkit_builder_new(BSPKIT_FAMILY_QUAKE, 29, &b, ERR));
    bspkit_vec3 verts[4] = {{0, 0, 0}, {64, 0, 0}, {64, 64, 0}, {0, 64, 0}};
    bspkit_edge edges[5] = {{{0, 0}}, {{0, 1}}, {{1, 2}}, {{2, 3}}, {{3, 0}}};
    int32_t surfedges[4] = {1, 2, 3, 4};
    bspkit_plane plane = {.normal = {0, 0, 1}};
    bspkit_texinfo ti;
    memset(&ti, 0, sizeof ti);
    ti.texture_vecs[0][0] = 1;
    ti.texture_vecs[1][1] = 1;
    bspkit_face *faces = calloc(nfaces, sizeof *faces);
    assert_non_null(faces);
    for (size_t i = 0; i < nfaces; i++) {
        faces[i].num_edges = 4;
        faces[i].light_offset = -1;
        memset(faces[i].styles, 255, 4);
    }
    bspkit_model model;
    memset(&model, 0, sizeof model);
    model.num_faces = (int32_t)nfaces;
    CHECK(bspkit_builder_set_vertexes(b, verts, 4, ERR));
    CHECK(bspkit_builder_set_edges(b, edges, 5, ERR));
    CHECK(bspkit_builder_set_surfedges(b, surfedges, 4, ERR));
    CHECK(bspkit_builder_set_planes(b, &plane, 1, ERR));
    CHECK(bspkit_builder_set_texinfo(b, &ti, 1, ERR));
    CHECK(bspkit_builder_set_faces(b, faces, nfaces, ERR));
    CHECK(bspkit_builder_set_models(b, &model, 1, ERR));
    free(faces);
    uint8_t *buf;
    size_t size;
    CHECK(bspkit_builder_write(b, NULL, &buf, &size, ERR));
    bspkit_builder_free(b);
    bspkit_map *m = open_bytes(buf, size);
    bspkit_free_buffer(buf);
    return m;
}

static void test_shared_surfedges(void **state)
{
    (void)state;
    /* 4 surfedges: the bound is 4 x 4 + 65536 = 65552 edges, 16388 faces of 4. */
    const size_t at_bound = (4 * 4 + 65536) / 4;
    bspkit_map *m = shared_edges_map(at_bound);
    uint8_t *out = NULL;
    size_t size;
    bspkit_export_stats st;
    CHECK(bspkit_export_glb_memory(m, NULL, &out, &size, &st, ERR));
    assert_int_equal(st.faces, at_bound);
    assert_int_equal(st.triangles, 2 * at_bound);
    free(out);
    bspkit_close(m);

    m = shared_edges_map(at_bound + 1);
    out = NULL;
    assert_int_equal(bspkit_export_glb_memory(m, NULL, &out, &size, &st, ERR), BSPKIT_ERR_LIMIT);
    assert_null(out);
    assert_int_equal(g_err.lump, BSPKIT_Q_FACES);
    assert_non_null(strstr(g_err.message, "FACES"));
    bspkit_close(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(check_goldsrc_textures),
        cmocka_unit_test(test_lightmap_uvs),
        cmocka_unit_test(test_texture_cache),
        cmocka_unit_test(test_shared_surfedges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
