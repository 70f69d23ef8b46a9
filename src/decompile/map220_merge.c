/* .map decompiler: merging neighbouring pieces while their union stays convex. */
#include "map220_internal.h"

#include "core/parallel.h"

/* ---- merging ------------------------------------------------------------------- */

typedef struct mentry { int32_t plane; uint32_t flip, piece; } mentry;

/* Sorts e[0..n) by (plane, flip, piece). The entries arrive in piece order,
 * so a stable counting sort on (plane, flip) gives that order in linear
 * time (qsort's comparisons were a tenth of the merge). `tmp` holds n
 * entries. False when out of memory. */
static bool sort_entries(mentry *e, mentry *tmp, size_t n)
{
    uint64_t keys = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = (uint64_t)e[i].plane * 2 + e[i].flip;
        keys = k + 1 > keys ? k + 1 : keys;
    }
    size_t *start = calloc((size_t)keys + 1, sizeof *start);
    if (!start)
        return false;
    for (size_t i = 0; i < n; i++)
        start[(size_t)e[i].plane * 2 + e[i].flip + 1]++;
    for (size_t k = 1; k <= keys; k++)
        start[k] += start[k - 1];
    for (size_t i = 0; i < n; i++)
        tmp[start[(size_t)e[i].plane * 2 + e[i].flip]++] = e[i];
    memcpy(e, tmp, n * sizeof *e);
    free(start);
    return true;
}

static int64_t piece_face_on(const dctx *c, const piece *p, int32_t plane, uint32_t flip)
{
    for (uint32_t f = 0; f < p->nfaces; f++) {
        const bk_rface *face = &c->store.faces[p->first + f];
        if (face->plane == plane && face->flip == flip)
            return p->first + f;
    }
    return -1;
}

/* Every point of `b` behind every face plane of `a` except `skip`. */
static bool behind_all(dctx *c, const piece *a, int64_t skip, const piece *b)
{
    const bk_rface *bf = &c->store.faces[b->first];
    uint32_t b_first = bf->first;
    const bk_rface *bl = &c->store.faces[b->first + b->nfaces - 1];
    uint32_t b_end = bl->first + bl->count;
    for (uint32_t f = 0; f < a->nfaces; f++) {
        if (a->first + f == skip)
            continue;
        const bk_dplane *pl = &c->store.faces[a->first + f].pl;
        /* b's box behind the plane puts every point of b behind it. */
        if (dv_box_support(pl->n, b->lo, b->hi) - pl->d > BK_REGION_ON_EPS)
            for (uint32_t i = b_first; i < b_end; i++)
                if (dv_dot(pl->n, c->store.points[i]) - pl->d > BK_REGION_ON_EPS)
                    return false;
        c->rc.work += b_end - b_first;
    }
    return true;
}

static bool same_plane(const bk_rface *a, const bk_rface *b)
{
    if (a->plane >= 0 || b->plane >= 0)
        return a->plane == b->plane && a->flip == b->flip;
    return dv_dot(a->pl.n, b->pl.n) > 1 - 1e-9 && fabs(a->pl.d - b->pl.d) < 1e-6;
}

/* m220_side_face() of stored face `index`, looked up once: merging asks for a
 * side's texture on every candidate union, and writing asks again. */
int64_t m220_stored_side_face(dctx *c, const bspkit_model *m, size_t index, bool *nomem)
{
    if (index >= c->nside_faces && !m220_cover_side_faces(c)) {
        *nomem = true;
        return -1;
    }
    if (c->side_faces[index] == -2) {
        const bk_rface *f = &c->store.faces[index];
        int64_t face = m220_side_face(c, m, f, c->store.points + f->first, nomem);
        if (*nomem)
            return -1;
        c->side_faces[index] = face;
    }
    return c->side_faces[index];
}

/* Texture of the face stored face `index` would take, or -1 (none, or out of
 * memory in `*nomem`). */
static int64_t side_texture(dctx *c, const bspkit_model *m, size_t index, bool *nomem)
{
    int64_t face = m220_stored_side_face(c, m, index, nomem);
    return face < 0 ? -1 : m220_face_miptex(c, (size_t)face);
}

/* A merged side takes one texture: pieces whose sides on a common plane
 * show different textures stay apart, or one texture would be lost. */
static bool textures_agree(dctx *c, const bspkit_model *m, const piece *a, int64_t fa, const piece *b, int64_t fb,
                           bool *nomem)
{
    if (a->contents != BSPKIT_Q_CONTENTS_SOLID)
        return true; /* liquid, sky and clip pieces show their own texture on every side */
    for (uint32_t i = 0; i < a->nfaces; i++) {
        const bk_rface *sa = &c->store.faces[a->first + i];
        if (a->first + i == fa)
            continue;
        for (uint32_t j = 0; j < b->nfaces; j++) {
            const bk_rface *sb = &c->store.faces[b->first + j];
            if (b->first + j == fb || !same_plane(sa, sb))
                continue;
            int64_t ta = side_texture(c, m, a->first + i, nomem), tb = side_texture(c, m, b->first + j, nomem);
            if (*nomem || (ta >= 0 && tb >= 0 && ta != tb))
                return false;
        }
    }
    return true;
}

/* Replaces piece `ai` by its union with piece `bi` when that union is convex
 * (see the merge pass); *merged tells whether it did. */
static bspkit_result try_merge(dctx *c, const bspkit_model *m, size_t ai, int64_t fa, size_t bi, int64_t fb,
                               bool *merged)
{
    *merged = false;
    piece *a = &c->pieces[ai], *b = &c->pieces[bi];
    if (!behind_all(c, a, fa, b) || !behind_all(c, b, fb, a))
        return BSPKIT_OK;
    bool nomem_seen = false;
    if (!textures_agree(c, m, a, fa, b, fb, &nomem_seen))
        return nomem_seen ? m220_nomem(c) : BSPKIT_OK;
    /* The union is the intersection of both pieces' planes but the shared one. */
    bk_region cur = bk_region_take(&c->rc), next = {0};
    bspkit_result r = BSPKIT_OK;
    bk_dvec lo, hi;
    m220_model_box(c, m, &lo, &hi);
    if (!bk_region_box(&cur, lo, hi)) {
        r = m220_nomem(c);
        goto done;
    }
    for (int k = 0; k < 2; k++) {
        const piece *p = k ? b : a;
        int64_t skip = k ? fb : fa;
        for (uint32_t f = 0; f < p->nfaces; f++) {
            if (p->first + f == skip)
                continue;
            const bk_rface face = c->store.faces[p->first + f];
            if (face.plane == -1)
                continue; /* the box is where the union starts from */
            bool dup = false;
            for (uint32_t g = 0; k && g < a->nfaces && !dup; g++)
                dup = a->first + g != fa && same_plane(&c->store.faces[a->first + g], &face);
            if (dup)
                continue;
            bk_cut cut;
            if (!bk_region_cut(&c->rc, &cur, &face.pl, face.plane, face.flip, &next, &cut)) {
                r = m220_nomem(c);
                goto done;
            }
            if (cut == BK_CUT_EMPTY)
                goto done;
            if (cut == BK_CUT_PART) {
                bk_region t = cur;
                cur = next;
                next = t;
            }
        }
    }
    /* The convexity test is exact; the volumes guard against rounding. */
    bk_dvec ref = c->store.points[c->store.faces[a->first].first];
    bk_region ra = {.faces = c->store.faces + a->first, .nfaces = a->nfaces, .points = c->store.points};
    bk_region rb = {.faces = c->store.faces + b->first, .nfaces = b->nfaces, .points = c->store.points};
    double va = bk_region_volume(&ra, ref), vb = bk_region_volume(&rb, ref), vu = bk_region_volume(&cur, ref);
    if (fabs(vu - va - vb) > 1e-6 * (va + vb) + 0.01)
        goto done;
    if (c->store.npoints + cur.npoints > c->store_limit)
        goto done; /* the unmerged pieces stand */
    piece merged_piece = *a;
    if (!m220_store_piece(c, &cur, &merged_piece)) {
        r = m220_nomem(c);
        goto done;
    }
    c->pieces[ai] = merged_piece;
    c->pieces[bi].alive = false;
    *merged = true;
done:
    bk_region_recycle(&c->rc, &cur);
    bk_region_recycle(&c->rc, &next);
    return r;
}

static bool boxes_touch(const piece *a, const piece *b)
{
    const double e = 0.01;
    return a->lo.x <= b->hi.x + e && b->lo.x <= a->hi.x + e && a->lo.y <= b->hi.y + e && b->lo.y <= a->hi.y + e &&
           a->lo.z <= b->hi.z + e && b->lo.z <= a->hi.z + e;
}

/* Greedy merging: pieces on opposite sides of one plane, of the same
 * contents (and texture for liquids and sky), merge when every point of
 * each lies behind every other plane of the other. Then their union is the
 * intersection of those planes: behind the shared plane it is within the
 * first piece, in front of it within the second, so it is exactly the two
 * pieces and convex. */
static bspkit_result merge_range(dctx *c, const bspkit_model *m, size_t first, size_t end)
{
    mentry *e = NULL, *tmp = NULL;
    size_t ne = 0, cap = 0, tmp_cap = 0;
    bspkit_result r = BSPKIT_OK;
    for (int pass = 0; pass < MERGE_PASSES; pass++) {
        ne = 0;
        for (size_t p = first; p < end; p++) {
            if (!c->pieces[p].alive)
                continue;
            for (uint32_t f = 0; f < c->pieces[p].nfaces; f++) {
                const bk_rface *face = &c->store.faces[c->pieces[p].first + f];
                if (face->plane < 0)
                    continue;
                if (!bk_grow((void **)&e, &cap, ne + 1, sizeof *e)) {
                    r = m220_nomem(c);
                    goto done;
                }
                e[ne++] = (mentry){face->plane, face->flip ? 1u : 0u, (uint32_t)p};
            }
        }
        if (ne == 0)
            break;
        if (!bk_grow((void **)&tmp, &tmp_cap, ne, sizeof *tmp) || !sort_entries(e, tmp, ne)) {
            r = m220_nomem(c);
            goto done;
        }
        size_t merges = 0;
        for (size_t g0 = 0; g0 < ne;) {
            size_t g1 = g0, g2;
            while (g1 < ne && e[g1].plane == e[g0].plane && e[g1].flip == 0)
                g1++;
            g2 = g1;
            while (g2 < ne && e[g2].plane == e[g0].plane)
                g2++;
            for (size_t i = g0; i < g1; i++)
                for (size_t j = g1; j < g2; j++) {
                    piece *a = &c->pieces[e[i].piece], *b = &c->pieces[e[j].piece];
                    if (!a->alive || !b->alive || a->contents != b->contents || a->tex != b->tex ||
                        !boxes_touch(a, b))
                        continue;
                    int64_t fa = piece_face_on(c, a, e[i].plane, 0), fb = piece_face_on(c, b, e[j].plane, 1);
                    if (fa < 0 || fb < 0)
                        continue;
                    if (c->rc.work > c->work_limit)
                        goto done; /* enough: what is merged so far stands */
                    bool merged;
                    if ((r = try_merge(c, m, e[i].piece, fa, e[j].piece, fb, &merged)) != BSPKIT_OK)
                        goto done;
                    merges += merged;
                }
            g0 = g2;
        }
        if (!merges)
            break;
    }
done:
    free(e);
    free(tmp);
    return r;
}

/* Pieces of different contents never merge, so the model's own pieces and
 * the clip pieces after them (from `split` on) are merged as two groups at
 * once: the clip group in a copy of the context that takes the clip store
 * as its store. Each group merges exactly as it would among all pieces, so
 * the result does not depend on the threads. */
typedef struct merge_group {
    dctx *c;
    const bspkit_model *m;
    size_t split;
    m220_group_fn done;
    void *done_ctx;
    dctx clip;
    bspkit_error clip_err;
    bspkit_result res[2];
} merge_group;

static void merge_one_group(void *ctx, size_t i)
{
    merge_group *g = ctx;
    dctx *gc = i == 0 ? g->c : &g->clip;
    size_t first = i == 0 ? 0 : g->split, end = i == 0 ? g->split : g->c->npieces;
    g->res[i] = merge_range(gc, g->m, first, end);
    if (i == 1)
        gc->clip_store = gc->store; /* where the group's pieces are read from */
    if (g->res[i] == BSPKIT_OK && g->done)
        g->res[i] = g->done(g->done_ctx, gc, g->m, i, first, end);
}

bspkit_result m220_merge_pieces(dctx *c, const bspkit_model *m, size_t split, m220_group_fn done, void *done_ctx)
{
    if (split >= c->npieces)
        return merge_range(c, m, 0, c->npieces);
    bk_dvec lo, hi;
    m220_model_box(c, m, &lo, &hi); /* cached before the copy: both groups ask for it */
    merge_group g = {.c = c, .m = m, .split = split, .done = done, .done_ctx = done_ctx};
    dctx *w = &g.clip;
    m220_context_copy(w, c, &g.clip_err);
    /* The clip group works in the clip store, as its own. */
    w->store = c->clip_store;
    c->clip_store = (bk_region){0};
    w->store_limit = c->store_limit > c->store.npoints ? c->store_limit - c->store.npoints : 0;
    uint64_t work_before = c->rc.work;
    bk_parallel_for(2, c->threads, merge_one_group, &g);
    c->clip_store = w->store;
    c->rc.work += w->rc.work - work_before;
    bk_region_ctx_free(&w->rc);
    if (g.res[0] != BSPKIT_OK)
        return g.res[0];
    if (g.res[1] != BSPKIT_OK)
        bk_error_copy(c->err, &g.clip_err);
    return g.res[1];
}
