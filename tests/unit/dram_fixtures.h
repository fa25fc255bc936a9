/* dram_fixtures — what the DRAM model's unit tests (test_dram.c, test_dram_bw.c) share:
 * hbm80's DRAM and a one-channel version of it, addresses by location, and requests added,
 * completed and drained. Include after cmocka.h. */
#ifndef CORUN_DRAM_FIXTURES_H
#define CORUN_DRAM_FIXTURES_H

#include <stdbool.h>
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

#endif
