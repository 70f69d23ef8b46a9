/* Atomic file replacement shared by every writer: the bytes go to a new
 * temporary file next to the target (so rename() stays within one file
 * system and is atomic), which is renamed over the target once complete, so
 * no reader sees a half-written file. With BK_SAVE_FLUSH the file is synced
 * before the rename and the directory after it: a crash at any point then
 * leaves either the old file or the new one, never a mix. */
#define _GNU_SOURCE /* renameat2 */
#include "bspkit/edit.h"
#include "core/map.h"
#include "core/save_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
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

/* parts[0 .. n) in order, with as few calls as the kernel allows: a GLB
 * is a dozen texts and two parts per embedded image. */
static int write_parts(int fd, const bk_save_part *parts, size_t n)
{
    enum { BATCH = 64 };
    size_t next = 0, skip = 0; /* the first part not fully written, and its bytes already written */
    while (next < n) {
        struct iovec iov[BATCH];
        int count = 0;
        for (size_t k = next; k < n && count < BATCH; k++) {
            size_t off = k == next ? skip : 0;
            if (parts[k].size > off)
                iov[count++] = (struct iovec){(void *)((const uint8_t *)parts[k].data + off), parts[k].size - off};
        }
        if (count == 0)
            return 0;
        ssize_t w = writev(fd, iov, count);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (w == 0) {
            errno = EIO;
            return -1;
        }
        /* Past the parts written whole, into the one cut short. */
        size_t left = (size_t)w;
        while (next < n && left >= parts[next].size - skip) {
            left -= parts[next].size - skip;
            next++;
            skip = 0;
        }
        skip += left;
    }
    return 0;
}

/* Creates a new file named `name` + ".<pid>.<salt>.tmp" (written back into
 * `name`, which has room for 32 more bytes) in `dir` (AT_FDCWD: `name` is a
 * path), trying fresh salts while the name is taken. Returns the descriptor,
 * or -1 with errno set. */
static int create_temp(int dir, char *name, size_t cap, int flags)
{
    static _Atomic unsigned counter;
    size_t base = strlen(name);
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned salt = (unsigned)time(NULL) ^ (counter++ * 2654435761u);
        snprintf(name + base, cap - base, ".%ld.%08x.tmp", (long)getpid(), salt);
        int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | flags, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

/* rename(tmp, path), except for an unsynced file replacing a file: ext4 then
 * writes the new file's data out inside rename() (auto_da_alloc, about 2 ms
 * for a few MB), a guard for programs that forget to sync. An unsynced save
 * has chosen not to wait for the disk, so it swaps the two names atomically
 * (readers see the old file or the new one) and removes the old file. */
static int replace_file(const char *tmp, const char *path, unsigned flags)
{
#ifdef RENAME_EXCHANGE
    struct stat st;
    if (!(flags & BK_SAVE_FLUSH) && lstat(path, &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) &&
        renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE) == 0) {
        if (unlink(tmp) == 0)
            return 0;
        /* The old entry cannot be removed (replaced meanwhile by a
         * directory?): swap back and let rename() report the error. */
        if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE) != 0)
            return -1;
    }
#else
    (void)flags;
#endif
    return rename(tmp, path);
}

bspkit_result bspkit_save_file(const char *path, const void *data, size_t size, bspkit_error *err)
{
    return bk_save_bytes(path, data, size, BK_SAVE_FLUSH, err);
}

bspkit_result bk_save_bytes(const char *path, const void *data, size_t size, unsigned flags, bspkit_error *err)
{
    const bk_save_part part = {data, size};
    return bk_save_parts(path, &part, 1, flags, err); /* which checks the arguments */
}

bspkit_result bk_save_parts(const char *path, const bk_save_part *parts, size_t nparts, unsigned flags,
                            bspkit_error *err)
{
    bk_error_clear(err);
    if (!path || !*path)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "save: NULL data or empty path");
    for (size_t i = 0; i < nparts; i++)
        if (!parts[i].data && parts[i].size)
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
    snprintf(tmp, tmp_cap, "%.*s%s.%s", (int)dir_len, path, slash ? "/" : "", base);
    int fd = create_temp(AT_FDCWD, tmp, tmp_cap, 0);
    if (fd < 0) {
        rc = io_fail(err, "cannot create a temporary file for", path, errno);
        goto done;
    }
    if (write_parts(fd, parts, nparts) != 0) {
        rc = io_fail(err, "cannot write", tmp, errno);
        close(fd);
        unlink(tmp);
        goto done;
    }
    if ((flags & BK_SAVE_FLUSH) && fsync(fd) != 0) {
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
    if (replace_file(tmp, path, flags) != 0) {
        rc = io_fail(err, "cannot replace", path, errno);
        unlink(tmp);
        goto done;
    }
    /* Make the rename itself durable; file systems that cannot sync a
     * directory are not an error, the data is already safe. */
    int dfd = flags & BK_SAVE_FLUSH ? open(dir, O_RDONLY | O_CLOEXEC) : -1;
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
done:
    free(tmp);
    free(dir);
    return rc;
}

bspkit_result bspkit_make_dirs(const char *dir, bspkit_error *err)
{
    bk_error_clear(err);
    if (!dir || !*dir)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "make directories: empty path");
    char *copy = strdup(dir);
    if (!copy)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "make directories: out of memory");
    for (char *p = copy + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(copy, 0777) != 0 && errno != EEXIST) {
            int e = errno;
            free(copy);
            return bk_fail(err, BSPKIT_ERR_IO, -1, -1, -1, "%s: cannot create directory: %s", dir, strerror(e));
        }
        *p = '/';
    }
    int e = mkdir(copy, 0777) != 0 && errno != EEXIST ? errno : 0;
    struct stat st;
    if (!e && (stat(copy, &st) != 0 || !S_ISDIR(st.st_mode)))
        e = ENOTDIR;
    free(copy);
    if (e)
        return bk_fail(err, BSPKIT_ERR_IO, -1, -1, -1, "%s: cannot create directory: %s", dir, strerror(e));
    return BSPKIT_OK;
}

/* Why writing `rel` under `dir` failed; a symbolic link met with O_NOFOLLOW
 * shows as ELOOP (or ENOTDIR with O_DIRECTORY) and is named as such. */
static bspkit_result under_fail(bspkit_error *err, const char *dir, const char *rel, int e, bool link)
{
    return bk_fail(err, BSPKIT_ERR_IO, -1, -1, -1, "%s/%s: cannot write: %s", dir, rel,
                   link || e == ELOOP ? "a symbolic link is in the way (not followed)" : strerror(e));
}

static bool is_link_at(int dir, const char *name)
{
    struct stat st;
    return fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
}

bspkit_result bspkit_write_file_under(const char *dir, const char *rel, const void *data, size_t size,
                                      bspkit_error *err)
{
    bk_error_clear(err);
    if (!dir || !rel || !*rel || (!data && size))
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "write under a directory: invalid argument");
    /* Only plain relative paths: no absolute path, no empty, "." or ".." component. */
    for (const char *c = rel;;) {
        const char *slash = strchr(c, '/');
        size_t n = slash ? (size_t)(slash - c) : strlen(c);
        bool last = !slash || slash[1] == '\0';
        if ((n == 0 && !(last && c != rel)) || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1,
                           "%s: not a plain relative path (empty, '.' or '..' component, or absolute)", rel);
        if (last)
            break;
        c = slash + 1;
    }
    char *path = strdup(rel);
    if (!path)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "write under a directory: out of memory");
    bspkit_result rc = BSPKIT_OK;
    int cur = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (cur < 0) {
        rc = bk_fail(err, BSPKIT_ERR_IO, -1, -1, -1, "%s: cannot open directory: %s", dir, strerror(errno));
        goto done;
    }
    /* Every directory on the way is created or entered one component at a
     * time without following links, so nothing can lead the write outside. */
    char *comp = path;
    for (char *slash; (slash = strchr(comp, '/')) != NULL; comp = slash + 1) {
        *slash = '\0';
        if (mkdirat(cur, comp, 0777) != 0 && errno != EEXIST) {
            rc = under_fail(err, dir, rel, errno, false);
            goto done;
        }
        int next = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0) {
            rc = under_fail(err, dir, rel, errno, is_link_at(cur, comp));
            goto done;
        }
        close(cur);
        cur = next;
    }
    if (*comp == '\0') /* "a/b/": directories only */
        goto done;
    if (is_link_at(cur, comp)) {
        rc = under_fail(err, dir, rel, ELOOP, true);
        goto done;
    }
    /* A temporary name beside the file, renamed over it once complete: no
     * reader ever sees a half-written file. */
    char tmp[64] = ".bspkit";
    int fd = create_temp(cur, tmp, sizeof tmp, O_NOFOLLOW);
    if (fd < 0) {
        rc = under_fail(err, dir, rel, errno, false);
        goto done;
    }
    int e = write_parts(fd, &(bk_save_part){data, size}, 1) != 0 ? errno : 0;
    if (close(fd) != 0 && !e)
        e = errno;
    if (!e && renameat(cur, tmp, cur, comp) != 0)
        e = errno;
    if (e) {
        unlinkat(cur, tmp, 0);
        rc = under_fail(err, dir, rel, e, false);
    }
done:
    if (cur >= 0)
        close(cur);
    free(path);
    return rc;
}
