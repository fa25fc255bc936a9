/* Unit tests: reproduce_prophet — the pairs of each experiment by class, the choice of the
 * most batch instances that keep the target, the summary over pairs, and one co-location
 * point's normalization (the LS application alone is the reference, so n = 0 is 1.00x by
 * construction). A real co-location run is in test_reproduce_prophet_run.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "assert_close.h"

#include "corun/reproduce_prophet.h"

static void test_pairs(void **state)
{
    (void)state;
    const struct rp_pair *p;
    size_t n = rp_accuracy_pairs(true, &p);
    unsigned count[RP_CLASSES] = {0};
    assert_int_equal(n, 6);
    for (size_t i = 0; i < n; i++)
        count[p[i].cls]++;
    for (int c = 0; c < RP_CLASSES; c++)
        assert_int_equal(count[c], 2);
    /* the full form: 4 x 5 compute pairs, 3 x 6 PCIe pairs, 4 x 6 + 3 x 5 mixed ones */
    n = rp_accuracy_pairs(false, &p);
    assert_int_equal(n, 77);
    memset(count, 0, sizeof count);
    for (size_t i = 0; i < n; i++)
        count[p[i].cls]++;
    assert_int_equal(count[RP_COMPUTE], 20);
    assert_int_equal(count[RP_PCIE], 18);
    assert_int_equal(count[RP_LOW], 39);
    assert_int_equal(rp_coloc_pairs(true, &p), 1);
    assert_string_equal(p[0].ls, "dig");
    assert_int_equal(rp_coloc_pairs(false, &p), 7);
    assert_true(rp_published_error[RP_COMPUTE] == 0.059);
    assert_true(rp_published_error[RP_PCIE] == 0.051);
    assert_true(rp_published_error[RP_LOW] == 0.055);
    assert_string_equal(rp_class_name(RP_PCIE), "PCIe-intensive");
}

static void test_largest(void **state)
{
    (void)state;
    struct rp_coloc_point pt[16];
    memset(pt, 0, sizeof pt);
    assert_int_equal(rp_coloc_largest(pt, 0), -1);
    pt[0].measured_met = pt[3].measured_met = pt[7].measured_met = true;
    pt[15].prophet_met = true;
    pt[2].sequential_met = true;
    pt[4].even_met = true;
    assert_int_equal(rp_coloc_largest(pt, 3), 4);
    assert_int_equal(rp_coloc_largest(pt, 0), 7); /* the largest that holds, gaps allowed */
    assert_int_equal(rp_coloc_largest(pt, 1), 15);
    assert_int_equal(rp_coloc_largest(pt, 2), 2);
}

/* Two pairs, target 2.0. Pair A: measured meets up to 6, prophet's 9 is 2.2x on the core
 * (violated by 10 %), the sequential model keeps none but 0 (0 / 15), prophet-even keeps up to
 * 3. Pair B: everything meets up to 15. Oracle (6 + 15) / 2 / 15 = 0.7, prophet (9 + 15) / 30
 * = 0.8, sequential (0 + 15) / 30 = 0.5, prophet-even (3 + 15) / 30 = 0.6; one of prophet's two
 * choices violates, by 10 %; none of prophet-even's. */
static void test_summary(void **state)
{
    (void)state;
    struct rp_coloc_point pts[2][16];
    memset(pts, 0, sizeof pts);
    for (int k = 0; k < 16; k++) {
        pts[0][k].measured_x = k <= 6 ? 1.5 : 2.2;
        pts[0][k].measured_met = k <= 6;
        pts[0][k].prophet_met = k <= 9;
        pts[0][k].sequential_met = k == 0;
        pts[0][k].even_met = k <= 3;
        pts[1][k].measured_x = 1.9;
        pts[1][k].measured_met = pts[1][k].prophet_met = pts[1][k].sequential_met = true;
        pts[1][k].even_met = true;
    }
    struct rp_coloc_summary s;
    rp_coloc_summarize((const struct rp_coloc_point(*)[16])pts, 2, 2.0, &s);
    assert_int_equal(s.pairs, 2);
    assert_close(s.oracle_util, 0.7, 1e-12);
    assert_close(s.prophet_util, 0.8, 1e-12);
    assert_close(s.sequential_util, 0.5, 1e-12);
    assert_int_equal(s.prophet_violations, 1);
    assert_close(s.prophet_worst, 0.1, 1e-12);
    assert_int_equal(s.sequential_violations, 0);
    assert_close(s.even_util, 0.6, 1e-12);
    assert_int_equal(s.even_violations, 0);
    assert_close(s.even_worst, 0.0, 1e-12);
    /* no choice at all (-1) counts as no co-location, not as a violation */
    pts[1][0].prophet_met = false;
    for (int k = 0; k < 16; k++)
        pts[1][k].prophet_met = false;
    rp_coloc_summarize((const struct rp_coloc_point(*)[16])pts, 2, 2.0, &s);
    assert_close(s.prophet_util, 0.3, 1e-12);
    assert_int_equal(s.prophet_violations, 1);
    /* nor for the measured oracle: pair B's keeps none, A's 6 */
    for (int k = 0; k < 16; k++)
        pts[1][k].measured_met = false;
    rp_coloc_summarize((const struct rp_coloc_point(*)[16])pts, 2, 2.0, &s);
    assert_close(s.oracle_util, 0.2, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairs),
        cmocka_unit_test(test_largest),
        cmocka_unit_test(test_summary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
