/* catalog_runs — the runs table and the results of headless sweeps. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_internal.h"
#include "config.h"
#include "corun/util.h"

/* ---- runs ---- */

#define RUN_COLUMNS                                                                                \
    "id, run_path, scenario_name, scenario_path, gpu, mix, predictor, allocator, seed, epochs, "   \
    "epoch_cycles, created_utc, corun_version, mean_stp, mean_antt, mean_fairness, "               \
    "min_fairness, mean_are, max_are"

/* Bind the six metrics from parameter first on. */
static void bind_metrics(sqlite3_stmt *st, int first, const struct catalog_metrics *m)
{
    catalog_bind_double(st, first, m->mean_stp);
    catalog_bind_double(st, first + 1, m->mean_antt);
    catalog_bind_double(st, first + 2, m->mean_fairness);
    catalog_bind_double(st, first + 3, m->min_fairness);
    catalog_bind_double(st, first + 4, m->has_are ? m->mean_are : NAN);
    catalog_bind_double(st, first + 5, m->has_are ? m->max_are : NAN);
}

static int check_required(const struct catalog *cat, const char *value, const char *name,
                          const char *what, char *err, size_t errlen)
{
    if (value && *value)
        return 0;
    snprintf(err, errlen, "catalog %s: %s failed: %s is missing", cat->path, what, name);
    return -1;
}

int catalog_add_run(struct catalog *cat, const struct catalog_run *run, int64_t *id_out, char *err,
                    size_t errlen)
{
    const char *what = "adding a run";
    if (check_required(cat, run->scenario_name, "the scenario name", what, err, errlen) != 0 ||
        check_required(cat, run->gpu, "the GPU preset", what, err, errlen) != 0 ||
        check_required(cat, run->mix, "the mix", what, err, errlen) != 0 ||
        check_required(cat, run->allocator, "the allocator", what, err, errlen) != 0)
        return -1;
    char now[32];
    catalog_now_utc(now);
    sqlite3_stmt *st;
    if (catalog_begin_write(cat, what, err, errlen) != 0)
        return -1;
    if (catalog_prepare(cat,
                        "INSERT INTO runs (run_path, scenario_name, scenario_path, gpu, mix, "
                        "predictor, allocator, seed, epochs, epoch_cycles, created_utc, "
                        "corun_version, mean_stp, mean_antt, mean_fairness, min_fairness, "
                        "mean_are, max_are) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        &st, what, err, errlen) != 0) {
        catalog_rollback(cat);
        return -1;
    }
    catalog_bind_run_source(st, run->run_path, run->scenario_name, run->scenario_path, run->gpu);
    catalog_bind_text(st, 5, run->mix);
    catalog_bind_text(st, 6, catalog_predictor_name(run->predictor));
    catalog_bind_text(st, 7, run->allocator);
    sqlite3_bind_int64(st, 8, (sqlite3_int64)run->seed);
    sqlite3_bind_int64(st, 9, run->epochs);
    sqlite3_bind_int64(st, 10, (sqlite3_int64)run->epoch_cycles);
    catalog_bind_text(st, 11, run->created_utc ? run->created_utc : now);
    catalog_bind_text(st, 12, run->corun_version ? run->corun_version : PACKAGE_VERSION);
    bind_metrics(st, 13, &run->metrics);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        catalog_fail(cat, rc, what, err, errlen);
        catalog_rollback(cat);
        return -1;
    }
    int64_t id = sqlite3_last_insert_rowid(cat->db);
    if (catalog_commit(cat, what, err, errlen) != 0)
        return -1;
    if (id_out)
        *id_out = id;
    return 0;
}

/* A row selected with RUN_COLUMNS; strings point into st. */
static void read_run(sqlite3_stmt *st, struct catalog_run *r)
{
    memset(r, 0, sizeof(*r));
    r->id = sqlite3_column_int64(st, 0);
    r->run_path = (const char *)sqlite3_column_text(st, 1);
    r->scenario_name = (const char *)sqlite3_column_text(st, 2);
    r->scenario_path = (const char *)sqlite3_column_text(st, 3);
    r->gpu = (const char *)sqlite3_column_text(st, 4);
    r->mix = (const char *)sqlite3_column_text(st, 5);
    r->predictor = (const char *)sqlite3_column_text(st, 6);
    r->allocator = (const char *)sqlite3_column_text(st, 7);
    r->seed = (uint64_t)sqlite3_column_int64(st, 8);
    r->epochs = (unsigned)sqlite3_column_int64(st, 9);
    r->epoch_cycles = (uint64_t)sqlite3_column_int64(st, 10);
    r->created_utc = (const char *)sqlite3_column_text(st, 11);
    r->corun_version = (const char *)sqlite3_column_text(st, 12);
    r->metrics.mean_stp = catalog_column_double(st, 13);
    r->metrics.mean_antt = catalog_column_double(st, 14);
    r->metrics.mean_fairness = catalog_column_double(st, 15);
    r->metrics.min_fairness = catalog_column_double(st, 16);
    r->metrics.mean_are = catalog_column_double(st, 17);
    r->metrics.max_are = catalog_column_double(st, 18);
    r->metrics.has_are = sqlite3_column_type(st, 17) != SQLITE_NULL;
}

int catalog_list_runs(struct catalog *cat, int (*fn)(const struct catalog_run *run, void *ctx),
                      void *ctx, char *err, size_t errlen)
{
    const char *what = "listing runs";
    sqlite3_stmt *st;
    if (catalog_prepare(cat, "SELECT " RUN_COLUMNS " FROM runs ORDER BY id", &st, what, err,
                        errlen) != 0)
        return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct catalog_run r;
        read_run(st, &r);
        if (fn(&r, ctx)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : catalog_fail(cat, rc, what, err, errlen);
}

static const char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

int catalog_get_run(struct catalog *cat, int64_t id, struct catalog_run *out, char *err,
                    size_t errlen)
{
    const char *what = "reading a run";
    sqlite3_stmt *st;
    memset(out, 0, sizeof(*out));
    if (catalog_prepare(cat, "SELECT " RUN_COLUMNS " FROM runs WHERE id = ?", &st, what, err,
                        errlen) != 0)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        read_run(st, out);
        out->run_path = dup_or_null(out->run_path);
        out->scenario_name = dup_or_null(out->scenario_name);
        out->scenario_path = dup_or_null(out->scenario_path);
        out->gpu = dup_or_null(out->gpu);
        out->mix = dup_or_null(out->mix);
        out->predictor = dup_or_null(out->predictor);
        out->allocator = dup_or_null(out->allocator);
        out->created_utc = dup_or_null(out->created_utc);
        out->corun_version = dup_or_null(out->corun_version);
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE) {
        snprintf(err, errlen, "catalog %s has no run %lld (see `corun runs list`)", cat->path,
                 (long long)id);
        return -1;
    }
    return rc == SQLITE_ROW ? 0 : catalog_fail(cat, rc, what, err, errlen);
}

void catalog_run_done(struct catalog_run *run)
{
    free((char *)run->run_path);
    free((char *)run->scenario_name);
    free((char *)run->scenario_path);
    free((char *)run->gpu);
    free((char *)run->mix);
    free((char *)run->predictor);
    free((char *)run->allocator);
    free((char *)run->created_utc);
    free((char *)run->corun_version);
    memset(run, 0, sizeof(*run));
}

/* ---- sweeps ---- */

static int check_sweep_key(const struct catalog *cat, const struct catalog_sweep_key *key,
                           const char *what, char *err, size_t errlen)
{
    if (check_required(cat, key->suite, "the suite", what, err, errlen) != 0 ||
        check_required(cat, key->mix, "the mix", what, err, errlen) != 0 ||
        check_required(cat, key->allocator, "the allocator", what, err, errlen) != 0 ||
        check_required(cat, key->config, "the configuration", what, err, errlen) != 0)
        return -1;
    return 0;
}

static void bind_sweep_key(sqlite3_stmt *st, const struct catalog_sweep_key *key)
{
    catalog_bind_text(st, 1, key->suite);
    catalog_bind_text(st, 2, key->mix);
    catalog_bind_text(st, 3, catalog_predictor_name(key->predictor));
    catalog_bind_text(st, 4, key->allocator);
    sqlite3_bind_int64(st, 5, (sqlite3_int64)key->seed);
    catalog_bind_text(st, 6, key->config);
}

int catalog_check_sweep_results(struct catalog *cat, char *err, size_t errlen)
{
    return catalog_quick_check(cat, "PRAGMA quick_check(sweep_results)", cat->path,
                               "checking its sweep results",
                               "; restore it from a backup or use --catalog", err, errlen);
}

int catalog_sweep_done(struct catalog *cat, const struct catalog_sweep_key *key, bool *done,
                       char *err, size_t errlen)
{
    const char *what = "looking up a sweep result";
    sqlite3_stmt *st;
    *done = false;
    if (check_sweep_key(cat, key, what, err, errlen) != 0 ||
        catalog_prepare(cat,
                        "SELECT 1 FROM sweep_results WHERE suite = ? AND mix = ? AND "
                        "predictor = ? AND allocator = ? AND seed = ? AND config = ?",
                        &st, what, err, errlen) != 0)
        return -1;
    bind_sweep_key(st, key);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return catalog_fail(cat, rc, what, err, errlen);
    *done = rc == SQLITE_ROW;
    return 0;
}

int catalog_put_sweep_result(struct catalog *cat, const struct catalog_sweep_key *key,
                             int64_t run_id, const struct catalog_metrics *metrics, bool *inserted,
                             char *err, size_t errlen)
{
    const char *what = "storing a sweep result";
    char now[32];
    catalog_now_utc(now);
    sqlite3_stmt *st;
    if (inserted)
        *inserted = false;
    if (check_sweep_key(cat, key, what, err, errlen) != 0 ||
        catalog_begin_write(cat, what, err, errlen) != 0)
        return -1;
    /* Only the UNIQUE key is ignored, so a bad run_id still fails. */
    if (catalog_prepare(cat,
                        "INSERT INTO sweep_results (suite, mix, predictor, allocator, seed, "
                        "config, run_id, mean_stp, mean_antt, mean_fairness, min_fairness, "
                        "mean_are, max_are, created_utc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                        "?, ?, ?) ON CONFLICT (suite, mix, predictor, allocator, seed, config) DO "
                        "NOTHING",
                        &st, what, err, errlen) != 0) {
        catalog_rollback(cat);
        return -1;
    }
    bind_sweep_key(st, key);
    if (run_id > 0)
        sqlite3_bind_int64(st, 7, run_id);
    else
        sqlite3_bind_null(st, 7);
    bind_metrics(st, 8, metrics);
    catalog_bind_text(st, 14, now);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
            snprintf(err, errlen, "catalog %s: %s failed: there is no run %lld", cat->path, what,
                     (long long)run_id);
        else
            catalog_fail(cat, rc, what, err, errlen);
        catalog_rollback(cat);
        return -1;
    }
    bool added = sqlite3_changes(cat->db) > 0;
    if (catalog_commit(cat, what, err, errlen) != 0)
        return -1;
    if (inserted)
        *inserted = added;
    return 0;
}
