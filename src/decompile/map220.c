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
#include "map220_internal.h"

#include "core/fmt_num.h"
#include "core/parallel.h"

/* Nodes and clipnodes below which a map is decompiled on the calling thread only. */
#define SMALL_TREE 1200

/* ---- writing -------------------------------------------------------------------- */

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
    bk_decompile_put_points(t, p);
    bk_decompile_put_texture(t, f->pl.n, shift, name, ti);
    tb_puts(t, "\n");
}

/* "( x y z ) ( x y z ) ( x y z ) ": the three points of a side. */
void bk_decompile_put_points(bk_tbuf *t, const bk_dvec p[3])
{
    /* Written in place: a .map holds millions of these numbers. */
    char *at = tb_room(t, 3 * (3 * BK_FMT_NUM_CAP + 8));
    if (!at)
        return;
    char *w = at;
    for (int k = 0; k < 3; k++) {
        const double xyz[3] = {p[k].x, p[k].y, p[k].z};
        *w++ = '(';
        for (int i = 0; i < 3; i++) {
            *w++ = ' ';
            w += bk_decompile_num_to(w, xyz[i]);
        }
        memcpy(w, " ) ", 3);
        w += 3;
    }
    tb_commit(t, (size_t)(w - at));
}

void bk_decompile_put_texture(bk_tbuf *t, bk_dvec normal, bk_dvec shift, const char *name, const bspkit_texinfo *ti)
{
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
            double d = normal.x * BASE_AXES[i][0][0] + normal.y * BASE_AXES[i][0][1] + normal.z * BASE_AXES[i][0][2];
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
    char *at = tb_room(t, 2 * (4 * BK_FMT_NUM_CAP + 10) + 2 * BK_FMT_NUM_CAP + 4);
    if (!at)
        return;
    char *w = at;
    for (int k = 0; k < 2; k++) {
        memcpy(w, " [ ", 3);
        w += 3;
        for (int j = 0; j < 3; j++) {
            w += bk_decompile_num_to(w, axis[k][j]);
            *w++ = ' ';
        }
        w += bk_decompile_num_to(w, off[k]);
        memcpy(w, " ]", 2);
        w += 2;
    }
    memcpy(w, " 0 ", 3);
    w += 3;
    w += bk_decompile_num_to(w, scale[0]);
    *w++ = ' ';
    w += bk_decompile_num_to(w, scale[1]);
    tb_commit(t, (size_t)(w - at));
}

/* Writes piece `pi` (alive, four faces or more) as one brush. Every side's
 * face has been looked up (m220_stored_side_face), so this only reads the
 * context and may run on several threads at once. */
static void write_piece(const dctx *c, size_t pi, bk_dvec shift, bk_tbuf *t, bspkit_decompile_stats *st)
{
    const piece *p = &c->pieces[pi];
    tb_puts(t, "{\n");
    const char *own = p->contents == BSPKIT_Q_CONTENTS_SOLID ? NULL : m220_miptex_name(c, p->tex);
    if (p->contents != BSPKIT_Q_CONTENTS_SOLID && !own)
        own = m220_default_name(c, p->contents);
    const bk_region *store = m220_piece_store(c, p);
    for (uint32_t f = 0; f < p->nfaces; f++) {
        const bk_rface *face = &store->faces[p->first + f];
        const bk_dvec *pts = store->points + face->first;
        /* Clip shows no face: its sides need no face's alignment either. */
        int64_t fi = p->contents == BSPKIT_Q_CONTENTS_CLIP ? -1 : c->side_faces[p->first + f];
        const char *name = own;
        const bspkit_texinfo *ti = NULL;
        if (fi >= 0) {
            int32_t tix = c->faces[fi].texinfo;
            ti = tix >= 0 && (size_t)tix < c->ntexinfo ? &c->texinfo[tix] : NULL;
            if (!name)
                name = m220_miptex_name(c, m220_face_miptex(c, (size_t)fi));
            /* A sky or liquid name would turn a solid brush into sky or liquid when compiled. */
            if (name && p->contents == BSPKIT_Q_CONTENTS_SOLID &&
                (m220_name_fits(name, BSPKIT_Q_CONTENTS_SKY) || m220_name_fits(name, BSPKIT_Q_CONTENTS_WATER)))
                name = NULL;
        }
        if (!name || p->contents == BSPKIT_Q_CONTENTS_CLIP) {
            name = name ? name : m220_default_name(c, p->contents);
            st->tool_sides++;
        }
        put_side(t, face, pts, shift, name, ti);
        st->sides++;
    }
    tb_puts(t, "}\n");
    st->brushes++;
    st->clip_brushes += p->contents == BSPKIT_Q_CONTENTS_CLIP;
}

/* Pieces written per job, and below how many pieces one thread writes them all. */
#define WRITE_CHUNK 256

/* Adds the brush and side counts that writing pieces makes. */
static void add_counts(bspkit_decompile_stats *st, const bspkit_decompile_stats *counts)
{
    st->brushes += counts->brushes;
    st->sides += counts->sides;
    st->tool_sides += counts->tool_sides;
    st->clip_brushes += counts->clip_brushes;
}

/* Appends a part written apart (a chunk, a merge group's text) and adds its counts. */
static void join_part(bk_tbuf *t, bspkit_decompile_stats *st, const bk_tbuf *text,
                      const bspkit_decompile_stats *counts)
{
    tb_put(t, text->data ? text->data : "", text->size);
    t->failed |= text->failed;
    add_counts(st, counts);
}

typedef struct write_job {
    const dctx *c;
    bk_dvec shift;
    size_t first, end;
    bk_tbuf *text;                 /* per chunk */
    bspkit_decompile_stats *stats; /* per chunk */
} write_job;

static void write_chunk(void *ctx, size_t k)
{
    write_job *j = ctx;
    size_t from = j->first + k * WRITE_CHUNK;
    size_t end = j->end - from > WRITE_CHUNK ? from + WRITE_CHUNK : j->end;
    for (size_t pi = from; pi < end; pi++)
        if (j->c->pieces[pi].alive && j->c->pieces[pi].nfaces >= 4)
            write_piece(j->c, pi, j->shift, &j->text[k], &j->stats[k]);
}

/* Writes pieces [first, end) to `t` on up to `threads` threads (0: one per
 * CPU), counting brushes and sides in `st`. The text is the same for any
 * number of threads: chunks are joined in piece order. */
static bspkit_result write_range(dctx *c, const bspkit_model *m, size_t first, size_t end, bk_dvec shift,
                                 unsigned threads, bk_tbuf *t, bspkit_decompile_stats *st)
{
    /* Look up every side's face first: the lookup keeps scratch space in the context. */
    for (size_t pi = first; pi < end; pi++) {
        const piece *p = &c->pieces[pi];
        if (!p->alive || p->nfaces < 4 || p->contents == BSPKIT_Q_CONTENTS_CLIP)
            continue;
        for (uint32_t f = 0; f < p->nfaces; f++) {
            bool oom = false;
            m220_stored_side_face(c, m, p->first + f, &oom);
            if (oom)
                return m220_nomem(c);
        }
    }
    size_t nchunks = (end - first + WRITE_CHUNK - 1) / WRITE_CHUNK;
    if (nchunks <= 1 || threads == 1) {
        for (size_t pi = first; pi < end; pi++)
            if (c->pieces[pi].alive && c->pieces[pi].nfaces >= 4)
                write_piece(c, pi, shift, t, st);
        return BSPKIT_OK;
    }
    write_job j = {c, shift, first, end, calloc(nchunks, sizeof *j.text), calloc(nchunks, sizeof *j.stats)};
    if (!j.text || !j.stats) {
        free(j.text);
        free(j.stats);
        return m220_nomem(c);
    }
    bk_parallel_for(nchunks, threads, write_chunk, &j);
    for (size_t k = 0; k < nchunks; k++) {
        join_part(t, st, &j.text[k], &j.stats[k]);
        tb_free(&j.text[k]);
    }
    free(j.text);
    free(j.stats);
    return BSPKIT_OK;
}

/* A group of pieces written on the thread that merged it, while the other
 * group still merges (see m220_merge_pieces): its text and counts. */
typedef struct written_part {
    bk_dvec shift;
    size_t end; /* one past its last piece */
    bk_tbuf text;
    bspkit_decompile_stats st;
} written_part;

static bspkit_result write_part(void *ctx, dctx *gc, const bspkit_model *m, size_t group, size_t first, size_t end)
{
    written_part *p = (written_part *)ctx + group;
    p->end = end;
    return write_range(gc, m, first, end, p->shift, 1, &p->text, &p->st);
}

/* Writes the model's pieces after the text of `done[0..ndone)` (the first
 * pieces, written already), checking the output limit once all are in. */
static bspkit_result write_pieces(dctx *c, const bspkit_model *m, bk_dvec shift, bk_tbuf *t,
                                  bspkit_decompile_stats *st, bool world, const written_part *done, size_t ndone)
{
    bspkit_decompile_stats local = {0};
    size_t first = 0;
    for (size_t i = 0; i < ndone; i++) {
        join_part(t, &local, &done[i].text, &done[i].st);
        first = done[i].end;
    }
    bspkit_result r = write_range(c, m, first, c->npieces, shift, c->threads, t, &local);
    if (r != BSPKIT_OK)
        return r;
    for (size_t pi = 0; pi < c->npieces; pi++)
        st->skipped_brushes += c->pieces[pi].alive && c->pieces[pi].nfaces < 4;
    add_counts(st, &local);
    if (world)
        st->world_brushes += local.brushes;
    else
        st->entity_brushes += local.brushes;
    if (t->size > c->out_limit)
        return m220_limit_fail(c, BSPKIT_Q_NODES, "the output outgrows the size of the map");
    return BSPKIT_OK;
}

/* Builds model `mi`'s brushes and writes them, moved by `shift`. */
static bspkit_result model_brushes(dctx *c, size_t mi, bk_dvec shift, const bspkit_decompile_options *opts,
                                   bk_tbuf *t, bspkit_decompile_stats *st)
{
    c->npieces = 0;
    c->store.nfaces = c->store.npoints = 0;
    c->clip_store.nfaces = c->clip_store.npoints = 0;
    c->nside_faces = 0;
    c->nleaves = c->texture_splits = c->clip_pieces = 0;
    size_t split = SIZE_MAX;
    bspkit_result r = mi == 0 && !(opts->skip & BSPKIT_DECOMPILE_NO_CLIP) ? m220_walk_model_and_clip(c, mi, &split)
                                                                          : m220_walk_model(c, mi);
    if (r != BSPKIT_OK)
        return r;
    if (split == SIZE_MAX)
        split = c->npieces;
    st->leaves += c->nleaves;
    st->texture_splits += c->texture_splits;
    if (opts->no_merge)
        return write_pieces(c, &c->models[mi], shift, t, st, mi == 0, NULL, 0);
    /* With clip pieces, each group is written on the thread that merged it. */
    written_part parts[2] = {{.shift = shift}, {.shift = shift}};
    bool apart = split < c->npieces;
    r = m220_merge_pieces(c, &c->models[mi], split, apart ? write_part : NULL, parts);
    if (r == BSPKIT_OK)
        r = write_pieces(c, &c->models[mi], shift, t, st, mi == 0, parts, apart ? 2 : 0);
    tb_free(&parts[0].text);
    tb_free(&parts[1].text);
    return r;
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
    if (bspkit_get_lump_info(c->map, BSPKIT_Q_NODES, &li) == BSPKIT_OK)
        c->node_record = li.record_size;
    if (bspkit_get_lump_info(c->map, BSPKIT_Q_PLANES, &li) == BSPKIT_OK)
        c->plane_record = li.record_size;
    /* Clip brushes are a nicety too: without a readable clip hull there are none. */
    r = bspkit_get_clipnodes(c->map, &c->clipnodes, &c->nclipnodes, c->err);
    if (r == BSPKIT_ERR_NOMEM)
        return r;
    if (r != BSPKIT_OK) {
        c->clipnodes = NULL;
        c->nclipnodes = 0;
    }
    if (bspkit_get_lump_info(c->map, BSPKIT_Q_CLIPNODES, &li) == BSPKIT_OK)
        c->clipnode_record = li.record_size;
    /* A small tree is walked sooner than threads start. */
    if (c->threads == 0 && c->nnodes + c->nclipnodes < SMALL_TREE)
        c->threads = 1;
    c->clip_visited = calloc(c->nclipnodes + 1, 1);
    c->visited = calloc(c->nnodes + 1, 1);
    c->built = calloc(c->nmodels + 1, 1);
    if (!c->visited || !c->built || !c->clip_visited)
        return m220_nomem(c);
    size_t file_size;
    bspkit_map_bytes(c->map, &file_size);
    c->work_limit = WORK_BASE + (uint64_t)WORK_PER_RECORD * (c->nnodes + c->nleafs);
    c->store_limit = file_size + (1u << 20);
    c->out_limit = 64 * file_size + (1u << 20);
    if ((r = m220_load_canonical_planes(c)) != BSPKIT_OK)
        return r;
    return m220_load_faces(c);
}

bspkit_result bk_decompile_map220(bspkit_map *map, const bspkit_decompile_options *opts, bk_tbuf *out,
                                  bspkit_decompile_stats *stats, bspkit_error *err)
{
    dctx c = {.map = map, .err = err, .threads = opts->threads};
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
            r = m220_nomem(&c);
            goto done;
        }
    }
done:
    bk_region_ctx_free(&c.rc);
    bk_region_free(&c.store);
    bk_region_free(&c.clip_store);
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
    free(c.solid_leaves);
    free(c.subtrees);
    free(c.grid_start);
    free(c.leaf_grid);
    bk_region_free(&c.frontier_store);
    bk_region_free(&c.solid_store);
    free(c.built);
    free(c.mfaces);
    free(c.fpoints);
    free(c.plane_start);
    free(c.face_order);
    for (int k = 0; k < 6; k++)
        free(c.axis_faces[k]);
    return r;
}
