/*
 * bspkit/scan.h — summarise every map under a set of paths, for server
 * operators and map archives.
 *
 * bspkit_scan() walks files and directories (recursively; symbolic links to
 * directories are not followed) and reads, without unpacking to disk:
 *   .bsp          maps (Titanfall 2 `.bsp_lump` files beside them too)
 *   .bsp.bz2      FastDL bzip2 streams       .bsp.gz   gzip streams
 *   .zip, .pk3    every *.bsp, *.bsp.bz2 and *.bsp.gz member (and so in .gma and .vpk)
 *   .gma          Garry's Mod addons
 *   .vpk          Source VPK directories (`NAME_dir.vpk` with its `NAME_NNN.vpk`
 *                 archives beside it, or a single-file VPK); numbered archives
 *                 are read through their directory and not on their own
 * A path named on its own is read whatever its extension (as a map unless
 * its extension names a container).
 *
 * Each map gives one record: one JSON object with
 *   path, member (the name inside an archive, else null), format (family name,
 *   null when unreadable), name, version, game (bspkit_map_game, or null), size
 *   (the map's bytes, decompressed), counts (the same keys and values as
 *   `bspkit info --json`), entities (count or null), crc (Source: 8 hex digits,
 *   else null), errors and warnings (bspkit_validate's totals; null when
 *   unreadable), error (why the map could not be read or summarised, or
 *   null), lumps (non-empty lumps: name -> stored length), classes (entity
 *   classname -> count, sorted), textures (names in map order; classes and
 *   textures are null when they cannot be read), pakfile (Source: entries in
 *   the pakfile, else null), sprp (Source: static-prop game-lump version, else
 *   null) and ms (wall time taken, milliseconds). Every field but `ms`
 *   depends only on the path and the bytes read.
 *
 * Maps are read on `threads` threads; records are handed to `on_record` in
 * order of path (byte-wise), then member, whatever the thread count.
 */
#ifndef BSPKIT_SCAN_H
#define BSPKIT_SCAN_H

#include "bspkit/bspkit.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One map's summary; everything is borrowed for the duration of the callback. */
typedef struct bspkit_scan_record {
    const char *path;    /**< the file as found (joined to the directory named) */
    const char *member;  /**< name inside a zip/pk3/gma/vpk, or NULL */
    const char *format;  /**< family name, or NULL when the map could not be opened */
    int32_t version;
    uint64_t size;       /**< bytes of the map itself (decompressed) */
    const char *error;   /**< why the map could not be read or summarised, or NULL */
    size_t errors;       /**< validation errors (0 when `error` is set) */
    size_t warnings;     /**< validation warnings */
    double seconds;      /**< wall time taken for this map */
    const char *json;    /**< the whole record as one line of JSON, without a newline */
} bspkit_scan_record;

/** Options; all-zero selects the defaults. */
typedef struct bspkit_scan_options {
    unsigned threads;           /**< 0: the online processors */
    const bspkit_options *open; /**< limits for each map (NULL: defaults); also bounds archive members */
    /** Largest map taken out of a compressed stream or archive; 0: open->max_file_size, or 1 GiB
     *  when that is 0 too. A member claiming more is a record with an error. */
    uint64_t max_member_size;
    /** Called once per map, in order, never concurrently; returning non-zero stops the scan
     *  (bspkit_scan then returns BSPKIT_ERR_IO). May be NULL. */
    int (*on_record)(void *user, const bspkit_scan_record *record);
    /** Called after each map, never concurrently: maps done, maps found. May be NULL. */
    void (*on_progress)(void *user, size_t done, size_t total);
    void *user;
    /** An SQLite database keeping every record with its file's size and modification time
     *  (created when missing), or NULL. A map whose file still has the size and time stored is
     *  not read again: its stored record is handed out (`ms` as first measured). Records of
     *  files no longer found under the scanned paths are dropped from it. */
    const char *index_path;
} bspkit_scan_options;

/** What a scan found. */
typedef struct bspkit_scan_totals {
    size_t maps;        /**< records produced */
    size_t unreadable;  /**< records with an error */
    size_t invalid;     /**< records with validation errors */
    size_t errors;      /**< validation errors over all maps */
    size_t warnings;    /**< validation warnings over all maps */
    uint64_t bytes;     /**< map bytes read (decompressed) */
    size_t reused;      /**< records taken from the index (index_path) */
} bspkit_scan_totals;

/**
 * Scan `count` paths. A path or map that cannot be read becomes a record with
 * its error; the scan goes on. Returns non-OK only when the scan itself
 * could not run (no memory, threads, the index could not be opened or
 * written, or on_record asked to stop). `totals` may be NULL.
 */
BSPKIT_API bspkit_result bspkit_scan(const char *const *paths, size_t count, const bspkit_scan_options *opts,
                                     bspkit_scan_totals *totals, bspkit_error *err);

#ifdef __cplusplus
}
#endif

#endif
