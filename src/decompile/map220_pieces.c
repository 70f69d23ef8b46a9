/* .map decompiler: the convex pieces of each model, from its hull-0 BSP tree. */
#include "map220_internal.h"

/* ---- building the pieces of one model -------------------------------------- */

/* Makes side_faces cover every stored face, marking new ones not looked up
 * (-2); false when out of memory. */
bool m220_cover_side_faces(dctx *c)
{
    if (!bk_grow((void **)&c->side_faces, &c->cap_side_faces, c->store.nfaces, sizeof *c->side_faces))
        return false;
    for (size_t i = c->nside_faces; i < c->store.nfaces; i++)
        c->side_faces[i] = -2;
    c->nside_faces = c->store.nfaces;
    return true;
}

void m220_region_bounds(const bk_region *r, bk_dvec *lo, bk_dvec *hi)
{
    m220_points_bounds(r->points, r->npoints, lo, hi);
}

bool m220_store_piece(dctx *c, const bk_region *r, piece *p)
{
    if (c->store.npoints + r->npoints > c->store_limit)
        return false;
    p->first = (uint32_t)c->store.nfaces;
    p->nfaces = (uint32_t)r->nfaces;
    m220_region_bounds(r, &p->lo, &p->hi);
    for (size_t f = 0; f < r->nfaces; f++) {
        const bk_rface *face = &r->faces[f];
        if (!bk_region_add_face(&c->store, &face->pl, face->plane, face->flip, r->points + face->first,
                                face->count))
            return false;
    }
    return true;
}

bspkit_result m220_limit_fail(dctx *c, int lump, const char *what)
{
    return bk_fail(c->err, BSPKIT_ERR_LIMIT, lump, -1, -1, "decompile: %s", what);
}

/* Texture of a liquid or sky leaf: the first of its faces whose name gives its contents. */
static int32_t leaf_texture(const dctx *c, const bspkit_leaf *leaf)
{
    for (uint64_t i = 0; i < leaf->num_leaf_faces && i < 4096; i++) {
        uint64_t k = (uint64_t)leaf->first_leaf_face + i;
        if (k >= c->nleaf_faces || c->leaf_faces[k] >= c->nfaces)
            break;
        int64_t t = m220_face_miptex(c, c->leaf_faces[k]);
        if (m220_name_fits(m220_miptex_name(c, t), leaf->contents))
            return (int32_t)t;
    }
    return -1;
}

typedef struct frame {
    int32_t child;
    uint32_t depth;
    bk_region region;
} frame;

/* The unit plane `p` of record `node` of tree lump `lump`, checked. */
static bspkit_result node_plane(dctx *c, int lump, uint32_t node, uint32_t record, int32_t p, bk_dplane *out)
{
    int64_t at = bk_file_offset(c->map, lump, (uint64_t)node * record);
    if (p < 0 || (size_t)p >= c->nplanes)
        return bk_fail(c->err, BSPKIT_ERR_INDEX, lump, at, (int64_t)node * record,
                       "decompile: node %u uses plane %d of %zu", node, p, c->nplanes);
    const bspkit_plane *pl = &c->planes[p];
    bk_dvec n = {pl->normal.x, pl->normal.y, pl->normal.z};
    double len = dv_length(n);
    if (!(len > 0.5 && len < 2.0) || !isfinite(pl->dist) || fabs(pl->dist) > 1e7)
        return bk_fail(c->err, BSPKIT_ERR_INDEX, BSPKIT_Q_PLANES,
                       bk_file_offset(c->map, BSPKIT_Q_PLANES, (uint64_t)p * c->plane_record),
                       (int64_t)p * c->plane_record, "decompile: plane %d of node %u is not a usable plane", p,
                       node);
    out->n = dv_scale(n, 1 / len);
    out->d = pl->dist / len;
    return BSPKIT_OK;
}

bspkit_result m220_add_piece(dctx *c, const bk_region *r, const bspkit_leaf *leaf)
{
    if (!bk_grow((void **)&c->pieces, &c->cap_pieces, c->npieces + 1, sizeof *c->pieces))
        return m220_nomem(c);
    piece *p = &c->pieces[c->npieces];
    *p = (piece){.contents = leaf->contents, .alive = true};
    p->tex = m220_is_liquid(leaf->contents) || leaf->contents == BSPKIT_Q_CONTENTS_SKY ? leaf_texture(c, leaf) : -1;
    if (c->store.npoints + r->npoints > c->store_limit)
        return m220_limit_fail(c, BSPKIT_Q_NODES, "the tree's regions outgrow the size of the map");
    if (!m220_store_piece(c, r, p))
        return m220_nomem(c);
    c->npieces++;
    return BSPKIT_OK;
}

/* A plane through edge `e` of polygon p[0..n) (lying on a side with normal
 * `sn`) and perpendicular to that side, with the polygon behind it and every
 * point of polygon o[0..on) on it or in front: a line on the side that
 * separates the two polygons. False when that edge gives none. */
static bool edge_separator(const bk_dvec *p, size_t n, const bk_dvec *o, size_t on, bk_dvec sn, size_t e,
                           bk_dplane *out)
{
    bk_dvec a = p[e], b = p[(e + 1) % n];
    bk_dplane pl = {dv_normalize(dv_cross(dv_sub(b, a), sn)), 0};
    if (pl.n.x == 0 && pl.n.y == 0 && pl.n.z == 0)
        return false;
    pl.d = dv_dot(pl.n, a);
    bk_dvec centre = {0, 0, 0};
    for (size_t i = 0; i < n; i++)
        centre = dv_add(centre, p[i]);
    double s = dv_dot(pl.n, dv_scale(centre, 1.0 / (double)n)) - pl.d;
    if (fabs(s) < BK_REGION_ON_EPS)
        return false;
    if (s > 0)
        pl = (bk_dplane){dv_scale(pl.n, -1), -pl.d};
    for (size_t i = 0; i < on; i++)
        if (dv_dot(pl.n, o[i]) - pl.d < -BK_REGION_ON_EPS)
            return false;
    *out = pl;
    return true;
}

/* Cuts region `r` in two along `pl` into `back` and `front`; *cut tells
 * whether both parts are proper. False when out of memory. */
static bool split_region(dctx *c, const bk_region *r, const bk_dplane *pl, bk_region *back, bk_region *front,
                         bool *cut)
{
    bk_dplane neg = {dv_scale(pl->n, -1), -pl->d};
    bk_cut bc, fc;
    uint8_t flip = 0;
    int32_t plane = m220_plane_id(c, pl, &flip);
    if (plane < 0)
        return false;
    if (!bk_region_cut(&c->rc, r, pl, plane, flip, back, &bc) ||
        !bk_region_cut_again(&c->rc, r, &neg, plane, (uint8_t)!flip, front, &fc))
        return false;
    *cut = bc == BK_CUT_PART && fc == BK_CUT_PART;
    return true;
}

/* One brush side shows one texture, but a leaf's side can span faces of
 * several (two abutting brushes with different textures on a common plane
 * leave no node between them). Looks for a side with two faces of different
 * textures and cuts `r` between them, perpendicular to that side, along an
 * edge of one face that has the other wholly on its far side; the parts go
 * to `back` and `front` and *found is set. False when out of memory. */
static bool texture_split(dctx *c, const bspkit_model *m, const bk_region *r, bk_region *back, bk_region *front,
                          bool *found)
{
    *found = false;
    if (!bk_grow((void **)&c->region_faces, &c->cap_region_faces, r->nfaces, sizeof *c->region_faces))
        return false;
    for (size_t fi = 0; fi < r->nfaces; fi++) {
        const bk_rface *f = &r->faces[fi];
        if (!m220_side_candidates(c, m, f, r->points + f->first))
            return false;
        int64_t ia = m220_largest_candidate(c);
        c->region_faces[fi] = ia < 0 ? -1 : (int64_t)c->cands[ia].face;
        if (c->ncands < 2 || c->cands[ia].area < SPLIT_MIN_AREA)
            continue;
        uint32_t fa = c->cands[ia].face;
        int64_t ta = m220_face_miptex(c, fa);
        for (size_t j = 0; j < c->ncands; j++) {
            uint32_t fb = c->cands[j].face;
            int64_t tb = m220_face_miptex(c, fb);
            if (tb == ta || ta < 0 || tb < 0 || c->cands[j].area < SPLIT_MIN_AREA)
                continue;
            /* Two convex polygons that do not overlap are separated by a line along an edge of one of them. */
            for (int k = 0; k < 2; k++) {
                const mface *mp = &c->mfaces[k ? fb : fa], *mo = &c->mfaces[k ? fa : fb];
                const bk_dvec *pp = c->fpoints + mp->first, *op = c->fpoints + mo->first;
                for (size_t e = 0; e < mp->count; e++) {
                    bk_dplane pl;
                    c->rc.work += mo->count;
                    if (!edge_separator(pp, mp->count, op, mo->count, f->pl.n, e, &pl))
                        continue;
                    c->rc.work += r->npoints;
                    if (!split_region(c, r, &pl, back, front, found))
                        return false;
                    if (*found)
                        return true;
                }
            }
        }
    }
    return true;
}

/* Adds the pieces of a leaf's region: solid leaves are first cut so that
 * each side shows one texture (texture_split), as far as MAX_SPLIT_DEPTH
 * nested cuts and the work limit allow. */
static bspkit_result add_leaf(dctx *c, const bspkit_model *m, const bk_region *r, const bspkit_leaf *leaf,
                              unsigned depth)
{
    if (leaf->contents != BSPKIT_Q_CONTENTS_SOLID || depth >= MAX_SPLIT_DEPTH || c->rc.work > c->work_limit)
        return m220_add_piece(c, r, leaf);
    bk_region back = {0}, front = {0};
    bool found;
    bspkit_result res;
    if (!texture_split(c, m, r, &back, &front, &found))
        res = m220_nomem(c);
    else if (!found) {
        /* Every side's face is known now: keep them for merging and writing. */
        res = m220_add_piece(c, r, leaf);
        if (res == BSPKIT_OK && !m220_cover_side_faces(c))
            res = m220_nomem(c);
        if (res == BSPKIT_OK)
            memcpy(c->side_faces + c->pieces[c->npieces - 1].first, c->region_faces,
                   r->nfaces * sizeof *c->side_faces);
    } else {
        c->texture_splits++;
        res = add_leaf(c, m, &back, leaf, depth + 1);
        if (res == BSPKIT_OK)
            res = add_leaf(c, m, &front, leaf, depth + 1);
    }
    bk_region_free(&back);
    bk_region_free(&front);
    return res;
}

/* The box a model's pieces are cut from: its stored bounds grown to cover
 * its faces. qbsp stores bounds shrunk by one unit (mins + 1, maxs - 1), so
 * a model whose faces lie on its outside (a lone crate) would otherwise lose
 * those faces' sides; hlbsp stores the brushes' bounds, which already
 * cover them. */
static void compute_model_box(const dctx *c, const bspkit_model *m, bk_dvec *lo, bk_dvec *hi)
{
    *lo = (bk_dvec){m->mins.x, m->mins.y, m->mins.z};
    *hi = (bk_dvec){m->maxs.x, m->maxs.y, m->maxs.z};
    if (m->first_face < 0 || m->num_faces <= 0 || (uint64_t)m->first_face >= c->nfaces)
        return;
    uint64_t last = (uint64_t)m->first_face + (uint64_t)m->num_faces;
    if (last > c->nfaces)
        last = c->nfaces;
    for (uint64_t f = (uint64_t)m->first_face; f < last; f++) {
        const mface *mf = &c->mfaces[f];
        if (mf->count < 3)
            continue;
        *lo = (bk_dvec){dv_fmin(lo->x, mf->lo.x), dv_fmin(lo->y, mf->lo.y), dv_fmin(lo->z, mf->lo.z)};
        *hi = (bk_dvec){dv_fmax(hi->x, mf->hi.x), dv_fmax(hi->y, mf->hi.y), dv_fmax(hi->z, mf->hi.z)};
    }
}

/* compute_model_box(), kept for the model being built (merging asks on every union). */
void m220_model_box(dctx *c, const bspkit_model *m, bk_dvec *lo, bk_dvec *hi)
{
    if (c->box_model != m) {
        compute_model_box(c, m, &c->box_lo, &c->box_hi);
        c->box_model = m;
    }
    *lo = c->box_lo;
    *hi = c->box_hi;
}

static int32_t tree_node_plane(const dctx *c, const tree_walk *w, uint32_t node)
{
    return w->lump == BSPKIT_Q_NODES ? c->nodes[node].plane : c->clipnodes[node].plane;
}

static int32_t tree_child(const dctx *c, const tree_walk *w, uint32_t node, int side)
{
    return w->lump == BSPKIT_Q_NODES ? c->nodes[node].children[side] : c->clipnodes[node].children[side];
}

/* Hull 0: solid, sky and liquid leaves become pieces. */
static bspkit_result hull0_leaf(dctx *c, const bspkit_model *m, const bk_region *r, int32_t child)
{
    uint64_t leaf = (uint64_t)(-(int64_t)child - 1);
    if (leaf >= c->nleafs)
        return bk_fail(c->err, BSPKIT_ERR_INDEX, BSPKIT_Q_NODES, -1, -1,
                       "decompile: model %td's tree reaches leaf %llu of %zu", m - c->models,
                       (unsigned long long)leaf, c->nleafs);
    if (!m220_wanted(c->leafs[leaf].contents))
        return BSPKIT_OK;
    c->nleaves++;
    return add_leaf(c, m, r, &c->leafs[leaf], 0);
}

/* A copy of `src` in `dst` (empty); false when out of memory. */
bool m220_region_copy(bk_region *dst, const bk_region *src)
{
    size_t npoints = 0;
    for (size_t f = 0; f < src->nfaces; f++)
        npoints += src->faces[f].count;
    /* Room for all of it at once rather than growing face by face. */
    if (!bk_grow((void **)&dst->faces, &dst->cap_faces, dst->nfaces + src->nfaces, sizeof *dst->faces) ||
        !bk_grow((void **)&dst->points, &dst->cap_points, dst->npoints + npoints, sizeof *dst->points))
        return false;
    for (size_t f = 0; f < src->nfaces; f++) {
        const bk_rface *face = &src->faces[f];
        if (!bk_region_add_face(dst, &face->pl, face->plane, face->flip, src->points + face->first, face->count))
            return false;
        dst->faces[dst->nfaces - 1].area_ok = face->area_ok;
    }
    return true;
}

/* Splits region `start` down the tree from `root`, handing every region
 * that reaches a leaf (or contents) to w->leaf. Without w->visited a node
 * may be walked again (the work limit bounds it). */
bspkit_result m220_walk_tree(dctx *c, const bspkit_model *m, const tree_walk *w, int32_t root,
                               const bk_region *start)
{
    bspkit_result r = BSPKIT_OK;
    /* Every frame is written whole when pushed: nothing to clear (this runs
     * once per leaf of hull 0 while the clip hull is walked). */
    frame *stack = malloc((MAX_DEPTH + 2) * sizeof *stack);
    size_t top = 0;
    bk_region back = {0}, front = {0};
    if (!stack)
        return m220_nomem(c);
    stack[0] = (frame){.child = root, .depth = w->start_depth, .region = bk_region_take(&c->rc)};
    top = 1;
    if (!m220_region_copy(&stack[0].region, start)) {
        r = m220_nomem(c);
        goto done;
    }
    while (top > 0) {
        frame f = stack[--top];
        stack[top].region = (bk_region){0};
        if (f.child < 0) {
            r = w->leaf(c, m, &f.region, f.child);
            bk_region_recycle(&c->rc, &f.region);
            if (r != BSPKIT_OK)
                goto done;
            continue;
        }
        if (w->deep && f.depth >= w->deep_depth) {
            r = w->deep(c, &f.region, f.child, f.depth);
            bk_region_recycle(&c->rc, &f.region);
            if (r != BSPKIT_OK)
                goto done;
            continue;
        }
        uint32_t node = (uint32_t)f.child;
        if (node >= w->count) {
            bk_region_free(&f.region);
            r = bk_fail(c->err, BSPKIT_ERR_INDEX, w->lump, -1, -1, "decompile: model %td's tree reaches node %u of %zu",
                        m - c->models, node, w->count);
            goto done;
        }
        if (w->visited && w->visited[node]) { /* a shared or cyclic child in a crafted tree */
            bk_region_free(&f.region);
            continue;
        }
        if (w->visited)
            w->visited[node] = 1;
        bk_dplane pl;
        int32_t np = tree_node_plane(c, w, node);
        if (f.depth >= MAX_DEPTH)
            r = bk_fail(c->err, BSPKIT_ERR_LIMIT, w->lump,
                        bk_file_offset(c->map, w->lump, (uint64_t)node * w->record), (int64_t)node * w->record,
                        "decompile: tree deeper than %d nodes at node %u", MAX_DEPTH, node);
        else if (c->rc.work > c->work_limit)
            r = m220_limit_fail(c, w->lump, "the tree's regions need more work than its size allows");
        else
            r = node_plane(c, w->lump, node, w->record, np, &pl);
        if (r != BSPKIT_OK) {
            bk_region_free(&f.region);
            goto done;
        }
        bk_dplane neg = {dv_scale(pl.n, -1), -pl.d};
        bk_cut bc, fc;
        int32_t plane = (int32_t)c->canon[np]; /* np checked by node_plane */
        uint8_t flip = c->canon_flip[np];
        if (!bk_region_cut(&c->rc, &f.region, &pl, plane, flip, &back, &bc) ||
            !bk_region_cut_again(&c->rc, &f.region, &neg, plane, (uint8_t)!flip, &front, &fc)) {
            bk_region_free(&f.region);
            r = m220_nomem(c);
            goto done;
        }
        /* children[0] is in front of the plane, children[1] behind it. */
        bk_region parts[2];
        bk_cut cuts[2] = {fc, bc};
        parts[0] = front;
        parts[1] = back;
        front = back = (bk_region){0};
        bool whole_used = false;
        for (int side = 1; side >= 0; side--) {
            frame *g = &stack[top];
            if (cuts[side] == BK_CUT_EMPTY || (cuts[side] == BK_CUT_WHOLE && whole_used))
                continue;
            g->child = tree_child(c, w, node, side);
            g->depth = f.depth + 1;
            if (cuts[side] == BK_CUT_WHOLE) {
                g->region = f.region;
                f.region = (bk_region){0};
                whole_used = true;
            } else {
                g->region = parts[side];
                parts[side] = (bk_region){0};
            }
            top++;
        }
        /* Keep the leftover buffers for the next cut. */
        front = parts[0];
        back = parts[1];
        bk_region_recycle(&c->rc, &f.region);
    }
done:
    while (top > 0)
        bk_region_free(&stack[--top].region);
    free(stack);
    bk_region_free(&back);
    bk_region_free(&front);
    return r;
}

/* m220_walk_tree() from the box lo..hi. */
bspkit_result m220_walk_box(dctx *c, const bspkit_model *m, const tree_walk *w, int32_t root, bk_dvec lo,
                              bk_dvec hi)
{
    bk_region box = {0};
    bspkit_result r = bk_region_box(&box, lo, hi) ? m220_walk_tree(c, m, w, root, &box) : m220_nomem(c);
    bk_region_free(&box);
    return r;
}

void m220_context_copy(dctx *dst, const dctx *src, bspkit_error *err)
{
    *dst = *src;
    dst->err = err;
    dst->rc = (bk_region_ctx){.extent = src->rc.extent, .work = src->rc.work};
}

static double model_reach(bk_dvec lo, bk_dvec hi)
{
    return dv_fmax(dv_fmax(dv_fmax(fabs(lo.x), fabs(hi.x)), dv_fmax(fabs(lo.y), fabs(hi.y))), dv_fmax(fabs(lo.z), fabs(hi.z)));
}

double m220_model_extent(bk_dvec lo, bk_dvec hi)
{
    return 4 * model_reach(lo, hi) + 64;
}

/* Walks model `mi`'s hull-0 tree, splitting its bounding box, and collects
 * the pieces. Each node is visited once over all models. */
bspkit_result m220_walk_model(dctx *c, size_t mi)
{
    const bspkit_model *m = &c->models[mi];
    bk_dvec lo, hi;
    m220_model_box(c, m, &lo, &hi);
    if (!(lo.x < hi.x && lo.y < hi.y && lo.z < hi.z))
        return BSPKIT_OK; /* an empty model (or NaN bounds) has no brushes */
    double reach = model_reach(lo, hi);
    if (reach > 1e6)
        return bk_fail(c->err, BSPKIT_ERR_LIMIT, BSPKIT_Q_MODELS, -1, -1,
                       "decompile: model %zu reaches %g units from the origin", mi, reach);
    c->rc.extent = m220_model_extent(lo, hi);
    tree_walk w = {.lump = BSPKIT_Q_NODES, .count = c->nnodes, .record = c->node_record, .visited = c->visited,
                   .leaf = hull0_leaf};
    return m220_walk_box(c, m, &w, m->headnode[0], lo, hi);
}
