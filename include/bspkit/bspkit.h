/*
 * bspkit — read, check and decode Quake, GoldSrc and Source BSP map files.
 *
 * Conventions used throughout this header:
 *  - Every function that can fail returns a bspkit_result and, when `err` is
 *    not NULL, fills it with the code, a message, and the lump and byte offset
 *    the failure concerns.
 *  - Options structs are valid when zero-initialised; zero selects the default.
 *  - Pointers returned by bspkit_get_* and friends are BORROWED: they belong
 *    to the map and stay valid until bspkit_close(). Never free them.
 *  - Decoding is lazy: a lump is decoded (and, if LZMA-compressed,
 *    decompressed) on the first request and cached. A bspkit_map is therefore
 *    not safe to use from several threads at once without a lock; separate
 *    maps are independent.
 *  - All records are decoded from bytes into the native structs below, so the
 *    same structs describe Quake, GoldSrc and Source maps. Fields a family
 *    lacks hold 0, or -1 where -1 means "none" (e.g. dispinfo).
 */
#ifndef BSPKIT_BSPKIT_H
#define BSPKIT_BSPKIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BSPKIT_VERSION_STRING "0.1.0"

/* Marks the functions the shared library exports. The library is built with
 * hidden visibility, so nothing else (no internal helper) is part of the ABI. */
#if defined(_WIN32) && defined(BSPKIT_SHARED_BUILD)
#define BSPKIT_API __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define BSPKIT_API __attribute__((visibility("default")))
#else
#define BSPKIT_API
#endif

/* Marks a name kept for programs written against earlier releases. */
#if defined(__GNUC__) || defined(__clang__)
#define BSPKIT_DEPRECATED(replacement) __attribute__((deprecated("use " replacement)))
#else
#define BSPKIT_DEPRECATED(replacement)
#endif

/* ------------------------------------------------------------------------ */
/* Results and errors                                                        */
/* ------------------------------------------------------------------------ */

/** One code per failure class. The values are part of the ABI: they never change, and new
 *  codes are added before BSPKIT_RESULT_COUNT. */
typedef enum bspkit_result {
    BSPKIT_OK = 0,
    BSPKIT_ERR_ARGUMENT = 1,        /**< invalid argument from the caller */
    BSPKIT_ERR_IO = 2,              /**< file could not be opened, read, mapped or written */
    BSPKIT_ERR_NOMEM = 3,           /**< the system allocator failed */
    BSPKIT_ERR_LIMIT = 4,           /**< a limit in bspkit_options would be exceeded */
    BSPKIT_ERR_EMPTY = 5,           /**< the input has no bytes */
    BSPKIT_ERR_TRUNCATED = 6,       /**< the input ends inside the header or directory */
    BSPKIT_ERR_UNKNOWN_FORMAT = 7,  /**< not a format bspkit recognises */
    BSPKIT_ERR_UNSUPPORTED = 8,     /**< a recognised format bspkit does not read (Quake 3, Respawn, zip, ...) */
    BSPKIT_ERR_LUMP_RANGE = 9,      /**< a lump's offset/length lies outside the file */
    BSPKIT_ERR_LUMP_SIZE = 10,      /**< a lump's length is not a whole number of records */
    BSPKIT_ERR_COMPRESSION = 11,    /**< an LZMA lump header or stream is invalid */
    BSPKIT_ERR_ENTITIES = 12,       /**< the entity text is malformed */
    BSPKIT_ERR_VISIBILITY = 13,     /**< the visibility data is malformed */
    BSPKIT_ERR_TEXTURES = 14,       /**< the miptex directory or a miptex is malformed */
    BSPKIT_ERR_GAME_LUMP = 15,      /**< the game-lump directory is malformed */
    BSPKIT_ERR_INDEX = 16,          /**< a cross-reference is out of range (reported by validate) */
    BSPKIT_ERR_ENGINE_LIMIT = 17,   /**< a count exceeds the engine's limit (a validate warning) */
    BSPKIT_ERR_NOT_FOUND = 18,      /**< the requested lump or item does not exist */
    BSPKIT_ERR_INCOMPLETE = 19,     /**< an unfinished compile: a file the compiler stopped writing early (validate) */
    BSPKIT_RESULT_COUNT = 20
} bspkit_result;

/** Describes a failure. `lump` is -1 and offsets are -1 when not applicable. */
typedef struct bspkit_error {
    bspkit_result code;
    int lump;             /**< lump index the failure concerns, or -1 */
    int64_t offset;       /**< absolute byte offset in the file, or -1 */
    int64_t lump_offset;  /**< byte offset inside the (decompressed) lump, or -1 */
    char message[256];    /**< human-readable, names the lump and offsets */
} bspkit_error;

/**
 * Release memory the library handed out as a plain buffer or string (encoded
 * maps, images, archives, JSON and decompiled text, cleaned paths). Objects
 * with their own type have their own *_free function. NULL is allowed.
 */
BSPKIT_API void bspkit_free(void *p);

/** A short constant description of a result code ("lump out of range", ...). */
BSPKIT_API const char *bspkit_strerror(bspkit_result code);

/* ------------------------------------------------------------------------ */
/* Formats                                                                   */
/* ------------------------------------------------------------------------ */

typedef enum bspkit_family {
    BSPKIT_FAMILY_UNKNOWN = 0,
    BSPKIT_FAMILY_QUAKE,   /**< Quake BSP29, BSP2, 2PSB */
    BSPKIT_FAMILY_GOLDSRC, /**< Half-Life BSP30 (and v29 files with GoldSrc lumps) */
    BSPKIT_FAMILY_SOURCE,  /**< Source VBSP, either byte order */
    BSPKIT_FAMILY_QUAKE2,  /**< Quake 2 IBSP 38, Daikatana IBSP 41 */
    BSPKIT_FAMILY_QUAKE3,  /**< Quake 3 / OpenArena IBSP 46, Quake Live / RTCW IBSP 47 */
    BSPKIT_FAMILY_TITANFALL /**< Titanfall 2 rBSP 37 (read-only) */
} bspkit_family;

/** Variant bits in bspkit_format.variant. */
enum {
    BSPKIT_VARIANT_BLUESHIFT = 1u << 0,      /**< GoldSrc: ENTITIES/PLANES directory entries swapped */
    BSPKIT_VARIANT_BSP2 = 1u << 1,           /**< Quake BSP2: 32-bit indices, float bounds */
    BSPKIT_VARIANT_2PSB = 1u << 2,           /**< Quake 2PSB: 32-bit indices, short bounds */
    BSPKIT_VARIANT_L4D2_DIRECTORY = 1u << 3, /**< Source: lump_t stored as {version, offset, length, fourCC} */
    BSPKIT_VARIANT_COMPRESSED = 1u << 4,     /**< Source: at least one LZMA-compressed lump */
    BSPKIT_VARIANT_BSPX = 1u << 5,           /**< Quake/GoldSrc: BSPX extension block after the lumps */
    BSPKIT_VARIANT_WIDE_LUMPS = 1u << 6,     /**< Source: Strata-style 32-bit lump versions (v25) */
    BSPKIT_VARIANT_EXTERNAL_LUMPS = 1u << 7, /**< Titanfall: lumps read from .bsp_lump files beside the map */
    BSPKIT_VARIANT_NO_EXTERNAL = 1u << 8,    /**< Titanfall: opened from memory, so .bsp_lump files were not looked for */
    BSPKIT_VARIANT_V18_FACES = 1u << 9,      /**< Source v18 (HL2 beta): 72-byte faces, four average light colours first */
    BSPKIT_VARIANT_DARK_MESSIAH = 1u << 10,  /**< Source: Dark Messiah (header version 0x40014; version reads 20) */
    BSPKIT_VARIANT_VINDICTUS = 1u << 11,     /**< Source: Vindictus (32-bit fields in most records) */
    BSPKIT_VARIANT_XOR_ENCRYPTED = 1u << 12, /**< Source: Tactical Intervention, the file XORed with a 32-byte key */
    BSPKIT_VARIANT_CONTAGION = 1u << 13,     /**< Source v27 (Contagion): an extra int before the lump directory */
    BSPKIT_VARIANT_DOTA2_BETA = 1u << 14     /**< Source v22/v23 (Dota 2 betas): wider dispinfo (and v23 overlays) */
};

/** Variant bits of Source maps bspkit reads but does not write (edits, conversion and saving are refused). */
#define BSPKIT_VARIANT_READ_ONLY                                                                        \
    (BSPKIT_VARIANT_DARK_MESSIAH | BSPKIT_VARIANT_VINDICTUS | BSPKIT_VARIANT_XOR_ENCRYPTED |            \
     BSPKIT_VARIANT_CONTAGION)

/** What a file is, decided from its bytes alone. */
typedef struct bspkit_format {
    bspkit_family family;
    int32_t version;   /**< header version: 29, 30, or the VBSP version */
    bool big_endian;   /**< Source `PSBV` files */
    unsigned variant;  /**< BSPKIT_VARIANT_* bits */
    int32_t revision;  /**< Source map revision; 0 for other families */
    int lump_count;    /**< 15 for Quake/GoldSrc, 64 for Source, 128 for Titanfall 2 */
    char name[40];     /**< e.g. "GoldSrc BSP30", "Source VBSP 20 (big-endian)", "Source VBSP 20 (Vindictus)" */
} bspkit_format;

/** "quake", "goldsrc", "source", "quake2", "quake3", "titanfall" or "unknown". */
BSPKIT_API const char *bspkit_family_name(bspkit_family family);

/**
 * Identify `data` without opening it. Unsupported but known formats return
 * BSPKIT_ERR_UNSUPPORTED with a message naming what the file is
 * (e.g. "not supported: Quake 3 IBSP version 46").
 */
BSPKIT_API bspkit_result bspkit_detect(const void *data, size_t size, bspkit_format *out, bspkit_error *err);

/* ------------------------------------------------------------------------ */
/* Opening                                                                   */
/* ------------------------------------------------------------------------ */

enum {
    BSPKIT_OPEN_NO_MMAP = 1u << 0, /**< open_file: read into memory instead of mmap */
    BSPKIT_OPEN_COPY = 1u << 1,    /**< open_memory: copy the caller's bytes */
    BSPKIT_OPEN_STRICT_ENTITIES = 1u << 2 /**< refuse damaged entity text instead of reading it as the
                                               engines do (bspkit_get_entities) */
};

/**
 * Where a map's own memory comes from: the map itself, a copy of the file,
 * decompressed lumps and every decoded array, table and cache it keeps until
 * bspkit_close(). Set both functions or neither (all-zero: malloc and free).
 * Objects handed to the caller to release (buffers for bspkit_free, entity
 * lists, pak archives, reports) come from malloc whatever is set here.
 */
typedef struct bspkit_allocator {
    void *(*alloc)(void *user, size_t size); /**< NULL on failure; never called with 0 */
    void (*free)(void *user, void *ptr);     /**< ptr came from alloc (never NULL) */
    void *user;                              /**< passed to both */
} bspkit_allocator;

/** Open options; all-zero selects the defaults given per field. */
typedef struct bspkit_options {
    uint64_t max_file_size; /**< largest input accepted; 0 = 4 GiB - 1 */
    uint64_t max_lump_size; /**< largest decompressed lump or game lump; 0 = 256 MiB */
    uint64_t max_memory;    /**< total bytes a map may allocate for decoded data;
                                 0 = 64 MiB + 16 x the file size (real maps need at most ~4.2 x) */
    unsigned flags;         /**< BSPKIT_OPEN_* */
    bspkit_allocator allocator; /**< all-zero: malloc and free */
} bspkit_options;

typedef struct bspkit_map bspkit_map;

/**
 * Open a map file (memory-mapped unless BSPKIT_OPEN_NO_MMAP). Detects the
 * format, reads the lump directory and checks every lump's range and record
 * size; lump contents are decoded lazily. `opts` may be NULL.
 */
BSPKIT_API bspkit_result bspkit_open_file(const char *path, const bspkit_options *opts, bspkit_map **out,
                               bspkit_error *err);

/**
 * Open a map held in memory. Without BSPKIT_OPEN_COPY the bytes are borrowed
 * and must outlive the map.
 */
BSPKIT_API bspkit_result bspkit_open_memory(const void *data, size_t size, const bspkit_options *opts,
                                 bspkit_map **out, bspkit_error *err);

/** Release the map and everything borrowed from it. NULL is allowed. */
BSPKIT_API void bspkit_close(bspkit_map *map);

BSPKIT_API const bspkit_format *bspkit_map_format(const bspkit_map *map);
/** The whole file as opened (borrowed). */
BSPKIT_API const uint8_t *bspkit_map_bytes(const bspkit_map *map, size_t *size);
/** Bytes currently allocated for decoded data (counted against max_memory). */
BSPKIT_API uint64_t bspkit_map_memory_used(const bspkit_map *map);

/* ------------------------------------------------------------------------ */
/* Lumps                                                                     */
/* ------------------------------------------------------------------------ */

/** Quake/GoldSrc lump indices (logical order; Blue Shift files are mapped to it). */
enum {
    BSPKIT_Q_ENTITIES = 0, BSPKIT_Q_PLANES, BSPKIT_Q_TEXTURES, BSPKIT_Q_VERTEXES,
    BSPKIT_Q_VISIBILITY, BSPKIT_Q_NODES, BSPKIT_Q_TEXINFO, BSPKIT_Q_FACES, BSPKIT_Q_LIGHTING,
    BSPKIT_Q_CLIPNODES, BSPKIT_Q_LEAFS, BSPKIT_Q_MARKSURFACES, BSPKIT_Q_EDGES,
    BSPKIT_Q_SURFEDGES, BSPKIT_Q_MODELS, BSPKIT_Q_LUMP_COUNT
};

/** Quake 2 lump indices; Daikatana (IBSP 41) adds two lumps after them. */
enum {
    BSPKIT_Q2_ENTITIES = 0, BSPKIT_Q2_PLANES, BSPKIT_Q2_VERTEXES, BSPKIT_Q2_VISIBILITY, BSPKIT_Q2_NODES,
    BSPKIT_Q2_TEXINFO, BSPKIT_Q2_FACES, BSPKIT_Q2_LIGHTING, BSPKIT_Q2_LEAFS, BSPKIT_Q2_LEAFFACES,
    BSPKIT_Q2_LEAFBRUSHES, BSPKIT_Q2_EDGES, BSPKIT_Q2_SURFEDGES, BSPKIT_Q2_MODELS, BSPKIT_Q2_BRUSHES,
    BSPKIT_Q2_BRUSHSIDES, BSPKIT_Q2_POP, BSPKIT_Q2_AREAS, BSPKIT_Q2_AREAPORTALS, BSPKIT_Q2_LUMP_COUNT,
    BSPKIT_DK_LUMP_COUNT = BSPKIT_Q2_LUMP_COUNT + 2
};

/** Quake 3 lump indices (IBSP 46 and 47). Quake Live adds an eighteenth lump, ADVERTISEMENTS;
    newer q3map2 builds write it empty for every game. */
enum {
    BSPKIT_Q3_ENTITIES = 0, BSPKIT_Q3_SHADERS, BSPKIT_Q3_PLANES, BSPKIT_Q3_NODES, BSPKIT_Q3_LEAFS,
    BSPKIT_Q3_LEAFSURFACES, BSPKIT_Q3_LEAFBRUSHES, BSPKIT_Q3_MODELS, BSPKIT_Q3_BRUSHES, BSPKIT_Q3_BRUSHSIDES,
    BSPKIT_Q3_DRAWVERTS, BSPKIT_Q3_DRAWINDEXES, BSPKIT_Q3_FOGS, BSPKIT_Q3_SURFACES, BSPKIT_Q3_LIGHTMAPS,
    BSPKIT_Q3_LIGHTGRID, BSPKIT_Q3_VISIBILITY, BSPKIT_Q3_LUMP_COUNT,
    BSPKIT_QL_ADVERTISEMENTS = BSPKIT_Q3_LUMP_COUNT, BSPKIT_QL_LUMP_COUNT
};

/**
 * Titanfall 2 (rBSP 37) lump indices, named as bsp_tool names them; slots the
 * game does not use are UNUSED_n. Retail maps keep most lumps in
 * `<map>.bsp.<xxxx>.bsp_lump` files beside the map (xxxx: the index as four
 * lower-case hex digits), which bspkit_open_file() reads in place of the
 * lump in the .bsp.
 */
enum {
    BSPKIT_R2_ENTITIES = 0, BSPKIT_R2_PLANES = 1, BSPKIT_R2_TEXTURE_DATA = 2, BSPKIT_R2_VERTICES = 3,
    BSPKIT_R2_LIGHTPROBE_PARENT_INFOS = 4, BSPKIT_R2_SHADOW_ENVIRONMENTS = 5,
    BSPKIT_R2_LIGHTPROBE_BSP_NODES = 6, BSPKIT_R2_LIGHTPROBE_BSP_REF_IDS = 7, BSPKIT_R2_UNUSED_8 = 8,
    BSPKIT_R2_UNUSED_9 = 9, BSPKIT_R2_UNUSED_10 = 10, BSPKIT_R2_UNUSED_11 = 11, BSPKIT_R2_UNUSED_12 = 12,
    BSPKIT_R2_UNUSED_13 = 13, BSPKIT_R2_MODELS = 14, BSPKIT_R2_UNUSED_15 = 15, BSPKIT_R2_UNUSED_16 = 16,
    BSPKIT_R2_UNUSED_17 = 17, BSPKIT_R2_UNUSED_18 = 18, BSPKIT_R2_UNUSED_19 = 19, BSPKIT_R2_UNUSED_20 = 20,
    BSPKIT_R2_UNUSED_21 = 21, BSPKIT_R2_UNUSED_22 = 22, BSPKIT_R2_UNUSED_23 = 23,
    BSPKIT_R2_ENTITY_PARTITIONS = 24, BSPKIT_R2_UNUSED_25 = 25, BSPKIT_R2_UNUSED_26 = 26,
    BSPKIT_R2_UNUSED_27 = 27, BSPKIT_R2_UNUSED_28 = 28, BSPKIT_R2_PHYSICS_COLLIDE = 29,
    BSPKIT_R2_VERTEX_NORMALS = 30, BSPKIT_R2_UNUSED_31 = 31, BSPKIT_R2_UNUSED_32 = 32,
    BSPKIT_R2_UNUSED_33 = 33, BSPKIT_R2_UNUSED_34 = 34, BSPKIT_R2_GAME_LUMP = 35,
    BSPKIT_R2_LEAF_WATER_DATA = 36, BSPKIT_R2_UNUSED_37 = 37, BSPKIT_R2_UNUSED_38 = 38,
    BSPKIT_R2_UNUSED_39 = 39, BSPKIT_R2_PAKFILE = 40, BSPKIT_R2_UNUSED_41 = 41, BSPKIT_R2_CUBEMAPS = 42,
    BSPKIT_R2_TEXTURE_DATA_STRING_DATA = 43, BSPKIT_R2_TEXTURE_DATA_STRING_TABLE = 44,
    BSPKIT_R2_UNUSED_45 = 45, BSPKIT_R2_UNUSED_46 = 46, BSPKIT_R2_UNUSED_47 = 47, BSPKIT_R2_UNUSED_48 = 48,
    BSPKIT_R2_UNUSED_49 = 49, BSPKIT_R2_UNUSED_50 = 50, BSPKIT_R2_UNUSED_51 = 51, BSPKIT_R2_UNUSED_52 = 52,
    BSPKIT_R2_UNUSED_53 = 53, BSPKIT_R2_WORLD_LIGHTS = 54, BSPKIT_R2_WORLD_LIGHT_PARENT_INFOS = 55,
    BSPKIT_R2_UNUSED_56 = 56, BSPKIT_R2_UNUSED_57 = 57, BSPKIT_R2_UNUSED_58 = 58, BSPKIT_R2_UNUSED_59 = 59,
    BSPKIT_R2_UNUSED_60 = 60, BSPKIT_R2_UNUSED_61 = 61, BSPKIT_R2_UNUSED_62 = 62, BSPKIT_R2_UNUSED_63 = 63,
    BSPKIT_R2_UNUSED_64 = 64, BSPKIT_R2_UNUSED_65 = 65, BSPKIT_R2_TRICOLL_TRIANGLES = 66,
    BSPKIT_R2_UNUSED_67 = 67, BSPKIT_R2_TRICOLL_NODES = 68, BSPKIT_R2_TRICOLL_HEADERS = 69,
    BSPKIT_R2_UNUSED_70 = 70, BSPKIT_R2_VERTEX_UNLIT = 71, BSPKIT_R2_VERTEX_LIT_FLAT = 72,
    BSPKIT_R2_VERTEX_LIT_BUMP = 73, BSPKIT_R2_VERTEX_UNLIT_TS = 74, BSPKIT_R2_VERTEX_BLINN_PHONG = 75,
    BSPKIT_R2_VERTEX_RESERVED_5 = 76, BSPKIT_R2_VERTEX_RESERVED_6 = 77, BSPKIT_R2_VERTEX_RESERVED_7 = 78,
    BSPKIT_R2_MESH_INDICES = 79, BSPKIT_R2_MESHES = 80, BSPKIT_R2_MESH_BOUNDS = 81,
    BSPKIT_R2_MATERIAL_SORTS = 82, BSPKIT_R2_LIGHTMAP_HEADERS = 83, BSPKIT_R2_UNUSED_84 = 84,
    BSPKIT_R2_CM_GRID = 85, BSPKIT_R2_CM_GRID_CELLS = 86, BSPKIT_R2_CM_GEO_SETS = 87,
    BSPKIT_R2_CM_GEO_SET_BOUNDS = 88, BSPKIT_R2_CM_PRIMITIVES = 89, BSPKIT_R2_CM_PRIMITIVE_BOUNDS = 90,
    BSPKIT_R2_CM_UNIQUE_CONTENTS = 91, BSPKIT_R2_CM_BRUSHES = 92, BSPKIT_R2_CM_BRUSH_SIDE_PLANE_OFFSETS = 93,
    BSPKIT_R2_CM_BRUSH_SIDE_PROPERTIES = 94, BSPKIT_R2_CM_BRUSH_SIDE_TEXTURE_VECTORS = 95,
    BSPKIT_R2_TRICOLL_BEVEL_STARTS = 96, BSPKIT_R2_TRICOLL_BEVEL_INDICES = 97,
    BSPKIT_R2_LIGHTMAP_DATA_SKY = 98, BSPKIT_R2_CSM_AABB_NODES = 99, BSPKIT_R2_CSM_OBJ_REFERENCES = 100,
    BSPKIT_R2_LIGHTPROBES = 101, BSPKIT_R2_STATIC_PROP_LIGHTPROBE_INDICES = 102,
    BSPKIT_R2_LIGHTPROBE_TREE = 103, BSPKIT_R2_LIGHTPROBE_REFERENCES = 104,
    BSPKIT_R2_LIGHTMAP_DATA_REAL_TIME_LIGHTS = 105, BSPKIT_R2_CELL_BSP_NODES = 106, BSPKIT_R2_CELLS = 107,
    BSPKIT_R2_PORTALS = 108, BSPKIT_R2_PORTAL_VERTICES = 109, BSPKIT_R2_PORTAL_EDGES = 110,
    BSPKIT_R2_PORTAL_VERTEX_EDGES = 111, BSPKIT_R2_PORTAL_VERTEX_REFERENCES = 112,
    BSPKIT_R2_PORTAL_EDGE_REFERENCES = 113, BSPKIT_R2_PORTAL_EDGE_INTERSECT_EDGE = 114,
    BSPKIT_R2_PORTAL_EDGE_INTERSECT_VERTEX = 115, BSPKIT_R2_PORTAL_EDGE_INTERSECT_HEADER = 116,
    BSPKIT_R2_OCCLUSION_MESH_VERTICES = 117, BSPKIT_R2_OCCLUSION_MESH_INDICES = 118,
    BSPKIT_R2_CELL_AABB_NODES = 119, BSPKIT_R2_OBJ_REFERENCES = 120, BSPKIT_R2_OBJ_REFERENCE_BOUNDS = 121,
    BSPKIT_R2_LIGHTMAP_DATA_RTL_PAGES = 122, BSPKIT_R2_LEVEL_INFO = 123,
    BSPKIT_R2_SHADOW_MESH_OPAQUE_VERTICES = 124, BSPKIT_R2_SHADOW_MESH_ALPHA_VERTICES = 125,
    BSPKIT_R2_SHADOW_MESH_INDICES = 126, BSPKIT_R2_SHADOW_MESHES = 127, BSPKIT_R2_LUMP_COUNT = 128
};

/** Source lump indices. */
enum {
    BSPKIT_S_ENTITIES = 0, BSPKIT_S_PLANES = 1, BSPKIT_S_TEXDATA = 2, BSPKIT_S_VERTEXES = 3,
    BSPKIT_S_VISIBILITY = 4, BSPKIT_S_NODES = 5, BSPKIT_S_TEXINFO = 6, BSPKIT_S_FACES = 7,
    BSPKIT_S_LIGHTING = 8, BSPKIT_S_OCCLUSION = 9, BSPKIT_S_LEAFS = 10, BSPKIT_S_FACEIDS = 11,
    BSPKIT_S_EDGES = 12, BSPKIT_S_SURFEDGES = 13, BSPKIT_S_MODELS = 14, BSPKIT_S_WORLDLIGHTS = 15,
    BSPKIT_S_LEAFFACES = 16, BSPKIT_S_LEAFBRUSHES = 17, BSPKIT_S_BRUSHES = 18,
    BSPKIT_S_BRUSHSIDES = 19, BSPKIT_S_AREAS = 20, BSPKIT_S_AREAPORTALS = 21,
    BSPKIT_S_DISPINFO = 26, BSPKIT_S_ORIGINALFACES = 27, BSPKIT_S_PHYSDISP = 28,
    BSPKIT_S_PHYSCOLLIDE = 29, BSPKIT_S_VERTNORMALS = 30, BSPKIT_S_VERTNORMALINDICES = 31,
    BSPKIT_S_DISP_LIGHTMAP_ALPHAS = 32, BSPKIT_S_DISP_VERTS = 33,
    BSPKIT_S_DISP_LIGHTMAP_SAMPLE_POSITIONS = 34, BSPKIT_S_GAME_LUMP = 35,
    BSPKIT_S_LEAFWATERDATA = 36, BSPKIT_S_PRIMITIVES = 37, BSPKIT_S_PRIMVERTS = 38,
    BSPKIT_S_PRIMINDICES = 39, BSPKIT_S_PAKFILE = 40, BSPKIT_S_CLIPPORTALVERTS = 41,
    BSPKIT_S_CUBEMAPS = 42, BSPKIT_S_TEXDATA_STRING_DATA = 43,
    BSPKIT_S_TEXDATA_STRING_TABLE = 44, BSPKIT_S_OVERLAYS = 45,
    BSPKIT_S_LEAFMINDISTTOWATER = 46, BSPKIT_S_FACE_MACRO_TEXTURE_INFO = 47,
    BSPKIT_S_DISP_TRIS = 48, BSPKIT_S_PROP_BLOB = 49, BSPKIT_S_WATEROVERLAYS = 50,
    BSPKIT_S_LEAF_AMBIENT_INDEX_HDR = 51, BSPKIT_S_LEAF_AMBIENT_INDEX = 52,
    BSPKIT_S_LIGHTING_HDR = 53, BSPKIT_S_WORLDLIGHTS_HDR = 54,
    BSPKIT_S_LEAF_AMBIENT_LIGHTING_HDR = 55, BSPKIT_S_LEAF_AMBIENT_LIGHTING = 56,
    BSPKIT_S_XZIPPAKFILE = 57, BSPKIT_S_FACES_HDR = 58, BSPKIT_S_MAP_FLAGS = 59,
    BSPKIT_S_OVERLAY_FADES = 60, BSPKIT_S_OVERLAY_SYSTEM_LEVELS = 61, BSPKIT_S_PHYSLEVEL = 62,
    BSPKIT_S_DISP_MULTIBLEND = 63, BSPKIT_S_LUMP_COUNT = 64
};

/** The most lumps any family's directory has (Titanfall 2). */
#define BSPKIT_MAX_LUMPS 128

/** One lump directory entry as the file states it. */
typedef struct bspkit_lump_info {
    int index;                    /**< logical lump index */
    const char *name;             /**< upper-case name, e.g. "PLANES" */
    const char *key;              /**< lower-case counting key, e.g. "planes", or NULL */
    uint32_t offset;              /**< absolute file offset */
    uint32_t length;              /**< stored length in bytes */
    int32_t version;              /**< lump version (Source), 0 otherwise */
    uint32_t fourcc;              /**< raw fourCC field (Source) */
    bool compressed;              /**< stored as a Valve LZMA stream */
    uint32_t uncompressed_length; /**< equals length unless compressed */
    uint32_t record_size;         /**< bytes per record for array lumps in this map, else 0 */
} bspkit_lump_info;

/** Number of lumps in the directory (15, 19, 21, 64 or 128; at most BSPKIT_MAX_LUMPS). */
BSPKIT_API int bspkit_lump_count(const bspkit_map *map);

/** Directory entry of lump `index`. */
BSPKIT_API bspkit_result bspkit_get_lump_info(const bspkit_map *map, int index, bspkit_lump_info *out);
/** Former name of bspkit_get_lump_info(). */
BSPKIT_API bspkit_result bspkit_lump_info_get(const bspkit_map *map, int index, bspkit_lump_info *out)
    BSPKIT_DEPRECATED("bspkit_get_lump_info");

/** Lump index for a name ("PLANES") or key ("planes"), or -1. Case-insensitive. */
BSPKIT_API int bspkit_lump_find(const bspkit_map *map, const char *name);

/**
 * The lump's bytes, decompressed when stored as LZMA (borrowed). An absent
 * lump gives size 0 and a non-NULL pointer.
 */
BSPKIT_API bspkit_result bspkit_lump_bytes(bspkit_map *map, int index, const uint8_t **data, size_t *size,
                                bspkit_error *err);

/**
 * Number of records in an array lump (from the directory; no decoding).
 * Returns BSPKIT_ERR_NOT_FOUND for lumps that are not record arrays.
 */
BSPKIT_API bspkit_result bspkit_lump_record_count(const bspkit_map *map, int index, uint64_t *count);

/** One record count of bspkit_map_record_counts(). */
typedef struct bspkit_record_count {
    const char *key; /**< the lump's key ("planes", "faces", ...; borrowed from the map) */
    uint64_t count;
} bspkit_record_count;

/**
 * The record count of every array lump, one per key, in lump order: when two
 * lumps share a key the first one's count is kept. The "textures" key is left
 * out (its records are not the map's texture count: see
 * bspkit_map_texture_count()). Writes at most `cap` entries to `out` (which
 * may be NULL when `cap` is 0) and returns how many there are in all, so a
 * caller can size its array; never more than BSPKIT_MAX_LUMPS.
 */
BSPKIT_API size_t bspkit_map_record_counts(const bspkit_map *map, bspkit_record_count *out, size_t cap);

/**
 * The path of the file beside the map that lump `index` was read from (a
 * Titanfall `.bsp_lump` file), or NULL when the lump's bytes are in the map
 * file itself. Such a lump's info gives the directory's offset and the
 * external file's size as its length.
 */
BSPKIT_API const char *bspkit_lump_external_path(const bspkit_map *map, int index);

/* ------------------------------------------------------------------------ */
/* Decoded records                                                           */
/* ------------------------------------------------------------------------ */

typedef struct bspkit_vec3 { float x, y, z; } bspkit_vec3;

/** Source lighting sample: colour = rgb * 2^exponent. */
typedef struct bspkit_rgbexp { uint8_t r, g, b; int8_t exponent; } bspkit_rgbexp;

typedef struct bspkit_plane {
    bspkit_vec3 normal;
    float dist;
    int32_t type; /**< 0-2 axial X/Y/Z, 3-5 nearest axis */
} bspkit_plane;

typedef struct bspkit_edge { uint32_t v[2]; } bspkit_edge;

typedef struct bspkit_face {
    uint32_t plane;
    uint8_t side;          /**< nonzero: face normal is the plane normal negated */
    uint8_t on_node;       /**< Source */
    int32_t first_edge;    /**< index into surfedges */
    int32_t num_edges;
    int32_t texinfo;       /**< -1 = none */
    int32_t dispinfo;      /**< Source; -1 = none */
    int32_t fog_volume;    /**< Source surfaceFogVolumeID */
    uint8_t styles[4];     /**< 255 = unused slot */
    int32_t light_offset;  /**< byte offset into LIGHTING; -1 = no lightmap */
    float area;            /**< Source */
    int32_t lightmap_mins[2]; /**< Source, in luxels */
    int32_t lightmap_size[2]; /**< Source, luxels minus one */
    int32_t orig_face;     /**< Source */
    uint32_t num_prims;    /**< Source */
    uint32_t first_prim;   /**< Source */
    uint32_t smoothing_groups; /**< Source */
} bspkit_face;

typedef struct bspkit_node {
    int32_t plane;
    int32_t children[2]; /**< >= 0: node index; < 0: leaf index -(child + 1) */
    bspkit_vec3 mins, maxs;
    uint32_t first_face, num_faces;
    int32_t area;        /**< Source; -1 when the node spans areas */
} bspkit_node;

typedef struct bspkit_leaf {
    int32_t contents;
    int32_t cluster;     /**< Source visibility cluster, -1 = none; Quake/GoldSrc: -1 */
    int32_t vis_offset;  /**< Quake/GoldSrc: byte offset into VISIBILITY, -1 = none; Source: -1 */
    int32_t area;        /**< Source */
    int32_t flags;       /**< Source */
    bspkit_vec3 mins, maxs;
    uint32_t first_leaf_face, num_leaf_faces;   /**< Quake/GoldSrc: marksurfaces */
    uint32_t first_leaf_brush, num_leaf_brushes; /**< Source */
    int32_t leaf_water;  /**< Source, -1 = not in water */
    uint8_t ambient_sound[4]; /**< Quake/GoldSrc ambient sound levels */
    bool has_ambient_cube;    /**< Source leaf version 0 carries an inline light cube */
    bspkit_rgbexp ambient_cube[6];
} bspkit_leaf;

typedef struct bspkit_model {
    bspkit_vec3 mins, maxs, origin;
    int32_t headnode[4]; /**< [0] into NODES; Quake/GoldSrc [1..3] into CLIPNODES */
    int32_t vis_leafs;   /**< Quake/GoldSrc */
    int32_t first_face, num_faces; /**< Quake 3: into SURFACES */
    int32_t first_brush, num_brushes; /**< Quake 3; 0 elsewhere */
} bspkit_model;

typedef struct bspkit_texinfo {
    float texture_vecs[2][4];  /**< s and t: xyz scale + offset */
    float lightmap_vecs[2][4]; /**< Source */
    int32_t flags;
    int32_t texture;           /**< Source: texdata index; Quake/GoldSrc: miptex index; Quake 2: -1 */
    int32_t value;             /**< Quake 2: light emitted (with SURF_LIGHT) */
    int32_t next_texinfo;      /**< Quake 2: next frame of an animated texture, -1 = none */
    char texture_name[33];     /**< Quake 2: texture path under textures/, NUL-terminated */
} bspkit_texinfo;

typedef struct bspkit_clipnode {
    int32_t plane;
    int32_t children[2]; /**< >= 0: clipnode index; < 0: contents */
} bspkit_clipnode;

typedef struct bspkit_brush {
    int32_t first_side, num_sides;
    int32_t contents; /**< Quake 3: 0 (its shader's contents apply) */
    int32_t shader;   /**< Quake 3: into SHADERS; -1 elsewhere */
} bspkit_brush;

typedef struct bspkit_brushside {
    uint32_t plane;
    int32_t texinfo;  /**< -1 = none */
    int32_t dispinfo; /**< -1 = none */
    uint8_t bevel;
    uint8_t thin;
    int32_t shader;   /**< Quake 3: into SHADERS; -1 elsewhere */
} bspkit_brushside;

typedef struct bspkit_texdata {
    bspkit_vec3 reflectivity;
    int32_t name_id; /**< index into the texdata string table */
    int32_t width, height, view_width, view_height;
    int32_t flags;   /**< Titanfall: surface and vertex-format flags (BSPKIT_R2_MESH_*); 0 otherwise */
} bspkit_texdata;

typedef struct bspkit_area { int32_t num_portals, first_portal; } bspkit_area;

typedef struct bspkit_areaportal {
    uint32_t portal_key, other_area, first_clip_vert, num_clip_verts;
    int32_t plane;
} bspkit_areaportal;

/** Cubemap sample; size is 0 for the default, else the edge is 1 << (size - 1) (one byte in the file). */
typedef struct bspkit_cubemap { int32_t origin[3]; int32_t size; } bspkit_cubemap;

/** Quake/GoldSrc miptex. Pixel and palette pointers are borrowed from the lump. */
typedef struct bspkit_miptex {
    char name[17];             /**< NUL-terminated */
    uint32_t width, height;
    uint32_t mip_offsets[4];   /**< relative to the miptex header; all 0 = external (WAD) */
    int64_t lump_offset;       /**< offset of the header in TEXTURES, -1 for an empty slot */
    bool embedded;             /**< pixel data is inside the map */
    const uint8_t *mips[4];    /**< palette indices, (width>>i)*(height>>i) each, or NULL */
    const uint8_t *palette;    /**< GoldSrc embedded: palette_size RGB triples, else NULL */
    uint16_t palette_size;
} bspkit_miptex;

typedef struct bspkit_game_lump {
    uint32_t id;          /**< four characters, first in the high byte: 'sprp' = 0x73707270 */
    uint16_t flags;       /**< bit 0: compressed */
    uint16_t version;
    uint32_t offset;      /**< absolute file offset */
    uint32_t length;      /**< stored length */
    bool compressed;
    uint32_t uncompressed_length; /**< from the LZMA header when compressed */
} bspkit_game_lump;

/*
 * Accessors. Each decodes its lump on first call and returns a borrowed array
 * and count. A lump the family lacks, or that is empty, yields count 0.
 * Quake/GoldSrc LEAFFACES come from MARKSURFACES.
 */
BSPKIT_API bspkit_result bspkit_get_planes(bspkit_map *map, const bspkit_plane **out, size_t *count, bspkit_error *err);
BSPKIT_API bspkit_result bspkit_get_vertexes(bspkit_map *map, const bspkit_vec3 **out, size_t *count, bspkit_error *err);
BSPKIT_API bspkit_result bspkit_get_edges(bspkit_map *map, const bspkit_edge **out, size_t *count, bspkit_error *err);
BSPKIT_API bspkit_result bspkit_get_surfedges(bspkit_map *map, const int32_t **out, size_t *count, bspkit_error *err);
BSPKIT_API bspkit_result bspkit_get_faces(bspkit_map *map, const bspkit_face **out, size_t *count, bspkit_error *err);
/** Source: ORIGINALFACES. */
BSPKIT_API bspkit_result bspkit_get_orig_faces(bspkit_map *map, const bspkit_face **out, size_t *count, bspkit_error *err);
/** Source: FACES_HDR. */
BSPKIT_API bspkit_result bspkit_get_hdr_faces(bspkit_map *map, const bspkit_face **out, size_t *count, bspkit_error *err);
BSPKIT_API bspkit_result bspkit_get_nodes(bspkit_map *map, const bspkit_node **out, size_t *count, bspkit_error *err);
BSPKIT_API bspkit_result bspkit_get_leafs(bspkit_map *map, const bspkit_leaf **out, size_t *count, bspkit_error *err);
BSPKIT_API bspkit_result bspkit_get_models(bspkit_map *map, const bspkit_model **out, size_t *count, bspkit_error *err);
BSPKIT_API bspkit_result bspkit_get_texinfo(bspkit_map *map, const bspkit_texinfo **out, size_t *count, bspkit_error *err);
BSPKIT_API bspkit_result bspkit_get_leaf_faces(bspkit_map *map, const uint32_t **out, size_t *count, bspkit_error *err);
BSPKIT_API bspkit_result bspkit_get_leaf_brushes(bspkit_map *map, const uint32_t **out, size_t *count, bspkit_error *err);
BSPKIT_API bspkit_result bspkit_get_clipnodes(bspkit_map *map, const bspkit_clipnode **out, size_t *count, bspkit_error *err);
BSPKIT_API bspkit_result bspkit_get_brushes(bspkit_map *map, const bspkit_brush **out, size_t *count, bspkit_error *err);
BSPKIT_API bspkit_result bspkit_get_brushsides(bspkit_map *map, const bspkit_brushside **out, size_t *count, bspkit_error *err);
BSPKIT_API bspkit_result bspkit_get_texdata(bspkit_map *map, const bspkit_texdata **out, size_t *count, bspkit_error *err);
BSPKIT_API bspkit_result bspkit_get_texdata_string_table(bspkit_map *map, const int32_t **out, size_t *count, bspkit_error *err);
BSPKIT_API bspkit_result bspkit_get_areas(bspkit_map *map, const bspkit_area **out, size_t *count, bspkit_error *err);
BSPKIT_API bspkit_result bspkit_get_areaportals(bspkit_map *map, const bspkit_areaportal **out, size_t *count, bspkit_error *err);
BSPKIT_API bspkit_result bspkit_get_cubemaps(bspkit_map *map, const bspkit_cubemap **out, size_t *count, bspkit_error *err);
/** Quake/GoldSrc miptex directory; embedded pixel data and palettes located and bounds-checked. */
BSPKIT_API bspkit_result bspkit_get_miptex(bspkit_map *map, const bspkit_miptex **out, size_t *count, bspkit_error *err);
/** Source game-lump directory. */
BSPKIT_API bspkit_result bspkit_get_game_lumps(bspkit_map *map, const bspkit_game_lump **out, size_t *count, bspkit_error *err);

/** Bytes of game lump `index` (decompressed when flagged). */
BSPKIT_API bspkit_result bspkit_game_lump_bytes(bspkit_map *map, size_t index, const uint8_t **data, size_t *size,
                                     bspkit_error *err);

/**
 * Texture name of texdata `index` through the string table, or NULL when any
 * index on the way is out of range. The string is NUL-terminated (borrowed).
 * When the string lump does not end in NUL a terminated copy is made; NULL
 * then also means that copy could not be allocated.
 */
BSPKIT_API const char *bspkit_texdata_name(bspkit_map *map, size_t index);

/**
 * Raw lightmap samples. Quake: 1 byte per luxel; GoldSrc: RGB (3 bytes);
 * Source: bspkit_rgbexp (4 bytes), `hdr` selects LIGHTING_HDR.
 */
BSPKIT_API bspkit_result bspkit_get_lighting(bspkit_map *map, bool hdr, const uint8_t **data, size_t *size,
                                  bspkit_error *err);

/** Source PAKFILE lump: a zip archive, as raw bytes. */
BSPKIT_API bspkit_result bspkit_get_pakfile(bspkit_map *map, const uint8_t **data, size_t *size, bspkit_error *err);

/**
 * CRC32 over every lump except ENTITIES, in lump order, over the bytes as
 * stored — the checksum Source servers compare. Source maps only.
 */
BSPKIT_API bspkit_result bspkit_map_crc(bspkit_map *map, uint32_t *crc, bspkit_error *err);

/**
 * The game a map comes from when its bytes say so, else NULL: a Source variant
 * detection recognised (Dark Messiah, Vindictus, Tactical Intervention,
 * Contagion, Dota 2 beta, the Half-Life 2 beta's v18), Bloodlines (v17), a
 * static-prop layout only one game writes (Zeno Clash, The Ship, Bloody Good
 * Time, Black Mesa, Dear Esther; this decodes the static props), Daikatana
 * (IBSP 41) or Titanfall 2. A constant string. Games that write the same
 * bytes as others (most Source games) are not named.
 */
BSPKIT_API const char *bspkit_map_game(bspkit_map *map);

/* ------------------------------------------------------------------------ */
/* Entities                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct bspkit_keyvalue {
    const char *key;   /**< NUL-terminated; may contain any byte except NUL */
    const char *value;
    uint32_t key_length, value_length;
} bspkit_keyvalue;

typedef struct bspkit_entity {
    size_t first_pair, num_pairs; /**< range in bspkit_entities.pairs */
    uint32_t line;                /**< 1-based line of the opening brace */
    uint64_t offset;              /**< byte offset of the opening brace in the text */
    const char *source;           /**< the file the entity was read from (a Titanfall 2 `.ent` partition
                                       file), or NULL for the entity lump; line and offset are that
                                       file's */
} bspkit_entity;

/** Damage the lenient parser read past, as the engines' tokenizers do. */
typedef struct bspkit_entity_warning {
    uint32_t line;       /**< 1-based line where the damage is */
    uint64_t offset;     /**< byte offset of it in the text */
    char message[96];    /**< what was found and how it was read */
    const char *source;  /**< the file the damage is in (a Titanfall 2 `.ent` partition file), or NULL
                              for the entity lump; line 0 when the warning is about a whole file */
} bspkit_entity_warning;

/** Parsed entity text: order and duplicate keys are kept. */
typedef struct bspkit_entities {
    bspkit_entity *entities;
    size_t count;
    bspkit_keyvalue *pairs;
    size_t pair_count;
    uint64_t trailing_bytes;  /**< non-blank bytes after the last block, ignored (some maps carry junk) */
    uint64_t trailing_offset; /**< offset of the first such byte; meaningful when trailing_bytes > 0 */
    void *storage_; /**< private */
    const bspkit_entity_warning *warnings; /**< lenient parsing only: damage read past, in text order */
    size_t warning_count;
} bspkit_entities;

/**
 * Parse KeyValues entity text: `{ "key" "value" ... }` blocks. Quoted values
 * may hold braces and newlines; backslashes are literal (no escapes).
 * Unquoted tokens are accepted as keys or values, as the engines do. Parsing
 * stops at the first NUL byte. Bytes after the last complete block that do
 * not open a new block are skipped and counted in trailing_bytes. Errors
 * (unterminated string or block, key without value, stray '}') carry the
 * byte position in lump_offset and the 1-based line in the message.
 * The result is freed with bspkit_entities_free().
 */
BSPKIT_API bspkit_result bspkit_entities_parse(const char *text, size_t size, bspkit_entities **out, bspkit_error *err);

enum {
    /** Read damaged text the way the engines' tokenizers do instead of failing: a block left
     *  open ends at the next '{' or at the end of the text, a key without a value before '}'
     *  is dropped, an unterminated quoted string runs to the end of the text, and text outside
     *  any block is skipped. Each such place becomes a warning with its line. */
    BSPKIT_ENTITIES_LENIENT = 1u << 0
};

/** bspkit_entities_parse with BSPKIT_ENTITIES_* flags; flags 0 is bspkit_entities_parse. */
BSPKIT_API bspkit_result bspkit_entities_parse_ex(const char *text, size_t size, unsigned flags,
                                                  bspkit_entities **out, bspkit_error *err);
BSPKIT_API void bspkit_entities_free(bspkit_entities *ents);

/** First value for `key` in entity `index` (case-sensitive), or NULL. */
BSPKIT_API const char *bspkit_entity_value(const bspkit_entities *ents, size_t index, const char *key);

/**
 * The map's entities, parsed and cached (borrowed): the entity lump's, then
 * (Titanfall 2) those of each entity partition ENTITY_PARTITIONS names, in
 * its order, read from the `<map>_<partition>.ent` files beside a map opened
 * from a path. A partition not read (no such file, or the map was opened
 * from memory) becomes a warning naming the file.
 */
BSPKIT_API bspkit_result bspkit_get_entities(bspkit_map *map, const bspkit_entities **out, bspkit_error *err);

/* ------------------------------------------------------------------------ */
/* Visibility                                                                */
/* ------------------------------------------------------------------------ */

typedef enum bspkit_vis_kind { BSPKIT_VIS_PVS = 0, BSPKIT_VIS_PAS = 1 } bspkit_vis_kind;

/**
 * Number of visibility rows and bytes per decompressed row. Source: one row
 * per cluster. Quake/GoldSrc: one row per visible leaf (model 0's vis_leafs),
 * bit i standing for leaf i + 1. Maps without vis data give 0 rows.
 */
BSPKIT_API bspkit_result bspkit_vis_dimensions(bspkit_map *map, uint32_t *rows, uint32_t *row_bytes, bspkit_error *err);

/**
 * Decompress the PVS (or Source PAS) row of cluster (Source) or leaf
 * (Quake/GoldSrc, leaf index >= 1) into `out`, which must hold row_bytes.
 * A leaf with no vis data (offset -1) yields all bits set, as the engines do.
 */
BSPKIT_API bspkit_result bspkit_vis_row(bspkit_map *map, uint32_t index, bspkit_vis_kind kind, uint8_t *out,
                             size_t out_size, bspkit_error *err);

/**
 * Run-length decoding shared by all families: a zero byte is followed by a
 * count of zero bytes. Fills `row_bytes` bytes of `dst`; `*consumed` (may be
 * NULL) gets the number of source bytes read. A zero run reaching past the
 * row end is clamped to it, as the engines do (compilers pad rows this way).
 * Fails with BSPKIT_ERR_VISIBILITY when the source ends before the row is
 * full; the unfilled rest of the row is then zeroed.
 */
BSPKIT_API bspkit_result bspkit_vis_decompress(const uint8_t *src, size_t src_size, uint8_t *dst, size_t row_bytes,
                                    size_t *consumed);

/* ------------------------------------------------------------------------ */
/* Validation                                                                */
/* ------------------------------------------------------------------------ */

typedef enum bspkit_severity { BSPKIT_SEVERITY_ERROR = 0, BSPKIT_SEVERITY_WARNING = 1 } bspkit_severity;

typedef struct bspkit_problem {
    bspkit_severity severity;
    bspkit_result code;  /**< BSPKIT_ERR_INDEX, BSPKIT_ERR_ENGINE_LIMIT, or a decode failure */
    int lump;            /**< -1 when none */
    int64_t record;      /**< record index inside the lump, -1 when none */
    int64_t offset;      /**< absolute file offset of the record, -1 for compressed lumps */
    char message[224];
} bspkit_problem;

/** Validation result: the first problems (at most 1000) and full totals. */
typedef struct bspkit_report {
    bspkit_problem *problems;
    size_t count;
    size_t errors;   /**< total errors found, including any not stored */
    size_t warnings; /**< total warnings found, including any not stored */
} bspkit_report;

/**
 * Check every cross-index of the decoded lumps (planes, vertices, edges,
 * surfedges, faces, texinfo, texdata and string table, node and leaf
 * children, model head nodes and face ranges, leaf face/brush ranges,
 * brushsides, clipnodes, visibility and lightmap offsets) and compare counts
 * with the engine limits (warnings). Decode failures are reported as
 * problems too. Returns non-OK only when the check itself could not run
 * (argument error, out of memory). Free with bspkit_report_free().
 * A map's LZMA-compressed lumps (console Source maps) are decompressed
 * together on every online CPU first; the report is the same either way.
 */
BSPKIT_API bspkit_result bspkit_validate(bspkit_map *map, bspkit_report *report, bspkit_error *err);
BSPKIT_API void bspkit_report_free(bspkit_report *report);

enum {
    /** Also report, as warnings, what ericw-tools' `bsputil --check` looks at in Quake and GoldSrc
     *  maps: nodes and clipnodes whose two children are the same, plane pairs and texinfo that
     *  nothing references, faces with a vertex more than 0.1 units off their plane. Real
     *  compilers' output often has the first three, so they are not part of the default check. */
    BSPKIT_VALIDATE_COMPILER_LINT = 1u << 0
};

/** bspkit_validate with BSPKIT_VALIDATE_* flags; flags 0 is bspkit_validate. */
BSPKIT_API bspkit_result bspkit_validate_ex(bspkit_map *map, unsigned flags, bspkit_report *report,
                                            bspkit_error *err);

/** How full a map is against one engine limit, like Valve's vbspinfo. */
typedef struct bspkit_limit_usage {
    const char *name;    /**< vbspinfo's row name, e.g. "brushsides" */
    int lump;
    uint64_t count;
    uint64_t max_count;  /**< 0 = no fixed limit */
    uint64_t bytes;
    uint64_t max_bytes;
} bspkit_limit_usage;

/**
 * Fill up to `capacity` rows of usage against the engine limits of the map's
 * family and version; `*count` gets the number of rows available.
 */
BSPKIT_API bspkit_result bspkit_limits(bspkit_map *map, bspkit_limit_usage *rows, size_t capacity, size_t *count);

#ifdef __cplusplus
}
#endif

#endif /* BSPKIT_BSPKIT_H */
