/* Unit tests: prophet_model — Prophet's equations 1–9 against answers worked out by hand.
 *
 * The hardware of every test: 15 PEs of 64 warps and 240 GB/s of global memory. Kernel A:
 * 900 us alone, 2880 warps at occupancy 0.5, 8 GB/s per PE (120 GB/s on all 15: no
 * contention alone). Kernel B: 600 us alone, 1000 warps at occupancy 0.75, 32 GB/s per PE
 * (480 GB/s on all 15: twice what the memory gives). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "assert_close.h"

#include "corun/prophet_model.h"

static const struct prophet_hw hw = {.pes = 15, .max_warps_per_pe = 64, .mem_gbs = 240.0};
static const struct prophet_kernel ka = {
    .solo_ns = 900000, .warps = 2880, .occupancy = 0.5, .bw_per_pe_gbs = 8.0};
static const struct prophet_kernel kb = {
    .solo_ns = 600000, .warps = 1000, .occupancy = 0.75, .bw_per_pe_gbs = 32.0};

#define NEAR(a, b) assert_close((a), (b), 1e-6)

/* Eq. 1: 100 + 50 (itself) + 30 + 20 (queued) + 10 (the running one's rest). */
static void sequential_model(void **state)
{
    (void)state;
    const double queued[] = {30, 20};
    NEAR(prophet_sequential_end_ns(100, 50, queued, 2, 10), 210);
    NEAR(prophet_sequential_end_ns(100, 50, NULL, 0, 0), 150);
}

/* A: 64 x 0.5 = 32 warps per PE, 480 per batch on 15 PEs, ceil(2880 / 480) = 6 batches of
 * 900 / 6 = 150 us. B: 48 warps per PE, 720 per batch, 2 batches; alone it asks 480 of 240
 * GB/s, so its solo time holds the contention and an uncontended batch is 600 / 2 x 240 / 480
 * = 150 us (eq. 2). */
static void batches_of_warps(void **state)
{
    (void)state;
    assert_int_equal(prophet_warps_per_pe(&hw, &ka), 32);
    assert_int_equal(prophet_batches(&hw, &ka), 6);
    NEAR(prophet_batch_solo_ns(&hw, &ka), 150000);
    assert_int_equal(prophet_warps_per_pe(&hw, &kb), 48);
    assert_int_equal(prophet_batches(&hw, &kb), 2);
    NEAR(prophet_batch_solo_ns(&hw, &kb), 150000);
    /* 448 warps at occupancy 1 fill 7 PEs: 7 x 30 = 210 < 240 GB/s alone, so no scaling
     * (bw x N_p = 450 would have scaled it to 100 x 240 / 450). */
    const struct prophet_kernel small = {
        .solo_ns = 100, .warps = 448, .occupancy = 1.0, .bw_per_pe_gbs = 30.0};
    assert_int_equal(prophet_batches(&hw, &small), 1);
    NEAR(prophet_batch_solo_ns(&hw, &small), 100);
    /* One warp past a full batch (961 = 960 + 1 at occupancy 1) takes a second batch. */
    const struct prophet_kernel over = {.solo_ns = 100, .warps = 961, .occupancy = 1.0};
    assert_int_equal(prophet_batches(&hw, &over), 2);
    /* An occupancy below one warp of 64 (0.01 x 64 = 0.64) still runs one warp per PE: 30
     * warps on 15 PEs take two batches. */
    const struct prophet_kernel thin = {.solo_ns = 100, .warps = 30, .occupancy = 0.01};
    assert_int_equal(prophet_warps_per_pe(&hw, &thin), 1);
    assert_int_equal(prophet_batches(&hw, &thin), 2);
}

/* Observation 1: a batch takes the PEs its warps fill, no more than are free. B's 1000 warps
 * would fill ceil(1000 / 48) = 21 PEs: it takes all 15 free; its last 280 fill 6; with 4 free
 * it takes 4. */
static void free_pes(void **state)
{
    (void)state;
    assert_int_equal(prophet_batch_pes(&hw, &kb, 1000, 15), 15);
    assert_int_equal(prophet_batch_pes(&hw, &kb, 280, 15), 6);
    assert_int_equal(prophet_batch_pes(&hw, &kb, 280, 4), 4);
    assert_int_equal(prophet_batch_pes(&hw, &ka, 32, 15), 1);
}

/* Eq. 3: A's 150 us batch on 15 PEs (120 GB/s) beside 6 PEs of B (192 GB/s) asks 312 of 240
 * GB/s: 150 x 1.3 = 195 us; alone, 120 < 240: 150 us. */
static void bandwidth_sharing(void **state)
{
    (void)state;
    NEAR(prophet_batch_ns(150000, 8.0, 15, 192.0, 240.0), 195000);
    NEAR(prophet_batch_ns(150000, 8.0, 15, 0.0, 240.0), 150000);
}

/* Eq. 5: an active task asking 120 GB/s, overlapped for 100 us by a batch asking 192: the
 * slowdown goes from 1 to 312 / 240 = 1.3, so it ends 30 us later. Already at 300 GB/s (1.25),
 * 60 more make it 1.5: 100 x (1.5 / 1.25 - 1) = 20 us. Under the bandwidth, nothing. */
static void overlap_delays_active_tasks(void **state)
{
    (void)state;
    NEAR(prophet_overlap_delay_ns(100000, 192.0, 120.0, 240.0), 30000);
    NEAR(prophet_overlap_delay_ns(100000, 60.0, 300.0, 240.0), 20000);
    NEAR(prophet_overlap_delay_ns(100000, 60.0, 100.0, 240.0), 0);
}

/* Eqs. 6–8 with one active copy. It ends at 1000; a new one of 500 ns alone is submitted at
 * 0: the segment [0, 500] is shared by 2 instead of 1 and lasts 1000, [500, 1000] by 1 as
 * before: the new copy ends at 1000, the old one at 1500. An old one ending at 300 instead:
 * [0, 300] by 2 lasts 600 (it ends at 600), [300, 500] has the new copy alone: 800. */
static void sharing_segments_one_copy(void **state)
{
    (void)state;
    double ends[1] = {1000};
    NEAR(prophet_bs_submit(ends, 1, 0, 500), 1000);
    NEAR(ends[0], 1500);
    double early[1] = {300};
    NEAR(prophet_bs_submit(early, 1, 0, 500), 800);
    NEAR(early[0], 600);
    NEAR(prophet_bs_submit(NULL, 0, 40, 500), 540); /* nothing to share with */
}

/* Two active copies ending at 200 and 600, a new one of 300 ns at 100 (its own end 400):
 * [100, 200]: ON 2, N 3: 150, the first ends at 250; [200, 400]: ON 1, N 2: 400, the new one
 * ends at 650; [400, 600]: ON 1, N 1: 200, the second ends at 850. */
static void sharing_segments_two_copies(void **state)
{
    (void)state;
    double ends[2] = {200, 600};
    NEAR(prophet_bs_submit(ends, 2, 100, 300), 650);
    NEAR(ends[0], 250);
    NEAR(ends[1], 850);
}

/* The equations as written scale each segment by N / ON, which is exact while one copy was
 * alone (above) but not when several already shared: two copies ending together at 1000 and a
 * new one of 400 give [0, 400] x 3/2 = 600 for the new copy and 1200 for both old ones (an
 * even split of the link would give 1200 and 1400). This pins the formula, not the link. */
static void sharing_segments_as_written(void **state)
{
    (void)state;
    double ends[2] = {1000, 1000};
    NEAR(prophet_bs_submit(ends, 2, 0, 400), 600);
    NEAR(ends[0], 1200);
    NEAR(ends[1], 1200);
}

/* corun's even split (prophet-even), worked by hand. Two copies ending together at 1000 have
 * 500 ns each left alone on the link; with a new one of 400 the three share it: the new one
 * ends at 3 x 400 = 1200, the old ones at 1200 + 2 x 100 = 1400 (the as-written figures are
 * 600 and 1200). The two copies ending at 200 and 600 at 100 have 100 / 2 = 50 and
 * 50 + 400 = 450 left; the new one of 300: 100 + 3 x 50 = 250, + 2 x 250 = 750, + 450 - 300
 * = 900 (as written: 250, 650, 850). With one copy in flight or none it equals eqs. 6-8. */
static void sharing_segments_even(void **state)
{
    (void)state;
    double ends[2] = {1000, 1000};
    NEAR(prophet_bs_submit_even(ends, 2, 0, 400), 1200);
    NEAR(ends[0], 1400);
    NEAR(ends[1], 1400);
    double two[2] = {200, 600};
    NEAR(prophet_bs_submit_even(two, 2, 100, 300), 750);
    NEAR(two[0], 250);
    NEAR(two[1], 900);
    /* a new copy longer than both: it ends last, after 3 x 50 + 2 x 400 + 1 x 50 */
    double longer[2] = {200, 600};
    NEAR(prophet_bs_submit_even(longer, 2, 100, 500), 1100);
    NEAR(longer[0], 250);
    NEAR(longer[1], 1050);
    const double one_end[] = {1000, 300};
    const double t_run[] = {500, 500};
    for (int i = 0; i < 2; i++) {
        double a[1] = {one_end[i]}, b[1] = {one_end[i]};
        NEAR(prophet_bs_submit_even(a, 1, 0, t_run[i]), prophet_bs_submit(b, 1, 0, t_run[i]));
        NEAR(a[0], b[0]);
    }
    NEAR(prophet_bs_submit_even(NULL, 0, 40, 500), 540);
}

/* Eq. 9 (Fig. 9(b)): submitted at 300 while an exclusive copy has 700 ns left and one of
 * 500 ns waits: it starts at 1500. §5.2.3 (Fig. 9(c)): an exclusive copy of 1000 ns delays
 * both sharing copies in flight by 1000. */
static void exclusive_queueing_and_preemption(void **state)
{
    (void)state;
    const double queued[] = {500};
    NEAR(prophet_be_start_ns(300, 700, queued, 1), 1500);
    NEAR(prophet_be_start_ns(300, 0, NULL, 0), 300);
    double ends[3] = {2000, 2000, 2500};
    prophet_be_preempt(ends, 2, 1000);
    NEAR(ends[0], 3000);
    NEAR(ends[1], 3000);
    NEAR(ends[2], 2500); /* past the n copies given: not touched */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sequential_model),
        cmocka_unit_test(batches_of_warps),
        cmocka_unit_test(free_pes),
        cmocka_unit_test(bandwidth_sharing),
        cmocka_unit_test(overlap_delays_active_tasks),
        cmocka_unit_test(sharing_segments_one_copy),
        cmocka_unit_test(sharing_segments_two_copies),
        cmocka_unit_test(sharing_segments_as_written),
        cmocka_unit_test(sharing_segments_even),
        cmocka_unit_test(exclusive_queueing_and_preemption),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
