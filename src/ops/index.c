/* The scan index in SQLite. */
#include "ops/index.h"

#include "core/map.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct bk_index {
    sqlite3 *db;
    sqlite3_stmt *get, *put, *seen;
};

static const char SCHEMA[] =
    "PRAGMA journal_mode=WAL;"
    "CREATE TABLE IF NOT EXISTS maps ("
    " path TEXT NOT NULL, member TEXT NOT NULL, file_size INTEGER NOT NULL, file_mtime_ns INTEGER NOT NULL,"
    " format TEXT, version INTEGER, size INTEGER, error TEXT, errors INTEGER, warnings INTEGER,"
    " seconds REAL, record TEXT NOT NULL, PRIMARY KEY (path, member));"
    "CREATE TEMP TABLE seen (path TEXT NOT NULL, member TEXT NOT NULL, PRIMARY KEY (path, member));"
    "BEGIN;";

static bspkit_result db_fail(bspkit_error *err, sqlite3 *db, const char *what)
{
    return bk_fail(err, BSPKIT_ERR_IO, -1, -1, -1, "scan index: %s: %s", what, db ? sqlite3_errmsg(db) : "no memory");
}

bspkit_result bk_index_open(const char *path, bk_index **out, bspkit_error *err)
{
    *out = NULL;
    bk_index *ix = calloc(1, sizeof *ix);
    if (!ix)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "scan index: out of memory");
    bspkit_result r = BSPKIT_OK;
    if (sqlite3_open_v2(path, &ix->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK)
        r = db_fail(err, ix->db, path);
    else if (sqlite3_exec(ix->db, SCHEMA, NULL, NULL, NULL) != SQLITE_OK)
        r = db_fail(err, ix->db, path);
    else if (sqlite3_prepare_v2(ix->db,
                                "SELECT format, version, size, error, errors, warnings, seconds, record FROM maps"
                                " WHERE path = ?1 AND member = ?2 AND file_size = ?3 AND file_mtime_ns = ?4",
                                -1, &ix->get, NULL) != SQLITE_OK ||
             sqlite3_prepare_v2(ix->db,
                                "INSERT OR REPLACE INTO maps VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                                -1, &ix->put, NULL) != SQLITE_OK ||
             sqlite3_prepare_v2(ix->db, "INSERT OR IGNORE INTO seen VALUES (?1, ?2)", -1, &ix->seen, NULL) !=
                 SQLITE_OK)
        r = db_fail(err, ix->db, "preparing statements");
    if (r != BSPKIT_OK) {
        bk_index_close(ix);
        return r;
    }
    *out = ix;
    return BSPKIT_OK;
}

void bk_index_close(bk_index *ix)
{
    if (!ix)
        return;
    sqlite3_finalize(ix->get);
    sqlite3_finalize(ix->put);
    sqlite3_finalize(ix->seen);
    sqlite3_close(ix->db); /* an open transaction that was not committed is rolled back */
    free(ix);
}

bool bk_index_stamp(const char *path, int64_t *size, int64_t *mtime_ns)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return false;
    *size = (int64_t)st.st_size;
    *mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    return true;
}

/* ?1-?4 of the get and put statements: the record's key and its file's stamp. */
static void bind_key(sqlite3_stmt *s, const char *path, const char *member, int64_t size, int64_t mtime_ns)
{
    sqlite3_reset(s);
    sqlite3_bind_text(s, 1, path, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, member ? member : "", -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 3, size);
    sqlite3_bind_int64(s, 4, mtime_ns);
}

static char *column_text(sqlite3_stmt *s, int col)
{
    const unsigned char *t = sqlite3_column_text(s, col);
    return t ? strdup((const char *)t) : NULL;
}

bool bk_index_get(bk_index *ix, const char *path, const char *member, int64_t size, int64_t mtime_ns,
                  bk_index_record *out)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *s = ix->get;
    bind_key(s, path, member, size, mtime_ns);
    bool found = sqlite3_step(s) == SQLITE_ROW;
    if (found) {
        out->format = column_text(s, 0);
        out->version = (int32_t)sqlite3_column_int64(s, 1);
        out->size = (uint64_t)sqlite3_column_int64(s, 2);
        out->error = column_text(s, 3);
        out->errors = (size_t)sqlite3_column_int64(s, 4);
        out->warnings = (size_t)sqlite3_column_int64(s, 5);
        out->seconds = sqlite3_column_double(s, 6);
        out->json = column_text(s, 7);
        /* A row that does not read back whole is scanned again. */
        if (!out->json || (sqlite3_column_type(s, 0) != SQLITE_NULL && !out->format) ||
            (sqlite3_column_type(s, 3) != SQLITE_NULL && !out->error)) {
            bk_index_record_free(out);
            found = false;
        }
    }
    sqlite3_reset(s);
    return found;
}

void bk_index_record_free(bk_index_record *r)
{
    free(r->format);
    free(r->error);
    free(r->json);
    memset(r, 0, sizeof *r);
}

bspkit_result bk_index_put(bk_index *ix, const char *path, const char *member, int64_t size, int64_t mtime_ns,
                           const bk_index_record *r, bspkit_error *err)
{
    sqlite3_stmt *s = ix->put;
    bind_key(s, path, member, size, mtime_ns);
    if (r->format)
        sqlite3_bind_text(s, 5, r->format, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(s, 5);
    sqlite3_bind_int64(s, 6, r->version);
    sqlite3_bind_int64(s, 7, (int64_t)r->size);
    if (r->error)
        sqlite3_bind_text(s, 8, r->error, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(s, 8);
    sqlite3_bind_int64(s, 9, (int64_t)r->errors);
    sqlite3_bind_int64(s, 10, (int64_t)r->warnings);
    sqlite3_bind_double(s, 11, r->seconds);
    sqlite3_bind_text(s, 12, r->json, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? BSPKIT_OK : db_fail(err, ix->db, "storing a record");
}

bspkit_result bk_index_seen(bk_index *ix, const char *path, const char *member, bspkit_error *err)
{
    sqlite3_stmt *s = ix->seen;
    sqlite3_reset(s);
    sqlite3_bind_text(s, 1, path, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, member ? member : "", -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? BSPKIT_OK : db_fail(err, ix->db, "listing the maps found");
}

bspkit_result bk_index_prune(bk_index *ix, const char *root, bspkit_error *err)
{
    /* Below `root`: the path itself, or ROOT/... (ROOT already ending in '/' or not). */
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(ix->db,
                           "DELETE FROM maps WHERE (path = ?1 OR substr(path, 1, length(?2)) = ?2)"
                           " AND NOT EXISTS (SELECT 1 FROM seen WHERE seen.path = maps.path"
                           " AND seen.member = maps.member)",
                           -1, &s, NULL) != SQLITE_OK)
        return db_fail(err, ix->db, "pruning");
    size_t n = strlen(root);
    char *prefix = malloc(n + 2);
    if (!prefix) {
        sqlite3_finalize(s);
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "scan index: out of memory");
    }
    memcpy(prefix, root, n);
    if (n == 0 || root[n - 1] != '/')
        prefix[n++] = '/';
    prefix[n] = '\0';
    sqlite3_bind_text(s, 1, root, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, prefix, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    free(prefix);
    return rc == SQLITE_DONE ? BSPKIT_OK : db_fail(err, ix->db, "pruning");
}

bspkit_result bk_index_commit(bk_index *ix, bspkit_error *err)
{
    return sqlite3_exec(ix->db, "COMMIT;", NULL, NULL, NULL) == SQLITE_OK ? BSPKIT_OK
                                                                          : db_fail(err, ix->db, "commit");
}
