/* spawn — run another program (Slurm's sbatch, squeue, sacct) and read what it prints. */
#ifndef CORUN_SPAWN_H
#define CORUN_SPAWN_H

#include <stdbool.h>
#include <stddef.h>

/* Run argv[0] (looked up in PATH) with argv, its stdin from /dev/null and its stderr ours
 * (or /dev/null when quiet);
 * wait for it and return its stdout as a heap string in *out (the caller frees; may be NULL
 * to discard it) and its exit status in *status (128 + N when signal N ended it). 0, or -1
 * with a message naming the program when it could not be started (not installed, not in
 * PATH). */
int spawn_capture(char *const argv[], bool quiet, char **out, int *status, char *err,
                  size_t errlen);

/* spawn_capture, with the program's stderr kept from ours: the first line it printed there
 * (why it failed, say) goes into reason ("" when it printed none). */
int spawn_capture_reason(char *const argv[], char **out, int *status, char *reason,
                         size_t reasonlen, char *err, size_t errlen);

#endif
