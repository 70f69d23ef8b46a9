/*
 * bspkit/diff.h — what differs between two maps: entities matched across
 * both, key/value and output changes, lumps that changed; and a
 * Stripper:Source config that turns the first map's entities into the
 * second's.
 *
 * Conventions as in bspkit.h. A bspkit_diff owns everything it points to;
 * release it with bspkit_diff_free().
 *
 * Matching. Entities of A are paired with entities of B in four rounds,
 * each over the entities the rounds before left unpaired:
 *   1. the same "hammerid" value;
 *   2. the same "classname" and "targetname";
 *   3. the same "classname" and "origin";
 *   4. the same "classname".
 * Class names and target names compare ASCII case-insensitively (Source
 * finds both without regard to case), hammerid and origin byte for byte.
 * Within one group of equal identity the entities equal on both sides are
 * paired first, each with the first equal one not yet taken, then the rest
 * in file order; what is left over is removed (A) or added (B). The result
 * depends only on the two entity lists, never on memory addresses.
 *
 * Equality. Two entities are equal when, for every key (compared ASCII
 * case-insensitively), they hold the same pairs (key spelling and value
 * byte for byte) in the same order. The order between different keys is
 * not compared: the engines look keys up by name, while the order of a
 * repeated key (Source outputs such as "OnTrigger") is the order they fire.
 *
 * Outputs. A key whose values all have the form of a Source output
 * connection (target, input, parameter, delay, refire separated by four
 * commas, or by four 0x1B bytes as later games write them) is compared as a
 * multiset: the connections only in A are removed, those only in B added,
 * and the same connections in another order set `reordered`.
 */
#ifndef BSPKIT_DIFF_H
#define BSPKIT_DIFF_H

#include "bspkit/bspkit.h"
#include "bspkit/entities_edit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bspkit_diff_kind {
    BSPKIT_DIFF_ADDED = 1,   /**< only in B */
    BSPKIT_DIFF_REMOVED = 2, /**< only in A */
    BSPKIT_DIFF_CHANGED = 3  /**< in both, different */
} bspkit_diff_kind;

/** Which round paired an entity (see the header comment). */
typedef enum bspkit_diff_match {
    BSPKIT_DIFF_MATCH_NONE = 0, /**< unpaired: added or removed */
    BSPKIT_DIFF_MATCH_HAMMERID = 1,
    BSPKIT_DIFF_MATCH_TARGETNAME = 2,
    BSPKIT_DIFF_MATCH_ORIGIN = 3,
    BSPKIT_DIFF_MATCH_CLASSNAME = 4
} bspkit_diff_match;

/** One key/value difference inside a changed entity. */
typedef struct bspkit_diff_key {
    bspkit_diff_kind kind;  /**< ADDED: new_value only; REMOVED: old_value only; CHANGED: both */
    const char *key;        /**< as spelled in B (ADDED, CHANGED) or A (REMOVED) */
    const char *old_value;  /**< NULL for ADDED */
    const char *new_value;  /**< NULL for REMOVED */
    bool output;            /**< the key holds output connections */
} bspkit_diff_key;

/** One entity that differs. */
typedef struct bspkit_diff_entity {
    bspkit_diff_kind kind;
    size_t index_a, index_b;   /**< positions in A and B; SIZE_MAX where absent */
    bspkit_diff_match match;   /**< the round that paired it */
    const char *classname;     /**< "classname" value (B's when changed), or NULL */
    const char *id;            /**< value of the key it was matched or named by (hammerid, targetname,
                                    origin), or NULL */
    const bspkit_keyvalue *pairs; /**< ADDED: B's pairs, REMOVED: A's pairs, CHANGED: B's pairs */
    size_t pair_count;
    const bspkit_diff_key *keys; /**< CHANGED: the key differences, by key (ASCII case-insensitive order) */
    size_t key_count;
    bool reordered;            /**< CHANGED: some repeated key holds the same values in another order */
} bspkit_diff_entity;

/** One lump of the directory of both maps. */
typedef struct bspkit_diff_lump {
    int index;
    const char *name;
    uint64_t size_a, size_b;   /**< decompressed sizes */
    uint32_t crc_a, crc_b;     /**< CRC-32 (zlib) of the decompressed bytes */
    bool changed;              /**< the decompressed bytes differ */
} bspkit_diff_lump;

typedef struct bspkit_diff {
    size_t entity_count_a, entity_count_b;
    const bspkit_diff_entity *entities; /**< only entities that differ: removed and changed in A's order,
                                             then added in B's order */
    size_t entity_diff_count;
    size_t added, removed, changed;
    bool lumps_compared;   /**< both maps of one format family with the same lump directory size
                                (false for bspkit_diff_entlists) */
    const bspkit_diff_lump *lumps; /**< every lump index when lumps_compared */
    size_t lump_count;
    size_t lumps_changed;
} bspkit_diff;

/** Compare two entity lists. The lists are not referenced afterwards. */
BSPKIT_API bspkit_result bspkit_diff_entlists(const bspkit_entlist *a, const bspkit_entlist *b, bspkit_diff **out,
                                              bspkit_error *err);

/** Compare two maps: their entities (as bspkit_get_entities reads them) and their lumps. */
BSPKIT_API bspkit_result bspkit_diff_maps(bspkit_map *a, bspkit_map *b, bspkit_diff **out, bspkit_error *err);

/** True when the diff found nothing: no entity differs and no lump changed. */
BSPKIT_API bool bspkit_diff_is_empty(const bspkit_diff *diff);

/** Release the diff. NULL is allowed. */
BSPKIT_API void bspkit_diff_free(bspkit_diff *diff);

/**
 * A Stripper:Source config (see bspkit/entities_edit.h) that turns the
 * entities of `a` into those of `b`: filter blocks for removed entities,
 * modify blocks for changed ones (replace: for a single value that changed,
 * delete: and insert: for keys added, removed or repeated), add blocks for
 * added ones. Each block's match names the entity by the pairs of its round
 * (classname with hammerid, targetname or origin), or by all its pairs when
 * those would hit another entity; entities the config cannot tell apart
 * (identical in every pair the plugin compares) are filtered together and
 * the ones B keeps added back. The config is checked before it is returned:
 * applied with bspkit_stripper_apply() to `a` it yields entities equal (in
 * the sense above) to those of `b`, as a multiset.
 *
 * Fails with BSPKIT_ERR_UNSUPPORTED naming the entity when a config cannot
 * express the change: a key or value holding a line break or double quote,
 * an entity to add without a "classname", or an entity to change with no
 * pair a match could use. `*text` is NUL-terminated (`*size` excludes the NUL); free it with
 * bspkit_free().
 */
BSPKIT_API bspkit_result bspkit_diff_stripper(const bspkit_entlist *a, const bspkit_entlist *b, char **text,
                                              size_t *size, bspkit_error *err);

#ifdef __cplusplus
}
#endif

#endif /* BSPKIT_DIFF_H */
