/* sm_order — the end of a block under the order-free rules (gpu.order_free).
 *
 * Under the ordered rules an SM stepped through a block reaches the shared parts at once: its
 * request is granted or refused by its slice against the room the SMs stepped before it left,
 * the slice's port is granted in the order the SMs run, and a TB it finishes or wants goes
 * through its grid's dispatcher before the next SM runs. So the results depend on the order
 * the SMs are stepped in. Under the order-free rules an SM keeps all of that to itself during
 * the block, and sm_block_done does it afterwards in an order that does not depend on the
 * stepping: requests SM by SM from the block's first SM (the rotation the ordered rules step
 * the SMs in), against the slices' queues as the block began; the grids' business by SM
 * number at the block's last cycle. Nothing an SM does in a block then depends on another
 * SM's same block, which is what stepping SMs side by side needs. A real crossbar also grants
 * its slice ports apart from its SM ports, and a TB scheduler hears of a finished TB some
 * cycles late. */
#include "corun/gpu.h"
#include "corun/llc.h"
#include "corun/util.h"
#include "corun/wake.h"
#include "sm_internal.h"

#include <assert.h>

/* Hands the SM's sent requests to their slices until one is refused. */
static void send_all(struct sim_env *e, struct sm *sm)
{
    unsigned done = 0;
    for (; done < sm->outq_sent; done++) {
        unsigned i = (sm->outq_head + done) % SM_OUTQ;
        const struct sm_outreq *o = &sm->outq[i];
        if (!llc_send_sent(e->llc, sm->id, o->slice, o->line, (enum llc_kind)o->kind, o->kernel,
                           sm->outq_sent_at[i])) {
            sm->credit_blocked = true;
            break;
        }
    }
    sm->outq_head = (sm->outq_head + done) % SM_OUTQ;
    sm->outq_count -= done;
    sm->outq_sent = 0;
}

/* Hands the block's requests to their slices SM by SM, each SM's in the order it sent them,
 * starting with env->sm_first (which moves on by one SM a block): the order the ordered rules
 * step the SMs in, so a slice sees what it sees under them. An SM whose request a slice
 * refuses keeps it and every later one (the slice wakes it when room frees, sm_room). sent:
 * the SMs that sent (bits). */
static void hand_requests(struct sim_env *e, const uint64_t *sent)
{
    for (unsigned pass = 0; pass < 2; pass++) { /* [first, n), then [0, first) */
        unsigned lo = pass ? 0 : e->sm_first, hi = pass ? e->sm_first : e->nsms;
        for (unsigned id = lo; (id = util_next_bit(sent, id, hi)) < hi; id++)
            send_all(e, e->sms[id]);
    }
}

/* Adds a lane's counts of the block to the kernels' counters (all of them uint64_t). */
static void fold_counters(struct sim_env *e, struct sm_lane *lane)
{
    static_assert(sizeof(struct kstate_counters) % sizeof(uint64_t) == 0,
                  "kstate_counters holds uint64_t counters only");
    for (uint32_t bits = lane->kc_dirty; bits; bits &= bits - 1) {
        unsigned k = (unsigned)__builtin_ctz(bits);
        struct kstate *ks = e->kernels[k];
        ks->insts_total += lane->kc[k].insts;
        /* Only the counts the SMs make: the LLC's (l2_*) are the memory side's, which may be
         * counting them on another thread now (gpu_split). */
        uint64_t *to = (uint64_t *)&ks->c, *from = (uint64_t *)&lane->kc[k];
        for (size_t i = 0; i < sizeof(struct kstate_counters) / sizeof(uint64_t); i++)
            if (from[i]) {
                to[i] += from[i];
                from[i] = 0;
            }
    }
    lane->kc_dirty = 0;
}

/* The SMs with TB business at the block's end, by number, at cycle now: the grids hear of the
 * finished TBs first (a completed grid is launched again), then the saved TBs go back to their
 * kernels, then the SMs with room take TBs. */
static void tb_business(struct sim_env *e, const uint64_t *tb, uint64_t now)
{
    unsigned words = (e->nsms + 63) / 64;
    for (unsigned wi = 0; wi < words; wi++)
        for (uint64_t bits = tb[wi]; bits; bits &= bits - 1) {
            struct sm *sm = e->sms[wi * 64 + (unsigned)__builtin_ctzll(bits)];
            for (unsigned k = 0; k < e->nkernels; k++)
                for (; sm->fin[k]; sm->fin[k]--)
                    if (kstate_tb_finished(e->kernels[k], now))
                        sm_dispatch(e, e->kernels[k], now);
        }
    for (unsigned wi = 0; wi < words; wi++)
        for (uint64_t bits = tb[wi]; bits; bits &= bits - 1) {
            struct sm *sm = e->sms[wi * 64 + (unsigned)__builtin_ctzll(bits)];
            if (!sm->save_due)
                continue;
            sm->save_due = false;
            sm_touch(sm);
            if (sm->now < now)
                sm->now = now;
            sm_save_tbs(sm);
            sm_switch_to(sm, sm->owner, now, true);
            sm_wake(sm, now + 1);
        }
    for (unsigned wi = 0; wi < words; wi++)
        for (uint64_t bits = tb[wi]; bits; bits &= bits - 1) {
            struct sm *sm = e->sms[wi * 64 + (unsigned)__builtin_ctzll(bits)];
            if (!sm->fill_due)
                continue;
            sm->fill_due = false;
            sm_touch(sm); /* it may have gone to sleep in a rotation since it asked */
            if (sm->now < now)
                sm->now = now;
            sm_tb_fill(sm);
            sm_wake(sm, now + 1);
        }
}

void sm_block_done(struct sim_env *e, struct sm_lane *const *lanes, unsigned nlanes)
{
    assert(e->order_free && !e->sm_phase && nlanes >= 1);
    unsigned words = lanes[0]->words;
    uint64_t sent[16], tb[16]; /* 1024 SMs at most (gpu_config_check) */
    assert(words <= 16);
    for (unsigned wi = 0; wi < words; wi++) {
        sent[wi] = tb[wi] = 0;
        for (unsigned l = 0; l < nlanes; l++) {
            sent[wi] |= lanes[l]->sent[wi];
            tb[wi] |= lanes[l]->tb[wi];
            lanes[l]->sent[wi] = lanes[l]->tb[wi] = 0;
        }
    }
    hand_requests(e, sent);
    for (unsigned l = 0; l < nlanes; l++) {
        struct sm_lane *lane = lanes[l];
        fold_counters(e, lane);
        for (unsigned i = 0; i < lane->nwake; i++)
            wake_at(e->sm_wake, lane->wake[i].sm, e->sm_block_end, lane->wake[i].t);
        lane->nwake = 0;
    }
    tb_business(e, tb, e->sm_block_end - 1);
}
