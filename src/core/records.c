/* Record layouts whose form is the same in every family, and decoders of
 * plain arrays built from them. */
#include "core/records.h"

#include "core/map.h"

#define PLANE(F)                                                                                       \
    F(VEC3, .normal, 1, "normal")                                                                      \
    F(F32, .dist, 1, "dist")                                                                           \
    F(I32, .type, 1, "type")
BK_SCHEMA(bk_plane_schema, bspkit_plane, 20, "plane", PLANE);

#define VERTEX(F) F(VEC3, , 1, "point")
BK_SCHEMA(bk_vertex_schema, bspkit_vec3, 12, "vertex", VERTEX);

#define SURFEDGE(F) F(I32, , 1, "surfedge")
BK_SCHEMA(bk_surfedge_schema, int32_t, 4, "surfedge", SURFEDGE);

#define EDGE16(F) F(U16A, .v, 2, "v")
BK_SCHEMA(bk_edge16_schema, bspkit_edge, 4, "edge", EDGE16);

#define EDGE32(F) F(U32A, .v, 2, "v")
BK_SCHEMA(bk_edge32_schema, bspkit_edge, 8, "edge", EDGE32);

/* 16-bit indices widened to 32 bits, so narrow and wide layouts share one native type. */
#define INDEX16(F) F(U16, , 1, "index")
BK_SCHEMA(bk_index16_schema, uint32_t, 2, "index", INDEX16);

#define INDEX32(F) F(U32, , 1, "index")
BK_SCHEMA(bk_index32_schema, uint32_t, 4, "index", INDEX32);

void bk_decode_vertexes(const uint8_t *src, size_t n, bool be, void *dst)
{
    bk_vertex_schema.decode(src, n, be, dst);
}

void bk_decode_i32(const uint8_t *src, size_t n, bool be, void *dst)
{
    bk_surfedge_schema.decode(src, n, be, dst);
}

void bk_decode_u16_as_u32(const uint8_t *src, size_t n, bool be, void *dst)
{
    bk_index16_schema.decode(src, n, be, dst);
}

void bk_decode_u32(const uint8_t *src, size_t n, bool be, void *dst)
{
    bk_index32_schema.decode(src, n, be, dst);
}

/* ---- Layouts Quake 2 introduced and Source kept ---- */

/* dmodel_t with one head node (collision uses brushes, not clipping hulls):
 * the Quake clip-hull slots hold -1. */
#define MODEL_ONEHEAD(F)                                                                               \
    BK_MODEL_ONEHEAD_BOUNDS(F)                                                                         \
    BK_MODEL_ONEHEAD_FACES(F)
BK_SCHEMA(bk_model_onehead_schema, bspkit_model, 48, "model", MODEL_ONEHEAD);

#define BRUSH(F)                                                                                       \
    F(DEFAULT, .shader, -1, "")                                                                        \
    F(I32, .first_side, 1, "firstside")                                                                \
    F(I32, .num_sides, 1, "numsides")                                                                  \
    F(I32, .contents, 1, "contents")
BK_SCHEMA(bk_brush_schema, bspkit_brush, 12, "brush", BRUSH);

#define AREA(F)                                                                                        \
    F(I32, .num_portals, 1, "numareaportals")                                                          \
    F(I32, .first_portal, 1, "firstareaportal")
BK_SCHEMA(bk_area_schema, bspkit_area, 8, "area", AREA);
