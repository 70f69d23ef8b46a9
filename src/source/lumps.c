/* Source VBSP record layouts and decoders. The layout of a lump is chosen by
 * the BSP version, the lump's own version (LEAFS, and Strata's 32-bit index
 * lumps in v25) and, for brush sides, the Left 4 Dead 2 directory variant. */
#include "core/map.h"

static void decode_texdata(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_texdata *o = dst;
    for (size_t i = 0; i < n; i++, src += 32) {
        bk_rd_vec3(src, be, &o[i].reflectivity);
        o[i].name_id = rd_i32(src + 12, be);
        o[i].width = rd_i32(src + 16, be);
        o[i].height = rd_i32(src + 20, be);
        o[i].view_width = rd_i32(src + 24, be);
        o[i].view_height = rd_i32(src + 28, be);
    }
}

static void decode_nodes(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_node *o = dst;
    for (size_t i = 0; i < n; i++, src += 32) {
        o[i].plane = rd_i32(src, be);
        o[i].children[0] = rd_i32(src + 4, be);
        o[i].children[1] = rd_i32(src + 8, be);
        bk_rd_short3(src + 12, be, &o[i].mins);
        bk_rd_short3(src + 18, be, &o[i].maxs);
        o[i].first_face = rd_u16(src + 24, be);
        o[i].num_faces = rd_u16(src + 26, be);
        o[i].area = rd_i16(src + 28, be);
    }
}

static void decode_nodes_wide(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_node *o = dst;
    for (size_t i = 0; i < n; i++, src += 48) {
        o[i].plane = rd_i32(src, be);
        o[i].children[0] = rd_i32(src + 4, be);
        o[i].children[1] = rd_i32(src + 8, be);
        bk_rd_vec3(src + 12, be, &o[i].mins);
        bk_rd_vec3(src + 24, be, &o[i].maxs);
        o[i].first_face = rd_u32(src + 36, be);
        o[i].num_faces = rd_u32(src + 40, be);
        o[i].area = rd_i16(src + 44, be);
    }
}

static void decode_texinfo(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_texinfo *o = dst;
    for (size_t i = 0; i < n; i++, src += 72) {
        for (int a = 0; a < 2; a++)
            for (int k = 0; k < 4; k++) {
                o[i].texture_vecs[a][k] = rd_f32(src + 16 * a + 4 * k, be);
                o[i].lightmap_vecs[a][k] = rd_f32(src + 32 + 16 * a + 4 * k, be);
            }
        o[i].flags = rd_i32(src + 64, be);
        o[i].texture = rd_i32(src + 68, be);
    }
}

static void decode_faces(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_face *o = dst;
    for (size_t i = 0; i < n; i++, src += 56) {
        o[i].plane = rd_u16(src, be);
        o[i].side = src[2];
        o[i].on_node = src[3];
        o[i].first_edge = rd_i32(src + 4, be);
        o[i].num_edges = rd_i16(src + 8, be);
        o[i].texinfo = rd_i16(src + 10, be);
        o[i].dispinfo = rd_i16(src + 12, be);
        o[i].fog_volume = rd_i16(src + 14, be);
        memcpy(o[i].styles, src + 16, 4);
        o[i].light_offset = rd_i32(src + 20, be);
        o[i].area = rd_f32(src + 24, be);
        o[i].lightmap_mins[0] = rd_i32(src + 28, be);
        o[i].lightmap_mins[1] = rd_i32(src + 32, be);
        o[i].lightmap_size[0] = rd_i32(src + 36, be);
        o[i].lightmap_size[1] = rd_i32(src + 40, be);
        o[i].orig_face = rd_i32(src + 44, be);
        /* The top bit of the primitive count is a "no dynamic shadows" flag. */
        o[i].num_prims = rd_u16(src + 48, be) & 0x7FFFu;
        o[i].first_prim = rd_u16(src + 50, be);
        o[i].smoothing_groups = rd_u32(src + 52, be);
    }
}

/* Bloodlines (v17): 32 unknown bytes lead the record and lighting fields are not documented. */
static void decode_faces_v17(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_face *o = dst;
    for (size_t i = 0; i < n; i++, src += 104) {
        o[i].plane = rd_u16(src + 32, be);
        o[i].side = src[34];
        o[i].on_node = src[35];
        o[i].first_edge = rd_i32(src + 36, be);
        o[i].num_edges = rd_i16(src + 40, be);
        o[i].texinfo = rd_i16(src + 42, be);
        o[i].dispinfo = rd_i16(src + 44, be);
        o[i].fog_volume = -1;
        memset(o[i].styles, 255, 4);
        o[i].light_offset = -1;
        o[i].orig_face = rd_i32(src + 96, be);
        o[i].smoothing_groups = rd_u32(src + 100, be);
    }
}

static void decode_faces_wide(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_face *o = dst;
    for (size_t i = 0; i < n; i++, src += 72) {
        o[i].plane = rd_u32(src, be);
        o[i].side = src[4];
        o[i].on_node = src[5];
        o[i].first_edge = rd_i32(src + 8, be);
        o[i].num_edges = rd_i32(src + 12, be);
        o[i].texinfo = rd_i32(src + 16, be);
        o[i].dispinfo = rd_i32(src + 20, be);
        o[i].fog_volume = rd_i32(src + 24, be);
        memcpy(o[i].styles, src + 28, 4);
        o[i].light_offset = rd_i32(src + 32, be);
        o[i].area = rd_f32(src + 36, be);
        o[i].lightmap_mins[0] = rd_i32(src + 40, be);
        o[i].lightmap_mins[1] = rd_i32(src + 44, be);
        o[i].lightmap_size[0] = rd_i32(src + 48, be);
        o[i].lightmap_size[1] = rd_i32(src + 52, be);
        o[i].orig_face = rd_i32(src + 56, be);
        o[i].num_prims = rd_u32(src + 60, be) & 0x7FFFFFFFu;
        o[i].first_prim = rd_u32(src + 64, be);
        o[i].smoothing_groups = rd_u32(src + 68, be);
    }
}

/* Shared head of the 16-bit leaf layouts (versions 0 and 1). */
static void leaf_head(const uint8_t *src, bool be, bspkit_leaf *l)
{
    l->contents = rd_i32(src, be);
    l->cluster = rd_i16(src + 4, be);
    uint16_t bits = rd_u16(src + 6, be);
    l->area = bits & 0x1FF; /* area:9, flags:7 */
    l->flags = bits >> 9;
    bk_rd_short3(src + 8, be, &l->mins);
    bk_rd_short3(src + 14, be, &l->maxs);
    l->first_leaf_face = rd_u16(src + 20, be);
    l->num_leaf_faces = rd_u16(src + 22, be);
    l->first_leaf_brush = rd_u16(src + 24, be);
    l->num_leaf_brushes = rd_u16(src + 26, be);
    l->leaf_water = rd_i16(src + 28, be);
    l->vis_offset = -1;
}

static void decode_leafs_v1(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_leaf *o = dst;
    for (size_t i = 0; i < n; i++, src += 32)
        leaf_head(src, be, &o[i]);
}

static void decode_leafs_v0(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_leaf *o = dst;
    for (size_t i = 0; i < n; i++, src += 56) {
        leaf_head(src, be, &o[i]);
        o[i].has_ambient_cube = true;
        for (int k = 0; k < 6; k++) {
            const uint8_t *c = src + 30 + 4 * k;
            o[i].ambient_cube[k] = (bspkit_rgbexp){c[0], c[1], c[2], (int8_t)c[3]};
        }
    }
}

static void decode_leafs_wide(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_leaf *o = dst;
    for (size_t i = 0; i < n; i++, src += 56) {
        o[i].contents = rd_i32(src, be);
        o[i].cluster = rd_i32(src + 4, be);
        uint32_t bits = rd_u32(src + 8, be);
        o[i].area = (int32_t)(bits & 0x1FFFF); /* area:17, flags:15 */
        o[i].flags = (int32_t)(bits >> 17);
        bk_rd_vec3(src + 12, be, &o[i].mins);
        bk_rd_vec3(src + 24, be, &o[i].maxs);
        o[i].first_leaf_face = rd_u32(src + 36, be);
        o[i].num_leaf_faces = rd_u32(src + 40, be);
        o[i].first_leaf_brush = rd_u32(src + 44, be);
        o[i].num_leaf_brushes = rd_u32(src + 48, be);
        o[i].leaf_water = rd_i32(src + 52, be);
        o[i].vis_offset = -1;
    }
}

static void decode_edges(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_edge *o = dst;
    for (size_t i = 0; i < n; i++, src += 4) {
        o[i].v[0] = rd_u16(src, be);
        o[i].v[1] = rd_u16(src + 2, be);
    }
}

static void decode_edges_wide(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_edge *o = dst;
    for (size_t i = 0; i < n; i++, src += 8) {
        o[i].v[0] = rd_u32(src, be);
        o[i].v[1] = rd_u32(src + 4, be);
    }
}

static void decode_models(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_model *o = dst;
    for (size_t i = 0; i < n; i++, src += 48) {
        bk_rd_vec3(src, be, &o[i].mins);
        bk_rd_vec3(src + 12, be, &o[i].maxs);
        bk_rd_vec3(src + 24, be, &o[i].origin);
        o[i].headnode[0] = rd_i32(src + 36, be);
        o[i].headnode[1] = o[i].headnode[2] = o[i].headnode[3] = -1;
        o[i].first_face = rd_i32(src + 40, be);
        o[i].num_faces = rd_i32(src + 44, be);
    }
}

static void decode_brushes(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_brush *o = dst;
    for (size_t i = 0; i < n; i++, src += 12) {
        o[i].first_side = rd_i32(src, be);
        o[i].num_sides = rd_i32(src + 4, be);
        o[i].contents = rd_i32(src + 8, be);
    }
}

/* Up to v20 (and Left 4 Dead 2) `bevel` is a short; later games split it into bevel + thin bytes. */
static void decode_brushsides_short_bevel(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_brushside *o = dst;
    for (size_t i = 0; i < n; i++, src += 8) {
        o[i].plane = rd_u16(src, be);
        o[i].texinfo = rd_i16(src + 2, be);
        o[i].dispinfo = rd_i16(src + 4, be);
        o[i].bevel = rd_i16(src + 6, be) != 0;
    }
}

static void decode_brushsides_byte_bevel(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_brushside *o = dst;
    for (size_t i = 0; i < n; i++, src += 8) {
        o[i].plane = rd_u16(src, be);
        o[i].texinfo = rd_i16(src + 2, be);
        o[i].dispinfo = rd_i16(src + 4, be);
        o[i].bevel = src[6];
        o[i].thin = src[7];
    }
}

static void decode_brushsides_wide(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_brushside *o = dst;
    for (size_t i = 0; i < n; i++, src += 16) {
        o[i].plane = rd_u32(src, be);
        o[i].texinfo = rd_i32(src + 4, be);
        o[i].dispinfo = rd_i32(src + 8, be);
        o[i].bevel = src[12];
        o[i].thin = src[13];
    }
}

static void decode_areas(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_area *o = dst;
    for (size_t i = 0; i < n; i++, src += 8) {
        o[i].num_portals = rd_i32(src, be);
        o[i].first_portal = rd_i32(src + 4, be);
    }
}

static void decode_areaportals(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_areaportal *o = dst;
    for (size_t i = 0; i < n; i++, src += 12) {
        o[i].portal_key = rd_u16(src, be);
        o[i].other_area = rd_u16(src + 2, be);
        o[i].first_clip_vert = rd_u16(src + 4, be);
        o[i].num_clip_verts = rd_u16(src + 6, be);
        o[i].plane = rd_i32(src + 8, be);
    }
}

static void decode_areaportals_wide(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_areaportal *o = dst;
    for (size_t i = 0; i < n; i++, src += 20) {
        o[i].portal_key = rd_u32(src, be);
        o[i].other_area = rd_u32(src + 4, be);
        o[i].first_clip_vert = rd_u32(src + 8, be);
        o[i].num_clip_verts = rd_u32(src + 12, be);
        o[i].plane = rd_i32(src + 16, be);
    }
}

static void decode_cubemaps(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_cubemap *o = dst;
    for (size_t i = 0; i < n; i++, src += 16) {
        for (int k = 0; k < 3; k++)
            o[i].origin[k] = rd_i32(src + 4 * k, be);
        o[i].size = src[12]; /* an unsigned char followed by padding, in either byte order */
    }
}

#define LAYOUT(size, type, fn, dec) ((bk_layout){(size), sizeof(type), (fn), (dec), NULL})
#define RECORDS(size) ((bk_layout){(size), 0, NULL, -1, NULL})
#define NOT_ARRAY ((bk_layout){0, 0, NULL, -1, NULL})

static bk_layout face_layout(const bspkit_map *map, int32_t lump_version, bk_decoded dec)
{
    if (map->format.version == 17)
        return LAYOUT(104, bspkit_face, decode_faces_v17, dec);
    /* Strata widens every face lump, whatever version ORIGINALFACES carries. */
    (void)lump_version;
    if (map->format.variant & BSPKIT_VARIANT_WIDE_LUMPS)
        return LAYOUT(72, bspkit_face, decode_faces_wide, dec);
    return LAYOUT(56, bspkit_face, decode_faces, dec);
}

bk_layout bk_source_layout(const bspkit_map *map, int lump)
{
    int32_t v = map->lumps[lump].version;
    bool wide = (map->format.variant & BSPKIT_VARIANT_WIDE_LUMPS) && v >= 1;
    switch (lump) {
    case BSPKIT_S_PLANES: return LAYOUT(20, bspkit_plane, bk_decode_planes, DEC_PLANES);
    case BSPKIT_S_TEXDATA: return LAYOUT(32, bspkit_texdata, decode_texdata, DEC_TEXDATA);
    case BSPKIT_S_VERTEXES: return LAYOUT(12, bspkit_vec3, bk_decode_vertexes, DEC_VERTEXES);
    case BSPKIT_S_NODES:
        return wide ? LAYOUT(48, bspkit_node, decode_nodes_wide, DEC_NODES)
                    : LAYOUT(32, bspkit_node, decode_nodes, DEC_NODES);
    case BSPKIT_S_TEXINFO: return LAYOUT(72, bspkit_texinfo, decode_texinfo, DEC_TEXINFO);
    case BSPKIT_S_FACES: return face_layout(map, v, DEC_FACES);
    case BSPKIT_S_ORIGINALFACES: return face_layout(map, v, DEC_ORIG_FACES);
    case BSPKIT_S_FACES_HDR: return face_layout(map, v, DEC_HDR_FACES);
    case BSPKIT_S_LEAFS:
        /* The struct follows the lump version: 0 carries an inline light cube, 1 does not. */
        if (wide && v >= 2)
            return LAYOUT(56, bspkit_leaf, decode_leafs_wide, DEC_LEAFS);
        if (v == 0 && map->format.version > 17)
            return LAYOUT(56, bspkit_leaf, decode_leafs_v0, DEC_LEAFS);
        return LAYOUT(32, bspkit_leaf, decode_leafs_v1, DEC_LEAFS);
    case BSPKIT_S_EDGES:
        return wide ? LAYOUT(8, bspkit_edge, decode_edges_wide, DEC_EDGES)
                    : LAYOUT(4, bspkit_edge, decode_edges, DEC_EDGES);
    case BSPKIT_S_SURFEDGES: return LAYOUT(4, int32_t, bk_decode_i32, DEC_SURFEDGES);
    case BSPKIT_S_MODELS: return LAYOUT(48, bspkit_model, decode_models, DEC_MODELS);
    case BSPKIT_S_LEAFFACES:
        return wide ? LAYOUT(4, uint32_t, bk_decode_u32, DEC_LEAF_FACES)
                    : LAYOUT(2, uint32_t, bk_decode_u16_as_u32, DEC_LEAF_FACES);
    case BSPKIT_S_LEAFBRUSHES:
        return wide ? LAYOUT(4, uint32_t, bk_decode_u32, DEC_LEAF_BRUSHES)
                    : LAYOUT(2, uint32_t, bk_decode_u16_as_u32, DEC_LEAF_BRUSHES);
    case BSPKIT_S_BRUSHES: return LAYOUT(12, bspkit_brush, decode_brushes, DEC_BRUSHES);
    case BSPKIT_S_BRUSHSIDES:
        if (wide)
            return LAYOUT(16, bspkit_brushside, decode_brushsides_wide, DEC_BRUSHSIDES);
        if (map->format.version >= 21 && !(map->format.variant & BSPKIT_VARIANT_L4D2_DIRECTORY))
            return LAYOUT(8, bspkit_brushside, decode_brushsides_byte_bevel, DEC_BRUSHSIDES);
        return LAYOUT(8, bspkit_brushside, decode_brushsides_short_bevel, DEC_BRUSHSIDES);
    case BSPKIT_S_AREAS: return LAYOUT(8, bspkit_area, decode_areas, DEC_AREAS);
    case BSPKIT_S_AREAPORTALS:
        return wide ? LAYOUT(20, bspkit_areaportal, decode_areaportals_wide, DEC_AREAPORTALS)
                    : LAYOUT(12, bspkit_areaportal, decode_areaportals, DEC_AREAPORTALS);
    case BSPKIT_S_CUBEMAPS: return LAYOUT(16, bspkit_cubemap, decode_cubemaps, DEC_CUBEMAPS);
    case BSPKIT_S_TEXDATA_STRING_TABLE: return LAYOUT(4, int32_t, bk_decode_i32, DEC_STRING_TABLE);

    /* Record arrays decoded elsewhere or later; their sizes are still checked at open. */
    case BSPKIT_S_DISPINFO: return wide ? RECORDS(232) : RECORDS(176);
    case BSPKIT_S_DISP_VERTS: return RECORDS(20);
    case BSPKIT_S_DISP_TRIS: return RECORDS(2);
    case BSPKIT_S_VERTNORMALS: return RECORDS(12);
    case BSPKIT_S_VERTNORMALINDICES: return wide ? RECORDS(4) : RECORDS(2);
    case BSPKIT_S_CLIPPORTALVERTS: return RECORDS(12);
    case BSPKIT_S_PRIMVERTS: return RECORDS(12);
    case BSPKIT_S_PRIMINDICES: return wide ? RECORDS(4) : RECORDS(2);
    case BSPKIT_S_WORLDLIGHTS:
    case BSPKIT_S_WORLDLIGHTS_HDR: return v == 0 ? RECORDS(88) : v == 1 ? RECORDS(100) : NOT_ARRAY;
    case BSPKIT_S_LEAF_AMBIENT_INDEX:
    case BSPKIT_S_LEAF_AMBIENT_INDEX_HDR: return wide ? RECORDS(8) : RECORDS(4);
    case BSPKIT_S_LEAF_AMBIENT_LIGHTING:
    case BSPKIT_S_LEAF_AMBIENT_LIGHTING_HDR:
        /* Only version 1 is the 28-byte dleafambientlighting_t; some compilers wrote other data here. */
        return v == 1 ? RECORDS(28) : NOT_ARRAY;
    default: return NOT_ARRAY;
    }
}
