/* bench — the performance figures `corun bench` prints: simulated cycles per CPU second for
 * whole-GPU epochs, how that cost scales with SMs and epochs, and DRAM requests per CPU second
 * on trace-driven runs. CPU time rather than wall time, so that a loaded machine does not
 * swing the figures. Figures, not tests: nothing here passes or fails. */
#ifndef CORUN_BENCH_H
#define CORUN_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "corun/gpu.h"
#include "corun/kernel.h"

/* The CPU time the calling thread has used, in seconds. */
double bench_cpu_seconds(void);

/* CPU time in ms of each of `epochs` consecutive epochs of epoch_cycles core cycles on cfg with the
 * given kernels on an even split of cfg->sms SMs (ms_out[epochs]). Returns 0, or -1 with a
 * message. */
int bench_epochs(const struct gpu_config *cfg, const struct kernel_profile *const *profiles,
                 unsigned nkernels, unsigned epochs, uint64_t epoch_cycles, uint64_t seed,
                 double *ms_out, char *err, size_t errlen);

/* The median of v[0..n) (v is reordered). */
double bench_median(double *v, size_t n);

/* Fill addrs[0..n) with one of the request streams of tools/gen_dram_traces.py
 * (pattern "stream", "random", "mix" or "mix2k"; 64 B requests over 4 GiB; p = 0.5). Returns 0,
 * or -1 for an unknown pattern. The PRNG differs from Python's, so the streams are alike in
 * kind, not identical. */
int bench_gen_trace(const char *pattern, size_t n, uint64_t seed, uint64_t *addrs);

#endif
