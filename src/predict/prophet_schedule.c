/* prophet_schedule — the ready-time table and task queues of Prophet's schedule predictor, as
 * an event loop over the models of prophet_model.c. Every application has at most one task in
 * flight (its tasks run in FIFO order), so every queue holds at most one entry per app. */
#include "corun/prophet_schedule.h"

#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "corun/pcie.h"
#include "corun/util.h"

#define EPS 1e-6 /* ns: events this close happen together */

struct krun { /* an active kernel task, in submission order */
    size_t app;
    unsigned warps_left, pe, wpp;
    double work_left, batch_solo, bw;
};

struct link { /* one direction of the host link, as the model sees it */
    size_t nbs, nbe, nwait;
    size_t *bs_app, *be_app, *wait_app;
    double *bs_end, *be_dur, *wait_dur;
    double be_end; /* when the exclusive copy moving now ends (INFINITY: none moves) */
    /* Since when exclusive copies have moved one after another without a gap (the sharing
     * copies stalled since then), and when the last one ended. */
    double be_since, be_idle_at;
    int even; /* prophet_hw.bs_even */
};

struct sched {
    const struct prophet_hw *hw;
    struct prophet_app *apps;
    size_t napps;
    double now;
    double *ready; /* the ready-time table: INFINITY while a task is in flight or when done */
    size_t *pos;   /* next task of each app */
    unsigned *passes_done;
    double *since; /* when each app's task in flight was submitted */
    bool *starved; /* its copy starved (PCIE_STARVED_NS): its passes left never end */
    struct krun *k;
    size_t nk;
    struct link link[2];
    bool sequential; /* eq. 1: a task at a time per queue, at its solo duration */
};

static void link_init(struct link *l, size_t n, int even)
{
    memset(l, 0, sizeof(*l));
    l->even = even;
    l->bs_app = xcalloc(n, sizeof(size_t));
    l->be_app = xcalloc(n, sizeof(size_t));
    l->wait_app = xcalloc(n, sizeof(size_t));
    l->bs_end = xcalloc(n, sizeof(double));
    l->be_dur = xcalloc(n, sizeof(double));
    l->wait_dur = xcalloc(n, sizeof(double));
    l->be_end = INFINITY;
    l->be_since = NAN;
    l->be_idle_at = -INFINITY;
}

static void link_done(struct link *l)
{
    free(l->bs_app);
    free(l->be_app);
    free(l->wait_app);
    free(l->bs_end);
    free(l->be_dur);
    free(l->wait_dur);
}

/* Eqs. 6–8 (or corun's even split): a sharing copy of app joins the ones in flight at now. */
static void bs_join(struct link *l, size_t app, double now, double dur)
{
    double end = l->even ? prophet_bs_submit_even(l->bs_end, l->nbs, now, dur)
                         : prophet_bs_submit(l->bs_end, l->nbs, now, dur);
    size_t at = l->nbs;
    while (at > 0 && l->bs_end[at - 1] > end) {
        l->bs_end[at] = l->bs_end[at - 1];
        l->bs_app[at] = l->bs_app[at - 1];
        at--;
    }
    l->bs_end[at] = end;
    l->bs_app[at] = app;
    l->nbs++;
}

/* §5.2.3: the head exclusive copy starts moving and pauses the sharing ones. */
static void be_start(struct link *l, double now)
{
    if (isnan(l->be_since) || now > l->be_idle_at + EPS)
        l->be_since = now;
    l->be_end = now + l->be_dur[0];
    prophet_be_preempt(l->bs_end, l->nbs, l->be_dur[0]);
}

static void submit_copy(struct link *l, size_t app, double now, double dur, int exclusive)
{
    if (exclusive) {
        l->be_app[l->nbe] = app;
        l->be_dur[l->nbe++] = dur;
        if (l->nbe == 1)
            be_start(l, now);
    } else if (l->nbe) { /* eq. 9: behind the exclusive copies */
        l->wait_app[l->nwait] = app;
        l->wait_dur[l->nwait++] = dur;
    } else {
        bs_join(l, app, now, dur);
    }
}

static double slowdown(const struct sched *s)
{
    if (s->sequential)
        return 1.0;
    double demand = 0;
    for (size_t i = 0; i < s->nk; i++)
        demand += s->k[i].bw * s->k[i].pe;
    return fmax(1.0, demand / s->hw->mem_gbs); /* eq. 3 */
}

static double next_event(const struct sched *s)
{
    double t = INFINITY;
    for (size_t a = 0; a < s->napps; a++)
        t = fmin(t, s->ready[a]);
    double sd = slowdown(s);
    for (size_t i = 0; i < s->nk; i++)
        if (s->k[i].pe)
            t = fmin(t, s->now + s->k[i].work_left * sd);
    for (int d = 0; d < 2; d++) {
        t = fmin(t, s->link[d].be_end);
        if (s->link[d].nbs)
            t = fmin(t, s->link[d].bs_end[0]);
    }
    return t;
}

/* App a's task in flight ended at now: the next one is ready, or a pass is over. */
static void task_done(struct sched *s, size_t a)
{
    struct prophet_app *p = &s->apps[a];
    if (s->starved[a])
        return; /* given up: stays out of the ready-time table */
    if (++s->pos[a] == p->ntasks) {
        s->pos[a] = 0;
        if (p->passes && s->passes_done[a] < p->passes)
            p->pass_end_ns[s->passes_done[a]] = s->now;
        if (p->passes && ++s->passes_done[a] == p->passes)
            return; /* done: stays out of the ready-time table */
        if (p->pass_arrival_ns && p->passes) {
            s->ready[a] = fmax(s->now, p->pass_arrival_ns[s->passes_done[a]]);
            return;
        }
    }
    s->ready[a] = s->now;
}

static void complete_copies(struct sched *s, struct link *l)
{
    while (l->nbs && l->bs_end[0] <= s->now + EPS) {
        size_t a = l->bs_app[0];
        memmove(l->bs_end, l->bs_end + 1, (l->nbs - 1) * sizeof(double));
        memmove(l->bs_app, l->bs_app + 1, (l->nbs - 1) * sizeof(size_t));
        l->nbs--;
        task_done(s, a);
    }
    while (l->nbe && l->be_end <= s->now + EPS) {
        task_done(s, l->be_app[0]);
        memmove(l->be_dur, l->be_dur + 1, (l->nbe - 1) * sizeof(double));
        memmove(l->be_app, l->be_app + 1, (l->nbe - 1) * sizeof(size_t));
        l->nbe--;
        l->be_end = INFINITY;
        l->be_idle_at = s->now;
        if (l->nbe)
            be_start(l, s->now);
    }
    if (!l->nbe) { /* the sharing copies that waited behind them may move */
        for (size_t i = 0; i < l->nwait; i++)
            bs_join(l, l->wait_app[i], s->now, l->wait_dur[i]);
        l->nwait = 0;
    }
}

static void complete_batches(struct sched *s, double dt)
{
    double sd = slowdown(s);
    size_t kept = 0;
    for (size_t i = 0; i < s->nk; i++) {
        struct krun *r = &s->k[i];
        if (r->pe) {
            r->work_left -= dt / sd;
            if (r->work_left * sd <= EPS) {
                r->pe = 0;
                if (r->warps_left == 0) {
                    task_done(s, r->app);
                    continue;
                }
            }
        }
        s->k[kept++] = *r;
    }
    s->nk = kept;
}

/* Observations 1–3: free PEs go to the oldest tasks with warps left, a batch at a time. */
static void assign_pes(struct sched *s)
{
    unsigned used = 0;
    for (size_t i = 0; i < s->nk; i++)
        used += s->k[i].pe;
    unsigned free_pes = s->hw->pes - used;
    if (s->sequential) { /* eq. 1: the oldest kernel alone on the GPU, at its solo duration */
        if (s->nk && !used) {
            struct krun *r = &s->k[0];
            r->pe = s->hw->pes;
            r->warps_left = 0;
            r->work_left = s->apps[r->app].tasks[s->pos[r->app]].kernel.solo_ns;
        }
        return;
    }
    for (size_t i = 0; i < s->nk && free_pes; i++) {
        struct krun *r = &s->k[i];
        if (r->pe || !r->warps_left)
            continue;
        const struct prophet_kernel *k = &s->apps[r->app].tasks[s->pos[r->app]].kernel;
        r->pe = prophet_batch_pes(s->hw, k, r->warps_left, free_pes);
        unsigned warps = r->pe * r->wpp;
        r->warps_left -= warps < r->warps_left ? warps : r->warps_left;
        r->work_left = r->batch_solo;
        free_pes -= r->pe;
    }
}

static void submit_ready(struct sched *s)
{
    for (size_t a = 0; a < s->napps; a++) {
        if (s->ready[a] > s->now + EPS)
            continue;
        s->ready[a] = INFINITY;
        s->since[a] = s->now;
        const struct prophet_task *t = &s->apps[a].tasks[s->pos[a]];
        if (t->type == PROPHET_KERNEL) {
            s->k[s->nk++] = (struct krun){a,
                                          t->kernel.warps,
                                          0,
                                          prophet_warps_per_pe(s->hw, &t->kernel),
                                          0,
                                          prophet_batch_solo_ns(s->hw, &t->kernel),
                                          t->kernel.bw_per_pe_gbs};
        } else {
            /* exclusive copies go one at a time in submission order: eq. 1 per direction */
            submit_copy(&s->link[t->type == PROPHET_D2H], a, s->now, t->solo_ns,
                        s->sequential || t->exclusive);
        }
    }
}

/* As the task engine does: a counted app whose sharing copy has waited PCIE_STARVED_NS behind
 * exclusive copies that follow one another without a gap never completes its passes left. */
static void check_starved(struct sched *s)
{
    for (size_t a = 0; a < s->napps; a++) {
        struct prophet_app *p = &s->apps[a];
        if (!p->passes || s->passes_done[a] == p->passes || s->starved[a] ||
            s->ready[a] != INFINITY)
            continue;
        const struct prophet_task *t = &p->tasks[s->pos[a]];
        if (t->type == PROPHET_KERNEL || t->exclusive || s->sequential)
            continue;
        const struct link *l = &s->link[t->type == PROPHET_D2H];
        if (!l->nbe || s->now - fmax(l->be_since, s->since[a]) < PCIE_STARVED_NS)
            continue;
        s->starved[a] = true;
        for (unsigned q = s->passes_done[a]; q < p->passes; q++)
            p->pass_end_ns[q] = INFINITY;
        s->passes_done[a] = p->passes;
    }
}

static int counted_left(const struct sched *s)
{
    for (size_t a = 0; a < s->napps; a++)
        if (s->apps[a].passes && s->passes_done[a] < s->apps[a].passes)
            return 1;
    return 0;
}

static double schedule(const struct prophet_hw *hw, struct prophet_app *apps, size_t napps,
                       bool sequential)
{
    struct sched s = {.hw = hw, .apps = apps, .napps = napps, .sequential = sequential};
    s.ready = xcalloc(napps, sizeof(double));
    s.pos = xcalloc(napps, sizeof(size_t));
    s.passes_done = xcalloc(napps, sizeof(unsigned));
    s.since = xcalloc(napps, sizeof(double));
    s.starved = xcalloc(napps, sizeof(bool));
    s.k = xcalloc(napps, sizeof(struct krun));
    link_init(&s.link[0], napps, hw->bs_even);
    link_init(&s.link[1], napps, hw->bs_even);
    s.now = INFINITY;
    for (size_t a = 0; a < napps; a++) {
        assert(apps[a].ntasks > 0);
        s.ready[a] = apps[a].start_ns;
        if (apps[a].pass_arrival_ns && apps[a].passes)
            s.ready[a] = fmax(s.ready[a], apps[a].pass_arrival_ns[0]);
        s.now = fmin(s.now, s.ready[a]);
    }
    double last = s.now;
    while (counted_left(&s)) {
        double t = next_event(&s);
        assert(isfinite(t));
        double dt = t - s.now;
        s.now = t; /* before the batches complete: task_done stamps them with it */
        complete_batches(&s, dt);
        complete_copies(&s, &s.link[0]);
        complete_copies(&s, &s.link[1]);
        submit_ready(&s);
        assign_pes(&s);
        check_starved(&s);
        last = t;
    }
    link_done(&s.link[0]);
    link_done(&s.link[1]);
    free(s.k);
    free(s.passes_done);
    free(s.since);
    free(s.starved);
    free(s.pos);
    free(s.ready);
    return last;
}

double prophet_schedule(const struct prophet_hw *hw, struct prophet_app *apps, size_t napps)
{
    return schedule(hw, apps, napps, false);
}

double prophet_schedule_sequential(const struct prophet_hw *hw, struct prophet_app *apps,
                                   size_t napps)
{
    return schedule(hw, apps, napps, true);
}
