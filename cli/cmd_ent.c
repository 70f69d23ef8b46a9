/* bspkit ent: print the entity lump as text or JSON, or edit it (key/value
 * edits by selector, added or replacing entities, Stripper:Source configs)
 * and write the map. */
#include "cli.h"

#include "bspkit/edit.h"
#include "bspkit/entities_edit.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void cmd_ent_help(FILE *out)
{
    fprintf(out,
            "usage: bspkit ent MAP [--json]\n"
            "       bspkit ent MAP EDIT... (-o OUT | --in-place | --dry-run [--json])\n"
            "\n"
            "Print the entity lump of a map, or edit it and write the map.\n"
            "\n"
            "Without edits the entity text is printed as stored in the file, up to its\n"
            "terminating NUL. With --json it is printed as a JSON array with one object\n"
            "per entity, keys in file order; a key that occurs more than once in an\n"
            "entity (Source outputs such as \"OnTrigger\") has an array of its values, in\n"
            "order, at the place of its first occurrence. --replace and --add read this\n"
            "form back. Only the relative order of pairs with different keys can change\n"
            "on the way (keys are looked up by name, so this rarely matters; use the text\n"
            "form where it does). Bytes that are not valid UTF-8 are shown as '?' (with a\n"
            "warning on stderr).\n"
            "\n"
            "edits (applied in command-line order; each may be repeated):\n"
            "  --set SELECTOR KEY=VALUE  on every entity SELECTOR matches, give the first\n"
            "                            KEY pair VALUE, or append KEY when it is missing\n"
            "  --unset SELECTOR KEY      remove every KEY pair from the matching entities\n"
            "  --delete SELECTOR         remove the matching entities\n"
            "  --add FILE                append the entities in FILE\n"
            "  --replace FILE            replace all entities with those in FILE\n"
            "  --stripper CFG            apply a Stripper:Source config (filter:, add:,\n"
            "                            modify: with match:/replace:/delete:/insert:)\n"
            "FILE holds entity text ({ \"key\" \"value\" ... } blocks) or JSON as --json\n"
            "prints it (an array of objects, or one object; values are strings, arrays of\n"
            "strings for repeated keys, or integers). '-' reads standard input.\n"
            "\n"
            "output of edits:\n"
            "  -o, --output OUT  write the edited map to OUT (atomically: a temporary\n"
            "                    file renamed over OUT); OUT may not be MAP itself\n"
            "  --in-place        write the edited map over MAP\n"
            "  --dry-run         print the resulting entity text (or JSON with --json)\n"
            "                    instead of writing a map\n"
            "A one-line summary of the changes goes to stderr. When the entities end up\n"
            "as they were, the entity lump is written back unchanged.\n"
            "\n"
            "selectors: KEY=GLOB conditions separated by commas, all of which must hold;\n"
            "KEY!=GLOB holds when no KEY pair matches. Globs use * ? [...] and \\ as in\n"
            "shell patterns; write \\, for a comma inside a pattern. Keys compare\n"
            "case-insensitively, values too unless --case-sensitive is given. Examples:\n"
            "  classname=info_player_*    classname=light,targetname=lamp*\n"
            "  targetname=door1           classname=func_*,targetname!=*\n"
            "\n"
            "options:\n"
            "  --json            JSON output (see above)\n"
            "  --case-sensitive  selector values compare case-sensitively\n"
            "  -h, --help        show this help\n"
            "\n"
            "exit codes:\n"
            "  0   success\n"
            "  1   the entity lump, an input FILE or a config is malformed (the message\n"
            "      names the file and line)\n"
            "  2   a file could not be read or is not a supported map, or the output\n"
            "      could not be written\n"
            "  64  usage error (including a bad selector, and OUT naming MAP without\n"
            "      --in-place)\n");
}

typedef enum edit_kind { EDIT_SET, EDIT_UNSET, EDIT_DELETE, EDIT_ADD, EDIT_REPLACE, EDIT_STRIPPER } edit_kind;

typedef struct edit_op {
    edit_kind kind;
    const char *selector_text; /* set, unset, delete */
    bspkit_selector *selector;
    const char *file; /* add, replace, stripper */
    char *key;        /* set, unset */
    const char *value;
} edit_op;

typedef struct options {
    const char *map;
    const char *out;
    bool json, in_place, dry_run, case_sensitive;
    edit_op *ops;
    size_t op_count;
} options;

static void free_options(options *o)
{
    for (size_t i = 0; i < o->op_count; i++) {
        bspkit_selector_free(o->ops[i].selector);
        free(o->ops[i].key);
    }
    free(o->ops);
}

static edit_op *push_op(options *o, edit_kind kind)
{
    edit_op *ops = realloc(o->ops, (o->op_count + 1) * sizeof *ops);
    if (!ops)
        return NULL;
    o->ops = ops;
    edit_op *op = &ops[o->op_count++];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    return op;
}

/* ---- reading input files ------------------------------------------------- */

/* Reads a whole file ("-" = stdin) into a NUL-terminated buffer. */
static char *read_file(const char *path, size_t *size)
{
    uint8_t *data;
    return cli_read_file(path, &data, size) == 0 ? (char *)data : NULL;
}

/* Reads entities from FILE (entity text or JSON) into a new list. */
static int load_entities(const char *file, bspkit_entlist **out)
{
    *out = NULL;
    size_t size = 0;
    char *buf = read_file(file, &size);
    if (!buf)
        return CLI_EXIT_UNREADABLE;
    bspkit_error err;
    int status = CLI_EXIT_OK;
    if (bspkit_entities_text_is_json(buf, size)) {
        if (bspkit_entlist_from_json(buf, size, out, &err) != BSPKIT_OK) {
            cli_report_error(file, &err);
            status = err.code == BSPKIT_ERR_NOMEM ? CLI_EXIT_UNREADABLE : CLI_EXIT_INVALID;
        }
    } else {
        bspkit_entities *ents = NULL;
        if (bspkit_entities_parse(buf, size, &ents, &err) != BSPKIT_OK) {
            cli_report_error(file, &err);
            status = err.code == BSPKIT_ERR_NOMEM ? CLI_EXIT_UNREADABLE : CLI_EXIT_INVALID;
        } else if (ents->trailing_bytes) {
            fprintf(stderr, "bspkit: %s: unexpected text after the last entity (byte %llu)\n", file,
                    (unsigned long long)ents->trailing_offset);
            status = CLI_EXIT_INVALID;
        } else if (bspkit_entlist_from_entities(ents, out, &err) != BSPKIT_OK) {
            cli_report_error(file, &err);
            status = CLI_EXIT_UNREADABLE;
        }
        bspkit_entities_free(ents);
    }
    free(buf);
    if (status != CLI_EXIT_OK) {
        bspkit_entlist_free(*out);
        *out = NULL;
    }
    return status;
}

/* ---- arguments ------------------------------------------------------------------ */

#define USAGE(...) (cli_usage_error("ent", __VA_ARGS__), CLI_EXIT_USAGE)

/* A KEY=VALUE or KEY argument: keys may not be empty, and nothing may hold a
 * double quote, which entity text cannot carry. */
static int split_assignment(edit_op *op, const char *arg, bool with_value)
{
    const char *eq = with_value ? strchr(arg, '=') : NULL;
    if (with_value && !eq)
        return USAGE("expected KEY=VALUE after the selector, got '%s'", arg);
    size_t klen = eq ? (size_t)(eq - arg) : strlen(arg);
    if (klen == 0)
        return USAGE("empty key in '%s'", arg);
    if (strchr(arg, '"'))
        return USAGE("'%s': keys and values cannot contain a double quote", arg);
    op->key = strndup(arg, klen);
    if (!op->key) {
        fprintf(stderr, "bspkit: out of memory\n");
        return CLI_EXIT_UNREADABLE;
    }
    op->value = eq ? eq + 1 : NULL;
    return CLI_EXIT_OK;
}

static int parse_args(int argc, char **argv, options *o)
{
    bool options_done = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = NULL;
        if (options_done || arg[0] != '-' || strcmp(arg, "-") == 0) {
            if (o->map)
                return USAGE("expects one map file, got '%s' and '%s'", o->map, arg);
            o->map = arg;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            options_done = true;
        } else if (strcmp(arg, "--json") == 0) {
            o->json = true;
        } else if (strcmp(arg, "--in-place") == 0) {
            o->in_place = true;
        } else if (strcmp(arg, "--dry-run") == 0) {
            o->dry_run = true;
        } else if (strcmp(arg, "--case-sensitive") == 0) {
            o->case_sensitive = true;
        } else if (strcmp(arg, "-o") == 0 || strncmp(arg, "--output", 8) == 0) {
            int m = strcmp(arg, "-o") == 0 ? cli_option_value(argc, argv, &i, "-o", &value)
                                           : cli_option_value(argc, argv, &i, "--output", &value);
            if (m == 0)
                return USAGE("unknown option '%s'", arg);
            if (m < 0 || !*value)
                return USAGE("%s needs a file name", arg);
            if (o->out)
                return USAGE("more than one output file: '%s' and '%s'", o->out, value);
            o->out = value;
        } else {
            static const struct {
                const char *name;
                edit_kind kind;
            } EDITS[] = {{"--set", EDIT_SET},       {"--unset", EDIT_UNSET},     {"--delete", EDIT_DELETE},
                         {"--add", EDIT_ADD},       {"--replace", EDIT_REPLACE}, {"--stripper", EDIT_STRIPPER}};
            size_t k = 0;
            int m = 0;
            for (; k < sizeof EDITS / sizeof EDITS[0]; k++)
                if ((m = cli_option_value(argc, argv, &i, EDITS[k].name, &value)) != 0)
                    break;
            if (m == 0)
                return USAGE("unknown option '%s'", arg);
            if (m < 0)
                return USAGE("%s needs %s", EDITS[k].name,
                             EDITS[k].kind <= EDIT_DELETE ? "a selector" : "a file name");
            edit_op *op = push_op(o, EDITS[k].kind);
            if (!op) {
                fprintf(stderr, "bspkit: out of memory\n");
                return CLI_EXIT_UNREADABLE;
            }
            if (EDITS[k].kind >= EDIT_ADD) {
                if (!*value)
                    return USAGE("%s needs a file name", EDITS[k].name);
                op->file = value;
                continue;
            }
            op->selector_text = value;
            if (EDITS[k].kind == EDIT_SET || EDITS[k].kind == EDIT_UNSET) {
                if (i + 1 >= argc)
                    return USAGE("%s needs a selector and %s", EDITS[k].name,
                                 EDITS[k].kind == EDIT_SET ? "KEY=VALUE" : "a KEY");
                int r = split_assignment(op, argv[++i], EDITS[k].kind == EDIT_SET);
                if (r != CLI_EXIT_OK)
                    return r;
            }
        }
    }

    if (!o->map)
        return USAGE("missing map file");
    /* Selectors are parsed last: --case-sensitive may follow them. */
    for (size_t k = 0; k < o->op_count; k++) {
        edit_op *op = &o->ops[k];
        if (!op->selector_text)
            continue;
        bspkit_error err;
        if (bspkit_selector_parse(op->selector_text, o->case_sensitive ? BSPKIT_SELECT_CASE_SENSITIVE : 0,
                                  &op->selector, &err) != BSPKIT_OK) {
            const char *why = strncmp(err.message, "selector: ", 10) == 0 ? err.message + 10 : err.message;
            return USAGE("bad selector '%s': %s", op->selector_text, why);
        }
    }
    bool edits = o->op_count > 0;
    int outputs = (o->out != NULL) + o->in_place + o->dry_run;
    if (outputs > 1)
        return USAGE("choose one of -o, --in-place and --dry-run");
    if (edits && outputs == 0)
        return USAGE("edits need -o OUT, --in-place or --dry-run");
    if (!edits && outputs)
        return USAGE("%s without an edit option", o->out ? "-o" : o->in_place ? "--in-place" : "--dry-run");
    if (o->json && edits && !o->dry_run)
        return USAGE("--json with edits needs --dry-run");
    return CLI_EXIT_OK;
}

/* ---- applying edits --------------------------------------------------------------- */

static bool selector_pred(void *ctx, const bspkit_keyvalue *pairs, size_t count)
{
    return bspkit_selector_match_pairs(ctx, pairs, count);
}

/* Maps a library failure to an exit status after reporting it. */
static int lib_failure(const char *file, const bspkit_error *err)
{
    cli_report_error(file, err);
    return err->code == BSPKIT_ERR_NOMEM ? CLI_EXIT_UNREADABLE : CLI_EXIT_INVALID;
}

static int apply_op(const options *o, const edit_op *op, bspkit_entlist *list)
{
    bspkit_error err;
    bspkit_result r = BSPKIT_OK;
    switch (op->kind) {
    case EDIT_SET:
    case EDIT_UNSET:
        for (size_t e = 0; e < bspkit_entlist_count(list) && r == BSPKIT_OK; e++) {
            if (!bspkit_selector_match(op->selector, list, e))
                continue;
            r = op->kind == EDIT_SET ? bspkit_entlist_set(list, e, op->key, op->value, &err)
                                     : bspkit_entlist_delete_key(list, e, op->key, NULL, &err);
        }
        return r == BSPKIT_OK ? CLI_EXIT_OK : lib_failure(o->map, &err);
    case EDIT_DELETE:
        r = bspkit_entlist_delete_if(list, selector_pred, op->selector, NULL, &err);
        return r == BSPKIT_OK ? CLI_EXIT_OK : lib_failure(o->map, &err);
    case EDIT_ADD:
    case EDIT_REPLACE: {
        bspkit_entlist *from = NULL;
        int status = load_entities(op->file, &from);
        if (status != CLI_EXIT_OK)
            return status;
        if (op->kind == EDIT_REPLACE) {
            r = bspkit_entlist_replace(list, from, &err);
        } else {
            for (size_t e = 0; e < bspkit_entlist_count(from) && r == BSPKIT_OK; e++) {
                size_t n = 0;
                const bspkit_keyvalue *pairs = bspkit_entlist_pairs(from, e, &n);
                r = bspkit_entlist_add_entity(list, pairs, n, NULL, &err);
            }
        }
        bspkit_entlist_free(from);
        return r == BSPKIT_OK ? CLI_EXIT_OK : lib_failure(op->file, &err);
    }
    case EDIT_STRIPPER: {
        size_t size = 0;
        char *text = read_file(op->file, &size);
        if (!text)
            return CLI_EXIT_UNREADABLE;
        bspkit_stripper *cfg = NULL;
        r = bspkit_stripper_parse(text, size, &cfg, &err);
        free(text);
        if (r == BSPKIT_OK)
            r = bspkit_stripper_apply(cfg, list, NULL, &err);
        bspkit_stripper_free(cfg);
        return r == BSPKIT_OK ? CLI_EXIT_OK : lib_failure(op->file, &err);
    }
    }
    return CLI_EXIT_OK;
}

/* ---- output ------------------------------------------------------------------------ */

static int print_json(const char *file, const bspkit_entlist *list)
{
    size_t lossy = 0, size = 0;
    char *text = NULL;
    bspkit_error err;
    if (bspkit_entlist_to_json(list, &text, &size, &lossy, &err) != BSPKIT_OK) {
        cli_report_error(file, &err);
        return CLI_EXIT_UNREADABLE;
    }
    int status = CLI_EXIT_OK;
    if (fwrite(text, 1, size, stdout) != size || fputc('\n', stdout) == EOF)
        status = CLI_EXIT_UNREADABLE;
    free(text);
    if (lossy)
        fprintf(stderr, "bspkit: %s: warning: %zu %s not valid UTF-8; bytes above 0x7f are shown as '?'\n", file,
                lossy, cli_plural(lossy, "string is", "strings are"));
    return status;
}

/* Text up to the first NUL, as the engines read it. */
static void print_text(const char *text, size_t size)
{
    const char *nul = memchr(text, '\0', size);
    fwrite(text, 1, nul ? (size_t)(nul - text) : size, stdout);
}

static int write_map(const options *o, bspkit_map *map, const char *text, size_t size, bool set_text)
{
    const char *target = o->in_place ? o->map : o->out;
    bspkit_edit *e = NULL;
    bspkit_error err;
    int status = CLI_EXIT_OK;
    if (bspkit_edit_new(map, &e, &err) != BSPKIT_OK) {
        cli_report_error(o->map, &err);
        return CLI_EXIT_UNREADABLE;
    }
    if (set_text && bspkit_edit_set_entities_text(e, text, size, &err) != BSPKIT_OK) {
        cli_report_error(o->map, &err);
        status = CLI_EXIT_UNREADABLE;
    } else {
        status = cli_save_edit(e, target, NULL);
    }
    bspkit_edit_free(e);
    return status;
}

static int run_edits(const options *o, bspkit_map *map, const bspkit_entities *ents)
{
    bspkit_error err;
    bspkit_entlist *list = NULL;
    char *before = NULL, *after = NULL;
    size_t before_size = 0, after_size = 0;
    int status = CLI_EXIT_OK;
    if (bspkit_entlist_from_entities(ents, &list, &err) != BSPKIT_OK ||
        bspkit_entlist_serialize(list, &before, &before_size, &err) != BSPKIT_OK) {
        status = lib_failure(o->map, &err);
        goto done;
    }
    for (size_t k = 0; k < o->op_count && status == CLI_EXIT_OK; k++)
        status = apply_op(o, &o->ops[k], list);
    if (status != CLI_EXIT_OK)
        goto done;
    if (bspkit_entlist_serialize(list, &after, &after_size, &err) != BSPKIT_OK) {
        status = lib_failure(o->map, &err);
        goto done;
    }
    bool differs = after_size != before_size || memcmp(after, before, after_size) != 0;

    if (o->dry_run) {
        status = o->json ? print_json(o->map, list) : (print_text(after, after_size), CLI_EXIT_OK);
        if (status == CLI_EXIT_OK && cli_finish_output() != 0)
            status = CLI_EXIT_UNREADABLE;
    } else {
        /* Unchanged entities keep the lump's original bytes. */
        status = write_map(o, map, after, after_size, differs);
    }
    if (status == CLI_EXIT_OK) {
        bspkit_entlist_changes c;
        bspkit_entlist_get_changes(list, &c);
        const char *note = "";
        if (!differs)
            note = " (entity lump unchanged)";
        else if (c.changed + c.removed + c.added == 0)
            note = " (entity order changed)";
        fprintf(stderr, "bspkit: %s: %zu %s changed, %zu removed, %zu added%s%s\n",
                o->in_place || o->dry_run ? o->map : o->out, c.changed, cli_plural(c.changed, "entity", "entities"),
                c.removed, c.added, note, o->dry_run ? "; dry run, nothing written" : "");
    }
done:
    free(before);
    free(after);
    bspkit_entlist_free(list);
    return status;
}

int cmd_ent(int argc, char **argv)
{
    options o;
    memset(&o, 0, sizeof o);
    int status = parse_args(argc, argv, &o);
    if (status != CLI_EXIT_OK) {
        free_options(&o);
        return status;
    }
    if (o.out && cli_same_file(o.map, o.out)) {
        cli_usage_error("ent", "'%s' is the input map; use --in-place to overwrite it", o.out);
        free_options(&o);
        return CLI_EXIT_USAGE;
    }

    bspkit_map *map = NULL;
    bspkit_error err;
    if (bspkit_open_file(o.map, NULL, &map, &err) != BSPKIT_OK) {
        cli_report_error(o.map, &err);
        free_options(&o);
        return CLI_EXIT_UNREADABLE;
    }

    /* ENTITIES is lump 0 in every family (Blue Shift files are mapped to it). */
    const uint8_t *lump = NULL;
    size_t lump_size = 0;
    if (bspkit_lump_bytes(map, 0, &lump, &lump_size, &err) != BSPKIT_OK) {
        cli_report_error(o.map, &err);
        status = CLI_EXIT_UNREADABLE;
    } else if (o.op_count == 0 && !o.json) {
        print_text((const char *)lump, lump_size);
        if (cli_finish_output() != 0)
            status = CLI_EXIT_UNREADABLE;
    } else {
        const bspkit_entities *ents = NULL;
        cli_warn_entities(o.map, map);
        if (bspkit_get_entities(map, &ents, &err) != BSPKIT_OK) {
            status = lib_failure(o.map, &err);
        } else if (o.op_count == 0) {
            bspkit_entlist *list = NULL;
            if (bspkit_entlist_from_entities(ents, &list, &err) != BSPKIT_OK) {
                status = lib_failure(o.map, &err);
            } else {
                status = print_json(o.map, list);
                if (status == CLI_EXIT_OK && cli_finish_output() != 0)
                    status = CLI_EXIT_UNREADABLE;
            }
            bspkit_entlist_free(list);
        } else {
            status = run_edits(&o, map, ents);
        }
    }
    bspkit_close(map);
    free_options(&o);
    return status;
}
