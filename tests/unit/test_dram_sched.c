/* Unit tests for the ranked channel schedulers: BW-App (the application with the lowest attained
 * bandwidth first) and ASM's priority epochs, in hand-built DRAM queues and on a whole GPU
 * (rotation, the prio_* counters, the prioritized kernel's shorter DRAM queueing). Every
 * command stream also goes through the independent legality checker. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "corun/dram.h"
#include "corun/gpu.h"
#include "corun/kernel.h"
#include "dram_fixtures.h"
#include "testutil.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Banks numbered across the bank groups, as ASM's and BW-App's examples count them. */
static uint64_t bank_addr(const struct dram_config *cfg, unsigned bank, uint64_t row, unsigned col)
{
    return addr_at(cfg, 0, bank % cfg->bank_groups, bank / cfg->bank_groups, row, col);
}

/* The commands issued, with the checker's verdict. */
struct log {
    struct dram_checker *checker;
    const char *violation;
    size_t n;
    struct dram_command_info cmd[256];
};

static void note_command(void *ctx, const struct dram_command_info *c)
{
    struct log *l = ctx;
    const char *bad = dram_checker_check(l->checker, c);
    if (bad && !l->violation)
        l->violation = bad;
    if (l->n < 256)
        l->cmd[l->n++] = *c;
}

/* The application of the first command of kind cmd logged from index from on. */
static unsigned first_app(const struct log *l, size_t from, enum dram_command cmd)
{
    for (size_t i = from; i < l->n; i++)
        if (l->cmd[i].cmd == cmd)
            return l->cmd[i].app;
    fail_msg("no such command");
    return DRAM_APP_NONE;
}

/* A DRAM for two applications under sched whose application 0 has just moved a lot of data
 * (so BW-App ranks application 1, which moved none, first). The log keeps only what follows. */
static struct dram *after_app0_traffic(const struct dram_config *c, const char *sched,
                                       struct log *l)
{
    struct dram *d = dram_new(c, 2, NULL, NULL);
    dram_set_checking(d, true);
    memset(l, 0, sizeof(*l));
    l->checker = dram_checker_new(c);
    dram_set_command_hook(d, note_command, l);
    assert_int_equal(dram_set_scheduler(d, sched), 0);
    assert_string_equal(dram_scheduler(d), sched);
    for (unsigned i = 0; i < 48; i++)
        add(d, bank_addr(c, i % 16, 7, i / 16), false, 0, NULL);
    run_idle(d, 100000);
    for (int i = 0; i < 3000; i++) /* past a few re-rankings */
        dram_tick(d);
    l->n = 0;
    return d;
}

/* Bank 3 has row 7 open (application 0's). Queued, oldest first: two application-0 row hits,
 * then an application-1 request to row 9 of the same bank, and an application-0 and then an
 * application-1 request to two closed banks. Returns the logged commands. */
static void hand_built_queue(const char *sched, struct log *l)
{
    struct dram_config c = one_channel();
    struct dram *d = after_app0_traffic(&c, sched, l);
    add(d, bank_addr(&c, 3, 7, 4), false, 0, NULL);
    add(d, bank_addr(&c, 3, 7, 5), false, 0, NULL);
    add(d, bank_addr(&c, 3, 9, 0), false, 1, NULL);
    /* Other banks were left open on row 7 too; row 11 conflicts there. */
    add(d, bank_addr(&c, 5, 11, 0), false, 0, NULL);
    add(d, bank_addr(&c, 6, 11, 0), false, 1, NULL);
    run_idle(d, 100000);
    assert_null(l->violation);
    dram_checker_delete(l->checker);
    dram_delete(d);
}

static void test_bwapp_serves_low_bandwidth_first(void **state)
{
    (void)state;
    struct log l;
    /* FR-FCFS: application 0's row hits go first, and its older PRE before application 1's. */
    hand_built_queue("frfcfs", &l);
    assert_int_equal(l.cmd[0].cmd, DRAM_CMD_RD);
    assert_int_equal(l.cmd[0].app, 0);
    assert_int_equal(first_app(&l, 0, DRAM_CMD_PRE), 0);
    /* BW-App: application 1 attained no bandwidth, so its PRE (closing application 0's row,
     * hits and all) and its ACTs come first, and its reads before any of application 0's. */
    hand_built_queue("bw-app", &l);
    assert_int_equal(l.cmd[0].cmd, DRAM_CMD_PRE);
    assert_int_equal(l.cmd[0].app, 1);
    assert_int_equal(first_app(&l, 0, DRAM_CMD_ACT), 1);
    assert_int_equal(first_app(&l, 0, DRAM_CMD_RD), 1);
    size_t reads1 = 0, i = 0;
    for (; i < l.n && reads1 < 2; i++)
        reads1 += l.cmd[i].cmd == DRAM_CMD_RD && l.cmd[i].app == 1;
    for (size_t j = 0; j < i; j++) /* both of application 1's reads before any of 0's */
        assert_false(l.cmd[j].cmd == DRAM_CMD_RD && l.cmd[j].app == 0);
}

/* BW-App's attained bandwidth is a sum of data-bus cycles halved every re-ranking (1,024
 * memory cycles): application 0 moves 48 requests' data, then after `gap` idle cycles
 * application 1 moves 2, and a re-ranking later each queues one request to a closed bank,
 * `older` first. Returns the application whose ACT went first. */
static unsigned first_after(uint64_t gap, unsigned older)
{
    struct dram_config c = one_channel();
    struct log l;
    struct dram *d = after_app0_traffic(&c, "bw-app", &l);
    for (uint64_t i = 0; i < gap; i++)
        dram_tick(d);
    for (unsigned i = 0; i < 2; i++)
        add(d, bank_addr(&c, i, 3, 0), false, 1, NULL);
    run_idle(d, 100000);
    for (int i = 0; i < 1100; i++)
        dram_tick(d);
    l.n = 0;
    add(d, bank_addr(&c, 10 + older, 20, 0), false, older, NULL);
    add(d, bank_addr(&c, 11 - older, 20, 0), false, 1 - older, NULL);
    run_idle(d, 100000);
    assert_null(l.violation);
    unsigned app = first_app(&l, 0, DRAM_CMD_ACT);
    dram_checker_delete(l.checker);
    dram_delete(d);
    return app;
}

/* Just after its 2 requests application 1 has attained less than application 0's 48 a few
 * halvings old, and goes first though younger; 12 halvings later application 0's have
 * faded below them, and application 0 goes first though younger (a tie would have let the
 * older go). */
static void test_bwapp_attained_bandwidth_fades(void **state)
{
    (void)state;
    assert_int_equal(first_after(0, 0), 1);
    assert_int_equal(first_after(12 * 1024, 1), 0);
}

/* Two applications that trade ranks in one re-ranking, with no tie between: application 0's
 * 48 requests are a few halvings old (it ranks second), then in one re-ranking period
 * application 1 moves 64, so the next re-ranking puts application 0 first and application 1
 * second at once. Just after it, application 1 queues a request and then application 0 one,
 * each to a closed bank: application 0's ACT must go first though it is younger. Ranks that
 * were not applied (nothing "changed" when no application kept its rank) would hold the old
 * order for a whole period and let application 1's go. */
static void test_bwapp_direct_swap_applies_at_once(void **state)
{
    (void)state;
    struct dram_config c = one_channel();
    struct log l;
    struct dram *d = after_app0_traffic(&c, "bw-app", &l);
    /* re-rankings fall every 1,024 memory cycles from the scheduler's start (cycle 0) */
    while (dram_now(d) % 1024 != 1)
        dram_tick(d);
    uint64_t period = dram_now(d) / 1024;
    for (unsigned i = 0; i < 64; i++)
        add(d, bank_addr(&c, i % 16, 3, i / 16), false, 1, NULL);
    run_idle(d, 1000);
    assert_int_equal(dram_now(d) / 1024, period); /* all of them within the one period */
    while (dram_now(d) % 1024 != 1)
        dram_tick(d);
    l.n = 0;
    add(d, bank_addr(&c, 10, 20, 0), false, 1, NULL);
    add(d, bank_addr(&c, 11, 20, 0), false, 0, NULL);
    run_idle(d, 100000);
    assert_null(l.violation);
    assert_int_equal(first_app(&l, 0, DRAM_CMD_ACT), 0);
    dram_checker_delete(l.checker);
    dram_delete(d);
}

/* Within one rank BW-App is FR-FCFS: with only application 0's requests queued (all of one
 * rank), its row hit to bank 3 goes before the older request that must close bank 5's row. */
static void test_bwapp_keeps_fr_fcfs_within_a_rank(void **state)
{
    (void)state;
    struct dram_config c = one_channel();
    struct log l;
    struct dram *d = after_app0_traffic(&c, "bw-app", &l);
    add(d, bank_addr(&c, 5, 11, 0), false, 0, NULL);
    add(d, bank_addr(&c, 3, 7, 4), false, 0, NULL);
    run_idle(d, 100000);
    assert_null(l.violation);
    assert_int_equal(l.cmd[0].cmd, DRAM_CMD_RD);
    assert_int_equal(l.cmd[0].bank_group, 3 % c.bank_groups);
    assert_int_equal(l.cmd[0].bank, 3 / c.bank_groups);
    dram_checker_delete(l.checker);
    dram_delete(d);
}

static void test_scheduler_names(void **state)
{
    (void)state;
    assert_int_equal(dram_scheduler_count(), 2);
    assert_string_equal(dram_scheduler_name(1), "bw-app");
    struct dram_config c = one_channel();
    struct dram *d = dram_new(&c, 2, NULL, NULL);
    assert_string_equal(dram_scheduler(d), "frfcfs");
    assert_int_equal(dram_set_scheduler(d, "bw-app"), 0);
    assert_int_equal(dram_set_scheduler(d, "bwapp"), -1);
    assert_string_equal(dram_scheduler(d), "bw-app");
    dram_delete(d);
}

/* Under FR-FCFS with application app prioritized, an older application-0 and a newer
 * application-1 request to two closed banks: whose ACT goes first. */
static unsigned first_act_with_priority(unsigned app)
{
    struct dram_config c = one_channel();
    struct log l = {0};
    l.checker = dram_checker_new(&c);
    struct dram *d = dram_new(&c, 2, NULL, NULL);
    dram_set_checking(d, true);
    dram_set_command_hook(d, note_command, &l);
    dram_set_priority_app(d, app);
    assert_int_equal(dram_priority_app(d), app);
    add(d, bank_addr(&c, 1, 4, 0), false, 0, NULL);
    add(d, bank_addr(&c, 2, 4, 0), false, 1, NULL);
    run_idle(d, 100000);
    assert_null(l.violation);
    unsigned first = first_app(&l, 0, DRAM_CMD_ACT);
    dram_checker_delete(l.checker);
    dram_delete(d);
    return first;
}

static void test_priority_app_goes_first(void **state)
{
    (void)state;
    assert_int_equal(first_act_with_priority(DRAM_APP_NONE), 0); /* FR-FCFS: oldest */
    assert_int_equal(first_act_with_priority(0), 0);
    assert_int_equal(first_act_with_priority(1), 1);
}

/* ---- on the GPU ---- */

static struct gpu *gpu_of(const char *const *names, unsigned n)
{
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    const struct kernel_profile *ps[GPU_MAX_KERNELS];
    for (unsigned k = 0; k < n; k++)
        assert_non_null(ps[k] = kernel_builtin_find(names[k]));
    char err[256];
    struct gpu *g = gpu_new(&cfg, ps, n, 1, err, sizeof err);
    assert_non_null(g);
    gpu_set_dram_checking(g, true);
    int own[80];
    gpu_partition_even(80, n, own);
    assert_int_equal(gpu_set_partition(g, own, 80, GPU_SWITCH_DRAIN, err, sizeof err), 0);
    return g;
}

static void test_priority_epochs_rotate_and_count(void **state)
{
    (void)state;
    const char *names[2] = {"stream", "random"};
    struct gpu *g = gpu_of(names, 2);
    assert_int_equal(gpu_priority_kernel(g), -1);
    gpu_run(g, 3000);
    gpu_set_priority_epochs(g, 10000);
    assert_int_equal(gpu_priority_kernel(g), 0);
    gpu_run(g, 9999);
    assert_int_equal(gpu_priority_kernel(g), 0);
    gpu_run(g, 1);
    assert_int_equal(gpu_priority_kernel(g), 1);
    gpu_run(g, 5000); /* mid-turn: the counter epoch starts inside kernel 1's turn */
    gpu_reset_counters(g);
    gpu_run(g, 25000); /* 5000 of kernel 1, 10000 of kernel 0, 10000 of kernel 1 */
    assert_int_equal(gpu_priority_kernel(g), 0);
    struct gpu_kernel_counters c[2];
    gpu_kernel_counters(g, 0, &c[0]);
    gpu_kernel_counters(g, 1, &c[1]);
    assert_int_equal(c[0].prio_cycles, 10000);
    assert_int_equal(c[1].prio_cycles, 15000);
    assert_int_equal(c[0].prio_cycles + c[1].prio_cycles, c[0].cycles);
    for (int k = 0; k < 2; k++) {
        assert_true(c[k].prio_l2_accesses > 0);
        assert_true(c[k].prio_l2_accesses < c[k].l2_accesses);
        assert_true(c[k].prio_l2_misses <= c[k].prio_l2_accesses);
        assert_true(c[k].prio_l2_misses <= c[k].l2_misses);
    }
    gpu_set_priority_epochs(g, 0);
    assert_int_equal(gpu_priority_kernel(g), -1);
    gpu_run(g, 4000);
    struct gpu_kernel_counters after;
    gpu_kernel_counters(g, 0, &after);
    assert_int_equal(after.prio_cycles, 10000); /* off: nothing more counted */
    assert_int_equal(after.prio_l2_accesses, c[0].prio_l2_accesses);
    gpu_delete(g);
}

/* With one kernel it always has the priority: the prio_* counters equal the plain ones. */
static void test_priority_counters_add_up_alone(void **state)
{
    (void)state;
    const char *names[1] = {"stream"};
    struct gpu *g = gpu_of(names, 1);
    gpu_set_priority_epochs(g, 3000);
    gpu_run(g, 2000);
    gpu_reset_counters(g);
    gpu_run(g, 20000);
    struct gpu_kernel_counters c;
    gpu_kernel_counters(g, 0, &c);
    assert_int_equal(c.prio_cycles, c.cycles);
    assert_true(c.l2_accesses > 1000);
    assert_int_equal(c.prio_l2_accesses, c.l2_accesses);
    assert_int_equal(c.prio_l2_misses, c.l2_misses);
    gpu_delete(g);
}

/* Two copies of one memory-bound kernel: in each turn the prioritized copy waits less in the
 * DRAM queues than the other, though the kernels are the same. */
static void test_prioritized_kernel_queues_less(void **state)
{
    (void)state;
    const char *names[2] = {"random", "random"};
    struct gpu *g = gpu_of(names, 2);
    gpu_run(g, 20000);
    gpu_set_priority_epochs(g, 30000);
    for (int turn = 0; turn < 2; turn++) {
        assert_int_equal(gpu_priority_kernel(g), turn);
        gpu_reset_counters(g);
        gpu_run(g, 29999);
        double wait[2];
        for (unsigned k = 0; k < 2; k++) {
            struct gpu_kernel_counters c;
            gpu_kernel_counters(g, k, &c);
            assert_true(c.dram_requests > 1000);
            wait[k] = (double)c.dram_queue_cycles / (double)c.dram_requests;
        }
        print_message("turn %d: queue cycles per request %.1f vs %.1f\n", turn, wait[turn],
                      wait[1 - turn]);
        assert_true(wait[turn] < 0.8 * wait[1 - turn]);
        gpu_run(g, 1);
    }
    gpu_delete(g);
}

static void test_gpu_scheduler_switch(void **state)
{
    (void)state;
    const char *names[2] = {"stream", "compute"};
    struct gpu *g = gpu_of(names, 2);
    assert_int_equal(gpu_set_dram_scheduler(g, "bw-app"), 0);
    assert_int_equal(gpu_set_dram_scheduler(g, "nope"), -1);
    gpu_run(g, 20000);
    struct gpu_kernel_counters c;
    gpu_kernel_counters(g, 0, &c);
    assert_true(c.dram_requests > 1000);
    assert_int_equal(gpu_set_dram_scheduler(g, "frfcfs"), 0);
    gpu_run(g, 5000);
    gpu_delete(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scheduler_names),
        cmocka_unit_test(test_bwapp_serves_low_bandwidth_first),
        cmocka_unit_test(test_bwapp_keeps_fr_fcfs_within_a_rank),
        cmocka_unit_test(test_bwapp_attained_bandwidth_fades),
        cmocka_unit_test(test_bwapp_direct_swap_applies_at_once),
        cmocka_unit_test(test_priority_app_goes_first),
        cmocka_unit_test(test_priority_epochs_rotate_and_count),
        cmocka_unit_test(test_priority_counters_add_up_alone),
        cmocka_unit_test(test_prioritized_kernel_queues_less),
        cmocka_unit_test(test_gpu_scheduler_switch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
