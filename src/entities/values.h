/* Reading entity values that name a model or hold a vector. */
#ifndef BSPKIT_ENTITIES_VALUES_H
#define BSPKIT_ENTITIES_VALUES_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* Brush entities name their model as "*N" in the "model" key. */
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

/* Three finite numbers separated by blanks ("origin", "angles"); false
 * otherwise, NULL included. Text after the third number is ignored. */
static inline bool bk_parse_vec3(const char *text, double out[3])
{
    if (!text)
        return false;
    const char *p = text;
    for (int i = 0; i < 3; i++) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || !isfinite(v))
            return false;
        out[i] = v;
        p = end;
    }
    return true;
}

#endif
