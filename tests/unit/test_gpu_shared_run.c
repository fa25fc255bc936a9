/* Unit tests: the shared-dispatch GPU's loop — a run stops in the block a grid completes and
 * the stream launches again, the refusals, the same seed giving the same times; the idle jump
 * and the compute fast-forward against every cycle stepped, on by default, and never for two
 * kernels' warps in one SM's rotation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "corun/gpu.h"
#include "corun/kernel.h"
#include "corun/solo.h"
#include "gpu_shared_fixtures.h"
#include "testutil.h"

/* gpu_run_shared stops in the block a grid completes; the stream can launch again then; the
 * refusals; the same seed gives the same times. */
static void run_pair(uint64_t seed, uint64_t *done0, uint64_t *done1)
{
    struct gpu *g = make_gpu(2, seed);
    struct kernel_profile a = short_kernel("a", 40, 2, 500);
    struct kernel_profile b = short_kernel("b", 20, 2, 700);
    launch(g, 0, &a);
    launch(g, 1, &b);
    char err[256];
    assert_int_equal(gpu_launch(g, 0, &a, err, sizeof err), -1);
    assert_non_null(strstr(err, "still runs"));
    int own[SMS] = {0};
    assert_int_equal(gpu_set_partition(g, own, SMS, GPU_SWITCH_DRAIN, err, sizeof err), -1);
    assert_int_equal(gpu_add_kernel(g, &a, err, sizeof err), -1);
    uint64_t cap = 1000000;
    while (gpu_stream_busy(g, 0)) {
        uint64_t before = gpu_now(g);
        uint64_t ran = gpu_run_shared(g, cap);
        assert_true(ran < cap);
        assert_int_equal(gpu_now(g), before + ran);
    }
    uint64_t l, s, d;
    gpu_stream_times(g, 0, &l, &s, &d);
    assert_int_equal(l, 0);
    assert_int_equal(s, 0);
    assert_true(d <= gpu_now(g) && gpu_now(g) - d <= 8); /* stopped within its block */
    *done0 = d;
    launch(g, 0, &b); /* again on the same stream */
    gpu_stream_times(g, 0, &l, &s, &d);
    assert_int_equal(l, gpu_now(g));
    assert_int_equal(d, UINT64_MAX);
    while (gpu_stream_busy(g, 0) || gpu_stream_busy(g, 1))
        gpu_run_shared(g, cap);
    gpu_stream_times(g, 1, &l, &s, &d);
    *done1 = d;
    gpu_delete(g);
}

static void test_run_stops_and_relaunch(void **state)
{
    (void)state;
    uint64_t a0, a1, b0, b1;
    run_pair(7, &a0, &a1);
    run_pair(7, &b0, &b1);
    assert_int_equal(a0, b0);
    assert_int_equal(a1, b1);
}

static void test_refusals(void **state)
{
    (void)state;
    struct gpu_config cfg;
    test_preset("k40", &cfg);
    char err[256];
    assert_null(gpu_new_shared(&cfg, GPU_MAX_STREAMS + 1, 1, err, sizeof err));
    assert_non_null(strstr(err, "streams"));
    struct gpu *g = make_gpu(GPU_MAX_STREAMS, 1);
    struct kernel_profile a = short_kernel("a", 2, 1, 100);
    for (unsigned s = 0; s < GPU_MAX_STREAMS; s++)
        launch(g, s, &a);
    assert_int_equal(gpu_launch(g, GPU_MAX_STREAMS, &a, err, sizeof err), -1);
    for (unsigned s = 0; s < GPU_MAX_STREAMS; s++)
        while (gpu_stream_busy(g, s))
            assert_true(gpu_run_shared(g, 100000) < 100000);
    for (unsigned s = 0; s < GPU_MAX_STREAMS; s++)
        assert_int_equal(finished(g, s), 2);
    struct gpu_config c2 = cfg;
    struct gpu *sp =
        gpu_new(&c2, (const struct kernel_profile *const[]){&a}, 1, 1, err, sizeof err);
    assert_non_null(sp);
    assert_int_equal(gpu_launch(sp, 0, &a, err, sizeof err), -1);
    gpu_delete(sp);
    gpu_delete(g);
}

/* The loop jumps over the cycles of an idle GPU (between grids, a launch gap, a copy's worth of
 * nothing) and of a quiet memory system; run with that off, every cycle stepped, the same
 * grids must start and end in the same cycles with the same counters, DRAM refreshes and
 * clock included. */
struct idle_trace {
    uint64_t times[6][3], now, dram_cycles;
    struct gpu_kernel_counters k[2];
    struct gpu_system_counters sys;
    struct gpu_channel_counters ch[4];
};

static void run_idle_case(bool skip, bool checking, struct idle_trace *out, uint64_t *skipped)
{
    memset(out, 0, sizeof(*out));
    struct gpu *g = make_gpu(2, 9);
    gpu_set_fast_forward(g, skip);
    gpu_set_dram_checking(g, checking); /* the checker sees every refresh: none is computed */
    struct kernel_profile mem = *kernel_builtin_find("stream");
    mem.name = (char *)"mem";
    mem.tbs = 2 * SMS;
    mem.insts_per_warp = 300;
    struct kernel_profile late = short_kernel("late", SMS, 2, 400);
    late.gap_cycles = 23456; /* the host is late: the grid waits on an idle GPU */
    late.mem_fraction = 0.01;
    const uint64_t idle[6] = {1, 7, 999, 54321, 300007, 8};
    for (unsigned i = 0; i < 6; i++) {
        unsigned s = i % 2;
        launch(g, s, s ? &late : &mem);
        while (gpu_stream_busy(g, s))
            gpu_run_shared(g, 777 + 100 * i);
        gpu_stream_times(g, s, &out->times[i][0], &out->times[i][1], &out->times[i][2]);
        for (uint64_t left = idle[i]; left;) { /* idle, in uneven steps */
            uint64_t step = left < 40000 ? left : 40000 - 1000 * i;
            gpu_run_shared(g, step);
            left -= step;
        }
    }
    out->now = gpu_now(g);
    for (unsigned k = 0; k < 2; k++)
        gpu_kernel_counters(g, k, &out->k[k]);
    gpu_system_counters(g, &out->sys);
    for (unsigned c = 0; c < 4; c++)
        gpu_channel_counters(g, c, &out->ch[c]);
    *skipped = gpu_skipped_cycles(g);
    gpu_delete(g);
}

static void test_idle_skip_equals_per_cycle(void **state)
{
    (void)state;
    struct idle_trace on, off, unchecked;
    uint64_t skipped_on, skipped_off, skipped_unchecked;
    run_idle_case(true, true, &on, &skipped_on);
    run_idle_case(false, true, &off, &skipped_off);
    run_idle_case(true, false, &unchecked, &skipped_unchecked);
    assert_int_equal(skipped_off, 0);
    assert_true(skipped_on > 300000); /* the long idle stretch at least was jumped over */
    assert_true(skipped_unchecked >= skipped_on);
    assert_memory_equal(&unchecked, &on, sizeof(on));
    assert_true(on.ch[0].c.refreshes > 10);
    assert_true(on.times[1][2] > on.times[1][0] + 23456); /* its warps waited for the host */
    assert_int_equal(on.now, off.now);
    for (unsigned i = 0; i < 6; i++)
        for (unsigned j = 0; j < 3; j++)
            assert_int_equal(on.times[i][j], off.times[i][j]);
    assert_memory_equal(on.k, off.k, sizeof(on.k));
    assert_memory_equal(&on.sys, &off.sys, sizeof(on.sys));
    assert_memory_equal(on.ch, off.ch, sizeof(on.ch));
}

/* Two compute grids side by side on every SM, 12 warps each, 6 cycles between dependent
 * instructions on k40's 4 schedulers: the SMs' warps fill a compute rotation, which the fast
 * forward must leave to the per-cycle model (it counts a rotation's instructions for the SM's
 * one kernel): the grids' times and counters are those of the run stepped cycle by cycle. */
static void run_two_compute(bool ff, uint64_t times[2][3], struct gpu_kernel_counters k[2])
{
    struct gpu *g = make_gpu(2, 5);
    gpu_set_fast_forward(g, ff);
    struct kernel_profile a = short_kernel("a", 3 * SMS, 3, 5000);
    a.mem_fraction = 0.0;
    a.const_fraction = 0.0;
    struct kernel_profile b = a;
    b.name = (char *)"b";
    b.insts_per_warp = 7000;
    launch(g, 0, &a);
    launch(g, 1, &b);
    assert_int_equal(sms_shared_by(g, 0, 1), SMS);
    while (gpu_stream_busy(g, 0) || gpu_stream_busy(g, 1))
        assert_true(gpu_run_shared(g, 1000000) < 1000000);
    for (unsigned s = 0; s < 2; s++) {
        gpu_stream_times(g, s, &times[s][0], &times[s][1], &times[s][2]);
        gpu_kernel_counters(g, s, &k[s]);
    }
    gpu_delete(g);
}

static void test_two_kernels_no_rotation_shortcut(void **state)
{
    (void)state;
    uint64_t t_on[2][3], t_off[2][3];
    struct gpu_kernel_counters k_on[2], k_off[2];
    run_two_compute(true, t_on, k_on);
    run_two_compute(false, t_off, k_off);
    assert_int_equal(k_on[0].instructions_total, 3ull * SMS * 4 * 5000);
    assert_int_equal(k_on[1].instructions_total, 3ull * SMS * 4 * 7000);
    assert_memory_equal(t_on, t_off, sizeof(t_on));
    assert_memory_equal(k_on, k_off, sizeof(k_on));
}

/* gpu_set_default_fast_forward (`corun run --no-shortcuts`): the GPUs made after it start with
 * the shortcuts off (an idle stretch stepped, not jumped over), and the private-mode traces get
 * keys of their own, so that a check never reads a trace the shortcuts made. */
static void test_default_fast_forward(void **state)
{
    (void)state;
    struct gpu_config cfg;
    test_preset("k40", &cfg);
    uint64_t key_on = solo_config_hash(&cfg), skipped[2];
    for (int off = 0; off < 2; off++) {
        gpu_set_default_fast_forward(!off);
        assert_int_equal(gpu_default_fast_forward(), !off);
        struct gpu *g = make_gpu(1, 3);
        gpu_run_shared(g, 200000);
        skipped[off] = gpu_skipped_cycles(g);
        gpu_delete(g);
        if (off)
            assert_true(solo_config_hash(&cfg) != key_on);
    }
    gpu_set_default_fast_forward(true);
    assert_true(solo_config_hash(&cfg) == key_on);
    assert_true(skipped[0] > 100000);
    assert_int_equal(skipped[1], 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_stops_and_relaunch),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_idle_skip_equals_per_cycle),
        cmocka_unit_test(test_two_kernels_no_rotation_shortcut),
        cmocka_unit_test(test_default_fast_forward),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
