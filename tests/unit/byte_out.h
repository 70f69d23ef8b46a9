/* Little-endian byte writers for unit tests that write a map byte by byte
 * from a format's documented layout (never through bspkit's own encoders).
 * Include after <string.h>; the unused ones are marked so. */
#ifndef BSPKIT_TESTS_BYTE_OUT_H
#define BSPKIT_TESTS_BYTE_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__)
#define BYTE_OUT_UNUSED __attribute__((unused))
#else
#define BYTE_OUT_UNUSED
#endif

typedef struct out {
    uint8_t b[8192];
    size_t n;
} out;

static BYTE_OUT_UNUSED void u8(out *o, unsigned v) { o->b[o->n++] = (uint8_t)v; }
static BYTE_OUT_UNUSED void i16(out *o, int v)
{
    u8(o, (unsigned)v & 0xFF);
    u8(o, ((unsigned)v >> 8) & 0xFF);
}
static BYTE_OUT_UNUSED void i32(out *o, int64_t v)
{
    for (int k = 0; k < 4; k++)
        u8(o, (unsigned)(((uint64_t)v >> (8 * k)) & 0xFF));
}
static BYTE_OUT_UNUSED void f32(out *o, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    i32(o, u);
}
/* `s` in a field of `field` bytes, NUL-padded. */
static BYTE_OUT_UNUSED void text(out *o, const char *s, size_t field)
{
    size_t n = strlen(s);
    for (size_t k = 0; k < field; k++)
        u8(o, k < n ? (unsigned char)s[k] : 0);
}

#endif
