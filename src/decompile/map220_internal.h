/* Internal interface of the Quake/GoldSrc .map decompiler, split by stage:
 * map220_faces.c (names and the map's faces), map220_pieces.c (convex
 * pieces of each model from its BSP tree), map220_clip.c (clip brushes from
 * the player hull), map220_merge.c (merging pieces) and map220.c (writing). */
#ifndef BSPKIT_DECOMPILE_MAP220_INTERNAL_H
#define BSPKIT_DECOMPILE_MAP220_INTERNAL_H

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
    uint32_t first, nfaces; /* range in the store's faces (m220_piece_store) */
    bool alive;
    bool in_clip_store;     /* a clip piece from the player hull: its faces are in clip_store */
    bk_dvec lo, hi;
} piece;

typedef struct plane_ref {
    double d;
    uint32_t plane;
} plane_ref;

/* A plane of a grown player-hull leaf, with its m220_plane_id() once looked up. */
typedef struct grown_plane {
    bk_dplane pl;
    int32_t id; /* INT32_MIN: not looked up yet */
    uint8_t flip;
} grown_plane;

/* A range of planes or region faces with its bounds (for faces, the store
 * that holds them). */
typedef struct grown_region {
    size_t first, count;
    bk_dvec lo, hi;
    const bk_region *store;
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
    bk_dvec n;             /* the map plane's normal and distance turned to face the way the face */
    double d;              /* does (negated for side 1): compared with sides on no map plane */
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

    /* Faces that a side facing along one of the six axes (+x -x +y -y +z -z)
     * can lie on, in face order: axis_faces[k][0 .. naxis_faces[k]); built
     * on first use (axis_faces_built). */
    uint32_t *axis_faces[6];
    size_t naxis_faces[6];
    bool axis_faces_built;
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

    /* Pieces of the model being built; their faces and points: in `store`,
     * but those of clip pieces in `clip_store` (m220_piece_store). */
    piece *pieces;
    size_t npieces, cap_pieces;
    bk_region store, clip_store;
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
    /* Clip recovery (map220_clip.c): the open player-hull leaves grown by the
     * player box, as ranges of `grown` planes, and the candidate regions (in
     * the store of the batch that found them: cand_store is a batch's own). */
    uint8_t *clip_visited; /* per clipnode */
    grown_plane *grown;
    size_t ngrown, cap_grown;
    grown_region *open_leaves, *clip_cands;
    size_t nopen_leaves, cap_open_leaves, nclip_cands, cap_clip_cands;
    bk_region cand_store;
    uint64_t clip_work_limit;
    /* The player-hull walk's first levels: the regions (in frontier_store)
     * where its subtrees and leaves start, in the order one walk reaches
     * them; each is walked on its own. */
    struct clip_subtree *subtrees;
    size_t nsubtrees, cap_subtrees;
    bk_region frontier_store;
    /* Solid player-hull leaves, each walked in hull 0 as a job of its own
     * (the regions in the store of the batch that found them: solid_store
     * is a batch's own), and the work when the walk reached its last leaf. */
    struct solid_leaf *solid_leaves;
    size_t nsolid_leaves, cap_solid_leaves;
    bk_region solid_store;
    uint64_t clip_last_stamp;
    const bspkit_model *clip_model;
    /* The grown open leaves by cell of a grid over their bounds: cell i holds
     * leaf_grid[grid_start[i] .. grid_start[i + 1]), in increasing order. */
    uint32_t *grid_start, *leaf_grid;
    int grid_dim[3];
    bk_dvec grid_lo, grid_cell;
    unsigned threads; /* for the clip jobs: 0 = one per online CPU */
    bool clip_full;       /* the candidates outgrew the store limit: no more are taken */
    bool clip_incomplete; /* the walk stopped at the work limit: no clip at all */

    size_t out_limit;
} dctx;

/* ---- shared between the stages ---- */

/* One of the trees a model's box is split down: hull 0 (NODES, children
 * < 0 are leaves) or a clip hull (CLIPNODES, children < 0 are contents). */
typedef struct tree_walk {
    int lump;         /* BSPKIT_Q_NODES or BSPKIT_Q_CLIPNODES */
    size_t count;     /* records in that lump */
    uint32_t record;  /* record size, for error offsets */
    uint8_t *visited; /* per record: each is walked once over all models (NULL: no such rule) */
    /* Called for every region reaching a child < 0. */
    bspkit_result (*leaf)(dctx *c, const bspkit_model *m, const bk_region *r, int32_t child);
    /* With `deep`: a region reaching node `child` at depth deep_depth goes to it instead of further down. */
    bspkit_result (*deep)(dctx *c, const bk_region *r, int32_t child, uint32_t depth);
    uint32_t deep_depth;
    uint32_t start_depth; /* the depth of the walk's first region */
} tree_walk;

bspkit_result m220_add_piece(dctx *c, const bk_region *r, const bspkit_leaf *leaf);
/* The store holding piece p's faces. */
static inline const bk_region *m220_piece_store(const dctx *c, const piece *p)
{
    return p->in_clip_store ? &c->clip_store : &c->store;
}
bool m220_cover_side_faces(dctx *c);
const char *m220_default_name(const dctx *c, int32_t contents);
int64_t m220_face_miptex(const dctx *c, size_t face);
bool m220_is_liquid(int32_t contents);
int64_t m220_largest_candidate(const dctx *c);
bspkit_result m220_limit_fail(dctx *c, int lump, const char *what);
bspkit_result m220_load_canonical_planes(dctx *c);
bspkit_result m220_load_faces(dctx *c);
/* Called on a merge group's thread once its pieces [first, end) are merged,
 * with the group's context (group 1 keeps its pieces in `clip_store`): it
 * may read and write that context but no other group's pieces. */
typedef bspkit_result (*m220_group_fn)(void *ctx, dctx *gc, const bspkit_model *m, size_t group, size_t first,
                                       size_t end);
/* Merges the model's pieces; those from `split` on are clip pieces, merged
 * as a second group beside the first (see map220_merge.c). When there are
 * two groups and `done` is not NULL, it runs for each. */
bspkit_result m220_merge_pieces(dctx *c, const bspkit_model *m, size_t split, m220_group_fn done, void *done_ctx);
const char *m220_miptex_name(const dctx *c, int64_t tex);
void m220_model_box(dctx *c, const bspkit_model *m, bk_dvec *lo, bk_dvec *hi);
bool m220_name_fits(const char *name, int32_t contents);
bspkit_result m220_nomem(dctx *c);
int32_t m220_plane_id(dctx *c, const bk_dplane *pl, uint8_t *flip);
void m220_points_bounds(const bk_dvec *p, size_t n, bk_dvec *lo, bk_dvec *hi);
void m220_region_bounds(const bk_region *r, bk_dvec *lo, bk_dvec *hi);
bool m220_region_copy(bk_region *dst, const bk_region *src);
bool m220_side_candidates(dctx *c, const bspkit_model *m, const bk_rface *f, const bk_dvec *pts);
int64_t m220_side_face(dctx *c, const bspkit_model *m, const bk_rface *f, const bk_dvec *pts, bool *nomem_out);
bool m220_store_piece(dctx *c, const bk_region *r, piece *p);
int64_t m220_stored_side_face(dctx *c, const bspkit_model *m, size_t index, bool *nomem);
bspkit_result m220_walk_box(dctx *c, const bspkit_model *m, const tree_walk *w, int32_t root, bk_dvec lo,
                              bk_dvec hi);
/* m220_walk_model(), then the clip pieces of model `mi` (the world) from
 * its smallest player hull (map220_clip.c), the clip's first steps on
 * another thread while the model is walked; *split is where the clip
 * pieces start. */
bspkit_result m220_walk_model_and_clip(dctx *c, size_t mi, size_t *split);
/* `dst` as a copy of `src` for work on another thread: the same tables and
 * buffers, with its own error and its own region scratch, its work counted
 * from src's. The caller says which buffers the copy may grow. */
void m220_context_copy(dctx *dst, const dctx *src, bspkit_error *err);
/* The half-size of the square a cut starts its new face from, for a model box lo..hi. */
double m220_model_extent(bk_dvec lo, bk_dvec hi);
bspkit_result m220_walk_model(dctx *c, size_t mi);
bspkit_result m220_walk_tree(dctx *c, const bspkit_model *m, const tree_walk *w, int32_t root,
                               const bk_region *start);
bool m220_wanted(int32_t contents);

#endif
