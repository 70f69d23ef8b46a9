/* Source record layouts: the one place each is written down. Strata Source
 * (v25, BSPKIT_VARIANT_WIDE_LUMPS) widens indices to 32 bits and bounds to
 * floats in lumps of version >= 1; Bloodlines (v17) has its own face record.
 * Planes, vertexes, surfedges and edges have the layouts every family shares
 * (core/records.c). */
#include "formats/source/records.h"

#include "core/map.h"
#include "core/records.h"

#define TEXDATA(F)                                                                                     \
    F(VEC3, .reflectivity, 1, "reflectivity")                                                          \
    F(I32, .name_id, 1, "nameStringTableID")                                                           \
    F(I32, .width, 1, "width")                                                                         \
    F(I32, .height, 1, "height")                                                                       \
    F(I32, .view_width, 1, "view_width")                                                               \
    F(I32, .view_height, 1, "view_height")
BK_SCHEMA(source_texdata, bspkit_texdata, 32, "texdata", TEXDATA);

#define TEXINFO(F)                                                                                     \
    F(DEFAULT, .next_texinfo, -1, "")                                                                  \
    F(MAT24, .texture_vecs, 1, "textureVecsTexelsPerWorldUnits")                                       \
    F(MAT24, .lightmap_vecs, 1, "lightmapVecsLuxelsPerWorldUnits")                                     \
    F(I32, .flags, 1, "flags")                                                                         \
    F(I32, .texture, 1, "texdata")
BK_SCHEMA(source_texinfo, bspkit_texinfo, 72, "texinfo", TEXINFO);

/* dcubemapsample_t: int origin[3]; unsigned char size; 3 pad bytes. */
#define CUBEMAP(F)                                                                                     \
    F(I32A, .origin, 3, "origin")                                                                      \
    F(U8, .size, 1, "size")                                                                            \
    F(PAD, , 3, "")
BK_SCHEMA(source_cubemap, bspkit_cubemap, 16, "cubemap", CUBEMAP);

#define STRING_TABLE(F) F(I32, , 1, "offset")
BK_SCHEMA(source_string_table, int32_t, 4, "string table entry", STRING_TABLE);

/* ---- 16-bit index layouts ---- */

#define LEAFFACE(F) F(U16, , 1, "leafface")
BK_SCHEMA(source_leafface, uint32_t, 2, "leaf face", LEAFFACE);

#define LEAFBRUSH(F) F(U16, , 1, "leafbrush")
BK_SCHEMA(source_leafbrush, uint32_t, 2, "leaf brush", LEAFBRUSH);

/* dface_t. The top bit of m_NumPrims is a "no dynamic shadows" flag. */
#define FACE(F)                                                                                        \
    F(U16, .plane, 1, "planenum")                                                                      \
    F(U8, .side, 1, "side")                                                                            \
    F(U8, .on_node, 1, "onNode")                                                                       \
    F(I32, .first_edge, 1, "firstedge")                                                                \
    F(I16, .num_edges, 1, "numedges")                                                                  \
    F(I16, .texinfo, 1, "texinfo")                                                                     \
    F(I16, .dispinfo, 1, "dispinfo")                                                                   \
    F(I16, .fog_volume, 1, "surfaceFogVolumeID")                                                       \
    F(U8A, .styles, 4, "styles")                                                                       \
    F(I32, .light_offset, 1, "lightofs")                                                               \
    F(F32, .area, 1, "area")                                                                           \
    F(I32A, .lightmap_mins, 2, "m_LightmapTextureMinsInLuxels")                                        \
    F(I32A, .lightmap_size, 2, "m_LightmapTextureSizeInLuxels")                                        \
    F(I32, .orig_face, 1, "origFace")                                                                  \
    F(U16MASK, .num_prims, 0x7FFF, "m_NumPrims")                                                       \
    F(U16, .first_prim, 1, "firstPrimID")                                                              \
    F(U32, .smoothing_groups, 1, "smoothingGroups")
BK_SCHEMA(source_face, bspkit_face, 56, "face", FACE);

/* Bloodlines: eight ColorRGBExp32 lead the record and its lighting fields are
 * undocumented, so only the fields it shares with dface_t are decoded; the
 * others take their "none" values. */
#define FACE_V17(F)                                                                                    \
    F(PAD, , 32, "")                                                                                   \
    F(U16, .plane, 1, "planenum")                                                                      \
    F(U8, .side, 1, "side")                                                                            \
    F(U8, .on_node, 1, "onNode")                                                                       \
    F(I32, .first_edge, 1, "firstedge")                                                                \
    F(I16, .num_edges, 1, "numedges")                                                                  \
    F(I16, .texinfo, 1, "texinfo")                                                                     \
    F(I16, .dispinfo, 1, "dispinfo")                                                                   \
    F(ABSENT, .fog_volume, -1, "surfaceFogVolumeID")                                                   \
    F(SKIP16, , 1, "")                                                                                 \
    F(PAD, , 24, "")                                                                                   \
    F(ABSENT_ARRAY, .styles, 255, "styles")                                                            \
    F(ABSENT, .light_offset, -1, "lightofs")                                                           \
    F(ABSENT, .area, 0, "area")                                                                        \
    F(ABSENT_ARRAY, .lightmap_mins, 0, "m_LightmapTextureMinsInLuxels")                                \
    F(ABSENT_ARRAY, .lightmap_size, 0, "m_LightmapTextureSizeInLuxels")                                \
    F(SKIP32, , 6, "")                                                                                 \
    F(I32, .orig_face, 1, "origFace")                                                                  \
    F(ABSENT, .num_prims, 0, "m_NumPrims")                                                             \
    F(ABSENT, .first_prim, 0, "firstPrimID")                                                           \
    F(U32, .smoothing_groups, 1, "smoothingGroups")
BK_SCHEMA(source_face_v17, bspkit_face, 104, "face", FACE_V17);

#define NODE(F)                                                                                        \
    F(I32, .plane, 1, "planenum")                                                                      \
    F(I32A, .children, 2, "children")                                                                  \
    F(BMIN16, .mins, 1, "mins")                                                                        \
    F(BMAX16, .maxs, 1, "maxs")                                                                        \
    F(U16, .first_face, 1, "firstface")                                                                \
    F(U16, .num_faces, 1, "numfaces")                                                                  \
    F(I16, .area, 1, "area")                                                                           \
    F(PAD, , 2, "")
BK_SCHEMA(source_node, bspkit_node, 32, "node", NODE);

/* dleaf_t; version 0 adds the inline CompressedLightCube. */
#define LEAF_HEAD(F)                                                                                   \
    F(DEFAULT, .vis_offset, -1, "")                                                                    \
    F(I32, .contents, 1, "contents")                                                                   \
    F(I16, .cluster, 1, "cluster")                                                                     \
    F(AREAFLAGS16, , 1, "")                                                                            \
    F(BMIN16, .mins, 1, "mins")                                                                        \
    F(BMAX16, .maxs, 1, "maxs")                                                                        \
    F(U16, .first_leaf_face, 1, "firstleafface")                                                       \
    F(U16, .num_leaf_faces, 1, "numleaffaces")                                                         \
    F(U16, .first_leaf_brush, 1, "firstleafbrush")                                                     \
    F(U16, .num_leaf_brushes, 1, "numleafbrushes")                                                     \
    F(I16, .leaf_water, 1, "leafWaterDataID")
#define LEAF_V0(F)                                                                                     \
    LEAF_HEAD(F)                                                                                       \
    F(DEFAULT, .has_ambient_cube, true, "")                                                            \
    F(RGBEXPA, .ambient_cube, 6, "ambientLighting")                                                    \
    F(PAD, , 2, "")
BK_SCHEMA(source_leaf_v0, bspkit_leaf, 56, "leaf", LEAF_V0);
#define LEAF_V1(F)                                                                                     \
    LEAF_HEAD(F)                                                                                       \
    F(PAD, , 2, "")
BK_SCHEMA(source_leaf_v1, bspkit_leaf, 32, "leaf", LEAF_V1);

/* Up to v20 (and Left 4 Dead 2) `bevel` is a short; later games split it into bevel + thin bytes. */
#define BRUSHSIDE_SHORT_BEVEL(F)                                                                       \
    F(U16, .plane, 1, "planenum")                                                                      \
    F(I16, .texinfo, 1, "texinfo")                                                                     \
    F(I16, .dispinfo, 1, "dispinfo")                                                                   \
    F(BOOL16, .bevel, 1, "bevel")                                                                      \
    F(ABSENT, .thin, 0, "thin")
BK_SCHEMA(source_brushside_short_bevel, bspkit_brushside, 8, "brush side", BRUSHSIDE_SHORT_BEVEL);
#define BRUSHSIDE_BYTE_BEVEL(F)                                                                        \
    F(U16, .plane, 1, "planenum")                                                                      \
    F(I16, .texinfo, 1, "texinfo")                                                                     \
    F(I16, .dispinfo, 1, "dispinfo")                                                                   \
    F(U8, .bevel, 1, "bevel")                                                                          \
    F(U8, .thin, 1, "thin")
BK_SCHEMA(source_brushside_byte_bevel, bspkit_brushside, 8, "brush side", BRUSHSIDE_BYTE_BEVEL);

#define AREAPORTAL(F)                                                                                  \
    F(U16, .portal_key, 1, "m_PortalKey")                                                              \
    F(U16, .other_area, 1, "otherarea")                                                                \
    F(U16, .first_clip_vert, 1, "m_FirstClipPortalVert")                                               \
    F(U16, .num_clip_verts, 1, "m_nClipPortalVerts")                                                   \
    F(I32, .plane, 1, "planenum")
BK_SCHEMA(source_areaportal, bspkit_areaportal, 12, "area portal", AREAPORTAL);

/* ---- Strata Source 32-bit layouts ---- */

#define LEAFFACE_WIDE(F) F(U32, , 1, "leafface")
BK_SCHEMA(source_leafface_wide, uint32_t, 4, "leaf face", LEAFFACE_WIDE);

#define LEAFBRUSH_WIDE(F) F(U32, , 1, "leafbrush")
BK_SCHEMA(source_leafbrush_wide, uint32_t, 4, "leaf brush", LEAFBRUSH_WIDE);

/* side and onNode are followed by two pad bytes. */
#define FACE_WIDE(F)                                                                                   \
    F(U32, .plane, 1, "planenum")                                                                      \
    F(U8, .side, 1, "side")                                                                            \
    F(U8, .on_node, 1, "onNode")                                                                       \
    F(PAD, , 2, "")                                                                                    \
    F(I32, .first_edge, 1, "firstedge")                                                                \
    F(I32, .num_edges, 1, "numedges")                                                                  \
    F(I32, .texinfo, 1, "texinfo")                                                                     \
    F(I32, .dispinfo, 1, "dispinfo")                                                                   \
    F(I32, .fog_volume, 1, "surfaceFogVolumeID")                                                       \
    F(U8A, .styles, 4, "styles")                                                                       \
    F(I32, .light_offset, 1, "lightofs")                                                               \
    F(F32, .area, 1, "area")                                                                           \
    F(I32A, .lightmap_mins, 2, "m_LightmapTextureMinsInLuxels")                                        \
    F(I32A, .lightmap_size, 2, "m_LightmapTextureSizeInLuxels")                                        \
    F(I32, .orig_face, 1, "origFace")                                                                  \
    F(U32MASK, .num_prims, 0x7FFFFFFF, "m_NumPrims")                                                   \
    F(U32, .first_prim, 1, "firstPrimID")                                                              \
    F(U32, .smoothing_groups, 1, "smoothingGroups")
BK_SCHEMA(source_face_wide, bspkit_face, 72, "face", FACE_WIDE);

#define NODE_WIDE(F)                                                                                   \
    F(I32, .plane, 1, "planenum")                                                                      \
    F(I32A, .children, 2, "children")                                                                  \
    F(VEC3, .mins, 1, "mins")                                                                          \
    F(VEC3, .maxs, 1, "maxs")                                                                          \
    F(U32, .first_face, 1, "firstface")                                                                \
    F(U32, .num_faces, 1, "numfaces")                                                                  \
    F(I16, .area, 1, "area")                                                                           \
    F(PAD, , 2, "")
BK_SCHEMA(source_node_wide, bspkit_node, 48, "node", NODE_WIDE);

#define LEAF_WIDE(F)                                                                                   \
    F(DEFAULT, .vis_offset, -1, "")                                                                    \
    F(I32, .contents, 1, "contents")                                                                   \
    F(I32, .cluster, 1, "cluster")                                                                     \
    F(AREAFLAGS32, , 1, "")                                                                            \
    F(VEC3, .mins, 1, "mins")                                                                          \
    F(VEC3, .maxs, 1, "maxs")                                                                          \
    F(U32, .first_leaf_face, 1, "firstleafface")                                                       \
    F(U32, .num_leaf_faces, 1, "numleaffaces")                                                         \
    F(U32, .first_leaf_brush, 1, "firstleafbrush")                                                     \
    F(U32, .num_leaf_brushes, 1, "numleafbrushes")                                                     \
    F(I32, .leaf_water, 1, "leafWaterDataID")
BK_SCHEMA(source_leaf_wide, bspkit_leaf, 56, "leaf", LEAF_WIDE);

#define BRUSHSIDE_WIDE(F)                                                                              \
    F(U32, .plane, 1, "planenum")                                                                      \
    F(I32, .texinfo, 1, "texinfo")                                                                     \
    F(I32, .dispinfo, 1, "dispinfo")                                                                   \
    F(U8, .bevel, 1, "bevel")                                                                          \
    F(U8, .thin, 1, "thin")                                                                            \
    F(PAD, , 2, "")
BK_SCHEMA(source_brushside_wide, bspkit_brushside, 16, "brush side", BRUSHSIDE_WIDE);

#define AREAPORTAL_WIDE(F)                                                                             \
    F(U32, .portal_key, 1, "m_PortalKey")                                                              \
    F(U32, .other_area, 1, "otherarea")                                                                \
    F(U32, .first_clip_vert, 1, "m_FirstClipPortalVert")                                               \
    F(U32, .num_clip_verts, 1, "m_nClipPortalVerts")                                                   \
    F(I32, .plane, 1, "planenum")
BK_SCHEMA(source_areaportal_wide, bspkit_areaportal, 20, "area portal", AREAPORTAL_WIDE);

/* ---- which layout ---- */

const bk_schema *bk_source_schema(int32_t version, uint32_t variant, int lump, int32_t lump_version)
{
    bool wide_map = (variant & BSPKIT_VARIANT_WIDE_LUMPS) != 0;
    bool wide = wide_map && lump_version >= 1;
    switch (lump) {
    case BSPKIT_S_PLANES: return &bk_plane_schema;
    case BSPKIT_S_TEXDATA: return &source_texdata;
    case BSPKIT_S_VERTEXES: return &bk_vertex_schema;
    case BSPKIT_S_NODES: return wide ? &source_node_wide : &source_node;
    case BSPKIT_S_TEXINFO: return &source_texinfo;
    case BSPKIT_S_FACES:
    case BSPKIT_S_ORIGINALFACES:
    case BSPKIT_S_FACES_HDR:
        if (version == 17)
            return &source_face_v17;
        /* Strata widens every face lump, whatever version it carries. */
        return wide_map ? &source_face_wide : &source_face;
    case BSPKIT_S_LEAFS:
        /* The struct follows the lump version: 0 carries an inline light cube, 1 does not. */
        if (wide_map && lump_version >= 2)
            return &source_leaf_wide;
        if (lump_version == 0 && version > 17)
            return &source_leaf_v0;
        return &source_leaf_v1;
    case BSPKIT_S_EDGES: return wide ? &bk_edge32_schema : &bk_edge16_schema;
    case BSPKIT_S_SURFEDGES: return &bk_surfedge_schema;
    case BSPKIT_S_MODELS: return &bk_model_onehead_schema;
    case BSPKIT_S_LEAFFACES: return wide ? &source_leafface_wide : &source_leafface;
    case BSPKIT_S_LEAFBRUSHES: return wide ? &source_leafbrush_wide : &source_leafbrush;
    case BSPKIT_S_BRUSHES: return &bk_brush_schema;
    case BSPKIT_S_BRUSHSIDES:
        if (wide)
            return &source_brushside_wide;
        if (version >= 21 && !(variant & BSPKIT_VARIANT_L4D2_DIRECTORY))
            return &source_brushside_byte_bevel;
        return &source_brushside_short_bevel;
    case BSPKIT_S_AREAS: return &bk_area_schema;
    case BSPKIT_S_AREAPORTALS: return wide ? &source_areaportal_wide : &source_areaportal;
    case BSPKIT_S_CUBEMAPS: return &source_cubemap;
    case BSPKIT_S_TEXDATA_STRING_TABLE: return &source_string_table;
    default: return NULL;
    }
}
