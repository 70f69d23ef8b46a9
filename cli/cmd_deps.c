/* bspkit deps: the materials, textures, models, sounds, sprites, particles
 * and WADs a map needs, and whether each is in the map, in a game directory
 * or missing. */
#include "cli.h"
#include "bspkit/deps.h"

#include <stdlib.h>
#include <string.h>

void cmd_deps_help(FILE *out)
{
    fprintf(out,
            "usage: bspkit deps MAP [--game DIR]... [--json] [--missing]\n"
            "\n"
            "List the files a map needs beside itself and where each one is: in the map\n"
            "(Source pakfile, GoldSrc embedded texture), in a game directory (a loose file,\n"
            "a WAD, or an entry of a *_dir.vpk archive there), or missing.\n"
            "\n"
            "Source: materials of the texture data, overlays, decals and the six sky faces\n"
            "(worldspawn skyname), each material read where it is found (pakfile, loose\n"
            "file or VPK archive) and followed: its texture parameters ($basetexture,\n"
            "$bumpmap, $detail, ...) and the materials it includes; models of static props\n"
            "and entities with their .vvd and .dx90.vtx (and .phy, .dx80.vtx, .sw.vtx, .vtx\n"
            "when present); sounds of\n"
            "ambient_generic and of soundscapes packed in the pakfile; particle files named\n"
            "by particle manifests in the pakfile.\n"
            "GoldSrc: the WADs of worldspawn \"wad\", textures not embedded (found in those\n"
            "WADs or missing), models, sprites and sounds of entities.\n"
            "\n"
            "options:\n"
            "  --game DIR  a game directory to search (repeatable, searched in order: loose\n"
            "              files first, then the VPK directory archives)\n"
            "  --json      print one JSON object instead of text\n"
            "  --missing   list only what is missing\n"
            "  -h, --help  show this help\n"
            "\n"
            "JSON output keys: file, count, in_map, in_game, missing, deps (kind: material,\n"
            "texture, model, sound, sprite, particle or wad; path; where: map, game or\n"
            "missing; location: pakfile entry, file or archive, or null; referrer).\n"
            "\n"
            "exit codes:\n"
            "  0   nothing is missing\n"
            "  1   something is missing\n"
            "  2   the file could not be read, or is not a Source or GoldSrc map\n"
            "  64  usage error\n");
}

static json_t *deps_json(const char *file, const bspkit_deps *d, bool only_missing)
{
    json_t *root = json_object(), *list = json_array();
    bool ok = root && list && cli_json_set(root, "file", cli_json_string(file)) &&
              cli_json_set(root, "count", json_integer((json_int_t)d->count)) &&
              cli_json_set(root, "in_map", json_integer((json_int_t)d->in_map)) &&
              cli_json_set(root, "in_game", json_integer((json_int_t)d->in_game)) &&
              cli_json_set(root, "missing", json_integer((json_int_t)d->missing));
    for (size_t i = 0; ok && i < d->count; i++) {
        const bspkit_dep *x = &d->items[i];
        if (only_missing && x->where != BSPKIT_DEP_MISSING)
            continue;
        json_t *o = json_object();
        ok = o && json_array_append_new(list, o) == 0 &&
             cli_json_set(o, "kind", json_string(bspkit_dep_kind_name(x->kind))) &&
             cli_json_set(o, "path", cli_json_string(x->path)) &&
             cli_json_set(o, "where", json_string(bspkit_dep_where_name(x->where))) &&
             cli_json_set(o, "location", x->location ? cli_json_string(x->location) : json_null()) &&
             cli_json_set(o, "referrer", cli_json_string(x->referrer ? x->referrer : ""));
    }
    ok = ok && cli_json_set(root, "deps", list);
    if (!ok) {
        if (!root || !json_object_get(root, "deps"))
            json_decref(list);
        json_decref(root);
        return NULL;
    }
    return root;
}

static void print_text(const char *file, const bspkit_deps *d, bool only_missing)
{
    printf("file: %s\n", file);
    for (size_t i = 0; i < d->count; i++) {
        const bspkit_dep *x = &d->items[i];
        if (only_missing && x->where != BSPKIT_DEP_MISSING)
            continue;
        printf("%-8s %-9s %s", bspkit_dep_where_name(x->where), bspkit_dep_kind_name(x->kind), x->path);
        if (x->location)
            printf("  [%s]", x->location);
        if (x->where == BSPKIT_DEP_MISSING && x->referrer)
            printf("  (from %s)", x->referrer);
        printf("\n");
    }
    printf("%zu %s: %zu in the map, %zu in the game, %zu missing\n", d->count,
           cli_plural(d->count, "dependency", "dependencies"), d->in_map, d->in_game, d->missing);
}

int cmd_deps(int argc, char **argv)
{
    const char *file = NULL;
    bool json = false, only_missing = false;
    const char **games = calloc((size_t)argc, sizeof *games);
    size_t ngames = 0;
    if (!games) {
        fprintf(stderr, "bspkit: out of memory\n");
        return CLI_EXIT_UNREADABLE;
    }
    int status = CLI_EXIT_OK;
    for (int i = 1; i < argc && status == CLI_EXIT_OK; i++) {
        const char *v;
        int m = cli_option_value(argc, argv, &i, "--game", &v);
        if (m < 0) {
            cli_usage_error("deps", "--game needs a directory");
            status = CLI_EXIT_USAGE;
        } else if (m > 0) {
            games[ngames++] = v;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--missing") == 0) {
            only_missing = true;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            cli_usage_error("deps", "unknown option '%s'", argv[i]);
            status = CLI_EXIT_USAGE;
        } else if (!file) {
            file = argv[i];
        } else {
            cli_usage_error("deps", "expected one map, got a second: '%s'", argv[i]);
            status = CLI_EXIT_USAGE;
        }
    }
    if (status == CLI_EXIT_OK && !file) {
        cli_usage_error("deps", "expected a map");
        status = CLI_EXIT_USAGE;
    }
    bspkit_map *map = NULL;
    if (status == CLI_EXIT_OK && cli_open_map(file, &map) != 0)
        status = CLI_EXIT_UNREADABLE;
    if (status != CLI_EXIT_OK) {
        free(games);
        return status;
    }
    bspkit_deps_options opts = {games, ngames};
    bspkit_deps *d = NULL;
    bspkit_error err;
    if (bspkit_deps_map(map, &opts, &d, &err) != BSPKIT_OK) {
        cli_report_error(file, &err);
        status = CLI_EXIT_UNREADABLE;
    } else {
        if (json)
            status = cli_print_json(deps_json(file, d, only_missing));
        else
            print_text(file, d, only_missing);
        if (status == CLI_EXIT_OK && d->missing)
            status = CLI_EXIT_INVALID;
    }
    bspkit_deps_free(d);
    bspkit_close(map);
    free(games);
    if (cli_finish_output() != 0)
        return CLI_EXIT_UNREADABLE;
    return status;
}
