/* bspkit fastdl: a FastDL tree (maps/NAME.bsp.bz2, GoldSrc maps copied) for
 * a game server's sv_downloadurl. */
#include "cli.h"
#include "bspkit/fastdl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void cmd_fastdl_help(FILE *out)
{
    fprintf(out,
            "usage: bspkit fastdl PATH... -o DIR [--content GAMEDIR]... [--quiet]\n"
            "\n"
            "Prepare the maps under the PATHs (map files, or directories searched for\n"
            "*.bsp) for a FastDL web server: Source maps become DIR/maps/NAME.bsp.bz2\n"
            "(bzip2, decompressed again and compared with the map before it is written);\n"
            "GoldSrc maps are copied to DIR/maps/NAME.bsp, since their clients do not\n"
            "read bz2. Other families are skipped. Outputs are written to a temporary\n"
            "file and renamed, and take their map's modification time: a later run\n"
            "leaves an output with its map's time and size alone (an archive's size:\n"
            "what it decompresses to).\n"
            "\n"
            "options:\n"
            "  -o DIR       the FastDL root (maps/ is created in it)\n"
            "  --content GAMEDIR  also write DIR/PATH.bz2 for each file a Source map refers\n"
            "               to that its pakfile does not carry and GAMEDIR holds (searched\n"
            "               in the order given): what `bspkit deps --game GAMEDIR` lists\n"
            "               as a loose file there: materials with the textures and\n"
            "               materials they name, models with their .vvd/.vtx/.phy files,\n"
            "               sounds, particle files; files GAMEDIR does not hold, or holds\n"
            "               only in a VPK archive, are taken to be the game's own\n"
            "  -q, --quiet  print only warnings and failures\n"
            "  -h, --help   show this help\n"
            "\n"
            "One line per map: 'written', 'copied', 'unchanged', 'skipped' or 'FAILED',\n"
            "the input, and the output with its size. Warnings (stderr): a map above\n"
            "64 MiB (older clients refuse to download it) or above 150 MiB (current\n"
            "clients refuse it), and an archive that saves less than 10%% (LZMA-compressed\n"
            "maps gain little). A summary line follows. When stderr is a terminal, a\n"
            "progress line (maps done, rate, time left) is drawn there.\n"
            "\n"
            "exit codes:\n"
            "  0   every map was written, copied, up to date or skipped\n"
            "  2   at least one map could not be read, written or verified, or DIR\n"
            "      could not be created\n"
            "  64  usage error\n");
}

static const char *const ACTIONS[] = {"written", "copied", "unchanged", "skipped", "FAILED"};

typedef struct fastdl_cli {
    bool quiet;
    cli_progress progress;
} fastdl_cli;

static void on_item(void *user, const bspkit_fastdl_item *it)
{
    const fastdl_cli *c = user;
    bool quiet = c->quiet;
    cli_progress_clear(&c->progress); /* the line printed replaces the progress line */
    if (it->action == BSPKIT_FASTDL_FAILED)
        fprintf(stderr, "%-9s %s: %s\n", ACTIONS[it->action], it->input, it->message ? it->message : "");
    else if (it->action == BSPKIT_FASTDL_SKIPPED && !quiet)
        printf("%-9s %s: %s\n", ACTIONS[it->action], it->input, it->message ? it->message : "");
    else if (!quiet)
        printf("%-9s %s -> %s (%" PRIu64 " bytes)\n", ACTIONS[it->action], it->input, it->output, it->output_size);
    if (it->warnings & BSPKIT_FASTDL_WARN_150MB)
        fprintf(stderr, "bspkit: %s: warning: %" PRIu64 " bytes, above the 150 MiB clients download\n", it->input,
                it->input_size);
    else if (it->warnings & BSPKIT_FASTDL_WARN_64MB)
        fprintf(stderr, "bspkit: %s: warning: %" PRIu64 " bytes, above the 64 MiB older clients download\n",
                it->input, it->input_size);
    if (it->warnings & BSPKIT_FASTDL_WARN_LOW_GAIN)
        fprintf(stderr, "bspkit: %s: warning: bzip2 saves only %.1f%% (%" PRIu64 " -> %" PRIu64 " bytes)\n", it->input,
                it->input_size ? 100.0 * (1.0 - (double)it->output_size / (double)it->input_size) : 0.0,
                it->input_size, it->output_size);
}

static void on_progress(void *user, size_t done, size_t total)
{
    const fastdl_cli *c = user;
    cli_progress_draw(&c->progress, done, total);
}

int cmd_fastdl(int argc, char **argv)
{
    /* Paths and content directories, each at most argc long. */
    const char **paths = calloc(2 * (size_t)argc, sizeof *paths);
    if (!paths) {
        fprintf(stderr, "bspkit: out of memory\n");
        return CLI_EXIT_UNREADABLE;
    }
    const char **content = paths + argc;
    size_t npaths = 0, ncontent = 0;
    const char *out = NULL, *problem = NULL, *unknown = NULL;
    bool quiet = false, options_done = false;
    for (int i = 1; i < argc && !problem; i++) {
        const char *arg = argv[i], *v = NULL;
        int m;
        if (!options_done && strcmp(arg, "--") == 0) {
            options_done = true;
        } else if (!options_done && (m = cli_option_value(argc, argv, &i, "-o", &v)) != 0) {
            out = v;
            problem = m < 0 ? "-o expects a directory" : NULL;
        } else if (!options_done && (m = cli_option_value(argc, argv, &i, "--content", &v)) != 0) {
            content[ncontent++] = v;
            problem = m < 0 ? "--content expects a directory" : NULL;
        } else if (!options_done && (strcmp(arg, "-q") == 0 || strcmp(arg, "--quiet") == 0)) {
            quiet = true;
        } else if (!options_done && arg[0] == '-' && arg[1] != '\0') {
            unknown = arg;
            problem = "unknown option";
        } else {
            paths[npaths++] = arg;
        }
    }
    if (!problem && (npaths == 0 || out == NULL))
        problem = npaths == 0 ? "missing map or directory" : "missing -o DIR";
    if (problem) {
        if (unknown)
            cli_usage_error("fastdl", "%s '%s'", problem, unknown);
        else
            cli_usage_error("fastdl", "%s", problem);
        free(paths);
        return CLI_EXIT_USAGE;
    }
    fastdl_cli c = {.quiet = quiet, .progress = cli_progress_start()};
    bspkit_fastdl_options opts = {.on_item = on_item, .user = &c, .content_dirs = content,
                                  .content_dir_count = ncontent, .on_progress = on_progress};
    bspkit_fastdl_totals t;
    bspkit_error err;
    bspkit_result r = bspkit_fastdl(paths, npaths, out, &opts, &t, &err);
    free(paths);
    cli_progress_clear(&c.progress);
    if (r != BSPKIT_OK) {
        cli_report_error(out, &err);
        return CLI_EXIT_UNREADABLE;
    }
    if (!quiet)
        printf("%zu written, %zu copied, %zu unchanged, %zu skipped, %zu failed; %" PRIu64 " -> %" PRIu64 " bytes\n",
               t.written, t.copied, t.unchanged, t.skipped, t.failed, t.input_bytes, t.output_bytes);
    if (cli_finish_output() != 0)
        return CLI_EXIT_UNREADABLE;
    return t.failed ? CLI_EXIT_UNREADABLE : CLI_EXIT_OK;
}
