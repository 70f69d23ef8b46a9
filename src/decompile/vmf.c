/* Source maps to Hammer VMF: brushes from BRUSHES/BRUSHSIDES, owned by the
 * model whose BSP tree reaches them, written into the world, func_detail
 * entities or their brush entity; entities with their outputs; displacement
 * data on the sides that carry it. Point entities that vbsp folds into lumps
 * are rebuilt in vmf_ents.c. */
#include "vmf_internal.h"

#include "bspkit/query.h"

#include "core/map.h"
#include "entities/values.h"
#include "core/surfedge.h"
#include "core/ascii.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    SURF_TRIGGER = 0x40,
    SURF_NODRAW = 0x80,
    SURF_HINT = 0x100,
    SURF_SKIP = 0x200,
};

/* ------------------------------------------------------------------------ */
/* Text                                                                      */
/* ------------------------------------------------------------------------ */

void vmf_indent(vmf_ctx *c, int level)
{
    static const char tabs[] = "\t\t\t\t\t\t\t\t";
    tb_put(c->out, tabs, (size_t)(level < 8 ? level : 8));
}

void vmf_kv(vmf_ctx *c, int level, const char *key, const char *value)
{
    vmf_indent(c, level);
    tb_puts(c->out, "\"");
    tb_puts(c->out, key);
    tb_puts(c->out, "\" \"");
    tb_puts(c->out, value);
    tb_puts(c->out, "\"\n");
}

static void open_block(vmf_ctx *c, int level, const char *name)
{
    vmf_indent(c, level);
    tb_puts(c->out, name);
    tb_puts(c->out, "\n");
    vmf_indent(c, level);
    tb_puts(c->out, "{\n");
}

static void close_block(vmf_ctx *c, int level)
{
    vmf_indent(c, level);
    tb_puts(c->out, "}\n");
}

static void kv_u64(vmf_ctx *c, int level, const char *key, uint64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    vmf_kv(c, level, key, buf);
}

bspkit_result vmf_check_size(vmf_ctx *c, int lump)
{
    if (c->out->size > c->out_limit)
        return bk_fail(c->err, BSPKIT_ERR_LIMIT, lump, -1, -1,
                       "decompile: the VMF would pass %zu bytes (the bound for this map's size) while writing %s",
                       c->out_limit, lump >= 0 ? bk_lump_name(c->map, lump) : "entities");
    return BSPKIT_OK;
}

/* ------------------------------------------------------------------------ */
/* Materials                                                                 */
/* ------------------------------------------------------------------------ */

/* True when s ends in "_<int>" and *start gets the underscore's position. */
static bool strip_int(const char *s, size_t len, size_t *start)
{
    size_t i = len;
    while (i > 0 && isdigit((unsigned char)s[i - 1]))
        i--;
    if (i == len)
        return false;
    if (i > 0 && s[i - 1] == '-')
        i--;
    if (i == 0 || s[i - 1] != '_')
        return false;
    *start = i - 1;
    return true;
}

void vmf_unpatch_material(const char *name, char *buf, size_t size)
{
    snprintf(buf, size, "%s", name);
    if (bk_ascii_ncasecmp(buf, "maps/", 5) != 0)
        return;
    const char *slash = strchr(buf + 5, '/');
    if (!slash || !slash[1])
        return;
    /* vbsp writes patched copies under maps/<map>/; the rest is the original name plus suffixes. */
    memmove(buf, slash + 1, strlen(slash + 1) + 1);
    for (bool changed = true; changed;) {
        changed = false;
        size_t len = strlen(buf), a, b, d;
        /* cubemap position: _X_Y_Z */
        if (strip_int(buf, len, &a) && strip_int(buf, a, &b) && strip_int(buf, b, &d) && d > 0) {
            buf[d] = '\0';
            changed = true;
            continue;
        }
        static const char wvt[] = "_wvt_patch";
        if (len > sizeof wvt - 1 && bk_ascii_casecmp(buf + len - (sizeof wvt - 1), wvt) == 0) {
            buf[len - (sizeof wvt - 1)] = '\0';
            changed = true;
            continue;
        }
        static const char depth[] = "_depth";
        if (strip_int(buf, len, &a) && a >= sizeof depth - 1 &&
            bk_ascii_ncasecmp(buf + a - (sizeof depth - 1), depth, sizeof depth - 1) == 0 && a > sizeof depth - 1) {
            buf[a - (sizeof depth - 1)] = '\0';
            changed = true;
        }
    }
}

/* A tool material for a side without a usable material, decided by the brush contents first. */
static const char *tool_material(int32_t contents, int32_t surf, const char *entity_class)
{
    uint32_t ct = (uint32_t)contents;
    if (ct & BSPKIT_S_CONTENTS_AREAPORTAL)
        return "TOOLS/TOOLSAREAPORTAL";
    bool visible = ct & (BSPKIT_S_CONTENTS_SOLID | BSPKIT_S_CONTENTS_WINDOW | BSPKIT_S_CONTENTS_GRATE |
                         BSPKIT_S_CONTENTS_WATER | BSPKIT_S_CONTENTS_SLIME);
    bool pc = ct & BSPKIT_S_CONTENTS_PLAYERCLIP, mc = ct & BSPKIT_S_CONTENTS_MONSTERCLIP;
    if (!visible && pc && mc)
        return "TOOLS/TOOLSCLIP";
    if (!visible && pc)
        return "TOOLS/TOOLSPLAYERCLIP";
    if (!visible && mc)
        return "TOOLS/TOOLSNPCCLIP";
    if (entity_class && strncmp(entity_class, "trigger_", 8) == 0)
        return "TOOLS/TOOLSTRIGGER";
    if (surf & SURF_TRIGGER)
        return "TOOLS/TOOLSTRIGGER";
    if (surf & SURF_HINT)
        return "TOOLS/TOOLSHINT";
    if (surf & SURF_SKIP)
        return "TOOLS/TOOLSSKIP";
    if ((ct & BSPKIT_S_CONTENTS_OPAQUE) && !visible)
        return "TOOLS/TOOLSOCCLUDER";
    if (!visible && (ct & (BSPKIT_S_CONTENTS_SOLID | BSPKIT_S_CONTENTS_MONSTER)) == 0 && ct != 0 &&
        !(ct & BSPKIT_S_CONTENTS_DETAIL))
        return "TOOLS/TOOLSINVISIBLE";
    return "TOOLS/TOOLSNODRAW";
}

/* The side's material: the texinfo's (un-patched) unless the contents say it is a clip or
 * portal brush whose sides carry no real material. */
static void side_material(vmf_ctx *c, const vmf_side_in *s, int32_t contents, const char *entity_class, char *buf,
                          size_t size, bool *tool)
{
    *tool = false;
    if (s->material) {
        snprintf(buf, size, "%s", s->material);
        return;
    }
    const char *name = NULL;
    int32_t surf = 0;
    if (s->texinfo >= 0 && (size_t)s->texinfo < c->ntexinfo) {
        const bspkit_texinfo *ti = &c->texinfo[s->texinfo];
        surf = ti->flags;
        if (ti->texture >= 0 && (size_t)ti->texture < c->ntexdata)
            name = bspkit_texdata_name(c->map, (size_t)ti->texture);
    }
    uint32_t ct = (uint32_t)contents;
    bool special = (ct & BSPKIT_S_CONTENTS_AREAPORTAL) ||
                   ((ct & (BSPKIT_S_CONTENTS_PLAYERCLIP | BSPKIT_S_CONTENTS_MONSTERCLIP)) &&
                    !(ct & (BSPKIT_S_CONTENTS_SOLID | BSPKIT_S_CONTENTS_WINDOW | BSPKIT_S_CONTENTS_GRATE |
                            BSPKIT_S_CONTENTS_WATER | BSPKIT_S_CONTENTS_SLIME)));
    /* Clip and portal brushes keep only tool names; skip/nodraw on them is compiler residue. */
    if (name && name[0] && !(special && bk_ascii_ncasecmp(name, "tools/", 6) == 0)) {
        vmf_unpatch_material(name, buf, size);
        return;
    }
    snprintf(buf, size, "%s", tool_material(contents, surf, entity_class));
    *tool = true;
}

/* Hammer's default axes for a plane without texture vectors (the nearest axial plane's). */
static void default_axes(bk_dvec n, bk_dvec *u, bk_dvec *v)
{
    double ax = fabs(n.x), ay = fabs(n.y), az = fabs(n.z);
    if (az >= ax && az >= ay)
        *u = (bk_dvec){1, 0, 0}, *v = (bk_dvec){0, -1, 0};
    else if (ax >= ay)
        *u = (bk_dvec){0, 1, 0}, *v = (bk_dvec){0, 0, -1};
    else
        *u = (bk_dvec){1, 0, 0}, *v = (bk_dvec){0, 0, -1};
}

static void write_axis(vmf_ctx *c, int level, const char *key, const float vec[4], bk_dvec dflt, bk_dvec offset)
{
    bk_dvec a = {vec ? vec[0] : 0, vec ? vec[1] : 0, vec ? vec[2] : 0};
    double len = dv_length(a), shift = 0, scale = 0.25;
    if (vec && len > 1e-9 && isfinite(len) && isfinite(vec[3])) {
        /* texel = dot(vec, p) + shift in model space; in the world p moves by offset */
        shift = vec[3] - dv_dot(a, offset);
        scale = 1.0 / len;
        a = dv_scale(a, 1.0 / len);
    } else {
        a = dflt;
    }
    char x[32], y[32], z[32], s[32], k[32], line[200];
    bk_decompile_num(x, sizeof x, a.x), bk_decompile_num(y, sizeof y, a.y), bk_decompile_num(z, sizeof z, a.z);
    bk_decompile_num(s, sizeof s, shift), bk_decompile_num(k, sizeof k, scale);
    snprintf(line, sizeof line, "[%s %s %s %s] %s", x, y, z, s, k);
    vmf_kv(c, level, key, line);
}

/* ------------------------------------------------------------------------ */
/* Faces on sides                                                            */
/* ------------------------------------------------------------------------ */

static bspkit_result index_faces(vmf_ctx *c)
{
    const int32_t *se;
    const bspkit_edge *edges;
    const bspkit_vec3 *verts;
    size_t nse, ne, nv;
    bspkit_result r;
    if ((r = bspkit_get_faces(c->map, &c->faces, &c->nfaces, c->err)) != BSPKIT_OK ||
        (c->nfaces == 0 && (r = bspkit_get_hdr_faces(c->map, &c->faces, &c->nfaces, c->err)) != BSPKIT_OK) ||
        (r = bspkit_get_surfedges(c->map, &se, &nse, c->err)) != BSPKIT_OK ||
        (r = bspkit_get_edges(c->map, &edges, &ne, c->err)) != BSPKIT_OK ||
        (r = bspkit_get_vertexes(c->map, &verts, &nv, c->err)) != BSPKIT_OK)
        return r;
    c->plane_face_start = calloc(c->nplanes + 1, sizeof *c->plane_face_start);
    c->plane_faces = calloc(c->nfaces + 1, sizeof *c->plane_faces);
    c->face_center = calloc(c->nfaces + 1, sizeof *c->face_center);
    c->face_center_ok = calloc(c->nfaces + 1, sizeof *c->face_center_ok);
    c->face_side = calloc(c->nfaces + 1, sizeof *c->face_side);
    if (!c->plane_face_start || !c->plane_faces || !c->face_center || !c->face_center_ok || !c->face_side)
        return bk_fail(c->err, BSPKIT_ERR_NOMEM, BSPKIT_S_FACES, -1, -1, "decompile: out of memory indexing faces");
    for (size_t f = 0; f < c->nfaces; f++) {
        const bspkit_face *fa = &c->faces[f];
        if (fa->plane < c->nplanes)
            c->plane_face_start[fa->plane + 1]++;
        if (fa->first_edge < 0 || fa->num_edges < 3 || !range_ok((uint64_t)fa->first_edge, (uint64_t)fa->num_edges, nse))
            continue;
        bk_dvec sum = {0, 0, 0};
        bool ok = true;
        for (int32_t k = 0; k < fa->num_edges && ok; k++) {
            int64_t v = bk_surfedge_vertex(se[fa->first_edge + k], edges, ne, nv);
            if (v < 0)
                ok = false;
            else
                sum = dv_add(sum, (bk_dvec){verts[v].x, verts[v].y, verts[v].z});
        }
        if (ok) {
            c->face_center[f] = dv_scale(sum, 1.0 / fa->num_edges);
            c->face_center_ok[f] = true;
        }
    }
    for (size_t p = 0; p < c->nplanes; p++)
        c->plane_face_start[p + 1] += c->plane_face_start[p];
    uint32_t *fill = calloc(c->nplanes + 1, sizeof *fill);
    if (!fill)
        return bk_fail(c->err, BSPKIT_ERR_NOMEM, BSPKIT_S_FACES, -1, -1, "decompile: out of memory indexing faces");
    for (size_t f = 0; f < c->nfaces; f++) {
        uint32_t p = c->faces[f].plane;
        if (p < c->nplanes)
            c->plane_faces[c->plane_face_start[p] + fill[p]++] = (uint32_t)f;
    }
    free(fill);
    /* Each face is tested against the sides of its plane; a hostile map sharing one plane
     * among everything gets a bounded number of tests and loses only the face links. */
    c->match_budget = 64ull * (c->nfaces + c->nbsides) + (1u << 20);
    return BSPKIT_OK;
}

/* Is point p inside convex polygon poly (CCW seen from normal n), within tol? */
static bool inside_poly(const bk_dvec *poly, size_t n, bk_dvec normal, bk_dvec p, double tol)
{
    for (size_t i = 0; i < n; i++) {
        bk_dvec a = poly[i], b = poly[(i + 1) % n];
        bk_dvec e = dv_sub(b, a);
        double len = dv_length(e);
        if (len < 1e-9)
            continue;
        /* inward direction of edge a->b for a CCW polygon: n x e */
        bk_dvec in = dv_scale(dv_cross(normal, e), 1.0 / len);
        if (dv_dot(in, dv_sub(p, a)) < -tol)
            return false;
    }
    return true;
}

/* Faces lying on side polygon `poly` (model space) of brush side `bs`: each gets `side_id`;
 * returns the first such face or -1. */
static int64_t match_faces(vmf_ctx *c, uint32_t plane, const bk_dplane *pl, const bk_dvec *poly, size_t n,
                           uint64_t side_id, int64_t *disp)
{
    int64_t first = -1;
    *disp = -1;
    uint32_t cands[2] = {plane, plane ^ 1u};
    for (int k = 0; k < 2; k++) {
        uint32_t p = cands[k];
        if (p >= c->nplanes)
            continue;
        for (uint32_t i = c->plane_face_start[p]; i < c->plane_face_start[p + 1]; i++) {
            if (c->match_budget == 0)
                return first;
            c->match_budget--;
            uint32_t f = c->plane_faces[i];
            if (!c->face_center_ok[f])
                continue;
            const bspkit_plane *fp = &c->planes[p];
            double sg = c->faces[f].side ? -1 : 1;
            bk_dvec fn = {fp->normal.x * sg, fp->normal.y * sg, fp->normal.z * sg};
            if (dv_dot(fn, pl->n) < 0.99 || fabs(fp->dist * sg - pl->d) > 0.1)
                continue;
            if (!inside_poly(poly, n, pl->n, c->face_center[f], 0.1))
                continue;
            if (first < 0)
                first = f;
            if (*disp < 0 && c->faces[f].dispinfo >= 0 && (size_t)c->faces[f].dispinfo < c->ndisp)
                *disp = c->faces[f].dispinfo;
            if (c->face_side[f] == 0)
                c->face_side[f] = (uint32_t)side_id;
        }
    }
    return first;
}

/* ------------------------------------------------------------------------ */
/* Displacements                                                             */
/* ------------------------------------------------------------------------ */

/* A DISP_TRIS tag (bspfile.h DISPTRI_TAG_WALKABLE 2, _BUILDABLE 4) in
 * Hammer's VMF encoding (COREDISPTRI_TAG_WALKABLE 1, _BUILDABLE 8); the
 * surface and surface-property bits have no VMF form. */
static unsigned vmf_triangle_tag(uint16_t bsp_tag)
{
    return ((bsp_tag & 0x2) ? 0x1u : 0u) | ((bsp_tag & 0x4) ? 0x8u : 0u);
}

static void write_rows(vmf_ctx *c, int level, const char *name, uint32_t rows, uint32_t per_row, int what,
                       const bspkit_disp_vert *dv, const uint16_t *tags, bk_dvec normal)
{
    open_block(c, level, name);
    char key[16], num[32];
    for (uint32_t i = 0; i < rows; i++) {
        vmf_indent(c, level + 1);
        snprintf(key, sizeof key, "row%u", i);
        tb_printf(c->out, "\"%s\" \"", key);
        for (uint32_t j = 0; j < per_row; j++) {
            size_t v = (size_t)i * per_row + j;
            if (j)
                tb_puts(c->out, " ");
            switch (what) {
            case 0: /* normals */
                bk_decompile_num(num, sizeof num, dv[v].vec.x), tb_puts(c->out, num), tb_puts(c->out, " ");
                bk_decompile_num(num, sizeof num, dv[v].vec.y), tb_puts(c->out, num), tb_puts(c->out, " ");
                bk_decompile_num(num, sizeof num, dv[v].vec.z), tb_puts(c->out, num);
                break;
            case 1:
                bk_decompile_num(num, sizeof num, dv[v].dist), tb_puts(c->out, num);
                break;
            case 2: /* offsets */
                tb_puts(c->out, "0 0 0");
                break;
            case 3: /* offset normals: the base face's normal */
                bk_decompile_num(num, sizeof num, normal.x), tb_puts(c->out, num), tb_puts(c->out, " ");
                bk_decompile_num(num, sizeof num, normal.y), tb_puts(c->out, num), tb_puts(c->out, " ");
                bk_decompile_num(num, sizeof num, normal.z), tb_puts(c->out, num);
                break;
            case 4:
                bk_decompile_num(num, sizeof num, dv[v].alpha), tb_puts(c->out, num);
                break;
            default:
                tb_printf(c->out, "%u", tags ? vmf_triangle_tag(tags[v]) : 0u);
                break;
            }
        }
        tb_puts(c->out, "\"\n");
    }
    close_block(c, level);
}

/* The dispinfo block of displacement `d` when its ranges are sound; false when not written. */
static bool write_dispinfo(vmf_ctx *c, int level, size_t d, bk_dvec normal, bk_dvec offset)
{
    const bspkit_dispinfo *di = &c->disp[d];
    if (di->power < BSPKIT_DISP_MIN_POWER || di->power > BSPKIT_DISP_MAX_POWER)
        return false;
    uint64_t nv = bspkit_disp_vert_count(di->power), nt = bspkit_disp_tri_count(di->power);
    if (di->disp_vert_start < 0 || !range_ok((uint64_t)di->disp_vert_start, nv, c->ndverts))
        return false;
    bool tags = c->ndtris && di->disp_tri_start >= 0 && range_ok((uint64_t)di->disp_tri_start, nt, c->ndtris);
    uint32_t side = (1u << di->power) + 1, quads = side - 1;
    open_block(c, level, "dispinfo");
    char buf[128], x[32], y[32], z[32];
    snprintf(buf, sizeof buf, "%d", (int)di->power);
    vmf_kv(c, level + 1, "power", buf);
    bk_decompile_num(x, sizeof x, di->start_position.x + offset.x);
    bk_decompile_num(y, sizeof y, di->start_position.y + offset.y);
    bk_decompile_num(z, sizeof z, di->start_position.z + offset.z);
    snprintf(buf, sizeof buf, "[%s %s %s]", x, y, z);
    vmf_kv(c, level + 1, "startposition", buf);
    vmf_kv(c, level + 1, "flags", "0");
    vmf_kv(c, level + 1, "elevation", "0");
    vmf_kv(c, level + 1, "subdiv", "0");
    const bspkit_disp_vert *dv = &c->dverts[di->disp_vert_start];
    write_rows(c, level + 1, "normals", side, side, 0, dv, NULL, normal);
    write_rows(c, level + 1, "distances", side, side, 1, dv, NULL, normal);
    write_rows(c, level + 1, "offsets", side, side, 2, dv, NULL, normal);
    write_rows(c, level + 1, "offset_normals", side, side, 3, dv, NULL, normal);
    write_rows(c, level + 1, "alphas", side, side, 4, dv, NULL, normal);
    /* DISP_TRIS holds the two triangles of each quad in quad order: row i is quads (i, *). */
    write_rows(c, level + 1, "triangle_tags", quads, 2 * quads, 5, NULL, tags ? &c->dtris[di->disp_tri_start] : NULL,
               normal);
    open_block(c, level + 1, "allowed_verts");
    vmf_indent(c, level + 2);
    tb_puts(c->out, "\"10\" \"");
    for (int k = 0; k < 10; k++)
        tb_printf(c->out, k ? " %d" : "%d", (int)(int32_t)di->allowed_verts[k]);
    tb_puts(c->out, "\"\n");
    close_block(c, level + 1);
    close_block(c, level);
    c->st->displacements++;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Solids                                                                    */
/* ------------------------------------------------------------------------ */

static void write_plane_points(vmf_ctx *c, int level, const bk_dvec pts[3], bk_dvec offset)
{
    char line[300];
    size_t len = 0;
    for (int q = 0; q < 3; q++) {
        char x[32], y[32], z[32];
        bk_decompile_num(x, sizeof x, pts[q].x + offset.x);
        bk_decompile_num(y, sizeof y, pts[q].y + offset.y);
        bk_decompile_num(z, sizeof z, pts[q].z + offset.z);
        len += (size_t)snprintf(line + len, sizeof line - len, "%s(%s %s %s)", q ? " " : "", x, y, z);
        if (len >= sizeof line)
            len = sizeof line - 1;
    }
    vmf_kv(c, level, "plane", line);
}

static double min_area(void) { return 1e-3; }

bspkit_result vmf_write_solid(vmf_ctx *c, int level, const vmf_side_in *sides, size_t n, bk_dvec offset,
                              int32_t contents, const char *entity_class, bool *written)
{
    *written = false;
    if (n < 4 || n > c->max_sides)
        return BSPKIT_OK;
    for (size_t i = 0; i < n; i++)
        c->scratch_planes[i] = sides[i].plane;
    /* First pass: which sides have area (a brush needs four). */
    size_t good = 0;
    for (size_t i = 0; i < n; i++) {
        bk_dvec *poly;
        c->side_ok[i] = false;
        bool dup = false; /* a plane given twice writes one side */
        for (size_t k = 0; k < i && !dup; k++)
            dup = c->side_ok[k] && dv_dot(sides[k].plane.n, sides[i].plane.n) > 1.0 - 1e-5 &&
                  fabs(sides[k].plane.d - sides[i].plane.d) < 0.02;
        if (dup)
            continue;
        size_t m = bk_poly_side(c->scratch_planes, n, i, c->extent, 0.01, c->poly_a, c->poly_b, &poly);
        if (m < 3 || bk_poly_area(poly, m) < min_area())
            continue;
        bk_poly_plane_points(poly, m, &c->pts3[3 * i]);
        c->side_ok[i] = true;
        good++;
    }
    if (good < 4)
        return BSPKIT_OK;
    open_block(c, level, "solid");
    kv_u64(c, level + 1, "id", c->next_id++);
    for (size_t i = 0; i < n; i++) {
        if (!c->side_ok[i])
            continue;
        const vmf_side_in *s = &sides[i];
        uint64_t side_id = c->next_side_id++;
        open_block(c, level + 1, "side");
        kv_u64(c, level + 2, "id", side_id);
        write_plane_points(c, level + 2, &c->pts3[3 * i], offset);
        int32_t s_tex = s->texinfo;
        /* The face on this side: smoothing groups, overlay side ids, displacements. */
        char buf[32];
        int64_t face = -1, d = -1;
        if (s->brushside >= 0) {
            bk_dvec *poly;
            size_t m = bk_poly_side(c->scratch_planes, n, i, c->extent, 0.01, c->poly_a, c->poly_b, &poly);
            face = match_faces(c, c->bsides[s->brushside].plane, &s->plane, poly, m, side_id, &d);
        } else if (s->face >= 0 && (size_t)s->face < c->nfaces) {
            face = s->face;
            d = s->disp;
            if (c->face_side[face] == 0)
                c->face_side[face] = (uint32_t)side_id;
        }
        if (d >= 0 && (size_t)d < c->ndisp && c->disp[d].map_face < c->nfaces && s->brushside >= 0) {
            /* a displacement's material is its face's, which may differ from the side's */
            int32_t fti = c->faces[c->disp[d].map_face].texinfo;
            if (fti >= 0 && (size_t)fti < c->ntexinfo)
                s_tex = fti;
        }
        vmf_side_in eff = *s;
        eff.texinfo = s_tex;
        char mat[256];
        bool tool;
        side_material(c, &eff, contents, entity_class, mat, sizeof mat, &tool);
        c->st->tool_sides += tool;
        vmf_kv(c, level + 2, "material", mat);
        const bspkit_texinfo *ti = s_tex >= 0 && (size_t)s_tex < c->ntexinfo ? &c->texinfo[s_tex] : NULL;
        bk_dvec du, dvv;
        default_axes(s->plane.n, &du, &dvv);
        write_axis(c, level + 2, "uaxis", ti ? ti->texture_vecs[0] : NULL, du, offset);
        write_axis(c, level + 2, "vaxis", ti ? ti->texture_vecs[1] : NULL, dvv, offset);
        vmf_kv(c, level + 2, "rotation", "0");
        long lms = 16;
        if (ti) {
            double l = sqrt((double)ti->lightmap_vecs[0][0] * ti->lightmap_vecs[0][0] +
                            (double)ti->lightmap_vecs[0][1] * ti->lightmap_vecs[0][1] +
                            (double)ti->lightmap_vecs[0][2] * ti->lightmap_vecs[0][2]);
            if (l > 1e-6 && isfinite(l) && 1.0 / l < 1e6)
                lms = lround(1.0 / l);
            if (lms < 1)
                lms = 1;
        }
        snprintf(buf, sizeof buf, "%ld", lms);
        vmf_kv(c, level + 2, "lightmapscale", buf);
        snprintf(buf, sizeof buf, "%lu", face >= 0 ? (unsigned long)c->faces[face].smoothing_groups : 0ul);
        vmf_kv(c, level + 2, "smoothing_groups", buf);
        if (s->brushside < 0 && d >= 0 && (size_t)d < c->ndisp && !c->disp_written[d] &&
            !(c->opts->skip & BSPKIT_DECOMPILE_NO_DISPLACEMENTS))
            c->disp_written[d] = write_dispinfo(c, level + 2, (size_t)d, s->plane.n, offset);
        if (s->brushside >= 0 && !(c->opts->skip & BSPKIT_DECOMPILE_NO_DISPLACEMENTS)) {
            /* The displacement comes from the face lying on the side, not from the side's own
             * dispinfo field: older compilers leave 0 there on every side. */
            if (d >= 0 && (size_t)d < c->ndisp && !c->disp_written[d])
                c->disp_written[d] = write_dispinfo(c, level + 2, (size_t)d, s->plane.n, offset);
        }
        close_block(c, level + 1);
        c->st->sides++;
    }
    close_block(c, level);
    c->st->brushes++;
    *written = true;
    return BSPKIT_OK;
}

bspkit_result vmf_write_thin_solid(vmf_ctx *c, int level, const bk_dvec *pts, size_t n, bk_dvec normal,
                                   const vmf_side_in *front, bool *written)
{
    *written = false;
    normal = dv_normalize(normal);
    if (n < 3 || n + 2 > c->max_sides || dv_length(normal) < 0.5)
        return BSPKIT_OK;
    vmf_side_in sides[VMF_MAX_SIDES];
    bk_dvec center = {0, 0, 0};
    for (size_t i = 0; i < n; i++)
        center = dv_add(center, pts[i]);
    center = dv_scale(center, 1.0 / n);
    double d = dv_dot(normal, center);
    const double thickness = 2;
    size_t k = 0;
    sides[k] = *front;
    sides[k++].plane = (bk_dplane){normal, d};
    sides[k++] = (vmf_side_in){{dv_scale(normal, -1), -(d - thickness)}, -1, -1, "TOOLS/TOOLSNODRAW", -1, -1};
    for (size_t i = 0; i < n; i++) {
        bk_dvec a = pts[i], b = pts[(i + 1) % n];
        bk_dvec en = dv_normalize(dv_cross(dv_sub(b, a), normal));
        if (dv_length(en) < 0.5)
            continue;
        if (dv_dot(en, dv_sub(center, a)) > 0)
            en = dv_scale(en, -1);
        sides[k++] = (vmf_side_in){{en, dv_dot(en, a)}, -1, -1, "TOOLS/TOOLSNODRAW", -1, -1};
    }
    return vmf_write_solid(c, level, sides, k, (bk_dvec){0, 0, 0}, 0, NULL, written);
}

/* The sides of BRUSHES record `b` in model space (bevel sides too when `bevels`); false when a
 * plane is unusable. */
static bool brush_sides(vmf_ctx *c, size_t b, bool bevels, vmf_side_in *out, size_t *n)
{
    const bspkit_brush *br = &c->brushes[b];
    *n = 0;
    if (br->first_side < 0 || br->num_sides < 4 || !range_ok((uint64_t)br->first_side, (uint64_t)br->num_sides, c->nbsides))
        return false;
    for (int32_t k = 0; k < br->num_sides; k++) {
        size_t si = (size_t)br->first_side + (size_t)k;
        const bspkit_brushside *s = &c->bsides[si];
        if (s->bevel && !bevels)
            continue;
        if (s->plane >= c->nplanes || *n >= c->max_sides)
            return false;
        const bspkit_plane *p = &c->planes[s->plane];
        bk_dvec nn = {p->normal.x, p->normal.y, p->normal.z};
        double len = dv_length(nn);
        if (!isfinite(len) || !isfinite(p->dist) || fabs(len - 1) > 0.01 || fabs(p->dist) > 1e7)
            return false;
        out[(*n)++] = (vmf_side_in){{dv_scale(nn, 1.0 / len), p->dist / len}, (int64_t)si, s->texinfo, NULL, -1, -1};
    }
    return *n >= 4;
}

/* Does some side polygon reach out towards the starting square's edge (the planes do not close)? */
static bool unbounded(vmf_ctx *c, const vmf_side_in *sides, size_t n)
{
    if (n > c->max_sides)
        return false;
    for (size_t i = 0; i < n; i++)
        c->scratch_planes[i] = sides[i].plane;
    for (size_t i = 0; i < n; i++) {
        bk_dvec *poly;
        size_t m = bk_poly_side(c->scratch_planes, n, i, c->extent, 0.01, c->poly_a, c->poly_b, &poly);
        for (size_t k = 0; k < m; k++)
            if (fabs(poly[k].x) > 0.5 * c->extent || fabs(poly[k].y) > 0.5 * c->extent ||
                fabs(poly[k].z) > 0.5 * c->extent)
                return true;
    }
    return false;
}

static bspkit_result write_brush(vmf_ctx *c, int level, size_t b, bk_dvec offset, const char *entity_class,
                                 bool *written)
{
    *written = false;
    vmf_side_in *sides = malloc(c->max_sides * sizeof *sides);
    if (!sides)
        return bk_fail(c->err, BSPKIT_ERR_NOMEM, BSPKIT_S_BRUSHES, -1, -1, "decompile: out of memory");
    size_t n;
    bspkit_result r = BSPKIT_OK;
    bool ok = brush_sides(c, b, false, sides, &n);
    /* Some compilers flag real sides as bevels; when the rest does not close, keep them all. */
    if (!ok || unbounded(c, sides, n))
        ok = brush_sides(c, b, true, sides, &n);
    if (ok) {
        /* model space -> world: every plane moves by the entity origin */
        r = vmf_write_solid(c, level, sides, n, offset, c->brushes[b].contents, entity_class, written);
    }
    free(sides);
    if (r == BSPKIT_OK && !*written)
        c->st->skipped_brushes++;
    if (r == BSPKIT_OK)
        r = vmf_check_size(c, BSPKIT_S_BRUSHES);
    return r;
}

/* ------------------------------------------------------------------------ */
/* Entities                                                                  */
/* ------------------------------------------------------------------------ */

/* An output: target, input, parameter, delay, refire count separated by ESC (newer compilers)
 * or commas, the last two numeric. */
static bool is_output(const char *v)
{
    int esc = 0, comma = 0;
    for (const char *p = v; *p; p++)
        esc += *p == 0x1b, comma += *p == ',';
    char sep = esc == 4 ? 0x1b : (comma == 4 && esc == 0 ? ',' : 0);
    if (!sep)
        return false;
    const char *last = strrchr(v, sep);
    const char *prev = last;
    while (prev > v && prev[-1] != sep)
        prev--;
    char *end;
    strtod(prev, &end);
    if (end == prev || end != last)
        return false;
    long times = strtol(last + 1, &end, 10);
    (void)times;
    return end != last + 1 && *end == '\0';
}

/* The key/values of entity e, outputs gathered into a connections block after the rest. */
static void write_entity_keys(vmf_ctx *c, int level, const bspkit_entities *ents, size_t e, bool drop_model)
{
    const bspkit_entity *en = &ents->entities[e];
    bool outputs = false;
    for (size_t k = 0; k < en->num_pairs; k++) {
        const bspkit_keyvalue *kv = &ents->pairs[en->first_pair + k];
        if (drop_model && strcmp(kv->key, "model") == 0 && bk_model_ref(kv->value) >= 0)
            continue;
        if (is_output(kv->value)) {
            outputs = true;
            continue;
        }
        vmf_kv(c, level, kv->key, kv->value);
    }
    if (!outputs)
        return;
    open_block(c, level, "connections");
    for (size_t k = 0; k < en->num_pairs; k++) {
        const bspkit_keyvalue *kv = &ents->pairs[en->first_pair + k];
        if (is_output(kv->value))
            vmf_kv(c, level + 1, kv->key, kv->value);
    }
    close_block(c, level);
}

static void editor_block(vmf_ctx *c, int level)
{
    open_block(c, level, "editor");
    vmf_kv(c, level + 1, "color", "220 30 220");
    vmf_kv(c, level + 1, "visgroupshown", "1");
    vmf_kv(c, level + 1, "visgroupautoshown", "1");
    close_block(c, level);
}

/* Area portal key per brush: the area portal whose clip polygon centre lies in the brush. */
static bspkit_result match_portal_brushes(vmf_ctx *c, const int32_t *owner, int64_t *key)
{
    const bspkit_areaportal *ap;
    const bspkit_vec3 *cv;
    size_t nap, ncv;
    bspkit_result r;
    if ((r = bspkit_get_areaportals(c->map, &ap, &nap, c->err)) != BSPKIT_OK ||
        (r = bspkit_get_clip_portal_verts(c->map, &cv, &ncv, c->err)) != BSPKIT_OK)
        return r;
    for (size_t b = 0; b < c->nbrushes; b++) {
        key[b] = -1;
        if (owner[b] != 0 || !((uint32_t)c->brushes[b].contents & BSPKIT_S_CONTENTS_AREAPORTAL))
            continue;
        const bspkit_brush *br = &c->brushes[b];
        if (br->first_side < 0 || !range_ok((uint64_t)br->first_side, (uint64_t)br->num_sides, c->nbsides) ||
            br->num_sides > (int32_t)c->max_sides)
            continue;
        for (size_t a = 0; a < nap && key[b] < 0; a++) {
            if (ap[a].num_clip_verts < 3 || !range_ok(ap[a].first_clip_vert, ap[a].num_clip_verts, ncv))
                continue;
            bk_dvec ctr = {0, 0, 0};
            for (uint32_t q = 0; q < ap[a].num_clip_verts; q++) {
                const bspkit_vec3 *v = &cv[ap[a].first_clip_vert + q];
                ctr = dv_add(ctr, (bk_dvec){v->x, v->y, v->z});
            }
            ctr = dv_scale(ctr, 1.0 / ap[a].num_clip_verts);
            bool in = true;
            for (int32_t s = 0; s < br->num_sides && in; s++) {
                const bspkit_brushside *bs = &c->bsides[br->first_side + s];
                if (bs->plane >= c->nplanes)
                    continue;
                const bspkit_plane *p = &c->planes[bs->plane];
                in = p->normal.x * ctr.x + p->normal.y * ctr.y + p->normal.z * ctr.z - p->dist <= 1.0;
            }
            if (in)
                key[b] = ap[a].portal_key;
        }
    }
    return BSPKIT_OK;
}

typedef struct vmf_plan {
    int32_t *owner;      /* per brush */
    int64_t *portal_key; /* per brush, -1 none */
    long *model_entity;  /* per model: entity index writing its brushes, -1 none */
    size_t nmodels;
} vmf_plan;

static bool portal_entity_key(const bspkit_entities *ents, size_t e, long *key)
{
    const char *cls = bspkit_entity_value(ents, e, "classname");
    const char *num = bspkit_entity_value(ents, e, "portalnumber");
    if (!cls || !num || (strcmp(cls, "func_areaportal") != 0 && strcmp(cls, "func_areaportalwindow") != 0))
        return false;
    char *end;
    *key = strtol(num, &end, 10);
    return end != num;
}

/* vbsp drops the brushes that carried displacements: each displacement not yet written gets a
 * thin brush under its base face, with the face's material and the dispinfo on top. */
static bspkit_result write_disp_brushes(vmf_ctx *c)
{
    if (c->opts->skip & BSPKIT_DECOMPILE_NO_DISPLACEMENTS)
        return BSPKIT_OK;
    const int32_t *se;
    const bspkit_edge *edges;
    const bspkit_vec3 *verts;
    size_t nse, ne, nv;
    bspkit_result r;
    if ((r = bspkit_get_surfedges(c->map, &se, &nse, c->err)) != BSPKIT_OK ||
        (r = bspkit_get_edges(c->map, &edges, &ne, c->err)) != BSPKIT_OK ||
        (r = bspkit_get_vertexes(c->map, &verts, &nv, c->err)) != BSPKIT_OK)
        return r;
    for (size_t d = 0; d < c->ndisp && r == BSPKIT_OK; d++) {
        uint32_t fi = c->disp[d].map_face;
        if (c->disp_written[d] || fi >= c->nfaces)
            continue;
        const bspkit_face *f = &c->faces[fi];
        if (f->num_edges != 4 || f->first_edge < 0 || !range_ok((uint64_t)f->first_edge, 4, nse) ||
            f->plane >= c->nplanes)
            continue;
        bk_dvec pts[4];
        bool ok = true;
        for (int k = 0; k < 4 && ok; k++) {
            int64_t v = bk_surfedge_vertex(se[f->first_edge + k], edges, ne, nv);
            ok = v >= 0;
            if (ok)
                pts[k] = (bk_dvec){verts[v].x, verts[v].y, verts[v].z};
        }
        if (!ok)
            continue;
        const bspkit_plane *pl = &c->planes[f->plane];
        double sg = f->side ? -1 : 1;
        bk_dvec nrm = {pl->normal.x * sg, pl->normal.y * sg, pl->normal.z * sg};
        vmf_side_in front = {{nrm, 0}, -1, f->texinfo, NULL, (int64_t)fi, (int64_t)d};
        bool written = false;
        r = vmf_write_thin_solid(c, 1, pts, 4, nrm, &front, &written);
        c->st->world_brushes += written;
        if (r == BSPKIT_OK)
            r = vmf_check_size(c, BSPKIT_S_DISPINFO);
    }
    return r;
}

static bspkit_result write_world(vmf_ctx *c, const bspkit_entities *ents, const vmf_plan *pl, const bool *portal_used)
{
    open_block(c, 0, "world");
    kv_u64(c, 1, "id", c->next_id++);
    if (ents->count > 0) {
        write_entity_keys(c, 1, ents, 0, true);
        if (!bspkit_entity_value(ents, 0, "classname"))
            vmf_kv(c, 1, "classname", "worldspawn");
    } else {
        vmf_kv(c, 1, "classname", "worldspawn");
    }
    bspkit_result r = BSPKIT_OK;
    for (size_t b = 0; b < c->nbrushes && r == BSPKIT_OK; b++) {
        int32_t o = pl->owner[b];
        bool detail = o == 0 && ((uint32_t)c->brushes[b].contents & BSPKIT_S_CONTENTS_DETAIL);
        if (o > 0 || detail)
            continue;
        if (o == 0 && pl->portal_key[b] >= 0 && portal_used[b])
            continue;
        bool written = false;
        r = write_brush(c, 1, b, (bk_dvec){0, 0, 0}, NULL, &written);
        c->st->world_brushes += written;
        if (o < 0 && written)
            c->st->unowned_brushes++;
    }
    if (r == BSPKIT_OK)
        r = write_disp_brushes(c);
    close_block(c, 0);
    c->st->entities++;
    return r;
}

static bspkit_result write_entities(vmf_ctx *c, const bspkit_entities *ents, const vmf_plan *pl, const bool *portal_used)
{
    bspkit_result r = BSPKIT_OK;
    for (size_t e = 1; e < ents->count && r == BSPKIT_OK; e++) {
        const char *cls = bspkit_entity_value(ents, e, "classname");
        long pkey = 0;
        bool portal = portal_entity_key(ents, e, &pkey);
        bool occluder = cls && strcmp(cls, "func_occluder") == 0;
        if ((portal && (c->opts->skip & BSPKIT_DECOMPILE_NO_AREAPORTALS)) ||
            (occluder && (c->opts->skip & BSPKIT_DECOMPILE_NO_OCCLUDERS)))
            continue;
        int64_t model = bk_model_ref(bspkit_entity_value(ents, e, "model"));
        bool brush_entity = model > 0 && (size_t)model < pl->nmodels && pl->model_entity[model] == (long)e;
        open_block(c, 0, "entity");
        kv_u64(c, 1, "id", c->next_id++);
        write_entity_keys(c, 1, ents, e, brush_entity);
        bk_dvec origin = {0, 0, 0};
        double o[3];
        if (bk_parse_vec3(bspkit_entity_value(ents, e, "origin"), o))
            origin = (bk_dvec){o[0], o[1], o[2]};
        if (brush_entity && !(c->opts->skip & BSPKIT_DECOMPILE_NO_BRUSH_ENTITIES)) {
            /* vbsp stores an entity's brushes relative to its origin: move them back */
            for (size_t b = 0; b < c->nbrushes && r == BSPKIT_OK; b++) {
                if (pl->owner[b] != model)
                    continue;
                bool written = false;
                r = write_brush(c, 1, b, origin, cls, &written);
                c->st->entity_brushes += written;
            }
        }
        if (portal) {
            bool any = false;
            for (size_t b = 0; b < c->nbrushes && r == BSPKIT_OK; b++) {
                if (pl->owner[b] != 0 || pl->portal_key[b] != pkey || !portal_used[b])
                    continue;
                bool written = false;
                r = write_brush(c, 1, b, (bk_dvec){0, 0, 0}, cls, &written);
                c->st->entity_brushes += written;
                any |= written;
            }
            if (!any && r == BSPKIT_OK)
                r = vmf_write_areaportal(c, pkey, &any);
        }
        if (occluder && r == BSPKIT_OK) {
            const char *num = bspkit_entity_value(ents, e, "occludernumber");
            char *end;
            long k = num ? strtol(num, &end, 10) : -1;
            if (num && end != num && k >= 0)
                r = vmf_write_occluder(c, k);
        }
        editor_block(c, 1);
        close_block(c, 0);
        c->st->entities++;
        if (r == BSPKIT_OK)
            r = vmf_check_size(c, BSPKIT_S_ENTITIES);
    }
    return r;
}

static bspkit_result write_detail(vmf_ctx *c, const vmf_plan *pl)
{
    bspkit_result r = BSPKIT_OK;
    for (size_t b = 0; b < c->nbrushes && r == BSPKIT_OK; b++) {
        if (pl->owner[b] != 0 || !((uint32_t)c->brushes[b].contents & BSPKIT_S_CONTENTS_DETAIL))
            continue;
        if (c->opts->skip & BSPKIT_DECOMPILE_NO_DETAIL) {
            c->st->skipped_brushes++;
            continue;
        }
        /* One func_detail per brush: the entity is only a grouping, so nothing is lost. */
        size_t mark = c->out->size;
        uint64_t id_mark = c->next_id;
        open_block(c, 0, "entity");
        kv_u64(c, 1, "id", c->next_id++);
        vmf_kv(c, 1, "classname", "func_detail");
        bool written = false;
        r = write_brush(c, 1, b, (bk_dvec){0, 0, 0}, "func_detail", &written);
        if (r == BSPKIT_OK && !written && !c->out->failed) {
            /* nothing to hold: take the empty entity back */
            c->out->size = mark;
            c->out->data[mark] = '\0';
            c->next_id = id_mark;
            continue;
        }
        editor_block(c, 1);
        close_block(c, 0);
        c->st->detail_brushes += written;
        c->st->entities++;
    }
    return r;
}

static void write_header(vmf_ctx *c)
{
    open_block(c, 0, "versioninfo");
    vmf_kv(c, 1, "editorversion", "400");
    vmf_kv(c, 1, "editorbuild", "8610");
    char buf[32];
    snprintf(buf, sizeof buf, "%d", (int)bspkit_map_format(c->map)->revision);
    vmf_kv(c, 1, "mapversion", buf);
    vmf_kv(c, 1, "formatversion", "100");
    vmf_kv(c, 1, "prefab", "0");
    close_block(c, 0);
    open_block(c, 0, "visgroups");
    close_block(c, 0);
    open_block(c, 0, "viewsettings");
    vmf_kv(c, 1, "bSnapToGrid", "1");
    vmf_kv(c, 1, "bShowGrid", "1");
    vmf_kv(c, 1, "bShowLogicalGrid", "0");
    vmf_kv(c, 1, "nGridSpacing", "64");
    vmf_kv(c, 1, "bShow3DGrid", "0");
    close_block(c, 0);
}

static void write_footer(vmf_ctx *c)
{
    open_block(c, 0, "cameras");
    vmf_kv(c, 1, "activecamera", "-1");
    close_block(c, 0);
    open_block(c, 0, "cordon");
    vmf_kv(c, 1, "mins", "(-1024 -1024 -1024)");
    vmf_kv(c, 1, "maxs", "(1024 1024 1024)");
    vmf_kv(c, 1, "active", "0");
    close_block(c, 0);
}

/* Half-size of the starting square: large enough to cover every model's bounds (world space
 * and, for entity brushes, model space), never below 4096. */
static double map_extent(const bspkit_model *models, size_t nm)
{
    double ext = 4096;
    for (size_t m = 0; m < nm; m++) {
        const float v[6] = {models[m].mins.x, models[m].mins.y, models[m].mins.z,
                            models[m].maxs.x, models[m].maxs.y, models[m].maxs.z};
        for (int k = 0; k < 6; k++)
            if (isfinite(v[k]) && fabs(v[k]) < 1e6 && 4 * fabs(v[k]) + 1024 > ext)
                ext = 4 * fabs(v[k]) + 1024;
    }
    return ext;
}

static bspkit_result load(vmf_ctx *c)
{
    bspkit_result r;
    if ((r = bspkit_get_planes(c->map, &c->planes, &c->nplanes, c->err)) != BSPKIT_OK ||
        (r = bspkit_get_brushes(c->map, &c->brushes, &c->nbrushes, c->err)) != BSPKIT_OK ||
        (r = bspkit_get_brushsides(c->map, &c->bsides, &c->nbsides, c->err)) != BSPKIT_OK ||
        (r = bspkit_get_texinfo(c->map, &c->texinfo, &c->ntexinfo, c->err)) != BSPKIT_OK ||
        (r = bspkit_get_texdata(c->map, &c->texdata, &c->ntexdata, c->err)) != BSPKIT_OK ||
        (r = bspkit_get_dispinfo(c->map, &c->disp, &c->ndisp, c->err)) != BSPKIT_OK ||
        (r = bspkit_get_disp_verts(c->map, &c->dverts, &c->ndverts, c->err)) != BSPKIT_OK ||
        (r = bspkit_get_disp_tris(c->map, &c->dtris, &c->ndtris, c->err)) != BSPKIT_OK)
        return r;
    /* bspkit_texdata_name() reports no errors: decode what it reads first, so that an
     * allocation failure there is an error here and not a silently missing material. */
    const int32_t *table;
    const uint8_t *strings;
    size_t ntable, nstrings;
    if ((r = bspkit_get_texdata_string_table(c->map, &table, &ntable, c->err)) != BSPKIT_OK ||
        (r = bspkit_lump_bytes(c->map, BSPKIT_S_TEXDATA_STRING_DATA, &strings, &nstrings, c->err)) != BSPKIT_OK)
        return r;
    c->max_sides = VMF_MAX_SIDES;
    c->scratch_planes = malloc(c->max_sides * sizeof *c->scratch_planes);
    c->poly_a = malloc(BK_POLY_MAX_POINTS(VMF_MAX_SIDES) * sizeof *c->poly_a);
    c->poly_b = malloc(BK_POLY_MAX_POINTS(VMF_MAX_SIDES) * sizeof *c->poly_b);
    c->pts3 = malloc(3 * c->max_sides * sizeof *c->pts3);
    c->side_ok = malloc(c->max_sides * sizeof *c->side_ok);
    c->disp_written = calloc(c->ndisp + 1, sizeof *c->disp_written);
    if (!c->scratch_planes || !c->poly_a || !c->poly_b || !c->pts3 || !c->side_ok || !c->disp_written)
        return bk_fail(c->err, BSPKIT_ERR_NOMEM, -1, -1, -1, "decompile: out of memory");
    return index_faces(c);
}

static void release(vmf_ctx *c)
{
    free(c->plane_face_start);
    free(c->plane_faces);
    free(c->face_center);
    free(c->face_center_ok);
    free(c->face_side);
    free(c->disp_written);
    free(c->scratch_planes);
    free(c->poly_a);
    free(c->poly_b);
    free(c->pts3);
    free(c->side_ok);
}

static bspkit_result run(vmf_ctx *c, vmf_plan *pl)
{
    const bspkit_entities *ents;
    const bspkit_model *models;
    bspkit_result r;
    if ((r = load(c)) != BSPKIT_OK || (r = bspkit_get_entities(c->map, &ents, c->err)) != BSPKIT_OK ||
        (r = bspkit_get_models(c->map, &models, &pl->nmodels, c->err)) != BSPKIT_OK)
        return r;
    c->extent = map_extent(models, pl->nmodels);
    pl->owner = malloc((c->nbrushes + 1) * sizeof *pl->owner);
    pl->portal_key = malloc((c->nbrushes + 1) * sizeof *pl->portal_key);
    pl->model_entity = malloc((pl->nmodels + 1) * sizeof *pl->model_entity);
    bool *portal_used = calloc(c->nbrushes + 1, sizeof *portal_used);
    if (!pl->owner || !pl->portal_key || !pl->model_entity || !portal_used) {
        free(portal_used);
        return bk_fail(c->err, BSPKIT_ERR_NOMEM, BSPKIT_S_BRUSHES, -1, -1, "decompile: out of memory");
    }
    if ((r = bk_decompile_brush_owners(c->map, c->nbrushes, pl->owner, c->err)) != BSPKIT_OK || (r = match_portal_brushes(c, pl->owner, pl->portal_key)) != BSPKIT_OK) {
        free(portal_used);
        return r;
    }
    for (size_t m = 0; m < pl->nmodels; m++)
        pl->model_entity[m] = -1;
    for (size_t e = 1; e < ents->count; e++) {
        int64_t m = bk_model_ref(bspkit_entity_value(ents, e, "model"));
        if (m > 0 && (size_t)m < pl->nmodels && pl->model_entity[m] < 0)
            pl->model_entity[m] = (long)e;
        long key;
        if (portal_entity_key(ents, e, &key))
            for (size_t b = 0; b < c->nbrushes; b++)
                if (pl->portal_key[b] == key)
                    portal_used[b] = true;
    }
    /* Brushes of models no entity names, or left out on request. */
    for (size_t b = 0; b < c->nbrushes; b++) {
        int32_t o = pl->owner[b];
        if (o > 0 && (pl->model_entity[o] < 0 || (c->opts->skip & BSPKIT_DECOMPILE_NO_BRUSH_ENTITIES)))
            c->st->skipped_brushes++;
        if (o == 0 && portal_used[b] && (c->opts->skip & BSPKIT_DECOMPILE_NO_AREAPORTALS))
            c->st->skipped_brushes++;
    }
    write_header(c);
    if ((r = write_world(c, ents, pl, portal_used)) == BSPKIT_OK && (r = write_entities(c, ents, pl, portal_used)) == BSPKIT_OK &&
        (r = write_detail(c, pl)) == BSPKIT_OK && (r = vmf_write_static_props(c)) == BSPKIT_OK &&
        (r = vmf_write_overlays(c)) == BSPKIT_OK && (r = vmf_write_cubemaps(c)) == BSPKIT_OK)
        write_footer(c);
    free(portal_used);
    return r;
}

bspkit_result bk_decompile_vmf(bspkit_map *map, const bspkit_decompile_options *opts, bk_tbuf *out,
                               bspkit_decompile_stats *stats, bspkit_error *err)
{
    size_t file_size = 0;
    bspkit_map_bytes(map, &file_size);
    vmf_ctx c = {.map = map, .opts = opts, .out = out, .st = stats, .err = err, .next_id = 1, .next_side_id = 1};
    /* Real maps decompile to a few times their size; this bound only stops crafted ones. */
    c.out_limit = (size_t)64 << 20;
    if (file_size < (SIZE_MAX - c.out_limit) / 64)
        c.out_limit += 64 * file_size;
    vmf_plan pl = {0};
    bspkit_result r = run(&c, &pl);
    free(pl.owner);
    free(pl.portal_key);
    free(pl.model_entity);
    release(&c);
    if (r == BSPKIT_OK && out->failed)
        r = bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "decompile: out of memory building the VMF");
    return r;
}
