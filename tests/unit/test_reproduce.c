/* Unit tests: the reproduce experiments' error arithmetic on hand-built per-epoch results —
 * averages, maxima and medians per kernel-epoch and over the run, overall and per category —
 * and the --quick subset. Every expected value is worked out by hand in the comments. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "assert_close.h"

#include "corun/reproduce.h"

/* A result with n kernels and epochs of 100 cycles, truth and one predictor's NP^ given
 * row-major [epoch][kernel]. */
static void fill(struct repro_mix_result *m, const char *tag, const char *split, unsigned nk,
                 unsigned ne, const double *truth, const double *pred)
{
    memset(m, 0, sizeof(*m));
    snprintf(m->tag, sizeof m->tag, "%s", tag);
    snprintf(m->split, sizeof m->split, "%s", split);
    m->nkernels = nk;
    m->nepochs = ne;
    m->npredictors = 2;
    snprintf(m->unavailable[1], sizeof m->unavailable[1], "no model: run corun train x");
    for (unsigned e = 0; e < ne; e++) {
        m->cycles[e] = 100;
        for (unsigned k = 0; k < nk; k++) {
            m->np_true[0][e][k] = m->np_true[1][e][k] = truth[e * nk + k];
            m->np_pred[0][e][k] = pred[e * nk + k];
            m->np_pred[1][e][k] = 0.5;
        }
    }
}

/* A: heterogeneous, 2 kernels x 2 epochs.
 *   epoch errors: k0 |0.6-0.5|/0.5 = 0.2, |0.4-0.5|/0.5 = 0.2; k1 0, |0.5-0.4|/0.4 = 0.25
 *   run: k0 NP 0.5, NP^ 0.5 -> 0; k1 NP 0.6, NP^ 0.65 -> 0.05/0.6 = 1/12
 * B: memory-homogeneous, 1 epoch: k0 |0.5-0.4|/0.4 = 0.25 (epoch and run); k1 has no NP^.
 * C: heterogeneous but failed: left out. */
static struct repro_mix_result *three_mixes(void)
{
    struct repro_mix_result *r = calloc(3, sizeof(*r));
    const double at[] = {0.5, 0.8, 0.5, 0.4}, ap[] = {0.6, 0.8, 0.4, 0.5};
    const double bt[] = {0.4, 0.5}, bp[] = {0.5, NAN};
    const double ct[] = {0.1}, cp[] = {0.9};
    fill(&r[0], "heterogeneous", "", 2, 2, at, ap);
    fill(&r[1], "memory-homogeneous", "", 2, 1, bt, bp);
    fill(&r[2], "heterogeneous", "", 1, 1, ct, cp);
    r[2].failed = 1;
    return r;
}

static void overall(void **state)
{
    (void)state;
    struct repro_mix_result *r = three_mixes();
    struct repro_stats e, run;
    repro_aggregate(r, 3, 0, REPRO_ERROR_NP, NULL, &e, &run);
    /* epoch: {0.2, 0, 0.2, 0.25, 0.25}: mean 0.9/5, max 0.25, median 0.2 */
    assert_int_equal(e.n, 5);
    assert_close(e.avg, 0.18, 1e-12);
    assert_close(e.max, 0.25, 1e-12);
    assert_close(e.median, 0.2, 1e-12);
    /* run: {0, 1/12, 0.25}: mean (1/12 + 1/4) / 3 = 1/9, max 0.25, median 1/12 */
    assert_int_equal(run.n, 3);
    assert_close(run.avg, 1.0 / 9, 1e-12);
    assert_close(run.max, 0.25, 1e-12);
    assert_close(run.median, 1.0 / 12, 1e-12);
    free(r);
}

static void per_category(void **state)
{
    (void)state;
    struct repro_mix_result *r = three_mixes();
    struct repro_stats e, run;
    repro_aggregate(r, 3, 0, REPRO_ERROR_NP, "heterogeneous", &e, &run);
    /* epoch {0.2, 0, 0.2, 0.25}: mean 0.1625, median (0.2 + 0.2) / 2; run {0, 1/12} */
    assert_int_equal(e.n, 4);
    assert_close(e.avg, 0.1625, 1e-12);
    assert_close(e.max, 0.25, 1e-12);
    assert_close(e.median, 0.2, 1e-12);
    assert_int_equal(run.n, 2);
    assert_close(run.avg, 1.0 / 24, 1e-12);
    assert_close(run.median, 1.0 / 24, 1e-12);
    assert_close(run.max, 1.0 / 12, 1e-12);
    repro_aggregate(r, 3, 0, REPRO_ERROR_NP, "memory-homogeneous", &e, &run);
    assert_int_equal(e.n, 1);
    assert_close(e.avg, 0.25, 1e-12);
    assert_int_equal(run.n, 1);
    assert_close(run.max, 0.25, 1e-12);
    repro_aggregate(r, 3, 0, REPRO_ERROR_NP, "compute-homogeneous", &e, &run);
    assert_int_equal(e.n, 0);
    assert_true(isnan(e.avg) && isnan(e.max) && isnan(run.median));
    free(r);
}

/* The kernel-epochs split by where the prediction extrapolated: in mix A mark k0's epoch 0
 * (error 0.2) and k1's epoch 1 (0.25) far; B's k0 (0.25) stays in range. */
static void split_by_extrapolation(void **state)
{
    (void)state;
    struct repro_mix_result *r = three_mixes();
    r[0].far[0][0][0] = r[0].far[0][1][1] = 1;
    r[2].far[0][0][0] = 1; /* the failed mix's: left out */
    struct repro_stats far, in, e, run;
    repro_aggregate_far(r, 3, 0, REPRO_ERROR_NP, NULL, true, &far);
    repro_aggregate_far(r, 3, 0, REPRO_ERROR_NP, NULL, false, &in);
    assert_int_equal(far.n, 2);
    assert_close(far.avg, 0.225, 1e-12);
    assert_close(far.max, 0.25, 1e-12);
    /* in range: A's k0 epoch 1 (0.2), k1 epoch 0 (0), B's k0 (0.25) */
    assert_int_equal(in.n, 3);
    assert_close(in.avg, 0.45 / 3, 1e-12);
    /* together they are every kernel-epoch */
    repro_aggregate(r, 3, 0, REPRO_ERROR_NP, NULL, &e, &run);
    assert_int_equal(far.n + in.n, e.n);
    repro_aggregate_far(r, 3, 0, REPRO_ERROR_NP, "memory-homogeneous", true, &far);
    assert_int_equal(far.n, 0);
    assert_true(isnan(far.avg));
    free(r);
}

static void unavailable_predictor_has_no_errors(void **state)
{
    (void)state;
    struct repro_mix_result *r = three_mixes();
    struct repro_stats e, run;
    repro_aggregate(r, 3, 1, REPRO_ERROR_NP, NULL, &e, &run);
    assert_int_equal(e.n, 0);
    assert_int_equal(run.n, 0);
    free(r);
}

/* Over the run, NP is cycle-weighted: epochs of 100 and 300 cycles with NP 0.4 and 0.8 give
 * (40 + 240) / 400 = 0.7; NP^ 0.4 in both gives 0.4; error 0.3 / 0.7. The split is a group. */
static void run_np_is_cycle_weighted(void **state)
{
    (void)state;
    struct repro_mix_result m;
    const double t[] = {0.4, 0.8}, p[] = {0.4, 0.4};
    fill(&m, "CI-MI", "10:50", 1, 2, t, p);
    m.cycles[1] = 300;
    struct repro_stats e, run;
    repro_aggregate(&m, 1, 0, REPRO_ERROR_NP, "10:50", &e, &run);
    assert_int_equal(e.n, 2);
    assert_close(e.avg, 0.25, 1e-12); /* (0 + 0.5) / 2 */
    assert_close(run.avg, 0.3 / 0.7, 1e-12);
    repro_aggregate(&m, 1, 0, REPRO_ERROR_NP, "20:40", &e, &run);
    assert_int_equal(e.n, 0);
    assert_true(repro_in_group(&m, "CI-MI") && repro_in_group(&m, NULL));
}

static void slowdown_error(void **state)
{
    (void)state;
    /* NP 0.5 (SD 2), NP^ 0.4 (SD^ 2.5): |2.5 - 2| / 2 = 0.25; of NP: 0.1 / 0.5 = 0.2 */
    assert_close(repro_are(REPRO_ERROR_SD, 0.4, 0.5), 0.25, 1e-12);
    assert_close(repro_are(REPRO_ERROR_NP, 0.4, 0.5), 0.2, 1e-12);
    assert_close(repro_are(REPRO_ERROR_NP, NAN, 0.5), -1, 0);
    assert_close(repro_are(REPRO_ERROR_SD, 0, 0.5), -1, 0);
    assert_close(repro_are(REPRO_ERROR_NP, 0.5, 0), -1, 0);
}

/* Tags a x6, b x4, c x2. Six spread over tags: two per tag at the middles of their halves,
 * shifted by rank t x n / (2 x 3) members (a: 0, b: 4/6 -> 0, c: 4/6 -> 0) — a: members 1 and
 * 4; b: 6 + 1, 6 + 3; c: 10, 11. Three: one per tag at its middle, shifted by t x n / 3 —
 * a: 3; b: 6 + (2 + 1); c: 10 + (1 + 1) % 2. Two (fewer than tags): over the suite, 12 mixes
 * in halves: 3 and 9. A tag no mix has (a suite filtered by an experiment) takes no share:
 * with an empty tag listed first, six are the same six. */
static void quick_subset(void **state)
{
    (void)state;
    char *tags[] = {"a", "b", "c"};
    struct suite_mix mixes[12];
    memset(mixes, 0, sizeof mixes);
    for (int i = 0; i < 12; i++)
        mixes[i].tag = tags[i < 6 ? 0 : i < 10 ? 1 : 2];
    struct suite s = {.tags = tags, .ntags = 3, .mixes = mixes, .nmixes = 12};
    size_t out[12];
    assert_int_equal(repro_quick_select(&s, 6, out), 6);
    const size_t want6[] = {1, 4, 7, 9, 10, 11};
    for (int i = 0; i < 6; i++)
        assert_int_equal(out[i], want6[i]);
    assert_int_equal(repro_quick_select(&s, 3, out), 3);
    assert_int_equal(out[0], 3);
    assert_int_equal(out[1], 9);
    assert_int_equal(out[2], 10);
    assert_int_equal(repro_quick_select(&s, 2, out), 2);
    assert_int_equal(out[0], 3);
    assert_int_equal(out[1], 9);
    char *more[] = {"empty", "a", "b", "c"};
    s.tags = more;
    s.ntags = 4;
    assert_int_equal(repro_quick_select(&s, 6, out), 6);
    for (int i = 0; i < 6; i++)
        assert_int_equal(out[i], want6[i]);
}

static void experiments_are_listed(void **state)
{
    (void)state;
    const struct repro_experiment *hsm = repro_experiment_find("hsm", "accuracy");
    assert_non_null(hsm);
    assert_string_equal(hsm->parts[0].suite, "hsm-pairs.cfg");
    assert_int_equal(hsm->parts[0].quick_mixes, 15);
    assert_non_null(repro_experiment_find("themis", "accuracy"));
    const struct repro_experiment *quads = repro_experiment_find("themis", "quads");
    assert_non_null(quads);
    assert_string_equal(quads->parts[0].suite, "themis-quads.cfg");
    assert_null(repro_experiment_find("hsm", "quads")); /* an allocation experiment's */
    assert_null(repro_experiment_find("hsn", "accuracy"));
    assert_true(repro_experiment_named("themis"));
    assert_true(repro_experiment_named("hsm")); /* the first listed */
    assert_false(repro_experiment_named("smqos"));
    assert_null(repro_experiment_at(repro_experiment_count()));
    /* HSM's GDDR5 figure is printed only beside a gddr5_40 run; Fig. 10's only on hbm80. */
    const struct repro_published *gddr5 = NULL, *fig10 = NULL;
    for (size_t i = 0; i < hsm->parts[0].npublished; i++) {
        const struct repro_published *p = &hsm->parts[0].published[i];
        if (strcmp(p->predictor, "hsm") == 0)
            *(p->gpu ? &gddr5 : &fig10) = p;
    }
    assert_non_null(gddr5);
    assert_non_null(fig10);
    assert_close(gddr5->avg, 0.065, 1e-12);
    assert_true(repro_published_on(gddr5->gpu, "gddr5_40", "hbm80"));
    assert_false(repro_published_on(gddr5->gpu, "hbm80", "hbm80"));
    assert_true(repro_published_on(fig10->gpu, "hbm80", "hbm80"));
    assert_false(repro_published_on(fig10->gpu, "gddr5_40", "hbm80"));
    assert_false(repro_published_on(fig10->gpu, "themis60", "hbm80"));
}

/* Prophet's pairs and cells: shard k of n is the k-th of n runs of consecutive positions,
 * every position in exactly one, sizes within one (every n-th position would give shard 2 of
 * 3 of six positions 1 and 4, not 2 and 3). */
static void run_shards(void **state)
{
    (void)state;
    bool in[3][6];
    for (unsigned k = 1; k <= 3; k++)
        for (size_t i = 0; i < 6; i++)
            in[k - 1][i] = repro_in_run_shard(i, 6, k, 3);
    const bool want[3][6] = {{1, 1, 0, 0, 0, 0}, {0, 0, 1, 1, 0, 0}, {0, 0, 0, 0, 1, 1}};
    assert_memory_equal(in, want, sizeof(in));
    for (size_t count = 1; count <= 40; count++)
        for (unsigned n = 1; n <= 9; n++) {
            size_t size[9] = {0}, lo = SIZE_MAX, hi = 0;
            unsigned last = 0; /* the shard of position i - 1: shards follow in order */
            for (size_t i = 0; i < count; i++) {
                unsigned held = 0, of = 0;
                for (unsigned k = 1; k <= n; k++)
                    if (repro_in_run_shard(i, count, k, n)) {
                        held++;
                        size[k - 1]++;
                        of = k;
                    }
                assert_int_equal(held, 1);
                assert_true(of >= last);
                last = of;
            }
            for (unsigned k = 0; k < n; k++) {
                lo = size[k] < lo ? size[k] : lo;
                hi = size[k] > hi ? size[k] : hi;
            }
            assert_true(hi - lo <= 1);
        }
    assert_true(repro_in_run_shard(3, 5, 0, 0)); /* no shards: everything */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(overall),
        cmocka_unit_test(per_category),
        cmocka_unit_test(split_by_extrapolation),
        cmocka_unit_test(unavailable_predictor_has_no_errors),
        cmocka_unit_test(run_np_is_cycle_weighted),
        cmocka_unit_test(slowdown_error),
        cmocka_unit_test(quick_subset),
        cmocka_unit_test(experiments_are_listed),
        cmocka_unit_test(run_shards),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
