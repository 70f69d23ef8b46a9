/* Shared declarations for the bspkit command-line tool. Commands parse their
 * arguments and call the public library API only. */
#ifndef BSPKIT_CLI_H
#define BSPKIT_CLI_H

#include "bspkit/bspkit.h"
#include "bspkit/edit.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes shared by all commands. */
enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_INVALID = 1,     /* ran, but found an invalid map */
    CLI_EXIT_UNREADABLE = 2,  /* a file could not be read or is not a supported map */
    CLI_EXIT_USAGE = 64       /* bad command-line arguments */
};

typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
    void (*help)(FILE *out);
} cli_command;

int cmd_info(int argc, char **argv);
void cmd_info_help(FILE *out);
int cmd_check(int argc, char **argv);
void cmd_check_help(FILE *out);
int cmd_generate(int argc, char **argv);
void cmd_generate_help(FILE *out);
int cmd_ent(int argc, char **argv);
void cmd_ent_help(FILE *out);
int cmd_lump(int argc, char **argv);
void cmd_lump_help(FILE *out);
int cmd_lmp(int argc, char **argv);
void cmd_lmp_help(FILE *out);
int cmd_pak(int argc, char **argv);
void cmd_pak_help(FILE *out);
int cmd_dump(int argc, char **argv);
void cmd_dump_help(FILE *out);
int cmd_convert(int argc, char **argv);
void cmd_convert_help(FILE *out);
int cmd_vis(int argc, char **argv);
void cmd_vis_help(FILE *out);
int cmd_contents(int argc, char **argv);
void cmd_contents_help(FILE *out);
int cmd_lightmap(int argc, char **argv);
void cmd_lightmap_help(FILE *out);
int cmd_tex(int argc, char **argv);
void cmd_tex_help(FILE *out);
int cmd_wad(int argc, char **argv);
void cmd_wad_help(FILE *out);
int cmd_export(int argc, char **argv);
void cmd_export_help(FILE *out);
int cmd_decompile(int argc, char **argv);
void cmd_decompile_help(FILE *out);
int cmd_scan(int argc, char **argv);
void cmd_scan_help(FILE *out);
int cmd_fastdl(int argc, char **argv);
void cmd_fastdl_help(FILE *out);
int cmd_diff(int argc, char **argv);
void cmd_diff_help(FILE *out);
int cmd_size(int argc, char **argv);
void cmd_size_help(FILE *out);
int cmd_deps(int argc, char **argv);
void cmd_deps_help(FILE *out);
int cmd_render(int argc, char **argv);
void cmd_render_help(FILE *out);
int cmd_view(int argc, char **argv);
void cmd_view_help(FILE *out);

/* ---- util.c ---- */
/* Parse plain decimal digits up to `max`; 0 on success. */
int cli_parse_count(const char *text, uint64_t max, uint64_t *out);
/* Match `--name VALUE` or `--name=VALUE` at argv[*index]: 1 matched (advancing past a separate value),
 * 0 another argument, -1 value missing. */
int cli_option_value(int argc, char **argv, int *index, const char *name, const char **value);
/* Match `-j N` / `--jobs N` (a thread count from 1 to 64) at argv[*index]:
 * 1 matched, with *threads set; 0 another argument; -1 a bad or missing
 * count, after printing a usage error for `command`. */
int cli_jobs_option(const char *command, int argc, char **argv, int *index, unsigned *threads);
/* Print a usage error for `command` to stderr (the caller exits 64). */
void cli_usage_error(const char *command, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Flush stdout and report write errors (e.g. a full disk); 0 when all output was written, -1 otherwise. */
int cli_finish_output(void);
const char *cli_plural(uint64_t n, const char *one, const char *many);
/* A JSON string for arbitrary bytes: invalid UTF-8 becomes '?'. */
json_t *cli_json_string(const char *text);
/* The last component of a path (after its last '/'). */
const char *cli_base_name(const char *path);

/* The options export, render and view share, stored through these pointers:
 * -o FILE, --wad PATH (appended to wads), --no-textures, --no-lightmaps, --hdr. */
typedef struct cli_media_opts {
    const char **out;
    const char **wads; /* room for argc entries */
    size_t *wad_count;
    bool *no_textures, *no_lightmaps, *hdr;
} cli_media_opts;
/* Match one of them at argv[*index]: 1 matched (advancing past a value), 0 another argument, -1 a value
 * missing (usage error printed for `command`). */
int cli_media_option(const char *command, int argc, char **argv, int *index, const cli_media_opts *o);

/* ---- util.c: writing commands ---- */
/* Read a whole file ("-" = stdin) into a buffer with a NUL after its `size` bytes; prints the
 * error and returns -1 on failure. */
int cli_read_file(const char *path, uint8_t **data, size_t *size);
/* True when both paths name one existing file (any spelling, hard links). */
bool cli_same_file(const char *a, const char *b);
/* Resolve where a writing command writes: `*out` from -o, or the map itself
 * with --in-place. Refuses a missing -o and an -o naming the input without
 * --in-place (usage error printed, returns -1). */
int cli_check_output(const char *command, const char *map_path, const char **out, bool in_place);
/* Save atomically, printing conversion warnings and errors; returns an exit code. */
int cli_save_edit(bspkit_edit *e, const char *out, bspkit_save_options *opts);
/* Open a map, printing the error; 0 or -1. */
int cli_open_map(const char *path, bspkit_map **map);
/* A lump given as an index or a name; -1 (usage error printed) when there is none. */
int cli_find_lump(const char *command, const bspkit_map *map, const char *id);

/* ---- cmd_contents.c: shared with cmd_vis.c ---- */
/* True for "-64", "-.5": a negative number, not an option. */
bool cli_is_number_arg(const char *arg);
/* Parse three finite coordinates; prints a usage error and returns -1 otherwise. */
int cli_parse_point(const char *command, char *const text[3], bspkit_vec3 *out);
/* Contents names as a JSON array ("SOLID", ...), or NULL when out of memory. */
json_t *cli_contents_names(bspkit_family family, int32_t contents);
/* "LABEL value names" line (Source adds the value in hex). */
void cli_print_contents(const char *label, bspkit_family family, int32_t contents);
/* Parse the point (unless coords is NULL) and open the map: 0 with *map open, else the exit code
 * (the error is printed). */
int cli_query_open(const char *command, const char *file, char *const *coords, bspkit_vec3 *point,
                   bspkit_map **map);
/* Report a failed query; 64 for an argument the map cannot take (hull, model), else 1. */
int cli_query_status(const char *file, const bspkit_error *err);
/* Print and free `root` (NULL: out of memory); returns an exit code. */
int cli_print_json(json_t *root);
json_t *cli_json_point(bspkit_vec3 p);
/* Set obj[key] = value (taking the reference); false when either is NULL or on allocation failure, so a
 * chain of calls needs one check. */
bool cli_json_set(json_t *obj, const char *key, json_t *value);

/* ---- cmd_pak.c: shared with cmd_decompile.c ---- */
/* Write every PAKFILE entry of a Source map under `dir` (created if missing), with the same path checks as
 * `pak extract`; `*extracted` gets the number written. Errors printed; returns an exit code. */
int cli_pak_unpack(const char *map_path, bspkit_map *map, const char *dir, size_t *extracted);

/* ---- cmd_tex.c: PNG output shared with cmd_wad.c ---- */
struct bspkit_image;
/* A texture name as a relative PNG path: '/' and '\\' separate folders, "." and ".." and empty components are
 * dropped, '*' becomes '#', other characters file systems refuse become '_'; -1 when nothing is left or it does
 * not fit in `cap`. */
int cli_png_name(const char *name, char *out, size_t cap);
/* mkdir -p for an output directory the user named (bspkit_make_dirs); 0, or -1 with the reason printed. */
int cli_make_dir(const char *path);
/* Write `img` as DIR/REL through bspkit_write_file_under (no symbolic link followed). Errors printed. */
int cli_write_png_under(const char *dir, const char *rel, const struct bspkit_image *img);
/* True when `name` equals one of names[0..count) ignoring ASCII case. */
bool cli_name_seen(char **names, size_t count, const char *name);

/* ---- main.c ---- */
/* True when argv holds -h or --help. */
int cli_wants_help(int argc, char **argv);
/* Print "bspkit: FILE: message" for a library error to stderr. */
void cli_report_error(const char *file, const bspkit_error *err);
/* Prints, on stderr, each place where the map's entity text is damaged and
 * was read as the engines read it. */
void cli_warn_entities(const char *file, bspkit_map *map);

/* A command's process keeps freed memory for its next buffers instead of
 * returning every large block to the kernel, which must then fault in and
 * clear fresh pages each time (a folder of maps, the images of an export),
 * and lays its heap on huge pages where the kernel gives them (glibc). */
void cli_reuse_memory(void);

/* A progress line on stderr ("[done/total] rate maps/s, time left"), drawn
 * only when stderr is a terminal, redrawn in place and cleared before other
 * output. */
typedef struct cli_progress {
    bool enabled;
    double start; /* seconds, monotonic */
} cli_progress;
double cli_now(void);
cli_progress cli_progress_start(void);
void cli_progress_draw(const cli_progress *p, size_t done, size_t total);
void cli_progress_clear(const cli_progress *p);

#endif
