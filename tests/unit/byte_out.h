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
    uint8_t b[1 << 17]; /* room for a Quake 3 lightmap page (49152 bytes) */
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

/* Closes lump `l`, whose bytes were written from `start` on: its entry in
 * the directory of little-endian {offset, length} pairs at `dir` (offset 0
 * for an empty lump), then padding to 4 bytes. */
static BYTE_OUT_UNUSED void end_lump(out *o, size_t dir, int l, size_t start)
{
    size_t len = o->n - start, save = o->n;
    o->n = dir + 8 * (size_t)l;
    i32(o, len ? (int64_t)start : 0);
    i32(o, (int64_t)len);
    o->n = save;
    while (o->n % 4)
        u8(o, 0);
}

#endif
