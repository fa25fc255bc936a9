/* tui_worker_state — the worker's state, shared by tui_worker.c (the thread) and
 * tui_worker_ask.c (the requests and the mailbox, called from the input thread). Nothing else
 * includes it. Layer: tui. */
#ifndef CORUN_TUI_WORKER_STATE_H
#define CORUN_TUI_WORKER_STATE_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>

#include "tui_internal.h"

/* A change asked for: applied at the next epoch boundary, in the order asked. */
struct change {
    enum tui_outcome_kind kind; /* TUI_O_PREDICTOR, TUI_O_ALLOCATOR, TUI_O_PARAM or TUI_O_MIX */
    char *name;      /* the predictor, the allocator, the parameter's key or the kernel to add;
                      * NULL: remove kernel (TUI_O_MIX) */
    char *value;     /* the parameter's value, else NULL */
    unsigned kernel; /* the kernel to remove; CHANGE_UNDO_MIX: withdraw every pending change */
};

#define CHANGE_UNDO_MIX UINT_MAX
#define MAX_CHANGES     8

struct tui_worker {
    pthread_t thread;
    struct session *session;
    unsigned sms;
    const char *catalog; /* the trace cache a branch looks in; NULL: the default catalog */

    pthread_mutex_t mu;
    pthread_cond_t wake; /* requests changed */
    /* Requests, under mu. */
    bool quit;
    bool running;
    unsigned run_until; /* epochs */
    double interval_s;
    unsigned queued;
    char *record_path; /* record from the next epoch boundary, or NULL */
    unsigned branch_epochs;
    bool branch;
    struct change changes[MAX_CHANGES];
    unsigned nchanges;
    /* State and mailbox, under mu. */
    bool busy;
    unsigned epochs_done;
    double last_start; /* monotonic seconds, for the pace of a run */
    struct tui_result *results;
    size_t nresults, cap;
#define MAX_OUTCOMES 8
    struct tui_outcome outcomes[MAX_OUTCOMES];
    unsigned noutcomes;
    struct session *branched;
    struct session_event *events; /* noted since the UI last took them */
    size_t nevents, events_cap;
    unsigned events_seen; /* session events handed over so far */
    struct tui_param params[TUI_MAX_PARAMS];
    size_t nparams;
    struct tui_mix mix;

    atomic_uint progress_milli;
    atomic_bool abandon;
};

/* With mu held: an outcome into the mailbox (dropped beyond its room: the UI takes them every
 * frame). */
void tui_worker_post(struct tui_worker *w, enum tui_outcome_kind kind, bool ok, const char *msg);

#endif
