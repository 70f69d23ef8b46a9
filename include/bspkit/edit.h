/*
 * bspkit/edit.h — change an opened map and save it without breaking it.
 *
 * A bspkit_edit is a mutable overlay on a read-only bspkit_map: it starts
 * out equal to the map and records only what is replaced. The map's bytes
 * are borrowed, so the map must stay open until the edit is freed.
 *
 * Writing keeps everything that was not changed exactly as it was:
 *  - An edit with no changes writes a file byte-identical to the input.
 *  - When every lump keeps its stored size, every lump stays at its offset
 *    and the bytes between lumps are kept; only the changed lumps' bytes and
 *    directory entries differ.
 *  - Otherwise the lumps are laid out again in the order they had in the
 *    input, each 4-byte aligned (Source PHYSLEVEL 16, PAKFILE 2048-aligned
 *    and last, as Valve's tools write them), lumps new to the map placed
 *    after the others; the directory, the Source map revision, the game-lump
 *    entry offsets (absolute or relative to the game lump, as the input had
 *    them) and the offsets of a Quake/GoldSrc BSPX block are rewritten to
 *    match. Bytes between lumps that belong to no lump are not carried over.
 *  - Source lumps stored LZMA-compressed in the input are compressed again
 *    when their contents change, with Valve's 17-byte header, and their
 *    directory fourCC set to the uncompressed size.
 *
 * Every function that can fail returns a bspkit_result and fills `err` when
 * it is not NULL. Setters copy their input.
 */
#ifndef BSPKIT_EDIT_H
#define BSPKIT_EDIT_H

#include "bspkit/bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bspkit_edit bspkit_edit;

/** Start editing `map` (borrowed; it must outlive the edit). Titanfall 2 maps are read-only:
    BSPKIT_ERR_UNSUPPORTED. */
BSPKIT_API bspkit_result bspkit_edit_new(bspkit_map *map, bspkit_edit **out, bspkit_error *err);

/** Release the edit and everything it copied. NULL is allowed. */
BSPKIT_API void bspkit_edit_free(bspkit_edit *e);

/** The map the edit was started from. */
BSPKIT_API bspkit_map *bspkit_edit_map(const bspkit_edit *e);

/**
 * The current contents of lump `lump` (a BSPKIT_Q_* or BSPKIT_S_* index):
 * decompressed, in the map's byte order. Borrowed until the lump is set again
 * or the edit is freed.
 */
BSPKIT_API bspkit_result bspkit_edit_lump(bspkit_edit *e, int lump, const uint8_t **data, size_t *size, bspkit_error *err);

/**
 * Replace lump `lump` with `size` bytes (decompressed, in the map's byte
 * order; `size` 0 empties it). The bytes are checked against the lump's
 * record size when it has one. Source GAME_LUMP cannot be set as bytes: its
 * entries hold file offsets; use bspkit_edit_set_game_lump().
 */
BSPKIT_API bspkit_result bspkit_edit_set_lump(bspkit_edit *e, int lump, const void *data, size_t size, bspkit_error *err);

/** Source only: the directory version written for lump `lump`. */
BSPKIT_API bspkit_result bspkit_edit_set_lump_version(bspkit_edit *e, int lump, int32_t version, bspkit_error *err);

/** True when lump `lump` was replaced (even with equal bytes). */
BSPKIT_API bool bspkit_edit_lump_changed(const bspkit_edit *e, int lump);

/**
 * Replace the entity text. A terminating NUL is appended when `text` does
 * not end with one, as compilers write it. The text is parsed first and
 * refused (BSPKIT_ERR_ENTITIES, with the position) when it is malformed.
 */
BSPKIT_API bspkit_result bspkit_edit_set_entities_text(bspkit_edit *e, const char *text, size_t size, bspkit_error *err);

/** Source PAKFILE: replace the zip archive (see bspkit/pak.h to build one). */
BSPKIT_API bspkit_result bspkit_edit_set_pakfile(bspkit_edit *e, const void *zip, size_t size, bspkit_error *err);

/**
 * Source game lumps. Replaces the data of the entry with four-character id
 * `id` ('sprp' = 0x73707270), or appends a new entry when there is none;
 * `data` is decompressed and in the map's byte order. NULL `data` with `size`
 * 0 removes the entry. The entry is compressed again when it was stored
 * compressed.
 */
BSPKIT_API bspkit_result bspkit_edit_set_game_lump(bspkit_edit *e, uint32_t id, uint16_t version, const void *data, size_t size,
                                        bspkit_error *err);

/** The 20-byte header of a Source lump file (`<map>_l_<n>.lmp`). */
typedef struct bspkit_lmp_header {
    int32_t data_offset; /**< where the lump bytes start: 20 */
    int32_t lump;        /**< BSPKIT_S_* index */
    int32_t version;     /**< the lump's directory version */
    int32_t length;      /**< bytes of lump data */
    int32_t revision;    /**< map revision the file was made for */
} bspkit_lmp_header;

/**
 * Source lump files: the header's int32 fields in the map's byte order, then
 * the lump's decompressed bytes. bspkit_lmp_make() builds one from the
 * edit's current lump, stamped with the map's revision (free with
 * bspkit_free()). bspkit_edit_apply_lmp() replaces the lump the file
 * names with its bytes and version and returns the header in `header` (may
 * be NULL) so the caller can compare revisions. GAME_LUMP is refused by
 * both: its entries hold offsets into the map file.
 */
BSPKIT_API bspkit_result bspkit_lmp_make(bspkit_edit *e, int lump, uint8_t **out, size_t *size, bspkit_error *err);
BSPKIT_API bspkit_result bspkit_edit_apply_lmp(bspkit_edit *e, const void *data, size_t size, bspkit_lmp_header *header,
                                    bspkit_error *err);

/** Source LZMA lumps on save. */
typedef enum bspkit_compression {
    BSPKIT_COMPRESSION_KEEP = 0, /**< as each lump was stored; changed lumps too */
    BSPKIT_COMPRESSION_LZMA,     /**< every non-empty lump but PAKFILE and GAME_LUMP, and every game lump */
    BSPKIT_COMPRESSION_NONE      /**< nothing compressed */
} bspkit_compression;

/** Source byte order on save. */
typedef enum bspkit_byte_order {
    BSPKIT_BYTE_ORDER_KEEP = 0,
    BSPKIT_BYTE_ORDER_LITTLE, /**< PC: `VBSP` */
    BSPKIT_BYTE_ORDER_BIG     /**< Xbox 360 / PS3: `PSBV` */
} bspkit_byte_order;

/** GoldSrc directory order on save. */
typedef enum bspkit_lump_order {
    BSPKIT_LUMP_ORDER_KEEP = 0,
    BSPKIT_LUMP_ORDER_STANDARD, /**< ENTITIES first, then PLANES */
    BSPKIT_LUMP_ORDER_BLUESHIFT /**< PLANES first, then ENTITIES (Half-Life: Blue Shift) */
} bspkit_lump_order;

/** Quake record layout to write (Quake maps only). */
typedef enum bspkit_quake_format {
    BSPKIT_QUAKE_FORMAT_KEEP = 0,
    BSPKIT_QUAKE_FORMAT_BSP29, /**< 16-bit indices, 16-bit bounds: what every Quake engine reads */
    BSPKIT_QUAKE_FORMAT_BSP2,  /**< "BSP2": 32-bit indices, float bounds */
    BSPKIT_QUAKE_FORMAT_2PSB   /**< "2PSB" (RMQ): 32-bit indices, 16-bit bounds */
} bspkit_quake_format;

/** Called once per lump or game lump that could not be converted exactly. */
typedef void (*bspkit_warning_fn)(void *ctx, const bspkit_error *warning);

/** Save options; all-zero keeps the map as it is. */
typedef struct bspkit_save_options {
    bspkit_compression compression;
    bspkit_byte_order byte_order;
    bspkit_lump_order lump_order;
    /**
     * Converting the byte order swaps every field of every lump and game lump
     * whose layout bspkit knows. Lumps it does not know are copied unchanged
     * and reported here; with `strict` they make the save fail instead.
     */
    bool strict;
    bspkit_warning_fn warning;
    void *warning_ctx;
    /**
     * Quake maps: rewrite faces, nodes, leafs, clipnodes, marksurfaces and
     * edges in another record layout (as ericw-tools' bsputil --convert
     * does). A value that does not fit the narrower layout (an index above
     * 65535, a bound outside 16 bits) fails naming the record and field.
     */
    bspkit_quake_format quake_format;
} bspkit_save_options;

/** Encode the edited map into a new buffer; free with bspkit_free(). `opts` may be NULL. */
BSPKIT_API bspkit_result bspkit_edit_write(bspkit_edit *e, const bspkit_save_options *opts, uint8_t **out, size_t *size,
                                bspkit_error *err);

/**
 * Write the edited map to `path` atomically: a temporary file in the target's
 * directory, flushed, then renamed over `path`. On failure an existing file
 * at `path` is untouched and the temporary file removed. Writing over the
 * file the map was opened from is the caller's decision (the map's bytes
 * stay readable: they are mapped or copied, and rename replaces the name).
 */
BSPKIT_API bspkit_result bspkit_edit_save(bspkit_edit *e, const char *path, const bspkit_save_options *opts,
                               bspkit_error *err);

/** Write `size` bytes to `path` atomically, as bspkit_edit_save() does. */
BSPKIT_API bspkit_result bspkit_save_file(const char *path, const void *data, size_t size, bspkit_error *err);

/** Create directory `dir` and its missing parents (mkdir -p); fails when `dir` is not a directory. */
BSPKIT_API bspkit_result bspkit_make_dirs(const char *dir, bspkit_error *err);

/**
 * Write `size` bytes as `rel`, a plain relative path ("a/b/c.png": no
 * absolute path, no empty, "." or ".." component), under the existing
 * directory `dir`, for extracting files from a map. Directories on the way
 * are created or entered one component at a time without following
 * symbolic links, so no link (even one made meanwhile) can lead the write
 * outside `dir`; a link where the file goes is refused too. The file is
 * written under a temporary name beside it and renamed into place (not
 * flushed to disk, as extraction writes many files). A `rel` ending in '/'
 * creates directories only. Failures name the path; a link in the way says so.
 */
BSPKIT_API bspkit_result bspkit_write_file_under(const char *dir, const char *rel, const void *data, size_t size,
                                                 bspkit_error *err);

#ifdef __cplusplus
}
#endif

#endif /* BSPKIT_EDIT_H */
