/* session_refs — extending the kernels' private-mode references.
 *
 * Each reference is a simulation of its own (one kernel alone on its SMs), sharing nothing with
 * the others or with the shared run, so with more than one thread they are extended side by
 * side, one reference per worker, and give the very samples they give one after another: the
 * results do not depend on the thread count. The calling thread only reports progress and
 * passes on an abandon.
 *
 * With more than one thread, the references also run ahead while the calling thread simulates
 * the epoch's shared run (session_refs_ahead): each is extended by up to an epoch's cycles
 * beyond the point the last epoch needed, on the threads the shared run leaves, and stopped
 * when the shared run ends. A trace is the same samples however far and in whatever steps it
 * is extended, and NP reads it only where it covers, so this changes no result; after the
 * shared run only the rest, if any, is left to extend.
 *
 * A trace read from the catalog (or a branch's, copied from its run) has no private run behind
 * it. Going further first simulates the kernel again up to its samples: the threads that run
 * ahead do that a slice at a time when the trace will likely not cover the run's
 * remaining epochs, rather than leave it all to the epoch that first needs more. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "corun/util.h"
#include "session_internal.h"

struct ref_job {
    struct solo_trace *t;
    uint64_t want;           /* instructions the reference must cover */
    uint64_t len, slice;     /* cycles: the epoch's length, one extension step */
    uint64_t most;           /* cycles of extension at most */
    uint64_t behind;         /* cycles a loaded trace was behind when the job began */
    _Atomic uint64_t made;   /* cycles of extension steps taken */
    _Atomic uint64_t caught; /* cycles of catching up taken (solo_trace_catch_up) */
};

/* The cycles trace t covers. */
static uint64_t trace_end(const struct solo_trace *t)
{
    const uint64_t *insts;
    size_t n = solo_trace_samples(t, &insts);
    return n ? (uint64_t)(n - 1) * SOLO_SAMPLE_CYCLES : 0;
}

/* One extension step; false once the reference covers the instructions, or after `most`
 * cycles (after the shared run: four epochs' worth, the kernel has stalled and solo_true_np's
 * own limit decides then). */
static bool job_step(struct ref_job *j)
{
    uint64_t made = atomic_load_explicit(&j->made, memory_order_relaxed);
    const uint64_t *insts;
    size_t n = solo_trace_samples(j->t, &insts);
    if (n > 0 && insts[n - 1] >= j->want)
        return false;
    if (solo_trace_loaded(j->t)) {
        /* A trace read from the catalog: the kernel is simulated again up to its samples
         * first, a slice at a time, so that it can go on from there. */
        solo_trace_catch_up(j->t, j->slice);
        uint64_t caught = atomic_load_explicit(&j->caught, memory_order_relaxed);
        atomic_store_explicit(&j->caught, caught + j->slice, memory_order_relaxed);
        return true;
    }
    if (made >= j->most)
        return false;
    solo_trace_extend(j->t, trace_end(j->t) + j->slice);
    atomic_store_explicit(&j->made, made + j->slice, memory_order_relaxed);
    return true;
}

/* One extension step of an epoch of len cycles: a progress slice, in whole samples. */
static uint64_t ref_slice(uint64_t len)
{
    return (len / SESSION_PROGRESS_SLICES + SOLO_SAMPLE_CYCLES - 1) / SOLO_SAMPLE_CYCLES *
           SOLO_SAMPLE_CYCLES;
}

static double job_part(struct ref_job *j)
{
    double done = (double)atomic_load_explicit(&j->made, memory_order_relaxed) +
                  (double)atomic_load_explicit(&j->caught, memory_order_relaxed);
    double part = done / (double)(j->len + j->behind);
    return part < 1 ? part : 1;
}

/* A job on trace t of an epoch of len cycles (made and caught zero). */
static struct ref_job new_job(struct solo_trace *t, uint64_t want, uint64_t len, uint64_t most)
{
    return (struct ref_job){.t = t,
                            .want = want,
                            .len = len,
                            .slice = ref_slice(len),
                            .most = most,
                            .behind = solo_trace_behind(t)};
}

struct ref_pool {
    struct ref_job *jobs;
    unsigned njobs;
    atomic_uint next, finished;
    atomic_int abandon;
};

/* The job extending trace t, or njobs: one job per distinct reference (two kernels of the same
 * profile share theirs, and one trace is extended by one thread only). */
static unsigned job_of(const struct ref_pool *p, const struct solo_trace *t)
{
    unsigned j = 0;
    while (j < p->njobs && p->jobs[j].t != t)
        j++;
    return j;
}

static void *worker(void *arg)
{
    struct ref_pool *p = arg;
    for (;;) {
        unsigned i = atomic_fetch_add(&p->next, 1);
        if (i >= p->njobs)
            break;
        while (!atomic_load(&p->abandon) && job_step(&p->jobs[i]))
            ;
        atomic_fetch_add(&p->finished, 1);
    }
    return NULL;
}

/* Jobs on threads; the caller polls progress every few ms. Returns nonzero when abandoned. */
static int run_threaded(struct ref_pool *p, unsigned threads, session_progress_fn progress,
                        void *ctx)
{
    pthread_t tid[GPU_MAX_KERNELS];
    unsigned started = 0;
    for (; started < threads && started < p->njobs; started++)
        if (pthread_create(&tid[started], NULL, worker, p) != 0)
            break;
    if (started == 0) /* no thread to be had: do the work here */
        worker(p);
    int rc = 0;
    while (atomic_load(&p->finished) < p->njobs) {
        struct timespec nap = {0, 20 * 1000 * 1000};
        nanosleep(&nap, NULL);
        double sum = 0;
        for (unsigned i = 0; i < p->njobs; i++)
            sum += job_part(&p->jobs[i]);
        if (!rc && progress && progress(ctx, 0.5 + 0.5 * sum / p->njobs) != 0) {
            rc = 1;
            atomic_store(&p->abandon, 1);
        }
    }
    for (unsigned i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    return rc;
}

int session_extend_references(struct session *s, const unsigned *slot, unsigned n,
                              session_progress_fn progress, void *ctx)
{
    if (n == 0)
        return 0;
    uint64_t len = s->sc->epoch_cycles;
    struct ref_pool p = {.jobs = xcalloc(n, sizeof(*p.jobs))};
    for (unsigned i = 0; i < n; i++) {
        uint64_t want = gpu_kernel_instructions_total(s->gpu, slot[i]);
        unsigned j = job_of(&p, s->ref[slot[i]]);
        if (j == p.njobs)
            p.jobs[p.njobs++] = new_job(s->ref[slot[i]], 0, len, 4 * len);
        if (want > p.jobs[j].want)
            p.jobs[j].want = want;
    }
    int rc = 0;
    if (s->threads > 1 && p.njobs > 1) {
        rc = run_threaded(&p, s->threads, progress, ctx);
    } else {
        double share = 0.5 / p.njobs;
        for (unsigned i = 0; i < p.njobs && !rc; i++)
            while (!rc && job_step(&p.jobs[i]))
                rc = progress && progress(ctx, 0.5 + share * (i + job_part(&p.jobs[i]))) != 0;
    }
    free(p.jobs);
    return rc;
}

struct session_ahead {
    struct ref_pool pool;
    pthread_t tid[GPU_MAX_KERNELS];
    unsigned started;
};

/* Cycles kernel k's reference will likely advance in this epoch: as far as in the last one
 * (its NP times the epoch), half an epoch when there is no last one. A guess only: it decides
 * how much work is done early, not what the reference holds. */
static uint64_t likely_advance(const struct session *s, unsigned k)
{
    uint64_t len = s->sc->epoch_cycles;
    const struct session_epoch *e = s->nepochs ? &s->epochs[s->nepochs - 1] : NULL;
    double np = e && k < e->nkernels ? e->k[k].np_true : NAN;
    if (!(np > 0))
        return len / 2;
    return np < 4 ? (uint64_t)(np * (double)len) : 4 * len;
}

struct session_ahead *session_refs_ahead(struct session *s, const unsigned *slot, unsigned n)
{
    if (s->threads < 2 || n == 0)
        return NULL;
    uint64_t len = s->sc->epoch_cycles;
    struct session_ahead *a = xcalloc(1, sizeof(*a));
    a->pool.jobs = xcalloc(n, sizeof(*a->pool.jobs));
    for (unsigned i = 0; i < n; i++) {
        struct solo_trace *t = s->ref[slot[i]];
        if (job_of(&a->pool, t) < a->pool.njobs)
            continue;
        /* From where the kernel stood when the epoch began (covered: the last epoch's NP was
         * read there) to where it will likely be at its end. */
        double from = solo_trace_cycles_at(t, s->insts_at_start[slot[i]]);
        if (from < 0) /* the kernel makes no progress alone */
            continue;
        uint64_t end = trace_end(t), advance = likely_advance(s, slot[i]);
        uint64_t to = (uint64_t)from + advance;
        if (solo_trace_loaded(t)) {
            /* A trace read from the catalog (or a branch's, copied from its run) is left as
             * it is while it will likely cover the run's epochs still to come, give or
             * take an epoch (one made by a run of the same mix covers them exactly, and the
             * guess is as rough as the kernel's NP varies), and while a branch re-simulates
             * the epochs its run had; the second thread then splits the shared run. Else it
             * is caught up with here, so that the epoch that needs more does not simulate it
             * again from its start all at once. */
            unsigned plan = s->planned_epochs ? s->planned_epochs : s->sc->epochs;
            uint64_t left = plan > s->nepochs ? plan - s->nepochs : 1;
            if ((uint64_t)from + advance * left <= end + (left > 1 ? advance : 0) ||
                s->replaying) /* a branch makes for its branch point first */
                continue;
        } else if (to <= end) {
            continue;
        }
        a->pool.jobs[a->pool.njobs++] = new_job(t, UINT64_MAX, len, to > end ? to - end : 0);
    }
    for (; a->started + 1 < s->threads && a->started < a->pool.njobs; a->started++)
        if (pthread_create(&a->tid[a->started], NULL, worker, &a->pool) != 0)
            break;
    if (a->started == 0) { /* nothing to run ahead, or no thread to be had */
        free(a->pool.jobs);
        free(a);
        return NULL;
    }
    return a;
}

static void ahead_end(struct session_ahead *a, bool stop)
{
    if (!a)
        return;
    if (stop)
        atomic_store(&a->pool.abandon, 1);
    for (unsigned i = 0; i < a->started; i++)
        pthread_join(a->tid[i], NULL);
    free(a->pool.jobs);
    free(a);
}

void session_refs_ahead_stop(struct session_ahead *a)
{
    ahead_end(a, true);
}

void session_refs_ahead_wait(struct session_ahead *a)
{
    ahead_end(a, false);
}

void session_plan_epochs(struct session *s, unsigned epochs)
{
    s->planned_epochs = epochs;
}

void session_set_threads(struct session *s, unsigned threads)
{
    s->threads = threads ? threads : 1;
}

unsigned session_threads(const struct session *s)
{
    return s->threads ? s->threads : 1;
}
