/* test_split_gov — the governor that picks one thread or a split block for a shared run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "corun/split_gov.h"

/* Runs `n` chunks of 1000 cycles, each taking the seconds its mode takes on a machine where a
 * split chunk takes split_s and a one-thread chunk one_s; returns the chunks run split. */
static unsigned run_chunks(struct split_gov *g, unsigned n, double split_s, double one_s)
{
    unsigned split = 0;
    for (unsigned i = 0; i < n; i++) {
        bool s = split_gov_choose(g);
        split += s;
        split_gov_record(g, 1000, s ? split_s : one_s);
    }
    return split;
}

/* A free second core: the split is kept, and the other mode tried less and less often. */
static void test_keeps_split_when_faster(void **state)
{
    (void)state;
    struct split_gov g;
    split_gov_init(&g);
    assert_true(split_gov_choose(&g)); /* nothing measured: split first */
    split_gov_init(&g);
    unsigned split = run_chunks(&g, 200, 1.0, 1.4);
    assert_true(g.keep);
    assert_int_equal(g.gap, SPLIT_GOV_MAX_GAP);
    /* Tries after 2, 4, 8, 16, 32, then every 32: 200 chunks hold 9 of them. */
    assert_int_equal(split, 200 - 9);
}

/* A busy second core: one try, and the run moves to one thread for good. */
static void test_moves_to_one_thread_when_slower(void **state)
{
    (void)state;
    struct split_gov g;
    split_gov_init(&g);
    unsigned split = run_chunks(&g, 100, 1.4, 1.0);
    assert_false(g.keep);
    /* Split for the first two, then the try of one thread wins; later tries of the split
     * lose: after 2, 4, 8, 16, 32 chunks: 5 more split chunks in the 97 after. */
    assert_int_equal(split, 2 + 5);
}

/* The machine changes: the governor follows within the gap it had reached. */
static void test_follows_a_change(void **state)
{
    (void)state;
    struct split_gov g;
    split_gov_init(&g);
    run_chunks(&g, 100, 1.0, 1.4);
    assert_true(g.keep);
    run_chunks(&g, SPLIT_GOV_MAX_GAP + 1, 1.4, 1.0);
    assert_false(g.keep);
    assert_int_equal(g.gap, SPLIT_GOV_FIRST_TRY);
    run_chunks(&g, SPLIT_GOV_MAX_GAP + 1, 1.0, 1.4);
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

/* A chunk with no cycles or no measurable time teaches nothing: the try stays due. */
static void test_empty_chunks(void **state)
{
    (void)state;
    struct split_gov g;
    split_gov_init(&g);
    run_chunks(&g, SPLIT_GOV_FIRST_TRY, 1.0, 2.0);
    assert_false(split_gov_choose(&g)); /* the try */
    split_gov_record(&g, 0, 1.0);
    assert_false(split_gov_choose(&g)); /* still the try */
    split_gov_record(&g, 1000, 0.0);
    assert_false(split_gov_choose(&g));
    split_gov_record(&g, 1000, 2.0); /* it loses */
    assert_true(g.keep);
    assert_int_equal(g.gap, 2 * SPLIT_GOV_FIRST_TRY);
    assert_true(split_gov_clock() > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keeps_split_when_faster),
        cmocka_unit_test(test_moves_to_one_thread_when_slower),
        cmocka_unit_test(test_follows_a_change),
        cmocka_unit_test(test_margin),
        cmocka_unit_test(test_empty_chunks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
