/* dramtrace — drive one memory system alone with a request trace (`corun dram-trace`) and
 * report what it sustained: the DRAM model measured on the same streams other DRAM simulators
 * read.
 *
 * Frontend: one in-order queue per channel. The trace is split by channel keeping trace order,
 * and each channel's frontend hands its next requests to the channel as long as its queue has
 * room, so one full channel stalls only its own later requests, never another channel's. This
 * measures what the memory system can sustain, as if the requester had unlimited requests in
 * flight. */
#ifndef CORUN_DRAMTRACE_H
#define CORUN_DRAMTRACE_H

#include "corun/dram.h"
#include "corun/util.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dramtrace_result {
    uint64_t requests, reads, writes;
    unsigned request_bytes;
    uint64_t cycles; /* memory cycles from the start to the last completion */
    uint64_t bytes;
    double seconds;       /* simulated: cycles at the memory clock */
    double bandwidth_gbs; /* 10^9 bytes per simulated second */
    double peak_gbs;
    double utilization_pct; /* bandwidth_gbs / peak_gbs * 100 */
    uint64_t row_hits, row_misses, row_conflicts, activates, refreshes;
    double row_hit_rate;             /* row_hits / requests */
    double mean_read_latency_cycles; /* arrival at the channel queue to data returned */
    double mean_queue_cycles;        /* arrival to column command */
};

/* Runs the n requests (addrs[i], a write when writes[i]; writes may be NULL for all reads) on a
 * memory system built from cfg with request_bytes overriding cfg's (0 keeps it), ticking until
 * every request completed, telling progress (may be NULL) the share of the requests handed to
 * the channels now and then. Returns 0 and fills out, or -1 with a message in err when the
 * configuration (after the override) is invalid or n is 0. */
int dramtrace_run(const struct dram_config *cfg, unsigned request_bytes, const uint64_t *addrs,
                  const bool *writes, size_t n, util_progress_fn progress, void *ctx,
                  struct dramtrace_result *out, char *err, size_t errlen);

#endif
