/* accel_record — an accelerator run's result as its run file records it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/accel_predict.h"
#include "corun/accel_run.h"
#include "corun/catalog.h"
#include "corun/datadir.h"
#include "corun/util.h"

const char *accel_ms_text(char *buf, size_t n, double ms)
{
    int decimals = 3;
    double mag = fabs(ms);
    if (isfinite(ms) && mag > 0 && mag < 0.01) {
        decimals = 2 - (int)floor(log10(mag));
        decimals = decimals < 7 ? decimals : 7;
    }
    snprintf(buf, n, "%.*f", decimals, ms);
    return buf;
}

static double or_nan(bool has, double v)
{
    return has ? v : NAN;
}

void accel_result_to_record(const struct accel_scenario *sc, const struct accel_result *r,
                            bool complete, struct accel_record *out)
{
    memset(out, 0, sizeof(*out));
    out->scenario_text = xstrdup(sc->text ? sc->text : "");
    out->scenario_path = sc->path ? datadir_absolute_file(sc->path) : xstrdup("");
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

int accel_record_catalog(const struct accel_record *rec, const char *run_path,
                         const char *catalog_path, int64_t *id, char *err, size_t errlen)
{
    struct catalog *cat = catalog_open(catalog_path, err, errlen);
    int rc = cat ? accel_record_catalog_into(rec, run_path, cat, id, err, errlen) : -1;
    catalog_close(cat);
    return rc;
}

int accel_record_catalog_into(const struct accel_record *rec, const char *run_path,
                              struct catalog *cat, int64_t *id, char *err, size_t errlen)
{
    struct catalog_accel_app apps[ACCEL_MAX_APPS];
    for (unsigned i = 0; i < rec->napps; i++) {
        const struct accel_app_rec *a = &rec->app[i];
        apps[i] = (struct catalog_accel_app){
            .name = a->name,
            .ls = a->role == ACCEL_LS,
            .instances = a->instances,
            .qos_target = a->qos_target,
            .p99_ms = a->p99_ms,
            .solo_p99_ms = a->solo_p99_ms,
            .qos_met = a->qos_met,
            .pred_p99_ms = a->pred_p99_ms,
            .passes = a->passes,
        };
    }
    /* Absolute, so that the row means the same file from any directory. */
    char *abs = run_path ? util_absolute_path(run_path) : NULL;
    struct catalog_accel_run run = {
        .run_path = abs,
        .scenario_name = rec->scenario_name,
        .scenario_path = rec->scenario_path && *rec->scenario_path ? rec->scenario_path : NULL,
        .gpu = rec->gpu_preset,
        .predictor = rec->predictor,
        .seed = rec->seed,
        .complete = rec->complete != 0,
        .sim_ms = rec->sim_ms,
        .gpu_util = rec->gpu_util,
        .tasks_done = rec->tasks_done,
        .napps = rec->napps,
        .apps = apps,
        /* A record read from its file (runs add) keeps the file's; a new one: now, this build. */
        .created_utc = rec->created,
        .corun_version = rec->corun_version,
    };
    int rc = catalog_add_accel_run(cat, &run, id, err, errlen);
    free(abs);
    return rc;
}
