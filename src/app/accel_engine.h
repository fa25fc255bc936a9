/* accel_engine — the task engine inside accel_sim: one process per LS application or batch
 * instance, their tasks over the shared-dispatch core and the two host links, event by event.
 * Internal to src/app: accel_sim.c steps it and reads its results. */
#ifndef CORUN_ACCEL_ENGINE_H
#define CORUN_ACCEL_ENGINE_H

#include "corun/accel_run.h"
#include "corun/accel_scenario.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gpu;
struct pcie_link;

/* One process on the GPU: an LS application or one batch instance. */
struct proc {
    const struct accel_app *app;
    unsigned result; /* its application's index in the result */
    unsigned stream; /* its GPU stream; also its copies' id on the link */
    bool ls, closed;
    bool starved;     /* LS: a copy starved (PCIE_STARVED_NS): the queries left never end */
    unsigned queries; /* LS: to complete */
    double *arrival;  /* LS: query q's arrival (ns); closed loop: set when q - 1 completes */
    double *lat_ms;   /* LS: completed queries' latencies */
    unsigned q_next, q_done;
    double q_arrival; /* the query in service */
    bool serving;     /* LS: a query in service (batch: always, once started) */
    unsigned task;    /* the task in flight or next, within the pass */
    bool task_busy;
    bool on_gpu; /* the task in flight is a kernel */
    uint64_t passes;
    double start_ns;          /* batch: its first pass begins (stagger_ms) */
    bool waiting;             /* batch: not begun yet */
    double issued_ns;         /* the task in flight's submission */
    double k_start_ns, k_sms; /* a kernel that ended: its first TB, its mean SMs */
};

struct engine {
    const struct accel_scenario *sc;
    const struct accel_run_options *o;
    struct gpu *g;
    struct pcie_link *link[2]; /* host to device, device to host */
    double cycles_per_ns;
    unsigned nproc;
    struct proc proc[ACCEL_MAX_APPS];
    unsigned ls_procs, ls_left, batch_left; /* batch_left: batch-only runs, passes to go */
    unsigned q_total, q_done;
    uint64_t tasks_done;
    struct accel_task_rec *log; /* with o->record_tasks: every task completed */
    size_t nlog, caplog;
    bool started;   /* the first tasks are submitted */
    bool cancelled; /* o->cancel stopped a step midway: fit only for deleting */
    bool stopped;   /* o->stop ended the last step between turns, before its time */
    char *err;
    size_t errlen;
    bool failed;
};

/* An engine for every application (only < 0) or application `only` alone, closed loop, for its
 * first solo_queries queries. err (errlen bytes) is kept: failures later are written there. */
int accel_engine_init(struct engine *e, const struct accel_scenario *sc,
                      const struct accel_run_options *o, int only, unsigned solo_queries, char *err,
                      size_t errlen);
void accel_engine_done(struct engine *e);
/* Turns of the loop until the core's time reaches until_ns (INFINITY: the end). */
void accel_engine_run_until(struct engine *e, double until_ns);
double accel_engine_now_ns(const struct engine *e);
/* Every LS query answered (or, with no LS application, every batch instance past one pass),
 * or failed. */
bool accel_engine_finished(const struct engine *e);
/* p50, p99 and mean of n latencies. */
void accel_latency_stats(const double *lat, unsigned n, double *p50, double *p99, double *mean);
/* An LS process's latencies into its application's result. */
void accel_engine_summarize(struct accel_app_result *ar, const struct proc *p);

#endif
