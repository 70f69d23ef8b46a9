/* Dump tables for the lumps the core reader decodes (the structs of
 * bspkit.h). A lump whose layout is declared as a schema (core/schema.h)
 * takes its table from there; the rest are written here with field names
 * from Source's bspfile.h. */
#include "core/schema.h"
#include "core/table.h"

#include <string.h>

#define F(type, member, name, ftype) BK_FIELD(type, member, name, ftype)
#define FN(type, member, name, ftype, n) BK_FIELDS(type, member, name, ftype, n)

static const bspkit_field PLANE[] = {
    F(bspkit_plane, normal, "normal", BSPKIT_FIELD_VEC3),
    F(bspkit_plane, dist, "dist", BSPKIT_FIELD_F32),
    F(bspkit_plane, type, "type", BSPKIT_FIELD_I32),
};
static const bspkit_field VERTEX[] = {{"point", BSPKIT_FIELD_VEC3, 0, 1}};
static const bspkit_field EDGE[] = {FN(bspkit_edge, v, "v", BSPKIT_FIELD_U32, 2)};
static const bspkit_field SURFEDGE[] = {{"surfedge", BSPKIT_FIELD_I32, 0, 1}};
static const bspkit_field LEAFFACE[] = {{"leafface", BSPKIT_FIELD_U32, 0, 1}};
static const bspkit_field LEAFBRUSH[] = {{"leafbrush", BSPKIT_FIELD_U32, 0, 1}};
static const bspkit_field STRING_TABLE[] = {{"offset", BSPKIT_FIELD_I32, 0, 1}};

static const bspkit_field FACE_SOURCE[] = {
    F(bspkit_face, plane, "planenum", BSPKIT_FIELD_U32),
    F(bspkit_face, side, "side", BSPKIT_FIELD_U8),
    F(bspkit_face, on_node, "onNode", BSPKIT_FIELD_U8),
    F(bspkit_face, first_edge, "firstedge", BSPKIT_FIELD_I32),
    F(bspkit_face, num_edges, "numedges", BSPKIT_FIELD_I32),
    F(bspkit_face, texinfo, "texinfo", BSPKIT_FIELD_I32),
    F(bspkit_face, dispinfo, "dispinfo", BSPKIT_FIELD_I32),
    F(bspkit_face, fog_volume, "surfaceFogVolumeID", BSPKIT_FIELD_I32),
    FN(bspkit_face, styles, "styles", BSPKIT_FIELD_U8, 4),
    F(bspkit_face, light_offset, "lightofs", BSPKIT_FIELD_I32),
    F(bspkit_face, area, "area", BSPKIT_FIELD_F32),
    FN(bspkit_face, lightmap_mins, "m_LightmapTextureMinsInLuxels", BSPKIT_FIELD_I32, 2),
    FN(bspkit_face, lightmap_size, "m_LightmapTextureSizeInLuxels", BSPKIT_FIELD_I32, 2),
    F(bspkit_face, orig_face, "origFace", BSPKIT_FIELD_I32),
    F(bspkit_face, num_prims, "m_NumPrims", BSPKIT_FIELD_U32),
    F(bspkit_face, first_prim, "firstPrimID", BSPKIT_FIELD_U32),
    F(bspkit_face, smoothing_groups, "smoothingGroups", BSPKIT_FIELD_U32),
};

static const bspkit_field NODE_SOURCE[] = {
    F(bspkit_node, plane, "planenum", BSPKIT_FIELD_I32),
    FN(bspkit_node, children, "children", BSPKIT_FIELD_I32, 2),
    F(bspkit_node, mins, "mins", BSPKIT_FIELD_VEC3),
    F(bspkit_node, maxs, "maxs", BSPKIT_FIELD_VEC3),
    F(bspkit_node, first_face, "firstface", BSPKIT_FIELD_U32),
    F(bspkit_node, num_faces, "numfaces", BSPKIT_FIELD_U32),
    F(bspkit_node, area, "area", BSPKIT_FIELD_I32),
};

static const bspkit_field LEAF_SOURCE[] = {
    F(bspkit_leaf, contents, "contents", BSPKIT_FIELD_I32),
    F(bspkit_leaf, cluster, "cluster", BSPKIT_FIELD_I32),
    F(bspkit_leaf, area, "area", BSPKIT_FIELD_I32),
    F(bspkit_leaf, flags, "flags", BSPKIT_FIELD_I32),
    F(bspkit_leaf, mins, "mins", BSPKIT_FIELD_VEC3),
    F(bspkit_leaf, maxs, "maxs", BSPKIT_FIELD_VEC3),
    F(bspkit_leaf, first_leaf_face, "firstleafface", BSPKIT_FIELD_U32),
    F(bspkit_leaf, num_leaf_faces, "numleaffaces", BSPKIT_FIELD_U32),
    F(bspkit_leaf, first_leaf_brush, "firstleafbrush", BSPKIT_FIELD_U32),
    F(bspkit_leaf, num_leaf_brushes, "numleafbrushes", BSPKIT_FIELD_U32),
    F(bspkit_leaf, leaf_water, "leafWaterDataID", BSPKIT_FIELD_I32),
    /* Only in LEAFS version 0; dropped from the table otherwise. */
    FN(bspkit_leaf, ambient_cube, "ambientLighting", BSPKIT_FIELD_RGBEXP, 6),
};

static const bspkit_field MODEL_SOURCE[] = {
    F(bspkit_model, mins, "mins", BSPKIT_FIELD_VEC3),
    F(bspkit_model, maxs, "maxs", BSPKIT_FIELD_VEC3),
    F(bspkit_model, origin, "origin", BSPKIT_FIELD_VEC3),
    F(bspkit_model, headnode, "headnode", BSPKIT_FIELD_I32),
    F(bspkit_model, first_face, "firstface", BSPKIT_FIELD_I32),
    F(bspkit_model, num_faces, "numfaces", BSPKIT_FIELD_I32),
};

static const bspkit_field TEXINFO_SOURCE[] = {
    FN(bspkit_texinfo, texture_vecs, "textureVecsTexelsPerWorldUnits", BSPKIT_FIELD_F32, 8),
    FN(bspkit_texinfo, lightmap_vecs, "lightmapVecsLuxelsPerWorldUnits", BSPKIT_FIELD_F32, 8),
    F(bspkit_texinfo, flags, "flags", BSPKIT_FIELD_I32),
    F(bspkit_texinfo, texture, "texdata", BSPKIT_FIELD_I32),
};

static const bspkit_field BRUSH[] = {
    F(bspkit_brush, first_side, "firstside", BSPKIT_FIELD_I32),
    F(bspkit_brush, num_sides, "numsides", BSPKIT_FIELD_I32),
    F(bspkit_brush, contents, "contents", BSPKIT_FIELD_I32),
};
static const bspkit_field BRUSHSIDE[] = {
    F(bspkit_brushside, plane, "planenum", BSPKIT_FIELD_U32),
    F(bspkit_brushside, texinfo, "texinfo", BSPKIT_FIELD_I32),
    F(bspkit_brushside, dispinfo, "dispinfo", BSPKIT_FIELD_I32),
    F(bspkit_brushside, bevel, "bevel", BSPKIT_FIELD_U8),
    F(bspkit_brushside, thin, "thin", BSPKIT_FIELD_U8),
};
static const bspkit_field TEXDATA[] = {
    F(bspkit_texdata, reflectivity, "reflectivity", BSPKIT_FIELD_VEC3),
    F(bspkit_texdata, name_id, "nameStringTableID", BSPKIT_FIELD_I32),
    F(bspkit_texdata, width, "width", BSPKIT_FIELD_I32),
    F(bspkit_texdata, height, "height", BSPKIT_FIELD_I32),
    F(bspkit_texdata, view_width, "view_width", BSPKIT_FIELD_I32),
    F(bspkit_texdata, view_height, "view_height", BSPKIT_FIELD_I32),
};
static const bspkit_field AREA[] = {
    F(bspkit_area, num_portals, "numareaportals", BSPKIT_FIELD_I32),
    F(bspkit_area, first_portal, "firstareaportal", BSPKIT_FIELD_I32),
};
static const bspkit_field AREAPORTAL[] = {
    F(bspkit_areaportal, portal_key, "m_PortalKey", BSPKIT_FIELD_U32),
    F(bspkit_areaportal, other_area, "otherarea", BSPKIT_FIELD_U32),
    F(bspkit_areaportal, first_clip_vert, "m_FirstClipPortalVert", BSPKIT_FIELD_U32),
    F(bspkit_areaportal, num_clip_verts, "m_nClipPortalVerts", BSPKIT_FIELD_U32),
    F(bspkit_areaportal, plane, "planenum", BSPKIT_FIELD_I32),
};
static const bspkit_field CUBEMAP[] = {
    FN(bspkit_cubemap, origin, "origin", BSPKIT_FIELD_I32, 3),
    F(bspkit_cubemap, size, "size", BSPKIT_FIELD_I32),
};
static const bspkit_field MIPTEX[] = {
    FN(bspkit_miptex, name, "name", BSPKIT_FIELD_CHARS, 17),
    F(bspkit_miptex, width, "width", BSPKIT_FIELD_U32),
    F(bspkit_miptex, height, "height", BSPKIT_FIELD_U32),
    FN(bspkit_miptex, mip_offsets, "offsets", BSPKIT_FIELD_U32, 4),
    F(bspkit_miptex, lump_offset, "lump_offset", BSPKIT_FIELD_I64),
    F(bspkit_miptex, embedded, "embedded", BSPKIT_FIELD_BOOL),
};
static const bspkit_field GAME_LUMP[] = {
    F(bspkit_game_lump, id, "id", BSPKIT_FIELD_FOURCC),
    F(bspkit_game_lump, flags, "flags", BSPKIT_FIELD_U16),
    F(bspkit_game_lump, version, "version", BSPKIT_FIELD_U16),
    F(bspkit_game_lump, offset, "fileofs", BSPKIT_FIELD_U32),
    F(bspkit_game_lump, length, "filelen", BSPKIT_FIELD_U32),
    F(bspkit_game_lump, uncompressed_length, "uncompressed_length", BSPKIT_FIELD_U32),
};

/* TEXDATA_STRING_DATA as the names the string table points at. */
typedef struct texture_name {
    int32_t offset;
    const char *name;
} texture_name;
static const bspkit_field TEXTURE_NAME[] = {
    F(texture_name, offset, "offset", BSPKIT_FIELD_I32),
    F(texture_name, name, "name", BSPKIT_FIELD_STRING),
};

/* Built once per map: a dump of the lump can be asked for any number of times. */
static bspkit_result build_texture_names(bspkit_map *map, const void **value, bspkit_error *err)
{
    const bspkit_texdata *td;
    size_t ntd;
    bspkit_result r = bspkit_get_texdata(map, &td, &ntd, err);
    if (r != BSPKIT_OK)
        return r;
    const int32_t *table;
    size_t ntable;
    r = bspkit_get_texdata_string_table(map, &table, &ntable, err);
    if (r != BSPKIT_OK)
        return r;
    bk_array_value *v = bk_keep_alloc(map, 1, sizeof *v, BSPKIT_S_TEXDATA_STRING_DATA, err);
    texture_name *names = v ? bk_keep_alloc(map, ntd, sizeof *names, BSPKIT_S_TEXDATA_STRING_DATA, err) : NULL;
    if (!names)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    for (size_t i = 0; i < ntd; i++) {
        int32_t id = td[i].name_id;
        names[i].offset = id >= 0 && (size_t)id < ntable ? table[id] : -1;
        names[i].name = bspkit_texdata_name(map, i);
    }
    v->items = names;
    v->count = ntd;
    *value = v;
    return BSPKIT_OK;
}

static bspkit_result string_data_table(bspkit_map *map, bspkit_dump *out, bspkit_error *err)
{
    const void *value;
    bspkit_result r = bk_extra_get(map, EX_TEXDATA_NAMES, build_texture_names, &value, err);
    if (r != BSPKIT_OK)
        return r;
    const bk_array_value *v = value;
    bk_dump_add_table(out, "texdata_names", TEXTURE_NAME, BK_COUNT_OF(TEXTURE_NAME), v->items, sizeof(texture_name),
                      v->count);
    return BSPKIT_OK;
}

typedef struct array_fields {
    const bspkit_field *fields;
    size_t count;
} array_fields;

#define BOTH(a) {a, BK_COUNT_OF(a)}

static array_fields fields_for(bk_decoded dec)
{
    switch (dec) {
    case DEC_PLANES: return (array_fields)BOTH(PLANE);
    case DEC_VERTEXES: return (array_fields)BOTH(VERTEX);
    case DEC_EDGES: return (array_fields)BOTH(EDGE);
    case DEC_SURFEDGES: return (array_fields)BOTH(SURFEDGE);
    case DEC_FACES:
    case DEC_ORIG_FACES:
    case DEC_HDR_FACES: return (array_fields)BOTH(FACE_SOURCE);
    case DEC_NODES: return (array_fields)BOTH(NODE_SOURCE);
    case DEC_LEAFS: return (array_fields)BOTH(LEAF_SOURCE);
    case DEC_MODELS: return (array_fields)BOTH(MODEL_SOURCE);
    case DEC_TEXINFO: return (array_fields)BOTH(TEXINFO_SOURCE);
    case DEC_LEAF_FACES: return (array_fields)BOTH(LEAFFACE);
    case DEC_LEAF_BRUSHES: return (array_fields)BOTH(LEAFBRUSH);
    case DEC_BRUSHES: return (array_fields)BOTH(BRUSH);
    case DEC_BRUSHSIDES: return (array_fields)BOTH(BRUSHSIDE);
    case DEC_TEXDATA: return (array_fields)BOTH(TEXDATA);
    case DEC_STRING_TABLE: return (array_fields)BOTH(STRING_TABLE);
    case DEC_AREAS: return (array_fields)BOTH(AREA);
    case DEC_AREAPORTALS: return (array_fields)BOTH(AREAPORTAL);
    case DEC_CUBEMAPS: return (array_fields)BOTH(CUBEMAP);
    default: return (array_fields){NULL, 0};
    }
}

bspkit_result bk_tables_core(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out, bspkit_error *err)
{
    if (game_id || lump < 0 || lump >= map->lump_count)
        return BSPKIT_ERR_NOT_FOUND;
    bool source = map->format.family == BSPKIT_FAMILY_SOURCE;
    const bk_layout *l = &map->lumps[lump].layout;
    if (l->decode && l->decoded >= 0 && l->schema) {
        const void *items;
        size_t n, nf;
        bspkit_result r = bk_get_array(map, (bk_decoded)l->decoded, lump, &items, &n, err);
        if (r != BSPKIT_OK)
            return r;
        const bspkit_field *fields = l->schema->dump_fields(&nf);
        bk_dump_add_table(out, "records", fields, nf, items, l->native_size, n);
        return BSPKIT_OK;
    }
    if (l->decode && l->decoded >= 0) {
        array_fields f = fields_for((bk_decoded)l->decoded);
        if (!f.fields)
            return BSPKIT_ERR_NOT_FOUND;
        const void *items;
        size_t n;
        bspkit_result r = bk_get_array(map, (bk_decoded)l->decoded, lump, &items, &n, err);
        if (r != BSPKIT_OK)
            return r;
        size_t nf = f.count;
        /* The inline ambient cube exists only in version-0 leafs. */
        if (source && l->decoded == DEC_LEAFS && n && !((const bspkit_leaf *)items)->has_ambient_cube)
            nf--;
        bk_dump_add_table(out, "records", f.fields, nf, items, l->native_size, n);
        return BSPKIT_OK;
    }
    if (source && lump == BSPKIT_S_TEXDATA_STRING_DATA)
        return string_data_table(map, out, err);
    if (source && lump == BSPKIT_S_GAME_LUMP) {
        const bspkit_game_lump *gl;
        size_t n;
        bspkit_result r = bspkit_get_game_lumps(map, &gl, &n, err);
        if (r != BSPKIT_OK)
            return r;
        bk_dump_add_table(out, "directory", GAME_LUMP, BK_COUNT_OF(GAME_LUMP), gl, sizeof *gl, n);
        return BSPKIT_OK;
    }
    if (!source && lump == BSPKIT_Q_TEXTURES) {
        const bspkit_miptex *mt;
        size_t n;
        bspkit_result r = bspkit_get_miptex(map, &mt, &n, err);
        if (r != BSPKIT_OK)
            return r;
        bk_dump_add_table(out, "miptex", MIPTEX, BK_COUNT_OF(MIPTEX), mt, sizeof *mt, n);
        return BSPKIT_OK;
    }
    return BSPKIT_ERR_NOT_FOUND;
}
