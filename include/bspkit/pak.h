/*
 * bspkit/pak.h — the Source PAKFILE lump: a zip archive of files the map
 * carries with it (materials, cubemaps, scripts, ...).
 *
 * A bspkit_pak holds a copy of the archive plus the changes made to it.
 * Entries keep their order; added entries go to the end. Nothing is
 * written back until bspkit_pak_write(), which builds a new zip that the
 * Source engine's pack-file reader accepts:
 *  - entries stored (method 0) or, on request, LZMA-compressed (method 14,
 *    which engine builds since about 2015 read: CS:GO, TF2 and the other
 *    Source SDK 2013 games, whose bspzip -repack -compress writes it; older
 *    builds refuse the whole pakfile when any entry is compressed);
 *  - no extra fields and no data descriptors: the engine finds an entry's
 *    data from the central directory alone (local header offset + 30 + name
 *    length + the central extra-field length), so local and central headers
 *    must agree;
 *  - no zip64 (at most 65535 entries, sizes below 4 GiB).
 *
 * Every function that can fail returns a bspkit_result and fills `err`
 * (when not NULL) with the code and a message naming the entry concerned;
 * err->lump is BSPKIT_S_PAKFILE.
 */
#ifndef BSPKIT_PAK_H
#define BSPKIT_PAK_H

#include "bspkit/bspkit.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bspkit_pak bspkit_pak;

/** Options; all-zero selects the defaults. */
typedef struct bspkit_pak_options {
    /**
     * Largest uncompressed entry read or added; 0 = 256 MiB. An entry whose
     * declared size is larger is refused before anything is allocated, and
     * no entry is ever decompressed past its declared size (zip bombs).
     */
    uint64_t max_entry_size;
} bspkit_pak_options;

/** Zip compression methods seen in pakfiles. */
enum {
    BSPKIT_PAK_METHOD_STORE = 0,
    BSPKIT_PAK_METHOD_DEFLATE = 8,
    BSPKIT_PAK_METHOD_LZMA = 14
};

/** One entry as bspkit_pak_entry_info() describes it. */
typedef struct bspkit_pak_entry {
    const char *name;         /**< as stored; borrowed until the entry is replaced or removed */
    uint64_t size;            /**< uncompressed bytes */
    uint64_t compressed_size; /**< bytes in the archive; equals size for added entries */
    uint16_t method;          /**< BSPKIT_PAK_METHOD_* or another zip method number */
    uint16_t flags;           /**< zip general-purpose flags (bit 0 encrypted, bit 1 LZMA end marker) */
    uint32_t crc32;           /**< CRC-32 of the uncompressed bytes */
    bool added;               /**< added with bspkit_pak_add() since opening */
    /**
     * False when the Source engine would misread the entry: a method other
     * than store or LZMA, encryption, a name of 260 bytes or more (the
     * engine copies names into a MAX_PATH buffer), or local and central
     * headers whose extra fields differ in length.
     */
    bool engine_readable;
} bspkit_pak_entry;

/**
 * Open the archive in `zip` (copied; the caller's bytes may go away).
 * `size` 0 is an empty archive, as an empty PAKFILE lump is. Xbox 360
 * "XZP2" archives, whose central directory leaves out the padding its
 * headers count, are read too. `opts` may be NULL. Fails with
 * BSPKIT_ERR_UNKNOWN_FORMAT when the bytes are not a zip archive.
 */
BSPKIT_API bspkit_result bspkit_pak_open(const void *zip, size_t size, const bspkit_pak_options *opts, bspkit_pak **out,
                              bspkit_error *err);

/** Release the archive and everything borrowed from it. NULL is allowed. */
BSPKIT_API void bspkit_pak_close(bspkit_pak *p);
/** Former name of bspkit_pak_close(). */
BSPKIT_API void bspkit_pak_free(bspkit_pak *p) BSPKIT_DEPRECATED("bspkit_pak_close");

/** Number of entries, directory entries ("name/") included. */
BSPKIT_API size_t bspkit_pak_count(const bspkit_pak *p);

/** Describe entry `index` (0 .. count-1). */
BSPKIT_API bspkit_result bspkit_pak_entry_info(const bspkit_pak *p, size_t index, bspkit_pak_entry *out, bspkit_error *err);

/**
 * Index of the first entry named `name`, compared as Source looks files up:
 * ASCII case ignored, '\\' taken as '/', empty and "." path components
 * skipped. BSPKIT_ERR_NOT_FOUND otherwise.
 */
BSPKIT_API bspkit_result bspkit_pak_find(const bspkit_pak *p, const char *name, size_t *index, bspkit_error *err);

/**
 * The uncompressed bytes of entry `index` in a new buffer (*out; free with
 * bspkit_free()). Stored, deflated and LZMA entries are
 * read, every one checked against its CRC-32. Fails with BSPKIT_ERR_LIMIT
 * above max_entry_size, BSPKIT_ERR_UNSUPPORTED for encrypted entries and
 * other methods, BSPKIT_ERR_COMPRESSION for corrupt data or a CRC mismatch.
 */
BSPKIT_API bspkit_result bspkit_pak_read(bspkit_pak *p, size_t index, uint8_t **out, size_t *size, bspkit_error *err);

/**
 * Add `size` bytes (copied) as `name`, replacing every entry of that name
 * (compared as bspkit_pak_find() does). The name is cleaned as
 * bspkit_pak_safe_path() does and lower-cased, as Valve's bspzip stores
 * names; directory names (ending in '/') and names of 260 bytes or more are
 * refused with BSPKIT_ERR_ARGUMENT, more than 65535 entries or more than
 * max_entry_size bytes with BSPKIT_ERR_LIMIT.
 */
BSPKIT_API bspkit_result bspkit_pak_add(bspkit_pak *p, const char *name, const void *data, size_t size, bspkit_error *err);

/**
 * Remove every entry whose name matches `glob` (see bspkit_pak_glob_match());
 * `*removed` (may be NULL) gets how many. Matching nothing is not an error.
 */
BSPKIT_API bspkit_result bspkit_pak_remove(bspkit_pak *p, const char *glob, size_t *removed, bspkit_error *err);

/** Compression of the archive bspkit_pak_write() builds. */
typedef enum bspkit_pak_method {
    /** Stored and LZMA entries stay as they are (copied without recompressing);
     *  anything else, deflate included, is stored; added entries are stored. */
    BSPKIT_PAK_KEEP = 0,
    /** Every entry stored: what every Source build reads. */
    BSPKIT_PAK_STORE,
    /** Every entry LZMA-compressed as Valve's tools do (no end marker), unless
     *  that would not make it smaller: then it is stored. */
    BSPKIT_PAK_LZMA
} bspkit_pak_method;

/**
 * Build the archive as a new zip (*out; free with
 * bspkit_free()). Every entry is read and CRC-checked on the way, so
 * a corrupt entry fails the write rather than being copied. Of entries with
 * the same name only the first is written. Modification times are kept;
 * added entries get 1980-01-01 00:00 so the output is reproducible. The
 * archive comment is kept, except an Xbox 360 "XZP2" marker (the output is
 * an ordinary zip). An archive without entries is the 22-byte end record
 * alone (plus the kept comment). The pak itself is not changed.
 */
BSPKIT_API bspkit_result bspkit_pak_write(bspkit_pak *p, bspkit_pak_method method, uint8_t **out, size_t *size,
                               bspkit_error *err);

/** "store", "deflate", "lzma", "bzip2", ... for a zip method number; NULL when unknown. */
BSPKIT_API const char *bspkit_pak_method_name(uint16_t method);

/**
 * The relative path an entry name stands for, safe to create under a
 * directory: '\\' becomes '/', empty and "." components are dropped, and
 * names that are empty, absolute ("/x", "C:x"), hold a ".." component or
 * control characters are refused with BSPKIT_ERR_ARGUMENT. Case is kept; a
 * trailing '/' (a directory entry) is kept. Free *out with bspkit_free().
 */
BSPKIT_API bspkit_result bspkit_pak_safe_path(const char *name, char **out, bspkit_error *err);

/**
 * Shell-style match of a whole entry name: '*' any run of characters ('/'
 * included), '?' one character, "[abc]" / "[a-z]" / "[!abc]" / "[^abc]" a
 * set, '\\' makes the next character literal (inside sets too). ASCII case
 * is ignored and '\\' counts as '/', as in Source's lookups. The same matcher
 * as bspkit_glob_match().
 */
BSPKIT_API bool bspkit_pak_glob_match(const char *glob, const char *name);

#ifdef __cplusplus
}
#endif

#endif /* BSPKIT_PAK_H */
