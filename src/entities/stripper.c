/* Stripper:Source configs: parse filter/add/modify sections and apply them
 * to an entity list. The rules and how they differ from the plugin are
 * documented in bspkit/entities_edit.h. */
#include "bspkit/entities_edit.h"
#include "core/grow.h"
#include "core/map.h"

#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct spair {
    char *key, *value;
    bool is_regex;
    regex_t re;
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
};

/* ------------------------------------------------------------------------ */
/* helpers                                                                   */
/* ------------------------------------------------------------------------ */

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

/* ASCII case-insensitive, as the plugin's stricmp. */
static bool text_equal(const char *a, const char *b)
{
    for (;; a++, b++) {
        int ca = lower((unsigned char)*a), cb = lower((unsigned char)*b);
        if (ca != cb)
            return false;
        if (ca == 0)
            return true;
    }
}

static bool span_equal(const char *s, size_t len, const char *word)
{
    size_t n = strlen(word);
    if (n != len)
        return false;
    for (size_t i = 0; i < n; i++)
        if (lower((unsigned char)s[i]) != lower((unsigned char)word[i]))
            return false;
    return true;
}

static void plist_free(plist *l)
{
    for (size_t i = 0; i < l->count; i++) {
        free(l->items[i].key);
        free(l->items[i].value);
        if (l->items[i].is_regex)
            regfree(&l->items[i].re);
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
    free(cfg);
}

size_t bspkit_stripper_block_count(const bspkit_stripper *cfg)
{
    return cfg ? cfg->count : 0;
}

/* A growable string for the translated regular expression. */
typedef struct sbuf {
    char *p;
    size_t len, cap;
    bool oom;
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (!bk_grow((void **)&b->p, &b->cap, b->len + n + 1, 1)) {
        b->oom = true;
        return;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sb_puts(sbuf *b, const char *s)
{
    sb_put(b, s, strlen(s));
}

static void sb_putc(sbuf *b, char c)
{
    sb_put(b, &c, 1);
}

/* ------------------------------------------------------------------------ */
/* PCRE-style pattern -> POSIX extended regular expression                   */
/* ------------------------------------------------------------------------ */

static bool is_alnum(int c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* One member of a bracket expression. */
typedef enum { M_CHAR, M_RANGE, M_TEXT } member_kind;
typedef struct member {
    member_kind kind;
    char lo, hi;      /* M_CHAR uses lo */
    const char *text; /* M_TEXT: copied verbatim, e.g. "[:digit:]" */
    size_t text_len;
} member;

/* Reads one possibly escaped byte of a bracket expression at s[*j]. Returns
 * 1 for a byte in *c, 2 for a class written into *m, or 0 with *why set. */
static int set_atom(const char *s, size_t n, size_t *j, char *c, member *m, const char **why, char *bad)
{
    if (s[*j] != '\\') {
        *c = s[(*j)++];
        return 1;
    }
    if (*j + 1 >= n) {
        *why = "trailing backslash";
        return 0;
    }
    char d = s[*j + 1];
    *j += 2;
    switch (d) {
    case 'd': *m = (member){M_TEXT, 0, 0, "0-9", 3}; return 2;
    case 'w': *m = (member){M_TEXT, 0, 0, "[:alnum:]_", 10}; return 2;
    case 's': *m = (member){M_TEXT, 0, 0, "[:space:]", 9}; return 2;
    case 't': *c = '\t'; return 1;
    case 'n': *c = '\n'; return 1;
    case 'r': *c = '\r'; return 1;
    default:
        if (is_alnum((unsigned char)d)) {
            *why = "unsupported escape inside [...]";
            *bad = d;
            return 0;
        }
        *c = d;
        return 1;
    }
}

/* Translates the bracket expression starting at s[*i] == '['. POSIX takes
 * backslashes literally there and wants ']' first, '-' last and '^' not
 * first, so the members are collected and written out in that order. */
static const char *translate_set(const char *s, size_t n, size_t *i, sbuf *o, char *bad)
{
    member *ms = NULL;
    size_t count = 0, cap = 0;
    bool negate = false, has_close = false, has_caret = false, has_dash = false;
    const char *why = NULL;
    size_t j = *i + 1;
    if (j < n && s[j] == '^') {
        negate = true;
        j++;
    }
    bool first = true;
    for (;;) {
        if (j >= n) {
            why = "unterminated [...]";
            break;
        }
        if (s[j] == ']' && !first) {
            j++;
            break;
        }
        first = false;
        member m;
        char c = 0;
        if (s[j] == '[' && j + 1 < n && (s[j + 1] == ':' || s[j + 1] == '=' || s[j + 1] == '.')) {
            char kind = s[j + 1];
            size_t k = j + 2;
            while (k + 1 < n && !(s[k] == kind && s[k + 1] == ']'))
                k++;
            if (k + 1 >= n) {
                why = "unterminated [:class:]";
                break;
            }
            m = (member){M_TEXT, 0, 0, s + j, k + 2 - j};
            j = k + 2;
        } else {
            int r = set_atom(s, n, &j, &c, &m, &why, bad);
            if (r == 0)
                break;
            if (r == 1) {
                m = (member){M_CHAR, c, c, NULL, 0};
                if (j + 1 < n && s[j] == '-' && s[j + 1] != ']') {
                    j++;
                    member dummy;
                    char hi = 0;
                    int r2 = set_atom(s, n, &j, &hi, &dummy, &why, bad);
                    if (r2 != 1) {
                        if (r2 == 2)
                            why = "a class cannot end a range";
                        break;
                    }
                    m = (member){M_RANGE, c, hi, NULL, 0};
                }
            }
        }
        if (m.kind == M_CHAR && m.lo == ']') {
            has_close = true;
        } else if (m.kind == M_CHAR && m.lo == '^') {
            has_caret = true;
        } else if (m.kind == M_CHAR && m.lo == '-') {
            has_dash = true;
        } else {
            if (!bk_grow((void **)&ms, &cap, count + 1, sizeof *ms)) {
                o->oom = true;
                break;
            }
            ms[count++] = m;
        }
    }
    if (!why && !o->oom) {
        if (!negate && !has_close && count == 0 && has_caret && !has_dash) {
            sb_puts(o, "\\^"); /* "[^]" would mean something else */
        } else {
            sb_putc(o, '[');
            if (negate)
                sb_putc(o, '^');
            if (has_close) {
                sb_putc(o, ']');
            } else if (has_dash && count == 0 && has_caret && !negate) {
                sb_putc(o, '-'); /* "[-^]": '-' first keeps '^' literal */
                has_dash = false;
            }
            for (size_t k = 0; k < count; k++) {
                if (ms[k].kind == M_TEXT) {
                    sb_put(o, ms[k].text, ms[k].text_len);
                } else {
                    sb_putc(o, ms[k].lo);
                    if (ms[k].kind == M_RANGE) {
                        sb_putc(o, '-');
                        sb_putc(o, ms[k].hi);
                    }
                }
            }
            if (has_caret)
                sb_putc(o, '^');
            if (has_dash)
                sb_putc(o, '-');
            sb_putc(o, ']');
        }
        *i = j - 1;
    }
    free(ms);
    return why;
}

/* glibc's regcomp() expands repetition by copying the repeated tree, so
 * stacked quantifiers ("a+++"), large or nested counts and deep nesting make
 * it allocate exponentially: a short config line could take gigabytes. The
 * translated ERE is checked against bounds generous for real configs. */
#define RE_MAX_LENGTH 1024
#define RE_MAX_DEPTH 8
#define RE_MAX_REPEAT_PRODUCT 1000
#define RE_MAX_QUANTIFIERS 64

static const char *check_re_cost(const char *re)
{
    size_t len = strlen(re);
    if (len > RE_MAX_LENGTH)
        return "regular expression longer than 1024 bytes";
    int depth = 0, quantifiers = 0;
    unsigned long product = 1;
    bool after_quantifier = false, after_lazy = false;
    for (size_t i = 0; i < len; i++) {
        char c = re[i];
        if (c != '?')
            after_lazy = false;
        if (c == '\\') {
            i++;
            after_quantifier = false;
            continue;
        }
        if (c == '[') { /* skip a bracket expression: ']' first is literal, [:class:] nests */
            size_t j = i + 1;
            if (j < len && re[j] == '^')
                j++;
            if (j < len && re[j] == ']')
                j++;
            while (j < len && re[j] != ']') {
                if (re[j] == '[' && j + 1 < len && (re[j + 1] == ':' || re[j + 1] == '.' || re[j + 1] == '=')) {
                    const char *close = strstr(re + j + 2, (char[]){re[j + 1], ']', 0});
                    j = close ? (size_t)(close - re) + 2 : len;
                    continue;
                }
                j++;
            }
            i = j;
            after_quantifier = false;
            continue;
        }
        bool quantifier = c == '*' || c == '+' || c == '?' || c == '{';
        if (quantifier && after_quantifier && c == '?' && !after_lazy) {
            /* PCRE's lazy "x*?" matches the same strings as "x*": ERE reads it as "(x*)?" */
            after_lazy = true;
            continue;
        }
        if (quantifier) {
            if (after_quantifier)
                return "stacked quantifiers (PCRE's possessive forms are not supported)";
            if (++quantifiers > RE_MAX_QUANTIFIERS)
                return "more than 64 quantifiers";
            if (c == '{') {
                unsigned long lo = 0, hi = 0;
                size_t j = i + 1;
                while (j < len && re[j] >= '0' && re[j] <= '9' && lo < 100000)
                    lo = lo * 10 + (unsigned long)(re[j++] - '0');
                hi = lo;
                if (j < len && re[j] == ',') {
                    j++;
                    hi = lo + 1; /* {m,} copies the tree m + 1 times */
                    if (j < len && re[j] >= '0' && re[j] <= '9') {
                        hi = 0;
                        while (j < len && re[j] >= '0' && re[j] <= '9' && hi < 100000)
                            hi = hi * 10 + (unsigned long)(re[j++] - '0');
                    }
                }
                product *= hi ? hi : 1;
                if (product > RE_MAX_REPEAT_PRODUCT)
                    return "repetition counts too large (their product may be at most 1000)";
                while (j < len && re[j] != '}')
                    j++;
                i = j;
            } else if (c == '+') {
                product *= 2; /* x+ is compiled as x x* */
                if (product > RE_MAX_REPEAT_PRODUCT)
                    return "too many repeated groups";
            }
            after_quantifier = true;
            continue;
        }
        after_quantifier = false;
        if (c == '(' && ++depth > RE_MAX_DEPTH)
            return "groups nested deeper than 8";
        if (c == ')' && depth > 0)
            depth--;
    }
    return NULL;
}

/* Returns NULL on success, else a reason (with the offending letter in *bad
 * for unsupported escapes). */
static const char *translate_re(const char *s, size_t n, sbuf *o, char *bad)
{
    *bad = 0;
    sb_put(o, "", 0);
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '[') {
            const char *why = translate_set(s, n, &i, o, bad);
            if (why)
                return why;
            continue;
        }
        if (c != '\\') {
            sb_putc(o, c);
            continue;
        }
        if (i + 1 >= n)
            return "trailing backslash";
        char d = s[++i];
        switch (d) {
        case 'd': sb_puts(o, "[0-9]"); break;
        case 'D': sb_puts(o, "[^0-9]"); break;
        case 'w': sb_puts(o, "[[:alnum:]_]"); break;
        case 'W': sb_puts(o, "[^[:alnum:]_]"); break;
        case 's': sb_puts(o, "[[:space:]]"); break;
        case 'S': sb_puts(o, "[^[:space:]]"); break;
        case 't': sb_putc(o, '\t'); break;
        case 'n': sb_putc(o, '\n'); break;
        case 'r': sb_putc(o, '\r'); break;
        default:
            if (is_alnum((unsigned char)d)) {
                *bad = d;
                return "unsupported escape";
            }
            /* Quote ERE operators; other punctuation is literal as it stands. */
            if (strchr(".[]{}()*+?^$|\\", d))
                sb_putc(o, '\\');
            sb_putc(o, d);
        }
    }
    return NULL;
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
        sbuf re = {0};
        char bad = 0;
        const char *why = translate_re(value->s + 1, value->len - 2, &re, &bad);
        if (!why && !re.oom)
            why = check_re_cost(re.p);
        int rc = 0;
        if (!why && !re.oom)
            rc = regcomp(&sp->re, re.p, REG_EXTENDED | REG_ICASE | REG_NOSUB);
        free(re.p);
        if (re.oom) {
            free(sp->key);
            free(sp->value);
            return fail_nomem(ps->err);
        }
        if (why || rc != 0) {
            char msg[128];
            if (why && bad)
                snprintf(msg, sizeof msg, "%s \\%c", why, bad);
            else if (why)
                snprintf(msg, sizeof msg, "%s", why);
            else
                regerror(rc, &sp->re, msg, sizeof msg);
            free(sp->key);
            free(sp->value);
            return fail_at(ps, value->pos, value->line, "bad regular expression \"%.*s\": %s", shown(value->len),
                           value->s, msg);
        }
        sp->is_regex = true;
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

static bool pair_matches(const spair *sp, const bspkit_keyvalue *kv)
{
    if (!text_equal(sp->key, kv->key))
        return false;
    if (sp->is_regex)
        return regexec(&sp->re, kv->value, 0, NULL, 0) == 0;
    return text_equal(sp->value, kv->value);
}

/* Every pair of the block must be satisfied by some pair of the entity. */
static bool entity_matches(const plist *m, const bspkit_keyvalue *pairs, size_t count)
{
    for (size_t i = 0; i < m->count; i++) {
        bool found = false;
        for (size_t j = 0; j < count && !found; j++)
            found = pair_matches(&m->items[i], &pairs[j]);
        if (!found)
            return false;
    }
    return true;
}

static bool filter_pred(void *ctx, const bspkit_keyvalue *pairs, size_t count)
{
    return entity_matches(ctx, pairs, count);
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

static bspkit_result apply_modify(const block *b, bspkit_entlist *list, size_t *modified, bspkit_error *err)
{
    bspkit_result r;
    size_t n_ents = bspkit_entlist_count(list);
    for (size_t e = 0; e < n_ents; e++) {
        size_t count;
        const bspkit_keyvalue *pairs = bspkit_entlist_pairs(list, e, &count);
        if (!entity_matches(&b->match, pairs, count))
            continue;
        bool changed = false;
        /* Backwards, so deleting does not skip the next pair. */
        for (size_t j = count; j-- > 0;) {
            pairs = bspkit_entlist_pairs(list, e, &count);
            bool hit = false;
            for (size_t k = 0; k < b->del.count && !hit; k++)
                hit = pair_matches(&b->del.items[k], &pairs[j]);
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
    for (size_t i = 0; i < cfg->count && r == BSPKIT_OK; i++) {
        const block *b = &cfg->blocks[i];
        size_t removed = 0;
        switch (b->kind) {
        case BLOCK_FILTER:
            r = bspkit_entlist_delete_if(list, filter_pred, (void *)&b->match, &removed, err);
            st.removed += removed;
            break;
        case BLOCK_ADD:
            r = apply_add(b, list, err);
            st.added += r == BSPKIT_OK;
            break;
        case BLOCK_MODIFY:
            r = apply_modify(b, list, &st.modified, err);
            break;
        }
    }
    if (stats)
        *stats = st;
    return r;
}
