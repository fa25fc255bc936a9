/* dram_internal — the DRAM model's state, shared by dram.c (bookkeeping and command issue) and
 * dram_sched.c (the pluggable channel schedulers). Not part of the public API.
 *
 * Timing state is kept as "earliest legal cycle" per command and scope (bank, bank group,
 * channel), so a scheduler decides legality with a few max() and a channel with nothing legal
 * can sleep until the earliest of them. */
#ifndef CORUN_DRAM_INTERNAL_H
#define CORUN_DRAM_INTERNAL_H

#include "corun/dram.h"

#include <stdbool.h>
#include <stdint.h>

#define DRAM_NIL        UINT32_MAX
#define DRAM_MAX_BANKS  64 /* per channel: the non-empty set is one 64-bit mask */
#define DRAM_MAX_GROUPS DRAM_MAX_BANKS
#define DRAM_NEVER      UINT64_MAX

enum dram_outcome { DRAM_HIT, DRAM_MISS, DRAM_CONFLICT };

/* A queued request; lives in its channel's slot pool from dram_add to its column command. Its
 * row and bank-queue links are apart, in struct dram_link, because walking a bank's queue for
 * row hits is the hottest loop and should stay in a few cache lines. */
struct dram_slot {
    struct dram_request req;
    uint64_t arrival;
    uint64_t seq;         /* global arrival order: smaller is older */
    uint64_t others_at;   /* others' bus + bank cycles when it arrived (interference) */
    uint16_t bank;        /* flat bank index in the channel: group * banks_per_group + bank */
    uint8_t outcome;      /* enum dram_outcome, settled by the PRE/ACT issued on its behalf */
    bool closed_by_other; /* its PRE closed a row another application had opened */
};

struct dram_link {
    uint64_t row;
    uint32_t prev, next; /* bank queue, oldest first; next doubles as the free-list link */
};

struct dram_bank {
    uint64_t open_row;
    uint64_t act_ready, pre_ready, col_ready; /* earliest ACT / PRE / RD-WR */
    uint64_t busy_cycles;                     /* command occupancy, all applications */
    uint32_t head, tail;                      /* queued requests, oldest first */
    uint32_t first_hit;                       /* oldest queued request to open_row */
    uint32_t nhits;                           /* queued requests to open_row */
    uint32_t streak; /* row hits served while an older request to another row waited */
    uint16_t group;
    bool open;
    bool fresh;        /* activated, no column command yet */
    unsigned open_app; /* whose request opened the row */
};

struct dram_group {
    uint64_t act_ready; /* tRRD_L */
    uint64_t col_ready; /* tCCD_L */
    uint64_t rd_ready;  /* tWTR_L */
};

/* A column command whose data is on (or about to be on) the bus. */
struct dram_transfer {
    uint64_t end; /* first cycle after its data */
    uint64_t arrival;
    struct dram_request req;
};

/* A bank's offer to the scheduler, kept current on every event of that bank or its bank group:
 * under FR-FCFS rules (open page, row-hit cap) the oldest request to the open row gets its
 * RD/WR, otherwise the oldest request gets its PRE or ACT. cand_ready covers the bank's and its
 * group's timing; the channel-wide part is applied per command class at pick time. key orders
 * offers by age, its low bits carry the bank so one min() finds both. Parallel arrays plus one
 * bank mask per command keep the scheduler's scan to a few cache lines. */
#define DRAM_KEY_BANK_BITS 6
#define DRAM_KEY_BANK_MASK ((1ull << DRAM_KEY_BANK_BITS) - 1)
/* When applications are ranked (bw-app, priority epochs), the offer's rank sits above its age,
 * so the same min() prefers the better rank first; seq stays far below 2^50. */
#define DRAM_KEY_RANK_SHIFT 56
#define DRAM_RANK_MAX       254u /* DRAM_NEVER ranks 255: after every real offer */

struct dram_channel {
    uint64_t offer[4];    /* [enum dram_command]: banks offering that command */
    uint64_t *cand_ready; /* [bank] */
    uint64_t *cand_key;   /* [bank]: seq << DRAM_KEY_BANK_BITS | bank */
    uint32_t *cand_slot;  /* [bank] */
    uint8_t *cand_cmd;    /* [bank]: enum dram_command */
    struct dram_bank *banks;
    struct dram_group *groups;
    struct dram_slot *slots;
    struct dram_link *link; /* [slot] */
    uint32_t free_slot;     /* free-list head */
    uint32_t queued;

    uint64_t act_ready; /* tRRD_S */
    uint64_t faw[4];    /* ring: the last four ACTs + tFAW; faw[faw_pos] is the oldest */
    unsigned faw_pos;
    uint64_t col_ready; /* tCCD_S */
    uint64_t rd_ready;  /* tWTR_S */
    uint64_t wr_ready;  /* read-to-write turnaround */
    uint64_t data_free; /* first cycle the data bus is free */

    uint64_t wake;        /* nothing can be issued before this cycle */
    uint64_t refresh_due; /* DRAM_NEVER when refresh is off */

    struct dram_transfer *ring; /* in flight, ordered by end */
    unsigned ring_head, ring_count, ring_cap;

    /* Per-application arrays hold DRAM_MAX_APPS entries so an application can join a running
     * system (dram_add_app); only the first napps are in use. */
    uint64_t bus_cycles;           /* data-bus cycles, all applications */
    uint64_t *bus_app;             /* [app] */
    uint64_t *bank_app;            /* [bank * app_stride + app] command occupancy */
    struct dram_app_counters *app; /* [app] */
    struct dram_channel_counters counters;
};

/* What a scheduler chose: cmd to bank on behalf of the request in slot. */
struct dram_pick {
    enum dram_command cmd;
    unsigned bank;
    uint32_t slot;
};

struct dram;

/* A channel scheduling policy. pick chooses the command ch issues at now and returns true, or
 * returns false and sets *wake to the earliest cycle at which any command may become legal
 * (DRAM_NEVER if none). ch has queued requests and no refresh pending. */
/* With separate row and column command buses (cfg.dual_command), the second command of a cycle:
 * the best legal offer of the other class than the one just issued (column: RD/WR; else
 * ACT/PRE), by the same keys as the pick (rank, then age). False if there is none. */
bool dram_pick_other_bus(const struct dram *d, const struct dram_channel *ch, uint64_t now,
                         bool column, struct dram_pick *out);

struct dram_scheduler {
    const char *name;
    bool (*pick)(const struct dram *d, const struct dram_channel *ch, uint64_t now,
                 struct dram_pick *out, uint64_t *wake);
    /* Optional: every DRAM_RERANK_CYCLES re-ranks the applications into d->sched_rank (0 goes
     * first) and returns true when a rank changed. NULL: every application ranks the same. */
    bool (*rerank)(struct dram *d);
};

#define DRAM_RERANK_CYCLES 1024 /* memory cycles between a scheduler's re-rankings */

extern const struct dram_scheduler *const dram_schedulers[];
extern const size_t dram_schedulers_count;

/* Address fields as bit counts, valid when shifts (every field size a power of two). */
struct dram_map_plan {
    bool shifts;
    unsigned offset_bits, channel_bits, column_bits, group_bits, bank_bits;
};

struct dram {
    struct dram_config cfg;
    struct dram_map_plan plan;
    unsigned napps;        /* applications in use; the arrays below hold DRAM_MAX_APPS */
    unsigned app_stride;   /* bank_app's row length: DRAM_MAX_APPS */
    unsigned nbanks;       /* per channel */
    unsigned burst_cycles; /* data-bus cycles per request */
    unsigned wr_to_pre;    /* WR -> PRE: tWL + burst + tWR */
    unsigned rd_to_wr;     /* RD -> WR turnaround */
    unsigned columns;      /* requests per row */

    struct dram_channel *ch;
    uint64_t *chan_next; /* [channel]: min(wake, first completion), polled every event cycle */
    uint64_t now;
    uint64_t next_event; /* no channel has anything to do before this cycle */
    uint64_t seq;
    uint64_t outstanding; /* queued + in flight */

    const struct dram_scheduler *sched;
    /* Application ranks the bank offers honour before FR-FCFS order (0 goes first): the
     * priority-epoch application (prio_app) first, then the scheduler's own sched_rank. All
     * zero (ranked false) is plain FR-FCFS, and the offers skip the per-rank queue walk. */
    uint8_t *rank;       /* [app] */
    uint8_t *sched_rank; /* [app] */
    bool ranked;
    unsigned prio_app; /* DRAM_APP_NONE when no priority epoch is on */
    uint64_t rerank_due;
    uint64_t *bw_attained; /* [app] bw-app: decayed data-bus cycles served */
    uint64_t *bw_seen;     /* [app] bw-app: the app's data-bus cycles at the last re-rank */
    dram_done_fn done;
    void *done_ctx;
    dram_command_fn hook;
    void *hook_ctx;
    struct dram_checker *checker; /* when dram_set_checking turned it on */
};

/* Fills d->plan from d->cfg and d->columns. */
void dram_map_plan_init(struct dram *d);

/* Recomputes d->rank from prio_app and sched_rank; when a rank changed, re-offers every bank
 * and wakes every channel so the new order applies from this cycle. */
void dram_apply_ranks(struct dram *d);

/* The hashed mapping's row-dependent offset for a field of `bits` bits: all row bits XOR-folded
 * (PAE-style), i.e. the XOR of row's `bits`-wide chunks. Folding by doubling spans (chunk 0
 * collects chunks 0-1, then 0-3, 0-7, ...) takes log2(64 / bits) steps instead of one per
 * chunk. */
static inline uint64_t dram_xor_fold(uint64_t row, unsigned bits)
{
    if (bits == 0)
        return 0;
    for (unsigned span = bits; span < 64; span *= 2)
        row ^= row >> span;
    return row & ((1ull << bits) - 1);
}

/* dram_map for d: shifts and masks when every field size is a power of two (all presets but the
 * non-power-of-two channel counts), dram_map itself otherwise. Returns the channel and sets the
 * flat bank (group * banks_per_group + bank) and the row. Inline: it runs for every request. */
static inline unsigned dram_map_request(const struct dram *d, uint64_t addr, unsigned *bank,
                                        uint64_t *row)
{
    const struct dram_map_plan *p = &d->plan;
    if (!p->shifts) {
        struct dram_location loc;
        dram_map(&d->cfg, addr, &loc);
        *bank = loc.bank_group * d->cfg.banks_per_group + loc.bank;
        *row = loc.row;
        return loc.channel;
    }
    uint64_t x = addr >> p->offset_bits;
    uint64_t ch = x & ((1ull << p->channel_bits) - 1);
    x >>= p->channel_bits + p->column_bits;
    uint64_t bg = x & ((1ull << p->group_bits) - 1);
    x >>= p->group_bits;
    uint64_t b = x & ((1ull << p->bank_bits) - 1);
    x >>= p->bank_bits;
    uint64_t flat = bg << p->bank_bits | b;
    if (d->cfg.mapping == DRAM_MAP_HASHED) {
        if (p->channel_bits)
            ch ^= dram_xor_fold(x, p->channel_bits);
        if (p->group_bits + p->bank_bits)
            flat ^= dram_xor_fold(x, p->group_bits + p->bank_bits);
    }
    *bank = (unsigned)flat;
    *row = x;
    return (unsigned)ch;
}

static inline uint64_t dram_max(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static inline uint64_t dram_min(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

static inline uint64_t dram_sub_sat(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

/* Data-bus cycles one request occupies. */
static inline unsigned dram_burst_cycles(const struct dram_config *cfg)
{
    return (cfg->request_bytes + cfg->bus_bytes_per_cycle - 1) / cfg->bus_bytes_per_cycle;
}

/* Write recovery (last write data -> PRE). tWR is not among the presets' timings; HBM's is
 * close to its tRCD, so tWR = tRCD is assumed. */
static inline unsigned dram_wr_to_pre(const struct dram_config *cfg)
{
    return cfg->t.wl + dram_burst_cycles(cfg) + cfg->t.rcd;
}

/* Read -> write turnaround on one channel: the write's data may start two cycles (bus
 * turnaround) after the read's data ends, i.e. WR >= RD + tCL + burst + 2 - tWL. */
static inline unsigned dram_rd_to_wr(const struct dram_config *cfg)
{
    unsigned span = cfg->t.cl + dram_burst_cycles(cfg) + 2;
    return span > cfg->t.wl ? span - cfg->t.wl : 0;
}

/* Channel-wide earliest RD, WR and ACT (the rest is in each bank's cand_ready). */
static inline uint64_t dram_channel_rd_ready(const struct dram *d, const struct dram_channel *ch)
{
    return dram_max(dram_max(ch->col_ready, ch->rd_ready),
                    dram_sub_sat(ch->data_free, d->cfg.t.cl));
}

static inline uint64_t dram_channel_wr_ready(const struct dram *d, const struct dram_channel *ch)
{
    return dram_max(dram_max(ch->col_ready, ch->wr_ready),
                    dram_sub_sat(ch->data_free, d->cfg.t.wl));
}

static inline uint64_t dram_channel_act_ready(const struct dram_channel *ch)
{
    return dram_max(ch->act_ready, ch->faw[ch->faw_pos]);
}

/* Data-bus and bank cycles spent on applications other than app: the running total whose
 * growth while a request waits is its interference. */
static inline uint64_t dram_others_cycles(const struct dram *d, const struct dram_channel *ch,
                                          unsigned bank, unsigned app)
{
    return ch->bus_cycles - ch->bus_app[app] + ch->banks[bank].busy_cycles -
           ch->bank_app[(size_t)bank * d->app_stride + app];
}

/* Recomputes bank b's offer to the scheduler (dram_cmd.c). */
void dram_bank_offer(const struct dram *d, struct dram_channel *ch, unsigned b);

#endif
