/* llc — the last-level cache slices between the crossbar and the DRAM channels.
 *
 * Each slice has an input queue fed by the crossbar (its capacity is the credit the SMs must
 * hold to send; a request becomes visible llc.latency_cycles after it arrives, which models
 * the slice pipeline), a tag array with MSHRs (cache.h), and a small queue of requests for its
 * DRAM channel. It processes at most one request per cycle. Write policy: write-back with
 * write-allocate and no fetch (stores write whole lines), so DRAM sees writes when dirty lines
 * are evicted. Slices are tied to channels: slice = channel * (slices / channels) + a hash bit,
 * so each slice talks to one channel, as on the HSM GPU (two slices per HBM channel). */
#ifndef CORUN_LLC_H
#define CORUN_LLC_H

#include "corun/dram.h"
#include "corun/gpu.h"
#include "corun/simenv.h"

#include <stdbool.h>
#include <stdint.h>

#define LLC_QUEUE_ENTRIES 16 /* input entries beyond the pipeline's latency */
#define LLC_DRAM_ENTRIES  8  /* requests waiting for the DRAM channel to accept */
#define LLC_ATD_STRIDE    32 /* the ATD shadows sets 0, 32, 64 ... of every slice */

enum llc_kind { LLC_READ, LLC_READ_CONST, LLC_WRITE };

/* The sampled auxiliary tag directory (ATD) of one kernel, as DASE and ASM propose in hardware:
 * for one LLC set in LLC_ATD_STRIDE of every slice, a private copy of the tags with the LLC's
 * associativity and LRU, updated by that kernel's accesses only, tells which of its accesses
 * would have missed had it run alone. It is bookkeeping: nothing else reads it. Counted over
 * the sampled sets since the last llc_reset_counters:
 * - accesses: the kernel's reads and writes processed there;
 * - misses: of those, misses in its private copy (which allocates on every miss);
 * - shared_misses: of those, misses that allocated in the shared LLC (a read sent to DRAM, or
 *   a write to an absent line). A read that joined an outstanding miss to its line is neither:
 *   the LLC leaves its tags alone then, and so does the copy, which keeps a kernel's copy
 *   identical to the shared sets while it runs alone (its lines are its own). */
struct llc_atd_counters {
    uint64_t accesses, misses, shared_misses;
};

struct llc;

/* Slices for cfg (validated by gpu_new). Free with llc_delete. */
struct llc *llc_new(const struct gpu_config *cfg, struct sim_env *env);
void llc_delete(struct llc *l);

unsigned llc_slices(const struct llc *l);
/* The slice that caches line. */
unsigned llc_slice_of(const struct llc *l, uint64_t line);
/* Sends a request from sm to slice at cycle now if the slice has room (and the SM's crossbar
 * port is free, which the caller checked); otherwise registers sm to be woken when room frees
 * up and returns false. */
bool llc_send(struct llc *l, unsigned sm, unsigned slice, uint64_t line, enum llc_kind kind,
              unsigned kernel, uint64_t now);
/* Bytes a request of kind crosses the crossbar with: a line for a write, an address else. */
unsigned llc_request_bytes(const struct llc *l, enum llc_kind kind);
/* llc_send for a request that left sm's crossbar port at sent_at already (noc_take_sm_port):
 * the order-free rules hand a block's requests to the slices at its end (gpu.order_free). */
bool llc_send_sent(struct llc *l, unsigned sm, unsigned slice, uint64_t line, enum llc_kind kind,
                   unsigned kernel, uint64_t sent_at);
/* Steps slice at cycle now; returns the next cycle it needs a step (UINT64_MAX: none known). */
uint64_t llc_step(struct llc *l, unsigned slice, uint64_t now);
/* The DRAM completion callback (ctx is the llc). */
void llc_dram_done(void *ctx, const struct dram_request *req, uint64_t mem_cycle);

/* Split blocks: the SMs' phase of the block [block_start, block_end) on one thread and the
 * slices' and DRAM's on another, with every result as if the SMs had run first. Between
 * llc_split_begin and llc_split_end the SM side appends requests that the slices cannot see
 * and sees the queues as they were when the block began, and the memory side logs what it
 * does to the SMs (replies, wake-ups of SMs waiting for room) and the slice wake-ups that
 * depend on the SM side's appends; llc_split_end, once both are done, applies the log in its
 * order and merges the queues. llc_split_stop goes back to plain blocks between two. */
void llc_split_begin(struct llc *l, uint64_t block_start, uint64_t block_end);
void llc_split_end(struct llc *l);
void llc_split_stop(struct llc *l);
/* Pipelined spans: the memory side runs blocks ahead of the SM side, each on its own thread,
 * with every result as if the SMs had run first in each block (src/sim/llc_split.c).
 * llc_pipe_begin and llc_pipe_finish (both sides stopped) open and close a span, whose blocks
 * are numbered from 0. The SM side, after its block b: llc_pipe_publish hands over its appends
 * and, once the memory side is done with block b, llc_pipe_apply applies what that did to the
 * SMs. The memory side, before its block j: llc_pipe_merge merges the appends of the SM blocks
 * before upto (all it has been handed), llc_pipe_may_run tells whether a slice step held back
 * for appends not handed over yet keeps it from running to block_end, and llc_pipe_block
 * opens block j; defer_from is the earliest cycle an append not merged could be ready. */
#define LLC_PIPE_SLOTS 32 /* blocks of events and of appends in flight: lead + 2 at least */
void llc_pipe_begin(struct llc *l);
void llc_pipe_publish(struct llc *l, uint64_t b, uint64_t block_start);
void llc_pipe_apply(struct llc *l, uint64_t j, uint64_t block_end);
void llc_pipe_merge(struct llc *l, uint64_t upto);
bool llc_pipe_may_run(const struct llc *l, uint64_t block_end);
void llc_pipe_block(struct llc *l, uint64_t j, uint64_t block_start, uint64_t block_end,
                    uint64_t defer_from);
void llc_pipe_finish(struct llc *l, uint64_t blocks);
/* Outstanding misses of slice (for tests and views). */
unsigned llc_mshrs_used(const struct llc *l, unsigned slice);
/* Kernel kernel's ATD counters (zero for a kernel index out of range). */
void llc_atd_counters(const struct llc *l, unsigned kernel, struct llc_atd_counters *out);
/* Starts a new counter epoch (the ATD's tags stay). */
void llc_reset_counters(struct llc *l);

#endif
