/* Unit tests: the order-free rules (gpu.order_free) — a block's SMs meet the crossbar's slice
 * ports and the TB dispatcher only at its end, so the results do not depend on the order the
 * SMs are stepped in, which the ordered rules' do. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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

struct order_case {
    const char *gpu;
    const char *kernels[TEST_MAX_KERNELS + 1];
    enum gpu_switch_mode how; /* the repartition halfway */
    uint64_t prio;            /* ASM's priority epochs (cycles; 0: off) */
};

/* Runs the case with the SMs' rotation moving by `step` a block, order-free or not, each
 * block's SMs stepped last first (reverse, order-free only) or not, on `threads` threads
 * (0: a different count for each span, as a session's governor changes it between chunks);
 * a repartition halfway. Fills out[0] (before it) and out[1] (at the end). */
static void run_case(const struct order_case *c, bool order_free, unsigned step, bool reverse,
                     unsigned threads, struct test_outcome out[2])
{
    struct kernel_profile p[TEST_MAX_KERNELS];
    unsigned n;
    struct gpu *g = test_gpu_of(c->gpu, order_free, c->kernels, p, &n);
    gpu_set_sm_rotation_step(g, step);
    if (reverse)
        gpu_set_reverse_stepping(g, true);
    if (threads)
        assert_int_equal(gpu_set_threads(g, threads), order_free ? threads : threads > 1 ? 2 : 1);
    if (c->prio)
        gpu_set_priority_epochs(g, c->prio);
    if (!threads)
        assert_int_equal(gpu_set_threads(g, 3), 3);
    gpu_run(g, 7001);
    gpu_reset_counters(g);
    if (!threads)
        assert_int_equal(gpu_set_threads(g, 1), 1);
    gpu_run(g, 13003);
    test_snapshot(g, n, &out[0]);
    test_repartition_thirds(g, c->how); /* the first kernel takes a third of the others' */
    if (!threads)
        assert_int_equal(gpu_set_threads(g, 2), 2);
    gpu_run(g, 16384);
    test_snapshot(g, n, &out[1]);
    gpu_delete(g);
    for (unsigned k = 0; k < n; k++)
        kernel_profile_done(&p[k]);
}

static const struct order_case cases[] = {
    {"hbm80", {"lbm", "hotspot"}, GPU_SWITCH_DRAIN, 0},
    {"hbm80", {"bino", "dxtc", "euler3d", "fwt"}, GPU_SWITCH_CONTEXT, 0},
    {"hbm80", {"stream", "pf"}, GPU_SWITCH_CONTEXT, 2000},
    {"k40", {"bfs", "pvc"}, GPU_SWITCH_DRAIN, 0}, /* legacy address streams */
    {"smqos24", {"2dconv", "sc"}, GPU_SWITCH_CONTEXT, 0},
};

/* The order-free run of case i on one thread, made once for both tests below. */
static const struct test_outcome *order_free_base(size_t i)
{
    static struct test_outcome base[sizeof(cases) / sizeof(cases[0])][2];
    static bool made[sizeof(cases) / sizeof(cases[0])];
    if (!made[i]) {
        run_case(&cases[i], true, 1, false, 1, base[i]);
        made[i] = true;
    }
    return base[i];
}

/* Order-free: the same results whichever order the SMs are stepped in, and on 2, 3 or 4
 * threads (the SMs shared out among them, the memory side on one beside them), or on a
 * number that changes between the spans. */
static void order_free_results_do_not_depend_on_the_order(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct test_outcome *base = order_free_base(i);
        struct test_outcome other[2];
        assert_true(base[1].k[0].instructions > 0 && base[1].k[0].l2_accesses > 0);
        assert_true(base[1].k[1].instructions > 0 && base[1].k[1].l2_accesses > 0);
        run_case(&cases[i], true, 1, true, 1, other);
        for (unsigned s = 0; s < 2; s++)
            assert_memory_equal(&base[s], &other[s], sizeof(base[s]));
        for (unsigned threads = 0; threads <= 4; threads += threads ? 1 : 2) {
            run_case(&cases[i], true, 1, false, threads, other);
            for (unsigned s = 0; s < 2; s++)
                assert_memory_equal(&base[s], &other[s], sizeof(base[s]));
        }
    }
}

/* The ordered rules do depend on it (so the test above could fail), and order-free is a
 * rule of its own: it gives other results than the ordered one. */
static void ordered_results_depend_on_the_order(void **state)
{
    (void)state;
    unsigned moved = 0, differ = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct test_outcome base[2], other[2];
        const struct test_outcome *free_ = order_free_base(i);
        run_case(&cases[i], false, 1, false, 1, base);
        run_case(&cases[i], false, 37, false, 1, other);
        moved += memcmp(&base[1], &other[1], sizeof(base[1])) != 0;
        differ += memcmp(&base[1], &free_[1], sizeof(base[1])) != 0;
    }
    assert_true(moved >= 3);
    assert_true(differ >= 3);
}

/* The order-free rules against what any rule must give, not only against themselves: short
 * grids (700 TBs, more than their SMs hold at once) of a memory-bound and a compute-bound
 * kernel on hbm80's 80 SMs (two words of SM bits, so SMs 64-79 too), each grid completing
 * with exactly its instructions and launched again, each kernel active on the 40 SMs it
 * owns, and every one of them taking TBs as its own finish. */
static struct gpu *two_short_grids(struct kernel_profile p[2])
{
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    cfg.order_free = true;
    p[0] = *kernel_builtin_find("stream");
    p[1] = *kernel_builtin_find("compute");
    p[0].tbs = p[1].tbs = 700;
    p[0].insts_per_warp = 30;
    p[1].insts_per_warp = 100;
    const struct kernel_profile *ps[2] = {&p[0], &p[1]};
    char err[256];
    struct gpu *g = gpu_new(&cfg, ps, 2, 3, err, sizeof err);
    if (!g)
        fail_msg("%s", err);
    int own[80];
    gpu_partition_even(80, 2, own);
    assert_int_equal(gpu_set_partition(g, own, 80, GPU_SWITCH_DRAIN, err, sizeof err), 0);
    assert_int_equal(gpu_set_threads(g, 2), 2);
    return g;
}

static void order_free_grids_complete_whole(void **state)
{
    (void)state;
    struct kernel_profile p[2];
    struct gpu *g = two_short_grids(p);
    gpu_run(g, 40000);
    for (unsigned k = 0; k < 2; k++) {
        struct gpu_kernel_counters c;
        gpu_kernel_counters(g, k, &c);
        if (c.launches < 2)
            fail_msg("kernel %u: %llu launches in 40,000 cycles", k,
                     (unsigned long long)c.launches);
        assert_int_equal(c.first_launch_instructions,
                         (uint64_t)p[k].tbs * p[k].warps_per_tb * p[k].insts_per_warp);
        assert_true(c.tbs_finished >= p[k].tbs);
        assert_int_equal(c.owned_sms, 40);
        assert_int_equal(c.active_sms, 40);
    }
    /* Each SM takes TBs as its own finish, while its grid has any left: a kernel's SMs
     * finish about as many (48-58 and 63-75 when written). */
    for (unsigned k = 0; k < 2; k++) {
        uint64_t lo = UINT64_MAX, hi = 0;
        for (unsigned i = 40 * k; i < 40 * (k + 1); i++) {
            uint64_t n = gpu_sm_tbs_finished(g, i);
            lo = n < lo ? n : lo;
            hi = n > hi ? n : hi;
        }
        if (2 * lo < hi)
            fail_msg("kernel %u: its SMs finished %llu to %llu TBs", k, (unsigned long long)lo,
                     (unsigned long long)hi);
    }
    gpu_delete(g);
}

/* The same grids, 20 SMs changing hands by context switch mid-grid (SMs 40-59, in the first
 * word of SM bits): they save the second kernel's TBs at a block's end and run the first's. */
static void order_free_context_switch_saves(void **state)
{
    (void)state;
    struct kernel_profile p[2];
    struct gpu *g = two_short_grids(p);
    gpu_run(g, 3000);
    gpu_reset_counters(g);
    int own[80];
    for (unsigned i = 0; i < 80; i++)
        own[i] = i < 60 ? 0 : 1;
    char err[256];
    assert_int_equal(gpu_set_partition(g, own, 80, GPU_SWITCH_CONTEXT, err, sizeof err), 0);
    gpu_run(g, 8000);
    struct gpu_kernel_counters c0, c1;
    gpu_kernel_counters(g, 0, &c0);
    gpu_kernel_counters(g, 1, &c1);
    assert_int_equal(c0.active_sms, 60);
    assert_int_equal(c1.active_sms, 20);
    assert_true(c1.tbs_saved >= 20);
    gpu_delete(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(order_free_results_do_not_depend_on_the_order),
        cmocka_unit_test(ordered_results_depend_on_the_order),
        cmocka_unit_test(order_free_grids_complete_whole),
        cmocka_unit_test(order_free_context_switch_saves),
    };
    return cmocka_run_group_tests_name("gpu_order", tests, NULL, NULL);
}
