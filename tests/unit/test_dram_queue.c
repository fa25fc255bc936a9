/* Unit tests for the DRAM model's queues: FR-FCFS with the row-hit cap, a full queue and the
 * schedulers' names, refresh, interference and per-application counters, counters reset,
 * channel counts that are not a power of two, and requests added from a completion. Every
 * command stream goes through the independent checker (dram_fixtures' command log). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "corun/dram.h"
#include "dram_fixtures.h"
#include "testutil.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Opens row 1 of bank 0, then queues an older request to row 2 and `hits` newer ones to row 1;
 * returns how many row-1 reads were served before the bank was precharged. */
static size_t hits_before_precharge(unsigned cap, unsigned hits)
{
    struct dram_config c = one_channel();
    c.row_hit_cap = cap;
    struct cmd_log log;
    log_init(&log, &c);
    struct dram *d = logged_dram(&c, 1, NULL, NULL, &log);
    add(d, addr_at(&c, 0, 0, 0, 1, 0), false, 0, NULL);
    run_idle(d, 1000);
    size_t start = log.n;
    add(d, addr_at(&c, 0, 0, 0, 2, 0), false, 0, NULL);
    for (unsigned i = 0; i < hits; i++)
        add(d, addr_at(&c, 0, 0, 0, 1, 1 + i % 15), false, 0, NULL);
    run_idle(d, 10000);
    assert_null(log.violation);
    size_t pre = find_cmd(&log, start, DRAM_CMD_PRE), served = 0;
    assert_true(pre != SIZE_MAX);
    for (size_t i = start; i < pre; i++)
        served += log.cmd[i].cmd == DRAM_CMD_RD && log.cmd[i].row == 1;
    dram_delete(d);
    log_done(&log);
    return served;
}

static void test_frfcfs_hits_first_with_cap(void **state)
{
    (void)state;
    /* Row hits overtake the older conflicting request ... */
    assert_int_equal(hits_before_precharge(0, 3), 3);
    assert_int_equal(hits_before_precharge(0, 12), 12);
    /* ... but only row_hit_cap of them. */
    assert_int_equal(hits_before_precharge(5, 12), 5);
    assert_int_equal(hits_before_precharge(5, 3), 3);
}

static void test_queue_full_and_scheduler_names(void **state)
{
    (void)state;
    struct dram_config c = one_channel();
    c.queue_entries = 8;
    struct dram *d = dram_new(&c, 1, NULL, NULL);
    dram_set_checking(d, true);
    uint64_t a = addr_at(&c, 0, 0, 0, 1, 0);
    for (int i = 0; i < 8; i++)
        add(d, a, false, 0, NULL);
    assert_false(dram_will_accept(d, a));
    assert_false(dram_channel_will_accept(d, 0));
    assert_false(dram_idle(d));
    for (int i = 0; i < 20; i++)
        dram_tick(d);
    assert_true(dram_will_accept(d, a));
    assert_int_equal(dram_now(d), 20);

    assert_true(dram_scheduler_count() >= 1);
    assert_string_equal(dram_scheduler_name(0), "frfcfs");
    assert_null(dram_scheduler_name(dram_scheduler_count()));
    assert_int_equal(dram_set_scheduler(d, "frfcfs"), 0);
    assert_int_equal(dram_set_scheduler(d, "fifo-please"), -1);
    run_idle(d, 1000);
    dram_delete(d);
}

static void test_refresh(void **state)
{
    (void)state;
    struct dram_config c = one_channel();
    c.t.refi = 400;
    struct cmd_log log;
    log_init(&log, &c);
    struct dram *d = logged_dram(&c, 1, NULL, NULL, &log);
    /* Idle channels refresh too. */
    for (int i = 0; i < 4000; i++)
        dram_tick(d);
    struct dram_channel_counters cc;
    dram_channel_counters(d, 0, &cc);
    assert_int_equal(cc.refreshes, 9); /* due at 400, 800, ... 3600 */
    /* Busy: every REF finds all banks closed, as soon as the last precharge allows, and the next
     * ACT waits tRFC. */
    for (unsigned i = 0; i < 2000; i++) {
        uint64_t a = addr_at(&c, 0, i % 4, (i / 4) % 4, i / 16, i % 3);
        while (!dram_will_accept(d, a))
            dram_tick(d);
        add(d, a, false, 0, NULL);
    }
    run_idle(d, 1000000);
    assert_null(log.violation);
    dram_channel_counters(d, 0, &cc);
    uint64_t expected = dram_now(d) / c.t.refi;
    assert_true(cc.refreshes + 1 >= expected && cc.refreshes <= expected);
    assert_true(min_gap(&log, DRAM_CMD_REF, DRAM_CMD_ACT, 0, false) >= c.t.rfc);
    assert_int_equal(min_gap(&log, DRAM_CMD_PRE, DRAM_CMD_REF, 0, false), c.t.rp);
    dram_delete(d);
    log_done(&log);

    c.t.refi = 0;
    d = dram_new(&c, 1, NULL, NULL);
    dram_set_checking(d, true);
    for (int i = 0; i < 4000; i++)
        dram_tick(d);
    dram_channel_counters(d, 0, &cc);
    assert_int_equal(cc.refreshes, 0);
    dram_delete(d);
}

static void test_interference(void **state)
{
    (void)state;
    struct dram_config c = one_channel();
    struct dram *d = dram_new(&c, 2, NULL, NULL);
    dram_set_checking(d, true);
    /* App 0 streams row hits through bank 0 and keeps the data bus busy; app 1's request to
     * another row of the same bank arrives behind them. */
    for (unsigned i = 0; i < 16; i++)
        add(d, addr_at(&c, 0, 0, 0, 1, i), false, 0, NULL);
    add(d, addr_at(&c, 0, 0, 0, 2, 0), false, 1, NULL);
    run_idle(d, 10000);
    struct dram_app_counters a0, a1;
    dram_app_counters(d, 0, &a0);
    dram_app_counters(d, 1, &a1);
    assert_int_equal(a0.interference_cycles, 0);
    assert_true(a1.interference_cycles > 0);
    assert_true(a1.interference_cycles <= a1.queue_cycles);
    assert_int_equal(a1.row_conflicts, 1);
    dram_delete(d);

    /* A mixed two-application workload: both interfere, never beyond their queueing. */
    struct cmd_log log;
    struct dram_app_counters apps[2];
    log_init(&log, &c);
    run_mixed(&c, &log, 2, apps);
    assert_null(log.violation);
    for (int a = 0; a < 2; a++) {
        assert_true(apps[a].interference_cycles > 0);
        assert_true(apps[a].interference_cycles <= apps[a].queue_cycles);
    }
    log_done(&log);
}

/* An epoch's counters start from zero: every application's and every channel's, while the
 * memory system itself (its clock, its banks) goes on. */
static void test_reset_counters(void **state)
{
    (void)state;
    struct dram_config c = one_channel();
    struct dram *d = dram_new(&c, 2, NULL, NULL);
    for (unsigned i = 0; i < 8; i++) {
        add(d, addr_at(&c, 0, 0, 0, 1, i), false, 0, NULL);
        add(d, addr_at(&c, 0, 0, 1, 2, i), true, 1, NULL);
    }
    run_idle(d, 10000);
    struct dram_app_counters a, zero_a;
    struct dram_channel_counters ch, zero_ch;
    memset(&zero_a, 0, sizeof zero_a);
    memset(&zero_ch, 0, sizeof zero_ch);
    dram_channel_counters(d, 0, &ch);
    assert_true(ch.data_busy_cycles > 0 && ch.activates > 0 && ch.row_accesses > 0);
    uint64_t now = dram_now(d);
    dram_reset_counters(d);
    assert_int_equal(dram_now(d), now);
    dram_channel_counters(d, 0, &ch);
    assert_memory_equal(&ch, &zero_ch, sizeof ch);
    for (unsigned app = 0; app < 2; app++) {
        dram_app_counters(d, app, &a);
        assert_memory_equal(&a, &zero_a, sizeof a);
    }
    /* The next request is counted afresh. */
    add(d, addr_at(&c, 0, 0, 0, 1, 9), false, 0, NULL);
    run_idle(d, 10000);
    dram_app_counters(d, 0, &a);
    dram_channel_counters(d, 0, &ch);
    assert_int_equal(a.reads, 1);
    assert_int_equal(a.reads + a.writes, a.row_hits + a.row_misses + a.row_conflicts);
    assert_int_equal(ch.row_accesses, 1);
    dram_delete(d);
}

static void test_nonpow2_channels_and_determinism(void **state)
{
    (void)state;
    struct dram_config c = hbm80();
    c.channels = 11;
    uint64_t cycles[2];
    struct dram_app_counters a[2];
    for (int run = 0; run < 2; run++) {
        struct cmd_log log;
        log_init(&log, &c);
        run_mixed(&c, &log, 1, NULL);
        assert_null(log.violation);
        bool used[11] = {0};
        for (size_t i = 0; i < log.n; i++)
            used[log.cmd[i].channel] = true;
        for (int ch = 0; ch < 11; ch++)
            assert_true(used[ch]);
        cycles[run] = log.cmd[log.n - 1].cycle;
        log_done(&log);

        struct dram *d = dram_new(&c, 1, NULL, NULL);

        dram_set_checking(d, true);
        for (unsigned i = 0; i < 5000; i++) {
            uint64_t addr = (uint64_t)i * 4096 * 7 + (i % 5) * 128;
            while (!dram_will_accept(d, addr))
                dram_tick(d);
            add(d, addr, i % 4 == 0, 0, NULL);
        }
        run_idle(d, 1000000);
        dram_app_counters(d, 0, &a[run]);
        dram_delete(d);
    }
    assert_int_equal(cycles[0], cycles[1]);
    assert_memory_equal(&a[0], &a[1], sizeof(a[0]));
    assert_int_equal(a[0].reads + a[0].writes, 5000);
}

struct chain {
    struct dram *d;
    struct dram_config cfg;
    unsigned left, done;
};

/* A requester that issues its next request from the completion of the previous one. */
static void chain_next(void *ctx, const struct dram_request *req, uint64_t mem_cycle)
{
    (void)req;
    (void)mem_cycle;
    struct chain *ch = ctx;
    ch->done++;
    if (ch->left) {
        ch->left--;
        add(ch->d, addr_at(&ch->cfg, ch->left % 32, 0, 0, ch->left, 0), false, 0, NULL);
    }
}

static void test_add_from_completion(void **state)
{
    (void)state;
    struct chain ch = {.cfg = hbm80(), .left = 100};
    ch.d = dram_new(&ch.cfg, 1, chain_next, &ch);
    dram_set_checking(ch.d, true);
    add(ch.d, 0, false, 0, NULL);
    run_idle(ch.d, 100000);
    assert_int_equal(ch.done, 101);
    dram_delete(ch.d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frfcfs_hits_first_with_cap),
        cmocka_unit_test(test_queue_full_and_scheduler_names),
        cmocka_unit_test(test_refresh),
        cmocka_unit_test(test_interference),
        cmocka_unit_test(test_reset_counters),
        cmocka_unit_test(test_nonpow2_channels_and_determinism),
        cmocka_unit_test(test_add_from_completion),
    };
    return cmocka_run_group_tests_name("dram queues", tests, NULL, NULL);
}
