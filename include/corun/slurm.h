/* slurm — a sweep or a reproduction as one Slurm job array: one array task per shard, each
 * writing its own shard catalog (and, for a reproduction, its own journal) in the job's
 * directory on the shared file system; then the shards' results merged into the main catalog
 * or journal. Slurm places the tasks: corun only calls its commands (sbatch, squeue, sacct).
 *
 * A job directory holds:
 *   job              the manifest: what runs (the command's arguments), how many shards, the
 *                    simulator that submitted it, where results go, every submission's job id
 *   task.sh          the batch script every array task runs (`corun slurm task DIR`)
 *   shard-K.state    written by task K when it starts and when it ends (its exit status and
 *                    the simulator id of the corun that ran it)
 *   shard-K.out      the task's output (Slurm's --output)
 *   shard-K.db       the task's catalog; shard-K.journal its reproduce journal
 *
 * Functions that can fail return NULL or -1 with a message in err that names the file or the
 * command and what failed. */
#ifndef CORUN_SLURM_H
#define CORUN_SLURM_H

#include <stdbool.h>
#include <stddef.h>

#define SLURM_MAX_SBATCH_ARGS 16
#define SLURM_MAX_SHARDS      1000

/* How to submit. Strings are borrowed. */
struct slurm_options {
    unsigned shards;                                /* array tasks (one shard each) */
    const char *partition, *time;                   /* --partition, --time; NULL: Slurm's default */
    const char *account;                            /* --account; NULL: Slurm's default */
    unsigned cpus_per_task;                         /* --cpus-per-task; 0: Slurm's default */
    const char *sbatch_args[SLURM_MAX_SBATCH_ARGS]; /* given to sbatch as they are */
    size_t nsbatch_args;
    const char *dir; /* the job directory; NULL: a new one under slurm_jobs_root() */
    bool wait;       /* wait for the tasks and collect (the caller does) */
};

/* What a job runs. */
enum slurm_kind { SLURM_SWEEP, SLURM_REPRODUCE };

/* A job directory's manifest, loaded. */
struct slurm_job {
    char *dir;     /* absolute */
    char *made_in; /* the directory the manifest was written in (NULL: a manifest before it) */
    enum slurm_kind kind;
    unsigned shards;
    unsigned simulator; /* CORUN_SIM_ID of the corun that submitted it */
    char *cwd;          /* where the command was given (tasks and collect run there) */
    char *catalog;      /* the main catalog; NULL: the default */
    char *journal;      /* the main reproduce journal (SLURM_REPRODUCE) */
    char **argv;        /* the command and its arguments, without the Slurm options */
    int argc;
    char **sbatch; /* sbatch options of the first submission, reused on resubmission */
    int nsbatch;
    char **jobs;       /* every submission's Slurm job id, oldest first */
    char **job_shards; /* [i]: the shards submission i ran, "1-4" or "2,3" */
    int njobs;
};

/* Where job directories and the index of job ids go: the default catalog's directory/slurm
 * ($XDG_DATA_HOME/corun/slurm). The caller frees; NULL when no home is known. */
char *slurm_jobs_root(void);

/* Make the job directory (o->dir or a new one) with its manifest and batch script for the
 * command argv[0..argc) (argv[0] is "sweep" or "reproduce"), whose results go to catalog
 * (NULL: the default) and, for a reproduction, journal (NULL: DIR/results.journal). exe is the
 * corun the tasks run. Does not submit. */
struct slurm_job *slurm_job_create(const struct slurm_options *o, enum slurm_kind kind, int argc,
                                   char *const *argv, const char *catalog, const char *journal,
                                   const char *exe, char *err, size_t errlen);

/* Load the job named by `job`: its directory, or a Slurm job id submitted from this machine's
 * user (looked up in slurm_jobs_root()/ids). */
struct slurm_job *slurm_job_load(const char *job, char *err, size_t errlen);
void slurm_job_delete(struct slurm_job *j);
/* A job that was never submitted, undone: the files slurm_job_create wrote are removed (and
 * the directory with them when remove_dir, as for one it made itself), then j is deleted. */
void slurm_job_discard(struct slurm_job *j, bool remove_dir);

/* A file of shard k in the job directory: "state", "out", "db" or "journal". Heap. */
char *slurm_shard_path(const struct slurm_job *j, unsigned k, const char *what);

/* Submit shards[0..n) (1-based) as one array job with sbatch; the new job id goes to the
 * manifest and the index, and into id (len bytes). */
int slurm_job_submit(struct slurm_job *j, const unsigned *shards, size_t n, char *id, size_t len,
                     char *err, size_t errlen);

/* ---- progress ---- */

enum slurm_state {
    SLURM_NOT_RUN,   /* never started (not yet submitted, or cancelled while pending) */
    SLURM_PENDING,   /* waiting in the queue */
    SLURM_RUNNING,   /* in the queue and started */
    SLURM_DONE,      /* finished, every item of the shard in its catalog or journal */
    SLURM_FAILED,    /* finished with a non-zero exit status */
    SLURM_STOPPED,   /* started, then ended without finishing: cancelled, timed out, node lost */
    SLURM_OTHER_SIM, /* finished, but run by a corun of another simulator id */
    SLURM_UNKNOWN,   /* not finished, and squeue failed: pending, running or gone, who knows */
    SLURM_LOST,      /* finished, but its catalog (a sweep) or journal (a reproduction) is
                      * missing or unreadable, or a collect found it damaged */
};
#define SLURM_NSTATES (SLURM_LOST + 1)

struct slurm_shard {
    unsigned shard;
    enum slurm_state state;
    char task[64];    /* the Slurm task that last ran it, "JOB_K"; "" when none */
    char detail[128]; /* Slurm's word for it (sacct, squeue), the host, the exit status */
    unsigned simulator;
    int exit_status;
};

/* The state of every shard, into out[0..j->shards), from the shards' state files, squeue (the
 * tasks in the queue) and, where accounting is on, sacct (how an ended task ended). 0; or 1
 * when squeue failed (err says how), every shard still filled in from its files but those that
 * have not finished SLURM_UNKNOWN, since they may be pending or running. */
int slurm_job_status(const struct slurm_job *j, struct slurm_shard *out, char *err, size_t errlen);

/* A state's name for a table. */
const char *slurm_state_name(enum slurm_state s);

/* Milliseconds a waiting corun sleeps before its look number `polls` (from 0) at the queue
 * since the shards' states last changed: 250 ms, then twice as long each time, up to 5 s. A
 * short job is collected within a second of its end; a long one costs squeue a look every
 * 5 s. CORUN_SLURM_POLL_MS (1 to 60000) sets the first delay, the longest being 20 times it. */
unsigned slurm_wait_delay_ms(unsigned polls);

/* A waiting corun gives up after this many looks in a row at a queue squeue could not show
 * (slurmctld down or too busy to answer): with the delays above, about 80 s of failures when
 * the wait began, 100 s (plus squeue's own time-outs) later on, long enough to see through a
 * controller's restart. */
#define SLURM_WAIT_MAX_FAILURES 20

/* The shards to submit again (not run, failed, stopped, lost, or run by another simulator)
 * into shards (room for j->shards), their count returned; their state files are removed, and
 * so are the catalog and journal of a shard that a corun of another simulator started or whose
 * results were lost, so that it starts afresh. A shard whose state is unknown is never taken: it
 * may still be running. Callers refuse to resubmit at all when slurm_job_status could not read the
 * queue. */
size_t slurm_job_rerun_list(const struct slurm_job *j, const struct slurm_shard *st,
                            unsigned *shards);

/* ---- the task side ---- */

/* Task shard k starts (begin) or ends with exit status rc (end): its state file says so, with
 * this corun's simulator id, the host and the Slurm task. */
int slurm_task_begin(const struct slurm_job *j, unsigned k, char *err, size_t errlen);
int slurm_task_end(const struct slurm_job *j, unsigned k, int rc, char *err, size_t errlen);

/* ---- collecting ---- */

struct slurm_merged {
    unsigned shards;       /* shards merged now or before */
    unsigned long added;   /* results (catalog rows, journal mixes) new in the main file */
    unsigned long present; /* results it held already */
};

/* Merge every done shard of st into the job's main catalog (a sweep) or main journal and
 * catalog (a reproduction, whose shard catalogs hold private-mode traces). A shard run by
 * another simulator id is refused with a message on stderr. A done shard whose files cannot be
 * merged (unreadable, not a catalog or journal, damaged) becomes SLURM_LOST in st, the reason
 * in its detail and its state file, so that status and resubmit take it for one to run again.
 * Returns 0 when every shard was merged, 1 when some were not (not finished, refused, lost; the
 * others are merged), -1 with a message when a merge failed on the main catalog or journal.
 * Merging again changes nothing. */
int slurm_job_merge(const struct slurm_job *j, struct slurm_shard *st, const char *datadir,
                    struct slurm_merged *out, char *err, size_t errlen);

#endif
