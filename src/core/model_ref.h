/* Brush entities name their model as "*N" in the "model" key. */
#ifndef BSPKIT_CORE_MODEL_REF_H
#define BSPKIT_CORE_MODEL_REF_H

#include <stdint.h>

/* N of a "*N" value (decimal digits only, below 2^30: more models than any
 * map can hold), or -1 for anything else, NULL included. */
static inline int64_t bk_model_ref(const char *v)
{
    if (!v || v[0] != '*' || v[1] == '\0')
        return -1;
    int64_t n = 0;
    for (const char *p = v + 1; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        n = n * 10 + (*p - '0');
        if (n >= (int64_t)1 << 30)
            return -1;
    }
    return n;
}

#endif
