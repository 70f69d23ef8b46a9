/* Files beside the map: lumps kept in them (Titanfall's `.bsp_lump` files),
 * read whole into the lump's bytes cache when the map is opened from a
 * path, and any other such file a family reads (Titanfall's `.ent` entity
 * partitions), bounded by the same limits as a decompressed lump. */
#include "core/family.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads `fd` (size bytes) into buf; false with errno set on failure. */
static bool read_all(int fd, uint8_t *buf, size_t size, size_t *got)
{
    *got = 0;
    while (*got < size) {
        ssize_t n = read(fd, buf + *got, size - *got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = 0;
            return false;
        }
        *got += (size_t)n;
    }
    return true;
}

bspkit_result bk_read_file_beside(bspkit_map *map, const char *path, int lump, const char *what, uint8_t **out,
                                  size_t *out_size, bspkit_error *err)
{
    *out = NULL;
    *out_size = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return bk_fail(err, e == ENOENT ? BSPKIT_ERR_NOT_FOUND : BSPKIT_ERR_IO, lump, -1, -1,
                       "%s %s: cannot open: %s", what, path, strerror(e));
    }
    struct stat st;
    bspkit_result r = BSPKIT_OK;
    uint8_t *buf = NULL;
    uint64_t size = 0;
    if (fstat(fd, &st) != 0)
        r = bk_fail(err, BSPKIT_ERR_IO, lump, -1, -1, "%s %s: cannot stat: %s", what, path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        r = bk_fail(err, BSPKIT_ERR_IO, lump, -1, -1, "%s %s is not a regular file", what, path);
    else if ((size = (uint64_t)st.st_size) > map->opts.max_lump_size || size > UINT32_MAX)
        r = bk_fail(err, BSPKIT_ERR_LIMIT, lump, -1, -1, "%s %s of %llu bytes exceeds the lump limit of %llu bytes",
                    what, path, (unsigned long long)size, (unsigned long long)map->opts.max_lump_size);
    else if (!(buf = bk_alloc(map, (size_t)size, lump, err))) {
        bspkit_error e;
        bk_error_copy(&e, err);
        r = bk_fail(err, e.code, lump, -1, -1, "%s %s: %s", what, path, e.message);
    }
    size_t got = 0;
    if (r == BSPKIT_OK && !read_all(fd, buf, (size_t)size, &got)) {
        int e = errno;
        bk_free(map, buf, (size_t)size);
        buf = NULL;
        r = bk_fail(err, BSPKIT_ERR_IO, lump, -1, (int64_t)got, "%s %s: reading failed at byte %zu: %s", what,
                    path, got, e ? strerror(e) : "unexpected end of file");
    }
    close(fd);
    if (r == BSPKIT_OK) {
        *out = buf;
        *out_size = (size_t)size;
    }
    return r;
}

bspkit_result bk_read_external_lump(bspkit_map *map, int lump, bspkit_error *err)
{
    const bk_family_ops *ops = map->family_ops;
    char suffix[64];
    if (!map->path || !ops->external_lump_suffix || !ops->external_lump_suffix(map, lump, suffix, sizeof suffix))
        return BSPKIT_OK;
    size_t n = strlen(map->path) + strlen(suffix) + 1;
    char *path = bk_raw_alloc(map, n, false);
    if (!path)
        return bk_fail(err, BSPKIT_ERR_NOMEM, lump, -1, -1, "out of memory");
    snprintf(path, n, "%s%s", map->path, suffix);
    char what[96];
    snprintf(what, sizeof what, "%s (lump %d): external file", bk_lump_name(map, lump), lump);
    uint8_t *buf;
    size_t size;
    bspkit_result r = bk_read_file_beside(map, path, lump, what, &buf, &size, err);
    if (r != BSPKIT_OK) {
        bk_raw_free(map, path);
        if (r == BSPKIT_ERR_NOT_FOUND) { /* no such file: the lump is the one in the map */
            bk_error_clear(err);
            return BSPKIT_OK;
        }
        return r;
    }
    bk_lump *l = &map->lumps[lump];
    bk_bytes_cache *c = &map->bytes[lump];
    c->done = true;
    c->result = BSPKIT_OK;
    c->error = NULL;
    c->owned = buf;
    c->data = size ? buf : (const uint8_t *)"";
    c->size = size;
    l->length = (uint32_t)size;
    l->compressed = false;
    map->lumps[lump].external = path;
    map->format.variant |= BSPKIT_VARIANT_EXTERNAL_LUMPS;
    return BSPKIT_OK;
}

const char *bspkit_lump_external_path(const bspkit_map *map, int index)
{
    if (!map || index < 0 || index >= map->lump_count)
        return NULL;
    return map->lumps[index].external;
}
