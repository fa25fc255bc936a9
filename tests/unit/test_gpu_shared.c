/* Unit tests: the shared-dispatch mode of the GPU (gpu_new_shared) — grids launched on
 * streams take idle SMs first come, first served, each SM one kernel's TBs at a time up to its
 * occupancy, and a freed SM goes to the next grid in line in the cycle it frees. */
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
#include "testutil.h"

#define SMS 15 /* k40 */

static struct gpu *make_gpu(unsigned streams, uint64_t seed)
{
    struct gpu_config cfg;
    test_preset("k40", &cfg);
    assert_int_equal(cfg.sms, SMS);
    char err[256];
    struct gpu *g = gpu_new_shared(&cfg, streams, seed, err, sizeof err);
    if (!g)
        fail_msg("gpu_new_shared: %s", err);
    gpu_set_dram_checking(g, true);
    return g;
}

/* A short compute kernel of tbs TBs, at most per_sm of them on an SM at once. */
static struct kernel_profile short_kernel(const char *name, unsigned tbs, unsigned per_sm,
                                          unsigned insts)
{
    struct kernel_profile p = *kernel_builtin_find("compute");
    p.name = (char *)name;
    p.tbs = tbs;
    p.tbs_per_sm = per_sm;
    p.insts_per_warp = insts;
    p.warps_per_tb = 4;
    return p;
}

static void launch(struct gpu *g, unsigned s, const struct kernel_profile *p)
{
    char err[256];
    if (gpu_launch(g, s, p, err, sizeof err))
        fail_msg("gpu_launch: %s", err);
}

/* SMs running stream s's TBs now; *idle (when not NULL) counts the idle ones. */
static unsigned sms_of(const struct gpu *g, int s, unsigned *idle)
{
    unsigned n = 0, free_sms = 0;
    for (unsigned i = 0; i < SMS; i++) {
        int r = gpu_sm_running(g, i);
        n += r == s;
        free_sms += r == GPU_SM_IDLE;
        if (r >= 0)
            assert_true(gpu_sm_resident_tbs(g, i) > 0); /* an SM with no TB is idle */
        else
            assert_int_equal(gpu_sm_resident_tbs(g, i), 0);
    }
    if (idle)
        *idle = free_sms;
    return n;
}

static uint64_t finished(const struct gpu *g, unsigned s)
{
    struct gpu_kernel_counters c;
    gpu_kernel_counters(g, s, &c);
    return c.tbs_finished;
}

static uint64_t started(const struct gpu *g, unsigned s)
{
    uint64_t l, st, d;
    gpu_stream_times(g, s, &l, &st, &d);
    return st;
}

/* A fills every SM with one TB each; B, launched next, gets an SM in the very cycle one of
 * A's TBs finishes, and no SM is ever idle while B has TBs to hand out. */
static void test_second_kernel_starts_when_a_slot_frees(void **state)
{
    (void)state;
    struct gpu *g = make_gpu(2, 1);
    struct kernel_profile a = short_kernel("a", SMS, 1, 600);
    struct kernel_profile b = short_kernel("b", 2 * SMS, 1, 600);
    launch(g, 0, &a);
    launch(g, 1, &b);
    unsigned idle;
    assert_int_equal(sms_of(g, 0, &idle), SMS);
    assert_int_equal(idle, 0);
    assert_int_equal(started(g, 1), UINT64_MAX); /* no SM for it yet */
    uint64_t first_free = UINT64_MAX;
    while (gpu_stream_busy(g, 0) || gpu_stream_busy(g, 1)) {
        uint64_t before = gpu_now(g);
        gpu_run_shared(g, 1);
        if (first_free == UINT64_MAX && finished(g, 0) > 0) {
            first_free = before;
            assert_int_equal(started(g, 1), first_free);
        }
        unsigned nb = sms_of(g, 1, &idle);
        /* B's TBs handed out: those running (one per SM) and those done. */
        if (nb + finished(g, 1) < b.tbs)
            assert_int_equal(idle, 0);
        assert_true(gpu_now(g) < 1000000);
    }
    assert_int_equal(finished(g, 0), a.tbs);
    assert_int_equal(finished(g, 1), b.tbs);
    assert_int_equal(sms_of(g, 0, &idle), 0);
    assert_int_equal(idle, SMS); /* every SM idle once both are done */
    gpu_delete(g);
}

/* Three grids launched in the order A, B, C: C takes no SM while B has TBs left. */
static void test_fcfs_order(void **state)
{
    (void)state;
    struct gpu *g = make_gpu(3, 2);
    struct kernel_profile a = short_kernel("a", 3 * SMS, 1, 400);
    struct kernel_profile b = short_kernel("b", SMS, 1, 400);
    struct kernel_profile c = short_kernel("c", SMS, 1, 400);
    launch(g, 0, &a);
    launch(g, 1, &b);
    launch(g, 2, &c);
    bool c_ran = false;
    while (gpu_stream_busy(g, 2)) {
        gpu_run_shared(g, 1);
        unsigned nb = sms_of(g, 1, NULL), nc = sms_of(g, 2, NULL);
        if (nc) {
            c_ran = true;
            assert_int_equal(nb + finished(g, 1), b.tbs); /* B had handed out every TB */
            assert_int_equal(finished(g, 0) + sms_of(g, 0, NULL), a.tbs);
        }
        if (nb)
            assert_int_equal(finished(g, 0) + sms_of(g, 0, NULL), a.tbs);
        assert_true(gpu_now(g) < 2000000);
    }
    assert_true(c_ran);
    assert_true(started(g, 0) < started(g, 1));
    assert_true(started(g, 1) < started(g, 2));
    gpu_delete(g);
}

/* A grid fills each SM it takes up to its occupancy and takes no more SMs than its TBs fill;
 * a grid launched beside it takes SMs left idle at once. */
static void test_occupancy_and_spare_sms(void **state)
{
    (void)state;
    struct gpu *g = make_gpu(3, 3);
    struct kernel_profile big = short_kernel("big", 10 * SMS, 4, 800);
    struct kernel_profile small = short_kernel("small", 3, 4, 800);
    launch(g, 0, &small);
    unsigned idle;
    assert_int_equal(sms_of(g, 0, &idle), 3); /* one TB per SM per round: 3 SMs */
    assert_int_equal(idle, SMS - 3);
    launch(g, 1, &big);
    assert_int_equal(sms_of(g, 1, &idle), SMS - 3);
    assert_int_equal(idle, 0);
    assert_int_equal(started(g, 1), gpu_now(g));
    for (unsigned i = 0; i < SMS; i++)
        if (gpu_sm_running(g, i) == 1)
            assert_int_equal(gpu_sm_resident_tbs(g, i), 4);
        else
            assert_int_equal(gpu_sm_resident_tbs(g, i), 1);
    /* Only 4 resident TBs: run a while and check the bound holds throughout. */
    for (unsigned step = 0; step < 400; step++) {
        gpu_run_shared(g, 25);
        for (unsigned i = 0; i < SMS; i++)
            assert_true(gpu_sm_resident_tbs(g, i) <= 4);
    }
    gpu_delete(g);
}

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
    while (gpu_run_shared(g, 100000) == 100000 || gpu_stream_busy(g, GPU_MAX_STREAMS - 1))
        assert_true(gpu_now(g) < 10000000);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_second_kernel_starts_when_a_slot_frees),
        cmocka_unit_test(test_fcfs_order),
        cmocka_unit_test(test_occupancy_and_spare_sms),
        cmocka_unit_test(test_run_stops_and_relaunch),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
