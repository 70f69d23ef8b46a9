/* bspkit convert: save a map again, optionally changing how it is stored
 * (LZMA lumps, byte order, GoldSrc directory order, Quake record layout)
 * but never what it holds. */
#include "cli.h"

#include <string.h>

void cmd_convert_help(FILE *out)
{
    fprintf(out,
            "usage: bspkit convert MAP (-o OUT | --in-place) [options]\n"
            "\n"
            "Write MAP again. With no option the output is byte-identical to MAP.\n"
            "\n"
            "options:\n"
            "  --compress         Source: store every lump except PAKFILE and GAME_LUMP,\n"
            "                     and every game lump, LZMA-compressed with Valve's header\n"
            "                     (a lump is left plain when compression does not shrink it)\n"
            "  --decompress       Source: store every lump plainly (PC engines need this)\n"
            "  --endian little|big  Source: byte order, little = PC (VBSP), big = Xbox 360 /\n"
            "                     PS3 (PSBV); every field of every lump and game lump whose\n"
            "                     layout bspkit knows is converted, others are copied with\n"
            "                     a warning\n"
            "  --format bsp29|bsp2|2psb  Quake: write faces, nodes, leafs, clipnodes,\n"
            "                     marksurfaces and edges in that layout (BSP2: 32-bit\n"
            "                     indices and float bounds; 2PSB: 32-bit indices); a value\n"
            "                     that does not fit BSP29 fails naming record and field\n"
            "  --strict           fail instead of copying a lump that cannot be converted\n"
            "  --blueshift        GoldSrc BSP30: write the Blue Shift directory order\n"
            "                     (PLANES entry first, then ENTITIES)\n"
            "  --standard         GoldSrc BSP30: write the standard directory order\n"
            "  -o OUT             output file; never the input map\n"
            "  --in-place         replace MAP itself (temporary file, then rename)\n"
            "  -h, --help         show this help\n"
            "\n"
            "exit codes:\n"
            "  0   success (warnings go to stderr)\n"
            "  2   MAP could not be read, the conversion does not apply to its format,\n"
            "      a lump could not be converted (--strict), or the output could not be\n"
            "      written\n"
            "  64  usage error\n");
}

int cmd_convert(int argc, char **argv)
{
    const char *out = NULL, *map_path = NULL;
    bool in_place = false;
    bspkit_save_options opts = {0};
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int mo = cli_option_value(argc, argv, &i, "-o", &v);
        int me = mo ? 0 : cli_option_value(argc, argv, &i, "--endian", &v);
        int mf = mo || me ? 0 : cli_option_value(argc, argv, &i, "--format", &v);
        if (mo < 0 || me < 0 || mf < 0) {
            cli_usage_error("convert", "%s needs a value", argv[i]);
            return CLI_EXIT_USAGE;
        }
        if (mo > 0) {
            out = v;
        } else if (mf > 0) {
            if (strcmp(v, "bsp29") == 0)
                opts.quake_format = BSPKIT_QUAKE_FORMAT_BSP29;
            else if (strcmp(v, "bsp2") == 0)
                opts.quake_format = BSPKIT_QUAKE_FORMAT_BSP2;
            else if (strcmp(v, "2psb") == 0)
                opts.quake_format = BSPKIT_QUAKE_FORMAT_2PSB;
            else {
                cli_usage_error("convert", "--format takes bsp29, bsp2 or 2psb, not '%s'", v);
                return CLI_EXIT_USAGE;
            }
        } else if (me > 0) {
            if (strcmp(v, "little") == 0)
                opts.byte_order = BSPKIT_BYTE_ORDER_LITTLE;
            else if (strcmp(v, "big") == 0)
                opts.byte_order = BSPKIT_BYTE_ORDER_BIG;
            else {
                cli_usage_error("convert", "--endian takes little or big, not '%s'", v);
                return CLI_EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--compress") == 0 || strcmp(argv[i], "--decompress") == 0) {
            bspkit_compression c = argv[i][2] == 'c' ? BSPKIT_COMPRESSION_LZMA : BSPKIT_COMPRESSION_NONE;
            if (opts.compression && opts.compression != c) {
                cli_usage_error("convert", "--compress and --decompress exclude each other");
                return CLI_EXIT_USAGE;
            }
            opts.compression = c;
        } else if (strcmp(argv[i], "--blueshift") == 0 || strcmp(argv[i], "--standard") == 0) {
            bspkit_lump_order o = argv[i][2] == 'b' ? BSPKIT_LUMP_ORDER_BLUESHIFT : BSPKIT_LUMP_ORDER_STANDARD;
            if (opts.lump_order && opts.lump_order != o) {
                cli_usage_error("convert", "--blueshift and --standard exclude each other");
                return CLI_EXIT_USAGE;
            }
            opts.lump_order = o;
        } else if (strcmp(argv[i], "--strict") == 0) {
            opts.strict = true;
        } else if (strcmp(argv[i], "--in-place") == 0) {
            in_place = true;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            cli_usage_error("convert", "unknown option '%s'", argv[i]);
            return CLI_EXIT_USAGE;
        } else if (!map_path) {
            map_path = argv[i];
        } else {
            cli_usage_error("convert", "one map at a time ('%s' is extra)", argv[i]);
            return CLI_EXIT_USAGE;
        }
    }
    if (!map_path) {
        cli_usage_error("convert", "missing MAP");
        return CLI_EXIT_USAGE;
    }
    if (cli_check_output("convert", map_path, &out, in_place) != 0)
        return CLI_EXIT_USAGE;
    bspkit_map *map;
    if (cli_open_map(map_path, &map) != 0)
        return CLI_EXIT_UNREADABLE;
    bspkit_error err;
    bspkit_edit *e = NULL;
    int rc;
    if (bspkit_edit_new(map, &e, &err) != BSPKIT_OK) {
        cli_report_error(map_path, &err);
        rc = CLI_EXIT_UNREADABLE;
    } else {
        rc = cli_save_edit(e, out, &opts);
    }
    bspkit_edit_free(e);
    bspkit_close(map);
    return rc;
}
