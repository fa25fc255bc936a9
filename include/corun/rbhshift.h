/* rbhshift — HSM Fig. 4 (Insight #5): does a memory-bound application keep its DRAM row-buffer
 * hit rate (RBH) when it shares the GPU?
 *
 * Each memory-bound HSM application (a profile with paper "hsm" and target class "memory") runs
 * alone on all SMs of the preset (private RBH) and beside each of the other HSM applications on
 * an even split of the SMs (its shared RBH in that pair). The shift is |RBH_shared −
 * RBH_private|; the paper's claim holds for an application when its largest shift over all its
 * co-runners is at most RBHSHIFT_TOLERANCE. Every run is cycles / 10 of warm-up and then a
 * measured window of `cycles` (as solo_characterize); a pair is simulated once and read for
 * both of its applications. */
#ifndef CORUN_RBHSHIFT_H
#define CORUN_RBHSHIFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "corun/diag.h"
#include "corun/gpu_sets.h"

/* The default window of 1 M cycles (after 100 K of warm-up) outlasts the start-up transient:
 * srad's private RBH is 0.495 over the 100 K cycles after 10 K, then 0.53-0.55 over each 100 K
 * up to 1.1 M. SMQoS (§5.1) also runs at least 1 M cycles for accuracy. */
#define RBHSHIFT_TOLERANCE      0.1
#define RBHSHIFT_DEFAULT_CYCLES 1000000
#define RBHSHIFT_QUICK_CYCLES   20000

struct rbhshift_options {
    const char *gpu;         /* preset name */
    uint64_t cycles;         /* measured window per run */
    uint64_t seed;           /* of every run */
    unsigned jobs;           /* forked worker processes; 1: none */
    const char *const *only; /* measure only these memory-bound applications (n_only > 0) */
    size_t n_only;
    const char *const *with; /* pair them only with these co-runners (n_with > 0) */
    size_t n_with;
    struct gpu_sets sets; /* --set: GPU settings changed for every run */
};

/* One co-run of the application. */
struct rbhshift_pair {
    char *corunner;
    double rbh_shared;
};

struct rbhshift_row {
    char *kernel;
    double rbh_private;
    struct rbhshift_pair *pairs; /* in the order of the co-runners' names */
    size_t npairs;
    double rbh_min, rbh_mean, rbh_max; /* over the pairs (Fig. 4's bars) */
    double max_shift;                  /* max |rbh_shared - rbh_private| */
    size_t worst;                      /* the pair it comes from */
    bool ok;                           /* max_shift <= RBHSHIFT_TOLERANCE */
};

struct rbhshift_report {
    char *gpu;
    unsigned sms;        /* all SMs */
    unsigned sms_first;  /* the share of a pair's first application by name */
    unsigned sms_second; /* the other's: one fewer when sms is odd */
    uint64_t cycles, warmup_cycles;
    struct rbhshift_row *rows;
    size_t count;
    size_t failures;    /* rows with ok false */
    size_t failed_runs; /* runs that failed (named in diags), of runs */
    size_t runs;
};

/* Called with the runs done so far (fractions included) out of total. */
typedef void (*rbhshift_progress_fn)(void *user, double done, size_t total);

/* Measure as above. Unknown names, a name that is not a memory-bound HSM application (only)
 * or not an HSM application (with) or a bad preset go to diags and return -1. A failed
 * simulation (a worker killed, say) goes to diags too, and the report is made of the rest:
 * the pair is left out of its rows, an application whose run alone failed has no row, and
 * report->failed_runs counts them. A shift above the tolerance is not an error (see
 * report->failures). Release with rbhshift_report_done. */
int rbhshift_run(const char *datadir, const struct rbhshift_options *o,
                 rbhshift_progress_fn progress, void *user, struct rbhshift_report *report,
                 struct diag *diags);
void rbhshift_report_done(struct rbhshift_report *r);

#endif
