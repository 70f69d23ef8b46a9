/* Corruption sweep: damages real maps in known ways and runs every read entry
 * point over each damaged copy (open, every accessor and dump table,
 * displacement meshes, lighting, queries, vis, CRC, validate). Every case
 * must end in a known result with a filled error, within a time bound; built
 * with sanitizers, any overread, leak or undefined behaviour stops the run.
 *
 * Mutations per map, all seeded (the same seed gives the same cases):
 *   cut      truncation at every lump's start, middle and end, at the header
 *            and directory ends, and at random points
 *   flip     1..8 random bytes changed (half aimed at header + directory)
 *   dir      directory entries swapped, pointed at each other (overlap), or
 *            given huge, negative, unaligned or past-the-end values
 *   lzma     compressed lumps whose header or fourCC claims gigabytes
 *
 * usage: sweep [--seed N] [--flips N] [--cuts N] [--dir-values N]
 *              [--time-limit SEC] [--save DIR] PATH...    (files or directories, walked sorted)
 * Exit 0 when every case ended cleanly, 1 when one broke a promise or ran
 * over the time bound, 2 on usage or I/O errors. With --save DIR the input
 * of a failing case is written there, also when a sanitizer stops the run. */
#include "exercise.h"
#include "file_walk.h"

#include <errno.h>
#include <signal.h>

/* Under a sanitizer, a finding stops the process: the case is saved from its death callback. */
#if defined(__SANITIZE_ADDRESS__)
#define SWEEP_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SWEEP_SANITIZED 1
#endif
#endif
#ifdef SWEEP_SANITIZED
#include <sanitizer/common_interface_defs.h>
#endif
#include <time.h>
#include <unistd.h>

typedef struct sweep {
    uint64_t seed;
    unsigned flips;
    unsigned cuts;
    unsigned time_limit;
    unsigned dir_values; /* how many of the directory values to try per word */
    const char *save_dir;
    /* totals */
    unsigned long maps, skipped, cases, opened, failures;
    double worst_ms;
    char worst_case[256];
} sweep;

/* The case being run, for the failure message and the saved input. */
static char g_case[512];
static const uint8_t *g_case_data;
static size_t g_case_size;
static const char *g_save_dir;

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Keep the failing input so it can become a tests/crashers case. */
static void save_case(void)
{
    if (g_save_dir == NULL || g_case_data == NULL)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/sweep-%08lx", g_save_dir, (unsigned long)hash_name(g_case) & 0xffffffffu);
    FILE *f = fopen(path, "wb");
    if (f != NULL) {
        fwrite(g_case_data, 1, g_case_size, f);
        fclose(f);
        fprintf(stderr, "sweep: input saved as %s\n", path);
    }
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "sweep: FAIL time limit exceeded\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    w = write(2, g_case, strlen(g_case));
    w = write(2, "\n", 1);
    save_case();
    _exit(1);
}

/* A broken promise: say which case, keep the input, stop. */
static void fail_case(const char *call, const char *what)
{
    fprintf(stderr, "sweep: FAIL %s: %s: %s\n", g_case, call, what);
    save_case();
    exit(1);
}

static void check_case(void *ctx, const char *call, bspkit_result r, const bspkit_error *err)
{
    (void)ctx;
    const char *what = NULL;
    if ((unsigned)r >= BSPKIT_RESULT_COUNT)
        what = "result outside bspkit_result";
    else if (r != BSPKIT_OK && err != NULL) {
        if (err->code != r)
            what = "error code differs from the returned result";
        else if (memchr(err->message, '\0', sizeof err->message) == NULL || err->message[0] == '\0')
            what = "error without a message";
    }
    if (what != NULL)
        fail_case(call, what);
}

static void run_case(sweep *sw, const char *label, const uint8_t *data, size_t size)
{
    uint8_t *exact = malloc(size ? size : 1); /* exact size: overreads reach the sanitizer */
    if (exact == NULL) {
        fprintf(stderr, "sweep: out of memory\n");
        exit(2);
    }
    memcpy(exact, data, size);
    snprintf(g_case, sizeof g_case, "%s", label);
    g_case_data = exact;
    g_case_size = size;

    const bspkit_options opts = {.max_memory = 512u << 20};
    exercise ex = {.check = check_case, .touch = 1, .vis_budget = 16u << 20};
    alarm(sw->time_limit);
    double t0 = now_ms();
    bspkit_result r = exercise_bytes(&ex, exact, size, &opts, exercise_report_abort);
    if (r == BSPKIT_OK) {
        bspkit_map *map = exercise_open(&ex, exact, size, &opts);
        if (map != NULL) {
            const bspkit_export_options xo = {0};
            if (!exercise_export(&ex, map, &xo))
                fail_case("bspkit_export_glb_memory", "output is not a GLB");
            if (!exercise_decompile(&ex, map, NULL))
                fail_case("bspkit_decompile_memory", "output text is not terminated");
            bspkit_close(map);
        }
    }
    double ms = now_ms() - t0;
    alarm(0);
    sw->cases++;
    if (r == BSPKIT_OK)
        sw->opened++;
    if (ms > sw->worst_ms) {
        sw->worst_ms = ms;
        snprintf(sw->worst_case, sizeof sw->worst_case, "%s", label);
    }
    g_case_data = NULL;
    free(exact);
}

/* ---- mutations ------------------------------------------------------------ */

typedef struct map_view {
    const char *name;
    const uint8_t *data;
    size_t size;
    bspkit_format fmt;
    int lump_count;
    bspkit_lump_info lumps[64];
    size_t dir_start, dir_stride, dir_end;
} map_view;

static void cut_case(sweep *sw, const map_view *m, size_t at, const char *why)
{
    if (at >= m->size)
        return;
    char label[512];
    snprintf(label, sizeof label, "%s: cut at %zu (%s)", m->name, at, why);
    run_case(sw, label, m->data, at);
}

static void cuts(sweep *sw, const map_view *m, uint64_t *rng)
{
    cut_case(sw, m, 0, "empty");
    cut_case(sw, m, 4, "magic only");
    cut_case(sw, m, m->dir_start, "directory start");
    cut_case(sw, m, m->dir_end - 1, "inside the directory");
    cut_case(sw, m, m->dir_end, "directory end");
    for (int i = 0; i < m->lump_count; i++) {
        const bspkit_lump_info *l = &m->lumps[i];
        if (l->length == 0)
            continue;
        char why[64];
        snprintf(why, sizeof why, "lump %d start", i);
        cut_case(sw, m, l->offset, why);
        snprintf(why, sizeof why, "lump %d middle", i);
        cut_case(sw, m, (size_t)l->offset + l->length / 2, why);
        snprintf(why, sizeof why, "lump %d end - 1", i);
        cut_case(sw, m, (size_t)l->offset + l->length - 1, why);
    }
    for (unsigned i = 0; i < sw->cuts; i++)
        cut_case(sw, m, (size_t)(splitmix(rng) % m->size), "random");
}

static void flips(sweep *sw, const map_view *m, uint64_t *rng, uint8_t *work)
{
    for (unsigned i = 0; i < sw->flips; i++) {
        memcpy(work, m->data, m->size);
        unsigned n = 1 + (unsigned)(splitmix(rng) % 8);
        size_t first = 0;
        for (unsigned k = 0; k < n; k++) {
            size_t span = (i & 1) && m->dir_end < m->size ? m->dir_end : m->size;
            size_t at = (size_t)(splitmix(rng) % span);
            uint64_t v = splitmix(rng);
            work[at] = (v & 0x100) ? (uint8_t)(work[at] ^ (1u << (v & 7))) : (uint8_t)(v >> 16);
            if (k == 0)
                first = at;
        }
        char label[512];
        snprintf(label, sizeof label, "%s: flip #%u (%u bytes, first at %zu)", m->name, i, n, first);
        run_case(sw, label, work, m->size);
    }
}

static void put_word(uint8_t *p, uint32_t v, bool big)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(big ? v >> (24 - 8 * i) : v >> (8 * i));
}

static void directory(sweep *sw, const map_view *m, uint64_t *rng, uint8_t *work)
{
    bool big = m->fmt.big_endian;
    size_t words = m->dir_stride / 4;
    char label[512];
    for (int i = 0; i < m->lump_count; i++) {
        const bspkit_lump_info *l = &m->lumps[i];
        if (l->length == 0)
            continue;
        size_t entry = m->dir_start + (size_t)i * m->dir_stride;
        if (entry + m->dir_stride > m->size)
            break;
        int other = (int)(splitmix(rng) % (uint64_t)m->lump_count);
        const bspkit_lump_info *o = &m->lumps[other];
        const uint32_t values[] = {0xFFFFFFFFu, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFF0u, (uint32_t)m->size,
                                   (uint32_t)m->size - 1, o->offset, o->length, l->offset + 1, l->length + 1};
        for (size_t w = 0; w < words; w++) {
            for (size_t v = 0; v < sizeof values / sizeof values[0] && v < sw->dir_values; v++) {
                memcpy(work, m->data, m->size);
                put_word(work + entry + w * 4, values[v], big);
                snprintf(label, sizeof label, "%s: directory lump %d word %zu = 0x%08x", m->name, i, w, values[v]);
                run_case(sw, label, work, m->size);
            }
        }
        /* swap with another entry, and overlap: both entries name one range */
        size_t oentry = m->dir_start + (size_t)other * m->dir_stride;
        if (other != i && oentry + m->dir_stride <= m->size) {
            memcpy(work, m->data, m->size);
            memcpy(work + entry, m->data + oentry, m->dir_stride);
            memcpy(work + oentry, m->data + entry, m->dir_stride);
            snprintf(label, sizeof label, "%s: directory lumps %d and %d swapped", m->name, i, other);
            run_case(sw, label, work, m->size);
            memcpy(work, m->data, m->size);
            memcpy(work + entry, m->data + oentry, m->dir_stride);
            snprintf(label, sizeof label, "%s: directory lump %d overlaps lump %d", m->name, i, other);
            run_case(sw, label, work, m->size);
        }
    }
}

/* Valve LZMA header: "LZMA", actual size, compressed size, 5 property bytes. */
static void lzma_claims(sweep *sw, const map_view *m, uint8_t *work)
{
    static const uint32_t claims[] = {0xFFFFFFFFu, 0x80000000u, 0x40000000u, 0};
    char label[512];
    for (int i = 0; i < m->lump_count; i++) {
        const bspkit_lump_info *l = &m->lumps[i];
        if (!l->compressed || (uint64_t)l->offset + 17 > m->size)
            continue;
        size_t entry = m->dir_start + (size_t)i * m->dir_stride;
        for (size_t c = 0; c < sizeof claims / sizeof claims[0]; c++) {
            /* fields of the LZMA header are little-endian in every file */
            for (int field = 0; field < 3; field++) {
                memcpy(work, m->data, m->size);
                size_t at = field == 0 ? l->offset + 4 : field == 1 ? l->offset + 8 : entry + 12;
                if (field == 2) {
                    put_word(work + at, claims[c], m->fmt.big_endian);
                } else {
                    for (int k = 0; k < 4; k++)
                        work[at + k] = (uint8_t)(claims[c] >> (8 * k));
                }
                snprintf(label, sizeof label, "%s: lump %d %s claims 0x%08x", m->name, i,
                         field == 0 ? "LZMA actual size" : field == 1 ? "LZMA compressed size" : "fourCC",
                         claims[c]);
                run_case(sw, label, work, m->size);
            }
        }
    }
}

/* ---- files ------------------------------------------------------------------ */

static int sweep_map(void *ctx, const char *path)
{
    sweep *sw = ctx;
    size_t size = 0;
    uint8_t *data = walk_read_file(path, &size);
    if (data == NULL) {
        fprintf(stderr, "sweep: %s: cannot read\n", path);
        exit(2);
    }
    map_view m = {.name = path, .data = data, .size = size};
    bspkit_map *map = NULL;
    if (bspkit_open_memory(data, size, NULL, &map, NULL) != BSPKIT_OK) {
        sw->skipped++; /* not a map bspkit reads: nothing to damage */
        free(data);
        return 0;
    }
    m.fmt = *bspkit_map_format(map);
    m.lump_count = bspkit_lump_count(map);
    if (m.lump_count > 64)
        m.lump_count = 64;
    for (int i = 0; i < m.lump_count; i++)
        bspkit_get_lump_info(map, i, &m.lumps[i]);
    bspkit_close(map);
    if (m.fmt.family == BSPKIT_FAMILY_SOURCE) {
        m.dir_start = 8;
        m.dir_stride = 16;
    } else {
        m.dir_start = 4;
        m.dir_stride = 8;
    }
    m.dir_end = m.dir_start + (size_t)m.lump_count * m.dir_stride;

    uint8_t *work = malloc(size);
    if (work == NULL) {
        fprintf(stderr, "sweep: out of memory\n");
        exit(2);
    }
    uint64_t rng = sw->seed ^ hash_name(strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
    unsigned long before = sw->cases;
    double t0 = now_ms();
    cuts(sw, &m, &rng);
    directory(sw, &m, &rng, work);
    lzma_claims(sw, &m, work);
    flips(sw, &m, &rng, work);
    sw->maps++;
    fprintf(stderr, "sweep: %s: %lu cases in %.1f s\n", path, sw->cases - before, (now_ms() - t0) / 1e3);
    free(work);
    free(data);
    return 0;
}

static bool is_map_name(const char *name)
{
    size_t n = strlen(name);
    return (n > 4 && strcmp(name + n - 4, ".bsp") == 0) || (n > 7 && strcmp(name + n - 7, ".d3dbsp") == 0);
}

static int parse_uint(const char *text, unsigned long long *out)
{
    char *end = NULL;
    errno = 0;
    *out = strtoull(text, &end, 10);
    return errno == 0 && end != text && *end == '\0' ? 0 : -1;
}

int main(int argc, char **argv)
{
    sweep sw = {.seed = 1, .flips = 1000, .cuts = 100, .time_limit = 20, .dir_values = 10};
    int first = 1;
    for (; first < argc && strncmp(argv[first], "--", 2) == 0; first++) {
        const char *opt = argv[first];
        unsigned long long v = 0;
        if (strcmp(opt, "--save") == 0 && first + 1 < argc) {
            sw.save_dir = argv[++first];
            continue;
        }
        if (first + 1 >= argc || parse_uint(argv[first + 1], &v) != 0 || v > 100000000ull) {
            fprintf(stderr, "sweep: %s needs a number\n", opt);
            return 2;
        }
        first++;
        if (strcmp(opt, "--seed") == 0)
            sw.seed = v;
        else if (strcmp(opt, "--flips") == 0)
            sw.flips = (unsigned)v;
        else if (strcmp(opt, "--cuts") == 0)
            sw.cuts = (unsigned)v;
        else if (strcmp(opt, "--dir-values") == 0)
            sw.dir_values = (unsigned)v;
        else if (strcmp(opt, "--time-limit") == 0 && v > 0)
            sw.time_limit = (unsigned)v;
        else {
            fprintf(stderr, "sweep: unknown option %s\n", opt);
            return 2;
        }
    }
    if (first >= argc) {
        fprintf(stderr, "usage: sweep [--seed N] [--flips N] [--cuts N] [--dir-values N] [--time-limit SEC] [--save DIR] PATH...\n");
        return 2;
    }
    g_save_dir = sw.save_dir;
    signal(SIGALRM, on_alarm);
#ifdef SWEEP_SANITIZED
    __sanitizer_set_death_callback(save_case);
#endif
    for (int i = first; i < argc; i++)
        if (walk_path("sweep", argv[i], is_map_name, sweep_map, &sw) != 0)
            return 2;
    printf("sweep: %lu maps, %lu mutated inputs (%lu opened, %lu refused cleanly), 0 failures; "
           "slowest case %.1f ms (%s); %lu files skipped (not maps bspkit reads)\n",
           sw.maps, sw.cases, sw.opened, sw.cases - sw.opened, sw.worst_ms, sw.worst_case, sw.skipped);
    return sw.maps > 0 ? 0 : 2;
}
