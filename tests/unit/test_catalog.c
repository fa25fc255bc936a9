/* Unit tests for the SQLite catalog: schema and migrations, runs, traces, kernels, sweeps,
 * the user's read-only queries, bad files, and two writers at once. Every test works in its
 * own mkdtemp directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

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

/* ---- fixtures ---- */

struct fixture {
    char dir[64];
    char path[128]; /* dir/sub/catalog.db, sub made by setup */
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    snprintf(f->dir, sizeof f->dir, "/tmp/corun-catalog-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->path, sizeof f->path, "%s/sub/catalog.db", f->dir);
    char sub[96];
    snprintf(sub, sizeof sub, "%s/sub", f->dir);
    if (mkdir(sub, 0777) != 0)
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    chmod(f->dir, 0700);
    test_remove_tree(f->dir);
    free(f);
    return 0;
}

static struct catalog *open_ok(const char *path)
{
    char err[512] = "";
    struct catalog *cat = catalog_open(path, err, sizeof err);
    if (!cat)
        fail_msg("catalog_open: %s", err);
    return cat;
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, n, fp), n);
    fclose(fp);
}

/* Whether path holds exactly data. */
static int file_holds(const char *path, const void *data, size_t n)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return 0;
    char *buf = malloc(n + 1);
    size_t got = fread(buf, 1, n + 1, fp);
    fclose(fp);
    int same = got == n && memcmp(buf, data, n) == 0;
    free(buf);
    return same;
}

/* Run sql on a separate raw connection (for what the API deliberately cannot do). */
static void raw_exec(const char *path, const char *sql)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", sql, msg);
    sqlite3_close(db);
}

/* The first column of the first row of sql on a raw connection, in a static buffer. */
static const char *raw_text(const char *path, const char *sql)
{
    static char buf[256];
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    snprintf(buf, sizeof buf, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return buf;
}

/* Query results collected as one string: "a|b\n1|2\n", NULL shown as "NULL". */
struct collect {
    char text[4096];
    size_t rows;
    size_t stop_after; /* 0: never stop */
};

static int collect_row(void *ctx, size_t ncols, const char *const *names, const char *const *values)
{
    struct collect *c = ctx;
    for (size_t i = 0; i < ncols; i++) {
        const char *v = values ? (values[i] ? values[i] : "NULL") : names[i];
        size_t len = strlen(c->text);
        snprintf(c->text + len, sizeof c->text - len, "%s%s", i ? "|" : "", v);
    }
    size_t len = strlen(c->text);
    snprintf(c->text + len, sizeof c->text - len, "\n");
    if (values)
        c->rows++;
    return c->stop_after && c->rows == c->stop_after;
}

static void query_ok(struct catalog *cat, const char *sql, struct collect *c)
{
    char err[512] = "";
    memset(c->text, 0, sizeof c->text);
    c->rows = 0;
    if (catalog_query(cat, sql, collect_row, c, err, sizeof err) != 0)
        fail_msg("catalog_query(%s): %s", sql, err);
}

static void query_fails(struct catalog *cat, const char *sql, const char *want)
{
    char err[512] = "";
    struct collect c = {.stop_after = 0};
    assert_int_equal(catalog_query(cat, sql, collect_row, &c, err, sizeof err), -1);
    if (!strstr(err, want))
        fail_msg("query %s: want \"%s\" in \"%s\"", sql, want, err);
    assert_int_equal(c.rows, 0);
}

static struct catalog_run sample_run(void)
{
    return (struct catalog_run){
        .run_path = "runs/a.h5",
        .scenario_name = "default",
        .scenario_path = "scenarios/default.cfg",
        .gpu = "hbm80",
        .mix = "stream+compute",
        .predictor = "hsm",
        .allocator = "fair",
        .seed = 42,
        .epochs = 20,
        .epoch_cycles = 50000,
        .metrics = {1.5, 1.4, 0.8, 0.6, true, 0.05, 0.12},
    };
}

static int64_t add_run_ok(struct catalog *cat, const struct catalog_run *r)
{
    char err[512] = "";
    int64_t id = 0;
    if (catalog_add_run(cat, r, &id, err, sizeof err) != 0)
        fail_msg("catalog_add_run: %s", err);
    return id;
}

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

static void test_accel_runs(void **state)
{
    struct fixture *f = *state;
    struct catalog *cat = open_ok(f->path);
    char err[512];
    int64_t ids[8] = {0};
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
    catalog_close(cat);
}

/* ---- queries ---- */

static void test_query_rows_and_names(void **state)
{
    struct fixture *f = *state;
    struct catalog *cat = open_ok(f->path);
    struct catalog_run r = sample_run();
    add_run_ok(cat, &r);
    r.predictor = NULL;
    r.metrics.has_are = false;
    add_run_ok(cat, &r);

    struct collect c = {.stop_after = 0};
    query_ok(cat,
             "  SELECT id, mix AS kernels, predictor, mean_are, epoch_cycles FROM runs "
             "ORDER BY id; -- a trailing comment\n",
             &c);
    assert_string_equal(c.text, "id|kernels|predictor|mean_are|epoch_cycles\n"
                                "1|stream+compute|hsm|0.05|50000\n"
                                "2|stream+compute|none|NULL|50000\n");
    assert_int_equal(c.rows, 2);
    /* Column names even when no row matches. */
    query_ok(cat, "SELECT gpu FROM runs WHERE id > 100", &c);
    assert_string_equal(c.text, "gpu\n");
    /* The callback may stop early. */
    c.stop_after = 1;
    query_ok(cat, "SELECT id FROM runs ORDER BY id", &c);
    assert_string_equal(c.text, "id\n1\n");
    catalog_close(cat);
}

static void test_query_refuses_writes(void **state)
{
    struct fixture *f = *state;
    struct catalog *cat = open_ok(f->path);
    struct catalog_run r = sample_run();
    add_run_ok(cat, &r);
    char want[512];
    snprintf(want, sizeof want,
             "catalog %s: refused a query that would change the catalog (queries only read): "
             "DELETE FROM runs",
             f->path);
    query_fails(cat, "DELETE FROM runs", want);
    query_fails(cat, "UPDATE runs SET seed = 0", "refused a query that would change");
    query_fails(cat, "INSERT INTO runs (id) VALUES (5)", "refused a query that would change");
    query_fails(cat, "DROP TABLE runs", "refused a query that would change");
    query_fails(cat, "PRAGMA user_version = 9", "refused a query that would change");
    query_fails(cat, "SELECT 1; DELETE FROM runs",
                "the query holds more than one statement; run one at a time: SELECT 1; DELETE");
    query_fails(cat, "  -- nothing\n", "the query is empty");

    struct collect c = {.stop_after = 0};
    query_ok(cat, "SELECT count(*), sum(seed) FROM runs", &c);
    assert_string_equal(c.text, "count(*)|sum(seed)\n1|42\n");
    query_ok(cat, "PRAGMA user_version", &c);
    assert_string_equal(c.text, "user_version\n2\n");
    catalog_close(cat);
}

static void test_query_syntax_error(void **state)
{
    struct fixture *f = *state;
    struct catalog *cat = open_ok(f->path);
    char want[512];
    snprintf(want, sizeof want,
             "catalog %s: query failed: near \"SELEC\": syntax error: SELEC * FROM runs", f->path);
    query_fails(cat, "SELEC * FROM runs", want);
    query_fails(cat, "SELECT * FROM nonesuch", "query failed: no such table: nonesuch: SELECT");
    catalog_close(cat);
}

/* ---- bad files ---- */

static void expect_open_error(const char *path, const char *want)
{
    char err[512] = "";
    struct catalog *cat = catalog_open(path, err, sizeof err);
    if (cat)
        catalog_close(cat);
    assert_null(cat);
    if (strcmp(err, want) != 0)
        fail_msg("open %s: want \"%s\", got \"%s\"", path, want, err);
}

static void test_not_a_database(void **state)
{
    struct fixture *f = *state;
    char path[256], want[512];

    unsigned char junk[4096];
    unsigned seed = 12345;
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (unsigned char)((seed = seed * 1103515245u + 12345u) >> 16);
    snprintf(path, sizeof path, "%s/random.db", f->dir);
    write_file(path, junk, sizeof junk);
    snprintf(want, sizeof want, "%s is not a corun catalog (not an SQLite database)", path);
    expect_open_error(path, want);
    assert_true(file_holds(path, junk, sizeof junk));

    const char *text = "name = \"not a catalog\";\n";
    snprintf(path, sizeof path, "%s/text.cfg", f->dir);
    write_file(path, text, strlen(text));
    snprintf(want, sizeof want, "%s is not a corun catalog (not an SQLite database)", path);
    expect_open_error(path, want);
    assert_true(file_holds(path, text, strlen(text)));

    /* An SQLite database of another program. */
    snprintf(path, sizeof path, "%s/other.db", f->dir);
    raw_exec(path, "CREATE TABLE notes (body TEXT)");
    snprintf(want, sizeof want,
             "%s is not a corun catalog (an SQLite database of another program); give another "
             "path with --catalog",
             path);
    expect_open_error(path, want);

    /* A directory. */
    snprintf(want, sizeof want, "catalog %s is a directory; give a file path with --catalog",
             f->dir);
    expect_open_error(f->dir, want);

    /* An empty file becomes a catalog. */
    snprintf(path, sizeof path, "%s/empty.db", f->dir);
    write_file(path, "", 0);
    catalog_close(open_ok(path));
}

static void test_newer_schema_refused(void **state)
{
    struct fixture *f = *state;
    catalog_close(open_ok(f->path));
    char sql[64], want[512], newer[16];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", CATALOG_SCHEMA_VERSION + 1);
    raw_exec(f->path, sql);
    snprintf(want, sizeof want,
             "catalog %s has schema version %d, newer than this corun's %d; use a newer corun or "
             "another --catalog",
             f->path, CATALOG_SCHEMA_VERSION + 1, CATALOG_SCHEMA_VERSION);
    expect_open_error(f->path, want);
    snprintf(newer, sizeof newer, "%d", CATALOG_SCHEMA_VERSION + 1);
    assert_string_equal(raw_text(f->path, "PRAGMA user_version"), newer); /* left alone */
}

/* Schema 1 keyed a sweep result by suite, mix, predictor, allocator and seed only, so a sweep
 * with other epochs, or a later corun, took an older result for its own. Opening a version-1
 * catalog keeps its results with an empty configuration, which no sweep's key matches. */
static void test_schema1_sweep_results_migrate(void **state)
{
    struct fixture *f = *state;
    catalog_close(open_ok(f->path));
    raw_exec(f->path,
             "DROP TABLE sweep_results; "
             "CREATE TABLE sweep_results (id INTEGER PRIMARY KEY, suite TEXT NOT NULL, mix TEXT "
             "NOT NULL, predictor TEXT NOT NULL, allocator TEXT NOT NULL, seed INTEGER NOT NULL, "
             "run_id INTEGER REFERENCES runs (id) ON DELETE SET NULL, mean_stp REAL, mean_antt "
             "REAL, mean_fairness REAL, min_fairness REAL, mean_are REAL, max_are REAL, "
             "created_utc TEXT NOT NULL, UNIQUE (suite, mix, predictor, allocator, seed)); "
             "INSERT INTO sweep_results (suite, mix, predictor, allocator, seed, mean_stp, "
             "created_utc) VALUES ('s', 'stream', 'none', 'even', 1, 1.5, 'then'); "
             "PRAGMA user_version = 1");
    struct catalog *cat = open_ok(f->path);
    char err[512];
    bool done = true;
    struct catalog_sweep_key key = {"s", "stream", NULL, "even", 1, "hbm80, 3 x 1000 cycles"};
    assert_int_equal(catalog_sweep_done(cat, &key, &done, err, sizeof err), 0);
    assert_false(done);
    struct catalog_metrics m = {.mean_stp = 1.25};
    assert_int_equal(catalog_put_sweep_result(cat, &key, 0, &m, NULL, err, sizeof err), 0);
    assert_int_equal(catalog_sweep_done(cat, &key, &done, err, sizeof err), 0);
    assert_true(done);
    catalog_close(cat);
    assert_string_equal(raw_text(f->path, "SELECT group_concat(config || '=' || mean_stp, ';') "
                                          "FROM (SELECT * FROM sweep_results ORDER BY id)"),
                        "=1.5;hbm80, 3 x 1000 cycles=1.25");
    char v[16];
    snprintf(v, sizeof v, "%d", CATALOG_SCHEMA_VERSION);
    assert_string_equal(raw_text(f->path, "PRAGMA user_version"), v);
}

/* A path given with --catalog names a directory that exists: none is made (issue 21, defect
 * 11, where `--catalog /x/y/c.db` made /x/y). Only the default place gets its directories. */
static void test_bad_directories(void **state)
{
    struct fixture *f = *state;
    char path[256], file[128], dir[160], want[512];
    snprintf(file, sizeof file, "%s/plain", f->dir);
    write_file(file, "x", 1);
    snprintf(path, sizeof path, "%s/plain/sub/catalog.db", f->dir);
    snprintf(want, sizeof want, "cannot create catalog %s: cannot write in directory %s/sub (%s)",
             path, file, strerror(ENOTDIR));
    expect_open_error(path, want);
    expect_open_error("", "the catalog path is empty; use --catalog PATH");
    snprintf(dir, sizeof dir, "%s/x/y", f->dir);
    snprintf(path, sizeof path, "%s/c.db", dir);
    snprintf(want, sizeof want, "cannot create catalog %s: cannot write in directory %s (%s)", path,
             dir, strerror(ENOENT));
    expect_open_error(path, want);
    struct stat st;
    snprintf(dir, sizeof dir, "%s/x", f->dir);
    assert_int_equal(stat(dir, &st), -1); /* nothing made */

    char *old_xdg = getenv("XDG_DATA_HOME") ? strdup(getenv("XDG_DATA_HOME")) : NULL;
    snprintf(dir, sizeof dir, "%s/xdg", f->dir);
    setenv("XDG_DATA_HOME", dir, 1);
    char err[512] = "";
    struct catalog *cat = catalog_open(NULL, err, sizeof err);
    if (!cat)
        fail_msg("catalog_open(NULL): %s", err);
    catalog_close(cat);
    snprintf(path, sizeof path, "%s/corun/catalog.db", dir);
    assert_int_equal(stat(path, &st), 0);
    snprintf(dir, sizeof dir, "%s", file); /* a file where a directory should be */
    setenv("XDG_DATA_HOME", dir, 1);
    snprintf(want, sizeof want, "is not a directory");
    cat = catalog_open(NULL, err, sizeof err);
    assert_null(cat);
    assert_non_null(strstr(err, want));
    if (old_xdg)
        setenv("XDG_DATA_HOME", old_xdg, 1);
    else
        unsetenv("XDG_DATA_HOME");
    free(old_xdg);
}

/* A read-only file can be read (list, query) but not written, with a message saying why. */
static void test_read_only_file(void **state)
{
    struct fixture *f = *state;
    if (geteuid() == 0)
        skip(); /* root ignores file permissions */
    struct catalog *cat = open_ok(f->path);
    struct catalog_run r = sample_run();
    add_run_ok(cat, &r);
    catalog_close(cat);
    assert_int_equal(chmod(f->path, 0444), 0);

    cat = open_ok(f->path);
    struct collect c = {.stop_after = 0};
    query_ok(cat, "SELECT count(*) FROM runs", &c);
    assert_string_equal(c.text, "count(*)\n1\n");
    char err[512], want[512];
    assert_int_equal(catalog_add_run(cat, &r, NULL, err, sizeof err), -1);
    snprintf(want, sizeof want, "catalog %s is read-only", f->path);
    if (strncmp(err, want, strlen(want)) != 0 || !strstr(err, "adding a run"))
        fail_msg("read-only add: got \"%s\"", err);
    catalog_close(cat);
}

/* ---- two writers ---- */

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* In a child: run sql (which opens a transaction), tell the parent through ready, commit after
 * hold_ms. */
static void child_holds_lock(const char *path, int ready, long hold_ms, const char *sql)
{
    sqlite3 *db;
    int ok = sqlite3_open(path, &db) == SQLITE_OK &&
             sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK;
    char byte = ok ? 'y' : 'n';
    ok = write(ready, &byte, 1) == 1 && ok;
    sleep_ms(hold_ms);
    ok = ok && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK;
    sqlite3_close(db);
    _exit(ok ? 0 : 1);
}

/* Forks a child that runs sql on path and holds its transaction for hold_ms; returns once
 * the transaction is open. */
static pid_t fork_lock_holder(const char *path, long hold_ms, const char *sql)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        child_holds_lock(path, fds[1], hold_ms, sql);
    }
    close(fds[1]);
    char byte = 0;
    assert_int_equal(read(fds[0], &byte, 1), 1);
    close(fds[0]);
    assert_int_equal(byte, 'y');
    return pid;
}

/* Waits for fork_lock_holder's child, which must have committed and exited cleanly. */
static void join_lock_holder(pid_t pid)
{
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A writer that finds another process's transaction waits for its commit, then succeeds. */
static void test_concurrent_writer_waits(void **state)
{
    struct fixture *f = *state;
    catalog_close(open_ok(f->path)); /* the schema, for the child */
    pid_t pid = fork_lock_holder(f->path, 300,
                                 "BEGIN IMMEDIATE; INSERT INTO runs (scenario_name, gpu, mix, "
                                 "allocator, seed, epochs, epoch_cycles, created_utc, "
                                 "corun_version) VALUES ('child', 'hbm80', 'stream', 'even', 1, "
                                 "1, 1, 'now', 'test')");

    struct catalog *cat = open_ok(f->path); /* opening does not need the write lock */
    struct catalog_run r = sample_run();
    int64_t id = add_run_ok(cat, &r); /* blocks until the child commits */
    join_lock_holder(pid);
    /* The child's run went in first, ours after its commit. */
    struct collect c = {.stop_after = 0};
    query_ok(cat, "SELECT id, scenario_name FROM runs ORDER BY id", &c);
    assert_string_equal(c.text, "id|scenario_name\n1|child\n2|default\n");
    assert_int_equal(id, 2);
    catalog_close(cat);
}

/* A process that finds another's write transaction on a catalog still in rollback mode (two
 * processes opening a new catalog at once) is refused its switch to WAL at once, without the
 * busy timeout; it reads the mode again and retries until the other commits. */
static void test_open_waits_for_the_wal_switch(void **state)
{
    struct fixture *f = *state;
    pid_t pid = fork_lock_holder(f->path, 300, "BEGIN IMMEDIATE");

    struct catalog *cat = open_ok(f->path); /* not "locked ... while switching to WAL mode" */
    assert_string_equal(raw_text(f->path, "PRAGMA journal_mode"), "wal");
    join_lock_holder(pid);
    catalog_close(cat);
}

/* With a short busy timeout the writer gives up with the "locked" message; it succeeds once
 * the other connection commits. */
static void test_locked_message(void **state)
{
    struct fixture *f = *state;
    struct catalog *cat = open_ok(f->path);
    catalog_set_busy_timeout(cat, 200);
    sqlite3 *other;
    assert_int_equal(sqlite3_open(f->path, &other), SQLITE_OK);
    assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);

    char err[512], want[512];
    struct catalog_run r = sample_run();
    assert_int_equal(catalog_add_run(cat, &r, NULL, err, sizeof err), -1);
    snprintf(want, sizeof want,
             "catalog %s is locked by another process (waited 0.2 s) while adding a run; try "
             "again or use --catalog",
             f->path);
    assert_string_equal(err, want);
    struct catalog_sweep_key key = {"s", "stream", NULL, "even", 1, "c"};
    struct catalog_metrics m = {1, 1, 1, 1, false, 0, 0};
    assert_int_equal(catalog_put_sweep_result(cat, &key, 0, &m, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "is locked by another process (waited 0.2 s) while storing a "
                                "sweep result"));
    /* Readers are not blocked by a writer (WAL). */
    struct collect c = {.stop_after = 0};
    query_ok(cat, "SELECT count(*) FROM runs", &c);
    assert_string_equal(c.text, "count(*)\n0\n");
    bool done;
    assert_int_equal(catalog_sweep_done(cat, &key, &done, err, sizeof err), 0);

    assert_int_equal(sqlite3_exec(other, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(other);
    add_run_ok(cat, &r);
    catalog_close(cat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_schema_create_and_reopen, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kernel_column_added_on_open, setup, teardown),
        cmocka_unit_test(test_default_path),
        cmocka_unit_test_setup_teardown(test_runs_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_solo_trace_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kernels_and_measurements, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sweep_idempotent, setup, teardown),
        cmocka_unit_test_setup_teardown(test_query_rows_and_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_query_refuses_writes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_query_syntax_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_a_database, setup, teardown),
        cmocka_unit_test_setup_teardown(test_results_by_key, setup, teardown),
        cmocka_unit_test_setup_teardown(test_accel_runs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_newer_schema_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_schema1_sweep_results_migrate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_directories, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_only_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_writer_waits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_waits_for_the_wal_switch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_locked_message, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
