/* The displaced mesh of one displacement: base-face corners, the engine's
 * grid interpolation and alternating-diagonal triangulation, each vertex
 * moved along its DISP_VERTS offset. Built from the public accessors only;
 * every index read from the file is checked before use. */
#include "bspkit/displacement.h"
#include "core/map.h"
#include "core/surfedge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fails naming the DISPINFO record (and its file offset when stored plainly). */
static bspkit_result record_fail(bspkit_map *map, bspkit_error *err, size_t index, const char *what, int64_t value,
                                 const char *limit)
{
    uint32_t rs = map->lumps[BSPKIT_S_DISPINFO].layout.record_size;
    uint64_t ofs = (uint64_t)index * (rs ? rs : 176u);
    return bk_fail(err, BSPKIT_ERR_INDEX, BSPKIT_S_DISPINFO, bk_file_offset(map, BSPKIT_S_DISPINFO, ofs),
                   (int64_t)ofs, "DISPINFO record %zu: %s %lld %s", index, what, (long long)value, limit);
}

/* The four corners of face `fi` in winding order. */
static bspkit_result face_corners(bspkit_map *map, size_t disp, uint32_t fi, bspkit_vec3 out[4], bspkit_error *err)
{
    const bspkit_face *faces;
    const int32_t *surfedges;
    const bspkit_edge *edges;
    const bspkit_vec3 *verts;
    size_t nf, ns, ne, nv;
    bspkit_result r;
    /* HDR-only builds (Xbox 360) carry their faces in FACES_HDR alone. */
    if ((r = bspkit_get_faces(map, &faces, &nf, err)) != BSPKIT_OK ||
        (nf == 0 && (r = bspkit_get_hdr_faces(map, &faces, &nf, err)) != BSPKIT_OK) ||
        (r = bspkit_get_surfedges(map, &surfedges, &ns, err)) != BSPKIT_OK ||
        (r = bspkit_get_edges(map, &edges, &ne, err)) != BSPKIT_OK ||
        (r = bspkit_get_vertexes(map, &verts, &nv, err)) != BSPKIT_OK)
        return r;
    char limit[64];
    if (fi >= nf) {
        snprintf(limit, sizeof limit, "is not below the %zu faces", nf);
        return record_fail(map, err, disp, "MapFace", fi, limit);
    }
    const bspkit_face *f = &faces[fi];
    if (f->num_edges != 4)
        return record_fail(map, err, disp, "MapFace", fi, "is not a four-edged face");
    if (f->first_edge < 0 || !range_ok((uint64_t)f->first_edge, 4, ns))
        return record_fail(map, err, disp, "MapFace", fi, "has surfedges outside SURFEDGES");
    for (int k = 0; k < 4; k++) {
        int64_t v = bk_surfedge_vertex(surfedges[f->first_edge + k], edges, ne, nv);
        if (v == BK_SURFEDGE_BAD_EDGE)
            return record_fail(map, err, disp, "MapFace", fi, "uses an edge outside EDGES");
        if (v == BK_SURFEDGE_BAD_VERTEX)
            return record_fail(map, err, disp, "MapFace", fi, "uses a vertex outside VERTEXES");
        out[k] = verts[v];
    }
    return BSPKIT_OK;
}

static float dist2(bspkit_vec3 a, bspkit_vec3 b)
{
    float x = a.x - b.x, y = a.y - b.y, z = a.z - b.z;
    return x * x + y * y + z * z;
}

static bspkit_vec3 lerp(bspkit_vec3 a, bspkit_vec3 b, float t)
{
    return (bspkit_vec3){a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t};
}

/* Triangles of the engine's checkerboard: the diagonal of quad n depends on n's parity. */
static void triangulate(uint32_t side, uint32_t *idx)
{
    for (uint32_t i = 0; i + 1 < side; i++)
        for (uint32_t j = 0; j + 1 < side; j++, idx += 6) {
            uint32_t n = i * side + j;
            if (n % 2) { /* diagonal from n + 1 to n + side */
                idx[0] = n, idx[1] = n + side, idx[2] = n + 1;
                idx[3] = n + 1, idx[4] = n + side, idx[5] = n + side + 1;
            } else { /* diagonal from n to n + side + 1 */
                idx[0] = n, idx[1] = n + side, idx[2] = n + side + 1;
                idx[3] = n, idx[4] = n + side + 1, idx[5] = n + 1;
            }
        }
}

static void vertex_normals(const bspkit_disp_mesh *m)
{
    for (size_t t = 0; t < m->triangle_count; t++) {
        const uint32_t *k = &m->indices[3 * t];
        bspkit_vec3 a = m->positions[k[0]], b = m->positions[k[1]], c = m->positions[k[2]];
        float ux = b.x - a.x, uy = b.y - a.y, uz = b.z - a.z, vx = c.x - a.x, vy = c.y - a.y, vz = c.z - a.z;
        bspkit_vec3 n = {uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx};
        for (int q = 0; q < 3; q++) {
            m->normals[k[q]].x += n.x;
            m->normals[k[q]].y += n.y;
            m->normals[k[q]].z += n.z;
        }
    }
    for (size_t v = 0; v < m->vertex_count; v++) {
        bspkit_vec3 *n = &m->normals[v];
        float len = sqrtf(n->x * n->x + n->y * n->y + n->z * n->z);
        if (len > 0 && isfinite(len))
            *n = (bspkit_vec3){n->x / len, n->y / len, n->z / len};
        else
            *n = (bspkit_vec3){0, 0, 0};
    }
}

void bspkit_disp_mesh_free(bspkit_disp_mesh *mesh)
{
    if (!mesh)
        return;
    free(mesh->positions); /* the block every array lies in */
    memset(mesh, 0, sizeof *mesh);
}

bspkit_result bspkit_disp_build_mesh(bspkit_map *map, size_t disp_index, bspkit_disp_mesh *out, bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_disp_build_mesh: NULL argument");
    memset(out, 0, sizeof *out);
    const bspkit_dispinfo *infos;
    const bspkit_disp_vert *dverts;
    const uint16_t *dtris;
    size_t ninfo, ndv, ndt;
    bspkit_result r;
    if ((r = bspkit_get_dispinfo(map, &infos, &ninfo, err)) != BSPKIT_OK ||
        (r = bspkit_get_disp_verts(map, &dverts, &ndv, err)) != BSPKIT_OK ||
        (r = bspkit_get_disp_tris(map, &dtris, &ndt, err)) != BSPKIT_OK)
        return r;
    if (disp_index >= ninfo)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, ninfo ? BSPKIT_S_DISPINFO : -1, -1, -1,
                       "displacement %zu does not exist: DISPINFO has %zu records", disp_index, ninfo);
    const bspkit_dispinfo *d = &infos[disp_index];
    if (d->power < BSPKIT_DISP_MIN_POWER || d->power > BSPKIT_DISP_MAX_POWER)
        return record_fail(map, err, disp_index, "power", d->power, "is outside 2..4");
    uint64_t nverts = bspkit_disp_vert_count(d->power), ntris = bspkit_disp_tri_count(d->power);
    char limit[96];
    if (d->disp_vert_start < 0 || !range_ok((uint64_t)d->disp_vert_start, nverts, ndv)) {
        snprintf(limit, sizeof limit, "+ %llu vertices exceeds the %zu DISP_VERTS records",
                 (unsigned long long)nverts, ndv);
        return record_fail(map, err, disp_index, "DispVertStart", d->disp_vert_start, limit);
    }
    /* A map without any triangle tags still has a mesh; a partial tag lump is an error. */
    if (ndt && (d->disp_tri_start < 0 || !range_ok((uint64_t)d->disp_tri_start, ntris, ndt))) {
        snprintf(limit, sizeof limit, "+ %llu triangles exceeds the %zu DISP_TRIS records",
                 (unsigned long long)ntris, ndt);
        return record_fail(map, err, disp_index, "DispTriStart", d->disp_tri_start, limit);
    }
    bspkit_vec3 face[4];
    if ((r = face_corners(map, disp_index, d->map_face, face, err)) != BSPKIT_OK)
        return r;

    /* Corner 0 is the face corner nearest startPosition (the first one on a tie), as the engine picks it. */
    int first = 0;
    for (int k = 1; k < 4; k++)
        if (dist2(face[k], d->start_position) < dist2(face[first], d->start_position))
            first = k;
    bspkit_disp_mesh m = {.power = d->power, .side = (1u << d->power) + 1, .first_corner = first};
    for (int k = 0; k < 4; k++)
        m.corners[k] = face[(first + k) % 4];
    m.vertex_count = (size_t)nverts;
    m.triangle_count = (size_t)ntris;
    /* One zeroed block for all the arrays (a map builds thousands of these
     * meshes), each at a 4-byte-aligned offset; positions is its start. */
    size_t at_normals = m.vertex_count * sizeof *m.positions, at_alphas = at_normals * 2,
           at_indices = at_alphas + m.vertex_count * sizeof *m.alphas,
           at_tags = at_indices + 3 * m.triangle_count * sizeof *m.indices,
           bytes = at_tags + (ndt ? m.triangle_count * sizeof *m.tags : 0);
    uint8_t *block = calloc(1, bytes);
    if (!block)
        return bk_fail(err, BSPKIT_ERR_NOMEM, BSPKIT_S_DISPINFO, -1, -1, "displacement %zu: out of memory",
                       disp_index);
    m.positions = (bspkit_vec3 *)(void *)block;
    m.normals = (bspkit_vec3 *)(void *)(block + at_normals);
    m.alphas = (float *)(void *)(block + at_alphas);
    m.indices = (uint32_t *)(void *)(block + at_indices);
    m.tags = ndt ? (uint16_t *)(void *)(block + at_tags) : NULL;

    /* Row i runs along corner 0 -> 1 (and 3 -> 2); column j crosses from the first edge to the second. */
    float step = 1.0f / (float)(m.side - 1);
    const bspkit_disp_vert *dv = &dverts[d->disp_vert_start];
    for (uint32_t i = 0; i < m.side; i++) {
        bspkit_vec3 e0 = lerp(m.corners[0], m.corners[1], (float)i * step);
        bspkit_vec3 e1 = lerp(m.corners[3], m.corners[2], (float)i * step);
        for (uint32_t j = 0; j < m.side; j++) {
            size_t v = (size_t)i * m.side + j;
            bspkit_vec3 p = lerp(e0, e1, (float)j * step);
            m.positions[v] = (bspkit_vec3){p.x + dv[v].vec.x * dv[v].dist, p.y + dv[v].vec.y * dv[v].dist,
                                           p.z + dv[v].vec.z * dv[v].dist};
            m.alphas[v] = dv[v].alpha;
        }
    }
    triangulate(m.side, m.indices);
    if (m.tags)
        memcpy(m.tags, &dtris[d->disp_tri_start], m.triangle_count * sizeof *m.tags);
    vertex_normals(&m);
    *out = m;
    return BSPKIT_OK;
}
