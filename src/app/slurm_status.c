/* slurm_status — where a job's shards are (their state files, squeue, sacct), which to run
 * again, and merging the finished ones into the main catalog or journal. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "corun/catalog.h"
#include "corun/reproduce_journal.h"
#include "corun/slurm.h"
#include "corun/spawn.h"
#include "corun/util.h"
#include "corun_sim_id.h"

const char *slurm_state_name(enum slurm_state s)
{
    static const char *const names[] = {"not run",
                                        "pending",
                                        "running",
                                        "done",
                                        "failed",
                                        "stopped",
                                        "refused (another simulator)",
                                        "unknown (squeue failed)",
                                        "lost (results unusable)"};
    return names[s];
}

unsigned slurm_wait_delay_ms(unsigned polls)
{
    /* CORUN_SLURM_POLL_MS moves the first delay (a cluster that asks for fewer squeue calls;
     * the tests, which would otherwise sleep through a minute of failed looks). */
    unsigned first = 250;
    const char *env = getenv("CORUN_SLURM_POLL_MS");
    char *end;
    unsigned long v = env && *env ? strtoul(env, &end, 10) : 0;
    if (env && *env && !*end && v >= 1 && v <= 60000) {
        first = (unsigned)v;
    } else if (env && polls == 0) { /* it was ignored, unsaid */
        fprintf(stderr,
                "corun: note: CORUN_SLURM_POLL_MS=%s: expected a whole number of milliseconds "
                "from 1 to 60000; looking every %u ms at first\n",
                env, first);
    }
    unsigned ms = first, most = 20 * first;
    for (unsigned i = 0; i < polls && ms < most; i++)
        ms *= 2;
    return ms < most ? ms : most;
}

/* 1 when shard k is in spec ("1-4", "2,5", "3"). */
static bool spec_has(const char *spec, unsigned k)
{
    for (const char *p = spec; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
        unsigned lo, hi;
        int n = sscanf(p, "%u-%u", &lo, &hi);
        if ((n == 2 && k >= lo && k <= hi) || (n == 1 && k == lo))
            return true;
    }
    return false;
}

/* The state file of shard k, into s. */
static void read_state(const struct slurm_job *j, unsigned k, struct slurm_shard *s)
{
    char *path = slurm_shard_path(j, k, "state");
    FILE *f = fopen(path, "r");
    free(path);
    if (!f)
        return;
    char line[512], host[256] = "", task[64] = "", lost[sizeof s->detail] = "";
    bool started = false, finished = false;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "lost ", 5) == 0) /* written by a collect that could not merge it */
            snprintf(lost, sizeof lost, "%.*s", (int)strcspn(line + 5, "\n"), line + 5);
        started |= strncmp(line, "started ", 8) == 0;
        finished |= sscanf(line, "finished %d", &s->exit_status) == 1;
        sscanf(line, "simulator %u", &s->simulator);
        sscanf(line, "host %255s", host);
        if (sscanf(line, "task %63s", task) == 1)
            snprintf(s->task, sizeof s->task, "%s", task);
    }
    fclose(f);
    if (finished && s->simulator != CORUN_SIM_ID)
        s->state = SLURM_OTHER_SIM;
    else if (finished)
        s->state = s->exit_status == 0 ? SLURM_DONE : SLURM_FAILED;
    else if (started)
        s->state = SLURM_STOPPED;
    if (finished && s->exit_status != 0)
        snprintf(s->detail, sizeof s->detail, "exit status %d on %.64s", s->exit_status, host);
    else if (s->state == SLURM_OTHER_SIM)
        snprintf(s->detail, sizeof s->detail, "simulator %u, this corun's is %u", s->simulator,
                 (unsigned)CORUN_SIM_ID);
    else
        snprintf(s->detail, sizeof s->detail, "on %.64s", host);
    if (s->state == SLURM_DONE && lost[0]) {
        s->state = SLURM_LOST;
        snprintf(s->detail, sizeof s->detail, "%s", lost);
    }
}

/* The file a done shard's results are in: its catalog (a sweep) or its journal (a
 * reproduction, whose catalog only caches traces). */
static const char *results_file(const struct slurm_job *j)
{
    return j->kind == SLURM_SWEEP ? "db" : "journal";
}

/* A done shard whose results file is missing or unreadable is lost: merging would skip it and
 * the table would simulate its items here. */
static void check_results(const struct slurm_job *j, unsigned k, struct slurm_shard *s)
{
    if (s->state != SLURM_DONE)
        return;
    char *path = slurm_shard_path(j, k, results_file(j));
    if (access(path, R_OK) != 0) {
        s->state = SLURM_LOST;
        snprintf(s->detail, sizeof s->detail, "finished, but shard-%u.%s %s", k, results_file(j),
                 errno == ENOENT ? "is missing" : "cannot be read");
    }
    free(path);
}

/* Run a Slurm query; its output (heap) or NULL when it failed. */
static char *query(char **argv, bool quiet)
{
    char *out = NULL, err[256];
    int status;
    if (spawn_capture(argv, quiet, &out, &status, err, sizeof err) != 0) {
        fprintf(stderr, "corun: %s\n", err);
        return NULL;
    }
    if (status != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* The tasks of our jobs that are in the queue: "JOB K STATE" lines of squeue. 0, or -1 when
 * squeue could not tell, with its reason in err. */
static int apply_queue(const struct slurm_job *j, struct slurm_shard *out, char *err, size_t errlen)
{
    char *argv[] = {"squeue", "-h", "-r", "--me", "-o", "%F %K %T", NULL};
    char *text = NULL, reason[200], why[256];
    int status = 0;
    if (spawn_capture_reason(argv, &text, &status, reason, sizeof reason, why, sizeof why) != 0) {
        snprintf(err, errlen, "squeue failed: %s", why);
        return -1;
    }
    if (status != 0) {
        snprintf(err, errlen, "squeue failed (exit status %d%s%s)", status,
                 reason[0] ? ": " : ", with no message", reason);
        free(text);
        return -1;
    }
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char job[64], state[64];
        unsigned k;
        if (sscanf(line, "%63s %u %63s", job, &k, state) != 3 || k < 1 || k > j->shards)
            continue;
        struct slurm_shard *s = &out[k - 1];
        char task[160];
        snprintf(task, sizeof task, "%s_%u", job, k);
        if (strcmp(task, s->task) != 0)
            continue;
        s->state = strcmp(state, "PENDING") == 0 ? SLURM_PENDING : SLURM_RUNNING;
        snprintf(s->detail, sizeof s->detail, "%s", state);
    }
    free(text);
    return 0;
}

/* How ended tasks that left no "finished" line ended, where accounting keeps it. */
static void apply_accounting(const struct slurm_job *j, struct slurm_shard *out)
{
    char *ids = xstrdup("");
    for (int i = 0; i < j->njobs; i++) {
        char *next = xasprintf("%s%s%s", ids, i ? "," : "", j->jobs[i]);
        free(ids);
        ids = next;
    }
    char *argv[] = {"sacct", "-n", "-X", "-P", "-j", ids, "-o", "JobID,State", NULL};
    char *text = j->njobs ? query(argv, true) : NULL;
    char *save = NULL;
    for (char *line = text ? strtok_r(text, "\n", &save) : NULL; line;
         line = strtok_r(NULL, "\n", &save)) {
        char *bar = strchr(line, '|');
        if (!bar)
            continue;
        *bar = '\0';
        for (unsigned k = 1; k <= j->shards; k++) {
            struct slurm_shard *s = &out[k - 1];
            if ((s->state == SLURM_STOPPED || s->state == SLURM_NOT_RUN) &&
                strcmp(line, s->task) == 0)
                snprintf(s->detail, sizeof s->detail, "%s", bar + 1);
        }
    }
    free(text);
    free(ids);
}

int slurm_job_status(const struct slurm_job *j, struct slurm_shard *out, char *err, size_t errlen)
{
    for (unsigned k = 1; k <= j->shards; k++) {
        struct slurm_shard *s = &out[k - 1];
        *s = (struct slurm_shard){.shard = k};
        /* The task that last ran it: the latest submission that has it. */
        for (int i = j->njobs - 1; i >= 0 && !s->task[0]; i--)
            if (spec_has(j->job_shards[i], k))
                snprintf(s->task, sizeof s->task, "%s_%u", j->jobs[i], k);
        read_state(j, k, s);
        check_results(j, k, s);
        if (s->state == SLURM_NOT_RUN) /* until the queue or accounting says otherwise */
            snprintf(s->detail, sizeof s->detail, "never started, not in the queue");
    }
    if (apply_queue(j, out, err, errlen) != 0) {
        /* A shard with no "finished" line may be waiting or running: calling it not run or
         * stopped would have it run twice, two tasks writing one shard's database. */
        for (unsigned k = 0; k < j->shards; k++) {
            struct slurm_shard *s = &out[k];
            if (s->state != SLURM_NOT_RUN && s->state != SLURM_STOPPED)
                continue;
            char was[sizeof s->detail];
            snprintf(was, sizeof was, "%s", s->detail);
            if (s->state == SLURM_STOPPED)
                snprintf(s->detail, sizeof s->detail, "started %.80s, not finished", was);
            else
                snprintf(s->detail, sizeof s->detail, "not started, as far as its files tell");
            s->state = SLURM_UNKNOWN;
        }
        return 1; /* sacct's word goes to not run and stopped shards only: none are left */
    }
    apply_accounting(j, out);
    return 0;
}

size_t slurm_job_rerun_list(const struct slurm_job *j, const struct slurm_shard *st,
                            unsigned *shards)
{
    size_t n = 0;
    for (unsigned k = 1; k <= j->shards; k++) {
        enum slurm_state s = st[k - 1].state;
        if (s == SLURM_PENDING || s == SLURM_RUNNING || s == SLURM_DONE || s == SLURM_UNKNOWN)
            continue;
        /* What another simulator made, finished or not, must not be resumed from; nor what a
         * collect could not read. */
        bool afresh =
            s == SLURM_LOST || (st[k - 1].simulator && st[k - 1].simulator != CORUN_SIM_ID);
        const char *gone[] = {"state", afresh ? "db" : NULL, afresh ? "db-wal" : NULL,
                              afresh ? "db-shm" : NULL, afresh ? "journal" : NULL};
        for (size_t g = 0; g < CORUN_ARRAY_LEN(gone) && gone[g]; g++) {
            char *path = slurm_shard_path(j, k, gone[g]);
            unlink(path);
            free(path);
        }
        shards[n++] = k;
    }
    return n;
}

/* Merge shard k's files: 0; 1 when they are the shard's fault (unreadable, not a catalog or
 * journal of this run, damaged), -1 when the main catalog or journal failed; err says why. */
static int merge_shard(const struct slurm_job *j, struct catalog *cat, unsigned k,
                       const char *datadir, struct slurm_merged *out, char *err, size_t errlen)
{
    char *db = slurm_shard_path(j, k, "db"), *journal = slurm_shard_path(j, k, "journal");
    int rc = 0;
    if (j->kind == SLURM_REPRODUCE) { /* check_results saw it there */
        struct repro_journal_merged m;
        rc = repro_journal_merge(j->journal, journal, datadir, &m, err, errlen);
        out->added += m.added;
        out->present += m.present;
        /* Its messages begin with the file at fault. */
        size_t n = strlen(journal);
        if (rc != 0 && strncmp(err, journal, n) == 0 && err[n] == ':')
            rc = 1;
        else if (rc == 0 && m.dropped) { /* a task that finished wrote whole records */
            snprintf(err, errlen, "%s: %zu bytes of damaged records at its end", journal,
                     m.dropped);
            rc = 1;
        } else if (rc == 0 && m.damaged) {
            snprintf(err, errlen, "%s: %zu damaged record%s in its middle", journal, m.damaged,
                     m.damaged == 1 ? "" : "s");
            rc = 1;
        }
    }
    /* A sweep's catalog is there (check_results); a reproduction's, a cache, may not be. */
    if (rc == 0 && (j->kind == SLURM_SWEEP || access(db, F_OK) == 0)) {
        struct catalog_merged m;
        rc = catalog_merge(cat, db, &m, err, errlen);
        if (rc != 0 && m.source_bad)
            rc = 1;
        if (j->kind == SLURM_SWEEP) {
            out->added += m.added;
            out->present += m.present;
        }
    }
    free(db);
    free(journal);
    return rc;
}

/* Shard k's results could not be merged (err): it is lost, as its state file now says. */
static void lose_shard(const struct slurm_job *j, unsigned k, struct slurm_shard *s,
                       const char *err)
{
    fprintf(stderr, "corun: shard %u: %s; `corun slurm resubmit %s` runs it again\n", k, err,
            j->dir);
    s->state = SLURM_LOST;
    snprintf(s->detail, sizeof s->detail, "finished, but collect could not merge its results");
    char *path = slurm_shard_path(j, k, "state");
    FILE *f = fopen(path, "a");
    bool written = f && fprintf(f, "lost %s\n", s->detail) > 0;
    if ((f && fclose(f) != 0) || !written)
        fprintf(stderr, "corun: cannot note in %s that shard %u is lost: %s\n", path, k,
                strerror(errno));
    free(path);
}

int slurm_job_merge(const struct slurm_job *j, struct slurm_shard *st, const char *datadir,
                    struct slurm_merged *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    struct catalog *cat = catalog_open(j->catalog, err, errlen);
    if (!cat)
        return -1;
    int rc = 0;
    for (unsigned k = 1; k <= j->shards && rc >= 0; k++) {
        struct slurm_shard *s = &st[k - 1];
        if (s->state == SLURM_OTHER_SIM)
            fprintf(stderr,
                    "corun: shard %u refused: it was run by a corun of simulator %u, this one is "
                    "simulator %u (%s/shard-%u.state); `corun slurm resubmit` runs it again\n",
                    k, s->simulator, (unsigned)CORUN_SIM_ID, j->dir, k);
        if (s->state != SLURM_DONE) {
            rc = 1;
            continue;
        }
        int merged = merge_shard(j, cat, k, datadir, out, err, errlen);
        if (merged > 0) {
            lose_shard(j, k, s, err);
            rc = 1;
        } else if (merged < 0) {
            rc = -1;
        } else {
            out->shards++;
        }
    }
    catalog_close(cat);
    return rc;
}
