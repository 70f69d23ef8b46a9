/* Readers for the containers maps are shipped in: FastDL .bz2/.gz streams,
 * zip/pk3, Garry's Mod .gma and Source .vpk directories. Every reader takes
 * the container's bytes, composes each field from bytes and checks every
 * range before use; errors name the file offset. */
#ifndef BSPKIT_OPS_ARCHIVE_H
#define BSPKIT_OPS_ARCHIVE_H

#include "bspkit/bspkit.h"

#include <stddef.h>
#include <stdint.h>

/* One file inside a GMA or VPK. GMA: the data is `size` bytes at `offset` of
 * the .gma. VPK: `preload_size` bytes at `preload_offset` of the directory
 * file, followed by `size` bytes at `offset` of archive `archive` (0x7fff: the
 * directory file itself, offset already made absolute). */
typedef struct bk_arc_entry {
    char *name; /* full path inside the container, '/' separated */
    uint64_t offset;
    uint64_t size;
    uint32_t crc;
    uint16_t archive;
    uint16_t preload_size;
    uint64_t preload_offset;
} bk_arc_entry;

typedef struct bk_arc_list {
    bk_arc_entry *entries;
    size_t count;
} bk_arc_list;

#define BK_VPK_DIR_ARCHIVE 0x7fffu

void bk_arc_list_free(bk_arc_list *list);

/* Garry's Mod addon ("GMAD", versions 1-3). */
bspkit_result bk_gma_list(const uint8_t *data, size_t size, bk_arc_list *out, bspkit_error *err);
/* Source VPK directory, version 1 or 2 (signature 0x55aa1234). */
bspkit_result bk_vpk_list(const uint8_t *data, size_t size, bk_arc_list *out, bspkit_error *err);

/* The bytes of one entry of the VPK directory file `dir_path` (NAME_dir.vpk):
 * its preload bytes, then its data in the directory file or in the numbered
 * archive NAME_NNN.vpk beside it; at most `limit` bytes in all. *out is
 * malloc'd with a NUL after the data. */
bspkit_result bk_vpk_read(const char *dir_path, const bk_arc_entry *e, uint64_t limit, uint8_t **out, size_t *out_size,
                          bspkit_error *err);

/* Decompress a whole bzip2 or gzip stream (concatenated streams too) into a
 * malloc'd buffer of at most `limit` bytes. bzip2 only: with `out` NULL the
 * bytes are only counted into *out_size (through a small buffer), which is how
 * an existing archive's content size is known without keeping it. */
bspkit_result bk_bz2_decompress(const uint8_t *data, size_t size, uint64_t limit, uint8_t **out, size_t *out_size,
                                bspkit_error *err);
bspkit_result bk_gz_decompress(const uint8_t *data, size_t size, uint64_t limit, uint8_t **out, size_t *out_size,
                               bspkit_error *err);
/* bzip2 at level 9 into a malloc'd buffer. */
bspkit_result bk_bz2_compress(const uint8_t *data, size_t size, uint8_t **out, size_t *out_size, bspkit_error *err);

/* A whole file read-only mapped (empty files give a NULL pointer and size 0). */
bspkit_result bk_ops_map_file(const char *path, const uint8_t **data, size_t *size, bspkit_error *err);
void bk_ops_unmap_file(const uint8_t *data, size_t size);

#endif
