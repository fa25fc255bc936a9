/* Unit tests: accel_predict — solo-run profiles measured on the core (copies at the link's
 * rates, a kernel's warps, occupancy and bandwidth per SM), the arrivals the engine and the
 * predictors share, and the predictions of prophet and of the sequential model on a trace
 * whose timelines are worked out by hand. */
#include <math.h>
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
#include "corun/util.h"
#include "testutil.h"

static void profile(const struct accel_scenario *sc, struct accel_profiles *p)
{
    char err[512];
    if (accel_profile(sc, p, err, sizeof err))
        fail_msg("accel_profile: %s", err);
}

/* test_accel_copies_cfg (testutil.c): q's two sharing copies beside b's exclusive h2d. */
static const char *copies = test_accel_copies_cfg;

/* Copies alone take bytes over the link's rate: 6000 B sharing at 6 GB/s, 10000 B exclusive
 * at 10 GB/s, 1000 ns each; 20000 B sharing 3333.3 ns. */
static void test_copy_profiles(void **state)
{
    (void)state;
    struct accel_scenario sc;
    test_accel_load(&sc, copies);
    struct accel_profiles p;
    profile(&sc, &p);
    assert_int_equal(p.hw.pes, 15);
    assert_int_equal(p.hw.max_warps_per_pe, 64);
    assert_true(p.hw.mem_gbs > 100 && p.hw.mem_gbs <= 288.0);
    assert_int_equal(p.ntasks[0], 2);
    assert_close(p.tasks[0][0].solo_ns, 1000, 1e-6);
    assert_close(p.tasks[1][0].solo_ns, 1000, 1e-6);
    assert_true(p.tasks[1][0].exclusive);
    assert_close(p.tasks[1][1].solo_ns, 20000.0 / 6, 1e-6);
    assert_close(p.solo_ns[0], 2000, 1e-6);
    accel_profiles_done(&p);
    accel_scenario_done(&sc);
}

/* The engine measures 4000 and 2333.3 ns (test_accel_run.c works them out). Prophet's data
 * transfer model gives the same: the exclusive copy pauses the query's h2d to 2000; its d2h
 * joins the batch's (segments stretched by 2 while both move) and ends at 4000; the second
 * query's d2h (from 5000) shares until the batch's ends at 5666.7 and ends at 6333.3. The
 * sequential model moves one copy at a time in submission order: the query's h2d first
 * (0-1000), its d2h alone (1000-2000): 2000 ns; the second query's h2d 2000-3000, and its d2h
 * waits behind the batch's (2000-5333.3): 6333.3, 4333.3 ns after it arrived. */
static void test_predictions_by_hand(void **state)
{
    (void)state;
    struct accel_scenario sc;
    test_accel_load(&sc, copies);
    struct accel_profiles p;
    profile(&sc, &p);
    double lat[2];
    double *out[ACCEL_MAX_APPS] = {lat};
    accel_predict(&sc, &p, ACCEL_PREDICT_PROPHET, out);
    assert_close(lat[0], 4000e-6, 1e-9);
    assert_close(lat[1], 7000.0 / 3 * 1e-6, 1e-9);
    accel_predict(&sc, &p, ACCEL_PREDICT_SEQUENTIAL, out);
    assert_close(lat[0], 2000e-6, 1e-9);
    assert_close(lat[1], 13000.0 / 3 * 1e-6, 1e-9);

    /* Through accel_run: the predicted p99 beside the measured one, and its error. */
    struct accel_run_options o = {.predictor = ACCEL_PREDICT_SEQUENTIAL};
    struct accel_result r;
    char err[256];
    assert_int_equal(accel_run(&sc, &o, &r, err, sizeof err), 0);
    assert_int_equal(r.predictor, ACCEL_PREDICT_SEQUENTIAL);
    assert_close(r.app[0].p99_ms, 4000e-6, 1e-9);
    assert_close(r.app[0].pred_p99_ms, 13000.0 / 3 * 1e-6, 1e-9);
    assert_close(r.app[0].pred_error, (13000.0 / 3 - 4000) / 4000, 1e-9);
    assert_close(r.app[0].pred_solo_ms, 2000e-6, 1e-9);
    assert_false(r.app[0].pred_qos_met); /* 4333.3 > 2 x 2000 */
    accel_result_done(&r);
    accel_profiles_done(&p);
    accel_scenario_done(&sc);

    /* The same applications, the batch one first: the LS one's predicted time alone leaves
     * every other application out, whatever its place (2000 ns again). */
    test_accel_load(&sc,
                    "mode = \"accelerator\"; name = \"copies\"; gpu = \"k40\"; seed = 1;\n"
                    "applications = (\n"
                    " { name = \"b\"; role = \"batch\"; instances = 1;\n"
                    "   tasks = ( { type = \"h2d\"; bytes = 10000; copy = \"exclusive\"; },\n"
                    "             { type = \"d2h\"; bytes = 20000; } ); },\n"
                    " { name = \"q\"; role = \"ls\"; qos_target = 2.0; arrival = \"closed\"; "
                    "queries = 2;\n"
                    "   tasks = ( { type = \"h2d\"; bytes = 6000; }, { type = \"d2h\"; bytes = "
                    "6000; } ); }\n);\n");
    assert_int_equal(accel_run(&sc, &o, &r, err, sizeof err), 0);
    assert_close(r.app[1].pred_solo_ms, 2000e-6, 1e-9);
    accel_result_done(&r);
    accel_scenario_done(&sc);
}

/* Where the paper's data transfer model and corun's even split part: three sharing copies at
 * once on the 6 B/ns link, two batch instances' 6000 B (1000 ns alone) and then the query's
 * 12000 B (2000 ns alone). Split evenly, each moves at 2 B/ns: the batch copies end at 3000 ns
 * and the query's, 6000 B left, at 3000 + 1000 = 4000 ns (the batch's d2h take the other
 * direction meanwhile). Eqs. 6-8 place the query's copy by stretching each stretch of time
 * by (ON + 1) / ON: its 2000 ns, all of them while both batch copies are on (they end at
 * 2000), become 2000 x 3 / 2 = 3000 ns. */
static void test_even_split_by_hand(void **state)
{
    (void)state;
    struct accel_scenario sc;
    test_accel_load(&sc, "mode = \"accelerator\"; name = \"three\"; gpu = \"k40\"; seed = 1;\n"
                         "applications = (\n"
                         " { name = \"b\"; role = \"batch\"; instances = 2;\n"
                         "   tasks = ( { type = \"h2d\"; bytes = 6000; },\n"
                         "             { type = \"d2h\"; bytes = 600000; } ); },\n"
                         " { name = \"q\"; role = \"ls\"; qos_target = 2.0; arrival = \"closed\"; "
                         "queries = 1;\n"
                         "   tasks = ( { type = \"h2d\"; bytes = 12000; } ); }\n);\n");
    struct accel_profiles p;
    profile(&sc, &p);
    double lat[1];
    double *out[ACCEL_MAX_APPS] = {NULL, lat};
    accel_predict(&sc, &p, ACCEL_PREDICT_PROPHET_EVEN, out);
    assert_close(lat[0], 4000e-6, 1e-9);
    accel_predict(&sc, &p, ACCEL_PREDICT_PROPHET, out);
    assert_close(lat[0], 3000e-6, 1e-9);
    accel_profiles_done(&p);
    accel_scenario_done(&sc);
}

/* A kernel's profile: warps, occupancy from its limits, its duration alone, and the
 * bandwidth one SM of it asks: a streaming kernel asks some, a kernel without memory
 * instructions none. */
static void test_kernel_profile(void **state)
{
    (void)state;
    struct accel_scenario sc;
    test_accel_load(
        &sc, "mode = \"accelerator\"; name = \"k\"; gpu = \"k40\"; seed = 1;\n"
             "applications = ( { name = \"q\"; role = \"ls\"; qos_target = 2.0; queries = 1;\n"
             "  tasks = ( { type = \"kernel\"; kernel = { tbs = 40; warps_per_tb = 8; "
             "insts_per_warp = 800; mem_fraction = 0.2; pattern = \"stream\"; footprint_bytes = "
             "4194304; regs_per_thread = 64; }; },\n"
             "            { type = \"kernel\"; kernel = { tbs = 20; warps_per_tb = 4; "
             "insts_per_warp = 800; mem_fraction = 0.0; footprint_bytes = 4096; }; } ); } );\n");
    struct accel_profiles p;
    profile(&sc, &p);
    const struct prophet_kernel *a = &p.tasks[0][0].kernel, *b = &p.tasks[0][1].kernel;
    assert_int_equal(a->warps, 320);
    /* 64 registers x 256 threads = 16 K per block: 4 blocks of the SMX's 64 K, 32 warps */
    assert_close(a->occupancy, 0.5, 1e-12);
    assert_int_equal(b->warps, 80);
    assert_true(a->solo_ns > 0 && b->solo_ns > 0);
    assert_close(p.tasks[0][0].solo_ns, a->solo_ns, 0);
    assert_true(a->bw_per_pe_gbs > 0.5);
    assert_true(b->bw_per_pe_gbs < 0.01);
    assert_true(p.cycles > 0);
    accel_profiles_done(&p);
    accel_scenario_done(&sc);
}

/* Two kernels, the first with insts_per_warp I. */
static void two_kernels(struct accel_scenario *sc, unsigned insts)
{
    char *text = xasprintf(
        "mode = \"accelerator\"; name = \"k\"; gpu = \"k40\"; seed = 1;\n"
        "applications = ( { name = \"q\"; role = \"ls\"; qos_target = 2.0; queries = 1;\n"
        "  tasks = ( { type = \"kernel\"; kernel = { tbs = 30; warps_per_tb = 8; "
        "insts_per_warp = %u; mem_fraction = 0.2; pattern = \"stream\"; footprint_bytes = "
        "4194304; }; },\n"
        "            { type = \"kernel\"; kernel = { tbs = 20; warps_per_tb = 4; "
        "insts_per_warp = 600; mem_fraction = 0.0; footprint_bytes = 4096; }; } ); } );\n",
        insts);
    test_accel_load(sc, text);
    free(text);
}

static void assert_same_profiles(const struct accel_profiles *a, const struct accel_profiles *b)
{
    assert_close(a->hw.mem_gbs, b->hw.mem_gbs, 0);
    assert_int_equal(a->ntasks[0], b->ntasks[0]);
    for (unsigned i = 0; i < a->ntasks[0]; i++) {
        const struct prophet_kernel *x = &a->tasks[0][i].kernel, *y = &b->tasks[0][i].kernel;
        assert_close(x->solo_ns, y->solo_ns, 0);
        assert_int_equal(x->warps, y->warps);
        assert_close(x->occupancy, y->occupancy, 0);
        assert_close(x->bw_per_pe_gbs, y->bw_per_pe_gbs, 0);
    }
    assert_close(a->solo_ns[0], b->solo_ns[0], 0);
}

static void memo_profile(const struct accel_scenario *sc, struct accel_memo *m,
                         struct accel_profiles *p)
{
    char err[512];
    if (accel_profile_memo(sc, m, p, err, sizeof err))
        fail_msg("accel_profile_memo: %s", err);
}

/* A memo gives what profiling gives, simulating only what it does not hold: a kernel by its
 * content (not its place in the scenario), under the same GPU and seed. */
static void test_profile_memo(void **state)
{
    (void)state;
    struct accel_scenario x, y;
    two_kernels(&x, 800);
    two_kernels(&y, 1200); /* the first kernel changed, the second the same */
    struct accel_profiles px, py, m1, m2, m3;
    profile(&x, &px);
    profile(&y, &py);
    assert_true(px.tasks[0][0].solo_ns != py.tasks[0][0].solo_ns);

    struct accel_memo *m = accel_memo_new();
    memo_profile(&x, m, &m1);
    assert_same_profiles(&m1, &px);
    assert_int_equal(m1.cycles, px.cycles);
    memo_profile(&x, m, &m2); /* all held: nothing simulated */
    assert_same_profiles(&m2, &px);
    assert_int_equal(m2.cycles, 0);
    memo_profile(&y, m, &m3); /* only the changed kernel */
    assert_same_profiles(&m3, &py);
    assert_true(m3.cycles > 0 && m3.cycles < py.cycles);
    accel_profiles_done(&m1);
    accel_profiles_done(&m2);
    accel_profiles_done(&m3);

    x.seed = 2; /* another seed: nothing held */
    struct accel_profiles p2;
    profile(&x, &p2);
    memo_profile(&x, m, &m1);
    assert_same_profiles(&m1, &p2);
    assert_int_equal(m1.cycles, p2.cycles);
    accel_profiles_done(&m1);
    accel_profiles_done(&p2);
    accel_memo_delete(m);
    accel_memo_delete(NULL);
    accel_profiles_done(&px);
    accel_profiles_done(&py);
    accel_scenario_done(&x);
    accel_scenario_done(&y);
}

static void test_arrivals(void **state)
{
    (void)state;
    struct accel_scenario sc;
    test_accel_load(&sc,
                    "mode = \"accelerator\"; name = \"a\"; gpu = \"k40\"; seed = 5;\n"
                    "applications = ( { name = \"gmm\"; role = \"ls\"; qos_target = 2.0; arrival = "
                    "\"poisson\"; rate_qps = 1000; queries = 4000; } );\n");
    double *t = calloc(4000, sizeof(double)), *u = calloc(4000, sizeof(double));
    accel_arrivals(&sc, 0, 4000, t);
    accel_arrivals(&sc, 0, 4000, u);
    assert_memory_equal(t, u, 4000 * sizeof(double));
    for (unsigned i = 1; i < 4000; i++)
        assert_true(t[i] > t[i - 1]);
    /* mean gap 1 ms: 4000 of them about 4 s (the standard error is 1.6 %) */
    assert_true(fabs(t[3999] / 4e9 - 1) < 0.08);
    /* fewer queries: the same first arrivals, and nothing written past them */
    u[3999] = -1;
    accel_arrivals(&sc, 0, 3999, u);
    assert_memory_equal(t, u, 3999 * sizeof(double));
    assert_true(u[3999] == -1);
    sc.seed = 6;
    accel_arrivals(&sc, 0, 4000, u);
    assert_true(t[0] != u[0]);
    sc.apps[0].arrival = ACCEL_CLOSED;
    accel_arrivals(&sc, 0, 4, u);
    for (unsigned i = 0; i < 4; i++)
        assert_true(u[i] == 0);
    free(t);
    free(u);
    accel_scenario_done(&sc);
}

static void test_names(void **state)
{
    (void)state;
    assert_int_equal(accel_predictor_find("prophet"), ACCEL_PREDICT_PROPHET);
    assert_int_equal(accel_predictor_find("sequential"), ACCEL_PREDICT_SEQUENTIAL);
    assert_int_equal(accel_predictor_find("hsm"), -1);
    assert_string_equal(accel_predictor_name(ACCEL_PREDICT_PROPHET), "prophet");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_profiles),
        cmocka_unit_test(test_predictions_by_hand),
        cmocka_unit_test(test_kernel_profile),
        cmocka_unit_test(test_arrivals),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_profile_memo),
        cmocka_unit_test(test_even_split_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
