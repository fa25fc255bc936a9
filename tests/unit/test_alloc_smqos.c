/* Unit tests: the SMQoS allocator — convergence to the LS kernel's IPC target and gating of
 * idle SMs, intervals weighed by their cycles, the last SM taken only when allowed, and a move
 * judged once the SM has drained. The worlds are worked out by hand in the comments. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "alloc_fixtures.h"

/* An SMQoS world on 24 SMs: the LS kernel lbm (0) runs at ls_per_sm IPC per SM, 24 alone;
 * the batch kernel hotspot (1) at 1 IPC per SM up to batch_cap. One decision per call. */
struct smqos_world {
    unsigned sms[2], gated;
    double ls_per_sm, batch_cap;
    double threshold; /* Algorithm 2's */
    bool take_last;   /* smqos_batch_min = 0 */
};

static struct alloc_decision smqos_step(void *s, struct smqos_world *w)
{
    struct alloc_input in = input(24, 2, w->sms, NULL);
    in.gated = w->gated;
    in.p = &(struct alloc_params){.smqos_policy = 0.5,
                                  .smqos_interval = 10000,
                                  .smqos_threshold = w->threshold,
                                  .smqos_take_last = w->take_last};
    in.k[0].ipc = w->ls_per_sm * w->sms[0];
    in.k[0].ipc_isolated = 24;
    in.k[1].ipc = w->sms[1] < w->batch_cap ? w->sms[1] : w->batch_cap;
    struct alloc_decision d = decide(&allocator_smqos, s, &in);
    w->sms[0] = d.sms[0];
    w->sms[1] = d.sms[1];
    w->gated = d.gated;
    return d;
}

static void smqos_converges_and_gates(void **state)
{
    (void)state;
    /* Target 0.5 × 24 = 12 IPC. From 4/20 the LS kernel takes one SM per decision from the
     * batch kernel (no idle SMs). The batch kernel's IPC stays 6 from 20 SMs down to 6, so
     * Algorithm 2 walks opt_k down with it (upper bound); 6 → 5 loses IPC (5 < 6 × 0.99):
     * lower bound, opt_k = 6 for good. The LS kernel's average over 4, 5, ..., 20 is exactly
     * 12, not below: at 20 SMs (decision 17) it holds; it gives SMs back once avg × N/(N+1)
     * > 12, i.e. 204 + 20 (N − 17) > 12 (N + 1), N > 18.5: decision 19. Freed SMs go to the
     * batch kernel while it has fewer than opt_k (4 → 6), then are gated. The LS kernel stops
     * at 12 SMs (IPC 12 is not above 12), after decision 26: 12/6, 6 gated. */
    void *s = make(&allocator_smqos, 24, 2);
    struct smqos_world w = {{4, 20}, 0, 1, 6, 0.01, false};
    for (int i = 1; i <= 17; i++) {
        smqos_step(s, &w);
        assert_int_equal(w.sms[0], i < 17 ? 4 + i : 20);
    }
    struct alloc_decision d = smqos_step(s, &w); /* 18: holds */
    assert_false(d.changed);
    d = smqos_step(s, &w); /* 19: gives one to the batch kernel (4 → 5) */
    assert_counts(d, 19, 5);
    assert_non_null(strstr(d.reason, "−1 SM to hotspot (opt_k 6)"));
    for (int i = 20; i <= 40; i++)
        d = smqos_step(s, &w);
    assert_counts(d, 12, 6);
    assert_int_equal(w.gated, 6);
    assert_false(d.changed);
    /* Interference drops the LS kernel to 0.9 IPC per SM (10.8 < 12): it wakes a gated SM
     * rather than take one from the batch kernel. */
    w.ls_per_sm = 0.9;
    d = smqos_step(s, &w);
    assert_counts(d, 13, 6);
    assert_int_equal(d.gated, 5);
    assert_non_null(strstr(d.reason, "woken from gating"));
    allocator_smqos.destroy(s);

    /* A compute-bound batch kernel (no cap): losing its first SM costs 19 < 20 × 0.99, so
     * opt_k stays 20 and every SM the LS kernel gives back goes to it: 12/12, none gated. */
    s = make(&allocator_smqos, 24, 2);
    w = (struct smqos_world){{4, 20}, 0, 1, 1e9, 0.01, false};
    for (int i = 0; i < 40; i++)
        d = smqos_step(s, &w);
    assert_counts(d, 12, 12);
    assert_int_equal(w.gated, 0);
    allocator_smqos.destroy(s);

    /* The same with threshold 0.1 (SMQoS §5.3's large end): as the LS kernel takes SMs, losing
     * one from n costs (n − 1)/n, which counts as a loss only when n − 1 < 0.9 n, n < 10. So
     * opt_k walks down to 9 and the move 9 → 8 marks the lower bound: opt_k = 9 for good, and
     * of the 12 SMs the LS kernel gives back the batch kernel gets 8 → 9, 3 are gated. */
    s = make(&allocator_smqos, 24, 2);
    w = (struct smqos_world){{4, 20}, 0, 1, 1e9, 0.1, false};
    for (int i = 0; i < 40; i++)
        d = smqos_step(s, &w);
    assert_counts(d, 12, 9);
    assert_int_equal(w.gated, 3);
    allocator_smqos.destroy(s);
}

/* SMQoS's running average IPC of the LS kernel weighs each interval by its cycles. Target
 * 0.5 x 24 = 12 IPC; the LS kernel runs 30,000 cycles at ipc1, then 10,000 at 20. */
static bool smqos_second_interval_moves(double ipc1)
{
    void *s = make(&allocator_smqos, 24, 2);
    const struct alloc_params p = {
        .smqos_policy = 0.5, .smqos_interval = 10000, .smqos_threshold = 0.01};
    struct gpu_kernel_counters long_run = {.cycles = 30000}, short_run = {.cycles = 10000};
    struct alloc_input in = input(24, 2, (unsigned[]){12, 12}, NULL);
    in.p = &p;
    in.k[0].ipc_isolated = 24;
    in.k[0].ipc = ipc1;
    in.k[0].c = &long_run;
    in.k[1].ipc = 6;
    struct alloc_decision d = decide(&allocator_smqos, s, &in); /* below 12: +1 SM */
    in.k[0].sms = d.sms[0];
    in.k[1].sms = d.sms[1];
    in.k[0].ipc = 20;
    in.k[0].c = &short_run;
    d = decide(&allocator_smqos, s, &in);
    allocator_smqos.destroy(s);
    return d.changed;
}

static void smqos_average_weighs_intervals_by_cycles(void **state)
{
    (void)state;
    /* 8 then 20: (8 x 30,000 + 20 x 10,000) / 40,000 = 11 < 12, another SM (the mean of the
     * two IPCs, 14, would hold). */
    assert_true(smqos_second_interval_moves(8));
    /* 10 then 20: 12.5, neither below 12 nor, times 2/3, above it: hold. */
    assert_false(smqos_second_interval_moves(10));
}

/* The LS kernel needs every SM: 0.5 IPC per SM against a target of 0.5 × 24 = 12 IPC. From
 * 12/12 it takes one SM per decision from the batch kernel; by default the batch kernel keeps
 * its last (23/1 after 11 decisions, and then "no SM left to take" for good); with
 * smqos_batch_min = 0 the 12th decision takes it too (24/0), and the batch kernel stays
 * without SMs while the LS kernel needs them. Once the LS kernel runs twice as fast (24 IPC,
 * above the target with room) it gives SMs back, the first to the batch kernel (opt_k is the
 * 12 it started with, no bound known yet). */
static void smqos_takes_the_last_sm_only_when_allowed(void **state)
{
    (void)state;
    for (int take = 0; take <= 1; take++) {
        void *s = make(&allocator_smqos, 24, 2);
        struct smqos_world w = {{12, 12}, 0, 0.5, 1e9, 0.01, take};
        struct alloc_decision d;
        for (int i = 1; i <= 11; i++)
            d = smqos_step(s, &w);
        assert_counts(d, 23, 1);
        d = smqos_step(s, &w);
        if (!take) {
            assert_counts(d, 23, 1);
            assert_false(d.changed);
            assert_non_null(strstr(d.reason, "no SM left to take"));
        } else {
            assert_counts(d, 24, 0);
            assert_non_null(strstr(d.reason, "+1 SM from hotspot"));
            for (int i = 0; i < 10; i++)
                d = smqos_step(s, &w);
            assert_counts(d, 24, 0); /* the base does not hand the empty kernel an SM */
            w.ls_per_sm = 1;
            for (int i = 0; i < 30 && w.sms[1] == 0; i++)
                d = smqos_step(s, &w);
            assert_counts(d, 23, 1);
            assert_non_null(strstr(d.reason, "−1 SM to hotspot"));
        }
        allocator_smqos.destroy(s);
    }
}

/* Two decisions of an LS kernel far above its target (IPC 30, isolated 24, policy 0.5: target
 * 12; avg 30 × N/(N+1) ≥ 15 > 12) that gives an SM back each time; the batch kernel's IPC
 * stays 10. batch_active: the batch kernel's active SMs at the second decision (0: no
 * counters). */
static struct alloc_decision smqos_two_giveaways(unsigned batch_active)
{
    void *s = make(&allocator_smqos, 24, 2);
    struct alloc_input in = input(24, 2, (unsigned[]){12, 12}, NULL);
    in.p = &(struct alloc_params){.smqos_policy = 0.5, .smqos_threshold = 0.01};
    in.k[0].ipc = 30;
    in.k[0].ipc_isolated = 24;
    in.k[1].ipc = 10;
    /* 1: opt_k starts at the batch kernel's 12 with no bound known: it takes the SM. */
    struct alloc_decision d = decide(&allocator_smqos, s, &in);
    assert_counts(d, 11, 13);
    in.k[0].sms = 11;
    in.k[1].sms = 13;
    struct gpu_kernel_counters c = {.active_sms = batch_active};
    in.k[1].c = batch_active ? &c : NULL;
    d = decide(&allocator_smqos, s, &in);
    allocator_smqos.destroy(s);
    return d;
}

static void smqos_judges_a_move_once_the_sm_has_drained(void **state)
{
    (void)state;
    /* In effect (no counters: taken as done): 10 is not above 10 × 1.01, so the 13th SM did
     * not pay: upper bound, opt_k 12. The next SM the LS kernel frees is not wanted; the
     * batch kernel probes down (13 → 12) and both SMs are gated: 10/12, 2 gated. */
    struct alloc_decision d = smqos_two_giveaways(0);
    assert_counts(d, 10, 12);
    assert_int_equal(d.gated, 2);
    /* The 13th SM still drains the LS kernel's TBs (12 active): the interval says nothing
     * about it, no bound is set, and the batch kernel takes the next SM too: 10/14. */
    d = smqos_two_giveaways(12);
    assert_counts(d, 10, 14);
    assert_int_equal(d.gated, 0);
    /* Arrived (13 active): judged as in the first case. */
    d = smqos_two_giveaways(13);
    assert_counts(d, 10, 12);
}

/* Eight kernels' moves do not fit in a reason: the list ends in "…" after its last whole
 * entry, inside the reason's parentheses (it was cut at the reason's size: "..., mrigr 7" and
 * half of a "→", invalid UTF-8 in the output, the run file and --json). */
static void long_moves_end_whole(void **state)
{
    (void)state;
    const char *const eight[8] = {"mri-q",         "leuk",        "bwpp2",  "gesummv",
                                  "teach-compute", "teach-cache", "bwpp12", "mrigr"};
    struct alloc_setup setup = {60, 8, eight, &params};
    char err[128];
    void *st = allocator_even.create(&setup, err, sizeof err);
    assert_non_null(st);
    struct alloc_input in = input(60, 8, (unsigned[]){8, 8, 8, 8, 7, 7, 7, 7}, NULL);
    struct alloc_decision d;
    memset(&d, 0, sizeof d);
    const unsigned to[8] = {1, 1, 1, 1, 53, 1, 1, 1};
    memcpy(d.sms, to, sizeof to);
    alloc_conclude(st, &in, &d, "static-smqos", "teach-compute (LS) 53 of 60 (policy 0.90), ");
    const char *end = ", …)";
    size_t n = strlen(d.reason);
    if (n < strlen(end) || strcmp(d.reason + n - strlen(end), end) != 0)
        fail_msg("reason: %s", d.reason);
    assert_non_null(strstr(d.reason, "(mri-q 8→1, leuk 8→1, "));
    assert_true(n < ALLOC_REASON_MAX);
    /* Room for every entry: no "…". */
    char moves[512];
    alloc_format_moves(st, &in, d.sms, moves, sizeof moves);
    assert_string_equal(moves, "mri-q 8→1, leuk 8→1, bwpp2 8→1, gesummv 8→1, teach-compute 7→53, "
                               "teach-cache 7→1, bwpp12 7→1, mrigr 7→1");
    /* Room for none but "…". */
    alloc_format_moves(st, &in, d.sms, moves, 6);
    assert_string_equal(moves, "…");
    allocator_even.destroy(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(smqos_converges_and_gates),
        cmocka_unit_test(smqos_average_weighs_intervals_by_cycles),
        cmocka_unit_test(smqos_takes_the_last_sm_only_when_allowed),
        cmocka_unit_test(smqos_judges_a_move_once_the_sm_has_drained),
        cmocka_unit_test(long_moves_end_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
