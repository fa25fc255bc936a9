/* kstate — a kernel's grid, relaunches, address stream and counters. */
#include "corun/kstate.h"

#include "corun/util.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static unsigned round_up(unsigned v, unsigned unit)
{
    return (v + unit - 1) / unit * unit;
}

/* Registers are allocated per warp in units of 256, shared memory in units of 256 B (the
 * allocation granularities of Kepler through Volta). */
uint64_t kstate_tb_regs(const struct kernel_profile *p)
{
    return (uint64_t)round_up(p->regs_per_thread * 32u, 256) * p->warps_per_tb;
}

unsigned kstate_tb_smem(const struct kernel_profile *p)
{
    return round_up(p->smem_per_tb_bytes, 256);
}

unsigned kstate_occupancy(const struct kernel_profile *p, const struct kstate_sm_limits *sm,
                          const char **limit)
{
    const char *why = "thread-block slots";
    unsigned occ = sm->tbs;
    unsigned by_warps = sm->warps / p->warps_per_tb;
    if (by_warps < occ) {
        occ = by_warps;
        why = "warp slots";
    }
    uint64_t regs_tb = kstate_tb_regs(p);
    if (regs_tb && sm->regs / regs_tb < occ) {
        occ = (unsigned)(sm->regs / regs_tb);
        why = "registers";
    }
    unsigned smem_tb = kstate_tb_smem(p);
    if (smem_tb && sm->smem_bytes / smem_tb < occ) {
        occ = sm->smem_bytes / smem_tb;
        why = "shared memory";
    }
    if (p->tbs_per_sm && p->tbs_per_sm < occ) {
        occ = p->tbs_per_sm;
        why = "the profile's tbs_per_sm";
    }
    if (limit)
        *limit = why;
    return occ;
}

/* Accesses of one kind a TB makes in its life (at least 1). */
static uint64_t tb_accesses(const struct kernel_profile *p, bool store)
{
    double share = store ? p->store_fraction : 1 - p->store_fraction;
    double n =
        (double)p->warps_per_tb * p->insts_per_warp * p->mem_fraction * p->lines_per_access * share;
    return n < 1 ? 1 : n > (double)UINT32_MAX ? UINT32_MAX : (uint64_t)n;
}

/* The fields that follow from k->prof alone (again at each phase change). */
static void derive(struct kstate *k)
{
    const struct kernel_profile *p = &k->prof;
    k->footprint_lines = p->footprint_bytes / k->line_bytes;
    if (k->footprint_lines == 0)
        k->footprint_lines = 1;
    k->occupancy = kstate_occupancy(p, &k->limits, &k->occupancy_limit);
    k->out_line = k->base_line + k->footprint_lines;
    /* Stream: a chunk per TB and step, a line per warp by default. Others: the TB's whole
     * walk. */
    unsigned lpa = p->lines_per_access > 1 ? (unsigned)p->lines_per_access : 1;
    uint64_t deftile = p->pattern == KERNEL_PATTERN_STREAM ? (uint64_t)p->warps_per_tb * lpa
                                                           : tb_accesses(p, false);
    k->tile_lines = p->tile_lines ? p->tile_lines : (uint32_t)deftile;
    unsigned side = 1;
    while ((uint64_t)side * side < p->tbs)
        side++;
    k->grid_side = side;
    k->hot_lines = p->hot_bytes / k->line_bytes ? p->hot_bytes / k->line_bytes : 1;
    k->thr_hot = p->hot_bytes ? rng_threshold(p->hot_fraction) : 0;

    double other = p->sfu_fraction + p->fp64_fraction + p->shared_fraction;
    double pn = p->mem_fraction + p->const_fraction + other;
    k->pn = pn;
    k->inv_log_compute = pn > 0 && pn < 1 ? 1.0 / log1p(-pn) : 0;
    /* v2 profiles draw short runs from a table (the legacy ones keep their exact draws). */
    k->geo_n = 0;
    if ((p->pattern != KERNEL_PATTERN_LEGACY || other > 0) && pn > 0 && pn < 1) {
        double q = 1.0;
        while (k->geo_n < KSTATE_GEO && q * (1 - pn) > 1e-6) {
            q *= 1 - pn;
            k->geo[k->geo_n++] = rng_threshold(q);
        }
    }
    k->thr_mem = rng_threshold(pn > 0 ? p->mem_fraction / pn : 0);
    k->has_classes = other > 0;
    if (k->has_classes) {
        double rest = pn - p->mem_fraction, acc = 0;
        const double f[3] = {p->const_fraction, p->sfu_fraction, p->fp64_fraction};
        for (int i = 0; i < 3; i++) {
            acc += f[i];
            k->thr_cls[i] = rng_threshold(acc / rest);
        }
    }
    k->thr_store = rng_threshold(p->store_fraction);
    k->thr_reuse = k->hist_lines ? rng_threshold(p->reuse_fraction) : 0;
    k->base_lines = (unsigned)p->lines_per_access;
    k->thr_extra_line = rng_threshold(p->lines_per_access - k->base_lines);
}

struct kstate *kstate_new(const struct kernel_profile *p, unsigned index, unsigned line_bytes,
                          const struct kstate_sm_limits *sm, uint64_t seed)
{
    struct kstate *k = xcalloc(1, sizeof(*k));
    k->app = *p;
    k->app.name = xstrdup(p->name ? p->name : "");
    k->app.description = xstrdup(p->description ? p->description : "");
    if (p->nphases)
        kernel_phase_profile(&k->app, 0, &k->prof);
    else
        k->prof = k->app;
    k->index = index;
    k->line_bytes = line_bytes;
    k->limits = *sm;
    k->base = (uint64_t)(index + 1) << KSTATE_ADDR_SHIFT;
    k->base_line = k->base / line_bytes;
    k->const_line = (k->base + KSTATE_CONST_OFFSET) / line_bytes;
    uint64_t window = p->reuse_window_bytes;
    for (unsigned i = 0; i < p->nphases; i++) {
        struct kernel_profile q;
        kernel_phase_profile(p, i, &q);
        if (q.reuse_window_bytes > window)
            window = q.reuse_window_bytes;
    }
    uint64_t hist = window / line_bytes;
    k->hist_lines = (unsigned)(hist > KSTATE_HIST_MAX ? KSTATE_HIST_MAX : hist);
    derive(k);
    rng_seed(&k->rng, seed, 0x6b000000ull + index);
    k->cursor = rng_below(&k->rng, k->footprint_lines);
    k->run_left = k->prof.seq_run_lines;
    k->launch_at = k->prof.gap_cycles;
    return k;
}

void kstate_delete(struct kstate *k)
{
    if (!k)
        return;
    for (unsigned i = 0; i < k->saved_count; i++)
        free(k->saved[(k->saved_head + i) % k->saved_cap]);
    free(k->saved);
    kernel_profile_done(&k->app); /* k->prof shares its strings */
    free(k);
}

bool kstate_has_tb(const struct kstate *k)
{
    return k->saved_count > 0 || k->tbs_next < k->prof.tbs;
}

bool kstate_take_tb(struct kstate *k, struct kstate_saved_tb **saved, uint32_t *tile)
{
    *saved = NULL;
    if (k->saved_count > 0) {
        *saved = k->saved[k->saved_head];
        *tile = (*saved)->addr.tile;
        k->saved_head = (k->saved_head + 1) % k->saved_cap;
        k->saved_count--;
        k->c.tbs_restored++;
        return true;
    }
    if (k->tbs_next < k->prof.tbs) {
        *tile = (uint32_t)k->tbs_next++;
        return true;
    }
    return false;
}

bool kstate_tb_finished(struct kstate *k, uint64_t now)
{
    k->c.tbs_finished++;
    k->tbs_done++;
    assert(k->tbs_done <= k->prof.tbs);
    if (k->tbs_done < k->prof.tbs)
        return false;
    /* The grid is done: relaunch it from the beginning, as the papers' methodology does; an
     * application of several kernels goes on to its next one. */
    k->launches++;
    if (k->launches == 1) {
        k->first_launch_cycle = now;
        k->first_launch_insts = k->insts_total;
    }
    if (k->one_grid)
        return false;
    if (k->app.nphases) {
        k->phase = (k->phase + 1) % k->app.nphases;
        kernel_phase_profile(&k->app, k->phase, &k->prof);
        derive(k);
    }
    k->launch_at = now + k->prof.gap_cycles;
    k->tbs_next = 0;
    k->tbs_done = 0;
    return true;
}

void kstate_save_tb(struct kstate *k, struct kstate_saved_tb *tb)
{
    if (k->saved_count == k->saved_cap) {
        unsigned cap = k->saved_cap ? 2 * k->saved_cap : 16;
        struct kstate_saved_tb **q = xmalloc(cap * sizeof(*q));
        for (unsigned i = 0; i < k->saved_count; i++)
            q[i] = k->saved[(k->saved_head + i) % k->saved_cap];
        free(k->saved);
        k->saved = q;
        k->saved_cap = cap;
        k->saved_head = 0;
    }
    k->saved[(k->saved_head + k->saved_count) % k->saved_cap] = tb;
    k->saved_count++;
    k->c.tbs_saved++;
}

uint32_t kstate_draw_compute_run(const struct kstate *k, struct rng *r)
{
    double pn = k->pn;
    if (pn >= 1)
        return 0;
    if (pn <= 0)
        return UINT32_MAX;
    if (k->geo_n) {
        /* The same geometric law read off a table: the run is at least n while the draw is
         * below (1 - pn)^n; short runs, the common case here, cost a few comparisons. */
        uint64_t u = rng_next(r);
        for (unsigned n = 0; n < k->geo_n; n++)
            if (u >= k->geo[n])
                return n;
        double v = ((double)(u >> 11) + 0.5) * 0x1.0p-53; /* the rare long run */
        double m = floor(log(v) * k->inv_log_compute);
        return m >= (double)UINT32_MAX ? UINT32_MAX : (uint32_t)m;
    }
    /* Geometric number of failures before the first non-compute instruction: one draw per
     * memory instruction instead of one per instruction. */
    double u = 1.0 - rng_uniform(r); /* (0, 1] */
    double n = floor(log(u) * k->inv_log_compute);
    return n >= (double)UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

void kstate_draw_mem(const struct kstate *k, struct rng *r, uint8_t *kind, uint8_t *lines)
{
    if (rng_next(r) >= k->thr_mem) {
        *lines = 1;
        if (!k->has_classes) { /* one draw, as before the classes existed */
            *kind = KI_CONST;
            return;
        }
        uint64_t u = rng_next(r);
        *kind = u < k->thr_cls[0]   ? KI_CONST
                : u < k->thr_cls[1] ? KI_SFU
                : u < k->thr_cls[2] ? KI_FP64
                                    : KI_SHARED;
        return;
    }
    *kind = rng_next(r) < k->thr_store ? KI_STORE : KI_LOAD;
    unsigned n = k->base_lines + (k->thr_extra_line && rng_next(r) < k->thr_extra_line);
    *lines = (uint8_t)n;
}

/* A line of h's window, drawn as a reuse. */
static uint64_t reuse_line(const struct kstate *k, struct rng *r, const struct kstate_hist *h)
{
    unsigned span = h->count < k->hist_lines ? h->count : k->hist_lines;
    unsigned back = 1 + (unsigned)rng_below(r, span);
    unsigned i = h->pos >= back ? h->pos - back : h->pos + h->cap - back; /* back <= cap */
    return h->line[i];
}

static void remember(struct kstate_hist *h, uint64_t line)
{
    if (h->cap) {
        h->line[h->pos] = line;
        h->pos = h->pos + 1 < h->cap ? h->pos + 1 : 0;
        if (h->count < h->cap)
            h->count++;
    }
}

uint64_t kstate_next_line(struct kstate *k, struct rng *r, struct kstate_hist *h)
{
    if (k->thr_reuse && h->count && rng_next(r) < k->thr_reuse)
        return reuse_line(k, r, h);
    if (k->run_left == 0) {
        k->cursor = rng_below(&k->rng, k->footprint_lines);
        k->run_left = k->prof.seq_run_lines;
    }
    uint64_t line = k->base_line + k->cursor;
    k->cursor = k->cursor + 1 < k->footprint_lines ? k->cursor + 1 : 0;
    k->run_left--;
    remember(h, line);
    return line;
}

uint64_t kstate_next_line_own(const struct kstate *k, struct rng *r, struct kstate_hist *h,
                              struct kstate_cursor *c)
{
    if (k->thr_reuse && h->count && rng_next(r) < k->thr_reuse)
        return reuse_line(k, r, h);
    if (c->run_left == 0) {
        c->cursor = rng_below(r, k->footprint_lines);
        c->run_left = k->prof.seq_run_lines;
    }
    uint64_t line = k->base_line + c->cursor;
    c->cursor = c->cursor + 1 < k->footprint_lines ? c->cursor + 1 : 0;
    c->run_left--;
    remember(h, line);
    return line;
}

uint64_t kstate_tb_line(const struct kstate *k, struct rng *r, struct kstate_tbaddr *a, bool store)
{
    const uint64_t F = k->footprint_lines, T = k->tile_lines, b = a->tile;
    uint32_t *walked = store ? &a->spos : &a->pos;
    uint64_t i = *walked, off;
    bool moves = true; /* the access is the next of the TB's walk */
    switch (k->prof.pattern) {
    case KERNEL_PATTERN_STRIDED: {
        /* S consecutive TBs interleave: together they cover S * T contiguous lines. */
        uint64_t S = k->prof.stride_lines ? k->prof.stride_lines : 1;
        off = (b / S) * S * T + b % S + (i % T) * S;
        break;
    }
    case KERNEL_PATTERN_STENCIL: {
        /* Point p of the tile reads the line above (p - W), its own, and the one below. */
        uint64_t W = k->prof.stride_lines, p = b * T + (i / 3) % T;
        if (store) {
            off = b * T + i % T;
            break;
        }
        unsigned d = (unsigned)(i % 3);
        off = d == 0 ? p + F - W % F : d == 1 ? p : p + W;
        break;
    }
    case KERNEL_PATTERN_TILED: {
        /* Alternately a line of row panel bi of A (first half of the footprint) and of
         * column panel bj of B (second half); a panel is stride_lines long. */
        uint64_t P = k->prof.stride_lines ? k->prof.stride_lines : T, half = F / 2 ? F / 2 : 1;
        uint64_t bi = b / k->grid_side, bj = b % k->grid_side, q = (i / 2) % P;
        if (store)
            off = b * T + i % T;
        else
            off = i % 2 == 0 ? (bi * P + q) % half : half + (bj * P + q) % half;
        break;
    }
    case KERNEL_PATTERN_GATHER:
        /* Indirect accesses land anywhere in the hot set (hot_bytes = footprint_bytes: a
         * uniform gather); the others stream the TB's tile (indices, its own elements). */
        if (k->thr_hot && rng_next(r) < k->thr_hot) {
            off = rng_below(r, k->hot_lines);
            moves = false;
        } else {
            off = b * T + i % T;
        }
        break;
    default: /* stream: at step s every TB reads its chunk of T lines of row s of the grid */
        off = ((i / T) * k->prof.tbs + b) * T + i % T;
        break;
    }
    *walked += moves;
    return (store ? k->out_line : k->base_line) + off % F;
}

uint64_t kstate_const_line(const struct kstate *k, struct rng *r)
{
    return k->const_line + rng_below(r, KSTATE_CONST_LINES);
}

unsigned kstate_kernel_of_line(uint64_t line, unsigned line_bytes)
{
    uint64_t addr = line * line_bytes;
    return (unsigned)(addr >> KSTATE_ADDR_SHIFT) - 1;
}

void kstate_hist_init(struct kstate_hist *h, unsigned cap)
{
    h->cap = cap;
    h->line = cap ? xmalloc(cap * sizeof(uint64_t)) : NULL;
    h->pos = h->count = 0;
}

void kstate_hist_done(struct kstate_hist *h)
{
    free(h->line);
    h->line = NULL;
    h->cap = 0;
}

void kstate_hist_clear(struct kstate_hist *h)
{
    h->pos = h->count = 0;
}

void kstate_hist_grow(struct kstate_hist *h, unsigned cap)
{
    if (cap <= h->cap)
        return;
    /* Oldest first from index 0: the line `back` places behind pos stays the same line. */
    uint64_t *line = xmalloc(cap * sizeof(uint64_t));
    for (unsigned j = 0; j < h->count; j++) {
        unsigned back = h->count - j; /* <= count <= the old cap */
        line[j] = h->line[h->pos >= back ? h->pos - back : h->pos + h->cap - back];
    }
    free(h->line);
    h->line = line;
    h->cap = cap;
    h->pos = h->count; /* count <= the old cap < cap */
}

void kstate_reset_counters(struct kstate *k)
{
    memset(&k->c, 0, sizeof(k->c));
}
