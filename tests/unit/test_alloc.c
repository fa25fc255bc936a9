/* Unit tests: SM allocators — the registry, the shared helpers (what-if fallback, invariants,
 * placement) and every allocator on hand-built inputs whose expected partitions are worked
 * out by hand in the comments. A fake what-if stands in for the predictor: NP = slope × SMs,
 * capped at cap when cap > 0 (a memory-bound kernel that saturates). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "assert_close.h"

#include "corun/alloc.h"

static const char *const names[] = {"lbm", "hotspot", "bino", "bfs"};
static const struct alloc_params params = {.fairness_threshold = 0.9,
                                           .qos_upper = 0.9,
                                           .hp_share = 0.8,
                                           .smqos_policy = 0.9,
                                           .smqos_interval = 10000,
                                           .smqos_threshold = 0.01};

struct fake {
    double slope[GPU_MAX_KERNELS], cap[GPU_MAX_KERNELS];
};

static double fake_np_at(const void *ctx, unsigned k, double sms)
{
    const struct fake *f = ctx;
    double np = f->slope[k] * sms;
    return f->cap[k] > 0 && np > f->cap[k] ? f->cap[k] : np;
}

/* n kernels on sms SMs with counts and NP̂ (NAN: none), low priority, no what-if. */
static struct alloc_input input(unsigned sms, unsigned n, const unsigned *counts, const double *np)
{
    struct alloc_input in = {.sms = sms, .nkernels = n, .predictor = "test", .p = &params};
    for (unsigned k = 0; k < n; k++) {
        in.k[k].sms = counts[k];
        in.k[k].np_pred = np ? np[k] : NAN;
        in.k[k].ipc = NAN;
        in.k[k].ipc_isolated = NAN;
        in.k[k].qos_target = 0.8;
    }
    return in;
}

static void *make(const struct allocator_ops *ops, unsigned sms, unsigned n)
{
    struct alloc_setup setup = {sms, n, names, &params};
    char err[128] = "";
    void *s = ops->create(&setup, err, sizeof err);
    assert_non_null(s);
    return s;
}

/* Run ops once on in and check the invariants every decision keeps. */
static struct alloc_decision decide(const struct allocator_ops *ops, void *s,
                                    const struct alloc_input *in)
{
    struct alloc_decision d;
    memset(&d, 0, sizeof d);
    ops->decide(s, in, &d);
    unsigned total = d.gated;
    bool changed = d.gated != in->gated;
    for (unsigned k = 0; k < in->nkernels; k++) {
        total += d.sms[k];
        changed = changed || d.sms[k] != in->k[k].sms;
        if (in->k[k].finished)
            assert_int_equal(d.sms[k], 0);
        else if (!in->p->smqos_take_last) /* with it, a batch kernel may have none */
            assert_true(d.sms[k] >= 1);
    }
    assert_true(total <= in->sms);
    assert_int_equal(d.changed, changed);
    assert_int_equal(strncmp(d.reason, ops->name, strlen(ops->name)), 0);
    assert_int_equal(d.reason[strlen(ops->name)], ':');
    return d;
}

static struct alloc_decision decide_once(const struct allocator_ops *ops,
                                         const struct alloc_input *in)
{
    void *s = make(ops, in->sms, in->nkernels);
    struct alloc_decision d = decide(ops, s, in);
    ops->destroy(s);
    return d;
}

#define assert_counts(d, ...)                                                                      \
    do {                                                                                           \
        const unsigned want_[] = {__VA_ARGS__};                                                    \
        for (size_t i_ = 0; i_ < sizeof want_ / sizeof want_[0]; i_++)                             \
            assert_int_equal((d).sms[i_], want_[i_]);                                              \
    } while (0)

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
        cmocka_unit_test(themis_weighted_fairness_converges),
        cmocka_unit_test(themis_equal_weights_and_qos),
        cmocka_unit_test(smqos_converges_and_gates),
        cmocka_unit_test(smqos_average_weighs_intervals_by_cycles),
        cmocka_unit_test(smqos_takes_the_last_sm_only_when_allowed),
        cmocka_unit_test(smqos_judges_a_move_once_the_sm_has_drained),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
