/* session — one experiment: the scenario, the simulated GPU, the private-mode references and
 * the per-epoch results. Front ends (CLI, TUI) talk only to the session, so a headless run and
 * a workbench run of the same scenario and seed are the same computation.
 *
 * This first version steps epochs on a fixed partition (the scenario's even split) and measures
 * each kernel's true normalized progress; predictors, allocators and recording plug in here. */
#ifndef CORUN_SESSION_H
#define CORUN_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "corun/gpu.h"
#include "corun/metrics.h"
#include "corun/scenario.h"

/* One kernel over one epoch. */
struct session_kernel_epoch {
    struct gpu_kernel_counters c; /* what the GPU counted */
    double np_true;               /* private cycles for the epoch's instructions / epoch cycles */
};

#define SESSION_MAX_CHANNELS 256

struct session_epoch {
    unsigned index; /* 0-based */
    uint64_t start_cycle, cycles;
    unsigned nkernels;
    struct session_kernel_epoch k[GPU_MAX_KERNELS];
    struct gpu_system_counters sys;
    struct metrics m; /* over np_true */
    unsigned nchannels;
    float channel_util[SESSION_MAX_CHANNELS]; /* DRAM data-bus busy fraction per channel */
};

struct session;

/* A session on sc (which must outlive it): builds the GPU with an even partition. Returns
 * NULL with a message in err when the GPU or a kernel cannot be simulated. */
struct session *session_new(const struct scenario *sc, char *err, size_t errlen);
void session_delete(struct session *s);

/* Called during an epoch with the fraction done, for progress bars (the shared run is [0, 0.5],
 * the private-mode references that measure true NP [0.5, 1]); returning nonzero abandons the
 * epoch (the user quit while it computed). */
typedef int (*session_progress_fn)(void *ctx, double done);

/* Simulates one epoch and measures it; progress may be NULL. Returns 0, or 1 when progress
 * abandoned it: the session then holds a partial epoch and is fit only for session_delete. */
int session_step_epoch(struct session *s, session_progress_fn progress, void *ctx);

/* Epochs completed so far. */
unsigned session_epochs_done(const struct session *s);
/* The result of epoch i (< session_epochs_done). */
const struct session_epoch *session_epoch_at(const struct session *s, unsigned i);
const struct scenario *session_scenario(const struct session *s);
/* The GPU's current partition: owner of each SM (gpu_sms entries). */
void session_partition(const struct session *s, int *owner_out);

#endif
