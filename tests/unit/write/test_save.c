/* Atomic saving under injected failures. The test links with
 * -Wl,--wrap=write,--wrap=writev,--wrap=fsync so the library's write(),
 * writev() and fsync() calls come here first; when armed they fail
 * part-way, as a full disk would. An existing target must stay
 * byte-identical and no temporary file may remain. Writes can also be cut
 * short without failing, as the kernel may: the file must still come out
 * whole. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bspkit/bspkit.h"
#include "bspkit/edit.h"
#include "bspkit/write.h"
#include "core/save_file.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

ssize_t __real_write(int fd, const void *buf, size_t n);
ssize_t __real_writev(int fd, const struct iovec *iov, int count);
int __real_fsync(int fd);

static long fail_write_after = -1; /* bytes to let through before failing; -1 = never fail */
static size_t short_writes;        /* > 0: no call writes more bytes than this */
static int fail_fsync;
static int fsync_calls;

ssize_t __wrap_write(int fd, const void *buf, size_t n);
ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
    if (fail_write_after < 0)
        return __real_write(fd, buf, n);
    if (fail_write_after == 0) {
        errno = ENOSPC;
        return -1;
    }
    size_t part = n < (size_t)fail_write_after ? n : (size_t)fail_write_after;
    ssize_t w = __real_write(fd, buf, part);
    if (w > 0)
        fail_write_after -= w;
    return w;
}

/* writev() as the wrapped write() sees it: at most the bytes let through
 * (and at most short_writes), then ENOSPC. */
ssize_t __wrap_writev(int fd, const struct iovec *iov, int count);
ssize_t __wrap_writev(int fd, const struct iovec *iov, int count)
{
    size_t cap = SIZE_MAX;
    if (fail_write_after >= 0) {
        if (fail_write_after == 0) {
            errno = ENOSPC;
            return -1;
        }
        cap = (size_t)fail_write_after;
    }
    if (short_writes > 0 && short_writes < cap)
        cap = short_writes;
    struct iovec cut[64];
    int n = 0;
    for (int k = 0; k < count && n < 64 && cap > 0; k++) {
        size_t len = iov[k].iov_len < cap ? iov[k].iov_len : cap;
        cut[n++] = (struct iovec){iov[k].iov_base, len};
        cap -= len;
    }
    ssize_t w = __real_writev(fd, cut, n);
    if (w > 0 && fail_write_after > 0)
        fail_write_after -= w;
    return w;
}

int __wrap_fsync(int fd);
int __wrap_fsync(int fd)
{
    fsync_calls++;
    if (fail_fsync) {
        errno = EIO;
        return -1;
    }
    return __real_fsync(fd);
}

static char dir[64];
static char target[128];
static const char OLD[] = "the previous contents of the target file";

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/bspkit-save-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(target, sizeof target, "%s/map.bsp", dir);
    FILE *f = fopen(target, "wb");
    if (!f)
        return -1;
    fwrite(OLD, 1, sizeof OLD, f);
    fclose(f);
    fail_write_after = -1;
    short_writes = 0;
    fail_fsync = 0;
    fsync_calls = 0;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    fail_write_after = -1;
    fail_fsync = 0;
    DIR *d = opendir(dir);
    struct dirent *ent;
    while (d && (ent = readdir(d))) {
        if (ent->d_name[0] == '.' && (ent->d_name[1] == '\0' || (ent->d_name[1] == '.' && ent->d_name[2] == '\0')))
            continue;
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, ent->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            rmdir(p);
        else
            unlink(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
    return 0;
}

static int entries_in(const char *path)
{
    DIR *d = opendir(path);
    assert_non_null(d);
    int entries = 0;
    struct dirent *ent;
    while ((ent = readdir(d)))
        if (strcmp(ent->d_name, ".") && strcmp(ent->d_name, ".."))
            entries++;
    closedir(d);
    return entries;
}

static void assert_file_holds(const char *path, const char *text)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char buf[256];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_int_equal(n, strlen(text));
    assert_memory_equal(buf, text, n);
}

/* The target holds OLD and is the only entry of the directory. */
static void assert_target_untouched(void)
{
    FILE *f = fopen(target, "rb");
    assert_non_null(f);
    char buf[256];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_int_equal(n, sizeof OLD);
    assert_memory_equal(buf, OLD, n);
    assert_int_equal(entries_in(dir), 1);
}

static uint8_t *sample_bytes(size_t *size)
{
    uint8_t *bytes;
    bspkit_error err;
    assert_int_equal(bspkit_sample_build(BSPKIT_SAMPLE_SOURCE_ROOM, &bytes, size, &err), BSPKIT_OK);
    return bytes;
}

/* Replaces the target file with a directory holding one file, whose path
 * goes to `inner`. */
static void directory_at_target(char *inner, size_t cap)
{
    unlink(target);
    assert_int_equal(mkdir(target, 0755), 0);
    snprintf(inner, cap, "%s/keep", target);
    FILE *f = fopen(inner, "wb");
    assert_non_null(f);
    fclose(f);
}

static void write_failure_midway(void **state)
{
    (void)state;
    size_t size;
    uint8_t *bytes = sample_bytes(&size);
    fail_write_after = (long)(size / 2);
    bspkit_error err;
    assert_int_equal(bspkit_save_file(target, bytes, size, &err), BSPKIT_ERR_IO);
    assert_non_null(strstr(err.message, "cannot write"));
    assert_non_null(strstr(err.message, strerror(ENOSPC)));
    fail_write_after = -1;
    assert_target_untouched();
    bspkit_free_buffer(bytes);
}

static void edit_save_failure_midway(void **state)
{
    (void)state;
    size_t size;
    uint8_t *bytes = sample_bytes(&size);
    bspkit_map *map;
    bspkit_edit *e;
    bspkit_error err;
    assert_int_equal(bspkit_open_memory(bytes, size, NULL, &map, &err), BSPKIT_OK);
    assert_int_equal(bspkit_edit_new(map, &e, &err), BSPKIT_OK);
    static const char text[] = "{\n\"classname\" \"worldspawn\"\n}\n";
    assert_int_equal(bspkit_edit_set_entities_text(e, text, sizeof text - 1, &err), BSPKIT_OK);
    for (long cut = 0; cut < (long)size; cut += (long)size / 7 + 1) {
        fail_write_after = cut;
        assert_int_equal(bspkit_edit_save(e, target, NULL, &err), BSPKIT_ERR_IO);
        fail_write_after = -1;
        assert_target_untouched();
    }
    /* Without the failure the save goes through and replaces the target. */
    assert_int_equal(bspkit_edit_save(e, target, NULL, &err), BSPKIT_OK);
    bspkit_map *saved;
    assert_int_equal(bspkit_open_file(target, NULL, &saved, &err), BSPKIT_OK);
    const bspkit_entities *ents;
    assert_int_equal(bspkit_get_entities(saved, &ents, &err), BSPKIT_OK);
    assert_int_equal(ents->count, 1);
    bspkit_close(saved);
    bspkit_edit_free(e);
    bspkit_close(map);
    bspkit_free_buffer(bytes);
}

static void flush_failure(void **state)
{
    (void)state;
    fail_fsync = 1;
    bspkit_error err;
    assert_int_equal(bspkit_save_file(target, "new", 3, &err), BSPKIT_ERR_IO);
    assert_non_null(strstr(err.message, "cannot flush"));
    fail_fsync = 0;
    assert_target_untouched();
}

static void rename_failure(void **state)
{
    (void)state;
    /* Replace the target with a non-empty directory: rename() over it fails. */
    char inner[200];
    directory_at_target(inner, sizeof inner);
    bspkit_error err;
    assert_int_equal(bspkit_save_file(target, "new", 3, &err), BSPKIT_ERR_IO);
    assert_non_null(strstr(err.message, "cannot replace"));
    assert_int_equal(entries_in(dir), 1); /* no temporary file left behind */
    unlink(inner);
}

static void missing_directory(void **state)
{
    (void)state;
    char p[200];
    snprintf(p, sizeof p, "%s/no/such/dir/map.bsp", dir);
    bspkit_error err;
    assert_int_equal(bspkit_save_file(p, "x", 1, &err), BSPKIT_ERR_IO);
    assert_non_null(strstr(err.message, "no/such/dir"));
    assert_target_untouched();
}

/* Maps are synced before the rename; derived files are not, and still
 * replace the target whole. */
static void flushed_or_not(void **state)
{
    (void)state;
    bspkit_error err;
    assert_int_equal(bspkit_save_file(target, "map", 3, &err), BSPKIT_OK);
    assert_true(fsync_calls >= 1);
    assert_file_holds(target, "map");
    fsync_calls = 0;
    assert_int_equal(bk_save_bytes(target, "derived", 7, BK_SAVE_DERIVED, &err), BSPKIT_OK);
    assert_int_equal(fsync_calls, 0);
    assert_file_holds(target, "derived");
    assert_int_equal(entries_in(dir), 1); /* the old file and the temporary are gone */
    /* A new name works as well. */
    char fresh[160];
    snprintf(fresh, sizeof fresh, "%s/new.glb", dir);
    assert_int_equal(bk_save_bytes(fresh, "fresh", 5, BK_SAVE_DERIVED, &err), BSPKIT_OK);
    assert_file_holds(fresh, "fresh");
    assert_int_equal(entries_in(dir), 2);
}

static void derived_write_failure(void **state)
{
    (void)state;
    fail_write_after = 5;
    bspkit_error err;
    assert_int_equal(bk_save_bytes(target, "0123456789", 10, BK_SAVE_DERIVED, &err), BSPKIT_ERR_IO);
    fail_write_after = -1;
    assert_target_untouched();
}

/* Many parts, each call cut short at a few bytes, across part boundaries
 * and within parts: the file holds every part once, in order. */
static void parts_through_short_writes(void **state)
{
    (void)state;
    static const char *texts[] = {"{\"asset\":", "", "{\"version\":\"2.0\"}", ",", "\"x\"", "", "", "0123456789abcdef", "}"};
    enum { N = sizeof texts / sizeof texts[0] };
    bk_save_part parts[N];
    char expect[256] = "";
    for (size_t k = 0; k < N; k++) {
        parts[k] = (bk_save_part){texts[k], strlen(texts[k])};
        strcat(expect, texts[k]);
    }
    for (size_t cut = 1; cut <= 8; cut++) {
        short_writes = cut;
        bspkit_error err;
        assert_int_equal(bk_save_parts(target, parts, N, BK_SAVE_DERIVED, &err), BSPKIT_OK);
        short_writes = 0;
        assert_file_holds(target, expect);
        assert_int_equal(entries_in(dir), 1);
    }
}

/* As rename(): a symbolic link at the target is itself replaced, and what
 * it pointed to is left alone. */
static void derived_over_link(void **state)
{
    (void)state;
    char link[160];
    snprintf(link, sizeof link, "%s/link.glb", dir);
    assert_int_equal(symlink(target, link), 0);
    bspkit_error err;
    assert_int_equal(bk_save_bytes(link, "derived", 7, BK_SAVE_DERIVED, &err), BSPKIT_OK);
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_file_holds(link, "derived");
    unlink(link);
    assert_target_untouched();
}

/* A directory in the way is an error, and the directory stays where it was. */
static void derived_over_directory(void **state)
{
    (void)state;
    char inner[200];
    directory_at_target(inner, sizeof inner);
    bspkit_error err;
    assert_int_equal(bk_save_bytes(target, "new", 3, BK_SAVE_DERIVED, &err), BSPKIT_ERR_IO);
    assert_non_null(strstr(err.message, "cannot replace"));
    struct stat st;
    assert_int_equal(stat(inner, &st), 0);
    assert_int_equal(entries_in(dir), 1);
    unlink(inner);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(write_failure_midway, setup, teardown),
        cmocka_unit_test_setup_teardown(edit_save_failure_midway, setup, teardown),
        cmocka_unit_test_setup_teardown(flush_failure, setup, teardown),
        cmocka_unit_test_setup_teardown(rename_failure, setup, teardown),
        cmocka_unit_test_setup_teardown(missing_directory, setup, teardown),
        cmocka_unit_test_setup_teardown(flushed_or_not, setup, teardown),
        cmocka_unit_test_setup_teardown(derived_write_failure, setup, teardown),
        cmocka_unit_test_setup_teardown(parts_through_short_writes, setup, teardown),
        cmocka_unit_test_setup_teardown(derived_over_link, setup, teardown),
        cmocka_unit_test_setup_teardown(derived_over_directory, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
