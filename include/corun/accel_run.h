/* accel_run — the task engine of accelerator scenarios: runs every application's trace of
 * tasks (host-to-device copy, kernel, device-to-host copy, FIFO within an application) over
 * the simulation core in shared-dispatch mode (gpu_new_shared: kernels of concurrent tasks
 * take free SMs first come, first served) and over the host link (pcie.h, one link per
 * direction), and measures what the latency-sensitive applications see.
 *
 * Each LS application is one process issuing its queries (closed loop: the next when the last
 * completes; Poisson: arrivals drawn at rate_qps from the scenario's seed, queued FIFO behind
 * the query in service); each batch instance is one process looping its trace. The run ends
 * when every LS application has completed its queries (a scenario without one: when every
 * batch instance has completed one pass). Time on the link is in nanoseconds, on the core in
 * cycles of the preset's core clock; a kernel's completion is seen at the end of the core's
 * block (a few cycles), which is when the application's next task starts. Layer: app. */
#ifndef CORUN_ACCEL_RUN_H
#define CORUN_ACCEL_RUN_H

#include "corun/accel_runfile.h"
#include "corun/accel_scenario.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Called now and then with the fraction of the run done (LS queries completed). */
typedef void (*accel_progress_fn)(void *ctx, double done);

struct accel_run_options {
    unsigned solo_queries; /* queries of each LS application's solo run (0: all its queries;
                              at most those) */
    /* When set for LS application a: the latencies of its solo run, measured before under
     * the same arrivals (solo_queries of them), so that run is not simulated again. */
    const double *solo_latency_ms[ACCEL_MAX_APPS];
    int predictor;     /* enum accel_predictor: predict the LS latencies too (0: none) */
    bool record_tasks; /* keep the task table (accel_result's tasks) */
    /* When set and true, a step of accel_sim stops at the next turn of its loop (fit then
     * only for deleting): how the workbench quits in the middle of a step. */
    const atomic_bool *cancel;
    /* When set: asked at every turn of the loop (from the solo runs' thread too); once it
     * returns true, a step ends there as if it had reached the time asked (the run so far
     * stays fit to report), and measurements for a forecast end with a message. How a
     * headless run stops on a signal, keeping what it has. */
    bool (*stop)(void);
    accel_progress_fn progress;
    /* When set: called as each LS application's solo run goes (from the solo runs' thread,
     * when they have one), with the application's index in the scenario, its queries done
     * and its queries to do; first with 0 done as the run begins. ctx is progress's. */
    void (*solo_progress)(void *ctx, unsigned app, unsigned done, unsigned total);
    void *ctx;
    /* Above 1: a run to its end (accel_run, or a step to INFINITY) simulates the solo runs on
     * a thread of their own beside the co-located run. The results do not depend on it. */
    unsigned threads;
};

struct accel_app_result {
    const char *name; /* the scenario's */
    int role;         /* enum accel_role */
    unsigned instances;
    /* LS: query latencies (arrival to the end of its last task), in completion order */
    unsigned queries;
    double *latency_ms; /* queries of them, heap; INFINITY: never completed (starved) */
    unsigned starved;   /* queries given up: a copy waited PCIE_STARVED_NS behind exclusive ones */
    double p50_ms, p99_ms, mean_ms;
    /* alone on the GPU under the same arrivals (closed loop, or the same Poisson draws): the
     * reference of the QoS target, which is about interference, not load */
    double solo_p50_ms, solo_p99_ms, solo_mean_ms;
    double qos_target; /* p99 bound, x solo p99 */
    bool qos_met;      /* p99_ms <= qos_target x solo_p99_ms */
    /* batch: passes over the trace completed, all instances together */
    uint64_t passes;
    /* LS, with a predictor: its latencies (queries of them, in query order, heap), their p50
     * and p99, the p99 it predicts for the application alone under the same arrivals, the
     * verdict p99 <= qos_target x that, and |predicted p99 - p99| / p99 */
    double *pred_latency_ms;
    double pred_p50_ms, pred_p99_ms, pred_mean_ms, pred_solo_ms, pred_error;
    bool pred_qos_met;
};

struct accel_result {
    uint64_t cycles;         /* core cycles simulated (the co-located run) */
    double sim_ms;           /* the same in milliseconds */
    double gpu_util;         /* fraction of SM time that SMs held thread blocks */
    double h2d_busy;         /* fraction of the time the host-to-device link moved data */
    double d2h_busy;         /* likewise device to host */
    uint64_t tasks_done;     /* tasks completed, every application */
    uint64_t solo_cycles;    /* core cycles of the solo runs, together */
    int predictor;           /* enum accel_predictor: the one that filled the pred_ fields */
    uint64_t profile_cycles; /* core cycles the predictor's solo-run profiles simulated */
    unsigned napps;
    struct accel_app_result app[ACCEL_MAX_APPS];
    /* with o->record_tasks: every task of the co-located run, in completion order (heap) */
    struct accel_task_rec *tasks;
    size_t ntasks;
};

/* The percentile p (0..100) of n values (sorted into a copy; nearest rank). 0 for n = 0. */
double accel_percentile(const double *v, size_t n, double p);

/* A latency (or a time) of ms milliseconds as corun prints it, into buf (n bytes): three
 * decimals, "%.3f", from 0.01 ms up (and 0, inf and nan as printf writes them), at least two
 * significant digits; below, three significant digits (at most 7 decimals, 9 characters), so
 * that a latency under a microsecond does not read 0.000 ms. Returns buf. */
const char *accel_ms_text(char *buf, size_t n, double ms);

/* Runs scenario sc: each LS application alone first (its solo latency, under its own
 * arrivals), then every application together; with o->predictor, then the profiles and the
 * prediction (accel_predict.h). Fills r (release with accel_result_done). Returns 0; -1 with
 * a message in err (a kernel the core refuses; r->napps > 0 when the run was measured and
 * only its forecast failed or was stopped); or 1 when o->stop ended the run before its end:
 * r then holds the co-located run so far, without a forecast, or nothing (r->napps = 0) when
 * the solo runs had not ended. Deterministic for a scenario and its seed. */
int accel_run(const struct accel_scenario *sc, const struct accel_run_options *o,
              struct accel_result *r, char *err, size_t errlen);
void accel_result_done(struct accel_result *r);

/* The run file's record of r, a run of sc (complete: it reached its end): copies of every
 * string and array (release with accel_record_done). Predicted fields are NaN without a
 * predictor. */
void accel_result_to_record(const struct accel_scenario *sc, const struct accel_result *r,
                            bool complete, struct accel_record *out);

/* Add the run recorded in rec, saved at run_path, to the catalog at catalog_path (NULL: the
 * default one): a row of accel_runs, a row per application. Its id (shown as aN) to *id. */
int accel_record_catalog(const struct accel_record *rec, const char *run_path,
                         const char *catalog_path, int64_t *id, char *err, size_t errlen);
/* The same into the open catalog cat (inside its write transaction, when one is begun). */
struct catalog;
int accel_record_catalog_into(const struct accel_record *rec, const char *run_path,
                              struct catalog *cat, int64_t *id, char *err, size_t errlen);

#endif
