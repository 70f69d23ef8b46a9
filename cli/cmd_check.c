/* bspkit check: open and validate maps, report problems per map. */
#include "cli.h"

#include <inttypes.h>
#include <jansson.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>


/* Above this many files a terminal gets a progress line. */
#define PROGRESS_MIN_FILES 10
#define CHECK_MAX_THREADS 64 /* as cli_jobs_option allows */

void cmd_check_help(FILE *out)
{
    fprintf(out,
            "usage: bspkit check MAP... [--json] [--quiet] [--lint] [--max-problems N] [-j N]\n"
            "\n"
            "Open each map and validate it: lump ranges and record sizes, every\n"
            "cross-reference between lumps, visibility and lightmap offsets, and counts\n"
            "against the engine limits (limits only give warnings).\n"
            "\n"
            "options:\n"
            "  --json            print a JSON array with one object per map\n"
            "  --lint            Quake/GoldSrc: also warn about what ericw-tools'\n"
            "                    bsputil --check looks at: nodes and clipnodes with equal\n"
            "                    children, unreferenced plane pairs and texinfo, face\n"
            "                    vertices more than 0.1 units off their plane\n"
            "  -q, --quiet       print nothing for maps that are ok, no progress line and\n"
            "                    no summary\n"
            "  --max-problems N  list at most N problems per map (default: all that were\n"
            "                    recorded, up to 1000); totals still count every problem\n"
            "  -j, --jobs N      check N maps at a time (default: one per CPU); the output\n"
            "                    is in the order the maps were given whatever N is\n"
            "  -h, --help        show this help\n"
            "\n"
            "Text output, one status line per map, then one line per problem:\n"
            "  FILE: ok (W warnings)\n"
            "  FILE: INVALID (E errors, W warnings)\n"
            "  FILE: unreadable: MESSAGE\n"
            "    error|warning LUMP[RECORD] @OFFSET: MESSAGE\n"
            "where the lump, record and file offset are left out when they do not apply.\n"
            "With more than one map a summary line goes to stderr, and with more than\n"
            "%d maps and stderr on a terminal, a progress line (maps done, rate, time\n"
            "left).\n"
            "\n"
            "JSON output: an array of objects with keys file, status (\"ok\", \"invalid\",\n"
            "\"unreadable\"), format, version (null when unreadable), errors, warnings,\n"
            "problems (objects with severity, code, lump, lump_index, record, offset,\n"
            "message; null where not applicable) and, for unreadable files, error.\n"
            "\n"
            "exit codes:\n"
            "  0   every map is valid (warnings allowed)\n"
            "  1   at least one map is invalid\n"
            "  2   at least one file could not be read or is not a supported map, or\n"
            "      the output could not be written (wins over 1)\n"
            "  64  usage error\n",
            PROGRESS_MIN_FILES);
}

typedef enum map_status { STATUS_OK, STATUS_INVALID, STATUS_UNREADABLE } map_status;

static const char *const STATUS_NAMES[] = {"ok", "invalid", "unreadable"};

typedef struct check_options {
    bool json;
    bool quiet;
    bool lint;
    uint64_t max_problems;
} check_options;

static const char *lump_name(const bspkit_map *map, int lump)
{
    bspkit_lump_info info;
    if (lump < 0 || bspkit_get_lump_info(map, lump, &info) != BSPKIT_OK || info.name == NULL)
        return NULL;
    return info.name;
}

static const char *severity_name(bspkit_severity s)
{
    return s == BSPKIT_SEVERITY_ERROR ? "error" : "warning";
}

static size_t shown_problems(const bspkit_report *report, const check_options *opt)
{
    return (uint64_t)report->count < opt->max_problems ? report->count : (size_t)opt->max_problems;
}

static void print_problem(FILE *out, const bspkit_map *map, const bspkit_problem *p)
{
    fprintf(out, "  %s", severity_name(p->severity));
    const char *name = lump_name(map, p->lump);
    if (name != NULL)
        fprintf(out, " %s", name);
    else if (p->lump >= 0)
        fprintf(out, " lump %d", p->lump);
    if (p->record >= 0)
        fprintf(out, "%s[%" PRId64 "]", p->lump >= 0 ? "" : " ", p->record);
    if (p->offset >= 0)
        fprintf(out, " @%" PRId64, p->offset);
    fprintf(out, ": %s\n", p->message[0] ? p->message : bspkit_strerror(p->code));
}

static void print_text(FILE *out, const char *file, map_status status, const bspkit_map *map, const bspkit_report *report,
                       const check_options *opt)
{
    if (status == STATUS_OK && opt->quiet)
        return;
    uint64_t errors = report->errors, warnings = report->warnings;
    if (status == STATUS_OK)
        fprintf(out, "%s: ok (%" PRIu64 " %s)\n", file, warnings, cli_plural(warnings, "warning", "warnings"));
    else
        fprintf(out, "%s: INVALID (%" PRIu64 " %s, %" PRIu64 " %s)\n", file, errors,
               cli_plural(errors, "error", "errors"), warnings, cli_plural(warnings, "warning", "warnings"));

    size_t shown = shown_problems(report, opt);
    for (size_t i = 0; i < shown; i++)
        print_problem(out, map, &report->problems[i]);
    uint64_t total = errors + warnings;
    if (total > shown)
        fprintf(out, "  ... %" PRIu64 " more %s not shown\n", total - shown,
               cli_plural(total - shown, "problem", "problems"));
}

static json_t *int_or_null(int64_t v)
{
    return v >= 0 ? json_integer((json_int_t)v) : json_null();
}

/* Returns false on allocation failure. */
static bool add(json_t *obj, const char *key, json_t *value)
{
    return value != NULL && json_object_set_new(obj, key, value) == 0;
}

static json_t *problem_json(const bspkit_map *map, const bspkit_problem *p)
{
    json_t *o = json_object();
    const char *name = lump_name(map, p->lump);
    if (o == NULL)
        return NULL;
    bool ok = add(o, "severity", json_string(severity_name(p->severity))) &&
              add(o, "code", json_string(bspkit_strerror(p->code))) &&
              add(o, "lump", name ? cli_json_string(name) : json_null()) &&
              add(o, "lump_index", int_or_null(p->lump)) && add(o, "record", int_or_null(p->record)) &&
              add(o, "offset", int_or_null(p->offset)) &&
              add(o, "message", cli_json_string(p->message[0] ? p->message : bspkit_strerror(p->code)));
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *map_json(const char *file, map_status status, const bspkit_map *map, const bspkit_report *report,
                        const bspkit_error *err, const check_options *opt)
{
    json_t *o = json_object();
    json_t *problems = json_array();
    bool ok = o != NULL && problems != NULL;
    const bspkit_format *f = map ? bspkit_map_format(map) : NULL;

    if (ok && map != NULL) {
        size_t shown = shown_problems(report, opt);
        for (size_t i = 0; ok && i < shown; i++) {
            json_t *p = problem_json(map, &report->problems[i]);
            ok = p != NULL && json_array_append_new(problems, p) == 0;
        }
    }
    ok = ok && add(o, "file", cli_json_string(file)) && add(o, "status", json_string(STATUS_NAMES[status])) &&
         add(o, "format", f ? json_string(bspkit_family_name(f->family)) : json_null()) &&
         add(o, "version", f ? json_integer(f->version) : json_null()) &&
         add(o, "errors", json_integer((json_int_t)(map ? report->errors : 0))) &&
         add(o, "warnings", json_integer((json_int_t)(map ? report->warnings : 0))) &&
         add(o, "problems", json_incref(problems));
    if (ok && status == STATUS_UNREADABLE)
        ok = add(o, "error", cli_json_string(err->message[0] ? err->message : bspkit_strerror(err->code)));
    json_decref(problems);
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* One file's verdict: its text (what the text output prints for it) or
 * its JSON object, made on any thread and printed in file order. */
typedef struct check_result {
    int status; /* map_status, or -1 when memory ran out */
    char *text;
    size_t text_len;
    json_t *json;
} check_result;

static void check_one(const char *file, const check_options *opt, check_result *res)
{
    bspkit_map *map = NULL;
    bspkit_error err;
    bspkit_report report;
    memset(&report, 0, sizeof report);
    memset(&err, 0, sizeof err);
    map_status status;

    if (bspkit_open_file(file, NULL, &map, &err) != BSPKIT_OK) {
        map = NULL;
        status = STATUS_UNREADABLE;
    } else if (bspkit_validate_ex(map, opt->lint ? BSPKIT_VALIDATE_COMPILER_LINT : 0, &report, &err) != BSPKIT_OK) {
        /* The check could not run at all (e.g. out of memory): no verdict. */
        bspkit_report_free(&report);
        memset(&report, 0, sizeof report);
        bspkit_close(map);
        map = NULL;
        status = STATUS_UNREADABLE;
    } else {
        status = report.errors > 0 ? STATUS_INVALID : STATUS_OK;
    }

    res->status = (int)status;
    if (opt->json) {
        res->json = map_json(file, status, map, &report, &err, opt);
        if (res->json == NULL)
            res->status = -1;
    } else {
        FILE *out = open_memstream(&res->text, &res->text_len);
        if (out == NULL) {
            res->status = -1;
        } else {
            if (status == STATUS_UNREADABLE)
                fprintf(out, "%s: unreadable: %s\n", file, err.message[0] ? err.message : bspkit_strerror(err.code));
            else
                print_text(out, file, status, map, &report, opt);
            if (fclose(out) != 0)
                res->status = -1;
        }
    }

    bspkit_report_free(&report);
    bspkit_close(map);
}

/* Files are checked on `threads` worker threads, each taking the next file
 * as it finishes one, while this thread prints the results in file order:
 * a worker runs at most `window` files ahead of the printing, so the results
 * held stay few, and no thread waits for a whole batch to end. */
#define WINDOW_PER_THREAD 16

typedef struct check_pool {
    char **files;
    const check_options *opt;
    size_t nfiles, window;
    check_result *slots; /* file i's result in slots[i % window] */
    bool *done;          /* per slot: its result is ready */
    size_t next;         /* the next file a worker takes */
    size_t printed;      /* files printed so far: file `printed` is the one the printer waits for */
    pthread_mutex_t lock;
    pthread_cond_t changed; /* workers wait here for room in the window */
    pthread_cond_t ready;   /* the printer waits here for file `printed` */
} check_pool;

static void *check_worker(void *arg)
{
    check_pool *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (p->next < p->nfiles && p->next >= p->printed + p->window)
            pthread_cond_wait(&p->changed, &p->lock);
        if (p->next >= p->nfiles)
            break;
        size_t i = p->next++;
        pthread_mutex_unlock(&p->lock);
        check_one(p->files[i], p->opt, &p->slots[i % p->window]);
        pthread_mutex_lock(&p->lock);
        p->done[i % p->window] = true;
        /* Only the file the printer waits for wakes it: the files after it
         * are printed in the same turn without waiting. */
        if (i == p->printed)
            pthread_cond_signal(&p->ready);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

int cmd_check(int argc, char **argv)
{
    check_options opt = {.max_problems = UINT64_MAX};
    bool options_done = false;
    unsigned jobs = 0; /* 0: one thread per online CPU */
    /* Files are collected first so that usage errors are found before any
     * map is read. */
    char **files = calloc((size_t)argc, sizeof *files);
    size_t nfiles = 0;
    if (files == NULL) {
        fprintf(stderr, "bspkit: out of memory\n");
        return CLI_EXIT_UNREADABLE;
    }

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = NULL;
        int m;
        if (options_done || arg[0] != '-' || arg[1] == '\0') {
            files[nfiles++] = argv[i];
        } else if (strcmp(arg, "--") == 0) {
            options_done = true;
        } else if (strcmp(arg, "--json") == 0) {
            opt.json = true;
        } else if (strcmp(arg, "--quiet") == 0 || strcmp(arg, "-q") == 0) {
            opt.quiet = true;
        } else if (strcmp(arg, "--lint") == 0) {
            opt.lint = true;
        } else if ((m = cli_jobs_option("check", argc, argv, &i, &jobs)) != 0) {
            if (m < 0) {
                free(files);
                return CLI_EXIT_USAGE;
            }
        } else if ((m = cli_option_value(argc, argv, &i, "--max-problems", &value)) != 0) {
            if (m < 0) {
                cli_usage_error("check", "--max-problems needs a value");
                free(files);
                return CLI_EXIT_USAGE;
            }
            if (cli_parse_count(value, UINT64_MAX, &opt.max_problems) != 0) {
                cli_usage_error("check", "--max-problems needs a non-negative integer, got '%s'", value);
                free(files);
                return CLI_EXIT_USAGE;
            }
        } else {
            cli_usage_error("check", "unknown option '%s'", arg);
            free(files);
            return CLI_EXIT_USAGE;
        }
    }
    if (nfiles == 0) {
        cli_usage_error("check", "missing map file");
        free(files);
        return CLI_EXIT_USAGE;
    }

    json_t *results = opt.json ? json_array() : NULL;
    if (opt.json && results == NULL) {
        fprintf(stderr, "bspkit: out of memory\n");
        free(files);
        return CLI_EXIT_UNREADABLE;
    }

    bool progress = !opt.quiet && nfiles > PROGRESS_MIN_FILES && isatty(STDERR_FILENO);
    if (jobs == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = cpus < 1 ? 1 : cpus > CHECK_MAX_THREADS ? CHECK_MAX_THREADS : (unsigned)cpus;
    }
    check_pool pool = {.files = files, .opt = &opt, .nfiles = nfiles, .window = (size_t)jobs * WINDOW_PER_THREAD};
    pool.slots = calloc(pool.window, sizeof *pool.slots);
    pool.done = calloc(pool.window, sizeof *pool.done);
    pthread_mutex_init(&pool.lock, NULL);
    pthread_cond_init(&pool.changed, NULL);
    pthread_cond_init(&pool.ready, NULL);
    size_t tally[3] = {0, 0, 0};
    bool failed = pool.slots == NULL || pool.done == NULL;
    pthread_t tids[CHECK_MAX_THREADS];
    unsigned started = 0;
#if defined(M_ARENA_MAX)
    /* Every worker allocates from the main heap, which cli_reuse_memory
     * backs with huge pages and never trims: an arena of a thread's own
     * would be faulted in 4 KiB at a time (4,100 page faults over the
     * corpus against 1,650). A map makes few malloc calls, so sharing the
     * heap's lock costs nothing measurable. */
    if (jobs > 1 && nfiles > 1)
        mallopt(M_ARENA_MAX, 1);
#endif
    /* One map, or one thread asked for: this thread checks each map itself. */
    while (!failed && jobs > 1 && nfiles > 1 && started < jobs && started < nfiles &&
           pthread_create(&tids[started], NULL, check_worker, &pool) == 0)
        started++;
    if (failed)
        fprintf(stderr, "bspkit: out of memory\n");
    cli_progress bar = cli_progress_start();
    bar.enabled = bar.enabled && progress;
    double drawn = -1;
    for (size_t i = 0; i < nfiles && !failed; i++) {
        check_result *r = &pool.slots[i % pool.window];
        if (started == 0) { /* no thread could be started: this one checks each file itself */
            check_one(files[i], &opt, r);
        } else {
            pthread_mutex_lock(&pool.lock);
            while (!pool.done[i % pool.window])
                pthread_cond_wait(&pool.ready, &pool.lock);
            pthread_mutex_unlock(&pool.lock);
        }
        /* The progress line is erased before a result, so a shared terminal shows only the result lines. */
        if (drawn >= 0 && (r->text || r->status < 0))
            cli_progress_clear(&bar);
        if (r->status < 0) {
            fprintf(stderr, "bspkit: out of memory\n");
            failed = true;
        } else {
            tally[r->status]++;
            if (r->text)
                fwrite(r->text, 1, r->text_len, stdout);
            if (r->json && json_array_append(results, r->json) != 0) {
                fprintf(stderr, "bspkit: out of memory\n");
                failed = true;
            }
        }
        free(r->text);
        json_decref(r->json);
        memset(r, 0, sizeof *r);
        pthread_mutex_lock(&pool.lock);
        pool.done[i % pool.window] = false;
        pool.printed = i + 1;
        if (failed)
            pool.next = nfiles; /* the workers take no more */
        /* A worker waits only when it ran a whole window ahead, or when
         * the workers are to stop. */
        bool wake = failed || pool.next >= pool.printed + pool.window - 1;
        pthread_mutex_unlock(&pool.lock);
        if (wake)
            pthread_cond_broadcast(&pool.changed);
        double now = cli_now();
        if (i + 1 == nfiles || drawn < 0 || now - drawn >= 0.05) {
            fflush(stdout);
            cli_progress_draw(&bar, i + 1, nfiles);
            drawn = now;
        }
    }
    for (unsigned t = 0; t < started; t++)
        pthread_join(tids[t], NULL);
    for (size_t k = 0; pool.slots && k < pool.window; k++) {
        free(pool.slots[k].text);
        json_decref(pool.slots[k].json);
    }
    pthread_mutex_destroy(&pool.lock);
    pthread_cond_destroy(&pool.changed);
    pthread_cond_destroy(&pool.ready);
    free(pool.done);
    free(pool.slots);
    cli_progress_clear(&bar);

    if (opt.json && !failed) {
        if (json_dumpf(results, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
            failed = true;
        else
            fputc('\n', stdout);
    }
    json_decref(results);
    free(files);

    if (cli_finish_output() != 0 || failed)
        return CLI_EXIT_UNREADABLE;
    if (!opt.json && !opt.quiet && nfiles > 1)
        fprintf(stderr, "checked %zu maps: %zu ok, %zu invalid, %zu unreadable\n", nfiles, tally[STATUS_OK],
                tally[STATUS_INVALID], tally[STATUS_UNREADABLE]);
    if (tally[STATUS_UNREADABLE] > 0)
        return CLI_EXIT_UNREADABLE;
    if (tally[STATUS_INVALID] > 0)
        return CLI_EXIT_INVALID;
    return CLI_EXIT_OK;
}
