/* Entities in canonical order, their equality, and pairing the entities of
 * two lists by hammerid, targetname, origin and classname (bspkit/diff.h). */
#include "ops/ops_internal.h"
#include "core/ascii.h"
#include "core/map.h"

#include <stdlib.h>
#include <string.h>

static bspkit_result nomem(bspkit_error *err)
{
    return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "diff: out of memory");
}

const char *op_value(const bspkit_keyvalue *pairs, size_t count, const char *key)
{
    for (size_t i = 0; i < count; i++)
        if (bk_ascii_equal(pairs[i].key, key))
            return pairs[i].value;
    return NULL;
}

/* Stable merge sort of pair indices by lower-case key: qsort is neither
 * stable nor given a context. */
static void sort_by_key(const bspkit_keyvalue *pairs, size_t *idx, size_t *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    sort_by_key(pairs, idx, tmp, h);
    sort_by_key(pairs, idx + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        if (bk_ascii_casecmp(pairs[idx[j]].key, pairs[idx[i]].key) < 0)
            tmp[k++] = idx[j++];
        else
            tmp[k++] = idx[i++];
    }
    while (i < h)
        tmp[k++] = idx[i++];
    while (j < n)
        tmp[k++] = idx[j++];
    memcpy(idx, tmp, n * sizeof *idx);
}

static uint64_t fnv(uint64_t h, const char *s, bool fold)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        h ^= (uint64_t)(fold ? bk_ascii_lower(*p) : *p);
        h *= 0x100000001b3ull;
    }
    h ^= 0xffu; /* separator: no byte of a string is 0 */
    return h * 0x100000001b3ull;
}

bool op_ent_init(op_ent *e, const bspkit_keyvalue *pairs, size_t count)
{
    memset(e, 0, sizeof *e);
    e->pairs = pairs;
    e->count = count;
    size_t n = count ? count : 1;
    if (n > SIZE_MAX / 2 / sizeof(size_t))
        return false;
    e->order = malloc(2 * n * sizeof(size_t));
    if (!e->order)
        return false;
    for (size_t i = 0; i < count; i++)
        e->order[i] = i;
    sort_by_key(pairs, e->order, e->order + n, count);
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < count; i++) {
        h = fnv(h, pairs[e->order[i]].key, false);
        h = fnv(h, pairs[e->order[i]].value, false);
    }
    e->hash = h;
    return true;
}

void op_ent_clear(op_ent *e)
{
    free(e->order);
    e->order = NULL;
}

bspkit_result op_side_load(const bspkit_entlist *list, op_side *s, bspkit_error *err)
{
    size_t n = bspkit_entlist_count(list);
    s->count = 0;
    s->ents = calloc(n ? n : 1, sizeof *s->ents);
    if (!s->ents)
        return nomem(err);
    for (size_t i = 0; i < n; i++) {
        size_t count = 0;
        const bspkit_keyvalue *pairs = bspkit_entlist_pairs(list, i, &count);
        if (!op_ent_init(&s->ents[i], pairs, count)) {
            op_side_free(s);
            return nomem(err);
        }
        s->count = i + 1;
    }
    return BSPKIT_OK;
}

void op_side_free(op_side *s)
{
    for (size_t i = 0; i < s->count; i++)
        op_ent_clear(&s->ents[i]);
    free(s->ents);
    s->ents = NULL;
    s->count = 0;
}

size_t op_key_run(const op_ent *e, size_t pos)
{
    size_t end = pos + 1;
    while (end < e->count && bk_ascii_equal(e->pairs[e->order[end]].key, e->pairs[e->order[pos]].key))
        end++;
    return end;
}

bool op_ent_equal(const op_ent *a, const op_ent *b)
{
    if (a->count != b->count || a->hash != b->hash)
        return false;
    for (size_t i = 0; i < a->count; i++) {
        const bspkit_keyvalue *x = &a->pairs[a->order[i]], *y = &b->pairs[b->order[i]];
        if (strcmp(x->key, y->key) != 0 || strcmp(x->value, y->value) != 0)
            return false;
    }
    return true;
}

const char *op_round_key(int round)
{
    switch (round) {
    case BSPKIT_DIFF_MATCH_HAMMERID: return "hammerid";
    case BSPKIT_DIFF_MATCH_TARGETNAME: return "targetname";
    case BSPKIT_DIFF_MATCH_ORIGIN: return "origin";
    default: return NULL;
    }
}

/* One entity in a round: its identity text, side (0 A, 1 B) and index. */
typedef struct ident {
    char *text;
    int side;
    size_t index;
} ident;

static int ident_cmp(const void *pa, const void *pb)
{
    const ident *a = pa, *b = pb;
    int c = strcmp(a->text, b->text);
    if (c)
        return c;
    if (a->side != b->side)
        return a->side - b->side;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* The identity of an entity in `round`, or NULL when it lacks the keys
 * (*failed set when memory ran out). Case-insensitive parts are folded. */
static char *identity(const op_ent *e, int round, bool *failed)
{
    const char *cls = op_value(e->pairs, e->count, "classname");
    const char *key = op_round_key(round);
    const char *val = key ? op_value(e->pairs, e->count, key) : NULL;
    if (round == BSPKIT_DIFF_MATCH_HAMMERID) {
        if (!val)
            return NULL;
        cls = "";
    } else if (!cls || (key && !val)) {
        return NULL;
    }
    if (!val)
        val = "";
    size_t lc = strlen(cls), lv = strlen(val);
    char *t = malloc(lc + lv + 2);
    if (!t) {
        *failed = true;
        return NULL;
    }
    bool fold_val = round == BSPKIT_DIFF_MATCH_TARGETNAME;
    for (size_t i = 0; i < lc; i++)
        t[i] = (char)bk_ascii_lower((unsigned char)cls[i]);
    t[lc] = '\x01'; /* below any byte a class name holds in practice; only grouping depends on it */
    for (size_t i = 0; i < lv; i++)
        t[lc + 1 + i] = fold_val ? (char)bk_ascii_lower((unsigned char)val[i]) : val[i];
    t[lc + 1 + lv] = '\0';
    return t;
}

/* Pair one group: items[0..na) from A, items[na..na+nb) from B. */
static void pair_group(const op_side *a, const op_side *b, const ident *items, size_t na, size_t nb, size_t *to_b,
                       size_t *to_a, uint8_t *round, int r)
{
    const ident *ia = items, *ib = items + na;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            if (to_a[ib[j].index] == OP_NONE && op_ent_equal(&a->ents[ia[i].index], &b->ents[ib[j].index])) {
                to_b[ia[i].index] = ib[j].index;
                to_a[ib[j].index] = ia[i].index;
                round[ia[i].index] = (uint8_t)r;
                break;
            }
    size_t j = 0;
    for (size_t i = 0; i < na; i++) {
        if (to_b[ia[i].index] != OP_NONE)
            continue;
        while (j < nb && to_a[ib[j].index] != OP_NONE)
            j++;
        if (j == nb)
            break;
        to_b[ia[i].index] = ib[j].index;
        to_a[ib[j].index] = ia[i].index;
        round[ia[i].index] = (uint8_t)r;
    }
}

bspkit_result op_pair_sides(const op_side *a, const op_side *b, size_t *to_b, size_t *to_a, uint8_t *round,
                            bspkit_error *err)
{
    for (size_t i = 0; i < a->count; i++) {
        to_b[i] = OP_NONE;
        round[i] = BSPKIT_DIFF_MATCH_NONE;
    }
    for (size_t j = 0; j < b->count; j++)
        to_a[j] = OP_NONE;
    if (a->count > SIZE_MAX / sizeof(ident) - b->count)
        return nomem(err);
    ident *items = malloc((a->count + b->count + 1) * sizeof *items);
    if (!items)
        return nomem(err);
    bspkit_result res = BSPKIT_OK;
    for (int r = BSPKIT_DIFF_MATCH_HAMMERID; r <= BSPKIT_DIFF_MATCH_CLASSNAME && res == BSPKIT_OK; r++) {
        size_t n = 0;
        bool failed = false;
        for (int side = 0; side < 2 && !failed; side++) {
            const op_side *s = side ? b : a;
            const size_t *other = side ? to_a : to_b;
            for (size_t i = 0; i < s->count && !failed; i++) {
                if (other[i] != OP_NONE)
                    continue;
                char *t = identity(&s->ents[i], r, &failed);
                if (t)
                    items[n++] = (ident){t, side, i};
            }
        }
        if (failed) {
            res = nomem(err);
        } else {
            qsort(items, n, sizeof *items, ident_cmp);
            for (size_t g = 0; g < n;) {
                size_t e = g, na = 0;
                while (e < n && strcmp(items[e].text, items[g].text) == 0) {
                    na += items[e].side == 0;
                    e++;
                }
                pair_group(a, b, items + g, na, e - g - na, to_b, to_a, round, r);
                g = e;
            }
        }
        for (size_t i = 0; i < n; i++)
            free(items[i].text);
    }
    free(items);
    return res;
}
