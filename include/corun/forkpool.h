/* forkpool — independent tasks run on forked worker processes (POSIX only).
 *
 * The parent hands task indices one at a time to whichever worker is idle, so a slow task does
 * not hold back the others; each task fills a fixed-size result blob that travels back over
 * the worker's socket. Results reach the parent tagged with their task index, so a caller that
 * stores them by index gets the same outcome whatever the number of workers. A worker that
 * dies (signal, crash, _exit) fails the task it was running with a message saying how, and a
 * fresh worker takes its place; the parent never waits on a dead worker and reaps every child.
 *
 * Forked workers share nothing with the parent after the fork: they see the parent's memory
 * as it was, and only the result blob and progress come back. */
#ifndef CORUN_FORKPOOL_H
#define CORUN_FORKPOOL_H

#include <stddef.h>

#define FORKPOOL_ERROR_LEN 256

/* One task being run: handed to ops->run, which reads index and, when it fails, writes a
 * message into error. The other fields belong to the pool. */
struct forkpool_task {
    size_t index;
    char error[FORKPOOL_ERROR_LEN];
    /* the pool's own */
    const struct forkpool_ops *ops;
    void *user;
    size_t ntasks;
    int fd;             /* forked: the worker's socket; -1 in-process */
    double last_report; /* the fraction last sent */
};

struct forkpool_ops {
    /* In the worker: run task->index, filling result (result_size bytes, zeroed). Returns 0,
     * or nonzero when the task failed, with a message in task->error. Required. */
    int (*run)(void *user, struct forkpool_task *task, void *result);
    /* In the parent, once per task as it finishes: result is NULL and error says why when the
     * task failed. Required. */
    void (*collect)(void *user, size_t index, const void *result, const char *error);
    /* In the parent: tasks finished plus the fractions reported by those in flight, of
     * ntasks. Optional. */
    void (*progress)(void *user, double done, size_t ntasks);
    /* In each forked worker, right after the fork and before it exits (e.g. to open and close
     * its own database handle). Not called for jobs <= 1. Optional. */
    void (*child_init)(void *user);
    void (*child_done)(void *user);
};

/* Run tasks 0..ntasks-1 on up to jobs forked workers (jobs <= 1: here, in order, no fork),
 * calling ops->collect once for every task. Returns the number of tasks that failed. */
size_t forkpool_run(const struct forkpool_ops *ops, void *user, size_t ntasks, size_t result_size,
                    unsigned jobs);

/* From inside ops->run: the task is fraction (0..1) done. Forwarded to ops->progress in the
 * parent (from a worker, in steps of at least 1%). */
void forkpool_report(struct forkpool_task *task, double fraction);

#endif
