/* mlp — a small dense multilayer perceptron: leaky-ReLU hidden layers, a linear output layer,
 * forward and backward passes, Themis' loss (eq. 8) and an Adam trainer.
 *
 * Parameters live in one flat array, layer by layer: for layer l (1..nlayers-1) the weight
 * matrix W_l (width[l] rows of width[l-1], row-major) and then its biases b_l. A model is saved
 * by copying that array and the widths out, and loaded by handing them back (mlp_set_params):
 * no file IO here.
 *
 * Loss (Themis eq. 8) for a network with two outputs, SD_scal and SD_inter:
 *   L = L_scal + L_inter + alpha * L_colo + lambda * ||W||^2
 *   L_x = mean over samples of ((SD*_x - SD_x) / SD*_x)^2,  SD_colo = SD_scal * SD_inter
 * The paper writes the L2 norm of the relative error; the mean of its square is used here (the
 * same minimizer per batch, and smooth at zero). ||W||^2 sums the squared weights, not the
 * biases. */
#ifndef CORUN_MLP_H
#define CORUN_MLP_H

#include <stddef.h>
#include <stdint.h>

#define MLP_MAX_LAYERS 8    /* widths, inputs and outputs included */
#define MLP_MAX_WIDTH  64   /* of any layer */
#define MLP_LEAKY      0.01 /* slope of leaky ReLU below zero */

struct mlp {
    unsigned nlayers;               /* widths in width[], inputs first, outputs last */
    unsigned width[MLP_MAX_LAYERS]; /* nodes per layer */
    size_t nparams;
    double *params; /* nparams: W_1, b_1, W_2, b_2, ... */
};

/* Parameter count of a network with these widths. */
size_t mlp_param_count(const unsigned *width, unsigned nlayers);

/* A network of these widths (2..MLP_MAX_LAYERS layers, each 1..MLP_MAX_WIDTH wide) with He
 * initial weights drawn from an rng seeded with seed, and zero biases. Returns 0, or -1 for
 * bad widths. Release with mlp_done. */
int mlp_init(struct mlp *m, const unsigned *width, unsigned nlayers, uint64_t seed);
void mlp_done(struct mlp *m);
/* Replace the parameters with p[0..n); n must be m->nparams. Returns 0 or -1. */
int mlp_set_params(struct mlp *m, const double *p, size_t n);

/* out[width[last]] for in[width[0]]. */
void mlp_forward(const struct mlp *m, const double *in, double *out);

/* Eq. 8's data term for one sample with two outputs: pred and truth are (SD_scal, SD_inter),
 * truth positive. Returns r_scal^2 + r_inter^2 + alpha * r_colo^2 and stores d/d pred in grad. */
double mlp_loss_eq8(const double *pred, const double *truth, double alpha, double *grad);

/* The whole eq. 8 over n samples (x: n rows of width[0], y: n rows of 2) for a two-output
 * network: returns the loss and, when grad is not NULL, stores dL/dparams in grad[nparams]. */
double mlp_loss_grad(const struct mlp *m, const double *x, const double *y, size_t n, double alpha,
                     double lambda, double *grad);

struct mlp_train_options {
    double alpha, lambda; /* eq. 8 (Themis: 2 and 0.001) */
    double learning_rate; /* Adam's step size */
    unsigned epochs;      /* passes over the data */
    unsigned batch;       /* samples per Adam step (0: all) */
    uint64_t seed;        /* order of the samples in each epoch */
    double *loss_history; /* NULL, or epochs entries: the loss after each epoch */
};

/* Adam (beta1 0.9, beta2 0.999, eps 1e-8) on eq. 8 over n samples, from m's current
 * parameters. Deterministic for a seed. Returns the final loss over all n samples. */
double mlp_train(struct mlp *m, const double *x, const double *y, size_t n,
                 const struct mlp_train_options *o);

#endif
