/*
 * bspkit/entities_edit.h — edit entity lumps: a mutable entity list,
 * key/value selectors and Stripper:Source configs.
 *
 * Conventions (as in bspkit.h):
 *  - Every function that can fail returns a bspkit_result and, when `err` is
 *    not NULL, fills it. Out-of-range entity or pair indices give
 *    BSPKIT_ERR_NOT_FOUND, NULL arguments BSPKIT_ERR_ARGUMENT.
 *  - Setters COPY the strings they are given.
 *  - Pointers returned by accessors are BORROWED from the list: they stay
 *    valid until that entity is next changed (any setter on it, or adding or
 *    deleting entities) or the list is freed.
 *  - Keys and values are NUL-terminated strings. A double quote cannot be
 *    written inside a quoted entity string, so setters refuse keys and values
 *    containing '"' (BSPKIT_ERR_ARGUMENT); every other byte but NUL is kept.
 *
 * Case rules. Key names are compared ASCII case-insensitively everywhere in
 * this header: Source looks keys up case-insensitively (datadesc and
 * KeyValues), and Quake and GoldSrc maps practically always spell keys in
 * lower case. Setting a key that exists keeps the spelling already in the
 * entity. How values compare is stated per function.
 */
#ifndef BSPKIT_ENTITIES_EDIT_H
#define BSPKIT_ENTITIES_EDIT_H

#include "bspkit/bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Mutable entity list                                                       */
/* ------------------------------------------------------------------------ */

typedef struct bspkit_entlist bspkit_entlist;

/** An empty list. Free with bspkit_entlist_free(). */
BSPKIT_API bspkit_result bspkit_entlist_new(bspkit_entlist **out, bspkit_error *err);

/**
 * A list holding a copy of parsed entities (order and duplicate keys kept).
 * `ents` is not referenced afterwards. Those entities are the list's
 * originals for bspkit_entlist_changes().
 */
BSPKIT_API bspkit_result bspkit_entlist_from_entities(const bspkit_entities *ents, bspkit_entlist **out, bspkit_error *err);

/** Parse entity text (see bspkit_entities_parse) into a new list. */
BSPKIT_API bspkit_result bspkit_entlist_parse(const char *text, size_t size, bspkit_entlist **out, bspkit_error *err);

/** Release the list. NULL is allowed. */
BSPKIT_API void bspkit_entlist_free(bspkit_entlist *list);

/** Number of entities. */
BSPKIT_API size_t bspkit_entlist_count(const bspkit_entlist *list);

/**
 * The pairs of entity `entity` in order, `*count` of them (borrowed), or NULL
 * with `*count` 0 when the index is out of range. The length fields are
 * filled.
 */
BSPKIT_API const bspkit_keyvalue *bspkit_entlist_pairs(const bspkit_entlist *list, size_t entity, size_t *count);

/** Value of the first pair whose key equals `key` (case-insensitive), or NULL. */
BSPKIT_API const char *bspkit_entlist_value(const bspkit_entlist *list, size_t entity, const char *key);

/**
 * Set `key` to `value`: the first pair with that key (case-insensitive) gets
 * the new value and keeps its position and spelling; later pairs with the
 * same key are left alone. When the entity has no such key the pair is
 * appended.
 */
BSPKIT_API bspkit_result bspkit_entlist_set(bspkit_entlist *list, size_t entity, const char *key, const char *value,
                                 bspkit_error *err);

/** Append a pair even when the key exists (Source outputs such as "OnTrigger" repeat). */
BSPKIT_API bspkit_result bspkit_entlist_add_pair(bspkit_entlist *list, size_t entity, const char *key, const char *value,
                                      bspkit_error *err);

/** Replace the value of pair `index` of entity `entity`. */
BSPKIT_API bspkit_result bspkit_entlist_set_pair_value(bspkit_entlist *list, size_t entity, size_t index, const char *value,
                                            bspkit_error *err);

/** Remove pair `index` of entity `entity`; later pairs move up by one. */
BSPKIT_API bspkit_result bspkit_entlist_delete_pair(bspkit_entlist *list, size_t entity, size_t index, bspkit_error *err);

/** Remove every pair whose key equals `key` (case-insensitive); `removed` (may be NULL) gets how many. */
BSPKIT_API bspkit_result bspkit_entlist_delete_key(bspkit_entlist *list, size_t entity, const char *key, size_t *removed,
                                        bspkit_error *err);

/**
 * Append an entity with `count` pairs (`pairs` may be NULL when `count` is 0).
 * Only the key and value strings of each bspkit_keyvalue are read; their
 * length fields are ignored. `index` (may be NULL) gets the new entity's index.
 */
BSPKIT_API bspkit_result bspkit_entlist_add_entity(bspkit_entlist *list, const bspkit_keyvalue *pairs, size_t count,
                                        size_t *index, bspkit_error *err);

/** Remove entity `entity`; later entities move up by one. */
BSPKIT_API bspkit_result bspkit_entlist_delete_entity(bspkit_entlist *list, size_t entity, bspkit_error *err);

/**
 * Predicate over one entity's pairs, for bspkit_entlist_delete_if(). Return
 * true to remove the entity.
 */
typedef bool (*bspkit_entity_predicate)(void *ctx, const bspkit_keyvalue *pairs, size_t count);

/** Remove every entity `pred` accepts, in one pass. `removed` (may be NULL) gets how many. */
BSPKIT_API bspkit_result bspkit_entlist_delete_if(bspkit_entlist *list, bspkit_entity_predicate pred, void *ctx,
                                       size_t *removed, bspkit_error *err);

/**
 * Replace every entity of `list` with a copy of those of `from`. For
 * bspkit_entlist_changes(), each new entity equal to a current one (same
 * pairs, byte for byte, in the same order) takes that one's place, first
 * come first served; the remaining new entities are paired in order with the
 * remaining current ones and count as changed; what is left over counts as
 * added or removed.
 */
BSPKIT_API bspkit_result bspkit_entlist_replace(bspkit_entlist *list, const bspkit_entlist *from, bspkit_error *err);

/**
 * Entity-lump text as Valve's and id's compilers write it: for each entity
 * "{\n", one line "\"key\" \"value\"\n" per pair, "}\n"; the whole text is
 * followed by one NUL byte, which `*size` includes. The buffer is allocated
 * with malloc(); release it with bspkit_free().
 */
BSPKIT_API bspkit_result bspkit_entlist_serialize(const bspkit_entlist *list, char **text, size_t *size, bspkit_error *err);

/** What changed since the list was made (see bspkit_entlist_from_entities). */
typedef struct bspkit_entlist_changes {
    size_t changed; /**< original entities still present whose pairs were changed */
    size_t removed; /**< original entities no longer present */
    size_t added;   /**< entities present that were not originals */
} bspkit_entlist_changes;

/**
 * Count the changes. An entity counts as changed when a setter altered it,
 * even if later edits restored its pairs; setting a value equal to the
 * current one is no change. A list made with bspkit_entlist_new() or
 * bspkit_entlist_parse() has no originals: its entities all count as added.
 */
BSPKIT_API void bspkit_entlist_get_changes(const bspkit_entlist *list, bspkit_entlist_changes *out);
/** Former name of bspkit_entlist_get_changes(). */
BSPKIT_API void bspkit_entlist_changes_get(const bspkit_entlist *list, bspkit_entlist_changes *out)
    BSPKIT_DEPRECATED("bspkit_entlist_get_changes");

/* ------------------------------------------------------------------------ */
/* Selectors                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct bspkit_selector bspkit_selector;

/** Selector flags. */
enum {
    /** Compare values case-sensitively (keys stay case-insensitive). */
    BSPKIT_SELECT_CASE_SENSITIVE = 1u << 0
};

/**
 * Parse a selector: one or more conditions separated by commas, all of which
 * must hold (AND):
 *   KEY=GLOB   some pair has a key matching KEY and a value matching GLOB
 *   KEY!=GLOB  no pair has a key matching KEY and a value matching GLOB
 * KEY and GLOB are glob patterns in the manner of fnmatch() without flags:
 * '*' (any run of bytes, '/' included), '?' (one byte), '[...]' (a set of
 * bytes, with ranges, '!' or '^' to negate) and '\' quoting the next byte.
 * A comma belongs to a pattern when written "\,"; the first '=' not written
 * "\=" ends KEY, and a '!' right before it negates unless written "\!".
 * KEY may not be empty. Examples:
 * "classname=info_player_*", "classname=light,targetname=door1",
 * "classname=func_*,targetname!=*" (brush entities without a name).
 *
 * Keys compare case-insensitively; values too unless `flags` holds
 * BSPKIT_SELECT_CASE_SENSITIVE: Source finds entity classes by name and
 * matches targetnames without regard to case, and a selector should find
 * what the engine would.
 * Errors: BSPKIT_ERR_ARGUMENT with a message naming the problem.
 */
BSPKIT_API bspkit_result bspkit_selector_parse(const char *text, unsigned flags, bspkit_selector **out, bspkit_error *err);

/** Release the selector. NULL is allowed. */
BSPKIT_API void bspkit_selector_free(bspkit_selector *sel);

/** True when the pairs satisfy every condition. */
BSPKIT_API bool bspkit_selector_match_pairs(const bspkit_selector *sel, const bspkit_keyvalue *pairs, size_t count);

/** True when entity `entity` of the list satisfies every condition (false when out of range). */
BSPKIT_API bool bspkit_selector_match(const bspkit_selector *sel, const bspkit_entlist *list, size_t entity);

/* ------------------------------------------------------------------------ */
/* JSON                                                                      */
/* ------------------------------------------------------------------------ */

/**
 * True when `text` holds JSON (it starts with '[', or with '{' and a quoted
 * key followed by ':'), false for Valve entity text. A UTF-8 byte order mark
 * and leading blanks are skipped.
 */
BSPKIT_API bool bspkit_entities_text_is_json(const char *text, size_t size);

/**
 * A new list from JSON: an array of objects (or one object), one per
 * entity, whose values are strings, integers or arrays of those (one pair
 * per element, so a key can repeat); keys keep their order. Malformed JSON
 * fails with BSPKIT_ERR_ENTITIES naming the line and column (and
 * err->lump_offset the byte); a NUL inside a value, another value type or
 * an entity that is not an object likewise, naming the entity and key.
 */
BSPKIT_API bspkit_result bspkit_entlist_from_json(const char *text, size_t size, bspkit_entlist **out,
                                                  bspkit_error *err);

/**
 * The list as JSON text (NUL-terminated, indented by two spaces, no final
 * newline): an array with one object per entity; a key that repeats holds
 * an array of its values at the place of its first occurrence. Bytes above
 * 0x7f in a string that is not valid UTF-8 are written as '?', and *lossy
 * (when not NULL) counts those strings. Free *out with bspkit_free().
 */
BSPKIT_API bspkit_result bspkit_entlist_to_json(const bspkit_entlist *list, char **out, size_t *size, size_t *lossy,
                                                bspkit_error *err);

/** Match one glob pattern (as in selectors) against `text`. */
BSPKIT_API bool bspkit_glob_match(const char *pattern, const char *text, bool case_sensitive);

/* ------------------------------------------------------------------------ */
/* Stripper:Source configs                                                   */
/* ------------------------------------------------------------------------ */

/*
 * The config format of the Stripper:Source server plugin. Sections are
 * introduced by a keyword and hold one or more blocks; a keyword stays in
 * force until the next one, so "filter:" may be followed by several blocks,
 * each applied on its own:
 *
 *   filter:                  (alias remove:) each block removes every entity
 *   { "classname" "light" }  matching all of its pairs
 *   add:                     each block appends one entity
 *   { "classname" "info_target" "targetname" "t1" }
 *   modify:                  each block changes the entities matching match:
 *   {
 *       match:   { "classname" "/^func_door/" }
 *       delete:  { "OnOpen" "/^relay_/" }   remove pairs matching key and value
 *       replace: { "speed" "200" }           new value for existing keys only
 *       insert:  { "OnClose" "x,Trigger,,0,-1" }  append pairs
 *   }
 *
 * Lexical rules: blanks and line breaks separate tokens; ';', '#' and '//'
 * outside quotes start a comment that runs to the end of the line. Keys and
 * values are double-quoted strings on one line (no escapes); the empty
 * string is allowed. Keywords are compared case-insensitively. Blocks before
 * the first keyword are filter blocks, as in the plugin.
 *
 * Matching (filter, match:, delete:): a pair "K" "V" is satisfied by an
 * entity pair whose key equals K and whose value equals V, both compared
 * ASCII case-insensitively, as the plugin does. A value written /RE/ (at
 * least two bytes, slash first and last) is a regular expression searched
 * for anywhere in the value (unanchored; use ^ and $), case-insensitively.
 * In add:, replace: and insert: values are literal. An entity matches a
 * block when every pair of the block is satisfied by at least one of the
 * entity's pairs; with duplicate keys any occurrence may satisfy it.
 *
 * Regular expressions are PCRE2 ones, as in the plugin (which uses PCRE):
 * searched case-insensitively, with '.' also matching a newline; inline
 * options such as (?-i) apply. Each match may take a bounded amount of work
 * (1,000,000 backtracking steps, depth 10,000, 20 MB): a value that needs
 * more makes bspkit_stripper_apply() fail with BSPKIT_ERR_LIMIT naming the
 * pattern's line and the key, rather than stall.
 *
 * Order: blocks are applied in file order, each to the result of the ones
 * before it (an entity added by an earlier block can be filtered by a later
 * one). Within a modify block, every entity is first matched, then delete:,
 * replace: and insert: are applied in that order. replace: changes every
 * occurrence of a key present in the entity and never adds a key; when it
 * names a key twice the first value wins. A modify block may hold each of
 * its four parts at most once, in any order.
 *
 * Differences from the plugin, all of which make mistakes visible instead of
 * silently changing the map: an empty filter block (which would remove every
 * entity), a modify block without match: (which would modify every entity),
 * an add block without a "classname" pair, a pair outside a block, an
 * unknown keyword, a stray brace or an invalid regular expression are parse
 * errors. The plugin counts an entity as matching when as many of its pairs
 * match as the block has pairs, so two "OnTrigger" outputs could stand in
 * for a missing classname; here every pair of the block must be satisfied.
 * The plugin skips lines with an empty key or value and turns a value
 * written /x/ in add:, replace: or insert: into "/x"; here empty strings
 * are pairs like any other and such values are kept as written.
 */

typedef struct bspkit_stripper bspkit_stripper;

/**
 * Parse a config (`size` bytes; a NUL ends it early). Errors are
 * BSPKIT_ERR_ARGUMENT with "line N: ..." in the message and the byte offset
 * in lump_offset.
 */
BSPKIT_API bspkit_result bspkit_stripper_parse(const char *text, size_t size, bspkit_stripper **out, bspkit_error *err);

/** Release the config. NULL is allowed. */
BSPKIT_API void bspkit_stripper_free(bspkit_stripper *cfg);

/** Number of blocks (filter, add and modify) in the config. */
BSPKIT_API size_t bspkit_stripper_block_count(const bspkit_stripper *cfg);

/** What one bspkit_stripper_apply() call did. */
typedef struct bspkit_stripper_stats {
    size_t removed;  /**< entities removed by filter blocks */
    size_t added;    /**< entities appended by add blocks */
    size_t modified; /**< entities changed by modify blocks, counted once per block */
} bspkit_stripper_stats;

/**
 * Apply every block to `list` in file order. `stats` may be NULL. Fails only
 * when memory runs out, leaving the list with the blocks before the failing
 * one applied.
 */
BSPKIT_API bspkit_result bspkit_stripper_apply(const bspkit_stripper *cfg, bspkit_entlist *list, bspkit_stripper_stats *stats,
                                    bspkit_error *err);

#ifdef __cplusplus
}
#endif

#endif /* BSPKIT_ENTITIES_EDIT_H */
