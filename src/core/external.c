/* Lumps kept in files beside the map (Titanfall's `.bsp_lump` files): read
 * whole into the lump's bytes cache when the map is opened from a path,
 * bounded by the same limits as a decompressed lump. */
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

static bspkit_result load(bspkit_map *map, int lump, const char *path, int fd, bspkit_error *err)
{
    const char *name = bk_lump_name(map, lump);
    struct stat st;
    if (fstat(fd, &st) != 0)
        return bk_fail(err, BSPKIT_ERR_IO, lump, -1, -1, "%s (lump %d): cannot stat external file %s: %s", name,
                       lump, path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return bk_fail(err, BSPKIT_ERR_IO, lump, -1, -1, "%s (lump %d): external file %s is not a regular file",
                       name, lump, path);
    uint64_t size = (uint64_t)st.st_size;
    if (size > map->opts.max_lump_size || size > UINT32_MAX)
        return bk_fail(err, BSPKIT_ERR_LIMIT, lump, -1, -1,
                       "%s (lump %d): external file %s of %llu bytes exceeds the lump limit of %llu bytes", name,
                       lump, path, (unsigned long long)size, (unsigned long long)map->opts.max_lump_size);
    uint8_t *buf = bk_alloc(map, (size_t)size, lump, err);
    if (!buf)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    size_t got;
    if (!read_all(fd, buf, (size_t)size, &got)) {
        int e = errno;
        bk_free(map, buf, (size_t)size);
        return bk_fail(err, BSPKIT_ERR_IO, lump, -1, (int64_t)got, "%s (lump %d): reading external file %s failed at byte %zu: %s",
                       name, lump, path, got, e ? strerror(e) : "unexpected end of file");
    }
    bk_lump *l = &map->lumps[lump];
    bk_bytes_cache *c = &map->bytes[lump];
    c->done = true;
    c->result = BSPKIT_OK;
    bk_error_clear(&c->error);
    c->owned = buf;
    c->data = size ? buf : (const uint8_t *)"";
    c->size = (size_t)size;
    l->length = (uint32_t)size;
    l->compressed = false;
    return BSPKIT_OK;
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
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        bspkit_result r = BSPKIT_OK;
        if (e != ENOENT) /* no such file: the lump is the one in the map */
            r = bk_fail(err, BSPKIT_ERR_IO, lump, -1, -1, "%s (lump %d): cannot open external file %s: %s",
                        bk_lump_name(map, lump), lump, path, strerror(e));
        bk_raw_free(map, path);
        return r;
    }
    bspkit_result r = load(map, lump, path, fd, err);
    close(fd);
    if (r != BSPKIT_OK) {
        bk_raw_free(map, path);
        return r;
    }
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
