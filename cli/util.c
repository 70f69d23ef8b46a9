/* Small helpers shared by the commands: option parsing, number parsing and
 * output checks. */
#include "cli.h"

#include <errno.h>
#include <jansson.h>
#if defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#endif
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


/* Accepts plain decimal digits only: strtoull would silently take signs,
 * leading blanks and "0x", and wrap negative numbers. */
int cli_parse_count(const char *text, uint64_t max, uint64_t *out)
{
    uint64_t value = 0;
    if (text == NULL || *text == '\0')
        return -1;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        unsigned digit = (unsigned)(*p - '0');
        if (value > (UINT64_MAX - digit) / 10)
            return -1;
        value = value * 10 + digit;
    }
    if (value > max)
        return -1;
    *out = value;
    return 0;
}

/* Matches "--name VALUE" and "--name=VALUE" at argv[*index]. Returns 1 and
 * advances *index past a separate value, 0 when argv[*index] is another
 * argument, -1 when the value is missing. */
int cli_option_value(int argc, char **argv, int *index, const char *name, const char **value)
{
    const char *arg = argv[*index];
    size_t len = strlen(name);
    if (strncmp(arg, name, len) != 0)
        return 0;
    if (arg[len] == '=') {
        *value = arg + len + 1;
        return 1;
    }
    if (arg[len] != '\0')
        return 0;
    if (*index + 1 >= argc)
        return -1;
    *index += 1;
    *value = argv[*index];
    return 1;
}

int cli_jobs_option(const char *command, int argc, char **argv, int *index, unsigned *threads)
{
    const char *v;
    int m = cli_option_value(argc, argv, index, "-j", &v);
    if (m == 0)
        m = cli_option_value(argc, argv, index, "--jobs", &v);
    if (m == 0)
        return 0;
    uint64_t jobs;
    if (m < 0 || cli_parse_count(v, 64, &jobs) != 0 || jobs == 0) {
        cli_usage_error(command, "-j needs a thread count from 1 to 64");
        return -1;
    }
    *threads = (unsigned)jobs;
    return 1;
}

void cli_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "bspkit %s: ", command);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nRun 'bspkit %s --help' for usage.\n", command);
}

/* A full disk or closed pipe must not pass for success: the caller would
 * trust a truncated report. */
int cli_finish_output(void)
{
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        int e = errno;
        fprintf(stderr, "bspkit: error writing output: %s\n", e ? strerror(e) : "write failed");
        return -1;
    }
    return 0;
}

const char *cli_plural(uint64_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* json_string() rejects invalid UTF-8, which file names and texts read
 * from maps may hold; such bytes are shown as '?' rather than dropping the
 * whole value. */
const char *cli_base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

json_t *cli_json_string(const char *text)
{
    json_t *value = json_string(text);
    if (value != NULL)
        return value;
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    if (copy == NULL)
        return NULL;
    for (size_t i = 0; i <= len; i++)
        copy[i] = ((unsigned char)text[i] < 0x80) ? text[i] : '?';
    value = json_string(copy);
    free(copy);
    return value;
}

/* ---- writing commands ---- */

int cli_read_file(const char *path, uint8_t **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "bspkit: %s: cannot open: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        if (len + 1 >= cap) {
            uint8_t *grown = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        }
        size_t n = fread(buf + len, 1, cap - len - 1, f);
        len += n;
        if (n == 0)
            break;
    }
    int failed = !buf || ferror(f);
    int e = errno;
    if (f != stdin)
        fclose(f);
    if (failed) {
        fprintf(stderr, "bspkit: %s: cannot read: %s\n", path, buf ? strerror(e) : "out of memory");
        free(buf);
        return -1;
    }
    buf[len] = '\0'; /* text readers may treat the buffer as a C string */
    *data = buf;
    *size = len;
    return 0;
}

bool cli_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int cli_check_output(const char *command, const char *map_path, const char **out, bool in_place)
{
    if (in_place && *out) {
        cli_usage_error(command, "give either -o OUT or --in-place, not both");
        return -1;
    }
    if (in_place) {
        *out = map_path;
        return 0;
    }
    if (!*out) {
        cli_usage_error(command, "missing -o OUT (or --in-place to overwrite %s)", map_path);
        return -1;
    }
    if (cli_same_file(map_path, *out)) {
        cli_usage_error(command, "%s is the input map; use --in-place to overwrite it", *out);
        return -1;
    }
    return 0;
}

static void print_warning(void *ctx, const bspkit_error *w)
{
    fprintf(stderr, "bspkit: %s: warning: %s\n", (const char *)ctx, w->message);
}

int cli_save_edit(bspkit_edit *e, const char *out, bspkit_save_options *opts)
{
    bspkit_save_options defaults = {0};
    if (!opts)
        opts = &defaults;
    if (!opts->warning) {
        opts->warning = print_warning;
        opts->warning_ctx = (void *)out;
    }
    bspkit_error err;
    if (bspkit_edit_save(e, out, opts, &err) != BSPKIT_OK) {
        cli_report_error(out, &err);
        return CLI_EXIT_UNREADABLE;
    }
    return CLI_EXIT_OK;
}

int cli_open_map(const char *path, bspkit_map **map)
{
    bspkit_error err;
    if (bspkit_open_file(path, NULL, map, &err) != BSPKIT_OK) {
        cli_report_error(path, &err);
        return -1;
    }
    return 0;
}

int cli_find_lump(const char *command, const bspkit_map *map, const char *id)
{
    uint64_t index;
    int count = bspkit_lump_count(map);
    if (cli_parse_count(id, (uint64_t)count - 1, &index) == 0)
        return (int)index;
    int found = bspkit_lump_find(map, id);
    if (found < 0)
        cli_usage_error(command, "no lump '%s' in a %s map (give an index 0..%d or a name such as PLANES)", id,
                        bspkit_family_name(bspkit_map_format(map)->family), count - 1);
    return found;
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#if defined(__GLIBC__) && defined(MADV_HUGEPAGE) && UINTPTR_MAX > 0xFFFFFFFFu
/* Address space the heap takes at its first growth (nothing is touched). */
#define HEAP_RESERVE ((size_t)256 << 20)
#define HUGE_PAGE ((uintptr_t)2 << 20)

/* Two blocks at the heap's start, held so that the blocks after them
 * start on huge pages; never touched, so they cost no memory. Volatile:
 * nothing reads them, and a compiler may drop an allocation never read. */
static void *volatile heap_held[2];

/* Grows the heap once by HEAP_RESERVE and asks for huge pages over it: a
 * fresh 4 KiB page costs a fault (microseconds under virtualisation), and
 * a decode or export touches thousands of them; a 2 MiB page costs one.
 * Where the kernel gives no huge pages the advice changes nothing. */
static void heap_in_huge_pages(void)
{
    mallopt(M_TOP_PAD, (int)HEAP_RESERVE);
    /* Too large for the small-block lists, so it comes from the heap's top
     * and grows it; malloc writes only the header after it. */
    char *grow = malloc(64 << 10);
    char *end = sbrk(0);
    mallopt(M_TOP_PAD, 128 << 10); /* the documented default */
    heap_held[0] = grow;
    if (!grow || end == (char *)-1 || grow >= end || (size_t)(end - grow) < HEAP_RESERVE / 2)
        return; /* not from the heap just grown (a mapping of its own) */
    char *top = grow + malloc_usable_size(grow); /* about where the next block starts */
    /* Advised before anything touches it: a 2 MiB range touched first gets small pages. */
    uintptr_t boundary = ((uintptr_t)top + 256 + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    uintptr_t hi = (uintptr_t)end & ~(HUGE_PAGE - 1);
    if (hi <= boundary)
        return;
    (void)madvise((void *)boundary, hi - boundary, MADV_HUGEPAGE);
    /* The heap up to the boundary, held: the next blocks start there. */
    heap_held[1] = malloc((size_t)(boundary - (uintptr_t)top) - 128);
}
#endif

void cli_reuse_memory(void)
{
#if defined(__GLIBC__)
    /* Blocks up to 32 MiB from the heap rather than their own mappings, and
     * the heap trimmed only past 512 MiB free. */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
#if defined(MADV_HUGEPAGE) && UINTPTR_MAX > 0xFFFFFFFFu /* the reserve is too much address space on 32 bits */
    heap_in_huge_pages();
#endif
#endif
}

cli_progress cli_progress_start(void)
{
    return (cli_progress){.enabled = isatty(STDERR_FILENO) != 0, .start = cli_now()};
}

void cli_progress_draw(const cli_progress *p, size_t done, size_t total)
{
    if (!p->enabled)
        return;
    double elapsed = cli_now() - p->start;
    double rate = elapsed > 0 ? (double)done / elapsed : 0;
    double eta = rate > 0 ? (double)(total - done) / rate : 0;
    fprintf(stderr, "\r[%zu/%zu] %.1f maps/s, %.0f s left\033[K", done, total, rate, eta);
    fflush(stderr);
}

void cli_progress_clear(const cli_progress *p)
{
    if (p->enabled)
        fputs("\r\033[K", stderr);
}

int cli_media_option(const char *command, int argc, char **argv, int *index, const cli_media_opts *o)
{
    const char *v;
    int m;
    if ((m = cli_option_value(argc, argv, index, "-o", &v)) != 0) {
        if (m < 0)
            cli_usage_error(command, "-o needs a file name");
        else
            *o->out = v;
        return m;
    }
    if ((m = cli_option_value(argc, argv, index, "--wad", &v)) != 0) {
        if (m < 0)
            cli_usage_error(command, "--wad needs a path");
        else
            o->wads[(*o->wad_count)++] = v;
        return m;
    }
    bool *flag = strcmp(argv[*index], "--no-textures") == 0    ? o->no_textures
                 : strcmp(argv[*index], "--no-lightmaps") == 0 ? o->no_lightmaps
                 : strcmp(argv[*index], "--hdr") == 0          ? o->hdr
                                                               : NULL;
    if (!flag)
        return 0;
    *flag = true;
    return 1;
}
