/* Unit tests: reproduce_prophet — the pairs of each experiment by class, the choice of the
 * most batch instances that keep the target, the summary over pairs, and a co-location run's
 * reference (the LS application alone, measured once: n = 0 is 1.00x by construction, and
 * every later point is what a run with a reference of its own gives). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "assert_close.h"

#include "corun/accel_predict.h"
#include "corun/accel_run.h"
#include "corun/accel_scenario.h"
#include "corun/datadir.h"
#include "corun/reproduce_prophet.h"

static void test_pairs(void **state)
{
    (void)state;
    const struct rp_pair *p;
    size_t n = rp_accuracy_pairs(true, &p);
    unsigned count[RP_CLASSES] = {0};
    assert_int_equal(n, 6);
    for (size_t i = 0; i < n; i++)
        count[p[i].cls]++;
    for (int c = 0; c < RP_CLASSES; c++)
        assert_int_equal(count[c], 2);
    /* the full form: 4 x 5 compute pairs, 3 x 6 PCIe pairs, 4 x 6 + 3 x 5 mixed ones */
    n = rp_accuracy_pairs(false, &p);
    assert_int_equal(n, 77);
    memset(count, 0, sizeof count);
    for (size_t i = 0; i < n; i++)
        count[p[i].cls]++;
    assert_int_equal(count[RP_COMPUTE], 20);
    assert_int_equal(count[RP_PCIE], 18);
    assert_int_equal(count[RP_LOW], 39);
    assert_int_equal(rp_coloc_pairs(true, &p), 1);
    assert_string_equal(p[0].ls, "dig");
    assert_int_equal(rp_coloc_pairs(false, &p), 7);
    assert_true(rp_published_error[RP_COMPUTE] == 0.059);
    assert_true(rp_published_error[RP_PCIE] == 0.051);
    assert_true(rp_published_error[RP_LOW] == 0.055);
    assert_string_equal(rp_class_name(RP_PCIE), "PCIe-intensive");
}

static void test_largest(void **state)
{
    (void)state;
    struct rp_coloc_point pt[16];
    memset(pt, 0, sizeof pt);
    assert_int_equal(rp_coloc_largest(pt, 0), -1);
    pt[0].measured_met = pt[3].measured_met = pt[7].measured_met = true;
    pt[15].prophet_met = true;
    pt[2].sequential_met = true;
    pt[4].even_met = true;
    assert_int_equal(rp_coloc_largest(pt, 3), 4);
    assert_int_equal(rp_coloc_largest(pt, 0), 7); /* the largest that holds, gaps allowed */
    assert_int_equal(rp_coloc_largest(pt, 1), 15);
    assert_int_equal(rp_coloc_largest(pt, 2), 2);
}

/* Two pairs, target 2.0. Pair A: measured meets up to 6, prophet's 9 is 2.2x on the core
 * (violated by 10 %), the sequential model keeps none but 0 (0 / 15), prophet-even keeps up to
 * 3. Pair B: everything meets up to 15. Oracle (6 + 15) / 2 / 15 = 0.7, prophet (9 + 15) / 30
 * = 0.8, sequential (0 + 15) / 30 = 0.5, prophet-even (3 + 15) / 30 = 0.6; one of prophet's two
 * choices violates, by 10 %; none of prophet-even's. */
static void test_summary(void **state)
{
    (void)state;
    struct rp_coloc_point pts[2][16];
    memset(pts, 0, sizeof pts);
    for (int k = 0; k < 16; k++) {
        pts[0][k].measured_x = k <= 6 ? 1.5 : 2.2;
        pts[0][k].measured_met = k <= 6;
        pts[0][k].prophet_met = k <= 9;
        pts[0][k].sequential_met = k == 0;
        pts[0][k].even_met = k <= 3;
        pts[1][k].measured_x = 1.9;
        pts[1][k].measured_met = pts[1][k].prophet_met = pts[1][k].sequential_met = true;
        pts[1][k].even_met = true;
    }
    struct rp_coloc_summary s;
    rp_coloc_summarize((const struct rp_coloc_point(*)[16])pts, 2, 2.0, &s);
    assert_int_equal(s.pairs, 2);
    assert_close(s.oracle_util, 0.7, 1e-12);
    assert_close(s.prophet_util, 0.8, 1e-12);
    assert_close(s.sequential_util, 0.5, 1e-12);
    assert_int_equal(s.prophet_violations, 1);
    assert_close(s.prophet_worst, 0.1, 1e-12);
    assert_int_equal(s.sequential_violations, 0);
    assert_close(s.even_util, 0.6, 1e-12);
    assert_int_equal(s.even_violations, 0);
    assert_close(s.even_worst, 0.0, 1e-12);
    /* no choice at all (-1) counts as no co-location, not as a violation */
    pts[1][0].prophet_met = false;
    for (int k = 0; k < 16; k++)
        pts[1][k].prophet_met = false;
    rp_coloc_summarize((const struct rp_coloc_point(*)[16])pts, 2, 2.0, &s);
    assert_close(s.prophet_util, 0.3, 1e-12);
    assert_int_equal(s.prophet_violations, 1);
    /* nor for the measured oracle: pair B's keeps none, A's 6 */
    for (int k = 0; k < 16; k++)
        pts[1][k].measured_met = false;
    rp_coloc_summarize((const struct rp_coloc_point(*)[16])pts, 2, 2.0, &s);
    assert_close(s.oracle_util, 0.2, 1e-12);
}

/* The quick co-location pair with two queries at 0.9 of the LS application's rate: the run
 * measures the LS application alone once, at n = 0, and hands those latencies to every later
 * n as its reference; each point must be what a run that simulates its own reference gives,
 * to the bit. Every predictor's n = 0 is its own reference (1.00x). */
static void test_coloc_reference(void **state)
{
    (void)state;
    char *datadir = datadir_locate();
    const struct rp_pair *pair;
    assert_int_equal(rp_coloc_pairs(true, &pair), 1);
    const unsigned queries = 2;
    const double target = 1.5, load = 0.9;
    struct rp_coloc_point pt[16];
    uint64_t cycles = 0;
    char err[256] = "";
    if (rp_coloc_run(datadir, pair, queries, target, load, pt, &cycles, err, sizeof err))
        fail_msg("%s", err);
    assert_true(cycles > 0);
    assert_true(pt[0].measured_x == 1 && pt[0].measured_p99_x == 1);
    assert_true(pt[0].prophet_x == 1 && pt[0].sequential_x == 1 && pt[0].even_x == 1);
    assert_true(pt[15].measured_x > 1);

    struct accel_scenario sc;
    struct accel_profiles p;
    memset(&p, 0, sizeof(p));
    const char *batch = pair->batch;
    unsigned none = 0;
    assert_int_equal(
        rp_scenario(&sc, datadir, pair->ls, &batch, &none, 1, queries, target, 0, err, sizeof err),
        0);
    assert_int_equal(accel_profile(&sc, &p, err, sizeof err), 0);
    accel_scenario_done(&sc);
    double rate = load * 1e9 / p.solo_ns[0];
    accel_profiles_done(&p);
    static const unsigned ns[] = {2, 7};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        unsigned n = ns[i];
        assert_int_equal(rp_scenario(&sc, datadir, pair->ls, &batch, &n, 1, queries, target, rate,
                                     err, sizeof err),
                         0);
        struct accel_run_options o = {.solo_queries = queries};
        struct accel_result r;
        memset(&r, 0, sizeof(r));
        if (accel_run(&sc, &o, &r, err, sizeof err))
            fail_msg("%s", err);
        printf("  %u instances: %.4fx mean, %.4fx p99\n", n, pt[n].measured_x,
               pt[n].measured_p99_x);
        assert_int_equal(pt[n].instances, n);
        assert_true(pt[n].measured_x == r.app[0].mean_ms / r.app[0].solo_mean_ms);
        assert_true(pt[n].measured_p99_x == r.app[0].p99_ms / r.app[0].solo_p99_ms);
        assert_true(pt[n].gpu_util == r.gpu_util);
        accel_result_done(&r);
        accel_scenario_done(&sc);
    }
    free(datadir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairs),
        cmocka_unit_test(test_largest),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_coloc_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
