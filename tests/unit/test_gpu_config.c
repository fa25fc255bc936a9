/* Unit tests: what the GPU refuses (gpu_config.c, gpu_set_partition) — configurations,
 * profiles and partitions, with the message that says why, and the edges of every bound: what
 * lies on it accepted, a step past it refused; a refused partition changes nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "corun/gpu.h"
#include "corun/kernel.h"
#include "corun/sm.h"
#include "testutil.h"

static void rejects_bad_configs_and_profiles(void **state)
{
    (void)state;
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    char err[256];
    const struct kernel_profile *ps[1] = {test_builtin("stream")};
    cfg.warps_per_sm = 65;
    assert_null(gpu_new(&cfg, ps, 1, 1, err, sizeof err));
    assert_non_null(strstr(err, "warps_per_sm"));
    test_preset("hbm80", &cfg);
    cfg.dram.request_bytes = 64;
    assert_null(gpu_new(&cfg, ps, 1, 1, err, sizeof err));
    assert_non_null(strstr(err, "request_bytes"));
    test_preset("hbm80", &cfg);
    struct kernel_profile p = *test_builtin("stream");
    p.mlp = 0;
    ps[0] = &p;
    assert_null(gpu_new(&cfg, ps, 1, 1, err, sizeof err));
    assert_non_null(strstr(err, "mlp"));
    p = *test_builtin("stream");
    p.dep_latency = 1000;
    assert_null(gpu_new(&cfg, ps, 1, 1, err, sizeof err));
    assert_non_null(strstr(err, "dep_latency"));
    p = *test_builtin("stream");
    p.mem_fraction = 0.9;
    p.const_fraction = 0.2;
    assert_null(gpu_new(&cfg, ps, 1, 1, err, sizeof err));
    assert_non_null(strstr(err, "const_fraction"));
    ps[0] = test_builtin("stream");
    assert_null(gpu_new(&cfg, ps, 0, 1, err, sizeof err));
}

/* gpu_new with cfg and one profile p: true when accepted, else err names why. */
static bool accepted(const struct gpu_config *cfg, const struct kernel_profile *p, char *err,
                     size_t errlen)
{
    struct gpu *g = gpu_new(cfg, &p, 1, 1, err, errlen);
    gpu_delete(g);
    return g != NULL;
}

/* The checks' edges: what lies on a bound is accepted, a step past it refused; a core clock of
 * 0 is refused though the DRAM's is fine; a phase's settings are checked as the kernel's own. */
static void config_and_profile_edges(void **state)
{
    (void)state;
    struct gpu_config cfg;
    char err[256];
    struct kernel_profile p = *test_builtin("stream");
    test_preset("hbm80", &cfg);
    cfg.core_clock_mhz = 0;
    assert_false(accepted(&cfg, &p, err, sizeof err));
    assert_non_null(strstr(err, "core_clock_mhz"));
    test_preset("hbm80", &cfg);
    cfg.context_switch_bytes_per_cycle = 1;
    assert_true(accepted(&cfg, &p, err, sizeof err));
    cfg.context_switch_bytes_per_cycle = 0;
    assert_false(accepted(&cfg, &p, err, sizeof err));
    test_preset("hbm80", &cfg);
    p.warps_per_tb = cfg.warps_per_sm;
    p.tbs_per_sm = 1;
    p.regs_per_thread = 16;
    assert_true(accepted(&cfg, &p, err, sizeof err));
    p.warps_per_tb++;
    assert_false(accepted(&cfg, &p, err, sizeof err));
    assert_non_null(strstr(err, "warps_per_tb"));
    p = *test_builtin("stream");
    p.dep_latency = SM_MAX_DEP_LATENCY;
    assert_true(accepted(&cfg, &p, err, sizeof err));
    p.dep_latency++;
    assert_false(accepted(&cfg, &p, err, sizeof err));
    p = *test_builtin("stream");
    p.store_fraction = 1.5;
    assert_false(accepted(&cfg, &p, err, sizeof err));
    assert_non_null(strstr(err, "store_fraction"));
    p = *test_builtin("stream");
    p.pattern = KERNEL_PATTERN_STRIDED;
    p.stride_lines = 1;
    assert_true(accepted(&cfg, &p, err, sizeof err));
    p.stride_lines = 0;
    assert_false(accepted(&cfg, &p, err, sizeof err));
    assert_non_null(strstr(err, "stride_lines"));
    p = *test_builtin("stream");
    p.nphases = 2;
    p.phase[1].nsets = 1;
    p.phase[1].set[0] =
        (struct kernel_phase_set){offsetof(struct kernel_profile, mlp), sizeof(p.mlp), 0};
    assert_false(accepted(&cfg, &p, err, sizeof err));
    assert_non_null(strstr(err, "mlp"));
    assert_non_null(strstr(err, "(in phase 2)"));
}

static void rejects_bad_partitions(void **state)
{
    (void)state;
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    const struct kernel_profile *ps[2] = {test_builtin("stream"), test_builtin("compute")};
    char err[256];
    struct gpu *g = gpu_new(&cfg, ps, 2, 1, err, sizeof err);
    assert_non_null(g);
    gpu_set_dram_checking(g, true);
    int own[81];
    gpu_partition_even(80, 2, own);
    assert_int_equal(gpu_set_partition(g, own, 79, GPU_SWITCH_DRAIN, err, sizeof err), -1);
    assert_non_null(strstr(err, "80 SMs"));
    own[7] = 2;
    assert_int_equal(gpu_set_partition(g, own, 80, GPU_SWITCH_DRAIN, err, sizeof err), -1);
    assert_non_null(strstr(err, "SM 7"));
    own[7] = -3;
    assert_int_equal(gpu_set_partition(g, own, 80, GPU_SWITCH_DRAIN, err, sizeof err), -1);
    own[7] = GPU_SM_GATED;
    assert_int_equal(gpu_set_partition(g, own, 80, (enum gpu_switch_mode)9, err, sizeof err), -1);
    /* nothing changed by the failures: every SM is still idle */
    int cur[80];
    gpu_get_partition(g, cur);
    for (int i = 0; i < 80; i++)
        assert_int_equal(cur[i], GPU_SM_IDLE);
    assert_int_equal(gpu_set_partition(g, own, 80, GPU_SWITCH_DRAIN, err, sizeof err), 0);
    gpu_get_partition(g, cur);
    assert_int_equal(cur[7], GPU_SM_GATED);
    assert_int_equal(cur[0], 0);
    assert_int_equal(cur[79], 1);
    gpu_delete(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rejects_bad_configs_and_profiles),
        cmocka_unit_test(config_and_profile_edges),
        cmocka_unit_test(rejects_bad_partitions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
