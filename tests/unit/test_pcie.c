/* Unit tests: pcie — the host link's copies against hand-computed completion times (Prophet
 * Fig. 9): sharing copies split the link, exclusive ones queue one at a time and pause the
 * sharing ones, which resume where they stopped.
 *
 * Every test but the last uses a link where one sharing copy alone moves 4 bytes per ns (4 GB/s)
 * and an exclusive one 8 bytes per ns. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "corun/pcie.h"

static struct pcie_link *link_4_8(void)
{
    const struct pcie_config cfg = {.shared_gbs = 4.0, .exclusive_gbs = 8.0};
    return pcie_link_new(&cfg);
}

/* Advance to until and expect exactly the copies ids[0..n) to complete, at ends[0..n). */
static void expect_done(struct pcie_link *l, double until, size_t n, const uint64_t *ids,
                        const double *ends)
{
    struct pcie_done got[8];
    size_t k = pcie_link_advance(l, until, got, 8);
    assert_int_equal(k, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(got[i].id, ids[i]);
        assert_true(fabs(got[i].end_ns - ends[i]) < 1e-6);
    }
}

static void one_sharing_copy_alone(void **state)
{
    (void)state;
    struct pcie_link *l = link_4_8();
    assert_true(isinf(pcie_link_next_ns(l)));
    pcie_link_submit(l, 0, 7, 4000, PCIE_SHARED);
    assert_true(fabs(pcie_link_next_ns(l) - 1000) < 1e-9); /* 4000 B / 4 B/ns */
    expect_done(l, 999, 0, NULL, NULL);
    expect_done(l, 2000, 1, (uint64_t[]){7}, (double[]){1000});
    assert_int_equal(pcie_link_copies(l), 0);
    assert_true(fabs(pcie_link_busy_ns(l) - 1000) < 1e-9);
    assert_true(fabs(pcie_link_bytes_moved(l) - 4000) < 1e-6);
    assert_true(fabs(pcie_link_now_ns(l) - 2000) < 1e-9);
    pcie_link_delete(l);
}

/* A: 4000 B at 0; B: 1000 B at 500. From 500 each moves 2 B/ns: B ends at 1000, A has
 * 2000 - 1000 = 1000 B left and ends alone at 1000 + 1000/4 = 1250 (not 1000 as alone). */
static void sharing_copies_split_the_link(void **state)
{
    (void)state;
    struct pcie_link *l = link_4_8();
    pcie_link_submit(l, 0, 1, 4000, PCIE_SHARED);
    pcie_link_submit(l, 500, 2, 1000, PCIE_SHARED);
    assert_true(fabs(pcie_link_next_ns(l) - 1000) < 1e-9);
    expect_done(l, 5000, 2, (uint64_t[]){2, 1}, (double[]){1000, 1250});
    assert_true(fabs(pcie_link_busy_ns(l) - 1250) < 1e-9);
    pcie_link_delete(l);
}

/* Three copies of 1200 B at 0 move 4/3 B/ns each and end together at 900. */
static void equal_sharing_copies_end_together(void **state)
{
    (void)state;
    struct pcie_link *l = link_4_8();
    for (uint64_t i = 0; i < 3; i++)
        pcie_link_submit(l, 0, i, 1200, PCIE_SHARED);
    expect_done(l, 900, 3, (uint64_t[]){0, 1, 2}, (double[]){900, 900, 900});
    pcie_link_delete(l);
}

/* Fig. 9(b) and eq. 9: E1 (exclusive, 8000 B = 1000 ns) at 0, E2 (exclusive, 4000 B = 500 ns)
 * at 200, S (sharing, 2000 B = 500 ns) at 300. E2 waits for E1 and ends at 1500; S starts at
 * 300 + 700 (E1's remaining) + 500 (E2) = 1500 and ends at 2000. */
static void copies_queue_behind_exclusive_ones(void **state)
{
    (void)state;
    struct pcie_link *l = link_4_8();
    pcie_link_submit(l, 0, 1, 8000, PCIE_EXCLUSIVE);
    pcie_link_submit(l, 200, 2, 4000, PCIE_EXCLUSIVE);
    pcie_link_submit(l, 300, 3, 2000, PCIE_SHARED);
    expect_done(l, 1499, 1, (uint64_t[]){1}, (double[]){1000});
    assert_int_equal(pcie_link_copies(l), 2);
    expect_done(l, 3000, 2, (uint64_t[]){2, 3}, (double[]){1500, 2000});
    assert_true(fabs(pcie_link_busy_ns(l) - 2000) < 1e-9);
    assert_true(fabs(pcie_link_bytes_moved(l) - 14000) < 1e-6);
    pcie_link_delete(l);
}

/* Fig. 9(c): S1 and S2 (sharing, 4000 B each) at 0 would end at 2000; E (exclusive, 8000 B =
 * 1000 ns) at 1000 ends at 2000 and pauses both, which end 1000 ns late, at 3000. */
static void an_exclusive_copy_pauses_the_sharing_ones(void **state)
{
    (void)state;
    struct pcie_link *l = link_4_8();
    pcie_link_submit(l, 0, 1, 4000, PCIE_SHARED);
    pcie_link_submit(l, 0, 2, 4000, PCIE_SHARED);
    pcie_link_submit(l, 1000, 3, 8000, PCIE_EXCLUSIVE);
    assert_true(fabs(pcie_link_next_ns(l) - 2000) < 1e-9);
    expect_done(l, 2500, 1, (uint64_t[]){3}, (double[]){2000});
    expect_done(l, 4000, 2, (uint64_t[]){1, 2}, (double[]){3000, 3000});
    pcie_link_delete(l);
}

/* An exclusive copy that arrives while a sharing one waits behind another exclusive copy
 * goes first too: E1 (8000 B) at 0, S (2000 B) at 100, E2 (4000 B) at 200: E1 ends at
 * 1000, E2 at 1500, S at 2000. */
static void exclusive_copies_go_before_waiting_sharing_ones(void **state)
{
    (void)state;
    struct pcie_link *l = link_4_8();
    pcie_link_submit(l, 0, 1, 8000, PCIE_EXCLUSIVE);
    pcie_link_submit(l, 100, 2, 2000, PCIE_SHARED);
    pcie_link_submit(l, 200, 3, 4000, PCIE_EXCLUSIVE);
    expect_done(l, 5000, 3, (uint64_t[]){1, 3, 2}, (double[]){1000, 1500, 2000});
    pcie_link_delete(l);
}

/* A sharing copy behind exclusive ones stalls: S (400 B) at 0 moves until E1 (8000 B, 1000
 * ns) arrives at 50, then waits while E1 and E2 (submitted at 1050 as E1 ends: no gap) hold
 * the link; stalled since 50. Once E2 ends at 2050 it moves again (stalled 0) and its last
 * 200 B take 50 ns; a copy the link does not hold is stalled 0. */
static void a_sharing_copy_stalls_behind_exclusive_ones(void **state)
{
    (void)state;
    struct pcie_link *l = link_4_8();
    pcie_link_submit(l, 0, 1, 400, PCIE_SHARED);
    pcie_link_submit(l, 50, 2, 8000, PCIE_EXCLUSIVE);
    assert_true(fabs(pcie_link_stalled_ns(l, 1)) < 1e-9);
    expect_done(l, 1050, 1, (uint64_t[]){2}, (double[]){1050});
    pcie_link_submit(l, 1050, 3, 8000, PCIE_EXCLUSIVE);
    assert_true(fabs(pcie_link_stalled_ns(l, 1) - 1000) < 1e-9);
    assert_true(fabs(pcie_link_stalled_ns(l, 3)) < 1e-9); /* just submitted */
    expect_done(l, 2040, 0, NULL, NULL);
    assert_true(fabs(pcie_link_stalled_ns(l, 1) - 1990) < 1e-9);
    expect_done(l, 2060, 1, (uint64_t[]){3}, (double[]){2050});
    assert_true(fabs(pcie_link_stalled_ns(l, 1)) < 1e-9); /* moving since 2050 */
    expect_done(l, 3000, 1, (uint64_t[]){1}, (double[]){2100});
    assert_true(fabs(pcie_link_stalled_ns(l, 1)) < 1e-9);
    pcie_link_delete(l);
}

/* Copies completed while the owner submits later ones are kept, and a small out array gets
 * them over several calls in order. */
static void completions_are_kept_until_taken(void **state)
{
    (void)state;
    struct pcie_link *l = link_4_8();
    pcie_link_submit(l, 0, 1, 400, PCIE_SHARED);      /* ends at 100 */
    pcie_link_submit(l, 200, 2, 800, PCIE_EXCLUSIVE); /* 200 .. 300 */
    pcie_link_submit(l, 1000, 3, 400, PCIE_SHARED);   /* 1000 .. 1100 */
    assert_true(fabs(pcie_link_next_ns(l) - 100) < 1e-9);
    struct pcie_done one;
    assert_int_equal(pcie_link_advance(l, 1200, &one, 1), 1);
    assert_int_equal(one.id, 1);
    assert_true(fabs(one.end_ns - 100) < 1e-9);
    expect_done(l, 1200, 2, (uint64_t[]){2, 3}, (double[]){300, 1100});
    /* Busy 100 + 100 + 100 of 1200 ns: idle gaps do not count. */
    assert_true(fabs(pcie_link_busy_ns(l) - 300) < 1e-9);
    pcie_link_delete(l);
}

/* A slow link (1 B/ns shared) and twelve equal copies at once: each moves 1/12 B/ns, below
 * 1 B/ns, and all twelve end together at 120 * 12 = 1440 ns, more copies and completions at
 * once than the link first makes room for (8). Each is moving, not stalled, in between. */
static void many_slow_copies_end_together(void **state)
{
    (void)state;
    const struct pcie_config cfg = {.shared_gbs = 1.0, .exclusive_gbs = 2.0};
    struct pcie_link *l = pcie_link_new(&cfg);
    for (uint64_t id = 1; id <= 12; id++)
        pcie_link_submit(l, 0, id, 120, PCIE_SHARED);
    assert_int_equal(pcie_link_copies(l), 12);
    assert_true(fabs(pcie_link_next_ns(l) - 1440) < 1e-6);
    struct pcie_done got[16];
    assert_int_equal(pcie_link_advance(l, 700, got, 16), 0);
    for (uint64_t id = 1; id <= 12; id++)
        assert_true(fabs(pcie_link_stalled_ns(l, id)) < 1e-9);
    assert_true(fabs(pcie_link_bytes_moved(l) - 700) < 1e-6);
    assert_int_equal(pcie_link_advance(l, 2000, got, 16), 12);
    for (size_t i = 0; i < 12; i++) {
        assert_int_equal(got[i].id, i + 1);
        assert_true(fabs(got[i].end_ns - 1440) < 1e-6);
    }
    assert_int_equal(pcie_link_copies(l), 0);
    assert_true(fabs(pcie_link_bytes_moved(l) - 1440) < 1e-6);
    assert_true(fabs(pcie_link_busy_ns(l) - 1440) < 1e-6);
    pcie_link_delete(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_sharing_copy_alone),
        cmocka_unit_test(sharing_copies_split_the_link),
        cmocka_unit_test(equal_sharing_copies_end_together),
        cmocka_unit_test(copies_queue_behind_exclusive_ones),
        cmocka_unit_test(an_exclusive_copy_pauses_the_sharing_ones),
        cmocka_unit_test(exclusive_copies_go_before_waiting_sharing_ones),
        cmocka_unit_test(completions_are_kept_until_taken),
        cmocka_unit_test(a_sharing_copy_stalls_behind_exclusive_ones),
        cmocka_unit_test(many_slow_copies_end_together),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
