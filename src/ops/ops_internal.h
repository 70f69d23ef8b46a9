/* Shared by the map comparison and the Stripper config it writes: entities
 * in a canonical key order, their equality, and the pairing of two lists. */
#ifndef BSPKIT_OPS_INTERNAL_H
#define BSPKIT_OPS_INTERNAL_H

#include "bspkit/diff.h"
#include "bspkit/entities_edit.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OP_NONE SIZE_MAX

/* One entity's pairs (borrowed) with their indices sorted by lower-case key,
 * ties in file order, so that equal entities read the same in this order. */
typedef struct op_ent {
    const bspkit_keyvalue *pairs;
    size_t count;
    size_t *order;
    uint64_t hash; /* over the pairs in canonical order */
} op_ent;

typedef struct op_side {
    op_ent *ents;
    size_t count;
} op_side;

/* Fill `e` from `count` pairs (borrowed; must outlive `e`). */
bool op_ent_init(op_ent *e, const bspkit_keyvalue *pairs, size_t count);
void op_ent_clear(op_ent *e);
/* Every entity of the list (which must stay unchanged while `s` is used). */
bspkit_result op_side_load(const bspkit_entlist *list, op_side *s, bspkit_error *err);
void op_side_free(op_side *s);

bool op_ent_equal(const op_ent *a, const op_ent *b);
/* End (in e->order) of the run of pairs with the key of the pair at order[pos]. */
size_t op_key_run(const op_ent *e, size_t pos);
/* First value of `key` (ASCII case-insensitive), or NULL. */
const char *op_value(const bspkit_keyvalue *pairs, size_t count, const char *key);

/* Pair the entities of `a` with those of `b` (see bspkit/diff.h).
 * to_b[i] is B's index for A's entity i or OP_NONE, to_a the reverse;
 * round[i] the bspkit_diff_match round of A's entity i. */
bspkit_result op_pair_sides(const op_side *a, const op_side *b, size_t *to_b, size_t *to_a, uint8_t *round,
                            bspkit_error *err);

/* The key a round matches by after classname: hammerid, targetname, origin, or NULL. */
const char *op_round_key(int round);

#endif
