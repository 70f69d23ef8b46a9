/* Cross-references between the decoded record arrays: every index field of
 * a native record, declared once, with the array it points into.
 *
 * The record layouts (core/schema.h) say how a record is stored; each of
 * them decodes into the same native struct, whatever the family or version,
 * so which array a field indexes is a property of the native record and is
 * written here once for all its layouts. Validation generates its checkers
 * from the lists below and reports through the table refs.c builds from
 * them; the checks they cannot express (signed child links, byte offsets
 * into lighting or visibility, family-dependent targets) stay hand-written
 * there. */
#ifndef BSPKIT_CORE_REFS_H
#define BSPKIT_CORE_REFS_H

#include "bspkit/bspkit.h"
#include "bspkit/quake3.h"
#include "bspkit/titanfall.h"
#include "core/record_kinds.h"

#include <stdbool.h>

#include <stddef.h>
#include <stdint.h>

/* What a reference points into: a decoded record array (bk_rec), or a lump
 * whose records only the directory counts. */
enum {
    BK_REF_TO_DISPINFO = BK_REC_COUNT,
    BK_REF_TO_CLIPPORTALVERTS,
    BK_REF_TARGET_COUNT
};

typedef enum bk_ref_kind {
    BK_REF_INDEX, /* value < count of the target, for each of `elements` values */
    BK_REF_SPAN,  /* first + count <= count of the target; negative values are refused first */
} bk_ref_kind;

/* Values that mean "no reference" rather than an index. */
enum { BK_REF_NONE_MINUS1 = 1, BK_REF_NONE_ZERO = 2, BK_REF_SIGN_IS_DIRECTION = 4 };
/* Record 0 is a placeholder no other record reaches, whatever it holds. */
enum { BK_REF_RECORD0_UNUSED = 8 };

typedef struct bk_ref {
    int from;          /* bk_rec of the records holding the field */
    bk_ref_kind kind;
    size_t offset;     /* of the member in the native record */
    size_t count_offset; /* SPAN: of the member holding the count */
    uint8_t width;     /* bytes of the member: 4 */
    bool is_signed;
    uint8_t elements;  /* INDEX: values in an array member (1 for a scalar) */
    int target;        /* bk_rec or BK_REF_TO_* */
    unsigned flags;    /* BK_REF_NONE_*; SIGN_IS_DIRECTION: the magnitude is the index */
    const char *name, *count_name; /* member names in messages */
} bk_ref;

/* The whole table, each kind's references together. */
const bk_ref *bk_refs_all(size_t *n);
/* The references, one X-macro list per record kind, each entry
 *   R(FROM, SHAPE, T, MEMBER, COUNT_MEMBER, N, TARGET, FLAGS, "name", "count_name")
 * where SHAPE is INDEX (MEMBER of record type T is an index; for an array
 * member, MEMBER names its first element and N the element count), ARRAY
 * (the record is itself an index of C type T; MEMBER empty) or SPAN (MEMBER
 * and COUNT_MEMBER are a first/count pair). Every member is 32 bits wide.
 * refs.c builds the table from these lists, and validation generates one
 * checker per kind from them. */

/* Edge 0 cannot be named by a surfedge (-0 is 0): compilers write a dummy
 * there, (0, 0) even in a map without vertices. */
#define BK_REFS_EDGES(R) R(BK_REC_EDGES, INDEX, bspkit_edge, v[0], , 2, BK_REC_VERTEXES, BK_REF_RECORD0_UNUSED, "v", NULL)
#define BK_REFS_SURFEDGES(R)                                                                           \
    R(BK_REC_SURFEDGES, ARRAY, int32_t, , , 1, BK_REC_EDGES, BK_REF_SIGN_IS_DIRECTION, "edge", NULL)

/* The faces of FACES and FACES_HDR; ORIGINALFACES lack the texinfo check
 * because vbsp compacts TEXINFO after writing them without remapping them
 * (nothing reads their texinfo). */
#define BK_REFS_FACE_HEAD(R, FROM)                                                                     \
    R(FROM, INDEX, bspkit_face, plane, , 1, BK_REC_PLANES, 0, "plane", NULL)                           \
    R(FROM, SPAN, bspkit_face, first_edge, num_edges, 1, BK_REC_SURFEDGES, 0, "first_edge", "num_edges")
#define BK_REFS_FACE_TEXINFO(R, FROM)                                                                  \
    R(FROM, INDEX, bspkit_face, texinfo, , 1, BK_REC_TEXINFO, BK_REF_NONE_MINUS1, "texinfo", NULL)
#define BK_REFS_FACE_DISPINFO(R, FROM)                                                                 \
    R(FROM, INDEX, bspkit_face, dispinfo, , 1, BK_REF_TO_DISPINFO, BK_REF_NONE_MINUS1, "dispinfo", NULL)
#define BK_REFS_FACES(R)                                                                               \
    BK_REFS_FACE_HEAD(R, BK_REC_FACES) BK_REFS_FACE_TEXINFO(R, BK_REC_FACES) BK_REFS_FACE_DISPINFO(R, BK_REC_FACES)
#define BK_REFS_ORIG_FACES(R) BK_REFS_FACE_HEAD(R, BK_REC_ORIG_FACES) BK_REFS_FACE_DISPINFO(R, BK_REC_ORIG_FACES)
#define BK_REFS_HDR_FACES(R)                                                                           \
    BK_REFS_FACE_HEAD(R, BK_REC_HDR_FACES)                                                             \
    BK_REFS_FACE_TEXINFO(R, BK_REC_HDR_FACES) BK_REFS_FACE_DISPINFO(R, BK_REC_HDR_FACES)

#define BK_REFS_NODES(R)                                                                               \
    R(BK_REC_NODES, INDEX, bspkit_node, plane, , 1, BK_REC_PLANES, 0, "plane", NULL)                   \
    R(BK_REC_NODES, SPAN, bspkit_node, first_face, num_faces, 1, BK_REC_FACES, 0, "first_face", "num_faces")
#define BK_REFS_LEAFS(R)                                                                               \
    R(BK_REC_LEAFS, SPAN, bspkit_leaf, first_leaf_face, num_leaf_faces, 1, BK_REC_LEAF_FACES, 0,       \
      "first_leaf_face", "num_leaf_faces")                                                             \
    R(BK_REC_LEAFS, SPAN, bspkit_leaf, first_leaf_brush, num_leaf_brushes, 1, BK_REC_LEAF_BRUSHES, 0,  \
      "first_leaf_brush", "num_leaf_brushes")
#define BK_REFS_LEAF_FACES(R) R(BK_REC_LEAF_FACES, ARRAY, uint32_t, , , 1, BK_REC_FACES, 0, "face", NULL)
#define BK_REFS_LEAF_BRUSHES(R) R(BK_REC_LEAF_BRUSHES, ARRAY, uint32_t, , , 1, BK_REC_BRUSHES, 0, "brush", NULL)
/* Quake 2 animation chains; the other families hold -1. */
#define BK_REFS_TEXINFO(R)                                                                             \
    R(BK_REC_TEXINFO, INDEX, bspkit_texinfo, next_texinfo, , 1, BK_REC_TEXINFO, BK_REF_NONE_MINUS1,    \
      "next_texinfo", NULL)
/* Quake 3 models also name their brushes (0 and 0 elsewhere). */
#define BK_REFS_MODELS(R)                                                                              \
    R(BK_REC_MODELS, SPAN, bspkit_model, first_face, num_faces, 1, BK_REC_FACES, 0, "first_face", "num_faces") \
    R(BK_REC_MODELS, SPAN, bspkit_model, first_brush, num_brushes, 1, BK_REC_BRUSHES, 0, "first_brush",  \
      "num_brushes")
#define BK_REFS_CLIPNODES(R) R(BK_REC_CLIPNODES, INDEX, bspkit_clipnode, plane, , 1, BK_REC_PLANES, 0, "plane", NULL)
/* Quake 3 brushes and brush sides name a shader; the other families hold -1. */
#define BK_REFS_BRUSHES(R)                                                                             \
    R(BK_REC_BRUSHES, SPAN, bspkit_brush, first_side, num_sides, 1, BK_REC_BRUSHSIDES, 0, "first_side", \
      "num_sides")                                                                                     \
    R(BK_REC_BRUSHES, INDEX, bspkit_brush, shader, , 1, BK_REC_SHADERS, BK_REF_NONE_MINUS1, "shader", NULL)
/* vbsp writes 0, not -1, for sides without a displacement, so a side naming
 * displacement 0 cannot be told from one without a displacement. */
#define BK_REFS_BRUSHSIDES(R)                                                                          \
    R(BK_REC_BRUSHSIDES, INDEX, bspkit_brushside, plane, , 1, BK_REC_PLANES, 0, "plane", NULL)         \
    R(BK_REC_BRUSHSIDES, INDEX, bspkit_brushside, texinfo, , 1, BK_REC_TEXINFO, BK_REF_NONE_MINUS1,    \
      "texinfo", NULL)                                                                                 \
    R(BK_REC_BRUSHSIDES, INDEX, bspkit_brushside, dispinfo, , 1, BK_REF_TO_DISPINFO,                   \
      BK_REF_NONE_MINUS1 | BK_REF_NONE_ZERO, "dispinfo", NULL)                                         \
    R(BK_REC_BRUSHSIDES, INDEX, bspkit_brushside, shader, , 1, BK_REC_SHADERS, BK_REF_NONE_MINUS1,     \
      "shader", NULL)
#define BK_REFS_AREAS(R)                                                                               \
    R(BK_REC_AREAS, SPAN, bspkit_area, first_portal, num_portals, 1, BK_REC_AREAPORTALS, 0,            \
      "first_portal", "num_portals")
/* Quake 2 portals have no plane (-1). */
#define BK_REFS_AREAPORTALS(R)                                                                         \
    R(BK_REC_AREAPORTALS, INDEX, bspkit_areaportal, other_area, , 1, BK_REC_AREAS, 0, "other_area", NULL) \
    R(BK_REC_AREAPORTALS, INDEX, bspkit_areaportal, plane, , 1, BK_REC_PLANES, BK_REF_NONE_MINUS1,     \
      "plane", NULL)                                                                                   \
    R(BK_REC_AREAPORTALS, SPAN, bspkit_areaportal, first_clip_vert, num_clip_verts, 1,                 \
      BK_REF_TO_CLIPPORTALVERTS, 0, "first_clip_vert", "num_clip_verts")

/* Quake 3 surfaces: vertices and indices are spans; a flare has neither. */
#define BK_REFS_SURFACES(R)                                                                            \
    R(BK_REC_SURFACES, INDEX, bspkit_surface, shader, , 1, BK_REC_SHADERS, 0, "shader", NULL)          \
    R(BK_REC_SURFACES, INDEX, bspkit_surface, fog, , 1, BK_REC_FOGS, BK_REF_NONE_MINUS1, "fog", NULL)  \
    R(BK_REC_SURFACES, SPAN, bspkit_surface, first_vert, num_verts, 1, BK_REC_DRAWVERTS, 0, "first_vert", \
      "num_verts")                                                                                     \
    R(BK_REC_SURFACES, SPAN, bspkit_surface, first_index, num_indexes, 1, BK_REC_DRAWINDEXES, 0,       \
      "first_index", "num_indexes")
#define BK_REFS_FOGS(R) R(BK_REC_FOGS, INDEX, bspkit_fog, brush, , 1, BK_REC_BRUSHES, 0, "brush", NULL)
/* Titanfall 2: models own runs of meshes, meshes one material sort each,
 * material sorts one texture data. A material sort's lightmap header and
 * cubemap are not checked: compilers write 0 there in maps without either.
 * Mesh indices, which count from their material sort's first vertex in
 * the mesh's vertex lump, are checked by validation. */
#define BK_REFS_R2_MODELS(R)                                                                           \
    R(BK_REC_R2_MODELS, SPAN, bspkit_r2_model, first_mesh, num_meshes, 1, BK_REC_R2_MESHES, 0, "first_mesh", \
      "num_meshes")
#define BK_REFS_R2_MESHES(R)                                                                           \
    R(BK_REC_R2_MESHES, INDEX, bspkit_r2_mesh, material_sort, , 1, BK_REC_R2_MATERIAL_SORTS, 0,        \
      "material_sort", NULL)
#define BK_REFS_R2_MATERIAL_SORTS(R)                                                                   \
    R(BK_REC_R2_MATERIAL_SORTS, INDEX, bspkit_r2_material_sort, texture_data, , 1, BK_REC_TEXDATA, 0,  \
      "texture_data", NULL)
/* Every vertex lump: a position and a normal. */
#define BK_REFS_R2_VERTEX(R, FROM)                                                                     \
    R(FROM, INDEX, bspkit_r2_vertex, position_index, , 1, BK_REC_VERTEXES, 0, "position_index", NULL)  \
    R(FROM, INDEX, bspkit_r2_vertex, normal_index, , 1, BK_REC_R2_VERTEX_NORMALS, 0, "normal_index", NULL)
#define BK_REFS_R2_VERTEX_UNLIT(R) BK_REFS_R2_VERTEX(R, BK_REC_R2_VERTEX_UNLIT)
#define BK_REFS_R2_VERTEX_LIT_FLAT(R) BK_REFS_R2_VERTEX(R, BK_REC_R2_VERTEX_LIT_FLAT)
#define BK_REFS_R2_VERTEX_LIT_BUMP(R) BK_REFS_R2_VERTEX(R, BK_REC_R2_VERTEX_LIT_BUMP)
#define BK_REFS_R2_VERTEX_UNLIT_TS(R) BK_REFS_R2_VERTEX(R, BK_REC_R2_VERTEX_UNLIT_TS)

/* The kinds that have references, in the table's order. */
#define BK_REF_KINDS(K)                                                                                \
    K(EDGES) K(SURFEDGES) K(FACES) K(ORIG_FACES) K(HDR_FACES) K(NODES) K(LEAFS) K(LEAF_FACES)          \
    K(LEAF_BRUSHES) K(TEXINFO) K(MODELS) K(CLIPNODES) K(BRUSHES) K(BRUSHSIDES) K(AREAS) K(AREAPORTALS) \
    K(SURFACES) K(FOGS) \
    K(R2_MODELS) K(R2_MESHES) K(R2_MATERIAL_SORTS) K(R2_VERTEX_UNLIT) K(R2_VERTEX_LIT_FLAT)             \
    K(R2_VERTEX_LIT_BUMP) K(R2_VERTEX_UNLIT_TS)

/* The references of records of kind `from` (count in *n), in the order they are checked. */
const bk_ref *bk_refs_of(int from, size_t *n);

/* A reference's value number `element` (or, for a span, its first value) and a span's count. */
int64_t bk_ref_value(const bk_ref *r, const void *record, int element);
int64_t bk_ref_count(const bk_ref *r, const void *record);

#endif
