/* bspkit lump: take one lump's bytes out of a map, or put new bytes in. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

void cmd_lump_help(FILE *out)
{
    fprintf(out,
            "usage: bspkit lump MAP extract ID [-o FILE]\n"
            "       bspkit lump MAP replace ID FILE (-o OUT | --in-place)\n"
            "\n"
            "extract  write lump ID's bytes, decompressed when the map stores it as\n"
            "         LZMA, to FILE (default: standard output)\n"
            "replace  write a copy of MAP whose lump ID holds FILE's bytes (decompressed,\n"
            "         in the map's byte order); a lump stored compressed is compressed\n"
            "         again. Everything else is kept: unchanged lumps keep their bytes,\n"
            "         and when the size stays the same nothing moves. The size must be\n"
            "         a whole number of the lump's records.\n"
            "\n"
            "ID is a lump index (0-14 for Quake/GoldSrc, 0-63 for Source) or a name as\n"
            "'bspkit info' prints it (PLANES, ENTITIES, ...; case-insensitive).\n"
            "Source GAME_LUMP cannot be replaced as bytes: its entries hold file offsets.\n"
            "\n"
            "options:\n"
            "  -o FILE      output file; never the input map\n"
            "  --in-place   replace MAP itself (written to a temporary file, then renamed)\n"
            "  -h, --help   show this help\n"
            "\n"
            "exit codes:\n"
            "  0   success\n"
            "  1   FILE does not fit the lump (not a whole number of records, GAME_LUMP)\n"
            "  2   MAP or FILE could not be read, or the output could not be written\n"
            "  64  usage error\n");
}

static int write_output(const char *path, const uint8_t *data, size_t size)
{
    if (!path || strcmp(path, "-") == 0) {
        bool written = size == 0 || fwrite(data, 1, size, stdout) == size;
        return cli_finish_output() == 0 && written ? CLI_EXIT_OK : CLI_EXIT_UNREADABLE;
    }
    bspkit_error err;
    if (bspkit_save_file(path, data, size, &err) != BSPKIT_OK) {
        cli_report_error(path, &err);
        return CLI_EXIT_UNREADABLE;
    }
    return CLI_EXIT_OK;
}

int cmd_lump(int argc, char **argv)
{
    const char *out = NULL, *args[4] = {0};
    bool in_place = false;
    int nargs = 0;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int m = cli_option_value(argc, argv, &i, "-o", &v);
        if (m < 0) {
            cli_usage_error("lump", "-o needs a file name");
            return CLI_EXIT_USAGE;
        }
        if (m > 0) {
            out = v;
        } else if (strcmp(argv[i], "--in-place") == 0) {
            in_place = true;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            cli_usage_error("lump", "unknown option '%s'", argv[i]);
            return CLI_EXIT_USAGE;
        } else if (nargs < 4) {
            args[nargs++] = argv[i];
        } else {
            cli_usage_error("lump", "too many arguments");
            return CLI_EXIT_USAGE;
        }
    }
    if (nargs < 3) {
        cli_usage_error("lump", "expected MAP extract ID or MAP replace ID FILE");
        return CLI_EXIT_USAGE;
    }
    const char *map_path = args[0], *sub = args[1];
    bool extract = strcmp(sub, "extract") == 0;
    if (!extract && strcmp(sub, "replace") != 0) {
        cli_usage_error("lump", "unknown subcommand '%s' (extract or replace)", sub);
        return CLI_EXIT_USAGE;
    }
    if (extract && (nargs != 3 || in_place)) {
        cli_usage_error("lump", nargs != 3 ? "extract takes MAP extract ID" : "--in-place applies to replace only");
        return CLI_EXIT_USAGE;
    }
    if (!extract && nargs != 4) {
        cli_usage_error("lump", "replace takes MAP replace ID FILE");
        return CLI_EXIT_USAGE;
    }
    if (!extract && cli_check_output("lump", map_path, &out, in_place) != 0)
        return CLI_EXIT_USAGE;

    bspkit_map *map;
    if (cli_open_map(map_path, &map) != 0)
        return CLI_EXIT_UNREADABLE;
    int lump = cli_find_lump("lump", map, args[2]);
    if (lump < 0) {
        bspkit_close(map);
        return CLI_EXIT_USAGE;
    }
    bspkit_error err;
    int rc;
    if (extract) {
        const uint8_t *data;
        size_t size;
        if (bspkit_lump_bytes(map, lump, &data, &size, &err) != BSPKIT_OK) {
            cli_report_error(map_path, &err);
            rc = CLI_EXIT_UNREADABLE;
        } else {
            rc = write_output(out, data, size);
        }
        bspkit_close(map);
        return rc;
    }
    uint8_t *bytes;
    size_t size;
    if (cli_read_file(args[3], &bytes, &size) != 0) {
        bspkit_close(map);
        return CLI_EXIT_UNREADABLE;
    }
    bspkit_edit *e = NULL;
    rc = CLI_EXIT_OK;
    if (bspkit_edit_new(map, &e, &err) != BSPKIT_OK || bspkit_edit_set_lump(e, lump, bytes, size, &err) != BSPKIT_OK) {
        fprintf(stderr, "bspkit: %s: %s\n", args[3], err.message);
        rc = err.code == BSPKIT_ERR_ARGUMENT || err.code == BSPKIT_ERR_LUMP_SIZE ? CLI_EXIT_INVALID
                                                                                 : CLI_EXIT_UNREADABLE;
    } else {
        rc = cli_save_edit(e, out, NULL);
    }
    bspkit_edit_free(e);
    free(bytes);
    bspkit_close(map);
    return rc;
}
