/* dram_cmd — command issue on the memory system's channels: each bank's offer to the
 * scheduler, ACT, PRE, RD/WR and REF with their timing, completions, and the per-cycle tick.
 * The queues, construction and counters are in dram.c; the modelling choices are listed at
 * the top of dram.c. */
#include "corun/dram.h"
#include "dram_internal.h"

#include <assert.h>
#include <stdio.h>

static void clear_offer(struct dram_channel *ch, unsigned b)
{
    uint64_t keep = ~(1ull << b);
    for (unsigned k = 0; k < 4; k++)
        ch->offer[k] &= keep;
}

/* FR-FCFS within the best rank queued at bk: the oldest row hit of that rank (up to the row-hit
 * cap while an older request of that rank waits for another row), else the oldest request of
 * that rank. So a better-ranked application's PRE may close a row others still hit. */
static uint32_t ranked_choice(const struct dram *d, const struct dram_channel *ch,
                              const struct dram_bank *bk, bool *hit_out)
{
    unsigned best = DRAM_RANK_MAX + 1, cap = d->cfg.row_hit_cap;
    uint32_t hit = DRAM_NIL, other = DRAM_NIL;
    for (uint32_t i = bk->head; i != DRAM_NIL; i = ch->link[i].next) {
        unsigned r = d->rank[ch->slots[i].req.app];
        if (r > best)
            continue;
        if (r < best) {
            best = r;
            hit = other = DRAM_NIL;
        }
        if (bk->open && ch->link[i].row == bk->open_row) {
            if (hit == DRAM_NIL)
                hit = i;
        } else if (other == DRAM_NIL) {
            other = i;
        }
    }
    *hit_out = hit != DRAM_NIL && (other == DRAM_NIL || cap == 0 || bk->streak < cap);
    return *hit_out ? hit : other;
}

/* Recomputes bank b's offer to the scheduler; called after every change to the bank's queue,
 * open row or timing, and when the ranks change. */
void dram_bank_offer(const struct dram *d, struct dram_channel *ch, unsigned b)
{
    const struct dram_bank *bk = &ch->banks[b];
    const struct dram_group *g = &ch->groups[bk->group];
    unsigned cap = d->cfg.row_hit_cap;
    clear_offer(ch, b);
    if (bk->head == DRAM_NIL)
        return;
    enum dram_command cmd;
    uint32_t slot;
    uint64_t ready;
    bool hit;
    if (d->ranked) {
        slot = ranked_choice(d, ch, bk, &hit);
    } else {
        hit = bk->open && bk->nhits && (cap == 0 || bk->streak < cap);
        slot = hit ? bk->first_hit : bk->head;
    }
    if (hit) {
        bool write = ch->slots[slot].req.write;
        cmd = write ? DRAM_CMD_WR : DRAM_CMD_RD;
        ready = dram_max(bk->col_ready, write ? g->col_ready : dram_max(g->col_ready, g->rd_ready));
    } else if (bk->open) {
        cmd = DRAM_CMD_PRE;
        ready = bk->pre_ready;
    } else {
        cmd = DRAM_CMD_ACT;
        ready = dram_max(bk->act_ready, g->act_ready);
    }
    ch->offer[cmd] |= 1ull << b;
    ch->cand_cmd[b] = (uint8_t)cmd;
    ch->cand_slot[b] = slot;
    ch->cand_ready[b] = ready;
    ch->cand_key[b] = ch->slots[slot].seq << DRAM_KEY_BANK_BITS | b;
    if (d->ranked)
        ch->cand_key[b] |= (uint64_t)d->rank[ch->slots[slot].req.app] << DRAM_KEY_RANK_SHIFT;
}

void dram_apply_ranks(struct dram *d)
{
    bool changed = false, ranked = false;
    for (unsigned a = 0; a < d->napps; a++) {
        unsigned r = d->sched_rank[a];
        if (d->prio_app != DRAM_APP_NONE)
            r = a == d->prio_app ? 0 : r + 1;
        r = r < DRAM_RANK_MAX ? r : DRAM_RANK_MAX;
        changed |= d->rank[a] != r;
        ranked |= r != 0;
        d->rank[a] = (uint8_t)r;
    }
    d->ranked = ranked;
    if (!changed)
        return;
    for (unsigned c = 0; c < d->cfg.channels; c++) {
        struct dram_channel *ch = &d->ch[c];
        for (unsigned b = 0; b < d->nbanks; b++)
            dram_bank_offer(d, ch, b);
        ch->wake = dram_min(ch->wake, d->now);
        d->chan_next[c] = dram_min(d->chan_next[c], d->now);
    }
    d->next_event = dram_min(d->next_event, d->now);
}

/* A bank-group constraint moved to ready: the offers of mask (banks of that group offering the
 * affected commands) may not be issued before it. */
static void raise_offers(struct dram_channel *ch, uint64_t mask, uint64_t ready)
{
    for (; mask; mask &= mask - 1) {
        unsigned b = (unsigned)__builtin_ctzll(mask);
        ch->cand_ready[b] = dram_max(ch->cand_ready[b], ready);
    }
}

static uint64_t group_mask(const struct dram *d, unsigned group)
{
    unsigned n = d->cfg.banks_per_group;
    uint64_t ones = n >= 64 ? ~0ull : (1ull << n) - 1;
    return ones << (group * n);
}

static void report_command(struct dram *d, unsigned c, enum dram_command cmd, unsigned b,
                           uint64_t row, unsigned app)
{
    struct dram_command_info info = {
        cmd, c, b / d->cfg.banks_per_group, b % d->cfg.banks_per_group, row, d->now, app};
    if (d->checker) {
        const char *bad = dram_checker_check(d->checker, &info);
        if (bad)
            fprintf(stderr, "dram: command %d to channel %u bank %u at cycle %llu breaks %s\n",
                    (int)cmd, c, b, (unsigned long long)d->now, bad);
        assert(!bad);
    }
    if (d->hook)
        d->hook(d->hook_ctx, &info);
}

static inline void report(struct dram *d, unsigned c, enum dram_command cmd, unsigned b,
                          uint64_t row, unsigned app)
{
    if (d->hook || d->checker)
        report_command(d, c, cmd, b, row, app);
}

static void recount_hits(struct dram_channel *ch, struct dram_bank *bk)
{
    if (bk->head == bk->tail) { /* the common case under low locality: nothing to walk */
        bk->nhits = ch->link[bk->head].row == bk->open_row;
        bk->first_hit = bk->nhits ? bk->head : DRAM_NIL;
        return;
    }
    bk->nhits = 0;
    bk->first_hit = DRAM_NIL;
    for (uint32_t i = bk->head; i != DRAM_NIL; i = ch->link[i].next) {
        if (ch->link[i].row == bk->open_row && bk->nhits++ == 0)
            bk->first_hit = i;
    }
}

static void charge_bank(struct dram *d, struct dram_channel *ch, unsigned b, unsigned app,
                        unsigned cycles)
{
    ch->banks[b].busy_cycles += cycles;
    ch->bank_app[(size_t)b * d->app_stride + app] += cycles;
}

static void issue_act(struct dram *d, unsigned c, unsigned b, struct dram_slot *s)
{
    const struct dram_timing *t = &d->cfg.t;
    struct dram_channel *ch = &d->ch[c];
    struct dram_bank *bk = &ch->banks[b];
    uint64_t now = d->now;
    bk->open = true;
    bk->open_row = ch->link[s - ch->slots].row;
    bk->open_app = s->req.app;
    bk->fresh = true;
    bk->act_ready = now + t->rc;
    bk->pre_ready = dram_max(bk->pre_ready, now + t->ras);
    bk->col_ready = now + t->rcd;
    bk->streak = 0;
    ch->groups[bk->group].act_ready = now + t->rrd_l;
    raise_offers(ch, ch->offer[DRAM_CMD_ACT] & group_mask(d, bk->group), now + t->rrd_l);
    ch->act_ready = now + t->rrd_s;
    ch->faw[ch->faw_pos] = now + t->faw;
    ch->faw_pos = (ch->faw_pos + 1) & 3;
    if (s->outcome != DRAM_CONFLICT)
        s->outcome = DRAM_MISS;
    recount_hits(ch, bk);
    ch->counters.activates++;
    ch->app[s->req.app].activates++;
    charge_bank(d, ch, b, s->req.app, t->rcd);
    dram_bank_offer(d, ch, b);
    report(d, c, DRAM_CMD_ACT, b, bk->open_row, s->req.app);
}

/* s is the request the row is closed for, or NULL when refresh closes it. */
static void issue_pre(struct dram *d, unsigned c, unsigned b, struct dram_slot *s)
{
    struct dram_channel *ch = &d->ch[c];
    struct dram_bank *bk = &ch->banks[b];
    if (s) {
        s->outcome = DRAM_CONFLICT;
        s->closed_by_other = bk->open_app != s->req.app;
        charge_bank(d, ch, b, s->req.app, d->cfg.t.rp);
    }
    bk->open = false;
    bk->nhits = 0;
    bk->first_hit = DRAM_NIL;
    bk->act_ready = dram_max(bk->act_ready, d->now + d->cfg.t.rp);
    ch->counters.precharges++;
    dram_bank_offer(d, ch, b);
    report(d, c, DRAM_CMD_PRE, b, bk->open_row, s ? s->req.app : DRAM_APP_NONE);
}

static void count_column(struct dram *d, struct dram_channel *ch, unsigned b,
                         const struct dram_slot *s)
{
    struct dram_app_counters *ac = &ch->app[s->req.app];
    switch ((enum dram_outcome)s->outcome) {
    case DRAM_HIT:
        ac->row_hits++;
        ch->counters.row_hits++;
        break;
    case DRAM_MISS: ac->row_misses++; break;
    case DRAM_CONFLICT: ac->row_conflicts++; break;
    }
    ch->counters.row_accesses++;
    uint64_t wait = d->now - s->arrival;
    uint64_t others = dram_others_cycles(d, ch, b, s->req.app) - s->others_at;
    if (s->closed_by_other)
        others += d->cfg.t.rp;
    ac->queue_cycles += wait;
    ac->interference_cycles += dram_min(others, wait);
}

static void unlink_slot(struct dram_channel *ch, unsigned b, uint32_t i)
{
    struct dram_bank *bk = &ch->banks[b];
    if (--bk->nhits == 0) {
        bk->first_hit = DRAM_NIL;
    } else if (i == bk->first_hit) {
        uint32_t j = ch->link[i].next;
        while (ch->link[j].row != bk->open_row)
            j = ch->link[j].next;
        bk->first_hit = j;
    }
    struct dram_link *l = &ch->link[i];
    if (l->prev == DRAM_NIL)
        bk->head = l->next;
    else
        ch->link[l->prev].next = l->next;
    if (l->next == DRAM_NIL)
        bk->tail = l->prev;
    else
        ch->link[l->next].prev = l->prev;
    l->next = ch->free_slot;
    ch->free_slot = i;
    ch->queued--;
}

static void issue_column(struct dram *d, unsigned c, unsigned b, uint32_t i)
{
    const struct dram_timing *t = &d->cfg.t;
    struct dram_channel *ch = &d->ch[c];
    struct dram_bank *bk = &ch->banks[b];
    struct dram_group *g = &ch->groups[bk->group];
    struct dram_slot *s = &ch->slots[i];
    uint64_t now = d->now;
    bool write = s->req.write;
    assert(bk->open && bk->open_row == ch->link[i].row);
    uint64_t start = now + (write ? t->wl : t->cl), end = start + d->burst_cycles;
    assert(start >= ch->data_free);
    ch->data_free = end;
    bk->pre_ready = dram_max(bk->pre_ready, now + (write ? d->wr_to_pre : t->rtp));
    g->col_ready = now + t->ccd_l;
    ch->col_ready = now + t->ccd_s;
    uint64_t in_group = group_mask(d, bk->group);
    raise_offers(ch, (ch->offer[DRAM_CMD_RD] | ch->offer[DRAM_CMD_WR]) & in_group, g->col_ready);
    if (write) {
        g->rd_ready = dram_max(g->rd_ready, end + t->wtr_l);
        ch->rd_ready = dram_max(ch->rd_ready, end + t->wtr_s);
        raise_offers(ch, ch->offer[DRAM_CMD_RD] & in_group, g->rd_ready);
    } else {
        ch->wr_ready = dram_max(ch->wr_ready, now + d->rd_to_wr);
    }
    bk->fresh = false;
    if (bk->head != i && ch->link[bk->head].row != bk->open_row)
        bk->streak++;
    else
        bk->streak = 0;
    report(d, c, write ? DRAM_CMD_WR : DRAM_CMD_RD, b, bk->open_row, s->req.app);

    count_column(d, ch, b, s);
    unsigned app = s->req.app;
    ch->bus_cycles += d->burst_cycles;
    ch->bus_app[app] += d->burst_cycles;
    charge_bank(d, ch, b, app, d->burst_cycles);

    assert(ch->ring_count < ch->ring_cap);
    unsigned pos = (ch->ring_head + ch->ring_count++) & (ch->ring_cap - 1);
    ch->ring[pos] = (struct dram_transfer){end, s->arrival, s->req};
    unlink_slot(ch, b, i);
    dram_bank_offer(d, ch, b);
}

static void issue_refresh(struct dram *d, unsigned c)
{
    struct dram_channel *ch = &d->ch[c];
    for (unsigned b = 0; b < d->nbanks; b++) {
        ch->banks[b].act_ready = dram_max(ch->banks[b].act_ready, d->now + d->cfg.t.rfc);
        dram_bank_offer(d, ch, b);
    }
    ch->refresh_due += d->cfg.t.refi;
    ch->counters.refreshes++;
    report(d, c, DRAM_CMD_REF, 0, 0, DRAM_APP_NONE);
}

/* Refresh is due: issue no new ACT; close every open bank as soon as it may be closed, then REF
 * once tRP/tRC allow. A row activated for a request that has not been served yet first serves
 * that one request, so refresh never wastes an ACT, and the drain stays bounded. */
static void refresh_step(struct dram *d, unsigned c)
{
    struct dram_channel *ch = &d->ch[c];
    uint64_t now = d->now, next = DRAM_NEVER, ref_ready = 0;
    uint64_t rd_gate = dram_channel_rd_ready(d, ch), wr_gate = dram_channel_wr_ready(d, ch);
    bool any_open = false;
    for (unsigned b = 0; b < d->nbanks; b++) {
        struct dram_bank *bk = &ch->banks[b];
        ref_ready = dram_max(ref_ready, bk->act_ready);
        if (!bk->open)
            continue;
        any_open = true;
        uint64_t bit = 1ull << b, t;
        if (bk->fresh && ((ch->offer[DRAM_CMD_RD] | ch->offer[DRAM_CMD_WR]) & bit)) {
            t = dram_max(ch->cand_ready[b], (ch->offer[DRAM_CMD_RD] & bit) ? rd_gate : wr_gate);
            if (t <= now) {
                issue_column(d, c, b, ch->cand_slot[b]);
                ch->wake = now + 1;
                return;
            }
        } else {
            t = bk->pre_ready;
            if (t <= now) {
                issue_pre(d, c, b, NULL);
                ch->wake = now + 1;
                return;
            }
        }
        next = dram_min(next, t);
    }
    if (any_open) {
        ch->wake = next;
    } else if (ref_ready <= now) {
        issue_refresh(d, c);
        ch->wake = now + 1;
    } else {
        ch->wake = ref_ready;
    }
}

static void issue_pick(struct dram *d, unsigned c, const struct dram_pick *p)
{
    struct dram_channel *ch = &d->ch[c];
    switch (p->cmd) {
    case DRAM_CMD_ACT: issue_act(d, c, p->bank, &ch->slots[p->slot]); break;
    case DRAM_CMD_PRE: issue_pre(d, c, p->bank, &ch->slots[p->slot]); break;
    case DRAM_CMD_RD:
    case DRAM_CMD_WR: issue_column(d, c, p->bank, p->slot); break;
    case DRAM_CMD_REF: assert(!"schedulers do not refresh"); break;
    }
}

static void channel_schedule(struct dram *d, unsigned c)
{
    struct dram_channel *ch = &d->ch[c];
    if (d->now >= ch->refresh_due) {
        refresh_step(d, c);
        return;
    }
    if (!ch->queued) {
        ch->wake = ch->refresh_due;
        return;
    }
    struct dram_pick p;
    uint64_t wake;
    if (!d->sched->pick(d, ch, d->now, &p, &wake)) {
        ch->wake = dram_min(wake, ch->refresh_due);
        return;
    }
    issue_pick(d, c, &p);
    /* HBM's row and column command buses: the other kind may go in the same cycle, as in
     * DRAMsim3's dual command issue (not during refresh, as there). */
    bool column = p.cmd == DRAM_CMD_RD || p.cmd == DRAM_CMD_WR;
    if (d->cfg.dual_command && ch->queued && dram_pick_other_bus(d, ch, d->now, !column, &p))
        issue_pick(d, c, &p);
    ch->wake = d->now + 1;
}

static void complete_transfers(struct dram *d, struct dram_channel *ch)
{
    while (ch->ring_count && ch->ring[ch->ring_head].end <= d->now) {
        struct dram_transfer tr = ch->ring[ch->ring_head];
        ch->ring_head = (ch->ring_head + 1) & (ch->ring_cap - 1);
        ch->ring_count--;
        struct dram_app_counters *ac = &ch->app[tr.req.app];
        if (tr.req.write) {
            ac->writes++;
        } else {
            ac->reads++;
            ac->read_latency_cycles += tr.end - tr.arrival;
        }
        ac->bytes += d->cfg.request_bytes;
        ch->counters.data_busy_cycles += d->burst_cycles;
        d->outstanding--;
        if (d->done)
            d->done(d->done_ctx, &tr.req, tr.end);
    }
}

void dram_tick(struct dram *d)
{
    if (d->sched->rerank && d->now >= d->rerank_due) {
        d->rerank_due = d->now + DRAM_RERANK_CYCLES;
        if (d->sched->rerank(d))
            dram_apply_ranks(d);
    }
    if (d->now >= d->next_event) {
        uint64_t next_event = DRAM_NEVER;
        d->next_event = DRAM_NEVER;
        for (unsigned c = 0; c < d->cfg.channels; c++) {
            if (d->chan_next[c] <= d->now) {
                struct dram_channel *ch = &d->ch[c];
                complete_transfers(d, ch);
                if (ch->wake <= d->now)
                    channel_schedule(d, c);
                uint64_t next = ch->wake;
                if (ch->ring_count)
                    next = dram_min(next, ch->ring[ch->ring_head].end);
                d->chan_next[c] = next;
            }
            next_event = dram_min(next_event, d->chan_next[c]);
        }
        /* A completion callback may have queued a request meanwhile. */
        d->next_event = dram_min(d->next_event, next_event);
    }
    d->now++;
}

uint64_t dram_quiet_ticks(const struct dram *d)
{
    uint64_t until = d->next_event;
    if (d->sched->rerank)
        until = dram_min(until, d->rerank_due);
    return until > d->now ? until - d->now : 0;
}

/* A channel that only refreshes: nothing queued or moving, every bank closed, settled until
 * its next refresh (wake = refresh_due), which every bank's tRFC / tRP allows on time. Each
 * refresh then comes exactly tREFI after the last (tRFC < tREFI, dram_config.c). */
static bool channel_dormant(const struct dram *d, const struct dram_channel *ch)
{
    if (ch->queued || ch->ring_count || ch->wake != ch->refresh_due || ch->refresh_due < d->now)
        return false;
    for (unsigned b = 0; b < d->nbanks; b++)
        if (ch->banks[b].open || ch->banks[b].act_ready > ch->refresh_due)
            return false;
    return true;
}

uint64_t dram_idle_ticks(const struct dram *d)
{
    if (d->outstanding || d->hook || d->checker)
        return dram_quiet_ticks(d);
    uint64_t until = d->sched->rerank ? d->rerank_due : DRAM_NEVER;
    for (unsigned c = 0; c < d->cfg.channels; c++)
        if (d->chan_next[c] < until && !channel_dormant(d, &d->ch[c]))
            until = d->chan_next[c];
    return until > d->now ? until - d->now : 0;
}

/* The refreshes of dormant channel c in the ticks [d->now, end), at once: what refresh_step
 * and issue_refresh do at each (the banks' tRFC, the offers of empty banks, the due time, the
 * count) and the wake the channel is left with. */
static void refresh_dormant(struct dram *d, unsigned c, uint64_t end)
{
    struct dram_channel *ch = &d->ch[c];
    assert(channel_dormant(d, ch) && ch->refresh_due < end);
    uint64_t refi = d->cfg.t.refi, k = (end - 1 - ch->refresh_due) / refi + 1;
    uint64_t last = ch->refresh_due + (k - 1) * refi;
    for (unsigned b = 0; b < d->nbanks; b++) {
        ch->banks[b].act_ready = dram_max(ch->banks[b].act_ready, last + d->cfg.t.rfc);
        dram_bank_offer(d, ch, b);
    }
    ch->refresh_due += k * refi;
    ch->counters.refreshes += k;
    /* After a refresh the channel looks again in the next tick and then sleeps until the next
     * one is due. */
    ch->wake = last + 1 < end ? ch->refresh_due : last + 1;
    d->chan_next[c] = ch->wake;
}

void dram_skip_ticks(struct dram *d, uint64_t n)
{
    uint64_t end = d->now + n;
    if (d->next_event < end) {
        assert(!d->outstanding && !d->hook && !d->checker);
        uint64_t next_event = DRAM_NEVER;
        for (unsigned c = 0; c < d->cfg.channels; c++) {
            if (d->chan_next[c] < end)
                refresh_dormant(d, c, end);
            next_event = dram_min(next_event, d->chan_next[c]);
        }
        d->next_event = next_event;
    }
    assert(!d->sched->rerank || end <= d->rerank_due);
    d->now = end;
}
