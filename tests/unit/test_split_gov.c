/* test_split_gov — the governor that picks one thread or a split block for a shared run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "corun/bench.h"
#include "corun/split_gov.h"

#include <time.h>

/* A chunk's seconds in the slower mode when it loses a try closely (by less than
 * SPLIT_GOV_CLEAR: the gap to the next try doubles) and clearly (the gap grows four times),
 * the faster taking 1 s. */
#define CLOSE 1.2
#define CLEAR 1.4

/* Runs `n` chunks of 1000 cycles, each taking the seconds its mode takes on a machine where a
 * split chunk takes split_s and a one-thread chunk one_s; returns the chunks run split. */
static unsigned run_chunks(struct split_gov *g, unsigned n, double split_s, double one_s)
{
    unsigned split = 0;
    for (unsigned i = 0; i < n; i++) {
        bool s = split_gov_choose(g);
        split += s;
        split_gov_record(g, 1000, s ? split_s : one_s, s ? split_s : one_s); /* on a core */
    }
    return split;
}

/* Runs chunks until the kept mode changes (at most `limit`); returns how many ran. */
static unsigned until_change(struct split_gov *g, unsigned limit, double split_s, double one_s)
{
    bool was = g->keep;
    unsigned n = 0;
    while (g->keep == was && n < limit) {
        run_chunks(g, 1, split_s, one_s);
        n++;
    }
    return n;
}

/* A free second core: the split is kept, and the other mode tried less and less often. */
static void test_keeps_split_when_faster(void **state)
{
    (void)state;
    struct split_gov g;
    split_gov_init(&g);
    assert_true(split_gov_choose(&g)); /* nothing measured: split first */
    split_gov_init(&g);
    unsigned split = run_chunks(&g, 200, 1.0, CLOSE);
    assert_true(g.keep);
    assert_int_equal(g.gap, SPLIT_GOV_MAX_GAP);
    /* Tries after 2, 4, 8, 16, then every 32 kept chunks: at chunks 3, 8, 17, 34, 67, 100,
     * 133, 166 and 199. */
    assert_int_equal(split, 200 - 9);
}

/* A split far quicker: the tries of one thread lose clearly, and come after 2, 8, then every
 * 32 kept chunks (at chunks 3, 12, 45, 78, 111, 144 and 177); a try lost by just under
 * SPLIT_GOV_CLEAR still doubles the gap. */
static void test_backs_off_after_clear_losses(void **state)
{
    (void)state;
    struct split_gov g;
    split_gov_init(&g);
    assert_int_equal(run_chunks(&g, 200, 1.0, CLEAR), 200 - 7);
    assert_true(g.keep);
    assert_int_equal(g.gap, SPLIT_GOV_MAX_GAP);
    split_gov_init(&g);
    run_chunks(&g, SPLIT_GOV_FIRST_TRY + 1, 1.0, SPLIT_GOV_CLEAR * 0.99);
    assert_int_equal(g.gap, 2 * SPLIT_GOV_FIRST_TRY);
    split_gov_init(&g);
    run_chunks(&g, SPLIT_GOV_FIRST_TRY + 1, 1.0, SPLIT_GOV_CLEAR * 1.01);
    assert_int_equal(g.gap, 4 * SPLIT_GOV_FIRST_TRY);
}

/* A busy second core: one try, and the run moves to one thread for good. */
static void test_moves_to_one_thread_when_slower(void **state)
{
    (void)state;
    struct split_gov g;
    split_gov_init(&g);
    unsigned split = run_chunks(&g, 100, CLOSE, 1.0);
    assert_false(g.keep);
    /* Split for the first two, then the try of one thread wins; the tries of the split after
     * 2, 4, 8, 16 and 32 chunks (at 6, 11, 20, 37 and 70) lose. */
    assert_int_equal(split, 2 + 5);
}

/* The machine changes: the governor follows within the gap it had reached, plus a try. */
static void test_follows_a_change(void **state)
{
    (void)state;
    struct split_gov g;
    split_gov_init(&g);
    run_chunks(&g, 100, 1.0, CLOSE);
    assert_true(g.keep);
    assert_int_equal(until_change(&g, 100, CLOSE, 1.0), SPLIT_GOV_MAX_GAP + 1);
    assert_false(g.keep);
    assert_int_equal(g.gap, SPLIT_GOV_FIRST_TRY);
    assert_int_equal(until_change(&g, 100, 1.0, CLOSE), SPLIT_GOV_FIRST_TRY + 1);
    assert_true(g.keep);
}

/* Within the margin, the kept mode stays: no flapping on noise. */
static void test_margin(void **state)
{
    (void)state;
    struct split_gov g;
    split_gov_init(&g);
    run_chunks(&g, 100, 1.0, 1.0 / (SPLIT_GOV_MARGIN * 0.99));
    assert_true(g.keep);
    split_gov_init(&g);
    run_chunks(&g, 100, 1.0, 1.0 / (SPLIT_GOV_MARGIN * 1.01));
    assert_false(g.keep);
}

/* A try is measured against the better of the last two kept chunks, so one slow kept chunk
 * does not hand it a win; against a kept mode slow twice running, it wins. */
static void test_one_slow_chunk(void **state)
{
    (void)state;
    struct split_gov g;
    split_gov_init(&g);
    run_chunks(&g, 1, 1.0, 1.0);
    run_chunks(&g, 1, 3.0, 1.0); /* one slow kept chunk */
    assert_false(split_gov_choose(&g));
    split_gov_record(&g, 1000, 1.0 / (SPLIT_GOV_MARGIN * 0.99), -1); /* not 5 % over the better */
    assert_true(g.keep);
    assert_int_equal(g.gap, 2 * SPLIT_GOV_FIRST_TRY);
    run_chunks(&g, 2 * SPLIT_GOV_FIRST_TRY, 3.0, 1.0); /* slow, and it stays slow */
    assert_false(split_gov_choose(&g));
    split_gov_record(&g, 1000, 1.0, -1);
    assert_false(g.keep);
}

/* A split chunk whose thread was kept off its core drops the split at once; while one thread
 * is kept off its core too, the split is not tried; once it has a core again, it is. */
static void test_starved(void **state)
{
    (void)state;
    struct split_gov g;
    split_gov_init(&g);
    run_chunks(&g, 1, 1.0, 1.0);
    assert_true(split_gov_choose(&g));
    /* Chunks of 2 s: on its core is CPU time against wall time, not a fixed amount. */
    split_gov_record(&g, 1000, 2.0, 2 * SPLIT_GOV_STARVED * 1.01); /* just on its core */
    assert_true(g.keep);
    split_gov_init(&g);
    assert_true(split_gov_choose(&g));
    split_gov_record(&g, 1000, 2.0, 2 * SPLIT_GOV_STARVED * 0.99);
    assert_true(g.keep); /* once may be the host's doing */
    assert_true(split_gov_choose(&g));
    split_gov_record(&g, 1000, 2.0, 2 * SPLIT_GOV_STARVED * 0.99);
    assert_false(g.keep);
    assert_int_equal(g.gap, SPLIT_GOV_FIRST_TRY);
    /* One thread, half its wall time on a core: the tries that come due are skipped. */
    for (unsigned i = 0; i < 100; i++) {
        assert_false(split_gov_choose(&g));
        split_gov_record(&g, 1000, 1.0, 0.5);
    }
    assert_false(g.keep);
    assert_int_equal(g.gap, SPLIT_GOV_MAX_GAP);
    /* On a core again: the next try due is made, and a split that is quicker but kept off
     * its core does not win it. */
    unsigned n = 0;
    while (!split_gov_choose(&g)) {
        split_gov_record(&g, 1000, 1.0, 1.0);
        assert_true(++n <= SPLIT_GOV_MAX_GAP);
    }
    split_gov_record(&g, 1000, 0.5, 0.2);
    assert_false(g.keep);
    assert_int_equal(g.gap, SPLIT_GOV_MAX_GAP);
    assert_true(bench_cpu_seconds() >= 0);
}

/* Starved means under SPLIT_GOV_STARVED of the wall time on a core: exactly that much is not,
 * none at all is. */
static void test_starved_edges(void **state)
{
    (void)state;
    struct split_gov g;
    split_gov_init(&g);
    for (int i = 0; i < 2; i++) {
        assert_true(split_gov_choose(&g));
        split_gov_record(&g, 1000, 1.0, SPLIT_GOV_STARVED * 1.0);
    }
    assert_true(g.keep);
    split_gov_init(&g);
    for (int i = 0; i < 2; i++) {
        assert_true(split_gov_choose(&g));
        split_gov_record(&g, 1000, 1.0, 0.0);
    }
    assert_false(g.keep);
}

/* The governor's clock is in seconds and moves on with time: a 20 ms nap reads 0.02 or more,
 * and below 15 (a clock in milliseconds would read 20 or more; the bound is on the unit, not on
 * the machine's speed). */
static void test_clock_counts_seconds(void **state)
{
    (void)state;
    double t0 = split_gov_clock();
    struct timespec nap = {0, 20 * 1000 * 1000};
    while (nanosleep(&nap, &nap) != 0)
        ;
    double t1 = split_gov_clock();
    assert_true(t1 - t0 >= 0.019);
    assert_true(t1 - t0 < 15);
}

/* A chunk with no cycles or no measurable time teaches nothing: the try stays due. */
static void test_empty_chunks(void **state)
{
    (void)state;
    struct split_gov g;
    split_gov_init(&g);
    run_chunks(&g, SPLIT_GOV_FIRST_TRY, 1.0, 2.0);
    assert_false(split_gov_choose(&g)); /* the try */
    split_gov_record(&g, 0, 1.0, 1.0);
    assert_false(split_gov_choose(&g)); /* still the try */
    split_gov_record(&g, 1000, 0.0, 0.0);
    assert_false(split_gov_choose(&g));
    split_gov_record(&g, 1000, 2.0, 2.0); /* it loses, clearly */
    assert_true(g.keep);
    assert_int_equal(g.gap, 4 * SPLIT_GOV_FIRST_TRY);
    assert_true(split_gov_clock() > 0);
}

/* The next run on the same machine starts from what the last learnt: the mode and the gap,
 * but no rate (another run's is not comparable), so its first chunks are in the kept mode. */
static void test_remembered(void **state)
{
    (void)state;
    struct split_gov g, next;
    split_gov_recall(&next); /* nothing remembered yet: afresh */
    assert_true(next.keep);
    assert_int_equal(next.gap, SPLIT_GOV_FIRST_TRY);
    split_gov_init(&g);
    run_chunks(&g, 100, 1.4, 1.0); /* a busy machine: one thread */
    split_gov_remember(&g);
    split_gov_recall(&next);
    assert_false(next.keep);
    assert_int_equal(next.gap, SPLIT_GOV_MAX_GAP);
    assert_true(next.rate_keep == 0 && next.rate_prev == 0);
    assert_int_equal(next.since, 0);
    assert_int_equal(run_chunks(&next, SPLIT_GOV_MAX_GAP, 1.4, 1.0), 0);
    assert_int_equal(run_chunks(&next, 1, 1.4, 1.0), 1); /* then a try */
    split_gov_init(&g);
    split_gov_remember(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keeps_split_when_faster),
        cmocka_unit_test(test_backs_off_after_clear_losses),
        cmocka_unit_test(test_moves_to_one_thread_when_slower),
        cmocka_unit_test(test_follows_a_change),
        cmocka_unit_test(test_margin),
        cmocka_unit_test(test_one_slow_chunk),
        cmocka_unit_test(test_starved),
        cmocka_unit_test(test_starved_edges),
        cmocka_unit_test(test_clock_counts_seconds),
        cmocka_unit_test(test_empty_chunks),
        cmocka_unit_test(test_remembered),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
