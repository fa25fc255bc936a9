/* themis — the Themis kernel slowdown model (Zhao et al., IPDPS 2019, §V) as a predictor, and
 * the pieces training shares with it.
 *
 *   eq. 7:  <SD_scal, SD_inter> = R(N_sm, se_k, sum over co-runners c of pe_c)
 *           R: a 12-12-12-2 network (leaky ReLU), NP̂ = 1 / (SD_scal * SD_inter)   (eq. 4)
 *   PSP:    SD_m ~ SD_scal_m * SD_inter_n (eq. 9), PG_scal_m piecewise linear through
 *           (0, 0), (n, PG_scal_n), (N, 1) (eq. 10), SD_scal_m = 1 / PG_scal_m
 *
 * The inputs (themis_features), from one epoch's counters. The paper accumulates each event
 * over a kernel's SMs and does not say how it scales them; corun divides the kernel's own
 * events (se) by its SM-cycles — so they describe the kernel, and N_sm says how many SMs it has
 * — and the co-runners' pressure events (pe) by cycles only, since pressure on the shared L2
 * and DRAM is what all their SMs add up to:
 *   0 N_sm          SMs the kernel held (time-weighted)
 *   1 IPC           warp instructions per SM-cycle
 *   2 L1dAcc 3 L1dMiss 4 L1cAcc 5 L1cMiss 6 L2Acc 7 L2Miss    per SM-cycle
 *   8 MemBW         the kernel's DRAM bandwidth, fraction of peak
 *   9 L2Acc 10 L2Miss   summed over the co-runners, per cycle
 *   11 MemBW            summed over the co-runners, fraction of peak
 * The model file's input normalization (z = (x - mean) / scale) is applied before the network. */
#ifndef CORUN_THEMIS_H
#define CORUN_THEMIS_H

#include "corun/predict.h"

#define THEMIS_INPUTS  12
#define THEMIS_OUTPUTS 2
#define THEMIS_LAYERS  4
#define THEMIS_HIDDEN  12 /* nodes per hidden layer: the input count, as the paper says */
/* A predicted slowdown below this is read as this: the network's output layer is linear and
 * can stray under 1, and 1 / SD must stay finite. */
#define THEMIS_SD_FLOOR 0.05

/* The paper's widths {12, 12, 12, 2}. */
extern const unsigned themis_widths[THEMIS_LAYERS];
/* Short names of the 12 inputs, for explain and the training report. */
extern const char *const themis_input_names[THEMIS_INPUTS];

/* Eq. 7's inputs for kernel k of c[0..nkernels) into x[THEMIS_INPUTS]. Returns 0, or -1 when
 * kernel k had no cycles or no SMs in the epoch (nothing to predict from). */
int themis_features(const struct gpu_kernel_counters *c, unsigned nkernels, unsigned k, double *x);

struct mlp;
/* The network's slowdowns for raw inputs x: normalized with mean and scale, run through net,
 * each held at THEMIS_SD_FLOOR or above. */
void themis_slowdowns(const struct mlp *net, const double *mean, const double *scale,
                      const double *x, double *sd_scal, double *sd_inter);

/* How far an input lies from the data the network was fitted to, in standard deviations of
 * that data: past this, the network extrapolates and explain says so. (4 standard deviations:
 * about 1 in 16 000 of a normal sample.) */
#define THEMIS_FAR_Z 4.0

/* The input of x farthest from the training data, as |x - mean| / scale; its index goes to
 * *which. */
double themis_farthest_input(const double *mean, const double *scale, const double *x,
                             unsigned *which);

/* Model size: input mean and scale, then the network's parameters (predict_model's layout). */
#define THEMIS_WEIGHTS                                                                             \
    (2 * THEMIS_INPUTS + THEMIS_HIDDEN * (THEMIS_INPUTS + 1) +                                     \
     THEMIS_HIDDEN * (THEMIS_HIDDEN + 1) + THEMIS_OUTPUTS * (THEMIS_HIDDEN + 1))

/* Fit the paper's network to n samples (x: n rows of THEMIS_INPUTS; y: n rows of SD_scal,
 * SD_inter): each input normalized by the samples' mean and standard deviation, then Adam on
 * eq. 8 (alpha 2, lambda 0.001) for `epochs` passes, deterministic for seed. Fills
 * weights[THEMIS_WEIGHTS] and returns the final loss. */
double themis_fit(const double *x, const double *y, size_t n, unsigned epochs, uint64_t seed,
                  double *weights);

/* Eqs. 9-10: NP on m SMs (clamped to [0, total]) of a kernel that showed SD_scal and SD_inter
 * on n of total SMs. PG_scal_n is held in (0, 1] as the paper bounds it. NaN when n is not in
 * (0, total] or a slowdown is not positive. */
double themis_psp_np(double sd_scal_n, double sd_inter_n, double n, double m, double total);

#endif
