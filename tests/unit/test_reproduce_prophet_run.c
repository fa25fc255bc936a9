/* Unit tests: reproduce_prophet on real runs — a co-location run's reference, the LS
 * application alone measured once at n = 0 and handed to every later n. Apart from
 * test_reproduce_prophet.c, which runs under valgrind: this one simulates. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "corun/accel_predict.h"
#include "corun/accel_run.h"
#include "corun/accel_scenario.h"
#include "corun/datadir.h"
#include "corun/reproduce_prophet.h"

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
        cmocka_unit_test(test_coloc_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
