/* Unit tests: accelerator run files (accel_runfile) — a record written and read back field by
 * field, a real run's task table (accel_run with record_tasks) through the file, and the files
 * a reader refuses: an existing path, a truncated copy, a spatial run file, a newer version, a
 * task kind no writer makes; a record as CSV files; a write that fails (the file cannot grow). */
#include <hdf5.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "corun/accel_run.h"
#include "corun/accel_runfile.h"
#include "corun/accel_scenario.h"
#include "corun/catalog.h"
#include "corun/util.h"
#include "testutil.h"

static char dir[] = "/tmp/corun-accel-rf-XXXXXX";

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char *cmd = xasprintf("rm -rf '%s'", dir);
    int rc = system(cmd);
    free(cmd);
    return rc;
}

static char *path_of(const char *name)
{
    return xasprintf("%s/%s", dir, name);
}

/* A record with two applications, three queries and two tasks, every value distinct. */
static void sample(struct accel_record *r, int kind)
{
    memset(r, 0, sizeof(*r));
    r->scenario_text = xstrdup("mode = \"accelerator\";\n");
    r->scenario_path = xstrdup("x.cfg");
    r->scenario_name = xstrdup("two apps");
    r->gpu_preset = xstrdup("k40");
    r->predictor = xstrdup("prophet");
    r->seed = 7;
    r->sms = 15;
    r->core_clock_mhz = 745;
    r->complete = 1;
    r->cycles = 123456;
    r->solo_cycles = 2345;
    r->profile_cycles = 3456;
    r->tasks_done = 2;
    r->sim_ms = 0.165;
    r->gpu_util = 0.25;
    r->h2d_busy = 0.5;
    r->d2h_busy = 0.125;
    r->napps = 2;
    r->app[0] = (struct accel_app_rec){.name = xstrdup("gmm"),
                                       .role = ACCEL_LS,
                                       .instances = 1,
                                       .queries = 2,
                                       .qos_target = 1.5,
                                       .p50_ms = 0.1,
                                       .p99_ms = 0.2,
                                       .mean_ms = 0.15,
                                       .solo_p50_ms = 0.05,
                                       .solo_p99_ms = 0.06,
                                       .solo_mean_ms = 0.055,
                                       .qos_met = 0,
                                       .pred_p50_ms = 0.11,
                                       .pred_p99_ms = 0.21,
                                       .pred_mean_ms = 0.16,
                                       .pred_solo_ms = 0.052,
                                       .pred_error = 0.05,
                                       .pred_qos_met = 1};
    r->app[1] = (struct accel_app_rec){.name = xstrdup("md"),
                                       .role = ACCEL_BATCH,
                                       .instances = 3,
                                       .passes = 9,
                                       .pred_p50_ms = NAN,
                                       .pred_p99_ms = NAN,
                                       .pred_mean_ms = NAN,
                                       .pred_solo_ms = NAN,
                                       .pred_error = NAN};
    r->nqueries = 3;
    r->queries = xcalloc(3, sizeof(*r->queries));
    r->queries[0] = (struct accel_query_rec){0, 0, 0.1, 0.11};
    r->queries[1] = (struct accel_query_rec){0, 1, 0.2, 0.21};
    r->queries[2] = (struct accel_query_rec){0, 2, NAN, 0.3}; /* not completed */
    r->ntasks = 2;
    r->tasks = xcalloc(2, sizeof(*r->tasks));
    r->tasks[0] = (struct accel_task_rec){.app = 0,
                                          .proc = 0,
                                          .pass = 1,
                                          .task = 0,
                                          .kind = ACCEL_H2D,
                                          .exclusive = 1,
                                          .bytes = 4096,
                                          .issued_ns = 10,
                                          .start_ns = 10,
                                          .end_ns = 20.5,
                                          .sms = NAN,
                                          .link_share = 0.75};
    r->tasks[1] = (struct accel_task_rec){.app = 1,
                                          .proc = 3,
                                          .pass = 4,
                                          .task = 2,
                                          .kind = kind,
                                          .issued_ns = 30,
                                          .start_ns = 40,
                                          .end_ns = 90,
                                          .sms = 12.5,
                                          .link_share = NAN};
}

static bool same(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

static void test_round_trip(void **state)
{
    (void)state;
    struct accel_record w, r;
    sample(&w, ACCEL_KERNEL);
    char *path = path_of("rt.h5");
    char err[512];
    if (accel_runfile_write(path, &w, err, sizeof err) != 0)
        fail_msg("write: %s", err);
    assert_int_equal(accel_runfile_probe(path), 1);
    if (accel_runfile_read(path, &r, err, sizeof err) != 0)
        fail_msg("read: %s", err);
    assert_int_equal(r.version, ACCEL_RUNFILE_VERSION);
    assert_string_equal(r.scenario_text, w.scenario_text);
    assert_string_equal(r.scenario_name, "two apps");
    assert_string_equal(r.gpu_preset, "k40");
    assert_string_equal(r.predictor, "prophet");
    assert_non_null(r.created);
    assert_non_null(r.corun_version);
    assert_true(r.seed == 7 && r.sms == 15 && r.core_clock_mhz == 745 && r.complete == 1);
    assert_true(r.cycles == 123456 && r.solo_cycles == 2345 && r.profile_cycles == 3456);
    assert_true(r.sim_ms == 0.165 && r.gpu_util == 0.25 && r.h2d_busy == 0.5);
    assert_true(r.d2h_busy == 0.125 && r.tasks_done == 2);
    assert_int_equal(r.napps, 2);
    for (unsigned a = 0; a < 2; a++) {
        const struct accel_app_rec *x = &r.app[a], *y = &w.app[a];
        assert_string_equal(x->name, y->name);
        assert_true(x->role == y->role && x->instances == y->instances);
        assert_true(x->queries == y->queries && x->passes == y->passes);
        assert_true(x->qos_met == y->qos_met && x->pred_qos_met == y->pred_qos_met);
        const double u[] = {x->qos_target,  x->p50_ms,       x->p99_ms,       x->mean_ms,
                            x->solo_p50_ms, x->solo_p99_ms,  x->solo_mean_ms, x->pred_p50_ms,
                            x->pred_p99_ms, x->pred_mean_ms, x->pred_solo_ms, x->pred_error};
        const double v[] = {y->qos_target,  y->p50_ms,       y->p99_ms,       y->mean_ms,
                            y->solo_p50_ms, y->solo_p99_ms,  y->solo_mean_ms, y->pred_p50_ms,
                            y->pred_p99_ms, y->pred_mean_ms, y->pred_solo_ms, y->pred_error};
        for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
            assert_true(same(u[i], v[i]));
    }
    assert_int_equal(r.nqueries, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_true(r.queries[i].app == w.queries[i].app);
        assert_true(r.queries[i].query == w.queries[i].query);
        assert_true(same(r.queries[i].latency_ms, w.queries[i].latency_ms));
        assert_true(same(r.queries[i].predicted_ms, w.queries[i].predicted_ms));
    }
    assert_int_equal(r.ntasks, 2);
    for (size_t i = 0; i < 2; i++) {
        const struct accel_task_rec *x = &r.tasks[i], *y = &w.tasks[i];
        assert_true(x->app == y->app && x->proc == y->proc && x->pass == y->pass);
        assert_true(x->task == y->task && x->kind == y->kind && x->exclusive == y->exclusive);
        assert_true(x->bytes == y->bytes && x->issued_ns == y->issued_ns);
        assert_true(x->start_ns == y->start_ns && x->end_ns == y->end_ns);
        assert_true(same(x->sms, y->sms) && same(x->link_share, y->link_share));
    }
    /* A run file is never overwritten. */
    assert_int_equal(accel_runfile_write(path, &w, err, sizeof err), -1);
    assert_non_null(strstr(err, "already exists"));
    /* A directory is named as one; one that does not exist, with the system's reason (it was
     * "unknown HDF5 error"). */
    assert_int_equal(accel_runfile_write("/tmp", &w, err, sizeof err), -1);
    assert_string_equal(err, "/tmp: is a directory (expected the name of a new run file)");
    assert_int_equal(accel_runfile_write("/nonexistent-corun/x.h5", &w, err, sizeof err), -1);
    assert_string_equal(err, "/nonexistent-corun/x.h5: cannot create: No such file or directory");
    accel_record_done(&r);
    accel_record_done(&w);
    free(path);
}

/* A file that cannot grow (a file-size limit; a full disk is the same to the writer): the
 * write is refused with the first failed write's reason and leaves no file behind, at every
 * size it may stop at; and HDF5 is left able to write the next file and to exit (its exit
 * handler crashed on a file whose flush had failed). */
static void test_write_fails(void **state)
{
    (void)state;
    struct accel_record w;
    sample(&w, ACCEL_KERNEL);
    char err[512];
    char *path = path_of("full.h5");
    struct rlimit was;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &was), 0);
    signal(SIGXFSZ, SIG_IGN);
    for (rlim_t limit = 0; limit <= 12288; limit += 2048) {
        struct rlimit lim = {limit, was.rlim_max};
        fflush(stdout);
        fflush(stderr);
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
        int rc = accel_runfile_write(path, &w, err, sizeof err);
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &was), 0);
        assert_int_equal(rc, -1);
        if (!strstr(err, ": cannot write: File too large") &&
            !strstr(err, ": cannot create: File too large"))
            fail_msg("at %lu bytes: %s", (unsigned long)limit, err);
        struct stat st;
        assert_int_not_equal(stat(path, &st), 0);
        char *partial = xasprintf("%s.partial-%ld-0", path, (long)getpid());
        assert_int_not_equal(stat(partial, &st), 0);
        free(partial);
    }
    if (accel_runfile_write(path, &w, err, sizeof err) != 0)
        fail_msg("after the limit: %s", err);
    struct accel_record r;
    if (accel_runfile_read(path, &r, err, sizeof err) != 0)
        fail_msg("read: %s", err);
    assert_int_equal(r.ntasks, w.ntasks);
    accel_record_done(&r);
    accel_record_done(&w);
    free(path);
}

/* Tables of one row each (one application alone, one query, one task) are written too. */
static void test_one_row_tables(void **state)
{
    (void)state;
    struct accel_record w, r;
    sample(&w, ACCEL_KERNEL);
    free(w.app[1].name);
    w.app[1].name = NULL;
    w.napps = w.nqueries = w.ntasks = 1;
    char *path = path_of("one.h5");
    char err[512];
    if (accel_runfile_write(path, &w, err, sizeof err) != 0)
        fail_msg("write: %s", err);
    if (accel_runfile_read(path, &r, err, sizeof err) != 0)
        fail_msg("read: %s", err);
    assert_int_equal(r.napps, 1);
    assert_string_equal(r.app[0].name, "gmm");
    assert_true(r.app[0].queries == 2 && r.app[0].p99_ms == 0.2);
    assert_int_equal(r.nqueries, 1);
    assert_true(r.queries[0].latency_ms == 0.1 && r.queries[0].predicted_ms == 0.11);
    assert_int_equal(r.ntasks, 1);
    assert_true(r.tasks[0].bytes == 4096 && r.tasks[0].end_ns == 20.5);
    assert_true(r.tasks[0].link_share == 0.75 && r.tasks[0].exclusive == 1);
    accel_record_done(&r);
    accel_record_done(&w);
    free(path);
}

/* A real run's table: every task of a closed-loop LS application and a batch one, with times
 * that follow one another within a process, and the summary accel_run gave. */
static void test_run_through_file(void **state)
{
    (void)state;
    struct accel_scenario sc;
    test_accel_load(&sc, test_accel_copies_cfg);
    struct accel_run_options o = {.record_tasks = true};
    struct accel_result res;
    char err[512];
    if (accel_run(&sc, &o, &res, err, sizeof err))
        fail_msg("accel_run: %s", err);
    assert_int_equal(res.ntasks, res.tasks_done);
    struct accel_record w, r;
    accel_result_to_record(&sc, &res, true, &w);
    char *path = path_of("run.h5");
    if (accel_runfile_write(path, &w, err, sizeof err) != 0)
        fail_msg("write: %s", err);
    if (accel_runfile_read(path, &r, err, sizeof err) != 0)
        fail_msg("read: %s", err);
    assert_string_equal(r.predictor, "none");
    assert_true(isnan(r.app[0].pred_p99_ms));
    assert_true(r.app[0].p99_ms == res.app[0].p99_ms);
    assert_int_equal(r.nqueries, 2);
    /* By hand (test_accel_run's copies_by_hand): query 1 ends at 4000 ns, query 2 at 6333.3. */
    assert_true(fabs(r.queries[0].latency_ms - 0.004) < 1e-9);
    assert_true(fabs(r.queries[1].latency_ms - 0.0023333) < 1e-7);
    unsigned ls = 0;
    for (size_t i = 0; i < r.ntasks; i++) {
        const struct accel_task_rec *t = &r.tasks[i];
        if (t->app != 0)
            continue;
        /* the LS tasks: h2d then d2h of query 0, then of query 1 */
        assert_int_equal(t->pass, ls / 2);
        assert_int_equal(t->kind, ls % 2 ? ACCEL_D2H : ACCEL_H2D);
        assert_int_equal(t->bytes, 6000);
        ls++;
    }
    assert_int_equal(ls, 4);
    /* query 1's h2d waits for the batch's exclusive copy: issued at 0, done at 2000 ns, so
     * 6000 B in 2000 ns = 3 GB/s, half the 6 GB/s a sharing copy reaches alone */
    assert_true(r.tasks[1].app == 0 || r.tasks[0].app == 0);
    for (size_t i = 0; i < r.ntasks; i++)
        if (r.tasks[i].app == 0 && r.tasks[i].pass == 0 && r.tasks[i].kind == ACCEL_H2D) {
            assert_true(fabs(r.tasks[i].end_ns - 2000) < 1e-6);
            assert_true(fabs(r.tasks[i].link_share - 0.5) < 1e-9);
        }
    accel_record_done(&r);
    accel_record_done(&w);
    accel_result_done(&res);
    accel_scenario_done(&sc);
    free(path);
}

static void expect_refused(const char *path, const char *what)
{
    struct accel_record r;
    char err[512] = "";
    assert_int_equal(accel_runfile_read(path, &r, err, sizeof err), -1);
    if (!strstr(err, what))
        fail_msg("expected '%s' in: %s", what, err);
    assert_non_null(strstr(err, path));
}

/* A latency-sensitive application starved behind bandwidth-exclusive copies: its queries never
 * complete and their latencies are +inf, as the run prints them; the file reads back so (it
 * was refused as damaged), while -inf is still refused. */
static void test_starved_latencies(void **state)
{
    (void)state;
    struct accel_record w, r;
    sample(&w, ACCEL_KERNEL);
    struct accel_app_rec *x = &w.app[0];
    x->p50_ms = x->p99_ms = x->mean_ms = x->pred_p99_ms = x->pred_error = INFINITY;
    w.queries[1].latency_ms = w.queries[1].predicted_ms = INFINITY;
    char *path = path_of("starved.h5"), err[512];
    if (accel_runfile_write(path, &w, err, sizeof err) != 0)
        fail_msg("write: %s", err);
    if (accel_runfile_read(path, &r, err, sizeof err) != 0)
        fail_msg("read: %s", err);
    assert_true(isinf(r.app[0].p50_ms) && isinf(r.app[0].p99_ms) && isinf(r.app[0].mean_ms));
    assert_true(isinf(r.app[0].pred_p99_ms) && isinf(r.app[0].pred_error));
    assert_true(isinf(r.queries[1].latency_ms) && isinf(r.queries[1].predicted_ms));
    accel_record_done(&r);
    unlink(path);
    x->p50_ms = -INFINITY;
    if (accel_runfile_write(path, &w, err, sizeof err) != 0)
        fail_msg("write: %s", err);
    expect_refused(path, "/applications/p50_ms[0] is -inf");
    unlink(path);
    accel_record_done(&w);
    free(path);
}

static void test_refused(void **state)
{
    (void)state;
    struct accel_record w;
    char err[512];
    /* a task kind no writer makes */
    sample(&w, 7);
    char *bad = path_of("kind.h5");
    if (accel_runfile_write(bad, &w, err, sizeof err) != 0)
        fail_msg("write: %s", err);
    expect_refused(bad, "/tasks/kind[1] is 7");
    accel_record_done(&w);
    /* truncated: the first half of a good file */
    sample(&w, ACCEL_KERNEL);
    char *good = path_of("good.h5"), *cut = path_of("cut.h5");
    if (accel_runfile_write(good, &w, err, sizeof err) != 0)
        fail_msg("write: %s", err);
    FILE *in = fopen(good, "rb"), *out = fopen(cut, "wb");
    assert_non_null(in);
    assert_non_null(out);
    fseek(in, 0, SEEK_END);
    long size = ftell(in);
    fseek(in, 0, SEEK_SET);
    char *buf = xmalloc((size_t)size);
    assert_int_equal(fread(buf, 1, (size_t)size, in), (size_t)size);
    fwrite(buf, 1, (size_t)size / 2, out);
    fclose(in);
    fclose(out);
    free(buf);
    expect_refused(cut, "truncated");
    assert_int_equal(accel_runfile_probe(cut), 0);
    /* missing */
    char *missing = path_of("none.h5");
    expect_refused(missing, "No such file");
    /* a column shorter than the table's first: both named, with their rows */
    char *shorter = path_of("short.h5");
    if (accel_runfile_write(shorter, &w, err, sizeof err) != 0)
        fail_msg("write: %s", err);
    hid_t f = H5Fopen(shorter, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t ds = H5Dopen2(f, "/tasks/proc", H5P_DEFAULT);
    hid_t space = H5Dget_space(ds);
    hsize_t rows = 0;
    assert_int_equal(H5Sget_simple_extent_dims(space, &rows, NULL), 1);
    H5Sclose(space);
    assert_true(rows > 1);
    hsize_t fewer = rows - 1;
    assert_true(H5Dset_extent(ds, &fewer) >= 0);
    H5Dclose(ds);
    H5Fclose(f);
    char *want = xasprintf("/tasks/proc has %llu rows, /tasks/app %llu", (unsigned long long)fewer,
                           (unsigned long long)rows);
    expect_refused(shorter, want);
    free(want);
    free(shorter);
    /* a newer version */
    f = H5Fopen(good, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t a = H5Aopen(f, "accel_schema_version", H5P_DEFAULT);
    unsigned v = ACCEL_RUNFILE_VERSION + 1;
    assert_true(H5Awrite(a, H5T_NATIVE_UINT, &v) >= 0);
    H5Aclose(a);
    H5Fclose(f);
    expect_refused(good, "is newer than this corun reads");
    /* another HDF5 file: no accel_schema_version */
    char *other = path_of("other.h5");
    f = H5Fcreate(other, H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    H5Fclose(f);
    expect_refused(other, "not a corun accelerator run file");
    assert_int_equal(accel_runfile_probe(other), 0);
    accel_record_done(&w);
    free(bad);
    free(good);
    free(cut);
    free(missing);
    free(other);
}

/* The text of folder/name (heap). */
static char *file_text(const char *folder, const char *name)
{
    char *path = xasprintf("%s/%s", folder, name);
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("%s: cannot open", path);
    char *text = xcalloc(1, 65536);
    size_t n = fread(text, 1, 65535, f);
    fclose(f);
    text[n] = '\0';
    free(path);
    return text;
}

static void expect_file(const char *folder, const char *name, const char *want)
{
    char *text = file_text(folder, name);
    assert_string_equal(text, want);
    free(text);
}

/* An accelerator record as CSV files: a row per entry with the application's name first,
 * units in the header row, NaN as nan, a name with a comma quoted, every number as it reads
 * back; a directory it cannot write is refused with a message naming the file. */
static void test_export_csv(void **state)
{
    (void)state;
    struct accel_record r;
    sample(&r, ACCEL_KERNEL);
    free(r.scenario_name);
    r.scenario_name = xstrdup("two apps, one GPU");
    char *out = path_of("csv");
    char err[512];
    if (accel_runfile_export_csv(&r, "no-such.h5", out, true, err, sizeof err) != 0)
        fail_msg("export: %s", err);
    char *text = file_text(out, "run.csv");
    assert_non_null(strstr(text, "accel_schema_version,corun_version,created,scenario_path,"
                                 "scenario_name,gpu_preset,predictor,seed,sms [SMs],"
                                 "core_clock_mhz [MHz],complete,cycles [cycles],"));
    assert_null(strstr(text, "scenario_text"));
    assert_non_null(strstr(text, ",x.cfg,\"two apps, one GPU\",k40,prophet,7,15,745,1,123456,"
                                 "0.165,2345,3456,2,0.25,0.5,0.125,2\n"));
    free(text);
    expect_file(out, "applications.csv",
                "app,name,role,instances [processes],queries [queries],qos_target,p50_ms [ms],"
                "p99_ms [ms],mean_ms [ms],solo_p50_ms [ms],solo_p99_ms [ms],solo_mean_ms [ms],"
                "qos_met,passes [passes],pred_p50_ms [ms],pred_p99_ms [ms],pred_mean_ms [ms],"
                "pred_solo_ms [ms],pred_error,pred_qos_met\n"
                "0,gmm,0,1,2,1.5,0.1,0.2,0.15,0.05,0.06,0.055,0,0,0.11,0.21,0.16,0.052,0.05,1\n"
                "1,md,1,3,0,0,0,0,0,0,0,0,0,9,nan,nan,nan,nan,nan,0\n");
    expect_file(out, "queries.csv",
                "application,app,query,latency_ms [ms],predicted_ms [ms]\n"
                "gmm,0,0,0.1,0.11\ngmm,0,1,0.2,0.21\ngmm,0,2,nan,0.3\n");
    expect_file(out, "tasks.csv",
                "application,app,proc,pass,task,kind,exclusive,bytes [bytes],"
                "issued_ns [ns],start_ns [ns],end_ns [ns],sms [SMs],link_share\n"
                "gmm,0,0,1,0,0,1,4096,10,10,20.5,nan,0.75\n"
                "md,1,3,4,2,1,0,0,30,40,90,12.5,nan\n");
    /* A file of the directory that is not a regular file: refused, named. */
    char *p = xasprintf("%s/tasks.csv", out);
    unlink(p);
    assert_int_equal(symlink("/dev/null", p), 0);
    assert_int_equal(accel_runfile_export_csv(&r, "no-such.h5", out, true, err, sizeof err), -2);
    assert_non_null(strstr(err, "tasks.csv: exists and is not a regular file"));
    free(p);
    free(out);
    accel_record_done(&r);
}

/* docs/runfile.md holds the layout exactly as the tables print it. */
static void test_docs_match_tables(void **state)
{
    (void)state;
    test_doc_matches("docs/runfile.md", "<!-- accel layout: begin -->\n",
                     "<!-- accel layout: end -->", accel_runfile_print_layout,
                     "tests/runfile_writer accel-layout");
}

/* Appends a query's rows (not its names) to the string ctx, values joined by '|', rows by
 * newlines. */
static int rows_text(void *ctx, size_t ncols, const char *const *names, const char *const *values)
{
    (void)names;
    char *out = ctx;
    if (!values)
        return 0;
    for (size_t i = 0; i < ncols; i++)
        snprintf(out + strlen(out), 512 - strlen(out), "%s%s", i ? "|" : "",
                 values[i] ? values[i] : "NULL");
    snprintf(out + strlen(out), 512 - strlen(out), "\n");
    return 0;
}

/* A run added to the catalog: the run's row (complete, its name, GPU and predictor) and one
 * row per application, the first included, with its role. */
static void test_catalog_row(void **state)
{
    (void)state;
    struct accel_record r;
    sample(&r, 0);
    char *cpath = path_of("c.db"), err[512];
    int64_t id = 0;
    if (accel_record_catalog(&r, "/tmp/x.h5", cpath, &id, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_true(id > 0);
    struct catalog *cat = catalog_open(cpath, err, sizeof err);
    assert_non_null(cat);
    char text[512] = "";
    assert_int_equal(catalog_query(cat,
                                   "SELECT complete, scenario_name, gpu, predictor, run_path "
                                   "FROM accel_runs",
                                   rows_text, text, err, sizeof err),
                     0);
    assert_string_equal(text, "1|two apps|k40|prophet|/tmp/x.h5\n");
    text[0] = '\0';
    assert_int_equal(catalog_query(cat, "SELECT app, name, role FROM accel_run_apps ORDER BY app",
                                   rows_text, text, err, sizeof err),
                     0);
    char want[256];
    snprintf(want, sizeof want, "0|%s|ls\n1|%s|batch\n", r.app[0].name, r.app[1].name);
    assert_string_equal(text, want);
    catalog_close(cat);
    accel_record_done(&r);
    free(cpath);
}

/* A run read from its file (`corun runs add`): the row has the time and the corun version the
 * file recorded, as a spatial run's does; it had the time of the add and this build's. */
static void test_catalog_row_keeps_the_files_time(void **state)
{
    (void)state;
    struct accel_record r;
    sample(&r, 0);
    r.created = xstrdup("2026-01-02T03:04:05Z");
    r.corun_version = xstrdup("0.0.1");
    char *cpath = path_of("c-add.db"), err[512];
    int64_t id = 0;
    if (accel_record_catalog(&r, "/tmp/x.h5", cpath, &id, err, sizeof err) != 0)
        fail_msg("%s", err);
    struct catalog *cat = catalog_open(cpath, err, sizeof err);
    assert_non_null(cat);
    char text[512] = "";
    assert_int_equal(catalog_query(cat, "SELECT created_utc, corun_version FROM accel_runs",
                                   rows_text, text, err, sizeof err),
                     0);
    assert_string_equal(text, "2026-01-02T03:04:05Z|0.0.1\n");
    catalog_close(cat);
    accel_record_done(&r);
    free(cpath);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_starved_latencies),
        cmocka_unit_test(test_one_row_tables),
        cmocka_unit_test(test_run_through_file),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_export_csv),
        cmocka_unit_test(test_docs_match_tables),
        cmocka_unit_test(test_catalog_row),
        cmocka_unit_test(test_write_fails),
        cmocka_unit_test(test_catalog_row_keeps_the_files_time),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
