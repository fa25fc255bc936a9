/* catalog_util — what the catalog_*.c files share: error messages that name the file and what
 * was being done, transactions, statements, and binding and reading columns. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "catalog_internal.h"
#include "corun/util.h"

int catalog_describe(sqlite3 *db, const char *path, unsigned busy_ms, int rc, const char *what,
                     char *err, size_t errlen)
{
    const char *msg = sqlite3_errmsg(db);
    if (rc == SQLITE_READONLY_DIRECTORY || rc == SQLITE_READONLY_CANTINIT) {
        snprintf(err, errlen,
                 "cannot read catalog %s: SQLite needs to create %s-shm beside it (WAL mode) but "
                 "its directory is not writable; make the directory writable or use --catalog",
                 path, path);
        return -1;
    }
    switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        snprintf(err, errlen,
                 "catalog %s is locked by another process (waited %.1f s) while %s; try again "
                 "or use --catalog",
                 path, busy_ms / 1000.0, what);
        break;
    case SQLITE_READONLY:
        snprintf(err, errlen,
                 "catalog %s is read-only (%s): %s needs write permission on the file and its "
                 "directory; fix them or use --catalog",
                 path, msg, what);
        break;
    case SQLITE_NOTADB:
        snprintf(err, errlen, "%s is not a corun catalog (not an SQLite database)", path);
        break;
    case SQLITE_CORRUPT:
        snprintf(err, errlen,
                 "catalog %s is damaged (%s) while %s; restore it from a backup or use --catalog",
                 path, msg, what);
        break;
    case SQLITE_FULL:
        snprintf(err, errlen, "catalog %s: %s failed: the disk is full", path, what);
        break;
    default: snprintf(err, errlen, "catalog %s: %s failed: %s", path, what, msg); break;
    }
    return -1;
}

int catalog_fail(const struct catalog *cat, int rc, const char *what, char *err, size_t errlen)
{
    return catalog_describe(cat->db, cat->path, cat->busy_ms, rc, what, err, errlen);
}

int catalog_quick_check(struct catalog *cat, const char *pragma, const char *path, const char *what,
                        const char *tail, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (catalog_prepare(cat, pragma, &st, what, err, errlen) != 0)
        return -1;
    int rc = sqlite3_step(st);
    const char *first = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
    bool damaged = first && strcmp(first, "ok") != 0;
    if (damaged) { /* its first finding, on one line: "On tree page 13 cell 3: ..." */
        if (strncmp(first, "*** ", 4) == 0 && strchr(first, '\n'))
            first = strchr(first, '\n') + 1;
        snprintf(err, errlen, "catalog %s is damaged (%.*s) while %s%s", path,
                 (int)strcspn(first, "\n"), first, what, tail);
    }
    int result = rc == SQLITE_ROW
                     ? (damaged ? -1 : 0)
                     : catalog_describe(cat->db, path, cat->busy_ms, rc, what, err, errlen);
    sqlite3_finalize(st);
    return result;
}

int catalog_step_done(struct catalog *cat, sqlite3_stmt *st, const char *what, char *err,
                      size_t errlen)
{
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : catalog_fail(cat, rc, what, err, errlen);
}

int catalog_writable(struct catalog *cat, const char *what, char *err, size_t errlen)
{
    if (cat->write_depth) /* it holds the write lock already */
        return 0;
    if (catalog_begin_write(cat, what, err, errlen) != 0)
        return -1;
    catalog_rollback(cat);
    return 0;
}

int catalog_begin_write(struct catalog *cat, const char *what, char *err, size_t errlen)
{
    if (cat->write_depth) { /* inside one begun before: it joins it */
        cat->write_depth++;
        return 0;
    }
    if (cat->readonly) {
        snprintf(err, errlen,
                 "catalog %s is read-only: %s needs write permission on the file and its "
                 "directory; fix them or use --catalog",
                 cat->path, what);
        return -1;
    }
    int rc = sqlite3_exec(cat->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return catalog_fail(cat, rc, what, err, errlen);
    cat->write_depth = 1;
    return 0;
}

int catalog_commit(struct catalog *cat, const char *what, char *err, size_t errlen)
{
    if (cat->write_depth > 1) { /* the outermost commits */
        cat->write_depth--;
        return 0;
    }
    cat->write_depth = 0;
    int rc = sqlite3_exec(cat->db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        catalog_fail(cat, rc, what, err, errlen);
        catalog_rollback(cat);
        return -1;
    }
    return 0;
}

void catalog_rollback(struct catalog *cat)
{
    cat->write_depth = 0;
    if (!sqlite3_get_autocommit(cat->db))
        sqlite3_exec(cat->db, "ROLLBACK", NULL, NULL, NULL);
}

int catalog_prepare(struct catalog *cat, const char *sql, sqlite3_stmt **st, const char *what,
                    char *err, size_t errlen)
{
    int rc = sqlite3_prepare_v2(cat->db, sql, -1, st, NULL);
    if (rc != SQLITE_OK) {
        *st = NULL;
        return catalog_fail(cat, rc, what, err, errlen);
    }
    return 0;
}

void catalog_now_utc(char buf[32])
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int catalog_bind_text(sqlite3_stmt *st, int i, const char *s)
{
    return s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

int catalog_bind_double(sqlite3_stmt *st, int i, double v)
{
    return isfinite(v) ? sqlite3_bind_double(st, i, v) : sqlite3_bind_null(st, i);
}

void catalog_bind_run_source(sqlite3_stmt *st, const char *run_path, const char *scenario_name,
                             const char *scenario_path, const char *gpu)
{
    catalog_bind_text(st, 1, run_path);
    catalog_bind_text(st, 2, scenario_name);
    catalog_bind_text(st, 3, scenario_path);
    catalog_bind_text(st, 4, gpu);
}

int catalog_bind_hash(sqlite3_stmt *st, int i, uint64_t h)
{
    char hex[17];
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
    return sqlite3_bind_text(st, i, hex, 16, SQLITE_TRANSIENT);
}

char *catalog_column_strdup(sqlite3_stmt *st, int i)
{
    const unsigned char *s = sqlite3_column_text(st, i);
    return s ? xstrdup((const char *)s) : NULL;
}

double catalog_column_double(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

const char *catalog_predictor_name(const char *p)
{
    return p && *p ? p : "none";
}
