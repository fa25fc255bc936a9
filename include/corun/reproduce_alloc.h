/* reproduce_alloc — the papers' SM-allocation experiments (`corun reproduce hsm --fairness`,
 * `hsm --qos`, `smqos`, `themis --fairness`, `themis --qos`): every mix of a suite simulated
 * once per policy (an allocator changes the run, so each (mix, policy) is its own run), the
 * run-level metrics of DESIGN.md §3 computed from each run's true NP, and their averages per
 * policy, overall and per category, printed beside the figures the paper published. The
 * published numbers are data for the table, never results. */
#ifndef CORUN_REPRODUCE_ALLOC_H
#define CORUN_REPRODUCE_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "corun/reproduce.h"
#include "corun/suite.h"

#define RALLOC_MAX_POLICIES 16
#define RALLOC_MAX_KERNELS  SUITE_MAX_KERNELS

/* One way of running a mix. */
struct ralloc_policy {
    const char *label;     /* "fair/hsm" */
    const char *allocator; /* registered name */
    const char *predictor; /* registered name; NULL: none */
    double target;         /* > 0: the high-priority kernel is marked high with this qos_target,
                              and QoS is met when its NP over the run reaches it */
    double hp_share;       /* > 0: the scenario's hp_share */
    double smqos;          /* > 0: the scenario's smqos_policy */
    double weight0;     /* > 0: weights <weight0, 1 - weight0> (pairs), SMs split in proportion */
    const char *column; /* the policies compared together ("80%", "<0.2,0.8>"); NULL: one set */
};

/* What a published figure measures, per run and then averaged over the mixes of a group. */
enum ralloc_metric {
    RALLOC_FAIRNESS,   /* min NP / max NP */
    RALLOC_STP,        /* sum NP */
    RALLOC_ANTT,       /* mean 1/NP */
    RALLOC_UNFAIRNESS, /* Themis eq. 11 over s = 1/NP and the weights */
    RALLOC_UNFAIRNESS_MEDIAN,
    RALLOC_MET,      /* share of runs whose high-priority NP reaches the target */
    RALLOC_MET_NEAR, /* share within 5 % of it (NP >= 0.95 target) */
    RALLOC_HP_NP,    /* the high-priority kernel's NP / target */
    RALLOC_BATCH,    /* sum of the other kernels' NP (batch throughput / isolated) */
    RALLOC_ENERGY,   /* energy / the baseline run's */
    RALLOC_POWER,    /* energy per cycle / the baseline run's */
    RALLOC_NMETRICS
};

/* A published figure: the metric of policy over group, absolute, or relative to policy `ref`
 * (ours / ref's - 1) when ref is not NULL; NaN where the paper gives a bound, not a value. */
struct ralloc_published {
    const char *policy, *ref;
    const char *group; /* a tag, or NULL for every mix */
    enum ralloc_metric metric;
    double value;
    const char *source; /* "HSM §6.2" */
    const char *what;   /* one line: what the paper says */
};

struct ralloc_experiment {
    const char *name, *flag; /* "hsm", "fairness"; flag "" when the experiment has none */
    const char *suite;
    const char *figure, *caption;
    const char *split; /* only the suite's mixes with this split ("30:30"); NULL: every mix */
    int baseline;      /* the policy energy and power are relative to; -1: none */
    bool memory_hp;    /* the high-priority kernel is the memory-bound one of a mix with one
                          memory-bound kernel (else the first) */
    enum ralloc_metric metrics[6]; /* the table's columns, ended by RALLOC_NMETRICS */
    const struct ralloc_policy *policies;
    unsigned npolicies;
    const struct ralloc_published *published;
    size_t npublished;
    const char *missing; /* parts of the paper's experiment not run, and why; NULL: none */
    double cpu_seconds_per_mcycle; /* measured: one core's seconds per million cycles of one
                                      run (references included), for the projection */
};

size_t ralloc_experiment_count(void);
const struct ralloc_experiment *ralloc_experiment_at(size_t i);
/* The experiment called name with flag ("" for none), or NULL. */
const struct ralloc_experiment *ralloc_experiment_find(const char *name, const char *flag);
/* 1 when some experiment is called name. */
bool ralloc_experiment_named(const char *name);

/* One run: sums over its epochs. */
struct ralloc_run {
    int failed;
    unsigned epochs;
    double cycles;
    double private_cycles[RALLOC_MAX_KERNELS]; /* sum over epochs of NP * cycles */
    double sm_cycles[RALLOC_MAX_KERNELS];      /* time-weighted SMs * cycles */
    double energy_j;
};

struct ralloc_mix_result {
    unsigned mix;
    char key[96], tag[32];
    unsigned nkernels;
    int hp; /* the high-priority kernel */
    int failed;
    char error[256];
    double seconds;
    struct ralloc_run runs[RALLOC_MAX_POLICIES];
};

/* Run p of m: its kernels' NP over the run and its metrics (NaN where they do not apply). */
void ralloc_run_metrics(const struct ralloc_experiment *x, const struct ralloc_mix_result *m,
                        unsigned p, double *values /* [RALLOC_NMETRICS] */);

struct ralloc_stats {
    size_t n;                      /* mixes counted */
    double value[RALLOC_NMETRICS]; /* means over them (medians for *_MEDIAN, shares for MET) */
};

/* Policy p's metrics over the mixes r[0..n) in group (NULL: every mix; else a tag); failed
 * mixes and runs are left out. Sums follow r's order, so results do not depend on -j. */
void ralloc_aggregate(const struct ralloc_experiment *x, const struct ralloc_mix_result *r,
                      size_t n, unsigned p, const char *group, struct ralloc_stats *out);
/* Our value of figure f over r (absolute or relative, as f says); NaN when there is none. */
double ralloc_published_ours(const struct ralloc_experiment *x, const struct ralloc_published *f,
                             const struct ralloc_mix_result *r, size_t n);
/* The policy labelled label, or -1. */
int ralloc_policy_index(const struct ralloc_experiment *x, const char *label);

/* ---- running (reproduce_alloc_run.c) ---- */

struct ralloc_options {
    const char *datadir, *catalog;
    unsigned jobs;
    bool quick;
    unsigned mixes;        /* 0: the suite's (RALLOC_QUICK_MIXES with quick) */
    unsigned epochs;       /* 0: the suite's (RALLOC_QUICK_EPOCHS with quick) */
    unsigned epoch_cycles; /* 0: the suite's (RALLOC_QUICK_CYCLES with quick) */
    uint64_t seed;
};

#define RALLOC_QUICK_MIXES  6
#define RALLOC_QUICK_EPOCHS 3
#define RALLOC_QUICK_CYCLES 100000

struct ralloc_result {
    const struct ralloc_experiment *x;
    char suite[64], gpu[32];
    unsigned epochs, epoch_cycles;
    unsigned suite_epochs, suite_epoch_cycles; /* the paper-sized run's */
    size_t suite_mixes;                        /* eligible mixes in the suite */
    char groups[REPRO_MAX_GROUPS][32];
    unsigned ngroups;
    struct ralloc_mix_result *mixes;
    size_t nmixes;
    double seconds;
};

/* Run x with o. Returns 0 when every run worked, 1 when some failed (their mixes say why), -1
 * with a message in err when nothing could start. Free out with ralloc_result_done. */
int ralloc_run(const struct ralloc_options *o, const struct ralloc_experiment *x,
               repro_progress_fn progress, void *ctx, struct ralloc_result *out, char *err,
               size_t errlen);
void ralloc_result_done(struct ralloc_result *r);

#endif
