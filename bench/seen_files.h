/* Files and directories a benchmark's walk has met, by device and inode:
 * a map reached twice (a hard link, a symlink to it or to a directory
 * above it) is timed once, and a symlink loop is not walked round. */
#ifndef BSPKIT_BENCH_SEEN_FILES_H
#define BSPKIT_BENCH_SEEN_FILES_H

#include <stdlib.h>
#include <sys/stat.h>

typedef struct seen_file {
    dev_t dev;
    ino_t ino;
} seen_file;

/* True when `st` was met before; otherwise it is remembered (when memory
 * runs out it is not, and the walk goes on as if it were new). */
static inline int seen_before(const struct stat *st)
{
    static seen_file *seen;
    static size_t count, cap;
    for (size_t i = 0; i < count; i++)
        if (seen[i].dev == st->st_dev && seen[i].ino == st->st_ino)
            return 1;
    if (count == cap) {
        size_t grown_cap = cap ? cap * 2 : 256;
        seen_file *grown = realloc(seen, grown_cap * sizeof *seen);
        if (!grown)
            return 0;
        seen = grown;
        cap = grown_cap;
    }
    seen[count++] = (seen_file){st->st_dev, st->st_ino};
    return 0;
}

#endif
