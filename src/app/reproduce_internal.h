/* reproduce_internal — what reproduce_run.c (a mix, a part), reproduce_alloc_run.c (an
 * allocation experiment) and reproduce_fork.c (workers) share. Nothing outside src/app includes
 * it. */
#ifndef CORUN_REPRODUCE_INTERNAL_H
#define CORUN_REPRODUCE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "corun/catalog.h"
#include "corun/reproduce.h"
#include "corun/reproduce_journal.h"

/* What every mix of a part shares. */
struct repro_job {
    const struct repro_options *o;
    const struct suite *s;
    const struct repro_part_result *res; /* predictors, epochs, mixes' identities */
    struct catalog *cat;                 /* the trace cache and finished measurements, or NULL */
    char key_head[128];                  /* repro_reuse_head's; "": nothing kept */
};

/* What the key of a result kept in the catalog for reuse (catalog_get_result) starts with:
 * this build's and datadir's ids and the result's size, so a key never matches a result that
 * another build, other data or another layout would give. "" when the build cannot be told
 * apart from others (its executable cannot be read): then nothing is kept. */
void repro_reuse_head(const char *datadir, size_t result_size, char *out, size_t len);

/* Seconds on a monotonic clock. */
double repro_wall_seconds(void);
/* Load suite file `file` of DATADIR/scenarios/suites into s, moved to preset gpu when gpu is
 * not NULL (suite_retarget). Returns 0, or -1 with the first message in err (s is then
 * released). */
int repro_load_suite(const char *datadir, const char *file, const char *gpu, struct suite *s,
                     char *err, size_t errlen);
/* The suite's tags that some mix chosen[0..n) of s carries, in the suite's order, into groups;
 * returns their count. */
unsigned repro_list_groups(const struct suite *s, const size_t *chosen, size_t n,
                           char groups[REPRO_MAX_GROUPS][32]);

/* One kind of experiment's mix result, for repro_run_mixes. */
struct repro_mix_ops {
    size_t result_size;
    /* Simulate suite mix mi into result (whose identity is filled); report (may be NULL) gets
     * the fraction done. A failure is left in the result. */
    void (*run)(const void *job, size_t mi, void *result, void (*report)(void *ctx, double done),
                void *ctx);
    /* Where a result keeps its failure: an int, nonzero when it failed, and the message
     * (error_size bytes), set by the driver when the mix's worker died. */
    size_t failed_at, error_at, error_size;
};

/* An experiment's mixes: results[i] (ops->result_size bytes, identity filled) is suite mix
 * chosen[i]. */
struct repro_mixes {
    const struct repro_mix_ops *ops;
    const void *job;      /* handed to ops->run */
    struct catalog **cat; /* where job keeps its trace-cache connection */
    const char *catalog;  /* the cache's catalog; NULL: the default */
    unsigned jobs;        /* worker processes; <= 1: here, in order */
    const size_t *chosen; /* [n] */
    void *results;        /* [n] */
    size_t n;
    /* --resume: the journal's path (NULL: none). The mixes it holds under (part, suite index)
     * are read from it, and each mix that finishes without failing is put in it. Its identity
     * is `what` (the run and every option that changes results) with the build's and
     * datadir's ids. */
    const char *resume, *datadir, *what;
    unsigned part;
    struct repro_resume *resumed; /* out: what the journal did */
};

/* Run m's mixes on m->jobs forked workers (here, in order, when it is <= 1), each process with
 * its own connection to the trace cache in *m->cat; results land in m->results by position, so
 * they do not depend on m->jobs. Mixes m->resume's journal holds are not run. progress (may be
 * NULL) hears of the mixes done (those read from the journal included), last n of n. Returns
 * how many mixes failed, or -1 with a message in err when the journal cannot be opened. */
long repro_run_mixes(const struct repro_mixes *m, repro_progress_fn progress, void *ctx, char *err,
                     size_t errlen);

#endif
