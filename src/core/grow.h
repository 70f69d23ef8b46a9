/* Growing a heap array by doubling, with the size arithmetic checked. */
#ifndef BSPKIT_CORE_GROW_H
#define BSPKIT_CORE_GROW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* Make room for at least `need` elements of `elem` bytes in *ptr (capacity
 * *cap); false, with *ptr unchanged, when the size overflows or realloc fails. */
static inline bool bk_grow(void **ptr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap : 8;
    while (n < need) {
        if (n > SIZE_MAX / 2)
            return false;
        n *= 2;
    }
    if (n > SIZE_MAX / elem)
        return false;
    void *p = realloc(*ptr, n * elem);
    if (!p)
        return false;
    *ptr = p;
    *cap = n;
    return true;
}

#endif
