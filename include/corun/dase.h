/* dase — a white-box, per-resource interference-accounting slowdown model in the manner of
 * DASE (Hu et al., ICPP 2016) as the HSM paper describes it, scaled to every SM with a
 * roofline, as a predictor, and the arithmetic it is made of so that tests can check each step. The
 * formulation and its sources are at the top of src/predict/dase.c. */
#ifndef CORUN_DASE_H
#define CORUN_DASE_H

#include "corun/predict.h"

/* Every intermediate value of one kernel's estimate, for tests and explain. Request-times are
 * in memory cycles summed over requests; stall and times in core cycles. */
struct dase_estimate {
    double t_cycles;             /* T: shared-mode time, the epoch */
    double contention_misses;    /* ΔM: LLC misses that would have hit alone, all sets */
    double miss_fraction;        /* ΔM / R, at most 1: DRAM requests that exist only shared */
    double req_cycles;           /* Q / R: mean DRAM queueing of one request */
    double cache_extra;          /* X_llc = min(ΔM, R) * Q / R */
    double dram_extra;           /* X_dram = I * (1 - ΔM / R) */
    double outstanding;          /* N = Q / T_mem: mean requests waiting (Little's law), >= 1 */
    double stall_cycles;         /* (X_llc + X_dram) / N, in core cycles */
    double t_alone_cycles;       /* T - stall: interference-free time on the kernel's S_k SMs */
    double peak_bytes_per_cycle; /* P = B_max / f_c */
    double alone_bytes;          /* D (1 - rho): DRAM bytes the kernel would move alone */
    double bytes_per_inst;       /* b = D (1 - rho) / I; NaN without instructions */
    double ipc_lin;   /* (I / T_alone) sigma / S_k: alone on sigma SMs, scaled linearly */
    double ipc_bw;    /* P / b: alone at peak bandwidth (infinite without DRAM traffic) */
    double ipc_alone; /* min(ipc_lin, ipc_bw): the roofline */
    double np_lin;    /* (S_k / sigma) (T_alone / T) = IPC / ipc_lin */
    double np_bw;     /* D (1 - rho) / (T P) = IPC / ipc_bw */
    bool bw_bound;    /* np_bw > np_lin: the bandwidth roof is the lower one */
    double np_raw;    /* max(np_lin, np_bw) = IPC / ipc_alone */
    double np_floor;  /* S_k / sigma: the HSM §6 cap, slowdown <= sigma / S_k */
    double np;        /* max(np_raw, np_floor); NaN without SMs, cycles or peak bandwidth */
    bool capped;      /* np_floor won */
};

/* The estimate for counters c on gpu (which needs sms, core_clock_mhz, dram_clock_mhz and
 * peak_gbs). */
void dase_estimate(const struct predict_gpu *gpu, const struct gpu_kernel_counters *c,
                   struct dase_estimate *out);

#endif
