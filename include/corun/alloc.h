/* alloc — SM allocators (docs/design.md §5): each is a const table of function pointers, and
 * alloc_registry.c lists them all in one array.
 *
 * At every decision point (an epoch boundary, or every interval_cycles for allocators that
 * decide more often, like SMQoS) the session hands the allocator what the GPU counted, the
 * active predictor's NP̂ and what-if, and the scenario's parameters; the allocator answers
 * with SM counts per kernel (plus SMs to power-gate) and a one-line reason for the event log.
 * The session turns counts into an SM map with alloc_place (few SMs move) and repartitions
 * with the core's adaptive drain / context switch. Allocators never see private-mode truth. */
#ifndef CORUN_ALLOC_H
#define CORUN_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "corun/gpu.h"

/* The scenario's allocator settings (the session copies them from struct scenario). */
struct alloc_params {
    double fairness_threshold; /* fair, themis-engine: act when fairness is below it (0.9) */
    double qos_upper;          /* qos: shrink the high-priority kernel above this NP (0.9) */
    double hp_share;           /* proportional: the high-priority kernel's share (0.8 = 64/80) */
    double smqos_policy;       /* smqos, static-smqos: IPC target / isolated IPC (0.9) */
    unsigned smqos_interval;   /* smqos: decision interval, core cycles (10000) */
    double smqos_threshold;    /* smqos: Algorithm 2's IPC gain or loss that counts (0.01) */
    bool smqos_take_last;      /* smqos: may take a batch kernel's last SM (smqos_batch_min 0) */
    bool static_smqos_down;    /* static-smqos: round smqos_policy x SMs down, not to nearest */
};

/* One kernel, as the allocator sees it at a decision point. */
struct alloc_kernel {
    int priority;        /* enum scenario_priority: 1 high, 0 low */
    double qos_target;   /* NP to keep when high priority */
    double weight;       /* weighted-fairness share (all 0: equal) */
    unsigned sms;        /* SMs it owns now */
    double np_pred;      /* the active predictor's NP̂ for the interval; NaN without one */
    double ipc;          /* measured over the interval: warp instructions / cycle */
    double ipc_isolated; /* alone on every SM (an offline profile, as SMQoS assumes) */
    bool finished;       /* no work left: its SMs are free for others */
    const struct gpu_kernel_counters *c; /* the interval's counters */
};

/* What-if from the active predictor: kernel k's NP on sms SMs (NaN when it cannot say). */
typedef double (*alloc_np_at_fn)(const void *ctx, unsigned k, double sms);

struct alloc_input {
    unsigned sms;      /* the GPU's SMs */
    unsigned nkernels; /* 1..GPU_MAX_KERNELS */
    struct alloc_kernel k[GPU_MAX_KERNELS];
    unsigned gated;        /* SMs power-gated now */
    uint64_t cycle;        /* core cycles simulated so far */
    const char *predictor; /* the active predictor's name, "none" without one */
    alloc_np_at_fn np_at;  /* NULL without a predictor (or one without a what-if) */
    const void *np_at_ctx; /* passed to np_at */
    const struct alloc_params *p;
};

#define ALLOC_REASON_MAX 192

struct alloc_decision {
    unsigned sms[GPU_MAX_KERNELS]; /* SMs per kernel from now on; each unfinished kernel >= 1
                                      (SMQoS with smqos_batch_min = 0: a batch kernel >= 0) */
    unsigned gated;                /* SMs to power-gate; the rest stay idle */
    bool changed;                  /* differs from the input's counts */
    char reason[ALLOC_REASON_MAX]; /* "fair: fairness 0.61 < 0.90, moved 7 SMs lbm→bino" */
};

/* Fixed for an allocator's life. */
struct alloc_setup {
    unsigned sms, nkernels;
    const char *const *names; /* [nkernels] kernel names, for reasons */
    const struct alloc_params *p;
};

struct allocator_ops {
    const char *name;           /* as in scenarios and --allocator */
    const char *summary;        /* one line for menus and help */
    bool uses_predictor;        /* decides from the active predictor's NP̂ / what-if */
    bool uses_interval;         /* decides every p->smqos_interval cycles, not once per epoch */
    bool uses_isolated_ipc;     /* reads alloc_kernel.ipc_isolated (NaN for the others) */
    bool needs_high_priority;   /* does nothing unless a kernel has priority high */
    const char *dram_scheduler; /* the channel scheduler it needs ("bw-app"); NULL: default */
    void *(*create)(const struct alloc_setup *setup, char *err, size_t errlen);
    void (*destroy)(void *state);
    /* The next partition. out arrives zeroed; decide fills sms, gated, changed and reason. */
    void (*decide)(void *state, const struct alloc_input *in, struct alloc_decision *out);
};

/* ---- helpers shared by allocators and the session (alloc.c) ---- */

/* Kernel k's NP on sms SMs: the predictor's what-if when there is one and it answers, else
 * HSM's linear model through the origin from its NP̂ (NP̂ * sms / S, S the SMs it had over the
 * interval: the counters' time-weighted count, else the SMs it owns); 0 on no SM; NaN when
 * neither is known. */
double alloc_np_at(const struct alloc_input *in, unsigned k, double sms);
/* Fill out with in's current counts (with the invariants alloc_base restores, idle and gated
 * SMs left as they are), changed set accordingly and a reason: fmt writes the whole line,
 * starting with the allocator's name ("even: 40/40 (unchanged)"). */
void alloc_keep(const struct alloc_input *in, struct alloc_decision *out, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Set out->changed by comparing with in, then write the reason. */
void alloc_reason(const struct alloc_input *in, struct alloc_decision *out, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* An SM map for the counts in d: SMs keep their owner while the owner's count allows (the
 * lowest-numbered ones stay), then free SMs go to kernels short of their count in SM order,
 * idle ones before gated ones (so few SMs wake); of the SMs still free, d->gated are gated,
 * those gated already first, and the rest are idle. old and out have nsms entries (kernel
 * index, GPU_SM_IDLE or GPU_SM_GATED); the counts plus d->gated must fit in nsms. */
void alloc_place(const struct alloc_decision *d, unsigned nkernels, const int *old, unsigned nsms,
                 int *out);

/* ---- for the allocators themselves (alloc.c) ---- */

/* What every allocator's state starts with: the setup's facts and a copy of the names. */
struct alloc_common {
    unsigned sms, nkernels;
    char *names[GPU_MAX_KERNELS];
};

/* A zeroed state of size bytes (size >= sizeof(struct alloc_common); the allocator's struct
 * has a struct alloc_common as its first member) with the common part filled from setup.
 * Release with alloc_state_delete. */
void *alloc_state_new(const struct alloc_setup *setup, size_t size);
void alloc_state_delete(void *state);
/* Kernel k's name for reasons ("k3" when the setup gave none). */
const char *alloc_kernel_name(const void *state, unsigned k);

/* The number of unfinished kernels in in. */
unsigned alloc_unfinished(const struct alloc_input *in);
/* The first unfinished high-priority kernel, or -1. */
int alloc_high_priority(const struct alloc_input *in);
/* SMQoS's latency-sensitive task: the first unfinished high-priority kernel; with none,
 * kernel 0, or the first unfinished one when kernel 0 has finished; -1 when all have. */
int alloc_ls_kernel(const struct alloc_input *in);
/* The counts to start from: in's, with the invariants restored — a finished kernel's SMs go
 * to the unfinished kernels with the fewest SMs (one at a time, lowest index first on ties),
 * and an unfinished kernel with none gets one (a finished kernel's, else an idle one, else a
 * gated one, else one of the richest kernel's).
 * With use_free, idle and gated SMs are handed out the same way and *gated becomes 0; without
 * it they stay idle or gated. Fills sms[0..nkernels) and *gated. */
void alloc_base(const struct alloc_input *in, bool use_free, unsigned *sms, unsigned *gated);
/* alloc_base without use_free, except that an unfinished kernel with no SM keeps none (SMQoS
 * with smqos_batch_min = 0, whose LS kernel may take a batch kernel's last SM). */
void alloc_base_keep_empty(const struct alloc_input *in, unsigned *sms, unsigned *gated);
/* total SMs split evenly over the unfinished kernels whose skip entry is false (skip may be
 * NULL); the remainder goes one each to the lowest indices. Other entries are left alone. */
void alloc_spread(const struct alloc_input *in, unsigned total, const bool *skip, unsigned *sms);
/* When at most one kernel is unfinished, fill out (it gets every SM, nothing is gated) with
 * the reason "NAME: KERNEL alone, all N SMs" and return true; else return false. */
bool alloc_alone(const void *state, const struct alloc_input *in, struct alloc_decision *out,
                 const char *name);
/* "40/40": counts of every kernel, into buf. */
void alloc_format_counts(const struct alloc_input *in, const unsigned *sms, char *buf, size_t len);
/* How sms differs from in's counts, into buf: "7 SMs lbm→bino" when one kernel gives to one
 * other, else "lbm 40→33, bino 20→27, ..."; "no SM moves" when equal. */
void alloc_format_moves(const void *state, const struct alloc_input *in, const unsigned *sms,
                        char *buf, size_t len);
/* With out->sms holding the new counts, write the reason "NAME: WHY64/16 (unchanged)" or
 * "NAME: WHY64/16 (10 SMs a→b)" (alloc_reason sets changed). */
void alloc_conclude(const void *state, const struct alloc_input *in, struct alloc_decision *out,
                    const char *name, const char *why);

/* ---- the registry (alloc_registry.c) ---- */

extern const struct allocator_ops allocator_static, allocator_even, allocator_proportional,
    allocator_static_smqos, allocator_fair, allocator_qos, allocator_themis_engine, allocator_smqos,
    allocator_bw_app;

/* Number of registered allocators. */
size_t alloc_registry_count(void);
/* The i-th registered allocator, or NULL past the end. */
const struct allocator_ops *alloc_registry_at(size_t i);
/* The allocator called name, or NULL. */
const struct allocator_ops *alloc_registry_find(const char *name);
/* Fills names[0..min(n, count)) with the registered names; returns the count. */
size_t alloc_registry_names(const char **names, size_t n);

#endif
