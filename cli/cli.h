/* Shared declarations for the bspkit command-line tool. Commands parse their
 * arguments and call the public library API only. */
#ifndef BSPKIT_CLI_H
#define BSPKIT_CLI_H

#include "bspkit/bspkit.h"

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

/* True when argv holds -h or --help. */
int cli_wants_help(int argc, char **argv);
/* Print "bspkit: FILE: message" for a library error to stderr. */
void cli_report_error(const char *file, const bspkit_error *err);

#endif
