/* reproduce — a paper's predictor-accuracy experiment (`corun reproduce`): every mix of a suite
 * simulated once under its static partition, every registered predictor evaluated on each
 * epoch's counters (predictors do not change a static run, so one run serves them all), and
 * the prediction errors aggregated overall and per category, for printing beside the figures
 * the paper published. The published numbers are data for the table, never results. */
#ifndef CORUN_REPRODUCE_H
#define CORUN_REPRODUCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "corun/gpu_sets.h"
#include "corun/suite.h"

#define REPRO_MAX_PREDICTORS 8
#define REPRO_MAX_EPOCHS     64
#define REPRO_MAX_KERNELS    SUITE_MAX_KERNELS
#define REPRO_MAX_GROUPS     32

/* What an error is measured on. */
enum repro_error {
    REPRO_ERROR_NP, /* |NP^ - NP| / NP, as HSM reports */
    REPRO_ERROR_SD, /* of slowdown SD = 1/NP: |SD^ - SD| / SD = |NP - NP^| / NP^, as Themis */
};

/* A figure a paper printed, as fractions (0.068 for 6.8 %); NaN where it gives none. */
struct repro_published {
    const char *predictor; /* the registered name it belongs to */
    const char *source;    /* "HSM Fig. 10" */
    double avg, max, median;
    const char *gpu; /* the preset it was measured on; NULL: the suite's own */
};

/* One suite of an experiment. */
struct repro_part {
    const char *suite;   /* file name under DATADIR/scenarios/suites/ */
    const char *figure;  /* "HSM Fig. 10" */
    const char *caption; /* one line: what the paper measured */
    enum repro_error error;
    bool by_split;        /* also aggregate per SM split */
    unsigned quick_mixes; /* the --quick subset's size */
    const struct repro_published *published;
    size_t npublished;
};

struct repro_experiment {
    const char *name;    /* "hsm", "themis" */
    const char *flag;    /* "accuracy", or another flag naming a second one ("quads") */
    const char *summary; /* one line for --list */
    const struct repro_part *parts;
    size_t nparts;
};

size_t repro_experiment_count(void);
/* The i-th experiment, or NULL past the end. */
const struct repro_experiment *repro_experiment_at(size_t i);
/* The experiment called name with flag (without its dashes: "accuracy"), or NULL. */
const struct repro_experiment *repro_experiment_find(const char *name, const char *flag);
/* 1 when some accuracy experiment is called name. */
bool repro_experiment_named(const char *name);

/* One mix: every predictor's NP^ of each kernel in each epoch, and the true NP. */
struct repro_mix_result {
    unsigned mix;   /* index in the suite */
    char key[96];   /* "pvc+lbm", "pfn+bp@10:50" */
    char tag[32];   /* the suite's tag (category) */
    char split[32]; /* "10:50"; "" for an even split */
    unsigned nkernels, nepochs, npredictors;
    int failed;      /* nonzero: error says why and nothing else is valid */
    double seconds;  /* wall time, references included */
    unsigned runs;   /* simulations of the mix: a shared one (if a predictor uses it) + own ones */
    unsigned reused; /* predictors whose measurement was read from the catalog, not simulated */
    uint64_t cycles[REPRO_MAX_EPOCHS];
    /* [p]: predictor p's NP^ and the true NP of the run it was evaluated on; NaN: none */
    double np_true[REPRO_MAX_PREDICTORS][REPRO_MAX_EPOCHS][REPRO_MAX_KERNELS];
    double np_pred[REPRO_MAX_PREDICTORS][REPRO_MAX_EPOCHS][REPRO_MAX_KERNELS];
    /* 1: that NP^ extrapolated (predict_output.far) */
    uint8_t far[REPRO_MAX_PREDICTORS][REPRO_MAX_EPOCHS][REPRO_MAX_KERNELS];
    int own_run[REPRO_MAX_PREDICTORS];           /* 1: p changes the run (ASM), so it had its own */
    char unavailable[REPRO_MAX_PREDICTORS][200]; /* why predictor p could not run ("": it ran) */
    char error[256];
};

/* Count, mean, maximum and median of a set of errors; all NaN when n is 0. */
struct repro_stats {
    size_t n;
    double avg, max, median;
};

/* The error of predicted against truth under e; -1 when either is not a positive number. */
double repro_are(enum repro_error e, double predicted, double truth);

/* 1 when a figure published on preset published_gpu (NULL: the suite's own, suite_gpu) is
 * comparable with a run on gpu: the same preset. */
bool repro_published_on(const char *published_gpu, const char *gpu, const char *suite_gpu);

/* 1 when mix m belongs to group: NULL (every mix), its tag or its split. */
bool repro_in_group(const struct repro_mix_result *m, const char *group);

/* Predictor p's errors over the mixes r[0..n) in group (NULL: every mix; else the mixes whose
 * tag or split is group), failed mixes left out:
 *   per_epoch over every kernel-epoch that has both NP and NP^;
 *   per_run over every kernel, from its NP over the run (the private cycles of all its
 *   instructions / the run's cycles = the cycle-weighted mean of its epoch NPs) and its
 *   predicted NP over the run (the same mean of its epoch NP^s, i.e. predicted private cycles
 *   / run cycles), both over the epochs that have an NP^. */
void repro_aggregate(const struct repro_mix_result *r, size_t n, unsigned p, enum repro_error e,
                     const char *group, struct repro_stats *per_epoch, struct repro_stats *per_run);
/* Predictor p's per-epoch errors over the kernel-epochs of group (as repro_aggregate's) whose
 * NP^ extrapolated (far) or did not (!far). */
void repro_aggregate_far(const struct repro_mix_result *r, size_t n, unsigned p, enum repro_error e,
                         const char *group, bool far, struct repro_stats *per_epoch);

/* The --quick subset of s: want mixes spread over the tags (an equal share of each tag, evenly
 * spaced within it and shifted by the tag's rank) when there are at least as many as tags,
 * else evenly spaced over the suite. Writes the chosen indices, in suite order, to out[0..want) and
 * returns their count. */
size_t repro_quick_select(const struct suite *s, unsigned want, size_t *out);

/* Shard k of n (1 <= k <= n) of the mixes chosen[0..count): keeps, in order, those at the
 * positions p with p % n == k - 1 and returns how many. n of 0 or 1 keeps them all. */
size_t repro_shard_select(size_t *chosen, size_t count, unsigned k, unsigned n);
/* Whether position i belongs to shard k of n, by the same rule (n of 0: every position). */
bool repro_in_shard(size_t i, unsigned k, unsigned n);
/* Whether position i of count belongs to shard k of n when the shards are n runs of
 * consecutive positions (sizes within one of each other; n of 0 or 1: every position), so a
 * shard's items share what neighbours share (Prophet's pairs and cells, listed by LS
 * application). */
bool repro_in_run_shard(size_t i, size_t count, unsigned k, unsigned n);

/* ---- running a part (reproduce_run.c) ---- */

struct repro_options {
    const char *datadir;   /* presets, kernels, models, suites */
    const char *catalog;   /* the trace cache's catalog; NULL: the default */
    unsigned jobs;         /* worker processes (results do not depend on it) */
    unsigned threads;      /* threads of each mix's session (session_set_threads; results do
                              not depend on it); 0: 1 */
    unsigned epochs;       /* 0: the suite's (REPRO_QUICK_EPOCHS with quick) */
    unsigned epoch_cycles; /* 0: the suite's */
    bool quick;
    uint64_t seed;
    const char *predictors; /* comma-separated names to evaluate; NULL: every one */
    const char *gpu;        /* run every mix on this preset (splits scaled); NULL: the suite's */
    struct gpu_sets sets;   /* --set: GPU settings changed for every mix */
    const char *resume; /* a journal (reproduce_journal.h) keeping each finished mix; its mixes are
                           not run again. NULL: none */
    unsigned shard, shards; /* run only shard `shard` of `shards` (repro_shard_select); 0: all */
    bool fresh; /* measure every predictor, even one the catalog keeps a measurement of */
};

#define REPRO_QUICK_EPOCHS 3
/* --epoch-cycles' range, for every experiment that takes it */
#define REPRO_EPOCH_CYCLES_MIN 1000
#define REPRO_EPOCH_CYCLES_MAX 100000000

/* What --resume did for a run. */
struct repro_resume {
    size_t resumed;  /* mixes read from the journal, not simulated */
    size_t dropped;  /* bytes of a torn or corrupt tail cut off the journal when opened */
    size_t damaged;  /* damaged records skipped in its middle (their mixes run again) */
    char error[256]; /* why a finished mix could not be put in the journal ("" when none) */
};

struct repro_part_result {
    const struct repro_part *part;
    char suite[64], gpu[32];
    char suite_gpu[32]; /* the suite's own preset (gpu differs with --gpu) */
    unsigned epochs, epoch_cycles;
    size_t suite_mixes;                /* in the whole suite (the run may take a subset) */
    char groups[REPRO_MAX_GROUPS][32]; /* tags that have mixes, in the suite's order */
    unsigned ngroups;
    char splits[8][32]; /* splits that have mixes, in order of appearance */
    unsigned nsplits;
    char predictors[REPRO_MAX_PREDICTORS][16]; /* evaluated: the registry without the truth */
    unsigned npredictors;
    struct repro_mix_result *mixes; /* [nmixes], in suite order */
    size_t nmixes;
    double seconds;
    struct repro_resume resume;
};

/* Called as mixes finish: done (fractional while mixes are in flight) out of total. */
typedef void (*repro_progress_fn)(void *ctx, double done, unsigned total);

/* Run part with o: load its suite, simulate each mix (or the quick subset) once and evaluate
 * every predictor. Returns 0 when every mix ran; 1 when some failed (their results say why);
 * -1 with a message in err when nothing could start (a bad suite). Free out with
 * repro_part_result_done either way. */
/* What repro_run_part would refuse before running anything, for every part of experiment e:
 * a suite that does not load, --gpu's preset, --set's settings, a --resume file that is no
 * journal of this run (one not made yet is not made here). 0, or -1 with the first message in
 * err (checked before a Slurm job is submitted, whose tasks would each fail). *most_mixes: the
 * mixes of its largest part, the most shards that all run some. */
int repro_check_options(const struct repro_options *o, const struct repro_experiment *e,
                        size_t *most_mixes, char *err, size_t errlen);
int repro_run_part(const struct repro_options *o, const struct repro_part *part,
                   repro_progress_fn progress, void *ctx, struct repro_part_result *out, char *err,
                   size_t errlen);
void repro_part_result_done(struct repro_part_result *r);

#endif
