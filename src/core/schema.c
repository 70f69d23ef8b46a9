/* The out-of-line parts of record schemas (core/schema.h): encoder failures
 * and the int16 bound rounding. */
#include "core/schema.h"

#include "core/map.h"

#include <stdio.h>
#include <string.h>

bspkit_result bk_field_fail(const bk_field_ctx *c, const char *field, int index, long long value,
                            const char *range)
{
    char name[64];
    if (index >= 0)
        snprintf(name, sizeof name, "%s[%d]", field, index);
    else
        snprintf(name, sizeof name, "%s", field);
    return bk_fail(c->err, BSPKIT_ERR_ARGUMENT, c->lump, -1, -1,
                   "lump %d: %s %zu: %s = %lld does not fit the file's %s field", c->lump, c->record_name,
                   c->record, name, value, range);
}

bspkit_result bk_bound_fail(const bk_field_ctx *c, const char *field, int index, double value, int bits)
{
    return bk_fail(c->err, BSPKIT_ERR_ARGUMENT, c->lump, -1, -1,
                   "lump %d: %s %zu: %s[%d] = %g does not fit the file's signed %d-bit bound", c->lump,
                   c->record_name, c->record, field, index, value, bits);
}

/* Written without libm: the range check comes first, so the int conversion
 * is defined. */
bool bk_bound_to_i32(float f, bool up, int32_t *out)
{
    /* 2^31 is exact in float; every float below it converts without overflow. */
    if (!(f >= -2147483648.0f && f < 2147483648.0f))
        return false;
    int64_t i = (int64_t)f;
    if (up && (float)i < f)
        i++;
    if (!up && (float)i > f)
        i--;
    if (i < INT32_MIN || i > INT32_MAX)
        return false;
    *out = (int32_t)i;
    return true;
}

bool bk_bound_to_i16(float f, bool up, int16_t *out)
{
    int32_t i;
    if (!bk_bound_to_i32(f, up, &i) || i < INT16_MIN || i > INT16_MAX)
        return false;
    *out = (int16_t)i;
    return true;
}

/* ---- shuffle plans (core/schema_plan.h) ---- */

void bk_plan_marks_start(bk_plan_marks *mk, size_t native_size)
{
    memset(mk, 0, sizeof *mk);
    for (size_t i = 0; i < BK_PLAN_BYTES; i++)
        mk->from[i] = BK_FROM_TEMPLATE;
    mk->size = native_size;
    mk->bad = native_size < 16 || native_size > BK_PLAN_BYTES;
}

/* Marks byte `at` as coming from `from`. A byte written after the pieces
 * by an earlier field would be written in the other order, and part of a
 * float lane would not be its converted integer: no plan. */
static void mark(bk_plan_marks *mk, size_t at, int from)
{
    if (at >= mk->size || at >= BK_PLAN_BYTES || mk->fixed[at] || mk->floats[at / 4]) {
        mk->bad = true;
        return;
    }
    mk->from[at] = (int16_t)from;
}

void bk_plan_ints(bk_plan_marks *mk, size_t dst, size_t dst_w, size_t count, size_t src, size_t src_w, bool sign,
                  bool be, bool to_float)
{
    dst += mk->dst_base;
    src += mk->src_base;
    if (dst_w < src_w || src + count * src_w > INT16_MAX || (to_float && (dst_w != 4 || dst % 4))) {
        mk->bad = true;
        return;
    }
    for (size_t e = 0; e < count; e++) {
        size_t d = dst + e * dst_w, s = src + e * src_w;
        /* the file byte holding the sign: the first of a big-endian value */
        int top = (int)(be ? s : s + src_w - 1);
        for (size_t b = 0; b < dst_w; b++) {
            int from = b < src_w ? (int)(be ? s + src_w - 1 - b : s + b) : sign ? BK_FROM_SIGN - top : BK_FROM_ZERO;
            mark(mk, d + b, from);
        }
        if (to_float && !mk->bad)
            mk->floats[d / 4] = true;
    }
}

void bk_plan_template(bk_plan_marks *mk, size_t dst, size_t len)
{
    dst += mk->dst_base;
    for (size_t b = 0; b < len; b++)
        mark(mk, dst + b, BK_FROM_TEMPLATE);
}

void bk_plan_zero(bk_plan_marks *mk, size_t dst, size_t len)
{
    dst += mk->dst_base;
    for (size_t b = 0; b < len; b++)
        mark(mk, dst + b, BK_FROM_ZERO);
}

void bk_plan_fixed(bk_plan_marks *mk, size_t dst, size_t len)
{
    dst += mk->dst_base;
    for (size_t b = 0; b < len; b++) {
        if (dst + b >= mk->size || dst + b >= BK_PLAN_BYTES || mk->floats[(dst + b) / 4]) {
            mk->bad = true;
            return;
        }
        mk->fixed[dst + b] = true;
        mk->from[dst + b] = BK_FROM_TEMPLATE;
    }
}

bool bk_plan_build(bk_plan *p, const bk_plan_marks *mk, const uint8_t *tmpl, size_t record_size)
{
    if (mk->bad)
        return false;
    memset(p, 0, sizeof *p);
    size_t size = mk->size;
    p->pieces = bk_plan_halves(size);
    for (unsigned k = 0; k < p->pieces; k++) {
        size_t at = bk_plan_half_at(size, k);
        /* The file bytes the piece reads: one 16-byte load must hold them. */
        int lo = INT16_MAX, hi = -1;
        for (size_t j = 0; j < 16; j++) {
            int f = mk->from[at + j], s = f >= 0 ? f : f <= BK_FROM_SIGN ? BK_FROM_SIGN - f : -1;
            if (s >= 0) {
                lo = s < lo ? s : lo;
                hi = s > hi ? s : hi;
            }
        }
        size_t window = hi < 0 ? 0 : (size_t)lo;
        /* Loads kept inside the record where it is long enough. */
        if (record_size >= 16 && window > record_size - 16)
            window = record_size - 16;
        if (hi >= 0 && (size_t)hi >= window + 16)
            return false;
        bool lanes = false;
        for (size_t j = 0; j < 16; j++)
            lanes = lanes || mk->floats[(at + j) / 4];
        if (lanes && at % 4)
            return false; /* float lanes across the piece's lanes */
        p->window[k] = (uint16_t)window;
        p->reach = window + 16 > p->reach ? window + 16 : p->reach;
        for (size_t j = 0; j < 16; j++) {
            int f = mk->from[at + j];
            bool sign = f <= BK_FROM_SIGN;
            int s = f >= 0 ? f : sign ? BK_FROM_SIGN - f : -1;
            p->shuffle[k][j] = s >= 0 ? (uint8_t)(s - (int)window) : 0x80;
            p->constant[k][j] = f == BK_FROM_TEMPLATE ? tmpl[at + j] : 0;
            p->sign_bytes[k][j] = sign ? 0xFF : 0;
            p->float_lanes[k][j] = mk->floats[(at + j) / 4] ? 0xFF : 0;
            p->sign = p->sign || sign;
            p->floats = p->floats || mk->floats[(at + j) / 4];
        }
    }
    return true;
}

const bk_plan *bk_plan_get(bk_plan_cache *cache, bool be, bool (*make)(bk_plan *p, bool be))
{
    atomic_int *state = &cache->state[be];
    int s = atomic_load_explicit(state, memory_order_acquire);
    if (s == 0) {
        int expected = 0;
        if (!atomic_compare_exchange_strong_explicit(state, &expected, 1, memory_order_acq_rel,
                                                     memory_order_acquire))
            return NULL; /* another thread builds it */
        s = make(&cache->plan[be], be) ? 2 : 3;
        atomic_store_explicit(state, s, memory_order_release);
    }
    return s == 2 ? &cache->plan[be] : NULL;
}
