/* Unit tests: a running GPU's mix changes — kernels joining (gpu_add_kernel) and leaving
 * (gpu_retire_kernel) while the others run on, with stable indices and unchanged results for
 * the kernels the change does not touch. */
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
#include "corun/kstate.h"
#include "testutil.h"

#define SMS      80 /* hbm80 */
#define CHANNELS 32
#define WARM     3000
#define RUN      15000

static void hbm80(struct gpu_config *c)
{
    test_preset("hbm80", c);
    assert_int_equal(c->sms, SMS);
    assert_int_equal(c->dram.channels, CHANNELS);
}

/* A cache-friendly kernel whose reuse window (64 KB, 512 lines) is far below cachefit's
 * (1 MB, 8192 lines): its SMs' reuse histories are in active use, and smaller than a
 * cachefit joining the mix needs. */
static struct kernel_profile small_window(void)
{
    struct kernel_profile p = *test_builtin("cachefit");
    p.name = "cachefit64k";
    p.reuse_window_bytes = 64u << 10;
    return p;
}

static struct gpu *make_gpu(const struct kernel_profile *const *ps, unsigned n, uint64_t seed,
                            const char *sched)
{
    struct gpu_config cfg;
    hbm80(&cfg);
    char err[256];
    struct gpu *g = gpu_new(&cfg, ps, n, seed, err, sizeof err);
    assert_non_null(g);
    gpu_set_dram_checking(g, true);
    if (sched)
        assert_int_equal(gpu_set_dram_scheduler(g, sched), 0);
    return g;
}

/* SMs [0, a) to kernel 0, [a, a + b) to kernel 1, the rest to kernel 2 (or idle when c < 0). */
static void split(int *own, unsigned a, unsigned b, int c)
{
    for (unsigned i = 0; i < SMS; i++)
        own[i] = i < a ? 0 : i < a + b ? 1 : c;
}

static void set_partition(struct gpu *g, const int *own, enum gpu_switch_mode mode)
{
    char err[256];
    int rc = gpu_set_partition(g, own, SMS, mode, err, sizeof err);
    if (rc)
        fail_msg("gpu_set_partition: %s", err);
}

static int add(struct gpu *g, const struct kernel_profile *p)
{
    char err[256];
    int k = gpu_add_kernel(g, p, err, sizeof err);
    if (k < 0)
        fail_msg("gpu_add_kernel: %s", err);
    return k;
}

/* Everything a GPU counts, for comparing two runs. */
struct snapshot {
    struct gpu_kernel_counters k[3];
    struct gpu_system_counters sys;
    struct gpu_channel_counters ch[CHANNELS];
    uint64_t sm_tbs[SMS];
};

static void snap(const struct gpu *g, unsigned nk, struct snapshot *s)
{
    memset(s, 0, sizeof(*s));
    for (unsigned k = 0; k < nk; k++)
        gpu_kernel_counters(g, k, &s->k[k]);
    gpu_system_counters(g, &s->sys);
    for (unsigned c = 0; c < CHANNELS; c++)
        gpu_channel_counters(g, c, &s->ch[c]);
    for (unsigned i = 0; i < SMS; i++)
        s->sm_tbs[i] = gpu_sm_tbs_finished(g, i);
}

static void assert_zero_counters(const struct gpu_kernel_counters *c)
{
    assert_int_equal(c->instructions, 0);
    assert_int_equal(c->instructions_total, 0);
    assert_int_equal(c->l1d_accesses + c->l1c_accesses + c->l2_accesses, 0);
    assert_int_equal(c->dram_requests + c->row_accesses + c->dram_bytes, 0);
    assert_int_equal(c->dram_queue_cycles + c->dram_interference_cycles, 0);
    assert_int_equal(c->tbs_finished + c->tbs_saved + c->tbs_restored + c->launches, 0);
    assert_int_equal(c->atd_accesses + c->prio_cycles + c->prio_l2_accesses, 0);
    assert_int_equal(c->active_sms + c->owned_sms, 0);
    assert_true(c->sms == 0 && c->energy_j == 0);
}

/* ---- 1. a kernel that joins without SMs changes nothing ---- */

/* GPU(A, B) run WARM + RUN cycles, with C (a larger reuse window than A's and B's, so every SM's
 * history grows while A's SMs use theirs) added at cycle WARM when add_c; A and B always own
 * half the SMs each, C none. */
static void run_ab(const char *sched, bool add_c, struct snapshot *out)
{
    struct kernel_profile a = small_window();
    const struct kernel_profile *ps[2] = {&a, test_builtin("stream")};
    struct gpu *g = make_gpu(ps, 2, 11, sched);
    int own[SMS];
    gpu_partition_even(SMS, 2, own);
    set_partition(g, own, GPU_SWITCH_DRAIN);
    gpu_run(g, WARM);
    if (add_c) {
        assert_int_equal(add(g, test_builtin("cachefit")), 2);
        assert_int_equal(gpu_kernels(g), 3);
    }
    set_partition(g, own, GPU_SWITCH_DRAIN); /* as a mix change at an epoch boundary does */
    gpu_reset_counters(g);
    gpu_run(g, RUN);
    snap(g, 2, out);
    if (add_c) {
        struct gpu_kernel_counters c;
        gpu_kernel_counters(g, 2, &c);
        assert_zero_counters(&c);
    }
    gpu_delete(g);
}

static void add_without_sms_changes_nothing(const char *sched)
{
    struct snapshot before, after;
    run_ab(sched, false, &before);
    run_ab(sched, true, &after);
    assert_true(before.k[0].l1d_accesses > 0 && before.k[1].dram_requests > 0);
    assert_memory_equal(&before, &after, sizeof(before));
}

static void add_without_sms_frfcfs(void **state)
{
    (void)state;
    add_without_sms_changes_nothing(NULL);
}

/* BW-App ranks every application by attained bandwidth: C, which queues nothing, ranks first
 * and pushes A's and B's ranks up by one, but their order, and so every decision, stays. */
static void add_without_sms_bwapp(void **state)
{
    (void)state;
    add_without_sms_changes_nothing("bw-app");
}

/* ---- 2. an added kernel runs like one gpu_new built ---- */

/* GPU(A, B) plus C added at cycle WARM (add_late), or GPU(A, B, C) from gpu_new with C idle
 * until then; from WARM on C owns SMs 0-19 (SM 0 among them: the first every loop over the
 * SMs visits), taken from A and B by context switches, A SMs 20-49 and B 50-79. */
static void run_abc(const struct kernel_profile *c, bool add_late, uint64_t seed,
                    struct snapshot *out)
{
    struct kernel_profile a = small_window();
    const struct kernel_profile *ps[3] = {&a, test_builtin("stream"), c};
    struct gpu *g = make_gpu(ps, add_late ? 2 : 3, seed, NULL);
    int own[SMS];
    split(own, 40, 40, GPU_SM_IDLE);
    set_partition(g, own, GPU_SWITCH_DRAIN);
    gpu_run(g, WARM);
    gpu_reset_counters(g);
    if (add_late) {
        assert_int_equal(add(g, c), 2);
        struct gpu_kernel_counters z;
        gpu_kernel_counters(g, 2, &z);
        assert_zero_counters(&z);
        assert_int_equal(z.cycles, 0);
    }
    for (unsigned i = 0; i < SMS; i++)
        own[i] = i < 20 ? 2 : i < 50 ? 0 : 1;
    set_partition(g, own, GPU_SWITCH_CONTEXT);
    gpu_run(g, RUN);
    snap(g, 3, out);
    gpu_delete(g);
}

static void added_kernel_runs(void **state)
{
    (void)state;
    struct snapshot s[3];
    run_abc(test_builtin("stream"), true, 5, &s[0]);
    run_abc(test_builtin("stream"), true, 5, &s[1]);
    run_abc(test_builtin("stream"), true, 6, &s[2]);
    const struct gpu_kernel_counters *c = &s[0].k[2];
    assert_true(c->instructions > 0 && c->instructions == c->instructions_total);
    assert_true(c->l2_misses > 0 && c->dram_reads > 0 && c->dram_bytes > 0);
    assert_int_equal(c->owned_sms, 20);
    assert_true(s[0].k[0].tbs_saved > 0 && s[0].k[1].tbs_saved > 0);
    /* the same seed gives the same run; another seed another one */
    assert_memory_equal(&s[0], &s[1], sizeof(s[0]));
    assert_true(s[2].k[2].instructions != c->instructions || s[2].k[2].row_hits != c->row_hits ||
                s[2].k[0].l1d_misses != s[0].k[0].l1d_misses);
}

/* The added kernel gets the PRNG stream gpu_new would have given it at that index: the whole
 * run equals the one where gpu_new built all three and C sat idle until WARM. */
static void added_kernel_equals_built_kernel(void **state)
{
    (void)state;
    struct snapshot late, built;
    run_abc(test_builtin("stream"), true, 5, &late);
    run_abc(test_builtin("stream"), false, 5, &built);
    assert_true(late.k[2].instructions > 0);
    assert_memory_equal(&late, &built, sizeof(late));
}

/* ---- 3. a larger reuse window than the SMs were built for ---- */

/* C = cachefit needs 8192 lines of history, the SMs were built for A's 512: they grow when C
 * joins, and C's reuse then matches the gpu_new-built run (a history left at 512 lines would
 * reuse more recent lines and hit the L1 more often). */
static void larger_reuse_window(void **state)
{
    (void)state;
    struct snapshot late, built;
    run_abc(test_builtin("cachefit"), true, 9, &late);
    run_abc(test_builtin("cachefit"), false, 9, &built);
    assert_true(late.k[2].l1d_accesses > 0 && late.k[2].l2_accesses > 0);
    assert_memory_equal(&late, &built, sizeof(late));
}

/* kstate_hist_grow keeps the lines and their recency order, wrapped ring or not. */
static void history_grows_in_order(void **state)
{
    (void)state;
    for (unsigned pushed = 0; pushed <= 11; pushed++) {
        struct kstate_hist h;
        kstate_hist_init(&h, 4);
        for (unsigned i = 0; i < pushed; i++) { /* as kstate_next_line appends */
            h.line[h.pos] = 100 + i;
            h.pos = h.pos + 1 < h.cap ? h.pos + 1 : 0;
            if (h.count < h.cap)
                h.count++;
        }
        kstate_hist_grow(&h, 10);
        assert_int_equal(h.cap, 10);
        assert_int_equal(h.count, pushed < 4 ? pushed : 4);
        for (unsigned back = 1; back <= h.count; back++) {
            unsigned i = h.pos >= back ? h.pos - back : h.pos + h.cap - back;
            assert_int_equal(h.line[i], 100 + pushed - back);
        }
        kstate_hist_grow(&h, 3); /* never shrinks */
        assert_int_equal(h.cap, 10);
        kstate_hist_done(&h);
    }
}

/* ---- 4. retiring ---- */

static void retire_refusals_and_drain(void **state)
{
    (void)state;
    const struct kernel_profile *ps[2] = {test_builtin("compute"), test_builtin("stream")};
    struct gpu *g = make_gpu(ps, 2, 3, NULL);
    struct kernel_profile r = *test_builtin("random");
    r.insts_per_warp = 100; /* TBs short enough to drain within the test */
    assert_int_equal(add(g, &r), 2);
    int own[SMS];
    split(own, 30, 30, 2);
    set_partition(g, own, GPU_SWITCH_DRAIN);
    gpu_run(g, 4000);
    char err[256] = "";
    assert_int_equal(gpu_retire_kernel(g, 2, err, sizeof err), -1);
    assert_non_null(strstr(err, "owns 20 SMs"));
    assert_non_null(strstr(err, "gpu_set_partition"));
    assert_false(gpu_kernel_retired(g, 2));
    assert_int_equal(gpu_retire_kernel(g, 3, err, sizeof err), -1);
    assert_non_null(strstr(err, "kernel 3"));

    /* C's SMs go to A; its TBs drain there */
    split(own, 30, 30, 0);
    set_partition(g, own, GPU_SWITCH_DRAIN);
    assert_int_equal(gpu_retire_kernel(g, 2, err, sizeof err), 0);
    assert_true(gpu_kernel_retired(g, 2));
    assert_false(gpu_kernel_retired(g, 1) || gpu_kernel_retired(g, 9));
    assert_int_equal(gpu_retire_kernel(g, 2, err, sizeof err), -1);
    assert_non_null(strstr(err, "retired already"));
    assert_int_equal(gpu_kernels(g), 3);

    /* a partition giving it an SM is refused, and nothing changes */
    int bad[SMS], cur[SMS];
    memcpy(bad, own, sizeof bad);
    bad[65] = 2;
    assert_int_equal(gpu_set_partition(g, bad, SMS, GPU_SWITCH_DRAIN, err, sizeof err), -1);
    assert_non_null(strstr(err, "kernel 2 (random)"));
    assert_non_null(strstr(err, "retired"));
    gpu_get_partition(g, cur);
    assert_memory_equal(cur, own, sizeof cur);

    bool held = false;
    for (unsigned i = 0; i < SMS; i++)
        held |= gpu_sm_running(g, i) == 2;
    assert_true(held); /* its TBs were resident when the SMs changed hands */
    unsigned steps = 0;
    for (;; steps++) {
        assert_true(steps < 100);
        bool still = false;
        for (unsigned i = 0; i < SMS; i++)
            still |= gpu_sm_running(g, i) == 2;
        if (!still)
            break;
        gpu_run(g, 500);
    }
    uint64_t done = gpu_kernel_instructions_total(g, 2);
    struct gpu_kernel_counters c, a;
    gpu_kernel_counters(g, 2, &c); /* no reset yet: every TB since the start */
    assert_true(c.tbs_finished > 0);
    assert_int_equal(done, c.tbs_finished * r.warps_per_tb * r.insts_per_warp); /* all whole */
    gpu_reset_counters(g);
    gpu_run(g, 10000);
    gpu_kernel_counters(g, 2, &c);
    gpu_kernel_counters(g, 0, &a);
    assert_int_equal(gpu_kernel_instructions_total(g, 2), done);
    assert_int_equal(c.instructions, 0);
    assert_int_equal(c.instructions_total, done); /* its counters stay */
    assert_int_equal(c.active_sms + c.owned_sms, 0);
    assert_int_equal(a.active_sms, 50); /* A runs on C's old SMs */
    gpu_delete(g);
}

/* Context-switched TBs of a retired kernel wait in its queue and are never resumed. */
static void retired_saved_tbs_never_resume(void **state)
{
    (void)state;
    const struct kernel_profile *ps[3] = {test_builtin("compute"), test_builtin("stream"),
                                          test_builtin("cachefit")};
    struct gpu *g = make_gpu(ps, 3, 4, NULL);
    int own[SMS];
    split(own, 30, 30, 2);
    set_partition(g, own, GPU_SWITCH_DRAIN);
    gpu_run(g, 4000);
    gpu_reset_counters(g);
    split(own, 30, 30, 1); /* C's SMs to B, C's TBs saved */
    set_partition(g, own, GPU_SWITCH_CONTEXT);
    char err[256];
    assert_int_equal(gpu_retire_kernel(g, 2, err, sizeof err), 0);
    gpu_run(g, 8000);
    uint64_t total = gpu_kernel_instructions_total(g, 2);
    struct gpu_kernel_counters c;
    gpu_kernel_counters(g, 2, &c);
    assert_true(c.tbs_saved > 0);
    gpu_reset_counters(g);
    gpu_run(g, 8000);
    gpu_kernel_counters(g, 2, &c);
    assert_int_equal(c.tbs_restored, 0);
    assert_int_equal(c.instructions, 0);
    assert_int_equal(gpu_kernel_instructions_total(g, 2), total);
    gpu_delete(g);
}

/* Priority epochs skip a retired kernel, end the turn it holds when it retires, give nobody
 * the priority when every kernel is retired, and pick up a kernel that joins later. */
static void priority_epochs_skip_retired(void **state)
{
    (void)state;
    const struct kernel_profile *ps[3] = {test_builtin("stream"), test_builtin("random"),
                                          test_builtin("cachefit")};
    struct gpu *g = make_gpu(ps, 3, 2, NULL);
    int own[SMS];
    split(own, 30, 30, 2);
    set_partition(g, own, GPU_SWITCH_DRAIN);
    gpu_set_priority_epochs(g, 1000);
    assert_int_equal(gpu_priority_kernel(g), 0);
    gpu_run(g, 2500); /* turns: 0 at 0, 1 at 1000, 2 at 2000 */
    assert_int_equal(gpu_priority_kernel(g), 2);
    split(own, 40, 40, 0);
    set_partition(g, own, GPU_SWITCH_DRAIN);
    char err[256];
    assert_int_equal(gpu_retire_kernel(g, 2, err, sizeof err), 0);
    assert_int_equal(gpu_priority_kernel(g), -1); /* its turn ended */
    gpu_run(g, 499);
    assert_int_equal(gpu_priority_kernel(g), -1);
    gpu_run(g, 1); /* cycle 3000: the next turn, on time */
    assert_int_equal(gpu_priority_kernel(g), 0);
    gpu_reset_counters(g);
    unsigned seen[3] = {0};
    for (unsigned step = 0; step < 60; step++) {
        gpu_run(g, 100);
        int p = gpu_priority_kernel(g);
        assert_true(p == 0 || p == 1);
        seen[p]++;
    }
    assert_true(seen[0] >= 20 && seen[1] >= 20);
    struct gpu_kernel_counters c;
    gpu_kernel_counters(g, 2, &c);
    assert_int_equal(c.prio_cycles, 0);
    gpu_kernel_counters(g, 1, &c);
    assert_true(c.prio_cycles >= 2000);

    /* everyone retired: nobody has the priority, and the GPU still runs */
    for (unsigned i = 0; i < SMS; i++)
        own[i] = GPU_SM_IDLE;
    set_partition(g, own, GPU_SWITCH_DRAIN);
    assert_int_equal(gpu_retire_kernel(g, 0, err, sizeof err), 0);
    assert_int_equal(gpu_retire_kernel(g, 1, err, sizeof err), 0);
    own[0] = 0; /* kernel 0 is as retired as any other */
    assert_int_equal(gpu_set_partition(g, own, SMS, GPU_SWITCH_DRAIN, err, sizeof err), -1);
    assert_non_null(strstr(err, "kernel 0 (stream), which was retired"));
    own[0] = GPU_SM_IDLE;
    uint64_t t = gpu_now(g);
    gpu_run(g, 3000);
    assert_int_equal(gpu_now(g), t + 3000);
    assert_int_equal(gpu_priority_kernel(g), -1);
    /* a kernel that joins gets the next turn */
    assert_int_equal(add(g, test_builtin("stream")), 3);
    gpu_run(g, 1000);
    assert_int_equal(gpu_priority_kernel(g), 3);
    gpu_delete(g);
}

/* ---- 5. the kernel limit ---- */

static void ninth_kernel_refused(void **state)
{
    (void)state;
    const struct kernel_profile *ps[2] = {test_builtin("compute"), test_builtin("stream")};
    struct gpu *g = make_gpu(ps, 2, 1, NULL);
    char err[256];
    struct kernel_profile bad = *test_builtin("stream");
    bad.mlp = 0;
    assert_int_equal(gpu_add_kernel(g, &bad, err, sizeof err), -1);
    assert_non_null(strstr(err, "mlp"));
    assert_int_equal(gpu_kernels(g), 2);
    for (unsigned k = 2; k < GPU_MAX_KERNELS; k++)
        assert_int_equal(add(g, test_builtin("random")), (int)k);
    int own[SMS];
    for (unsigned i = 0; i < SMS; i++)
        own[i] = (int)(i % GPU_MAX_KERNELS);
    set_partition(g, own, GPU_SWITCH_DRAIN);
    gpu_run(g, 2000);
    for (unsigned i = 0; i < SMS; i++)
        own[i] = own[i] >= 6 ? 0 : own[i];
    set_partition(g, own, GPU_SWITCH_DRAIN);
    assert_int_equal(gpu_retire_kernel(g, 6, err, sizeof err), 0);
    assert_int_equal(gpu_retire_kernel(g, 7, err, sizeof err), 0);
    err[0] = '\0';
    assert_int_equal(gpu_add_kernel(g, test_builtin("stream"), err, sizeof err), -1);
    assert_non_null(strstr(err, "GPU_MAX_KERNELS = 8"));
    assert_non_null(strstr(err, "retired"));
    assert_int_equal(gpu_kernels(g), GPU_MAX_KERNELS);
    gpu_run(g, 2000); /* the failed add left a working GPU */
    struct gpu_kernel_counters c;
    gpu_kernel_counters(g, 5, &c);
    assert_true(c.instructions > 0);
    gpu_delete(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(add_without_sms_frfcfs),
        cmocka_unit_test(add_without_sms_bwapp),
        cmocka_unit_test(added_kernel_runs),
        cmocka_unit_test(added_kernel_equals_built_kernel),
        cmocka_unit_test(larger_reuse_window),
        cmocka_unit_test(history_grows_in_order),
        cmocka_unit_test(retire_refusals_and_drain),
        cmocka_unit_test(retired_saved_tbs_never_resume),
        cmocka_unit_test(priority_epochs_skip_retired),
        cmocka_unit_test(ninth_kernel_refused),
    };
    return cmocka_run_group_tests_name("gpu_mix", tests, NULL, NULL);
}
