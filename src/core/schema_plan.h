/* Shuffle plans: a record schema's decoder as byte shuffles.
 *
 * Most fields copy their file bytes into the native record, swapped for
 * big-endian files, widened with zeros or sign bytes, or turned from
 * integers into floats (bounds); the rest of a native record is constants
 * (padding, defaults). Decoded a field at a time, a 72-byte face takes a
 * dozen narrow stores, and those stores, not the reads, bound the decoder.
 * A plan writes each 32-byte piece of the native record with one store:
 * a shuffle of two 16-byte windows of the file record, sign bytes and float
 * conversions where its lanes need them, and the piece's constant bytes.
 * Records under 32 bytes are planned a few at a time, as one. Fields no
 * shuffle expresses (flags decoded as 0/1, masks, split bit fields,
 * neighbour records) are decoded after the pieces, one by one, as the
 * field-by-field decoder does.
 *
 * A plan is built from the schema's field list (core/schema.h,
 * BK_GEN_PLAN) the first time a schema decodes enough records, once per
 * byte order, and kept. It is used on AVX2 hosts (pshufb, blendv); its
 * results are the field-by-field decoder's byte for byte (tests/unit/
 * formats/test_schema.c compares both over every schema). */
#ifndef BSPKIT_CORE_SCHEMA_PLAN_H
#define BSPKIT_CORE_SCHEMA_PLAN_H

#include "core/cpu.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Native records up to 256 bytes, at least 16. */
enum { BK_PLAN_BYTES = 256, BK_PLAN_PIECES = BK_PLAN_BYTES / 16 };

/* A record is written in 32-byte pieces (16-byte ones below 32 bytes), the
 * last ending with the record, overlapping the one before when the size
 * is not a multiple. Each 32-byte piece is two halves, each shuffled from
 * its own 16 file bytes. The halves, and where each starts: */
static inline unsigned bk_plan_halves(size_t size)
{
    return size >= 32 ? 2 * (unsigned)((size + 31) / 32) : (unsigned)((size + 15) / 16);
}

static inline size_t bk_plan_half_at(size_t size, unsigned half)
{
    if (size < 32)
        return half + 1 < bk_plan_halves(size) || size % 16 == 0 ? 16 * (size_t)half : size - 16;
    unsigned piece = half / 2, pieces = (unsigned)((size + 31) / 32);
    size_t at = piece + 1 < pieces || size % 32 == 0 ? 32 * (size_t)piece : size - 32;
    return at + 16 * (half % 2);
}

/* Where each native byte's value comes from, while a plan is built: a
 * file byte (>= 0), the template record (the defaults, zero elsewhere),
 * zero, or the sign of a file byte (0xFF when its top bit is set). */
enum { BK_FROM_TEMPLATE = -1, BK_FROM_ZERO = -2, BK_FROM_SIGN = -3 /* BK_FROM_SIGN - s: file byte s's sign */ };

typedef struct bk_plan_marks {
    int16_t from[BK_PLAN_BYTES];
    bool fixed[BK_PLAN_BYTES];      /* written by a field decoded after the pieces */
    bool floats[BK_PLAN_BYTES / 4]; /* the 4-byte lane is an integer converted to float */
    size_t size;                    /* the native bytes planned */
    /* Where the record being marked starts: records under 32 bytes are
     * planned in groups, each a few records long. */
    size_t dst_base, src_base;
    bool bad; /* some field cannot be planned: no plan */
} bk_plan_marks;

typedef struct bk_plan {
    unsigned pieces; /* halves (bk_plan_halves) */
    bool sign, floats; /* some piece has sign bytes, float lanes */
    size_t reach;      /* file bytes the pieces' loads read from a record's start */
    uint16_t window[BK_PLAN_PIECES]; /* each half's 16 file bytes, from the record's start */
    _Alignas(16) uint8_t shuffle[BK_PLAN_PIECES][16];
    _Alignas(16) uint8_t constant[BK_PLAN_PIECES][16];
    _Alignas(16) uint8_t sign_bytes[BK_PLAN_PIECES][16];
    _Alignas(16) uint8_t float_lanes[BK_PLAN_PIECES][16];
} bk_plan;

/* A schema's plans, one per byte order, built once by the first thread
 * to need them (the others decode field by field meanwhile). */
typedef struct bk_plan_cache {
    atomic_int state[2]; /* 0 not built, 1 being built, 2 ready, 3 none */
    bk_plan plan[2];
} bk_plan_cache;

void bk_plan_marks_start(bk_plan_marks *mk, size_t native_size);
/* `count` integers of `src_w` file bytes at file offset `src` into
 * `dst_w`-byte native integers at `dst`: widened with zeros, or sign
 * bytes when `sign`; converted to float when `to_float` (dst_w 4). */
void bk_plan_ints(bk_plan_marks *mk, size_t dst, size_t dst_w, size_t count, size_t src, size_t src_w, bool sign,
                  bool be, bool to_float);
/* Bytes [dst, dst + len) take the template's value, or zero. */
void bk_plan_template(bk_plan_marks *mk, size_t dst, size_t len);
void bk_plan_zero(bk_plan_marks *mk, size_t dst, size_t len);
/* Bytes [dst, dst + len) are written after the pieces. */
void bk_plan_fixed(bk_plan_marks *mk, size_t dst, size_t len);
/* The plan from the marks, `tmpl` the template record; false when there
 * is none (a field it cannot express, a piece whose file bytes span more
 * than 16). */
bool bk_plan_build(bk_plan *p, const bk_plan_marks *mk, const uint8_t *tmpl, size_t record_size);

/* The schema's plan for byte order `be`, built by `make` if no thread has
 * yet; NULL when there is none or it is being built. */
const bk_plan *bk_plan_get(bk_plan_cache *cache, bool be, bool (*make)(bk_plan *p, bool be));

/* How many of `count` records of `record_size` bytes the pieces may
 * decode: whole groups of `group` (BK_PLAN_GROUP; it and the record size
 * are constants where a schema calls this, so nothing here divides) whose
 * loads stay inside the records' bytes. */
static inline __attribute__((always_inline)) size_t bk_plan_records(const bk_plan *p, size_t count,
                                                                    size_t record_size, size_t group)
{
    size_t total = count * record_size, groups = count / group;
    size_t inside = total < p->reach ? 0 : (total - p->reach) / (record_size * group) + 1;
    return (inside < groups ? inside : groups) * group;
}

/* Records of type T planned together: one, or as many as fit 64 bytes. */
#define BK_PLAN_GROUP(T) (sizeof(T) >= 32 ? 1 : 64 / sizeof(T))

/* Records at least this many take the plan. */
enum { BK_PLAN_MIN_RECORDS = 16 };

#if BK_CPU_AVX2
#include <immintrin.h>

/* The piece loops unrolled whole: each piece's vectors stay in registers. */
#if defined(__clang__)
#define BK_PLAN_UNROLL _Pragma("clang loop unroll(full)")
#else
#define BK_PLAN_UNROLL _Pragma("GCC unroll 16")
#endif

/* A piece's shuffles, sign bytes, float lanes and constants as vectors:
 * locals the record loop keeps in registers (the plan's own arrays would
 * be read again after every store, which may alias them). */
typedef struct bk_plan_vectors {
    __m256i shuffle, constant, sign, floats;
    size_t window[2];
    bool full; /* the piece has sign bytes or float lanes */
} bk_plan_vectors;

/* One record's pieces: `size`, the native record's, is a constant at each
 * call site (the loop unrolls, each store at a constant offset), and so is
 * `full`, whether the sign and float steps are there. */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) void
bk_plan_record(const bk_plan_vectors *v, const uint8_t *src, uint8_t *out, size_t size, bool full)
{
    const unsigned pieces = size >= 32 ? bk_plan_halves(size) / 2 : bk_plan_halves(size);
    BK_PLAN_UNROLL
    for (unsigned k = 0; k < pieces; k++) {
        __m256i x;
        if (size >= 32)
            x = _mm256_inserti128_si256(
                _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(src + v[k].window[0]))),
                _mm_loadu_si128((const __m128i *)(const void *)(src + v[k].window[1])), 1);
        else
            x = _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(src + v[k].window[0])));
        x = _mm256_shuffle_epi8(x, v[k].shuffle);
        if (full && v[k].full) {
            const __m256i negative = _mm256_cmpgt_epi8(_mm256_setzero_si256(), x);
            x = _mm256_blendv_epi8(x, negative, v[k].sign);
            x = _mm256_castps_si256(
                _mm256_blendv_ps(_mm256_castsi256_ps(x), _mm256_cvtepi32_ps(x), _mm256_castsi256_ps(v[k].floats)));
        }
        x = _mm256_or_si256(x, v[k].constant);
        if (size >= 32)
            _mm256_storeu_si256((__m256i *)(void *)(out + bk_plan_half_at(size, 2 * k)), x);
        else
            _mm_storeu_si128((__m128i *)(void *)(out + bk_plan_half_at(size, k)), _mm256_castsi256_si128(x));
    }
}

/* The plan's pieces as bk_plan_record takes them. */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) void
bk_plan_load(const bk_plan *p, bk_plan_vectors *v, size_t size)
{
    const unsigned per = size >= 32 ? 2 : 1, pieces = bk_plan_halves(size) / per;
    BK_PLAN_UNROLL
    for (unsigned k = 0; k < pieces; k++) {
        unsigned lo = per * k, hi = per * k + per - 1;
#define BK_PLAN_PAIR(a)                                                                                \
    _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_load_si128((const __m128i *)(const void *)p->a[lo])), \
                            _mm_load_si128((const __m128i *)(const void *)p->a[hi]), 1)
        v[k].shuffle = BK_PLAN_PAIR(shuffle);
        v[k].constant = BK_PLAN_PAIR(constant);
        v[k].sign = BK_PLAN_PAIR(sign_bytes);
        v[k].floats = BK_PLAN_PAIR(float_lanes);
#undef BK_PLAN_PAIR
        v[k].window[0] = p->window[lo];
        v[k].window[1] = p->window[hi];
        v[k].full = !_mm256_testz_si256(_mm256_or_si256(v[k].sign, v[k].floats), _mm256_set1_epi8(-1));
    }
}
#endif

#endif
