/* Unit tests: reproduce_scaleout — the diurnal load and its levels, the cluster's day
 * summed from cells worked out by hand (GPUs used, instances placed, MPS slots, SM busy,
 * co-locations and QoS violations per decider), which cells a shard takes, and a cell's bubble
 * put together from the parts the study measures once. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "assert_close.h"

#include "corun/accel_bubble.h"
#include "corun/accel_scenario.h"
#include "corun/reproduce_scaleout.h"
#include "corun/util.h"

#include <stdlib.h>

static void test_load(void **state)
{
    (void)state;
    struct so_params p;
    so_params_default(false, &p);
    assert_int_equal(p.gpus, 700);
    assert_int_equal(p.batch_pool, 11000);
    assert_int_equal(p.nls, 7);
    assert_int_equal(p.nbatch, 11);
    assert_int_equal(p.slots, 8);
    assert_close(p.target, 1 / 0.7, 1e-12);
    /* trough 0.1 at slot 0, peak 0.5 at slot 4, 0.3 half-way; slot 1: 0.1 + 0.4 (1 - cos 45°)
     * / 2 = 0.158579 */
    assert_close(so_load(&p, 0), 0.1, 1e-12);
    assert_close(so_load(&p, 2), 0.3, 1e-12);
    assert_close(so_load(&p, 4), 0.5, 1e-12);
    assert_close(so_load(&p, 1), 0.1 + 0.4 * (1 - sqrt(0.5)) / 2, 1e-12);
    assert_close(so_load(&p, 7), so_load(&p, 1), 1e-12);
    assert_int_equal(so_level(&p, 0), 0);
    assert_int_equal(so_level(&p, 4), 4);
    assert_int_equal(so_level(&p, 5), 3);
    assert_int_equal(so_level(&p, 7), 1);
    so_params_default(true, &p);
    assert_int_equal(p.gpus % p.nls, 0);
    assert_int_equal(so_level(&p, 1), 1);
}

/* 4 GPUs: 0 and 1 serve LS 0, 2 and 3 LS 1; even GPUs batch 0, odd batch 1. Two slots (level
 * 0, then level 1); 40 batch instances to run; target 1.5.
 * prophet picks k = 2 everywhere; the measured p99 is over the target (1.6x) for LS 1 beside
 * batch 1 at level 1 only, and over 1.1 x the target (1.7x) nowhere. Slot 0: 8 placed, 32
 * left for batch-only GPUs: 2, so 6 GPUs; slot 1 the same: mean 6, peak 6. MPS slots 2/15.
 * SM busy: the cells' util at k = 2: 0.2 0.3 0.4 0.5 (level 0), 0.6 0.7 0.8 0.9 (level 1):
 * mean 0.55. Co-locations 8, violations 1.
 * none (k = 0): 40 left: 3 batch-only GPUs, 7; util at k = 0 is 0.1 everywhere.
 * full (15): 60 placed, none left: 4 GPUs; every measured p99 2.0x: 8 violations, all over
 * 10 %. */
static void test_summarize_by_hand(void **state)
{
    (void)state;
    static const char *const ls[] = {"a", "b"}, *const batch[] = {"x", "y"};
    struct so_params p = {.ls = ls,
                          .nls = 2,
                          .batch = batch,
                          .nbatch = 2,
                          .gpus = 4,
                          .batch_pool = 40,
                          .slots = 2,
                          .target = 1.5,
                          .queries = 1};
    struct so_cell cells[2 * 2 * 2];
    memset(cells, 0, sizeof cells);
    for (unsigned i = 0; i < 8; i++) {
        struct so_cell *c = &cells[i];
        c->k[SO_PROPHET] = 2;
        c->k[SO_SEQUENTIAL] = 0;
        c->k[SO_BUBBLE] = 1;
        c->k[SO_FULL] = 15;
        c->p99_x[0] = 1;
        c->gpu_util[0] = 0.1;
        c->p99_x[1] = 1.2;
        c->gpu_util[1] = 0.15;
        c->p99_x[2] = 1.4;
        c->p99_x[15] = 2.0;
        c->gpu_util[15] = 1.0;
    }
    /* cells[(ls * 2 + batch) * 2 + level] */
    const double util2[2][4] = {{0.2, 0.3, 0.4, 0.5}, {0.6, 0.7, 0.8, 0.9}};
    for (unsigned cell = 0; cell < 4; cell++)
        for (unsigned level = 0; level < 2; level++)
            cells[cell * 2 + level].gpu_util[2] = util2[level][cell];
    cells[(1 * 2 + 1) * 2 + 1].p99_x[2] = 1.6;
    struct so_summary s[SO_DECIDERS];
    so_summarize(&p, cells, s);

    assert_close(s[SO_PROPHET].gpus_mean, 6, 1e-12);
    assert_int_equal(s[SO_PROPHET].gpus_peak, 6);
    assert_close(s[SO_PROPHET].placed_mean, 8, 1e-12);
    assert_close(s[SO_PROPHET].slot_share, 2.0 / 15, 1e-12);
    assert_close(s[SO_PROPHET].sm_busy, 0.55, 1e-12);
    assert_int_equal(s[SO_PROPHET].colocations, 8);
    assert_int_equal(s[SO_PROPHET].violations, 1);
    assert_int_equal(s[SO_PROPHET].violations10, 0);

    assert_close(s[SO_NONE].gpus_mean, 7, 1e-12);
    assert_close(s[SO_NONE].sm_busy, 0.1, 1e-12);
    assert_int_equal(s[SO_NONE].colocations, 0);
    assert_close(s[SO_SEQUENTIAL].gpus_mean, 7, 1e-12);

    /* bubble: 4 placed, 36 left: 3 batch-only GPUs; 1.2x meets the target */
    assert_close(s[SO_BUBBLE].gpus_mean, 7, 1e-12);
    assert_close(s[SO_BUBBLE].placed_mean, 4, 1e-12);
    assert_int_equal(s[SO_BUBBLE].violations, 0);

    assert_close(s[SO_FULL].gpus_mean, 4, 1e-12);
    assert_close(s[SO_FULL].slot_share, 1, 1e-12);
    assert_close(s[SO_FULL].sm_busy, 1, 1e-12);
    assert_int_equal(s[SO_FULL].violations, 8);
    assert_int_equal(s[SO_FULL].violations10, 8);
    assert_string_equal(so_decider_name(SO_BUBBLE), "bubble");
}

/* Shards cut the cells, taken in the order LS application, load, batch application, into
 * runs: every cell is in one shard of N, the shards' sizes differ by at most one, and a
 * shard's cells belong to as few (LS, load) pairs as a run of that many can (it measures a
 * curve for each): at most two in the full form's 64- and 110-way splits, where every N-th
 * cell gave one pair per cell, and one for the quick form's four shards. */
static void test_shard_groups(void **state)
{
    (void)state;
    for (int quick = 1; quick >= 0; quick--) {
        struct so_params p;
        so_params_default(quick, &p);
        size_t levels = p.slots / 2 + 1, ncells = p.nls * p.nbatch * levels;
        static const unsigned ns[] = {2, 4, 5, 8, 64, 110, 385};
        for (size_t t = 0; t < CORUN_ARRAY_LEN(ns); t++) {
            p.shards = ns[t];
            size_t lo = ncells, hi = 0;
            unsigned *in = xcalloc(ncells, sizeof(unsigned));
            for (p.shard = 1; p.shard <= p.shards; p.shard++) {
                bool pair[7 * SO_MAX_LEVELS] = {false};
                size_t n = 0, pairs = 0;
                for (size_t i = 0; i < ncells; i++) {
                    if (!so_in_shard(&p, i))
                        continue;
                    in[i]++;
                    n++;
                    size_t g = i / levels / p.nbatch * levels + i % levels;
                    pairs += !pair[g];
                    pair[g] = true;
                }
                lo = n < lo ? n : lo;
                hi = n > hi ? n : hi;
                if (p.shards <= ncells)
                    assert_true(n > 0);
                if (n) /* n consecutive cells meet at most this many pairs */
                    assert_true(pairs <= (n + p.nbatch - 2) / p.nbatch + 1);
                if (p.shards >= 64)
                    assert_true(pairs <= 2);
                if (quick && p.shards == 4)
                    assert_int_equal(pairs, 1);
            }
            for (size_t i = 0; i < ncells; i++)
                assert_int_equal(in[i], 1);
            if (p.shards <= ncells)
                assert_true(hi - lo <= 1);
            free(in);
        }
    }
}

/* A shard takes a run of cells: the quick form's 8 cells leave shard 9/9 none, so it
 * measures and simulates nothing (no data directory is read) and has no summary; a shard
 * outside 1..N is refused. */
static void test_shard(void **state)
{
    (void)state;
    struct so_params p;
    so_params_default(true, &p);
    p.shard = 9;
    p.shards = 9;
    struct so_result r;
    char err[256] = "";
    assert_int_equal(so_run("/nonexistent", &p, &r, NULL, NULL, err, sizeof err), 0);
    assert_int_equal(r.missing, 8);
    assert_int_equal(r.simulated_cells, 0);
    assert_int_equal(r.simulations, 0);
    assert_int_equal(r.sum[SO_FULL].colocations, 0); /* not summarized */
    for (unsigned i = 0; i < 8; i++)
        assert_false(r.present[i]);
    so_result_done(&r);
    p.shard = 3;
    p.shards = 2;
    assert_int_equal(so_run("/nonexistent", &p, &r, NULL, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "shard 3 of 2"));
    so_result_done(&r);
}

/* A cell's bubble, from the two parts the study measures once each: the LS application's
 * curve and latencies alone from ls_part, batch application b's pressure from batch_part's
 * application 1 + b (with made-up values, each distinct), and nothing else. */
static void test_bubble_for(void **state)
{
    (void)state;
    struct accel_bubble lsp, bp;
    memset(&lsp, 0, sizeof lsp);
    memset(&bp, 0, sizeof bp);
    double alone[3] = {1.5, 2.5, 3.5};
    lsp.alone_ms[0] = alone;
    lsp.ls[0] = (struct bubble_curve){2, {0, 1}, {1, 1.75}};
    bp.reporter = (struct bubble_curve){2, {0, 2}, {1, 1.5}};
    for (unsigned a = 0; a < ACCEL_MAX_APPS; a++) {
        bp.pressure[a] = 0.25 * a;
        bp.reporter_deg[a] = 1 + 0.125 * a;
    }
    struct accel_bubble *x = so_bubble_for(&lsp, &bp, 1, 3);
    assert_close(x->pressure[1], 0.5, 0);
    assert_close(x->reporter_deg[1], 1.25, 0);
    assert_memory_equal(&x->ls[0], &lsp.ls[0], sizeof lsp.ls[0]);
    assert_memory_equal(&x->reporter, &bp.reporter, sizeof bp.reporter);
    assert_true(x->alone_ms[0] != alone); /* its own copy */
    assert_memory_equal(x->alone_ms[0], alone, sizeof alone);
    for (unsigned a = 2; a < ACCEL_MAX_APPS; a++)
        assert_true(x->pressure[a] == 0 && x->reporter_deg[a] == 0 && !x->alone_ms[a]);
    assert_true(x->pressure[0] == 0 && x->cycles == 0);
    accel_bubble_done(x);
    free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load),         cmocka_unit_test(test_summarize_by_hand),
        cmocka_unit_test(test_shard_groups), cmocka_unit_test(test_shard),
        cmocka_unit_test(test_bubble_for),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
