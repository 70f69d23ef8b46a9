/* Atomic file replacement (see save_file.c), from several pieces: a file
 * assembled from parts need not be copied into one buffer first. */
#ifndef BSPKIT_CORE_SAVE_FILE_H
#define BSPKIT_CORE_SAVE_FILE_H

#include "bspkit/bspkit.h"

#include <stddef.h>

typedef struct bk_save_part {
    const void *data;
    size_t size;
} bk_save_part;

/* How a replacement reaches the disk. Every save is atomic for readers (a
 * temporary file renamed over the target). BK_SAVE_FLUSH also syncs the file
 * and its directory before returning, so a crash cannot lose it: maps and
 * other files a user edits are saved so (bspkit_save_file). Files derived
 * from a map (exports, decompiled sources, pictures) can be made again, and
 * the sync would cost a quarter of a small export, so they skip it. */
typedef enum bk_save_flags {
    BK_SAVE_DERIVED = 0,
    BK_SAVE_FLUSH = 1u << 0,
} bk_save_flags;

/* parts[0 .. nparts) written one after another into a file that replaces
 * `path` atomically. */
bspkit_result bk_save_parts(const char *path, const bk_save_part *parts, size_t nparts, unsigned flags,
                            bspkit_error *err);

/* One buffer, as bk_save_parts. */
bspkit_result bk_save_bytes(const char *path, const void *data, size_t size, unsigned flags, bspkit_error *err);

#endif
