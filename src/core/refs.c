/* The cross-reference table (core/refs.h). */
#include "core/refs.h"

#include "bspkit/bspkit.h"
#include <stddef.h>

#include <string.h>

/* Whether a member's C type is signed: decided from its declaration, so the
 * table does not state each member's type a second time. */
#define SIGNED_VALUE(x) _Generic((x), int8_t: true, int16_t: true, int32_t: true, int64_t: true, default: false)
#define MEMBER(T, m) (((T *)0)->m)

/* One index member of record type T; for an array member, `m` names its
 * first element and `n` the element count. */
#define INDEX(from, T, m, n, target, flags, name)                                                      \
    {from, BK_REF_INDEX, offsetof(T, m), 0, sizeof MEMBER(T, m), SIGNED_VALUE(MEMBER(T, m)), n, target,   \
     flags, name, NULL}
/* Records that are themselves an index (a plain array of C_TYPE). */
#define INDEX_ARRAY(from, C_TYPE, target, flags, name)                                                 \
    {from, BK_REF_INDEX, 0, 0, sizeof(C_TYPE), SIGNED_VALUE((C_TYPE)0), 1, target, flags, name, NULL}
/* A first/count pair of record type T (both members of one type). */
#define SPAN(from, T, first, count, target, name, count_name)                                          \
    {from, BK_REF_SPAN, offsetof(T, first), offsetof(T, count), sizeof MEMBER(T, first),                  \
     SIGNED_VALUE(MEMBER(T, first)), 1, target, 0, name, count_name}

/* The faces of FACES and FACES_HDR; ORIGINALFACES lack the texinfo check
 * because vbsp compacts TEXINFO after writing them without remapping them
 * (nothing reads their texinfo). */
#define FACE_REFS_HEAD(from)                                                                           \
    INDEX(from, bspkit_face, plane, 1, BK_REC_PLANES, 0, "plane"),                                     \
        SPAN(from, bspkit_face, first_edge, num_edges, BK_REC_SURFEDGES, "first_edge", "num_edges")
#define FACE_REF_TEXINFO(from) INDEX(from, bspkit_face, texinfo, 1, BK_REC_TEXINFO, BK_REF_NONE_MINUS1, "texinfo")
#define FACE_REF_DISPINFO(from)                                                                        \
    INDEX(from, bspkit_face, dispinfo, 1, BK_REF_TO_DISPINFO, BK_REF_NONE_MINUS1, "dispinfo")

static const bk_ref table[] = {
    /* Edge 0 cannot be named by a surfedge (-0 is 0): compilers write a
     * dummy there, (0, 0) even in a map without vertices. */
    INDEX(BK_REC_EDGES, bspkit_edge, v[0], 2, BK_REC_VERTEXES, BK_REF_RECORD0_UNUSED, "v"),
    INDEX_ARRAY(BK_REC_SURFEDGES, int32_t, BK_REC_EDGES, BK_REF_SIGN_IS_DIRECTION, "edge"),

    FACE_REFS_HEAD(BK_REC_FACES), FACE_REF_TEXINFO(BK_REC_FACES), FACE_REF_DISPINFO(BK_REC_FACES),
    FACE_REFS_HEAD(BK_REC_ORIG_FACES), FACE_REF_DISPINFO(BK_REC_ORIG_FACES),
    FACE_REFS_HEAD(BK_REC_HDR_FACES), FACE_REF_TEXINFO(BK_REC_HDR_FACES), FACE_REF_DISPINFO(BK_REC_HDR_FACES),

    INDEX(BK_REC_NODES, bspkit_node, plane, 1, BK_REC_PLANES, 0, "plane"),
    SPAN(BK_REC_NODES, bspkit_node, first_face, num_faces, BK_REC_FACES, "first_face", "num_faces"),

    SPAN(BK_REC_LEAFS, bspkit_leaf, first_leaf_face, num_leaf_faces, BK_REC_LEAF_FACES, "first_leaf_face",
         "num_leaf_faces"),
    SPAN(BK_REC_LEAFS, bspkit_leaf, first_leaf_brush, num_leaf_brushes, BK_REC_LEAF_BRUSHES, "first_leaf_brush",
         "num_leaf_brushes"),
    INDEX_ARRAY(BK_REC_LEAF_FACES, uint32_t, BK_REC_FACES, 0, "face"),
    INDEX_ARRAY(BK_REC_LEAF_BRUSHES, uint32_t, BK_REC_BRUSHES, 0, "brush"),

    /* Quake 2 animation chains; the other families hold -1. */
    INDEX(BK_REC_TEXINFO, bspkit_texinfo, next_texinfo, 1, BK_REC_TEXINFO, BK_REF_NONE_MINUS1, "next_texinfo"),

    SPAN(BK_REC_MODELS, bspkit_model, first_face, num_faces, BK_REC_FACES, "first_face", "num_faces"),
    INDEX(BK_REC_CLIPNODES, bspkit_clipnode, plane, 1, BK_REC_PLANES, 0, "plane"),

    SPAN(BK_REC_BRUSHES, bspkit_brush, first_side, num_sides, BK_REC_BRUSHSIDES, "first_side", "num_sides"),
    INDEX(BK_REC_BRUSHSIDES, bspkit_brushside, plane, 1, BK_REC_PLANES, 0, "plane"),
    INDEX(BK_REC_BRUSHSIDES, bspkit_brushside, texinfo, 1, BK_REC_TEXINFO, BK_REF_NONE_MINUS1, "texinfo"),
    /* vbsp writes 0, not -1, for sides without a displacement, so a side
     * naming displacement 0 cannot be told from one without a displacement. */
    INDEX(BK_REC_BRUSHSIDES, bspkit_brushside, dispinfo, 1, BK_REF_TO_DISPINFO,
          BK_REF_NONE_MINUS1 | BK_REF_NONE_ZERO, "dispinfo"),

    SPAN(BK_REC_AREAS, bspkit_area, first_portal, num_portals, BK_REC_AREAPORTALS, "first_portal", "num_portals"),
    INDEX(BK_REC_AREAPORTALS, bspkit_areaportal, other_area, 1, BK_REC_AREAS, 0, "other_area"),
    /* Quake 2 portals have no plane (-1). */
    INDEX(BK_REC_AREAPORTALS, bspkit_areaportal, plane, 1, BK_REC_PLANES, BK_REF_NONE_MINUS1, "plane"),
    SPAN(BK_REC_AREAPORTALS, bspkit_areaportal, first_clip_vert, num_clip_verts, BK_REF_TO_CLIPPORTALVERTS,
         "first_clip_vert", "num_clip_verts"),
};

const bk_ref *bk_refs_all(size_t *n)
{
    *n = sizeof table / sizeof table[0];
    return table;
}

const bk_ref *bk_refs_of(int from, size_t *n)
{
    /* The table lists each kind's references together (a unit test checks). */
    size_t all = sizeof table / sizeof table[0], first = 0;
    while (first < all && table[first].from != from)
        first++;
    size_t end = first;
    while (end < all && table[end].from == from)
        end++;
    *n = end - first;
    return end > first ? &table[first] : NULL;
}

static int64_t load(const void *record, size_t offset, uint8_t width, bool is_signed)
{
    const uint8_t *p = (const uint8_t *)record + offset;
    switch (width) {
    case 1:
        return is_signed ? (int64_t) * (const int8_t *)p : (int64_t)*p;
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return is_signed ? (int64_t)(int16_t)v : (int64_t)v;
    }
    default: {
        uint32_t v;
        memcpy(&v, p, 4);
        return is_signed ? (int64_t)(int32_t)v : (int64_t)v;
    }
    }
}

int64_t bk_ref_value(const bk_ref *r, const void *record, int element)
{
    return load(record, r->offset + (size_t)element * r->width, r->width, r->is_signed);
}

int64_t bk_ref_count(const bk_ref *r, const void *record)
{
    return load(record, r->count_offset, r->width, r->is_signed);
}
