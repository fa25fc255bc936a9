/* Unit tests: the accelerator task engine (accel_run) — query latencies worked out by hand on
 * the host link, FIFO order and closed loops, Poisson arrivals from the seed, kernels queued
 * behind a co-runner's on the shared-dispatch core, and the percentiles. */
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
#include "corun/accel_scenario.h"
#include "corun/datadir.h"
#include "testutil.h"

static void run_with(const struct accel_scenario *sc, const struct accel_run_options *o,
                     struct accel_result *r)
{
    char err[512];
    if (accel_run(sc, o, r, err, sizeof err))
        fail_msg("accel_run: %s", err);
}

static void run(const struct accel_scenario *sc, struct accel_result *r)
{
    run_with(sc, NULL, r);
}

static void test_percentile(void **state)
{
    (void)state;
    const double v[] = {5, 1, 4, 2, 3, 10, 9, 8, 7, 6};
    assert_true(accel_percentile(v, 10, 50) == 5);  /* nearest rank: the 5th of 10 */
    assert_true(accel_percentile(v, 10, 99) == 10); /* ceil(9.9) = 10th */
    assert_true(accel_percentile(v, 10, 10) == 1);
    assert_true(accel_percentile(v, 1, 99) == 5);
    assert_true(accel_percentile(v, 0, 50) == 0);
    assert_true(v[0] == 5); /* the input is left as it was */
    assert_true(accel_percentile(v, 10, 100) == 10);
    assert_true(accel_percentile(v, 10, 150) == 10); /* past the end: the largest */
    double many[1000];
    for (unsigned i = 0; i < 1000; i++)
        many[i] = 1000 - i;
    assert_true(accel_percentile(many, 1000, 100) == 1000); /* rank exactly n */
    assert_true(accel_percentile(many, 1000, 99.85) == 999);
}

/* Latencies in ms keep three decimals from 0.01 ms up (the tables' figures); below, three
 * significant digits: a latency under a microsecond read 0.000 ms. */
static void test_ms_text(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(accel_ms_text(b, sizeof b, 12.34567), "12.346");
    assert_string_equal(accel_ms_text(b, sizeof b, 0.0924), "0.092");
    assert_string_equal(accel_ms_text(b, sizeof b, 0.0042), "0.00420");
    assert_string_equal(accel_ms_text(b, sizeof b, 0.000412), "0.000412");
    assert_string_equal(accel_ms_text(b, sizeof b, 0.0000107), "0.0000107");
    assert_string_equal(accel_ms_text(b, sizeof b, 3e-9), "0.0000000"); /* 9 characters at most */
    assert_string_equal(accel_ms_text(b, sizeof b, 0), "0.000");
    assert_string_equal(accel_ms_text(b, sizeof b, INFINITY), "inf");
}

/* A run that cannot start says why and leaves the result empty, safe to release. */
static void test_run_that_cannot_start(void **state)
{
    (void)state;
    struct accel_scenario sc;
    test_accel_load(&sc, test_accel_copies_cfg);
    sc.gpu.llc_slices = 0;
    struct accel_result r;
    char err[512] = "";
    assert_int_equal(accel_run(&sc, NULL, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "llc_slices"));
    assert_int_equal(r.napps, 0);
    assert_null(r.tasks);
    accel_result_done(&r);
    accel_scenario_done(&sc);
}

/* Copies only, so every time follows from k40's link rates (6 GB/s sharing, 10 GB/s
 * exclusive): the LS query's h2d (6000 B, sharing) waits for the batch's exclusive h2d
 * (10000 B: 0-1000 ns), moves 1000-2000; its d2h (6000 B) shares the other direction with the
 * batch's d2h (20000 B, from 1000 ns): the batch's has 14000 B left at 2000, both move at
 * 3 GB/s until the LS one ends at 4000, the batch's 8000 B then end at 5333.3. Query 1: 4000
 * ns. Query 2 (closed loop) starts at 4000: h2d alone to 5000; its d2h joins the batch's
 * (2000 B left): that ends at 5666.7 and the LS one, 4000 B left, at 6333.3: 2333.3 ns. */
static void test_copies_by_hand(void **state)
{
    (void)state;
    struct accel_scenario sc;
    test_accel_load(&sc, test_accel_copies_cfg);
    struct accel_result r;
    run(&sc, &r);
    const struct accel_app_result *q = &r.app[0];
    assert_int_equal(q->queries, 2);
    assert_close(q->latency_ms[0], 4000e-6, 1e-9);
    assert_close(q->latency_ms[1], 7000.0 / 3 * 1e-6, 1e-9);
    assert_close(q->solo_p99_ms, 2000e-6, 1e-9); /* alone: 1000 + 1000 ns */
    assert_close(q->p99_ms, 4000e-6, 1e-9);
    assert_true(q->qos_met);              /* 4000 <= 2.0 x 2000 */
    assert_int_equal(r.app[1].passes, 1); /* its second h2d (from 5666.7) still moving */
    assert_int_equal(r.tasks_done, 4 + 2);
    assert_true(r.gpu_util == 0); /* no kernel ran */
    accel_result_done(&r);

    /* The tasks' records: each copy's rate over its kind's rate alone. The LS h2d moved 6000
     * B in the 2000 ns since it was issued (0.5 of 6 GB/s), the batch's exclusive h2d 10000 B
     * in 1000 ns (all of 10 GB/s); the LS d2h 6000 B from 2000 to 4000 ns (0.5), the batch's
     * 20000 B from 1000 to 5666.7 ns (4.286 GB/s: 0.714). */
    struct accel_run_options o = {.record_tasks = true};
    run_with(&sc, &o, &r);
    static const struct {
        unsigned proc, task;
        double issued_ns, end_ns, share;
    } want[] = {{0, 0, 0, 2000, 0.5},
                {1, 0, 0, 1000, 1.0},
                {0, 1, 2000, 4000, 0.5},
                {1, 1, 1000, 17000.0 / 3, 20000 / (17000.0 / 3 - 1000) / 6}};
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        const struct accel_task_rec *t = NULL;
        for (size_t i = 0; i < r.ntasks && !t; i++)
            if (r.tasks[i].proc == want[w].proc && r.tasks[i].pass == 0 &&
                r.tasks[i].task == want[w].task)
                t = &r.tasks[i];
        if (!t)
            fail_msg("no record of process %u's task %u", want[w].proc, want[w].task);
        assert_close(t->issued_ns, want[w].issued_ns, 1e-6);
        assert_close(t->end_ns, want[w].end_ns, 1e-6);
        assert_close(t->link_share, want[w].share, 1e-9);
    }
    accel_result_done(&r);
    accel_scenario_done(&sc);
}

#define KERNELS_FMT                                                                                \
    "mode = \"accelerator\"; name = \"kernels\"; gpu = \"k40\"; seed = %u;\n"                      \
    "applications = (\n"                                                                           \
    " { name = \"q\"; role = \"ls\"; qos_target = 1.5; arrival = %s; queries = 6;\n"               \
    "   tasks = ( { type = \"h2d\"; bytes = 3000; },\n"                                            \
    "             { type = \"kernel\"; kernel = { tbs = 15; warps_per_tb = 4; insts_per_warp = "   \
    "1500; mem_fraction = 0.05; footprint_bytes = 1048576; }; },\n"                                \
    "             { type = \"d2h\"; bytes = 3000; } ); }%s\n"                                      \
    ");\n"

/* Poisson arrivals at 60 000 queries per second, and batch kernels of 1000 instructions per
 * warp: the queries still wait behind them (p99 about 5x alone), in about 0.36 ms of simulated
 * time with all 15 SMs busy, which is most of these tests' cost (4000 instructions per warp
 * took twice as long). */
#define POISSON "\"poisson\"; rate_qps = 60000"

static const char *batch = ",\n { name = \"b\"; role = \"batch\"; instances = 2;\n"
                           "   tasks = ( { type = \"kernel\"; kernel = { tbs = 60; warps_per_tb "
                           "= 8; insts_per_warp = 1000; mem_fraction = 0.05; "
                           "footprint_bytes = 4194304; }; } ); }";

/* The KERNELS_FMT scenario with seed and arrival, beside the batch application or not. */
static void load_kernels(struct accel_scenario *sc, unsigned seed, const char *arrival,
                         bool with_batch)
{
    char text[2048];
    snprintf(text, sizeof text, KERNELS_FMT, seed, arrival, with_batch ? batch : "");
    test_accel_load(sc, text);
}

static void run_kernels(unsigned seed, const char *arrival, bool with_batch, struct accel_result *r)
{
    struct accel_scenario sc;
    load_kernels(&sc, seed, arrival, with_batch);
    run(&sc, r);
    accel_scenario_done(&sc);
}

/* Alone, every closed-loop query lasts its copies plus its kernel; beside batch kernels that
 * fill every SM, its kernel waits for SMs to free (no pre-emption), so each query is slower. */
static void test_kernels_queue_behind_batch(void **state)
{
    (void)state;
    struct accel_result alone, shared;
    run_kernels(1, "\"closed\"", false, &alone);
    run_kernels(1, "\"closed\"", true, &shared);
    const struct accel_app_result *a = &alone.app[0], *s = &shared.app[0];
    assert_int_equal(a->queries, 6);
    assert_int_equal(s->queries, 6);
    /* copies: 500 ns each way; the kernel adds some microseconds */
    assert_true(a->p50_ms > 1e-3 && a->p99_ms < 0.1);
    assert_true(s->p50_ms > 1.2 * a->p50_ms);
    for (unsigned q = 0; q < 6; q++)
        assert_true(s->latency_ms[q] > a->solo_p50_ms);
    assert_true(shared.app[1].passes > 0);
    assert_int_equal(shared.app[0].instances, 1);
    assert_int_equal(shared.app[1].instances, 2); /* the batch application's, as written */
    assert_true(shared.gpu_util > alone.gpu_util);
    assert_true(shared.gpu_util > 0.5 && shared.gpu_util <= 1);
    assert_int_equal(alone.tasks_done, 18);
    accel_result_done(&alone);
    accel_result_done(&shared);
}

/* The same scenario and seed give the same latencies; Poisson arrivals follow the seed. */
static void test_deterministic_and_seeded(void **state)
{
    (void)state;
    struct accel_result a, b, c;
    run_kernels(3, POISSON, true, &a);
    run_kernels(3, POISSON, true, &b);
    run_kernels(4, POISSON, true, &c);
    assert_int_equal(a.cycles, b.cycles);
    assert_memory_equal(a.app[0].latency_ms, b.app[0].latency_ms, 6 * sizeof(double));
    assert_true(a.cycles != c.cycles);
    /* 6 arrivals at 60000 per second: about 100 us of simulated time */
    assert_true(a.sim_ms > 0.03);
    accel_result_done(&a);
    accel_result_done(&b);
    accel_result_done(&c);
}

/* The QoS reference is the application alone under the same arrivals. Poisson queries at
 * 200 000 per second, each one 60000 B copy (10000 ns alone, twice the mean gap), queue
 * behind each other even alone: query q ends at max(its arrival, the last one's end) +
 * 10000 ns. A batch process copying the other way shares nothing with them, so beside it
 * the latencies are the same and the p99 is 1.00x the reference: met. Against the closed-loop
 * latency alone (10000 ns, the reference before) the queueing would read as a violation. */
static void test_reference_is_alone_under_same_arrivals(void **state)
{
    (void)state;
    struct accel_scenario sc;
    test_accel_load(&sc,
                    "mode = \"accelerator\"; name = \"load\"; gpu = \"k40\"; seed = 3;\n"
                    "applications = (\n"
                    " { name = \"q\"; role = \"ls\"; qos_target = 1.5; arrival = \"poisson\";\n"
                    "   rate_qps = 200000; queries = 40;\n"
                    "   tasks = ( { type = \"h2d\"; bytes = 60000; } ); },\n"
                    " { name = \"b\"; role = \"batch\"; instances = 1;\n"
                    "   tasks = ( { type = \"d2h\"; bytes = 600000; } ); }\n"
                    ");\n");
    double arrive[40], lat[40], end = 0;
    accel_arrivals(&sc, 0, 40, arrive);
    for (unsigned q = 0; q < 40; q++) {
        end = (arrive[q] > end ? arrive[q] : end) + 10000;
        lat[q] = (end - arrive[q]) / 1e6;
    }
    double p99 = accel_percentile(lat, 40, 99);
    assert_true(p99 > 1.5 * 10000e-6); /* the closed-loop reference would call it violated */
    struct accel_result r;
    run(&sc, &r);
    const struct accel_app_result *q = &r.app[0];
    for (unsigned i = 0; i < 40; i++)
        assert_close(q->latency_ms[i], lat[i], 1e-9);
    assert_close(q->solo_p99_ms, p99, 1e-9);
    assert_close(q->p99_ms, p99, 1e-9);
    assert_true(q->qos_met);
    accel_result_done(&r);
    accel_scenario_done(&sc);
}

/* solo_queries bounds the solo runs: the copies scenario's LS application alone takes
 * 2000 ns a query (745 cycles a microsecond on k40), so its solo run of its 2 queries is
 * 2980 core cycles, of its first 1 half that, with the same latency. */
static void test_solo_queries_bound_the_solo_run(void **state)
{
    (void)state;
    struct accel_scenario sc;
    test_accel_load(&sc, test_accel_copies_cfg);
    uint64_t cycles[2];
    for (unsigned sq = 0; sq < 2; sq++) {
        struct accel_run_options o = {.solo_queries = sq};
        struct accel_result r;
        run_with(&sc, &o, &r);
        assert_close(r.app[0].solo_p99_ms, 2000e-6, 1e-9);
        cycles[sq] = r.solo_cycles;
        accel_result_done(&r);
    }
    assert_int_equal(cycles[0], 2980);
    assert_int_equal(cycles[1], 1490);
    accel_scenario_done(&sc);
}

/* The solo run's latencies, when given (measured before), replace that run: the scale-out
 * study gives each cell the LS application's latencies alone that the bubble baseline
 * measured at the same load. That run is the solo run: same GPU, seed and arrivals, so the
 * results are those of a run that simulates it; and the values given are the ones used. */
static void test_solo_latencies_given(void **state)
{
    (void)state;
    struct accel_scenario sc, ls_only;
    load_kernels(&sc, 2, POISSON, true);
    load_kernels(&ls_only, 2, POISSON, false);
    char err[512];
    struct accel_bubble b;
    memset(&b, 0, sizeof(b));
    if (accel_bubble_measure_part(&ls_only, ACCEL_BUBBLE_LS, &b, err, sizeof err))
        fail_msg("bubble: %s", err);
    struct accel_result simulated, given;
    run(&sc, &simulated);
    struct accel_run_options o = {.solo_latency_ms = {b.alone_ms[0]}};
    if (accel_run(&sc, &o, &given, err, sizeof err))
        fail_msg("accel_run: %s", err);
    const struct accel_app_result *x = &simulated.app[0], *y = &given.app[0];
    assert_true(simulated.solo_cycles > 0);
    assert_int_equal(given.solo_cycles, 0); /* not simulated */
    assert_true(x->solo_p99_ms == y->solo_p99_ms);
    assert_true(x->solo_p50_ms == y->solo_p50_ms);
    assert_true(x->solo_mean_ms == y->solo_mean_ms);
    assert_true(x->p99_ms == y->p99_ms);
    assert_int_equal(x->qos_met, y->qos_met);
    assert_int_equal(simulated.cycles, given.cycles);
    accel_result_done(&given);

    double twice[6];
    for (unsigned q = 0; q < 6; q++)
        twice[q] = 2 * b.alone_ms[0][q];
    o.solo_latency_ms[0] = twice;
    if (accel_run(&sc, &o, &given, err, sizeof err))
        fail_msg("accel_run: %s", err);
    assert_close(given.app[0].solo_p99_ms, 2 * x->solo_p99_ms, 1e-12);
    assert_close(given.app[0].solo_mean_ms, 2 * x->solo_mean_ms, 1e-12);
    accel_result_done(&given);
    accel_result_done(&simulated);
    accel_bubble_done(&b);
    accel_scenario_done(&sc);
    accel_scenario_done(&ls_only);
}

/* The runs the prophet experiments take one another's place by are one run: the application
 * on its own (co-location's n = 0) and the solo run of it beside batch instances, under
 * Poisson arrivals and in a closed loop; in the closed loop (accuracy) the bubble's latencies
 * alone too, query for query. */
static void test_reference_runs_agree(void **state)
{
    (void)state;
    const char *arrivals[] = {"\"closed\"", POISSON};
    for (unsigned i = 0; i < 2; i++) {
        struct accel_scenario sc, ls_only;
        load_kernels(&sc, 3, arrivals[i], true);
        load_kernels(&ls_only, 3, arrivals[i], false);
        struct accel_result alone, beside;
        run(&ls_only, &alone);
        run(&sc, &beside);
        assert_int_equal(alone.app[0].queries, 6);
        assert_true(beside.app[0].solo_p99_ms == alone.app[0].p99_ms);
        assert_true(beside.app[0].solo_p50_ms == alone.app[0].p50_ms);
        assert_true(beside.app[0].solo_mean_ms == alone.app[0].mean_ms);
        assert_true(beside.app[0].p99_ms > alone.app[0].p99_ms); /* the batch is felt */
        if (i == 0) {
            char err[512];
            struct accel_bubble b;
            memset(&b, 0, sizeof(b));
            if (accel_bubble_measure_part(&sc, ACCEL_BUBBLE_LS, &b, err, sizeof err))
                fail_msg("bubble: %s", err);
            for (unsigned q = 0; q < 6; q++)
                assert_true(alone.app[0].latency_ms[q] == b.alone_ms[0][q]);
            accel_bubble_done(&b);
        }
        accel_result_done(&alone);
        accel_result_done(&beside);
        accel_scenario_done(&sc);
        accel_scenario_done(&ls_only);
    }
}

/* threads = 2 runs the solo runs on a thread beside the co-located run: the same result to
 * the bit, task table included, as one thread. */
static void test_solo_thread(void **state)
{
    (void)state;
    struct accel_scenario sc;
    load_kernels(&sc, 2, POISSON, true);
    struct accel_result one, two;
    char err[512];
    struct accel_run_options o = {.record_tasks = true, .threads = 1};
    if (accel_run(&sc, &o, &one, err, sizeof err))
        fail_msg("accel_run: %s", err);
    o.threads = 2;
    if (accel_run(&sc, &o, &two, err, sizeof err))
        fail_msg("accel_run, two threads: %s", err);
    assert_true(one.solo_cycles > 0);
    assert_int_equal(one.solo_cycles, two.solo_cycles);
    assert_int_equal(one.cycles, two.cycles);
    assert_int_equal(one.app[0].queries, two.app[0].queries);
    for (unsigned q = 0; q < one.app[0].queries; q++)
        assert_true(one.app[0].latency_ms[q] == two.app[0].latency_ms[q]);
    assert_true(one.app[0].solo_p99_ms == two.app[0].solo_p99_ms);
    assert_true(one.app[0].solo_mean_ms == two.app[0].solo_mean_ms);
    assert_int_equal(one.ntasks, two.ntasks);
    for (size_t i = 0; i < one.ntasks; i++) {
        const struct accel_task_rec *x = &one.tasks[i], *y = &two.tasks[i];
        assert_int_equal(x->proc, y->proc);
        assert_int_equal(x->pass, y->pass);
        assert_int_equal(x->task, y->task);
        assert_true(x->issued_ns == y->issued_ns && x->end_ns == y->end_ns);
    }
    accel_result_done(&one);
    accel_result_done(&two);
    accel_scenario_done(&sc);
}

/* The first task of instance proc (pass 0): when it was issued (ns). */
static double first_issue(const struct accel_result *r, unsigned proc)
{
    for (size_t i = 0; i < r->ntasks; i++)
        if (r->tasks[i].proc == proc && r->tasks[i].pass == 0 && r->tasks[i].task == 0)
            return r->tasks[i].issued_ns;
    fail_msg("no first task of process %u", proc);
    return -1;
}

/* Staggered batch instances: the copies scenario's batch b twice (processes 1 and 2) with
 * stagger_ms = 0.002, so instance 1 of the 2 begins 0.002 / 2 ms = 1000 ns late (its
 * exclusive h2d is issued then, as instance 0's ends); without it both at 0. The LS
 * application has no stagger: its first query at 0. Predictions are refused, naming it. */
static void test_stagger(void **state)
{
    (void)state;
    char text[2048];
    const char *from = "instances = 1;";
    const char *at = strstr(test_accel_copies_cfg, from);
    assert_non_null(at);
    for (unsigned staggered = 0; staggered < 2; staggered++) {
        snprintf(text, sizeof text, "%.*sinstances = 2;%s%s", (int)(at - test_accel_copies_cfg),
                 test_accel_copies_cfg, staggered ? " stagger_ms = 0.002;" : "", at + strlen(from));
        struct accel_scenario sc;
        test_accel_load(&sc, text);
        assert_close(sc.apps[1].stagger_ms, staggered ? 0.002 : 0, 0);
        struct accel_run_options o = {.record_tasks = true};
        struct accel_result r;
        char err[512];
        run_with(&sc, &o, &r);
        assert_close(first_issue(&r, 0), 0, 1e-9);
        assert_close(first_issue(&r, 1), 0, 1e-9);
        assert_close(first_issue(&r, 2), staggered ? 1000 : 0, 1e-9);
        assert_int_equal(r.app[0].queries, 2);
        accel_result_done(&r);
        struct accel_profiles p;
        int rc = accel_profile(&sc, &p, err, sizeof err);
        accel_profiles_done(&p);
        if (staggered) {
            assert_int_equal(rc, -1);
            assert_non_null(strstr(err, "b: stagger_ms = 0.002: the predictors model"));
        } else {
            assert_int_equal(rc, 0);
        }
        accel_scenario_done(&sc);
    }
}

/* A warm-up: the copies scenario with warmup_ms = 0.004. The batch runs alone first: its
 * exclusive h2d 0-1000 ns, its d2h 1000-4333.3, its next h2d (exclusive) 4333.3-5333.3, its
 * next d2h from 5333.3. The LS closed loop sends its first query at 4000: its h2d (6000 B,
 * sharing) moves at 6 GB/s until the exclusive copy pauses it at 4333.3 (2000 B moved),
 * resumes at 5333.3 and ends at 6000; its d2h then shares the other direction with the
 * batch's (16000 B left): 3 GB/s each, 2000 ns, to 8000. Query 1: 4000 ns from its arrival.
 * The solo reference has no warm-up (alone: 2000 ns), and the predictors refuse it. */
static void test_warmup(void **state)
{
    (void)state;
    char text[1024];
    snprintf(text, sizeof text, "%swarmup_ms = 0.004;\n", test_accel_copies_cfg);
    struct accel_scenario sc;
    test_accel_load(&sc, text);
    assert_close(sc.warmup_ms, 0.004, 1e-12);
    struct accel_run_options o = {.record_tasks = true};
    struct accel_result r;
    char err[512];
    run_with(&sc, &o, &r);
    const struct accel_app_result *q = &r.app[0];
    assert_int_equal(q->queries, 2);
    assert_close(q->latency_ms[0], 4000e-6, 1e-9);
    assert_close(q->solo_p99_ms, 2000e-6, 1e-9);
    double first = INFINITY;
    for (size_t i = 0; i < r.ntasks; i++)
        if (r.tasks[i].app == 0 && r.tasks[i].issued_ns < first)
            first = r.tasks[i].issued_ns;
    assert_close(first, 4000, 1e-6);
    accel_result_done(&r);
    struct accel_profiles p;
    assert_int_equal(accel_profile(&sc, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "warmup_ms = 0.004"));
    accel_profiles_done(&p);
    accel_scenario_done(&sc);
}

/* An LS application alone has nothing to warm up beside: its first query goes at 0 despite
 * warmup_ms. Its 150 queries of two copies each are 300 rows of the task table (which
 * grows past its first 256). */
static void test_alone_no_warmup_long_log(void **state)
{
    (void)state;
    struct accel_scenario sc;
    test_accel_load(&sc, "mode = \"accelerator\"; name = \"alone\"; gpu = \"k40\"; seed = 1;\n"
                         "warmup_ms = 0.004;\n"
                         "applications = ( { name = \"q\"; role = \"ls\"; qos_target = 2.0;\n"
                         "  arrival = \"closed\"; queries = 150;\n"
                         "  tasks = ( { type = \"h2d\"; bytes = 6000; },\n"
                         "            { type = \"d2h\"; bytes = 6000; } ); } );\n");
    struct accel_run_options o = {.record_tasks = true};
    struct accel_result r;
    run_with(&sc, &o, &r);
    assert_int_equal(r.app[0].queries, 150);
    assert_int_equal(r.tasks_done, 300);
    assert_int_equal(r.ntasks, 300);
    double first = INFINITY, last = 0;
    for (size_t i = 0; i < r.ntasks; i++) {
        assert_int_equal(r.tasks[i].kind, i % 2 ? ACCEL_D2H : ACCEL_H2D);
        first = r.tasks[i].issued_ns < first ? r.tasks[i].issued_ns : first;
        last = r.tasks[i].end_ns > last ? r.tasks[i].end_ns : last;
    }
    assert_close(first, 0, 1e-9);
    /* Alone, each query takes its two copies' 2000 ns, back to back. */
    assert_close(last, 150 * 2000, 1e-3);
    accel_result_done(&r);
    accel_scenario_done(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_percentile),
        cmocka_unit_test(test_ms_text),
        cmocka_unit_test(test_run_that_cannot_start),
        cmocka_unit_test(test_copies_by_hand),
        cmocka_unit_test(test_reference_is_alone_under_same_arrivals),
        cmocka_unit_test(test_kernels_queue_behind_batch),
        cmocka_unit_test(test_deterministic_and_seeded),
        cmocka_unit_test(test_solo_latencies_given),
        cmocka_unit_test(test_solo_queries_bound_the_solo_run),
        cmocka_unit_test(test_reference_runs_agree),
        cmocka_unit_test(test_stagger),
        cmocka_unit_test(test_solo_thread),
        cmocka_unit_test(test_warmup),
        cmocka_unit_test(test_alone_no_warmup_long_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
