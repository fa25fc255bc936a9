/* reproduce_alloc — the papers' SM-allocation experiments (`corun reproduce hsm --fairness`,
 * `hsm --qos`, `hsm --threshold`, `smqos`, `smqos --triples`, `themis --fairness`,
 * `themis --qos`; `corun reproduce --list` names them all): every mix of a suite simulated
 * once per policy (an allocator changes the run, so each (mix, policy) is its own run), the
 * run-level metrics of docs/design.md §3 computed from each run's true NP, and their averages per
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
    double threshold;   /* > 0: the allocator's threshold in the scenario (smqos_threshold for
                           smqos, else fairness_threshold); 0: its default */
    const char *set;    /* scenario settings added as they are ("smqos_batch_min = 0;"); NULL */
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
    RALLOC_MOVED,    /* SMs the kernels gained from one epoch to the next, summed over the run */
    RALLOC_HP_SMS,   /* the high-priority kernel's SMs, time-weighted over the run */
    RALLOC_NMETRICS
};

/* A published figure: the metric of policy over group, absolute, or relative to policy `ref`
 * (ours / ref's - 1) when ref is not NULL; NaN where the paper gives a bound, not a value. */
struct ralloc_published {
    const char *policy, *ref;
    const char *group; /* a tag; "first=NAME": the mixes whose first kernel is NAME; NULL:
                          every mix */
    enum ralloc_metric metric;
    double value;
    const char *source; /* "HSM §6.2" */
    const char *what;   /* one line: what the paper says */
    const char *gpu;    /* the preset it was measured on; NULL: the suite's own */
};

struct ralloc_experiment {
    const char *name, *flag; /* "hsm", "fairness"; flag "" when the experiment has none */
    const char *suite;
    const char *figure, *caption;
    const char *only; /* only the suite's mixes with this split ("30:30") or, written
                         "first=NAME", whose first kernel is NAME; NULL: every mix */
    int baseline;     /* the policy energy and power are relative to; -1: none */
    bool memory_hp;   /* the high-priority kernel is the memory-bound one of a mix with one
                         memory-bound kernel (else the first) */
    enum ralloc_metric metrics[6]; /* the table's columns, ended by RALLOC_NMETRICS */
    const struct ralloc_policy *policies;
    unsigned npolicies;
    const struct ralloc_published *published;
    size_t npublished;
    const char *missing; /* parts of the paper's experiment not run, and why; NULL: none */
    double cpu_seconds_per_mcycle; /* measured: one core's seconds per million cycles of one
                                      run (references included), for the projection */
    bool by_mix; /* also print metrics[0] per mix and policy (a figure with a bar per mix) */
};

size_t ralloc_experiment_count(void);
const struct ralloc_experiment *ralloc_experiment_at(size_t i);
/* The experiment called name with flag ("" for none), or NULL. */
const struct ralloc_experiment *ralloc_experiment_find(const char *name, const char *flag);
/* 1 when some experiment is called name. */
bool ralloc_experiment_named(const char *name);

/* What the search for SMQoS §5.4's Offline partition found (see ralloc_offline_search). */
struct ralloc_offline {
    unsigned ls_sms, batch_sms; /* n and m; the other SMs were gated */
    bool met;           /* some n meets the LS target (else n is the most the LS can have) */
    unsigned runs;      /* static runs the search asked for */
    unsigned simulated; /* of those, the ones simulated for it (the others were made by an
                           earlier search of the same mix); set by whoever caches the runs */
};

/* One run: sums over its epochs. */
struct ralloc_run {
    int failed;
    unsigned epochs;
    double cycles;
    double private_cycles[RALLOC_MAX_KERNELS]; /* sum over epochs of NP * cycles */
    double sm_cycles[RALLOC_MAX_KERNELS];      /* time-weighted SMs * cycles */
    double energy_j;
    double sms_moved;              /* SMs the kernels gained from one epoch to the next, summed */
    struct ralloc_offline offline; /* a policy with allocator RALLOC_OFFLINE: its search */
};

struct ralloc_mix_result {
    unsigned mix;
    char key[96], tag[32];
    unsigned nkernels;
    int hp; /* the high-priority kernel */
    int failed;
    char error[256];
    double seconds;
    unsigned reused; /* runs read from the catalog instead of simulated */
    struct ralloc_run runs[RALLOC_MAX_POLICIES];
};

/* Run p of m: its kernels' NP over the run and its metrics (NaN where they do not apply). */
void ralloc_run_metrics(const struct ralloc_experiment *x, const struct ralloc_mix_result *m,
                        unsigned p, double *values /* [RALLOC_NMETRICS] */);

struct ralloc_stats {
    size_t n;                      /* mixes counted */
    double value[RALLOC_NMETRICS]; /* means over them (medians for *_MEDIAN, shares for MET) */
};

/* Policy p's metrics over the mixes r[0..n) in group (NULL: every mix; else a tag, or
 * "first=NAME" for the mixes whose first kernel is NAME); failed mixes and runs are left out.
 * Sums follow r's order, so results do not depend on -j. */
void ralloc_aggregate(const struct ralloc_experiment *x, const struct ralloc_mix_result *r,
                      size_t n, unsigned p, const char *group, struct ralloc_stats *out);
/* Our value of figure f over r (absolute or relative, as f says); NaN when there is none. */
double ralloc_published_ours(const struct ralloc_experiment *x, const struct ralloc_published *f,
                             const struct ralloc_mix_result *r, size_t n);
/* NAME when group is written "first=NAME" (the mixes whose first kernel is NAME), else NULL. */
const char *ralloc_group_first(const char *group);
/* The policy labelled label, or -1. */
int ralloc_policy_index(const struct ralloc_experiment *x, const char *label);

/* ---- running (reproduce_alloc_run.c) ---- */

struct ralloc_options {
    const char *datadir, *catalog;
    unsigned jobs;
    unsigned threads; /* threads of each run's session (session_set_threads; results do not
                         depend on it); 0: 1 */
    bool quick;
    unsigned mixes;        /* 0: the suite's (RALLOC_QUICK_MIXES with quick) */
    unsigned epochs;       /* 0: the suite's (RALLOC_QUICK_EPOCHS with quick) */
    unsigned epoch_cycles; /* 0: the suite's (RALLOC_QUICK_CYCLES with quick) */
    uint64_t seed;
    const char *resume; /* a journal (reproduce_journal.h) keeping each finished mix; its mixes are
                           not run again. NULL: none */
    const char *gpu;    /* run every mix on this preset (splits scaled); NULL: the suite's */
    struct gpu_sets sets;   /* --set: GPU settings changed for every mix */
    unsigned shard, shards; /* run only shard `shard` of `shards` (repro_shard_select); 0: all */
    const char *policies;   /* the labels x was cut down to (ralloc_subset.labels), which the
                               journal's identity names; NULL: x is whole */
    bool fresh; /* simulate every run, even one the catalog holds finished (and store it) */
};

#define RALLOC_QUICK_MIXES  6
#define RALLOC_QUICK_EPOCHS 3
#define RALLOC_QUICK_CYCLES 100000

struct ralloc_result {
    const struct ralloc_experiment *x;
    char suite[64], gpu[32];
    char suite_gpu[32]; /* the suite's own preset (gpu differs with --gpu) */
    unsigned epochs, epoch_cycles;
    unsigned suite_epochs, suite_epoch_cycles; /* the paper-sized run's */
    size_t suite_mixes;                        /* eligible mixes in the suite */
    char groups[REPRO_MAX_GROUPS][32];
    unsigned ngroups;
    struct ralloc_mix_result *mixes;
    size_t nmixes;
    double seconds;
    struct repro_resume resume;
};

/* An experiment cut down to some of its policies (reproduce_alloc_subset.c). */
struct ralloc_subset {
    struct ralloc_experiment x; /* points into the two arrays below */
    struct ralloc_policy policies[RALLOC_MAX_POLICIES];
    struct ralloc_published *published; /* heap */
    char labels[512]; /* the policies kept, comma-separated, in x's order (for the journal) */
};

/* x with only the policies whose labels are in the comma-separated list labels, and always its
 * baseline, in x's order; the published figures whose policy or reference is left out are left
 * out too. 0, or -1 with a message naming the label and listing x's labels. Free with
 * ralloc_subset_done. */
int ralloc_experiment_subset(const struct ralloc_experiment *x, const char *labels,
                             struct ralloc_subset *out, char *err, size_t errlen);
void ralloc_subset_done(struct ralloc_subset *s);

/* Run x with o. Returns 0 when every run worked, 1 when some failed (their mixes say why), -1
 * with a message in err when nothing could start. Free out with ralloc_result_done. */
/* What ralloc_run would refuse before running anything: a suite that does not load, --gpu's
 * preset, --set's settings, a --resume file that is no journal of this run; *mixes: the mixes
 * it runs, the most shards that all run some. 0, or -1 with the message in err (checked
 * before a Slurm job is submitted, whose tasks would each fail). */
int ralloc_check_options(const struct ralloc_options *o, const struct ralloc_experiment *x,
                         size_t *mixes, char *err, size_t errlen);
int ralloc_run(const struct ralloc_options *o, const struct ralloc_experiment *x,
               repro_progress_fn progress, void *ctx, struct ralloc_result *out, char *err,
               size_t errlen);
void ralloc_result_done(struct ralloc_result *r);

/* ---- SMQoS §5.4's Offline allocation (reproduce_offline.c) ----
 *
 * "The optimum SM allocation satisfies: (1) the LS task occupies just enough SMs to meet its
 * QoS, and (2) the remaining SMs are assigned to batch tasks for better throughput." Offline is
 * the static partition of a pair, LS n SMs and batch m SMs, the rest power-gated (gating is
 * SMQoS's §4.3 idea; without it Offline's power could not be compared fairly), where n is the
 * smallest count whose run meets the LS target with the batch on all the other SMs, and m the
 * smallest count whose batch NP is within RALLOC_OFFLINE_THRESHOLD (SMQoS's threshold) of the
 * best over m. A policy whose allocator is RALLOC_OFFLINE runs this search (its target is the
 * policy) instead of one run, and the run it reports is the (n, m) run. */
#define RALLOC_OFFLINE           "offline" /* not a registered allocator */
#define RALLOC_OFFLINE_THRESHOLD 0.01

struct scenario;
struct catalog;
struct ralloc_prober;

/* One static run of the pair: the LS kernel on ls_sms SMs, the batch kernel on batch_sms, the
 * rest gated, into out. Returns 0, or -1 with a message in err. */
typedef int (*ralloc_probe_fn)(void *ctx, unsigned ls_sms, unsigned batch_sms,
                               struct ralloc_run *out, char *err, size_t errlen);

/* Search Offline's (n, m) on a GPU of sms SMs, kernel ls (0 or 1) being the LS one, meeting its
 * target when its NP over the run is >= policy, through probe. Binary search over n, then over
 * m, assuming the LS NP does not fall as n grows and the batch NP does not fall as m grows
 * (exhaustive: try every n and m instead, to check that assumption). found gets (n, m) and the
 * runs asked for; chosen the (n, m) run. Returns 0, or -1 with probe's message in err. */
int ralloc_offline_search(unsigned sms, unsigned ls, double policy, bool exhaustive,
                          ralloc_probe_fn probe, void *ctx, struct ralloc_offline *found,
                          struct ralloc_run *chosen, char *err, size_t errlen);

/* The static runs of one pair, simulated once each: sessions of sc with allocator static, no
 * predictor, kernels[ls].sms and the other kernel's sms set and unassigned_sms "gated", for
 * sc's epochs. cat (may be NULL) shares the private-mode references. NULL with a message in
 * err when sc is not a pair or ls is not 0 or 1. */
struct ralloc_prober *ralloc_prober_new(const struct scenario *sc, unsigned ls, struct catalog *cat,
                                        char *err, size_t errlen);
/* A ralloc_probe_fn: ctx is a prober; a partition asked for before is not simulated again. */
int ralloc_prober_run(void *ctx, unsigned ls_sms, unsigned batch_sms, struct ralloc_run *out,
                      char *err, size_t errlen);
/* The runs the prober has simulated so far. */
unsigned ralloc_prober_simulated(const struct ralloc_prober *p);
void ralloc_prober_delete(struct ralloc_prober *p);

#endif
