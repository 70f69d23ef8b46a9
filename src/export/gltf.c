/* glTF 2.0 writer: JSON built with jansson, one binary buffer with a 4-byte
 * aligned bufferView per accessor, and the GLB container around both.
 *
 * Map point (x, y, z) becomes (x, z, -y) * scale; that map is a rotation, so
 * normals keep their length and winding stays counter-clockwise. Rotations
 * are carried over the same way: quaternion (x, y, z, w) -> (x, z, -y, w). */
#include "export/writers.h"

#include "bspkit/props.h"
#include "core/bytes.h"
#include "core/map.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
    GL_UNSIGNED_SHORT = 5123,
    GL_UNSIGNED_INT = 5125,
    GL_FLOAT = 5126,
    GL_ARRAY_BUFFER = 34962,
    GL_ELEMENT_ARRAY_BUFFER = 34963
};

typedef struct gctx {
    bool ok;             /* false after any jansson allocation failure */
    json_t *views, *accessors;
    uint8_t *bin;
    size_t bin_size, bin_used;
    double scale;
} gctx;

static void put(gctx *g, json_t *obj, const char *key, json_t *value)
{
    if (!obj || !value || json_object_set_new(obj, key, value) != 0) {
        if (!obj)
            json_decref(value);
        g->ok = false;
    }
}

static void app(gctx *g, json_t *arr, json_t *value)
{
    if (!arr || !value || json_array_append_new(arr, value) != 0) {
        if (!arr)
            json_decref(value);
        g->ok = false;
    }
}

/* A JSON string of any bytes: names read from maps need not be UTF-8, and
 * jansson refuses such text, so bytes outside ASCII then become '?'. */
static json_t *jstr(const char *text)
{
    json_t *v = json_string(text);
    if (v)
        return v;
    size_t n = strlen(text);
    char *copy = malloc(n + 1);
    if (!copy)
        return NULL;
    for (size_t i = 0; i <= n; i++)
        copy[i] = (unsigned char)text[i] < 0x80 ? text[i] : '?';
    v = json_string(copy);
    free(copy);
    return v;
}

static json_t *jvec(gctx *g, const double *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        app(g, a, json_real(v[i]));
    return a;
}

/* ---- buffer ------------------------------------------------------------- */

static size_t align4(size_t n) { return (n + 3) & ~(size_t)3; }

/* One bufferView over the next `length` bytes of the buffer; returns its index. */
static size_t add_view(gctx *g, size_t length, int target, uint8_t **data)
{
    size_t offset = g->bin_used;
    json_t *v = json_object();
    put(g, v, "buffer", json_integer(0));
    put(g, v, "byteOffset", json_integer((json_int_t)offset));
    put(g, v, "byteLength", json_integer((json_int_t)length));
    put(g, v, "target", json_integer(target));
    app(g, g->views, v);
    *data = g->bin + offset;
    g->bin_used = align4(offset + length);
    return json_array_size(g->views) - 1;
}

static size_t add_accessor(gctx *g, size_t view, int component, size_t count, const char *type, json_t *min,
                           json_t *max)
{
    json_t *a = json_object();
    put(g, a, "bufferView", json_integer((json_int_t)view));
    put(g, a, "componentType", json_integer(component));
    put(g, a, "count", json_integer((json_int_t)count));
    put(g, a, "type", json_string(type));
    if (min)
        put(g, a, "min", min);
    if (max)
        put(g, a, "max", max);
    app(g, g->accessors, a);
    return json_array_size(g->accessors) - 1;
}

/* Map axes (x, y, z) to glTF axes (x, z, -y). */
static void to_gltf(const float in[3], double s, float out[3])
{
    out[0] = (float)(in[0] * s);
    out[1] = (float)(in[2] * s);
    out[2] = (float)(-in[1] * s);
}

/* Writes one primitive's vertex attributes and indices; returns the
 * primitive object. */
static json_t *write_prim(gctx *g, const bk_xprim *p, int64_t material, bspkit_error *err, bspkit_result *r)
{
    size_t n = p->vert_count;
    uint8_t *pos, *nrm, *uv, *idx;
    size_t vp = add_view(g, n * 12, GL_ARRAY_BUFFER, &pos);
    size_t vn = add_view(g, n * 12, GL_ARRAY_BUFFER, &nrm);
    size_t vt = add_view(g, n * 8, GL_ARRAY_BUFFER, &uv);
    bool wide = n >= 65536;
    size_t vi = add_view(g, p->index_count * (wide ? 4 : 2), GL_ELEMENT_ARRAY_BUFFER, &idx);
    double mn[3] = {INFINITY, INFINITY, INFINITY}, mx[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < n; i++) {
        const bk_xvertex *v = &p->verts[i];
        float q[3], nn[3];
        to_gltf(v->pos, g->scale, q);
        to_gltf(v->normal, 1.0, nn);
        for (int k = 0; k < 3; k++) {
            if (!isfinite(q[k])) {
                *r = bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "scale %g takes a vertex beyond float range",
                             g->scale);
                return NULL;
            }
            mn[k] = q[k] < mn[k] ? q[k] : mn[k];
            mx[k] = q[k] > mx[k] ? q[k] : mx[k];
            wr_f32(pos + i * 12 + k * 4, q[k], false);
            wr_f32(nrm + i * 12 + k * 4, nn[k], false);
        }
        wr_f32(uv + i * 8, v->uv0[0], false);
        wr_f32(uv + i * 8 + 4, v->uv0[1], false);
    }
    for (size_t i = 0; i < p->index_count; i++) {
        if (wide)
            wr_u32(idx + i * 4, p->indices[i], false);
        else
            wr_u16(idx + i * 2, (uint16_t)p->indices[i], false);
    }
    json_t *attrs = json_object();
    put(g, attrs, "POSITION",
        json_integer((json_int_t)add_accessor(g, vp, GL_FLOAT, n, "VEC3", jvec(g, mn, 3), jvec(g, mx, 3))));
    put(g, attrs, "NORMAL", json_integer((json_int_t)add_accessor(g, vn, GL_FLOAT, n, "VEC3", NULL, NULL)));
    put(g, attrs, "TEXCOORD_0", json_integer((json_int_t)add_accessor(g, vt, GL_FLOAT, n, "VEC2", NULL, NULL)));
    json_t *prim = json_object();
    put(g, prim, "attributes", attrs);
    put(g, prim, "indices",
        json_integer((json_int_t)add_accessor(g, vi, wide ? GL_UNSIGNED_INT : GL_UNSIGNED_SHORT, p->index_count,
                                              "SCALAR", NULL, NULL)));
    put(g, prim, "material", json_integer(material));
    put(g, prim, "mode", json_integer(4));
    return prim;
}

/* ---- nodes -------------------------------------------------------------- */

/* Entity key/values in file order. A key met again turns its value into an
 * array of every value, in order. */
static json_t *entity_extras(gctx *g, const bspkit_entities *ents, size_t e)
{
    json_t *o = json_object();
    const bspkit_entity *ent = &ents->entities[e];
    for (size_t i = 0; i < ent->num_pairs; i++) {
        const bspkit_keyvalue *kv = &ents->pairs[ent->first_pair + i];
        json_t *key = jstr(kv->key);
        const char *k = key ? json_string_value(key) : NULL;
        json_t *value = jstr(kv->value);
        json_t *old = k && o ? json_object_get(o, k) : NULL;
        if (!k) {
            json_decref(value);
            g->ok = false;
        } else if (!old) {
            put(g, o, k, value);
        } else if (json_is_array(old)) {
            app(g, old, value);
        } else {
            json_t *arr = json_array();
            app(g, arr, json_incref(old));
            app(g, arr, value);
            put(g, o, k, arr);
        }
        json_decref(key);
    }
    return o;
}

static json_t *prop_extras(gctx *g, const bspkit_static_props *sp, size_t i)
{
    const bspkit_static_prop *p = &sp->props[i];
    json_t *o = json_object();
    put(g, o, "model", jstr(p->prop_type < sp->dictionary_count ? sp->dictionary[p->prop_type].name : ""));
    put(g, o, "prop_index", json_integer((json_int_t)i));
    put(g, o, "skin", json_integer(p->skin));
    put(g, o, "solid", json_integer(p->solid));
    put(g, o, "flags", json_integer(p->flags));
    put(g, o, "fade_min_dist", json_real(isfinite(p->fade_min_dist) ? p->fade_min_dist : 0));
    put(g, o, "fade_max_dist", json_real(isfinite(p->fade_max_dist) ? p->fade_max_dist : 0));
    put(g, o, "forced_fade_scale", json_real(isfinite(p->forced_fade_scale) ? p->forced_fade_scale : 0));
    double lo[3] = {p->lighting_origin.x, p->lighting_origin.y, p->lighting_origin.z};
    for (int k = 0; k < 3; k++)
        lo[k] = isfinite(lo[k]) ? lo[k] : 0;
    put(g, o, "lighting_origin", jvec(g, lo, 3));
    if (p->targetname)
        put(g, o, "targetname", jstr(p->targetname));
    return o;
}

static json_t *write_node(gctx *g, const bk_xnode *n, const bspkit_entities *ents, const bspkit_static_props *sp,
                          int64_t mesh)
{
    json_t *o = json_object();
    put(g, o, "name", jstr(n->name));
    if (mesh >= 0)
        put(g, o, "mesh", json_integer(mesh));
    double t[3] = {n->translation[0] * g->scale, n->translation[2] * g->scale, -n->translation[1] * g->scale};
    if (t[0] != 0 || t[1] != 0 || t[2] != 0)
        put(g, o, "translation", jvec(g, t, 3));
    double q[4] = {n->rotation[0], n->rotation[2], -n->rotation[1], n->rotation[3]};
    double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (len > 0 && isfinite(len) && (q[0] != 0 || q[1] != 0 || q[2] != 0)) {
        for (int k = 0; k < 4; k++)
            q[k] /= len;
        put(g, o, "rotation", jvec(g, q, 4));
    }
    double s[3] = {n->scale[0], n->scale[2], n->scale[1]};
    if (s[0] != 1 || s[1] != 1 || s[2] != 1)
        put(g, o, "scale", jvec(g, s, 3));
    json_t *extras = NULL;
    if (n->kind == BK_XNODE_PROP && sp && n->prop >= 0 && (size_t)n->prop < sp->prop_count)
        extras = prop_extras(g, sp, (size_t)n->prop);
    else if (ents && n->entity >= 0 && (size_t)n->entity < ents->count)
        extras = entity_extras(g, ents, (size_t)n->entity);
    else if (n->model >= 0) {
        extras = json_object();
        put(g, extras, "model_index", json_integer(n->model));
    }
    if (extras)
        put(g, o, "extras", extras);
    return o;
}

/* ---- document ----------------------------------------------------------- */

static size_t bin_bytes(const bk_xmesh *m)
{
    size_t total = 0;
    for (size_t i = 0; i < m->model_count; i++) {
        for (size_t p = 0; p < m->models[i].prim_count; p++) {
            const bk_xprim *pr = &m->models[i].prims[p];
            total += align4(pr->vert_count * 12) * 2 + align4(pr->vert_count * 8) +
                     align4(pr->index_count * (pr->vert_count >= 65536 ? 4 : 2));
        }
    }
    return total;
}

static json_t *material_json(gctx *g, const bk_xmaterial *mat)
{
    json_t *o = json_object();
    put(g, o, "name", jstr(mat->name));
    json_t *pbr = json_object();
    double white[4] = {1, 1, 1, 1};
    put(g, pbr, "baseColorFactor", jvec(g, white, 4));
    put(g, pbr, "metallicFactor", json_real(0));
    put(g, pbr, "roughnessFactor", json_real(1));
    /* Texture images, when exported, go in pbr.baseColorTexture. */
    put(g, o, "pbrMetallicRoughness", pbr);
    return o;
}

static bspkit_result build_doc(gctx *g, bspkit_map *map, const bk_xmesh *m, const char *bin_uri, json_t *root,
                               bspkit_export_stats *stats, bspkit_error *err)
{
    bspkit_result r = BSPKIT_OK;
    const bspkit_entities *ents = NULL;
    if ((r = bk_export_entities(map, &ents, err)) != BSPKIT_OK)
        return r;
    const bspkit_static_props *sp = NULL;
    if (m->props > 0 && (r = bspkit_get_static_props(map, &sp, err)) != BSPKIT_OK)
        return r;

    json_t *asset = json_object();
    put(g, asset, "version", json_string("2.0"));
    put(g, asset, "generator", json_string("bspkit " BSPKIT_VERSION_STRING));
    put(g, root, "asset", asset);

    /* Materials actually used, in first-use order. */
    int64_t *gl_material = calloc(m->material_count + 1, sizeof *gl_material);
    if (!gl_material)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    for (size_t i = 0; i < m->material_count; i++)
        gl_material[i] = -1;
    json_t *materials = json_array(), *meshes = json_array(), *nodes = json_array();
    int64_t used = 0;
    for (size_t i = 0; i < m->model_count; i++)
        for (size_t p = 0; p < m->models[i].prim_count; p++) {
            uint32_t mt = m->models[i].prims[p].material;
            if (gl_material[mt] < 0) {
                gl_material[mt] = used++;
                app(g, materials, material_json(g, &m->materials[mt]));
            }
        }

    int64_t *model_mesh = calloc(m->model_count + 1, sizeof *model_mesh);
    if (!model_mesh) {
        free(gl_material);
        json_decref(materials);
        json_decref(meshes);
        json_decref(nodes);
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    }
    for (size_t i = 0; i < m->model_count && r == BSPKIT_OK; i++) {
        const bk_xmodel *xm = &m->models[i];
        model_mesh[i] = -1;
        if (xm->prim_count == 0)
            continue;
        json_t *prims = json_array();
        for (size_t p = 0; p < xm->prim_count && r == BSPKIT_OK; p++)
            app(g, prims, write_prim(g, &xm->prims[p], gl_material[xm->prims[p].material], err, &r));
        json_t *mesh = json_object();
        char name[32];
        snprintf(name, sizeof name, "model*%zu", i);
        put(g, mesh, "name", json_string(name));
        put(g, mesh, "primitives", prims);
        model_mesh[i] = (int64_t)json_array_size(meshes);
        app(g, meshes, mesh);
    }

    /* Node 0 is the root; every exported node is its child. */
    json_t *root_node = json_object(), *children = json_array();
    put(g, root_node, "name", json_string("map"));
    app(g, nodes, root_node);
    for (size_t i = 0; i < m->node_count && r == BSPKIT_OK; i++) {
        const bk_xnode *n = &m->nodes[i];
        int64_t mesh = n->model >= 0 && (size_t)n->model < m->model_count ? model_mesh[n->model] : -1;
        app(g, children, json_integer((json_int_t)json_array_size(nodes)));
        app(g, nodes, write_node(g, n, ents, sp, mesh));
        if (n->kind != BK_XNODE_POINT)
            stats->nodes++;
    }
    if (json_array_size(children) > 0)
        put(g, root_node, "children", children);
    else
        json_decref(children);
    free(model_mesh);
    free(gl_material);

    json_t *scene = json_object(), *scene_nodes = json_array(), *scenes = json_array();
    app(g, scene_nodes, json_integer(0));
    put(g, scene, "nodes", scene_nodes);
    app(g, scenes, scene);
    put(g, root, "scene", json_integer(0));
    put(g, root, "scenes", scenes);
    put(g, root, "nodes", nodes);
    /* glTF forbids empty top-level arrays. */
    if (json_array_size(meshes) > 0)
        put(g, root, "meshes", meshes);
    else
        json_decref(meshes);
    if (json_array_size(materials) > 0)
        put(g, root, "materials", materials);
    else
        json_decref(materials);
    if (g->bin_used > 0) {
        json_t *buffer = json_object(), *buffers = json_array();
        put(g, buffer, "byteLength", json_integer((json_int_t)g->bin_used));
        if (bin_uri)
            put(g, buffer, "uri", jstr(bin_uri));
        app(g, buffers, buffer);
        put(g, root, "buffers", buffers);
        put(g, root, "bufferViews", json_incref(g->views));
        put(g, root, "accessors", json_incref(g->accessors));
    }
    stats->materials = (size_t)used;
    stats->props = m->props;
    return r;
}

bspkit_result bk_gltf_build(bspkit_map *map, const bk_xmesh *mesh, double scale, const char *bin_uri,
                            bk_gltf_doc *out, bspkit_export_stats *stats, bspkit_error *err)
{
    memset(out, 0, sizeof *out);
    gctx g = {.ok = true, .scale = scale};
    g.bin_size = bin_bytes(mesh);
    if (g.bin_size > (uint64_t)UINT32_MAX - (1u << 20))
        return bk_fail(err, BSPKIT_ERR_LIMIT, -1, -1, -1, "glTF buffer of %zu bytes is too large for GLB",
                       g.bin_size);
    g.bin = calloc(g.bin_size ? g.bin_size : 1, 1);
    g.views = json_array();
    g.accessors = json_array();
    json_t *root = json_object();
    bspkit_result r = BSPKIT_ERR_NOMEM;
    if (g.bin && g.views && g.accessors && root)
        r = build_doc(&g, map, mesh, bin_uri, root, stats, err);
    if (r == BSPKIT_OK && g.ok) {
        out->json = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
        if (!out->json)
            g.ok = false;
        else
            out->json_size = strlen(out->json);
    }
    json_decref(root);
    json_decref(g.views);
    json_decref(g.accessors);
    if (r == BSPKIT_OK && !g.ok)
        r = BSPKIT_ERR_NOMEM;
    if (r == BSPKIT_ERR_NOMEM)
        bk_fail(err, r, -1, -1, -1, "out of memory building the glTF document");
    if (r != BSPKIT_OK) {
        free(g.bin);
        free(out->json);
        memset(out, 0, sizeof *out);
        return r;
    }
    out->bin = g.bin;
    out->bin_size = g.bin_used;
    return BSPKIT_OK;
}

void bk_gltf_doc_free(bk_gltf_doc *doc)
{
    if (!doc)
        return;
    free(doc->json);
    free(doc->bin);
    memset(doc, 0, sizeof *doc);
}

bspkit_result bk_glb_pack(const bk_gltf_doc *doc, uint8_t **out, size_t *size, bspkit_error *err)
{
    size_t json_len = align4(doc->json_size), bin_len = align4(doc->bin_size);
    uint64_t total = 12 + 8 + (uint64_t)json_len + (doc->bin_size ? 8 + (uint64_t)bin_len : 0);
    if (total > UINT32_MAX)
        return bk_fail(err, BSPKIT_ERR_LIMIT, -1, -1, -1, "GLB of %llu bytes exceeds 4 GiB",
                       (unsigned long long)total);
    uint8_t *p = malloc((size_t)total);
    if (!p)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory packing GLB");
    wr_le32(p, 0x46546C67u); /* "glTF" */
    wr_le32(p + 4, 2);
    wr_le32(p + 8, (uint32_t)total);
    wr_le32(p + 12, (uint32_t)json_len);
    wr_le32(p + 16, 0x4E4F534Au); /* "JSON" */
    memcpy(p + 20, doc->json, doc->json_size);
    memset(p + 20 + doc->json_size, ' ', json_len - doc->json_size);
    if (doc->bin_size) {
        uint8_t *b = p + 20 + json_len;
        wr_le32(b, (uint32_t)bin_len);
        wr_le32(b + 4, 0x004E4942u); /* "BIN\0" */
        memcpy(b + 8, doc->bin, doc->bin_size);
        memset(b + 8 + doc->bin_size, 0, bin_len - doc->bin_size);
    }
    *out = p;
    *size = (size_t)total;
    return BSPKIT_OK;
}
