/* wake — a timing wheel of agent wake-ups (SMs, LLC slices).
 *
 * The core steps only the agents that can do something: an agent registers the future cycles
 * at which it must be looked at again, and the simulation loop takes the set due in the
 * current slot. A slot covers `block` cycles (1 for per-cycle agents). Times beyond the
 * wheel's span are clamped to its last slot: the agent then wakes early, finds nothing to do
 * and registers again, which costs time but never correctness. */
#ifndef CORUN_WAKE_H
#define CORUN_WAKE_H

#include <stdbool.h>
#include <stdint.h>

struct wake;

/* A wheel for `agents` agents of `slots` slots (a power of two) of `block` cycles each. */
struct wake *wake_new(unsigned agents, unsigned slots, unsigned block);
void wake_delete(struct wake *w);
/* Words of the agent bit sets (64 agents per word). */
unsigned wake_words(const struct wake *w);
/* Asks for agent to be looked at in the slot holding cycle t (t >= now; clamped to the span). */
void wake_at(struct wake *w, unsigned agent, uint64_t now, uint64_t t);
/* Moves the set of agents in the slot holding cycle now into out[wake_words] and clears it;
 * returns nonzero when any bit is set. */
int wake_take(struct wake *w, uint64_t now, uint64_t *out);
/* true when no agent waits in any slot: nothing is due until someone calls wake_at. */
bool wake_empty(const struct wake *w);

#endif
