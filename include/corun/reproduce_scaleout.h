/* reproduce_scaleout — Prophet's scale-out study (ASPLOS'17 §7.4) on a modelled cluster: each
 * GPU serves one LS application under a diurnal load and may take up to 15 instances of one
 * batch application beside it (16 processes, what MPS serves). Each *decider* (no
 * co-location; prophet, the sequential model or the PCIe bubble predicting the most instances
 * that keep the QoS target; or all 15) picks every GPU's instances for every time slot of the
 * day, and the truth for what it picked comes from the core: the LS application beside k
 * instances at that load, run with the task engine. A configuration (LS application, batch
 * application, k, load) is one simulation however many GPUs and slots share it, so each is
 * run once (a cell holds its results) and looked up. Layer: app. */
#ifndef CORUN_REPRODUCE_SCALEOUT_H
#define CORUN_REPRODUCE_SCALEOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct repro_journal;

#define SO_MAX_INSTANCES 15 /* batch instances beside one LS process */
#define SO_MAX_LEVELS    13 /* load levels: slots / 2 + 1 */
#define SO_GPU_PROCS     16 /* batch instances a batch-only GPU runs */

enum so_decider { SO_NONE, SO_PROPHET, SO_SEQUENTIAL, SO_BUBBLE, SO_FULL, SO_DECIDERS };
const char *so_decider_name(int d);

struct so_params {
    const char *const *ls;
    size_t nls;
    const char *const *batch;
    size_t nbatch;
    unsigned gpus;       /* the cluster: gpus / nls GPUs per LS application */
    unsigned batch_pool; /* batch instances the cluster must run */
    unsigned slots;      /* time slots of the day (even, at most 2 (SO_MAX_LEVELS - 1)) */
    double trough, peak; /* LS load: query rate over the rate it serves alone */
    double target;       /* QoS: p99 <= target x its p99 alone under the same arrivals */
    unsigned queries;    /* per configuration */
    /* A journal (reproduce_journal.h) of finished cells, keyed by their index in so_result's
     * cells (NULL: none): cells it holds are read, not simulated, and each cell simulated is
     * put in it as a struct so_cell_record. */
    struct repro_journal *journal;
    /* A journal of the LS applications' curves alone at each load, keyed by ls * levels +
     * level, each so_curve_record_size(queries) bytes (NULL: none): a curve it holds is read,
     * not measured again, and each curve measured is put in it, so a stopped run picks up
     * without measuring its curves anew. */
    struct repro_journal *curves;
    /* Simulate only shard `shard` of `shards` (1-based; shards 0: all of them; so_in_shard),
     * as one task of a job split over machines does: the others are only read when the
     * journal holds them, and the summary waits for a run that has every cell (the shards'
     * journals merged). */
    unsigned shard, shards;
    /* Worker processes for the cells (<= 1: here, one after another). The tables do not
     * depend on it; the cycle count does, a little: each worker measures again what the
     * cells it takes share (an LS application's rate and its curve alone at a load). */
    unsigned jobs;
};

/* The bytes of a curve as the curves journal keeps it, for runs of `queries` queries. */
size_t so_curve_record_size(unsigned queries);

/* The full form (Prophet's 700 GPUs, 7 LS and 11 batch applications, 11 000 instances) or the
 * quick one (4 GPUs, 2 LS and 2 batch applications). */
void so_params_default(bool quick, struct so_params *p);

/* The LS load in time slot `slot` (0 .. slots - 1): the trough at slot 0, the peak at slots /
 * 2, a cosine between. Slots s and slots - s have the same load: level min(s, slots - s). */
double so_load(const struct so_params *p, unsigned slot);
unsigned so_level(const struct so_params *p, unsigned slot);

/* Whether cell `cell` (its index in so_result's cells) is in p's shard. The cells are taken
 * in the order LS application, load, batch application and cut into p->shards runs of
 * consecutive cells, so a shard's cells share few (LS application, load) pairs and it
 * measures few of the curves they need (every N-th cell would need one per cell). */
bool so_in_shard(const struct so_params *p, size_t cell);

/* One LS application beside one batch application at one load level. */
struct so_cell {
    int k[SO_DECIDERS];                    /* the instances each decider co-locates */
    bool simulated[SO_MAX_INSTANCES + 1];  /* the configurations run on the core */
    double p99_x[SO_MAX_INSTANCES + 1];    /* their p99 / p99 alone under the same arrivals */
    double gpu_util[SO_MAX_INSTANCES + 1]; /* their share of SM time busy */
};

/* A cell as a journal keeps it: with the configurations it ran and their core cycles (the
 * cell's own; the measurements cells share are counted only where they are made). */
struct so_cell_record {
    struct so_cell cell;
    unsigned simulations;
    uint64_t cycles;
};

/* What a decider did over the cluster and the day. */
struct so_summary {
    double gpus_mean;      /* GPUs used: the LS ones and batch-only ones for the rest */
    unsigned gpus_peak;    /* the most in any slot */
    double placed_mean;    /* batch instances on LS GPUs, per slot */
    double slot_share;     /* k / 15 over LS GPU-slots (Prophet §7.3's utilization) */
    double sm_busy;        /* measured SM busy share over LS GPU-slots */
    unsigned colocations;  /* LS GPU-slots with k > 0 */
    unsigned violations;   /* of those, p99 above the target */
    unsigned violations10; /* above 1.1 x the target */
};

/* cells[(ls * nbatch + batch) * levels + level]: GPU g serves LS application g / (gpus /
 * nls) beside batch application g % nbatch. Fills sum[SO_DECIDERS]. */
void so_summarize(const struct so_params *p, const struct so_cell *cells,
                  struct so_summary sum[SO_DECIDERS]);

typedef void (*so_progress_fn)(void *ctx, double done);

struct so_result {
    unsigned levels;
    double load[SO_MAX_LEVELS];
    struct so_cell *cells; /* nls x nbatch x levels, heap */
    bool *present;         /* [cell]: read from the journal or simulated (a shard lacks some) */
    struct so_summary sum[SO_DECIDERS];
    unsigned simulations;    /* configurations run on the core (journaled cells' included) */
    uint64_t cycles;         /* core cycles, profiles and bubbles included */
    size_t resumed;          /* cells read from the journal */
    size_t curves_resumed;   /* curves read from the curves journal */
    size_t simulated_cells;  /* cells simulated in this run */
    size_t missing;          /* cells outside the shard and not in the journal: no summary */
    size_t failed;           /* cells not simulated: theirs or their LS curve's run failed */
    char *failures;          /* "WHAT: WHY\n" for each failed curve and cell, heap (or NULL) */
    char journal_error[256]; /* why a finished cell could not be journaled ("" when none) */
    char curves_error[256];  /* why a measured curve could not be journaled ("" when none) */
};

/* The bubble's measurements for a cell of LS application 0 beside batch application b, heap:
 * the LS application's curve and latencies alone at the cell's load (ls_part's application 0)
 * and batch b's pressure (batch_part's application 1 + b, measured with every batch
 * application once). Release with accel_bubble_done and free. */
struct accel_bubble;
struct accel_bubble *so_bubble_for(const struct accel_bubble *ls_part,
                                   const struct accel_bubble *batch_part, size_t b,
                                   unsigned queries);

/* Runs the study. Returns 0, or -1 with a message; when curves or cells failed (r->failures
 * names each), the cells that finished are in r as well and r->failed counts the rest. Release
 * r with so_result_done. */
int so_run(const char *datadir, const struct so_params *p, struct so_result *r,
           so_progress_fn progress, void *ctx, char *err, size_t errlen);
void so_result_done(struct so_result *r);

#endif
