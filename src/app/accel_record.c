/* accel_record — an accelerator run's result as its run file records it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "corun/accel_predict.h"
#include "corun/accel_run.h"
#include "corun/util.h"

static double or_nan(bool has, double v)
{
    return has ? v : NAN;
}

void accel_result_to_record(const struct accel_scenario *sc, const struct accel_result *r,
                            bool complete, struct accel_record *out)
{
    memset(out, 0, sizeof(*out));
    out->scenario_text = xstrdup(sc->text ? sc->text : "");
    out->scenario_path = xstrdup(sc->path ? sc->path : "");
    out->scenario_name = xstrdup(sc->name ? sc->name : "");
    out->gpu_preset = xstrdup(sc->gpu_name ? sc->gpu_name : "");
    out->predictor = xstrdup(r->predictor ? accel_predictor_name(r->predictor) : "none");
    out->seed = sc->seed;
    out->sms = sc->gpu.sms;
    out->core_clock_mhz = sc->gpu.core_clock_mhz;
    out->complete = complete;
    out->cycles = r->cycles;
    out->solo_cycles = r->solo_cycles;
    out->profile_cycles = r->profile_cycles;
    out->tasks_done = r->tasks_done;
    out->sim_ms = r->sim_ms;
    out->gpu_util = r->gpu_util;
    out->h2d_busy = r->h2d_busy;
    out->d2h_busy = r->d2h_busy;
    out->napps = r->napps;
    size_t nq = 0;
    for (unsigned a = 0; a < r->napps; a++) {
        const struct accel_app_result *ar = &r->app[a];
        struct accel_app_rec *x = &out->app[a];
        bool pred = r->predictor && ar->pred_latency_ms;
        *x = (struct accel_app_rec){
            .name = xstrdup(ar->name),
            .role = (unsigned)ar->role,
            .instances = ar->instances,
            .queries = ar->queries,
            .qos_target = ar->qos_target,
            .p50_ms = ar->p50_ms,
            .p99_ms = ar->p99_ms,
            .mean_ms = ar->mean_ms,
            .solo_p50_ms = ar->solo_p50_ms,
            .solo_p99_ms = ar->solo_p99_ms,
            .solo_mean_ms = ar->solo_mean_ms,
            .qos_met = ar->qos_met,
            .passes = ar->passes,
            .pred_p50_ms = or_nan(pred, ar->pred_p50_ms),
            .pred_p99_ms = or_nan(pred, ar->pred_p99_ms),
            .pred_mean_ms = or_nan(pred, ar->pred_mean_ms),
            .pred_solo_ms = or_nan(pred, ar->pred_solo_ms),
            .pred_error = or_nan(pred, ar->pred_error),
            .pred_qos_met = pred && ar->pred_qos_met,
        };
        if (ar->role == ACCEL_LS)
            nq += sc->apps[a].queries > ar->queries ? sc->apps[a].queries : ar->queries;
    }
    out->queries = xcalloc(nq + 1, sizeof(*out->queries));
    for (unsigned a = 0; a < r->napps; a++) {
        const struct accel_app_result *ar = &r->app[a];
        if (ar->role != ACCEL_LS)
            continue;
        unsigned n = sc->apps[a].queries > ar->queries ? sc->apps[a].queries : ar->queries;
        for (unsigned q = 0; q < n; q++)
            out->queries[out->nqueries++] = (struct accel_query_rec){
                .app = a,
                .query = q,
                .latency_ms = q < ar->queries ? ar->latency_ms[q] : NAN,
                .predicted_ms = r->predictor && ar->pred_latency_ms ? ar->pred_latency_ms[q] : NAN,
            };
    }
    out->ntasks = r->ntasks;
    out->tasks = xmalloc((r->ntasks + 1) * sizeof(*out->tasks));
    if (r->ntasks)
        memcpy(out->tasks, r->tasks, r->ntasks * sizeof(*out->tasks));
}
