/* Unit tests: split blocks and pipelined spans (gpu_set_split) — the SM phase and the memory
 * phase of each block on two threads, the memory side blocks ahead of the SMs where the LLC's
 * latency lets it, give exactly what one thread running them one after the other gives. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "corun/diag.h"
#include "corun/gpu.h"
#include "corun/kernel.h"
#include "corun/preset.h"
#include "testutil.h"

struct split_case {
    const char *gpu;
    const char *kernels[TEST_MAX_KERNELS + 1];
    const char *scheduler; /* DRAM scheduler; NULL: the preset's */
    uint64_t prio;         /* ASM's priority epochs (cycles; 0: off) */
    unsigned llc_latency;  /* cycles; 0: the preset's */
};

enum split_mode { ONE_THREAD, SPLIT, TOGGLED };

/* Runs `cycles`; TOGGLED turns the split on and off between spans, as a session's governor
 * may between the chunks of an epoch. */
static void run_span(struct gpu *g, uint64_t cycles, enum split_mode mode, bool *on)
{
    if (mode == TOGGLED) {
        *on = !*on;
        assert_true(gpu_set_split(g, *on));
    }
    gpu_run(g, cycles);
}

/* Runs the case in uneven spans with a counter reset and a repartition by draining between,
 * in the mode given; fills out[0] (before the repartition) and out[1] (at the end). */
static void run_case(const struct split_case *c, enum split_mode mode, struct test_outcome out[2])
{
    struct kernel_profile p[TEST_MAX_KERNELS];
    unsigned n;
    struct gpu_config cfg;
    test_preset(c->gpu, &cfg);
    if (c->llc_latency)
        cfg.llc.latency_cycles = c->llc_latency;
    struct gpu *g = test_gpu_of_config(&cfg, c->kernels, p, &n);
    bool on = mode == SPLIT;
    assert_true(gpu_set_split(g, on));
    if (c->scheduler)
        assert_int_equal(gpu_set_dram_scheduler(g, c->scheduler), 0);
    if (c->prio)
        gpu_set_priority_epochs(g, c->prio);
    run_span(g, 7001, mode, &on);
    gpu_reset_counters(g);
    run_span(g, 13003, mode, &on);
    run_span(g, 9, mode, &on);
    test_snapshot(g, n, &out[0]);
    test_repartition_thirds(g,
                            GPU_SWITCH_DRAIN); /* the first kernel takes a third of the others' */
    run_span(g, 16384, mode, &on);
    test_snapshot(g, n, &out[1]);
    gpu_delete(g);
    for (unsigned k = 0; k < n; k++)
        kernel_profile_done(&p[k]);
}

static void split_equals_one_thread(void **state)
{
    (void)state;
    const struct split_case cases[] = {
        {"hbm80", {"lbm", "hotspot"}, NULL, 0, 0},
        {"hbm80", {"bino", "dxtc", "euler3d", "fwt"}, NULL, 0, 0},
        {"hbm80", {"pvc", "srad"}, "bw-app", 0, 0},
        {"hbm80", {"stream", "pf"}, NULL, 2000, 0},
        {"gddr5_40", {"pf", "euler3d"}, NULL, 0, 0},
        {"k40", {"bfs", "mri-q"}, NULL, 0, 0},
        {"smqos24", {"2dconv", "sc"}, NULL, 0, 0},
        /* A request ready 37 cycles after it was sent at the soonest, four blocks: too few
         * for the memory side to run ahead (gpu_split_span), so blocks split one by one. */
        {"hbm80", {"lbm", "hotspot"}, NULL, 0, 28},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct test_outcome one[2], two[2], toggled[2];
        run_case(&cases[i], ONE_THREAD, one);
        run_case(&cases[i], SPLIT, two);
        run_case(&cases[i], TOGGLED, toggled);
        assert_true(one[1].k[0].instructions > 0 && one[1].k[0].l2_accesses > 0);
        assert_true(one[1].ch[0].c.row_accesses > 0);
        for (unsigned s = 0; s < 2; s++) {
            assert_memory_equal(&one[s], &two[s], sizeof(one[s]));
            assert_memory_equal(&one[s], &toggled[s], sizeof(one[s]));
        }
    }
}

/* When a request could be ready at its slice within the block it was sent in (an LLC latency
 * shorter than the crossbar's reply), the slices would have to see it there: no split. */
static void split_refused_for_a_quick_llc(void **state)
{
    (void)state;
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    cfg.noc_latency_cycles = 0; /* blocks of 4 cycles: a line's four flits */
    const struct kernel_profile *ps[1] = {kernel_builtin_find("stream")};
    assert_non_null(ps[0]);
    char err[256];
    for (unsigned lat = 1; lat <= 4; lat++) {
        cfg.llc.latency_cycles = lat;
        struct gpu *g = gpu_new(&cfg, ps, 1, 1, err, sizeof err);
        assert_non_null(g);
        assert_int_equal(gpu_set_split(g, true), lat >= 3); /* 0 + 1 flit + lat >= 4 */
        assert_true(gpu_set_split(g, false));
        gpu_delete(g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(split_equals_one_thread),
        cmocka_unit_test(split_refused_for_a_quick_llc),
    };
    return cmocka_run_group_tests_name("gpu_split", tests, NULL, NULL);
}
