/* bspkit lightmap: pack a map's lightmaps into one PNG atlas, optionally
 * with a JSON description of where each face lies. */
#include "cli.h"
#include "bspkit/atlas.h"
#include "bspkit/lighting.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void cmd_lightmap_help(FILE *out)
{
    fprintf(out,
            "usage: bspkit lightmap MAP -o ATLAS.png [--json FACES.json] [--hdr] [--style N]\n"
            "                       [--max-width N] [--padding N]\n"
            "\n"
            "Pack every lit face's lightmap into one RGB image (PNG).\n"
            "\n"
            "options:\n"
            "  -o, --output FILE  the PNG to write (required)\n"
            "  --json FILE        also write a JSON description of the atlas ('-' prints it\n"
            "                     on stdout instead of the summary line)\n"
            "  --hdr              Source: use the HDR lighting (used anyway when the map\n"
            "                     has no LDR lighting); ignored for Quake and GoldSrc\n"
            "  --style N          which style slot of each face, 0..3 (default 0); faces\n"
            "                     with fewer styles are left out\n"
            "  --max-width N      atlas width limit in luxels, 1..32768 (default 4096)\n"
            "  --padding N        border luxels around each face, 1..64 (default 1),\n"
            "                     repeating the face's edge luxels\n"
            "  -h, --help         show this help\n"
            "\n"
            "Quake lightmaps are grey (R = G = B) unless the map carries BSPX\n"
            "RGBLIGHTING; GoldSrc lightmaps are copied; Source ColorRGBExp32 samples\n"
            "become linear light c * 2^exp / 255, clamped to 1 and encoded with gamma\n"
            "1/2.2. Bump-mapped Source faces show their first (flat) sample set.\n"
            "\n"
            "The summary line gives the atlas size, faces placed, lit and in the map,\n"
            "and the occupancy: the share of the atlas covered by face luxels, without\n"
            "and with their padding.\n"
            "\n"
            "JSON keys: file, image, width, height, hdr, style, padding, faces_total,\n"
            "faces_lit, faces_placed, luxels (face luxels placed), occupancy (0..1),\n"
            "occupancy_padded (0..1, padding counted),\n"
            "faces: [{face, x, y, width, height, styles}] for placed faces, x and y\n"
            "being the top-left luxel of the face inside its padding.\n"
            "\n"
            "exit codes:\n"
            "  0   success\n"
            "  1   the atlas could not be built from the map (limits, broken lumps)\n"
            "  2   the map could not be read, or an output could not be written\n"
            "  64  usage error\n");
}

typedef struct lm_args {
    const char *file, *png, *json;
    bspkit_atlas_options opts;
} lm_args;

/* Parses a numeric option value into `*out` (1..max); prints the usage error otherwise. */
static int number_option(const char *name, const char *value, uint64_t min, uint64_t max, uint32_t *out)
{
    uint64_t v;
    if (cli_parse_count(value, max, &v) != 0 || v < min) {
        cli_usage_error("lightmap", "%s needs a number %" PRIu64 "..%" PRIu64 ", got '%s'", name, min, max, value);
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

static int parse_args(int argc, char **argv, lm_args *a)
{
    memset(a, 0, sizeof *a);
    bool options_done = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = NULL;
        int m = 0;
        if (!options_done && strcmp(arg, "--") == 0) {
            options_done = true;
            continue;
        }
        if (!options_done && strcmp(arg, "--hdr") == 0) {
            a->opts.hdr = true;
            continue;
        }
        static const char *const valued[] = {"-o", "--output", "--json", "--style", "--max-width", "--padding"};
        size_t which = 0;
        for (; !options_done && which < sizeof valued / sizeof valued[0]; which++)
            if ((m = cli_option_value(argc, argv, &i, valued[which], &value)) != 0)
                break;
        if (m < 0) {
            cli_usage_error("lightmap", "%s needs a value", arg);
            return -1;
        }
        if (m > 0) {
            int bad = 0;
            if (which <= 1)
                a->png = value;
            else if (which == 2)
                a->json = value;
            else if (which == 3)
                bad = number_option("--style", value, 0, 3, &a->opts.style);
            else if (which == 4)
                bad = number_option("--max-width", value, 1, 32768, &a->opts.max_width);
            else
                bad = number_option("--padding", value, 1, 64, &a->opts.padding);
            if (bad)
                return -1;
        } else if (!options_done && arg[0] == '-' && arg[1] != '\0') {
            cli_usage_error("lightmap", "unknown option '%s'", arg);
            return -1;
        } else if (a->file == NULL) {
            a->file = arg;
        } else {
            cli_usage_error("lightmap", "expects one map file, got '%s' and '%s'", a->file, arg);
            return -1;
        }
    }
    if (a->file == NULL || a->png == NULL) {
        cli_usage_error("lightmap", a->file == NULL ? "missing map file" : "missing -o ATLAS.png");
        return -1;
    }
    return 0;
}

/* Figures for the summary and the JSON. */
typedef struct lm_stats {
    size_t total, lit, placed;
    uint64_t luxels;
    double occupancy, padded; /* shares of the atlas: face luxels, and face luxels with padding */
} lm_stats;

static json_t *describe(const lm_args *a, const bspkit_lightmap_atlas *at, const bspkit_face_lightmap *lm,
                        const lm_stats *st)
{
    json_t *root = json_object(), *faces = json_array();
    uint32_t pad = a->opts.padding ? a->opts.padding : 1;
    bool ok = cli_json_set(root, "file", cli_json_string(a->file)) &&
              cli_json_set(root, "image", cli_json_string(a->png)) &&
              cli_json_set(root, "width", json_integer(at->image.width)) &&
              cli_json_set(root, "height", json_integer(at->image.height)) &&
              cli_json_set(root, "hdr", json_boolean(at->hdr)) && cli_json_set(root, "style", json_integer(a->opts.style)) &&
              cli_json_set(root, "padding", json_integer(pad)) &&
              cli_json_set(root, "faces_total", json_integer((json_int_t)st->total)) &&
              cli_json_set(root, "faces_lit", json_integer((json_int_t)st->lit)) &&
              cli_json_set(root, "faces_placed", json_integer((json_int_t)st->placed)) &&
              cli_json_set(root, "luxels", json_integer((json_int_t)st->luxels)) &&
              cli_json_set(root, "occupancy", json_real(st->occupancy)) &&
              cli_json_set(root, "occupancy_padded", json_real(st->padded));
    for (size_t i = 0; ok && i < at->rect_count; i++) {
        const bspkit_atlas_rect *r = &at->rects[i];
        if (!r->placed)
            continue;
        json_t *f = json_object();
        ok = cli_json_set(f, "face", json_integer((json_int_t)i)) && cli_json_set(f, "x", json_integer(r->x)) &&
             cli_json_set(f, "y", json_integer(r->y)) && cli_json_set(f, "width", json_integer(r->width)) &&
             cli_json_set(f, "height", json_integer(r->height)) &&
             cli_json_set(f, "styles", json_integer(i < st->total ? lm[i].styles : 0)) && json_array_append_new(faces, f) == 0;
        if (!ok)
            json_decref(f);
    }
    if (!ok || !cli_json_set(root, "faces", faces)) {
        if (!ok)
            json_decref(faces);
        json_decref(root);
        return NULL;
    }
    return root;
}

static int write_json(const lm_args *a, json_t *root)
{
    if (root == NULL) {
        fprintf(stderr, "bspkit: out of memory\n");
        return CLI_EXIT_UNREADABLE;
    }
    if (strcmp(a->json, "-") == 0)
        return cli_print_json(root);
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (text == NULL) {
        fprintf(stderr, "bspkit: out of memory\n");
        return CLI_EXIT_UNREADABLE;
    }
    size_t len = strlen(text);
    text[len] = '\n'; /* replaces the NUL: the file ends in a newline */
    bspkit_error err;
    bspkit_result r = bspkit_save_file(a->json, text, len + 1, &err);
    free(text);
    if (r != BSPKIT_OK) {
        cli_report_error(a->json, &err);
        return CLI_EXIT_UNREADABLE;
    }
    return CLI_EXIT_OK;
}

int cmd_lightmap(int argc, char **argv)
{
    lm_args a;
    if (parse_args(argc, argv, &a) != 0)
        return CLI_EXIT_USAGE;
    bspkit_map *map;
    if (cli_open_map(a.file, &map) != 0)
        return CLI_EXIT_UNREADABLE;
    bspkit_lightmap_atlas at;
    bspkit_error err;
    const bspkit_face_lightmap *lm = NULL;
    lm_stats st = {0};
    if (bspkit_lightmap_atlas_build(map, &a.opts, &at, &err) != BSPKIT_OK ||
        bspkit_get_face_lightmaps(map, at.hdr, &lm, &st.total, &err) != BSPKIT_OK) {
        cli_report_error(a.file, &err);
        bspkit_lightmap_atlas_free(&at);
        bspkit_close(map);
        return CLI_EXIT_INVALID;
    }
    for (size_t i = 0; i < st.total; i++)
        st.lit += lm[i].lit;
    uint64_t pad = a.opts.padding ? a.opts.padding : 1, padded = 0;
    for (size_t i = 0; i < at.rect_count; i++) {
        const bspkit_atlas_rect *r = &at.rects[i];
        if (r->placed) {
            st.placed++;
            st.luxels += (uint64_t)r->width * r->height;
            padded += (r->width + 2 * pad) * (r->height + 2 * pad);
        }
    }
    double pixels = (double)at.image.width * at.image.height;
    st.occupancy = (double)st.luxels / pixels;
    st.padded = (double)padded / pixels;

    int status = CLI_EXIT_OK;
    if (bspkit_image_write_png(&at.image, a.png, &err) != BSPKIT_OK) {
        cli_report_error(a.png, &err);
        status = CLI_EXIT_UNREADABLE;
    }
    if (status == CLI_EXIT_OK && a.json)
        status = write_json(&a, describe(&a, &at, lm, &st));
    if (status == CLI_EXIT_OK && !(a.json && strcmp(a.json, "-") == 0))
        printf("%s: %" PRIu32 "x%" PRIu32 " luxels, %zu of %zu lit %s placed (%zu %s), %.1f%% occupied "
               "(%.1f%% with padding)%s\n",
               a.png, at.image.width, at.image.height, st.placed, st.lit, cli_plural(st.lit, "face", "faces"), st.total,
               cli_plural(st.total, "face", "faces"), 100.0 * st.occupancy, 100.0 * st.padded, at.hdr ? ", HDR" : "");
    bspkit_lightmap_atlas_free(&at);
    bspkit_close(map);
    if (cli_finish_output() != 0)
        return CLI_EXIT_UNREADABLE;
    return status;
}
