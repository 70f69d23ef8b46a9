/* The names in Valve's VPK directory archives (versions 1 and 2): enough to
 * say whether a game holds a file, without reading the data archives. */
#include "ops/deps_internal.h"
#include "core/ascii.h"
#include "core/bytes.h"
#include "core/grow.h"
#include "core/map.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VPK_SIGNATURE 0x55aa1234u

/* The NUL-terminated string at *pos before `end`, or NULL when it runs past. */
static const char *cstr(const uint8_t *data, size_t end, size_t *pos)
{
    if (*pos >= end)
        return NULL;
    const uint8_t *nul = memchr(data + *pos, 0, end - *pos);
    if (!nul)
        return NULL;
    const char *s = (const char *)data + *pos;
    *pos = (size_t)(nul - data) + 1;
    return s;
}

static bool add_name(dk_vpk_set *set, const char *path, const char *name, const char *ext, size_t archive)
{
    bool root = strcmp(path, " ") == 0, noext = strcmp(ext, " ") == 0;
    size_t n = strlen(path) + strlen(name) + strlen(ext) + 3;
    char *full = malloc(n);
    if (!full || !bk_grow((void **)&set->items, &set->cap, set->count + 1, sizeof *set->items)) {
        free(full);
        return false;
    }
    snprintf(full, n, "%s%s%s%s%s", root ? "" : path, root ? "" : "/", name, noext ? "" : ".", noext ? "" : ext);
    for (char *c = full; *c; c++)
        *c = *c == '\\' ? '/' : (char)bk_ascii_lower((unsigned char)*c);
    set->items[set->count++] = (dk_vpk_name){full, archive};
    return true;
}

/* The directory tree: extension, then path, then file name lists, each ended by an empty string. */
static void parse_tree(dk_vpk_set *set, const uint8_t *data, size_t size, size_t archive)
{
    if (size < 12 || rd_le32(data) != VPK_SIGNATURE)
        return;
    uint32_t version = rd_le32(data + 4), tree = rd_le32(data + 8);
    size_t header = version == 1 ? 12 : version == 2 ? 28 : 0;
    if (!header || size < header || tree > size - header)
        return;
    size_t pos = header, end = header + tree;
    for (;;) {
        const char *ext = cstr(data, end, &pos);
        if (!ext || !*ext)
            return;
        for (;;) {
            const char *path = cstr(data, end, &pos);
            if (!path)
                return;
            if (!*path)
                break;
            for (;;) {
                const char *name = cstr(data, end, &pos);
                if (!name)
                    return;
                if (!*name)
                    break;
                /* CRC, preload bytes, archive index, offset, length, terminator, then the preload data */
                if (end - pos < 18)
                    return;
                uint16_t preload = rd_le16(data + pos + 4);
                pos += 18;
                if (end - pos < preload)
                    return;
                pos += preload;
                if (!add_name(set, path, name, ext, archive)) {
                    set->failed = true;
                    return;
                }
            }
        }
    }
}

static int name_cmp(const void *pa, const void *pb)
{
    const dk_vpk_name *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->archive < b->archive ? -1 : a->archive > b->archive);
}

static bool is_dir_vpk(const char *name)
{
    size_t n = strlen(name);
    return n > 8 && bk_ascii_casecmp(name + n - 8, "_dir.vpk") == 0;
}

void dk_vpk_load(dk_vpk_set *set, bspkit_map *map, const char *const *dirs, size_t ndirs)
{
    for (size_t d = 0; d < ndirs && !set->failed; d++) {
        DIR *dh = opendir(dirs[d]);
        if (!dh)
            continue;
        /* readdir order is the file system's; sort the archives of one directory by name. */
        char **found = NULL;
        size_t nfound = 0, cap = 0;
        struct dirent *de;
        while ((de = readdir(dh)) != NULL && !set->failed) {
            if (!is_dir_vpk(de->d_name))
                continue;
            size_t n = strlen(dirs[d]) + strlen(de->d_name) + 2;
            char *path = malloc(n);
            if (!path || !bk_grow((void **)&found, &cap, nfound + 1, sizeof *found)) {
                free(path);
                set->failed = true;
                break;
            }
            snprintf(path, n, "%s/%s", dirs[d], de->d_name);
            found[nfound++] = path;
        }
        closedir(dh);
        for (size_t i = 1; i < nfound; i++)
            for (size_t j = i; j > 0 && strcmp(found[j - 1], found[j]) > 0; j--) {
                char *t = found[j];
                found[j] = found[j - 1];
                found[j - 1] = t;
            }
        for (size_t i = 0; i < nfound; i++) {
            if (set->failed ||
                !bk_grow((void **)&set->archives, &set->archives_cap, set->narchives + 1, sizeof *set->archives)) {
                set->failed = true;
                free(found[i]);
                continue;
            }
            set->archives[set->narchives++] = found[i];
            uint8_t *data = NULL;
            size_t size = 0;
            bspkit_error e;
            bspkit_result r = bk_read_file_beside(map, found[i], -1, "deps: VPK directory", &data, &size, &e);
            if (r == BSPKIT_OK) {
                parse_tree(set, data, size, set->narchives - 1);
                bk_free(map, data, size);
            }
            set->failed |= r == BSPKIT_ERR_NOMEM; /* a damaged or unreadable archive is only skipped */
        }
        free(found);
    }
    if (set->count)
        qsort(set->items, set->count, sizeof *set->items, name_cmp);
}

const char *dk_vpk_find(const dk_vpk_set *set, const char *path)
{
    size_t lo = 0, hi = set->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(set->items[mid].name, path);
        if (c == 0) {
            while (mid > 0 && strcmp(set->items[mid - 1].name, path) == 0)
                mid--; /* the first archive in search order */
            return set->archives[set->items[mid].archive];
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

void dk_vpk_free(dk_vpk_set *set)
{
    for (size_t i = 0; i < set->count; i++)
        free(set->items[i].name);
    free(set->items);
    for (size_t i = 0; i < set->narchives; i++)
        free(set->archives[i]);
    free(set->archives);
    memset(set, 0, sizeof *set);
}
