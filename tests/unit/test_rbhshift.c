/* Unit tests: rbhshift — HSM Fig. 4's table: which runs it makes, what it derives from them,
 * forked workers against none, and the names it refuses. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "assert_close.h"

#include "corun/datadir.h"
#include "corun/gpu.h"
#include "corun/preset.h"
#include "corun/rbhshift.h"
#include "corun/solo.h"

static const char *const apps[] = {"srad", "lbm"};
static const char *const with[] = {"bino", "srad"};

/* The progress callback's last total: the runs the table was planned with. */
static void note_total(void *user, double done, size_t total)
{
    (void)done;
    *(size_t *)user = total;
}

/* The table for only x with, on hbm80 with 4,000-cycle runs; returns the runs it planned. */
static size_t run_lists(const char *const *only, size_t n_only, const char *const *with_,
                        size_t n_with, unsigned jobs, struct rbhshift_report *r)
{
    char *datadir = datadir_locate();
    struct diag d;
    diag_init(&d);
    struct rbhshift_options o = {.gpu = "hbm80",
                                 .cycles = 4000,
                                 .seed = 1,
                                 .jobs = jobs,
                                 .only = only,
                                 .n_only = n_only,
                                 .with = with_,
                                 .n_with = n_with};
    size_t total = 0;
    assert_int_equal(rbhshift_run(datadir, &o, note_total, &total, r, &d), 0);
    assert_int_equal(d.count, 0);
    diag_done(&d);
    free(datadir);
    return total;
}

static void run(unsigned jobs, struct rbhshift_report *r)
{
    /* Two private runs and three pairs (lbm + bino, lbm + srad, srad + bino): a pair of two
     * selected applications serves both, and none is run that no row shows. */
    assert_int_equal(run_lists(apps, 2, with, 2, jobs, r), 2 + 3);
}

static void rows_follow_the_runs(void **state)
{
    (void)state;
    struct rbhshift_report r;
    run(1, &r);
    assert_string_equal(r.gpu, "hbm80");
    assert_int_equal(r.sms, 80);
    assert_int_equal(r.sms_first, 40);
    assert_int_equal(r.sms_second, 40);
    assert_int_equal(r.warmup_cycles, 400);
    assert_int_equal(r.count, 2);
    assert_string_equal(r.rows[0].kernel, "lbm"); /* by name */
    assert_string_equal(r.rows[1].kernel, "srad");
    assert_int_equal(r.rows[0].npairs, 2); /* bino, srad */
    assert_int_equal(r.rows[1].npairs, 1); /* bino: never itself */
    assert_string_equal(r.rows[1].pairs[0].corunner, "bino");
    size_t failures = 0;
    for (size_t i = 0; i < r.count; i++) {
        const struct rbhshift_row *w = &r.rows[i];
        double worst = 0, lo = 1, hi = 0;
        for (size_t p = 0; p < w->npairs; p++) {
            double s = w->pairs[p].rbh_shared,
                   shift = s > w->rbh_private ? s - w->rbh_private : w->rbh_private - s;
            worst = shift > worst ? shift : worst;
            lo = s < lo ? s : lo;
            hi = s > hi ? s : hi;
        }
        assert_close(w->max_shift, worst, 1e-12);
        assert_close(w->rbh_min, lo, 1e-12);
        assert_close(w->rbh_max, hi, 1e-12);
        assert_true(w->rbh_min <= w->rbh_mean && w->rbh_mean <= w->rbh_max);
        assert_int_equal(w->ok, worst <= RBHSHIFT_TOLERANCE);
        failures += !w->ok;
    }
    assert_int_equal(r.failures, failures);

    /* The private RBH is solo_characterize's, and a shared one is the pair's counter. */
    char *datadir = datadir_locate();
    struct diag d;
    diag_init(&d);
    struct gpu_config cfg;
    struct kernel_profile lbm, bino;
    assert_int_equal(preset_gpu_load(datadir, "hbm80", &cfg, &d), 0);
    assert_int_equal(preset_kernel_load(datadir, "lbm", &lbm, &d), 0);
    assert_int_equal(preset_kernel_load(datadir, "bino", &bino, &d), 0);
    struct solo_result s;
    char err[256];
    assert_int_equal(solo_characterize(&cfg, &lbm, 0, 4000, 1, NULL, NULL, &s, err, sizeof err), 0);
    assert_close(r.rows[0].rbh_private, s.rbh, 1e-12);
    /* A pair runs once, its applications in name order: bino is kernel 0 (SMs 0-39). */
    const struct kernel_profile *ps[2] = {&bino, &lbm};
    struct gpu *g = gpu_new(&cfg, ps, 2, 1, err, sizeof err);
    int own[80];
    gpu_partition_even(80, 2, own);
    assert_int_equal(gpu_set_partition(g, own, 80, GPU_SWITCH_DRAIN, err, sizeof err), 0);
    gpu_run(g, 400);
    gpu_reset_counters(g);
    gpu_run(g, 4000);
    struct gpu_kernel_counters c;
    gpu_kernel_counters(g, 1, &c);
    assert_string_equal(r.rows[0].pairs[0].corunner, "bino");
    assert_close(r.rows[0].pairs[0].rbh_shared, c.rbh, 1e-12);
    gpu_delete(g);
    kernel_profile_done(&lbm);
    kernel_profile_done(&bino);
    diag_done(&d);
    free(datadir);
    rbhshift_report_done(&r);
}

static void workers_give_the_same_table(void **state)
{
    (void)state;
    struct rbhshift_report a, b;
    run(1, &a);
    run(3, &b);
    assert_int_equal(a.count, b.count);
    for (size_t i = 0; i < a.count; i++) {
        assert_close(a.rows[i].rbh_private, b.rows[i].rbh_private, 0);
        assert_int_equal(a.rows[i].npairs, b.rows[i].npairs);
        for (size_t p = 0; p < a.rows[i].npairs; p++)
            assert_close(a.rows[i].pairs[p].rbh_shared, b.rows[i].pairs[p].rbh_shared, 0);
    }
    rbhshift_report_done(&a);
    rbhshift_report_done(&b);
}

/* The first application of the library by name (2dconv) has its row like any other. */
static void the_first_application_is_kept(void **state)
{
    (void)state;
    const char *only[] = {"2dconv"}, *with1[] = {"bino"};
    struct rbhshift_report r;
    assert_int_equal(run_lists(only, 1, with1, 1, 1, &r), 1 + 1);
    assert_int_equal(r.count, 1);
    assert_string_equal(r.rows[0].kernel, "2dconv");
    assert_int_equal(r.rows[0].npairs, 1);
    assert_string_equal(r.rows[0].pairs[0].corunner, "bino");
    rbhshift_report_done(&r);
}

/* The worst co-runner is the one with the largest shift wherever it comes in the row: srad
 * beside lbm (memory-bound, first by name) and pf (compute-bound) shifts most beside lbm. */
static void worst_is_the_largest_shift(void **state)
{
    (void)state;
    const char *only[] = {"srad"}, *with2[] = {"lbm", "pf"};
    struct rbhshift_report r;
    assert_int_equal(run_lists(only, 1, with2, 2, 1, &r), 1 + 2);
    assert_int_equal(r.count, 1);
    const struct rbhshift_row *w = &r.rows[0];
    assert_int_equal(w->npairs, 2);
    assert_string_equal(w->pairs[0].corunner, "lbm");
    double shift[2];
    for (size_t p = 0; p < 2; p++)
        shift[p] = fabs(w->pairs[p].rbh_shared - w->rbh_private);
    printf("  srad's shift beside lbm %.4f, beside pf %.4f\n", shift[0], shift[1]);
    assert_true(shift[0] > shift[1]);
    assert_int_equal(w->worst, 0);
    assert_close(w->max_shift, shift[0], 1e-12);
    rbhshift_report_done(&r);
}

static void refuses_names_it_cannot_use(void **state)
{
    (void)state;
    char *datadir = datadir_locate();
    struct diag d;
    diag_init(&d);
    struct rbhshift_report r;
    const char *compute[] = {"bino"}, *themis[] = {"kmeans"}, *lbm[] = {"lbm"};
    struct rbhshift_options o = {.gpu = "hbm80",
                                 .cycles = 1000,
                                 .seed = 1,
                                 .jobs = 1,
                                 .only = compute,
                                 .n_only = 1,
                                 .with = themis,
                                 .n_with = 1};
    assert_int_equal(rbhshift_run(datadir, &o, NULL, NULL, &r, &d), -1);
    assert_int_equal(d.count, 2);
    assert_non_null(strstr(d.msgs[0], "\"bino\" is not a memory-bound HSM application"));
    assert_non_null(strstr(d.msgs[1], "\"kmeans\" is not an HSM application"));
    diag_done(&d);
    diag_init(&d);
    o = (struct rbhshift_options){
        .gpu = "nosuchgpu", .cycles = 1000, .seed = 1, .jobs = 1, .only = lbm, .n_only = 1};
    assert_int_equal(rbhshift_run(datadir, &o, NULL, NULL, &r, &d), -1);
    assert_int_equal(d.count, 1);
    assert_non_null(strstr(d.msgs[0], "nosuchgpu"));
    diag_done(&d);
    /* A --set the preset refuses: nothing runs, the message names the setting. */
    diag_init(&d);
    o.gpu = "hbm80";
    o.sets = (struct gpu_sets){{"gpu.dram.timing.faw=0"}, 1};
    assert_int_equal(rbhshift_run(datadir, &o, NULL, NULL, &r, &d), -1);
    assert_int_equal(d.count, 1);
    assert_non_null(strstr(d.msgs[0], "rbh-shift: --set"));
    assert_non_null(strstr(d.msgs[0], "faw"));
    diag_done(&d);
    free(datadir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rows_follow_the_runs),
        cmocka_unit_test(workers_give_the_same_table),
        cmocka_unit_test(worst_is_the_largest_shift),
        cmocka_unit_test(the_first_application_is_kept),
        cmocka_unit_test(refuses_names_it_cannot_use),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
