/* bspkit wad: the directory of a WAD2/WAD3 texture file and its images as PNG. */
#include "cli.h"

#include "bspkit/textures.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void cmd_wad_help(FILE *out)
{
    fprintf(out,
            "usage: bspkit wad FILE list [--json]\n"
            "       bspkit wad FILE extract -o DIR\n"
            "\n"
            "WAD2 (Quake) and WAD3 (GoldSrc) files hold textures (miptex), pictures\n"
            "(qpic), fonts and palettes under 16-character names.\n"
            "\n"
            "list     one line per entry: index, name, type (miptex, qpic, font,\n"
            "         palette or the type number), size in pixels for images, bytes\n"
            "         and file offset; then a total. With --json: an object with file,\n"
            "         count and entries (name, type, type_id, compression, offset,\n"
            "         size, width, height).\n"
            "extract  write every miptex and qpic entry as DIR/NAME.png (DIR created if\n"
            "         missing), through its palette (WAD3: the entry's own, WAD2: the\n"
            "         Quake palette); names starting with '{' make colour 255\n"
            "         transparent. Characters a file system may refuse become '_'\n"
            "         ('*' becomes '#'); a name already written (case ignored) is\n"
            "         skipped, as the engines use the first.\n"
            "\n"
            "options:\n"
            "  --json       list: print JSON\n"
            "  -o DIR       extract: the directory to write into\n"
            "  -h, --help   show this help\n"
            "\n"
            "exit codes:\n"
            "  0   success\n"
            "  1   an image entry is damaged and could not be decoded\n"
            "  2   FILE could not be read or is not a WAD, or a PNG could not be written\n"
            "  64  usage error\n");
}

static const char *type_name(uint8_t type)
{
    switch (type) {
    case 0x40: return "palette";
    case 0x42: return "qpic";
    case 0x43: case 0x44: return "miptex";
    case 0x46: return "font";
    default: return NULL;
    }
}

static int list(const char *file, const bspkit_wad *wad, bool json)
{
    size_t n = bspkit_wad_count(wad);
    bspkit_wad_entry e;
    if (json) {
        json_t *root = json_object(), *arr = json_array();
        bool ok = root && arr;
        for (size_t i = 0; ok && i < n; i++) {
            json_t *o = json_object();
            const char *tn;
            ok = bspkit_wad_entry_info(wad, i, &e, NULL) == BSPKIT_OK && o && json_array_append_new(arr, o) == 0;
            tn = ok ? type_name(e.type) : NULL;
            ok = ok && cli_json_set(o, "name", cli_json_string(e.name)) &&
                 cli_json_set(o, "type", tn ? json_string(tn) : json_null()) &&
                 cli_json_set(o, "type_id", json_integer(e.type)) &&
                 cli_json_set(o, "compression", json_integer(e.compression)) &&
                 cli_json_set(o, "offset", json_integer(e.offset)) && cli_json_set(o, "size", json_integer(e.size)) &&
                 cli_json_set(o, "width", json_integer(e.width)) && cli_json_set(o, "height", json_integer(e.height));
        }
        ok = ok && cli_json_set(root, "file", cli_json_string(file)) &&
             cli_json_set(root, "count", json_integer((json_int_t)n)) && cli_json_set(root, "entries", arr);
        if (!ok) {
            json_decref(root);
            return cli_print_json(NULL);
        }
        return cli_print_json(root);
    }
    for (size_t i = 0; i < n; i++) {
        if (bspkit_wad_entry_info(wad, i, &e, NULL) != BSPKIT_OK)
            break;
        char type[8], size[24];
        const char *tn = type_name(e.type);
        snprintf(type, sizeof type, "0x%02x", e.type);
        if (e.width)
            snprintf(size, sizeof size, "%ux%u", e.width, e.height);
        else
            snprintf(size, sizeof size, "-");
        printf("%4zu  %-16s %-7s %-9s %8u bytes at %u\n", i, e.name, tn ? tn : type, size, e.size, e.offset);
    }
    printf("%zu %s\n", n, cli_plural(n, "entry", "entries"));
    return CLI_EXIT_OK;
}

static int extract(const char *file, const bspkit_wad *wad, const char *dir)
{
    if (cli_make_dir(dir) != 0) /* says why */
        return CLI_EXIT_UNREADABLE;
    size_t n = bspkit_wad_count(wad), written = 0, other = 0, failed = 0, skipped = 0;
    char **names = calloc(n ? n : 1, sizeof *names);
    if (!names) {
        fprintf(stderr, "bspkit: out of memory\n");
        return CLI_EXIT_UNREADABLE;
    }
    int rc = CLI_EXIT_OK;
    for (size_t i = 0; i < n && rc != CLI_EXIT_UNREADABLE; i++) {
        bspkit_wad_entry e;
        bspkit_wad_entry_info(wad, i, &e, NULL);
        const char *tn = type_name(e.type);
        if (!tn || (strcmp(tn, "miptex") != 0 && strcmp(tn, "qpic") != 0)) {
            other++;
            continue;
        }
        char rel[64];
        if (cli_png_name(e.name, rel, sizeof rel) != 0 || cli_name_seen(names, written, rel)) {
            printf("not extracted: %s: %s\n", e.name, rel[0] ? "a texture of the same name was written" : "empty name");
            skipped++;
            continue;
        }
        bspkit_image img;
        bspkit_error err;
        if (bspkit_wad_load_image(wad, i, &img, &err) != BSPKIT_OK) {
            cli_report_error(file, &err);
            failed++;
            rc = CLI_EXIT_INVALID;
            continue;
        }
        if (cli_write_png_under(dir, rel, &img) != 0)
            rc = CLI_EXIT_UNREADABLE;
        else if ((names[written] = strdup(rel)) != NULL)
            written++;
        bspkit_image_free(&img);
    }
    printf("%zu %s written to %s; %zu other entries, %zu failed, %zu skipped\n", written,
           cli_plural(written, "image", "images"), dir, other, failed, skipped);
    for (size_t i = 0; i < written; i++)
        free(names[i]);
    free(names);
    return rc;
}

int cmd_wad(int argc, char **argv)
{
    const char *pos[2] = {0}, *out = NULL;
    int npos = 0;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v;
        int m;
        if (arg[0] != '-' || arg[1] == '\0') {
            if (npos == 2) {
                cli_usage_error("wad", "unexpected argument '%s'", arg);
                return CLI_EXIT_USAGE;
            }
            pos[npos++] = arg;
        } else if ((m = cli_option_value(argc, argv, &i, "-o", &v)) != 0) {
            if (m < 0) {
                cli_usage_error("wad", "-o needs a directory");
                return CLI_EXIT_USAGE;
            }
            out = v;
        } else if (strcmp(arg, "--json") == 0) {
            json = true;
        } else {
            cli_usage_error("wad", "unknown option '%s'", arg);
            return CLI_EXIT_USAGE;
        }
    }
    if (npos < 2) {
        cli_usage_error("wad", "%s", npos == 0 ? "missing WAD file" : "missing subcommand (list, extract)");
        return CLI_EXIT_USAGE;
    }
    bool is_list = strcmp(pos[1], "list") == 0, is_extract = strcmp(pos[1], "extract") == 0;
    if (!is_list && !is_extract) {
        cli_usage_error("wad", "unknown subcommand '%s' (list, extract)", pos[1]);
        return CLI_EXIT_USAGE;
    }
    if ((is_list && out) || (is_extract && json) || (is_extract && !out)) {
        cli_usage_error("wad", "%s", is_list ? "-o is for extract" : json ? "--json is for list" : "extract needs -o DIR");
        return CLI_EXIT_USAGE;
    }
    bspkit_wad *wad = NULL;
    bspkit_error err;
    if (bspkit_wad_open_file(pos[0], &wad, &err) != BSPKIT_OK) {
        fprintf(stderr, "bspkit: %s\n", err.message);
        return CLI_EXIT_UNREADABLE;
    }
    int rc = is_list ? list(pos[0], wad, json) : extract(pos[0], wad, out);
    if (cli_finish_output() != 0 && rc == CLI_EXIT_OK)
        rc = CLI_EXIT_UNREADABLE;
    bspkit_wad_close(wad);
    return rc;
}
