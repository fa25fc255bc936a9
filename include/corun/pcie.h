/* pcie — one direction of the host link of an accelerator (host to device, or device to
 * host), with the two kinds of copy a CUDA program can make (Prophet §5.1, Fig. 9):
 *
 *  - a bandwidth-sharing copy (pageable host memory) shares the link evenly with the other
 *    sharing copies in flight: n of them each move at shared rate / n;
 *  - a bandwidth-exclusive copy (pinned host memory) takes the whole link at the exclusive
 *    rate. Exclusive copies go one at a time in the order they were submitted; while one is
 *    in flight or waiting, no sharing copy moves (the sharing ones in flight are paused and
 *    resume where they stopped when the last exclusive copy completes).
 *
 * Time is in nanoseconds (double), the owner's clock: it submits copies at its current time,
 * asks when the next one completes and advances the link to that time (or any earlier one).
 * Nothing here knows about tasks, kernels or predictors. */
#ifndef CORUN_PCIE_H
#define CORUN_PCIE_H

#include <stddef.h>
#include <stdint.h>

/* A link's rates, in GB/s (10^9 bytes per second), from the GPU preset's pcie group. */
struct pcie_config {
    double shared_gbs;    /* what one bandwidth-sharing copy alone reaches */
    double exclusive_gbs; /* what one bandwidth-exclusive copy reaches */
};

enum pcie_kind {
    PCIE_SHARED,    /* pageable host memory: bandwidth-sharing (BS) */
    PCIE_EXCLUSIVE, /* pinned host memory: bandwidth-exclusive (BE) */
};

/* A copy that completed: the id it was submitted with and when. */
struct pcie_done {
    uint64_t id;
    double end_ns;
};

struct pcie_link;

/* A link with cfg's rates (both above 0), idle at time 0. Free with pcie_link_delete. */
struct pcie_link *pcie_link_new(const struct pcie_config *cfg);
void pcie_link_delete(struct pcie_link *l);

/* Submit copy id of bytes (> 0) at now_ns, which must not be before the link's time (the link
 * advances to now_ns first; copies that complete on the way are kept for pcie_link_advance). */
void pcie_link_submit(struct pcie_link *l, double now_ns, uint64_t id, uint64_t bytes,
                      enum pcie_kind kind);
/* When the next copy will complete if nothing else is submitted; INFINITY when the link holds
 * no copy. */
double pcie_link_next_ns(const struct pcie_link *l);
/* Advance the link to until_ns (not before its time) and move the copies that completed up
 * to then, in order of completion, into out[0..max); returns how many. When more than max
 * completed, the rest are returned by the next call (which may pass until_ns = the time). */
size_t pcie_link_advance(struct pcie_link *l, double until_ns, struct pcie_done *out, size_t max);
/* The link's time, copies held (in flight or waiting) and bytes moved so far. */
double pcie_link_now_ns(const struct pcie_link *l);
size_t pcie_link_copies(const struct pcie_link *l);
double pcie_link_bytes_moved(const struct pcie_link *l);
/* How long copy id has not moved (ns, at the link's time): 0 while it moves or when the link
 * does not hold it. A sharing copy does not move while an exclusive one is held, so behind
 * exclusive copies that follow one another without a gap it waits for ever. */
double pcie_link_stalled_ns(const struct pcie_link *l, uint64_t id);
/* A copy held back this long is starved: the task engine and Prophet's schedule predictor
 * stop waiting for it (its query never completes). 100 ms of simulated time: 240 times the
 * longest exclusive copy of the shipped profiles (pf-ex's 4 MiB at 10 GB/s, 0.42 ms). */
#define PCIE_STARVED_NS 100e6
/* Nanoseconds during which the link moved data (its busy time, for utilization). */
double pcie_link_busy_ns(const struct pcie_link *l);

#endif
