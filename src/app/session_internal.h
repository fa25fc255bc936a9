/* session_internal — the session's state, shared by session.c (simulating) and
 * session_record.c (recording, replay, branching). Nothing outside src/app includes it. */
#ifndef CORUN_SESSION_INTERNAL_H
#define CORUN_SESSION_INTERNAL_H

#include <stdbool.h>

#include "corun/alloc.h"
#include "corun/runfile.h"
#include "corun/session.h"
#include "corun/solo.h"
#include "corun/split_gov.h"

#define SESSION_MAX_PREDICTORS 8 /* registered predictors, for model_warned */

struct session {
    const struct scenario *sc; /* &owned_sc when the session loaded it itself */
    struct scenario owned_sc;
    bool owns_sc;
    /* A live session's scenario as it began (parameter and mix changes alter owned_sc), from
     * which a rewind re-simulates; has_start is false for a replay. */
    struct scenario start_sc;
    bool has_start;
    struct gpu *gpu; /* NULL for a replay */
    struct solo_cache *solo;
    struct solo_trace *ref[GPU_MAX_KERNELS]; /* private-mode reference of each kernel */
    double ipc_isolated[GPU_MAX_KERNELS];    /* its IPC alone over the planned run; 0: not yet */
    uint64_t insts_at_start[GPU_MAX_KERNELS];
    struct session_epoch *epochs;
    unsigned nepochs, cap;
    /* Beside epochs[i]: each kernel's explanation by the predictor of the epoch (lines joined
     * by '\n'), heap strings or NULL; a replay's come from the run file. */
    char *(*explain)[GPU_MAX_KERNELS];
    struct session_event *events;
    unsigned nevents, events_cap;
    struct runfile *rec;              /* recording to this run file, or NULL */
    char *rec_path;                   /* the run file recorded to or replayed from */
    char error[512];                  /* the last failure, for session_error */
    const struct predictor_ops *pred; /* the active predictor, or NULL */
    void *pred_state;
    const struct allocator_ops *alloc; /* the active allocator (NULL only in a replay) */
    void *alloc_state;
    struct alloc_params alloc_params;       /* from the scenario, refreshed on parameter changes */
    char last_decision[ALLOC_REASON_MAX];   /* the allocator's last reason, changed or not */
    char alloc_idle_note[ALLOC_REASON_MAX]; /* why the allocator can do nothing, as last logged */
    bool replaying;             /* re-applying recorded switches in a branch: log nothing new */
    unsigned nkernels_start;    /* the scenario's kernels as loaded: the mix a run file records */
    bool gone[GPU_MAX_KERNELS]; /* removed from the mix (the index stays) */
    bool pending_remove[GPU_MAX_KERNELS]; /* to remove at the next epoch boundary */
    char pending_add[GPU_MAX_KERNELS][SESSION_KERNEL_NAME_MAX]; /* to add then, in order */
    unsigned npending_add;
    char pending_text[128];    /* session_pending_mix */
    unsigned rec_kernels;      /* kernels the run file being recorded holds */
    unsigned rec_epochs;       /* epochs the run file recorded to holds (s->epochs' first) */
    bool rec_failed;           /* recording to rec_path stopped on a failed write */
    char replay_allocator[32]; /* a replay: the allocator of its last allocator event */
    /* A replay: its file's header as recorded, which its catalog row keeps (runs add): the
     * scenario's path (NULL when it came from no file), when and by which corun it was made. */
    char *rec_scenario_path, *rec_created, *rec_version;
    /* The last training-range warning logged per registered predictor, so each is logged once
     * (another one when the configuration changes). */
    char model_warned[SESSION_MAX_PREDICTORS][256];
    unsigned threads;        /* threads for the private-mode references (session_set_threads) */
    unsigned planned_epochs; /* the run's planned length (session_plan_epochs; 0: the scenario's) */
    struct split_gov split_gov; /* one thread or a split block for the shared run (run_chunk) */
    unsigned progress_slices;   /* the shared run's progress steps (0: SESSION_PROGRESS_SLICES) */
    /* The last interval of the last epoch (from its last interval decision to its end), which
     * an interval allocator sees at the epoch boundary rather than the whole epoch. */
    struct gpu_kernel_counters tail[GPU_MAX_KERNELS];
    bool have_tail;
};

/* Progress is reported in this many steps of the shared run and of each reference. */
#define SESSION_PROGRESS_SLICES 20

/* Extends the references of the kernels slot[0..n) to the instructions each reached, on up to
 * s->threads threads; progress sees [0.5, 1). Returns nonzero when progress abandoned it. */
int session_extend_references(struct session *s, const unsigned *slot, unsigned n,
                              session_progress_fn progress, void *ctx);

/* With more than one thread: starts extending the references of kernels slot[0..n) ahead,
 * on s->threads - 1 threads, while the caller runs the epoch's shared run; NULL when there is
 * nothing to do. session_refs_ahead_stop stops the threads (at their next step) and frees it,
 * session_refs_ahead_wait lets them finish first (for tests); both take NULL. */
struct session_ahead;
struct session_ahead *session_refs_ahead(struct session *s, const unsigned *slot, unsigned n);
void session_refs_ahead_stop(struct session_ahead *a);
void session_refs_ahead_wait(struct session_ahead *a);

/* A fresh epoch record at the end of s->epochs (not yet counted in nepochs). */
struct session_epoch *session_new_epoch(struct session *s);
/* Append e to the run file being recorded, if any: 0, or -1 with s->error set (recording
 * stops; the file keeps every epoch before). */
int session_record_epoch(struct session *s, const struct session_epoch *e);
/* Fill e's predictions (np_pred, are, pred_class, predictor) from the active predictor, or
 * mark them missing; e's counters and true NP are already in. */
void session_predict_epoch(struct session *s, struct session_epoch *e);
/* Drop the active predictor (no event). */
void session_drop_predictor(struct session *s);
/* A replay's allocator name from its events (session_alloc.c). */
void session_replay_allocator(struct session *s);
/* session_qos_target for scenario sc under the allocator so named. */
double session_qos_target_in(const struct scenario *sc, const char *allocator, unsigned k);
/* Refresh s->alloc_params from the scenario. */
void session_alloc_params(struct session *s);
/* Drop the active allocator (no event). */
void session_drop_allocator(struct session *s);
/* Ask the allocator at a decision point (session_alloc.c); 0, or -1 with s->error. */
int session_allocate(struct session *s, const struct gpu_kernel_counters *interval,
                     const struct session_epoch *last);
/* Counters since the snapshot prev (updated to now), for interval decisions. */
void session_interval_counters(struct session *s, struct gpu_kernel_counters *prev,
                               struct gpu_kernel_counters *out);
/* Apply "KEY=VALUE" to the session's scenario if it is a parameter a run may change and the
 * value is valid (session_param.c); 0, or -1 with a message in err and nothing changed. */
int session_apply_set(struct session *s, const char *assignment, char *err, size_t errlen);
/* The kernels in the mix (not gone), in index order: slot[i] is the i-th; returns how many.
 * Predictors and allocators see this compact list: their kernel i is kernel slot[i]. */
unsigned session_live(const struct session *s, unsigned *slot);
/* Apply the pending mix changes at the epoch boundary (session_mix.c): 1 when the mix
 * changed, 0 when nothing was pending, -1 with s->error. */
int session_apply_mix(struct session *s);
/* Replace the active predictor's state by a fresh one for the current mix (no event but a
 * training-range warning not logged before). */
int session_restart_predictor(struct session *s);
/* Likewise for the allocator. */
int session_restart_allocator(struct session *s);
/* A new, zeroed entry at the end of the event log (session_record.c). */
struct session_event *session_new_event(struct session *s);
/* A replayed epoch from its run-file record (session_replay.c). */
void session_from_runfile_epoch(const struct runfile_epoch *re, struct session_epoch *e);
/* 0 when name is a predictor (or none, or empty: none) / an allocator (or empty: static), else
 * -1 with "unknown ..." and the known names in err. */
int session_predictor_known(const char *name, char *err, size_t errlen);
int session_allocator_known(const char *name, char *err, size_t errlen);
/* Close the run file being recorded, if any; a failure is left in s->error. */
int session_stop_recording(struct session *s);

#endif
