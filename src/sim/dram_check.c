/* dram_check — an independent legality checker for DRAM command streams.
 *
 * It remembers when each command last happened (per bank, bank group and channel) and tests a
 * new command against the timing rules written as "at least tX after Y". The scheduler instead
 * keeps precomputed "earliest legal" cycles; keeping the two representations apart is what lets
 * one catch a mistake in the other. */
#include "corun/dram.h"
#include "corun/util.h"
#include "dram_internal.h"

#include <stdlib.h>

#define LONG_AGO (INT64_MIN / 4)

struct check_bank {
    int64_t act, pre, rd, wr; /* last command of each kind */
    uint64_t row;
    bool open;
};

struct check_group {
    int64_t act, col, wr_end; /* wr_end: first cycle after the last write's data */
};

struct check_channel {
    struct check_bank *banks;
    struct check_group *groups;
    int64_t act, col, rd, wr_end, ref, data_end;
    int64_t last_cmd[2]; /* the last command on the row bus [0] and the column bus [1] */
    int64_t acts[4];     /* the last four ACTs; acts[acts_pos] is the oldest */
    unsigned acts_pos;
};

struct dram_checker {
    struct dram_config cfg;
    unsigned nbanks, burst;
    struct check_channel *ch;
};

static int is_column(enum dram_command cmd)
{
    return cmd == DRAM_CMD_RD || cmd == DRAM_CMD_WR;
}

struct dram_checker *dram_checker_new(const struct dram_config *cfg)
{
    struct dram_checker *c = xcalloc(1, sizeof(*c));
    c->cfg = *cfg;
    c->nbanks = cfg->bank_groups * cfg->banks_per_group;
    c->burst = dram_burst_cycles(cfg);
    c->ch = xcalloc(cfg->channels, sizeof(*c->ch));
    for (unsigned i = 0; i < cfg->channels; i++) {
        struct check_channel *ch = &c->ch[i];
        ch->banks = xcalloc(c->nbanks, sizeof(*ch->banks));
        for (unsigned b = 0; b < c->nbanks; b++)
            ch->banks[b] = (struct check_bank){LONG_AGO, LONG_AGO, LONG_AGO, LONG_AGO, 0, false};
        ch->groups = xcalloc(cfg->bank_groups, sizeof(*ch->groups));
        for (unsigned g = 0; g < cfg->bank_groups; g++)
            ch->groups[g] = (struct check_group){LONG_AGO, LONG_AGO, LONG_AGO};
        ch->act = ch->col = ch->rd = ch->wr_end = ch->ref = ch->last_cmd[0] = ch->last_cmd[1] =
            LONG_AGO;
        ch->data_end = LONG_AGO;
        for (unsigned k = 0; k < 4; k++)
            ch->acts[k] = LONG_AGO;
    }
    return c;
}

void dram_checker_delete(struct dram_checker *c)
{
    if (!c)
        return;
    for (unsigned i = 0; i < c->cfg.channels; i++) {
        free(c->ch[i].banks);
        free(c->ch[i].groups);
    }
    free(c->ch);
    free(c);
}

/* true when at least gap cycles separate since and now. */
static bool after(int64_t now, int64_t since, unsigned gap)
{
    return now - since >= (int64_t)gap;
}

static const char *check_act(const struct dram_checker *c, const struct check_channel *ch,
                             const struct check_bank *bk, const struct check_group *g, int64_t t)
{
    const struct dram_timing *tm = &c->cfg.t;
    if (bk->open)
        return "ACT to an open bank";
    if (!after(t, bk->pre, tm->rp))
        return "tRP";
    if (!after(t, bk->act, tm->rc))
        return "tRC";
    if (!after(t, g->act, tm->rrd_l))
        return "tRRD_L";
    if (!after(t, ch->act, tm->rrd_s))
        return "tRRD_S";
    if (!after(t, ch->acts[ch->acts_pos], tm->faw))
        return "tFAW";
    if (!after(t, ch->ref, tm->rfc))
        return "tRFC";
    return NULL;
}

static const char *check_pre(const struct dram_checker *c, const struct check_bank *bk, int64_t t)
{
    const struct dram_timing *tm = &c->cfg.t;
    if (!bk->open)
        return "PRE to a closed bank";
    if (!after(t, bk->act, tm->ras))
        return "tRAS";
    if (!after(t, bk->rd, tm->rtp))
        return "tRTP";
    if (!after(t, bk->wr, dram_wr_to_pre(&c->cfg)))
        return "write recovery";
    return NULL;
}

static const char *check_column(const struct dram_checker *c, const struct check_channel *ch,
                                const struct check_bank *bk, const struct check_group *g,
                                const struct dram_command_info *cmd)
{
    const struct dram_timing *tm = &c->cfg.t;
    int64_t t = (int64_t)cmd->cycle;
    bool write = cmd->cmd == DRAM_CMD_WR;
    if (!bk->open || bk->row != cmd->row)
        return "column command to a row that is not open";
    if (!after(t, bk->act, tm->rcd))
        return "tRCD";
    if (!after(t, g->col, tm->ccd_l))
        return "tCCD_L";
    if (!after(t, ch->col, tm->ccd_s))
        return "tCCD_S";
    if (!write && !after(t, g->wr_end, tm->wtr_l))
        return "tWTR_L";
    if (!write && !after(t, ch->wr_end, tm->wtr_s))
        return "tWTR_S";
    if (write && !after(t, ch->rd, dram_rd_to_wr(&c->cfg)))
        return "read-to-write turnaround";
    if (t + (int64_t)(write ? tm->wl : tm->cl) < ch->data_end)
        return "data bus";
    return NULL;
}

static const char *check_ref(const struct dram_checker *c, const struct check_channel *ch,
                             int64_t t)
{
    const struct dram_timing *tm = &c->cfg.t;
    for (unsigned b = 0; b < c->nbanks; b++) {
        const struct check_bank *bk = &ch->banks[b];
        if (bk->open)
            return "REF with an open bank";
        if (!after(t, bk->pre, tm->rp))
            return "tRP";
        if (!after(t, bk->act, tm->rc))
            return "tRC";
    }
    if (!after(t, ch->ref, tm->rfc))
        return "tRFC";
    return NULL;
}

static void record(struct dram_checker *c, struct check_channel *ch, struct check_bank *bk,
                   struct check_group *g, const struct dram_command_info *cmd)
{
    int64_t t = (int64_t)cmd->cycle;
    switch (cmd->cmd) {
    case DRAM_CMD_ACT:
        bk->open = true;
        bk->row = cmd->row;
        bk->act = g->act = ch->act = t;
        ch->acts[ch->acts_pos] = t;
        ch->acts_pos = (ch->acts_pos + 1) & 3;
        break;
    case DRAM_CMD_PRE:
        bk->open = false;
        bk->pre = t;
        break;
    case DRAM_CMD_RD:
        bk->rd = ch->rd = g->col = ch->col = t;
        ch->data_end = t + c->cfg.t.cl + c->burst;
        break;
    case DRAM_CMD_WR:
        bk->wr = g->col = ch->col = t;
        ch->data_end = t + c->cfg.t.wl + c->burst;
        g->wr_end = ch->wr_end = ch->data_end;
        break;
    case DRAM_CMD_REF: ch->ref = t; break;
    }
    ch->last_cmd[is_column(cmd->cmd)] = t;
}

/* The command bus a command takes: one shared bus, or (dual_command, HBM) the row bus for
 * ACT/PRE/REF and the column bus for RD/WR, each one command per cycle. */
static bool bus_busy(const struct dram_checker *c, const struct check_channel *ch,
                     enum dram_command cmd, int64_t t)
{
    if (c->cfg.dual_command)
        return t <= ch->last_cmd[is_column(cmd)];
    return t <= ch->last_cmd[0] || t <= ch->last_cmd[1];
}

const char *dram_checker_check(struct dram_checker *c, const struct dram_command_info *cmd)
{
    if (cmd->channel >= c->cfg.channels || cmd->bank_group >= c->cfg.bank_groups ||
        cmd->bank >= c->cfg.banks_per_group)
        return "no such channel or bank";
    struct check_channel *ch = &c->ch[cmd->channel];
    struct check_group *g = &ch->groups[cmd->bank_group];
    struct check_bank *bk = &ch->banks[cmd->bank_group * c->cfg.banks_per_group + cmd->bank];
    int64_t t = (int64_t)cmd->cycle;
    const char *bad = NULL;
    if (bus_busy(c, ch, cmd->cmd, t))
        bad = "command bus";
    else if (cmd->cmd == DRAM_CMD_ACT)
        bad = check_act(c, ch, bk, g, t);
    else if (cmd->cmd == DRAM_CMD_PRE)
        bad = check_pre(c, bk, t);
    else if (cmd->cmd == DRAM_CMD_REF)
        bad = check_ref(c, ch, t);
    else
        bad = check_column(c, ch, bk, g, cmd);
    record(c, ch, bk, g, cmd);
    return bad;
}
