/* cache — a set-associative, LRU, allocate-on-miss tag array with an MSHR table that merges
 * misses to the same line. Reused for the L1 data cache, the constant cache and LLC slices.
 *
 * The cache holds no data, only tags, dirty bits and the waiters of outstanding misses. Lines
 * are line numbers (byte address / line size). A miss reserves its way at once (the victim is
 * reported to the caller, who writes it back if dirty); the fill later only wakes the waiters. */
#ifndef CORUN_CACHE_H
#define CORUN_CACHE_H

#include <stdbool.h>
#include <stdint.h>

enum cache_outcome {
    CACHE_HIT,    /* tag present, no miss outstanding */
    CACHE_MISS,   /* new MSHR allocated: the caller sends the line request downstream */
    CACHE_MERGED, /* joined the waiters of an outstanding miss to the same line */
    CACHE_STALL,  /* no free MSHR or waiter slot: nothing changed, retry later */
};

/* A line pushed out by an allocation. */
struct cache_victim {
    bool valid, dirty;
    uint64_t line;
};

/* Called once per waiter when a miss is filled. */
typedef void (*cache_waiter_fn)(void *ctx, uint32_t waiter);

struct cache;

/* A cache of size_bytes in lines of line_bytes, `ways` ways, with `mshrs` outstanding misses
 * and `waiters` waiter slots shared by all MSHRs (each waiting access takes one). hashed_index
 * spreads set indices with a hash (for slices that see only a subset of the lines). Returns
 * NULL when the geometry is impossible (sizes not multiples, zero ways or sets). */
struct cache *cache_new(uint64_t size_bytes, unsigned ways, unsigned line_bytes, unsigned mshrs,
                        unsigned waiters, bool hashed_index);
void cache_delete(struct cache *c);

/* A read of line by `waiter`: see enum cache_outcome. On CACHE_MISS *victim says what the
 * reserved way held. */
enum cache_outcome cache_read(struct cache *c, uint64_t line, uint32_t waiter,
                              struct cache_victim *victim);
/* A full-line write with write-allocate: marks the line dirty, allocating it on a miss (no
 * fetch: the whole line is written). Returns true on a hit; *victim as for cache_read. */
bool cache_write(struct cache *c, uint64_t line, struct cache_victim *victim);
/* true when line is present (no LRU update). */
bool cache_probe(const struct cache *c, uint64_t line);
/* The set line maps to, in [0, sets); a sampled shadow directory (llc.c) uses it. */
unsigned cache_set_of(const struct cache *c, uint64_t line);
/* Completes the outstanding miss on line: calls fn(ctx, waiter) for each waiter in arrival
 * order and frees the MSHR. Returns the number of waiters (0 when no miss was outstanding). */
unsigned cache_fill(struct cache *c, uint64_t line, cache_waiter_fn fn, void *ctx);
/* true when n new misses could be accepted right now (n free MSHRs and n waiter slots). */
bool cache_can_miss(const struct cache *c, unsigned n);
/* Outstanding misses. */
unsigned cache_mshrs_used(const struct cache *c);
/* Drops every tag (outstanding misses stay and still fill). */
void cache_invalidate_all(struct cache *c);

#endif
