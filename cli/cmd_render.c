/* bspkit render: a picture of the map drawn by the library's software rasterizer. */
#include "cli.h"

#include "bspkit/render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Counter-Strike overview images are 1024 pixels square; scale is map units per pixel of that. */
#define OVERVIEW_SIZE 1024

void cmd_render_help(FILE *out)
{
    fprintf(out,
            "usage: bspkit render MAP -o OUT.png [options]\n"
            "\n"
            "Draw the map's world and brush models as a PNG with bspkit's own software\n"
            "rasterizer (no GPU, no display; the same bytes on every machine): texture\n"
            "colour times lightmap, depth-tested, perspective-correct, 2x2 supersampled.\n"
            "Tool, sky, trigger and nodraw faces are hidden; back faces are culled, so\n"
            "top and iso views look into closed rooms. A texture that is not found is a\n"
            "grey checker.\n"
            "\n"
            "options:\n"
            "  -o FILE             output PNG (written to a temporary name, then renamed)\n"
            "  --view V            spawn (default: the first player spawn's eye), top\n"
            "                      (orthographic, straight down), iso (orthographic from\n"
            "                      yaw 45, pitch 30)\n"
            "  --camera \"X Y Z PITCH YAW FOV\"\n"
            "                      perspective from this eye (degrees; FOV horizontal)\n"
            "  --size WxH          image size (default 1280x720)\n"
            "  --bounds \"X0 Y0 Z0 X1 Y1 Z1\"\n"
            "                      top and iso: the box to fit (default: the world model's)\n"
            "  --supersample N     N x N samples per pixel, 1..4 (default 2)\n"
            "  --overview          Counter-Strike overview pair: a 1024x1024 top view as\n"
            "                      OUT.png and OUT.txt with pos_x, pos_y (map position of\n"
            "                      the image's top-left corner) and scale (map units per\n"
            "                      pixel) as CS:S and CS:GO read them\n"
            "  --sheet             contact sheet: the image split 2 x 2 into the spawn view\n"
            "                      (iso from yaw 135 when the map has no spawn), the top\n"
            "                      view and iso views from yaw 45 and yaw 225\n"
            "  --show-hidden       draw tool, sky, trigger and nodraw faces too\n"
            "  --no-textures       lightmaps on white\n"
            "  --no-lightmaps      textures at full brightness\n"
            "  --hdr               Source: lightmaps from the HDR lighting\n"
            "  --wad PATH          directory or WAD file searched for the WADs named by\n"
            "                      worldspawn's \"wad\" key (may be repeated)\n"
            "  -h, --help          show this help\n"
            "\n"
            "exit codes:\n"
            "  0   rendered\n"
            "  1   the map's geometry is malformed, or it has no player spawn for --view spawn\n"
            "  2   the map could not be read or the output could not be written\n"
            "  64  usage error\n");
}

static int parse_numbers(const char *text, double *out, int n)
{
    const char *p = text;
    for (int i = 0; i < n; i++) {
        char *end;
        out[i] = strtod(p, &end);
        if (end == p || !isfinite(out[i]))
            return -1;
        p = end;
    }
    while (*p == ' ' || *p == '\t' || *p == ',')
        p++;
    return *p ? -1 : 0;
}

static int parse_size(const char *text, uint32_t *w, uint32_t *h)
{
    const char *x = strchr(text, 'x');
    if (!x)
        return -1;
    char buf[32];
    size_t n = (size_t)(x - text);
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, text, n);
    buf[n] = '\0';
    uint64_t a, b;
    if (cli_parse_count(buf, 16384, &a) != 0 || cli_parse_count(x + 1, 16384, &b) != 0 || a == 0 || b == 0)
        return -1;
    *w = (uint32_t)a;
    *h = (uint32_t)b;
    return 0;
}

/* OUT.png -> OUT.txt beside it; malloc'ed. */
static char *overview_txt_path(const char *png)
{
    const char *slash = strrchr(png, '/');
    const char *dot = strrchr(png, '.');
    size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - png) : strlen(png);
    char *s = malloc(stem + 5);
    if (s) {
        memcpy(s, png, stem);
        strcpy(s + stem, ".txt");
    }
    return s;
}

/* The overview's name: the map file's base name without its extension. */
static void map_stem(const char *map_path, char *out, size_t cap)
{
    const char *base = cli_base_name(map_path);
    size_t n = strcspn(base, ".");
    if (n >= cap)
        n = cap - 1;
    for (size_t i = 0; i < n; i++)
        out[i] = base[i] == '"' || (unsigned char)base[i] < 0x20 ? '_' : base[i];
    out[n] = '\0';
}

static int write_overview(const char *map_path, const char *png, const bspkit_render_stats *st)
{
    char name[256];
    map_stem(map_path, name, sizeof name);
    char text[1024];
    int n = snprintf(text, sizeof text,
                     "// overview for %s, written by bspkit render --overview\n"
                     "\"%s\"\n{\n"
                     "\t\"material\"\t\"overviews/%s\"\n"
                     "\t\"pos_x\"\t\t\"%.2f\"\n"
                     "\t\"pos_y\"\t\t\"%.2f\"\n"
                     "\t\"scale\"\t\t\"%.4f\"\n"
                     "\t\"rotate\"\t\"0\"\n"
                     "\t\"zoom\"\t\t\"1\"\n}\n",
                     name, name, name, st->top_left[0], st->top_left[1], st->units_per_pixel);
    char *path = overview_txt_path(png);
    if (!path || n < 0 || (size_t)n >= sizeof text) {
        free(path);
        fprintf(stderr, "bspkit: out of memory\n");
        return CLI_EXIT_UNREADABLE;
    }
    bspkit_error err;
    int rc = CLI_EXIT_OK;
    if (bspkit_save_file(path, text, (size_t)n, &err) != BSPKIT_OK) {
        cli_report_error(path, &err);
        rc = CLI_EXIT_UNREADABLE;
    }
    free(path);
    return rc;
}

/* One tile of a contact sheet: the view rendered at the tile's size and copied into place. */
static bspkit_result sheet_tile(bspkit_map *map, const bspkit_render_options *base, bspkit_render_view view,
                                double iso_yaw, bspkit_image *sheet, uint32_t col, uint32_t row,
                                bspkit_render_stats *st, bspkit_error *err)
{
    bspkit_render_options o = *base;
    o.view = view;
    o.iso_yaw = iso_yaw;
    o.width = sheet->width / 2;
    o.height = sheet->height / 2;
    bspkit_image tile;
    bspkit_result r = bspkit_render(map, &o, &tile, st, err);
    if (r != BSPKIT_OK)
        return r;
    for (uint32_t y = 0; y < tile.height; y++)
        memcpy(sheet->rgba + (((size_t)row * tile.height + y) * sheet->width + (size_t)col * tile.width) * 4,
               tile.rgba + (size_t)y * tile.width * 4, (size_t)tile.width * 4);
    bspkit_image_free(&tile);
    return BSPKIT_OK;
}

/* The 2 x 2 sheet written to `out`; the spawn tile falls back to another iso view. */
static bspkit_result render_sheet(bspkit_map *map, const char *out, const bspkit_render_options *opts,
                                  bspkit_render_stats *st, bspkit_error *err)
{
    uint32_t w = opts->width ? opts->width : 1280, h = opts->height ? opts->height : 720;
    if (w < 2 || h < 2)
        return BSPKIT_ERR_ARGUMENT;
    bspkit_image sheet;
    bspkit_result r = bspkit_image_alloc(&sheet, w, h, err);
    if (r != BSPKIT_OK)
        return r;
    /* Odd sizes leave a last row or column: background colour, opaque. */
    for (size_t i = 0; i < (size_t)w * h; i++)
        memcpy(sheet.rgba + i * 4, "\x20\x20\x28\xff", 4);
    bspkit_render_stats one;
    memset(st, 0, sizeof *st);
    r = sheet_tile(map, opts, BSPKIT_RENDER_SPAWN, 0, &sheet, 0, 0, &one, err);
    if (r == BSPKIT_ERR_NOT_FOUND)
        r = sheet_tile(map, opts, BSPKIT_RENDER_ISO, 135, &sheet, 0, 0, &one, err);
    const struct { bspkit_render_view view; double yaw; uint32_t col, row; } rest[] = {
        {BSPKIT_RENDER_TOP, 0, 1, 0}, {BSPKIT_RENDER_ISO, 45, 0, 1}, {BSPKIT_RENDER_ISO, 225, 1, 1}};
    for (size_t i = 0; r == BSPKIT_OK; i++) {
        st->triangles += one.triangles;
        st->triangles_drawn += one.triangles_drawn;
        st->missing_textures = one.missing_textures;
        if (i == sizeof rest / sizeof rest[0])
            break;
        r = sheet_tile(map, opts, rest[i].view, rest[i].yaw, &sheet, rest[i].col, rest[i].row, &one, err);
    }
    if (r == BSPKIT_OK)
        r = bspkit_image_write_png(&sheet, out, err);
    bspkit_image_free(&sheet);
    return r;
}

int cmd_render(int argc, char **argv)
{
    const char *out = NULL, *map_path = NULL;
    bspkit_render_options opts = {0};
    bool overview = false, sheet = false, have_view = false, have_size = false;
    const char **wads = calloc((size_t)argc, sizeof *wads);
    if (!wads)
        return CLI_EXIT_UNREADABLE;
    int rc = CLI_EXIT_USAGE;
    const cli_media_opts media = {&out, wads, &opts.wad_path_count, &opts.no_textures, &opts.no_lightmaps,
                                  &opts.lightmap_hdr};
    for (int i = 1; i < argc; i++) {
        const char *v;
        int m;
        if ((m = cli_media_option("render", argc, argv, &i, &media)) != 0) {
            if (m < 0)
                goto done;
        } else if ((m = cli_option_value(argc, argv, &i, "--view", &v)) != 0) {
            if (m > 0 && strcmp(v, "spawn") == 0)
                opts.view = BSPKIT_RENDER_SPAWN;
            else if (m > 0 && strcmp(v, "top") == 0)
                opts.view = BSPKIT_RENDER_TOP;
            else if (m > 0 && strcmp(v, "iso") == 0)
                opts.view = BSPKIT_RENDER_ISO;
            else {
                cli_usage_error("render", "--view needs spawn, top or iso");
                goto done;
            }
            have_view = true;
        } else if ((m = cli_option_value(argc, argv, &i, "--camera", &v)) != 0) {
            double c[6];
            if (m < 0 || parse_numbers(v, c, 6) != 0 || c[5] <= 0 || c[5] >= 180) {
                cli_usage_error("render", "--camera needs \"X Y Z PITCH YAW FOV\" with FOV in (0, 180)");
                goto done;
            }
            opts.view = BSPKIT_RENDER_CAMERA;
            opts.camera = (bspkit_render_camera){{c[0], c[1], c[2]}, c[3], c[4], c[5]};
            have_view = true;
        } else if ((m = cli_option_value(argc, argv, &i, "--size", &v)) != 0) {
            if (m < 0 || parse_size(v, &opts.width, &opts.height) != 0) {
                cli_usage_error("render", "--size needs WxH, each 1..16384");
                goto done;
            }
            have_size = true;
        } else if ((m = cli_option_value(argc, argv, &i, "--bounds", &v)) != 0) {
            double b[6];
            if (m < 0 || parse_numbers(v, b, 6) != 0 || b[0] > b[3] || b[1] > b[4] || b[2] > b[5]) {
                cli_usage_error("render", "--bounds needs \"X0 Y0 Z0 X1 Y1 Z1\" with each min <= max");
                goto done;
            }
            opts.have_bounds = true;
            memcpy(opts.bounds_min, b, sizeof opts.bounds_min);
            memcpy(opts.bounds_max, b + 3, sizeof opts.bounds_max);
        } else if ((m = cli_option_value(argc, argv, &i, "--supersample", &v)) != 0) {
            uint64_t s;
            if (m < 0 || cli_parse_count(v, 4, &s) != 0 || s == 0) {
                cli_usage_error("render", "--supersample needs 1..4");
                goto done;
            }
            opts.supersample = (uint32_t)s;
        } else if (strcmp(argv[i], "--overview") == 0) {
            overview = true;
        } else if (strcmp(argv[i], "--sheet") == 0) {
            sheet = true;
        } else if (strcmp(argv[i], "--show-hidden") == 0) {
            opts.show_hidden = true;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            cli_usage_error("render", "unknown option '%s'", argv[i]);
            goto done;
        } else if (map_path) {
            cli_usage_error("render", "expected one MAP, got '%s' too", argv[i]);
            goto done;
        } else {
            map_path = argv[i];
        }
    }
    if (!map_path || !out) {
        cli_usage_error("render", !map_path ? "expected a MAP" : "-o OUT.png is required");
        goto done;
    }
    if (sheet && (overview || have_view)) {
        cli_usage_error("render", "--sheet chooses its own views: no --view, --camera or --overview");
        goto done;
    }
    if (sheet && have_size && (opts.width < 2 || opts.height < 2)) {
        cli_usage_error("render", "--sheet needs a --size of at least 2x2");
        goto done;
    }
    if (overview) {
        if ((have_view && opts.view != BSPKIT_RENDER_TOP) || have_size) {
            cli_usage_error("render", "--overview is a 1024x1024 top view: no --view, --camera or --size");
            goto done;
        }
        opts.view = BSPKIT_RENDER_TOP;
        opts.width = opts.height = OVERVIEW_SIZE;
    }
    opts.wad_paths = wads;
    bspkit_render_stats stats;
    bspkit_error err;
    bspkit_map *map;
    if (cli_open_map(map_path, &map) != 0) {
        rc = CLI_EXIT_UNREADABLE;
        goto done;
    }
    cli_warn_entities(map_path, map);
    bspkit_result r = sheet ? render_sheet(map, out, &opts, &stats, &err)
                            : bspkit_render_png(map, out, &opts, &stats, &err);
    if (r == BSPKIT_OK) {
        printf("%s -> %s: %zu %s drawn of %zu, %zu missing %s\n", map_path, out, stats.triangles_drawn,
               cli_plural(stats.triangles_drawn, "triangle", "triangles"), stats.triangles, stats.missing_textures,
               cli_plural(stats.missing_textures, "texture", "textures"));
        rc = overview ? write_overview(map_path, out, &stats) : CLI_EXIT_OK;
        if (cli_finish_output() != 0 && rc == CLI_EXIT_OK)
            rc = CLI_EXIT_UNREADABLE;
    } else if (r == BSPKIT_ERR_ARGUMENT) {
        cli_usage_error("render", "%s", err.message);
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
