/*
 * Saving real maps: every supported map in ../shared/maps (skipped, saying so,
 * when the directory is absent) goes through
 *  1. an unchanged save, which must be byte-identical to the input;
 *  2. an entity edit that grows the lump, so every other lump moves: the
 *     output must open, validate without errors, hold every other lump with
 *     identical decompressed bytes (game lumps entry by entry) and, for
 *     Source, keep the map CRC;
 *  3. Source only: saving with every lump LZMA-compressed, then with nothing
 *     compressed; each time every lump's decompressed bytes must equal the
 *     input's, and each compressed lump must decode with liblzma's own LZMA1
 *     ("alone") decoder after its Valve header is rewritten as a standard one;
 *  4. Source only: saving in the other byte order: every record array must
 *     decode to the same native values, and converting back must give the
 *     input's decompressed lump bytes again (checked when no lump had to be
 *     copied unconverted for want of a known layout).
 */
#include "bspkit/bspkit.h"
#include "bspkit/edit.h"
#include "corpus_walk.h"
#include "valve_lzma.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int failures, maps, read_only, identical, edited, compressed_maps, lzma_lumps, swapped_maps;
static int unknown_swaps, back_skipped;

static void fail(const char *rel, const char *what, const char *detail)
{
    failures++;
    printf("FAIL %s: %s%s%s\n", rel, what, detail ? ": " : "", detail ? detail : "");
}

static bspkit_map *reopen(const char *rel, const uint8_t *buf, size_t size, const char *what)
{
    bspkit_map *m = NULL;
    bspkit_error err;
    if (bspkit_open_memory(buf, size, NULL, &m, &err) != BSPKIT_OK) {
        fail(rel, what, err.message);
        return NULL;
    }
    bspkit_report rep = {0};
    if (bspkit_validate(m, &rep, &err) != BSPKIT_OK)
        fail(rel, what, err.message);
    else if (rep.errors)
        fail(rel, what, rep.count ? rep.problems[0].message : "validation errors");
    bspkit_report_free(&rep);
    return m;
}

/* Every lump but `skip` (and game lumps entry by entry, terminators aside) has equal decompressed bytes. */
static void same_lumps(const char *rel, bspkit_map *a, bspkit_map *b, int skip, const char *what)
{
    const bspkit_format *f = bspkit_map_format(a);
    bspkit_error err;
    char detail[200];
    for (int i = 0; i < f->lump_count; i++) {
        if (i == skip)
            continue;
        if (f->family == BSPKIT_FAMILY_SOURCE && i == BSPKIT_S_GAME_LUMP) {
            const bspkit_game_lump *ga, *gb;
            size_t na, nb;
            if (bspkit_get_game_lumps(a, &ga, &na, &err) || bspkit_get_game_lumps(b, &gb, &nb, &err)) {
                fail(rel, what, err.message);
                continue;
            }
            size_t j = 0;
            for (size_t k = 0; k < na; k++) {
                if (ga[k].id == 0)
                    continue;
                while (j < nb && gb[j].id == 0)
                    j++;
                const uint8_t *da, *db;
                size_t sa, sb;
                if (j >= nb || ga[k].id != gb[j].id || ga[k].version != gb[j].version ||
                    bspkit_game_lump_bytes(a, k, &da, &sa, &err) || bspkit_game_lump_bytes(b, j, &db, &sb, &err) ||
                    sa != sb || (sa && memcmp(da, db, sa))) {
                    snprintf(detail, sizeof detail, "game lump %zu differs", k);
                    fail(rel, what, detail);
                }
                j++;
            }
            continue;
        }
        const uint8_t *da, *db;
        size_t sa, sb;
        if (bspkit_lump_bytes(a, i, &da, &sa, &err) != BSPKIT_OK || bspkit_lump_bytes(b, i, &db, &sb, &err) != BSPKIT_OK) {
            fail(rel, what, err.message);
            continue;
        }
        if (sa != sb || (sa && memcmp(da, db, sa))) {
            snprintf(detail, sizeof detail, "lump %d differs (%zu vs %zu bytes)", i, sa, sb);
            fail(rel, what, detail);
        }
    }
}

static uint8_t *save(const char *rel, bspkit_edit *e, const bspkit_save_options *o, size_t *size, const char *what)
{
    uint8_t *out = NULL;
    bspkit_error err;
    if (bspkit_edit_write(e, o, &out, size, &err) != BSPKIT_OK) {
        fail(rel, what, err.message);
        return NULL;
    }
    return out;
}

static void check_entity_edit(const char *rel, bspkit_map *map)
{
    bspkit_error err;
    const uint8_t *text;
    size_t size;
    if (bspkit_lump_bytes(map, 0, &text, &size, &err) != BSPKIT_OK)
        return fail(rel, "entity lump", err.message);
    static const char extra[] = "{\n\"classname\" \"info_null\"\n\"targetname\" \"bspkit_edit_check\"\n}\n";
    size_t len = strnlen((const char *)text, size);
    char *grown = malloc(len + sizeof extra);
    memcpy(grown, text, len);
    memcpy(grown + len, extra, sizeof extra);
    bspkit_edit *e;
    bspkit_edit_new(map, &e, &err);
    if (bspkit_edit_set_entities_text(e, grown, len + sizeof extra - 1, &err) != BSPKIT_OK) {
        fail(rel, "entity edit", err.message);
    } else {
        size_t n;
        uint8_t *out = save(rel, e, NULL, &n, "entity edit");
        bspkit_map *m2 = out ? reopen(rel, out, n, "entity edit output") : NULL;
        if (m2) {
            edited++;
            same_lumps(rel, map, m2, 0, "entity edit");
            const bspkit_entities *ents;
            if (bspkit_get_entities(m2, &ents, &err) != BSPKIT_OK || ents->count == 0 ||
                !bspkit_entity_value(ents, ents->count - 1, "targetname") ||
                strcmp(bspkit_entity_value(ents, ents->count - 1, "targetname"), "bspkit_edit_check") != 0)
                fail(rel, "entity edit", "the added entity is not the last one in the output");
            uint32_t c1, c2;
            if (bspkit_map_format(map)->family == BSPKIT_FAMILY_SOURCE &&
                (bspkit_map_crc(map, &c1, &err) || bspkit_map_crc(m2, &c2, &err) || c1 != c2))
                fail(rel, "entity edit", "the map CRC changed");
            bspkit_close(m2);
        }
        free(out);
    }
    bspkit_edit_free(e);
    free(grown);
}

static void check_compression(const char *rel, bspkit_map *map)
{
    bspkit_error err;
    bspkit_edit *e;
    bspkit_edit_new(map, &e, &err);
    bspkit_save_options o = {.compression = BSPKIT_COMPRESSION_LZMA};
    size_t n;
    uint8_t *packed = save(rel, e, &o, &n, "LZMA save");
    bspkit_map *mp = packed ? reopen(rel, packed, n, "LZMA output") : NULL;
    if (mp) {
        same_lumps(rel, map, mp, -1, "LZMA output");
        for (int i = 0; i < BSPKIT_S_LUMP_COUNT; i++) {
            bspkit_lump_info li;
            const uint8_t *plain;
            size_t plain_size;
            if (bspkit_get_lump_info(mp, i, &li) != BSPKIT_OK || !li.compressed)
                continue;
            if (bspkit_lump_bytes(map, i, &plain, &plain_size, &err) != BSPKIT_OK ||
                !valve_lzma_lump_equals(packed + li.offset, li.length, plain, plain_size)) {
                char d[64];
                snprintf(d, sizeof d, "lump %d does not decode with liblzma's LZMA1 decoder", i);
                fail(rel, "LZMA output", d);
            }
            lzma_lumps++;
        }
        /* ... and back to plain lumps. */
        bspkit_edit *e2;
        bspkit_edit_new(mp, &e2, &err);
        o.compression = BSPKIT_COMPRESSION_NONE;
        uint8_t *plain_map = save(rel, e2, &o, &n, "decompressing save");
        bspkit_map *mu = plain_map ? reopen(rel, plain_map, n, "decompressed output") : NULL;
        if (mu) {
            if (bspkit_map_format(mu)->variant & BSPKIT_VARIANT_COMPRESSED)
                fail(rel, "decompressed output", "still has compressed lumps");
            same_lumps(rel, map, mu, -1, "decompressed output");
            compressed_maps++;
            bspkit_close(mu);
        }
        free(plain_map);
        bspkit_edit_free(e2);
        bspkit_close(mp);
    }
    free(packed);
    bspkit_edit_free(e);
}

typedef bspkit_result (*array_fn)(bspkit_map *, const void **, size_t *, bspkit_error *);
#define ACC(fn, type) {#fn, (array_fn)(bspkit_result(*)(bspkit_map *, const type **, size_t *, bspkit_error *))fn, sizeof(type)}
static const struct {
    const char *name;
    array_fn fn;
    size_t elem;
} ACCESSORS[] = {
    ACC(bspkit_get_planes, bspkit_plane),       ACC(bspkit_get_vertexes, bspkit_vec3),
    ACC(bspkit_get_edges, bspkit_edge),         ACC(bspkit_get_surfedges, int32_t),
    ACC(bspkit_get_faces, bspkit_face),         ACC(bspkit_get_orig_faces, bspkit_face),
    ACC(bspkit_get_hdr_faces, bspkit_face),     ACC(bspkit_get_nodes, bspkit_node),
    ACC(bspkit_get_leafs, bspkit_leaf),         ACC(bspkit_get_models, bspkit_model),
    ACC(bspkit_get_texinfo, bspkit_texinfo),    ACC(bspkit_get_leaf_faces, uint32_t),
    ACC(bspkit_get_leaf_brushes, uint32_t),     ACC(bspkit_get_brushes, bspkit_brush),
    ACC(bspkit_get_brushsides, bspkit_brushside), ACC(bspkit_get_texdata, bspkit_texdata),
    ACC(bspkit_get_texdata_string_table, int32_t), ACC(bspkit_get_areas, bspkit_area),
    ACC(bspkit_get_areaportals, bspkit_areaportal), ACC(bspkit_get_cubemaps, bspkit_cubemap),
};

static void count_warning(void *ctx, const bspkit_error *w)
{
    (void)w;
    ++*(int *)ctx;
}

static void check_byte_order(const char *rel, bspkit_map *map)
{
    bspkit_error err;
    bspkit_edit *e;
    bspkit_edit_new(map, &e, &err);
    int warnings = 0;
    bool be = bspkit_map_format(map)->big_endian;
    bspkit_save_options o = {.byte_order = be ? BSPKIT_BYTE_ORDER_LITTLE : BSPKIT_BYTE_ORDER_BIG,
                             .warning = count_warning, .warning_ctx = &warnings};
    size_t n;
    uint8_t *other = save(rel, e, &o, &n, "byte-order conversion");
    bspkit_map *mo = other ? reopen(rel, other, n, "converted output") : NULL;
    if (mo) {
        if (bspkit_map_format(mo)->big_endian == be)
            fail(rel, "converted output", "byte order unchanged");
        for (size_t k = 0; k < sizeof ACCESSORS / sizeof ACCESSORS[0]; k++) {
            const void *a, *b;
            size_t na, nb;
            if (ACCESSORS[k].fn(map, &a, &na, &err) != BSPKIT_OK || ACCESSORS[k].fn(mo, &b, &nb, &err) != BSPKIT_OK ||
                na != nb || (na && memcmp(a, b, na * ACCESSORS[k].elem)))
                fail(rel, "converted output decodes differently", ACCESSORS[k].name);
        }
        /* A lump copied without conversion is garbage in the other byte
         * order, so converting back can only be checked when none was. */
        if (warnings) {
            back_skipped++;
            bspkit_close(mo);
            goto out;
        }
        bspkit_edit *e2;
        bspkit_edit_new(mo, &e2, &err);
        o.byte_order = be ? BSPKIT_BYTE_ORDER_BIG : BSPKIT_BYTE_ORDER_LITTLE;
        uint8_t *back = save(rel, e2, &o, &n, "converting back");
        bspkit_map *mb = back ? reopen(rel, back, n, "converted back") : NULL;
        if (mb) {
            same_lumps(rel, map, mb, -1, "converted back");
            swapped_maps++;
            bspkit_close(mb);
        }
        free(back);
        bspkit_edit_free(e2);
        bspkit_close(mo);
    }
out:
    if (warnings) {
        unknown_swaps += warnings;
        printf("note %s: %d lumps or game lumps copied without conversion (layout unknown)\n", rel, warnings);
    }
    free(other);
    bspkit_edit_free(e);
}

static void check_file(const char *root, const char *rel)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    bspkit_map *map = NULL;
    bspkit_error err;
    if (bspkit_open_file(path, NULL, &map, &err) != BSPKIT_OK)
        return; /* unsupported files are the reader's corpus test's business */
    bspkit_edit *e;
    if (bspkit_edit_new(map, &e, &err) != BSPKIT_OK) {
        /* Read-only families (Titanfall 2) refuse to be edited, and say so. */
        if (err.code != BSPKIT_ERR_UNSUPPORTED || !strstr(err.message, "read-only"))
            fail(rel, "edit", err.message);
        else
            read_only++;
        bspkit_close(map);
        return;
    }
    maps++;
    size_t n, in_size;
    const uint8_t *in = bspkit_map_bytes(map, &in_size);
    uint8_t *out = save(rel, e, NULL, &n, "unchanged save");
    if (out && (n != in_size || memcmp(out, in, n) != 0))
        fail(rel, "unchanged save", "not byte-identical to the input");
    else if (out)
        identical++;
    free(out);
    bspkit_edit_free(e);

    check_entity_edit(rel, map);
    if (bspkit_map_format(map)->family == BSPKIT_FAMILY_SOURCE) {
        check_compression(rel, map);
        check_byte_order(rel, map);
    }
    bspkit_close(map);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: corpus_edit_test MAPS_DIR\n");
        return 2;
    }
    struct stat st;
    if (stat(argv[1], &st) != 0 || !S_ISDIR(st.st_mode)) {
        printf("skipped: %s not present, corpus save checks not run\n", argv[1]);
        return 0;
    }
    corpus_walk(argv[1], check_file);
    printf("corpus saves: %d maps (and %d read-only ones refused); %d byte-identical unchanged saves; %d entity edits re-validated; "
           "%d Source maps LZMA-compressed (%d lumps checked with liblzma) and decompressed; "
           "%d converted to the other byte order and back, %d only one way (%d lumps or game lumps of unknown "
           "layout copied); %d failures\n",
           maps, read_only, identical, edited, compressed_maps, lzma_lumps, swapped_maps, back_skipped, unknown_swaps, failures);
    if (maps == 0) {
        printf("FAIL: no supported maps found under %s\n", argv[1]);
        return 1;
    }
    return failures ? 1 : 0;
}
