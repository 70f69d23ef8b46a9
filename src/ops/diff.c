/* Comparing two maps: entity pairs and their key/value and output changes,
 * and the lumps whose bytes changed (bspkit/diff.h). */
#include "ops/ops_internal.h"
#include "core/ascii.h"
#include "core/crc32.h"
#include "core/grow.h"
#include "core/map.h"

#include <stdlib.h>
#include <string.h>

/* The diff and what it points into: copies of both lists, never changed. */
typedef struct diff_impl {
    bspkit_diff pub;
    bspkit_entlist *a, *b;
    bspkit_diff_entity *ents;
    size_t ents_cap;
    bspkit_diff_key *keys; /* every entity's keys; entities index into it once complete */
    size_t nkeys, keys_cap;
    size_t *key_first;     /* per entity diff: its first key in `keys` */
    bspkit_diff_lump *lumps;
} diff_impl;

static bspkit_result nomem(bspkit_error *err)
{
    return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "diff: out of memory");
}

void bspkit_diff_free(bspkit_diff *diff)
{
    if (!diff)
        return;
    diff_impl *d = (diff_impl *)diff;
    bspkit_entlist_free(d->a);
    bspkit_entlist_free(d->b);
    free(d->ents);
    free(d->keys);
    free(d->key_first);
    free(d->lumps);
    free(d);
}

bool bspkit_diff_is_empty(const bspkit_diff *diff)
{
    return diff && diff->entity_diff_count == 0 && diff->lumps_changed == 0;
}

/* target,input,parameter,delay,refire: four separators of one kind. */
static bool is_output_value(const char *v)
{
    size_t commas = 0, escs = 0;
    for (; *v; v++) {
        commas += *v == ',';
        escs += *v == '\x1b';
    }
    return commas == 4 || escs == 4;
}

static bool push_key(diff_impl *d, bspkit_diff_kind kind, const char *key, const char *old_value,
                     const char *new_value, bool output)
{
    if (!bk_grow((void **)&d->keys, &d->keys_cap, d->nkeys + 1, sizeof *d->keys))
        return false;
    d->keys[d->nkeys++] = (bspkit_diff_key){kind, key, old_value, new_value, output};
    return true;
}

/* Compare one key's values: [ia, ea) of A's order with [ib, eb) of B's. */
static bool compare_key(diff_impl *d, const op_ent *ea_, size_t ia, size_t ea, const op_ent *eb_, size_t ib,
                        size_t eb, bool *reordered)
{
    size_t na = ea - ia, nb = eb - ib;
    const bspkit_keyvalue *pa = ea_->pairs, *pb = eb_->pairs;
    const size_t *oa = ea_->order + ia, *ob = eb_->order + ib;
    if (na == nb) {
        size_t i = 0;
        while (i < na && strcmp(pa[oa[i]].key, pb[ob[i]].key) == 0 && strcmp(pa[oa[i]].value, pb[ob[i]].value) == 0)
            i++;
        if (i == na)
            return true;
    }
    bool output = na + nb > 0;
    for (size_t i = 0; i < na && output; i++)
        output = is_output_value(pa[oa[i]].value);
    for (size_t i = 0; i < nb && output; i++)
        output = is_output_value(pb[ob[i]].value);
    if (!output && na == 1 && nb == 1)
        return push_key(d, BSPKIT_DIFF_CHANGED, pb[ob[0]].key, pa[oa[0]].value, pb[ob[0]].value, false);
    /* As multisets: each of B's pairs takes the first equal one of A's not yet taken. */
    bool *taken = calloc(na ? na : 1, 1);
    if (!taken)
        return false;
    size_t unmatched = 0;
    bool ok = true;
    size_t first_added = d->nkeys;
    for (size_t j = 0; j < nb && ok; j++) {
        size_t i = 0;
        while (i < na && (taken[i] || strcmp(pa[oa[i]].key, pb[ob[j]].key) != 0 ||
                          strcmp(pa[oa[i]].value, pb[ob[j]].value) != 0))
            i++;
        if (i < na) {
            taken[i] = true;
        } else {
            ok = push_key(d, BSPKIT_DIFF_ADDED, pb[ob[j]].key, NULL, pb[ob[j]].value, output);
            unmatched++;
        }
    }
    /* Removed before added reads better; move the removed ones in front. */
    size_t nadded = d->nkeys - first_added;
    for (size_t i = 0; i < na && ok; i++)
        if (!taken[i]) {
            ok = push_key(d, BSPKIT_DIFF_REMOVED, pa[oa[i]].key, pa[oa[i]].value, NULL, output);
            unmatched++;
        }
    free(taken);
    if (!ok)
        return false;
    size_t nremoved = d->nkeys - first_added - nadded;
    if (nadded && nremoved) {
        bspkit_diff_key *tmp = malloc(nadded * sizeof *tmp);
        if (!tmp)
            return false;
        memcpy(tmp, d->keys + first_added, nadded * sizeof *tmp);
        memmove(d->keys + first_added, d->keys + first_added + nadded, nremoved * sizeof *tmp);
        memcpy(d->keys + first_added + nremoved, tmp, nadded * sizeof *tmp);
        free(tmp);
    }
    if (unmatched == 0)
        *reordered = true;
    return true;
}

static bool compare_entities(diff_impl *d, const op_ent *a, const op_ent *b, bool *reordered)
{
    size_t i = 0, j = 0;
    while (i < a->count || j < b->count) {
        int c;
        if (i == a->count)
            c = 1;
        else if (j == b->count)
            c = -1;
        else
            c = bk_ascii_casecmp(a->pairs[a->order[i]].key, b->pairs[b->order[j]].key);
        size_t ei = c <= 0 ? op_key_run(a, i) : i;
        size_t ej = c >= 0 ? op_key_run(b, j) : j;
        if (!compare_key(d, a, i, ei, b, j, ej, reordered))
            return false;
        i = ei;
        j = ej;
    }
    return true;
}

static bool push_entity(diff_impl *d, const bspkit_diff_entity *e, size_t first_key)
{
    size_t n = d->pub.entity_diff_count;
    size_t cap = d->ents_cap;
    if (!bk_grow((void **)&d->ents, &d->ents_cap, n + 1, sizeof *d->ents))
        return false;
    if (d->ents_cap != cap) {
        size_t *kf = realloc(d->key_first, d->ents_cap * sizeof *kf);
        if (!kf)
            return false;
        d->key_first = kf;
    }
    d->ents[n] = *e;
    d->key_first[n] = first_key;
    d->pub.entity_diff_count = n + 1;
    return true;
}

static const char *entity_id(const op_ent *e, int round)
{
    const char *key = op_round_key(round);
    const char *v = key ? op_value(e->pairs, e->count, key) : NULL;
    if (!v)
        v = op_value(e->pairs, e->count, "targetname");
    return v;
}

/* The entity as reported: `shown`'s pairs (B's unless removed) and names. */
static void describe(bspkit_diff_entity *e, bspkit_diff_kind kind, const op_ent *shown, size_t ia, size_t ib)
{
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->index_a = ia;
    e->index_b = ib;
    e->pairs = shown->pairs;
    e->pair_count = shown->count;
    e->classname = op_value(shown->pairs, shown->count, "classname");
    e->id = entity_id(shown, BSPKIT_DIFF_MATCH_NONE);
}

static bspkit_result diff_lists(diff_impl *d, bspkit_error *err)
{
    op_side sa = {0}, sb = {0};
    size_t *to_b = NULL, *to_a = NULL;
    uint8_t *round = NULL;
    bspkit_result r = op_side_load(d->a, &sa, err);
    if (r == BSPKIT_OK)
        r = op_side_load(d->b, &sb, err);
    if (r != BSPKIT_OK)
        goto done;
    to_b = malloc((sa.count + 1) * sizeof *to_b);
    to_a = malloc((sb.count + 1) * sizeof *to_a);
    round = malloc(sa.count + 1);
    if (!to_b || !to_a || !round) {
        r = nomem(err);
        goto done;
    }
    r = op_pair_sides(&sa, &sb, to_b, to_a, round, err);
    if (r != BSPKIT_OK)
        goto done;
    d->pub.entity_count_a = sa.count;
    d->pub.entity_count_b = sb.count;
    for (size_t i = 0; i < sa.count; i++) {
        const op_ent *ea = &sa.ents[i];
        const op_ent *eb = to_b[i] == OP_NONE ? NULL : &sb.ents[to_b[i]];
        if (eb && op_ent_equal(ea, eb))
            continue;
        bspkit_diff_entity e;
        describe(&e, eb ? BSPKIT_DIFF_CHANGED : BSPKIT_DIFF_REMOVED, eb ? eb : ea, i, to_b[i]);
        e.match = (bspkit_diff_match)round[i];
        e.id = entity_id(ea, round[i]);
        size_t first = d->nkeys;
        if (eb && !compare_entities(d, ea, eb, &e.reordered)) {
            r = nomem(err);
            goto done;
        }
        d->pub.removed += !eb;
        d->pub.changed += eb != NULL;
        if (!push_entity(d, &e, first)) {
            r = nomem(err);
            goto done;
        }
    }
    for (size_t j = 0; j < sb.count; j++) {
        if (to_a[j] != OP_NONE)
            continue;
        bspkit_diff_entity e;
        describe(&e, BSPKIT_DIFF_ADDED, &sb.ents[j], OP_NONE, j);
        d->pub.added++;
        if (!push_entity(d, &e, d->nkeys)) {
            r = nomem(err);
            goto done;
        }
    }
    /* The key array is complete: point every entity into it. */
    for (size_t k = 0; k < d->pub.entity_diff_count; k++) {
        size_t end = k + 1 < d->pub.entity_diff_count ? d->key_first[k + 1] : d->nkeys;
        d->ents[k].keys = d->keys ? d->keys + d->key_first[k] : NULL;
        d->ents[k].key_count = end - d->key_first[k];
    }
    d->pub.entities = d->ents;
done:
    free(to_b);
    free(to_a);
    free(round);
    op_side_free(&sa);
    op_side_free(&sb);
    return r;
}

static bspkit_result clone_list(const bspkit_entlist *from, bspkit_entlist **out, bspkit_error *err)
{
    bspkit_result r = bspkit_entlist_new(out, err);
    if (r == BSPKIT_OK)
        r = bspkit_entlist_replace(*out, from, err);
    return r;
}

static bspkit_result diff_new(diff_impl **out, bspkit_error *err)
{
    *out = calloc(1, sizeof **out);
    return *out ? BSPKIT_OK : nomem(err);
}

bspkit_result bspkit_diff_entlists(const bspkit_entlist *a, const bspkit_entlist *b, bspkit_diff **out,
                                              bspkit_error *err)
{
    bk_error_clear(err);
    if (!a || !b || !out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "diff: NULL argument");
    *out = NULL;
    diff_impl *d;
    bspkit_result r = diff_new(&d, err);
    if (r == BSPKIT_OK)
        r = clone_list(a, &d->a, err);
    if (r == BSPKIT_OK)
        r = clone_list(b, &d->b, err);
    if (r == BSPKIT_OK)
        r = diff_lists(d, err);
    if (r != BSPKIT_OK) {
        bspkit_diff_free(d ? &d->pub : NULL);
        return r;
    }
    *out = &d->pub;
    return BSPKIT_OK;
}

static bspkit_result diff_lumps(diff_impl *d, bspkit_map *a, bspkit_map *b, bspkit_error *err)
{
    const bspkit_format *fa = bspkit_map_format(a), *fb = bspkit_map_format(b);
    int n = bspkit_lump_count(a);
    if (fa->family != fb->family || n != bspkit_lump_count(b) || n <= 0)
        return BSPKIT_OK;
    d->lumps = calloc((size_t)n, sizeof *d->lumps);
    if (!d->lumps)
        return nomem(err);
    for (int i = 0; i < n; i++) {
        bspkit_lump_info ia, ib;
        const uint8_t *da, *db;
        size_t sa, sb;
        bspkit_result r = bspkit_get_lump_info(a, i, &ia);
        if (r == BSPKIT_OK)
            r = bspkit_get_lump_info(b, i, &ib);
        if (r != BSPKIT_OK)
            return bk_fail(err, r, i, -1, -1, "diff: lump %d: directory entry not readable", i);
        if ((r = bspkit_lump_bytes(a, i, &da, &sa, err)) != BSPKIT_OK)
            return r;
        if ((r = bspkit_lump_bytes(b, i, &db, &sb, err)) != BSPKIT_OK)
            return r;
        bspkit_diff_lump *l = &d->lumps[i];
        l->index = i;
        l->name = ia.name;
        l->size_a = sa;
        l->size_b = sb;
        l->crc_a = bk_crc32(da, sa, 0);
        l->crc_b = bk_crc32(db, sb, 0);
        l->changed = sa != sb || (sa && memcmp(da, db, sa) != 0);
        d->pub.lumps_changed += l->changed;
    }
    d->pub.lumps = d->lumps;
    d->pub.lump_count = (size_t)n;
    d->pub.lumps_compared = true;
    return BSPKIT_OK;
}

bspkit_result bspkit_diff_maps(bspkit_map *a, bspkit_map *b, bspkit_diff **out, bspkit_error *err)
{
    bk_error_clear(err);
    if (!a || !b || !out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "diff: NULL argument");
    *out = NULL;
    const bspkit_entities *ea, *eb;
    bspkit_result r = bspkit_get_entities(a, &ea, err);
    if (r != BSPKIT_OK)
        return r;
    if ((r = bspkit_get_entities(b, &eb, err)) != BSPKIT_OK)
        return r;
    diff_impl *d;
    if ((r = diff_new(&d, err)) != BSPKIT_OK)
        return r;
    r = bspkit_entlist_from_entities(ea, &d->a, err);
    if (r == BSPKIT_OK)
        r = bspkit_entlist_from_entities(eb, &d->b, err);
    if (r == BSPKIT_OK)
        r = diff_lists(d, err);
    if (r == BSPKIT_OK)
        r = diff_lumps(d, a, b, err);
    if (r != BSPKIT_OK) {
        bspkit_diff_free(&d->pub);
        return r;
    }
    *out = &d->pub;
    return BSPKIT_OK;
}
