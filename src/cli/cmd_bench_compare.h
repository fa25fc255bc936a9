/* cmd_bench_compare — the --compare form of `corun bench` (cmd_bench.c parses it). */
#ifndef CORUN_CMD_BENCH_COMPARE_H
#define CORUN_CMD_BENCH_COMPARE_H

#include <stddef.h>

struct bench_compare_options {
    const char *other;         /* the other binary */
    const char *other_datadir; /* its CORUN_DATADIR, or NULL for ours */
    const char *this_datadir;  /* NULL: inherit */
    const char *args, *other_args;
    unsigned runs, epochs;
    int wall; /* time wall seconds instead of CPU seconds (for --threads) */
    int cold; /* no warm-up, and a fresh cache for every run */
};

/* Whether this binary's `run SCENARIO` takes o->args, checked as `run` checks them before
 * simulating (cmd_run_check), so that a mistake there is bad input, said before anything is
 * timed. 0, or -1 after its messages. */
int bench_compare_check_args(const struct bench_compare_options *o, const char *scenario);

/* Whether --args and --other-args leave out --out: each of the many runs would write the same
 * run file, and the second fail on finding it there (after the first had left it behind). 0,
 * or -1 after a message. */
int bench_compare_check_no_out(const struct bench_compare_options *o);

/* Runs every scenario on both binaries and prints a table; returns a CLI_* code. */
int bench_compare(const struct bench_compare_options *o, char **scenarios, size_t nscenarios);

#endif
