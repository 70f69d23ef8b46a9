/* bspkit_fastdl: bzip2 archives of Source maps and plain copies of GoldSrc
 * maps for a FastDL web server, verified before they are written. */
#include "bspkit/fastdl.h"

#include "bspkit/deps.h"
#include "bspkit/edit.h"
#include "core/grow.h"
#include "core/map.h"
#include "ops/archive.h"
#include "ops/deps_internal.h"
#include "ops/walk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MIB (1024ull * 1024ull)

typedef struct path_list {
    char **paths;
    size_t count, cap;
    bool nomem;
} path_list;

/* A copy of `path` at the end of the list; false (and nomem set) when memory runs out. */
static bool list_add(path_list *l, const char *path)
{
    char *copy = strdup(path);
    if (!copy || !bk_grow((void **)&l->paths, &l->cap, l->count + 1, sizeof *l->paths)) {
        free(copy);
        l->nomem = true;
        return false;
    }
    l->paths[l->count++] = copy;
    return true;
}

static bool list_has(const path_list *l, const char *path)
{
    for (size_t i = 0; i < l->count; i++)
        if (strcmp(l->paths[i], path) == 0)
            return true;
    return false;
}

static void list_free(path_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->paths[i]);
    free(l->paths);
    memset(l, 0, sizeof *l);
}

static bool collect(void *user, const char *path, bool named, int error)
{
    /* An unreadable path is kept: it is reported as a failed map. */
    if (!error && bk_scan_kind_of(path, named) != BK_SCAN_BSP)
        return true;
    return list_add(user, path);
}

static int cmp_path(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static bool same_time(const struct stat *a, const struct stat *b)
{
    return a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* An output is current when it has its input's modification time and holds as many bytes as the
 * input has: a copy by its size, a bzip2 archive by the size it decompresses to (counted, not
 * kept), so an input replaced by one of another size with its time kept is written again. */
static bool is_current(const char *out, const struct stat *input, uint64_t input_size, bool bz2, struct stat *ost)
{
    if (stat(out, ost) != 0 || !S_ISREG(ost->st_mode) || !same_time(ost, input))
        return false;
    if (!bz2)
        return (uint64_t)ost->st_size == input_size;
    const uint8_t *data;
    size_t size, content = 0;
    bspkit_error err;
    if (bk_ops_map_file(out, &data, &size, &err) != BSPKIT_OK)
        return false;
    bool same = bk_bz2_decompress(data, size, input_size, NULL, &content, &err) == BSPKIT_OK &&
                (uint64_t)content == input_size;
    bk_ops_unmap_file(data, size);
    return same;
}

/* The output gets the input's modification time, which is how a later run knows it is current. */
static bspkit_result stamp(const char *path, const struct stat *input, bspkit_error *err)
{
    struct timespec times[2] = {input->st_atim, input->st_mtim};
    if (utimensat(AT_FDCWD, path, times, 0) != 0)
        return bk_fail(err, BSPKIT_ERR_IO, -1, -1, -1, "%s: setting the modification time: %s", path,
                       strerror(errno));
    return BSPKIT_OK;
}

/* Compress, check that the archive gives the map back, write it. */
static bspkit_result write_bz2(const char *out, const uint8_t *data, size_t size, uint64_t *out_size,
                               bspkit_error *err)
{
    uint8_t *packed = NULL, *back = NULL;
    size_t packed_size = 0, back_size = 0;
    bspkit_result r = bk_bz2_compress(data, size, &packed, &packed_size, err);
    if (r == BSPKIT_OK)
        r = bk_bz2_decompress(packed, packed_size, (uint64_t)size + 1, &back, &back_size, err);
    if (r == BSPKIT_OK && (back_size != size || (size && memcmp(back, data, size) != 0)))
        r = bk_fail(err, BSPKIT_ERR_COMPRESSION, -1, -1, -1,
                    "the bzip2 archive does not decompress to the map (%zu bytes back, %zu expected)", back_size, size);
    free(back);
    if (r == BSPKIT_OK)
        r = bspkit_save_file(out, packed, packed_size, err);
    *out_size = packed_size;
    free(packed);
    return r;
}

/* A plain copy, read back and compared before it is renamed into place. */
static bspkit_result write_copy(const char *out, const uint8_t *data, size_t size, bspkit_error *err)
{
    bspkit_result r = bspkit_save_file(out, data, size, err);
    if (r != BSPKIT_OK)
        return r;
    const uint8_t *back;
    size_t back_size;
    r = bk_ops_map_file(out, &back, &back_size, err);
    if (r == BSPKIT_OK && (back_size != size || (size && memcmp(back, data, size) != 0)))
        r = bk_fail(err, BSPKIT_ERR_IO, -1, -1, -1, "%s: the copy does not read back as the map", out);
    bk_ops_unmap_file(back, back_size);
    if (r != BSPKIT_OK)
        unlink(out);
    return r;
}

typedef struct one_map {
    bspkit_fastdl_item item;
    char message[320];
    char *output;
    const uint8_t *data; /* the map, still mapped for the content pass */
    size_t size;
    bool source;
} one_map;

static void fail_item(one_map *m, bspkit_fastdl_action action, const char *fmt, const char *detail)
{
    m->item.action = action;
    snprintf(m->message, sizeof m->message, fmt, detail);
    m->item.message = m->message;
}

static void do_map(const char *input, const char *maps_dir, char **used, size_t nused, one_map *m)
{
    memset(m, 0, sizeof *m);
    m->item.input = input;
    bspkit_error err;
    struct stat st;
    const uint8_t *data = NULL;
    size_t size = 0;
    if (stat(input, &st) != 0) {
        fail_item(m, BSPKIT_FASTDL_FAILED, "%s", strerror(errno));
        return;
    }
    if (bk_ops_map_file(input, &data, &size, &err) != BSPKIT_OK) {
        fail_item(m, BSPKIT_FASTDL_FAILED, "%s", err.message);
        return;
    }
    m->item.input_size = size;
    bspkit_format f;
    if (bspkit_detect(data, size, &f, &err) != BSPKIT_OK) {
        fail_item(m, BSPKIT_FASTDL_FAILED, "%s", err.message);
    } else if (f.family != BSPKIT_FAMILY_SOURCE && f.family != BSPKIT_FAMILY_GOLDSRC) {
        fail_item(m, BSPKIT_FASTDL_SKIPPED, "a %s map: FastDL serves Source and GoldSrc maps", bspkit_family_name(f.family));
    } else {
        bool source = f.family == BSPKIT_FAMILY_SOURCE;
        const char *name = base_name(input);
        size_t len = strlen(maps_dir) + 1 + strlen(name) + 5;
        m->output = malloc(len);
        if (!m->output) {
            fail_item(m, BSPKIT_FASTDL_FAILED, "%s", "out of memory");
        } else {
            snprintf(m->output, len, "%s/%s%s", maps_dir, name, source ? ".bz2" : "");
            for (size_t i = 0; i < nused && !m->item.message; i++)
                if (strcmp(used[i], m->output) == 0)
                    fail_item(m, BSPKIT_FASTDL_FAILED, "another map already wrote %s", m->output);
        }
        if (!m->item.message) {
            if (size > 150 * MIB)
                m->item.warnings |= BSPKIT_FASTDL_WARN_150MB;
            if (size > 64 * MIB)
                m->item.warnings |= BSPKIT_FASTDL_WARN_64MB;
            m->item.output = m->output;
            struct stat ost;
            if (is_current(m->output, &st, size, source, &ost)) {
                m->item.action = BSPKIT_FASTDL_UNCHANGED;
                m->item.output_size = (uint64_t)ost.st_size;
            } else {
                uint64_t out_size = size;
                bspkit_result r = source ? write_bz2(m->output, data, size, &out_size, &err)
                                         : write_copy(m->output, data, size, &err);
                if (r == BSPKIT_OK)
                    r = stamp(m->output, &st, &err);
                if (r != BSPKIT_OK) {
                    fail_item(m, BSPKIT_FASTDL_FAILED, "%s", err.message);
                    m->item.output = NULL;
                } else {
                    m->item.action = source ? BSPKIT_FASTDL_WRITTEN : BSPKIT_FASTDL_COPIED;
                    m->item.output_size = out_size;
                }
            }
            if (source && m->item.output && m->item.output_size * 10 > (uint64_t)size * 9)
                m->item.warnings |= BSPKIT_FASTDL_WARN_LOW_GAIN;
            m->source = source;
        }
    }
    m->data = data;
    m->size = size;
}

/* ---- the files maps refer to ----------------------------------------------- */
typedef struct run {
    const bspkit_fastdl_options *opts;
    const char *out_dir;
    bspkit_fastdl_totals totals;
    path_list content_done; /* content paths handled in this run: a file several maps use is written once */
    bool nomem;
} run;

static void report(run *rn, const bspkit_fastdl_item *it)
{
    bspkit_fastdl_totals *t = &rn->totals;
    switch (it->action) {
    case BSPKIT_FASTDL_WRITTEN: t->written++; break;
    case BSPKIT_FASTDL_COPIED: t->copied++; break;
    case BSPKIT_FASTDL_UNCHANGED: t->unchanged++; break;
    case BSPKIT_FASTDL_SKIPPED: t->skipped++; break;
    case BSPKIT_FASTDL_FAILED: t->failed++; break;
    }
    if (it->action == BSPKIT_FASTDL_WRITTEN || it->action == BSPKIT_FASTDL_COPIED) {
        t->input_bytes += it->input_size;
        t->output_bytes += it->output_size;
    }
    if (rn->opts->on_item)
        rn->opts->on_item(rn->opts->user, it);
}

static char *join3(const char *a, const char *b, const char *c)
{
    size_t len = strlen(a) + 1 + strlen(b) + strlen(c) + 1;
    char *p = malloc(len);
    if (p)
        snprintf(p, len, "%s/%s%s", a, b, c);
    return p;
}

/* OUT_DIR/REL.bz2 for one content file. */
static void do_content_file(run *rn, const char *map_path, const char *src, const char *rel, const struct stat *st,
                            const uint8_t *data, size_t size)
{
    bspkit_fastdl_item it = {.input = src, .map = map_path, .input_size = size};
    char message[320];
    bspkit_error err;
    char *out = join3(rn->out_dir, rel, ".bz2");
    char *dir = out ? strdup(out) : NULL;
    struct stat ost;
    if (!out || !dir) {
        it.action = BSPKIT_FASTDL_FAILED;
        it.message = "out of memory";
    } else if (is_current(out, st, size, true, &ost)) {
        it.action = BSPKIT_FASTDL_UNCHANGED;
        it.output = out;
        it.output_size = (uint64_t)ost.st_size;
    } else {
        *strrchr(dir, '/') = '\0';
        uint64_t out_size = 0;
        bspkit_result r = bspkit_make_dirs(dir, &err);
        if (r == BSPKIT_OK)
            r = write_bz2(out, data, size, &out_size, &err);
        if (r == BSPKIT_OK)
            r = stamp(out, st, &err);
        if (r != BSPKIT_OK) {
            it.action = BSPKIT_FASTDL_FAILED;
            snprintf(message, sizeof message, "%s", err.message);
            it.message = message;
        } else {
            it.action = BSPKIT_FASTDL_WRITTEN;
            it.output = out;
            it.output_size = out_size;
        }
    }
    report(rn, &it);
    free(dir);
    free(out);
}

/* Every file the map needs (as bspkit_deps_map finds them, the content directories taken as game
 * directories) that is a loose file of a content directory: what the pakfile carries, what no
 * directory holds and what is inside a VPK archive (the game's own) is nothing to offer. */
static void do_content(run *rn, const char *map_path, const uint8_t *data, size_t size)
{
    bspkit_map *map = NULL;
    if (bspkit_open_memory(data, size, NULL, &map, NULL) != BSPKIT_OK)
        return; /* reported with the map itself */
    bspkit_deps_options dopts = {rn->opts->content_dirs, rn->opts->content_dir_count};
    bspkit_deps *deps = NULL;
    bspkit_error err;
    bspkit_result r = bspkit_deps_map(map, &dopts, &deps, &err);
    if (r != BSPKIT_OK) {
        rn->nomem |= r == BSPKIT_ERR_NOMEM;
        bspkit_close(map);
        return;
    }
    for (size_t i = 0; !rn->nomem && i < deps->count; i++) {
        const bspkit_dep *dep = &deps->items[i];
        if (dep->where != BSPKIT_DEP_IN_GAME || !dk_dep_is_loose(deps, i) || list_has(&rn->content_done, dep->path))
            continue;
        if (!list_add(&rn->content_done, dep->path)) {
            rn->nomem = true;
            break;
        }
        const uint8_t *file = NULL;
        size_t file_size = 0;
        struct stat st;
        bool readable = stat(dep->location, &st) == 0;
        if (!readable)
            snprintf(err.message, sizeof err.message, "%s: %s", dep->location, strerror(errno));
        else
            readable = bk_ops_map_file(dep->location, &file, &file_size, &err) == BSPKIT_OK;
        if (!readable) {
            bspkit_fastdl_item it = {.input = dep->location, .map = map_path, .action = BSPKIT_FASTDL_FAILED,
                                     .message = err.message};
            report(rn, &it);
            continue;
        }
        do_content_file(rn, map_path, dep->location, dep->path, &st, file, file_size);
        bk_ops_unmap_file(file, file_size);
    }
    bspkit_deps_free(deps);
    bspkit_close(map);
}

bspkit_result bspkit_fastdl(const char *const *paths, size_t count, const char *out_dir,
                            const bspkit_fastdl_options *opts, bspkit_fastdl_totals *totals, bspkit_error *err)
{
    bk_error_clear(err);
    static const bspkit_fastdl_options defaults;
    if (!opts)
        opts = &defaults;
    if (totals)
        memset(totals, 0, sizeof *totals);
    if ((count && !paths) || !out_dir || !*out_dir)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "fastdl: missing paths or output directory");
    size_t len = strlen(out_dir) + 6;
    char *maps_dir = malloc(len);
    if (!maps_dir)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "fastdl: out of memory");
    snprintf(maps_dir, len, "%s/maps", out_dir);
    bspkit_result r = bspkit_make_dirs(maps_dir, err);
    if (r != BSPKIT_OK) {
        free(maps_dir);
        return r;
    }

    path_list list = {0};
    for (size_t i = 0; i < count && !list.nomem; i++)
        bk_walk(paths[i], collect, &list);
    if (!list.nomem && list.count > 1)
        qsort(list.paths, list.count, sizeof *list.paths, cmp_path);
    char **used = list.nomem ? NULL : calloc(list.count ? list.count : 1, sizeof *used);
    if (!used)
        r = bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "fastdl: out of memory");
    size_t nused = 0, total = 0, done = 0;
    for (size_t i = 0; i < list.count; i++)
        total += i == 0 || strcmp(list.paths[i], list.paths[i - 1]) != 0;
    run rn = {.opts = opts, .out_dir = out_dir};
    for (size_t i = 0; used && i < list.count && !rn.nomem; i++) {
        if (i > 0 && strcmp(list.paths[i], list.paths[i - 1]) == 0)
            continue; /* named twice */
        one_map m;
        do_map(list.paths[i], maps_dir, used, nused, &m);
        report(&rn, &m.item);
        if (m.source && m.item.output && opts->content_dir_count > 0)
            do_content(&rn, list.paths[i], m.data, m.size);
        bk_ops_unmap_file(m.data, m.size);
        if (m.item.output)
            used[nused++] = m.output;
        else
            free(m.output);
        if (opts->on_progress)
            opts->on_progress(opts->user, ++done, total);
    }
    if (rn.nomem)
        r = bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "fastdl: out of memory");
    list_free(&rn.content_done);
    for (size_t i = 0; i < nused; i++)
        free(used[i]);
    free(used);
    list_free(&list);
    free(maps_dir);
    if (totals)
        *totals = rn.totals;
    return r;
}
