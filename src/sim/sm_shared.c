/* sm_shared — thread-block dispatch in shared-dispatch mode (gpu_new_shared): no partition, the
 * grids launched on the streams place their TBs first come, first served.
 *
 * The oldest grid with TBs left places them breadth-first, one per SM per round: idle SMs
 * (which then count their time for it) and SMs whose time already counts for it first, then
 * any other SM with room for one of its TBs. Room is kstate_occupancy's resource model summed
 * over the TBs an SM holds, whatever their kernel: TB slots, warp slots, registers and shared
 * memory, and no more of a kernel's TBs than its occupancy. A younger grid places TBs only
 * once every older one has handed out all of its own; then it takes room beside them (the
 * leftover policy of concurrent kernel execution). An SM that holds no TB is idle. */
#include "corun/gpu.h"
#include "sm_internal.h"

/* true when sm (running) can take one more TB of k beside those it holds. */
static bool has_room(const struct sm *sm, const struct kstate *k)
{
    const struct kernel_profile *p = &k->prof;
    const struct kstate_sm_limits *lim = &k->limits;
    return sm->kcount[k->index] < k->occupancy && sm->ntbs < lim->tbs &&
           sm->warps_used + p->warps_per_tb <= lim->warps &&
           sm->regs_used + kstate_tb_regs(p) <= lim->regs &&
           sm->smem_used + kstate_tb_smem(p) <= lim->smem_bytes;
}

/* Places one TB of grid ki on o if it may (pass 0: o is idle or counts for ki; pass 1: any
 * other running SM with room); returns true when it did. */
static bool place_one(struct sim_env *env, struct sm *o, unsigned ki, unsigned pass, uint64_t now)
{
    struct kstate *k = env->kernels[ki];
    bool own = o->state == SM_IDLE || (o->state == SM_RUN && o->k == k);
    if (own != (pass == 0) || !kstate_has_tb(k))
        return false;
    if (o->state == SM_IDLE) {
        /* An SM run ahead within the block has attributed its time up to its own clock. */
        uint64_t t = o->attr_since > now ? o->attr_since : now;
        sm_set_owner(o, (int)ki, SM_SWITCH_DRAIN, t);
    } else {
        if (o->state != SM_RUN || !has_room(o, k))
            return false;
        sm_touch(o);
        if (o->now < now)
            o->now = now;
    }
    if (env->started_at[ki] == UINT64_MAX)
        env->started_at[ki] = o->now;
    bool took = sm_take_tb(o, k);
    assert(took);
    (void)took;
    sm_wake(o, now + 1);
    return true;
}

/* Grid ki places TBs where there is room, `first` (when not NULL) before the others. */
static void place_grid(struct sim_env *env, unsigned ki, struct sm *first, uint64_t now)
{
    for (bool more = true; more;) {
        more = false;
        for (unsigned pass = 0; pass < 2; pass++) {
            for (unsigned j = 0; j <= env->nsms; j++) {
                struct sm *o = j == 0 ? first : env->sms[j - 1];
                if (!o || (j > 0 && o == first))
                    continue;
                more |= place_one(env, o, ki, pass, now);
            }
        }
    }
}

/* Hands room to the grids in line, oldest launch first; each grid places TBs only once the
 * ones before it have handed out all of theirs. */
static void shared_dispatch(struct sim_env *env, struct sm *first, uint64_t now)
{
    unsigned kept = 0;
    for (unsigned q = 0; q < env->nfcfs; q++) {
        unsigned ki = env->fcfs[q];
        if (kept == 0)
            place_grid(env, ki, first, now);
        if (kstate_has_tb(env->kernels[ki]))
            env->fcfs[kept++] = ki;
    }
    env->nfcfs = kept;
}

void sm_shared_dispatch(struct sim_env *env, uint64_t now)
{
    shared_dispatch(env, NULL, now);
}

void sm_shared_after_tb(struct sm *sm, uint64_t now)
{
    if (sm->state != SM_RUN)
        return;
    if (sm->ntbs == 0) {
        /* Free for the grids in line (a warp ends only after its loads, so none is in
         * flight). */
        sm_switch_to(sm, SM_OWNER_IDLE, now, false);
    }
    shared_dispatch(sm->env, sm, now);
}
