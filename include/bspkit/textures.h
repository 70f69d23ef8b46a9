/*
 * Textures: where each texture of a map lives and its pixels.
 *
 * Quake/GoldSrc maps embed miptex (8-bit indices; GoldSrc adds a 256-colour
 * palette per texture, Quake uses the fixed Quake palette) or name textures
 * kept in WAD3 files listed by worldspawn's "wad" key. Source maps name
 * materials in texdata; their VTF images may be packed in the pakfile as
 * materials/<name>.vtf. Quake 2 maps name textures in texinfo
 * (textures/<name>.wal in the game's files, which are not searched).
 */
#ifndef BSPKIT_TEXTURES_H
#define BSPKIT_TEXTURES_H

#include "bspkit/bspkit.h"
#include "bspkit/image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- WAD3 files ---------------------------------------------------------- */

typedef struct bspkit_wad bspkit_wad;

/** One directory entry of a WAD file. */
typedef struct bspkit_wad_entry {
    char name[17];      /**< NUL-terminated, as stored (case kept) */
    uint8_t type;       /**< 0x43 miptex, 0x42 qpic, 0x46 font, 0x40 palette (WAD2/3 values) */
    uint8_t compression;/**< 0 = none; others are reported, not decoded */
    uint32_t offset;    /**< file offset of the entry */
    uint32_t size;      /**< bytes on disk */
    uint32_t width;     /**< miptex/qpic width, 0 for other types or malformed entries */
    uint32_t height;
} bspkit_wad_entry;

/** Parse a WAD2 ("WAD2") or WAD3 ("WAD3") file from memory; `data` is copied. */
BSPKIT_API bspkit_result bspkit_wad_open_memory(const void *data, size_t size, bspkit_wad **out, bspkit_error *err);
/** Read and parse a WAD file; errors name the path. */
BSPKIT_API bspkit_result bspkit_wad_open_file(const char *path, bspkit_wad **out, bspkit_error *err);
BSPKIT_API void bspkit_wad_close(bspkit_wad *wad);
BSPKIT_API size_t bspkit_wad_count(const bspkit_wad *wad);
BSPKIT_API bspkit_result bspkit_wad_entry_info(const bspkit_wad *wad, size_t index, bspkit_wad_entry *out, bspkit_error *err);
/** Index of the entry named `name`, compared case-insensitively as the engines do. */
BSPKIT_API bspkit_result bspkit_wad_find(const bspkit_wad *wad, const char *name, size_t *index, bspkit_error *err);
/**
 * Decode a miptex (or qpic) entry's largest mip to RGBA through its palette.
 * Names starting with '{' make palette index 255 transparent (alpha 0).
 */
BSPKIT_API bspkit_result bspkit_wad_load_image(const bspkit_wad *wad, size_t index, bspkit_image *out, bspkit_error *err);

/* ---- Miptex (embedded or from a WAD) ------------------------------------- */

/**
 * Decode one embedded miptex of the map (index into bspkit_get_miptex()) to
 * RGBA. External miptex (no pixel data) give BSPKIT_ERR_NOT_FOUND.
 */
BSPKIT_API bspkit_result bspkit_miptex_load_image(bspkit_map *map, size_t index, bspkit_image *out, bspkit_error *err);

/**
 * The map's embedded miptex as a WAD file in a new buffer (free with
 * bspkit_free): WAD2 for Quake maps, WAD3 with each texture's palette for
 * GoldSrc maps; each entry holds the miptex bytes exactly as the map does.
 * Textures kept outside the map are left out. `written` (may be NULL) gets
 * the entry count.
 */
BSPKIT_API bspkit_result bspkit_miptex_write_wad(bspkit_map *map, uint8_t **out, size_t *size, size_t *written,
                                                 bspkit_error *err);

/* ---- VTF ------------------------------------------------------------------ */

/** What a VTF header says. */
typedef struct bspkit_vtf_info {
    uint32_t version_major, version_minor;
    uint32_t width, height;   /**< of the largest mip */
    uint32_t depth;           /**< 1 for 2D textures */
    uint32_t frames, faces;   /**< animation frames; 6 (or 7) for cube maps, else 1 */
    uint32_t mip_count;
    uint32_t flags;
    int32_t format;           /**< IMAGE_FORMAT_* value of the high-resolution image */
    const char *format_name;  /**< "DXT1", "BGRA8888", ... or "unknown" */
    bool format_supported;    /**< bspkit_vtf_decode can turn this format into RGBA */
} bspkit_vtf_info;

/** Parse a VTF header (versions 7.0–7.5) without decoding pixels. */
BSPKIT_API bspkit_result bspkit_vtf_read_info(const void *data, size_t size, bspkit_vtf_info *out, bspkit_error *err);

/**
 * Decode the largest mip of the first frame and face to RGBA. Supported:
 * DXT1 (with 1-bit alpha), DXT3, DXT5, BGRA8888, BGR888, RGBA8888, RGB888,
 * ABGR8888, ARGB8888, BGRX8888, BGR565, RGB565, BGRA4444, BGRA5551, I8, IA88,
 * A8 and UV88; other formats give BSPKIT_ERR_UNSUPPORTED naming the format.
 */
BSPKIT_API bspkit_result bspkit_vtf_decode(const void *data, size_t size, bspkit_image *out, bspkit_vtf_info *info,
                                bspkit_error *err);

/* ---- A map's textures ---------------------------------------------------- */

typedef enum bspkit_texture_source {
    BSPKIT_TEXTURE_MISSING = 0, /**< named, but found nowhere searched */
    BSPKIT_TEXTURE_EMBEDDED,    /**< miptex pixels inside the map */
    BSPKIT_TEXTURE_WAD,         /**< in a WAD3 file found through the search paths */
    BSPKIT_TEXTURE_PAKFILE      /**< a VTF inside the Source pakfile */
} bspkit_texture_source;

/** Name of a source for display: "missing", "embedded", "wad", "pakfile". */
BSPKIT_API const char *bspkit_texture_source_name(bspkit_texture_source s);

typedef struct bspkit_texture {
    const char *name;          /**< miptex name or texdata material name */
    uint32_t width, height;    /**< from the map (miptex header / texdata); used for texture coordinates */
    bspkit_texture_source source;
    const char *location;      /**< WAD file path or pakfile entry name; NULL otherwise */
    const char *format;        /**< "paletted" for miptex, the VTF format name for pakfile textures, NULL if missing */
    bool decodable;            /**< bspkit_textures_load_image can decode it */
} bspkit_texture;

typedef struct bspkit_texture_options {
    /** Directories or WAD files searched for the WADs named in worldspawn's "wad" key
        (Windows paths and ';' lists are reduced to the file name, matched case-insensitively). */
    const char *const *wad_paths;
    size_t wad_path_count;
} bspkit_texture_options;

typedef struct bspkit_textures bspkit_textures;

/**
 * Resolve every texture of the map: one entry per miptex (Quake/GoldSrc) or
 * per texdata (Source, Titanfall 2), so a texinfo's `texture` field indexes
 * it directly; Quake 2 and Quake 3 list each distinct texinfo or shader name
 * once, as missing (their images are in the games' own files).
 * WAD files that are named but not found are reported through
 * bspkit_textures_missing_wad(), not as errors.
 */
/**
 * The map's texture entries as `bspkit info` counts them, without resolving
 * any image: TEXDATA records (Source, Titanfall 2), SHADERS records (Quake 3)
 * or miptex directory entries (Quake, GoldSrc; none in Quake 2). `embedded`
 * (may be NULL) receives how many miptex carry their pixels; 0 for the other
 * families. Errors are those of bspkit_get_miptex().
 */
BSPKIT_API bspkit_result bspkit_map_texture_count(bspkit_map *map, size_t *count, size_t *embedded, bspkit_error *err);

BSPKIT_API bspkit_result bspkit_textures_resolve(bspkit_map *map, const bspkit_texture_options *opts,
                                      bspkit_textures **out, bspkit_error *err);
BSPKIT_API void bspkit_textures_free(bspkit_textures *t);
BSPKIT_API size_t bspkit_textures_count(const bspkit_textures *t);
/** Entry `index`, or NULL when out of range. Borrowed from `t`. */
BSPKIT_API const bspkit_texture *bspkit_textures_get(const bspkit_textures *t, size_t index);
/** WAD names from the "wad" key that no search path held (index < count), or NULL. */
BSPKIT_API const char *bspkit_textures_missing_wad(const bspkit_textures *t, size_t index);
/** Decode texture `index` to RGBA (largest mip). Missing textures give BSPKIT_ERR_NOT_FOUND. */
BSPKIT_API bspkit_result bspkit_textures_load_image(bspkit_textures *t, size_t index, bspkit_image *out, bspkit_error *err);

#ifdef __cplusplus
}
#endif
#endif
