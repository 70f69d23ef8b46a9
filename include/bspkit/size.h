/*
 * bspkit/size.h — where the bytes of a map file go: every byte counted once,
 * in a lump grouped by purpose, in the header and lump directory, or in the
 * gaps between lumps; the Source pakfile broken down by extension and top
 * directory; cubemap textures; and what the bspkit commands that exist would
 * save.
 *
 * Conventions as in bspkit.h. The report owns everything it points to;
 * release it with bspkit_size_report_free().
 *
 * Counting. The header and directory come first ([0, header_bytes)). Lumps
 * are then taken in file order (by offset, then index); each is credited
 * with the bytes of its range no earlier range holds (`unique_bytes`: less
 * than `length` only where ranges overlap). Bytes no range holds are
 * padding: alignment gaps between lumps, and whatever follows the last lump
 * (`trailing_bytes`, e.g. a Quake BSPX block). So header, lumps and padding
 * add up to the file size exactly. Lumps read from a file beside the map
 * (Titanfall `.bsp_lump`) hold no bytes of the map and are listed with
 * `external` set.
 */
#ifndef BSPKIT_SIZE_H
#define BSPKIT_SIZE_H

#include "bspkit/bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a lump is for. */
typedef enum bspkit_size_group {
    BSPKIT_SIZE_HEADER = 0,     /**< header and lump directory */
    BSPKIT_SIZE_GEOMETRY,       /**< vertices, edges, faces, models, primitives, normals */
    BSPKIT_SIZE_BSP_TREE,       /**< planes, nodes, leafs and their lists, brushes, areas, portals, occlusion */
    BSPKIT_SIZE_COLLISION,      /**< physics collision models, clip hulls */
    BSPKIT_SIZE_LIGHTING_LDR,   /**< lightmaps, world lights, ambient samples (LDR) */
    BSPKIT_SIZE_LIGHTING_HDR,   /**< the same for HDR, with the HDR faces */
    BSPKIT_SIZE_VISIBILITY,     /**< PVS/PAS */
    BSPKIT_SIZE_TEXTURES,       /**< texture info, texture data and names, embedded miptex, shaders, cubemap points */
    BSPKIT_SIZE_ENTITIES,       /**< entity text */
    BSPKIT_SIZE_PROPS,          /**< Source game lumps: static and detail props, detail lighting */
    BSPKIT_SIZE_PAKFILE,        /**< embedded zip archive */
    BSPKIT_SIZE_DISPLACEMENTS,  /**< displacement info, vertices, triangles, alphas, sample positions */
    BSPKIT_SIZE_OTHER,          /**< overlays, map flags and lumps of no group above */
    BSPKIT_SIZE_PADDING,        /**< bytes no lump holds */
    BSPKIT_SIZE_GROUP_COUNT
} bspkit_size_group;

/** Lower-case name of a group ("header", "geometry", "bsp_tree", ...), or "unknown". */
BSPKIT_API const char *bspkit_size_group_name(bspkit_size_group group);

/** The group a lump of that name belongs to (names as bspkit_get_lump_info gives them). */
BSPKIT_API bspkit_size_group bspkit_size_group_of(const char *lump_name);

typedef struct bspkit_size_lump {
    int index;
    const char *name;
    bspkit_size_group group;
    uint64_t offset, length;      /**< as the directory states them */
    uint64_t unique_bytes;        /**< bytes credited to it (see the header comment) */
    uint64_t uncompressed_length; /**< equals length unless stored LZMA-compressed */
    bool external;                /**< read from a file beside the map */
} bspkit_size_lump;

/** A named share: an extension, a directory or a game lump. */
typedef struct bspkit_size_bucket {
    const char *name;
    uint64_t count;
    uint64_t bytes; /**< stored (compressed) bytes */
} bspkit_size_bucket;

/** What one bspkit command would remove, and the bytes it saves. */
typedef struct bspkit_size_saving {
    const char *what;     /**< e.g. "cubemap textures" */
    const char *command;  /**< the command line, with MAP and OUT for the files */
    uint64_t entries;     /**< pakfile entries it removes */
    uint64_t bytes;       /**< how much smaller the pakfile lump (pak commands) or the file (convert) becomes;
                               0 when it would not shrink */
} bspkit_size_saving;

typedef struct bspkit_size_report {
    uint64_t file_size;
    uint64_t group_bytes[BSPKIT_SIZE_GROUP_COUNT]; /**< add up to file_size */
    uint64_t header_bytes, padding_bytes, trailing_bytes; /**< trailing_bytes: the part of the padding after the last lump */
    const bspkit_size_lump *lumps; /**< every lump of the directory, in index order */
    size_t lump_count;

    const bspkit_size_bucket *game_lumps; /**< Source: each game lump by its id ("sprp", ...) */
    size_t game_lump_count;

    bool has_ldr_lighting, has_hdr_lighting; /**< a non-empty LDR / HDR lightmap lump */
    uint64_t ldr_lighting_bytes, hdr_lighting_bytes; /**< the groups' unique bytes */

    bool has_pakfile;      /**< a non-empty pakfile lump */
    bool pakfile_read;     /**< its archive could be listed (else pakfile_error says why) */
    char pakfile_error[256];
    uint64_t pakfile_bytes, pakfile_entries;
    uint64_t pakfile_data_bytes;     /**< the entries' stored bytes */
    uint64_t pakfile_overhead_bytes; /**< headers, central directory and end record */
    const bspkit_size_bucket *pak_by_extension; /**< largest first; "(none)" for names without one */
    size_t pak_extension_count;
    const bspkit_size_bucket *pak_by_directory; /**< first path component, largest first; "(root)" */
    size_t pak_directory_count;
    uint64_t cubemap_count, cubemap_bytes; /**< entries matching materials/maps/ * /c*_*_*.vtf */

    const bspkit_size_saving *savings;
    size_t saving_count;
} bspkit_size_report;

typedef struct bspkit_size_options {
    /**
     * Also measure, for Source maps, what LZMA would save: the map
     * `bspkit convert MAP --compress` writes (every lump but PAKFILE and
     * GAME_LUMP, and every game lump) and the pakfile
     * `bspkit pak MAP repack --lzma` writes. Both are built in memory, which
     * for a large map takes seconds.
     */
    bool measure_compression;
} bspkit_size_options;

/**
 * Account for every byte of the map. `opts` may be NULL. The pakfile's
 * archive is listed with bspkit_pak_open(); a damaged archive is not an
 * error of this call (the report says so in pakfile_error). Each saving is
 * measured by building what the command would write (for the cubemaps the
 * archive bspkit_pak_write builds with BSPKIT_PAK_KEEP, as
 * `bspkit pak remove` does), so it reads every remaining entry once; a
 * saving that cannot be measured (a damaged entry) is left out.
 */
BSPKIT_API bspkit_result bspkit_size_report_map(bspkit_map *map, const bspkit_size_options *opts,
                                                bspkit_size_report **out, bspkit_error *err);

/** Release the report. NULL is allowed. */
BSPKIT_API void bspkit_size_report_free(bspkit_size_report *report);

#ifdef __cplusplus
}
#endif

#endif /* BSPKIT_SIZE_H */
