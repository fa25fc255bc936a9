/* Unit tests: the GPU core — determinism, and the behaviours the papers' figures show (HSM
 * Fig. 2, 3, 4), measured in simulated cycles. What it refuses is in test_gpu_config.c, what it
 * counts in test_gpu_counters.c. */
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

/* Two kernels on an even split, run warm then for `cycles` more. */
static struct gpu *pair(const char *a, const char *b, uint64_t seed, uint64_t warm, uint64_t cycles)
{
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    const struct kernel_profile *ps[2] = {test_builtin(a), test_builtin(b)};
    char err[256];
    struct gpu *g = gpu_new(&cfg, ps, 2, seed, err, sizeof err);
    assert_non_null(g);
    gpu_set_dram_checking(g, true);
    int own[80];
    gpu_partition_even(80, 2, own);
    assert_int_equal(gpu_set_partition(g, own, 80, GPU_SWITCH_DRAIN, err, sizeof err), 0);
    gpu_run(g, warm);
    gpu_reset_counters(g);
    gpu_run(g, cycles);
    return g;
}

static double solo_ipc(const char *name, unsigned sms, uint64_t cycles)
{
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    struct solo_result r;
    char err[256];
    assert_int_equal(solo_characterize(&cfg, test_builtin(name), sms, cycles, 1, NULL, NULL, &r,
                                       err, sizeof err),
                     0);
    return r.ipc;
}

/* ---- errors ---- */

/* ---- determinism ---- */

static void same_seed_same_counters(void **state)
{
    (void)state;
    struct gpu_kernel_counters c[3][2];
    uint64_t seeds[3] = {7, 7, 8};
    for (int r = 0; r < 3; r++) {
        struct gpu *g = pair("stream", "cachefit", seeds[r], 2000, 20000);
        for (unsigned k = 0; k < 2; k++)
            gpu_kernel_counters(g, k, &c[r][k]);
        gpu_delete(g);
    }
    assert_memory_equal(&c[0], &c[1], sizeof(c[0]));
    assert_true(c[0][0].instructions != c[2][0].instructions ||
                c[0][0].row_hits != c[2][0].row_hits || c[0][1].l1d_misses != c[2][1].l1d_misses);
}

/* The SMs' fast-forward over compute-only cycles must give exactly the per-cycle counters:
 * for the bench pair, for other dependency latencies and scheduler counts, with unit
 * instructions and barriers among the compute runs, and across context switches and
 * relaunches. */
static void run_ff_case(const char *a, const char *b, unsigned dep, unsigned nsched, bool classes,
                        bool ff, struct gpu_kernel_counters out[2], uint64_t *tbs_out)
{
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    cfg.schedulers_per_sm = nsched;
    struct kernel_profile pa = *test_builtin(a), pb = *test_builtin(b);
    pb.dep_latency = dep;
    pb.tbs = 300; /* TBs finish and the grid relaunches within the run */
    pb.insts_per_warp = 400;
    if (classes) { /* rare unit instructions and barriers between the rotations */
        pb.sfu_fraction = 0.002;
        pb.shared_fraction = 0.004;
        pb.barrier_interval = 90;
        pb.warps_per_tb = 4;
    }
    const struct kernel_profile *ps[2] = {&pa, &pb};
    char err[256];
    struct gpu *g = gpu_new(&cfg, ps, 2, 5, err, sizeof err);
    assert_non_null(g);
    gpu_set_fast_forward(g, ff);
    int own[80];
    gpu_partition_even(80, 2, own);
    assert_int_equal(gpu_set_partition(g, own, 80, GPU_SWITCH_DRAIN, err, sizeof err), 0);
    gpu_run(g, 3000);
    gpu_reset_counters(g);
    gpu_run(g, 7001);
    for (int i = 0; i < 80; i++)
        own[i] = i < 30 ? 0 : 1;
    assert_int_equal(gpu_set_partition(g, own, 80, GPU_SWITCH_CONTEXT, err, sizeof err), 0);
    gpu_run(g, 9000);
    *tbs_out = 0;
    for (unsigned i = 0; i < 80; i++)
        *tbs_out = *tbs_out * 31 + gpu_sm_tbs_finished(g, i);
    for (unsigned k = 0; k < 2; k++)
        gpu_kernel_counters(g, k, &out[k]);
    gpu_delete(g);
}

static void fast_forward_equals_per_cycle(void **state)
{
    (void)state;
    const struct {
        const char *a, *b;
        unsigned dep, nsched;
        bool classes;
    } cases[] = {{"stream", "compute", 6, 2, false},
                 {"cachefit", "compute", 2, 4, false},
                 {"random", "compute", 11, 1, false},
                 {"compute", "compute", 3, 3, false},
                 {"stream", "compute", 6, 2, true}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct gpu_kernel_counters on[2], off[2];
        uint64_t tbs_on, tbs_off;
        run_ff_case(cases[i].a, cases[i].b, cases[i].dep, cases[i].nsched, cases[i].classes, true,
                    on, &tbs_on);
        run_ff_case(cases[i].a, cases[i].b, cases[i].dep, cases[i].nsched, cases[i].classes, false,
                    off, &tbs_off);
        assert_true(on[1].instructions > 0 && on[1].tbs_finished > 0);
        if (cases[i].classes)
            assert_true(on[1].barriers > 0 && on[1].shared_instructions > 0 &&
                        on[1].sfu_instructions > 0);
        assert_memory_equal(on, off, sizeof(on));
        assert_int_equal(tbs_on, tbs_off);
    }
}

/* An SM whose rotation outlasts its block sleeps in it across blocks and is brought up to
 * date only when something looks at it. Long runs with rotations of thousands of cycles
 * (beyond the wake wheel's span), read in odd chunks, repartitioned by draining, saving and
 * the adaptive rule while SMs sleep, relaunched mid-rotation, counters reset, and the fast
 * path switched off mid-run: every counter read along the way must match the per-cycle run. */
enum { LAZY_SNAPS = 40 };

struct lazy_snap {
    struct gpu_kernel_counters k[3];
    struct gpu_system_counters sys;
    uint64_t tbs, running;
};

static void lazy_snapshot(struct gpu *g, struct lazy_snap *out)
{
    memset(out, 0, sizeof(*out));
    for (unsigned k = 0; k < 3; k++)
        gpu_kernel_counters(g, k, &out->k[k]);
    gpu_system_counters(g, &out->sys);
    for (unsigned i = 0; i < 80; i++) {
        out->tbs = out->tbs * 31 + gpu_sm_tbs_finished(g, i);
        out->running = out->running * 7 + (uint64_t)(gpu_sm_running(g, i) + 2);
    }
}

static void run_lazy_case(const char *mem, bool ff, struct lazy_snap snaps[LAZY_SNAPS])
{
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    struct kernel_profile pm = *test_builtin(mem), pl = *test_builtin("compute"),
                          pr = *test_builtin("compute");
    pl.mem_fraction = 0.0002; /* warps end before their first load: rotations of ~7 K cycles */
    pl.const_fraction = 0;
    pl.dep_latency = 9;
    pl.tbs = 120; /* relaunches mid-rotation */
    pl.insts_per_warp = 800;
    pr.mem_fraction = 0.002;
    pr.tbs = 200;
    pr.insts_per_warp = 900;
    const struct kernel_profile *ps[3] = {&pm, &pl, &pr};
    char err[256];
    struct gpu *g = gpu_new(&cfg, ps, 3, 11, err, sizeof err);
    assert_non_null(g);
    gpu_set_fast_forward(g, ff);
    int own[80];
    for (int i = 0; i < 80; i++)
        own[i] = i < 20 ? 0 : i < 50 ? 1 : 2;
    assert_int_equal(gpu_set_partition(g, own, 80, GPU_SWITCH_DRAIN, err, sizeof err), 0);
    const enum gpu_switch_mode modes[] = {GPU_SWITCH_CONTEXT, GPU_SWITCH_DRAIN,
                                          GPU_SWITCH_ADAPTIVE};
    for (int n = 0; n < LAZY_SNAPS; n++) {
        gpu_run(g, 997 + 131 * (uint64_t)(n % 7));
        lazy_snapshot(g, &snaps[n]);
        if (n == 12)
            gpu_reset_counters(g);
        if (n == 30 && ff)
            gpu_set_fast_forward(g, false); /* wakes every sleeping SM */
        if (n == 33 && ff)
            gpu_set_fast_forward(g, true);
        if (n % 5 == 4) { /* move 8 SMs between the compute kernels, the memory one, idle */
            for (int i = 0; i < 8; i++) {
                int sm = (n * 11 + i * 9) % 80;
                own[sm] = (n / 5 + i) % 4 == 3   ? GPU_SM_IDLE
                          : (n / 5 + i) % 4 == 2 ? 0
                                                 : 1 + (i & 1);
            }
            assert_int_equal(gpu_set_partition(g, own, 80, modes[(n / 5) % 3], err, sizeof err), 0);
        }
    }
    gpu_delete(g);
}

static void lazy_rotation_equals_per_cycle(void **state)
{
    (void)state;
    const char *mem[] = {"stream", "compute"};
    for (int i = 0; i < 2; i++) {
        static struct lazy_snap on[LAZY_SNAPS], off[LAZY_SNAPS];
        run_lazy_case(mem[i], true, on);
        run_lazy_case(mem[i], false, off);
        assert_true(on[LAZY_SNAPS - 1].k[1].launches >= 2 && on[LAZY_SNAPS - 1].k[1].tbs_saved);
        for (int n = 0; n < LAZY_SNAPS; n++)
            assert_memory_equal(&on[n], &off[n], sizeof(on[n]));
    }
}

/* ---- HSM Fig. 2: scaling with SMs ---- */

static void compute_bound_scales_linearly(void **state)
{
    (void)state;
    double full = solo_ipc("compute", 80, 20000);
    unsigned sms[] = {10, 20, 40, 60};
    for (int i = 0; i < 4; i++) {
        double ipc = solo_ipc("compute", sms[i], 20000), ideal = full * sms[i] / 80;
        printf("  compute %2u SMs: IPC %.2f (linear %.2f)\n", sms[i], ipc, ideal);
        assert_true(ipc > 0.95 * ideal && ipc < 1.05 * ideal);
    }
}

static void memory_bound_saturates(void **state)
{
    (void)state;
    const char *names[] = {"random", "stream"};
    for (int i = 0; i < 2; i++) {
        double full = solo_ipc(names[i], 80, 30000), at40 = solo_ipc(names[i], 40, 30000);
        printf("  %s: IPC %.2f on 40 SMs, %.2f on 80\n", names[i], at40, full);
        assert_true(at40 >= 0.9 * full);
    }
}

/* ---- HSM Fig. 3: bandwidth utilization against RBH ---- */

static void bandwidth_rises_with_rbh(void **state)
{
    (void)state;
    const char *names[] = {"seq40", "seq64", "seq96", "seq128", "seq192", "seq256", "seq2048"};
    enum { N = 7 };
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    double x[N], y[N], sx = 0, sy = 0;
    char err[256];
    for (int i = 0; i < N; i++) {
        struct solo_result r;
        assert_int_equal(solo_characterize(&cfg, test_builtin(names[i]), 80, 30000, 1, NULL, NULL,
                                           &r, err, sizeof err),
                         0);
        x[i] = r.rbh;
        y[i] = r.bandwidth_pct / 100;
        sx += x[i];
        sy += y[i];
        printf("  %-8s RBH %.3f utilization %.1f%%\n", names[i], x[i], 100 * y[i]);
    }
    double mx = sx / N, my = sy / N, sxx = 0, sxy = 0, syy = 0;
    for (int i = 0; i < N; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
        syy += (y[i] - my) * (y[i] - my);
    }
    double slope = sxy / sxx, r2 = sxy * sxy / (sxx * syy);
    printf("  fit: utilization = %.3f * RBH + %.3f, R^2 = %.3f\n", slope, my - slope * mx, r2);
    assert_true(slope > 0);
    assert_true(r2 >= 0.8);
    assert_true(x[0] < 0.2 && x[N - 1] > 0.7); /* the family spans the range */
}

/* ---- HSM Fig. 4: RBH in shared mode stays near private mode ---- */

static void shared_rbh_tracks_private(void **state)
{
    (void)state;
    const char *mem[] = {"stream", "random", "strided"};
    const char *all[] = {"stream", "random", "strided", "compute", "cachefit"};
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    char err[256];
    for (int i = 0; i < 3; i++) {
        struct solo_result r;
        assert_int_equal(solo_characterize(&cfg, test_builtin(mem[i]), 80, 40000, 1, NULL, NULL, &r,
                                           err, sizeof err),
                         0);
        for (int j = 0; j < 5; j++) {
            if (!strcmp(mem[i], all[j]))
                continue;
            struct gpu *g = pair(mem[i], all[j], 1, 4000, 40000);
            struct gpu_kernel_counters c;
            gpu_kernel_counters(g, 0, &c);
            printf("  %-8s + %-8s RBH shared %.3f private %.3f\n", mem[i], all[j], c.rbh, r.rbh);
            assert_true(c.rbh - r.rbh <= 0.1 && r.rbh - c.rbh <= 0.1);
            gpu_delete(g);
        }
    }
}

/* ---- repartitioning, relaunch, counters ---- */

/* A warp at its MLP limit issues again in the cycle a load of its comes back, and not
 * before: one warp whose every instruction is a load of the same line (an L1 hit after the
 * first, 28 cycles on hbm80) issues one load every 28 cycles with an MLP of 1 and two every
 * 28 with an MLP of 2, in the steady state after the first miss. */
static void mlp_limit_wakes_on_the_return(void **state)
{
    (void)state;
    for (unsigned mlp = 1; mlp <= 2; mlp++) {
        struct kernel_profile p = *test_builtin("stream");
        p.tbs = 1;
        p.tbs_per_sm = 1;
        p.warps_per_tb = 1;
        p.insts_per_warp = 1000000;
        p.mem_fraction = 1.0;
        p.store_fraction = 0.0;
        p.lines_per_access = 1.0;
        p.footprint_bytes = 128;
        p.seq_run_lines = 1;
        p.mlp = mlp;
        struct gpu *g = test_hbm80_solo(&p, 1);
        gpu_run(g, 10000); /* past the first miss */
        uint64_t before = gpu_kernel_instructions_total(g, 0);
        gpu_run(g, 28 * 1000);
        uint64_t n = gpu_kernel_instructions_total(g, 0) - before;
        if (n + 1 < 1000 * mlp || n > 1000 * mlp + 1)
            fail_msg("MLP %u: %llu loads in 28,000 cycles, expected %u", mlp, (unsigned long long)n,
                     1000 * mlp);
        gpu_delete(g);
    }
}

static void short_grids_relaunch(void **state)
{
    (void)state;
    struct kernel_profile p = *test_builtin("compute");
    p.tbs = 40;
    p.insts_per_warp = 500;
    struct gpu *g = test_hbm80_solo(&p, 80);
    gpu_run(g, 20000);
    struct gpu_kernel_counters c;
    gpu_kernel_counters(g, 0, &c);
    assert_true(c.launches >= 2);
    assert_true(c.first_launch_cycle > 0);
    assert_int_equal(c.first_launch_instructions, 40ull * 8 * 500);
    assert_int_equal(c.tbs_finished, c.launches * 40 + (c.tbs_finished % 40));
    gpu_delete(g);
}

static void context_switch_saves_and_restores(void **state)
{
    (void)state;
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    struct kernel_profile p = *test_builtin("compute");
    p.insts_per_warp = 500; /* a wave of TBs lasts ~16 K cycles */
    const struct kernel_profile *ps[2] = {&p, test_builtin("stream")};
    char err[256];
    struct gpu *g = gpu_new(&cfg, ps, 2, 1, err, sizeof err);
    gpu_set_dram_checking(g, true);
    int own[80];
    for (int i = 0; i < 80; i++)
        own[i] = 0;
    assert_int_equal(gpu_set_partition(g, own, 80, GPU_SWITCH_DRAIN, err, sizeof err), 0);
    gpu_run(g, 5000);
    gpu_reset_counters(g);
    gpu_partition_even(80, 2, own); /* SMs 40..79 go to stream, saving compute's TBs */
    assert_int_equal(gpu_set_partition(g, own, 80, GPU_SWITCH_CONTEXT, err, sizeof err), 0);
    gpu_run(g, 40000);
    struct gpu_kernel_counters c0, c1;
    gpu_kernel_counters(g, 0, &c0);
    gpu_kernel_counters(g, 1, &c1);
    /* compute's 40 registers per thread allow 6 TBs of 8 warps (65536 / 10240) per SM */
    assert_int_equal(c0.occupancy_tbs, 6);
    assert_int_equal(c0.tbs_saved, 40 * 6);
    assert_true(c0.tbs_restored > 0); /* resumed on compute's own SMs as slots free up */
    assert_int_equal(c1.active_sms, 40);
    assert_int_equal(c0.active_sms, 40);
    assert_true(c1.instructions > 0);
    /* compute kept the 40 SMs it lost only while their TBs were saved: 6 TBs of 48 KB of
     * registers and shared memory at 128 B per cycle, 2304 cycles, after in-flight loads */
    double extra = (c0.sms - 40) * 40000 / 40;
    printf("  save took %.0f cycles per SM\n", extra);
    assert_true(extra >= 2304 && extra < 2304 + 1000);
    gpu_delete(g);
}

/* The SM that changes owner by context switch runs its old kernel's TBs no longer, holds
 * them for exactly ceil(bytes / rate) cycles (their registers and shared memory at
 * context_switch_bytes_per_cycle), then belongs to the new kernel: to the cycle, for 6 TBs
 * and for one, with a byte count the rate does not divide. A kernel without loads has
 * nothing in flight to wait for. */
static void context_switch_takes_its_bytes_over_the_rate(void **state)
{
    (void)state;
    const struct {
        unsigned smem, tbs;
    } cases[] = {{8192, 6}, {60041, 1}}; /* of 96 KB per SM; the second's bytes end in 01 */
    for (unsigned c = 0; c < 2; c++) {
        struct gpu_config cfg;
        test_preset("hbm80", &cfg);
        cfg.context_switch_bytes_per_cycle = 100;
        struct kernel_profile p = *test_builtin("compute");
        p.mem_fraction = p.const_fraction = 0; /* no load in flight when the switch comes */
        p.insts_per_warp = 1000000;            /* no TB finishes meanwhile */
        p.smem_per_tb_bytes = cases[c].smem;
        const struct kernel_profile *ps[2] = {&p, &p};
        char err[256];
        struct gpu *g = gpu_new(&cfg, ps, 2, 1, err, sizeof err);
        assert_non_null(g);
        int own[80];
        gpu_partition_even(80, 2, own); /* SM 0 is kernel 0's */
        assert_int_equal(gpu_set_partition(g, own, 80, GPU_SWITCH_DRAIN, err, sizeof err), 0);
        gpu_run(g, 1000);
        assert_int_equal(gpu_sm_resident_tbs(g, 0), cases[c].tbs);
        own[0] = 1;
        assert_int_equal(gpu_set_partition(g, own, 80, GPU_SWITCH_CONTEXT, err, sizeof err), 0);
        /* 8 warps of 32 threads of 40 registers of 4 bytes, and the shared memory */
        uint64_t bytes = cases[c].tbs * (8ull * 32 * 40 * 4 + cases[c].smem);
        uint64_t cost = (bytes + 99) / 100;
        assert_true(bytes % 100 != 0);
        gpu_run(g, cost); /* the save's cycles, from the partition's */
        assert_int_equal(gpu_sm_running(g, 0), 0);
        assert_int_equal(gpu_sm_kernel_tbs(g, 0, 0), cases[c].tbs);
        gpu_run(g, 1); /* its end */
        assert_int_equal(gpu_sm_running(g, 0), 1);
        assert_int_equal(gpu_sm_kernel_tbs(g, 0, 0), 0);
        struct gpu_kernel_counters k0;
        gpu_kernel_counters(g, 0, &k0);
        assert_int_equal(k0.tbs_saved, cases[c].tbs);
        gpu_delete(g);
    }
}

/* A context switch loses and repeats no work: the first grid of a kernel whose TBs were
 * saved mid-way (warps at barriers and with loads among them) and resumed on other SMs still
 * completes after exactly its TBs x warps x instructions. */
static void context_switch_keeps_every_warps_place(void **state)
{
    (void)state;
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    struct kernel_profile p = *test_builtin("compute");
    p.tbs = 600;
    p.insts_per_warp = 1000;
    p.barrier_interval = 40;
    p.shared_fraction = 0.05;
    const struct kernel_profile *ps[2] = {&p, test_builtin("stream")};
    char err[256];
    struct gpu *g = gpu_new(&cfg, ps, 2, 3, err, sizeof err);
    assert_non_null(g);
    int own[80] = {0};
    assert_int_equal(gpu_set_partition(g, own, 80, GPU_SWITCH_DRAIN, err, sizeof err), 0);
    gpu_run(g, 3000);
    gpu_partition_even(80, 2, own); /* SMs 40..79 go to stream, saving their TBs */
    assert_int_equal(gpu_set_partition(g, own, 80, GPU_SWITCH_CONTEXT, err, sizeof err), 0);
    struct gpu_kernel_counters c;
    for (unsigned i = 0; i < 40; i++) {
        gpu_run(g, 5000);
        gpu_kernel_counters(g, 0, &c);
        if (c.launches)
            break;
    }
    assert_true(c.launches >= 1);
    assert_int_equal(c.tbs_saved, 40 * 6);
    assert_true(c.barriers > 0);
    assert_int_equal(c.first_launch_instructions, 600ull * 8 * 1000);
    gpu_delete(g);
}

static void draining_waits_for_tbs(void **state)
{
    (void)state;
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    struct kernel_profile p = *test_builtin("stream");
    p.insts_per_warp = 100;
    const struct kernel_profile *ps[2] = {&p, test_builtin("compute")};
    char err[256];
    struct gpu *g = gpu_new(&cfg, ps, 2, 1, err, sizeof err);
    gpu_set_dram_checking(g, true);
    int own[80];
    for (int i = 0; i < 80; i++)
        own[i] = 0;
    assert_int_equal(gpu_set_partition(g, own, 80, GPU_SWITCH_DRAIN, err, sizeof err), 0);
    gpu_run(g, 5000);
    gpu_partition_even(80, 2, own);
    assert_int_equal(gpu_set_partition(g, own, 80, GPU_SWITCH_DRAIN, err, sizeof err), 0);
    gpu_run(g, 10);
    assert_int_equal(gpu_sm_running(g, 79), 0); /* still finishing stream's TBs */
    gpu_run(g, 40000);
    assert_int_equal(gpu_sm_running(g, 79), 1);
    struct gpu_kernel_counters c;
    gpu_kernel_counters(g, 0, &c);
    assert_int_equal(c.tbs_saved, 0);
    gpu_delete(g);
}

static void adaptive_follows_hsm_rule(void **state)
{
    (void)state;
    /* Short TBs (many finish per SM in an epoch): drain. Long TBs: context switch. */
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    char err[256];
    struct kernel_profile shortp = *test_builtin("compute"), longp = *test_builtin("compute");
    shortp.insts_per_warp = 200;
    const struct kernel_profile *ps[3] = {&shortp, &longp, test_builtin("stream")};
    struct gpu *g = gpu_new(&cfg, ps, 3, 1, err, sizeof err);
    gpu_set_dram_checking(g, true);
    int own[80];
    for (int i = 0; i < 80; i++)
        own[i] = i < 40 ? 0 : 1;
    assert_int_equal(gpu_set_partition(g, own, 80, GPU_SWITCH_DRAIN, err, sizeof err), 0);
    gpu_run(g, 30000);
    for (int i = 0; i < 80; i++)
        own[i] = 2;
    assert_int_equal(gpu_set_partition(g, own, 80, GPU_SWITCH_ADAPTIVE, err, sizeof err), 0);
    gpu_run(g, 10000);
    struct gpu_kernel_counters cs, cl;
    gpu_kernel_counters(g, 0, &cs);
    gpu_kernel_counters(g, 1, &cl);
    assert_int_equal(cs.tbs_saved, 0);
    assert_int_equal(cl.tbs_saved, 40 * cl.occupancy_tbs);
    gpu_delete(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_seed_same_counters),
        cmocka_unit_test(fast_forward_equals_per_cycle),
        cmocka_unit_test(lazy_rotation_equals_per_cycle),
        cmocka_unit_test(compute_bound_scales_linearly),
        cmocka_unit_test(memory_bound_saturates),
        cmocka_unit_test(bandwidth_rises_with_rbh),
        cmocka_unit_test(shared_rbh_tracks_private),
        cmocka_unit_test(mlp_limit_wakes_on_the_return),
        cmocka_unit_test(short_grids_relaunch),
        cmocka_unit_test(context_switch_saves_and_restores),
        cmocka_unit_test(context_switch_takes_its_bytes_over_the_rate),
        cmocka_unit_test(context_switch_keeps_every_warps_place),
        cmocka_unit_test(draining_waits_for_tbs),
        cmocka_unit_test(adaptive_follows_hsm_rule),
    };
    return cmocka_run_group_tests_name("gpu", tests, NULL, NULL);
}
