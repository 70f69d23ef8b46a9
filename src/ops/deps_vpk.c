/* The files in Valve's VPK directory archives of the game directories (read
 * by bk_vpk_list), looked up by name; an entry's bytes are read from its
 * numbered data archive only when asked for. */
#include "ops/deps_internal.h"
#include "core/ascii.h"
#include "core/grow.h"
#include "core/map.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every entry of one directory archive; a damaged directory adds nothing. */
static void add_archive(dk_vpk_set *set, const uint8_t *data, size_t size, size_t archive)
{
    bk_arc_list list;
    bspkit_error e;
    bspkit_result r = bk_vpk_list(data, size, &list, &e);
    if (r != BSPKIT_OK) {
        set->failed |= r == BSPKIT_ERR_NOMEM;
        return;
    }
    if (!bk_grow((void **)&set->items, &set->cap, set->count + list.count, sizeof *set->items)) {
        set->failed = true;
        bk_arc_list_free(&list);
        return;
    }
    for (size_t i = 0; i < list.count; i++) {
        bk_arc_entry *en = &list.entries[i];
        for (char *c = en->name; *c; c++)
            *c = *c == '\\' ? '/' : (char)bk_ascii_lower((unsigned char)*c);
        dk_vpk_name *item = &set->items[set->count++];
        item->name = en->name; /* taken over */
        item->archive = archive;
        item->entry = *en;
        item->entry.name = NULL;
        en->name = NULL;
    }
    bk_arc_list_free(&list);
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
                add_archive(set, data, size, set->narchives - 1);
                bk_free(map, data, size);
            }
            set->failed |= r == BSPKIT_ERR_NOMEM; /* a damaged or unreadable archive is only skipped */
        }
        free(found);
    }
    if (set->count)
        qsort(set->items, set->count, sizeof *set->items, name_cmp);
}

const dk_vpk_name *dk_vpk_find(const dk_vpk_set *set, const char *path)
{
    size_t lo = 0, hi = set->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(set->items[mid].name, path);
        if (c == 0) {
            while (mid > 0 && strcmp(set->items[mid - 1].name, path) == 0)
                mid--; /* the first archive in search order */
            return &set->items[mid];
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
