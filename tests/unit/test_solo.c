/* Unit tests: private-mode traces, the true-NP oracle and solo characterization. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "corun/gpu.h"
#include "corun/kernel.h"
#include "corun/solo.h"
#include "testutil.h"

/* HSM Table 1, from data/gpus/hbm80.cfg. */
static void hbm80(struct gpu_config *c)
{
    test_preset("hbm80", c);
}

static void trace_is_cached_and_monotonic(void **state)
{
    (void)state;
    struct gpu_config cfg;
    hbm80(&cfg);
    struct solo_cache *c = solo_cache_new();
    char err[256];
    const struct kernel_profile *p = kernel_builtin_find("stream");
    struct solo_trace *t = solo_cache_get(c, &cfg, p, 0, 5, err, sizeof err);
    assert_non_null(t);
    assert_ptr_equal(solo_cache_get(c, &cfg, p, 80, 5, err, sizeof err), t); /* 0 means all */
    assert_ptr_not_equal(solo_cache_get(c, &cfg, p, 80, 6, err, sizeof err), t);
    assert_int_equal(solo_cache_count(c), 2);
    solo_trace_extend(t, 10 * SOLO_SAMPLE_CYCLES);
    const uint64_t *insts;
    size_t n = solo_trace_samples(t, &insts);
    assert_int_equal(n, 11);
    assert_int_equal(insts[0], 0);
    for (size_t i = 1; i < n; i++)
        assert_true(insts[i] >= insts[i - 1]);
    assert_true(insts[n - 1] > 0);
    /* the key names what made the trace */
    assert_int_equal(solo_trace_key(t)->config_hash, solo_config_hash(&cfg));
    assert_int_equal(solo_trace_key(t)->sms, 80);
    cfg.llc.latency_cycles++;
    assert_true(solo_config_hash(&cfg) != solo_trace_key(t)->config_hash);
    /* Every unit's lanes and latency make another GPU, the first of them (SFU) too. */
    struct gpu_config base = cfg;
    for (int u = 0; u < 3; u++)
        for (int field = 0; field < 2; field++) {
            struct gpu_config other = base;
            struct unit_config *unit = u == 0 ? &other.sfu : u == 1 ? &other.fp64 : &other.shmem;
            if (field)
                unit->latency_cycles++;
            else
                unit->lanes++;
            if (solo_config_hash(&other) == solo_config_hash(&base))
                fail_msg("unit %d's %s changed no hash", u, field ? "latency" : "lanes");
        }
    assert_non_null(solo_cache_at(c, solo_cache_count(c) - 1));
    assert_null(solo_cache_at(c, solo_cache_count(c)));
    cfg.sms = 0;
    assert_null(solo_cache_get(c, &cfg, p, 0, 5, err, sizeof err));
    solo_cache_delete(c);
}

static void private_interval_has_np_one(void **state)
{
    (void)state;
    struct gpu_config cfg;
    hbm80(&cfg);
    struct solo_cache *c = solo_cache_new();
    char err[256];
    struct solo_trace *t =
        solo_cache_get(c, &cfg, kernel_builtin_find("cachefit"), 0, 1, err, sizeof err);
    solo_trace_extend(t, 20 * SOLO_SAMPLE_CYCLES);
    const uint64_t *insts;
    solo_trace_samples(t, &insts);
    /* the private run against itself: NP 1 */
    double np = solo_true_np(t, insts[5], insts[15], 10 * SOLO_SAMPLE_CYCLES);
    assert_true(np > 0.999 && np < 1.001);
    assert_true(solo_trace_cycles_at(t, insts[7]) > 6.99 * SOLO_SAMPLE_CYCLES);
    assert_true(solo_trace_cycles_at(t, insts[7]) <= 7 * SOLO_SAMPLE_CYCLES);
    /* twice the time for the same work: NP 1/2 */
    np = solo_true_np(t, insts[5], insts[15], 20 * SOLO_SAMPLE_CYCLES);
    assert_true(np > 0.499 && np < 0.501);
    assert_true(solo_true_np(t, 10, 5, 100) == -1); /* backwards: no interval */
    assert_true(solo_true_np(t, 5, 10, 0) == -1);   /* no shared cycles: no rate */
    solo_cache_delete(c);
}

/* An interval that starts at the kernel's start, or makes no progress at all, is an interval
 * like any other: NP 1 from instruction 0 in the private run's own time, and NP 0 for none. */
static void np_from_the_start_and_of_nothing(void **state)
{
    (void)state;
    struct gpu_config cfg;
    hbm80(&cfg);
    struct solo_cache *c = solo_cache_new();
    char err[256];
    struct solo_trace *t =
        solo_cache_get(c, &cfg, kernel_builtin_find("cachefit"), 0, 1, err, sizeof err);
    solo_trace_extend(t, 10 * SOLO_SAMPLE_CYCLES);
    const uint64_t *insts;
    solo_trace_samples(t, &insts);
    double np = solo_true_np(t, 0, insts[10], 10 * SOLO_SAMPLE_CYCLES);
    assert_true(np > 0.999 && np < 1.001);
    assert_true(solo_true_np(t, 0, 0, 1000) == 0);
    solo_cache_delete(c);
}

/* A trace's key tells applications apart by every setting of every phase: otherwise two
 * applications would share one cached reference. */
static void profile_hash_sees_every_phase_setting(void **state)
{
    (void)state;
    struct kernel_profile p = *kernel_builtin_find("stream");
    p.nphases = 2;
    memset(p.phase, 0, sizeof(p.phase));
    p.phase[0].nsets = 2;
    p.phase[0].set[0] = (struct kernel_phase_set){8, 4, 100};
    p.phase[0].set[1] = (struct kernel_phase_set){12, 4, 200};
    p.phase[1].nsets = 1;
    p.phase[1].set[0] = (struct kernel_phase_set){8, 4, 300};
    uint64_t h = solo_profile_hash(&p);
    struct kernel_profile q = p;
    q.phase[0].set[0].bits = 101;
    assert_true(solo_profile_hash(&q) != h);
    q = p;
    q.phase[0].set[0].offset = 16;
    assert_true(solo_profile_hash(&q) != h);
    q = p;
    q.phase[1].set[0].bits = 301;
    assert_true(solo_profile_hash(&q) != h);
    q = p;
    q.phase[0].set[1].bits = 201;
    assert_true(solo_profile_hash(&q) != h);
    q = p;
    q.description = "another text"; /* not a setting */
    assert_true(solo_profile_hash(&q) == h);
}

static void trace_extends_on_demand_and_round_trips(void **state)
{
    (void)state;
    struct gpu_config cfg;
    hbm80(&cfg);
    char err[256];
    const struct kernel_profile *p = kernel_builtin_find("compute");
    struct solo_cache *a = solo_cache_new(), *b = solo_cache_new();
    struct solo_trace *t = solo_cache_get(a, &cfg, p, 40, 2, err, sizeof err);
    solo_trace_extend(t, 5 * SOLO_SAMPLE_CYCLES);
    const uint64_t *insts;
    size_t n = solo_trace_samples(t, &insts);
    /* an instruction count beyond the trace extends it */
    uint64_t beyond = insts[n - 1] * 3;
    double cyc = solo_trace_cycles_at(t, beyond);
    assert_true(cyc > 3 * (n - 1) * SOLO_SAMPLE_CYCLES * 0.95);
    n = solo_trace_samples(t, &insts);
    assert_true(insts[n - 1] >= beyond);
    /* a persisted copy gives the same answers and rebuilds the run to go further */
    struct solo_trace *u = solo_cache_put(b, &cfg, p, 40, 2, insts, n, err, sizeof err);
    assert_non_null(u);
    assert_true(solo_trace_cycles_at(u, beyond) == cyc);
    uint64_t far = insts[n - 1] * 2;
    assert_true(solo_trace_cycles_at(u, far) == solo_trace_cycles_at(t, far));
    uint64_t bad[2] = {5, 3};
    assert_null(solo_cache_put(b, &cfg, p, 40, 2, bad, 2, err, sizeof err));
    solo_cache_delete(a);
    solo_cache_delete(b);
}

/* A loaded trace is caught up with a slice at a time: its samples stay as loaded throughout
 * (the same run gives them again), how far behind it is shrinks by each slice, and once
 * caught up it is extended from where it stands, giving the samples a run never stored
 * gives. A damaged sample is replaced by the run's as it is caught up with. */
static void loaded_trace_catches_up_in_slices(void **state)
{
    (void)state;
    struct gpu_config cfg;
    hbm80(&cfg);
    char err[256];
    const struct kernel_profile *p = kernel_builtin_find("stream");
    struct solo_cache *a = solo_cache_new(), *b = solo_cache_new();
    struct solo_trace *live = solo_cache_get(a, &cfg, p, 20, 3, err, sizeof err);
    solo_trace_extend(live, 12 * SOLO_SAMPLE_CYCLES);
    assert_int_equal(solo_trace_behind(live), 0);
    assert_false(solo_trace_loaded(live));
    const uint64_t *insts;
    size_t n = solo_trace_samples(live, &insts);
    assert_int_equal(n, 13);
    uint64_t *copy = malloc(n * sizeof(*copy));
    memcpy(copy, insts, n * sizeof(*copy));
    copy[7] -= 1; /* damaged, still in order */
    struct solo_trace *t = solo_cache_put(b, &cfg, p, 20, 3, copy, n, err, sizeof err);
    assert_non_null(t);
    assert_true(solo_trace_loaded(t));
    assert_int_equal(solo_trace_behind(t), 12 * SOLO_SAMPLE_CYCLES);
    const uint64_t *got;
    solo_trace_catch_up(t, 5 * SOLO_SAMPLE_CYCLES); /* the start, and 4 samples on */
    assert_int_equal(solo_trace_behind(t), 8 * SOLO_SAMPLE_CYCLES);
    assert_int_equal(solo_trace_samples(t, &got), n);
    assert_memory_equal(got, copy, n * sizeof(*got));
    solo_trace_catch_up(t, 100 * SOLO_SAMPLE_CYCLES); /* stops at the samples' end */
    assert_int_equal(solo_trace_behind(t), 0);
    assert_false(solo_trace_loaded(t));
    assert_int_equal(solo_trace_samples(t, &got), n);
    assert_memory_equal(got, insts, n * sizeof(*got)); /* the damaged sample is the run's */
    solo_trace_extend(t, 20 * SOLO_SAMPLE_CYCLES);
    solo_trace_extend(live, 20 * SOLO_SAMPLE_CYCLES);
    n = solo_trace_samples(live, &insts);
    assert_int_equal(solo_trace_samples(t, &got), n);
    assert_memory_equal(got, insts, n * sizeof(*got));
    free(copy);
    solo_cache_delete(a);
    solo_cache_delete(b);
}

static void shared_np_is_below_one_for_a_memory_pair(void **state)
{
    (void)state;
    struct gpu_config cfg;
    hbm80(&cfg);
    char err[256];
    const struct kernel_profile *ps[2] = {kernel_builtin_find("stream"),
                                          kernel_builtin_find("random")};
    struct gpu *g = gpu_new(&cfg, ps, 2, 1, err, sizeof err);
    gpu_set_dram_checking(g, true);
    int own[80];
    gpu_partition_even(80, 2, own);
    gpu_set_partition(g, own, 80, GPU_SWITCH_DRAIN, err, sizeof err);
    gpu_run(g, 10000);
    uint64_t a = gpu_kernel_instructions_total(g, 0);
    gpu_run(g, 20000);
    uint64_t b = gpu_kernel_instructions_total(g, 0);
    struct solo_cache *c = solo_cache_new();
    struct solo_trace *t = solo_cache_get(c, &cfg, ps[0], 0, 1, err, sizeof err);
    double np = solo_true_np(t, a, b, 20000);
    printf("  stream next to random on 40 SMs: NP %.3f\n", np);
    assert_true(np > 0.05 && np < 0.9);
    solo_cache_delete(c);
    gpu_delete(g);
}

static void characterize_reports_rates(void **state)
{
    (void)state;
    struct gpu_config cfg;
    hbm80(&cfg);
    char err[256];
    struct solo_result r;
    assert_int_equal(solo_characterize(&cfg, kernel_builtin_find("random"), 20, 20000, 1, NULL,
                                       NULL, &r, err, sizeof err),
                     0);
    assert_int_equal(r.sms, 20);
    assert_int_equal(r.warmup_cycles, 2000);
    assert_true(r.ipc > 0 && r.bandwidth_gbs > 100);
    assert_true(r.bandwidth_pct > 10 && r.bandwidth_pct < 100);
    assert_true(r.rbh < 0.05);
    assert_true(r.l1d_miss_rate > 0.99 && r.l2_miss_rate > 0.9);
    assert_true(r.mpki > 150 && r.mpki <= 1000);
    assert_int_equal(solo_characterize(&cfg, kernel_builtin_find("random"), 20, 0, 1, NULL, NULL,
                                       &r, err, sizeof err),
                     -1);
    struct kernel_profile p = *kernel_builtin_find("random");
    p.lines_per_access = 0.5;
    assert_int_equal(solo_characterize(&cfg, &p, 20, 1000, 1, NULL, NULL, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "lines_per_access"));
}

struct told {
    double last;
    unsigned calls;
    bool ordered;
};

static void tell(void *ctx, double done)
{
    struct told *t = ctx;
    t->ordered = t->ordered && done > t->last && done <= 1;
    t->last = done;
    t->calls++;
}

/* Progress is told in steps that rise to 1, and a run in those steps measures what one run
 * measures: every field of the result is the same. */
static void characterize_tells_progress(void **state)
{
    (void)state;
    struct gpu_config cfg;
    hbm80(&cfg);
    char err[256];
    const struct kernel_profile *p = kernel_builtin_find("stream");
    struct solo_result whole, steps;
    struct told t = {.ordered = true};
    assert_int_equal(solo_characterize(&cfg, p, 8, 30000, 3, NULL, NULL, &whole, err, sizeof err),
                     0);
    assert_int_equal(solo_characterize(&cfg, p, 8, 30000, 3, tell, &t, &steps, err, sizeof err), 0);
    assert_true(t.ordered);
    assert_true(t.calls >= 40);
    assert_true(t.last == 1.0);
    assert_memory_equal(&whole, &steps, sizeof whole);
}

/* A trace on 8 of hbm80's 80 SMs runs the kernel on those 8 alone: the compute kernel, which
 * keeps every scheduler issuing, adds at most 8 SMs x 2 schedulers instructions a cycle, and
 * nearly that. The oracle interpolates between samples (halfway between two samples' counts is
 * halfway between their cycles), and no instructions take no time. `solo` on one SM reports one
 * SM. A cache keeps more traces than it first has room for, each found again. */
static void fewer_sms_and_between_samples(void **state)
{
    (void)state;
    struct gpu_config cfg;
    hbm80(&cfg);
    struct solo_cache *c = solo_cache_new();
    char err[256];
    const struct kernel_profile *p = kernel_builtin_find("compute");
    struct solo_trace *t = solo_cache_get(c, &cfg, p, 8, 1, err, sizeof err);
    assert_non_null(t);
    solo_trace_extend(t, 10 * SOLO_SAMPLE_CYCLES);
    const uint64_t *insts;
    assert_int_equal(solo_trace_samples(t, &insts), 11);
    double limit = 8.0 * cfg.schedulers_per_sm * 5 * SOLO_SAMPLE_CYCLES;
    double got = (double)(insts[10] - insts[5]);
    printf("  compute on 8 SMs, samples 5-10: %.0f instructions, issue limit %.0f\n", got, limit);
    assert_true(got <= limit && got > 0.9 * limit);

    uint64_t a = insts[4], b = insts[5], mid = a + (b - a) / 2;
    double want = (4 + (double)(mid - a) / (double)(b - a)) * SOLO_SAMPLE_CYCLES;
    assert_true(fabs(solo_trace_cycles_at(t, mid) - want) < 1e-6);
    assert_true(solo_trace_cycles_at(t, 0) == 0);

    struct solo_result r;
    assert_int_equal(solo_characterize(&cfg, p, 1, 2000, 1, NULL, NULL, &r, err, sizeof err), 0);
    assert_int_equal(r.sms, 1);
    assert_true(r.ipc > 0 && r.ipc <= cfg.schedulers_per_sm);

    struct solo_trace *seeds[20];
    for (unsigned i = 0; i < 20; i++)
        seeds[i] = solo_cache_get(c, &cfg, p, 8, 100 + i, err, sizeof err);
    assert_int_equal(solo_cache_count(c), 21);
    for (unsigned i = 0; i < 20; i++) {
        assert_ptr_equal(solo_cache_get(c, &cfg, p, 8, 100 + i, err, sizeof err), seeds[i]);
        assert_int_equal(solo_trace_key(seeds[i])->seed, 100 + i);
    }
    solo_cache_delete(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trace_is_cached_and_monotonic),
        cmocka_unit_test(private_interval_has_np_one),
        cmocka_unit_test(np_from_the_start_and_of_nothing),
        cmocka_unit_test(profile_hash_sees_every_phase_setting),
        cmocka_unit_test(trace_extends_on_demand_and_round_trips),
        cmocka_unit_test(loaded_trace_catches_up_in_slices),
        cmocka_unit_test(shared_np_is_below_one_for_a_memory_pair),
        cmocka_unit_test(characterize_reports_rates),
        cmocka_unit_test(characterize_tells_progress),
        cmocka_unit_test(fewer_sms_and_between_samples),
    };
    return cmocka_run_group_tests_name("solo", tests, NULL, NULL);
}
