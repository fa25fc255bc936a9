/* Unit tests: the allocation experiments run for real on small suites — smqos --threshold's
 * setting reaches SMQoS and a warm trace cache changes no run; a policy's fairness threshold
 * reaches HSM-Fair and the SMs it moved are counted; smqos --readings' settings reach their
 * scenarios; hsm --qos puts its target on the memory-bound kernel of a pair, else the first; an
 * experiment of one split takes only its mixes. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "assert_close.h"
#include <unistd.h>

#include "corun/datadir.h"
#include "corun/reproduce_alloc.h"

#define EPS 1e-9

/* A catalog path in a fresh directory made from the template dir ("...-XXXXXX"). */
static void temp_catalog(char *dir, char *db, size_t len)
{
    assert_non_null(mkdtemp(dir));
    snprintf(db, len, "%s/cat.db", dir);
}

/* Remove the catalog db (with SQLite's side files) and its directory. */
static void remove_catalog(const char *dir, const char *db)
{
    static const char *const left[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < 4; i++) {
        char path[80];
        snprintf(path, sizeof path, "%s%s", db, left[i]);
        unlink(path);
    }
    assert_int_equal(rmdir(dir), 0);
}

/* smqos --threshold (SMQoS §5.3, Fig. 10): SMQoS at 95 % with Algorithm 2's threshold 0.01,
 * 0.02, ..., 0.10 over the pairs whose LS (first) task is LBM, a table per mix; the paper
 * gives no numbers. Run for 30 x 10 K cycles (SMQoS's epoch) on LBM with bino (a one-pair suite in
 * tests/data), threshold 0.5 gives bino a different run than 0.01, so the setting reaches SMQoS.
 * Run again with the trace cache the first run filled, every run is the same: SMQoS's isolated IPC
 * does not depend on how much of a reference the cache held. */
static void smqos_threshold_table(void **state)
{
    (void)state;
    const struct ralloc_experiment *x = ralloc_experiment_find("smqos", "threshold");
    assert_non_null(x);
    assert_string_equal(x->suite, "smqos-pairs.cfg");
    assert_string_equal(x->only, "first=smqos-lbm");
    assert_true(x->by_mix);
    assert_int_equal(x->metrics[0], RALLOC_BATCH);
    assert_int_equal(x->npolicies, 10);
    for (unsigned p = 0; p < 10; p++) {
        assert_string_equal(x->policies[p].allocator, "smqos");
        assert_close(x->policies[p].threshold, 0.01 * (p + 1), EPS);
        assert_close(x->policies[p].smqos, 0.95, EPS);
        assert_close(x->policies[p].target, 0.95, EPS);
    }
    for (size_t f = 0; f < x->npublished; f++) {
        assert_true(isnan(x->published[f].value));
        assert_string_equal(x->published[f].source, "SMQoS §5.3");
    }

    static const struct ralloc_policy policies[] = {
        {.label = "t0.01", .allocator = "smqos", .target = 0.95, .smqos = 0.95, .threshold = 0.01},
        {.label = "t0.5", .allocator = "smqos", .target = 0.95, .smqos = 0.95, .threshold = 0.5},
    };
    struct ralloc_experiment y = *x;
    y.suite = "../../tests/data/suites/smqos-lbm-bino.cfg"; /* one pair of smqos-pairs */
    y.policies = policies;
    y.npolicies = 2;
    y.npublished = 0;
    char dir[] = "/tmp/corun-test-smqos-XXXXXX", db[64];
    temp_catalog(dir, db, sizeof db);
    char *datadir = datadir_locate();
    struct ralloc_options o = {.datadir = datadir,
                               .catalog = db,
                               .jobs = 1,
                               .epochs = 30,
                               .epoch_cycles = 10000,
                               .seed = 1};
    struct ralloc_result r, warm;
    char err[512] = "";
    assert_int_equal(ralloc_run(&o, &y, NULL, NULL, &r, err, sizeof err), 0);
    assert_int_equal(ralloc_run(&o, &y, NULL, NULL, &warm, err, sizeof err), 0);
    free(datadir);
    remove_catalog(dir, db);
    for (unsigned p = 0; p < 2; p++) {
        const struct ralloc_run *c = &r.mixes[0].runs[p], *w = &warm.mixes[0].runs[p];
        assert_true(c->cycles == w->cycles && c->energy_j == w->energy_j);
        for (unsigned k = 0; k < 2; k++)
            assert_true(c->private_cycles[k] == w->private_cycles[k] &&
                        c->sm_cycles[k] == w->sm_cycles[k]);
    }
    ralloc_result_done(&warm);
    assert_int_equal(r.nmixes, 1);
    assert_string_equal(r.mixes[0].key, "smqos-lbm+smqos-bino");
    const struct ralloc_run *a = &r.mixes[0].runs[0], *b = &r.mixes[0].runs[1];
    double moved = fabs(a->sm_cycles[1] - b->sm_cycles[1]) / a->cycles;
    print_message("bino's SMs differ by %.2f on average between thresholds 0.01 and 0.5\n", moved);
    assert_true(moved > 0.1);
    ralloc_result_done(&r);
}

/* 1 when a and b summed the same epochs exactly. */
static bool same_run(const struct ralloc_run *a, const struct ralloc_run *b)
{
    bool same = a->failed == b->failed && a->epochs == b->epochs && a->cycles == b->cycles &&
                a->energy_j == b->energy_j;
    for (unsigned k = 0; k < RALLOC_MAX_KERNELS; k++)
        same = same && a->private_cycles[k] == b->private_cycles[k] &&
               a->sm_cycles[k] == b->sm_cycles[k];
    return same;
}

/* x run with o (its datadir and catalog set here: a catalog of its own, removed after) into r;
 * 0 or -1 (the message printed). */
static int run_alone(const struct ralloc_experiment *x, struct ralloc_options o,
                     struct ralloc_result *r)
{
    char dir[] = "/tmp/corun-test-ralloc-XXXXXX", db[64];
    temp_catalog(dir, db, sizeof db);
    char *datadir = datadir_locate();
    o.datadir = datadir;
    o.catalog = db;
    char err[512] = "";
    int rc = ralloc_run(&o, x, NULL, NULL, r, err, sizeof err);
    free(datadir);
    remove_catalog(dir, db);
    if (rc != 0)
        print_message("ralloc_run: %s\n", err);
    return rc;
}

/* One mix of x (the first of --mixes 1's choice) over epochs x cycles, seed 1. */
static int one_mix(const struct ralloc_experiment *x, unsigned epochs, unsigned cycles,
                   struct ralloc_result *r)
{
    const struct ralloc_options o = {
        .jobs = 1, .mixes = 1, .epochs = epochs, .epoch_cycles = cycles, .seed = 1};
    return run_alone(x, o, r);
}

/* hsm --threshold's experiment (one pair with --mixes 1) with the n policies given instead of
 * its own, and no published numbers. */
static struct ralloc_experiment hsm_pair_with(const struct ralloc_policy *policies, unsigned n)
{
    struct ralloc_experiment x = *ralloc_experiment_find("hsm", "threshold");
    x.policies = policies;
    x.npolicies = n;
    x.npublished = 0;
    return x;
}

/* A real run of one hsm pair, 2 epochs of 50 K cycles (HSM-Fair decides at the boundary), under
 * HSM-Fair at threshold 0.01 (never below it: the even split stays, 40 SMs each for every
 * cycle), 1 (always below it: it repartitions, so the run differs from the even one: the
 * setting arrives), 0 (the scenario's default) and 0.9 (the default written out: the very
 * same run). */
static void run_applies_threshold(void **state)
{
    (void)state;
    static const struct ralloc_policy policies[] = {
        {"t0.01", "fair", "hsm", 0, 0, 0, 0, NULL, 0.01, NULL},
        {"t1", "fair", "hsm", 0, 0, 0, 0, NULL, 1, NULL},
        {"default", "fair", "hsm", 0, 0, 0, 0, NULL, 0, NULL},
        {"t0.9", "fair", "hsm", 0, 0, 0, 0, NULL, 0.9, NULL},
    };
    struct ralloc_experiment x = hsm_pair_with(policies, 4);
    struct ralloc_result r;
    assert_int_equal(one_mix(&x, 2, 50000, &r), 0);
    assert_int_equal(r.nmixes, 1);
    const struct ralloc_mix_result *m = &r.mixes[0];
    assert_int_equal(m->nkernels, 2);
    const struct ralloc_run *never = &m->runs[0], *always = &m->runs[1];
    assert_int_equal(never->epochs, 2);
    for (unsigned k = 0; k < 2; k++)
        assert_close(never->sm_cycles[k], 40 * never->cycles, 1e-6 * never->cycles);
    /* At least a tenth of an SM moved on average (one SM for part of epoch 2 does it). */
    double shift = fabs(always->sm_cycles[0] - 40 * always->cycles) / always->cycles;
    assert_true(shift > 0.1);
    /* SMs moved: none under the even split; under the other, what kernel 0 lost or gained in
     * epoch 2 (half the run), as a time-weighted count: twice its shift over the run. */
    assert_close(never->sms_moved, 0, EPS);
    assert_close(always->sms_moved, 2 * shift, 1e-6);
    assert_true(same_run(&m->runs[2], &m->runs[3]));
    assert_false(same_run(&m->runs[0], &m->runs[1]));
    ralloc_result_done(&r);
}

/* A policy's weights split a pair's SMs in proportion before the first epoch (80 SMs:
 * <0.25, 0.75> is 20 and 60; <0.999, 0.001> would leave kernel 1 none, so 79 and 1), which
 * the static allocator keeps; a policy's hp_share reaches the proportional allocator (half the
 * SMs to the high-priority kernel 0, where its default gives 64). */
static void policies_split_their_sms(void **state)
{
    (void)state;
    static const struct ralloc_policy policies[] = {
        {.label = "w.25", .allocator = "static", .weight0 = 0.25},
        {.label = "w.999", .allocator = "static", .weight0 = 0.999},
        {.label = "hp.5", .allocator = "proportional", .target = 0.5, .hp_share = 0.5},
    };
    struct ralloc_experiment x = hsm_pair_with(policies, 3);
    struct ralloc_result r;
    assert_int_equal(one_mix(&x, 2, 20000, &r), 0);
    const struct ralloc_mix_result *m = &r.mixes[0];
    assert_int_equal(m->nkernels, 2);
    static const double want[3][2] = {{20, 60}, {79, 1}, {40, 40}};
    for (unsigned p = 0; p < 3; p++) {
        double c = m->runs[p].cycles;
        for (unsigned k = 0; k < 2; k++)
            if (fabs(m->runs[p].sm_cycles[k] - want[p][k] * c) > 0.01 * c)
                fail_msg("%s: kernel %u had %.2f SMs on average, expected %.0f", policies[p].label,
                         k, m->runs[p].sm_cycles[k] / c, want[p][k]);
    }
    ralloc_result_done(&r);
}

/* smqos --readings: each policy's `set` reaches its scenario. On one pair (bino, compute-bound,
 * as the LS task beside cp) over 8 epochs of 20 K cycles (16 SMQoS decisions):
 * Static-SMQoS rounded down gives the LS task 22 SMs where the nearest gives 23, and SMQoS allowed
 * the batch task's last SM leaves the batch task fewer SM-cycles than SMQoS that keeps it one. */
static void readings_apply_their_settings(void **state)
{
    (void)state;
    const struct ralloc_experiment *found = ralloc_experiment_find("smqos", "readings");
    assert_non_null(found);
    struct ralloc_experiment y = *found;
    y.suite = "../../tests/data/suites/smqos-bino-cp.cfg"; /* one pair of smqos-pairs */
    const struct ralloc_experiment *x = &y;
    int smqos = ralloc_policy_index(x, "smqos@95%"),
        batch0 = ralloc_policy_index(x, "smqos@95%:batch0"),
        near = ralloc_policy_index(x, "static-smqos@95%"),
        down = ralloc_policy_index(x, "static-smqos@95%:down");
    assert_true(smqos > 0 && batch0 > 0 && near > 0 && down > 0);
    struct ralloc_result r;
    assert_int_equal(one_mix(x, 8, 20000, &r), 0);
    const struct ralloc_mix_result *m = &r.mixes[0];
    /* Static-SMQoS repartitions at the start: 23 (22) SMs for the whole run but the drain. */
    double c = m->runs[near].cycles;
    assert_close(m->runs[near].sm_cycles[0], 23 * c, 0.01 * c * 23);
    assert_close(m->runs[down].sm_cycles[0], 22 * c, 0.01 * c * 22);
    assert_true(m->runs[batch0].sm_cycles[1] < m->runs[smqos].sm_cycles[1] - 10000);
    ralloc_result_done(&r);
}

/* hsm --qos: the QoS target goes to the memory-bound kernel of a pair (HSM Fig. 12), and to the
 * first when both or neither are memory-bound. One short epoch of each pair, one policy. */
static void qos_target_on_the_memory_bound_kernel(void **state)
{
    (void)state;
    static const struct ralloc_policy policies[] = {{.label = "even", .allocator = "even"}};
    const struct ralloc_experiment *qos = ralloc_experiment_find("hsm", "qos");
    assert_non_null(qos);
    assert_true(qos->memory_hp);
    struct ralloc_experiment x = *qos;
    x.suite = "../../tests/data/suites/hsm-memory-hp.cfg";
    x.policies = policies;
    x.npolicies = 1;
    x.npublished = 0;
    const struct ralloc_options o = {.jobs = 1, .seed = 1};
    struct ralloc_result r;
    assert_int_equal(run_alone(&x, o, &r), 0);
    assert_int_equal(r.nmixes, 4);
    const int want[] = {1, 0, 0, 0}; /* bino+lbm, lbm+pvc, bino+dxtc, lbm+bino@20:60 */
    for (unsigned i = 0; i < 4; i++) {
        assert_int_equal(r.mixes[i].failed, 0);
        if (r.mixes[i].hp != want[i])
            fail_msg("%s: high priority %d, expected %d", r.mixes[i].key, r.mixes[i].hp, want[i]);
    }
    ralloc_result_done(&r);

    /* An experiment of one split takes only the mixes on it. */
    x.only = "20:60";
    assert_int_equal(run_alone(&x, o, &r), 0);
    assert_int_equal(r.nmixes, 1);
    assert_string_equal(r.mixes[0].key, "lbm+bino"); /* the split pair: the only lbm+bino */
    ralloc_result_done(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(smqos_threshold_table),
        cmocka_unit_test(run_applies_threshold),
        cmocka_unit_test(readings_apply_their_settings),
        cmocka_unit_test(policies_split_their_sms),
        cmocka_unit_test(qos_target_on_the_memory_bound_kernel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
