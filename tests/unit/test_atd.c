/* Unit tests: the LLC's sampled auxiliary tag directory (llc.h). A kernel's private tag copy
 * must agree with the shared LLC while the kernel runs alone, and must see fewer misses than
 * the shared LLC once a streaming co-runner evicts the kernel's lines. (The ATD is bookkeeping
 * only: that it changes no timing is what test_gpu's and test_solo's unchanged numbers show.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "corun/gpu.h"
#include "corun/kernel.h"
#include "testutil.h"

#define WARM_CYCLES 100000
#define RUN_CYCLES  200000

/* names[0..n) on hbm80, an even split, warmed up for `warm` cycles, then `cycles` counted.
 * Kernel 0's footprint becomes 8 MB: larger than the 6 MB LLC, so it both hits and misses
 * alone. */
static struct gpu *run(const char *const *names, unsigned n, uint64_t warm, uint64_t cycles)
{
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    struct kernel_profile p[GPU_MAX_KERNELS];
    const struct kernel_profile *ps[GPU_MAX_KERNELS];
    for (unsigned k = 0; k < n; k++) {
        const struct kernel_profile *b = kernel_builtin_find(names[k]);
        assert_non_null(b);
        p[k] = *b;
        ps[k] = &p[k];
    }
    p[0].footprint_bytes = 8u << 20;
    char err[256];
    struct gpu *g = gpu_new(&cfg, ps, n, 7, err, sizeof err);
    assert_non_null(g);
    int own[1024];
    gpu_partition_even(cfg.sms, n, own);
    assert_int_equal(gpu_set_partition(g, own, cfg.sms, GPU_SWITCH_DRAIN, err, sizeof err), 0);
    gpu_run(g, warm);
    gpu_reset_counters(g);
    gpu_run(g, cycles);
    return g;
}

/* Alone, the private copy is the shared cache's sampled sets: the same misses, one for one.
 * (A shorter run than the pair's below: alone on all 80 SMs the kernel issues twice as fast,
 * and 25 K cycles give about 14,000 sampled accesses, 18 % of them misses.) */
static void alone_copy_equals_shared(void **state)
{
    (void)state;
    const char *names[] = {"cachefit"};
    struct gpu *g = run(names, 1, WARM_CYCLES / 4, RUN_CYCLES / 8);
    struct gpu_kernel_counters c;
    gpu_kernel_counters(g, 0, &c);
    /* The sample is a few percent of the LLC's accesses, with hits and misses in it. */
    assert_true(c.atd_accesses > 1000);
    assert_true(c.atd_accesses < c.l2_accesses / 8);
    assert_true(c.atd_misses > 0);
    assert_true(c.atd_misses < c.atd_accesses);
    assert_int_equal(c.atd_misses, c.atd_shared_misses);
    gpu_delete(g);
}

/* A streaming co-runner evicts the cache-friendly kernel's lines in the shared LLC but not in
 * its private copy; the streamer, with no reuse, misses in both alike. */
static void thrashing_corunner_adds_shared_misses(void **state)
{
    (void)state;
    const char *names[] = {"cachefit", "stream"};
    struct gpu *g = run(names, 2, WARM_CYCLES, RUN_CYCLES);
    struct gpu_kernel_counters c, st;
    gpu_kernel_counters(g, 0, &c);
    gpu_kernel_counters(g, 1, &st);
    assert_true(c.atd_accesses > 1000);
    assert_true(c.atd_shared_misses > c.atd_misses);
    /* Twice as many of its sampled accesses miss shared as alone (measured: 4.1x). */
    assert_true(c.atd_shared_misses > 2 * c.atd_misses);
    /* The streamer hardly reuses a line (a store may find the line its load brought): it
     * misses alone about as often as shared, within 2 % of its accesses. */
    assert_true(st.atd_accesses > 1000);
    uint64_t gap = st.atd_shared_misses > st.atd_misses ? st.atd_shared_misses - st.atd_misses
                                                        : st.atd_misses - st.atd_shared_misses;
    assert_true(gap * 50 <= st.atd_accesses);
    gpu_delete(g);
}

/* Resetting the counters starts a new epoch for the ATD too. */
static void reset_clears_atd_counters(void **state)
{
    (void)state;
    const char *names[] = {"cachefit"};
    struct gpu *g = run(names, 1, 0, 20000); /* long enough for sampled accesses */
    struct gpu_kernel_counters before;
    gpu_kernel_counters(g, 0, &before);
    assert_true(before.atd_accesses > 0);
    gpu_reset_counters(g);
    struct gpu_kernel_counters c;
    gpu_kernel_counters(g, 0, &c);
    assert_int_equal(c.atd_accesses, 0);
    assert_int_equal(c.atd_misses, 0);
    assert_int_equal(c.atd_shared_misses, 0);
    gpu_delete(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(alone_copy_equals_shared),
        cmocka_unit_test(thrashing_corunner_adds_shared_misses),
        cmocka_unit_test(reset_clears_atd_counters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
