/* solo — private-mode traces, the true-NP oracle and solo characterization. */
#include "corun/solo.h"
#include "corun_sim_id.h"

#include "corun/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct solo_trace {
    struct solo_key key;
    struct gpu_config cfg;
    struct kernel_profile prof; /* copy; name and description owned */
    /* The private run, kept to extend the trace: it has made the first `made` samples. A
     * loaded trace has none yet (NULL) and is simulated again from its start when it must be
     * extended, or caught up with ahead of that (solo_trace_catch_up). */
    struct gpu *gpu;
    size_t made;
    uint64_t *insts;
    size_t n, cap;
};

struct solo_cache {
    struct solo_trace **t;
    size_t n, cap;
};

static void h_cache(uint64_t *h, const struct cache_config *c)
{
    util_hash_u64(h, c->size_bytes);
    util_hash_u64(h, c->ways);
    util_hash_u64(h, c->line_bytes);
    util_hash_u64(h, c->mshrs);
    util_hash_u64(h, c->latency_cycles);
}

uint64_t solo_config_hash(const struct gpu_config *c)
{
    uint64_t h = UTIL_HASH_START;
    util_hash_u64(&h, CORUN_SIM_ID); /* another simulator makes another trace of the same GPU */
    if (!gpu_default_fast_forward())
        util_hash_u64(&h, 0x6e6f2d6666ull); /* stepped cycle by cycle: traces of their own */
    util_hash_u64(&h, c->sms);
    util_hash_double(&h, c->core_clock_mhz);
    util_hash_u64(&h, c->warps_per_sm);
    util_hash_u64(&h, c->tbs_per_sm);
    util_hash_u64(&h, c->schedulers_per_sm);
    util_hash_u64(&h, c->regs_per_sm);
    util_hash_u64(&h, c->smem_per_sm_bytes);
    util_hash_u64(&h, c->alu_latency_cycles);
    const struct unit_config *u[] = {&c->sfu, &c->fp64, &c->shmem};
    for (size_t i = 0; i < CORUN_ARRAY_LEN(u); i++) {
        util_hash_u64(&h, u[i]->lanes);
        util_hash_u64(&h, u[i]->latency_cycles);
    }
    h_cache(&h, &c->l1d);
    h_cache(&h, &c->l1c);
    h_cache(&h, &c->llc);
    util_hash_u64(&h, c->llc_slices);
    util_hash_u64(&h, c->noc_bytes_per_cycle);
    util_hash_u64(&h, c->noc_latency_cycles);
    util_hash_u64(&h, c->context_switch_bytes_per_cycle);
    if (c->order_free) /* absent from the hash when off: old caches stay valid */
        util_hash_u64(&h, 0x0f5e);
    const struct dram_config *d = &c->dram;
    util_hash_u64(&h, d->channels);
    util_hash_u64(&h, d->bank_groups);
    util_hash_u64(&h, d->banks_per_group);
    util_hash_u64(&h, d->row_bytes);
    util_hash_u64(&h, d->bus_bytes_per_cycle);
    util_hash_u64(&h, d->request_bytes);
    util_hash_double(&h, d->clock_mhz);
    util_hash_u64(&h, d->queue_entries);
    util_hash_u64(&h, d->row_hit_cap);
    if (d->dual_command) /* absent from the hash when off: old caches stay valid */
        util_hash_u64(&h, 0xd0a1);
    util_hash_u64(&h, (uint64_t)d->mapping);
    const unsigned t[] = {d->t.rc,    d->t.rcd,   d->t.rp,  d->t.cl,  d->t.wl,    d->t.ras,
                          d->t.rrd_l, d->t.rrd_s, d->t.faw, d->t.rtp, d->t.ccd_l, d->t.ccd_s,
                          d->t.wtr_l, d->t.wtr_s, d->t.rfc, d->t.refi};
    util_hash_bytes(&h, t, sizeof(t));
    return h;
}

uint64_t solo_profile_hash(const struct kernel_profile *p)
{
    uint64_t h = UTIL_HASH_START;
    util_hash_u64(&h, p->tbs);
    util_hash_u64(&h, p->warps_per_tb);
    util_hash_u64(&h, p->tbs_per_sm);
    util_hash_u64(&h, p->insts_per_warp);
    util_hash_double(&h, p->mem_fraction);
    util_hash_double(&h, p->store_fraction);
    util_hash_double(&h, p->lines_per_access);
    util_hash_u64(&h, p->mlp);
    util_hash_u64(&h, p->dep_latency);
    util_hash_double(&h, p->const_fraction);
    util_hash_u64(&h, p->footprint_bytes);
    util_hash_u64(&h, p->seq_run_lines);
    util_hash_double(&h, p->reuse_fraction);
    util_hash_u64(&h, p->reuse_window_bytes);
    util_hash_u64(&h, p->regs_per_thread);
    util_hash_u64(&h, p->smem_per_tb_bytes);
    util_hash_double(&h, p->sfu_fraction);
    util_hash_double(&h, p->fp64_fraction);
    util_hash_double(&h, p->shared_fraction);
    util_hash_u64(&h, p->shared_conflict_ways);
    util_hash_u64(&h, p->barrier_interval);
    util_hash_u64(&h, (uint64_t)p->pattern);
    util_hash_u64(&h, p->tile_lines);
    util_hash_u64(&h, p->stride_lines);
    util_hash_double(&h, p->hot_fraction);
    util_hash_u64(&h, p->hot_bytes);
    util_hash_u64(&h, p->gap_cycles);
    util_hash_u64(&h, p->nphases);
    for (unsigned i = 0; i < p->nphases && i < KERNEL_MAX_PHASES; i++)
        for (unsigned j = 0; j < p->phase[i].nsets && j < KERNEL_PHASE_SETS; j++) {
            util_hash_u64(&h, p->phase[i].set[j].offset);
            util_hash_u64(&h, p->phase[i].set[j].bits);
        }
    return h;
}

/* ---- private runs ---- */

/* A GPU running p alone on its first sms SMs, the others gated. */
static struct gpu *private_gpu(const struct gpu_config *cfg, const struct kernel_profile *p,
                               unsigned sms, uint64_t seed, char *err, size_t errlen)
{
    if (sms == 0 || sms > cfg->sms)
        sms = cfg->sms;
    struct gpu *g = gpu_new(cfg, &p, 1, seed, err, errlen);
    if (!g)
        return NULL;
    int *own = xmalloc(cfg->sms * sizeof(int));
    for (unsigned i = 0; i < cfg->sms; i++)
        own[i] = i < sms ? 0 : GPU_SM_GATED;
    int rc = gpu_set_partition(g, own, cfg->sms, GPU_SWITCH_DRAIN, err, errlen);
    free(own);
    if (rc) {
        gpu_delete(g);
        return NULL;
    }
    return g;
}

static void trace_free(struct solo_trace *t)
{
    gpu_delete(t->gpu);
    kernel_profile_done(&t->prof);
    free(t->insts);
    free(t);
}

static void trace_append(struct solo_trace *t, uint64_t v)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 1024;
        t->insts = xrealloc(t->insts, t->cap * sizeof(*t->insts));
    }
    t->insts[t->n++] = v;
}

/* Runs the private run on by one sample (the first: the start) and records it: past the
 * samples, appended; within them (a loaded trace being caught up with), over the loaded one,
 * which the same deterministic run gave. */
static void sample_next(struct solo_trace *t)
{
    if (!t->gpu) {
        /* The profile and configuration were valid when the trace was made: cannot fail. */
        t->gpu = private_gpu(&t->cfg, &t->prof, t->key.sms, t->key.seed, NULL, 0);
        t->made = 0;
    }
    if (t->made)
        gpu_run(t->gpu, SOLO_SAMPLE_CYCLES);
    uint64_t v = gpu_kernel_instructions_total(t->gpu, 0);
    if (t->made < t->n) {
        t->insts[t->made] = v;
    } else {
        trace_append(t, v);
    }
    t->made++;
}

void solo_trace_extend(struct solo_trace *t, uint64_t cycles)
{
    size_t want = (size_t)(cycles / SOLO_SAMPLE_CYCLES) + 1;
    while (t->n < want)
        sample_next(t);
}

uint64_t solo_trace_behind(const struct solo_trace *t)
{
    size_t made = t->gpu ? t->made : 0;
    return t->n > made ? (uint64_t)(t->n - (made ? made : 1)) * SOLO_SAMPLE_CYCLES : 0;
}

void solo_trace_catch_up(struct solo_trace *t, uint64_t cycles)
{
    for (uint64_t done = 0; solo_trace_behind(t) > 0 && done < cycles; done += SOLO_SAMPLE_CYCLES)
        sample_next(t);
}

bool solo_trace_loaded(const struct solo_trace *t)
{
    return solo_trace_behind(t) > 0;
}

const struct solo_key *solo_trace_key(const struct solo_trace *t)
{
    return &t->key;
}

size_t solo_trace_samples(const struct solo_trace *t, const uint64_t **insts)
{
    *insts = t->insts;
    return t->n;
}

#define SOLO_MAX_CYCLES (1ull << 32) /* give up on a kernel that stops making progress */

double solo_trace_cycles_at(struct solo_trace *t, uint64_t insts)
{
    if (insts == 0)
        return 0;
    if (t->n == 0)
        solo_trace_extend(t, 100 * SOLO_SAMPLE_CYCLES);
    while (t->insts[t->n - 1] < insts) {
        uint64_t have = (t->n - 1) * (uint64_t)SOLO_SAMPLE_CYCLES;
        if (have >= SOLO_MAX_CYCLES)
            return -1;
        solo_trace_extend(t, have * 2);
    }
    /* First sample reaching insts; the trace never decreases. */
    size_t lo = 0, hi = t->n - 1;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->insts[mid] >= insts)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (lo == 0)
        return 0;
    double a = (double)t->insts[lo - 1], b = (double)t->insts[lo];
    return ((double)(lo - 1) + ((double)insts - a) / (b - a)) * SOLO_SAMPLE_CYCLES;
}

double solo_true_np(struct solo_trace *t, uint64_t insts_start, uint64_t insts_end,
                    uint64_t shared_cycles)
{
    if (shared_cycles == 0 || insts_end < insts_start)
        return -1;
    double a = solo_trace_cycles_at(t, insts_start), b = solo_trace_cycles_at(t, insts_end);
    if (a < 0 || b < 0)
        return -1;
    return (b - a) / (double)shared_cycles;
}

/* ---- cache ---- */

struct solo_cache *solo_cache_new(void)
{
    return xcalloc(1, sizeof(struct solo_cache));
}

void solo_cache_delete(struct solo_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++)
        trace_free(c->t[i]);
    free(c->t);
    free(c);
}

struct solo_trace *solo_cache_find(struct solo_cache *c, const struct solo_key *k)
{
    for (size_t i = 0; i < c->n; i++) {
        const struct solo_key *o = &c->t[i]->key;
        if (o->config_hash == k->config_hash && o->profile_hash == k->profile_hash &&
            o->seed == k->seed && o->sms == k->sms)
            return c->t[i];
    }
    return NULL;
}

static int make_key(const struct gpu_config *cfg, const struct kernel_profile *p, unsigned sms,
                    uint64_t seed, struct solo_key *k, char *err, size_t errlen)
{
    if (gpu_config_check(cfg, err, errlen) || gpu_profile_check(cfg, p, err, errlen))
        return -1;
    *k = (struct solo_key){solo_config_hash(cfg), solo_profile_hash(p), seed,
                           sms == 0 || sms > cfg->sms ? cfg->sms : sms};
    return 0;
}

struct solo_trace *solo_cache_get(struct solo_cache *c, const struct gpu_config *cfg,
                                  const struct kernel_profile *p, unsigned sms, uint64_t seed,
                                  char *err, size_t errlen)
{
    struct solo_key k;
    if (make_key(cfg, p, sms, seed, &k, err, errlen))
        return NULL;
    struct solo_trace *t = solo_cache_find(c, &k);
    if (t)
        return t;
    t = xcalloc(1, sizeof(*t));
    t->key = k;
    t->cfg = *cfg;
    t->prof = *p;
    t->prof.name = xstrdup(p->name ? p->name : "");
    t->prof.description = xstrdup(p->description ? p->description : "");
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 8;
        c->t = xrealloc(c->t, c->cap * sizeof(*c->t));
    }
    c->t[c->n++] = t;
    return t;
}

struct solo_trace *solo_cache_put(struct solo_cache *c, const struct gpu_config *cfg,
                                  const struct kernel_profile *p, unsigned sms, uint64_t seed,
                                  const uint64_t *insts, size_t n, char *err, size_t errlen)
{
    if (n == 0 || insts[0] != 0) {
        snprintf(err, errlen, "a solo trace must start with 0 instructions at cycle 0");
        return NULL;
    }
    for (size_t i = 1; i < n; i++)
        if (insts[i] < insts[i - 1]) {
            snprintf(err, errlen, "solo trace sample %zu decreases", i);
            return NULL;
        }
    struct solo_trace *t = solo_cache_get(c, cfg, p, sms, seed, err, errlen);
    if (!t || t->n >= n)
        return t;
    gpu_delete(t->gpu); /* the loaded samples replace a shorter run */
    t->gpu = NULL;
    t->made = t->n = 0;
    for (size_t i = 0; i < n; i++)
        trace_append(t, insts[i]);
    return t;
}

size_t solo_cache_count(const struct solo_cache *c)
{
    return c->n;
}

struct solo_trace *solo_cache_at(struct solo_cache *c, size_t i)
{
    return i < c->n ? c->t[i] : NULL;
}

/* ---- characterization ---- */

static double ratio(uint64_t a, uint64_t b)
{
    return b ? (double)a / (double)b : 0;
}

/* Runs g for cycles, in steps that tell progress what part of total is done after `before`
 * cycles and these. The steps end at multiples of the GPU's block, where a block ends anyway
 * (gpu_block_cycles), so the run is the one a single gpu_run makes. */
static void run_telling(struct gpu *g, uint64_t cycles, uint64_t before, uint64_t total,
                        util_progress_fn progress, void *ctx)
{
    enum { STEPS = 50 };
    if (!progress) {
        gpu_run(g, cycles);
        return;
    }
    uint64_t block = gpu_block_cycles(g), step = (total / STEPS / block + 1) * block;
    uint64_t start = gpu_now(g), end = start + cycles;
    for (uint64_t t = start; t < end;) {
        uint64_t stop = (t / step + 1) * step;
        stop = stop < end ? stop : end;
        gpu_run(g, stop - t);
        t = stop;
        progress(ctx, (double)(before + t - start) / (double)total);
    }
}

int solo_characterize(const struct gpu_config *cfg, const struct kernel_profile *p, unsigned sms,
                      uint64_t cycles, uint64_t seed, util_progress_fn progress, void *ctx,
                      struct solo_result *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    if (cycles == 0) {
        snprintf(err, errlen, "solo: the measured window must be at least one cycle");
        return -1;
    }
    struct gpu *g = private_gpu(cfg, p, sms, seed, err, errlen);
    if (!g)
        return -1;
    out->sms = sms == 0 || sms > cfg->sms ? cfg->sms : sms;
    out->warmup_cycles = cycles / 10;
    out->cycles = cycles;
    uint64_t total = out->warmup_cycles + cycles;
    run_telling(g, out->warmup_cycles, 0, total, progress, ctx);
    gpu_reset_counters(g);
    run_telling(g, cycles, out->warmup_cycles, total, progress, ctx);
    struct gpu_kernel_counters c;
    gpu_kernel_counters(g, 0, &c);
    out->instructions = c.instructions;
    out->ipc = c.ipc;
    out->bandwidth_gbs = c.bandwidth_gbs;
    out->bandwidth_pct = 100 * c.bandwidth_util;
    out->rbh = c.rbh;
    out->l1d_miss_rate = ratio(c.l1d_misses, c.l1d_accesses);
    out->l1c_miss_rate = ratio(c.l1c_misses, c.l1c_accesses);
    out->l2_miss_rate = ratio(c.l2_misses, c.l2_accesses);
    out->mpki = 1000 * ratio(c.l2_misses, c.instructions);
    out->dram_requests = c.dram_requests;
    out->tbs_finished = c.tbs_finished;
    out->launches = c.launches;
    gpu_delete(g);
    return 0;
}
