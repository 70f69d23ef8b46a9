/* Stripper:Source configs: parse filter/add/modify sections and apply them
 * to an entity list. The rules and how they differ from the plugin are
 * documented in bspkit/entities_edit.h. */
#include "bspkit/entities_edit.h"
#include "core/grow.h"
#include "core/map.h"
#include "core/ascii.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct spair {
    char *key, *value;
    pcre2_code *re;               /* a /regex/ value, or NULL */
    pcre2_match_data *match_data; /* with re */
    unsigned long line;           /* of the value, for match failures */
} spair;

typedef struct plist {
    spair *items;
    size_t count, cap;
    bool given; /* the part was written, even if empty */
} plist;

typedef enum block_kind { BLOCK_FILTER, BLOCK_ADD, BLOCK_MODIFY } block_kind;

typedef struct block {
    block_kind kind;
    plist match;   /* filter conditions, or modify match: */
    plist insert;  /* add pairs, or modify insert: */
    plist replace; /* modify only */
    plist del;     /* modify only */
} block;

struct bspkit_stripper {
    block *blocks;
    size_t count, cap;
    pcre2_match_context *match_context; /* the limits of every match */
};

/* ------------------------------------------------------------------------ */
/* helpers                                                                   */
/* ------------------------------------------------------------------------ */

/* ASCII case-insensitive, as the plugin's stricmp. */
static bool text_equal(const char *a, const char *b)
{
    return bk_ascii_equal(a, b);
}

static bool span_equal(const char *s, size_t len, const char *word)
{
    size_t n = strlen(word);
    if (n != len)
        return false;
    for (size_t i = 0; i < n; i++)
        if (bk_ascii_lower((unsigned char)s[i]) != bk_ascii_lower((unsigned char)word[i]))
            return false;
    return true;
}

static void plist_free(plist *l)
{
    for (size_t i = 0; i < l->count; i++) {
        free(l->items[i].key);
        free(l->items[i].value);
        pcre2_code_free(l->items[i].re);
        pcre2_match_data_free(l->items[i].match_data);
    }
    free(l->items);
}

void bspkit_stripper_free(bspkit_stripper *cfg)
{
    if (!cfg)
        return;
    for (size_t i = 0; i < cfg->count; i++) {
        plist_free(&cfg->blocks[i].match);
        plist_free(&cfg->blocks[i].insert);
        plist_free(&cfg->blocks[i].replace);
        plist_free(&cfg->blocks[i].del);
    }
    free(cfg->blocks);
    pcre2_match_context_free(cfg->match_context);
    free(cfg);
}

size_t bspkit_stripper_block_count(const bspkit_stripper *cfg)
{
    return cfg ? cfg->count : 0;
}

/* Regular expressions are PCRE2 ones, as in Stripper:Source itself, with
 * bounded work per match so a hostile pattern cannot stall an apply. */
#define RE_MATCH_LIMIT 1000000u   /* backtracking steps */
#define RE_DEPTH_LIMIT 10000u     /* nested backtracking frames */
#define RE_HEAP_LIMIT_KIB 20000u  /* backtracking memory */

static pcre2_match_context *match_context(void)
{
    pcre2_match_context *mc = pcre2_match_context_create(NULL);
    if (mc) {
        pcre2_set_match_limit(mc, RE_MATCH_LIMIT);
        pcre2_set_depth_limit(mc, RE_DEPTH_LIMIT);
        pcre2_set_heap_limit(mc, RE_HEAP_LIMIT_KIB);
    }
    return mc;
}

/* ------------------------------------------------------------------------ */
/* tokenizer                                                                 */
/* ------------------------------------------------------------------------ */

typedef enum tok_kind { T_END, T_OPEN, T_CLOSE, T_STRING, T_WORD } tok_kind;

typedef struct tok {
    tok_kind kind;
    const char *s; /* T_STRING: contents without quotes; T_WORD: the word */
    size_t len;
    unsigned long line;
    size_t pos;
} tok;

typedef struct parser {
    const char *base, *p, *end;
    unsigned long line;
    bspkit_error *err;
    bspkit_stripper *cfg;
} parser;

static bspkit_result fail_at(parser *ps, size_t pos, unsigned long line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static bspkit_result fail_at(parser *ps, size_t pos, unsigned long line, const char *fmt, ...)
{
    if (ps->err) {
        char what[200];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
        bk_fail(ps->err, BSPKIT_ERR_ARGUMENT, -1, -1, (int64_t)pos, "stripper: line %lu: %s", line, what);
    }
    return BSPKIT_ERR_ARGUMENT;
}

static bspkit_result fail_nomem(bspkit_error *err)
{
    return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "stripper: out of memory");
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static void skip_blank(parser *ps)
{
    while (ps->p < ps->end) {
        char c = *ps->p;
        if (c == '\n') {
            ps->line++;
            ps->p++;
        } else if (is_blank(c)) {
            ps->p++;
        } else if (c == ';' || c == '#' || (c == '/' && ps->end - ps->p >= 2 && ps->p[1] == '/')) {
            const char *nl = memchr(ps->p, '\n', (size_t)(ps->end - ps->p));
            ps->p = nl ? nl : ps->end;
        } else {
            break;
        }
    }
}

static bspkit_result next_token(parser *ps, tok *t)
{
    skip_blank(ps);
    t->pos = (size_t)(ps->p - ps->base);
    t->line = ps->line;
    t->s = ps->p;
    t->len = 0;
    if (ps->p >= ps->end) {
        t->kind = T_END;
        return BSPKIT_OK;
    }
    char c = *ps->p;
    if (c == '{' || c == '}') {
        t->kind = c == '{' ? T_OPEN : T_CLOSE;
        t->len = 1;
        ps->p++;
        return BSPKIT_OK;
    }
    if (c == '"') {
        const char *q = ps->p + 1;
        while (q < ps->end && *q != '"' && *q != '\n')
            q++;
        if (q >= ps->end || *q != '"')
            return fail_at(ps, t->pos, t->line, "unterminated string (strings end on the line they start)");
        t->kind = T_STRING;
        t->s = ps->p + 1;
        t->len = (size_t)(q - t->s);
        ps->p = q + 1;
        return BSPKIT_OK;
    }
    const char *q = ps->p;
    while (q < ps->end && !is_blank(*q) && *q != '{' && *q != '}' && *q != '"' && *q != ';' && *q != '#' &&
           !(*q == '/' && q + 1 < ps->end && q[1] == '/'))
        q++;
    t->kind = T_WORD;
    t->len = (size_t)(q - ps->p);
    ps->p = q;
    return BSPKIT_OK;
}

/* ------------------------------------------------------------------------ */
/* parser                                                                    */
/* ------------------------------------------------------------------------ */

static int shown(size_t len)
{
    return len > 60 ? 60 : (int)len;
}

static bspkit_result add_pair(parser *ps, plist *l, const tok *key, const tok *value, bool matchable)
{
    if (!bk_grow((void **)&l->items, &l->cap, l->count + 1, sizeof *l->items))
        return fail_nomem(ps->err);
    spair *sp = &l->items[l->count];
    memset(sp, 0, sizeof *sp);
    sp->key = malloc(key->len + 1);
    sp->value = malloc(value->len + 1);
    if (!sp->key || !sp->value) {
        free(sp->key);
        free(sp->value);
        return fail_nomem(ps->err);
    }
    memcpy(sp->key, key->s, key->len);
    sp->key[key->len] = '\0';
    memcpy(sp->value, value->s, value->len);
    sp->value[value->len] = '\0';

    if (matchable && value->len >= 2 && value->s[0] == '/' && value->s[value->len - 1] == '/') {
        /* Case-insensitive like the plugin's matching of plain values; '.'
         * also matches a newline, which entity values may hold. */
        int code;
        PCRE2_SIZE at;
        sp->re = pcre2_compile((PCRE2_SPTR)(value->s + 1), value->len - 2, PCRE2_CASELESS | PCRE2_DOTALL, &code,
                               &at, NULL);
        if (sp->re)
            sp->match_data = pcre2_match_data_create(1, NULL);
        if (!sp->re) {
            PCRE2_UCHAR msg[128];
            if (pcre2_get_error_message(code, msg, sizeof msg) < 0)
                snprintf((char *)msg, sizeof msg, "error %d", code);
            free(sp->key);
            free(sp->value);
            return fail_at(ps, value->pos, value->line, "bad regular expression \"%.*s\": %s (at offset %zu)",
                           shown(value->len), value->s, (const char *)msg, (size_t)at);
        }
        if (!sp->match_data) {
            pcre2_code_free(sp->re);
            free(sp->key);
            free(sp->value);
            return fail_nomem(ps->err);
        }
        sp->line = value->line;
    }
    l->count++;
    return BSPKIT_OK;
}

/* Reads "key" "value" pairs up to the closing brace of a block opened by `open`. */
static bspkit_result parse_pairs(parser *ps, plist *l, const tok *open, bool matchable)
{
    bspkit_result r;
    for (;;) {
        tok key, value;
        if ((r = next_token(ps, &key)) != BSPKIT_OK)
            return r;
        switch (key.kind) {
        case T_CLOSE:
            return BSPKIT_OK;
        case T_END:
            return fail_at(ps, open->pos, open->line, "'{' is never closed");
        case T_OPEN:
            return fail_at(ps, key.pos, key.line, "'{' inside a block of key/value pairs");
        case T_WORD:
            return fail_at(ps, key.pos, key.line, "'%.*s' inside a block of key/value pairs (missing '}'?)",
                           shown(key.len), key.s);
        case T_STRING:
            break;
        }
        if ((r = next_token(ps, &value)) != BSPKIT_OK)
            return r;
        if (value.kind != T_STRING)
            return fail_at(ps, key.pos, key.line, "key \"%.*s\" has no quoted value", shown(key.len), key.s);
        if ((r = add_pair(ps, l, &key, &value, matchable)) != BSPKIT_OK)
            return r;
    }
}

static bool has_key(const plist *l, const char *key)
{
    for (size_t i = 0; i < l->count; i++)
        if (text_equal(l->items[i].key, key))
            return true;
    return false;
}

static bspkit_result parse_modify(parser *ps, block *b, const tok *open)
{
    bspkit_result r;
    for (;;) {
        tok t;
        if ((r = next_token(ps, &t)) != BSPKIT_OK)
            return r;
        if (t.kind == T_CLOSE)
            break;
        if (t.kind == T_END)
            return fail_at(ps, open->pos, open->line, "modify block '{' is never closed");
        if (t.kind == T_STRING)
            return fail_at(ps, t.pos, t.line, "key/value pair in a modify block outside match:, replace:, "
                                              "delete: or insert:");
        if (t.kind == T_OPEN)
            return fail_at(ps, t.pos, t.line, "'{' in a modify block must follow match:, replace:, delete: "
                                              "or insert:");
        plist *part;
        bool matchable = false;
        if (span_equal(t.s, t.len, "match:")) {
            part = &b->match;
            matchable = true;
        } else if (span_equal(t.s, t.len, "delete:")) {
            part = &b->del;
            matchable = true;
        } else if (span_equal(t.s, t.len, "replace:")) {
            part = &b->replace;
        } else if (span_equal(t.s, t.len, "insert:")) {
            part = &b->insert;
        } else {
            return fail_at(ps, t.pos, t.line, "'%.*s' in a modify block (expected match:, replace:, delete: or "
                                              "insert:)", shown(t.len), t.s);
        }
        if (part->given)
            return fail_at(ps, t.pos, t.line, "second '%.*s' in one modify block", shown(t.len), t.s);
        part->given = true;
        tok sub;
        if ((r = next_token(ps, &sub)) != BSPKIT_OK)
            return r;
        if (sub.kind != T_OPEN)
            return fail_at(ps, t.pos, t.line, "'%.*s' must be followed by '{'", shown(t.len), t.s);
        if ((r = parse_pairs(ps, part, &sub, matchable)) != BSPKIT_OK)
            return r;
    }
    if (b->match.count == 0)
        return fail_at(ps, open->pos, open->line, "modify block without match: pairs (it would change every "
                                                  "entity)");
    return BSPKIT_OK;
}

static bspkit_result parse_config(parser *ps)
{
    bspkit_stripper *cfg = ps->cfg;
    block_kind mode = BLOCK_FILTER; /* the plugin's default before any keyword */
    bspkit_result r;
    for (;;) {
        tok t;
        if ((r = next_token(ps, &t)) != BSPKIT_OK)
            return r;
        switch (t.kind) {
        case T_END:
            return BSPKIT_OK;
        case T_CLOSE:
            return fail_at(ps, t.pos, t.line, "'}' without a matching '{'");
        case T_STRING:
            return fail_at(ps, t.pos, t.line, "key/value pair outside a block (missing '{'?)");
        case T_WORD:
            if (span_equal(t.s, t.len, "filter:") || span_equal(t.s, t.len, "remove:"))
                mode = BLOCK_FILTER;
            else if (span_equal(t.s, t.len, "add:"))
                mode = BLOCK_ADD;
            else if (span_equal(t.s, t.len, "modify:"))
                mode = BLOCK_MODIFY;
            else if (span_equal(t.s, t.len, "match:") || span_equal(t.s, t.len, "replace:") ||
                     span_equal(t.s, t.len, "delete:") || span_equal(t.s, t.len, "insert:"))
                return fail_at(ps, t.pos, t.line, "'%.*s' outside a modify block", shown(t.len), t.s);
            else
                return fail_at(ps, t.pos, t.line, "unknown keyword '%.*s' (expected filter:, remove:, add: or "
                                                  "modify:)", shown(t.len), t.s);
            continue;
        case T_OPEN:
            break;
        }
        if (!bk_grow((void **)&cfg->blocks, &cfg->cap, cfg->count + 1, sizeof *cfg->blocks))
            return fail_nomem(ps->err);
        block *b = &cfg->blocks[cfg->count++];
        memset(b, 0, sizeof *b);
        b->kind = mode;
        switch (mode) {
        case BLOCK_FILTER:
            if ((r = parse_pairs(ps, &b->match, &t, true)) != BSPKIT_OK)
                return r;
            if (b->match.count == 0)
                return fail_at(ps, t.pos, t.line, "empty filter block (it would remove every entity)");
            break;
        case BLOCK_ADD:
            if ((r = parse_pairs(ps, &b->insert, &t, false)) != BSPKIT_OK)
                return r;
            if (!has_key(&b->insert, "classname"))
                return fail_at(ps, t.pos, t.line, "add block without a \"classname\" pair");
            break;
        case BLOCK_MODIFY:
            if ((r = parse_modify(ps, b, &t)) != BSPKIT_OK)
                return r;
            break;
        }
    }
}

bspkit_result bspkit_stripper_parse(const char *text, size_t size, bspkit_stripper **out, bspkit_error *err)
{
    if (out)
        *out = NULL;
    if (!out || (!text && size))
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "stripper: invalid argument");
    bspkit_stripper *cfg = calloc(1, sizeof *cfg);
    if (!cfg)
        return fail_nomem(err);
    cfg->match_context = match_context();
    if (!cfg->match_context) {
        free(cfg);
        return fail_nomem(err);
    }
    size_t len = size;
    if (size) {
        const char *nul = memchr(text, '\0', size);
        if (nul)
            len = (size_t)(nul - text);
    }
    parser ps = {.base = text, .p = text, .end = text + len, .line = 1, .err = err, .cfg = cfg};
    bspkit_result r = parse_config(&ps);
    if (r != BSPKIT_OK) {
        bspkit_stripper_free(cfg);
        return r;
    }
    *out = cfg;
    return BSPKIT_OK;
}

/* ------------------------------------------------------------------------ */
/* applying                                                                  */
/* ------------------------------------------------------------------------ */

/* What matching ran into: a pattern that needed more work than its limits
 * allow (or memory) stops the apply with an error naming it. */
typedef struct matcher {
    pcre2_match_context *context;
    const spair *failed;
    int failure;                 /* PCRE2 error code */
    const char *failed_key;
} matcher;

static bool pair_matches(matcher *m, const spair *sp, const bspkit_keyvalue *kv)
{
    if (!text_equal(sp->key, kv->key))
        return false;
    if (!sp->re)
        return text_equal(sp->value, kv->value);
    if (m->failed)
        return false;
    int rc = pcre2_match(sp->re, (PCRE2_SPTR)kv->value, PCRE2_ZERO_TERMINATED, 0, 0, sp->match_data, m->context);
    if (rc >= 0)
        return true;
    if (rc != PCRE2_ERROR_NOMATCH) {
        m->failed = sp;
        m->failure = rc;
        m->failed_key = kv->key;
    }
    return false;
}

/* Every pair of the block must be satisfied by some pair of the entity. */
static bool entity_matches(matcher *mt, const plist *m, const bspkit_keyvalue *pairs, size_t count)
{
    for (size_t i = 0; i < m->count; i++) {
        bool found = false;
        for (size_t j = 0; j < count && !found; j++)
            found = pair_matches(mt, &m->items[i], &pairs[j]);
        if (!found)
            return false;
    }
    return true;
}

typedef struct filter_ctx {
    matcher *m;
    const plist *match;
} filter_ctx;

static bool filter_pred(void *ctx, const bspkit_keyvalue *pairs, size_t count)
{
    filter_ctx *f = ctx;
    return entity_matches(f->m, f->match, pairs, count);
}

static bspkit_result match_failure(const matcher *m, bspkit_error *err)
{
    PCRE2_UCHAR msg[128];
    if (pcre2_get_error_message(m->failure, msg, sizeof msg) < 0)
        snprintf((char *)msg, sizeof msg, "error %d", m->failure);
    bool limit = m->failure == PCRE2_ERROR_MATCHLIMIT || m->failure == PCRE2_ERROR_DEPTHLIMIT ||
                 m->failure == PCRE2_ERROR_HEAPLIMIT;
    return bk_fail(err, limit ? BSPKIT_ERR_LIMIT : BSPKIT_ERR_ARGUMENT, -1, -1, -1,
                   "stripper: line %lu: regular expression \"/%.*s/\" stopped on a value of key \"%.60s\": %s",
                   m->failed->line, shown(strlen(m->failed->value) - 2), m->failed->value + 1, m->failed_key,
                   (const char *)msg);
}

static bspkit_result apply_add(const block *b, bspkit_entlist *list, bspkit_error *err)
{
    size_t n = b->insert.count;
    bspkit_keyvalue *kv = calloc(n ? n : 1, sizeof *kv);
    if (!kv)
        return fail_nomem(err);
    for (size_t i = 0; i < n; i++) {
        kv[i].key = b->insert.items[i].key;
        kv[i].value = b->insert.items[i].value;
    }
    bspkit_result r = bspkit_entlist_add_entity(list, kv, n, NULL, err);
    free(kv);
    return r;
}

static bspkit_result apply_modify(matcher *m, const block *b, bspkit_entlist *list, size_t *modified,
                                  bspkit_error *err)
{
    bspkit_result r;
    size_t n_ents = bspkit_entlist_count(list);
    for (size_t e = 0; e < n_ents; e++) {
        size_t count;
        const bspkit_keyvalue *pairs = bspkit_entlist_pairs(list, e, &count);
        if (!entity_matches(m, &b->match, pairs, count)) {
            if (m->failed)
                return match_failure(m, err);
            continue;
        }
        bool changed = false;
        /* Backwards, so deleting does not skip the next pair. */
        for (size_t j = count; j-- > 0;) {
            pairs = bspkit_entlist_pairs(list, e, &count);
            bool hit = false;
            for (size_t k = 0; k < b->del.count && !hit; k++)
                hit = pair_matches(m, &b->del.items[k], &pairs[j]);
            if (m->failed)
                return match_failure(m, err);
            if (hit) {
                if ((r = bspkit_entlist_delete_pair(list, e, j, err)) != BSPKIT_OK)
                    return r;
                changed = true;
            }
        }
        pairs = bspkit_entlist_pairs(list, e, &count);
        for (size_t j = 0; j < count; j++) {
            for (size_t k = 0; k < b->replace.count; k++) {
                const spair *sp = &b->replace.items[k];
                if (!text_equal(sp->key, pairs[j].key))
                    continue;
                if (strcmp(pairs[j].value, sp->value) != 0) {
                    if ((r = bspkit_entlist_set_pair_value(list, e, j, sp->value, err)) != BSPKIT_OK)
                        return r;
                    pairs = bspkit_entlist_pairs(list, e, &count);
                    changed = true;
                }
                break; /* the first replace pair for a key wins */
            }
        }
        for (size_t k = 0; k < b->insert.count; k++) {
            if ((r = bspkit_entlist_add_pair(list, e, b->insert.items[k].key, b->insert.items[k].value, err)) !=
                BSPKIT_OK)
                return r;
            changed = true;
        }
        *modified += changed;
    }
    return BSPKIT_OK;
}

bspkit_result bspkit_stripper_apply(const bspkit_stripper *cfg, bspkit_entlist *list, bspkit_stripper_stats *stats,
                                    bspkit_error *err)
{
    bspkit_stripper_stats st = {0};
    if (stats)
        *stats = st;
    if (!cfg || !list)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "stripper: invalid argument");
    bspkit_result r = BSPKIT_OK;
    matcher m = {cfg->match_context, NULL, 0, NULL};
    for (size_t i = 0; i < cfg->count && r == BSPKIT_OK; i++) {
        const block *b = &cfg->blocks[i];
        size_t removed = 0;
        switch (b->kind) {
        case BLOCK_FILTER: {
            filter_ctx f = {&m, &b->match};
            r = bspkit_entlist_delete_if(list, filter_pred, &f, &removed, err);
            st.removed += removed;
            if (r == BSPKIT_OK && m.failed)
                r = match_failure(&m, err);
            break;
        }
        case BLOCK_ADD:
            r = apply_add(b, list, err);
            st.added += r == BSPKIT_OK;
            break;
        case BLOCK_MODIFY:
            r = apply_modify(&m, b, list, &st.modified, err);
            break;
        }
    }
    if (stats)
        *stats = st;
    return r;
}
