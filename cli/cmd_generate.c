/* bspkit generate: write the sample maps the library builds from scratch. */
#include "cli.h"

#include "bspkit/write.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One line per sample kind, in bspkit_sample_kind order. */
static const char *const KIND_SUMMARY[BSPKIT_SAMPLE_COUNT] = {
    "Half-Life BSP30: embedded textures with palettes, clip hulls",
    "Quake BSP29 version of the same room",
    "Source VBSP 20 with brushes and a func_brush model",
    "the Source room big-endian (Xbox 360 / PS3 byte order)",
    "the Source room with every lump LZMA-compressed",
    "Quake 2 IBSP 38 version of the Source room: brushes, PVS and PHS, RGB light",
    "Quake 3 IBSP 46 room: brushes, planar surfaces, a Bezier patch, a lightmap page",
};

void cmd_generate_help(FILE *out)
{
    fprintf(out, "usage: bspkit generate KIND -o FILE\n"
                 "       bspkit generate --all -o DIR\n"
                 "       bspkit generate --list\n"
                 "\n"
                 "Write a small valid map that bspkit builds itself (no outside data): a closed\n"
                 "room with lightmaps, visibility and a complete BSP tree.\n"
                 "\n"
                 "kinds:\n");
    for (int k = 0; k < BSPKIT_SAMPLE_COUNT; k++)
        fprintf(out, "  %-17s %s\n", bspkit_sample_name((bspkit_sample_kind)k), KIND_SUMMARY[k]);
    fprintf(out, "\n"
                 "options:\n"
                 "  -o, --output PATH  file to write (KIND) or directory (--all; created if missing)\n"
                 "  --all              write every kind as DIR/<kind>.bsp\n"
                 "  --list             print the kinds, one per line\n"
                 "  -h, --help         show this help\n"
                 "\n"
                 "Existing files are replaced. Each file is written to a temporary file in the\n"
                 "same directory and renamed into place, so a failed run never leaves a partial\n"
                 "map behind.\n"
                 "\n"
                 "Exit codes: 0 ok, 2 a file could not be written, 64 usage error.\n");
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "bspkit generate: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nRun 'bspkit generate --help' for usage.\n");
    return CLI_EXIT_USAGE;
}

static int generate_one(bspkit_sample_kind kind, const char *path)
{
    bspkit_builder *b = NULL;
    bspkit_write_options opts;
    bspkit_error err;
    if (bspkit_sample_builder(kind, &b, &opts, &err) != BSPKIT_OK) {
        cli_report_error(bspkit_sample_name(kind), &err);
        return CLI_EXIT_UNREADABLE;
    }
    bspkit_result rc = bspkit_builder_save(b, path, &opts, &err);
    bspkit_builder_free(b);
    if (rc != BSPKIT_OK) {
        cli_report_error(path, &err);
        return CLI_EXIT_UNREADABLE;
    }
    printf("wrote %s (%s)\n", path, bspkit_sample_name(kind));
    return CLI_EXIT_OK;
}

static int generate_all(const char *dir)
{
    /* Only the last component is created: a mistyped parent should fail. */
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "bspkit: %s: cannot create directory: %s\n", dir, strerror(errno));
        return CLI_EXIT_UNREADABLE;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "bspkit: %s: not a directory\n", dir);
        return CLI_EXIT_UNREADABLE;
    }
    int status = CLI_EXIT_OK;
    for (int k = 0; k < BSPKIT_SAMPLE_COUNT; k++) {
        const char *name = bspkit_sample_name((bspkit_sample_kind)k);
        size_t len = strlen(dir) + strlen(name) + 6;
        char *path = malloc(len);
        if (!path) {
            fprintf(stderr, "bspkit: out of memory\n");
            return CLI_EXIT_UNREADABLE;
        }
        snprintf(path, len, "%s/%s.bsp", dir, name);
        int one = generate_one((bspkit_sample_kind)k, path);
        free(path);
        if (one != CLI_EXIT_OK)
            status = one;
    }
    return status;
}

int cmd_generate(int argc, char **argv)
{
    const char *output = NULL, *kind_name = NULL;
    int all = 0, list = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--all") == 0) {
            all = 1;
        } else if (strcmp(a, "--list") == 0) {
            list = 1;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (i + 1 >= argc)
                return usage_error("%s needs a path", a);
            output = argv[++i];
        } else if (strncmp(a, "--output=", 9) == 0) {
            output = a + 9;
        } else if (strcmp(a, "--") == 0) {
            if (i + 1 < argc && !kind_name && i + 2 == argc)
                kind_name = argv[++i];
            else
                return usage_error("%s", "expected exactly one KIND after --");
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage_error("unknown option '%s'", a);
        } else if (kind_name) {
            return usage_error("more than one KIND given ('%s')", a);
        } else {
            kind_name = a;
        }
    }

    if (list) {
        if (all || kind_name || output)
            return usage_error("%s", "--list takes no other arguments");
        for (int k = 0; k < BSPKIT_SAMPLE_COUNT; k++)
            printf("%s\n", bspkit_sample_name((bspkit_sample_kind)k));
        return CLI_EXIT_OK;
    }
    if (!output || !*output)
        return usage_error("%s", "missing -o PATH");
    if (all) {
        if (kind_name)
            return usage_error("--all writes every kind; drop '%s'", kind_name);
        return generate_all(output);
    }
    if (!kind_name)
        return usage_error("%s", "missing KIND (or --all)");
    int kind = bspkit_sample_find(kind_name);
    if (kind < 0)
        return usage_error("unknown KIND '%s' (see --list)", kind_name);
    return generate_one((bspkit_sample_kind)kind, output);
}
