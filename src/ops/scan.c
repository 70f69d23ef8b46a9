/* bspkit_scan: find maps (plain, compressed, inside archives), summarise each
 * on a pool of threads, and hand the records out in path order. */
#include "bspkit/scan.h"

#include "bspkit/pak.h"
#include "bspkit/props.h"
#include "bspkit/textures.h"
#include "core/map.h"
#include "core/parallel.h"
#include "ops/archive.h"
#include "ops/index.h"
#include "ops/walk.h"

#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/zipdl.h"

#define DEFAULT_MEMBER_LIMIT (1ull << 30)
#define SPRP_ID 0x73707270u

/* ---- the bytes of one map ----------------------------------------------- */
typedef struct map_bytes {
    const uint8_t *data;
    size_t size;
    uint8_t *owned;          /* malloc'd bytes to free, or NULL */
    const uint8_t *mapping;  /* file mapping to release, or NULL */
    size_t mapping_size;
} map_bytes;

static void map_bytes_release(map_bytes *b)
{
    free(b->owned);
    bk_ops_unmap_file(b->mapping, b->mapping_size);
    memset(b, 0, sizeof *b);
}

static bspkit_result read_zip_member(const char *path, size_t index, uint64_t limit, map_bytes *out,
                                     bspkit_error *err)
{
    bspkit_result lr = bk_zip_require(err);
    if (lr != BSPKIT_OK)
        return lr;
    int zerr = 0;
    zip_t *z = zip_open(path, ZIP_RDONLY, &zerr);
    if (!z)
        return bk_fail(err, BSPKIT_ERR_IO, -1, -1, -1, "zip: cannot open (libzip error %d)", zerr);
    bspkit_result r = BSPKIT_OK;
    zip_stat_t st;
    zip_file_t *f = NULL;
    if (zip_stat_index(z, index, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE)) {
        r = bk_fail(err, BSPKIT_ERR_IO, -1, -1, -1, "zip: entry %zu: %s", index, zip_strerror(z));
    } else if (st.size > limit || st.size > SIZE_MAX) {
        r = bk_fail(err, BSPKIT_ERR_LIMIT, -1, -1, -1, "zip: entry of %" PRIu64 " bytes is above the limit of %" PRIu64,
                    (uint64_t)st.size, limit);
    } else if (!(out->owned = malloc(st.size ? (size_t)st.size : 1))) {
        r = bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "zip: out of memory");
    } else if (!(f = zip_fopen_index(z, index, 0))) {
        r = bk_fail(err, BSPKIT_ERR_COMPRESSION, -1, -1, -1, "zip: %s", zip_strerror(z));
    } else {
        /* Read one byte more than declared: an entry longer than its header says is damaged. */
        uint8_t extra;
        zip_int64_t n = st.size ? zip_fread(f, out->owned, st.size) : 0;
        if (n < 0 || (zip_uint64_t)n != st.size || zip_fread(f, &extra, 1) != 0)
            r = bk_fail(err, BSPKIT_ERR_COMPRESSION, -1, -1, -1, "zip: entry data does not match its size (%s)",
                        zip_file_strerror(f));
        out->data = out->owned;
        out->size = (size_t)st.size;
    }
    if (f)
        zip_fclose(f);
    zip_discard(z);
    return r;
}

static bspkit_result read_vpk_member(const char *path, const uint8_t *dir, const bk_arc_entry *e, uint64_t limit,
                                     map_bytes *out, bspkit_error *err)
{
    if (e->archive == BK_VPK_DIR_ARCHIVE && e->preload_size == 0 && e->size <= limit) {
        out->data = dir + e->offset; /* in the mapped directory file: borrowed */
        out->size = (size_t)e->size;
        return BSPKIT_OK;
    }
    bspkit_result r = bk_vpk_read(path, e, limit, &out->owned, &out->size, err);
    out->data = out->owned;
    return r;
}

/* The bytes of `it` into `out`; for a plain map nothing is read (opened from the file). */
static bspkit_result load_member(const bk_scan_item *it, uint64_t limit, map_bytes *out, bspkit_error *err);

static bspkit_result load_item(const bk_scan_item *it, uint64_t limit, map_bytes *out, bspkit_error *err)
{
    bspkit_result r = load_member(it, limit, out, err);
    bk_scan_kind packed = it->member ? bk_scan_member_kind(it->member) : BK_SCAN_BSP;
    if (r != BSPKIT_OK || (packed != BK_SCAN_BZ2 && packed != BK_SCAN_GZ))
        return r;
    /* A FastDL stream kept inside an archive: the member's bytes are the stream. */
    uint8_t *map = NULL;
    size_t map_size = 0;
    r = packed == BK_SCAN_BZ2 ? bk_bz2_decompress(out->data, out->size, limit, &map, &map_size, err)
                              : bk_gz_decompress(out->data, out->size, limit, &map, &map_size, err);
    map_bytes_release(out);
    out->owned = map;
    out->data = map;
    out->size = map_size;
    return r;
}

static bspkit_result load_member(const bk_scan_item *it, uint64_t limit, map_bytes *out, bspkit_error *err)
{
    memset(out, 0, sizeof *out);
    if (it->kind == BK_SCAN_BSP)
        return BSPKIT_OK;
    if (it->kind == BK_SCAN_ZIP)
        return read_zip_member(it->path, it->index, limit, out, err);
    const uint8_t *file;
    size_t size;
    bspkit_result r = bk_ops_map_file(it->path, &file, &size, err);
    if (r != BSPKIT_OK)
        return r;
    if (it->kind == BK_SCAN_BZ2 || it->kind == BK_SCAN_GZ) {
        r = it->kind == BK_SCAN_BZ2 ? bk_bz2_decompress(file, size, limit, &out->owned, &out->size, err)
                                    : bk_gz_decompress(file, size, limit, &out->owned, &out->size, err);
        out->data = out->owned;
        bk_ops_unmap_file(file, size);
        return r;
    }
    /* GMA and VPK: list again (cheap) and take entry `index`. */
    out->mapping = file;
    out->mapping_size = size;
    bk_arc_list list;
    r = it->kind == BK_SCAN_GMA ? bk_gma_list(file, size, &list, err) : bk_vpk_list(file, size, &list, err);
    if (r != BSPKIT_OK)
        return r;
    if (it->index >= list.count) {
        r = bk_fail(err, BSPKIT_ERR_NOT_FOUND, -1, -1, -1, "archive changed while it was scanned");
    } else if (it->kind == BK_SCAN_GMA) {
        const bk_arc_entry *e = &list.entries[it->index];
        if (e->size > limit)
            r = bk_fail(err, BSPKIT_ERR_LIMIT, -1, (int64_t)e->offset, -1,
                        "gma: '%s' of %" PRIu64 " bytes is above the limit", e->name, e->size);
        out->data = file + e->offset; /* borrowed from the mapping */
        out->size = (size_t)e->size;
    } else {
        r = read_vpk_member(it->path, file, &list.entries[it->index], limit, out, err);
    }
    bk_arc_list_free(&list);
    return r;
}

/* ---- one record ---------------------------------------------------------- */
typedef struct slot {
    bool done;
    bool from_index;
    bk_index_record r; /* what the record carries, the same whether scanned or from the index */
} slot;

static bool jset(json_t *obj, const char *key, json_t *value)
{
    return value != NULL && json_object_set_new(obj, key, value) == 0;
}

/* A JSON string for bytes that may not be UTF-8 (map text often is Latin-1): bad bytes become '?'. */
static json_t *jstr(const char *s)
{
    json_t *j = json_string(s);
    if (j)
        return j;
    char *copy = strdup(s);
    if (!copy)
        return NULL;
    for (unsigned char *p = (unsigned char *)copy; *p; p++)
        if (*p >= 0x80)
            *p = '?';
    j = json_string(copy);
    free(copy);
    return j;
}

/* obj[key] += n, where a key that is not UTF-8 has its bad bytes made '?'. */
static bool set_count(json_t *obj, const char *key, size_t n)
{
    json_t *k = jstr(key);
    if (!k)
        return false;
    const char *name = json_string_value(k);
    json_t *old = json_object_get(obj, name);
    json_int_t total = (json_int_t)n + (old ? json_integer_value(old) : 0);
    bool ok = jset(obj, name, json_integer(total));
    json_decref(k);
    return ok;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* counts exactly as `bspkit info --json` gives them (one per lump key, the
 * first lump with a key winning), and every lump's length by name. */
static json_t *counts_json(bspkit_map *map, json_t *lumps)
{
    json_t *counts = json_object();
    int n = bspkit_lump_count(map);
    bool ok = counts != NULL;
    for (int i = 0; ok && i < n; i++) {
        bspkit_lump_info li;
        if (bspkit_get_lump_info(map, i, &li) != BSPKIT_OK || li.length == 0)
            continue;
        char fallback[16];
        snprintf(fallback, sizeof fallback, "LUMP_%d", i);
        ok = set_count(lumps, li.name ? li.name : fallback, li.length);
    }
    bspkit_record_count rc[BSPKIT_MAX_LUMPS];
    size_t nrc = bspkit_map_record_counts(map, rc, BSPKIT_MAX_LUMPS);
    for (size_t k = 0; ok && k < nrc; k++)
        ok = jset(counts, rc[k].key, json_integer((json_int_t)rc[k].count));
    if (!ok) {
        json_decref(counts);
        return NULL;
    }
    return counts;
}

static json_t *classes_json(const bspkit_entities *ents)
{
    json_t *classes = json_object();
    const char **names = ents->count ? malloc(ents->count * sizeof *names) : NULL;
    if (!classes || (ents->count && !names)) {
        json_decref(classes);
        free(names);
        return NULL;
    }
    size_t n = 0;
    for (size_t i = 0; i < ents->count; i++) {
        const char *c = bspkit_entity_value(ents, i, "classname");
        if (c)
            names[n++] = c;
    }
    qsort(names, n, sizeof *names, cmp_str);
    bool ok = true;
    for (size_t i = 0; ok && i < n;) {
        size_t j = i;
        while (j < n && strcmp(names[j], names[i]) == 0)
            j++;
        ok = set_count(classes, names[i], j - i);
        i = j;
    }
    free(names);
    if (!ok) {
        json_decref(classes);
        return NULL;
    }
    return classes;
}

/* The first summary failure is the record's error. */
static void note_error(char **error, const bspkit_error *err)
{
    if (!*error)
        *error = strdup(err->message[0] ? err->message : bspkit_strerror(err->code));
}

/* Everything about one open map, into `root`. */
static bool describe_map(bspkit_map *map, json_t *root, slot *s)
{
    bspkit_error err;
    const bspkit_format *f = bspkit_map_format(map);
    const char *game = bspkit_map_game(map);
    bool source = f->family == BSPKIT_FAMILY_SOURCE;
    json_t *lumps = json_object();
    json_t *counts = lumps ? counts_json(map, lumps) : NULL;
    bool ok = counts != NULL;

    size_t textures = 0;
    bool textures_ok = bspkit_map_texture_count(map, &textures, NULL, &err) == BSPKIT_OK;
    if (!textures_ok)
        note_error(&s->r.error, &err);
    ok = ok && jset(counts, "textures", textures_ok ? json_integer((json_int_t)textures) : json_null());

    const bspkit_entities *ents = NULL;
    bool ents_ok = bspkit_get_entities(map, &ents, &err) == BSPKIT_OK;
    if (!ents_ok)
        note_error(&s->r.error, &err);

    json_t *crc = json_null();
    if (source) {
        uint32_t value;
        char hex[9];
        if (bspkit_map_crc(map, &value, &err) == BSPKIT_OK) {
            snprintf(hex, sizeof hex, "%08" PRIx32, value);
            crc = json_string(hex);
        } else {
            note_error(&s->r.error, &err);
        }
    }

    bspkit_report report;
    if (bspkit_validate(map, &report, &err) == BSPKIT_OK) {
        s->r.errors = report.errors;
        s->r.warnings = report.warnings;
        bspkit_report_free(&report);
    } else {
        note_error(&s->r.error, &err);
    }

    json_t *texnames = json_array();
    bspkit_textures *tex = NULL;
    if (texnames && bspkit_textures_resolve(map, NULL, &tex, &err) == BSPKIT_OK) {
        for (size_t i = 0; ok && i < bspkit_textures_count(tex); i++) {
            const bspkit_texture *t = bspkit_textures_get(tex, i);
            ok = json_array_append_new(texnames, jstr(t && t->name ? t->name : "")) == 0;
        }
        bspkit_textures_free(tex);
    } else if (texnames) {
        note_error(&s->r.error, &err);
        json_decref(texnames);
        texnames = json_null();
    }

    json_t *pakfile = json_null(), *sprp = json_null();
    if (source) {
        const uint8_t *zip;
        size_t zip_size;
        bspkit_pak *pak = NULL;
        if (bspkit_get_pakfile(map, &zip, &zip_size, &err) != BSPKIT_OK)
            note_error(&s->r.error, &err);
        else if (zip_size == 0)
            pakfile = json_integer(0);
        else if (bspkit_pak_open(zip, zip_size, NULL, &pak, &err) == BSPKIT_OK)
            pakfile = json_integer((json_int_t)bspkit_pak_count(pak));
        else
            note_error(&s->r.error, &err);
        bspkit_pak_close(pak);

        const bspkit_game_lump *gl;
        size_t ngl;
        if (bspkit_get_game_lumps(map, &gl, &ngl, &err) == BSPKIT_OK) {
            for (size_t i = 0; i < ngl; i++)
                if (gl[i].id == SPRP_ID) {
                    json_decref(sprp);
                    sprp = json_integer(gl[i].version);
                    break;
                }
        } else {
            note_error(&s->r.error, &err);
        }
    }

    s->r.format = strdup(bspkit_family_name(f->family));
    s->r.version = f->version;
    ok = ok && texnames && s->r.format && jset(root, "format", json_string(s->r.format)) && jset(root, "name", jstr(f->name)) &&
         jset(root, "version", json_integer(f->version)) && jset(root, "game", game ? jstr(game) : json_null()) &&
         jset(root, "size", json_integer((json_int_t)s->r.size)) && jset(root, "counts", json_incref(counts)) &&
         jset(root, "entities", ents_ok ? json_integer((json_int_t)ents->count) : json_null()) &&
         jset(root, "crc", json_incref(crc)) && jset(root, "errors", json_integer((json_int_t)s->r.errors)) &&
         jset(root, "warnings", json_integer((json_int_t)s->r.warnings)) &&
         jset(root, "error", s->r.error ? jstr(s->r.error) : json_null()) && jset(root, "lumps", json_incref(lumps)) &&
         jset(root, "classes", ents_ok ? classes_json(ents) : json_null()) &&
         jset(root, "textures", json_incref(texnames)) && jset(root, "pakfile", json_incref(pakfile)) &&
         jset(root, "sprp", json_incref(sprp));
    json_decref(lumps);
    json_decref(counts);
    json_decref(crc);
    json_decref(texnames);
    json_decref(pakfile);
    json_decref(sprp);
    return ok;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Fill slot `s` for item `it`. Only an allocation failure leaves s->r.json NULL. */
static void scan_item(const bk_scan_item *it, const bspkit_options *open_opts, uint64_t limit, slot *s)
{
    double start = now_seconds();
    bspkit_error err;
    json_t *root = json_object();
    bool ok = root && jset(root, "path", jstr(it->path)) &&
              jset(root, "member", it->member ? jstr(it->member) : json_null());
    bspkit_map *map = NULL;
    map_bytes bytes;
    memset(&bytes, 0, sizeof bytes);
    bspkit_result r = BSPKIT_OK;
    if (it->error) {
        s->r.error = strdup(it->error);
        r = BSPKIT_ERR_IO;
    } else {
        r = load_item(it, limit, &bytes, &err);
        if (r == BSPKIT_OK)
            r = it->kind == BK_SCAN_BSP ? bspkit_open_file(it->path, open_opts, &map, &err)
                                        : bspkit_open_memory(bytes.data, bytes.size, open_opts, &map, &err);
        if (r != BSPKIT_OK)
            note_error(&s->r.error, &err);
    }
    if (r == BSPKIT_OK) {
        bspkit_map_bytes(map, &bytes.size);
        s->r.size = bytes.size;
        ok = ok && describe_map(map, root, s);
    } else {
        ok = ok && jset(root, "format", json_null()) && jset(root, "name", json_null()) &&
             jset(root, "version", json_null()) && jset(root, "game", json_null()) &&
             jset(root, "size", bytes.size ? json_integer((json_int_t)bytes.size) : json_null()) &&
             jset(root, "counts", json_null()) && jset(root, "entities", json_null()) && jset(root, "crc", json_null()) &&
             jset(root, "errors", json_null()) && jset(root, "warnings", json_null()) &&
             jset(root, "error", s->r.error ? jstr(s->r.error) : json_string("out of memory")) &&
             jset(root, "lumps", json_null()) && jset(root, "classes", json_null()) &&
             jset(root, "textures", json_null()) && jset(root, "pakfile", json_null()) && jset(root, "sprp", json_null());
    }
    bspkit_close(map);
    map_bytes_release(&bytes);
    s->r.seconds = now_seconds() - start;
    ok = ok && jset(root, "ms", json_real((double)(int64_t)(s->r.seconds * 1e6) / 1e3));
    s->r.json = ok ? json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(root);
    if (!s->r.error && !ok)
        s->r.error = strdup("out of memory");
}

/* ---- the pool -------------------------------------------------------------- */
typedef struct pool {
    pthread_mutex_t lock;
    const bk_scan_items *items;
    slot *slots;
    size_t emitted;  /* records handed out */
    const bspkit_scan_options *opts;
    const bspkit_options *open_opts;
    uint64_t limit;
    bool stopped;
    bool nomem;
    bspkit_scan_totals totals;
    bk_index *index;       /* NULL without index_path */
    int64_t *stamps;       /* index: each item's file size and time (size -1: not stamped) */
    bspkit_result index_result;
    bspkit_error index_err;
} pool;

/* Keep a freshly scanned record in the index. Called with the lock held. */
static void index_store(pool *p, size_t i, const slot *s)
{
    if (!p->index || s->from_index || !s->r.json || p->stamps[2 * i] < 0 || p->index_result != BSPKIT_OK)
        return;
    const bk_scan_item *it = &p->items->items[i];
    p->index_result = bk_index_put(p->index, it->path, it->member, p->stamps[2 * i], p->stamps[2 * i + 1], &s->r,
                                   &p->index_err);
}

/* Fill the slots the index still holds; note every item as seen. */
static bspkit_result index_load(pool *p, bspkit_error *err)
{
    const bk_scan_items *items = p->items;
    p->stamps = malloc((items->count ? items->count : 1) * 2 * sizeof *p->stamps);
    if (!p->stamps)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "scan: out of memory");
    for (size_t i = 0; i < items->count; i++) {
        const bk_scan_item *it = &items->items[i];
        int64_t *st = &p->stamps[2 * i];
        if (i > 0 && strcmp(items->items[i - 1].path, it->path) == 0) {
            st[0] = st[-2]; /* members of one archive: stat it once */
            st[1] = st[-1];
        } else if (it->error || !bk_index_stamp(it->path, &st[0], &st[1])) {
            st[0] = -1;
        }
        bspkit_result r = bk_index_seen(p->index, it->path, it->member, err);
        if (r != BSPKIT_OK)
            return r;
        slot *s = &p->slots[i];
        if (it->error || st[0] < 0 || !bk_index_get(p->index, it->path, it->member, st[0], st[1], &s->r))
            continue;
        s->done = true;
        s->from_index = true;
    }
    return BSPKIT_OK;
}

/* Hand out every finished record that is next in order. Called with the lock held. */
static void emit_ready(pool *p)
{
    while (p->emitted < p->items->count && p->slots[p->emitted].done) {
        slot *s = &p->slots[p->emitted];
        const bk_scan_item *it = &p->items->items[p->emitted];
        if (!s->r.json)
            p->nomem = true;
        index_store(p, p->emitted, s);
        if (!p->stopped && s->r.json && p->opts->on_record) {
            bspkit_scan_record rec = {
                .path = it->path, .member = it->member, .format = s->r.format, .version = s->r.version,
                .size = s->r.size, .error = s->r.error, .errors = s->r.errors, .warnings = s->r.warnings,
                .seconds = s->r.seconds, .json = s->r.json};
            if (p->opts->on_record(p->opts->user, &rec) != 0)
                p->stopped = true;
        }
        p->totals.maps++;
        p->totals.unreadable += s->r.error != NULL;
        p->totals.invalid += s->r.errors > 0;
        p->totals.errors += s->r.errors;
        p->totals.warnings += s->r.warnings;
        p->totals.bytes += s->r.size;
        p->totals.reused += s->from_index;
        bk_index_record_free(&s->r);
        p->emitted++;
        if (p->opts->on_progress)
            p->opts->on_progress(p->opts->user, p->emitted, p->items->count);
    }
}

/* Item i on one of bk_parallel_for's threads: scanned outside the lock,
 * handed out in order under it. Nothing more is read once a callback
 * stopped the scan. */
static void scan_one(void *ctx, size_t i)
{
    pool *p = ctx;
    pthread_mutex_lock(&p->lock);
    bool skip = p->stopped || p->slots[i].done; /* done: taken from the index */
    pthread_mutex_unlock(&p->lock);
    if (skip)
        return;
    slot s;
    memset(&s, 0, sizeof s);
    scan_item(&p->items->items[i], p->open_opts, p->limit, &s);
    pthread_mutex_lock(&p->lock);
    s.done = true;
    p->slots[i] = s;
    emit_ready(p);
    pthread_mutex_unlock(&p->lock);
}

bspkit_result bspkit_scan(const char *const *paths, size_t count, const bspkit_scan_options *opts,
                          bspkit_scan_totals *totals, bspkit_error *err)
{
    bk_error_clear(err);
    static const bspkit_scan_options defaults;
    if (!opts)
        opts = &defaults;
    if (totals)
        memset(totals, 0, sizeof *totals);
    if (count && !paths)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "scan: NULL paths");

    bk_scan_items items;
    bspkit_result r = bk_scan_find(paths, count, &items, err);
    if (r != BSPKIT_OK)
        return r;

    pool p;
    memset(&p, 0, sizeof p);
    p.items = &items;
    p.opts = opts;
    p.open_opts = opts->open;
    p.limit = opts->max_member_size ? opts->max_member_size
              : opts->open && opts->open->max_file_size ? opts->open->max_file_size
                                                        : DEFAULT_MEMBER_LIMIT;
    p.slots = calloc(items.count ? items.count : 1, sizeof *p.slots);
    if (!p.slots) {
        bk_scan_items_free(&items);
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "scan: out of memory");
    }
    pthread_mutex_init(&p.lock, NULL);
    json_object_seed(0); /* seeds jansson's hashing once, before threads create objects */
    if (opts->index_path) {
        r = bk_index_open(opts->index_path, &p.index, err);
        if (r == BSPKIT_OK)
            r = index_load(&p, err);
        if (r != BSPKIT_OK) {
            for (size_t i = 0; i < items.count; i++)
                bk_index_record_free(&p.slots[i].r);
            bk_index_close(p.index);
            free(p.stamps);
            free(p.slots);
            pthread_mutex_destroy(&p.lock);
            bk_scan_items_free(&items);
            return r;
        }
        emit_ready(&p); /* records from the index at the front go out at once */
    }

    bk_parallel_for(items.count, opts->threads, scan_one, &p); /* the calling thread is one of the workers */
    pthread_mutex_destroy(&p.lock);

    if (p.index) {
        for (size_t i = 0; p.index_result == BSPKIT_OK && !p.stopped && i < count; i++)
            p.index_result = bk_index_prune(p.index, paths[i], &p.index_err);
        /* A scan stopped early keeps the records it stored, but drops nothing. */
        if (p.index_result == BSPKIT_OK)
            p.index_result = bk_index_commit(p.index, &p.index_err);
        bk_index_close(p.index);
        free(p.stamps);
    }
    if (totals)
        *totals = p.totals;
    if (p.index_result != BSPKIT_OK) {
        r = p.index_result;
        if (err)
            *err = p.index_err;
    } else if (p.stopped)
        r = bk_fail(err, BSPKIT_ERR_IO, -1, -1, -1, "scan: stopped after %zu of %zu maps", p.totals.maps, items.count);
    else if (p.nomem)
        r = bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "scan: out of memory");
    for (size_t i = 0; i < items.count; i++) /* records never handed out after a stop */
        bk_index_record_free(&p.slots[i].r);
    free(p.slots);
    bk_scan_items_free(&items);
    return r;
}
