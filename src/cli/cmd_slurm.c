/* cmd_slurm — `corun slurm status|collect|resubmit|task JOB`: following, merging and
 * completing a job that `sweep --slurm` or `reproduce --slurm` submitted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "corun/cli.h"
#include "corun/slurm.h"
#include "corun/util.h"
#include "slurm_cli.h"

static int status(struct slurm_job *j)
{
    struct slurm_shard *st = xcalloc(j->shards, sizeof *st);
    char err[512];
    int queue = slurm_job_status(j, st, err, sizeof err);
    if (queue < 0) {
        fprintf(stderr, "corun: %s\n", err);
        free(st);
        return CLI_FAILED;
    }
    printf("job %s:", j->dir);
    for (int i = 0; i < j->argc; i++)
        printf(" %s", j->argv[i]);
    printf("\n%u shards; submitted as", j->shards);
    for (int i = 0; i < j->njobs; i++)
        printf("%s %s (shards %s)", i ? "," : "", j->jobs[i], j->job_shards[i]);
    printf("\n%-6s %-28s %-16s %s\n", "shard", "state", "task", "detail");
    unsigned count[SLURM_NSTATES] = {0};
    for (unsigned k = 0; k < j->shards; k++) {
        count[st[k].state]++;
        printf("%-6u %-28s %-16s %s\n", k + 1, slurm_state_name(st[k].state),
               st[k].task[0] ? st[k].task : "-", st[k].detail);
    }
    printf("%u of %u shards done", count[SLURM_DONE], j->shards);
    for (int s = 0; s < SLURM_NSTATES; s++)
        if (s != SLURM_DONE && count[s])
            printf(", %u %s", count[s], slurm_state_name((enum slurm_state)s));
    printf("\n");
    free(st);
    /* Finished shards need no queue; the others' states are guesses without it, and a script
     * that follows the job must not take them for answers. */
    if (queue == 0 || count[SLURM_UNKNOWN] == 0)
        return CLI_OK;
    fflush(stdout);
    fprintf(stderr,
            "corun: slurm status: %s, so whether the %u unfinished shard%s pending, running or "
            "gone is unknown; look again when squeue answers\n",
            err, count[SLURM_UNKNOWN], count[SLURM_UNKNOWN] == 1 ? " is" : "s are");
    return CLI_FAILED;
}

static int resubmit(struct slurm_job *j, bool wait)
{
    struct slurm_shard *st = xcalloc(j->shards, sizeof *st);
    unsigned *shards = xcalloc(j->shards, sizeof *shards);
    char err[512], id[64];
    int rc = CLI_OK;
    size_t n = 0;
    if (slurm_job_status(j, st, err, sizeof err) != 0) {
        /* Without the queue a shard that looks not run or stopped may be pending or running:
         * submitting it again would have two tasks write its files. */
        fprintf(stderr,
                "corun: slurm resubmit: %s; without the queue corun cannot tell which shards "
                "are still pending or running, so nothing was resubmitted or removed: run "
                "`corun slurm resubmit %s` again when squeue answers\n",
                err, j->dir);
        rc = CLI_FAILED;
    } else if ((n = slurm_job_rerun_list(j, st, shards)) == 0) {
        printf("nothing to resubmit: every shard of %s is done, pending or running\n", j->dir);
    } else {
        cli_stop_hold(true); /* until the job is recorded, as slurm_cli_submit */
        if (slurm_job_submit(j, shards, n, id, sizeof id, err, sizeof err) != 0) {
            fprintf(stderr, "corun: %s\n", err);
            rc = CLI_FAILED;
        } else {
            printf("resubmitted %zu shard%s (%s) as job %s\n", n, n == 1 ? "" : "s",
                   j->job_shards[j->njobs - 1], id);
            fflush(stdout);
            if (cli_stop_requested())
                fprintf(stderr,
                        "corun: stopped by %s while resubmitting; job %s was submitted first "
                        "and is recorded in %s\n",
                        cli_stop_name(), id, j->dir);
        }
        cli_stop_hold(false);
        cli_stop_reraise();
    }
    free(shards);
    free(st);
    return rc == CLI_OK && wait ? slurm_cli_wait_and_collect(j, "slurm resubmit") : rc;
}

/* One array task: its shard of the command, into its own catalog (and journal). */
static int task(struct slurm_job *j)
{
    const char *id = getenv("SLURM_ARRAY_TASK_ID");
    unsigned long k;
    if (!id || cli_parse_uint("SLURM_ARRAY_TASK_ID", id, 1, j->shards, &k) != 0) {
        fprintf(stderr,
                "corun: slurm task: run by Slurm as a task of the job's array, with "
                "SLURM_ARRAY_TASK_ID set to a shard (1 to %u)\n",
                j->shards);
        return CLI_BAD_INPUT;
    }
    char err[512];
    if (chdir(j->cwd) != 0 || slurm_task_begin(j, (unsigned)k, err, sizeof err) != 0) {
        fprintf(stderr, "corun: slurm task: %s\n", chdir(j->cwd) ? j->cwd : err);
        return CLI_FAILED;
    }
    char *shard = xasprintf("%lu/%u", k, j->shards);
    char *db = slurm_shard_path(j, (unsigned)k, "db");
    char *journal = slurm_shard_path(j, (unsigned)k, "journal");
    char **argv = xcalloc((size_t)j->argc + 7, sizeof *argv);
    int argc = 0;
    for (int i = 0; i < j->argc; i++)
        argv[argc++] = j->argv[i];
    /* After the command's own options, so that they win (getopt keeps the last). */
    argv[argc++] = "--shard";
    argv[argc++] = shard;
    argv[argc++] = "--catalog";
    argv[argc++] = db;
    if (j->kind == SLURM_REPRODUCE) {
        argv[argc++] = "--resume";
        argv[argc++] = journal;
    }
    const struct cli_command *cmd = cli_find(argv[0]);
    int rc = cmd ? cmd->run(argc, argv) : CLI_BAD_INPUT;
    fflush(stdout);
    if (slurm_task_end(j, (unsigned)k, rc, err, sizeof err) != 0) {
        fprintf(stderr, "corun: slurm task: %s\n", err);
        rc = CLI_FAILED;
    }
    free(argv);
    free(journal);
    free(db);
    free(shard);
    return rc;
}

static int slurm_main(int argc, char **argv)
{
    bool wait = false;
    int n = 0;
    char *args[3];
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--wait") == 0) {
            wait = true;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr,
                    "corun: slurm: unknown option '%s' (it takes --wait, with resubmit; the "
                    "job's own options, such as --catalog, were given when it was submitted)\n",
                    argv[i]);
            cli_usage_error(&cmd_slurm);
            return CLI_BAD_INPUT;
        } else if (n < 2) {
            args[n++] = argv[i];
        } else {
            n = 3;
        }
    }
    const char *actions[] = {"status", "collect", "resubmit", "task"};
    int action = -1;
    for (int a = 0; n == 2 && a < (int)CORUN_ARRAY_LEN(actions); a++)
        if (strcmp(args[0], actions[a]) == 0)
            action = a;
    if (action < 0 || (wait && action != 2)) {
        if (n != 2)
            fprintf(stderr, "corun: slurm: expected an action and a job directory (JOB)\n");
        else if (action < 0)
            fprintf(stderr, "corun: slurm: '%s': expected status, collect or resubmit\n", args[0]);
        else
            fprintf(stderr, "corun: slurm: --wait goes with resubmit only\n");
        cli_usage_error(&cmd_slurm);
        return CLI_BAD_INPUT;
    }
    char err[1024];
    struct slurm_job *j = slurm_job_load(args[1], err, sizeof err);
    if (!j) {
        fprintf(stderr, "corun: slurm %s: %s\n", args[0], err);
        return CLI_BAD_INPUT;
    }
    int rc = action == 0   ? status(j)
             : action == 1 ? slurm_cli_collect(j)
             : action == 2 ? resubmit(j, wait)
                           : task(j);
    slurm_job_delete(j);
    return rc;
}

const struct cli_command cmd_slurm = {
    .name = "slurm",
    .args = "status|collect|resubmit [--wait] JOB",
    .summary = "follow, merge and complete a sweep or reproduction submitted with --slurm",
    .help =
        "JOB is the Slurm job id that --slurm printed, or the job's directory.\n\n"
        "  status JOB      each shard's state: pending, running, done, failed (its exit\n"
        "                  status), stopped (cancelled, timed out or its node lost), not run,\n"
        "                  refused (run by a corun of another simulator id), or lost (it\n"
        "                  finished, but its catalog or journal is missing or cannot be\n"
        "                  merged); when squeue fails, an unfinished shard is unknown and\n"
        "                  the exit status is 1\n"
        "  collect JOB     merge every finished shard into the main catalog (a sweep) or the\n"
        "                  main journal (a reproduction) and, once all are, print the table\n"
        "                  exactly as the command run on one machine prints it. Merging again\n"
        "                  adds nothing; a result is never stored twice, and a shard run by a\n"
        "                  corun of another simulator id is refused\n"
        "  resubmit JOB    submit, as one new array job, only the shards that are missing,\n"
        "                  failed, stopped, lost or refused; refused while squeue fails, since\n"
        "                  a shard may then be pending or running without corun knowing\n"
        "  --wait          with resubmit: wait for the tasks, then collect\n\n"
        "`corun slurm task DIR` is what each array task runs (the job's task.sh); it is not\n"
        "meant to be typed. The source tree's docs/cluster.md tells how to run on a cluster.\n",
    .run = slurm_main,
};
