/* cache — set-associative LRU tag array with a merging MSHR table. */
#include "corun/cache.h"

#include "corun/util.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX

struct mshr {
    uint64_t key; /* line + 1; 0 marks an empty slot */
    uint32_t head, tail;
};

struct cache {
    unsigned sets, ways;
    bool hashed_index;
    uint64_t *tag;   /* sets * ways; line + 1, 0 = invalid */
    uint64_t *stamp; /* last use, for LRU */
    uint8_t *dirty;
    uint8_t *pending; /* reserved by a miss whose data has not arrived */
    uint64_t clock;
    size_t last_alloc; /* index of the way allocate() filled last */

    unsigned mshrs, mshrs_used;
    unsigned table_mask; /* open-addressing table, linear probing */
    struct mshr *table;

    unsigned waiters, waiters_used;
    uint32_t *wnext, *wtoken;
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
    c->tag = xcalloc(lines, sizeof(*c->tag));
    c->stamp = xcalloc(lines, sizeof(*c->stamp));
    c->dirty = xcalloc(lines, 1);
    c->pending = xcalloc(lines, 1);
    c->mshrs = mshrs;
    unsigned tsize = 4;
    while (tsize < 2 * mshrs)
        tsize *= 2;
    c->table_mask = tsize - 1;
    c->table = xcalloc(tsize, sizeof(*c->table));
    c->waiters = waiters;
    c->wnext = xmalloc((waiters ? waiters : 1) * sizeof(uint32_t));
    c->wtoken = xmalloc((waiters ? waiters : 1) * sizeof(uint32_t));
    for (unsigned i = 0; i < waiters; i++)
        c->wnext[i] = i + 1 < waiters ? i + 1 : NIL;
    c->wfree = waiters ? 0 : NIL;
    return c;
}

void cache_delete(struct cache *c)
{
    if (!c)
        return;
    free(c->tag);
    free(c->stamp);
    free(c->dirty);
    free(c->pending);
    free(c->table);
    free(c->wnext);
    free(c->wtoken);
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

static int find_way(const struct cache *c, unsigned set, uint64_t line)
{
    const uint64_t *t = c->tag + (size_t)set * c->ways;
    for (unsigned w = 0; w < c->ways; w++)
        if (t[w] == line + 1)
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
    c->wfree = c->wnext[n];
    c->wnext[n] = NIL;
    c->wtoken[n] = token;
    c->waiters_used++;
    return n;
}

/* Reserves a way for line in set (invalid way first, else LRU) and reports what it held. */
static void allocate(struct cache *c, unsigned set, uint64_t line, bool dirty,
                     struct cache_victim *victim)
{
    size_t base = (size_t)set * c->ways;
    unsigned best = 0;
    for (unsigned w = 0; w < c->ways; w++) {
        if (c->tag[base + w] == 0) {
            best = w;
            break;
        }
        if (c->stamp[base + w] < c->stamp[base + best])
            best = w;
    }
    size_t i = base + best;
    victim->valid = c->tag[i] != 0;
    victim->dirty = victim->valid && c->dirty[i];
    victim->line = victim->valid ? c->tag[i] - 1 : 0;
    c->tag[i] = line + 1;
    c->dirty[i] = dirty;
    c->pending[i] = 0;
    c->stamp[i] = ++c->clock;
    c->last_alloc = i;
}

enum cache_outcome cache_read(struct cache *c, uint64_t line, uint32_t waiter,
                              struct cache_victim *victim)
{
    victim->valid = victim->dirty = false;
    /* Tags first: a present line that is not pending is a hit without touching the MSHRs. A
     * pending line, or an absent one (a pending line may have been evicted), asks the MSHRs. */
    unsigned set = set_of(c, line);
    int w = find_way(c, set, line);
    if (w >= 0 && !c->pending[(size_t)set * c->ways + (unsigned)w]) {
        c->stamp[(size_t)set * c->ways + (unsigned)w] = ++c->clock;
        return CACHE_HIT;
    }
    struct mshr *m = mshr_find(c, line);
    if (m) {
        if (c->wfree == NIL)
            return CACHE_STALL;
        uint32_t n = waiter_take(c, waiter);
        c->wnext[m->tail] = n;
        m->tail = n;
        return CACHE_MERGED;
    }
    assert(w < 0);
    if (c->mshrs_used >= c->mshrs || c->wfree == NIL)
        return CACHE_STALL;
    allocate(c, set, line, false, victim);
    c->pending[c->last_alloc] = 1;
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
    unsigned set = set_of(c, line);
    int w = find_way(c, set, line);
    if (w >= 0) {
        size_t i = (size_t)set * c->ways + (unsigned)w;
        c->dirty[i] = 1;
        c->stamp[i] = ++c->clock;
        return true;
    }
    allocate(c, set, line, true, victim);
    return false;
}

bool cache_probe(const struct cache *c, uint64_t line)
{
    return find_way(c, set_of(c, line), line) >= 0;
}

unsigned cache_fill(struct cache *c, uint64_t line, cache_waiter_fn fn, void *ctx)
{
    struct mshr *m = mshr_find(c, line);
    if (!m)
        return 0;
    uint32_t n = m->head;
    mshr_remove(c, (unsigned)(m - c->table));
    c->mshrs_used--;
    unsigned set = set_of(c, line);
    int w = find_way(c, set, line);
    if (w >= 0)
        c->pending[(size_t)set * c->ways + (unsigned)w] = 0;
    unsigned count = 0;
    while (n != NIL) {
        uint32_t next = c->wnext[n];
        uint32_t token = c->wtoken[n];
        c->wnext[n] = c->wfree;
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
    size_t lines = (size_t)c->sets * c->ways;
    memset(c->tag, 0, lines * sizeof(*c->tag));
    memset(c->dirty, 0, lines);
    memset(c->pending, 0, lines);
}
