/* Cross-references between the decoded record arrays: every index field of
 * a native record, declared once, with the array it points into.
 *
 * The record layouts (core/schema.h) say how a record is stored; each of
 * them decodes into the same native struct, whatever the family or version,
 * so which array a field indexes is a property of the native record and is
 * written here once for all its layouts. Validation walks this table; the
 * checks it cannot express (signed child links, byte offsets into lighting
 * or visibility, family-dependent targets) stay hand-written there. */
#ifndef BSPKIT_CORE_REFS_H
#define BSPKIT_CORE_REFS_H

#include "core/record_kinds.h"

#include <stdbool.h>

#include <stddef.h>
#include <stdint.h>

/* What a reference points into: a decoded record array (bk_rec), or a lump
 * whose records only the directory counts. */
enum {
    BK_REF_TO_DISPINFO = BK_REC_COUNT,
    BK_REF_TO_CLIPPORTALVERTS,
    BK_REF_TARGET_COUNT
};

typedef enum bk_ref_kind {
    BK_REF_INDEX, /* value < count of the target, for each of `elements` values */
    BK_REF_SPAN,  /* first + count <= count of the target; negative values are refused first */
} bk_ref_kind;

/* Values that mean "no reference" rather than an index. */
enum { BK_REF_NONE_MINUS1 = 1, BK_REF_NONE_ZERO = 2, BK_REF_SIGN_IS_DIRECTION = 4 };
/* Record 0 is a placeholder no other record reaches, whatever it holds. */
enum { BK_REF_RECORD0_UNUSED = 8 };

typedef struct bk_ref {
    int from;          /* bk_rec of the records holding the field */
    bk_ref_kind kind;
    size_t offset;     /* of the member in the native record */
    size_t count_offset; /* SPAN: of the member holding the count */
    uint8_t width;     /* bytes of the member: 4 */
    bool is_signed;
    uint8_t elements;  /* INDEX: values in an array member (1 for a scalar) */
    int target;        /* bk_rec or BK_REF_TO_* */
    unsigned flags;    /* BK_REF_NONE_*; SIGN_IS_DIRECTION: the magnitude is the index */
    const char *name, *count_name; /* member names in messages */
} bk_ref;

/* The whole table, each kind's references together. */
const bk_ref *bk_refs_all(size_t *n);
/* The references of records of kind `from` (count in *n), in the order they are checked. */
const bk_ref *bk_refs_of(int from, size_t *n);

/* A reference's value number `element` (or, for a span, its first value) and a span's count. */
int64_t bk_ref_value(const bk_ref *r, const void *record, int element);
int64_t bk_ref_count(const bk_ref *r, const void *record);

#endif
