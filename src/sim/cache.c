/* cache — set-associative LRU tag array with a merging MSHR table.
 *
 * Layout: a set is one block of 2 * ways words, its tags (line + 1, 0 = invalid) then its
 * "meta" words, last-use stamp << 2 | dirty << 1 | pending. Stamps are unique among a set's
 * valid ways (every use takes ++clock), so comparing meta words orders them by stamp alone, and
 * a hit or an allocation touches one contiguous block instead of four arrays. An invalid way's
 * meta word is 0, below every valid one's, so the first minimum of a set's meta words is its
 * first invalid way if it has one and its least recently used way otherwise. */
#include "corun/cache.h"

#include "corun/util.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX

#define META_PENDING 1u /* reserved by a miss whose data has not arrived */
#define META_DIRTY   2u
#define META_SHIFT   2

struct mshr {
    uint64_t key; /* line + 1; 0 marks an empty slot */
    uint32_t head, tail;
};

struct waiter {
    uint32_t next, token;
};

struct cache {
    unsigned sets, ways;
    bool hashed_index;
    uint64_t *blocks; /* sets * 2 * ways: per set, the tags then the meta words */
    uint64_t clock;

    unsigned mshrs, mshrs_used;
    unsigned table_mask; /* open-addressing table, linear probing */
    struct mshr *table;

    unsigned waiters, waiters_used;
    struct waiter *w;
    uint32_t wfree;
};

struct cache *cache_new(uint64_t size_bytes, unsigned ways, unsigned line_bytes, unsigned mshrs,
                        unsigned waiters, bool hashed_index)
{
    if (ways == 0 || line_bytes == 0 || size_bytes % line_bytes)
        return NULL;
    uint64_t lines = size_bytes / line_bytes;
    if (lines == 0 || lines % ways || lines / ways > UINT32_MAX)
        return NULL;
    struct cache *c = xcalloc(1, sizeof(*c));
    c->sets = (unsigned)(lines / ways);
    c->ways = ways;
    c->hashed_index = hashed_index;
    c->blocks = xcalloc(2 * lines, sizeof(*c->blocks));
    c->mshrs = mshrs;
    unsigned tsize = 4;
    while (tsize < 2 * mshrs)
        tsize *= 2;
    c->table_mask = tsize - 1;
    c->table = xcalloc(tsize, sizeof(*c->table));
    c->waiters = waiters;
    c->w = xcalloc(waiters ? waiters : 1, sizeof(*c->w));
    for (unsigned i = 0; i < waiters; i++)
        c->w[i].next = i + 1 < waiters ? i + 1 : NIL;
    c->wfree = waiters ? 0 : NIL;
    return c;
}

void cache_delete(struct cache *c)
{
    if (!c)
        return;
    free(c->blocks);
    free(c->table);
    free(c->w);
    free(c);
}

/* A cheap 64-bit mix (xor-shift-multiply); the full splitmix is not needed for indexing. */
static uint64_t hash(uint64_t x)
{
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ull;
    return x ^ (x >> 29);
}

static unsigned set_of(const struct cache *c, uint64_t line)
{
    /* Unhashed sets keep consecutive lines in consecutive sets (as a real L1 index does). */
    if (!c->hashed_index)
        return (c->sets & (c->sets - 1)) == 0 ? (unsigned)(line & (c->sets - 1))
                                              : (unsigned)(line % c->sets);
    /* multiply-shift maps the hash onto [0, sets) without a division */
    return (unsigned)(((hash(line) >> 32) * c->sets) >> 32);
}

/* The tags of set; its meta words follow at [ways]. */
static uint64_t *set_block(const struct cache *c, unsigned set)
{
    return c->blocks + (size_t)set * 2 * c->ways;
}

static int find_way(const struct cache *c, const uint64_t *tags, uint64_t line)
{
    for (unsigned w = 0; w < c->ways; w++)
        if (tags[w] == line + 1)
            return (int)w;
    return -1;
}

static unsigned mshr_slot(const struct cache *c, uint64_t line)
{
    return (unsigned)(hash(line) >> 40) & c->table_mask;
}

static struct mshr *mshr_find(struct cache *c, uint64_t line)
{
    for (unsigned i = mshr_slot(c, line);; i = (i + 1) & c->table_mask) {
        if (c->table[i].key == line + 1)
            return &c->table[i];
        if (c->table[i].key == 0)
            return NULL;
    }
}

/* Removes slot i, shifting later entries of its probe chain back (no tombstones). */
static void mshr_remove(struct cache *c, unsigned i)
{
    unsigned j = i;
    for (;;) {
        j = (j + 1) & c->table_mask;
        if (c->table[j].key == 0)
            break;
        unsigned home = mshr_slot(c, c->table[j].key - 1);
        /* An entry whose home lies cyclically in (i, j] is still reachable: leave it. */
        bool reachable = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (reachable)
            continue;
        c->table[i] = c->table[j];
        i = j;
    }
    c->table[i].key = 0;
}

static uint32_t waiter_take(struct cache *c, uint32_t token)
{
    uint32_t n = c->wfree;
    assert(n != NIL);
    c->wfree = c->w[n].next;
    c->w[n] = (struct waiter){NIL, token};
    c->waiters_used++;
    return n;
}

/* Reserves a way of the set at tags for line (the first invalid way, else LRU), sets its meta
 * flags to `flags`, and reports what it held. */
static void allocate(struct cache *c, uint64_t *tags, uint64_t line, uint64_t flags,
                     struct cache_victim *victim)
{
    uint64_t *meta = tags + c->ways;
    unsigned best = 0;
    for (unsigned w = 1; w < c->ways; w++)
        best = meta[w] < meta[best] ? w : best;
    victim->valid = tags[best] != 0;
    victim->dirty = victim->valid && (meta[best] & META_DIRTY);
    victim->line = victim->valid ? tags[best] - 1 : 0;
    tags[best] = line + 1;
    meta[best] = ++c->clock << META_SHIFT | flags;
}

enum cache_outcome cache_read(struct cache *c, uint64_t line, uint32_t waiter,
                              struct cache_victim *victim)
{
    victim->valid = victim->dirty = false;
    /* Tags first: a present line that is not pending is a hit without touching the MSHRs. A
     * pending line, or an absent one (a pending line may have been evicted), asks the MSHRs. */
    uint64_t *tags = set_block(c, set_of(c, line));
    int w = find_way(c, tags, line);
    if (w >= 0 && !(tags[c->ways + (unsigned)w] & META_PENDING)) {
        uint64_t *m = &tags[c->ways + (unsigned)w];
        *m = ++c->clock << META_SHIFT | (*m & META_DIRTY);
        return CACHE_HIT;
    }
    struct mshr *m = mshr_find(c, line);
    if (m) {
        if (c->wfree == NIL)
            return CACHE_STALL;
        uint32_t n = waiter_take(c, waiter);
        c->w[m->tail].next = n;
        m->tail = n;
        return CACHE_MERGED;
    }
    assert(w < 0);
    if (c->mshrs_used >= c->mshrs || c->wfree == NIL)
        return CACHE_STALL;
    allocate(c, tags, line, META_PENDING, victim);
    unsigned i = mshr_slot(c, line);
    while (c->table[i].key != 0)
        i = (i + 1) & c->table_mask;
    uint32_t n = waiter_take(c, waiter);
    c->table[i] = (struct mshr){.key = line + 1, .head = n, .tail = n};
    c->mshrs_used++;
    return CACHE_MISS;
}

bool cache_write(struct cache *c, uint64_t line, struct cache_victim *victim)
{
    victim->valid = victim->dirty = false;
    uint64_t *tags = set_block(c, set_of(c, line));
    int w = find_way(c, tags, line);
    if (w >= 0) {
        uint64_t *m = &tags[c->ways + (unsigned)w];
        *m = ++c->clock << META_SHIFT | META_DIRTY | (*m & META_PENDING);
        return true;
    }
    allocate(c, tags, line, META_DIRTY, victim);
    return false;
}

bool cache_probe(const struct cache *c, uint64_t line)
{
    return find_way(c, set_block(c, set_of(c, line)), line) >= 0;
}

unsigned cache_set_of(const struct cache *c, uint64_t line)
{
    return set_of(c, line);
}

unsigned cache_fill(struct cache *c, uint64_t line, cache_waiter_fn fn, void *ctx)
{
    struct mshr *m = mshr_find(c, line);
    if (!m)
        return 0;
    uint32_t n = m->head;
    mshr_remove(c, (unsigned)(m - c->table));
    c->mshrs_used--;
    uint64_t *tags = set_block(c, set_of(c, line));
    int w = find_way(c, tags, line);
    if (w >= 0)
        tags[c->ways + (unsigned)w] &= ~(uint64_t)META_PENDING;
    unsigned count = 0;
    while (n != NIL) {
        uint32_t next = c->w[n].next;
        uint32_t token = c->w[n].token;
        c->w[n].next = c->wfree;
        c->wfree = n;
        c->waiters_used--;
        count++;
        /* The slot is free before the callback runs, so a waiter may miss again at once. */
        fn(ctx, token);
        n = next;
    }
    return count;
}

bool cache_can_miss(const struct cache *c, unsigned n)
{
    return c->mshrs_used + n <= c->mshrs && c->waiters_used + n <= c->waiters;
}

unsigned cache_mshrs_used(const struct cache *c)
{
    return c->mshrs_used;
}

void cache_invalidate_all(struct cache *c)
{
    memset(c->blocks, 0, (size_t)c->sets * 2 * c->ways * sizeof(*c->blocks));
}
