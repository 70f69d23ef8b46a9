/* bspkit scan: one summary record per map under files and directories,
 * including maps inside compressed files and archives. */
#include "cli.h"
#include "bspkit/scan.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void cmd_scan_help(FILE *out)
{
    fprintf(out,
            "usage: bspkit scan PATH... [-j N] [--jsonl OUT] [--sqlite DB]\n"
            "\n"
            "Summarise every map under the PATHs (directories are searched recursively):\n"
            ".bsp files, FastDL .bsp.bz2 and .bsp.gz files, and the .bsp (.bsp.bz2, .bsp.gz)\n"
            "members of .zip, .pk3, Garry's Mod .gma and Source .vpk archives (NAME_dir.vpk\n"
            "reads its NAME_NNN.vpk archives), all without unpacking to disk. A file named\n"
            "on the command line is read as a map whatever its extension (a container when\n"
            "its extension names one).\n"
            "\n"
            "options:\n"
            "  -j, --jobs N   read maps on N threads (default: the online processors);\n"
            "                 the output is the same for every N\n"
            "  --jsonl OUT    write one JSON object per map to OUT ('-': stdout) instead\n"
            "                 of the table\n"
            "  --sqlite DB    keep the records in the SQLite database DB (created when\n"
            "                 missing); a later run reads again only the files whose size\n"
            "                 or modification time changed and takes the other records\n"
            "                 (with their first 'ms') from DB, and drops the records of\n"
            "                 files no longer found under the PATHs; a line on stderr says\n"
            "                 how many records came from DB\n"
            "  -h, --help     show this help\n"
            "\n"
            "Records come in order of path (byte-wise), then member. Each JSON record has:\n"
            "path, member (inside an archive, else null), format, name, version, game,\n"
            "size (the map's bytes, decompressed), counts (the same keys and values as\n"
            "'bspkit info --json'), entities, crc (Source, else null), errors and warnings\n"
            "(as 'bspkit check' counts them), error (why the map could not be read or\n"
            "summarised, else null), lumps (non-empty lump name -> stored bytes), classes\n"
            "(entity classname -> count), textures (names), pakfile (Source: pakfile\n"
            "entries), sprp (Source: static-prop lump version) and ms (time taken; the\n"
            "only field that changes between runs). A damaged file is a record with its\n"
            "error: the scan never stops for one.\n"
            "\n"
            "The table gives format, version, size, errors, warnings and path[:member]\n"
            "per map, or the error; a summary line follows. With stderr on a terminal a\n"
            "progress line (maps done, rate, time left) is drawn there.\n"
            "\n"
            "exit codes:\n"
            "  0   every map was read and is valid (warnings allowed)\n"
            "  1   at least one map has validation errors\n"
            "  2   at least one path or map could not be read, or the output could not\n"
            "      be written (wins over 1)\n"
            "  64  usage error\n");
}

typedef struct scan_cli {
    FILE *jsonl;         /* JSON Lines output, or NULL for the table */
    cli_progress progress;
    bool write_failed;
} scan_cli;

static void human_size(uint64_t bytes, char *out, size_t cap)
{
    if (bytes >= 1024u * 1024u)
        snprintf(out, cap, "%.1fM", (double)bytes / (1024.0 * 1024.0));
    else if (bytes >= 1024u)
        snprintf(out, cap, "%.1fK", (double)bytes / 1024.0);
    else
        snprintf(out, cap, "%" PRIu64, bytes);
}

static int on_record(void *user, const bspkit_scan_record *rec)
{
    scan_cli *c = user;
    cli_progress_clear(&c->progress); /* the record replaces the progress line */
    if (c->jsonl) {
        if (fputs(rec->json, c->jsonl) == EOF || fputc('\n', c->jsonl) == EOF)
            c->write_failed = true;
    } else {
        char size[32];
        human_size(rec->size, size, sizeof size);
        const char *sep = rec->member ? ":" : "";
        const char *member = rec->member ? rec->member : "";
        if (!rec->format)
            printf("%-9s %4s %8s %6s %6s  %s%s%s: %s\n", "-", "-", rec->size ? size : "-", "-", "-", rec->path, sep,
                   member, rec->error ? rec->error : "unreadable");
        else
            printf("%-9s %4" PRId32 " %8s %6zu %6zu  %s%s%s%s%s\n", rec->format, rec->version, size, rec->errors,
                   rec->warnings, rec->path, sep, member, rec->error ? ": " : "", rec->error ? rec->error : "");
    }
    return c->write_failed ? 1 : 0;
}

static void on_progress(void *user, size_t done, size_t total)
{
    scan_cli *c = user;
    cli_progress_draw(&c->progress, done, total);
}

int cmd_scan(int argc, char **argv)
{
    const char **paths = calloc((size_t)argc, sizeof *paths);
    if (!paths) {
        fprintf(stderr, "bspkit: out of memory\n");
        return CLI_EXIT_UNREADABLE;
    }
    size_t npaths = 0;
    uint64_t jobs = 0;
    const char *jsonl = NULL, *sqlite = NULL, *problem = NULL, *unknown = NULL;
    bool options_done = false;
    for (int i = 1; i < argc && !problem; i++) {
        const char *arg = argv[i], *v = NULL;
        int m;
        if (!options_done && strcmp(arg, "--") == 0) {
            options_done = true;
        } else if (!options_done && ((m = cli_option_value(argc, argv, &i, "-j", &v)) != 0 ||
                                     (m = cli_option_value(argc, argv, &i, "--jobs", &v)) != 0)) {
            if (m < 0 || cli_parse_count(v, 256, &jobs) != 0 || jobs == 0)
                problem = "-j expects a thread count from 1 to 256";
        } else if (!options_done && (m = cli_option_value(argc, argv, &i, "--jsonl", &v)) != 0) {
            jsonl = v;
            problem = m < 0 ? "--jsonl expects a file name or '-'" : NULL;
        } else if (!options_done && (m = cli_option_value(argc, argv, &i, "--sqlite", &v)) != 0) {
            sqlite = v;
            problem = m < 0 ? "--sqlite expects a database file" : NULL;
        } else if (!options_done && arg[0] == '-' && arg[1] != '\0') {
            unknown = arg;
            problem = "unknown option";
        } else {
            paths[npaths++] = arg;
        }
    }
    if (!problem && npaths == 0)
        problem = "missing path (a map, an archive or a directory)";
    if (problem) {
        if (unknown)
            cli_usage_error("scan", "%s '%s'", problem, unknown);
        else
            cli_usage_error("scan", "%s", problem);
        free(paths);
        return CLI_EXIT_USAGE;
    }

    scan_cli c = {.progress = cli_progress_start()};
    if (jsonl) {
        c.jsonl = strcmp(jsonl, "-") == 0 ? stdout : fopen(jsonl, "w");
        if (!c.jsonl) {
            fprintf(stderr, "bspkit: %s: %s\n", jsonl, strerror(errno));
            free(paths);
            return CLI_EXIT_UNREADABLE;
        }
    } else {
        printf("%-9s %4s %8s %6s %6s  %s\n", "format", "ver", "size", "errors", "warns", "map");
    }

    bspkit_scan_options opts = {.threads = (unsigned)jobs, .on_record = on_record, .on_progress = on_progress,
                                .user = &c, .index_path = sqlite};
    bspkit_scan_totals totals;
    bspkit_error err;
    bspkit_result r = bspkit_scan(paths, npaths, &opts, &totals, &err);
    free(paths);
    cli_progress_clear(&c.progress);
    int status = CLI_EXIT_OK;
    if (totals.invalid > 0)
        status = CLI_EXIT_INVALID;
    if (totals.unreadable > 0)
        status = CLI_EXIT_UNREADABLE;
    if (r != BSPKIT_OK) {
        if (!c.write_failed)
            cli_report_error("scan", &err);
        status = CLI_EXIT_UNREADABLE;
    }
    if (sqlite && r == BSPKIT_OK)
        fprintf(stderr, "bspkit: %s: %zu of %zu %s from the index\n", sqlite, totals.reused, totals.maps,
                cli_plural(totals.maps, "record", "records"));
    if (c.jsonl && c.jsonl != stdout && fclose(c.jsonl) != 0)
        c.write_failed = true;
    if (c.write_failed) {
        fprintf(stderr, "bspkit: %s: write failed\n", jsonl ? jsonl : "stdout");
        status = CLI_EXIT_UNREADABLE;
    }
    if (!jsonl) {
        char size[32];
        human_size(totals.bytes, size, sizeof size);
        printf("%zu %s, %zu unreadable, %zu with errors (%zu errors, %zu warnings), %s in %.2f s\n", totals.maps,
               cli_plural(totals.maps, "map", "maps"), totals.unreadable, totals.invalid, totals.errors,
               totals.warnings, size, cli_now() - c.progress.start);
    }
    if (cli_finish_output() != 0)
        return CLI_EXIT_UNREADABLE;
    return status;
}
