/* gpu — the simulated GPU: builds the parts, runs the clock domains and launches grids (its
 * partitions, mix changes and priority epochs are in gpu_mix.c, its checks in gpu_config.c,
 * its counters in gpu_counters.c). */
#include "gpu_internal.h"

#include "corun/kstate.h"
#include "corun/llc.h"
#include "corun/noc.h"
#include "corun/simenv.h"
#include "corun/sm.h"
#include "corun/util.h"
#include "corun/wake.h"

#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WAKE_SLOTS   1024
#define SM_BLOCK_MAX 8 /* cycles */

struct kstate *gpu_new_kstate(const struct gpu *g, const struct kernel_profile *p, unsigned k)
{
    struct kstate_sm_limits lim = gpu_sm_limits(&g->cfg);
    return kstate_new(p, k, g->cfg.llc.line_bytes, &lim, g->seed);
}

/* What every GPU made from now on starts with (gpu_set_default_fast_forward). */
static bool fast_forward_default = true;

/* Builds the parts of g (cfg, seed, nkernels and the kernels' states set) with SM reuse
 * histories of hist lines. */
static void build(struct gpu *g, unsigned hist)
{
    const struct gpu_config *cfg = &g->cfg;
    g->hist_lines = hist;
    struct sim_env *e = &g->env;
    e->cfg = &g->cfg;
    e->kernels = g->kernels;
    e->nkernels = g->nkernels;
    e->nsms = cfg->sms;
    e->sms = xcalloc(cfg->sms, sizeof(*e->sms));
    g->sms = e->sms;
    /* SM blocks must be shorter than the quickest reply (crossbar latency plus the reply's
     * port cycles), so no reply lands inside a block already run. */
    unsigned reply_cycles =
        cfg->noc_latency_cycles +
        (cfg->llc.line_bytes + cfg->noc_bytes_per_cycle - 1) / cfg->noc_bytes_per_cycle;
    g->block = reply_cycles < SM_BLOCK_MAX ? reply_cycles : SM_BLOCK_MAX;
    if (g->block < 1)
        g->block = 1;
    e->sm_wake = wake_new(cfg->sms, WAKE_SLOTS / 4, g->block);
    e->slice_wake = wake_new(cfg->llc_slices, WAKE_SLOTS, 1);
    e->noc = noc_new(cfg->sms, cfg->llc_slices, cfg->noc_bytes_per_cycle, cfg->noc_latency_cycles);
    e->llc = llc_new(&g->cfg, e);
    e->dram = dram_new(&g->cfg.dram, g->nkernels, llc_dram_done, e->llc);
    for (unsigned i = 0; i < cfg->sms; i++)
        e->sms[i] = sm_new(i, e, g->seed, hist);
    unsigned words = wake_words(e->sm_wake);
    if (wake_words(e->slice_wake) > words)
        words = wake_words(e->slice_wake);
    g->agents = xcalloc(words, sizeof(uint64_t));
    g->slice_agents = xcalloc(words, sizeof(uint64_t));
    e->sm_due = g->agents;
    e->sm_running = cfg->sms;
    g->partition = xmalloc(cfg->sms * sizeof(int));
    g->due = xmalloc(cfg->sms * sizeof(unsigned));
    for (unsigned i = 0; i < cfg->sms; i++)
        g->partition[i] = GPU_SM_IDLE;
    g->core_khz = (uint64_t)llround(cfg->core_clock_mhz * 1000);
    g->dram_khz = (uint64_t)llround(cfg->dram.clock_mhz * 1000);
    e->next_dram_tick = 0;
    e->sm_fast_forward = fast_forward_default;
    e->order_free = cfg->order_free;
    g->sm_rr_step = 1;
    g->prio.kernel = -1; /* and rr = 0: kernel 0 has the first turn */
}

struct gpu *gpu_new(const struct gpu_config *cfg, const struct kernel_profile *const *profiles,
                    unsigned nkernels, uint64_t seed, char *err, size_t errlen)
{
    if (gpu_config_check(cfg, err, errlen))
        return NULL;
    if (nkernels < 1 || nkernels > GPU_MAX_KERNELS) {
        gpu_fail(err, errlen, "%u kernels: expected 1..%d", nkernels, GPU_MAX_KERNELS);
        return NULL;
    }
    for (unsigned k = 0; k < nkernels; k++)
        if (gpu_profile_check(cfg, profiles[k], err, errlen))
            return NULL;

    struct gpu *g = xcalloc(1, sizeof(*g));
    g->cfg = *cfg;
    g->seed = seed;
    g->nkernels = nkernels;
    unsigned hist = 0;
    for (unsigned k = 0; k < nkernels; k++) {
        g->kernels[k] = gpu_new_kstate(g, profiles[k], k);
        if (g->kernels[k]->hist_lines > hist)
            hist = g->kernels[k]->hist_lines;
    }
    build(g, hist);
    return g;
}

struct gpu *gpu_new_shared(const struct gpu_config *cfg, unsigned nstreams, uint64_t seed,
                           char *err, size_t errlen)
{
    if (gpu_config_check(cfg, err, errlen))
        return NULL;
    if (nstreams < 1 || nstreams > GPU_MAX_STREAMS) {
        gpu_fail(err, errlen, "%u streams: expected 1..%d", nstreams, GPU_MAX_STREAMS);
        return NULL;
    }
    struct gpu *g = xcalloc(1, sizeof(*g));
    g->cfg = *cfg;
    g->seed = seed;
    g->nkernels = nstreams;
    build(g, 0);
    g->env.shared = true;
    g->env.order_free = false; /* shared dispatch keeps the ordered rules */
    for (unsigned s = 0; s < nstreams; s++)
        g->launched_at[s] = g->env.started_at[s] = UINT64_MAX;
    return g;
}

void gpu_delete(struct gpu *g)
{
    if (!g)
        return;
    gpu_split_stop(g); /* its thread first: it works on everything below */
    for (unsigned i = 0; i < g->cfg.sms; i++)
        sm_delete(g->sms[i]);
    free(g->sms);
    dram_delete(g->env.dram);
    llc_delete(g->env.llc);
    noc_delete(g->env.noc);
    wake_delete(g->env.sm_wake);
    wake_delete(g->env.slice_wake);
    for (unsigned k = 0; k < g->nkernels; k++)
        kstate_delete(g->kernels[k]);
    free(g->agents);
    free(g->slice_agents);
    free(g->partition);
    free(g->due);
    for (unsigned t = 0; t < GPU_MAX_THREADS; t++)
        sm_lane_delete(g->lanes[t]);
    free(g);
}

void gpu_set_dram_checking(struct gpu *g, bool on)
{
    dram_set_checking(g->env.dram, on);
}

void gpu_set_default_fast_forward(bool on)
{
    fast_forward_default = on;
}

bool gpu_default_fast_forward(void)
{
    return fast_forward_default;
}

void gpu_set_fast_forward(struct gpu *g, bool on)
{
    if (!on)
        for (unsigned i = 0; i < g->cfg.sms; i++)
            sm_touch(g->sms[i]);
    g->env.sm_fast_forward = on;
}

void gpu_set_sm_rotation_step(struct gpu *g, unsigned step)
{
    g->sm_rr_step = step % g->cfg.sms;
}

void gpu_set_reverse_stepping(struct gpu *g, bool on)
{
    g->sm_reverse = on;
}

uint64_t gpu_skipped_cycles(const struct gpu *g)
{
    return g->skipped;
}

int gpu_set_dram_scheduler(struct gpu *g, const char *name)
{
    return dram_set_scheduler(g->env.dram, name);
}

/* ---- running ---- */

unsigned gpu_due_sms(struct gpu *g, uint64_t block_start)
{
    struct sim_env *e = &g->env;
    e->sm_first = g->sm_rr;
    if (!wake_take(e->sm_wake, block_start, g->agents))
        return 0;
    unsigned n = 0;
    for (unsigned wi = 0; wi < wake_words(e->sm_wake); wi++)
        for (uint64_t bits = g->agents[wi]; bits; bits &= bits - 1)
            g->due[n++] = wi * 64 + (unsigned)__builtin_ctzll(bits);
    return n;
}

struct sm_lane *gpu_lane(struct gpu *g, unsigned t)
{
    if (!g->lanes[t])
        g->lanes[t] = sm_lane_new(g->cfg.sms);
    return g->lanes[t];
}

/* Order-free rules: the due SMs in any order (sm_block_done makes it not matter), then the
 * block's end. */
static void run_sms_order_free(struct gpu *g, uint64_t block_start, uint64_t block_end)
{
    struct sim_env *e = &g->env;
    unsigned n = gpu_due_sms(g, block_start);
    if (!n)
        return;
    struct sm_lane *lane = gpu_lane(g, 0);
    e->sm_phase = true;
    for (unsigned i = 0; i < n; i++)
        sm_run_block_in(g->sms[g->sm_reverse ? g->due[n - 1 - i] : g->due[i]], lane, block_end);
    e->sm_phase = false;
    sm_block_done(e, &lane, 1);
}

/* Runs the SMs due in the block [block_start, block_end), starting at SM g->sm_rr and
 * wrapping, so no SM always gets the crossbar ports first. */
void gpu_run_sms(struct gpu *g, uint64_t block_start, uint64_t block_end)
{
    struct sim_env *e = &g->env;
    if (e->order_free) {
        run_sms_order_free(g, block_start, block_end);
        return;
    }
    if (!wake_take(e->sm_wake, block_start, g->agents))
        return;
    unsigned n = g->cfg.sms, first = g->sm_rr;
    e->sm_first = first;
    for (unsigned pass = 0; pass < 2; pass++) {
        unsigned lo = pass ? 0 : first, hi = pass ? first : n;
        /* Read afresh for each SM: a sleeping SM woken for its turn joins (sm_touch). */
        for (unsigned a = lo; (a = util_next_bit(g->agents, a, hi)) < hi; a++) {
            e->sm_running = a;
            sm_run_block(g->sms[a], block_end);
        }
    }
    e->sm_running = n;
}

static void run_slices(struct gpu *g)
{
    struct sim_env *e = &g->env;
    if (!wake_take(e->slice_wake, g->now, g->slice_agents))
        return;
    for (unsigned wi = 0; wi < wake_words(e->slice_wake); wi++) {
        for (uint64_t bits = g->slice_agents[wi]; bits; bits &= bits - 1) {
            unsigned a = wi * 64 + (unsigned)__builtin_ctzll(bits);
            uint64_t next = llc_step(e->llc, a, g->now);
            if (next != UINT64_MAX)
                wake_at(e->slice_wake, a, g->now, next);
        }
    }
}

/* ---- skipping idle cycles ---- */

/* Core cycles from g->now, at most limit, over which the DRAM ticks only `quiet` times or
 * fewer: the largest n with dram_acc + n * dram_khz < (quiet + 1) * core_khz. Both are held
 * to 2^40 (18 minutes of a 1 GHz clock per jump), so no product here or in skip_cycles
 * overflows. */
static uint64_t dram_quiet_cycles(const struct gpu *g, uint64_t quiet, uint64_t limit)
{
    const uint64_t most = 1ull << 40;
    if (quiet > most)
        quiet = most;
    uint64_t n = ((quiet + 1) * g->core_khz - g->dram_acc - 1) / g->dram_khz;
    if (n > most)
        n = most;
    return n < limit ? n : limit;
}

/* Moves g over n >= 1 cycles in which no agent is due and the DRAM is quiet, leaving the DRAM
 * ticked and the clock accumulator as the per-cycle loop would. next_dram_tick needs nothing:
 * the loop sets it again in the next cycle it runs (a value in the past is recomputed, one in
 * the future is still the next tick's cycle). */
static void skip_cycles(struct gpu *g, uint64_t n)
{
    uint64_t acc = g->dram_acc + n * g->dram_khz;
    dram_skip_ticks(g->env.dram, acc / g->core_khz);
    g->dram_acc = acc % g->core_khz;
    g->now += n;
    g->env.now = g->now;
    g->skipped += n;
}

/* With no SM and no slice due anywhere, jumps over the whole blocks up to the DRAM's next
 * event other than an idle channel's refresh (or to end), rotating sm_rr once per block as
 * the block loop would. True when it moved. */
static bool skip_blocks(struct gpu *g, uint64_t end)
{
    if (!g->env.sm_fast_forward || !wake_empty(g->env.sm_wake) || !wake_empty(g->env.slice_wake))
        return false;
    uint64_t to = g->now + dram_quiet_cycles(g, dram_idle_ticks(g->env.dram), end - g->now);
    if (to < end)
        to = to / g->block * g->block;
    if (to <= g->now)
        return false;
    uint64_t blocks = 1 + ((to - 1) / g->block - g->now / g->block);
    g->sm_rr = (unsigned)((g->sm_rr + blocks % g->cfg.sms * g->sm_rr_step) % g->cfg.sms);
    skip_cycles(g, to - g->now);
    return true;
}

static void run_span(struct gpu *g, uint64_t core_cycles)
{
    struct sim_env *e = &g->env;
    uint64_t end = g->now + core_cycles;
    if (g->split && gpu_split_span(g, end))
        assert(g->now == end); /* the memory side's clock, on its thread, got there */
    while (g->now < end && !e->grid_done) {
        if (skip_blocks(g, end))
            continue;
        uint64_t block_end = (g->now / g->block + 1) * g->block;
        if (block_end > end)
            block_end = end;
        e->now = e->sm_block_start = g->now;
        e->sm_block_end = block_end;
        if (g->split) {
            gpu_split_block(g, block_end);
        } else {
            gpu_run_sms(g, g->now, block_end);
            gpu_run_memory(g, block_end);
        }
        g->sm_rr = (g->sm_rr + g->sm_rr_step) % g->cfg.sms;
    }
    if (gpu_split_memory(g))
        llc_split_stop(e->llc);
    e->now = e->sm_block_end = g->now;
    sm_count_lazy(e); /* the counters are read between runs */
}

/* The slices' and DRAM's cycles from g->now to block_end. */
void gpu_run_memory(struct gpu *g, uint64_t block_end)
{
    struct sim_env *e = &g->env;
    for (; g->now < block_end; g->now++) {
        /* Nothing for the slices in the wheel and a quiet DRAM: on to the next event. */
        if (e->sm_fast_forward && wake_empty(e->slice_wake)) {
            uint64_t quiet = dram_quiet_ticks(e->dram);
            uint64_t n = dram_quiet_cycles(g, quiet, block_end - g->now);
            if (n) {
                skip_cycles(g, n);
                if (g->now == block_end)
                    break;
            }
        }
        e->now = g->now;
        /* DRAM ticks at the end of this cycle when the accumulator passes a core period;
         * slices waiting for room in a DRAM queue retry in the cycle after. */
        if (g->dram_acc + g->dram_khz >= g->core_khz)
            e->next_dram_tick = g->now;
        else if (e->next_dram_tick <= g->now)
            e->next_dram_tick = g->now + (g->core_khz - g->dram_acc - 1) / g->dram_khz;
        run_slices(g);
        g->dram_acc += g->dram_khz;
        while (g->dram_acc >= g->core_khz) {
            g->dram_acc -= g->core_khz;
            dram_tick(e->dram);
        }
    }
}

void gpu_run(struct gpu *g, uint64_t core_cycles)
{
    uint64_t end = g->now + core_cycles;
    for (;;) {
        bool turn = g->prio.cycles && g->prio.next <= end;
        uint64_t stop = turn ? g->prio.next : end;
        if (stop > g->now)
            run_span(g, stop - g->now);
        if (!turn)
            return;
        gpu_prio_close(g);
        gpu_prio_next_turn(g);
    }
}

uint64_t gpu_now(const struct gpu *g)
{
    return g->now;
}

unsigned gpu_block_cycles(const struct gpu *g)
{
    return g->block;
}

unsigned gpu_sms(const struct gpu *g)
{
    return g->cfg.sms;
}

unsigned gpu_kernels(const struct gpu *g)
{
    return g->nkernels;
}

const struct gpu_config *gpu_config(const struct gpu *g)
{
    return &g->cfg;
}

/* ---- counters ---- */

void gpu_reset_counters(struct gpu *g)
{
    for (unsigned i = 0; i < g->cfg.sms; i++)
        sm_reset_counters(g->sms[i], g->now);
    for (unsigned k = 0; k < g->nkernels; k++)
        if (g->kernels[k])
            kstate_reset_counters(g->kernels[k]);
    dram_reset_counters(g->env.dram);
    llc_reset_counters(g->env.llc);
    int turn = g->prio.kernel;
    gpu_prio_close(g);
    memset(g->prio.acc_cycles, 0, sizeof(g->prio.acc_cycles));
    memset(g->prio.acc_l2, 0, sizeof(g->prio.acc_l2));
    memset(g->prio.acc_l2_misses, 0, sizeof(g->prio.acc_l2_misses));
    if (turn >= 0) { /* the turn goes on; only its counting restarts */
        uint64_t next = g->prio.next;
        gpu_prio_open(g, turn);
        g->prio.next = next;
    }
    g->epoch_start = g->now;
    g->epoch_dram_start = dram_now(g->env.dram);
}

/* ---- shared dispatch ---- */

int gpu_launch(struct gpu *g, unsigned s, const struct kernel_profile *p, char *err, size_t errlen)
{
    if (!g->env.shared)
        return gpu_fail(err, errlen, "gpu_launch needs a shared-dispatch GPU (gpu_new_shared)");
    if (s >= g->nkernels)
        return gpu_fail(err, errlen, "stream %u: the GPU has streams 0..%u", s, g->nkernels - 1);
    if (gpu_stream_busy(g, s))
        return gpu_fail(err, errlen, "stream %u still runs a grid of %s: launch when it completes",
                        s, g->kernels[s]->prof.name);
    if (p->nphases)
        return gpu_fail(err, errlen, "kernel %s has phases: launch each phase as a grid of its own",
                        p->name ? p->name : "(unnamed)");
    if (gpu_profile_check(&g->cfg, p, err, errlen))
        return -1;
    /* No SM holds the last grid's TBs or points at its state any more: it can go. Each grid
     * of a stream draws from its own PRNG stream, its data at the stream's addresses. */
    for (unsigned i = 0; i < g->cfg.sms; i++)
        assert(sm_attributed(g->sms[i]) != (int)s);
    kstate_delete(g->kernels[s]);
    struct kstate_sm_limits lim = gpu_sm_limits(&g->cfg);
    struct kstate *k = kstate_new(p, s, g->cfg.llc.line_bytes, &lim,
                                  g->seed + 0x9e3779b97f4a7c15ull * ++g->launches[s]);
    k->one_grid = true;
    k->launch_at = g->now + p->gap_cycles;
    g->kernels[s] = k;
    if (k->hist_lines > g->hist_lines) {
        for (unsigned i = 0; i < g->cfg.sms; i++)
            sm_grow_hist(g->sms[i], k->hist_lines);
        g->hist_lines = k->hist_lines;
    }
    g->launched_at[s] = g->now;
    g->env.started_at[s] = UINT64_MAX;
    assert(g->env.nfcfs < SIM_MAX_KERNELS);
    g->env.fcfs[g->env.nfcfs++] = s;
    sm_shared_dispatch(&g->env, g->now);
    return 0;
}

bool gpu_stream_busy(const struct gpu *g, unsigned s)
{
    return s < g->nkernels && g->kernels[s] && g->kernels[s]->launches == 0;
}

void gpu_stream_times(const struct gpu *g, unsigned s, uint64_t *launched, uint64_t *started,
                      uint64_t *done)
{
    bool ok = s < g->nkernels && g->kernels[s];
    *launched = ok ? g->launched_at[s] : UINT64_MAX;
    *started = ok ? g->env.started_at[s] : UINT64_MAX;
    *done = ok && g->kernels[s]->launches ? g->kernels[s]->first_launch_cycle : UINT64_MAX;
}

uint64_t gpu_run_shared(struct gpu *g, uint64_t core_cycles)
{
    uint64_t from = g->now;
    g->env.grid_done = false;
    run_span(g, core_cycles);
    g->env.grid_done = false;
    return g->now - from;
}
