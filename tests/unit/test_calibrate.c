/* Unit tests: calibrate — classification rules, targets in the profiles, short runs judged
 * against them, and the scaling of a kernel slower than an instruction a cycle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "assert_close.h"

#include "corun/calibrate.h"
#include "corun/catalog.h"
#include "corun/datadir.h"
#include "corun/gpu.h"
#include "corun/kernel.h"
#include "testutil.h"

static void classify_follows_scaling_then_bandwidth(void **state)
{
    (void)state;
    assert_int_equal(calibrate_classify(0.5, 80), KERNEL_CLASS_MEMORY);
    assert_int_equal(calibrate_classify(0.84, 5), KERNEL_CLASS_MEMORY);
    assert_int_equal(calibrate_classify(1.0, 30), KERNEL_CLASS_BALANCED);
    assert_int_equal(calibrate_classify(0.99, 3), KERNEL_CLASS_COMPUTE);
}

static void two_class_papers_ignore_balanced(void **state)
{
    (void)state;
    struct kernel_profile p = {.paper = KERNEL_PAPER_HSM, .target_class = KERNEL_CLASS_COMPUTE};
    assert_true(calibrate_class_matches(&p, KERNEL_CLASS_BALANCED));
    assert_false(calibrate_class_matches(&p, KERNEL_CLASS_MEMORY));
    p.paper = KERNEL_PAPER_THEMIS;
    assert_false(calibrate_class_matches(&p, KERNEL_CLASS_BALANCED));
    p.target_class = KERNEL_CLASS_NONE;
    assert_true(calibrate_class_matches(&p, KERNEL_CLASS_MEMORY));
}

static void profiles_carry_their_targets(void **state)
{
    (void)state;
    char *datadir = datadir_locate();
    struct diag d;
    diag_init(&d);
    struct kernel_profile p;
    assert_int_equal(preset_kernel_load(datadir, "pvc", &p, &d), 0);
    assert_int_equal(p.paper, KERNEL_PAPER_HSM);
    assert_int_equal(p.target_class, KERNEL_CLASS_MEMORY);
    assert_true(p.target_mpki > 4.7 && p.target_mpki < 4.8);
    assert_string_equal(calibrate_target_gpu(&p), "hbm80");
    kernel_profile_done(&p);
    assert_int_equal(preset_kernel_load(datadir, "kmeans", &p, &d), 0);
    assert_int_equal(p.split, KERNEL_SPLIT_TEST);
    assert_string_equal(calibrate_target_gpu(&p), "themis60");
    kernel_profile_done(&p);
    assert_int_equal(preset_kernel_load(datadir, "stream", &p, &d), 0); /* built-in */
    assert_null(calibrate_target_gpu(&p));
    kernel_profile_done(&p);
    assert_int_equal(d.count, 0);
    diag_done(&d);
    free(datadir);
}

static void short_run_measures_and_judges(void **state)
{
    (void)state;
    char *datadir = datadir_locate();
    struct diag d;
    diag_init(&d);
    struct calib_report r;
    const char *only[] = {"pvc", "bino"};
    assert_int_equal(calibrate_run(datadir, "hbm80", 20000, only, 2, NULL, NULL, &r, &d), 0);
    assert_int_equal(r.count, 2);
    assert_int_equal(r.failures, 0);
    assert_int_equal(r.rows[0].m.measured_class, KERNEL_CLASS_MEMORY);
    assert_int_equal(r.rows[1].m.measured_class, KERNEL_CLASS_COMPUTE);
    assert_true(r.rows[0].m.mpki_thread > 3.5 && r.rows[0].m.mpki_thread < 6);
    /* bino's published MPKI is below 1: it is judged as well, its error relative to it. */
    const struct calib_row *b = &r.rows[1];
    assert_true(b->target_mpki > 0 && b->target_mpki < 1);
    assert_true(b->mpki_error != 0);
    assert_close(b->mpki_error, (b->m.mpki_thread - b->target_mpki) / b->target_mpki, 1e-12);
    calibrate_report_done(&r);
    /* A profile with a class target and no MPKI target is judged on its class alone. */
    const char *class_only[] = {"kmeans"};
    assert_int_equal(calibrate_run(datadir, "themis60", 20000, class_only, 1, NULL, NULL, &r, &d),
                     0);
    assert_int_equal(r.count, 1);
    assert_true(r.rows[0].target_mpki == 0 && r.rows[0].mpki_ok && r.rows[0].class_ok);
    assert_int_equal(r.failures, 0);
    calibrate_report_done(&r);
    const char *wrong[] = {"kmeans"};
    assert_int_equal(calibrate_run(datadir, "hbm80", 20000, wrong, 1, NULL, NULL, &r, &d), -1);
    assert_int_equal(d.count, 1);
    assert_non_null(strstr(d.msgs[0], "has no targets on hbm80; its targets are for themis60"));
    diag_done(&d);
    free(datadir);
}

struct told {
    double last, half_end;
    bool ordered;
};

static void tell(void *ctx, double done)
{
    struct told *t = ctx;
    t->ordered = t->ordered && done >= t->last && done <= 1;
    if (done <= 0.5)
        t->half_end = done;
    t->last = done;
}

/* Scaling on a GPU of two SMs, where the random kernel with a load every other instruction,
 * one at a time, issues less than one instruction a cycle on one SM: all over twice half, whatever
 * the size of half's IPC. The two runs tell their progress as halves of the whole: the first ends
 * at 0.5, the second at 1. */
static void scaling_of_a_slow_kernel(void **state)
{
    (void)state;
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    cfg.sms = 2;
    struct calib_measure m;
    struct told t = {.ordered = true};
    char err[256];
    struct kernel_profile p = *kernel_builtin_find("random");
    p.mem_fraction = 0.5; /* a load every other instruction, one at a time */
    p.mlp = 1;
    assert_int_equal(calibrate_measure(&cfg, &p, 5000, 1, tell, &t, &m, err, sizeof err), 0);
    printf("  random on 2 SMs: IPC %.3f, on 1 SM %.3f, scaling %.3f\n", m.ipc, m.ipc_half,
           m.scaling);
    assert_true(m.ipc_half > 0 && m.ipc_half < 1);
    assert_close(m.scaling, m.ipc / (2 * m.ipc_half), 1e-12);
    assert_true(t.ordered && t.last == 1 && t.half_end == 0.5);
}

/* Collects "gpu sms class" of every row a query returns. */
static int collect_row(void *ctx, size_t ncols, const char *const *names, const char *const *values)
{
    (void)names;
    char *out = ctx;
    if (values && ncols == 3)
        snprintf(out + strlen(out), 256 - strlen(out), "%s %s %s;", values[0], values[1],
                 values[2]);
    return 0;
}

static void record_stores_kernels_and_measurements(void **state)
{
    (void)state;
    char *datadir = datadir_locate();
    struct diag d;
    diag_init(&d);
    struct calib_report r;
    const char *only[] = {"bino"};
    assert_int_equal(calibrate_run(datadir, "hbm80", 5000, only, 1, NULL, NULL, &r, &d), 0);
    char dir[] = "/tmp/corun-calib-XXXXXX", err[512];
    assert_non_null(mkdtemp(dir));
    char path[64], bad[80];
    snprintf(path, sizeof path, "%s/c.db", dir);
    snprintf(bad, sizeof bad, "%s/c.db/x.db", dir);
    assert_int_equal(calibrate_record(datadir, &r, path, err, sizeof err), 1);
    assert_int_equal(calibrate_record(datadir, &r, path, err, sizeof err), 1); /* replaces */
    assert_int_equal(calibrate_record(datadir, &r, bad, err, sizeof err), -1);
    assert_non_null(strstr(err, bad));

    struct catalog *cat = catalog_open(path, err, sizeof err);
    assert_non_null(cat);
    struct kernel_profile p;
    char *source;
    bool found;
    assert_int_equal(catalog_get_kernel(cat, "bino", &p, &source, &found, err, sizeof err), 0);
    assert_true(found);
    char *want = malloc(strlen(datadir) + 32);
    sprintf(want, "%s/data/kernels/bino.cfg", datadir);
    assert_string_equal(source, want);
    assert_int_equal(p.paper, KERNEL_PAPER_HSM);
    char rows[256] = "";
    assert_int_equal(catalog_query(cat, "SELECT gpu, sms, class FROM kernel_measurements",
                                   collect_row, rows, err, sizeof err),
                     0);
    assert_string_equal(rows, "hbm80 80 compute;");
    free(want);
    free(source);
    kernel_profile_done(&p);
    catalog_close(cat);
    calibrate_report_done(&r);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    diag_done(&d);
    free(datadir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(classify_follows_scaling_then_bandwidth),
        cmocka_unit_test(two_class_papers_ignore_balanced),
        cmocka_unit_test(profiles_carry_their_targets),
        cmocka_unit_test(short_run_measures_and_judges),
        cmocka_unit_test(scaling_of_a_slow_kernel),
        cmocka_unit_test(record_stores_kernels_and_measurements),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
