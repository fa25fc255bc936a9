/* Unit tests: the workload model — occupancy from resources, instruction classes through their
 * units, __syncthreads barriers, per-TB address patterns and the L1 at a relaunch. Expected
 * values are computed by hand from the preset's numbers (data/gpus/hbm80.cfg). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "assert_close.h"

#include "corun/gpu.h"
#include "corun/kernel.h"
#include "corun/kstate.h"
#include "corun/solo.h"
#include "testutil.h"

#define BASE_LINE ((1ull << KSTATE_ADDR_SHIFT) / 128) /* kernel 0's first line */

/* A compute-only profile: no memory, constant or other classes unless a test adds them. */
static struct kernel_profile plain(void)
{
    return (struct kernel_profile){
        .name = "plain",
        .tbs = 4096,
        .warps_per_tb = 8,
        .insts_per_warp = 2000,
        .mlp = 4,
        .lines_per_access = 1.0,
        .footprint_bytes = 1 << 20,
        .seq_run_lines = 1,
        .regs_per_thread = 32,
    };
}

static double ipc_per_sm(const struct kernel_profile *p, unsigned sms, struct gpu_config *cfg)
{
    struct solo_result r;
    char err[256];
    assert_int_equal(solo_characterize(cfg, p, sms, 20000, 1, NULL, NULL, &r, err, sizeof err), 0);
    return r.ipc / sms;
}

/* ---- occupancy ---- */

static void occupancy_from_resources(void **state)
{
    (void)state;
    const struct kstate_sm_limits sm = {32, 64, 65536, 98304};
    struct kernel_profile p = plain();
    const char *why;
    /* 8 warps per TB: 64 / 8 = 8 TBs; registers 65536 / (1024 x 8) = 8 do not bind first */
    assert_int_equal(kstate_occupancy(&p, &sm, &why), 8);
    assert_string_equal(why, "warp slots");
    p.regs_per_thread = 40; /* 1280 per warp: 65536 / 10240 = 6 */
    assert_int_equal(kstate_occupancy(&p, &sm, &why), 6);
    assert_string_equal(why, "registers");
    p.regs_per_thread = 33; /* 1056 rounds up to 1280 per warp: 6 as well */
    assert_int_equal(kstate_occupancy(&p, &sm, &why), 6);
    p.regs_per_thread = 32;
    p.smem_per_tb_bytes = 20000; /* 20224 with the 256 B unit: 98304 / 20224 = 4 */
    assert_int_equal(kstate_occupancy(&p, &sm, &why), 4);
    assert_string_equal(why, "shared memory");
    p.tbs_per_sm = 3;
    assert_int_equal(kstate_occupancy(&p, &sm, &why), 3);
    assert_string_equal(why, "the profile's tbs_per_sm");
    p = plain();
    p.warps_per_tb = 1; /* 64 one-warp TBs would fit but the SM has 32 TB slots */
    assert_int_equal(kstate_occupancy(&p, &sm, &why), 32);
    assert_string_equal(why, "thread-block slots");

    /* A TB that cannot fit is refused with the reason. */
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    p = plain();
    p.warps_per_tb = 32;
    p.regs_per_thread = 255;
    char err[256];
    assert_int_equal(gpu_profile_check(&cfg, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "registers"));
    p = plain();
    assert_int_equal(gpu_occupancy(&cfg, &p, NULL), 8);
}

/* ---- instruction classes ---- */

static void units_bound_throughput(void **state)
{
    (void)state;
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    struct kernel_profile p = plain();
    /* Only SFU instructions: 16 lanes, a warp instruction every 2 cycles per SM. */
    p.sfu_fraction = 1.0;
    assert_close(ipc_per_sm(&p, 4, &cfg), 16.0 / 32, 0.01);
    /* FP64: 32 lanes, one per cycle. */
    p.sfu_fraction = 0;
    p.fp64_fraction = 1.0;
    assert_close(ipc_per_sm(&p, 4, &cfg), 1.0, 0.01);
    /* Shared memory with two-way bank conflicts: 32 banks, two passes each. */
    p.fp64_fraction = 0;
    p.shared_fraction = 1.0;
    p.shared_conflict_ways = 2;
    assert_close(ipc_per_sm(&p, 4, &cfg), 0.5, 0.01);
    /* Half FP64, half ALU: the ALU instructions fill the cycles the FP64 unit leaves. */
    p = plain();
    p.fp64_fraction = 0.5;
    assert_true(ipc_per_sm(&p, 4, &cfg) > 1.5);
}

static void few_warps_wait_on_dependencies(void **state)
{
    (void)state;
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    struct kernel_profile p = plain();
    p.warps_per_tb = 1;
    p.tbs_per_sm = 2; /* two warps, one per scheduler: an ALU result every 6 cycles each */
    assert_close(ipc_per_sm(&p, 4, &cfg), 2.0 / cfg.alu_latency_cycles, 0.01);
    p.dep_latency = 3; /* the profile's own latency wins over the preset's */
    assert_close(ipc_per_sm(&p, 4, &cfg), 2.0 / 3, 0.01);
    p.tbs_per_sm = 0; /* full occupancy hides the latency: 2 per cycle */
    assert_close(ipc_per_sm(&p, 4, &cfg), 2.0, 0.01);
}

/* Warps waiting on unit results wake exactly at the unit's latency, whichever of the three
 * queues holds the earliest result. */
static void few_warps_wait_on_units(void **state)
{
    (void)state;
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    struct kernel_profile p = plain();
    p.warps_per_tb = 1;
    p.tbs_per_sm = 2; /* one warp per scheduler: a result every fp64 latency (8 cycles) each */
    p.fp64_fraction = 1.0;
    assert_close(ipc_per_sm(&p, 4, &cfg), 2.0 / cfg.fp64.latency_cycles, 0.01);
    /* Half SFU (20 cycles), half shared memory (24): both queues hold results at once, and a
     * warp waits 22 cycles on average. */
    p.fp64_fraction = 0;
    p.sfu_fraction = 0.5;
    p.shared_fraction = 0.5;
    double lat = (cfg.sfu.latency_cycles + cfg.shmem.latency_cycles) / 2.0;
    assert_close(ipc_per_sm(&p, 4, &cfg), 2.0 / lat, 0.005);
}

/* ---- barriers ---- */

static struct gpu *one_kernel(const struct kernel_profile *p, unsigned sms)
{
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    char err[256];
    const struct kernel_profile *ps[1] = {p};
    struct gpu *g = gpu_new(&cfg, ps, 1, 1, err, sizeof err);
    assert_non_null(g);
    int own[80];
    for (unsigned i = 0; i < 80; i++)
        own[i] = i < sms ? 0 : GPU_SM_GATED;
    assert_int_equal(gpu_set_partition(g, own, 80, GPU_SWITCH_DRAIN, err, sizeof err), 0);
    return g;
}

static struct kernel_profile loader(void)
{
    struct kernel_profile p = plain();
    p.insts_per_warp = 400;
    p.mem_fraction = 0.05;
    p.pattern = KERNEL_PATTERN_STREAM;
    p.footprint_bytes = 64 << 20;
    return p;
}

static void barriers_count_and_hold(void **state)
{
    (void)state;
    struct kernel_profile p = loader();
    p.tbs_per_sm = 1;        /* 8 warps: too few to hide the loads */
    p.barrier_interval = 40; /* 400 / 40 = 10 barriers per warp, the last its last instruction */
    struct gpu *g = one_kernel(&p, 4);
    gpu_run(g, 200000);
    struct gpu_kernel_counters c;
    gpu_kernel_counters(g, 0, &c);
    assert_true(c.tbs_finished > 10); /* nothing deadlocks */
    /* Every finished TB's warps passed all 10; TBs still running passed some. */
    assert_true(c.barriers >= c.tbs_finished * 8 * 10);
    assert_true(c.barriers <= (c.tbs_finished + 4 * c.occupancy_tbs) * 8 * 10);
    double with = c.ipc;
    gpu_delete(g);

    /* A warp waits at a barrier for its own loads and its TB's slowest warp, so the same
     * work issues more slowly than without barriers. */
    p.barrier_interval = 0;
    g = one_kernel(&p, 4);
    gpu_run(g, 200000);
    gpu_kernel_counters(g, 0, &c);
    assert_int_equal(c.barriers, 0);
    printf("  IPC with barriers %.3f, without %.3f\n", with, c.ipc);
    assert_true(with < 0.9 * c.ipc);
    gpu_delete(g);
}

static void barriers_survive_context_switches(void **state)
{
    (void)state;
    struct kernel_profile p = loader();
    p.insts_per_warp = 4000;
    p.barrier_interval = 50;
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    char err[256];
    const struct kernel_profile *ps[2] = {&p, kernel_builtin_find("stream")};
    struct gpu *g = gpu_new(&cfg, ps, 2, 1, err, sizeof err);
    int own[80];
    for (int i = 0; i < 80; i++)
        own[i] = i < 8 ? 0 : GPU_SM_GATED;
    assert_int_equal(gpu_set_partition(g, own, 80, GPU_SWITCH_DRAIN, err, sizeof err), 0);
    gpu_run(g, 7000);
    for (int i = 4; i < 8; i++)
        own[i] = 1; /* half of its SMs go to stream: their TBs are saved mid-barrier */
    assert_int_equal(gpu_set_partition(g, own, 80, GPU_SWITCH_CONTEXT, err, sizeof err), 0);
    gpu_reset_counters(g);
    gpu_run(g, 400000);
    struct gpu_kernel_counters c;
    gpu_kernel_counters(g, 0, &c);
    assert_true(c.tbs_saved > 0);
    assert_true(c.tbs_restored > 0);
    assert_true(c.tbs_finished > c.tbs_restored); /* the restored ones finished, and more */
    gpu_delete(g);
}

/* A barrier holds the warps that reach it first until the last of their TB arrives. TBs of
 * two warps on one SM: with compute only, both warps draw the same latencies and arrive
 * together, so a barrier every fourth instruction costs them nothing (it needs no result and
 * its warps go on the next cycle: such a kernel issues faster than without barriers). With
 * a fifth of the instructions on the SFU (drawn for each warp on its own), one warp of a pair
 * reaches each barrier first and waits for the other, so barriers gain less than with compute
 * only. A barrier whose count of arrivals restarted at 1 after a release let the first warp
 * through alone, which is as if it did not wait: then the gains were the same (1.26, 1.26;
 * 1.26 and 1.08 when written). */
static void barriers_hold_the_first_warp(void **state)
{
    (void)state;
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    double gain[2];
    for (int i = 0; i < 2; i++) {
        struct kernel_profile p = plain();
        p.warps_per_tb = 2;
        p.tbs_per_sm = 1;
        p.insts_per_warp = 400;
        p.sfu_fraction = i ? 0.2 : 0.0;
        double none = ipc_per_sm(&p, 1, &cfg);
        p.barrier_interval = 4;
        gain[i] = ipc_per_sm(&p, 1, &cfg) / none;
    }
    printf("  barriers' gain in IPC: %.3f with compute only, %.3f with 20 %% SFU\n", gain[0],
           gain[1]);
    assert_true(gain[0] > 1.1);
    assert_true(gain[1] < gain[0] - 0.1);
}

/* Constant loads that miss are bounded by the constant cache's MSHRs, as data loads are by
 * the L1's: on one SM, a kernel of nothing but constant loads against a 256-byte constant
 * cache (almost every load misses: the constant set is 32 lines) issues in proportion to the
 * MSHRs (802 instructions in 100 K cycles with one, 1,610 with two when written), and with a
 * single MSHR it still issues. */
static void constant_misses_bounded_by_mshrs(void **state)
{
    (void)state;
    uint64_t insts[3];
    for (unsigned m = 1; m <= 2; m++) {
        struct kernel_profile p = plain();
        p.const_fraction = 1.0;
        p.mlp = 8;
        struct gpu_config cfg;
        test_preset("hbm80", &cfg);
        cfg.l1c.size_bytes = 256;
        cfg.l1c.mshrs = m;
        char err[256];
        const struct kernel_profile *ps[1] = {&p};
        struct gpu *g = gpu_new(&cfg, ps, 1, 1, err, sizeof err);
        assert_non_null(g);
        int own[80];
        for (unsigned i = 0; i < 80; i++)
            own[i] = i < 1 ? 0 : GPU_SM_GATED;
        assert_int_equal(gpu_set_partition(g, own, 80, GPU_SWITCH_DRAIN, err, sizeof err), 0);
        gpu_run(g, 100000);
        struct gpu_kernel_counters c;
        gpu_kernel_counters(g, 0, &c);
        insts[m] = gpu_kernel_instructions_total(g, 0);
        assert_int_equal(c.l1c_accesses, insts[m]);
        assert_true(c.l1c_misses * 10 > c.l1c_accesses * 8);
        gpu_delete(g);
    }
    printf("  constant loads in 100 K cycles: %llu with 1 MSHR, %llu with 2\n",
           (unsigned long long)insts[1], (unsigned long long)insts[2]);
    assert_true(insts[1] > 400);
    assert_true(insts[2] * 10 > insts[1] * 18 && insts[2] * 10 < insts[1] * 22);
}

/* ---- addresses ---- */

static struct kstate *ks(const struct kernel_profile *p)
{
    const struct kstate_sm_limits sm = {32, 64, 65536, 98304};
    return kstate_new(p, 0, 128, &sm, 1);
}

static void patterns_walk_tiles(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 1, 2);
    struct kernel_profile p = plain();
    p.footprint_bytes = 100 * 128; /* 100 lines; the output array follows them */
    p.tile_lines = 4;

    p.pattern = KERNEL_PATTERN_STREAM;
    struct kstate *k = ks(&p);
    struct kstate_tbaddr a = {2, 0, 0};
    /* 4096 TBs (plain) of 4-line chunks: step 1 of TB 2 is at (4096 + 2) * 4, mod 100 */
    const uint64_t stream[] = {8, 9, 10, 11, (4098 * 4) % 100};
    for (int i = 0; i < 5; i++)
        assert_int_equal(kstate_tb_line(k, &r, &a, false) - BASE_LINE, stream[i]);
    assert_int_equal(kstate_tb_line(k, &r, &a, true) - BASE_LINE, 100 + 8); /* output array */
    kstate_delete(k);

    p.pattern = KERNEL_PATTERN_STRIDED; /* TB 5 of groups of 4: (5/4)*4*3 + 5%4 + 4i */
    p.stride_lines = 4;
    p.tile_lines = 3;
    k = ks(&p);
    a = (struct kstate_tbaddr){5, 0, 0};
    const uint64_t strided[] = {13, 17, 21, 13};
    for (int i = 0; i < 4; i++)
        assert_int_equal(kstate_tb_line(k, &r, &a, false) - BASE_LINE, strided[i]);
    kstate_delete(k);

    p.pattern = KERNEL_PATTERN_STENCIL; /* points 2, 3 of TB 1; rows of 10 lines */
    p.stride_lines = 10;
    p.tile_lines = 2;
    k = ks(&p);
    a = (struct kstate_tbaddr){1, 0, 0};
    const uint64_t stencil[] = {92, 2, 12, 93, 3, 13, 92};
    for (int i = 0; i < 7; i++)
        assert_int_equal(kstate_tb_line(k, &r, &a, false) - BASE_LINE, stencil[i]);
    kstate_delete(k);

    p.pattern = KERNEL_PATTERN_TILED; /* 9 TBs: a 3 x 3 grid; TB 4 is (1, 1); panels of 5 */
    p.tbs = 9;
    p.stride_lines = 5;
    k = ks(&p);
    a = (struct kstate_tbaddr){4, 0, 0};
    const uint64_t tiled[] = {5, 55, 6, 56, 7, 57};
    for (int i = 0; i < 6; i++)
        assert_int_equal(kstate_tb_line(k, &r, &a, false) - BASE_LINE, tiled[i]);
    kstate_delete(k);

    p.pattern = KERNEL_PATTERN_GATHER; /* all in the first 10 lines (the hot set) */
    p.hot_fraction = 1.0;
    p.hot_bytes = 10 * 128;
    k = ks(&p);
    a = (struct kstate_tbaddr){7, 0, 0};
    for (int i = 0; i < 1000; i++)
        assert_true(kstate_tb_line(k, &r, &a, false) - BASE_LINE < 10);
    assert_int_equal(a.pos, 0); /* the TB's own stream did not move */
    kstate_delete(k);

    p.hot_fraction = 0; /* no hot set: TB 7 streams its own tile of 2 lines, 14 and 15 */
    p.hot_bytes = 0;
    k = ks(&p);
    a = (struct kstate_tbaddr){7, 0, 0};
    const uint64_t own[] = {14, 15, 14};
    for (int i = 0; i < 3; i++)
        assert_int_equal(kstate_tb_line(k, &r, &a, false) - BASE_LINE, own[i]);
    assert_int_equal(kstate_tb_line(k, &r, &a, true) - BASE_LINE, 100 + 14);
    kstate_delete(k);
}

/* Row-buffer locality of per-TB streams is not a constant of the kernel: more SMs interleave
 * more TBs' walks in every bank. */
/* Default tiles: a stream TB's chunk is a line per warp (times lines_per_access); another
 * pattern's tile is the TB's loads over its life, warps x instructions x mem_fraction x
 * lines x the loads' share (1 - store_fraction). */
static void default_tiles_follow_the_profile(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 1, 2);
    struct kernel_profile p = plain();
    p.footprint_bytes = 100000ull * 128;
    p.warps_per_tb = 4;
    p.pattern = KERNEL_PATTERN_STREAM;
    struct kstate *k = ks(&p);
    struct kstate_tbaddr a = {1, 0, 0}; /* TB 1's chunk: lines 4..7 */
    assert_int_equal(kstate_tb_line(k, &r, &a, false) - BASE_LINE, 4);
    kstate_delete(k);
    p.insts_per_warp = 100;
    p.mem_fraction = 0.5;
    p.store_fraction = 0.25;
    p.pattern = KERNEL_PATTERN_STRIDED; /* stride 1: TB b starts at b x tile */
    k = ks(&p);
    a = (struct kstate_tbaddr){1, 0, 0};
    assert_int_equal(kstate_tb_line(k, &r, &a, false) - BASE_LINE, 4 * 100 * 0.5 * 0.75);
    kstate_delete(k);
    /* A hot set smaller than a line is one line. */
    p.pattern = KERNEL_PATTERN_GATHER;
    p.hot_fraction = 1.0;
    p.hot_bytes = 64;
    k = ks(&p);
    for (int i = 0; i < 100; i++)
        assert_int_equal(kstate_tb_line(k, &r, &a, false) - BASE_LINE, 0);
    kstate_delete(k);
}

/* Shared memory is allocated in units of 256 bytes, rounded up. */
static void shared_memory_rounds_up(void **state)
{
    (void)state;
    struct kernel_profile p = plain();
    const unsigned bytes[] = {0, 1, 256, 257, 516};
    const unsigned want[] = {0, 256, 256, 512, 768};
    for (int i = 0; i < 5; i++) {
        p.smem_per_tb_bytes = bytes[i];
        assert_int_equal(kstate_tb_smem(&p), want[i]);
    }
}

/* The legacy stream: runs of seq_run_lines consecutive lines from random starts, wrapping at
 * the end of the footprint, from the kernel's cursor or (order-free rules) an SM's own. */
static void legacy_runs_are_consecutive(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 3, 4);
    struct kernel_profile p = plain();
    p.pattern = KERNEL_PATTERN_LEGACY;
    p.footprint_bytes = 5 * 128;
    p.seq_run_lines = 4;
    struct kstate *k = ks(&p);
    struct kstate_hist h;
    kstate_hist_init(&h, 0);
    struct kstate_cursor own = {0, 0};
    bool wrapped[2] = {false, false};
    for (int way = 0; way < 2; way++)
        for (int run = 0; run < 50; run++) {
            uint64_t first = 0;
            for (int i = 0; i < 4; i++) {
                uint64_t line =
                    way ? kstate_next_line_own(k, &r, &h, &own) : kstate_next_line(k, &r, &h);
                assert_true(line >= BASE_LINE && line < BASE_LINE + 5);
                if (i == 0)
                    first = line - BASE_LINE;
                else
                    assert_int_equal(line - BASE_LINE, (first + i) % 5);
                wrapped[way] |= i > 0 && line == BASE_LINE;
            }
        }
    assert_true(wrapped[0] && wrapped[1]);
    kstate_hist_done(&h);
    kstate_delete(k);
}

/* Constant loads stay in the kernel's own 32-line constant set. */
static void constant_lines_are_the_kernels(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 5, 6);
    struct kernel_profile p = plain();
    struct kstate *k = ks(&p);
    for (int i = 0; i < 1000; i++) {
        uint64_t line = kstate_const_line(k, &r);
        assert_true(line >= k->const_line && line < k->const_line + KSTATE_CONST_LINES);
        assert_int_equal(kstate_kernel_of_line(line, 128), 0);
    }
    kstate_delete(k);
}

/* Compute runs are geometric with mean (1 - pn) / pn, past the end of the table of short runs
 * too (at pn = 0.01, 53 % of runs are longer than its 64 entries). */
static void compute_runs_have_their_mean(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 7, 8);
    struct kernel_profile p = plain();
    p.pattern = KERNEL_PATTERN_STREAM; /* a v2 profile: the table */
    p.mem_fraction = 0.01;
    struct kstate *k = ks(&p);
    assert_int_equal(k->geo_n, KSTATE_GEO);
    double sum = 0;
    unsigned long long long_runs = 0, n = 200000;
    for (unsigned long long i = 0; i < n; i++) {
        uint32_t run = kstate_draw_compute_run(k, &r);
        sum += run;
        long_runs += run >= KSTATE_GEO;
    }
    assert_close(sum / (double)n, 99.0, 1.5);                   /* 0.99 / 0.01 */
    assert_close((double)long_runs / (double)n, 0.5256, 0.005); /* 0.99^64 */
    kstate_delete(k);
}

/* A grid whose TBs were all handed out still has TBs while saved ones wait. */
static void saved_tbs_outlast_the_grid(void **state)
{
    (void)state;
    struct kernel_profile p = plain();
    p.tbs = 2;
    struct kstate *k = ks(&p);
    struct kstate_saved_tb *saved;
    uint32_t tile;
    assert_true(kstate_take_tb(k, &saved, &tile) && kstate_take_tb(k, &saved, &tile));
    assert_false(kstate_has_tb(k));
    struct kstate_saved_tb *tb = calloc(1, sizeof(*tb));
    tb->addr.tile = 1;
    kstate_save_tb(k, tb);
    assert_true(kstate_has_tb(k));
    assert_true(kstate_take_tb(k, &saved, &tile));
    assert_ptr_equal(saved, tb);
    assert_int_equal(tile, 1);
    free(saved);
    assert_false(kstate_has_tb(k));
    kstate_delete(k);
}

static void rbh_depends_on_sm_count(void **state)
{
    (void)state;
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    struct kernel_profile p = plain(); /* column walks by one-warp blocks, as gaussian's */
    p.tbs = 65536;
    p.warps_per_tb = 1;
    p.insts_per_warp = 12;
    p.mem_fraction = 0.33;
    p.store_fraction = 0.25;
    p.lines_per_access = 4;
    p.pattern = KERNEL_PATTERN_STRIDED;
    p.stride_lines = 32;
    p.footprint_bytes = 8 << 20;
    struct solo_result few, many;
    char err[256];
    assert_int_equal(solo_characterize(&cfg, &p, 10, 50000, 1, NULL, NULL, &few, err, sizeof err),
                     0);
    assert_int_equal(solo_characterize(&cfg, &p, 80, 50000, 1, NULL, NULL, &many, err, sizeof err),
                     0);
    printf("  RBH on 10 SMs %.3f, on 80 SMs %.3f\n", few.rbh, many.rbh);
    assert_true(few.rbh > many.rbh + 0.05);
}

/* A grid small enough to sit in the L1 misses again at every launch: the L1 is invalidated
 * at the kernel boundary. */
static void relaunch_invalidates_l1(void **state)
{
    (void)state;
    struct kernel_profile p = plain();
    p.tbs = 1;
    p.warps_per_tb = 1;
    p.insts_per_warp = 64;
    p.mem_fraction = 0.25; /* 16 loads of 16 lines: the tile */
    p.pattern = KERNEL_PATTERN_STREAM;
    struct gpu *g = one_kernel(&p, 1);
    gpu_run(g, 100000);
    struct gpu_kernel_counters c;
    gpu_kernel_counters(g, 0, &c);
    assert_true(c.launches > 10);
    /* Each launch reads the same lines; each misses in the L1 again (about 16 per launch). */
    assert_true(c.l1d_misses >= 12 * c.launches);
    gpu_delete(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(occupancy_from_resources),
        cmocka_unit_test(units_bound_throughput),
        cmocka_unit_test(few_warps_wait_on_dependencies),
        cmocka_unit_test(few_warps_wait_on_units),
        cmocka_unit_test(barriers_count_and_hold),
        cmocka_unit_test(barriers_survive_context_switches),
        cmocka_unit_test(barriers_hold_the_first_warp),
        cmocka_unit_test(constant_misses_bounded_by_mshrs),
        cmocka_unit_test(patterns_walk_tiles),
        cmocka_unit_test(default_tiles_follow_the_profile),
        cmocka_unit_test(shared_memory_rounds_up),
        cmocka_unit_test(legacy_runs_are_consecutive),
        cmocka_unit_test(constant_lines_are_the_kernels),
        cmocka_unit_test(compute_runs_have_their_mean),
        cmocka_unit_test(saved_tbs_outlast_the_grid),
        cmocka_unit_test(rbh_depends_on_sm_count),
        cmocka_unit_test(relaunch_invalidates_l1),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
