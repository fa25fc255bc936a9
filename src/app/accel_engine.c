/* accel_engine — the task engine of accelerator scenarios: applications' traces over the
 * shared-dispatch core and the host link, event by event (see accel_engine.h). */
#include "accel_engine.h"

#include "corun/accel_predict.h"
#include "corun/gpu.h"
#include "corun/pcie.h"
#include "corun/util.h"

#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IDLE_CHUNK_CYCLES 1000000 /* core cycles run at a time when only kernels are in flight */

static void fail(struct engine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(struct engine *e, const char *fmt, ...)
{
    if (e->failed)
        return;
    e->failed = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->err, e->errlen, fmt, ap);
    va_end(ap);
}

/* ---- tasks ---- */

static void pass_done(struct engine *e, struct proc *p, double t_ns);

static void start_task(struct engine *e, struct proc *p, double t_ns)
{
    const struct accel_task *k = &p->app->trace.tasks[p->task];
    p->task_busy = true;
    p->on_gpu = k->type == ACCEL_KERNEL;
    if (p->on_gpu) {
        p->issued_ns = (double)gpu_now(e->g) / e->cycles_per_ns;
        char err[512];
        if (gpu_launch(e->g, p->stream, &k->kernel, err, sizeof err))
            fail(e, "%s: task %u: %s", p->app->name, p->task + 1, err);
        return;
    }
    struct pcie_link *l = e->link[k->type == ACCEL_H2D ? 0 : 1];
    double now = pcie_link_now_ns(l);
    p->issued_ns = t_ns > now ? t_ns : now;
    pcie_link_submit(l, p->issued_ns, p->stream, k->bytes,
                     k->copy == ACCEL_COPY_EXCLUSIVE ? PCIE_EXCLUSIVE : PCIE_SHARED);
}

/* The task table's row of p's task, ending at t_ns. */
static void log_task(struct engine *e, const struct proc *p, double t_ns)
{
    const struct accel_task *k = &p->app->trace.tasks[p->task];
    if (e->nlog == e->caplog) {
        e->caplog = e->caplog ? 2 * e->caplog : 256;
        e->log = xrealloc(e->log, e->caplog * sizeof(*e->log));
    }
    struct accel_task_rec *r = &e->log[e->nlog++];
    *r = (struct accel_task_rec){
        .app = p->result,
        .proc = p->stream,
        .pass = p->ls ? p->q_next - 1 : p->passes,
        .task = p->task,
        .kind = k->type,
        .issued_ns = p->issued_ns,
        .start_ns = p->issued_ns,
        .end_ns = t_ns,
        .sms = NAN,
        .link_share = NAN,
    };
    if (k->type == ACCEL_KERNEL) {
        r->start_ns = fmax(p->issued_ns, fmin(p->k_start_ns, t_ns));
        r->sms = p->k_sms;
        return;
    }
    r->exclusive = k->copy == ACCEL_COPY_EXCLUSIVE;
    r->bytes = k->bytes;
    const struct pcie_config *c = &e->sc->gpu.pcie;
    double alone_gbs = r->exclusive ? c->exclusive_gbs : c->shared_gbs;
    double took = t_ns - p->issued_ns;
    r->link_share = took > 0 ? ((double)k->bytes / took) / alone_gbs : 1; /* bytes/ns = GB/s */
}

static void end_task(struct engine *e, struct proc *p, double t_ns)
{
    if (p->starved)
        return; /* its queries were given up */
    if (e->o->record_tasks)
        log_task(e, p, t_ns);
    p->task_busy = p->on_gpu = false;
    e->tasks_done++;
    if (++p->task < p->app->trace.ntasks) {
        start_task(e, p, t_ns);
        return;
    }
    p->task = 0;
    pass_done(e, p, t_ns);
}

/* Starts p's next query when it has arrived and none is in service. */
static void try_start_query(struct engine *e, struct proc *p, double t_ns)
{
    if (!p->ls || p->serving || p->q_next >= p->queries || p->arrival[p->q_next] > t_ns)
        return;
    p->q_arrival = p->arrival[p->q_next++];
    p->serving = true;
    p->task = 0;
    start_task(e, p, t_ns);
}

bool accel_engine_finished(const struct engine *e)
{
    return e->failed || (e->ls_procs ? e->ls_left == 0 : e->batch_left == 0);
}

static void pass_done(struct engine *e, struct proc *p, double t_ns)
{
    if (!p->ls) {
        if (++p->passes == 1 && !e->ls_procs)
            e->batch_left--;
        if (!accel_engine_finished(e))
            start_task(e, p, t_ns);
        return;
    }
    p->lat_ms[p->q_done++] = (t_ns - p->q_arrival) / 1e6;
    p->serving = false;
    e->q_done++;
    if (e->o->progress)
        e->o->progress(e->o->ctx, (double)e->q_done / e->q_total);
    if (p->q_done == p->queries)
        e->ls_left--;
    else if (p->closed)
        p->arrival[p->q_next] = t_ns;
    try_start_query(e, p, t_ns);
}

/* ---- the loop ---- */

/* Gives up on the processes whose copy waited PCIE_STARVED_NS behind exclusive copies (the
 * link serves exclusive copies first, so ones that follow each other without a gap hold a
 * sharing copy back for ever): an LS application's queries left never complete; a batch
 * instance that must finish a pass for the run to end ends it with a message. */
static void check_starved(struct engine *e)
{
    for (unsigned i = 0; i < e->nproc && !e->failed; i++) {
        struct proc *p = &e->proc[i];
        if (!p->task_busy || p->on_gpu || p->starved)
            continue;
        const struct accel_task *k = &p->app->trace.tasks[p->task];
        double stalled = pcie_link_stalled_ns(e->link[k->type == ACCEL_H2D ? 0 : 1], p->stream);
        if (stalled < PCIE_STARVED_NS)
            continue;
        if (p->ls) {
            for (unsigned q = p->q_done; q < p->queries; q++)
                p->lat_ms[q] = INFINITY;
            e->q_done += p->queries - p->q_done;
            p->q_done = p->q_next = p->queries;
            p->serving = false;
            p->starved = true;
            e->ls_left--;
        } else if (!e->ls_procs && p->passes == 0) {
            fail(e,
                 "%s: its copy (task %u) waited %.0f ms of simulated time behind "
                 "bandwidth-exclusive copies, which leave the link no gap: the run cannot end",
                 p->app->name, p->task + 1, stalled / 1e6);
        }
    }
}

/* Ends the kernels that completed on the core, in the order they did; true when any did. */
static bool kernel_ends(struct engine *e)
{
    struct proc *done[ACCEL_MAX_APPS];
    uint64_t at[ACCEL_MAX_APPS];
    unsigned n = 0;
    for (unsigned i = 0; i < e->nproc; i++) {
        struct proc *p = &e->proc[i];
        if (!p->on_gpu || gpu_stream_busy(e->g, p->stream))
            continue;
        uint64_t l, s, d;
        gpu_stream_times(e->g, p->stream, &l, &s, &d);
        if (e->o->record_tasks) {
            struct gpu_kernel_counters c;
            gpu_kernel_counters(e->g, p->stream, &c);
            p->k_start_ns = (double)s / e->cycles_per_ns;
            p->k_sms = d > s ? c.sms * (double)c.cycles / (double)(d - s) : 0;
        }
        unsigned j = n++;
        for (; j > 0 && at[j - 1] > d; j--) { /* insertion: completion order */
            done[j] = done[j - 1];
            at[j] = at[j - 1];
        }
        done[j] = p;
        at[j] = d;
    }
    for (unsigned j = 0; j < n && !e->failed; j++)
        end_task(e, done[j], (double)at[j] / e->cycles_per_ns);
    return n > 0;
}

/* The next event off the core: a copy completing or a query arriving (INFINITY: none). */
static double next_event_ns(const struct engine *e)
{
    double t = fmin(pcie_link_next_ns(e->link[0]), pcie_link_next_ns(e->link[1]));
    for (unsigned i = 0; i < e->nproc; i++) {
        const struct proc *p = &e->proc[i];
        if (p->ls && !p->serving && p->q_next < p->queries)
            t = fmin(t, p->arrival[p->q_next]);
        else if (p->waiting)
            t = fmin(t, p->start_ns);
    }
    return t;
}

static bool any_on_gpu(const struct engine *e)
{
    for (unsigned i = 0; i < e->nproc; i++)
        if (e->proc[i].on_gpu)
            return true;
    return false;
}

static void loop_start(struct engine *e)
{
    e->started = true;
    for (unsigned i = 0; i < e->nproc; i++) {
        struct proc *p = &e->proc[i];
        if (p->ls)
            try_start_query(e, p, 0);
        else if (p->start_ns > 0)
            p->waiting = true; /* staggered: next_event_ns has its start */
        else
            start_task(e, p, 0);
    }
}

/* One turn of the loop: the core up to the next event off it (or a kernel's end before), then
 * the copies and arrivals of that moment. */
static void loop_turn(struct engine *e)
{
    double t = next_event_ns(e);
    if (isinf(t) && !any_on_gpu(e)) {
        fail(e, "the task engine has nothing left to run before the LS queries completed");
        return;
    }
    uint64_t now = gpu_now(e->g);
    uint64_t target = isinf(t) ? now + IDLE_CHUNK_CYCLES : (uint64_t)ceil(t * e->cycles_per_ns);
    bool ended = false;
    while (gpu_now(e->g) < target && !ended) {
        gpu_run_shared(e->g, target - gpu_now(e->g));
        ended = kernel_ends(e);
    }
    if (ended || isinf(t))
        return; /* what the kernels' ends started may come first */
    for (unsigned d = 0; d < 2; d++) {
        struct pcie_done out[ACCEL_MAX_APPS];
        size_t n;
        while ((n = pcie_link_advance(e->link[d], t, out, ACCEL_MAX_APPS)) > 0)
            for (size_t j = 0; j < n; j++)
                end_task(e, &e->proc[out[j].id], out[j].end_ns);
    }
    check_starved(e);
    for (unsigned i = 0; i < e->nproc; i++) {
        struct proc *p = &e->proc[i];
        if (p->waiting && p->start_ns <= t) {
            p->waiting = false;
            start_task(e, p, t);
        }
        try_start_query(e, p, t);
    }
}

double accel_engine_now_ns(const struct engine *e)
{
    return (double)gpu_now(e->g) / e->cycles_per_ns;
}

/* Turns of the loop until the core's time reaches until_ns (INFINITY: the end). A step ends
 * only between turns, so the run stepped is the run unstepped, turn for turn. */
void accel_engine_run_until(struct engine *e, double until_ns)
{
    if (!e->started)
        loop_start(e);
    e->stopped = false;
    while (!accel_engine_finished(e) && accel_engine_now_ns(e) < until_ns) {
        if (e->o->cancel && atomic_load(e->o->cancel)) {
            e->cancelled = true;
            return;
        }
        if (e->o->stop && e->o->stop()) {
            e->stopped = true;
            return;
        }
        loop_turn(e);
    }
}

/* ---- set-up ---- */

/* Application app's instance i of n (LS: 0 of 1). */
static void add_proc(struct engine *e, unsigned app, unsigned i, unsigned n, bool solo,
                     unsigned solo_queries)
{
    const struct accel_app *a = &e->sc->apps[app];
    struct proc *p = &e->proc[e->nproc];
    memset(p, 0, sizeof(*p));
    p->app = a;
    p->result = app;
    p->stream = e->nproc++;
    p->ls = a->role == ACCEL_LS;
    if (!p->ls) {
        p->start_ns = a->stagger_ms * 1e6 * i / n;
        return;
    }
    p->closed = a->arrival == ACCEL_CLOSED; /* alone too: the same arrivals */
    p->queries = solo ? solo_queries : a->queries;
    p->arrival = xcalloc(p->queries, sizeof(*p->arrival));
    p->lat_ms = xcalloc(p->queries, sizeof(*p->lat_ms));
    if (!p->closed)
        accel_arrivals(e->sc, app, p->queries, p->arrival);
    e->ls_procs++;
    e->ls_left++;
    e->q_total += p->queries;
}

/* An engine for every application (only < 0) or application `only` alone, closed loop. */
int accel_engine_init(struct engine *e, const struct accel_scenario *sc,
                      const struct accel_run_options *o, int only, unsigned solo_queries, char *err,
                      size_t errlen)
{
    memset(e, 0, sizeof(*e));
    e->sc = sc;
    e->o = o;
    e->err = err;
    e->errlen = errlen;
    for (unsigned a = 0; a < sc->napps; a++) {
        if (only >= 0 && (int)a != only)
            continue;
        unsigned n = sc->apps[a].role == ACCEL_BATCH ? sc->apps[a].instances : 1;
        for (unsigned i = 0; i < n && e->nproc < ACCEL_MAX_APPS; i++)
            add_proc(e, a, i, n, only >= 0, solo_queries);
    }
    e->batch_left = e->ls_procs ? 0 : e->nproc;
    /* A warm-up: beside batch applications, the queries arrive warmup_ms later (a closed loop
     * sends its first then), so they meet the batch instances past their common start. */
    double warmup_ns = sc->warmup_ms * 1e6;
    if (warmup_ns > 0 && e->ls_procs < e->nproc)
        for (unsigned i = 0; i < e->nproc; i++) {
            struct proc *p = &e->proc[i];
            for (unsigned q = 0; p->ls && q < (p->closed ? 1 : p->queries); q++)
                p->arrival[q] += warmup_ns;
        }
    e->g = gpu_new_shared(&sc->gpu, e->nproc, sc->seed, err, errlen);
    if (!e->g)
        return -1;
    e->link[0] = pcie_link_new(&sc->gpu.pcie);
    e->link[1] = pcie_link_new(&sc->gpu.pcie);
    e->cycles_per_ns = sc->gpu.core_clock_mhz / 1000.0;
    return 0;
}

void accel_engine_done(struct engine *e)
{
    for (unsigned i = 0; i < e->nproc; i++) {
        free(e->proc[i].arrival);
        free(e->proc[i].lat_ms);
    }
    free(e->log);
    gpu_delete(e->g);
    pcie_link_delete(e->link[0]);
    pcie_link_delete(e->link[1]);
}

/* p50, p99 and mean of n latencies. */
void accel_latency_stats(const double *lat, unsigned n, double *p50, double *p99, double *mean)
{
    *p50 = accel_percentile(lat, n, 50);
    *p99 = accel_percentile(lat, n, 99);
    double sum = 0;
    for (unsigned q = 0; q < n; q++)
        sum += lat[q];
    *mean = n ? sum / n : 0;
}

void accel_engine_summarize(struct accel_app_result *ar, const struct proc *p)
{
    ar->queries = p->q_done;
    for (unsigned q = 0; q < p->q_done; q++)
        ar->starved += isinf(p->lat_ms[q]);
    ar->latency_ms = xmalloc((p->q_done ? p->q_done : 1) * sizeof(double));
    memcpy(ar->latency_ms, p->lat_ms, p->q_done * sizeof(double));
    accel_latency_stats(p->lat_ms, p->q_done, &ar->p50_ms, &ar->p99_ms, &ar->mean_ms);
}
