/* gpu — the simulated GPU: builds the parts, runs the clock domains, applies partitions and
 * gathers counters. */
#include "corun/gpu.h"

#include "corun/kstate.h"
#include "corun/llc.h"
#include "corun/noc.h"
#include "corun/simenv.h"
#include "corun/sm.h"
#include "corun/util.h"
#include "corun/wake.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WAKE_SLOTS   1024
#define SM_BLOCK_MAX 8 /* cycles */

/* ASM's priority epochs (gpu_set_priority_epochs): one kernel at a time has the highest
 * priority at every memory controller, round robin over the kernels not retired, each for
 * `cycles` core cycles. */
struct gpu_prio {
    uint64_t cycles;                      /* epoch length; 0: off */
    uint64_t next;                        /* when the next kernel's turn starts */
    int kernel;                           /* prioritized now; -1: none */
    unsigned rr;                          /* the round robin looks here first for the next turn */
    uint64_t since, acc_at, miss_at;      /* the current turn's start within the counter epoch */
    uint64_t acc_cycles[SIM_MAX_KERNELS]; /* closed turns within the counter epoch */
    uint64_t acc_l2[SIM_MAX_KERNELS], acc_l2_misses[SIM_MAX_KERNELS];
};

_Static_assert(GPU_SM_IDLE == SM_OWNER_IDLE && GPU_SM_GATED == SM_OWNER_GATED,
               "partition entries are passed to the SMs as they are");
_Static_assert(SIM_MAX_KERNELS == DRAM_MAX_APPS, "each kernel is one DRAM application");
_Static_assert(GPU_MAX_KERNELS <= SIM_MAX_KERNELS && GPU_MAX_STREAMS <= SIM_MAX_KERNELS,
               "the parts size their arrays for SIM_MAX_KERNELS kernels");

struct gpu {
    struct gpu_config cfg;
    struct sim_env env;
    uint64_t seed;
    unsigned nkernels; /* over the run's life: retired kernels keep their index */
    struct kstate *kernels[SIM_MAX_KERNELS]; /* NULL: a stream that never launched */
    bool retired[SIM_MAX_KERNELS];
    uint64_t launched_at[SIM_MAX_KERNELS]; /* shared dispatch: the stream's last launch */
    uint64_t launches[SIM_MAX_KERNELS];    /* shared dispatch: grids launched per stream */
    unsigned hist_lines;                   /* the SMs' reuse history capacity */
    struct sm **sms;
    int *partition;
    uint64_t *agents; /* scratch bit set for wake_take */
    unsigned sm_rr;   /* first SM run in a block: rotates so no SM always wins ports */
    unsigned block;   /* SM block length, cycles */

    uint64_t now;
    uint64_t core_khz, dram_khz, dram_acc; /* DRAM ticks when the accumulator passes core_khz */
    uint64_t epoch_start, epoch_dram_start;
    struct gpu_prio prio;
};

double gpu_config_peak_gbs(const struct gpu_config *cfg)
{
    return dram_config_peak_gbs(&cfg->dram);
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int check_cache(const char *name, const struct cache_config *c, bool line128, char *err,
                       size_t errlen)
{
    if (c->line_bytes == 0 || (line128 && c->line_bytes != 128))
        return fail(err, errlen, "%s.line_bytes is %u: the core models 128-byte lines", name,
                    c->line_bytes);
    if (c->ways == 0 || c->size_bytes == 0 || c->size_bytes % (c->ways * c->line_bytes))
        return fail(err, errlen,
                    "%s: size_bytes (%u) must be a positive multiple of ways (%u) x line_bytes",
                    name, c->size_bytes, c->ways);
    return 0;
}

int gpu_config_check(const struct gpu_config *cfg, char *err, size_t errlen)
{
    if (cfg->sms < 1 || cfg->sms > 1024)
        return fail(err, errlen, "sms is %u: expected 1..1024", cfg->sms);
    if (!(cfg->core_clock_mhz > 0) || !(cfg->dram.clock_mhz > 0))
        return fail(err, errlen, "core_clock_mhz and dram.clock_mhz must be positive");
    if (cfg->warps_per_sm < 1 || cfg->warps_per_sm > SM_MAX_WARPS)
        return fail(err, errlen, "warps_per_sm is %u: expected 1..%d", cfg->warps_per_sm,
                    SM_MAX_WARPS);
    if (cfg->tbs_per_sm < 1 || cfg->tbs_per_sm > SM_MAX_TBS)
        return fail(err, errlen, "tbs_per_sm is %u: expected 1..%d", cfg->tbs_per_sm, SM_MAX_TBS);
    if (cfg->schedulers_per_sm < 1 || cfg->schedulers_per_sm > SM_MAX_SCHEDULERS)
        return fail(err, errlen, "schedulers_per_sm is %u: expected 1..%d", cfg->schedulers_per_sm,
                    SM_MAX_SCHEDULERS);
    if (cfg->alu_latency_cycles < 1 || cfg->alu_latency_cycles > SM_MAX_DEP_LATENCY)
        return fail(err, errlen, "alu_latency_cycles is %u: expected 1..%d",
                    cfg->alu_latency_cycles, SM_MAX_DEP_LATENCY);
    const struct {
        const char *name;
        const struct unit_config *u;
    } units[] = {{"sfu", &cfg->sfu}, {"fp64", &cfg->fp64}, {"shmem", &cfg->shmem}};
    for (size_t i = 0; i < CORUN_ARRAY_LEN(units); i++) {
        const struct unit_config *u = units[i].u;
        if (u->lanes < 1 || u->lanes > 1024)
            return fail(err, errlen, "%s.lanes is %u: expected 1..1024", units[i].name, u->lanes);
        if (u->latency_cycles < 1 || u->latency_cycles > SM_UNIT_MAX_LATENCY)
            return fail(err, errlen, "%s.latency_cycles is %u: expected 1..%d", units[i].name,
                        u->latency_cycles, SM_UNIT_MAX_LATENCY);
    }
    /* The constant cache's line size only sets its capacity in lines: constant loads move
     * 128-byte lines like every other request. */
    if (check_cache("l1d", &cfg->l1d, true, err, errlen) ||
        check_cache("l1c", &cfg->l1c, false, err, errlen))
        return -1;
    if (cfg->llc_slices < 1 || cfg->llc.size_bytes % cfg->llc_slices)
        return fail(err, errlen, "llc_slices is %u: expected >= 1 and dividing llc.size_bytes",
                    cfg->llc_slices);
    struct cache_config slice = cfg->llc;
    slice.size_bytes /= cfg->llc_slices;
    if (check_cache("llc (one slice)", &slice, true, err, errlen))
        return -1;
    if (cfg->llc.mshrs < 1)
        return fail(err, errlen, "llc.mshrs is 0: expected at least 1 per slice");
    if (cfg->noc_bytes_per_cycle < 1)
        return fail(err, errlen, "noc_bytes_per_cycle is 0: expected at least 1");
    if (cfg->context_switch_bytes_per_cycle < 1)
        return fail(err, errlen, "context_switch_bytes_per_cycle is 0: expected at least 1");
    /* Every cache line the model keeps costs host memory: bound the whole GPU's. */
    uint64_t lines = (uint64_t)cfg->sms * (cfg->l1d.size_bytes / cfg->l1d.line_bytes +
                                           cfg->l1c.size_bytes / cfg->l1c.line_bytes) +
                     cfg->llc.size_bytes / cfg->llc.line_bytes;
    if (lines > GPU_MAX_CACHE_LINES)
        return fail(err, errlen,
                    "the caches hold %llu lines over %u SMs: expected at most %llu (the model "
                    "keeps every line in memory; make l1d, l1c or llc smaller)",
                    (unsigned long long)lines, cfg->sms, (unsigned long long)GPU_MAX_CACHE_LINES);
    const struct dram_config *d = &cfg->dram;
    if (dram_config_check(d, err, errlen))
        return -1;
    if (d->request_bytes != cfg->llc.line_bytes)
        return fail(err, errlen, "dram.request_bytes is %u: must equal the LLC line (%u B)",
                    d->request_bytes, cfg->llc.line_bytes);
    return 0;
}

static struct kstate_sm_limits gpu_sm_limits(const struct gpu_config *cfg)
{
    unsigned tbs = cfg->tbs_per_sm < SM_MAX_TBS ? cfg->tbs_per_sm : SM_MAX_TBS;
    unsigned warps = cfg->warps_per_sm < SM_MAX_WARPS ? cfg->warps_per_sm : SM_MAX_WARPS;
    return (struct kstate_sm_limits){tbs, warps, cfg->regs_per_sm, cfg->smem_per_sm_bytes};
}

unsigned gpu_occupancy(const struct gpu_config *cfg, const struct kernel_profile *p,
                       const char **limit)
{
    struct kstate_sm_limits lim = gpu_sm_limits(cfg);
    return kstate_occupancy(p, &lim, limit);
}

int gpu_profile_check(const struct gpu_config *cfg, const struct kernel_profile *p, char *err,
                      size_t errlen)
{
    const char *n = p->name ? p->name : "(unnamed)";
    if (p->nphases > KERNEL_MAX_PHASES)
        return fail(err, errlen, "kernel %s: %u phases: expected at most %d", n, p->nphases,
                    KERNEL_MAX_PHASES);
    for (unsigned i = 0; i < p->nphases; i++) {
        struct kernel_profile q;
        kernel_phase_profile(p, i, &q);
        q.nphases = 0;
        char sub[512];
        if (gpu_profile_check(cfg, &q, sub, sizeof sub) != 0)
            return fail(err, errlen, "%s (in phase %u)", sub, i + 1);
    }
    if (p->tbs < 1 || p->warps_per_tb < 1 || p->insts_per_warp < 1)
        return fail(err, errlen, "kernel %s: tbs, warps_per_tb and insts_per_warp must be positive",
                    n);
    if (p->warps_per_tb > cfg->warps_per_sm)
        return fail(err, errlen, "kernel %s: warps_per_tb is %u but an SM holds %u warps", n,
                    p->warps_per_tb, cfg->warps_per_sm);
    if (p->tbs_per_sm > SM_MAX_TBS)
        return fail(err, errlen, "kernel %s: tbs_per_sm is %u: expected 0..%d", n, p->tbs_per_sm,
                    SM_MAX_TBS);
    struct kstate_sm_limits lim = gpu_sm_limits(cfg);
    const char *limit;
    if (kstate_occupancy(p, &lim, &limit) == 0)
        return fail(err, errlen,
                    "kernel %s: no thread block fits on an SM (%s: %u registers per thread, "
                    "%u B of shared memory per block; an SM has %u registers and %u B)",
                    n, limit, p->regs_per_thread, p->smem_per_tb_bytes, cfg->regs_per_sm,
                    cfg->smem_per_sm_bytes);
    const double fr[] = {p->mem_fraction, p->const_fraction, p->sfu_fraction, p->fp64_fraction,
                         p->shared_fraction};
    double sum = 0;
    for (size_t i = 0; i < CORUN_ARRAY_LEN(fr); i++) {
        if (!(fr[i] >= 0 && fr[i] <= 1))
            return fail(err, errlen, "kernel %s: instruction fractions must lie in [0, 1]", n);
        sum += fr[i];
    }
    if (!(sum <= 1))
        return fail(err, errlen,
                    "kernel %s: mem_fraction + const_fraction + sfu_fraction + fp64_fraction + "
                    "shared_fraction is %g: expected at most 1",
                    n, sum);
    if (p->pattern != KERNEL_PATTERN_LEGACY && p->footprint_bytes >= KSTATE_CONST_OFFSET / 2)
        return fail(err, errlen,
                    "kernel %s: footprint_bytes must be below 2^38 with a per-TB pattern "
                    "(the output array sits above it)",
                    n);
    if ((p->pattern == KERNEL_PATTERN_STRIDED || p->pattern == KERNEL_PATTERN_STENCIL) &&
        p->stride_lines == 0)
        return fail(err, errlen, "kernel %s: the %s pattern needs stride_lines (at least 1)", n,
                    p->pattern == KERNEL_PATTERN_STRIDED ? "strided" : "stencil");
    if (!(p->hot_fraction >= 0 && p->hot_fraction <= 1))
        return fail(err, errlen, "kernel %s: hot_fraction must lie in [0, 1]", n);
    if (p->shared_conflict_ways > 32)
        return fail(err, errlen, "kernel %s: shared_conflict_ways is %u: expected 0..32", n,
                    p->shared_conflict_ways);
    if (!(p->store_fraction >= 0 && p->store_fraction <= 1) ||
        !(p->reuse_fraction >= 0 && p->reuse_fraction <= 1))
        return fail(err, errlen,
                    "kernel %s: store_fraction and reuse_fraction must lie in "
                    "[0, 1]",
                    n);
    if (!(p->lines_per_access >= 1 && p->lines_per_access <= SM_MAX_LINES))
        return fail(err, errlen, "kernel %s: lines_per_access is %g: expected 1..%d", n,
                    p->lines_per_access, SM_MAX_LINES);
    if (p->mlp < 1 || p->mlp > SM_MAX_MLP)
        return fail(err, errlen, "kernel %s: mlp is %u: expected 1..%d", n, p->mlp, SM_MAX_MLP);
    if (p->dep_latency > SM_MAX_DEP_LATENCY)
        return fail(err, errlen, "kernel %s: dep_latency is %u: expected 0..%d", n, p->dep_latency,
                    SM_MAX_DEP_LATENCY);
    if (p->footprint_bytes < cfg->llc.line_bytes || p->footprint_bytes >= KSTATE_CONST_OFFSET)
        return fail(err, errlen, "kernel %s: footprint_bytes must lie in [%u, 2^39)", n,
                    cfg->llc.line_bytes);
    if (p->seq_run_lines < 1)
        return fail(err, errlen, "kernel %s: seq_run_lines must be at least 1", n);
    return 0;
}

/* Kernel k's run-time state: gpu_new and gpu_add_kernel build it alike, so a kernel's address
 * stream depends on its index and the seed only. */
static struct kstate *new_kstate(const struct gpu *g, const struct kernel_profile *p, unsigned k)
{
    struct kstate_sm_limits lim = gpu_sm_limits(&g->cfg);
    return kstate_new(p, k, g->cfg.llc.line_bytes, &lim, g->seed);
}

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
    e->sm_due = g->agents;
    e->sm_running = cfg->sms;
    g->partition = xmalloc(cfg->sms * sizeof(int));
    for (unsigned i = 0; i < cfg->sms; i++)
        g->partition[i] = GPU_SM_IDLE;
    g->core_khz = (uint64_t)llround(cfg->core_clock_mhz * 1000);
    g->dram_khz = (uint64_t)llround(cfg->dram.clock_mhz * 1000);
    e->next_dram_tick = 0;
    e->sm_fast_forward = true;
    g->prio.kernel = -1; /* and rr = 0: kernel 0 has the first turn */
}

struct gpu *gpu_new(const struct gpu_config *cfg, const struct kernel_profile *const *profiles,
                    unsigned nkernels, uint64_t seed, char *err, size_t errlen)
{
    if (gpu_config_check(cfg, err, errlen))
        return NULL;
    if (nkernels < 1 || nkernels > GPU_MAX_KERNELS) {
        fail(err, errlen, "%u kernels: expected 1..%d", nkernels, GPU_MAX_KERNELS);
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
        g->kernels[k] = new_kstate(g, profiles[k], k);
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
        fail(err, errlen, "%u streams: expected 1..%d", nstreams, GPU_MAX_STREAMS);
        return NULL;
    }
    struct gpu *g = xcalloc(1, sizeof(*g));
    g->cfg = *cfg;
    g->seed = seed;
    g->nkernels = nstreams;
    build(g, 0);
    g->env.shared = true;
    for (unsigned s = 0; s < nstreams; s++)
        g->launched_at[s] = g->env.started_at[s] = UINT64_MAX;
    return g;
}

void gpu_delete(struct gpu *g)
{
    if (!g)
        return;
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
    free(g->partition);
    free(g);
}

void gpu_set_dram_checking(struct gpu *g, bool on)
{
    dram_set_checking(g->env.dram, on);
}

void gpu_set_fast_forward(struct gpu *g, bool on)
{
    if (!on)
        for (unsigned i = 0; i < g->cfg.sms; i++)
            sm_touch(g->sms[i]);
    g->env.sm_fast_forward = on;
}

int gpu_set_dram_scheduler(struct gpu *g, const char *name)
{
    return dram_set_scheduler(g->env.dram, name);
}

/* ---- priority epochs ---- */

/* Ends the prioritized kernel's turn (if any) at g->now: its cycles and LLC traffic so far
 * go to its totals for the counter epoch. */
static void prio_close(struct gpu *g)
{
    struct gpu_prio *p = &g->prio;
    if (p->kernel < 0)
        return;
    const struct kstate_counters *c = &g->kernels[p->kernel]->c;
    p->acc_cycles[p->kernel] += g->now - p->since;
    p->acc_l2[p->kernel] += c->l2_accesses - p->acc_at;
    p->acc_l2_misses[p->kernel] += c->l2_misses - p->miss_at;
    p->kernel = -1;
}

/* Starts kernel k's turn at g->now (k < 0: nobody's). */
static void prio_open(struct gpu *g, int k)
{
    struct gpu_prio *p = &g->prio;
    p->kernel = k;
    p->since = g->now;
    if (k >= 0) {
        p->rr = (unsigned)k + 1;
        p->acc_at = g->kernels[k]->c.l2_accesses;
        p->miss_at = g->kernels[k]->c.l2_misses;
        p->next = g->now + p->cycles;
    }
    dram_set_priority_app(g->env.dram, k >= 0 ? (unsigned)k : DRAM_APP_NONE);
}

/* Starts the next turn of the round robin at g->now, skipping retired kernels. With every
 * kernel retired nobody has it, and the round robin looks again a turn later (a kernel may
 * have joined by then). */
static void prio_next_turn(struct gpu *g)
{
    struct gpu_prio *p = &g->prio;
    for (unsigned i = 0; i < g->nkernels; i++) {
        unsigned k = (p->rr + i) % g->nkernels;
        if (!g->retired[k]) {
            prio_open(g, (int)k);
            return;
        }
    }
    prio_open(g, -1);
    p->next = g->now + p->cycles;
}

void gpu_set_priority_epochs(struct gpu *g, uint64_t core_cycles)
{
    struct gpu_prio *p = &g->prio;
    if (g->env.shared)
        return; /* no kernel stays long enough for turns to mean anything */
    prio_close(g);
    p->cycles = core_cycles;
    if (core_cycles)
        prio_next_turn(g);
    else
        prio_open(g, -1);
}

int gpu_priority_kernel(const struct gpu *g)
{
    return g->prio.kernel;
}

/* ---- partition ---- */

void gpu_partition_even(unsigned sms, unsigned nkernels, int *owner_out)
{
    unsigned i = 0;
    for (unsigned k = 0; k < nkernels; k++) {
        unsigned n = sms / nkernels + (k < sms % nkernels);
        for (unsigned j = 0; j < n; j++)
            owner_out[i++] = (int)k;
    }
}

int gpu_set_partition(struct gpu *g, const int *owner_per_sm, size_t n, enum gpu_switch_mode mode,
                      char *err, size_t errlen)
{
    if (g->env.shared)
        return fail(err, errlen, "a shared-dispatch GPU has no partition");
    if (n != g->cfg.sms)
        return fail(err, errlen, "partition has %zu entries: the GPU has %u SMs", n, g->cfg.sms);
    for (size_t i = 0; i < n; i++) {
        int o = owner_per_sm[i];
        if (o != GPU_SM_IDLE && o != GPU_SM_GATED && (o < 0 || o >= (int)g->nkernels))
            return fail(err, errlen,
                        "SM %zu is given to kernel %d: expected 0..%u, idle (%d) or gated (%d)", i,
                        o, g->nkernels - 1, GPU_SM_IDLE, GPU_SM_GATED);
        if (o >= 0 && g->retired[o])
            return fail(err, errlen,
                        "SM %zu is given to kernel %d (%s), which was retired from the mix: "
                        "give it to a kernel still in the mix, idle (%d) or gated (%d)",
                        i, o, g->kernels[o]->prof.name, GPU_SM_IDLE, GPU_SM_GATED);
    }
    if (mode != GPU_SWITCH_DRAIN && mode != GPU_SWITCH_CONTEXT && mode != GPU_SWITCH_ADAPTIVE)
        return fail(err, errlen, "unknown switch mode %d", (int)mode);
    for (size_t i = 0; i < n; i++) {
        struct sm *sm = g->sms[i];
        enum sm_switch how = mode == GPU_SWITCH_CONTEXT ? SM_SWITCH_SAVE : SM_SWITCH_DRAIN;
        int run = sm_attributed(sm);
        if (mode == GPU_SWITCH_ADAPTIVE && run >= 0) {
            /* HSM: drain when the SM finished more TBs in the epoch than it holds at once
             * (its TBs are short, draining is quick); otherwise context-switch. The epoch is
             * the current one, or the previous one when the caller reset counters first. */
            uint64_t done =
                g->now > g->epoch_start ? sm_tbs_finished(sm) : sm_tbs_finished_prev(sm);
            how = done > g->kernels[run]->occupancy ? SM_SWITCH_DRAIN : SM_SWITCH_SAVE;
        }
        g->partition[i] = owner_per_sm[i];
        sm_set_owner(sm, owner_per_sm[i], how, g->now);
    }
    for (unsigned k = 0; k < g->nkernels; k++)
        sm_dispatch(&g->env, g->kernels[k], g->now);
    return 0;
}

void gpu_get_partition(const struct gpu *g, int *owner_out)
{
    memcpy(owner_out, g->partition, g->cfg.sms * sizeof(int));
}

/* ---- mix changes ---- */

int gpu_add_kernel(struct gpu *g, const struct kernel_profile *profile, char *err, size_t errlen)
{
    const char *name = profile->name ? profile->name : "(unnamed)";
    if (g->env.shared)
        return fail(err, errlen,
                    "cannot add kernel %s: a shared-dispatch GPU launches grids on "
                    "its streams (gpu_launch)",
                    name);
    if (g->nkernels >= GPU_MAX_KERNELS)
        return fail(err, errlen,
                    "cannot add kernel %s: the GPU has run %u kernels, the limit "
                    "(GPU_MAX_KERNELS = %d, retired ones included)",
                    name, g->nkernels, GPU_MAX_KERNELS);
    if (gpu_profile_check(&g->cfg, profile, err, errlen))
        return -1;
    unsigned k = g->nkernels;
    g->kernels[k] = new_kstate(g, profile, k);
    /* SMs hold one reuse history, sized for the largest window; a longer one grows them all
     * now, keeping what they hold, so the kernels they run see the same lines. */
    unsigned hist = g->kernels[k]->hist_lines;
    if (hist > g->hist_lines) {
        for (unsigned i = 0; i < g->cfg.sms; i++)
            sm_grow_hist(g->sms[i], hist);
        g->hist_lines = hist;
    }
    unsigned app = dram_add_app(g->env.dram);
    assert(app == k);
    (void)app;
    g->nkernels = k + 1;
    g->env.nkernels = k + 1;
    return (int)k;
}

int gpu_retire_kernel(struct gpu *g, unsigned k, char *err, size_t errlen)
{
    if (g->env.shared)
        return fail(err, errlen, "a shared-dispatch GPU retires no kernel");
    if (k >= g->nkernels)
        return fail(err, errlen, "cannot retire kernel %u: the GPU has kernels 0..%u", k,
                    g->nkernels - 1);
    const char *name = g->kernels[k]->prof.name;
    if (g->retired[k])
        return fail(err, errlen, "kernel %u (%s) was retired already", k, name);
    unsigned owned = 0;
    for (unsigned i = 0; i < g->cfg.sms; i++)
        owned += g->partition[i] == (int)k;
    if (owned)
        return fail(err, errlen,
                    "cannot retire kernel %u (%s): it owns %u SMs; give them to other kernels "
                    "(or idle/gate them) with gpu_set_partition first",
                    k, name, owned);
    g->retired[k] = true;
    /* Its turn of priority ends here; the next turn starts when this one would have ended. */
    if (g->prio.kernel == (int)k) {
        prio_close(g);
        prio_open(g, -1);
    }
    return 0;
}

bool gpu_kernel_retired(const struct gpu *g, unsigned k)
{
    return k < g->nkernels && g->retired[k];
}

/* ---- running ---- */

/* Runs the SMs due in the block [g->now, block_end), starting at SM g->sm_rr and wrapping, so
 * no SM always gets the crossbar ports first. */
static void run_sms(struct gpu *g, uint64_t block_end)
{
    struct sim_env *e = &g->env;
    if (!wake_take(e->sm_wake, g->now, g->agents))
        return;
    unsigned n = g->cfg.sms, first = g->sm_rr;
    e->sm_first = first;
    for (unsigned pass = 0; pass < 2; pass++) {
        unsigned lo = pass ? 0 : first, hi = pass ? first : n;
        for (unsigned a = lo; a < hi;) {
            uint64_t bits = g->agents[a / 64] >> (a % 64);
            if (!bits) {
                a = (a / 64 + 1) * 64;
                continue;
            }
            a += (unsigned)__builtin_ctzll(bits);
            if (a >= hi)
                break;
            e->sm_running = a;
            sm_run_block(g->sms[a], block_end);
            a++;
        }
    }
    e->sm_running = n;
}

static void run_slices(struct gpu *g)
{
    struct sim_env *e = &g->env;
    if (!wake_take(e->slice_wake, g->now, g->agents))
        return;
    for (unsigned wi = 0; wi < wake_words(e->slice_wake); wi++) {
        for (uint64_t bits = g->agents[wi]; bits; bits &= bits - 1) {
            unsigned a = wi * 64 + (unsigned)__builtin_ctzll(bits);
            uint64_t next = llc_step(e->llc, a, g->now);
            if (next != UINT64_MAX)
                wake_at(e->slice_wake, a, g->now, next);
        }
    }
}

static void run_span(struct gpu *g, uint64_t core_cycles)
{
    struct sim_env *e = &g->env;
    uint64_t end = g->now + core_cycles;
    while (g->now < end && !e->grid_done) {
        uint64_t block_end = (g->now / g->block + 1) * g->block;
        if (block_end > end)
            block_end = end;
        e->now = g->now;
        e->sm_block_end = block_end;
        run_sms(g, block_end);
        g->sm_rr = g->sm_rr + 1 < g->cfg.sms ? g->sm_rr + 1 : 0;
        for (; g->now < block_end; g->now++) {
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
    e->now = e->sm_block_end = g->now;
    sm_count_lazy(e); /* the counters are read between runs */
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
        prio_close(g);
        prio_next_turn(g);
    }
}

uint64_t gpu_now(const struct gpu *g)
{
    return g->now;
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
    prio_close(g);
    memset(g->prio.acc_cycles, 0, sizeof(g->prio.acc_cycles));
    memset(g->prio.acc_l2, 0, sizeof(g->prio.acc_l2));
    memset(g->prio.acc_l2_misses, 0, sizeof(g->prio.acc_l2_misses));
    if (turn >= 0) { /* the turn goes on; only its counting restarts */
        uint64_t next = g->prio.next;
        prio_open(g, turn);
        g->prio.next = next;
    }
    g->epoch_start = g->now;
    g->epoch_dram_start = dram_now(g->env.dram);
}

static double seconds(const struct gpu *g, uint64_t core_cycles)
{
    return (double)core_cycles / (g->cfg.core_clock_mhz * 1e6);
}

void gpu_kernel_counters(const struct gpu *g, unsigned k, struct gpu_kernel_counters *out)
{
    memset(out, 0, sizeof(*out));
    if (k >= g->nkernels || !g->kernels[k])
        return;
    const struct kstate *ks = g->kernels[k];
    const struct kstate_counters *c = &ks->c;
    out->cycles = g->now - g->epoch_start;
    out->instructions = c->insts;
    uint64_t sm_cycles = c->sm_cycles;
    for (unsigned i = 0; i < g->cfg.sms; i++) {
        const struct sm *sm = g->sms[i];
        if (sm_attributed(sm) == (int)k) {
            sm_cycles += g->now - sm_attributed_since(sm);
            out->active_sms++;
        }
        if (g->partition[i] == (int)k)
            out->owned_sms++;
    }
    out->sms = out->cycles ? (double)sm_cycles / (double)out->cycles : 0;
    out->ipc = out->cycles ? (double)c->insts / (double)out->cycles : 0;
    out->l1d_accesses = c->l1d_accesses;
    out->l1d_misses = c->l1d_misses;
    out->l1c_accesses = c->l1c_accesses;
    out->l1c_misses = c->l1c_misses;
    out->l2_accesses = c->l2_accesses;
    out->l2_misses = c->l2_misses;

    struct dram_app_counters d;
    dram_app_counters(g->env.dram, k, &d);
    out->dram_reads = d.reads;
    out->dram_writes = d.writes;
    out->dram_requests = d.reads + d.writes;
    out->row_hits = d.row_hits;
    out->row_accesses = d.row_hits + d.row_misses + d.row_conflicts;
    out->activates = d.activates;
    out->dram_bytes = d.bytes;
    out->rbh = out->row_accesses ? (double)d.row_hits / (double)out->row_accesses : 0;
    double secs = seconds(g, out->cycles);
    out->bandwidth_gbs = secs > 0 ? (double)d.bytes / secs / 1e9 : 0;
    double peak = gpu_config_peak_gbs(&g->cfg);
    out->bandwidth_util = peak > 0 ? out->bandwidth_gbs / peak : 0;
    out->dram_queue_cycles = d.queue_cycles;
    out->dram_interference_cycles = d.interference_cycles;
    struct llc_atd_counters atd;
    llc_atd_counters(g->env.llc, k, &atd);
    out->atd_accesses = atd.accesses;
    out->atd_misses = atd.misses;
    out->atd_shared_misses = atd.shared_misses;

    const struct gpu_prio *p = &g->prio;
    out->prio_cycles = p->acc_cycles[k];
    out->prio_l2_accesses = p->acc_l2[k];
    out->prio_l2_misses = p->acc_l2_misses[k];
    if (p->kernel == (int)k) {
        out->prio_cycles += g->now - p->since;
        out->prio_l2_accesses += c->l2_accesses - p->acc_at;
        out->prio_l2_misses += c->l2_misses - p->miss_at;
    }

    out->tbs_finished = c->tbs_finished;
    out->sfu_instructions = c->sfu_insts;
    out->fp64_instructions = c->fp64_insts;
    out->shared_instructions = c->shared_insts;
    out->barriers = c->barriers;
    out->occupancy_tbs = g->kernels[k]->occupancy;
    out->phase = g->kernels[k]->phase;
    out->tbs_saved = c->tbs_saved;
    out->tbs_restored = c->tbs_restored;
    out->launches = ks->launches;
    out->instructions_total = ks->insts_total;
    out->first_launch_cycle = ks->first_launch_cycle;
    out->first_launch_instructions = ks->first_launch_insts;

    out->energy_static_j = g->cfg.sm_static_watts * seconds(g, sm_cycles);
    out->energy_dynamic_j = (double)c->insts * g->cfg.inst_energy_nj * 1e-9;
    out->energy_dram_j = ((double)d.activates * g->cfg.dram_activate_nj +
                          (double)(d.reads + d.writes) * g->cfg.dram_burst_nj) *
                         1e-9;
    out->energy_j = out->energy_static_j + out->energy_dynamic_j + out->energy_dram_j;
}

void gpu_system_counters(const struct gpu *g, struct gpu_system_counters *out)
{
    memset(out, 0, sizeof(*out));
    out->cycles = g->now - g->epoch_start;
    for (unsigned i = 0; i < g->cfg.sms; i++) {
        const struct sm *sm = g->sms[i];
        uint64_t open = g->now - sm_attributed_since(sm);
        out->idle_sm_cycles += sm_idle_cycles(sm) + (sm_attributed(sm) == GPU_SM_IDLE ? open : 0);
        out->gated_sm_cycles +=
            sm_gated_cycles(sm) + (sm_attributed(sm) == GPU_SM_GATED ? open : 0);
    }
    out->energy_j = g->cfg.sm_static_watts * seconds(g, out->idle_sm_cycles);
    for (unsigned k = 0; k < g->nkernels; k++) {
        struct gpu_kernel_counters kc;
        gpu_kernel_counters(g, k, &kc);
        out->energy_j += kc.energy_j;
    }
}

void gpu_channel_counters(const struct gpu *g, unsigned channel, struct gpu_channel_counters *out)
{
    memset(out, 0, sizeof(*out));
    if (channel >= g->cfg.dram.channels)
        return;
    dram_channel_counters(g->env.dram, channel, &out->c);
    out->mem_cycles = dram_now(g->env.dram) - g->epoch_dram_start;
    out->utilization =
        out->mem_cycles ? (double)out->c.data_busy_cycles / (double)out->mem_cycles : 0;
}

uint64_t gpu_sm_tbs_finished(const struct gpu *g, unsigned sm)
{
    return sm < g->cfg.sms ? sm_tbs_finished(g->sms[sm]) : 0;
}

int gpu_sm_running(const struct gpu *g, unsigned sm)
{
    return sm < g->cfg.sms ? sm_attributed(g->sms[sm]) : GPU_SM_IDLE;
}

uint64_t gpu_kernel_instructions_total(const struct gpu *g, unsigned k)
{
    return k < g->nkernels && g->kernels[k] ? g->kernels[k]->insts_total : 0;
}

unsigned gpu_sm_resident_tbs(const struct gpu *g, unsigned sm)
{
    return sm < g->cfg.sms ? sm_resident_tbs(g->sms[sm]) : 0;
}

/* ---- shared dispatch ---- */

int gpu_launch(struct gpu *g, unsigned s, const struct kernel_profile *p, char *err, size_t errlen)
{
    if (!g->env.shared)
        return fail(err, errlen, "gpu_launch needs a shared-dispatch GPU (gpu_new_shared)");
    if (s >= g->nkernels)
        return fail(err, errlen, "stream %u: the GPU has streams 0..%u", s, g->nkernels - 1);
    if (gpu_stream_busy(g, s))
        return fail(err, errlen, "stream %u still runs a grid of %s: launch when it completes", s,
                    g->kernels[s]->prof.name);
    if (p->nphases)
        return fail(err, errlen, "kernel %s has phases: launch each phase as a grid of its own",
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
