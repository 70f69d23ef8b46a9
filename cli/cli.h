/* Shared declarations for the bspkit command-line tool. Commands parse their
 * arguments and call the public library API only. */
#ifndef BSPKIT_CLI_H
#define BSPKIT_CLI_H

#include "bspkit/bspkit.h"

#include <jansson.h>
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

/* ---- util.c ---- */
/* Parse plain decimal digits up to `max`; 0 on success. */
int cli_parse_count(const char *text, uint64_t max, uint64_t *out);
/* Match `--name VALUE` or `--name=VALUE` at argv[*index]: 1 matched (advancing past a separate value),
 * 0 another argument, -1 value missing. */
int cli_option_value(int argc, char **argv, int *index, const char *name, const char **value);
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

/* ---- main.c ---- */
/* True when argv holds -h or --help. */
int cli_wants_help(int argc, char **argv);
/* Print "bspkit: FILE: message" for a library error to stderr. */
void cli_report_error(const char *file, const bspkit_error *err);

#endif
