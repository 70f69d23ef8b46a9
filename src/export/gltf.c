/* glTF 2.0 writer: JSON text written directly, one binary buffer with a
 * 4-byte aligned bufferView per accessor (and per PNG image in GLB), and the
 * GLB container around both.
 *
 * Map point (x, y, z) becomes (x, z, -y) * scale; that map is a rotation, so
 * normals keep their length and winding stays counter-clockwise. Rotations
 * are carried over the same way: quaternion (x, y, z, w) -> (x, z, -y, w). */
#include "export/writers.h"

#include "bspkit/props.h"
#include "core/bytes.h"
#include "core/fmt_num.h"
#include "core/map.h"
#include "core/save_file.h"
#include "core/textbuf.h"

#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    GL_UNSIGNED_SHORT = 5123,
    GL_UNSIGNED_INT = 5125,
    GL_FLOAT = 5126,
    GL_ARRAY_BUFFER = 34962,
    GL_ELEMENT_ARRAY_BUFFER = 34963,
    GL_LINEAR = 9729,
    GL_LINEAR_MIPMAP_LINEAR = 9987,
    GL_CLAMP_TO_EDGE = 33071,
    GL_REPEAT = 10497
};

/* The JSON is written straight to text: bufferViews and accessors into their
 * own buffers as the binary data is laid out (bk_gltf_geometry), the rest in
 * document order. */
typedef bk_gltf_geometry gctx;

/* ---- buffer ------------------------------------------------------------- */

static size_t align4(size_t n) { return (n + 3) & ~(size_t)3; }

/* Appends a literal's text at p; returns the end. */
#define PUT_LIT(p, literal) (memcpy((p), (literal), sizeof(literal) - 1), (p) + sizeof(literal) - 1)
/* A literal and an integer after it, e.g. PUT_INT(p, ",\"count\":", n); returns the end. */
#define PUT_INT(p, literal, v) put_int((p), (literal), sizeof(literal) - 1, (long long)(v))

static char *put_int(char *p, const char *text, size_t n, long long v)
{
    memcpy(p, text, n);
    return p + n + bk_fmt_int(p + n, v);
}

/* The JSON of one bufferView over `length` bytes at `offset` (target 0 =
 * none, as for images); returns its index. A map has thousands of views
 * and accessors: each is formatted in one go, as jw_* would write it. */
static size_t view_json(gctx *g, size_t offset, size_t length, int target)
{
    char buf[160], *p = buf;
    p = PUT_INT(p, "{\"buffer\":0,\"byteOffset\":", offset);
    p = PUT_INT(p, ",\"byteLength\":", length);
    if (target)
        p = PUT_INT(p, ",\"target\":", target);
    *p++ = '}';
    jw_raw_value(&g->views, buf, (size_t)(p - buf));
    return g->view_count++;
}

/* One bufferView over the next `length` bytes of the geometry buffer;
 * returns its index. */
static size_t add_view(gctx *g, size_t length, int target, uint8_t **data)
{
    size_t offset = g->bin_used;
    size_t view = view_json(g, offset, length, target);
    *data = g->bin + offset;
    g->bin_used = align4(offset + length);
    /* The caller fills the view; the alignment bytes after it are zero. */
    memset(g->bin + offset + length, 0, g->bin_used - offset - length);
    return view;
}

static size_t add_accessor(gctx *g, size_t view, int component, size_t count, const char *type, const double *min,
                           const double *max)
{
    /* type is one of glTF's names (VEC3, SCALAR...): no escaping needed. */
    char buf[512], *p = buf;
    p = PUT_INT(p, "{\"bufferView\":", view);
    p = PUT_INT(p, ",\"componentType\":", component);
    p = PUT_INT(p, ",\"count\":", count);
    p = PUT_LIT(p, ",\"type\":\"");
    size_t type_len = strlen(type);
    memcpy(p, type, type_len);
    p += type_len;
    *p++ = '"';
    if (min && max) {
        for (int bound = 0; bound < 2; bound++) {
            const double *v = bound ? max : min;
            p = bound ? PUT_LIT(p, ",\"max\":[") : PUT_LIT(p, ",\"min\":[");
            for (int k = 0; k < 3; k++) {
                if (k)
                    *p++ = ',';
                p += jw_format_real(p, v[k]);
            }
            *p++ = ']';
        }
    }
    *p++ = '}';
    jw_raw_value(&g->accessors, buf, (size_t)(p - buf));
    return g->accessor_count++;
}

static void put_f32(uint8_t *p, float v)
{
    wr_f32(p, v, false);
}

/* Writes one primitive's vertex attributes and indices and its JSON object
 * into g->meshes. Map axes (x, y, z) become glTF axes (x, z, -y). */
static bspkit_result write_prim(gctx *g, const bk_xprim *p, int64_t material, bspkit_error *err)
{
    size_t n = p->vert_count;
    uint8_t *pos, *nrm, *uv, *lm = NULL, *idx;
    size_t vp = add_view(g, n * 12, GL_ARRAY_BUFFER, &pos);
    size_t vn = add_view(g, n * 12, GL_ARRAY_BUFFER, &nrm);
    size_t vt = add_view(g, n * 8, GL_ARRAY_BUFFER, &uv);
    size_t vl = g->lightmap_uv ? add_view(g, n * 8, GL_ARRAY_BUFFER, &lm) : 0;
    bool wide = n >= 65536;
    size_t vi = add_view(g, p->index_count * (wide ? 4 : 2), GL_ELEMENT_ARRAY_BUFFER, &idx);
    float mn[3] = {INFINITY, INFINITY, INFINITY}, mx[3] = {-INFINITY, -INFINITY, -INFINITY};
    size_t done = 0;
#if defined(__SSE2__) && BK_HOST_LE
    /* The loop below, with the axes swapped in registers and the floats
     * stored as they are (the host's are the file's): x and z are scaled
     * together in double precision as there, min and max keep its operand
     * order, and a position that left float range is found at the end. */
    const __m128d scale = _mm_set1_pd(g->scale);
    const __m128 flip_y = _mm_setr_ps(0.0f, 0.0f, -0.0f, 0.0f);
    __m128 lo = _mm_set1_ps(INFINITY), hi = _mm_set1_ps(-INFINITY), bad = _mm_setzero_ps();
    for (; done < n; done++) {
        const bk_xvertex *v = &p->verts[done];
        __m128 xz = _mm_cvtpd_ps(_mm_mul_pd(_mm_setr_pd(v->pos[0], v->pos[2]), scale));
        __m128 y = _mm_cvtpd_ps(_mm_mul_sd(_mm_set_sd(-(double)v->pos[1]), scale));
        __m128 q = _mm_movelh_ps(xz, y); /* x, z, -y, 0 */
        __m128 span = _mm_sub_ps(q, q);  /* NaN where q is not finite */
        bad = _mm_or_ps(bad, _mm_cmpunord_ps(span, span));
        lo = _mm_min_ps(q, lo);
        hi = _mm_max_ps(q, hi);
        __m128 nq = _mm_xor_ps(_mm_setr_ps(v->normal[0], v->normal[2], v->normal[1], 0.0f), flip_y);
        uint8_t *at = pos + done * 12, *nat = nrm + done * 12;
        _mm_storel_pi((__m64 *)(void *)at, q);
        _mm_store_ss((float *)(void *)(at + 8), _mm_movehl_ps(q, q));
        _mm_storel_pi((__m64 *)(void *)nat, nq);
        _mm_store_ss((float *)(void *)(nat + 8), _mm_movehl_ps(nq, nq));
        memcpy(uv + done * 8, v->uv0, 8);
        if (lm)
            memcpy(lm + done * 8, v->uv1, 8);
    }
    if (_mm_movemask_ps(bad) != 0)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "scale %g takes a vertex beyond float range", g->scale);
    float l4[4], h4[4];
    _mm_storeu_ps(l4, lo);
    _mm_storeu_ps(h4, hi);
    memcpy(mn, l4, sizeof mn);
    memcpy(mx, h4, sizeof mx);
#endif
    for (size_t i = done; i < n; i++) {
        const bk_xvertex *v = &p->verts[i];
        float q[3] = {(float)(v->pos[0] * g->scale), (float)(v->pos[2] * g->scale), (float)(-v->pos[1] * g->scale)};
        for (int k = 0; k < 3; k++) {
            if (!isfinite(q[k]))
                return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "scale %g takes a vertex beyond float range",
                               g->scale);
            mn[k] = q[k] < mn[k] ? q[k] : mn[k];
            mx[k] = q[k] > mx[k] ? q[k] : mx[k];
            put_f32(pos + i * 12 + k * 4, q[k]);
        }
        put_f32(nrm + i * 12, v->normal[0]);
        put_f32(nrm + i * 12 + 4, v->normal[2]);
        put_f32(nrm + i * 12 + 8, -v->normal[1]);
        put_f32(uv + i * 8, v->uv0[0]);
        put_f32(uv + i * 8 + 4, v->uv0[1]);
        if (lm) {
            put_f32(lm + i * 8, v->uv1[0]);
            put_f32(lm + i * 8 + 4, v->uv1[1]);
        }
    }
    if (wide)
        for (size_t i = 0; i < p->index_count; i++)
            wr_u32(idx + i * 4, p->indices[i], false);
    else
        for (size_t i = 0; i < p->index_count; i++)
            wr_u16(idx + i * 2, (uint16_t)p->indices[i], false);
    double dmn[3] = {mn[0], mn[1], mn[2]}, dmx[3] = {mx[0], mx[1], mx[2]};
    size_t a_pos = add_accessor(g, vp, GL_FLOAT, n, "VEC3", dmn, dmx);
    size_t a_nrm = add_accessor(g, vn, GL_FLOAT, n, "VEC3", NULL, NULL);
    size_t a_uv = add_accessor(g, vt, GL_FLOAT, n, "VEC2", NULL, NULL);
    size_t a_lm = lm ? add_accessor(g, vl, GL_FLOAT, n, "VEC2", NULL, NULL) : 0;
    size_t a_idx = add_accessor(g, vi, wide ? GL_UNSIGNED_INT : GL_UNSIGNED_SHORT, p->index_count, "SCALAR", NULL,
                                NULL);
    char buf[320], *w = buf;
    w = PUT_INT(w, "{\"attributes\":{\"POSITION\":", a_pos);
    w = PUT_INT(w, ",\"NORMAL\":", a_nrm);
    w = PUT_INT(w, ",\"TEXCOORD_0\":", a_uv);
    if (lm) {
        w = PUT_INT(w, ",\"TEXCOORD_1\":", a_lm);
    }
    w = PUT_INT(w, "},\"indices\":", a_idx);
    w = PUT_INT(w, ",\"material\":", material);
    w = PUT_LIT(w, ",\"mode\":4}");
    jw_raw_value(&g->meshes, buf, (size_t)(w - buf));
    return BSPKIT_OK;
}

/* ---- nodes -------------------------------------------------------------- */

typedef struct kv_ref {
    const char *key;
    size_t index;
} kv_ref;

static int by_key_then_index(const void *a, const void *b)
{
    const kv_ref *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* Pairs up to which a repeated key is looked for by comparing every two keys. */
#define FEW_PAIRS 64

/* Whether two of kv[0..n) (n <= FEW_PAIRS) have the same key. */
static bool repeats_a_key(const bspkit_keyvalue *kv, size_t n)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (kv[i].key[0] == kv[j].key[0] && strcmp(kv[i].key, kv[j].key) == 0)
                return true;
    return false;
}

/* Entity key/values in file order. A key met again turns its value into an
 * array of every value, in order. Where a key repeats, pairs are grouped by
 * sorting, so an entity with very many pairs costs n log n. */
static bool entity_extras(bk_tbuf *t, const bspkit_entities *ents, size_t e)
{
    const bspkit_entity *ent = &ents->entities[e];
    const bspkit_keyvalue *kv = &ents->pairs[ent->first_pair];
    size_t n = ent->num_pairs;
    /* Most entities name each key once: their pairs go out as they are. */
    if (n <= FEW_PAIRS && !repeats_a_key(kv, n)) {
        jw_obj(t);
        for (size_t i = 0; i < n; i++) {
            jw_key(t, kv[i].key);
            jw_str(t, kv[i].value);
        }
        jw_end_obj(t);
        return true;
    }
    kv_ref *refs = malloc((n ? n : 1) * sizeof *refs);
    size_t *group = malloc((n ? n : 1) * sizeof *group); /* pair -> position in refs of its key's first pair */
    if (!refs || !group) {
        free(refs);
        free(group);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        refs[i] = (kv_ref){kv[i].key, i};
    qsort(refs, n, sizeof *refs, by_key_then_index);
    for (size_t i = 0; i < n; i++)
        group[refs[i].index] = i > 0 && strcmp(refs[i].key, refs[i - 1].key) == 0 ? group[refs[i - 1].index] : i;
    jw_obj(t);
    for (size_t i = 0; i < n; i++) {
        size_t first = group[i];
        if (refs[first].index != i)
            continue; /* written with the key's first pair */
        jw_key(t, kv[i].key);
        size_t end = first + 1;
        while (end < n && group[refs[end].index] == first)
            end++;
        if (end - first == 1) {
            jw_str(t, kv[i].value);
            continue;
        }
        jw_arr(t);
        for (size_t k = first; k < end; k++)
            jw_str(t, kv[refs[k].index].value);
        jw_end_arr(t);
    }
    jw_end_obj(t);
    free(refs);
    free(group);
    return true;
}

static void key_real(bk_tbuf *t, const char *key, double v)
{
    jw_key(t, key);
    jw_real(t, v);
}

static void key_int(bk_tbuf *t, const char *key, int64_t v)
{
    jw_key(t, key);
    jw_int(t, v);
}

static void prop_extras(bk_tbuf *t, const bspkit_static_props *sp, size_t i)
{
    const bspkit_static_prop *p = &sp->props[i];
    jw_obj(t);
    JW_KEY(t, "model");
    jw_str(t, p->prop_type < sp->dictionary_count ? sp->dictionary[p->prop_type].name : "");
    key_int(t, "prop_index", (int64_t)i);
    key_int(t, "skin", p->skin);
    key_int(t, "solid", p->solid);
    key_int(t, "flags", p->flags);
    key_real(t, "fade_min_dist", p->fade_min_dist);
    key_real(t, "fade_max_dist", p->fade_max_dist);
    key_real(t, "forced_fade_scale", p->forced_fade_scale);
    double lo[3] = {p->lighting_origin.x, p->lighting_origin.y, p->lighting_origin.z};
    JW_KEY(t, "lighting_origin");
    jw_reals(t, lo, 3);
    if (p->targetname) {
        JW_KEY(t, "targetname");
        jw_str(t, p->targetname);
    }
    jw_end_obj(t);
}

static bool write_node(gctx *g, bk_tbuf *t, const bk_xnode *n, const bspkit_entities *ents,
                       const bspkit_static_props *sp, int64_t mesh)
{
    bool ok = true;
    jw_obj(t);
    JW_KEY(t, "name");
    jw_str(t, n->name);
    if (mesh >= 0)
        key_int(t, "mesh", mesh);
    double tr[3] = {n->translation[0] * g->scale, n->translation[2] * g->scale, -n->translation[1] * g->scale};
    if (tr[0] != 0 || tr[1] != 0 || tr[2] != 0) {
        JW_KEY(t, "translation");
        jw_reals(t, tr, 3);
    }
    double q[4] = {n->rotation[0], n->rotation[2], -n->rotation[1], n->rotation[3]};
    double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (len > 0 && isfinite(len) && (q[0] != 0 || q[1] != 0 || q[2] != 0)) {
        for (int k = 0; k < 4; k++)
            q[k] /= len;
        JW_KEY(t, "rotation");
        jw_reals(t, q, 4);
    }
    double s[3] = {n->scale[0], n->scale[2], n->scale[1]};
    if (s[0] != 1 || s[1] != 1 || s[2] != 1) {
        JW_KEY(t, "scale");
        jw_reals(t, s, 3);
    }
    if (n->kind == BK_XNODE_PROP && sp && n->prop >= 0 && (size_t)n->prop < sp->prop_count) {
        JW_KEY(t, "extras");
        prop_extras(t, sp, (size_t)n->prop);
    } else if (ents && n->entity >= 0 && (size_t)n->entity < ents->count) {
        JW_KEY(t, "extras");
        ok = entity_extras(t, ents, (size_t)n->entity);
    } else if (n->model >= 0) {
        JW_KEY(t, "extras");
        jw_obj(t);
        key_int(t, "model_index", n->model);
        jw_end_obj(t);
    }
    jw_end_obj(t);
    return ok;
}

/* ---- materials and images ----------------------------------------------- */

static size_t geometry_bytes(const bk_xmesh *m, bool lightmap_uv)
{
    size_t total = 0;
    for (size_t i = 0; i < m->model_count; i++) {
        for (size_t p = 0; p < m->models[i].prim_count; p++) {
            const bk_xprim *pr = &m->models[i].prims[p];
            total += align4(pr->vert_count * 12) * 2 + align4(pr->vert_count * 8) * (lightmap_uv ? 2 : 1) +
                     align4(pr->index_count * (pr->vert_count >= 65536 ? 4 : 2));
        }
    }
    return total;
}

/* "tool", "sky" or "nodraw" for a material whose every exported face is of
 * that kind (only kept with bspkit_export_options.keep), else NULL. */
static const char *material_kind(const bk_xmaterial *mat)
{
    if (mat->plain)
        return NULL;
    return (mat->kinds & BSPKIT_SKIP_TOOL) ? "tool" : (mat->kinds & BSPKIT_SKIP_SKY) ? "sky"
           : (mat->kinds & BSPKIT_SKIP_NODRAW) ? "nodraw" : NULL;
}

/* Texture index of image i is i: one texture per image. Textures use
 * sampler 0 (repeat), the lightmap sampler 1 (clamped to the edge). */
static void material_json(bk_tbuf *t, const bk_xmaterial *mat, const bk_xmedia *media, size_t index)
{
    int32_t image = media ? media->material_image[index] : -1;
    jw_obj(t);
    JW_KEY(t, "name");
    jw_str(t, mat->name);
    JW_KEY(t, "pbrMetallicRoughness");
    jw_obj(t);
    double colour[4] = {1, 1, 1, 1};
    if (media && image < 0)
        for (int k = 0; k < 3; k++)
            colour[k] = media->material_colour[index][k];
    JW_KEY(t, "baseColorFactor");
    jw_reals(t, colour, 4);
    if (image >= 0) {
        JW_KEY(t, "baseColorTexture");
        jw_obj(t);
        key_int(t, "index", image);
        key_int(t, "texCoord", 0);
        jw_end_obj(t);
    }
    key_real(t, "metallicFactor", 0);
    key_real(t, "roughnessFactor", 1);
    jw_end_obj(t);
    if (image >= 0 && media->material_mask[index]) {
        JW_KEY(t, "alphaMode");
        jw_str(t, "MASK");
        key_real(t, "alphaCutoff", 0.5);
    }
    bool lightmap = media && media->lightmap_image >= 0 && mat->lit;
    const char *kind = material_kind(mat);
    if (lightmap || kind) {
        JW_KEY(t, "extras");
        jw_obj(t);
        if (lightmap) {
            JW_KEY(t, "lightmap");
            jw_obj(t);
            key_int(t, "index", media->lightmap_image);
            key_int(t, "texCoord", 1);
            jw_end_obj(t);
        }
        if (kind) {
            JW_KEY(t, "class");
            jw_str(t, kind);
        }
        jw_end_obj(t);
    }
    jw_end_obj(t);
}

/* images, samplers and textures; PNG bytes go in the buffer after
 * *buffer_end (which moves past them) when `image_dir_uri` is NULL, else
 * each image names its file. */
static void write_images(gctx *g, bk_tbuf *t, const bk_xmedia *media, const char *image_dir_uri, size_t *buffer_end)
{
    JW_KEY(t, "images");
    jw_arr(t);
    for (size_t i = 0; i < media->image_count; i++) {
        const bk_ximage *im = &media->images[i];
        jw_obj(t);
        JW_KEY(t, "name");
        jw_str(t, im->name);
        if (image_dir_uri) {
            /* File names are [A-Za-z0-9._-] only: nothing to encode. */
            JW_KEY(t, "uri");
            size_t n = strlen(image_dir_uri) + strlen(im->file) + 2;
            char *uri = malloc(n);
            if (!uri) {
                t->failed = true;
                return;
            }
            snprintf(uri, n, "%s/%s", image_dir_uri, im->file);
            jw_str(t, uri);
            free(uri);
        } else {
            /* The PNG follows the geometry in the buffer (bk_gltf_doc.images). */
            size_t view = view_json(g, *buffer_end, im->png_size, 0);
            *buffer_end += align4(im->png_size);
            key_int(t, "bufferView", (int64_t)view);
            JW_KEY(t, "mimeType");
            jw_str(t, "image/png");
        }
        jw_end_obj(t);
    }
    jw_end_arr(t);
    JW_KEY(t, "samplers");
    jw_arr(t);
    const int filters[2][2] = {{GL_LINEAR, GL_LINEAR_MIPMAP_LINEAR}, {GL_LINEAR, GL_LINEAR}};
    const int wraps[2] = {GL_REPEAT, GL_CLAMP_TO_EDGE};
    /* The clamped sampler only when the atlas is there to use it. */
    for (int k = 0; k < (media->lightmap_image >= 0 ? 2 : 1); k++) {
        jw_obj(t);
        key_int(t, "magFilter", filters[k][0]);
        key_int(t, "minFilter", filters[k][1]);
        key_int(t, "wrapS", wraps[k]);
        key_int(t, "wrapT", wraps[k]);
        jw_end_obj(t);
    }
    jw_end_arr(t);
    JW_KEY(t, "textures");
    jw_arr(t);
    for (size_t i = 0; i < media->image_count; i++) {
        jw_obj(t);
        JW_KEY(t, "name");
        jw_str(t, media->images[i].name);
        key_int(t, "sampler", (int64_t)i == media->lightmap_image ? 1 : 0);
        key_int(t, "source", (int64_t)i);
        jw_end_obj(t);
    }
    jw_end_arr(t);
}

/* ---- document ----------------------------------------------------------- */

bspkit_result bk_gltf_geometry_build(const bk_xmesh *m, bool lightmap_uv, double scale, bk_gltf_geometry *out,
                                     bspkit_error *err)
{
    gctx *g = out;
    memset(g, 0, sizeof *g);
    g->scale = scale;
    g->lightmap_uv = lightmap_uv;
    g->bin_size = geometry_bytes(m, lightmap_uv);
    if (g->bin_size > (uint64_t)UINT32_MAX - (1u << 20))
        return bk_fail(err, BSPKIT_ERR_LIMIT, -1, -1, -1, "glTF buffer of %zu bytes is too large for GLB",
                       g->bin_size);
    /* Every byte is written: each view by its writer, the padding by add_view. */
    g->bin = malloc(g->bin_size ? g->bin_size : 1);
    g->gl_material = malloc((m->material_count + 1) * sizeof *g->gl_material);
    g->model_mesh = malloc((m->model_count + 1) * sizeof *g->model_mesh);
    if (!g->bin || !g->gl_material || !g->model_mesh) {
        bk_gltf_geometry_free(g);
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory building the glTF geometry");
    }
    /* Materials actually used, in first-use order. */
    for (size_t i = 0; i < m->material_count; i++)
        g->gl_material[i] = -1;
    for (size_t i = 0; i < m->model_count; i++)
        for (size_t p = 0; p < m->models[i].prim_count; p++) {
            uint32_t mt = m->models[i].prims[p].material;
            if (g->gl_material[mt] < 0)
                g->gl_material[mt] = g->material_count++;
        }
    /* Room for the JSON parts at once, a little over what a primitive writes
     * (about 420, 330 and 160 bytes), so that they seldom grow and copy. */
    size_t prims = 0;
    for (size_t i = 0; i < m->model_count; i++)
        prims += m->models[i].prim_count;
    (void)tb_room(&g->accessors, prims * 512 + 256);
    (void)tb_room(&g->views, prims * 384 + 256);
    (void)tb_room(&g->meshes, prims * 192 + m->model_count * 64 + 256);
    bspkit_result r = BSPKIT_OK;
    for (size_t i = 0; i < m->model_count && r == BSPKIT_OK; i++) {
        const bk_xmodel *xm = &m->models[i];
        g->model_mesh[i] = -1;
        if (xm->prim_count == 0)
            continue;
        jw_obj(&g->meshes);
        char name[32];
        snprintf(name, sizeof name, "model*%zu", i);
        JW_KEY(&g->meshes, "name");
        jw_str(&g->meshes, name);
        JW_KEY(&g->meshes, "primitives");
        jw_arr(&g->meshes);
        for (size_t p = 0; p < xm->prim_count && r == BSPKIT_OK; p++)
            r = write_prim(g, &xm->prims[p], g->gl_material[xm->prims[p].material], err);
        jw_end_arr(&g->meshes);
        jw_end_obj(&g->meshes);
        g->model_mesh[i] = (int64_t)g->mesh_count++;
    }
    if (r == BSPKIT_OK && (g->views.failed || g->accessors.failed || g->meshes.failed))
        r = bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory building the glTF geometry");
    if (r != BSPKIT_OK)
        bk_gltf_geometry_free(g);
    return r;
}

void bk_gltf_geometry_free(bk_gltf_geometry *g)
{
    if (!g)
        return;
    tb_free(&g->views);
    tb_free(&g->accessors);
    tb_free(&g->meshes);
    free(g->bin);
    free(g->gl_material);
    free(g->model_mesh);
    memset(g, 0, sizeof *g);
}

/* The document's texts: the glue between the large parts, and the parts. */
enum { TEXT_GLUE, TEXT_NODES, TEXT_MATERIALS, TEXT_MESHES, TEXT_VIEWS, TEXT_ACCESSORS };
_Static_assert(TEXT_ACCESSORS + 1 == BK_GLTF_TEXTS, "bk_gltf_doc holds one buffer per text");

/* The document's JSON as it is written: spans of the glue text, which may
 * still move as it grows, between whole texts. */
typedef struct json_plan {
    struct {
        int text;
        size_t start, len;
    } span[BK_GLTF_JSON_PARTS];
    size_t count, glue_cut; /* glue_cut: where the glue's next span starts */
} json_plan;

static void plan_add(json_plan *plan, int text, size_t start, size_t len)
{
    plan->span[plan->count].text = text;
    plan->span[plan->count].start = start;
    plan->span[plan->count].len = len;
    plan->count++;
}

/* The glue written since the last part, then the whole of text `which`. */
static void splice(bk_gltf_doc *doc, json_plan *plan, int which)
{
    size_t glue_size = doc->texts[TEXT_GLUE].size;
    plan_add(plan, TEXT_GLUE, plan->glue_cut, glue_size - plan->glue_cut);
    plan_add(plan, which, 0, doc->texts[which].size);
    plan->glue_cut = glue_size;
}

/* The rest of the glue, and the spans made the document's parts. */
static void finish_json(bk_gltf_doc *doc, json_plan *plan)
{
    plan_add(plan, TEXT_GLUE, plan->glue_cut, doc->texts[TEXT_GLUE].size - plan->glue_cut);
    doc->json_parts = plan->count;
    doc->json_size = 0;
    for (size_t k = 0; k < plan->count; k++) {
        const bk_tbuf *t = &doc->texts[plan->span[k].text];
        doc->json[k] = (bk_save_part){t->data ? t->data + plan->span[k].start : NULL, plan->span[k].len};
        doc->json_size += plan->span[k].len;
    }
}

static bspkit_result build_doc(gctx *g, bspkit_map *map, const bk_xmesh *m, const bk_xmedia *media,
                               const char *bin_uri, const char *image_dir_uri, bk_gltf_doc *doc, size_t *buffer_end,
                               bspkit_export_stats *stats, bspkit_error *err)
{
    bspkit_result r = BSPKIT_OK;
    const bspkit_entities *ents = NULL;
    if ((r = bk_export_entities(map, &ents, err)) != BSPKIT_OK)
        return r;
    const bspkit_static_props *sp = NULL;
    if (m->props > 0 && (r = bspkit_get_static_props(map, &sp, err)) != BSPKIT_OK)
        return r;

    /* Materials in the order the geometry numbered them. */
    bk_tbuf *root = &doc->texts[TEXT_GLUE], *nodes = &doc->texts[TEXT_NODES];
    bk_tbuf *materials = &doc->texts[TEXT_MATERIALS];
    int64_t next = 0;
    for (size_t i = 0; i < m->model_count; i++)
        for (size_t p = 0; p < m->models[i].prim_count; p++) {
            uint32_t mt = m->models[i].prims[p].material;
            if (g->gl_material[mt] == next) {
                next++;
                material_json(materials, &m->materials[mt], media, mt);
            }
        }

    /* Node 0 is the root; every exported node is its child. */
    jw_obj(nodes);
    JW_KEY(nodes, "name");
    jw_str(nodes, "map");
    if (m->node_count > 0) {
        JW_KEY(nodes, "children");
        jw_arr(nodes);
        for (size_t i = 0; i < m->node_count; i++)
            jw_int(nodes, (int64_t)i + 1);
        jw_end_arr(nodes);
    }
    jw_end_obj(nodes);
    bool ok = true;
    for (size_t i = 0; i < m->node_count && ok; i++) {
        const bk_xnode *n = &m->nodes[i];
        int64_t mesh = n->model >= 0 && (size_t)n->model < m->model_count ? g->model_mesh[n->model] : -1;
        ok = write_node(g, nodes, n, ents, sp, mesh);
        if (n->kind != BK_XNODE_POINT)
            stats->nodes++;
    }
    if (!ok)
        nodes->failed = true;

    /* The geometry's texts become the document's. */
    doc->texts[TEXT_MESHES] = g->meshes;
    memset(&g->meshes, 0, sizeof g->meshes);
    json_plan plan = {.count = 0};
    jw_obj(root);
    JW_KEY(root, "asset");
    jw_obj(root);
    JW_KEY(root, "version");
    jw_str(root, "2.0");
    JW_KEY(root, "generator");
    jw_str(root, "bspkit " BSPKIT_VERSION_STRING);
    jw_end_obj(root);
    JW_KEY(root, "scene");
    jw_int(root, 0);
    tb_puts(root, ",\"scenes\":[{\"nodes\":[0]}],\"nodes\":[");
    splice(doc, &plan, TEXT_NODES);
    tb_puts(root, "]");
    /* glTF forbids empty top-level arrays. */
    if (g->mesh_count > 0) {
        tb_puts(root, ",\"meshes\":[");
        splice(doc, &plan, TEXT_MESHES);
        tb_puts(root, "]");
    }
    if (g->material_count > 0) {
        tb_puts(root, ",\"materials\":[");
        splice(doc, &plan, TEXT_MATERIALS);
        tb_puts(root, "]");
    }
    *buffer_end = g->bin_used;
    if (media && media->image_count > 0)
        write_images(g, root, media, image_dir_uri, buffer_end);
    /* The images added their views: the views are complete now. */
    doc->texts[TEXT_VIEWS] = g->views;
    doc->texts[TEXT_ACCESSORS] = g->accessors;
    memset(&g->views, 0, sizeof g->views);
    memset(&g->accessors, 0, sizeof g->accessors);
    if (*buffer_end > 0) {
        JW_KEY(root, "buffers");
        jw_arr(root);
        jw_obj(root);
        key_int(root, "byteLength", (int64_t)*buffer_end);
        if (bin_uri) {
            JW_KEY(root, "uri");
            jw_str(root, bin_uri);
        }
        jw_end_obj(root);
        jw_end_arr(root);
        tb_puts(root, ",\"bufferViews\":[");
        splice(doc, &plan, TEXT_VIEWS);
        tb_puts(root, "]");
        if (g->accessor_count > 0) {
            tb_puts(root, ",\"accessors\":[");
            splice(doc, &plan, TEXT_ACCESSORS);
            tb_puts(root, "]");
        }
    }
    jw_end_obj(root);
    finish_json(doc, &plan);
    stats->materials = (size_t)g->material_count;
    stats->props = m->props;
    if (media) {
        stats->images = media->texture_images;
        stats->missing_textures = media->missing_textures;
    }
    return r;
}

bspkit_result bk_gltf_build(bspkit_map *map, const bk_xmesh *mesh, bk_gltf_geometry *geometry,
                            const bk_xmedia *media, const char *bin_uri, const char *image_dir_uri, bk_gltf_doc *out,
                            bspkit_export_stats *stats, bspkit_error *err)
{
    memset(out, 0, sizeof *out);
    size_t buffer_end = 0;
    bspkit_result r = build_doc(geometry, map, mesh, media, bin_uri, image_dir_uri, out, &buffer_end, stats, err);
    for (int k = 0; k < BK_GLTF_TEXTS && r == BSPKIT_OK; k++)
        if (out->texts[k].failed)
            r = bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory building the glTF document");
    if (r == BSPKIT_OK && buffer_end > (uint64_t)UINT32_MAX - (1u << 20))
        r = bk_fail(err, BSPKIT_ERR_LIMIT, -1, -1, -1, "glTF buffer of %zu bytes is too large for GLB", buffer_end);
    if (r != BSPKIT_OK) {
        bk_gltf_doc_free(out);
        bk_gltf_geometry_free(geometry);
        return r;
    }
    out->bin = geometry->bin;
    out->bin_size = geometry->bin_used;
    geometry->bin = NULL;
    if (!image_dir_uri && media) {
        out->images = media->images;
        out->image_count = media->image_count;
    }
    out->buffer_size = buffer_end;
    bk_gltf_geometry_free(geometry);
    return BSPKIT_OK;
}

void bk_gltf_doc_free(bk_gltf_doc *doc)
{
    if (!doc)
        return;
    for (int k = 0; k < BK_GLTF_TEXTS; k++)
        tb_free(&doc->texts[k]);
    free(doc->bin);
    memset(doc, 0, sizeof *doc);
}

/* The GLB's 20-byte header (with the JSON chunk's) and the BIN chunk's 8;
 * false when it would pass 4 GiB. */
static bool glb_heads(const bk_gltf_doc *doc, uint8_t head[20], uint8_t bin_head[8], uint64_t *total)
{
    size_t json_len = align4(doc->json_size), bin_len = align4(doc->buffer_size);
    *total = 12 + 8 + (uint64_t)json_len + (doc->buffer_size ? 8 + (uint64_t)bin_len : 0);
    if (*total > UINT32_MAX)
        return false;
    wr_le32(head, 0x46546C67u); /* "glTF" */
    wr_le32(head + 4, 2);
    wr_le32(head + 8, (uint32_t)*total);
    wr_le32(head + 12, (uint32_t)json_len);
    wr_le32(head + 16, 0x4E4F534Au); /* "JSON" */
    wr_le32(bin_head, (uint32_t)bin_len);
    wr_le32(bin_head + 4, 0x004E4942u); /* "BIN\0" */
    return true;
}

/* The GLB file as parts, in order (malloc'ed array); NULL when out of memory. */
static bk_save_part *glb_parts(const bk_gltf_doc *doc, const uint8_t head[20], const uint8_t bin_head[8],
                               size_t *count)
{
    static const char spaces[4] = "   ";
    static const uint8_t zeros[4] = {0};
    bk_save_part *parts = malloc((4 + doc->json_parts + 2 * doc->image_count) * sizeof *parts);
    if (!parts)
        return NULL;
    size_t n = 0;
    parts[n++] = (bk_save_part){head, 20};
    for (size_t k = 0; k < doc->json_parts; k++)
        parts[n++] = doc->json[k];
    parts[n++] = (bk_save_part){spaces, align4(doc->json_size) - doc->json_size};
    if (doc->buffer_size) {
        parts[n++] = (bk_save_part){bin_head, 8};
        parts[n++] = (bk_save_part){doc->bin, doc->bin_size};
        for (size_t i = 0; i < doc->image_count; i++) {
            const bk_ximage *im = &doc->images[i];
            parts[n++] = (bk_save_part){im->png, im->png_size};
            parts[n++] = (bk_save_part){zeros, align4(im->png_size) - im->png_size};
        }
    }
    *count = n;
    return parts;
}

bspkit_result bk_glb_save(const bk_gltf_doc *doc, const char *path, size_t *size, bspkit_error *err)
{
    uint8_t head[20], bin_head[8];
    uint64_t total;
    if (!glb_heads(doc, head, bin_head, &total))
        return bk_fail(err, BSPKIT_ERR_LIMIT, -1, -1, -1, "GLB of %llu bytes exceeds 4 GiB",
                       (unsigned long long)total);
    size_t n = 0;
    bk_save_part *parts = glb_parts(doc, head, bin_head, &n);
    if (!parts)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory writing GLB");
    *size = (size_t)total;
    bspkit_result r = bk_save_parts(path, parts, n, BK_SAVE_DERIVED, err);
    free(parts);
    return r;
}

bspkit_result bk_glb_pack(const bk_gltf_doc *doc, uint8_t **out, size_t *size, bspkit_error *err)
{
    uint8_t head[20], bin_head[8];
    uint64_t total;
    if (!glb_heads(doc, head, bin_head, &total))
        return bk_fail(err, BSPKIT_ERR_LIMIT, -1, -1, -1, "GLB of %llu bytes exceeds 4 GiB",
                       (unsigned long long)total);
    size_t n = 0;
    bk_save_part *parts = glb_parts(doc, head, bin_head, &n);
    uint8_t *p = parts ? malloc((size_t)total) : NULL;
    if (!p) {
        free(parts);
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory packing GLB");
    }
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        if (parts[i].size)
            memcpy(p + at, parts[i].data, parts[i].size);
        at += parts[i].size;
    }
    free(parts);
    *out = p;
    *size = at;
    return BSPKIT_OK;
}
