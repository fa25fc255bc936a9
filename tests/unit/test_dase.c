/* Unit tests: the DASE-style predictor (dase.h) on hand-built counters with hand-computed
 * answers. The test GPU has 80 SMs, a 1000 MHz core and a 500 MHz memory clock, so one memory
 * cycle is two core cycles and an epoch of T = 100000 core cycles is T_m = 50000 memory
 * cycles; its peak of 900 GB/s is P = 900 bytes per core cycle. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "assert_close.h"

#include "corun/dase.h"
#include "corun/predict.h"

static const struct predict_gpu gpu = {
    .preset = "test",
    .sms = 80,
    .schedulers_per_sm = 2,
    .core_clock_mhz = 1000,
    .peak_gbs = 900,
    .request_bytes = 128,
    .dram_clock_mhz = 500,
};

#define EPS 1e-9

/* One epoch of T = 100000 cycles on sms SMs, A LLC accesses, a of them sampled with m_alone
 * and m_shared misses, R DRAM requests queueing Q memory cycles, I of them for others. */
static struct gpu_kernel_counters counters(double sms, uint64_t A, uint64_t a, uint64_t m_alone,
                                           uint64_t m_shared, uint64_t R, uint64_t Q, uint64_t I)
{
    return (struct gpu_kernel_counters){.cycles = 100000,
                                        .sms = sms,
                                        .l2_accesses = A,
                                        .atd_accesses = a,
                                        .atd_misses = m_alone,
                                        .atd_shared_misses = m_shared,
                                        .dram_requests = R,
                                        .dram_queue_cycles = Q,
                                        .dram_interference_cycles = I};
}

/* Alone: the private tag copy misses as the LLC does and nobody delays DRAM: no stall, and
 * NP^ = S_k / sigma = 40 / 80 = 0.5, not capped. */
static void alone_is_the_sm_share(void **state)
{
    (void)state;
    struct gpu_kernel_counters c = counters(40, 10000, 500, 100, 100, 2000, 100000, 0);
    struct dase_estimate e;
    dase_estimate(&gpu, &c, &e);
    assert_close(e.contention_misses, 0, EPS);
    assert_close(e.stall_cycles, 0, EPS);
    assert_close(e.t_alone_cycles, 100000, EPS);
    assert_close(e.np_raw, 0.5, EPS);
    assert_close(e.np, 0.5, EPS);
    assert_false(e.capped);
}

/* Cache contention only, 40 SMs:
 *   dM = (150 - 100) x 10000 / 500 = 1000 contention misses; rho = 1000 / 4000 = 0.25
 *   X_llc = 0.25 x 200000 = 50000 mem cycles (Q/R = 50 per trip); X_dram = 0
 *   N = 200000 / 50000 = 4 waiting; stall = 50000 / 4 x 2 = 25000 core cycles
 *   T_alone = 75000; NP_raw = 0.5 x 0.75 = 0.375; the cap lifts it to 0.5. */
static void cache_contention_only(void **state)
{
    (void)state;
    struct gpu_kernel_counters c = counters(40, 10000, 500, 100, 150, 4000, 200000, 0);
    struct dase_estimate e;
    dase_estimate(&gpu, &c, &e);
    assert_close(e.contention_misses, 1000, EPS);
    assert_close(e.miss_fraction, 0.25, EPS);
    assert_close(e.req_cycles, 50, EPS);
    assert_close(e.cache_extra, 50000, EPS);
    assert_close(e.dram_extra, 0, EPS);
    assert_close(e.outstanding, 4, EPS);
    assert_close(e.stall_cycles, 25000, EPS);
    assert_close(e.t_alone_cycles, 75000, EPS);
    assert_close(e.np_raw, 0.375, EPS);
    assert_close(e.np, 0.5, EPS);
    assert_true(e.capped);
}

/* DRAM interference only, 20 SMs, few requests waiting:
 *   dM = 0; X_dram = 10000 mem cycles
 *   N = max(1, 25000 / 50000 = 0.5) = 1: overlap never lengthens a stall
 *   stall = 10000 / 1 x 2 = 20000; T_alone = 80000; NP_raw = 0.25 x 0.8 = 0.2; capped to 0.25.
 * (Without the floor on N the stall would be 40000 and NP_raw 0.15.) */
static void dram_interference_only(void **state)
{
    (void)state;
    struct gpu_kernel_counters c = counters(20, 8000, 400, 80, 80, 1000, 25000, 10000);
    struct dase_estimate e;
    dase_estimate(&gpu, &c, &e);
    assert_close(e.contention_misses, 0, EPS);
    assert_close(e.dram_extra, 10000, EPS);
    assert_close(e.outstanding, 1, EPS);
    assert_close(e.stall_cycles, 20000, EPS);
    assert_close(e.np_raw, 0.2, EPS);
    assert_close(e.np, 0.25, EPS);
    assert_true(e.capped);
}

/* Both at once: the interference on requests that exist only because of contention is in
 * X_llc, not again in X_dram.
 *   dM = (60 - 40) x 8000 / 400 = 400; rho = 400 / 1600 = 0.25
 *   X_llc = 0.25 x 400000 = 100000; X_dram = 100000 x 0.75 = 75000
 *   N = 400000 / 50000 = 8; stall = 175000 / 8 x 2 = 43750
 *   T_alone = 56250; NP_raw = 0.5 x 0.5625 = 0.28125. */
static void both_are_not_counted_twice(void **state)
{
    (void)state;
    struct gpu_kernel_counters c = counters(40, 8000, 400, 40, 60, 1600, 400000, 100000);
    struct dase_estimate e;
    dase_estimate(&gpu, &c, &e);
    assert_close(e.cache_extra, 100000, EPS);
    assert_close(e.dram_extra, 75000, EPS);
    assert_close(e.stall_cycles, 43750, EPS);
    assert_close(e.np_raw, 0.28125, EPS);
}

/* The cap, on all 80 SMs with more contention misses than requests:
 *   dM = 50 x 10000 / 100 = 5000 > R = 1000, so rho = 1: every request is contention's
 *   X_llc = 100000; X_dram = 50000 x 0 = 0; N = 100000 / 50000 = 2
 *   stall = 100000 / 2 x 2 = 100000 = T; T_alone = 0; NP_raw = 0 (slowdown unbounded)
 *   cap: slowdown <= 80 / 80 = 1, so NP^ = 1. */
static void cap_bounds_the_slowdown(void **state)
{
    (void)state;
    struct gpu_kernel_counters c = counters(80, 10000, 100, 0, 50, 1000, 100000, 50000);
    struct dase_estimate e;
    dase_estimate(&gpu, &c, &e);
    assert_close(e.contention_misses, 5000, EPS);
    assert_close(e.miss_fraction, 1, EPS);
    assert_close(e.dram_extra, 0, EPS);
    assert_close(e.stall_cycles, 100000, EPS);
    assert_close(e.np_raw, 0, EPS);
    assert_close(e.np_floor, 1, EPS);
    assert_close(e.np, 1, EPS);
    assert_true(e.capped);
}

/* Roofline, compute-bound (the SM roof): cache_contention_only's counters with I = 750000
 * instructions and R x 128 = 512000 DRAM bytes:
 *   alone bytes = 512000 x (1 - 0.25) = 384000; b = 384000 / 750000 = 0.512 bytes/inst
 *   IPC_lin = 750000 / 75000 x 80 / 40 = 20; IPC_bw = 900 / 0.512 = 1757.8125; IPC_alone = 20
 *   NP_lin = 0.375; NP_bw = 384000 / (100000 x 900) = 0.0042667
 *   NP_raw = 0.375 < S_k / sigma = 0.5: the cap binds, NP^ = 0.5. */
static void roofline_compute_bound_cap_binds(void **state)
{
    (void)state;
    struct gpu_kernel_counters c = counters(40, 10000, 500, 100, 150, 4000, 200000, 0);
    c.instructions = 750000;
    c.dram_bytes = 512000;
    struct dase_estimate e;
    dase_estimate(&gpu, &c, &e);
    assert_close(e.peak_bytes_per_cycle, 900, EPS);
    assert_close(e.alone_bytes, 384000, EPS);
    assert_close(e.bytes_per_inst, 0.512, EPS);
    assert_close(e.ipc_lin, 20, EPS);
    assert_close(e.ipc_bw, 1757.8125, 1e-6);
    assert_close(e.ipc_alone, 20, EPS);
    assert_close(e.np_lin, 0.375, EPS);
    assert_close(e.np_bw, 384000.0 / 90e6, EPS);
    assert_false(e.bw_bound);
    assert_close(e.np_raw, 0.375, EPS);
    assert_true(e.capped);
    assert_close(e.np, 0.5, EPS);
}

/* Roofline, memory-bound (the bandwidth roof), the cap not binding. 40 SMs, I = 200000,
 * D = 108e6 bytes in R = 843750 requests queueing Q = 8437500 memory cycles, none for others;
 * the ATD says half of them are contention misses (500 of 1000 sampled, A = 843750):
 *   dM = 500 x 843750 / 1000 = 421875; rho = 0.5; X_llc = 4218750; X_dram = 0
 *   N = 8437500 / 50000 = 168.75; stall = 4218750 / 168.75 x 2 = 50000; T_alone = 50000
 *   NP_lin = 0.5 x 0.5 = 0.25 (IPC_lin = 200000 / 50000 x 2 = 8)
 *   alone bytes = 54e6, b = 270, IPC_bw = 900 / 270 = 3.3333; NP_bw = 54e6 / 90e6 = 0.6
 *   NP_raw = 0.6 = IPC 2 / IPC_alone 3.3333 > 0.5: NP^ = 0.6, above S_k / sigma. */
static void roofline_memory_bound_cap_free(void **state)
{
    (void)state;
    struct gpu_kernel_counters c = counters(40, 843750, 1000, 100, 600, 843750, 8437500, 0);
    c.instructions = 200000;
    c.dram_bytes = 108000000;
    struct dase_estimate e;
    dase_estimate(&gpu, &c, &e);
    assert_close(e.miss_fraction, 0.5, EPS);
    assert_close(e.stall_cycles, 50000, EPS);
    assert_close(e.np_lin, 0.25, EPS);
    assert_close(e.ipc_lin, 8, EPS);
    assert_close(e.bytes_per_inst, 270, EPS);
    assert_close(e.ipc_bw, 900.0 / 270, EPS);
    assert_close(e.ipc_alone, 900.0 / 270, EPS);
    assert_close(e.np_bw, 0.6, EPS);
    assert_true(e.bw_bound);
    assert_close(e.np_raw, 0.6, EPS);
    assert_false(e.capped);
    assert_close(e.np, 0.6, EPS);
    /* Without the contention misses' bytes taken out it would be 108e6 / 90e6 = 1.2. */
}

/* The bandwidth roof is the lower one and still under S_k / sigma: the cap binds. 40 SMs,
 * I = 100000, D = 27e6 bytes (NP_bw = 0.3), R = 200000 requests queueing Q = 2e6 memory
 * cycles, I_int = 1e6 of them for others, no contention misses:
 *   X_dram = 1e6; N = 2e6 / 50000 = 40; stall = 1e6 / 40 x 2 = 50000; NP_lin = 0.25
 *   NP_bw = 27e6 / 90e6 = 0.3 > 0.25: bandwidth roof; 0.3 < 0.5: capped, NP^ = 0.5. */
static void roofline_bandwidth_roof_under_the_cap(void **state)
{
    (void)state;
    struct gpu_kernel_counters c = counters(40, 200000, 1000, 500, 500, 200000, 2000000, 1000000);
    c.instructions = 100000;
    c.dram_bytes = 27000000;
    struct dase_estimate e;
    dase_estimate(&gpu, &c, &e);
    assert_close(e.stall_cycles, 50000, EPS);
    assert_close(e.np_lin, 0.25, EPS);
    assert_close(e.np_bw, 0.3, EPS);
    assert_true(e.bw_bound);
    assert_close(e.np_raw, 0.3, EPS);
    assert_true(e.capped);
    assert_close(e.np, 0.5, EPS);
}

/* A kernel without SMs or cycles has no estimate. */
static void no_sms_no_estimate(void **state)
{
    (void)state;
    struct gpu_kernel_counters c = counters(0, 0, 0, 0, 0, 0, 0, 0);
    struct dase_estimate e;
    dase_estimate(&gpu, &c, &e);
    assert_true(isnan(e.np));
}

/* Through the registry: predict, the linear what-if, explain, and a GPU without a memory
 * clock refused. */
static void predictor_in_the_registry(void **state)
{
    (void)state;
    const struct predictor_ops *ops = predict_registry_find("dase");
    assert_non_null(ops);
    assert_false(ops->needs_private);
    char err[256] = "";
    struct predict_gpu bad = gpu;
    bad.dram_clock_mhz = 0;
    assert_null(ops->create(&bad, NULL, err, sizeof err));
    assert_non_null(strstr(err, "memory"));
    bad = gpu;
    bad.peak_gbs = 0;
    assert_null(ops->create(&bad, NULL, err, sizeof err));
    assert_non_null(strstr(err, "peak bandwidth"));

    void *st = ops->create(&gpu, NULL, err, sizeof err);
    assert_non_null(st);
    assert_true(isnan(ops->np_at(st, 0, 40)));
    struct gpu_kernel_counters c[2] = {
        counters(40, 10000, 500, 100, 150, 4000, 200000, 0),
        counters(40, 843750, 1000, 100, 600, 843750, 8437500, 0),
    };
    c[1].instructions = 200000;
    c[1].dram_bytes = 108000000;
    struct predict_input in = {.epoch_cycles = 100000, .nkernels = 2, .c = c};
    struct predict_output out;
    ops->predict(st, &in, &out);
    assert_close(out.np[0], 0.5, EPS);
    assert_close(out.np[1], 0.6, EPS); /* roofline_memory_bound_cap_free's kernel */
    /* g = 0.5 / 40 per SM: 60 SMs give 0.75; kernel 1: 0.6 / 40 x 20 = 0.3. */
    assert_close(ops->np_at(st, 0, 60), 0.75, EPS);
    assert_close(ops->np_at(st, 1, 20), 0.3, EPS);
    struct predict_text t;
    ops->explain(st, 0, &t);
    assert_true(t.n >= 8);
    int raw = 0, cap = 0;
    for (unsigned i = 0; i < t.n; i++) {
        raw |= strstr(t.line[i], "NP_raw") && strstr(t.line[i], "0.375") &&
               strstr(t.line[i], "slowdown 2.67"); /* 1 / 0.375 */
        cap |= strstr(t.line[i], "(capped)") != NULL;
    }
    assert_true(raw && cap);
    assert_string_equal(t.line[t.n - 1], "what-if: g = NP^ / S_k = 0.0125 per SM");
    ops->explain(st, 1, &t);
    int roof = 0;
    for (unsigned i = 0; i < t.n; i++)
        roof |= strstr(t.line[i], "NP_bw 0.600") && strstr(t.line[i], "bandwidth roof");
    assert_true(roof);
    /* Past the mix: no what-if, and explain says there is no prediction. */
    assert_true(isnan(ops->np_at(st, 2, 40)));
    ops->explain(st, 2, &t);
    assert_int_equal(t.n, 1);
    assert_non_null(strstr(t.line[0], "no epoch predicted yet"));
    /* A kernel that left the mix has no what-if from the epochs it ran in. */
    in.nkernels = 1;
    ops->predict(st, &in, &out);
    assert_true(isnan(ops->np_at(st, 1, 40)));
    ops->destroy(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(alone_is_the_sm_share),
        cmocka_unit_test(cache_contention_only),
        cmocka_unit_test(dram_interference_only),
        cmocka_unit_test(both_are_not_counted_twice),
        cmocka_unit_test(cap_bounds_the_slowdown),
        cmocka_unit_test(roofline_compute_bound_cap_binds),
        cmocka_unit_test(roofline_memory_bound_cap_free),
        cmocka_unit_test(roofline_bandwidth_roof_under_the_cap),
        cmocka_unit_test(no_sms_no_estimate),
        cmocka_unit_test(predictor_in_the_registry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
