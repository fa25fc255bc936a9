/* Unit tests for the SQLite catalog: schema, runs, traces, kernels, sweeps, results and
 * accelerator runs; the user's read-only queries are in test_catalog_query.c. Bad files, old and
 * newer schemas, directories, read-only files and two writers at once are in test_catalog_files.c.
 * Every test works in its own mkdtemp directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "catalog_fixtures.h"
#include "corun/catalog.h"
#include "corun/preset.h"
#include "testutil.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- schema ---- */

static void test_schema_create_and_reopen(void **state)
{
    struct fixture *f = *state;
    struct catalog *cat = open_ok(f->path);
    assert_string_equal(catalog_path(cat), f->path);

    struct collect c = {.stop_after = 0};
    query_ok(cat, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", &c);
    assert_string_equal(c.text, "name\nkernel_measurements\nkernels\nruns\nsolo_traces\n"
                                "sweep_results\n");
    query_ok(cat, "PRAGMA user_version", &c);
    assert_string_equal(c.text, "user_version\n2\n");
    assert_string_equal(raw_text(f->path, "PRAGMA journal_mode"), "wal");
    /* One kernels column per profile setting, from the settings table (a list such as
     * `phases` has none: the profile hash stands for it). */
    for (size_t i = 0; i < preset_kernel_table.count; i++) {
        if (preset_kernel_table.settings[i].type == CONF_CUSTOM)
            continue;
        char sql[256];
        snprintf(sql, sizeof sql,
                 "SELECT count(*) FROM pragma_table_info('kernels') WHERE name = '%s'",
                 preset_kernel_table.settings[i].name);
        query_ok(cat, sql, &c);
        assert_string_equal(c.text, "count(*)\n1\n");
    }
    struct catalog_run r = sample_run();
    int64_t id = add_run_ok(cat, &r);
    catalog_close(cat);

    cat = open_ok(f->path);
    struct catalog_run got;
    char err[512];
    assert_int_equal(catalog_get_run(cat, id, &got, err, sizeof err), 0);
    assert_string_equal(got.mix, "stream+compute");
    catalog_run_done(&got);
    catalog_close(cat);
    catalog_close(NULL);
}

/* A column a newer build added to the kernel settings table is added on open. */
static void test_kernel_column_added_on_open(void **state)
{
    struct fixture *f = *state;
    struct catalog *cat = open_ok(f->path);
    char err[512];
    assert_int_equal(catalog_put_kernel(cat, kernel_builtin_at(0), "built-in", err, sizeof err), 0);
    catalog_close(cat);
    raw_exec(f->path, "ALTER TABLE kernels DROP COLUMN smem_per_tb_bytes");

    cat = open_ok(f->path);
    struct collect c = {.stop_after = 0};
    query_ok(cat,
             "SELECT count(*) FROM pragma_table_info('kernels') WHERE name = 'smem_per_tb_bytes'",
             &c);
    assert_string_equal(c.text, "count(*)\n1\n");
    /* The old row has NULL there and reads back the setting's default. */
    struct kernel_profile p;
    bool found;
    assert_int_equal(
        catalog_get_kernel(cat, kernel_builtin_at(0)->name, &p, NULL, &found, err, sizeof err), 0);
    assert_true(found);
    assert_int_equal(p.smem_per_tb_bytes, 0);
    assert_int_equal(p.tbs, kernel_builtin_at(0)->tbs);
    kernel_profile_done(&p);
    catalog_close(cat);
}

static void test_default_path(void **state)
{
    (void)state;
    char *old_xdg = getenv("XDG_DATA_HOME") ? strdup(getenv("XDG_DATA_HOME")) : NULL;
    char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;

    setenv("XDG_DATA_HOME", "/data/xdg", 1);
    char *p = catalog_default_path();
    assert_string_equal(p, "/data/xdg/corun/catalog.db");
    free(p);
    setenv("XDG_DATA_HOME", "relative/ignored", 1);
    setenv("HOME", "/home/someone", 1);
    p = catalog_default_path();
    assert_string_equal(p, "/home/someone/.local/share/corun/catalog.db");
    free(p);
    unsetenv("XDG_DATA_HOME");
    p = catalog_default_path();
    assert_string_equal(p, "/home/someone/.local/share/corun/catalog.db");
    free(p);

    if (old_xdg)
        setenv("XDG_DATA_HOME", old_xdg, 1);
    if (old_home)
        setenv("HOME", old_home, 1);
    else
        unsetenv("HOME");
    free(old_xdg);
    free(old_home);
}

/* ---- runs ---- */

static int count_run(const struct catalog_run *run, void *ctx)
{
    char *seen = ctx;
    size_t len = strlen(seen);
    snprintf(seen + len, 256 - len, "%lld:%s:%s;", (long long)run->id, run->scenario_name,
             run->predictor);
    return 0;
}

static int stop_at_first(const struct catalog_run *run, void *ctx)
{
    (*(int *)ctx)++;
    return 1;
}

static void test_runs_round_trip(void **state)
{
    struct fixture *f = *state;
    struct catalog *cat = open_ok(f->path);
    char err[512];

    struct catalog_run a = sample_run();
    a.seed = UINT64_MAX; /* beyond SQLite's signed range, still exact */
    a.created_utc = "2024-05-01T12:00:00Z";
    struct catalog_run b = {
        .scenario_name = "lesson1",
        .gpu = "gddr5_40",
        .mix = "random",
        .allocator = "even",
        .seed = 7,
        .epochs = 3,
        .epoch_cycles = 1000,
        .metrics = {2.0, 1.0, NAN, 0.5, false, 9.0, 9.0}, /* AREs ignored: no predictor */
    };
    int64_t ida = add_run_ok(cat, &a), idb = add_run_ok(cat, &b);
    assert_true(idb > ida);

    char seen[256] = "";
    assert_int_equal(catalog_list_runs(cat, count_run, seen, err, sizeof err), 0);
    char want[256];
    snprintf(want, sizeof want, "%lld:default:hsm;%lld:lesson1:none;", (long long)ida,
             (long long)idb);
    assert_string_equal(seen, want);
    int calls = 0;
    assert_int_equal(catalog_list_runs(cat, stop_at_first, &calls, err, sizeof err), 0);
    assert_int_equal(calls, 1);

    struct catalog_run got;
    assert_int_equal(catalog_get_run(cat, ida, &got, err, sizeof err), 0);
    assert_int_equal(got.id, ida);
    assert_string_equal(got.run_path, "runs/a.h5");
    assert_string_equal(got.scenario_name, "default");
    assert_string_equal(got.scenario_path, "scenarios/default.cfg");
    assert_string_equal(got.gpu, "hbm80");
    assert_string_equal(got.mix, "stream+compute");
    assert_string_equal(got.predictor, "hsm");
    assert_string_equal(got.allocator, "fair");
    assert_true(got.seed == UINT64_MAX);
    assert_int_equal(got.epochs, 20);
    assert_int_equal(got.epoch_cycles, 50000);
    assert_string_equal(got.created_utc, "2024-05-01T12:00:00Z");
    assert_non_null(got.corun_version);
    assert_true(got.metrics.mean_stp == 1.5 && got.metrics.mean_antt == 1.4);
    assert_true(got.metrics.mean_fairness == 0.8 && got.metrics.min_fairness == 0.6);
    assert_true(got.metrics.has_are);
    assert_true(got.metrics.mean_are == 0.05 && got.metrics.max_are == 0.12);
    catalog_run_done(&got);

    assert_int_equal(catalog_get_run(cat, idb, &got, err, sizeof err), 0);
    assert_null(got.run_path);
    assert_null(got.scenario_path);
    assert_string_equal(got.predictor, "none");
    assert_int_equal(strlen(got.created_utc), 20); /* filled in: YYYY-MM-DDTHH:MM:SSZ */
    assert_true(isnan(got.metrics.mean_fairness));
    assert_false(got.metrics.has_are);
    assert_true(isnan(got.metrics.mean_are));
    catalog_run_done(&got);

    struct collect c = {.stop_after = 0};
    query_ok(cat, "SELECT mean_are IS NULL, max_are IS NULL FROM runs ORDER BY id", &c);
    assert_string_equal(c.text, "mean_are IS NULL|max_are IS NULL\n0|0\n1|1\n");

    char wanterr[512];
    snprintf(wanterr, sizeof wanterr, "catalog %s has no run 99 (see `corun runs list`)", f->path);
    assert_int_equal(catalog_get_run(cat, 99, &got, err, sizeof err), -1);
    assert_string_equal(err, wanterr);

    b.mix = NULL;
    assert_int_equal(catalog_add_run(cat, &b, NULL, err, sizeof err), -1);
    snprintf(wanterr, sizeof wanterr, "catalog %s: adding a run failed: the mix is missing",
             f->path);
    assert_string_equal(err, wanterr);
    catalog_close(cat);
}

/* ---- private-mode traces ---- */

static void test_solo_trace_round_trip(void **state)
{
    struct fixture *f = *state;
    struct catalog *cat = open_ok(f->path);
    char err[512];
    const struct solo_key key = {0xfedcba9876543210ull, 0x0123456789abcdefull, 1ull << 63, 40};
    uint64_t insts[300];
    for (size_t i = 0; i < 300; i++)
        insts[i] = i * 1000003ull;
    insts[299] = UINT64_MAX;
    uint64_t *got;
    size_t n;

    assert_int_equal(catalog_get_solo_trace(cat, &key, &got, &n, err, sizeof err), 0);
    assert_null(got);
    assert_int_equal(n, 0);

    assert_int_equal(
        catalog_put_solo_trace(cat, &key, "stream", "hbm80", insts, 200, err, sizeof err), 0);
    assert_int_equal(catalog_get_solo_trace(cat, &key, &got, &n, err, sizeof err), 0);
    assert_int_equal(n, 200);
    assert_memory_equal(got, insts, 200 * sizeof(*insts));
    free(got);

    /* A shorter trace does not replace a longer one; a longer one does. */
    assert_int_equal(
        catalog_put_solo_trace(cat, &key, "stream", "hbm80", insts, 10, err, sizeof err), 0);
    assert_int_equal(catalog_get_solo_trace(cat, &key, &got, &n, err, sizeof err), 0);
    assert_int_equal(n, 200);
    free(got);
    assert_int_equal(catalog_put_solo_trace(cat, &key, NULL, NULL, insts, 300, err, sizeof err), 0);
    assert_int_equal(catalog_get_solo_trace(cat, &key, &got, &n, err, sizeof err), 0);
    assert_int_equal(n, 300);
    assert_memory_equal(got, insts, 300 * sizeof(*insts));
    free(got);

    /* Another key part gives another trace. */
    struct solo_key other = key;
    other.sms = 20;
    assert_int_equal(catalog_get_solo_trace(cat, &other, &got, &n, err, sizeof err), 0);
    assert_int_equal(n, 0);

    /* The blob is little-endian, the hashes hex, readable by hand. */
    struct collect c = {.stop_after = 0};
    query_ok(cat,
             "SELECT config_hash, profile_hash, sms, sample_cycles, sample_count, "
             "hex(substr(samples, 9, 8)), samples FROM solo_traces",
             &c);
    char want[512];
    snprintf(want, sizeof want,
             "config_hash|profile_hash|sms|sample_cycles|sample_count|hex(substr(samples, 9, "
             "8))|samples\nfedcba9876543210|0123456789abcdef|40|%d|300|43420F0000000000|"
             "<2400-byte blob>\n",
             SOLO_SAMPLE_CYCLES);
    assert_string_equal(c.text, want);

    /* A trace sampled at another period is of no use: not returned. */
    raw_exec(f->path, "UPDATE solo_traces SET sample_cycles = sample_cycles + 1");
    assert_int_equal(catalog_get_solo_trace(cat, &key, &got, &n, err, sizeof err), 0);
    assert_null(got);
    assert_int_equal(n, 0);
    catalog_close(cat);
}

/* ---- kernels ---- */

static void test_kernels_and_measurements(void **state)
{
    struct fixture *f = *state;
    struct catalog *cat = open_ok(f->path);
    char err[512], want[512];
    for (size_t i = 0; i < kernel_builtin_count(); i++)
        assert_int_equal(catalog_put_kernel(cat, kernel_builtin_at(i), "built-in", err, sizeof err),
                         0);

    const struct kernel_profile *b = kernel_builtin_at(0);
    struct kernel_profile p;
    char *source;
    bool found;
    assert_int_equal(catalog_get_kernel(cat, b->name, &p, &source, &found, err, sizeof err), 0);
    assert_true(found);
    assert_string_equal(source, "built-in");
    free(source);
    assert_string_equal(p.name, b->name);
    assert_string_equal(p.description, b->description);
    /* Every simulated field survives: the hash covers them all. */
    assert_true(solo_profile_hash(&p) == solo_profile_hash(b));
    assert_int_equal(p.footprint_bytes, b->footprint_bytes);
    kernel_profile_done(&p);
    /* So do choices that are not the default (the built-ins keep every default). */
    struct kernel_profile tiled = *b;
    tiled.name = "tiled";
    tiled.pattern = KERNEL_PATTERN_TILED;
    tiled.target_class = KERNEL_CLASS_MEMORY;
    assert_int_equal(catalog_put_kernel(cat, &tiled, "test", err, sizeof err), 0);
    assert_int_equal(catalog_get_kernel(cat, "tiled", &p, NULL, &found, err, sizeof err), 0);
    assert_true(found);
    assert_int_equal(p.pattern, KERNEL_PATTERN_TILED);
    assert_int_equal(p.target_class, KERNEL_CLASS_MEMORY);
    assert_true(solo_profile_hash(&p) == solo_profile_hash(&tiled));
    kernel_profile_done(&p);
    assert_int_equal(catalog_get_kernel(cat, "nope", &p, NULL, &found, err, sizeof err), 0);
    assert_false(found);

    struct catalog_measurement m = {b->name, "hbm80", 40,   812.5,    900.0,
                                    45.0,    0.7,     12.5, "memory", NULL};
    assert_int_equal(catalog_put_measurement(cat, &m, err, sizeof err), 0);
    m.ipc = 800.0; /* the same (kernel, gpu, sms) is replaced */
    assert_int_equal(catalog_put_measurement(cat, &m, err, sizeof err), 0);
    m.sms = 80;
    assert_int_equal(catalog_put_measurement(cat, &m, err, sizeof err), 0);
    struct collect c = {.stop_after = 0};
    query_ok(cat, "SELECT kernel, gpu, sms, ipc, class FROM kernel_measurements ORDER BY sms", &c);
    snprintf(want, sizeof want,
             "kernel|gpu|sms|ipc|class\n%s|hbm80|40|800.0|memory\n%s|hbm80|80|800.0|memory\n",
             b->name, b->name);
    assert_string_equal(c.text, want);

    m.kernel = "unknown";
    assert_int_equal(catalog_put_measurement(cat, &m, err, sizeof err), -1);
    snprintf(want, sizeof want,
             "catalog %s: storing a kernel measurement failed: kernel \"unknown\" is not in the "
             "kernel library; store the kernel first",
             f->path);
    assert_string_equal(err, want);
    /* An empty kernel name, or an empty source, is named as what is missing. */
    m.kernel = "";
    assert_int_equal(catalog_put_measurement(cat, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "failed: the kernel name is missing"));
    m.kernel = b->name;
    m.gpu = "";
    assert_int_equal(catalog_put_measurement(cat, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "failed: the GPU preset is missing"));
    struct kernel_profile unnamed = *b;
    unnamed.name = (char *)"";
    assert_int_equal(catalog_put_kernel(cat, &unnamed, "built-in", err, sizeof err), -1);
    assert_non_null(strstr(err, "storing a kernel failed: the kernel's name is missing"));
    assert_int_equal(catalog_put_kernel(cat, b, "", err, sizeof err), -1);
    assert_non_null(strstr(err, "the kernel's source is missing"));

    /* Storing the same profile keeps its measurements; a changed profile drops them. */
    assert_int_equal(catalog_put_kernel(cat, b, "built-in", err, sizeof err), 0);
    query_ok(cat, "SELECT count(*) FROM kernel_measurements", &c);
    assert_string_equal(c.text, "count(*)\n2\n");
    struct kernel_profile changed = *b;
    changed.mem_fraction = b->mem_fraction / 2;
    assert_int_equal(catalog_put_kernel(cat, &changed, "data/kernels/x.cfg", err, sizeof err), 0);
    query_ok(cat, "SELECT count(*) FROM kernel_measurements", &c);
    assert_string_equal(c.text, "count(*)\n0\n");
    snprintf(want, sizeof want,
             "SELECT source, mem_fraction = %.17g FROM kernels WHERE name = '%s'",
             changed.mem_fraction, b->name);
    query_ok(cat, want, &c);
    assert_non_null(strstr(c.text, "\ndata/kernels/x.cfg|1\n"));
    catalog_close(cat);
}

/* ---- sweeps ---- */

static void test_sweep_idempotent(void **state)
{
    struct fixture *f = *state;
    struct catalog *cat = open_ok(f->path);
    char err[512];
    struct catalog_run r = sample_run();
    int64_t run_id = add_run_ok(cat, &r);
    struct catalog_sweep_key key = {"hsm-pairs", "stream+compute",           NULL, "even",
                                    3,           "hbm80, 10 x 500000 cycles"};
    struct catalog_metrics m = {1.2, 1.7, 0.7, 0.5, false, 0, 0};
    bool done = true, inserted = false;

    assert_int_equal(catalog_sweep_done(cat, &key, &done, err, sizeof err), 0);
    assert_false(done);
    assert_int_equal(catalog_put_sweep_result(cat, &key, run_id, &m, &inserted, err, sizeof err),
                     0);
    assert_true(inserted);
    assert_int_equal(catalog_sweep_done(cat, &key, &done, err, sizeof err), 0);
    assert_true(done);
    /* A resumed sweep stores the same experiment again: nothing changes. */
    m.mean_stp = 9.9;
    assert_int_equal(catalog_put_sweep_result(cat, &key, 0, &m, &inserted, err, sizeof err), 0);
    assert_false(inserted);
    key.predictor = "none"; /* the same as NULL */
    assert_int_equal(catalog_put_sweep_result(cat, &key, 0, &m, NULL, err, sizeof err), 0);
    struct collect c = {.stop_after = 0};
    query_ok(cat, "SELECT count(*), min(mean_stp), max(run_id) FROM sweep_results", &c);
    char want[256];
    snprintf(want, sizeof want, "count(*)|min(mean_stp)|max(run_id)\n1|1.2|%lld\n",
             (long long)run_id);
    assert_string_equal(c.text, want);

    /* Another seed is another experiment. */
    key.seed = 4;
    assert_int_equal(catalog_sweep_done(cat, &key, &done, err, sizeof err), 0);
    assert_false(done);
    assert_int_equal(catalog_put_sweep_result(cat, &key, 0, &m, &inserted, err, sizeof err), 0);
    assert_true(inserted);

    key.seed = 5;
    assert_int_equal(catalog_put_sweep_result(cat, &key, 777, &m, &inserted, err, sizeof err), -1);
    snprintf(want, sizeof want, "catalog %s: storing a sweep result failed: there is no run 777",
             f->path);
    assert_string_equal(err, want);
    catalog_close(cat);
}

/* ---- finished reproduce runs ---- */

static void test_results_by_key(void **state)
{
    struct fixture *f = *state;
    struct catalog *cat = open_ok(f->path);
    char err[512];
    double a[3] = {1.5, 2.5, 3.5}, b[3] = {0}, c[2] = {0};
    bool found = true;

    /* Before anything is stored there is no table, and no result. */
    assert_int_equal(catalog_get_result(cat, "k1", b, sizeof b, &found, err, sizeof err), 0);
    assert_false(found);
    assert_int_equal(catalog_put_result(cat, "k1", a, sizeof a, err, sizeof err), 0);
    assert_int_equal(catalog_get_result(cat, "k1", b, sizeof b, &found, err, sizeof err), 0);
    assert_true(found);
    assert_memory_equal(a, b, sizeof a);
    /* Another key, or the same key with another size, is not this result. */
    assert_int_equal(catalog_get_result(cat, "k2", b, sizeof b, &found, err, sizeof err), 0);
    assert_false(found);
    assert_int_equal(catalog_get_result(cat, "k1", c, sizeof c, &found, err, sizeof err), 0);
    assert_false(found);
    assert_true(c[0] == 0 && c[1] == 0);
    /* Stored again, the last one wins. */
    a[1] = 7;
    assert_int_equal(catalog_put_result(cat, "k1", a, sizeof a, err, sizeof err), 0);
    catalog_close(cat);
    cat = open_ok(f->path); /* and it lasts */
    assert_int_equal(catalog_get_result(cat, "k1", b, sizeof b, &found, err, sizeof err), 0);
    assert_true(found && b[1] == 7);
    struct collect q = {.stop_after = 0};
    query_ok(cat, "SELECT count(*) FROM reproduce_results", &q);
    assert_string_equal(q.text, "count(*)\n1\n");
    catalog_close(cat);
}

/* ---- accelerator runs ---- */

static int count_accel(const struct catalog_accel_run *r, void *ctx)
{
    int64_t *ids = ctx;
    ids[ids[0] + 1] = r->id;
    ids[0]++;
    return 0;
}

/* count_accel, stopping the listing after the third run. */
static int three_accel(const struct catalog_accel_run *r, void *ctx)
{
    count_accel(r, ctx);
    return ((int64_t *)ctx)[0] == 3;
}

static void test_accel_runs(void **state)
{
    struct fixture *f = *state;
    struct catalog *cat = open_ok(f->path);
    char err[512];
    int64_t ids[32] = {0};
    struct catalog_accel_run got;

    /* Before any: no tables, an empty list, and a get that names the run. */
    assert_int_equal(catalog_list_accel_runs(cat, count_accel, ids, err, sizeof err), 0);
    assert_int_equal(ids[0], 0);
    assert_int_equal(catalog_get_accel_run(cat, 1, &got, err, sizeof err), -1);
    assert_non_null(strstr(err, "has no accelerator run a1"));

    struct catalog_accel_app apps[2] = {
        {.name = "gmm",
         .ls = true,
         .instances = 1,
         .qos_target = 1.5,
         .p99_ms = 0.25,
         .solo_p99_ms = 0.2,
         .qos_met = true,
         .pred_p99_ms = NAN},
        {.name = "nn", .ls = false, .instances = 3, .passes = 14},
    };
    struct catalog_accel_run run = {.run_path = "/r/a.h5",
                                    .scenario_name = "gmm beside nn",
                                    .scenario_path = NULL,
                                    .gpu = "k40",
                                    .predictor = NULL,
                                    .seed = 3,
                                    .complete = true,
                                    .sim_ms = 8.5,
                                    .gpu_util = 0.25,
                                    .tasks_done = 132,
                                    .napps = 2,
                                    .apps = apps};
    int64_t id = 0;
    assert_int_equal(catalog_add_accel_run(cat, &run, &id, err, sizeof err), 0);
    assert_int_equal(id, 1);
    apps[0].pred_p99_ms = 0.3;
    run.predictor = "prophet";
    run.complete = false;
    assert_int_equal(catalog_add_accel_run(cat, &run, &id, err, sizeof err), 0);
    assert_int_equal(id, 2);
    catalog_close(cat);

    cat = open_ok(f->path); /* they last; the schema version is unchanged */
    struct collect q = {.stop_after = 0};
    query_ok(cat, "PRAGMA user_version", &q);
    assert_string_equal(q.text, "user_version\n2\n");
    assert_int_equal(catalog_get_accel_run(cat, 1, &got, err, sizeof err), 0);
    assert_string_equal(got.run_path, "/r/a.h5");
    assert_string_equal(got.scenario_name, "gmm beside nn");
    assert_null(got.scenario_path);
    assert_string_equal(got.gpu, "k40");
    assert_string_equal(got.predictor, "none");
    assert_true(got.seed == 3 && got.complete && got.tasks_done == 132);
    assert_true(got.sim_ms == 8.5 && got.gpu_util == 0.25);
    assert_int_equal(got.napps, 2);
    assert_string_equal(got.apps[0].name, "gmm");
    assert_true(got.apps[0].ls && got.apps[0].qos_met && got.apps[0].instances == 1);
    assert_true(got.apps[0].qos_target == 1.5 && got.apps[0].p99_ms == 0.25);
    assert_true(got.apps[0].solo_p99_ms == 0.2 && isnan(got.apps[0].pred_p99_ms));
    assert_string_equal(got.apps[1].name, "nn");
    assert_true(!got.apps[1].ls && got.apps[1].instances == 3 && got.apps[1].passes == 14);
    assert_true(isnan(got.apps[1].p99_ms) && !got.apps[1].qos_met);
    catalog_accel_run_done(&got);
    assert_int_equal(catalog_get_accel_run(cat, 2, &got, err, sizeof err), 0);
    assert_string_equal(got.predictor, "prophet");
    assert_true(!got.complete && got.apps[0].pred_p99_ms == 0.3);
    catalog_accel_run_done(&got);
    assert_int_equal(catalog_list_accel_runs(cat, count_accel, ids, err, sizeof err), 0);
    assert_true(ids[0] == 2 && ids[1] == 1 && ids[2] == 2);
    /* SQL sees a row per application, batch ones without latencies. */
    query_ok(cat,
             "SELECT run_id, name, role, p99_ms, passes FROM accel_run_apps ORDER BY run_id, app",
             &q);
    assert_string_equal(q.text, "run_id|name|role|p99_ms|passes\n1|gmm|ls|0.25|NULL\n"
                                "1|nn|batch|NULL|14\n2|gmm|ls|0.25|NULL\n2|nn|batch|NULL|14\n");
    /* The spatial runs are another table: none there. */
    query_ok(cat, "SELECT count(*) FROM runs", &q);
    assert_string_equal(q.text, "count(*)\n0\n");
    /* A run without its GPU or with a nameless application is refused, and adds nothing. */
    run.gpu = "";
    assert_int_equal(catalog_add_accel_run(cat, &run, &id, err, sizeof err), -1);
    assert_non_null(strstr(err, "the GPU preset is missing"));
    run.gpu = "k40";
    apps[1].name = NULL;
    assert_int_equal(catalog_add_accel_run(cat, &run, &id, err, sizeof err), -1);
    assert_non_null(strstr(err, "application 1 has no name"));
    query_ok(cat, "SELECT count(*) FROM accel_runs", &q);
    assert_string_equal(q.text, "count(*)\n2\n");
    /* Twenty runs are listed whole, in order (the list grows past its first 16); a callback
     * that asks to stop is obeyed. */
    apps[1].name = "nn";
    for (int i = 2; i < 20; i++)
        assert_int_equal(catalog_add_accel_run(cat, &run, &id, err, sizeof err), 0);
    memset(ids, 0, sizeof ids);
    assert_int_equal(catalog_list_accel_runs(cat, count_accel, ids, err, sizeof err), 0);
    assert_int_equal(ids[0], 20);
    for (int i = 1; i <= 20; i++)
        assert_int_equal(ids[i], i);
    memset(ids, 0, sizeof ids);
    assert_int_equal(catalog_list_accel_runs(cat, three_accel, ids, err, sizeof err), 0);
    assert_int_equal(ids[0], 3);
    /* Nine applications come back whole, in order (the reader's list grows past its first
     * four). */
    struct catalog_accel_app many[9];
    char names[9][8];
    for (unsigned i = 0; i < 9; i++) {
        snprintf(names[i], sizeof names[i], "app%u", i);
        many[i] = (struct catalog_accel_app){.name = names[i], .instances = i + 1};
    }
    run.napps = 9;
    run.apps = many;
    assert_int_equal(catalog_add_accel_run(cat, &run, &id, err, sizeof err), 0);
    assert_int_equal(catalog_get_accel_run(cat, id, &got, err, sizeof err), 0);
    assert_int_equal(got.napps, 9);
    for (unsigned i = 0; i < 9; i++) {
        assert_string_equal(got.apps[i].name, names[i]);
        assert_int_equal(got.apps[i].instances, i + 1);
    }
    catalog_accel_run_done(&got);
    catalog_close(cat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_schema_create_and_reopen, catalog_setup,
                                        catalog_teardown),
        cmocka_unit_test_setup_teardown(test_kernel_column_added_on_open, catalog_setup,
                                        catalog_teardown),
        cmocka_unit_test(test_default_path),
        cmocka_unit_test_setup_teardown(test_runs_round_trip, catalog_setup, catalog_teardown),
        cmocka_unit_test_setup_teardown(test_solo_trace_round_trip, catalog_setup,
                                        catalog_teardown),
        cmocka_unit_test_setup_teardown(test_kernels_and_measurements, catalog_setup,
                                        catalog_teardown),
        cmocka_unit_test_setup_teardown(test_sweep_idempotent, catalog_setup, catalog_teardown),
        cmocka_unit_test_setup_teardown(test_results_by_key, catalog_setup, catalog_teardown),
        cmocka_unit_test_setup_teardown(test_accel_runs, catalog_setup, catalog_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
