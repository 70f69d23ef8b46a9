/* VMF entities that vbsp folds into lumps: prop_static (static prop game
 * lump), info_overlay (OVERLAYS), env_cubemap (CUBEMAPS), and the geometry of
 * func_occluder (OCCLUSION) and func_areaportal (AREAPORTALS + clip portal
 * vertices), whose brushes the compiler does not keep. */
#include "vmf_internal.h"

#include "bspkit/props.h"

#include "core/map.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* StaticPropLump_t flag bits that Hammer shows as keys. */
enum {
    PROP_IGNORE_NORMALS = 0x8,
    PROP_NO_SHADOW = 0x10,
    PROP_SCREEN_SPACE_FADE = 0x20,
    PROP_NO_PER_VERTEX_LIGHTING = 0x40,
    PROP_NO_SELF_SHADOWING = 0x80,
};

static void kv_num(vmf_ctx *c, int level, const char *key, double v)
{
    char buf[32];
    bk_decompile_num(buf, sizeof buf, v);
    vmf_kv(c, level, key, buf);
}

static void kv_vec(vmf_ctx *c, int level, const char *key, double x, double y, double z)
{
    char a[32], b[32], d[32], buf[100];
    bk_decompile_num(a, sizeof a, x), bk_decompile_num(b, sizeof b, y), bk_decompile_num(d, sizeof d, z);
    snprintf(buf, sizeof buf, "%s %s %s", a, b, d);
    vmf_kv(c, level, key, buf);
}

static void kv_int(vmf_ctx *c, int level, const char *key, long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%ld", v);
    vmf_kv(c, level, key, buf);
}

static void open_entity(vmf_ctx *c, const char *classname)
{
    tb_puts(c->out, "entity\n{\n");
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)c->next_id++);
    vmf_kv(c, 1, "id", buf);
    vmf_kv(c, 1, "classname", classname);
}

static void close_entity(vmf_ctx *c)
{
    tb_puts(c->out, "}\n");
    c->st->entities++;
}

bspkit_result vmf_write_static_props(vmf_ctx *c)
{
    if (c->opts->skip & BSPKIT_DECOMPILE_NO_PROPS)
        return BSPKIT_OK;
    const bspkit_static_props *sp;
    bspkit_result r = bspkit_get_static_props(c->map, &sp, c->err);
    if (r != BSPKIT_OK)
        return r;
    for (size_t i = 0; i < sp->prop_count; i++) {
        const bspkit_static_prop *p = &sp->props[i];
        if (p->prop_type >= sp->dictionary_count)
            continue;
        open_entity(c, "prop_static");
        kv_vec(c, 1, "angles", p->angles.x, p->angles.y, p->angles.z);
        kv_int(c, 1, "disableshadows", (p->flags & PROP_NO_SHADOW) != 0);
        kv_int(c, 1, "disableselfshadowing", (p->flags & PROP_NO_SELF_SHADOWING) != 0);
        kv_int(c, 1, "disablevertexlighting", (p->flags & PROP_NO_PER_VERTEX_LIGHTING) != 0);
        kv_int(c, 1, "ignorenormals", (p->flags & PROP_IGNORE_NORMALS) != 0);
        kv_int(c, 1, "screenspacefade", (p->flags & PROP_SCREEN_SPACE_FADE) != 0);
        kv_num(c, 1, "fademaxdist", p->fade_max_dist);
        kv_num(c, 1, "fademindist", p->fade_min_dist);
        kv_num(c, 1, "fadescale", sp->version >= 5 ? p->forced_fade_scale : 1.0);
        if (p->min_dx_level || p->max_dx_level) {
            kv_int(c, 1, "mindxlevel", p->min_dx_level);
            kv_int(c, 1, "maxdxlevel", p->max_dx_level);
        }
        if (p->min_cpu_level || p->max_cpu_level || p->min_gpu_level || p->max_gpu_level) {
            kv_int(c, 1, "mincpulevel", p->min_cpu_level);
            kv_int(c, 1, "maxcpulevel", p->max_cpu_level);
            kv_int(c, 1, "mingpulevel", p->min_gpu_level);
            kv_int(c, 1, "maxgpulevel", p->max_gpu_level);
        }
        const uint8_t *dm = p->diffuse_modulation;
        if (dm[0] || dm[1] || dm[2] || dm[3]) {
            char buf[48];
            snprintf(buf, sizeof buf, "%u %u %u", dm[0], dm[1], dm[2]);
            vmf_kv(c, 1, "rendercolor", buf);
            kv_int(c, 1, "renderamt", dm[3]);
        }
        if (p->disable_x360)
            vmf_kv(c, 1, "disableX360", "1");
        if (p->uniform_scale != 0 && isfinite(p->uniform_scale))
            kv_num(c, 1, "uniformscale", p->uniform_scale);
        if (p->targetname && p->targetname[0])
            vmf_kv(c, 1, "targetname", p->targetname);
        vmf_kv(c, 1, "model", sp->dictionary[p->prop_type].name);
        kv_int(c, 1, "skin", p->skin);
        kv_int(c, 1, "solid", p->solid);
        kv_vec(c, 1, "origin", p->origin.x, p->origin.y, p->origin.z);
        close_entity(c);
        c->st->props++;
        if ((r = vmf_check_size(c, BSPKIT_S_GAME_LUMP)) != BSPKIT_OK)
            return r;
    }
    return BSPKIT_OK;
}

bspkit_result vmf_write_overlays(vmf_ctx *c)
{
    if (c->opts->skip & BSPKIT_DECOMPILE_NO_OVERLAYS)
        return BSPKIT_OK;
    const bspkit_overlay *ov;
    const bspkit_overlay_fade *fades;
    size_t n, nfades;
    bspkit_result r;
    if ((r = bspkit_get_overlays(c->map, &ov, &n, c->err)) != BSPKIT_OK ||
        (r = bspkit_get_overlay_fades(c->map, &fades, &nfades, c->err)) != BSPKIT_OK)
        return r;
    for (size_t i = 0; i < n; i++) {
        const bspkit_overlay *o = &ov[i];
        open_entity(c, "info_overlay");
        char mat[256] = "";
        if (o->texinfo >= 0 && (size_t)o->texinfo < c->ntexinfo) {
            int32_t td = c->texinfo[o->texinfo].texture;
            const char *name = td >= 0 && (size_t)td < c->ntexdata ? bspkit_texdata_name(c->map, (size_t)td) : NULL;
            if (name)
                vmf_unpatch_material(name, mat, sizeof mat);
        }
        vmf_kv(c, 1, "material", mat);
        /* Hammer addresses the faces an overlay lies on by the ids of the sides written here. */
        tb_puts(c->out, "\t\"sides\" \"");
        bool first = true;
        for (uint16_t k = 0; k < o->face_count && k < BSPKIT_OVERLAY_FACES; k++) {
            int32_t f = o->faces[k];
            if (f < 0 || (size_t)f >= c->nfaces || c->face_side[f] == 0)
                continue;
            bool seen = false; /* several fragments of one side name it once */
            for (uint16_t q = 0; q < k && !seen; q++)
                seen = o->faces[q] >= 0 && (size_t)o->faces[q] < c->nfaces && c->face_side[o->faces[q]] == c->face_side[f];
            if (seen)
                continue;
            tb_printf(c->out, first ? "%u" : " %u", (unsigned)c->face_side[f]);
            first = false;
        }
        tb_puts(c->out, "\"\n");
        kv_int(c, 1, "RenderOrder", o->render_order);
        kv_num(c, 1, "StartU", o->u[0]);
        kv_num(c, 1, "EndU", o->u[1]);
        kv_num(c, 1, "StartV", o->v[0]);
        kv_num(c, 1, "EndV", o->v[1]);
        kv_vec(c, 1, "BasisOrigin", o->origin.x, o->origin.y, o->origin.z);
        /* vbsp packs BasisU into the z of UVPoints 0..2; BasisV is normal x U, flipped when
         * UVPoints[3].z is 1. */
        bk_dvec nrm = {o->basis_normal.x, o->basis_normal.y, o->basis_normal.z};
        bk_dvec bu = {o->uv_points[0].z, o->uv_points[1].z, o->uv_points[2].z};
        bk_dvec bv = dv_cross(nrm, bu);
        if (o->uv_points[3].z == 1.0f)
            bv = dv_scale(bv, -1);
        kv_vec(c, 1, "BasisU", bu.x, bu.y, bu.z);
        kv_vec(c, 1, "BasisV", bv.x, bv.y, bv.z);
        kv_vec(c, 1, "BasisNormal", nrm.x, nrm.y, nrm.z);
        for (int k = 0; k < 4; k++) {
            char key[8];
            snprintf(key, sizeof key, "uv%d", k);
            kv_vec(c, 1, key, o->uv_points[k].x, o->uv_points[k].y, 0);
        }
        if (nfades == n) {
            double lo = fades[i].fade_dist_min_sq, hi = fades[i].fade_dist_max_sq;
            kv_num(c, 1, "fademindist", lo > 0 && isfinite(lo) ? sqrt(lo) : -1);
            kv_num(c, 1, "fademaxdist", hi > 0 && isfinite(hi) ? sqrt(hi) : 0);
        }
        kv_vec(c, 1, "origin", o->origin.x, o->origin.y, o->origin.z);
        close_entity(c);
        c->st->overlays++;
        if ((r = vmf_check_size(c, BSPKIT_S_OVERLAYS)) != BSPKIT_OK)
            return r;
    }
    return BSPKIT_OK;
}

bspkit_result vmf_write_cubemaps(vmf_ctx *c)
{
    if (c->opts->skip & BSPKIT_DECOMPILE_NO_CUBEMAPS)
        return BSPKIT_OK;
    const bspkit_cubemap *cm;
    size_t n;
    bspkit_result r = bspkit_get_cubemaps(c->map, &cm, &n, c->err);
    if (r != BSPKIT_OK)
        return r;
    for (size_t i = 0; i < n; i++) {
        open_entity(c, "env_cubemap");
        kv_int(c, 1, "cubemapsize", cm[i].size);
        kv_vec(c, 1, "origin", cm[i].origin[0], cm[i].origin[1], cm[i].origin[2]);
        close_entity(c);
        c->st->cubemaps++;
        if ((r = vmf_check_size(c, BSPKIT_S_CUBEMAPS)) != BSPKIT_OK)
            return r;
    }
    return BSPKIT_OK;
}

#define MAX_POLY_POINTS 64

bspkit_result vmf_write_occluder(vmf_ctx *c, long index)
{
    const bspkit_occlusion *oc;
    const bspkit_vec3 *verts;
    size_t nv;
    bspkit_result r;
    if ((r = bspkit_get_occlusion(c->map, &oc, c->err)) != BSPKIT_OK ||
        (r = bspkit_get_vertexes(c->map, &verts, &nv, c->err)) != BSPKIT_OK)
        return r;
    if (index < 0 || (size_t)index >= oc->occluder_count)
        return BSPKIT_OK;
    const bspkit_occluder *o = &oc->occluders[index];
    if (o->first_poly < 0 || o->poly_count < 0 || !range_ok((uint64_t)o->first_poly, (uint64_t)o->poly_count, oc->poly_count))
        return BSPKIT_OK;
    for (int32_t p = 0; p < o->poly_count && r == BSPKIT_OK; p++) {
        const bspkit_occluder_poly *poly = &oc->polys[o->first_poly + p];
        if (poly->vertex_count < 3 || poly->vertex_count > MAX_POLY_POINTS || poly->first_vertex_index < 0 ||
            !range_ok((uint64_t)poly->first_vertex_index, (uint64_t)poly->vertex_count, oc->vertex_index_count) ||
            poly->plane < 0 || (size_t)poly->plane >= c->nplanes)
            continue;
        bk_dvec pts[MAX_POLY_POINTS];
        bool ok = true;
        for (int32_t k = 0; k < poly->vertex_count && ok; k++) {
            int32_t v = oc->vertex_indices[poly->first_vertex_index + k];
            ok = v >= 0 && (size_t)v < nv;
            if (ok)
                pts[k] = (bk_dvec){verts[v].x, verts[v].y, verts[v].z};
        }
        if (!ok)
            continue;
        const bspkit_plane *pl = &c->planes[poly->plane];
        bool written = false;
        vmf_side_in front = {{{0, 0, 0}, 0}, -1, -1, "TOOLS/TOOLSOCCLUDER", -1, -1};
        r = vmf_write_thin_solid(c, 1, pts, (size_t)poly->vertex_count,
                                 (bk_dvec){pl->normal.x, pl->normal.y, pl->normal.z}, &front, &written);
        c->st->entity_brushes += written;
    }
    return r;
}

bspkit_result vmf_write_areaportal(vmf_ctx *c, long key, bool *written)
{
    const bspkit_areaportal *ap;
    const bspkit_vec3 *cv;
    size_t nap, ncv;
    bspkit_result r;
    *written = false;
    if ((r = bspkit_get_areaportals(c->map, &ap, &nap, c->err)) != BSPKIT_OK ||
        (r = bspkit_get_clip_portal_verts(c->map, &cv, &ncv, c->err)) != BSPKIT_OK)
        return r;
    /* Each portal is stored once per area it joins; the first record gives the polygon. */
    for (size_t a = 0; a < nap; a++) {
        if ((long)ap[a].portal_key != key || ap[a].num_clip_verts < 3 || ap[a].num_clip_verts > MAX_POLY_POINTS ||
            !range_ok(ap[a].first_clip_vert, ap[a].num_clip_verts, ncv))
            continue;
        bk_dvec pts[MAX_POLY_POINTS];
        for (uint32_t k = 0; k < ap[a].num_clip_verts; k++) {
            const bspkit_vec3 *v = &cv[ap[a].first_clip_vert + k];
            pts[k] = (bk_dvec){v->x, v->y, v->z};
        }
        bk_dvec nrm = {0, 0, 0};
        if (ap[a].plane >= 0 && (size_t)ap[a].plane < c->nplanes) {
            const bspkit_plane *pl = &c->planes[ap[a].plane];
            nrm = (bk_dvec){pl->normal.x, pl->normal.y, pl->normal.z};
        }
        if (dv_length(nrm) < 0.5) /* from the polygon itself */
            for (uint32_t k = 1; k + 1 < ap[a].num_clip_verts; k++)
                nrm = dv_add(nrm, dv_cross(dv_sub(pts[k], pts[0]), dv_sub(pts[k + 1], pts[0])));
        vmf_side_in front = {{{0, 0, 0}, 0}, -1, -1, "TOOLS/TOOLSAREAPORTAL", -1, -1};
        r = vmf_write_thin_solid(c, 1, pts, ap[a].num_clip_verts, nrm, &front, written);
        c->st->entity_brushes += *written;
        return r;
    }
    return BSPKIT_OK;
}
