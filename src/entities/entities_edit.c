/* Mutable entity list, its serialisation, glob patterns and selectors.
 *
 * Every key and value is its own heap string, so one entity can change
 * without touching the others; entities keep where they came from
 * (`origin`) so that callers can report what an edit did. */
#include "bspkit/entities_edit.h"
#include "core/grow.h"
#include "core/map.h"
#include "core/ascii.h"
#include "core/glob.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NO_ORIGIN SIZE_MAX

typedef struct ent {
    bspkit_keyvalue *pairs;
    size_t count, cap;
    size_t origin; /* index among the originals, or NO_ORIGIN */
    bool changed;
} ent;

struct bspkit_entlist {
    ent *ents;
    size_t count, cap;
    size_t originals;
};

/* ------------------------------------------------------------------------ */
/* helpers                                                                   */
/* ------------------------------------------------------------------------ */

static bspkit_result fail_nomem(bspkit_error *err)
{
    return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "entities: out of memory");
}

static bspkit_result fail_arg(bspkit_error *err, const char *what)
{
    return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "entities: %s", what);
}

static bspkit_result fail_entity(bspkit_error *err, const bspkit_entlist *list, size_t entity)
{
    return bk_fail(err, BSPKIT_ERR_NOT_FOUND, -1, -1, -1, "entities: no entity %zu (the list has %zu)", entity,
                   list->count);
}

/* ASCII-only, like the engines' stricmp: locale must not change what matches. */
static bool key_equal(const char *a, const char *b)
{
    return bk_ascii_equal(a, b);
}

static char *dup_len(const char *s, size_t len)
{
    char *d = malloc(len + 1);
    if (d) {
        memcpy(d, s, len);
        d[len] = '\0';
    }
    return d;
}

static bool fits_u32(size_t len)
{
    return len <= UINT32_MAX;
}

/* A '"' would end the quoted string early and corrupt the text. */
static bspkit_result check_string(const char *s, const char *what, bspkit_error *err)
{
    if (!s)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "entities: %s is NULL", what);
    if (strchr(s, '"'))
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "entities: %s contains a double quote", what);
    if (!fits_u32(strlen(s)))
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "entities: %s longer than 4 GiB", what);
    return BSPKIT_OK;
}

static void free_pair(bspkit_keyvalue *kv)
{
    free((char *)kv->key);
    free((char *)kv->value);
}

static void free_ent(ent *e)
{
    for (size_t i = 0; i < e->count; i++)
        free_pair(&e->pairs[i]);
    free(e->pairs);
    e->pairs = NULL;
    e->count = e->cap = 0;
}

static bool make_pair(bspkit_keyvalue *kv, const char *key, size_t klen, const char *value, size_t vlen)
{
    char *k = dup_len(key, klen), *v = dup_len(value, vlen);
    if (!k || !v) {
        free(k);
        free(v);
        return false;
    }
    kv->key = k;
    kv->value = v;
    kv->key_length = (uint32_t)klen;
    kv->value_length = (uint32_t)vlen;
    return true;
}

static bool push_pair(ent *e, const char *key, size_t klen, const char *value, size_t vlen)
{
    if (!bk_grow((void **)&e->pairs, &e->cap, e->count + 1, sizeof *e->pairs))
        return false;
    if (!make_pair(&e->pairs[e->count], key, klen, value, vlen))
        return false;
    e->count++;
    return true;
}

static ent *get_ent(const bspkit_entlist *list, size_t entity)
{
    return list && entity < list->count ? &list->ents[entity] : NULL;
}

/* ------------------------------------------------------------------------ */
/* lists                                                                     */
/* ------------------------------------------------------------------------ */

bspkit_result bspkit_entlist_new(bspkit_entlist **out, bspkit_error *err)
{
    if (!out)
        return fail_arg(err, "invalid argument");
    *out = calloc(1, sizeof **out);
    return *out ? BSPKIT_OK : fail_nomem(err);
}

void bspkit_entlist_free(bspkit_entlist *list)
{
    if (!list)
        return;
    for (size_t i = 0; i < list->count; i++)
        free_ent(&list->ents[i]);
    free(list->ents);
    free(list);
}

bspkit_result bspkit_entlist_from_entities(const bspkit_entities *ents, bspkit_entlist **out, bspkit_error *err)
{
    if (out)
        *out = NULL;
    if (!ents || !out)
        return fail_arg(err, "invalid argument");
    bspkit_entlist *list = calloc(1, sizeof *list);
    if (!list || (ents->count && !(list->ents = calloc(ents->count, sizeof *list->ents)))) {
        free(list);
        return fail_nomem(err);
    }
    list->cap = ents->count;
    for (size_t i = 0; i < ents->count; i++) {
        const bspkit_entity *src = &ents->entities[i];
        ent *e = &list->ents[i];
        e->origin = i;
        list->count = i + 1;
        if (src->num_pairs == 0)
            continue;
        if (!(e->pairs = malloc(src->num_pairs * sizeof *e->pairs))) {
            bspkit_entlist_free(list);
            return fail_nomem(err);
        }
        e->cap = src->num_pairs;
        for (size_t j = 0; j < src->num_pairs; j++) {
            const bspkit_keyvalue *kv = &ents->pairs[src->first_pair + j];
            if (!make_pair(&e->pairs[j], kv->key, kv->key_length, kv->value, kv->value_length)) {
                bspkit_entlist_free(list);
                return fail_nomem(err);
            }
            e->count = j + 1;
        }
    }
    list->originals = ents->count;
    *out = list;
    return BSPKIT_OK;
}

bspkit_result bspkit_entlist_parse(const char *text, size_t size, bspkit_entlist **out, bspkit_error *err)
{
    if (out)
        *out = NULL;
    bspkit_entities *ents = NULL;
    bspkit_result r = bspkit_entities_parse(text, size, &ents, err);
    if (r != BSPKIT_OK)
        return r;
    r = bspkit_entlist_from_entities(ents, out, err);
    bspkit_entities_free(ents);
    if (r == BSPKIT_OK) {
        /* Parsed text has nothing to compare against. */
        for (size_t i = 0; i < (*out)->count; i++)
            (*out)->ents[i].origin = NO_ORIGIN;
        (*out)->originals = 0;
    }
    return r;
}

size_t bspkit_entlist_count(const bspkit_entlist *list)
{
    return list ? list->count : 0;
}

const bspkit_keyvalue *bspkit_entlist_pairs(const bspkit_entlist *list, size_t entity, size_t *count)
{
    const ent *e = get_ent(list, entity);
    if (count)
        *count = e ? e->count : 0;
    return e ? e->pairs : NULL;
}

const char *bspkit_entlist_value(const bspkit_entlist *list, size_t entity, const char *key)
{
    const ent *e = get_ent(list, entity);
    if (!e || !key)
        return NULL;
    for (size_t i = 0; i < e->count; i++)
        if (key_equal(e->pairs[i].key, key))
            return e->pairs[i].value;
    return NULL;
}

/* Replaces one pair's value; no change is recorded when it is equal. */
static bspkit_result assign_value(ent *e, size_t index, const char *value, bspkit_error *err)
{
    bspkit_keyvalue *kv = &e->pairs[index];
    if (strcmp(kv->value, value) == 0)
        return BSPKIT_OK;
    size_t len = strlen(value);
    char *v = dup_len(value, len);
    if (!v)
        return fail_nomem(err);
    free((char *)kv->value);
    kv->value = v;
    kv->value_length = (uint32_t)len;
    e->changed = true;
    return BSPKIT_OK;
}

bspkit_result bspkit_entlist_set(bspkit_entlist *list, size_t entity, const char *key, const char *value,
                                 bspkit_error *err)
{
    bspkit_result r;
    if (!list)
        return fail_arg(err, "invalid argument");
    if ((r = check_string(key, "key", err)) != BSPKIT_OK || (r = check_string(value, "value", err)) != BSPKIT_OK)
        return r;
    ent *e = get_ent(list, entity);
    if (!e)
        return fail_entity(err, list, entity);
    for (size_t i = 0; i < e->count; i++)
        if (key_equal(e->pairs[i].key, key))
            return assign_value(e, i, value, err);
    if (!push_pair(e, key, strlen(key), value, strlen(value)))
        return fail_nomem(err);
    e->changed = true;
    return BSPKIT_OK;
}

bspkit_result bspkit_entlist_add_pair(bspkit_entlist *list, size_t entity, const char *key, const char *value,
                                      bspkit_error *err)
{
    bspkit_result r;
    if (!list)
        return fail_arg(err, "invalid argument");
    if ((r = check_string(key, "key", err)) != BSPKIT_OK || (r = check_string(value, "value", err)) != BSPKIT_OK)
        return r;
    ent *e = get_ent(list, entity);
    if (!e)
        return fail_entity(err, list, entity);
    if (!push_pair(e, key, strlen(key), value, strlen(value)))
        return fail_nomem(err);
    e->changed = true;
    return BSPKIT_OK;
}

static bspkit_result fail_pair(bspkit_error *err, size_t entity, size_t index, size_t count)
{
    return bk_fail(err, BSPKIT_ERR_NOT_FOUND, -1, -1, -1, "entities: entity %zu has no pair %zu (it has %zu)",
                   entity, index, count);
}

bspkit_result bspkit_entlist_set_pair_value(bspkit_entlist *list, size_t entity, size_t index, const char *value,
                                            bspkit_error *err)
{
    bspkit_result r;
    if (!list)
        return fail_arg(err, "invalid argument");
    if ((r = check_string(value, "value", err)) != BSPKIT_OK)
        return r;
    ent *e = get_ent(list, entity);
    if (!e)
        return fail_entity(err, list, entity);
    if (index >= e->count)
        return fail_pair(err, entity, index, e->count);
    return assign_value(e, index, value, err);
}

bspkit_result bspkit_entlist_delete_pair(bspkit_entlist *list, size_t entity, size_t index, bspkit_error *err)
{
    if (!list)
        return fail_arg(err, "invalid argument");
    ent *e = get_ent(list, entity);
    if (!e)
        return fail_entity(err, list, entity);
    if (index >= e->count)
        return fail_pair(err, entity, index, e->count);
    free_pair(&e->pairs[index]);
    memmove(&e->pairs[index], &e->pairs[index + 1], (e->count - index - 1) * sizeof *e->pairs);
    e->count--;
    e->changed = true;
    return BSPKIT_OK;
}

bspkit_result bspkit_entlist_delete_key(bspkit_entlist *list, size_t entity, const char *key, size_t *removed,
                                        bspkit_error *err)
{
    if (removed)
        *removed = 0;
    if (!list || !key)
        return fail_arg(err, "invalid argument");
    ent *e = get_ent(list, entity);
    if (!e)
        return fail_entity(err, list, entity);
    size_t kept = 0;
    for (size_t i = 0; i < e->count; i++) {
        if (key_equal(e->pairs[i].key, key))
            free_pair(&e->pairs[i]);
        else
            e->pairs[kept++] = e->pairs[i];
    }
    if (kept != e->count)
        e->changed = true;
    if (removed)
        *removed = e->count - kept;
    e->count = kept;
    return BSPKIT_OK;
}

bspkit_result bspkit_entlist_add_entity(bspkit_entlist *list, const bspkit_keyvalue *pairs, size_t count,
                                        size_t *index, bspkit_error *err)
{
    bspkit_result r;
    if (!list || (!pairs && count))
        return fail_arg(err, "invalid argument");
    for (size_t i = 0; i < count; i++)
        if ((r = check_string(pairs[i].key, "key", err)) != BSPKIT_OK ||
            (r = check_string(pairs[i].value, "value", err)) != BSPKIT_OK)
            return r;
    if (!bk_grow((void **)&list->ents, &list->cap, list->count + 1, sizeof *list->ents))
        return fail_nomem(err);
    ent e = {.origin = NO_ORIGIN};
    for (size_t i = 0; i < count; i++) {
        if (!push_pair(&e, pairs[i].key, strlen(pairs[i].key), pairs[i].value, strlen(pairs[i].value))) {
            free_ent(&e);
            return fail_nomem(err);
        }
    }
    if (index)
        *index = list->count;
    list->ents[list->count++] = e;
    return BSPKIT_OK;
}

bspkit_result bspkit_entlist_delete_entity(bspkit_entlist *list, size_t entity, bspkit_error *err)
{
    if (!list)
        return fail_arg(err, "invalid argument");
    ent *e = get_ent(list, entity);
    if (!e)
        return fail_entity(err, list, entity);
    free_ent(e);
    memmove(e, e + 1, (list->count - entity - 1) * sizeof *e);
    list->count--;
    return BSPKIT_OK;
}

bspkit_result bspkit_entlist_delete_if(bspkit_entlist *list, bspkit_entity_predicate pred, void *ctx,
                                       size_t *removed, bspkit_error *err)
{
    if (removed)
        *removed = 0;
    if (!list || !pred)
        return fail_arg(err, "invalid argument");
    size_t kept = 0;
    for (size_t i = 0; i < list->count; i++) {
        ent *e = &list->ents[i];
        if (pred(ctx, e->pairs, e->count))
            free_ent(e);
        else
            list->ents[kept++] = *e;
    }
    if (removed)
        *removed = list->count - kept;
    list->count = kept;
    return BSPKIT_OK;
}

/* ---- replace ---- */

static uint64_t ent_hash(const ent *e)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a; the NULs separate the strings */
    for (size_t i = 0; i < e->count; i++) {
        const bspkit_keyvalue *kv = &e->pairs[i];
        for (const char *s = kv->key;; s++) {
            h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
            if (!*s)
                break;
        }
        for (const char *s = kv->value;; s++) {
            h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
            if (!*s)
                break;
        }
    }
    return (h ^ e->count) * 0x100000001b3ull;
}

static bool ent_equal(const ent *a, const ent *b)
{
    if (a->count != b->count)
        return false;
    for (size_t i = 0; i < a->count; i++)
        if (strcmp(a->pairs[i].key, b->pairs[i].key) != 0 || strcmp(a->pairs[i].value, b->pairs[i].value) != 0)
            return false;
    return true;
}

typedef struct hashed {
    uint64_t hash;
    size_t index;
} hashed;

static int cmp_hashed(const void *pa, const void *pb)
{
    const hashed *a = pa, *b = pb;
    if (a->hash != b->hash)
        return a->hash < b->hash ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

static bool copy_ent(ent *dst, const ent *src)
{
    *dst = (ent){.origin = NO_ORIGIN};
    for (size_t i = 0; i < src->count; i++) {
        const bspkit_keyvalue *kv = &src->pairs[i];
        if (!push_pair(dst, kv->key, kv->key_length, kv->value, kv->value_length)) {
            free_ent(dst);
            return false;
        }
    }
    return true;
}

bspkit_result bspkit_entlist_replace(bspkit_entlist *list, const bspkit_entlist *from, bspkit_error *err)
{
    if (!list || !from)
        return fail_arg(err, "invalid argument");
    size_t n_old = list->count, n_new = from->count;
    ent *ents = NULL;
    hashed *old_h = NULL;
    size_t *taken_by = NULL; /* per old entity: new index + 1, 0 = free */
    if ((n_new && !(ents = calloc(n_new, sizeof *ents))) || (n_old && !(old_h = malloc(n_old * sizeof *old_h))) ||
        (n_old && !(taken_by = calloc(n_old, sizeof *taken_by)))) {
        free(ents);
        free(old_h);
        return fail_nomem(err);
    }
    for (size_t i = 0; i < n_new; i++) {
        if (!copy_ent(&ents[i], &from->ents[i])) {
            while (i--)
                free_ent(&ents[i]);
            free(ents);
            free(old_h);
            free(taken_by);
            return fail_nomem(err);
        }
    }

    /* Equal entities first: sort the old ones by hash, look each new one up. */
    for (size_t i = 0; i < n_old; i++)
        old_h[i] = (hashed){ent_hash(&list->ents[i]), i};
    if (n_old)
        qsort(old_h, n_old, sizeof *old_h, cmp_hashed);
    bool *matched = n_new ? calloc(n_new, sizeof *matched) : NULL;
    if (n_new && !matched) {
        for (size_t i = 0; i < n_new; i++)
            free_ent(&ents[i]);
        free(ents);
        free(old_h);
        free(taken_by);
        return fail_nomem(err);
    }
    for (size_t i = 0; i < n_new; i++) {
        uint64_t h = ent_hash(&ents[i]);
        size_t lo = 0, hi = n_old;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (old_h[mid].hash < h)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t k = lo; k < n_old && old_h[k].hash == h; k++) {
            size_t o = old_h[k].index;
            if (!taken_by[o] && ent_equal(&list->ents[o], &ents[i])) {
                taken_by[o] = i + 1;
                matched[i] = true;
                ents[i].origin = list->ents[o].origin;
                ents[i].changed = list->ents[o].changed;
                break;
            }
        }
    }
    /* The rest pair up in order and count as changed. */
    size_t o = 0;
    for (size_t i = 0; i < n_new; i++) {
        if (matched[i])
            continue;
        while (o < n_old && taken_by[o])
            o++;
        if (o == n_old)
            break;
        taken_by[o] = i + 1;
        ents[i].origin = list->ents[o].origin;
        ents[i].changed = true;
    }

    for (size_t i = 0; i < n_old; i++)
        free_ent(&list->ents[i]);
    free(list->ents);
    list->ents = ents;
    list->count = list->cap = n_new;
    free(matched);
    free(old_h);
    free(taken_by);
    return BSPKIT_OK;
}

/* ---- serialisation ---- */

bspkit_result bspkit_entlist_serialize(const bspkit_entlist *list, char **text, size_t *size, bspkit_error *err)
{
    if (text)
        *text = NULL;
    if (size)
        *size = 0;
    if (!list || !text || !size)
        return fail_arg(err, "invalid argument");
    /* "{\n" + "}\n" per entity, "\"k\" \"v\"\n" (6 bytes + strings) per pair, final NUL. */
    size_t total = 1;
    for (size_t i = 0; i < list->count; i++) {
        const ent *e = &list->ents[i];
        total += 4;
        for (size_t j = 0; j < e->count; j++) {
            size_t add = 6 + (size_t)e->pairs[j].key_length + e->pairs[j].value_length;
            if (total > SIZE_MAX - add)
                return fail_nomem(err);
            total += add;
        }
    }
    char *buf = malloc(total);
    if (!buf)
        return fail_nomem(err);
    char *p = buf;
    for (size_t i = 0; i < list->count; i++) {
        const ent *e = &list->ents[i];
        *p++ = '{';
        *p++ = '\n';
        for (size_t j = 0; j < e->count; j++) {
            const bspkit_keyvalue *kv = &e->pairs[j];
            *p++ = '"';
            memcpy(p, kv->key, kv->key_length);
            p += kv->key_length;
            memcpy(p, "\" \"", 3);
            p += 3;
            memcpy(p, kv->value, kv->value_length);
            p += kv->value_length;
            *p++ = '"';
            *p++ = '\n';
        }
        *p++ = '}';
        *p++ = '\n';
    }
    *p = '\0';
    *text = buf;
    *size = total;
    return BSPKIT_OK;
}

void bspkit_entlist_get_changes(const bspkit_entlist *list, bspkit_entlist_changes *out)
{
    if (!out)
        return;
    *out = (bspkit_entlist_changes){0};
    if (!list)
        return;
    size_t kept = 0;
    for (size_t i = 0; i < list->count; i++) {
        const ent *e = &list->ents[i];
        if (e->origin == NO_ORIGIN) {
            out->added++;
        } else {
            kept++;
            out->changed += e->changed;
        }
    }
    out->removed = list->originals - kept;
}

bool bspkit_glob_match(const char *pattern, const char *text, bool case_sensitive)
{
    return bk_glob_match(pattern, text, case_sensitive ? 0 : BK_GLOB_FOLD_CASE);
}

/* ------------------------------------------------------------------------ */
/* selectors                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct condition {
    char *key, *value; /* glob patterns */
    bool negate;
} condition;

struct bspkit_selector {
    condition *conds;
    size_t count, cap;
    bool case_sensitive;
};

void bspkit_selector_free(bspkit_selector *sel)
{
    if (!sel)
        return;
    for (size_t i = 0; i < sel->count; i++) {
        free(sel->conds[i].key);
        free(sel->conds[i].value);
    }
    free(sel->conds);
    free(sel);
}

static bspkit_result parse_condition(bspkit_selector *sel, const char *s, size_t len, bspkit_error *err)
{
    if (len == 0)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "selector: empty condition");
    size_t eq = len;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\\' && i + 1 < len) {
            i++;
        } else if (s[i] == '=') {
            eq = i;
            break;
        }
    }
    if (eq == len)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "selector: condition '%.*s' has no '=' (KEY=GLOB)",
                       (int)(len > 100 ? 100 : len), s);
    size_t key_end = eq;
    bool negate = false;
    /* '!' right before '=' negates unless it is quoted. */
    if (eq > 0 && s[eq - 1] == '!') {
        size_t backslashes = 0;
        while (backslashes < eq - 1 && s[eq - 2 - backslashes] == '\\')
            backslashes++;
        if (backslashes % 2 == 0) {
            negate = true;
            key_end = eq - 1;
        }
    }
    if (key_end == 0)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "selector: condition '%.*s' has an empty key",
                       (int)(len > 100 ? 100 : len), s);
    if (!bk_grow((void **)&sel->conds, &sel->cap, sel->count + 1, sizeof *sel->conds))
        return fail_nomem(err);
    condition *c = &sel->conds[sel->count];
    c->key = dup_len(s, key_end);
    c->value = dup_len(s + eq + 1, len - eq - 1);
    c->negate = negate;
    if (!c->key || !c->value) {
        free(c->key);
        free(c->value);
        return fail_nomem(err);
    }
    sel->count++;
    return BSPKIT_OK;
}

bspkit_result bspkit_selector_parse(const char *text, unsigned flags, bspkit_selector **out, bspkit_error *err)
{
    if (out)
        *out = NULL;
    if (!text || !out)
        return fail_arg(err, "invalid argument");
    if (flags & ~(unsigned)BSPKIT_SELECT_CASE_SENSITIVE)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "selector: unknown flags 0x%x", flags);
    if (*text == '\0')
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "selector: empty");
    bspkit_selector *sel = calloc(1, sizeof *sel);
    if (!sel)
        return fail_nomem(err);
    sel->case_sensitive = (flags & BSPKIT_SELECT_CASE_SENSITIVE) != 0;
    const char *start = text;
    for (const char *p = text;; p++) {
        if (*p == '\\' && p[1]) {
            p++;
            continue;
        }
        if (*p == ',' || *p == '\0') {
            bspkit_result r = parse_condition(sel, start, (size_t)(p - start), err);
            if (r != BSPKIT_OK) {
                bspkit_selector_free(sel);
                return r;
            }
            if (*p == '\0')
                break;
            start = p + 1;
        }
    }
    *out = sel;
    return BSPKIT_OK;
}

bool bspkit_selector_match_pairs(const bspkit_selector *sel, const bspkit_keyvalue *pairs, size_t count)
{
    if (!sel || (!pairs && count))
        return false;
    for (size_t i = 0; i < sel->count; i++) {
        const condition *c = &sel->conds[i];
        bool found = false;
        for (size_t j = 0; j < count && !found; j++)
            found = bspkit_glob_match(c->key, pairs[j].key, false) &&
                    bspkit_glob_match(c->value, pairs[j].value, sel->case_sensitive);
        if (found == c->negate)
            return false;
    }
    return true;
}

bool bspkit_selector_match(const bspkit_selector *sel, const bspkit_entlist *list, size_t entity)
{
    const ent *e = get_ent(list, entity);
    return e && bspkit_selector_match_pairs(sel, e->pairs, e->count);
}

/* Former name, kept for programs built against earlier releases. */
void bspkit_entlist_changes_get(const bspkit_entlist *list, bspkit_entlist_changes *out)
{
    bspkit_entlist_get_changes(list, out);
}
