/* gpu_split — a block's SM phase and memory phase side by side, with the results of running
 * them one after the other.
 *
 * Within a block the SMs only reach the memory side through requests that become ready after
 * the block (a request crosses the crossbar and the LLC latency, longer than a block), and the
 * memory side only reaches the SMs through replies and wake-ups that land at the block's end or
 * later (a block is no longer than the quickest reply). What crosses within the block is held
 * back until both are done (llc_split_*): the SMs see the slices' queues as the block began,
 * and the slices' replies and wake-ups for SMs are applied afterwards in the order they were
 * made. So the memory phase runs on a second thread while this one steps the SMs, and each
 * block ends with both threads meeting. The threads spin rather than sleep: a block is tens of
 * microseconds of work, about what waking a sleeping thread costs. */
#include "gpu_internal.h"

#include "corun/llc.h"
#include "corun/util.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

/* Spins before the memory side sleeps between runs (a few hundred microseconds). */
#define SPINS_BEFORE_SLEEP 65536

struct gpu_split {
    pthread_t thread;
    struct gpu *g;
    uint64_t block_end;    /* the block the memory side is to run, set before `go` */
    _Atomic uint64_t go;   /* blocks handed to the memory side; UINT64_MAX: stop */
    _Atomic uint64_t done; /* blocks it finished */
    _Atomic bool sleeping; /* waiting on `wake` for the next block */
    pthread_mutex_t lock;
    pthread_cond_t wake;
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
 * runs. `sleeping` is set before `go` is read again and `go` before `sleeping` (sequentially
 * consistent), so a handover is never missed. */
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
        atomic_store(&sp->sleeping, true);
        while ((go = atomic_load(&sp->go)) == seen)
            pthread_cond_wait(&sp->wake, &sp->lock);
        atomic_store(&sp->sleeping, false);
        pthread_mutex_unlock(&sp->lock);
    }
    return go;
}

static void hand_over(struct gpu_split *sp, uint64_t n)
{
    atomic_store(&sp->go, n);
    if (atomic_load(&sp->sleeping)) {
        pthread_mutex_lock(&sp->lock);
        pthread_cond_signal(&sp->wake);
        pthread_mutex_unlock(&sp->lock);
    }
}

static void *memory_side(void *arg)
{
    struct gpu_split *sp = arg;
    for (uint64_t seen = 0;;) {
        uint64_t go = next_block(sp, seen);
        if (go == UINT64_MAX)
            return NULL;
        seen = go;
        gpu_run_memory(sp->g, sp->block_end);
        atomic_store_explicit(&sp->done, go, memory_order_release);
    }
}

/* Starts the memory side's thread; false when it cannot be created (the blocks then run one
 * phase after the other, as they would anyway). */
static bool start(struct gpu *g)
{
    struct gpu_split *sp = xcalloc(1, sizeof(*sp));
    sp->g = g;
    pthread_mutex_init(&sp->lock, NULL);
    pthread_cond_init(&sp->wake, NULL);
    if (pthread_create(&sp->thread, NULL, memory_side, sp) != 0) {
        pthread_mutex_destroy(&sp->lock);
        pthread_cond_destroy(&sp->wake);
        free(sp);
        return false;
    }
    g->split = sp;
    return true;
}

void gpu_split_block(struct gpu *g, uint64_t block_end)
{
    struct gpu_split *sp = g->split;
    uint64_t block_start = g->now, n = atomic_load_explicit(&sp->done, memory_order_relaxed) + 1;
    llc_split_begin(g->env.llc, block_start, block_end);
    sp->block_end = block_end;
    hand_over(sp, n);
    gpu_run_sms(g, block_start, block_end);
    unsigned spins = 0;
    while (atomic_load_explicit(&sp->done, memory_order_acquire) != n)
        pause_briefly(&spins);
    llc_split_end(g->env.llc);
}

void gpu_split_stop(struct gpu *g)
{
    struct gpu_split *sp = g->split;
    if (!sp)
        return;
    hand_over(sp, UINT64_MAX);
    pthread_join(sp->thread, NULL);
    pthread_mutex_destroy(&sp->lock);
    pthread_cond_destroy(&sp->wake);
    free(sp);
    g->split = NULL;
}

bool gpu_set_split(struct gpu *g, bool on)
{
    /* The quickest request (crossbar, one flit, LLC latency) must not be ready within the
     * block it was sent in: the slices would have to see it there. */
    const struct gpu_config *cfg = &g->cfg;
    if (!on || cfg->noc_latency_cycles + 1 + cfg->llc.latency_cycles < g->block) {
        gpu_split_stop(g);
        return !on;
    }
    return g->split || start(g);
}
