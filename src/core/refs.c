/* The cross-reference table (core/refs.h). */
#include "core/refs.h"

#include "bspkit/bspkit.h"
#include <stddef.h>

#include <string.h>

/* Whether a member's C type is signed: decided from its declaration, so the
 * table does not state each member's type a second time. */
#define SIGNED_VALUE(x) _Generic((x), int8_t: true, int16_t: true, int32_t: true, int64_t: true, default: false)
#define MEMBER(T, m) (((T *)0)->m)

/* One table row from a list entry (core/refs.h). */
#define ROW_INDEX(from, T, m, cm, n, target, flags, name, cname)                                       \
    {from, BK_REF_INDEX, offsetof(T, m), 0, sizeof MEMBER(T, m), SIGNED_VALUE(MEMBER(T, m)), n, target,   \
     flags, name, NULL},
#define ROW_ARRAY(from, T, m, cm, n, target, flags, name, cname)                                       \
    {from, BK_REF_INDEX, 0, 0, sizeof(T), SIGNED_VALUE((T)0), 1, target, flags, name, NULL},
#define ROW_SPAN(from, T, m, cm, n, target, flags, name, cname)                                        \
    {from, BK_REF_SPAN, offsetof(T, m), offsetof(T, cm), sizeof MEMBER(T, m), SIGNED_VALUE(MEMBER(T, m)), 1, \
     target, flags, name, cname},
#define ROW(from, SHAPE, ...) ROW_##SHAPE(from, __VA_ARGS__)
#define ROWS_OF(KIND) BK_REFS_##KIND(ROW)

static const bk_ref table[] = {BK_REF_KINDS(ROWS_OF)};

const bk_ref *bk_refs_all(size_t *n)
{
    *n = sizeof table / sizeof table[0];
    return table;
}

/* Each kind's row count, in table order: the kinds' rows follow one another
 * as BK_REF_KINDS lists them. */
#define COUNT_ROW(from, SHAPE, ...) +1
#define KIND_ROWS(KIND) {BK_REC_##KIND, 0 BK_REFS_##KIND(COUNT_ROW)},
static const struct kind_rows {
    int from;
    size_t count;
} kinds[] = {BK_REF_KINDS(KIND_ROWS)};

const bk_ref *bk_refs_of(int from, size_t *n)
{
    /* Validation asks for every kind of every map: the kinds are walked,
     * not the rows. */
    size_t first = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        if (kinds[k].from == from) {
            *n = kinds[k].count;
            return kinds[k].count ? &table[first] : NULL;
        }
        first += kinds[k].count;
    }
    *n = 0;
    return NULL;
}

static int64_t load(const void *record, size_t offset, uint8_t width, bool is_signed)
{
    const uint8_t *p = (const uint8_t *)record + offset;
    switch (width) {
    case 1:
        return is_signed ? (int64_t) * (const int8_t *)p : (int64_t)*p;
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return is_signed ? (int64_t)(int16_t)v : (int64_t)v;
    }
    default: {
        uint32_t v;
        memcpy(&v, p, 4);
        return is_signed ? (int64_t)(int32_t)v : (int64_t)v;
    }
    }
}

int64_t bk_ref_value(const bk_ref *r, const void *record, int element)
{
    return load(record, r->offset + (size_t)element * r->width, r->width, r->is_signed);
}

int64_t bk_ref_count(const bk_ref *r, const void *record)
{
    return load(record, r->count_offset, r->width, r->is_signed);
}
