/* Unit tests: the dense network — a forward pass worked by hand, eq. 8 by hand, the backward
 * pass against finite differences, and Adam lowering the loss on a toy problem. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "assert_close.h"

#include "corun/mlp.h"

static void forward_by_hand(void **state)
{
    (void)state;
    const unsigned w[] = {2, 2, 2};
    struct mlp m;
    assert_int_equal(mlp_init(&m, w, 3, 7), 0);
    assert_int_equal(m.nparams, 12);
    /* W1 = [[1, -1], [0.5, 2]], b1 = [0, -1]; W2 = [[1, 1], [2, -1]], b2 = [0.5, 0]. */
    const double p[] = {1, -1, 0.5, 2, 0, -1, 1, 1, 2, -1, 0.5, 0};
    assert_int_equal(mlp_set_params(&m, p, 12), 0);
    assert_int_equal(mlp_set_params(&m, p, 11), -1);
    /* x = (1, 2): z1 = (1 - 2, 0.5 + 4 - 1) = (-1, 3.5), a1 = (-0.01, 3.5) by leaky ReLU;
     * the output layer is linear: (-0.01 + 3.5 + 0.5, -0.02 - 3.5) = (3.99, -3.52). */
    const double x[] = {1, 2};
    double y[2];
    mlp_forward(&m, x, y);
    assert_close(y[0], 3.99, 1e-12);
    assert_close(y[1], -3.52, 1e-12);
    mlp_done(&m);
}

static void bad_widths_are_refused(void **state)
{
    (void)state;
    struct mlp m;
    const unsigned one[] = {3};
    const unsigned zero[] = {3, 0, 2};
    const unsigned wide[] = {3, MLP_MAX_WIDTH + 1, 2};
    assert_int_equal(mlp_init(&m, one, 1, 1), -1);
    assert_int_equal(mlp_init(&m, zero, 3, 1), -1);
    assert_int_equal(mlp_init(&m, wide, 3, 1), -1);
    const unsigned direct[] = {3, 2}; /* no hidden layer: the smallest network there is */
    assert_int_equal(mlp_init(&m, direct, 2, 1), 0);
    assert_int_equal(m.nparams, 8);
    mlp_done(&m);
    unsigned deep[MLP_MAX_LAYERS + 1];
    for (unsigned l = 0; l <= MLP_MAX_LAYERS; l++)
        deep[l] = 2;
    assert_int_equal(mlp_init(&m, deep, MLP_MAX_LAYERS, 1), 0); /* as deep as may be */
    mlp_done(&m);
    assert_int_equal(mlp_init(&m, deep, MLP_MAX_LAYERS + 1, 1), -1);
}

static void eq8_by_hand(void **state)
{
    (void)state;
    /* pred (2, 1), truth (1, 1): r_scal = -1, r_inter = 0, r_colo = (1 - 2) / 1 = -1, so
     * L = 1 + 0 + 2 * 1 = 3; dL/dp_scal = 2 + 2 * 2 * 1 = 6, dL/dp_inter = 0 + 2 * 2 * 2 = 8. */
    const double pred[] = {2, 1}, truth[] = {1, 1};
    double g[2];
    assert_close(mlp_loss_eq8(pred, truth, 2, g), 3, 1e-12);
    assert_close(g[0], 6, 1e-12);
    assert_close(g[1], 8, 1e-12);
    /* A perfect prediction costs nothing. */
    const double good[] = {1.5, 2.5}, t2[] = {1.5, 2.5};
    assert_close(mlp_loss_eq8(good, t2, 2, g), 0, 1e-15);
}

static void backward_matches_finite_differences(void **state)
{
    (void)state;
    const unsigned w[] = {3, 5, 4, 2};
    struct mlp m;
    assert_int_equal(mlp_init(&m, w, 4, 42), 0);
    for (size_t i = 0; i < m.nparams; i++) /* non-zero biases too */
        m.params[i] += 0.05 * (double)(i % 7) - 0.1;
    const double x[] = {0.3, -1.2, 0.8, 1.5, 0.1, -0.4, -0.7, 0.9, 2.0, 0.0, -1.0, 0.5};
    const double y[] = {1.2, 1.1, 2.5, 1.0, 1.4, 3.0, 1.0, 1.8};
    double *g = calloc(m.nparams, sizeof(*g));
    mlp_loss_grad(&m, x, y, 4, 2, 0.001, g);
    double worst = 0;
    for (size_t i = 0; i < m.nparams; i++) {
        double keep = m.params[i], h = 1e-6;
        m.params[i] = keep + h;
        double up = mlp_loss_grad(&m, x, y, 4, 2, 0.001, NULL);
        m.params[i] = keep - h;
        double down = mlp_loss_grad(&m, x, y, 4, 2, 0.001, NULL);
        m.params[i] = keep;
        double numeric = (up - down) / (2 * h);
        double rel = fabs(numeric - g[i]) / fmax(1e-6, fabs(numeric) + fabs(g[i]));
        worst = fmax(worst, rel);
    }
    assert_true(worst < 1e-5);
    free(g);
    mlp_done(&m);
}

/* A 3-2-2 network, laid out in mlp.h's order: W1 [0, 6), b1 [6, 8), W2 [8, 12), b2 [12, 14)
 * (unequal widths, so that a layer's size taken from the wrong neighbour shows). With p, its
 * parameters are set to p[i] = (i + 1) / 10. */
static bool is_bias(size_t i)
{
    return (i >= 6 && i < 8) || i >= 12;
}

static void net_322(struct mlp *m, double *p)
{
    const unsigned w[] = {3, 2, 2};
    assert_int_equal(mlp_init(m, w, 3, 11), 0);
    assert_int_equal(m->nparams, 14);
    if (!p)
        return;
    for (size_t i = 0; i < 14; i++)
        p[i] = (double)(i + 1) / 10;
    assert_int_equal(mlp_set_params(m, p, 14), 0);
}

static void init_and_weight_decay_by_hand(void **state)
{
    (void)state;
    struct mlp m;
    net_322(&m, NULL);
    for (size_t i = 0; i < m.nparams; i++) {
        if (is_bias(i))
            assert_true(m.params[i] == 0); /* zero biases */
        else
            assert_true(m.params[i] != 0); /* every weight drawn */
    }
    mlp_done(&m);
    double p[14];
    net_322(&m, p);
    /* lambda ||W||^2 leaves the biases out: ((1 + 4 + ... + 36) + (81 + 100 + 121 + 144)) /
     * 100 = 5.37, times lambda 0.5; its gradient is 2 lambda w on the weights alone. */
    const double x[] = {0.2, -0.1, 0.4}, y[] = {1.5, 1.2};
    double g0[14], g1[14];
    double plain = mlp_loss_grad(&m, x, y, 1, 2, 0, g0);
    double decayed = mlp_loss_grad(&m, x, y, 1, 2, 0.5, g1);
    assert_close(decayed - plain, 2.685, 1e-12);
    for (size_t i = 0; i < 14; i++)
        assert_close(g1[i] - g0[i], is_bias(i) ? 0 : p[i], 1e-12);
    mlp_done(&m);
}

/* Adam's first step, bias-corrected: m^ = g and v^ = g^2, so every parameter moves by
 * lr * g / (|g| + 1e-8) against its gradient. */
static void first_adam_step_by_hand(void **state)
{
    (void)state;
    struct mlp m;
    double p[14], g[14];
    net_322(&m, p);
    const double x[] = {0.2, -0.1, 0.4, -0.3, 0.5, 0.1}, y[] = {1.5, 1.2, 2.0, 1.1};
    mlp_loss_grad(&m, x, y, 2, 2, 0.001, g);
    struct mlp_train_options o = {
        .alpha = 2, .lambda = 0.001, .learning_rate = 0.01, .epochs = 1, .batch = 0, .seed = 3};
    mlp_train(&m, x, y, 2, &o);
    for (size_t i = 0; i < 14; i++)
        assert_close(m.params[i], p[i] - 0.01 * g[i] / (fabs(g[i]) + 1e-8), 1e-12);
    mlp_done(&m);
}

/* Toy targets: SD_scal = 1 + x0^2, SD_inter = 1 + |x1| / 2. */
static void toy_data(double *x, double *y, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double a = -1 + 2.0 * (double)(i % 8) / 7, b = -1 + 2.0 * (double)(i / 8) / 7;
        x[2 * i] = a;
        x[2 * i + 1] = b;
        y[2 * i] = 1 + a * a;
        y[2 * i + 1] = 1 + fabs(b) / 2;
    }
}

static void training_lowers_the_loss_deterministically(void **state)
{
    (void)state;
    enum { N = 64, EPOCHS = 300 };
    double x[2 * N], y[2 * N], history[EPOCHS];
    toy_data(x, y, N);
    const unsigned w[] = {2, 12, 12, 2};
    struct mlp a, b;
    mlp_init(&a, w, 4, 5);
    mlp_init(&b, w, 4, 5);
    double before = mlp_loss_grad(&a, x, y, N, 2, 0.001, NULL);
    struct mlp_train_options o = {.alpha = 2,
                                  .lambda = 0.001,
                                  .learning_rate = 0.01,
                                  .epochs = EPOCHS,
                                  .batch = 16,
                                  .seed = 9,
                                  .loss_history = history};
    double after = mlp_train(&a, x, y, N, &o);
    assert_true(after < 0.1 * before);
    assert_true(after < 0.05);
    assert_close(history[EPOCHS - 1], after, 1e-12);
    o.loss_history = NULL;
    mlp_train(&b, x, y, N, &o);
    assert_memory_equal(a.params, b.params, a.nparams * sizeof(double));
    mlp_done(&a);
    mlp_done(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(forward_by_hand),
        cmocka_unit_test(bad_widths_are_refused),
        cmocka_unit_test(eq8_by_hand),
        cmocka_unit_test(init_and_weight_decay_by_hand),
        cmocka_unit_test(first_adam_step_by_hand),
        cmocka_unit_test(backward_matches_finite_differences),
        cmocka_unit_test(training_lowers_the_loss_deterministically),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
