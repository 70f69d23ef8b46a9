/* Atomic file replacement shared by every writer: the bytes go to a new
 * temporary file next to the target (so rename() stays within one file
 * system and is atomic), which is flushed and then renamed over the target.
 * A crash or error at any point leaves either the old file or the new one,
 * never a mix. */
#include "bspkit/edit.h"
#include "core/map.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static bspkit_result io_fail(bspkit_error *err, const char *what, const char *path, int e)
{
    return bk_fail(err, BSPKIT_ERR_IO, -1, -1, -1, "%s %s: %s", what, path, strerror(e));
}

static int write_all(int fd, const uint8_t *data, size_t size)
{
    while (size > 0) {
        ssize_t n = write(fd, data, size);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (n == 0) {
            errno = EIO;
            return -1;
        }
        data += n;
        size -= (size_t)n;
    }
    return 0;
}

bspkit_result bspkit_save_file(const char *path, const void *data, size_t size, bspkit_error *err)
{
    bk_error_clear(err);
    if (!path || !*path || (!data && size))
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "save: NULL data or empty path");

    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) : 0;
    const char *base = slash ? slash + 1 : path;
    if (!*base)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "save: %s names a directory, not a file", path);
    size_t tmp_cap = strlen(path) + 64;
    char *tmp = malloc(tmp_cap);
    char *dir = malloc(dir_len + 2);
    if (!tmp || !dir) {
        free(tmp);
        free(dir);
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "save: out of memory");
    }
    if (slash) {
        memcpy(dir, path, dir_len ? dir_len : 1); /* "/name" lives in "/" */
        dir[dir_len ? dir_len : 1] = '\0';
    } else {
        strcpy(dir, ".");
    }

    bspkit_result rc = BSPKIT_OK;
    static _Atomic unsigned counter;
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
        unsigned salt = (unsigned)time(NULL) ^ (counter++ * 2654435761u);
        snprintf(tmp, tmp_cap, "%.*s%s.%s.%ld.%08x.tmp", (int)dir_len, path, slash ? "/" : "", base,
                 (long)getpid(), salt);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        rc = io_fail(err, "cannot create a temporary file for", path, errno);
        goto done;
    }
    if (write_all(fd, data, size) != 0) {
        rc = io_fail(err, "cannot write", tmp, errno);
        close(fd);
        unlink(tmp);
        goto done;
    }
    if (fsync(fd) != 0) {
        rc = io_fail(err, "cannot flush", tmp, errno);
        close(fd);
        unlink(tmp);
        goto done;
    }
    if (close(fd) != 0) {
        rc = io_fail(err, "cannot close", tmp, errno);
        unlink(tmp);
        goto done;
    }
    if (rename(tmp, path) != 0) {
        rc = io_fail(err, "cannot replace", path, errno);
        unlink(tmp);
        goto done;
    }
    /* Make the rename itself durable; file systems that cannot sync a
     * directory are not an error, the data is already safe. */
    int dfd = open(dir, O_RDONLY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
done:
    free(tmp);
    free(dir);
    return rc;
}
