/* Unit tests for a Slurm job directory: its manifest, submission through a stand-in sbatch,
 * shard states from their files and the queue (squeue failing too), what to run again, and
 * refusing another simulator's shard. Each test works in its own mkdtemp directory, with PATH
 * and XDG_DATA_HOME pointing into it (slurm_fixture.h). */
#include "slurm_fixture.h"

#include <dirent.h>

/* ---- a job ---- */

static struct slurm_job *make_job(struct fixture *f, enum slurm_kind kind, unsigned shards)
{
    char err[512];
    char *dir = xasprintf("%s/job", f->dir);
    struct slurm_options o = {.shards = shards,
                              .partition = "fast",
                              .time = "1:00:00",
                              .cpus_per_task = 2,
                              .sbatch_args = {"--mem=1G"},
                              .nsbatch_args = 1,
                              .dir = dir};
    char *argv[] = {"reproduce", "smqos", "--quick", "--epochs", "1"};
    struct slurm_job *j =
        slurm_job_create(&o, kind, 5, argv, NULL, NULL, "/opt/it's/corun", err, sizeof err);
    assert_non_null(j);
    free(dir);
    return j;
}

static void test_job_manifest_round_trip(void **state)
{
    struct fixture *f = *state;
    char err[512];
    struct slurm_job *j = make_job(f, SLURM_REPRODUCE, 4);
    char *dir = xasprintf("%s/job", f->dir);
    struct slurm_job *l = slurm_job_load(dir, err, sizeof err);
    assert_non_null(l);
    assert_int_equal(l->kind, SLURM_REPRODUCE);
    assert_int_equal(l->shards, 4);
    assert_int_equal(l->simulator, CORUN_SIM_ID);
    assert_int_equal(l->argc, 5);
    assert_string_equal(l->argv[1], "smqos");
    assert_int_equal(l->nsbatch, 4);
    assert_string_equal(l->sbatch[0], "--partition=fast");
    assert_string_equal(l->sbatch[3], "--mem=1G");
    char *journal = xasprintf("%s/results.journal", j->dir);
    assert_string_equal(l->journal, journal);
    assert_null(l->catalog);
    /* The script runs this corun, its path quoted for sh. */
    char *script_path = xasprintf("%s/task.sh", dir);
    char *script = read_text(script_path);
    assert_non_null(strstr(script, "exec '/opt/it'\\''s/corun' slurm task '"));
    /* A directory holding a job is not reused. */
    struct slurm_options o = {.shards = 2, .dir = dir};
    char *argv[] = {"sweep", "x.cfg"};
    assert_null(slurm_job_create(&o, SLURM_SWEEP, 2, argv, NULL, NULL, "corun", err, sizeof err));
    assert_non_null(strstr(err, "holds a job already"));
    /* A damaged manifest names its line. */
    char *manifest = xasprintf("%s/job", dir);
    write_text(manifest, "corun slurm job 1\nkind reproduce\nbogus\n", 0644);
    assert_null(slurm_job_load(dir, err, sizeof err));
    assert_non_null(strstr(err, "job:3: expected a manifest line"));
    /* Complete manifests at the edges load: one shard, the most shards, a reproduce run with
     * its journal. Incomplete ones are refused: empty, the first line alone, no shards, too many,
     * no cwd, no command, a reproduce run without its journal. */
    assert_int_equal(SLURM_MAX_SHARDS, 1000); /* the edge below */
    static const struct {
        const char *text;
        bool loads;
    } manifests[] = {
        {"corun slurm job 1\nkind sweep\nshards 1\ncwd /\narg sweep\n", true},
        {"corun slurm job 1\nkind sweep\nshards 1000\ncwd /\narg sweep\n", true},
        {"corun slurm job 1\nkind reproduce\nshards 2\ncwd /\narg reproduce\njournal /j\n", true},
        {"", false},
        {"corun slurm job 1\n", false},
        {"corun slurm job 1\nkind sweep\nshards 0\ncwd /\narg sweep\n", false},
        {"corun slurm job 1\nkind sweep\nshards 1001\ncwd /\narg sweep\n", false},
        {"corun slurm job 1\nkind sweep\nshards 2\narg sweep\n", false},
        {"corun slurm job 1\nkind sweep\nshards 2\ncwd /\n", false},
        {"corun slurm job 1\nkind reproduce\nshards 2\ncwd /\narg reproduce\n", false},
    };
    for (size_t i = 0; i < sizeof manifests / sizeof manifests[0]; i++) {
        write_text(manifest, manifests[i].text, 0644);
        struct slurm_job *m = slurm_job_load(dir, err, sizeof err);
        if ((m != NULL) != manifests[i].loads)
            fail_msg("manifest %zu: %s", i, m ? "loaded" : err);
        if (!m)
            assert_non_null(strstr(err, "the manifest is incomplete"));
        slurm_job_delete(m);
    }
    assert_null(slurm_job_load("12345", err, sizeof err));
    assert_non_null(strstr(err, "no job '12345'"));
    free(manifest);
    free(script);
    free(script_path);
    free(journal);
    free(dir);
    slurm_job_delete(l);
    slurm_job_delete(j);
}

static void test_submit_passes_options_to_sbatch(void **state)
{
    struct fixture *f = *state;
    char err[512], id[64];
    char *args_file = xasprintf("%s/sbatch.args", f->dir);
    char *fake = xasprintf("%s/bin/sbatch", f->dir);
    char *script = xasprintf("#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done >'%s'\necho "
                             "'4242;cluster'\n",
                             args_file);
    write_text(fake, script, 0755);
    struct slurm_job *j = make_job(f, SLURM_REPRODUCE, 4);
    char path[128];
    snprintf(path, sizeof path, "%s/bin:/usr/bin:/bin", f->dir);
    setenv("PATH", path, 1);
    unsigned all[] = {1, 2, 3, 4};
    assert_int_equal(slurm_job_submit(j, all, 4, id, sizeof id, err, sizeof err), 0);
    assert_string_equal(id, "4242");
    char *args = read_text(args_file);
    assert_non_null(strstr(args, "--parsable\n--array=1-4\n"));
    assert_non_null(
        strstr(args, "\n--partition=fast\n--time=1:00:00\n--cpus-per-task=2\n--mem=1G\n"));
    unsigned some[] = {2, 4};
    free(script); /* the second submission gets another job id */
    script = xasprintf("#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done >'%s'\necho "
                       "'4343;cluster'\n",
                       args_file);
    write_text(fake, script, 0755);
    assert_int_equal(slurm_job_submit(j, some, 2, id, sizeof id, err, sizeof err), 0);
    assert_string_equal(id, "4343");
    free(args);
    args = read_text(args_file);
    assert_non_null(strstr(args, "--array=2,4\n"));
    /* The index finds the job by its id; the manifest has both submissions. */
    struct slurm_job *l = slurm_job_load("4242", err, sizeof err);
    assert_non_null(l);
    assert_int_equal(l->njobs, 2);
    assert_string_equal(l->job_shards[0], "1-4");
    assert_string_equal(l->job_shards[1], "2,4");
    /* Each shard's task is the latest submission's that has it: 1 and 3 the first's (a range),
     * 2 and 4 the second's (a list). */
    char *squeue = xasprintf("%s/bin/squeue", f->dir), *sacct = xasprintf("%s/bin/sacct", f->dir);
    write_text(squeue, "#!/bin/sh\n", 0755); /* an empty queue */
    struct slurm_shard st[4];
    assert_int_equal(slurm_job_status(l, st, err, sizeof err), 0);
    static const char *const task[] = {"4242_1", "4343_2", "4242_3", "4343_4"};
    for (unsigned k = 0; k < 4; k++)
        assert_string_equal(st[k].task, task[k]);
    /* squeue and sacct stand-ins: a queue line counts for the shard whose task it names (not
     * 4242_2, which the second submission took over; not shards 0 or 5; not a line of two
     * words); sacct says how a task that left no "finished" line ended. */
    write_text(squeue,
               "#!/bin/sh\nprintf '4242 1 PENDING\\n4242 2 RUNNING\\n4343 2 RUNNING\\n"
               "4343 0 RUNNING\\n4343 5 RUNNING\\n4343 4\\n'\n",
               0755);
    write_text(sacct,
               "#!/bin/sh\nprintf '4242_1|PENDING\\n4242_3|TIMEOUT\\n4343_4|CANCELLED by "
               "0\\n'\n",
               0755);
    /* Task 4242_3 starts as Slurm runs it, then its time runs out. */
    setenv("SLURM_ARRAY_JOB_ID", "4242", 1);
    assert_int_equal(slurm_task_begin(l, 3, err, sizeof err), 0);
    unsetenv("SLURM_ARRAY_JOB_ID");
    assert_int_equal(slurm_job_status(l, st, err, sizeof err), 0);
    static const enum slurm_state states[] = {SLURM_PENDING, SLURM_RUNNING, SLURM_STOPPED,
                                              SLURM_NOT_RUN};
    static const char *const detail[] = {"PENDING", "RUNNING", "TIMEOUT", "CANCELLED by 0"};
    for (unsigned k = 0; k < 4; k++) {
        assert_int_equal(st[k].state, states[k]);
        assert_string_equal(st[k].detail, detail[k]);
    }
    free(squeue);
    free(sacct);
    slurm_job_delete(l);
    /* sbatch failing is a message, not a job. */
    write_text(fake, "#!/bin/sh\necho 'sbatch: error: invalid partition' >&2\nexit 1\n", 0755);
    assert_int_equal(slurm_job_submit(j, some, 2, id, sizeof id, err, sizeof err), -1);
    assert_non_null(strstr(err, "sbatch failed (exit status 1"));
    free(args);
    free(script);
    free(fake);
    free(args_file);
    slurm_job_delete(j);
}

/* A job whose first submission failed leaves nothing: a directory corun made is removed, one
 * the user named is emptied of the job's files (and kept), so the same command can be rerun. */
static void test_discard_unsubmitted(void **state)
{
    struct fixture *f = *state;
    char err[512];
    char *argv[] = {"sweep", "tiny.cfg"};
    struct slurm_options o = {.shards = 2};
    struct slurm_job *j =
        slurm_job_create(&o, SLURM_SWEEP, 2, argv, NULL, NULL, "/bin/corun", err, sizeof err);
    assert_non_null(j);
    char *made = xstrdup(j->dir), *root = slurm_jobs_root();
    assert_int_equal(strncmp(made, root, strlen(root)), 0);
    char *manifest = xasprintf("%s/job", made);
    assert_int_equal(access(manifest, F_OK), 0);
    slurm_job_discard(j, true);
    struct stat st;
    assert_int_equal(stat(made, &st), -1);
    free(manifest);
    free(made);
    free(root);

    char *dir = xasprintf("%s/mine", f->dir), *other = xasprintf("%s/mine/notes", f->dir);
    mkdir(dir, 0777);
    write_text(other, "the user's\n", 0644);
    o.dir = dir;
    j = slurm_job_create(&o, SLURM_SWEEP, 2, argv, NULL, NULL, "/bin/corun", err, sizeof err);
    assert_non_null(j);
    slurm_job_discard(j, false);
    manifest = xasprintf("%s/job", dir);
    char *script = xasprintf("%s/task.sh", dir);
    assert_int_equal(access(manifest, F_OK), -1);
    assert_int_equal(access(script, F_OK), -1);
    assert_int_equal(access(other, F_OK), 0);
    /* Not "holds a job already": the directory takes the job again. */
    j = slurm_job_create(&o, SLURM_SWEEP, 2, argv, NULL, NULL, "/bin/corun", err, sizeof err);
    assert_non_null(j);
    slurm_job_delete(j);
    free(script);
    free(manifest);
    free(other);
    free(dir);
}

/* The job's files are written through temporary files of their own: a user's PATH.tmp in the
 * job's directory (job.tmp, task.sh.tmp, shard-0.state.tmp) is left as it was, not written
 * over and renamed away, and a write that fails (a directory where the shard's state goes)
 * leaves no temporary file behind. (A directory holding a shard-K.* name is refused at
 * submission: shard-0.state.tmp appears after it, as a file made while the job runs.) */
static void test_writes_leave_the_users_tmp_files(void **state)
{
    struct fixture *f = *state;
    char err[512];
    char *dir = xasprintf("%s/mine", f->dir);
    mkdir(dir, 0777);
    static const char *const names[] = {"job.tmp", "task.sh.tmp", "shard-0.state.tmp"};
    for (size_t i = 0; i < 2; i++) {
        char *p = xasprintf("%s/%s", dir, names[i]);
        write_text(p, "the user's\n", 0644);
        free(p);
    }
    char *argv[] = {"sweep", "tiny.cfg"};
    struct slurm_options o = {.shards = 2, .dir = dir};
    struct slurm_job *j =
        slurm_job_create(&o, SLURM_SWEEP, 2, argv, NULL, NULL, "/bin/corun", err, sizeof err);
    if (!j)
        fail_msg("%s", err);
    char *user_state = xasprintf("%s/%s", dir, names[2]);
    write_text(user_state, "the user's\n", 0644);
    free(user_state);
    if (slurm_task_begin(j, 0, err, sizeof err) != 0)
        fail_msg("%s", err);
    char *state0 = slurm_shard_path(j, 0, "state"), *state1 = slurm_shard_path(j, 1, "state");
    char *text = read_text(state0);
    assert_non_null(strstr(text, "\nstarted "));
    free(text);
    mkdir(state1, 0777);
    assert_int_equal(slurm_task_begin(j, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot write"));
    assert_non_null(strstr(err, state1));
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *p = xasprintf("%s/%s", dir, names[i]);
        text = read_text(p);
        if (strcmp(text, "the user's\n") != 0)
            fail_msg("%s holds \"%s\"", p, text);
        free(text);
        free(p);
    }
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));)
        if (strstr(e->d_name, ".tmp-"))
            fail_msg("%s/%s was left behind", dir, e->d_name);
    closedir(d);
    slurm_job_delete(j);
    free(state1);
    free(state0);
    free(dir);
}

static void test_states_reruns_and_another_simulator(void **state)
{
    struct fixture *f = *state;
    char err[512];
    struct slurm_job *j = make_job(f, SLURM_SWEEP, 5);
    free(j->catalog);
    j->catalog = xasprintf("%s/main.db", f->dir);
    assert_int_equal(slurm_task_begin(j, 1, err, sizeof err), 0); /* then killed */
    assert_int_equal(slurm_task_begin(j, 2, err, sizeof err), 0);
    assert_int_equal(slurm_task_end(j, 2, 0, err, sizeof err), 0);
    assert_int_equal(slurm_task_end(j, 3, 1, err, sizeof err), 0);
    assert_int_equal(slurm_task_end(j, 4, 0, err, sizeof err), 0);
    char *state4 = slurm_shard_path(j, 4, "state");
    write_text(state4, "simulator 7\nhost h\ntask 1_4\nfinished 0\n", 0644);
    /* Shard 5 was started by another simulator's corun and killed. */
    char *state5 = slurm_shard_path(j, 5, "state"), *journal5 = slurm_shard_path(j, 5, "journal");
    write_text(state5, "simulator 7\nhost h\ntask 1_5\nstarted 2026-01-01T00:00:00Z\n", 0644);
    write_text(journal5, "corun reproduce journal 1\n", 0644);
    char *db2 = slurm_shard_path(j, 2, "db"), *db4 = slurm_shard_path(j, 4, "db");
    struct catalog *c = catalog_open(db2, err, sizeof err);
    put_result(c, "a+b", 1.5);
    catalog_close(c);
    c = catalog_open(db4, err, sizeof err);
    put_result(c, "c+d", 1.5);
    catalog_close(c);

    char *squeue = xasprintf("%s/bin/squeue", f->dir);
    write_text(squeue, "#!/bin/sh\n", 0755); /* an empty queue: the files tell */
    struct slurm_shard st[5];
    assert_int_equal(slurm_job_status(j, st, err, sizeof err), 0);
    assert_int_equal(st[0].state, SLURM_STOPPED);
    assert_int_equal(st[1].state, SLURM_DONE);
    for (unsigned k = 0; k < 2; k++) /* the host; an exit status only where one was written */
        assert_true(strncmp(st[k].detail, "on ", 3) == 0);
    assert_int_equal(st[2].state, SLURM_FAILED);
    assert_non_null(strstr(st[2].detail, "exit status 1"));
    assert_int_equal(st[3].state, SLURM_OTHER_SIM);
    assert_int_equal(st[4].state, SLURM_STOPPED);
    /* squeue failing: the shards that have not finished may be queued, so they are unknown. */
    write_text(squeue, "#!/bin/sh\necho 'slurm_load_jobs error: Socket timed out' >&2\nexit 1\n",
               0755);
    struct slurm_shard blind[5];
    assert_int_equal(slurm_job_status(j, blind, err, sizeof err), 1);
    assert_string_equal(err,
                        "squeue failed (exit status 1: slurm_load_jobs error: Socket timed out)");
    static const enum slurm_state seen[] = {SLURM_UNKNOWN, SLURM_DONE, SLURM_FAILED,
                                            SLURM_OTHER_SIM, SLURM_UNKNOWN};
    for (unsigned k = 0; k < 5; k++)
        assert_int_equal(blind[k].state, seen[k]);
    free(squeue);

    /* Merging takes shard 2 and refuses shard 4; twice changes nothing. */
    struct slurm_merged m;
    for (int round = 0; round < 2; round++) {
        assert_int_equal(slurm_job_merge(j, st, getenv("CORUN_DATADIR"), &m, err, sizeof err), 1);
        assert_int_equal(m.shards, 1);
        assert_int_equal(m.added, round == 0 ? 1 : 0);
    }
    c = catalog_open(j->catalog, err, sizeof err);
    assert_int_equal(rows(c), 1);
    catalog_close(c);

    /* Shard 1 unknown (as squeue failing leaves it): never taken, its state file kept. */
    unsigned again[5];
    st[0].state = SLURM_UNKNOWN;
    char *state1 = slurm_shard_path(j, 1, "state");
    assert_int_equal(slurm_job_rerun_list(j, st, again), 3);
    assert_int_equal(access(state1, F_OK), 0);
    st[0].state = SLURM_STOPPED;
    assert_int_equal(slurm_job_rerun_list(j, st, again), 4);
    assert_int_equal(access(state1, F_OK), -1);
    free(state1);
    assert_int_equal(again[0], 1);
    assert_int_equal(again[1], 3);
    assert_int_equal(again[2], 4);
    assert_int_equal(again[3], 5);
    assert_int_equal(access(db4, F_OK), -1); /* another simulator's results are gone */
    assert_int_equal(access(state4, F_OK), -1);
    assert_int_equal(access(db2, F_OK), 0);
    assert_int_equal(access(journal5, F_OK), -1);
    assert_int_equal(access(state5, F_OK), -1);
    free(journal5);
    free(state5);
    free(db2);
    free(db4);
    free(state4);
    slurm_job_delete(j);
}

/* A reproduction's shard that finished without a journal it can be merged from (missing, not a
 * journal, cut short) is lost, not merged as if empty: collect would then simulate its mixes
 * here. Status says so at once where the file is missing, a merge where it is bad; resubmit
 * takes them and starts them afresh. */
static void test_lost_shards_of_a_reproduction(void **state)
{
    struct fixture *f = *state;
    const char *datadir = getenv("CORUN_DATADIR");
    assert_non_null(datadir);
    char err[512];
    struct slurm_job *j = make_job(f, SLURM_REPRODUCE, 5);
    char *journal[6];
    uint64_t r = 7;
    for (unsigned k = 1; k <= 5; k++) {
        assert_int_equal(slurm_task_end(j, k, 0, err, sizeof err), 0);
        journal[k] = slurm_shard_path(j, k, "journal");
    }
    for (unsigned k = 1; k <= 5; k++) {
        if (k == 2 || k == 3)
            continue;
        struct repro_journal *rj =
            repro_journal_open_run(journal[k], datadir, "reproduce x", sizeof r, err, sizeof err);
        assert_non_null(rj);
        assert_int_equal(repro_journal_put(rj, 0, k, &r, err, sizeof err), 0);
        if (k == 5) /* a second record, after the one damaged below */
            assert_int_equal(repro_journal_put(rj, 0, 9, &r, err, sizeof err), 0);
        repro_journal_close(rj);
    }
    /* Shard 5: a flipped byte in its first record's result, an intact one after it (a merge
     * skips the one, and the shard is lost all the same: a finished task wrote both whole). */
    FILE *bad = fopen(journal[5], "r+b");
    assert_non_null(bad);
    long at = -2 * (long)(16 + sizeof r + 8) + 16; /* two records of head, result, sum */
    assert_int_equal(fseek(bad, at, SEEK_END), 0);
    int c = fgetc(bad);
    assert_int_equal(fseek(bad, at, SEEK_END), 0);
    fputc(c ^ 1, bad);
    fclose(bad);
    write_text(journal[3], "some notes\n", 0644);
    FILE *torn = fopen(journal[4], "ab");
    assert_non_null(torn);
    fputs("REC", torn);
    fclose(torn);
    char *squeue = xasprintf("%s/bin/squeue", f->dir);
    write_text(squeue, "#!/bin/sh\n", 0755);
    struct slurm_shard st[5];
    assert_int_equal(slurm_job_status(j, st, err, sizeof err), 0);
    static const enum slurm_state before[] = {SLURM_DONE, SLURM_LOST, SLURM_DONE, SLURM_DONE,
                                              SLURM_DONE};
    for (unsigned k = 0; k < 5; k++)
        assert_int_equal(st[k].state, before[k]);
    assert_string_equal(st[1].detail, "finished, but shard-2.journal is missing");

    struct slurm_merged m;
    assert_int_equal(slurm_job_merge(j, st, datadir, &m, err, sizeof err), 1);
    assert_int_equal(m.shards, 1);
    for (unsigned k = 1; k < 5; k++)
        assert_int_equal(st[k].state, SLURM_LOST);
    /* The state files say so: a later status, and resubmit, see them lost. */
    struct slurm_shard again[5];
    assert_int_equal(slurm_job_status(j, again, err, sizeof err), 0);
    for (unsigned k = 0; k < 5; k++)
        assert_int_equal(again[k].state, k == 0 ? SLURM_DONE : SLURM_LOST);
    assert_string_equal(again[2].detail, "finished, but collect could not merge its results");
    unsigned rerun[5];
    assert_int_equal(slurm_job_rerun_list(j, again, rerun), 4);
    for (unsigned k = 2; k <= 5; k++) { /* afresh: the bad journals are gone */
        assert_int_equal(rerun[k - 2], k);
        assert_int_equal(access(journal[k], F_OK), -1);
    }
    assert_int_equal(access(journal[1], F_OK), 0);
    free(squeue);
    for (unsigned k = 1; k <= 5; k++)
        free(journal[k]);
    slurm_job_delete(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_job_manifest_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_submit_passes_options_to_sbatch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_discard_unsubmitted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_writes_leave_the_users_tmp_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_states_reruns_and_another_simulator, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lost_shards_of_a_reproduction, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
