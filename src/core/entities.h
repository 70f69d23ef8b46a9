/* Entity lists built from more than one text: the entity lump followed by
 * entities kept in files beside the map (Titanfall's .ent partitions).
 * Internal to the library. */
#ifndef BSPKIT_CORE_ENTITIES_H
#define BSPKIT_CORE_ENTITIES_H

#include "bspkit/bspkit.h"

/* bspkit_entities_parse_ex for text that starts `base_offset` bytes and
 * `first_line` - 1 lines into the file `source` (NULL: the entity lump):
 * offsets, lines and errors are reported in that file's terms, and each
 * entity and warning carries `source` (copied). */
bspkit_result bk_entities_parse_at(const char *text, size_t size, unsigned flags, const char *source,
                                   uint64_t base_offset, uint64_t first_line, bspkit_entities **out,
                                   bspkit_error *err);

/* Moves every entity, pair and warning of `src` to the end of `dst`; `src`
 * is freed either way. The strings stay valid for as long as `dst`. */
bspkit_result bk_entities_append(bspkit_entities *dst, bspkit_entities *src, bspkit_error *err);

/* Adds a warning about `source` (a string kept by the list, or NULL);
 * false when it cannot be stored (out of memory). */
bool bk_entities_warn(bspkit_entities *ents, const char *source, uint64_t line, uint64_t offset,
                      const char *what);

/* A copy of `s` owned by the list, or NULL when out of memory. */
const char *bk_entities_keep_string(bspkit_entities *ents, const char *s);

/* Lets the parser read common `"key" "value"` lines in one step (the
 * default) or not; the results are the same. For tests. */
void bk_entities_allow_fast_pairs(bool allow);

/* What validation reads of the entity lump, without making the list. */
typedef bool (*bk_model_fits_fn)(const char *value, size_t length, void *arg);
typedef struct bk_model_ref {
    size_t entity;       /* its index in the list bspkit_entities_parse would make */
    uint32_t line;       /* of the entity's '{' */
    uint64_t offset;     /* of that '{' in the text */
    const char *value;   /* the model value, in the text (not NUL-terminated) */
    size_t length;
} bk_model_ref;

/* For entity text of the plain shape (bspkit_entities_parse then reads it
 * without a warning): *count its entities, and for each entity whose first
 * "model" key has a value `fits` refuses, an entry in *bad (malloc'd,
 * *bad_count of them; free it), in entity order. False, with nothing
 * allocated, for text of another shape (or when out of memory): the
 * caller then parses it. `text` is read up to its first NUL, as the
 * parser reads it. Never true when fast pairs are refused. */
bool bk_entities_scan_models(const char *text, size_t size, bk_model_fits_fn fits, void *arg, size_t *count,
                             bk_model_ref **bad, size_t *bad_count);

#endif
