/* Unit tests: the allocation experiments' metric arithmetic on hand-built run sums — fairness,
 * STP, ANTT, QoS met, weighted unfairness, energy and power against the baseline, their means
 * (and medians) over mixes per category, relative published comparisons — and the registry's
 * consistency. Every expected value is worked out by hand in the comments. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "corun/reproduce_alloc.h"

#define EPS 1e-9

/* Run p of m: 1000 cycles (unless cycles is given) and these private cycles of 2 kernels. */
static void set_run(struct ralloc_mix_result *m, unsigned p, double cycles, double priv0,
                    double priv1, double energy)
{
    m->nkernels = 2;
    m->runs[p].cycles = cycles;
    m->runs[p].private_cycles[0] = priv0;
    m->runs[p].private_cycles[1] = priv1;
    m->runs[p].energy_j = energy;
    m->runs[p].epochs = 1;
}

static void set_tag(struct ralloc_mix_result *m, const char *tag, int hp)
{
    memset(m, 0, sizeof(*m));
    snprintf(m->tag, sizeof m->tag, "%s", tag);
    m->hp = hp;
}

/* hsm --fairness, policies 0 even and 1 fair/hsm.
 * A (heterogeneous): even NP .8/.2 -> fairness .25, STP 1, ANTT (1.25 + 5) / 2 = 3.125;
 *                    fair NP .6/.4 -> fairness 2/3, STP 1, ANTT (5/3 + 2.5) / 2 = 25/12.
 * B (memory-homogeneous): even .5/.5 -> 1, 1, 2; fair .3/.6 -> .5, .9, (10/3 + 5/3) / 2 = 2.5.
 * C failed: left out. */
static void fairness_stp_antt(void **state)
{
    (void)state;
    const struct ralloc_experiment *x = ralloc_experiment_find("hsm", "fairness");
    assert_non_null(x);
    assert_int_equal(ralloc_policy_index(x, "even"), 0);
    assert_int_equal(ralloc_policy_index(x, "fair/hsm"), 1);
    struct ralloc_mix_result r[3];
    set_tag(&r[0], "heterogeneous", 0);
    set_run(&r[0], 0, 1000, 800, 200, 1);
    set_run(&r[0], 1, 1000, 600, 400, 1);
    set_tag(&r[1], "memory-homogeneous", 0);
    set_run(&r[1], 0, 1000, 500, 500, 1);
    set_run(&r[1], 1, 1000, 300, 600, 1);
    set_tag(&r[2], "heterogeneous", 0);
    set_run(&r[2], 0, 1000, 100, 900, 1);
    set_run(&r[2], 1, 1000, 100, 900, 1);
    r[2].failed = 1;

    double v[RALLOC_NMETRICS];
    ralloc_run_metrics(x, &r[0], 0, v);
    assert_float_equal(v[RALLOC_FAIRNESS], 0.25, EPS);
    assert_float_equal(v[RALLOC_STP], 1.0, EPS);
    assert_float_equal(v[RALLOC_ANTT], 3.125, EPS);
    assert_true(isnan(v[RALLOC_MET])); /* no target in a fairness policy */

    struct ralloc_stats s;
    ralloc_aggregate(x, r, 3, 0, NULL, &s);
    assert_int_equal(s.n, 2);
    assert_float_equal(s.value[RALLOC_FAIRNESS], 0.625, EPS);
    assert_float_equal(s.value[RALLOC_STP], 1.0, EPS);
    assert_float_equal(s.value[RALLOC_ANTT], 2.5625, EPS);
    ralloc_aggregate(x, r, 3, 1, NULL, &s);
    assert_float_equal(s.value[RALLOC_FAIRNESS], (2.0 / 3 + 0.5) / 2, EPS);
    assert_float_equal(s.value[RALLOC_STP], 0.95, EPS);
    assert_float_equal(s.value[RALLOC_ANTT], (25.0 / 12 + 2.5) / 2, EPS);
    ralloc_aggregate(x, r, 3, 1, "heterogeneous", &s);
    assert_int_equal(s.n, 1);
    assert_float_equal(s.value[RALLOC_FAIRNESS], 2.0 / 3, EPS);

    /* fair/hsm vs even, heterogeneous fairness: (2/3) / 0.25 - 1 = 5/3; absolute: 0.625. */
    struct ralloc_published rel = {"fair/hsm", "even", "heterogeneous", RALLOC_FAIRNESS, 0.5,
                                   "t",        "t"};
    assert_float_equal(ralloc_published_ours(x, &rel, r, 3), 5.0 / 3, EPS);
    struct ralloc_published abs = {"even", NULL, NULL, RALLOC_FAIRNESS, 0.5, "t", "t"};
    assert_float_equal(ralloc_published_ours(x, &abs, r, 3), 0.625, EPS);
    struct ralloc_published none = {"nobody", NULL, NULL, RALLOC_FAIRNESS, 0.5, "t", "t"};
    assert_true(isnan(ralloc_published_ours(x, &none, r, 3)));
}

/* hsm --qos (target 0.8), policy 1 qos/hsm.
 * A: hp 1, NP .3/.85 -> met, within 5 %, HP NP/T .85/.8 = 1.0625, batch .3.
 * B: hp 0, NP .77/.5 -> not met (.77 < .8), within 5 % (.77 >= .76), .9625, batch .5.
 * Means: met .5, near 1, HP 1.0125, batch .4. */
static void qos_met(void **state)
{
    (void)state;
    const struct ralloc_experiment *x = ralloc_experiment_find("hsm", "qos");
    assert_non_null(x);
    struct ralloc_mix_result r[2];
    set_tag(&r[0], "heterogeneous", 1);
    set_run(&r[0], 1, 1000, 300, 850, 1);
    set_tag(&r[1], "memory-homogeneous", 0);
    set_run(&r[1], 1, 1000, 770, 500, 1);
    struct ralloc_stats s;
    ralloc_aggregate(x, r, 2, 1, NULL, &s);
    assert_int_equal(s.n, 2);
    assert_float_equal(s.value[RALLOC_MET], 0.5, EPS);
    assert_float_equal(s.value[RALLOC_MET_NEAR], 1.0, EPS);
    assert_float_equal(s.value[RALLOC_HP_NP], 1.0125, EPS);
    assert_float_equal(s.value[RALLOC_BATCH], 0.4, EPS);
    /* Policy 0 (proportional) did not run in these mixes: nothing is counted. */
    ralloc_aggregate(x, r, 2, 0, NULL, &s);
    assert_int_equal(s.n, 0);
    assert_true(isnan(s.value[RALLOC_MET]));
}

/* smqos: baseline 0 (even) 1000 cycles, 2 J; smqos@80% 1000 cycles, 1.5 J -> energy .75,
 * power .75; static-smqos@80% 2000 cycles, 3 J -> energy 1.5, power (3/2000)/(2/1000) = .75. */
static void energy_and_power(void **state)
{
    (void)state;
    const struct ralloc_experiment *x = ralloc_experiment_find("smqos", "");
    assert_non_null(x);
    assert_int_equal(x->baseline, 0);
    assert_int_equal(ralloc_policy_index(x, "static-smqos@80%"), 2);
    struct ralloc_mix_result m;
    set_tag(&m, "CI-MI", 0);
    set_run(&m, 0, 1000, 500, 500, 2.0);
    set_run(&m, 1, 1000, 850, 100, 1.5);
    set_run(&m, 2, 2000, 1500, 200, 3.0);
    double v[RALLOC_NMETRICS];
    ralloc_run_metrics(x, &m, 1, v);
    assert_float_equal(v[RALLOC_ENERGY], 0.75, EPS);
    assert_float_equal(v[RALLOC_POWER], 0.75, EPS);
    assert_float_equal(v[RALLOC_MET], 1.0, EPS); /* .85 >= .80 */
    assert_float_equal(v[RALLOC_BATCH], 0.1, EPS);
    ralloc_run_metrics(x, &m, 2, v);
    assert_float_equal(v[RALLOC_ENERGY], 1.5, EPS);
    assert_float_equal(v[RALLOC_POWER], 0.75, EPS);
    assert_float_equal(v[RALLOC_MET], 0.0, EPS); /* .75 < .80 */
    /* Without a baseline run there is no relative energy. */
    m.runs[0].failed = 1;
    ralloc_run_metrics(x, &m, 1, v);
    assert_true(isnan(v[RALLOC_ENERGY]) && isnan(v[RALLOC_POWER]));
}

/* themis --fairness: policy 0 weights <.5,.5>, policy 2 <.2,.8>. NP .5/.25 -> s = 2/4.
 * <.5,.5>: s*w = 1/2 -> (2 - 1) / 2 = .5; <.2,.8>: .4/3.2 -> 2.8/3.2 = .875.
 * Over three mixes with unfairness .5, (NP .5/.5: 0), (NP .2/.8: s*w 2.5/.625 -> .75):
 * mean 1.25/3, median .5. */
static void weighted_unfairness(void **state)
{
    (void)state;
    const struct ralloc_experiment *x = ralloc_experiment_find("themis", "fairness");
    assert_non_null(x);
    assert_int_equal(ralloc_policy_index(x, "hp<.2,.8>"), 2);
    struct ralloc_mix_result r[3];
    set_tag(&r[0], "CI-MI", 0);
    set_run(&r[0], 0, 1000, 500, 250, 1);
    set_run(&r[0], 2, 1000, 500, 250, 1);
    double v[RALLOC_NMETRICS];
    ralloc_run_metrics(x, &r[0], 0, v);
    assert_float_equal(v[RALLOC_UNFAIRNESS], 0.5, EPS);
    ralloc_run_metrics(x, &r[0], 2, v);
    assert_float_equal(v[RALLOC_UNFAIRNESS], 0.875, EPS);
    set_tag(&r[1], "CI-CI", 0);
    set_run(&r[1], 0, 1000, 500, 500, 1);
    set_tag(&r[2], "MI-MI", 0);
    set_run(&r[2], 0, 1000, 200, 800, 1);
    struct ralloc_stats s;
    ralloc_aggregate(x, r, 3, 0, NULL, &s);
    assert_int_equal(s.n, 3);
    assert_float_equal(s.value[RALLOC_UNFAIRNESS], 1.25 / 3, EPS);
    assert_float_equal(s.value[RALLOC_UNFAIRNESS_MEDIAN], 0.5, EPS);
}

/* Every experiment has policies, columns ended, and published figures naming its policies. */
static void registry_is_consistent(void **state)
{
    (void)state;
    assert_true(ralloc_experiment_count() >= 5);
    assert_null(ralloc_experiment_find("smqos", "qos"));
    assert_null(ralloc_experiment_find("hsm", ""));
    assert_true(ralloc_experiment_named("themis"));
    assert_false(ralloc_experiment_named("dase"));
    for (size_t i = 0; i < ralloc_experiment_count(); i++) {
        const struct ralloc_experiment *x = ralloc_experiment_at(i);
        assert_true(x->npolicies > 0 && x->npolicies <= RALLOC_MAX_POLICIES);
        assert_true(x->baseline < (int)x->npolicies);
        int c = 0;
        while (c < 6 && x->metrics[c] != RALLOC_NMETRICS)
            c++;
        assert_true(c > 0 && c < 6);
        for (size_t f = 0; f < x->npublished; f++) {
            assert_true(ralloc_policy_index(x, x->published[f].policy) >= 0);
            if (x->published[f].ref)
                assert_true(ralloc_policy_index(x, x->published[f].ref) >= 0);
        }
    }
    assert_null(ralloc_experiment_at(ralloc_experiment_count()));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fairness_stp_antt),      cmocka_unit_test(qos_met),
        cmocka_unit_test(energy_and_power),       cmocka_unit_test(weighted_unfairness),
        cmocka_unit_test(registry_is_consistent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
