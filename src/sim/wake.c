/* wake — timing wheel of agent bit sets. */
#include "corun/wake.h"

#include "corun/util.h"

#include <assert.h>
#include <stdlib.h>

struct wake {
    unsigned agents, words, mask, block;
    uint64_t pending; /* bits set over all slots */
    int shift;        /* log2(block) when block is a power of two (every preset's), else -1 */
    uint64_t *bits;   /* slots * words */
};

/* The slot number (before wrapping) of cycle t: a shift rather than a division when it can. */
static inline uint64_t slot_of(const struct wake *w, uint64_t t)
{
    return w->shift >= 0 ? t >> w->shift : t / w->block;
}

struct wake *wake_new(unsigned agents, unsigned slots, unsigned block)
{
    assert(slots && (slots & (slots - 1)) == 0 && block > 0);
    struct wake *w = xcalloc(1, sizeof(*w));
    w->agents = agents;
    w->words = (agents + 63) / 64;
    if (w->words == 0)
        w->words = 1;
    w->mask = slots - 1;
    w->block = block;
    w->shift = (block & (block - 1)) == 0 ? __builtin_ctz(block) : -1;
    w->bits = xcalloc((size_t)slots * w->words, sizeof(uint64_t));
    return w;
}

void wake_delete(struct wake *w)
{
    if (!w)
        return;
    free(w->bits);
    free(w);
}

unsigned wake_words(const struct wake *w)
{
    return w->words;
}

void wake_at(struct wake *w, unsigned agent, uint64_t now, uint64_t t)
{
    assert(agent < w->agents && t >= now);
    uint64_t slot = slot_of(w, t), cur = slot_of(w, now);
    if (slot - cur > w->mask)
        slot = cur + w->mask;
    uint64_t *word = &w->bits[(size_t)(slot & w->mask) * w->words + agent / 64];
    uint64_t bit = 1ull << (agent % 64);
    w->pending += !(*word & bit);
    *word |= bit;
}

bool wake_empty(const struct wake *w)
{
    return w->pending == 0;
}

int wake_take(struct wake *w, uint64_t now, uint64_t *out)
{
    uint64_t *slot = w->bits + (size_t)(slot_of(w, now) & w->mask) * w->words;
    uint64_t any = 0;
    for (unsigned i = 0; i < w->words; i++) {
        out[i] = slot[i];
        any |= slot[i];
        w->pending -= (uint64_t)__builtin_popcountll(slot[i]);
        slot[i] = 0;
    }
    return any != 0;
}
