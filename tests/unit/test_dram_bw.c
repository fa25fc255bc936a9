/* Unit tests for the DRAM model, continued: the HSM §3 bandwidth cases on hbm80 (all row hits,
 * a 20 % hit rate held by tFAW, the activate rate's bound), the trace driver's refresh count,
 * options and errors, and idle stretches jumped over as ticking through them would leave them. */
#include <math.h>
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

/* ---- the HSM §3 bandwidth cases on hbm80 ---- */

static struct dramtrace_result run_stream(const struct dram_config *c, uint64_t *addrs, size_t n)
{
    struct dramtrace_result r;
    char err[200];
    assert_int_equal(dramtrace_run(c, 0, addrs, NULL, n, NULL, NULL, &r, err, sizeof(err)), 0);
    assert_int_equal(r.requests, n);
    assert_int_equal(r.reads, n);
    assert_int_equal(r.bytes, n * c->request_bytes);
    return r;
}

/* Requests per channel in the bandwidth cases. The all-row-hit case runs longer: refresh is
 * what it measures, and it needs many tREFI periods to reach its steady state. */
enum { STREAM_PER_CHANNEL = 6000, HIT_STREAM_PER_CHANNEL = 20000 };

static void test_all_row_hits_reach_75_to_92_percent(void **state)
{
    (void)state;
    struct dram_config c = hbm80();
    size_t n = 32 * HIT_STREAM_PER_CHANNEL;
    uint64_t *addrs = malloc(n * sizeof(*addrs));
    assert_non_null(addrs);
    /* Every channel cycles through the 16 columns of one row in each of its 16 banks: after the
     * first ACT per bank (and after each refresh) every access is a row hit. */
    for (size_t i = 0; i < n; i++) {
        size_t k = i / 32;
        addrs[i] = addr_at(&c, i % 32, k % 4, (k / 4) % 4, 7, (k / 16) % 16);
    }
    struct dramtrace_result r = run_stream(&c, addrs, n);
    print_message("all-row-hit: %.1f%% of peak, %.0f GB/s, RBH %.3f, %llu refreshes\n",
                  r.utilization_pct, r.bandwidth_gbs, r.row_hit_rate,
                  (unsigned long long)r.refreshes);
    assert_true(r.row_hit_rate > 0.97);
    assert_true(r.utilization_pct >= 75.0 && r.utilization_pct <= 92.0);
    free(addrs);
}

/* The trace driver counts every channel's refreshes, the first's too: on a GPU of one channel,
 * one every tREFI of the run, less the one that may still wait at its end. */
static void test_one_channel_refreshes(void **state)
{
    (void)state;
    struct dram_config c = hbm80();
    c.channels = 1;
    size_t n = 4000;
    uint64_t *addrs = malloc(n * sizeof(*addrs));
    assert_non_null(addrs);
    for (size_t i = 0; i < n; i++)
        addrs[i] = i * c.request_bytes;
    struct dramtrace_result r = run_stream(&c, addrs, n);
    double periods = (double)r.cycles / c.t.refi;
    print_message("one channel: %llu refreshes in %llu cycles (%.1f tREFI)\n",
                  (unsigned long long)r.refreshes, (unsigned long long)r.cycles, periods);
    assert_true(periods >= 3);
    assert_true((double)r.refreshes >= floor(periods) - 1 && (double)r.refreshes <= ceil(periods));
    free(addrs);
}

static void test_rbh20_is_held_near_half_by_tfaw(void **state)
{
    (void)state;
    struct dram_config c = hbm80();
    size_t n = 32 * STREAM_PER_CHANNEL;
    uint64_t *addrs = malloc(n * sizeof(*addrs));
    assert_non_null(addrs);
    /* Per channel, groups of five requests: two to a fresh row, then one to a fresh row in
     * each of the next three banks, cycling over all 16 banks: 4 ACTs per 5 requests. */
    for (size_t i = 0; i < n; i++) {
        size_t k = i / 32, group = k / 5, j = k % 5;
        size_t slot = group * 4 + (j == 0 ? 0 : j - 1);
        unsigned bank = (unsigned)(slot % 16);
        addrs[i] = addr_at(&c, i % 32, bank % 4, bank / 4, 100 + slot / 16, j == 1);
    }
    struct dramtrace_result r = run_stream(&c, addrs, n);
    print_message("20%% RBH: %.1f%% of peak, %.0f GB/s, RBH %.3f\n", r.utilization_pct,
                  r.bandwidth_gbs, r.row_hit_rate);
    assert_true(r.row_hit_rate > 0.19 && r.row_hit_rate < 0.21);
    assert_true(r.utilization_pct >= 40.0 && r.utilization_pct <= 55.0);
    /* tFAW allows 4 ACTs per 20 cycles, i.e. 5 requests of 2 data cycles: 50 %. */
    assert_true(r.utilization_pct <= 50.0);
    free(addrs);
}

static void test_activate_rate_bounds_bandwidth(void **state)
{
    (void)state;
    struct dram_config c = hbm80();
    size_t n = 32 * STREAM_PER_CHANNEL;
    uint64_t *addrs = malloc(n * sizeof(*addrs));
    assert_non_null(addrs);
    for (int pattern = 0; pattern < 2; pattern++) {
        /* 0 % RBH: a fresh row for every request, over all banks or one bank group only. */
        for (size_t i = 0; i < n; i++) {
            size_t k = i / 32;
            unsigned bank = (unsigned)(k % 16);
            unsigned bg = pattern ? 0 : bank % 4;
            addrs[i] = addr_at(&c, i % 32, bg, bank / 4, 100 + k, 0);
        }
        struct dramtrace_result r = run_stream(&c, addrs, n);
        assert_int_equal(r.row_hits, 0);
        assert_int_equal(r.activates, n);
        double bytes_per_cycle = (double)r.bytes / (double)r.cycles / c.channels;
        double bound = 4.0 * c.request_bytes / c.t.faw;
        if (pattern) /* one bank group of 4 banks: tRRD_L and tRC are the tighter limits */
            bound = 4.0 * c.request_bytes / c.t.rc;
        print_message("0%% RBH: %.2f B/cycle/channel, bound %.2f\n", bytes_per_cycle, bound);
        assert_true(bytes_per_cycle <= bound);
        assert_true(bytes_per_cycle >= 0.8 * bound);
    }
    free(addrs);
}

static void test_dramtrace_options_and_errors(void **state)
{
    (void)state;
    struct dram_config c = hbm80();
    uint64_t addrs[256];
    bool writes[256];
    for (int i = 0; i < 256; i++) {
        addrs[i] = (uint64_t)i * 64;
        writes[i] = i % 4 == 0;
    }
    struct dramtrace_result r;
    char err[200];
    assert_int_equal(dramtrace_run(&c, 64, addrs, writes, 256, NULL, NULL, &r, err, sizeof(err)),
                     0);
    assert_int_equal(r.request_bytes, 64);
    assert_int_equal(r.bytes, 256 * 64);
    assert_int_equal(r.writes, 64);
    assert_int_equal(r.reads, 192);
    assert_true(r.cycles > 0 && r.bandwidth_gbs > 0 && r.mean_read_latency_cycles > 0);
    assert_true(r.row_hits + r.row_misses + r.row_conflicts == 256);

    assert_int_equal(dramtrace_run(&c, 96, addrs, writes, 256, NULL, NULL, &r, err, sizeof(err)),
                     -1);
    assert_string_equal(err, "dram row_bytes (2048) is not a multiple of request_bytes (96)");
    assert_int_equal(dramtrace_run(&c, 0, addrs, writes, 0, NULL, NULL, &r, err, sizeof(err)), -1);
    assert_string_equal(err, "the trace holds no requests");
}

/* Idle stretches jumped over (dram_idle_ticks, dram_skip_ticks: an idle channel's refreshes
 * computed rather than stepped) leave the DRAM as ticking through them does: the same
 * refreshes on every channel, the same clock, and the same completion cycles for the
 * requests that come after (they wait for the same tRFC and refresh times). */
enum { SKIP_CHANNELS = 32 };

struct idle_result {
    struct dram_channel_counters cc[SKIP_CHANNELS];
    uint64_t now, refreshes_skipped;
    struct completions done;
};

static void idle_case(bool skip, struct idle_result *r)
{
    memset(r, 0, sizeof(*r));
    struct dram_config c = hbm80();
    assert_int_equal(c.channels, SKIP_CHANNELS);
    struct dram *d = dram_new(&c, 2, note_done, &r->done);
    for (unsigned round = 0; round < 24; round++) {
        /* Idle from 1 tick to 60 refresh intervals; the bursts after them reach every channel,
         * some soon after a refresh computed in the jump (their ACTs wait out its tRFC). */
        uint64_t idle = round == 5 ? 100003 : 1 + round * round * 97 % 9000;
        for (unsigned i = 0; i < 64; i++) { /* a burst over every channel, a few rows */
            uint64_t a = addr_at(&c, (i + round) % SKIP_CHANNELS, i % 4, (i / 4) % 4,
                                 round * 3 + i / 32, i % 5);
            while (!dram_will_accept(d, a))
                dram_tick(d);
            add(d, a, i % 3 == 0, i % 2, NULL);
        }
        run_idle(d, 1000000);
        for (uint64_t left = idle; left;) {
            uint64_t n = skip ? dram_idle_ticks(d) : 0;
            if (n == 0) {
                dram_tick(d);
                left--;
                continue;
            }
            n = n < left ? n : left;
            uint64_t before = 0, after = 0;
            struct dram_channel_counters cc;
            for (unsigned ch = 0; ch < SKIP_CHANNELS; ch++) {
                dram_channel_counters(d, ch, &cc);
                before += cc.refreshes;
            }
            dram_skip_ticks(d, n);
            for (unsigned ch = 0; ch < SKIP_CHANNELS; ch++) {
                dram_channel_counters(d, ch, &cc);
                after += cc.refreshes;
            }
            r->refreshes_skipped += after - before;
            left -= n;
        }
    }
    r->now = dram_now(d);
    for (unsigned ch = 0; ch < SKIP_CHANNELS; ch++)
        dram_channel_counters(d, ch, &r->cc[ch]);
    dram_delete(d);
}

static void test_idle_skip_equals_ticks(void **state)
{
    (void)state;
    static struct idle_result skipped, ticked;
    idle_case(true, &skipped);
    idle_case(false, &ticked);
    assert_int_equal(ticked.refreshes_skipped, 0);
    assert_true(skipped.refreshes_skipped > 1000); /* 100 K idle ticks: ~58 per channel */
    assert_int_equal(skipped.now, ticked.now);
    assert_int_equal(skipped.done.n, ticked.done.n);
    assert_memory_equal(skipped.done.cycle, ticked.done.cycle, sizeof(ticked.done.cycle));
    assert_memory_equal(skipped.cc, ticked.cc, sizeof(ticked.cc));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_row_hits_reach_75_to_92_percent),
        cmocka_unit_test(test_one_channel_refreshes),
        cmocka_unit_test(test_rbh20_is_held_near_half_by_tfaw),
        cmocka_unit_test(test_activate_rate_bounds_bandwidth),
        cmocka_unit_test(test_dramtrace_options_and_errors),
        cmocka_unit_test(test_idle_skip_equals_ticks),
    };
    return cmocka_run_group_tests_name("dram_bw", tests, NULL, NULL);
}
