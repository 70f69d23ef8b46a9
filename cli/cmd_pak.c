/* bspkit pak: list, extract, add, remove or repack the files a Source map
 * carries in its PAKFILE lump (a zip archive). */
#include "cli.h"

#include "bspkit/edit.h"
#include "bspkit/pak.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Files larger than this are refused by `add` before they are read. */
#define PAK_CLI_MAX_FILE (256ull << 20)

void cmd_pak_help(FILE *out)
{
    fprintf(out,
            "usage: bspkit pak MAP list [--json]\n"
            "       bspkit pak MAP extract [-o DIR] [GLOB...]\n"
            "       bspkit pak MAP add FILE... [--as PATH] (-o OUT | --in-place)\n"
            "       bspkit pak MAP remove GLOB... (-o OUT | --in-place)\n"
            "       bspkit pak MAP repack [--lzma | --store] (-o OUT | --in-place)\n"
            "\n"
            "Work on the files a Source map carries in its PAKFILE lump, a zip archive\n"
            "the engine searches before the game's own files. Quake and GoldSrc maps\n"
            "have no pakfile.\n"
            "\n"
            "list     one line per entry: a '*' when the Source engine would misread\n"
            "         the entry, uncompressed size, stored size, method (store, deflate,\n"
            "         lzma, ...), CRC-32 and name; then a total. With --json: an object\n"
            "         with file, count, size, compressed_size and entries (name, size,\n"
            "         compressed_size, method, method_id, crc, engine_readable).\n"
            "extract  write the entries (those matching any GLOB, or all) under DIR\n"
            "         (default: the current directory), creating subdirectories. Names\n"
            "         that are absolute or lead out of DIR (\"..\") are refused, and\n"
            "         symbolic links inside DIR are not followed. Every entry is checked\n"
            "         against its CRC-32.\n"
            "add      store each FILE under its path as given (\"./\" dropped, '\\' taken\n"
            "         as '/', lower-cased as Valve's bspzip stores names), or under PATH\n"
            "         with --as (one FILE only; '-' reads standard input). An entry of\n"
            "         the same name (compared case-insensitively, as the engine does) is\n"
            "         replaced.\n"
            "remove   drop every entry whose name matches a GLOB.\n"
            "repack   rewrite the archive: by default stored and LZMA entries stay as\n"
            "         they are and all others (deflate, which the engine cannot read)\n"
            "         are stored; --store stores everything (what every Source build\n"
            "         reads); --lzma compresses every entry that shrinks with LZMA as\n"
            "         Valve's bspzip -repack -compress does (read by builds since about\n"
            "         2015: CS:GO, TF2 and the other SDK 2013 games; older builds refuse\n"
            "         a pakfile with any compressed entry).\n"
            "\n"
            "Writing subcommands build a new archive with no extra fields, no data\n"
            "descriptors and no zip64 records, as the engine's reader needs, keep the\n"
            "archive comment, and write the map atomically (a temporary file renamed\n"
            "over the output); the other lumps keep their contents.\n"
            "\n"
            "GLOB: shell-style, matched against whole entry names: '*' matches any\n"
            "characters including '/', '?' one character, [abc] [a-z] [!abc] a set, and\n"
            "'\\' makes the next character literal. Case is ignored. Quote globs so the\n"
            "shell does not expand them.\n"
            "\n"
            "options:\n"
            "  --json       list: print JSON\n"
            "  -o DIR       extract: the directory to write into (created if missing)\n"
            "  -o OUT       add/remove/repack: the map to write; never MAP itself\n"
            "  --in-place   add/remove/repack: write over MAP\n"
            "  --as PATH    add: the entry name for the single FILE\n"
            "  --store      repack: store every entry\n"
            "  --lzma       repack: LZMA-compress every entry that gets smaller\n"
            "  -h, --help   show this help (also after any subcommand)\n"
            "\n"
            "exit codes:\n"
            "  0   success\n"
            "  1   the pakfile or an entry is damaged (not a zip, bad CRC, corrupt\n"
            "      data), an entry name was refused on extraction, or a GLOB matched\n"
            "      no entry (nothing is written then)\n"
            "  2   a file could not be read, MAP is not a Source map, an entry uses a\n"
            "      method or size bspkit does not handle, or the output could not be\n"
            "      written\n"
            "  64  usage error (including OUT naming MAP without --in-place, and a\n"
            "      FILE name that cannot be an entry name without --as)\n");
}

typedef enum pak_sub { SUB_LIST, SUB_EXTRACT, SUB_ADD, SUB_REMOVE, SUB_REPACK } pak_sub;

typedef struct pak_args {
    const char *map;
    pak_sub sub;
    const char *sub_name;
    const char **items; /* FILEs or GLOBs */
    int nitems;
    const char *out;
    const char *as;
    bool json, in_place, lzma, store;
    size_t *extracted; /* extract: where to put the count instead of printing it */
} pak_args;

/* A library error's exit status: damaged data is an invalid map, anything
 * bspkit cannot do or reach makes the file unreadable to it. */
static int exit_for(bspkit_result r)
{
    switch (r) {
    case BSPKIT_ERR_UNKNOWN_FORMAT:
    case BSPKIT_ERR_COMPRESSION:
    case BSPKIT_ERR_TRUNCATED:
    case BSPKIT_ERR_ARGUMENT:
        return CLI_EXIT_INVALID;
    default:
        return CLI_EXIT_UNREADABLE;
    }
}

static int parse_args(int argc, char **argv, pak_args *a)
{
    memset(a, 0, sizeof *a);
    a->items = calloc((size_t)argc, sizeof *a->items);
    if (!a->items) {
        fprintf(stderr, "bspkit: out of memory\n");
        return CLI_EXIT_UNREADABLE;
    }
    const char *pos[2] = {0};
    int npos = 0;
    bool options_done = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v;
        int m;
        if (options_done || arg[0] != '-' || arg[1] == '\0') {
            if (npos < 2)
                pos[npos++] = arg;
            else
                a->items[a->nitems++] = arg;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            options_done = true;
        } else if ((m = cli_option_value(argc, argv, &i, "-o", &v)) != 0 ||
                   (m = cli_option_value(argc, argv, &i, "--output", &v)) != 0) {
            if (m < 0) {
                cli_usage_error("pak", "%s needs a value", arg);
                return CLI_EXIT_USAGE;
            }
            if (a->out) {
                cli_usage_error("pak", "-o given twice");
                return CLI_EXIT_USAGE;
            }
            a->out = v;
        } else if ((m = cli_option_value(argc, argv, &i, "--as", &v)) != 0) {
            if (m < 0) {
                cli_usage_error("pak", "--as needs an entry name");
                return CLI_EXIT_USAGE;
            }
            a->as = v;
        } else if (strcmp(arg, "--json") == 0) {
            a->json = true;
        } else if (strcmp(arg, "--in-place") == 0) {
            a->in_place = true;
        } else if (strcmp(arg, "--lzma") == 0) {
            a->lzma = true;
        } else if (strcmp(arg, "--store") == 0) {
            a->store = true;
        } else {
            cli_usage_error("pak", "unknown option '%s'", arg);
            return CLI_EXIT_USAGE;
        }
    }
    if (npos < 2) {
        cli_usage_error("pak", "%s", npos == 0 ? "missing map file"
                                               : "missing subcommand (list, extract, add, remove, repack)");
        return CLI_EXIT_USAGE;
    }
    a->map = pos[0];
    a->sub_name = pos[1];
    static const struct {
        const char *name;
        pak_sub sub;
    } SUBS[] = {{"list", SUB_LIST}, {"extract", SUB_EXTRACT}, {"add", SUB_ADD}, {"remove", SUB_REMOVE},
                {"repack", SUB_REPACK}};
    size_t k = 0;
    while (k < sizeof SUBS / sizeof SUBS[0] && strcmp(SUBS[k].name, a->sub_name) != 0)
        k++;
    if (k == sizeof SUBS / sizeof SUBS[0]) {
        cli_usage_error("pak", "unknown subcommand '%s' (list, extract, add, remove, repack)", a->sub_name);
        return CLI_EXIT_USAGE;
    }
    a->sub = SUBS[k].sub;

    /* Options that belong to another subcommand are mistakes, not no-ops. */
    bool writes = a->sub == SUB_ADD || a->sub == SUB_REMOVE || a->sub == SUB_REPACK;
    const char *stray = NULL;
    if (a->json && a->sub != SUB_LIST)
        stray = "--json";
    else if (a->as && a->sub != SUB_ADD)
        stray = "--as";
    else if ((a->lzma || a->store) && a->sub != SUB_REPACK)
        stray = a->lzma ? "--lzma" : "--store";
    else if (a->in_place && !writes)
        stray = "--in-place";
    else if (a->out && a->sub == SUB_LIST)
        stray = "-o";
    if (stray) {
        cli_usage_error("pak", "%s does not apply to '%s'", stray, a->sub_name);
        return CLI_EXIT_USAGE;
    }
    if ((a->sub == SUB_LIST || a->sub == SUB_REPACK) && a->nitems > 0) {
        cli_usage_error("pak", "'%s' takes no further arguments, got '%s'", a->sub_name, a->items[0]);
        return CLI_EXIT_USAGE;
    }
    if ((a->sub == SUB_ADD || a->sub == SUB_REMOVE) && a->nitems == 0) {
        cli_usage_error("pak", "'%s' needs at least one %s", a->sub_name, a->sub == SUB_ADD ? "FILE" : "GLOB");
        return CLI_EXIT_USAGE;
    }
    if (a->as && a->nitems != 1) {
        cli_usage_error("pak", "--as names one entry, but %d files were given", a->nitems);
        return CLI_EXIT_USAGE;
    }
    if (a->lzma && a->store) {
        cli_usage_error("pak", "give --lzma or --store, not both");
        return CLI_EXIT_USAGE;
    }
    if (writes && cli_check_output("pak", a->map, &a->out, a->in_place) != 0)
        return CLI_EXIT_USAGE;
    return CLI_EXIT_OK;
}

/* ---- list ---- */

static void method_label(uint16_t method, char *buf, size_t size)
{
    const char *name = bspkit_pak_method_name(method);
    if (name)
        snprintf(buf, size, "%s", name);
    else
        snprintf(buf, size, "m%u", (unsigned)method);
}

static int list_text(const char *file, const bspkit_pak *p)
{
    size_t n = bspkit_pak_count(p), misread = 0;
    uint64_t total = 0, packed = 0;
    printf("  %10s  %10s  %-7s  %-8s  %s\n", "size", "compressed", "method", "crc32", "name");
    for (size_t i = 0; i < n; i++) {
        bspkit_pak_entry e;
        bspkit_error err;
        if (bspkit_pak_entry_info(p, i, &e, &err) != BSPKIT_OK) {
            cli_report_error(file, &err);
            return CLI_EXIT_UNREADABLE;
        }
        char method[16];
        method_label(e.method, method, sizeof method);
        printf("%c %10" PRIu64 "  %10" PRIu64 "  %-7s  %08" PRIx32 "  %s\n", e.engine_readable ? ' ' : '*', e.size,
               e.compressed_size, method, e.crc32, e.name);
        total += e.size;
        packed += e.compressed_size;
        misread += !e.engine_readable;
    }
    printf("%zu %s, %" PRIu64 " %s (%" PRIu64 " stored)\n", n, cli_plural(n, "entry", "entries"), total,
           cli_plural(total, "byte", "bytes"), packed);
    if (misread)
        printf("* %zu %s the Source engine would misread (method, encryption, name length or header layout)\n",
               misread, cli_plural(misread, "entry", "entries"));
    return CLI_EXIT_OK;
}

static bool set(json_t *obj, const char *key, json_t *value)
{
    return value != NULL && json_object_set_new(obj, key, value) == 0;
}

static int list_json(const char *file, const bspkit_pak *p)
{
    size_t n = bspkit_pak_count(p);
    uint64_t total = 0, packed = 0;
    json_t *root = json_object(), *entries = json_array();
    bool ok = root && entries;
    for (size_t i = 0; ok && i < n; i++) {
        bspkit_pak_entry e;
        bspkit_error err;
        if (bspkit_pak_entry_info(p, i, &e, &err) != BSPKIT_OK) {
            cli_report_error(file, &err);
            json_decref(root);
            json_decref(entries);
            return CLI_EXIT_UNREADABLE;
        }
        char method[16], crc[9];
        method_label(e.method, method, sizeof method);
        snprintf(crc, sizeof crc, "%08" PRIx32, e.crc32);
        json_t *o = json_object();
        ok = o && set(o, "name", cli_json_string(e.name)) && set(o, "size", json_integer((json_int_t)e.size)) &&
             set(o, "compressed_size", json_integer((json_int_t)e.compressed_size)) &&
             set(o, "method", json_string(method)) && set(o, "method_id", json_integer(e.method)) &&
             set(o, "crc", json_string(crc)) && set(o, "engine_readable", json_boolean(e.engine_readable));
        if (o && json_array_append_new(entries, o) != 0)
            ok = false;
        total += e.size;
        packed += e.compressed_size;
    }
    ok = ok && set(root, "file", cli_json_string(file)) && set(root, "count", json_integer((json_int_t)n)) &&
         set(root, "size", json_integer((json_int_t)total)) &&
         set(root, "compressed_size", json_integer((json_int_t)packed)) && set(root, "entries", json_incref(entries));
    json_decref(entries);
    if (!ok) {
        json_decref(root);
        fprintf(stderr, "bspkit: out of memory\n");
        return CLI_EXIT_UNREADABLE;
    }
    int rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 ? CLI_EXIT_OK : CLI_EXIT_UNREADABLE;
    if (rc == CLI_EXIT_OK)
        fputc('\n', stdout);
    json_decref(root);
    return rc;
}

/* ---- extract ---- */

static int do_extract(const pak_args *a, bspkit_pak *p)
{
    const char *dir = a->out ? a->out : ".";
    bspkit_error derr;
    if (bspkit_make_dirs(dir, &derr) != BSPKIT_OK) {
        fprintf(stderr, "bspkit: %s\n", derr.message);
        return CLI_EXIT_UNREADABLE;
    }
    int status = CLI_EXIT_OK;
    size_t n = bspkit_pak_count(p), done = 0;
    bool *used = calloc((size_t)a->nitems + 1, sizeof *used);
    if (!used) {
        fprintf(stderr, "bspkit: out of memory\n");
        return CLI_EXIT_UNREADABLE;
    }
    for (size_t i = 0; i < n; i++) {
        bspkit_pak_entry e;
        bspkit_error err;
        if (bspkit_pak_entry_info(p, i, &e, &err) != BSPKIT_OK) {
            cli_report_error(a->map, &err);
            status = CLI_EXIT_UNREADABLE;
            break;
        }
        bool wanted = a->nitems == 0;
        for (int g = 0; g < a->nitems; g++) {
            if (bspkit_pak_glob_match(a->items[g], e.name)) {
                used[g] = true;
                wanted = true;
            }
        }
        if (!wanted)
            continue;
        char *rel = NULL;
        if (bspkit_pak_safe_path(e.name, &rel, &err) != BSPKIT_OK) {
            fprintf(stderr, "bspkit: %s: %s; not extracted\n", a->map, err.message);
            status = status ? status : CLI_EXIT_INVALID;
            continue;
        }
        uint8_t *data = NULL;
        size_t size = 0;
        bspkit_result r = rel[strlen(rel) - 1] == '/' ? BSPKIT_OK : bspkit_pak_read(p, i, &data, &size, &err);
        if (r != BSPKIT_OK) {
            cli_report_error(a->map, &err);
            int rc = exit_for(r);
            status = status > rc ? status : rc;
        } else if (bspkit_write_file_under(dir, rel, data, size, &err) != BSPKIT_OK) {
            fprintf(stderr, "bspkit: %s\n", err.message);
            status = CLI_EXIT_UNREADABLE;
        } else {
            done++;
        }
        free(data);
        free(rel);
    }
    for (int g = 0; g < a->nitems; g++) {
        if (!used[g]) {
            fprintf(stderr, "bspkit: %s: no PAKFILE entry matches '%s'\n", a->map, a->items[g]);
            status = status ? status : CLI_EXIT_INVALID;
        }
    }
    free(used);
    if (a->extracted)
        *a->extracted = done;
    else
        printf("extracted %zu %s to %s\n", done, cli_plural(done, "entry", "entries"), dir);
    return status;
}

/* The map's PAKFILE as an archive; `zip_size` (may be NULL) gets the lump's size. Errors printed; returns an
 * exit code. */
static int open_pak(const char *map_path, bspkit_map *map, bspkit_pak **p, size_t *zip_size)
{
    const uint8_t *zip = NULL;
    size_t size = 0;
    bspkit_error err;
    bspkit_result r = bspkit_lump_bytes(map, BSPKIT_S_PAKFILE, &zip, &size, &err);
    if (r == BSPKIT_OK)
        r = bspkit_pak_open(zip, size, NULL, p, &err);
    if (r != BSPKIT_OK) {
        cli_report_error(map_path, &err);
        return exit_for(r);
    }
    if (zip_size)
        *zip_size = size;
    return CLI_EXIT_OK;
}

int cli_pak_unpack(const char *map_path, bspkit_map *map, const char *dir, size_t *extracted)
{
    bspkit_pak *p = NULL;
    int rc = open_pak(map_path, map, &p, NULL);
    if (rc != CLI_EXIT_OK)
        return rc;
    pak_args a = {.map = map_path, .out = dir, .extracted = extracted};
    rc = do_extract(&a, p);
    bspkit_pak_close(p);
    return rc;
}

/* ---- add / remove / repack ---- */

/* Reads FILE for `add`, refusing what could never be an entry before
 * reading it whole. */
static int read_input(const char *path, uint8_t **data, size_t *size)
{
    struct stat st;
    if (strcmp(path, "-") != 0 && stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            fprintf(stderr, "bspkit: %s: is a directory (add the files inside it)\n", path);
            return CLI_EXIT_UNREADABLE;
        }
        if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > PAK_CLI_MAX_FILE) {
            fprintf(stderr, "bspkit: %s: %lld bytes is over the %llu-byte entry limit\n", path,
                    (long long)st.st_size, (unsigned long long)PAK_CLI_MAX_FILE);
            return CLI_EXIT_UNREADABLE;
        }
    }
    return cli_read_file(path, data, size) == 0 ? CLI_EXIT_OK : CLI_EXIT_UNREADABLE;
}

static int do_add(const pak_args *a, bspkit_pak *p)
{
    for (int i = 0; i < a->nitems; i++) {
        const char *name = a->as ? a->as : a->items[i];
        uint8_t *data = NULL;
        size_t size = 0;
        int rc = read_input(a->items[i], &data, &size);
        if (rc != CLI_EXIT_OK)
            return rc;
        size_t idx;
        bspkit_error err;
        bool existed = bspkit_pak_find(p, name, &idx, &err) == BSPKIT_OK;
        bspkit_result r = bspkit_pak_add(p, name, data, size, &err);
        free(data);
        if (r == BSPKIT_ERR_ARGUMENT) {
            cli_usage_error("pak", "%s: %s; choose the entry name with --as PATH", a->items[i], err.message);
            return CLI_EXIT_USAGE;
        }
        if (r != BSPKIT_OK) {
            cli_report_error(a->items[i], &err);
            return exit_for(r);
        }
        bspkit_pak_entry e;
        if (bspkit_pak_find(p, name, &idx, &err) == BSPKIT_OK && bspkit_pak_entry_info(p, idx, &e, &err) == BSPKIT_OK)
            printf("%s %s (%zu %s)\n", existed ? "replaced" : "added", e.name, size, cli_plural(size, "byte", "bytes"));
    }
    return CLI_EXIT_OK;
}

static int do_remove(const pak_args *a, bspkit_pak *p)
{
    int status = CLI_EXIT_OK;
    for (int g = 0; g < a->nitems; g++) {
        size_t n = bspkit_pak_count(p);
        for (size_t i = 0; i < n; i++) {
            bspkit_pak_entry e;
            bspkit_error err;
            if (bspkit_pak_entry_info(p, i, &e, &err) == BSPKIT_OK && bspkit_pak_glob_match(a->items[g], e.name))
                printf("removed %s\n", e.name);
        }
        size_t removed = 0;
        bspkit_error err;
        if (bspkit_pak_remove(p, a->items[g], &removed, &err) != BSPKIT_OK) {
            cli_report_error(a->map, &err);
            return CLI_EXIT_UNREADABLE;
        }
        if (removed == 0) {
            fprintf(stderr, "bspkit: %s: no PAKFILE entry matches '%s'\n", a->map, a->items[g]);
            status = CLI_EXIT_INVALID;
        }
    }
    return status;
}

static int write_map(const pak_args *a, bspkit_map *map, bspkit_pak *p, size_t old_size)
{
    bspkit_pak_method method = a->lzma ? BSPKIT_PAK_LZMA : a->store ? BSPKIT_PAK_STORE : BSPKIT_PAK_KEEP;
    uint8_t *zip = NULL;
    size_t size = 0;
    bspkit_error err;
    bspkit_result r = bspkit_pak_write(p, method, &zip, &size, &err);
    if (r != BSPKIT_OK) {
        cli_report_error(a->map, &err);
        return exit_for(r);
    }
    bspkit_edit *e = NULL;
    int rc;
    if (bspkit_edit_new(map, &e, &err) != BSPKIT_OK || bspkit_edit_set_pakfile(e, zip, size, &err) != BSPKIT_OK) {
        cli_report_error(a->map, &err);
        rc = CLI_EXIT_UNREADABLE;
    } else {
        rc = cli_save_edit(e, a->out, NULL);
    }
    if (rc == CLI_EXIT_OK) {
        size_t n = bspkit_pak_count(p);
        printf("wrote %s: PAKFILE %zu -> %zu bytes, %zu %s\n", a->out, old_size, size, n,
               cli_plural(n, "entry", "entries"));
    }
    bspkit_edit_free(e);
    free(zip);
    return rc;
}

int cmd_pak(int argc, char **argv)
{
    pak_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != CLI_EXIT_OK) {
        free(a.items);
        return rc;
    }
    bspkit_map *map = NULL;
    if (cli_open_map(a.map, &map) != 0) {
        free(a.items);
        return CLI_EXIT_UNREADABLE;
    }
    const bspkit_format *fmt = bspkit_map_format(map);
    if (fmt->family != BSPKIT_FAMILY_SOURCE) {
        fprintf(stderr, "bspkit: %s: %s is not a Source map; only Source maps have a PAKFILE lump\n", a.map,
                fmt->name);
        bspkit_close(map);
        free(a.items);
        return CLI_EXIT_UNREADABLE;
    }
    size_t zip_size = 0;
    bspkit_pak *p = NULL;
    rc = open_pak(a.map, map, &p, &zip_size);
    if (rc != CLI_EXIT_OK) {
        bspkit_close(map);
        free(a.items);
        return rc;
    }

    switch (a.sub) {
    case SUB_LIST:
        rc = a.json ? list_json(a.map, p) : list_text(a.map, p);
        break;
    case SUB_EXTRACT:
        rc = do_extract(&a, p);
        break;
    case SUB_ADD:
        rc = do_add(&a, p);
        break;
    case SUB_REMOVE:
        rc = do_remove(&a, p);
        break;
    case SUB_REPACK:
        rc = CLI_EXIT_OK;
        break;
    }
    if (rc == CLI_EXIT_OK && (a.sub == SUB_ADD || a.sub == SUB_REMOVE || a.sub == SUB_REPACK))
        rc = write_map(&a, map, p, zip_size);

    bspkit_pak_close(p);
    bspkit_close(map);
    free(a.items);
    if (cli_finish_output() != 0 && rc == CLI_EXIT_OK)
        rc = CLI_EXIT_UNREADABLE;
    return rc;
}
