/* reproduce_alloc_internal — what reproduce_alloc_run.c (a mix, an experiment) and
 * reproduce_offline.c (Offline's static runs) share. Nothing outside src/app includes it. */
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
    struct catalog *cat;       /* the trace cache and finished runs, or NULL */
    char key_head[128];        /* what a finished run's key starts with; "": none kept */
};

/* Simulate sc for its epochs into run (sums over the epochs) on `threads` threads (0: 1; the
 * results do not depend on it); cat (may be NULL) shares the private-mode references; report
 * (may be NULL) gets the fraction of the run done. Returns 0, or -1 with a message in err
 * (run->failed is then set). */
int ralloc_run_scenario(const struct scenario *sc, unsigned threads, struct catalog *cat,
                        void (*report)(void *ctx, double done), void *ctx, struct ralloc_run *run,
                        char *err, size_t errlen);

#endif
