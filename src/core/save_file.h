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

/* bspkit_save_file of parts[0 .. nparts) written one after another. */
bspkit_result bk_save_parts(const char *path, const bk_save_part *parts, size_t nparts, bspkit_error *err);

#endif
