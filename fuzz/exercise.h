/* Drives every read entry point of the library over one map. Shared by the
 * fuzz targets, the robustness test and the decode benchmark so that all
 * three cover exactly the same calls. Header-only because each user is a
 * single-file program. */
#ifndef BSPKIT_FUZZ_EXERCISE_H
#define BSPKIT_FUZZ_EXERCISE_H

#include "bspkit/bspkit.h"
#include "bspkit/bspx.h"
#include "bspkit/displacement.h"
#include "bspkit/dump.h"
#include "bspkit/decompile.h"
#include "bspkit/export.h"
#include "bspkit/lighting.h"
#include "bspkit/query.h"
#include "bspkit/textures.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Called after every library call that returns a result. `err` is NULL for
 * calls that take no error struct; it is only meaningful when r != OK. */
typedef void (*exercise_check_fn)(void *ctx, const char *call, bspkit_result r, const bspkit_error *err);

typedef struct exercise {
    exercise_check_fn check; /* may be NULL */
    void *ctx;
    /* Read every byte the library hands out, so a sanitizer sees a short
     * buffer. The benchmark turns this off to time decoding alone. */
    int touch;
    /* Leave out work that is not decoding or is repeated elsewhere: the vis
     * row loop (validation decodes every row itself) and the map CRC. */
    int decode_only;
    /* Upper bound on decompressed visibility bytes per kind; a hostile
     * cluster count can ask for gigabytes of rows. 0 = no bound. */
    uint64_t vis_budget;
    uint32_t sink; /* folded from touched bytes so the reads are kept */
    uint64_t calls;
} exercise;

static inline void ex_touch(exercise *ex, const void *p, size_t n)
{
    if (!ex->touch || p == NULL)
        return;
    const uint8_t *b = p;
    uint32_t h = ex->sink;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 16777619u;
    ex->sink = h;
}

static inline void ex_touch_str(exercise *ex, const char *s)
{
    if (s != NULL)
        ex_touch(ex, s, strlen(s) + 1);
}

static inline void ex_note(exercise *ex, const char *call, bspkit_result r, const bspkit_error *err)
{
    ex->calls++;
    if (ex->check != NULL)
        ex->check(ex->ctx, call, r, err);
}

/* What the checks read of an error, reset before a call: its code, place
 * and the start of its message. Clearing all 280 bytes before each accessor
 * would be timed with the accessors in bench_decode: a quarter of a small
 * map's array stage. */
static inline void ex_error_reset(bspkit_error *e)
{
    e->code = BSPKIT_OK;
    e->lump = -1;
    e->offset = e->lump_offset = -1;
    e->message[0] = '\0';
}

/* One accessor returning a borrowed array of T. */
#define EX_ARRAY(ex, map, fn, T)                                   \
    do {                                                           \
        const T *items_ = NULL;                                    \
        size_t n_ = 0;                                             \
        bspkit_error e_;                                           \
        ex_error_reset(&e_);                                       \
        bspkit_result r_ = fn(map, &items_, &n_, &e_);             \
        ex_note(ex, #fn, r_, &e_);                                 \
        if (r_ == BSPKIT_OK)                                       \
            ex_touch(ex, items_, n_ * sizeof *items_);             \
    } while (0)

static inline void ex_lumps(exercise *ex, bspkit_map *map)
{
    int count = bspkit_lump_count(map);
    /* One past each end as well: out-of-range indices must fail cleanly. */
    for (int i = -1; i <= count; i++) {
        bspkit_lump_info info;
        bspkit_result r = bspkit_get_lump_info(map, i, &info);
        ex_note(ex, "bspkit_get_lump_info", r, NULL);
        if (r == BSPKIT_OK) {
            ex_touch_str(ex, info.name);
            ex_touch_str(ex, info.key);
            if (info.name != NULL)
                (void)bspkit_lump_find(map, info.name);
            if (info.key != NULL)
                (void)bspkit_lump_find(map, info.key);
        }
        uint64_t records = 0;
        ex_note(ex, "bspkit_lump_record_count", bspkit_lump_record_count(map, i, &records), NULL);

        const uint8_t *data = NULL;
        size_t size = 0;
        bspkit_error e;
        memset(&e, 0, sizeof e);
        r = bspkit_lump_bytes(map, i, &data, &size, &e);
        ex_note(ex, "bspkit_lump_bytes", r, &e);
        if (r == BSPKIT_OK)
            ex_touch(ex, data, size);
    }
    (void)bspkit_lump_find(map, "no-such-lump");
}

static inline void ex_miptex(exercise *ex, bspkit_map *map)
{
    const bspkit_miptex *mips = NULL;
    size_t count = 0;
    bspkit_error e;
    memset(&e, 0, sizeof e);
    bspkit_result r = bspkit_get_miptex(map, &mips, &count, &e);
    ex_note(ex, "bspkit_get_miptex", r, &e);
    if (r != BSPKIT_OK)
        return;
    for (size_t i = 0; i < count; i++) {
        const bspkit_miptex *m = &mips[i];
        ex_touch(ex, m, sizeof *m);
        /* The pixel pointers claim (w>>k)*(h>>k) bytes each: read them all. */
        for (int k = 0; k < 4; k++)
            if (m->mips[k] != NULL)
                ex_touch(ex, m->mips[k], (size_t)(m->width >> k) * (size_t)(m->height >> k));
        if (m->palette != NULL)
            ex_touch(ex, m->palette, (size_t)m->palette_size * 3);
    }
    if (ex->decode_only)
        return;
    /* The embedded textures as a WAD: every byte it copies comes from the lump. */
    uint8_t *wad = NULL;
    size_t size = 0;
    r = bspkit_miptex_write_wad(map, &wad, &size, NULL, &e);
    ex_note(ex, "bspkit_miptex_write_wad", r, &e);
    if (r == BSPKIT_OK)
        ex_touch(ex, wad, size);
    bspkit_free(wad);
}

static inline void ex_game_lumps(exercise *ex, bspkit_map *map)
{
    const bspkit_game_lump *gl = NULL;
    size_t count = 0;
    bspkit_error e;
    memset(&e, 0, sizeof e);
    bspkit_result r = bspkit_get_game_lumps(map, &gl, &count, &e);
    ex_note(ex, "bspkit_get_game_lumps", r, &e);
    if (r != BSPKIT_OK)
        count = 0;
    ex_touch(ex, gl, count * sizeof *gl);
    for (size_t i = 0; i <= count; i++) {
        const uint8_t *data = NULL;
        size_t size = 0;
        memset(&e, 0, sizeof e);
        r = bspkit_game_lump_bytes(map, i, &data, &size, &e);
        ex_note(ex, "bspkit_game_lump_bytes", r, &e);
        if (r == BSPKIT_OK)
            ex_touch(ex, data, size);
    }
}

/* Every value of every table, field by field as a printer reads them. */
static inline void ex_dump_tables(exercise *ex, const bspkit_dump *d)
{
    ex_touch(ex, d->raw, d->raw_size);
    if (!ex->touch)
        return; /* the tables are built; walking them without reading costs only the walk */
    for (size_t t = 0; t < d->table_count; t++) {
        const bspkit_table *tab = &d->tables[t];
        for (size_t i = 0; i < tab->count; i++) {
            const uint8_t *rec = (const uint8_t *)bspkit_table_record(tab, i);
            for (size_t k = 0; k < tab->field_count; k++) {
                const bspkit_field *f = &tab->fields[k];
                if (f->type == BSPKIT_FIELD_STRING)
                    ex_touch_str(ex, *(const char *const *)(rec + f->offset));
                else
                    ex_touch(ex, rec + f->offset, f->type == BSPKIT_FIELD_CHARS ? f->count : 1);
            }
        }
    }
}

/* bspkit_dump_lump over every lump index and every game lump: this reaches
 * every decoder that has a dump table. */
static inline void ex_dump(exercise *ex, bspkit_map *map)
{
    bspkit_dump d;
    bspkit_error e;
    char which[16];
    int count = bspkit_lump_count(map);
    for (int i = 0; i < count; i++) {
        snprintf(which, sizeof which, "%d", i);
        memset(&e, 0, sizeof e);
        bspkit_result r = bspkit_dump_lump(map, which, &d, &e);
        ex_note(ex, "bspkit_dump_lump", r, &e);
        if (r == BSPKIT_OK)
            ex_dump_tables(ex, &d);
    }
    const bspkit_game_lump *gl = NULL;
    size_t ngl = 0;
    if (bspkit_get_game_lumps(map, &gl, &ngl, NULL) != BSPKIT_OK)
        ngl = 0;
    for (size_t i = 0; i < ngl && i < 64; i++) {
        for (int k = 0; k < 4; k++) {
            unsigned char c = (unsigned char)(gl[i].id >> (24 - 8 * k));
            which[k] = c ? (char)c : '?';
        }
        which[4] = '\0';
        memset(&e, 0, sizeof e);
        bspkit_result r = bspkit_dump_lump(map, which, &d, &e);
        ex_note(ex, "bspkit_dump_lump(game)", r, &e);
        if (r == BSPKIT_OK)
            ex_dump_tables(ex, &d);
    }
}

/* Every displaced mesh (bounded, since a hostile count can be large). */
static inline void ex_disp_meshes(exercise *ex, bspkit_map *map)
{
    const bspkit_dispinfo *di = NULL;
    size_t n = 0;
    bspkit_error e;
    memset(&e, 0, sizeof e);
    bspkit_result r = bspkit_get_dispinfo(map, &di, &n, &e);
    ex_note(ex, "bspkit_get_dispinfo", r, &e);
    if (r != BSPKIT_OK)
        n = 0;
    for (size_t i = 0; i <= n && i < 4096; i++) {
        bspkit_disp_mesh mesh;
        memset(&mesh, 0, sizeof mesh);
        memset(&e, 0, sizeof e);
        r = bspkit_disp_build_mesh(map, i, &mesh, &e);
        ex_note(ex, "bspkit_disp_build_mesh", r, &e);
        if (r == BSPKIT_OK) {
            ex_touch(ex, mesh.positions, mesh.vertex_count * sizeof *mesh.positions);
            ex_touch(ex, mesh.indices, mesh.triangle_count * 3 * sizeof *mesh.indices);
        }
        bspkit_disp_mesh_free(&mesh);
    }
}

/* Lightmap geometry (LDR and HDR) and the BSPX directory: decoded state that has no dump table. */
static inline void ex_lighting(exercise *ex, bspkit_map *map)
{
    for (int hdr = 0; hdr < 2; hdr++) {
        const bspkit_face_lightmap *lm = NULL;
        size_t n = 0;
        bspkit_error e;
        memset(&e, 0, sizeof e);
        bspkit_result r = bspkit_get_face_lightmaps(map, hdr != 0, &lm, &n, &e);
        ex_note(ex, "bspkit_get_face_lightmaps", r, &e);
        if (r == BSPKIT_OK)
            ex_touch(ex, lm, n * sizeof *lm);
    }
    const bspkit_bspx_entry *bx = NULL;
    size_t n = 0;
    bspkit_error e;
    memset(&e, 0, sizeof e);
    bspkit_result r = bspkit_bspx_entries(map, &bx, &n, &e);
    ex_note(ex, "bspkit_bspx_entries", r, &e);
    if (r != BSPKIT_OK)
        n = 0;
    for (size_t i = 0; i < n && i < 64; i++) {
        bspkit_dump d;
        memset(&e, 0, sizeof e);
        r = bspkit_dump_lump(map, bx[i].name, &d, &e);
        ex_note(ex, "bspkit_dump_lump(bspx)", r, &e);
        if (r == BSPKIT_OK)
            ex_dump_tables(ex, &d);
    }
}

/* Point queries at a few leaf centres in every hull, leaf visibility, vis statistics. */
static inline void ex_queries(exercise *ex, bspkit_map *map)
{
    const bspkit_leaf *leafs = NULL;
    size_t n = 0;
    if (bspkit_get_leafs(map, &leafs, &n, NULL) != BSPKIT_OK)
        n = 0;
    bspkit_error e;
    for (size_t i = 0; i < n && i < 32; i++) {
        const bspkit_leaf *l = &leafs[i];
        bspkit_vec3 c = {(l->mins.x + l->maxs.x) / 2, (l->mins.y + l->maxs.y) / 2, (l->mins.z + l->maxs.z) / 2};
        uint32_t leaf = 0;
        memset(&e, 0, sizeof e);
        bspkit_result r = bspkit_point_leaf(map, 0, c, &leaf, &e);
        ex_note(ex, "bspkit_point_leaf", r, &e);
        ex->sink ^= leaf;
        for (int hull = 0; hull < 4; hull++) {
            int32_t contents = 0;
            memset(&e, 0, sizeof e);
            r = bspkit_point_contents(map, c, hull, &contents, &e);
            ex_note(ex, "bspkit_point_contents", r, &e);
            ex->sink ^= (uint32_t)contents;
        }
        uint32_t count = 0;
        memset(&e, 0, sizeof e);
        r = bspkit_leaf_visible_leafs(map, (uint32_t)i, BSPKIT_VIS_PAS, &count, &e);
        ex_note(ex, "bspkit_leaf_visible_leafs", r, &e);
        ex->sink ^= count;
    }
    struct bspkit_vis_stats stats;
    memset(&e, 0, sizeof e);
    bspkit_result r = bspkit_vis_stats(map, &stats, &e);
    ex_note(ex, "bspkit_vis_stats", r, &e);
    if (r == BSPKIT_OK)
        ex_touch(ex, &stats, sizeof stats);
}

static inline void ex_texdata_names(exercise *ex, bspkit_map *map)
{
    const bspkit_texdata *td = NULL;
    size_t count = 0;
    bspkit_error e;
    memset(&e, 0, sizeof e);
    if (bspkit_get_texdata(map, &td, &count, &e) != BSPKIT_OK)
        count = 0;
    for (size_t i = 0; i <= count; i++)
        ex_touch_str(ex, bspkit_texdata_name(map, i));
}

static inline void ex_blob(exercise *ex, const char *call, bspkit_result r, const bspkit_error *e,
                           const uint8_t *data, size_t size)
{
    ex_note(ex, call, r, e);
    if (r == BSPKIT_OK)
        ex_touch(ex, data, size);
}

static inline void ex_entities(exercise *ex, bspkit_map *map)
{
    const bspkit_entities *ents = NULL;
    bspkit_error e;
    memset(&e, 0, sizeof e);
    bspkit_result r = bspkit_get_entities(map, &ents, &e);
    ex_note(ex, "bspkit_get_entities", r, &e);
    if (r != BSPKIT_OK || ents == NULL)
        return;
    for (size_t i = 0; i < ents->pair_count; i++) {
        ex_touch(ex, ents->pairs[i].key, (size_t)ents->pairs[i].key_length + 1);
        ex_touch(ex, ents->pairs[i].value, (size_t)ents->pairs[i].value_length + 1);
    }
    for (size_t i = 0; i <= ents->count; i++)
        ex_touch_str(ex, bspkit_entity_value(ents, i, "classname"));
}

static inline void ex_vis(exercise *ex, bspkit_map *map)
{
    uint32_t rows = 0, row_bytes = 0;
    bspkit_error e;
    memset(&e, 0, sizeof e);
    bspkit_result r = bspkit_vis_dimensions(map, &rows, &row_bytes, &e);
    ex_note(ex, "bspkit_vis_dimensions", r, &e);
    if (r != BSPKIT_OK)
        return;
    uint8_t *row = malloc(row_bytes ? row_bytes : 1);
    if (row == NULL)
        return;
    const bspkit_format *fmt = bspkit_map_format(map);
    /* Source rows are clusters from 0; Quake/GoldSrc rows are leafs from 1. */
    uint32_t first = fmt != NULL && fmt->family == BSPKIT_FAMILY_SOURCE ? 0 : 1;
    for (int kind = BSPKIT_VIS_PVS; kind <= BSPKIT_VIS_PAS; kind++) {
        uint64_t spent = 0;
        /* One past the end as well: it must fail cleanly. */
        for (uint64_t i = first; i <= (uint64_t)first + rows; i++) {
            if (ex->vis_budget != 0 && spent > ex->vis_budget)
                break;
            spent += row_bytes;
            memset(&e, 0, sizeof e);
            r = bspkit_vis_row(map, (uint32_t)i, (bspkit_vis_kind)kind, row, row_bytes, &e);
            ex_note(ex, "bspkit_vis_row", r, &e);
            if (r == BSPKIT_OK)
                ex_touch(ex, row, row_bytes);
        }
    }
    free(row);
}

static inline void ex_limits(exercise *ex, bspkit_map *map)
{
    bspkit_limit_usage rows[96];
    size_t count = 0;
    bspkit_result r = bspkit_limits(map, rows, sizeof rows / sizeof rows[0], &count);
    ex_note(ex, "bspkit_limits", r, NULL);
    if (r != BSPKIT_OK)
        return;
    if (count > sizeof rows / sizeof rows[0])
        count = sizeof rows / sizeof rows[0];
    for (size_t i = 0; i < count; i++)
        ex_touch_str(ex, rows[i].name);
}

/* Optional hook for the report, e.g. to assert on its contents. */
typedef void (*exercise_report_fn)(void *ctx, const bspkit_report *report);

static inline void ex_validate(exercise *ex, bspkit_map *map, exercise_report_fn on_report)
{
    bspkit_report report;
    memset(&report, 0, sizeof report);
    bspkit_error e;
    memset(&e, 0, sizeof e);
    bspkit_result r = bspkit_validate(map, &report, &e);
    ex_note(ex, "bspkit_validate", r, &e);
    if (r == BSPKIT_OK) {
        ex_touch(ex, report.problems, report.count * sizeof *report.problems);
        if (on_report != NULL)
            on_report(ex->ctx, &report);
    }
    bspkit_report_free(&report);
}

/* Every accessor of an open map, then validation. */
/* Every record array the public API hands out. */
static inline void ex_arrays(exercise *ex, bspkit_map *map)
{
    EX_ARRAY(ex, map, bspkit_get_planes, bspkit_plane);
    EX_ARRAY(ex, map, bspkit_get_vertexes, bspkit_vec3);
    EX_ARRAY(ex, map, bspkit_get_edges, bspkit_edge);
    EX_ARRAY(ex, map, bspkit_get_surfedges, int32_t);
    EX_ARRAY(ex, map, bspkit_get_faces, bspkit_face);
    EX_ARRAY(ex, map, bspkit_get_orig_faces, bspkit_face);
    EX_ARRAY(ex, map, bspkit_get_hdr_faces, bspkit_face);
    EX_ARRAY(ex, map, bspkit_get_nodes, bspkit_node);
    EX_ARRAY(ex, map, bspkit_get_leafs, bspkit_leaf);
    EX_ARRAY(ex, map, bspkit_get_models, bspkit_model);
    EX_ARRAY(ex, map, bspkit_get_texinfo, bspkit_texinfo);
    EX_ARRAY(ex, map, bspkit_get_leaf_faces, uint32_t);
    EX_ARRAY(ex, map, bspkit_get_leaf_brushes, uint32_t);
    EX_ARRAY(ex, map, bspkit_get_clipnodes, bspkit_clipnode);
    EX_ARRAY(ex, map, bspkit_get_brushes, bspkit_brush);
    EX_ARRAY(ex, map, bspkit_get_brushsides, bspkit_brushside);
    EX_ARRAY(ex, map, bspkit_get_texdata, bspkit_texdata);
    EX_ARRAY(ex, map, bspkit_get_texdata_string_table, int32_t);
    EX_ARRAY(ex, map, bspkit_get_areas, bspkit_area);
    EX_ARRAY(ex, map, bspkit_get_areaportals, bspkit_areaportal);
    EX_ARRAY(ex, map, bspkit_get_cubemaps, bspkit_cubemap);
}

static inline void exercise_map(exercise *ex, bspkit_map *map, exercise_report_fn on_report)
{
    const bspkit_format *fmt = bspkit_map_format(map);
    if (fmt != NULL) {
        ex_touch(ex, fmt, sizeof *fmt);
        ex_touch_str(ex, bspkit_family_name(fmt->family));
    }
    size_t size = 0;
    const uint8_t *bytes = bspkit_map_bytes(map, &size);
    ex_touch(ex, bytes, size);
    ex->sink ^= (uint32_t)bspkit_map_memory_used(map);

    ex_lumps(ex, map);
    ex_arrays(ex, map);
    ex_miptex(ex, map);
    ex_game_lumps(ex, map);
    ex_texdata_names(ex, map);
    ex_dump(ex, map);
    ex_disp_meshes(ex, map);
    ex_lighting(ex, map);
    if (!ex->decode_only)
        ex_queries(ex, map);

    const uint8_t *data = NULL;
    bspkit_error e;
    memset(&e, 0, sizeof e);
    bspkit_result r = bspkit_get_lighting(map, false, &data, &size, &e);
    ex_blob(ex, "bspkit_get_lighting", r, &e, data, size);
    memset(&e, 0, sizeof e);
    r = bspkit_get_lighting(map, true, &data, &size, &e);
    ex_blob(ex, "bspkit_get_lighting(hdr)", r, &e, data, size);
    memset(&e, 0, sizeof e);
    r = bspkit_get_pakfile(map, &data, &size, &e);
    ex_blob(ex, "bspkit_get_pakfile", r, &e, data, size);

    ex_entities(ex, map);
    if (!ex->decode_only) {
        ex_vis(ex, map);
        uint32_t crc = 0;
        memset(&e, 0, sizeof e);
        r = bspkit_map_crc(map, &crc, &e);
        ex_note(ex, "bspkit_map_crc", r, &e);
        ex->sink ^= crc;
    }

    ex_limits(ex, map);
    ex_validate(ex, map, on_report);
}

/* ---- checks for the fuzz targets: any broken promise aborts ---- */

static inline void exercise_fail(const char *call, const char *what)
{
    fprintf(stderr, "%s: %s\n", call, what);
    abort();
}

/* Every call returns a known code; a filled error repeats it and says why. */
static inline void exercise_check_abort(void *ctx, const char *call, bspkit_result r, const bspkit_error *err)
{
    (void)ctx;
    if ((unsigned)r >= BSPKIT_RESULT_COUNT)
        exercise_fail(call, "result outside bspkit_result");
    if (r == BSPKIT_OK || err == NULL)
        return;
    if (err->code != r)
        exercise_fail(call, "error code differs from the returned result");
    if (memchr(err->message, '\0', sizeof err->message) == NULL)
        exercise_fail(call, "error message not NUL-terminated");
    if (err->message[0] == '\0')
        exercise_fail(call, "error without a message");
}

static inline void exercise_report_abort(void *ctx, const bspkit_report *report)
{
    (void)ctx;
    if (report->count > 1000 || report->count > report->errors + report->warnings)
        exercise_fail("bspkit_validate", "problem count disagrees with the totals");
    for (size_t i = 0; i < report->count; i++) {
        const bspkit_problem *p = &report->problems[i];
        if ((unsigned)p->code >= BSPKIT_RESULT_COUNT || p->code == BSPKIT_OK)
            exercise_fail("bspkit_validate", "problem with an invalid code");
        if (p->severity != BSPKIT_SEVERITY_ERROR && p->severity != BSPKIT_SEVERITY_WARNING)
            exercise_fail("bspkit_validate", "problem with an invalid severity");
        if (memchr(p->message, '\0', sizeof p->message) == NULL || p->message[0] == '\0')
            exercise_fail("bspkit_validate", "problem without a message");
    }
}

/* Limits for fuzz targets: small enough that a forged size field cannot stall
 * or exhaust a run. */
static const bspkit_options exercise_fuzz_limits = {
    .max_file_size = 64u << 20,
    .max_lump_size = 8u << 20,
    .max_memory = 64u << 20,
};

/* Open `data`, checking the result's promise; NULL when it did not open. */
static inline bspkit_map *exercise_open(exercise *ex, const uint8_t *data, size_t size, const bspkit_options *opts)
{
    bspkit_map *map = NULL;
    bspkit_error e;
    memset(&e, 0, sizeof e);
    bspkit_result r = bspkit_open_memory(data, size, opts, &map, &e);
    ex_note(ex, "bspkit_open_memory", r, &e);
    return r == BSPKIT_OK ? map : NULL;
}

/* GLB export to memory (checked like every call); true when a GLB came out. */
static inline bool exercise_export(exercise *ex, bspkit_map *map, const bspkit_export_options *xo)
{
    bspkit_export_stats stats;
    uint8_t *glb = NULL;
    size_t glb_size = 0;
    bspkit_error e;
    memset(&e, 0, sizeof e);
    bspkit_result r = bspkit_export_glb_memory(map, xo, &glb, &glb_size, &stats, &e);
    ex_note(ex, "bspkit_export_glb_memory", r, &e);
    bool glb_ok = r == BSPKIT_OK && glb_size >= 12 && memcmp(glb, "glTF", 4) == 0;
    free(glb);
    return r != BSPKIT_OK || glb_ok;
}

/* Decompile to text in memory; false when a success gives no NUL-terminated
 * text of the stated size. */
static inline bool exercise_decompile(exercise *ex, bspkit_map *map, const bspkit_decompile_options *dopts)
{
    char *text = NULL;
    size_t text_size = 0;
    bspkit_error e;
    memset(&e, 0, sizeof e);
    bspkit_result r = bspkit_decompile_memory(map, dopts, &text, &text_size, NULL, &e);
    ex_note(ex, "bspkit_decompile_memory", r, &e);
    bool text_ok = r != BSPKIT_OK || (text != NULL && text[text_size] == '\0');
    free(text);
    return text_ok;
}

/* Detect, open, exercise and close `data`. Returns the open result. */
static inline bspkit_result exercise_bytes(exercise *ex, const uint8_t *data, size_t size,
                                           const bspkit_options *opts, exercise_report_fn on_report)
{
    bspkit_format fmt;
    bspkit_error e;
    memset(&e, 0, sizeof e);
    bspkit_result r = bspkit_detect(data, size, &fmt, &e);
    ex_note(ex, "bspkit_detect", r, &e);

    bspkit_map *map = NULL;
    memset(&e, 0, sizeof e);
    r = bspkit_open_memory(data, size, opts, &map, &e);
    ex_note(ex, "bspkit_open_memory", r, &e);
    if (r == BSPKIT_OK) {
        exercise_map(ex, map, on_report);
        bspkit_close(map);
    }
    return r;
}

#endif
