/* A Stripper:Source config that turns one entity list into another
 * (bspkit_diff_stripper in bspkit/diff.h). The blocks are planned against a
 * model of the list as the plugin would leave it after each block, so that
 * no block's match hits an entity it was not written for; the finished
 * config is then applied with the library's own Stripper code and the result
 * compared with the target list. */
#include "ops/ops_internal.h"
#include "core/ascii.h"
#include "core/grow.h"
#include "core/map.h"
#include "core/textbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One entity of the modelled list. */
typedef struct sim {
    bspkit_keyvalue *pairs; /* strings borrowed from the A and B lists */
    size_t count, cap;
    size_t target;  /* B's entity it must become, or OP_NONE when it must go */
    size_t index_a; /* position in A, or OP_NONE for an entity a block added */
    bool done;      /* equal to its target already */
    bool alive;     /* not filtered out */
} sim;

typedef struct plan {
    const op_side *a, *b;
    sim *sims;
    size_t nsims, cap;
    bk_tbuf text;
    bspkit_error *err;
    bspkit_result res;
} plan;

static bool fail_nomem(plan *p)
{
    if (p->res == BSPKIT_OK)
        p->res = bk_fail(p->err, BSPKIT_ERR_NOMEM, -1, -1, -1, "diff: out of memory");
    return false;
}

/* A config string is quoted and ends on its line: line breaks and quotes cannot be written. */
static bool has_break(const char *s) { return strpbrk(s, "\r\n\"") != NULL; }

/* A literal the plugin would read as a regular expression: /.../ */
static bool looks_like_regex(const char *v)
{
    size_t n = strlen(v);
    return n >= 2 && v[0] == '/' && v[n - 1] == '/';
}

/* A pair a match: or filter block can name as it is. */
static bool matchable(const bspkit_keyvalue *kv)
{
    return !has_break(kv->key) && !has_break(kv->value) && !looks_like_regex(kv->value);
}

static bool set_pairs(plan *p, sim *s, const bspkit_keyvalue *pairs, size_t count)
{
    if (!bk_grow((void **)&s->pairs, &s->cap, count ? count : 1, sizeof *s->pairs))
        return fail_nomem(p);
    if (count)
        memcpy(s->pairs, pairs, count * sizeof *pairs);
    s->count = count;
    return true;
}

static sim *new_sim(plan *p)
{
    if (!bk_grow((void **)&p->sims, &p->cap, p->nsims + 1, sizeof *p->sims)) {
        fail_nomem(p);
        return NULL;
    }
    sim *s = &p->sims[p->nsims++];
    memset(s, 0, sizeof *s);
    return s;
}

/* Does the entity hold a pair equal to every pair of `m`, as the plugin compares them? */
static bool sim_matches(const sim *s, const bspkit_keyvalue *m, size_t nm)
{
    for (size_t k = 0; k < nm; k++) {
        size_t i = 0;
        while (i < s->count &&
               !(bk_ascii_equal(s->pairs[i].key, m[k].key) && bk_ascii_equal(s->pairs[i].value, m[k].value)))
            i++;
        if (i == s->count)
            return false;
    }
    return true;
}

/* How many living entities `m` hits, and whether `self` is among them. */
static size_t hits(const plan *p, const bspkit_keyvalue *m, size_t nm, size_t self, bool *hits_self)
{
    size_t n = 0;
    *hits_self = false;
    for (size_t i = 0; i < p->nsims; i++)
        if (p->sims[i].alive && sim_matches(&p->sims[i], m, nm)) {
            n++;
            *hits_self |= i == self;
        }
    return n;
}

/* The match pairs that pick entity `self` alone, into `m` (room for its pair
 * count); 0 pairs when none does, with *all set to every matchable pair. */
static size_t choose_match(const plan *p, size_t self, bspkit_keyvalue *m, size_t *nall)
{
    static const char *const SETS[][2] = {
        {"classname", "hammerid"}, {"classname", "targetname"}, {"classname", "origin"}, {"classname", NULL}};
    const sim *s = &p->sims[self];
    bool in;
    for (size_t k = 0; k < sizeof SETS / sizeof SETS[0]; k++) {
        size_t nm = 0, want = SETS[k][1] ? 2 : 1;
        for (size_t j = 0; j < want; j++) {
            for (size_t i = 0; i < s->count; i++)
                if (bk_ascii_equal(s->pairs[i].key, SETS[k][j])) {
                    if (matchable(&s->pairs[i]))
                        m[nm++] = s->pairs[i];
                    break;
                }
        }
        if (nm == want && hits(p, m, nm, self, &in) == 1 && in)
            return nm;
    }
    size_t nm = 0;
    for (size_t i = 0; i < s->count; i++)
        if (matchable(&s->pairs[i]))
            m[nm++] = s->pairs[i];
    *nall = nm;
    if (nm && hits(p, m, nm, self, &in) == 1 && in)
        return nm;
    return 0;
}

static void put_comment(bk_tbuf *t, const char *what, const sim *s)
{
    const char *cls = op_value(s->pairs, s->count, "classname");
    tb_printf(t, "; %s", what);
    if (s->index_a != OP_NONE)
        tb_printf(t, " entity %zu", s->index_a);
    if (cls) {
        tb_puts(t, " (");
        for (const unsigned char *c = (const unsigned char *)cls; *c; c++)
            tb_put(t, *c >= 0x20 && *c < 0x7f ? (const char *)c : "?", 1);
        tb_puts(t, ")");
    }
    tb_puts(t, "\n");
}

static void put_pair(bk_tbuf *t, const char *indent, const char *key, const char *value)
{
    tb_printf(t, "%s\"%s\" \"%s\"\n", indent, key, value);
}

static void put_block(bk_tbuf *t, const char *indent, const bspkit_keyvalue *pairs, size_t n)
{
    tb_printf(t, "%s{\n", indent);
    size_t len = strlen(indent);
    char inner[16];
    snprintf(inner, sizeof inner, "%.*s\t", (int)(len < 8 ? len : 8), indent);
    for (size_t i = 0; i < n; i++)
        put_pair(t, inner, pairs[i].key, pairs[i].value);
    tb_printf(t, "%s}\n", indent);
}

static bool unsupported(plan *p, const char *what, const sim *s)
{
    if (p->res == BSPKIT_OK) {
        const char *cls = op_value(s->pairs, s->count, "classname");
        if (s->index_a != OP_NONE)
            p->res = bk_fail(p->err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1,
                             "diff: entity %zu of A (%.60s): %s in a Stripper config", s->index_a,
                             cls ? cls : "no classname", what);
        else
            p->res = bk_fail(p->err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1,
                             "diff: entity %zu of B (%.60s): %s in a Stripper config", s->target,
                             cls ? cls : "no classname", what);
    }
    return false;
}

static bool any_break(const bspkit_keyvalue *pairs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (has_break(pairs[i].key) || has_break(pairs[i].value))
            return true;
    return false;
}

/* An add: block for B's entity `j`, and the entity it adds. */
static bool add_target(plan *p, size_t j)
{
    const op_ent *e = &p->b->ents[j];
    sim tmp = {(bspkit_keyvalue *)e->pairs, e->count, 0, j, OP_NONE, true, true};
    if (!op_value(e->pairs, e->count, "classname"))
        return unsupported(p, "an entity without a classname cannot be added", &tmp);
    if (any_break(e->pairs, e->count))
        return unsupported(p, "a line break or double quote cannot be written", &tmp);
    put_comment(&p->text, "add", &tmp);
    tb_puts(&p->text, "add:\n");
    put_block(&p->text, "", e->pairs, e->count);
    sim *s = new_sim(p);
    if (!s || !set_pairs(p, s, e->pairs, e->count))
        return false;
    s->target = j;
    s->index_a = OP_NONE;
    s->done = s->alive = true;
    return true;
}

/* Remove every entity `m` hits and add back what each must become. */
static bool filter_and_readd(plan *p, const bspkit_keyvalue *m, size_t nm)
{
    tb_puts(&p->text, "filter:\n");
    put_block(&p->text, "", m, nm);
    size_t n = p->nsims;
    for (size_t i = 0; i < n; i++) {
        if (!p->sims[i].alive || !sim_matches(&p->sims[i], m, nm))
            continue;
        p->sims[i].alive = false;
        size_t target = p->sims[i].target;
        p->sims[i].done = true;
        if (target != OP_NONE && !add_target(p, target))
            return false;
    }
    return true;
}

/* Parts of one modify block, pair lists borrowed from the entities. */
typedef struct parts {
    bspkit_keyvalue *del, *rep, *ins;
    size_t ndel, nrep, nins;
} parts;

/* The delete:, replace: and insert: parts that turn entity `cur` into `want`. */
static bool modify_parts(const op_ent *cur, const op_ent *want, parts *o)
{
    size_t i = 0, j = 0;
    while (i < cur->count || j < want->count) {
        int c = i == cur->count    ? 1
                : j == want->count ? -1
                                   : bk_ascii_casecmp(cur->pairs[cur->order[i]].key, want->pairs[want->order[j]].key);
        size_t ei = c <= 0 ? op_key_run(cur, i) : i, ej = c >= 0 ? op_key_run(want, j) : j;
        bool same = ei - i == ej - j;
        for (size_t k = 0; same && k < ei - i; k++) {
            const bspkit_keyvalue *x = &cur->pairs[cur->order[i + k]], *y = &want->pairs[want->order[j + k]];
            same = strcmp(x->key, y->key) == 0 && strcmp(x->value, y->value) == 0;
        }
        if (!same) {
            if (ei - i == 1 && ej - j == 1 && strcmp(cur->pairs[cur->order[i]].key, want->pairs[want->order[j]].key) == 0) {
                o->rep[o->nrep++] = want->pairs[want->order[j]];
            } else {
                if (ei > i)
                    o->del[o->ndel++] = (bspkit_keyvalue){cur->pairs[cur->order[i]].key, "/^/", 0, 0};
                for (size_t k = j; k < ej; k++)
                    o->ins[o->nins++] = want->pairs[want->order[k]];
            }
        }
        i = ei;
        j = ej;
    }
    return true;
}

/* Apply the parts to the modelled entity as the plugin does: delete:, replace:, insert:. */
static bool apply_parts(plan *p, sim *s, const parts *o)
{
    size_t w = 0;
    for (size_t i = 0; i < s->count; i++) {
        bool gone = false;
        for (size_t k = 0; k < o->ndel && !gone; k++)
            gone = bk_ascii_equal(s->pairs[i].key, o->del[k].key);
        if (!gone)
            s->pairs[w++] = s->pairs[i];
    }
    s->count = w;
    for (size_t k = 0; k < o->nrep; k++)
        for (size_t i = 0; i < s->count; i++)
            if (bk_ascii_equal(s->pairs[i].key, o->rep[k].key))
                s->pairs[i].value = o->rep[k].value;
    if (!bk_grow((void **)&s->pairs, &s->cap, s->count + o->nins, sizeof *s->pairs))
        return fail_nomem(p);
    memcpy(s->pairs + s->count, o->ins, o->nins * sizeof *o->ins);
    s->count += o->nins;
    return true;
}

static void put_part(bk_tbuf *t, const char *name, const bspkit_keyvalue *pairs, size_t n)
{
    if (!n)
        return;
    tb_printf(t, "\t%s\n", name);
    put_block(t, "\t", pairs, n);
}

/* Bring A's entity `i` (still pending) to its target, or remove it. */
static bool settle(plan *p, size_t i)
{
    sim *s = &p->sims[i];
    bspkit_keyvalue *m = malloc((s->count ? s->count : 1) * sizeof *m);
    if (!m)
        return fail_nomem(p);
    size_t nall = 0;
    size_t nm = choose_match(p, i, m, &nall);
    bool ok = true;
    if (nm == 0) {
        /* Entities the plugin cannot tell apart: all of them go, the kept ones come back. */
        if (nall == 0) {
            ok = unsupported(p, "no pair a match could name (an empty entity, or values in /.../ or with line breaks)", s);
        } else {
            put_comment(&p->text, s->target == OP_NONE ? "remove" : "change", s);
            ok = filter_and_readd(p, m, nall);
        }
    } else if (s->target == OP_NONE) {
        put_comment(&p->text, "remove", s);
        tb_puts(&p->text, "filter:\n");
        put_block(&p->text, "", m, nm);
        s->alive = false;
        s->done = true;
    } else {
        const op_ent *want = &p->b->ents[s->target];
        op_ent cur;
        size_t n = s->count + want->count + 1;
        parts o = {0};
        if (!op_ent_init(&cur, s->pairs, s->count)) {
            free(m);
            return fail_nomem(p);
        }
        o.del = malloc(n * sizeof *o.del);
        o.rep = malloc(n * sizeof *o.rep);
        o.ins = malloc(n * sizeof *o.ins);
        if (!o.del || !o.rep || !o.ins)
            ok = fail_nomem(p);
        else
            modify_parts(&cur, want, &o);
        op_ent_clear(&cur);
        if (ok && (any_break(o.rep, o.nrep) || any_break(o.ins, o.nins) || any_break(o.del, o.ndel)))
            ok = unsupported(p, "a line break or double quote cannot be written", s);
        if (ok) {
            put_comment(&p->text, "change", s);
            tb_puts(&p->text, "modify:\n{\n");
            put_part(&p->text, "match:", m, nm);
            put_part(&p->text, "delete:", o.del, o.ndel);
            put_part(&p->text, "replace:", o.rep, o.nrep);
            put_part(&p->text, "insert:", o.ins, o.nins);
            tb_puts(&p->text, "}\n");
            ok = apply_parts(p, s, &o);
            s->done = true;
        }
        free(o.del);
        free(o.rep);
        free(o.ins);
    }
    free(m);
    return ok;
}

/* Equal as multisets of entities (bspkit/diff.h's equality)? */
static bool same_entities(const op_side *x, const op_side *y, bspkit_error *err, bspkit_result *res)
{
    if (x->count != y->count)
        return false;
    bool *used = calloc(y->count ? y->count : 1, 1);
    if (!used) {
        *res = bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "diff: out of memory");
        return false;
    }
    bool same = true;
    /* Most entities stay at their index; look there first. */
    for (size_t i = 0; i < x->count && same; i++) {
        size_t j = i;
        if (used[j] || !op_ent_equal(&x->ents[i], &y->ents[j])) {
            j = 0;
            while (j < y->count && (used[j] || !op_ent_equal(&x->ents[i], &y->ents[j])))
                j++;
        }
        if (j == y->count)
            same = false;
        else
            used[j] = true;
    }
    free(used);
    return same;
}

/* Apply the config to a copy of A and compare with B. */
static bspkit_result verify(const bspkit_entlist *a, const op_side *b, const char *text, size_t size,
                            bspkit_error *err)
{
    bspkit_entlist *copy = NULL;
    bspkit_stripper *cfg = NULL;
    op_side got = {0};
    bspkit_result r = bspkit_entlist_new(&copy, err);
    if (r == BSPKIT_OK)
        r = bspkit_entlist_replace(copy, a, err);
    if (r == BSPKIT_OK)
        r = bspkit_stripper_parse(text, size, &cfg, err);
    if (r == BSPKIT_OK)
        r = bspkit_stripper_apply(cfg, copy, NULL, err);
    if (r == BSPKIT_OK)
        r = op_side_load(copy, &got, err);
    if (r == BSPKIT_OK && !same_entities(&got, b, err, &r) && r == BSPKIT_OK)
        r = bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1,
                    "diff: the Stripper config does not reproduce the second entity list");
    op_side_free(&got);
    bspkit_stripper_free(cfg);
    bspkit_entlist_free(copy);
    return r;
}

bspkit_result bspkit_diff_stripper(const bspkit_entlist *a, const bspkit_entlist *b, char **text, size_t *size,
                                   bspkit_error *err)
{
    bk_error_clear(err);
    if (!a || !b || !text || !size)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "diff: NULL argument");
    *text = NULL;
    *size = 0;
    op_side sa = {0}, sb = {0};
    size_t *to_b = NULL, *to_a = NULL;
    uint8_t *round = NULL;
    plan p = {0};
    p.err = err;
    p.a = &sa;
    p.b = &sb;
    p.res = op_side_load(a, &sa, err);
    if (p.res == BSPKIT_OK)
        p.res = op_side_load(b, &sb, err);
    if (p.res == BSPKIT_OK) {
        to_b = malloc((sa.count + 1) * sizeof *to_b);
        to_a = malloc((sb.count + 1) * sizeof *to_a);
        round = malloc(sa.count + 1);
        if (!to_b || !to_a || !round)
            fail_nomem(&p);
        else
            p.res = op_pair_sides(&sa, &sb, to_b, to_a, round, err);
    }
    size_t removed = 0, changed = 0, added = 0;
    for (size_t i = 0; i < sa.count && p.res == BSPKIT_OK; i++) {
        sim *s = new_sim(&p);
        if (!s || !set_pairs(&p, s, sa.ents[i].pairs, sa.ents[i].count))
            break;
        s->target = to_b[i];
        s->index_a = i;
        s->alive = true;
        s->done = to_b[i] != OP_NONE && op_ent_equal(&sa.ents[i], &sb.ents[to_b[i]]);
        removed += to_b[i] == OP_NONE;
        changed += !s->done && to_b[i] != OP_NONE;
    }
    for (size_t j = 0; j < sb.count && p.res == BSPKIT_OK; j++)
        added += to_a[j] == OP_NONE;
    if (p.res == BSPKIT_OK)
        tb_printf(&p.text,
                  "; Stripper:Source config: turns the entities of one map into another's\n"
                  "; %zu removed, %zu changed, %zu added\n",
                  removed, changed, added);
    for (size_t i = 0; i < sa.count && p.res == BSPKIT_OK; i++)
        if (p.sims[i].alive && !p.sims[i].done)
            settle(&p, i);
    for (size_t j = 0; j < sb.count && p.res == BSPKIT_OK; j++)
        if (to_a[j] == OP_NONE)
            add_target(&p, j);
    if (p.res == BSPKIT_OK && p.text.failed)
        fail_nomem(&p);
    if (p.res == BSPKIT_OK && !p.text.data) {
        tb_puts(&p.text, "");
        if (p.text.failed || !p.text.data)
            fail_nomem(&p);
    }
    if (p.res == BSPKIT_OK)
        p.res = verify(a, &sb, p.text.data, p.text.size, err);
    for (size_t i = 0; i < p.nsims; i++)
        free(p.sims[i].pairs);
    free(p.sims);
    free(to_b);
    free(to_a);
    free(round);
    op_side_free(&sa);
    op_side_free(&sb);
    if (p.res != BSPKIT_OK) {
        tb_free(&p.text);
        return p.res;
    }
    *text = p.text.data;
    *size = p.text.size;
    return BSPKIT_OK;
}
