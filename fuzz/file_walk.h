/* Files named on a command line, directories walked recursively in sorted
 * order; shared by the replay driver and the corruption sweep. Header-only
 * because each user is a single-file program. */
#ifndef BSPKIT_FUZZ_FILE_WALK_H
#define BSPKIT_FUZZ_FILE_WALK_H

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Called for each file; non-zero marks the walk as failed (it goes on). */
typedef int (*walk_visit_fn)(void *ctx, const char *path);
/* Whether a file found inside a directory is visited; NULL visits all.
 * Files named directly are always visited. */
typedef bool (*walk_filter_fn)(const char *name);

/* The whole file in a new buffer of exactly its size (1 byte when empty), so
 * overreads reach a sanitizer; NULL when it cannot be read. */
static inline uint8_t *walk_read_file(const char *path, size_t *size_out)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 4096, size = 0;
    uint8_t *buf = malloc(cap);
    while (buf != NULL) {
        size += fread(buf + size, 1, cap - size, f);
        if (size < cap)
            break;
        uint8_t *grown = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
        if (grown == NULL) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
        cap *= 2;
    }
    int failed = buf == NULL || ferror(f);
    fclose(f);
    uint8_t *exact = failed ? NULL : malloc(size ? size : 1);
    if (exact != NULL)
        memcpy(exact, buf, size);
    free(buf);
    *size_out = size;
    return exact;
}

static int walk_by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* 0 when every file was visited and every visit returned 0; problems are
 * reported on stderr prefixed by `who`. */
static inline int walk_path(const char *who, const char *path, walk_filter_fn filter, walk_visit_fn visit,
                            void *ctx)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "%s: %s: %s\n", who, path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode))
        return visit(ctx, path);

    DIR *dir = opendir(path);
    if (dir == NULL) {
        fprintf(stderr, "%s: %s: %s\n", who, path, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *de;
    while ((de = readdir(dir)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **grown = realloc(names, cap * sizeof *names);
            if (grown == NULL) {
                rc = -1;
                break;
            }
            names = grown;
        }
        size_t len = strlen(path) + strlen(de->d_name) + 2;
        if ((names[n] = malloc(len)) == NULL) {
            rc = -1;
            break;
        }
        snprintf(names[n++], len, "%s/%s", path, de->d_name);
    }
    closedir(dir);
    if (n > 0)
        qsort(names, n, sizeof *names, walk_by_name);
    for (size_t i = 0; i < n; i++) {
        struct stat cst;
        const char *base = strrchr(names[i], '/') + 1;
        bool wanted = filter == NULL || (stat(names[i], &cst) == 0 && S_ISDIR(cst.st_mode)) || filter(base);
        if (rc == 0 && wanted && walk_path(who, names[i], filter, visit, ctx) != 0)
            rc = -1;
        free(names[i]);
    }
    free(names);
    return rc;
}

#endif
