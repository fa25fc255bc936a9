/* session — one experiment: the scenario, the simulated GPU, the private-mode references and
 * the per-epoch results. Front ends (CLI, TUI) talk only to the session, so a headless run and
 * a workbench run of the same scenario and seed are the same computation.
 *
 * This first version steps epochs on a fixed partition (the scenario's even split) and measures
 * each kernel's true normalized progress; predictors, allocators and recording plug in here. */
#ifndef CORUN_SESSION_H
#define CORUN_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "corun/catalog.h"
#include "corun/gpu.h"
#include "corun/metrics.h"
#include "corun/predict.h"
#include "corun/scenario.h"

/* One kernel over one epoch. */
struct session_kernel_epoch {
    struct gpu_kernel_counters c; /* what the GPU counted */
    double np_true;               /* private cycles for the epoch's instructions / epoch cycles */
    double np_pred;               /* the active predictor's NP̂; NaN without one */
    double are;                   /* |np_pred - np_true| / np_true; NaN when either is missing */
    int pred_class;               /* the predictor's enum kernel_class (NONE: it has none) */
    bool in_mix;       /* in the mix during the epoch (false: not added yet, or removed) */
    double qos_target; /* the NP it was to keep during the epoch (session_qos_target then; 0:
                        * none); a replay's from the recorded scenario and its changes */
};

#define SESSION_MAX_CHANNELS 256
#define SESSION_MAX_SMS      1024
/* A kernel added to the mix: its name in bytes, with the NUL (the scenario's and a run file's
 * limit). */
#define SESSION_KERNEL_NAME_MAX SCENARIO_KERNEL_NAME_MAX

struct session_epoch {
    unsigned index; /* 0-based */
    uint64_t start_cycle, cycles;
    unsigned nkernels; /* kernels the run has had so far: k[i].in_mix says which ran */
    struct session_kernel_epoch k[GPU_MAX_KERNELS];
    struct gpu_system_counters sys;
    struct metrics m;   /* over np_true */
    char predictor[16]; /* the predictor that made np_pred ("" none; a replay: named by the log's
                           switches, else "recorded") */
    unsigned nchannels; /* 0 in a replay: run files do not keep per-channel figures */
    float channel_util[SESSION_MAX_CHANNELS]; /* DRAM data-bus busy fraction per channel */
    unsigned nsms;
    int8_t owner[SESSION_MAX_SMS]; /* partition during the epoch: kernel, GPU_SM_IDLE/GATED */
};

/* An entry of the event log: a switch, a parameter change, a decision and its reason. */
struct session_event {
    unsigned epoch; /* epochs completed when it happened */
    uint64_t cycle;
    /* "parameter", "predictor", "allocator", "repartition", "mix", "note", "warning" (a
     * model used outside its training configuration), "lesson" (a lesson's step opened),
     * "score" (the guesses' score at a reveal) */
    char kind[16];
    char text[256];
};

struct session;

/* A session on sc (which must outlive it): builds the GPU with an even partition. Returns
 * NULL with a message in err when the GPU or a kernel cannot be simulated. */
struct session *session_new(const struct scenario *sc, char *err, size_t errlen);
/* The scenario's predictor and allocator names, both checked before a session is made (which
 * stops at the first): a message for each unknown one, placed as FILE:LINE: or --set:. 0 when
 * both are known. */
int session_check_choices(const struct scenario *sc, struct diag *d);
void session_delete(struct session *s);

/* Called during an epoch with the fraction done, for progress bars (the shared run is [0, 0.5],
 * the private-mode references that measure true NP [0.5, 1]); returning nonzero abandons the
 * epoch (the user quit while it computed). */
typedef int (*session_progress_fn)(void *ctx, double done);

/* Simulates one epoch, measures it and records it when recording; progress may be NULL.
 * Returns 0; 1 when progress abandoned it (the session then holds a partial epoch and is fit
 * only for session_delete); -1 when the epoch was simulated but could not be recorded, or s
 * is a replay (session_error says why; recording stops, the run file keeps what it had). */
int session_step_epoch(struct session *s, session_progress_fn progress, void *ctx);

/* Threads for the kernels' private-mode references (each a simulation of its own, so they are
 * extended side by side; results do not depend on the count). 1 by default; 0 means 1. */
void session_set_threads(struct session *s, unsigned threads);
/* The threads session_set_threads gave s (1 when never given), for a session opened in its
 * place to use as many. */
unsigned session_threads(const struct session *s);
/* How many epochs the run is meant to have in all (0, the default: the scenario's). It only
 * guides how much work on the references is done ahead (session_refs.c); results do not
 * depend on it. */
void session_plan_epochs(struct session *s, unsigned epochs);

/* Epochs completed so far. */
unsigned session_epochs_done(const struct session *s);
/* The result of epoch i (< session_epochs_done). */
const struct session_epoch *session_epoch_at(const struct session *s, unsigned i);
const struct scenario *session_scenario(const struct session *s);
/* The GPU's current partition: owner of each SM (gpu_sms entries); in a replay, the last
 * epoch's. */
void session_partition(const struct session *s, int *owner_out);
/* The last failure's message. */
const char *session_error(const struct session *s);

/* ---- predictors ---- */

/* Make the registered predictor `name` (NULL or "none": no predictor) predict from the next
 * epoch on, loading its model file for the scenario's GPU preset from the data directory, and
 * log a "predictor" event. Returns 0, or -1 with a message in err (an unknown name with a
 * did-you-mean; a missing or bad model file with the command that regenerates it); the
 * active predictor is then unchanged. */
int session_set_predictor(struct session *s, const char *name, char *err, size_t errlen);
/* The active predictor's name, or "none". */
const char *session_predictor_name(const struct session *s);
/* The active predictor's explanation of kernel k's last prediction; 0, or -1 when there is no
 * predictor (out is then empty). */
int session_predictor_explain(const struct session *s, unsigned k, struct predict_text *out);
/* The explanation the predictor of epoch i gave of kernel k's NP (lines separated by '\n';
 * for a replay, as the run file keeps it), or NULL (no predictor, an older run file). */
const char *session_epoch_explain(const struct session *s, unsigned i, unsigned k);
/* A fresh state of predictor ops for s's GPU preset, its model file loaded as
 * session_set_predictor loads it; *model_path (when model_path is not NULL) gets the file's
 * path or NULL, to free. NULL with a message in err (a missing model names the command that
 * makes it). Free with ops->destroy. The session does not change. */
void *session_predictor_new(const struct session *s, const struct predictor_ops *ops,
                            char **model_path, char *err, size_t errlen);
/* What ops (with state from session_predictor_new) predicts from epoch `epoch`'s counters, as if
 * it had been active: the session's own predictor and results do not change. Under a static
 * partition a predictor without priority epochs does not change the simulation, so one run
 * serves all such predictors; call it for epochs in order, as a stateful predictor expects.
 * Returns 0, or -1 when epoch is not done yet. */
int session_predict_with(const struct session *s, const struct predictor_ops *ops, void *state,
                         unsigned epoch, struct predict_output *out);

/* ---- allocators, parameters and the mix ---- */

/* Make the registered allocator `name` ("static": keep the partition) decide from the next
 * epoch boundary on, and log an "allocator" event. Returns 0, or -1 with a message in err (an
 * unknown name with a did-you-mean); the active allocator is then unchanged. */
int session_set_allocator(struct session *s, const char *name, char *err, size_t errlen);
/* The active allocator's name ("static" when none was chosen). */
const char *session_allocator_name(const struct session *s);
/* The NP kernel k is to keep: its qos_target when it has high priority (smqos_policy under
 * smqos and static-smqos, whose target is that share of its isolated IPC, which NP measures);
 * 0 when it has none (low priority, or no such kernel). */
double session_qos_target(const struct session *s, unsigned k);
/* The active allocator's last decision with its reason, whether or not it changed the
 * partition (only changes are logged as events); "" before the first. */
const char *session_last_decision(const struct session *s);

/* A parameter the workbench can edit: a top-level scenario setting or, for "kernels[K].X",
 * kernel K's priority, qos_target or weight. */
struct session_param {
    char key[40];     /* "fairness_threshold", "epoch_cycles", "kernels[1].qos_target", ... */
    char value[64];   /* the current value, as a scenario file would write it */
    char range[96];   /* the valid values, for the editor ("0.01 to 1") */
    const char *help; /* one line */
};
/* The editable parameters of s: fills out[0..min(n, count)); returns the count. */
size_t session_params(const struct session *s, struct session_param *out, size_t n);
/* Set parameter key to value (written as in a scenario file), validated as the scenario
 * loader does; takes effect at the next epoch boundary and is logged as a "parameter" event.
 * Returns 0, or -1 with the message (naming the valid range) in err; nothing changes then. */
int session_set_param(struct session *s, const char *key, const char *value, char *err,
                      size_t errlen);

/* The mix can change at an epoch boundary: kernels join and leave. Indices are stable for the
 * whole run: a removed kernel keeps its index (the scenario's kernels[] and every epoch's k[]
 * still hold it, with in_mix false), an added one takes the next index. A run has at most
 * GPU_MAX_KERNELS kernels over its life. At the boundary the SMs are split evenly over the
 * new mix (moving few SMs, with the core's adaptive drain / context switch), weights go back
 * to equal shares, and the active predictor and allocator start afresh for the new mix; the
 * allocator decides from the next boundary on. Each change is logged as a "mix" event and
 * re-applied by a branch. */

/* Kernel k is in the mix: live, at the end of the last epoch (pending changes not counted);
 * in a replay, in its last epoch. */
bool session_kernel_in_mix(const struct session *s, unsigned k);
/* Add the library kernel `name` (built in or data/kernels/NAME.cfg) at the next epoch
 * boundary. Returns the index it will have, or -1 with a message in err (unknown kernel with
 * the known names; GPU_MAX_KERNELS kernels over the run already; a name of
 * SESSION_KERNEL_NAME_MAX bytes or more; a replay). */
int session_add_kernel(struct session *s, const char *name, char *err, size_t errlen);
/* Remove kernel k at the next epoch boundary (an addition not applied yet is simply
 * withdrawn). Returns 0, or -1 with a message in err (no such kernel, already removed, the
 * last kernel of the mix, a replay). */
int session_remove_kernel(struct session *s, unsigned k, char *err, size_t errlen);
/* Withdraw every change waiting for the next boundary (additions and removals): the mix stays
 * as it is. Returns how many were withdrawn (0: none was pending). */
unsigned session_undo_mix(struct session *s);
/* The changes waiting for the next boundary, for the screen ("+lbm -bino"); "" when none. */
const char *session_pending_mix(const struct session *s);

/* ---- event log, recording, replay and branching ---- */

/* Add an event at the current epoch (and to the run file when recording). Returns 0, or -1
 * when recording it failed (session_error says why). */
int session_note(struct session *s, const char *kind, const char *text);
unsigned session_event_count(const struct session *s);
const struct session_event *session_event_at(const struct session *s, unsigned i);

/* Start recording to a new run file at path: the epochs and events so far are written at
 * once, later ones as they happen. Returns 0, or -1 with a message in err. */
int session_record(struct session *s, const char *path, char *err, size_t errlen);
/* The run file recorded to or replayed from, or NULL. */
const char *session_run_path(const struct session *s);
/* Finish recording (close the run file). Returns 0, or -1 with a message in err when the file
 * could not be completed; either way it keeps every epoch recorded before. */
int session_finish(struct session *s, char *err, size_t errlen);

/* The epochs the run file being (or last) recorded to holds: the first ones of the session,
 * all of them unless a write failed, which sets *failed (when failed is not NULL). */
unsigned session_epochs_recorded(const struct session *s, bool *failed);
/* The run's summary metrics (means over its epochs; ARE over every predicted kernel-epoch);
 * returns the name of the predictor that made the predictions ("none" when none did). */
const char *session_summary(const struct session *s, struct catalog_metrics *out);
/* Add s to the catalog at catalog_path (NULL: the default catalog) with its summary metrics;
 * *id gets the run's id. A replay is added as its file recorded it (its scenario's path, when
 * and by which corun it was made: `corun runs add`). Returns 0, or -1 with a message in err. */
int session_catalog(const struct session *s, const char *catalog_path, int64_t *id, char *err,
                    size_t errlen);
/* The same into the open catalog cat (inside its write transaction, when one is begun). */
int session_catalog_into(const struct session *s, struct catalog *cat, int64_t *id, char *err,
                         size_t errlen);

/* The private-mode references through the catalog's trace cache: take longer traces from cat
 * (call before stepping) and store the session's back (after), so runs of the same kernels,
 * preset and seed share them. Results do not change. session_traces_from_catalog returns how
 * many kernels' traces it took, session_traces_to_catalog 0; both -1 with a message. */
int session_traces_from_catalog(struct session *s, struct catalog *cat, char *err, size_t errlen);
int session_traces_to_catalog(const struct session *s, struct catalog *cat, char *err,
                              size_t errlen);

/* A replay of the run file at path: its epochs and events, without simulating. The recorded
 * scenario is loaded with kernels and presets from datadir. NULL with a message in err. */
struct session *session_replay(const char *path, const char *datadir, char *err, size_t errlen);
/* 1 for a replay, 0 for a live session. */
int session_is_replay(const struct session *s);
/* A live session that continues replay r after its first `epochs` epochs: r's scenario and
 * seed are simulated again for those epochs and checked against the file, so the branch
 * starts exactly where the recorded run was. NULL with a message in err when the file cannot
 * be reproduced (e.g. it was recorded by another corun version) or epochs is out of range.
 * r may also be a live session (a rewind): its scenario as it began is simulated again with
 * its switches, parameter and mix changes, and checked against its epochs in memory. Either
 * way no GPU state is kept per epoch: the simulator is deterministic, so re-simulating is
 * exact, and memory does not grow with the run. */
struct session *session_branch(const struct session *r, unsigned epochs,
                               session_progress_fn progress, void *ctx, char *err, size_t errlen);
/* session_branch, taking the private-mode references a live run does not hold in memory (a
 * replay holds none) from cat's trace cache when it has them: the results are the same, the
 * branch is quicker. */
struct session *session_branch_cached(const struct session *r, unsigned epochs, struct catalog *cat,
                                      session_progress_fn progress, void *ctx, char *err,
                                      size_t errlen);

#endif
