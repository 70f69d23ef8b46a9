/*
 * bspkit/write.h — build map files from native records.
 *
 * A bspkit_builder holds the contents of one map in memory, lump by lump:
 * either raw bytes given by the caller or arrays of the native record structs
 * from bspkit.h (bspkit_plane, bspkit_face, ...). Nothing is encoded into the
 * file layout until bspkit_builder_write() or bspkit_builder_save(), so the
 * same builder can be written little-endian, big-endian or LZMA-compressed.
 *
 * Conventions (as in bspkit.h):
 *  - Every function that can fail returns a bspkit_result and fills `err`
 *    when it is not NULL.
 *  - Setters COPY their input; the caller keeps ownership of what it passes.
 *    Calling a setter again replaces the lump's previous contents.
 *  - Records are checked against the file layout when they are set: a value
 *    the layout cannot hold (a vertex index above 65535 in a 16-bit edge, a
 *    texinfo of -1 in a GoldSrc face, a bound outside the int16 range, ...)
 *    fails with BSPKIT_ERR_ARGUMENT naming the lump and record. Native fields
 *    the target layout does not have (e.g. lightmap_vecs in a GoldSrc texinfo)
 *    are ignored.
 *  - Float bounds stored as int16 in the file (node and leaf mins/maxs) are
 *    rounded outwards: mins down, maxs up, so the box never shrinks.
 *
 * Supported targets: Quake BSP29 (family QUAKE, version 29), GoldSrc BSP30
 * (family GOLDSRC, version 30) and Source VBSP versions 19 to 21 (family
 * SOURCE), with the record layouts of Valve's SDK: v19/v20 brush sides with a
 * 16-bit bevel, v21 with bevel + thin bytes; LEAFS lump version 1 (32-byte
 * leafs) by default from version 20 on, version 0 (56-byte leafs with an
 * inline ambient cube) before.
 */
#ifndef BSPKIT_WRITE_H
#define BSPKIT_WRITE_H

#include "bspkit/bspkit.h"
#include "bspkit/quake3.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Builder                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct bspkit_builder bspkit_builder;

/** Output options; all-zero writes an uncompressed little-endian file. */
typedef struct bspkit_write_options {
    /** Source only: magic `PSBV` and every multi-byte field big-endian (the
     *  Xbox 360 / PS3 byte order). Raw lumps set with bspkit_builder_set_lump
     *  are written as given. Invalid for Quake/GoldSrc. */
    bool big_endian;
    /** Source only: store every non-empty lump except PAKFILE and GAME_LUMP as
     *  a Valve LZMA stream ("LZMA", uint32 actualSize, uint32 lzmaSize — both
     *  little-endian in either byte order — 5 property bytes, raw LZMA1
     *  data); the directory's fourCC then holds the uncompressed size.
     *  Invalid for Quake/GoldSrc. */
    bool compress_lzma;
    /** Source map revision written after the lump directory. */
    int32_t revision;
} bspkit_write_options;

/**
 * Create an empty builder for `family` and header `version` (29 for Quake, 30
 * for GoldSrc, 19..21 for Source). Fails with BSPKIT_ERR_UNSUPPORTED for
 * other combinations. Free with bspkit_builder_free().
 */
BSPKIT_API bspkit_result bspkit_builder_new(bspkit_family family, int32_t version, bspkit_builder **out, bspkit_error *err);

/** Release the builder and every copy it holds. NULL is allowed. */
BSPKIT_API void bspkit_builder_free(bspkit_builder *b);

/** The family and version the builder was created for. */
BSPKIT_API bspkit_family bspkit_builder_family(const bspkit_builder *b);
BSPKIT_API int32_t bspkit_builder_version(const bspkit_builder *b);

/**
 * Store raw bytes for lump `lump` (a BSPKIT_Q_* or BSPKIT_S_* index), written
 * exactly as given — in the target byte order, which is the caller's
 * responsibility for anything but byte data. `lump_version` is the Source
 * directory's version field (ignored for Quake/GoldSrc). `size` 0 empties the
 * lump. Source GAME_LUMP holds absolute file offsets and cannot be set raw:
 * use bspkit_builder_set_game_lumps().
 */
BSPKIT_API bspkit_result bspkit_builder_set_lump(bspkit_builder *b, int lump, const void *data, size_t size,
                                      int32_t lump_version, bspkit_error *err);

/**
 * Override the Source directory version of a lump. For LEAFS this also
 * selects the layout of records set with bspkit_builder_set_leafs(): version
 * 0 writes 56-byte leafs with the inline ambient cube, 1 writes 32-byte
 * leafs. Typed setters otherwise use the versions real maps carry (FACES,
 * LIGHTING, LIGHTING_HDR, FACES_HDR: 1; LEAFS: 1 from VBSP 20, else 0).
 * Ignored for Quake/GoldSrc.
 */
BSPKIT_API bspkit_result bspkit_builder_set_lump_version(bspkit_builder *b, int lump, int32_t lump_version,
                                              bspkit_error *err);

/** Remove whatever lump `lump` holds. */
BSPKIT_API bspkit_result bspkit_builder_clear_lump(bspkit_builder *b, int lump, bspkit_error *err);

/* Typed setters. Each encodes its native records into the family's lump at
 * write time. Record kinds a family lacks (e.g. brushes in GoldSrc, clipnodes
 * in Source) fail with BSPKIT_ERR_UNSUPPORTED. `count` 0 empties the lump. */

BSPKIT_API bspkit_result bspkit_builder_set_planes(bspkit_builder *b, const bspkit_plane *planes, size_t count,
                                        bspkit_error *err);
BSPKIT_API bspkit_result bspkit_builder_set_vertexes(bspkit_builder *b, const bspkit_vec3 *vertexes, size_t count,
                                          bspkit_error *err);
/** Edges: 16-bit vertex indices in every supported layout. */
BSPKIT_API bspkit_result bspkit_builder_set_edges(bspkit_builder *b, const bspkit_edge *edges, size_t count,
                                       bspkit_error *err);
BSPKIT_API bspkit_result bspkit_builder_set_surfedges(bspkit_builder *b, const int32_t *surfedges, size_t count,
                                           bspkit_error *err);
/** FACES (Source: 56-byte dface_t; Quake/GoldSrc: 20 bytes). */
BSPKIT_API bspkit_result bspkit_builder_set_faces(bspkit_builder *b, const bspkit_face *faces, size_t count,
                                       bspkit_error *err);
/** Source ORIGINALFACES (same layout as FACES). */
BSPKIT_API bspkit_result bspkit_builder_set_orig_faces(bspkit_builder *b, const bspkit_face *faces, size_t count,
                                            bspkit_error *err);
/** Source FACES_HDR (same layout as FACES). */
BSPKIT_API bspkit_result bspkit_builder_set_hdr_faces(bspkit_builder *b, const bspkit_face *faces, size_t count,
                                           bspkit_error *err);
/** Nodes; children >= 0 are node indices, < 0 leaf -(child + 1). */
BSPKIT_API bspkit_result bspkit_builder_set_nodes(bspkit_builder *b, const bspkit_node *nodes, size_t count,
                                       bspkit_error *err);
/** Leafs. Source: cluster, area (0..511), flags (0..127), leaf_water; the
 *  ambient cube only with LEAFS version 0. Quake/GoldSrc: vis_offset and
 *  ambient_sound; leaf faces come from MARKSURFACES. */
BSPKIT_API bspkit_result bspkit_builder_set_leafs(bspkit_builder *b, const bspkit_leaf *leafs, size_t count,
                                       bspkit_error *err);
/** Models. Source stores headnode[0] only; Quake/GoldSrc all four and vis_leafs. */
BSPKIT_API bspkit_result bspkit_builder_set_models(bspkit_builder *b, const bspkit_model *models, size_t count,
                                        bspkit_error *err);
BSPKIT_API bspkit_result bspkit_builder_set_texinfo(bspkit_builder *b, const bspkit_texinfo *texinfo, size_t count,
                                         bspkit_error *err);
/** Quake/GoldSrc CLIPNODES; children < 0 are contents (-1 empty, -2 solid). */
BSPKIT_API bspkit_result bspkit_builder_set_clipnodes(bspkit_builder *b, const bspkit_clipnode *clipnodes, size_t count,
                                           bspkit_error *err);
/** Source LEAFFACES, Quake/GoldSrc MARKSURFACES (16-bit face indices). */
BSPKIT_API bspkit_result bspkit_builder_set_leaf_faces(bspkit_builder *b, const uint32_t *faces, size_t count,
                                            bspkit_error *err);
/** Source LEAFBRUSHES (16-bit brush indices). */
BSPKIT_API bspkit_result bspkit_builder_set_leaf_brushes(bspkit_builder *b, const uint32_t *brushes, size_t count,
                                              bspkit_error *err);
BSPKIT_API bspkit_result bspkit_builder_set_brushes(bspkit_builder *b, const bspkit_brush *brushes, size_t count,
                                         bspkit_error *err);
/** Brush sides; `thin` is stored from VBSP 21 on and ignored before. */
BSPKIT_API bspkit_result bspkit_builder_set_brushsides(bspkit_builder *b, const bspkit_brushside *sides, size_t count,
                                            bspkit_error *err);
BSPKIT_API bspkit_result bspkit_builder_set_texdata(bspkit_builder *b, const bspkit_texdata *texdata, size_t count,
                                         bspkit_error *err);
/**
 * Source texture names: writes TEXDATA_STRING_DATA as the NUL-terminated
 * names one after another and TEXDATA_STRING_TABLE with each name's offset,
 * so texdata name_id i refers to names[i].
 */
BSPKIT_API bspkit_result bspkit_builder_set_texdata_strings(bspkit_builder *b, const char *const *names, size_t count,
                                                 bspkit_error *err);
/** Source TEXDATA_STRING_TABLE as given (offsets into TEXDATA_STRING_DATA). */
BSPKIT_API bspkit_result bspkit_builder_set_texdata_string_table(bspkit_builder *b, const int32_t *offsets, size_t count,
                                                      bspkit_error *err);
BSPKIT_API bspkit_result bspkit_builder_set_areas(bspkit_builder *b, const bspkit_area *areas, size_t count,
                                       bspkit_error *err);
BSPKIT_API bspkit_result bspkit_builder_set_areaportals(bspkit_builder *b, const bspkit_areaportal *portals, size_t count,
                                             bspkit_error *err);
BSPKIT_API bspkit_result bspkit_builder_set_cubemaps(bspkit_builder *b, const bspkit_cubemap *cubemaps, size_t count,
                                          bspkit_error *err);
/* Quake 3 (bspkit/quake3.h): shaders, drawing vertices and indices, surfaces and fogs. Brushes and
 * brush sides name shaders (their `shader` member); models name surfaces through first_face and
 * num_faces, and their brushes. Lightmap pages go through bspkit_builder_set_lighting(),
 * uncompressed visibility rows through bspkit_builder_set_visibility(). */
BSPKIT_API bspkit_result bspkit_builder_set_shaders(bspkit_builder *b, const bspkit_shader *shaders,
                                                    size_t count, bspkit_error *err);
BSPKIT_API bspkit_result bspkit_builder_set_drawverts(bspkit_builder *b, const bspkit_drawvert *verts,
                                                      size_t count, bspkit_error *err);
BSPKIT_API bspkit_result bspkit_builder_set_drawindexes(bspkit_builder *b, const int32_t *indexes, size_t count,
                                                        bspkit_error *err);
BSPKIT_API bspkit_result bspkit_builder_set_surfaces(bspkit_builder *b, const bspkit_surface *surfaces,
                                                     size_t count, bspkit_error *err);
BSPKIT_API bspkit_result bspkit_builder_set_fogs(bspkit_builder *b, const bspkit_fog *fogs, size_t count,
                                                 bspkit_error *err);

/**
 * The entity text. A terminating NUL is appended when `text` does not end
 * with one, as compilers write it. `size` is the text length in bytes.
 */
BSPKIT_API bspkit_result bspkit_builder_set_entities(bspkit_builder *b, const char *text, size_t size, bspkit_error *err);

/**
 * Quake/GoldSrc TEXTURES lump from miptex descriptions, reusing the struct the
 * reader returns. Used fields: name, width, height, embedded, mips[4] and,
 * GoldSrc only, palette (palette_size RGB triples; 0 means 256). An embedded
 * texture needs width and height that are multiples of 16 and all four mips
 * ((width >> i) * (height >> i) bytes each); its palette follows the mips as
 * uint16 count + RGB triples, padded to 4 bytes. A non-embedded texture is
 * written with all mip offsets 0 (it lives in a WAD). A negative lump_offset
 * writes an empty directory slot (offset -1); mip_offsets are computed.
 */
BSPKIT_API bspkit_result bspkit_builder_set_miptex(bspkit_builder *b, const bspkit_miptex *textures, size_t count,
                                        bspkit_error *err);

/**
 * Lightmap samples: Quake 1 byte per luxel, GoldSrc RGB, Source 4-byte
 * ColorRGBExp32 (byte data, so identical in either byte order). `hdr`
 * selects Source LIGHTING_HDR. Faces address this lump by light_offset.
 */
BSPKIT_API bspkit_result bspkit_builder_set_lighting(bspkit_builder *b, bool hdr, const void *data, size_t size,
                                          bspkit_error *err);

/**
 * Visibility from uncompressed rows. `pvs` holds `rows` rows of `row_bytes`
 * bytes each; rows are run-length compressed as the engines expect.
 *  - Source: one row per cluster (row_bytes = (rows + 7) / 8); the lump gets
 *    the dvis_t header (numclusters, {pvs offset, pas offset} per cluster).
 *    `pas` gives the PAS rows; NULL makes each cluster's PAS offset point at
 *    its PVS row.
 *  - Quake/GoldSrc: one row per visible leaf (leaf i + 1 for row i;
 *    row_bytes = (model 0 vis_leafs + 7) / 8); `pas` must be NULL.
 * When `row_offsets` is not NULL it receives `rows` byte offsets of the
 * compressed PVS rows inside the lump: what Quake/GoldSrc leafs store in
 * vis_offset.
 */
BSPKIT_API bspkit_result bspkit_builder_set_visibility(bspkit_builder *b, uint32_t rows, uint32_t row_bytes,
                                            const uint8_t *pvs, const uint8_t *pas, int32_t *row_offsets,
                                            bspkit_error *err);

/** One Source game lump to write. */
typedef struct bspkit_game_lump_data {
    uint32_t id;        /**< four characters, first in the high byte: 'sprp' = 0x73707270 */
    uint16_t flags;     /**< bit 0: `data` is already a Valve LZMA stream */
    uint16_t version;
    const void *data;   /**< the game lump's bytes in the target byte order */
    size_t size;
} bspkit_game_lump_data;

/**
 * Source GAME_LUMP: the directory (int32 count, then {id, flags, version,
 * offset, length} per entry) followed by each entry's data, with offsets
 * computed as absolute file offsets when the file is laid out. When any
 * entry is flagged compressed, a terminating entry with id 0 is appended so
 * readers can size the last compressed lump, as Valve's tools do. A Source
 * map always gets a GAME_LUMP: with no entries set it holds count 0.
 */
BSPKIT_API bspkit_result bspkit_builder_set_game_lumps(bspkit_builder *b, const bspkit_game_lump_data *lumps, size_t count,
                                            bspkit_error *err);

/**
 * Lay out and encode the map into a new buffer (*out, *size); the caller
 * frees it with bspkit_free(). `opts` may be NULL.
 *
 * Layout: the header and directory first, then lumps 4-byte aligned with zero
 * padding. Quake/GoldSrc lumps follow the order the id/Valve compilers write
 * (PLANES, LEAFS, VERTEXES, NODES, TEXINFO, FACES, CLIPNODES, MARKSURFACES,
 * SURFEDGES, EDGES, MODELS, LIGHTING, VISIBILITY, ENTITIES, TEXTURES); empty
 * lumps get the running offset and length 0. Source lumps follow index order
 * from PLANES, then ENTITIES, then PAKFILE last and 2048-aligned; empty lumps
 * have an all-zero directory entry.
 */
BSPKIT_API bspkit_result bspkit_builder_write(const bspkit_builder *b, const bspkit_write_options *opts, uint8_t **out,
                                   size_t *size, bspkit_error *err);

/**
 * Write the map to `path` atomically: the bytes go to a new temporary file in
 * the target's directory, which is flushed to disk (fsync) and then renamed
 * over `path`. On any failure the temporary file is removed and an existing
 * `path` is left untouched; a missing directory fails with BSPKIT_ERR_IO. An
 * existing file at `path` is replaced (a symlink is replaced, not followed).
 * New files get mode 0666 minus the umask.
 */
BSPKIT_API bspkit_result bspkit_builder_save(const bspkit_builder *b, const char *path, const bspkit_write_options *opts,
                                  bspkit_error *err);

/** The same as bspkit_free(), kept for programs written against earlier releases. */
BSPKIT_API void bspkit_free_buffer(void *buffer);

/**
 * Run-length compress one visibility row as Quake, GoldSrc and Source store
 * it (a zero byte is followed by the count of zero bytes, at most 255); the
 * inverse of bspkit_vis_decompress(). `dst` needs at most
 * BSPKIT_VIS_COMPRESS_BOUND(row_bytes) bytes; fails with BSPKIT_ERR_ARGUMENT
 * when `dst_size` is too small. `*written` gets the compressed size.
 */
#define BSPKIT_VIS_COMPRESS_BOUND(row_bytes) ((size_t)(row_bytes) * 2)
BSPKIT_API bspkit_result bspkit_vis_compress(const uint8_t *row, size_t row_bytes, uint8_t *dst, size_t dst_size,
                                  size_t *written);

/* ------------------------------------------------------------------------ */
/* Sample maps                                                               */
/* ------------------------------------------------------------------------ */

/**
 * Small valid maps bspkit generates itself. All are a closed room with the
 * interior box (-64,-64,0)-(64,64,128) behind 16-unit walls, so the world
 * spans (-80,-80,-16)-(80,80,144), and the room centre (0,0,64) lies in the
 * single empty leaf 1 of the world tree. Every face is lightmapped.
 *
 *  - GOLDSRC_ROOM: BSP30, 6 inward faces, a 6-node chain (interior leaf 1,
 *    solid leaf 0), clip hulls 1-3 as 6-clipnode chains, visibility for leaf
 *    1, two embedded miptex (16x16 and 32x32) with mips and palettes, RGB
 *    lighting, entities worldspawn, info_player_start, light.
 *  - QUAKE_ROOM: the same as BSP29: hulls 1-2, palette-less miptex, 1-byte
 *    lighting.
 *  - SOURCE_ROOM: VBSP 20 built from 6 wall brushes plus a func_brush (model
 *    1, a 32-unit box floating at (16,-16,16)-(48,16,48) with its own 6 faces,
 *    nodes and leafs), texdata with two material names, ColorRGBExp32
 *    lighting (LDR and HDR), one vis cluster, 2 areas, GAME_LUMP with no
 *    entries and an empty zip as PAKFILE.
 *  - SOURCE_ROOM_BE: the same map big-endian (`PSBV`).
 *  - SOURCE_ROOM_LZMA: the same map little-endian with LZMA-compressed lumps.
 *  - QUAKE2_ROOM: the Source room's geometry as a Quake 2 IBSP 38 map: brushes,
 *    one vis cluster with PVS and PHS, 2 areas, three named textures (floor,
 *    wall, nodraw) and RGB lightmaps.
 *  - QUAKE3_ROOM: the room as a Quake 3 IBSP 46 map: 6 caulk wall brushes whose
 *    inner sides carry floor and wall shaders, the 6 inner faces as planar
 *    surfaces lit from one 128x128 lightmap page, a vertex-lit 3x3 Bezier patch
 *    raised 32 units over the floor's centre, one node on the floor plane with
 *    the room (leaf 1, cluster 0) above and the outside (leaf 0) below,
 *    uncompressed visibility.
 */
typedef enum bspkit_sample_kind {
    BSPKIT_SAMPLE_GOLDSRC_ROOM = 0,
    BSPKIT_SAMPLE_QUAKE_ROOM,
    BSPKIT_SAMPLE_SOURCE_ROOM,
    BSPKIT_SAMPLE_SOURCE_ROOM_BE,
    BSPKIT_SAMPLE_SOURCE_ROOM_LZMA,
    BSPKIT_SAMPLE_QUAKE2_ROOM,
    BSPKIT_SAMPLE_QUAKE3_ROOM,
    BSPKIT_SAMPLE_COUNT
} bspkit_sample_kind;

/** "goldsrc-room", "quake-room", "source-room", "source-room-be", "source-room-lzma", "quake2-room",
 *  "quake3-room"; NULL when out of range. */
BSPKIT_API const char *bspkit_sample_name(bspkit_sample_kind kind);

/** The kind named `name` (as bspkit_sample_name() spells it), or -1. */
BSPKIT_API int bspkit_sample_find(const char *name);

/**
 * The sample as an editable builder plus the write options of its flavour
 * (byte order, compression). Free the builder with bspkit_builder_free().
 */
BSPKIT_API bspkit_result bspkit_sample_builder(bspkit_sample_kind kind, bspkit_builder **out, bspkit_write_options *opts,
                                    bspkit_error *err);

/**
 * Build the sample's file bytes into a new buffer; free with
 * bspkit_free(). The output is deterministic.
 */
BSPKIT_API bspkit_result bspkit_sample_build(bspkit_sample_kind kind, uint8_t **out, size_t *size, bspkit_error *err);

#ifdef __cplusplus
}
#endif

#endif /* BSPKIT_WRITE_H */
