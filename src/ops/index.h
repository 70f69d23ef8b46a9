/* The scan's SQLite index: one row per map record, keyed by path and member,
 * with the size and modification time its file had when it was scanned. A
 * re-run takes a record from here when its file still has that size and
 * time, and scans the rest. */
#ifndef BSPKIT_OPS_INDEX_H
#define BSPKIT_OPS_INDEX_H

#include "bspkit/bspkit.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bk_index bk_index;

/* A stored record: everything bspkit_scan_record carries. Strings are malloc'd. */
typedef struct bk_index_record {
    char *format; /* NULL when unreadable */
    int32_t version;
    uint64_t size;
    char *error;
    size_t errors, warnings;
    double seconds;
    char *json;
} bk_index_record;

bspkit_result bk_index_open(const char *path, bk_index **out, bspkit_error *err);
void bk_index_close(bk_index *ix);
/* The file's size and modification time, or false when it cannot be stat'ed. */
bool bk_index_stamp(const char *path, int64_t *size, int64_t *mtime_ns);
/* The record of (path, member) stored with this size and time: true and *out filled, else false. */
bool bk_index_get(bk_index *ix, const char *path, const char *member, int64_t size, int64_t mtime_ns,
                  bk_index_record *out);
void bk_index_record_free(bk_index_record *r);
/* Store a record (replacing the old one). */
bspkit_result bk_index_put(bk_index *ix, const char *path, const char *member, int64_t size, int64_t mtime_ns,
                           const bk_index_record *r, bspkit_error *err);
/* Remember (path, member) as found by this scan. */
bspkit_result bk_index_seen(bk_index *ix, const char *path, const char *member, bspkit_error *err);
/* Drop the records under `root` (the path itself or below it) this scan did not find. */
bspkit_result bk_index_prune(bk_index *ix, const char *root, bspkit_error *err);
/* Write everything since open in one transaction. */
bspkit_result bk_index_commit(bk_index *ix, bspkit_error *err);

#endif
