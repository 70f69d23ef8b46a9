/* Semantic validation: one pass over the decoded native structs.
 *
 * Everything here goes through the public API on purpose: the native
 * structs are the same for Quake, GoldSrc and Source, so one set of
 * cross-index checks covers every family, and whatever the accessors accept
 * is exactly what gets checked. Opening a map only checks lump ranges and
 * record sizes; this file checks that the records point at each other
 * correctly. */
#include "bspkit/bspkit.h"
#include "bspkit/displacement.h"
#include "bspkit/lighting.h"
#include "bspkit/props.h"
#include "bspkit/source_lumps.h"
#include "core/surfedge.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STORED_PROBLEMS 1000
/* Decoding every vis row is linear in the lump; past this many rows the
 * check would dominate validation time, so only the first rows are tried. */
#define MAX_VIS_ROWS 65536

/* Texinfo flags that decide a face's lightmap size. */
#define Q_TEX_SPECIAL 0x1   /* Quake/GoldSrc sky and liquids: no lightmap */
#define S_SURF_NOLIGHT 0x400
#define S_SURF_BUMPLIGHT 0x800

/* Quake/GoldSrc clipnode children below 0 are contents, CONTENTS_EMPTY (-1)
 * down to CONTENTS_TRANSLUCENT (-15). */
#define Q_CONTENTS_MIN (-15)

/* A decoded array, or ok=false when its accessor failed (already reported). */
typedef struct varr {
    const void *items;
    size_t n;
    bool ok;
} varr;

typedef struct vctx {
    bspkit_map *map;
    bspkit_report *rep;
    size_t cap;
    bool nomem;
    bool source;
    const bspkit_format *fmt;

    bspkit_lump_info info[BSPKIT_S_LUMP_COUNT];
    bool info_ok[BSPKIT_S_LUMP_COUNT];

    int lump_leaffaces;

    varr planes, vertexes, edges, surfedges, faces, orig_faces, hdr_faces, nodes, leafs, models,
        texinfo, leaf_faces, leaf_brushes, clipnodes, brushes, brushsides, texdata, string_table,
        areas, areaportals, miptex;
    /* The face array nodes, leafs and models index: FACES, or FACES_HDR in
     * HDR-only maps (Xbox 360), whose FACES lump is empty. */
    const varr *tree_faces;

    /* Record counts that come from the directory, not from a decoder. */
    bool have_dispinfo;
    uint64_t dispinfo_n;
    bool have_clipverts;
    uint64_t clipverts_n;

    bool have_vis;
    uint32_t vis_rows, vis_row_bytes;
} vctx;

/* ------------------------------------------------------------------------ */
/* Problem list                                                              */
/* ------------------------------------------------------------------------ */

#if defined(__GNUC__)
__attribute__((format(printf, 7, 8)))
#endif
static void add_problem(vctx *c, bspkit_severity sev, bspkit_result code, int lump, int64_t record,
                        int64_t offset, const char *fmt, ...)
{
    bspkit_report *rep = c->rep;
    if (sev == BSPKIT_SEVERITY_ERROR)
        rep->errors++;
    else
        rep->warnings++;
    if (c->nomem || rep->count >= MAX_STORED_PROBLEMS)
        return;
    if (rep->count == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 32;
        if (cap > MAX_STORED_PROBLEMS)
            cap = MAX_STORED_PROBLEMS;
        bspkit_problem *grown = realloc(rep->problems, cap * sizeof *grown);
        if (!grown) {
            c->nomem = true;
            return;
        }
        rep->problems = grown;
        c->cap = cap;
    }
    bspkit_problem *p = &rep->problems[rep->count++];
    memset(p, 0, sizeof *p);
    p->severity = sev;
    p->code = code;
    p->lump = lump;
    p->record = record;
    p->offset = offset;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->message, sizeof p->message, fmt, ap);
    va_end(ap);
}

/* Absolute file offset of record `rec` of `lump`, or -1 when the lump is
 * compressed (no file byte corresponds to it) or not a record array. */
static int64_t rec_offset(const vctx *c, int lump, uint64_t rec)
{
    if (lump < 0 || lump >= BSPKIT_S_LUMP_COUNT || !c->info_ok[lump])
        return -1;
    const bspkit_lump_info *li = &c->info[lump];
    if (li->compressed || li->record_size == 0)
        return -1;
    return (int64_t)li->offset + (int64_t)(rec * li->record_size);
}

/* Byte `ofs` inside an uncompressed lump, as an absolute file offset. */
static int64_t byte_offset(const vctx *c, int lump, uint64_t ofs)
{
    if (lump < 0 || lump >= BSPKIT_S_LUMP_COUNT || !c->info_ok[lump] || c->info[lump].compressed)
        return -1;
    return (int64_t)c->info[lump].offset + (int64_t)ofs;
}

static uint32_t lump_size(const vctx *c, int lump)
{
    if (lump < 0 || lump >= BSPKIT_S_LUMP_COUNT || !c->info_ok[lump])
        return 0;
    return c->info[lump].uncompressed_length;
}

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static void index_error(vctx *c, int lump, uint64_t rec, const char *what, const char *fmt, ...)
{
    char detail[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    add_problem(c, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, lump, (int64_t)rec, rec_offset(c, lump, rec),
                "%s %" PRIu64 ": %s", what, rec, detail);
}

/* An accessor failure becomes one problem; checks needing the array skip. */
static bool loaded(vctx *c, bspkit_result r, const bspkit_error *e, int lump)
{
    if (r == BSPKIT_OK)
        return true;
    add_problem(c, BSPKIT_SEVERITY_ERROR, r, e->lump >= 0 ? e->lump : lump, -1, e->offset, "%s",
                e->message[0] ? e->message : bspkit_strerror(r));
    return false;
}

#define LOAD(c, arr, type, getter, lump_index)                                                   \
    do {                                                                                   \
        const type *items_ = NULL;                                                         \
        size_t n_ = 0;                                                                     \
        bspkit_error e_;                                                                   \
        memset(&e_, 0, sizeof e_);                                                         \
        e_.lump = -1;                                                                      \
        e_.offset = -1;                                                                    \
        bspkit_result r_ = getter((c)->map, &items_, &n_, &e_);                            \
        (arr).items = items_;                                                              \
        (arr).n = r_ == BSPKIT_OK ? n_ : 0;                                                \
        (arr).ok = loaded((c), r_, &e_, (lump_index));                                           \
    } while (0)

/* True when `v` is a valid index into `a`; an array that failed to decode
 * accepts everything so that one broken lump does not cascade. */
static bool in_range(const varr *a, int64_t v) { return !a->ok || (v >= 0 && (uint64_t)v < a->n); }

/* first + num within an array of n records, computed without overflow. */
static bool range_ok(const varr *a, int64_t first, int64_t num)
{
    if (!a->ok)
        return true;
    return first >= 0 && num >= 0 && (uint64_t)first + (uint64_t)num <= a->n;
}

/* ------------------------------------------------------------------------ */
/* Geometry                                                                  */
/* ------------------------------------------------------------------------ */

static void check_edges(vctx *c)
{
    const bspkit_edge *edges = c->edges.items;
    if (!c->edges.ok || !c->vertexes.ok)
        return;
    for (size_t i = 0; i < c->edges.n; i++)
        for (int k = 0; k < 2; k++)
            if (edges[i].v[k] >= c->vertexes.n)
                index_error(c, BSPKIT_S_EDGES, i, "edge", "v[%d] %" PRIu32 " exceeds %zu vertexes", k,
                            edges[i].v[k], c->vertexes.n);
}

static void check_surfedges(vctx *c)
{
    const int32_t *se = c->surfedges.items;
    if (!c->surfedges.ok || !c->edges.ok)
        return;
    for (size_t i = 0; i < c->surfedges.n; i++) {
        /* |INT32_MIN| does not fit in int32_t. */
        int64_t e = se[i] < 0 ? -(int64_t)se[i] : se[i];
        if ((uint64_t)e >= c->edges.n)
            index_error(c, BSPKIT_S_SURFEDGES, i, "surfedge", "edge %" PRId32 " exceeds %zu edges", se[i],
                        c->edges.n);
    }
}

/* ------------------------------------------------------------------------ */
/* Faces and lightmaps                                                       */
/* ------------------------------------------------------------------------ */

typedef struct light_data {
    bool ok;
    size_t size;
    const char *name;
} light_data;

static light_data load_lighting(vctx *c, bool hdr)
{
    light_data ld = {false, 0, hdr ? "LIGHTING_HDR" : "LIGHTING"};
    const uint8_t *data = NULL;
    bspkit_error e;
    memset(&e, 0, sizeof e);
    e.lump = -1;
    e.offset = -1;
    bspkit_result r = bspkit_get_lighting(c->map, hdr, &data, &ld.size, &e);
    int lump = hdr ? BSPKIT_S_LIGHTING_HDR : (c->source ? BSPKIT_S_LIGHTING : BSPKIT_Q_LIGHTING);
    ld.ok = loaded(c, r, &e, lump);
    if (!ld.ok)
        ld.size = 0;
    return ld;
}

static const bspkit_texinfo *face_texinfo(const vctx *c, const bspkit_face *f)
{
    if (!c->texinfo.ok || f->texinfo < 0 || (size_t)f->texinfo >= c->texinfo.n)
        return NULL;
    return &((const bspkit_texinfo *)c->texinfo.items)[f->texinfo];
}

/* `lm` is the face's entry in bspkit_get_face_lightmaps(), which computes
 * how many bytes its samples take (NULL when that table could not be built). */
static void check_face_lightmap(vctx *c, int lump, size_t i, const char *what, const bspkit_face *f,
                                const light_data *ld, const bspkit_face_lightmap *lm)
{
    /* Without any lighting data the engines draw the map fullbright and
     * never follow the offsets, which compilers then leave at 0. */
    if (f->light_offset == -1 || !ld->ok || ld->size == 0)
        return;
    if (!c->source) {
        const bspkit_texinfo *ti = face_texinfo(c, f);
        if (ti && (ti->flags & Q_TEX_SPECIAL))
            return;
    }
    if (f->light_offset < 0 || (size_t)f->light_offset >= ld->size) {
        index_error(c, lump, i, what, "light_offset %" PRId32 " outside %zu bytes of %s", f->light_offset,
                    ld->size, ld->name);
        return;
    }
    /* A lit entry without a size has extents no engine could use; nothing to compare. */
    if (!lm || !lm->lit || lm->width <= 0 || lm->height <= 0)
        return;
    uint64_t need = lm->bytes;
    if (need > ld->size - (size_t)f->light_offset)
        /* Only a warning: compilers round extents differently, and engines
         * clamp reads, so a slightly short lump still loads. */
        add_problem(c, BSPKIT_SEVERITY_WARNING, BSPKIT_ERR_INDEX, lump, (int64_t)i, rec_offset(c, lump, i),
                    "%s %zu: lightmap at %" PRId32 " needs %" PRIu64 " bytes, past %zu bytes of %s", what, i,
                    f->light_offset, need, ld->size, ld->name);
}

/* Faces of one lump; `lms` (count `lm_n`) holds their lightmap geometry, or
 * is NULL when it is unavailable or the faces are not checked for lighting. */
static void check_faces(vctx *c, const varr *faces, int lump, const char *what, const light_data *ld,
                        const bspkit_face_lightmap *lms, size_t lm_n)
{
    const bspkit_face *fs = faces->items;
    if (!faces->ok)
        return;
    for (size_t i = 0; i < faces->n; i++) {
        const bspkit_face *f = &fs[i];
        if (!in_range(&c->planes, f->plane))
            index_error(c, lump, i, what, "plane %" PRIu32 " exceeds %zu planes", f->plane, c->planes.n);
        if (f->first_edge < 0 || f->num_edges < 0)
            index_error(c, lump, i, what, "first_edge %" PRId32 " / num_edges %" PRId32 " negative",
                        f->first_edge, f->num_edges);
        else if (!range_ok(&c->surfedges, f->first_edge, f->num_edges))
            index_error(c, lump, i, what, "first_edge+num_edges %" PRId64 " exceeds %zu surfedges",
                        (int64_t)f->first_edge + f->num_edges, c->surfedges.n);
        else if (f->num_edges < 3 && f->dispinfo == -1)
            add_problem(c, BSPKIT_SEVERITY_WARNING, BSPKIT_ERR_INDEX, lump, (int64_t)i, rec_offset(c, lump, i),
                        "%s %zu: only %" PRId32 " edges", what, i, f->num_edges);
        /* vbsp compacts TEXINFO after writing ORIGINALFACES without
         * remapping them, so their texinfo may be stale; nothing reads it. */
        if (lump != BSPKIT_S_ORIGINALFACES && f->texinfo != -1 && !in_range(&c->texinfo, f->texinfo))
            index_error(c, lump, i, what, "texinfo %" PRId32 " exceeds %zu texinfos", f->texinfo, c->texinfo.n);
        if (c->source && f->dispinfo != -1 && c->have_dispinfo &&
            (f->dispinfo < 0 || (uint64_t)f->dispinfo >= c->dispinfo_n))
            index_error(c, lump, i, what, "dispinfo %" PRId32 " exceeds %" PRIu64 " dispinfos", f->dispinfo,
                        c->dispinfo_n);
        if (ld)
            check_face_lightmap(c, lump, i, what, f, ld, lms && i < lm_n ? &lms[i] : NULL);
    }
}

/* Source stores LDR and HDR lighting separately; HDR-only maps keep the
 * offsets of FACES pointing into LIGHTING_HDR. */
static void check_all_faces(vctx *c)
{
    light_data ldr = load_lighting(c, false);
    /* The sizes come from the faces' geometry alone, so the LDR table serves
     * FACES against either lighting lump. A table that cannot be built (a
     * lump it reads failed to decode, reported elsewhere) skips the size check. */
    const bspkit_face_lightmap *lms = NULL, *hdr_lms = NULL;
    size_t lm_n = 0, hdr_lm_n = 0;
    bspkit_error ignore;
    if (bspkit_get_face_lightmaps(c->map, false, &lms, &lm_n, &ignore) != BSPKIT_OK)
        lms = NULL;
    if (!c->source) {
        check_faces(c, &c->faces, BSPKIT_Q_FACES, "face", &ldr, lms, lm_n);
        return;
    }
    light_data hdr = load_lighting(c, true);
    const light_data *for_faces = &ldr;
    if (ldr.ok && ldr.size == 0 && hdr.ok && hdr.size > 0)
        for_faces = &hdr;
    check_faces(c, &c->faces, BSPKIT_S_FACES, "face", for_faces, lms, lm_n);
    /* Original faces are never lit; their light fields are leftovers. */
    check_faces(c, &c->orig_faces, BSPKIT_S_ORIGINALFACES, "origface", NULL, NULL, 0);
    /* With FACES_HDR present the HDR table describes exactly those faces. */
    if (c->hdr_faces.ok && c->hdr_faces.n > 0 &&
        bspkit_get_face_lightmaps(c->map, true, &hdr_lms, &hdr_lm_n, &ignore) != BSPKIT_OK)
        hdr_lms = NULL;
    check_faces(c, &c->hdr_faces, BSPKIT_S_FACES_HDR, "hdr face", &hdr, hdr_lms, hdr_lm_n);
}

/* ------------------------------------------------------------------------ */
/* Textures                                                                  */
/* ------------------------------------------------------------------------ */

static void check_texinfo(vctx *c)
{
    const bspkit_texinfo *ti = c->texinfo.items;
    if (!c->texinfo.ok)
        return;
    const varr *target = c->source ? &c->texdata : &c->miptex;
    const char *name = c->source ? "texdata" : "miptex";
    /* A Source map without any texdata has nothing to point at; that is
     * odd but not a broken index. */
    if (!target->ok || (c->source && target->n == 0))
        return;
    for (size_t i = 0; i < c->texinfo.n; i++) {
        if (c->source && ti[i].texture < 0)
            /* The Source engine loads a negative texdata as the empty
             * material (with a developer message); buggy compilers write -1. */
            add_problem(c, BSPKIT_SEVERITY_WARNING, BSPKIT_ERR_INDEX, BSPKIT_S_TEXINFO, (int64_t)i,
                        rec_offset(c, BSPKIT_S_TEXINFO, i), "texinfo %zu: texture %" PRId32 " names no texdata", i,
                        ti[i].texture);
        else if (ti[i].texture < 0 || (size_t)ti[i].texture >= target->n)
            index_error(c, BSPKIT_S_TEXINFO, i, "texinfo", "texture %" PRId32 " exceeds %zu %s", ti[i].texture,
                        target->n, name);
    }
}

static void check_texdata(vctx *c)
{
    const int32_t *table = c->string_table.items;
    uint32_t data_size = lump_size(c, BSPKIT_S_TEXDATA_STRING_DATA);
    bool *bad_entry = NULL;

    if (c->string_table.ok && c->string_table.n > 0) {
        bad_entry = calloc(c->string_table.n, sizeof *bad_entry);
        if (!bad_entry) {
            c->nomem = true;
            return;
        }
        for (size_t i = 0; i < c->string_table.n; i++)
            if (table[i] < 0 || (uint32_t)table[i] >= data_size) {
                bad_entry[i] = true;
                index_error(c, BSPKIT_S_TEXDATA_STRING_TABLE, i, "string table entry",
                            "offset %" PRId32 " outside %" PRIu32 " bytes of TEXDATA_STRING_DATA", table[i],
                            data_size);
            }
    }

    const bspkit_texdata *td = c->texdata.items;
    if (c->texdata.ok) {
        for (size_t i = 0; i < c->texdata.n; i++) {
            int32_t id = td[i].name_id;
            if (c->string_table.ok && !in_range(&c->string_table, id)) {
                index_error(c, BSPKIT_S_TEXDATA, i, "texdata", "name_id %" PRId32 " exceeds %zu string table entries",
                            id, c->string_table.n);
                continue;
            }
            /* A bad string table entry was reported above; anything else the
             * name lookup rejects is reported here. */
            if (c->string_table.ok && bad_entry && bad_entry[id])
                continue;
            if (c->string_table.ok && !bspkit_texdata_name(c->map, i))
                index_error(c, BSPKIT_S_TEXDATA, i, "texdata", "name_id %" PRId32 " does not resolve to a name", id);
        }
    }
    free(bad_entry);
}

/* ------------------------------------------------------------------------ */
/* BSP tree                                                                  */
/* ------------------------------------------------------------------------ */

static void check_nodes(vctx *c)
{
    const bspkit_node *nodes = c->nodes.items;
    if (!c->nodes.ok)
        return;
    for (size_t i = 0; i < c->nodes.n; i++) {
        const bspkit_node *n = &nodes[i];
        if (!in_range(&c->planes, n->plane))
            index_error(c, BSPKIT_S_NODES, i, "node", "plane %" PRId32 " exceeds %zu planes", n->plane, c->planes.n);
        for (int k = 0; k < 2; k++) {
            int32_t ch = n->children[k];
            if (ch >= 0 && (size_t)ch >= c->nodes.n)
                index_error(c, BSPKIT_S_NODES, i, "node", "children[%d] %" PRId32 " exceeds %zu nodes", k, ch,
                            c->nodes.n);
            else if (ch < 0 && !in_range(&c->leafs, -((int64_t)ch + 1)))
                index_error(c, BSPKIT_S_NODES, i, "node", "children[%d] %" PRId32 " is leaf %" PRId64
                            " but there are %zu leafs", k, ch, -((int64_t)ch + 1), c->leafs.n);
        }
        if (!range_ok(c->tree_faces, n->first_face, n->num_faces))
            index_error(c, BSPKIT_S_NODES, i, "node", "first_face+num_faces %" PRIu64 " exceeds %zu faces",
                        (uint64_t)n->first_face + n->num_faces, c->tree_faces->n);
    }
}

static void check_leafs(vctx *c)
{
    const bspkit_leaf *leafs = c->leafs.items;
    if (!c->leafs.ok)
        return;
    uint32_t vis_size = lump_size(c, BSPKIT_Q_VISIBILITY);
    for (size_t i = 0; i < c->leafs.n; i++) {
        const bspkit_leaf *l = &leafs[i];
        if (!range_ok(&c->leaf_faces, l->first_leaf_face, l->num_leaf_faces))
            index_error(c, BSPKIT_S_LEAFS, i, "leaf", "first_leaf_face+num_leaf_faces %" PRIu64 " exceeds %zu %s",
                        (uint64_t)l->first_leaf_face + l->num_leaf_faces, c->leaf_faces.n,
                        c->source ? "leaffaces" : "marksurfaces");
        if (c->source) {
            if (!range_ok(&c->leaf_brushes, l->first_leaf_brush, l->num_leaf_brushes))
                index_error(c, BSPKIT_S_LEAFS, i, "leaf",
                            "first_leaf_brush+num_leaf_brushes %" PRIu64 " exceeds %zu leafbrushes",
                            (uint64_t)l->first_leaf_brush + l->num_leaf_brushes, c->leaf_brushes.n);
            if (c->have_vis && c->vis_rows > 0 && l->cluster != -1 &&
                (l->cluster < 0 || (uint32_t)l->cluster >= c->vis_rows))
                index_error(c, BSPKIT_S_LEAFS, i, "leaf", "cluster %" PRId32 " exceeds %" PRIu32 " clusters",
                            l->cluster, c->vis_rows);
        } else if (i > 0 && vis_size > 0 && l->vis_offset != -1 &&
                   (l->vis_offset < 0 || (uint32_t)l->vis_offset >= vis_size)) {
            /* Leaf 0 is the shared solid leaf, never looked up, and an
             * empty VISIBILITY lump makes engines ignore every offset; both
             * often carry 0 rather than -1. */
            index_error(c, BSPKIT_Q_LEAFS, i, "leaf", "vis_offset %" PRId32 " outside %" PRIu32 " bytes of VISIBILITY",
                        l->vis_offset, vis_size);
        }
    }

    const uint32_t *lf = c->leaf_faces.items;
    if (c->leaf_faces.ok && c->tree_faces->ok)
        for (size_t i = 0; i < c->leaf_faces.n; i++)
            if (lf[i] >= c->tree_faces->n)
                index_error(c, c->lump_leaffaces, i, c->source ? "leafface" : "marksurface",
                            "face %" PRIu32 " exceeds %zu faces", lf[i], c->tree_faces->n);

    const uint32_t *lb = c->leaf_brushes.items;
    if (c->source && c->leaf_brushes.ok && c->brushes.ok)
        for (size_t i = 0; i < c->leaf_brushes.n; i++)
            if (lb[i] >= c->brushes.n)
                index_error(c, BSPKIT_S_LEAFBRUSHES, i, "leafbrush", "brush %" PRIu32 " exceeds %zu brushes", lb[i],
                            c->brushes.n);
}

static void check_models(vctx *c)
{
    const bspkit_model *models = c->models.items;
    if (!c->models.ok)
        return;
    for (size_t i = 0; i < c->models.n; i++) {
        const bspkit_model *m = &models[i];
        /* Source point-sized brush entities (no faces) may carry a head
         * node that is not in the tree. */
        bool skip_head = c->source && m->num_faces == 0;
        if (!skip_head && !in_range(&c->nodes, m->headnode[0]))
            index_error(c, BSPKIT_S_MODELS, i, "model", "headnode[0] %" PRId32 " exceeds %zu nodes", m->headnode[0],
                        c->nodes.n);
        if (!c->source && c->clipnodes.ok && c->clipnodes.n > 0)
            for (int h = 1; h < 4; h++) {
                int32_t hn = m->headnode[h];
                /* A negative head node is a hull that is all one contents.
                 * hlbsp leaves the head node of a hull it did not write
                 * (non-solid models such as func_illusionary) at the clipnode
                 * count; nothing traces those hulls. */
                bool ok = hn < 0 ? hn >= Q_CONTENTS_MIN : (size_t)hn <= c->clipnodes.n;
                if (!ok)
                    index_error(c, BSPKIT_Q_MODELS, i, "model", "headnode[%d] %" PRId32 " exceeds %zu clipnodes", h,
                                hn, c->clipnodes.n);
            }
        if (m->first_face < 0 || m->num_faces < 0)
            index_error(c, BSPKIT_S_MODELS, i, "model", "first_face %" PRId32 " / num_faces %" PRId32 " negative",
                        m->first_face, m->num_faces);
        else if (!range_ok(c->tree_faces, m->first_face, m->num_faces))
            index_error(c, BSPKIT_S_MODELS, i, "model", "first_face+num_faces %" PRId64 " exceeds %zu faces",
                        (int64_t)m->first_face + m->num_faces, c->tree_faces->n);
    }
}

static void check_clipnodes(vctx *c)
{
    const bspkit_clipnode *cn = c->clipnodes.items;
    if (c->source || !c->clipnodes.ok)
        return;
    for (size_t i = 0; i < c->clipnodes.n; i++) {
        if (!in_range(&c->planes, cn[i].plane))
            index_error(c, BSPKIT_Q_CLIPNODES, i, "clipnode", "plane %" PRId32 " exceeds %zu planes", cn[i].plane,
                        c->planes.n);
        for (int k = 0; k < 2; k++) {
            int32_t ch = cn[i].children[k];
            if (ch >= 0 && (size_t)ch >= c->clipnodes.n)
                index_error(c, BSPKIT_Q_CLIPNODES, i, "clipnode", "children[%d] %" PRId32 " exceeds %zu clipnodes",
                            k, ch, c->clipnodes.n);
            else if (ch < 0 && ch < Q_CONTENTS_MIN)
                index_error(c, BSPKIT_Q_CLIPNODES, i, "clipnode",
                            "children[%d] %" PRId32 " is not a contents value (-15..-1)", k, ch);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Source brushes and areas                                                  */
/* ------------------------------------------------------------------------ */

static void check_brushes(vctx *c)
{
    const bspkit_brush *b = c->brushes.items;
    if (c->brushes.ok)
        for (size_t i = 0; i < c->brushes.n; i++) {
            if (b[i].first_side < 0 || b[i].num_sides < 0)
                index_error(c, BSPKIT_S_BRUSHES, i, "brush", "first_side %" PRId32 " / num_sides %" PRId32 " negative",
                            b[i].first_side, b[i].num_sides);
            else if (!range_ok(&c->brushsides, b[i].first_side, b[i].num_sides))
                index_error(c, BSPKIT_S_BRUSHES, i, "brush", "first_side+num_sides %" PRId64 " exceeds %zu brushsides",
                            (int64_t)b[i].first_side + b[i].num_sides, c->brushsides.n);
        }

    const bspkit_brushside *s = c->brushsides.items;
    if (c->brushsides.ok)
        for (size_t i = 0; i < c->brushsides.n; i++) {
            if (!in_range(&c->planes, s[i].plane))
                index_error(c, BSPKIT_S_BRUSHSIDES, i, "brushside", "plane %" PRIu32 " exceeds %zu planes",
                            s[i].plane, c->planes.n);
            if (s[i].texinfo != -1 && !in_range(&c->texinfo, s[i].texinfo))
                index_error(c, BSPKIT_S_BRUSHSIDES, i, "brushside", "texinfo %" PRId32 " exceeds %zu texinfos",
                            s[i].texinfo, c->texinfo.n);
            /* vbsp writes 0, not -1, for sides without a displacement, so
             * 0 is only an index when the map has displacements. */
            if (s[i].dispinfo != -1 && s[i].dispinfo != 0 && c->have_dispinfo &&
                (s[i].dispinfo < 0 || (uint64_t)s[i].dispinfo >= c->dispinfo_n))
                index_error(c, BSPKIT_S_BRUSHSIDES, i, "brushside", "dispinfo %" PRId32 " exceeds %" PRIu64 " dispinfos",
                            s[i].dispinfo, c->dispinfo_n);
        }
}

/* ---- lumps outside the core: props, overlays, displacements, ambient ---- */

static void check_static_props(vctx *c)
{
    const bspkit_static_props *sp;
    bspkit_error e;
    memset(&e, 0, sizeof e);
    if (!loaded(c, bspkit_get_static_props(c->map, &sp, &e), &e, BSPKIT_S_GAME_LUMP))
        return;
    for (size_t i = 0; i < sp->leaf_count; i++)
        if (!in_range(&c->leafs, sp->leafs[i]))
            add_problem(c, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_S_GAME_LUMP, (int64_t)i, -1,
                        "sprp leaf %zu: leaf %" PRIu32 " exceeds %zu leafs", i, sp->leafs[i], c->leafs.n);
    for (size_t i = 0; i < sp->prop_count; i++) {
        const bspkit_static_prop *p = &sp->props[i];
        if (p->prop_type >= sp->dictionary_count)
            add_problem(c, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_S_GAME_LUMP, (int64_t)i, -1,
                        "static prop %zu: PropType %u exceeds the %zu dictionary names", i, p->prop_type,
                        sp->dictionary_count);
        if ((size_t)p->first_leaf + p->leaf_count > sp->leaf_count)
            add_problem(c, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_S_GAME_LUMP, (int64_t)i, -1,
                        "static prop %zu: leafs %u+%u exceed the %zu-entry leaf array", i, p->first_leaf,
                        p->leaf_count, sp->leaf_count);
    }
}

static void check_overlays(vctx *c)
{
    const bspkit_overlay *ov;
    size_t n;
    bspkit_error e;
    memset(&e, 0, sizeof e);
    if (!loaded(c, bspkit_get_overlays(c->map, &ov, &n, &e), &e, BSPKIT_S_OVERLAYS))
        return;
    for (size_t i = 0; i < n; i++) {
        if (!in_range(&c->texinfo, ov[i].texinfo))
            index_error(c, BSPKIT_S_OVERLAYS, i, "overlay", "texinfo %" PRId32 " exceeds %zu texinfos",
                        ov[i].texinfo, c->texinfo.n);
        if (ov[i].face_count > BSPKIT_OVERLAY_FACES) {
            index_error(c, BSPKIT_S_OVERLAYS, i, "overlay", "%u faces, more than the %d a record holds",
                        ov[i].face_count, BSPKIT_OVERLAY_FACES);
            continue;
        }
        for (unsigned k = 0; k < ov[i].face_count; k++)
            if (!in_range(c->tree_faces, ov[i].faces[k]))
                index_error(c, BSPKIT_S_OVERLAYS, i, "overlay", "face %" PRId32 " exceeds %zu faces",
                            ov[i].faces[k], c->tree_faces->n);
    }
}

static void check_displacements(vctx *c)
{
    const bspkit_dispinfo *di;
    const bspkit_disp_vert *dv;
    const uint16_t *tags;
    size_t n, nverts, ntris;
    bspkit_error e;
    memset(&e, 0, sizeof e);
    if (!loaded(c, bspkit_get_dispinfo(c->map, &di, &n, &e), &e, BSPKIT_S_DISPINFO) ||
        !loaded(c, bspkit_get_disp_verts(c->map, &dv, &nverts, &e), &e, BSPKIT_S_DISP_VERTS) ||
        !loaded(c, bspkit_get_disp_tris(c->map, &tags, &ntris, &e), &e, BSPKIT_S_DISP_TRIS))
        return;
    for (size_t i = 0; i < n; i++) {
        if (di[i].power < 2 || di[i].power > 4) {
            index_error(c, BSPKIT_S_DISPINFO, i, "dispinfo", "power %" PRId32 " outside 2..4", di[i].power);
            continue;
        }
        if (!in_range(c->tree_faces, di[i].map_face))
            index_error(c, BSPKIT_S_DISPINFO, i, "dispinfo", "MapFace %" PRIu32 " exceeds %zu faces", di[i].map_face,
                        c->tree_faces->n);
        uint64_t verts = bspkit_disp_vert_count(di[i].power), tris = bspkit_disp_tri_count(di[i].power);
        if (di[i].disp_vert_start < 0 || (uint64_t)di[i].disp_vert_start + verts > nverts)
            index_error(c, BSPKIT_S_DISPINFO, i, "dispinfo", "DispVertStart %" PRId32 " + %" PRIu64
                        " vertices exceeds %zu dispverts", di[i].disp_vert_start, verts, nverts);
        /* Some compilers leave DISP_TRIS empty; only a present lump is checked. */
        if (ntris && (di[i].disp_tri_start < 0 || (uint64_t)di[i].disp_tri_start + tris > ntris))
            index_error(c, BSPKIT_S_DISPINFO, i, "dispinfo", "DispTriStart %" PRId32 " + %" PRIu64
                        " triangles exceeds %zu disptris", di[i].disp_tri_start, tris, ntris);
    }
}

static void check_leaf_ambient(vctx *c)
{
    for (int hdr = 0; hdr < 2; hdr++) {
        const bspkit_leaf_ambient *la;
        bspkit_error e;
        memset(&e, 0, sizeof e);
        int lump = hdr ? BSPKIT_S_LEAF_AMBIENT_INDEX_HDR : BSPKIT_S_LEAF_AMBIENT_INDEX;
        const char *name = hdr ? "LEAF_AMBIENT_INDEX_HDR" : "LEAF_AMBIENT_INDEX";
        if (!loaded(c, bspkit_get_leaf_ambient(c->map, hdr != 0, &la, &e), &e, lump))
            continue;
        if (la->bad_ranges)
            add_problem(c, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, lump, -1, -1,
                        "%s: %zu leafs' sample ranges run past the %zu ambient samples", name, la->bad_ranges, la->sample_count);
        if (la->index_count && c->leafs.ok && la->index_count != c->leafs.n)
            add_problem(c, BSPKIT_SEVERITY_WARNING, BSPKIT_ERR_INDEX, lump, -1, -1,
                        "%s: %zu entries for %zu leafs", name, la->index_count, c->leafs.n);
    }
}

static void check_areas(vctx *c)
{
    const bspkit_area *a = c->areas.items;
    if (c->areas.ok)
        for (size_t i = 0; i < c->areas.n; i++)
            if (a[i].first_portal < 0 || a[i].num_portals < 0 ||
                !range_ok(&c->areaportals, a[i].first_portal, a[i].num_portals))
                index_error(c, BSPKIT_S_AREAS, i, "area", "first_portal %" PRId32 " + num_portals %" PRId32
                            " exceeds %zu areaportals", a[i].first_portal, a[i].num_portals, c->areaportals.n);

    const bspkit_areaportal *p = c->areaportals.items;
    if (c->areaportals.ok)
        for (size_t i = 0; i < c->areaportals.n; i++) {
            if (!in_range(&c->areas, p[i].other_area))
                index_error(c, BSPKIT_S_AREAPORTALS, i, "areaportal", "other_area %" PRIu32 " exceeds %zu areas",
                            p[i].other_area, c->areas.n);
            if (!in_range(&c->planes, p[i].plane))
                index_error(c, BSPKIT_S_AREAPORTALS, i, "areaportal", "plane %" PRId32 " exceeds %zu planes",
                            p[i].plane, c->planes.n);
            if (c->have_clipverts && (uint64_t)p[i].first_clip_vert + p[i].num_clip_verts > c->clipverts_n)
                index_error(c, BSPKIT_S_AREAPORTALS, i, "areaportal",
                            "first_clip_vert+num_clip_verts %" PRIu64 " exceeds %" PRIu64 " clipportalverts",
                            (uint64_t)p[i].first_clip_vert + p[i].num_clip_verts, c->clipverts_n);
        }
}

/* ------------------------------------------------------------------------ */
/* Visibility                                                                */
/* ------------------------------------------------------------------------ */

static void vis_failure(vctx *c, uint32_t index, const char *what, const bspkit_error *e)
{
    add_problem(c, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_VISIBILITY, BSPKIT_S_VISIBILITY, index, e->offset,
                "%s %" PRIu32 ": %s", what, index, e->message[0] ? e->message : bspkit_strerror(e->code));
}

static void check_vis_rows(vctx *c)
{
    if (!c->have_vis || c->vis_rows == 0 || c->vis_row_bytes == 0)
        return;
    uint8_t *row = malloc(c->vis_row_bytes);
    if (!row) {
        c->nomem = true;
        return;
    }
    uint32_t rows = c->vis_rows < MAX_VIS_ROWS ? c->vis_rows : MAX_VIS_ROWS;
    bspkit_error e;
    memset(&e, 0, sizeof e);
    if (c->source) {
        for (uint32_t i = 0; i < rows && !c->nomem; i++) {
            if (bspkit_vis_row(c->map, i, BSPKIT_VIS_PVS, row, c->vis_row_bytes, &e) != BSPKIT_OK)
                vis_failure(c, i, "PVS of cluster", &e);
            if (bspkit_vis_row(c->map, i, BSPKIT_VIS_PAS, row, c->vis_row_bytes, &e) != BSPKIT_OK)
                vis_failure(c, i, "PAS of cluster", &e);
        }
    } else if (c->leafs.ok) {
        const bspkit_leaf *leafs = c->leafs.items;
        uint32_t vis_size = lump_size(c, BSPKIT_Q_VISIBILITY);
        /* Row i is leaf i + 1; leaf 0 is the shared solid leaf. Leaves
         * whose offset is already reported, or absent, are not decoded. */
        for (uint32_t leaf = 1; leaf <= rows && leaf < c->leafs.n && !c->nomem; leaf++) {
            int32_t ofs = leafs[leaf].vis_offset;
            if (ofs < 0 || (uint32_t)ofs >= vis_size)
                continue;
            if (bspkit_vis_row(c->map, leaf, BSPKIT_VIS_PVS, row, c->vis_row_bytes, &e) != BSPKIT_OK)
                vis_failure(c, leaf, "PVS of leaf", &e);
        }
    }
    free(row);
}

/* ------------------------------------------------------------------------ */
/* Entities and limits                                                       */
/* ------------------------------------------------------------------------ */

static void check_entities(vctx *c)
{
    const bspkit_entities *ents = NULL;
    bspkit_error e;
    memset(&e, 0, sizeof e);
    e.lump = -1;
    e.offset = -1;
    if (!loaded(c, bspkit_get_entities(c->map, &ents, &e), &e, BSPKIT_S_ENTITIES) || !ents)
        return;
    for (size_t i = 0; i < ents->count; i++) {
        const char *model = bspkit_entity_value(ents, i, "model");
        if (!model || model[0] != '*')
            continue;
        /* "*N" names brush model N; anything else after '*' is not a model. */
        const char *p = model + 1;
        uint64_t n = 0;
        bool digits = *p != '\0';
        for (; *p; p++) {
            if (*p < '0' || *p > '9') {
                digits = false;
                break;
            }
            if (n < UINT32_MAX)
                n = n * 10 + (uint64_t)(*p - '0');
        }
        if (digits && (!c->models.ok || n < c->models.n))
            continue;
        char shown[40];
        snprintf(shown, sizeof shown, "%s", model);
        int64_t ofs = byte_offset(c, BSPKIT_S_ENTITIES, ents->entities[i].offset);
        if (digits)
            add_problem(c, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_S_ENTITIES, (int64_t)i, ofs,
                        "entity %zu (line %" PRIu32 "): model \"%s\" exceeds %zu models", i,
                        ents->entities[i].line, shown, c->models.n);
        else
            add_problem(c, BSPKIT_SEVERITY_ERROR, BSPKIT_ERR_INDEX, BSPKIT_S_ENTITIES, (int64_t)i, ofs,
                        "entity %zu (line %" PRIu32 "): model \"%s\" is not a brush model number", i,
                        ents->entities[i].line, shown);
    }
    if (ents->trailing_bytes > 0)
        add_problem(c, BSPKIT_SEVERITY_WARNING, BSPKIT_ERR_ENTITIES, BSPKIT_S_ENTITIES, -1,
                    byte_offset(c, BSPKIT_S_ENTITIES, ents->trailing_offset),
                    "%" PRIu64 " bytes of trailing data after the last entity at lump offset %" PRIu64,
                    ents->trailing_bytes, ents->trailing_offset);
}

static void check_limits(vctx *c)
{
    size_t n = 0;
    if (bspkit_limits(c->map, NULL, 0, &n) != BSPKIT_OK || n == 0)
        return;
    bspkit_limit_usage *rows = calloc(n, sizeof *rows);
    if (!rows) {
        c->nomem = true;
        return;
    }
    size_t got = 0;
    if (bspkit_limits(c->map, rows, n, &got) == BSPKIT_OK) {
        for (size_t i = 0; i < n && i < got; i++) {
            const bspkit_limit_usage *r = &rows[i];
            if (r->max_count > 0 && r->count > r->max_count)
                add_problem(c, BSPKIT_SEVERITY_WARNING, BSPKIT_ERR_ENGINE_LIMIT, -1, -1, -1,
                            "%s: %" PRIu64 " of %" PRIu64 " (%.1f%%)", r->name, r->count, r->max_count,
                            100.0 * (double)r->count / (double)r->max_count);
            else if (r->max_bytes > 0 && r->bytes > r->max_bytes)
                add_problem(c, BSPKIT_SEVERITY_WARNING, BSPKIT_ERR_ENGINE_LIMIT, -1, -1, -1,
                            "%s: %" PRIu64 " of %" PRIu64 " bytes (%.1f%%)", r->name, r->bytes, r->max_bytes,
                            100.0 * (double)r->bytes / (double)r->max_bytes);
        }
    }
    free(rows);
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                              */
/* ------------------------------------------------------------------------ */

static void load_all(vctx *c)
{
    for (int i = 0; i < BSPKIT_S_LUMP_COUNT && i < bspkit_lump_count(c->map); i++)
        c->info_ok[i] = bspkit_get_lump_info(c->map, i, &c->info[i]) == BSPKIT_OK;

    /* Lump indices shared by both numbering schemes use the S_ names. */
    LOAD(c, c->planes, bspkit_plane, bspkit_get_planes, BSPKIT_S_PLANES);
    LOAD(c, c->vertexes, bspkit_vec3, bspkit_get_vertexes, BSPKIT_S_VERTEXES);
    LOAD(c, c->edges, bspkit_edge, bspkit_get_edges, BSPKIT_S_EDGES);
    LOAD(c, c->surfedges, int32_t, bspkit_get_surfedges, BSPKIT_S_SURFEDGES);
    LOAD(c, c->faces, bspkit_face, bspkit_get_faces, BSPKIT_S_FACES);
    LOAD(c, c->nodes, bspkit_node, bspkit_get_nodes, BSPKIT_S_NODES);
    LOAD(c, c->leafs, bspkit_leaf, bspkit_get_leafs, BSPKIT_S_LEAFS);
    LOAD(c, c->models, bspkit_model, bspkit_get_models, BSPKIT_S_MODELS);
    LOAD(c, c->texinfo, bspkit_texinfo, bspkit_get_texinfo, BSPKIT_S_TEXINFO);
    LOAD(c, c->leaf_faces, uint32_t, bspkit_get_leaf_faces, c->lump_leaffaces);
    c->tree_faces = &c->faces;
    if (c->source) {
        LOAD(c, c->orig_faces, bspkit_face, bspkit_get_orig_faces, BSPKIT_S_ORIGINALFACES);
        LOAD(c, c->hdr_faces, bspkit_face, bspkit_get_hdr_faces, BSPKIT_S_FACES_HDR);
        LOAD(c, c->leaf_brushes, uint32_t, bspkit_get_leaf_brushes, BSPKIT_S_LEAFBRUSHES);
        LOAD(c, c->brushes, bspkit_brush, bspkit_get_brushes, BSPKIT_S_BRUSHES);
        LOAD(c, c->brushsides, bspkit_brushside, bspkit_get_brushsides, BSPKIT_S_BRUSHSIDES);
        LOAD(c, c->texdata, bspkit_texdata, bspkit_get_texdata, BSPKIT_S_TEXDATA);
        LOAD(c, c->string_table, int32_t, bspkit_get_texdata_string_table, BSPKIT_S_TEXDATA_STRING_TABLE);
        LOAD(c, c->areas, bspkit_area, bspkit_get_areas, BSPKIT_S_AREAS);
        LOAD(c, c->areaportals, bspkit_areaportal, bspkit_get_areaportals, BSPKIT_S_AREAPORTALS);

        if (c->faces.ok && c->faces.n == 0 && c->hdr_faces.ok && c->hdr_faces.n > 0)
            c->tree_faces = &c->hdr_faces;
        c->have_dispinfo = bspkit_lump_record_count(c->map, BSPKIT_S_DISPINFO, &c->dispinfo_n) == BSPKIT_OK;
        /* CLIPPORTALVERTS is a plain array of 12-byte vectors. */
        if (c->info_ok[BSPKIT_S_CLIPPORTALVERTS]) {
            c->have_clipverts = true;
            c->clipverts_n = c->info[BSPKIT_S_CLIPPORTALVERTS].uncompressed_length / 12u;
        }
    } else {
        LOAD(c, c->clipnodes, bspkit_clipnode, bspkit_get_clipnodes, BSPKIT_Q_CLIPNODES);
        LOAD(c, c->miptex, bspkit_miptex, bspkit_get_miptex, BSPKIT_Q_TEXTURES);
    }

    bspkit_error e;
    memset(&e, 0, sizeof e);
    e.lump = -1;
    e.offset = -1;
    c->have_vis = loaded(c, bspkit_vis_dimensions(c->map, &c->vis_rows, &c->vis_row_bytes, &e), &e,
                         BSPKIT_S_VISIBILITY);
}

bspkit_result bspkit_validate(bspkit_map *map, bspkit_report *report, bspkit_error *err)
{
    if (err) {
        memset(err, 0, sizeof *err);
        err->lump = -1;
        err->offset = -1;
        err->lump_offset = -1;
    }
    if (report)
        memset(report, 0, sizeof *report);
    if (!map || !report) {
        if (err) {
            err->code = BSPKIT_ERR_ARGUMENT;
            snprintf(err->message, sizeof err->message, "validate: map and report must not be NULL");
        }
        return BSPKIT_ERR_ARGUMENT;
    }

    vctx *c = calloc(1, sizeof *c);
    if (!c)
        goto nomem;
    c->map = map;
    c->rep = report;
    c->fmt = bspkit_map_format(map);
    c->source = c->fmt && c->fmt->family == BSPKIT_FAMILY_SOURCE;
    c->lump_leaffaces = c->source ? BSPKIT_S_LEAFFACES : BSPKIT_Q_MARKSURFACES;

    load_all(c);
    check_edges(c);
    check_surfedges(c);
    check_all_faces(c);
    check_texinfo(c);
    if (c->source) {
        check_texdata(c);
        check_brushes(c);
        check_areas(c);
        check_static_props(c);
        check_overlays(c);
        check_displacements(c);
        check_leaf_ambient(c);
    } else {
        check_clipnodes(c);
    }
    check_nodes(c);
    check_leafs(c);
    check_models(c);
    check_vis_rows(c);
    check_entities(c);
    check_limits(c);

    bool nomem = c->nomem;
    free(c);
    if (!nomem)
        return BSPKIT_OK;

nomem:
    bspkit_report_free(report);
    if (err) {
        err->code = BSPKIT_ERR_NOMEM;
        snprintf(err->message, sizeof err->message, "validate: out of memory");
    }
    return BSPKIT_ERR_NOMEM;
}

void bspkit_report_free(bspkit_report *report)
{
    if (!report)
        return;
    free(report->problems);
    memset(report, 0, sizeof *report);
}
