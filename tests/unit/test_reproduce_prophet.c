/* Unit tests: reproduce_prophet — the pairs of each experiment by class, the choice of the
 * most batch instances that keep the target, and one co-location point's normalization (the
 * LS application alone is the reference, so n = 0 is 1.00x by construction). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

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
    assert_int_equal(rp_coloc_largest(pt, 0), 7); /* the largest that holds, gaps allowed */
    assert_int_equal(rp_coloc_largest(pt, 1), 15);
    assert_int_equal(rp_coloc_largest(pt, 2), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairs),
        cmocka_unit_test(test_largest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
