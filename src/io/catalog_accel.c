/* catalog_accel — accelerator runs in the catalog: `accel_runs` (one row per recorded run, its
 * summary) and `accel_run_apps` (a row per application: latencies against the QoS target, or
 * passes). The tables are made when first written rather than by a schema migration, as
 * reproduce_results is, so the catalog keeps its schema version and an older corun sharing it
 * ignores them. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_internal.h"
#include "config.h"
#include "corun/catalog.h"
#include "corun/util.h"

static bool has_tables(struct catalog *cat)
{
    return sqlite3_table_column_metadata(cat->db, NULL, "accel_run_apps", "run_id", NULL, NULL,
                                         NULL, NULL, NULL) == SQLITE_OK;
}

static int make_tables(struct catalog *cat, const char *what, char *err, size_t errlen)
{
    int rc = sqlite3_exec(cat->db,
                          "CREATE TABLE IF NOT EXISTS main.accel_runs (\n"
                          "    id INTEGER PRIMARY KEY,\n"
                          "    run_path TEXT,\n"
                          "    scenario_name TEXT NOT NULL,\n"
                          "    scenario_path TEXT,\n"
                          "    gpu TEXT NOT NULL,\n"
                          "    predictor TEXT NOT NULL DEFAULT 'none',\n"
                          "    seed INTEGER NOT NULL,\n"
                          "    complete INTEGER NOT NULL, -- 0: saved part way\n"
                          "    sim_ms REAL,               -- simulated time, ms\n"
                          "    gpu_util REAL,             -- share of SM time busy\n"
                          "    tasks_done INTEGER NOT NULL,\n"
                          "    created_utc TEXT NOT NULL,\n"
                          "    corun_version TEXT NOT NULL\n"
                          ");\n"
                          "CREATE TABLE IF NOT EXISTS main.accel_run_apps (\n"
                          "    run_id INTEGER NOT NULL REFERENCES accel_runs (id),\n"
                          "    app INTEGER NOT NULL, -- its index in the scenario\n"
                          "    name TEXT NOT NULL,\n"
                          "    role TEXT NOT NULL,   -- ls or batch\n"
                          "    instances INTEGER NOT NULL,\n"
                          "    qos_target REAL,      -- LS: the p99 bound over the solo p99\n"
                          "    p99_ms REAL,          -- LS\n"
                          "    solo_p99_ms REAL,     -- LS\n"
                          "    qos_met INTEGER,      -- LS: 1 when p99_ms <= qos_target x solo\n"
                          "    pred_p99_ms REAL,     -- LS, with a predictor\n"
                          "    passes INTEGER,       -- batch\n"
                          "    PRIMARY KEY (run_id, app)\n"
                          ")",
                          NULL, NULL, NULL);
    return rc == SQLITE_OK ? 0 : catalog_fail(cat, rc, what, err, errlen);
}

static int insert_app(struct catalog *cat, int64_t id, unsigned i,
                      const struct catalog_accel_app *a, const char *what, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (catalog_prepare(cat,
                        "INSERT INTO accel_run_apps (run_id, app, name, role, instances, "
                        "qos_target, p99_ms, solo_p99_ms, qos_met, pred_p99_ms, passes) VALUES "
                        "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        &st, what, err, errlen) != 0)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, i);
    catalog_bind_text(st, 3, a->name);
    catalog_bind_text(st, 4, a->ls ? "ls" : "batch");
    sqlite3_bind_int64(st, 5, a->instances);
    if (a->ls) {
        catalog_bind_double(st, 6, a->qos_target);
        catalog_bind_double(st, 7, a->p99_ms);
        catalog_bind_double(st, 8, a->solo_p99_ms);
        sqlite3_bind_int(st, 9, a->qos_met);
        catalog_bind_double(st, 10, a->pred_p99_ms);
    } else {
        sqlite3_bind_int64(st, 11, (sqlite3_int64)a->passes);
    }
    return catalog_step_done(cat, st, what, err, errlen);
}

int catalog_add_accel_run(struct catalog *cat, const struct catalog_accel_run *run, int64_t *id_out,
                          char *err, size_t errlen)
{
    const char *what = "adding an accelerator run";
    if (!run->scenario_name || !*run->scenario_name || !run->gpu || !*run->gpu) {
        snprintf(err, errlen, "catalog %s: %s failed: %s is missing", catalog_path(cat), what,
                 run->gpu && *run->gpu ? "the scenario name" : "the GPU preset");
        return -1;
    }
    for (size_t i = 0; i < run->napps; i++)
        if (!run->apps[i].name || !*run->apps[i].name) {
            snprintf(err, errlen, "catalog %s: %s failed: application %zu has no name",
                     catalog_path(cat), what, i);
            return -1;
        }
    char now[32];
    catalog_now_utc(now);
    if (catalog_begin_write(cat, what, err, errlen) != 0)
        return -1;
    sqlite3_stmt *st;
    if (make_tables(cat, what, err, errlen) != 0 ||
        catalog_prepare(cat,
                        "INSERT INTO accel_runs (run_path, scenario_name, scenario_path, gpu, "
                        "predictor, seed, complete, sim_ms, gpu_util, tasks_done, created_utc, "
                        "corun_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        &st, what, err, errlen) != 0) {
        catalog_rollback(cat);
        return -1;
    }
    catalog_bind_run_source(st, run->run_path, run->scenario_name, run->scenario_path, run->gpu);
    catalog_bind_text(st, 5, catalog_predictor_name(run->predictor));
    sqlite3_bind_int64(st, 6, (sqlite3_int64)run->seed);
    sqlite3_bind_int(st, 7, run->complete);
    catalog_bind_double(st, 8, run->sim_ms);
    catalog_bind_double(st, 9, run->gpu_util);
    sqlite3_bind_int64(st, 10, (sqlite3_int64)run->tasks_done);
    catalog_bind_text(st, 11, run->created_utc ? run->created_utc : now);
    catalog_bind_text(st, 12, run->corun_version ? run->corun_version : PACKAGE_VERSION);
    if (catalog_step_done(cat, st, what, err, errlen) != 0) {
        catalog_rollback(cat);
        return -1;
    }
    int64_t id = sqlite3_last_insert_rowid(cat->db);
    for (size_t i = 0; i < run->napps; i++)
        if (insert_app(cat, id, (unsigned)i, &run->apps[i], what, err, errlen) != 0) {
            catalog_rollback(cat);
            return -1;
        }
    if (catalog_commit(cat, what, err, errlen) != 0)
        return -1;
    if (id_out)
        *id_out = id;
    return 0;
}

static int read_apps(struct catalog *cat, struct catalog_accel_run *out, const char *what,
                     char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (catalog_prepare(cat,
                        "SELECT name, role, instances, qos_target, p99_ms, solo_p99_ms, qos_met, "
                        "pred_p99_ms, passes FROM accel_run_apps WHERE run_id = ? ORDER BY app",
                        &st, what, err, errlen) != 0)
        return -1;
    sqlite3_bind_int64(st, 1, out->id);
    int rc;
    size_t cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (out->napps == cap) {
            cap = cap ? 2 * cap : 4;
            out->apps = xrealloc(out->apps, cap * sizeof(*out->apps));
        }
        const char *role = (const char *)sqlite3_column_text(st, 1);
        out->apps[out->napps++] = (struct catalog_accel_app){
            .name = catalog_column_strdup(st, 0),
            .ls = role && strcmp(role, "ls") == 0,
            .instances = (unsigned)sqlite3_column_int64(st, 2),
            .qos_target = catalog_column_double(st, 3),
            .p99_ms = catalog_column_double(st, 4),
            .solo_p99_ms = catalog_column_double(st, 5),
            .qos_met = sqlite3_column_int(st, 6) != 0,
            .pred_p99_ms = catalog_column_double(st, 7),
            .passes = (uint64_t)sqlite3_column_int64(st, 8),
        };
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : catalog_fail(cat, rc, what, err, errlen);
}

static int no_run(struct catalog *cat, int64_t id, char *err, size_t errlen)
{
    snprintf(err, errlen, "catalog %s has no accelerator run a%lld (see `corun runs list`)",
             catalog_path(cat), (long long)id);
    return -1;
}

int catalog_get_accel_run(struct catalog *cat, int64_t id, struct catalog_accel_run *out, char *err,
                          size_t errlen)
{
    const char *what = "reading an accelerator run";
    memset(out, 0, sizeof(*out));
    if (!has_tables(cat))
        return no_run(cat, id, err, errlen);
    sqlite3_stmt *st;
    if (catalog_prepare(cat,
                        "SELECT id, run_path, scenario_name, scenario_path, gpu, predictor, seed, "
                        "complete, sim_ms, gpu_util, tasks_done, created_utc, corun_version FROM "
                        "accel_runs WHERE id = ?",
                        &st, what, err, errlen) != 0)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        out->id = sqlite3_column_int64(st, 0);
        out->run_path = catalog_column_strdup(st, 1);
        out->scenario_name = catalog_column_strdup(st, 2);
        out->scenario_path = catalog_column_strdup(st, 3);
        out->gpu = catalog_column_strdup(st, 4);
        out->predictor = catalog_column_strdup(st, 5);
        out->seed = (uint64_t)sqlite3_column_int64(st, 6);
        out->complete = sqlite3_column_int(st, 7) != 0;
        out->sim_ms = catalog_column_double(st, 8);
        out->gpu_util = catalog_column_double(st, 9);
        out->tasks_done = (uint64_t)sqlite3_column_int64(st, 10);
        out->created_utc = catalog_column_strdup(st, 11);
        out->corun_version = catalog_column_strdup(st, 12);
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE)
        return no_run(cat, id, err, errlen);
    if (rc != SQLITE_ROW)
        return catalog_fail(cat, rc, what, err, errlen);
    if (read_apps(cat, out, what, err, errlen) != 0) {
        catalog_accel_run_done(out);
        return -1;
    }
    return 0;
}

int catalog_list_accel_runs(struct catalog *cat,
                            int (*fn)(const struct catalog_accel_run *run, void *ctx), void *ctx,
                            char *err, size_t errlen)
{
    const char *what = "listing accelerator runs";
    if (!has_tables(cat))
        return 0;
    sqlite3_stmt *st;
    if (catalog_prepare(cat, "SELECT id FROM accel_runs ORDER BY id", &st, what, err, errlen) != 0)
        return -1;
    int64_t *ids = NULL;
    size_t n = 0, cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            ids = xrealloc(ids, cap * sizeof(*ids));
        }
        ids[n++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    int result = rc == SQLITE_DONE ? 0 : catalog_fail(cat, rc, what, err, errlen);
    for (size_t i = 0; i < n && result == 0; i++) {
        struct catalog_accel_run r;
        result = catalog_get_accel_run(cat, ids[i], &r, err, errlen);
        if (result == 0 && fn(&r, ctx))
            i = n;
        if (result == 0)
            catalog_accel_run_done(&r);
    }
    free(ids);
    return result;
}

void catalog_accel_run_done(struct catalog_accel_run *run)
{
    free((char *)run->run_path);
    free((char *)run->scenario_name);
    free((char *)run->scenario_path);
    free((char *)run->gpu);
    free((char *)run->predictor);
    free((char *)run->created_utc);
    free((char *)run->corun_version);
    for (size_t i = 0; i < run->napps; i++)
        free((char *)run->apps[i].name);
    free(run->apps);
    memset(run, 0, sizeof(*run));
}
