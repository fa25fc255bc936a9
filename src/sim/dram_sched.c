/* dram_sched — channel schedulers. Each is one const table entry; adding BW-App or ASM priority
 * epochs means one more pick function and one more line in dram_schedulers[]. */
#include "dram_internal.h"

#include <assert.h>

/* The smallest key among the offers in mask that are legal now, all of them gated by the
 * channel-wide earliest cycle gate; DRAM_NEVER if none. The loop avoids data-dependent branches,
 * which would mispredict half the time on a random stream. */
static inline uint64_t oldest_legal(const struct dram_channel *ch, uint64_t mask, uint64_t gate,
                                    uint64_t now)
{
    uint64_t best = DRAM_NEVER;
    if (gate > now)
        return best;
    for (; mask; mask &= mask - 1) {
        unsigned b = (unsigned)__builtin_ctzll(mask);
        uint64_t key = ch->cand_key[b] | -(uint64_t)(ch->cand_ready[b] > now);
        best = key < best ? key : best;
    }
    return best;
}

/* The earliest cycle any offer in mask becomes legal. Only needed when nothing is legal now, and
 * exact, so that a channel sleeps until it really has something to do. */
static inline uint64_t earliest_legal(const struct dram_channel *ch, uint64_t mask, uint64_t gate)
{
    if (!mask)
        return DRAM_NEVER;
    uint64_t first = DRAM_NEVER;
    for (; mask; mask &= mask - 1) {
        unsigned b = (unsigned)__builtin_ctzll(mask);
        first = dram_min(first, ch->cand_ready[b]);
    }
    return dram_max(first, gate);
}

static bool take(const struct dram_channel *ch, uint64_t best, struct dram_pick *out)
{
    if (best == DRAM_NEVER)
        return false;
    unsigned b = (unsigned)(best & DRAM_KEY_BANK_MASK);
    *out = (struct dram_pick){(enum dram_command)ch->cand_cmd[b], b, ch->cand_slot[b]};
    return true;
}

/* FR-FCFS (Rixner et al.) with a row-hit cap: a legal column command to an open row beats any
 * PRE/ACT, and within each class the oldest request wins. Each bank already offers its FR-FCFS
 * candidate (see struct dram_channel), so this only ranks the offers. */
static bool frfcfs_pick(const struct dram *d, const struct dram_channel *ch, uint64_t now,
                        struct dram_pick *out, uint64_t *wake)
{
    uint64_t rd_gate = dram_channel_rd_ready(d, ch), wr_gate = dram_channel_wr_ready(d, ch);
    uint64_t act_gate = dram_channel_act_ready(ch);
    const uint64_t *offer = ch->offer;
    uint64_t best = dram_min(oldest_legal(ch, offer[DRAM_CMD_RD], rd_gate, now),
                             oldest_legal(ch, offer[DRAM_CMD_WR], wr_gate, now));
    if (take(ch, best, out))
        return true;
    best = dram_min(oldest_legal(ch, offer[DRAM_CMD_PRE], 0, now),
                    oldest_legal(ch, offer[DRAM_CMD_ACT], act_gate, now));
    if (take(ch, best, out))
        return true;
    uint64_t next = dram_min(earliest_legal(ch, offer[DRAM_CMD_RD], rd_gate),
                             earliest_legal(ch, offer[DRAM_CMD_WR], wr_gate));
    next = dram_min(next, earliest_legal(ch, offer[DRAM_CMD_PRE], 0));
    next = dram_min(next, earliest_legal(ch, offer[DRAM_CMD_ACT], act_gate));
    assert(next > now);
    *wake = next;
    return false;
}

static const struct dram_scheduler frfcfs = {"frfcfs", frfcfs_pick};

const struct dram_scheduler *const dram_schedulers[] = {&frfcfs};
const size_t dram_schedulers_count = sizeof(dram_schedulers) / sizeof(dram_schedulers[0]);
