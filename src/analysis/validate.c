/* Semantic validation: one pass over the decoded native structs.
 *
 * Everything here goes through the public API on purpose: the native
 * structs are the same for Quake, GoldSrc and Source, so one set of
 * cross-index checks covers every family, and whatever the accessors accept
 * is exactly what gets checked. Opening a map only checks lump ranges and
 * record sizes; this file checks that the records point at each other
 * correctly. The plain index and first/count fields come from the reference
 * table (core/refs.h); the checks here add what a table cannot say. */
#include "bspkit/bspkit.h"
#include "bspkit/displacement.h"
#include "bspkit/lighting.h"
#include "bspkit/props.h"
#include "bspkit/quake3.h"
#include "bspkit/source_lumps.h"
#include "bspkit/titanfall.h"
#include "core/cpu.h"
#include "core/entities.h"
#include "core/family.h"
#include "core/refs.h"
#include "core/surfedge.h"
#include "core/vis_rle.h"

#include "analysis/lightmap_internal.h"

#include <inttypes.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#include <immintrin.h>
#endif
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STORED_PROBLEMS 1000
/* Decoding every vis row is linear in the lump; past this many rows the
 * check would dominate validation time, so only the first rows are tried. */
#define MAX_VIS_ROWS 65536

/* Texinfo flags that decide a face's lightmap size. */
#define S_SURF_NOLIGHT 0x400
#define S_SURF_BUMPLIGHT 0x800

/* Quake/GoldSrc clipnode children below 0 are contents, CONTENTS_EMPTY (-1)
 * down to CONTENTS_TRANSLUCENT (-15). */
#define Q_CONTENTS_MIN (-15)

/* A decoded array, or ok=false when its accessor failed (already reported). */
typedef struct varr {
    const void *items;
    size_t n, item_size;
    bool ok;
} varr;

typedef struct vctx {
    bspkit_map *map;
    bspkit_report *rep;
    size_t cap;
    bool nomem;
    bool source;      /* Source: texdata, props, displacements, HDR lumps */
    bool quake;       /* Quake/GoldSrc: miptex, clipnodes, per-leaf visibility */
    bool cluster_vis; /* visibility by cluster (Source, Quake 2, Quake 3) */
    bool quake3;      /* surfaces, shaders and fogs instead of faces and texinfo */
    bool titanfall;   /* Titanfall 2: meshes, material sorts and vertex lumps */
    unsigned flags;   /* BSPKIT_VALIDATE_* */
    const bspkit_format *fmt;

    /* Directory entries, read on first use (lump_info): most validations
     * only need one to place a problem. 0: not read yet, 1: read, 2: none. */
    uint8_t info_state[BSPKIT_MAX_LUMPS];


    varr planes, vertexes, edges, surfedges, faces, orig_faces, hdr_faces, nodes, leafs, models,
        texinfo, leaf_faces, leaf_brushes, clipnodes, brushes, brushsides, texdata, string_table,
        areas, areaportals, miptex, shaders, drawverts, drawindexes, surfaces, fogs;
    /* Titanfall 2 */
    varr r2_models, r2_meshes, r2_mesh_bounds, r2_sorts, r2_indices, r2_normals, r2_vertex[4];
    /* The face array nodes, leafs and models index: FACES, or FACES_HDR in
     * HDR-only maps (Xbox 360), whose FACES lump is empty; Quake 3's SURFACES. */
    const varr *tree_faces;

    /* Record counts that come from the directory, not from a decoder (no items). */
    varr dispinfo, clipverts;
    /* Each reference target's record count for the fast checks, set by
     * count_targets once all kinds are loaded. */
    uint64_t target_n[BK_REF_TARGET_COUNT];

    bool have_vis;
    uint32_t vis_rows, vis_row_bytes;
    uint32_t vis_size; /* bytes of the visibility lump */
    bool lightmap_pages_known; /* Quake 3: LIGHTMAPS is a whole number of pages */
    uint64_t lightmap_pages;

    /* Last: an entry is written before it is read (info_state), so the
     * context is cleared only up to here. */
    bspkit_lump_info info[BSPKIT_MAX_LUMPS];
} vctx;

/* ------------------------------------------------------------------------ */
/* Problem list                                                              */
/* ------------------------------------------------------------------------ */

#if defined(__GNUC__)
__attribute__((format(printf, 7, 8)))
#endif
static void add_problem(vctx *c, bspkit_severity sev, bspkit_result code, int lump, int64_t record,
                        int64_t offset, const char *fmt, ...)
{
    bspkit_report *rep = c->rep;
    if (sev == BSPKIT_SEVERITY_ERROR)
        rep->errors++;
    else
        rep->warnings++;
    if (c->nomem || rep->count >= MAX_STORED_PROBLEMS)
        return;
    if (rep->count == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 32;
        if (cap > MAX_STORED_PROBLEMS)
            cap = MAX_STORED_PROBLEMS;
        bspkit_problem *grown = realloc(rep->problems, cap * sizeof *grown);
        if (!grown) {
            c->nomem = true;
            return;
        }
        rep->problems = grown;
        c->cap = cap;
    }
    bspkit_problem *p = &rep->problems[rep->count++];
    memset(p, 0, sizeof *p);
    p->severity = sev;
    p->code = code;
    p->lump = lump;
    p->record = record;
    p->offset = offset;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->message, sizeof p->message, fmt, ap);
    va_end(ap);
}

/* Lump `lump`'s directory entry, or NULL when the map has no such lump. */
static const bspkit_lump_info *lump_info(vctx *c, int lump)
{
    if (lump < 0 || lump >= BSPKIT_MAX_LUMPS || lump >= bspkit_lump_count(c->map))
        return NULL;
    if (c->info_state[lump] == 0)
        c->info_state[lump] = bspkit_get_lump_info(c->map, lump, &c->info[lump]) == BSPKIT_OK ? 1 : 2;
    return c->info_state[lump] == 1 ? &c->info[lump] : NULL;
}

/* Absolute file offset of record `rec` of `lump`, or -1 when the lump is
 * compressed (no file byte corresponds to it) or not a record array. */
static int64_t rec_offset(vctx *c, int lump, uint64_t rec)
{
    const bspkit_lump_info *li = lump_info(c, lump);
    if (!li)
        return -1;
    /* No byte of the map file holds a compressed record or one read from a file beside it. */
    if (li->compressed || li->record_size == 0 || bspkit_lump_external_path(c->map, lump))
        return -1;
    return (int64_t)li->offset + (int64_t)(rec * li->record_size);
}

/* Byte `ofs` inside an uncompressed lump, as an absolute file offset. */
static int64_t byte_offset(vctx *c, int lump, uint64_t ofs)
{
    const bspkit_lump_info *li = lump_info(c, lump);
    if (!li || li->compressed || bspkit_lump_external_path(c->map, lump))
        return -1;
    return (int64_t)li->offset + (int64_t)ofs;
}

static uint32_t lump_size(vctx *c, int lump)
{
    const bspkit_lump_info *li = lump_info(c, lump);
    return li ? li->uncompressed_length : 0;
}

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static void index_error(vctx *c, int lump, uint64_t rec, const char *what, const char *fmt, ...)
{
    char detail[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    add_problem(c, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, lump, (int64_t)rec, rec_offset(c, lump, rec),
                "%s %" PRIu64 ": %s", what, rec, detail);
}

/* An accessor failure becomes one problem; checks needing the array skip. */
static bool loaded(vctx *c, bspkit_result r, const bspkit_error *e, int lump)
{
    if (r == BSPKIT_OK)
        return true;
    add_problem(c, BSPKIT_SEVERITY_ERROR, r, e->lump >= 0 ? e->lump : lump, -1, e->offset, "%s",
                e->message[0] ? e->message : bspkit_strerror(r));
    return false;
}

/* An error for a call to fill on failure, as a cleared one with no lump
 * or offset: every field loaded() reads is set and the 256-byte message
 * emptied. Clearing the whole struct took longer than most of the calls. */
static inline void no_error_yet(bspkit_error *e)
{
    e->code = BSPKIT_OK;
    e->lump = -1;
    e->offset = -1;
    e->lump_offset = 0;
    e->message[0] = '\0';
}

#define LOAD(c, arr, type, getter, lump_index)                                                   \
    do {                                                                                   \
        const type *items_ = NULL;                                                         \
        size_t n_ = 0;                                                                     \
        bspkit_error e_;                                                                   \
        no_error_yet(&e_);                                                                 \
        bspkit_result r_ = getter((c)->map, &items_, &n_, &e_);                            \
        (arr).items = items_;                                                              \
        (arr).item_size = sizeof(type);                                                    \
        (arr).n = r_ == BSPKIT_OK ? n_ : 0;                                                \
        (arr).ok = loaded((c), r_, &e_, (lump_index));                                           \
    } while (0)

/* True when `v` is a valid index into `a`; an array that failed to decode
 * accepts everything so that one broken lump does not cascade. */
static bool in_range(const varr *a, int64_t v) { return !a->ok || (v >= 0 && (uint64_t)v < a->n); }

/* first + num within an array of n records, computed without overflow. */
static bool span_ok(const varr *a, int64_t first, int64_t num)
{
    if (!a->ok)
        return true;
    return first >= 0 && num >= 0 && (uint64_t)first + (uint64_t)num <= a->n;
}

/* ------------------------------------------------------------------------ */
/* References from the table                                                 */
/* ------------------------------------------------------------------------ */

/* Each record kind validation reads, in the order they are loaded (and
 * their failures reported), with its array and record type. */
#define VALIDATED_KINDS(X)                                                                             \
    X(BK_REC_PLANES, planes, bspkit_plane)                                                             \
    X(BK_REC_VERTEXES, vertexes, bspkit_vec3)                                                          \
    X(BK_REC_EDGES, edges, bspkit_edge)                                                                \
    X(BK_REC_SURFEDGES, surfedges, int32_t)                                                            \
    X(BK_REC_FACES, faces, bspkit_face)                                                                \
    X(BK_REC_NODES, nodes, bspkit_node)                                                                \
    X(BK_REC_LEAFS, leafs, bspkit_leaf)                                                                \
    X(BK_REC_MODELS, models, bspkit_model)                                                             \
    X(BK_REC_TEXINFO, texinfo, bspkit_texinfo)                                                         \
    X(BK_REC_LEAF_FACES, leaf_faces, uint32_t)                                                         \
    X(BK_REC_ORIG_FACES, orig_faces, bspkit_face)                                                      \
    X(BK_REC_HDR_FACES, hdr_faces, bspkit_face)                                                        \
    X(BK_REC_LEAF_BRUSHES, leaf_brushes, uint32_t)                                                     \
    X(BK_REC_BRUSHES, brushes, bspkit_brush)                                                           \
    X(BK_REC_BRUSHSIDES, brushsides, bspkit_brushside)                                                 \
    X(BK_REC_TEXDATA, texdata, bspkit_texdata)                                                         \
    X(BK_REC_STRING_TABLE, string_table, int32_t)                                                      \
    X(BK_REC_AREAS, areas, bspkit_area)                                                                \
    X(BK_REC_AREAPORTALS, areaportals, bspkit_areaportal)                                              \
    X(BK_REC_CLIPNODES, clipnodes, bspkit_clipnode)                                                    \
    X(BK_REC_SHADERS, shaders, bspkit_shader)                                                          \
    X(BK_REC_DRAWVERTS, drawverts, bspkit_drawvert)                                                    \
    X(BK_REC_DRAWINDEXES, drawindexes, int32_t)                                                        \
    X(BK_REC_SURFACES, surfaces, bspkit_surface)                                                       \
    X(BK_REC_FOGS, fogs, bspkit_fog)                                                                   \
    X(BK_REC_R2_MODELS, r2_models, bspkit_r2_model)                                                    \
    X(BK_REC_R2_MESHES, r2_meshes, bspkit_r2_mesh)                                                     \
    X(BK_REC_R2_MESH_BOUNDS, r2_mesh_bounds, bspkit_r2_mesh_bounds)                                    \
    X(BK_REC_R2_MATERIAL_SORTS, r2_sorts, bspkit_r2_material_sort)                                     \
    X(BK_REC_R2_MESH_INDICES, r2_indices, uint32_t)                                                    \
    X(BK_REC_R2_VERTEX_NORMALS, r2_normals, bspkit_vec3)                                               \
    X(BK_REC_R2_VERTEX_UNLIT, r2_vertex[0], bspkit_r2_vertex)                                          \
    X(BK_REC_R2_VERTEX_LIT_FLAT, r2_vertex[1], bspkit_r2_vertex)                                       \
    X(BK_REC_R2_VERTEX_LIT_BUMP, r2_vertex[2], bspkit_r2_vertex)                                       \
    X(BK_REC_R2_VERTEX_UNLIT_TS, r2_vertex[3], bspkit_r2_vertex)

/* Where each reference target's array is in the context (0: none; no
 * array is the context's first member). */
static const size_t target_arrays[BK_REF_TARGET_COUNT] = {
#define TARGET_ARRAY(kind, member, type) [kind] = offsetof(vctx, member),
    VALIDATED_KINDS(TARGET_ARRAY)
#undef TARGET_ARRAY
    [BK_REF_TO_DISPINFO] = offsetof(vctx, dispinfo),
    [BK_REF_TO_CLIPPORTALVERTS] = offsetof(vctx, clipverts),
};

/* The decoded records of one kind, or NULL. A table lookup, always
 * inlined: the record loops ask with a constant kind, which folds to the
 * member. */
static inline __attribute__((always_inline)) const varr *records_of(const vctx *c, int kind)
{
    if (kind < 0 || kind >= BK_REF_TARGET_COUNT || !target_arrays[kind])
        return NULL;
    return (const varr *)(const void *)((const char *)c + target_arrays[kind]);
}

/* What a reference points into: the face tree's faces may be FACES_HDR. */
static const varr *target_of(const vctx *c, int target)
{
    return target == BK_REC_FACES ? c->tree_faces : records_of(c, target);
}

/* Fills c->target_n once every kind is loaded: a target's record count, or
 * 2^32 when it failed to decode, so that every 32-bit index and span then
 * fits and the fast checks need no sign tests. */
static void count_targets(vctx *c)
{
    for (int t = 0; t < BK_REF_TARGET_COUNT; t++) {
        const varr *v = target_of(c, t);
        c->target_n[t] = v && v->ok && v->n < (UINT64_C(1) << 32) ? v->n : UINT64_C(1) << 32;
    }
}

/* Names in messages: one record of a kind, and the records a reference points into. */
static const char *record_name(const vctx *c, int kind)
{
    switch (kind) {
    case BK_REC_EDGES: return "edge";
    case BK_REC_SURFEDGES: return "surfedge";
    case BK_REC_FACES: return "face";
    case BK_REC_ORIG_FACES: return "origface";
    case BK_REC_HDR_FACES: return "hdr face";
    case BK_REC_NODES: return "node";
    case BK_REC_LEAFS: return "leaf";
    case BK_REC_MODELS: return "model";
    case BK_REC_TEXINFO: return "texinfo";
    case BK_REC_LEAF_FACES: return c->quake ? "marksurface" : c->quake3 ? "leafsurface" : "leafface";
    case BK_REC_LEAF_BRUSHES: return "leafbrush";
    case BK_REC_CLIPNODES: return "clipnode";
    case BK_REC_BRUSHES: return "brush";
    case BK_REC_BRUSHSIDES: return "brushside";
    case BK_REC_AREAS: return "area";
    case BK_REC_AREAPORTALS: return "areaportal";
    case BK_REC_SURFACES: return "surface";
    case BK_REC_FOGS: return "fog";
    case BK_REC_R2_MODELS: return "model";
    case BK_REC_R2_MESHES: return "mesh";
    case BK_REC_R2_MATERIAL_SORTS: return "material sort";
    case BK_REC_R2_VERTEX_UNLIT:
    case BK_REC_R2_VERTEX_LIT_FLAT:
    case BK_REC_R2_VERTEX_LIT_BUMP:
    case BK_REC_R2_VERTEX_UNLIT_TS: return "vertex";
    default: return "record";
    }
}

static const char *target_name(const vctx *c, int target)
{
    switch (target) {
    case BK_REC_PLANES: return "planes";
    case BK_REC_VERTEXES: return "vertexes";
    case BK_REC_EDGES: return "edges";
    case BK_REC_SURFEDGES: return "surfedges";
    case BK_REC_FACES: return c->quake3 ? "surfaces" : "faces";
    case BK_REC_TEXINFO: return "texinfos";
    case BK_REC_LEAF_FACES: return c->quake ? "marksurfaces" : c->quake3 ? "leafsurfaces" : "leaffaces";
    case BK_REC_LEAF_BRUSHES: return "leafbrushes";
    case BK_REC_SHADERS: return "shaders";
    case BK_REC_DRAWVERTS: return "drawverts";
    case BK_REC_DRAWINDEXES: return "drawindexes";
    case BK_REC_FOGS: return "fogs";
    case BK_REC_BRUSHES: return "brushes";
    case BK_REC_BRUSHSIDES: return "brushsides";
    case BK_REC_AREAS: return "areas";
    case BK_REC_AREAPORTALS: return "areaportals";
    case BK_REF_TO_DISPINFO: return "dispinfos";
    case BK_REF_TO_CLIPPORTALVERTS: return "clipportalverts";
    case BK_REC_TEXDATA: return "texture data";
    case BK_REC_R2_MESHES: return "meshes";
    case BK_REC_R2_MATERIAL_SORTS: return "material sorts";
    case BK_REC_R2_VERTEX_NORMALS: return "vertex normals";
    default: return "records";
    }
}

/* The lump a record kind is read from in this map, or -1. */
static int lump_of(const vctx *c, int kind)
{
    return kind >= 0 && kind < BK_REC_COUNT ? c->map->dec_lump[kind] : -1;
}

static void check_ref(vctx *c, int kind, size_t i, const bk_ref *r, const void *rec)
{
    if (i == 0 && (r->flags & BK_REF_RECORD0_UNUSED))
        return;
    const varr *t = target_of(c, r->target);
    int lump = lump_of(c, kind);
    const char *what = record_name(c, kind);
    if (r->kind == BK_REF_SPAN) {
        int64_t first = bk_ref_value(r, rec, 0), num = bk_ref_count(r, rec);
        if (first < 0 || num < 0)
            index_error(c, lump, i, what, "%s %" PRId64 " / %s %" PRId64 " negative", r->name, first,
                        r->count_name, num);
        else if (!span_ok(t, first, num))
            index_error(c, lump, i, what, "%s+%s %" PRId64 " exceeds %zu %s", r->name, r->count_name, first + num,
                        t->n, target_name(c, r->target));
        return;
    }
    for (int k = 0; k < r->elements; k++) {
        int64_t v = bk_ref_value(r, rec, k);
        if (((r->flags & BK_REF_NONE_MINUS1) && v == -1) || ((r->flags & BK_REF_NONE_ZERO) && v == 0))
            continue;
        /* |INT32_MIN| still fits an int64_t. */
        int64_t index = (r->flags & BK_REF_SIGN_IS_DIRECTION) && v < 0 ? -v : v;
        if (in_range(t, index))
            continue;
        if (r->elements > 1)
            index_error(c, lump, i, what, "%s[%d] %" PRId64 " exceeds %zu %s", r->name, k, v, t->n,
                        target_name(c, r->target));
        else
            index_error(c, lump, i, what, "%s %" PRId64 " exceeds %zu %s", r->name, v, t->n,
                        target_name(c, r->target));
    }
}

/* Checks that go with one record, before or after its table references. */
typedef void (*record_check_fn)(vctx *c, size_t i, const void *rec, void *arg);

/* Whether index `v` is "none" or fits `n` records, for a reference with
 * these flags (constant in each generated checker, so the tests fold away).
 * `n` is at most 2^32 (count_targets clamps it) and every index field is
 * 32 bits wide, so one unsigned comparison also rejects negative values. */
static inline bool index_fits(int64_t v, unsigned flags, uint64_t n)
{
    /* Bitwise, not short-circuit: the flags are constants, and an index
     * that is sometimes "none" and sometimes a record would otherwise cost
     * a mispredicted branch per record. */
    bool none = ((flags & BK_REF_NONE_MINUS1) && v == -1) | ((flags & BK_REF_NONE_ZERO) && v == 0);
    if (flags & BK_REF_SIGN_IS_DIRECTION)
        v = v < 0 ? -v : v;
    return none | ((uint64_t)v < n);
}

/* One checker per record kind, generated from its reference list
 * (core/refs.h) with every offset and flag a constant: true when all of
 * record `i`'s references hold, given each target's record count in `tn`
 * (2^32 when the target failed to decode). The fast path of
 * check_records; check_ref reports when it fails. The answers are folded
 * together without branches; only the rare failing record branches. */
#define FAST_INDEX(from, T, m, cm, n, target, flags, name, cname)                                      \
    _Static_assert(sizeof((&((const T *)0)->m)[0]) <= 4, "index_fits takes 32-bit indices");          \
    for (int k_ = 0; k_ < (n); k_++)                                                                   \
        ok_ &= (((flags) & BK_REF_RECORD0_UNUSED) && i == 0) |                                         \
               index_fits((int64_t)(&((const T *)rec)->m)[k_], (flags), tn[target]);
#define FAST_ARRAY(from, T, m, cm, n, target, flags, name, cname)                                      \
    _Static_assert(sizeof(T) <= 4, "index_fits takes 32-bit indices");                                \
    ok_ &= index_fits((int64_t) * (const T *)rec, (flags), tn[target]);
#define FAST_SPAN(from, T, m, cm, n, target, flags, name, cname)                                       \
    {                                                                                                  \
        int64_t first_ = ((const T *)rec)->m, num_ = ((const T *)rec)->cm;                            \
        ok_ &= (first_ >= 0) & (num_ >= 0) & ((uint64_t)first_ + (uint64_t)num_ <= tn[target]);       \
    }
#define FAST(from, SHAPE, ...) FAST_##SHAPE(from, __VA_ARGS__)
#define GEN_FAST(KIND)                                                                                 \
    static inline bool refs_hold_##KIND(const void *rec, size_t i, const uint64_t *tn)                 \
    {                                                                                                  \
        (void)i;                                                                                       \
        bool ok_ = true;                                                                               \
        BK_REFS_##KIND(FAST) return ok_;                                                               \
    }
BK_REF_KINDS(GEN_FAST)

typedef bool (*refs_hold_fn)(const void *rec, size_t i, const uint64_t *tn);

#if BK_CPU_AVX2
/* index_fits on eight 32-bit values at once, each lane's answer as the
 * scalar one gives it for a field of that signedness (`is_signed`, a
 * constant where this is inlined): a negative signed index never fits. */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) __m256i
lanes_index_fit(__m256i v, unsigned flags, bool is_signed, uint64_t n)
{
    const __m256i ones = _mm256_set1_epi32(-1), top = _mm256_set1_epi32(INT32_MIN);
    __m256i none = _mm256_setzero_si256();
    if (flags & BK_REF_NONE_MINUS1)
        none = _mm256_or_si256(none, _mm256_cmpeq_epi32(v, ones));
    if (flags & BK_REF_NONE_ZERO)
        none = _mm256_or_si256(none, _mm256_cmpeq_epi32(v, _mm256_setzero_si256()));
    __m256i below;
    if (is_signed && !(flags & BK_REF_SIGN_IS_DIRECTION)) {
        below = _mm256_cmpgt_epi32(v, ones); /* not negative */
        if (n <= INT32_MAX)
            below = _mm256_and_si256(below, _mm256_cmpgt_epi32(_mm256_set1_epi32((int32_t)n), v));
    } else {
        /* |INT32_MIN| is 2^31 as an unsigned lane, as it is in 64 bits. */
        if (flags & BK_REF_SIGN_IS_DIRECTION)
            v = _mm256_abs_epi32(v);
        below = n > UINT32_MAX ? ones
                               : _mm256_cmpgt_epi32(_mm256_xor_si256(_mm256_set1_epi32((int32_t)(uint32_t)n), top),
                                                    _mm256_xor_si256(v, top));
    }
    return _mm256_or_si256(none, below);
}

/* A 32-bit field of a decoded (native) record. */
static inline int32_t native_i32(const uint8_t *p)
{
    int32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Eight records `stride` bytes apart as columns: col[k] holds the 32-bit
 * word at byte 4k of each (their first 32 bytes, transposed), which is
 * cheaper than gathering from records a few dozen bytes apart. */
typedef struct rows8 {
    __m256i col[8];
    const uint8_t *rec;
    size_t stride;
} rows8;

__attribute__((target("avx2"))) static inline __attribute__((always_inline)) void
rows8_load(rows8 *r, const uint8_t *rec, size_t stride)
{
#define ROW_(k) _mm256_loadu_si256((const __m256i *)(const void *)(rec + (size_t)(k) * stride))
    const __m256i r0 = ROW_(0), r1 = ROW_(1), r2 = ROW_(2), r3 = ROW_(3), r4 = ROW_(4), r5 = ROW_(5), r6 = ROW_(6),
                  r7 = ROW_(7);
#undef ROW_
    /* words 0, 1 (and 4, 5 in the upper half) of row pairs, then of row quads */
    const __m256i a0 = _mm256_unpacklo_epi32(r0, r1), a1 = _mm256_unpackhi_epi32(r0, r1),
                  a2 = _mm256_unpacklo_epi32(r2, r3), a3 = _mm256_unpackhi_epi32(r2, r3),
                  a4 = _mm256_unpacklo_epi32(r4, r5), a5 = _mm256_unpackhi_epi32(r4, r5),
                  a6 = _mm256_unpacklo_epi32(r6, r7), a7 = _mm256_unpackhi_epi32(r6, r7);
    const __m256i b0 = _mm256_unpacklo_epi64(a0, a2), b1 = _mm256_unpackhi_epi64(a0, a2),
                  b2 = _mm256_unpacklo_epi64(a1, a3), b3 = _mm256_unpackhi_epi64(a1, a3),
                  b4 = _mm256_unpacklo_epi64(a4, a6), b5 = _mm256_unpackhi_epi64(a4, a6),
                  b6 = _mm256_unpacklo_epi64(a5, a7), b7 = _mm256_unpackhi_epi64(a5, a7);
    r->col[0] = _mm256_permute2x128_si256(b0, b4, 0x20);
    r->col[1] = _mm256_permute2x128_si256(b1, b5, 0x20);
    r->col[2] = _mm256_permute2x128_si256(b2, b6, 0x20);
    r->col[3] = _mm256_permute2x128_si256(b3, b7, 0x20);
    r->col[4] = _mm256_permute2x128_si256(b0, b4, 0x31);
    r->col[5] = _mm256_permute2x128_si256(b1, b5, 0x31);
    r->col[6] = _mm256_permute2x128_si256(b2, b6, 0x31);
    r->col[7] = _mm256_permute2x128_si256(b3, b7, 0x31);
    r->rec = rec;
    r->stride = stride;
}

/* The 32-bit field at byte `offset` (a constant where inlined) of the eight records. */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) __m256i
rows8_field(const rows8 *r, size_t offset)
{
    if (offset % 4 == 0 && offset + 4 <= 32)
        return r->col[offset / 4];
#define WORD_(k) native_i32(r->rec + (size_t)(k) * r->stride + offset)
    return _mm256_setr_epi32(WORD_(0), WORD_(1), WORD_(2), WORD_(3), WORD_(4), WORD_(5), WORD_(6), WORD_(7));
#undef WORD_
}

/* Whether member m of T (its first element, for an array) is signed. */
#define FIELD_TYPE(T, m) __typeof__((&((const T *)0)->m)[0])
#define FIELD_SIGNED(T, m) ((FIELD_TYPE(T, m))-1 < (FIELD_TYPE(T, m))1)
/* The generated checkers again, for records i .. i + 7 at once: bit k of
 * the answer is refs_hold's for record i + k. A span's members must be
 * signed (their sum then fits 32 bits once both are not negative). Only
 * FACES has one so far: it is the loop most maps spend longest in. */
#define FAST8_INDEX(from, T, m, cm, n, target, flags, name, cname)                                     \
    for (int k_ = 0; k_ < (n); k_++) {                                                                 \
        __m256i fit_ = lanes_index_fit(rows8_field(rows, offsetof(T, m) + 4 * (size_t)k_), (flags),   \
                                       FIELD_SIGNED(T, m), tn[target]);                                \
        if (((flags) & BK_REF_RECORD0_UNUSED) && i == 0)                                               \
            fit_ = _mm256_or_si256(fit_, _mm256_setr_epi32(-1, 0, 0, 0, 0, 0, 0, 0));                  \
        ok_ = _mm256_and_si256(ok_, fit_);                                                             \
    }
#define FAST8_SPAN(from, T, m, cm, n, target, flags, name, cname)                                      \
    {                                                                                                  \
        _Static_assert(FIELD_SIGNED(T, m) && FIELD_SIGNED(T, cm), "eight-wide spans take signed members"); \
        const __m256i first_ = rows8_field(rows, offsetof(T, m)), num_ = rows8_field(rows, offsetof(T, cm)); \
        const __m256i neg_ = _mm256_set1_epi32(-1);                                                    \
        __m256i fit_ = _mm256_and_si256(_mm256_cmpgt_epi32(first_, neg_), _mm256_cmpgt_epi32(num_, neg_)); \
        /* both below 2^31: the sum is exact as an unsigned lane; end <= n is end < n + 1 */          \
        if (tn[target] <= UINT32_MAX)                                                                  \
            fit_ = _mm256_and_si256(fit_,                                                              \
                                    lanes_index_fit(_mm256_add_epi32(first_, num_), 0, false, tn[target] + 1)); \
        ok_ = _mm256_and_si256(ok_, fit_);                                                             \
    }
#define FAST8(from, SHAPE, ...) FAST8_##SHAPE(from, __VA_ARGS__)
#define GEN_FAST8(KIND)                                                                                \
    __attribute__((target("avx2"))) static inline __attribute__((always_inline)) unsigned             \
    refs_hold8_##KIND(const rows8 *rows, size_t i, const uint64_t *tn)                                 \
    {                                                                                                  \
        __m256i ok_ = _mm256_set1_epi32(-1);                                                           \
        BK_REFS_##KIND(FAST8) return (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(ok_));           \
    }
GEN_FAST8(FACES)
#endif

#if BK_CPU_AVX2
/* indices_below eight at a time (lanes_index_fit's unsigned test; `flags`
 * a constant at each call, so the loop holds no branch), over the first
 * *done of the n values (the rest is the caller's). */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) bool
indices_below8(const uint32_t *v, size_t n, uint32_t limit, unsigned flags, size_t *done)
{
    __m256i fits = _mm256_set1_epi32(-1);
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        fits = _mm256_and_si256(
            fits, lanes_index_fit(_mm256_loadu_si256((const __m256i *)(const void *)(v + i)), flags, false, limit));
    *done = i;
    return _mm256_movemask_epi8(fits) == -1;
}

__attribute__((target("avx2"))) static bool indices_below_avx2(const uint32_t *v, size_t n, uint32_t limit,
                                                               bool magnitude, size_t *done)
{
    return magnitude ? indices_below8(v, n, limit, BK_REF_SIGN_IS_DIRECTION, done)
                     : indices_below8(v, n, limit, 0, done);
}
#endif

/* Whether each of the 4-byte indices v[0 .. n) is below `limit` (at most
 * INT32_MAX), its magnitude when `magnitude` (a sign that gives a
 * direction). As unsigned numbers negative values are at least 2^31, so
 * one comparison rejects them too: index_fits' answer for every value. */
static bool indices_below(const uint32_t *v, size_t n, uint32_t limit, bool magnitude)
{
    size_t i = 0;
    uint32_t bad = 0;
#if BK_CPU_AVX2
    if (n >= 8 && bk_cpu_has_avx2() && !indices_below_avx2(v, n, limit, magnitude, &i))
        return false;
#endif
#if defined(__SSE2__)
    /* Four at a time: unsigned order is signed order with the top bit flipped. */
    const __m128i top = _mm_set1_epi32((int)0x80000000u), lim = _mm_xor_si128(_mm_set1_epi32((int)limit), top);
    __m128i fits = _mm_set1_epi32(-1);
    for (; i + 4 <= n; i += 4) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(v + i));
        if (magnitude) {
            __m128i sign = _mm_srai_epi32(x, 31);
            x = _mm_sub_epi32(_mm_xor_si128(x, sign), sign);
        }
        fits = _mm_and_si128(fits, _mm_cmpgt_epi32(lim, _mm_xor_si128(x, top)));
    }
    bad = _mm_movemask_epi8(fits) != 0xFFFF;
#endif
    for (; i < n; i++) {
        uint32_t x = v[i];
        if (magnitude && (x >> 31))
            x = 0u - x;
        bad |= x >= limit;
    }
    return !bad;
}

/* A kind whose records are nothing but 4-byte indices into one target
 * (surfedges, edges, leaf faces and brushes): true when all of them fit,
 * found in one pass of indices_below. False also when the kind is not of
 * that shape; the record loop then decides. */
static bool all_indices_fit(const vctx *c, int kind, const varr *a, const bk_ref *refs, size_t nrefs,
                            const uint64_t *tn)
{
    if (nrefs != 1 || refs[0].kind != BK_REF_INDEX || refs[0].offset != 0 || refs[0].width != 4 ||
        refs[0].target < 0 || refs[0].target >= BK_REF_TARGET_COUNT ||
        (refs[0].flags & (BK_REF_NONE_MINUS1 | BK_REF_NONE_ZERO)) || a->item_size != 4u * refs[0].elements ||
        tn[refs[0].target] > INT32_MAX)
        return false;
    size_t first = (refs[0].flags & BK_REF_RECORD0_UNUSED) ? 1 : 0;
    if (a->n <= first)
        return true;
    /* Widened from 16-bit indices: the decoding found the largest (of all
     * records, so a large one in an unused record 0 only sends the check
     * on to the pass below). Such values are never negative. */
    uint32_t max;
    if (bk_array_index_max(c->map, (bk_rec)kind, &max) && max < tn[refs[0].target])
        return true;
    const uint32_t *v = (const uint32_t *)a->items + first * refs[0].elements;
    return indices_below(v, (a->n - first) * refs[0].elements, (uint32_t)tn[refs[0].target],
                         refs[0].is_signed && (refs[0].flags & BK_REF_SIGN_IS_DIRECTION));
}

/* Record i of `kind` at `rec`: each of its references reported that fails,
 * when `hold` (the kind's generated checker) says one does. */
static inline __attribute__((always_inline)) void check_record_refs(vctx *c, int kind, size_t i, const uint8_t *rec,
                                                                    refs_hold_fn hold, const bk_ref *refs,
                                                                    size_t nrefs, const uint64_t *tn)
{
    if (!hold(rec, i, tn))
        for (size_t k = 0; k < nrefs; k++)
            check_ref(c, kind, i, &refs[k], rec);
}

/* Every record of `kind`: `before`, its references in table order, `after`,
 * in one pass; `hold` is the kind's generated checker. Always inlined, so
 * each call site gets a loop specialised for its kind. */
static inline __attribute__((always_inline)) void check_range_with(vctx *c, int kind, size_t first, size_t end,
                                                                   refs_hold_fn hold, record_check_fn before,
                                                                   record_check_fn after, void *arg)
{
    const varr *a = records_of(c, kind);
    if (!a || !a->ok)
        return;
    end = end < a->n ? end : a->n;
    if (first >= end)
        return;
    /* The counts are read where they are: a local copy (38 of them) costs
     * more per kind, as `rep movsq`, than the loads it saves. The array and
     * record size are local copies, which the reporting calls cannot change
     * as far as the compiler knows. */
    const uint64_t *tn = c->target_n;
    size_t nrefs = 0;
    const bk_ref *refs = bk_refs_of(kind, &nrefs);
    if (!before && !after && first == 0 && end == a->n && all_indices_fit(c, kind, a, refs, nrefs, tn))
        return;
    const uint8_t *items = a->items;
    const size_t item_size = a->item_size;
    for (size_t i = first; i < end; i++) {
        const uint8_t *rec = items + i * item_size;
        if (before)
            before(c, i, rec, arg);
        check_record_refs(c, kind, i, rec, hold, refs, nrefs, tn);
        if (after)
            after(c, i, rec, arg);
    }
}

/* Records first .. end of `kind` (end clamped to the count). */
#define check_range(c, KIND, first, end, before, after, arg)                                          \
    check_range_with((c), BK_REC_##KIND, (first), (end), refs_hold_##KIND, (before), (after), (arg))
#define check_records(c, KIND, before, after, arg) check_range(c, KIND, 0, SIZE_MAX, before, after, arg)

/* ------------------------------------------------------------------------ */
/* Faces and lightmaps                                                       */
/* ------------------------------------------------------------------------ */

typedef struct light_data {
    bool ok;
    size_t size;
    const char *name;
} light_data;

static light_data load_lighting(vctx *c, bool hdr)
{
    light_data ld = {false, 0, hdr ? "LIGHTING_HDR" : "LIGHTING"};
    const uint8_t *data = NULL;
    bspkit_error e;
    no_error_yet(&e);
    bspkit_result r = bspkit_get_lighting(c->map, hdr, &data, &ld.size, &e);
    int lump = bk_map_lump_for(c->map, hdr ? BK_ROLE_LIGHTING_HDR : BK_ROLE_LIGHTING);
    ld.ok = loaded(c, r, &e, lump);
    if (!ld.ok)
        ld.size = 0;
    return ld;
}

static const bspkit_texinfo *face_texinfo(const vctx *c, const bspkit_face *f)
{
    if (!c->texinfo.ok || f->texinfo < 0 || (size_t)f->texinfo >= c->texinfo.n)
        return NULL;
    return &((const bspkit_texinfo *)c->texinfo.items)[f->texinfo];
}

/* What the face checks after the table references need: the lighting the
 * faces point into and their lightmap geometry (`lms`, count `lm_n`, NULL
 * when unavailable); ld is NULL when the faces are not checked for lighting. */
typedef struct face_pass {
    int kind;
    const light_data *ld;
    const bspkit_face_lightmap *lms; /* the entries of faces lm_first .. lm_first + lm_n */
    size_t lm_first, lm_n;
    int32_t no_lightmap; /* texinfo flags of faces drawn without a lightmap */
} face_pass;

/* The problems, out of line: the per-face checks stay small enough to inline. */
static __attribute__((noinline, cold)) void few_edges(vctx *c, const face_pass *fp, size_t i, const bspkit_face *f)
{
    if (f->first_edge >= 0 && f->num_edges >= 0 && span_ok(&c->surfedges, f->first_edge, f->num_edges) &&
        f->dispinfo == -1) {
        int lump = lump_of(c, fp->kind);
        add_problem(c, BSPKIT_SEVERITY_WARNING, BSPKIT_ERR_INDEX, lump, (int64_t)i, rec_offset(c, lump, i),
                    "%s %zu: only %" PRId32 " edges", record_name(c, fp->kind), i, f->num_edges);
    }
}

static __attribute__((noinline, cold)) void light_offset_outside(vctx *c, const face_pass *fp, size_t i,
                                                                  const bspkit_face *f)
{
    index_error(c, lump_of(c, fp->kind), i, record_name(c, fp->kind), "light_offset %" PRId32 " outside %zu bytes of %s",
                f->light_offset, fp->ld->size, fp->ld->name);
}

static __attribute__((noinline, cold)) void lightmap_short(vctx *c, const face_pass *fp, size_t i,
                                                            const bspkit_face *f, uint64_t need)
{
    /* Only a warning: compilers round extents differently, and engines
     * clamp reads, so a slightly short lump still loads. */
    int lump = lump_of(c, fp->kind);
    add_problem(c, BSPKIT_SEVERITY_WARNING, BSPKIT_ERR_INDEX, lump, (int64_t)i, rec_offset(c, lump, i),
                "%s %zu: lightmap at %" PRId32 " needs %" PRIu64 " bytes, past %zu bytes of %s", record_name(c, fp->kind),
                i, f->light_offset, need, fp->ld->size, fp->ld->name);
}

/* The steps of light_offset_checked once whether the face's texinfo says
 * it is drawn without a lightmap (`unlit`) is known. */
static inline __attribute__((always_inline)) bool light_offset_usable(vctx *c, const face_pass *fp, size_t i,
                                                                      const bspkit_face *f, bool unlit)
{
    if (f->light_offset == -1 || unlit)
        return false;
    if (f->light_offset < 0 || (size_t)f->light_offset >= fp->ld->size) {
        light_offset_outside(c, fp, i, f);
        return false;
    }
    return true;
}

/* A face's light offset checked, when the map has lighting data: true
 * when its lightmap's size is to be compared (it is lit and starts inside
 * the lighting lump). With `flags` (the Quake family: a constant at the
 * Quake-only call) the texinfo's flags can say a face is unlit, and *ti is
 * its texinfo; else *ti is NULL. */
static inline __attribute__((always_inline)) bool light_offset_checked(vctx *c, const face_pass *fp, size_t i,
                                                                       const bspkit_face *f, bool flags,
                                                                       const bspkit_texinfo **ti)
{
    *ti = NULL;
    if (f->light_offset == -1)
        return false;
    /* Sky and liquids: Quake's one special flag, Quake 2's SKY and WARP. */
    if (flags)
        *ti = face_texinfo(c, f);
    return light_offset_usable(c, fp, i, f, *ti && ((*ti)->flags & fp->no_lightmap));
}

/* `lm` is the face's lightmap entry, as bspkit_get_face_lightmaps() gives
 * it (how many bytes its samples take), or NULL; reported when it runs
 * past the lighting lump. */
static inline __attribute__((always_inline)) void compare_lightmap_size(vctx *c, const face_pass *fp, size_t i,
                                                                        const bspkit_face *f,
                                                                        const bspkit_face_lightmap *lm)
{
    /* A lit entry without a size has extents no engine could use; nothing to compare. */
    if (!lm || !lm->lit || lm->width <= 0 || lm->height <= 0)
        return;
    if (lm->bytes > fp->ld->size - (size_t)f->light_offset)
        lightmap_short(c, fp, i, f, lm->bytes);
}

/* `lm` as compare_lightmap_size takes it: NULL when the entries could not
 * be made. */
static inline __attribute__((always_inline)) void check_face_lightmap(vctx *c, const face_pass *fp, size_t i,
                                                                      const bspkit_face *f,
                                                                      const bspkit_face_lightmap *lm)
{
    const bspkit_texinfo *ti;
    /* Without any lighting data the engines draw the map fullbright and
     * never follow the offsets, which compilers then leave at 0. */
    if (fp->ld->ok && fp->ld->size > 0 && light_offset_checked(c, fp, i, f, !c->source, &ti))
        compare_lightmap_size(c, fp, i, f, lm);
}

/* Face i's lightmap entry in the pass, NULL when there is none to check. */
static inline const bspkit_face_lightmap *lightmap_entry(const face_pass *fp, size_t i)
{
    size_t k = i - fp->lm_first; /* wraps past lm_n below lm_first */
    if (!fp->lms || k >= fp->lm_n)
        return NULL;
    return &fp->lms[k];
}

static inline __attribute__((always_inline)) void check_face(vctx *c, size_t i, const void *rec, void *arg)
{
    const face_pass *fp = arg;
    const bspkit_face *f = rec;
    if (f->num_edges < 3)
        few_edges(c, fp, i, f);
    if (fp->ld)
        check_face_lightmap(c, fp, i, f, lightmap_entry(fp, i));
}

static void check_faces(vctx *c, int kind, const light_data *ld, const bspkit_face_lightmap *lms, size_t lm_n)
{
    face_pass fp = {kind, ld, lms, 0, lm_n, bk_map_no_lightmap_flags(c->map)};
    switch (kind) {
    case BK_REC_ORIG_FACES: check_records(c, ORIG_FACES, NULL, check_face, &fp); break;
    case BK_REC_HDR_FACES: check_records(c, HDR_FACES, NULL, check_face, &fp); break;
    default: check_records(c, FACES, NULL, check_face, &fp); break;
    }
}

/* What a Quake-family face's size check reads: the lightmap geometry, and
 * the face pass for its reports. */
typedef struct quake_face_pass {
    face_pass fp;
    const bk_lightmap_faces *lf;
} quake_face_pass;

/* The exact size check of one face the cheap bound did not clear: the
 * screen's double grid, then the entry where that may not fit. */
static __attribute__((noinline)) void quake_face_size(vctx *c, const quake_face_pass *qp, size_t i,
                                                      const bspkit_face *f, bool screened)
{
    bool may = false;
    if (screened) /* the caller made the screen's cheap tests */
        may = bk_lightmap_face_grid_may_overflow(qp->lf, i, f);
    else
        bk_lightmap_faces_screen(qp->lf, i, 1, &may);
    if (!may)
        return;
    bspkit_face_lightmap lm;
    bk_lightmap_faces_fill(qp->lf, i, 1, &lm);
    compare_lightmap_size(c, &qp->fp, i, f, &lm);
}

/* check_face for Quake-family faces with lighting to check against: the
 * same reports in the same order. The texinfo is looked up once, and the
 * size check costs a bound comparison for most faces (the texinfo's luxel
 * bound from all vertexes' extent); only the rest take the exact screen,
 * and an entry is made only where that may not fit. */
static inline __attribute__((always_inline)) void check_quake_face(vctx *c, size_t i, const void *rec, void *arg)
{
    const quake_face_pass *qp = arg;
    const bspkit_face *f = rec;
    if (f->num_edges < 3)
        few_edges(c, &qp->fp, i, f);
    const bk_lightmap_faces *lf = qp->lf;
    if (lf->style_bytes_bound && (uint32_t)f->texinfo < lf->texinfo_n) {
        /* The texinfo's flags read from its entry in the bound table (0:
         * drawn without a lightmap), which the size check reads next anyway. */
        if (light_offset_usable(c, &qp->fp, i, f, lf->style_bytes_bound[f->texinfo] == 0) &&
            bk_lightmap_face_needs_screen(lf, i, f, (size_t)f->texinfo))
            quake_face_size(c, qp, i, f, true);
        return;
    }
    const bspkit_texinfo *ti;
    /* The caller checked there is lighting data. Without a texinfo no
     * entry is lit. */
    if (light_offset_checked(c, &qp->fp, i, f, true, &ti) && ti &&
        bk_lightmap_face_needs_screen(lf, i, f, (size_t)f->texinfo))
        quake_face_size(c, qp, i, f, false);
}

#if BK_CPU_AVX2
/* Bit k set: face i + k gives check_quake_face nothing to report and no
 * size to screen: its references hold (`refs_hold`), at least three edges,
 * and either no lightmap (by its offset or its texinfo's flags) or one
 * inside the lump that the texinfo's bound clears (or no styles). Eight
 * faces at once. Bit k of *screen: face i + k is one whose only step is the
 * screen (bk_lightmap_face_grid_may_overflow), and a report only if that
 * says it may not fit.
 * `bound32` is the style byte bound per texinfo in 32 bits: 0 for faces
 * without a lightmap, at most 2^29, or UINT32_MAX where the faces take the
 * full sequence. The caller made sure both lighting sizes are below 2^31
 * and no face is sized by DECOUPLED_LM. */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) unsigned
quake_faces_clear8(const quake_face_pass *qp, const rows8 *rows, const uint32_t *bound32, unsigned refs_hold,
                   unsigned *screen)
{
    const bk_lightmap_faces *lf = qp->lf;
    const __m256i texinfo = rows8_field(rows, offsetof(bspkit_face, texinfo)),
                  edges = rows8_field(rows, offsetof(bspkit_face, num_edges)),
                  styles = rows8_field(rows, offsetof(bspkit_face, styles)),
                  offset = rows8_field(rows, offsetof(bspkit_face, light_offset));
    const __m256i ones = _mm256_set1_epi32(-1), zero = _mm256_setzero_si256(), top = _mm256_set1_epi32(INT32_MIN);
    /* texinfo inside the table (unsigned, so -1 is not) */
    const __m256i has_texinfo = _mm256_cmpgt_epi32(_mm256_xor_si256(_mm256_set1_epi32((int32_t)lf->texinfo_n), top),
                                                   _mm256_xor_si256(texinfo, top));
    const __m256i bound =
        _mm256_mask_i32gather_epi32(zero, (const int *)(const void *)bound32, texinfo, has_texinfo, 4);
    /* Styles before the first 255: a byte is in use while every byte below it is. */
    __m256i used = _mm256_xor_si256(_mm256_cmpeq_epi8(styles, ones), ones);
    used = _mm256_and_si256(used, _mm256_or_si256(_mm256_slli_epi32(used, 8), _mm256_set1_epi32(0xFF)));
    used = _mm256_and_si256(used, _mm256_or_si256(_mm256_slli_epi32(used, 16), _mm256_set1_epi32(0xFFFF)));
    const __m256i light = _mm256_set1_epi32((int32_t)lf->light_size);
    const __m256i in_lump = _mm256_and_si256(_mm256_cmpgt_epi32(offset, ones),
                                             _mm256_cmpgt_epi32(_mm256_set1_epi32((int32_t)qp->fp.ld->size), offset));
    /* The styles in use: a 1 in each used byte, summed into the top byte by
     * one multiply. bound x styles fits an unsigned lane (bound <= 2^29). */
    const __m256i ones8 = _mm256_set1_epi32(0x01010101);
    const __m256i count = _mm256_srli_epi32(_mm256_mullo_epi32(_mm256_and_si256(used, ones8), ones8), 24);
    const __m256i need = _mm256_mullo_epi32(bound, count);
    const __m256i no_styles = _mm256_cmpeq_epi32(_mm256_and_si256(used, _mm256_set1_epi32(0xFF)), zero);
    const __m256i room = _mm256_sub_epi32(light, offset);
    /* a bound, an offset at most the lump's size, and need <= room unsigned */
    const __m256i not_past = _mm256_cmpgt_epi32(_mm256_add_epi32(light, _mm256_set1_epi32(1)), offset);
    const __m256i need_over = _mm256_cmpgt_epi32(_mm256_xor_si256(need, top), _mm256_xor_si256(room, top));
    const __m256i bounded = _mm256_andnot_si256(_mm256_or_si256(_mm256_cmpeq_epi32(bound, ones), need_over), not_past);
    const __m256i fits = _mm256_and_si256(in_lump, _mm256_or_si256(no_styles, bounded));
    const __m256i unlit = _mm256_or_si256(_mm256_cmpeq_epi32(bound, zero), _mm256_cmpeq_epi32(offset, ones));
    const __m256i enough_edges = _mm256_cmpgt_epi32(edges, _mm256_set1_epi32(2));
    const __m256i sound = _mm256_and_si256(has_texinfo, enough_edges);
    const __m256i clear = _mm256_and_si256(sound, _mm256_or_si256(unlit, fits));
    /* Lit inside the lump with styles, but not cleared by the bound: the
     * face-at-a-time steps would report nothing before screening it. */
    const __m256i settled = _mm256_or_si256(_mm256_or_si256(unlit, no_styles), bounded);
    const __m256i to_screen = _mm256_andnot_si256(settled, _mm256_and_si256(sound, in_lump));
    *screen = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(to_screen)) & refs_hold;
    return (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(clear)) & refs_hold;
}

/* check_records(c, FACES, NULL, check_quake_face, qp), eight faces a step:
 * a face whose references hold and that is clear (quake_faces_clear8)
 * would report nothing, so only the others take the per-face steps, in
 * the same order. */
__attribute__((target("avx2"))) static void check_quake_faces_avx2(vctx *c, quake_face_pass *qp,
                                                                  const uint32_t *bound32)
{
    const varr *a = records_of(c, BK_REC_FACES);
    if (!a || !a->ok)
        return;
    const uint64_t *tn = c->target_n;
    size_t nrefs = 0;
    const bk_ref *refs = bk_refs_of(BK_REC_FACES, &nrefs);
    const uint8_t *items = a->items;
    const size_t n = a->n;
    /* A chunk's blocks first, without a branch; then the screens the chunk
     * needs, in one call; then the faces left, in order. */
    enum { CHUNK_BLOCKS = 32, CHUNK = 8 * CHUNK_BLOCKS };
    uint8_t clear[CHUNK_BLOCKS], screen[CHUNK_BLOCKS];
    uint32_t list[CHUNK];
    bool may[CHUNK];
    for (size_t first = 0; first < n; first += CHUNK) {
        size_t left = n - first, blocks = left / 8 < CHUNK_BLOCKS ? left / 8 : CHUNK_BLOCKS;
        for (size_t b = 0; b < blocks; b++) {
            rows8 rows;
            const size_t i = first + 8 * b;
            unsigned to_screen;
            rows8_load(&rows, items + i * sizeof(bspkit_face), sizeof(bspkit_face));
            clear[b] = (uint8_t)quake_faces_clear8(qp, &rows, bound32, refs_hold8_FACES(&rows, i, tn), &to_screen);
            screen[b] = (uint8_t)to_screen;
        }
        size_t listed = 0;
        for (size_t b = 0; b < blocks; b++)
            for (unsigned bits = screen[b]; bits; bits &= bits - 1)
                list[listed++] = (uint32_t)(first + 8 * b + (size_t)__builtin_ctz(bits));
        bk_lightmap_faces_grid_list(qp->lf, list, listed, may);
        size_t next = 0; /* the next entry of list and may */
        size_t end = left < CHUNK ? n : first + CHUNK;
        for (size_t i = first; i < end; i += 8) {
            size_t b = (i - first) / 8, step = end - i < 8 ? end - i : 8;
            unsigned done = b < blocks ? clear[b] : 0, screened = b < blocks ? screen[b] : 0;
            for (unsigned rest = ~done & ((1u << step) - 1); rest; rest &= rest - 1) {
                unsigned bit = rest & -rest;
                if ((screened & bit) && !may[next++])
                    continue;
                size_t k = i + (size_t)__builtin_ctz(rest);
                const uint8_t *rec = items + k * sizeof(bspkit_face);
                check_record_refs(c, BK_REC_FACES, k, rec, refs_hold_FACES, refs, nrefs, tn);
                check_quake_face(c, k, rec, qp);
            }
        }
    }
}
#endif

/* The texinfo bounds as quake_faces_clear8 reads them, in `buf` (`cap`
 * entries) or an allocation; NULL when that path cannot be taken. */
static uint32_t *bound32_table(const bk_lightmap_faces *lf, const light_data *ld, uint32_t *buf, size_t cap)
{
    if (!BK_CPU_AVX2 || !lf->avx2 || !lf->style_bytes_bound || lf->decoupled || lf->light_size > INT32_MAX - 1 ||
        ld->size > INT32_MAX || lf->texinfo_n > INT32_MAX)
        return NULL;
    uint32_t *t = lf->texinfo_n <= cap ? buf : malloc(lf->texinfo_n * sizeof *t);
    if (!t)
        return NULL;
    for (size_t k = 0; k < lf->texinfo_n; k++) {
        uint64_t b = lf->style_bytes_bound[k];
        t[k] = b <= (UINT32_C(1) << 29) ? (uint32_t)b : UINT32_MAX;
    }
    return t;
}

/* Quake-family faces: check_face's reports, with lightmap sizes from the
 * geometry a face at a time (check_quake_face), so no table of 88 bytes a
 * face is written and read back. When the geometry cannot be loaded (a
 * lump it reads failed to decode, reported elsewhere) the size check is
 * skipped. */
static void check_quake_faces(vctx *c, const light_data *ld)
{
    face_pass fp = {BK_REC_FACES, ld, NULL, 0, 0, bk_map_no_lightmap_flags(c->map)};
    bk_lightmap_faces lf;
    bspkit_error ignore;
    if (!ld->ok || ld->size == 0 || bk_lightmap_faces_begin(c->map, &lf, &ignore) != BSPKIT_OK) {
        check_records(c, FACES, NULL, check_face, &fp);
        return;
    }
    quake_face_pass qp = {fp, &lf};
    uint32_t buf[256];
    uint32_t *bound32 = bound32_table(&lf, ld, buf, sizeof buf / sizeof buf[0]);
#if BK_CPU_AVX2
    if (bound32)
        check_quake_faces_avx2(c, &qp, bound32);
    else
#endif
        check_records(c, FACES, NULL, check_quake_face, &qp);
    if (bound32 != buf)
        free(bound32);
    bk_lightmap_faces_end(&lf);
}

/* Source stores LDR and HDR lighting separately; HDR-only maps keep the
 * offsets of FACES pointing into LIGHTING_HDR. */
static void check_all_faces(vctx *c)
{
    light_data ldr = load_lighting(c, false);
    if (!c->source) {
        check_quake_faces(c, &ldr);
        return;
    }
    /* The sizes come from the faces' geometry alone, so the LDR table serves
     * FACES against either lighting lump. A table that cannot be built (a
     * lump it reads failed to decode, reported elsewhere) skips the size check. */
    const bspkit_face_lightmap *lms = NULL, *hdr_lms = NULL;
    size_t lm_n = 0, hdr_lm_n = 0;
    bspkit_error ignore;
    if (bspkit_get_face_lightmaps(c->map, false, &lms, &lm_n, &ignore) != BSPKIT_OK)
        lms = NULL;
    light_data hdr = load_lighting(c, true);
    const light_data *for_faces = &ldr;
    if (ldr.ok && ldr.size == 0 && hdr.ok && hdr.size > 0)
        for_faces = &hdr;
    check_faces(c, BK_REC_FACES, for_faces, lms, lm_n);
    /* Original faces are never lit; their light fields are leftovers. */
    check_faces(c, BK_REC_ORIG_FACES, NULL, NULL, 0);
    /* With FACES_HDR present the HDR table describes exactly those faces. */
    if (c->hdr_faces.ok && c->hdr_faces.n > 0 &&
        bspkit_get_face_lightmaps(c->map, true, &hdr_lms, &hdr_lm_n, &ignore) != BSPKIT_OK)
        hdr_lms = NULL;
    check_faces(c, BK_REC_HDR_FACES, &hdr, hdr_lms, hdr_lm_n);
}

/* ------------------------------------------------------------------------ */
/* Textures                                                                  */
/* ------------------------------------------------------------------------ */

static void check_texinfo(vctx *c)
{
    const bspkit_texinfo *ti = c->texinfo.items;
    /* Quake 2 texinfo names its texture instead of indexing one. */
    if (!c->texinfo.ok || (!c->source && !c->quake))
        return;
    int lump = lump_of(c, BK_REC_TEXINFO);
    const varr *target = c->source ? &c->texdata : &c->miptex;
    const char *name = c->source ? "texdata" : "miptex";
    /* A Source map without any texdata has nothing to point at; that is
     * odd but not a broken index. */
    if (!target->ok || (c->source && target->n == 0))
        return;
    for (size_t i = 0; i < c->texinfo.n; i++) {
        if (c->source && ti[i].texture < 0)
            /* The Source engine loads a negative texdata as the empty
             * material (with a developer message); buggy compilers write -1. */
            add_problem(c, BSPKIT_SEVERITY_WARNING, BSPKIT_ERR_INDEX, lump, (int64_t)i, rec_offset(c, lump, i), "texinfo %zu: texture %" PRId32 " names no texdata", i,
                        ti[i].texture);
        else if (ti[i].texture < 0 || (size_t)ti[i].texture >= target->n)
            index_error(c, lump, i, "texinfo", "texture %" PRId32 " exceeds %zu %s", ti[i].texture,
                        target->n, name);
    }
}

static void check_texdata(vctx *c)
{
    const int32_t *table = c->string_table.items;
    int table_lump = lump_of(c, BK_REC_STRING_TABLE), texdata_lump = lump_of(c, BK_REC_TEXDATA);
    uint32_t data_size = lump_size(c, bk_map_lump_for(c->map, BK_ROLE_TEXDATA_STRING_DATA));
    bool *bad_entry = NULL;

    if (c->string_table.ok && c->string_table.n > 0) {
        bad_entry = calloc(c->string_table.n, sizeof *bad_entry);
        if (!bad_entry) {
            c->nomem = true;
            return;
        }
        for (size_t i = 0; i < c->string_table.n; i++)
            if (table[i] < 0 || (uint32_t)table[i] >= data_size) {
                bad_entry[i] = true;
                index_error(c, table_lump, i, "string table entry",
                            "offset %" PRId32 " outside %" PRIu32 " bytes of TEXDATA_STRING_DATA", table[i],
                            data_size);
            }
    }

    const bspkit_texdata *td = c->texdata.items;
    if (c->texdata.ok) {
        for (size_t i = 0; i < c->texdata.n; i++) {
            int32_t id = td[i].name_id;
            if (c->string_table.ok && !in_range(&c->string_table, id)) {
                index_error(c, texdata_lump, i, "texdata", "name_id %" PRId32 " exceeds %zu string table entries",
                            id, c->string_table.n);
                continue;
            }
            /* A bad string table entry was reported above; anything else the
             * name lookup rejects is reported here. */
            if (c->string_table.ok && bad_entry && bad_entry[id])
                continue;
            if (c->string_table.ok && !bspkit_texdata_name(c->map, i))
                index_error(c, texdata_lump, i, "texdata", "name_id %" PRId32 " does not resolve to a name", id);
        }
    }
    free(bad_entry);
}

/* ------------------------------------------------------------------------ */
/* BSP tree                                                                  */
/* ------------------------------------------------------------------------ */

/* Whether `v` lies in [first, first + count): one unsigned comparison, so
 * children that are nodes or leafs at random cost no mispredicted branch. */
static inline bool in_interval(int32_t v, int64_t first, uint64_t count)
{
    return (uint64_t)((int64_t)v - first) < count;
}

/* Node children >= 0 are nodes, < 0 leafs -(child + 1). */
static void check_node_children(vctx *c, size_t i, const void *rec, void *arg)
{
    (void)arg;
    const bspkit_node *n = rec;
    /* The good children are one interval: leafs [-leafs, -1] (any negative
     * value when the leafs did not decode) and nodes [0, nodes). The loop
     * below runs only for a node that is wrong. */
    int64_t below = c->leafs.ok && c->leafs.n < (UINT64_C(1) << 31) ? (int64_t)c->leafs.n : INT64_C(1) << 31;
    uint64_t count = (uint64_t)below + c->nodes.n;
    if (in_interval(n->children[0], -below, count) && in_interval(n->children[1], -below, count))
        return;
    for (int k = 0; k < 2; k++) {
        int32_t ch = n->children[k];
        if (ch >= 0 && (size_t)ch >= c->nodes.n)
            index_error(c, lump_of(c, BK_REC_NODES), i, "node", "children[%d] %" PRId32 " exceeds %zu nodes", k, ch,
                        c->nodes.n);
        else if (ch < 0 && !in_range(&c->leafs, -((int64_t)ch + 1)))
            index_error(c, lump_of(c, BK_REC_NODES), i, "node", "children[%d] %" PRId32 " is leaf %" PRId64
                        " but there are %zu leafs", k, ch, -((int64_t)ch + 1), c->leafs.n);
    }
}

/* A leaf's visibility: a Source cluster, or a Quake/GoldSrc byte offset. */
static void check_leaf_vis(vctx *c, size_t i, const void *rec, void *arg)
{
    (void)arg;
    const bspkit_leaf *l = rec;
    if (c->cluster_vis) {
        if (c->have_vis && c->vis_rows > 0 && l->cluster != -1 &&
            (l->cluster < 0 || (uint32_t)l->cluster >= c->vis_rows))
            index_error(c, lump_of(c, BK_REC_LEAFS), i, "leaf", "cluster %" PRId32 " exceeds %" PRIu32 " clusters", l->cluster,
                        c->vis_rows);
        return;
    }
    uint32_t vis_size = c->vis_size;
    /* Leaf 0 is the shared solid leaf, never looked up, and an empty
     * VISIBILITY lump makes engines ignore every offset; both often carry 0
     * rather than -1. */
    if (i > 0 && vis_size > 0 && l->vis_offset != -1 && (l->vis_offset < 0 || (uint32_t)l->vis_offset >= vis_size))
        index_error(c, lump_of(c, BK_REC_LEAFS), i, "leaf", "vis_offset %" PRId32 " outside %" PRIu32 " bytes of VISIBILITY",
                    l->vis_offset, vis_size);
}

static void check_model_heads(vctx *c, size_t i, const void *rec, void *arg)
{
    (void)arg;
    const bspkit_model *m = rec;
    /* Source point-sized brush entities (no faces) may carry a head node
     * that is not in the tree. */
    bool skip_head = (c->source && m->num_faces == 0) || c->quake3; /* Quake 3: no head nodes */
    if (!skip_head && !in_range(&c->nodes, m->headnode[0]))
        index_error(c, lump_of(c, BK_REC_MODELS), i, "model", "headnode[0] %" PRId32 " exceeds %zu nodes", m->headnode[0],
                    c->nodes.n);
    if (!c->quake || !c->clipnodes.ok || c->clipnodes.n == 0)
        return;
    for (int h = 1; h < 4; h++) {
        int32_t hn = m->headnode[h];
        /* A negative head node is a hull that is all one contents. hlbsp
         * leaves the head node of a hull it did not write (non-solid models
         * such as func_illusionary) at the clipnode count; nothing traces
         * those hulls. */
        bool ok = hn < 0 ? hn >= Q_CONTENTS_MIN : (size_t)hn <= c->clipnodes.n;
        if (!ok)
            index_error(c, BSPKIT_Q_MODELS, i, "model", "headnode[%d] %" PRId32 " exceeds %zu clipnodes", h, hn,
                        c->clipnodes.n);
    }
}

/* Clipnode children >= 0 are clipnodes, < 0 contents values. */
static void check_clipnode_children(vctx *c, size_t i, const void *rec, void *arg)
{
    (void)arg;
    const bspkit_clipnode *cn = rec;
    /* As for nodes: the good children are the interval [-15, clipnodes). */
    uint64_t count = c->clipnodes.n - Q_CONTENTS_MIN;
    if (in_interval(cn->children[0], Q_CONTENTS_MIN, count) && in_interval(cn->children[1], Q_CONTENTS_MIN, count))
        return;
    for (int k = 0; k < 2; k++) {
        int32_t ch = cn->children[k];
        if (ch >= 0 && (size_t)ch >= c->clipnodes.n)
            index_error(c, BSPKIT_Q_CLIPNODES, i, "clipnode", "children[%d] %" PRId32 " exceeds %zu clipnodes", k,
                        ch, c->clipnodes.n);
        else if (ch < 0 && ch < Q_CONTENTS_MIN)
            index_error(c, BSPKIT_Q_CLIPNODES, i, "clipnode", "children[%d] %" PRId32 " is not a contents value (-15..-1)",
                        k, ch);
    }
}

/* Clipnode, node and brush side screens: true only when check_records
 * would find nothing in any record (then it need not run). Each field they check is
 * tested as (uint32_t)(value - base) < limit, a 32-bit lane of a vector.
 * Limits are cut to 2^31, which only makes a test stricter: a value below
 * the interval's start then wraps to 2^31 or more and fails, as do values
 * past it, so a test passes only where the exact one does. Spans are also
 * tested part by part (each at most the target count, below 2^31), so that
 * their sum, tested last, cannot wrap. */
typedef struct lane_test {
    uint32_t base, limit;
} lane_test;

#define LANE_LIMIT (UINT32_C(1) << 31)

static inline lane_test interval(int64_t first, uint64_t count)
{
    return (lane_test){(uint32_t)first, count > LANE_LIMIT ? LANE_LIMIT : (uint32_t)count};
}

static inline bool lane_fits(int32_t v, lane_test t)
{
    return (uint32_t)v - t.base < t.limit;
}

#if defined(__SSE2__)
/* Whether each lane of `v` passes its test (bases b, limits l), as all
 * ones per lane, ANDed into `ok`; the lanes of `free` pass whatever they
 * hold. Unsigned order is signed order with the top bit flipped. */
static inline __m128i lanes_fit(__m128i ok, __m128i v, __m128i b, __m128i l, __m128i free)
{
    const __m128i top = _mm_set1_epi32((int)0x80000000u);
    const __m128i fits = _mm_cmpgt_epi32(_mm_xor_si128(l, top), _mm_xor_si128(_mm_sub_epi32(v, b), top));
    return _mm_and_si128(ok, _mm_or_si128(fits, free));
}

static inline bool all_lanes(__m128i ok)
{
    return _mm_movemask_epi8(ok) == 0xFFFF;
}
#endif

#if BK_CPU_AVX2
/* lanes_fit eight lanes at a time. */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) __m256i
lanes_fit256(__m256i ok, __m256i v, __m256i b, __m256i l, __m256i free)
{
    const __m256i top = _mm256_set1_epi32((int)0x80000000u);
    const __m256i fits = _mm256_cmpgt_epi32(_mm256_xor_si256(l, top), _mm256_xor_si256(_mm256_sub_epi32(v, b), top));
    return _mm256_and_si256(ok, _mm256_or_si256(fits, free));
}
#endif

/* A span's test for its first, its count and their sum: at most the
 * target's count (and below 2^31). */
static inline lane_test span_part(uint64_t targets)
{
    return interval(0, targets + 1);
}

/* A record of `lanes` 32-bit lanes (at most MAX_RECORD_LANES), each with
 * its test or free. */
#define MAX_RECORD_LANES 8
typedef struct record_tests {
    size_t lanes;
    lane_test test[MAX_RECORD_LANES];
    bool free[MAX_RECORD_LANES];
} record_tests;

/* The tests of lanes first .. first + width of records laid end to end
 * (lane j of the run is field (first + j) % lanes), as vectors take them:
 * bases, limits, and all ones for free lanes. */
static void lane_run(const record_tests *t, size_t first, size_t width, uint32_t *base, uint32_t *limit,
                     uint32_t *free)
{
    for (size_t q = 0; q < width; q++) {
        size_t j = (first + q) % t->lanes;
        base[q] = t->test[j].base;
        limit[q] = t->test[j].limit;
        free[q] = t->free[j] ? UINT32_MAX : 0;
    }
}

#if BK_CPU_AVX2
/* records_fine's vectors eight records at a time, over the first *done
 * records (the rest is the caller's). */
__attribute__((target("avx2"))) static bool records_fine_avx2(const int32_t *w, size_t n, const record_tests *t,
                                                              size_t *done)
{
    const size_t lanes = t->lanes;
    __m256i base[MAX_RECORD_LANES], limit[MAX_RECORD_LANES], free[MAX_RECORD_LANES];
    for (size_t k = 0; k < lanes; k++) {
        uint32_t b[8], l[8], f[8];
        lane_run(t, 8 * k, 8, b, l, f);
        base[k] = _mm256_loadu_si256((const __m256i *)(const void *)b);
        limit[k] = _mm256_loadu_si256((const __m256i *)(const void *)l);
        free[k] = _mm256_loadu_si256((const __m256i *)(const void *)f);
    }
    __m256i ok = _mm256_set1_epi32(-1);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i *v = (const __m256i *)(const void *)(w + i * lanes);
        for (size_t k = 0; k < lanes; k++)
            ok = lanes_fit256(ok, _mm256_loadu_si256(v + k), base[k], limit[k], free[k]);
    }
    *done = i;
    return _mm256_movemask_epi8(ok) == -1;
}
#endif

/* Whether every lane of records[0 .. n) passes its test: four records are
 * `lanes` whole vectors, whose lanes' tests repeat from one group of four
 * to the next; the records after the last group are tested one by one. */
static bool records_fine(const void *records, size_t n, const record_tests *t)
{
    const int32_t *w = records;
    const size_t lanes = t->lanes;
    size_t i = 0;
#if BK_CPU_AVX2
    if (n >= 8 && bk_cpu_has_avx2() && !records_fine_avx2(w, n, t, &i))
        return false;
#endif
#if defined(__SSE2__)
    __m128i base[MAX_RECORD_LANES], limit[MAX_RECORD_LANES], free[MAX_RECORD_LANES];
    for (size_t k = 0; k < lanes; k++) {
        uint32_t b[4], l[4], f[4];
        lane_run(t, 4 * k, 4, b, l, f);
        base[k] = _mm_loadu_si128((const __m128i *)(const void *)b);
        limit[k] = _mm_loadu_si128((const __m128i *)(const void *)l);
        free[k] = _mm_loadu_si128((const __m128i *)(const void *)f);
    }
    __m128i ok = _mm_set1_epi32(-1);
    for (; i + 4 <= n; i += 4) {
        const __m128i *v = (const __m128i *)(const void *)(w + i * lanes);
        for (size_t k = 0; k < lanes; k++)
            ok = lanes_fit(ok, _mm_loadu_si128(v + k), base[k], limit[k], free[k]);
    }
    if (!all_lanes(ok))
        return false;
#endif
    unsigned fine = 1;
    for (; i < n; i++)
        for (size_t j = 0; j < lanes; j++)
            fine &= (unsigned)(t->free[j] || lane_fits(w[i * lanes + j], t->test[j]));
    return fine;
}

static bool clipnodes_fine(const vctx *c)
{
    _Static_assert(sizeof(bspkit_clipnode) == 12, "a clipnode is its plane and two children");
    /* check_clipnode_children's interval: contents [-15, -1] and clipnodes. */
    const lane_test child = interval(Q_CONTENTS_MIN, (uint64_t)c->clipnodes.n - Q_CONTENTS_MIN);
    const record_tests t = {3, {interval(0, c->target_n[BK_REC_PLANES]), child, child}, {false}};
    return records_fine(c->clipnodes.items, c->clipnodes.n, &t);
}

/* "None" (-1), and for the displacement also 0, or a record of the target:
 * as in index_fits. */
static bool brushsides_fine(const vctx *c)
{
    _Static_assert(sizeof(bspkit_brushside) == 20 && offsetof(bspkit_brushside, plane) == 0 &&
                       offsetof(bspkit_brushside, texinfo) == 4 && offsetof(bspkit_brushside, dispinfo) == 8 &&
                       offsetof(bspkit_brushside, shader) == 16,
                   "a brush side's lanes: plane, texinfo, dispinfo, bevel and thin, shader");
    const uint64_t disp = c->target_n[BK_REF_TO_DISPINFO];
    const record_tests t = {5,
                            {interval(0, c->target_n[BK_REC_PLANES]), interval(-1, c->target_n[BK_REC_TEXINFO] + 1),
                             interval(-1, (disp > 0 ? disp : 1) + 1), {0, 0},
                             interval(-1, c->target_n[BK_REC_SHADERS] + 1)},
                            {false, false, false, true, false}};
    return records_fine(c->brushsides.items, c->brushsides.n, &t);
}

#if BK_CPU_AVX2
/* nodes_fine's vectors for two nodes at a time (one in each half), over
 * the first *done nodes (the rest is the caller's). */
__attribute__((target("avx2"))) static bool nodes_fine_avx2(const bspkit_node *nd, size_t n, lane_test plane,
                                                            lane_test child, lane_test face, size_t *done)
{
    const __m256i b0 = _mm256_setr_epi32((int)plane.base, (int)child.base, (int)child.base, 0, (int)plane.base,
                                         (int)child.base, (int)child.base, 0),
                  l0 = _mm256_setr_epi32((int)plane.limit, (int)child.limit, (int)child.limit, 0, (int)plane.limit,
                                         (int)child.limit, (int)child.limit, 0),
                  f0 = _mm256_setr_epi32(0, 0, 0, -1, 0, 0, 0, -1),
                  l2 = _mm256_setr_epi32(0, (int)face.limit, (int)face.limit, 0, 0, (int)face.limit,
                                         (int)face.limit, 0),
                  f2 = _mm256_setr_epi32(-1, 0, 0, -1, -1, 0, 0, -1), fs = _mm256_setr_epi32(-1, 0, -1, -1, -1, 0, -1, -1),
                  zero = _mm256_setzero_si256();
    __m256i ok = _mm256_set1_epi32(-1);
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        const __m128i *a = (const __m128i *)(const void *)&nd[i], *b = (const __m128i *)(const void *)&nd[i + 1];
        const __m256i first = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(a)), _mm_loadu_si128(b), 1);
        const __m256i third =
            _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(a + 2)), _mm_loadu_si128(b + 2), 1);
        ok = lanes_fit256(ok, first, b0, l0, f0);
        ok = lanes_fit256(ok, third, zero, l2, f2);
        ok = lanes_fit256(ok, _mm256_add_epi32(third, _mm256_srli_si256(third, 4)), zero, l2, fs);
    }
    *done = i;
    return _mm256_movemask_epi8(ok) == -1;
}
#endif

/* Nodes have vectors of their own rather than records_fine's: eight of a
 * node's twelve lanes are free, and the span's sum needs two lanes added. */
static bool nodes_fine(const vctx *c)
{
    const bspkit_node *nd = c->nodes.items;
    const size_t n = c->nodes.n;
    /* check_node_children's interval: leafs [-leafs, -1] and nodes [0, nodes). */
    const int64_t below = c->leafs.ok && c->leafs.n < (UINT64_C(1) << 31) ? (int64_t)c->leafs.n : INT64_C(1) << 31;
    const lane_test plane = interval(0, c->target_n[BK_REC_PLANES]), child = interval(-below, (uint64_t)below + n),
                    face = span_part(c->target_n[BK_REC_FACES]);
    _Static_assert(sizeof(bspkit_node) == 48 && offsetof(bspkit_node, children) == 4 &&
                       offsetof(bspkit_node, first_face) == 36 && offsetof(bspkit_node, num_faces) == 40,
                   "a node is three vectors: plane and children lead the first, the faces' span is inside the third");
    size_t i = 0;
#if BK_CPU_AVX2
    if (n >= 2 && bk_cpu_has_avx2() && !nodes_fine_avx2(nd, n, plane, child, face, &i))
        return false;
#endif
#if defined(__SSE2__)
    /* Lanes 0-2 of a node's first vector; lanes 1-2 of its third, and
     * their sum in lane 1. The other lanes are free. */
    const __m128i b0 = _mm_setr_epi32((int)plane.base, (int)child.base, (int)child.base, 0),
                  l0 = _mm_setr_epi32((int)plane.limit, (int)child.limit, (int)child.limit, 0),
                  f0 = _mm_setr_epi32(0, 0, 0, -1), l2 = _mm_setr_epi32(0, (int)face.limit, (int)face.limit, 0),
                  f2 = _mm_setr_epi32(-1, 0, 0, -1), fs = _mm_setr_epi32(-1, 0, -1, -1), zero = _mm_setzero_si128();
    __m128i ok = _mm_set1_epi32(-1);
    for (; i < n; i++) {
        const __m128i *v = (const __m128i *)(const void *)&nd[i];
        const __m128i third = _mm_loadu_si128(v + 2);
        ok = lanes_fit(ok, _mm_loadu_si128(v), b0, l0, f0);
        ok = lanes_fit(ok, third, zero, l2, f2);
        ok = lanes_fit(ok, _mm_add_epi32(third, _mm_srli_si128(third, 4)), zero, l2, fs);
    }
    return all_lanes(ok);
#else
    unsigned fine = 1;
    for (; i < n; i++)
        fine &= (unsigned)lane_fits(nd[i].plane, plane) & (unsigned)lane_fits(nd[i].children[0], child) &
                (unsigned)lane_fits(nd[i].children[1], child) &
                (unsigned)lane_fits((int32_t)nd[i].first_face, face) &
                (unsigned)lane_fits((int32_t)nd[i].num_faces, face) &
                (unsigned)lane_fits((int32_t)(nd[i].first_face + nd[i].num_faces), face);
    return fine;
#endif
}

/* ---- lumps outside the core: props, overlays, displacements, ambient ---- */

static void check_static_props(vctx *c)
{
    const bspkit_static_props *sp;
    bspkit_error e;
    memset(&e, 0, sizeof e);
    if (!loaded(c, bspkit_get_static_props(c->map, &sp, &e), &e, BSPKIT_S_GAME_LUMP))
        return;
    for (size_t i = 0; i < sp->leaf_count; i++)
        if (!in_range(&c->leafs, sp->leafs[i]))
            add_problem(c, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_S_GAME_LUMP, (int64_t)i, -1,
                        "sprp leaf %zu: leaf %" PRIu32 " exceeds %zu leafs", i, sp->leafs[i], c->leafs.n);
    for (size_t i = 0; i < sp->prop_count; i++) {
        const bspkit_static_prop *p = &sp->props[i];
        if (p->prop_type >= sp->dictionary_count)
            add_problem(c, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_S_GAME_LUMP, (int64_t)i, -1,
                        "static prop %zu: PropType %u exceeds the %zu dictionary names", i, p->prop_type,
                        sp->dictionary_count);
        if ((size_t)p->first_leaf + p->leaf_count > sp->leaf_count)
            add_problem(c, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_S_GAME_LUMP, (int64_t)i, -1,
                        "static prop %zu: leafs %u+%u exceed the %zu-entry leaf array", i, p->first_leaf,
                        p->leaf_count, sp->leaf_count);
    }
}

static void check_overlays(vctx *c)
{
    const bspkit_overlay *ov;
    size_t n;
    bspkit_error e;
    memset(&e, 0, sizeof e);
    if (!loaded(c, bspkit_get_overlays(c->map, &ov, &n, &e), &e, BSPKIT_S_OVERLAYS))
        return;
    for (size_t i = 0; i < n; i++) {
        if (!in_range(&c->texinfo, ov[i].texinfo))
            index_error(c, BSPKIT_S_OVERLAYS, i, "overlay", "texinfo %" PRId32 " exceeds %zu texinfos",
                        ov[i].texinfo, c->texinfo.n);
        if (ov[i].face_count > BSPKIT_OVERLAY_FACES) {
            index_error(c, BSPKIT_S_OVERLAYS, i, "overlay", "%u faces, more than the %d a record holds",
                        ov[i].face_count, BSPKIT_OVERLAY_FACES);
            continue;
        }
        for (unsigned k = 0; k < ov[i].face_count; k++)
            if (!in_range(c->tree_faces, ov[i].faces[k]))
                index_error(c, BSPKIT_S_OVERLAYS, i, "overlay", "face %" PRId32 " exceeds %zu faces",
                            ov[i].faces[k], c->tree_faces->n);
    }
}

static void check_displacements(vctx *c)
{
    const bspkit_dispinfo *di;
    const bspkit_disp_vert *dv;
    const uint16_t *tags;
    size_t n, nverts, ntris;
    bspkit_error e;
    memset(&e, 0, sizeof e);
    if (!loaded(c, bspkit_get_dispinfo(c->map, &di, &n, &e), &e, BSPKIT_S_DISPINFO) ||
        !loaded(c, bspkit_get_disp_verts(c->map, &dv, &nverts, &e), &e, BSPKIT_S_DISP_VERTS) ||
        !loaded(c, bspkit_get_disp_tris(c->map, &tags, &ntris, &e), &e, BSPKIT_S_DISP_TRIS))
        return;
    for (size_t i = 0; i < n; i++) {
        if (di[i].power < 2 || di[i].power > 4) {
            index_error(c, BSPKIT_S_DISPINFO, i, "dispinfo", "power %" PRId32 " outside 2..4", di[i].power);
            continue;
        }
        if (!in_range(c->tree_faces, di[i].map_face))
            index_error(c, BSPKIT_S_DISPINFO, i, "dispinfo", "MapFace %" PRIu32 " exceeds %zu faces", di[i].map_face,
                        c->tree_faces->n);
        uint64_t verts = bspkit_disp_vert_count(di[i].power), tris = bspkit_disp_tri_count(di[i].power);
        if (di[i].disp_vert_start < 0 || (uint64_t)di[i].disp_vert_start + verts > nverts)
            index_error(c, BSPKIT_S_DISPINFO, i, "dispinfo", "DispVertStart %" PRId32 " + %" PRIu64
                        " vertices exceeds %zu dispverts", di[i].disp_vert_start, verts, nverts);
        /* Some compilers leave DISP_TRIS empty; only a present lump is checked. */
        if (ntris && (di[i].disp_tri_start < 0 || (uint64_t)di[i].disp_tri_start + tris > ntris))
            index_error(c, BSPKIT_S_DISPINFO, i, "dispinfo", "DispTriStart %" PRId32 " + %" PRIu64
                        " triangles exceeds %zu disptris", di[i].disp_tri_start, tris, ntris);
    }
}

static void check_leaf_ambient(vctx *c)
{
    for (int hdr = 0; hdr < 2; hdr++) {
        const bspkit_leaf_ambient *la;
        bspkit_error e;
        memset(&e, 0, sizeof e);
        int lump = hdr ? BSPKIT_S_LEAF_AMBIENT_INDEX_HDR : BSPKIT_S_LEAF_AMBIENT_INDEX;
        const char *name = hdr ? "LEAF_AMBIENT_INDEX_HDR" : "LEAF_AMBIENT_INDEX";
        if (!loaded(c, bspkit_get_leaf_ambient(c->map, hdr != 0, &la, &e), &e, lump))
            continue;
        if (la->bad_ranges)
            add_problem(c, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, lump, -1, -1,
                        "%s: %zu leafs' sample ranges run past the %zu ambient samples", name, la->bad_ranges, la->sample_count);
        if (la->index_count && c->leafs.ok && la->index_count != c->leafs.n)
            add_problem(c, BSPKIT_SEVERITY_WARNING, BSPKIT_ERR_INDEX, lump, -1, -1,
                        "%s: %zu entries for %zu leafs", name, la->index_count, c->leafs.n);
    }
}

/* ------------------------------------------------------------------------ */
/* Visibility                                                                */
/* ------------------------------------------------------------------------ */

static void vis_failure(vctx *c, uint32_t index, const char *what, const bspkit_error *e)
{
    add_problem(c, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_VISIBILITY, bk_map_lump_for(c->map, BK_ROLE_VISIBILITY), index,
                e->offset,
                "%s %" PRIu32 ": %s", what, index, e->message[0] ? e->message : bspkit_strerror(e->code));
}

static void check_vis_rows(vctx *c)
{
    if (!c->have_vis || c->vis_rows == 0 || c->vis_row_bytes == 0)
        return;
    uint32_t rows = c->vis_rows < MAX_VIS_ROWS ? c->vis_rows : MAX_VIS_ROWS;
    bspkit_error e;
    memset(&e, 0, sizeof e);
    /* Rows are walked in place; a row that fails is asked again through
     * bk_vis_row_check, which says why. */
    bk_vis_rows v;
    bool direct = bk_vis_rows_init(c->map, &v);
    /* Usually the rows follow one another and all of them are shown to
     * decode at once; then only clusters whose rows start outside the lump
     * are asked one by one (leafs with such offsets are reported with the
     * leafs, and skipped below). */
    bool together = direct && bk_vis_rows_fine_together(&v, rows, !c->quake3);
    if (c->cluster_vis) {
        for (uint32_t i = 0; i < rows && !c->nomem; i++) {
            if (!(together && bk_vis_row_inside(&v, i, BSPKIT_VIS_PVS)) &&
                !(direct && bk_vis_row_fine(&v, i, BSPKIT_VIS_PVS)) &&
                bk_vis_row_check(c->map, i, BSPKIT_VIS_PVS, &e) != BSPKIT_OK)
                vis_failure(c, i, "PVS of cluster", &e);
            if (!c->quake3 && !(together && bk_vis_row_inside(&v, i, BSPKIT_VIS_PAS)) &&
                !(direct && bk_vis_row_fine(&v, i, BSPKIT_VIS_PAS)) &&
                bk_vis_row_check(c->map, i, BSPKIT_VIS_PAS, &e) != BSPKIT_OK)
                vis_failure(c, i, "PAS of cluster", &e);
        }
    } else if (c->leafs.ok && !together) {
        const bspkit_leaf *leafs = c->leafs.items;
        uint32_t vis_size = c->vis_size;
        /* Row i is leaf i + 1; leaf 0 is the shared solid leaf. Leaves
         * whose offset is already reported, or absent, are not decoded. */
        for (uint32_t leaf = 1; leaf <= rows && leaf < c->leafs.n && !c->nomem; leaf++) {
            int32_t ofs = leafs[leaf].vis_offset;
            if (ofs < 0 || (uint32_t)ofs >= vis_size)
                continue;
            if (!(direct && bk_vis_row_fine(&v, leaf, BSPKIT_VIS_PVS)) &&
                bk_vis_row_check(c->map, leaf, BSPKIT_VIS_PVS, &e) != BSPKIT_OK)
                vis_failure(c, leaf, "PVS of leaf", &e);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Quake 3 surfaces and fogs                                                 */
/* ------------------------------------------------------------------------ */

/* What the table cannot say about a surface: its kind, a patch's control
 * grid, indices inside its own vertices, and its lightmap page. */
static void check_surface(vctx *c, size_t i, const void *rec, void *arg)
{
    (void)arg;
    const bspkit_surface *s = rec;
    int lump = lump_of(c, BK_REC_SURFACES);
    if (s->type < BSPKIT_Q3_SURFACE_PLANAR || s->type > BSPKIT_Q3_SURFACE_FLARE) {
        index_error(c, lump, i, "surface", "surfaceType %" PRId32 " is not 1..4", s->type);
        return;
    }
    if (s->type == BSPKIT_Q3_SURFACE_PATCH) {
        bool odd = s->patch_width >= 3 && s->patch_height >= 3 && (s->patch_width & 1) && (s->patch_height & 1);
        if (!odd || (int64_t)s->patch_width * s->patch_height != s->num_verts)
            index_error(c, lump, i, "surface", "patch of %" PRId32 " x %" PRId32 " control points, %" PRId32
                        " vertices (odd sizes of at least 3, one vertex per point)",
                        s->patch_width, s->patch_height, s->num_verts);
    }
    if (s->lightmap >= 0 && c->lightmap_pages_known && (uint64_t)s->lightmap >= c->lightmap_pages)
        index_error(c, lump, i, "surface", "lightmapNum %" PRId32 " exceeds %" PRIu64 " lightmap pages", s->lightmap,
                    c->lightmap_pages);
    if (!c->drawindexes.ok || s->first_index < 0 || s->num_indexes < 0 ||
        (uint64_t)s->first_index + (uint64_t)s->num_indexes > c->drawindexes.n)
        return; /* the span itself is reported from the table */
    const int32_t *idx = (const int32_t *)c->drawindexes.items + s->first_index;
    /* All inside [0, num_verts) in one vectorised pass; the loop below finds the first that is not. */
    if (indices_below((const uint32_t *)(const void *)idx, (size_t)s->num_indexes,
                      s->num_verts > 0 ? (uint32_t)s->num_verts : 0, false))
        return;
    for (int32_t k = 0; k < s->num_indexes; k++)
        if (idx[k] < 0 || idx[k] >= s->num_verts) {
            index_error(c, lump, i, "surface", "drawindex %" PRId64 " = %" PRId32 " outside its %" PRId32 " vertices",
                        (int64_t)s->first_index + k, idx[k], s->num_verts);
            return;
        }
}

/* A fog's visible side is a side of its brush. */
static void check_fog_side(vctx *c, size_t i, const void *rec, void *arg)
{
    (void)arg;
    const bspkit_fog *f = rec;
    if (f->visible_side == -1 || !c->brushes.ok || f->brush < 0 || (size_t)f->brush >= c->brushes.n)
        return;
    const bspkit_brush *b = (const bspkit_brush *)c->brushes.items + f->brush;
    if (f->visible_side < 0 || f->visible_side >= b->num_sides)
        index_error(c, lump_of(c, BK_REC_FOGS), i, "fog", "visibleSide %" PRId32 " outside brush %" PRId32
                    "'s %" PRId32 " sides", f->visible_side, f->brush, b->num_sides);
}

/* The light grid covers the world model's bounds in steps of worldspawn's
 * "gridsize" (default 64 64 128) from the grid points at or inside them, x
 * fastest; the engine ignores a grid of any other cell count. */
static void check_lightgrid(vctx *c)
{
    const bspkit_lightgrid_cell *cells;
    size_t n;
    bspkit_error e;
    if (bspkit_get_lightgrid(c->map, &cells, &n, &e) != BSPKIT_OK || n == 0 || !c->models.ok || c->models.n == 0)
        return;
    double size[3] = {64, 64, 128};
    const bspkit_entities *ents;
    if (bspkit_get_entities(c->map, &ents, &e) == BSPKIT_OK) {
        for (size_t i = 0; i < ents->count; i++) {
            const char *cls = bspkit_entity_value(ents, i, "classname"), *gs;
            double g[3];
            if (cls && strcmp(cls, "worldspawn") == 0 && (gs = bspkit_entity_value(ents, i, "gridsize")) &&
                sscanf(gs, "%lf %lf %lf", &g[0], &g[1], &g[2]) == 3 && g[0] >= 1 && g[1] >= 1 && g[2] >= 1)
                memcpy(size, g, sizeof size);
        }
    }
    const bspkit_model *world = c->models.items;
    const float lo[3] = {world->mins.x, world->mins.y, world->mins.z};
    const float hi[3] = {world->maxs.x, world->maxs.y, world->maxs.z};
    double cells_along[3];
    for (int a = 0; a < 3; a++) {
        double first = size[a] * ceil(lo[a] / size[a]), last = size[a] * floor(hi[a] / size[a]);
        cells_along[a] = (last - first) / size[a] + 1;
        if (!(cells_along[a] >= 1 && cells_along[a] < 1e7))
            return; /* bounds the model checks report */
    }
    double want = cells_along[0] * cells_along[1] * cells_along[2];
    if ((double)n != want)
        add_problem(c, BSPKIT_SEVERITY_WARNING, BSPKIT_ERR_LUMP_SIZE, BSPKIT_Q3_LIGHTGRID, -1,
                    byte_offset(c, BSPKIT_Q3_LIGHTGRID, 0),
                    "LIGHTGRID: %zu cells, but the world's bounds in steps of %g %g %g give %g x %g x %g = %g "
                    "(the engine ignores the grid)",
                    n, size[0], size[1], size[2], cells_along[0], cells_along[1], cells_along[2], want);
}

/* ------------------------------------------------------------------------ */
/* Quake compiler checks (what ericw-tools' bsputil --check looks at)        */
/* ------------------------------------------------------------------------ */

/* Off-plane tolerance for face vertices: qbsp's ON_EPSILON. */
#define OFF_PLANE_EPSILON 0.1

/* Warnings, never errors, and only on request: engines load such maps, and
 * real compilers' output often has them. Nodes and clipnodes whose two children are
 * the same (the split decides nothing), and, summed up in one line each,
 * planes and texinfo that nothing references and faces with a vertex off
 * their plane. */
static void check_quake_compiler_output(vctx *c)
{
    if (!c->quake || !(c->flags & BSPKIT_VALIDATE_COMPILER_LINT))
        return;
    const bspkit_node *nodes = c->nodes.items;
    for (size_t i = 0; c->nodes.ok && i < c->nodes.n; i++)
        if (nodes[i].children[0] == nodes[i].children[1])
            add_problem(c, BSPKIT_SEVERITY_WARNING, BSPKIT_ERR_INDEX, BSPKIT_Q_NODES, (int64_t)i,
                        rec_offset(c, BSPKIT_Q_NODES, i), "node %zu: both children are %" PRId32, i,
                        nodes[i].children[0]);
    const bspkit_clipnode *clip = c->clipnodes.items;
    for (size_t i = 0; c->clipnodes.ok && i < c->clipnodes.n; i++)
        if (clip[i].children[0] == clip[i].children[1])
            add_problem(c, BSPKIT_SEVERITY_WARNING, BSPKIT_ERR_INDEX, BSPKIT_Q_CLIPNODES, (int64_t)i,
                        rec_offset(c, BSPKIT_Q_CLIPNODES, i), "clipnode %zu: both children are %" PRId32, i,
                        clip[i].children[0]);

    if (!c->planes.ok || !c->texinfo.ok || !c->faces.ok || !c->nodes.ok)
        return;
    /* One spare entry: the pair partner of the last plane of an odd count. */
    bool *plane_used = calloc(c->planes.n + 1, 1), *texinfo_used = calloc(c->texinfo.n + 1, 1);
    if (!plane_used || !texinfo_used) {
        free(plane_used);
        free(texinfo_used);
        c->nomem = true;
        return;
    }
    for (size_t i = 0; i < c->nodes.n; i++)
        if (nodes[i].plane >= 0 && (size_t)nodes[i].plane < c->planes.n)
            plane_used[nodes[i].plane] = true;
    for (size_t i = 0; c->clipnodes.ok && i < c->clipnodes.n; i++)
        if (clip[i].plane >= 0 && (size_t)clip[i].plane < c->planes.n)
            plane_used[clip[i].plane] = true;
    const bspkit_face *faces = c->faces.items;
    const bspkit_plane *planes = c->planes.items;
    const int32_t *se = c->surfedges.items;
    size_t off_plane = 0, worst_face = 0;
    double worst = 0;
    for (size_t i = 0; i < c->faces.n; i++) {
        const bspkit_face *f = &faces[i];
        if ((size_t)f->plane < c->planes.n)
            plane_used[f->plane] = true;
        if (f->texinfo >= 0 && (size_t)f->texinfo < c->texinfo.n)
            texinfo_used[f->texinfo] = true;
        if ((size_t)f->plane >= c->planes.n || !c->surfedges.ok || !c->edges.ok || !c->vertexes.ok ||
            f->first_edge < 0 || f->num_edges < 0 || !span_ok(&c->surfedges, f->first_edge, f->num_edges))
            continue;
        const bspkit_plane *pl = &planes[f->plane];
        double face_worst = 0;
        for (int32_t k = 0; k < f->num_edges; k++) {
            int64_t v = bk_surfedge_vertex(se[f->first_edge + k], c->edges.items, c->edges.n, c->vertexes.n);
            if (v < 0)
                continue;
            const bspkit_vec3 *p = &((const bspkit_vec3 *)c->vertexes.items)[v];
            double d = (double)pl->normal.x * p->x + (double)pl->normal.y * p->y + (double)pl->normal.z * p->z -
                       (double)pl->dist;
            d = d < 0 ? -d : d;
            face_worst = d > face_worst ? d : face_worst;
        }
        if (face_worst > OFF_PLANE_EPSILON) {
            off_plane++;
            if (face_worst > worst) {
                worst = face_worst;
                worst_face = i;
            }
        }
    }
    size_t unused_planes = 0, first_plane = 0, unused_texinfo = 0, first_texinfo = 0;
    /* Compilers store planes in facing pairs (2k, 2k + 1) and reference
     * whichever faces the split; a pair is unused only when both are. */
    for (size_t i = c->planes.n; i-- > 0;)
        if (!plane_used[i] && !plane_used[i ^ 1])
            unused_planes++, first_plane = i;
    for (size_t i = c->texinfo.n; i-- > 0;)
        if (!texinfo_used[i])
            unused_texinfo++, first_texinfo = i;
    free(plane_used);
    free(texinfo_used);
    if (unused_planes)
        add_problem(c, BSPKIT_SEVERITY_WARNING, BSPKIT_ERR_INDEX, BSPKIT_Q_PLANES, (int64_t)first_plane,
                    rec_offset(c, BSPKIT_Q_PLANES, first_plane),
                    "%zu of %zu planes are used by no node, clipnode or face (first: plane %zu)", unused_planes,
                    c->planes.n, first_plane);
    if (unused_texinfo)
        add_problem(c, BSPKIT_SEVERITY_WARNING, BSPKIT_ERR_INDEX, BSPKIT_Q_TEXINFO, (int64_t)first_texinfo,
                    rec_offset(c, BSPKIT_Q_TEXINFO, first_texinfo),
                    "%zu of %zu texinfo are used by no face (first: texinfo %zu)", unused_texinfo, c->texinfo.n,
                    first_texinfo);
    if (off_plane)
        add_problem(c, BSPKIT_SEVERITY_WARNING, BSPKIT_ERR_INDEX, BSPKIT_Q_FACES, (int64_t)worst_face,
                    rec_offset(c, BSPKIT_Q_FACES, worst_face),
                    "%zu faces have a vertex more than %.1f units off their plane (worst: face %zu, %.3g units)",
                    off_plane, OFF_PLANE_EPSILON, worst_face, worst);
}

/* A compile that stopped after its CSG stage (hlcsg, qbsp -onlyents style
 * runs) leaves planes, texinfo, textures and entities but no tree, faces or
 * models: no engine loads it, and no cross-reference is wrong. */
static void check_unfinished(vctx *c)
{
    bool no_tree = c->faces.ok && c->faces.n == 0 && c->nodes.ok && c->nodes.n == 0 && c->leafs.ok &&
                   c->leafs.n == 0 && c->models.ok && c->models.n == 0;
    if (no_tree && c->planes.ok && c->planes.n > 0)
        add_problem(c, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INCOMPLETE, -1, -1, -1,
                    "unfinished compile: %zu planes and %zu texinfo but no faces, nodes, leafs or models "
                    "(the compiler stopped after its CSG stage)",
                    c->planes.n, c->texinfo.n);
}

/* ------------------------------------------------------------------------ */
/* Titanfall 2 meshes                                                        */
/* ------------------------------------------------------------------------ */

/* What a table cannot say: a mesh's triangles lie inside MESH_INDICES, and
 * each index, counted from its material sort's first vertex, names a record
 * of the vertex lump the mesh's flags choose; MESH_BOUNDS runs parallel to
 * MESHES. */
static void check_r2_mesh(vctx *c, size_t i, const void *rec, void *arg)
{
    (void)arg;
    const bspkit_r2_mesh *m = rec;
    int lump = lump_of(c, BK_REC_R2_MESHES);
    uint64_t first = m->first_mesh_index, n = 3ull * m->num_triangles;
    if (!c->r2_indices.ok || !c->r2_sorts.ok || m->material_sort >= c->r2_sorts.n)
        return; /* a bad material sort was reported from the table */
    if (first + n > c->r2_indices.n) {
        index_error(c, lump, i, "mesh", "first_mesh_index %" PRIu64 " + 3 * num_triangles %" PRIu32
                    " exceeds %zu mesh indices", first, m->num_triangles, c->r2_indices.n);
        return;
    }
    /* The vertex lumps and their record kinds are in the same order. */
    int vlump = bspkit_r2_vertex_lump(m->flags);
    const varr *verts = records_of(c, BK_REC_R2_VERTEX_UNLIT + (vlump - BSPKIT_R2_VERTEX_UNLIT));
    if (!verts || !verts->ok)
        return;
    const uint32_t *idx = c->r2_indices.items;
    uint64_t base = ((const bspkit_r2_material_sort *)c->r2_sorts.items)[m->material_sort].vertex_offset;
    for (uint64_t k = first; k < first + n; k++)
        if (base + idx[k] >= verts->n) {
            const bspkit_lump_info *vinfo = lump_info(c, vlump);
            index_error(c, lump, i, "mesh", "mesh index %" PRIu64 " (%" PRIu32 ") + vertex_offset %" PRIu64
                        " exceeds %zu records of %s", k, idx[k], base, verts->n, vinfo ? vinfo->name : "its vertex lump");
            return;
        }
}

static void check_r2_mesh_bounds(vctx *c)
{
    if (c->r2_meshes.ok && c->r2_mesh_bounds.ok && c->r2_meshes.n != c->r2_mesh_bounds.n)
        add_problem(c, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, lump_of(c, BK_REC_R2_MESH_BOUNDS), -1, -1,
                    "%zu mesh bounds for %zu meshes (one each)", c->r2_mesh_bounds.n, c->r2_meshes.n);
}

/* ------------------------------------------------------------------------ */
/* Entities and limits                                                       */
/* ------------------------------------------------------------------------ */

/* A "model" value "*N": whether the digits are there (false for anything
 * else after '*'), and N (at most about 2^32: larger ones only need to
 * exceed the count). */
static bool model_number(const char *value, size_t length, uint64_t *number)
{
    uint64_t n = 0;
    bool digits = length > 1;
    for (size_t k = 1; k < length; k++) {
        char d = value[k];
        if (d < '0' || d > '9') {
            digits = false;
            break;
        }
        if (n < UINT32_MAX)
            n = n * 10 + (uint64_t)(d - '0');
    }
    *number = n;
    return digits;
}

/* Whether an entity's model value is fine: not a brush model ("*N"), or
 * one of the map's (any N when the models did not decode). */
static bool model_fits(const char *value, size_t length, void *arg)
{
    const vctx *c = arg;
    uint64_t n;
    if (length == 0 || value[0] != '*')
        return true;
    return model_number(value, length, &n) && (!c->models.ok || n < c->models.n);
}

/* The report for entity i's model value that model_fits refused; `source`
 * is the file beside the map the entity came from, or NULL. */
static void bad_model(vctx *c, size_t i, const char *source, uint32_t line, uint64_t offset, const char *value,
                      size_t length)
{
    uint64_t n;
    bool digits = model_number(value, length, &n);
    char shown[40];
    snprintf(shown, sizeof shown, "%.*s", length > 39 ? 39 : (int)length, value);
    /* Entities of a file beside the map (a .ent partition) have no offset in the map. */
    int64_t ofs = source ? -1 : byte_offset(c, BSPKIT_S_ENTITIES, offset);
    const char *where = source ? source : "line";
    if (digits)
        add_problem(c, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_S_ENTITIES, (int64_t)i, ofs,
                    "entity %zu (%s %" PRIu32 "): model \"%s\" exceeds %zu models", i, where, line, shown,
                    c->models.n);
    else
        add_problem(c, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_S_ENTITIES, (int64_t)i, ofs,
                    "entity %zu (%s %" PRIu32 "): model \"%s\" is not a brush model number", i, where, line,
                    shown);
}

/* Entity text of the plain shape, read without making the entity list:
 * the same reports, and the count the limits need. False when the list is
 * to be read instead (already made, entities from other files, text of
 * another shape). */
static bool check_plain_entities(vctx *c)
{
    bspkit_map *map = c->map;
    const uint8_t *text;
    size_t size, count, bad_count;
    bk_model_ref *bad;
    if (map->entities_done || map->family_ops->more_entities ||
        bk_lump_bytes(map, 0, &text, &size, NULL) != BSPKIT_OK ||
        !bk_entities_scan_models((const char *)text, size, model_fits, c, &count, &bad, &bad_count))
        return false;
    for (size_t k = 0; k < bad_count; k++)
        bad_model(c, bad[k].entity, NULL, bad[k].line, bad[k].offset, bad[k].value, bad[k].length);
    free(bad);
    map->entity_count = count;
    map->entity_count_known = true;
    return true;
}

static void check_entities(vctx *c)
{
    if (check_plain_entities(c))
        return;
    const bspkit_entities *ents = NULL;
    bspkit_error e;
    no_error_yet(&e);
    if (!loaded(c, bspkit_get_entities(c->map, &ents, &e), &e, BSPKIT_S_ENTITIES) || !ents)
        return;
    for (size_t i = 0; i < ents->count; i++) {
        const char *model = bspkit_entity_value(ents, i, "model");
        size_t length = model ? strlen(model) : 0;
        if (!model || model_fits(model, length, c))
            continue;
        const bspkit_entity *ent = &ents->entities[i];
        bad_model(c, i, ent->source, ent->line, ent->offset, model, length);
    }
    for (size_t i = 0; i < ents->warning_count; i++) {
        const bspkit_entity_warning *w = &ents->warnings[i];
        int64_t ofs = w->source || w->line == 0 ? -1 : byte_offset(c, BSPKIT_S_ENTITIES, w->offset);
        if (w->line == 0) /* about a whole file (an entity partition not read) */
            add_problem(c, BSPKIT_SEVERITY_WARNING, BSPKIT_ERR_ENTITIES, BSPKIT_S_ENTITIES, -1, ofs, "%s",
                        w->message);
        else
            add_problem(c, BSPKIT_SEVERITY_WARNING, BSPKIT_ERR_ENTITIES, BSPKIT_S_ENTITIES, -1, ofs,
                        "%s line %" PRIu32 ": %s", w->source ? w->source : "entity text", w->line, w->message);
    }
    if (ents->trailing_bytes > 0)
        add_problem(c, BSPKIT_SEVERITY_WARNING, BSPKIT_ERR_ENTITIES, BSPKIT_S_ENTITIES, -1,
                    byte_offset(c, BSPKIT_S_ENTITIES, ents->trailing_offset),
                    "%" PRIu64 " bytes of trailing data after the last entity at lump offset %" PRIu64,
                    ents->trailing_bytes, ents->trailing_offset);
}

static void check_limits(vctx *c)
{
    size_t n = 0;
    if (bspkit_limits(c->map, NULL, 0, &n) != BSPKIT_OK || n == 0)
        return;
    /* Every family's table fits on the stack; a longer one is allocated. */
    bspkit_limit_usage stack_rows[40];
    bspkit_limit_usage *rows = n <= sizeof stack_rows / sizeof stack_rows[0] ? stack_rows : calloc(n, sizeof *rows);
    if (!rows) {
        c->nomem = true;
        return;
    }
    size_t got = 0;
    if (bspkit_limits(c->map, rows, n, &got) == BSPKIT_OK) {
        for (size_t i = 0; i < n && i < got; i++) {
            const bspkit_limit_usage *r = &rows[i];
            if (r->max_count > 0 && r->count > r->max_count)
                add_problem(c, BSPKIT_SEVERITY_WARNING, BSPKIT_ERR_ENGINE_LIMIT, -1, -1, -1,
                            "%s: %" PRIu64 " of %" PRIu64 " (%.1f%%)", r->name, r->count, r->max_count,
                            100.0 * (double)r->count / (double)r->max_count);
            else if (r->max_bytes > 0 && r->bytes > r->max_bytes)
                add_problem(c, BSPKIT_SEVERITY_WARNING, BSPKIT_ERR_ENGINE_LIMIT, -1, -1, -1,
                            "%s: %" PRIu64 " of %" PRIu64 " bytes (%.1f%%)", r->name, r->bytes, r->max_bytes,
                            100.0 * (double)r->bytes / (double)r->max_bytes);
        }
    }
    if (rows != stack_rows)
        free(rows);
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                              */
/* ------------------------------------------------------------------------ */

/* The kinds validation loads, in order: one loop over this table, not a
 * call site per kind (the calls were 9 KB of code that every validation
 * runs through). */
static const struct kind_load {
    int kind;
    size_t array;    /* offsetof(vctx, the varr) */
    size_t item_size;
} kind_loads[] = {
#define KIND_LOAD(kind, member, type) {kind, offsetof(vctx, member), sizeof(type)},
    VALIDATED_KINDS(KIND_LOAD)
#undef KIND_LOAD
};

static void load_all(vctx *c)
{
    /* Each record kind the map's family stores, read as its public
     * accessor reads it (bk_get_array on the kind's lump); the others stay
     * "not loaded", which every check skips. */
    for (size_t k = 0; k < sizeof kind_loads / sizeof kind_loads[0]; k++) {
        const struct kind_load *l = &kind_loads[k];
        int lump = lump_of(c, l->kind);
        if (lump < 0)
            continue;
        const void *items = NULL;
        size_t n = 0;
        bspkit_error e;
        no_error_yet(&e);
        bspkit_result r = bk_get_array(c->map, (bk_rec)l->kind, lump, &items, &n, &e);
        *(varr *)(void *)((char *)c + l->array) =
            (varr){items, r == BSPKIT_OK ? n : 0, l->item_size, loaded(c, r, &e, lump)};
    }
    c->tree_faces = c->quake3 ? &c->surfaces : &c->faces;
    if (c->source) {
        if (c->faces.ok && c->faces.n == 0 && c->hdr_faces.ok && c->hdr_faces.n > 0)
            c->tree_faces = &c->hdr_faces;
        uint64_t n = 0;
        c->dispinfo.ok = bspkit_lump_record_count(c->map, BSPKIT_S_DISPINFO, &n) == BSPKIT_OK;
        c->dispinfo.n = (size_t)n;
        /* CLIPPORTALVERTS is a plain array of 12-byte vectors. */
        const bspkit_lump_info *clipverts = lump_info(c, BSPKIT_S_CLIPPORTALVERTS);
        if (clipverts) {
            c->clipverts.ok = true;
            c->clipverts.n = clipverts->uncompressed_length / 12u;
        }
    }
    if (c->quake)
        LOAD(c, c->miptex, bspkit_miptex, bspkit_get_miptex, BSPKIT_Q_TEXTURES);

    bspkit_error e;
    no_error_yet(&e);
    c->have_vis = loaded(c, bspkit_vis_dimensions(c->map, &c->vis_rows, &c->vis_row_bytes, &e), &e,
                         bk_map_lump_for(c->map, BK_ROLE_VISIBILITY));
    c->vis_size = lump_size(c, bk_map_lump_for(c->map, BK_ROLE_VISIBILITY));
    const bspkit_lump_info *lightmaps = c->quake3 ? lump_info(c, BSPKIT_Q3_LIGHTMAPS) : NULL;
    if (lightmaps) {
        const uint64_t page = 3u * BSPKIT_Q3_LIGHTMAP_PAGE_SIZE * BSPKIT_Q3_LIGHTMAP_PAGE_SIZE;
        uint64_t bytes = lightmaps->length;
        c->lightmap_pages = bytes / page;
        c->lightmap_pages_known = bytes % page == 0;
        if (!c->lightmap_pages_known)
            add_problem(c, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_LUMP_SIZE, BSPKIT_Q3_LIGHTMAPS, -1,
                        byte_offset(c, BSPKIT_Q3_LIGHTMAPS, 0),
                        "LIGHTMAPS: %" PRIu64 " bytes is not a whole number of %" PRIu64 "-byte pages", bytes, page);
    }
}

bspkit_result bspkit_validate(bspkit_map *map, bspkit_report *report, bspkit_error *err)
{
    return bspkit_validate_ex(map, 0, report, err);
}

bspkit_result bspkit_validate_ex(bspkit_map *map, unsigned flags, bspkit_report *report, bspkit_error *err)
{
    if (err) {
        memset(err, 0, sizeof *err);
        err->lump = -1;
        err->offset = -1;
        err->lump_offset = -1;
    }
    if (report)
        memset(report, 0, sizeof *report);
    if (!map || !report) {
        if (err) {
            err->code = BSPKIT_ERR_ARGUMENT;
            snprintf(err->message, sizeof err->message, "validate: map and report must not be NULL");
        }
        return BSPKIT_ERR_ARGUMENT;
    }

    /* On the stack: 9 KB, most of it directory entries written before they
     * are read (info_state), and a heap block that size is not one the
     * allocator keeps at hand: its malloc and free took longer than most
     * record kinds' checks of a small map. */
    vctx context;
    vctx *c = &context;
    memset(c, 0, offsetof(vctx, info));
    c->map = map;
    c->rep = report;
    c->flags = flags;
    c->fmt = bspkit_map_format(map);
    c->source = c->fmt && c->fmt->family == BSPKIT_FAMILY_SOURCE;
    c->quake = c->fmt && (c->fmt->family == BSPKIT_FAMILY_QUAKE || c->fmt->family == BSPKIT_FAMILY_GOLDSRC);
    c->cluster_vis = bk_map_cluster_vis(map);
    c->quake3 = c->fmt && c->fmt->family == BSPKIT_FAMILY_QUAKE3;
    c->titanfall = c->fmt && c->fmt->family == BSPKIT_FAMILY_TITANFALL;

    /* Every lump is read below: compressed ones are decompressed together first. */
    bk_decompress_lumps(map);
    load_all(c);
    count_targets(c);
    check_unfinished(c);
    check_records(c, EDGES, NULL, NULL, NULL);
    check_records(c, SURFEDGES, NULL, NULL, NULL);
    check_all_faces(c);
    check_texinfo(c);
    check_records(c, TEXINFO, NULL, NULL, NULL);
    if (c->source || c->titanfall)
        check_texdata(c);
    check_records(c, BRUSHES, NULL, NULL, NULL);
    if (!(c->brushsides.ok && brushsides_fine(c)))
        check_records(c, BRUSHSIDES, NULL, NULL, NULL);
    check_records(c, AREAS, NULL, NULL, NULL);
    check_records(c, AREAPORTALS, NULL, NULL, NULL);
    if (c->source) {
        check_static_props(c);
        check_overlays(c);
        check_displacements(c);
        check_leaf_ambient(c);
    }
    if (!(c->clipnodes.ok && clipnodes_fine(c)))
        check_records(c, CLIPNODES, NULL, check_clipnode_children, NULL);
    check_quake_compiler_output(c);
    if (!(c->nodes.ok && nodes_fine(c)))
        check_records(c, NODES, NULL, check_node_children, NULL);
    check_records(c, LEAFS, NULL, check_leaf_vis, NULL);
    check_records(c, LEAF_FACES, NULL, NULL, NULL);
    check_records(c, LEAF_BRUSHES, NULL, NULL, NULL);
    check_records(c, MODELS, check_model_heads, NULL, NULL);
    if (c->quake3) {
        check_records(c, SURFACES, check_surface, NULL, NULL);
        check_records(c, FOGS, check_fog_side, NULL, NULL);
        check_lightgrid(c);
    }
    check_records(c, R2_MODELS, NULL, NULL, NULL);
    check_records(c, R2_MESHES, NULL, check_r2_mesh, NULL);
    check_r2_mesh_bounds(c);
    check_records(c, R2_MATERIAL_SORTS, NULL, NULL, NULL);
    check_records(c, R2_VERTEX_UNLIT, NULL, NULL, NULL);
    check_records(c, R2_VERTEX_LIT_FLAT, NULL, NULL, NULL);
    check_records(c, R2_VERTEX_LIT_BUMP, NULL, NULL, NULL);
    check_records(c, R2_VERTEX_UNLIT_TS, NULL, NULL, NULL);
    check_vis_rows(c);
    check_entities(c);
    check_limits(c);

    if (!c->nomem)
        return BSPKIT_OK;
    bspkit_report_free(report);
    if (err) {
        err->code = BSPKIT_ERR_NOMEM;
        snprintf(err->message, sizeof err->message, "validate: out of memory");
    }
    return BSPKIT_ERR_NOMEM;
}

void bspkit_report_free(bspkit_report *report)
{
    if (!report)
        return;
    free(report->problems);
    memset(report, 0, sizeof *report);
}
