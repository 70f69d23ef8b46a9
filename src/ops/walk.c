/* Walking directories and listing the maps inside archives. */
#include "ops/walk.h"

#include "core/ascii.h"
#include "core/grow.h"
#include "core/map.h"
#include "ops/archive.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "core/zipdl.h"

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && bk_ascii_equal(s + n - m, suffix);
}

/* NAME_NNN.vpk: a numbered VPK archive, read through NAME_dir.vpk. */
static bool is_numbered_vpk(const char *path)
{
    size_t n = strlen(path);
    if (n < 8 || !ends_with(path, ".vpk") || path[n - 8] != '_')
        return false;
    for (size_t i = n - 7; i < n - 4; i++)
        if (path[i] < '0' || path[i] > '9')
            return false;
    return true;
}

bk_scan_kind bk_scan_member_kind(const char *name)
{
    if (ends_with(name, ".bsp"))
        return BK_SCAN_BSP;
    if (ends_with(name, ".bsp.bz2"))
        return BK_SCAN_BZ2;
    if (ends_with(name, ".bsp.gz"))
        return BK_SCAN_GZ;
    return BK_SCAN_SKIP;
}

bk_scan_kind bk_scan_kind_of(const char *path, bool named)
{
    bk_scan_kind map = bk_scan_member_kind(path);
    if (map != BK_SCAN_SKIP)
        return map;
    if (ends_with(path, ".zip") || ends_with(path, ".pk3"))
        return BK_SCAN_ZIP;
    if (ends_with(path, ".gma"))
        return BK_SCAN_GMA;
    if (ends_with(path, ".vpk"))
        return !named && is_numbered_vpk(path) ? BK_SCAN_SKIP : BK_SCAN_VPK;
    if (named && ends_with(path, ".bz2"))
        return BK_SCAN_BZ2;
    if (named && ends_with(path, ".gz"))
        return BK_SCAN_GZ;
    return named ? BK_SCAN_BSP : BK_SCAN_SKIP;
}

static bool walk_dir(const char *path, bk_walk_fn fn, void *user)
{
    DIR *d = opendir(path);
    if (!d)
        return fn(user, path, false, errno);
    bool go = true;
    struct dirent *de;
    while (go && (de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        size_t len = strlen(path) + 1 + strlen(de->d_name) + 1;
        char *child = malloc(len);
        if (!child) {
            go = fn(user, path, false, ENOMEM);
            break;
        }
        snprintf(child, len, "%s%s%s", path, ends_with(path, "/") ? "" : "/", de->d_name);
        struct stat st;
        if (lstat(child, &st) != 0)
            go = fn(user, child, false, errno);
        else if (S_ISDIR(st.st_mode))
            go = walk_dir(child, fn, user);
        else if (S_ISREG(st.st_mode))
            go = fn(user, child, false, 0);
        else if (S_ISLNK(st.st_mode) && stat(child, &st) == 0 && S_ISREG(st.st_mode))
            go = fn(user, child, false, 0); /* a link to a file is read; links to directories could loop */
        free(child);
    }
    closedir(d);
    return go;
}

bool bk_walk(const char *path, bk_walk_fn fn, void *user)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return fn(user, path, true, errno);
    if (S_ISDIR(st.st_mode))
        return walk_dir(path, fn, user);
    return fn(user, path, true, 0);
}

/* ---- the items ----------------------------------------------------------- */
typedef struct finder {
    bk_scan_items *out;
    size_t cap;
    bool nomem;
} finder;

static bool add_item(finder *f, const char *path, const char *member, size_t index, bk_scan_kind kind,
                     const char *error)
{
    if (!bk_grow((void **)&f->out->items, &f->cap, f->out->count + 1, sizeof *f->out->items)) {
        f->nomem = true;
        return false;
    }
    bk_scan_item *it = &f->out->items[f->out->count];
    memset(it, 0, sizeof *it);
    it->path = strdup(path);
    it->member = member ? strdup(member) : NULL;
    it->error = error ? strdup(error) : NULL;
    it->index = index;
    it->kind = kind;
    if (!it->path || (member && !it->member) || (error && !it->error)) {
        free(it->path);
        free(it->member);
        free(it->error);
        f->nomem = true;
        return false;
    }
    f->out->count++;
    return true;
}

static bool list_zip(finder *f, const char *path)
{
    bspkit_error lerr;
    if (bk_zip_require(&lerr) != BSPKIT_OK)
        return add_item(f, path, NULL, 0, BK_SCAN_ZIP, lerr.message);
    int zerr = 0;
    zip_t *z = zip_open(path, ZIP_RDONLY, &zerr);
    if (!z) {
        zip_error_t ze;
        zip_error_init_with_code(&ze, zerr);
        char msg[256];
        snprintf(msg, sizeof msg, "zip: cannot open: %s", zip_error_strerror(&ze));
        zip_error_fini(&ze);
        return add_item(f, path, NULL, 0, BK_SCAN_ZIP, msg);
    }
    bool ok = true;
    zip_int64_t n = zip_get_num_entries(z, 0);
    for (zip_int64_t i = 0; ok && i < n; i++) {
        const char *name = zip_get_name(z, (zip_uint64_t)i, 0);
        if (name && bk_scan_member_kind(name) != BK_SCAN_SKIP)
            ok = add_item(f, path, name, (size_t)i, BK_SCAN_ZIP, NULL);
    }
    zip_discard(z);
    return ok;
}

static bool list_arc(finder *f, const char *path, bk_scan_kind kind)
{
    const uint8_t *data;
    size_t size;
    bspkit_error err;
    bk_arc_list list;
    bspkit_result r = bk_ops_map_file(path, &data, &size, &err);
    if (r == BSPKIT_OK) {
        r = kind == BK_SCAN_GMA ? bk_gma_list(data, size, &list, &err) : bk_vpk_list(data, size, &list, &err);
        bk_ops_unmap_file(data, size);
    }
    if (r != BSPKIT_OK)
        return r == BSPKIT_ERR_NOMEM ? (f->nomem = true, false) : add_item(f, path, NULL, 0, kind, err.message);
    bool ok = true;
    for (size_t i = 0; ok && i < list.count; i++)
        if (bk_scan_member_kind(list.entries[i].name) != BK_SCAN_SKIP)
            ok = add_item(f, path, list.entries[i].name, i, kind, NULL);
    bk_arc_list_free(&list);
    return ok;
}

static bool on_file(void *user, const char *path, bool named, int error)
{
    finder *f = user;
    if (error) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s", strerror(error));
        return add_item(f, path, NULL, 0, BK_SCAN_BSP, msg);
    }
    bk_scan_kind kind = bk_scan_kind_of(path, named);
    switch (kind) {
    case BK_SCAN_SKIP:
        return true;
    case BK_SCAN_ZIP:
        return list_zip(f, path);
    case BK_SCAN_GMA:
    case BK_SCAN_VPK:
        return list_arc(f, path, kind);
    default:
        return add_item(f, path, NULL, 0, kind, NULL);
    }
}

static int cmp_items(const void *a, const void *b)
{
    const bk_scan_item *x = a, *y = b;
    int c = strcmp(x->path, y->path);
    if (c)
        return c;
    if (!x->member || !y->member)
        return (x->member != NULL) - (y->member != NULL);
    c = strcmp(x->member, y->member);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

void bk_scan_items_free(bk_scan_items *items)
{
    for (size_t i = 0; i < items->count; i++) {
        free(items->items[i].path);
        free(items->items[i].member);
        free(items->items[i].error);
    }
    free(items->items);
    items->items = NULL;
    items->count = 0;
}

bspkit_result bk_scan_find(const char *const *paths, size_t count, bk_scan_items *out, bspkit_error *err)
{
    bk_error_clear(err);
    memset(out, 0, sizeof *out);
    finder f = {.out = out};
    for (size_t i = 0; i < count && !f.nomem; i++)
        bk_walk(paths[i], on_file, &f);
    if (f.nomem) {
        bk_scan_items_free(out);
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "scan: out of memory");
    }
    if (out->count > 1)
        qsort(out->items, out->count, sizeof *out->items, cmp_items);
    /* A path named twice (or inside a directory also named) is one map. */
    size_t kept = 0;
    for (size_t i = 0; i < out->count; i++) {
        bk_scan_item *it = &out->items[i];
        if (kept > 0 && cmp_items(&out->items[kept - 1], it) == 0) {
            free(it->path);
            free(it->member);
            free(it->error);
            continue;
        }
        out->items[kept++] = *it;
    }
    out->count = kept;
    return BSPKIT_OK;
}
