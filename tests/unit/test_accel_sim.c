/* Unit tests: the stepped accelerator run (accel_sim) — stepped in spans of 0.1 ms it gives
 * to the bit what accel_run gives at once (latencies, cycles, utilization, the task table);
 * each step moves the time on by at least its span and the task table only grows; a partial
 * result counts only the queries done; a predictor swapped in keeps the profiles, the bubble's
 * own runs counted for its forecast only; a cancel stops a step; a stop ends a step where it
 * is, and the run stepped on from there is the run unstopped; a starved copy ends the run;
 * before the solo runs there is no solo latency, and they report their progress. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
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
#include "corun/accel_runfile.h"
#include "corun/accel_scenario.h"
#include "corun/accel_sim.h"
#include "corun/pcie.h"
#include "testutil.h"

/* Kernels and copies of an LS application with Poisson arrivals beside a batch one. */
static const char *scenario =
    "mode = \"accelerator\"; name = \"step\"; gpu = \"k40\"; seed = 3;\n"
    "applications = (\n"
    " { name = \"gmm\"; role = \"ls\"; qos_target = 1.5; arrival = \"poisson\";\n"
    "   rate_qps = 4000; queries = 6; },\n"
    " { name = \"nn\"; role = \"batch\"; instances = 1; }\n"
    ");\n";

static void same_result(const struct accel_result *a, const struct accel_result *b)
{
    assert_true(a->cycles == b->cycles && a->solo_cycles == b->solo_cycles);
    assert_true(a->gpu_util == b->gpu_util && a->h2d_busy == b->h2d_busy);
    assert_true(a->d2h_busy == b->d2h_busy && a->tasks_done == b->tasks_done);
    assert_int_equal(a->napps, b->napps);
    for (unsigned i = 0; i < a->napps; i++) {
        const struct accel_app_result *x = &a->app[i], *y = &b->app[i];
        assert_int_equal(x->queries, y->queries);
        assert_true(x->passes == y->passes && x->solo_p99_ms == y->solo_p99_ms);
        if (x->queries)
            assert_memory_equal(x->latency_ms, y->latency_ms, x->queries * sizeof(double));
    }
    assert_int_equal(a->ntasks, b->ntasks);
    assert_memory_equal(a->tasks, b->tasks, a->ntasks * sizeof(a->tasks[0]));
}

/* A run part-way as the workbench saves it: every query of the scenario has its row, those
 * done with their latency, the others none yet (NaN), and none predicted without a predictor;
 * with prophet's forecast, every one predicted. */
static void partial_record(const struct accel_scenario *sc, struct accel_sim *s,
                           struct accel_result *part)
{
    struct accel_record rec;
    accel_result_to_record(sc, part, false, &rec);
    unsigned done = part->app[0].queries;
    assert_int_equal(rec.nqueries, 6);
    assert_false(rec.complete);
    for (unsigned q = 0; q < 6; q++) {
        assert_int_equal(rec.queries[q].query, q);
        if (q < done)
            assert_true(rec.queries[q].latency_ms == part->app[0].latency_ms[q]);
        else
            assert_true(isnan(rec.queries[q].latency_ms));
        assert_true(isnan(rec.queries[q].predicted_ms));
    }
    accel_record_done(&rec);
    char err[256];
    if (accel_sim_predict(s, ACCEL_PREDICT_PROPHET, part, err, sizeof err))
        fail_msg("predict: %s", err);
    accel_result_to_record(sc, part, false, &rec);
    for (unsigned q = 0; q < 6; q++)
        assert_true(rec.queries[q].predicted_ms > 0 && isfinite(rec.queries[q].predicted_ms));
    accel_record_done(&rec);
}

static void test_stepped_is_unstepped(void **state)
{
    (void)state;
    struct accel_scenario sc;
    test_accel_load(&sc, scenario);
    /* accel_run with prophet's forecast: the run itself is the run without one */
    struct accel_run_options o = {.record_tasks = true, .predictor = ACCEL_PREDICT_PROPHET};
    struct accel_result whole, stepped;
    char err[512];
    if (accel_run(&sc, &o, &whole, err, sizeof err))
        fail_msg("accel_run: %s", err);
    assert_true(whole.ntasks > 10);

    struct accel_sim *s = accel_sim_new(&sc, &o, err, sizeof err);
    assert_non_null(s);
    double before = accel_sim_now_ns(s);
    assert_true(before == 0);
    size_t tasks_before = 0;
    unsigned steps = 0;
    bool recorded = false;
    int rc;
    while ((rc = accel_sim_step(s, 1e5, err, sizeof err)) == 0) {
        double now = accel_sim_now_ns(s);
        assert_true(now >= before + 1e5); /* at least the span asked */
        struct accel_result part;
        accel_sim_result(s, &part);
        assert_true(part.ntasks >= tasks_before); /* the table only grows */
        assert_true(part.app[0].queries < 6);     /* not finished: a query still to come */
        if (part.app[0].queries >= 1 && !recorded) {
            partial_record(&sc, s, &part);
            recorded = true;
        }
        tasks_before = part.ntasks;
        accel_result_done(&part);
        before = now;
        steps++;
    }
    assert_int_equal(rc, 1);
    assert_true(recorded);
    assert_true(accel_sim_finished(s));
    assert_true(steps >= 5); /* 0.1 ms spans of a run of a few ms */
    accel_sim_result(s, &stepped);
    same_result(&whole, &stepped);
    /* a step after the end does nothing */
    assert_int_equal(accel_sim_step(s, 1e5, err, sizeof err), 1);
    /* the prediction of the stepped run is accel_run's */
    if (accel_sim_predict(s, ACCEL_PREDICT_PROPHET, &stepped, err, sizeof err))
        fail_msg("predict: %s", err);
    assert_memory_equal(whole.app[0].pred_latency_ms, stepped.app[0].pred_latency_ms,
                        6 * sizeof(double));
    assert_true(whole.app[0].pred_error == stepped.app[0].pred_error);
    /* swapped to the sequential model and back: the profiles are kept, the forecast changes */
    if (accel_sim_predict(s, ACCEL_PREDICT_SEQUENTIAL, &stepped, err, sizeof err))
        fail_msg("predict: %s", err);
    assert_int_equal(stepped.predictor, ACCEL_PREDICT_SEQUENTIAL);
    assert_true(stepped.profile_cycles == whole.profile_cycles);
    accel_result_done(&stepped);
    accel_result_done(&whole);
    accel_sim_delete(s);
    accel_scenario_done(&sc);
}

/* The bubble's own runs count for the bubble's forecast only: swapped in after Prophet and out
 * again, its measurements stay but Prophet's cost is what it was. Copies only (an LS query's
 * one copy beside a batch application's), whose profiles and bubble are quick to measure. */
static void test_bubble_cost_is_its_own(void **state)
{
    (void)state;
    struct accel_scenario sc;
    test_accel_load(
        &sc,
        "mode = \"accelerator\"; name = \"cost\"; gpu = \"k40\"; seed = 1;\n"
        "applications = (\n"
        " { name = \"q\"; role = \"ls\"; qos_target = 2.0; arrival = \"closed\"; queries = 1;\n"
        "   tasks = ( { type = \"h2d\"; bytes = 65536; } ); },\n"
        " { name = \"b\"; role = \"batch\"; instances = 1;\n"
        "   tasks = ( { type = \"h2d\"; bytes = 2097152; } ); }\n"
        ");\n");
    struct accel_run_options o = {0};
    char err[512];
    struct accel_sim *s = accel_sim_new(&sc, &o, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(accel_sim_step(s, INFINITY, err, sizeof err), 1);
    struct accel_result r;
    accel_sim_result(s, &r);
    uint64_t cost[3];
    static const int order[3] = {ACCEL_PREDICT_PROPHET, ACCEL_PREDICT_BUBBLE,
                                 ACCEL_PREDICT_PROPHET};
    for (int i = 0; i < 3; i++) {
        if (accel_sim_predict(s, order[i], &r, err, sizeof err))
            fail_msg("predict: %s", err);
        cost[i] = r.profile_cycles;
    }
    assert_true(cost[1] > cost[0]);
    assert_true(cost[2] == cost[0]);
    accel_result_done(&r);
    accel_sim_delete(s);
    accel_scenario_done(&sc);
}

static void test_cancel(void **state)
{
    (void)state;
    struct accel_scenario sc;
    test_accel_load(&sc, scenario);
    atomic_bool stop = true;
    struct accel_run_options o = {.cancel = &stop};
    char err[512];
    struct accel_sim *s = accel_sim_new(&sc, &o, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(accel_sim_step(s, 1e5, err, sizeof err), -1);
    assert_string_equal(err, "cancelled");
    assert_false(accel_sim_finished(s));
    accel_sim_delete(s);
    accel_scenario_done(&sc);
}

/* What solo_progress heard: its calls, each application's and count's, in order. */
struct heard {
    unsigned n, app[16], done[16], total[16];
};

static void hear(void *ctx, unsigned app, unsigned done, unsigned total)
{
    struct heard *h = ctx;
    if (h->n < 16) {
        h->app[h->n] = app;
        h->done[h->n] = done;
        h->total[h->n] = total;
    }
    h->n++;
}

/* Before the solo runs an LS application has no solo latency (NaN, no verdict), and a
 * forecast has no error to give before a query is answered (NaN, not 0). The solo runs tell
 * solo_progress each query done: 0 of 6 as gmm's begins, then 1 to 6 of 6. */
static void test_before_solo(void **state)
{
    (void)state;
    struct accel_scenario sc;
    test_accel_load(&sc, scenario);
    struct heard h = {0};
    struct accel_run_options o = {.solo_progress = hear, .ctx = &h};
    char err[512];
    struct accel_sim *s = accel_sim_new(&sc, &o, err, sizeof err);
    assert_non_null(s);
    struct accel_result r;
    accel_sim_result(s, &r);
    assert_true(isnan(r.app[0].solo_p50_ms) && isnan(r.app[0].solo_p99_ms));
    assert_true(isnan(r.app[0].solo_mean_ms) && isnan(r.app[0].p99_ms));
    assert_false(r.app[0].qos_met);
    if (accel_sim_predict(s, ACCEL_PREDICT_PROPHET, &r, err, sizeof err))
        fail_msg("predict: %s", err);
    assert_true(r.app[0].pred_p99_ms > 0 && isfinite(r.app[0].pred_p99_ms));
    assert_true(isnan(r.app[0].pred_error));
    accel_result_done(&r);
    assert_int_equal(h.n, 0);

    assert_int_equal(accel_sim_step(s, 1e5, err, sizeof err), 0);
    assert_int_equal(h.n, 7);
    for (unsigned i = 0; i < 7; i++) {
        assert_int_equal(h.app[i], 0);
        assert_int_equal(h.done[i], i);
        assert_int_equal(h.total[i], 6);
    }
    accel_sim_result(s, &r);
    assert_true(r.app[0].solo_p99_ms > 0 && isfinite(r.app[0].solo_p99_ms));
    accel_result_done(&r);
    accel_sim_delete(s);
    accel_scenario_done(&sc);
}

/* The stop asked at every turn: true from its `limit`-th call on (from both threads). */
static atomic_uint stop_calls;
static unsigned stop_limit;

static bool stop_at_limit(void)
{
    return atomic_fetch_add(&stop_calls, 1) >= stop_limit;
}

/* A run stopped at turn `limit` and stepped again to its end is the run unstopped, to the
 * bit: stopped in the solo runs, they run again from the start (counted once); stopped in
 * the co-located run, it goes on from where it was. accel_run stopped returns 1 with the run
 * so far, or nothing before the solo runs have ended (kept 1 or 0; -1: either). */
static void stopped_at(const struct accel_scenario *sc, const struct accel_result *whole,
                       unsigned threads, unsigned limit, int kept)
{
    struct accel_run_options o = {.record_tasks = true, .stop = stop_at_limit, .threads = threads};
    char err[512];
    struct accel_sim *s = accel_sim_new(sc, &o, err, sizeof err);
    assert_non_null(s);
    atomic_store(&stop_calls, 0);
    stop_limit = limit;
    assert_int_equal(accel_sim_step(s, INFINITY, err, sizeof err), 0);
    assert_false(accel_sim_finished(s));
    stop_limit = UINT32_MAX;
    assert_int_equal(accel_sim_step(s, INFINITY, err, sizeof err), 1);
    struct accel_result r;
    accel_sim_result(s, &r);
    same_result(whole, &r);
    accel_result_done(&r);
    accel_sim_delete(s);

    atomic_store(&stop_calls, 0);
    stop_limit = limit;
    assert_int_equal(accel_run(sc, &o, &r, err, sizeof err), 1);
    if (kept >= 0) /* the co-located run so far, or nothing */
        assert_int_equal(r.napps != 0, kept);
    if (r.napps) {
        assert_true(r.cycles < whole->cycles && r.solo_cycles == whole->solo_cycles);
        assert_true(r.tasks_done < whole->tasks_done && r.ntasks == r.tasks_done);
        assert_true(r.app[0].queries <= whole->app[0].queries);
    } else {
        assert_true(r.cycles == 0 && r.tasks == NULL);
    }
    accel_result_done(&r);
}

static void test_stop(void **state)
{
    (void)state;
    struct accel_scenario sc;
    test_accel_load(&sc, /* the scenario above with two queries: half the turns, half the time */
                    "mode = \"accelerator\"; name = \"stop\"; gpu = \"k40\"; seed = 3;\n"
                    "applications = (\n"
                    " { name = \"gmm\"; role = \"ls\"; qos_target = 1.5; arrival = \"poisson\";\n"
                    "   rate_qps = 4000; queries = 2; },\n"
                    " { name = \"nn\"; role = \"batch\"; instances = 1; }\n"
                    ");\n");
    struct accel_run_options o = {.record_tasks = true, .stop = stop_at_limit, .threads = 1};
    struct accel_result whole;
    char err[512];
    atomic_store(&stop_calls, 0);
    stop_limit = UINT32_MAX;
    if (accel_run(&sc, &o, &whole, err, sizeof err))
        fail_msg("accel_run: %s", err);
    unsigned turns = atomic_load(&stop_calls);
    assert_true(turns >= 10);
    stopped_at(&sc, &whole, 1, 0, 0);          /* before the first solo turn */
    stopped_at(&sc, &whole, 1, 1, 0);          /* in the solo run */
    stopped_at(&sc, &whole, 1, turns - 3, 1);  /* in the co-located run */
    stopped_at(&sc, &whole, 2, turns / 2, -1); /* beside: wherever each thread is */
    accel_result_done(&whole);

    /* the bubble's measuring runs end with a message */
    struct accel_bubble b;
    stop_limit = 0;
    assert_int_equal(accel_bubble_measure(&sc, &b, stop_at_limit, err, sizeof err), -1);
    assert_non_null(strstr(err, "stopped while measuring"));
    accel_bubble_done(&b);
    accel_scenario_done(&sc);
}

/* An LS application's sharing copy behind a batch application that copies to the GPU from
 * pinned memory again and again (no gap: bandwidth-exclusive copies go first) would wait for
 * ever: the run gives up on it after PCIE_STARVED_NS and ends, its queries never completed
 * (latency INFINITY, p99 INFINITY, QoS violated); Prophet predicts the same. A second LS
 * application with its own copies exclusive is not held back and completes. Without an LS
 * application, a batch one that must finish a pass ends the run with a message. */
static void test_starved(void **state)
{
    (void)state;
    struct accel_scenario sc;
    test_accel_load(&sc,
                    "mode = \"accelerator\"; name = \"starve\"; gpu = \"k40\"; seed = 1;\n"
                    "applications = (\n"
                    " { name = \"q\"; role = \"ls\"; qos_target = 2.0; queries = 2;\n"
                    "   tasks = ( { type = \"h2d\"; bytes = 6000; } ); },\n"
                    " { name = \"p\"; role = \"ls\"; qos_target = 2.0; queries = 2;\n"
                    "   tasks = ( { type = \"h2d\"; bytes = 6000; copy = \"exclusive\"; } ); },\n"
                    " { name = \"b\"; role = \"batch\"; instances = 1;\n"
                    "   tasks = ( { type = \"h2d\"; bytes = 2097152; copy = \"exclusive\"; } ); }\n"
                    ");\n");
    struct accel_run_options o = {.predictor = ACCEL_PREDICT_PROPHET};
    struct accel_result r;
    char err[512];
    if (accel_run(&sc, &o, &r, err, sizeof err))
        fail_msg("accel_run: %s", err);
    const struct accel_app_result *q = &r.app[0], *p = &r.app[1];
    assert_int_equal(q->queries, 2);
    assert_int_equal(q->starved, 2);
    assert_true(isinf(q->latency_ms[0]) && isinf(q->latency_ms[1]) && isinf(q->p99_ms));
    assert_false(q->qos_met);
    assert_true(isinf(q->pred_p99_ms));
    assert_close(q->pred_error, 0, 0);
    assert_int_equal(p->starved, 0);
    assert_true(isfinite(p->p99_ms) && p->p99_ms < 1); /* behind one 0.2 ms copy at most */
    assert_true(r.sim_ms >= PCIE_STARVED_NS / 1e6 && r.sim_ms < PCIE_STARVED_NS / 1e6 + 1);
    accel_result_done(&r);
    accel_scenario_done(&sc);

    test_accel_load(&sc,
                    "mode = \"accelerator\"; name = \"starve\"; gpu = \"k40\"; seed = 1;\n"
                    "applications = (\n"
                    " { name = \"c\"; role = \"batch\"; instances = 1;\n"
                    "   tasks = ( { type = \"h2d\"; bytes = 6000; } ); },\n"
                    " { name = \"b\"; role = \"batch\"; instances = 2;\n"
                    "   tasks = ( { type = \"h2d\"; bytes = 2097152; copy = \"exclusive\"; } ); }\n"
                    ");\n");
    struct accel_run_options none = {0};
    assert_int_equal(accel_run(&sc, &none, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "c: its copy (task 1) waited 100 ms"));
    assert_non_null(strstr(err, "the run cannot end"));
    accel_result_done(&r);
    accel_scenario_done(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stepped_is_unstepped),
        cmocka_unit_test(test_bubble_cost_is_its_own),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_before_solo),
        cmocka_unit_test(test_stop),
        cmocka_unit_test(test_starved),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
