/*
 * Displacements in every Source map of the corpus:
 *  - DISP_VERTS / DISP_TRIS hold exactly the sum over DISPINFO of
 *    (2^p+1)^2 vertices and 2*(2^p)^2 triangles, and each record's
 *    DispVertStart / DispTriStart runs are contiguous, in DISPINFO order;
 *  - power is 2..4, MapFace is a face whose dispinfo points back, neighbour
 *    indices are in range or none;
 *  - every mesh builds, its four grid corners equal the rotated base-face
 *    corners plus their own DISP_VERTS offsets (computed here from the raw
 *    lumps), and every vertex is finite;
 *  - vbspinfo's dispinfos / disp_verts / disp_tris / disp_lmsamples rows in
 *    `<map>.info.txt` agree (disp_lmsamples is the byte size of
 *    DISP_LIGHTMAP_SAMPLE_POSITIONS; compared only when the dump was taken
 *    from this very file, as its "reading ... (size)" line shows).
 * Usage: corpus_check_displacement MAPS_DIR
 */
#include "bspkit/displacement.h"
#include "corpus_walk.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int failures, maps, displacements, info_rows;
static long vertices;

static void fail(const char *rel, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL %s: ", rel);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    failures++;
}

/* Count column of a vbspinfo row ("disp_verts   131/0   2620/0 ..."), -1 when absent. */
static long info_row(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = text; (p = strstr(p, name)) != NULL; p += n) {
        if ((p == text || p[-1] == '\n') && p[n] == ' ')
            return strtol(p + n, NULL, 10);
    }
    return -1;
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = calloc(1, 1 << 16);
    if (buf)
        fread(buf, 1, (1 << 16) - 1, f);
    fclose(f);
    return buf;
}

static void compare_info(bspkit_map *map, const char *rel, const char *path, size_t ninfo, size_t nverts,
                         size_t ntris)
{
    char info[4200];
    snprintf(info, sizeof info, "%s.info.txt", path);
    char *text = read_text(info);
    if (!text)
        return;
    const uint8_t *sp;
    size_t sp_size = 0, file_size = 0;
    bspkit_get_disp_lightmap_sample_positions(map, &sp, &sp_size, NULL);
    bspkit_map_bytes(map, &file_size);
    const char *reading = strstr(text, "reading ");
    const char *paren = reading ? strchr(reading, '(') : NULL;
    bool same_file = paren && strtoull(paren + 1, NULL, 10) == file_size;
    struct { const char *row; size_t ours; bool needs_same_file; } rows[] = {
        {"dispinfos", ninfo, false}, {"disp_verts", nverts, false}, {"disp_tris", ntris, false},
        {"disp_lmsamples", sp_size, true}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        long want = info_row(text, rows[i].row);
        if (want < 0 || (rows[i].needs_same_file && !same_file))
            continue;
        info_rows++;
        if ((size_t)want != rows[i].ours)
            fail(rel, "vbspinfo %s = %ld, bspkit has %zu", rows[i].row, want, rows[i].ours);
    }
    free(text);
}

static bool near(bspkit_vec3 a, bspkit_vec3 b) { return fabsf(a.x - b.x) <= 0.01f && fabsf(a.y - b.y) <= 0.01f && fabsf(a.z - b.z) <= 0.01f; }

/* Face corner k of the winding, straight from the lumps. */
static bspkit_vec3 corner_of(const bspkit_face *f, const int32_t *se, const bspkit_edge *e, const bspkit_vec3 *v,
                             int k)
{
    int32_t s = se[f->first_edge + k];
    return v[s < 0 ? e[-s].v[1] : e[s].v[0]];
}

static void check_disp(bspkit_map *map, const char *rel, size_t i, const bspkit_dispinfo *d, size_t ninfo)
{
    const bspkit_face *faces;
    const int32_t *se;
    const bspkit_edge *edges;
    const bspkit_vec3 *verts;
    const bspkit_disp_vert *dv;
    size_t nf, ns, ne, nv, ndv;
    bspkit_get_faces(map, &faces, &nf, NULL);
    if (nf == 0) /* HDR-only builds keep their faces in FACES_HDR */
        bspkit_get_hdr_faces(map, &faces, &nf, NULL);
    bspkit_get_surfedges(map, &se, &ns, NULL);
    bspkit_get_edges(map, &edges, &ne, NULL);
    bspkit_get_vertexes(map, &verts, &nv, NULL);
    bspkit_get_disp_verts(map, &dv, &ndv, NULL);
    if (d->map_face >= nf) {
        fail(rel, "dispinfo %zu: MapFace %u >= %zu faces", i, d->map_face, nf);
        return;
    }
    if (faces[d->map_face].dispinfo != (int32_t)i)
        fail(rel, "dispinfo %zu: face %u points to dispinfo %d", i, d->map_face, faces[d->map_face].dispinfo);
    for (int e = 0; e < 4; e++)
        for (int s = 0; s < 2; s++)
            if (d->edge_neighbor[e][s] != -1 && (d->edge_neighbor[e][s] < 0 || (size_t)d->edge_neighbor[e][s] >= ninfo))
                fail(rel, "dispinfo %zu: edge neighbour %d out of range", i, d->edge_neighbor[e][s]);
    for (int c = 0; c < 4; c++) {
        if (d->corner_neighbor_count[c] > 4)
            fail(rel, "dispinfo %zu: corner %d has %u neighbours", i, c, d->corner_neighbor_count[c]);
        for (int k = 0; k < d->corner_neighbor_count[c] && k < 4; k++)
            if (d->corner_neighbors[c][k] < 0 || (size_t)d->corner_neighbors[c][k] >= ninfo)
                fail(rel, "dispinfo %zu: corner neighbour %d out of range", i, d->corner_neighbors[c][k]);
    }

    bspkit_disp_mesh m;
    bspkit_error err;
    if (bspkit_disp_build_mesh(map, i, &m, &err) != BSPKIT_OK) {
        fail(rel, "dispinfo %zu: mesh: %s", i, err.message);
        return;
    }
    displacements++;
    /* Independent expectation: nearest face corner to startPosition, then the winding from there. */
    const bspkit_face *f = &faces[d->map_face];
    int first = 0;
    double best = INFINITY;
    for (int k = 0; k < 4; k++) {
        bspkit_vec3 c = corner_of(f, se, edges, verts, k);
        double dx = c.x - d->start_position.x, dy = c.y - d->start_position.y, dz = c.z - d->start_position.z;
        if (dx * dx + dy * dy + dz * dz < best) {
            best = dx * dx + dy * dy + dz * dz;
            first = k;
        }
    }
    uint32_t side = (1u << d->power) + 1;
    /* Grid index of rotated corners 0, 1, 2, 3. */
    size_t grid[4] = {0, (size_t)(side - 1) * side, (size_t)side * side - 1, side - 1};
    for (int k = 0; k < 4; k++) {
        bspkit_vec3 c = corner_of(f, se, edges, verts, (first + k) % 4);
        const bspkit_disp_vert *o = &dv[d->disp_vert_start + grid[k]];
        bspkit_vec3 want = {c.x + o->vec.x * o->dist, c.y + o->vec.y * o->dist, c.z + o->vec.z * o->dist};
        if (!near(m.positions[grid[k]], want))
            fail(rel, "dispinfo %zu: corner %d at (%g %g %g), expected (%g %g %g)", i, k, m.positions[grid[k]].x,
                 m.positions[grid[k]].y, m.positions[grid[k]].z, want.x, want.y, want.z);
    }
    for (size_t v = 0; v < m.vertex_count; v++) {
        bspkit_vec3 p = m.positions[v];
        if (!isfinite(p.x) || !isfinite(p.y) || !isfinite(p.z)) {
            fail(rel, "dispinfo %zu: vertex %zu not finite", i, v);
            break;
        }
    }
    if (m.triangle_count != 2u * (side - 1) * (side - 1))
        fail(rel, "dispinfo %zu: %zu triangles", i, m.triangle_count);
    vertices += (long)m.vertex_count;
    bspkit_disp_mesh_free(&m);
}

static void visit(const char *root, const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    bspkit_map *map;
    bspkit_error err;
    bspkit_result r = bspkit_open_file(path, NULL, &map, &err);
    if (r == BSPKIT_ERR_UNSUPPORTED)
        return;
    if (r != BSPKIT_OK) {
        fail(rel, "does not open: %s", err.message);
        return;
    }
    if (bspkit_map_format(map)->family != BSPKIT_FAMILY_SOURCE) {
        bspkit_close(map);
        return;
    }
    const bspkit_dispinfo *info;
    const bspkit_disp_vert *dv;
    const uint16_t *dt;
    size_t ninfo = 0, ndv = 0, ndt = 0;
    if (bspkit_get_dispinfo(map, &info, &ninfo, &err) != BSPKIT_OK ||
        bspkit_get_disp_verts(map, &dv, &ndv, &err) != BSPKIT_OK ||
        bspkit_get_disp_tris(map, &dt, &ndt, &err) != BSPKIT_OK) {
        fail(rel, "decode: %s", err.message);
        bspkit_close(map);
        return;
    }
    if (ninfo) {
        maps++;
        uint64_t vsum = 0, tsum = 0;
        bool ok = true;
        for (size_t i = 0; i < ninfo; i++) {
            const bspkit_dispinfo *d = &info[i];
            if (d->power < 2 || d->power > 4) {
                fail(rel, "dispinfo %zu: power %d", i, d->power);
                ok = false;
                continue;
            }
            if ((uint64_t)d->disp_vert_start != vsum || (uint64_t)d->disp_tri_start != tsum)
                fail(rel, "dispinfo %zu: starts %d/%d, expected contiguous %llu/%llu", i, d->disp_vert_start,
                     d->disp_tri_start, (unsigned long long)vsum, (unsigned long long)tsum);
            vsum += bspkit_disp_vert_count(d->power);
            tsum += bspkit_disp_tri_count(d->power);
        }
        if (vsum != ndv || tsum != ndt) {
            fail(rel, "DISP_VERTS %zu / DISP_TRIS %zu, dispinfo powers need %llu / %llu", ndv, ndt,
                 (unsigned long long)vsum, (unsigned long long)tsum);
            ok = false;
        }
        for (size_t i = 0; ok && i < ninfo; i++)
            check_disp(map, rel, i, &info[i], ninfo);
    }
    compare_info(map, rel, path, ninfo, ndv, ndt);
    bspkit_close(map);
}

int main(int argc, char **argv)
{
    struct stat st;
    if (argc < 2 || stat(argv[1], &st) != 0 || !S_ISDIR(st.st_mode)) {
        printf("skipped: %s not present, displacement checks not run\n", argc > 1 ? argv[1] : "maps directory");
        return 0;
    }
    corpus_walk(argv[1], visit);
    printf("displacement: %d maps with displacements, %d displacements, %ld vertices checked, "
           "%d vbspinfo rows compared, %d failures\n",
           maps, displacements, vertices, info_rows, failures);
    return failures ? 1 : 0;
}
