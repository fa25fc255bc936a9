/* tui_worker — the thread that steps the session while the workbench runs (tui_worker.c) and
 * what the input thread asks of it (tui_worker_ask.c): finished epochs, the session's events
 * and the outcomes of requests come back through its mailbox. Layer: tui. */
#ifndef CORUN_TUI_WORKER_H
#define CORUN_TUI_WORKER_H

#include <stdbool.h>
#include <stddef.h>

#include "corun/session.h"

/* One finished epoch as the worker publishes it: a copy, so the UI never reads the session. */
struct tui_result {
    struct session_epoch e;
    int *owner;    /* the partition after the epoch, one entry per SM; the receiver frees it */
    double wall_s; /* how long the epoch took to compute */
    /* The active predictor's explanation of each kernel's prediction ([nkernels]; the
     * receiver frees it), NULL when no predictor made one. */
    struct predict_text *explain;
};

/* The explanations s keeps for epoch e, one predict_text per kernel ([nkernels], to free), or
 * NULL when it keeps none (no predictor; a replay of an older run file). Only the thread that
 * owns s may call it. */
struct predict_text *tui_explain_copy(const struct session *s, const struct session_epoch *e);

struct tui_worker_status {
    bool running;         /* stepping by itself; cleared when the run limit is reached */
    bool busy;            /* an epoch is computing */
    unsigned queued;      /* single steps waiting */
    unsigned epochs_done; /* including those not taken yet */
};

struct tui_worker;

/* What the worker did with a request other than a step, or a failure of a step. */
enum tui_outcome_kind {
    TUI_O_RECORD,     /* tui_worker_record: ok, or the reason in msg */
    TUI_O_BRANCH,     /* tui_worker_branch: ok (tui_worker_take_branch), or the reason */
    TUI_O_STEP_ERROR, /* an epoch was simulated but not recorded: recording stopped */
    TUI_O_PREDICTOR,  /* tui_worker_set_predictor: ok (msg: the active predictor), or why */
    TUI_O_ALLOCATOR,  /* tui_worker_set_allocator: ok (msg: the active allocator), or why */
    TUI_O_PARAM,      /* tui_worker_set_param: ok (msg: the key), or why (with the range) */
    TUI_O_MIX,  /* tui_worker_add_kernel / _remove_kernel: ok (msg: what the boundary will do), or
                 * why (the session's message) */
    TUI_O_NOTE, /* tui_worker_note: ok, or why it could not be recorded */
};

struct tui_outcome {
    enum tui_outcome_kind kind;
    bool ok;
    char msg[512];
};

/* Starts the thread on s, which it owns until tui_worker_stop; a branch looks for its
 * references in catalog's trace cache (NULL: the default catalog; the string must outlive w). */
struct tui_worker *tui_worker_start(struct session *s, const char *catalog);
/* Abandons an epoch in flight at once, joins the thread and frees w; s is the caller's again
 * (fit only for session_delete when an epoch was abandoned). Results not taken are dropped. */
void tui_worker_stop(struct tui_worker *w);
/* Queues one epoch. */
void tui_worker_step(struct tui_worker *w);
/* Steps epoch after epoch until until_epochs are done, at most one every interval_s seconds. */
void tui_worker_run(struct tui_worker *w, unsigned until_epochs, double interval_s);
/* Stops stepping at the next epoch boundary: clears the run and the queued steps. Returns the
 * epoch it stops after (the one in flight, else the last done). */
unsigned tui_worker_pause(struct tui_worker *w);
/* Changes the pace of a run. */
void tui_worker_set_interval(struct tui_worker *w, double interval_s);
/* Moves the finished epochs out (*out, caller frees each owner and the array; NULL when none)
 * and returns their count; fills st. */
size_t tui_worker_take(struct tui_worker *w, struct tui_result **out, struct tui_worker_status *st);
/* Fraction of the epoch (or branch) in flight that is done, in [0, 1]. */
double tui_worker_progress(struct tui_worker *w);
/* Starts recording the session to a new run file at path at the next epoch boundary and notes
 * it in the event log; the outcome follows (TUI_O_RECORD). */
void tui_worker_record(struct tui_worker *w, const char *path);
/* Branches the session, a replay, after its first `epochs` epochs (session_branch, with
 * progress; busy meanwhile); the outcome follows (TUI_O_BRANCH). */
void tui_worker_branch(struct tui_worker *w, unsigned epochs);
/* Makes name ("none": no predictor) the session's predictor at the next epoch boundary; the
 * outcome follows (TUI_O_PREDICTOR). Changes (predictor, allocator, parameter) apply in the
 * order asked; the session's events for them arrive through tui_worker_take_events. */
void tui_worker_set_predictor(struct tui_worker *w, const char *name);
/* Makes the registered allocator name the session's at the next epoch boundary; the outcome
 * follows (TUI_O_ALLOCATOR). */
void tui_worker_set_allocator(struct tui_worker *w, const char *name);
/* Sets parameter key (a session_params key) to value at the next epoch boundary; the outcome
 * follows (TUI_O_PARAM), and tui_worker_params shows the new value once it is taken. */
void tui_worker_set_param(struct tui_worker *w, const char *key, const char *value);
/* Adds the library kernel name to the mix at the next epoch boundary (session_add_kernel); the
 * outcome follows (TUI_O_MIX), and tui_worker_mix shows it pending once it is taken. */
void tui_worker_add_kernel(struct tui_worker *w, const char *name);
/* Removes kernel k from the mix at the next epoch boundary (session_remove_kernel); the
 * outcome follows (TUI_O_MIX: a refusal such as the last kernel of the mix says why). */
void tui_worker_remove_kernel(struct tui_worker *w, unsigned k);
/* Withdraws every mix change still waiting for the next epoch boundary (session_undo_mix); the
 * outcome follows (TUI_O_MIX: refused when none is pending). */
void tui_worker_undo_mix(struct tui_worker *w);
/* Adds an event of kind with text to the session's log (and the run file when recording), in
 * order with the changes asked before it; the outcome follows (TUI_O_NOTE). */
void tui_worker_note(struct tui_worker *w, const char *kind, const char *text);

/* An editable parameter as the worker last published it: a copy of a session_param. */
struct tui_param {
    char key[48];
    char value[64];
    char range[96];
    const char *help; /* static text */
};
#define TUI_MAX_PARAMS (10 + 2 * GPU_MAX_KERNELS)

/* The session's editable parameters as of the last change: fills out[0..min(n, count)) and
 * returns the count. */
size_t tui_worker_params(struct tui_worker *w, struct tui_param *out, size_t n);
/* The session's mix as the worker last published it (at the start, after each change and
 * after each epoch): every kernel the run has had so far, by its stable index. */
struct tui_mix {
    unsigned n;                         /* kernels so far, removed ones included */
    char name[GPU_MAX_KERNELS][32];     /* kernel k's library name */
    bool in_mix[GPU_MAX_KERNELS];       /* in the mix now (pending changes not counted) */
    double qos_target[GPU_MAX_KERNELS]; /* the NP to keep (session_qos_target); 0: none */
    char pending[128]; /* the changes waiting for the boundary ("+lbm -bino"), or "" */
};

/* The mix of s into out; only on the thread that owns s (the worker's while it runs). */
void tui_mix_copy(const struct session *s, struct tui_mix *out);
/* The mix as of the last change or epoch into out. */
void tui_worker_mix(struct tui_worker *w, struct tui_mix *out);
/* Moves the session events noted since the last call (by epochs and changes) into *out (the
 * caller frees it; NULL when none) and returns their count. */
size_t tui_worker_take_events(struct tui_worker *w, struct session_event **out);
/* Moves the oldest outcome not taken into out: 1, or 0 when there is none. */
int tui_worker_take_outcome(struct tui_worker *w, struct tui_outcome *out);
/* The live session of a successful branch, now the caller's; NULL when there is none. */
struct session *tui_worker_take_branch(struct tui_worker *w);

#endif
