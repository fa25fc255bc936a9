/* Unit tests: STP, ANTT, fairness and ARE on hand-computed values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "assert_close.h"

#include "corun/metrics.h"

static void two_kernels(void **state)
{
    (void)state;
    const double np[] = {0.5, 0.8};
    struct metrics m;
    metrics_compute(np, 2, &m);
    assert_true(m.valid);
    assert_close(m.stp, 1.3, 1e-12);
    assert_close(m.antt, (2.0 + 1.25) / 2, 1e-12);
    assert_close(m.fairness, 0.625, 1e-12);
}

static void one_kernel_is_fair(void **state)
{
    (void)state;
    const double np[] = {0.9};
    struct metrics m;
    metrics_compute(np, 1, &m);
    assert_close(m.fairness, 1.0, 1e-12);
    assert_close(m.antt, 1 / 0.9, 1e-12);
}

static void missing_np_is_invalid(void **state)
{
    (void)state;
    const double np[] = {0.5, -1, 0.7};
    struct metrics m;
    metrics_compute(np, 3, &m);
    assert_false(m.valid);
    metrics_compute(np, 0, &m);
    assert_false(m.valid);
    /* A kernel that made no progress, or whose NP is unknown, has no ANTT term. */
    const double stalled[] = {0.5, 0}, unknown[] = {0.5, NAN};
    metrics_compute(stalled, 2, &m);
    assert_false(m.valid);
    metrics_compute(unknown, 2, &m);
    assert_false(m.valid);
}

static void relative_error(void **state)
{
    (void)state;
    assert_close(metrics_are(0.6, 0.5), 0.2, 1e-12);
    assert_close(metrics_are(0.4, 0.5), 0.2, 1e-12);
    assert_close(metrics_are(0.4, 0), -1, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_kernels),
        cmocka_unit_test(one_kernel_is_fair),
        cmocka_unit_test(missing_np_is_invalid),
        cmocka_unit_test(relative_error),
    };
    return cmocka_run_group_tests_name("metrics", tests, NULL, NULL);
}
