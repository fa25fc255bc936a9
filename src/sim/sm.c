/* sm — stepping an SM: warp wake-ups, GTO issue, L1 data and constant caches, and the
 * request queue toward the crossbar. TBs and ownership are in sm_tb.c. */
#include "corun/gpu.h"
#include "corun/llc.h"
#include "corun/noc.h"
#include "corun/util.h"
#include "corun/wake.h"
#include "sm_internal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* ---- timed FIFOs ---- */

/* Capacities are powers of two (at least cap), so positions wrap with a mask. */
static void fifo_init(struct sm_fifo *f, unsigned cap)
{
    unsigned c = 1;
    while (c < cap)
        c *= 2;
    cap = c;
    f->cap = cap;
    f->e = xmalloc(cap * sizeof(*f->e));
    f->head = f->count = 0;
}

static void fifo_push(struct sm_fifo *f, uint64_t ready, uint64_t line, uint32_t token)
{
    if (f->count == f->cap) {
        struct sm_timed *e = xmalloc(2 * f->cap * sizeof(*e));
        for (unsigned i = 0; i < f->count; i++)
            e[i] = f->e[(f->head + i) & (f->cap - 1)];
        free(f->e);
        f->e = e;
        f->head = 0;
        f->cap *= 2;
    }
    assert(f->count == 0 || f->e[(f->head + f->count - 1) & (f->cap - 1)].ready <= ready);
    f->e[(f->head + f->count) & (f->cap - 1)] = (struct sm_timed){ready, line, token};
    f->count++;
}

static struct sm_timed fifo_pop(struct sm_fifo *f)
{
    struct sm_timed t = f->e[f->head];
    f->head = (f->head + 1) & (f->cap - 1);
    f->count--;
    return t;
}

static uint64_t fifo_next(const struct sm_fifo *f)
{
    return f->count ? f->e[f->head].ready : SM_NEVER;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* ---- construction ---- */

struct sm *sm_new(unsigned id, struct sim_env *env, uint64_t seed, unsigned hist_lines)
{
    const struct gpu_config *cfg = env->cfg;
    struct sm *sm = xcalloc(1, sizeof(*sm));
    sm->id = id;
    sm->env = env;
    rng_seed(&sm->rng, seed, 0x5300000000ull + id);
    sm->state = SM_IDLE;
    sm->owner = SM_OWNER_IDLE;
    sm->attr = SM_OWNER_IDLE;
    sm->wake_time = SM_NEVER;
    sm->ev_next = SM_NEVER;
    sm->lazy_from = SM_NEVER;
    sm->unit_next = SM_NEVER;
    sm->nsched = cfg->schedulers_per_sm;
    unsigned d_mshrs = cfg->l1d.mshrs ? cfg->l1d.mshrs : 1;
    unsigned c_mshrs = cfg->l1c.mshrs ? cfg->l1c.mshrs : 1;
    sm->l1d = cache_new(cfg->l1d.size_bytes, cfg->l1d.ways, cfg->l1d.line_bytes, d_mshrs,
                        d_mshrs * 8, false);
    sm->l1c = cache_new(cfg->l1c.size_bytes, cfg->l1c.ways, cfg->l1c.line_bytes, c_mshrs,
                        c_mshrs * 8, false);
    assert(sm->l1d && sm->l1c);
    sm->l1d_lat = cfg->l1d.latency_cycles ? cfg->l1d.latency_cycles : 1;
    sm->l1c_lat = cfg->l1c.latency_cycles ? cfg->l1c.latency_cycles : 1;
    fifo_init(&sm->hits_d, 256);
    fifo_init(&sm->hits_c, 64);
    /* Each outstanding L1 miss gets exactly one reply. */
    fifo_init(&sm->replies, d_mshrs + c_mshrs);
    kstate_hist_init(&sm->hist, hist_lines);
    for (unsigned s = 0; s < SM_MAX_SCHEDULERS; s++)
        sm->greedy[s] = -1;
    return sm;
}

void sm_delete(struct sm *sm)
{
    if (!sm)
        return;
    cache_delete(sm->l1d);
    cache_delete(sm->l1c);
    free(sm->hits_d.e);
    free(sm->hits_c.e);
    free(sm->replies.e);
    kstate_hist_done(&sm->hist);
    free(sm);
}

void sm_grow_hist(struct sm *sm, unsigned hist_lines)
{
    kstate_hist_grow(&sm->hist, hist_lines);
}

/* ---- loads completing ---- */

/* One line of load slot (token & 31) of warp (token >> 5) has its data. */
static void complete_line(struct sm *sm, uint32_t token)
{
    unsigned slot = token >> 5, ls = token & 31;
    assert(sm->pending[slot][ls] > 0);
    if (--sm->pending[slot][ls])
        return;
    sm->free_slots[slot] |= 1u << ls;
    sm->loads_out[slot]--;
    sm->loads_pending--;
    if (sm->insts_left[slot] == 0) {
        if (sm->loads_out[slot] == 0)
            sm_warp_done(sm, slot);
    } else if (sm->loads_out[slot] == 0 && (sm->bar_park >> slot & 1)) {
        sm->bar_park &= ~(1ull << slot); /* its loads are in: on to the barrier */
        sm->ready_at[slot] = sm->now;
        sm_maybe_ready(sm, slot);
    } else if (sm->loads_out[slot] + 1u == sm->wmlp[slot]) {
        sm_maybe_ready(sm, slot);
    }
}

static void complete_line_cb(void *ctx, uint32_t token)
{
    complete_line(ctx, token);
}

/* ---- requests toward the crossbar ---- */

static void outq_push(struct sm *sm, const struct kstate *k, uint64_t line, enum llc_kind kind)
{
    assert(sm->outq_count < SM_OUTQ);
    sm->outq[(sm->outq_head + sm->outq_count) % SM_OUTQ] =
        (struct sm_outreq){.line = line,
                           .slice = (uint16_t)llc_slice_of(sm->env->llc, line),
                           .kind = (uint8_t)kind,
                           .kernel = (uint8_t)k->index};
    sm->outq_count++;
}

/* Sends the first request not yet sent when the SM's crossbar port is free: to its slice at
 * once, or (order-free rules) into the crossbar, which hands it to the slice at the block's
 * end (sm_block_done) and bounces it, and those after it, when the slice has no room. */
static void inject(struct sm *sm, uint64_t now)
{
    if (sm->outq_count == sm->outq_sent || noc_sm_port_free(sm->env->noc, sm->id) > now)
        return;
    if (sm->env->order_free) {
        if (sm->credit_blocked)
            return;
        unsigned i = (sm->outq_head + sm->outq_sent) % SM_OUTQ;
        noc_take_sm_port(sm->env->noc, sm->id,
                         llc_request_bytes(sm->env->llc, (enum llc_kind)sm->outq[i].kind), now);
        sm->outq_sent_at[i] = now;
        sm->outq_sent++;
        sm->lane->sent[sm->id / 64] |= 1ull << (sm->id % 64);
        return;
    }
    struct sm_outreq *o = &sm->outq[sm->outq_head];
    sm->credit_blocked =
        !llc_send(sm->env->llc, sm->id, o->slice, o->line, o->kind, o->kernel, now);
    if (!sm->credit_blocked) {
        sm->outq_head = (sm->outq_head + 1) % SM_OUTQ;
        sm->outq_count--;
    }
}

/* ---- issue ---- */

/* Bookkeeping after a non-compute instruction: the warp may issue again next cycle. */
static void finish_mem_issue(struct sm *sm, unsigned slot)
{
    sm_count_inst(sm, slot);
    uint64_t bit = 1ull << sm->rank_of_slot[slot];
    sm->ready &= ~bit;
    if (--sm->insts_left[slot] == 0) {
        sm->memnext &= ~bit;
        if (sm->loads_out[slot] == 0)
            sm_warp_done(sm, slot);
        return;
    }
    sm_set_memnext(sm, slot);
    sm->ready_at[slot] = sm->now + 1;
    sm->soon |= 1ull << slot;
}

/* The next data line of warp slot's stream (its TB's walk, or the kernel's legacy cursor;
 * the SM's reuse history is its own kernel's, a legacy kernel beside it reuses nothing). */
static uint64_t data_line(struct sm *sm, unsigned slot, bool store)
{
    struct sm_tbslot *tb = &sm->tb[sm->wtb[slot]];
    if (tb->streams)
        return kstate_tb_line(tb->k, &sm->rng, &tb->addr, store);
    struct kstate_hist none = {0}, *h = tb->k == sm->k ? &sm->hist : &none;
    if (sm->env->order_free)
        return kstate_next_line_own(tb->k, &sm->rng, h, &sm->lcur[tb->k->index]);
    return kstate_next_line(tb->k, &sm->rng, h);
}

static void issue_load_lines(struct sm *sm, unsigned slot, unsigned n, bool is_const)
{
    unsigned ls = (unsigned)__builtin_ctz(sm->free_slots[slot]);
    sm->free_slots[slot] &= ~(1u << ls);
    sm->pending[slot][ls] = (uint8_t)n;
    sm->loads_out[slot]++;
    sm->loads_pending++;
    uint32_t token = (uint32_t)(slot << 5 | ls);
    struct kstate *k = sm->wk[slot];
    struct cache *c = is_const ? sm->l1c : sm->l1d;
    struct cache_victim v;
    for (unsigned i = 0; i < n; i++) {
        uint64_t line = is_const ? kstate_const_line(k, &sm->rng) : data_line(sm, slot, false);
        enum cache_outcome r = cache_read(c, line, token, &v);
        assert(r != CACHE_STALL);
        if (r == CACHE_HIT) {
            uint64_t t = sm->now + (is_const ? sm->l1c_lat : sm->l1d_lat);
            fifo_push(is_const ? &sm->hits_c : &sm->hits_d, t, 0, token);
            sm->ev_next = min64(sm->ev_next, t);
            continue;
        }
        if (is_const)
            sm_ctr(sm, k)->l1c_misses++;
        else
            sm_ctr(sm, k)->l1d_misses++;
        if (r == CACHE_MISS)
            outq_push(sm, k, line, is_const ? LLC_READ_CONST : LLC_READ);
    }
    if (is_const)
        sm_ctr(sm, k)->l1c_accesses += n;
    else
        sm_ctr(sm, k)->l1d_accesses += n;
}

/* An SFU, FP64 or shared-memory instruction of warp slot: it takes its unit (false when the
 * unit is still busy this cycle) and the warp waits for its result. */
static bool issue_unit(struct sm *sm, unsigned slot, unsigned u)
{
    uint64_t now_fix = sm->now * SM_UNIT_FIX;
    if (sm->unit_free[u] >= now_fix + SM_UNIT_FIX) {
        uint64_t t = sm->unit_free[u] / SM_UNIT_FIX;
        sm->unit_retry = min64(sm->unit_retry, t);
        return false;
    }
    unsigned cost = sm->unit_cost[u];
    struct kstate *k = sm->wk[slot];
    if (u == KI_SHARED - KI_SFU && k->prof.shared_conflict_ways > 1)
        cost *= k->prof.shared_conflict_ways;
    sm->unit_free[u] = (sm->unit_free[u] > now_fix ? sm->unit_free[u] : now_fix) + cost;
    struct kstate_counters *c = sm_ctr(sm, k);
    uint64_t *cnt[SM_UNITS] = {&c->sfu_insts, &c->fp64_insts, &c->shared_insts};
    (*cnt[u])++;

    sm_count_inst(sm, slot);
    uint64_t bit = 1ull << sm->rank_of_slot[slot];
    sm->ready &= ~bit;
    if (--sm->insts_left[slot] == 0) {
        sm->memnext &= ~bit;
        if (sm->loads_out[slot] == 0)
            sm_warp_done(sm, slot);
        return true;
    }
    sm_draw_next(sm, slot);
    sm_set_memnext(sm, slot);
    uint64_t t = sm->now + sm->unit_lat[u];
    sm->ready_at[slot] = t;
    struct sm_unitq *q = &sm->unitq[u];
    assert(q->count < SM_MAX_WARPS);
    q->e[(q->head + q->count++) % SM_MAX_WARPS] = t << 8 | slot;
    sm->unitq_count++;
    sm->unit_next = min64(sm->unit_next, t);
    return true;
}

/* A __syncthreads of warp slot. The warp first waits for its own loads (the data a tiled
 * kernel stores to shared memory before the barrier); then it waits until every live warp of
 * its TB has arrived. Returns -1 when it parked for its loads (nothing issued). */
static int issue_barrier(struct sm *sm, unsigned slot)
{
    uint64_t bit = 1ull << sm->rank_of_slot[slot];
    sm->ready &= ~bit;
    if (sm->loads_out[slot]) {
        sm->bar_park |= 1ull << slot;
        sm->ready_at[slot] = SM_NEVER;
        return -1;
    }
    sm_count_inst(sm, slot);
    sm_ctr(sm, sm->wk[slot])->barriers++;
    unsigned t = sm->wtb[slot];
    if (--sm->insts_left[slot] == 0) {
        sm->memnext &= ~bit;
        sm_warp_done(sm, slot); /* the last instruction: it arrives and leaves */
        return 1;
    }
    sm->bar_left[slot] = sm->wbar[slot];
    sm_draw_next(sm, slot);
    sm_set_memnext(sm, slot);
    sm->ready_at[slot] = SM_NEVER;
    sm->at_bar |= 1ull << slot;
    sm->tb[t].bar_wait++;
    sm_bar_check(sm, t);
    return 1;
}

void sm_bar_check(struct sm *sm, unsigned t)
{
    struct sm_tbslot *tb = &sm->tb[t];
    if (!tb->bar_wait || tb->bar_wait < tb->live)
        return;
    uint64_t mask = tb->slots;
    for (uint64_t b = sm->at_bar & mask; b; b &= b - 1) {
        unsigned slot = (unsigned)__builtin_ctzll(b);
        sm->ready_at[slot] = sm->now + 1;
        sm->soon |= 1ull << slot;
    }
    sm->at_bar &= ~mask;
    tb->bar_wait = 0;
}

/* Issues warp slot's non-compute instruction: 1 done, 0 when a structure it needs is full,
 * -1 when the warp turned out not to be able to issue (a barrier waiting for loads). */
static int issue_mem(struct sm *sm, unsigned slot)
{
    unsigned n = sm->next_lines[slot], room = SM_OUTQ - sm->outq_count;
    switch (sm->next_kind[slot]) {
    case KI_SFU:
    case KI_FP64:
    case KI_SHARED: return issue_unit(sm, slot, sm->next_kind[slot] - KI_SFU);
    case KI_BAR: return issue_barrier(sm, slot);
    case KI_LOAD:
        if (room < n || !cache_can_miss(sm->l1d, n))
            return 0;
        issue_load_lines(sm, slot, n, false);
        sm_ctr(sm, sm->wk[slot])->loads++;
        break;
    case KI_CONST:
        if (room < 1 || !cache_can_miss(sm->l1c, 1))
            return 0;
        issue_load_lines(sm, slot, 1, true);
        sm_ctr(sm, sm->wk[slot])->const_loads++;
        break;
    default: /* store: write-through, no L1 allocation */
        if (room < n)
            return 0;
        for (unsigned i = 0; i < n; i++)
            outq_push(sm, sm->wk[slot], data_line(sm, slot, true), LLC_WRITE);
        sm_ctr(sm, sm->wk[slot])->stores++;
        break;
    }
    sm_draw_next(sm, slot);
    finish_mem_issue(sm, slot);
    return 1;
}

/* Issues a compute instruction of warp slot (rank r): the common case, kept short. */
static inline void issue_compute(struct sm *sm, unsigned slot, unsigned r)
{
    uint64_t bit = 1ull << r;
    sm_count_inst(sm, slot);
    sm->ready &= ~bit;
    uint32_t left = --sm->compute_left[slot];
    if (--sm->insts_left[slot] == 0) {
        sm->memnext &= ~bit;
        if (sm->loads_out[slot] == 0)
            sm_warp_done(sm, slot);
        return;
    }
    if (left == 0)
        sm->memnext |= bit;
    uint64_t t = sm->now + sm->wdep[slot];
    sm->ready_at[slot] = t;
    sm_depq_push(sm, t, slot);
}

/* Runs each scheduler once; returns true when a memory instruction found its path full. */
static bool issue(struct sm *sm)
{
    bool blocked = false;
    for (unsigned s = 0; s < sm->nsched; s++) {
        uint64_t elig = sm->ready & sm->sched[s];
        if (blocked)
            elig &= ~sm->memnext;
        while (elig) {
            /* Greedy: stay on the last warp while it can issue; else the oldest ready. */
            int g = sm->greedy[s];
            unsigned r;
            if (g >= 0 && (sm->resident >> g & 1) && (elig >> sm->rank_of_slot[g] & 1))
                r = sm->rank_of_slot[g];
            else
                r = (unsigned)__builtin_ctzll(elig);
            unsigned slot = sm->slot_of_rank[r];
            if (sm->compute_left[slot]) {
                sm->greedy[s] = (int)slot;
                issue_compute(sm, slot, r);
                break;
            }
            int rc = issue_mem(sm, slot);
            if (rc > 0) {
                sm->greedy[s] = (int)slot;
                break;
            }
            if (rc < 0) { /* parked at a barrier: try the next warp */
                elig &= ~(1ull << r);
                continue;
            }
            blocked = true;
            elig &= ~sm->memnext;
        }
    }
    return blocked;
}

/* ---- stepping ---- */

/* Steps the SM at cycle now; returns the next cycle it has work (SM_NEVER: only if woken). */
static uint64_t step(struct sm *sm, uint64_t now)
{
    sm->now = now;
    for (uint64_t bits = sm->soon; bits; bits &= bits - 1)
        sm_maybe_ready(sm, (unsigned)__builtin_ctzll(bits));
    sm->soon = 0;
    for (uint64_t e; sm->depq_count && (e = sm->depq[sm->depq_head]) >> 8 <= now;) {
        sm->depq_head = (sm->depq_head + 1) & (SM_DEPQ - 1);
        sm->depq_count--;
        sm_maybe_ready(sm, e & 0xff);
    }
    if (sm->unit_next <= now) {
        uint64_t unit_next = SM_NEVER;
        for (unsigned u = 0; u < SM_UNITS; u++) {
            struct sm_unitq *q = &sm->unitq[u];
            while (q->count && q->e[q->head] >> 8 <= now) {
                sm_maybe_ready(sm, q->e[q->head] & 0xff);
                q->head = (q->head + 1) % SM_MAX_WARPS;
                q->count--;
                sm->unitq_count--;
            }
            if (q->count)
                unit_next = min64(unit_next, q->e[q->head] >> 8);
        }
        sm->unit_next = unit_next;
    }
    if (sm->ev_next <= now) {
        while (fifo_next(&sm->hits_d) <= now)
            complete_line(sm, fifo_pop(&sm->hits_d).token);
        while (fifo_next(&sm->hits_c) <= now)
            complete_line(sm, fifo_pop(&sm->hits_c).token);
        while (fifo_next(&sm->replies) <= now) {
            struct sm_timed t = fifo_pop(&sm->replies);
            cache_fill(t.token ? sm->l1c : sm->l1d, t.line, complete_line_cb, sm);
        }
        sm->ev_next =
            min64(min64(fifo_next(&sm->hits_d), fifo_next(&sm->hits_c)), fifo_next(&sm->replies));
    }
    if (sm->tb_freed)
        sm_after_tb_change(sm, now);
    if (sm->state == SM_SAVE)
        sm_try_save(sm, now);
    inject(sm, now);

    bool runs = sm->state == SM_RUN || sm->state == SM_DRAIN;
    bool blocked = false;
    sm->unit_retry = SM_NEVER;
    if (runs && now >= sm->stall_until) {
        blocked = issue(sm);
        if (sm->tb_freed)
            sm_after_tb_change(sm, now);
    }

    uint64_t next = sm->ev_next;
    if (sm->outq_count > sm->outq_sent) {
        /* A head refused for want of LLC room is woken by its slice. */
        uint64_t pf = noc_sm_port_free(sm->env->noc, sm->id);
        if (pf > now)
            next = min64(next, pf);
        else if (!sm->credit_blocked)
            next = min64(next, now + 1);
    }
    if (sm->stall_until > now) {
        next = min64(next, sm->stall_until);
    } else if (sm->state == SM_SAVE) {
        if (!sm->loads_pending && !sm->outq_count)
            next = min64(next, now + 1);
    } else if (runs) {
        if (sm->soon || (sm->ready & ~(blocked ? sm->memnext : 0)))
            next = now + 1;
        else if (sm->depq_count)
            next = min64(next, sm->depq[sm->depq_head] >> 8);
        if (blocked)
            next = min64(next, sm->unit_retry);
    }
    return min64(next, sm->unit_next);
}

void sm_run_block(struct sm *sm, uint64_t block_end)
{
    uint64_t t = sm->wake_time;
    if (sm->lazy_from != SM_NEVER && t < block_end)
        sm_lazy_materialize(sm, t); /* the rotation's end has come */
    while (t < block_end) {
        /* The cheap necessary conditions of a rotation (sm_ff.c) first: most cycles fail them,
         * and then the call is not worth making. */
        if (sm->env->sm_fast_forward && sm->depq_count == sm->nsched * sm->dep && !sm->soon &&
            !sm->outq_count && !sm->unitq_count && sm->depq[sm->depq_head] >> 8 == t) {
            t = sm_fast_forward(sm, t, block_end);
            if (t >= block_end)
                break;
        }
        sm->wake_time = SM_NEVER;
        uint64_t n = step(sm, t);
        t = min64(n, sm->wake_time); /* wake-ups during the step land at block_end or later */
    }
    sm->wake_time = t;
    if (sm->k)
        sm_flush_insts(sm);
    if (t == SM_NEVER)
        return;
    if (sm->env->sm_phase) /* order-free: sm_block_done registers it, SMs may run side by side */
        sm->lane->wake[sm->lane->nwake++] = (struct sm_lane_wake){sm->id, t};
    else
        wake_at(sm->env->sm_wake, sm->id, block_end, t);
}

void sm_run_block_in(struct sm *sm, struct sm_lane *lane, uint64_t block_end)
{
    sm->lane = lane;
    sm_run_block(sm, block_end);
}

struct sm_lane *sm_lane_new(unsigned nsms)
{
    struct sm_lane *l = xcalloc(1, sizeof(*l));
    l->words = (nsms + 63) / 64;
    l->sent = xcalloc(l->words, sizeof(uint64_t));
    l->tb = xcalloc(l->words, sizeof(uint64_t));
    l->wake = xcalloc(nsms, sizeof(*l->wake));
    return l;
}

void sm_lane_delete(struct sm_lane *l)
{
    if (!l)
        return;
    free(l->sent);
    free(l->tb);
    free(l->wake);
    free(l);
}

void sm_wake(struct sm *sm, uint64_t t)
{
    if (t < sm->env->sm_block_end)
        t = sm->env->sm_block_end;
    if (t < sm->wake_time) {
        sm->wake_time = t;
        wake_at(sm->env->sm_wake, sm->id, sm->env->sm_block_end, t);
    }
}

void sm_room(struct sm *sm, uint64_t t)
{
    sm->credit_blocked = false;
    sm_wake(sm, t);
}

void sm_deliver(struct sm *sm, uint64_t arrival, uint64_t line, bool is_const)
{
    fifo_push(&sm->replies, arrival, line, is_const);
    sm->ev_next = min64(sm->ev_next, arrival);
    sm_wake(sm, arrival);
}
