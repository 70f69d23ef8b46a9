/* ASCII-only case folding, as the engines' stricmp: the locale must never
 * change which names, keys or values match. One set for the whole library. */
#ifndef BSPKIT_CORE_ASCII_H
#define BSPKIT_CORE_ASCII_H

#include <stdbool.h>
#include <stddef.h>

static inline int bk_ascii_lower(int c) { return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c; }
static inline int bk_ascii_upper(int c) { return c >= 'a' && c <= 'z' ? c - ('a' - 'A') : c; }

/* strncmp with ASCII letters folded; n = (size_t)-1 compares whole strings. */
static inline int bk_ascii_ncasecmp(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int ca = bk_ascii_lower((unsigned char)a[i]), cb = bk_ascii_lower((unsigned char)b[i]);
        if (ca != cb || ca == 0)
            return ca - cb;
    }
    return 0;
}

static inline int bk_ascii_casecmp(const char *a, const char *b) { return bk_ascii_ncasecmp(a, b, (size_t)-1); }

static inline bool bk_ascii_equal(const char *a, const char *b) { return bk_ascii_casecmp(a, b) == 0; }

#endif
