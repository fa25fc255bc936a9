/* reproduce_internal — what reproduce_run.c (a mix, a part) and reproduce_fork.c (workers)
 * share. Nothing outside src/app includes it. */
#ifndef CORUN_REPRODUCE_INTERNAL_H
#define CORUN_REPRODUCE_INTERNAL_H

#include <stddef.h>

#include "corun/catalog.h"
#include "corun/reproduce.h"

/* What every mix of a part shares. */
struct repro_job {
    const struct repro_options *o;
    const struct suite *s;
    const struct repro_part_result *res; /* predictors, epochs, mixes' identities */
    struct catalog *cat;                 /* the trace cache, or NULL */
};

/* Seconds on a monotonic clock. */
double repro_wall_seconds(void);
/* Load suite file `file` of DATADIR/scenarios/suites into s. Returns 0, or -1 with the first
 * message in err (s is then released). */
int repro_load_suite(const char *datadir, const char *file, struct suite *s, char *err,
                     size_t errlen);
/* Simulate suite mix mi once and evaluate every predictor in j->res on each epoch into out
 * (whose identity is filled already); report (may be NULL) gets the fraction done. A failure
 * is left in out->failed and out->error. */
void repro_run_mix(const struct repro_job *j, size_t mi, struct repro_mix_result *out,
                   void (*report)(void *ctx, double done), void *ctx);
/* Run res->mixes (suite mixes chosen[0..res->nmixes)) in j->o->jobs forked workers, each with
 * its own catalog connection; results land in res->mixes by position. */
void repro_run_forked(struct repro_job *j, const size_t *chosen, struct repro_part_result *res,
                      repro_progress_fn progress, void *ctx);

#endif
