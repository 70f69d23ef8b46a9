/* Walking a face's polygon: surfedge -> edge -> vertex, a pure function of
 * the public decoded structs, shared by validation, lightmap geometry,
 * displacement meshes and export. */
#ifndef BSPKIT_CORE_SURFEDGE_H
#define BSPKIT_CORE_SURFEDGE_H

#include "bspkit/bspkit.h"

/* The vertex index a surfedge starts from (a negative surfedge walks its edge
 * backwards, so its second vertex starts it), or one of these when an index
 * on the way is out of range. */
enum { BK_SURFEDGE_BAD_EDGE = -1, BK_SURFEDGE_BAD_VERTEX = -2 };
static inline int64_t bk_surfedge_vertex(int64_t se, const bspkit_edge *edges, size_t edge_count,
                                         size_t vertex_count)
{
    uint64_t e = se < 0 ? (uint64_t)-se : (uint64_t)se;
    if (e >= edge_count)
        return BK_SURFEDGE_BAD_EDGE;
    uint32_t v = edges[e].v[se < 0 ? 1 : 0];
    return v < vertex_count ? (int64_t)v : BK_SURFEDGE_BAD_VERTEX;
}

/* Faces may share surfedge ranges (a crafted file can point every face at
 * the whole lump), so per-face work summed over a map's faces can far exceed
 * its bytes. Readers that build something per face corner refuse when the
 * corners exceed BK_FACE_EDGE_FACTOR x the surfedge count + BK_FACE_EDGE_SLACK. */
#define BK_FACE_EDGE_FACTOR 4u
#define BK_FACE_EDGE_SLACK 65536u

static inline uint64_t bk_face_edge_limit(uint64_t surfedge_count)
{
    return (uint64_t)BK_FACE_EDGE_FACTOR * surfedge_count + BK_FACE_EDGE_SLACK;
}

#endif
