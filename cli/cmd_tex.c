/* bspkit tex: where a map's textures live (embedded, WAD, pakfile) and their
 * extraction to PNG. Also the output helpers `bspkit wad` shares. */
#include "cli.h"

#include "bspkit/textures.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

void cmd_tex_help(FILE *out)
{
    fprintf(out,
            "usage: bspkit tex MAP list [--json] [--wad PATH]...\n"
            "       bspkit tex MAP extract -o DIR [--wad PATH]...\n"
            "\n"
            "One entry per texture of the map, in the order texinfo refers to them:\n"
            "Quake/GoldSrc miptex, Source texdata materials; Quake 2 texinfo names,\n"
            "Quake 3 shader names and Titanfall 2 texture data names, each 'missing'\n"
            "(their images are in the games' own files, which are not searched).\n"
            "\n"
            "Sources: 'embedded' (miptex pixels inside the map; GoldSrc carries a\n"
            "palette per texture, Quake uses the Quake palette), 'wad' (a WAD named\n"
            "by worldspawn's \"wad\" key and found through --wad), 'pakfile' (a VTF\n"
            "materials/NAME.vtf in the Source pakfile; cubemap-patched names\n"
            "maps/MAP/NAME_X_Y_Z fall back to NAME) or 'missing'.\n"
            "\n"
            "list     one line per texture: index, name, size from the map, source,\n"
            "         format (paletted, or the VTF format) and location (WAD file or\n"
            "         pakfile entry); then counts per source. WADs the map names but\n"
            "         no search path holds are warnings on stderr. With --json: an\n"
            "         object with file, count, embedded, wad, pakfile, missing,\n"
            "         missing_wads and textures (index, name, width, height, source,\n"
            "         location, format, decodable).\n"
            "extract  write one PNG per texture that can be decoded under DIR (created\n"
            "         if missing): NAME.png, Source subfolders kept. Characters a file\n"
            "         system may refuse (Quake's '*', ':', '\\\\', ...) become '_' ('*'\n"
            "         becomes '#'); '.' and '..' components are dropped, so nothing is\n"
            "         written outside DIR, and symbolic links inside DIR are refused.\n"
            "         A texture whose name is already written (case ignored) is\n"
            "         skipped. Prints the textures not extracted, with why, and counts.\n"
            "         With -o OUT.wad instead: the map's embedded textures as one WAD\n"
            "         (WAD2 for Quake, WAD3 with palettes for GoldSrc), bytes as in the map.\n"
            "\n"
            "options:\n"
            "  --wad PATH   a directory (WADs matched by file name, case ignored) or a\n"
            "               WAD file to search; may be repeated, searched in order\n"
            "  --json       list: print JSON\n"
            "  -o DIR       extract: the directory to write into, or a .wad file\n"
            "  -h, --help   show this help\n"
            "\n"
            "exit codes:\n"
            "  0   success (textures that are missing or in a format bspkit does not\n"
            "      decode are reported, not errors)\n"
            "  1   a texture that was found could not be decoded (damaged data)\n"
            "  2   MAP could not be read, or a PNG could not be written\n"
            "  64  usage error\n");
}

/* ---- shared with cmd_wad.c ---- */

int cli_png_name(const char *name, char *out, size_t cap)
{
    size_t n = 0;
    const char *p = name;
    while (*p) {
        const char *end = p;
        while (*end && *end != '/' && *end != '\\')
            end++;
        size_t len = (size_t)(end - p);
        bool dots = (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.');
        if (len > 0 && !dots) {
            if (n > 0) {
                if (n + 1 >= cap)
                    return -1;
                out[n++] = '/';
            }
            for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char)p[i];
                char o = c == '*' ? '#' : (c < 0x20 || c == 0x7f || strchr(":<>\"|?", c)) ? '_' : (char)c;
                if (n + 1 >= cap)
                    return -1;
                out[n++] = o;
            }
        }
        p = *end ? end + 1 : end;
    }
    if (n == 0 || n + 5 > cap)
        return -1;
    memcpy(out + n, ".png", 5);
    return 0;
}

int cli_make_dir(const char *path)
{
    bspkit_error err;
    if (bspkit_make_dirs(path, &err) != BSPKIT_OK) {
        fprintf(stderr, "bspkit: %s\n", err.message);
        return -1;
    }
    return 0;
}

int cli_write_png_under(const char *dir, const char *rel, const bspkit_image *img)
{
    uint8_t *png = NULL;
    size_t size = 0;
    bspkit_error err;
    bspkit_result r = bspkit_image_encode_png(img, &png, &size, &err);
    if (r == BSPKIT_OK)
        r = bspkit_write_file_under(dir, rel, png, size, &err);
    free(png);
    if (r != BSPKIT_OK) {
        fprintf(stderr, "bspkit: %s\n", err.message);
        return -1;
    }
    return 0;
}

bool cli_name_seen(char **names, size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++)
        if (strcasecmp(names[i], name) == 0)
            return true;
    return false;
}

/* ---- tex ---- */

typedef struct tex_args {
    const char *map, *sub, *out;
    const char **wads;
    size_t nwads;
    bool json;
} tex_args;

static int parse_args(int argc, char **argv, tex_args *a)
{
    memset(a, 0, sizeof *a);
    a->wads = calloc((size_t)argc, sizeof *a->wads);
    if (!a->wads) {
        fprintf(stderr, "bspkit: out of memory\n");
        return CLI_EXIT_UNREADABLE;
    }
    const char *pos[2] = {0};
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v;
        int m;
        if (arg[0] != '-' || arg[1] == '\0') {
            if (npos == 2) {
                cli_usage_error("tex", "unexpected argument '%s'", arg);
                return CLI_EXIT_USAGE;
            }
            pos[npos++] = arg;
        } else if ((m = cli_option_value(argc, argv, &i, "--wad", &v)) != 0) {
            if (m < 0) {
                cli_usage_error("tex", "--wad needs a path");
                return CLI_EXIT_USAGE;
            }
            a->wads[a->nwads++] = v;
        } else if ((m = cli_option_value(argc, argv, &i, "-o", &v)) != 0) {
            if (m < 0) {
                cli_usage_error("tex", "-o needs a directory");
                return CLI_EXIT_USAGE;
            }
            a->out = v;
        } else if (strcmp(arg, "--json") == 0) {
            a->json = true;
        } else {
            cli_usage_error("tex", "unknown option '%s'", arg);
            return CLI_EXIT_USAGE;
        }
    }
    if (npos < 2) {
        cli_usage_error("tex", "%s", npos == 0 ? "missing map file" : "missing subcommand (list, extract)");
        return CLI_EXIT_USAGE;
    }
    a->map = pos[0];
    a->sub = pos[1];
    bool list = strcmp(a->sub, "list") == 0, extract = strcmp(a->sub, "extract") == 0;
    if (!list && !extract) {
        cli_usage_error("tex", "unknown subcommand '%s' (list, extract)", a->sub);
        return CLI_EXIT_USAGE;
    }
    if (list && a->out) {
        cli_usage_error("tex", "-o is for extract");
        return CLI_EXIT_USAGE;
    }
    if (extract && a->json) {
        cli_usage_error("tex", "--json is for list");
        return CLI_EXIT_USAGE;
    }
    if (extract && !a->out) {
        cli_usage_error("tex", "extract needs -o DIR");
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

static json_t *json_or_null(const char *s) { return s ? cli_json_string(s) : json_null(); }

static int list(const tex_args *a, const bspkit_textures *t)
{
    size_t n = bspkit_textures_count(t), by_source[4] = {0};
    for (size_t i = 0; i < n; i++)
        by_source[bspkit_textures_get(t, i)->source]++;
    if (a->json) {
        json_t *root = json_object(), *arr = json_array(), *missing = json_array();
        bool ok = root && arr && missing;
        for (size_t i = 0; ok && i < n; i++) {
            const bspkit_texture *x = bspkit_textures_get(t, i);
            json_t *o = json_object();
            ok = o && json_array_append_new(arr, o) == 0 && cli_json_set(o, "index", json_integer((json_int_t)i)) &&
                 cli_json_set(o, "name", cli_json_string(x->name)) &&
                 cli_json_set(o, "width", json_integer(x->width)) &&
                 cli_json_set(o, "height", json_integer(x->height)) &&
                 cli_json_set(o, "source", json_string(bspkit_texture_source_name(x->source))) &&
                 cli_json_set(o, "location", json_or_null(x->location)) &&
                 cli_json_set(o, "format", json_or_null(x->format)) &&
                 cli_json_set(o, "decodable", json_boolean(x->decodable));
        }
        for (size_t i = 0; ok && bspkit_textures_missing_wad(t, i); i++)
            ok = json_array_append_new(missing, cli_json_string(bspkit_textures_missing_wad(t, i))) == 0;
        ok = ok && cli_json_set(root, "file", cli_json_string(a->map)) &&
             cli_json_set(root, "count", json_integer((json_int_t)n)) &&
             cli_json_set(root, "embedded", json_integer((json_int_t)by_source[BSPKIT_TEXTURE_EMBEDDED])) &&
             cli_json_set(root, "wad", json_integer((json_int_t)by_source[BSPKIT_TEXTURE_WAD])) &&
             cli_json_set(root, "pakfile", json_integer((json_int_t)by_source[BSPKIT_TEXTURE_PAKFILE])) &&
             cli_json_set(root, "missing", json_integer((json_int_t)by_source[BSPKIT_TEXTURE_MISSING])) &&
             cli_json_set(root, "missing_wads", missing) && cli_json_set(root, "textures", arr);
        if (!ok) {
            json_decref(root);
            return cli_print_json(NULL);
        }
        return cli_print_json(root);
    }
    for (size_t i = 0; i < n; i++) {
        const bspkit_texture *x = bspkit_textures_get(t, i);
        char size[24];
        snprintf(size, sizeof size, "%ux%u", x->width, x->height);
        printf("%4zu  %-24s %-9s %-8s %-10s %s\n", i, x->name, size, bspkit_texture_source_name(x->source),
               x->format ? x->format : "-", x->location ? x->location : "-");
    }
    printf("%zu %s: %zu embedded, %zu wad, %zu pakfile, %zu missing\n", n, cli_plural(n, "texture", "textures"),
           by_source[BSPKIT_TEXTURE_EMBEDDED], by_source[BSPKIT_TEXTURE_WAD], by_source[BSPKIT_TEXTURE_PAKFILE],
           by_source[BSPKIT_TEXTURE_MISSING]);
    return CLI_EXIT_OK;
}

/* True when `path` names a .wad file (case ignored). */
static bool is_wad_path(const char *path)
{
    size_t n = strlen(path);
    return n > 4 && strcasecmp(path + n - 4, ".wad") == 0;
}

/* extract -o OUT.wad: the embedded miptex as one WAD (WAD2 Quake, WAD3 GoldSrc). */
static int extract_wad(const tex_args *a, bspkit_map *map)
{
    uint8_t *wad = NULL;
    size_t size = 0, n = 0;
    bspkit_error err;
    if (bspkit_miptex_write_wad(map, &wad, &size, &n, &err) != BSPKIT_OK ||
        bspkit_save_file(a->out, wad, size, &err) != BSPKIT_OK) {
        cli_report_error(a->map, &err);
        bspkit_free(wad);
        return CLI_EXIT_UNREADABLE;
    }
    bspkit_free(wad);
    printf("%zu embedded %s written to %s (%zu bytes)\n", n, cli_plural(n, "texture", "textures"), a->out, size);
    return CLI_EXIT_OK;
}

static int extract(const tex_args *a, bspkit_textures *t)
{
    if (cli_make_dir(a->out) != 0) /* says why */
        return CLI_EXIT_UNREADABLE;
    size_t n = bspkit_textures_count(t), written = 0, missing = 0, unsupported = 0, failed = 0, skipped = 0;
    char **names = calloc(n ? n : 1, sizeof *names);
    if (!names) {
        fprintf(stderr, "bspkit: out of memory\n");
        return CLI_EXIT_UNREADABLE;
    }
    int rc = CLI_EXIT_OK;
    for (size_t i = 0; i < n && rc != CLI_EXIT_UNREADABLE; i++) {
        const bspkit_texture *x = bspkit_textures_get(t, i);
        char rel[1024];
        if (x->source == BSPKIT_TEXTURE_MISSING) {
            printf("not extracted: %s: missing\n", x->name);
            missing++;
            continue;
        }
        if (!x->decodable) {
            printf("not extracted: %s: format %s is not decoded\n", x->name, x->format ? x->format : "unknown");
            unsupported++;
            continue;
        }
        if (cli_png_name(x->name, rel, sizeof rel) != 0) {
            printf("not extracted: %s: the name cannot be a file name\n", x->name);
            skipped++;
            continue;
        }
        if (cli_name_seen(names, written, rel)) {
            printf("not extracted: %s: a texture of the same name was written\n", x->name);
            skipped++;
            continue;
        }
        bspkit_image img;
        bspkit_error err;
        if (bspkit_textures_load_image(t, i, &img, &err) != BSPKIT_OK) {
            fprintf(stderr, "bspkit: %s: texture %zu '%s': %s\n", a->map, i, x->name, err.message);
            failed++;
            rc = CLI_EXIT_INVALID;
            continue;
        }
        if (cli_write_png_under(a->out, rel, &img) != 0) {
            rc = CLI_EXIT_UNREADABLE;
        } else if ((names[written] = strdup(rel)) != NULL) {
            written++;
        }
        bspkit_image_free(&img);
    }
    printf("%zu %s written to %s; not extracted: %zu missing, %zu unsupported, %zu failed, %zu skipped\n", written,
           cli_plural(written, "texture", "textures"), a->out, missing, unsupported, failed, skipped);
    for (size_t i = 0; i < written; i++)
        free(names[i]);
    free(names);
    return rc;
}

int cmd_tex(int argc, char **argv)
{
    tex_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != CLI_EXIT_OK) {
        free(a.wads);
        return rc;
    }
    bspkit_map *map = NULL;
    if (cli_open_map(a.map, &map) != 0) {
        free(a.wads);
        return CLI_EXIT_UNREADABLE;
    }
    bspkit_texture_options opts = {.wad_paths = a.wads, .wad_path_count = a.nwads};
    bspkit_textures *t = NULL;
    bspkit_error err;
    if (bspkit_textures_resolve(map, &opts, &t, &err) != BSPKIT_OK) {
        cli_report_error(a.map, &err);
        rc = CLI_EXIT_UNREADABLE;
    } else {
        for (size_t i = 0; bspkit_textures_missing_wad(t, i); i++)
            fprintf(stderr, "bspkit: warning: %s: WAD '%s' not found in the search paths\n", a.map,
                    bspkit_textures_missing_wad(t, i));
        rc = strcmp(a.sub, "list") == 0 ? list(&a, t) : is_wad_path(a.out) ? extract_wad(&a, map) : extract(&a, t);
        if (cli_finish_output() != 0 && rc == CLI_EXIT_OK)
            rc = CLI_EXIT_UNREADABLE;
    }
    bspkit_textures_free(t);
    bspkit_close(map);
    free(a.wads);
    return rc;
}
