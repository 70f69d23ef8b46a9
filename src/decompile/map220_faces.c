/* .map decompiler: texture names and the map's faces. */
#include "map220_internal.h"

#include "core/parallel.h"

bspkit_result m220_nomem(dctx *c)
{
    return bk_fail(c->err, BSPKIT_ERR_NOMEM, -1, -1, -1, "decompile: out of memory");
}

/* ---- names ---------------------------------------------------------------- */

const char *m220_miptex_name(const dctx *c, int64_t tex)
{
    if (tex < 0 || (uint64_t)tex >= c->nmiptex || c->miptex[tex].lump_offset < 0)
        return NULL;
    const char *name = c->miptex[tex].name;
    if (!name[0])
        return NULL;
    for (const char *s = name; *s; s++)
        if ((unsigned char)*s <= ' ' || *s == '"' || *s == '(' || *s == ')' || *s == '[' || *s == ']')
            return NULL; /* would not read back as one token */
    return name;
}

int64_t m220_face_miptex(const dctx *c, size_t face)
{
    int32_t ti = c->faces[face].texinfo;
    if (ti < 0 || (size_t)ti >= c->ntexinfo)
        return -1;
    return c->texinfo[ti].texture;
}

bool m220_is_liquid(int32_t contents)
{
    return (contents <= BSPKIT_Q_CONTENTS_WATER && contents >= BSPKIT_Q_CONTENTS_LAVA) ||
           (contents <= BSPKIT_Q_CONTENTS_CURRENT_0 && contents >= BSPKIT_Q_CONTENTS_CURRENT_DOWN);
}

bool m220_wanted(int32_t contents)
{
    return contents == BSPKIT_Q_CONTENTS_SOLID || contents == BSPKIT_Q_CONTENTS_SKY || m220_is_liquid(contents);
}

/* Whether a texture name gives `contents` when compiled (so a leaf's own faces can name its texture). */
bool m220_name_fits(const char *name, int32_t contents)
{
    if (!name)
        return false;
    if (contents == BSPKIT_Q_CONTENTS_SKY)
        return bk_ascii_ncasecmp(name, "sky", 3) == 0;
    return name[0] == '*' || name[0] == '!';
}

const char *m220_default_name(const dctx *c, int32_t contents)
{
    switch (contents) {
    case BSPKIT_Q_CONTENTS_SOLID: return c->goldsrc ? "NULL" : "skip";
    case BSPKIT_Q_CONTENTS_SKY: return "sky";
    case BSPKIT_Q_CONTENTS_CLIP: return c->goldsrc ? "CLIP" : "clip";
    case BSPKIT_Q_CONTENTS_SLIME: return c->goldsrc ? "!slime" : "*slime";
    case BSPKIT_Q_CONTENTS_LAVA: return c->goldsrc ? "!lava" : "*lava";
    default: return c->goldsrc ? "!water" : "*water";
    }
}

/* ---- the map's faces ---------------------------------------------------- */

/* Bounds of points p[0..n) (inverted, +inf..-inf, when n is 0). */
void m220_points_bounds(const bk_dvec *p, size_t n, bk_dvec *lo, bk_dvec *hi)
{
    *lo = (bk_dvec){INFINITY, INFINITY, INFINITY};
    *hi = (bk_dvec){-INFINITY, -INFINITY, -INFINITY};
    /* Comparisons rather than fmin/fmax (library calls here): a NaN point
     * is skipped by both. */
    bk_dvec l = *lo, h = *hi;
    for (size_t i = 0; i < n; i++) {
        const bk_dvec q = p[i];
        l = (bk_dvec){q.x < l.x ? q.x : l.x, q.y < l.y ? q.y : l.y, q.z < l.z ? q.z : l.z};
        h = (bk_dvec){q.x > h.x ? q.x : h.x, q.y > h.y ? q.y : h.y, q.z > h.z ? q.z : h.z};
    }
    *lo = l;
    *hi = h;
}

/* At least three edges, all inside the surfedge lump. */
static bool edges_in_range(const bspkit_face *face, size_t nsurfedges)
{
    return face->first_edge >= 0 && face->num_edges >= 3 && (uint64_t)face->first_edge <= nsurfedges &&
           (uint64_t)face->num_edges <= nsurfedges - (uint64_t)face->first_edge;
}

/* A key whose unsigned order is the order of finite doubles, -0 as +0. */
static uint64_t dist_key(double d)
{
    uint64_t bits;
    d = d == 0 ? 0.0 : d;
    memcpy(&bits, &d, sizeof bits);
    return bits >> 63 ? ~bits : bits | (uint64_t)1 << 63;
}

/* Sorts r[0..n) by distance, equal distances in the order they come (by
 * plane index): a stable radix sort on dist_key, eleven bits a pass, passes
 * where every key has the same digit skipped. False when out of memory. */
static bool sort_by_dist(plane_ref *r, size_t n)
{
    enum { BITS = 11, BUCKETS = 1 << BITS };
    plane_ref *tmp = malloc((n ? n : 1) * sizeof *tmp);
    uint64_t *keys = malloc((n ? n : 1) * sizeof *keys), *tkeys = malloc((n ? n : 1) * sizeof *tkeys);
    size_t *count = malloc(BUCKETS * sizeof *count);
    bool ok = tmp && keys && tkeys && count;
    for (size_t i = 0; ok && i < n; i++)
        keys[i] = dist_key(r[i].d);
    for (unsigned shift = 0; ok && shift < 64; shift += BITS) {
        memset(count, 0, BUCKETS * sizeof *count);
        for (size_t i = 0; i < n; i++)
            count[(keys[i] >> shift) & (BUCKETS - 1)]++;
        if (n == 0 || count[(keys[0] >> shift) & (BUCKETS - 1)] == n)
            continue;
        for (size_t b = 0, at = 0; b < BUCKETS; b++) {
            size_t k = count[b];
            count[b] = at;
            at += k;
        }
        for (size_t i = 0; i < n; i++) {
            size_t to = count[(keys[i] >> shift) & (BUCKETS - 1)]++;
            tmp[to] = r[i];
            tkeys[to] = keys[i];
        }
        memcpy(r, tmp, n * sizeof *r);
        memcpy(keys, tkeys, n * sizeof *keys);
    }
    free(tmp);
    free(keys);
    free(tkeys);
    free(count);
    return ok;
}

static bspkit_result load_planes_by_dist(dctx *c)
{
    c->planes_by_dist = malloc((c->nplanes ? c->nplanes : 1) * sizeof *c->planes_by_dist);
    if (!c->planes_by_dist)
        return m220_nomem(c);
    size_t n = 0;
    for (size_t p = 0; p < c->nplanes; p++)
        if (isfinite(c->planes[p].dist))
            c->planes_by_dist[n++] = (plane_ref){c->planes[p].dist, (uint32_t)p};
    c->nplanes_by_dist = n;
    return sort_by_dist(c->planes_by_dist, n) ? BSPKIT_OK : m220_nomem(c);
}

/* The lowest index of a map plane equal to `pl` (unit normal), with *flip
 * set when its normal points the other way; -1 when the map has none. */
static int32_t match_plane(const dctx *c, const bk_dplane *pl, uint8_t *flip)
{
    int32_t best = -1;
    for (int k = 0; k < 2; k++) {
        double sign = k ? -1.0 : 1.0, d = sign * pl->d;
        size_t lo = 0, hi = c->nplanes_by_dist;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (c->planes_by_dist[mid].d < d - SAME_PLANE_DIST)
                lo = mid + 1;
            else
                hi = mid;
        }
        /* Real maps have at most a few dozen planes this close in distance;
         * a crafted file with thousands gets no more looked at. */
        size_t end = lo + MATCH_WINDOW < c->nplanes_by_dist ? lo + MATCH_WINDOW : c->nplanes_by_dist;
        for (size_t i = lo; i < end && c->planes_by_dist[i].d <= d + SAME_PLANE_DIST; i++) {
            uint32_t q = c->planes_by_dist[i].plane;
            const bspkit_plane *mp = &c->planes[q];
            bk_dvec n = {mp->normal.x, mp->normal.y, mp->normal.z};
            if (sign * dv_dot(n, pl->n) > 1 - SAME_PLANE_NORMAL && (best < 0 || q < (uint32_t)best)) {
                best = (int32_t)q;
                *flip = (uint8_t)k;
            }
        }
    }
    return best;
}

/* The canonical index of a map plane equal to `pl` (see load_canonical_planes), or -1. */
static int32_t find_map_plane(const dctx *c, const bk_dplane *pl, uint8_t *flip)
{
    int32_t q = match_plane(c, pl, flip);
    if (q < 0)
        return -1;
    *flip ^= c->canon_flip[q];
    return (int32_t)c->canon[q];
}

/* Hash of a plane's normal and distance, rounded so that equal cuts meet. */
static uint64_t plane_hash(const bk_dplane *pl)
{
    int64_t q[4] = {llround(pl->n.x * 1e6), llround(pl->n.y * 1e6), llround(pl->n.z * 1e6), llround(pl->d * 1e3)};
    uint64_t h = 1469598103934665603u;
    for (int i = 0; i < 4; i++)
        h = (h ^ (uint64_t)q[i]) * 1099511628211u;
    return h;
}

/* The index regions use for plane `pl` (unit normal), with *flip set when
 * it points against the indexed plane: a map plane's canonical index when
 * the map has the plane, else an index past the map's planes kept in
 * c->extra_planes for every equal plane (its normal's first nonzero
 * component positive). -1 when out of memory. */
int32_t m220_plane_id(dctx *c, const bk_dplane *pl, uint8_t *flip)
{
    int32_t p = find_map_plane(c, pl, flip);
    if (p >= 0)
        return p;
    bk_dplane key = *pl;
    *flip = 0;
    double first = fabs(key.n.x) > 1e-9 ? key.n.x : fabs(key.n.y) > 1e-9 ? key.n.y : key.n.z;
    if (first < 0) {
        key = (bk_dplane){dv_scale(key.n, -1), -key.d};
        *flip = 1;
    }
    if (c->nextra * 2 >= c->extra_slots) { /* grow and rehash the open-addressing table */
        size_t slots = c->extra_slots ? 2 * c->extra_slots : 1024;
        int32_t *t = malloc(slots * sizeof *t);
        if (!t)
            return -1;
        for (size_t i = 0; i < slots; i++)
            t[i] = -1;
        for (size_t e = 0; e < c->nextra; e++) {
            size_t h = (size_t)plane_hash(&c->extra_planes[e]) & (slots - 1);
            while (t[h] >= 0)
                h = (h + 1) & (slots - 1);
            t[h] = (int32_t)e;
        }
        free(c->extra_table);
        c->extra_table = t;
        c->extra_slots = slots;
    }
    size_t h = (size_t)plane_hash(&key) & (c->extra_slots - 1);
    for (; c->extra_table[h] >= 0; h = (h + 1) & (c->extra_slots - 1)) {
        const bk_dplane *e = &c->extra_planes[c->extra_table[h]];
        if (dv_dot(e->n, key.n) > 1 - SAME_PLANE_NORMAL && fabs(e->d - key.d) < SAME_PLANE_DIST)
            return (int32_t)(c->nplanes + (size_t)c->extra_table[h]);
    }
    if (c->nplanes + c->nextra >= INT32_MAX ||
        !bk_grow((void **)&c->extra_planes, &c->cap_extra, c->nextra + 1, sizeof *c->extra_planes))
        return -1;
    c->extra_planes[c->nextra] = key;
    c->extra_table[h] = (int32_t)c->nextra;
    return (int32_t)(c->nplanes + c->nextra++);
}

/* Planes matched per job, and below how many planes one thread matches them all. */
#define MATCH_CHUNK 1024

typedef struct match_job {
    const dctx *c;
    int32_t *match; /* per plane: the lowest equal plane, or -1 */
    uint8_t *flip;  /* per plane: 1 when that plane's normal points the other way */
} match_job;

static void match_chunk(void *ctx, size_t k)
{
    match_job *j = ctx;
    size_t end = (k + 1) * MATCH_CHUNK < j->c->nplanes ? (k + 1) * MATCH_CHUNK : j->c->nplanes;
    for (size_t p = k * MATCH_CHUNK; p < end; p++) {
        const bspkit_plane *mp = &j->c->planes[p];
        bk_dplane pl = {{mp->normal.x, mp->normal.y, mp->normal.z}, mp->dist};
        j->flip[p] = 0;
        j->match[p] = match_plane(j->c, &pl, &j->flip[p]);
    }
}

/* Maps store one plane under several indices: GoldSrc keeps each plane
 * beside its negation, faces and nodes may name either, and compilers
 * leave duplicates. Regions and faces use one index per geometric plane
 * (the lowest), so a side finds the faces on it whichever index they name
 * and pieces on both sides of a plane meet for merging. */
bspkit_result m220_load_canonical_planes(dctx *c)
{
    bspkit_result r = load_planes_by_dist(c);
    if (r != BSPKIT_OK)
        return r;
    size_t n = c->nplanes ? c->nplanes : 1;
    c->canon = malloc(n * sizeof *c->canon);
    c->canon_flip = calloc(n, 1);
    match_job j = {c, malloc(n * sizeof *j.match), malloc(n)};
    if (!c->canon || !c->canon_flip || !j.match || !j.flip) {
        free(j.match);
        free(j.flip);
        return m220_nomem(c);
    }
    /* Each plane's match reads only the sorted planes, so they are found on
     * every thread; a match's own canonical index comes before it. */
    size_t nchunks = (c->nplanes + MATCH_CHUNK - 1) / MATCH_CHUNK;
    bk_parallel_for(nchunks, nchunks > 1 ? c->threads : 1, match_chunk, &j);
    for (size_t p = 0; p < c->nplanes; p++) {
        int32_t q = j.match[p];
        c->canon[p] = (uint32_t)p;
        if (q >= 0 && (size_t)q < p) {
            c->canon[p] = c->canon[q];
            c->canon_flip[p] = j.flip[p] ^ c->canon_flip[q];
        }
    }
    free(j.match);
    free(j.flip);
    return BSPKIT_OK;
}

bspkit_result m220_load_faces(dctx *c)
{
    bspkit_result r;
    const bspkit_vec3 *verts;
    const bspkit_edge *edges;
    const int32_t *surfedges;
    size_t nverts, nedges, nsurfedges;
    if ((r = bspkit_get_vertexes(c->map, &verts, &nverts, c->err)) != BSPKIT_OK ||
        (r = bspkit_get_edges(c->map, &edges, &nedges, c->err)) != BSPKIT_OK ||
        (r = bspkit_get_surfedges(c->map, &surfedges, &nsurfedges, c->err)) != BSPKIT_OK)
        return r;
    /* Faces may share or overlap surfedge ranges (a crafted file can point
     * every face at the whole lump), so the points are counted first and
     * bounded by the lump, as the export bounds its output. */
    uint64_t total_points = 0;
    for (size_t f = 0; f < c->nfaces; f++) {
        const bspkit_face *face = &c->faces[f];
        if (edges_in_range(face, nsurfedges))
            total_points += (uint64_t)face->num_edges;
    }
    if (total_points > bk_face_edge_limit(nsurfedges))
        return bk_fail(c->err, BSPKIT_ERR_LIMIT, BSPKIT_Q_FACES, -1, -1,
                       "decompile: faces use %" PRIu64 " edges in all, more than %u x %zu surfedges + %u",
                       total_points, BK_FACE_EDGE_FACTOR, nsurfedges, BK_FACE_EDGE_SLACK);
    c->mfaces = calloc(c->nfaces ? c->nfaces : 1, sizeof *c->mfaces);
    c->fpoints = malloc((total_points ? (size_t)total_points : 1) * sizeof *c->fpoints);
    c->plane_start = calloc(c->nplanes + 2, sizeof *c->plane_start);
    c->face_order = malloc((c->nfaces ? c->nfaces : 1) * sizeof *c->face_order);
    if (!c->mfaces || !c->fpoints || !c->plane_start || !c->face_order)
        return m220_nomem(c);
    size_t used = 0;
    for (size_t f = 0; f < c->nfaces; f++) {
        const bspkit_face *face = &c->faces[f];
        mface *m = &c->mfaces[f];
        m->first = (uint32_t)used;
        if (!edges_in_range(face, nsurfedges) || face->plane >= c->nplanes)
            continue;
        size_t n = 0;
        for (int32_t e = 0; e < face->num_edges; e++) {
            int64_t v = bk_surfedge_vertex(surfedges[face->first_edge + e], edges, nedges, nverts);
            if (v < 0) {
                n = 0;
                break;
            }
            bk_dvec p = {verts[v].x, verts[v].y, verts[v].z};
            c->fpoints[used + n++] = p;
        }
        m220_points_bounds(c->fpoints + used, n, &m->lo, &m->hi);
        const bspkit_plane *pl = &c->planes[face->plane];
        double sign = face->side ? -1.0 : 1.0;
        m->n = (bk_dvec){sign * pl->normal.x, sign * pl->normal.y, sign * pl->normal.z};
        m->d = sign * pl->dist;
        m->count = (uint32_t)n;
        m->plane = c->canon[face->plane];
        m->side = (uint8_t)((face->side != 0) ^ c->canon_flip[face->plane]);
        used += n;
        if (n)
            c->plane_start[m->plane + 2]++;
    }
    /* Counting sort of the usable faces by plane. */
    for (size_t p = 0; p < c->nplanes; p++)
        c->plane_start[p + 2] += c->plane_start[p + 1];
    for (size_t f = 0; f < c->nfaces; f++)
        if (c->mfaces[f].count)
            c->face_order[c->plane_start[c->mfaces[f].plane + 1]++] = (uint32_t)f;
    return BSPKIT_OK;
}

/* Area of face polygon `fp` inside the convex side polygon `sp` (both on the same plane, normal n). */
static double overlap_area(dctx *c, const bk_dvec *fp, size_t fn, const bk_dvec *sp, size_t sn, bk_dvec n)
{
    size_t need = fn + sn + 1;
    if (need > c->rc.cap) /* side polygons are at most the clip buffers' size, faces may be larger */
        return -1;
    bk_dvec *cur = c->rc.a, *next = c->rc.b;
    memcpy(cur, fp, fn * sizeof *cur);
    size_t m = fn;
    for (size_t i = 0; i < sn && m >= 3; i++) {
        bk_dvec a = sp[i], b = sp[(i + 1) % sn];
        bk_dplane edge;
        edge.n = dv_normalize(dv_cross(dv_sub(b, a), n));
        edge.d = dv_dot(edge.n, a);
        if (edge.n.x == 0 && edge.n.y == 0 && edge.n.z == 0)
            continue;
        m = bk_poly_clip_back(cur, m, &edge, BK_REGION_ON_EPS, next, c->rc.cap);
        bk_dvec *t = cur;
        cur = next;
        next = t;
    }
    return m >= 3 ? bk_poly_area(cur, m) : 0;
}

/* Overlap of face `fi` with side `f` (polygon `pts`, bounds lo..hi) when the
 * face lies within the side's bounds; 0 when it does not, -1 when out of memory. */
static double face_overlap(dctx *c, uint32_t fi, const bk_rface *f, const bk_dvec *pts, bk_dvec lo, bk_dvec hi)
{
    const double e = 0.01;
    const mface *mf = &c->mfaces[fi];
    if (mf->lo.x > hi.x + e || mf->hi.x < lo.x - e || mf->lo.y > hi.y + e || mf->hi.y < lo.y - e ||
        mf->lo.z > hi.z + e || mf->hi.z < lo.z - e)
        return 0;
    if (!bk_region_ctx_reserve(&c->rc, mf->count + f->count + 1))
        return -1;
    c->rc.work += (uint64_t)mf->count * f->count;
    return overlap_area(c, c->fpoints + mf->first, mf->count, pts, f->count, f->pl.n);
}

/* Adds face `fi` to the side's candidates when it overlaps the side; false when out of memory. */
static bool add_candidate(dctx *c, uint32_t fi, const bk_rface *f, const bk_dvec *pts, bk_dvec lo, bk_dvec hi)
{
    double area = face_overlap(c, fi, f, pts, lo, hi);
    if (area < 0)
        return false;
    if (area <= BK_REGION_AREA_EPS)
        return true;
    if (!bk_grow((void **)&c->cands, &c->cap_cands, c->ncands + 1, sizeof *c->cands))
        return false;
    c->cands[c->ncands++] = (cand){fi, area};
    return true;
}

/* Collects in c->cands the faces of model `m` lying on side `f` of a region
 * (polygon `pts`) and facing out of it, each with the area it covers there.
 * Sides cut by the map's planes look among that plane's faces; sides of the
 * model's bounding box have no plane index and look for faces on a coplanar
 * plane (a model whose faces lie on its bounds, like a lone crate, has them
 * only there). The decompiler's own cuts take a map plane's index where the
 * map has the plane (plane_id), so faces are found on them too; on other
 * cuts no face lies. False when out of memory. */
static const bk_dvec AXES[6] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};

/* Which of AXES `n` is, or -1. */
static int axis_of(bk_dvec n)
{
    for (int k = 0; k < 6; k++)
        if (n.x == AXES[k].x && n.y == AXES[k].y && n.z == AXES[k].z)
            return k;
    return -1;
}

/* Whether face fi may lie on a side with normal `n` (the distance is
 * checked by the caller). */
static bool faces_along(const mface *mf, bk_dvec n)
{
    return mf->count >= 3 && !(dv_dot(mf->n, n) < 0.9999); /* count >= 3: its plane is in range */
}

/* c->axis_faces: per axis the faces faces_along() accepts, so that the sides
 * of bounding boxes (axis-aligned) do not look at every face. */
static bool build_axis_faces(dctx *c)
{
    for (int k = 0; k < 6; k++) {
        c->axis_faces[k] = malloc((c->nfaces ? c->nfaces : 1) * sizeof *c->axis_faces[k]);
        if (!c->axis_faces[k])
            return false;
        c->naxis_faces[k] = 0;
        for (size_t fi = 0; fi < c->nfaces; fi++)
            if (faces_along(&c->mfaces[fi], AXES[k]))
                c->axis_faces[k][c->naxis_faces[k]++] = (uint32_t)fi;
    }
    c->axis_faces_built = true;
    return true;
}

bool m220_side_candidates(dctx *c, const bspkit_model *m, const bk_rface *f, const bk_dvec *pts)
{
    c->ncands = 0;
    if (f->plane >= 0 && (size_t)f->plane >= c->nplanes)
        return true; /* the decompiler's own cut, on no plane of the map (plane_id) */
    bk_dvec lo, hi;
    m220_points_bounds(pts, f->count, &lo, &hi);
    uint64_t first = (uint64_t)(int64_t)m->first_face, last = first + (uint64_t)(int64_t)m->num_faces;
    if (last > c->nfaces)
        last = c->nfaces;
    if (f->plane >= 0 && (size_t)f->plane < c->nplanes) {
        for (uint32_t k = c->plane_start[f->plane]; k < c->plane_start[f->plane + 1]; k++) {
            uint32_t fi = c->face_order[k];
            if (fi < first || fi >= last || c->mfaces[fi].side != (f->flip != 0))
                continue;
            if (!add_candidate(c, fi, f, pts, lo, hi))
                return false;
        }
        return true;
    }
    c->rc.work += last > first ? last - first : 0;
    int axis = axis_of(f->pl.n);
    if (axis >= 0) {
        if (!c->axis_faces_built && !build_axis_faces(c))
            return false;
        const uint32_t *list = c->axis_faces[axis];
        for (size_t k = 0; k < c->naxis_faces[axis]; k++) {
            uint32_t fi = list[k];
            if (fi < first || fi >= last || fabs(c->mfaces[fi].d - f->pl.d) > 0.01)
                continue;
            if (!add_candidate(c, fi, f, pts, lo, hi))
                return false;
        }
        return true;
    }
    for (uint64_t fi = first; fi < last; fi++) {
        const mface *mf = &c->mfaces[fi];
        if (!faces_along(mf, f->pl.n) || fabs(mf->d - f->pl.d) > 0.01)
            continue;
        if (!add_candidate(c, (uint32_t)fi, f, pts, lo, hi))
            return false;
    }
    return true;
}

/* Index in c->cands of the candidate covering the most area, or -1 when there is none. */
int64_t m220_largest_candidate(const dctx *c)
{
    int64_t best = -1;
    for (size_t i = 0; i < c->ncands; i++)
        if (best < 0 || c->cands[i].area > c->cands[best].area)
            best = (int64_t)i;
    return best;
}

/* The face of model `m` on side `f` that covers most of it (see
 * side_candidates), or -1. */
int64_t m220_side_face(dctx *c, const bspkit_model *m, const bk_rface *f, const bk_dvec *pts, bool *nomem_out)
{
    if (!m220_side_candidates(c, m, f, pts)) {
        *nomem_out = true;
        return -1;
    }
    int64_t best = m220_largest_candidate(c);
    return best < 0 ? -1 : (int64_t)c->cands[best].face;
}
