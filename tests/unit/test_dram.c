/* Unit tests for the DRAM model: every timing rule (checked both by dram_checker on
 * hand-made command sequences and by measuring the gaps in simulated command streams), FR-FCFS
 * with the row-hit cap, refresh and counters. The HSM §3 bandwidth cases on hbm80, the trace
 * driver and idle stretches are in test_dram_bw.c, the configuration's checks and the address
 * mapping in test_dram_config.c. */
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

/* ---- command log, filled through the command hook and verified by an independent checker ---- */

struct cmd_log {
    struct dram_command_info *cmd;
    size_t n, cap;
    struct dram_checker *checker;
    const char *violation; /* first rule broken, if any */
};

static void log_command(void *ctx, const struct dram_command_info *c)
{
    struct cmd_log *log = ctx;
    const char *bad = dram_checker_check(log->checker, c);
    if (bad && !log->violation)
        log->violation = bad;
    if (log->n == log->cap) {
        log->cap = log->cap ? 2 * log->cap : 1024;
        log->cmd = realloc(log->cmd, log->cap * sizeof(*log->cmd));
        assert_non_null(log->cmd);
    }
    log->cmd[log->n++] = *c;
}

static void log_init(struct cmd_log *log, const struct dram_config *cfg)
{
    memset(log, 0, sizeof(*log));
    log->checker = dram_checker_new(cfg);
}

static void log_done(struct cmd_log *log)
{
    free(log->cmd);
    dram_checker_delete(log->checker);
}

/* A DRAM whose own checking is on and whose commands go to log (already initialised). */
static struct dram *logged_dram(const struct dram_config *cfg, unsigned napps, dram_done_fn done,
                                void *ctx, struct cmd_log *log)
{
    struct dram *d = dram_new(cfg, napps, done, ctx);
    dram_set_checking(d, true);
    dram_set_command_hook(d, log_command, log);
    return d;
}

static size_t find_cmd(const struct cmd_log *log, size_t from, enum dram_command cmd)
{
    for (size_t i = from; i < log->n; i++) {
        if (log->cmd[i].cmd == cmd)
            return i;
    }
    return SIZE_MAX;
}

static bool same_bank(const struct dram_command_info *a, const struct dram_command_info *b)
{
    return a->channel == b->channel && a->bank_group == b->bank_group && a->bank == b->bank;
}

/* Smallest gap from a command of kind `first` to the next command of kind `then` in the same
 * scope (0 channel, 1 bank group, 2 bank); UINT64_MAX when the pair never occurs. */
static uint64_t min_gap(const struct cmd_log *log, enum dram_command first, enum dram_command then,
                        int scope, bool other_group)
{
    uint64_t best = UINT64_MAX;
    for (size_t j = 0; j < log->n; j++) {
        const struct dram_command_info *b = &log->cmd[j];
        if (b->cmd != then)
            continue;
        for (size_t i = j; i-- > 0;) {
            const struct dram_command_info *a = &log->cmd[i];
            if (a->channel != b->channel)
                continue;
            bool group = a->bank_group == b->bank_group;
            if ((scope >= 1 && !group) || (other_group && group) ||
                (scope == 2 && !same_bank(a, b)))
                continue;
            if (b->cycle - a->cycle > 1000) /* far beyond every timing parameter */
                break;
            if (a->cmd == first) {
                if (b->cycle - a->cycle < best)
                    best = b->cycle - a->cycle;
                break;
            }
        }
    }
    return best;
}

/* A mixed workload: several rows per bank, reads and writes, all banks; per-application
 * counters into apps[napps] unless NULL. */
static void run_mixed(const struct dram_config *cfg, struct cmd_log *log, unsigned napps,
                      struct dram_app_counters *apps)
{
    struct dram *d = logged_dram(cfg, napps, NULL, NULL, log);
    uint64_t x = 12345;
    for (unsigned i = 0; i < 3000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        unsigned bank = (unsigned)(x >> 33) % 16, row = (unsigned)(x >> 40) % 3;
        uint64_t a = addr_at(cfg, (unsigned)(x >> 20) % cfg->channels, bank % 4, bank / 4, row,
                             (unsigned)(x >> 50) % 16);
        while (!dram_will_accept(d, a))
            dram_tick(d);
        add(d, a, (x >> 60) % 3 == 0, i % napps, NULL);
        if (i % 3 == 0)
            dram_tick(d);
    }
    run_idle(d, 1000000);
    for (unsigned a = 0; apps && a < napps; a++)
        dram_app_counters(d, a, &apps[a]);
    dram_delete(d);
}

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

/* ---- scheduling ---- */

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
        cmocka_unit_test(test_checker_rules),
        cmocka_unit_test(test_dual_command_buses),
        cmocka_unit_test(test_hit_stream_of_64b_requests),
        cmocka_unit_test(test_stream_obeys_every_rule),
        cmocka_unit_test(test_column_to_column_gaps),
        cmocka_unit_test(test_read_latency_and_outcomes),
        cmocka_unit_test(test_frfcfs_hits_first_with_cap),
        cmocka_unit_test(test_queue_full_and_scheduler_names),
        cmocka_unit_test(test_refresh),
        cmocka_unit_test(test_interference),
        cmocka_unit_test(test_reset_counters),
        cmocka_unit_test(test_nonpow2_channels_and_determinism),
        cmocka_unit_test(test_add_from_completion),
    };
    return cmocka_run_group_tests_name("dram", tests, NULL, NULL);
}
