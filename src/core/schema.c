/* The out-of-line parts of record schemas (core/schema.h): encoder failures
 * and the int16 bound rounding. */
#include "core/schema.h"

#include "core/map.h"

#include <stdio.h>

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
