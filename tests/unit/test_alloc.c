/* Unit tests: SM allocators — the registry, the shared helpers (what-if fallback, invariants,
 * placement) and every allocator but SMQoS (test_alloc_smqos.c) on hand-built inputs whose
 * expected partitions are worked out by hand in the comments, with alloc_fixtures' fake
 * what-if standing in for the predictor. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "assert_close.h"

#include "alloc_fixtures.h"

static void registry_lists_every_allocator(void **state)
{
    (void)state;
    const char *want[] = {"static", "even",          "proportional", "static-smqos", "fair",
                          "qos",    "themis-engine", "smqos",        "bw-app"};
    size_t n = alloc_registry_count();
    assert_int_equal(n, sizeof want / sizeof want[0]);
    const char *got[16];
    assert_int_equal(alloc_registry_names(got, 16), n);
    for (size_t i = 0; i < n; i++) {
        const struct allocator_ops *a = alloc_registry_at(i);
        assert_string_equal(got[i], want[i]);
        assert_ptr_equal(alloc_registry_find(want[i]), a);
        assert_non_null(a->summary);
        assert_true(a->create && a->destroy && a->decide);
        bool predicted = !strcmp(a->name, "fair") || !strcmp(a->name, "qos") ||
                         !strcmp(a->name, "themis-engine");
        assert_int_equal(a->uses_predictor, predicted);
        assert_int_equal(a->uses_interval, !strcmp(a->name, "smqos"));
        if (!strcmp(a->name, "bw-app"))
            assert_string_equal(a->dram_scheduler, "bw-app");
        else
            assert_null(a->dram_scheduler);
    }
    assert_null(alloc_registry_at(n));
    assert_null(alloc_registry_find("fiar"));
    assert_null(alloc_registry_find(NULL));
}

static void np_at_prefers_the_what_if_then_the_line(void **state)
{
    (void)state;
    struct alloc_input in = input(80, 2, (unsigned[]){40, 40}, (double[]){0.6, NAN});
    /* No what-if: HSM's line through (0, 0) and (40 SMs, 0.6): at 20 SMs 0.3. */
    assert_close(alloc_np_at(&in, 0, 20), 0.3, 1e-12);
    assert_true(isnan(alloc_np_at(&in, 1, 20))); /* no NP̂ */
    assert_close(alloc_np_at(&in, 1, 0), 0, 0);
    /* The line from a single SM; none from no SM at all (no gradient to draw). */
    struct alloc_input one = input(80, 2, (unsigned[]){1, 0}, (double[]){0.05, 0.5});
    assert_close(alloc_np_at(&one, 0, 4), 0.2, 1e-12);
    assert_true(isnan(alloc_np_at(&one, 1, 4)));
    /* It had 30 SMs on average over the interval (a drain): 0.6 × 20 / 30 = 0.4. */
    struct gpu_kernel_counters c = {.sms = 30};
    in.k[0].c = &c;
    assert_close(alloc_np_at(&in, 0, 20), 0.4, 1e-12);
    /* The predictor's what-if wins: 0.01 × 20; for kernel 1 too. */
    struct fake f = {{0.01, 0.02}, {0}};
    in.np_at = fake_np_at;
    in.np_at_ctx = &f;
    assert_close(alloc_np_at(&in, 0, 20), 0.2, 1e-12);
    assert_close(alloc_np_at(&in, 1, 20), 0.4, 1e-12);
}

static void place_keeps_owners_and_prefers_idle_sms(void **state)
{
    (void)state;
    /* 0 shrinks 4 → 3: it keeps SMs 0-2, SM 3 goes to kernel 1 (4 → 5); only SM 3 changes. */
    struct alloc_decision d = {.sms = {3, 5}};
    int old[8] = {0, 0, 0, 0, 1, 1, 1, 1}, out[8];
    alloc_place(&d, 2, old, 8, out);
    int want[8] = {0, 0, 0, 1, 1, 1, 1, 1};
    assert_memory_equal(out, want, sizeof want);
    /* Kernel 0 needs one more: the idle SM 6 before the gated SMs 4 and 5. One SM stays gated:
     * SM 4, gated already; SM 5 wakes to idle, SM 7 stays idle. */
    const int G = GPU_SM_GATED, I = GPU_SM_IDLE;
    struct alloc_decision g = {.sms = {3, 2}, .gated = 1};
    int old2[8] = {0, 0, 1, 1, G, G, I, I};
    alloc_place(&g, 2, old2, 8, out);
    int want2[8] = {0, 0, 1, 1, G, I, 0, I};
    assert_memory_equal(out, want2, sizeof want2);
    /* A finished kernel's SMs (all of kernel 1) go to kernel 0 in SM order. */
    struct alloc_decision f = {.sms = {8, 0}};
    alloc_place(&f, 2, old, 8, out);
    for (int i = 0; i < 8; i++)
        assert_int_equal(out[i], 0);
}

static void base_restores_the_invariants(void **state)
{
    (void)state;
    /* Kernel 2 finished with 30 SMs: they go one at a time to the fewest, 0 (20) first until
     * it ties 1 (30), then alternately: 20 + 10 + 10 = 40, 30 + 10 = 40. */
    struct alloc_input in = input(80, 3, (unsigned[]){20, 30, 30}, NULL);
    in.k[2].finished = true;
    unsigned s[3], gated;
    alloc_base(&in, false, s, &gated);
    assert_true(s[0] == 40 && s[1] == 40 && s[2] == 0 && gated == 0);
    /* Kernel 1 owns nothing: it gets an idle SM; with use_free the 9 other idle and 10 gated
     * SMs go out too: 0 has 60, 1 gets 1 + 19 = 20. */
    struct alloc_input in2 = input(80, 2, (unsigned[]){60, 0}, NULL);
    in2.gated = 10;
    alloc_base(&in2, false, s, &gated);
    assert_true(s[0] == 60 && s[1] == 1 && gated == 10);
    alloc_base(&in2, true, s, &gated);
    assert_true(s[0] == 60 && s[1] == 20 && gated == 0);
    /* No idle SM left: the kernel with none wakes a gated one. */
    struct alloc_input in3 = input(80, 2, (unsigned[]){70, 0}, NULL);
    in3.gated = 10;
    alloc_base(&in3, false, s, &gated);
    assert_true(s[0] == 70 && s[1] == 1 && gated == 9);
    /* Moves: SMs taken from the idle ones alone are moves too. */
    char moves[64];
    unsigned more[2] = {62, 1};
    alloc_format_moves(NULL, &in2, more, moves, sizeof moves);
    assert_string_equal(moves, "? 60→62, ? 0→1");
    unsigned same[2] = {60, 0};
    alloc_format_moves(NULL, &in2, same, moves, sizeof moves);
    assert_string_equal(moves, "no SM moves");
}

static void fixed_partitions(void **state)
{
    (void)state;
    /* static keeps 30/50 and its 0 idle; with 10 idle SMs (30/40) they stay idle. */
    struct alloc_input in = input(80, 2, (unsigned[]){30, 50}, NULL);
    struct alloc_decision d = decide_once(&allocator_static, &in);
    assert_counts(d, 30, 50);
    assert_string_equal(d.reason, "static: 30/50 (unchanged)");
    /* even: 80 over 3 = 26 rem 2 → 27/27/26. */
    struct alloc_input in3 = input(80, 3, (unsigned[]){40, 20, 20}, NULL);
    d = decide_once(&allocator_even, &in3);
    assert_counts(d, 27, 27, 26);
    /* bw-app splits the same way. */
    d = decide_once(&allocator_bw_app, &in3);
    assert_counts(d, 27, 27, 26);
    /* proportional: hotspot (1) high: round(0.8 × 80) = 64, lbm the other 16. */
    in.k[1].priority = 1;
    d = decide_once(&allocator_proportional, &in);
    assert_counts(d, 16, 64);
    /* hp_share 1 with two others: 80 − 1 − 1 = 78 (the 1-SM minimum), 1, 1. */
    struct alloc_params all = params;
    all.hp_share = 1;
    in3.p = &all;
    in3.k[0].priority = 1;
    d = decide_once(&allocator_proportional, &in3);
    assert_counts(d, 78, 1, 1);
    /* static-smqos on 24 SMs, no high priority: kernel 0 is LS, round(0.9 × 24) = 22; 2. */
    struct alloc_input s24 = input(24, 2, (unsigned[]){12, 12}, NULL);
    d = decide_once(&allocator_static_smqos, &s24);
    assert_counts(d, 22, 2);
    /* With kernel 1 high priority it is the LS kernel: 2/22. */
    s24.k[1].priority = 1;
    d = decide_once(&allocator_static_smqos, &s24);
    assert_counts(d, 2, 22);
    /* static_smqos_rounding = "down": 0.9 × 24 = 21.6 → 21; and 0.95 × 24 = 22.8 → 22 where
     * the nearest is 23 (the two readings of SMQoS §5.2). */
    struct alloc_params down = params;
    down.static_smqos_down = true;
    s24.p = &down;
    d = decide_once(&allocator_static_smqos, &s24);
    assert_counts(d, 3, 21);
    assert_non_null(strstr(d.reason, "rounded down"));
    down.smqos_policy = 0.95;
    d = decide_once(&allocator_static_smqos, &s24);
    assert_counts(d, 2, 22);
    down.static_smqos_down = false;
    d = decide_once(&allocator_static_smqos, &s24);
    assert_counts(d, 1, 23);
    /* Three kernels: policy 1 leaves each batch kernel its one SM (22/1/1); a policy below
     * half an SM still gives the LS kernel one (round(0.01 × 24) = 0 → 1; 12/11). */
    struct alloc_input t24 = input(24, 3, (unsigned[]){8, 8, 8}, NULL);
    struct alloc_params edge = params;
    edge.smqos_policy = 1;
    t24.p = &edge;
    d = decide_once(&allocator_static_smqos, &t24);
    assert_counts(d, 22, 1, 1);
    edge.smqos_policy = 0.01;
    d = decide_once(&allocator_static_smqos, &t24);
    assert_counts(d, 1, 12, 11);
    /* proportional with no high-priority kernel, or only high-priority ones: even, saying so. */
    struct alloc_input p3 = input(80, 3, (unsigned[]){40, 20, 20}, NULL);
    d = decide_once(&allocator_proportional, &p3);
    assert_counts(d, 27, 27, 26);
    assert_non_null(strstr(d.reason, "no high-priority kernel, even"));
    for (unsigned k = 0; k < 3; k++)
        p3.k[k].priority = 1;
    d = decide_once(&allocator_proportional, &p3);
    assert_counts(d, 27, 27, 26);
    assert_non_null(strstr(d.reason, "every kernel has high priority, even"));
}

/* Every allocator: one kernel alone gets every SM; a kernel that finishes mid-epoch gets 0. */
static void alone_and_finished_for_every_allocator(void **state)
{
    (void)state;
    struct fake f = {{0.01, 0.01, 0.01, 0.01}, {0}};
    for (size_t i = 0; i < alloc_registry_count(); i++) {
        const struct allocator_ops *a = alloc_registry_at(i);
        struct alloc_input in = input(80, 1, (unsigned[]){40}, (double[]){0.4});
        in.gated = 8;
        struct alloc_decision d = decide_once(a, &in);
        assert_true(d.sms[0] == 80 && d.gated == 0 && d.changed);
        /* Three kernels, bino (2) finished holding 30 SMs, the rest measured. */
        struct alloc_input in3 =
            input(80, 3, (unsigned[]){25, 25, 30}, (double[]){0.25, 0.25, 0.3});
        in3.np_at = fake_np_at;
        in3.np_at_ctx = &f;
        for (unsigned k = 0; k < 3; k++) {
            in3.k[k].ipc = 10;
            in3.k[k].ipc_isolated = 20;
        }
        in3.k[2].finished = true;
        d = decide_once(a, &in3);
        assert_int_equal(d.sms[2], 0);
        /* hotspot finishes too: lbm is alone and gets every SM. */
        in3.k[1].finished = true;
        d = decide_once(a, &in3);
        assert_true(d.sms[0] == 80 && d.sms[1] == 0 && d.sms[2] == 0);
    }
}

static void fair_equalizes_two_kernels(void **state)
{
    (void)state;
    /* lbm NP̂ 0.6, bino 0.3 on 40 SMs each: fairness 0.5 < 0.9. Lines 0.015 and 0.0075 per
     * SM: 0.015 (40 − m) = 0.0075 (40 + m) at m = 13.3; m = 13 gives 0.405 / 0.3975 (gap
     * 0.0075), m = 14 gives 0.39 / 0.405 (0.015): 13 SMs move, 27/53. */
    struct alloc_input in = input(80, 2, (unsigned[]){40, 40}, (double[]){0.6, 0.3});
    struct alloc_setup setup = {80, 2, (const char *const[]){"lbm", "bino"}, &params};
    char err[64];
    void *s = allocator_fair.create(&setup, err, sizeof err);
    struct alloc_decision d = decide(&allocator_fair, s, &in);
    assert_counts(d, 27, 53);
    assert_string_equal(d.reason, "fair: fairness 0.50 < 0.90, moved 13 SMs lbm→bino (0.98 "
                                  "predicted)"); /* 0.3975 / 0.405 = 0.981 */
    /* 0.6 and 0.56: fairness 0.93 ≥ 0.9, nothing moves. */
    in.k[1].np_pred = 0.56;
    d = decide(&allocator_fair, s, &in);
    assert_false(d.changed);
    assert_string_equal(d.reason, "fair: fairness 0.93 ≥ 0.90, keeping 40/40");
    /* 0.5 and 0.45: fairness exactly at the threshold is fair enough. */
    in.k[0].np_pred = 0.5;
    in.k[1].np_pred = 0.45;
    d = decide(&allocator_fair, s, &in);
    assert_false(d.changed);
    assert_string_equal(d.reason, "fair: fairness 0.90 ≥ 0.90, keeping 40/40");
    /* Both at 0 (nothing has progressed yet): equal, so fair, not 0 / 0. */
    in.k[0].np_pred = in.k[1].np_pred = 0;
    d = decide(&allocator_fair, s, &in);
    assert_false(d.changed);
    assert_string_equal(d.reason, "fair: fairness 1.00 ≥ 0.90, keeping 40/40");
    /* No predictor: no NP̂, the partition stays and the reason says why. */
    in.k[0].np_pred = in.k[1].np_pred = NAN;
    in.predictor = "none";
    d = decide(&allocator_fair, s, &in);
    assert_false(d.changed);
    assert_non_null(strstr(d.reason, "no NP̂ for lbm (predictor none)"));
    allocator_fair.destroy(s);
}

static void fair_balances_highest_and_lowest(void **state)
{
    (void)state;
    /* 3 kernels, 20/30/30 with NP̂ 0.8/0.3/0.6: slopes 0.04, 0.01, 0.02 per SM.
     * 1: highest 0 and lowest 1: 0.04 (20 − m) = 0.01 (30 + m) at m = 10: 10/40/30, NP
     *    0.4/0.4/0.6, fairness 0.67.
     * 2: highest 2, lowest 0 (tied with 1 at 0.4; the lower index): 0.02 (30 − m) = 0.04 (10 + m)
     * at m = 3.3; m = 3 (0.54 vs 0.52) beats 4 (0.52 vs 0.56): 13/40/27, NP 0.52/0.4/0.54, fairness
     * 0.74. 3: highest 2, lowest 1: 0.02 (27 − m) = 0.01 (40 + m) at m = 4.7; m = 5 (0.44 vs 0.45)
     *    beats 4 (0.46 vs 0.44): 13/45/22, NP 0.52/0.45/0.44, fairness 0.85.
     * 4: highest 0, lowest 2: m = 1 (0.48 vs 0.46; 2 gives 0.44 vs 0.48): 12/45/23, 0.94.
     * 5: highest 0, lowest 1: m = 1 (0.44 vs 0.46; 0 leaves 0.48 vs 0.45, 2 gives 0.40 vs
     *    0.47): 11/46/23, NP 0.44/0.46/0.46, fairness 0.96.
     * 6: highest 1, lowest 0: m = 1 gives 0.45 vs 0.48, worse than 0.46 vs 0.44: done. */
    struct alloc_input in = input(80, 3, (unsigned[]){20, 30, 30}, (double[]){0.8, 0.3, 0.6});
    struct alloc_decision d = decide_once(&allocator_fair, &in);
    assert_counts(d, 11, 46, 23);
    /* 0.3 / 0.8 comes out as 0.37499... in binary: printed 0.37. */
    assert_non_null(strstr(d.reason, "fairness 0.37 < 0.90, moved lbm 20→11, hotspot 30→46, "
                                     "bino 30→23 (0.96 predicted)"));
    /* 4 kernels, 20 SMs each, NP̂ 0.8/0.8/0.4/0.4 (slopes 0.04, 0.04, 0.02, 0.02).
     * 1: 0 and 2: 0.04 (20 − m) = 0.02 (20 + m) at 6.7; m = 7 (0.52 vs 0.54) beats 6 (0.56 vs
     *    0.52). Fairness stays 0.4 / 0.8 (kernels 1 and 3 untouched), not worse: go on.
     * 2: 1 and 3 alike: 13/13/27/27, NP 0.52/0.52/0.54/0.54, fairness 0.96.
     * 3: highest 2, lowest 0: m = 1 gives 0.52 vs 0.56, worse: done. */
    struct alloc_input in4 =
        input(80, 4, (unsigned[]){20, 20, 20, 20}, (double[]){0.8, 0.8, 0.4, 0.4});
    d = decide_once(&allocator_fair, &in4);
    assert_counts(d, 13, 13, 27, 27);
    /* A tie moves the fewer SMs. 8 SMs each, NP̂ 1/16, 1/16, 1/8 (slopes 1/128, 1/128, 1/64 per
     * SM, exact in binary). 1: highest 2, lowest 0: (8 − m)/64 vs (8 + m)/128, m = 3 (10/128 vs
     *    11/128): 11/8/5. 2: highest 0, lowest 1, one slope: m = 1 (10 vs 9) and m = 2 (9 vs 10)
     *    are as close, so 1 moves: 10/9/5, fairness 0.9. 3: a move back ties again: done.
     * (Taking the larger on a tie ends at 9/10/5, after moves back and forth.) */
    struct alloc_input tie =
        input(24, 3, (unsigned[]){8, 8, 8}, (double[]){1 / 16.0, 1 / 16.0, 1 / 8.0});
    d = decide_once(&allocator_fair, &tie);
    assert_counts(d, 10, 9, 5);
}

static void qos_reaches_the_target_with_the_fewest_sms(void **state)
{
    (void)state;
    /* hotspot (1) high priority, NP̂ 0.71 on 40 SMs, target 0.8: slope 0.01775; 45 SMs give
     * 0.799 < 0.8, 46 give 0.8165: +6 SMs from lbm, 34/46. */
    struct alloc_input in = input(80, 2, (unsigned[]){40, 40}, (double[]){0.5, 0.71});
    in.k[1].priority = 1;
    struct alloc_decision d = decide_once(&allocator_qos, &in);
    assert_counts(d, 34, 46);
    assert_string_equal(d.reason, "qos: hotspot NP̂ 0.71 < target 0.80, +6 SMs from lbm");
    /* NP̂ 0.95 > 0.9: slope 0.02375, the fewest SMs for 0.8 are ceil(33.7) = 34 (0.8075):
     * −6 SMs, to lbm: 46/34. */
    in.k[1].np_pred = 0.95;
    d = decide_once(&allocator_qos, &in);
    assert_counts(d, 46, 34);
    /* 0.85 lies within 0.8..0.9: nothing moves. */
    in.k[1].np_pred = 0.85;
    d = decide_once(&allocator_qos, &in);
    assert_false(d.changed);
    /* No high-priority kernel: nothing to protect. */
    in.k[1].priority = 0;
    d = decide_once(&allocator_qos, &in);
    assert_false(d.changed);
}

static void qos_asking_for_every_sm_and_greedy_low_priority(void **state)
{
    (void)state;
    /* lbm (0) high priority, NP̂ 0.1 on 20 SMs: even 78 SMs give 0.39 < 0.8. It gets all but
     * one SM per other kernel: 78/1/1. */
    struct alloc_input in = input(80, 3, (unsigned[]){20, 30, 30}, (double[]){0.1, 0.5, 0.5});
    in.k[0].priority = 1;
    struct alloc_decision d = decide_once(&allocator_qos, &in);
    assert_counts(d, 78, 1, 1);
    assert_non_null(strstr(d.reason, "even the most SMs will not reach it"));
    /* What-if: lbm 0.025/SM, hotspot 0.03/SM, bino 0.02/SM saturating at 0.4 (20 SMs).
     * Target 0.79 from NP̂ 0.5 on 20 SMs: 31 SMs give 0.775, 32 give 0.8: +12. Losses per SM
     * taken: bino 0 down to 20 SMs (10 SMs), then 0.02 against hotspot's 0.03: bino again,
     * twice. 32/30/18. */
    struct fake f = {{0.025, 0.03, 0.02}, {0, 0, 0.4}};
    in.np_at = fake_np_at;
    in.np_at_ctx = &f;
    in.k[0].np_pred = 0.5;
    in.k[0].qos_target = 0.79;
    d = decide_once(&allocator_qos, &in);
    assert_counts(d, 32, 30, 18);
    /* Shrinking: lbm 0.032/SM with NP̂ 0.96 on 30 SMs > 0.9; 0.79 needs ceil(24.7) = 25: the
     * 5 freed SMs go by gain, hotspot 0.03 each against bino's 0 (saturated): 25/35/20. */
    f.slope[0] = 0.032;
    in.k[0].np_pred = 0.96;
    in.k[0].sms = 30;
    in.k[1].sms = 30;
    in.k[2].sms = 20;
    d = decide_once(&allocator_qos, &in);
    assert_counts(d, 25, 35, 20);
}

/* The low-priority kernels give and take SMs by their what-if's marginal NP, not by their NP:
 * hotspot (1) saturates at 0.6 from 20 SMs (slope 0.03) and holds the larger NP, bino (2)
 * grows slowly (0.005 per SM) and holds the smaller, and each SM decides again. */
static void qos_moves_sms_by_the_margin(void **state)
{
    (void)state;
    struct fake f = {{0.025, 0.03, 0.005}, {0, 0.6, 0}};
    /* lbm (0) high priority, NP̂ 0.5 on 20 SMs against 0.79: 32 SMs (0.8), +12. hotspot loses
     * nothing down to 20 SMs, so it gives 10; then its loss is 0.03 an SM against bino's
     * 0.005: bino gives the other 2. 32/20/28. */
    struct alloc_input in = input(80, 3, (unsigned[]){20, 30, 30}, (double[]){0.5, 0.6, 0.15});
    in.np_at = fake_np_at;
    in.np_at_ctx = &f;
    in.k[0].priority = 1;
    in.k[0].qos_target = 0.79;
    struct alloc_decision d = decide_once(&allocator_qos, &in);
    assert_counts(d, 32, 20, 28);
    /* lbm 0.032 an SM, NP̂ 0.96 on 30 SMs > 0.9: 25 SMs keep 0.8 >= 0.79, 5 freed. hotspot
     * (25 SMs, saturated) gains nothing from more, bino (25) 0.005 each: all 5 to bino,
     * 25/25/30. */
    f.slope[0] = 0.032;
    in.k[0].np_pred = 0.96;
    in.k[0].sms = 30;
    in.k[1].sms = 25;
    in.k[2].sms = 25;
    d = decide_once(&allocator_qos, &in);
    assert_counts(d, 25, 25, 30);
}

/* Ties among the low-priority kernels, and the high-priority kernel at its limits. */
static void qos_ties_and_limits(void **state)
{
    (void)state;
    /* lbm (0) high priority, 0.025 an SM, NP̂ 0.5 on 20 SMs against 0.8: 32 SMs, +12. hotspot
     * and bino lose 1/128 an SM each (exact in binary, so the losses tie exactly), on 30 SMs
     * each: on a tie the one with more SMs gives, then the lower index, so they take turns:
     * 32/24/24 (always the later would give 32/30/18). */
    struct fake f = {{0.025, 1 / 128.0, 1 / 128.0}, {0}};
    struct alloc_input in =
        input(80, 3, (unsigned[]){20, 30, 30}, (double[]){0.5, 30 / 128.0, 30 / 128.0});
    in.np_at = fake_np_at;
    in.np_at_ctx = &f;
    in.k[0].priority = 1;
    struct alloc_decision d = decide_once(&allocator_qos, &in);
    assert_counts(d, 32, 24, 24);
    /* lbm 0.032 an SM, NP̂ 0.96 on 30 SMs > 0.9: 25 SMs keep 0.8, 5 freed; hotspot and bino
     * gain 1/128 each on 25 SMs each: on a tie the one with fewer SMs takes, then the lower
     * index: 25/28/27. */
    f.slope[0] = 0.032;
    in.k[0].np_pred = 0.96;
    in.k[0].sms = 30;
    in.k[1].sms = in.k[2].sms = 25;
    d = decide_once(&allocator_qos, &in);
    assert_counts(d, 25, 28, 27);
    /* A target one SM reaches (0.032 ≥ 0.01): lbm keeps one SM and gives the rest. */
    in.k[0].qos_target = 0.01;
    d = decide_once(&allocator_qos, &in);
    assert_int_equal(d.sms[0], 1);
    /* Below its target with every SM but one per other kernel already: nothing to take. */
    in.k[0].qos_target = 0.8;
    in.k[0].np_pred = 0.5;
    in.k[0].sms = 78;
    in.k[1].sms = in.k[2].sms = 1;
    d = decide_once(&allocator_qos, &in);
    assert_false(d.changed);
    assert_string_equal(d.reason, "qos: lbm NP̂ 0.50 < target 0.80 with 78 SMs already, 1 per "
                                  "other kernel; keeping 78/1/1");
}

static void themis_weighted_fairness_converges(void **state)
{
    (void)state;
    /* Weights ⟨0.2, 0.8⟩, NP̂ 0.5 on 40 SMs each, linear (0.0125 per SM). s·w = 2·0.2 = 0.4
     * and 2·0.8 = 1.6: unfairness (1.6 − 0.4)/1.6 = 0.75. Each one-SM move from 0 to 1 lowers
     * it (39/41: 0.737), the reverse raises it, so the engine moves one SM per round until
     * maxDist = 5: 35/45, NP 0.4375/0.5625, s·w 0.457/1.422, unfairness 0.68.
     * The next decisions, NP̂ following the line: 30/50, 25/55, 20/60 (unfairness 0.25); from
     * 20/60: 19/61 (0.197), 18/62 (0.139), 17/63 (0.2125, 0.7875: s·w 0.941/1.016, 0.074 <
     * thres 0.1): the criterion holds and the engine stops; at 17/63 it keeps. */
    struct alloc_input in = input(80, 2, (unsigned[]){40, 40}, (double[]){0.5, 0.5});
    in.k[0].weight = 0.2;
    in.k[1].weight = 0.8;
    void *s = make(&allocator_themis_engine, 80, 2);
    const unsigned want0[] = {35, 30, 25, 20, 17, 17};
    for (int step = 0; step < 6; step++) {
        struct alloc_decision d = decide(&allocator_themis_engine, s, &in);
        assert_int_equal(d.sms[0], want0[step]);
        assert_int_equal(d.sms[1], 80 - want0[step]);
        if (step == 0)
            assert_non_null(strstr(d.reason, "weighted unfairness 0.75 (thres 0.10), moved 5 "
                                             "SMs lbm→hotspot (0.68 predicted)"));
        assert_int_equal(d.changed, step < 5);
        for (unsigned k = 0; k < 2; k++) {
            in.k[k].sms = d.sms[k];
            in.k[k].np_pred = 0.0125 * d.sms[k];
        }
    }
    allocator_themis_engine.destroy(s);
}

static void themis_equal_weights_and_qos(void **state)
{
    (void)state;
    /* Weights all 0 (equal): NP̂ 0.6 / 0.3 on 40/40, unfairness (3.33 − 1.67)/3.33 = 0.5;
     * every move from 0 to 1 helps, but at most maxDist = 5 per decision: 35/45. */
    struct alloc_input in = input(80, 2, (unsigned[]){40, 40}, (double[]){0.6, 0.3});
    struct alloc_decision d = decide_once(&allocator_themis_engine, &in);
    assert_counts(d, 35, 45);
    /* QoS: hotspot (1) high priority at NP̂ 0.6 (0.015/SM) below 0.8, which needs 54 SMs:
     * each SM to it raises the score, 5 at most: 35/45 (0.675 predicted). */
    in.k[0].np_pred = 0.5;
    in.k[1].np_pred = 0.6;
    in.k[1].priority = 1;
    d = decide_once(&allocator_themis_engine, &in);
    assert_counts(d, 35, 45);
    assert_non_null(strstr(d.reason, "QoS hotspot NP̂ 0.60 (target 0.80), moved 5 SMs"));
    /* hotspot at 0.9 on 40 SMs (0.0225/SM) is above 0.8; 36 SMs still give 0.81, 35 give
     * 0.7875: it gives lbm 4 SMs, 44/36, and the criterion (one fewer would miss) holds. */
    in.k[1].np_pred = 0.9;
    d = decide_once(&allocator_themis_engine, &in);
    assert_counts(d, 44, 36);
    /* At 0.84 (0.021/SM) 39 SMs still give 0.819, 38 only 0.798: one SM moves, and the
     * reason says so. */
    in.k[1].np_pred = 0.84;
    d = decide_once(&allocator_themis_engine, &in);
    assert_counts(d, 41, 39);
    assert_non_null(strstr(d.reason, "QoS hotspot NP̂ 0.84 (target 0.80), moved 1 SM"));
    /* The same with the high-priority kernel first: lbm (0) at 0.9 gives hotspot 4 SMs. */
    in.k[1].priority = 0;
    in.k[0].priority = 1;
    in.k[0].np_pred = 0.9;
    in.k[1].np_pred = 0.5;
    d = decide_once(&allocator_themis_engine, &in);
    assert_counts(d, 36, 44);
    assert_non_null(strstr(d.reason, "QoS lbm NP̂ 0.90 (target 0.80), moved 4 SMs lbm→hotspot "
                                     "(0.81 predicted)"));
    /* Beside hotspot at 0.8 (0.02/SM) the pair is fair after one move (39/41: 0.8775 and
     * 0.82, unfairness 0.066 < 0.1), but QoS stops only where one SM fewer would miss the
     * target: 36/44 again. */
    in.k[1].np_pred = 0.8;
    d = decide_once(&allocator_themis_engine, &in);
    assert_counts(d, 36, 44);
    /* No NP̂: keep. */
    in.k[0].np_pred = NAN;
    d = decide_once(&allocator_themis_engine, &in);
    assert_false(d.changed);
}

/* A what-if for the case of a kernel without progress yet: kernel 1's NP̂ is 0 up to 40 SMs
 * and 0.01 per SM beyond; kernel 0's is 0.0125 per SM. */
static double np_zero_below_41(const void *ctx, unsigned k, double sms)
{
    (void)ctx;
    if (k == 0)
        return 0.0125 * sms;
    return sms > 40 ? 0.01 * (sms - 40) : 0;
}

static void themis_gives_a_stalled_kernel_sms(void **state)
{
    (void)state;
    /* Fair with kernel 1 at NP̂ 0 on 40/40: unfairness counts as 1 (eq. 11's slowdown is
     * infinite), and every move to kernel 1 makes it finite: 39/41 gives 0.4875 and 0.01,
     * unfairness 0.976, which beats 1; maxDist stops it at 35/45. */
    struct alloc_input in = input(80, 2, (unsigned[]){40, 40}, (double[]){0.5, 0});
    in.np_at = np_zero_below_41;
    struct alloc_decision d = decide_once(&allocator_themis_engine, &in);
    assert_counts(d, 35, 45);
    assert_non_null(strstr(d.reason, "weighted unfairness 1.00 (thres 0.10), moved 5 SMs"));
}

static void themis_qos_stops_once_the_target_is_held(void **state)
{
    (void)state;
    /* QoS, bino (2) high priority at 0.041 NP̂ per SM: 0.82 on its 20 SMs, 0.779 on 19, so
     * the criterion holds from the start. Moving lbm's SMs to hotspot (0.01 and 0.02 per SM)
     * would raise the others' NP̂ sum, but Algorithm 1 stops at the criterion: keep. */
    struct fake f = {{0.01, 0.02, 0.041}, {0}};
    struct alloc_input in = input(80, 3, (unsigned[]){30, 30, 20}, (double[]){0.3, 0.6, 0.82});
    in.k[2].priority = 1;
    in.np_at = fake_np_at;
    in.np_at_ctx = &f;
    struct alloc_decision d = decide_once(&allocator_themis_engine, &in);
    assert_counts(d, 30, 30, 20);
    assert_false(d.changed);
    assert_non_null(strstr(d.reason, "QoS bino NP̂ 0.82 (target 0.80), keeping"));
    /* One SM more than it needs (0.861 on 21, 0.82 on 20): it gives that one away, to
     * hotspot, and stops. */
    in.k[0].sms = 29;
    in.k[2].sms = 21;
    d = decide_once(&allocator_themis_engine, &in);
    assert_counts(d, 29, 31, 20);
}

static void themis_weights_distances_and_the_last_sm(void **state)
{
    (void)state;
    /* Weights ⟨0.5, 0.5⟩, NP̂ 0.6 / 0.9 on 40/40 (the line through the origin): weighted
     * slowdowns 0.83 and 0.56, both below 1, unfairness 0.33; moves to lbm lower it, and
     * maxDist stops them at 45/35 (0.74 and 0.63: 0.14, still above thres 0.1). */
    struct alloc_input in = input(80, 2, (unsigned[]){40, 40}, (double[]){0.6, 0.9});
    in.k[0].weight = in.k[1].weight = 0.5;
    struct alloc_decision d = decide_once(&allocator_themis_engine, &in);
    assert_counts(d, 45, 35);
    assert_non_null(strstr(d.reason, "weighted unfairness 0.33 (thres 0.10)"));
    /* Three kernels, 60/10/10 at 0.015, 0.02 and 0.02 NP̂ per SM: each round gives hotspot and
     * bino one SM of lbm's; maxDist holds lbm's loss to 5 (58/11/11, 56/12/12, then 55/13/12,
     * where 54/13/13 would be 6 away). */
    in = input(80, 3, (unsigned[]){60, 10, 10}, (double[]){0.9, 0.2, 0.2});
    d = decide_once(&allocator_themis_engine, &in);
    assert_counts(d, 55, 13, 12);
    /* A kernel on 2 SMs may give one: lbm at 0.9 on 2 (0.45 per SM) beside hotspot at 0.3 on
     * 78; on 1/79 the slowdowns are 2.2 and 3.3 (unfairness 0.33 against 0.67), and on 1 SM
     * lbm has none left to give. */
    in = input(80, 2, (unsigned[]){2, 78}, (double[]){0.9, 0.3});
    d = decide_once(&allocator_themis_engine, &in);
    assert_counts(d, 1, 79);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registry_lists_every_allocator),
        cmocka_unit_test(np_at_prefers_the_what_if_then_the_line),
        cmocka_unit_test(place_keeps_owners_and_prefers_idle_sms),
        cmocka_unit_test(base_restores_the_invariants),
        cmocka_unit_test(fixed_partitions),
        cmocka_unit_test(alone_and_finished_for_every_allocator),
        cmocka_unit_test(fair_equalizes_two_kernels),
        cmocka_unit_test(fair_balances_highest_and_lowest),
        cmocka_unit_test(qos_reaches_the_target_with_the_fewest_sms),
        cmocka_unit_test(qos_asking_for_every_sm_and_greedy_low_priority),
        cmocka_unit_test(qos_moves_sms_by_the_margin),
        cmocka_unit_test(qos_ties_and_limits),
        cmocka_unit_test(themis_weighted_fairness_converges),
        cmocka_unit_test(themis_equal_weights_and_qos),
        cmocka_unit_test(themis_gives_a_stalled_kernel_sms),
        cmocka_unit_test(themis_qos_stops_once_the_target_is_held),
        cmocka_unit_test(themis_weights_distances_and_the_last_sm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
