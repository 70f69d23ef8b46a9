/* Export mesh builder: faces of each model as fan triangles (displacements as
 * their displaced grids), grouped per material, plus the nodes that place
 * models, entities and static props. Every index taken from the file is
 * checked before use; growth is charged against the map's memory limit. */
#include "export/mesh.h"
#include "export/mesh_internal.h"

#include "bspkit/displacement.h"
#include "bspkit/export.h"
#include "bspkit/props.h"
#include "bspkit/titanfall.h"
#include "core/family.h"
#include "core/fmt_num.h"
#include "core/map.h"
#include "entities/values.h"
#include "media/atlas_internal.h"
#include "core/surfedge.h"
#include "core/ascii.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

/* ---- memory ------------------------------------------------------------- */

/* Grows *items (elem bytes each) to hold `need`, charging the growth to the
 * export's budget so a hostile face list cannot run the process out of memory. */
bspkit_result bk_xgrow(bk_xmesh *m, void **items, size_t *cap, size_t need, size_t elem, int lump,
                          bspkit_error *err)
{
    if (need <= *cap)
        return BSPKIT_OK;
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return bk_fail(err, BSPKIT_ERR_LIMIT, lump, -1, -1, "export mesh too large");
        ncap *= 2;
    }
    if (ncap > SIZE_MAX / elem)
        return bk_fail(err, BSPKIT_ERR_LIMIT, lump, -1, -1, "export mesh too large");
    uint64_t add = (uint64_t)(ncap - *cap) * elem;
    if (m->bytes + add > m->budget)
        return bk_fail(err, BSPKIT_ERR_LIMIT, lump, -1, -1,
                       "export needs more than the memory limit of %llu bytes", (unsigned long long)m->budget);
    void *p = realloc(*items, ncap * elem);
    if (!p)
        return bk_fail(err, BSPKIT_ERR_NOMEM, lump, -1, -1, "out of memory building the export mesh");
    m->bytes += add;
    *items = p;
    *cap = ncap;
    return BSPKIT_OK;
}

/* The entity lump only names and places things: a map whose entity text does
 * not parse still exports its geometry (ents NULL). Running out of memory or
 * over a limit is still an error. */
bspkit_result bk_export_entities(bspkit_map *map, const bspkit_entities **ents, bspkit_error *err)
{
    bspkit_error e;
    bspkit_result r = bspkit_get_entities(map, ents, &e);
    if (r == BSPKIT_ERR_ENTITIES) {
        *ents = NULL;
        return BSPKIT_OK;
    }
    if (r != BSPKIT_OK)
        bk_error_copy(err, &e);
    return r;
}

char *bk_xdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* ---- vectors ------------------------------------------------------------ */

void bk_xcross(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

double bk_xdot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

bool bk_xnormalize(double v[3])
{
    double len = sqrt(bk_xdot3(v, v));
    if (!(len > 1e-12) || !isfinite(len))
        return false;
    v[0] /= len;
    v[1] /= len;
    v[2] /= len;
    return true;
}

static void to_d(bspkit_vec3 v, double out[3])
{
    out[0] = v.x;
    out[1] = v.y;
    out[2] = v.z;
}

void bk_angles_quat(double pitch, double yaw, double roll, double q[4])
{
    double hp = pitch * PI / 360.0, hy = yaw * PI / 360.0, hr = roll * PI / 360.0;
    double cp = cos(hp), sp = sin(hp), cy = cos(hy), sy = sin(hy), cr = cos(hr), sr = sin(hr);
    /* qz(yaw) * qy(pitch) * qx(roll) */
    q[0] = cy * cp * sr - sy * sp * cr;
    q[1] = cy * sp * cr + sy * cp * sr;
    q[2] = sy * cp * cr - cy * sp * sr;
    q[3] = cy * cp * cr + sy * sp * sr;
}

void bk_quat_rotate(const double q[4], const double v[3], double out[3])
{
    /* v + 2w(u x v) + 2 u x (u x v), u = q.xyz */
    double u[3] = {q[0], q[1], q[2]}, t[3], t2[3];
    bk_xcross(u, v, t);
    for (int i = 0; i < 3; i++)
        t[i] *= 2.0;
    bk_xcross(u, t, t2);
    for (int i = 0; i < 3; i++)
        out[i] = v[i] + q[3] * t[i] + t2[i];
}

/* ---- skip rules --------------------------------------------------------- */

static bool is_tool_name(const char *name)
{
    static const char *const TOOLS[] = {"clip", "skip", "hint", "origin", "aaatrigger", "null", "nodraw", "trigger"};
    for (size_t i = 0; i < sizeof TOOLS / sizeof TOOLS[0]; i++)
        if (bk_ascii_casecmp(name, TOOLS[i]) == 0)
            return true;
    if (bk_ascii_ncasecmp(name, "tools/", 6) == 0 || bk_ascii_ncasecmp(name, "tools\\", 6) == 0)
        return true;
    /* Valve's tool materials are named tools*, also in other folders
     * (Titanfall 2 keeps "common\\toolsnodraw"). */
    const char *base = name;
    for (const char *c = name; *c; c++)
        if (*c == '/' || *c == '\\')
            base = c + 1;
    return base != name && bk_ascii_ncasecmp(base, "tools", 5) == 0;
}

/* Quake 3's tool shaders, under textures/common/. */
static bool is_q3_tool_shader(const char *name)
{
    static const char *const TOOLS[] = {"caulk", "clip", "full_clip", "weapclip", "botclip", "nodraw",
                                        "nodrawnonsolid", "trigger", "hint", "skip", "origin", "areaportal",
                                        "clusterportal", "donotenter", "lightgrid", "invisible"};
    if (bk_ascii_ncasecmp(name, "textures/common/", 16) != 0)
        return false;
    for (size_t i = 0; i < sizeof TOOLS / sizeof TOOLS[0]; i++)
        if (bk_ascii_casecmp(name + 16, TOOLS[i]) == 0)
            return true;
    return false;
}

/* The skip kinds (BSPKIT_SKIP_TOOL / _SKY / _NODRAW) a texture name alone
 * falls under in `family`. */
static uint32_t name_kinds(bspkit_family family, const char *name)
{
    if (family == BSPKIT_FAMILY_QUAKE3)
        return is_q3_tool_shader(name) ? BSPKIT_SKIP_TOOL : 0;
    uint32_t kinds = is_tool_name(name) ? BSPKIT_SKIP_TOOL : 0;
    /* Quake draws every "sky*" texture as sky; GoldSrc only the one named "sky". */
    if ((family == BSPKIT_FAMILY_QUAKE && bk_ascii_ncasecmp(name, "sky", 3) == 0) ||
        (family == BSPKIT_FAMILY_GOLDSRC && bk_ascii_casecmp(name, "sky") == 0))
        kinds |= BSPKIT_SKIP_SKY;
    return kinds;
}

/* The skip kinds a face's flags alone fall under in `family` (Quake 3:
 * its shader's surfaceFlags). */
static uint32_t flag_kinds(bspkit_family family, int32_t flags)
{
    uint32_t kinds = 0;
    if (family == BSPKIT_FAMILY_QUAKE3) {
        if (flags & (BSPKIT_Q3_SURF_HINT | BSPKIT_Q3_SURF_SKIP))
            kinds |= BSPKIT_SKIP_TOOL;
        if (flags & BSPKIT_Q3_SURF_SKY)
            kinds |= BSPKIT_SKIP_SKY;
        if (flags & BSPKIT_Q3_SURF_NODRAW)
            kinds |= BSPKIT_SKIP_NODRAW;
        return kinds;
    }
    bool source = family == BSPKIT_FAMILY_SOURCE;
    /* Titanfall's mesh flags keep Source's sky bits and move skip and trigger up. */
    bool titanfall = family == BSPKIT_FAMILY_TITANFALL;
    if ((source && (flags & (BK_SURF_HINT | BK_SURF_SKIP | BK_SURF_TRIGGER))) ||
        (titanfall && (flags & (BSPKIT_R2_MESH_SKIP | BSPKIT_R2_MESH_TRIGGER))))
        kinds |= BSPKIT_SKIP_TOOL;
    if ((source || titanfall) && (flags & (BK_SURF_SKY | BK_SURF_SKY2D)))
        kinds |= BSPKIT_SKIP_SKY;
    if (source && (flags & BK_SURF_NODRAW))
        kinds |= BSPKIT_SKIP_NODRAW;
    return kinds;
}

bool bk_xmesh_skips(bspkit_family family, uint32_t skip, const char *name, int32_t flags)
{
    return (skip & (name_kinds(family, name) | flag_kinds(family, flags))) != 0;
}

bool bk_xkeep_face(builder *b, uint32_t mat, int32_t flags)
{
    bk_xmesh *m = b->m;
    bk_xmaterial *mt = &m->materials[mat];
    /* The name's kinds were found once, with the material. */
    uint32_t kinds = mt->name_kinds | flag_kinds(m->family, flags);
    if (b->opts.skip & kinds) {
        m->skipped_faces++;
        return false;
    }
    /* The kind of a face that is kept: the first of tool, sky and nodraw it falls under. */
    uint32_t kind = (kinds & BSPKIT_SKIP_TOOL)  ? BSPKIT_SKIP_TOOL
                    : (kinds & BSPKIT_SKIP_SKY) ? BSPKIT_SKIP_SKY
                                                : kinds & BSPKIT_SKIP_NODRAW;
    if (kind == 0)
        mt->plain = true;
    else
        mt->kinds |= kind;
    return true;
}

/* ---- materials ---------------------------------------------------------- */

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The slot of `name` in the material table: its material's, or the empty
 * one where it would go. */
static uint32_t *material_slot(const builder *b, const char *name)
{
    size_t mask = b->material_slot_count - 1;
    for (size_t i = name_hash(name) & mask;; i = (i + 1) & mask) {
        uint32_t *slot = &b->material_slots[i];
        if (*slot == 0 || strcmp(b->m->materials[*slot - 1].name, name) == 0)
            return slot;
    }
}

/* Room for one more material in the table, kept at most half full so a
 * lookup ends soon at an empty slot. */
static bool material_slots_room(builder *b)
{
    size_t want = b->material_slot_count ? b->material_slot_count : 64;
    while (want < 2 * (b->m->material_count + 1))
        want *= 2;
    if (want == b->material_slot_count)
        return true;
    uint32_t *slots = calloc(want, sizeof *slots);
    if (!slots)
        return false;
    free(b->material_slots);
    b->material_slots = slots;
    b->material_slot_count = want;
    for (size_t i = 0; i < b->m->material_count; i++)
        *material_slot(b, b->m->materials[i].name) = (uint32_t)i + 1;
    return true;
}

bspkit_result bk_xadd_material(builder *b, const char *name, int32_t texture, uint32_t w, uint32_t h,
                                  int32_t *index, bspkit_error *err)
{
    bk_xmesh *m = b->m;
    /* Maps name hundreds of textures: found by hash, not by a scan of all. */
    if (!material_slots_room(b))
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    uint32_t *slot = material_slot(b, name);
    if (*slot != 0) {
        *index = (int32_t)(*slot - 1);
        return BSPKIT_OK;
    }
    bspkit_result r = bk_xgrow(m, (void **)&m->materials, &b->material_cap, m->material_count + 1, sizeof *m->materials,
                           BSPKIT_Q_TEXTURES, err);
    if (r != BSPKIT_OK)
        return r;
    char *copy = bk_xdup(name);
    if (!copy)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    if (w == 0 || h == 0)
        m->zero_size_textures++;
    m->materials[m->material_count] =
        (bk_xmaterial){copy, texture, w ? w : 1, h ? h : 1, false, 0, false, name_kinds(m->family, copy)};
    *index = (int32_t)m->material_count++;
    *slot = (uint32_t)m->material_count;
    return BSPKIT_OK;
}

/* One material per distinct texture name; texture_material maps each
 * miptex / texdata index to it. */
static bspkit_result load_textures(builder *b, bspkit_error *err)
{
    bspkit_map *map = b->map;
    bspkit_result r;
    const bspkit_miptex *mip = NULL;
    const bspkit_texdata *td = NULL;
    size_t n = 0;
    /* Source and Titanfall name textures through texdata. */
    bool source = b->m->family == BSPKIT_FAMILY_SOURCE || b->m->family == BSPKIT_FAMILY_TITANFALL;
    if (source) {
        /* Decode the name tables here, where a failure can be reported:
         * bspkit_texdata_name() only answers NULL. */
        const int32_t *table;
        size_t ntable, nbytes;
        const uint8_t *bytes;
        if ((r = bspkit_get_texdata(map, &td, &n, err)) == BSPKIT_OK &&
            (r = bspkit_get_texdata_string_table(map, &table, &ntable, err)) == BSPKIT_OK)
            r = bspkit_lump_bytes(map, bk_map_lump_for(map, BK_ROLE_TEXDATA_STRING_DATA), &bytes, &nbytes, err);
    } else {
        r = bspkit_get_miptex(map, &mip, &n, err);
    }
    if (r != BSPKIT_OK)
        return r;
    size_t cap = 0;
    if ((r = bk_xgrow(b->m, (void **)&b->texture_material, &cap, n + 1, sizeof(int32_t), -1, err)) != BSPKIT_OK)
        return r;
    b->texture_count = n;
    for (size_t i = 0; i < n; i++) {
        char fallback[32];
        const char *name;
        uint32_t w, h;
        if (source) {
            name = bspkit_texdata_name(map, i);
            w = td[i].width > 0 ? (uint32_t)td[i].width : 0;
            h = td[i].height > 0 ? (uint32_t)td[i].height : 0;
        } else {
            name = mip[i].lump_offset >= 0 ? mip[i].name : NULL;
            w = mip[i].width;
            h = mip[i].height;
        }
        if (!name || !name[0]) {
            snprintf(fallback, sizeof fallback, "missing_%zu", i);
            name = fallback;
        }
        if ((r = bk_xadd_material(b, name, (int32_t)i, w, h, &b->texture_material[i], err)) != BSPKIT_OK)
            return r;
    }
    return BSPKIT_OK;
}

/* Material of a texinfo whose texture index lies outside the texture list. */
static bspkit_result missing_material(builder *b, int32_t texture, int32_t *index, bspkit_error *err)
{
    char name[32];
    snprintf(name, sizeof name, "missing_%lld", (long long)texture);
    return bk_xadd_material(b, name, -1, 1, 1, index, err);
}

/* ---- primitives --------------------------------------------------------- */

bspkit_result bk_xprim_for(builder *b, bk_xmodel *xm, size_t *prim_cap, uint32_t material, bk_xprim **out,
                              bspkit_error *err)
{
    if (material >= b->prim_of_cap) {
        size_t old = b->prim_of_cap;
        bspkit_result r = bk_xgrow(b->m, (void **)&b->prim_of, &b->prim_of_cap, (size_t)material + 1,
                               sizeof *b->prim_of, -1, err);
        if (r != BSPKIT_OK)
            return r;
        memset(b->prim_of + old, 0, (b->prim_of_cap - old) * sizeof *b->prim_of);
    }
    if (b->prim_of[material] == 0) {
        bspkit_result r = bk_xgrow(b->m, (void **)&xm->prims, prim_cap, xm->prim_count + 1, sizeof *xm->prims, -1, err);
        if (r != BSPKIT_OK)
            return r;
        bk_xprim *p = &xm->prims[xm->prim_count];
        memset(p, 0, sizeof *p);
        p->material = material;
        b->prim_of[material] = ++xm->prim_count;
        const bk_xexpect *e = material < b->expect_count ? &b->expect[material] : NULL;
        if (e && e->model == b->expect_model && e->verts > 0) {
            /* Only a size hint: where it cannot be had, the faces grow the primitive as they come. */
            bspkit_error ignore;
            (void)bk_xreserve(b, p, e->verts, e->indices, &ignore);
        }
    }
    *out = &xm->prims[b->prim_of[material] - 1];
    return BSPKIT_OK;
}

static void texture_uv(const bspkit_texinfo *ti, const bk_xmaterial *mat, const double p[3], float uv[2])
{
    const float *s = ti->texture_vecs[0], *t = ti->texture_vecs[1];
    uv[0] = (float)((s[0] * p[0] + s[1] * p[1] + s[2] * p[2] + s[3]) / mat->width);
    uv[1] = (float)((t[0] * p[0] + t[1] * p[1] + t[2] * p[2] + t[3]) / mat->height);
}

/* The face's atlas lookup, or NULL (coordinates (0, 0)) when there is no
 * atlas or the atlas did not place the face. */
static const bk_atlas_face_uv *face_atlas(const builder *b, size_t fi, bk_atlas_face_uv *slot)
{
    return b->opts.atlas && bk_atlas_face_uv_init(b->map, b->opts.atlas, fi, slot) ? slot : NULL;
}

static void lightmap_uv(const bk_atlas_face_uv *fa, const double p[3], float lm[2])
{
    lm[0] = lm[1] = 0.0f;
    if (fa)
        bk_atlas_face_uv_at(fa, (bspkit_vec3){(float)p[0], (float)p[1], (float)p[2]}, lm);
}

static bspkit_result face_fail(builder *b, bspkit_error *err, size_t face, const char *fmt, long long value)
{
    uint32_t rs = b->map->lumps[b->face_lump].layout.record_size;
    uint64_t ofs = (uint64_t)face * rs;
    char what[120];
    snprintf(what, sizeof what, fmt, value);
    return bk_fail(err, BSPKIT_ERR_INDEX, b->face_lump, bk_file_offset(b->map, b->face_lump, ofs), (int64_t)ofs,
                   "%s record %zu: %s", bk_lump_name(b->map, b->face_lump), face, what);
}

/* The face's polygon into b->poly; fails naming the face on a bad index. */
static bspkit_result face_polygon(builder *b, size_t fi, const bspkit_face *f, bspkit_error *err)
{
    if (f->first_edge < 0 || !range_ok((uint64_t)f->first_edge, (uint64_t)f->num_edges, b->surfedge_count))
        return face_fail(b, err, fi, "surfedges from %lld lie outside SURFEDGES", f->first_edge);
    bspkit_result r = bk_xgrow(b->m, (void **)&b->poly, &b->poly_cap, (size_t)f->num_edges * 3, sizeof(double),
                           BSPKIT_Q_SURFEDGES, err);
    if (r != BSPKIT_OK)
        return r;
    for (int32_t k = 0; k < f->num_edges; k++) {
        int64_t se = b->surfedges[f->first_edge + k];
        int64_t v = bk_surfedge_vertex(se, b->edges, b->edge_count, b->vert_count);
        if (v == BK_SURFEDGE_BAD_EDGE)
            return face_fail(b, err, fi, "uses edge %lld outside EDGES", (long long)(se < 0 ? -se : se));
        if (v == BK_SURFEDGE_BAD_VERTEX)
            return face_fail(b, err, fi, "uses vertex %lld outside VERTEXES",
                             (long long)b->edges[se < 0 ? -se : se].v[se < 0 ? 1 : 0]);
        to_d(b->verts[v], &b->poly[(size_t)k * 3]);
    }
    return BSPKIT_OK;
}

bspkit_result bk_xreserve(builder *b, bk_xprim *p, size_t verts, size_t indices, bspkit_error *err)
{
    bspkit_result r;
    if (p->vert_count + verts > UINT32_MAX)
        return bk_fail(err, BSPKIT_ERR_LIMIT, -1, -1, -1, "more than 2^32 vertices in one primitive");
    if ((r = bk_xgrow(b->m, (void **)&p->verts, &p->vert_cap, p->vert_count + verts, sizeof *p->verts, -1, err)) !=
        BSPKIT_OK)
        return r;
    return bk_xgrow(b->m, (void **)&p->indices, &p->index_cap, p->index_count + indices, sizeof *p->indices, -1, err);
}

static bspkit_result emit_polygon(builder *b, bk_xprim *p, size_t fi, const bspkit_texinfo *ti,
                                  const bk_xmaterial *mat, const double normal[3], int32_t n, bspkit_error *err)
{
    bspkit_result r = bk_xreserve(b, p, (size_t)n, (size_t)(n - 2) * 3, err);
    if (r != BSPKIT_OK)
        return r;
    /* Newell's normal tells which way the winding turns: compilers store it
     * clockwise seen from the front, glTF wants counter-clockwise. */
    double newell[3] = {0, 0, 0};
    for (int32_t k = 0; k < n; k++) {
        const double *a = &b->poly[(size_t)k * 3], *c = &b->poly[(size_t)((k + 1) % n) * 3];
        newell[0] += (a[1] - c[1]) * (a[2] + c[2]);
        newell[1] += (a[2] - c[2]) * (a[0] + c[0]);
        newell[2] += (a[0] - c[0]) * (a[1] + c[1]);
    }
    bool reverse = bk_xdot3(newell, normal) < 0;
    uint32_t base = (uint32_t)p->vert_count;
    bk_atlas_face_uv slot;
    const bk_atlas_face_uv *fa = face_atlas(b, fi, &slot);
    for (int32_t k = 0; k < n; k++) {
        float uv[2], lm[2];
        texture_uv(ti, mat, &b->poly[(size_t)k * 3], uv);
        lightmap_uv(fa, &b->poly[(size_t)k * 3], lm);
        if (!bk_xput_vertex(p, &b->poly[(size_t)k * 3], normal, uv, lm, (uint32_t)fi))
            return face_fail(b, err, fi, "corner %lld is not a finite point", k);
    }
    for (int32_t k = 1; k + 1 < n; k++) {
        uint32_t *t = &p->indices[p->index_count];
        t[0] = base;
        t[1] = base + (uint32_t)(reverse ? k + 1 : k);
        t[2] = base + (uint32_t)(reverse ? k : k + 1);
        p->index_count += 3;
    }
    return BSPKIT_OK;
}

/* A displacement replaces its base face. Texture coordinates come from the
 * undisplaced grid point on the base face (the engine maps the flat face and
 * lets the surface carry the texture along), not from the moved position. */
static bspkit_result emit_displacement(builder *b, bk_xprim *p, size_t fi, const bspkit_face *f,
                                       const bspkit_texinfo *ti, const bk_xmaterial *mat, const double normal[3],
                                       size_t *triangles, bspkit_error *err)
{
    if ((uint64_t)f->dispinfo >= b->dispinfo_count)
        return face_fail(b, err, fi, "dispinfo %lld is outside DISPINFO", f->dispinfo);
    bspkit_disp_mesh dm;
    bspkit_result r = bspkit_disp_build_mesh(b->map, (size_t)f->dispinfo, &dm, err);
    if (r != BSPKIT_OK)
        return r;
    if ((r = bk_xreserve(b, p, dm.vertex_count, dm.triangle_count * 3, err)) != BSPKIT_OK) {
        bspkit_disp_mesh_free(&dm);
        return r;
    }
    double c[4][3], e1[3], e3[3], flat_n[3];
    for (int k = 0; k < 4; k++)
        to_d(dm.corners[k], c[k]);
    for (int i = 0; i < 3; i++) {
        e1[i] = c[1][i] - c[0][i];
        e3[i] = c[3][i] - c[0][i];
    }
    /* Grid triangles turn counter-clockwise about e1 x e3; flip when that
     * is the back of the face. */
    bk_xcross(e1, e3, flat_n);
    bool flip = bk_xdot3(flat_n, normal) < 0;
    uint32_t base = (uint32_t)p->vert_count;
    bk_atlas_face_uv slot;
    const bk_atlas_face_uv *fa = face_atlas(b, fi, &slot);
    double step = 1.0 / (double)(dm.side - 1);
    for (uint32_t i = 0; i < dm.side; i++) {
        for (uint32_t j = 0; j < dm.side; j++) {
            size_t vi = (size_t)i * dm.side + j;
            double a = i * step, bb = j * step, flat[3], pos[3], n[3];
            for (int k = 0; k < 3; k++) {
                double l = c[0][k] + (c[1][k] - c[0][k]) * a, rr = c[3][k] + (c[2][k] - c[3][k]) * a;
                flat[k] = l + (rr - l) * bb;
            }
            to_d(dm.positions[vi], pos);
            to_d(dm.normals[vi], n);
            if (flip)
                for (int k = 0; k < 3; k++)
                    n[k] = -n[k];
            if (!bk_xnormalize(n))
                memcpy(n, normal, sizeof n);
            float uv[2], lm[2];
            texture_uv(ti, mat, flat, uv);
            lightmap_uv(fa, flat, lm);
            if (!bk_xput_vertex(p, pos, n, uv, lm, (uint32_t)fi)) {
                bspkit_disp_mesh_free(&dm);
                return face_fail(b, err, fi, "displaced vertex %lld is not a finite point", (long long)vi);
            }
        }
    }
    for (size_t t = 0; t < dm.triangle_count; t++) {
        uint32_t *o = &p->indices[p->index_count];
        o[0] = base + dm.indices[t * 3];
        o[1] = base + dm.indices[t * 3 + (flip ? 2 : 1)];
        o[2] = base + dm.indices[t * 3 + (flip ? 1 : 2)];
        p->index_count += 3;
    }
    *triangles = dm.triangle_count;
    bspkit_disp_mesh_free(&dm);
    return BSPKIT_OK;
}

/* What each material's polygon faces in faces [first, first + count) add:
 * growing a primitive face by face would copy it several times over. Only
 * an estimate for sizing (displacements and skipped faces differ), so
 * faces the emitter would reject are simply left out. */
static bspkit_result expect_sizes(builder *b, size_t first, size_t count, bspkit_error *err)
{
    if (b->expect_count < b->m->material_count) {
        size_t cap = b->expect_count;
        bspkit_result r = bk_xgrow(b->m, (void **)&b->expect, &cap, b->m->material_count, sizeof *b->expect, -1, err);
        if (r != BSPKIT_OK)
            return r;
        /* Stamp 0 is no model's: the new entries hold no counts. */
        memset(b->expect + b->expect_count, 0, (cap - b->expect_count) * sizeof *b->expect);
        b->expect_count = cap;
    }
    b->expect_model++;
    for (size_t fi = first; fi < first + count; fi++) {
        const bspkit_face *f = &b->faces[fi];
        if (f->texinfo < 0 || (uint64_t)f->texinfo >= b->texinfo_count || f->num_edges < 3 || f->first_edge < 0 ||
            (uint64_t)f->first_edge + (uint64_t)f->num_edges > b->surfedge_count)
            continue;
        int32_t texture = b->texinfo[f->texinfo].texture;
        if (texture < 0 || (uint64_t)texture >= b->texture_count)
            continue;
        size_t mat = (size_t)b->texture_material[texture];
        if (mat >= b->expect_count)
            continue;
        bk_xexpect *e = &b->expect[mat];
        if (e->model != b->expect_model) /* counted for an earlier model, or never */
            *e = (bk_xexpect){0, 0, b->expect_model};
        /* A real map's faces share no edge range: the sum stays within SURFEDGES. */
        if (e->verts < b->surfedge_count) {
            e->verts += (size_t)f->num_edges;
            e->indices += ((size_t)f->num_edges - 2) * 3;
        }
    }
    return BSPKIT_OK;
}

static bspkit_result emit_face(builder *b, bk_xmodel *xm, size_t *prim_cap, size_t fi, bspkit_error *err)
{
    bk_xmesh *m = b->m;
    const bspkit_face *f = &b->faces[fi];
    if (f->texinfo < 0 || f->num_edges < 3) {
        m->degenerate_faces++;
        return BSPKIT_OK;
    }
    if ((uint64_t)f->texinfo >= b->texinfo_count)
        return face_fail(b, err, fi, "texinfo %lld is outside TEXINFO", f->texinfo);
    if (f->plane >= b->plane_count)
        return face_fail(b, err, fi, "plane %lld is outside PLANES", f->plane);
    const bspkit_texinfo *ti = &b->texinfo[f->texinfo];
    int32_t mat;
    bspkit_result r;
    if (ti->texture >= 0 && (uint64_t)ti->texture < b->texture_count)
        mat = b->texture_material[ti->texture];
    else if (ti->texture_name[0]) {
        /* Quake 2 names the texture; its image (and size) lives outside the map. */
        if ((r = bk_xadd_material(b, ti->texture_name, -1, 1, 1, &mat, err)) != BSPKIT_OK)
            return r;
    } else if ((r = missing_material(b, ti->texture, &mat, err)) != BSPKIT_OK)
        return r;
    if (!bk_xkeep_face(b, (uint32_t)mat, ti->flags))
        return BSPKIT_OK;
    const bk_xmaterial *mt = &m->materials[mat];
    double normal[3];
    to_d(b->planes[f->plane].normal, normal);
    if (f->side)
        for (int i = 0; i < 3; i++)
            normal[i] = -normal[i];
    bool disp = m->family == BSPKIT_FAMILY_SOURCE && f->dispinfo >= 0;
    if (!disp && (r = face_polygon(b, fi, f, err)) != BSPKIT_OK)
        return r;
    if (!bk_xnormalize(normal)) {
        /* A zero plane normal: fall back to the polygon's own (clockwise
         * winding seen from the front), else straight up. */
        double e1[3] = {0, 0, 0}, e2[3] = {0, 0, 0};
        for (int i = 0; i < 3 && !disp; i++) {
            e1[i] = b->poly[3 + i] - b->poly[i];
            e2[i] = b->poly[6 + i] - b->poly[i];
        }
        bk_xcross(e2, e1, normal);
        if (!bk_xnormalize(normal)) {
            normal[0] = normal[1] = 0;
            normal[2] = 1;
        }
    }
    bk_xprim *p;
    if ((r = bk_xprim_for(b, xm, prim_cap, (uint32_t)mat, &p, err)) != BSPKIT_OK)
        return r;
    size_t tris = (size_t)f->num_edges - 2;
    if (disp) {
        r = emit_displacement(b, p, fi, f, ti, mt, normal, &tris, err);
        xm->displacements++;
    } else {
        r = emit_polygon(b, p, fi, ti, mt, normal, f->num_edges, err);
    }
    if (r != BSPKIT_OK)
        return r;
    xm->faces++;
    xm->triangles += tris;
    if (b->opts.atlas && fi < b->opts.atlas->rect_count && b->opts.atlas->rects[fi].placed)
        m->materials[mat].lit = true;
    return BSPKIT_OK;
}

/* ---- entities and nodes ------------------------------------------------- */

static bspkit_result add_node(bk_xmesh *m, size_t *cap, const bk_xnode *n, bspkit_error *err)
{
    bspkit_result r = bk_xgrow(m, (void **)&m->nodes, cap, m->node_count + 1, sizeof *m->nodes, -1, err);
    if (r != BSPKIT_OK) {
        free(n->name);
        return r;
    }
    m->nodes[m->node_count++] = *n;
    return BSPKIT_OK;
}

static bk_xnode blank_node(bk_xnode_kind kind)
{
    bk_xnode n;
    memset(&n, 0, sizeof n);
    n.kind = kind;
    n.model = n.entity = n.prop = -1;
    n.rotation[3] = 1;
    n.scale[0] = n.scale[1] = n.scale[2] = 1;
    return n;
}

/* Orientation from "angles" (pitch yaw roll), or "angle" (yaw; -1 up, -2 down). */
static void entity_rotation(const bspkit_entities *ents, size_t e, bool allow_angle, double q[4])
{
    double a[3] = {0, 0, 0};
    if (!bk_parse_vec3(bspkit_entity_value(ents, e, "angles"), a)) {
        const char *yaw = allow_angle ? bspkit_entity_value(ents, e, "angle") : NULL;
        a[0] = a[1] = a[2] = 0;
        if (yaw) {
            double y = strtod(yaw, NULL);
            if (!isfinite(y))
                y = 0;
            if (y == -1)
                a[0] = -90;
            else if (y == -2)
                a[0] = 90;
            else
                a[1] = y;
        }
    }
    bk_angles_quat(a[0], a[1], a[2], q);
}

static char *node_name(const bspkit_entities *ents, int64_t e, int64_t model)
{
    const char *base = NULL;
    if (ents && e >= 0) {
        base = bspkit_entity_value(ents, (size_t)e, "targetname");
        if (!base || !base[0])
            base = bspkit_entity_value(ents, (size_t)e, "classname");
    }
    if (!base || !base[0])
        base = model >= 0 ? "model" : "entity";
    size_t len = strlen(base);
    char *s = malloc(len + 2 + BK_FMT_NUM_CAP);
    if (!s)
        return NULL;
    memcpy(s, base, len + 1);
    if (model >= 0) { /* "name*3" */
        s[len] = '*';
        bk_fmt_int(s + len + 1, (long long)model);
    }
    return s;
}

static bspkit_result build_nodes(builder *b, const bspkit_entities *ents, const int64_t *model_entity,
                                 bspkit_error *err)
{
    bk_xmesh *m = b->m;
    size_t cap = 0;
    bspkit_result r;
    bool source = m->family == BSPKIT_FAMILY_SOURCE;
    for (size_t i = 0; i < m->model_count; i++) {
        bk_xnode n = blank_node(i == 0 ? BK_XNODE_WORLD : BK_XNODE_BRUSH);
        n.model = (int64_t)i;
        n.entity = model_entity[i];
        n.name = i == 0 ? bk_xdup("worldspawn") : node_name(ents, n.entity, (int64_t)i);
        if (!n.name)
            return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
        if (i > 0 && n.entity >= 0) {
            /* Brush models are stored relative to their entity's origin. Only
             * Source rotates them by "angles": in Quake and GoldSrc a brush
             * entity's angle is its move direction. */
            if (!bk_parse_vec3(bspkit_entity_value(ents, (size_t)n.entity, "origin"), n.translation))
                memset(n.translation, 0, sizeof n.translation);
            if (source)
                entity_rotation(ents, (size_t)n.entity, false, n.rotation);
        }
        if ((r = add_node(m, &cap, &n, err)) != BSPKIT_OK)
            return r;
    }
    for (size_t e = 0; ents && !b->opts.no_point_entities && e < ents->count; e++) {
        const char *cls = bspkit_entity_value(ents, e, "classname");
        if (!cls || strcmp(cls, "worldspawn") == 0 || bk_model_ref(bspkit_entity_value(ents, e, "model")) >= 0)
            continue;
        bk_xnode n = blank_node(BK_XNODE_POINT);
        n.entity = (int64_t)e;
        if (!(n.name = node_name(ents, n.entity, -1)))
            return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
        if (!bk_parse_vec3(bspkit_entity_value(ents, e, "origin"), n.translation))
            memset(n.translation, 0, sizeof n.translation);
        entity_rotation(ents, e, true, n.rotation);
        if ((r = add_node(m, &cap, &n, err)) != BSPKIT_OK)
            return r;
    }
    if (!source || b->opts.no_props)
        return BSPKIT_OK;
    const bspkit_static_props *sp;
    if ((r = bspkit_get_static_props(b->map, &sp, err)) != BSPKIT_OK)
        return r;
    for (size_t i = 0; i < sp->prop_count; i++) {
        const bspkit_static_prop *pr = &sp->props[i];
        bk_xnode n = blank_node(BK_XNODE_PROP);
        n.prop = (int64_t)i;
        char fallback[40];
        snprintf(fallback, sizeof fallback, "prop_%zu", i);
        n.name = bk_xdup(pr->prop_type < sp->dictionary_count ? sp->dictionary[pr->prop_type].name : fallback);
        if (!n.name)
            return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
        to_d(pr->origin, n.translation);
        bk_angles_quat(pr->angles.x, pr->angles.y, pr->angles.z, n.rotation);
        if (pr->uniform_scale > 0 && isfinite(pr->uniform_scale))
            n.scale[0] = n.scale[1] = n.scale[2] = pr->uniform_scale;
        double ns[3];
        to_d(pr->non_uniform_scale, ns);
        if (ns[0] > 0 && ns[1] > 0 && ns[2] > 0 && isfinite(ns[0] + ns[1] + ns[2]))
            memcpy(n.scale, ns, sizeof ns);
        for (int k = 0; k < 3; k++)
            if (!isfinite(n.translation[k]) || !isfinite(n.rotation[k]))
                return bk_fail(err, BSPKIT_ERR_GAME_LUMP, BSPKIT_S_GAME_LUMP, -1, -1,
                               "static prop %zu has a non-finite origin or angle", i);
        if ((r = add_node(m, &cap, &n, err)) != BSPKIT_OK)
            return r;
        m->props++;
    }
    return BSPKIT_OK;
}

/* ---- output bound ------------------------------------------------------- */

/* Sums what the models' faces ask for before any of it is built (see
 * bk_face_edge_limit). Ranges that are out of bounds are left to the
 * builder, which reports them. */
static bspkit_result check_output_bound(builder *b, const bspkit_model *models, size_t nmodels, bspkit_error *err)
{
    bool source = b->m->family == BSPKIT_FAMILY_SOURCE;
    uint64_t corners = 0, disp_verts = 0;
    for (size_t i = 0; i < nmodels; i++) {
        const bspkit_model *md = &models[i];
        if (md->first_face < 0 || md->num_faces < 0 ||
            !range_ok((uint64_t)md->first_face, (uint64_t)md->num_faces, b->face_count))
            continue;
        for (size_t k = 0; k < (size_t)md->num_faces; k++) {
            const bspkit_face *f = &b->faces[(size_t)md->first_face + k];
            if (source && f->dispinfo >= 0) {
                if ((uint64_t)f->dispinfo < b->dispinfo_count)
                    disp_verts += bspkit_disp_vert_count(b->dispinfo[f->dispinfo].power);
            } else if (f->num_edges > 0) {
                corners += (uint64_t)f->num_edges;
            }
        }
    }
    uint64_t edge_limit = bk_face_edge_limit(b->surfedge_count);
    if (corners > edge_limit)
        return bk_fail(err, BSPKIT_ERR_LIMIT, b->face_lump, bk_file_offset(b->map, b->face_lump, 0), 0,
                       "%s: the exported faces have %llu edges in all, more than %u x the %zu surfedges + %u "
                       "(faces share surfedge ranges)",
                       bk_lump_name(b->map, b->face_lump), (unsigned long long)corners, BK_FACE_EDGE_FACTOR,
                       b->surfedge_count, BK_FACE_EDGE_SLACK);
    if (disp_verts > BK_FACE_EDGE_SLACK) {
        const bspkit_disp_vert *dv;
        size_t ndv;
        bspkit_result r = bspkit_get_disp_verts(b->map, &dv, &ndv, err);
        if (r != BSPKIT_OK)
            return r;
        if (disp_verts > bk_face_edge_limit(ndv))
            return bk_fail(err, BSPKIT_ERR_LIMIT, b->face_lump, bk_file_offset(b->map, b->face_lump, 0), 0,
                           "%s: the exported displacement faces have %llu vertices in all, more than %u x the "
                           "%zu DISP_VERTS + %u (faces share displacements)",
                           bk_lump_name(b->map, b->face_lump), (unsigned long long)disp_verts,
                           BK_FACE_EDGE_FACTOR, ndv, BK_FACE_EDGE_SLACK);
    }
    return BSPKIT_OK;
}

/* ---- build -------------------------------------------------------------- */

static bspkit_result load_lumps(builder *b, bspkit_error *err)
{
    bspkit_map *map = b->map;
    bspkit_result r;
    b->face_lump = map->dec_lump[BK_REC_FACES];
    if ((r = bspkit_get_faces(map, &b->faces, &b->face_count, err)) != BSPKIT_OK)
        return r;
    /* HDR-only builds (Xbox 360) keep their faces in FACES_HDR alone. */
    if (b->face_count == 0 && b->m->family == BSPKIT_FAMILY_SOURCE) {
        if ((r = bspkit_get_hdr_faces(map, &b->faces, &b->face_count, err)) != BSPKIT_OK)
            return r;
        b->face_lump = BSPKIT_S_FACES_HDR;
    }
    if ((r = bspkit_get_planes(map, &b->planes, &b->plane_count, err)) != BSPKIT_OK ||
        (r = bspkit_get_vertexes(map, &b->verts, &b->vert_count, err)) != BSPKIT_OK ||
        (r = bspkit_get_edges(map, &b->edges, &b->edge_count, err)) != BSPKIT_OK ||
        (r = bspkit_get_surfedges(map, &b->surfedges, &b->surfedge_count, err)) != BSPKIT_OK ||
        (r = bspkit_get_texinfo(map, &b->texinfo, &b->texinfo_count, err)) != BSPKIT_OK ||
        (r = bspkit_get_dispinfo(map, &b->dispinfo, &b->dispinfo_count, err)) != BSPKIT_OK)
        return r;
    return BSPKIT_OK;
}

/* The export models (all zero) and the entity placing each model
 * (*model_entity, nmodels + 1 entries, -1 = none); trigger models are
 * marked skipped when asked. */
static bspkit_result map_models(builder *b, const bspkit_entities *ents, size_t nmodels, int64_t **model_entity,
                                bspkit_error *err)
{
    bk_xmesh *m = b->m;
    size_t cap = 0;
    bspkit_result r;
    if ((r = bk_xgrow(m, (void **)&m->models, &cap, nmodels, sizeof *m->models, b->map->dec_lump[BK_REC_MODELS], err)) != BSPKIT_OK)
        return r;
    if (nmodels > 0)
        memset(m->models, 0, nmodels * sizeof *m->models);
    m->model_count = nmodels;
    size_t me_cap = 0;
    *model_entity = NULL;
    if ((r = bk_xgrow(m, (void **)model_entity, &me_cap, nmodels + 1, sizeof **model_entity, -1, err)) != BSPKIT_OK)
        return r;
    for (size_t i = 0; i <= nmodels; i++)
        (*model_entity)[i] = -1;
    for (size_t e = 0; ents && e < ents->count; e++) {
        const char *cls = bspkit_entity_value(ents, e, "classname");
        int64_t mi = cls && strcmp(cls, "worldspawn") == 0 ? 0 : bk_model_ref(bspkit_entity_value(ents, e, "model"));
        if (mi >= 0 && (uint64_t)mi < nmodels && (*model_entity)[mi] < 0) {
            (*model_entity)[mi] = (int64_t)e;
            if ((b->opts.skip & BSPKIT_SKIP_TRIGGER) && mi > 0 && strncmp(cls ? cls : "", "trigger", 7) == 0)
                m->models[mi].skipped = true;
        }
    }
    return BSPKIT_OK;
}

/* Totals of one built model, and its primitives' material slots released. */
static void finish_model(builder *b, const bk_xmodel *xm)
{
    bk_xmesh *m = b->m;
    for (size_t p = 0; p < xm->prim_count; p++) {
        b->prim_of[xm->prims[p].material] = 0;
        m->vertices += xm->prims[p].vert_count;
    }
    m->faces += xm->faces;
    m->triangles += xm->triangles;
    m->displacements += xm->displacements;
}

/* ---- Titanfall 2 -------------------------------------------------------- */

/* The lumps a Titanfall mesh is drawn from. */
typedef struct r2_lumps {
    const bspkit_r2_model *models;
    size_t model_count;
    const bspkit_r2_mesh *meshes;
    size_t mesh_count;
    const bspkit_r2_material_sort *sorts;
    size_t sort_count;
    const uint32_t *indices;
    size_t index_count;
    const bspkit_vec3 *normals;
    size_t normal_count;
    const bspkit_r2_vertex *verts[4]; /* VERTEX_UNLIT, _LIT_FLAT, _LIT_BUMP, _UNLIT_TS */
    size_t vert_count[4];
} r2_lumps;

static bspkit_result r2_load(bspkit_map *map, r2_lumps *l, bspkit_error *err)
{
    bspkit_result r;
    if ((r = bspkit_get_r2_models(map, &l->models, &l->model_count, err)) != BSPKIT_OK ||
        (r = bspkit_get_r2_meshes(map, &l->meshes, &l->mesh_count, err)) != BSPKIT_OK ||
        (r = bspkit_get_r2_material_sorts(map, &l->sorts, &l->sort_count, err)) != BSPKIT_OK ||
        (r = bspkit_get_r2_mesh_indices(map, &l->indices, &l->index_count, err)) != BSPKIT_OK ||
        (r = bspkit_get_r2_vertex_normals(map, &l->normals, &l->normal_count, err)) != BSPKIT_OK)
        return r;
    for (int k = 0; k < 4; k++)
        if ((r = bspkit_get_r2_vertices(map, BSPKIT_R2_VERTEX_UNLIT + k, &l->verts[k], &l->vert_count[k], err)) !=
            BSPKIT_OK)
            return r;
    return BSPKIT_OK;
}

static bspkit_result r2_fail(builder *b, bspkit_error *err, int lump, size_t record, const char *fmt,
                             long long value)
{
    uint64_t ofs = (uint64_t)record * b->map->lumps[lump].layout.record_size;
    char what[160];
    snprintf(what, sizeof what, fmt, value);
    return bk_fail(err, BSPKIT_ERR_INDEX, lump, bk_file_offset(b->map, lump, ofs), (int64_t)ofs, "%s record %zu: %s",
                   bk_lump_name(b->map, lump), record, what);
}

/* One mesh: the vertex records its indices reach (from its material sort's
 * first vertex), with positions and normals looked up, and its triangles
 * turned counter-clockwise (the files store them clockwise, as Source does). */
static bspkit_result emit_r2_mesh(builder *b, const r2_lumps *l, bk_xmodel *xm, size_t *prim_cap, size_t mi,
                                  bspkit_error *err)
{
    const bspkit_r2_mesh *me = &l->meshes[mi];
    if (me->material_sort >= l->sort_count)
        return r2_fail(b, err, BSPKIT_R2_MESHES, mi, "material sort %lld outside MATERIAL_SORTS", me->material_sort);
    const bspkit_r2_material_sort *s = &l->sorts[me->material_sort];
    uint64_t first = me->first_mesh_index, n = 3ull * me->num_triangles;
    if (first + n > l->index_count)
        return r2_fail(b, err, BSPKIT_R2_MESHES, mi, "triangles from mesh index %lld run past MESH_INDICES",
                       (long long)first);
    int32_t mat;
    bspkit_result r = BSPKIT_OK;
    if (s->texture_data >= 0 && (size_t)s->texture_data < b->texture_count)
        mat = b->texture_material[s->texture_data];
    else if ((r = missing_material(b, s->texture_data, &mat, err)) != BSPKIT_OK)
        return r;
    if (!bk_xkeep_face(b, (uint32_t)mat, (int32_t)me->flags))
        return BSPKIT_OK;
    if (n == 0)
        return BSPKIT_OK;
    int vk = bspkit_r2_vertex_lump(me->flags) - BSPKIT_R2_VERTEX_UNLIT;
    uint32_t lo = UINT32_MAX, hi = 0;
    for (uint64_t k = first; k < first + n; k++) {
        lo = l->indices[k] < lo ? l->indices[k] : lo;
        hi = l->indices[k] > hi ? l->indices[k] : hi;
    }
    if ((uint64_t)s->vertex_offset + hi >= l->vert_count[vk])
        return r2_fail(b, err, BSPKIT_R2_MESHES, mi, "mesh index %lld + the material sort's vertex_offset lies "
                       "outside its vertex lump", (long long)hi);
    bk_xprim *p;
    if ((r = bk_xprim_for(b, xm, prim_cap, (uint32_t)mat, &p, err)) != BSPKIT_OK ||
        (r = bk_xreserve(b, p, (size_t)(hi - lo) + 1 < n ? (size_t)(hi - lo) + 1 : (size_t)n, (size_t)n, err)) !=
            BSPKIT_OK)
        return r;
    size_t span = (size_t)(hi - lo) + 1;
    if ((r = bk_xgrow(b->m, (void **)&b->remap, &b->remap_cap, span, sizeof *b->remap, BSPKIT_R2_MESHES, err)) !=
        BSPKIT_OK)
        return r;
    memset(b->remap, 0, span * sizeof *b->remap);
    int vlump = BSPKIT_R2_VERTEX_UNLIT + vk;
    /* Only the records the triangles use, each once, in the order first used. */
    for (uint64_t k = first; k < first + n; k++) {
        uint32_t v = l->indices[k];
        if (b->remap[v - lo])
            continue;
        b->remap[v - lo] = (uint32_t)p->vert_count + 1;
        size_t ri = (size_t)(s->vertex_offset + v);
        const bspkit_r2_vertex *rv = &l->verts[vk][ri];
        if (rv->position_index >= b->vert_count)
            return r2_fail(b, err, vlump, ri, "position %lld outside VERTICES", rv->position_index);
        if (rv->normal_index >= l->normal_count)
            return r2_fail(b, err, vlump, ri, "normal %lld outside VERTEX_NORMALS", rv->normal_index);
        double pos[3], normal[3];
        to_d(b->verts[rv->position_index], pos);
        to_d(l->normals[rv->normal_index], normal);
        if (!bk_xnormalize(normal))
            normal[0] = normal[1] = 0.0, normal[2] = 1.0;
        const float lm[2] = {0.0f, 0.0f};
        if (!bk_xput_vertex(p, pos, normal, rv->albedo_uv, lm, (uint32_t)mi))
            return r2_fail(b, err, vlump, ri, "position %lld is not a finite point", rv->position_index);
    }
    for (uint64_t k = first; k < first + n; k += 3) {
        uint32_t *t = &p->indices[p->index_count];
        t[0] = b->remap[l->indices[k] - lo] - 1;
        t[1] = b->remap[l->indices[k + 2] - lo] - 1;
        t[2] = b->remap[l->indices[k + 1] - lo] - 1;
        p->index_count += 3;
    }
    xm->faces++;
    xm->triangles += me->num_triangles;
    return BSPKIT_OK;
}

/* Titanfall models own runs of meshes rather than faces. */
static bspkit_result build_r2(builder *b, bspkit_error *err)
{
    bk_xmesh *m = b->m;
    bspkit_map *map = b->map;
    r2_lumps l;
    memset(&l, 0, sizeof l);
    bspkit_result r;
    if ((r = r2_load(map, &l, err)) != BSPKIT_OK ||
        (r = bspkit_get_vertexes(map, &b->verts, &b->vert_count, err)) != BSPKIT_OK ||
        (r = load_textures(b, err)) != BSPKIT_OK)
        return r;
    const bspkit_entities *ents = NULL;
    int64_t *model_entity = NULL;
    if ((r = bk_export_entities(map, &ents, err)) != BSPKIT_OK ||
        (r = map_models(b, ents, l.model_count, &model_entity, err)) != BSPKIT_OK) {
        free(model_entity);
        return r;
    }
    for (size_t i = 0; r == BSPKIT_OK && i < l.model_count; i++) {
        const bspkit_r2_model *md = &l.models[i];
        bk_xmodel *xm = &m->models[i];
        if (!range_ok(md->first_mesh, md->num_meshes, l.mesh_count)) {
            r = r2_fail(b, err, BSPKIT_R2_MODELS, i, "meshes from %lld lie outside MESHES", md->first_mesh);
            break;
        }
        if (xm->skipped) {
            m->skipped_faces += md->num_meshes;
            continue;
        }
        size_t prim_cap = 0;
        for (size_t k = 0; k < md->num_meshes && r == BSPKIT_OK; k++)
            r = emit_r2_mesh(b, &l, xm, &prim_cap, (size_t)md->first_mesh + k, err);
        finish_model(b, xm);
    }
    if (r == BSPKIT_OK)
        r = build_nodes(b, ents, model_entity, err);
    free(model_entity);
    return r;
}

static bspkit_result build(builder *b, bspkit_error *err)
{
    bk_xmesh *m = b->m;
    bspkit_map *map = b->map;
    bspkit_result r;
    if (m->family == BSPKIT_FAMILY_TITANFALL)
        return build_r2(b, err);
    const bspkit_model *models;
    size_t nmodels;
    /* Quake 3 models hold surfaces, not faces. */
    bool surfaces = m->family == BSPKIT_FAMILY_QUAKE3;
    if ((r = bspkit_get_models(map, &models, &nmodels, err)) != BSPKIT_OK)
        return r;
    if (surfaces)
        r = bk_xsurfaces_load(b, models, nmodels, err);
    else if ((r = load_lumps(b, err)) == BSPKIT_OK && (r = check_output_bound(b, models, nmodels, err)) == BSPKIT_OK)
        r = load_textures(b, err);
    if (r != BSPKIT_OK)
        return r;
    size_t face_total = surfaces ? b->surface_count : b->face_count;
    int model_lump = map->dec_lump[BK_REC_MODELS];
    const bspkit_entities *ents = NULL;
    if ((r = bk_export_entities(map, &ents, err)) != BSPKIT_OK)
        return r;
    int64_t *model_entity = NULL;
    if ((r = map_models(b, ents, nmodels, &model_entity, err)) != BSPKIT_OK) {
        free(model_entity);
        return r;
    }
    for (size_t i = 0; r == BSPKIT_OK && i < nmodels; i++) {
        const bspkit_model *md = &models[i];
        bk_xmodel *xm = &m->models[i];
        if (md->first_face < 0 || md->num_faces < 0 ||
            !range_ok((uint64_t)md->first_face, (uint64_t)md->num_faces, face_total)) {
            uint64_t ofs = (uint64_t)i * map->lumps[model_lump].layout.record_size;
            const char *what = surfaces ? "surfaces" : "faces";
            r = bk_fail(err, BSPKIT_ERR_INDEX, model_lump, bk_file_offset(map, model_lump, ofs), (int64_t)ofs,
                        "MODELS record %zu: %s %d..+%d lie outside the %zu %s", i, what, (int)md->first_face,
                        (int)md->num_faces, face_total, what);
            break;
        }
        if (xm->skipped) {
            m->skipped_faces += (size_t)md->num_faces;
            continue;
        }
        size_t prim_cap = 0;
        if (!surfaces)
            r = expect_sizes(b, (size_t)md->first_face, (size_t)md->num_faces, err);
        for (size_t k = 0; k < (size_t)md->num_faces && r == BSPKIT_OK; k++)
            r = surfaces ? bk_xsurface_emit(b, xm, &prim_cap, (size_t)md->first_face + k, err)
                         : emit_face(b, xm, &prim_cap, (size_t)md->first_face + k, err);
        finish_model(b, xm);
    }
    if (r == BSPKIT_OK)
        r = build_nodes(b, ents, model_entity, err);
    free(model_entity);
    return r;
}

bspkit_result bk_xmesh_build(bspkit_map *map, const bk_xmesh_options *opts, bk_xmesh *out, bspkit_error *err)
{
    if (!map || !out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "map and output are required");
    memset(out, 0, sizeof *out);
    out->family = map->format.family;
    out->budget = map->opts.max_memory;
    builder b;
    memset(&b, 0, sizeof b);
    b.map = map;
    b.m = out;
    if (opts)
        b.opts = *opts;
    bspkit_result r = build(&b, err);
    free(b.texture_material);
    free(b.material_slots);
    free(b.prim_of);
    free(b.expect);
    free(b.poly);
    free(b.remap);
    if (r != BSPKIT_OK)
        bk_xmesh_free(out);
    return r;
}

void bk_xmesh_free(bk_xmesh *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->model_count; i++) {
        for (size_t p = 0; p < m->models[i].prim_count; p++) {
            free(m->models[i].prims[p].verts);
            free(m->models[i].prims[p].indices);
        }
        free(m->models[i].prims);
    }
    free(m->models);
    for (size_t i = 0; i < m->material_count; i++)
        free(m->materials[i].name);
    free(m->materials);
    for (size_t i = 0; i < m->node_count; i++)
        free(m->nodes[i].name);
    free(m->nodes);
    memset(m, 0, sizeof *m);
}
