/* Small helpers shared by the commands: option parsing, number parsing and
 * output checks. */
#include "cli.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


/* Accepts plain decimal digits only: strtoull would silently take signs,
 * leading blanks and "0x", and wrap negative numbers. */
int cli_parse_count(const char *text, uint64_t max, uint64_t *out)
{
    uint64_t value = 0;
    if (text == NULL || *text == '\0')
        return -1;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        unsigned digit = (unsigned)(*p - '0');
        if (value > (UINT64_MAX - digit) / 10)
            return -1;
        value = value * 10 + digit;
    }
    if (value > max)
        return -1;
    *out = value;
    return 0;
}

/* Matches "--name VALUE" and "--name=VALUE" at argv[*index]. Returns 1 and
 * advances *index past a separate value, 0 when argv[*index] is another
 * argument, -1 when the value is missing. */
int cli_option_value(int argc, char **argv, int *index, const char *name, const char **value)
{
    const char *arg = argv[*index];
    size_t len = strlen(name);
    if (strncmp(arg, name, len) != 0)
        return 0;
    if (arg[len] == '=') {
        *value = arg + len + 1;
        return 1;
    }
    if (arg[len] != '\0')
        return 0;
    if (*index + 1 >= argc)
        return -1;
    *index += 1;
    *value = argv[*index];
    return 1;
}

void cli_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "bspkit %s: ", command);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nRun 'bspkit %s --help' for usage.\n", command);
}

/* A full disk or closed pipe must not pass for success: the caller would
 * trust a truncated report. */
int cli_finish_output(void)
{
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        int e = errno;
        fprintf(stderr, "bspkit: error writing output: %s\n", e ? strerror(e) : "write failed");
        return -1;
    }
    return 0;
}

const char *cli_plural(uint64_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* json_string() rejects invalid UTF-8, which file names and texts read
 * from maps may hold; such bytes are shown as '?' rather than dropping the
 * whole value. */
json_t *cli_json_string(const char *text)
{
    json_t *value = json_string(text);
    if (value != NULL)
        return value;
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    if (copy == NULL)
        return NULL;
    for (size_t i = 0; i <= len; i++)
        copy[i] = ((unsigned char)text[i] < 0x80) ? text[i] : '?';
    value = json_string(copy);
    free(copy);
    return value;
}
