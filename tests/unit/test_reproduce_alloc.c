/* Unit tests: the allocation experiments' metric arithmetic on hand-built run sums — fairness,
 * STP, ANTT, QoS met, SMs moved and held, weighted unfairness, energy and power against the
 * baseline, their means (and medians) over mixes per category or first kernel, relative
 * published comparisons — the registry's consistency and the tables of hsm --threshold and
 * smqos --triples. Every expected value is worked out by hand in the comments; real runs are
 * in test_reproduce_alloc_run.c. */
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
#include <unistd.h>

#include "corun/datadir.h"
#include "corun/reproduce_alloc.h"
#include "corun/scenario.h"

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
    assert_close(v[RALLOC_FAIRNESS], 0.25, EPS);
    assert_close(v[RALLOC_STP], 1.0, EPS);
    assert_close(v[RALLOC_ANTT], 3.125, EPS);
    assert_true(isnan(v[RALLOC_MET])); /* no target in a fairness policy */

    struct ralloc_stats s;
    ralloc_aggregate(x, r, 3, 0, NULL, &s);
    assert_int_equal(s.n, 2);
    assert_close(s.value[RALLOC_FAIRNESS], 0.625, EPS);
    assert_close(s.value[RALLOC_STP], 1.0, EPS);
    assert_close(s.value[RALLOC_ANTT], 2.5625, EPS);
    ralloc_aggregate(x, r, 3, 1, NULL, &s);
    assert_close(s.value[RALLOC_FAIRNESS], (2.0 / 3 + 0.5) / 2, EPS);
    assert_close(s.value[RALLOC_STP], 0.95, EPS);
    assert_close(s.value[RALLOC_ANTT], (25.0 / 12 + 2.5) / 2, EPS);
    ralloc_aggregate(x, r, 3, 1, "heterogeneous", &s);
    assert_int_equal(s.n, 1);
    assert_close(s.value[RALLOC_FAIRNESS], 2.0 / 3, EPS);

    /* fair/hsm vs even, heterogeneous fairness: (2/3) / 0.25 - 1 = 5/3; absolute: 0.625. */
    struct ralloc_published rel = {"fair/hsm", "even", "heterogeneous", RALLOC_FAIRNESS, 0.5, "t",
                                   "t",        NULL};
    assert_close(ralloc_published_ours(x, &rel, r, 3), 5.0 / 3, EPS);
    struct ralloc_published abs = {"even", NULL, NULL, RALLOC_FAIRNESS, 0.5, "t", "t", NULL};
    assert_close(ralloc_published_ours(x, &abs, r, 3), 0.625, EPS);
    struct ralloc_published none = {"nobody", NULL, NULL, RALLOC_FAIRNESS, 0.5, "t", "t", NULL};
    assert_true(isnan(ralloc_published_ours(x, &none, r, 3)));
}

/* hsm --qos (target 0.8), policy 1 qos/hsm.
 * A: hp 1, NP .3/.85 -> met, within 5 %, HP NP/T .85/.8 = 1.0625, batch .3.
 * B: hp 0, NP .77/.5 -> not met (.77 < .8), within 5 % (.77 >= .76), .9625, batch .5.
 * Means: met .5, near 1, HP 1.0125, batch .4.
 * SMs: A's hp (kernel 1) held 56 SMs on average, B's (kernel 0) 64 -> hpSMs 60; A moved 3 SMs,
 * B none -> moved 1.5. */
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
    r[0].runs[1].sm_cycles[1] = 56 * 1000;
    r[0].runs[1].sm_cycles[0] = 24 * 1000;
    r[0].runs[1].sms_moved = 3;
    r[1].runs[1].sm_cycles[0] = 64 * 1000;
    double v[RALLOC_NMETRICS];
    ralloc_run_metrics(x, &r[0], 1, v);
    assert_close(v[RALLOC_HP_SMS], 56, EPS);
    assert_close(v[RALLOC_MOVED], 3, EPS);
    struct ralloc_stats s;
    ralloc_aggregate(x, r, 2, 1, NULL, &s);
    assert_close(s.value[RALLOC_HP_SMS], 60, EPS);
    assert_close(s.value[RALLOC_MOVED], 1.5, EPS);
    assert_int_equal(s.n, 2);
    assert_close(s.value[RALLOC_MET], 0.5, EPS);
    assert_close(s.value[RALLOC_MET_NEAR], 1.0, EPS);
    assert_close(s.value[RALLOC_HP_NP], 1.0125, EPS);
    assert_close(s.value[RALLOC_BATCH], 0.4, EPS);
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
    assert_close(v[RALLOC_ENERGY], 0.75, EPS);
    assert_close(v[RALLOC_POWER], 0.75, EPS);
    assert_close(v[RALLOC_MET], 1.0, EPS); /* .85 >= .80 */
    assert_close(v[RALLOC_BATCH], 0.1, EPS);
    ralloc_run_metrics(x, &m, 2, v);
    assert_close(v[RALLOC_ENERGY], 1.5, EPS);
    assert_close(v[RALLOC_POWER], 0.75, EPS);
    assert_close(v[RALLOC_MET], 0.0, EPS); /* .75 < .80 */
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
    assert_close(v[RALLOC_UNFAIRNESS], 0.5, EPS);
    ralloc_run_metrics(x, &r[0], 2, v);
    assert_close(v[RALLOC_UNFAIRNESS], 0.875, EPS);
    set_tag(&r[1], "CI-CI", 0);
    set_run(&r[1], 0, 1000, 500, 500, 1);
    set_tag(&r[2], "MI-MI", 0);
    set_run(&r[2], 0, 1000, 200, 800, 1);
    struct ralloc_stats s;
    ralloc_aggregate(x, r, 3, 0, NULL, &s);
    assert_int_equal(s.n, 3);
    assert_close(s.value[RALLOC_UNFAIRNESS], 1.25 / 3, EPS);
    assert_close(s.value[RALLOC_UNFAIRNESS_MEDIAN], 0.5, EPS);
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

/* A policy's label states the setting it runs with: "@95%" its QoS target and SMQoS policy,
 * "@t0.02" its SMQoS threshold, "@0.75" its QoS target or fairness threshold, in every
 * experiment (a table row whose number and label disagree is caught here). */
static void labels_say_their_settings(void **state)
{
    (void)state;
    unsigned checked = 0;
    for (size_t i = 0; i < ralloc_experiment_count(); i++) {
        const struct ralloc_experiment *x = ralloc_experiment_at(i);
        for (unsigned p = 0; p < x->npolicies; p++) {
            const struct ralloc_policy *pol = &x->policies[p];
            const char *at = strchr(pol->label, '@');
            if (!at)
                continue;
            bool thr = at[1] == 't';
            char *end;
            double v = strtod(at + 1 + thr, &end);
            if (end == at + 1 + thr)
                fail_msg("%s: no number after '@'", pol->label);
            bool ok;
            if (*end == '%') {
                v /= 100;
                ok = (pol->target > 0 || pol->smqos > 0) &&
                     (pol->target == 0 || fabs(pol->target - v) < EPS) &&
                     (pol->smqos == 0 || fabs(pol->smqos - v) < EPS);
            } else if (thr) {
                ok = fabs(pol->threshold - v) < EPS;
            } else {
                ok = fabs(pol->target - v) < EPS || fabs(pol->threshold - v) < EPS;
            }
            if (!ok)
                fail_msg("%s --%s: %s runs with target %g, smqos %g, threshold %g", x->name,
                         x->flag, pol->label, pol->target, pol->smqos, pol->threshold);
            checked++;
        }
    }
    assert_true(checked >= 30);
}

/* hsm --threshold: even, then HSM-Fair with the hsm predictor at 0.70, 0.75, ..., 0.95; the
 * paper gives a statement, no number, so every published value is NaN. No other experiment
 * changes the fairness threshold (smqos --threshold changes SMQoS's), and hsm --fairness no
 * longer lists §6.5 as not run. */
static void threshold_table(void **state)
{
    (void)state;
    const struct ralloc_experiment *x = ralloc_experiment_find("hsm", "threshold");
    assert_non_null(x);
    assert_string_equal(x->suite, "hsm-pairs.cfg");
    assert_int_equal(x->npolicies, 7);
    assert_string_equal(x->policies[0].allocator, "even");
    assert_true(x->policies[0].threshold == 0);
    static const double want[] = {0.70, 0.75, 0.80, 0.85, 0.90, 0.95};
    for (unsigned p = 1; p < 7; p++) {
        char label[32];
        snprintf(label, sizeof label, "fair/hsm@%.2f", want[p - 1]);
        assert_int_equal(ralloc_policy_index(x, label), (int)p);
        assert_string_equal(x->policies[p].allocator, "fair");
        assert_string_equal(x->policies[p].predictor, "hsm");
        assert_close(x->policies[p].threshold, want[p - 1], EPS);
        assert_true(x->policies[p].target == 0); /* no QoS target: a fairness policy */
    }
    assert_true(x->npublished >= 3);
    for (size_t f = 0; f < x->npublished; f++) {
        assert_true(isnan(x->published[f].value));
        assert_string_equal(x->published[f].source, "HSM §6.5");
        assert_string_equal(x->published[f].ref, "even");
    }
    for (size_t i = 0; i < ralloc_experiment_count(); i++) {
        const struct ralloc_experiment *o = ralloc_experiment_at(i);
        for (unsigned p = 0; o != x && p < o->npolicies; p++)
            if (strcmp(o->policies[p].allocator, "fair") == 0)
                assert_true(o->policies[p].threshold == 0);
    }
    assert_null(ralloc_experiment_find("hsm", "fairness")->missing);
}

/* hsm --quads (HSM §6.5, Fig. 15): the four-program suite, even first (the reference), then
 * Fair with each predictor; the paper's 2.2x is ours / even's - 1 = +1.2 and its "similar STP"
 * has no number. hsm --fairness carries §6.5's GDDR5 fairness, for gddr5_40 runs only. */
static void quads_table(void **state)
{
    (void)state;
    const struct ralloc_experiment *x = ralloc_experiment_find("hsm", "quads");
    assert_non_null(x);
    assert_string_equal(x->suite, "hsm-quads.cfg");
    assert_int_equal(x->baseline, 0);
    assert_int_equal(ralloc_policy_index(x, "even"), 0);
    assert_int_equal(ralloc_policy_index(x, "fair/hsm"), 1);
    assert_true(ralloc_policy_index(x, "fair/dase") > 0);
    assert_true(ralloc_policy_index(x, "fair/themis") > 0);
    assert_int_equal(x->npublished, 2);
    assert_string_equal(x->published[0].ref, "even");
    assert_int_equal(x->published[0].metric, RALLOC_FAIRNESS);
    assert_close(x->published[0].value, 1.2, EPS);
    assert_null(x->published[0].gpu);
    assert_true(isnan(x->published[1].value));
    const struct ralloc_experiment *f = ralloc_experiment_find("hsm", "fairness");
    unsigned gddr5 = 0;
    for (size_t i = 0; i < f->npublished; i++) {
        if (!f->published[i].gpu)
            continue;
        assert_string_equal(f->published[i].gpu, "gddr5_40");
        assert_string_equal(f->published[i].policy, "fair/hsm");
        assert_close(f->published[i].value, 0.887, EPS);
        gddr5++;
    }
    assert_int_equal(gddr5, 1);
}

/* smqos --triples: the pairwise policies on the 3-task suite, LS first; QoS_reach 1.0 at every
 * policy, the <2 % bound as NaN, and LBM at 90 % (+0.32 %) over the mixes LBM leads. §5.5 is no
 * longer listed as not run for smqos; §5.3 still is. */
static void triples_table(void **state)
{
    (void)state;
    const struct ralloc_experiment *x = ralloc_experiment_find("smqos", "triples");
    const struct ralloc_experiment *pairs = ralloc_experiment_find("smqos", "");
    assert_non_null(x);
    assert_non_null(pairs);
    assert_string_equal(x->suite, "smqos-triples.cfg");
    assert_false(x->memory_hp);
    assert_int_equal(x->baseline, 0);
    assert_int_equal(x->npolicies, pairs->npolicies);
    for (unsigned p = 0; p < x->npolicies; p++) {
        assert_string_equal(x->policies[p].label, pairs->policies[p].label);
        assert_true(x->policies[p].target == pairs->policies[p].target);
    }
    unsigned met = 0, bound = 0, lbm = 0;
    for (size_t f = 0; f < x->npublished; f++) {
        const struct ralloc_published *g = &x->published[f];
        int p = ralloc_policy_index(x, g->policy);
        assert_true(p >= 0);
        assert_string_equal(x->policies[p].allocator, "smqos");
        if (g->metric == RALLOC_MET && !g->group) {
            assert_close(g->value, 1.0, EPS);
            met++;
        } else if (g->metric == RALLOC_HP_NP && !g->group) {
            assert_true(isnan(g->value));
            bound++;
        } else {
            assert_string_equal(g->group, "first=smqos-lbm");
            assert_string_equal(g->policy, "smqos@90%");
            assert_close(g->value, 1.0032, EPS);
            lbm++;
        }
    }
    assert_int_equal(met, 4);
    assert_int_equal(bound, 4);
    assert_int_equal(lbm, 1);
    assert_null(pairs->missing); /* §5.3 and §5.5 have their own experiments */
}

/* --policies: a subset keeps the listed policies and the baseline, in the experiment's order,
 * with the published figures that still have their policy and reference (all of them when
 * every policy is listed, labels that hold commas taken whole); bad lists are refused with
 * the label named. */
static void policy_subset(void **state)
{
    (void)state;
    const struct ralloc_experiment *x = ralloc_experiment_find("hsm", "threshold");
    struct ralloc_subset s;
    char err[1024];
    assert_int_equal(
        ralloc_experiment_subset(x, "fair/hsm@0.95,fair/hsm@0.70", &s, err, sizeof err), 0);
    assert_int_equal(s.x.npolicies, 3);
    assert_int_equal(s.x.baseline, 0);
    assert_string_equal(s.x.policies[0].label, "even");
    assert_string_equal(s.x.policies[1].label, "fair/hsm@0.70");
    assert_string_equal(s.x.policies[2].label, "fair/hsm@0.95");
    assert_close(s.x.policies[2].threshold, 0.95, EPS);
    assert_string_equal(s.labels, "even,fair/hsm@0.70,fair/hsm@0.95");
    assert_true(s.x.npublished > 0 && s.x.npublished < x->npublished);
    for (size_t f = 0; f < s.x.npublished; f++)
        assert_string_equal(s.x.published[f].policy, "fair/hsm@0.95");
    assert_ptr_equal(s.x.suite, x->suite);
    ralloc_subset_done(&s);

    /* The baseline alone, named or not. */
    assert_int_equal(ralloc_experiment_subset(x, "even", &s, err, sizeof err), 0);
    assert_int_equal(s.x.npolicies, 1);
    assert_int_equal(s.x.npublished, 0);
    ralloc_subset_done(&s);

    /* An experiment without a baseline gets nothing added; its baseline stays -1. */
    const struct ralloc_experiment *q = ralloc_experiment_find("hsm", "qos");
    assert_int_equal(q->baseline, -1);
    assert_int_equal(ralloc_experiment_subset(q, q->policies[1].label, &s, err, sizeof err), 0);
    assert_int_equal(s.x.npolicies, 1);
    assert_int_equal(s.x.baseline, -1);
    assert_string_equal(s.x.policies[0].label, q->policies[1].label);
    ralloc_subset_done(&s);

    /* Every policy listed: the whole experiment, every published figure kept (a figure of
     * the baseline's, and the first one, too). */
    for (size_t e = 0; e < ralloc_experiment_count(); e++) {
        const struct ralloc_experiment *y = ralloc_experiment_at(e);
        char all[1024];
        size_t at = 0;
        for (unsigned p = 0; p < y->npolicies; p++)
            at += (size_t)snprintf(all + at, sizeof all - at, "%s%s", p ? "," : "",
                                   y->policies[p].label);
        if (ralloc_experiment_subset(y, all, &s, err, sizeof err) != 0)
            fail_msg("%s --%s: %s", y->name, y->flag, err);
        assert_int_equal(s.x.npolicies, y->npolicies);
        assert_int_equal(s.x.baseline, y->baseline);
        assert_int_equal(s.x.npublished, y->npublished);
        for (size_t f = 0; f < y->npublished; f++)
            assert_string_equal(s.x.published[f].policy, y->published[f].policy);
        ralloc_subset_done(&s);
    }

    /* Labels that hold commas are taken whole (Themis' weights); a piece of one is not. */
    const struct ralloc_experiment *t = ralloc_experiment_find("themis", "fairness");
    assert_int_equal(ralloc_experiment_subset(t, "themis<.2,.8>,hp<.5,.5>", &s, err, sizeof err),
                     0);
    assert_string_equal(s.labels, "hp<.5,.5>,themis<.2,.8>");
    ralloc_subset_done(&s);
    assert_int_equal(ralloc_experiment_subset(t, "hp<.5", &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "has no policy 'hp<.5'; it has: hp<.5,.5>, themis<.5,.5>"));
    assert_int_equal(ralloc_experiment_subset(t, "hp<.5,.5>,", &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "an empty label"));

    static const char *const bad[] = {"fair/hsm@0.9", "even,even", "",
                                      ",even",        "even,",     "fair/hsm@0.90,,even"};
    static const char *const says[] = {"no policy 'fair/hsm@0.9'; it has: even, fair/hsm@0.70",
                                       "'even' is listed twice",
                                       "an empty label",
                                       "an empty label",
                                       "an empty label",
                                       "an empty label"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_int_equal(ralloc_experiment_subset(x, bad[i], &s, err, sizeof err), -1);
        assert_non_null(strstr(err, says[i]));
    }
}

/* "first=NAME" groups by the first kernel of the key: A smqos-lbm+atax+bicg hpNP .9/.9 = 1,
 * B smqos-lbm+cp+merge .99/.9 = 1.1, C atax+smqos-lbm+cp (LBM second) and D smqos-lbm2+cp (a
 * longer name) are out. smqos@90% is policy 5. Mean over A, B: 1.05; relative to nothing. */
static void group_by_first_kernel(void **state)
{
    (void)state;
    const struct ralloc_experiment *x = ralloc_experiment_find("smqos", "triples");
    assert_non_null(x);
    assert_int_equal(ralloc_policy_index(x, "smqos@90%"), 5);
    static const char *const keys[] = {"smqos-lbm+atax+bicg", "smqos-lbm+cp+merge",
                                       "atax+smqos-lbm+cp", "smqos-lbm2+cp"};
    static const double hp[] = {900, 990, 100, 100};
    struct ralloc_mix_result r[4];
    for (int i = 0; i < 4; i++) {
        set_tag(&r[i], "MI/CI-MI", 0);
        snprintf(r[i].key, sizeof r[i].key, "%s", keys[i]);
        set_run(&r[i], 5, 1000, hp[i], 500, 1);
    }
    struct ralloc_stats s;
    ralloc_aggregate(x, r, 4, 5, "first=smqos-lbm", &s);
    assert_int_equal(s.n, 2);
    assert_close(s.value[RALLOC_HP_NP], 1.05, EPS);
    ralloc_aggregate(x, r, 4, 5, "MI/CI-MI", &s);
    assert_int_equal(s.n, 4);
    ralloc_aggregate(x, r, 4, 5, "first=smqos", &s);
    assert_int_equal(s.n, 0);
    struct ralloc_published lbm = {"smqos@90%", NULL, "first=smqos-lbm", RALLOC_HP_NP, 1, "t",
                                   "t",         NULL};
    assert_close(ralloc_published_ours(x, &lbm, r, 4), 1.05, EPS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fairness_stp_antt),
        cmocka_unit_test(qos_met),
        cmocka_unit_test(quads_table),
        cmocka_unit_test(energy_and_power),
        cmocka_unit_test(weighted_unfairness),
        cmocka_unit_test(registry_is_consistent),
        cmocka_unit_test(labels_say_their_settings),
        cmocka_unit_test(threshold_table),
        cmocka_unit_test(triples_table),
        cmocka_unit_test(group_by_first_kernel),
        cmocka_unit_test(policy_subset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
