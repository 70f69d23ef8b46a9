/*
 * bspkit/fastdl.h — prepare maps for a FastDL (sv_downloadurl) web server.
 *
 * For every map under the given paths (files, or directories searched
 * recursively for *.bsp), bspkit_fastdl() writes into OUT_DIR/maps/:
 *   - Source maps: NAME.bsp.bz2 (bzip2 level 9), which Source clients fetch
 *     and decompress; the archive is decompressed again and compared with the
 *     map byte for byte before it is written;
 *   - GoldSrc maps: NAME.bsp, a plain copy (GoldSrc clients do not read bz2).
 * Other families are skipped. Every output is written to a temporary file
 * beside it, flushed and renamed into place, and given its input's
 * modification time: an output whose time equals its input's and that
 * holds as many bytes (a copy by its size, a bzip2 archive by the size it
 * decompresses to) is left alone on the next run.
 *
 * With content directories (a game's folder such as cstrike/ or a custom
 * folder under it), the files a Source map needs that its pakfile does not
 * carry, as bspkit_deps_map() finds them with the content directories as its
 * game directories (bspkit/deps.h: materials of texdata, sky, overlays and
 * decals with the textures and materials they name, models with their .vvd,
 * .vtx and .phy files, sounds, particle files), are looked up as loose files
 * under each directory in turn and the ones found there, which clients
 * cannot have from the game itself, are written as OUT_DIR/PATH.bz2 (PATH
 * lower case) in the same way. Files not found, or found only inside a VPK
 * archive, are taken to be the game's own. GoldSrc content (WADs, sprites)
 * is not looked up.
 */
#ifndef BSPKIT_FASTDL_H
#define BSPKIT_FASTDL_H

#include "bspkit/bspkit.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bspkit_fastdl_action {
    BSPKIT_FASTDL_WRITTEN = 0,   /**< NAME.bsp.bz2 written */
    BSPKIT_FASTDL_COPIED = 1,    /**< NAME.bsp copied */
    BSPKIT_FASTDL_UNCHANGED = 2, /**< the output is already up to date */
    BSPKIT_FASTDL_SKIPPED = 3,   /**< not a Source or GoldSrc map (message says what it is) */
    BSPKIT_FASTDL_FAILED = 4     /**< could not be read, written or verified (message says why) */
} bspkit_fastdl_action;

/** Warning bits in bspkit_fastdl_item.warnings. */
enum {
    BSPKIT_FASTDL_WARN_64MB = 1u << 0,     /**< the map is above 64 MiB, which older clients refuse to download */
    BSPKIT_FASTDL_WARN_150MB = 1u << 1,    /**< the map is above 150 MiB, which current clients refuse */
    BSPKIT_FASTDL_WARN_LOW_GAIN = 1u << 2  /**< bzip2 saves less than 10% (e.g. LZMA-compressed lumps) */
};

/** One map's outcome; borrowed for the duration of the callback. */
typedef struct bspkit_fastdl_item {
    const char *input;           /**< the map, or the content file */
    const char *map;             /**< for a content file, the map that first referred to it; else NULL */
    const char *output;          /**< the file written or kept, or NULL */
    bspkit_fastdl_action action;
    uint64_t input_size;
    uint64_t output_size;        /**< 0 when nothing was written or kept */
    unsigned warnings;           /**< BSPKIT_FASTDL_WARN_* */
    const char *message;         /**< why skipped or failed, else NULL */
} bspkit_fastdl_item;

typedef struct bspkit_fastdl_options {
    /** Called once per map, in order of input path, and once per content file after the map
     *  that first refers to it. May be NULL. */
    void (*on_item)(void *user, const bspkit_fastdl_item *item);
    void *user;
    const char *const *content_dirs; /**< searched in order for the files maps refer to; may be NULL */
    size_t content_dir_count;
    /** Called after each map (and the content files it brought) with the maps done so far and
     *  the number of maps found, for a progress display. May be NULL. */
    void (*on_progress)(void *user, size_t done, size_t total);
} bspkit_fastdl_options;

typedef struct bspkit_fastdl_totals {
    size_t written, copied, unchanged, skipped, failed;
    uint64_t input_bytes;  /**< bytes of the maps written or copied */
    uint64_t output_bytes; /**< bytes written */
} bspkit_fastdl_totals;

/**
 * Write the FastDL files for the maps under `paths` into `out_dir`/maps.
 * A map that fails is reported and the others go on; two maps with the same
 * file name fail the second. Returns non-OK only when nothing could be done
 * (arguments, the output directory, memory). `opts` and `totals` may be NULL.
 */
BSPKIT_API bspkit_result bspkit_fastdl(const char *const *paths, size_t count, const char *out_dir,
                                       const bspkit_fastdl_options *opts, bspkit_fastdl_totals *totals,
                                       bspkit_error *err);

#ifdef __cplusplus
}
#endif

#endif
