/* Unit tests for the DRAM model: every timing rule, checked both by dram_checker on hand-made
 * command sequences and by measuring the gaps in simulated command streams. FR-FCFS, refresh
 * and counters are in test_dram_queue.c, the HSM §3 bandwidth cases on hbm80, the trace driver
 * and idle stretches in test_dram_bw.c, the configuration's checks and the address mapping in
 * test_dram_config.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "corun/dram.h"
#include "corun/dramtrace.h"
#include "dram_fixtures.h"
#include "testutil.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---- configuration and mapping ---- */

/* ---- the checker on hand-made sequences: legal at the bound, illegal one cycle earlier ---- */

static const char *feed(const struct dram_config *cfg, const struct dram_command_info *cmds,
                        size_t n)
{
    struct dram_checker *chk = dram_checker_new(cfg);
    const char *bad = NULL;
    for (size_t i = 0; i < n && !bad; i++)
        bad = dram_checker_check(chk, &cmds[i]);
    dram_checker_delete(chk);
    return bad;
}

#define CMD(kind, bg, bank, row, cycle)                                                            \
    {                                                                                              \
        DRAM_CMD_##kind, 0, bg, bank, row, cycle, 0                                                \
    }

static void expect_rule(const struct dram_config *cfg, struct dram_command_info *cmds, size_t n,
                        const char *rule)
{
    assert_null(feed(cfg, cmds, n));
    cmds[n - 1].cycle--;
    const char *bad = feed(cfg, cmds, n);
    assert_non_null(bad);
    assert_string_equal(bad, rule);
}

static void test_checker_rules(void **state)
{
    (void)state;
    struct dram_config c = one_channel();
    const struct dram_timing *t = &c.t;
    unsigned burst = 2, wr_recovery = t->wl + burst + t->rcd, rd_to_wr = t->cl + burst + 2 - t->wl;

    struct dram_command_info rp[] = {CMD(ACT, 0, 0, 1, 0), CMD(PRE, 0, 0, 0, 30),
                                     CMD(ACT, 0, 0, 2, 30 + t->rp)};
    expect_rule(&c, rp, 3, "tRP");
    struct dram_config short_ras = c; /* hbm80's tRC = tRAS + tRP hides tRC behind tRP */
    short_ras.t.ras = 10;
    struct dram_command_info rc[] = {CMD(ACT, 0, 0, 1, 0), CMD(PRE, 0, 0, 0, 10),
                                     CMD(ACT, 0, 0, 2, t->rc)};
    expect_rule(&short_ras, rc, 3, "tRC");
    struct dram_command_info ras[] = {CMD(ACT, 0, 0, 1, 0), CMD(PRE, 0, 0, 0, t->ras)};
    expect_rule(&c, ras, 2, "tRAS");
    struct dram_command_info rcd[] = {CMD(ACT, 0, 0, 1, 0), CMD(RD, 0, 0, 1, t->rcd)};
    expect_rule(&c, rcd, 2, "tRCD");
    struct dram_command_info rrd_l[] = {CMD(ACT, 1, 0, 1, 0), CMD(ACT, 1, 1, 1, t->rrd_l)};
    expect_rule(&c, rrd_l, 2, "tRRD_L");
    struct dram_command_info rrd_s[] = {CMD(ACT, 1, 0, 1, 0), CMD(ACT, 2, 0, 1, t->rrd_s)};
    expect_rule(&c, rrd_s, 2, "tRRD_S");
    struct dram_command_info faw[] = {CMD(ACT, 0, 0, 1, 0), CMD(ACT, 1, 0, 1, 4),
                                      CMD(ACT, 2, 0, 1, 8), CMD(ACT, 3, 0, 1, 12),
                                      CMD(ACT, 0, 1, 1, t->faw)};
    expect_rule(&c, faw, 5, "tFAW");
    struct dram_command_info ccd[] = {CMD(ACT, 0, 0, 1, 0), CMD(ACT, 1, 0, 1, 10),
                                      CMD(RD, 0, 0, 1, 20), CMD(RD, 1, 0, 1, 20 + burst)};
    expect_rule(&c, ccd, 4, "data bus");
    struct dram_command_info rtp[] = {CMD(ACT, 0, 0, 1, 0), CMD(RD, 0, 0, 1, 15),
                                      CMD(PRE, 0, 0, 0, 15 + t->rtp)};
    expect_rule(&c, rtp, 3, "tRTP");
    struct dram_command_info wr[] = {CMD(ACT, 0, 0, 1, 0), CMD(WR, 0, 0, 1, 15),
                                     CMD(PRE, 0, 0, 0, 15 + wr_recovery)};
    expect_rule(&c, wr, 3, "write recovery");
    struct dram_command_info wtr_l[] = {CMD(ACT, 0, 0, 1, 0), CMD(ACT, 0, 1, 1, 5),
                                        CMD(WR, 0, 0, 1, 15),
                                        CMD(RD, 0, 1, 1, 15 + t->wl + burst + t->wtr_l)};
    expect_rule(&c, wtr_l, 4, "tWTR_L");
    struct dram_command_info wtr_s[] = {CMD(ACT, 0, 0, 1, 0), CMD(ACT, 1, 0, 1, 5),
                                        CMD(WR, 0, 0, 1, 15),
                                        CMD(RD, 1, 0, 1, 15 + t->wl + burst + t->wtr_s)};
    expect_rule(&c, wtr_s, 4, "tWTR_S");
    struct dram_command_info turn[] = {CMD(ACT, 0, 0, 1, 0), CMD(ACT, 1, 0, 1, 5),
                                       CMD(RD, 0, 0, 1, 15), CMD(WR, 1, 0, 1, 15 + rd_to_wr)};
    expect_rule(&c, turn, 4, "read-to-write turnaround");
    struct dram_command_info ref[] = {CMD(ACT, 0, 0, 1, 0), CMD(PRE, 0, 0, 0, 30),
                                      CMD(REF, 0, 0, 0, 30 + t->rp),
                                      CMD(ACT, 0, 0, 1, 30 + t->rp + t->rfc)};
    expect_rule(&c, ref, 4, "tRFC");

    /* Rules that no cycle shift can satisfy. */
    struct dram_command_info open_ref[] = {CMD(ACT, 0, 0, 1, 0), CMD(REF, 0, 0, 0, 100)};
    assert_string_equal(feed(&c, open_ref, 2), "REF with an open bank");
    struct dram_command_info wrong_row[] = {CMD(ACT, 0, 0, 1, 0), CMD(RD, 0, 0, 2, 50)};
    assert_string_equal(feed(&c, wrong_row, 2), "column command to a row that is not open");
    struct dram_command_info same_cycle[] = {CMD(ACT, 0, 0, 1, 10), CMD(ACT, 2, 0, 1, 10)};
    assert_string_equal(feed(&c, same_cycle, 2), "command bus");
    struct dram_command_info act_open[] = {CMD(ACT, 0, 0, 1, 0), CMD(ACT, 0, 0, 2, 50)};
    assert_string_equal(feed(&c, act_open, 2), "ACT to an open bank");

    /* A command for a channel, bank group or bank the DRAM does not have, each one past the
     * last (the last of each is legal). */
    struct dram_command_info last = CMD(ACT, 0, 0, 1, 0);
    last.bank_group = c.bank_groups - 1;
    last.bank = c.banks_per_group - 1;
    assert_null(feed(&c, &last, 1));
    struct dram_command_info beyond[3] = {last, last, last};
    beyond[0].channel = c.channels;
    beyond[1].bank_group = c.bank_groups;
    beyond[2].bank = c.banks_per_group;
    for (size_t i = 0; i < 3; i++)
        assert_string_equal(feed(&c, &beyond[i], 1), "no such channel or bank");
}

/* ---- timing rules in simulated command streams ---- */

static void test_stream_obeys_every_rule(void **state)
{
    (void)state;
    struct dram_config c = one_channel();
    c.t.refi = 500;         /* refresh in the mix too */
    c.dual_command = false; /* one command bus: one command per cycle, checked below */
    const struct dram_timing *t = &c.t;
    struct cmd_log log;
    log_init(&log, &c);
    run_mixed(&c, &log, 1, NULL);
    assert_null(log.violation);
    assert_true(log.n > 3000);

    /* Each rule holds, and is tight where the scheduler had reason to go as fast as allowed. */
    assert_true(min_gap(&log, DRAM_CMD_PRE, DRAM_CMD_ACT, 2, false) >= t->rp);
    assert_true(min_gap(&log, DRAM_CMD_ACT, DRAM_CMD_ACT, 2, false) >= t->rc);
    assert_true(min_gap(&log, DRAM_CMD_ACT, DRAM_CMD_PRE, 2, false) >= t->ras);
    assert_int_equal(min_gap(&log, DRAM_CMD_ACT, DRAM_CMD_RD, 2, false), t->rcd);
    assert_true(min_gap(&log, DRAM_CMD_ACT, DRAM_CMD_WR, 2, false) >= t->rcd);
    assert_true(min_gap(&log, DRAM_CMD_ACT, DRAM_CMD_ACT, 1, false) >= t->rrd_l);
    assert_true(min_gap(&log, DRAM_CMD_ACT, DRAM_CMD_ACT, 0, true) >= t->rrd_s);
    assert_true(min_gap(&log, DRAM_CMD_RD, DRAM_CMD_PRE, 2, false) >= t->rtp);
    assert_true(min_gap(&log, DRAM_CMD_WR, DRAM_CMD_PRE, 2, false) >= t->wl + 2 + t->rcd);
    assert_true(min_gap(&log, DRAM_CMD_WR, DRAM_CMD_RD, 1, false) >= t->wl + 2 + t->wtr_l);
    assert_true(min_gap(&log, DRAM_CMD_WR, DRAM_CMD_RD, 0, true) >= t->wl + 2 + t->wtr_s);
    assert_true(min_gap(&log, DRAM_CMD_RD, DRAM_CMD_WR, 0, false) >= t->cl + 2 + 2 - t->wl);
    assert_true(min_gap(&log, DRAM_CMD_REF, DRAM_CMD_ACT, 0, false) >= t->rfc);

    /* tFAW: any five consecutive ACTs span at least tFAW. */
    uint64_t acts[5] = {0};
    size_t nact = 0, in_window_min = UINT64_MAX;
    for (size_t i = 0; i < log.n; i++) {
        if (log.cmd[i].cmd != DRAM_CMD_ACT)
            continue;
        acts[nact % 5] = log.cmd[i].cycle;
        if (++nact >= 5 && log.cmd[i].cycle - acts[nact % 5] < in_window_min)
            in_window_min = log.cmd[i].cycle - acts[nact % 5];
    }
    assert_true(in_window_min >= t->faw);

    /* The data bus is never double-booked, and one command per cycle. */
    uint64_t bus_free = 0, last_cmd = UINT64_MAX;
    for (size_t i = 0; i < log.n; i++) {
        const struct dram_command_info *k = &log.cmd[i];
        assert_true(last_cmd == UINT64_MAX || k->cycle > last_cmd);
        last_cmd = k->cycle;
        if (k->cmd == DRAM_CMD_RD || k->cmd == DRAM_CMD_WR) {
            uint64_t start = k->cycle + (k->cmd == DRAM_CMD_RD ? t->cl : t->wl);
            assert_true(start >= bus_free);
            bus_free = start + 2;
        }
    }
    log_done(&log);
}

/* HBM's row and column command buses (dual_command): a row command (ACT, PRE, REF) and a
 * column command (RD, WR) may share a cycle, never two of one kind; the checker agrees, and
 * it refuses a second command on a single bus. */
static void test_dual_command_buses(void **state)
{
    (void)state;
    struct dram_config c = one_channel();
    c.t.refi = 500;
    c.dual_command = true;
    struct cmd_log log;
    log_init(&log, &c);
    run_mixed(&c, &log, 1, NULL);
    assert_null(log.violation);
    size_t pairs = 0;
    for (size_t i = 1; i < log.n; i++) {
        const struct dram_command_info *a = &log.cmd[i - 1], *b = &log.cmd[i];
        assert_true(b->cycle >= a->cycle);
        if (b->cycle != a->cycle)
            continue;
        bool col_a = a->cmd == DRAM_CMD_RD || a->cmd == DRAM_CMD_WR;
        bool col_b = b->cmd == DRAM_CMD_RD || b->cmd == DRAM_CMD_WR;
        assert_true(col_a != col_b); /* one of each bus */
        assert_true(i < 2 || log.cmd[i - 2].cycle != b->cycle);
        pairs++;
    }
    assert_true(pairs > 100);
    log_done(&log);

    /* The same pair of commands on one bus is a violation. */
    c.dual_command = false;
    struct dram_checker *k = dram_checker_new(&c);
    struct dram_command_info act = {.cycle = 100, .cmd = DRAM_CMD_ACT, .row = 3};
    struct dram_command_info act2 = {.cycle = 100, .cmd = DRAM_CMD_ACT, .bank_group = 1, .row = 3};
    assert_null(dram_checker_check(k, &act));
    assert_string_equal(dram_checker_check(k, &act2), "command bus");
    dram_checker_delete(k);
}

/* The all-row-hit stream of 64 B requests (one data cycle each) on hbm80: with one command bus
 * every ACT and PRE takes a RD's slot and waits behind the row's hits, so a row change costs
 * the stream; with HBM's two buses they overlap the reads. The peers, DRAMsim3 and Ramulator,
 * deliver 789-831 GB/s on it under these timings. */
static void test_hit_stream_of_64b_requests(void **state)
{
    (void)state;
    struct dram_config c = hbm80();
    size_t n = 200000;
    uint64_t *addrs = malloc(n * sizeof(*addrs));
    assert_non_null(addrs);
    for (size_t i = 0; i < n; i++)
        addrs[i] = i * 64;
    struct dramtrace_result one, two;
    char err[200];
    c.dual_command = false;
    assert_int_equal(dramtrace_run(&c, 64, addrs, NULL, n, NULL, NULL, &one, err, sizeof(err)), 0);
    c.dual_command = true;
    assert_int_equal(dramtrace_run(&c, 64, addrs, NULL, n, NULL, NULL, &two, err, sizeof(err)), 0);
    print_message("64 B hit stream: one command bus %.0f GB/s, two %.0f GB/s\n", one.bandwidth_gbs,
                  two.bandwidth_gbs);
    assert_true(one.row_hit_rate > 0.95 && two.row_hit_rate > 0.95);
    assert_true(one.bandwidth_gbs < 760);
    assert_true(two.bandwidth_gbs > 789 * 0.97 && two.bandwidth_gbs < 831 * 1.05);
    free(addrs);
}

/* Column to column: with tCCD_S and tCCD_L longer than a burst (hbm80's are not, so the data
 * bus hides them there), reads that hit open rows go exactly tCCD_S apart when they take turns
 * among the four bank groups, and tCCD_L apart within one group. */
static void test_column_to_column_gaps(void **state)
{
    (void)state;
    struct dram_config c = one_channel();
    c.t.ccd_s = 4;
    c.t.ccd_l = 7;
    struct cmd_log log;
    log_init(&log, &c);
    struct dram *d = logged_dram(&c, 1, NULL, NULL, &log);
    for (unsigned i = 0; i < 48; i++) {
        uint64_t a = addr_at(&c, 0, i % 4, 0, 1, i / 4 % 16);
        while (!dram_will_accept(d, a))
            dram_tick(d);
        add(d, a, false, 0, NULL);
    }
    run_idle(d, 100000);
    for (unsigned i = 0; i < 16; i++) /* then two banks of one group */
        add(d, addr_at(&c, 0, 0, i % 2, 1, i / 2), false, 0, NULL);
    run_idle(d, 100000);
    assert_null(log.violation);
    assert_int_equal(min_gap(&log, DRAM_CMD_RD, DRAM_CMD_RD, 0, true), c.t.ccd_s);
    assert_int_equal(min_gap(&log, DRAM_CMD_RD, DRAM_CMD_RD, 1, false), c.t.ccd_l);
    dram_delete(d);
    log_done(&log);
}

static void test_read_latency_and_outcomes(void **state)
{
    (void)state;
    struct dram_config c = one_channel();
    struct completions done = {0};
    struct cmd_log log;
    log_init(&log, &c);
    struct dram *d = logged_dram(&c, 1, note_done, &done, &log);
    int tag[3];
    add(d, addr_at(&c, 0, 1, 2, 5, 0), false, 0, &tag[0]);
    run_idle(d, 1000);
    /* Closed bank: ACT at 0, RD at tRCD, data for 2 cycles from tRCD + tCL. */
    assert_int_equal(log.n, 2);
    assert_int_equal(log.cmd[0].cmd, DRAM_CMD_ACT);
    assert_int_equal(log.cmd[0].cycle, 0);
    assert_int_equal(log.cmd[1].cmd, DRAM_CMD_RD);
    assert_int_equal(log.cmd[1].cycle, c.t.rcd);
    assert_int_equal(done.n, 1);
    assert_ptr_equal(done.user[0], &tag[0]);
    assert_int_equal(done.cycle[0], c.t.rcd + c.t.cl + 2);

    add(d, addr_at(&c, 0, 1, 2, 5, 3), false, 0, &tag[1]); /* hit */
    run_idle(d, 1000);
    add(d, addr_at(&c, 0, 1, 2, 6, 0), true, 0, &tag[2]); /* conflict, a write */
    run_idle(d, 1000);
    assert_null(log.violation);

    struct dram_app_counters a;
    dram_app_counters(d, 0, &a);
    assert_int_equal(a.reads, 2);
    assert_int_equal(a.writes, 1);
    assert_int_equal(a.row_hits, 1);
    assert_int_equal(a.row_misses, 1);
    assert_int_equal(a.row_conflicts, 1);
    assert_int_equal(a.activates, 2);
    assert_int_equal(a.bytes, 3 * 128);
    assert_int_equal(a.interference_cycles, 0);
    assert_int_equal(a.read_latency_cycles, (c.t.rcd + c.t.cl + 2) + (c.t.cl + 2));
    struct dram_channel_counters cc;
    dram_channel_counters(d, 0, &cc);
    assert_int_equal(cc.activates, 2);
    assert_int_equal(cc.precharges, 1);
    assert_int_equal(cc.row_hits, 1);
    assert_int_equal(cc.row_accesses, 3);
    assert_int_equal(cc.data_busy_cycles, 6);

    dram_reset_counters(d);
    dram_app_counters(d, 0, &a);
    assert_int_equal(a.reads + a.writes + a.bytes + a.activates, 0);
    dram_delete(d);
    log_done(&log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checker_rules),
        cmocka_unit_test(test_dual_command_buses),
        cmocka_unit_test(test_hit_stream_of_64b_requests),
        cmocka_unit_test(test_stream_obeys_every_rule),
        cmocka_unit_test(test_column_to_column_gaps),
        cmocka_unit_test(test_read_latency_and_outcomes),
    };
    return cmocka_run_group_tests_name("dram", tests, NULL, NULL);
}
