/* alloc — SM allocators (DESIGN.md §5): each is a const table of function pointers, and
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
    unsigned gated;            /* SMs power-gated now */
    uint64_t cycle;            /* core cycles simulated so far */
    const char *predictor;     /* the active predictor's name, "none" without one */
    alloc_np_at_fn np_at;      /* NULL without a predictor (or one without a what-if) */
    const void *np_at_ctx;     /* passed to np_at */
    const struct alloc_params *p;
};

#define ALLOC_REASON_MAX 192

struct alloc_decision {
    unsigned sms[GPU_MAX_KERNELS]; /* SMs per kernel from now on; each unfinished kernel >= 1 */
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
    const char *name;    /* as in scenarios and --allocator */
    const char *summary; /* one line for menus and help */
    bool uses_predictor; /* decides from the active predictor's NP̂ / what-if */
    bool uses_interval;  /* decides every p->smqos_interval cycles, not once per epoch */
    const char *dram_scheduler; /* the channel scheduler it needs ("bw-app"); NULL: default */
    void *(*create)(const struct alloc_setup *setup, char *err, size_t errlen);
    void (*destroy)(void *state);
    /* The next partition. out arrives zeroed; decide fills sms, gated, changed and reason. */
    void (*decide)(void *state, const struct alloc_input *in, struct alloc_decision *out);
};

/* ---- helpers shared by allocators and the session (alloc.c) ---- */

/* Kernel k's NP on sms SMs: the predictor's what-if when there is one, else the linear model
 * through the origin from its NP̂ (NP̂ * sms / owned); NaN when neither is known. */
double alloc_np_at(const struct alloc_input *in, unsigned k, double sms);
/* Fill out with in's current counts, changed = false and a reason "NAME: WHY". */
void alloc_keep(const struct alloc_input *in, struct alloc_decision *out, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Set out->changed by comparing with in, then write the reason. */
void alloc_reason(const struct alloc_input *in, struct alloc_decision *out, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* An SM map for the counts in d: SMs keep their owner while the owner's count allows, then
 * free SMs go to kernels short of their count in SM order, gated ones last. old and out have
 * nsms entries (kernel index, GPU_SM_IDLE or GPU_SM_GATED). */
void alloc_place(const struct alloc_decision *d, unsigned nkernels, const int *old, unsigned nsms,
                 int *out);

/* ---- the registry (alloc_registry.c) ---- */

size_t alloc_registry_count(void);
const struct allocator_ops *alloc_registry_at(size_t i);
/* The allocator called name, or NULL. */
const struct allocator_ops *alloc_registry_find(const char *name);
/* Fills names[0..min(n, count)) with the registered names; returns the count. */
size_t alloc_registry_names(const char **names, size_t n);

#endif
