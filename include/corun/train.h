/* train — fitting predictor models from private-mode runs (simulation only; the predictors
 * themselves never see private-mode data).
 *
 * HSM (§2.3.2): each memory-bound training kernel of a preset runs alone on every SM
 * (calibrate_measure_all_sms); its row-buffer hit rate and bandwidth utilization are one point,
 * and a least-squares line through the points gives utilization = c1 * RBH + c2. The training
 * kernels of preset P are the profiles whose paper targets P with class memory (for hbm80,
 * HSM's ten memory-bound applications); a preset without targets uses HSM's ten. */
#ifndef CORUN_TRAIN_H
#define CORUN_TRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "corun/calibrate.h"
#include "corun/diag.h"

#define TRAIN_HSM_CYCLES       100000
#define TRAIN_HSM_QUICK_CYCLES 20000

struct train_point {
    char *kernel;
    double rbh, utilization; /* x and y of the fit; utilization is a fraction of peak */
};

struct train_hsm_result {
    char *gpu;
    unsigned sms;    /* the preset's SM count, every kernel ran on */
    uint64_t cycles; /* measured window per kernel */
    double c1, c2, r2;
    struct train_point *points;
    size_t npoints;
};

/* What train_hsm and train_themis return when the input would not do (a preset, a profile:
 * nothing was simulated), and when a run or the fit failed; messages in diags either way. */
#define TRAIN_BAD_INPUT -1
#define TRAIN_FAILED    -2

/* Train HSM for preset gpu from the profiles in datadir, measuring each kernel for `cycles`.
 * progress (may be NULL) is called before each kernel and once at the end. Returns 0,
 * TRAIN_BAD_INPUT or TRAIN_FAILED. Release with train_hsm_done either way. */
int train_hsm(const char *datadir, const char *gpu, uint64_t cycles, calib_progress_fn progress,
              void *user, struct train_hsm_result *out, struct diag *diags);
void train_hsm_done(struct train_hsm_result *r);

/* ---- Themis (§V-C, §V-D; train_themis.c) ----
 * Training samples: each training kernel (split "train") runs beside a cache or bandwidth
 * pressure producer (cachepp1..12, bwpp1..12) at five SM splits (N/6 .. 5N/6 of N SMs); every
 * kernel also runs alone on each of those SM counts and on all N. A sample's labels are
 * SD_scal = T_n / T_N = IPC_N / IPC_n (alone) and SD_inter = T_colo / T_n = IPC_n / IPC_colo;
 * its inputs are themis_features of the co-run window. Test samples: every ordered pair of
 * test kernels (split "test") at N/6:5N/6, N/3:2N/3 and N/2:N/2, as Themis §VI-A. The network
 * (themis.h) is trained with Adam on eq. 8 (alpha 2, lambda 0.001). */
#define TRAIN_THEMIS_CYCLES       40000 /* measured window per run */
#define TRAIN_THEMIS_QUICK_CYCLES 8000
#define TRAIN_THEMIS_EPOCHS       3000
#define TRAIN_THEMIS_QUICK_EPOCHS 400

struct train_themis_options {
    bool quick;      /* 3 training and 2 test kernels, 3 levels, 2 splits, short windows */
    unsigned jobs;   /* worker processes for the simulations (1: none forked) */
    uint64_t seed;   /* simulations, initial weights and sample order */
    uint64_t cycles; /* measured window per run; 0: the default for quick or full */
};

/* Mean relative errors of one group of samples (eq. 2 on SD; ARE on NP = 1 / SD). */
struct train_themis_row {
    bool test;
    int cls; /* enum kernel_class; KERNEL_CLASS_NONE: every class */
    size_t samples;
    double err_scal, err_inter, err_sd, are_np;
};

struct train_themis_result {
    char *gpu;
    unsigned sms; /* the preset's SM count, which the runs split */
    uint64_t cycles;
    size_t train_kernels, test_kernels, levels, splits, runs;
    double loss; /* eq. 8 on the training samples after training */
    unsigned layers[4];
    double *weights; /* input mean, input scale, parameters (modelfile.h's layout) */
    size_t nweights;
    struct train_themis_row rows[8]; /* train then test: compute, memory, balanced, all */
    size_t nrows;
};

/* Simulate the runs above on preset gpu from the profiles in datadir, train the network and
 * measure its errors. progress (may be NULL) is called as runs finish and once at the end.
 * Deterministic for o->seed whatever o->jobs. Returns 0, TRAIN_BAD_INPUT or
 * TRAIN_FAILED. Release with train_themis_done either way. */
int train_themis(const char *datadir, const char *gpu, const struct train_themis_options *o,
                 calib_progress_fn progress, void *user, struct train_themis_result *out,
                 struct diag *diags);
void train_themis_done(struct train_themis_result *r);

#endif
