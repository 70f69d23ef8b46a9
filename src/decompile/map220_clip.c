/* .map decompiler: clip brushes from the smallest player hull. */
#include "map220_internal.h"

#include "core/parallel.h"

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

/* Whether region `r` is thinner than `t` across one of its face planes:
 * its points reach less than `t` behind that plane. A face is done with as
 * soon as one point lies deep enough behind it. */
static bool thinner_than(const bk_region *r, double t)
{
    for (size_t f = 0; f < r->nfaces; f++) {
        const bk_dplane *pl = &r->faces[f].pl;
        size_t i = 0;
        /* A NaN depth is no depth, as for the deepest point's fmax. */
        while (i < r->npoints && !(pl->d - dv_dot(pl->n, r->points[i]) >= t))
            i++;
        if (i == r->npoints && t > 0)
            return true;
    }
    return false;
}

/* Whether the plane with normal n touching region `r` at height h, pushed
 * out by the box, bounds the grown region in a facet (not only along an
 * edge or at a corner): the points of `r` on it and the box's extent along
 * it must span two directions. A plane that is no facet takes nothing away
 * that the facets do not, and cutting by it would only split pieces. */
static bool grown_facet(const bk_region *r, bk_dvec n, double h)
{
    static const bk_dvec axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    bk_dvec dirs[3];
    int ndirs = 0;
    for (int a = 0; a < 3; a++)
        if (fabs(dv_dot(n, axes[a])) < 1e-9)
            dirs[ndirs++] = axes[a];
    if (ndirs >= 2)
        return true;
    const bk_dvec *anchor = NULL;
    for (size_t i = 0; i < r->npoints; i++) {
        if (dv_dot(n, r->points[i]) < h - BK_REGION_ON_EPS)
            continue;
        if (!anchor) {
            anchor = &r->points[i];
            continue;
        }
        bk_dvec d = dv_sub(r->points[i], *anchor);
        if (dv_length(d) < BK_REGION_ON_EPS)
            continue;
        if (ndirs == 0) {
            dirs[ndirs++] = d;
            continue;
        }
        if (dv_length(dv_cross(dirs[0], d)) > 1e-6 * dv_length(dirs[0]) * dv_length(d))
            return true;
    }
    return false;
}

/* Appends plane normal n with distance max(dot(n, region point)) + box
 * support, unless an equal normal is there already or the plane is no
 * facet of the grown region; false when out of memory. */
static bool add_grown_plane(dctx *c, const bk_region *r, bk_dvec n, bk_dvec mins, bk_dvec maxs, size_t first)
{
    for (size_t i = first; i < c->ngrown; i++)
        if (dv_dot(c->grown[i].pl.n, n) > 1 - 1e-9)
            return true;
    double h = -INFINITY;
    for (size_t i = 0; i < r->npoints; i++)
        h = dv_fmax(h, dv_dot(n, r->points[i]));
    if (!grown_facet(r, n, h))
        return true;
    if (!bk_grow((void **)&c->grown, &c->cap_grown, c->ngrown + 1, sizeof *c->grown))
        return false;
    c->grown[c->ngrown++] = (grown_plane){{n, h + dv_box_support(n, mins, maxs)}, INT32_MIN, 0};
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

/* ---- running the clip work on several threads ---------------------------------------
 * Each step is many independent jobs: walking the player hull's subtrees
 * below its first levels (step 0: open and solid leaves), walking hull 0
 * below each solid player-hull leaf (step 1: candidates), then taking the
 * grown open leaves away from each candidate (step 2: pieces). Jobs run in
 * batches on the cores, each
 * batch in a copy of the context with its own scratch, store and error; the
 * results are then taken in job order on the calling thread, so the output
 * is the same for any thread count. A batch stops once its own work passes
 * the budget: the whole walk would then have passed it too, and yields no
 * clip. */

typedef struct clip_batch {
    dctx w;               /* the batch's context: shared tables, its own scratch and results */
    int step;             /* 0: the player hull's subtrees (owns w's grown planes, open and solid leaves and
                           * its own clip_visited), 1: candidates (owns w.clip_cands, w.cand_store),
                           * 2: pieces (owns w.pieces, w.store) */
    bspkit_error err;
    bspkit_result res;    /* why the batch stopped after `done` jobs */
    size_t first, count;  /* jobs */
    size_t done;
    size_t *end;          /* per job: end of its results (candidates or pieces) in the batch */
    uint64_t *work;       /* per job: the work it took */
    uint32_t *uses;       /* step 2: grown planes each job cut by, in order of first use */
    size_t nuses, cap_uses;
    size_t *uses_end;     /* per job: end of its range in `uses` */
    uint32_t *seen;       /* step 2: per grown plane, the last job (+ 1) that used it */
    uint32_t *near;       /* steps 1-2: the grown open leaves a box meets (leaves_near) */
    size_t nnear, cap_near;
    uint64_t *listed; /* steps 1-2: a bit per grown open leaf, set while leaves_near lists it */
    const uint8_t *shared_visited; /* step 0: the first levels' marks, copied for the batch */
} clip_batch;

typedef struct clip_run {
    dctx *c;
    clip_batch *batches;
    size_t nbatches;
    bool (*job)(clip_batch *b, size_t job); /* false: stop the batch (b->res says why) */
} clip_run;

static void batch_init(clip_batch *b, dctx *c, int step, size_t first, size_t count, uint64_t budget)
{
    memset(b, 0, sizeof *b);
    m220_context_copy(&b->w, c, &b->err);
    b->step = step;
    dctx *w = &b->w;
    w->rc.work = 0; /* a batch counts its own work, against its budget */
    if (step == 0) {
        w->grown = NULL;
        w->ngrown = w->cap_grown = 0;
        w->open_leaves = NULL;
        w->nopen_leaves = w->cap_open_leaves = 0;
        w->solid_leaves = NULL;
        w->nsolid_leaves = w->cap_solid_leaves = 0;
        w->solid_store = (bk_region){0};
        b->shared_visited = c->clip_visited;
        w->clip_visited = NULL; /* a copy of the walk's marks, made on the batch's thread */
    } else if (step == 1) {
        w->clip_cands = NULL;
        w->nclip_cands = w->cap_clip_cands = 0;
        w->cand_store = (bk_region){0};
    } else {
        w->pieces = NULL;
        w->npieces = w->cap_pieces = 0;
        w->store = (bk_region){0};
        w->clip_pieces = 0;
    }
    w->work_limit = budget; /* the batch's own work may not pass it; walks stop there too */
    w->store_limit = SIZE_MAX;  /* checked when the results are taken in order */
    b->first = first;
    b->count = count;
}

static void batch_free(clip_batch *b)
{
    bk_region_ctx_free(&b->w.rc);
    if (b->step == 0) {
        free(b->w.grown);
        free(b->w.open_leaves);
        free(b->w.solid_leaves);
        bk_region_free(&b->w.solid_store);
        free(b->w.clip_visited);
    } else if (b->step == 1) {
        free(b->w.clip_cands);
        bk_region_free(&b->w.cand_store);
    } else {
        free(b->w.pieces);
        bk_region_free(&b->w.store);
    }
    free(b->end);
    free(b->work);
    free(b->uses);
    free(b->uses_end);
    free(b->seen);
    free(b->near);
    free(b->listed);
}

static void run_batch(void *ctx, size_t i)
{
    clip_run *run = ctx;
    clip_batch *b = &run->batches[i];
    b->end = malloc((b->count ? b->count : 1) * sizeof *b->end);
    b->work = malloc((b->count ? b->count : 1) * sizeof *b->work);
    if (!b->end || !b->work) {
        b->res = BSPKIT_ERR_NOMEM;
        return;
    }
    for (size_t j = 0; j < b->count; j++) {
        uint64_t before = b->w.rc.work;
        if (!run->job(b, b->first + j))
            return;
        b->work[j] = b->w.rc.work - before;
        b->done = j + 1;
        if (b->w.rc.work > b->w.work_limit) {
            b->res = BSPKIT_ERR_LIMIT;
            return;
        }
    }
}

/* Runs run->job over jobs [0, njobs) in batches on c->threads threads;
 * false when out of memory for the batches. */
static bool run_jobs(clip_run *run, int step, size_t njobs, uint64_t budget)
{
    dctx *c = run->c;
    unsigned threads = c->threads ? c->threads : bk_cpu_count();
    size_t nb = threads > 1 ? (size_t)threads * 8 : 1;
    if (nb > njobs)
        nb = njobs ? njobs : 1;
    run->batches = calloc(nb, sizeof *run->batches);
    if (!run->batches)
        return false;
    run->nbatches = nb;
    for (size_t i = 0; i < nb; i++) {
        size_t first = njobs * i / nb, last = njobs * (i + 1) / nb;
        batch_init(&run->batches[i], c, step, first, last - first, budget);
    }
    bk_parallel_for(nb, threads, run_batch, run);
    return true;
}

static void run_free(clip_run *run)
{
    for (size_t i = 0; i < run->nbatches; i++)
        batch_free(&run->batches[i]);
    free(run->batches);
    run->batches = NULL;
    run->nbatches = 0;
}

/* ---- step 1: the player hull, and hull 0 below its solid leaves -------------------- */

static bool boxes_overlap(bk_dvec alo, bk_dvec ahi, bk_dvec blo, bk_dvec bhi)
{
    return alo.x < bhi.x && blo.x < ahi.x && alo.y < bhi.y && blo.y < ahi.y && alo.z < bhi.z && blo.z < ahi.z;
}

/* Whether the box lo..hi lies within grown leaf `g` (behind every plane of it). */
static bool box_inside(const dctx *c, bk_dvec lo, bk_dvec hi, const grown_region *g)
{
    if (!boxes_overlap(lo, hi, g->lo, g->hi))
        return false;
    for (size_t i = 0; i < g->count; i++) {
        const bk_dplane *pl = &c->grown[g->first + i].pl;
        if (dv_box_support(pl->n, lo, hi) - pl->d > BK_REGION_ON_EPS)
            return false;
    }
    return true;
}

/* Cells of the leaf grid along an axis at most: about two per cube root of the leaves. */
#define GRID_SIDE 32

static int grid_cell(const dctx *c, int axis, double v)
{
    const double lo[3] = {c->grid_lo.x, c->grid_lo.y, c->grid_lo.z};
    const double size[3] = {c->grid_cell.x, c->grid_cell.y, c->grid_cell.z};
    double t = (v - lo[axis]) / size[axis];
    int i = t < 0 || !(t == t) ? 0 : t >= c->grid_dim[axis] ? c->grid_dim[axis] - 1 : (int)t;
    return i;
}

static size_t grid_index(const dctx *c, int x, int y, int z)
{
    return ((size_t)z * (size_t)c->grid_dim[1] + (size_t)y) * (size_t)c->grid_dim[0] + (size_t)x;
}

/* The cells the box lo..hi touches, as index ranges per axis. */
static void grid_range(const dctx *c, bk_dvec lo, bk_dvec hi, int from[3], int to[3])
{
    const double l[3] = {lo.x, lo.y, lo.z}, h[3] = {hi.x, hi.y, hi.z};
    for (int a = 0; a < 3; a++) {
        from[a] = grid_cell(c, a, l[a]);
        to[a] = grid_cell(c, a, h[a]);
    }
}

/* Lists every grown open leaf in the cells of a grid over them (steps 1 and
 * 2 ask which leaves a box meets). False when out of memory. */
static bool build_leaf_grid(dctx *c)
{
    bk_dvec lo = {INFINITY, INFINITY, INFINITY}, hi = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t k = 0; k < c->nopen_leaves; k++) {
        const grown_region *g = &c->open_leaves[k];
        lo = (bk_dvec){dv_fmin(lo.x, g->lo.x), dv_fmin(lo.y, g->lo.y), dv_fmin(lo.z, g->lo.z)};
        hi = (bk_dvec){dv_fmax(hi.x, g->hi.x), dv_fmax(hi.y, g->hi.y), dv_fmax(hi.z, g->hi.z)};
    }
    const double l[3] = {lo.x, lo.y, lo.z}, h[3] = {hi.x, hi.y, hi.z};
    double cell[3];
    size_t ncells = 1;
    int side = (int)(2 * cbrt((double)c->nopen_leaves));
    side = side < 1 ? 1 : side > GRID_SIDE ? GRID_SIDE : side;
    for (int a = 0; a < 3; a++) {
        double extent = h[a] - l[a];
        c->grid_dim[a] = isfinite(extent) && extent > 0 ? side : 1;
        cell[a] = isfinite(extent) && extent > 0 ? extent / side : 1;
        ncells *= (size_t)c->grid_dim[a];
    }
    c->grid_lo = isfinite(lo.x) && isfinite(lo.y) && isfinite(lo.z) ? lo : (bk_dvec){0, 0, 0};
    c->grid_cell = (bk_dvec){cell[0], cell[1], cell[2]};
    free(c->grid_start);
    free(c->leaf_grid);
    c->leaf_grid = NULL;
    c->grid_start = calloc(ncells + 1, sizeof *c->grid_start);
    if (!c->grid_start)
        return false;
    /* Two passes: count each cell's leaves, then place them in leaf order. */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t k = 0; k < c->nopen_leaves; k++) {
            int from[3], to[3];
            grid_range(c, c->open_leaves[k].lo, c->open_leaves[k].hi, from, to);
            for (int z = from[2]; z <= to[2]; z++)
                for (int y = from[1]; y <= to[1]; y++)
                    for (int x = from[0]; x <= to[0]; x++) {
                        size_t i = grid_index(c, x, y, z);
                        if (pass == 0)
                            c->grid_start[i + 1]++;
                        else
                            c->leaf_grid[c->grid_start[i]++] = (uint32_t)k;
                    }
        }
        if (pass == 0) {
            for (size_t i = 0; i < ncells; i++)
                c->grid_start[i + 1] += c->grid_start[i];
            c->leaf_grid = malloc((c->grid_start[ncells] ? c->grid_start[ncells] : 1) * sizeof *c->leaf_grid);
            if (!c->leaf_grid)
                return false;
        } else {
            /* Placing moved each start to the next cell's: shift them back. */
            for (size_t i = ncells; i > 0; i--)
                c->grid_start[i] = c->grid_start[i - 1];
            c->grid_start[0] = 0;
        }
    }
    return true;
}

/* The grown open leaves whose boxes meet lo..hi, in increasing order, into
 * b->near (b->nnear of them). A leaf spans several cells, so each is
 * listed once by its bit, and the bits give the order. False when out of
 * memory. */
static bool leaves_near(clip_batch *b, bk_dvec lo, bk_dvec hi)
{
    const dctx *c = &b->w;
    size_t words = c->nopen_leaves / 64 + 1;
    if (!b->listed && !(b->listed = calloc(words, sizeof *b->listed)))
        return false;
    b->nnear = 0;
    size_t count = 0, first = SIZE_MAX, last = 0;
    int from[3], to[3];
    grid_range(c, lo, hi, from, to);
    for (int z = from[2]; z <= to[2]; z++)
        for (int y = from[1]; y <= to[1]; y++)
            for (int x = from[0]; x <= to[0]; x++) {
                size_t i = grid_index(c, x, y, z);
                for (uint32_t e = c->grid_start[i]; e < c->grid_start[i + 1]; e++) {
                    uint32_t k = c->leaf_grid[e];
                    uint64_t bit = (uint64_t)1 << (k % 64);
                    if ((b->listed[k / 64] & bit) ||
                        !boxes_overlap(lo, hi, c->open_leaves[k].lo, c->open_leaves[k].hi))
                        continue;
                    b->listed[k / 64] |= bit;
                    count++;
                    first = k < first ? k : first;
                    last = k > last ? k : last;
                }
            }
    if (count == 0)
        return true;
    bool room = bk_grow((void **)&b->near, &b->cap_near, count, sizeof *b->near);
    /* The bits are cleared for the next call, also when there is no room. */
    for (size_t w = first / 64; w <= last / 64; w++) {
        for (uint64_t bits = b->listed[w]; room && bits; bits &= bits - 1)
            b->near[b->nnear++] = (uint32_t)(w * 64 + (unsigned)__builtin_ctzll(bits));
        b->listed[w] = 0;
    }
    return room;
}

/* A solid player-hull leaf, kept for walking hull 0 below it. */
typedef struct solid_leaf {
    size_t first, count;    /* faces in `store` */
    uint64_t stamp;         /* the hull walk's own work when it reached the leaf */
    const bk_region *store; /* set when the leaves are joined (take_subtrees) */
    bk_dvec lo, hi;         /* its bounds */
} solid_leaf;

/* Hull 0 below a solid player-hull region: the parts in open leaves are
 * kept as candidates, in the batch's cand_store. */
static bspkit_result clip_candidate_leaf(dctx *c, const bspkit_model *m, const bk_region *r, int32_t child)
{
    (void)m;
    uint64_t leaf = (uint64_t)(-(int64_t)child - 1);
    if (leaf >= c->nleafs)
        return BSPKIT_OK; /* hull 0 was walked already; a crafted index only loses clip */
    int32_t contents = c->leafs[leaf].contents;
    if (contents == BSPKIT_Q_CONTENTS_SOLID || contents == BSPKIT_Q_CONTENTS_SKY ||
        thinner_than(r, CLIP_MIN_THICKNESS))
        return BSPKIT_OK;
    if (!bk_grow((void **)&c->clip_cands, &c->cap_clip_cands, c->nclip_cands + 1, sizeof *c->clip_cands))
        return m220_nomem(c);
    grown_region *g = &c->clip_cands[c->nclip_cands];
    g->first = c->cand_store.nfaces;
    g->count = r->nfaces;
    m220_region_bounds(r, &g->lo, &g->hi);
    if (!m220_region_copy(&c->cand_store, r))
        return m220_nomem(c);
    c->nclip_cands++;
    return BSPKIT_OK;
}

/* A region reaching a leaf of the clip hull: open leaves are grown at
 * once; solid ones are kept for walking hull 0 below them (step 1's jobs). */
static bspkit_result clip_hull_leaf(dctx *c, const bspkit_model *m, const bk_region *r, int32_t contents)
{
    (void)m;
    c->clip_last_stamp = c->rc.work;
    if (contents != BSPKIT_Q_CONTENTS_SOLID)
        return clip_open_region(c, r);
    if (!bk_grow((void **)&c->solid_leaves, &c->cap_solid_leaves, c->nsolid_leaves + 1, sizeof *c->solid_leaves))
        return m220_nomem(c);
    solid_leaf *s = &c->solid_leaves[c->nsolid_leaves];
    *s = (solid_leaf){c->solid_store.nfaces, r->nfaces, c->rc.work, NULL, {0, 0, 0}, {0, 0, 0}};
    m220_region_bounds(r, &s->lo, &s->hi);
    if (!m220_region_copy(&c->solid_store, r))
        return m220_nomem(c);
    c->nsolid_leaves++;
    return BSPKIT_OK;
}

static bool candidates_job(clip_batch *b, size_t job)
{
    dctx *w = &b->w;
    const solid_leaf *s = &w->solid_leaves[job];
    /* A leaf that one grown open leaf holds has no clip below it: each of
     * its candidates would be dropped as held by that leaf (subtract_open). */
    if (!leaves_near(b, s->lo, s->hi)) {
        b->res = BSPKIT_ERR_NOMEM;
        return false;
    }
    for (size_t n = 0; n < b->nnear; n++)
        if (box_inside(w, s->lo, s->hi, &w->open_leaves[b->near[n]])) {
            b->end[job - b->first] = w->nclip_cands;
            return true;
        }
    bk_region start = {.faces = s->store->faces + s->first, .nfaces = s->count, .points = s->store->points};
    tree_walk tw = {.lump = BSPKIT_Q_NODES, .count = w->nnodes, .record = w->node_record, .leaf = clip_candidate_leaf};
    bspkit_result r = m220_walk_tree(w, w->clip_model, &tw, w->clip_model->headnode[0], &start);
    b->end[job - b->first] = w->nclip_cands;
    if (r != BSPKIT_OK) {
        b->res = r;
        return false;
    }
    return true;
}

/* ---- the player-hull walk, its subtrees on several threads -------------------------- */

/* Where the player-hull walk goes on below its first levels: a region with
 * the node (or leaf contents) it reached. */
typedef struct clip_subtree {
    size_t first, count; /* faces in c->frontier_store */
    int32_t child;
    uint32_t depth;
} clip_subtree;

/* Levels walked on one thread before the subtrees are shared out (up to 64 of them). */
#define CLIP_SPLIT_DEPTH 6

static bspkit_result keep_subtree(dctx *c, const bk_region *r, int32_t child, uint32_t depth)
{
    if (!bk_grow((void **)&c->subtrees, &c->cap_subtrees, c->nsubtrees + 1, sizeof *c->subtrees))
        return m220_nomem(c);
    c->subtrees[c->nsubtrees] = (clip_subtree){c->frontier_store.nfaces, r->nfaces, child, depth};
    if (!m220_region_copy(&c->frontier_store, r))
        return m220_nomem(c);
    c->nsubtrees++;
    return BSPKIT_OK;
}

static bspkit_result keep_leaf(dctx *c, const bspkit_model *m, const bk_region *r, int32_t contents)
{
    (void)m;
    return keep_subtree(c, r, contents, 0);
}

static bool subtree_job(clip_batch *b, size_t job)
{
    dctx *w = &b->w;
    if (!w->clip_visited) {
        /* The first levels' marks, so a crafted tree leading back up is not walked again. */
        w->clip_visited = malloc(w->nclipnodes + 1);
        if (!w->clip_visited) {
            b->res = BSPKIT_ERR_NOMEM;
            return false;
        }
        memcpy(w->clip_visited, b->shared_visited, w->nclipnodes + 1);
    }
    const clip_subtree *s = &w->subtrees[job];
    bk_region start = {.faces = w->frontier_store.faces + s->first, .nfaces = s->count,
                       .points = w->frontier_store.points};
    bspkit_result r;
    if (s->child < 0) {
        bk_region own = bk_region_take(&w->rc);
        r = m220_region_copy(&own, &start) ? clip_hull_leaf(w, w->clip_model, &own, s->child) : m220_nomem(w);
        bk_region_recycle(&w->rc, &own);
    } else {
        tree_walk tw = {.lump = BSPKIT_Q_CLIPNODES, .count = w->nclipnodes, .record = w->clipnode_record,
                        .visited = w->clip_visited, .leaf = clip_hull_leaf, .start_depth = s->depth};
        r = m220_walk_tree(w, w->clip_model, &tw, s->child, &start);
    }
    if (r != BSPKIT_OK) {
        b->res = r;
        return false;
    }
    return true;
}

/* Joins the subtrees' grown open leaves and solid leaves in subtree order,
 * as one walk would have listed them; their work is counted after the
 * first levels'. Any subtree that could not be walked leaves no clip. */
static bspkit_result take_subtrees(dctx *c, clip_run *run)
{
    uint64_t before = 0;
    for (size_t bi = 0; bi < run->nbatches; bi++) {
        clip_batch *b = &run->batches[bi];
        if (b->res == BSPKIT_ERR_NOMEM)
            return m220_nomem(c);
        if (b->res != BSPKIT_OK) {
            c->clip_incomplete = true;
            return BSPKIT_OK;
        }
        const dctx *w = &b->w;
        size_t grown0 = c->ngrown;
        if (!bk_grow((void **)&c->grown, &c->cap_grown, c->ngrown + w->ngrown, sizeof *c->grown) ||
            !bk_grow((void **)&c->open_leaves, &c->cap_open_leaves, c->nopen_leaves + w->nopen_leaves,
                     sizeof *c->open_leaves) ||
            !bk_grow((void **)&c->solid_leaves, &c->cap_solid_leaves, c->nsolid_leaves + w->nsolid_leaves,
                     sizeof *c->solid_leaves))
            return m220_nomem(c);
        if (w->ngrown > 0)
            memcpy(c->grown + c->ngrown, w->grown, w->ngrown * sizeof *c->grown);
        c->ngrown += w->ngrown;
        for (size_t i = 0; i < w->nopen_leaves; i++) {
            grown_region g = w->open_leaves[i];
            g.first += grown0;
            c->open_leaves[c->nopen_leaves++] = g;
        }
        for (size_t i = 0; i < w->nsolid_leaves; i++) {
            solid_leaf s = w->solid_leaves[i];
            s.store = &w->solid_store; /* the batch stays until the candidates are found */
            s.stamp += c->rc.work + before;
            c->solid_leaves[c->nsolid_leaves++] = s;
        }
        for (size_t j = 0; j < b->done; j++)
            before += b->work[j];
    }
    c->rc.work += before;
    c->clip_last_stamp = c->rc.work;
    if (c->rc.work > c->work_limit)
        c->clip_incomplete = true;
    return BSPKIT_OK;
}

/* Takes step 1's candidates in job order, as one walk would have found
 * them: the work is checked at every leaf of the player hull, and once the
 * candidates outgrow the store limit no later leaf's walk runs. */
static bspkit_result take_candidates(dctx *c, clip_run *run)
{
    uint64_t nested = 0; /* work of the hull-0 walks before the current leaf */
    size_t leaf = 0, points = 0;
    for (size_t bi = 0; bi < run->nbatches; bi++) {
        clip_batch *b = &run->batches[bi];
        for (size_t j = 0; j < b->count; j++, leaf++) {
            if (c->solid_leaves[leaf].stamp + nested > c->clip_work_limit) {
                c->clip_incomplete = true;
                return BSPKIT_OK;
            }
            if (c->clip_full)
                continue; /* its walk would not have run */
            if (j >= b->done) {
                /* The job that stopped the batch: out of memory, a tree that cannot be walked, or past the budget. */
                if (b->res == BSPKIT_ERR_NOMEM)
                    return m220_nomem(c);
                c->clip_incomplete = true;
                return BSPKIT_OK;
            }
            nested += b->work[j];
            for (size_t k = j ? b->end[j - 1] : 0; k < b->end[j]; k++) {
                const grown_region *g = &b->w.clip_cands[k];
                bk_region r = {.faces = b->w.cand_store.faces + g->first, .nfaces = g->count,
                               .points = b->w.cand_store.points};
                size_t np = 0;
                for (size_t f = 0; f < g->count; f++)
                    np += r.faces[f].count;
                if (points + np > c->store_limit) {
                    c->clip_full = true; /* clip is a nicety: the candidates found so far stand */
                    continue;
                }
                if (!bk_grow((void **)&c->clip_cands, &c->cap_clip_cands, c->nclip_cands + 1,
                             sizeof *c->clip_cands))
                    return m220_nomem(c);
                grown_region *d = &c->clip_cands[c->nclip_cands++];
                *d = *g;
                d->store = &b->w.cand_store; /* the batch stays until the pieces are cut */
                points += np;
            }
            if (j + 1 == b->done && b->res == BSPKIT_ERR_LIMIT) {
                c->clip_incomplete = true; /* this job passed the budget */
                return BSPKIT_OK;
            }
        }
    }
    if (c->clip_last_stamp + nested > c->clip_work_limit) {
        c->clip_incomplete = true;
        return BSPKIT_OK;
    }
    c->rc.work += nested;
    return BSPKIT_OK;
}

/* ---- step 2: candidates minus the grown open leaves -------------------------------- */

/* A cut by grown plane `gi` is labelled with it until every job is done:
 * plane ids are then given in the order one thread would have asked for
 * them (take_pieces). The flip keeps which side of the plane was kept. */
#define PENDING_BASE (INT32_MIN + 1)
static int32_t pending_label(size_t gi) { return PENDING_BASE + (int32_t)gi; }
static bool is_pending(int32_t plane) { return plane < -1; }
static size_t pending_plane(int32_t plane) { return (size_t)((int64_t)plane - PENDING_BASE); }

typedef struct clip_frame {
    bk_region region;
    size_t next; /* the first of the candidate's grown open leaves still to take away */
} clip_frame;

static bool note_use(clip_batch *b, size_t job, size_t gi)
{
    if (b->seen[gi] == job + 1)
        return true;
    b->seen[gi] = (uint32_t)(job + 1);
    if (!bk_grow((void **)&b->uses, &b->cap_uses, b->nuses + 1, sizeof *b->uses))
        return false;
    b->uses[b->nuses++] = (uint32_t)gi;
    return true;
}

/* Whether some plane of grown leaf `g` has every point of `r` on or in front of it. */
static bool outside_of(dctx *c, const bk_region *r, bk_dvec lo, bk_dvec hi, const grown_region *g)
{
    /* The region's box first: wholly in front of a plane, so is the region. */
    for (size_t i = 0; i < g->count; i++) {
        const bk_dplane *pl = &c->grown[g->first + i].pl;
        if (-dv_box_support(dv_scale(pl->n, -1), lo, hi) - pl->d >= -BK_REGION_ON_EPS)
            return true;
    }
    c->rc.work += (uint64_t)g->count * r->npoints;
    for (size_t i = 0; i < g->count; i++) {
        const bk_dplane *pl = &c->grown[g->first + i].pl;
        size_t p = 0;
        while (p < r->npoints && dv_dot(pl->n, r->points[p]) - pl->d >= -BK_REGION_ON_EPS)
            p++;
        if (p == r->npoints)
            return true;
    }
    return false;
}

/* Candidate `ci` minus every grown open leaf: what is left becomes clip
 * pieces in the batch. False when out of memory. */
static bool subtract_open(clip_batch *b, size_t ci)
{
    dctx *c = &b->w;
    static const bspkit_leaf clip = {.contents = BSPKIT_Q_CONTENTS_CLIP};
    const grown_region *cr = &c->clip_cands[ci];
    bk_region start = {.faces = cr->store->faces + cr->first, .nfaces = cr->count, .points = cr->store->points};
    bool ok = true;
    clip_frame *stack = NULL;
    size_t top = 0, cap = 0;
    bk_region whole = bk_region_take(&c->rc), inside = {0}, outside = {0}, tmp = {0};
    if (!m220_region_copy(&whole, &start) || !bk_grow((void **)&stack, &cap, 1, sizeof *stack)) {
        ok = false;
        goto done;
    }
    /* Only leaves the candidate's box meets can meet its parts. A candidate
     * whose box one grown leaf holds is no clip: most are, and cutting them
     * by the leaves before that one only made pieces to drop. */
    bk_dvec lo0, hi0;
    m220_region_bounds(&whole, &lo0, &hi0);
    if (!leaves_near(b, lo0, hi0)) {
        ok = false;
        goto done;
    }
    for (size_t n = 0; n < b->nnear; n++)
        if (box_inside(c, lo0, hi0, &c->open_leaves[b->near[n]])) {
            c->rc.work += c->open_leaves[b->near[n]].count;
            goto done;
        }
    stack[top++] = (clip_frame){whole, 0};
    whole = (bk_region){0};
    while (top > 0) {
        clip_frame f = stack[--top];
        bk_dvec lo, hi;
        m220_region_bounds(&f.region, &lo, &hi);
        size_t k = f.next; /* position in b->near */
        while (k < b->nnear && !boxes_overlap(lo, hi, c->open_leaves[b->near[k]].lo, c->open_leaves[b->near[k]].hi))
            k++;
        if (k == b->nnear || c->rc.work > c->work_limit) {
            if (k == b->nnear && !thinner_than(&f.region, CLIP_MIN_THICKNESS)) {
                c->clip_pieces++;
                ok = m220_add_piece(c, &f.region, &clip) == BSPKIT_OK;
            }
            bk_region_recycle(&c->rc, &f.region);
            if (!ok)
                goto done;
            continue;
        }
        /* A region that one plane of grown leaf k has wholly in front lies
         * outside it: on to the next leaf without cutting it into parts. */
        const grown_region *g = &c->open_leaves[b->near[k]];
        if (outside_of(c, &f.region, lo, hi, g)) {
            if (!bk_grow((void **)&stack, &cap, top + 1, sizeof *stack)) {
                bk_region_free(&f.region);
                ok = false;
                goto done;
            }
            stack[top++] = (clip_frame){f.region, k + 1};
            continue;
        }
        /* Take grown leaf k away: the parts in front of each of its planes lie outside it. */
        bk_region_recycle(&c->rc, &inside);
        inside = f.region;
        f.region = (bk_region){0};
        bool gone = false;
        for (size_t i = 0; i < g->count && !gone; i++) {
            size_t gi = g->first + i;
            const bk_dplane *pl = &c->grown[gi].pl;
            bk_dplane neg = {dv_scale(pl->n, -1), -pl->d};
            bk_cut fc, bc;
            int32_t id = pending_label(gi);
            if (dv_box_support(pl->n, lo, hi) - pl->d <= BK_REGION_ON_EPS)
                continue; /* the region's box, so the region, lies wholly behind this plane */
            if (!note_use(b, ci, gi) || !bk_region_cut(&c->rc, &inside, &neg, id, 1, &outside, &fc)) {
                ok = false;
                goto done;
            }
            if (fc == BK_CUT_EMPTY)
                continue; /* wholly behind this plane */
            if (fc == BK_CUT_WHOLE) {
                /* wholly in front: outside the grown leaf, on to the next one */
                if (!bk_grow((void **)&stack, &cap, top + 1, sizeof *stack)) {
                    ok = false;
                    goto done;
                }
                stack[top++] = (clip_frame){inside, k + 1};
                inside = (bk_region){0};
                gone = true;
                continue;
            }
            if (!bk_region_cut_again(&c->rc, &inside, pl, id, 0, &tmp, &bc) ||
                !bk_grow((void **)&stack, &cap, top + 1, sizeof *stack)) {
                ok = false;
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
    return ok;
}

static bool pieces_job(clip_batch *b, size_t job)
{
    if (!b->seen) {
        b->seen = calloc(b->w.ngrown ? b->w.ngrown : 1, sizeof *b->seen);
        b->uses_end = malloc((b->count ? b->count : 1) * sizeof *b->uses_end);
        if (!b->seen || !b->uses_end) {
            b->res = BSPKIT_ERR_NOMEM;
            return false;
        }
    }
    bool ok = subtract_open(b, job);
    b->end[job - b->first] = b->w.npieces;
    b->uses_end[job - b->first] = b->nuses;
    if (!ok)
        b->res = BSPKIT_ERR_NOMEM;
    return ok;
}

/* Takes step 2's pieces in job order: plane ids for the grown planes are
 * given in the order of their first use, and every piece's pending labels
 * become those ids. */
static bspkit_result take_pieces(dctx *c, clip_run *run)
{
    uint64_t work = 0;
    for (size_t bi = 0; bi < run->nbatches; bi++) {
        const clip_batch *b = &run->batches[bi];
        if (b->res == BSPKIT_ERR_NOMEM)
            return m220_nomem(c);
        if (b->res != BSPKIT_OK) {
            c->clip_incomplete = true; /* past the budget: no clip */
            return BSPKIT_OK;
        }
        for (size_t j = 0; j < b->count; j++)
            work += b->work[j];
    }
    if (c->rc.work + work > c->clip_work_limit) {
        c->clip_incomplete = true;
        return BSPKIT_OK;
    }
    bspkit_result res = BSPKIT_OK;
    for (size_t bi = 0; bi < run->nbatches && res == BSPKIT_OK; bi++) {
        clip_batch *b = &run->batches[bi];
        for (size_t j = 0; j < b->count; j++) {
            for (size_t u = j ? b->uses_end[j - 1] : 0; u < b->uses_end[j]; u++) {
                grown_plane *gp = &c->grown[b->uses[u]];
                if (gp->id == INT32_MIN && (gp->id = m220_plane_id(c, &gp->pl, &gp->flip)) < 0) {
                    res = m220_nomem(c);
                    goto done;
                }
            }
            for (size_t p = j ? b->end[j - 1] : 0; p < b->end[j]; p++) {
                const piece *src = &b->w.pieces[p];
                bk_rface *faces = b->w.store.faces + src->first;
                for (uint32_t f = 0; f < src->nfaces; f++)
                    if (is_pending(faces[f].plane)) {
                        const grown_plane *gp = &c->grown[pending_plane(faces[f].plane)];
                        faces[f].plane = gp->id;
                        faces[f].flip ^= gp->flip;
                    }
                /* Into the clip store (the pieces' faces index the batch's store). */
                bk_region view = {.faces = faces, .nfaces = src->nfaces, .points = b->w.store.points};
                size_t np = 0;
                for (uint32_t f = 0; f < src->nfaces; f++)
                    np += faces[f].count;
                if (c->store.npoints + c->clip_store.npoints + np > c->store_limit) {
                    res = m220_limit_fail(c, BSPKIT_Q_NODES, "the tree's regions outgrow the size of the map");
                    goto done;
                }
                if (!bk_grow((void **)&c->pieces, &c->cap_pieces, c->npieces + 1, sizeof *c->pieces)) {
                    res = m220_nomem(c);
                    goto done;
                }
                piece *dst = &c->pieces[c->npieces];
                *dst = *src;
                dst->first = (uint32_t)c->clip_store.nfaces;
                dst->in_clip_store = true;
                if (!m220_region_copy(&c->clip_store, &view)) {
                    res = m220_nomem(c);
                    goto done;
                }
                c->npieces++;
                c->clip_pieces++;
            }
        }
    }
    c->rc.work += work;
done:
    return res;
}

/* The clip steps of model `mi` (the world), which do not need its pieces:
 * the player-hull tree split from the model's box grown by the player box
 * (step 0), the candidates below its solid leaves (step 1), and the
 * subtraction jobs (step 2), whose batches are left in `run` for take_pieces. Nothing when the
 * map has no clip hull, when the hull cannot be walked, or when it needs
 * more work than allowed. */
static bspkit_result clip_steps(dctx *c, size_t mi, clip_run *run)
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
    c->ngrown = c->nopen_leaves = c->nclip_cands = c->nsolid_leaves = 0;
    c->clip_last_stamp = c->rc.work;
    c->clip_full = c->clip_incomplete = false;
    c->nsubtrees = 0;
    c->frontier_store.nfaces = c->frontier_store.npoints = 0;
    c->clip_model = m;
    /* The first levels on this thread, the subtrees below them in batches. */
    tree_walk w = {.lump = BSPKIT_Q_CLIPNODES, .count = c->nclipnodes, .record = c->clipnode_record,
                   .visited = c->clip_visited, .leaf = keep_leaf, .deep = keep_subtree,
                   .deep_depth = CLIP_SPLIT_DEPTH};
    bspkit_result r = m220_walk_box(c, m, &w, root, lo, hi);
    uint64_t budget = c->work_limit / 2;
    /* Each step's batches hold the regions the next step reads: they stay until it is done. */
    clip_run subtrees = {.c = c, .job = subtree_job}, candidates = {.c = c, .job = candidates_job};
    if (r == BSPKIT_OK) {
        if (!run_jobs(&subtrees, 0, c->nsubtrees, budget))
            r = m220_nomem(c);
        else
            r = take_subtrees(c, &subtrees);
    }
    if (r != BSPKIT_OK && r != BSPKIT_ERR_NOMEM) {
        /* A clip hull that cannot be walked (a damaged file) gives no clip; the rest of the map still comes back. */
        c->clip_incomplete = true;
        bk_error_clear(c->err);
        r = BSPKIT_OK;
    }
    if (r == BSPKIT_OK && !c->clip_incomplete) {
        if (!build_leaf_grid(c) || !run_jobs(&candidates, 1, c->nsolid_leaves, budget))
            r = m220_nomem(c);
        else
            r = take_candidates(c, &candidates);
    }
    run_free(&subtrees);
    if (r == BSPKIT_OK && !c->clip_incomplete && c->nclip_cands > 0) {
        *run = (clip_run){.c = c, .job = pieces_job};
        if (!run_jobs(run, 2, c->nclip_cands, budget))
            r = m220_nomem(c);
    }
    run_free(&candidates);
    return r;
}

/* The clip's context: a copy of the model's with its own scratch, work and error. */
typedef struct model_and_clip {
    dctx *c;
    size_t mi;
    dctx w;
    bspkit_error err;
    clip_run run;
    bspkit_result res[2];
} model_and_clip;

static void model_or_clip(void *ctx, size_t i)
{
    model_and_clip *j = ctx;
    j->res[i] = i == 0 ? m220_walk_model(j->c, j->mi) : clip_steps(&j->w, j->mi, &j->run);
}

/* The clip's own state, back from its copy of the context. */
static void take_clip_state(dctx *c, const dctx *w)
{
    c->subtrees = w->subtrees;
    c->nsubtrees = w->nsubtrees;
    c->cap_subtrees = w->cap_subtrees;
    c->frontier_store = w->frontier_store;
    c->grid_start = w->grid_start;
    c->leaf_grid = w->leaf_grid;
    c->grown = w->grown;
    c->ngrown = w->ngrown;
    c->cap_grown = w->cap_grown;
    c->open_leaves = w->open_leaves;
    c->nopen_leaves = w->nopen_leaves;
    c->cap_open_leaves = w->cap_open_leaves;
    c->clip_cands = w->clip_cands;
    c->nclip_cands = w->nclip_cands;
    c->cap_clip_cands = w->cap_clip_cands;
    c->solid_leaves = w->solid_leaves;
    c->nsolid_leaves = w->nsolid_leaves;
    c->cap_solid_leaves = w->cap_solid_leaves;
    c->clip_full = w->clip_full;
    c->clip_incomplete = w->clip_incomplete;
    c->clip_last_stamp = w->clip_last_stamp;
    c->clip_model = w->clip_model;
}

bspkit_result m220_walk_model_and_clip(dctx *c, size_t mi, size_t *split)
{
    bk_dvec lo, hi;
    m220_model_box(c, &c->models[mi], &lo, &hi); /* cached before the copy: both ask for it */
    model_and_clip j = {.c = c, .mi = mi};
    m220_context_copy(&j.w, c, &j.err);
    j.w.rc.extent = m220_model_extent(lo, hi);
    uint64_t start = c->rc.work;
    bk_parallel_for(2, c->threads, model_or_clip, &j);
    take_clip_state(c, &j.w);
    bk_region_ctx_free(&j.w.rc);
    *split = c->npieces;
    bspkit_result r = j.res[0];
    if (r == BSPKIT_OK && j.res[1] != BSPKIT_OK) {
        bk_error_copy(c->err, &j.err);
        r = j.res[1];
    }
    if (r == BSPKIT_OK) {
        /* As if the clip had started once the model's walk was done: its work after the model's. */
        uint64_t model_work = c->rc.work - start;
        c->rc.work += j.w.rc.work - start;
        c->clip_work_limit = j.w.clip_work_limit + model_work;
        if (j.run.nbatches > 0)
            r = take_pieces(c, &j.run);
    }
    run_free(&j.run);
    return r;
}
