/* tui_worker — the thread that steps the session, so that the screen keeps answering keys
 * while an epoch computes (an epoch of the default scenario takes seconds).
 *
 * Ownership keeps the locking small: the worker alone touches the session from
 * tui_worker_start to tui_worker_stop, and the mutex guards only the requests (step, run,
 * pause, stop, record, branch, changes; tui_worker_ask.c) and the mailbox of finished epochs,
 * events and outcomes. The progress fraction and the abandon flag are atomics because the
 * progress callback runs mid-epoch, where taking the lock would buy nothing. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "corun/catalog.h"
#include "corun/util.h"
#include "tui_worker_state.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int on_progress(void *ctx, double done)
{
    struct tui_worker *w = ctx;
    atomic_store(&w->progress_milli, (unsigned)(done * 1000));
    return atomic_load(&w->abandon) ? 1 : 0;
}

/* With mu held: whether an epoch should start now, else how long to wait (< 0: until woken). */
static bool should_step(struct tui_worker *w, double *wait_s)
{
    *wait_s = -1;
    if (w->queued > 0)
        return true;
    if (!w->running)
        return false;
    if (w->epochs_done >= w->run_until) {
        w->running = false;
        return false;
    }
    double due = w->last_start + w->interval_s;
    double t = now_s();
    if (t >= due)
        return true;
    *wait_s = due - t;
    return false;
}

static void wait_for(struct tui_worker *w, double seconds)
{
    if (seconds < 0) {
        pthread_cond_wait(&w->wake, &w->mu);
        return;
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double at = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 + seconds;
    ts.tv_sec = (time_t)at;
    ts.tv_nsec = (long)((at - (double)ts.tv_sec) * 1e9);
    int rc = pthread_cond_timedwait(&w->wake, &w->mu, &ts);
    (void)rc; /* ETIMEDOUT and a wake-up both mean: look again */
}

/* With mu held: the session's new events into the mailbox. The session is only read here
 * by the worker itself, between its own calls. */
static void forward_events(struct tui_worker *w)
{
    unsigned n = session_event_count(w->session);
    for (; w->events_seen < n; w->events_seen++) {
        if (w->nevents == w->events_cap) {
            w->events_cap = w->events_cap ? 2 * w->events_cap : 8;
            w->events = xrealloc(w->events, w->events_cap * sizeof(*w->events));
        }
        w->events[w->nevents++] = *session_event_at(w->session, w->events_seen);
    }
}

/* The session's parameters into out[TUI_MAX_PARAMS], copied: the session's strings are only
 * read on the thread that calls it. Returns the count kept. */
static size_t copy_params(const struct session *s, struct tui_param *out)
{
    struct session_param p[TUI_MAX_PARAMS];
    size_t n = session_params(s, p, TUI_MAX_PARAMS);
    n = n < TUI_MAX_PARAMS ? n : TUI_MAX_PARAMS;
    for (size_t i = 0; i < n; i++) {
        snprintf(out[i].key, sizeof out[i].key, "%.*s", (int)sizeof p[i].key - 1, p[i].key);
        snprintf(out[i].value, sizeof out[i].value, "%s", p[i].value);
        snprintf(out[i].range, sizeof out[i].range, "%s", p[i].range);
        out[i].help = p[i].help;
    }
    return n;
}

void tui_mix_copy(const struct session *s, struct tui_mix *out)
{
    const struct scenario *sc = session_scenario(s);
    memset(out, 0, sizeof *out);
    out->n = sc->nkernels < GPU_MAX_KERNELS ? sc->nkernels : GPU_MAX_KERNELS;
    for (unsigned k = 0; k < out->n; k++) {
        snprintf(out->name[k], sizeof out->name[k], "%s", sc->kernels[k].name);
        out->in_mix[k] = session_kernel_in_mix(s, k);
        out->qos_target[k] = session_qos_target(s, k);
    }
    snprintf(out->pending, sizeof out->pending, "%s", session_pending_mix(s));
}

static void publish(struct tui_worker *w, double wall_s)
{
    /* Copy outside the lock: the session is the worker's alone. */
    unsigned i = session_epochs_done(w->session) - 1;
    struct tui_result r = {.e = *session_epoch_at(w->session, i), .wall_s = wall_s};
    r.owner = xmalloc(w->sms * sizeof(*r.owner));
    session_partition(w->session, r.owner);
    r.explain = tui_explain_copy(w->session, &r.e);

    /* A mix change at the boundary added a kernel's parameters or took a removed one's. */
    struct tui_param params[TUI_MAX_PARAMS];
    size_t nparams = copy_params(w->session, params);
    struct tui_mix mix;
    tui_mix_copy(w->session, &mix);

    pthread_mutex_lock(&w->mu);
    memcpy(w->params, params, sizeof params);
    w->nparams = nparams;
    w->mix = mix;
    forward_events(w);
    if (w->nresults == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 8;
        w->results = xrealloc(w->results, w->cap * sizeof(*w->results));
    }
    w->results[w->nresults++] = r;
    w->epochs_done = i + 1;
    w->busy = false;
    pthread_mutex_unlock(&w->mu);
}

void tui_worker_post(struct tui_worker *w, enum tui_outcome_kind kind, bool ok, const char *msg)
{
    if (w->noutcomes == MAX_OUTCOMES)
        return;
    struct tui_outcome *o = &w->outcomes[w->noutcomes++];
    o->kind = kind;
    o->ok = ok;
    snprintf(o->msg, sizeof o->msg, "%s", msg);
}

/* With mu held, released meanwhile: start recording (between epochs, so at a boundary). */
static void do_record(struct tui_worker *w)
{
    char *path = w->record_path, err[512] = "";
    w->record_path = NULL;
    pthread_mutex_unlock(&w->mu);
    bool ok = session_record(w->session, path, err, sizeof err) == 0;
    if (ok) {
        char note[256];
        snprintf(note, sizeof note, "recording to %s", path);
        if (session_note(w->session, "note", note) != 0) {
            ok = false;
            snprintf(err, sizeof err, "%s", session_error(w->session));
        }
    }
    pthread_mutex_lock(&w->mu);
    forward_events(w);
    tui_worker_post(w, TUI_O_RECORD, ok, ok ? path : err);
    free(path);
}

/* A mix change asked of s: 0 with what the boundary will do in msg, or -1 with the session's
 * reason. */
static int change_mix(struct session *s, const struct change *c, char *msg, size_t len)
{
    if (c->name) {
        int k = session_add_kernel(s, c->name, msg, len);
        if (k < 0)
            return -1;
        snprintf(msg, len, "%s joins as kernel %c at the next epoch boundary", c->name,
                 tui_kernel_letter((unsigned)k));
        return 0;
    }
    if (c->kernel == CHANGE_UNDO_MIX) {
        char was[160]; /* what is withdrawn, as the header showed it */
        snprintf(was, sizeof was, "%s", session_pending_mix(s));
        unsigned n = session_undo_mix(s);
        if (n == 0) {
            snprintf(msg, len, "no mix change is pending: nothing to undo");
            return -1;
        }
        snprintf(msg, len, "%u pending mix change%s withdrawn (%s): the mix stays as it is", n,
                 n == 1 ? "" : "s", was);
        return 0;
    }
    const struct scenario *sc = session_scenario(s);
    unsigned k = c->kernel;
    char name[32] = "";
    if (k < sc->nkernels)
        snprintf(name, sizeof name, "%s", sc->kernels[k].name);
    if (session_remove_kernel(s, k, msg, len) != 0)
        return -1;
    if (name[0])
        snprintf(msg, len, "kernel %c (%s) leaves at the next epoch boundary", tui_kernel_letter(k),
                 name);
    else
        snprintf(msg, len, "the addition of kernel %c is withdrawn", tui_kernel_letter(k));
    return 0;
}

/* With mu held, released meanwhile: apply the oldest change (between epochs, so at a
 * boundary). */
static void do_change(struct tui_worker *w)
{
    struct change c = w->changes[0];
    memmove(w->changes, w->changes + 1, --w->nchanges * sizeof(*w->changes));
    pthread_mutex_unlock(&w->mu);
    char err[512] = "";
    struct session *s = w->session;
    int rc;
    if (c.kind == TUI_O_PREDICTOR)
        rc = session_set_predictor(s, c.name, err, sizeof err);
    else if (c.kind == TUI_O_ALLOCATOR)
        rc = session_set_allocator(s, c.name, err, sizeof err);
    else if (c.kind == TUI_O_PARAM)
        rc = session_set_param(s, c.name, c.value, err, sizeof err);
    else if (c.kind == TUI_O_NOTE && (rc = session_note(s, c.name, c.value)) != 0)
        snprintf(err, sizeof err, "%s", session_error(s));
    else if (c.kind == TUI_O_NOTE)
        rc = 0;
    else
        rc = change_mix(s, &c, err, sizeof err);
    struct tui_param params[TUI_MAX_PARAMS];
    size_t nparams = copy_params(s, params);
    struct tui_mix mix;
    tui_mix_copy(s, &mix);
    if (rc == 0 && c.kind != TUI_O_MIX && c.kind != TUI_O_NOTE)
        snprintf(err, sizeof err, "%s",
                 c.kind == TUI_O_PREDICTOR   ? session_predictor_name(s)
                 : c.kind == TUI_O_ALLOCATOR ? session_allocator_name(s)
                                             : c.name);
    pthread_mutex_lock(&w->mu);
    memcpy(w->params, params, sizeof params);
    w->nparams = nparams;
    w->mix = mix;
    forward_events(w);
    tui_worker_post(w, c.kind, rc == 0, err);
    free(c.name);
    free(c.value);
}

/* With mu held, released meanwhile: the branch re-simulates, so it shows progress. */
static void do_branch(struct tui_worker *w)
{
    unsigned epochs = w->branch_epochs;
    w->branch = false;
    w->busy = true;
    atomic_store(&w->progress_milli, 0);
    pthread_mutex_unlock(&w->mu);
    char err[512] = "";
    /* A replay's references may be in the trace cache (the run that recorded it stored
     * them); a live run's are in memory. */
    struct catalog *cat = catalog_open(w->catalog, err, sizeof err);
    err[0] = '\0';
    struct session *b =
        session_branch_cached(w->session, epochs, cat, on_progress, w, err, sizeof err);
    catalog_close(cat);
    pthread_mutex_lock(&w->mu);
    w->busy = false;
    if (b) {
        session_delete(w->branched);
        w->branched = b;
    }
    tui_worker_post(w, TUI_O_BRANCH, b != NULL, err);
}

static void *worker_main(void *arg)
{
    struct tui_worker *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        double wait_s;
        while (!w->quit && !w->record_path && !w->branch && !w->nchanges &&
               !should_step(w, &wait_s))
            wait_for(w, wait_s);
        if (w->quit)
            break;
        if (w->nchanges) {
            do_change(w);
            continue;
        }
        if (w->record_path) {
            do_record(w);
            continue;
        }
        if (w->branch) {
            do_branch(w);
            continue;
        }
        if (w->queued > 0)
            w->queued--;
        w->busy = true;
        w->last_start = now_s();
        atomic_store(&w->progress_milli, 0);
        pthread_mutex_unlock(&w->mu);

        double t0 = now_s();
        int rc = session_step_epoch(w->session, on_progress, w);
        if (rc == 1) {
            pthread_mutex_lock(&w->mu);
            w->busy = false;
            break;
        }
        publish(w, now_s() - t0);
        pthread_mutex_lock(&w->mu);
        /* The epoch is in the session but not in the run file, which keeps what it had. */
        if (rc != 0)
            tui_worker_post(w, TUI_O_STEP_ERROR, false, session_error(w->session));
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

struct tui_worker *tui_worker_start(struct session *s, const char *catalog)
{
    struct tui_worker *w = xcalloc(1, sizeof(*w));
    w->session = s;
    w->catalog = catalog;
    w->sms = session_scenario(s)->gpu.sms;
    w->epochs_done = session_epochs_done(s);
    /* The thread does not exist yet: the session is still this one's to read. */
    w->events_seen = session_event_count(s);
    w->nparams = copy_params(s, w->params);
    tui_mix_copy(s, &w->mix);
    atomic_init(&w->progress_milli, 0);
    atomic_init(&w->abandon, false);
    pthread_mutex_init(&w->mu, NULL);
    /* Timed waits on the monotonic clock, so that setting the date does not stall a run. */
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w->wake, &ca);
    pthread_condattr_destroy(&ca);
    /* Terminal signals (resize, interrupt) must reach the input thread, where they end the
     * wait in getch(); the worker inherits a mask that blocks them. */
    sigset_t async, old;
    sigemptyset(&async);
    static const int blocked[] = {SIGWINCH, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGCONT};
    for (size_t i = 0; i < sizeof blocked / sizeof blocked[0]; i++)
        sigaddset(&async, blocked[i]);
    pthread_sigmask(SIG_BLOCK, &async, &old);
    int rc = pthread_create(&w->thread, NULL, worker_main, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        /* Like an allocation failure: nothing useful can be done without a thread. */
        errno = rc;
        abort();
    }
    return w;
}

void tui_worker_stop(struct tui_worker *w)
{
    if (!w)
        return;
    atomic_store(&w->abandon, true);
    pthread_mutex_lock(&w->mu);
    w->quit = true;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    for (size_t i = 0; i < w->nresults; i++) {
        free(w->results[i].owner);
        free(w->results[i].explain);
    }
    free(w->results);
    free(w->record_path);
    for (unsigned i = 0; i < w->nchanges; i++) {
        free(w->changes[i].name);
        free(w->changes[i].value);
    }
    free(w->events);
    session_delete(w->branched);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->mu);
    free(w);
}
