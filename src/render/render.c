/* Public render entry points: the export's mesh, atlas and textures become a
 * scene; the view's camera projects it, the rasterizer draws it and the
 * supersamples are averaged into the image. */
#include "bspkit/render.h"

#include "bspkit/atlas.h"
#include "bspkit/export.h"
#include "bspkit/textures.h"
#include "core/map.h"
#include "export/mesh.h"
#include "media/image_internal.h"
#include "render/camera.h"
#include "render/raster.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_WIDTH 1280
#define DEFAULT_HEIGHT 720
#define DEFAULT_SUPERSAMPLE 2
#define MAX_SIDE 16384
#define MAX_SUPERSAMPLE 4
/* Sample buffers cost 11 bytes a sample: 2^26 is about 740 MB. */
#define MAX_SAMPLES (UINT64_C(1) << 26)
/* Polygons after clipping one triangle at the near plane have at most 4 corners. */
#define MAX_CLIPPED 4

static const uint8_t BACKGROUND[3] = {32, 32, 40};
static const uint8_t CHECKER[2] = {128, 96};

/* Mip levels down to 1 x 1 of a texture up to 2^(MAX_MIPS - 1) texels a side. */
#define MAX_MIPS 16

typedef struct material_view {
    bspkit_image image;         /* level 0; rgba NULL: the checker */
    bspkit_image mips[MAX_MIPS - 1]; /* levels 1.. */
    uint32_t levels;            /* 1 + the used entries of mips */
    bool mask;                  /* some texel has alpha below 255: cut out below 128 */
} material_view;

typedef struct shade_ctx {
    const material_view *mat;
    const bspkit_image *lightmap; /* NULL: full brightness */
    bool textures;
} shade_ctx;

/* Texel index along one axis of a repeating texture of `n` texels. */
static uint32_t wrap(double t, uint32_t n)
{
    double f = floor(t * n);
    f -= floor(f / n) * n;
    if (!(f >= 0))
        return 0;
    return f >= n ? n - 1 : (uint32_t)f;
}

static uint32_t clamp_index(double f, uint32_t n)
{
    return f <= 0 ? 0 : f >= n - 1.0 ? n - 1 : (uint32_t)f;
}

/* Bilinear RGB of the atlas at (u, v): luxel centres at (k + 0.5) / size. */
static void luxel(const bspkit_image *lm, double u, double v, double out[3])
{
    double px = u * lm->width - 0.5, py = v * lm->height - 0.5;
    if (!isfinite(px) || !isfinite(py)) {
        out[0] = out[1] = out[2] = 255;
        return;
    }
    double fx = floor(px), fy = floor(py);
    double ax = px - fx, ay = py - fy;
    uint32_t x0 = clamp_index(fx, lm->width), x1 = clamp_index(fx + 1, lm->width);
    uint32_t y0 = clamp_index(fy, lm->height), y1 = clamp_index(fy + 1, lm->height);
    size_t w = lm->width;
    const uint8_t *a = lm->rgba + ((size_t)y0 * w + x0) * 4, *b = lm->rgba + ((size_t)y0 * w + x1) * 4;
    const uint8_t *d = lm->rgba + ((size_t)y1 * w + x0) * 4, *e = lm->rgba + ((size_t)y1 * w + x1) * 4;
    for (int c = 0; c < 3; c++)
        out[c] = (a[c] * (1 - ax) + b[c] * ax) * (1 - ay) + (d[c] * (1 - ax) + e[c] * ax) * ay;
}

/* The level whose texels are nearest one sample across (point-sampled
 * textures shimmer in the distance without it). */
static const bspkit_image *mip_for(const material_view *m, const double grad[4])
{
    const bspkit_image *im = &m->image;
    double w = im->width, h = im->height;
    double gx = sqrt(grad[0] * w * grad[0] * w + grad[2] * h * grad[2] * h);
    double gy = sqrt(grad[1] * w * grad[1] * w + grad[3] * h * grad[3] * h);
    double rho = gx > gy ? gx : gy;
    if (!(rho >= 1.4142135623730951) || m->levels < 2)
        return im;
    double level = floor(log2(rho) + 0.5);
    if (!(level < m->levels - 1.0))
        level = m->levels - 1.0;
    return &m->mips[(uint32_t)level - 1];
}

static bool shade(const void *vctx, const double attr[BK_RATTRS], const double grad[4], uint8_t rgb[3])
{
    const shade_ctx *ctx = vctx;
    double tex[3] = {255, 255, 255};
    if (ctx->textures) {
        const bspkit_image *im = ctx->mat->image.rgba ? mip_for(ctx->mat, grad) : &ctx->mat->image;
        if (im->rgba) {
            uint32_t x = wrap(attr[0], im->width), y = wrap(attr[1], im->height);
            const uint8_t *t = im->rgba + ((size_t)y * im->width + x) * 4;
            if (ctx->mat->mask && t[3] < 128)
                return false;
            for (int c = 0; c < 3; c++)
                tex[c] = t[c];
        } else {
            uint32_t cell = (wrap(attr[0], 4) + wrap(attr[1], 4)) & 1;
            tex[0] = tex[1] = tex[2] = CHECKER[cell];
        }
    }
    double l[3] = {255, 255, 255};
    if (ctx->lightmap)
        luxel(ctx->lightmap, attr[2], attr[3], l);
    for (int c = 0; c < 3; c++) {
        double o = floor(tex[c] * l[c] / 255 + 0.5);
        rgb[c] = (uint8_t)(o > 255 ? 255 : o < 0 ? 0 : o);
    }
    return true;
}

/* Everything a frame draws. */
typedef struct scene {
    bk_xmesh mesh;
    bool have_mesh;
    bspkit_lightmap_atlas atlas;
    bool have_atlas;
    material_view *mats;
    size_t missing;
} scene;

static void scene_free(scene *s)
{
    if (s->have_mesh) {
        for (size_t i = 0; s->mats && i < s->mesh.material_count; i++) {
            bspkit_image_free(&s->mats[i].image);
            for (uint32_t k = 0; k < MAX_MIPS - 1; k++)
                bspkit_image_free(&s->mats[i].mips[k]);
        }
        bk_xmesh_free(&s->mesh);
    }
    free(s->mats);
    if (s->have_atlas)
        bspkit_lightmap_atlas_free(&s->atlas);
    memset(s, 0, sizeof *s);
}

/* Levels 1.. of m->image, each texel the rounded mean of the 2 x 2 below it
 * (edge texels repeated for odd sizes). */
static bspkit_result build_mips(material_view *m, bspkit_error *err)
{
    m->levels = 1;
    const bspkit_image *src = &m->image;
    while (m->levels < MAX_MIPS && (src->width > 1 || src->height > 1)) {
        bspkit_image *dst = &m->mips[m->levels - 1];
        uint32_t w = src->width > 1 ? src->width / 2 : 1, h = src->height > 1 ? src->height / 2 : 1;
        bspkit_result r = bspkit_image_alloc(dst, w, h, err);
        if (r != BSPKIT_OK)
            return r;
        for (uint32_t y = 0; y < h; y++) {
            for (uint32_t x = 0; x < w; x++) {
                uint32_t xs[2] = {2 * x < src->width ? 2 * x : src->width - 1,
                                  2 * x + 1 < src->width ? 2 * x + 1 : src->width - 1};
                uint32_t ys[2] = {2 * y < src->height ? 2 * y : src->height - 1,
                                  2 * y + 1 < src->height ? 2 * y + 1 : src->height - 1};
                for (int c = 0; c < 4; c++) {
                    uint32_t sum = 0;
                    for (int j = 0; j < 4; j++)
                        sum += src->rgba[((size_t)ys[j >> 1] * src->width + xs[j & 1]) * 4 + c];
                    dst->rgba[((size_t)y * w + x) * 4 + c] = (uint8_t)((sum + 2) / 4);
                }
            }
        }
        src = dst;
        m->levels++;
    }
    return BSPKIT_OK;
}

/* Decode each texture a primitive uses; one not found or not decodable
 * stays the checker, as in the export (only memory and limits are errors). */
static bspkit_result load_textures(bspkit_map *map, const bspkit_render_options *o, scene *s, bspkit_error *err)
{
    bool *used = calloc(s->mesh.material_count + 1, sizeof *used);
    if (!used)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    for (size_t m = 0; m < s->mesh.model_count; m++)
        for (size_t p = 0; p < s->mesh.models[m].prim_count; p++)
            used[s->mesh.models[m].prims[p].material] = true;
    bspkit_texture_options to = {0};
    to.wad_paths = o->wad_paths;
    to.wad_path_count = o->wad_path_count;
    bspkit_textures *tex = NULL;
    bspkit_result r = bspkit_textures_resolve(map, &to, &tex, err);
    for (size_t i = 0; r == BSPKIT_OK && i < s->mesh.material_count; i++) {
        if (!used[i])
            continue;
        int32_t t = s->mesh.materials[i].texture;
        const bspkit_texture *info = t >= 0 ? bspkit_textures_get(tex, (size_t)t) : NULL;
        bspkit_error load_err;
        bspkit_result lr = BSPKIT_ERR_NOT_FOUND;
        if (info && info->source != BSPKIT_TEXTURE_MISSING && info->decodable)
            lr = bspkit_textures_load_image(tex, (size_t)t, &s->mats[i].image, &load_err);
        if (lr == BSPKIT_ERR_NOMEM || lr == BSPKIT_ERR_LIMIT) {
            bk_error_copy(err, &load_err);
            r = lr;
        } else if (lr != BSPKIT_OK || !s->mats[i].image.rgba || s->mats[i].image.width == 0 ||
                   s->mats[i].image.height == 0) {
            bspkit_image_free(&s->mats[i].image);
            s->missing++;
        } else {
            s->mats[i].mask = !bk_image_opaque(&s->mats[i].image);
            r = build_mips(&s->mats[i], err);
        }
    }
    if (tex)
        bspkit_textures_free(tex);
    free(used);
    return r;
}

static bspkit_result scene_build(bspkit_map *map, const bspkit_render_options *o, scene *s, bspkit_error *err)
{
    memset(s, 0, sizeof *s);
    bspkit_result r;
    if (!o->no_lightmaps) {
        bspkit_atlas_options ao = {.hdr = o->lightmap_hdr};
        if ((r = bspkit_lightmap_atlas_build(map, &ao, &s->atlas, err)) != BSPKIT_OK)
            return r;
        s->have_atlas = true;
    }
    bk_xmesh_options mo = {0};
    mo.skip = o->show_hidden ? 0 : BSPKIT_SKIP_TOOL | BSPKIT_SKIP_SKY | BSPKIT_SKIP_TRIGGER | BSPKIT_SKIP_NODRAW;
    mo.no_point_entities = true;
    mo.no_props = true;
    mo.atlas = s->have_atlas ? &s->atlas : NULL;
    if ((r = bk_xmesh_build(map, &mo, &s->mesh, err)) != BSPKIT_OK) {
        scene_free(s);
        return r;
    }
    s->have_mesh = true;
    s->mats = calloc(s->mesh.material_count + 1, sizeof *s->mats);
    if (!s->mats) {
        scene_free(s);
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    }
    if (!o->no_textures && (r = load_textures(map, o, s, err)) != BSPKIT_OK)
        scene_free(s);
    return r;
}

/* A model vertex placed by its node: rotated, then moved. */
static void place(const bk_xnode *n, const float p[3], double out[3])
{
    double v[3] = {p[0], p[1], p[2]};
    bk_quat_rotate(n->rotation, v, out);
    for (int i = 0; i < 3; i++)
        out[i] += n->translation[i];
}

/* The world's bounds: the box of the world model's drawn vertices. The
 * MODELS record's box is no use here: compilers often write a placeholder
 * such as +-99999 or +-16376 there. */
static void world_bounds(const scene *s, double mn[3], double mx[3])
{
    for (int i = 0; i < 3; i++) {
        mn[i] = HUGE_VAL;
        mx[i] = -HUGE_VAL;
    }
    if (s->mesh.model_count > 0) {
        const bk_xmodel *w = &s->mesh.models[0];
        for (size_t p = 0; p < w->prim_count; p++)
            for (size_t v = 0; v < w->prims[p].vert_count; v++)
                for (int i = 0; i < 3; i++) {
                    mn[i] = fmin(mn[i], w->prims[p].verts[v].pos[i]);
                    mx[i] = fmax(mx[i], w->prims[p].verts[v].pos[i]);
                }
    }
    for (int i = 0; i < 3; i++)
        if (!(mn[i] <= mx[i]))
            mn[i] = mx[i] = 0;
}

typedef struct cvert {
    double v[3]; /* view space */
    double attr[BK_RATTRS];
} cvert;

static bk_rvert project(const bk_rcam *cam, const cvert *c)
{
    bk_rvert r;
    memcpy(r.attr, c->attr, sizeof r.attr);
    if (cam->ortho) {
        r.x = cam->width / 2 + (c->v[0] - cam->centre_r) * cam->scale;
        r.y = cam->height / 2 - (c->v[1] - cam->centre_u) * cam->scale;
        r.key = -c->v[2];
        r.q = 1;
    } else {
        double iz = 1.0 / c->v[2];
        r.x = cam->width / 2 + c->v[0] * cam->focal * iz;
        r.y = cam->height / 2 - c->v[1] * cam->focal * iz;
        r.key = iz;
        r.q = iz;
    }
    return r;
}

/* Keep the part of triangle `in` in front of the near plane; corners out. */
static int clip_near(const cvert in[3], cvert out[MAX_CLIPPED])
{
    int n = 0;
    for (int i = 0; i < 3; i++) {
        const cvert *a = &in[i], *b = &in[(i + 1) % 3];
        bool ain = a->v[2] >= BK_RENDER_NEAR, bin = b->v[2] >= BK_RENDER_NEAR;
        if (ain)
            out[n++] = *a;
        if (ain != bin) {
            double t = (BK_RENDER_NEAR - a->v[2]) / (b->v[2] - a->v[2]);
            cvert *c = &out[n++];
            for (int k = 0; k < 3; k++)
                c->v[k] = a->v[k] + (b->v[k] - a->v[k]) * t;
            c->v[2] = BK_RENDER_NEAR;
            for (int k = 0; k < BK_RATTRS; k++)
                c->attr[k] = a->attr[k] + (b->attr[k] - a->attr[k]) * t;
        }
    }
    return n;
}

/* One pass over the scene. The depth pass leaves out cut-out materials and
 * counts nothing; the shading pass draws opaque triangles where they won the
 * depth pass and cut-out ones against the depth so far. */
static void draw_pass(const scene *s, const bk_rcam *cam, const bspkit_render_options *o, bool depth_pass,
                      bk_rtarget *t, bspkit_render_stats *st)
{
    const bk_xmesh *m = &s->mesh;
    for (size_t ni = 0; ni < m->node_count; ni++) {
        const bk_xnode *node = &m->nodes[ni];
        if ((node->kind != BK_XNODE_WORLD && node->kind != BK_XNODE_BRUSH) || node->model < 0 ||
            (uint64_t)node->model >= m->model_count)
            continue;
        const bk_xmodel *xm = &m->models[node->model];
        for (size_t pi = 0; pi < xm->prim_count; pi++) {
            const bk_xprim *p = &xm->prims[pi];
            shade_ctx ctx = {&s->mats[p->material], NULL, !o->no_textures};
            bool cut_out = ctx.textures && ctx.mat->mask;
            if (depth_pass && cut_out)
                continue;
            bk_rpass pass = depth_pass ? BK_RPASS_DEPTH : cut_out ? BK_RPASS_NEAREST : BK_RPASS_EQUAL;
            for (size_t k = 0; k + 2 < p->index_count; k += 3) {
                cvert tri[3];
                bool bad = false;
                for (int j = 0; j < 3; j++) {
                    uint32_t vi = p->indices[k + (size_t)j];
                    if (vi >= p->vert_count) {
                        bad = true;
                        break;
                    }
                    const bk_xvertex *xv = &p->verts[vi];
                    double w[3];
                    place(node, xv->pos, w);
                    bk_rcam_view(cam, w, tri[j].v);
                    tri[j].attr[0] = xv->uv0[0];
                    tri[j].attr[1] = xv->uv0[1];
                    tri[j].attr[2] = xv->uv1[0];
                    tri[j].attr[3] = xv->uv1[1];
                }
                if (bad)
                    continue;
                if (!depth_pass)
                    st->triangles++;
                /* A face the atlas did not place is drawn at full brightness. */
                uint32_t face = p->verts[p->indices[k]].face;
                ctx.lightmap = s->have_atlas && face < s->atlas.rect_count && s->atlas.rects[face].placed
                                   ? &s->atlas.image
                                   : NULL;
                cvert poly[MAX_CLIPPED];
                int n = 3;
                if (cam->ortho)
                    memcpy(poly, tri, sizeof tri);
                else
                    n = clip_near(tri, poly);
                if (n < 3)
                    continue;
                bk_rvert rv[MAX_CLIPPED];
                for (int j = 0; j < n; j++)
                    rv[j] = project(cam, &poly[j]);
                bool drawn = false;
                for (int j = 1; j + 1 < n; j++) {
                    bk_rvert f[3] = {rv[0], rv[j], rv[j + 1]};
                    drawn = bk_raster_triangle(t, f, pass, shade, &ctx) || drawn;
                }
                if (drawn && !depth_pass)
                    st->triangles_drawn++;
            }
        }
    }
}

/* Depth first, so each sample of an opaque face is shaded once. */
static void draw_scene(const scene *s, const bk_rcam *cam, const bspkit_render_options *o, bk_rtarget *t,
                       bspkit_render_stats *st)
{
    draw_pass(s, cam, o, true, t, st);
    draw_pass(s, cam, o, false, t, st);
}

static bspkit_result check_options(const bspkit_render_options *o, bspkit_error *err)
{
    if (o->width > MAX_SIDE || o->height > MAX_SIDE || (o->width == 0) != (o->height == 0))
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "width and height must both be 1..%d (or both 0)",
                       MAX_SIDE);
    if (o->supersample > MAX_SUPERSAMPLE)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "supersample must be 1..%d", MAX_SUPERSAMPLE);
    if ((unsigned)o->view > BSPKIT_RENDER_CAMERA)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "unknown view %d", (int)o->view);
    if (o->wad_path_count > 0 && !o->wad_paths)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "wad_path_count without wad_paths");
    if (o->view == BSPKIT_RENDER_CAMERA) {
        const bspkit_render_camera *c = &o->camera;
        bool ok = isfinite(c->pitch) && isfinite(c->yaw) && isfinite(c->fov) && c->fov >= 0 && c->fov < 180;
        for (int i = 0; i < 3; i++)
            ok = ok && isfinite(c->origin[i]);
        if (!ok)
            return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1,
                           "camera needs a finite origin and angles and a fov in (0, 180)");
    }
    if (!isfinite(o->iso_yaw))
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "iso_yaw must be finite");
    if (o->have_bounds)
        for (int i = 0; i < 3; i++)
            if (!isfinite(o->bounds_min[i]) || !isfinite(o->bounds_max[i]) || o->bounds_min[i] > o->bounds_max[i])
                return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bounds must be finite with min <= max");
    return BSPKIT_OK;
}

/* Iso view direction: from the -X -Y side, looking down at 30 degrees. */
#define ISO_PITCH 30.0
#define ISO_YAW 45.0

bspkit_result bspkit_render(bspkit_map *map, const bspkit_render_options *opts, bspkit_image *out,
                            bspkit_render_stats *stats, bspkit_error *err)
{
    if (!map || !out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "map and out are required");
    memset(out, 0, sizeof *out);
    bspkit_render_options o = {0};
    if (opts)
        o = *opts;
    bspkit_result r = check_options(&o, err);
    if (r != BSPKIT_OK)
        return r;
    uint32_t w = o.width ? o.width : DEFAULT_WIDTH, h = o.height ? o.height : DEFAULT_HEIGHT;
    uint32_t ss = o.supersample ? o.supersample : DEFAULT_SUPERSAMPLE;
    if ((uint64_t)w * h * ss * ss > MAX_SAMPLES)
        return bk_fail(err, BSPKIT_ERR_LIMIT, -1, -1, -1, "%ux%u pixels at %ux%u samples exceed %llu samples", w, h,
                       ss, ss, (unsigned long long)MAX_SAMPLES);
    bspkit_render_stats st;
    memset(&st, 0, sizeof st);
    bspkit_render_camera eye = o.camera;
    if (o.view == BSPKIT_RENDER_SPAWN) {
        const bspkit_entities *ents;
        if ((r = bspkit_get_entities(map, &ents, err)) != BSPKIT_OK)
            return r;
        if (!bk_render_spawn(ents, bspkit_map_format(map)->family, &eye))
            return bk_fail(err, BSPKIT_ERR_NOT_FOUND, -1, -1, -1, "no player spawn entity (info_player_start, ...)");
    }
    scene s;
    if ((r = scene_build(map, &o, &s, err)) != BSPKIT_OK)
        return r;
    bk_rcam cam;
    double gw = (double)w * ss, gh = (double)h * ss;
    if (o.view == BSPKIT_RENDER_SPAWN || o.view == BSPKIT_RENDER_CAMERA) {
        bk_rcam_perspective(&cam, &eye, gw, gh);
        st.eye = eye;
        if (st.eye.fov == 0)
            st.eye.fov = 90;
    } else {
        double mn[3], mx[3];
        if (o.have_bounds) {
            memcpy(mn, o.bounds_min, sizeof mn);
            memcpy(mx, o.bounds_max, sizeof mx);
        } else {
            world_bounds(&s, mn, mx);
        }
        if (o.view == BSPKIT_RENDER_TOP) {
            /* Pitch 90 with yaw 90 puts +X right and +Y up the image. */
            bk_rcam_ortho(&cam, 90, 90, mn, mx, gw, gh);
            double px = cam.scale / ss;
            st.units_per_pixel = 1 / px;
            st.top_left[0] = cam.centre_r - w / 2.0 / px;
            st.top_left[1] = cam.centre_u + h / 2.0 / px;
        } else {
            bk_rcam_ortho(&cam, ISO_PITCH, o.iso_yaw != 0 ? o.iso_yaw : ISO_YAW, mn, mx, gw, gh);
        }
    }
    bk_rtarget t;
    if (!bk_rtarget_init(&t, w * ss, h * ss, BACKGROUND)) {
        scene_free(&s);
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory for %ux%u samples", w * ss, h * ss);
    }
    draw_scene(&s, &cam, &o, &t, &st);
    st.missing_textures = s.missing;
    scene_free(&s);
    if ((r = bspkit_image_alloc(out, w, h, err)) == BSPKIT_OK)
        bk_rtarget_resolve(&t, ss, out->rgba);
    bk_rtarget_free(&t);
    if (r == BSPKIT_OK && stats)
        *stats = st;
    return r;
}

bspkit_result bspkit_render_png(bspkit_map *map, const char *path, const bspkit_render_options *opts,
                                bspkit_render_stats *stats, bspkit_error *err)
{
    if (!path)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "path is required");
    bspkit_image img;
    bspkit_result r = bspkit_render(map, opts, &img, stats, err);
    if (r != BSPKIT_OK)
        return r;
    r = bspkit_image_write_png(&img, path, err);
    bspkit_image_free(&img);
    return r;
}
