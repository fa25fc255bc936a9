/* Unit tests: what the GPU reports (gpu_counters.c) — per kernel, for the system, per DRAM
 * channel and per SM: the raw counts add up over the SMs and channels, and every derived
 * figure (IPC, RBH, bandwidth, energies) is the formula the reports promise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "assert_close.h"
#include "corun/gpu.h"
#include "corun/kernel.h"
#include "testutil.h"

static void counters_add_up(void **state)
{
    (void)state;
    struct gpu *g = test_hbm80_solo(test_builtin("stream"), 20);
    gpu_run(g, 3000);
    gpu_reset_counters(g);
    gpu_run(g, 20000);
    struct gpu_kernel_counters c;
    gpu_kernel_counters(g, 0, &c);
    struct gpu_system_counters s;
    gpu_system_counters(g, &s);
    assert_int_equal(c.cycles, 20000);
    assert_true(c.sms > 19.99 && c.sms < 20.01);
    assert_int_equal(c.active_sms, 20);
    assert_int_equal(c.owned_sms, 20);
    assert_int_equal(s.gated_sm_cycles, 60ull * 20000);
    assert_int_equal(s.idle_sm_cycles, 0);
    assert_true(c.l1d_misses <= c.l1d_accesses && c.l2_misses <= c.l2_accesses);
    assert_true(c.row_hits <= c.row_accesses);
    assert_true(c.dram_bytes == 128 * c.dram_requests);
    assert_true(c.bandwidth_gbs > 0 && c.bandwidth_util < 1);
    /* static energy of exactly 20 SMs (gated ones cost nothing) */
    double secs = 20000 / 1.4e9;
    assert_true(c.energy_static_j > 0.999 * 20 * secs && c.energy_static_j < 1.001 * 20 * secs);
    assert_true(s.energy_j >= c.energy_j);
    double busy = 0;
    for (unsigned ch = 0; ch < 32; ch++) {
        struct gpu_channel_counters cc;
        gpu_channel_counters(g, ch, &cc);
        assert_true(cc.utilization >= 0 && cc.utilization <= 1);
        busy += cc.utilization;
    }
    assert_true(busy / 32 > 0.5 * c.bandwidth_util && busy / 32 < 1.5 * c.bandwidth_util);
    gpu_delete(g);
}

/* Every derived counter worked out again from the raw ones, by the formulas the reports
 * promise: SM 0 idle (the first SM any loop visits), SMs 1-20 running stream, the rest gated;
 * counters reset at cycle 3,000 and read at 23,000, and once more right after a reset. Asking
 * past the ends gives zeros. */
static void derived_counters_by_hand(void **state)
{
    (void)state;
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    const struct kernel_profile *p = test_builtin("stream");
    char err[256];
    struct gpu *g = gpu_new(&cfg, &p, 1, 5, err, sizeof err);
    assert_non_null(g);
    int own[80];
    for (int i = 0; i < 80; i++)
        own[i] = i == 0 ? GPU_SM_IDLE : i <= 20 ? 0 : GPU_SM_GATED;
    assert_int_equal(gpu_set_partition(g, own, 80, GPU_SWITCH_DRAIN, err, sizeof err), 0);
    gpu_run(g, 3000);
    gpu_reset_counters(g);
    struct gpu_kernel_counters c;
    struct gpu_system_counters s;
    gpu_kernel_counters(g, 0, &c); /* nothing counted yet: no rate divides by zero */
    assert_true(c.cycles == 0 && c.ipc == 0 && c.sms == 0 && c.rbh == 0);
    assert_true(c.bandwidth_gbs == 0 && c.bandwidth_util == 0);
    gpu_run(g, 20000);
    gpu_kernel_counters(g, 0, &c);
    gpu_system_counters(g, &s);
    const double secs = 20000 / (cfg.core_clock_mhz * 1e6);
    assert_int_equal(c.cycles, 20000);
    assert_int_equal(s.cycles, 20000);
    assert_true(c.instructions > 0 && c.row_accesses > c.row_hits && c.row_hits > 0);
    assert_close(c.ipc, (double)c.instructions / 20000, 1e-12);
    assert_close(c.rbh, (double)c.row_hits / (double)c.row_accesses, 1e-12);
    assert_close(c.bandwidth_gbs, (double)c.dram_bytes / secs / 1e9, 1e-9);
    assert_close(c.bandwidth_util, c.bandwidth_gbs / gpu_config_peak_gbs(&cfg), 1e-12);
    assert_close(c.energy_static_j, cfg.sm_static_watts * 20 * secs, 1e-12);
    assert_close(c.energy_dynamic_j, (double)c.instructions * cfg.inst_energy_nj * 1e-9, 1e-15);
    assert_close(
        c.energy_dram_j,
        ((double)c.activates * cfg.dram_activate_nj + (double)c.dram_requests * cfg.dram_burst_nj) *
            1e-9,
        1e-15);
    assert_close(c.energy_j, c.energy_static_j + c.energy_dynamic_j + c.energy_dram_j, 1e-15);
    assert_int_equal(s.idle_sm_cycles, 20000);
    assert_int_equal(s.gated_sm_cycles, 59ull * 20000);
    assert_close(s.energy_j, cfg.sm_static_watts * secs + c.energy_j, 1e-15);

    struct gpu_kernel_counters none, zero;
    memset(&zero, 0, sizeof zero);
    memset(&none, 0xff, sizeof none);
    gpu_kernel_counters(g, 1, &none);
    assert_memory_equal(&none, &zero, sizeof zero);
    struct gpu_channel_counters ch, chz;
    memset(&chz, 0, sizeof chz);
    memset(&ch, 0xff, sizeof ch);
    gpu_channel_counters(g, cfg.dram.channels, &ch);
    assert_memory_equal(&ch, &chz, sizeof chz);
    assert_int_equal(gpu_kernel_instructions_total(g, 1), 0);
    assert_int_equal(gpu_sm_tbs_finished(g, 80), 0);
    assert_int_equal(gpu_sm_resident_tbs(g, 80), 0);
    assert_int_equal(gpu_sm_kernel_tbs(g, 80, 0), 0);
    assert_int_equal(gpu_sm_running(g, 80), GPU_SM_IDLE);
    gpu_delete(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counters_add_up),
        cmocka_unit_test(derived_counters_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
