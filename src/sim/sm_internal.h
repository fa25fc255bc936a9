/* sm_internal — the SM's state, shared by sm.c (stepping, issue, memory) and sm_tb.c (TBs,
 * ownership, context switches). Not part of the public API.
 *
 * Warps live in slots (stable indices, used in MSHR waiter tokens) and are ordered by age in
 * ranks: bit r of the ready/memnext/scheduler masks is the r-th oldest resident warp, so the
 * oldest ready warp is one count-trailing-zeros away. A TB's warps hold contiguous ranks,
 * which lets a finished TB be cut out of every mask with two shifts. Per-warp fields are kept
 * as arrays (one cache line holds a field of many warps) because the issue path touches one
 * or two fields of whichever warp the scheduler picks. */
#ifndef CORUN_SM_INTERNAL_H
#define CORUN_SM_INTERNAL_H

#include "corun/cache.h"
#include "corun/kstate.h"
#include "corun/rng.h"
#include "corun/simenv.h"
#include "corun/sm.h"

#include <assert.h>

#include <stdbool.h>
#include <stdint.h>

#define SM_OUTQ  32   /* request queue toward the crossbar, >= SM_MAX_LINES */
#define SM_DEPQ  2048 /* dependency queue: >= SM_MAX_SCHEDULERS * (SM_MAX_DEP_LATENCY + 1) */
#define SM_NEVER UINT64_MAX

struct sm_outreq {
    uint64_t line;
    uint16_t slice;
    uint8_t kind, kernel;
};

struct sm_timed {
    uint64_t ready;
    uint64_t line;  /* replies */
    uint32_t token; /* hits: warp slot << 5 | load slot; replies: is_const */
};

/* A FIFO of events whose ready cycles never decrease; grows when full (rare, never in the
 * steady state). */
struct sm_fifo {
    struct sm_timed *e;
    unsigned cap, head, count;
};

/* A resident TB. Its warps hold the slots of `slots` (contiguous ranks); in shared-dispatch
 * mode TBs of several kernels may share the SM, so each TB names its own kernel. */
struct sm_tbslot {
    uint8_t used, live;
    uint8_t bar_wait; /* live warps waiting at the TB's barrier */
    uint8_t wpt;
    bool streams; /* per-TB address streams (the kernel's pattern is not legacy) */
    struct kstate *k;
    uint64_t slots;
    struct kstate_tbaddr addr;
};

/* The SM's units other than the ALUs (gpu_config), in the order of enum kstate_inst from
 * KI_SFU. */
#define SM_UNITS    3
#define SM_UNIT_FIX 64 /* unit times are kept in 1/64 cycles */

/* Warps waiting for one unit's result, in issue order (the unit's latency is fixed, so their
 * ready cycles never decrease): entries (ready cycle << 8 | slot). A warp waits on at most
 * one such result, so SM_MAX_WARPS entries suffice. */
struct sm_unitq {
    uint64_t e[SM_MAX_WARPS];
    unsigned head, count;
};

struct sm {
    /* The fields a step reads come first, so that they share a few host cache lines; bulky
     * or cold ones follow. */
    unsigned id;
    struct sim_env *env;
    enum sm_state state;
    unsigned occ, dep, nsched;
    /* The kernel the SM's time counts for (its owner's; in shared-dispatch mode that of a
     * resident TB) and whose instructions insts_local counts; a TB of another kernel beside
     * it (shared dispatch only) counts straight into its own kernel. */
    struct kstate *k;
    unsigned nkern;       /* kernels with TBs here: more than one disables sm_ff */
    uint64_t launch_seen; /* the kernel's launch whose data the L1 may hold */
    uint64_t now, stall_until, wake_time;
    uint64_t ev_next;     /* earliest head of hits_d, hits_c and replies */
    uint64_t insts_local; /* instructions not yet added to the kernel's counters */
    bool tb_freed, save_started;
    bool credit_blocked; /* the request queue's head was refused by its slice */
    /* Asleep in a compute rotation (sm_ff.c): the fields hold the state at cycle lazy_from
     * (SM_NEVER: awake), the rotation ends at wake_time, and the kernel's counters hold its
     * instructions of the cycles before lazy_counted. */
    uint64_t lazy_from, lazy_counted;

    uint64_t resident; /* slot space */
    uint64_t soon;     /* slot space: issued a memory instruction, may go again next cycle */
    unsigned nranks, loads_pending;
    uint64_t ready, memnext, sched[SM_MAX_SCHEDULERS]; /* rank space */
    int greedy[SM_MAX_SCHEDULERS];                     /* slot, -1 none */
    unsigned depq_head, depq_count;                    /* of depq, below */
    unsigned outq_head, outq_count;                    /* of outq, below */
    unsigned outq_sent; /* order-free: the first outq_sent of outq left the SM this block */
    struct sm_fifo hits_d, hits_c, replies;
    struct cache *l1d, *l1c;
    unsigned l1d_lat, l1c_lat;
    uint8_t slot_of_rank[SM_MAX_WARPS], rank_of_slot[SM_MAX_WARPS];

    /* warps, by slot */
    uint64_t ready_at[SM_MAX_WARPS];
    uint32_t insts_left[SM_MAX_WARPS], compute_left[SM_MAX_WARPS];
    uint32_t free_slots[SM_MAX_WARPS]; /* free load slots, one bit each */
    uint8_t next_kind[SM_MAX_WARPS], next_lines[SM_MAX_WARPS];
    uint8_t loads_out[SM_MAX_WARPS], wtb[SM_MAX_WARPS];
    uint8_t pending[SM_MAX_WARPS][SM_MAX_MLP]; /* lines outstanding per load slot */
    uint32_t bar_left[SM_MAX_WARPS];           /* instructions to the next barrier, inclusive */
    /* the warp's kernel and its parameters */
    struct kstate *wk[SM_MAX_WARPS];
    uint8_t wmlp[SM_MAX_WARPS];
    uint16_t wdep[SM_MAX_WARPS];
    uint32_t wbar[SM_MAX_WARPS]; /* barrier interval */
    uint64_t at_bar;             /* slot space: waiting at the TB's barrier */
    uint64_t bar_park;           /* slot space: at a barrier, waiting for its own loads first */

    /* SFU, FP64 and shared memory */
    uint64_t unit_free[SM_UNITS]; /* 1/64 cycles: when the unit takes its next instruction */
    unsigned unit_cost[SM_UNITS]; /* 1/64 cycles a warp instruction holds it */
    unsigned unit_lat[SM_UNITS];
    unsigned unitq_count; /* over the three queues */
    uint64_t unit_next;   /* earliest head of the three queues (SM_NEVER: all empty) */
    uint64_t unit_retry;  /* earliest cycle a refused unit frees (SM_NEVER: none) */
    struct sm_unitq unitq[SM_UNITS];

    struct rng rng;
    int owner; /* target owner */
    struct sm_outreq outq[SM_OUTQ];
    struct sm_tbslot tb[SM_MAX_TBS];
    unsigned ntbs;
    /* what the resident TBs use of the SM's resources (kstate_occupancy's model), and their
     * count per kernel */
    unsigned warps_used;
    uint64_t regs_used, smem_used;
    uint8_t kcount[SIM_MAX_KERNELS];
    struct kstate_hist hist;

    uint64_t tbs_finished, tbs_finished_prev;
    int attr;
    uint64_t attr_since, idle_cycles, gated_cycles;

    /* Order-free rules (gpu.order_free): the lane the SM is stepped with this block, the
     * cycles its sent requests left it, its TBs finished per kernel, whether it wants TBs
     * and has TBs to save (sm_block_done does all of that at the block's end); and a legacy
     * stream's cursor of its own per kernel. */
    struct sm_lane *lane;
    uint64_t outq_sent_at[SM_OUTQ];
    uint16_t fin[SIM_MAX_KERNELS];
    bool fill_due, save_due;
    struct kstate_cursor lcur[SIM_MAX_KERNELS];

    /* Compute dependencies (and, in shared-dispatch mode, warps held back by their grid's
     * launch gap): (ready cycle << 8 | slot) in order of ready cycle, ties in issue order. */
    uint64_t depq[SM_DEPQ];
};

/* Sets warp slot ready if nothing holds it back at cycle sm->now. */
static inline void sm_maybe_ready(struct sm *sm, unsigned slot)
{
    if (!(sm->resident >> slot & 1) || sm->insts_left[slot] == 0 ||
        sm->loads_out[slot] >= sm->wmlp[slot] || sm->ready_at[slot] > sm->now)
        return;
    sm->ready |= 1ull << sm->rank_of_slot[slot];
}

static inline void sm_set_memnext(struct sm *sm, unsigned slot)
{
    uint64_t bit = 1ull << sm->rank_of_slot[slot];
    if (sm->compute_left[slot] == 0 && sm->insts_left[slot] > 0)
        sm->memnext |= bit;
    else
        sm->memnext &= ~bit;
}

/* Draws the warp's next run of compute instructions and the non-compute one after it; a run
 * that would pass the warp's next barrier stops at it, and the barrier comes next. */
static inline void sm_draw_next(struct sm *sm, unsigned slot)
{
    struct kstate *k = sm->wk[slot];
    uint32_t run = kstate_draw_compute_run(k, &sm->rng);
    kstate_draw_mem(k, &sm->rng, &sm->next_kind[slot], &sm->next_lines[slot]);
    if (sm->wbar[slot]) {
        uint64_t group = (uint64_t)run + 1, left = sm->bar_left[slot];
        if (group >= left) {
            run = (uint32_t)(left - 1);
            sm->next_kind[slot] = KI_BAR;
            sm->next_lines[slot] = 0;
            sm->bar_left[slot] = 0;
        } else {
            sm->bar_left[slot] = (uint32_t)(left - group);
        }
    }
    sm->compute_left[slot] = run;
}

/* The counters of kernel k this SM adds to: the kernel's own, or, during the order-free SM
 * phase (when SMs may run side by side), the SM's share, which sm_block_done adds to the
 * kernel's. */
static inline struct kstate_counters *sm_ctr(struct sm *sm, struct kstate *k)
{
    if (!sm->env->sm_phase)
        return &k->c;
    sm->lane->kc_dirty |= 1u << k->index;
    return &sm->lane->kc[k->index];
}

/* Order-free: the SM has TB business for the block's end. */
static inline void sm_mark_tb(struct sm *sm)
{
    sm->lane->tb[sm->id / 64] |= 1ull << (sm->id % 64);
}

/* Adds n instructions to kernel k's counters (and its running total). */
static inline void sm_add_insts(struct sm *sm, struct kstate *k, uint64_t n)
{
    if (sm->env->sm_phase) {
        sm->lane->kc_dirty |= 1u << k->index;
        sm->lane->kc[k->index].insts += n;
        return;
    }
    k->c.insts += n;
    k->insts_total += n;
}

/* Counts an instruction of warp slot: locally for the SM's kernel, else in its own. (An SM
 * holding one kernel's TBs holds sm->k's: tb_finish keeps it so.) */
static inline void sm_count_inst(struct sm *sm, unsigned slot)
{
    struct kstate *k;
    if (sm->nkern <= 1 || (k = sm->wk[slot]) == sm->k) {
        sm->insts_local++;
    } else {
        sm_add_insts(sm, k, 1);
    }
}

/* Queues warp slot to be looked at again at cycle ready. Entries of one kernel come in order
 * of ready cycle; one of a kernel with a shorter latency, or of a launch gap, goes back past
 * the later ones. */
static inline void sm_depq_push(struct sm *sm, uint64_t ready, unsigned slot)
{
    assert(sm->depq_count < SM_DEPQ);
    unsigned i = (sm->depq_head + sm->depq_count++) & (SM_DEPQ - 1);
    while (i != sm->depq_head && sm->depq[(i - 1) & (SM_DEPQ - 1)] >> 8 > ready) {
        sm->depq[i] = sm->depq[(i - 1) & (SM_DEPQ - 1)];
        i = (i - 1) & (SM_DEPQ - 1);
    }
    sm->depq[i] = ready << 8 | slot;
}

/* Adds the instructions counted locally to the kernel's counters. */
static inline void sm_flush_insts(struct sm *sm)
{
    if (sm->insts_local) {
        sm_add_insts(sm, sm->k, sm->insts_local);
        sm->insts_local = 0;
    }
}

/* In sm_ff.c: runs the SM from cycle t (not yet stepped) through the cycles before limit in
 * which it only repeats its compute rotation; returns the first cycle still to step (t when
 * the SM is not in that state). A rotation that lasts well past limit puts the SM to sleep
 * in it instead: then the return value is the rotation's end, past limit. */
uint64_t sm_fast_forward(struct sm *sm, uint64_t t, uint64_t limit);
/* Wakes a sleeping SM at cycle `to` (lazy_from <= to <= wake_time): its fields become those
 * of the per-cycle model after stepping through to - 1. */
void sm_lazy_materialize(struct sm *sm, uint64_t to);

/* In sm_tb.c: */
void sm_tb_fill(struct sm *sm);
void sm_warp_done(struct sm *sm, unsigned slot);
/* Releases TB t's warps from its barrier when every live warp has arrived. */
void sm_bar_check(struct sm *sm, unsigned t);
void sm_after_tb_change(struct sm *sm, uint64_t now);
void sm_try_save(struct sm *sm, uint64_t now);
/* Saves every resident TB into its kernel's queue (the cost has been paid) and hands them to
 * the kernel's SMs with room. */
void sm_save_tbs(struct sm *sm);
void sm_attribute(struct sm *sm, uint64_t now);
/* Takes one TB of k into the SM (false when k has none left); the caller checked the room. */
bool sm_take_tb(struct sm *sm, struct kstate *k);
/* The SM holds no TBs: it becomes owner's (takes its TBs at once when fill is set). */
void sm_switch_to(struct sm *sm, int owner, uint64_t now, bool fill);

/* In sm_shared.c (shared dispatch): after a TB change of sm, frees it when empty, and hands
 * room to the grids in line. */
void sm_shared_after_tb(struct sm *sm, uint64_t now);

#endif
