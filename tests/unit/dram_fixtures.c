/* dram_fixtures — what the DRAM model's unit tests share (dram_fixtures.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "dram_fixtures.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

struct dram_config hbm80(void)
{
    struct gpu_config g;
    test_preset("hbm80", &g);
    return g.dram;
}

/* hbm80 reduced to one channel without refresh: command streams that are easy to reason about. */
struct dram_config one_channel(void)
{
    struct dram_config c = hbm80();
    c.channels = 1;
    c.mapping = DRAM_MAP_LINEAR;
    c.t.refi = 0;
    return c;
}

uint64_t addr_at(const struct dram_config *cfg, unsigned ch, unsigned bg, unsigned bank,
                 uint64_t row, unsigned col)
{
    struct dram_location loc = {ch, bg, bank, col, row};
    return dram_address(cfg, &loc);
}

void note_done(void *ctx, const struct dram_request *req, uint64_t mem_cycle)
{
    struct completions *done = ctx;
    if (done->n < 64) {
        done->cycle[done->n] = mem_cycle;
        done->user[done->n] = req->user;
    }
    done->n++;
    done->last_cycle = mem_cycle;
}

void add(struct dram *d, uint64_t addr, bool write, unsigned app, void *user)
{
    assert_true(dram_will_accept(d, addr));
    struct dram_request r = {addr, write, app, user};
    dram_add(d, &r);
}

void run_idle(struct dram *d, uint64_t limit)
{
    for (uint64_t i = 0; i < limit && !dram_idle(d); i++)
        dram_tick(d);
    assert_true(dram_idle(d));
}

/* ---- the command log ---- */

void log_command(void *ctx, const struct dram_command_info *c)
{
    struct cmd_log *log = ctx;
    const char *bad = dram_checker_check(log->checker, c);
    if (bad && !log->violation)
        log->violation = bad;
    if (log->n == log->cap) {
        log->cap = log->cap ? 2 * log->cap : 1024;
        log->cmd = realloc(log->cmd, log->cap * sizeof(*log->cmd));
        assert_non_null(log->cmd);
    }
    log->cmd[log->n++] = *c;
}

void log_init(struct cmd_log *log, const struct dram_config *cfg)
{
    memset(log, 0, sizeof(*log));
    log->checker = dram_checker_new(cfg);
}

void log_done(struct cmd_log *log)
{
    free(log->cmd);
    dram_checker_delete(log->checker);
}

/* A DRAM whose own checking is on and whose commands go to log (already initialised). */
struct dram *logged_dram(const struct dram_config *cfg, unsigned napps, dram_done_fn done,
                         void *ctx, struct cmd_log *log)
{
    struct dram *d = dram_new(cfg, napps, done, ctx);
    dram_set_checking(d, true);
    dram_set_command_hook(d, log_command, log);
    return d;
}

size_t find_cmd(const struct cmd_log *log, size_t from, enum dram_command cmd)
{
    for (size_t i = from; i < log->n; i++) {
        if (log->cmd[i].cmd == cmd)
            return i;
    }
    return SIZE_MAX;
}

bool same_bank(const struct dram_command_info *a, const struct dram_command_info *b)
{
    return a->channel == b->channel && a->bank_group == b->bank_group && a->bank == b->bank;
}

/* Smallest gap from a command of kind `first` to the next command of kind `then` in the same
 * scope (0 channel, 1 bank group, 2 bank); UINT64_MAX when the pair never occurs. */
uint64_t min_gap(const struct cmd_log *log, enum dram_command first, enum dram_command then,
                 int scope, bool other_group)
{
    uint64_t best = UINT64_MAX;
    for (size_t j = 0; j < log->n; j++) {
        const struct dram_command_info *b = &log->cmd[j];
        if (b->cmd != then)
            continue;
        for (size_t i = j; i-- > 0;) {
            const struct dram_command_info *a = &log->cmd[i];
            if (a->channel != b->channel)
                continue;
            bool group = a->bank_group == b->bank_group;
            if ((scope >= 1 && !group) || (other_group && group) ||
                (scope == 2 && !same_bank(a, b)))
                continue;
            if (b->cycle - a->cycle > 1000) /* far beyond every timing parameter */
                break;
            if (a->cmd == first) {
                if (b->cycle - a->cycle < best)
                    best = b->cycle - a->cycle;
                break;
            }
        }
    }
    return best;
}

/* A mixed workload: several rows per bank, reads and writes, all banks; per-application
 * counters into apps[napps] unless NULL. */
void run_mixed(const struct dram_config *cfg, struct cmd_log *log, unsigned napps,
               struct dram_app_counters *apps)
{
    struct dram *d = logged_dram(cfg, napps, NULL, NULL, log);
    uint64_t x = 12345;
    for (unsigned i = 0; i < 3000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        unsigned bank = (unsigned)(x >> 33) % 16, row = (unsigned)(x >> 40) % 3;
        uint64_t a = addr_at(cfg, (unsigned)(x >> 20) % cfg->channels, bank % 4, bank / 4, row,
                             (unsigned)(x >> 50) % 16);
        while (!dram_will_accept(d, a))
            dram_tick(d);
        add(d, a, (x >> 60) % 3 == 0, i % napps, NULL);
        if (i % 3 == 0)
            dram_tick(d);
    }
    run_idle(d, 1000000);
    for (unsigned a = 0; apps && a < napps; a++)
        dram_app_counters(d, a, &apps[a]);
    dram_delete(d);
}
