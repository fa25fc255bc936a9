/* sweep — every mix of a suite with every predictor/allocator combination, results into the
 * catalog's sweep_results. Resumable (finished items are skipped) and shardable (shard k of n
 * takes every n-th item), so several processes or machines sharing one catalog split a suite;
 * -j N runs the shard's items on N forked workers, each taking the next item when idle. */
#ifndef CORUN_SWEEP_H
#define CORUN_SWEEP_H

#include "corun/gpu_sets.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SWEEP_MAX_COMBOS 16

struct sweep_combo {
    char predictor[32]; /* "none" or a registered predictor */
    char allocator[32]; /* "static": the partition stays the scenario's (even or its split) */
};

struct sweep_options {
    const char *suite;   /* suite file */
    const char *datadir; /* presets, kernels, models */
    const char *catalog; /* NULL: the default catalog */
    struct sweep_combo combos[SWEEP_MAX_COMBOS];
    unsigned ncombos;
    unsigned shard, shards; /* this process takes items with index % shards == shard - 1 */
    unsigned jobs;          /* worker processes */
    unsigned threads;       /* threads of each mix's session (session_set_threads); 0: 1 */
    uint64_t seed;
    unsigned epochs;      /* 0: the suite's */
    struct gpu_sets sets; /* --set: GPU settings changed for every mix */
};

struct sweep_summary {
    unsigned items;   /* mixes x combos in this shard */
    unsigned skipped; /* already in the catalog */
    unsigned run;     /* simulated now */
    unsigned failed;
    char suite[64];    /* the suite's name, as the catalog's sweep_results keep it */
    char config[1280]; /* the results' config there: what else they depend on */
};

/* Parse "P:A,P:A,..." into o->combos, checking the names. Returns 0, or -1 with a message. */
int sweep_parse_combos(struct sweep_options *o, const char *text, char *err, size_t errlen);

/* The catalog's key for a suite mix: kernel names joined by '+', then "@a:b" when the mix
 * gives a split, e.g. "lbm+bino" or "mrigr+kmeans@10:50". */
void sweep_mix_key(const char *const *kernels, const unsigned *sms, unsigned n, char *out,
                   size_t len);

/* What sweep_run refuses in the catalog (NULL: the default) before it runs anything: one that
 * cannot be made or opened, is no corun catalog, cannot be written, or has damaged sweep
 * results. 0, or -1 with the message in err. A catalog this makes is kept when keep_made (the
 * sweep writes to it next), else removed (a --slurm job checked before it is submitted). */
int sweep_check_catalog(const char *catalog, bool keep_made, char *err, size_t errlen);

/* Run the sweep. progress (may be NULL) gets items finished and the total, whoever finished
 * them. Returns 0 when every item of the shard is in the catalog, else -1 with a message. */
int sweep_run(const struct sweep_options *o, void (*progress)(unsigned done, unsigned total),
              struct sweep_summary *out, char *err, size_t errlen);

#endif
