/* bspkit lmp: Source lump files, the `<map>_l_<n>.lmp` files the engine
 * loads over a map's own lump. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

void cmd_lmp_help(FILE *out)
{
    fprintf(out,
            "usage: bspkit lmp MAP make ID -o FILE.lmp\n"
            "       bspkit lmp MAP apply FILE.lmp... (-o OUT | --in-place)\n"
            "\n"
            "Source lump files hold one lump: a 20-byte header of int32 fields (header\n"
            "size 20, lump index, lump version, lump length, map revision) in the map's\n"
            "byte order, then the lump's bytes.\n"
            "\n"
            "make   write lump ID of MAP (decompressed) as a lump file stamped with the\n"
            "       map's revision; ID is an index 0-63 or a name such as ENTITIES\n"
            "apply  write a copy of MAP with each lump file's lump and version put in,\n"
            "       in the order given; a lump file made for another map revision is\n"
            "       applied with a warning\n"
            "\n"
            "GAME_LUMP cannot go through a lump file (its entries hold file offsets).\n"
            "\n"
            "options:\n"
            "  -o FILE      output file; never the input map\n"
            "  --in-place   apply: replace MAP itself (temporary file, then rename)\n"
            "  -h, --help   show this help\n"
            "\n"
            "exit codes:\n"
            "  0   success\n"
            "  1   a lump file is malformed or does not fit its lump\n"
            "  2   a file could not be read, the map is not a Source map, or the output\n"
            "      could not be written\n"
            "  64  usage error\n");
}

static int make(bspkit_map *map, const char *map_path, const char *id, const char *out)
{
    int lump = cli_find_lump("lmp", map, id);
    if (lump < 0)
        return CLI_EXIT_USAGE;
    bspkit_error err;
    bspkit_edit *e = NULL;
    uint8_t *file = NULL;
    size_t size = 0;
    int rc = CLI_EXIT_OK;
    if (bspkit_edit_new(map, &e, &err) != BSPKIT_OK || bspkit_lmp_make(e, lump, &file, &size, &err) != BSPKIT_OK) {
        cli_report_error(map_path, &err);
        rc = CLI_EXIT_UNREADABLE;
    } else if (bspkit_save_file(out, file, size, &err) != BSPKIT_OK) {
        cli_report_error(out, &err);
        rc = CLI_EXIT_UNREADABLE;
    }
    free(file);
    bspkit_edit_free(e);
    return rc;
}

static int apply(bspkit_map *map, const char *map_path, char **files, int count, const char *out)
{
    bspkit_error err;
    bspkit_edit *e = NULL;
    if (bspkit_edit_new(map, &e, &err) != BSPKIT_OK) {
        cli_report_error(map_path, &err);
        return CLI_EXIT_UNREADABLE;
    }
    int rc = CLI_EXIT_OK;
    int32_t revision = bspkit_map_format(map)->revision;
    for (int i = 0; i < count && rc == CLI_EXIT_OK; i++) {
        uint8_t *data;
        size_t size;
        if (cli_read_file(files[i], &data, &size) != 0) {
            rc = CLI_EXIT_UNREADABLE;
            break;
        }
        bspkit_lmp_header h;
        if (bspkit_edit_apply_lmp(e, data, size, &h, &err) != BSPKIT_OK) {
            cli_report_error(files[i], &err);
            rc = err.code == BSPKIT_ERR_UNSUPPORTED && bspkit_map_format(map)->family != BSPKIT_FAMILY_SOURCE
                     ? CLI_EXIT_UNREADABLE
                     : CLI_EXIT_INVALID;
        } else if (h.revision != revision) {
            fprintf(stderr, "bspkit: %s: warning: made for map revision %d, %s has revision %d\n", files[i],
                    (int)h.revision, map_path, (int)revision);
        }
        free(data);
    }
    if (rc == CLI_EXIT_OK)
        rc = cli_save_edit(e, out, NULL);
    bspkit_edit_free(e);
    return rc;
}

int cmd_lmp(int argc, char **argv)
{
    const char *out = NULL;
    bool in_place = false;
    char **args = calloc((size_t)argc, sizeof *args);
    int nargs = 0;
    if (!args)
        return CLI_EXIT_UNREADABLE;
    int rc = CLI_EXIT_USAGE;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int m = cli_option_value(argc, argv, &i, "-o", &v);
        if (m < 0) {
            cli_usage_error("lmp", "-o needs a file name");
            goto done;
        }
        if (m > 0)
            out = v;
        else if (strcmp(argv[i], "--in-place") == 0)
            in_place = true;
        else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            cli_usage_error("lmp", "unknown option '%s'", argv[i]);
            goto done;
        } else
            args[nargs++] = argv[i];
    }
    if (nargs < 3) {
        cli_usage_error("lmp", "expected MAP make ID -o FILE or MAP apply FILE... -o OUT");
        goto done;
    }
    bool is_make = strcmp(args[1], "make") == 0;
    if (!is_make && strcmp(args[1], "apply") != 0) {
        cli_usage_error("lmp", "unknown subcommand '%s' (make or apply)", args[1]);
        goto done;
    }
    if (is_make && (nargs != 3 || in_place || !out)) {
        cli_usage_error("lmp", nargs != 3 ? "make takes one lump ID" : "make needs -o FILE.lmp (and no --in-place)");
        goto done;
    }
    if (!is_make && cli_check_output("lmp", args[0], &out, in_place) != 0)
        goto done;
    bspkit_map *map;
    if (cli_open_map(args[0], &map) != 0) {
        rc = CLI_EXIT_UNREADABLE;
        goto done;
    }
    if (bspkit_map_format(map)->family != BSPKIT_FAMILY_SOURCE) {
        fprintf(stderr, "bspkit: %s: lump files exist for Source maps only, this is %s\n", args[0],
                bspkit_map_format(map)->name);
        rc = CLI_EXIT_UNREADABLE;
    } else {
        rc = is_make ? make(map, args[0], args[2], out) : apply(map, args[0], args + 2, nargs - 2, out);
    }
    bspkit_close(map);
done:
    free(args);
    return rc;
}
