/* Unit tests for running on a Slurm cluster: spawn_capture, repro_shard_select, merging
 * catalogs and journals, and --wait's delays (a job directory's tests are test_slurm_job.c).
 * Each test works in its own mkdtemp directory, with PATH and XDG_DATA_HOME pointing into it
 * (slurm_fixture.h). */
#include "slurm_fixture.h"

static void test_spawn_captures_output_and_status(void **state)
{
    (void)state;
    setenv("PATH", "/usr/bin:/bin", 1);
    char *out = NULL, err[256];
    int status = -1;
    char *argv[] = {"sh", "-c", "echo out; echo noise >&2; exit 3", NULL};
    assert_int_equal(spawn_capture(argv, true, &out, &status, err, sizeof err), 0);
    assert_string_equal(out, "out\n");
    assert_int_equal(status, 3);
    free(out);
    char *missing[] = {"corun-no-such-program", NULL};
    assert_int_equal(spawn_capture(missing, false, &out, &status, err, sizeof err), -1);
    assert_non_null(strstr(err, "corun-no-such-program"));
    assert_non_null(strstr(err, "in PATH"));
    /* The reason: stderr's first line that says something, not ours to see. */
    char reason[64];
    char *why[] = {"sh", "-c", "echo out; printf '\\n  timed out\\nmore\\n' >&2; exit 1", NULL};
    assert_int_equal(
        spawn_capture_reason(why, &out, &status, reason, sizeof reason, err, sizeof err), 0);
    assert_string_equal(out, "out\n");
    assert_int_equal(status, 1);
    assert_string_equal(reason, "timed out");
    free(out);
}

/* Output larger than the first buffer comes back whole (squeue on a busy cluster prints pages),
 * and a child killed by a signal reads as a shell reports it, 128 + the signal. */
static void test_spawn_long_output_and_signals(void **state)
{
    (void)state;
    setenv("PATH", "/usr/bin:/bin", 1);
    char *out = NULL, err[256];
    int status = -1;
    char *argv[] = {"sh", "-c",
                    "i=0; while [ $i -lt 5000 ]; do echo 0123456789abcdef; i=$((i+1)); done", NULL};
    assert_int_equal(spawn_capture(argv, true, &out, &status, err, sizeof err), 0);
    assert_int_equal(status, 0);
    assert_int_equal(strlen(out), 5000 * 17);
    for (size_t i = 0; i < 5000; i++)
        assert_memory_equal(out + 17 * i, "0123456789abcdef\n", 17);
    free(out);
    char *killed[] = {"sh", "-c", "echo partial; kill -TERM $$", NULL};
    assert_int_equal(spawn_capture(killed, true, &out, &status, err, sizeof err), 0);
    assert_int_equal(status, 128 + 15);
    assert_string_equal(out, "partial\n");
    free(out);
}

/* ---- shards ---- */

static void test_shards_split_the_mixes_once(void **state)
{
    (void)state;
    size_t seen[10] = {0};
    for (unsigned k = 1; k <= 3; k++) {
        size_t chosen[10];
        for (size_t i = 0; i < 10; i++)
            chosen[i] = 100 + i;
        size_t n = repro_shard_select(chosen, 10, k, 3);
        assert_int_equal(n, k == 1 ? 4 : 3);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal((chosen[i] - 100) % 3, k - 1);
            seen[chosen[i] - 100]++;
        }
    }
    for (size_t i = 0; i < 10; i++)
        assert_int_equal(seen[i], 1);
    size_t all[3] = {7, 8, 9};
    assert_int_equal(repro_shard_select(all, 3, 0, 0), 3);
    assert_int_equal(repro_shard_select(all, 3, 1, 1), 3);
}

/* ---- catalog merge ---- */

static void test_catalog_merge_is_idempotent_and_checked(void **state)
{
    struct fixture *f = *state;
    char err[512];
    char *main_path = xasprintf("%s/main.db", f->dir), *shard = xasprintf("%s/shard.db", f->dir);
    struct catalog *s = catalog_open(shard, err, sizeof err);
    assert_non_null(s);
    put_result(s, "a+b", 1.5);
    put_result(s, "c+d", 1.25);
    double run[2] = {0.5, 0.75}, back[2] = {0};
    assert_int_equal(catalog_put_result(s, "a finished run", run, sizeof run, err, sizeof err), 0);
    catalog_close(s);
    struct catalog *m = catalog_open(main_path, err, sizeof err);
    assert_non_null(m);
    put_result(m, "a+b", 1.5);
    struct catalog_merged got;
    assert_int_equal(catalog_merge(m, shard, &got, err, sizeof err), 0);
    assert_int_equal(got.added, 1);
    assert_int_equal(got.present, 1);
    assert_int_equal(rows(m), 2);
    /* The shard's finished reproduce run comes along, once. */
    assert_int_equal(got.runs, 1);
    bool found = false;
    assert_int_equal(
        catalog_get_result(m, "a finished run", back, sizeof back, &found, err, sizeof err), 0);
    assert_true(found && back[0] == 0.5 && back[1] == 0.75);
    assert_int_equal(catalog_merge(m, shard, &got, err, sizeof err), 0);
    assert_int_equal(got.added, 0);
    assert_int_equal(got.present, 2);
    assert_int_equal(got.runs, 0);
    assert_int_equal(rows(m), 2);
    catalog_close(m);

    /* A catalog whose result for a key differs is refused, and nothing is merged. */
    char *other = xasprintf("%s/other.db", f->dir);
    struct catalog *o = catalog_open(other, err, sizeof err);
    put_result(o, "a+b", 1.75);
    put_result(o, "e+f", 1.0);
    catalog_close(o);
    m = catalog_open(main_path, err, sizeof err);
    assert_int_equal(catalog_merge(m, other, &got, err, sizeof err), -1);
    assert_non_null(strstr(err, "differ"));
    assert_non_null(strstr(err, "tiny a+b none:static seed 1"));
    assert_int_equal(rows(m), 2);

    /* A shard that never finished a reproduce run has no table of them: none come. */
    char *plain = xasprintf("%s/plain.db", f->dir);
    o = catalog_open(plain, err, sizeof err);
    assert_non_null(o);
    put_result(o, "g+h", 1.0);
    catalog_close(o);
    assert_int_equal(catalog_merge(m, plain, &got, err, sizeof err), 0);
    assert_int_equal(got.added, 1);
    assert_int_equal(got.present, 0);
    assert_int_equal(got.runs, 0);
    assert_int_equal(rows(m), 3);
    free(plain);

    /* Not a catalog. */
    char *text = xasprintf("%s/text.db", f->dir);
    write_text(text, "", 0644);
    assert_int_equal(catalog_merge(m, text, &got, err, sizeof err), -1);
    assert_non_null(strstr(err, "text.db into "));
    assert_non_null(strstr(err, ": an empty file (0 bytes); expected a catalog"));
    /* Not a database at all: the message names that file, not the catalog merged into (it
     * named the latter, as if the user's own catalog were broken). */
    write_text(text, "no database here\n", 0644);
    assert_int_equal(catalog_merge(m, text, &got, err, sizeof err), -1);
    char *want = xasprintf("%s is not a corun catalog (not an SQLite database)", text);
    assert_string_equal(err, want);
    free(want);
    char *missing = xasprintf("%s/missing.db", f->dir);
    assert_int_equal(catalog_merge(m, missing, &got, err, sizeof err), -1);
    assert_non_null(strstr(err, "missing.db into "));
    assert_non_null(strstr(err, ": No such file or directory; expected a catalog"));
    catalog_close(m);
    free(missing);
    free(text);
    free(other);
    free(shard);
    free(main_path);
}

/* ---- journal merge ---- */

static void test_journal_merge_is_idempotent_and_checked(void **state)
{
    struct fixture *f = *state;
    const char *datadir = getenv("CORUN_DATADIR");
    assert_non_null(datadir);
    char err[512];
    char *main_path = xasprintf("%s/main.journal", f->dir);
    char *shard = xasprintf("%s/shard.journal", f->dir);
    uint64_t r1 = 11, r2 = 22;
    struct repro_journal *j =
        repro_journal_open_run(shard, datadir, "reproduce x", sizeof r1, err, sizeof err);
    assert_non_null(j);
    assert_int_equal(repro_journal_put(j, 0, 3, &r1, err, sizeof err), 0);
    assert_int_equal(repro_journal_put(j, 1, 5, &r2, err, sizeof err), 0);
    repro_journal_close(j);
    j = repro_journal_open_run(main_path, datadir, "reproduce x", sizeof r1, err, sizeof err);
    assert_int_equal(repro_journal_put(j, 0, 3, &r2, err, sizeof err), 0);
    repro_journal_close(j);

    struct repro_journal_merged got;
    assert_int_equal(repro_journal_merge(main_path, shard, datadir, &got, err, sizeof err), 0);
    assert_int_equal(got.added, 1);
    assert_int_equal(got.present, 1);
    assert_int_equal(repro_journal_merge(main_path, shard, datadir, &got, err, sizeof err), 0);
    assert_int_equal(got.added, 0);
    assert_int_equal(got.present, 2);
    assert_int_equal(got.dropped, 0);
    FILE *torn = fopen(shard, "ab"); /* a record cut short, as a killed task leaves it */
    assert_non_null(torn);
    fputs("REC", torn);
    fclose(torn);
    assert_int_equal(repro_journal_merge(main_path, shard, datadir, &got, err, sizeof err), 0);
    assert_int_equal(got.dropped, 3);
    assert_int_equal(got.added + got.present, 2);
    j = repro_journal_open_run(main_path, datadir, "reproduce x", sizeof r1, err, sizeof err);
    assert_int_equal(repro_journal_count(j), 2);
    assert_memory_equal(repro_journal_get(j, 0, 3), &r2, sizeof r2); /* the main's kept */
    assert_memory_equal(repro_journal_get(j, 1, 5), &r2, sizeof r2);
    repro_journal_close(j);

    /* Another build's shard is refused, and so is a shard of another run. */
    char *foreign = xasprintf("%s/foreign.journal", f->dir);
    j = repro_journal_open(foreign, "reproduce x; corun build 0123456789abcdef, data 0", sizeof r1,
                           err, sizeof err);
    repro_journal_close(j);
    assert_int_equal(repro_journal_merge(main_path, foreign, datadir, &got, err, sizeof err), -1);
    assert_non_null(strstr(err, "another build of corun"));
    char *run_y = xasprintf("%s/y.journal", f->dir);
    j = repro_journal_open_run(run_y, datadir, "reproduce y", sizeof r1, err, sizeof err);
    repro_journal_close(j);
    assert_int_equal(repro_journal_merge(main_path, run_y, datadir, &got, err, sizeof err), -1);
    /* The file merged in is the odd one: named, not the target (with advice to remove it). */
    char *want = xasprintf("%s: written for another run than %s (it holds: reproduce y; %s holds: "
                           "reproduce x)",
                           run_y, main_path, main_path);
    if (!strstr(err, want))
        fail_msg("got \"%s\", expected \"%s\"", err, want);
    free(want);
    free(run_y);
    free(foreign);
    free(shard);
    free(main_path);
}

/* --wait looks at the queue soon after a change (a short job is collected within a second of
 * its end), then less and less often, never more than 5 s apart. */
static void test_wait_delays(void **state)
{
    (void)state;
    const unsigned want[] = {250, 500, 1000, 2000, 4000, 5000, 5000};
    for (unsigned i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_int_equal(slurm_wait_delay_ms(i), want[i]);
    assert_int_equal(slurm_wait_delay_ms(1000), 5000);
    assert_int_equal(slurm_wait_delay_ms(UINT_MAX), 5000);
    /* CORUN_SLURM_POLL_MS moves the first delay, the longest 20 times it; a value out of 1 to
     * 60000, or not a number, leaves the defaults. */
    setenv("CORUN_SLURM_POLL_MS", "10", 1);
    const unsigned fast[] = {10, 20, 40, 80, 160, 200, 200};
    for (unsigned i = 0; i < sizeof fast / sizeof fast[0]; i++)
        assert_int_equal(slurm_wait_delay_ms(i), fast[i]);
    const char *const bad[] = {"0", "60001", "10ms", "", "-5"};
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv("CORUN_SLURM_POLL_MS", bad[i], 1);
        /* ... and says so, once, at the first look (it was ignored, unsaid). */
        fflush(stderr);
        FILE *err = tmpfile();
        assert_non_null(err);
        int saved = dup(2);
        assert_true(saved >= 0 && dup2(fileno(err), 2) == 2);
        unsigned first = slurm_wait_delay_ms(0), later = slurm_wait_delay_ms(9);
        fflush(stderr);
        assert_int_equal(dup2(saved, 2), 2);
        close(saved);
        char said[256] = "";
        rewind(err);
        said[fread(said, 1, sizeof said - 1, err)] = '\0';
        fclose(err);
        assert_int_equal(first, 250);
        assert_int_equal(later, 5000);
        assert_non_null(strstr(said, "CORUN_SLURM_POLL_MS="));
        assert_non_null(strstr(said, "expected a whole number of milliseconds from 1 to 60000"));
        assert_null(strchr(strchr(said, '\n') + 1, '\n')); /* one line */
    }
    unsetenv("CORUN_SLURM_POLL_MS");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_spawn_captures_output_and_status, setup, teardown),
        cmocka_unit_test_setup_teardown(test_spawn_long_output_and_signals, setup, teardown),
        cmocka_unit_test(test_shards_split_the_mixes_once),
        cmocka_unit_test(test_wait_delays),
        cmocka_unit_test_setup_teardown(test_catalog_merge_is_idempotent_and_checked, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_journal_merge_is_idempotent_and_checked, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
