/* Corner k of a face through SURFEDGES -> EDGES -> VERTEXES, for the corpus
 * checks that measure faces themselves. */
#ifndef BSPKIT_TESTS_FACE_VERTEX_H
#define BSPKIT_TESTS_FACE_VERTEX_H

#include "bspkit/bspkit.h"

#include <stddef.h>
#include <stdint.h>

typedef struct face_geometry {
    const bspkit_vec3 *verts;
    size_t nverts;
    const bspkit_edge *edges;
    size_t nedges;
    const int32_t *surfedges;
    size_t nsurfedges;
} face_geometry;

/* Vertex k of face f (a negative surfedge walks its edge backwards), or NULL
 * when an index is out of range. */
static inline const bspkit_vec3 *face_vertex_at(const face_geometry *g, const bspkit_face *f, int32_t k)
{
    int64_t se_index = (int64_t)f->first_edge + k;
    if (f->first_edge < 0 || k < 0 || se_index >= (int64_t)g->nsurfedges)
        return NULL;
    int32_t se = g->surfedges[se_index];
    int64_t e = se < 0 ? -(int64_t)se : se;
    if (e >= (int64_t)g->nedges)
        return NULL;
    uint32_t v = g->edges[e].v[se < 0 ? 1 : 0];
    return v < g->nverts ? &g->verts[v] : NULL;
}

#endif
