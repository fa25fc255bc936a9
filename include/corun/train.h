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
    uint64_t cycles; /* measured window per kernel */
    double c1, c2, r2;
    struct train_point *points;
    size_t npoints;
};

/* Train HSM for preset gpu from the profiles in datadir, measuring each kernel for `cycles`.
 * progress (may be NULL) is called before each kernel and once at the end. Returns 0, or -1
 * with messages in diags. Release with train_hsm_done either way. */
int train_hsm(const char *datadir, const char *gpu, uint64_t cycles, calib_progress_fn progress,
              void *user, struct train_hsm_result *out, struct diag *diags);
void train_hsm_done(struct train_hsm_result *r);

#endif
