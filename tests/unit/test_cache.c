/* Unit tests: the set-associative cache and its MSHR table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "corun/cache.h"

struct seen {
    uint32_t token[16];
    unsigned n;
};

static void record(void *ctx, uint32_t waiter)
{
    struct seen *s = ctx;
    s->token[s->n++] = waiter;
}

static void rejects_impossible_geometry(void **state)
{
    (void)state;
    assert_null(cache_new(1000, 4, 128, 4, 8, false)); /* not a multiple of the line */
    assert_null(cache_new(4096, 0, 128, 4, 8, false));
    assert_null(cache_new(4096, 3, 128, 4, 8, false)); /* 32 lines do not split in 3 ways */
    assert_null(cache_new(0, 4, 128, 4, 8, false));    /* no line at all */
    assert_null(cache_new(4096, 4, 0, 4, 8, false));   /* lines of no bytes */
    /* The smallest cache there is: one line. */
    struct cache *one = cache_new(128, 1, 128, 4, 8, false);
    assert_non_null(one);
    cache_delete(one);
}

static void miss_then_fill_then_hit(void **state)
{
    (void)state;
    struct cache *c = cache_new(4 * 128, 2, 128, 4, 8, false); /* 2 sets x 2 ways */
    struct cache_victim v;
    struct seen s = {0};
    assert_int_equal(cache_read(c, 10, 7, &v), CACHE_MISS);
    assert_false(v.valid);
    assert_int_equal(cache_mshrs_used(c), 1);
    assert_int_equal(cache_fill(c, 10, record, &s), 1);
    assert_int_equal(s.token[0], 7);
    assert_int_equal(cache_mshrs_used(c), 0);
    assert_int_equal(cache_read(c, 10, 8, &v), CACHE_HIT);
    assert_true(cache_probe(c, 10));
    assert_int_equal(cache_fill(c, 10, record, &s), 0); /* nothing outstanding */
    cache_delete(c);
}

static void lru_evicts_least_recently_used(void **state)
{
    (void)state;
    struct cache *c = cache_new(4 * 128, 2, 128, 4, 8, false); /* lines 0, 2, 4 share set 0 */
    struct cache_victim v;
    struct seen s = {0};
    cache_read(c, 0, 1, &v);
    cache_fill(c, 0, record, &s);
    cache_read(c, 2, 2, &v);
    cache_fill(c, 2, record, &s);
    assert_int_equal(cache_read(c, 0, 3, &v), CACHE_HIT); /* 0 is now the most recent */
    assert_int_equal(cache_read(c, 4, 4, &v), CACHE_MISS);
    assert_true(v.valid);
    assert_int_equal(v.line, 2);
    assert_false(v.dirty);
    assert_true(cache_probe(c, 0));
    assert_false(cache_probe(c, 2));
    cache_delete(c);
}

static void merges_misses_and_wakes_in_order(void **state)
{
    (void)state;
    struct cache *c = cache_new(8 * 128, 2, 128, 2, 8, false);
    struct cache_victim v;
    struct seen s = {0};
    assert_int_equal(cache_read(c, 5, 1, &v), CACHE_MISS);
    assert_int_equal(cache_read(c, 5, 2, &v), CACHE_MERGED);
    assert_int_equal(cache_read(c, 5, 3, &v), CACHE_MERGED);
    assert_int_equal(cache_mshrs_used(c), 1);
    assert_int_equal(cache_fill(c, 5, record, &s), 3);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.token[0], 1);
    assert_int_equal(s.token[1], 2);
    assert_int_equal(s.token[2], 3);
    cache_delete(c);
}

static void full_mshrs_stall(void **state)
{
    (void)state;
    struct cache *c = cache_new(16 * 128, 4, 128, 2, 3, false);
    struct cache_victim v;
    struct seen s = {0};
    assert_true(cache_can_miss(c, 2));
    assert_false(cache_can_miss(c, 3));
    assert_int_equal(cache_read(c, 1, 1, &v), CACHE_MISS);
    assert_int_equal(cache_read(c, 2, 2, &v), CACHE_MISS);
    assert_false(cache_can_miss(c, 1));
    assert_int_equal(cache_read(c, 3, 3, &v), CACHE_STALL);  /* no MSHR left */
    assert_int_equal(cache_read(c, 1, 4, &v), CACHE_MERGED); /* merging needs only a waiter */
    assert_int_equal(cache_read(c, 2, 5, &v), CACHE_STALL);  /* ... and those are gone too */
    assert_false(cache_probe(c, 3));
    cache_fill(c, 1, record, &s);
    assert_int_equal(s.n, 2);
    assert_int_equal(cache_read(c, 3, 6, &v), CACHE_MISS);
    cache_delete(c);
    /* Fewer waiters than MSHRs: the waiters bound, and exactly all of them may be asked for. */
    c = cache_new(16 * 128, 4, 128, 4, 2, false);
    assert_true(cache_can_miss(c, 2));
    assert_false(cache_can_miss(c, 3));
    cache_delete(c);
}

static void many_mshrs_survive_churn(void **state)
{
    (void)state;
    /* Exercises the open-addressing table's deletion: fill in a scrambled order. */
    struct cache *c = cache_new(256 * 128, 8, 128, 64, 64, true);
    struct cache_victim v;
    struct seen s;
    for (uint64_t round = 0; round < 20; round++) {
        for (uint64_t i = 0; i < 64; i++)
            assert_int_equal(cache_read(c, round * 1000 + i * 37, (uint32_t)i, &v), CACHE_MISS);
        assert_false(cache_can_miss(c, 1));
        for (uint64_t i = 0; i < 64; i++) {
            uint64_t j = (i * 29 + round) % 64;
            s.n = 0;
            assert_int_equal(cache_fill(c, round * 1000 + j * 37, record, &s), 1);
            assert_int_equal(s.token[0], (uint32_t)j);
        }
        assert_int_equal(cache_mshrs_used(c), 0);
    }
    cache_delete(c);
}

static void writes_allocate_dirty_and_report_victims(void **state)
{
    (void)state;
    struct cache *c = cache_new(2 * 128, 2, 128, 2, 4, false); /* one set, two ways */
    struct cache_victim v;
    assert_false(cache_write(c, 1, &v));
    assert_false(v.valid);
    assert_true(cache_write(c, 1, &v));
    assert_false(cache_write(c, 2, &v));
    assert_false(cache_write(c, 3, &v)); /* evicts 1, the least recent */
    assert_true(v.valid);
    assert_true(v.dirty);
    assert_int_equal(v.line, 1);
    cache_invalidate_all(c);
    assert_false(cache_probe(c, 2));
    assert_false(cache_write(c, 4, &v)); /* every way is free again: no victim */
    assert_false(v.valid);
    cache_delete(c);
}

/* A way's flags are its own: a miss pending in the third way of a set still merges, and a
 * write to the second way makes that line, and only it, leave dirty. */
static void flags_stay_with_their_way(void **state)
{
    (void)state;
    struct cache *c = cache_new(4 * 128, 4, 128, 4, 8, false); /* one set, four ways */
    struct cache_victim v;
    struct seen s = {0};
    cache_read(c, 1, 1, &v);
    cache_read(c, 2, 2, &v);
    cache_fill(c, 1, record, &s);
    cache_fill(c, 2, record, &s);
    assert_int_equal(cache_read(c, 3, 3, &v), CACHE_MISS); /* way 2, pending */
    assert_int_equal(cache_read(c, 3, 4, &v), CACHE_MERGED);
    assert_true(cache_write(c, 2, &v)); /* way 1: dirty */
    assert_int_equal(cache_fill(c, 3, record, &s), 2);
    assert_false(cache_write(c, 4, &v)); /* the free way 3 */
    assert_false(v.valid);
    /* Least recent first: 1 (clean), 3 (clean: filled, never written), then 2 (dirty). */
    const uint64_t victim[] = {1, 3, 2};
    for (unsigned i = 0; i < 3; i++) {
        assert_false(cache_write(c, 5 + i, &v));
        assert_true(v.valid);
        assert_int_equal(v.line, victim[i]);
        assert_int_equal(v.dirty, victim[i] == 2);
    }
    cache_delete(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rejects_impossible_geometry),
        cmocka_unit_test(miss_then_fill_then_hit),
        cmocka_unit_test(lru_evicts_least_recently_used),
        cmocka_unit_test(merges_misses_and_wakes_in_order),
        cmocka_unit_test(full_mshrs_stall),
        cmocka_unit_test(many_mshrs_survive_churn),
        cmocka_unit_test(writes_allocate_dirty_and_report_victims),
        cmocka_unit_test(flags_stay_with_their_way),
    };
    return cmocka_run_group_tests_name("cache", tests, NULL, NULL);
}
