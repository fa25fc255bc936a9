/* hsm — the Hybrid Slowdown Model (HSM §2) as a predictor, and the pieces it is made of so that
 * tests and training can use them directly.
 *
 *   classifier (eqs. 2-3): B_d = (I_max / I_k) * MemAccesses * ReqSize * (f / E)
 *                          B_p = B_max * (c1 * RBH_k + c2); memory-bound when B_d > B_p
 *   compute-bound (eq. 4): NP̂ = S_k / sigma      (sigma: every SM, the private mode)
 *   memory-bound  (eq. 5): NP̂ = B_k / (c1 * RBH_k + c2)   (B_k: bandwidth utilization)
 *   what-if:               NP linear in SMs through the origin, g_k = NP̂_k / S_k
 *
 * c1 and c2 come from a least-squares line through (RBH, bandwidth utilization) of memory-bound
 * kernels run in private mode (`corun train hsm`). */
#ifndef CORUN_HSM_H
#define CORUN_HSM_H

#include <stddef.h>

#include "corun/predict.h"

/* The classifier's two sides for one kernel's epoch. */
struct hsm_demand {
    double i_max;         /* warp instructions sigma SMs could issue in E cycles */
    double demand_gbs;    /* B_d */
    double potential_gbs; /* B_p */
    int cls;              /* KERNEL_CLASS_MEMORY or KERNEL_CLASS_COMPUTE */
};

/* Eqs. 2-3 for counters c over an epoch of epoch_cycles on gpu with coefficients c1, c2. */
void hsm_classify(const struct predict_gpu *gpu, const struct gpu_kernel_counters *c,
                  uint64_t epoch_cycles, double c1, double c2, struct hsm_demand *out);
/* Eq. 4: shared-mode SMs over every SM. */
double hsm_np_compute(double sms, unsigned sigma);
/* Eq. 5: bandwidth utilization over the predicted private-mode utilization; NaN when that is
 * not positive. */
double hsm_np_memory(double bandwidth_util, double rbh, double c1, double c2);

/* Least squares y = c1 x + c2 over n points; *r2 is the coefficient of determination (1 when
 * every y is equal and fitted exactly). Returns 0, or -1 when n < 2 or every x is equal. */
int hsm_fit_line(const double *x, const double *y, size_t n, double *c1, double *c2, double *r2);

#endif
