/* solo — private-mode references: a kernel run alone, as the ground truth of normalized
 * progress (NP), and the characterization `corun solo` prints.
 *
 * A trace records a kernel's cumulative warp instructions every SOLO_SAMPLE_CYCLES core cycles
 * of a private run (the kernel alone on `sms` SMs, the others power-gated). The true NP of a
 * shared-mode interval in which the kernel went from instruction count a to b in C cycles is
 * (private cycles from a to b) / C, with private cycles interpolated in the trace; a trace is
 * extended on demand when shared mode has gone further. Traces are cached in memory by (GPU
 * configuration hash, profile hash, SMs, seed), where the configuration hash also covers the
 * simulator's own id (a checksum of its sources, made by the build), so another layer may
 * persist them through the export and put functions below without handing out stale ones. */
#ifndef CORUN_SOLO_H
#define CORUN_SOLO_H

#include "corun/gpu.h"
#include "corun/kernel.h"
#include "corun/util.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SOLO_SAMPLE_CYCLES 1000

struct solo_key {
    uint64_t config_hash, profile_hash, seed;
    unsigned sms;
};

/* Stable hashes of every field that changes a simulation (not of names or descriptions). */
uint64_t solo_config_hash(const struct gpu_config *cfg);
uint64_t solo_profile_hash(const struct kernel_profile *p);

struct solo_trace;
struct solo_cache;

struct solo_cache *solo_cache_new(void);
void solo_cache_delete(struct solo_cache *c);

/* The trace of p alone on the first sms SMs (0: all) of cfg with seed, created empty when not
 * cached yet; owned by the cache. NULL with a message in err when cfg or p is invalid. */
struct solo_trace *solo_cache_get(struct solo_cache *c, const struct gpu_config *cfg,
                                  const struct kernel_profile *p, unsigned sms, uint64_t seed,
                                  char *err, size_t errlen);
/* Stores a trace loaded from elsewhere (insts[i]: cumulative instructions at cycle
 * i * SOLO_SAMPLE_CYCLES, insts[0] == 0); replaces a cached one with fewer samples. Returns
 * the cached trace, or NULL with a message. */
struct solo_trace *solo_cache_put(struct solo_cache *c, const struct gpu_config *cfg,
                                  const struct kernel_profile *p, unsigned sms, uint64_t seed,
                                  const uint64_t *insts, size_t n, char *err, size_t errlen);
/* The cached trace with key k, or NULL (nothing is created). */
struct solo_trace *solo_cache_find(struct solo_cache *c, const struct solo_key *k);
size_t solo_cache_count(const struct solo_cache *c);
struct solo_trace *solo_cache_at(struct solo_cache *c, size_t i);

const struct solo_key *solo_trace_key(const struct solo_trace *t);
/* The samples so far: returns their count and points *insts at them (valid until the trace is
 * extended). */
size_t solo_trace_samples(const struct solo_trace *t, const uint64_t **insts);
/* Simulates until the trace covers at least cycles core cycles. */
void solo_trace_extend(struct solo_trace *t, uint64_t cycles);
/* A trace read from a cache has no private run behind it: extending it first simulates the
 * kernel again from its start up to its samples, which solo_trace_catch_up can do ahead, a
 * slice at a time. solo_trace_behind gives the cycles of that still to simulate (0 for a
 * trace simulated here), and solo_trace_loaded whether there are any. Catching up changes no
 * sample: the run is deterministic. */
uint64_t solo_trace_behind(const struct solo_trace *t);
void solo_trace_catch_up(struct solo_trace *t, uint64_t cycles);
bool solo_trace_loaded(const struct solo_trace *t);
/* Private-mode cycles the kernel needs to reach insts cumulative instructions (interpolated
 * between samples; extends the trace as needed). -1 when the kernel makes no progress. */
double solo_trace_cycles_at(struct solo_trace *t, uint64_t insts);
/* True NP of a shared-mode interval: the kernel's cumulative instructions went from
 * insts_start to insts_end in shared_cycles core cycles. -1 when undefined. */
double solo_true_np(struct solo_trace *t, uint64_t insts_start, uint64_t insts_end,
                    uint64_t shared_cycles);

/* What `corun solo` prints about one kernel on n SMs. Rates are over the measured window. */
struct solo_result {
    unsigned sms;
    uint64_t warmup_cycles, cycles; /* cycles: measured window, after the warm-up */
    uint64_t instructions;
    double ipc;
    double bandwidth_gbs, bandwidth_pct; /* DRAM bytes moved; % of the preset's peak */
    double rbh;
    double l1d_miss_rate, l1c_miss_rate, l2_miss_rate;
    double mpki; /* LLC misses per 1000 warp instructions */
    uint64_t dram_requests, tbs_finished, launches;
};

/* Runs p alone on the first sms SMs (0: all; the rest gated) of cfg: cycles / 10 of warm-up,
 * then a measured window of `cycles`, telling progress (may be NULL) as it goes; the result
 * does not depend on it. Returns 0, or -1 with a message. */
int solo_characterize(const struct gpu_config *cfg, const struct kernel_profile *p, unsigned sms,
                      uint64_t cycles, uint64_t seed, util_progress_fn progress, void *ctx,
                      struct solo_result *out, char *err, size_t errlen);

#endif
