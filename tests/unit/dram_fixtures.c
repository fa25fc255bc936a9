/* dram_fixtures — what the DRAM model's unit tests share (dram_fixtures.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "dram_fixtures.h"
#include "testutil.h"

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
