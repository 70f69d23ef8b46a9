/* .map decompiler: clip brushes from the smallest player hull. */
#include "map220_internal.h"

/* ---- clip brushes ------------------------------------------------------------ */
/* Brushes textured CLIP (Quake "clip") block players but are left out of
 * hull 0: they exist only in the clip hulls, where the compilers expand
 * every brush by a player box (face planes pushed out, plus the axial and
 * edge bevels: the exact Minkowski sum). A clip hull is therefore solid
 * wherever the box placed at a point would touch a brush. Shrinking it back
 * exactly: a point lies in some brush when no open leaf of the hull, grown
 * by the box, reaches it. Clip is what of that hull 0 leaves open:
 *   clip = (solid player hull ∩ open hull 0) − ∪ (open player-hull leaf ⊕ box).
 * Spaces too narrow for the player come out as clip too; compiled again
 * they change no hull, which is solid there already. */

/* The smallest player hull and its box: GoldSrc hull 3 (crouching), Quake
 * hull 1. Clip brushes block every clip hull, so a space only the crouching
 * box fits through must not come back as clip; measured in the smallest
 * hull, what is left over besides clip are spaces no player fits. */
static int player_hull(const dctx *c, bk_dvec *mins, bk_dvec *maxs)
{
    if (c->goldsrc) {
        *mins = (bk_dvec){-16, -16, -18};
        *maxs = (bk_dvec){16, 16, 18};
        return 3;
    }
    *mins = (bk_dvec){-16, -16, -24};
    *maxs = (bk_dvec){16, 16, 32};
    return 1;
}

/* max over the box mins..maxs of dot(n, q). */
static double box_support(bk_dvec n, bk_dvec mins, bk_dvec maxs)
{
    return (n.x > 0 ? maxs.x : mins.x) * n.x + (n.y > 0 ? maxs.y : mins.y) * n.y + (n.z > 0 ? maxs.z : mins.z) * n.z;
}

/* Smallest extent of region `r` across any of its face planes. */
static double region_thickness(const bk_region *r)
{
    double thin = INFINITY;
    for (size_t f = 0; f < r->nfaces; f++) {
        const bk_dplane *pl = &r->faces[f].pl;
        double deepest = 0;
        for (size_t i = 0; i < r->npoints; i++)
            deepest = fmax(deepest, pl->d - dv_dot(pl->n, r->points[i]));
        thin = fmin(thin, deepest);
    }
    return thin;
}

/* Appends plane normal n with distance max(dot(n, region point)) + box
 * support, unless an equal normal is there already; false when out of memory. */
static bool add_grown_plane(dctx *c, const bk_region *r, bk_dvec n, bk_dvec mins, bk_dvec maxs, size_t first)
{
    for (size_t i = first; i < c->ngrown; i++)
        if (dv_dot(c->grown[i].pl.n, n) > 1 - 1e-9)
            return true;
    double h = -INFINITY;
    for (size_t i = 0; i < r->npoints; i++)
        h = fmax(h, dv_dot(n, r->points[i]));
    if (!bk_grow((void **)&c->grown, &c->cap_grown, c->ngrown + 1, sizeof *c->grown))
        return false;
    c->grown[c->ngrown++] = (grown_plane){{n, h + box_support(n, mins, maxs)}, INT32_MIN, 0};
    return true;
}

/* An open player-hull leaf: its region grown by the player box, as planes
 * grown[first .. first + count) with the bounds lo..hi. */
static bspkit_result clip_open_region(dctx *c, const bk_region *r)
{
    bk_dvec mins, maxs;
    player_hull(c, &mins, &maxs);
    size_t first = c->ngrown;
    static const bk_dvec axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    bool ok = true;
    for (int a = 0; a < 3 && ok; a++)
        ok = add_grown_plane(c, r, axes[a], mins, maxs, first) &&
             add_grown_plane(c, r, dv_scale(axes[a], -1), mins, maxs, first);
    for (size_t f = 0; f < r->nfaces && ok; f++) {
        const bk_rface *face = &r->faces[f];
        ok = add_grown_plane(c, r, face->pl.n, mins, maxs, first);
        /* Edge bevels: each edge crossed with each axis, both ways. */
        for (uint32_t i = 0; i < face->count && ok; i++) {
            bk_dvec e = dv_sub(r->points[face->first + (i + 1) % face->count], r->points[face->first + i]);
            for (int a = 0; a < 3 && ok; a++) {
                bk_dvec n = dv_cross(e, axes[a]);
                if (dv_length(n) < 1e-6 * dv_length(e))
                    continue;
                n = dv_normalize(n);
                ok = add_grown_plane(c, r, n, mins, maxs, first) &&
                     add_grown_plane(c, r, dv_scale(n, -1), mins, maxs, first);
            }
        }
    }
    if (!ok || !bk_grow((void **)&c->open_leaves, &c->cap_open_leaves, c->nopen_leaves + 1, sizeof *c->open_leaves))
        return m220_nomem(c);
    grown_region *g = &c->open_leaves[c->nopen_leaves++];
    g->first = first;
    g->count = c->ngrown - first;
    m220_region_bounds(r, &g->lo, &g->hi);
    g->lo = dv_add(g->lo, mins);
    g->hi = dv_add(g->hi, maxs);
    c->rc.work += (uint64_t)g->count * r->npoints;
    return BSPKIT_OK;
}

/* Hull 0 below a solid player-hull region: the parts in open leaves are kept as
 * candidates, in c->cands_store. */
static bspkit_result clip_candidate_leaf(dctx *c, const bspkit_model *m, const bk_region *r, int32_t child)
{
    (void)m;
    uint64_t leaf = (uint64_t)(-(int64_t)child - 1);
    if (leaf >= c->nleafs)
        return BSPKIT_OK; /* hull 0 was walked already; a crafted index only loses clip */
    int32_t contents = c->leafs[leaf].contents;
    if (contents == BSPKIT_Q_CONTENTS_SOLID || contents == BSPKIT_Q_CONTENTS_SKY ||
        region_thickness(r) < CLIP_MIN_THICKNESS)
        return BSPKIT_OK;
    if (!bk_grow((void **)&c->clip_cands, &c->cap_clip_cands, c->nclip_cands + 1, sizeof *c->clip_cands))
        return m220_nomem(c);
    if (c->cand_store.npoints + r->npoints > c->store_limit) {
        c->clip_full = true; /* clip is a nicety: the candidates found so far stand */
        return BSPKIT_OK;
    }
    grown_region *g = &c->clip_cands[c->nclip_cands];
    g->first = c->cand_store.nfaces;
    g->count = r->nfaces;
    m220_region_bounds(r, &g->lo, &g->hi);
    if (!m220_region_copy(&c->cand_store, r))
        return m220_nomem(c);
    c->nclip_cands++;
    return BSPKIT_OK;
}

/* A region reaching a leaf of the clip hull. */
static bspkit_result clip_hull_leaf(dctx *c, const bspkit_model *m, const bk_region *r, int32_t contents)
{
    /* Every open leaf must be known before anything counts as clip: past
     * the work limit the walk is marked incomplete and yields no clip. */
    if (c->rc.work > c->clip_work_limit) {
        c->clip_incomplete = true;
        return BSPKIT_OK;
    }
    if (contents != BSPKIT_Q_CONTENTS_SOLID)
        return clip_open_region(c, r);
    if (c->clip_full)
        return BSPKIT_OK;
    tree_walk w = {BSPKIT_Q_NODES, c->nnodes, c->node_record, NULL, clip_candidate_leaf};
    return m220_walk_tree(c, m, &w, m->headnode[0], r);
}

static bool boxes_overlap(bk_dvec alo, bk_dvec ahi, bk_dvec blo, bk_dvec bhi)
{
    return alo.x < bhi.x && blo.x < ahi.x && alo.y < bhi.y && blo.y < ahi.y && alo.z < bhi.z && blo.z < ahi.z;
}

typedef struct clip_frame {
    bk_region region;
    size_t next; /* the first grown open leaf still to take away */
} clip_frame;

/* Candidate `ci` minus every grown open leaf: what is left becomes clip pieces. */
static bspkit_result subtract_open(dctx *c, size_t ci)
{
    static const bspkit_leaf clip = {.contents = BSPKIT_Q_CONTENTS_CLIP};
    const grown_region *cr = &c->clip_cands[ci];
    bk_region start = {.faces = c->cand_store.faces + cr->first, .nfaces = cr->count,
                       .points = c->cand_store.points};
    /* The candidate's own points: faces index into the shared store. */
    bk_region whole = {0};
    bspkit_result res = BSPKIT_OK;
    clip_frame *stack = NULL;
    size_t top = 0, cap = 0;
    bk_region inside = {0}, outside = {0}, tmp = {0};
    if (!m220_region_copy(&whole, &start) || !bk_grow((void **)&stack, &cap, 1, sizeof *stack)) {
        res = m220_nomem(c);
        goto done;
    }
    stack[top++] = (clip_frame){whole, 0};
    whole = (bk_region){0};
    while (top > 0) {
        clip_frame f = stack[--top];
        bk_dvec lo, hi;
        m220_region_bounds(&f.region, &lo, &hi);
        size_t k = f.next;
        while (k < c->nopen_leaves && !boxes_overlap(lo, hi, c->open_leaves[k].lo, c->open_leaves[k].hi))
            k++;
        if (k == c->nopen_leaves || c->rc.work > c->clip_work_limit) {
            if (k == c->nopen_leaves && region_thickness(&f.region) >= CLIP_MIN_THICKNESS) {
                c->clip_pieces++;
                res = m220_add_piece(c, &f.region, &clip);
            }
            bk_region_free(&f.region);
            if (res != BSPKIT_OK)
                goto done;
            continue;
        }
        /* Take grown leaf k away: the parts in front of each of its planes lie outside it. */
        const grown_region *g = &c->open_leaves[k];
        bk_region_free(&inside);
        inside = f.region;
        f.region = (bk_region){0};
        bool gone = false;
        for (size_t i = 0; i < g->count && !gone; i++) {
            grown_plane *gp = &c->grown[g->first + i];
            const bk_dplane *pl = &gp->pl;
            bk_dplane neg = {dv_scale(pl->n, -1), -pl->d};
            bk_cut fc, bc;
            if (gp->id == INT32_MIN)
                gp->id = m220_plane_id(c, pl, &gp->flip);
            int32_t id = gp->id;
            uint8_t flip = gp->flip;
            if (id < 0 || !bk_region_cut(&c->rc, &inside, &neg, id, (uint8_t)!flip, &outside, &fc)) {
                res = m220_nomem(c);
                goto done;
            }
            if (fc == BK_CUT_EMPTY)
                continue; /* wholly behind this plane */
            if (fc == BK_CUT_WHOLE) {
                /* wholly in front: outside the grown leaf, on to the next one */
                if (!bk_grow((void **)&stack, &cap, top + 1, sizeof *stack)) {
                    res = m220_nomem(c);
                    goto done;
                }
                stack[top++] = (clip_frame){inside, k + 1};
                inside = (bk_region){0};
                gone = true;
                continue;
            }
            if (!bk_region_cut(&c->rc, &inside, pl, id, flip, &tmp, &bc)) {
                res = m220_nomem(c);
                goto done;
            }
            if (!bk_grow((void **)&stack, &cap, top + 1, sizeof *stack)) {
                res = m220_nomem(c);
                goto done;
            }
            stack[top++] = (clip_frame){outside, k + 1};
            outside = (bk_region){0};
            if (bc == BK_CUT_EMPTY) {
                gone = true; /* nothing measurable behind */
                continue;
            }
            if (bc == BK_CUT_PART) {
                bk_region t = inside;
                inside = tmp;
                tmp = t;
            }
        }
        /* What is left of `inside` lies in the grown leaf: not clip. */
    }
done:
    while (top > 0)
        bk_region_free(&stack[--top].region);
    free(stack);
    bk_region_free(&whole);
    bk_region_free(&inside);
    bk_region_free(&outside);
    bk_region_free(&tmp);
    return res;
}

/* Clip pieces of model `mi` (the world), from its player-hull tree split from
 * its box grown by the player box. Nothing when the map has no clip hull,
 * when the hull cannot be walked, or when it needs more work than allowed. */
bspkit_result m220_walk_clip(dctx *c, size_t mi)
{
    const bspkit_model *m = &c->models[mi];
    bk_dvec lo, hi, mins, maxs;
    int hull = player_hull(c, &mins, &maxs);
    int32_t root = m->headnode[hull];
    if (!c->nclipnodes || root < 0 || (size_t)root >= c->nclipnodes)
        return BSPKIT_OK;
    m220_model_box(c, m, &lo, &hi);
    if (!(lo.x < hi.x && lo.y < hi.y && lo.z < hi.z))
        return BSPKIT_OK;
    lo = dv_sub(dv_sub(lo, maxs), (bk_dvec){1, 1, 1});
    hi = dv_add(dv_sub(hi, mins), (bk_dvec){1, 1, 1});
    c->clip_work_limit = c->rc.work + c->work_limit / 2;
    c->ngrown = c->nopen_leaves = c->nclip_cands = 0;
    c->clip_full = c->clip_incomplete = false;
    c->cand_store.nfaces = c->cand_store.npoints = 0;
    tree_walk w = {BSPKIT_Q_CLIPNODES, c->nclipnodes, c->clipnode_record, c->clip_visited, clip_hull_leaf};
    bspkit_result r = m220_walk_box(c, m, &w, root, lo, hi);
    if (r != BSPKIT_OK && r != BSPKIT_ERR_NOMEM) {
        /* A clip hull that cannot be walked (a damaged file) gives no clip; the rest of the map still comes back. */
        c->clip_incomplete = true;
        bk_error_clear(c->err);
        r = BSPKIT_OK;
    }
    for (size_t i = 0; i < c->nclip_cands && r == BSPKIT_OK && !c->clip_incomplete; i++)
        r = subtract_open(c, i);
    return r;
}
