/* catalog_query — the user's own SQL (`corun runs query "SELECT ..."`): one statement that
 * only reads, run on a connection of its own opened read-only. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "catalog_internal.h"
#include "corun/util.h"

/* Whether sql holds nothing after the first statement but blanks and comments. */
static int only_one_statement(sqlite3 *db, const char *tail)
{
    sqlite3_stmt *next = NULL;
    if (sqlite3_prepare_v2(db, tail, -1, &next, NULL) != SQLITE_OK)
        return 0;
    int one = next == NULL;
    sqlite3_finalize(next);
    return one;
}

/* What every refusal says was expected. */
#define EXPECTED_QUERY "expected a query that only reads, such as SELECT ..."
#define WHY_MAX        256 /* what the authorizer refused, for the message */

/* Pragmas whose argument names what they read (a table, an index, a count of findings), not a
 * value they set. */
static const char *const reading_pragmas[] = {
    "table_info", "table_xinfo",      "index_info",        "index_xinfo",     "index_list",
    "table_list", "foreign_key_list", "foreign_key_check", "integrity_check", "quick_check",
};
/* Pragmas that act rather than read, even without an argument. */
static const char *const acting_pragmas[] = {"optimize", "shrink_memory", "wal_checkpoint",
                                             "incremental_vacuum"};

static bool named_in(const char *name, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(name, names[i]) == 0)
            return true;
    return false;
}

/* What the authorizer saw of the statement being prepared. */
struct seen {
    char why[WHY_MAX]; /* what it refused, for the message; empty when nothing */
    bool pragma_read;  /* a PRAGMA without a value that reads (PRAGMA journal_mode) */
    bool other;        /* any other action: the statement is more than that PRAGMA */
};

/* SQLite's authorizer, asked while a statement is prepared: it refuses what
 * sqlite3_stmt_readonly() lets through and is still no query, saying what into the struct
 * seen's why. sqlite3_stmt_readonly() is true for every statement that leaves the file as it
 * is, so also for BEGIN, COMMIT and SAVEPOINT (a transaction, on a connection that runs one
 * statement), ATTACH and DETACH, and a PRAGMA that sets the connection's state
 * (writable_schema = 1, query_only = 0, foreign_keys = 0, ...); a PRAGMA that reads is
 * accepted. sqlite3_stmt_readonly() is false for three pragmas even without a value:
 * wal_checkpoint and incremental_vacuum, which act (refused here), and journal_mode, which
 * only reads then (a PRAGMA without a value that does not act is marked pragma_read, and
 * catalog_query lets it through: the connection is read-only, so it cannot change the mode). */
static int authorize(void *seen, int action, const char *arg1, const char *arg2, const char *db,
                     const char *trigger)
{
    (void)db;
    (void)trigger;
    struct seen *sn = seen;
    char *w = sn->why;
    if (!arg1)
        arg1 = "";
    switch (action) {
    case SQLITE_TRANSACTION: /* arg1: BEGIN, COMMIT (or END) or ROLLBACK */
    case SQLITE_SAVEPOINT:   /* arg1: BEGIN (SAVEPOINT), RELEASE or ROLLBACK (TO) */
        snprintf(w, WHY_MAX, "a transaction statement (%s), which is no query",
                 action == SQLITE_TRANSACTION    ? arg1
                 : strcmp(arg1, "BEGIN") == 0    ? "SAVEPOINT"
                 : strcmp(arg1, "ROLLBACK") == 0 ? "ROLLBACK TO"
                                                 : arg1);
        break;
    case SQLITE_ATTACH:
    case SQLITE_DETACH:
        snprintf(w, WHY_MAX, "%s, which is no query",
                 action == SQLITE_ATTACH ? "ATTACH" : "DETACH");
        break;
    case SQLITE_PRAGMA:
        if (arg2 && !named_in(arg1, reading_pragmas, CORUN_ARRAY_LEN(reading_pragmas)))
            snprintf(w, WHY_MAX,
                     "PRAGMA %.64s with a value, which sets it (PRAGMA %.64s alone reads it)", arg1,
                     arg1);
        else if (named_in(arg1, acting_pragmas, CORUN_ARRAY_LEN(acting_pragmas)))
            snprintf(w, WHY_MAX, "PRAGMA %.64s, which acts rather than reads", arg1);
        else {
            sn->pragma_read = !arg2;
            return SQLITE_OK;
        }
        break;
    default: sn->other = true; return SQLITE_OK;
    }
    return SQLITE_DENY;
}

static int query_fail(const struct catalog *cat, sqlite3 *db, const char *sql, char *err,
                      size_t errlen)
{
    int rc = sqlite3_extended_errcode(db);
    int primary = rc & 0xff;
    /* Trouble with the file rather than with the query. */
    if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED || primary == SQLITE_NOTADB ||
        primary == SQLITE_CORRUPT || primary == SQLITE_READONLY || primary == SQLITE_IOERR)
        return catalog_describe(db, cat->path, cat->busy_ms, rc, "running a query", err, errlen);
    snprintf(err, errlen, "catalog %s: query failed: %s: %s", cat->path, sqlite3_errmsg(db), sql);
    return -1;
}

void catalog_set_query_limit(struct catalog *cat, unsigned seconds)
{
    cat->query_limit_s = seconds;
}

static double monotonic_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* SQLite's progress handler: nonzero interrupts the statement once the deadline passed. */
static int past_deadline(void *deadline)
{
    return monotonic_s() > *(const double *)deadline;
}

/* Copy the row's values as text; blobs are described rather than dumped. */
static void row_texts(sqlite3_stmt *st, size_t ncols, const char **values, char **blobs)
{
    for (size_t i = 0; i < ncols; i++) {
        int t = sqlite3_column_type(st, (int)i);
        blobs[i] = NULL;
        if (t == SQLITE_NULL) {
            values[i] = NULL;
        } else if (t == SQLITE_BLOB) {
            blobs[i] = xasprintf("<%d-byte blob>", sqlite3_column_bytes(st, (int)i));
            values[i] = blobs[i];
        } else {
            values[i] = (const char *)sqlite3_column_text(st, (int)i);
        }
    }
}

int catalog_query(struct catalog *cat, const char *sql, catalog_row_fn fn, void *ctx, char *err,
                  size_t errlen)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(cat->path, &db, SQLITE_OPEN_READONLY, NULL);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "cannot open catalog %s for reading: %s", cat->path,
                 db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close(db);
        return -1;
    }
    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, (int)cat->busy_ms);
    double deadline = monotonic_s() + cat->query_limit_s;
    if (cat->query_limit_s)
        sqlite3_progress_handler(db, 10000, past_deadline, &deadline);
    struct seen seen = {.why = ""};
    sqlite3_set_authorizer(db, authorize, &seen);
    sqlite3_stmt *st = NULL;
    const char *tail = NULL;
    int ret = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, &tail) != SQLITE_OK) {
        if (seen.why[0] && sqlite3_errcode(db) == SQLITE_AUTH)
            snprintf(err, errlen, "catalog %s: refused %s: " EXPECTED_QUERY ": %s", cat->path,
                     seen.why, sql);
        else
            query_fail(cat, db, sql, err, errlen);
        goto out;
    }
    if (!st) {
        snprintf(err, errlen, "catalog %s: the query is empty", cat->path);
        goto out;
    }
    if (!only_one_statement(db, tail)) {
        snprintf(err, errlen,
                 "catalog %s: the query holds more than one statement; run one at a time: %s",
                 cat->path, sql);
        goto out;
    }
    if (!sqlite3_stmt_readonly(st) && !(seen.pragma_read && !seen.other)) {
        snprintf(err, errlen,
                 "catalog %s: refused a query that would change the catalog: " EXPECTED_QUERY
                 ": %s",
                 cat->path, sql);
        goto out;
    }

    size_t ncols = (size_t)sqlite3_column_count(st);
    const char **names = xcalloc(ncols + 1, sizeof(*names));
    const char **values = xcalloc(ncols + 1, sizeof(*values));
    char **blobs = xcalloc(ncols + 1, sizeof(*blobs));
    for (size_t i = 0; i < ncols; i++)
        names[i] = sqlite3_column_name(st, (int)i);
    int stop = fn(ctx, ncols, names, NULL);
    while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        row_texts(st, ncols, values, blobs);
        stop = fn(ctx, ncols, names, values);
        for (size_t i = 0; i < ncols; i++)
            free(blobs[i]);
    }
    if (stop || rc == SQLITE_DONE)
        ret = 0;
    else if (rc == SQLITE_INTERRUPT) {
        ret = -2;
        snprintf(err, errlen,
                 "catalog %s: the query ran for more than %u s and was stopped (runs --timeout S "
                 "allows longer; 0: no limit): %s",
                 cat->path, cat->query_limit_s, sql);
    } else
        query_fail(cat, db, sql, err, errlen);
    free(names);
    free(values);
    free(blobs);
out:
    sqlite3_finalize(st);
    sqlite3_close(db);
    return ret;
}
