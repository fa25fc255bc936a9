/* catalog_results — finished runs of `corun reproduce`, kept so that another experiment that
 * needs the same run reads it instead of simulating it again.
 *
 * A result is a caller's fixed-size struct stored byte for byte under a key text that names
 * everything the result depends on (the caller puts the build, the data and the run's whole
 * scenario in it), so a key never matches a run that would come out differently. The table is
 * made when first written rather than by a schema migration: it is a cache, the catalog keeps
 * its schema version, and an older corun sharing the catalog ignores the table. */
#include <sqlite3.h>
#include <string.h>

#include "catalog_internal.h"
#include "corun/catalog.h"

/* Whether the table has been made (by a first catalog_put_result). */
static bool has_table(struct catalog *cat)
{
    return sqlite3_table_column_metadata(cat->db, NULL, "reproduce_results", "key", NULL, NULL,
                                         NULL, NULL, NULL) == SQLITE_OK;
}

int catalog_get_result(struct catalog *cat, const char *key, void *out, size_t size, bool *found,
                       char *err, size_t errlen)
{
    const char *what = "looking up a finished run";
    *found = false;
    if (!has_table(cat))
        return 0;
    sqlite3_stmt *st;
    if (catalog_prepare(cat, "SELECT result FROM reproduce_results WHERE key = ?", &st, what, err,
                        errlen) != 0)
        return -1;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    /* One of another size was stored by a build whose result struct differs: not this run. */
    if (rc == SQLITE_ROW && (size_t)sqlite3_column_bytes(st, 0) == size) {
        memcpy(out, sqlite3_column_blob(st, 0), size);
        *found = true;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return catalog_fail(cat, rc, what, err, errlen);
    return 0;
}

int catalog_make_results_table(struct catalog *cat, const char *what, char *err, size_t errlen)
{
    int rc = sqlite3_exec(cat->db,
                          "CREATE TABLE IF NOT EXISTS main.reproduce_results (\n"
                          "    key TEXT PRIMARY KEY, -- the build, the data and the scenario\n"
                          "    result BLOB NOT NULL, -- the caller's result struct, as is\n"
                          "    created_utc TEXT NOT NULL\n"
                          ")",
                          NULL, NULL, NULL);
    return rc == SQLITE_OK ? 0 : catalog_fail(cat, rc, what, err, errlen);
}

int catalog_put_result(struct catalog *cat, const char *key, const void *result, size_t size,
                       char *err, size_t errlen)
{
    const char *what = "storing a finished run";
    char now[32];
    catalog_now_utc(now);
    if (catalog_begin_write(cat, what, err, errlen) != 0)
        return -1;
    sqlite3_stmt *st;
    if (catalog_make_results_table(cat, what, err, errlen) != 0)
        goto fail;
    if (catalog_prepare(cat,
                        "INSERT OR REPLACE INTO reproduce_results (key, result, created_utc) "
                        "VALUES (?, ?, ?)",
                        &st, what, err, errlen) != 0)
        goto fail;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, result, (int)size, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, now, -1, SQLITE_STATIC);
    if (catalog_step_done(cat, st, what, err, errlen) != 0)
        goto fail;
    return catalog_commit(cat, what, err, errlen);
fail:
    catalog_rollback(cat);
    return -1;
}
