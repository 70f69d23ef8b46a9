/* Quake and GoldSrc maps to Valve 220 .map.
 *
 * Brushes come from each model's hull-0 tree: the model's bounding box is
 * split down the tree node by node (map220_region.c), and every leaf whose
 * contents are solid, sky or liquid yields its region as one convex piece.
 * Neighbouring pieces of the same kind are then merged while their union
 * stays convex. Each side takes the texture and alignment of the face lying
 * on it; sides without one get a tool texture (GoldSrc "NULL", Quake
 * "skip"), liquid and sky pieces their own texture on every side.
 * Translucent and ladder leaves are not rebuilt. */
#include "decompile_internal.h"
#include "map220_region.h"

#include "bspkit/query.h"

#include "core/grow.h"
#include "core/map.h"
#include "entities/values.h"
#include "core/surfedge.h"
#include "core/ascii.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deeper trees are refused: a path's planes are kept per level. Real maps stay far below. */
#define MAX_DEPTH 512
/* Region work allowed per node and leaf, and in total on top, before the map is refused. */
#define WORK_PER_RECORD 20000u
#define WORK_BASE 50000000u
#define MERGE_PASSES 8
/* A cut the decompiler makes itself (between textures, or taking grown
 * player-hull leaves away) takes the index of a map plane within these of
 * it, or else an index past the map's planes that every equal cut shares
 * (plane_id), so pieces on both sides of it can merge. */
#define SAME_PLANE_NORMAL 1e-9
#define SAME_PLANE_DIST 1e-4
/* Planes looked at per distance when matching (the corpus needs 16 at most). */
#define MATCH_WINDOW 64
/* Clip pieces thinner than this are rounding between hull 0 and the player hull. */
#define CLIP_MIN_THICKNESS 0.5
/* How often one leaf may be cut between textures, nested. */
#define MAX_SPLIT_DEPTH 12
/* Faces covering less of a side than this do not make it cut. */
#define SPLIT_MIN_AREA 0.5

typedef struct piece {
    int32_t contents;
    int32_t tex;          /* miptex of a liquid or sky piece, -1 when none was found */
    uint32_t first, nfaces; /* range in the store's faces */
    bool alive;
    bk_dvec lo, hi;
} piece;

typedef struct plane_ref {
    double d;
    uint32_t plane;
} plane_ref;

/* A plane of a grown player-hull leaf, with its plane_id() once looked up. */
typedef struct grown_plane {
    bk_dplane pl;
    int32_t id; /* INT32_MIN: not looked up yet */
    uint8_t flip;
} grown_plane;

/* A range of planes or region faces with its bounds. */
typedef struct grown_region {
    size_t first, count;
    bk_dvec lo, hi;
} grown_region;

/* A face of the map found on a region's side, with the area it covers there. */
typedef struct cand {
    uint32_t face;
    double area;
} cand;

/* A face of the map with its polygon, for texturing the sides lying on it. */
typedef struct mface {
    uint32_t first, count; /* range in fpoints */
    uint32_t plane;        /* canonical plane index */
    uint8_t side;          /* 1: facing against the canonical plane's normal */
    bk_dvec lo, hi;
} mface;

typedef struct dctx {
    bspkit_map *map;
    bspkit_error *err;
    bool goldsrc;
    const bspkit_plane *planes;
    const bspkit_node *nodes;
    const bspkit_leaf *leafs;
    const bspkit_model *models;
    const bspkit_face *faces;
    const bspkit_texinfo *texinfo;
    const bspkit_miptex *miptex;
    const uint32_t *leaf_faces;
    const bspkit_clipnode *clipnodes;
    size_t nplanes, nnodes, nleafs, nmodels, nfaces, ntexinfo, nmiptex, nleaf_faces, nclipnodes;
    uint32_t node_record, plane_record, clipnode_record;

    bk_region_ctx rc;
    uint64_t work_limit;
    uint8_t *visited; /* per node */
    uint8_t *built;   /* per model */

    /* Faces of the map by plane: face_order[plane_start[p] .. plane_start[p + 1]). */
    mface *mfaces;
    bk_dvec *fpoints;
    uint32_t *plane_start, *face_order;
    /* The map's planes sorted by distance, for naming cuts between textures. */
    plane_ref *planes_by_dist;
    size_t nplanes_by_dist;
    /* The box of model box_model (model_box). */
    const bspkit_model *box_model;
    bk_dvec box_lo, box_hi;
    /* Planes of the decompiler's own cuts (plane_id): index nplanes + i, and a hash table of them. */
    bk_dplane *extra_planes;
    size_t nextra, cap_extra;
    int32_t *extra_table;
    size_t extra_slots;
    /* Per map plane: the index and orientation regions and faces use for it. */
    uint32_t *canon;
    uint8_t *canon_flip;

    /* Pieces of the model being built; their faces and points. */
    piece *pieces;
    size_t npieces, cap_pieces;
    bk_region store;
    size_t store_limit;
    /* Per stored face: the map face it takes its texture from (side_face),
     * -1 none, -2 not looked up yet; filled on first use by merging or writing. */
    int64_t *side_faces;
    size_t cap_side_faces, nside_faces;
    /* The face of each side of the region texture_split last looked at. */
    int64_t *region_faces;
    size_t cap_region_faces;
    /* Faces found on one side (side_candidates). */
    cand *cands;
    size_t ncands, cap_cands;
    /* Leaves and texture cuts of the model being built. */
    size_t nleaves, texture_splits, clip_pieces;
    /* Clip recovery (walk_clip): the open player-hull leaves grown by the player
     * box, as ranges of `grown` planes, and the candidate regions. */
    uint8_t *clip_visited; /* per clipnode */
    grown_plane *grown;
    size_t ngrown, cap_grown;
    grown_region *open_leaves, *clip_cands;
    size_t nopen_leaves, cap_open_leaves, nclip_cands, cap_clip_cands;
    bk_region cand_store;
    uint64_t clip_work_limit;
    bool clip_full;       /* the candidates outgrew the store limit: no more are taken */
    bool clip_incomplete; /* the walk stopped at the work limit: no clip at all */

    size_t out_limit;
} dctx;

static bspkit_result nomem(dctx *c)
{
    return bk_fail(c->err, BSPKIT_ERR_NOMEM, -1, -1, -1, "decompile: out of memory");
}

/* ---- names ---------------------------------------------------------------- */

static const char *miptex_name(const dctx *c, int64_t tex)
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

static int64_t face_miptex(const dctx *c, size_t face)
{
    int32_t ti = c->faces[face].texinfo;
    if (ti < 0 || (size_t)ti >= c->ntexinfo)
        return -1;
    return c->texinfo[ti].texture;
}

static bool is_liquid(int32_t contents)
{
    return (contents <= BSPKIT_Q_CONTENTS_WATER && contents >= BSPKIT_Q_CONTENTS_LAVA) ||
           (contents <= BSPKIT_Q_CONTENTS_CURRENT_0 && contents >= BSPKIT_Q_CONTENTS_CURRENT_DOWN);
}

static bool wanted(int32_t contents)
{
    return contents == BSPKIT_Q_CONTENTS_SOLID || contents == BSPKIT_Q_CONTENTS_SKY || is_liquid(contents);
}

/* Whether a texture name gives `contents` when compiled (so a leaf's own faces can name its texture). */
static bool name_fits(const char *name, int32_t contents)
{
    if (!name)
        return false;
    if (contents == BSPKIT_Q_CONTENTS_SKY)
        return bk_ascii_ncasecmp(name, "sky", 3) == 0;
    return name[0] == '*' || name[0] == '!';
}

static const char *default_name(const dctx *c, int32_t contents)
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
static void points_bounds(const bk_dvec *p, size_t n, bk_dvec *lo, bk_dvec *hi)
{
    *lo = (bk_dvec){INFINITY, INFINITY, INFINITY};
    *hi = (bk_dvec){-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < n; i++) {
        *lo = (bk_dvec){fmin(lo->x, p[i].x), fmin(lo->y, p[i].y), fmin(lo->z, p[i].z)};
        *hi = (bk_dvec){fmax(hi->x, p[i].x), fmax(hi->y, p[i].y), fmax(hi->z, p[i].z)};
    }
}

/* At least three edges, all inside the surfedge lump. */
static bool edges_in_range(const bspkit_face *face, size_t nsurfedges)
{
    return face->first_edge >= 0 && face->num_edges >= 3 && (uint64_t)face->first_edge <= nsurfedges &&
           (uint64_t)face->num_edges <= nsurfedges - (uint64_t)face->first_edge;
}

static int plane_ref_cmp(const void *pa, const void *pb)
{
    const plane_ref *a = pa, *b = pb;
    if (a->d != b->d)
        return a->d < b->d ? -1 : 1;
    return a->plane < b->plane ? -1 : a->plane > b->plane;
}

static bspkit_result load_planes_by_dist(dctx *c)
{
    c->planes_by_dist = malloc((c->nplanes ? c->nplanes : 1) * sizeof *c->planes_by_dist);
    if (!c->planes_by_dist)
        return nomem(c);
    size_t n = 0;
    for (size_t p = 0; p < c->nplanes; p++)
        if (isfinite(c->planes[p].dist))
            c->planes_by_dist[n++] = (plane_ref){c->planes[p].dist, (uint32_t)p};
    c->nplanes_by_dist = n;
    qsort(c->planes_by_dist, n, sizeof *c->planes_by_dist, plane_ref_cmp);
    return BSPKIT_OK;
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
static int32_t plane_id(dctx *c, const bk_dplane *pl, uint8_t *flip)
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

/* Maps store one plane under several indices: GoldSrc keeps each plane
 * beside its negation, faces and nodes may name either, and compilers
 * leave duplicates. Regions and faces use one index per geometric plane
 * (the lowest), so a side finds the faces on it whichever index they name
 * and pieces on both sides of a plane meet for merging. */
static bspkit_result load_canonical_planes(dctx *c)
{
    bspkit_result r = load_planes_by_dist(c);
    if (r != BSPKIT_OK)
        return r;
    c->canon = malloc((c->nplanes ? c->nplanes : 1) * sizeof *c->canon);
    c->canon_flip = calloc(c->nplanes ? c->nplanes : 1, 1);
    if (!c->canon || !c->canon_flip)
        return nomem(c);
    for (size_t p = 0; p < c->nplanes; p++) {
        const bspkit_plane *mp = &c->planes[p];
        bk_dplane pl = {{mp->normal.x, mp->normal.y, mp->normal.z}, mp->dist};
        uint8_t flip = 0;
        int32_t q = match_plane(c, &pl, &flip);
        c->canon[p] = (uint32_t)p;
        if (q >= 0 && (size_t)q < p) {
            c->canon[p] = c->canon[q];
            c->canon_flip[p] = flip ^ c->canon_flip[q];
        }
    }
    return BSPKIT_OK;
}

static bspkit_result load_faces(dctx *c)
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
        return nomem(c);
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
        points_bounds(c->fpoints + used, n, &m->lo, &m->hi);
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
static bool side_candidates(dctx *c, const bspkit_model *m, const bk_rface *f, const bk_dvec *pts)
{
    c->ncands = 0;
    if (f->plane >= 0 && (size_t)f->plane >= c->nplanes)
        return true; /* the decompiler's own cut, on no plane of the map (plane_id) */
    bk_dvec lo, hi;
    points_bounds(pts, f->count, &lo, &hi);
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
    for (uint64_t fi = first; fi < last; fi++) {
        const bspkit_face *face = &c->faces[fi];
        if (face->plane >= c->nplanes || c->mfaces[fi].count < 3)
            continue;
        const bspkit_plane *pl = &c->planes[face->plane];
        double sign = face->side ? -1.0 : 1.0;
        bk_dvec n = {sign * pl->normal.x, sign * pl->normal.y, sign * pl->normal.z};
        if (dv_dot(n, f->pl.n) < 0.9999 || fabs(sign * pl->dist - f->pl.d) > 0.01)
            continue;
        if (!add_candidate(c, (uint32_t)fi, f, pts, lo, hi))
            return false;
    }
    return true;
}

/* Index in c->cands of the candidate covering the most area, or -1 when there is none. */
static int64_t largest_candidate(const dctx *c)
{
    int64_t best = -1;
    for (size_t i = 0; i < c->ncands; i++)
        if (best < 0 || c->cands[i].area > c->cands[best].area)
            best = (int64_t)i;
    return best;
}

/* The face of model `m` on side `f` that covers most of it (see
 * side_candidates), or -1. */
static int64_t side_face(dctx *c, const bspkit_model *m, const bk_rface *f, const bk_dvec *pts, bool *nomem_out)
{
    if (!side_candidates(c, m, f, pts)) {
        *nomem_out = true;
        return -1;
    }
    int64_t best = largest_candidate(c);
    return best < 0 ? -1 : (int64_t)c->cands[best].face;
}

/* ---- building the pieces of one model -------------------------------------- */

/* Makes side_faces cover every stored face, marking new ones not looked up
 * (-2); false when out of memory. */
static bool cover_side_faces(dctx *c)
{
    if (!bk_grow((void **)&c->side_faces, &c->cap_side_faces, c->store.nfaces, sizeof *c->side_faces))
        return false;
    for (size_t i = c->nside_faces; i < c->store.nfaces; i++)
        c->side_faces[i] = -2;
    c->nside_faces = c->store.nfaces;
    return true;
}

static void region_bounds(const bk_region *r, bk_dvec *lo, bk_dvec *hi)
{
    points_bounds(r->points, r->npoints, lo, hi);
}

static bool store_piece(dctx *c, const bk_region *r, piece *p)
{
    if (c->store.npoints + r->npoints > c->store_limit)
        return false;
    p->first = (uint32_t)c->store.nfaces;
    p->nfaces = (uint32_t)r->nfaces;
    region_bounds(r, &p->lo, &p->hi);
    for (size_t f = 0; f < r->nfaces; f++) {
        const bk_rface *face = &r->faces[f];
        if (!bk_region_add_face(&c->store, &face->pl, face->plane, face->flip, r->points + face->first,
                                face->count))
            return false;
    }
    return true;
}

static bspkit_result limit_fail(dctx *c, int lump, const char *what)
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
        int64_t t = face_miptex(c, c->leaf_faces[k]);
        if (name_fits(miptex_name(c, t), leaf->contents))
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

static bspkit_result add_piece(dctx *c, const bk_region *r, const bspkit_leaf *leaf)
{
    if (!bk_grow((void **)&c->pieces, &c->cap_pieces, c->npieces + 1, sizeof *c->pieces))
        return nomem(c);
    piece *p = &c->pieces[c->npieces];
    *p = (piece){.contents = leaf->contents, .alive = true};
    p->tex = is_liquid(leaf->contents) || leaf->contents == BSPKIT_Q_CONTENTS_SKY ? leaf_texture(c, leaf) : -1;
    if (c->store.npoints + r->npoints > c->store_limit)
        return limit_fail(c, BSPKIT_Q_NODES, "the tree's regions outgrow the size of the map");
    if (!store_piece(c, r, p))
        return nomem(c);
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
    int32_t plane = plane_id(c, pl, &flip);
    if (plane < 0)
        return false;
    if (!bk_region_cut(&c->rc, r, pl, plane, flip, back, &bc) ||
        !bk_region_cut(&c->rc, r, &neg, plane, (uint8_t)!flip, front, &fc))
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
        if (!side_candidates(c, m, f, r->points + f->first))
            return false;
        int64_t ia = largest_candidate(c);
        c->region_faces[fi] = ia < 0 ? -1 : (int64_t)c->cands[ia].face;
        if (c->ncands < 2 || c->cands[ia].area < SPLIT_MIN_AREA)
            continue;
        uint32_t fa = c->cands[ia].face;
        int64_t ta = face_miptex(c, fa);
        for (size_t j = 0; j < c->ncands; j++) {
            uint32_t fb = c->cands[j].face;
            int64_t tb = face_miptex(c, fb);
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
        return add_piece(c, r, leaf);
    bk_region back = {0}, front = {0};
    bool found;
    bspkit_result res;
    if (!texture_split(c, m, r, &back, &front, &found))
        res = nomem(c);
    else if (!found) {
        /* Every side's face is known now: keep them for merging and writing. */
        res = add_piece(c, r, leaf);
        if (res == BSPKIT_OK && !cover_side_faces(c))
            res = nomem(c);
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
        *lo = (bk_dvec){fmin(lo->x, mf->lo.x), fmin(lo->y, mf->lo.y), fmin(lo->z, mf->lo.z)};
        *hi = (bk_dvec){fmax(hi->x, mf->hi.x), fmax(hi->y, mf->hi.y), fmax(hi->z, mf->hi.z)};
    }
}

/* compute_model_box(), kept for the model being built (merging asks on every union). */
static void model_box(dctx *c, const bspkit_model *m, bk_dvec *lo, bk_dvec *hi)
{
    if (c->box_model != m) {
        compute_model_box(c, m, &c->box_lo, &c->box_hi);
        c->box_model = m;
    }
    *lo = c->box_lo;
    *hi = c->box_hi;
}

/* One of the trees a model's box is split down: hull 0 (NODES, children
 * < 0 are leaves) or a clip hull (CLIPNODES, children < 0 are contents). */
typedef struct tree_walk {
    int lump;         /* BSPKIT_Q_NODES or BSPKIT_Q_CLIPNODES */
    size_t count;     /* records in that lump */
    uint32_t record;  /* record size, for error offsets */
    uint8_t *visited; /* per record: each is walked once over all models (NULL: no such rule) */
    /* Called for every region reaching a child < 0. */
    bspkit_result (*leaf)(dctx *c, const bspkit_model *m, const bk_region *r, int32_t child);
} tree_walk;

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
    if (!wanted(c->leafs[leaf].contents))
        return BSPKIT_OK;
    c->nleaves++;
    return add_leaf(c, m, r, &c->leafs[leaf], 0);
}

/* A copy of `src` in `dst` (empty); false when out of memory. */
static bool region_copy(bk_region *dst, const bk_region *src)
{
    for (size_t f = 0; f < src->nfaces; f++) {
        const bk_rface *face = &src->faces[f];
        if (!bk_region_add_face(dst, &face->pl, face->plane, face->flip, src->points + face->first, face->count))
            return false;
    }
    return true;
}

/* Splits region `start` down the tree from `root`, handing every region
 * that reaches a leaf (or contents) to w->leaf. Without w->visited a node
 * may be walked again (the work limit bounds it). */
static bspkit_result walk_tree(dctx *c, const bspkit_model *m, const tree_walk *w, int32_t root,
                               const bk_region *start)
{
    bspkit_result r = BSPKIT_OK;
    frame *stack = calloc(MAX_DEPTH + 2, sizeof *stack);
    size_t top = 0;
    bk_region back = {0}, front = {0};
    if (!stack)
        return nomem(c);
    stack[0].child = root;
    top = 1;
    if (!region_copy(&stack[0].region, start)) {
        r = nomem(c);
        goto done;
    }
    while (top > 0) {
        frame f = stack[--top];
        stack[top].region = (bk_region){0};
        if (f.child < 0) {
            r = w->leaf(c, m, &f.region, f.child);
            bk_region_free(&f.region);
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
            r = limit_fail(c, w->lump, "the tree's regions need more work than its size allows");
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
            !bk_region_cut(&c->rc, &f.region, &neg, plane, (uint8_t)!flip, &front, &fc)) {
            bk_region_free(&f.region);
            r = nomem(c);
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
        bk_region_free(&f.region);
    }
done:
    while (top > 0)
        bk_region_free(&stack[--top].region);
    free(stack);
    bk_region_free(&back);
    bk_region_free(&front);
    return r;
}

/* walk_tree() from the box lo..hi. */
static bspkit_result walk_box(dctx *c, const bspkit_model *m, const tree_walk *w, int32_t root, bk_dvec lo,
                              bk_dvec hi)
{
    bk_region box = {0};
    bspkit_result r = bk_region_box(&box, lo, hi) ? walk_tree(c, m, w, root, &box) : nomem(c);
    bk_region_free(&box);
    return r;
}

/* Walks model `mi`'s hull-0 tree, splitting its bounding box, and collects
 * the pieces. Each node is visited once over all models. */
static bspkit_result walk_model(dctx *c, size_t mi)
{
    const bspkit_model *m = &c->models[mi];
    bk_dvec lo, hi;
    model_box(c, m, &lo, &hi);
    if (!(lo.x < hi.x && lo.y < hi.y && lo.z < hi.z))
        return BSPKIT_OK; /* an empty model (or NaN bounds) has no brushes */
    double reach = fmax(fmax(fmax(fabs(lo.x), fabs(hi.x)), fmax(fabs(lo.y), fabs(hi.y))), fmax(fabs(lo.z), fabs(hi.z)));
    if (reach > 1e6)
        return bk_fail(c->err, BSPKIT_ERR_LIMIT, BSPKIT_Q_MODELS, -1, -1,
                       "decompile: model %zu reaches %g units from the origin", mi, reach);
    c->rc.extent = 4 * reach + 64;
    tree_walk w = {BSPKIT_Q_NODES, c->nnodes, c->node_record, c->visited, hull0_leaf};
    return walk_box(c, m, &w, m->headnode[0], lo, hi);
}

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
        return nomem(c);
    grown_region *g = &c->open_leaves[c->nopen_leaves++];
    g->first = first;
    g->count = c->ngrown - first;
    region_bounds(r, &g->lo, &g->hi);
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
        return nomem(c);
    if (c->cand_store.npoints + r->npoints > c->store_limit) {
        c->clip_full = true; /* clip is a nicety: the candidates found so far stand */
        return BSPKIT_OK;
    }
    grown_region *g = &c->clip_cands[c->nclip_cands];
    g->first = c->cand_store.nfaces;
    g->count = r->nfaces;
    region_bounds(r, &g->lo, &g->hi);
    if (!region_copy(&c->cand_store, r))
        return nomem(c);
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
    return walk_tree(c, m, &w, m->headnode[0], r);
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
    if (!region_copy(&whole, &start) || !bk_grow((void **)&stack, &cap, 1, sizeof *stack)) {
        res = nomem(c);
        goto done;
    }
    stack[top++] = (clip_frame){whole, 0};
    whole = (bk_region){0};
    while (top > 0) {
        clip_frame f = stack[--top];
        bk_dvec lo, hi;
        region_bounds(&f.region, &lo, &hi);
        size_t k = f.next;
        while (k < c->nopen_leaves && !boxes_overlap(lo, hi, c->open_leaves[k].lo, c->open_leaves[k].hi))
            k++;
        if (k == c->nopen_leaves || c->rc.work > c->clip_work_limit) {
            if (k == c->nopen_leaves && region_thickness(&f.region) >= CLIP_MIN_THICKNESS) {
                c->clip_pieces++;
                res = add_piece(c, &f.region, &clip);
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
                gp->id = plane_id(c, pl, &gp->flip);
            int32_t id = gp->id;
            uint8_t flip = gp->flip;
            if (id < 0 || !bk_region_cut(&c->rc, &inside, &neg, id, (uint8_t)!flip, &outside, &fc)) {
                res = nomem(c);
                goto done;
            }
            if (fc == BK_CUT_EMPTY)
                continue; /* wholly behind this plane */
            if (fc == BK_CUT_WHOLE) {
                /* wholly in front: outside the grown leaf, on to the next one */
                if (!bk_grow((void **)&stack, &cap, top + 1, sizeof *stack)) {
                    res = nomem(c);
                    goto done;
                }
                stack[top++] = (clip_frame){inside, k + 1};
                inside = (bk_region){0};
                gone = true;
                continue;
            }
            if (!bk_region_cut(&c->rc, &inside, pl, id, flip, &tmp, &bc)) {
                res = nomem(c);
                goto done;
            }
            if (!bk_grow((void **)&stack, &cap, top + 1, sizeof *stack)) {
                res = nomem(c);
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
static bspkit_result walk_clip(dctx *c, size_t mi)
{
    const bspkit_model *m = &c->models[mi];
    bk_dvec lo, hi, mins, maxs;
    int hull = player_hull(c, &mins, &maxs);
    int32_t root = m->headnode[hull];
    if (!c->nclipnodes || root < 0 || (size_t)root >= c->nclipnodes)
        return BSPKIT_OK;
    model_box(c, m, &lo, &hi);
    if (!(lo.x < hi.x && lo.y < hi.y && lo.z < hi.z))
        return BSPKIT_OK;
    lo = dv_sub(dv_sub(lo, maxs), (bk_dvec){1, 1, 1});
    hi = dv_add(dv_sub(hi, mins), (bk_dvec){1, 1, 1});
    c->clip_work_limit = c->rc.work + c->work_limit / 2;
    c->ngrown = c->nopen_leaves = c->nclip_cands = 0;
    c->clip_full = c->clip_incomplete = false;
    c->cand_store.nfaces = c->cand_store.npoints = 0;
    tree_walk w = {BSPKIT_Q_CLIPNODES, c->nclipnodes, c->clipnode_record, c->clip_visited, clip_hull_leaf};
    bspkit_result r = walk_box(c, m, &w, root, lo, hi);
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

/* ---- merging ------------------------------------------------------------------- */

typedef struct mentry { int32_t plane; uint32_t flip, piece; } mentry;

static int mentry_cmp(const void *pa, const void *pb)
{
    const mentry *a = pa, *b = pb;
    if (a->plane != b->plane)
        return a->plane < b->plane ? -1 : 1;
    if (a->flip != b->flip)
        return a->flip < b->flip ? -1 : 1;
    return a->piece < b->piece ? -1 : a->piece > b->piece;
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

/* side_face() of stored face `index`, looked up once: merging asks for a
 * side's texture on every candidate union, and writing asks again. */
static int64_t stored_side_face(dctx *c, const bspkit_model *m, size_t index, bool *nomem)
{
    if (index >= c->nside_faces && !cover_side_faces(c)) {
        *nomem = true;
        return -1;
    }
    if (c->side_faces[index] == -2) {
        const bk_rface *f = &c->store.faces[index];
        int64_t face = side_face(c, m, f, c->store.points + f->first, nomem);
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
    int64_t face = stored_side_face(c, m, index, nomem);
    return face < 0 ? -1 : face_miptex(c, (size_t)face);
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
        return nomem_seen ? nomem(c) : BSPKIT_OK;
    /* The union is the intersection of both pieces' planes but the shared one. */
    bk_region cur = {0}, next = {0};
    bspkit_result r = BSPKIT_OK;
    bk_dvec lo, hi;
    model_box(c, m, &lo, &hi);
    if (!bk_region_box(&cur, lo, hi)) {
        r = nomem(c);
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
                r = nomem(c);
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
    if (!store_piece(c, &cur, &merged_piece)) {
        r = nomem(c);
        goto done;
    }
    c->pieces[ai] = merged_piece;
    c->pieces[bi].alive = false;
    *merged = true;
done:
    bk_region_free(&cur);
    bk_region_free(&next);
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
static bspkit_result merge_pieces(dctx *c, const bspkit_model *m)
{
    mentry *e = NULL;
    size_t ne = 0, cap = 0;
    bspkit_result r = BSPKIT_OK;
    for (int pass = 0; pass < MERGE_PASSES; pass++) {
        ne = 0;
        for (size_t p = 0; p < c->npieces; p++) {
            if (!c->pieces[p].alive)
                continue;
            for (uint32_t f = 0; f < c->pieces[p].nfaces; f++) {
                const bk_rface *face = &c->store.faces[c->pieces[p].first + f];
                if (face->plane < 0)
                    continue;
                if (!bk_grow((void **)&e, &cap, ne + 1, sizeof *e)) {
                    r = nomem(c);
                    goto done;
                }
                e[ne++] = (mentry){face->plane, face->flip, (uint32_t)p};
            }
        }
        if (ne == 0)
            break;
        qsort(e, ne, sizeof *e, mentry_cmp);
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
    return r;
}

/* ---- writing -------------------------------------------------------------------- */

/* A coordinate, as both formats write numbers (bk_decompile_num). */
static void put_num(bk_tbuf *t, double v)
{
    char buf[32];
    bk_decompile_num(buf, sizeof buf, v);
    tb_puts(t, buf);
}

/* Quake's default texture axes: the first of these whose normal is nearest the plane's. */
static const double BASE_AXES[6][3][3] = {
    {{0, 0, 1}, {1, 0, 0}, {0, -1, 0}},  {{0, 0, -1}, {1, 0, 0}, {0, -1, 0}}, {{1, 0, 0}, {0, 1, 0}, {0, 0, -1}},
    {{-1, 0, 0}, {0, 1, 0}, {0, 0, -1}}, {{0, 1, 0}, {1, 0, 0}, {0, 0, -1}},  {{0, -1, 0}, {1, 0, 0}, {0, 0, -1}},
};

/* One side: three points on its polygon, ordered so that
 * cross(p0 - p1, p2 - p1) points out of the brush (how qbsp and hlcsg
 * rebuild the plane), then the texture and its Valve 220 axes. */
static void put_side(bk_tbuf *t, const bk_rface *f, const bk_dvec *pts, bk_dvec shift, const char *name,
                     const bspkit_texinfo *ti)
{
    /* The widest triangle on the polygon keeps the plane precise once rounded. */
    size_t i1 = 1, i2 = 2;
    double far = -1;
    for (size_t i = 1; i < f->count; i++) {
        bk_dvec d = dv_sub(pts[i], pts[0]);
        if (dv_dot(d, d) > far) {
            far = dv_dot(d, d);
            i1 = i;
        }
    }
    double best = -1;
    for (size_t i = 1; i < f->count; i++) {
        double a = dv_length(dv_cross(dv_sub(pts[i1], pts[0]), dv_sub(pts[i], pts[0])));
        if (i != i1 && a > best) {
            best = a;
            i2 = i;
        }
    }
    bk_dvec p[3] = {dv_add(pts[0], shift), dv_add(pts[i1], shift), dv_add(pts[i2], shift)};
    if (dv_dot(dv_cross(dv_sub(p[0], p[1]), dv_sub(p[2], p[1])), f->pl.n) < 0) {
        bk_dvec s = p[0];
        p[0] = p[2];
        p[2] = s;
    }
    for (int k = 0; k < 3; k++) {
        tb_puts(t, "( ");
        put_num(t, p[k].x);
        tb_puts(t, " ");
        put_num(t, p[k].y);
        tb_puts(t, " ");
        put_num(t, p[k].z);
        tb_puts(t, " ) ");
    }
    tb_puts(t, name);
    double axis[2][3], off[2], scale[2];
    bool have = false;
    if (ti) {
        have = true;
        for (int k = 0; k < 2; k++) {
            bk_dvec v = {ti->texture_vecs[k][0], ti->texture_vecs[k][1], ti->texture_vecs[k][2]};
            double len = dv_length(v);
            if (!(len > 1e-6 && len < 1e6) || !isfinite(ti->texture_vecs[k][3]))
                have = false;
            else {
                axis[k][0] = v.x / len, axis[k][1] = v.y / len, axis[k][2] = v.z / len;
                scale[k] = 1 / len;
                /* Moving the brush by `shift` keeps texels in place when the offset gives back dot(shift, vec). */
                off[k] = ti->texture_vecs[k][3] - dv_dot(shift, v);
            }
        }
    }
    if (!have) {
        int bi = 0;
        double bd = -2;
        for (int i = 0; i < 6; i++) {
            double d = f->pl.n.x * BASE_AXES[i][0][0] + f->pl.n.y * BASE_AXES[i][0][1] + f->pl.n.z * BASE_AXES[i][0][2];
            if (d > bd + 1e-9) {
                bd = d;
                bi = i;
            }
        }
        for (int k = 0; k < 2; k++) {
            memcpy(axis[k], BASE_AXES[bi][k + 1], sizeof axis[k]);
            off[k] = 0;
            scale[k] = 1;
        }
    }
    for (int k = 0; k < 2; k++) {
        tb_puts(t, " [ ");
        for (int j = 0; j < 3; j++) {
            put_num(t, axis[k][j]);
            tb_puts(t, " ");
        }
        put_num(t, off[k]);
        tb_puts(t, " ]");
    }
    tb_puts(t, " 0 ");
    put_num(t, scale[0]);
    tb_puts(t, " ");
    put_num(t, scale[1]);
    tb_puts(t, "\n");
}

static bspkit_result write_pieces(dctx *c, const bspkit_model *m, bk_dvec shift, bk_tbuf *t,
                                  bspkit_decompile_stats *st, bool world)
{
    for (size_t pi = 0; pi < c->npieces; pi++) {
        const piece *p = &c->pieces[pi];
        if (!p->alive)
            continue;
        if (p->nfaces < 4) {
            st->skipped_brushes++;
            continue;
        }
        tb_puts(t, "{\n");
        const char *own = p->contents == BSPKIT_Q_CONTENTS_SOLID ? NULL : miptex_name(c, p->tex);
        if (p->contents != BSPKIT_Q_CONTENTS_SOLID && !own)
            own = default_name(c, p->contents);
        for (uint32_t f = 0; f < p->nfaces; f++) {
            const bk_rface *face = &c->store.faces[p->first + f];
            const bk_dvec *pts = c->store.points + face->first;
            bool oom = false;
            /* Clip shows no face: its sides need no face's alignment either. */
            int64_t fi = p->contents == BSPKIT_Q_CONTENTS_CLIP ? -1 : stored_side_face(c, m, p->first + f, &oom);
            if (oom)
                return nomem(c);
            const char *name = own;
            const bspkit_texinfo *ti = NULL;
            if (fi >= 0) {
                int32_t tix = c->faces[fi].texinfo;
                ti = tix >= 0 && (size_t)tix < c->ntexinfo ? &c->texinfo[tix] : NULL;
                if (!name)
                    name = miptex_name(c, face_miptex(c, (size_t)fi));
                /* A sky or liquid name would turn a solid brush into sky or liquid when compiled. */
                if (name && p->contents == BSPKIT_Q_CONTENTS_SOLID &&
                    (name_fits(name, BSPKIT_Q_CONTENTS_SKY) || name_fits(name, BSPKIT_Q_CONTENTS_WATER)))
                    name = NULL;
            }
            if (!name || p->contents == BSPKIT_Q_CONTENTS_CLIP) {
                name = name ? name : default_name(c, p->contents);
                st->tool_sides++;
            }
            put_side(t, face, pts, shift, name, ti);
            st->sides++;
        }
        tb_puts(t, "}\n");
        st->brushes++;
        st->clip_brushes += p->contents == BSPKIT_Q_CONTENTS_CLIP;
        if (world)
            st->world_brushes++;
        else
            st->entity_brushes++;
        if (t->size > c->out_limit)
            return limit_fail(c, BSPKIT_Q_NODES, "the output outgrows the size of the map");
    }
    return BSPKIT_OK;
}

/* Builds model `mi`'s brushes and writes them, moved by `shift`. */
static bspkit_result model_brushes(dctx *c, size_t mi, bk_dvec shift, const bspkit_decompile_options *opts,
                                   bk_tbuf *t, bspkit_decompile_stats *st)
{
    c->npieces = 0;
    c->store.nfaces = c->store.npoints = 0;
    c->nside_faces = 0;
    c->nleaves = c->texture_splits = c->clip_pieces = 0;
    bspkit_result r = walk_model(c, mi);
    if (r != BSPKIT_OK)
        return r;
    if (mi == 0 && !(opts->skip & BSPKIT_DECOMPILE_NO_CLIP) && (r = walk_clip(c, mi)) != BSPKIT_OK)
        return r;
    st->leaves += c->nleaves;
    st->texture_splits += c->texture_splits;
    if (!opts->no_merge && (r = merge_pieces(c, &c->models[mi])) != BSPKIT_OK)
        return r;
    return write_pieces(c, &c->models[mi], shift, t, st, mi == 0);
}

static void put_quoted(bk_tbuf *t, const char *s, size_t n)
{
    tb_put(t, "\"", 1);
    for (size_t i = 0; i < n; i++)
        tb_put(t, s[i] == '"' ? "'" : &s[i], 1); /* .map values cannot hold a double quote */
    tb_put(t, "\"", 1);
}

static void put_pair(bk_tbuf *t, const char *k, size_t kn, const char *v, size_t vn)
{
    put_quoted(t, k, kn);
    tb_put(t, " ", 1);
    put_quoted(t, v, vn);
    tb_put(t, "\n", 1);
}

/* A 16-unit box at `o` textured "origin": the compiler takes the entity's origin from its centre. */
static void put_origin_brush(dctx *c, bk_dvec o, bk_tbuf *t, bspkit_decompile_stats *st)
{
    bk_region box = {0};
    if (!bk_region_box(&box, dv_sub(o, (bk_dvec){8, 8, 8}), dv_add(o, (bk_dvec){8, 8, 8}))) {
        bk_region_free(&box);
        t->failed = true;
        return;
    }
    tb_puts(t, "{\n");
    for (size_t f = 0; f < box.nfaces; f++)
        put_side(t, &box.faces[f], box.points + box.faces[f].first, (bk_dvec){0, 0, 0},
                 c->goldsrc ? "ORIGIN" : "origin", NULL);
    tb_puts(t, "}\n");
    st->sides += 6;
    bk_region_free(&box);
}

static bspkit_result write_entity(dctx *c, const bspkit_entities *ents, size_t ei, bool world, size_t world_model,
                                  const bspkit_decompile_options *opts, bk_tbuf *t, bspkit_decompile_stats *st)
{
    tb_puts(t, "{\n");
    int64_t model = world ? (int64_t)world_model : -1;
    bool has_mapversion = false;
    bk_dvec origin = {0, 0, 0};
    if (ents) {
        const bspkit_entity *e = &ents->entities[ei];
        if (!world) {
            model = bk_model_ref(bspkit_entity_value(ents, ei, "model"));
            if (model >= 0 && (uint64_t)model >= c->nmodels)
                model = -1;
        }
        if (model >= 0 && c->built[model])
            model = -1; /* a second entity naming the same model keeps its "model" key */
        double o[3];
        if (!world && model > 0 && bk_parse_vec3(bspkit_entity_value(ents, ei, "origin"), o))
            origin = (bk_dvec){o[0], o[1], o[2]};
        for (size_t k = 0; k < e->num_pairs; k++) {
            const bspkit_keyvalue *kv = &ents->pairs[e->first_pair + k];
            if (!world && model > 0 && strcmp(kv->key, "model") == 0)
                continue; /* the brushes are inline */
            if (world && strcmp(kv->key, "mapversion") == 0) {
                put_pair(t, kv->key, kv->key_length, "220", 3);
                has_mapversion = true;
                continue;
            }
            put_pair(t, kv->key, kv->key_length, kv->value, kv->value_length);
        }
    } else {
        put_pair(t, "classname", 9, "worldspawn", 10);
    }
    if (world && !has_mapversion)
        put_pair(t, "mapversion", 10, "220", 3);
    st->entities++;
    if (model >= 0 && !(model > 0 && (opts->skip & BSPKIT_DECOMPILE_NO_BRUSH_ENTITIES))) {
        c->built[model] = 1;
        bspkit_result r = model_brushes(c, (size_t)model, origin, opts, t, st);
        if (r != BSPKIT_OK)
            return r;
        if (origin.x != 0 || origin.y != 0 || origin.z != 0)
            put_origin_brush(c, origin, t, st);
    }
    tb_puts(t, "}\n");
    return BSPKIT_OK;
}

static bspkit_result load(dctx *c)
{
    bspkit_result r;
    if ((r = bspkit_get_planes(c->map, &c->planes, &c->nplanes, c->err)) != BSPKIT_OK ||
        (r = bspkit_get_nodes(c->map, &c->nodes, &c->nnodes, c->err)) != BSPKIT_OK ||
        (r = bspkit_get_leafs(c->map, &c->leafs, &c->nleafs, c->err)) != BSPKIT_OK ||
        (r = bspkit_get_models(c->map, &c->models, &c->nmodels, c->err)) != BSPKIT_OK ||
        (r = bspkit_get_faces(c->map, &c->faces, &c->nfaces, c->err)) != BSPKIT_OK ||
        (r = bspkit_get_texinfo(c->map, &c->texinfo, &c->ntexinfo, c->err)) != BSPKIT_OK ||
        (r = bspkit_get_leaf_faces(c->map, &c->leaf_faces, &c->nleaf_faces, c->err)) != BSPKIT_OK)
        return r;
    /* Texture names are a nicety: a broken TEXTURES lump leaves sides to tool textures. */
    r = bspkit_get_miptex(c->map, &c->miptex, &c->nmiptex, c->err);
    if (r == BSPKIT_ERR_NOMEM)
        return r;
    if (r != BSPKIT_OK) {
        c->miptex = NULL;
        c->nmiptex = 0;
    }
    bspkit_lump_info li;
    if (bspkit_lump_info_get(c->map, BSPKIT_Q_NODES, &li) == BSPKIT_OK)
        c->node_record = li.record_size;
    if (bspkit_lump_info_get(c->map, BSPKIT_Q_PLANES, &li) == BSPKIT_OK)
        c->plane_record = li.record_size;
    /* Clip brushes are a nicety too: without a readable clip hull there are none. */
    r = bspkit_get_clipnodes(c->map, &c->clipnodes, &c->nclipnodes, c->err);
    if (r == BSPKIT_ERR_NOMEM)
        return r;
    if (r != BSPKIT_OK) {
        c->clipnodes = NULL;
        c->nclipnodes = 0;
    }
    if (bspkit_lump_info_get(c->map, BSPKIT_Q_CLIPNODES, &li) == BSPKIT_OK)
        c->clipnode_record = li.record_size;
    c->clip_visited = calloc(c->nclipnodes + 1, 1);
    c->visited = calloc(c->nnodes + 1, 1);
    c->built = calloc(c->nmodels + 1, 1);
    if (!c->visited || !c->built || !c->clip_visited)
        return nomem(c);
    size_t file_size;
    bspkit_map_bytes(c->map, &file_size);
    c->work_limit = WORK_BASE + (uint64_t)WORK_PER_RECORD * (c->nnodes + c->nleafs);
    c->store_limit = file_size + (1u << 20);
    c->out_limit = 64 * file_size + (1u << 20);
    if ((r = load_canonical_planes(c)) != BSPKIT_OK)
        return r;
    return load_faces(c);
}

bspkit_result bk_decompile_map220(bspkit_map *map, const bspkit_decompile_options *opts, bk_tbuf *out,
                                  bspkit_decompile_stats *stats, bspkit_error *err)
{
    dctx c = {.map = map, .err = err};
    c.goldsrc = bspkit_map_format(map)->family == BSPKIT_FAMILY_GOLDSRC;
    const bspkit_entities *ents = NULL;
    bspkit_result r = load(&c);
    if (r == BSPKIT_OK)
        r = bspkit_get_entities(map, &ents, err);
    if (r != BSPKIT_OK)
        goto done;
    /* The world's brushes go to the first worldspawn; a map without one gets one. */
    size_t world = SIZE_MAX;
    for (size_t i = 0; i < ents->count && world == SIZE_MAX; i++) {
        const char *cls = bspkit_entity_value(ents, i, "classname");
        if (cls && strcmp(cls, "worldspawn") == 0)
            world = i;
    }
    if (world == SIZE_MAX && c.nmodels > 0 && (r = write_entity(&c, NULL, 0, true, 0, opts, out, stats)) != BSPKIT_OK)
        goto done;
    for (size_t i = 0; i < ents->count; i++) {
        bool is_world = i == world && c.nmodels > 0;
        if ((r = write_entity(&c, ents, i, is_world, 0, opts, out, stats)) != BSPKIT_OK)
            goto done;
        if (out->failed) {
            r = nomem(&c);
            goto done;
        }
    }
done:
    bk_region_ctx_free(&c.rc);
    bk_region_free(&c.store);
    free(c.side_faces);
    free(c.cands);
    free(c.region_faces);
    free(c.planes_by_dist);
    free(c.canon);
    free(c.extra_planes);
    free(c.extra_table);
    free(c.canon_flip);
    free(c.pieces);
    free(c.visited);
    free(c.clip_visited);
    free(c.grown);
    free(c.open_leaves);
    free(c.clip_cands);
    bk_region_free(&c.cand_store);
    free(c.built);
    free(c.mfaces);
    free(c.fpoints);
    free(c.plane_start);
    free(c.face_order);
    return r;
}
