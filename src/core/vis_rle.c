/* PVS/PAS run-length decoding, identical in Quake, GoldSrc and Source: a
 * nonzero byte stands for itself, a zero byte is followed by a count of zero
 * bytes (a count of 0 writes nothing, as the engines' loops do).
 *
 * Compilers pad the last run of a row, so a run that reaches past the row end
 * is clamped rather than rejected; the engines clamp the same way in effect.
 * Only a source that ends before the row is full is an error. */
#include "bspkit/bspkit.h"
#include "core/cpu.h"
#include "core/vis_rle.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static bspkit_result rle_row(const uint8_t *src, size_t src_size, uint8_t *dst, size_t row_bytes, size_t *consumed)
{
    size_t in = 0, out = 0;
    while (out < row_bytes && in < src_size) {
        uint8_t b = src[in];
        if (b) {
            /* A literal span: copied bytewise while spans are short (most
             * rows alternate literals and runs every few bytes); a long one
             * is scanned and copied in bulk. */
            size_t avail = src_size - in, room = row_bytes - out;
            size_t limit = avail < room ? avail : room;
            if (limit >= 32 && src[in + 1] && src[in + 2] && src[in + 3]) {
                const uint8_t *zero = memchr(src + in, 0, limit);
                size_t lit = zero ? (size_t)(zero - (src + in)) : limit;
                memcpy(dst + out, src + in, lit);
                in += lit;
                out += lit;
            } else {
                dst[out++] = b;
                in++;
            }
            continue;
        }
        in++; /* the zero byte */
        if (in >= src_size)
            break;
        size_t run = src[in++];
        if (run > row_bytes - out)
            run = row_bytes - out;
        memset(dst + out, 0, run);
        out += run;
    }
    if (consumed)
        *consumed = in;
    if (out < row_bytes) {
        /* Leave no uninitialised bytes behind for callers that ignore the result. */
        memset(dst + out, 0, row_bytes - out);
        return BSPKIT_ERR_VISIBILITY;
    }
    return BSPKIT_OK;
}

bspkit_result bspkit_vis_decompress(const uint8_t *src, size_t src_size, uint8_t *dst, size_t row_bytes,
                                    size_t *consumed)
{
    if (consumed)
        *consumed = 0;
    if ((!src && src_size) || (!dst && row_bytes))
        return BSPKIT_ERR_ARGUMENT;
    return rle_row(src, src_size, dst, row_bytes, consumed);
}

#if defined(__SSE2__)
/* What 16 code bytes v add to a row (their zero mask z, the previous 16's
 * zp), given no zero follows a zero: the byte after each zero is a count,
 * the zeros add nothing, every other byte adds 1.
 * The two 8-byte sums are in the low 16 bits of each half. */
static inline __m128i block_adds(__m128i v, __m128i z, __m128i zp)
{
    const __m128i after_zero = _mm_or_si128(_mm_slli_si128(z, 1), _mm_srli_si128(zp, 15));
    const __m128i literal = _mm_andnot_si128(_mm_or_si128(z, after_zero), _mm_set1_epi8(1));
    return _mm_sad_epu8(_mm_or_si128(_mm_and_si128(v, after_zero), literal), _mm_setzero_si128());
}
#endif

bspkit_result bk_vis_walk(const uint8_t *src, size_t src_size, size_t row_bytes, size_t *consumed)
{
    if (consumed)
        *consumed = 0;
    if (!src && src_size)
        return BSPKIT_ERR_ARGUMENT;
    /* Counting only: one pass over the code, a literal adding one byte and a
     * run its count, without the calls a copy needs per span. */
    size_t in = 0, out = 0;
#if defined(__SSE2__)
    /* Sixty-four code bytes at a time while a whole block fits the source:
     * the block's zero bytes are found once, as a bit mask, and each run is
     * taken from the mask (its zero, then its count) without reloading.
     * The literals between runs count one each. A row that ends inside the
     * block stops exactly where the scalar loop below would. */
    const __m128i zero = _mm_setzero_si128();
    while (out < row_bytes && src_size - in >= 64) {
        const uint8_t *b = src + in;
        const __m128i v0 = _mm_loadu_si128((const __m128i *)(const void *)b),
                      v1 = _mm_loadu_si128((const __m128i *)(const void *)(b + 16)),
                      v2 = _mm_loadu_si128((const __m128i *)(const void *)(b + 32)),
                      v3 = _mm_loadu_si128((const __m128i *)(const void *)(b + 48));
        const __m128i z0 = _mm_cmpeq_epi8(v0, zero), z1 = _mm_cmpeq_epi8(v1, zero), z2 = _mm_cmpeq_epi8(v2, zero),
                      z3 = _mm_cmpeq_epi8(v3, zero);
        uint64_t m = bk_mask64(z0, z1, z2, z3);
        /* Where no zero follows a zero (a count of 0), each zero's count is
         * the byte after it and every other byte is a literal: per byte the
         * count, 1 or 0, summed per 8 bytes with psadbw. A zero in the last
         * byte adds nothing here; the next block starts with it, and takes
         * its count. */
        size_t pos = 0; /* the block's first byte not yet counted */
        if ((m & (m << 1)) == 0) {
            const __m128i r0 = block_adds(v0, z0, zero), r1 = block_adds(v1, z1, z0), r2 = block_adds(v2, z2, z1),
                          r3 = block_adds(v3, z3, z2);
            /* The eight sums (at most 2040 each) as 16-bit lanes, then their
             * running totals. */
            const __m128i sums = _mm_packs_epi32(_mm_packs_epi32(r0, r1), _mm_packs_epi32(r2, r3));
            __m128i run = _mm_add_epi16(sums, _mm_slli_si128(sums, 2));
            run = _mm_add_epi16(run, _mm_slli_si128(run, 4));
            run = _mm_add_epi16(run, _mm_slli_si128(run, 8));
            const size_t total = (size_t)_mm_extract_epi16(run, 7), need = row_bytes - out;
            if (total < need) { /* the row goes on past the block */
                out += total;
                in += 64 - (size_t)(m >> 63);
                continue;
            }
            /* The row ends in the first group of 8 bytes whose running total
             * reaches it (need <= total <= 16320): counted up to that group
             * at once, the bytes are walked from there. */
            const unsigned reach =
                (unsigned)_mm_movemask_epi8(_mm_cmpgt_epi16(run, _mm_set1_epi16((short)(need - 1))));
            const unsigned g = (unsigned)__builtin_ctz(reach) / 2;
            if (g > 0) {
                uint16_t upto[8];
                _mm_storeu_si128((__m128i *)(void *)upto, run);
                out += upto[g - 1];
                pos = 8 * (size_t)g;
                if ((m >> (pos - 1)) & 1) { /* the group starts with the count of the zero before it */
                    out += b[pos++];
                    if (out >= row_bytes) {
                        in += pos;
                        continue;
                    }
                }
                m &= ~((UINT64_C(1) << pos) - 1);
            }
        }
        for (;;) {
            size_t k = m ? (size_t)__builtin_ctzll(m) : 64; /* the next zero, or the block's end */
            size_t lit = k - pos;
            if (lit >= row_bytes - out) { /* the row ends among these literals */
                in += pos + (row_bytes - out);
                out = row_bytes;
                break;
            }
            out += lit;
            if (k >= 63) { /* a zero in the last byte: its count is in the next block, which starts with it */
                in += k;
                break;
            }
            out += b[k + 1];
            pos = k + 2;
            m &= ~(UINT64_C(3) << k); /* the zero and, if it is zero too, its count */
            if (out >= row_bytes) {
                in += pos;
                break;
            }
        }
    }
#endif
    while (out < row_bytes && in < src_size) {
        if (src[in++]) {
            out++;
        } else {
            if (in >= src_size)
                break;
            out += src[in++];
        }
    }
    if (consumed)
        *consumed = in;
    return out < row_bytes ? BSPKIT_ERR_VISIBILITY : BSPKIT_OK;
}

/* Zero bytes of src[0..n) (n <= 64) as bits. */
static inline uint64_t zero_bits(const uint8_t *src, size_t n)
{
    uint64_t m = 0;
#if defined(__SSE2__)
    if (n == 64) {
        const __m128i zero = _mm_setzero_si128();
        const __m128i v0 = _mm_loadu_si128((const __m128i *)(const void *)src),
                      v1 = _mm_loadu_si128((const __m128i *)(const void *)(src + 16)),
                      v2 = _mm_loadu_si128((const __m128i *)(const void *)(src + 32)),
                      v3 = _mm_loadu_si128((const __m128i *)(const void *)(src + 48));
        return bk_mask64(_mm_cmpeq_epi8(v0, zero), _mm_cmpeq_epi8(v1, zero), _mm_cmpeq_epi8(v2, zero),
                          _mm_cmpeq_epi8(v3, zero));
    }
#endif
    for (size_t k = 0; k < n; k++)
        m |= (uint64_t)(src[k] == 0) << k;
    return m;
}

bool bk_vis_marks_start_codes(const uint8_t *src, size_t size, size_t from, size_t last, const uint64_t *marks)
{
    if (from > last || last >= size)
        return false;
    /* Blocks of 64 bytes aligned to src, so each is one word of marks. */
    uint64_t carry = 0; /* the block's first byte is the count of a zero just before it */
    for (size_t block = from / 64; block <= last / 64; block++) {
        size_t base = block * 64, n = size - base < 64 ? size - base : 64;
        uint64_t m = zero_bits(src + base, n);
        if (block == from / 64)
            m &= ~UINT64_C(0) << (from % 64); /* what comes before `from` is not read */
        uint64_t counts = (m << 1) | carry;
        if (m & counts) {
            /* A zero where a count stands (a count of 0): the zeros are
             * taken one by one, each either a count or the start of a run. */
            counts = carry;
            carry = 0;
            for (uint64_t z = m; z; z &= z - 1) {
                unsigned k = (unsigned)__builtin_ctzll(z);
                if ((counts >> k) & 1)
                    continue;
                if (k == 63)
                    carry = 1;
                else
                    counts |= UINT64_C(1) << (k + 1);
            }
        } else {
            carry = m >> 63;
        }
        if (counts & marks[block])
            return false;
    }
    return true;
}
