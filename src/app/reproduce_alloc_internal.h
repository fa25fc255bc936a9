/* reproduce_alloc_internal — what reproduce_alloc_run.c (a mix, an experiment),
 * reproduce_alloc_fork.c (workers) and reproduce_offline.c (Offline's static runs) share.
 * Nothing outside src/app includes it. */
#ifndef CORUN_REPRODUCE_ALLOC_INTERNAL_H
#define CORUN_REPRODUCE_ALLOC_INTERNAL_H

#include <stddef.h>

#include "corun/catalog.h"
#include "corun/reproduce_alloc.h"

/* What every mix of an experiment shares. */
struct ralloc_job {
    const struct ralloc_options *o;
    const struct ralloc_experiment *x;
    const struct suite *s;
    struct ralloc_result *res; /* epochs; the mixes' identities */
    struct catalog *cat;       /* the trace cache, or NULL */
};

/* Simulate sc for its epochs into run (sums over the epochs); cat (may be NULL) shares the
 * private-mode references; report (may be NULL) gets the fraction of the run done. Returns 0,
 * or -1 with a message in err (run->failed is then set). */
int ralloc_run_scenario(const struct scenario *sc, struct catalog *cat,
                        void (*report)(void *ctx, double done), void *ctx, struct ralloc_run *run,
                        char *err, size_t errlen);
/* Run every policy of suite mix mi into out (whose identity is filled); report (may be NULL)
 * gets the fraction of the mix done. A failure is left in out->failed and out->error. */
void ralloc_run_mix(const struct ralloc_job *j, size_t mi, struct ralloc_mix_result *out,
                    void (*report)(void *ctx, double done), void *ctx);
/* Run j->res->mixes (suite mixes chosen[0..nmixes)) inline when j->o->jobs is 1, else in that
 * many forked workers, each with its own catalog connection; results land by position. */
void ralloc_run_forked(struct ralloc_job *j, const size_t *chosen, repro_progress_fn progress,
                       void *ctx);

#endif
