/* gpu_split — a block's work on several threads, with the results of running it on one.
 *
 * Memory side. Within a block the SMs only reach the memory side through requests that become
 * ready after the block (a request crosses the crossbar and the LLC latency, longer than a
 * block), and the memory side only reaches the SMs through replies and wake-ups that land at
 * the block's end or later (a block is no longer than the quickest reply). What crosses within
 * the block is held back until both are done (llc_split_*): the SMs see the slices' queues as
 * the block began, and the slices' replies and wake-ups for SMs are applied afterwards in the
 * order they were made. So the memory phase runs on a helper thread while the SMs are stepped.
 *
 * Pipelined spans. A request becomes ready a dozen blocks and more after it was sent, so the
 * memory side need not wait for the SMs' block to end before it runs the next: over a whole
 * span (gpu_split_span) helper 0 runs the memory side's blocks up to `lead` blocks ahead of
 * the SM side, merging the SMs' appends of each block as they are handed over, and the
 * calling thread, after each SM block, applies what the memory side did in that block
 * (llc_pipe_*). Neither then waits for the other at every block's end, and the helper goes on
 * through the calling thread's own work at the block's end.
 *
 * SMs. Under the order-free rules (gpu.order_free, sm_order.c) no SM's block depends on
 * another's, so the SMs due in a block are shared out among all the threads: each steps its
 * share (a range of SM numbers) and then helps the others from the back of theirs (the helper
 * that runs the memory side starts on its share when that is done, or when it may not run
 * further ahead), and sm_block_done then does what they hand to each other, in an order of its
 * own. Under the ordered rules the SMs run on this thread, one after the other.
 *
 * The threads spin rather than sleep while they wait for each other: a block is tens of
 * microseconds of work, about what waking a sleeping thread costs; they sleep only when no
 * block or span has come for a while. */
#include "gpu_internal.h"

#include "corun/llc.h"
#include "corun/sm.h"
#include "corun/util.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Spins before a helper sleeps between blocks (a few hundred microseconds). */
#define SPINS_BEFORE_SLEEP 65536
/* Helper threads at most (gpu_set_threads). */
#define MAX_HELPERS (GPU_MAX_THREADS - 1)

struct gpu_split;

struct helper {
    struct gpu_split *sp;
    unsigned index;
    pthread_t thread;
};

/* A thread's share of a block's due SMs: the entries [lo, hi) of g->due (lo | hi << 32) not
 * yet taken. Its thread takes from the front, the others, once done with theirs, from the
 * back, so an SM is mostly stepped by the same thread block after block and its state stays
 * in that core's caches. One host cache line each. */
struct share {
    _Alignas(64) _Atomic uint64_t range;
};

struct gpu_split {
    struct gpu *g;
    unsigned nhelpers;
    bool memory;        /* helper 0 runs each block's memory side */
    bool sms;           /* the SMs are shared out (order-free rules) */
    uint64_t block_end; /* the block to run, set before `go` */
    /* A pipelined span (gpu_split_span), set before `go`: its first cycle and its end, its
     * blocks, how many blocks the memory side may run ahead, and the quickest request. */
    bool span;
    uint64_t span_start, span_end, nblocks, minlat;
    unsigned lead;
    _Atomic uint64_t sm_done;  /* SM blocks whose appends are handed over */
    _Atomic uint64_t applied;  /* memory blocks whose events the SM side applied */
    _Atomic uint64_t mem_done; /* memory blocks run */
    _Atomic unsigned stepped;  /* the open SM block's due SMs stepped so far */
    _Atomic bool span_over;
    struct share share[MAX_HELPERS + 1]; /* thread 0 is the caller's, t > 0 helper t - 1's */
    _Atomic uint64_t go;                 /* blocks handed over; UINT64_MAX: stop */
    _Atomic unsigned finished;           /* helpers done with the block */
    _Atomic unsigned sleeping;           /* helpers waiting on `wake` */
    pthread_mutex_t lock;
    pthread_cond_t wake;
    struct helper helper[MAX_HELPERS];
};

static void pause_briefly(unsigned *spins)
{
    if (++*spins % 256 == 0)
        sched_yield(); /* another thread may need this core to get on */
#if defined(__x86_64__) || defined(__i386__)
    else
        __builtin_ia32_pause();
#endif
}

/* The next block handed over after `seen`: spinning while blocks come quickly, asleep between
 * runs. `sleeping` is raised before `go` is read again and `go` stored before `sleeping` is
 * read (sequentially consistent), so a handover is never missed. */
static uint64_t next_block(struct gpu_split *sp, uint64_t seen)
{
    uint64_t go;
    unsigned spins = 0;
    while ((go = atomic_load(&sp->go)) == seen) {
        if (spins < SPINS_BEFORE_SLEEP) {
            pause_briefly(&spins);
            continue;
        }
        pthread_mutex_lock(&sp->lock);
        atomic_fetch_add(&sp->sleeping, 1);
        while ((go = atomic_load(&sp->go)) == seen)
            pthread_cond_wait(&sp->wake, &sp->lock);
        atomic_fetch_sub(&sp->sleeping, 1);
        pthread_mutex_unlock(&sp->lock);
    }
    return go;
}

static void hand_over(struct gpu_split *sp, uint64_t n)
{
    atomic_store(&sp->go, n);
    if (atomic_load(&sp->sleeping)) {
        pthread_mutex_lock(&sp->lock);
        pthread_cond_broadcast(&sp->wake);
        pthread_mutex_unlock(&sp->lock);
    }
}

/* Takes up to SM_TAKE entries of share sh, from its front or its back: their first index,
 * and their count in *n (0: none left). */
#define SM_TAKE 2
static unsigned take(struct share *sh, bool front, unsigned *n)
{
    uint64_t r = atomic_load_explicit(&sh->range, memory_order_relaxed);
    for (;;) {
        unsigned lo = (unsigned)r, hi = (unsigned)(r >> 32);
        if (lo >= hi) {
            *n = 0;
            return 0;
        }
        unsigned k = hi - lo < SM_TAKE ? hi - lo : SM_TAKE;
        uint64_t to = front ? (uint64_t)(lo + k) | (uint64_t)hi << 32
                            : (uint64_t)lo | (uint64_t)(hi - k) << 32;
        /* Acquire: the entries and the block they are of were written before the range. */
        if (atomic_compare_exchange_weak_explicit(&sh->range, &r, to, memory_order_acquire,
                                                  memory_order_relaxed)) {
            *n = k;
            return front ? lo : hi - k;
        }
    }
}

/* Shares the block's ndue due SMs (g->due) out: thread t's are those numbered from
 * sms * t / threads up to (not including) sms * (t + 1) / threads. Released: a thread that
 * takes from a share sees the entries and the block (sp->block_end) written before. */
static void share_out(struct gpu_split *sp, unsigned ndue)
{
    const struct gpu *g = sp->g;
    unsigned threads = sp->nhelpers + 1, lo = 0;
    for (unsigned t = 0; t < threads; t++) {
        unsigned hi = lo, bound = (unsigned)((uint64_t)g->cfg.sms * (t + 1) / threads);
        while (hi < ndue && g->due[hi] < bound)
            hi++;
        atomic_store_explicit(&sp->share[t].range, (uint64_t)lo | (uint64_t)hi << 32,
                              memory_order_release);
        lo = hi;
    }
}

/* Thread t steps the SMs of its share, then helps the others with theirs; the number it
 * stepped (also added to `stepped`). */
static unsigned take_sms(struct gpu_split *sp, unsigned t)
{
    struct gpu *g = sp->g;
    struct sm_lane *lane = g->lanes[t];
    unsigned threads = sp->nhelpers + 1, total = 0;
    for (unsigned j = 0; j < threads; j++) {
        struct share *sh = &sp->share[(t + j) % threads];
        unsigned n;
        for (unsigned i = take(sh, j == 0, &n); n; i = take(sh, j == 0, &n)) {
            uint64_t block_end = sp->block_end;
            for (unsigned end = i + n; i < end; i++)
                sm_run_block_in(g->sms[g->due[i]], lane, block_end);
            total += n;
        }
    }
    /* Once for all: a block's SMs are all taken before its thread waits for this count, so
     * what a thread took in one call is of one block. */
    if (total)
        atomic_fetch_add_explicit(&sp->stepped, total, memory_order_release);
    return total;
}

/* ---- pipelined spans ---- */

static uint64_t span_block_start(const struct gpu_split *sp, uint64_t j)
{
    unsigned b = sp->g->block;
    return j == 0 ? sp->span_start : (sp->span_start / b + j) * b;
}

static uint64_t span_block_end(const struct gpu_split *sp, uint64_t j)
{
    unsigned b = sp->g->block;
    uint64_t end = (sp->span_start / b + j + 1) * b;
    return end < sp->span_end ? end : sp->span_end;
}

/* The memory side of a span, block by block, as far ahead of the SM side as it may: block j
 * once the SM side has applied the events of block j - lead (so the appends of every SM block
 * whose requests could be ready in block j are merged, and block j's slot for events is
 * free). While it may not, it steps SMs of the SM side's block (order-free rules). */
#define PIPE_URGENT 2 /* memory blocks ahead of the SM side's below which it runs them first */
static void pipe_memory(struct gpu_split *sp)
{
    struct gpu *g = sp->g;
    struct llc *l = g->env.llc;
    for (uint64_t j = 0; j < sp->nblocks; j++) {
        uint64_t start = span_block_start(sp, j), end = span_block_end(sp, j), merged;
        unsigned spins = 0;
        for (;;) {
            merged = atomic_load_explicit(&sp->sm_done, memory_order_acquire);
            llc_pipe_merge(l, merged);
            uint64_t applied = atomic_load_explicit(&sp->applied, memory_order_acquire);
            bool may = applied + sp->lead >= j && llc_pipe_may_run(l, end);
            /* SMs first while the memory side is well ahead: the calling thread's own work at
             * a block's end leaves the memory side time enough, but no SMs. */
            if (may && (!sp->sms || j < applied + PIPE_URGENT))
                break;
            if (sp->sms && take_sms(sp, 1))
                continue;
            if (may)
                break;
            pause_briefly(&spins);
        }
        /* UINT64_MAX: every append block j could see is merged (the SM side is not behind). */
        uint64_t defer_from = merged <= j ? span_block_start(sp, merged) + sp->minlat : UINT64_MAX;
        llc_pipe_block(l, j, start, end, defer_from);
        gpu_run_memory(g, end);
        atomic_store_explicit(&sp->mem_done, j + 1, memory_order_release);
    }
}

/* A helper's part of a span besides the memory side: SMs of the SM side's blocks. */
static void pipe_help(struct gpu_split *sp, unsigned t)
{
    unsigned spins = 0;
    while (!atomic_load_explicit(&sp->span_over, memory_order_acquire))
        if (!sp->sms || !take_sms(sp, t))
            pause_briefly(&spins);
}

/* The SM side of a span's block: the due SMs, on every thread under the order-free rules. */
static void pipe_sms(struct gpu_split *sp, uint64_t start, uint64_t end)
{
    struct gpu *g = sp->g;
    struct sim_env *e = &g->env;
    if (!sp->sms) {
        gpu_run_sms(g, start, end);
        return;
    }
    unsigned ndue = gpu_due_sms(g, start);
    if (!ndue)
        return;
    sp->block_end = end;
    atomic_store_explicit(&sp->stepped, 0, memory_order_relaxed);
    e->sm_phase = true;
    share_out(sp, ndue);
    take_sms(sp, 0);
    unsigned spins = 0;
    while (atomic_load_explicit(&sp->stepped, memory_order_acquire) != ndue)
        pause_briefly(&spins);
    e->sm_phase = false;
    sm_block_done(e, g->lanes, sp->nhelpers + 1);
}

static void *helper_main(void *arg)
{
    struct helper *h = arg;
    struct gpu_split *sp = h->sp;
    for (uint64_t seen = 0;;) {
        uint64_t go = next_block(sp, seen);
        if (go == UINT64_MAX)
            return NULL;
        seen = go;
        if (sp->span) {
            if (h->index == 0)
                pipe_memory(sp);
            pipe_help(sp, h->index + 1);
        } else {
            if (h->index == 0 && sp->memory)
                gpu_run_memory(sp->g, sp->block_end);
            if (sp->sms)
                take_sms(sp, h->index + 1);
        }
        atomic_fetch_add_explicit(&sp->finished, 1, memory_order_release);
    }
}

static void stop(struct gpu *g)
{
    struct gpu_split *sp = g->split;
    hand_over(sp, UINT64_MAX);
    for (unsigned i = 0; i < sp->nhelpers; i++)
        pthread_join(sp->helper[i].thread, NULL);
    pthread_mutex_destroy(&sp->lock);
    pthread_cond_destroy(&sp->wake);
    free(sp);
    g->split = NULL;
}

/* Starts nhelpers helper threads; false when not one starts (the blocks then run on this
 * thread alone, as they would anyway). */
static bool start(struct gpu *g, unsigned nhelpers, bool memory, bool sms)
{
    /* Its shares are aligned to host cache lines, more than malloc promises. */
    struct gpu_split *sp = aligned_alloc(_Alignof(struct gpu_split), sizeof(*sp));
    if (!sp)
        return false;
    memset(sp, 0, sizeof(*sp));
    sp->g = g;
    sp->memory = memory;
    sp->sms = sms;
    pthread_mutex_init(&sp->lock, NULL);
    pthread_cond_init(&sp->wake, NULL);
    g->split = sp;
    for (unsigned t = 0; sms && t <= nhelpers; t++)
        gpu_lane(g, t);
    for (unsigned i = 0; i < nhelpers; i++) {
        sp->helper[i] = (struct helper){.sp = sp, .index = i};
        if (pthread_create(&sp->helper[i].thread, NULL, helper_main, &sp->helper[i]) != 0)
            break;
        sp->nhelpers++;
    }
    if (sp->nhelpers == 0) {
        stop(g);
        return false;
    }
    return true;
}

void gpu_split_block(struct gpu *g, uint64_t block_end)
{
    struct gpu_split *sp = g->split;
    struct sim_env *e = &g->env;
    uint64_t block_start = g->now, n = atomic_load_explicit(&sp->go, memory_order_relaxed) + 1;
    if (sp->memory)
        llc_split_begin(e->llc, block_start, block_end);
    sp->block_end = block_end;
    unsigned ndue = 0;
    if (sp->sms) {
        ndue = gpu_due_sms(g, block_start);
        share_out(sp, ndue);
        e->sm_phase = true;
    }
    atomic_store_explicit(&sp->finished, 0, memory_order_relaxed);
    hand_over(sp, n);
    if (sp->sms)
        take_sms(sp, 0);
    else
        gpu_run_sms(g, block_start, block_end);
    unsigned spins = 0;
    while (atomic_load_explicit(&sp->finished, memory_order_acquire) != sp->nhelpers)
        pause_briefly(&spins);
    if (sp->sms) {
        e->sm_phase = false;
        if (ndue)
            sm_block_done(e, g->lanes, sp->nhelpers + 1);
    }
    if (sp->memory)
        llc_split_end(e->llc);
    else
        gpu_run_memory(g, block_end);
}

bool gpu_split_span(struct gpu *g, uint64_t end)
{
    struct gpu_split *sp = g->split;
    struct sim_env *e = &g->env;
    const struct gpu_config *cfg = &g->cfg;
    /* A request is ready at its slice minlat cycles after it was sent at the soonest, so the
     * memory side's block j needs no append of the SM side's blocks from j - (minlat / block
     * - 1) on. It keeps two blocks short of that, so that a slice step waiting for the DRAM
     * is not held back (llc_pipe_may_run); with less than two blocks to run ahead, blocks
     * are split one by one. A span that stops when a grid is done is not run ahead. */
    uint64_t minlat = cfg->noc_latency_cycles + 1 + cfg->llc.latency_cycles;
    uint64_t ahead = minlat / g->block;
    if (!sp->memory || e->shared || ahead < 5 || end <= g->now)
        return false;
    ahead -= 3;
    sp->lead = ahead < LLC_PIPE_SLOTS - 2 ? (unsigned)ahead : LLC_PIPE_SLOTS - 2;
    sp->minlat = minlat;
    sp->span_start = g->now;
    sp->span_end = end;
    sp->nblocks = (end - 1) / g->block - g->now / g->block + 1;
    atomic_store_explicit(&sp->sm_done, 0, memory_order_relaxed);
    atomic_store_explicit(&sp->applied, 0, memory_order_relaxed);
    atomic_store_explicit(&sp->mem_done, 0, memory_order_relaxed);
    atomic_store_explicit(&sp->span_over, false, memory_order_relaxed);
    atomic_store_explicit(&sp->finished, 0, memory_order_relaxed);
    for (unsigned t = 0; t <= sp->nhelpers; t++)
        atomic_store_explicit(&sp->share[t].range, 0, memory_order_relaxed);
    llc_pipe_begin(e->llc);
    sp->span = true;
    hand_over(sp, atomic_load_explicit(&sp->go, memory_order_relaxed) + 1);
    for (uint64_t b = 0; b < sp->nblocks; b++) {
        uint64_t start = span_block_start(sp, b), block_end = span_block_end(sp, b);
        e->sm_block_start = start;
        e->sm_block_end = block_end;
        pipe_sms(sp, start, block_end);
        llc_pipe_publish(e->llc, b, start);
        atomic_store_explicit(&sp->sm_done, b + 1, memory_order_release);
        unsigned spins = 0;
        while (atomic_load_explicit(&sp->mem_done, memory_order_acquire) <= b)
            pause_briefly(&spins);
        llc_pipe_apply(e->llc, b, block_end);
        atomic_store_explicit(&sp->applied, b + 1, memory_order_release);
        g->sm_rr = (g->sm_rr + g->sm_rr_step) % g->cfg.sms;
    }
    atomic_store_explicit(&sp->span_over, true, memory_order_release);
    unsigned spins = 0;
    while (atomic_load_explicit(&sp->finished, memory_order_acquire) != sp->nhelpers)
        pause_briefly(&spins);
    sp->span = false;
    llc_pipe_finish(e->llc, sp->nblocks);
    return true;
}

bool gpu_split_memory(const struct gpu *g)
{
    return g->split && g->split->memory;
}

void gpu_split_stop(struct gpu *g)
{
    if (g->split)
        stop(g);
}

/* Whether the memory side may run beside the SMs: the quickest request (crossbar, one flit,
 * LLC latency) must not be ready within the block it was sent in, where the slices would
 * have to see it. */
static bool memory_may_split(const struct gpu *g)
{
    const struct gpu_config *cfg = &g->cfg;
    return cfg->noc_latency_cycles + 1 + cfg->llc.latency_cycles >= g->block;
}

unsigned gpu_set_threads(struct gpu *g, unsigned n)
{
    bool memory = memory_may_split(g), sms = g->env.order_free;
    unsigned helpers = n <= 1 ? 0 : sms ? n - 1 : memory ? 1 : 0;
    if (helpers > MAX_HELPERS)
        helpers = MAX_HELPERS;
    struct gpu_split *sp = g->split;
    if (sp && sp->nhelpers == helpers && sp->memory == memory && sp->sms == sms)
        return helpers + 1;
    gpu_split_stop(g);
    if (helpers && !start(g, helpers, memory, sms))
        return 1;
    return g->split ? g->split->nhelpers + 1 : 1;
}

bool gpu_set_split(struct gpu *g, bool on)
{
    if (!on) {
        gpu_set_threads(g, 1);
        return true;
    }
    if (!g->env.order_free && !memory_may_split(g)) {
        gpu_split_stop(g);
        return false;
    }
    return gpu_set_threads(g, 2) == 2;
}
