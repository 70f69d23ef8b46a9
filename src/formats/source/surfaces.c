/* Source record arrays that hang off faces and leafs: water data,
 * primitives, vertex normals, face ids and macro textures, clip portal
 * vertices, level flags and the early portal/cluster lumps. Also the shared
 * machinery that decodes a record-array lump into an extras slot. */
#include "bspkit/source_lumps.h"
#include "core/map.h"
#include "core/table.h"
#include "formats/source/records.h"

#include <stdint.h>
#include <stdio.h>

/* ------------------------------------------------------------------------ */
/* Record arrays in extras slots                                             */
/* ------------------------------------------------------------------------ */

bspkit_result bk_decode_records(bspkit_map *map, const bk_array_spec *spec, bk_array_value *out, bspkit_error *err)
{
    out->items = NULL;
    out->count = 0;
    if (spec->lump < 0 || spec->lump >= map->lump_count)
        return BSPKIT_OK;
    const uint8_t *data;
    size_t size;
    bspkit_result r = bk_lump_bytes(map, spec->lump, &data, &size, err);
    if (r != BSPKIT_OK)
        return r;
    if (size == 0)
        return BSPKIT_OK;
    if (size % spec->record_size != 0) {
        uint64_t tail = size - size % spec->record_size;
        return bk_fail(err, BSPKIT_ERR_LUMP_SIZE, spec->lump, bk_file_offset(map, spec->lump, tail), (int64_t)tail,
                       "%s: %zu bytes is not a whole number of %u-byte records (partial record at lump offset %llu)",
                       bk_lump_name(map, spec->lump), size, spec->record_size, (unsigned long long)tail);
    }
    size_t n = size / spec->record_size;
    void *items = bk_keep_alloc(map, n, spec->native_size, spec->lump, err);
    if (!items)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    spec->decode(data, n, map->format.big_endian, items);
    out->items = items;
    out->count = n;
    return BSPKIT_OK;
}

bspkit_result bk_build_array(bspkit_map *map, const bk_array_spec *spec, const void **value, bspkit_error *err)
{
    bk_array_value *v = bk_keep_alloc(map, 1, sizeof *v, spec->lump, err);
    if (!v)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    bspkit_result r = bk_decode_records(map, spec, v, err);
    if (r == BSPKIT_OK)
        *value = v;
    return r;
}

bspkit_result bk_array_get(bspkit_map *map, bk_extra slot, bk_extra_build build, const void **items, size_t *count,
                           bspkit_error *err)
{
    bk_error_clear(err);
    *items = NULL;
    if (count)
        *count = 0;
    if (!map || !count)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "NULL argument");
    if (map->format.family != BSPKIT_FAMILY_SOURCE)
        return BSPKIT_OK;
    const void *value;
    bspkit_result r = bk_extra_get(map, slot, build, &value, err);
    if (r != BSPKIT_OK)
        return r;
    const bk_array_value *v = value;
    *items = v->items;
    *count = v->count;
    return BSPKIT_OK;
}

bspkit_result bk_source_value_get(bspkit_map *map, bk_extra slot, bk_extra_build build, const void *empty,
                                  const void **value, bspkit_error *err)
{
    bk_error_clear(err);
    *value = empty;
    if (!map)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "NULL argument");
    if (map->format.family != BSPKIT_FAMILY_SOURCE)
        return BSPKIT_OK;
    return bk_extra_get(map, slot, build, value, err);
}

/* ------------------------------------------------------------------------ */
/* Layouts per map                                                           */
/* ------------------------------------------------------------------------ */

static bool wide_lump(const bspkit_map *map, int lump)
{
    return (map->format.variant & BSPKIT_VARIANT_WIDE_LUMPS) && map->lumps[lump].version >= 1;
}

#define SPEC(lump, size, type, fn) ((bk_array_spec){(lump), (size), sizeof(type), (fn)})

/* 16-bit index arrays that Strata widens to 32 bits from lump version 1. */
static bk_array_spec index_spec(const bspkit_map *map, int lump)
{
    return wide_lump(map, lump) ? SPEC(lump, 4, uint32_t, bk_decode_u32) : SPEC(lump, 2, uint32_t, bk_decode_u16_as_u32);
}

static bk_array_spec prim_verts_spec(bspkit_map *map)
{
    (void)map;
    return SPEC(BSPKIT_S_PRIMVERTS, 12, bspkit_vec3, bk_decode_vertexes);
}

static bk_array_spec prim_indices_spec(bspkit_map *map) { return index_spec(map, BSPKIT_S_PRIMINDICES); }

static bk_array_spec vert_normals_spec(bspkit_map *map)
{
    (void)map;
    return SPEC(BSPKIT_S_VERTNORMALS, 12, bspkit_vec3, bk_decode_vertexes);
}

static bk_array_spec face_ids_spec(bspkit_map *map)
{
    /* Strata maps store 32-bit ids while still labelling the lump version 0:
     * the byte count (4 per face) tells them apart. */
    if (map->format.variant & BSPKIT_VARIANT_WIDE_LUMPS) {
        const bk_lump *faces = &map->lumps[BSPKIT_S_FACES];
        uint64_t nfaces = faces->layout.record_size ? faces->uncompressed_length / faces->layout.record_size : 0;
        uint64_t len = map->lumps[BSPKIT_S_FACEIDS].uncompressed_length;
        if (map->lumps[BSPKIT_S_FACEIDS].version >= 1 || (nfaces && len == 4 * nfaces))
            return SPEC(BSPKIT_S_FACEIDS, 4, uint32_t, bk_decode_u32);
    }
    return SPEC(BSPKIT_S_FACEIDS, 2, uint32_t, bk_decode_u16_as_u32);
}

static bk_array_spec clip_portal_verts_spec(bspkit_map *map)
{
    (void)map;
    return SPEC(BSPKIT_S_CLIPPORTALVERTS, 12, bspkit_vec3, bk_decode_vertexes);
}

/* Lumps 22-25 carry portals and clusters only up to VBSP 19. */
static bool has_portal_lumps(const bspkit_map *map) { return map->format.version <= 19; }

static bk_array_spec portal_verts_spec(bspkit_map *map)
{
    return SPEC(has_portal_lumps(map) ? 24 : -1, 12, bspkit_vec3, bk_decode_vertexes);
}

static bk_array_spec cluster_portals_spec(bspkit_map *map)
{
    return SPEC(has_portal_lumps(map) ? 25 : -1, 2, uint32_t, bk_decode_u16_as_u32);
}

BK_SOURCE_ARRAY_ACCESSOR(bspkit_get_leaf_water, bspkit_leaf_water, EX_LEAF_WATER, BSPKIT_S_LEAFWATERDATA)
BK_SOURCE_ARRAY_ACCESSOR(bspkit_get_leaf_min_dist_to_water, uint16_t, EX_LEAF_MIN_DIST_TO_WATER,
                         BSPKIT_S_LEAFMINDISTTOWATER)
BK_SOURCE_ARRAY_ACCESSOR(bspkit_get_primitives, bspkit_primitive, EX_PRIMITIVES, BSPKIT_S_PRIMITIVES)
BK_ARRAY_ACCESSOR(bspkit_get_prim_verts, bspkit_vec3, EX_PRIM_VERTS, prim_verts_spec)
BK_ARRAY_ACCESSOR(bspkit_get_prim_indices, uint32_t, EX_PRIM_INDICES, prim_indices_spec)
BK_ARRAY_ACCESSOR(bspkit_get_vert_normals, bspkit_vec3, EX_VERT_NORMALS, vert_normals_spec)
BK_ARRAY_ACCESSOR(bspkit_get_face_ids, uint32_t, EX_FACE_IDS, face_ids_spec)
BK_SOURCE_ARRAY_ACCESSOR(bspkit_get_face_macro_texinfo, uint16_t, EX_FACE_MACRO_TEXINFO,
                         BSPKIT_S_FACE_MACRO_TEXTURE_INFO)
BK_ARRAY_ACCESSOR(bspkit_get_clip_portal_verts, bspkit_vec3, EX_CLIP_PORTAL_VERTS, clip_portal_verts_spec)
BK_SOURCE_ARRAY_ACCESSOR(bspkit_get_portals, bspkit_portal, EX_PORTALS, 22)
BK_SOURCE_ARRAY_ACCESSOR(bspkit_get_clusters, bspkit_cluster, EX_CLUSTERS, 23)
BK_ARRAY_ACCESSOR(bspkit_get_portal_verts, bspkit_vec3, EX_PORTAL_VERTS, portal_verts_spec)
BK_ARRAY_ACCESSOR(bspkit_get_cluster_portals, uint32_t, EX_CLUSTER_PORTALS, cluster_portals_spec)

/* ------------------------------------------------------------------------ */
/* Vertex normal indices and per-face lookup                                 */
/* ------------------------------------------------------------------------ */

/* The index array plus, computed on the first per-face query, where each
 * face's run of indices starts. `arr` comes first so bk_array_get can read
 * the value as a bk_array_value. */
typedef struct vni_value {
    bk_array_value arr;
    bool starts_done;
    bspkit_result starts_result;
    bspkit_error starts_error;
    uint32_t *face_first; /* face_count + 1 entries */
    size_t face_count;
} vni_value;

static bspkit_result build_vni(bspkit_map *map, const void **value, bspkit_error *err)
{
    vni_value *v = bk_keep_alloc(map, 1, sizeof *v, BSPKIT_S_VERTNORMALINDICES, err);
    if (!v)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    bk_array_spec spec = index_spec(map, BSPKIT_S_VERTNORMALINDICES);
    bspkit_result r = bk_decode_records(map, &spec, &v->arr, err);
    if (r == BSPKIT_OK)
        *value = v;
    return r;
}

bspkit_result bspkit_get_vert_normal_indices(bspkit_map *map, const uint32_t **out, size_t *count, bspkit_error *err)
{
    const void *items = NULL;
    bspkit_result r = bk_array_get(map, EX_VERT_NORMAL_INDICES, build_vni, &items, count, err);
    if (out)
        *out = items;
    return r;
}

static bspkit_result compute_face_starts(bspkit_map *map, vni_value *v, bspkit_error *err)
{
    const bspkit_face *faces;
    size_t nfaces;
    bspkit_result r = bspkit_get_faces(map, &faces, &nfaces, err);
    if (r == BSPKIT_OK && nfaces == 0)
        r = bspkit_get_hdr_faces(map, &faces, &nfaces, err); /* HDR-only maps (Xbox 360) */
    if (r != BSPKIT_OK)
        return r;
    uint32_t *first = bk_keep_alloc(map, nfaces + 1, sizeof *first, BSPKIT_S_VERTNORMALINDICES, err);
    if (!first)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    uint64_t total = 0;
    for (size_t f = 0; f < nfaces; f++) {
        first[f] = (uint32_t)total;
        if (faces[f].num_edges < 0 || total + (uint64_t)faces[f].num_edges > v->arr.count)
            return bk_fail(err, BSPKIT_ERR_INDEX, BSPKIT_S_VERTNORMALINDICES, -1, -1,
                           "VERTNORMALINDICES: face %zu needs entries %llu..%llu but the lump has %zu", f,
                           (unsigned long long)total, (unsigned long long)(total + (uint64_t)faces[f].num_edges),
                           v->arr.count);
        total += (uint64_t)faces[f].num_edges;
    }
    first[nfaces] = (uint32_t)total;
    if (total != v->arr.count)
        return bk_fail(err, BSPKIT_ERR_INDEX, BSPKIT_S_VERTNORMALINDICES, -1, -1,
                       "VERTNORMALINDICES: faces use %llu entries but the lump has %zu", (unsigned long long)total,
                       v->arr.count);
    v->face_first = first;
    v->face_count = nfaces;
    return BSPKIT_OK;
}

bspkit_result bspkit_face_vertex_normal(bspkit_map *map, size_t face, uint32_t k, bspkit_vec3 *normal,
                                        uint32_t *index, bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !normal)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "NULL argument");
    if (map->format.family != BSPKIT_FAMILY_SOURCE)
        return bk_fail(err, BSPKIT_ERR_NOT_FOUND, -1, -1, -1, "vertex normals exist in Source maps only");
    const void *value;
    bspkit_result r = bk_extra_get(map, EX_VERT_NORMAL_INDICES, build_vni, &value, err);
    if (r != BSPKIT_OK)
        return r;
    /* The slot's memory belongs to the map; the starts are filled in once, here. */
    vni_value *v = (vni_value *)(uintptr_t)value;
    if (!v->starts_done) {
        v->starts_done = true;
        bk_error_clear(&v->starts_error);
        v->starts_result = compute_face_starts(map, v, &v->starts_error);
    }
    if (v->starts_result != BSPKIT_OK) {
        bk_error_copy(err, &v->starts_error);
        return v->starts_result;
    }
    if (face >= v->face_count)
        return bk_fail(err, BSPKIT_ERR_INDEX, BSPKIT_S_VERTNORMALINDICES, -1, -1, "face %zu out of range (%zu faces)",
                       face, v->face_count);
    uint32_t n = v->face_first[face + 1] - v->face_first[face];
    if (k >= n)
        return bk_fail(err, BSPKIT_ERR_INDEX, BSPKIT_S_VERTNORMALINDICES, -1, -1,
                       "vertex %u out of range: face %zu has %u", k, face, n);
    uint32_t ni = ((const uint32_t *)v->arr.items)[v->face_first[face] + k];
    const bspkit_vec3 *normals;
    size_t nnormals;
    r = bspkit_get_vert_normals(map, &normals, &nnormals, err);
    if (r != BSPKIT_OK)
        return r;
    if (ni >= nnormals)
        return bk_fail(err, BSPKIT_ERR_INDEX, BSPKIT_S_VERTNORMALINDICES, -1, -1,
                       "face %zu vertex %u: normal index %u out of range (%zu normals)", face, k, ni, nnormals);
    *normal = normals[ni];
    if (index)
        *index = ni;
    return BSPKIT_OK;
}

/* ------------------------------------------------------------------------ */
/* Level flags                                                               */
/* ------------------------------------------------------------------------ */

static bspkit_result build_map_flags(bspkit_map *map, const void **value, bspkit_error *err)
{
    const uint8_t *data;
    size_t size;
    bspkit_result r = bk_lump_bytes(map, BSPKIT_S_MAP_FLAGS, &data, &size, err);
    if (r != BSPKIT_OK)
        return r;
    bk_array_value *v = bk_keep_alloc(map, 1, sizeof *v, BSPKIT_S_MAP_FLAGS, err);
    if (!v)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    if (size > 0) {
        if (size < 4)
            return bk_fail(err, BSPKIT_ERR_LUMP_SIZE, BSPKIT_S_MAP_FLAGS, bk_file_offset(map, BSPKIT_S_MAP_FLAGS, 0), 0,
                           "MAP_FLAGS: %zu bytes, dflagslump_t needs 4", size);
        uint32_t *flags = bk_keep_alloc(map, 1, sizeof *flags, BSPKIT_S_MAP_FLAGS, err);
        if (!flags)
            return err ? err->code : BSPKIT_ERR_NOMEM;
        *flags = rd_u32(data, map->format.big_endian);
        v->items = flags;
        v->count = 1;
    }
    *value = v;
    return BSPKIT_OK;
}

bspkit_result bspkit_get_map_flags(bspkit_map *map, uint32_t *flags, size_t *count, bspkit_error *err)
{
    const void *items = NULL;
    if (flags)
        *flags = 0;
    bspkit_result r = bk_array_get(map, EX_MAP_FLAGS, build_map_flags, &items, count, err);
    if (r == BSPKIT_OK && items && flags)
        *flags = *(const uint32_t *)items;
    return r;
}

/* ------------------------------------------------------------------------ */
/* Dump tables                                                               */
/* ------------------------------------------------------------------------ */

#define F(type, member, name, ftype) BK_FIELD(type, member, name, ftype)
#define FN(type, member, name, ftype, n) BK_FIELDS(type, member, name, ftype, n)

static const bspkit_field PHYS_MODEL_FIELDS[] = {
    F(bspkit_phys_model, model_index, "modelIndex", BSPKIT_FIELD_I32),
    F(bspkit_phys_model, data_size, "dataSize", BSPKIT_FIELD_I32),
    F(bspkit_phys_model, keydata_size, "keydataSize", BSPKIT_FIELD_I32),
    F(bspkit_phys_model, solid_count, "solidCount", BSPKIT_FIELD_I32),
    F(bspkit_phys_model, offset, "offset", BSPKIT_FIELD_U64),
    F(bspkit_phys_model, first_solid, "firstSolid", BSPKIT_FIELD_U64),
};

static const bspkit_field PHYS_SOLID_FIELDS[] = {
    F(bspkit_phys_solid, offset, "offset", BSPKIT_FIELD_U64),
    F(bspkit_phys_solid, size, "size", BSPKIT_FIELD_U32),
    FN(bspkit_phys_solid, id, "id", BSPKIT_FIELD_CHARS, 5),
};

static const bspkit_field PHYSDISP_FIELDS[] = {
    F(bspkit_physdisp_entry, offset, "offset", BSPKIT_FIELD_U64),
    F(bspkit_physdisp_entry, size, "dataSize", BSPKIT_FIELD_U32),
};

static const bspkit_field PROP_COLLISION_FIELDS[] = {
    F(bspkit_prop_collision_entry, hull_count, "m_nHullCount", BSPKIT_FIELD_I32),
    F(bspkit_prop_collision_entry, hull_start, "m_nHullStart", BSPKIT_FIELD_I32),
};

static const bspkit_field PROP_HULL_FIELDS[] = {
    F(bspkit_prop_hull, vert_count, "m_nVertCount", BSPKIT_FIELD_I32),
    F(bspkit_prop_hull, vert_start, "m_nVertStart", BSPKIT_FIELD_I32),
    F(bspkit_prop_hull, surface_prop, "m_nSurfaceProp", BSPKIT_FIELD_I32),
    F(bspkit_prop_hull, contents, "m_nContents", BSPKIT_FIELD_U32),
};

static const bspkit_field PROP_TRIS_FIELDS[] = {
    F(bspkit_prop_hull_tris, index_start, "m_nIndexStart", BSPKIT_FIELD_I32),
    F(bspkit_prop_hull_tris, index_count, "m_nIndexCount", BSPKIT_FIELD_I32),
};

static const bspkit_field VEC3_FIELDS[] = {{"point", BSPKIT_FIELD_VEC3, 0, 1}};
static const bspkit_field NORMAL_FIELDS[] = {{"normal", BSPKIT_FIELD_VEC3, 0, 1}};
static const bspkit_field I32_INDEX_FIELDS[] = {{"index", BSPKIT_FIELD_I32, 0, 1}};
static const bspkit_field U32_INDEX_FIELDS[] = {{"index", BSPKIT_FIELD_U32, 0, 1}};
static const bspkit_field FACE_ID_FIELDS[] = {{"hammerfaceid", BSPKIT_FIELD_U32, 0, 1}};
static const bspkit_field MAP_FLAGS_FIELDS[] = {{"m_LevelFlags", BSPKIT_FIELD_U32, 0, 1}};

#define ADD(out, name, fields, items, count) \
    bk_dump_add_table((out), (name), (fields), BK_COUNT_OF(fields), (items), sizeof *(items), (count))

static bspkit_result tables_arrays(bspkit_map *map, int lump, bspkit_dump *out, bspkit_error *err)
{
    bspkit_result r = BSPKIT_ERR_NOT_FOUND;
    size_t n = 0;
    switch (lump) {
    case BSPKIT_S_OVERLAYS: BK_SOURCE_RECORDS_TABLE(bspkit_get_overlays, bspkit_overlay);
        break;
    case BSPKIT_S_WATEROVERLAYS: BK_SOURCE_RECORDS_TABLE(bspkit_get_water_overlays, bspkit_water_overlay);
        break;
    case BSPKIT_S_OVERLAY_FADES: BK_SOURCE_RECORDS_TABLE(bspkit_get_overlay_fades, bspkit_overlay_fade);
        break;
    case BSPKIT_S_OVERLAY_SYSTEM_LEVELS:
        BK_SOURCE_RECORDS_TABLE(bspkit_get_overlay_system_levels, bspkit_overlay_system_level);
        break;
    case BSPKIT_S_LEAFWATERDATA: BK_SOURCE_RECORDS_TABLE(bspkit_get_leaf_water, bspkit_leaf_water);
        break;
    case BSPKIT_S_PRIMITIVES: BK_SOURCE_RECORDS_TABLE(bspkit_get_primitives, bspkit_primitive);
        break;
    case BSPKIT_S_LEAFMINDISTTOWATER:
        BK_SOURCE_RECORDS_TABLE(bspkit_get_leaf_min_dist_to_water, uint16_t);
        break;
    case BSPKIT_S_FACE_MACRO_TEXTURE_INFO:
        BK_SOURCE_RECORDS_TABLE(bspkit_get_face_macro_texinfo, uint16_t);
        break;
    case BSPKIT_S_PRIMVERTS:
    case BSPKIT_S_VERTNORMALS:
    case BSPKIT_S_CLIPPORTALVERTS: {
        const bspkit_vec3 *p;
        r = lump == BSPKIT_S_PRIMVERTS     ? bspkit_get_prim_verts(map, &p, &n, err)
            : lump == BSPKIT_S_VERTNORMALS ? bspkit_get_vert_normals(map, &p, &n, err)
                                           : bspkit_get_clip_portal_verts(map, &p, &n, err);
        if (r == BSPKIT_OK) {
            if (lump == BSPKIT_S_VERTNORMALS)
                ADD(out, "records", NORMAL_FIELDS, p, n);
            else
                ADD(out, "records", VEC3_FIELDS, p, n);
        }
        break;
    }
    case BSPKIT_S_PRIMINDICES:
    case BSPKIT_S_VERTNORMALINDICES:
    case BSPKIT_S_FACEIDS: {
        const uint32_t *p;
        r = lump == BSPKIT_S_PRIMINDICES         ? bspkit_get_prim_indices(map, &p, &n, err)
            : lump == BSPKIT_S_VERTNORMALINDICES ? bspkit_get_vert_normal_indices(map, &p, &n, err)
                                                 : bspkit_get_face_ids(map, &p, &n, err);
        if (r == BSPKIT_OK) {
            if (lump == BSPKIT_S_FACEIDS)
                ADD(out, "records", FACE_ID_FIELDS, p, n);
            else
                ADD(out, "records", U32_INDEX_FIELDS, p, n);
        }
        break;
    }
    default: break;
    }
    return r;
}

static bspkit_result tables_structured(bspkit_map *map, int lump, bspkit_dump *out, bspkit_error *err)
{
    bspkit_result r;
    size_t n;
    switch (lump) {
    case BSPKIT_S_OCCLUSION: {
        const bspkit_occlusion *o;
        if ((r = bspkit_get_occlusion(map, &o, err)) != BSPKIT_OK)
            return r;
        bk_dump_add_schema_table(out, "occluders", bk_source_occluder_schema(o->version), o->occluders,
                                 o->occluder_count);
        bk_dump_add_schema_table(out, "polys", &bk_source_occluder_poly, o->polys, o->poly_count);
        ADD(out, "vertexIndices", I32_INDEX_FIELDS, o->vertex_indices, o->vertex_index_count);
        if (o->version < 2)
            snprintf(out->note, sizeof out->note, "lump version %d: doccluderdata_t has no area (shown as -1)",
                     (int)o->version);
        return BSPKIT_OK;
    }
    case BSPKIT_S_PHYSCOLLIDE: {
        const bspkit_physcollide *pc;
        if ((r = bspkit_get_physcollide(map, &pc, err)) != BSPKIT_OK)
            return r;
        ADD(out, "models", PHYS_MODEL_FIELDS, pc->models, pc->model_count);
        ADD(out, "solids", PHYS_SOLID_FIELDS, pc->solids, pc->solid_count);
        return BSPKIT_OK;
    }
    case BSPKIT_S_PHYSDISP: {
        const bspkit_physdisp_entry *p;
        if ((r = bspkit_get_physdisp(map, &p, &n, err)) == BSPKIT_OK)
            ADD(out, "records", PHYSDISP_FIELDS, p, n);
        return r;
    }
    case BSPKIT_S_MAP_FLAGS: {
        const void *value;
        if ((r = bspkit_get_map_flags(map, NULL, &n, err)) != BSPKIT_OK)
            return r;
        /* The cached value holds the flags word; a table needs its address. */
        if ((r = bk_extra_get(map, EX_MAP_FLAGS, build_map_flags, &value, err)) != BSPKIT_OK)
            return r;
        const bk_array_value *v = value;
        bk_dump_add_table(out, "records", MAP_FLAGS_FIELDS, 1, v->items, sizeof(uint32_t), v->count);
        return BSPKIT_OK;
    }
    default: return BSPKIT_ERR_NOT_FOUND;
    }
}

static bspkit_result tables_22_25(bspkit_map *map, int lump, bspkit_dump *out, bspkit_error *err)
{
    bspkit_result r;
    size_t n;
    if (has_portal_lumps(map)) {
        switch (lump) {
        case 22: BK_SOURCE_RECORDS_TABLE(bspkit_get_portals, bspkit_portal);
            break;
        case 23: BK_SOURCE_RECORDS_TABLE(bspkit_get_clusters, bspkit_cluster);
            break;
        case 24: {
            const bspkit_vec3 *p;
            if ((r = bspkit_get_portal_verts(map, &p, &n, err)) == BSPKIT_OK)
                ADD(out, "records", VEC3_FIELDS, p, n);
            break;
        }
        default: {
            const uint32_t *p;
            if ((r = bspkit_get_cluster_portals(map, &p, &n, err)) == BSPKIT_OK)
                ADD(out, "records", U32_INDEX_FIELDS, p, n);
            break;
        }
        }
        return r;
    }
    if (map->format.version == 21 && (map->format.variant & BSPKIT_VARIANT_L4D2_DIRECTORY)) {
        const bspkit_prop_collision *pc;
        if ((r = bspkit_get_prop_collision(map, &pc, err)) != BSPKIT_OK)
            return r;
        if (lump == 22)
            ADD(out, "records", PROP_COLLISION_FIELDS, pc->collisions, pc->collision_count);
        else if (lump == 23)
            ADD(out, "records", PROP_HULL_FIELDS, pc->hulls, pc->hull_count);
        else if (lump == 24)
            ADD(out, "records", VEC3_FIELDS, pc->hull_verts, pc->hull_vert_count);
        else
            ADD(out, "records", PROP_TRIS_FIELDS, pc->tris, pc->tris_count);
        return BSPKIT_OK;
    }
    return BSPKIT_ERR_NOT_FOUND;
}

bspkit_result bk_tables_source(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out, bspkit_error *err)
{
    if (game_id || lump < 0 || map->format.family != BSPKIT_FAMILY_SOURCE)
        return BSPKIT_ERR_NOT_FOUND;
    if (lump >= 22 && lump <= 25)
        return tables_22_25(map, lump, out, err);
    bspkit_result r = tables_arrays(map, lump, out, err);
    if (r == BSPKIT_ERR_NOT_FOUND)
        r = tables_structured(map, lump, out, err);
    /* Strata overlays are decoded from the widened layout; say so. */
    if (r == BSPKIT_OK && (lump == BSPKIT_S_OVERLAYS || lump == BSPKIT_S_WATEROVERLAYS) &&
        wide_lump(map, lump))
        snprintf(out->note, sizeof out->note, "Strata layout: TexInfo int, FaceCountAndRenderOrder padded to 4 bytes");
    return r;
}
