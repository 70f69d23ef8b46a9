/* _bspkit: the CPython extension behind the bspkit package. It uses the
 * library's public API only (include/bspkit/bspkit.h). Record arrays are
 * handed to Python as read-only buffers over the library's decoded arrays;
 * the package builds NumPy dtypes from the field descriptors below. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "bspkit/bspkit.h"
#include "bspkit/textures.h"
#include "bspkit/edit.h"
#include "bspkit/query.h"
#include "bspkit/pak.h"
#include "bspkit/export.h"
#include "bspkit/decompile.h"
#include "bspkit/scan.h"
#include "bspkit/props.h"
#include "bspkit/render.h"
#include "bspkit/view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static PyObject *BspkitError; /* bspkit.Error */

/* ---- errors -------------------------------------------------------------- */

static PyObject *int_or_none(int64_t v)
{
    if (v < 0)
        Py_RETURN_NONE;
    return PyLong_FromLongLong((long long)v);
}

/* Raises bspkit.Error from `err` (or from `code` alone when err holds no message); returns NULL. */
/* Subclasses of bspkit.Error by failure class, each also under the builtin
 * exception a Python caller would reach for. */
static const struct {
    const char *name;
    const char *doc;
    int builtin; /* 0 none, 1 ValueError, 2 OSError, 3 MemoryError, 4 LookupError */
} ERROR_CLASSES[] = {
    {"bspkit.ArgumentError", "An invalid argument (also a ValueError).", 1},
    {"bspkit.FileError", "A file could not be opened, read, mapped or written (also an OSError).", 2},
    {"bspkit.OutOfMemoryError", "The allocator failed (also a MemoryError).", 3},
    {"bspkit.LimitError", "A limit given to open would be exceeded.", 0},
    {"bspkit.FormatError", "The input is damaged or not a map: empty, cut short, unknown, bad lumps.", 0},
    {"bspkit.UnsupportedError", "A recognised format or variant bspkit does not read or write.", 0},
    {"bspkit.NotFoundError", "The requested lump or item does not exist (also a LookupError).", 4},
};
enum { EC_ARGUMENT, EC_FILE, EC_NOMEM, EC_LIMIT, EC_FORMAT, EC_UNSUPPORTED, EC_NOT_FOUND, EC_COUNT };
static PyObject *ErrorClasses[EC_COUNT];

static PyObject *error_class(bspkit_result code)
{
    int c;
    switch (code) {
    case BSPKIT_ERR_ARGUMENT: c = EC_ARGUMENT; break;
    case BSPKIT_ERR_IO: c = EC_FILE; break;
    case BSPKIT_ERR_NOMEM: c = EC_NOMEM; break;
    case BSPKIT_ERR_LIMIT: case BSPKIT_ERR_ENGINE_LIMIT: c = EC_LIMIT; break;
    case BSPKIT_ERR_UNSUPPORTED: c = EC_UNSUPPORTED; break;
    case BSPKIT_ERR_NOT_FOUND: c = EC_NOT_FOUND; break;
    case BSPKIT_OK: return BspkitError;
    default: c = EC_FORMAT; break;
    }
    return ErrorClasses[c] ? ErrorClasses[c] : BspkitError;
}

static PyObject *raise_error(bspkit_result code, const bspkit_error *err)
{
    const char *msg = err->message[0] ? err->message : bspkit_strerror(code);
    PyObject *cls = error_class(code);
    PyObject *exc = PyObject_CallFunction(cls, "s", msg);
    if (exc == NULL)
        return NULL;
    PyObject *c = PyLong_FromLong((long)code);
    PyObject *lump = int_or_none(err->lump);
    PyObject *off = int_or_none(err->offset);
    PyObject *loff = int_or_none(err->lump_offset);
    if (c && lump && off && loff && PyObject_SetAttrString(exc, "code", c) == 0 &&
        PyObject_SetAttrString(exc, "lump", lump) == 0 && PyObject_SetAttrString(exc, "offset", off) == 0 &&
        PyObject_SetAttrString(exc, "lump_offset", loff) == 0)
        PyErr_SetObject(cls, exc);
    Py_XDECREF(c);
    Py_XDECREF(lump);
    Py_XDECREF(off);
    Py_XDECREF(loff);
    Py_DECREF(exc);
    return NULL;
}

static void clear_error(bspkit_error *err)
{
    memset(err, 0, sizeof *err);
    err->lump = -1;
    err->offset = -1;
    err->lump_offset = -1;
}

/* ---- Map ----------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    bspkit_map *map;
    int closed;     /* close() was called */
    Py_ssize_t views; /* RecordBuffer objects alive over this map */
} MapObject;

static PyTypeObject MapType;

static void map_release(MapObject *self)
{
    if (self->map != NULL && self->views == 0) {
        bspkit_close(self->map);
        self->map = NULL;
    }
}

static bspkit_map *map_get(MapObject *self)
{
    if (self->closed || self->map == NULL) {
        PyErr_SetString(PyExc_ValueError, "I/O operation on a closed map");
        return NULL;
    }
    return self->map;
}

static void Map_dealloc(MapObject *self)
{
    self->views = 0;
    map_release(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *map_new_from(bspkit_map *m)
{
    MapObject *self = PyObject_New(MapObject, &MapType);
    if (self == NULL) {
        bspkit_close(m);
        return NULL;
    }
    self->map = m;
    self->closed = 0;
    self->views = 0;
    return (PyObject *)self;
}

/* The limits tuple (max_file_size, max_lump_size, max_memory) into options; 0 = the default. */
static void set_limits(bspkit_options *opts, unsigned long long file, unsigned long long lump,
                       unsigned long long memory)
{
    opts->max_file_size = file;
    opts->max_lump_size = lump;
    opts->max_memory = memory;
}

static PyObject *mod_open_file(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *path;
    unsigned long long file, lump, memory;
    if (!PyArg_ParseTuple(args, "O(KKK)", &path, &file, &lump, &memory))
        return NULL;
    PyObject *encoded = NULL;
    if (!PyUnicode_FSConverter(path, &encoded))
        return NULL;
    bspkit_options opts;
    memset(&opts, 0, sizeof opts);
    set_limits(&opts, file, lump, memory);
    bspkit_map *m = NULL;
    bspkit_error err;
    clear_error(&err);
    bspkit_result r = bspkit_open_file(PyBytes_AS_STRING(encoded), &opts, &m, &err);
    Py_DECREF(encoded);
    if (r != BSPKIT_OK)
        return raise_error(r, &err);
    return map_new_from(m);
}

static PyObject *mod_open_memory(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *data;
    unsigned long long file, lump, memory;
    if (!PyArg_ParseTuple(args, "O(KKK)", &data, &file, &lump, &memory))
        return NULL;
    Py_buffer buf;
    if (PyObject_GetBuffer(data, &buf, PyBUF_SIMPLE) != 0)
        return NULL;
    bspkit_options opts;
    memset(&opts, 0, sizeof opts);
    set_limits(&opts, file, lump, memory);
    opts.flags = BSPKIT_OPEN_COPY;
    bspkit_map *m = NULL;
    bspkit_error err;
    clear_error(&err);
    bspkit_result r = bspkit_open_memory(buf.buf, (size_t)buf.len, &opts, &m, &err);
    PyBuffer_Release(&buf);
    if (r != BSPKIT_OK)
        return raise_error(r, &err);
    return map_new_from(m);
}

static PyObject *Map_close(MapObject *self, PyObject *unused)
{
    (void)unused;
    self->closed = 1;
    map_release(self);
    Py_RETURN_NONE;
}

static PyObject *Map_get_closed(MapObject *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(self->closed);
}

/* (family, name, version, big_endian, variant bits, revision, lump_count) */
static PyObject *Map_format(MapObject *self, PyObject *unused)
{
    (void)unused;
    bspkit_map *m = map_get(self);
    if (m == NULL)
        return NULL;
    const bspkit_format *f = bspkit_map_format(m);
    return Py_BuildValue("(ssiOIii)", bspkit_family_name(f->family), f->name, (int)f->version,
                         f->big_endian ? Py_True : Py_False, f->variant, (int)f->revision, f->lump_count);
}

static PyObject *Map_size(MapObject *self, PyObject *unused)
{
    (void)unused;
    bspkit_map *m = map_get(self);
    if (m == NULL)
        return NULL;
    size_t size = 0;
    bspkit_map_bytes(m, &size);
    return PyLong_FromSize_t(size);
}

static int set_item(PyObject *d, const char *key, PyObject *v)
{
    if (v == NULL)
        return -1;
    int rc = PyDict_SetItemString(d, key, v);
    Py_DECREF(v);
    return rc;
}

static PyObject *str_or_none(const char *s)
{
    if (s == NULL)
        Py_RETURN_NONE;
    return PyUnicode_DecodeFSDefault(s);
}

/* Every lump as `bspkit info --json` lists it. */
static PyObject *Map_lumps(MapObject *self, PyObject *unused)
{
    (void)unused;
    bspkit_map *m = map_get(self);
    if (m == NULL)
        return NULL;
    int n = bspkit_lump_count(m);
    PyObject *list = PyList_New(0);
    for (int i = 0; list != NULL && i < n; i++) {
        bspkit_lump_info li;
        bspkit_error err;
        clear_error(&err);
        bspkit_result r = bspkit_get_lump_info(m, i, &li);
        if (r != BSPKIT_OK) {
            Py_DECREF(list);
            return raise_error(r, &err);
        }
        uint64_t records = 0;
        bool has_records = bspkit_lump_record_count(m, i, &records) == BSPKIT_OK;
        PyObject *d = PyDict_New();
        int bad = d == NULL || set_item(d, "index", PyLong_FromLong(li.index)) ||
                  set_item(d, "name", str_or_none(li.name)) ||
                  set_item(d, "offset", PyLong_FromUnsignedLong(li.offset)) ||
                  set_item(d, "length", PyLong_FromUnsignedLong(li.length)) ||
                  set_item(d, "version", PyLong_FromLong(li.version)) ||
                  set_item(d, "uncompressed_length",
                           PyLong_FromUnsignedLong(li.compressed ? li.uncompressed_length : li.length)) ||
                  set_item(d, "compressed", PyBool_FromLong(li.compressed)) ||
                  set_item(d, "records", has_records ? PyLong_FromUnsignedLongLong(records) : int_or_none(-1)) ||
                  set_item(d, "external", str_or_none(bspkit_lump_external_path(m, i))) ||
                  PyList_Append(list, d);
        Py_XDECREF(d);
        if (bad) {
            Py_DECREF(list);
            return NULL;
        }
    }
    return list;
}

/* Record count per lower-case lump key (the first lump with a key wins), then
 * "textures", computed as `bspkit info` computes them. */
static PyObject *Map_counts(MapObject *self, PyObject *unused)
{
    (void)unused;
    bspkit_map *m = map_get(self);
    if (m == NULL)
        return NULL;
    PyObject *d = PyDict_New();
    if (d == NULL)
        return NULL;
    bspkit_record_count rc[BSPKIT_MAX_LUMPS];
    size_t n = bspkit_map_record_counts(m, rc, BSPKIT_MAX_LUMPS);
    for (size_t k = 0; k < n; k++) {
        if (set_item(d, rc[k].key, PyLong_FromUnsignedLongLong(rc[k].count)) != 0) {
            Py_DECREF(d);
            return NULL;
        }
    }
    size_t count = 0;
    bspkit_error err;
    PyObject *textures = bspkit_map_texture_count(m, &count, NULL, &err) == BSPKIT_OK ? PyLong_FromSize_t(count)
                                                                               : int_or_none(-1);
    if (set_item(d, "textures", textures) != 0) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

static PyObject *Map_crc(MapObject *self, PyObject *unused)
{
    (void)unused;
    bspkit_map *m = map_get(self);
    if (m == NULL)
        return NULL;
    if (bspkit_map_format(m)->family != BSPKIT_FAMILY_SOURCE)
        Py_RETURN_NONE;
    uint32_t crc = 0;
    bspkit_error err;
    clear_error(&err);
    bspkit_result r = bspkit_map_crc(m, &crc, &err);
    if (r != BSPKIT_OK)
        return raise_error(r, &err);
    char hex[9];
    snprintf(hex, sizeof hex, "%08lx", (unsigned long)crc);
    return PyUnicode_FromString(hex);
}

/* The game the map's bytes name (bspkit_map_game), else None. */
static PyObject *Map_game(MapObject *self, PyObject *unused)
{
    (void)unused;
    bspkit_map *m = map_get(self);
    if (m == NULL)
        return NULL;
    const char *game = bspkit_map_game(m);
    if (game == NULL)
        Py_RETURN_NONE;
    return PyUnicode_FromString(game);
}

/* (x, y, z, hull, model) -> the contents at the point (bspkit_point_contents_model). */
static PyObject *Map_point_contents(MapObject *self, PyObject *args)
{
    double x, y, z;
    int hull = 0, model = 0;
    if (!PyArg_ParseTuple(args, "ddd|ii", &x, &y, &z, &hull, &model))
        return NULL;
    bspkit_map *m = map_get(self);
    if (m == NULL)
        return NULL;
    int32_t contents = 0;
    bspkit_error err;
    clear_error(&err);
    bspkit_result r =
        bspkit_point_contents_model(m, model, (bspkit_vec3){(float)x, (float)y, (float)z}, hull, &contents, &err);
    if (r != BSPKIT_OK)
        return raise_error(r, &err);
    return PyLong_FromLong((long)contents);
}

static PyObject *decode_text(const char *s, Py_ssize_t len)
{
    return PyUnicode_DecodeUTF8(s, len, "surrogateescape");
}

/* [(line, offset, [(key, value), ...]), ...] */
static PyObject *Map_entities(MapObject *self, PyObject *unused)
{
    (void)unused;
    bspkit_map *m = map_get(self);
    if (m == NULL)
        return NULL;
    const bspkit_entities *ents = NULL;
    bspkit_error err;
    clear_error(&err);
    bspkit_result r = bspkit_get_entities(m, &ents, &err);
    if (r != BSPKIT_OK)
        return raise_error(r, &err);
    PyObject *list = PyList_New((Py_ssize_t)ents->count);
    for (size_t i = 0; list != NULL && i < ents->count; i++) {
        const bspkit_entity *e = &ents->entities[i];
        PyObject *pairs = PyList_New((Py_ssize_t)e->num_pairs);
        for (size_t k = 0; pairs != NULL && k < e->num_pairs; k++) {
            const bspkit_keyvalue *kv = &ents->pairs[e->first_pair + k];
            PyObject *key = decode_text(kv->key, (Py_ssize_t)kv->key_length);
            PyObject *value = decode_text(kv->value, (Py_ssize_t)kv->value_length);
            PyObject *t = key && value ? PyTuple_Pack(2, key, value) : NULL;
            Py_XDECREF(key);
            Py_XDECREF(value);
            if (t == NULL)
                Py_CLEAR(pairs);
            else
                PyList_SET_ITEM(pairs, (Py_ssize_t)k, t);
        }
        PyObject *item = pairs ? Py_BuildValue("(kKN)", (unsigned long)e->line, (unsigned long long)e->offset, pairs)
                               : NULL;
        if (item == NULL)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    return list;
}

/* [(severity, code, lump, lump_name, record, offset, message), ...] */
static PyObject *Map_validate(MapObject *self, PyObject *args)
{
    int lint = 0;
    if (!PyArg_ParseTuple(args, "|p", &lint))
        return NULL;
    bspkit_map *m = map_get(self);
    if (m == NULL)
        return NULL;
    bspkit_report report;
    memset(&report, 0, sizeof report);
    bspkit_error err;
    clear_error(&err);
    bspkit_result r = bspkit_validate_ex(m, lint ? BSPKIT_VALIDATE_COMPILER_LINT : 0, &report, &err);
    if (r != BSPKIT_OK)
        return raise_error(r, &err);
    PyObject *list = PyList_New((Py_ssize_t)report.count);
    for (size_t i = 0; list != NULL && i < report.count; i++) {
        const bspkit_problem *p = &report.problems[i];
        bspkit_lump_info li;
        const char *name = NULL;
        if (p->lump >= 0 && bspkit_get_lump_info(m, p->lump, &li) == BSPKIT_OK)
            name = li.name;
        PyObject *item = Py_BuildValue("(siNNNNs)", p->severity == BSPKIT_SEVERITY_ERROR ? "error" : "warning",
                                       (int)p->code, int_or_none(p->lump), str_or_none(name),
                                       int_or_none(p->record), int_or_none(p->offset),
                                       p->message[0] ? p->message : bspkit_strerror(p->code));
        if (item == NULL)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    PyObject *result = list ? Py_BuildValue("(Nnn)", list, (Py_ssize_t)report.errors, (Py_ssize_t)report.warnings)
                            : NULL;
    bspkit_report_free(&report);
    return result;
}

/* ---- record arrays --------------------------------------------------------- */

/* One field of a record struct: NumPy type string, offset and element shape. */
typedef struct field_desc {
    const char *name;
    size_t offset;
    const char *type; /* "f4", "i4", "u4", "u1", "i1", "?", "S<n>", or "rgbexp" */
    int dims[2];      /* 0 = unused */
} field_desc;

#define CTYPE(x)                                                                                           \
    _Generic((x), float: "f4", int32_t: "i4", uint32_t: "u4", uint16_t: "u2", int16_t: "i2", uint8_t: "u1",  \
             int8_t: "i1", bool: "?", int64_t: "i8", uint64_t: "u8", bspkit_rgbexp: "rgbexp")
#define F(T, f) {#f, offsetof(T, f), CTYPE(((T *)0)->f), {0, 0}}
#define FA(T, f) {#f, offsetof(T, f), CTYPE(((T *)0)->f[0]), {(int)(sizeof((T *)0)->f / sizeof((T *)0)->f[0]), 0}}
#define FA2(T, f)                                                                                          \
    {#f, offsetof(T, f), CTYPE(((T *)0)->f[0][0]),                                                         \
     {(int)(sizeof((T *)0)->f / sizeof((T *)0)->f[0]), (int)(sizeof((T *)0)->f[0] / sizeof((T *)0)->f[0][0])}}
#define FV(T, f) {#f, offsetof(T, f), CTYPE(((T *)0)->f.x), {3, 0}}
#define FS(T, f) {#f, offsetof(T, f), "S", {(int)sizeof((T *)0)->f, 0}}
#define END {NULL, 0, NULL, {0, 0}}

_Static_assert(sizeof(bspkit_vec3) == 3 * sizeof(float), "bspkit_vec3 is three packed floats");

static const field_desc VEC3_FIELDS[] = {F(bspkit_vec3, x), F(bspkit_vec3, y), F(bspkit_vec3, z), END};
static const field_desc RGBEXP_FIELDS[] = {F(bspkit_rgbexp, r), F(bspkit_rgbexp, g), F(bspkit_rgbexp, b),
                                           F(bspkit_rgbexp, exponent), END};
static const field_desc PLANE_FIELDS[] = {FV(bspkit_plane, normal), F(bspkit_plane, dist), F(bspkit_plane, type),
                                          END};
static const field_desc EDGE_FIELDS[] = {FA(bspkit_edge, v), END};
static const field_desc FACE_FIELDS[] = {
    F(bspkit_face, plane), F(bspkit_face, side), F(bspkit_face, on_node), F(bspkit_face, first_edge),
    F(bspkit_face, num_edges), F(bspkit_face, texinfo), F(bspkit_face, dispinfo), F(bspkit_face, fog_volume),
    FA(bspkit_face, styles), F(bspkit_face, light_offset), F(bspkit_face, area), FA(bspkit_face, lightmap_mins),
    FA(bspkit_face, lightmap_size), F(bspkit_face, orig_face), F(bspkit_face, num_prims),
    F(bspkit_face, first_prim), F(bspkit_face, smoothing_groups), END};
static const field_desc NODE_FIELDS[] = {F(bspkit_node, plane), FA(bspkit_node, children), FV(bspkit_node, mins),
                                         FV(bspkit_node, maxs), F(bspkit_node, first_face),
                                         F(bspkit_node, num_faces), F(bspkit_node, area), END};
static const field_desc LEAF_FIELDS[] = {
    F(bspkit_leaf, contents), F(bspkit_leaf, cluster), F(bspkit_leaf, vis_offset), F(bspkit_leaf, area),
    F(bspkit_leaf, flags), FV(bspkit_leaf, mins), FV(bspkit_leaf, maxs), F(bspkit_leaf, first_leaf_face),
    F(bspkit_leaf, num_leaf_faces), F(bspkit_leaf, first_leaf_brush), F(bspkit_leaf, num_leaf_brushes),
    F(bspkit_leaf, leaf_water), FA(bspkit_leaf, ambient_sound), F(bspkit_leaf, has_ambient_cube),
    FA(bspkit_leaf, ambient_cube), END};
static const field_desc MODEL_FIELDS[] = {
    FV(bspkit_model, mins), FV(bspkit_model, maxs), FV(bspkit_model, origin), FA(bspkit_model, headnode),
    F(bspkit_model, vis_leafs), F(bspkit_model, first_face), F(bspkit_model, num_faces),
    F(bspkit_model, first_brush), F(bspkit_model, num_brushes), END};
static const field_desc TEXINFO_FIELDS[] = {
    FA2(bspkit_texinfo, texture_vecs), FA2(bspkit_texinfo, lightmap_vecs), F(bspkit_texinfo, flags),
    F(bspkit_texinfo, texture), F(bspkit_texinfo, value), F(bspkit_texinfo, next_texinfo),
    FS(bspkit_texinfo, texture_name), END};
static const field_desc CLIPNODE_FIELDS[] = {F(bspkit_clipnode, plane), FA(bspkit_clipnode, children), END};
static const field_desc BRUSH_FIELDS[] = {F(bspkit_brush, first_side), F(bspkit_brush, num_sides),
                                          F(bspkit_brush, contents), F(bspkit_brush, shader), END};
static const field_desc BRUSHSIDE_FIELDS[] = {F(bspkit_brushside, plane), F(bspkit_brushside, texinfo),
                                              F(bspkit_brushside, dispinfo), F(bspkit_brushside, bevel),
                                              F(bspkit_brushside, thin), F(bspkit_brushside, shader), END};
static const field_desc TEXDATA_FIELDS[] = {
    FV(bspkit_texdata, reflectivity), F(bspkit_texdata, name_id), F(bspkit_texdata, width),
    F(bspkit_texdata, height), F(bspkit_texdata, view_width), F(bspkit_texdata, view_height),
    F(bspkit_texdata, flags), END};
static const field_desc AREA_FIELDS[] = {F(bspkit_area, num_portals), F(bspkit_area, first_portal), END};
static const field_desc AREAPORTAL_FIELDS[] = {
    F(bspkit_areaportal, portal_key), F(bspkit_areaportal, other_area), F(bspkit_areaportal, first_clip_vert),
    F(bspkit_areaportal, num_clip_verts), F(bspkit_areaportal, plane), END};
static const field_desc CUBEMAP_FIELDS[] = {FA(bspkit_cubemap, origin), F(bspkit_cubemap, size), END};
/* The pointer fields (targetname, raw) are left out: they are addresses, not data. */
static const field_desc STATIC_PROP_FIELDS[] = {
    FV(bspkit_static_prop, origin), FV(bspkit_static_prop, angles), F(bspkit_static_prop, prop_type),
    F(bspkit_static_prop, first_leaf), F(bspkit_static_prop, leaf_count), F(bspkit_static_prop, solid),
    F(bspkit_static_prop, flags), F(bspkit_static_prop, skin), F(bspkit_static_prop, fade_min_dist),
    F(bspkit_static_prop, fade_max_dist), FV(bspkit_static_prop, lighting_origin),
    F(bspkit_static_prop, forced_fade_scale), F(bspkit_static_prop, min_dx_level),
    F(bspkit_static_prop, max_dx_level), F(bspkit_static_prop, min_cpu_level), F(bspkit_static_prop, max_cpu_level),
    F(bspkit_static_prop, min_gpu_level), F(bspkit_static_prop, max_gpu_level),
    FA(bspkit_static_prop, diffuse_modulation), F(bspkit_static_prop, disable_x360), F(bspkit_static_prop, flags_ex),
    F(bspkit_static_prop, uniform_scale), FV(bspkit_static_prop, non_uniform_scale),
    F(bspkit_static_prop, lightmap_resolution_x), F(bspkit_static_prop, lightmap_resolution_y), END};

typedef bspkit_result (*getter_fn)(bspkit_map *, const void **, size_t *, bspkit_error *);

/* One record array: its accessor, struct size and fields (NULL fields: a plain
 * array of `scalar`). */
typedef struct array_desc {
    const char *name;
    getter_fn get;
    size_t itemsize;
    const field_desc *fields;
    const char *scalar;
} array_desc;

/* Accessors seen through one signature, each converting its own pointer type. */
#define WRAP(fn, T)                                                                                        \
    static bspkit_result w_##fn(bspkit_map *m, const void **out, size_t *n, bspkit_error *e)             \
    {                                                                                                      \
        const T *p = NULL;                                                                                 \
        bspkit_result r = fn(m, &p, n, e);                                                                 \
        *out = p;                                                                                          \
        return r;                                                                                          \
    }
WRAP(bspkit_get_planes, bspkit_plane)
WRAP(bspkit_get_vertexes, bspkit_vec3)
WRAP(bspkit_get_edges, bspkit_edge)
WRAP(bspkit_get_surfedges, int32_t)
WRAP(bspkit_get_faces, bspkit_face)
WRAP(bspkit_get_orig_faces, bspkit_face)
WRAP(bspkit_get_hdr_faces, bspkit_face)
WRAP(bspkit_get_nodes, bspkit_node)
WRAP(bspkit_get_leafs, bspkit_leaf)
WRAP(bspkit_get_models, bspkit_model)
WRAP(bspkit_get_texinfo, bspkit_texinfo)
WRAP(bspkit_get_leaf_faces, uint32_t)
WRAP(bspkit_get_leaf_brushes, uint32_t)
WRAP(bspkit_get_clipnodes, bspkit_clipnode)
WRAP(bspkit_get_brushes, bspkit_brush)
WRAP(bspkit_get_brushsides, bspkit_brushside)
WRAP(bspkit_get_texdata, bspkit_texdata)
WRAP(bspkit_get_texdata_string_table, int32_t)
WRAP(bspkit_get_areas, bspkit_area)
WRAP(bspkit_get_areaportals, bspkit_areaportal)
WRAP(bspkit_get_cubemaps, bspkit_cubemap)

/* The static props' records (an empty array for maps without an sprp game lump). */
static bspkit_result w_static_props(bspkit_map *m, const void **out, size_t *n, bspkit_error *e)
{
    const bspkit_static_props *sp = NULL;
    bspkit_result r = bspkit_get_static_props(m, &sp, e);
    *out = r == BSPKIT_OK && sp ? (const void *)sp->props : NULL;
    *n = r == BSPKIT_OK && sp ? sp->prop_count : 0;
    return r;
}

#define ARRAY(n, fn, T, fields) {n, w_##fn, sizeof(T), fields, NULL}
#define SCALARS(n, fn, T) {n, w_##fn, sizeof(T), NULL, CTYPE((T)0)}

static const array_desc ARRAYS[] = {
    ARRAY("planes", bspkit_get_planes, bspkit_plane, PLANE_FIELDS),
    ARRAY("vertexes", bspkit_get_vertexes, bspkit_vec3, VEC3_FIELDS),
    ARRAY("edges", bspkit_get_edges, bspkit_edge, EDGE_FIELDS),
    SCALARS("surfedges", bspkit_get_surfedges, int32_t),
    ARRAY("faces", bspkit_get_faces, bspkit_face, FACE_FIELDS),
    ARRAY("orig_faces", bspkit_get_orig_faces, bspkit_face, FACE_FIELDS),
    ARRAY("hdr_faces", bspkit_get_hdr_faces, bspkit_face, FACE_FIELDS),
    ARRAY("nodes", bspkit_get_nodes, bspkit_node, NODE_FIELDS),
    ARRAY("leafs", bspkit_get_leafs, bspkit_leaf, LEAF_FIELDS),
    ARRAY("models", bspkit_get_models, bspkit_model, MODEL_FIELDS),
    ARRAY("texinfo", bspkit_get_texinfo, bspkit_texinfo, TEXINFO_FIELDS),
    SCALARS("leaf_faces", bspkit_get_leaf_faces, uint32_t),
    SCALARS("leaf_brushes", bspkit_get_leaf_brushes, uint32_t),
    ARRAY("clipnodes", bspkit_get_clipnodes, bspkit_clipnode, CLIPNODE_FIELDS),
    ARRAY("brushes", bspkit_get_brushes, bspkit_brush, BRUSH_FIELDS),
    ARRAY("brushsides", bspkit_get_brushsides, bspkit_brushside, BRUSHSIDE_FIELDS),
    ARRAY("texdata", bspkit_get_texdata, bspkit_texdata, TEXDATA_FIELDS),
    SCALARS("texdata_string_table", bspkit_get_texdata_string_table, int32_t),
    ARRAY("areas", bspkit_get_areas, bspkit_area, AREA_FIELDS),
    ARRAY("areaportals", bspkit_get_areaportals, bspkit_areaportal, AREAPORTAL_FIELDS),
    ARRAY("cubemaps", bspkit_get_cubemaps, bspkit_cubemap, CUBEMAP_FIELDS),
    {"static_props", w_static_props, sizeof(bspkit_static_prop), STATIC_PROP_FIELDS, NULL},
};
#define ARRAY_COUNT (sizeof ARRAYS / sizeof ARRAYS[0])

static PyObject *fields_list(const field_desc *fields, size_t itemsize);

/* (name, offset, type, shape); type is a string or a nested (itemsize, fields) */
static PyObject *field_tuple(const field_desc *f)
{
    PyObject *type;
    if (strcmp(f->type, "rgbexp") == 0)
        type = fields_list(RGBEXP_FIELDS, sizeof(bspkit_rgbexp));
    else if (strcmp(f->type, "S") == 0)
        type = PyUnicode_FromFormat("S%d", f->dims[0]);
    else
        type = PyUnicode_FromString(f->type);
    PyObject *shape;
    if (strcmp(f->type, "S") == 0 || f->dims[0] == 0)
        shape = PyTuple_New(0);
    else if (f->dims[1] == 0)
        shape = Py_BuildValue("(i)", f->dims[0]);
    else
        shape = Py_BuildValue("(ii)", f->dims[0], f->dims[1]);
    if (type == NULL || shape == NULL) {
        Py_XDECREF(type);
        Py_XDECREF(shape);
        return NULL;
    }
    return Py_BuildValue("(snNN)", f->name, (Py_ssize_t)f->offset, type, shape);
}

/* (itemsize, [field, ...]) */
static PyObject *fields_list(const field_desc *fields, size_t itemsize)
{
    PyObject *list = PyList_New(0);
    for (const field_desc *f = fields; list != NULL && f->name != NULL; f++) {
        PyObject *t = field_tuple(f);
        if (t == NULL || PyList_Append(list, t) != 0)
            Py_CLEAR(list);
        Py_XDECREF(t);
    }
    if (list == NULL)
        return NULL;
    return Py_BuildValue("(nN)", (Py_ssize_t)itemsize, list);
}

/* {name: (itemsize, fields) or (itemsize, scalar type)} */
static PyObject *mod_record_types(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    PyObject *d = PyDict_New();
    for (size_t i = 0; d != NULL && i < ARRAY_COUNT; i++) {
        const array_desc *a = &ARRAYS[i];
        PyObject *v = a->fields ? fields_list(a->fields, a->itemsize)
                                : Py_BuildValue("(ns)", (Py_ssize_t)a->itemsize, a->scalar);
        if (set_item(d, a->name, v) != 0)
            Py_CLEAR(d);
    }
    return d;
}

/* A read-only buffer over one decoded array; keeps its map alive. */
typedef struct {
    PyObject_HEAD
    MapObject *owner;
    const void *data;
    Py_ssize_t length; /* bytes */
    Py_ssize_t count;
    Py_ssize_t itemsize;
} RecordBufferObject;

static PyTypeObject RecordBufferType;

/* Drops one view's hold on its map: a closed map is freed with its last view. */
static void release_owner(MapObject *owner)
{
    if (owner == NULL)
        return;
    owner->views--;
    if (owner->closed)
        map_release(owner);
    Py_DECREF(owner);
}

static void RecordBuffer_dealloc(RecordBufferObject *self)
{
    release_owner(self->owner);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int RecordBuffer_getbuffer(RecordBufferObject *self, Py_buffer *view, int flags)
{
    static const char empty[1];
    return PyBuffer_FillInfo(view, (PyObject *)self, (void *)(self->length ? self->data : empty), self->length, 1,
                             flags);
}

static PyBufferProcs RecordBuffer_as_buffer = {(getbufferproc)RecordBuffer_getbuffer, NULL};

static PyObject *RecordBuffer_get_count(RecordBufferObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromSsize_t(self->count);
}

static PyObject *RecordBuffer_get_itemsize(RecordBufferObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromSsize_t(self->itemsize);
}

static PyGetSetDef RecordBuffer_getset[] = {
    {"count", (getter)RecordBuffer_get_count, NULL, "number of records", NULL},
    {"itemsize", (getter)RecordBuffer_get_itemsize, NULL, "bytes per record (sizeof the C struct)", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyObject *Map_array(MapObject *self, PyObject *arg)
{
    const char *name = PyUnicode_AsUTF8(arg);
    if (name == NULL)
        return NULL;
    const array_desc *a = NULL;
    for (size_t i = 0; i < ARRAY_COUNT && a == NULL; i++)
        if (strcmp(ARRAYS[i].name, name) == 0)
            a = &ARRAYS[i];
    if (a == NULL) {
        PyErr_Format(PyExc_KeyError, "no record array named '%s'", name);
        return NULL;
    }
    bspkit_map *m = map_get(self);
    if (m == NULL)
        return NULL;
    const void *data = NULL;
    size_t count = 0;
    bspkit_error err;
    clear_error(&err);
    bspkit_result r = a->get(m, &data, &count, &err);
    if (r != BSPKIT_OK)
        return raise_error(r, &err);
    if (count > (size_t)PY_SSIZE_T_MAX / a->itemsize)
        return PyErr_NoMemory();
    RecordBufferObject *buf = PyObject_New(RecordBufferObject, &RecordBufferType);
    if (buf == NULL)
        return NULL;
    Py_INCREF(self);
    self->views++;
    buf->owner = self;
    buf->data = data;
    buf->count = (Py_ssize_t)count;
    buf->itemsize = (Py_ssize_t)a->itemsize;
    buf->length = (Py_ssize_t)(count * a->itemsize);
    return (PyObject *)buf;
}

/* The static props' model dictionary (prop_type indexes it), as str. */
static PyObject *Map_static_prop_models(MapObject *self, PyObject *Py_UNUSED(ignored))
{
    bspkit_map *m = map_get(self);
    if (m == NULL)
        return NULL;
    const bspkit_static_props *sp = NULL;
    bspkit_error err;
    clear_error(&err);
    bspkit_result r = bspkit_get_static_props(m, &sp, &err);
    if (r != BSPKIT_OK)
        return raise_error(r, &err);
    size_t n = sp ? sp->dictionary_count : 0;
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list && i < n; i++) {
        const char *name = sp->dictionary[i].name;
        /* 128-byte fields: a name that fills its field has no NUL. */
        PyObject *item = PyUnicode_DecodeUTF8(name, (Py_ssize_t)strnlen(name, sizeof sp->dictionary[i].name),
                                              "surrogateescape");
        if (item == NULL)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    return list;
}

/* ---- pictures ---------------------------------------------------------------- */

/* render(path or None, view, width, height, supersample, (x, y, z, pitch, yaw, fov), show_hidden,
 * no_textures, no_lightmaps) -> (rgba bytes or None, width, height, stats dict) */
static PyObject *Map_render(MapObject *self, PyObject *args)
{
    PyObject *path_obj;
    int view, show_hidden, no_textures, no_lightmaps;
    unsigned int width, height, supersample;
    double cam[6];
    if (!PyArg_ParseTuple(args, "OiIII(dddddd)ppp", &path_obj, &view, &width, &height, &supersample, &cam[0],
                          &cam[1], &cam[2], &cam[3], &cam[4], &cam[5], &show_hidden, &no_textures, &no_lightmaps))
        return NULL;
    if (view < BSPKIT_RENDER_SPAWN || view > BSPKIT_RENDER_CAMERA) {
        PyErr_SetString(PyExc_ValueError, "view must be spawn, top, iso or camera");
        return NULL;
    }
    bspkit_map *m = map_get(self);
    if (m == NULL)
        return NULL;
    bspkit_render_options opts;
    memset(&opts, 0, sizeof opts);
    opts.view = (bspkit_render_view)view;
    opts.width = width;
    opts.height = height;
    opts.supersample = supersample;
    for (int k = 0; k < 3; k++)
        opts.camera.origin[k] = cam[k];
    opts.camera.pitch = cam[3];
    opts.camera.yaw = cam[4];
    opts.camera.fov = cam[5];
    opts.show_hidden = show_hidden != 0;
    opts.no_textures = no_textures != 0;
    opts.no_lightmaps = no_lightmaps != 0;
    bspkit_render_stats st;
    memset(&st, 0, sizeof st);
    bspkit_error err;
    clear_error(&err);
    bspkit_image img;
    memset(&img, 0, sizeof img);
    PyObject *pixels = NULL;
    bspkit_result r;
    if (path_obj == Py_None) {
        r = bspkit_render(m, &opts, &img, &st, &err);
        if (r != BSPKIT_OK)
            return raise_error(r, &err);
        pixels = PyBytes_FromStringAndSize((const char *)img.rgba, (Py_ssize_t)img.width * img.height * 4);
        width = img.width;
        height = img.height;
        bspkit_image_free(&img);
        if (pixels == NULL)
            return NULL;
    } else {
        PyObject *encoded = NULL;
        if (!PyUnicode_FSConverter(path_obj, &encoded))
            return NULL;
        r = bspkit_render_png(m, PyBytes_AS_STRING(encoded), &opts, &st, &err);
        Py_DECREF(encoded);
        if (r != BSPKIT_OK)
            return raise_error(r, &err);
        pixels = Py_NewRef(Py_None);
        width = height = 0;
    }
    PyObject *stats = Py_BuildValue(
        "{s:n,s:n,s:n,s:(ddd),s:d,s:d,s:d,s:(dd),s:d}", "triangles", (Py_ssize_t)st.triangles, "triangles_drawn",
        (Py_ssize_t)st.triangles_drawn, "missing_textures", (Py_ssize_t)st.missing_textures, "eye_origin",
        st.eye.origin[0], st.eye.origin[1], st.eye.origin[2], "eye_pitch", st.eye.pitch, "eye_yaw", st.eye.yaw,
        "eye_fov", st.eye.fov, "top_left", st.top_left[0], st.top_left[1], "units_per_pixel", st.units_per_pixel);
    if (stats == NULL) {
        Py_DECREF(pixels);
        return NULL;
    }
    return Py_BuildValue("(NIIN)", pixels, width, height, stats);
}

/* view(path or None, title or None, no_textures, no_lightmaps) -> (html bytes or None, stats dict) */
static PyObject *Map_view(MapObject *self, PyObject *args)
{
    PyObject *path_obj;
    const char *title;
    int no_textures, no_lightmaps;
    if (!PyArg_ParseTuple(args, "Ozpp", &path_obj, &title, &no_textures, &no_lightmaps))
        return NULL;
    bspkit_map *m = map_get(self);
    if (m == NULL)
        return NULL;
    bspkit_view_options opts;
    memset(&opts, 0, sizeof opts);
    opts.title = title;
    opts.no_textures = no_textures != 0;
    opts.no_lightmaps = no_lightmaps != 0;
    bspkit_view_stats st;
    memset(&st, 0, sizeof st);
    bspkit_error err;
    clear_error(&err);
    PyObject *html;
    bspkit_result r;
    if (path_obj == Py_None) {
        uint8_t *out = NULL;
        size_t size = 0;
        r = bspkit_view_html(m, &opts, &out, &size, &st, &err);
        if (r != BSPKIT_OK)
            return raise_error(r, &err);
        html = PyBytes_FromStringAndSize((const char *)out, (Py_ssize_t)size);
        bspkit_free(out);
        if (html == NULL)
            return NULL;
    } else {
        PyObject *encoded = NULL;
        if (!PyUnicode_FSConverter(path_obj, &encoded))
            return NULL;
        r = bspkit_view_save(m, PyBytes_AS_STRING(encoded), &opts, &st, &err);
        Py_DECREF(encoded);
        if (r != BSPKIT_OK)
            return raise_error(r, &err);
        html = Py_NewRef(Py_None);
    }
    PyObject *stats = Py_BuildValue("{s:n,s:n,s:n,s:n,s:n}", "html_bytes", (Py_ssize_t)st.html_bytes, "glb_bytes",
                                    (Py_ssize_t)st.glb_bytes, "glb_deflated", (Py_ssize_t)st.glb_deflated,
                                    "script_bytes", (Py_ssize_t)st.script_bytes, "triangles",
                                    (Py_ssize_t)st.geometry.triangles);
    if (stats == NULL) {
        Py_DECREF(html);
        return NULL;
    }
    return Py_BuildValue("(NN)", html, stats);
}

static PyObject *mod_view_available(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    return PyBool_FromLong(bspkit_view_available());
}

/* ---- visibility ------------------------------------------------------------ */

static int parse_vis_kind(const char *kind, bspkit_vis_kind *out)
{
    if (strcmp(kind, "pvs") == 0) {
        *out = BSPKIT_VIS_PVS;
        return 0;
    }
    if (strcmp(kind, "pas") == 0) {
        *out = BSPKIT_VIS_PAS;
        return 0;
    }
    PyErr_Format(PyExc_ValueError, "visibility kind must be 'pvs' or 'pas', not '%s'", kind);
    return -1;
}

/* bspkit_vis_dimensions; -1 with bspkit.Error set on failure. */
static int vis_dims(bspkit_map *m, uint32_t *rows, uint32_t *row_bytes)
{
    bspkit_error err;
    clear_error(&err);
    bspkit_result r = bspkit_vis_dimensions(m, rows, row_bytes, &err);
    if (r != BSPKIT_OK) {
        raise_error(r, &err);
        return -1;
    }
    return 0;
}

/* (rows, row_bytes) of the visibility data (bspkit_vis_dimensions); (0, 0) without vis data. */
static PyObject *Map_vis_dimensions(MapObject *self, PyObject *unused)
{
    (void)unused;
    bspkit_map *m = map_get(self);
    uint32_t rows = 0, row_bytes = 0;
    if (m == NULL || vis_dims(m, &rows, &row_bytes) != 0)
        return NULL;
    return Py_BuildValue("(kk)", (unsigned long)rows, (unsigned long)row_bytes);
}

/* (index, kind, per_leaf) -> the decompressed row as bytes: per_leaf 0 reads row `index` as stored
 * (bspkit_vis_row: Source cluster, Quake/GoldSrc leaf >= 1); per_leaf 1 the row of leaf `index`
 * (bspkit_leaf_vis_row, which also computes the Quake/GoldSrc PAS). */
static PyObject *Map_vis_row(MapObject *self, PyObject *args)
{
    unsigned long index;
    const char *kind_name = "pvs";
    int per_leaf = 0;
    if (!PyArg_ParseTuple(args, "k|sp", &index, &kind_name, &per_leaf))
        return NULL;
    bspkit_vis_kind kind;
    if (parse_vis_kind(kind_name, &kind) != 0)
        return NULL;
    if (index > UINT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "visibility row index out of range");
        return NULL;
    }
    bspkit_map *m = map_get(self);
    uint32_t rows = 0, row_bytes = 0;
    if (m == NULL || vis_dims(m, &rows, &row_bytes) != 0)
        return NULL;
    bspkit_error err;
    clear_error(&err);
    bspkit_result r;
    PyObject *bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)row_bytes);
    if (bytes == NULL)
        return NULL;
    if (row_bytes == 0)
        return bytes;
    uint8_t *out = (uint8_t *)PyBytes_AS_STRING(bytes);
    if (per_leaf)
        r = bspkit_leaf_vis_row(m, (uint32_t)index, kind, out, row_bytes, &err);
    else
        r = bspkit_vis_row(m, (uint32_t)index, kind, out, row_bytes, &err);
    if (r != BSPKIT_OK) {
        Py_DECREF(bytes);
        return raise_error(r, &err);
    }
    return bytes;
}

/* (x, y, z[, model]) -> the leaf holding the point in the model's hull-0 tree (bspkit_point_leaf). */
static PyObject *Map_point_leaf(MapObject *self, PyObject *args)
{
    double x, y, z;
    int model = 0;
    if (!PyArg_ParseTuple(args, "ddd|i", &x, &y, &z, &model))
        return NULL;
    bspkit_map *m = map_get(self);
    if (m == NULL)
        return NULL;
    uint32_t leaf = 0;
    bspkit_error err;
    clear_error(&err);
    bspkit_result r = bspkit_point_leaf(m, model, (bspkit_vec3){(float)x, (float)y, (float)z}, &leaf, &err);
    if (r != BSPKIT_OK)
        return raise_error(r, &err);
    return PyLong_FromUnsignedLong((unsigned long)leaf);
}

/* (leaf) -> the leaf's visibility cluster, or None (bspkit_leaf_cluster). */
static PyObject *Map_leaf_cluster(MapObject *self, PyObject *arg)
{
    unsigned long leaf = PyLong_AsUnsignedLong(arg);
    if (leaf == (unsigned long)-1 && PyErr_Occurred())
        return NULL;
    if (leaf > UINT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "leaf index out of range");
        return NULL;
    }
    bspkit_map *m = map_get(self);
    if (m == NULL)
        return NULL;
    int32_t cluster = -1;
    bspkit_error err;
    clear_error(&err);
    bspkit_result r = bspkit_leaf_cluster(m, (uint32_t)leaf, &cluster, &err);
    if (r != BSPKIT_OK)
        return raise_error(r, &err);
    return int_or_none(cluster);
}

/* ---- export and decompile ------------------------------------------------------ */

/* A dict of (key, size_t) rows. */
typedef struct {
    const char *key;
    size_t value;
} stat_row;

static PyObject *stats_dict(const stat_row *rows, size_t n)
{
    PyObject *d = PyDict_New();
    if (d == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (set_item(d, rows[i].key, PyLong_FromSize_t(rows[i].value)) != 0) {
            Py_DECREF(d);
            return NULL;
        }
    }
    return d;
}

/* (path, format, scale, skip, keep, no_textures, no_lightmaps, hdr, bake_lightmaps, obj_y_up, wad_paths)
 * -> the export's figures as a dict (bspkit_export). */
static PyObject *Map_export(MapObject *self, PyObject *args)
{
    PyObject *path_obj, *wads;
    int format;
    double scale;
    unsigned int skip, keep;
    int no_textures, no_lightmaps, hdr, bake, y_up;
    if (!PyArg_ParseTuple(args, "OidIIpppppO!", &path_obj, &format, &scale, &skip, &keep, &no_textures, &no_lightmaps,
                          &hdr, &bake, &y_up, &PyTuple_Type, &wads))
        return NULL;
    bspkit_map *m = map_get(self);
    if (m == NULL)
        return NULL;
    PyObject *encoded = NULL;
    if (!PyUnicode_FSConverter(path_obj, &encoded))
        return NULL;
    Py_ssize_t nwads = PyTuple_GET_SIZE(wads);
    const char **wad_paths = PyMem_Calloc(nwads > 0 ? (size_t)nwads : 1, sizeof *wad_paths);
    if (wad_paths == NULL) {
        Py_DECREF(encoded);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < nwads; i++) {
        PyObject *item = PyTuple_GET_ITEM(wads, i);
        if (!PyBytes_Check(item)) {
            PyErr_SetString(PyExc_TypeError, "wad paths must be bytes");
            PyMem_Free(wad_paths);
            Py_DECREF(encoded);
            return NULL;
        }
        wad_paths[i] = PyBytes_AS_STRING(item);
    }
    bspkit_export_options opts;
    memset(&opts, 0, sizeof opts);
    opts.format = (bspkit_export_format)format;
    opts.scale = scale;
    opts.skip = skip;
    opts.keep = keep;
    opts.no_textures = no_textures != 0;
    opts.no_lightmaps = no_lightmaps != 0;
    opts.lightmap_hdr = hdr != 0;
    opts.obj_bake_lightmaps = bake != 0;
    opts.obj_y_up = y_up != 0;
    opts.wad_paths = wad_paths;
    opts.wad_path_count = (size_t)nwads;
    bspkit_export_stats st;
    memset(&st, 0, sizeof st);
    bspkit_error err;
    clear_error(&err);
    bspkit_result r;
    r = bspkit_export(m, PyBytes_AS_STRING(encoded), &opts, &st, &err);
    PyMem_Free(wad_paths);
    Py_DECREF(encoded);
    if (r != BSPKIT_OK)
        return raise_error(r, &err);
    const stat_row rows[] = {{"nodes", st.nodes},
                             {"faces", st.faces},
                             {"triangles", st.triangles},
                             {"vertices", st.vertices},
                             {"displacements", st.displacements},
                             {"materials", st.materials},
                             {"images", st.images},
                             {"missing_textures", st.missing_textures},
                             {"props", st.props},
                             {"bytes_written", st.bytes_written}};
    return stats_dict(rows, sizeof rows / sizeof rows[0]);
}

/* (path or None, format, skip, no_merge) -> (stats dict, text or None) (bspkit_decompile,
 * bspkit_decompile_memory when path is None). */
static PyObject *Map_decompile(MapObject *self, PyObject *args)
{
    PyObject *path_obj;
    int format, no_merge;
    unsigned int skip;
    if (!PyArg_ParseTuple(args, "OiIp", &path_obj, &format, &skip, &no_merge))
        return NULL;
    bspkit_map *m = map_get(self);
    if (m == NULL)
        return NULL;
    PyObject *encoded = NULL;
    if (path_obj != Py_None && !PyUnicode_FSConverter(path_obj, &encoded))
        return NULL;
    bspkit_decompile_options opts;
    memset(&opts, 0, sizeof opts);
    opts.format = (bspkit_decompile_format)format;
    opts.skip = skip;
    opts.no_merge = no_merge != 0;
    bspkit_decompile_stats st;
    memset(&st, 0, sizeof st);
    bspkit_error err;
    clear_error(&err);
    char *text = NULL;
    size_t size = 0;
    bspkit_result r;
    if (encoded != NULL)
        r = bspkit_decompile(m, PyBytes_AS_STRING(encoded), &opts, &st, &err);
    else
        r = bspkit_decompile_memory(m, &opts, &text, &size, &st, &err);
    Py_XDECREF(encoded);
    if (r != BSPKIT_OK) {
        bspkit_free(text);
        return raise_error(r, &err);
    }
    const stat_row rows[] = {{"brushes", st.brushes},
                             {"sides", st.sides},
                             {"world_brushes", st.world_brushes},
                             {"detail_brushes", st.detail_brushes},
                             {"entity_brushes", st.entity_brushes},
                             {"tool_sides", st.tool_sides},
                             {"skipped_brushes", st.skipped_brushes},
                             {"unowned_brushes", st.unowned_brushes},
                             {"entities", st.entities},
                             {"displacements", st.displacements},
                             {"props", st.props},
                             {"overlays", st.overlays},
                             {"cubemaps", st.cubemaps},
                             {"leaves", st.leaves},
                             {"texture_splits", st.texture_splits},
                             {"clip_brushes", st.clip_brushes},
                             {"patches", st.patches},
                             {"bytes_written", st.bytes_written}};
    PyObject *d = stats_dict(rows, sizeof rows / sizeof rows[0]);
    if (d == NULL) {
        bspkit_free(text);
        return NULL;
    }
    PyObject *t;
    if (text != NULL) {
        t = PyBytes_FromStringAndSize(text, (Py_ssize_t)size);
        bspkit_free(text);
        if (t == NULL) {
            Py_DECREF(d);
            return NULL;
        }
    } else {
        t = Py_None;
        Py_INCREF(t);
    }
    PyObject *result = Py_BuildValue("(NN)", d, t);
    return result;
}

/* ---- Edit: changes to a map, written as a new file ---------------------------- */

typedef struct {
    PyObject_HEAD
    MapObject *owner; /* kept alive (and counted as a view) while the edit exists */
    bspkit_edit *edit;
} EditObject;

static PyTypeObject EditType;

static void Edit_dealloc(EditObject *self)
{
    bspkit_edit_free(self->edit);
    release_owner(self->owner);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Map_edit(MapObject *self, PyObject *unused)
{
    (void)unused;
    bspkit_map *m = map_get(self);
    if (m == NULL)
        return NULL;
    bspkit_edit *e = NULL;
    bspkit_error err;
    clear_error(&err);
    bspkit_result r = bspkit_edit_new(m, &e, &err);
    if (r != BSPKIT_OK)
        return raise_error(r, &err);
    EditObject *ed = PyObject_New(EditObject, &EditType);
    if (ed == NULL) {
        bspkit_edit_free(e);
        return NULL;
    }
    Py_INCREF(self);
    self->views++;
    ed->owner = self;
    ed->edit = e;
    return (PyObject *)ed;
}

/* The lump index a name ("ENTITIES", "planes") names, or -1. */
static PyObject *Map_lump_find(MapObject *self, PyObject *arg)
{
    bspkit_map *m = map_get(self);
    if (m == NULL)
        return NULL;
    const char *name = PyUnicode_AsUTF8(arg);
    if (name == NULL)
        return NULL;
    return PyLong_FromLong((long)bspkit_lump_find(m, name));
}

/* (lump, data): the lump's new stored bytes. */
static PyObject *Edit_set_lump(EditObject *self, PyObject *args)
{
    int lump;
    Py_buffer buf;
    if (!PyArg_ParseTuple(args, "iy*", &lump, &buf))
        return NULL;
    bspkit_error err;
    clear_error(&err);
    bspkit_result r = bspkit_edit_set_lump(self->edit, lump, buf.buf, (size_t)buf.len, &err);
    PyBuffer_Release(&buf);
    if (r != BSPKIT_OK)
        return raise_error(r, &err);
    Py_RETURN_NONE;
}

/* (text): the entity lump's new text (bytes, without the final NUL). */
static PyObject *Edit_set_entities_text(EditObject *self, PyObject *arg)
{
    Py_buffer buf;
    if (PyObject_GetBuffer(arg, &buf, PyBUF_SIMPLE) != 0)
        return NULL;
    bspkit_error err;
    clear_error(&err);
    bspkit_result r = bspkit_edit_set_entities_text(self->edit, buf.buf, (size_t)buf.len, &err);
    PyBuffer_Release(&buf);
    if (r != BSPKIT_OK)
        return raise_error(r, &err);
    Py_RETURN_NONE;
}

/* The edited map's bytes. */
static PyObject *Edit_write(EditObject *self, PyObject *unused)
{
    (void)unused;
    uint8_t *out = NULL;
    size_t size = 0;
    bspkit_error err;
    clear_error(&err);
    bspkit_result r = bspkit_edit_write(self->edit, NULL, &out, &size, &err);
    if (r != BSPKIT_OK)
        return raise_error(r, &err);
    PyObject *bytes = PyBytes_FromStringAndSize((const char *)out, (Py_ssize_t)size);
    bspkit_free(out);
    return bytes;
}

/* (path): the edited map written to `path` through a temporary file and a rename. */
static PyObject *Edit_save(EditObject *self, PyObject *arg)
{
    PyObject *encoded = NULL;
    if (!PyUnicode_FSConverter(arg, &encoded))
        return NULL;
    bspkit_error err;
    clear_error(&err);
    bspkit_result r = bspkit_edit_save(self->edit, PyBytes_AS_STRING(encoded), NULL, &err);
    Py_DECREF(encoded);
    if (r != BSPKIT_OK)
        return raise_error(r, &err);
    Py_RETURN_NONE;
}

/* The edit's current PAKFILE (decompressed) opened as an archive; *out NULL and an exception set on failure. */
static int edit_pak_open(EditObject *self, int *lump, bspkit_pak **out)
{
    *out = NULL;
    bspkit_map *m = bspkit_edit_map(self->edit);
    *lump = bspkit_lump_find(m, "PAKFILE");
    if (*lump < 0) {
        PyErr_SetString(PyExc_ValueError, "this map has no PAKFILE lump (Source-family maps only)");
        return -1;
    }
    const uint8_t *zip = NULL;
    size_t size = 0;
    bspkit_error err;
    clear_error(&err);
    bspkit_result r = bspkit_edit_lump(self->edit, *lump, &zip, &size, &err);
    if (r == BSPKIT_OK)
        r = bspkit_pak_open(zip, size, NULL, out, &err);
    if (r != BSPKIT_OK) {
        raise_error(r, &err);
        return -1;
    }
    return 0;
}

/* Writes `p` (stored and LZMA entries kept, others stored, as `bspkit pak` does) into the edit's PAKFILE. */
static int edit_pak_store(EditObject *self, bspkit_pak *p)
{
    uint8_t *zip = NULL;
    size_t size = 0;
    bspkit_error err;
    clear_error(&err);
    bspkit_result r = bspkit_pak_write(p, BSPKIT_PAK_KEEP, &zip, &size, &err);
    if (r == BSPKIT_OK)
        r = bspkit_edit_set_pakfile(self->edit, zip, size, &err);
    bspkit_free(zip);
    if (r != BSPKIT_OK) {
        raise_error(r, &err);
        return -1;
    }
    return 0;
}

/* (name, data): add (or replace) a pakfile entry. */
static PyObject *Edit_pak_add(EditObject *self, PyObject *args)
{
    const char *name;
    Py_buffer buf;
    if (!PyArg_ParseTuple(args, "sy*", &name, &buf))
        return NULL;
    int lump;
    bspkit_pak *p = NULL;
    if (edit_pak_open(self, &lump, &p) != 0) {
        PyBuffer_Release(&buf);
        return NULL;
    }
    bspkit_error err;
    clear_error(&err);
    bspkit_result r = bspkit_pak_add(p, name, buf.buf, (size_t)buf.len, &err);
    PyBuffer_Release(&buf);
    if (r != BSPKIT_OK) {
        bspkit_pak_close(p);
        return raise_error(r, &err);
    }
    int rc = edit_pak_store(self, p);
    bspkit_pak_close(p);
    if (rc != 0)
        return NULL;
    Py_RETURN_NONE;
}

/* (glob) -> how many pakfile entries were removed. */
static PyObject *Edit_pak_remove(EditObject *self, PyObject *args)
{
    const char *glob;
    if (!PyArg_ParseTuple(args, "s", &glob))
        return NULL;
    int lump;
    bspkit_pak *p = NULL;
    if (edit_pak_open(self, &lump, &p) != 0)
        return NULL;
    size_t removed = 0;
    bspkit_error err;
    clear_error(&err);
    bspkit_result r = bspkit_pak_remove(p, glob, &removed, &err);
    if (r != BSPKIT_OK) {
        bspkit_pak_close(p);
        return raise_error(r, &err);
    }
    int rc = removed ? edit_pak_store(self, p) : 0;
    bspkit_pak_close(p);
    if (rc != 0)
        return NULL;
    return PyLong_FromSize_t(removed);
}

static PyMethodDef Edit_methods[] = {
    {"pak_add", (PyCFunction)Edit_pak_add, METH_VARARGS, "(name, data): add or replace a pakfile entry."},
    {"pak_remove", (PyCFunction)Edit_pak_remove, METH_VARARGS, "(glob) -> number of pakfile entries removed."},
    {"set_lump", (PyCFunction)Edit_set_lump, METH_VARARGS, "(lump, data): replace a lump's stored bytes."},
    {"set_entities_text", (PyCFunction)Edit_set_entities_text, METH_O, "Replace the entity text."},
    {"write", (PyCFunction)Edit_write, METH_NOARGS, "The edited map's bytes."},
    {"save", (PyCFunction)Edit_save, METH_O, "Write the edited map to a path (temp file + rename)."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject EditType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "bspkit._bspkit.Edit",
    .tp_basicsize = sizeof(EditObject),
    .tp_dealloc = (destructor)Edit_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Changes to an open map (low level; see bspkit.Map.edit).",
    .tp_methods = Edit_methods,
};

static PyMethodDef Map_methods[] = {
    {"close", (PyCFunction)Map_close, METH_NOARGS, "Close the map; memory is freed once no array views it."},
    {"format", (PyCFunction)Map_format, METH_NOARGS, "(family, name, version, big_endian, variant, revision, lumps)"},
    {"size", (PyCFunction)Map_size, METH_NOARGS, "File size in bytes."},
    {"lumps", (PyCFunction)Map_lumps, METH_NOARGS, "Lump directory as a list of dicts."},
    {"counts", (PyCFunction)Map_counts, METH_NOARGS, "Record counts per lump key, plus textures."},
    {"crc", (PyCFunction)Map_crc, METH_NOARGS, "Source map CRC as 8 hex digits, else None."},
    {"game", (PyCFunction)Map_game, METH_NOARGS, "The game the map's bytes name, else None."},
    {"point_contents", (PyCFunction)Map_point_contents, METH_VARARGS, "(x, y, z[, hull[, model]]) -> contents"},
    {"entities", (PyCFunction)Map_entities, METH_NOARGS, "[(line, offset, [(key, value), ...]), ...]"},
    {"validate", (PyCFunction)Map_validate, METH_VARARGS, "(problems, errors, warnings)"},
    {"array", (PyCFunction)Map_array, METH_O, "A read-only buffer over a decoded record array."},
    {"render", (PyCFunction)Map_render, METH_VARARGS, "Render a picture (see bspkit_render)."},
    {"view", (PyCFunction)Map_view, METH_VARARGS, "The map as an HTML viewer page (see bspkit_view_html)."},
    {"static_prop_models", (PyCFunction)Map_static_prop_models, METH_NOARGS,
     "The static props' model names (prop_type indexes them)."},
    {"edit", (PyCFunction)Map_edit, METH_NOARGS, "Start an edit of the map."},
    {"lump_find", (PyCFunction)Map_lump_find, METH_O, "Lump index of a name or key, or -1."},
    {"vis_dimensions", (PyCFunction)Map_vis_dimensions, METH_NOARGS, "(rows, row_bytes) of the visibility data."},
    {"vis_row", (PyCFunction)Map_vis_row, METH_VARARGS, "(index[, kind[, per_leaf]]) -> decompressed row bytes"},
    {"point_leaf", (PyCFunction)Map_point_leaf, METH_VARARGS, "(x, y, z[, model]) -> leaf index"},
    {"leaf_cluster", (PyCFunction)Map_leaf_cluster, METH_O, "(leaf) -> cluster or None"},
    {"export", (PyCFunction)Map_export, METH_VARARGS, "Export geometry to a file; returns the figures."},
    {"decompile", (PyCFunction)Map_decompile, METH_VARARGS, "Decompile to a file or to text; (figures, text)."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Map_getset[] = {{"closed", (getter)Map_get_closed, NULL, "close() was called", NULL},
                                   {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject MapType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "bspkit._bspkit.Map",
    .tp_basicsize = sizeof(MapObject),
    .tp_dealloc = (destructor)Map_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An open map (low level; see bspkit.Map).",
    .tp_methods = Map_methods,
    .tp_getset = Map_getset,
};

static PyTypeObject RecordBufferType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "bspkit._bspkit.RecordBuffer",
    .tp_basicsize = sizeof(RecordBufferObject),
    .tp_dealloc = (destructor)RecordBuffer_dealloc,
    .tp_as_buffer = &RecordBuffer_as_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Read-only buffer over one decoded record array; keeps its map alive.",
    .tp_getset = RecordBuffer_getset,
};

/* ---- scan ---------------------------------------------------------------------- */

/* The JSON lines of a scan, collected without touching Python (the scan runs without the GIL). */
typedef struct {
    char **lines;
    size_t count, cap;
    int failed; /* out of memory */
} scan_lines;

static int scan_collect(void *user, const bspkit_scan_record *rec)
{
    scan_lines *c = user;
    if (c->count == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        char **grown = realloc(c->lines, cap * sizeof *grown);
        if (grown == NULL) {
            c->failed = 1;
            return 1;
        }
        c->lines = grown;
        c->cap = cap;
    }
    char *copy = strdup(rec->json);
    if (copy == NULL) {
        c->failed = 1;
        return 1;
    }
    c->lines[c->count++] = copy;
    return 0;
}

static void scan_lines_free(scan_lines *c)
{
    for (size_t i = 0; i < c->count; i++)
        free(c->lines[i]);
    free(c->lines);
}

/* (paths, threads) -> [JSON text of each record, ...] in path order (bspkit_scan). */
static PyObject *mod_scan(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *seq;
    unsigned int threads = 0;
    if (!PyArg_ParseTuple(args, "O|I", &seq, &threads))
        return NULL;
    PyObject *fast = PySequence_Fast(seq, "paths must be a sequence");
    if (fast == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    PyObject *encoded = PyList_New(n);
    const char **paths = PyMem_Calloc(n > 0 ? (size_t)n : 1, sizeof *paths);
    if (encoded == NULL || paths == NULL) {
        Py_DECREF(fast);
        Py_XDECREF(encoded);
        PyMem_Free(paths);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *b = NULL;
        if (!PyUnicode_FSConverter(PySequence_Fast_GET_ITEM(fast, i), &b)) {
            Py_DECREF(fast);
            Py_DECREF(encoded);
            PyMem_Free(paths);
            return NULL;
        }
        PyList_SET_ITEM(encoded, i, b);
        paths[i] = PyBytes_AS_STRING(b);
    }
    Py_DECREF(fast);
    scan_lines lines = {NULL, 0, 0, 0};
    bspkit_scan_options opts;
    memset(&opts, 0, sizeof opts);
    opts.threads = threads;
    opts.on_record = scan_collect;
    opts.user = &lines;
    bspkit_error err;
    clear_error(&err);
    bspkit_result r;
    Py_BEGIN_ALLOW_THREADS
    r = bspkit_scan(paths, (size_t)n, &opts, NULL, &err);
    Py_END_ALLOW_THREADS
    PyMem_Free(paths);
    Py_DECREF(encoded);
    if (lines.failed) {
        scan_lines_free(&lines);
        return PyErr_NoMemory();
    }
    if (r != BSPKIT_OK) {
        scan_lines_free(&lines);
        return raise_error(r, &err);
    }
    PyObject *out = PyList_New((Py_ssize_t)lines.count);
    for (size_t i = 0; out != NULL && i < lines.count; i++) {
        PyObject *line = PyUnicode_DecodeUTF8(lines.lines[i], (Py_ssize_t)strlen(lines.lines[i]), "surrogateescape");
        if (line == NULL) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, (Py_ssize_t)i, line);
    }
    scan_lines_free(&lines);
    return out;
}

static PyObject *mod_strerror(PyObject *mod, PyObject *arg)
{
    (void)mod;
    long code = PyLong_AsLong(arg);
    if (code == -1 && PyErr_Occurred())
        return NULL;
    return PyUnicode_FromString(bspkit_strerror((bspkit_result)code));
}

static PyMethodDef module_methods[] = {
    {"open_file", mod_open_file, METH_VARARGS,
     "Open a map file (str, bytes or os.PathLike path) with (max_file_size, max_lump_size, max_memory)."},
    {"open_memory", mod_open_memory, METH_VARARGS,
     "Open a map from a bytes-like object (copied) with (max_file_size, max_lump_size, max_memory)."},
    {"record_types", mod_record_types, METH_NOARGS, "Field descriptors of every record array."},
    {"scan", mod_scan, METH_VARARGS, "(paths[, threads]) -> JSON text of every map record, in path order."},
    {"view_available", mod_view_available, METH_NOARGS, "Whether the library holds the viewer script."},
    {"strerror", mod_strerror, METH_O, "Short description of a result code."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_bspkit", "bspkit C extension", -1,
                                        module_methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__bspkit(void)
{
    if (PyType_Ready(&MapType) < 0 || PyType_Ready(&RecordBufferType) < 0 || PyType_Ready(&EditType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    BspkitError = PyErr_NewExceptionWithDoc("bspkit.Error", "A bspkit failure: code, lump, offset, message.",
                                            NULL, NULL);
    for (int i = 0; BspkitError != NULL && i < EC_COUNT; i++) {
        PyObject *builtin[] = {NULL, PyExc_ValueError, PyExc_OSError, PyExc_MemoryError, PyExc_LookupError};
        PyObject *extra = builtin[ERROR_CLASSES[i].builtin];
        PyObject *bases = extra ? PyTuple_Pack(2, BspkitError, extra) : PyTuple_Pack(1, BspkitError);
        ErrorClasses[i] = bases ? PyErr_NewExceptionWithDoc(ERROR_CLASSES[i].name, ERROR_CLASSES[i].doc, bases, NULL)
                                : NULL;
        Py_XDECREF(bases);
        if (ErrorClasses[i] == NULL ||
            PyModule_AddObjectRef(m, strchr(ERROR_CLASSES[i].name, '.') + 1, ErrorClasses[i]) < 0) {
            Py_DECREF(m);
            return NULL;
        }
    }
    if (BspkitError == NULL || PyModule_AddObjectRef(m, "Error", BspkitError) < 0 ||
        PyModule_AddObjectRef(m, "Map", (PyObject *)&MapType) < 0 ||
        PyModule_AddObjectRef(m, "RecordBuffer", (PyObject *)&RecordBufferType) < 0 ||
        PyModule_AddStringConstant(m, "LIBRARY_VERSION", BSPKIT_VERSION_STRING) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
