/* Glob matching (core/glob.h): iterative, with the classic backtrack to the
 * last '*' only, so time is bounded by pattern length times text length. */
#include "core/glob.h"

#include "core/ascii.h"

#include <stddef.h>

static int path_byte(int c, unsigned flags)
{
    return (flags & BK_GLOB_PATH) && c == '\\' ? '/' : c;
}

static bool byte_equal(int p, int t, unsigned flags)
{
    p = path_byte(p, flags);
    t = path_byte(t, flags);
    if (flags & BK_GLOB_FOLD_CASE)
        return bk_ascii_lower(p) == bk_ascii_lower(t);
    return p == t;
}

static bool in_range(int c, int lo, int hi, unsigned flags)
{
    if (c >= lo && c <= hi)
        return true;
    if (!(flags & BK_GLOB_FOLD_CASE))
        return false;
    int l = bk_ascii_lower(c), u = bk_ascii_upper(c);
    return (l >= lo && l <= hi) || (u >= lo && u <= hi);
}

/* Matches text byte `c` against the set at p[0] == '['. Sets *len to the
 * pattern bytes used, or to 0 when the set has no closing ']' (the caller
 * then takes the '[' literally). */
static bool match_set(const char *p, int c, unsigned flags, size_t *len)
{
    const char *q = p + 1;
    bool negate = false, hit = false;
    if (*q == '!' || *q == '^') {
        negate = true;
        q++;
    }
    c = path_byte(c, flags);
    for (bool first = true;; first = false) {
        if (*q == '\0') {
            *len = 0;
            return false;
        }
        if (*q == ']' && !first)
            break;
        if (*q == '\\' && q[1])
            q++;
        int lo = path_byte((unsigned char)*q, flags);
        q++;
        int hi = lo;
        if (*q == '-' && q[1] && q[1] != ']') {
            q++;
            if (*q == '\\' && q[1])
                q++;
            hi = path_byte((unsigned char)*q, flags);
            q++;
        }
        if (in_range(c, lo, hi, flags))
            hit = true;
    }
    *len = (size_t)(q + 1 - p);
    return hit != negate;
}

bool bk_glob_match(const char *pattern, const char *text, unsigned flags)
{
    if (!pattern || !text)
        return false;
    const char *p = pattern, *t = text;
    const char *star_p = NULL, *star_t = NULL;
    for (;;) {
        if (*p == '*') {
            while (*p == '*')
                p++;
            star_p = p;
            star_t = t;
            continue;
        }
        if (*t == '\0')
            return *p == '\0';
        int c = (unsigned char)*t;
        size_t len = 0;
        bool ok = false;
        if (*p == '\0') {
            ok = false;
        } else if (*p == '?') {
            ok = true;
            len = 1;
        } else if (*p == '[') {
            ok = match_set(p, c, flags, &len);
            if (len == 0) {
                ok = c == '[';
                len = 1;
            }
        } else if (*p == '\\' && p[1]) {
            ok = byte_equal((unsigned char)p[1], c, flags);
            len = 2;
        } else {
            ok = byte_equal((unsigned char)*p, c, flags);
            len = 1;
        }
        if (ok) {
            p += len;
            t++;
            continue;
        }
        if (!star_p)
            return false;
        /* Let the last '*' take one more byte and retry from there. */
        p = star_p;
        t = ++star_t;
    }
}
