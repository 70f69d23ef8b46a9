/* Spatial queries: point -> leaf, point contents per hull, leaf visibility
 * (PVS, stored or computed PAS) and whole-map vis figures. Every index taken
 * from the file is checked on the way and every walk is bounded by the size
 * of the array it walks, so hostile trees end in an error, never a loop. */
#include "bspkit/query.h"
#include "bspkit/quake3.h"
#include "core/family.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Contents names                                                            */
/* ------------------------------------------------------------------------ */

static const char *const QUAKE_CONTENTS[] = {
    "EMPTY",      "SOLID",       "WATER",        "SLIME",     "LAVA",         "SKY",
    "ORIGIN",     "CLIP",        "CURRENT_0",    "CURRENT_90", "CURRENT_180", "CURRENT_270",
    "CURRENT_UP", "CURRENT_DOWN", "TRANSLUCENT", "LADDER",
};

const char *bspkit_quake_contents_name(int32_t contents)
{
    int64_t i = -(int64_t)contents - 1;
    return i >= 0 && i < (int64_t)(sizeof QUAKE_CONTENTS / sizeof QUAKE_CONTENTS[0]) ? QUAKE_CONTENTS[i] : NULL;
}

/* Bit names from Source's bspflags.h; 9 and 10 are unused there. */
static const char *const SOURCE_CONTENTS[32] = {
    "SOLID",        "WINDOW",      "AUX",        "GRATE",        "SLIME",      "WATER",
    "BLOCKLOS",     "OPAQUE",      "TESTFOGVOLUME", NULL,        NULL,         "TEAM1",
    "TEAM2",        "IGNORE_NODRAW_OPAQUE", "MOVEABLE", "AREAPORTAL", "PLAYERCLIP", "MONSTERCLIP",
    "CURRENT_0",    "CURRENT_90",  "CURRENT_180", "CURRENT_270", "CURRENT_UP", "CURRENT_DOWN",
    "ORIGIN",       "MONSTER",     "DEBRIS",     "DETAIL",       "TRANSLUCENT", "LADDER",
    "HITBOX",       NULL,
};

/* Bit names from Quake 2's qfiles.h (bits 7-14 are unused there). */
static const char *const QUAKE2_CONTENTS[32] = {
    "SOLID",      "WINDOW",     "AUX",         "LAVA",        "SLIME",      "WATER",       "MIST",
    NULL,         NULL,         NULL,          NULL,          NULL,         NULL,          NULL,
    NULL,         "AREAPORTAL", "PLAYERCLIP",  "MONSTERCLIP", "CURRENT_0",  "CURRENT_90",  "CURRENT_180",
    "CURRENT_270", "CURRENT_UP", "CURRENT_DOWN", "ORIGIN",     "MONSTER",    "DEADMONSTER", "DETAIL",
    "TRANSLUCENT", "LADDER",    NULL,          NULL,
};

/* Bit names from Quake 3's surfaceflags.h (bits 1, 2 and 10-14 are unused there). */
static const char *const QUAKE3_CONTENTS[32] = {
    "SOLID",       NULL,          NULL,        "LAVA",       "SLIME",         "WATER",      "FOG",
    "NOTTEAM1",    "NOTTEAM2",    "NOBOTCLIP", NULL,         NULL,            NULL,         NULL,
    NULL,          "AREAPORTAL",  "PLAYERCLIP", "MONSTERCLIP", "TELEPORTER",  "JUMPPAD",    "CLUSTERPORTAL",
    "DONOTENTER",  "BOTCLIP",     "MOVER",     "ORIGIN",     "BODY",          "CORPSE",     "DETAIL",
    "STRUCTURAL",  "TRANSLUCENT", "TRIGGER",   "NODROP",
};

const char *bspkit_source_contents_bit_name(unsigned bit)
{
    return bit < 32 ? SOURCE_CONTENTS[bit] : NULL;
}

/* Appends to buf like snprintf at position `len`, returning the new length
 * the full text needs. */
static size_t append(char *buf, size_t size, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *at = len < size ? buf + len : NULL;
    int n = vsnprintf(at, at ? size - len : 0, fmt, ap);
    va_end(ap);
    return n > 0 ? len + (size_t)n : len;
}

size_t bspkit_contents_describe(bspkit_family family, int32_t contents, char *buf, size_t size)
{
    if (buf && size)
        buf[0] = '\0';
    else
        buf = NULL, size = 0;
    const char *const *bit_names = family == BSPKIT_FAMILY_QUAKE2   ? QUAKE2_CONTENTS
                                   : family == BSPKIT_FAMILY_QUAKE3 ? QUAKE3_CONTENTS
                                                                    : SOURCE_CONTENTS;
    if (family != BSPKIT_FAMILY_SOURCE && family != BSPKIT_FAMILY_QUAKE2 && family != BSPKIT_FAMILY_QUAKE3) {
        const char *name = bspkit_quake_contents_name(contents);
        return name ? append(buf, size, 0, "%s", name) : append(buf, size, 0, "UNKNOWN(%d)", (int)contents);
    }
    if (contents == 0)
        return append(buf, size, 0, "EMPTY");
    size_t len = 0;
    uint32_t bits = (uint32_t)contents;
    for (unsigned bit = 0; bit < 32; bit++) {
        if (!(bits & (1u << bit)))
            continue;
        const char *sep = len ? "|" : "";
        if (bit_names[bit])
            len = append(buf, size, len, "%s%s", sep, bit_names[bit]);
        else
            len = append(buf, size, len, "%s0x%x", sep, 1u << bit);
    }
    return len;
}

/* ------------------------------------------------------------------------ */
/* Tree walks                                                                */
/* ------------------------------------------------------------------------ */

/* Fails naming record `record` of `lump` (its file offset when stored plainly). */
static bspkit_result bad_record(bspkit_map *map, bspkit_error *err, int lump, uint64_t record, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static bspkit_result bad_record(bspkit_map *map, bspkit_error *err, int lump, uint64_t record, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    uint64_t ofs = record * map->lumps[lump].layout.record_size;
    return bk_fail(err, BSPKIT_ERR_INDEX, lump, bk_file_offset(map, lump, ofs), (int64_t)ofs, "%s: %s",
                   bk_lump_name(map, lump), msg);
}

/* Signed distance of `p` from the plane, with the engines' axial shortcut. */
static double plane_dist(const bspkit_plane *pl, bspkit_vec3 p)
{
    switch (pl->type) {
    case 0: return (double)p.x - pl->dist;
    case 1: return (double)p.y - pl->dist;
    case 2: return (double)p.z - pl->dist;
    default:
        return (double)pl->normal.x * p.x + (double)pl->normal.y * p.y + (double)pl->normal.z * p.z - pl->dist;
    }
}

/* Full dot product, for brush sides: vbsp stores the flipped twin of an
 * axial plane with the same axial type, so the shortcut would be wrong. */
static double plane_dist_full(const bspkit_plane *pl, bspkit_vec3 p)
{
    return (double)pl->normal.x * p.x + (double)pl->normal.y * p.y + (double)pl->normal.z * p.z - pl->dist;
}

/* Quake BSP29 and GoldSrc store children as int16. Maps with more than 32767
 * nodes use them as uint16, as QuakeSpasm reads them: a value below the node
 * count is a node. Such a value is negative once sign-extended. */
static int32_t widen_child(int32_t child, size_t count, bool narrow)
{
    if (narrow && child < 0 && (size_t)(uint16_t)child < count)
        return (int32_t)(uint16_t)child;
    return child;
}

static bool narrow_children(const bspkit_map *map, int lump)
{
    uint32_t rs = map->lumps[lump].layout.record_size;
    return (map->format.family == BSPKIT_FAMILY_QUAKE || map->format.family == BSPKIT_FAMILY_GOLDSRC) &&
           (rs == 24 || rs == 8);
}

static bspkit_result get_model(bspkit_map *map, int model, const bspkit_model **out, bspkit_error *err)
{
    const bspkit_model *models;
    size_t n;
    bspkit_result r = bspkit_get_models(map, &models, &n, err);
    if (r != BSPKIT_OK)
        return r;
    if (model < 0 || (size_t)model >= n)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, map->dec_lump[BK_REC_MODELS], -1, -1, "model %d does not exist (the map has %zu)",
                       model, n);
    *out = &models[model];
    return BSPKIT_OK;
}

/* Walks a tree of {plane, children[2]} records from `head` until a child is
 * negative, which is returned in *end. `record_at` gives the plane and
 * children of record i. At most `count` records are visited: a longer walk
 * means a cycle. */
typedef struct walk_tree {
    int lump;
    size_t count;
    bool narrow;
    const bspkit_node *nodes;         /* one of nodes/clipnodes is set */
    const bspkit_clipnode *clipnodes;
} walk_tree;

static bspkit_result walk(bspkit_map *map, const walk_tree *t, int32_t head, int model, bspkit_vec3 p, int32_t *end,
                          bspkit_error *err)
{
    const bspkit_plane *planes;
    size_t nplanes;
    bspkit_result r = bspkit_get_planes(map, &planes, &nplanes, err);
    if (r != BSPKIT_OK)
        return r;
    int32_t num = head; /* stored as int32 in every layout */
    int64_t from = -1; /* record whose child is `num`; -1: the model's head node */
    for (size_t steps = 0; num >= 0; steps++) {
        if ((size_t)num >= t->count) {
            if (from < 0)
                return bk_fail(err, BSPKIT_ERR_INDEX, map->dec_lump[BK_REC_MODELS], -1, -1,
                               "MODELS: model %d head node %d is outside %s (%zu records)", model, (int)num,
                               bk_lump_name(map, t->lump), t->count);
            return bad_record(map, err, t->lump, (uint64_t)from, "record %lld has child %d, outside %zu records",
                              (long long)from, (int)num, t->count);
        }
        if (steps >= t->count)
            return bad_record(map, err, t->lump, (uint64_t)num,
                              "walk from model %d visits more than %zu records: the tree has a cycle", model,
                              t->count);
        int32_t plane = t->nodes ? t->nodes[num].plane : t->clipnodes[num].plane;
        const int32_t *children = t->nodes ? t->nodes[num].children : t->clipnodes[num].children;
        if (plane < 0 || (size_t)plane >= nplanes)
            return bad_record(map, err, t->lump, (uint64_t)num, "record %d names plane %d of %zu", (int)num,
                              (int)plane, nplanes);
        from = num;
        num = widen_child(children[plane_dist(&planes[plane], p) < 0 ? 1 : 0], t->count, t->narrow);
    }
    *end = num;
    return BSPKIT_OK;
}

bspkit_result bspkit_point_leaf(bspkit_map *map, int model, bspkit_vec3 point, uint32_t *leaf, bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !leaf)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_point_leaf: NULL argument");
    const bspkit_model *m = NULL;
    const bspkit_leaf *leafs;
    size_t nleafs;
    int nodes_lump = map->dec_lump[BK_REC_NODES];
    walk_tree t = {nodes_lump, 0, nodes_lump >= 0 && narrow_children(map, nodes_lump), NULL, NULL};
    bspkit_result r;
    if ((r = get_model(map, model, &m, err)) != BSPKIT_OK ||
        (r = bspkit_get_nodes(map, &t.nodes, &t.count, err)) != BSPKIT_OK ||
        (r = bspkit_get_leafs(map, &leafs, &nleafs, err)) != BSPKIT_OK)
        return r;
    int32_t head = m->headnode[0];
    if (map->format.family == BSPKIT_FAMILY_QUAKE3) {
        /* The world's tree starts at node 0 (a map without nodes is leaf 0);
         * brush models have no tree of their own. */
        if (model != 0)
            return bk_fail(err, BSPKIT_ERR_NOT_FOUND, map->dec_lump[BK_REC_MODELS], -1, -1,
                           "MODELS: model %d of a Quake 3 map has no tree, only brushes", model);
        head = t.count ? 0 : -1;
    }
    int32_t end;
    if ((r = walk(map, &t, head, model, point, &end, err)) != BSPKIT_OK)
        return r;
    int64_t index = -(int64_t)end - 1;
    if ((uint64_t)index >= nleafs)
        return bk_fail(err, BSPKIT_ERR_INDEX, nodes_lump, -1, -1,
                       "NODES: walk from model %d ends at leaf %lld, outside %zu leafs", model, (long long)index,
                       nleafs);
    *leaf = (uint32_t)index;
    return BSPKIT_OK;
}

/* The brushes a point query tests, decoded once per call. Quake 3 brushes
 * take their contents from their shader. */
typedef struct brush_set {
    const bspkit_brush *brushes;
    const bspkit_brushside *sides;
    const bspkit_plane *planes;
    const bspkit_shader *shaders; /* Quake 3; NULL elsewhere */
    size_t nbrushes, nsides, nplanes, nshaders;
} brush_set;

static bspkit_result load_brushes(bspkit_map *map, brush_set *b, bspkit_error *err)
{
    memset(b, 0, sizeof *b);
    bspkit_result r;
    if ((r = bspkit_get_brushes(map, &b->brushes, &b->nbrushes, err)) != BSPKIT_OK ||
        (r = bspkit_get_brushsides(map, &b->sides, &b->nsides, err)) != BSPKIT_OK ||
        (r = bspkit_get_planes(map, &b->planes, &b->nplanes, err)) != BSPKIT_OK)
        return r;
    if (map->format.family == BSPKIT_FAMILY_QUAKE3)
        return bspkit_get_shaders(map, &b->shaders, &b->nshaders, err);
    return BSPKIT_OK;
}

/* ORs brush `bi`'s contents into *acc when it holds the point. */
static bspkit_result brush_holds(bspkit_map *map, const brush_set *b, uint32_t bi, bspkit_vec3 p, uint32_t *acc,
                                 bool *found, bspkit_error *err)
{
    const bspkit_brush *br = &b->brushes[bi];
    if (br->first_side < 0 || br->num_sides < 0 || (uint64_t)br->first_side + (uint64_t)br->num_sides > b->nsides)
        return bad_record(map, err, map->dec_lump[BK_REC_BRUSHES], bi, "brush %u sides %d+%d outside %zu brush sides",
                          bi, (int)br->first_side, (int)br->num_sides, b->nsides);
    if (br->num_sides == 0)
        return BSPKIT_OK; /* bounds nothing */
    for (int32_t s = 0; s < br->num_sides; s++) {
        uint32_t si = (uint32_t)(br->first_side + s);
        uint32_t pi = b->sides[si].plane;
        if (pi >= b->nplanes)
            return bad_record(map, err, map->dec_lump[BK_REC_BRUSHSIDES], si, "side %u names plane %u of %zu", si,
                              pi, b->nplanes);
        if (plane_dist_full(&b->planes[pi], p) > 0)
            return BSPKIT_OK;
    }
    int32_t contents = br->contents;
    if (b->shaders)
        contents = br->shader >= 0 && (size_t)br->shader < b->nshaders ? b->shaders[br->shader].contents : 0;
    *acc |= (uint32_t)contents;
    *found = true;
    return BSPKIT_OK;
}

/* Source, Quake 3: OR of the contents of the leaf's brushes that hold the
 * point (the leaf's own contents when none does). */
static bspkit_result brush_contents(bspkit_map *map, uint32_t leaf_index, bspkit_vec3 p, int32_t *contents,
                                    bspkit_error *err)
{
    const bspkit_leaf *leafs;
    const uint32_t *lb;
    size_t nleafs, nlb;
    brush_set b;
    bspkit_result r;
    if ((r = bspkit_get_leafs(map, &leafs, &nleafs, err)) != BSPKIT_OK ||
        (r = bspkit_get_leaf_brushes(map, &lb, &nlb, err)) != BSPKIT_OK || (r = load_brushes(map, &b, err)) != BSPKIT_OK)
        return r;
    const bspkit_leaf *L = &leafs[leaf_index];
    if ((uint64_t)L->first_leaf_brush + L->num_leaf_brushes > nlb)
        return bad_record(map, err, map->dec_lump[BK_REC_LEAFS], leaf_index,
                          "leaf %u brushes %u+%u outside %zu leaf brushes", leaf_index, L->first_leaf_brush,
                          L->num_leaf_brushes, nlb);
    uint32_t acc = 0;
    bool found = false;
    for (uint32_t i = 0; i < L->num_leaf_brushes; i++) {
        uint32_t bi = lb[L->first_leaf_brush + i];
        if (bi >= b.nbrushes)
            return bad_record(map, err, map->dec_lump[BK_REC_LEAF_BRUSHES], L->first_leaf_brush + i,
                              "entry %u names brush %u of %zu", L->first_leaf_brush + i, bi, b.nbrushes);
        if ((r = brush_holds(map, &b, bi, p, &acc, &found, err)) != BSPKIT_OK)
            return r;
    }
    *contents = found ? (int32_t)acc : L->contents;
    return BSPKIT_OK;
}

/* Quake 3 brush models: OR of the contents of the model's brushes that hold the point. */
static bspkit_result model_brush_contents(bspkit_map *map, int model, bspkit_vec3 p, int32_t *contents,
                                          bspkit_error *err)
{
    const bspkit_model *m = NULL;
    brush_set b;
    bspkit_result r;
    if ((r = get_model(map, model, &m, err)) != BSPKIT_OK || (r = load_brushes(map, &b, err)) != BSPKIT_OK)
        return r;
    if (m->first_brush < 0 || m->num_brushes < 0 || (uint64_t)m->first_brush + (uint64_t)m->num_brushes > b.nbrushes)
        return bad_record(map, err, map->dec_lump[BK_REC_MODELS], (uint64_t)model,
                          "model %d brushes %d+%d outside %zu brushes", model, (int)m->first_brush,
                          (int)m->num_brushes, b.nbrushes);
    uint32_t acc = 0;
    bool found = false;
    for (int32_t i = 0; i < m->num_brushes; i++)
        if ((r = brush_holds(map, &b, (uint32_t)(m->first_brush + i), p, &acc, &found, err)) != BSPKIT_OK)
            return r;
    *contents = (int32_t)acc;
    return BSPKIT_OK;
}

bspkit_result bspkit_point_contents_model(bspkit_map *map, int model, bspkit_vec3 point, int hull, int32_t *contents,
                                          bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !contents)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_point_contents: NULL argument");
    bspkit_family family = map->format.family;
    bool quake3 = family == BSPKIT_FAMILY_QUAKE3;
    bool brush_collision = family == BSPKIT_FAMILY_SOURCE || family == BSPKIT_FAMILY_QUAKE2 || quake3;
    int max_hull = brush_collision ? 0 : family == BSPKIT_FAMILY_GOLDSRC ? 3 : 2;
    if (hull < 0 || hull > max_hull) {
        if (brush_collision)
            return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1,
                           "hull %d: %s maps have only hull 0 (collision uses brushes, not clip hulls)", hull,
                           family == BSPKIT_FAMILY_SOURCE ? "Source" : quake3 ? "Quake 3" : "Quake 2");
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "hull %d: %s maps have hulls 0-%d", hull,
                       map->format.family == BSPKIT_FAMILY_GOLDSRC ? "GoldSrc" : "Quake", max_hull);
    }
    bspkit_result r;
    if (hull == 0) {
        if (quake3 && model != 0)
            return model_brush_contents(map, model, point, contents, err);
        uint32_t leaf;
        if ((r = bspkit_point_leaf(map, model, point, &leaf, err)) != BSPKIT_OK)
            return r;
        if (family == BSPKIT_FAMILY_SOURCE || quake3)
            return brush_contents(map, leaf, point, contents, err);
        const bspkit_leaf *leafs;
        size_t nleafs;
        if ((r = bspkit_get_leafs(map, &leafs, &nleafs, err)) != BSPKIT_OK)
            return r;
        *contents = leafs[leaf].contents;
        return BSPKIT_OK;
    }
    const bspkit_model *m = NULL;
    walk_tree t = {BSPKIT_Q_CLIPNODES, 0, narrow_children(map, BSPKIT_Q_CLIPNODES), NULL, NULL};
    if ((r = get_model(map, model, &m, err)) != BSPKIT_OK ||
        (r = bspkit_get_clipnodes(map, &t.clipnodes, &t.count, err)) != BSPKIT_OK)
        return r;
    if (t.count == 0 && m->headnode[hull] >= 0)
        return bk_fail(err, BSPKIT_ERR_NOT_FOUND, BSPKIT_Q_CLIPNODES, -1, -1,
                       "CLIPNODES: the map has no clip hulls (hull %d requested)", hull);
    int32_t end;
    if ((r = walk(map, &t, m->headnode[hull], model, point, &end, err)) != BSPKIT_OK)
        return r;
    *contents = end;
    return BSPKIT_OK;
}

bspkit_result bspkit_point_contents(bspkit_map *map, bspkit_vec3 point, int hull, int32_t *contents,
                                    bspkit_error *err)
{
    return bspkit_point_contents_model(map, 0, point, hull, contents, err);
}

/* ------------------------------------------------------------------------ */
/* Visibility                                                                */
/* ------------------------------------------------------------------------ */

static uint32_t popcount8(uint8_t b)
{
    uint32_t n = 0;
    for (; b; b &= (uint8_t)(b - 1))
        n++;
    return n;
}

/* Set bits among the first `rows` bits of `row`. */
static uint32_t count_bits(const uint8_t *row, uint32_t rows)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < rows / 8; i++)
        n += popcount8(row[i]);
    if (rows % 8)
        n += popcount8((uint8_t)(row[rows / 8] & ((1u << (rows % 8)) - 1)));
    return n;
}

static void clear_tail(uint8_t *row, uint32_t rows)
{
    if (rows % 8)
        row[rows / 8] &= (uint8_t)((1u << (rows % 8)) - 1);
}

bspkit_result bspkit_leaf_cluster(bspkit_map *map, uint32_t leaf, int32_t *cluster, bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !cluster)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_leaf_cluster: NULL argument");
    const bspkit_leaf *leafs;
    size_t nleafs;
    uint32_t rows, row_bytes;
    bspkit_result r;
    if ((r = bspkit_get_leafs(map, &leafs, &nleafs, err)) != BSPKIT_OK ||
        (r = bspkit_vis_dimensions(map, &rows, &row_bytes, err)) != BSPKIT_OK)
        return r;
    if (leaf >= nleafs)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, map->dec_lump[BK_REC_LEAFS], -1, -1, "leaf %u does not exist (the map has %zu)",
                       leaf, nleafs);
    if (bk_map_cluster_vis(map)) {
        int32_t c = rows ? leafs[leaf].cluster : -1; /* leaked maps keep clusters but no vis data */
        if (c >= 0 && (uint32_t)c >= rows)
            return bad_record(map, err, map->dec_lump[BK_REC_LEAFS], leaf, "leaf %u has cluster %d of %u", leaf, (int)c, rows);
        *cluster = c < 0 ? -1 : c;
    } else {
        *cluster = leaf >= 1 && leaf <= rows ? (int32_t)(leaf - 1) : -1;
    }
    return BSPKIT_OK;
}

/* PVS or stored PAS row of cluster `c` (Quake: leaf c + 1). */
static bspkit_result cluster_row(bspkit_map *map, uint32_t c, bspkit_vis_kind kind, uint8_t *out, size_t size,
                                 bspkit_error *err)
{
    return bspkit_vis_row(map, bk_map_cluster_vis(map) ? c : c + 1, kind, out, size, err);
}

bspkit_result bspkit_leaf_vis_row(bspkit_map *map, uint32_t leaf, bspkit_vis_kind kind, uint8_t *out, size_t out_size,
                                  bspkit_error *err)
{
    int32_t cluster;
    uint32_t rows, row_bytes;
    bspkit_result r;
    if ((r = bspkit_leaf_cluster(map, leaf, &cluster, err)) != BSPKIT_OK ||
        (r = bspkit_vis_dimensions(map, &rows, &row_bytes, err)) != BSPKIT_OK)
        return r;
    if ((!out && row_bytes) || out_size < row_bytes || (kind != BSPKIT_VIS_PVS && kind != BSPKIT_VIS_PAS))
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_leaf_vis_row: output of %zu bytes, need %u",
                       out_size, row_bytes);
    if (row_bytes)
        memset(out, 0, row_bytes);
    if (cluster < 0)
        return BSPKIT_OK;
    if (kind == BSPKIT_VIS_PVS || (bk_map_cluster_vis(map) && !bk_map_bitset_vis(map))) {
        if ((r = cluster_row(map, (uint32_t)cluster, kind, out, out_size, err)) != BSPKIT_OK)
            return r;
        clear_tail(out, rows);
        return BSPKIT_OK;
    }
    /* Quake/GoldSrc and Quake 3 PAS: the PVS rows of everything this leaf sees, ORed. */
    uint8_t *pvs = malloc(2 * (size_t)row_bytes);
    if (!pvs)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    uint8_t *other = pvs + row_bytes;
    r = cluster_row(map, (uint32_t)cluster, BSPKIT_VIS_PVS, pvs, row_bytes, err);
    if (r == BSPKIT_OK) {
        clear_tail(pvs, rows);
        memcpy(out, pvs, row_bytes);
    }
    for (uint32_t c = 0; r == BSPKIT_OK && c < rows; c++) {
        if (!(pvs[c / 8] & (1u << (c % 8))))
            continue;
        if ((r = cluster_row(map, c, BSPKIT_VIS_PVS, other, row_bytes, err)) != BSPKIT_OK)
            break;
        for (uint32_t i = 0; i < row_bytes; i++)
            out[i] |= other[i];
    }
    free(pvs);
    if (r == BSPKIT_OK)
        clear_tail(out, rows);
    return r;
}

/* The leaf's row, allocated; *rows_out gets the row count. */
static bspkit_result leaf_row_alloc(bspkit_map *map, uint32_t leaf, bspkit_vis_kind kind, uint8_t **row,
                                    uint32_t *rows_out, bspkit_error *err)
{
    uint32_t rows, row_bytes;
    bspkit_result r = bspkit_vis_dimensions(map, &rows, &row_bytes, err);
    if (r != BSPKIT_OK)
        return r;
    *row = malloc(row_bytes ? row_bytes : 1);
    if (!*row)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    if ((r = bspkit_leaf_vis_row(map, leaf, kind, *row, row_bytes, err)) != BSPKIT_OK) {
        free(*row);
        *row = NULL;
        return r;
    }
    *rows_out = rows;
    return BSPKIT_OK;
}

bspkit_result bspkit_leaf_visible_clusters(bspkit_map *map, uint32_t leaf, bspkit_vis_kind kind, uint32_t *count,
                                           bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !count)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_leaf_visible_clusters: NULL argument");
    uint8_t *row = NULL;
    uint32_t rows = 0;
    bspkit_result r = leaf_row_alloc(map, leaf, kind, &row, &rows, err);
    if (r != BSPKIT_OK)
        return r;
    *count = count_bits(row, rows);
    free(row);
    return BSPKIT_OK;
}

bspkit_result bspkit_leaf_visible_leafs(bspkit_map *map, uint32_t leaf, bspkit_vis_kind kind, uint32_t *count,
                                        bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !count)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_leaf_visible_leafs: NULL argument");
    if (!bk_map_cluster_vis(map))
        return bspkit_leaf_visible_clusters(map, leaf, kind, count, err);
    const bspkit_leaf *leafs;
    size_t nleafs;
    uint8_t *row = NULL;
    uint32_t rows = 0;
    bspkit_result r;
    if ((r = bspkit_get_leafs(map, &leafs, &nleafs, err)) != BSPKIT_OK ||
        (r = leaf_row_alloc(map, leaf, kind, &row, &rows, err)) != BSPKIT_OK)
        return r;
    uint32_t n = 0;
    for (size_t i = 0; i < nleafs; i++) {
        int32_t c = leafs[i].cluster;
        if (c >= 0 && (uint32_t)c < rows && (row[c / 8] & (1u << (c % 8))))
            n++;
    }
    free(row);
    *count = n;
    return BSPKIT_OK;
}

bspkit_result bspkit_vis_stats(bspkit_map *map, struct bspkit_vis_stats *out, bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_vis_stats: NULL argument");
    memset(out, 0, sizeof *out);
    uint32_t rows, row_bytes;
    bspkit_result r = bspkit_vis_dimensions(map, &rows, &row_bytes, err);
    if (r != BSPKIT_OK || rows == 0)
        return r;
    const uint8_t *data;
    size_t size;
    if ((r = bk_lump_bytes(map, bk_map_lump_for(map, BK_ROLE_VISIBILITY), &data, &size, err)) != BSPKIT_OK)
        return r;
    uint8_t *row = malloc(row_bytes);
    if (!row)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    double sum = 0;
    uint32_t lo = UINT32_MAX, hi = 0;
    uint64_t pairs = 0;
    for (uint32_t c = 0; c < rows; c++) {
        if ((r = cluster_row(map, c, BSPKIT_VIS_PVS, row, row_bytes, err)) != BSPKIT_OK)
            break;
        uint32_t n = count_bits(row, rows);
        pairs += n;
        sum += 100.0 * n / rows;
        lo = n < lo ? n : lo;
        hi = n > hi ? n : hi;
    }
    free(row);
    if (r != BSPKIT_OK)
        return r;
    out->rows = rows;
    out->row_bytes = row_bytes;
    out->average_visible = sum / rows;
    out->min_visible = lo;
    out->max_visible = hi;
    out->visible_pairs = pairs;
    out->compressed_size = size;
    out->uncompressed_size = bk_map_bitset_vis(map)    ? 8 + (uint64_t)rows * row_bytes
                             : bk_map_cluster_vis(map) ? 4 + 8ull * rows + 2ull * rows * row_bytes
                                                       : (uint64_t)rows * row_bytes;
    return BSPKIT_OK;
}
