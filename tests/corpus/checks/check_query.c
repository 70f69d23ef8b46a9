/* Spatial queries over the shared corpus.
 *  - Leafs: the centre of every leaf's bounding box, walked down the tree of
 *    the model that owns the leaf, must land in that leaf or in a leaf whose
 *    box contains the centre (1 unit of slack: Quake boxes are rounded to
 *    integers). Leafs with an empty or zero-volume box are skipped.
 *  - Source: for each CONTENTS_SOLID brush with six axial sides, the centre
 *    of the box those sides span is checked here, against every side plane,
 *    to be inside the brush; when it is, bspkit_point_contents() in the
 *    brush's model must include CONTENTS_SOLID.
 *  - Quake/GoldSrc: the centre of each non-empty hull-0 leaf (solid, water,
 *    sky, ...) must have that leaf's contents in hull 0, and a point solid
 *    in hull 0 must be solid in hull 1, whose clip tree is stored separately
 *    and is the solid grown by the player box. Rates below 99% fail.
 *  - Visibility: bspkit_vis_stats() on every map with vis data; the
 *    compressed size must equal vbspinfo's "visdata" row when
 *    <map>.info.txt exists. */
#include "bspkit/bspkit.h"
#include "bspkit/query.h"
#include "corpus_walk.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int maps, skipped_unsupported, failures;
static uint64_t leafs_checked, leafs_ok, leafs_degenerate, leafs_unowned;
static uint64_t leafs_inside, leafs_exact, leafs_outside, leafs_on_plane, contents_checked, contents_ok;
static uint64_t brushes_checked, brushes_solid, brushes_not_axial, brushes_centre_outside, brushes_unowned;
static uint64_t hull_checked, hull_solid;
static int vis_maps, vbspinfo_compared;
static uint64_t clusters_checked, clusters_self_visible, pas_checked, pas_superset;
static double vis_percent_sum;

static void fail(const char *rel, const char *fmt, const char *detail)
{
    printf("FAIL %s: ", rel);
    printf(fmt, detail);
    printf("\n");
    failures++;
}

static bool degenerate(const bspkit_vec3 *lo, const bspkit_vec3 *hi)
{
    return !(hi->x > lo->x && hi->y > lo->y && hi->z > lo->z);
}

static bspkit_vec3 centre(const bspkit_vec3 *lo, const bspkit_vec3 *hi)
{
    return (bspkit_vec3){(lo->x + hi->x) / 2, (lo->y + hi->y) / 2, (lo->z + hi->z) / 2};
}

static bool box_holds(const bspkit_leaf *l, bspkit_vec3 p)
{
    const float slack = 1.0f;
    return p.x >= l->mins.x - slack && p.x <= l->maxs.x + slack && p.y >= l->mins.y - slack &&
           p.y <= l->maxs.y + slack && p.z >= l->mins.z - slack && p.z <= l->maxs.z + slack;
}

/* Where each leaf hangs in the trees, found here by an explicit-stack walk
 * with a visited mark per node: the first model whose tree reaches it
 * (-1: none) and its parent node and side (children[side]). Nodes get
 * their parents the same way, so a leaf's region is the chain of half-spaces
 * up to the head node. */
typedef struct tree_info {
    int32_t *leaf_owner, *leaf_parent, *node_parent;
    uint8_t *leaf_side, *node_side;
} tree_info;

static void tree_free(tree_info *t)
{
    free(t->leaf_owner);
    free(t->leaf_parent);
    free(t->node_parent);
    free(t->leaf_side);
    free(t->node_side);
}

static bool tree_build(tree_info *t, const bspkit_model *models, size_t nmodels, const bspkit_node *nodes,
                       size_t nnodes, size_t nleafs)
{
    t->leaf_owner = malloc((nleafs + 1) * sizeof(int32_t));
    t->leaf_parent = malloc((nleafs + 1) * sizeof(int32_t));
    t->leaf_side = calloc(nleafs + 1, 1);
    t->node_parent = malloc((nnodes + 1) * sizeof(int32_t));
    t->node_side = calloc(nnodes + 1, 1);
    uint8_t *seen = calloc(nnodes + 1, 1);
    /* Every node is expanded once and pushes two entries: 2 * nnodes + 1 at most. */
    int32_t(*stack)[3] = malloc((2 * nnodes + 2) * sizeof *stack); /* child, parent, side */
    bool ok = t->leaf_owner && t->leaf_parent && t->leaf_side && t->node_parent && t->node_side && seen && stack;
    for (size_t i = 0; ok && i < nleafs; i++)
        t->leaf_owner[i] = t->leaf_parent[i] = -1;
    for (size_t i = 0; ok && i < nnodes; i++)
        t->node_parent[i] = -1;
    for (size_t m = 0; ok && m < nmodels; m++) {
        size_t top = 0;
        stack[top][0] = models[m].headnode[0];
        stack[top][1] = -1;
        stack[top++][2] = 0;
        while (top > 0) {
            top--;
            int32_t n = stack[top][0], parent = stack[top][1];
            uint8_t side = (uint8_t)stack[top][2];
            if (n < 0) {
                int64_t leaf = -(int64_t)n - 1;
                if ((uint64_t)leaf < nleafs && t->leaf_owner[leaf] < 0) {
                    t->leaf_owner[leaf] = (int32_t)m;
                    t->leaf_parent[leaf] = parent;
                    t->leaf_side[leaf] = side;
                }
                continue;
            }
            if ((size_t)n >= nnodes || seen[n])
                continue;
            seen[n] = 1;
            t->node_parent[n] = parent;
            t->node_side[n] = side;
            for (int k = 0; k < 2; k++) {
                stack[top][0] = nodes[n].children[k];
                stack[top][1] = n;
                stack[top++][2] = k;
            }
        }
    }
    free(seen);
    free(stack);
    if (!ok)
        tree_free(t);
    return ok;
}

/* Which side of every plane on the leaf's path `p` lies, computed with the
 * full dot product: 1 strictly inside the region, 0 outside it, -1 within
 * EPS of a plane (a tie the engines' rules decide). */
#define EPS 0.01
static int in_region(const tree_info *t, const bspkit_node *nodes, size_t nnodes, const bspkit_plane *planes,
                     size_t nplanes, size_t leaf, bspkit_vec3 p)
{
    int32_t n = t->leaf_parent[leaf];
    uint8_t side = t->leaf_side[leaf];
    int result = 1;
    for (size_t steps = 0; n >= 0 && steps <= nnodes; steps++) {
        int32_t pi = nodes[n].plane;
        if (pi < 0 || (size_t)pi >= nplanes)
            return 0;
        const bspkit_plane *pl = &planes[pi];
        double d = (double)pl->normal.x * p.x + (double)pl->normal.y * p.y + (double)pl->normal.z * p.z - pl->dist;
        if (d > -EPS && d < EPS)
            result = -1;
        else if ((d < 0) != (side == 1))
            return 0;
        side = t->node_side[n];
        n = t->node_parent[n];
    }
    return result;
}

/* Quake/GoldSrc: the clip hulls are the hull-0 solid grown by the player
 * boxes and stored as a separate tree, so a point solid in hull 0 must be
 * solid in every clip hull. */
static void check_hulls(const char *rel, bspkit_map *map, bspkit_vec3 c)
{
    bspkit_error err;
    int32_t h0, hn;
    if (bspkit_point_contents(map, c, 0, &h0, &err) != BSPKIT_OK) {
        fail(rel, "point_contents hull 0: %s", err.message);
        return;
    }
    if (h0 != BSPKIT_Q_CONTENTS_SOLID)
        return;
    int hulls = bspkit_map_format(map)->family == BSPKIT_FAMILY_GOLDSRC ? 3 : 2;
    for (int h = 1; h <= hulls; h++) {
        bspkit_result r = bspkit_point_contents(map, c, h, &hn, &err);
        if (r == BSPKIT_ERR_NOT_FOUND)
            return; /* no clip hulls in this map */
        if (r != BSPKIT_OK) {
            fail(rel, "point_contents clip hull: %s", err.message);
            return;
        }
        hull_checked++;
        hull_solid += hn == BSPKIT_Q_CONTENTS_SOLID;
    }
}

static void check_leafs(const char *rel, bspkit_map *map, const bspkit_leaf *leafs, size_t nleafs,
                        const tree_info *t)
{
    const bspkit_node *nodes;
    const bspkit_plane *planes;
    size_t nnodes, nplanes;
    bspkit_error err;
    if (bspkit_get_nodes(map, &nodes, &nnodes, &err) != BSPKIT_OK ||
        bspkit_get_planes(map, &planes, &nplanes, &err) != BSPKIT_OK) {
        fail(rel, "tree lumps: %s", err.message);
        return;
    }
    int reported = 0;
    for (size_t i = 0; i < nleafs; i++) {
        const bspkit_leaf *l = &leafs[i];
        if (degenerate(&l->mins, &l->maxs)) {
            leafs_degenerate++;
            continue;
        }
        if (t->leaf_owner[i] < 0) {
            leafs_unowned++;
            continue;
        }
        bspkit_vec3 c = centre(&l->mins, &l->maxs);
        uint32_t got;
        leafs_checked++;
        if (bspkit_point_leaf(map, t->leaf_owner[i], c, &got, &err) != BSPKIT_OK) {
            if (reported++ < 3)
                fail(rel, "point_leaf: %s", err.message);
            continue;
        }
        if (got == i || (got < nleafs && box_holds(&leafs[got], c)))
            leafs_ok++;
        int region = in_region(t, nodes, nnodes, planes, nplanes, i, c);
        if (region < 0) {
            leafs_on_plane++;
        } else if (region == 0) {
            leafs_outside++;
        } else {
            leafs_inside++;
            if (got == i) {
                leafs_exact++;
                /* Quake/GoldSrc hull 0 is the leaf's contents (Source adds brushes: checked below). */
                int32_t contents;
                if (bspkit_map_format(map)->family != BSPKIT_FAMILY_SOURCE) {
                    contents_checked++;
                    if (bspkit_point_contents_model(map, t->leaf_owner[i], c, 0, &contents, &err) == BSPKIT_OK &&
                        contents == l->contents)
                        contents_ok++;
                }
            } else if (reported++ < 3) {
                char msg[200];
                snprintf(msg, sizeof msg, "centre of leaf %zu (%g %g %g) is inside it but the walk gives leaf %u",
                         i, c.x, c.y, c.z, got);
                fail(rel, "%s", msg);
            }
        }
        if (bspkit_map_format(map)->family != BSPKIT_FAMILY_SOURCE && t->leaf_owner[i] == 0)
            check_hulls(rel, map, c);
    }
}

/* Source brushes: brush -> model through the leafs that list it. */
static void check_source_brushes(const char *rel, bspkit_map *map, const bspkit_leaf *leafs, size_t nleafs,
                                 const int32_t *owner)
{
    const bspkit_brush *brushes;
    const bspkit_brushside *sides;
    const bspkit_plane *planes;
    const uint32_t *lb;
    size_t nbrushes, nsides, nplanes, nlb;
    bspkit_error err;
    if (bspkit_get_brushes(map, &brushes, &nbrushes, &err) != BSPKIT_OK ||
        bspkit_get_brushsides(map, &sides, &nsides, &err) != BSPKIT_OK ||
        bspkit_get_planes(map, &planes, &nplanes, &err) != BSPKIT_OK ||
        bspkit_get_leaf_brushes(map, &lb, &nlb, &err) != BSPKIT_OK) {
        fail(rel, "brush lumps: %s", err.message);
        return;
    }
    int32_t *brush_model = malloc((nbrushes + 1) * sizeof *brush_model);
    if (!brush_model)
        return;
    for (size_t i = 0; i < nbrushes; i++)
        brush_model[i] = -1;
    for (size_t i = 0; i < nleafs; i++) {
        const bspkit_leaf *l = &leafs[i];
        if (owner[i] < 0 || (uint64_t)l->first_leaf_brush + l->num_leaf_brushes > nlb)
            continue;
        for (uint32_t k = 0; k < l->num_leaf_brushes; k++) {
            uint32_t b = lb[l->first_leaf_brush + k];
            if (b < nbrushes && brush_model[b] < 0)
                brush_model[b] = owner[i];
        }
    }
    int reported = 0;
    for (size_t bi = 0; bi < nbrushes; bi++) {
        const bspkit_brush *b = &brushes[bi];
        if (!(b->contents & BSPKIT_S_CONTENTS_SOLID))
            continue;
        if (b->first_side < 0 || b->num_sides <= 0 || (uint64_t)b->first_side + (uint64_t)b->num_sides > nsides) {
            brushes_not_axial++;
            continue;
        }
        /* Box from the axial sides: +axis normal bounds the max, -axis the min. */
        double lo[3] = {NAN, NAN, NAN}, hi[3] = {NAN, NAN, NAN};
        bool planes_ok = true;
        for (int32_t s = 0; s < b->num_sides; s++) {
            uint32_t pi = sides[b->first_side + s].plane;
            if (pi >= nplanes) {
                planes_ok = false;
                break;
            }
            const bspkit_plane *p = &planes[pi];
            const float n[3] = {p->normal.x, p->normal.y, p->normal.z};
            for (int a = 0; a < 3; a++) {
                bool axial = n[(a + 1) % 3] == 0 && n[(a + 2) % 3] == 0;
                if (axial && n[a] == 1)
                    hi[a] = p->dist;
                else if (axial && n[a] == -1)
                    lo[a] = -(double)p->dist;
            }
        }
        if (!planes_ok || isnan(lo[0]) || isnan(lo[1]) || isnan(lo[2]) || isnan(hi[0]) || isnan(hi[1]) ||
            isnan(hi[2])) {
            brushes_not_axial++;
            continue;
        }
        bspkit_vec3 c = {(float)((lo[0] + hi[0]) / 2), (float)((lo[1] + hi[1]) / 2), (float)((lo[2] + hi[2]) / 2)};
        bool inside = true;
        for (int32_t s = 0; s < b->num_sides && inside; s++) {
            const bspkit_plane *p = &planes[sides[b->first_side + s].plane];
            double d = (double)p->normal.x * c.x + (double)p->normal.y * c.y + (double)p->normal.z * c.z - p->dist;
            inside = d < -EPS; /* on a side plane, the tie rule decides: not a fair test */
        }
        if (!inside) {
            brushes_centre_outside++;
            continue;
        }
        if (brush_model[bi] < 0) {
            brushes_unowned++;
            continue;
        }
        brushes_checked++;
        int32_t contents = 0;
        if (bspkit_point_contents_model(map, brush_model[bi], c, 0, &contents, &err) != BSPKIT_OK) {
            if (reported++ < 3)
                fail(rel, "point_contents: %s", err.message);
            continue;
        }
        if (contents & BSPKIT_S_CONTENTS_SOLID) {
            brushes_solid++;
        } else if (reported++ < 3) {
            char msg[200];
            snprintf(msg, sizeof msg, "centre (%g %g %g) of solid brush %zu has contents 0x%x", c.x, c.y, c.z, bi,
                     (unsigned)contents);
            fail(rel, "%s", msg);
        }
    }
    free(brush_model);
}

/* vbspinfo's "visdata  [variable]  BYTES/MAX" row, or -1. */
static long long vbspinfo_visdata(const char *root, const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.info.txt", root, rel);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[512];
    long long bytes = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "visdata", 7) != 0)
            continue;
        const char *p = strchr(line, ']');
        if (p && sscanf(p + 1, " %lld/", &bytes) != 1)
            bytes = -1;
        break;
    }
    fclose(f);
    return bytes;
}

/* Per cluster (through its first leaf): the PVS row marks the cluster
 * itself (vis compilers always do), and the PAS row holds the PVS row (the
 * PAS is the union of the PVS rows of what is visible). Quake/GoldSrc PAS
 * rows are computed and cost a row per visible leaf: only the first 16
 * clusters are checked there. */
static void check_leaf_rows(const char *rel, bspkit_map *map, uint32_t rows, uint32_t row_bytes)
{
    const bspkit_leaf *leafs;
    size_t nleafs;
    bspkit_error err;
    uint8_t *seen = calloc(rows, 1), *pvs = malloc(row_bytes), *pas = malloc(row_bytes);
    bool source = bspkit_map_format(map)->family == BSPKIT_FAMILY_SOURCE;
    if (!seen || !pvs || !pas || bspkit_get_leafs(map, &leafs, &nleafs, &err) != BSPKIT_OK) {
        fail(rel, "%s", "leafs or memory unavailable for the vis rows");
        goto done;
    }
    for (size_t i = 0; i < nleafs; i++) {
        int32_t c;
        if (bspkit_leaf_cluster(map, (uint32_t)i, &c, &err) != BSPKIT_OK) {
            fail(rel, "leaf_cluster: %s", err.message);
            goto done;
        }
        if (c < 0 || seen[c])
            continue;
        seen[c] = 1;
        if (bspkit_leaf_vis_row(map, (uint32_t)i, BSPKIT_VIS_PVS, pvs, row_bytes, &err) != BSPKIT_OK) {
            fail(rel, "leaf_vis_row: %s", err.message);
            goto done;
        }
        clusters_checked++;
        clusters_self_visible += (pvs[c / 8] >> (c % 8)) & 1;
        if (!source && c >= 16)
            continue;
        if (bspkit_leaf_vis_row(map, (uint32_t)i, BSPKIT_VIS_PAS, pas, row_bytes, &err) != BSPKIT_OK) {
            fail(rel, "leaf_vis_row PAS: %s", err.message);
            goto done;
        }
        bool superset = true;
        for (uint32_t k = 0; k < row_bytes; k++)
            superset = superset && (pvs[k] & ~pas[k]) == 0;
        pas_checked++;
        pas_superset += superset;
    }
done:
    free(seen);
    free(pvs);
    free(pas);
}

static void check_vis(const char *root, const char *rel, bspkit_map *map)
{
    struct bspkit_vis_stats st;
    bspkit_error err;
    if (bspkit_vis_stats(map, &st, &err) != BSPKIT_OK) {
        fail(rel, "vis_stats: %s", err.message);
        return;
    }
    if (st.rows > 0) {
        vis_maps++;
        vis_percent_sum += st.average_visible;
        if (st.min_visible > st.max_visible || st.max_visible > st.rows || st.average_visible < 0 ||
            st.average_visible > 100)
            fail(rel, "%s", "vis stats out of range");
    }
    if (st.rows > 0)
        check_leaf_rows(rel, map, st.rows, st.row_bytes);
    if (bspkit_map_format(map)->family != BSPKIT_FAMILY_SOURCE)
        return;
    long long want = vbspinfo_visdata(root, rel);
    if (want < 0)
        return;
    vbspinfo_compared++;
    if ((long long)st.compressed_size != want) {
        char msg[120];
        snprintf(msg, sizeof msg, "visdata %llu bytes, vbspinfo says %lld", (unsigned long long)st.compressed_size,
                 want);
        fail(rel, "%s", msg);
    }
}

static void visit(const char *root, const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    bspkit_map *map = NULL;
    bspkit_error err;
    bspkit_result r = bspkit_open_file(path, NULL, &map, &err);
    if (r == BSPKIT_ERR_UNSUPPORTED) {
        skipped_unsupported++;
        return;
    }
    if (r != BSPKIT_OK) {
        fail(rel, "open: %s", err.message);
        return;
    }
    maps++;
    const bspkit_model *models;
    const bspkit_node *nodes;
    const bspkit_leaf *leafs;
    size_t nmodels, nnodes, nleafs;
    if (bspkit_get_models(map, &models, &nmodels, &err) != BSPKIT_OK ||
        bspkit_get_nodes(map, &nodes, &nnodes, &err) != BSPKIT_OK ||
        bspkit_get_leafs(map, &leafs, &nleafs, &err) != BSPKIT_OK) {
        fail(rel, "tree lumps: %s", err.message);
        bspkit_close(map);
        return;
    }
    tree_info t;
    if (!tree_build(&t, models, nmodels, nodes, nnodes, nleafs)) {
        fail(rel, "%s", "out of memory");
        bspkit_close(map);
        return;
    }
    check_leafs(rel, map, leafs, nleafs, &t);
    if (bspkit_map_format(map)->family == BSPKIT_FAMILY_SOURCE)
        check_source_brushes(rel, map, leafs, nleafs, t.leaf_owner);
    check_vis(root, rel, map);
    tree_free(&t);
    bspkit_close(map);
}

static double rate(uint64_t ok, uint64_t n) { return n ? 100.0 * (double)ok / (double)n : 100.0; }

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s MAPS_DIR\n", argv[0]);
        return 2;
    }
    struct stat st;
    if (stat(argv[1], &st) != 0 || !S_ISDIR(st.st_mode)) {
        printf("skipped: %s not present\n", argv[1]);
        return 0;
    }
    corpus_walk(argv[1], visit);
    if (contents_ok < contents_checked) {
        printf("FAIL: hull-0 contents differ from the leaf's for %llu leaf centres\n",
               (unsigned long long)(contents_checked - contents_ok));
        failures++;
    }
    if (hull_checked && hull_solid * 100 < hull_checked * 99) {
        printf("FAIL: only %.3f%% of hull-0 solid points are solid in the clip hulls\n",
               rate(hull_solid, hull_checked));
        failures++;
    }
    if (clusters_checked && clusters_self_visible * 100 < clusters_checked * 99) {
        printf("FAIL: only %.3f%% of clusters see themselves\n", rate(clusters_self_visible, clusters_checked));
        failures++;
    }
    if (pas_superset < pas_checked) {
        printf("FAIL: %llu PAS rows lack bits of their PVS row\n", (unsigned long long)(pas_checked - pas_superset));
        failures++;
    }
    if (brushes_checked && brushes_solid * 100 < brushes_checked * 99) {
        printf("FAIL: only %.3f%% of solid brush centres are solid\n", rate(brushes_solid, brushes_checked));
        failures++;
    }
    printf("query: %d maps (%d unsupported skipped)\n", maps, skipped_unsupported);
    printf("  leafs: %llu centres checked (%llu with empty boxes skipped, %llu in no model tree); %.3f%% land in "
           "their leaf or a leaf whose box holds them\n",
           (unsigned long long)leafs_checked, (unsigned long long)leafs_degenerate, (unsigned long long)leafs_unowned,
           rate(leafs_ok, leafs_checked));
    printf("  by the planes on each leaf's path: %llu centres inside their leaf (%.3f%% found exactly), %llu "
           "outside it, %llu on a plane\n",
           (unsigned long long)leafs_inside, rate(leafs_exact, leafs_inside), (unsigned long long)leafs_outside,
           (unsigned long long)leafs_on_plane);
    printf("  Quake/GoldSrc: hull-0 contents = leaf contents for %.3f%% of %llu; clip hulls solid at %.3f%% of %llu "
           "hull-0 solid points\n",
           rate(contents_ok, contents_checked), (unsigned long long)contents_checked, rate(hull_solid, hull_checked),
           (unsigned long long)hull_checked);
    printf("  Source solid brushes: %llu checked, %.3f%% solid; skipped: %llu without six axial sides, %llu with "
           "the box centre on or outside a side, %llu in no model's leafs\n",
           (unsigned long long)brushes_checked, rate(brushes_solid, brushes_checked),
           (unsigned long long)brushes_not_axial, (unsigned long long)brushes_centre_outside,
           (unsigned long long)brushes_unowned);
    printf("  vis: %d maps with vis data, mean visible %.2f%%, %d compared with vbspinfo's visdata; %.3f%% of %llu "
           "clusters see themselves; PAS holds PVS for %.3f%% of %llu\n",
           vis_maps, vis_maps ? vis_percent_sum / vis_maps : 0.0, vbspinfo_compared,
           rate(clusters_self_visible, clusters_checked), (unsigned long long)clusters_checked,
           rate(pas_superset, pas_checked), (unsigned long long)pas_checked);
    printf("%d failures\n", failures);
    return failures ? 1 : 0;
}
