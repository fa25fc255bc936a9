/* slurm_cli — `corun sweep|reproduce ... --slurm`: the options, submitting, waiting, and
 * collecting a job's results into the table the command prints. */
#include "slurm_cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "corun/cli.h"
#include "corun/datadir.h"
#include "corun/util.h"

/* The option argv[*i] names (exactly, or as "--name=value"): its value into *value (the next
 * argument, taken) when it has one. 1 when it is `name`, 0 when not, -1 when its value is
 * missing. */
static int option_is(const char *name, bool has_value, int argc, char **argv, int *i,
                     const char **value)
{
    size_t n = strlen(name);
    const char *a = argv[*i];
    if (strncmp(a, name, n) != 0 || (a[n] != '\0' && (a[n] != '=' || !has_value)))
        return 0;
    if (!has_value)
        return 1;
    if (a[n] == '=') {
        *value = a + n + 1;
        return 1;
    }
    if (*i + 1 >= argc) {
        fprintf(stderr, "corun: %s needs a value\n", name);
        return -1;
    }
    *value = argv[++*i];
    return 1;
}

/* One Slurm option at argv[*i] into o: 1 taken, 0 not one of them, -1 bad. */
static int take_one(int argc, char **argv, int *i, bool *wanted, bool *any, struct slurm_options *o)
{
    const char *v = NULL;
    unsigned long n;
    int r;
    if ((r = option_is("--slurm", false, argc, argv, i, &v)) != 0)
        return r < 0 ? -1 : (*wanted = true, 1);
    if ((r = option_is("--wait", false, argc, argv, i, &v)) != 0)
        return r < 0 ? -1 : (*any = o->wait = true, 1);
    struct {
        const char *name;
        const char **field;
    } texts[] = {{"--partition", &o->partition},
                 {"--time", &o->time},
                 {"--account", &o->account},
                 {"--slurm-dir", &o->dir}};
    for (size_t t = 0; t < CORUN_ARRAY_LEN(texts); t++)
        if ((r = option_is(texts[t].name, true, argc, argv, i, &v)) != 0) {
            *texts[t].field = v;
            *any = true;
            return r < 0 || cli_nonempty(texts[t].name, v) != 0 ? -1 : 1;
        }
    if ((r = option_is("--shards", true, argc, argv, i, &v)) != 0) {
        *any = true;
        if (r < 0 || cli_parse_uint("--shards", v, 1, SLURM_MAX_SHARDS, &n) != 0)
            return -1;
        o->shards = (unsigned)n;
        return 1;
    }
    if ((r = option_is("--cpus-per-task", true, argc, argv, i, &v)) != 0) {
        *any = true;
        if (r < 0 || cli_parse_uint("--cpus-per-task", v, 1, 4096, &n) != 0)
            return -1;
        o->cpus_per_task = (unsigned)n;
        return 1;
    }
    if ((r = option_is("--sbatch-arg", true, argc, argv, i, &v)) != 0) {
        *any = true;
        if (r > 0 && o->nsbatch_args == SLURM_MAX_SBATCH_ARGS) {
            fprintf(stderr, "corun: --sbatch-arg: at most %d of them\n", SLURM_MAX_SBATCH_ARGS);
            return -1;
        }
        if (r < 0 || cli_nonempty("--sbatch-arg", v) != 0)
            return -1;
        o->sbatch_args[o->nsbatch_args++] = v;
        return 1;
    }
    return 0;
}

int slurm_cli_take_options(int *argc, char **argv, bool *wanted, struct slurm_options *o)
{
    *o = (struct slurm_options){.shards = 8};
    *wanted = false;
    bool any = false;
    int kept = 1;
    for (int i = 1; i < *argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            while (i < *argc)
                argv[kept++] = argv[i++];
            break;
        }
        int r = take_one(*argc, argv, &i, wanted, &any, o);
        if (r < 0)
            return -1;
        if (r == 0)
            argv[kept++] = argv[i];
    }
    *argc = kept;
    argv[kept] = NULL;
    if (any && !*wanted) {
        fprintf(stderr,
                "corun: %s: --shards, --partition, --time, --cpus-per-task, --account, "
                "--sbatch-arg, --slurm-dir and --wait go with --slurm\n",
                argv[0]);
        return -1;
    }
    return 0;
}

void slurm_cli_cap_shards(const char *cmd, const char *what, size_t n, const char *one,
                          const char *many, struct slurm_options *o)
{
    if (n == 0 || n >= o->shards)
        return;
    fprintf(stderr, "corun: %s: %s has %zu %s, so %zu shard%s, not %u\n", cmd, what, n,
            n == 1 ? one : many, n, n == 1 ? "" : "s", o->shards);
    o->shards = (unsigned)n;
}

int slurm_cli_shard_refused(void)
{
    fprintf(stderr, "corun: --shard and --slurm: the job splits the run into --shards N shards "
                    "itself; leave out --shard\n");
    return CLI_BAD_INPUT;
}

/* Whether the command's arguments ask for more than one CPU: -j/--jobs or --threads. */
static bool uses_cpus(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], "-j", 2) == 0 || strncmp(argv[i], "--jobs", 6) == 0 ||
            strncmp(argv[i], "--threads", 9) == 0)
            return true;
    return false;
}

int slurm_cli_submit(enum slurm_kind kind, int argc, char **argv, const char *catalog,
                     const char *journal, const struct slurm_options *o)
{
    if (o->cpus_per_task > 1 && !uses_cpus(argc, argv))
        fprintf(stderr,
                "corun: note: --cpus-per-task %u gives each task %u CPUs, but without -j N (or "
                "--threads N) a task runs on one; add -j %u to use them\n",
                o->cpus_per_task, o->cpus_per_task, o->cpus_per_task);
    char exe[4096], err[1024];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        fprintf(stderr, "corun: --slurm: cannot find this program's file: %s\n", strerror(errno));
        return CLI_FAILED;
    }
    exe[n] = '\0';
    /* A stop while sbatch ran killed corun, not sbatch: the job was submitted, but its
     * directory never learnt its id, so `slurm status` called its queued shards not run and
     * `slurm resubmit` queued them twice. Held until the job is recorded or discarded. */
    cli_stop_hold(true);
    struct slurm_job *j =
        slurm_job_create(o, kind, argc, argv, catalog, journal, exe, err, sizeof err);
    if (!j) {
        fprintf(stderr, "corun: %s\n", err);
        cli_stop_hold(false);
        cli_stop_reraise();
        return CLI_BAD_INPUT;
    }
    unsigned *all = xcalloc(j->shards, sizeof *all);
    for (unsigned k = 0; k < j->shards; k++)
        all[k] = k + 1;
    char id[64];
    int rc = slurm_job_submit(j, all, j->shards, id, sizeof id, err, sizeof err);
    free(all);
    if (rc != 0) { /* nothing submitted: nothing left behind, so the same command can be rerun */
        fprintf(stderr, "corun: %s\n", err);
        slurm_job_discard(j, !o->dir);
        cli_stop_hold(false);
        cli_stop_reraise();
        return CLI_FAILED;
    }
    printf("submitted job %s: %u shards, directory %s\n", id, j->shards, j->dir);
    fprintf(stderr,
            "corun: follow it with `corun slurm status %s`; merge it with `corun slurm "
            "collect %s`\n",
            id, id);
    fflush(stdout);
    cli_stop_hold(false);
    if (cli_stop_requested()) {
        fprintf(stderr,
                "corun: stopped by %s while submitting; job %s was submitted first and is "
                "recorded in %s\n",
                cli_stop_name(), id, j->dir);
        cli_stop_reraise();
    }
    rc = o->wait ? slurm_cli_wait_and_collect(j, kind == SLURM_REPRODUCE ? "reproduce" : "sweep")
                 : CLI_OK;
    slurm_job_delete(j);
    return rc;
}

/* SLURM_CLI_HELP and docs/cluster.md name the number. */
_Static_assert(SLURM_WAIT_MAX_FAILURES == 20, "say the new number in --wait's help and the docs");

/* Waits until no shard is pending or running: 0, or CLI_FAILED when squeue keeps failing. */
static int wait_for_shards(struct slurm_job *j)
{
    struct slurm_shard *st = xcalloc(j->shards, sizeof *st);
    char err[512], last[128] = "";
    unsigned polls = 0;    /* looks at the queue since the states last changed */
    unsigned failures = 0; /* looks in a row at a queue squeue could not show */
    for (;;) {
        int queue = slurm_job_status(j, st, err, sizeof err);
        if (queue < 0) {
            fprintf(stderr, "corun: %s\n", err);
            free(st);
            return CLI_FAILED;
        }
        unsigned count[SLURM_NSTATES] = {0};
        for (unsigned k = 0; k < j->shards; k++)
            count[st[k].state]++;
        /* A failed look says nothing of the unfinished shards: taking them for gone would
         * collect a job still running, and advise resubmitting shards that are queued. */
        if (count[SLURM_UNKNOWN]) {
            unsigned ms = slurm_wait_delay_ms(polls++);
            if (++failures == SLURM_WAIT_MAX_FAILURES) {
                fprintf(stderr,
                        "corun: squeue failed %u times in a row (the last: %s), so corun stops "
                        "waiting; the shards may still be pending or running: follow them with "
                        "`corun slurm status %s` and merge them with `corun slurm collect %s` "
                        "once squeue answers\n",
                        failures, err, j->dir, j->dir);
                free(st);
                return CLI_FAILED;
            }
            if (failures == 1)
                fprintf(stderr,
                        "corun: %s; looking again in %.2f s, and stopping after %d failures in "
                        "a row\n",
                        err, ms / 1000.0, SLURM_WAIT_MAX_FAILURES);
            nanosleep(&(struct timespec){ms / 1000, (long)(ms % 1000) * 1000000L}, NULL);
            continue;
        }
        if (failures)
            fprintf(stderr, "corun: squeue answers again, after %u failure%s\n", failures,
                    failures == 1 ? "" : "s");
        failures = 0;
        char now[128];
        snprintf(now, sizeof now, "%u of %u shards done, %u running, %u pending", count[SLURM_DONE],
                 j->shards, count[SLURM_RUNNING], count[SLURM_PENDING]);
        if (strcmp(now, last) != 0) {
            fprintf(stderr, "corun: %s\n", now);
            polls = 0;
        }
        snprintf(last, sizeof last, "%s", now);
        if (count[SLURM_RUNNING] + count[SLURM_PENDING] == 0)
            break;
        unsigned ms = slurm_wait_delay_ms(polls++);
        nanosleep(&(struct timespec){ms / 1000, (long)(ms % 1000) * 1000000L}, NULL);
    }
    free(st);
    return 0;
}

int slurm_cli_wait_and_collect(struct slurm_job *j, const char *cmd)
{
    /* Stopped while it waits (Ctrl-C), corun dies of the signal as before, but first says that
     * the job goes on without it and how to follow and merge it; collecting is as it was. */
    char note[512];
    snprintf(note, sizeof note,
             "the job goes on in Slurm: follow it with `corun slurm status` and merge it with "
             "`corun slurm collect`, each given its directory, %s\n",
             j->dir);
    cli_stop_note_install(cmd, note);
    int rc = wait_for_shards(j);
    cli_stop_note_remove();
    return rc ? rc : slurm_cli_collect(j);
}

/* Run the job's command here, reading every result from the merged files: it prints the
 * table as a run on one machine does. */
static int print_table(const struct slurm_job *j)
{
    char **argv = xcalloc((size_t)j->argc + 5, sizeof *argv);
    int argc = 0;
    for (int i = 0; i < j->argc; i++)
        argv[argc++] = j->argv[i];
    if (j->kind == SLURM_REPRODUCE) {
        argv[argc++] = "--resume";
        argv[argc++] = j->journal;
    }
    if (j->catalog) {
        argv[argc++] = "--catalog";
        argv[argc++] = j->catalog;
    }
    const struct cli_command *cmd = cli_find(argv[0]);
    int rc = CLI_FAILED;
    if (!cmd)
        fprintf(stderr, "corun: %s/job: this corun has no command '%s'\n", j->dir, argv[0]);
    else if (chdir(j->cwd) != 0)
        fprintf(stderr, "corun: cannot enter %s, where the job was submitted: %s\n", j->cwd,
                strerror(errno));
    else
        rc = cmd->run(argc, argv);
    free(argv);
    return rc;
}

int slurm_cli_collect(struct slurm_job *j)
{
    struct slurm_shard *st = xcalloc(j->shards, sizeof *st);
    char err[1024];
    char *datadir = datadir_locate();
    struct slurm_merged m = {0};
    char queue_err[512] = "";
    /* Without the queue the finished shards still merge; only the others' states are unknown. */
    int rc = slurm_job_status(j, st, queue_err, sizeof queue_err) < 0 ? -1 : 0;
    if (rc < 0)
        snprintf(err, sizeof err, "%s", queue_err);
    else
        rc = slurm_job_merge(j, st, datadir, &m, err, sizeof err);
    if (rc < 0)
        fprintf(stderr, "corun: collect: %s\n", err);
    else
        fprintf(stderr,
                "corun: collect %s: %u of %u shards merged into %s: %lu results added, "
                "%lu there already\n",
                j->dir, m.shards, j->shards,
                j->kind == SLURM_REPRODUCE ? j->journal
                : j->catalog               ? j->catalog
                                           : "the default catalog",
                m.added, m.present);
    if (rc == 1) {
        bool unknown = false, rerun = false;
        for (unsigned k = 0; k < j->shards; k++) {
            if (st[k].state == SLURM_DONE)
                continue;
            unknown |= st[k].state == SLURM_UNKNOWN;
            rerun |= st[k].state != SLURM_PENDING && st[k].state != SLURM_RUNNING &&
                     st[k].state != SLURM_UNKNOWN;
            fprintf(stderr, "corun: shard %u is %s%s%s\n", k + 1, slurm_state_name(st[k].state),
                    st[k].detail[0] ? ": " : "", st[k].detail);
        }
        if (unknown)
            fprintf(stderr,
                    "corun: no table until every shard is merged; %s, so the shards of unknown "
                    "state may still be pending or running: collect again when squeue "
                    "answers\n",
                    queue_err);
        else if (!rerun) /* resubmit would say there is nothing to resubmit */
            fprintf(stderr,
                    "corun: no table until every shard is merged; the others are pending or "
                    "running: collect again when they have finished\n");
        else
            fprintf(stderr,
                    "corun: no table until every shard is merged; `corun slurm resubmit %s` "
                    "runs the missing and failed ones again\n",
                    j->dir);
    }
    free(datadir);
    free(st);
    return rc == 0 ? print_table(j) : CLI_FAILED;
}
