/* tui_worker — the thread that steps the session, so that the screen keeps answering keys
 * while an epoch computes (an epoch of the default scenario takes seconds).
 *
 * Ownership keeps the locking small: the worker alone touches the session from
 * tui_worker_start to tui_worker_stop, and the mutex guards only the requests (step, run,
 * pause, stop, record, branch, predictor) and the mailbox of finished epochs and outcomes. The
 * progress fraction and the abandon flag are atomics because the progress callback runs mid-epoch,
 * where taking the lock would buy nothing. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "corun/util.h"
#include "tui_internal.h"

struct tui_worker {
    pthread_t thread;
    struct session *session;
    unsigned sms;

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
    char *predictor; /* switch to it at the next epoch boundary, or NULL */
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

    atomic_uint progress_milli;
    atomic_bool abandon;
};

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

static void publish(struct tui_worker *w, double wall_s)
{
    /* Copy outside the lock: the session is the worker's alone. */
    unsigned i = session_epochs_done(w->session) - 1;
    struct tui_result r = {.e = *session_epoch_at(w->session, i), .wall_s = wall_s};
    r.owner = xmalloc(w->sms * sizeof(*r.owner));
    session_partition(w->session, r.owner);
    /* The predictor's explanation is of its last prediction: this epoch's. */
    if (r.e.predictor[0]) {
        r.explain = xcalloc(r.e.nkernels ? r.e.nkernels : 1, sizeof(*r.explain));
        for (unsigned k = 0; k < r.e.nkernels; k++)
            session_predictor_explain(w->session, k, &r.explain[k]);
    }

    pthread_mutex_lock(&w->mu);
    if (w->nresults == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 8;
        w->results = xrealloc(w->results, w->cap * sizeof(*w->results));
    }
    w->results[w->nresults++] = r;
    w->epochs_done = i + 1;
    w->busy = false;
    pthread_mutex_unlock(&w->mu);
}

/* With mu held. Outcomes beyond the mailbox's room are dropped: the UI takes them every frame. */
static void post(struct tui_worker *w, enum tui_outcome_kind kind, bool ok, const char *msg)
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
    post(w, TUI_O_RECORD, ok, ok ? path : err);
    free(path);
}

/* With mu held, released meanwhile: switch the predictor (between epochs, so at a boundary). */
static void do_predictor(struct tui_worker *w)
{
    char *name = w->predictor, err[512] = "";
    w->predictor = NULL;
    pthread_mutex_unlock(&w->mu);
    bool ok = session_set_predictor(w->session, name, err, sizeof err) == 0;
    if (ok) {
        /* The session logged the switch: hand its text over for the workbench's log. */
        unsigned n = session_event_count(w->session);
        const struct session_event *ev = n ? session_event_at(w->session, n - 1) : NULL;
        snprintf(err, sizeof err, "%s\t%s", session_predictor_name(w->session), ev ? ev->text : "");
    }
    pthread_mutex_lock(&w->mu);
    post(w, TUI_O_PREDICTOR, ok, err);
    free(name);
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
    struct session *b = session_branch(w->session, epochs, on_progress, w, err, sizeof err);
    pthread_mutex_lock(&w->mu);
    w->busy = false;
    if (b) {
        session_delete(w->branched);
        w->branched = b;
    }
    post(w, TUI_O_BRANCH, b != NULL, err);
}

static void *worker_main(void *arg)
{
    struct tui_worker *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        double wait_s;
        while (!w->quit && !w->record_path && !w->branch && !w->predictor &&
               !should_step(w, &wait_s))
            wait_for(w, wait_s);
        if (w->quit)
            break;
        if (w->predictor) {
            do_predictor(w);
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
            post(w, TUI_O_STEP_ERROR, false, session_error(w->session));
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

struct tui_worker *tui_worker_start(struct session *s)
{
    struct tui_worker *w = xcalloc(1, sizeof(*w));
    w->session = s;
    w->sms = session_scenario(s)->gpu.sms;
    w->epochs_done = session_epochs_done(s);
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
    free(w->predictor);
    session_delete(w->branched);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->mu);
    free(w);
}

void tui_worker_step(struct tui_worker *w)
{
    pthread_mutex_lock(&w->mu);
    w->queued++;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->mu);
}

void tui_worker_run(struct tui_worker *w, unsigned until_epochs, double interval_s)
{
    pthread_mutex_lock(&w->mu);
    w->running = true;
    w->run_until = until_epochs;
    w->interval_s = interval_s;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->mu);
}

void tui_worker_pause(struct tui_worker *w)
{
    pthread_mutex_lock(&w->mu);
    w->running = false;
    w->queued = 0;
    pthread_mutex_unlock(&w->mu);
}

void tui_worker_set_interval(struct tui_worker *w, double interval_s)
{
    pthread_mutex_lock(&w->mu);
    w->interval_s = interval_s;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->mu);
}

size_t tui_worker_take(struct tui_worker *w, struct tui_result **out, struct tui_worker_status *st)
{
    pthread_mutex_lock(&w->mu);
    size_t n = w->nresults;
    *out = w->results;
    w->results = NULL;
    w->nresults = w->cap = 0;
    /* A run that reached its limit while idle is over now, not at the next request. */
    if (w->running && !w->busy && w->queued == 0 && w->epochs_done >= w->run_until)
        w->running = false;
    st->running = w->running;
    st->busy = w->busy;
    st->queued = w->queued;
    st->epochs_done = w->epochs_done;
    pthread_mutex_unlock(&w->mu);
    return n;
}

double tui_worker_progress(struct tui_worker *w)
{
    return atomic_load(&w->progress_milli) / 1000.0;
}

void tui_worker_record(struct tui_worker *w, const char *path)
{
    pthread_mutex_lock(&w->mu);
    free(w->record_path);
    w->record_path = xstrdup(path);
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->mu);
}

void tui_worker_set_predictor(struct tui_worker *w, const char *name)
{
    pthread_mutex_lock(&w->mu);
    free(w->predictor);
    w->predictor = xstrdup(name);
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->mu);
}

void tui_worker_branch(struct tui_worker *w, unsigned epochs)
{
    pthread_mutex_lock(&w->mu);
    w->branch = true;
    w->branch_epochs = epochs;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->mu);
}

int tui_worker_take_outcome(struct tui_worker *w, struct tui_outcome *out)
{
    pthread_mutex_lock(&w->mu);
    int n = w->noutcomes > 0;
    if (n) {
        *out = w->outcomes[0];
        memmove(w->outcomes, w->outcomes + 1, --w->noutcomes * sizeof(*w->outcomes));
    }
    pthread_mutex_unlock(&w->mu);
    return n;
}

struct session *tui_worker_take_branch(struct tui_worker *w)
{
    pthread_mutex_lock(&w->mu);
    struct session *b = w->branched;
    w->branched = NULL;
    pthread_mutex_unlock(&w->mu);
    return b;
}
