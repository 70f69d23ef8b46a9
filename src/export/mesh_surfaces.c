/* Quake 3 surfaces for the export mesh: planar surfaces and triangle soups
 * as the triangles they store, Bézier patches tessellated, flares left out.
 * Texture coordinates are the vertices' own (in texture widths); lightmap
 * coordinates move each vertex's page coordinate into the atlas. */
#include "export/mesh_internal.h"

#include "core/map.h"
#include "core/surfedge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Segments per 3 x 3 control block along each axis: a fixed subdivision,
 * finer than the engine's default for typical arches and pipes. */
#define PATCH_STEPS 8
/* Output bound: a control point yields at most about (PATCH_STEPS / 2)^2
 * grid vertices, a stored vertex or index exactly one; together they may not
 * pass this many times the face-edge bound of the vertex and index lumps
 * (surfaces of hostile maps can share ranges). */
#define PATCH_GROWTH ((PATCH_STEPS / 2 + 1) * (PATCH_STEPS / 2 + 1))

static bspkit_result surface_fail(builder *b, bspkit_error *err, size_t si, const char *what)
{
    int lump = b->map->dec_lump[BK_REC_SURFACES];
    uint64_t ofs = (uint64_t)si * b->map->lumps[lump].layout.record_size;
    return bk_fail(err, BSPKIT_ERR_INDEX, lump, bk_file_offset(b->map, lump, ofs), (int64_t)ofs,
                   "SURFACES record %zu: %s", si, what);
}

static bool is_patch_shape(const bspkit_surface *s)
{
    return s->patch_width >= 3 && s->patch_height >= 3 && (s->patch_width & 1) && (s->patch_height & 1) &&
           (int64_t)s->patch_width * s->patch_height == s->num_verts;
}

static uint64_t patch_grid_verts(const bspkit_surface *s)
{
    return ((uint64_t)(s->patch_width - 1) / 2 * PATCH_STEPS + 1) * ((uint64_t)(s->patch_height - 1) / 2 * PATCH_STEPS + 1);
}

bspkit_result bk_xsurfaces_load(builder *b, const bspkit_model *models, size_t nmodels, bspkit_error *err)
{
    bspkit_map *map = b->map;
    bspkit_result r;
    if ((r = bspkit_get_shaders(map, &b->shaders, &b->shader_count, err)) != BSPKIT_OK ||
        (r = bspkit_get_surfaces(map, &b->surfaces, &b->surface_count, err)) != BSPKIT_OK ||
        (r = bspkit_get_drawverts(map, &b->drawverts, &b->drawvert_count, err)) != BSPKIT_OK ||
        (r = bspkit_get_drawindexes(map, &b->drawindexes, &b->drawindex_count, err)) != BSPKIT_OK)
        return r;
    if (b->opts.atlas &&
        (r = bspkit_get_face_lightmaps(map, false, &b->surface_lightmaps, &b->surface_lightmap_count, err)) !=
            BSPKIT_OK)
        return r;

    uint64_t planned = 0;
    for (size_t i = 0; i < nmodels; i++) {
        const bspkit_model *md = &models[i];
        if (md->first_face < 0 || md->num_faces < 0 ||
            !range_ok((uint64_t)md->first_face, (uint64_t)md->num_faces, b->surface_count))
            continue; /* reported by the builder */
        for (size_t k = 0; k < (size_t)md->num_faces; k++) {
            const bspkit_surface *s = &b->surfaces[(size_t)md->first_face + k];
            if (s->type == BSPKIT_Q3_SURFACE_PATCH && is_patch_shape(s))
                planned += patch_grid_verts(s);
            else if (s->num_verts > 0 && s->num_indexes > 0)
                planned += (uint64_t)s->num_verts + (uint64_t)s->num_indexes;
        }
    }
    uint64_t limit = PATCH_GROWTH * bk_face_edge_limit((uint64_t)b->drawvert_count + b->drawindex_count);
    if (planned > limit) {
        int lump = map->dec_lump[BK_REC_SURFACES];
        return bk_fail(err, BSPKIT_ERR_LIMIT, lump, bk_file_offset(map, lump, 0), 0,
                       "SURFACES: the exported surfaces need %llu vertices and indices, more than %llu for %zu "
                       "drawverts and %zu drawindexes (surfaces share ranges)",
                       (unsigned long long)planned, (unsigned long long)limit, b->drawvert_count,
                       b->drawindex_count);
    }

    size_t cap = 0;
    if ((r = bk_xgrow(b->m, (void **)&b->texture_material, &cap, b->shader_count + 1, sizeof(int32_t), -1, err)) !=
        BSPKIT_OK)
        return r;
    b->texture_count = b->shader_count;
    for (size_t i = 0; i < b->shader_count; i++) {
        char fallback[32];
        snprintf(fallback, sizeof fallback, "missing_%zu", i);
        const char *name = b->shaders[i].name[0] ? b->shaders[i].name : fallback;
        /* Shader images live outside the map; texture coordinates are already in widths. */
        if ((r = bk_xadd_material(b, name, (int32_t)i, 1, 1, &b->texture_material[i], err)) != BSPKIT_OK)
            return r;
    }
    return BSPKIT_OK;
}

/* Where page coordinates of surface `si` land in the atlas: origin and
 * scale per axis; false when the surface is not placed. */
static bool page_transform(const builder *b, size_t si, double origin[2], double scale[2])
{
    const bspkit_lightmap_atlas *a = b->opts.atlas;
    if (!a || si >= a->rect_count || !a->rects[si].placed || si >= b->surface_lightmap_count)
        return false;
    const double side = BSPKIT_Q3_LIGHTMAP_PAGE_SIZE;
    const bspkit_face_lightmap *lm = &b->surface_lightmaps[si];
    origin[0] = ((double)a->rects[si].x - lm->mins[0]) / a->image.width;
    origin[1] = ((double)a->rects[si].y - lm->mins[1]) / a->image.height;
    scale[0] = side / a->image.width;
    scale[1] = side / a->image.height;
    return true;
}

/* A vertex of a surface as the writers want it: unit normal (straight up
 * when the file's is unusable) and the atlas coordinate. */
typedef struct svert {
    double pos[3], normal[3];
    float st[2], lm[2];
} svert;

static void from_drawvert(const bspkit_drawvert *v, svert *o)
{
    o->pos[0] = v->xyz.x, o->pos[1] = v->xyz.y, o->pos[2] = v->xyz.z;
    o->normal[0] = v->normal.x, o->normal[1] = v->normal.y, o->normal[2] = v->normal.z;
    o->st[0] = v->st[0], o->st[1] = v->st[1];
    o->lm[0] = v->lightmap[0], o->lm[1] = v->lightmap[1];
}

static bool put(bk_xprim *p, svert *v, bool placed, const double origin[2], const double scale[2], size_t si)
{
    if (!bk_xnormalize(v->normal)) {
        v->normal[0] = v->normal[1] = 0;
        v->normal[2] = 1;
    }
    float lm[2] = {0, 0};
    if (placed) {
        lm[0] = (float)(origin[0] + v->lm[0] * scale[0]);
        lm[1] = (float)(origin[1] + v->lm[1] * scale[1]);
    }
    return bk_xput_vertex(p, v->pos, v->normal, v->st, lm, (uint32_t)si);
}

/* Appends triangle (i0, i1, i2) of the vertices from `base`, turned so it
 * is counter-clockwise seen from the side its vertex normals face. */
static void put_triangle(bk_xprim *p, uint32_t base, uint32_t i0, uint32_t i1, uint32_t i2)
{
    const bk_xvertex *v = p->verts + base;
    double e1[3], e2[3], n[3], sum[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = (double)v[i1].pos[k] - v[i0].pos[k];
        e2[k] = (double)v[i2].pos[k] - v[i0].pos[k];
        sum[k] = (double)v[i0].normal[k] + v[i1].normal[k] + v[i2].normal[k];
    }
    bk_xcross(e1, e2, n);
    bool flip = bk_xdot3(n, sum) < 0;
    uint32_t *t = &p->indices[p->index_count];
    t[0] = base + i0;
    t[1] = base + (flip ? i2 : i1);
    t[2] = base + (flip ? i1 : i2);
    p->index_count += 3;
}

/* Planar surfaces and triangle soups: their vertices and stored triangles. */
static bspkit_result emit_triangles(builder *b, bk_xprim *p, size_t si, bool placed, const double origin[2],
                                    const double scale[2], size_t *triangles, bspkit_error *err)
{
    const bspkit_surface *s = &b->surfaces[si];
    if (s->first_index < 0 || s->num_indexes < 0 || s->num_indexes % 3 ||
        !range_ok((uint64_t)s->first_index, (uint64_t)s->num_indexes, b->drawindex_count))
        return surface_fail(b, err, si, "its indices lie outside DRAWINDEXES or are not whole triangles");
    const int32_t *idx = b->drawindexes + s->first_index;
    for (int32_t k = 0; k < s->num_indexes; k++)
        if (idx[k] < 0 || idx[k] >= s->num_verts)
            return surface_fail(b, err, si, "an index lies outside its vertices");
    bspkit_result r = bk_xreserve(b, p, (size_t)s->num_verts, (size_t)s->num_indexes, err);
    if (r != BSPKIT_OK)
        return r;
    uint32_t base = (uint32_t)p->vert_count;
    for (int32_t k = 0; k < s->num_verts; k++) {
        svert v;
        from_drawvert(&b->drawverts[s->first_vert + k], &v);
        if (!put(p, &v, placed, origin, scale, si))
            return surface_fail(b, err, si, "a vertex is not a finite point");
    }
    for (int32_t k = 0; k + 2 < s->num_indexes; k += 3)
        put_triangle(p, base, (uint32_t)idx[k], (uint32_t)idx[k + 1], (uint32_t)idx[k + 2]);
    *triangles = (size_t)s->num_indexes / 3;
    return BSPKIT_OK;
}

/* Quadratic Bernstein weights at t. */
static void bernstein(double t, double w[3])
{
    w[0] = (1 - t) * (1 - t);
    w[1] = 2 * t * (1 - t);
    w[2] = t * t;
}

/* The point of the 3 x 3 block whose top-left control point is `c` (rows
 * `stride` apart) at (u, v), with its interpolated attributes; the normal
 * falls back to the surface's tangent cross product where the control
 * normals cancel. */
static void eval_block(const bspkit_drawvert *c, int32_t stride, double u, double v, svert *o)
{
    double wu[3], wv[3];
    bernstein(u, wu);
    bernstein(v, wv);
    memset(o, 0, sizeof *o);
    double st[2] = {0, 0}, lm[2] = {0, 0}, du[3] = {0, 0, 0}, dv[3] = {0, 0, 0};
    /* Derivative weights of the quadratic Bernstein basis. */
    const double du_w[3] = {-2 * (1 - u), 2 - 4 * u, 2 * u}, dv_w[3] = {-2 * (1 - v), 2 - 4 * v, 2 * v};
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
            const bspkit_drawvert *p = &c[j * stride + i];
            double w = wu[i] * wv[j];
            const double xyz[3] = {p->xyz.x, p->xyz.y, p->xyz.z}, n[3] = {p->normal.x, p->normal.y, p->normal.z};
            for (int k = 0; k < 3; k++) {
                o->pos[k] += w * xyz[k];
                o->normal[k] += w * n[k];
                du[k] += du_w[i] * wv[j] * xyz[k];
                dv[k] += wu[i] * dv_w[j] * xyz[k];
            }
            st[0] += w * p->st[0], st[1] += w * p->st[1];
            lm[0] += w * p->lightmap[0], lm[1] += w * p->lightmap[1];
        }
    o->st[0] = (float)st[0], o->st[1] = (float)st[1];
    o->lm[0] = (float)lm[0], o->lm[1] = (float)lm[1];
    double len = sqrt(bk_xdot3(o->normal, o->normal));
    if (!(len > 1e-6)) {
        bk_xcross(du, dv, o->normal);
        /* Which side the tangents' normal faces is fixed up per triangle. */
    }
}

/* A patch: each 3 x 3 block of control points (neighbours share an edge)
 * evaluated on a (PATCH_STEPS + 1)^2 grid, the grids joined into one. */
static bspkit_result emit_patch(builder *b, bk_xprim *p, size_t si, bool placed, const double origin[2],
                                const double scale[2], size_t *triangles, bspkit_error *err)
{
    const bspkit_surface *s = &b->surfaces[si];
    int32_t bw = (s->patch_width - 1) / 2, bh = (s->patch_height - 1) / 2;
    uint32_t gw = (uint32_t)bw * PATCH_STEPS + 1, gh = (uint32_t)bh * PATCH_STEPS + 1;
    size_t cells = (size_t)(gw - 1) * (gh - 1);
    bspkit_result r = bk_xreserve(b, p, (size_t)gw * gh, cells * 6, err);
    if (r != BSPKIT_OK)
        return r;
    const bspkit_drawvert *ctrl = b->drawverts + s->first_vert;
    uint32_t base = (uint32_t)p->vert_count;
    for (uint32_t y = 0; y < gh; y++) {
        int32_t by = (int32_t)(y / PATCH_STEPS) < bh ? (int32_t)(y / PATCH_STEPS) : bh - 1;
        double v = (double)(y - (uint32_t)by * PATCH_STEPS) / PATCH_STEPS;
        for (uint32_t x = 0; x < gw; x++) {
            int32_t bx = (int32_t)(x / PATCH_STEPS) < bw ? (int32_t)(x / PATCH_STEPS) : bw - 1;
            double u = (double)(x - (uint32_t)bx * PATCH_STEPS) / PATCH_STEPS;
            svert sv;
            eval_block(ctrl + (size_t)(2 * by) * s->patch_width + 2 * bx, s->patch_width, u, v, &sv);
            if (!put(p, &sv, placed, origin, scale, si))
                return surface_fail(b, err, si, "a patch control point is not a finite point");
        }
    }
    for (uint32_t y = 0; y + 1 < gh; y++)
        for (uint32_t x = 0; x + 1 < gw; x++) {
            uint32_t a = y * gw + x, c = a + gw;
            put_triangle(p, base, a, c, a + 1);
            put_triangle(p, base, a + 1, c, c + 1);
        }
    *triangles = cells * 2;
    return BSPKIT_OK;
}

bspkit_result bk_xsurface_emit(builder *b, bk_xmodel *xm, size_t *prim_cap, size_t si, bspkit_error *err)
{
    bk_xmesh *m = b->m;
    const bspkit_surface *s = &b->surfaces[si];
    if (s->type == BSPKIT_Q3_SURFACE_FLARE)
        return BSPKIT_OK; /* a light flare: a sprite, no geometry */
    bool patch = s->type == BSPKIT_Q3_SURFACE_PATCH;
    if ((s->type != BSPKIT_Q3_SURFACE_PLANAR && s->type != BSPKIT_Q3_SURFACE_TRIANGLE_SOUP && !patch) ||
        s->num_verts <= 0 || (patch && !is_patch_shape(s)) || (!patch && s->num_indexes < 3)) {
        m->degenerate_faces++;
        return BSPKIT_OK;
    }
    if (s->shader < 0 || (size_t)s->shader >= b->shader_count)
        return surface_fail(b, err, si, "its shader lies outside SHADERS");
    if (s->first_vert < 0 || !range_ok((uint64_t)s->first_vert, (uint64_t)s->num_verts, b->drawvert_count))
        return surface_fail(b, err, si, "its vertices lie outside DRAWVERTS");
    int32_t mat = b->texture_material[s->shader];
    if (!bk_xkeep_face(b, (uint32_t)mat, b->shaders[s->shader].surface_flags))
        return BSPKIT_OK;
    bk_xprim *p;
    bspkit_result r = bk_xprim_for(b, xm, prim_cap, (uint32_t)mat, &p, err);
    if (r != BSPKIT_OK)
        return r;
    double origin[2] = {0, 0}, scale[2] = {0, 0};
    bool placed = page_transform(b, si, origin, scale);
    size_t tris = 0;
    r = patch ? emit_patch(b, p, si, placed, origin, scale, &tris, err)
              : emit_triangles(b, p, si, placed, origin, scale, &tris, err);
    if (r != BSPKIT_OK)
        return r;
    xm->faces++;
    xm->triangles += tris;
    if (placed)
        m->materials[mat].lit = true;
    return BSPKIT_OK;
}
