/* bspkit diff: what differs between two maps (entities matched across both,
 * their key/value and output changes, changed lumps), or a Stripper:Source
 * config that turns the first map's entities into the second's. */
#include "cli.h"
#include "bspkit/diff.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void cmd_diff_help(FILE *out)
{
    fprintf(out,
            "usage: bspkit diff A B [--json]\n"
            "       bspkit diff A B --stripper [-o FILE]\n"
            "\n"
            "Compare two maps: which entities were removed, changed or added, which\n"
            "key/values and output connections of a changed entity differ, and which lumps\n"
            "changed (decompressed sizes and CRC-32s).\n"
            "\n"
            "Entities are paired by \"hammerid\", else by classname and targetname, else by\n"
            "classname and origin, else by classname; within a group equal entities pair\n"
            "first, then the rest in file order. Two entities are equal when every key\n"
            "holds the same values in the same order; the order between different keys\n"
            "is not compared. Keys whose values are all output connections (four commas or\n"
            "four 0x1B separators) are compared as multisets: connections removed and added,\n"
            "or the same ones reordered.\n"
            "\n"
            "options:\n"
            "  --json      print one JSON object instead of text\n"
            "  --stripper  print a Stripper:Source config that turns A's entities into B's\n"
            "              (filter:, modify: and add: blocks; `bspkit ent A --stripper CFG`\n"
            "              applies it); the config is checked against B before it is written\n"
            "  -o FILE     with --stripper: write the config to FILE (temporary file, then\n"
            "              renamed) instead of stdout\n"
            "  -h, --help  show this help\n"
            "\n"
            "JSON output keys: a, b (the files), equal, entities (count_a, count_b, removed,\n"
            "changed, added, diffs: each with kind \"removed\"/\"changed\"/\"added\", index_a,\n"
            "index_b (null where absent), match (\"hammerid\", \"targetname\", \"origin\",\n"
            "\"classname\" or null), classname, id, pairs ([key, value] of the removed or added\n"
            "entity, B's for a changed one), keys (changed only: kind, key, old, new, output),\n"
            "reordered), lumps (compared: false when the maps are of different families;\n"
            "changed: how many; list: index, name, size_a, size_b, crc_a, crc_b, changed).\n"
            "\n"
            "exit codes (as diff(1)):\n"
            "  0   no differences\n"
            "  1   the maps differ\n"
            "  2   a map could not be read, or the config could not be made or written\n"
            "  64  usage error\n");
}

static const char *kind_name(bspkit_diff_kind k)
{
    return k == BSPKIT_DIFF_ADDED ? "added" : k == BSPKIT_DIFF_REMOVED ? "removed" : "changed";
}

static const char *match_name(bspkit_diff_match m)
{
    switch (m) {
    case BSPKIT_DIFF_MATCH_HAMMERID: return "hammerid";
    case BSPKIT_DIFF_MATCH_TARGETNAME: return "targetname";
    case BSPKIT_DIFF_MATCH_ORIGIN: return "origin";
    case BSPKIT_DIFF_MATCH_CLASSNAME: return "classname";
    default: return NULL;
    }
}

static json_t *json_index(size_t i) { return i == SIZE_MAX ? json_null() : json_integer((json_int_t)i); }
static json_t *json_str_or_null(const char *s) { return s ? cli_json_string(s) : json_null(); }

static json_t *diff_json(const char *fa, const char *fb, const bspkit_diff *d)
{
    json_t *root = json_object(), *ents = json_object(), *list = json_array(), *lumps = json_object(),
           *llist = json_array();
    bool ok = root && ents && list && lumps && llist;
    ok = ok && cli_json_set(root, "a", cli_json_string(fa)) && cli_json_set(root, "b", cli_json_string(fb)) &&
         cli_json_set(root, "equal", json_boolean(bspkit_diff_is_empty(d)));
    ok = ok && cli_json_set(ents, "count_a", json_integer((json_int_t)d->entity_count_a)) &&
         cli_json_set(ents, "count_b", json_integer((json_int_t)d->entity_count_b)) &&
         cli_json_set(ents, "removed", json_integer((json_int_t)d->removed)) &&
         cli_json_set(ents, "changed", json_integer((json_int_t)d->changed)) &&
         cli_json_set(ents, "added", json_integer((json_int_t)d->added));
    for (size_t i = 0; ok && i < d->entity_diff_count; i++) {
        const bspkit_diff_entity *e = &d->entities[i];
        json_t *o = json_object(), *pairs = json_array();
        ok = o && pairs && json_array_append_new(list, o) == 0;
        ok = ok && cli_json_set(o, "kind", json_string(kind_name(e->kind))) &&
             cli_json_set(o, "index_a", json_index(e->index_a)) && cli_json_set(o, "index_b", json_index(e->index_b)) &&
             cli_json_set(o, "match", json_str_or_null(match_name(e->match))) &&
             cli_json_set(o, "classname", json_str_or_null(e->classname)) &&
             cli_json_set(o, "id", json_str_or_null(e->id));
        for (size_t k = 0; ok && k < e->pair_count; k++) {
            json_t *kv = json_array();
            ok = kv && json_array_append_new(pairs, kv) == 0 &&
                 json_array_append_new(kv, cli_json_string(e->pairs[k].key)) == 0 &&
                 json_array_append_new(kv, cli_json_string(e->pairs[k].value)) == 0;
        }
        ok = ok && cli_json_set(o, "pairs", pairs);
        pairs = NULL;
        if (ok && e->kind == BSPKIT_DIFF_CHANGED) {
            json_t *keys = json_array();
            ok = keys && cli_json_set(o, "keys", keys) && cli_json_set(o, "reordered", json_boolean(e->reordered));
            for (size_t k = 0; ok && k < e->key_count; k++) {
                const bspkit_diff_key *c = &e->keys[k];
                json_t *ko = json_object();
                ok = ko && json_array_append_new(keys, ko) == 0 &&
                     cli_json_set(ko, "kind", json_string(kind_name(c->kind))) &&
                     cli_json_set(ko, "key", cli_json_string(c->key)) &&
                     cli_json_set(ko, "old", json_str_or_null(c->old_value)) &&
                     cli_json_set(ko, "new", json_str_or_null(c->new_value)) &&
                     cli_json_set(ko, "output", json_boolean(c->output));
            }
        }
        json_decref(pairs);
    }
    ok = ok && cli_json_set(ents, "diffs", list);
    list = NULL;
    ok = ok && cli_json_set(root, "entities", ents);
    ents = NULL;
    ok = ok && cli_json_set(lumps, "compared", json_boolean(d->lumps_compared)) &&
         cli_json_set(lumps, "changed", json_integer((json_int_t)d->lumps_changed));
    for (size_t i = 0; ok && i < d->lump_count; i++) {
        const bspkit_diff_lump *l = &d->lumps[i];
        char ca[9], cb[9];
        snprintf(ca, sizeof ca, "%08" PRIx32, l->crc_a);
        snprintf(cb, sizeof cb, "%08" PRIx32, l->crc_b);
        json_t *o = json_object();
        ok = o && json_array_append_new(llist, o) == 0 && cli_json_set(o, "index", json_integer(l->index)) &&
             cli_json_set(o, "name", json_str_or_null(l->name)) &&
             cli_json_set(o, "size_a", json_integer((json_int_t)l->size_a)) &&
             cli_json_set(o, "size_b", json_integer((json_int_t)l->size_b)) &&
             cli_json_set(o, "crc_a", json_string(ca)) && cli_json_set(o, "crc_b", json_string(cb)) &&
             cli_json_set(o, "changed", json_boolean(l->changed));
    }
    ok = ok && cli_json_set(lumps, "list", llist);
    llist = NULL;
    ok = ok && cli_json_set(root, "lumps", lumps);
    lumps = NULL;
    json_decref(list);
    json_decref(ents);
    json_decref(llist);
    json_decref(lumps);
    if (!ok) {
        json_decref(root);
        return NULL;
    }
    return root;
}

static void print_entity_head(char sign, const bspkit_diff_entity *e)
{
    printf("%c entity ", sign);
    if (e->index_a != SIZE_MAX && e->index_b != SIZE_MAX)
        printf("%zu -> %zu", e->index_a, e->index_b);
    else
        printf("%zu", e->index_a != SIZE_MAX ? e->index_a : e->index_b);
    printf(" %s", e->classname ? e->classname : "(no classname)");
    if (e->id)
        printf(" \"%s\"", e->id);
    if (match_name(e->match) && e->kind == BSPKIT_DIFF_CHANGED)
        printf(" (matched by %s)", match_name(e->match));
    printf("\n");
}

static void print_text(const char *fa, const char *fb, const bspkit_diff *d)
{
    printf("a: %s\nb: %s\n", fa, fb);
    printf("entities: %zu in a, %zu in b; %zu removed, %zu changed, %zu added\n", d->entity_count_a,
           d->entity_count_b, d->removed, d->changed, d->added);
    for (size_t i = 0; i < d->entity_diff_count; i++) {
        const bspkit_diff_entity *e = &d->entities[i];
        print_entity_head(e->kind == BSPKIT_DIFF_ADDED ? '+' : e->kind == BSPKIT_DIFF_REMOVED ? '-' : '~', e);
        for (size_t k = 0; k < e->key_count; k++) {
            const bspkit_diff_key *c = &e->keys[k];
            const char *tag = c->output ? " (output)" : "";
            if (c->kind == BSPKIT_DIFF_CHANGED)
                printf("    %s: \"%s\" -> \"%s\"\n", c->key, c->old_value, c->new_value);
            else if (c->kind == BSPKIT_DIFF_ADDED)
                printf("    + \"%s\" \"%s\"%s\n", c->key, c->new_value, tag);
            else
                printf("    - \"%s\" \"%s\"%s\n", c->key, c->old_value, tag);
        }
        if (e->reordered)
            printf("    (a repeated key's values in another order)\n");
    }
    if (!d->lumps_compared) {
        printf("lumps: not compared (the maps are of different formats)\n");
        return;
    }
    printf("lumps: %zu of %zu changed\n", d->lumps_changed, d->lump_count);
    for (size_t i = 0; i < d->lump_count; i++) {
        const bspkit_diff_lump *l = &d->lumps[i];
        if (l->changed)
            printf("  %3d %-24s %" PRIu64 " -> %" PRIu64 " bytes  crc %08" PRIx32 " -> %08" PRIx32 "\n", l->index,
                   l->name ? l->name : "?", l->size_a, l->size_b, l->crc_a, l->crc_b);
    }
}

static int write_stripper(const char *fa, bspkit_map *a, bspkit_map *b, const char *out)
{
    const bspkit_entities *ea, *eb;
    bspkit_entlist *la = NULL, *lb = NULL;
    char *text = NULL;
    size_t size = 0;
    bspkit_error err;
    int status = CLI_EXIT_OK;
    if (bspkit_get_entities(a, &ea, &err) != BSPKIT_OK || bspkit_entlist_from_entities(ea, &la, &err) != BSPKIT_OK ||
        bspkit_get_entities(b, &eb, &err) != BSPKIT_OK || bspkit_entlist_from_entities(eb, &lb, &err) != BSPKIT_OK ||
        bspkit_diff_stripper(la, lb, &text, &size, &err) != BSPKIT_OK) {
        cli_report_error(fa, &err);
        status = CLI_EXIT_UNREADABLE;
    } else if (out) {
        if (bspkit_save_file(out, text, size, &err) != BSPKIT_OK) {
            cli_report_error(out, &err);
            status = CLI_EXIT_UNREADABLE;
        }
    } else if (fwrite(text, 1, size, stdout) != size) {
        status = CLI_EXIT_UNREADABLE;
    }
    bspkit_free(text);
    bspkit_entlist_free(la);
    bspkit_entlist_free(lb);
    return status;
}

int cmd_diff(int argc, char **argv)
{
    const char *files[2] = {NULL, NULL};
    const char *out = NULL;
    bool json = false, stripper = false;
    int nfiles = 0;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int m = cli_option_value(argc, argv, &i, "-o", &v);
        if (m < 0) {
            cli_usage_error("diff", "-o needs a file name");
            return CLI_EXIT_USAGE;
        }
        if (m > 0) {
            out = v;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--stripper") == 0) {
            stripper = true;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            cli_usage_error("diff", "unknown option '%s'", argv[i]);
            return CLI_EXIT_USAGE;
        } else if (nfiles < 2) {
            files[nfiles++] = argv[i];
        } else {
            cli_usage_error("diff", "expected two maps, got a third: '%s'", argv[i]);
            return CLI_EXIT_USAGE;
        }
    }
    if (nfiles != 2) {
        cli_usage_error("diff", "expected two maps A and B");
        return CLI_EXIT_USAGE;
    }
    if (json && stripper) {
        cli_usage_error("diff", "--json and --stripper exclude each other");
        return CLI_EXIT_USAGE;
    }
    if (out && !stripper) {
        cli_usage_error("diff", "-o is for --stripper");
        return CLI_EXIT_USAGE;
    }
    bspkit_map *a = NULL, *b = NULL;
    if (cli_open_map(files[0], &a) != 0)
        return CLI_EXIT_UNREADABLE;
    if (cli_open_map(files[1], &b) != 0) {
        bspkit_close(a);
        return CLI_EXIT_UNREADABLE;
    }
    cli_warn_entities(files[0], a);
    cli_warn_entities(files[1], b);
    bspkit_diff *d = NULL;
    bspkit_error err;
    int status;
    if (bspkit_diff_maps(a, b, &d, &err) != BSPKIT_OK) {
        /* Name the map whose entities fail; a lump error names its lump. */
        const bspkit_entities *ents;
        bspkit_error e2;
        cli_report_error(bspkit_get_entities(a, &ents, &e2) != BSPKIT_OK ? files[0] : files[1], &err);
        status = CLI_EXIT_UNREADABLE;
    } else {
        status = bspkit_diff_is_empty(d) ? CLI_EXIT_OK : CLI_EXIT_INVALID;
        if (stripper) {
            int s = write_stripper(files[0], a, b, out);
            if (s != CLI_EXIT_OK)
                status = s;
        } else if (json) {
            if (cli_print_json(diff_json(files[0], files[1], d)) != CLI_EXIT_OK)
                status = CLI_EXIT_UNREADABLE;
        } else {
            print_text(files[0], files[1], d);
        }
    }
    bspkit_diff_free(d);
    bspkit_close(a);
    bspkit_close(b);
    if (cli_finish_output() != 0)
        return CLI_EXIT_UNREADABLE;
    return status;
}
