/* catalog_merge — bringing another catalog's sweep results, private-mode traces and finished
 * reproduce runs into this one (the shards of a cluster job, each of which had a catalog of its
 * own). */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog_internal.h"
#include "corun/catalog.h"
#include "corun/util.h"

#define KEY_COLUMNS    "suite, mix, predictor, allocator, seed, config"
#define METRIC_COLUMNS "mean_stp, mean_antt, mean_fairness, min_fairness, mean_are, max_are"

/* One number from sql (fixed text), or -1 with a message. */
static int count_of(struct catalog *cat, const char *sql, long long *n, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (catalog_prepare(cat, sql, &st, "reading the other catalog", err, errlen) != 0)
        return -1;
    int rc = sqlite3_step(st);
    *n = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : catalog_fail(cat, rc, "reading the other catalog", err, errlen);
}

static int exec_counted(struct catalog *cat, const char *sql, long long *changed, char *err,
                        size_t errlen)
{
    int rc = sqlite3_exec(cat->db, sql, NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return catalog_fail(cat, rc, "merging the other catalog", err, errlen);
    *changed = sqlite3_changes(cat->db);
    return 0;
}

/* The first result `other` holds with values other than ours, as "suite mix predictor:allocator
 * seed S" into buf; "" when there is none. */
static int first_conflict(struct catalog *cat, char *buf, size_t len, long long *n, char *err,
                          size_t errlen)
{
    const char *sql =
        "SELECT count(*), o.suite, o.mix, o.predictor, o.allocator, o.seed FROM "
        "other.sweep_results o JOIN main.sweep_results m USING (" KEY_COLUMNS ") WHERE "
        "o.mean_stp IS NOT m.mean_stp OR o.mean_antt IS NOT m.mean_antt OR o.mean_fairness IS "
        "NOT m.mean_fairness OR o.min_fairness IS NOT m.min_fairness OR o.mean_are IS NOT "
        "m.mean_are OR o.max_are IS NOT m.max_are";
    sqlite3_stmt *st;
    if (catalog_prepare(cat, sql, &st, "comparing the other catalog", err, errlen) != 0)
        return -1;
    int rc = sqlite3_step(st);
    buf[0] = '\0';
    *n = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    if (rc == SQLITE_ROW && *n > 0)
        snprintf(buf, len, "%s %s %s:%s seed %lld", sqlite3_column_text(st, 1),
                 sqlite3_column_text(st, 2), sqlite3_column_text(st, 3), sqlite3_column_text(st, 4),
                 (long long)sqlite3_column_int64(st, 5));
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : catalog_fail(cat, rc, "comparing the other catalog", err, errlen);
}

/* SQLite's quick_check of the attached file: 0, or -1 with a message naming path (a damaged
 * page read while merging was blamed on this catalog, the one merged into). */
static int check_other_pages(struct catalog *cat, const char *path, char *err, size_t errlen)
{
    return catalog_quick_check(cat, "PRAGMA other.quick_check", path, "reading it to merge",
                               "; nothing merged", err, errlen);
}

/* Check that the attached file is a corun catalog of our schema, undamaged. */
static int check_other(struct catalog *cat, const char *path, char *err, size_t errlen)
{
    long long app = 0, version = 0;
    if (count_of(cat, "PRAGMA other.application_id", &app, err, errlen) != 0 ||
        count_of(cat, "PRAGMA other.user_version", &version, err, errlen) != 0)
        return catalog_describe(cat->db, path, cat->busy_ms, sqlite3_errcode(cat->db),
                                "reading it to merge", err, errlen);
    if (app != CATALOG_APPLICATION_ID || version != CATALOG_SCHEMA_VERSION) {
        snprintf(err, errlen,
                 "%s is not a corun catalog of schema version %d (application id %#llx, "
                 "version %lld); nothing merged",
                 path, CATALOG_SCHEMA_VERSION, (unsigned long long)app, version);
        return -1;
    }
    return check_other_pages(cat, path, err, errlen);
}

/* Inside one write transaction: refuse conflicting results, then copy. */
static int merge_rows(struct catalog *cat, const char *path, struct catalog_merged *out, char *err,
                      size_t errlen)
{
    char conflict[512];
    long long nconflicts = 0, total = 0, added = 0, traces = 0;
    if (first_conflict(cat, conflict, sizeof conflict, &nconflicts, err, errlen) != 0)
        return -1;
    if (nconflicts > 0) {
        snprintf(err, errlen,
                 "%s holds %lld sweep result(s) that differ from those catalog %s has for the "
                 "same key (the first: %s): made by another simulator or data? nothing merged",
                 path, nconflicts, cat->path, conflict);
        return -1;
    }
    if (count_of(cat, "SELECT count(*) FROM other.sweep_results", &total, err, errlen) != 0 ||
        exec_counted(cat,
                     "INSERT INTO main.sweep_results (" KEY_COLUMNS ", " METRIC_COLUMNS
                     ", created_utc) SELECT " KEY_COLUMNS ", " METRIC_COLUMNS
                     ", created_utc FROM other.sweep_results WHERE true ON CONFLICT (" KEY_COLUMNS
                     ") DO NOTHING",
                     &added, err, errlen) != 0 ||
        exec_counted(cat,
                     "INSERT INTO main.solo_traces SELECT * FROM other.solo_traces WHERE true ON "
                     "CONFLICT (config_hash, profile_hash, sms, seed) DO UPDATE SET "
                     "sample_count = excluded.sample_count, samples = excluded.samples, "
                     "sample_cycles = excluded.sample_cycles, created_utc = excluded.created_utc "
                     "WHERE excluded.sample_count > solo_traces.sample_count",
                     &traces, err, errlen) != 0)
        return -1;
    /* Finished reproduce runs, when the other catalog has made their table: a key names the
     * build, the data and the scenario, so one held by both holds the same run. */
    long long has_runs = 0, runs = 0;
    if (count_of(cat,
                 "SELECT count(*) FROM other.sqlite_master WHERE type = 'table' AND "
                 "name = 'reproduce_results'",
                 &has_runs, err, errlen) != 0)
        return -1;
    if (has_runs &&
        (catalog_make_results_table(cat, "merging the other catalog", err, errlen) != 0 ||
         exec_counted(cat,
                      "INSERT INTO main.reproduce_results SELECT * FROM other.reproduce_results "
                      "WHERE true ON CONFLICT (key) DO NOTHING",
                      &runs, err, errlen) != 0))
        return -1;
    out->runs = (unsigned long)runs;
    out->added = (unsigned long)added;
    out->present = (unsigned long)(total - added);
    out->traces = (unsigned long)traces;
    return 0;
}

int catalog_merge(struct catalog *cat, const char *path, struct catalog_merged *out, char *err,
                  size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->source_bad = true; /* until the other file is attached and checked */
    /* Said as what the file is (missing, a directory, empty): SQLite would open a missing or
     * empty one as a new database, and says only "unable to open database" of a directory. */
    struct stat sb;
    const char *why = NULL;
    if (stat(path, &sb) != 0 || access(path, R_OK) != 0)
        why = strerror(errno);
    else if (S_ISDIR(sb.st_mode))
        why = "a directory";
    else if (!S_ISREG(sb.st_mode))
        why = "not a regular file";
    else if (sb.st_size == 0)
        why = "an empty file (0 bytes)";
    if (why) {
        snprintf(err, errlen,
                 "cannot merge %s into %s: %s; expected a catalog that a sweep (--shard K/N) "
                 "wrote; nothing merged",
                 path, cat->path, why);
        return -1;
    }
    sqlite3_stmt *st;
    if (catalog_prepare(cat, "ATTACH ? AS other", &st, "attaching the other catalog", err,
                        errlen) != 0)
        return -1;
    catalog_bind_text(st, 1, path);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) /* the other file's fault (not a database, damaged): its name */
        return catalog_describe(cat->db, path, cat->busy_ms, rc, "reading it to merge", err,
                                errlen);
    const char *what = "merging another catalog";
    int result = check_other(cat, path, err, errlen);
    out->source_bad = result != 0;
    if (result == 0)
        result = catalog_begin_write(cat, what, err, errlen);
    if (result == 0) {
        result = merge_rows(cat, path, out, err, errlen);
        if (result == 0)
            result = catalog_commit(cat, what, err, errlen);
        else
            catalog_rollback(cat);
    }
    sqlite3_exec(cat->db, "DETACH other", NULL, NULL, NULL);
    return result;
}
