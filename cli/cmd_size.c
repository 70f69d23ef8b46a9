/* bspkit size: where the bytes of a map go — lumps grouped by purpose,
 * header and padding, the pakfile by extension and directory, cubemaps, LDR
 * and HDR lighting, and what the bspkit commands that exist would save. */
#include "cli.h"
#include "bspkit/size.h"

#include <inttypes.h>
#include <string.h>

void cmd_size_help(FILE *out)
{
    fprintf(out,
            "usage: bspkit size MAP [--json] [--measure-compression]\n"
            "\n"
            "Show where the bytes of a map file go. Every byte is counted once: the header\n"
            "and lump directory, then each lump in file order (bytes an earlier lump already\n"
            "holds are not counted again), and padding (gaps between lumps and anything after\n"
            "the last one, such as a Quake BSPX block), so the groups add up to the file size.\n"
            "\n"
            "Groups: header, geometry, bsp_tree, collision, lighting_ldr, lighting_hdr,\n"
            "visibility, textures, entities, props (Source game lumps, each listed by id),\n"
            "pakfile, displacements, other, padding. For a Source pakfile: its entries'\n"
            "stored bytes by extension and by top directory, the zip headers, and the cubemap\n"
            "textures (materials/maps/*/c*_*_*.vtf) with the bytes\n"
            "`bspkit pak MAP remove 'materials/maps/*/c*_*_*.vtf' -o OUT` saves (measured by\n"
            "building that archive). A map holding both LDR and HDR lighting is pointed out;\n"
            "no bspkit command removes either set.\n"
            "\n"
            "options:\n"
            "  --json                 print one JSON object instead of text\n"
            "  --measure-compression  Source: also build in memory the map\n"
            "                         `bspkit convert MAP --compress` writes and the pakfile\n"
            "                         `bspkit pak MAP repack --lzma` writes, and report what\n"
            "                         each saves (LZMA over the whole map: seconds when large)\n"
            "  -h, --help             show this help\n"
            "\n"
            "JSON output keys: file, size, groups (bytes per group name), header_bytes,\n"
            "padding_bytes, trailing_bytes, lumps (index, name, group, offset, length,\n"
            "unique_bytes, uncompressed_length, external), game_lumps (id, count, bytes),\n"
            "lighting (ldr, hdr: present; ldr_bytes, hdr_bytes), pakfile (null without one;\n"
            "else read, error, bytes, entries, data_bytes, overhead_bytes, by_extension and\n"
            "by_directory: name, count, bytes; cubemaps: count, bytes), savings (what,\n"
            "command, entries, bytes).\n"
            "\n"
            "exit codes:\n"
            "  0   success\n"
            "  2   the file could not be read or is not a supported map\n"
            "  64  usage error\n");
}

static json_t *buckets_json(const bspkit_size_bucket *b, size_t n, const char *name_key)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < n; i++) {
        json_t *o = json_object();
        if (!o || json_array_append_new(arr, o) != 0 || !cli_json_set(o, name_key, cli_json_string(b[i].name)) ||
            !cli_json_set(o, "count", json_integer((json_int_t)b[i].count)) ||
            !cli_json_set(o, "bytes", json_integer((json_int_t)b[i].bytes))) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

static json_t *pak_json(const bspkit_size_report *r)
{
    if (!r->has_pakfile)
        return json_null();
    json_t *o = json_object(), *cube = json_object();
    bool ok = o && cube && cli_json_set(o, "read", json_boolean(r->pakfile_read)) &&
              cli_json_set(o, "error", r->pakfile_error[0] ? cli_json_string(r->pakfile_error) : json_null()) &&
              cli_json_set(o, "bytes", json_integer((json_int_t)r->pakfile_bytes)) &&
              cli_json_set(o, "entries", json_integer((json_int_t)r->pakfile_entries)) &&
              cli_json_set(o, "data_bytes", json_integer((json_int_t)r->pakfile_data_bytes)) &&
              cli_json_set(o, "overhead_bytes", json_integer((json_int_t)r->pakfile_overhead_bytes)) &&
              cli_json_set(o, "by_extension", buckets_json(r->pak_by_extension, r->pak_extension_count, "name")) &&
              cli_json_set(o, "by_directory", buckets_json(r->pak_by_directory, r->pak_directory_count, "name")) &&
              cli_json_set(cube, "count", json_integer((json_int_t)r->cubemap_count)) &&
              cli_json_set(cube, "bytes", json_integer((json_int_t)r->cubemap_bytes)) && cli_json_set(o, "cubemaps", cube);
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *report_json(const char *file, const bspkit_size_report *r)
{
    json_t *root = json_object(), *groups = json_object(), *lumps = json_array(), *light = json_object(),
           *savings = json_array();
    bool ok = root && groups && lumps && light && savings && cli_json_set(root, "file", cli_json_string(file)) &&
              cli_json_set(root, "size", json_integer((json_int_t)r->file_size));
    for (int g = 0; ok && g < BSPKIT_SIZE_GROUP_COUNT; g++)
        ok = cli_json_set(groups, bspkit_size_group_name((bspkit_size_group)g),
                          json_integer((json_int_t)r->group_bytes[g]));
    for (size_t i = 0; ok && i < r->lump_count; i++) {
        const bspkit_size_lump *l = &r->lumps[i];
        json_t *o = json_object();
        ok = o && json_array_append_new(lumps, o) == 0 && cli_json_set(o, "index", json_integer(l->index)) &&
             cli_json_set(o, "name", l->name ? cli_json_string(l->name) : json_null()) &&
             cli_json_set(o, "group", json_string(bspkit_size_group_name(l->group))) &&
             cli_json_set(o, "offset", json_integer((json_int_t)l->offset)) &&
             cli_json_set(o, "length", json_integer((json_int_t)l->length)) &&
             cli_json_set(o, "unique_bytes", json_integer((json_int_t)l->unique_bytes)) &&
             cli_json_set(o, "uncompressed_length", json_integer((json_int_t)l->uncompressed_length)) &&
             cli_json_set(o, "external", json_boolean(l->external));
    }
    for (size_t i = 0; ok && i < r->saving_count; i++) {
        const bspkit_size_saving *s = &r->savings[i];
        json_t *o = json_object();
        ok = o && json_array_append_new(savings, o) == 0 && cli_json_set(o, "what", json_string(s->what)) &&
             cli_json_set(o, "command", json_string(s->command)) &&
             cli_json_set(o, "entries", json_integer((json_int_t)s->entries)) &&
             cli_json_set(o, "bytes", json_integer((json_int_t)s->bytes));
    }
    ok = ok && cli_json_set(light, "ldr", json_boolean(r->has_ldr_lighting)) &&
         cli_json_set(light, "hdr", json_boolean(r->has_hdr_lighting)) &&
         cli_json_set(light, "ldr_bytes", json_integer((json_int_t)r->ldr_lighting_bytes)) &&
         cli_json_set(light, "hdr_bytes", json_integer((json_int_t)r->hdr_lighting_bytes));
    ok = ok && cli_json_set(root, "groups", groups) && (groups = NULL, true) &&
         cli_json_set(root, "header_bytes", json_integer((json_int_t)r->header_bytes)) &&
         cli_json_set(root, "padding_bytes", json_integer((json_int_t)r->padding_bytes)) &&
         cli_json_set(root, "trailing_bytes", json_integer((json_int_t)r->trailing_bytes)) &&
         cli_json_set(root, "lumps", lumps) && (lumps = NULL, true) &&
         cli_json_set(root, "game_lumps", buckets_json(r->game_lumps, r->game_lump_count, "id")) &&
         cli_json_set(root, "lighting", light) && (light = NULL, true) && cli_json_set(root, "pakfile", pak_json(r)) &&
         cli_json_set(root, "savings", savings) && (savings = NULL, true);
    if (!ok) {
        json_decref(groups);
        json_decref(lumps);
        json_decref(light);
        json_decref(savings);
        json_decref(root);
        return NULL;
    }
    return root;
}

static double pct(uint64_t part, uint64_t whole) { return whole ? 100.0 * (double)part / (double)whole : 0.0; }

/* `counted`: show how many files each bucket holds (not for game lumps, one each). */
static void print_buckets(const char *title, const bspkit_size_bucket *b, size_t n, uint64_t whole, bool counted)
{
    printf("  %s:\n", title);
    for (size_t i = 0; i < n; i++) {
        printf("    %-24s %12" PRIu64 " %6.1f%%", b[i].name, b[i].bytes, pct(b[i].bytes, whole));
        if (counted)
            printf("  %" PRIu64 " %s", b[i].count, cli_plural(b[i].count, "file", "files"));
        printf("\n");
    }
}

static void print_text(const char *file, const bspkit_size_report *r)
{
    printf("file: %s\nsize: %" PRIu64 " bytes\n\n", file, r->file_size);
    printf("%-16s %12s %7s\n", "group", "bytes", "share");
    for (int g = 0; g < BSPKIT_SIZE_GROUP_COUNT; g++)
        if (r->group_bytes[g])
            printf("%-16s %12" PRIu64 " %6.1f%%\n", bspkit_size_group_name((bspkit_size_group)g), r->group_bytes[g],
                   pct(r->group_bytes[g], r->file_size));
    printf("%-16s %12" PRIu64 "\n", "total", r->file_size);
    if (r->trailing_bytes)
        printf("(padding includes %" PRIu64 " bytes after the last lump)\n", r->trailing_bytes);
    printf("\nlumps:\n");
    for (size_t i = 0; i < r->lump_count; i++) {
        const bspkit_size_lump *l = &r->lumps[i];
        if (l->length == 0)
            continue;
        printf("  %3d %-30s %-14s %12" PRIu64, l->index, l->name ? l->name : "?", bspkit_size_group_name(l->group),
               l->unique_bytes);
        if (l->external)
            printf("  (in a file beside the map: %" PRIu64 " bytes)", l->length);
        else if (l->unique_bytes != l->length)
            printf("  (%" PRIu64 " bytes, overlapping an earlier lump)", l->length);
        if (l->uncompressed_length != l->length && !l->external)
            printf("  (%" PRIu64 " uncompressed)", l->uncompressed_length);
        printf("\n");
    }
    if (r->game_lump_count) {
        printf("\n");
        print_buckets("game lumps", r->game_lumps, r->game_lump_count, r->file_size, false);
    }
    printf("\nlighting: %s", r->has_ldr_lighting ? "LDR" : "no LDR");
    printf(", %s", r->has_hdr_lighting ? "HDR" : "no HDR");
    printf(" (LDR group %" PRIu64 " bytes, HDR group %" PRIu64 " bytes)\n", r->ldr_lighting_bytes, r->hdr_lighting_bytes);
    if (r->has_ldr_lighting && r->has_hdr_lighting)
        printf("  both LDR and HDR lighting are present; no bspkit command removes either set\n");
    if (r->has_pakfile) {
        printf("\npakfile: %" PRIu64 " bytes", r->pakfile_bytes);
        if (r->pakfile_read)
            printf(", %" PRIu64 " %s (stored data %" PRIu64 ", zip headers %" PRIu64 ")\n", r->pakfile_entries,
                   cli_plural(r->pakfile_entries, "entry", "entries"), r->pakfile_data_bytes, r->pakfile_overhead_bytes);
        else
            printf(" (not readable: %s)\n", r->pakfile_error);
        if (r->pakfile_read) {
            print_buckets("by extension", r->pak_by_extension, r->pak_extension_count, r->file_size, true);
            print_buckets("by directory", r->pak_by_directory, r->pak_directory_count, r->file_size, true);
            printf("  cubemaps: %" PRIu64 " %s, %" PRIu64 " bytes\n", r->cubemap_count,
                   cli_plural(r->cubemap_count, "texture", "textures"), r->cubemap_bytes);
        }
    }
    if (r->saving_count) {
        printf("\nsavings:\n");
        for (size_t i = 0; i < r->saving_count; i++) {
            const bspkit_size_saving *v = &r->savings[i];
            printf("  %s: %" PRIu64 " bytes", v->what, v->bytes);
            if (v->entries)
                printf(", %" PRIu64 " %s", v->entries, cli_plural(v->entries, "entry", "entries"));
            printf(": %s\n", v->command);
        }
    }
}

int cmd_size(int argc, char **argv)
{
    const char *file = NULL;
    bool json = false;
    bspkit_size_options opts = {0};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--measure-compression") == 0) {
            opts.measure_compression = true;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            cli_usage_error("size", "unknown option '%s'", argv[i]);
            return CLI_EXIT_USAGE;
        } else if (!file) {
            file = argv[i];
        } else {
            cli_usage_error("size", "expected one map, got a second: '%s'", argv[i]);
            return CLI_EXIT_USAGE;
        }
    }
    if (!file) {
        cli_usage_error("size", "expected a map");
        return CLI_EXIT_USAGE;
    }
    bspkit_map *map = NULL;
    if (cli_open_map(file, &map) != 0)
        return CLI_EXIT_UNREADABLE;
    bspkit_size_report *r = NULL;
    bspkit_error err;
    int status = CLI_EXIT_OK;
    if (bspkit_size_report_map(map, &opts, &r, &err) != BSPKIT_OK) {
        cli_report_error(file, &err);
        status = CLI_EXIT_UNREADABLE;
    } else if (json) {
        status = cli_print_json(report_json(file, r));
    } else {
        print_text(file, r);
    }
    bspkit_size_report_free(r);
    bspkit_close(map);
    if (cli_finish_output() != 0)
        return CLI_EXIT_UNREADABLE;
    return status;
}
