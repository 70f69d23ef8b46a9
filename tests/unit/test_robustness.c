/* Every sample map, damaged one byte at a time and cut at many lengths, must
 * go through open, every accessor, validation and close with only known
 * result codes, an explanation on every error, and no memory error (the
 * sanitizer build runs this too). Inputs sit in buffers of exactly their
 * size so an overread past the end is caught. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bspkit/bspkit.h"
#include "bspkit/write.h"

#include "../../fuzz/exercise.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Small limits so a damaged size field cannot make one case slow. */
static const bspkit_options OPTS = {
    .max_file_size = 16u << 20,
    .max_lump_size = 4u << 20,
    .max_memory = 32u << 20,
};

typedef struct sample {
    bspkit_sample_kind kind;
    uint8_t *data;
    size_t size;
    size_t header_end; /* bytes of header + lump directory */
    size_t lumps_end;  /* end of the last non-empty lump */
} sample;

/* What is being tried, for failure messages. */
typedef struct probe {
    const sample *s;
    const char *what; /* "byte", "truncate", "limits" */
    size_t pos;
    int value;
} probe;

static void describe(const probe *p, char *out, size_t size)
{
    const char *name = bspkit_sample_name(p->s->kind);
    if (strcmp(p->what, "byte") == 0)
        snprintf(out, size, "%s with byte %zu set to 0x%02x", name, p->pos, (unsigned)p->value);
    else if (strcmp(p->what, "truncate") == 0)
        snprintf(out, size, "%s cut to %zu bytes", name, p->pos);
    else
        snprintf(out, size, "%s (%s %zu)", name, p->what, p->pos);
}

static void check_call(void *ctx, const char *call, bspkit_result r, const bspkit_error *err)
{
    const probe *p = ctx;
    char where[128];
    if ((unsigned)r >= BSPKIT_RESULT_COUNT) {
        describe(p, where, sizeof where);
        fail_msg("%s: %s returned %d, not a bspkit_result", where, call, (int)r);
    }
    if (r == BSPKIT_OK || err == NULL)
        return;
    if (err->code != r || memchr(err->message, '\0', sizeof err->message) == NULL || err->message[0] == '\0') {
        describe(p, where, sizeof where);
        fail_msg("%s: %s returned %s without a matching error message", where, call, bspkit_strerror(r));
    }
}

static void check_report(void *ctx, const bspkit_report *report)
{
    const probe *p = ctx;
    char where[128];
    int bad = report->count > 1000 || report->count > report->errors + report->warnings;
    for (size_t i = 0; !bad && i < report->count; i++) {
        const bspkit_problem *pr = &report->problems[i];
        bad = (unsigned)pr->code >= BSPKIT_RESULT_COUNT || pr->code == BSPKIT_OK ||
              memchr(pr->message, '\0', sizeof pr->message) == NULL || pr->message[0] == '\0';
    }
    if (bad) {
        describe(p, where, sizeof where);
        fail_msg("%s: validation report is inconsistent", where);
    }
}

static bspkit_result run(const probe *p, const uint8_t *data, size_t size, const bspkit_options *opts)
{
    exercise ex = {.check = check_call, .ctx = (void *)p, .touch = 1, .vis_budget = 1u << 20};
    return exercise_bytes(&ex, data, size, opts, check_report);
}

/* ---- setup: build the sample and learn where its directory and lumps end */

static int setup_sample(void **state)
{
    sample *s = *state;
    bspkit_error err;
    bspkit_result r = bspkit_sample_build(s->kind, &s->data, &s->size, &err);
    if (r == BSPKIT_ERR_UNSUPPORTED) {
        s->data = NULL; /* a flavour this build cannot write: its cases skip */
        return 0;
    }
    if (r != BSPKIT_OK) {
        fprintf(stderr, "sample %s: %s\n", bspkit_sample_name(s->kind), err.message);
        return -1;
    }
    bspkit_map *map = NULL;
    if (bspkit_open_memory(s->data, s->size, NULL, &map, &err) != BSPKIT_OK) {
        fprintf(stderr, "sample %s does not open: %s\n", bspkit_sample_name(s->kind), err.message);
        return -1;
    }
    const bspkit_format *fmt = bspkit_map_format(map);
    /* Quake/GoldSrc: version + 15 {offset, length}; Source: magic, version,
     * 64 lump_t of 16 bytes, map revision. */
    s->header_end = fmt->family == BSPKIT_FAMILY_SOURCE ? 8 + 64 * 16 + 4 : 4 + 15 * 8;
    s->lumps_end = 0;
    for (int i = 0; i < bspkit_lump_count(map); i++) {
        bspkit_lump_info info;
        if (bspkit_get_lump_info(map, i, &info) == BSPKIT_OK && info.length > 0 &&
            (size_t)info.offset + info.length > s->lumps_end)
            s->lumps_end = (size_t)info.offset + info.length;
    }
    bspkit_close(map);
    return 0;
}

static int teardown_sample(void **state)
{
    sample *s = *state;
    bspkit_free_buffer(s->data);
    s->data = NULL;
    return 0;
}

/* ---- the cases ---------------------------------------------------------- */

static const sample *sample_or_skip(void **state)
{
    const sample *s = *state;
    if (s->data == NULL)
        skip();
    return s;
}

static void test_intact(void **state)
{
    const sample *s = sample_or_skip(state);
    probe p = {s, "intact", 0, 0};
    assert_int_equal(run(&p, s->data, s->size, &OPTS), BSPKIT_OK);
    assert_true(s->lumps_end > s->header_end);
    assert_true(s->lumps_end <= s->size);
}

/* Corrupt byte `pos` with each of `values` (skipping the original). */
static void corrupt(const sample *s, uint8_t *work, size_t pos, const int *values, size_t nvalues)
{
    uint8_t orig = work[pos];
    for (size_t v = 0; v < nvalues; v++) {
        uint8_t value = (uint8_t)values[v];
        if (value == orig)
            continue;
        work[pos] = value;
        probe p = {s, "byte", pos, value};
        run(&p, work, s->size, &OPTS);
    }
    work[pos] = orig;
}

/* The header and directory decide everything else: every byte there gets
 * a spread of values that hit sign bits, zero, all-ones and off-by-one. */
static void test_header_bytes(void **state)
{
    const sample *s = sample_or_skip(state);
    uint8_t *work = malloc(s->size);
    assert_non_null(work);
    memcpy(work, s->data, s->size);
    for (size_t pos = 0; pos < s->header_end && pos < s->size; pos++) {
        uint8_t b = s->data[pos];
        const int values[] = {0x00, 0xFF, 0x7F, 0x80, b ^ 0x01, b ^ 0x02, b ^ 0x10, b ^ 0x80,
                              (b + 1) & 0xFF, (b - 1) & 0xFF, (b + 4) & 0xFF, (b - 4) & 0xFF};
        corrupt(s, work, pos, values, sizeof values / sizeof values[0]);
    }
    free(work);
}

/* Every 7th byte of the whole file, including lump contents. */
static void test_strided_bytes(void **state)
{
    const sample *s = sample_or_skip(state);
    uint8_t *work = malloc(s->size);
    assert_non_null(work);
    memcpy(work, s->data, s->size);
    for (size_t pos = 0; pos < s->size; pos += 7) {
        const int values[] = {0x00, 0xFF, s->data[pos] ^ 0x80};
        corrupt(s, work, pos, values, 3);
    }
    free(work);
}

static void test_truncation(void **state)
{
    const sample *s = sample_or_skip(state);
    /* Every length through the directory, then a stride through the lumps. */
    for (size_t len = 0; len < s->size; len += len < s->header_end + 16 ? 1 : 5) {
        uint8_t *cut = malloc(len ? len : 1);
        assert_non_null(cut);
        memcpy(cut, s->data, len);
        probe p = {s, "truncate", len, 0};
        bspkit_result r = run(&p, cut, len, &OPTS);
        free(cut);
        if (len < s->header_end && r == BSPKIT_OK)
            fail_msg("%s cut to %zu bytes (inside the directory) opened", bspkit_sample_name(s->kind), len);
        /* Open checks every lump's range, so losing lump bytes must fail. */
        if (len < s->lumps_end && r == BSPKIT_OK)
            fail_msg("%s cut to %zu bytes (lumps end at %zu) opened", bspkit_sample_name(s->kind), len,
                     s->lumps_end);
        if (len == 0)
            assert_int_equal(r, BSPKIT_ERR_EMPTY);
    }
}

/* Tight limits turn decoding into BSPKIT_ERR_LIMIT failures part way through;
 * those paths must be as clean as the successful ones. */
static void test_limits(void **state)
{
    const sample *s = sample_or_skip(state);
    static const uint64_t memory[] = {1, 64, 256, 1024, 4096, 16384};
    for (size_t i = 0; i < sizeof memory / sizeof memory[0]; i++) {
        bspkit_options o = OPTS;
        o.max_memory = memory[i];
        probe p = {s, "max_memory", (size_t)memory[i], 0};
        run(&p, s->data, s->size, &o);
        o = OPTS;
        o.max_lump_size = memory[i];
        p.what = "max_lump_size";
        run(&p, s->data, s->size, &o);
    }
    bspkit_options o = OPTS;
    o.max_file_size = s->size - 1;
    probe p = {s, "max_file_size", s->size - 1, 0};
    assert_int_equal(run(&p, s->data, s->size, &o), BSPKIT_ERR_LIMIT);
}

int main(void)
{
    static sample samples[BSPKIT_SAMPLE_COUNT];
    static char names[BSPKIT_SAMPLE_COUNT][5][64];
    static const struct { const char *name; CMUnitTestFunction fn; } cases[5] = {
        {"intact", test_intact},
        {"header_bytes", test_header_bytes},
        {"strided_bytes", test_strided_bytes},
        {"truncation", test_truncation},
        {"limits", test_limits},
    };
    struct CMUnitTest tests[BSPKIT_SAMPLE_COUNT * 5];
    size_t n = 0; /* fills every slot */
    for (int k = 0; k < BSPKIT_SAMPLE_COUNT; k++) {
        samples[k].kind = (bspkit_sample_kind)k;
        for (size_t c = 0; c < 5; c++) {
            snprintf(names[k][c], sizeof names[k][c], "%s/%s", bspkit_sample_name((bspkit_sample_kind)k),
                     cases[c].name);
            tests[n++] = (struct CMUnitTest){names[k][c], cases[c].fn, setup_sample, teardown_sample, &samples[k]};
        }
    }
    return cmocka_run_group_tests_name("robustness", tests, NULL, NULL);
}
