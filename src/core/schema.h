/* Record schemas: each on-disk record layout is declared once, as an X-macro
 * list of fields, and everything that needs the layout is generated from
 * that list at compile time:
 *   - the decoder (file bytes, either byte order -> native struct),
 *   - the encoder (native struct -> file bytes, after checking that every
 *     value fits its file field),
 *   - the dump table (field names as in the format documents, typed by the
 *     native member),
 *   - the byte-order conversion (each field swapped in place by its width),
 *   - the record size, checked against the field list at compile time.
 *
 * A layout is written as
 *
 *   #define QUAKE_EDGE29(F)              \
 *       F(U16A, .v, 2, "v")
 *   BK_SCHEMA(quake_edge29, bspkit_edge, 4, "edge", QUAKE_EDGE29)
 *
 * which defines `const bk_schema quake_edge29`. Each field is
 * F(KIND, MEMBER, N, "name"): MEMBER is the native member path with its
 * leading dot (empty when the native record is the value itself, e.g. a
 * surfedge's int32_t), N the element count (or the value of a DEFAULT, or
 * the byte count of a PAD) and "name" the format document's name.
 *
 * Kinds (file representation -> native):
 *   U8 I8 I16 U16 I32 U32 F32 one scalar            U8A I16A U16A I32A U32A F32A  N elements
 *   VEC3      3 x float32 -> bspkit_vec3          VEC3A  N of them -> bspkit_vec3[N]
 *   BMIN16 BMAX16  3 x int16 bounds -> bspkit_vec3 (encoded rounding outwards)
 *   BMIN32 BMAX32  3 x int32 bounds -> bspkit_vec3 (the same, in 32 bits: Quake 3)
 *   BOOL16 BOOL32  a flag stored as an integer, decoded as 0/1
 *   MAT24     float32[2][4] (texture vectors)
 *   U16MASK U32MASK  an integer decoded as (value & N); flag bits above N are dropped
 *   AREAFLAGS16 AREAFLAGS32  Source leaf area:9/flags:7 in a uint16 (area:17/flags:15 in a
 *             uint32), area in the low bits; MEMBER is the path of the record holding both
 *   FCRO16    doverlay_t's FaceCountAndRenderOrder uint16, kept as stored in
 *             MEMBER.face_count_and_render_order and split into MEMBER.face_count (low 14
 *             bits) and MEMBER.render_order (top 2); encoded from the two parts; dumped
 *             as three columns ("name", "FaceCount", "RenderOrder")
 *   DISPEDGES DISPCORNERS  ddispinfo_t's neighbour records, N the width of a neighbour
 *             index (2, or 4 in Strata's wide layout), MEMBER the path of the
 *             bspkit_dispinfo. DISPEDGES: 4 edges x 2 CDispSubNeighbor {index, 3 bytes
 *             orientation/span/neighbour span, 1 pad} into edge_neighbor[4][2] and the three
 *             byte arrays; DISPCORNERS: 4 CDispCornerNeighbors {index[4], count byte, N-1
 *             pad} into corner_neighbors[4][4] and corner_neighbor_count[4]. A 16-bit index
 *             0xFFFF reads as -1 (and -1 is written as 0xFFFF); only the indices are
 *             byte-swapped; one dump column per member, named "name.<document member>"
 *   RGBEXPA   N ColorRGBExp32 (4 bytes each) -> bspkit_rgbexp[N]
 *   PAD       N bytes written as 0 and not decoded (single bytes: never byte-swapped)
 *   SKIP16 SKIP32  N 16- or 32-bit fields of unknown meaning: not decoded, written as 0,
 *             byte-swapped by their width
 *   DEFAULT   no bytes: the decoder sets MEMBER = N (e.g. -1 for "none"); not dumped
 *   ABSENT    no bytes: as DEFAULT, but dumped, for a native field this layout lacks
 *             and whose column the other layouts of the record show (N may be a
 *             compound literal for a struct member: (bspkit_vec3){0})
 *   ABSENT_ARRAY  the same for an array: every byte of MEMBER set to N
 *   CHARS     N bytes of text -> char[N + 1], always NUL-terminated; the encoder
 *             refuses a longer string and pads with NULs
 * Integers that do not fit a narrower file field are refused by the encoder
 * naming the record, field and value.
 */
#ifndef BSPKIT_CORE_SCHEMA_H
#define BSPKIT_CORE_SCHEMA_H

#include "bspkit/dump.h"
#include "core/bytes.h"
#include "core/schema_plan.h"
#include "bspkit/bspkit.h"

#include <stddef.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Three 16-bit bounds to floats. With SSE2 and little-endian bytes, all
 * three at once (a 4-byte and a 2-byte read, sign-extended, converted in
 * one step): the same values as three scalar conversions, which are exact. */
BK_ALWAYS_INLINE void bk_dec_bound16(bspkit_vec3 *v, const uint8_t *p, bool be)
{
#if defined(__SSE2__)
    if (!be) {
        __m128i x = _mm_insert_epi16(_mm_cvtsi32_si128((int)rd_le32(p)), rd_le16(p + 4), 2);
        const __m128 f = _mm_cvtepi32_ps(_mm_srai_epi32(_mm_unpacklo_epi16(x, x), 16));
        _mm_storel_pi((__m64 *)(void *)&v->x, f);
        _mm_store_ss(&v->z, _mm_movehl_ps(f, f));
        return;
    }
#endif
    v->x = rd_i16(p, be);
    v->y = rd_i16(p + 2, be);
    v->z = rd_i16(p + 4, be);
}

/* Where an encoder reports a value that does not fit. */
typedef struct bk_field_ctx {
    const char *record_name; /* "node", "face", ... */
    int lump;
    size_t record;
    bspkit_error *err;
} bk_field_ctx;

/* "lump L: <record> R: <field>[index] = value does not fit the file's <range> field". */
bspkit_result bk_field_fail(const bk_field_ctx *c, const char *field, int index, long long value,
                            const char *range);
/* The same for a float bound that does not fit a signed `bits`-bit bound. */
bspkit_result bk_bound_fail(const bk_field_ctx *c, const char *field, int index, double value, int bits);
/* A float bound as int16, rounded outwards (mins down, maxs up) so the stored
 * box contains the float one; false when it does not fit (or is NaN). */
bool bk_bound_to_i16(float f, bool up, int16_t *out);
/* The same for a signed 32-bit bound (|f| below 2^31). */
bool bk_bound_to_i32(float f, bool up, int32_t *out);

typedef void (*bk_schema_decode_fn)(const uint8_t *src, size_t count, bool big_endian, void *dst);
/* Checks one native record and, when dst is not NULL, writes its file bytes. */
typedef bspkit_result (*bk_schema_encode_fn)(const void *item, uint8_t *dst, bool big_endian,
                                             const bk_field_ctx *c);

typedef struct bk_schema {
    const char *name;        /* record name in messages ("node", "leaf face"): the builder's errors use it */
    uint32_t record_size;    /* file bytes per record */
    size_t native_size;      /* sizeof the native struct */
    bk_schema_decode_fn decode;
    bk_schema_encode_fn encode;
    /* Converts `count` records at `data` to the other byte order, in place. */
    void (*swap)(uint8_t *data, size_t count);
    /* The dump table: fields named as in the format documents. */
    const bspkit_field *(*dump_fields)(size_t *count);
    /* BK_FIT_SAME when a little-endian file record is the native one byte
     * for byte (core/schema.h, id##_fit), and the native alignment: such
     * records can be read in place. */
    int (*fit)(void);
    size_t native_align;
    /* Builds the shuffle plan for byte order `be` (core/schema_plan.h);
     * false when the fields have none. NULL where plans are not used. */
    bool (*plan)(bk_plan *p, bool be);
} bk_schema;

/* ---- per-kind pieces ----------------------------------------------------- */

/* File bytes a field occupies. */
#define BK_SZ_U8(n) 1
#define BK_SZ_I8(n) 1
#define BK_SZ_I16(n) 2
#define BK_SZ_U16(n) 2
#define BK_SZ_I32(n) 4
#define BK_SZ_U32(n) 4
#define BK_SZ_F32(n) 4
#define BK_SZ_U8A(n) (n)
#define BK_SZ_I16A(n) (2 * (n))
#define BK_SZ_U16A(n) (2 * (n))
#define BK_SZ_I32A(n) (4 * (n))
#define BK_SZ_U32A(n) (4 * (n))
#define BK_SZ_F32A(n) (4 * (n))
#define BK_SZ_VEC3(n) 12
#define BK_SZ_VEC3A(n) (12 * (n))
#define BK_SZ_BMIN16(n) 6
#define BK_SZ_BMAX16(n) 6
#define BK_SZ_BMIN32(n) 12
#define BK_SZ_BMAX32(n) 12
#define BK_SZ_BOOL16(n) 2
#define BK_SZ_BOOL32(n) 4
#define BK_SZ_MAT24(n) 32
#define BK_SZ_PAD(n) (n)
#define BK_SZ_DEFAULT(n) 0
#define BK_SZ_U16MASK(n) 2
#define BK_SZ_U32MASK(n) 4
#define BK_SZ_AREAFLAGS16(n) 2
#define BK_SZ_AREAFLAGS32(n) 4
#define BK_SZ_FCRO16(n) 2
#define BK_SZ_DISPEDGES(n) (8 * ((n) + 4))
#define BK_SZ_DISPCORNERS(n) (20 * (n))
#define BK_SZ_RGBEXPA(n) (4 * (n))
#define BK_SZ_SKIP16(n) (2 * (n))
#define BK_SZ_SKIP32(n) (4 * (n))
#define BK_SZ_ABSENT(n) 0
#define BK_SZ_ABSENT_ARRAY(n) 0
#define BK_SZ_CHARS(n) (n)

/* Scalar readers from p (file bytes) in byte order be. */
#define BK_RD_U8(p, be) ((p)[0])
#define BK_RD_I8(p, be) ((int8_t)(p)[0])
#define BK_RD_I16(p, be) rd_i16((p), (be))
#define BK_RD_U16(p, be) rd_u16((p), (be))
#define BK_RD_I32(p, be) rd_i32((p), (be))
#define BK_RD_U32(p, be) rd_u32((p), (be))
#define BK_RD_F32(p, be) rd_f32((p), (be))

/* A displacement neighbour index of `width` bytes (2 or 4): in the 16-bit
 * form 0xFFFF means "none" and reads as -1; the 32-bit form is signed. */
static inline int32_t bk_rd_neighbor(const uint8_t *p, int width, bool be)
{
    if (width == 4)
        return rd_i32(p, be);
    uint16_t v = rd_u16(p, be);
    return v == 0xFFFFu ? -1 : (int32_t)v;
}
static inline void bk_wr_neighbor(uint8_t *p, int width, int32_t v, bool be)
{
    if (width == 4)
        wr_u32(p, (uint32_t)v, be);
    else
        wr_u16(p, (uint16_t)v, be);
}

/* Decode: `o` is the native record, `p` the record's bytes, `off` the field's offset. */
#define BK_DEC_SCALAR(T, o, m, p, off, be) (o) m = BK_RD_##T((p) + (off), (be));
#define BK_DEC_ARRAY(T, W, o, m, n, p, off, be)                                                        \
    for (int k_ = 0; k_ < (n); k_++)                                                                   \
        (o) m[k_] = BK_RD_##T((p) + (off) + (W) * k_, (be));
#define BK_DEC_U8(o, m, n, p, off, be) BK_DEC_SCALAR(U8, o, m, p, off, be)
#define BK_DEC_I8(o, m, n, p, off, be) BK_DEC_SCALAR(I8, o, m, p, off, be)
#define BK_DEC_I16(o, m, n, p, off, be) BK_DEC_SCALAR(I16, o, m, p, off, be)
#define BK_DEC_U16(o, m, n, p, off, be) BK_DEC_SCALAR(U16, o, m, p, off, be)
#define BK_DEC_I32(o, m, n, p, off, be) BK_DEC_SCALAR(I32, o, m, p, off, be)
#define BK_DEC_U32(o, m, n, p, off, be) BK_DEC_SCALAR(U32, o, m, p, off, be)
#define BK_DEC_F32(o, m, n, p, off, be) BK_DEC_SCALAR(F32, o, m, p, off, be)
#define BK_DEC_U8A(o, m, n, p, off, be) memcpy((o) m, (p) + (off), (n));
#define BK_DEC_I16A(o, m, n, p, off, be) BK_DEC_ARRAY(I16, 2, o, m, n, p, off, be)
#define BK_DEC_U16A(o, m, n, p, off, be) BK_DEC_ARRAY(U16, 2, o, m, n, p, off, be)
#define BK_DEC_I32A(o, m, n, p, off, be) BK_DEC_ARRAY(I32, 4, o, m, n, p, off, be)
#define BK_DEC_U32A(o, m, n, p, off, be) BK_DEC_ARRAY(U32, 4, o, m, n, p, off, be)
#define BK_DEC_F32A(o, m, n, p, off, be) BK_DEC_ARRAY(F32, 4, o, m, n, p, off, be)
#define BK_DEC_VEC3(o, m, n, p, off, be)                                                               \
    (o) m.x = rd_f32((p) + (off), (be));                                                               \
    (o) m.y = rd_f32((p) + (off) + 4, (be));                                                           \
    (o) m.z = rd_f32((p) + (off) + 8, (be));
#define BK_DEC_VEC3A(o, m, n, p, off, be)                                                              \
    for (int k_ = 0; k_ < (n); k_++) {                                                                 \
        BK_DEC_VEC3(o, m[k_], 1, p, (off) + 12 * k_, be)                                               \
    }
#define BK_DEC_BOUND16(o, m, p, off, be) bk_dec_bound16(&(o) m, (p) + (off), (be));
#define BK_DEC_BMIN16(o, m, n, p, off, be) BK_DEC_BOUND16(o, m, p, off, be)
#define BK_DEC_BMAX16(o, m, n, p, off, be) BK_DEC_BOUND16(o, m, p, off, be)
#define BK_DEC_BOUND32(o, m, p, off, be)                                                               \
    (o) m.x = (float)rd_i32((p) + (off), (be));                                                        \
    (o) m.y = (float)rd_i32((p) + (off) + 4, (be));                                                    \
    (o) m.z = (float)rd_i32((p) + (off) + 8, (be));
#define BK_DEC_BMIN32(o, m, n, p, off, be) BK_DEC_BOUND32(o, m, p, off, be)
#define BK_DEC_BMAX32(o, m, n, p, off, be) BK_DEC_BOUND32(o, m, p, off, be)
#define BK_DEC_BOOL16(o, m, n, p, off, be) (o) m = rd_u16((p) + (off), (be)) != 0;
#define BK_DEC_BOOL32(o, m, n, p, off, be) (o) m = rd_u32((p) + (off), (be)) != 0;
#define BK_DEC_MAT24(o, m, n, p, off, be)                                                              \
    for (int a_ = 0; a_ < 2; a_++)                                                                     \
        for (int k_ = 0; k_ < 4; k_++)                                                                 \
            (o) m[a_][k_] = rd_f32((p) + (off) + 16 * a_ + 4 * k_, (be));
#define BK_DEC_PAD(o, m, n, p, off, be)
#define BK_DEC_DEFAULT(o, m, n, p, off, be) (o) m = (n);
#define BK_DEC_U16MASK(o, m, n, p, off, be) (o) m = rd_u16((p) + (off), (be)) & (n);
#define BK_DEC_U32MASK(o, m, n, p, off, be) (o) m = rd_u32((p) + (off), (be)) & (n);
#define BK_DEC_AREAFLAGS(RD, BITS, o, m, p, off, be)                                                   \
    {                                                                                                  \
        uint32_t bits_ = RD((p) + (off), (be));                                                        \
        (o) m.area = (int32_t)(bits_ & ((1u << (BITS)) - 1));                                          \
        (o) m.flags = (int32_t)(bits_ >> (BITS));                                                      \
    }
#define BK_DEC_AREAFLAGS16(o, m, n, p, off, be) BK_DEC_AREAFLAGS(rd_u16, 9, o, m, p, off, be)
#define BK_DEC_AREAFLAGS32(o, m, n, p, off, be) BK_DEC_AREAFLAGS(rd_u32, 17, o, m, p, off, be)
#define BK_DEC_FCRO16(o, m, n, p, off, be)                                                             \
    {                                                                                                  \
        uint16_t v_ = rd_u16((p) + (off), (be));                                                       \
        (o) m.face_count_and_render_order = v_;                                                        \
        (o) m.face_count = (uint16_t)(v_ & 0x3FFFu);                                                               \
        (o) m.render_order = (uint8_t)(v_ >> 14);                                                      \
    }
#define BK_DEC_DISPEDGES(o, m, n, p, off, be)                                                          \
    for (int e_ = 0; e_ < 4; e_++)                                                                     \
        for (int s_ = 0; s_ < 2; s_++) {                                                               \
            const uint8_t *q_ = (p) + (off) + ((n) + 4) * (2 * e_ + s_);                               \
            (o) m.edge_neighbor[e_][s_] = bk_rd_neighbor(q_, (n), (be));                               \
            (o) m.edge_neighbor_orientation[e_][s_] = q_[(n)];                                         \
            (o) m.edge_span[e_][s_] = q_[(n) + 1];                                                     \
            (o) m.edge_neighbor_span[e_][s_] = q_[(n) + 2];                                            \
        }
#define BK_DEC_DISPCORNERS(o, m, n, p, off, be)                                                        \
    for (int c_ = 0; c_ < 4; c_++) {                                                                   \
        const uint8_t *q_ = (p) + (off) + 5 * (n) * c_;                                                \
        for (int k_ = 0; k_ < 4; k_++)                                                                 \
            (o) m.corner_neighbors[c_][k_] = bk_rd_neighbor(q_ + (n) * k_, (n), (be));                 \
        (o) m.corner_neighbor_count[c_] = q_[4 * (n)];                                                 \
    }
#define BK_DEC_RGBEXPA(o, m, n, p, off, be)                                                            \
    for (int k_ = 0; k_ < (n); k_++) {                                                                 \
        const uint8_t *c_ = (p) + (off) + 4 * k_;                                                      \
        (o) m[k_] = (bspkit_rgbexp){c_[0], c_[1], c_[2], (int8_t)c_[3]};                               \
    }
#define BK_DEC_SKIP16(o, m, n, p, off, be)
#define BK_DEC_SKIP32(o, m, n, p, off, be)
#define BK_DEC_ABSENT(o, m, n, p, off, be) (o) m = (n);
#define BK_DEC_ABSENT_ARRAY(o, m, n, p, off, be) memset((o) m, (n), sizeof (o) m);
#define BK_DEC_CHARS(o, m, n, p, off, be)                                                              \
    memcpy((o) m, (p) + (off), (n));                                                                   \
    (o) m[(n)] = '\0';

/* Bytes of its member a field kind's decoder writes, from the member's
 * start (`lv` is the member, `n` the field's count): all of it for an
 * assignment, n elements for an array, none for kinds that write parts of
 * a record or nothing. Only the 16-byte pieces of a record holding a byte
 * no field writes this way are cleared before the fields (bk_zero_unfilled). */
#define BK_FILL_WHOLE(lv, n) sizeof(lv)
#define BK_FILL_ELEMS(lv, n) ((size_t)(n) * sizeof((lv)[0]))
#define BK_FILL_NONE(lv, n) ((size_t)0)
#define BK_FILL_U8 BK_FILL_WHOLE
#define BK_FILL_I8 BK_FILL_WHOLE
#define BK_FILL_I16 BK_FILL_WHOLE
#define BK_FILL_U16 BK_FILL_WHOLE
#define BK_FILL_I32 BK_FILL_WHOLE
#define BK_FILL_U32 BK_FILL_WHOLE
#define BK_FILL_F32 BK_FILL_WHOLE
#define BK_FILL_U8A BK_FILL_ELEMS
#define BK_FILL_I16A BK_FILL_ELEMS
#define BK_FILL_U16A BK_FILL_ELEMS
#define BK_FILL_I32A BK_FILL_ELEMS
#define BK_FILL_U32A BK_FILL_ELEMS
#define BK_FILL_F32A BK_FILL_ELEMS
#define BK_FILL_VEC3 BK_FILL_WHOLE
#define BK_FILL_VEC3A BK_FILL_ELEMS
#define BK_FILL_BMIN16 BK_FILL_WHOLE
#define BK_FILL_BMAX16 BK_FILL_WHOLE
#define BK_FILL_BMIN32 BK_FILL_WHOLE
#define BK_FILL_BMAX32 BK_FILL_WHOLE
#define BK_FILL_BOOL16 BK_FILL_WHOLE
#define BK_FILL_BOOL32 BK_FILL_WHOLE
#define BK_FILL_MAT24(lv, n) (2 * sizeof((lv)[0]))
#define BK_FILL_PAD BK_FILL_NONE
#define BK_FILL_DEFAULT BK_FILL_WHOLE
#define BK_FILL_U16MASK BK_FILL_WHOLE
#define BK_FILL_U32MASK BK_FILL_WHOLE
#define BK_FILL_AREAFLAGS16 BK_FILL_NONE
#define BK_FILL_AREAFLAGS32 BK_FILL_NONE
#define BK_FILL_FCRO16 BK_FILL_NONE
#define BK_FILL_DISPEDGES BK_FILL_NONE
#define BK_FILL_DISPCORNERS BK_FILL_NONE
#define BK_FILL_RGBEXPA BK_FILL_ELEMS
#define BK_FILL_SKIP16 BK_FILL_NONE
#define BK_FILL_SKIP32 BK_FILL_NONE
#define BK_FILL_ABSENT BK_FILL_WHOLE
#define BK_FILL_ABSENT_ARRAY BK_FILL_WHOLE
#define BK_FILL_CHARS BK_FILL_NONE

/* The bytes of a record of at most 128 bytes that its fields write, one
 * bit each (w[0]: bytes 0-63, w[1]: 64-127). */
typedef struct bk_fill {
    uint64_t w[2];
} bk_fill;

/* Bits base .. base + 63 of the byte range [at, at + len). */
static inline uint64_t bk_fill_word(size_t at, size_t len, size_t base)
{
    size_t start = at > base ? at : base, end = at + len < base + 64 ? at + len : base + 64;
    if (start >= end)
        return 0;
    uint64_t bits = end - start >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << (end - start)) - 1;
    return bits << (start - base);
}

static inline bk_fill bk_fill_add(bk_fill f, size_t at, size_t len)
{
    f.w[0] |= bk_fill_word(at, len, 0);
    f.w[1] |= bk_fill_word(at, len, 64);
    return f;
}

/* Whether the fields write every byte of [at, at + len). */
static inline bool bk_fill_has(bk_fill f, size_t at, size_t len)
{
    uint64_t lo = bk_fill_word(at, len, 0), hi = bk_fill_word(at, len, 64);
    return (f.w[0] & lo) == lo && (f.w[1] & hi) == hi;
}

/* Encode checks, before any byte is written. `name` is the member's name. */
#define BK_NEED(c, name, idx, v, lo, hi, what)                                                         \
    do {                                                                                               \
        long long v_ = (long long)(v);                                                                 \
        if (v_ < (lo) || v_ > (hi))                                                                    \
            return bk_field_fail((c), (name), (idx), v_, (what));                                      \
    } while (0);
#define BK_NEED_U16(c, name, idx, v) BK_NEED(c, name, idx, v, 0, 0xFFFF, "unsigned 16-bit")
#define BK_NEED_I16(c, name, idx, v) BK_NEED(c, name, idx, v, INT16_MIN, INT16_MAX, "signed 16-bit")
#define BK_CHK_U8(r, m, n, c, name) BK_NEED(c, name, -1, (r) m, 0, 255, "unsigned 8-bit")
#define BK_CHK_I8(r, m, n, c, name) BK_NEED(c, name, -1, (r) m, -128, 127, "signed 8-bit")
#define BK_CHK_I16(r, m, n, c, name) BK_NEED_I16(c, name, -1, (r) m)
#define BK_CHK_U16(r, m, n, c, name) BK_NEED_U16(c, name, -1, (r) m)
#define BK_CHK_I32(r, m, n, c, name)
#define BK_CHK_U32(r, m, n, c, name)
#define BK_CHK_F32(r, m, n, c, name)
#define BK_CHK_U8A(r, m, n, c, name)
#define BK_CHK_I16A(r, m, n, c, name)                                                                  \
    for (int k_ = 0; k_ < (n); k_++)                                                                   \
        BK_NEED_I16(c, name, k_, (r) m[k_])
#define BK_CHK_U16A(r, m, n, c, name)                                                                  \
    for (int k_ = 0; k_ < (n); k_++)                                                                   \
        BK_NEED_U16(c, name, k_, (r) m[k_])
#define BK_CHK_I32A(r, m, n, c, name)
#define BK_CHK_U32A(r, m, n, c, name)
#define BK_CHK_F32A(r, m, n, c, name)
#define BK_CHK_VEC3(r, m, n, c, name)
#define BK_CHK_VEC3A(r, m, n, c, name)
#define BK_CHK_BOUND16(r, m, up, c, name)                                                              \
    {                                                                                                  \
        const float b_[3] = {(r) m.x, (r) m.y, (r) m.z};                                               \
        int16_t s_;                                                                                    \
        for (int k_ = 0; k_ < 3; k_++)                                                                 \
            if (!bk_bound_to_i16(b_[k_], (up), &s_))                                                   \
                return bk_bound_fail((c), (name), k_, (double)b_[k_], 16);                             \
    }
#define BK_CHK_BMIN16(r, m, n, c, name) BK_CHK_BOUND16(r, m, false, c, name)
#define BK_CHK_BMAX16(r, m, n, c, name) BK_CHK_BOUND16(r, m, true, c, name)
#define BK_CHK_BOUND32(r, m, up, c, name)                                                              \
    {                                                                                                  \
        const float b_[3] = {(r) m.x, (r) m.y, (r) m.z};                                               \
        int32_t s_;                                                                                    \
        for (int k_ = 0; k_ < 3; k_++)                                                                 \
            if (!bk_bound_to_i32(b_[k_], (up), &s_))                                                   \
                return bk_bound_fail((c), (name), k_, (double)b_[k_], 32);                             \
    }
#define BK_CHK_BMIN32(r, m, n, c, name) BK_CHK_BOUND32(r, m, false, c, name)
#define BK_CHK_BMAX32(r, m, n, c, name) BK_CHK_BOUND32(r, m, true, c, name)
#define BK_CHK_BOOL16(r, m, n, c, name)
#define BK_CHK_BOOL32(r, m, n, c, name)
#define BK_CHK_MAT24(r, m, n, c, name)
#define BK_CHK_PAD(r, m, n, c, name)
#define BK_CHK_DEFAULT(r, m, n, c, name)
#define BK_CHK_U16MASK(r, m, n, c, name) BK_NEED_U16(c, name, -1, (r) m)
#define BK_CHK_U32MASK(r, m, n, c, name)
#define BK_CHK_AREAFLAGS(r, m, abits, fbits, c)                                                        \
    BK_NEED(c, "area", -1, (r) m.area, 0, (1ll << (abits)) - 1, #abits "-bit area")                    \
    BK_NEED(c, "flags", -1, (r) m.flags, 0, (1ll << (fbits)) - 1, #fbits "-bit flags")
#define BK_CHK_AREAFLAGS16(r, m, n, c, name) BK_CHK_AREAFLAGS(r, m, 9, 7, c)
#define BK_CHK_AREAFLAGS32(r, m, n, c, name) BK_CHK_AREAFLAGS(r, m, 17, 15, c)
#define BK_CHK_FCRO16(r, m, n, c, name)                                                                \
    BK_NEED(c, "face_count", -1, (r) m.face_count, 0, 0x3FFF, "14-bit face count")                     \
    BK_NEED(c, "render_order", -1, (r) m.render_order, 0, 3, "2-bit render order")
/* A 16-bit neighbour index holds 0..0xFFFE, or -1 written as 0xFFFF. */
#define BK_CHK_NEIGHBOR(c, name, idx, v, width)                                                        \
    if ((width) == 2)                                                                                  \
        BK_NEED(c, name, idx, v, -1, 0xFFFE, "16-bit neighbour")
#define BK_CHK_DISPEDGES(r, m, n, c, name)                                                             \
    for (int k_ = 0; k_ < 8; k_++)                                                                     \
        BK_CHK_NEIGHBOR(c, "edge_neighbor", k_, (r) m.edge_neighbor[k_ / 2][k_ % 2], (n))
#define BK_CHK_DISPCORNERS(r, m, n, c, name)                                                           \
    for (int k_ = 0; k_ < 16; k_++)                                                                    \
        BK_CHK_NEIGHBOR(c, "corner_neighbors", k_, (r) m.corner_neighbors[k_ / 4][k_ % 4], (n))
#define BK_CHK_RGBEXPA(r, m, n, c, name)
#define BK_CHK_SKIP16(r, m, n, c, name)
#define BK_CHK_SKIP32(r, m, n, c, name)
#define BK_CHK_ABSENT(r, m, n, c, name)
#define BK_CHK_ABSENT_ARRAY(r, m, n, c, name)
#define BK_CHK_CHARS(r, m, n, c, name)                                                                 \
    if (strnlen((r) m, sizeof (r) m) > (size_t)(n))                                                    \
        return bk_field_fail((c), (name), -1, (long long)strnlen((r) m, sizeof (r) m), #n "-byte text");

/* Encode writes (after every check passed). */
#define BK_WR_U8(d, v, be) ((d)[0] = (uint8_t)(v))
#define BK_WR_I8(d, v, be) ((d)[0] = (uint8_t)(int8_t)(v))
#define BK_WR_I16(d, v, be) wr_u16((d), (uint16_t)(int16_t)(v), (be))
#define BK_WR_U16(d, v, be) wr_u16((d), (uint16_t)(v), (be))
#define BK_WR_I32(d, v, be) wr_u32((d), (uint32_t)(int32_t)(v), (be))
#define BK_WR_U32(d, v, be) wr_u32((d), (uint32_t)(v), (be))
#define BK_WR_F32(d, v, be) wr_f32((d), (v), (be))
#define BK_ENC_SCALAR(T, r, m, d, off, be) BK_WR_##T((d) + (off), (r) m, (be));
#define BK_ENC_ARRAY(T, W, r, m, n, d, off, be)                                                        \
    for (int k_ = 0; k_ < (n); k_++)                                                                   \
        BK_WR_##T((d) + (off) + (W) * k_, (r) m[k_], (be));
#define BK_ENC_U8(r, m, n, d, off, be) BK_ENC_SCALAR(U8, r, m, d, off, be)
#define BK_ENC_I8(r, m, n, d, off, be) BK_ENC_SCALAR(I8, r, m, d, off, be)
#define BK_ENC_I16(r, m, n, d, off, be) BK_ENC_SCALAR(I16, r, m, d, off, be)
#define BK_ENC_U16(r, m, n, d, off, be) BK_ENC_SCALAR(U16, r, m, d, off, be)
#define BK_ENC_I32(r, m, n, d, off, be) BK_ENC_SCALAR(I32, r, m, d, off, be)
#define BK_ENC_U32(r, m, n, d, off, be) BK_ENC_SCALAR(U32, r, m, d, off, be)
#define BK_ENC_F32(r, m, n, d, off, be) BK_ENC_SCALAR(F32, r, m, d, off, be)
#define BK_ENC_U8A(r, m, n, d, off, be) memcpy((d) + (off), (r) m, (n));
#define BK_ENC_I16A(r, m, n, d, off, be) BK_ENC_ARRAY(I16, 2, r, m, n, d, off, be)
#define BK_ENC_U16A(r, m, n, d, off, be) BK_ENC_ARRAY(U16, 2, r, m, n, d, off, be)
#define BK_ENC_I32A(r, m, n, d, off, be) BK_ENC_ARRAY(I32, 4, r, m, n, d, off, be)
#define BK_ENC_U32A(r, m, n, d, off, be) BK_ENC_ARRAY(U32, 4, r, m, n, d, off, be)
#define BK_ENC_F32A(r, m, n, d, off, be) BK_ENC_ARRAY(F32, 4, r, m, n, d, off, be)
#define BK_ENC_VEC3(r, m, n, d, off, be)                                                               \
    wr_f32((d) + (off), (r) m.x, (be));                                                                \
    wr_f32((d) + (off) + 4, (r) m.y, (be));                                                            \
    wr_f32((d) + (off) + 8, (r) m.z, (be));
#define BK_ENC_VEC3A(r, m, n, d, off, be)                                                              \
    for (int k_ = 0; k_ < (n); k_++) {                                                                 \
        BK_ENC_VEC3(r, m[k_], 1, d, (off) + 12 * k_, be)                                               \
    }
#define BK_ENC_BOUND16(r, m, up, d, off, be)                                                           \
    {                                                                                                  \
        const float b_[3] = {(r) m.x, (r) m.y, (r) m.z};                                               \
        for (int k_ = 0; k_ < 3; k_++) {                                                               \
            int16_t s_ = 0;                                                                            \
            bk_bound_to_i16(b_[k_], (up), &s_);                                                        \
            wr_u16((d) + (off) + 2 * k_, (uint16_t)s_, (be));                                          \
        }                                                                                              \
    }
#define BK_ENC_BMIN16(r, m, n, d, off, be) BK_ENC_BOUND16(r, m, false, d, off, be)
#define BK_ENC_BMAX16(r, m, n, d, off, be) BK_ENC_BOUND16(r, m, true, d, off, be)
#define BK_ENC_BOUND32(r, m, up, d, off, be)                                                           \
    {                                                                                                  \
        const float b_[3] = {(r) m.x, (r) m.y, (r) m.z};                                               \
        for (int k_ = 0; k_ < 3; k_++) {                                                               \
            int32_t s_ = 0;                                                                            \
            bk_bound_to_i32(b_[k_], (up), &s_);                                                        \
            wr_u32((d) + (off) + 4 * k_, (uint32_t)s_, (be));                                          \
        }                                                                                              \
    }
#define BK_ENC_BMIN32(r, m, n, d, off, be) BK_ENC_BOUND32(r, m, false, d, off, be)
#define BK_ENC_BMAX32(r, m, n, d, off, be) BK_ENC_BOUND32(r, m, true, d, off, be)
#define BK_ENC_BOOL16(r, m, n, d, off, be) wr_u16((d) + (off), (uint16_t)(r) m, (be));
#define BK_ENC_BOOL32(r, m, n, d, off, be) wr_u32((d) + (off), (uint32_t)(r) m, (be));
#define BK_ENC_MAT24(r, m, n, d, off, be)                                                              \
    for (int a_ = 0; a_ < 2; a_++)                                                                     \
        for (int k_ = 0; k_ < 4; k_++)                                                                 \
            wr_f32((d) + (off) + 16 * a_ + 4 * k_, (r) m[a_][k_], (be));
#define BK_ENC_PAD(r, m, n, d, off, be) memset((d) + (off), 0, (n));
#define BK_ENC_DEFAULT(r, m, n, d, off, be)
#define BK_ENC_U16MASK(r, m, n, d, off, be) wr_u16((d) + (off), (uint16_t)(r) m, (be));
#define BK_ENC_U32MASK(r, m, n, d, off, be) wr_u32((d) + (off), (uint32_t)(r) m, (be));
#define BK_ENC_AREAFLAGS16(r, m, n, d, off, be)                                                        \
    wr_u16((d) + (off), (uint16_t)((uint32_t)(r) m.area | ((uint32_t)(r) m.flags << 9)), (be));
#define BK_ENC_AREAFLAGS32(r, m, n, d, off, be)                                                        \
    wr_u32((d) + (off), (uint32_t)(r) m.area | ((uint32_t)(r) m.flags << 17), (be));
#define BK_ENC_FCRO16(r, m, n, d, off, be)                                                             \
    wr_u16((d) + (off), (uint16_t)((r) m.face_count | (r) m.render_order << 14), (be));
#define BK_ENC_DISPEDGES(r, m, n, d, off, be)                                                          \
    for (int e_ = 0; e_ < 4; e_++)                                                                     \
        for (int s_ = 0; s_ < 2; s_++) {                                                               \
            uint8_t *q_ = (d) + (off) + ((n) + 4) * (2 * e_ + s_);                                     \
            bk_wr_neighbor(q_, (n), (r) m.edge_neighbor[e_][s_], (be));                                \
            q_[(n)] = (r) m.edge_neighbor_orientation[e_][s_];                                         \
            q_[(n) + 1] = (r) m.edge_span[e_][s_];                                                     \
            q_[(n) + 2] = (r) m.edge_neighbor_span[e_][s_];                                            \
            q_[(n) + 3] = 0;                                                                           \
        }
#define BK_ENC_DISPCORNERS(r, m, n, d, off, be)                                                        \
    for (int c_ = 0; c_ < 4; c_++) {                                                                   \
        uint8_t *q_ = (d) + (off) + 5 * (n) * c_;                                                      \
        for (int k_ = 0; k_ < 4; k_++)                                                                 \
            bk_wr_neighbor(q_ + (n) * k_, (n), (r) m.corner_neighbors[c_][k_], (be));                  \
        q_[4 * (n)] = (r) m.corner_neighbor_count[c_];                                                 \
        memset(q_ + 4 * (n) + 1, 0, (n) - 1);                                                          \
    }
#define BK_ENC_RGBEXPA(rec, m, n, d, off, be)                                                          \
    for (int k_ = 0; k_ < (n); k_++) {                                                                 \
        uint8_t *c_ = (d) + (off) + 4 * k_;                                                            \
        c_[0] = (rec) m[k_].r;                                                                         \
        c_[1] = (rec) m[k_].g;                                                                         \
        c_[2] = (rec) m[k_].b;                                                                         \
        c_[3] = (uint8_t)(rec) m[k_].exponent;                                                         \
    }
#define BK_ENC_SKIP16(r, m, n, d, off, be) memset((d) + (off), 0, 2 * (n));
#define BK_ENC_SKIP32(r, m, n, d, off, be) memset((d) + (off), 0, 4 * (n));
#define BK_ENC_ABSENT(r, m, n, d, off, be)
#define BK_ENC_ABSENT_ARRAY(r, m, n, d, off, be)
#define BK_ENC_CHARS(r, m, n, d, off, be)                                                              \
    memset((d) + (off), 0, (n));                                                                       \
    memcpy((d) + (off), (r) m, strnlen((r) m, (n)));

/* Reverses the bytes of `count` elements of `width` bytes at p. */
static inline void bk_swap_elements(uint8_t *p, int width, size_t count)
{
    if (width == 2)
        for (size_t i = 0; i < count; i++, p += 2)
            wr_be16(p, rd_le16(p));
    else if (width == 4)
        for (size_t i = 0; i < count; i++, p += 4)
            wr_be32(p, rd_le32(p));
}

/* Byte-order conversion in place of the field at p: each element reversed by
 * its width; single bytes are left alone. */
#define BK_SWAP_NONE(p, n)
#define BK_SWAP_16(p, count) bk_swap_elements((p), 2, (count));
#define BK_SWAP_32(p, count) bk_swap_elements((p), 4, (count));
#define BK_SWAP_U8(p, n) BK_SWAP_NONE(p, n)
#define BK_SWAP_I8(p, n) BK_SWAP_NONE(p, n)
#define BK_SWAP_I16(p, n) BK_SWAP_16(p, 1)
#define BK_SWAP_U16(p, n) BK_SWAP_16(p, 1)
#define BK_SWAP_I32(p, n) BK_SWAP_32(p, 1)
#define BK_SWAP_U32(p, n) BK_SWAP_32(p, 1)
#define BK_SWAP_F32(p, n) BK_SWAP_32(p, 1)
#define BK_SWAP_U8A(p, n) BK_SWAP_NONE(p, n)
#define BK_SWAP_I16A(p, n) BK_SWAP_16(p, n)
#define BK_SWAP_U16A(p, n) BK_SWAP_16(p, n)
#define BK_SWAP_I32A(p, n) BK_SWAP_32(p, n)
#define BK_SWAP_U32A(p, n) BK_SWAP_32(p, n)
#define BK_SWAP_F32A(p, n) BK_SWAP_32(p, n)
#define BK_SWAP_VEC3(p, n) BK_SWAP_32(p, 3)
#define BK_SWAP_VEC3A(p, n) BK_SWAP_32(p, 3 * (n))
#define BK_SWAP_BMIN16(p, n) BK_SWAP_16(p, 3)
#define BK_SWAP_BMAX16(p, n) BK_SWAP_16(p, 3)
#define BK_SWAP_BMIN32(p, n) BK_SWAP_32(p, 3)
#define BK_SWAP_BMAX32(p, n) BK_SWAP_32(p, 3)
#define BK_SWAP_BOOL16(p, n) BK_SWAP_16(p, 1)
#define BK_SWAP_BOOL32(p, n) BK_SWAP_32(p, 1)
#define BK_SWAP_MAT24(p, n) BK_SWAP_32(p, 8)
#define BK_SWAP_U16MASK(p, n) BK_SWAP_16(p, 1)
#define BK_SWAP_U32MASK(p, n) BK_SWAP_32(p, 1)
/* The Xbox 360 headers declare the area/flags bit-field low-bit-first, so
 * swapping the whole integer keeps both fields. */
#define BK_SWAP_AREAFLAGS16(p, n) BK_SWAP_16(p, 1)
#define BK_SWAP_AREAFLAGS32(p, n) BK_SWAP_32(p, 1)
#define BK_SWAP_FCRO16(p, n) BK_SWAP_16(p, 1)
#define BK_SWAP_RGBEXPA(p, n) BK_SWAP_NONE(p, n)
#define BK_SWAP_PAD(p, n) BK_SWAP_NONE(p, n)
#define BK_SWAP_SKIP16(p, n) BK_SWAP_16(p, n)
#define BK_SWAP_SKIP32(p, n) BK_SWAP_32(p, n)
#define BK_SWAP_DEFAULT(p, n) BK_SWAP_NONE(p, n)
#define BK_SWAP_ABSENT(p, n) BK_SWAP_NONE(p, n)
#define BK_SWAP_ABSENT_ARRAY(p, n) BK_SWAP_NONE(p, n)
#define BK_SWAP_CHARS(p, n) BK_SWAP_NONE(p, n)
/* Neighbour records: only the index is wider than a byte. */
#define BK_SWAP_DISPEDGES(p, n)                                                                        \
    for (int k_ = 0; k_ < 8; k_++)                                                                     \
        bk_swap_elements((p) + ((n) + 4) * k_, (n), 1);
#define BK_SWAP_DISPCORNERS(p, n)                                                                      \
    for (int k_ = 0; k_ < 4; k_++)                                                                     \
        bk_swap_elements((p) + 5 * (n) * k_, (n), 4);

/* Dump field type of a native value, chosen by its C type. */
#define BK_FIELD_TYPE_OF(x)                                                                            \
    _Generic((x),                                                                                      \
        float: BSPKIT_FIELD_F32,                                                                       \
        int32_t: BSPKIT_FIELD_I32,                                                                     \
        uint32_t: BSPKIT_FIELD_U32,                                                                    \
        int16_t: BSPKIT_FIELD_I16,                                                                     \
        uint16_t: BSPKIT_FIELD_U16,                                                                    \
        uint8_t: BSPKIT_FIELD_U8,                                                                      \
        bool: BSPKIT_FIELD_BOOL,                                                                       \
        bspkit_vec3: BSPKIT_FIELD_VEC3,                                                                \
        bspkit_rgbexp: BSPKIT_FIELD_RGBEXP)

/* Dump entries: the native record wrapped as member `x` of type BK_W_ so
 * that offsetof takes the member path, and an empty path names the record
 * itself. */
#define BK_DUMP_ONE(W, m, n, name) {(name), BK_FIELD_TYPE_OF(((W *)0)->x m), (uint32_t)offsetof(W, x m), 1},
#define BK_DUMP_ARR(W, m, n, name) {(name), BK_FIELD_TYPE_OF(((W *)0)->x m[0]), (uint32_t)offsetof(W, x m), (n)},
#define BK_DUMP_U8(W, m, n, name) BK_DUMP_ONE(W, m, n, name)
#define BK_DUMP_I8(W, m, n, name) BK_DUMP_ONE(W, m, n, name)
#define BK_DUMP_I16(W, m, n, name) BK_DUMP_ONE(W, m, n, name)
#define BK_DUMP_U16(W, m, n, name) BK_DUMP_ONE(W, m, n, name)
#define BK_DUMP_I32(W, m, n, name) BK_DUMP_ONE(W, m, n, name)
#define BK_DUMP_U32(W, m, n, name) BK_DUMP_ONE(W, m, n, name)
#define BK_DUMP_F32(W, m, n, name) BK_DUMP_ONE(W, m, n, name)
#define BK_DUMP_U8A(W, m, n, name) BK_DUMP_ARR(W, m, n, name)
#define BK_DUMP_I16A(W, m, n, name) BK_DUMP_ARR(W, m, n, name)
#define BK_DUMP_U16A(W, m, n, name) BK_DUMP_ARR(W, m, n, name)
#define BK_DUMP_I32A(W, m, n, name) BK_DUMP_ARR(W, m, n, name)
#define BK_DUMP_U32A(W, m, n, name) BK_DUMP_ARR(W, m, n, name)
#define BK_DUMP_F32A(W, m, n, name) BK_DUMP_ARR(W, m, n, name)
#define BK_DUMP_VEC3(W, m, n, name) BK_DUMP_ONE(W, m, n, name)
#define BK_DUMP_VEC3A(W, m, n, name) BK_DUMP_ARR(W, m, n, name)
#define BK_DUMP_BMIN16(W, m, n, name) BK_DUMP_ONE(W, m, n, name)
#define BK_DUMP_BMAX16(W, m, n, name) BK_DUMP_ONE(W, m, n, name)
#define BK_DUMP_BMIN32(W, m, n, name) BK_DUMP_ONE(W, m, n, name)
#define BK_DUMP_BMAX32(W, m, n, name) BK_DUMP_ONE(W, m, n, name)
#define BK_DUMP_BOOL16(W, m, n, name) BK_DUMP_ONE(W, m, n, name)
#define BK_DUMP_BOOL32(W, m, n, name) BK_DUMP_ONE(W, m, n, name)
#define BK_DUMP_MAT24(W, m, n, name) {(name), BSPKIT_FIELD_F32, (uint32_t)offsetof(W, x m), 8},
#define BK_DUMP_PAD(W, m, n, name)
#define BK_DUMP_DEFAULT(W, m, n, name)
#define BK_DUMP_U16MASK(W, m, n, name) BK_DUMP_ONE(W, m, n, name)
#define BK_DUMP_U32MASK(W, m, n, name) BK_DUMP_ONE(W, m, n, name)
#define BK_DUMP_AREAFLAGS16(W, m, n, name) BK_DUMP_ONE(W, m.area, 1, "area") BK_DUMP_ONE(W, m.flags, 1, "flags")
#define BK_DUMP_AREAFLAGS32(W, m, n, name) BK_DUMP_ONE(W, m.area, 1, "area") BK_DUMP_ONE(W, m.flags, 1, "flags")
#define BK_DUMP_FCRO16(W, m, n, name)                                                                  \
    BK_DUMP_ONE(W, m.face_count_and_render_order, 1, name)                                             \
    BK_DUMP_ONE(W, m.face_count, 1, "FaceCount") BK_DUMP_ONE(W, m.render_order, 1, "RenderOrder")
/* Neighbour columns: the name followed by the member's document name ("EdgeNeighbors.m_Span"). */
#define BK_DUMP_COLUMN(W, path, first, n, name) {(name), BK_FIELD_TYPE_OF(((W *)0)->x first), (uint32_t)offsetof(W, x path), (n)},
#define BK_DUMP_DISPEDGES(W, m, n, name)                                                               \
    BK_DUMP_COLUMN(W, m.edge_neighbor, m.edge_neighbor[0][0], 8, name ".m_iNeighbor")                  \
    BK_DUMP_COLUMN(W, m.edge_neighbor_orientation, m.edge_neighbor_orientation[0][0], 8,               \
                   name ".m_NeighborOrientation")                                                      \
    BK_DUMP_COLUMN(W, m.edge_span, m.edge_span[0][0], 8, name ".m_Span")                               \
    BK_DUMP_COLUMN(W, m.edge_neighbor_span, m.edge_neighbor_span[0][0], 8, name ".m_NeighborSpan")
#define BK_DUMP_DISPCORNERS(W, m, n, name)                                                             \
    BK_DUMP_COLUMN(W, m.corner_neighbors, m.corner_neighbors[0][0], 16, name ".m_Neighbors")           \
    BK_DUMP_COLUMN(W, m.corner_neighbor_count, m.corner_neighbor_count[0], 4, name ".m_nNeighbors")
#define BK_DUMP_RGBEXPA(W, m, n, name) BK_DUMP_ARR(W, m, n, name)
#define BK_DUMP_SKIP16(W, m, n, name)
#define BK_DUMP_SKIP32(W, m, n, name)
#define BK_DUMP_ABSENT(W, m, n, name) BK_DUMP_ONE(W, m, n, name)
#define BK_DUMP_ABSENT_ARRAY(W, m, n, name)                                                            \
    BK_DUMP_ARR(W, m, sizeof(((W *)0)->x m) / sizeof(((W *)0)->x m[0]), name)

#define BK_DUMP_CHARS(W, m, n, name)                                                                   \
    {(name), BSPKIT_FIELD_CHARS, (uint32_t)offsetof(W, x m), (uint32_t)sizeof(((W *)0)->x m)},

/* ---- decoding by copying --------------------------------------------------
 * What a field's file bytes, read little-endian, are to its native member:
 * BK_FIT_SAME when they are the member's own bytes at the same offset (a
 * 4-byte integer or float into a member of that very type, 3-float
 * vectors, arrays of those, single bytes); BK_FIT_WIDE when a 16-bit
 * unsigned index is held as 32 bits at twice its offset (edges, leaf faces
 * and brushes, marksurfaces); 0 when the field converts, widens otherwise,
 * masks, skips or defaults. When every field of a record fits the same
 * way, with nothing between or after them, a little-endian host decodes
 * the whole lump by copying or by widening it. The checks are on the
 * native type's members, so a layout that drifts from the file's falls
 * back to the field-by-field decode by itself. */
enum { BK_FIT_SAME = 1, BK_FIT_WIDE = 2 };
#define BK_FIT_TYPE(W, e, T) _Generic(((W *)0)->x e, T: 1, default: 0)
#define BK_FIT_SCALAR(W, m, at, T, fit) ((offsetof(W, x m) == (at) && BK_FIT_TYPE(W, m, T)) ? (fit) : 0)
#define BK_FIT_ARRAY(W, m, n, at, T, fit)                                                              \
    ((offsetof(W, x m) == (at) && BK_FIT_TYPE(W, m[0], T) && sizeof(((W *)0)->x m) == sizeof(T) * (size_t)(n)) \
         ? (fit)                                                                                       \
         : 0)
#define BK_FIT_U8(W, m, n, off) BK_FIT_SCALAR(W, m, off, uint8_t, BK_FIT_SAME)
#define BK_FIT_I8(W, m, n, off) BK_FIT_SCALAR(W, m, off, int8_t, BK_FIT_SAME)
#define BK_FIT_I32(W, m, n, off) BK_FIT_SCALAR(W, m, off, int32_t, BK_FIT_SAME)
#define BK_FIT_U32(W, m, n, off) BK_FIT_SCALAR(W, m, off, uint32_t, BK_FIT_SAME)
#define BK_FIT_F32(W, m, n, off) BK_FIT_SCALAR(W, m, off, float, BK_FIT_SAME)
#define BK_FIT_VEC3(W, m, n, off) BK_FIT_SCALAR(W, m, off, bspkit_vec3, BK_FIT_SAME)
#define BK_FIT_U8A(W, m, n, off) BK_FIT_ARRAY(W, m, n, off, uint8_t, BK_FIT_SAME)
#define BK_FIT_I32A(W, m, n, off) BK_FIT_ARRAY(W, m, n, off, int32_t, BK_FIT_SAME)
#define BK_FIT_U32A(W, m, n, off) BK_FIT_ARRAY(W, m, n, off, uint32_t, BK_FIT_SAME)
#define BK_FIT_F32A(W, m, n, off) BK_FIT_ARRAY(W, m, n, off, float, BK_FIT_SAME)
#define BK_FIT_VEC3A(W, m, n, off) BK_FIT_ARRAY(W, m, n, off, bspkit_vec3, BK_FIT_SAME)
#define BK_FIT_U16(W, m, n, off) BK_FIT_SCALAR(W, m, 2 * (off), uint32_t, BK_FIT_WIDE)
#define BK_FIT_U16A(W, m, n, off) BK_FIT_ARRAY(W, m, n, 2 * (off), uint32_t, BK_FIT_WIDE)
#define BK_FIT_I16(W, m, n, off) 0
#define BK_FIT_I16A(W, m, n, off) 0
#define BK_FIT_BMIN16(W, m, n, off) 0
#define BK_FIT_BMAX16(W, m, n, off) 0
#define BK_FIT_BMIN32(W, m, n, off) 0
#define BK_FIT_BMAX32(W, m, n, off) 0
#define BK_FIT_BOOL16(W, m, n, off) 0
#define BK_FIT_BOOL32(W, m, n, off) 0
#define BK_FIT_MAT24(W, m, n, off) 0
#define BK_FIT_PAD(W, m, n, off) 0
#define BK_FIT_DEFAULT(W, m, n, off) 0
#define BK_FIT_U16MASK(W, m, n, off) 0
#define BK_FIT_U32MASK(W, m, n, off) 0
#define BK_FIT_AREAFLAGS16(W, m, n, off) 0
#define BK_FIT_AREAFLAGS32(W, m, n, off) 0
#define BK_FIT_FCRO16(W, m, n, off) 0
#define BK_FIT_DISPEDGES(W, m, n, off) 0
#define BK_FIT_DISPCORNERS(W, m, n, off) 0
#define BK_FIT_RGBEXPA(W, m, n, off) 0
#define BK_FIT_SKIP16(W, m, n, off) 0
#define BK_FIT_SKIP32(W, m, n, off) 0
#define BK_FIT_ABSENT(W, m, n, off) 0
#define BK_FIT_ABSENT_ARRAY(W, m, n, off) 0
#define BK_FIT_CHARS(W, m, n, off) 0

/* n little-endian 16-bit values from src into n 32-bit ones at dst; returns
 * the largest (0 for none), which the widening finds for a few ALU steps in
 * a loop bound by its stores, and which spares validation another pass over
 * an index array. */
BK_ALWAYS_INLINE uint16_t bk_widen_u16_le_sse2(const uint8_t *src, size_t n, uint32_t *dst)
{
    size_t i = 0;
    uint16_t max = 0;
#if defined(__SSE2__)
    const __m128i zero = _mm_setzero_si128();
    /* SSE2 compares 16-bit lanes signed: with the top bit flipped, signed
     * order is unsigned order. */
    const __m128i flip = _mm_set1_epi16((short)0x8000);
    __m128i most = _mm_set1_epi16((short)0x8000); /* 0, flipped */
    for (; i + 8 <= n; i += 8) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(src + 2 * i));
        _mm_storeu_si128((__m128i *)(void *)(dst + i), _mm_unpacklo_epi16(v, zero));
        _mm_storeu_si128((__m128i *)(void *)(dst + i + 4), _mm_unpackhi_epi16(v, zero));
        most = _mm_max_epi16(most, _mm_xor_si128(v, flip));
    }
    most = _mm_max_epi16(most, _mm_srli_si128(most, 8));
    most = _mm_max_epi16(most, _mm_srli_si128(most, 4));
    most = _mm_max_epi16(most, _mm_srli_si128(most, 2));
    max = (uint16_t)((uint16_t)_mm_cvtsi128_si32(most) ^ 0x8000u);
#endif
    for (; i < n; i++) {
        uint16_t v = rd_le16(src + 2 * i);
        dst[i] = v;
        max = v > max ? v : max;
    }
    return max;
}

#if BK_CPU_AVX2
/* The same sixteen values a step: two 32-byte stores where SSE2 takes four
 * 16-byte ones (the loop is bound by its stores). */
__attribute__((target("avx2"))) static inline uint16_t bk_widen_u16_le_avx2(const uint8_t *src, size_t n, uint32_t *dst)
{
    size_t i = 0;
    const __m256i flip = _mm256_set1_epi16((short)0x8000);
    __m256i most = flip; /* 0, flipped */
    for (; i + 16 <= n; i += 16) {
        const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(src + 2 * i));
        _mm256_storeu_si256((__m256i *)(void *)(dst + i), _mm256_cvtepu16_epi32(_mm256_castsi256_si128(v)));
        _mm256_storeu_si256((__m256i *)(void *)(dst + i + 8), _mm256_cvtepu16_epi32(_mm256_extracti128_si256(v, 1)));
        most = _mm256_max_epi16(most, _mm256_xor_si256(v, flip));
    }
    __m128i m = _mm_max_epi16(_mm256_castsi256_si128(most), _mm256_extracti128_si256(most, 1));
    m = _mm_max_epi16(m, _mm_srli_si128(m, 8));
    m = _mm_max_epi16(m, _mm_srli_si128(m, 4));
    m = _mm_max_epi16(m, _mm_srli_si128(m, 2));
    uint16_t max = (uint16_t)((uint16_t)_mm_cvtsi128_si32(m) ^ 0x8000u);
    uint16_t rest = bk_widen_u16_le_sse2(src + 2 * i, n - i, dst + i);
    return rest > max ? rest : max;
}
#endif

static inline uint16_t bk_widen_u16_le(const uint8_t *src, size_t n, uint32_t *dst)
{
#if BK_CPU_AVX2
    if (n >= 64 && bk_cpu_has_avx2())
        return bk_widen_u16_le_avx2(src, n, dst);
#endif
    return bk_widen_u16_le_sse2(src, n, dst);
}

/* Whether the fields write every byte of [at, at + len), a range of a
 * record: bytes past the first 128 are never marked as written. */
static inline bool bk_fill_covers(bk_fill f, size_t at, size_t len)
{
    return at + len <= 128 && bk_fill_has(f, at, len);
}

/* Clears the bytes of one native record of `size` bytes (a constant) that
 * its fields leave alone (`fill`: bytes it does not mark are cleared), before
 * the fields are decoded over it. Sixteen-byte stores at constant offsets of
 * the pieces holding such a byte, not memset or a loop (which compilers turn
 * back into memset): for records of 80 bytes and more memset becomes
 * `rep stos`, whose start-up costs more than decoding the record. A record
 * whose fields write every byte is not touched. */
BK_ALWAYS_INLINE void bk_zero_unfilled(void *p, size_t size, bk_fill fill)
{
    if (bk_fill_covers(fill, 0, size))
        return;
#if defined(__SSE2__)
    unsigned char *b = p;
    if (size < 16) {
        memset(p, 0, size);
        return;
    }
    const __m128i zero = _mm_setzero_si128();
#define BK_ZERO16(at)                                                                                  \
    if ((at) + 16 <= size && (at) < 256 && !bk_fill_covers(fill, (at), 16))                            \
        _mm_storeu_si128((__m128i *)(void *)(b + (at)), zero);
    BK_ZERO16(0) BK_ZERO16(16) BK_ZERO16(32) BK_ZERO16(48) BK_ZERO16(64) BK_ZERO16(80) BK_ZERO16(96)
    BK_ZERO16(112) BK_ZERO16(128) BK_ZERO16(144) BK_ZERO16(160) BK_ZERO16(176) BK_ZERO16(192)
    BK_ZERO16(208) BK_ZERO16(224) BK_ZERO16(240)
#undef BK_ZERO16
    if (size > 256)
        memset(b + 256, 0, size - 256);
    else if (size % 16 && !bk_fill_covers(fill, size - size % 16, size % 16))
        _mm_storeu_si128((__m128i *)(void *)(b + size - 16), zero); /* the last 16 bytes again, overlapping */
#else
    memset(p, 0, size);
#endif
}

/* ---- shuffle plans (core/schema_plan.h) -----------------------------------
 * What each field kind's decoder writes, as plan marks: `r_` is the
 * template record (zero but for the defaults), `mk_` the marks. Kinds a
 * shuffle cannot express are marked as written after the pieces
 * (bk_plan_fixed) and decoded there by their BK_DEC_* (BK_FIX_*). */
#define BK_MOFF(m) ((size_t)((const char *)&(r_ m) - (const char *)&r_))
#define BK_IS_INT(x) _Generic((x), float: 0, double: 0, bool: 0, default: 1)
#define BK_IS_FLOAT(x) _Generic((x), float: 1, default: 0)
#define BK_PLAN_INTS(at, e, n, off, w, sgn, be, flt)                                                   \
    if ((flt) ? BK_IS_FLOAT(e) : BK_IS_INT(e))                                                         \
        bk_plan_ints(&mk_, (at), (flt) ? 4 : sizeof(e), (size_t)(n), (off), (w), (sgn), (be), (flt));  \
    else                                                                                               \
        mk_.bad = true;
#define BK_PLAN_FLOATS(at, e, n, off, be)                                                              \
    if (BK_IS_FLOAT(e))                                                                                \
        bk_plan_ints(&mk_, (at), 4, (size_t)(n), (off), 4, false, (be), false);                        \
    else                                                                                               \
        mk_.bad = true;
#define BK_PLAN_U8(m, n, off, be) BK_PLAN_INTS(BK_MOFF(m), r_ m, 1, off, 1, false, be, false)
#define BK_PLAN_I8(m, n, off, be) BK_PLAN_INTS(BK_MOFF(m), r_ m, 1, off, 1, true, be, false)
#define BK_PLAN_I16(m, n, off, be) BK_PLAN_INTS(BK_MOFF(m), r_ m, 1, off, 2, true, be, false)
#define BK_PLAN_U16(m, n, off, be) BK_PLAN_INTS(BK_MOFF(m), r_ m, 1, off, 2, false, be, false)
#define BK_PLAN_I32(m, n, off, be) BK_PLAN_INTS(BK_MOFF(m), r_ m, 1, off, 4, true, be, false)
#define BK_PLAN_U32(m, n, off, be) BK_PLAN_INTS(BK_MOFF(m), r_ m, 1, off, 4, false, be, false)
#define BK_PLAN_F32(m, n, off, be) BK_PLAN_FLOATS(BK_MOFF(m), r_ m, 1, off, be)
/* A byte copy: elements of one byte only. */
#define BK_PLAN_U8A(m, n, off, be)                                                                     \
    if (sizeof((r_ m)[0]) == 1)                                                                        \
        bk_plan_ints(&mk_, BK_MOFF(m), 1, (size_t)(n), (off), 1, false, false, false);                 \
    else                                                                                               \
        mk_.bad = true;
#define BK_PLAN_I16A(m, n, off, be) BK_PLAN_INTS(BK_MOFF(m), (r_ m)[0], n, off, 2, true, be, false)
#define BK_PLAN_U16A(m, n, off, be) BK_PLAN_INTS(BK_MOFF(m), (r_ m)[0], n, off, 2, false, be, false)
#define BK_PLAN_I32A(m, n, off, be) BK_PLAN_INTS(BK_MOFF(m), (r_ m)[0], n, off, 4, true, be, false)
#define BK_PLAN_U32A(m, n, off, be) BK_PLAN_INTS(BK_MOFF(m), (r_ m)[0], n, off, 4, false, be, false)
#define BK_PLAN_F32A(m, n, off, be) BK_PLAN_FLOATS(BK_MOFF(m), (r_ m)[0], n, off, be)
#define BK_PLAN_VEC3(m, n, off, be)                                                                    \
    BK_PLAN_FLOATS(BK_MOFF(m.x), r_ m.x, 1, off, be)                                                   \
    BK_PLAN_FLOATS(BK_MOFF(m.y), r_ m.y, 1, (off) + 4, be)                                             \
    BK_PLAN_FLOATS(BK_MOFF(m.z), r_ m.z, 1, (off) + 8, be)
#define BK_PLAN_VEC3A(m, n, off, be)                                                                   \
    for (int k_ = 0; k_ < (n); k_++) {                                                                 \
        BK_PLAN_VEC3(m[k_], 1, (off) + 12 * k_, be)                                                    \
    }
#define BK_PLAN_BOUNDS(m, off, w, be)                                                                  \
    BK_PLAN_INTS(BK_MOFF(m.x), r_ m.x, 1, off, w, true, be, true)                                      \
    BK_PLAN_INTS(BK_MOFF(m.y), r_ m.y, 1, (off) + (w), w, true, be, true)                              \
    BK_PLAN_INTS(BK_MOFF(m.z), r_ m.z, 1, (off) + 2 * (w), w, true, be, true)
#define BK_PLAN_BMIN16(m, n, off, be) BK_PLAN_BOUNDS(m, off, 2, be)
#define BK_PLAN_BMAX16(m, n, off, be) BK_PLAN_BOUNDS(m, off, 2, be)
#define BK_PLAN_BMIN32(m, n, off, be) BK_PLAN_BOUNDS(m, off, 4, be)
#define BK_PLAN_BMAX32(m, n, off, be) BK_PLAN_BOUNDS(m, off, 4, be)
#define BK_PLAN_MAT24(m, n, off, be) BK_PLAN_FLOATS(BK_MOFF(m), (r_ m)[0][0], 8, off, be)
#define BK_PLAN_FIXED(m) bk_plan_fixed(&mk_, BK_MOFF(m), sizeof(r_ m));
#define BK_PLAN_BOOL16(m, n, off, be) BK_PLAN_FIXED(m)
#define BK_PLAN_BOOL32(m, n, off, be) BK_PLAN_FIXED(m)
#define BK_PLAN_U16MASK(m, n, off, be) BK_PLAN_FIXED(m)
#define BK_PLAN_U32MASK(m, n, off, be) BK_PLAN_FIXED(m)
#define BK_PLAN_AREAFLAGS16(m, n, off, be) BK_PLAN_FIXED(m.area) BK_PLAN_FIXED(m.flags)
#define BK_PLAN_AREAFLAGS32(m, n, off, be) BK_PLAN_FIXED(m.area) BK_PLAN_FIXED(m.flags)
#define BK_PLAN_FCRO16(m, n, off, be)                                                                  \
    BK_PLAN_FIXED(m.face_count_and_render_order) BK_PLAN_FIXED(m.face_count) BK_PLAN_FIXED(m.render_order)
#define BK_PLAN_DISPEDGES(m, n, off, be)                                                               \
    BK_PLAN_FIXED(m.edge_neighbor) BK_PLAN_FIXED(m.edge_neighbor_orientation) BK_PLAN_FIXED(m.edge_span) \
    BK_PLAN_FIXED(m.edge_neighbor_span)
#define BK_PLAN_DISPCORNERS(m, n, off, be) BK_PLAN_FIXED(m.corner_neighbors) BK_PLAN_FIXED(m.corner_neighbor_count)
#define BK_PLAN_RGBEXPA(m, n, off, be) bk_plan_fixed(&mk_, BK_MOFF(m), (size_t)(n) * sizeof((r_ m)[0]));
#define BK_PLAN_PAD(m, n, off, be)
#define BK_PLAN_SKIP16(m, n, off, be)
#define BK_PLAN_SKIP32(m, n, off, be)
#define BK_PLAN_DEFAULT(m, n, off, be)                                                                 \
    r_ m = (n);                                                                                        \
    bk_plan_template(&mk_, BK_MOFF(m), sizeof(r_ m));
#define BK_PLAN_ABSENT(m, n, off, be) BK_PLAN_DEFAULT(m, n, off, be)
#define BK_PLAN_ABSENT_ARRAY(m, n, off, be)                                                            \
    memset(r_ m, (n), sizeof r_ m);                                                                    \
    bk_plan_template(&mk_, BK_MOFF(m), sizeof(r_ m));
/* n bytes of text, then zeros to the member's end (its NUL and the bytes
 * the field-by-field decoder leaves cleared). */
#define BK_PLAN_CHARS(m, n, off, be)                                                                   \
    bk_plan_ints(&mk_, BK_MOFF(m), 1, (size_t)(n), (off), 1, false, false, false);                     \
    bk_plan_zero(&mk_, BK_MOFF(m) + (n), sizeof(r_ m) - (n));

/* The fields decoded after the pieces: those marked with BK_PLAN_FIXED. */
#define BK_FIX_U8(o, m, n, p, off, be)
#define BK_FIX_I8(o, m, n, p, off, be)
#define BK_FIX_I16(o, m, n, p, off, be)
#define BK_FIX_U16(o, m, n, p, off, be)
#define BK_FIX_I32(o, m, n, p, off, be)
#define BK_FIX_U32(o, m, n, p, off, be)
#define BK_FIX_F32(o, m, n, p, off, be)
#define BK_FIX_U8A(o, m, n, p, off, be)
#define BK_FIX_I16A(o, m, n, p, off, be)
#define BK_FIX_U16A(o, m, n, p, off, be)
#define BK_FIX_I32A(o, m, n, p, off, be)
#define BK_FIX_U32A(o, m, n, p, off, be)
#define BK_FIX_F32A(o, m, n, p, off, be)
#define BK_FIX_VEC3(o, m, n, p, off, be)
#define BK_FIX_VEC3A(o, m, n, p, off, be)
#define BK_FIX_BMIN16(o, m, n, p, off, be)
#define BK_FIX_BMAX16(o, m, n, p, off, be)
#define BK_FIX_BMIN32(o, m, n, p, off, be)
#define BK_FIX_BMAX32(o, m, n, p, off, be)
#define BK_FIX_MAT24(o, m, n, p, off, be)
#define BK_FIX_BOOL16 BK_DEC_BOOL16
#define BK_FIX_BOOL32 BK_DEC_BOOL32
#define BK_FIX_U16MASK BK_DEC_U16MASK
#define BK_FIX_U32MASK BK_DEC_U32MASK
#define BK_FIX_AREAFLAGS16 BK_DEC_AREAFLAGS16
#define BK_FIX_AREAFLAGS32 BK_DEC_AREAFLAGS32
#define BK_FIX_FCRO16 BK_DEC_FCRO16
#define BK_FIX_DISPEDGES BK_DEC_DISPEDGES
#define BK_FIX_DISPCORNERS BK_DEC_DISPCORNERS
#define BK_FIX_RGBEXPA BK_DEC_RGBEXPA
#define BK_FIX_PAD(o, m, n, p, off, be)
#define BK_FIX_SKIP16(o, m, n, p, off, be)
#define BK_FIX_SKIP32(o, m, n, p, off, be)
#define BK_FIX_DEFAULT(o, m, n, p, off, be)
#define BK_FIX_ABSENT(o, m, n, p, off, be)
#define BK_FIX_ABSENT_ARRAY(o, m, n, p, off, be)
#define BK_FIX_CHARS(o, m, n, p, off, be)

#define BK_GEN_PLAN(K, m, n, name)                                                                     \
    BK_PLAN_##K(m, n, off_, be)                                                                        \
    off_ += BK_SZ_##K(n);
#define BK_GEN_FIXUP(K, m, n, name)                                                                    \
    BK_FIX_##K(*ro_, m, n, rs_, off_, be)                                                              \
    off_ += BK_SZ_##K(n);

#if BK_CPU_AVX2
/* The plan and its decoder of schema `id`: the pieces of each record, then
 * its fields no shuffle expresses. */
#define BK_SCHEMA_PLAN(id, T, size, FIELDS)                                                            \
    static bk_plan_cache id##_plans;                                                                   \
    static bool id##_plan(bk_plan *p, bool be)                                                         \
    {                                                                                                  \
        enum { group_ = BK_PLAN_GROUP(T) };                                                            \
        T r_;                                                                                          \
        memset(&r_, 0, sizeof r_);                                                                     \
        bk_plan_marks mk_;                                                                             \
        bk_plan_marks_start(&mk_, group_ * sizeof r_);                                                 \
        uint8_t template_[group_ * sizeof(T)];                                                         \
        for (size_t g_ = 0; g_ < group_; g_++) {                                                       \
            mk_.dst_base = g_ * sizeof(T);                                                             \
            mk_.src_base = g_ * (size);                                                                \
            size_t off_ = 0;                                                                           \
            FIELDS(BK_GEN_PLAN)                                                                        \
            (void)off_;                                                                                \
            memcpy(template_ + g_ * sizeof(T), &r_, sizeof r_);                                        \
        }                                                                                              \
        (void)be;                                                                                      \
        return bk_plan_build(p, &mk_, template_, group_ * (size));                                     \
    }                                                                                                  \
    __attribute__((target("avx2"))) static inline __attribute__((always_inline)) void id##_plan_loop(  \
        const bk_plan *p, const uint8_t *src, size_t count, bool be, T *o_, bool full)                 \
    {                                                                                                  \
        /* (groups over BK_PLAN_BYTES never have a plan) */                                            \
        enum { group_ = BK_PLAN_GROUP(T) };                                                            \
        enum { size_ = group_ * sizeof(T) <= BK_PLAN_BYTES ? group_ * sizeof(T) : 16 };                \
        bk_plan_vectors pv_[BK_PLAN_PIECES];                                                           \
        bk_plan_load(p, pv_, size_);                                                                   \
        for (size_t i_ = 0; i_ + group_ <= count; i_ += group_, o_ += group_, src += group_ * (size)) { \
            bk_plan_record(pv_, src, (uint8_t *)(void *)o_, size_, full);                              \
            for (size_t g_ = 0; g_ < group_; g_++) {                                                   \
                T *ro_ = o_ + g_;                                                                      \
                const uint8_t *rs_ = src + g_ * (size);                                                \
                size_t off_ = 0;                                                                       \
                FIELDS(BK_GEN_FIXUP)                                                                   \
                (void)off_;                                                                            \
                (void)ro_;                                                                             \
                (void)rs_;                                                                             \
            }                                                                                          \
        }                                                                                              \
        (void)be;                                                                                      \
    }                                                                                                  \
    __attribute__((target("avx2"))) static void id##_plan_rows(const bk_plan *p, const uint8_t *src,    \
                                                               size_t count, bool be, T *o_)           \
    {                                                                                                  \
        if (p->sign || p->floats)                                                                      \
            id##_plan_loop(p, src, count, be, o_, true);                                               \
        else                                                                                           \
            id##_plan_loop(p, src, count, be, o_, false);                                              \
    }
/* In the decoder: the records the plan decodes, leaving the rest. */
#define BK_SCHEMA_PLAN_FN(id) id##_plan
#define BK_SCHEMA_PLAN_DECODE(id, T, size)                                                             \
    if (BK_HOST_LE && count >= BK_PLAN_MIN_RECORDS && bk_cpu_has_avx2()) {                             \
        const bk_plan *plan_ = bk_plan_get(&id##_plans, be, id##_plan);                                \
        size_t done_ = plan_ ? bk_plan_records(plan_, count, (size), BK_PLAN_GROUP(T)) : 0;          \
        if (done_) {                                                                                   \
            id##_plan_rows(plan_, src, done_, be, dst);                                                \
            src += done_ * (size);                                                                     \
            dst = (T *)dst + done_;                                                                    \
            count -= done_;                                                                            \
        }                                                                                              \
    }
#else
#define BK_SCHEMA_PLAN(id, T, size, FIELDS)
#define BK_SCHEMA_PLAN_FN(id) NULL
#define BK_SCHEMA_PLAN_DECODE(id, T, size)
#endif

/* ---- generators ---------------------------------------------------------- */

/* The member's name for messages: ".first_face" -> "first_face"; the record itself -> "index". */
#define BK_MEMBER_NAME(m) (sizeof(#m) > 1 ? &(#m)[1] : "index")

#define BK_GEN_SIZE(K, m, n, name) +BK_SZ_##K(n)
#define BK_GEN_FILL(K, m, n, name)                                                                     \
    fill_ = bk_fill_add(fill_, (size_t)((const char *)&(r_ m) - (const char *)&r_), BK_FILL_##K(r_ m, n));
#define BK_GEN_DECODE(K, m, n, name)                                                                   \
    BK_DEC_##K(*o_, m, n, src, off_, be)                                                               \
    off_ += BK_SZ_##K(n);
#define BK_GEN_CHECK(K, m, n, name) BK_CHK_##K(*r_, m, n, c, BK_MEMBER_NAME(m))
#define BK_GEN_ENCODE(K, m, n, name)                                                                   \
    BK_ENC_##K(*r_, m, n, d, off_, be)                                                                 \
    off_ += BK_SZ_##K(n);
#define BK_GEN_DUMP(K, m, n, name) BK_DUMP_##K(BK_W_, m, n, name)
#define BK_GEN_FIT(K, m, n, name)                                                                      \
    fit_ &= BK_FIT_##K(BK_W_, m, n, off_);                                                             \
    off_ += BK_SZ_##K(n);
#define BK_GEN_SWAP(K, m, n, name)                                                                     \
    BK_SWAP_##K(p_ + off_, n)                                                                          \
    off_ += BK_SZ_##K(n);


/* Defines `const bk_schema id` (declare it in the family's header) for native type T, `size` file bytes
 * per record, named `rname` in messages, with the fields of FIELDS. */
#define BK_SCHEMA(id, T, size, rname, FIELDS)                                                          \
    _Static_assert((0 FIELDS(BK_GEN_SIZE)) == (size), #id ": fields do not add up to the record size"); \
    /* The bytes the fields write (BK_FILL_*): a constant once inlined. */                           \
    BK_ALWAYS_INLINE bk_fill id##_fill(void)                                                          \
    {                                                                                                  \
        T r_;                                                                                          \
        bk_fill fill_ = {{0, 0}};                                                                      \
        FIELDS(BK_GEN_FILL)                                                                            \
        return fill_;                                                                                  \
    }                                                                                                  \
    BK_ALWAYS_INLINE void id##_decode_rows(const uint8_t *src, size_t count, bool be, T *o_)          \
    {                                                                                                  \
        for (size_t i_ = 0; i_ < count; i_++, o_++, src += (size)) {                                   \
            size_t off_ = 0;                                                                           \
            /* members and padding the fields leave alone */                                          \
            bk_zero_unfilled(o_, sizeof *o_, id##_fill());                                             \
            FIELDS(BK_GEN_DECODE)                                                                      \
            (void)off_;                                                                                \
        }                                                                                              \
        (void)be;                                                                                      \
    }                                                                                                  \
    /* How every field fits (BK_FIT_*): BK_FIT_SAME when the file record is                         \
     * the native one byte for byte, BK_FIT_WIDE when it is 16-bit indices                             \
     * held as 32-bit ones, else 0. */                                                                 \
    static inline int id##_fit(void)                                                                   \
    {                                                                                                  \
        typedef struct { T x; } BK_W_;                                                                 \
        size_t off_ = 0;                                                                               \
        int fit_ = BK_FIT_SAME | BK_FIT_WIDE;                                                          \
        FIELDS(BK_GEN_FIT)                                                                             \
        (void)off_;                                                                                    \
        if (sizeof(BK_W_) != sizeof(T))                                                                \
            return 0;                                                                                  \
        return sizeof(T) == (size) ? fit_ & BK_FIT_SAME : sizeof(T) == 2 * (size) ? fit_ & BK_FIT_WIDE : 0; \
    }                                                                                                  \
    BK_SCHEMA_PLAN(id, T, size, FIELDS)                                                                \
    /* One loop per byte order, so each read is a plain load or a swap. */                            \
    static void id##_decode(const uint8_t *src, size_t count, bool be, void *dst)                      \
    {                                                                                                  \
        int fit_ = !be && BK_HOST_LE ? id##_fit() : 0;                                                 \
        if (fit_ == BK_FIT_SAME) {                                                                     \
            if (count)                                                                                 \
                memcpy(dst, src, count * (size));                                                      \
            return;                                                                                    \
        }                                                                                              \
        if (fit_ == BK_FIT_WIDE) {                                                                     \
            bk_widen_u16_le(src, count * (size) / 2, dst);                                             \
            return;                                                                                    \
        }                                                                                              \
        BK_SCHEMA_PLAN_DECODE(id, T, size)                                                             \
        if (be)                                                                                        \
            id##_decode_rows(src, count, true, dst);                                                   \
        else                                                                                           \
            id##_decode_rows(src, count, false, dst);                                                  \
    }                                                                                                  \
    static bspkit_result id##_encode(const void *item, uint8_t *d, bool be, const bk_field_ctx *c)     \
    {                                                                                                  \
        const T *r_ = item;                                                                            \
        FIELDS(BK_GEN_CHECK)                                                                           \
        (void)c;                                                                                       \
        if (d) {                                                                                       \
            size_t off_ = 0;                                                                           \
            FIELDS(BK_GEN_ENCODE)                                                                      \
            (void)off_;                                                                                \
        }                                                                                              \
        (void)r_;                                                                                      \
        (void)be;                                                                                      \
        return BSPKIT_OK;                                                                              \
    }                                                                                                  \
    static void id##_swap(uint8_t *data, size_t count)                                                 \
    {                                                                                                  \
        for (size_t i_ = 0; i_ < count; i_++) {                                                        \
            uint8_t *p_ = data + i_ * (size);                                                          \
            size_t off_ = 0;                                                                           \
            FIELDS(BK_GEN_SWAP)                                                                        \
            (void)p_;                                                                                  \
            (void)off_;                                                                                \
        }                                                                                              \
    }                                                                                                  \
    static const bspkit_field *id##_dump_fields(size_t *count)                                         \
    {                                                                                                  \
        typedef struct { T x; } BK_W_;                                                                 \
        static const bspkit_field fields_[] = {FIELDS(BK_GEN_DUMP)};                                   \
        *count = sizeof fields_ / sizeof fields_[0];                                                   \
        return fields_;                                                                                \
    }                                                                                                  \
    const bk_schema id = {(rname), (size), sizeof(T), id##_decode, id##_encode, id##_swap, id##_dump_fields,     \
                          id##_fit, _Alignof(T), BK_SCHEMA_PLAN_FN(id)}

#endif
