/* Source record layouts: the one place each is written down. Strata Source
 * (v25, BSPKIT_VARIANT_WIDE_LUMPS) widens indices to 32 bits and bounds to
 * floats in lumps of version >= 1; Bloodlines (v17) has its own face record.
 * Planes, vertexes, surfedges and edges have the layouts every family shares
 * (core/records.c). */
#include "formats/source/records.h"

#include "bspkit/displacement.h"
#include "bspkit/lighting.h"
#include "bspkit/source_lumps.h"
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

#define TEXINFO_VECS(F)                                                                                \
    F(DEFAULT, .next_texinfo, -1, "")                                                                  \
    F(MAT24, .texture_vecs, 1, "textureVecsTexelsPerWorldUnits")                                       \
    F(MAT24, .lightmap_vecs, 1, "lightmapVecsLuxelsPerWorldUnits")
#define TEXINFO_TAIL(F)                                                                                \
    F(I32, .flags, 1, "flags")                                                                         \
    F(I32, .texture, 1, "texdata")
#define TEXINFO(F)                                                                                     \
    TEXINFO_VECS(F)                                                                                    \
    TEXINFO_TAIL(F)
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
#define FACE_BODY(F)                                                                                   \
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
    F(I32, .orig_face, 1, "origFace")
#define FACE(F)                                                                                        \
    FACE_BODY(F)                                                                                       \
    F(U16MASK, .num_prims, 0x7FFF, "m_NumPrims")                                                       \
    F(U16, .first_prim, 1, "firstPrimID")                                                              \
    F(U32, .smoothing_groups, 1, "smoothingGroups")
BK_SCHEMA(source_face, bspkit_face, 56, "face", FACE);

/* Bloodlines: eight ColorRGBExp32 (the face's average light per style) lead
 * the record; then dface_t's fields with three sets of eight style bytes
 * (base, day, night). The first four base styles are the face's styles
 * (255 = none, as in dface_t); the other four and the day and night sets,
 * zero in every corpus map, are not decoded. */
#define FACE_V17(F)                                                                                    \
    F(PAD, , 32, "")                                                                                   \
    F(U16, .plane, 1, "planenum")                                                                      \
    F(U8, .side, 1, "side")                                                                            \
    F(U8, .on_node, 1, "onNode")                                                                       \
    F(I32, .first_edge, 1, "firstedge")                                                                \
    F(I16, .num_edges, 1, "numedges")                                                                  \
    F(I16, .texinfo, 1, "texinfo")                                                                     \
    F(I16, .dispinfo, 1, "dispinfo")                                                                   \
    F(I16, .fog_volume, 1, "surfaceFogVolumeID")                                                       \
    F(U8A, .styles, 4, "styles")                                                                       \
    F(PAD, , 20, "")                                                                                   \
    F(I32, .light_offset, 1, "lightofs")                                                               \
    F(F32, .area, 1, "area")                                                                           \
    F(I32A, .lightmap_mins, 2, "m_LightmapTextureMinsInLuxels")                                        \
    F(I32A, .lightmap_size, 2, "m_LightmapTextureSizeInLuxels")                                        \
    F(I32, .orig_face, 1, "origFace")                                                                  \
    F(ABSENT, .num_prims, 0, "m_NumPrims")                                                             \
    F(ABSENT, .first_prim, 0, "firstPrimID")                                                           \
    F(U32, .smoothing_groups, 1, "smoothingGroups")
BK_SCHEMA(source_face_v17, bspkit_face, 104, "face", FACE_V17);

/* v18 (HL2 beta era), as BSPSource's DFaceBSP18 describes it: four
 * ColorRGBExp32 average light colours (not decoded) lead a dface_t whose
 * firstPrimID comes before m_NumPrims. */
#define FACE_V18(F)                                                                                    \
    F(PAD, , 16, "")                                                                                   \
    FACE_BODY(F)                                                                                       \
    F(U16, .first_prim, 1, "firstPrimID")                                                              \
    F(U16, .num_prims, 1, "m_NumPrims")                                                                \
    F(U32, .smoothing_groups, 1, "smoothingGroups")
BK_SCHEMA(source_face_v18, bspkit_face, 72, "face", FACE_V18);

/* ---- Dark Messiah (header version 0x40014), from BSPSource and bsp_tool ---- */

/* dmodel_t with an unknown int between the origin and the head node. */
#define MODEL_DARK_MESSIAH(F)                                                                          \
    BK_MODEL_ONEHEAD_BOUNDS(F)                                                                         \
    F(SKIP32, , 1, "")                                                                                 \
    BK_MODEL_ONEHEAD_FACES(F)
BK_SCHEMA(source_model_dark_messiah, bspkit_model, 52, "model", MODEL_DARK_MESSIAH);

/* texinfo_t with 24 unknown bytes between the lightmap vectors and the flags. */
#define TEXINFO_DARK_MESSIAH(F)                                                                        \
    TEXINFO_VECS(F)                                                                                    \
    F(PAD, , 24, "")                                                                                   \
    TEXINFO_TAIL(F)
BK_SCHEMA(source_texinfo_dark_messiah, bspkit_texinfo, 96, "texinfo", TEXINFO_DARK_MESSIAH);

/* ---- Vindictus (VBSP 20, 32-bit fields), from BSPSource and bsp_tool ---- */

/* FACES version 1 is Strata's 72-byte face (source_face_wide, below);
 * version 2 (76 bytes, source_face_vindictus_v2) adds an unknown int. */

/* ---- Dota 2 betas (VBSP 22, 23), from BSPSource ---- */

/* dnode_t; Strata widens it (float bounds, 32-bit face range) and Vindictus
 * too (int bounds, an unused int in place of area and padding). */
#define NODE_FIELDS(F, BMIN, BMAX, COUNT)                                                              \
    F(I32, .plane, 1, "planenum")                                                                      \
    F(I32A, .children, 2, "children")                                                                  \
    F(BMIN, .mins, 1, "mins")                                                                          \
    F(BMAX, .maxs, 1, "maxs")                                                                          \
    F(COUNT, .first_face, 1, "firstface")                                                              \
    F(COUNT, .num_faces, 1, "numfaces")
#define NODE_AREA(F)                                                                                   \
    F(I16, .area, 1, "area")                                                                           \
    F(PAD, , 2, "")
#define NODE(F)                                                                                        \
    NODE_FIELDS(F, BMIN16, BMAX16, U16)                                                                \
    NODE_AREA(F)
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
#define BRUSHSIDE_BOOL_BEVEL(F, PLANE, INDEX, FLAG)                                                    \
    F(DEFAULT, .shader, -1, "")                                                                        \
    F(PLANE, .plane, 1, "planenum")                                                                    \
    F(INDEX, .texinfo, 1, "texinfo")                                                                   \
    F(INDEX, .dispinfo, 1, "dispinfo")                                                                 \
    F(FLAG, .bevel, 1, "bevel")                                                                        \
    F(ABSENT, .thin, 0, "thin")
#define BRUSHSIDE_SHORT_BEVEL(F) BRUSHSIDE_BOOL_BEVEL(F, U16, I16, BOOL16)
BK_SCHEMA(source_brushside_short_bevel, bspkit_brushside, 8, "brush side", BRUSHSIDE_SHORT_BEVEL);
/* Vindictus: every field an int. */
#define BRUSHSIDE_VINDICTUS(F) BRUSHSIDE_BOOL_BEVEL(F, U32, I32, BOOL32)
BK_SCHEMA(source_brushside_vindictus, bspkit_brushside, 16, "brush side", BRUSHSIDE_VINDICTUS);
#define BRUSHSIDE_BYTE_BEVEL(F)                                                                        \
    F(DEFAULT, .shader, -1, "")                                                                        \
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

/* side and onNode are followed by two pad bytes (an unknown short in Vindictus). */
#define FACE_WIDE_HEAD(F)                                                                              \
    F(U32, .plane, 1, "planenum")                                                                      \
    F(U8, .side, 1, "side")                                                                            \
    F(U8, .on_node, 1, "onNode")                                                                       \
    F(PAD, , 2, "")                                                                                    \
    F(I32, .first_edge, 1, "firstedge")                                                                \
    F(I32, .num_edges, 1, "numedges")                                                                  \
    F(I32, .texinfo, 1, "texinfo")                                                                     \
    F(I32, .dispinfo, 1, "dispinfo")                                                                   \
    F(I32, .fog_volume, 1, "surfaceFogVolumeID")
#define FACE_WIDE_TAIL(F)                                                                              \
    F(U8A, .styles, 4, "styles")                                                                       \
    F(I32, .light_offset, 1, "lightofs")                                                               \
    F(F32, .area, 1, "area")                                                                           \
    F(I32A, .lightmap_mins, 2, "m_LightmapTextureMinsInLuxels")                                        \
    F(I32A, .lightmap_size, 2, "m_LightmapTextureSizeInLuxels")                                        \
    F(I32, .orig_face, 1, "origFace")                                                                  \
    F(U32MASK, .num_prims, 0x7FFFFFFF, "m_NumPrims")                                                   \
    F(U32, .first_prim, 1, "firstPrimID")                                                              \
    F(U32, .smoothing_groups, 1, "smoothingGroups")
#define FACE_WIDE(F)                                                                                   \
    FACE_WIDE_HEAD(F)                                                                                  \
    FACE_WIDE_TAIL(F)
BK_SCHEMA(source_face_wide, bspkit_face, 72, "face", FACE_WIDE);

/* Vindictus FACES version 2: Strata's layout with an unknown int after
 * surfaceFogVolumeID. BSPSource and bsp_tool describe these faces alike but
 * for two details: this follows bsp_tool (m_NumPrims before firstPrimID, as
 * in dface_t, and the extra int before the styles); BSPSource reads
 * firstPrimID first and the extra int after the styles. */
#define FACE_VINDICTUS_V2(F)                                                                           \
    FACE_WIDE_HEAD(F)                                                                                  \
    F(SKIP32, , 1, "")                                                                                 \
    FACE_WIDE_TAIL(F)
BK_SCHEMA(source_face_vindictus_v2, bspkit_face, 76, "face", FACE_VINDICTUS_V2);

#define NODE_WIDE(F)                                                                                   \
    NODE_FIELDS(F, VEC3, VEC3, U32)                                                                    \
    NODE_AREA(F)
BK_SCHEMA(source_node_wide, bspkit_node, 48, "node", NODE_WIDE);
#define NODE_VINDICTUS(F)                                                                              \
    NODE_FIELDS(F, BMIN32, BMAX32, U32)                                                                \
    F(ABSENT, .area, -1, "area")                                                                       \
    F(SKIP32, , 1, "")
BK_SCHEMA(source_node_vindictus, bspkit_node, 48, "node", NODE_VINDICTUS);

/* Strata's 32-bit leaf; Vindictus has the same with int bounds. How
 * Vindictus shares its area/flags int is not described: it is read as
 * Strata's (area in the low 17 bits). */
#define LEAF_WIDE_FIELDS(F, BMIN, BMAX)                                                                \
    F(DEFAULT, .vis_offset, -1, "")                                                                    \
    F(I32, .contents, 1, "contents")                                                                   \
    F(I32, .cluster, 1, "cluster")                                                                     \
    F(AREAFLAGS32, , 1, "")                                                                            \
    F(BMIN, .mins, 1, "mins")                                                                          \
    F(BMAX, .maxs, 1, "maxs")                                                                          \
    F(U32, .first_leaf_face, 1, "firstleafface")                                                       \
    F(U32, .num_leaf_faces, 1, "numleaffaces")                                                         \
    F(U32, .first_leaf_brush, 1, "firstleafbrush")                                                     \
    F(U32, .num_leaf_brushes, 1, "numleafbrushes")                                                     \
    F(I32, .leaf_water, 1, "leafWaterDataID")
#define LEAF_WIDE(F) LEAF_WIDE_FIELDS(F, VEC3, VEC3)
BK_SCHEMA(source_leaf_wide, bspkit_leaf, 56, "leaf", LEAF_WIDE);
#define LEAF_VINDICTUS(F) LEAF_WIDE_FIELDS(F, BMIN32, BMAX32)
BK_SCHEMA(source_leaf_vindictus, bspkit_leaf, 56, "leaf", LEAF_VINDICTUS);

#define BRUSHSIDE_WIDE(F)                                                                              \
    F(DEFAULT, .shader, -1, "")                                                                        \
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

/* ---- records decoded into extras slots (surfaces.c, displacement.c, overlays.c, lighting.c) ---- */

/* dleafwaterdata_t: two floats, a short texinfo, 2 pad bytes. */
#define LEAF_WATER(F)                                                                                  \
    F(F32, .surface_z, 1, "surfaceZ")                                                                  \
    F(F32, .min_z, 1, "minZ")                                                                          \
    F(I16, .texinfo, 1, "surfaceTexInfoID")                                                            \
    F(PAD, , 2, "")
BK_SCHEMA(source_leaf_water, bspkit_leaf_water, 12, "leaf water", LEAF_WATER);

/* dprimitive_t: type byte and a pad byte, then four unsigned short counts;
 * Strata's wide form pads the type to 4 bytes and widens the counts to uint32. */
#define PRIMITIVE_FIELDS(F, TYPE_PAD, COUNT)                                                           \
    F(U8, .type, 1, "type")                                                                            \
    F(PAD, , TYPE_PAD, "")                                                                             \
    F(COUNT, .first_index, 1, "firstIndex")                                                            \
    F(COUNT, .index_count, 1, "indexCount")                                                            \
    F(COUNT, .first_vert, 1, "firstVert")                                                              \
    F(COUNT, .vert_count, 1, "vertCount")
#define PRIMITIVE(F) PRIMITIVE_FIELDS(F, 1, U16)
BK_SCHEMA(source_primitive, bspkit_primitive, 10, "primitive", PRIMITIVE);
#define PRIMITIVE_WIDE(F) PRIMITIVE_FIELDS(F, 3, U32)
BK_SCHEMA(source_primitive_wide, bspkit_primitive, 20, "primitive", PRIMITIVE_WIDE);

#define MIN_DIST_TO_WATER(F) F(U16, , 1, "minDistToWater")
BK_SCHEMA(source_min_dist_to_water, uint16_t, 2, "leaf min distance to water", MIN_DIST_TO_WATER);

#define FACE_MACRO_TEXTURE(F) F(U16, , 1, "macroTextureIndex")
BK_SCHEMA(source_face_macro_texture, uint16_t, 2, "face macro texture", FACE_MACRO_TEXTURE);

/* dportal_t and dcluster_t (lumps 22 and 23 up to VBSP 19). */
#define PORTAL(F)                                                                                      \
    F(I32, .first_portal_vert, 1, "firstportalvert")                                                   \
    F(I32, .num_portal_verts, 1, "numportalverts")                                                     \
    F(I32, .plane, 1, "planenum")                                                                      \
    F(U16A, .cluster, 2, "cluster")
BK_SCHEMA(source_portal, bspkit_portal, 16, "portal", PORTAL);

#define CLUSTER(F)                                                                                     \
    F(I32, .first_portal, 1, "firstportal")                                                            \
    F(I32, .num_portals, 1, "numportals")
BK_SCHEMA(source_cluster, bspkit_cluster, 8, "cluster", CLUSTER);

/* ddispinfo_t (176 bytes). Strata's DISPINFO version >= 1 (232 bytes) widens
 * MapFace and the neighbour indices to 32 bits; each field keeps its order. */
#define DISPINFO_START(F)                                                                              \
    F(VEC3, .start_position, 1, "startPosition")                                                       \
    F(I32, .disp_vert_start, 1, "DispVertStart")                                                       \
    F(I32, .disp_tri_start, 1, "DispTriStart")                                                         \
    F(I32, .power, 1, "power")
#define DISPINFO_HEAD(F)                                                                               \
    DISPINFO_START(F)                                                                                  \
    F(I32, .min_tess, 1, "minTess")                                                                    \
    F(F32, .smoothing_angle, 1, "smoothingAngle")                                                      \
    F(I32, .contents, 1, "contents")
#define DISPINFO_TAIL(F, INDEX_BYTES)                                                                  \
    F(I32, .lightmap_alpha_start, 1, "LightmapAlphaStart")                                             \
    F(I32, .lightmap_sample_position_start, 1, "LightmapSamplePositionStart")                          \
    F(DISPEDGES, , INDEX_BYTES, "EdgeNeighbors")                                                       \
    F(DISPCORNERS, , INDEX_BYTES, "CornerNeighbors")                                                   \
    F(U32A, .allowed_verts, 10, "AllowedVerts")
#define DISPINFO(F)                                                                                    \
    DISPINFO_HEAD(F)                                                                                   \
    F(U16, .map_face, 1, "MapFace")                                                                    \
    F(PAD, , 2, "")                                                                                    \
    DISPINFO_TAIL(F, 2)
BK_SCHEMA(source_dispinfo, bspkit_dispinfo, 176, "dispinfo", DISPINFO);
#define DISPINFO_WIDE(F)                                                                               \
    DISPINFO_HEAD(F)                                                                                   \
    F(U32, .map_face, 1, "MapFace")                                                                    \
    DISPINFO_TAIL(F, 4)
BK_SCHEMA(source_dispinfo_wide, bspkit_dispinfo, 232, "dispinfo", DISPINFO_WIDE);

/* Dota 2 betas: VBSP 22 adds an unknown int before the neighbours (180
 * bytes), VBSP 23 one more after the contents (184). */
#define DISPINFO_DOTA22(F)                                                                             \
    DISPINFO_HEAD(F)                                                                                   \
    F(U16, .map_face, 1, "MapFace")                                                                    \
    F(PAD, , 2, "")                                                                                    \
    F(I32, .lightmap_alpha_start, 1, "LightmapAlphaStart")                                             \
    F(I32, .lightmap_sample_position_start, 1, "LightmapSamplePositionStart")                          \
    F(SKIP32, , 1, "")                                                                                 \
    F(DISPEDGES, , 2, "EdgeNeighbors")                                                                 \
    F(DISPCORNERS, , 2, "CornerNeighbors")                                                             \
    F(U32A, .allowed_verts, 10, "AllowedVerts")
BK_SCHEMA(source_dispinfo_dota22, bspkit_dispinfo, 180, "dispinfo", DISPINFO_DOTA22);
#define DISPINFO_DOTA23(F)                                                                             \
    DISPINFO_HEAD(F)                                                                                   \
    F(SKIP32, , 1, "")                                                                                 \
    F(U16, .map_face, 1, "MapFace")                                                                    \
    F(PAD, , 2, "")                                                                                    \
    F(I32, .lightmap_alpha_start, 1, "LightmapAlphaStart")                                             \
    F(I32, .lightmap_sample_position_start, 1, "LightmapSamplePositionStart")                          \
    F(SKIP32, , 1, "")                                                                                 \
    F(DISPEDGES, , 2, "EdgeNeighbors")                                                                 \
    F(DISPCORNERS, , 2, "CornerNeighbors")                                                             \
    F(U32A, .allowed_verts, 10, "AllowedVerts")
BK_SCHEMA(source_dispinfo_dota23, bspkit_dispinfo, 184, "dispinfo", DISPINFO_DOTA23);

/* Vindictus (232 bytes): an unknown int takes minTess's place after the
 * smoothing angle, MapFace is an int, and the 144 neighbour bytes have a
 * layout neither description gives (bsp_tool splits them 72 + 72): they are
 * not decoded and the neighbours read as none. */
/* The four rows of a [4][N] member, each set to bytes of `v`. */
#define ABSENT_ROWS(F, m, v, name)                                                                     \
    F(ABSENT_ARRAY, m[0], v, name "[0]")                                                               \
    F(ABSENT_ARRAY, m[1], v, name "[1]")                                                               \
    F(ABSENT_ARRAY, m[2], v, name "[2]")                                                               \
    F(ABSENT_ARRAY, m[3], v, name "[3]")
#define DISPINFO_VINDICTUS(F)                                                                          \
    DISPINFO_START(F)                                                                                  \
    F(F32, .smoothing_angle, 1, "smoothingAngle")                                                      \
    F(ABSENT, .min_tess, 0, "minTess")                                                                 \
    F(SKIP32, , 1, "")                                                                                 \
    F(I32, .contents, 1, "contents")                                                                   \
    F(U32, .map_face, 1, "MapFace")                                                                    \
    F(I32, .lightmap_alpha_start, 1, "LightmapAlphaStart")                                             \
    F(I32, .lightmap_sample_position_start, 1, "LightmapSamplePositionStart")                          \
    F(PAD, , 144, "")                                                                                  \
    ABSENT_ROWS(F, .edge_neighbor, 0xFF, "EdgeNeighbors")                                              \
    ABSENT_ROWS(F, .edge_neighbor_orientation, 0, "EdgeNeighbors.m_NeighborOrientation")               \
    ABSENT_ROWS(F, .edge_span, 0, "EdgeNeighbors.m_Span")                                              \
    ABSENT_ROWS(F, .edge_neighbor_span, 0, "EdgeNeighbors.m_NeighborSpan")                             \
    ABSENT_ROWS(F, .corner_neighbors, 0xFF, "CornerNeighbors")                                         \
    F(ABSENT_ARRAY, .corner_neighbor_count, 0, "CornerNeighbors.m_nNeighbors")                         \
    F(U32A, .allowed_verts, 10, "AllowedVerts")
BK_SCHEMA(source_dispinfo_vindictus, bspkit_dispinfo, 232, "dispinfo", DISPINFO_VINDICTUS);

/* CDispVert: the offset direction, its length and the blend alpha. */
#define DISP_VERT(F)                                                                                   \
    F(VEC3, .vec, 1, "vec")                                                                            \
    F(F32, .dist, 1, "dist")                                                                           \
    F(F32, .alpha, 1, "alpha")
BK_SCHEMA(source_disp_vert, bspkit_disp_vert, 20, "displacement vertex", DISP_VERT);

/* CDispTri: one unsigned short of DISPTRI_TAG_* flags. */
#define DISP_TRI(F) F(U16, , 1, "Tags")
BK_SCHEMA(source_disp_tri, uint16_t, 2, "displacement triangle", DISP_TRI);

/* CDispMultiBlend: Vector4D m_vMultiBlend, m_vAlphaBlend; Vector m_vMultiBlendColors[4]. */
#define DISP_MULTIBLEND(F)                                                                             \
    F(F32A, .multiblend, 4, "m_vMultiBlend")                                                           \
    F(F32A, .alphablend, 4, "m_vAlphaBlend")                                                           \
    F(VEC3A, .colors, 4, "m_vMultiBlendColors")
BK_SCHEMA(source_disp_multiblend, bspkit_disp_multiblend, 80, "displacement multiblend", DISP_MULTIBLEND);

/* doverlay_t: Id int, TexInfo short, FaceCountAndRenderOrder ushort, then
 * OVERLAY_BSP_FACE_COUNT face indices and 22 floats. Strata (lump version
 * >= 1) widens TexInfo to an int and pads the ushort to 4 bytes.
 * dwateroverlay_t is the same with WATEROVERLAY_BSP_FACE_COUNT faces. */
#define OVERLAY_TAIL(F, FACES)                                                                         \
    F(I32A, .faces, FACES, "Ofaces")                                                                   \
    F(F32A, .u, 2, "U")                                                                                \
    F(F32A, .v, 2, "V")                                                                                \
    F(VEC3A, .uv_points, 4, "UVPoints")                                                                \
    F(VEC3, .origin, 1, "Origin")                                                                      \
    F(VEC3, .basis_normal, 1, "BasisNormal")
#define OVERLAY_NARROW(F, FACES)                                                                       \
    F(I32, .id, 1, "Id")                                                                               \
    F(I16, .texinfo, 1, "TexInfo")                                                                     \
    F(FCRO16, , 1, "FaceCountAndRenderOrder")                                                          \
    OVERLAY_TAIL(F, FACES)
#define OVERLAY_WIDENED(F, FACES)                                                                      \
    F(I32, .id, 1, "Id")                                                                               \
    F(I32, .texinfo, 1, "TexInfo")                                                                     \
    F(FCRO16, , 1, "FaceCountAndRenderOrder")                                                          \
    F(PAD, , 2, "")                                                                                    \
    OVERLAY_TAIL(F, FACES)
#define OVERLAY(F) OVERLAY_NARROW(F, BSPKIT_OVERLAY_FACES)
BK_SCHEMA(source_overlay, bspkit_overlay, 352, "overlay", OVERLAY);
#define OVERLAY_WIDE(F) OVERLAY_WIDENED(F, BSPKIT_OVERLAY_FACES)
BK_SCHEMA(source_overlay_wide, bspkit_overlay, 356, "overlay", OVERLAY_WIDE);
#define WATER_OVERLAY(F) OVERLAY_NARROW(F, BSPKIT_WATER_OVERLAY_FACES)
BK_SCHEMA(source_water_overlay, bspkit_water_overlay, 1120, "water overlay", WATER_OVERLAY);
#define WATER_OVERLAY_WIDE(F) OVERLAY_WIDENED(F, BSPKIT_WATER_OVERLAY_FACES)
BK_SCHEMA(source_water_overlay_wide, bspkit_water_overlay, 1124, "water overlay", WATER_OVERLAY_WIDE);
/* Dota 2's VBSP 23 doverlay_t ends in one more (unknown) int. */
#define OVERLAY_DOTA23(F)                                                                              \
    OVERLAY_NARROW(F, BSPKIT_OVERLAY_FACES)                                                            \
    F(SKIP32, , 1, "")
BK_SCHEMA(source_overlay_dota23, bspkit_overlay, 356, "overlay", OVERLAY_DOTA23);

/* doverlayfade_t: squared fade distances. */
#define OVERLAY_FADE(F)                                                                                \
    F(F32, .fade_dist_min_sq, 1, "flFadeDistMinSq")                                                    \
    F(F32, .fade_dist_max_sq, 1, "flFadeDistMaxSq")
BK_SCHEMA(source_overlay_fade, bspkit_overlay_fade, 8, "overlay fade", OVERLAY_FADE);

/* doverlaysystemlevel_t: four unsigned char CPU/GPU levels. */
#define OVERLAY_SYSTEM_LEVEL(F)                                                                        \
    F(U8, .min_cpu_level, 1, "nMinCPULevel")                                                           \
    F(U8, .max_cpu_level, 1, "nMaxCPULevel")                                                           \
    F(U8, .min_gpu_level, 1, "nMinGPULevel")                                                           \
    F(U8, .max_gpu_level, 1, "nMaxGPULevel")
BK_SCHEMA(source_overlay_system_level, bspkit_overlay_system_level, 4, "overlay system level",
          OVERLAY_SYSTEM_LEVEL);

/* dworldlight_t, lump version 0 (88 bytes); version 1 (100 bytes) adds
 * shadow_cast_offset after the normal. Every field is 32-bit. */
#define WORLDLIGHT_HEAD(F)                                                                             \
    F(VEC3, .origin, 1, "origin")                                                                      \
    F(VEC3, .intensity, 1, "intensity")                                                                \
    F(VEC3, .normal, 1, "normal")
#define WORLDLIGHT_TAIL(F)                                                                             \
    F(I32, .cluster, 1, "cluster")                                                                     \
    F(I32, .type, 1, "type")                                                                           \
    F(I32, .style, 1, "style")                                                                         \
    F(F32, .stopdot, 1, "stopdot")                                                                     \
    F(F32, .stopdot2, 1, "stopdot2")                                                                   \
    F(F32, .exponent, 1, "exponent")                                                                   \
    F(F32, .radius, 1, "radius")                                                                       \
    F(F32, .constant_attn, 1, "constant_attn")                                                         \
    F(F32, .linear_attn, 1, "linear_attn")                                                             \
    F(F32, .quadratic_attn, 1, "quadratic_attn")                                                       \
    F(I32, .flags, 1, "flags")                                                                         \
    F(I32, .texinfo, 1, "texinfo")                                                                     \
    F(I32, .owner, 1, "owner")
#define WORLDLIGHT_V0(F)                                                                               \
    WORLDLIGHT_HEAD(F)                                                                                 \
    F(ABSENT, .shadow_cast_offset, (bspkit_vec3){0}, "shadow_cast_offset")                             \
    WORLDLIGHT_TAIL(F)
BK_SCHEMA(source_worldlight_v0, bspkit_worldlight, 88, "world light", WORLDLIGHT_V0);
#define WORLDLIGHT_V1(F)                                                                               \
    WORLDLIGHT_HEAD(F)                                                                                 \
    F(VEC3, .shadow_cast_offset, 1, "shadow_cast_offset")                                              \
    WORLDLIGHT_TAIL(F)
BK_SCHEMA(source_worldlight_v1, bspkit_worldlight, 100, "world light", WORLDLIGHT_V1);

/* dleafambientindex_t: two unsigned shorts (two uint32 in Strata's wide lumps). */
#define LEAF_AMBIENT_INDEX_FIELDS(F, COUNT)                                                            \
    F(COUNT, .sample_count, 1, "ambientSampleCount")                                                   \
    F(COUNT, .first_sample, 1, "firstAmbientSample")
#define LEAF_AMBIENT_INDEX(F) LEAF_AMBIENT_INDEX_FIELDS(F, U16)
BK_SCHEMA(source_leaf_ambient_index, bspkit_leaf_ambient_index, 4, "leaf ambient index", LEAF_AMBIENT_INDEX);
#define LEAF_AMBIENT_INDEX_WIDE(F) LEAF_AMBIENT_INDEX_FIELDS(F, U32)
BK_SCHEMA(source_leaf_ambient_index_wide, bspkit_leaf_ambient_index, 8, "leaf ambient index",
          LEAF_AMBIENT_INDEX_WIDE);

/* dleafambientlighting_t (lump version 1): a CompressedLightCube, then the
 * sample's position as fractions of the leaf's bounds and a pad byte. */
#define LEAF_AMBIENT_SAMPLE(F)                                                                         \
    F(RGBEXPA, .cube, 6, "cube")                                                                       \
    F(U8, .x, 1, "x")                                                                                  \
    F(U8, .y, 1, "y")                                                                                  \
    F(U8, .z, 1, "z")                                                                                  \
    F(U8, .pad, 1, "pad")
BK_SCHEMA(source_leaf_ambient_sample, bspkit_leaf_ambient_sample, 28, "leaf ambient sample", LEAF_AMBIENT_SAMPLE);

/* The OCCLUSION lump's records (it counts each array itself): doccluderdata_t,
 * whose lump version 2 appended the area (40 bytes; 36 before), and
 * doccluderpolydata_t. */
#define OCCLUDER_HEAD(F)                                                                               \
    F(I32, .flags, 1, "flags")                                                                         \
    F(I32, .first_poly, 1, "firstpoly")                                                                \
    F(I32, .poly_count, 1, "polycount")                                                                \
    F(VEC3, .mins, 1, "mins")                                                                          \
    F(VEC3, .maxs, 1, "maxs")
#define OCCLUDER_V1(F)                                                                                 \
    OCCLUDER_HEAD(F)                                                                                   \
    F(ABSENT, .area, -1, "area")
BK_SCHEMA(source_occluder_v1, bspkit_occluder, 36, "occluder", OCCLUDER_V1);
#define OCCLUDER_V2(F)                                                                                 \
    OCCLUDER_HEAD(F)                                                                                   \
    F(I32, .area, 1, "area")
BK_SCHEMA(source_occluder_v2, bspkit_occluder, 40, "occluder", OCCLUDER_V2);

#define OCCLUDER_POLY(F)                                                                               \
    F(I32, .first_vertex_index, 1, "firstvertexindex")                                                 \
    F(I32, .vertex_count, 1, "vertexcount")                                                            \
    F(I32, .plane, 1, "planenum")
BK_SCHEMA(bk_source_occluder_poly, bspkit_occluder_poly, 12, "occluder polygon", OCCLUDER_POLY);

const bk_schema *bk_source_occluder_schema(int32_t lump_version)
{
    return lump_version >= 2 ? &source_occluder_v2 : &source_occluder_v1;
}

/* ---- which layout ---- */

const bk_schema *bk_source_schema(int32_t version, uint32_t variant, int lump, int32_t lump_version)
{
    bool wide_map = (variant & BSPKIT_VARIANT_WIDE_LUMPS) != 0;
    bool wide = wide_map && lump_version >= 1;
    if (variant & BSPKIT_VARIANT_DARK_MESSIAH) {
        if (lump == BSPKIT_S_MODELS)
            return &source_model_dark_messiah;
        if (lump == BSPKIT_S_TEXINFO)
            return &source_texinfo_dark_messiah;
    }
    if (variant & BSPKIT_VARIANT_VINDICTUS) {
        switch (lump) {
        case BSPKIT_S_FACES:
        case BSPKIT_S_ORIGINALFACES:
        case BSPKIT_S_FACES_HDR:
            return lump_version == 2 ? &source_face_vindictus_v2 : &source_face_wide;
        case BSPKIT_S_NODES: return &source_node_vindictus;
        case BSPKIT_S_LEAFS: return &source_leaf_vindictus;
        case BSPKIT_S_EDGES: return &bk_edge32_schema;
        case BSPKIT_S_LEAFFACES: return &source_leafface_wide;
        case BSPKIT_S_LEAFBRUSHES: return &source_leafbrush_wide;
        case BSPKIT_S_BRUSHSIDES: return &source_brushside_vindictus;
        case BSPKIT_S_AREAPORTALS: return &source_areaportal_wide;
        default: break;
        }
    }
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
        if (variant & BSPKIT_VARIANT_V18_FACES)
            return &source_face_v18;
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

const bk_schema *bk_source_array_schema(int32_t version, uint32_t variant, int lump, int32_t lump_version)
{
    bool wide = (variant & BSPKIT_VARIANT_WIDE_LUMPS) && lump_version >= 1;
    if (variant & BSPKIT_VARIANT_VINDICTUS) {
        if (lump == BSPKIT_S_DISPINFO)
            return &source_dispinfo_vindictus;
        /* doverlay_t with TexInfo and FaceCountAndRenderOrder as ints: in
         * little-endian bytes, Strata's widened record. */
        if (lump == BSPKIT_S_OVERLAYS)
            return &source_overlay_wide;
        /* No description of its water overlays. */
        if (lump == BSPKIT_S_WATEROVERLAYS)
            return NULL;
    }
    if (variant & BSPKIT_VARIANT_DOTA2_BETA) {
        if (lump == BSPKIT_S_DISPINFO)
            return version == 22 ? &source_dispinfo_dota22 : &source_dispinfo_dota23;
        if (lump == BSPKIT_S_OVERLAYS && version == 23)
            return &source_overlay_dota23;
    }
    switch (lump) {
    case BSPKIT_S_LEAFWATERDATA: return &source_leaf_water;
    case BSPKIT_S_PRIMITIVES: return wide ? &source_primitive_wide : &source_primitive;
    case BSPKIT_S_LEAFMINDISTTOWATER: return &source_min_dist_to_water;
    case BSPKIT_S_FACE_MACRO_TEXTURE_INFO: return &source_face_macro_texture;
    /* Lumps 22-25 carry portals and clusters only up to VBSP 19. */
    case 22: return version <= 19 ? &source_portal : NULL;
    case 23: return version <= 19 ? &source_cluster : NULL;
    case BSPKIT_S_DISPINFO: return wide ? &source_dispinfo_wide : &source_dispinfo;
    case BSPKIT_S_DISP_VERTS: return &source_disp_vert;
    case BSPKIT_S_DISP_TRIS: return &source_disp_tri;
    case BSPKIT_S_DISP_MULTIBLEND: return &source_disp_multiblend;
    case BSPKIT_S_OVERLAYS: return wide ? &source_overlay_wide : &source_overlay;
    case BSPKIT_S_WATEROVERLAYS: return wide ? &source_water_overlay_wide : &source_water_overlay;
    case BSPKIT_S_OVERLAY_FADES: return &source_overlay_fade;
    case BSPKIT_S_OVERLAY_SYSTEM_LEVELS: return &source_overlay_system_level;
    case BSPKIT_S_WORLDLIGHTS:
    case BSPKIT_S_WORLDLIGHTS_HDR:
        return lump_version == 0 ? &source_worldlight_v0 : lump_version == 1 ? &source_worldlight_v1 : NULL;
    case BSPKIT_S_LEAF_AMBIENT_INDEX:
    case BSPKIT_S_LEAF_AMBIENT_INDEX_HDR: return wide ? &source_leaf_ambient_index_wide : &source_leaf_ambient_index;
    case BSPKIT_S_LEAF_AMBIENT_LIGHTING:
    case BSPKIT_S_LEAF_AMBIENT_LIGHTING_HDR:
        /* Only version 1 is dleafambientlighting_t; some compilers wrote other data here. */
        return lump_version == 1 ? &source_leaf_ambient_sample : NULL;
    default: return NULL;
    }
}

const bk_schema *bk_source_map_array_schema(const bspkit_map *map, int lump)
{
    if (lump < 0 || lump >= map->lump_count)
        return NULL;
    return bk_source_array_schema(map->format.version, map->format.variant, lump, map->lumps[lump].version);
}

bk_array_spec bk_source_array_spec(const bspkit_map *map, int lump)
{
    const bk_schema *s = bk_source_map_array_schema(map, lump);
    if (!s)
        return (bk_array_spec){-1, 1, 0, NULL};
    return (bk_array_spec){lump, s->record_size, s->native_size, s->decode};
}
