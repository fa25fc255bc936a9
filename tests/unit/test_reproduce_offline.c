/* Unit tests: SMQoS §5.4's Offline policy — the search for the static partition (the fewest
 * LS SMs meeting the target, then the fewest batch SMs within the threshold of the best) on a
 * synthetic GPU whose every answer is worked out by hand, its limits and failures, the same
 * search on real runs of a small GPU, and the experiment's table of smqos / offline columns. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "assert_close.h"
#include <stdio.h>

#include "corun/datadir.h"
#include "corun/reproduce_alloc.h"
#include "corun/scenario.h"

#define EPS 1e-9

/* A pair on 16 SMs whose NPs are formulas of the partition: the LS NP is n / ls_scale, the
 * batch NP rises by 1/16 per SM up to `knee` SMs, then falls by `drop`/16 per SM beyond it. */
struct synthetic {
    double ls_scale, drop;
    unsigned knee, calls, fail_at;
    unsigned ls; /* the LS kernel's index */
};

static int synthetic_probe(void *ctx, unsigned n, unsigned m, struct ralloc_run *out, char *err,
                           size_t errlen)
{
    struct synthetic *sy = ctx;
    sy->calls++;
    if (sy->fail_at && sy->calls == sy->fail_at) {
        snprintf(err, errlen, "probe %u failed", sy->calls);
        return -1;
    }
    assert_true(n >= 1 && m >= 1 && n + m <= 16);
    memset(out, 0, sizeof(*out));
    out->cycles = 1000;
    double batch = m <= sy->knee ? m : sy->knee - sy->drop * (m - sy->knee);
    out->private_cycles[sy->ls] = 1000 * n / sy->ls_scale;
    out->private_cycles[1 - sy->ls] = 1000 * batch / 16;
    return 0;
}

/* Policy 0.5, LS NP n/16: n = 8 (7/16 misses). Binary over n in [1, 15]: 15, 7 (miss), 11, 9,
 * 8 -> 5 runs. The batch saturates at 6 SMs: of m in [1, 8], 8 (6/16; the n search's last
 * run), 4 (miss), 6, 5 (miss) -> m = 6 in 3 more runs, 8 in all, none asked twice.
 * Exhaustively: the same (8, 6), from 15 + 7 runs. */
static void offline_search_binary(void **state)
{
    (void)state;
    struct synthetic sy = {16, 0, 6, 0, 0, 0};
    struct ralloc_offline f;
    struct ralloc_run chosen;
    char err[128] = "";
    assert_int_equal(ralloc_offline_search(16, 0, 0.5, false, synthetic_probe, &sy, &f, &chosen,
                                           err, sizeof err),
                     0);
    assert_int_equal(f.ls_sms, 8);
    assert_int_equal(f.batch_sms, 6);
    assert_true(f.met);
    assert_int_equal(f.runs, 8);
    assert_int_equal(sy.calls, 8);
    assert_close(chosen.private_cycles[0], 500, EPS);
    assert_close(chosen.private_cycles[1], 1000 * 6.0 / 16, EPS);
    sy.calls = 0;
    assert_int_equal(
        ralloc_offline_search(16, 0, 0.5, true, synthetic_probe, &sy, &f, &chosen, err, sizeof err),
        0);
    assert_int_equal(f.ls_sms, 8);
    assert_int_equal(f.batch_sms, 6);
    assert_int_equal(f.runs, 22);
    assert_int_equal(sy.calls, 22);
    /* The LS as kernel 1: the search reads kernel 1's NP as the LS one's. */
    struct synthetic second = {16, 0, 6, 0, 0, 1};
    assert_int_equal(ralloc_offline_search(16, 1, 0.5, false, synthetic_probe, &second, &f, &chosen,
                                           err, sizeof err),
                     0);
    assert_int_equal(f.ls_sms, 8);
    assert_int_equal(f.batch_sms, 6);
    assert_close(chosen.private_cycles[1], 500, EPS);
}

/* The assumptions, and what breaks them. A batch NP that peaks at 5 SMs (5/16) and falls by
 * 1/32 per SM after it (3.5/16 at 8): the binary search, starting from m = 8, passes m = 4
 * (4/16 > 3.5/16, the best it has seen) and never sees the peak, so it keeps 4; trying every
 * m finds the peak and keeps 5. An LS that cannot reach the target (n/32 < 0.5 for every n):
 * met is false, the LS gets the most it can (15), the batch 1; one that reaches it exactly
 * there meets it. A failing run stops either search with its message. */
static void offline_search_limits(void **state)
{
    (void)state;
    struct synthetic sy = {16, 0.5, 5, 0, 0, 0};
    struct ralloc_offline f;
    struct ralloc_run chosen;
    char err[128] = "";
    assert_int_equal(ralloc_offline_search(16, 0, 0.5, false, synthetic_probe, &sy, &f, &chosen,
                                           err, sizeof err),
                     0);
    assert_int_equal(f.ls_sms, 8);
    assert_int_equal(f.batch_sms, 4);
    assert_int_equal(
        ralloc_offline_search(16, 0, 0.5, true, synthetic_probe, &sy, &f, &chosen, err, sizeof err),
        0);
    assert_int_equal(f.batch_sms, 5);
    struct synthetic weak = {32, 0, 16, 0, 0, 0};
    assert_int_equal(ralloc_offline_search(16, 0, 0.5, false, synthetic_probe, &weak, &f, &chosen,
                                           err, sizeof err),
                     0);
    assert_false(f.met);
    assert_int_equal(f.ls_sms, 15);
    assert_int_equal(f.batch_sms, 1);
    assert_int_equal(f.runs, 1);
    struct synthetic failing = {16, 0, 6, 0, 3, 0};
    assert_int_equal(ralloc_offline_search(16, 0, 0.5, false, synthetic_probe, &failing, &f,
                                           &chosen, err, sizeof err),
                     -1);
    assert_string_equal(err, "probe 3 failed");
    failing.calls = 0;
    assert_int_equal(ralloc_offline_search(16, 0, 0.5, true, synthetic_probe, &failing, &f, &chosen,
                                           err, sizeof err),
                     -1);
    assert_string_equal(err, "probe 3 failed");
    /* The most the LS can have gives exactly the target (15/16): that meets it. */
    struct synthetic exact = {16, 0, 1, 0, 0, 0};
    assert_int_equal(ralloc_offline_search(16, 0, 15.0 / 16, false, synthetic_probe, &exact, &f,
                                           &chosen, err, sizeof err),
                     0);
    assert_true(f.met);
    assert_int_equal(f.ls_sms, 15);
    assert_int_equal(ralloc_offline_search(1, 0, 0.5, false, synthetic_probe, &failing, &f, &chosen,
                                           err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "2 SMs or more"));
}

/* Real static runs: the compute kernel as the LS task beside stream on an 8-SM smqos24, one
 * epoch of 20 K cycles. Compute scales with its SMs (about n/8), so the n it needs grows with
 * the policy: 0.45 -> 4 (3 SMs give about 0.375), 0.7 -> 6 (5 give about 0.625). For each, the
 * (n, m) run meets the target, the n - 1 run (batch on the rest) does not, and the exhaustive
 * search agrees; a search the prober has seen already simulates nothing new. */
static void offline_search_real(void **state)
{
    (void)state;
    char *datadir = datadir_locate();
    struct scenario sc;
    struct diag d;
    diag_init(&d);
    assert_int_equal(scenario_load_text(&sc, "offline.cfg",
                                        "name = \"offline\"; gpu = \"smqos24\";\n"
                                        "gpu_overrides = { sms = 8; };\n"
                                        "epochs = 1; epoch_cycles = 20000; allocator = \"even\";\n"
                                        "kernels = ( { name = \"compute\"; },"
                                        " { name = \"stream\"; } );\n",
                                        datadir, &d),
                     0);
    char err[256] = "";
    struct ralloc_prober *pr = ralloc_prober_new(&sc, 0, NULL, err, sizeof err);
    assert_non_null(pr);
    static const double policy[] = {0.45, 0.7};
    static const unsigned want[] = {4, 6};
    for (unsigned i = 0; i < 2; i++) {
        struct ralloc_offline f, fx;
        struct ralloc_run chosen, below, cx;
        assert_int_equal(ralloc_offline_search(8, 0, policy[i], false, ralloc_prober_run, pr, &f,
                                               &chosen, err, sizeof err),
                         0);
        assert_true(f.met);
        assert_int_equal(f.ls_sms, want[i]);
        assert_true(f.batch_sms >= 1 && f.ls_sms + f.batch_sms <= 8);
        assert_true(chosen.private_cycles[0] / chosen.cycles >= policy[i]);
        assert_int_equal(chosen.epochs, 1);
        assert_int_equal(ralloc_prober_run(pr, f.ls_sms - 1, 9 - f.ls_sms, &below, err, sizeof err),
                         0);
        assert_true(below.private_cycles[0] / below.cycles < policy[i]);
        unsigned made = ralloc_prober_simulated(pr);
        assert_int_equal(ralloc_offline_search(8, 0, policy[i], false, ralloc_prober_run, pr, &fx,
                                               &cx, err, sizeof err),
                         0);
        assert_int_equal(ralloc_prober_simulated(pr), made);
        assert_memory_equal(&cx, &chosen, sizeof cx);
        assert_int_equal(ralloc_offline_search(8, 0, policy[i], true, ralloc_prober_run, pr, &fx,
                                               &cx, err, sizeof err),
                         0);
        assert_int_equal(fx.ls_sms, f.ls_sms);
        assert_int_equal(fx.batch_sms, f.batch_sms);
    }
    struct ralloc_run bad;
    assert_int_equal(ralloc_prober_run(pr, 4, 5, &bad, err, sizeof err), -1);
    assert_non_null(strstr(err, "8 in all, got 4 + 5"));
    ralloc_prober_delete(pr);
    scenario_done(&sc);
    /* Offline partitions pairs only. */
    assert_int_equal(scenario_load_text(&sc, "one.cfg",
                                        "name = \"one\"; gpu = \"smqos24\";\n"
                                        "kernels = ( { name = \"compute\"; } );\n",
                                        datadir, &d),
                     0);
    assert_null(ralloc_prober_new(&sc, 0, NULL, err, sizeof err));
    assert_non_null(strstr(err, "got 1 kernel with"));
    scenario_done(&sc);
    diag_done(&d);
    free(datadir);
}

/* smqos --offline pairs each smqos policy with an Offline one in its column, at the same
 * target, with the even split as the power reference. */
static void offline_table(void **state)
{
    (void)state;
    const struct ralloc_experiment *x = ralloc_experiment_find("smqos", "offline");
    assert_non_null(x);
    assert_int_equal(x->baseline, 0);
    assert_string_equal(x->policies[0].allocator, "even");
    unsigned offline = 0;
    for (unsigned p = 1; p < x->npolicies; p++) {
        const struct ralloc_policy *pol = &x->policies[p];
        if (strcmp(pol->allocator, RALLOC_OFFLINE) != 0)
            continue;
        offline++;
        const struct ralloc_policy *s = &x->policies[p - 1];
        assert_string_equal(s->allocator, "smqos");
        assert_string_equal(s->column, pol->column);
        assert_close(s->target, pol->target, EPS);
        assert_close(s->smqos, pol->target, EPS);
    }
    assert_int_equal(offline, 4);
    assert_null(ralloc_experiment_find("smqos", "")->missing);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(offline_search_binary),
        cmocka_unit_test(offline_search_limits),
        cmocka_unit_test(offline_search_real),
        cmocka_unit_test(offline_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
