/* dase — a white-box, per-resource interference-accounting slowdown model in the manner of
 * DASE (Hu et al., ICPP 2016) as the HSM paper describes it, as a predictor, and the arithmetic
 * it is made of so that tests can check each step. The formulation and its sources are at the
 * top of src/predict/dase.c. */
#ifndef CORUN_DASE_H
#define CORUN_DASE_H

#include "corun/predict.h"

/* Every intermediate value of one kernel's estimate, for tests and explain. Request-times are
 * in memory cycles summed over requests; stall and times in core cycles. */
struct dase_estimate {
    double t_cycles;          /* T: shared-mode time, the epoch */
    double contention_misses; /* ΔM: LLC misses that would have hit alone, all sets */
    double miss_fraction;     /* ΔM / R, at most 1: DRAM requests that exist only shared */
    double req_cycles;        /* Q / R: mean DRAM queueing of one request */
    double cache_extra;       /* X_llc = min(ΔM, R) * Q / R */
    double dram_extra;        /* X_dram = I * (1 - ΔM / R) */
    double outstanding;       /* N = Q / T_mem: mean requests waiting (Little's law), >= 1 */
    double stall_cycles;      /* (X_llc + X_dram) / N, in core cycles */
    double t_alone_cycles;    /* T - stall: interference-free time on the kernel's S_k SMs */
    double np_raw;            /* (S_k / sigma) * (T_alone / T) */
    double np_floor;          /* S_k / sigma: the HSM §6 cap, slowdown <= sigma / S_k */
    double np;                /* max(np_raw, np_floor); NaN without SMs or cycles */
    bool capped;              /* np_floor won */
};

/* The estimate for counters c on gpu (which needs sms, core_clock_mhz and dram_clock_mhz). */
void dase_estimate(const struct predict_gpu *gpu, const struct gpu_kernel_counters *c,
                   struct dase_estimate *out);

#endif
