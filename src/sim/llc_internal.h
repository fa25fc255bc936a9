/* llc_internal — the LLC's state, shared by llc.c (the slices) and llc_split.c (a block's or a
 * span's SM and memory sides on two threads). Not part of the public interface. */
#ifndef CORUN_LLC_INTERNAL_H
#define CORUN_LLC_INTERNAL_H

#include "corun/llc.h"
#include "corun/simenv.h"

#include <stdbool.h>
#include <stdint.h>

struct llc_req {
    uint64_t ready; /* cycle the request reaches the tag array */
    uint64_t line;
    uint16_t sm;
    uint8_t kind, kernel;
};

struct llc_out {
    uint64_t line;
    uint8_t write, kernel;
};

struct slice { /* what every step reads first, in one host cache line */
    struct cache *cache;
    struct llc_req *in;
    unsigned in_cap, in_head, in_count;
    unsigned out_head, out_count;
    uint64_t *waiters; /* SMs waiting for room in `in` */
    struct llc_out out[LLC_DRAM_ENTRIES];
    /* ATD: [kernel < SIM_MAX_KERNELS][sampled set][way] tags (line + 1, 0: invalid) and
     * last-use stamps */
    uint64_t *atd_tag, *atd_stamp;
    uint64_t atd_clock[SIM_MAX_KERNELS];
};

/* The SM side's view of a slice in split blocks and pipelined spans (llc_split.c): its queue
 * as the SM block began (count, head), what the SM side appended since and the first
 * appended request's ready cycle; whether the memory side popped from it (split blocks). */
struct split_view {
    uint64_t first_ready;
    unsigned base, head, added;
    bool listed;
    /* The slice's, copied so that the SM side reads no host cache line the memory side
     * writes: the queue's entries and size, the SMs waiting for room. */
    unsigned cap, waiter_rr; /* waiter_rr: where the round robin of waiters starts */
    struct llc_req *in;
    uint64_t *waiters;
};

/* What the memory side did to the SMs during a split block, in order. */
struct llc_event {
    uint64_t arrival, line; /* a reply; arrival UINT64_MAX: a wake of the slice's next waiter */
    unsigned sm_or_slice;
    bool is_const;
};

/* The events of one block. */
struct llc_log {
    struct llc_event *ev;
    size_t n, cap;
};

/* A slice step whose queue part was empty and whose next wake-up lies where the SM side's
 * appends not yet merged could have put an earlier one; block: the memory block it was made
 * in (pipelined spans). */
struct llc_deferred {
    uint64_t now, next, block;
    unsigned slice;
};

/* Pipelined spans: what the SM side appended to one slice in one block. */
struct llc_batch_entry {
    uint64_t first_ready;
    unsigned slice, added;
    bool was_empty; /* the queue, as the SM side saw it, was empty when the block began */
};

/* Pipelined spans: the SM side's appends of one block, for the memory side to merge. */
struct llc_batch {
    uint64_t start; /* the block's first cycle */
    unsigned n;
    struct llc_batch_entry *e; /* [nslices] */
};

struct llc {
    struct sim_env *env;
    unsigned nslices, per_channel, channels, line_bytes, latency, sm_words;
    struct slice *s;
    unsigned ways, atd_sets; /* LLC ways; sampled sets per slice */
    struct llc_atd_counters atd[SIM_MAX_KERNELS];

    bool split;              /* the SM and memory sides of the block run side by side */
    struct split_view *view; /* [slice] */
    uint64_t block_start, block_end;
    unsigned *listed, nlisted; /* memory side: slices it popped requests from */
    struct llc_log *cur;       /* memory side: the block's events */
    uint64_t defer_from; /* memory side: no unmerged append is ready before this (MAX: none) */
    struct llc_deferred *def;
    size_t ndef, cap_def;
    /* SM side: slices appended to; in host cache lines of their own (the memory side writes
     * the fields above as the SM side writes these). */
    char pad_sm[64];
    unsigned *touched, ntouched;
    char pad_sm_end[64];

    /* Pipelined spans (llc_pipe_*): events by memory block, appends by SM block, each in a
     * ring of LLC_PIPE_SLOTS. */
    bool pipe;
    uint64_t mem_block;   /* memory side: the block it runs */
    uint64_t merged;      /* memory side: SM blocks whose appends it merged */
    uint64_t *mark;       /* memory side, [slice]: 1 + the SM block last merged into it */
    uint64_t *mark_ready; /* [slice]: that block's first append's ready cycle */
    struct llc_log log[LLC_PIPE_SLOTS];
    struct llc_batch batch[LLC_PIPE_SLOTS];
};

/* llc.c, for llc_split.c: wakes the next SM waiting for room in slice, at now + 1. */
void llc_wake_waiter(struct llc *l, unsigned slice, uint64_t now);

#endif
