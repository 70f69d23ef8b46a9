/* Byte-composed readers and writers. File bytes are never cast to structs:
 * every multi-byte value is assembled here, which also gives big-endian
 * support for free and keeps unaligned access well-defined. */
#ifndef BSPKIT_CORE_BYTES_H
#define BSPKIT_CORE_BYTES_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* For the small readers every decoder is built from, and the per-byte-order
 * copies of a decoder's loop: inlining them is what lets the compiler turn
 * a little-endian read into one load. */
#if defined(__GNUC__)
#define BK_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define BK_ALWAYS_INLINE static inline
#endif

BK_ALWAYS_INLINE uint16_t rd_le16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
BK_ALWAYS_INLINE uint16_t rd_be16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }

BK_ALWAYS_INLINE uint32_t rd_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

BK_ALWAYS_INLINE uint32_t rd_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

BK_ALWAYS_INLINE uint64_t rd_le64(const uint8_t *p)
{
    return (uint64_t)rd_le32(p) | ((uint64_t)rd_le32(p + 4) << 32);
}

BK_ALWAYS_INLINE float bits_to_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

BK_ALWAYS_INLINE uint32_t float_to_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Endian-selected reads: `be` is the file's byte order. */
BK_ALWAYS_INLINE uint16_t rd_u16(const uint8_t *p, bool be) { return be ? rd_be16(p) : rd_le16(p); }
BK_ALWAYS_INLINE int16_t rd_i16(const uint8_t *p, bool be) { return (int16_t)rd_u16(p, be); }
BK_ALWAYS_INLINE uint32_t rd_u32(const uint8_t *p, bool be) { return be ? rd_be32(p) : rd_le32(p); }
BK_ALWAYS_INLINE int32_t rd_i32(const uint8_t *p, bool be) { return (int32_t)rd_u32(p, be); }
BK_ALWAYS_INLINE float rd_f32(const uint8_t *p, bool be) { return bits_to_float(rd_u32(p, be)); }

/* On a little-endian host a little-endian value is its own bytes: one store
 * (byte stores through uint8_t *, which may alias anything, are not always
 * merged). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define BK_HOST_LE 1
#else
#define BK_HOST_LE 0
#endif

BK_ALWAYS_INLINE void wr_le16(uint8_t *p, uint16_t v)
{
#if BK_HOST_LE
    memcpy(p, &v, sizeof v);
#else
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
#endif
}

static inline void wr_be16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

BK_ALWAYS_INLINE void wr_le32(uint8_t *p, uint32_t v)
{
#if BK_HOST_LE
    memcpy(p, &v, sizeof v);
#else
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
#endif
}

static inline void wr_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

BK_ALWAYS_INLINE void wr_u16(uint8_t *p, uint16_t v, bool be) { be ? wr_be16(p, v) : wr_le16(p, v); }
BK_ALWAYS_INLINE void wr_u32(uint8_t *p, uint32_t v, bool be) { be ? wr_be32(p, v) : wr_le32(p, v); }
BK_ALWAYS_INLINE void wr_f32(uint8_t *p, float f, bool be) { wr_u32(p, float_to_bits(f), be); }

/* Overflow-safe range check: does [ofs, ofs+len) fit in size? */
static inline bool range_ok(uint64_t ofs, uint64_t len, uint64_t size)
{
    return ofs <= size && len <= size - ofs;
}

#endif
