/* dase — per-resource interference accounting in the manner of DASE.
 *
 * Sources. DASE is Hu, Shu, Fan and Lu, "Run-Time Performance Estimation and Fairness-Oriented
 * Scheduling Policy for Concurrent GPGPU Applications", ICPP 2016. Its equations are not in
 * corun's references; what is, and what this file follows, is the HSM paper (Zhao, Jahre,
 * Eeckhout, ASPLOS 2020): §6.1 says DASE models inter-application interference in each shared
 * resource separately — the shared LLC, the DRAM channels, banks and row buffers — as CPU
 * models did, subtracts it from shared-mode time, and so misjudges GPUs, whose many overlapping
 * requests make per-request latencies a poor guide to performance; §6 caps DASE's slowdown at
 * S_max / S_k. The LLC part uses a sampled auxiliary tag directory (llc.h), the hardware DASE
 * and ASM propose. Everything below is therefore a reconstruction, made from counters a GPU can
 * expose (struct gpu_kernel_counters); the choices are ours and are marked as such.
 *
 * Inputs, per kernel and epoch: T core cycles; S_k SMs (time-weighted); LLC accesses A; on the
 * ATD's sampled sets a accesses, m_alone misses in the private copy and m_shared misses in the
 * shared LLC; R DRAM requests; Q their queueing (arrival to column command, memory cycles,
 * summed); I the part of Q spent waiting for other kernels (their bus or bank use, rows they
 * closed). GPU: sigma SMs, core clock f_c, memory clock f_m.
 *
 *   LLC:   ΔM = max(0, m_shared - m_alone) * A / a     contention misses, sampled sets scaled
 *                                                      to all accesses (0 when a = 0)
 *          ρ  = min(ΔM, R) / R                         DRAM requests that exist only shared
 *          X_llc  = ρ * Q                              their request-time: each costs a DRAM
 *                                                      trip where alone it hit; Q/R per trip
 *   DRAM:  X_dram = I * (1 - ρ)                        delay by others on the requests the
 *                                                      kernel makes alone too (ρ's share of I
 *                                                      is in X_llc already: not counted twice)
 *   overlap: the kernel has N = max(1, Q / T_m) requests waiting on average (Little's law,
 *          T_m = T * f_m / f_c memory cycles), so removing X request-time shortens its time by
 *          X / N memory cycles: stall = (X_llc + X_dram) / N * f_c / f_m core cycles.
 *          (Ours. It assumes the kernel waits on memory whenever it has a request waiting —
 *          the per-request view HSM faults DASE for; no counter says how much warps hide.
 *          N is held at >= 1 so that dividing never makes a stall longer than its requests.)
 *   alone on its own SMs: T_alone = T - stall          (stall <= T: X <= Q)
 *   to all sigma SMs (private mode runs on every SM), a roofline (ours: HSM says only that
 *          DASE predicts time alone; how it scales to sigma SMs is our reconstruction). With
 *          the kernel's I warp instructions in the epoch:
 *            linear:    IPC_lin = (I / T_alone) * sigma / S_k     every SM as fast as its own
 *            bandwidth: IPC_bw  = P / b                           P = B_max / f_c bytes per
 *                       b = D * (1 - ρ) / I                       core cycle at peak; D the
 *                                                                 DRAM bytes moved, less ρ's
 *                                                                 share that exists only shared
 *            IPC_alone = min(IPC_lin, IPC_bw)
 *          NP_raw = (I / T) / IPC_alone = max(NP_lin, NP_bw), where (no division by I, so it
 *          holds for an idle epoch too)
 *            NP_lin = (S_k / sigma) * (T_alone / T)
 *            NP_bw  = D * (1 - ρ) / (T * P)       the alone-traffic's share of peak bandwidth
 *          A kernel that moves more than its SMs' share of peak bandwidth cannot run sigma/S_k
 *          times faster alone, since alone it cannot exceed peak: NP_raw > S_k / sigma.
 *   cap (HSM §6): slowdown 1/NP at most S_max/S_k, i.e. NP = max(NP_raw, S_k / sigma).
 *
 * So NP^ = S_k / sigma exactly when NP_bw <= S_k / sigma, whatever the interference accounting
 * says (NP_lin <= S_k / sigma always: T_alone <= T): compute-bound kernels and memory-bound
 * ones that move less than their SMs' share of peak are held at S_k / sigma; the others are
 * predicted above it, and fair/qos with dase move SMs away from them. Peak bandwidth is the
 * preset's B_max, not what the DRAM attains at the kernel's row-buffer locality (that is
 * HSM's refinement), so NP_bw errs low. What-if: NP linear in SMs through the origin,
 * as for HSM (shared-mode speed in proportion to SMs against a fixed speed alone). */
#include "corun/dase.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "corun/util.h"

void dase_estimate(const struct predict_gpu *gpu, const struct gpu_kernel_counters *c,
                   struct dase_estimate *out)
{
    *out = (struct dase_estimate){.t_cycles = (double)c->cycles, .outstanding = 1};
    double t = out->t_cycles, r = (double)c->dram_requests, q = (double)c->dram_queue_cycles;
    if (c->atd_accesses && c->atd_shared_misses > c->atd_misses)
        out->contention_misses = (double)(c->atd_shared_misses - c->atd_misses) *
                                 (double)c->l2_accesses / (double)c->atd_accesses;
    double clocks = gpu->dram_clock_mhz > 0 ? gpu->core_clock_mhz / gpu->dram_clock_mhz : NAN;
    if (r > 0 && q > 0 && t > 0) {
        out->miss_fraction = fmin(out->contention_misses, r) / r;
        out->req_cycles = q / r;
        out->cache_extra = out->miss_fraction * q;
        out->dram_extra = (double)c->dram_interference_cycles * (1 - out->miss_fraction);
        out->outstanding = fmax(1, q / (t / clocks));
        out->stall_cycles = (out->cache_extra + out->dram_extra) / out->outstanding * clocks;
        out->stall_cycles = fmin(out->stall_cycles, t); /* holds already; guards rounding */
    }
    out->t_alone_cycles = t - out->stall_cycles;
    out->peak_bytes_per_cycle =
        gpu->core_clock_mhz > 0 ? gpu->peak_gbs * 1e3 / gpu->core_clock_mhz : NAN;
    out->alone_bytes = (double)c->dram_bytes * (1 - out->miss_fraction);
    out->bytes_per_inst = c->instructions ? out->alone_bytes / (double)c->instructions : NAN;
    if (!(t > 0) || !(c->sms > 0) || gpu->sms == 0 || !(out->peak_bytes_per_cycle > 0)) {
        out->np_lin = out->np_bw = out->np_raw = out->np_floor = out->np = NAN;
        out->ipc_lin = out->ipc_bw = out->ipc_alone = NAN;
        return;
    }
    out->np_floor = c->sms / gpu->sms;
    out->np_lin = out->np_floor * out->t_alone_cycles / t;
    out->np_bw = out->alone_bytes / (t * out->peak_bytes_per_cycle);
    out->bw_bound = out->np_bw > out->np_lin;
    out->np_raw = out->bw_bound ? out->np_bw : out->np_lin;
    double insts = (double)c->instructions;
    out->ipc_lin = out->t_alone_cycles > 0 ? insts / out->t_alone_cycles / out->np_floor : NAN;
    out->ipc_bw = !(out->alone_bytes > 0) ? INFINITY
                  : insts > 0             ? out->peak_bytes_per_cycle / out->bytes_per_inst
                                          : 0;
    out->ipc_alone = fmin(out->ipc_lin, out->ipc_bw);
    out->capped = !(out->np_raw >= out->np_floor);
    out->np = out->capped ? out->np_floor : out->np_raw;
}

/* The last epoch predicted, kept for np_at and explain. */
struct dase_state {
    struct predict_gpu gpu;
    unsigned nkernels;
    struct gpu_kernel_counters c[GPU_MAX_KERNELS];
    struct dase_estimate e[GPU_MAX_KERNELS];
};

static void *dase_create(const struct predict_gpu *gpu, const struct predict_model *model,
                         char *err, size_t errlen)
{
    (void)model;
    if (!(gpu->dram_clock_mhz > 0) || !(gpu->core_clock_mhz > 0) || gpu->sms == 0 ||
        !(gpu->peak_gbs > 0)) {
        snprintf(err, errlen,
                 "dase: needs the SM count, both clocks and the peak bandwidth (got %u SMs, "
                 "core %g MHz, memory %g MHz, %g GB/s)",
                 gpu->sms, gpu->core_clock_mhz, gpu->dram_clock_mhz, gpu->peak_gbs);
        return NULL;
    }
    struct dase_state *s = xcalloc(1, sizeof(*s));
    s->gpu = *gpu;
    s->gpu.preset = NULL; /* not owned; explain does not need it */
    return s;
}

static void dase_destroy(void *state)
{
    free(state);
}

static void dase_predict(void *state, const struct predict_input *in, struct predict_output *out)
{
    struct dase_state *s = state;
    s->nkernels = in->nkernels;
    for (unsigned k = 0; k < in->nkernels; k++) {
        s->c[k] = in->c[k];
        dase_estimate(&s->gpu, &in->c[k], &s->e[k]);
        out->np[k] = s->e[k].np;
        out->cls[k] = KERNEL_CLASS_NONE;
    }
}

static double dase_np_at(const void *state, unsigned k, double sms)
{
    const struct dase_state *s = state;
    if (k >= s->nkernels || !(s->c[k].sms > 0))
        return NAN;
    return s->e[k].np / s->c[k].sms * sms;
}

static void dase_explain(const void *state, unsigned k, struct predict_text *t)
{
    const struct dase_state *s = state;
    t->n = 0;
    if (k >= s->nkernels) {
        predict_text_add(t, "DASE: no epoch predicted yet");
        return;
    }
    const struct gpu_kernel_counters *c = &s->c[k];
    const struct dase_estimate *e = &s->e[k];
    predict_text_add(t, "DASE-style accounting + roofline (reconstructed; HSM §6 cap)");
    predict_text_add(t, "inputs: T %.0f cycles, S_k %.2f of %u SMs, LLC accesses %llu", e->t_cycles,
                     c->sms, s->gpu.sms, (unsigned long long)c->l2_accesses);
    predict_text_add(t, "ATD: %llu sampled accesses, %llu misses alone, %llu shared",
                     (unsigned long long)c->atd_accesses, (unsigned long long)c->atd_misses,
                     (unsigned long long)c->atd_shared_misses);
    predict_text_add(t, "DRAM: R %llu requests, Q %llu, I %llu mem cycles; f_c/f_m %.3f",
                     (unsigned long long)c->dram_requests, (unsigned long long)c->dram_queue_cycles,
                     (unsigned long long)c->dram_interference_cycles,
                     s->gpu.core_clock_mhz / s->gpu.dram_clock_mhz);
    predict_text_add(t, "dM = (shared - alone) x A / a = %.0f; rho = min(dM, R)/R = %.3f",
                     e->contention_misses, e->miss_fraction);
    predict_text_add(t, "X_llc = rho x Q = %.0f (Q/R %.1f per trip); X_dram = I(1-rho) = %.0f",
                     e->cache_extra, e->req_cycles, e->dram_extra);
    predict_text_add(t, "N = max(1, Q / T_mem) = %.1f waiting; stall = X / N = %.0f cycles",
                     e->outstanding, e->stall_cycles);
    predict_text_add(t, "T_alone = T - stall = %.0f (%.1f %% of T)", e->t_alone_cycles,
                     e->t_cycles > 0 ? 100 * e->t_alone_cycles / e->t_cycles : NAN);
    predict_text_add(t, "roofline to %u SMs: IPC_lin = (I/T_alone)(sigma/S_k) = %.1f", s->gpu.sms,
                     e->ipc_lin);
    predict_text_add(t, "  IPC_bw = P/b = %.1f B/cycle / %.2f B/inst = %.1f -> IPC_alone %.1f",
                     e->peak_bytes_per_cycle, e->bytes_per_inst, e->ipc_bw, e->ipc_alone);
    predict_text_add(t, "NP_raw = max(NP_lin %.3f, NP_bw %.3f) = %.3f (%s roof); slowdown %.2f",
                     e->np_lin, e->np_bw, e->np_raw, e->bw_bound ? "bandwidth" : "SM",
                     1 / e->np_raw);
    predict_text_add(t, "cap: slowdown <= sigma/S_k = %.2f, NP >= %.3f -> NP^ = %.3f%s",
                     1 / e->np_floor, e->np_floor, e->np, e->capped ? " (capped)" : "");
    predict_text_add(t, "what-if: g = NP^ / S_k = %.4f per SM", c->sms > 0 ? e->np / c->sms : NAN);
}

const struct predictor_ops predictor_dase = {
    .name = "dase",
    .summary = "DASE-style: LLC (sampled ATD) and DRAM interference subtracted, a roofline "
               "to all SMs, the HSM cap (Hu et al., via HSM; reconstructed)",
    .needs_private = false,
    .model = NULL,
    .create = dase_create,
    .destroy = dase_destroy,
    .predict = dase_predict,
    .np_at = dase_np_at,
    .explain = dase_explain,
};
