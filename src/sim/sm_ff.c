/* sm_ff — fast-forwarding an SM through cycles in which it only issues compute instructions,
 * within a block and, asleep, across blocks.
 *
 * The per-cycle model (sm.c) under a fixed dependency latency D >= 2: a compute instruction
 * issued at cycle u makes its warp ready again at u + D, and each scheduler issues the oldest
 * ready warp (its greedy warp, the one it issued last, is never ready one cycle later). Call a
 * scheduler "in rotation" at cycle t when it issued a compute instruction in each of the cycles
 * t - D .. t - 1, to D warps that are older than every other warp it has ready. Then at t the
 * warp issued at t - D comes back and is the oldest ready one, so it issues again, and so on:
 * the scheduler cycles through the same D warps in the same order, one per cycle, and nothing
 * else of the SM changes as long as
 *   - each of those warps has a compute instruction left that is not its warp's last
 *     (a memory instruction or the end of a warp is an event the per-cycle model handles),
 *   - no load completes (ev_next), no request waits to be injected, no restore stall, and no
 *     TB change.
 * rotation_end recognises that state from the dependency queue alone (it holds exactly the
 * last D issues of every scheduler) and finds the first cycle at which one of the above ends;
 * rotation_jump leaves every field exactly as the per-cycle steps would have: the same
 * instructions issued by the same warps, the same ready times, queue order, greedy warps and
 * counts.
 *
 * A rotation that ends within the block is jumped over at once. One that outlasts the block
 * puts the SM to sleep "in rotation since lazy_from": its fields stay as they were at
 * lazy_from, it is woken at the rotation's end (wake_time, lowered by sm_wake when a
 * reply is on its way), and anything that reads or changes it first brings it to the cycle the
 * per-cycle model would have stepped it to by then (sm_touch). Its instructions reach the
 * kernel's counters whenever the per-cycle model's would have been flushed by an observer
 * (sm_count_lazy). The test fast_forward_equals_per_cycle (test_gpu.c) runs both ways and
 * compares the counters. An SM holding TBs of more than one kernel (shared dispatch) is never
 * in rotation. */
#include "corun/wake.h"
#include "sm_internal.h"

#include <assert.h>

#define FF_MIN_CYCLES 2 /* shorter jumps are left to the per-cycle step */

/* The first cycle from t (not yet stepped) that the SM's compute rotation does not cover, or t
 * when it is not in rotation or the rotation covers fewer than FF_MIN_CYCLES cycles. */
static uint64_t rotation_end(const struct sm *sm, uint64_t t)
{
    unsigned D = sm->dep, ns = sm->nsched, n = ns * D;
    /* Warps of several kernels (shared dispatch) have several latencies: no rotation. */
    if (D < 2 || sm->nkern > 1 || sm->depq_count != n || sm->soon || sm->outq_count ||
        sm->unitq_count || sm->tb_freed || sm->stall_until > t ||
        (sm->state != SM_RUN && sm->state != SM_DRAIN))
        return t;
    uint64_t end = sm->ev_next;
    if (end < t + FF_MIN_CYCLES)
        return t;

    /* Entry i = j * ns + s: the warp scheduler s issued at t - D + j, ready again at t + j. */
    const uint64_t *q0 = sm->depq;
    unsigned head = sm->depq_head;
    if (q0[head] >> 8 != t || q0[(head + n - 1) & (SM_DEPQ - 1)] >> 8 != t + D - 1)
        return t; /* the quick test that fails in most cycles after an event */
    unsigned maxrank[SM_MAX_SCHEDULERS] = {0};
    for (unsigned j = 0, i = 0; j < D; j++) {
        for (unsigned s = 0; s < ns; s++, i++) {
            uint64_t e = q0[(head + i) & (SM_DEPQ - 1)];
            unsigned slot = e & 0xff, r = sm->rank_of_slot[slot];
            if (e >> 8 != t + j || !(sm->sched[s] >> r & 1))
                return t;
            if (r > maxrank[s])
                maxrank[s] = r;
            /* Its next pick, at t + j + q*D, is the first that is not a plain compute issue. */
            uint32_t q = sm->compute_left[slot];
            if (sm->insts_left[slot] - 1 < q)
                q = sm->insts_left[slot] - 1;
            uint64_t stop = t + j + (uint64_t)q * D;
            if (stop < end) {
                end = stop;
                if (end < t + FF_MIN_CYCLES)
                    return t; /* a warp about to leave the rotation: the common failure */
            }
        }
    }
    for (unsigned s = 0; s < ns; s++) {
        uint64_t older = maxrank[s] >= 63 ? ~0ull : (2ull << maxrank[s]) - 1;
        if (sm->ready & sm->sched[s] & older)
            return t; /* an older warp is ready: the rotation would change */
    }
    return end;
}

/* Moves the rotating SM from cycle t to cycle end (t < end <= rotation_end), all but the
 * instruction count: the warp at position j issued at t + j, t + j + D, ... */
static void rotation_jump(struct sm *sm, uint64_t t, uint64_t end)
{
    unsigned D = sm->dep, ns = sm->nsched, n = D * ns, head = sm->depq_head;
    /* rot[j * ns + s]: the warp of scheduler s at position j. The n warps are distinct (a warp
     * issues at most once in D cycles, and belongs to one scheduler), so the order of the
     * updates below does not matter. */
    uint8_t rot[SM_MAX_SCHEDULERS * (SM_MAX_DEP_LATENCY + 1)];
    for (unsigned i = 0; i < n; i++)
        rot[i] = (uint8_t)sm->depq[(head + i) & (SM_DEPQ - 1)];
    /* span = q * D + r: the warp at position j issued q + (j < r) times. */
    uint64_t span = end - t, q = span / D;
    unsigned r = (unsigned)(span - q * D), jmax = span < D ? (unsigned)span : D;
    uint64_t memnext = 0;
    for (unsigned j = 0; j < jmax; j++) {
        uint32_t issued = (uint32_t)q + (j < r);
        uint64_t ready = t + j + (uint64_t)issued * D;
        for (unsigned s = 0; s < ns; s++) {
            unsigned slot = rot[j * ns + s];
            sm->insts_left[slot] -= issued;
            sm->ready_at[slot] = ready;
            if ((sm->compute_left[slot] -= issued) == 0)
                memnext |= 1ull << sm->rank_of_slot[slot];
        }
    }
    sm->memnext |= memnext;
    const uint8_t *last = rot + (r ? r - 1 : D - 1) * ns; /* position (span - 1) mod D */
    for (unsigned s = 0; s < ns; s++)
        sm->greedy[s] = last[s];
    /* The queue now holds the issues of end - D .. end - 1, by ready cycle then scheduler. */
    for (unsigned i = 0; i < D; i++) {
        const uint8_t *from = rot + (r + i < D ? r + i : r + i - D) * ns; /* (span + i) mod D */
        uint64_t *to = sm->depq, ready = (end + i) << 8;
        for (unsigned s = 0; s < ns; s++)
            to[(head + i * ns + s) & (SM_DEPQ - 1)] = ready | from[s];
    }
    sm->now = end - 1;
}

uint64_t sm_fast_forward(struct sm *sm, uint64_t t, uint64_t limit)
{
    uint64_t end = rotation_end(sm, t);
    if (end == t)
        return t;
    if (end > limit) { /* sleep through the rest: nothing is done until something looks */
        sm->lazy_from = sm->lazy_counted = t;
        return end;
    }
    rotation_jump(sm, t, end);
    sm->insts_local += (end - t) * sm->nsched;
    return end;
}

/* The cycle the per-cycle model would have stepped the SM to by now: the end of the current
 * block for SMs run before the one running (and outside the SM phase), else its start. */
static uint64_t reference_cycle(const struct sm *sm)
{
    const struct sim_env *e = sm->env;
    if (e->sm_running >= e->nsms)
        return e->sm_block_end;
    unsigned n = e->nsms, first = e->sm_first;
    unsigned pos = (sm->id + n - first) % n, cur = (e->sm_running + n - first) % n;
    return pos < cur ? e->sm_block_end : e->sm_block_start;
}

/* Adds the sleeping SM's instructions of the cycles before `to` to its kernel's counters. */
static void lazy_count(struct sm *sm, uint64_t to)
{
    if (to <= sm->lazy_counted)
        return;
    uint64_t n = (to - sm->lazy_counted) * sm->nsched;
    sm_add_insts(sm, sm->k, n);
    sm->lazy_counted = to;
}

void sm_lazy_materialize(struct sm *sm, uint64_t to)
{
    assert(sm->lazy_from != SM_NEVER && sm->lazy_from <= to && to <= sm->wake_time);
    lazy_count(sm, to);
    if (to > sm->lazy_from)
        rotation_jump(sm, sm->lazy_from, to);
    sm->now = to - 1;
    sm->lazy_from = SM_NEVER;
    sm->wake_time = to;
}

void sm_touch(struct sm *sm)
{
    if (sm->lazy_from == SM_NEVER)
        return;
    struct sim_env *e = sm->env;
    uint64_t to = reference_cycle(sm);
    sm_lazy_materialize(sm, to);
    if (to < e->sm_block_end) /* its turn in the current block is still to come */
        e->sm_due[sm->id / 64] |= 1ull << (sm->id % 64);
    else
        wake_at(e->sm_wake, sm->id, e->sm_block_end, to);
}

void sm_count_lazy(struct sim_env *env)
{
    for (unsigned i = 0; i < env->nsms; i++) {
        struct sm *sm = env->sms[i];
        if (sm->lazy_from != SM_NEVER)
            lazy_count(sm, reference_cycle(sm));
    }
}
