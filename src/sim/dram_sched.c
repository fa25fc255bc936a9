/* dram_sched — channel schedulers. Each is one const table entry: a pick function and an
 * optional re-ranking of the applications.
 *
 * Ranks (dram_internal.h) come from ASM's priority epochs (dram_set_priority_app) and from a
 * scheduler's rerank; a bank offers FR-FCFS within the best rank it holds, and the pick ranks
 * applications before row hits: a better-ranked PRE/ACT goes before a worse-ranked hit. */
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

/* The best legal column command (RD/WR) and the best legal row command (PRE/ACT) by key. */
static inline uint64_t column_key(const struct dram_channel *ch, uint64_t rd_gate, uint64_t wr_gate,
                                  uint64_t now)
{
    return dram_min(oldest_legal(ch, ch->offer[DRAM_CMD_RD], rd_gate, now),
                    oldest_legal(ch, ch->offer[DRAM_CMD_WR], wr_gate, now));
}

static inline uint64_t row_key(const struct dram_channel *ch, uint64_t act_gate, uint64_t now)
{
    return dram_min(oldest_legal(ch, ch->offer[DRAM_CMD_PRE], 0, now),
                    oldest_legal(ch, ch->offer[DRAM_CMD_ACT], act_gate, now));
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
 * candidate (see struct dram_channel), so this only ranks the offers. With ranks, the
 * application's rank comes before all that. */
static bool frfcfs_pick(const struct dram *d, const struct dram_channel *ch, uint64_t now,
                        struct dram_pick *out, uint64_t *wake)
{
    uint64_t rd_gate = dram_channel_rd_ready(d, ch), wr_gate = dram_channel_wr_ready(d, ch);
    uint64_t act_gate = dram_channel_act_ready(ch);
    const uint64_t *offer = ch->offer;
    uint64_t best = column_key(ch, rd_gate, wr_gate, now);
    if (!d->ranked && take(ch, best, out))
        return true;
    uint64_t row = row_key(ch, act_gate, now);
    /* Ranked: the better rank wins, a row hit only among equals (DRAM_NEVER ranks last). */
    if (d->ranked && row >> DRAM_KEY_RANK_SHIFT < best >> DRAM_KEY_RANK_SHIFT)
        best = row;
    if (take(ch, best, out) || take(ch, row, out))
        return true;
    uint64_t next = dram_min(earliest_legal(ch, offer[DRAM_CMD_RD], rd_gate),
                             earliest_legal(ch, offer[DRAM_CMD_WR], wr_gate));
    next = dram_min(next, earliest_legal(ch, offer[DRAM_CMD_PRE], 0));
    next = dram_min(next, earliest_legal(ch, offer[DRAM_CMD_ACT], act_gate));
    assert(next > now);
    *wake = next;
    return false;
}

bool dram_pick_other_bus(const struct dram *d, const struct dram_channel *ch, uint64_t now,
                         bool column, struct dram_pick *out)
{
    uint64_t best =
        column ? column_key(ch, dram_channel_rd_ready(d, ch), dram_channel_wr_ready(d, ch), now)
               : row_key(ch, dram_channel_act_ready(ch), now);
    return take(ch, best, out);
}

/* BW-App (HSM §6, after Jog et al.): the application with the lowest attained bandwidth goes
 * first. Attained bandwidth is the data-bus cycles an application got over the whole memory
 * system, halved every re-ranking (a half-life of DRAM_RERANK_CYCLES), so it follows phases.
 * All applications are ranked, lowest first (rank = how many attained strictly less): with two
 * that is the paper's rule, with more an application that queues nothing cannot take the
 * priority away from the others; equal attained bandwidth shares a rank. */
static bool bwapp_rerank(struct dram *d)
{
    for (unsigned a = 0; a < d->napps; a++) {
        uint64_t total = 0;
        for (unsigned c = 0; c < d->cfg.channels; c++)
            total += d->ch[c].bus_app[a];
        d->bw_attained[a] = d->bw_attained[a] / 2 + (total - d->bw_seen[a]);
        d->bw_seen[a] = total;
    }
    bool changed = false;
    for (unsigned a = 0; a < d->napps; a++) {
        unsigned r = 0;
        for (unsigned b = 0; b < d->napps; b++)
            r += d->bw_attained[b] < d->bw_attained[a];
        changed |= d->sched_rank[a] != r;
        d->sched_rank[a] = (uint8_t)r;
    }
    return changed;
}

static const struct dram_scheduler frfcfs = {"frfcfs", frfcfs_pick, NULL};
static const struct dram_scheduler bwapp = {"bw-app", frfcfs_pick, bwapp_rerank};

const struct dram_scheduler *const dram_schedulers[] = {&frfcfs, &bwapp};
const size_t dram_schedulers_count = sizeof(dram_schedulers) / sizeof(dram_schedulers[0]);
