/* sm_tb — an SM's thread blocks and ownership: TB dispatch and completion, switching owner by
 * draining or by context switch, time attribution, and the SM's counters. */
#include "corun/gpu.h"
#include "corun/util.h"
#include "sm_internal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Removes n bits at [lo, lo + n) from m, shifting the bits above down. */
static uint64_t cut_bits(uint64_t m, unsigned lo, unsigned n)
{
    uint64_t low = lo ? m & ((1ull << lo) - 1) : 0;
    uint64_t high = lo + n >= 64 ? 0 : (m >> (lo + n)) << lo;
    return low | high;
}

static void tb_place(struct sm *sm, unsigned t, struct kstate *k, struct kstate_saved_tb *saved,
                     uint32_t tile);
static void load_params(struct sm *sm);
static void rehome(struct sm *sm, struct kstate *k, uint64_t now);

bool sm_take_tb(struct sm *sm, struct kstate *k)
{
    struct kstate_saved_tb *saved;
    uint32_t tile;
    if (!kstate_take_tb(k, &saved, &tile))
        return false;
    if (k == sm->k && sm->launch_seen != sm->k->launches) {
        /* A new launch of the grid (no TB of the last one is left anywhere). The L1 is not
         * coherent, so the GPU invalidates it at a kernel boundary (per-TB streams only: the
         * legacy model keeps what it had); an application's next kernel brings its own
         * parameters. */
        assert(sm->ntbs == 0);
        sm->launch_seen = sm->k->launches;
        if (sm->k->app.nphases)
            load_params(sm);
        if (k->prof.pattern != KERNEL_PATTERN_LEGACY)
            cache_invalidate_all(sm->l1d);
    }
    unsigned t = 0;
    while (sm->tb[t].used)
        t++;
    tb_place(sm, t, k, saved, tile);
    return true;
}

static bool take_one(struct sm *sm)
{
    return sm_take_tb(sm, sm->k);
}

void sm_dispatch(struct sim_env *env, struct kstate *k, uint64_t now)
{
    /* One TB per SM per round, as a GPU's TB scheduler spreads a grid across SMs; an SM run
     * ahead within its block, or asleep, gets its TBs at its own clock or the caller's. */
    for (bool more = true; more;) {
        more = false;
        for (unsigned i = 0; i < env->nsms; i++) {
            struct sm *o = env->sms[i];
            if (o->k != k || o->state != SM_RUN || o->ntbs >= o->occ)
                continue;
            sm_touch(o);
            if (o->now < now)
                o->now = now;
            if (!take_one(o))
                return;
            more = true;
            sm_wake(o, now + 1);
        }
    }
}

/* Counts TB t's resources in (sign 1) or out (-1) of the SM's. */
static void tb_account(struct sm *sm, const struct sm_tbslot *tb, int sign)
{
    const struct kernel_profile *p = &tb->k->prof;
    unsigned ki = tb->k->index;
    if (sign > 0) {
        sm->nkern += sm->kcount[ki]++ == 0;
        sm->warps_used += tb->wpt;
        sm->regs_used += kstate_tb_regs(p);
        sm->smem_used += kstate_tb_smem(p);
    } else {
        assert(sm->kcount[ki] > 0);
        sm->nkern -= --sm->kcount[ki] == 0;
        sm->warps_used -= tb->wpt;
        sm->regs_used -= kstate_tb_regs(p);
        sm->smem_used -= kstate_tb_smem(p);
    }
}

static void tb_finish(struct sm *sm, unsigned t)
{
    struct sm_tbslot *tb = &sm->tb[t];
    unsigned first = (unsigned)__builtin_ctzll(tb->slots);
    unsigned lo = sm->rank_of_slot[first], n = tb->wpt;
    sm->ready = cut_bits(sm->ready, lo, n);
    sm->memnext = cut_bits(sm->memnext, lo, n);
    for (unsigned s = 0; s < sm->nsched; s++)
        sm->sched[s] = cut_bits(sm->sched[s], lo, n);
    for (unsigned r = lo + n; r < sm->nranks; r++) {
        unsigned slot = sm->slot_of_rank[r];
        sm->slot_of_rank[r - n] = (uint8_t)slot;
        sm->rank_of_slot[slot] = (uint8_t)(r - n);
    }
    sm->nranks -= n;
    sm->resident &= ~tb->slots;
    sm->soon &= ~tb->slots;
    tb->used = 0;
    tb_account(sm, tb, -1);
    sm->ntbs--;
    sm->tbs_finished++;
    sm->tb_freed = true;
    sm_flush_insts(sm);
    struct kstate *k = tb->k;
    if (sm->ntbs && sm->kcount[sm->k->index] == 0) {
        /* Shared dispatch: the kernel the SM counted for has no TB left here, others have;
         * the SM counts for the kernel of its first TB slot in use now. */
        unsigned o = 0;
        while (!sm->tb[o].used)
            o++;
        rehome(sm, sm->tb[o].k, sm->now);
    }
    if (sm->env->sm_phase) { /* order-free: the grid hears of it at the block's end */
        sm->fin[k->index]++;
        sm_mark_tb(sm);
    } else if (kstate_tb_finished(k, sm->now)) {
        sm_dispatch(sm->env, k, sm->now);
    }
    if (sm->env->shared && k->launches)
        sm->env->grid_done = true; /* its grid is complete: the run stops after this block */
}

void sm_warp_done(struct sm *sm, unsigned slot)
{
    unsigned t = sm->wtb[slot];
    assert(sm->tb[t].live > 0);
    if (--sm->tb[t].live == 0)
        tb_finish(sm, t);
    else if (sm->tb[t].bar_wait)
        sm_bar_check(sm, t); /* the others may all be waiting at a barrier */
}

static uint64_t tb_state_bytes(const struct kstate *k)
{
    return (uint64_t)k->prof.warps_per_tb * 32 * k->prof.regs_per_thread * 4 +
           k->prof.smem_per_tb_bytes;
}

static uint64_t transfer_cycles(const struct sm *sm, uint64_t bytes)
{
    unsigned rate = sm->env->cfg->context_switch_bytes_per_cycle;
    return (bytes + rate - 1) / rate;
}

/* Places one TB of k (fresh, or restored from saved) into free TB slot t; its warps take the
 * lowest free warp slots. */
static void tb_place(struct sm *sm, unsigned t, struct kstate *k, struct kstate_saved_tb *saved,
                     uint32_t tile)
{
    const struct kernel_profile *p = &k->prof;
    struct sm_tbslot *tb = &sm->tb[t];
    tb->used = 1;
    tb->live = 0;
    tb->bar_wait = 0;
    tb->addr = saved ? saved->addr : (struct kstate_tbaddr){tile, 0, 0};
    tb->k = k;
    tb->wpt = (uint8_t)p->warps_per_tb;
    tb->streams = p->pattern != KERNEL_PATTERN_LEGACY;
    tb->slots = 0;
    uint64_t free_warps = ~sm->resident;
    for (unsigned i = 0; i < p->warps_per_tb; i++, free_warps &= free_warps - 1)
        tb->slots |= free_warps & -free_warps;
    assert(__builtin_popcountll(tb->slots) == (int)p->warps_per_tb);
    tb_account(sm, tb, 1);
    sm->ntbs++;
    /* The launch gap (the host is not done yet): in shared dispatch it holds back the grid's
     * own warps, else the SM. */
    uint64_t gap = !saved && k->launch_at > sm->now ? k->launch_at : 0;
    if (gap && !sm->env->shared && gap > sm->stall_until)
        sm->stall_until = gap;
    if (saved) { /* the restore streams the TB's state back in before any warp issues */
        uint64_t from = sm->stall_until > sm->now ? sm->stall_until : sm->now;
        sm->stall_until = from + transfer_cycles(sm, tb_state_bytes(k));
    }
    unsigned mlp = p->mlp;
    unsigned dep = p->dep_latency ? p->dep_latency : sm->env->cfg->alu_latency_cycles;
    uint64_t bits = tb->slots;
    for (unsigned i = 0; i < p->warps_per_tb; i++, bits &= bits - 1) {
        unsigned slot = (unsigned)__builtin_ctzll(bits);
        sm->wtb[slot] = (uint8_t)t;
        sm->wk[slot] = k;
        sm->wmlp[slot] = (uint8_t)mlp;
        sm->wdep[slot] = (uint16_t)dep;
        sm->wbar[slot] = p->barrier_interval;
        sm->free_slots[slot] = mlp == 32 ? UINT32_MAX : (1u << mlp) - 1;
        sm->loads_out[slot] = 0;
        sm->ready_at[slot] = sm->now;
        uint64_t sbit = 1ull << slot;
        sm->at_bar &= ~sbit;
        sm->bar_park &= ~sbit;
        if (saved) {
            const struct kstate_warp_ctx *c = &saved->warp[i];
            sm->insts_left[slot] = c->insts_left;
            sm->compute_left[slot] = c->compute_left;
            sm->bar_left[slot] = c->bar_left;
            sm->next_kind[slot] = c->next_kind;
            sm->next_lines[slot] = c->next_lines;
            if (c->at_bar && c->insts_left) {
                sm->at_bar |= sbit;
                sm->ready_at[slot] = SM_NEVER;
                sm->tb[t].bar_wait++;
            }
        } else {
            sm->insts_left[slot] = p->insts_per_warp;
            sm->bar_left[slot] = p->barrier_interval;
            sm_draw_next(sm, slot);
            if (gap && sm->env->shared) {
                sm->ready_at[slot] = gap;
                sm_depq_push(sm, gap, slot);
            }
        }
        unsigned r = sm->nranks++;
        sm->slot_of_rank[r] = (uint8_t)slot;
        sm->rank_of_slot[slot] = (uint8_t)r;
        sm->sched[slot % sm->nsched] |= 1ull << r;
        sm->resident |= 1ull << slot;
        if (sm->insts_left[slot]) {
            tb->live++;
            sm_set_memnext(sm, slot);
            sm_maybe_ready(sm, slot);
        }
    }
    free(saved);
    if (tb->live == 0)
        tb_finish(sm, t);
    else if (tb->bar_wait)
        sm_bar_check(sm, t);
}

void sm_tb_fill(struct sm *sm)
{
    if (sm->env->sm_phase) { /* order-free: TBs are handed out at the block's end */
        if (sm->state == SM_RUN && sm->ntbs < sm->occ) {
            sm->fill_due = true;
            sm_mark_tb(sm);
        }
        return;
    }
    assert(sm->lazy_from == SM_NEVER); /* asleep in a rotation: sm_touch first */
    while (sm->state == SM_RUN && sm->ntbs < sm->occ && take_one(sm))
        ;
}

/* ---- ownership ---- */

void sm_attribute(struct sm *sm, uint64_t now)
{
    uint64_t span = now - sm->attr_since;
    if (sm->attr >= 0)
        sm_ctr(sm, sm->env->kernels[sm->attr])->sm_cycles += span;
    else if (sm->attr == SM_OWNER_GATED)
        sm->gated_cycles += span;
    else
        sm->idle_cycles += span;
    sm->attr_since = now;
}

/* The running kernel's parameters the SM keeps at hand (it holds none of its TBs). */
static void load_params(struct sm *sm)
{
    const struct kernel_profile *p = &sm->k->prof;
    const struct gpu_config *cfg = sm->env->cfg;
    sm->occ = sm->k->occupancy;
    sm->dep = p->dep_latency ? p->dep_latency : cfg->alu_latency_cycles;
    const struct unit_config *units[SM_UNITS] = {&cfg->sfu, &cfg->fp64, &cfg->shmem};
    for (unsigned u = 0; u < SM_UNITS; u++) {
        unsigned lanes = units[u]->lanes ? units[u]->lanes : 1;
        sm->unit_cost[u] = (32 * SM_UNIT_FIX + lanes - 1) / lanes;
        sm->unit_lat[u] = units[u]->latency_cycles ? units[u]->latency_cycles : 1;
    }
}

/* The SM's time and local instruction count go to resident kernel k from now on. */
static void rehome(struct sm *sm, struct kstate *k, uint64_t now)
{
    sm_flush_insts(sm);
    sm_attribute(sm, now);
    sm->k = k;
    sm->owner = sm->attr = (int)k->index;
    sm->launch_seen = k->launches;
    load_params(sm);
}

/* The SM holds no TBs: it becomes owner's, and takes TBs at once when fill is set (else the
 * caller dispatches them across SMs). */
void sm_switch_to(struct sm *sm, int owner, uint64_t now, bool fill)
{
    assert(sm->ntbs == 0 && sm->loads_pending == 0);
    if (sm->k)
        sm_flush_insts(sm);
    sm_attribute(sm, now);
    sm->resident = sm->soon = 0;
    sm->nranks = 0;
    sm->ready = sm->memnext = 0;
    memset(sm->sched, 0, sizeof(sm->sched));
    for (unsigned s = 0; s < SM_MAX_SCHEDULERS; s++)
        sm->greedy[s] = -1;
    sm->depq_count = 0;
    sm->at_bar = sm->bar_park = 0;
    memset(sm->unit_free, 0, sizeof(sm->unit_free));
    for (unsigned u = 0; u < SM_UNITS; u++)
        sm->unitq[u].head = sm->unitq[u].count = 0;
    sm->unitq_count = 0;
    sm->unit_next = SM_NEVER;
    /* A new kernel starts with cold L1s, as after a kernel boundary on a real GPU. */
    cache_invalidate_all(sm->l1d);
    cache_invalidate_all(sm->l1c);
    kstate_hist_clear(&sm->hist);
    sm->owner = owner;
    sm->save_started = false;
    if (owner >= 0) {
        sm->k = sm->env->kernels[owner];
        sm->launch_seen = sm->k->launches;
        sm->state = SM_RUN;
        load_params(sm);

    } else {
        sm->k = NULL;
        sm->state = owner == SM_OWNER_GATED ? SM_GATED : SM_IDLE;
    }
    sm->attr = owner;
    if (fill && sm->state == SM_RUN)
        sm_tb_fill(sm);
}

uint64_t sm_save_cost(const struct sm *sm)
{
    if (!sm->k || sm->ntbs == 0)
        return 0;
    return transfer_cycles(sm, sm->ntbs * tb_state_bytes(sm->k));
}

/* Saves every resident TB into its kernel's queue (the cost has been paid). */
void sm_save_tbs(struct sm *sm)
{
    for (unsigned t = 0; t < SM_MAX_TBS && sm->ntbs; t++) {
        if (!sm->tb[t].used)
            continue;
        unsigned wpt = sm->tb[t].wpt;
        assert(sm->tb[t].k == sm->k);
        struct kstate_saved_tb *tb = xmalloc(sizeof(*tb) + wpt * sizeof(struct kstate_warp_ctx));
        tb->nwarps = wpt;
        tb->addr = sm->tb[t].addr;
        uint64_t bits = sm->tb[t].slots;
        for (unsigned i = 0; i < wpt; i++, bits &= bits - 1) {
            unsigned slot = (unsigned)__builtin_ctzll(bits);
            tb->warp[i] = (struct kstate_warp_ctx){
                .insts_left = sm->insts_left[slot],
                .compute_left = sm->compute_left[slot],
                .bar_left = sm->bar_left[slot],
                .next_kind = sm->next_kind[slot],
                .next_lines = sm->next_lines[slot],
                .at_bar = (uint8_t)(sm->at_bar >> slot & 1),
            };
        }
        kstate_save_tb(sm->k, tb);
        sm->tb[t].used = 0;
        tb_account(sm, &sm->tb[t], -1);
        sm->ntbs--;
    }
    sm_dispatch(sm->env, sm->k, sm->now);
}

void sm_set_owner(struct sm *sm, int owner, enum sm_switch how, uint64_t now)
{
    sm_touch(sm);
    sm->now = now;
    int running = sm->k ? (int)sm->k->index : SM_OWNER_IDLE;
    if (sm->state == SM_IDLE || sm->state == SM_GATED || (sm->ntbs == 0 && !sm->loads_pending)) {
        if (owner != sm->owner || sm->state != SM_RUN)
            sm_switch_to(sm, owner, now, false);
    } else if (owner == running && !sm->save_started) {
        sm->owner = owner; /* back to the kernel it still runs: cancel the switch */
        sm->state = SM_RUN;
    } else {
        sm->owner = owner;
        if (owner != running && !(sm->state == SM_SAVE && sm->save_started))
            sm->state = how == SM_SWITCH_SAVE ? SM_SAVE : SM_DRAIN;
    }
    sm_wake(sm, now);
}

/* SAVE: once no load is in flight, pay the transfer cost, then hand the TBs back. */
void sm_try_save(struct sm *sm, uint64_t now)
{
    if (!sm->save_started) {
        if (sm->loads_pending || sm->outq_count || now < sm->stall_until)
            return;
        sm->save_started = true;
        sm->stall_until = now + sm_save_cost(sm);
    }
    if (now < sm->stall_until || sm->save_due)
        return;
    if (sm->env->sm_phase) { /* order-free: the kernel gets its TBs back at the block's end */
        sm->save_due = true;
        sm_mark_tb(sm);
        return;
    }
    sm_save_tbs(sm);
    sm_switch_to(sm, sm->owner, now, true);
}

void sm_after_tb_change(struct sm *sm, uint64_t now)
{
    sm->tb_freed = false;
    if (sm->env->shared) {
        sm_shared_after_tb(sm, now);
        return;
    }
    if (sm->state == SM_RUN)
        sm_tb_fill(sm);
    else if (sm->state == SM_DRAIN && sm->ntbs == 0 && sm->loads_pending == 0)
        sm_switch_to(sm, sm->owner, now, true);
}

/* ---- queries ---- */

int sm_owner(const struct sm *sm)
{
    return sm->owner;
}

int sm_attributed(const struct sm *sm)
{
    return sm->attr;
}

uint64_t sm_attributed_since(const struct sm *sm)
{
    return sm->attr_since;
}

enum sm_state sm_state(const struct sm *sm)
{
    return sm->state;
}

unsigned sm_resident_tbs(const struct sm *sm)
{
    return sm->ntbs;
}

unsigned sm_kernel_tbs(const struct sm *sm, unsigned k)
{
    return k < SIM_MAX_KERNELS ? sm->kcount[k] : 0;
}

uint64_t sm_tbs_finished(const struct sm *sm)
{
    return sm->tbs_finished;
}

uint64_t sm_tbs_finished_prev(const struct sm *sm)
{
    return sm->tbs_finished_prev;
}

uint64_t sm_idle_cycles(const struct sm *sm)
{
    return sm->idle_cycles;
}

uint64_t sm_gated_cycles(const struct sm *sm)
{
    return sm->gated_cycles;
}

void sm_reset_counters(struct sm *sm, uint64_t now)
{
    sm_attribute(sm, now);
    sm->tbs_finished_prev = sm->tbs_finished;
    sm->tbs_finished = 0;
    sm->idle_cycles = sm->gated_cycles = 0;
}
