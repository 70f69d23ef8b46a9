/* "%.*g" and "%lld" without printf (see fmt_num.h). */
#include "core/fmt_num.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* "00" to "99": two digits per division. */
static const char DIGIT_PAIRS[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                     "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                     "8081828384858687888990919293949596979899";

size_t bk_fmt_int(char out[BK_FMT_NUM_CAP], long long v)
{
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    /* Digits counted first, then written from the end in place. */
    size_t digits = 1;
    for (unsigned long long bound = 10; digits < 20 && u >= bound; bound *= 10)
        digits++;
    size_t n = digits + (v < 0);
    out[0] = '-';
    char *q = out + n;
    *q = '\0';
    while (u >= 100) {
        q -= 2;
        memcpy(q, DIGIT_PAIRS + 2 * (u % 100), 2);
        u /= 100;
    }
    if (u >= 10)
        memcpy(q - 2, DIGIT_PAIRS + 2 * u, 2);
    else
        q[-1] = (char)('0' + u);
    return n;
}

static size_t fmt_printf(char out[BK_FMT_NUM_CAP], double v, int precision)
{
    int n = snprintf(out, BK_FMT_NUM_CAP, "%.*g", precision, v);
    return n < 0 ? 0 : (size_t)n < BK_FMT_NUM_CAP ? (size_t)n : BK_FMT_NUM_CAP - 1;
}

#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 u128;

static const uint64_t POW10[20] = {1ull,
                                   10ull,
                                   100ull,
                                   1000ull,
                                   10000ull,
                                   100000ull,
                                   1000000ull,
                                   10000000ull,
                                   100000000ull,
                                   1000000000ull,
                                   10000000000ull,
                                   100000000000ull,
                                   1000000000000ull,
                                   10000000000000ull,
                                   100000000000000ull,
                                   1000000000000000ull,
                                   10000000000000000ull,
                                   100000000000000000ull,
                                   1000000000000000000ull,
                                   10000000000000000000ull};

/* m * 2^e * 10^k rounded to an integer, half to even; k in 0..21, the
 * product below 2^127 (the caller's ranges keep it there). */
static uint64_t scaled(uint64_t m, int e, int k)
{
    u128 num = (u128)m;
    if (k > 19) {
        num *= POW10[19];
        k -= 19;
    }
    num *= POW10[k];
    if (e >= 0)
        return (uint64_t)(num << e);
    int s = -e;
    if (s >= 127)
        return 0;
    u128 q = num >> s, rem = num - (q << s), half = (u128)1 << (s - 1);
    if (rem > half || (rem == half && (q & 1)))
        q++;
    return (uint64_t)q;
}

size_t bk_fmt_g(char out[BK_FMT_NUM_CAP], double v, int precision)
{
    if (v == 0) { /* "%g" of a zero: its sign and the digit */
        size_t n = 0;
        if (signbit(v))
            out[n++] = '-';
        out[n++] = '0';
        out[n] = '\0';
        return n;
    }
    if (precision < 1 || precision > 17 || !isfinite(v))
        return fmt_printf(out, v, precision < 1 ? 1 : precision > 17 ? 17 : precision);
    double a = fabs(v);
    /* Fixed notation needs 1e-4 <= |v| rounded < 10^precision; outside a
     * slightly wider band printf decides, so every edge is its answer. */
    if (!(a >= 9e-5 && a < 1e17))
        return fmt_printf(out, v, precision);
    /* a = m * 2^e with m the 53-bit significand: a is normal here, so its
     * bits hold both (frexp's fraction would be m / 2^53, its exponent e + 53). */
    uint64_t bits;
    memcpy(&bits, &a, sizeof bits);
    uint64_t m = (bits & ((1ull << 52) - 1)) | (1ull << 52);
    int bexp = (int)((bits >> 52) & 0x7FF) - 1022;
    int e = bexp - 53;
    /* Decimal exponent X of a: an estimate from the binary one (78913 / 2^18
     * is log10(2) to six digits), then corrected until the scaled value has
     * exactly `precision` digits. */
    int t = (bexp - 1) * 78913;
    int x = t >= 0 ? t >> 18 : -((-t + (1 << 18) - 1) >> 18); /* floor(t / 2^18) */
    uint64_t n = 0;
    for (int tries = 0; tries < 4; tries++) {
        int k = precision - 1 - x;
        if (k < 0 || k > 21)
            return fmt_printf(out, v, precision);
        n = scaled(m, e, k);
        if (n >= POW10[precision])
            x++;
        else if (n < POW10[precision - 1])
            x--;
        else
            break;
    }
    if (n < POW10[precision - 1] || n >= POW10[precision] || x < -4 || x >= precision)
        return fmt_printf(out, v, precision);

    /* n holds the digits; `decimals` of them follow the point. */
    int decimals = precision - 1 - x;
    char *p = out;
    if (v < 0)
        *p++ = '-';
    if (decimals == 0)
        return (size_t)(p - out) + bk_fmt_int(p, (long long)n);
    /* up to 20 decimals (17 digits, x down to -4); n < 10^17 is all fraction from 18 on */
    uint64_t ip = decimals < 18 ? n / POW10[decimals] : 0, fp = decimals < 18 ? n % POW10[decimals] : n;
    p += bk_fmt_int(p, (long long)ip);
    if (fp) {
        int digits = decimals;
        while (fp % 10 == 0) { /* %g drops trailing zeros */
            fp /= 10;
            digits--;
        }
        *p++ = '.';
        for (int i = digits - 1; i >= 0; i--) {
            p[i] = (char)('0' + fp % 10);
            fp /= 10;
        }
        p += digits;
    }
    *p = '\0';
    return (size_t)(p - out);
}
#else
size_t bk_fmt_g(char out[BK_FMT_NUM_CAP], double v, int precision)
{
    return fmt_printf(out, v, precision < 1 ? 1 : precision > 17 ? 17 : precision);
}
#endif
