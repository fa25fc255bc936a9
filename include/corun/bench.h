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

/* One run of another program, for `corun bench --compare`. */
struct bench_child {
    char *const *argv;    /* argv[0] is run as given (no PATH search) */
    const char *datadir;  /* when not NULL, its CORUN_DATADIR */
    const char *xdg;      /* when not NULL, its XDG_DATA_HOME (each binary keeps its caches) */
    const char *out_path; /* its stdout; its stdin is /dev/null */
    const char *err_path; /* its stderr */
    double limit_s;       /* the wall seconds it may take; 0: no limit */
    /* What bench_spawn found: */
    double cpu_s;    /* CPU time (user + system) of the child and its children */
    double wall_s;   /* wall time from fork to reaping */
    int status;      /* its wait status */
    int stop_signal; /* SIGINT, SIGTERM or SIGHUP that came while it ran, else 0 */
};

/* Runs c->argv in a process group of its own and waits for it. Returns 0 when it ended by
 * itself; 1 when it ran past c->limit_s, and 2 when this process was sent SIGINT, SIGTERM or
 * SIGHUP (c->stop_signal; the caller ends as the signal would, once it cleaned up): in both
 * cases its whole process group was killed and reaped, so nothing of it is left running;
 * after a signal, SIGINT, SIGTERM and SIGHUP are ignored, so that a second one does not cut the
 * caller's cleaning up short.
 * -1 with a message when it could not be started. */
int bench_spawn(struct bench_child *c, char *err, size_t errlen);

/* 1 when the files at a and b hold the same bytes, 0 when not (*first_diff: the offset of the
 * first difference), -1 when one cannot be read (message in err). */
int bench_files_equal(const char *a, const char *b, long *first_diff, char *err, size_t errlen);

/* The simulated core cycles a `corun run --json` document on the file at path covers (the sum
 * of its epochs' "cycles"), or 0 when it holds none. */
double bench_json_cycles(const char *path);

#endif
