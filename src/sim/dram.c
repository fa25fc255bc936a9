/* dram — the memory system: request queues, command issue with every timing constraint,
 * refresh, completions and counters. Address mapping lives in dram_config.c, the choice of
 * command in dram_sched.c, the independent legality checker in dram_check.c.
 *
 * Cost model: a channel keeps "wake", the earliest cycle anything could happen on it, and the
 * memory system keeps the minimum over channels, so idle cycles and idle channels cost O(1).
 * Requests sit in fixed per-channel slot pools (no malloc per request), linked per bank in
 * arrival order, so a scheduler looks at one candidate per bank rather than the whole queue.
 *
 * Modelling choices the timing table leaves open:
 * - A queue entry frees at the request's column command; its data then occupies the channel's
 *   data bus for request_bytes / bus_bytes_per_cycle cycles from tCL (read) or tWL (write)
 *   after the command, and the request completes when that transfer ends.
 * - Write recovery (WR -> PRE) is tWL + burst + tWR with tWR = tRCD; read -> write turnaround is
 *   WR >= RD + tCL + burst + 2 - tWL (two idle bus cycles); write -> read is tWTR_L/S from the
 *   end of the write data. Reads and writes share one FR-FCFS queue (no write-drain mode).
 * - Refresh is all-bank per channel, due every tREFI (staggered over channels). When due, the
 *   channel issues no new ACT, lets each freshly opened row serve the request it was opened
 *   for, precharges every bank as soon as it may, then REF blocks ACTs for tRFC.
 * - Interference: at its column command a request is charged, up to its own queueing time, the
 *   data-bus cycles and bank command occupancy (ACT tRCD, PRE tRP, column burst) spent on other
 *   applications since it arrived, plus tRP when its PRE closed a row another application had
 *   opened. Running per-application totals make that O(1) per request. */
#include "corun/dram.h"
#include "corun/util.h"
#include "dram_internal.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void channel_init(struct dram *d, struct dram_channel *ch, unsigned c)
{
    const struct dram_config *cfg = &d->cfg;
    ch->cand_ready = xcalloc(d->nbanks, sizeof(*ch->cand_ready));
    ch->cand_key = xcalloc(d->nbanks, sizeof(*ch->cand_key));
    ch->cand_slot = xcalloc(d->nbanks, sizeof(*ch->cand_slot));
    ch->cand_cmd = xcalloc(d->nbanks, sizeof(*ch->cand_cmd));
    ch->banks = xcalloc(d->nbanks, sizeof(*ch->banks));
    for (unsigned b = 0; b < d->nbanks; b++) {
        ch->banks[b].head = ch->banks[b].tail = ch->banks[b].first_hit = DRAM_NIL;
        ch->banks[b].group = (uint16_t)(b / cfg->banks_per_group);
    }
    ch->groups = xcalloc(cfg->bank_groups, sizeof(*ch->groups));
    ch->slots = xcalloc(cfg->queue_entries, sizeof(*ch->slots));
    ch->link = xcalloc(cfg->queue_entries, sizeof(*ch->link));
    for (unsigned i = 0; i < cfg->queue_entries; i++)
        ch->link[i].next = i + 1 < cfg->queue_entries ? i + 1 : DRAM_NIL;
    ch->free_slot = 0;
    /* Commands are at least a cycle apart, so no more than this many can have data pending. */
    unsigned in_flight = (cfg->t.cl > cfg->t.wl ? cfg->t.cl : cfg->t.wl) + d->burst_cycles + 1;
    for (ch->ring_cap = 1; ch->ring_cap < in_flight; ch->ring_cap *= 2)
        continue; /* a power of two, so positions wrap with a mask */
    ch->ring = xcalloc(ch->ring_cap, sizeof(*ch->ring));
    ch->bus_app = xcalloc(DRAM_MAX_APPS, sizeof(*ch->bus_app));
    ch->bank_app = xcalloc((size_t)d->nbanks * d->app_stride, sizeof(*ch->bank_app));
    ch->app = xcalloc(DRAM_MAX_APPS, sizeof(*ch->app));
    /* Staggered so that the channels do not all stop for refresh in the same cycles. */
    ch->refresh_due =
        cfg->t.refi ? cfg->t.refi + (uint64_t)cfg->t.refi * c / cfg->channels : DRAM_NEVER;
    ch->wake = ch->refresh_due;
}

struct dram *dram_new(const struct dram_config *cfg, unsigned napps, dram_done_fn done, void *ctx)
{
    char err[160];
    int bad = dram_config_check(cfg, err, sizeof(err));
    assert(bad == 0 && napps > 0 && napps <= DRAM_MAX_APPS);
    (void)bad;
    struct dram *d = xcalloc(1, sizeof(*d));
    d->cfg = *cfg;
    d->napps = napps;
    d->app_stride = DRAM_MAX_APPS;
    d->nbanks = cfg->bank_groups * cfg->banks_per_group;
    d->burst_cycles = dram_burst_cycles(cfg);
    d->wr_to_pre = dram_wr_to_pre(cfg);
    d->rd_to_wr = dram_rd_to_wr(cfg);
    d->columns = cfg->row_bytes / cfg->request_bytes;
    dram_map_plan_init(d);
    d->sched = dram_schedulers[0];
    d->rank = xcalloc(DRAM_MAX_APPS, sizeof(*d->rank));
    d->sched_rank = xcalloc(DRAM_MAX_APPS, sizeof(*d->sched_rank));
    d->prio_app = DRAM_APP_NONE;
    d->bw_attained = xcalloc(DRAM_MAX_APPS, sizeof(*d->bw_attained));
    d->bw_seen = xcalloc(DRAM_MAX_APPS, sizeof(*d->bw_seen));
    d->done = done;
    d->done_ctx = ctx;
    d->ch = xcalloc(cfg->channels, sizeof(*d->ch));
    d->chan_next = xcalloc(cfg->channels, sizeof(*d->chan_next));
    d->next_event = DRAM_NEVER;
    for (unsigned c = 0; c < cfg->channels; c++) {
        channel_init(d, &d->ch[c], c);
        d->chan_next[c] = d->ch[c].wake;
        d->next_event = dram_min(d->next_event, d->ch[c].wake);
    }
    return d;
}

void dram_delete(struct dram *d)
{
    if (!d)
        return;
    for (unsigned c = 0; c < d->cfg.channels; c++) {
        struct dram_channel *ch = &d->ch[c];
        free(ch->cand_ready);
        free(ch->cand_key);
        free(ch->cand_slot);
        free(ch->cand_cmd);
        free(ch->banks);
        free(ch->groups);
        free(ch->slots);
        free(ch->link);
        free(ch->ring);
        free(ch->bus_app);
        free(ch->bank_app);
        free(ch->app);
    }
    free(d->ch);
    free(d->chan_next);
    free(d->rank);
    free(d->sched_rank);
    free(d->bw_attained);
    free(d->bw_seen);
    dram_checker_delete(d->checker);
    free(d);
}

unsigned dram_add_app(struct dram *d)
{
    assert(d->napps < DRAM_MAX_APPS);
    /* Its entries were zeroed at dram_new and never written: its counters, bus and bank
     * cycles, attained bandwidth and scheduler rank start at zero. Under a priority epoch it
     * ranks behind the prioritized application like every other one. */
    unsigned app = d->napps++;
    dram_apply_ranks(d);
    return app;
}

int dram_set_scheduler(struct dram *d, const char *name)
{
    for (size_t i = 0; i < dram_schedulers_count; i++) {
        if (strcmp(dram_schedulers[i]->name, name) == 0) {
            d->sched = dram_schedulers[i];
            /* A new scheduler starts from equal ranks and measures from now. */
            memset(d->sched_rank, 0, d->napps * sizeof(*d->sched_rank));
            memset(d->bw_attained, 0, d->napps * sizeof(*d->bw_attained));
            for (unsigned a = 0; a < d->napps; a++) {
                d->bw_seen[a] = 0;
                for (unsigned c = 0; c < d->cfg.channels; c++)
                    d->bw_seen[a] += d->ch[c].bus_app[a];
            }
            d->rerank_due = d->now + DRAM_RERANK_CYCLES;
            dram_apply_ranks(d);
            return 0;
        }
    }
    return -1;
}

const char *dram_scheduler(const struct dram *d)
{
    return d->sched->name;
}

void dram_set_priority_app(struct dram *d, unsigned app)
{
    assert(app < d->napps || app == DRAM_APP_NONE);
    d->prio_app = app;
    dram_apply_ranks(d);
}

unsigned dram_priority_app(const struct dram *d)
{
    return d->prio_app;
}

size_t dram_scheduler_count(void)
{
    return dram_schedulers_count;
}

const char *dram_scheduler_name(size_t i)
{
    return i < dram_schedulers_count ? dram_schedulers[i]->name : NULL;
}

void dram_set_checking(struct dram *d, bool on)
{
    assert(d->now == 0 && "the checker must see every command");
    if (on && !d->checker)
        d->checker = dram_checker_new(&d->cfg);
    else if (!on) {
        dram_checker_delete(d->checker);
        d->checker = NULL;
    }
}

void dram_set_command_hook(struct dram *d, dram_command_fn fn, void *ctx)
{
    d->hook = fn;
    d->hook_ctx = ctx;
}

unsigned dram_channel_of(const struct dram *d, uint64_t addr)
{
    unsigned bank;
    uint64_t row;
    return dram_map_request(d, addr, &bank, &row);
}

bool dram_channel_will_accept(const struct dram *d, unsigned channel)
{
    return d->ch[channel].queued < d->cfg.queue_entries;
}

bool dram_will_accept(const struct dram *d, uint64_t addr)
{
    return dram_channel_will_accept(d, dram_channel_of(d, addr));
}

void dram_add(struct dram *d, const struct dram_request *req)
{
    unsigned c, b;
    uint64_t row;
    c = dram_map_request(d, req->addr, &b, &row);
    struct dram_channel *ch = &d->ch[c];
    assert(req->app < d->napps);
    assert(d->seq < 1ull << (DRAM_KEY_RANK_SHIFT - DRAM_KEY_BANK_BITS));
    assert(ch->free_slot != DRAM_NIL && "dram_add on a full channel; ask dram_will_accept");
    uint32_t i = ch->free_slot;
    struct dram_slot *s = &ch->slots[i];
    ch->free_slot = ch->link[i].next;
    struct dram_bank *bk = &ch->banks[b];
    *s = (struct dram_slot){.req = *req,
                            .arrival = d->now,
                            .seq = d->seq++,
                            .others_at = dram_others_cycles(d, ch, b, req->app),
                            .bank = (uint16_t)b,
                            .outcome = DRAM_HIT};
    ch->link[i] = (struct dram_link){row, bk->tail, DRAM_NIL};
    if (bk->tail == DRAM_NIL)
        bk->head = i;
    else
        ch->link[bk->tail].next = i;
    bk->tail = i;
    if (bk->open && bk->open_row == row && bk->nhits++ == 0)
        bk->first_hit = i;
    if (d->ranked || bk->head == i || bk->first_hit == i)
        dram_bank_offer(d, ch, b);
    ch->queued++;
    d->outstanding++;
    ch->wake = dram_min(ch->wake, d->now);
    d->chan_next[c] = dram_min(d->chan_next[c], d->now);
    d->next_event = dram_min(d->next_event, d->now);
}

uint64_t dram_now(const struct dram *d)
{
    return d->now;
}

bool dram_idle(const struct dram *d)
{
    return d->outstanding == 0;
}

void dram_app_counters(const struct dram *d, unsigned app, struct dram_app_counters *out)
{
    assert(app < d->napps);
    memset(out, 0, sizeof(*out));
    for (unsigned c = 0; c < d->cfg.channels; c++) {
        const struct dram_app_counters *a = &d->ch[c].app[app];
        out->reads += a->reads;
        out->writes += a->writes;
        out->row_hits += a->row_hits;
        out->row_misses += a->row_misses;
        out->row_conflicts += a->row_conflicts;
        out->activates += a->activates;
        out->bytes += a->bytes;
        out->queue_cycles += a->queue_cycles;
        out->read_latency_cycles += a->read_latency_cycles;
        out->interference_cycles += a->interference_cycles;
    }
}

void dram_channel_counters(const struct dram *d, unsigned channel,
                           struct dram_channel_counters *out)
{
    assert(channel < d->cfg.channels);
    *out = d->ch[channel].counters;
}

void dram_reset_counters(struct dram *d)
{
    for (unsigned c = 0; c < d->cfg.channels; c++) {
        memset(d->ch[c].app, 0, d->napps * sizeof(*d->ch[c].app));
        memset(&d->ch[c].counters, 0, sizeof(d->ch[c].counters));
    }
}
