/* Allocation failure: for every sample map, the whole read path (open, every
 * accessor, every dump table, validation, close), the edit path (open,
 * edit the entities, write, re-open the output), the export path (open,
 * GLB with textures and lightmaps), the operators' path (diff, Stripper
 * config, size, dependencies) and the render path (a small top view) run once to count their allocations, then once per allocation with exactly that one failing.
 * Each run must end with every call returning a known result (an error
 * carries its message), results identical to the clean run unless some call
 * reported it as out of memory, and no allocation left behind after close.
 *
 * malloc, calloc, realloc, strdup and free are wrapped at link time
 * (-Wl,--wrap), so this covers the library's own allocations; memory that
 * liblzma and libzip allocate inside themselves is not counted. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bspkit/bspkit.h"
#include "bspkit/decompile.h"
#include "bspkit/deps.h"
#include "bspkit/diff.h"
#include "bspkit/edit.h"
#include "bspkit/entities_edit.h"
#include "bspkit/size.h"
#include "bspkit/export.h"
#include "bspkit/render.h"
#include "bspkit/write.h"

#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

void *__real_malloc(size_t size);
void __real_free(void *p);

/* The harness's own buffers (vis rows) bypass the wrappers: only the library's allocations are failed. */
#define malloc(n) __real_malloc(n)
#define free(p) __real_free(p)
#include "../../fuzz/exercise.h"
#undef malloc
#undef free

void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
char *__real_strdup(const char *s);

/* The export encodes images on several threads: the bookkeeping below is
 * shared by them, so every wrapper holds this lock while it counts. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static long g_fail_at = -1; /* index of the allocation to fail, -1 = none */
static long g_count;        /* allocations attempted since reset */
static long g_live;         /* blocks handed out and not yet freed */
static int g_failed;        /* the planned failure happened */

/* Blocks handed out through the wrappers, so a free() of memory that a
 * shared library allocated itself (liblzma's filter options) is not counted. */
#define TRACK_SLOTS (1u << 16)
static void *g_track[TRACK_SLOTS];

static size_t slot_of(const void *p)
{
    return (size_t)(((uintptr_t)p >> 4) * 2654435761u) & (TRACK_SLOTS - 1);
}

static void track(void *p)
{
    if (!p)
        return;
    size_t i = slot_of(p);
    while (g_track[i])
        i = (i + 1) & (TRACK_SLOTS - 1);
    g_track[i] = p;
    g_live++;
}

static void untrack(void *p)
{
    if (!p)
        return;
    for (size_t i = slot_of(p), n = 0; g_track[i] && n < TRACK_SLOTS; i = (i + 1) & (TRACK_SLOTS - 1), n++) {
        if (g_track[i] != p)
            continue;
        /* Backward-shift deletion keeps every probe chain intact. */
        size_t hole = i;
        for (size_t j = (i + 1) & (TRACK_SLOTS - 1); g_track[j]; j = (j + 1) & (TRACK_SLOTS - 1)) {
            size_t home = slot_of(g_track[j]);
            if (((j - home) & (TRACK_SLOTS - 1)) >= ((j - hole) & (TRACK_SLOTS - 1))) {
                g_track[hole] = g_track[j];
                hole = j;
            }
        }
        g_track[hole] = NULL;
        g_live--;
        return;
    }
}

static int should_fail(void)
{
    if (g_fail_at >= 0 && g_count == g_fail_at) {
        g_count++;
        g_failed = 1;
        return 1;
    }
    g_count++;
    return 0;
}

void *__wrap_malloc(size_t size)
{
    pthread_mutex_lock(&g_lock);
    void *p = should_fail() ? NULL : __real_malloc(size);
    track(p);
    pthread_mutex_unlock(&g_lock);
    return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
    pthread_mutex_lock(&g_lock);
    void *p = should_fail() ? NULL : __real_calloc(n, size);
    track(p);
    pthread_mutex_unlock(&g_lock);
    return p;
}

void *__wrap_realloc(void *old, size_t size)
{
    pthread_mutex_lock(&g_lock);
    void *p = should_fail() ? NULL : __real_realloc(old, size);
    if (p) {
        untrack(old);
        track(p);
    }
    pthread_mutex_unlock(&g_lock);
    return p;
}

char *__wrap_strdup(const char *s)
{
    pthread_mutex_lock(&g_lock);
    char *p = should_fail() ? NULL : __real_strdup(s);
    track(p);
    pthread_mutex_unlock(&g_lock);
    return p;
}

void __wrap_free(void *p)
{
    pthread_mutex_lock(&g_lock);
    untrack(p);
    __real_free(p);
    pthread_mutex_unlock(&g_lock);
}

static void reset(long fail_at)
{
    g_fail_at = fail_at;
    g_count = 0;
    g_failed = 0;
}

/* ---- checks shared by every run ---- */

typedef struct outcome {
    long errors;  /* calls that returned an error */
    long nomem;   /* calls that reported BSPKIT_ERR_NOMEM */
    int bad;      /* a broken promise: unknown code or missing message */
    char bad_call[64];
} outcome;

static void check_call(void *ctx, const char *call, bspkit_result r, const bspkit_error *err)
{
    outcome *o = ctx;
    if (r == BSPKIT_OK)
        return;
    o->errors++;
    o->nomem += r == BSPKIT_ERR_NOMEM;
    if ((unsigned)r >= BSPKIT_RESULT_COUNT ||
        (err && (err->code != r || memchr(err->message, '\0', sizeof err->message) == NULL || !err->message[0]))) {
        o->bad = 1;
        snprintf(o->bad_call, sizeof o->bad_call, "%s", call);
    }
}

/* Validation reports a decoder that ran out of memory as a problem. */
static void check_report(void *ctx, const bspkit_report *report)
{
    outcome *o = ctx;
    for (size_t i = 0; i < report->count; i++)
        o->nomem += report->problems[i].code == BSPKIT_ERR_NOMEM;
}

/* The read path; returns the hash of every byte handed out. */
static uint32_t read_path(const uint8_t *data, size_t size, outcome *o)
{
    exercise ex = {.check = check_call, .ctx = o, .touch = 1, .vis_budget = 1u << 20};
    exercise_bytes(&ex, data, size, NULL, check_report);
    return ex.sink;
}

/* The edit path: add an entity, write, re-open the output; returns the output size (0 on error). */
static size_t edit_path(const uint8_t *data, size_t size, outcome *o)
{
    bspkit_error e;
    bspkit_result r;
    exercise ex = {.check = check_call, .ctx = o};
    bspkit_map *map = exercise_open(&ex, data, size, NULL);
    if (map == NULL)
        return 0;
    size_t out_size = 0;
    bspkit_edit *ed = NULL;
    r = bspkit_edit_new(map, &ed, &e);
    check_call(o, "bspkit_edit_new", r, &e);
    if (r == BSPKIT_OK) {
        static const char text[] = "{\n\"classname\" \"worldspawn\"\n}\n{\n\"classname\" \"info_null\"\n}\n";
        r = bspkit_edit_set_entities_text(ed, text, sizeof text - 1, &e);
        check_call(o, "bspkit_edit_set_entities_text", r, &e);
        uint8_t *out = NULL;
        if (r == BSPKIT_OK) {
            bspkit_save_options so;
            memset(&so, 0, sizeof so);
            r = bspkit_edit_write(ed, &so, &out, &out_size, &e);
            check_call(o, "bspkit_edit_write", r, &e);
        }
        if (r == BSPKIT_OK) {
            bspkit_map *again = NULL;
            r = bspkit_open_memory(out, out_size, NULL, &again, &e);
            check_call(o, "re-open", r, &e);
            bspkit_close(again);
        }
        if (r != BSPKIT_OK)
            out_size = 0;
        bspkit_free_buffer(out);
        bspkit_edit_free(ed);
    }
    bspkit_close(map);
    return out_size;
}

/* The export path: GLB in memory; returns a hash of its bytes (0 on error). */
static uint64_t export_path(const uint8_t *data, size_t size, outcome *o)
{
    exercise ex = {.check = check_call, .ctx = o};
    bspkit_map *map = exercise_open(&ex, data, size, NULL);
    if (map == NULL)
        return 0;
    bspkit_export_options xo;
    memset(&xo, 0, sizeof xo);
    bspkit_export_stats stats;
    uint8_t *glb = NULL;
    size_t glb_size = 0;
    bspkit_error e;
    bspkit_result r = bspkit_export_glb_memory(map, &xo, &glb, &glb_size, &stats, &e);
    check_call(o, "bspkit_export_glb_memory", r, &e);
    uint64_t h = 0;
    if (r == BSPKIT_OK) {
        h = 1469598103934665603ull;
        for (size_t i = 0; i < glb_size; i++)
            h = (h ^ glb[i]) * 1099511628211ull;
    }
    bspkit_free_buffer(glb);
    bspkit_close(map);
    return h;
}

/* The decompile path (VMF for Source, Valve 220 .map otherwise); returns a hash of the text (0 on error). */
static uint64_t decompile_path(const uint8_t *data, size_t size, outcome *o)
{
    exercise ex = {.check = check_call, .ctx = o};
    bspkit_map *map = exercise_open(&ex, data, size, NULL);
    if (map == NULL)
        return 0;
    char *text = NULL;
    size_t n = 0;
    bspkit_error e;
    bspkit_result r = bspkit_decompile_memory(map, NULL, &text, &n, NULL, &e);
    check_call(o, "bspkit_decompile_memory", r, &e);
    uint64_t h = 0;
    if (r == BSPKIT_OK) {
        h = 1469598103934665603ull;
        for (size_t i = 0; i < n; i++)
            h = (h ^ (uint8_t)text[i]) * 1099511628211ull;
    }
    free(text);
    bspkit_close(map);
    return h;
}

static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 1099511628211ull; }

/* The operators' path: the map against itself and its entities against an edited copy (diff and
 * Stripper config), size with the compression measured, dependencies; returns a hash of the results. */
static uint64_t ops_path(const uint8_t *data, size_t size, outcome *o)
{
    exercise ex = {.check = check_call, .ctx = o};
    bspkit_map *map = exercise_open(&ex, data, size, NULL);
    if (map == NULL)
        return 0;
    bspkit_error e;
    uint64_t h = 1469598103934665603ull;
    bspkit_diff *d = NULL;
    bspkit_result r = bspkit_diff_maps(map, map, &d, &e);
    check_call(o, "bspkit_diff_maps", r, &e);
    if (r == BSPKIT_OK)
        h = mix(mix(h, d->entity_diff_count), d->lumps_changed + d->lump_count);
    bspkit_diff_free(d);
    const bspkit_entities *ents = NULL;
    bspkit_entlist *a = NULL, *b = NULL;
    r = bspkit_get_entities(map, &ents, &e);
    check_call(o, "bspkit_get_entities", r, &e);
    if (r == BSPKIT_OK) {
        r = bspkit_entlist_from_entities(ents, &a, &e);
        check_call(o, "bspkit_entlist_from_entities", r, &e);
    }
    if (r == BSPKIT_OK) {
        r = bspkit_entlist_from_entities(ents, &b, &e);
        check_call(o, "bspkit_entlist_from_entities", r, &e);
    }
    if (r == BSPKIT_OK) {
        bspkit_keyvalue kv[2] = {{"classname", "logic_relay", 0, 0}, {"OnTrigger", "a,Open,,0,-1", 0, 0}};
        r = bspkit_entlist_set(b, 0, "message", "edited", &e);
        if (r == BSPKIT_OK)
            r = bspkit_entlist_add_entity(b, kv, 2, NULL, &e);
        if (r == BSPKIT_OK && bspkit_entlist_count(b) > 2)
            r = bspkit_entlist_delete_entity(b, 1, &e);
        check_call(o, "bspkit_entlist edits", r, &e);
    }
    if (r == BSPKIT_OK) {
        bspkit_diff *de = NULL;
        r = bspkit_diff_entlists(a, b, &de, &e);
        check_call(o, "bspkit_diff_entlists", r, &e);
        if (r == BSPKIT_OK)
            h = mix(mix(mix(h, de->added), de->removed), de->changed);
        bspkit_diff_free(de);
        char *text = NULL;
        size_t n = 0;
        r = bspkit_diff_stripper(a, b, &text, &n, &e);
        check_call(o, "bspkit_diff_stripper", r, &e);
        for (size_t i = 0; r == BSPKIT_OK && i < n; i++)
            h = mix(h, (uint8_t)text[i]);
        bspkit_free(text);
    }
    bspkit_entlist_free(a);
    bspkit_entlist_free(b);
    bspkit_size_options so = {true};
    bspkit_size_report *sr = NULL;
    r = bspkit_size_report_map(map, &so, &sr, &e);
    check_call(o, "bspkit_size_report_map", r, &e);
    for (int g = 0; r == BSPKIT_OK && g < BSPKIT_SIZE_GROUP_COUNT; g++)
        h = mix(h, sr->group_bytes[g]);
    for (size_t i = 0; r == BSPKIT_OK && i < sr->saving_count; i++)
        h = mix(h, sr->savings[i].bytes);
    if (r == BSPKIT_OK)
        h = mix(mix(h, sr->game_lump_count), sr->pakfile_entries);
    bspkit_size_report_free(sr);
    bspkit_deps *dp = NULL;
    r = bspkit_deps_map(map, NULL, &dp, &e);
    if (r != BSPKIT_ERR_UNSUPPORTED)
        check_call(o, "bspkit_deps_map", r, &e);
    for (size_t i = 0; r == BSPKIT_OK && i < dp->count; i++)
        for (const char *c = dp->items[i].path; *c; c++)
            h = mix(h, (uint8_t)*c + dp->items[i].where);
    bspkit_deps_free(dp);
    bspkit_close(map);
    return h;
}

/* The render path: a small top view with textures and lightmaps; returns a hash of its pixels (0 on error). */
static uint64_t render_path(const uint8_t *data, size_t size, outcome *o)
{
    exercise ex = {.check = check_call, .ctx = o};
    bspkit_map *map = exercise_open(&ex, data, size, NULL);
    if (map == NULL)
        return 0;
    bspkit_render_options ro = {.view = BSPKIT_RENDER_TOP, .width = 32, .height = 24};
    bspkit_image img;
    bspkit_error e;
    bspkit_result r = bspkit_render(map, &ro, &img, NULL, &e);
    check_call(o, "bspkit_render", r, &e);
    uint64_t h = 0;
    if (r == BSPKIT_OK) {
        h = 1469598103934665603ull;
        for (size_t i = 0; i < (size_t)img.width * img.height * 4; i++)
            h = (h ^ img.rgba[i]) * 1099511628211ull;
        bspkit_image_free(&img);
    }
    bspkit_close(map);
    return h;
}

typedef enum path_kind { READ_PATH, EDIT_PATH, EXPORT_PATH, DECOMPILE_PATH, OPS_PATH, RENDER_PATH } path_kind;

static const char *const PATH_NAMES[] = {"read", "edit", "export", "decompile", "ops", "render"};

static uint64_t run_path(path_kind path, const uint8_t *data, size_t size, outcome *o)
{
    switch (path) {
    case READ_PATH:
        return read_path(data, size, o);
    case EDIT_PATH:
        return edit_path(data, size, o);
    case DECOMPILE_PATH:
        return decompile_path(data, size, o);
    case OPS_PATH:
        return ops_path(data, size, o);
    case RENDER_PATH:
        return render_path(data, size, o);
    default:
        return export_path(data, size, o);
    }
}

static void every_failure(bspkit_sample_kind kind, path_kind path)
{
    uint8_t *data = NULL;
    size_t size = 0;
    bspkit_error err;
    reset(-1);
    bspkit_result r = bspkit_sample_build(kind, &data, &size, &err);
    if (r == BSPKIT_ERR_UNSUPPORTED)
        skip();
    assert_int_equal(r, BSPKIT_OK);

    long base_live = g_live;
    outcome clean = {0};
    reset(-1);
    uint64_t clean_result = run_path(path, data, size, &clean);
    long total = g_count;
    assert_false(clean.bad);
    /* The read path also asks for out-of-range items on purpose: those errors are the baseline. */
    assert_int_equal(g_live, base_live);
    assert_true(total > 5); /* the wrappers see the library's allocations */

    long reported = 0;
    /* ALLOC_FAIL_AT=N runs only the N-th failure (for a debugger). */
    const char *only = getenv("ALLOC_FAIL_AT");
    long first = only ? atol(only) : 0, last = only ? first + 1 : total;
    for (long n = first; n < last && n < total; n++) {
        outcome o = {0};
        reset(n);
        uint64_t result = run_path(path, data, size, &o);
        g_fail_at = -1;
        if (o.bad)
            fail_msg("%s: allocation %ld of %ld failed: %s broke its error promise", bspkit_sample_name(kind), n,
                     total, o.bad_call);
        if (g_live != base_live)
            fail_msg("%s: allocation %ld of %ld failed: %ld blocks leaked", bspkit_sample_name(kind), n, total,
                     g_live - base_live);
        if (o.nomem == 0 && result != clean_result)
            fail_msg("%s: allocation %ld of %ld failed silently and changed the results", bspkit_sample_name(kind),
                     n, total);
        reported += o.nomem > 0;
    }
    /* Most failures must be reported (a few are absorbed, e.g. an optional name cache). */
    printf("%s %s: %ld allocations, each failed once; %ld runs reported it as out of memory\n", bspkit_sample_name(kind),
           PATH_NAMES[path], total, reported);
    assert_true(reported * 2 >= total);
    bspkit_free_buffer(data);
}

#define CASES(kind)                                                                                   \
    static void test_read_##kind(void **state)                                                        \
    {                                                                                                 \
        (void)state;                                                                                  \
        every_failure(BSPKIT_SAMPLE_##kind, READ_PATH);                                               \
    }                                                                                                 \
    static void test_edit_##kind(void **state)                                                        \
    {                                                                                                 \
        (void)state;                                                                                  \
        every_failure(BSPKIT_SAMPLE_##kind, EDIT_PATH);                                               \
    }                                                                                                 \
    static void test_export_##kind(void **state)                                                      \
    {                                                                                                 \
        (void)state;                                                                                  \
        every_failure(BSPKIT_SAMPLE_##kind, EXPORT_PATH);                                             \
    }

CASES(GOLDSRC_ROOM)
CASES(QUAKE_ROOM)
CASES(SOURCE_ROOM)
CASES(SOURCE_ROOM_BE)
CASES(SOURCE_ROOM_LZMA)

#define DECOMPILE_CASE(kind)                                                                          \
    static void test_decompile_##kind(void **state)                                                   \
    {                                                                                                 \
        (void)state;                                                                                  \
        every_failure(BSPKIT_SAMPLE_##kind, DECOMPILE_PATH);                                          \
    }
DECOMPILE_CASE(GOLDSRC_ROOM)
DECOMPILE_CASE(QUAKE_ROOM)
DECOMPILE_CASE(SOURCE_ROOM)
DECOMPILE_CASE(SOURCE_ROOM_BE)
DECOMPILE_CASE(SOURCE_ROOM_LZMA)

#define OPS_CASE(kind)                                                                                \
    static void test_ops_##kind(void **state)                                                         \
    {                                                                                                 \
        (void)state;                                                                                  \
        every_failure(BSPKIT_SAMPLE_##kind, OPS_PATH);                                                \
    }
OPS_CASE(GOLDSRC_ROOM)
OPS_CASE(SOURCE_ROOM)
OPS_CASE(SOURCE_ROOM_LZMA)

#define RENDER_CASE(kind)                                                                             \
    static void test_render_##kind(void **state)                                                      \
    {                                                                                                 \
        (void)state;                                                                                  \
        every_failure(BSPKIT_SAMPLE_##kind, RENDER_PATH);                                             \
    }
RENDER_CASE(GOLDSRC_ROOM)
RENDER_CASE(SOURCE_ROOM)
RENDER_CASE(QUAKE3_ROOM)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_GOLDSRC_ROOM), cmocka_unit_test(test_edit_GOLDSRC_ROOM), cmocka_unit_test(test_export_GOLDSRC_ROOM),
        cmocka_unit_test(test_read_QUAKE_ROOM),   cmocka_unit_test(test_edit_QUAKE_ROOM), cmocka_unit_test(test_export_QUAKE_ROOM),
        cmocka_unit_test(test_read_SOURCE_ROOM),  cmocka_unit_test(test_edit_SOURCE_ROOM), cmocka_unit_test(test_export_SOURCE_ROOM),
        cmocka_unit_test(test_read_SOURCE_ROOM_BE), cmocka_unit_test(test_edit_SOURCE_ROOM_BE), cmocka_unit_test(test_export_SOURCE_ROOM_BE),
        cmocka_unit_test(test_read_SOURCE_ROOM_LZMA), cmocka_unit_test(test_edit_SOURCE_ROOM_LZMA), cmocka_unit_test(test_export_SOURCE_ROOM_LZMA),
        cmocka_unit_test(test_decompile_GOLDSRC_ROOM), cmocka_unit_test(test_decompile_QUAKE_ROOM),
        cmocka_unit_test(test_decompile_SOURCE_ROOM), cmocka_unit_test(test_decompile_SOURCE_ROOM_BE),
        cmocka_unit_test(test_decompile_SOURCE_ROOM_LZMA),
        cmocka_unit_test(test_ops_GOLDSRC_ROOM), cmocka_unit_test(test_ops_SOURCE_ROOM),
        cmocka_unit_test(test_ops_SOURCE_ROOM_LZMA),
        cmocka_unit_test(test_render_GOLDSRC_ROOM), cmocka_unit_test(test_render_SOURCE_ROOM),
        cmocka_unit_test(test_render_QUAKE3_ROOM),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
