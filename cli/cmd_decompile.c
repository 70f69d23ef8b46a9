/* bspkit decompile: a map back to an editable source (VMF or Valve 220 .map). */
#include "cli.h"

#include "bspkit/decompile.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

void cmd_decompile_help(FILE *out)
{
    fprintf(out,
            "usage: bspkit decompile MAP -o OUT.vmf|OUT.map [options]\n"
            "\n"
            "Rebuild an editable source from a compiled map.\n"
            "\n"
            "Source maps become a Hammer VMF: brushes from the brush lumps (each side's\n"
            "polygon cut from the brush's planes, bevels left out), materials with the\n"
            "cubemap patch undone, texture axes, lightmap scale and smoothing groups;\n"
            "sides no face lies on get a tool material chosen from the brush contents\n"
            "(clip, player/NPC clip, areaportal, occluder, hint, skip, trigger,\n"
            "invisible, nodraw). World brushes go into the world, detail brushes into\n"
            "func_detail, the others into the brush entity that owns their model.\n"
            "Displacements come back as dispinfo blocks. Entities keep every key/value\n"
            "and their outputs (connections); static props, overlays, cubemaps, area\n"
            "portals and occluders are rebuilt as entities.\n"
            "\n"
            "Quake and GoldSrc maps have no brush lump: convex brushes are rebuilt from\n"
            "each model's BSP tree, cut where one side would show two textures, merged\n"
            "where the union stays convex, and each side takes the texture and\n"
            "alignment of the face on it (a tool texture otherwise). Clip brushes,\n"
            "which only the collision hulls hold, are rebuilt from the smallest player\n"
            "hull (spaces too narrow for a player come back as clip too). The output\n"
            "is a Valve 220 .map for J.A.C.K., Hammer 3.5 and TrenchBroom; the\n"
            "worldspawn \"wad\" key is kept.\n"
            "\n"
            "options:\n"
            "  -o FILE           output file (written to a temporary name, then renamed)\n"
            "  --format vmf|map  output format (default: the extension of OUT, .vmf or\n"
            "                    .map; otherwise VMF for Source, .map for the others).\n"
            "                    A format the map cannot be written as is refused\n"
            "  --no-props        VMF: no prop_static entities\n"
            "  --no-overlays     VMF: no info_overlay entities\n"
            "  --no-cubemaps     VMF: no env_cubemap entities\n"
            "  --no-areaportals  VMF: no func_areaportal(window) brushes\n"
            "  --no-occluders    VMF: no func_occluder brushes\n"
            "  --no-detail       VMF: no func_detail brushes\n"
            "  --no-displacements VMF: no dispinfo blocks (the base brushes stay)\n"
            "  --no-brush-entities  only world brushes\n"
            "  --no-clip         .map: no clip brushes\n"
            "  --no-merge        .map: one brush per BSP leaf, without merging\n"
            "  -j, --jobs N      .map: recover clip brushes on N threads (default: one\n"
            "                    per CPU); the output is the same for any N\n"
            "  --unpack DIR      Source: also extract the embedded pakfile under DIR\n"
            "  --json            print the statistics as JSON\n"
            "  -h, --help        show this help\n"
            "\n"
            "exit codes:\n"
            "  0   decompiled\n"
            "  1   the map's data is malformed (the error names the lump and offset)\n"
            "  2   the map could not be read, the format does not fit the map, or the\n"
            "      output could not be written\n"
            "  64  usage error\n");
}

static const struct {
    const char *option;
    uint32_t bit;
} SKIP_OPTIONS[] = {{"--no-props", BSPKIT_DECOMPILE_NO_PROPS},
                    {"--no-overlays", BSPKIT_DECOMPILE_NO_OVERLAYS},
                    {"--no-cubemaps", BSPKIT_DECOMPILE_NO_CUBEMAPS},
                    {"--no-areaportals", BSPKIT_DECOMPILE_NO_AREAPORTALS},
                    {"--no-occluders", BSPKIT_DECOMPILE_NO_OCCLUDERS},
                    {"--no-detail", BSPKIT_DECOMPILE_NO_DETAIL},
                    {"--no-displacements", BSPKIT_DECOMPILE_NO_DISPLACEMENTS},
                    {"--no-brush-entities", BSPKIT_DECOMPILE_NO_BRUSH_ENTITIES},
                    {"--no-clip", BSPKIT_DECOMPILE_NO_CLIP}};

static int print_stats(const char *map_path, const char *out, const bspkit_decompile_stats *s, bool json,
                       bool unpacked, size_t extracted)
{
    const struct {
        const char *key;
        size_t value;
    } rows[] = {{"brushes", s->brushes},
                {"sides", s->sides},
                {"world_brushes", s->world_brushes},
                {"detail_brushes", s->detail_brushes},
                {"entity_brushes", s->entity_brushes},
                {"tool_sides", s->tool_sides},
                {"skipped_brushes", s->skipped_brushes},
                {"entities", s->entities},
                {"displacements", s->displacements},
                {"props", s->props},
                {"overlays", s->overlays},
                {"cubemaps", s->cubemaps},
                {"leaves", s->leaves},
                {"texture_splits", s->texture_splits},
                {"clip_brushes", s->clip_brushes},
                {"patches", s->patches},
                {"bytes_written", s->bytes_written}};
    if (!json) {
        printf("%s -> %s: %zu %s (%zu world, %zu detail, %zu in entities), %zu %s (%zu with tool materials), "
               "%zu %s, %zu %s, %zu %s, %zu %s, %zu %s, %zu bytes\n",
               map_path, out, s->brushes, cli_plural(s->brushes, "brush", "brushes"), s->world_brushes,
               s->detail_brushes, s->entity_brushes, s->sides, cli_plural(s->sides, "side", "sides"), s->tool_sides,
               s->entities, cli_plural(s->entities, "entity", "entities"), s->displacements,
               cli_plural(s->displacements, "displacement", "displacements"), s->props,
               cli_plural(s->props, "prop", "props"), s->overlays, cli_plural(s->overlays, "overlay", "overlays"),
               s->cubemaps, cli_plural(s->cubemaps, "cubemap", "cubemaps"), s->bytes_written);
        if (s->leaves)
            printf("  %zu BSP %s, cut %zu %s between textures, %zu %s after merging (%zu clip)\n", s->leaves,
                   cli_plural(s->leaves, "leaf", "leaves"), s->texture_splits,
                   cli_plural(s->texture_splits, "time", "times"), s->brushes,
                   cli_plural(s->brushes, "brush", "brushes"), s->clip_brushes);
        if (s->patches)
            printf("  %zu %s\n", s->patches, cli_plural(s->patches, "patch", "patches"));
        if (unpacked)
            printf("  %zu pakfile %s extracted\n", extracted, cli_plural(extracted, "entry", "entries"));
        return cli_finish_output() == 0 ? CLI_EXIT_OK : CLI_EXIT_UNREADABLE;
    }
    json_t *o = json_object();
    bool ok = cli_json_set(o, "map", cli_json_string(map_path)) && cli_json_set(o, "output", cli_json_string(out));
    for (size_t i = 0; ok && i < sizeof rows / sizeof rows[0]; i++)
        ok = cli_json_set(o, rows[i].key, json_integer((json_int_t)rows[i].value));
    if (ok && unpacked)
        ok = cli_json_set(o, "pakfile_entries_extracted", json_integer((json_int_t)extracted));
    if (!ok) {
        json_decref(o);
        o = NULL;
    }
    return cli_print_json(o);
}

int cmd_decompile(int argc, char **argv)
{
    const char *out = NULL, *map_path = NULL, *unpack = NULL;
    bspkit_decompile_options opts = {0};
    bool json = false;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int m;
        size_t k = 0;
        while (k < sizeof SKIP_OPTIONS / sizeof SKIP_OPTIONS[0] && strcmp(argv[i], SKIP_OPTIONS[k].option) != 0)
            k++;
        if (k < sizeof SKIP_OPTIONS / sizeof SKIP_OPTIONS[0]) {
            opts.skip |= SKIP_OPTIONS[k].bit;
        } else if ((m = cli_option_value(argc, argv, &i, "-o", &v)) != 0) {
            if (m < 0) {
                cli_usage_error("decompile", "-o needs a file name");
                return CLI_EXIT_USAGE;
            }
            out = v;
        } else if ((m = cli_option_value(argc, argv, &i, "--format", &v)) != 0) {
            if (m > 0 && strcmp(v, "vmf") == 0) {
                opts.format = BSPKIT_DECOMPILE_VMF;
            } else if (m > 0 && strcmp(v, "map") == 0) {
                opts.format = BSPKIT_DECOMPILE_MAP;
            } else {
                cli_usage_error("decompile", "--format needs vmf or map");
                return CLI_EXIT_USAGE;
            }
        } else if ((m = cli_option_value(argc, argv, &i, "--unpack", &v)) != 0) {
            if (m < 0) {
                cli_usage_error("decompile", "--unpack needs a directory");
                return CLI_EXIT_USAGE;
            }
            unpack = v;
        } else if (strcmp(argv[i], "--no-merge") == 0) {
            opts.no_merge = true;
        } else if ((m = cli_jobs_option("decompile", argc, argv, &i, &opts.threads)) != 0) {
            if (m < 0)
                return CLI_EXIT_USAGE;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            cli_usage_error("decompile", "unknown option '%s'", argv[i]);
            return CLI_EXIT_USAGE;
        } else if (map_path) {
            cli_usage_error("decompile", "expected one MAP, got '%s' too", argv[i]);
            return CLI_EXIT_USAGE;
        } else {
            map_path = argv[i];
        }
    }
    if (!map_path || !out) {
        cli_usage_error("decompile", !map_path ? "expected a MAP" : "-o OUT.vmf|OUT.map is required");
        return CLI_EXIT_USAGE;
    }
    if (cli_same_file(map_path, out)) {
        cli_usage_error("decompile", "-o names the input map; choose another file");
        return CLI_EXIT_USAGE;
    }
    /* Without --format the output's extension decides; the library refuses a
     * format the map's family cannot be written as. */
    if (opts.format == BSPKIT_DECOMPILE_AUTO) {
        const char *dot = strrchr(out, '.');
        if (dot && strchr(dot, '/') == NULL && strcasecmp(dot, ".vmf") == 0)
            opts.format = BSPKIT_DECOMPILE_VMF;
        else if (dot && strchr(dot, '/') == NULL && strcasecmp(dot, ".map") == 0)
            opts.format = BSPKIT_DECOMPILE_MAP;
    }
    bspkit_map *map;
    if (cli_open_map(map_path, &map) != 0)
        return CLI_EXIT_UNREADABLE;
    cli_warn_entities(map_path, map);
    if (unpack && bspkit_map_format(map)->family != BSPKIT_FAMILY_SOURCE) {
        fprintf(stderr, "bspkit: %s: %s has no pakfile; --unpack is for Source maps\n", map_path,
                bspkit_map_format(map)->name);
        bspkit_close(map);
        return CLI_EXIT_UNREADABLE;
    }
    bspkit_decompile_stats stats;
    bspkit_error err;
    int rc;
    bspkit_result r = bspkit_decompile(map, out, &opts, &stats, &err);
    if (r == BSPKIT_OK) {
        size_t extracted = 0;
        rc = unpack ? cli_pak_unpack(map_path, map, unpack, &extracted) : CLI_EXIT_OK;
        int prc = print_stats(map_path, out, &stats, json, unpack != NULL, extracted);
        if (rc == CLI_EXIT_OK)
            rc = prc;
    } else if (r == BSPKIT_ERR_ARGUMENT) {
        cli_usage_error("decompile", "%s", err.message);
        rc = CLI_EXIT_USAGE;
    } else {
        bool write_failed = r == BSPKIT_ERR_IO;
        cli_report_error(write_failed ? out : map_path, &err);
        rc = write_failed || r == BSPKIT_ERR_NOMEM || r == BSPKIT_ERR_UNSUPPORTED ? CLI_EXIT_UNREADABLE
                                                                                  : CLI_EXIT_INVALID;
    }
    bspkit_close(map);
    return rc;
}
