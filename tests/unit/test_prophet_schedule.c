/* Unit tests: prophet_schedule — the schedule predictor on small traces whose predicted
 * timelines are worked out by hand (15 PEs of 64 warps, 240 GB/s, times in ns). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "assert_close.h"

#include "corun/pcie.h"
#include "corun/prophet_schedule.h"

static const struct prophet_hw hw = {.pes = 15, .max_warps_per_pe = 64, .mem_gbs = 240.0};

#define NEAR(a, b) assert_close((a), (b), 1e-6)

static struct prophet_task kernel(double solo, unsigned warps, double occu, double bw)
{
    return (struct prophet_task){
        .type = PROPHET_KERNEL,
        .solo_ns = solo,
        .kernel = {.solo_ns = solo, .warps = warps, .occupancy = occu, .bw_per_pe_gbs = bw}};
}

static struct prophet_task copy(int type, double solo, int exclusive)
{
    return (struct prophet_task){.type = type, .solo_ns = solo, .exclusive = exclusive};
}

/* Alone, a trace takes its solo time: 100 + 6 batches of 150 us + 50; twice over. */
static void alone_is_solo(void **state)
{
    (void)state;
    struct prophet_task t[] = {copy(PROPHET_H2D, 100, 0), kernel(900000, 2880, 0.5, 8.0),
                               copy(PROPHET_D2H, 50, 0)};
    double ends[2];
    struct prophet_app app = {t, 3, 0, 2, ends, NULL};
    NEAR(prophet_schedule(&hw, &app, 1), 1800300);
    NEAR(ends[0], 900150);
    NEAR(ends[1], 1800300);
}

typedef double schedule_fn(const struct prophet_hw *hw, struct prophet_app *apps, size_t napps);

/* Kernels k1, submitted at 0, and k2, submitted at at2, each an application of one pass, on
 * schedule; their ends in e[0] and e[1]. Returns what schedule returns. */
static double two_kernels(schedule_fn *schedule, struct prophet_task k1, struct prophet_task k2,
                          double at2, double e[2])
{
    struct prophet_app apps[] = {{&k1, 1, 0, 1, &e[0], NULL}, {&k2, 1, at2, 1, &e[1], NULL}};
    return schedule(&hw, apps, 2);
}

/* Fig. 8's case. K1 (640 warps at 32 per PE: a batch on all 15 PEs, then 160 warps on 5;
 * 100 ns a batch) starts at 0; K2 (320 warps: 10 PEs, one 100 ns batch) is submitted at 50 and
 * finds no free PE. At 100 K1's second batch takes 5 PEs and K2 the other 10: both end at 200,
 * K2 150 ns after its submission (100 alone; the sequential model says 250). */
static void queued_task_takes_the_free_pes(void **state)
{
    (void)state;
    double e[2];
    two_kernels(prophet_schedule, kernel(200, 640, 0.5, 0), kernel(100, 320, 0.5, 0), 50, e);
    NEAR(e[0], 200);
    NEAR(e[1], 200);
}

/* A kernel in flight across another's whole life: K1 (160 warps: one 300 ns batch on 5 PEs)
 * starts at 0; K2 (one 100 ns batch on 5 of the 10 free PEs) is submitted at 100 and ends at
 * 200, when K1 has 100 ns of work left: K1 ends at 300, as alone. */
static void a_batch_in_flight_keeps_its_time(void **state)
{
    (void)state;
    double e[2];
    NEAR(two_kernels(prophet_schedule, kernel(300, 160, 0.5, 0), kernel(100, 160, 0.5, 0), 100, e),
         300);
    NEAR(e[0], 300);
    NEAR(e[1], 200);
}

/* The same two kernels on the sequential model (eq. 1): K2 waits for all of K1 (150 ns left
 * at 50) and then runs its solo 100 ns: it ends at 300, 250 after its submission. */
static void sequential_model_queues_whole_tasks(void **state)
{
    (void)state;
    double e[2];
    NEAR(two_kernels(prophet_schedule_sequential, kernel(200, 640, 0.5, 0),
                     kernel(100, 320, 0.5, 0), 50, e),
         300);
    NEAR(e[0], 200);
    NEAR(e[1], 300);
    /* Two sharing copies of 100 ns submitted together go one after the other there (they
     * would share the link and both end at 200 on the data transfer model). */
    struct prophet_task c[] = {copy(PROPHET_H2D, 100, 0)};
    double f1, f2;
    struct prophet_app capps[] = {{c, 1, 0, 1, &f1, NULL}, {c, 1, 0, 1, &f2, NULL}};
    prophet_schedule_sequential(&hw, capps, 2);
    NEAR(f1, 100);
    NEAR(f2, 200);
    prophet_schedule(&hw, capps, 2);
    NEAR(f1, 200);
    NEAR(f2, 200);
}

/* Passes submitted at their arrivals: a 100 ns copy arriving at 50, 100 and 400 ends at 150,
 * 250 (queued behind the first) and 500. */
static void passes_wait_for_their_arrival(void **state)
{
    (void)state;
    struct prophet_task c[] = {copy(PROPHET_H2D, 100, 0)};
    const double arrive[] = {50, 100, 400};
    double ends[3];
    struct prophet_app app = {c, 1, 0, 3, ends, arrive};
    NEAR(prophet_schedule(&hw, &app, 1), 500);
    NEAR(ends[0], 150);
    NEAR(ends[1], 250);
    NEAR(ends[2], 500);
}

/* Two kernels that fit side by side (7 + 8 PEs) asking 30 GB/s per PE: 210 + 240 = 450 of
 * 240 GB/s slows both by 1.875: 100 ns each becomes 187.5. */
static void concurrent_tasks_share_bandwidth(void **state)
{
    (void)state;
    struct prophet_task t1[] = {kernel(100, 448, 1.0, 30.0)};
    struct prophet_task t2[] = {kernel(100, 512, 1.0, 30.0)};
    double e1, e2;
    struct prophet_app apps[] = {{t1, 1, 0, 1, &e1, NULL}, {t2, 1, 0, 1, &e2, NULL}};
    prophet_schedule(&hw, apps, 2);
    NEAR(e1, 187.5);
    NEAR(e2, 187.5);
}

/* Copies: a sharing copy of 1000 ns at 0, an exclusive one of 500 ns at 200 pauses it (it
 * ends at 1500, the exclusive one at 700); a copy the other way is not touched (300). */
static void exclusive_copy_pauses_sharing_one(void **state)
{
    (void)state;
    struct prophet_task tl[] = {copy(PROPHET_H2D, 1000, 0)};
    struct prophet_task tb[] = {copy(PROPHET_H2D, 500, 1)};
    struct prophet_task tc[] = {copy(PROPHET_D2H, 300, 0)};
    double el, eb, ec;
    struct prophet_app apps[] = {
        {tl, 1, 0, 1, &el, NULL}, {tb, 1, 200, 1, &eb, NULL}, {tc, 1, 0, 1, &ec, NULL}};
    prophet_schedule(&hw, apps, 3);
    NEAR(el, 1500);
    NEAR(eb, 700);
    NEAR(ec, 300);
}

/* Sharing copies of 1000 and 500 ns submitted together (eqs. 6–8: the second joins the
 * first): 1000 and 1500. A sharing copy submitted at 100 behind an exclusive one of 400
 * (eq. 9) starts at 400 and ends at 700. */
static void sharing_and_queued_copies(void **state)
{
    (void)state;
    struct prophet_task ta[] = {copy(PROPHET_H2D, 1000, 0)};
    struct prophet_task tb[] = {copy(PROPHET_H2D, 500, 0)};
    double ea, eb;
    struct prophet_app apps[] = {{ta, 1, 0, 1, &ea, NULL}, {tb, 1, 0, 1, &eb, NULL}};
    prophet_schedule(&hw, apps, 2);
    NEAR(ea, 1500);
    NEAR(eb, 1000);

    struct prophet_task tx[] = {copy(PROPHET_D2H, 400, 1)};
    struct prophet_task ty[] = {copy(PROPHET_D2H, 300, 0)};
    double ex, ey;
    struct prophet_app q[] = {{tx, 1, 0, 1, &ex, NULL}, {ty, 1, 100, 1, &ey, NULL}};
    prophet_schedule(&hw, q, 2);
    NEAR(ex, 400);
    NEAR(ey, 700);
}

/* Exclusive copies queue in submission order, each for its own duration: 400 at 0, 300 at
 * 10 and 200 at 20 run 0-400, 400-700 and 700-900. */
static void exclusive_copies_queue(void **state)
{
    (void)state;
    struct prophet_task ta[] = {copy(PROPHET_H2D, 400, 1)};
    struct prophet_task tb[] = {copy(PROPHET_H2D, 300, 1)};
    struct prophet_task tc[] = {copy(PROPHET_H2D, 200, 1)};
    double ea, eb, ec;
    struct prophet_app apps[] = {
        {ta, 1, 0, 1, &ea, NULL}, {tb, 1, 10, 1, &eb, NULL}, {tc, 1, 20, 1, &ec, NULL}};
    NEAR(prophet_schedule(&hw, apps, 3), 900);
    NEAR(ea, 400);
    NEAR(eb, 700);
    NEAR(ec, 900);
}

/* A looping batch application beside two LS passes. The batch kernel (15 PEs, 300 ns) starts
 * at 0; the LS kernel (15 PEs, 100 ns) submitted at 10 waits and runs 300-400 (pass 1), before
 * the batch's next kernel (submitted at 300, later than the LS one). That one runs 400-700, the
 * LS pass 2 (submitted at 400) 700-800. */
static void looping_batch_and_ls_passes(void **state)
{
    (void)state;
    struct prophet_task ls[] = {kernel(100, 960, 1.0, 0)};
    struct prophet_task batch[] = {kernel(300, 960, 1.0, 0)};
    double ends[2];
    struct prophet_app apps[] = {{ls, 1, 10, 2, ends, NULL}, {batch, 1, 0, 0, NULL, NULL}};
    NEAR(prophet_schedule(&hw, apps, 2), 800);
    NEAR(ends[0], 400);
    NEAR(ends[1], 800);
}

/* An LS application whose sharing copy waits behind exclusive copies that follow each other
 * without a gap (two batch apps, each looping over one 1 ms exclusive copy) never completes:
 * after PCIE_STARVED_NS of waiting its passes left end at INFINITY and the schedule returns.
 * With one such batch app the link has no gap either; with its copy sharing, the LS copy
 * (100 ns) shares the link and both its passes end. */
static void starved_behind_exclusive_copies(void **state)
{
    (void)state;
    struct prophet_task ls[] = {copy(PROPHET_H2D, 100, 0)};
    struct prophet_task be[] = {copy(PROPHET_H2D, 1e6, 1)};
    double ends[3] = {0, 0, -1}; /* ends[2]: past the 2 passes, left alone */
    struct prophet_app apps[] = {
        {ls, 1, 10, 2, ends, NULL}, {be, 1, 0, 0, NULL, NULL}, {be, 1, 0, 0, NULL, NULL}};
    double last = prophet_schedule(&hw, apps, 3);
    assert_true(isinf(ends[0]) && isinf(ends[1]));
    assert_true(ends[2] == -1);
    assert_true(last >= PCIE_STARVED_NS && last < PCIE_STARVED_NS + 2e6);
    struct prophet_app one[] = {apps[0], apps[1]};
    prophet_schedule(&hw, one, 2);
    assert_true(isinf(ends[0]) && isinf(ends[1]));
    struct prophet_task bs[] = {copy(PROPHET_H2D, 1e6, 0)};
    struct prophet_app shared[] = {{ls, 1, 10, 2, ends, NULL}, {bs, 1, 0, 0, NULL, NULL}};
    prophet_schedule(&hw, shared, 2);
    assert_true(isfinite(ends[0]) && isfinite(ends[1]) && ends[1] < 1e6);
}

/* Three applications, each one 100 ns sharing copy, all submitted at 0 (in application order).
 * As written (eqs. 6-8): the first ends at 100; the second joins it and both end at 200; the
 * third joins two copies ending at 200 and is placed at its solo end, 100, stretched by 3 / 2:
 * it ends at 150 and the other two at 250. With hw.bs_even (prophet-even) the three split the
 * link evenly and all end at 300. */
static void three_sharing_copies(void **state)
{
    (void)state;
    struct prophet_task t[] = {copy(PROPHET_H2D, 100, 0)};
    double e[3];
    struct prophet_app apps[] = {
        {t, 1, 0, 1, &e[0], NULL}, {t, 1, 0, 1, &e[1], NULL}, {t, 1, 0, 1, &e[2], NULL}};
    NEAR(prophet_schedule(&hw, apps, 3), 250);
    NEAR(e[0], 250);
    NEAR(e[1], 250);
    NEAR(e[2], 150);
    struct prophet_hw even = hw;
    even.bs_even = 1;
    NEAR(prophet_schedule(&even, apps, 3), 300);
    for (int i = 0; i < 3; i++)
        NEAR(e[i], 300);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(alone_is_solo),
        cmocka_unit_test(queued_task_takes_the_free_pes),
        cmocka_unit_test(sequential_model_queues_whole_tasks),
        cmocka_unit_test(passes_wait_for_their_arrival),
        cmocka_unit_test(concurrent_tasks_share_bandwidth),
        cmocka_unit_test(exclusive_copy_pauses_sharing_one),
        cmocka_unit_test(exclusive_copies_queue),
        cmocka_unit_test(sharing_and_queued_copies),
        cmocka_unit_test(looping_batch_and_ls_passes),
        cmocka_unit_test(three_sharing_copies),
        cmocka_unit_test(starved_behind_exclusive_copies),
        cmocka_unit_test(a_batch_in_flight_keeps_its_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
