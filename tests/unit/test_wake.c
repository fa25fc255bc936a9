/* Unit tests: the timing wheel — slots of one or more cycles (a power of two or not), the
 * clamp of far wake-ups to the wheel's last slot, agents past the first word, and the count
 * behind wake_empty. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "corun/wake.h"

/* Whether agent's bit is in the set wake_take returns at now. */
static bool due(struct wake *w, uint64_t now, unsigned agent)
{
    uint64_t set[2] = {0, 0};
    assert_true(wake_words(w) <= 2);
    wake_take(w, now, set);
    return set[agent / 64] >> (agent % 64) & 1;
}

static void an_agent_wakes_in_its_slot(void **state)
{
    (void)state;
    /* Blocks of 1, 4 (a shift) and 3 (a division) cycles; cycle 7 lies in slot 7, 1 and 2. */
    const unsigned blocks[] = {1, 4, 3};
    for (unsigned b = 0; b < 3; b++) {
        unsigned block = blocks[b];
        struct wake *w = wake_new(10, 16, block);
        wake_at(w, 3, 0, 7);
        uint64_t first = 7 / block * block; /* the slot's first cycle */
        if (first > 0)
            assert_false(due(w, first - 1, 3)); /* the slot before: not yet */
        assert_false(wake_empty(w));
        assert_true(due(w, first, 3));
        assert_true(wake_empty(w));
        wake_delete(w);
    }
}

static void far_wake_ups_wait_in_the_last_slot(void **state)
{
    (void)state;
    /* 8 slots of 1 cycle seen from cycle 10: cycle 100 is past the span, so the agent is
     * looked at in the last slot the wheel reaches, cycle 17, and not before. */
    struct wake *w = wake_new(4, 8, 1);
    wake_at(w, 1, 10, 100);
    for (uint64_t t = 10; t < 17; t++)
        assert_false(due(w, t, 1));
    assert_true(due(w, 17, 1));
    assert_true(wake_empty(w));
    wake_delete(w);
}

static void agents_past_the_first_word_and_the_count(void **state)
{
    (void)state;
    struct wake *w = wake_new(100, 4, 1);
    assert_int_equal(wake_words(w), 2);
    wake_at(w, 70, 0, 2);
    wake_at(w, 70, 0, 2); /* twice in one slot: one wake-up */
    wake_at(w, 5, 0, 3);
    uint64_t set[2];
    assert_int_equal(wake_take(w, 1, set), 0);
    assert_int_equal(wake_take(w, 2, set), 1);
    assert_int_equal(set[0], 0);
    assert_int_equal(set[1], 1ull << 6);
    assert_false(wake_empty(w)); /* agent 5 still waits */
    assert_int_equal(wake_take(w, 3, set), 1);
    assert_int_equal(set[0], 1ull << 5);
    assert_true(wake_empty(w));
    wake_delete(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_agent_wakes_in_its_slot),
        cmocka_unit_test(far_wake_ups_wait_in_the_last_slot),
        cmocka_unit_test(agents_past_the_first_word_and_the_count),
    };
    return cmocka_run_group_tests_name("wake", tests, NULL, NULL);
}
