/* accel_sim — accelerator scenarios run to the end or stepped: the co-located run on the task
 * engine (accel_engine.c), each LS application's solo run, and the predictors beside them. */
#include "corun/accel_sim.h"

#include "accel_engine.h"
#include "corun/accel_predict.h"
#include "corun/accel_run.h"
#include "corun/gpu.h"
#include "corun/pcie.h"
#include "corun/util.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the stepped run ---- */

struct accel_sim {
    const struct accel_scenario *sc;
    struct accel_run_options o;
    struct engine main; /* every application together */
    bool solo_done;
    double solo_p50_ms[ACCEL_MAX_APPS], solo_p99_ms[ACCEL_MAX_APPS], solo_mean_ms[ACCEL_MAX_APPS];
    uint64_t solo_cycles;
    struct accel_profiles prof; /* measured on the first prediction */
    bool have_prof;
    char err[768];
    char solo_err[768]; /* the solo runs', apart: they may run on a thread of their own */
    bool solo_cancelled;
};

struct accel_sim *accel_sim_new(const struct accel_scenario *sc, const struct accel_run_options *o,
                                char *err, size_t errlen)
{
    struct accel_sim *s = xcalloc(1, sizeof(*s));
    s->sc = sc;
    if (o)
        s->o = *o;
    if (accel_engine_init(&s->main, sc, &s->o, -1, 0, s->err, sizeof s->err)) {
        snprintf(err, errlen, "%s", s->err);
        accel_sim_delete(s);
        return NULL;
    }
    return s;
}

void accel_sim_delete(struct accel_sim *s)
{
    if (!s)
        return;
    accel_engine_done(&s->main);
    if (s->have_prof)
        accel_profiles_done(&s->prof);
    free(s);
}

/* A solo run's engine reports the fraction of its queries done after each one; the caller's
 * solo_progress hears it as queries done of the application's total. */
struct solo_watch {
    const struct accel_run_options *o;
    unsigned app, total;
};

static void solo_query_done(void *ctx, double done)
{
    const struct solo_watch *w = ctx;
    w->o->solo_progress(w->o->ctx, w->app, (unsigned)lround(done * w->total), w->total);
}

/* Each LS application alone under its own arrivals (closed loop, or the same Poisson draws),
 * for its first solo_queries queries (default: all of them). Returns 0, -1 (a failure, in
 * s->solo_err) or 1 when o->stop ended them: they are then run again from the start. */
static int run_solo(struct accel_sim *s)
{
    const struct accel_scenario *sc = s->sc;
    s->solo_cycles = 0;
    for (unsigned a = 0; a < sc->napps; a++) {
        const struct accel_app *app = &sc->apps[a];
        if (app->role != ACCEL_LS)
            continue;
        unsigned sq = s->o.solo_queries ? s->o.solo_queries : app->queries;
        if (sq > app->queries)
            sq = app->queries;
        if (s->o.solo_latency_ms[a]) { /* measured before: the same run, not repeated */
            accel_latency_stats(s->o.solo_latency_ms[a], sq, &s->solo_p50_ms[a], &s->solo_p99_ms[a],
                                &s->solo_mean_ms[a]);
            continue;
        }
        struct solo_watch watch = {&s->o, a, sq};
        struct accel_run_options quiet = {
            .solo_queries = sq, .cancel = s->o.cancel, .stop = s->o.stop};
        if (s->o.solo_progress) {
            quiet.progress = solo_query_done;
            quiet.ctx = &watch;
            s->o.solo_progress(s->o.ctx, a, 0, sq);
        }
        struct engine e;
        int rc = accel_engine_init(&e, sc, &quiet, (int)a, sq, s->solo_err, sizeof s->solo_err);
        if (rc == 0) {
            accel_engine_run_until(&e, INFINITY);
            rc = e.failed || e.cancelled ? -1 : e.stopped ? 1 : 0;
            const struct proc *p = &e.proc[0];
            accel_latency_stats(p->lat_ms, p->q_done, &s->solo_p50_ms[a], &s->solo_p99_ms[a],
                                &s->solo_mean_ms[a]);
            s->solo_cycles += gpu_now(e.g);
            s->solo_cancelled = e.cancelled;
        }
        accel_engine_done(&e);
        if (rc)
            return rc;
    }
    s->solo_done = true;
    return 0;
}

static void *solo_thread(void *arg)
{
    struct accel_sim *s = arg;
    return run_solo(s) < 0 ? arg : NULL;
}

/* The solo runs, here or (threads > 1, a run to its end) on a thread beside the co-located
 * run to its end; they share nothing but the scenario, the cancel flag and the stop. Run here
 * and stopped, they leave the co-located run where it was. */
static int solo_and_main(struct accel_sim *s, double ns)
{
    struct engine *e = &s->main;
    pthread_t tid;
    bool beside = s->o.threads > 1 && isinf(ns) && pthread_create(&tid, NULL, solo_thread, s) == 0;
    int rc = beside ? 0 : run_solo(s);
    if (rc > 0)
        return 0;
    if (rc == 0)
        accel_engine_run_until(e, isinf(ns) ? INFINITY : accel_engine_now_ns(e) + ns);
    void *failed = NULL;
    if (beside)
        pthread_join(tid, &failed);
    if (s->solo_cancelled)
        e->cancelled = true;
    if (rc || failed) {
        snprintf(s->err, sizeof s->err, "%s", s->solo_err);
        return -1;
    }
    return 0;
}

int accel_sim_step(struct accel_sim *s, double ns, char *err, size_t errlen)
{
    struct engine *e = &s->main;
    bool ran_main = !s->solo_done;
    if (e->cancelled || (!s->solo_done && solo_and_main(s, ns) != 0)) {
        snprintf(err, errlen, "%s", e->cancelled ? "cancelled" : s->err);
        return -1;
    }
    if (!s->solo_done) /* stopped: the co-located run went at most as far as asked */
        return 0;
    if (!ran_main) /* (solo_and_main ran it, beside or after the solo runs) */
        accel_engine_run_until(e, isinf(ns) ? INFINITY : accel_engine_now_ns(e) + ns);
    if (e->failed || e->cancelled) {
        snprintf(err, errlen, "%s", e->cancelled ? "cancelled" : s->err);
        return -1;
    }
    return accel_engine_finished(e) ? 1 : 0;
}

bool accel_sim_solo_done(const struct accel_sim *s)
{
    return s->solo_done;
}

bool accel_sim_finished(const struct accel_sim *s)
{
    return s->solo_done && accel_engine_finished(&s->main);
}

double accel_sim_now_ns(const struct accel_sim *s)
{
    return accel_engine_now_ns(&s->main);
}

void accel_sim_result(const struct accel_sim *s, struct accel_result *r)
{
    const struct accel_scenario *sc = s->sc;
    const struct engine *e = &s->main;
    memset(r, 0, sizeof(*r));
    r->napps = sc->napps;
    for (unsigned a = 0; a < sc->napps; a++) {
        struct accel_app_result *ar = &r->app[a];
        const struct accel_app *app = &sc->apps[a];
        ar->name = app->name;
        ar->role = app->role;
        ar->instances = app->role == ACCEL_BATCH ? app->instances : 1;
        ar->qos_target = app->qos_target;
        /* Before the solo runs end, an LS application has no solo latency: none, not 0 ms
         * (a run saved then claimed a solo p99 of 0 and judged its QoS against it). */
        bool solo = s->solo_done || app->role != ACCEL_LS;
        ar->solo_p50_ms = solo ? s->solo_p50_ms[a] : NAN;
        ar->solo_p99_ms = solo ? s->solo_p99_ms[a] : NAN;
        ar->solo_mean_ms = solo ? s->solo_mean_ms[a] : NAN;
    }
    r->solo_cycles = s->solo_cycles;
    r->cycles = gpu_now(e->g);
    r->sim_ms = (double)r->cycles / e->cycles_per_ns / 1e6;
    struct gpu_system_counters sys;
    gpu_system_counters(e->g, &sys);
    double slots = (double)sc->gpu.sms * (double)sys.cycles;
    r->gpu_util = slots > 0 ? 1.0 - (double)sys.idle_sm_cycles / slots : 0;
    double end_ns = (double)r->cycles / e->cycles_per_ns;
    r->h2d_busy = end_ns > 0 ? pcie_link_busy_ns(e->link[0]) / end_ns : 0;
    r->d2h_busy = end_ns > 0 ? pcie_link_busy_ns(e->link[1]) / end_ns : 0;
    r->tasks_done = e->tasks_done;
    r->ntasks = e->nlog;
    r->tasks = xmalloc((e->nlog + 1) * sizeof(*r->tasks));
    if (e->nlog)
        memcpy(r->tasks, e->log, e->nlog * sizeof(*r->tasks));
    for (unsigned i = 0; i < e->nproc; i++) {
        const struct proc *p = &e->proc[i];
        struct accel_app_result *ar = &r->app[p->result];
        if (p->ls) {
            accel_engine_summarize(ar, p);
            if (ar->queries == 0) /* none answered (a run stopped early): no latency to judge; */
                ar->p50_ms = ar->p99_ms = ar->mean_ms = NAN; /* 0 ms read as "met" */
            ar->qos_met = ar->queries > 0 && ar->p99_ms <= ar->qos_target * ar->solo_p99_ms;
        } else {
            ar->passes += p->passes;
        }
    }
}

/* |predicted - measured| / measured of a p99: none (NaN) before a query is measured (it read
 * 0 %, a forecast right to the digit); a starved p99 (inf) is right only if both are. */
static double forecast_error(double measured, double predicted)
{
    if (isnan(measured))
        return NAN;
    if (isinf(measured) || isinf(predicted))
        return measured == predicted ? 0 : INFINITY;
    return measured > 0 ? fabs(predicted - measured) / measured : 0;
}

int accel_sim_predict(struct accel_sim *s, int predictor, struct accel_result *r, char *err,
                      size_t errlen)
{
    const struct accel_scenario *sc = s->sc;
    if (!s->have_prof) {
        if (accel_profile_for(sc, predictor, &s->prof, s->o.stop, err, errlen)) {
            accel_profiles_done(&s->prof);
            return -1;
        }
        s->have_prof = true;
    } else if (predictor == ACCEL_PREDICT_BUBBLE && !s->prof.bubble) {
        /* profiles kept from another predictor: the bubble's measurements are its own */
        s->prof.bubble = xcalloc(1, sizeof(*s->prof.bubble));
        if (accel_bubble_measure(sc, s->prof.bubble, s->o.stop, err, errlen)) {
            accel_bubble_done(s->prof.bubble);
            free(s->prof.bubble);
            s->prof.bubble = NULL;
            return -1;
        }
        s->prof.cycles += s->prof.bubble->cycles;
    }
    double *lat[ACCEL_MAX_APPS] = {0};
    for (unsigned a = 0; a < sc->napps; a++)
        if (sc->apps[a].role == ACCEL_LS)
            lat[a] = xcalloc(sc->apps[a].queries, sizeof(double));
    accel_predict(sc, &s->prof, predictor, lat);
    r->predictor = predictor;
    /* What this predictor's measurements cost: the bubble's runs count for the bubble only. */
    uint64_t bubble_cycles = s->prof.bubble ? s->prof.bubble->cycles : 0;
    r->profile_cycles =
        s->prof.cycles - bubble_cycles + (predictor == ACCEL_PREDICT_BUBBLE ? bubble_cycles : 0);
    for (unsigned a = 0; a < sc->napps; a++) {
        struct accel_app_result *ar = &r->app[a];
        if (!lat[a])
            continue;
        unsigned n = sc->apps[a].queries;
        free(ar->pred_latency_ms);
        ar->pred_latency_ms = lat[a];
        accel_latency_stats(lat[a], n, &ar->pred_p50_ms, &ar->pred_p99_ms, &ar->pred_mean_ms);
        ar->pred_solo_ms = accel_predict_alone_p99(sc, &s->prof, predictor, a);
        ar->pred_qos_met = ar->pred_p99_ms <= ar->qos_target * ar->pred_solo_ms;
        ar->pred_error = forecast_error(ar->p99_ms, ar->pred_p99_ms);
    }
    return 0;
}

bool accel_sim_has_ls(const struct accel_sim *s)
{
    return s->main.ls_procs > 0;
}
