/* slurm_cli — `--slurm` on sweep and reproduce, and what cmd_slurm.c shares with them. */
#ifndef CORUN_SLURM_CLI_H
#define CORUN_SLURM_CLI_H

#include <stdbool.h>

#include "corun/slurm.h"

/* The help text of the options slurm_cli_take_options takes, for a command's --help. */
#define SLURM_CLI_HELP                                                                             \
    "  --slurm         submit the run to Slurm as one job array, one\n"                            \
    "                  task per shard, instead of running it here; see `corun help slurm`\n"       \
    "  --shards N      with --slurm: N shards, one array task each (default 8); a sweep\n"         \
    "                  takes no more than it has items (mixes x combinations), a\n"                \
    "                  reproduction (Prophet's aside) no more than its mixes, with a note\n"       \
    "  --partition P   with --slurm: sbatch --partition\n"                                         \
    "  --time T        with --slurm: sbatch --time, per task (e.g. 2:00:00)\n"                     \
    "  --cpus-per-task N  with --slurm: sbatch --cpus-per-task (give -j N as well)\n"              \
    "  --account A     with --slurm: sbatch --account\n"                                           \
    "  --sbatch-arg ARG  with --slurm: one more sbatch option, as it is (repeatable)\n"            \
    "  --slurm-dir DIR with --slurm: the job directory, on a file system every node\n"             \
    "                  shares (default: a new one in $XDG_DATA_HOME/corun/slurm)\n"                \
    "  --wait          with --slurm: wait for the tasks, then merge and print the table;\n"        \
    "                  a failed look at the queue (squeue) is tried again, and after 20 in\n"      \
    "                  a row it stops with exit status 1, the shards perhaps still running\n"

/* Take the Slurm options (--slurm, --shards, --partition, --time, --cpus-per-task, --account,
 * --sbatch-arg, --slurm-dir, --wait) out of argv[1..*argc), shortening it, into o; *wanted
 * tells whether --slurm was given. 0, or -1 after a message (a bad value, or one of them
 * without --slurm). */
int slurm_cli_take_options(int *argc, char **argv, bool *wanted, struct slurm_options *o);

/* Submit the command argv[0..argc) (parsed and checked by its command already) as a job of
 * o->shards array tasks whose results go to catalog and journal (slurm_job_create), print the
 * job's id and directory, and with o->wait wait for it and collect. An exit status. */
int slurm_cli_submit(enum slurm_kind kind, int argc, char **argv, const char *catalog,
                     const char *journal, const struct slurm_options *o);

/* A reproduction of n mixes (in its largest part), pairs or cells takes no more shards than
 * that: a shard past the last would be a task that runs nothing. o->shards is lowered, with a
 * note naming the experiment and the unit (one: "mix", many: "mixes"), when it asks for more. */
void slurm_cli_cap_shards(const char *cmd, const char *what, size_t n, const char *one,
                          const char *many, struct slurm_options *o);

/* --shard with --slurm: prints why not; CLI_BAD_INPUT. */
int slurm_cli_shard_refused(void);

/* Wait for the job's tasks to leave the queue, then collect it. An exit status. Stopped by
 * SIGINT, SIGTERM or SIGHUP while it waits, it says "corun: CMD: stopped by ..." and that the
 * job goes on, then dies of the signal. */
int slurm_cli_wait_and_collect(struct slurm_job *j, const char *cmd);

/* Merge the job's finished shards and, when all are, print the table as the command prints
 * it. An exit status. */
int slurm_cli_collect(struct slurm_job *j);

#endif
