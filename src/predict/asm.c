/* asm — ASM, the Application Slowdown Model (Subramanian et al., MICRO 2015), as Themis (§III,
 * §VI) adapts it to a GPU: the cache access rate (CAR) is counted at the LLC, the "alone" rate
 * is sampled in priority epochs at the memory controllers, and a sampled auxiliary tag
 * directory (ATD) tells which LLC misses would have been hits alone.
 *
 *   slowdown = CAR_alone / CAR_shared,  NP̂ = 1 / slowdown = CAR_shared / CAR_alone
 *   CAR_shared = A / E                       A: LLC accesses in the epoch of E cycles
 *   CAR_alone  = A_p / (T_p - X)             A_p, T_p: accesses, cycles in the kernel's turns
 *
 * X, the cycles the turns lost to cache contention (contention misses that would have hit
 * alone, each paying a miss's excess latency ΔL over a hit):
 * - contention misses C_p = A_p x max(0, ATD shared misses - ATD alone misses) / ATD accesses,
 *   at most the turns' misses M_p (the ATD's sampled sets stand for every set, and the rate
 *   over the epoch for the turns); no ATD accesses, no correction;
 * - a GPU overlaps its misses, so the C_p x ΔL latency is spread over the misses in flight,
 *   N = M_p x ΔL / T_p on average (Little's law over the turns): C_p x ΔL / N = T_p x C_p / M_p,
 *   and ΔL cancels, so no latency counter is needed;
 * - and a GPU hides latency behind other warps: only the time the kernel's schedulers stood
 *   idle, the stall share 1 - u with u = IPC / (S_k x schedulers per SM), can be the misses'.
 *   So X = T_p x (1 - u) x C_p / M_p: the stalled part of the turns, in the share of the
 *   misses that contention caused.
 *   Both are our GPU adaptation; the CPU paper subtracts C_p x ΔL, which for thousands of
 *   misses in flight would exceed T_p, and a first version here without the stall share took
 *   a compute-bound kernel running at full issue rate (nothing to hide) for a 10x slowdown.
 *   S_k enters only through u, how busy the kernel's own SMs were; NP̂ itself has no S_k.
 *   At most ASM_MAX_REMOVED of T_p is removed, so that sampling noise in one epoch cannot
 *   make CAR_alone unbounded.
 * Left out: ASM's correction for other applications' requests still queued when a turn
 * starts (no counter for it; turns are thousands of cycles, queues drain in hundreds).
 *
 * ASM ignores the SM count by design: the turns run on the kernel's own SMs, so CAR_alone is
 * "alone at the memory system, on S_k SMs", and NP̂ has no S_k/sigma factor. That is the error
 * the Themis paper measures on spatial multitasking (Fig. 1b, Fig. 5); it is kept here. For the
 * same reason np_at is a constant: ASM's slowdown does not depend on the SMs, and a NULL np_at
 * would make the allocators borrow HSM's linear SM scaling, a what-if ASM does not have. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "corun/predict.h"
#include "corun/util.h"

#define ASM_PRIORITY_EPOCH_CYCLES 10000 /* core cycles per turn, ASM's 10 K-cycle epochs */
#define ASM_MAX_REMOVED           0.9   /* most of T_p the contention correction removes */

/* One kernel's arithmetic in the last epoch predicted. */
struct asm_terms {
    double car_shared;      /* accesses per cycle */
    double contention_rate; /* ATD: contention misses per access, 0 without ATD data */
    double c_p;             /* contention misses in the turns */
    double stall;           /* 1 - u: the share of issue slots the kernel left idle */
    double removed;         /* X / T_p, after the cap */
    double x;               /* cycles removed */
    double car_alone;
    double np;
};

struct asm_state {
    unsigned schedulers_per_sm;
    unsigned nkernels;
    struct gpu_kernel_counters c[GPU_MAX_KERNELS];
    struct asm_terms t[GPU_MAX_KERNELS];
    double last_np[GPU_MAX_KERNELS]; /* the last finite NP̂ per kernel, for np_at */
};

static void *asm_create(const struct predict_gpu *gpu, const struct predict_model *model, char *err,
                        size_t errlen)
{
    (void)model, (void)err, (void)errlen;
    struct asm_state *s = xcalloc(1, sizeof(*s));
    s->schedulers_per_sm = gpu->schedulers_per_sm;
    for (unsigned k = 0; k < GPU_MAX_KERNELS; k++)
        s->last_np[k] = 1; /* no evidence yet: ASM's slowdown of 1 */
    return s;
}

static void asm_destroy(void *state)
{
    free(state);
}

static void asm_terms(const struct gpu_kernel_counters *c, uint64_t epoch_cycles,
                      unsigned schedulers_per_sm, struct asm_terms *t)
{
    double e = (double)(c->cycles ? c->cycles : epoch_cycles);
    double a_p = (double)c->prio_l2_accesses, t_p = (double)c->prio_cycles;
    double m_p = (double)c->prio_l2_misses;
    *t = (struct asm_terms){.car_shared = e > 0 ? (double)c->l2_accesses / e : 0, .np = NAN};
    if (c->atd_accesses > 0 && c->atd_shared_misses > c->atd_misses)
        t->contention_rate =
            (double)(c->atd_shared_misses - c->atd_misses) / (double)c->atd_accesses;
    t->c_p = fmin(a_p * t->contention_rate, m_p);
    double slots = c->sms * schedulers_per_sm * e;
    double u = slots > 0 ? (double)c->instructions / slots : 0;
    t->stall = 1 - fmin(fmax(u, 0), 1);
    t->removed = m_p > 0 ? fmin(t->stall * t->c_p / m_p, ASM_MAX_REMOVED) : 0;
    t->x = t->removed * t_p;
    if (!(t_p > 0) || !(c->sms > 0))
        return; /* no turn in this epoch, or no SM to run on: no alone rate */
    t->car_alone = a_p / (t_p - t->x);
    if (t->car_alone > 0)
        t->np = t->car_shared / t->car_alone;
    else if (c->l2_accesses == 0)
        t->np = 1; /* no LLC traffic at all: ASM sees no interference */
}

static void asm_predict(void *state, const struct predict_input *in, struct predict_output *out)
{
    struct asm_state *s = state;
    s->nkernels = in->nkernels;
    for (unsigned k = 0; k < in->nkernels; k++) {
        s->c[k] = in->c[k];
        asm_terms(&in->c[k], in->epoch_cycles, s->schedulers_per_sm, &s->t[k]);
        if (isfinite(s->t[k].np))
            s->last_np[k] = s->t[k].np;
        out->np[k] = s->t[k].np;
        out->cls[k] = KERNEL_CLASS_NONE;
    }
}

static double asm_np_at(const void *state, unsigned k, double sms)
{
    const struct asm_state *s = state;
    (void)sms; /* by design: see the top of the file */
    return k < GPU_MAX_KERNELS ? s->last_np[k] : 1;
}

static void asm_explain(const void *state, unsigned k, struct predict_text *t)
{
    const struct asm_state *s = state;
    t->n = 0;
    if (k >= s->nkernels) {
        predict_text_add(t, "ASM: no epoch predicted yet");
        return;
    }
    const struct gpu_kernel_counters *c = &s->c[k];
    const struct asm_terms *a = &s->t[k];
    predict_text_add(t, "ASM: NP^ = CAR_shared / CAR_alone (ignores the SM count by design)");
    predict_text_add(t, "CAR_shared = %llu LLC acc / %llu cyc = %.3f per kcyc",
                     (unsigned long long)c->l2_accesses, (unsigned long long)c->cycles,
                     1e3 * a->car_shared);
    predict_text_add(t, "priority turns: T_p %llu cyc, A_p %llu acc, M_p %llu misses",
                     (unsigned long long)c->prio_cycles, (unsigned long long)c->prio_l2_accesses,
                     (unsigned long long)c->prio_l2_misses);
    if (c->atd_accesses)
        predict_text_add(t, "ATD: %llu acc, %llu alone misses, %llu shared: %.4f contention/acc",
                         (unsigned long long)c->atd_accesses, (unsigned long long)c->atd_misses,
                         (unsigned long long)c->atd_shared_misses, a->contention_rate);
    else
        predict_text_add(t, "ATD: no sampled accesses: no contention correction");
    predict_text_add(t, "C_p = min(A_p x %.4f, M_p) = %.1f contention misses", a->contention_rate,
                     a->c_p);
    predict_text_add(t, "stall share 1 - u = 1 - %.2f IPC / (%.2f SMs x %u) = %.3f", c->ipc, c->sms,
                     s->schedulers_per_sm, a->stall);
    predict_text_add(t, "X = T_p x min(stall x C_p / M_p, %.1f) = %.0f cyc (%.1f%% of T_p)",
                     ASM_MAX_REMOVED, a->x, 100 * a->removed);
    predict_text_add(t, "CAR_alone = A_p / (T_p - X) = %.3f per kcyc", 1e3 * a->car_alone);
    if (isnan(a->np))
        predict_text_add(t, "NP^ = n/a (%s)",
                         c->prio_cycles ? "no LLC access in its turns" : "no priority turn");
    else
        predict_text_add(t, "NP^ = %.3f / %.3f = %.3f", 1e3 * a->car_shared, 1e3 * a->car_alone,
                         a->np);
    predict_text_add(t, "S_k %.2f SMs: not used (Themis: why ASM errs on GPUs)", c->sms);
    predict_text_add(t, "what-if: NP^ %.3f at any SM count", s->last_np[k]);
}

const struct predictor_ops predictor_asm = {
    .name = "asm",
    .summary = "ASM: cache access rate alone vs shared, from priority epochs (Subramanian et al.)",
    .needs_private = false,
    .model = NULL,
    .priority_epoch_cycles = ASM_PRIORITY_EPOCH_CYCLES,
    .create = asm_create,
    .destroy = asm_destroy,
    .predict = asm_predict,
    .np_at = asm_np_at,
    .explain = asm_explain,
};
