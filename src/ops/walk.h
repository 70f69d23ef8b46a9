/* Finding the maps under a set of paths: files by extension, directories
 * recursively, and the map members of every archive, sorted by path then
 * member so a scan's order never depends on the file system or threads. */
#ifndef BSPKIT_OPS_WALK_H
#define BSPKIT_OPS_WALK_H

#include "bspkit/bspkit.h"

#include <stddef.h>

typedef enum bk_scan_kind {
    BK_SCAN_BSP,
    BK_SCAN_BZ2,
    BK_SCAN_GZ,
    BK_SCAN_ZIP,
    BK_SCAN_GMA,
    BK_SCAN_VPK,
    BK_SCAN_SKIP /* not a map or container (only for files found in directories) */
} bk_scan_kind;

typedef struct bk_scan_item {
    char *path;
    char *member;  /* inside an archive, else NULL */
    size_t index;  /* the member's entry index in its archive */
    bk_scan_kind kind;
    char *error;   /* the path or archive could not be read: the record's error */
} bk_scan_item;

typedef struct bk_scan_items {
    bk_scan_item *items;
    size_t count;
} bk_scan_items;

/* What a file name says it is; `named` files (given on the command line)
 * with an unknown extension are read as maps. */
bk_scan_kind bk_scan_kind_of(const char *path, bool named);

/* What a member of a zip/pk3, GMA or VPK is by its name: BK_SCAN_BSP (.bsp), BK_SCAN_BZ2
 * (.bsp.bz2), BK_SCAN_GZ (.bsp.gz), else BK_SCAN_SKIP. */
bk_scan_kind bk_scan_member_kind(const char *name);

/* Every map under `paths`, sorted, each once. Fails only when out of memory. */
bspkit_result bk_scan_find(const char *const *paths, size_t count, bk_scan_items *out, bspkit_error *err);
void bk_scan_items_free(bk_scan_items *items);

/* Calls `fn` for every regular file under `path` (itself when a file), in no
 * particular order; symbolic links to directories are not followed below the
 * top. A path that cannot be read is passed with its errno. Returns false
 * when `fn` does. */
typedef bool (*bk_walk_fn)(void *user, const char *path, bool named, int error);
bool bk_walk(const char *path, bk_walk_fn fn, void *user);

#endif
