/* tui_accel_worker — the thread that steps an accelerator run for the workbench and publishes
 * the run so far, as a run file would hold it, after every step and every change of
 * predictor. The input thread never touches the run. Layer: tui. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/accel_predict.h"
#include "corun/util.h"
#include "tui_accel.h"

struct tui_accel_worker {
    pthread_t thread;
    const struct accel_scenario *sc;
    struct accel_sim *sim;
    double step_ns;
    atomic_bool cancel;

    pthread_mutex_t mu;
    pthread_cond_t wake;
    /* Requests and state, under mu. */
    bool quit;
    struct tui_accel_status st;
    int predictor_asked; /* -1: no change asked */
    struct accel_record pending;
    bool have_pending;
};

/* The run so far with the predictor's forecast, as a record. Worker thread only. */
static void snapshot(struct tui_accel_worker *w, int predictor, bool finished,
                     struct accel_record *out, char *err, size_t errlen)
{
    struct accel_result r;
    accel_sim_result(w->sim, &r);
    if (predictor != ACCEL_PREDICT_NONE && accel_sim_has_ls(w->sim) &&
        accel_sim_predict(w->sim, predictor, &r, err, errlen) != 0)
        r.predictor = ACCEL_PREDICT_NONE;
    accel_result_to_record(w->sc, &r, finished, out);
    accel_result_done(&r);
}

/* With mu held: rec becomes the snapshot to take. */
static void publish(struct tui_accel_worker *w, struct accel_record *rec)
{
    if (w->have_pending)
        accel_record_done(&w->pending);
    w->pending = *rec;
    w->have_pending = true;
}

static void *worker_main(void *arg)
{
    struct tui_accel_worker *w = arg;
    pthread_mutex_lock(&w->mu);
    while (!w->quit) {
        bool stepping = !w->st.finished && !w->st.error[0] && (w->st.queued || w->st.running);
        if (w->predictor_asked < 0 && !stepping) {
            pthread_cond_wait(&w->wake, &w->mu);
            continue;
        }
        int predictor = w->predictor_asked >= 0 ? w->predictor_asked : w->st.predictor;
        if (w->predictor_asked >= 0)
            w->st.notice[0] = '\0';
        w->predictor_asked = -1;
        w->st.predictor = predictor;
        if (stepping && w->st.queued)
            w->st.queued--;
        w->st.busy = true;
        w->st.stepping = stepping;
        pthread_mutex_unlock(&w->mu);

        char err[512] = "";
        int rc = stepping ? accel_sim_step(w->sim, w->step_ns, err, sizeof err) : 0;
        bool finished = accel_sim_finished(w->sim);
        struct accel_record rec;
        char perr[256] = "";
        if (rc >= 0)
            snapshot(w, predictor, finished, &rec, perr, sizeof perr);

        pthread_mutex_lock(&w->mu);
        w->st.busy = w->st.stepping = false;
        if (rc < 0) {
            snprintf(w->st.error, sizeof w->st.error, "%s", err);
            w->st.running = false;
            continue;
        }
        if (perr[0]) { /* the run goes on, without a forecast */
            snprintf(w->st.notice, sizeof w->st.notice, "no %s forecast: %s",
                     accel_predictor_name(predictor), perr);
            w->st.predictor = ACCEL_PREDICT_NONE;
        }
        w->st.steps += stepping;
        w->st.finished = finished;
        if (finished) {
            w->st.running = false;
            w->st.queued = 0;
        }
        publish(w, &rec);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* The solo runs' progress, from inside the first step (the worker thread): the status line
 * says which application is being measured alone and how far it is. */
static void solo_progress(void *ctx, unsigned app, unsigned done, unsigned total)
{
    struct tui_accel_worker *w = ctx;
    pthread_mutex_lock(&w->mu);
    w->st.solo_app = app;
    w->st.solo_done = done;
    w->st.solo_total = total;
    pthread_mutex_unlock(&w->mu);
}

struct tui_accel_worker *tui_accel_worker_start(const struct accel_scenario *sc, double step_ns,
                                                int predictor, char *err, size_t errlen)
{
    struct tui_accel_worker *w = xcalloc(1, sizeof(*w));
    w->sc = sc;
    w->step_ns = step_ns;
    atomic_init(&w->cancel, false);
    struct accel_run_options o = {
        .record_tasks = true, .cancel = &w->cancel, .solo_progress = solo_progress, .ctx = w};
    w->sim = accel_sim_new(sc, &o, err, errlen);
    if (!w->sim) {
        free(w);
        return NULL;
    }
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->wake, NULL);
    w->st.predictor = ACCEL_PREDICT_NONE;
    w->predictor_asked = predictor; /* the first snapshot, at once */
    pthread_create(&w->thread, NULL, worker_main, w);
    return w;
}

void tui_accel_worker_stop(struct tui_accel_worker *w)
{
    if (!w)
        return;
    atomic_store(&w->cancel, true);
    pthread_mutex_lock(&w->mu);
    w->quit = true;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    if (w->have_pending)
        accel_record_done(&w->pending);
    accel_sim_delete(w->sim);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->mu);
    free(w);
}

void tui_accel_worker_step(struct tui_accel_worker *w)
{
    pthread_mutex_lock(&w->mu);
    if (!w->st.finished)
        w->st.queued++;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->mu);
}

void tui_accel_worker_run(struct tui_accel_worker *w, bool on)
{
    pthread_mutex_lock(&w->mu);
    w->st.running = on && !w->st.finished;
    if (!on)
        w->st.queued = 0;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->mu);
}

void tui_accel_worker_set_predictor(struct tui_accel_worker *w, int predictor)
{
    pthread_mutex_lock(&w->mu);
    w->predictor_asked = predictor;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->mu);
}

bool tui_accel_worker_take(struct tui_accel_worker *w, struct accel_record *rec,
                           struct tui_accel_status *st)
{
    pthread_mutex_lock(&w->mu);
    bool got = w->have_pending;
    if (got) {
        accel_record_done(rec);
        *rec = w->pending;
        w->have_pending = false;
    }
    *st = w->st;
    w->st.notice[0] = '\0'; /* said once: the status line's later notes (a save) replace it */
    if (w->predictor_asked >= 0)
        st->predictor = w->predictor_asked; /* the header shows the one asked at once */
    pthread_mutex_unlock(&w->mu);
    return got;
}
