/* bspkit export: map geometry to glTF 2.0 (.glb / .gltf + .bin) or OBJ. */
#include "cli.h"

#include "bspkit/export.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cmd_export_help(FILE *out)
{
    fprintf(out,
            "usage: bspkit export MAP -o OUT.glb|OUT.gltf|OUT.obj [options]\n"
            "\n"
            "Write the map's brush geometry (world and every brush model, with Source\n"
            "displacements) as triangles grouped per texture, one material per texture\n"
            "name, with normals and texture coordinates, the texture images as PNG and\n"
            "the lightmaps packed into one atlas image.\n"
            "\n"
            "glTF (.glb, or .gltf with a .bin beside it): Y-up, metres; a map point\n"
            "(x, y, z) becomes (x, z, -y) * 0.0254 unless --scale is given. One node per\n"
            "model: \"worldspawn\", and brush entities named by targetname (else\n"
            "classname) plus \"*N\", placed by the entity's origin (and, in Source maps,\n"
            "its angles). Point entities and Source static props become empty nodes with\n"
            "their position and rotation. Entity key/values are in each node's extras\n"
            "(a repeated key holds an array of its values); prop nodes carry model,\n"
            "skin, solid, flags and fade distances.\n"
            "Images: .glb embeds them; .gltf writes them into the folder OUT_images\n"
            "beside it. Each material's texture is its base colour texture (cut-out\n"
            "'{' textures use alpha mask); a texture that is not found keeps a flat\n"
            "colour. Lightmaps: the atlas is the texture named \"lightmap\", read\n"
            "through the second texture coordinate set (TEXCOORD_1); glTF has no\n"
            "lightmap slot, so each lit material names it in\n"
            "extras.lightmap = {\"index\": TEXTURE, \"texCoord\": 1}.\n"
            "\n"
            "OBJ (.obj with a .mtl beside it): map axes and units, each brush model\n"
            "moved to its entity's place; --obj-y-up converts axes as glTF does. Texture\n"
            "PNGs go in OUT_images, named by map_Kd; with --bake-lightmaps the texture\n"
            "coordinates are the lightmap's and every material shows the atlas.\n"
            "\n"
            "options:\n"
            "  -o FILE          output file; the extension selects the format\n"
            "  --scale S        multiply positions by S (glTF default 0.0254, OBJ 1)\n"
            "  --keep LIST      include faces that are left out by default, comma-separated:\n"
            "                   tool (clip, skip, hint, origin, trigger, nodraw, null,\n"
            "                   aaatrigger, tools/*, and Source hint/skip/trigger\n"
            "                   surfaces), sky, trigger (trigger_* entities), nodraw\n"
            "                   (Source SURF_NODRAW), all, none; without it none of\n"
            "                   these faces is exported\n"
            "  --skip LIST      leave out faces of these kinds (same names) even when\n"
            "                   --keep names them\n"
            "  --no-textures    do not write texture images\n"
            "  --no-lightmaps   no lightmap atlas and no second texture coordinate set\n"
            "  --hdr            Source: lightmap atlas from the HDR lighting\n"
            "  --bake-lightmaps OBJ: lightmap coordinates and the atlas as colour map\n"
            "  --obj-y-up       OBJ: convert to Y-up\n"
            "  --wad PATH       directory or WAD file searched for the WADs named by\n"
            "                   worldspawn's \"wad\" key (may be repeated)\n"
            "  -j, --jobs N     encode the images on N threads (default: one per CPU);\n"
            "                   the output is the same for any N\n"
            "  --json           print the export statistics as JSON\n"
            "  -h, --help       show this help\n"
            "\n"
            "exit codes:\n"
            "  0   exported\n"
            "  1   the map's geometry is malformed (the error names the lump and offset)\n"
            "  2   the map could not be read or the output could not be written\n"
            "  64  usage error\n");
}

/* A comma list of face kinds (--keep or --skip) into BSPKIT_SKIP_* flags. */
static int parse_kinds(const char *option, const char *list, uint32_t *kinds)
{
    static const struct { const char *name; uint32_t bit; } NAMES[] = {
        {"tool", BSPKIT_SKIP_TOOL}, {"sky", BSPKIT_SKIP_SKY}, {"trigger", BSPKIT_SKIP_TRIGGER},
        {"nodraw", BSPKIT_SKIP_NODRAW},
        {"all", BSPKIT_SKIP_ALL}, {"none", 0}};
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ",");
        size_t i = 0;
        for (; i < sizeof NAMES / sizeof NAMES[0]; i++)
            if (strlen(NAMES[i].name) == n && strncmp(p, NAMES[i].name, n) == 0)
                break;
        if (i == sizeof NAMES / sizeof NAMES[0]) {
            cli_usage_error("export", "unknown %s kind '%.*s' (tool, sky, trigger, nodraw, all, none)", option, (int)n,
                            p);
            return -1;
        }
        *kinds |= NAMES[i].bit;
        p += n;
        if (*p == ',')
            p++;
    }
    return 0;
}

static int print_stats(const char *map_path, const char *out, const bspkit_export_stats *s, bool json)
{
    if (!json) {
        printf("%s -> %s: %zu %s, %zu %s (%zu %s), %zu %s, %zu vertices, %zu %s, %zu %s, %zu %s, "
               "%zu missing %s, %zu bytes\n",
               map_path, out, s->nodes, cli_plural(s->nodes, "node", "nodes"), s->faces,
               cli_plural(s->faces, "face", "faces"), s->displacements,
               cli_plural(s->displacements, "displacement", "displacements"), s->triangles,
               cli_plural(s->triangles, "triangle", "triangles"), s->vertices, s->materials,
               cli_plural(s->materials, "material", "materials"), s->props, cli_plural(s->props, "prop", "props"),
               s->images, cli_plural(s->images, "image", "images"), s->missing_textures,
               cli_plural(s->missing_textures, "texture", "textures"), s->bytes_written);
        return cli_finish_output() == 0 ? CLI_EXIT_OK : CLI_EXIT_UNREADABLE;
    }
    json_t *o = json_object();
    const struct { const char *key; size_t value; } rows[] = {
        {"nodes", s->nodes}, {"faces", s->faces}, {"triangles", s->triangles}, {"vertices", s->vertices},
        {"displacements", s->displacements}, {"materials", s->materials}, {"images", s->images},
        {"missing_textures", s->missing_textures}, {"props", s->props}, {"bytes_written", s->bytes_written}};
    bool ok = cli_json_set(o, "map", cli_json_string(map_path)) && cli_json_set(o, "output", cli_json_string(out));
    for (size_t i = 0; ok && i < sizeof rows / sizeof rows[0]; i++)
        ok = cli_json_set(o, rows[i].key, json_integer((json_int_t)rows[i].value));
    if (!ok) {
        json_decref(o);
        o = NULL;
    }
    return cli_print_json(o);
}

int cmd_export(int argc, char **argv)
{
    const char *out = NULL, *map_path = NULL;
    bspkit_export_options opts = {0};
    bool json = false;
    const char **wads = calloc((size_t)argc, sizeof *wads);
    if (!wads)
        return CLI_EXIT_UNREADABLE;
    int rc = CLI_EXIT_USAGE;
    const cli_media_opts media = {&out, wads, &opts.wad_path_count, &opts.no_textures, &opts.no_lightmaps,
                                  &opts.lightmap_hdr};
    for (int i = 1; i < argc; i++) {
        const char *v;
        int m;
        if ((m = cli_media_option("export", argc, argv, &i, &media)) != 0) {
            if (m < 0)
                goto done;
        } else if ((m = cli_option_value(argc, argv, &i, "--scale", &v)) != 0) {
            char *end;
            double s = m > 0 ? strtod(v, &end) : 0;
            if (m < 0 || end == v || *end != '\0' || !isfinite(s) || s <= 0) {
                cli_usage_error("export", "--scale needs a positive number");
                goto done;
            }
            opts.scale = s;
        } else if ((m = cli_option_value(argc, argv, &i, "--skip", &v)) != 0) {
            if (m < 0) {
                cli_usage_error("export", "--skip needs a list (tool,sky,trigger,nodraw)");
                goto done;
            }
            if (parse_kinds("--skip", v, &opts.skip) != 0)
                goto done;
        } else if ((m = cli_option_value(argc, argv, &i, "--keep", &v)) != 0) {
            if (m < 0) {
                cli_usage_error("export", "--keep needs a list (tool,sky,trigger,nodraw)");
                goto done;
            }
            if (parse_kinds("--keep", v, &opts.keep) != 0)
                goto done;
        } else if ((m = cli_jobs_option("export", argc, argv, &i, &opts.threads)) != 0) {
            if (m < 0)
                goto done;
        } else if (strcmp(argv[i], "--bake-lightmaps") == 0) {
            opts.obj_bake_lightmaps = true;
        } else if (strcmp(argv[i], "--obj-y-up") == 0) {
            opts.obj_y_up = true;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            cli_usage_error("export", "unknown option '%s'", argv[i]);
            goto done;
        } else if (map_path) {
            cli_usage_error("export", "expected one MAP, got '%s' too", argv[i]);
            goto done;
        } else {
            map_path = argv[i];
        }
    }
    if (!map_path || !out) {
        cli_usage_error("export", !map_path ? "expected a MAP" : "-o OUT.glb|OUT.gltf|OUT.obj is required");
        goto done;
    }
    opts.wad_paths = wads;
    bspkit_export_stats stats;
    bspkit_error err;
    bspkit_map *map;
    if (cli_open_map(map_path, &map) != 0) {
        rc = CLI_EXIT_UNREADABLE;
        goto done;
    }
    cli_warn_entities(map_path, map);
    bspkit_result r = bspkit_export(map, out, &opts, &stats, &err);
    if (r == BSPKIT_OK) {
        rc = print_stats(map_path, out, &stats, json);
    } else if (r == BSPKIT_ERR_ARGUMENT) {
        cli_usage_error("export", "%s", err.message);
    } else {
        bool write_failed = r == BSPKIT_ERR_IO;
        cli_report_error(write_failed ? out : map_path, &err);
        rc = write_failed || r == BSPKIT_ERR_NOMEM ? CLI_EXIT_UNREADABLE : CLI_EXIT_INVALID;
    }
    bspkit_close(map);
done:
    free(wads);
    return rc;
}
