/* dram_fixtures — what the DRAM model's unit tests (test_dram*.c) share: hbm80's DRAM and a
 * one-channel version of it, addresses by location, requests added, completed and drained, and
 * a log of the commands issued, each checked by the independent checker. Include after
 * cmocka.h. */
#ifndef CORUN_DRAM_FIXTURES_H
#define CORUN_DRAM_FIXTURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "corun/dram.h"

/* Completion cycles and user pointers of the first 64 requests (note_done fills it). */
struct completions {
    size_t n;
    uint64_t last_cycle;
    uint64_t cycle[64];
    void *user[64];
};

/* hbm80's DRAM, from the preset. */
struct dram_config hbm80(void);
/* hbm80 reduced to one channel without refresh: command streams that are easy to reason about. */
struct dram_config one_channel(void);
uint64_t addr_at(const struct dram_config *cfg, unsigned ch, unsigned bg, unsigned bank,
                 uint64_t row, unsigned col);
/* A completion callback: ctx is a struct completions. */
void note_done(void *ctx, const struct dram_request *req, uint64_t mem_cycle);
/* Adds a request the DRAM must accept. */
void add(struct dram *d, uint64_t addr, bool write, unsigned app, void *user);
/* Ticks until the DRAM is idle (at most limit ticks, then fails). */
void run_idle(struct dram *d, uint64_t limit);

/* ---- the command log: every command through the DRAM's hook, checked as it comes ---- */

struct cmd_log {
    struct dram_command_info *cmd;
    size_t n, cap;
    struct dram_checker *checker;
    const char *violation; /* first rule broken, if any */
};

void log_command(void *ctx, const struct dram_command_info *c);
void log_init(struct cmd_log *log, const struct dram_config *cfg);
void log_done(struct cmd_log *log);
/* A DRAM whose own checking is on and whose commands go to log (already initialised). */
struct dram *logged_dram(const struct dram_config *cfg, unsigned napps, dram_done_fn done,
                         void *ctx, struct cmd_log *log);
/* The index of the first command of kind cmd from index from on; SIZE_MAX when none. */
size_t find_cmd(const struct cmd_log *log, size_t from, enum dram_command cmd);
bool same_bank(const struct dram_command_info *a, const struct dram_command_info *b);
/* Smallest gap from a command of kind `first` to the next command of kind `then` in the same
 * scope (0 channel, 1 bank group, 2 bank); UINT64_MAX when the pair never occurs. */
uint64_t min_gap(const struct cmd_log *log, enum dram_command first, enum dram_command then,
                 int scope, bool other_group);
/* A mixed workload: several rows per bank, reads and writes, all banks; per-application
 * counters into apps[napps] unless NULL. */
void run_mixed(const struct dram_config *cfg, struct cmd_log *log, unsigned napps,
               struct dram_app_counters *apps);

#endif
