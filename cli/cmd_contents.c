/* bspkit contents: the contents of a point in one collision hull, with the
 * value decoded to names. Also holds the point and contents helpers that
 * 'bspkit vis' shares. */
#include "cli.h"
#include "bspkit/query.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void cmd_contents_help(FILE *out)
{
    fprintf(out,
            "usage: bspkit contents MAP X Y Z [--hull N] [--model N] [--json]\n"
            "\n"
            "Print the contents of the point (X, Y, Z) in map units.\n"
            "\n"
            "options:\n"
            "  --hull N    collision hull: 0 (default, point size); Quake 1-2 and\n"
            "              GoldSrc 1-3 walk the clip hulls, the world grown by the\n"
            "              player boxes, so the point is a box centre there.\n"
            "              Source maps have hull 0 only.\n"
            "  --model N   walk the tree of brush model N instead of the world (0)\n"
            "  --json      print one JSON object instead of text\n"
            "  -h, --help  show this help\n"
            "\n"
            "Quake/GoldSrc contents are one value: -1 EMPTY, -2 SOLID, -3 WATER,\n"
            "-4 SLIME, -5 LAVA, -6 SKY, -7 ORIGIN, -8 CLIP, -9..-14 CURRENT_*,\n"
            "-15 TRANSLUCENT, -16 LADDER. Source contents are CONTENTS_* bits: the\n"
            "OR of the leaf's brushes that hold the point, or the leaf's own\n"
            "contents when none does. Coordinates may be negative (-64 is a number,\n"
            "not an option).\n"
            "\n"
            "Text output: file, point, model, hull, leaf (hull 0), contents as a\n"
            "number (Source also in hex) followed by its names.\n"
            "JSON output keys: file, format, point [x, y, z], model, hull, leaf\n"
            "(null for clip hulls), contents, names (array of strings).\n"
            "\n"
            "exit codes:\n"
            "  0   success\n"
            "  1   the map's tree is broken (bad index, cycle) where the point leads\n"
            "  2   the file could not be read or is not a supported map\n"
            "  64  usage error (also a hull or model the map does not have)\n");
}

bool cli_is_number_arg(const char *arg)
{
    return arg[0] == '-' && ((arg[1] >= '0' && arg[1] <= '9') || arg[1] == '.');
}

int cli_parse_point(const char *command, char *const text[3], bspkit_vec3 *out)
{
    float v[3];
    for (int i = 0; i < 3; i++) {
        char *end;
        errno = 0;
        double d = strtod(text[i], &end);
        if (text[i][0] == '\0' || *end != '\0' || errno == ERANGE || !isfinite(d) || fabs(d) > 3.0e38) {
            cli_usage_error(command, "'%s' is not a coordinate", text[i]);
            return -1;
        }
        v[i] = (float)d;
    }
    *out = (bspkit_vec3){v[0], v[1], v[2]};
    return 0;
}

json_t *cli_contents_names(bspkit_family family, int32_t contents)
{
    char buf[512];
    bspkit_contents_describe(family, contents, buf, sizeof buf);
    json_t *names = json_array();
    for (char *p = buf; names && *p;) {
        char *bar = strchr(p, '|');
        if (bar)
            *bar = '\0';
        if (json_array_append_new(names, json_string(p)) != 0) {
            json_decref(names);
            return NULL;
        }
        p = bar ? bar + 1 : p + strlen(p);
    }
    return names;
}

void cli_print_contents(const char *label, bspkit_family family, int32_t contents)
{
    char buf[512];
    bspkit_contents_describe(family, contents, buf, sizeof buf);
    if (family == BSPKIT_FAMILY_SOURCE || family == BSPKIT_FAMILY_QUAKE2 || family == BSPKIT_FAMILY_QUAKE3) /* bit flags */
        printf("%-10s%" PRId32 " (0x%08" PRIx32 ") %s\n", label, contents, (uint32_t)contents, buf);
    else
        printf("%-10s%" PRId32 " %s\n", label, contents, buf);
}

int cli_query_open(const char *command, const char *file, char *const *coords, bspkit_vec3 *point,
                   bspkit_map **map)
{
    if (coords && cli_parse_point(command, coords, point) != 0)
        return CLI_EXIT_USAGE;
    return cli_open_map(file, map) != 0 ? CLI_EXIT_UNREADABLE : CLI_EXIT_OK;
}

int cli_query_status(const char *file, const bspkit_error *err)
{
    cli_report_error(file, err);
    return err->code == BSPKIT_ERR_ARGUMENT ? CLI_EXIT_USAGE : CLI_EXIT_INVALID;
}

int cli_print_json(json_t *root)
{
    if (root == NULL) {
        fprintf(stderr, "bspkit: out of memory\n");
        return CLI_EXIT_UNREADABLE;
    }
    int status = CLI_EXIT_OK;
    if (json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
        status = CLI_EXIT_UNREADABLE;
    else
        fputc('\n', stdout);
    json_decref(root);
    return status;
}

bool cli_json_set(json_t *obj, const char *key, json_t *value)
{
    return obj != NULL && value != NULL && json_object_set_new(obj, key, value) == 0;
}

json_t *cli_json_point(bspkit_vec3 p)
{
    return json_pack("[f, f, f]", (double)p.x, (double)p.y, (double)p.z);
}

int cmd_contents(int argc, char **argv)
{
    const char *file = NULL;
    char *coords[3];
    int ncoords = 0;
    bool json = false, options_done = false;
    uint64_t hull = 0, model = 0;

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = NULL;
        int m;
        if (!options_done && strcmp(arg, "--") == 0) {
            options_done = true;
        } else if (!options_done && strcmp(arg, "--json") == 0) {
            json = true;
        } else if (!options_done && (m = cli_option_value(argc, argv, &i, "--hull", &value)) != 0) {
            if (m < 0 || cli_parse_count(value, 3, &hull) != 0) {
                cli_usage_error("contents", "--hull needs a hull number 0-3");
                return CLI_EXIT_USAGE;
            }
        } else if (!options_done && (m = cli_option_value(argc, argv, &i, "--model", &value)) != 0) {
            if (m < 0 || cli_parse_count(value, INT32_MAX, &model) != 0) {
                cli_usage_error("contents", "--model needs a model index");
                return CLI_EXIT_USAGE;
            }
        } else if (!options_done && arg[0] == '-' && arg[1] != '\0' && !cli_is_number_arg(arg)) {
            cli_usage_error("contents", "unknown option '%s'", arg);
            return CLI_EXIT_USAGE;
        } else if (file == NULL) {
            file = arg;
        } else if (ncoords < 3) {
            coords[ncoords++] = argv[i];
        } else {
            cli_usage_error("contents", "unexpected argument '%s'", arg);
            return CLI_EXIT_USAGE;
        }
    }
    if (file == NULL || ncoords < 3) {
        cli_usage_error("contents", file ? "expects three coordinates X Y Z" : "missing map file");
        return CLI_EXIT_USAGE;
    }
    bspkit_vec3 p;
    bspkit_map *map;
    int opened = cli_query_open("contents", file, coords, &p, &map);
    if (opened != CLI_EXIT_OK)
        return opened;
    bspkit_family family = bspkit_map_format(map)->family;
    bspkit_error err;
    int32_t contents;
    uint32_t leaf = 0;
    if (bspkit_point_contents_model(map, (int)model, p, (int)hull, &contents, &err) != BSPKIT_OK ||
        (hull == 0 && bspkit_point_leaf(map, (int)model, p, &leaf, &err) != BSPKIT_OK)) {
        int status = cli_query_status(file, &err);
        bspkit_close(map);
        return status;
    }
    bspkit_close(map);

    int status = CLI_EXIT_OK;
    if (json) {
        json_t *root = json_object();
        bool ok = cli_json_set(root, "file", cli_json_string(file)) && cli_json_set(root, "format", json_string(bspkit_family_name(family))) &&
                  cli_json_set(root, "point", cli_json_point(p)) && cli_json_set(root, "model", json_integer((json_int_t)model)) &&
                  cli_json_set(root, "hull", json_integer((json_int_t)hull)) &&
                  cli_json_set(root, "leaf", hull == 0 ? json_integer(leaf) : json_null()) &&
                  cli_json_set(root, "contents", json_integer(contents)) &&
                  cli_json_set(root, "names", cli_contents_names(family, contents));
        if (!ok) {
            json_decref(root);
            root = NULL;
        }
        status = cli_print_json(root);
    } else {
        printf("%-10s%s\n", "file:", file);
        printf("%-10s%g %g %g\n", "point:", (double)p.x, (double)p.y, (double)p.z);
        printf("%-10s%" PRIu64 "\n", "model:", model);
        printf("%-10s%" PRIu64 "\n", "hull:", hull);
        if (hull == 0)
            printf("%-10s%" PRIu32 "\n", "leaf:", leaf);
        cli_print_contents("contents:", family, contents);
    }
    if (cli_finish_output() != 0)
        return CLI_EXIT_UNREADABLE;
    return status;
}
