/* session_refs — extending the kernels' private-mode references after an epoch's shared run.
 *
 * Each reference is a simulation of its own (one kernel alone on its SMs), sharing nothing with
 * the others, so with more than one thread they are extended side by side, one reference per
 * worker, and give the very samples they give one after another: the results do not depend on
 * the thread count. The calling thread only reports progress and passes on an abandon. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "corun/util.h"
#include "session_internal.h"

struct ref_job {
    struct solo_trace *t;
    uint64_t want;             /* instructions the reference must cover */
    uint64_t len, slice;       /* cycles: the epoch's length, one extension step */
    _Atomic uint64_t made;     /* cycles of extension steps taken, at most 4 x len */
    const atomic_int *abandon; /* set by the caller: stop at the next step */
};

/* One extension step; false once the reference covers the instructions, or after four
 * epochs' worth (the kernel has stalled; solo_true_np's own limit decides then). */
static bool job_step(struct ref_job *j)
{
    uint64_t made = atomic_load_explicit(&j->made, memory_order_relaxed);
    const uint64_t *insts;
    size_t n = solo_trace_samples(j->t, &insts);
    if ((n > 0 && insts[n - 1] >= j->want) || made >= 4 * j->len)
        return false;
    uint64_t have = n ? (uint64_t)(n - 1) * SOLO_SAMPLE_CYCLES : 0;
    solo_trace_extend(j->t, have + j->slice);
    atomic_store_explicit(&j->made, made + j->slice, memory_order_relaxed);
    return true;
}

static double job_part(struct ref_job *j)
{
    double part = (double)atomic_load_explicit(&j->made, memory_order_relaxed) / (double)j->len;
    return part < 1 ? part : 1;
}

struct ref_pool {
    struct ref_job *jobs;
    unsigned njobs;
    atomic_uint next, finished;
    atomic_int abandon;
};

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
    uint64_t slice = (len / SESSION_PROGRESS_SLICES + SOLO_SAMPLE_CYCLES - 1) / SOLO_SAMPLE_CYCLES *
                     SOLO_SAMPLE_CYCLES;
    /* One job per distinct reference: two kernels of the same profile on as many SMs share
     * theirs, and one trace is extended by one thread only. */
    struct ref_pool p = {.jobs = xcalloc(n, sizeof(*p.jobs))};
    for (unsigned i = 0; i < n; i++) {
        uint64_t want = gpu_kernel_instructions_total(s->gpu, slot[i]);
        unsigned j = 0;
        while (j < p.njobs && p.jobs[j].t != s->ref[slot[i]])
            j++;
        if (j == p.njobs) {
            p.jobs[p.njobs++] = (struct ref_job){.t = s->ref[slot[i]], .len = len, .slice = slice};
            atomic_init(&p.jobs[j].made, 0);
        }
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

void session_set_threads(struct session *s, unsigned threads)
{
    s->threads = threads ? threads : 1;
}
