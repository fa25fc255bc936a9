/* Unit tests: the shared-dispatch mode of the GPU (gpu_new_shared) — grids launched on
 * streams place their TBs first come, first served; a younger grid's TBs go beside an older
 * one's wherever the SM's resources leave room (and wait where they do not), each kernel up to
 * its occupancy; room that frees goes to the next grid in line in the cycle it frees; each
 * warp's instructions count for its own kernel. */
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

/* A fills every SM's 64 warp slots (4 TBs of 16 warps each); B, launched next, gets room in
 * the very cycle one of A's TBs finishes, and no SM is ever idle while B has TBs to hand out. */
static void test_second_kernel_starts_when_a_slot_frees(void **state)
{
    (void)state;
    struct gpu *g = make_gpu(2, 1);
    struct kernel_profile a = wide_kernel("a", 4 * SMS, 0, 600, 16);
    a.regs_per_thread = 16; /* so that the warp slots bound its occupancy */
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
        unsigned nb = 0;
        for (unsigned i = 0; i < SMS; i++)
            nb += gpu_sm_kernel_tbs(g, i, 1);
        sms_of(g, 1, &idle);
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

/* TBs of grid s resident over all SMs. */
static unsigned resident_of(const struct gpu *g, unsigned s)
{
    unsigned n = 0;
    for (unsigned i = 0; i < SMS; i++)
        n += gpu_sm_kernel_tbs(g, i, s);
    return n;
}

/* Three grids launched in the order A, B, C, each at most one TB per SM, so every SM has
 * room for all three: still B places no TB while A has TBs left, nor C while B has; once A
 * has handed out its last, B's TBs go beside A's at once, and C's beside both. */
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
    assert_int_equal(resident_of(g, 0), SMS);
    assert_int_equal(resident_of(g, 1) + resident_of(g, 2), 0);
    bool c_ran = false, beside = false;
    while (gpu_stream_busy(g, 2)) {
        gpu_run_shared(g, 1);
        unsigned na = resident_of(g, 0), nb = resident_of(g, 1), nc = resident_of(g, 2);
        if (nc) {
            c_ran = true;
            assert_int_equal(nb + finished(g, 1), b.tbs); /* B had handed out every TB */
            assert_int_equal(finished(g, 0) + na, a.tbs);
        }
        if (nb)
            assert_int_equal(finished(g, 0) + na, a.tbs);
        if (nb && finished(g, 1) == 0 && na)
            beside |= sms_shared_by(g, 0, 1) > 0 && nb == b.tbs;
        assert_true(gpu_now(g) < 2000000);
    }
    assert_true(c_ran);
    assert_true(beside); /* B's TBs all placed at once, some beside A's */
    assert_true(started(g, 0) < started(g, 1));
    assert_true(started(g, 1) <= started(g, 2));
    gpu_delete(g);
}

/* A's TBs leave room on every SM (2 TBs of 4 warps: 8 of 64 warp slots, a quarter of the
 * registers): B, launched next, starts at its launch and its TBs sit beside A's on every SM;
 * the SMs' time keeps counting for A, and B completes while A's first TBs still run. */
static void test_second_grid_shares_sms_with_room(void **state)
{
    (void)state;
    struct gpu *g = make_gpu(2, 4);
    struct kernel_profile a = short_kernel("a", 2 * SMS, 2, 20000);
    struct kernel_profile b = short_kernel("b", 2 * SMS, 2, 300);
    launch(g, 0, &a);
    gpu_run_shared(g, 100);
    uint64_t at = gpu_now(g);
    launch(g, 1, &b);
    assert_int_equal(started(g, 1), at);
    for (unsigned i = 0; i < SMS; i++) {
        assert_int_equal(gpu_sm_kernel_tbs(g, i, 0), 2);
        assert_int_equal(gpu_sm_kernel_tbs(g, i, 1), 2);
        assert_int_equal(gpu_sm_resident_tbs(g, i), 4);
        assert_int_equal(gpu_sm_running(g, i), 0);
    }
    while (gpu_stream_busy(g, 1))
        assert_true(gpu_run_shared(g, 100000) < 100000);
    assert_int_equal(finished(g, 1), b.tbs);
    assert_int_equal(finished(g, 0), 0);
    uint64_t l, st, d;
    gpu_stream_times(g, 1, &l, &st, &d);
    assert_int_equal(l, at);
    assert_true(d > at && d < at + 20000);
    gpu_delete(g);
}

/* Room is counted over all the TBs an SM holds: A's two TBs per SM take all 65536 registers
 * (4 warps x 32 threads x 255 registers, rounded to 256 per warp: 32768 each) though they use
 * 8 of the 64 warp slots, so B waits until one of them ends, and then goes on that SM. */
/* The same with shared memory: A's TBs take 40 KB each of an SMX's 48 KB, so one per SM, and
 * B's need 16 KB: no SM has room for one until an A TB finishes. TBs that fill it exactly fit. */
static void test_second_grid_waits_when_shared_memory_full(void **state)
{
    (void)state;
    struct gpu *g = make_gpu(2, 5);
    struct kernel_profile a = short_kernel("a", SMS, 0, 800);
    a.smem_per_tb_bytes = 40 << 10;
    struct kernel_profile b = short_kernel("b", SMS, 1, 300);
    b.smem_per_tb_bytes = 16 << 10;
    launch(g, 0, &a);
    launch(g, 1, &b);
    assert_int_equal(resident_of(g, 0), SMS);
    assert_int_equal(started(g, 1), UINT64_MAX);
    assert_int_equal(resident_of(g, 1), 0);
    gpu_delete(g);

    /* Exactly full: TBs of 24 KB, two to an SM's 48 KB. */
    g = make_gpu(1, 5);
    a = short_kernel("a", 3 * SMS, 0, 800);
    a.smem_per_tb_bytes = 24 << 10;
    launch(g, 0, &a);
    for (unsigned i = 0; i < SMS; i++)
        assert_int_equal(gpu_sm_kernel_tbs(g, i, 0), 2);
    gpu_delete(g);
}

/* A younger grid takes idle SMs before room beside an older grid: A's 3 TBs on SMs 0-2, then
 * B's 5 TBs, which would fit beside them, all go to idle SMs. */
static void test_idle_sms_first(void **state)
{
    (void)state;
    struct gpu *g = make_gpu(2, 6);
    struct kernel_profile a = short_kernel("a", 3, 4, 5000), b = short_kernel("b", 5, 4, 5000);
    launch(g, 0, &a);
    launch(g, 1, &b);
    unsigned idle;
    assert_int_equal(sms_of(g, 0, &idle), 3);
    assert_int_equal(sms_of(g, 1, &idle), 5);
    assert_int_equal(idle, SMS - 8);
    assert_int_equal(sms_shared_by(g, 0, 1), 0);
    gpu_delete(g);
}

static void test_second_grid_waits_when_registers_full(void **state)
{
    (void)state;
    struct gpu *g = make_gpu(2, 5);
    struct kernel_profile a = short_kernel("a", 2 * SMS, 0, 800);
    a.regs_per_thread = 255;
    struct kernel_profile b = short_kernel("b", SMS, 1, 300);
    launch(g, 0, &a);
    launch(g, 1, &b);
    assert_int_equal(resident_of(g, 0), 2 * SMS);
    assert_int_equal(started(g, 1), UINT64_MAX);
    while (finished(g, 0) == 0) {
        uint64_t before = gpu_now(g);
        gpu_run_shared(g, 1);
        if (finished(g, 0)) {
            assert_int_equal(started(g, 1), before);
            assert_int_equal(resident_of(g, 1), finished(g, 0));
        } else {
            assert_int_equal(started(g, 1), UINT64_MAX);
        }
        assert_true(gpu_now(g) < 1000000);
    }
    gpu_delete(g);
}

/* Two kernels of different dependency latencies, warps per TB and barriers share the SMs;
 * each one's instruction count is what its warps ran: TBs x warps x instructions per warp. */
static void test_per_kernel_counters(void **state)
{
    (void)state;
    struct gpu *g = make_gpu(2, 6);
    struct kernel_profile a = wide_kernel("a", 3 * SMS, 3, 3000, 6);
    a.dep_latency = 11;
    a.barrier_interval = 50;
    struct kernel_profile b = *kernel_builtin_find("stream");
    b.name = (char *)"b";
    b.tbs = 4 * SMS;
    b.tbs_per_sm = 2;
    b.warps_per_tb = 5;
    b.insts_per_warp = 700;
    b.dep_latency = 4;
    launch(g, 0, &a);
    launch(g, 1, &b);
    unsigned shared_sms = sms_shared_by(g, 0, 1);
    assert_int_equal(shared_sms, SMS);
    while (gpu_stream_busy(g, 0) || gpu_stream_busy(g, 1))
        assert_true(gpu_run_shared(g, 1000000) < 1000000);
    assert_int_equal(gpu_kernel_instructions_total(g, 0),
                     (uint64_t)a.tbs * a.warps_per_tb * a.insts_per_warp);
    assert_int_equal(gpu_kernel_instructions_total(g, 1),
                     (uint64_t)b.tbs * b.warps_per_tb * b.insts_per_warp);
    struct gpu_kernel_counters ca, cb;
    gpu_kernel_counters(g, 0, &ca);
    gpu_kernel_counters(g, 1, &cb);
    assert_true(cb.l1d_accesses > 0);
    assert_int_equal(cb.barriers, 0);
    assert_true(ca.barriers > 0);
    gpu_delete(g);
}

/* A grid launched with a longer reuse window than the SMs were built for (a shared GPU is built
 * with none) grows every SM's history, the first's too: a grid of one cachefit TB, on SM 0,
 * reuses 80 % of its lines from the last 1 MB, which k40's 1.5 MB LLC holds, so most of
 * its LLC accesses hit; an SM left without a history would reuse nothing and walk the
 * 2 MB footprint, missing the LLC almost always. */
static void test_launch_grows_every_history(void **state)
{
    (void)state;
    struct gpu *g = make_gpu(1, 4);
    struct kernel_profile c = *kernel_builtin_find("cachefit");
    c.tbs = 1;
    launch(g, 0, &c);
    assert_int_equal(gpu_sm_kernel_tbs(g, 0, 0), 1);
    while (gpu_stream_busy(g, 0))
        assert_true(gpu_run_shared(g, 1000000) < 1000000);
    struct gpu_kernel_counters k;
    gpu_kernel_counters(g, 0, &k);
    assert_true(k.l2_accesses > 1000);
    if (k.l2_misses * 2 > k.l2_accesses)
        fail_msg("%llu of %llu LLC accesses missed: the SM reused no lines",
                 (unsigned long long)k.l2_misses, (unsigned long long)k.l2_accesses);
    gpu_delete(g);
}

/* Cycles until grid a completes on stream 0, alone or beside grid b on stream 1. */
static uint64_t time_beside(const struct kernel_profile *a, const struct kernel_profile *b)
{
    struct gpu *g = make_gpu(2, 8);
    launch(g, 0, a);
    if (b)
        launch(g, 1, b);
    while (gpu_stream_busy(g, 0))
        assert_true(gpu_run_shared(g, 1000000) < 1000000);
    uint64_t l, st, d;
    gpu_stream_times(g, 0, &l, &st, &d);
    gpu_delete(g);
    return d - l;
}

/* A warp whose load finds the L1's misses or the crossbar queue full gives its scheduler's
 * cycle to another warp: a compute grid beside a grid whose every instruction is a load
 * that misses (16 warps of 8 loads in flight each, against 32 MSHRs per SM) keeps issuing.
 * The compute grid's 4 warps per SM, one per scheduler, with 6 cycles between dependent
 * instructions, leave the schedulers idle 5 cycles of 6, so the loads cost it little. */
static void test_refused_load_yields_the_scheduler(void **state)
{
    (void)state;
    struct kernel_profile a = short_kernel("a", SMS, 1, 3000);
    a.mem_fraction = 0.0;
    a.const_fraction = 0.0;
    struct kernel_profile b = *kernel_builtin_find("random");
    b.name = (char *)"b";
    b.tbs = 4 * SMS;
    b.tbs_per_sm = 1;
    b.warps_per_tb = 16;
    b.insts_per_warp = 1000000;
    b.mem_fraction = 1.0;
    b.store_fraction = 0.0;
    b.mlp = 8;
    uint64_t alone = time_beside(&a, NULL), beside = time_beside(&a, &b);
    if (beside > alone + alone / 10) /* 17,994 and 18,042 cycles when written */
        fail_msg("the compute grid took %llu cycles beside the loads, %llu alone",
                 (unsigned long long)beside, (unsigned long long)alone);
}

/* More L1 hits in flight than an SM's queue of them was made for (256): 16 warps, each with 8
 * loads of 8 lines out, every line the same one, so every access after the first few hits
 * and comes back 35 cycles later (k40): the queue grows (twice), and every warp gets every
 * line it waits for, so the grid completes with all its instructions. */
static void test_l1_hits_beyond_the_queue(void **state)
{
    (void)state;
    struct gpu *g = make_gpu(1, 9);
    struct kernel_profile p = *kernel_builtin_find("stream");
    p.tbs = SMS;
    p.tbs_per_sm = 1;
    p.warps_per_tb = 16;
    p.insts_per_warp = 3000;
    p.mem_fraction = 1.0;
    p.store_fraction = 0.0;
    p.lines_per_access = 8.0;
    p.footprint_bytes = 128;
    p.seq_run_lines = 1;
    p.mlp = 8;
    launch(g, 0, &p);
    while (gpu_stream_busy(g, 0))
        assert_true(gpu_run_shared(g, 1000000) < 1000000);
    struct gpu_kernel_counters c;
    gpu_kernel_counters(g, 0, &c);
    assert_int_equal(gpu_kernel_instructions_total(g, 0), (uint64_t)SMS * 16 * 3000);
    assert_int_equal(c.l1d_accesses, (uint64_t)SMS * 16 * 3000 * 8);
    assert_true(c.l1d_misses < c.l1d_accesses / 100);
    gpu_delete(g);
}

/* A grid fills each SM it takes up to its occupancy and takes no more SMs than its TBs fill;
 * a grid launched beside it takes the SMs left idle at once and room beside the first. */
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
    for (unsigned i = 0; i < SMS; i++) {
        assert_int_equal(gpu_sm_kernel_tbs(g, i, 1), 4);
        assert_int_equal(gpu_sm_kernel_tbs(g, i, 0), gpu_sm_running(g, i) == 0 ? 1 : 0);
    }
    /* At most 4 resident TBs of a kernel: run a while and check the bound holds throughout. */
    for (unsigned step = 0; step < 400; step++) {
        gpu_run_shared(g, 25);
        for (unsigned i = 0; i < SMS; i++)
            assert_true(gpu_sm_kernel_tbs(g, i, 1) <= 4 && gpu_sm_kernel_tbs(g, i, 0) <= 4);
    }
    gpu_delete(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_second_kernel_starts_when_a_slot_frees),
        cmocka_unit_test(test_fcfs_order),
        cmocka_unit_test(test_occupancy_and_spare_sms),
        cmocka_unit_test(test_launch_grows_every_history),
        cmocka_unit_test(test_refused_load_yields_the_scheduler),
        cmocka_unit_test(test_l1_hits_beyond_the_queue),
        cmocka_unit_test(test_second_grid_shares_sms_with_room),
        cmocka_unit_test(test_second_grid_waits_when_registers_full),
        cmocka_unit_test(test_second_grid_waits_when_shared_memory_full),
        cmocka_unit_test(test_idle_sms_first),
        cmocka_unit_test(test_per_kernel_counters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
