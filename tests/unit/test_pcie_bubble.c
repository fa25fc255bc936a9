/* Unit tests: pcie_bubble — reading a sensitivity curve at a pressure (linear between levels,
 * flat outside them) and backwards, a reporter's degradation into a pressure; and
 * accel_bubble — the curves, a batch application's pressure and the prediction measured on a
 * link-only scenario whose timelines are worked out by hand, and the memo of them. */
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

#include "corun/accel_bubble.h"
#include "corun/accel_predict.h"
#include "corun/accel_run.h"
#include "corun/pcie_bubble.h"
#include "corun/util.h"
#include "testutil.h"

static const struct bubble_curve curve = {4, {0, 1, 2, 4}, {1, 1.5, 2.5, 3}};

static void test_curve_at(void **state)
{
    (void)state;
    assert_close(bubble_curve_at(&curve, 0), 1, 1e-12);
    assert_close(bubble_curve_at(&curve, 0.5), 1.25, 1e-12);
    assert_close(bubble_curve_at(&curve, 2), 2.5, 1e-12);
    assert_close(bubble_curve_at(&curve, 3), 2.75, 1e-12); /* half-way from 2 to 4 */
    assert_close(bubble_curve_at(&curve, 10), 3, 1e-12);   /* not extrapolated */
    assert_close(bubble_curve_at(&curve, -1), 1, 1e-12);
}

static void test_pressure_for(void **state)
{
    (void)state;
    assert_close(bubble_pressure_for(&curve, 1), 0, 1e-12);
    assert_close(bubble_pressure_for(&curve, 0.8), 0, 1e-12); /* faster than alone */
    assert_close(bubble_pressure_for(&curve, 2), 1.5, 1e-12);
    assert_close(bubble_pressure_for(&curve, 2.875), 3.5, 1e-12);
    assert_close(bubble_pressure_for(&curve, 7), 4, 1e-12); /* beyond: the last level */
    /* a curve that dips: the first segment reaching d */
    const struct bubble_curve dip = {4, {0, 1, 2, 3}, {1, 2, 1.5, 3}};
    assert_close(bubble_pressure_for(&dip, 1.5), 0.5, 1e-12);
    assert_close(bubble_pressure_for(&dip, 2.5), 2 + 2.0 / 3, 1e-12); /* (2.5 - 1.5) / 1.5 */
}

/* T = 1 MiB / 6 GB/s = 174762.7 ns, a bubble's copy alone. The LS query (one 6000 B sharing
 * copy, 1000 ns alone) starts with k bubbles' first copies and splits the link k + 1 ways, all
 * of its 6000 B moving before any bubble copy ends: 1000 (k + 1) ns, so its curve is
 * 1, 2, 3, 5, 9, 16 at 0, 1, 2, 4, 8, 15 bubbles. The reporter does what a bubble does and
 * moves in step with them: its copies take (k + 1) T each, its curve is the same. The batch
 * application copies 2 MiB host to device and nothing else: beside it the reporter's 1 MiB
 * ends at 2 T (half the link), its copy back alone at 3 T, when the batch's next copy starts
 * with the reporter's next query: 3 T per query against 2 T alone, 1.5, which the reporter's
 * curve puts at 0.5 bubbles. Two instances are 1 bubble: predicted 2 x 1000 ns; the engine
 * measures three copies sharing the link, 3000 ns. */
static const char *link_only =
    "mode = \"accelerator\"; name = \"link\"; gpu = \"k40\"; seed = 1;\n"
    "applications = (\n"
    " { name = \"q\"; role = \"ls\"; qos_target = 2.0; arrival = \"closed\"; queries = 1;\n"
    "   tasks = ( { type = \"h2d\"; bytes = 6000; } ); },\n"
    " { name = \"b\"; role = \"batch\"; instances = 2;\n"
    "   tasks = ( { type = \"h2d\"; bytes = 2097152; } ); }\n"
    ");\n";

static void test_measured_by_hand(void **state)
{
    (void)state;
    struct accel_scenario sc;
    test_accel_load(&sc, link_only);
    struct accel_bubble b;
    char err[512];
    if (accel_bubble_measure(&sc, &b, NULL, err, sizeof err))
        fail_msg("accel_bubble_measure: %s", err);
    const double levels[] = {0, 1, 2, 4, 8, 15};
    assert_int_equal(b.ls[0].n, 6);
    assert_int_equal(b.reporter.n, 6);
    for (unsigned i = 0; i < 6; i++) {
        assert_close(b.ls[0].pressure[i], levels[i], 0);
        assert_close(b.ls[0].degradation[i], levels[i] + 1, 1e-6);
        assert_close(b.reporter.degradation[i], levels[i] + 1, 1e-6);
    }
    assert_close(b.alone_ms[0][0], 1000e-6, 1e-12);
    assert_close(b.reporter_deg[1], 1.5, 1e-6);
    assert_close(b.pressure[1], 0.5, 1e-6);
    assert_close(accel_bubble_pressure(&sc, &b), 1.0, 1e-6);
    double lat[1];
    double *out[ACCEL_MAX_APPS] = {lat};
    accel_bubble_predict(&sc, &b, out);
    assert_close(lat[0], 2000e-6, 1e-9);
    accel_bubble_done(&b);

    /* through the engine, as `corun run --predictor bubble` */
    struct accel_run_options o = {.predictor = ACCEL_PREDICT_BUBBLE};
    struct accel_result r;
    assert_int_equal(accel_run(&sc, &o, &r, err, sizeof err), 0);
    assert_int_equal(r.predictor, ACCEL_PREDICT_BUBBLE);
    assert_close(r.app[0].p99_ms, 3000e-6, 1e-9);
    assert_close(r.app[0].pred_p99_ms, 2000e-6, 1e-9);
    assert_close(r.app[0].pred_error, 1.0 / 3, 1e-6);
    accel_result_done(&r);
    accel_scenario_done(&sc);
}

static void assert_same_bubble(const struct accel_bubble *a, const struct accel_bubble *b)
{
    assert_memory_equal(&a->reporter, &b->reporter, sizeof a->reporter);
    assert_memory_equal(&a->ls[0], &b->ls[0], sizeof a->ls[0]);
    assert_close(a->alone_ms[0][0], b->alone_ms[0][0], 0);
    assert_close(a->alone_util[0], b->alone_util[0], 0);
    assert_close(a->reporter_deg[1], b->reporter_deg[1], 0);
    assert_close(a->pressure[1], b->pressure[1], 0);
}

/* link_only with the LS query's copy of another size, or the batch application's copy
 * followed by one back to the host. */
static void link_scenario(struct accel_scenario *sc, unsigned ls_bytes, bool back)
{
    char *text = xasprintf(
        "mode = \"accelerator\"; name = \"link\"; gpu = \"k40\"; seed = 1;\n"
        "applications = (\n"
        " { name = \"q\"; role = \"ls\"; qos_target = 2.0; arrival = \"closed\"; queries = 1;\n"
        "   tasks = ( { type = \"h2d\"; bytes = %u; } ); },\n"
        " { name = \"b\"; role = \"batch\"; instances = 2;\n"
        "   tasks = ( { type = \"h2d\"; bytes = 2097152; }%s ); }\n"
        ");\n",
        ls_bytes, back ? ", { type = \"d2h\"; bytes = 3145728; }" : "");
    test_accel_load(sc, text);
    free(text);
}

static void measure(const struct accel_scenario *sc, struct accel_bubble_memo *m,
                    struct accel_bubble *b)
{
    char err[512];
    memset(b, 0, sizeof *b);
    if (accel_bubble_measure_memo(sc, ACCEL_BUBBLE_LS | ACCEL_BUBBLE_BATCH, m, b, NULL, err,
                                  sizeof err))
        fail_msg("accel_bubble_measure_memo: %s", err);
}

/* The memo gives what measuring gives; what it holds is not simulated again, and what an
 * application's content or the seed changes is: the LS query's copy changed, only its curve;
 * the batch application's, only its pressure; another seed, everything. */
static void test_memo(void **state)
{
    (void)state;
    struct accel_scenario x, ls2, batch2;
    link_scenario(&x, 6000, false);
    link_scenario(&ls2, 12000, false);
    link_scenario(&batch2, 6000, true);
    struct accel_bubble fx, fl, fb, b;
    measure(&x, NULL, &fx);
    measure(&ls2, NULL, &fl);
    measure(&batch2, NULL, &fb);
    assert_true(fx.cycles > 0);
    assert_true(fl.alone_ms[0][0] > fx.alone_ms[0][0] * 1.5);
    assert_true(fb.pressure[1] != fx.pressure[1]);

    struct accel_bubble_memo *m = accel_bubble_memo_new();
    measure(&x, m, &b);
    assert_same_bubble(&b, &fx);
    assert_int_equal(b.cycles, fx.cycles);
    accel_bubble_done(&b);
    measure(&x, m, &b); /* all held */
    assert_same_bubble(&b, &fx);
    assert_int_equal(b.cycles, 0);
    accel_bubble_done(&b);

    measure(&ls2, m, &b); /* the LS curve only */
    assert_same_bubble(&b, &fl);
    assert_true(b.cycles > 0 && b.cycles < fl.cycles);
    uint64_t ls_cycles = b.cycles;
    accel_bubble_done(&b);
    measure(&batch2, m, &b); /* the batch pressure only */
    assert_same_bubble(&b, &fb);
    assert_true(b.cycles > 0 && b.cycles < fb.cycles);
    assert_true(b.cycles != ls_cycles);
    accel_bubble_done(&b);

    x.seed = 2; /* another seed: nothing held */
    struct accel_bubble f2;
    measure(&x, NULL, &f2);
    measure(&x, m, &b);
    assert_same_bubble(&b, &f2);
    assert_int_equal(b.cycles, f2.cycles);
    accel_bubble_done(&b);
    accel_bubble_done(&f2);

    accel_bubble_memo_delete(m);
    accel_bubble_memo_delete(NULL);
    accel_bubble_done(&fx);
    accel_bubble_done(&fl);
    accel_bubble_done(&fb);
    accel_scenario_done(&x);
    accel_scenario_done(&ls2);
    accel_scenario_done(&batch2);
}

static void test_name(void **state)
{
    (void)state;
    assert_int_equal(accel_predictor_find("bubble"), ACCEL_PREDICT_BUBBLE);
    assert_string_equal(accel_predictor_name(ACCEL_PREDICT_BUBBLE), "bubble");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_curve_at),
        cmocka_unit_test(test_pressure_for),
        cmocka_unit_test(test_measured_by_hand),
        cmocka_unit_test(test_memo),
        cmocka_unit_test(test_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
