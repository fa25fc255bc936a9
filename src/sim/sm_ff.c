/* sm_ff — fast-forwarding an SM through cycles in which it only issues compute instructions.
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
 *   - no load completes (ev_next), no request waits to be injected, no restore stall, no
 *     TB change, and the block does not end.
 * sm_fast_forward recognises that state from the dependency queue alone (it holds exactly the
 * last D issues of every scheduler) and jumps to the first cycle at which one of the above
 * ends, leaving every field exactly as the per-cycle steps would have: the same instructions
 * issued by the same warps, the same ready times, queue order, greedy warps and counts. The
 * test fast_forward_equals_per_cycle (test_gpu.c) runs both ways and compares the counters. */
#include "sm_internal.h"

#define FF_MIN_CYCLES 2 /* shorter jumps are left to the per-cycle step */

uint64_t sm_fast_forward(struct sm *sm, uint64_t t, uint64_t limit)
{
    unsigned D = sm->dep, ns = sm->nsched, n = ns * D;
    if (D < 2 || sm->depq_count != n || sm->soon || sm->outq_count || sm->tb_freed ||
        sm->stall_until > t || (sm->state != SM_RUN && sm->state != SM_DRAIN))
        return t;
    uint64_t end = limit < sm->ev_next ? limit : sm->ev_next;
    if (end < t + FF_MIN_CYCLES)
        return t;

    /* rot[s][j]: the warp scheduler s issued at t - D + j, ready again at t + j. */
    const uint64_t *q0 = sm->depq;
    unsigned head = sm->depq_head;
    if (q0[head] >> 8 != t || q0[(head + n - 1) & (SM_DEPQ - 1)] >> 8 != t + D - 1)
        return t; /* the quick test that fails in most cycles after an event */
    uint8_t rot[SM_MAX_SCHEDULERS][SM_MAX_DEP_LATENCY + 1];
    unsigned maxrank[SM_MAX_SCHEDULERS] = {0};
    for (unsigned j = 0, i = 0; j < D; j++) {
        for (unsigned s = 0; s < ns; s++, i++) {
            uint64_t e = q0[(head + i) & (SM_DEPQ - 1)];
            unsigned slot = e & 0xff, r = sm->rank_of_slot[slot];
            if (e >> 8 != t + j || !(sm->sched[s] >> r & 1))
                return t;
            rot[s][j] = (uint8_t)slot;
            if (r > maxrank[s])
                maxrank[s] = r;
            /* Its next pick, at t + j + q*D, is the first that is not a plain compute issue. */
            uint32_t q = sm->compute_left[slot];
            if (sm->insts_left[slot] - 1 < q)
                q = sm->insts_left[slot] - 1;
            uint64_t stop = t + j + (uint64_t)q * D;
            if (stop < end)
                end = stop;
        }
    }
    if (end < t + FF_MIN_CYCLES)
        return t;
    for (unsigned s = 0; s < ns; s++) {
        uint64_t older = maxrank[s] >= 63 ? ~0ull : (2ull << maxrank[s]) - 1;
        if (sm->ready & sm->sched[s] & older)
            return t; /* an older warp is ready: the rotation would change */
    }

    /* Jump over [t, end): the warp at position j issued at t + j, t + j + D, ... */
    uint64_t span = end - t;
    for (unsigned s = 0; s < ns; s++) {
        for (unsigned j = 0; j < D; j++) {
            unsigned slot = rot[s][j];
            uint32_t issued = j < span ? (uint32_t)((span - j + D - 1) / D) : 0;
            if (!issued)
                continue;
            sm->compute_left[slot] -= issued;
            sm->insts_left[slot] -= issued;
            sm->ready_at[slot] = t + j + (uint64_t)issued * D;
            if (sm->compute_left[slot] == 0)
                sm->memnext |= 1ull << sm->rank_of_slot[slot];
        }
        sm->greedy[s] = rot[s][(span - 1) % D];
    }
    /* The queue now holds the issues of end - D .. end - 1, by ready cycle then scheduler. */
    for (unsigned i = 0; i < D; i++) {
        unsigned j = (unsigned)((span + i) % D);
        for (unsigned s = 0; s < ns; s++)
            sm->depq[(sm->depq_head + i * ns + s) & (SM_DEPQ - 1)] = (end + i) << 8 | rot[s][j];
    }
    sm->insts_local += span * ns;
    sm->now = end - 1;
    return end;
}
