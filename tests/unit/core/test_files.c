/* Writing files under a directory (bspkit_write_file_under, bspkit_make_dirs):
 * plain relative paths only, never through a symbolic link, no leftovers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bspkit/edit.h"

static char root[64];

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/bspkit-files-XXXXXX");
    return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

static char *path_in(const char *rel)
{
    static char p[256];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    return p;
}

static size_t entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static void test_writes_and_replaces(void **state)
{
    (void)state;
    bspkit_error err;
    assert_int_equal(bspkit_make_dirs(path_in("out/deep"), &err), BSPKIT_OK);
    assert_int_equal(bspkit_write_file_under(path_in("out"), "a/b/c.txt", "hello", 5, &err), BSPKIT_OK);
    assert_int_equal(bspkit_write_file_under(path_in("out"), "a/b/c.txt", "hi", 2, &err), BSPKIT_OK);
    FILE *f = fopen(path_in("out/a/b/c.txt"), "rb");
    assert_non_null(f);
    char buf[8] = {0};
    assert_int_equal(fread(buf, 1, sizeof buf, f), 2);
    fclose(f);
    assert_string_equal(buf, "hi");
    assert_int_equal(entries(path_in("out/a/b")), 1); /* no temporary file left */
    /* A trailing '/' makes directories only. */
    assert_int_equal(bspkit_write_file_under(path_in("out"), "d/e/", NULL, 0, &err), BSPKIT_OK);
    struct stat st;
    assert_int_equal(stat(path_in("out/d/e"), &st), 0);
    assert_true(S_ISDIR(st.st_mode));
}

static void test_refuses_links_and_escapes(void **state)
{
    (void)state;
    bspkit_error err;
    assert_int_equal(bspkit_make_dirs(path_in("box"), &err), BSPKIT_OK);
    assert_int_equal(bspkit_make_dirs(path_in("elsewhere"), &err), BSPKIT_OK);
    assert_int_equal(symlink("../elsewhere", path_in("box/link")), 0);
    assert_int_equal(bspkit_write_file_under(path_in("box"), "link/x.txt", "x", 1, &err), BSPKIT_ERR_IO);
    assert_non_null(strstr(err.message, "a symbolic link is in the way (not followed)"));
    assert_int_equal(symlink("../elsewhere/y.txt", path_in("box/y.txt")), 0);
    assert_int_equal(bspkit_write_file_under(path_in("box"), "y.txt", "y", 1, &err), BSPKIT_ERR_IO);
    assert_non_null(strstr(err.message, "symbolic link"));
    assert_int_equal(entries(path_in("elsewhere")), 0);
    static const char *const bad[] = {"../x", "a/../x", "/etc/x", "a//b", ".", "./a", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(bspkit_write_file_under(path_in("box"), bad[i], "z", 1, &err), BSPKIT_ERR_ARGUMENT);
    /* A file where a directory is asked for. */
    assert_int_equal(bspkit_write_file_under(path_in("box"), "f", "1", 1, &err), BSPKIT_OK);
    assert_int_equal(bspkit_make_dirs(path_in("box/f"), &err), BSPKIT_ERR_IO);
    assert_int_equal(bspkit_write_file_under(path_in("box"), "f/g", "1", 1, &err), BSPKIT_ERR_IO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writes_and_replaces),
        cmocka_unit_test(test_refuses_links_and_escapes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
