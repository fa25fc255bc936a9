/* Unit tests for repro_journal_adopt: taking another build's journal of the same run once the
 * records both hold agree byte for byte, and refusing it, adding nothing, when they do not, when
 * none is shared, when the data or the run differ, or when the journal adopted into is not this
 * build's. "Another build" is a journal whose identity names a made-up build id. Each test works
 * in its own mkdtemp directory; CORUN_DATADIR names the data whose id the journals carry. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "corun/reproduce_journal.h"
#include "corun/util.h"

#define OTHER_BUILD "0123456789abcdef"

/* A record: 8 bytes of results, then 8 that say how the run went (not compared). */
struct record {
    uint64_t result;
    uint64_t cost;
};

struct fix {
    char dir[64];
    const char *datadir;
    char build[REPRO_BUILD_ID_LEN], data[REPRO_BUILD_ID_LEN];
    char *mine, *theirs;
    char err[512];
};

static int setup(void **state)
{
    struct fix *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    snprintf(f->dir, sizeof f->dir, "/tmp/corun-adopt-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    f->datadir = getenv("CORUN_DATADIR");
    if (!f->datadir)
        return -1;
    repro_build_id(f->build, sizeof f->build);
    repro_data_id(f->datadir, f->data, sizeof f->data);
    f->mine = xasprintf("%s/mine.journal", f->dir);
    f->theirs = xasprintf("%s/theirs.journal", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fix *f = *state;
    char *cmd = xasprintf("rm -rf '%s'", f->dir);
    int rc = system(cmd);
    free(cmd);
    free(f->mine);
    free(f->theirs);
    free(f);
    return rc == 0 ? 0 : -1;
}

/* The run identity of run `what` made by build `build` with data `data`. Heap. */
static char *identity_of(const char *what, const char *build, const char *data)
{
    return xasprintf("%s; corun build %s, data %s", what, build, data);
}

/* Writes a journal afresh at path for run `what` of build `build` and data `data`, holding
 * records (0, index) for each index in idx[0..n) with result idx*10 + bias and cost
 * cost0 + idx. */
static void write_journal(const char *path, const char *what, const char *build, const char *data,
                          const size_t *idx, size_t n, uint64_t bias, uint64_t cost0)
{
    char *identity = identity_of(what, build, data);
    char err[256];
    unlink(path);
    struct repro_journal *j =
        repro_journal_open(path, identity, sizeof(struct record), err, sizeof err);
    if (!j)
        fail_msg("%s", err);
    for (size_t i = 0; i < n; i++) {
        struct record r = {idx[i] * 10 + bias, cost0 + idx[i]};
        assert_int_equal(repro_journal_put(j, 0, idx[i], &r, err, sizeof err), 0);
    }
    repro_journal_close(j);
    free(identity);
}

static size_t result_only(const char *what, size_t record_size)
{
    (void)what;
    assert_int_equal(record_size, sizeof(struct record));
    return sizeof(uint64_t);
}

/* The records of the journal at path, a journal of this build's run "reproduce x". */
static size_t count(const char *path, const struct fix *f)
{
    char *identity = identity_of("reproduce x", f->build, f->data);
    char err[256];
    struct repro_journal *j =
        repro_journal_open(path, identity, sizeof(struct record), err, sizeof err);
    free(identity);
    if (!j)
        fail_msg("%s", err);
    size_t n = repro_journal_count(j);
    repro_journal_close(j);
    return n;
}

/* Adopts f->theirs into f->mine. */
static int adopt(struct fix *f, repro_result_bytes_fn result_bytes,
                 struct repro_journal_merged *got)
{
    return repro_journal_adopt(f->mine, f->theirs, f->datadir, result_bytes, got, f->err,
                               sizeof f->err);
}

static const size_t shared[] = {1, 2}, all[] = {0, 1, 2, 3};

static void agreeing_records_let_the_rest_in(void **state)
{
    struct fix *f = *state;
    write_journal(f->mine, "reproduce x", f->build, f->data, shared, 2, 0, 0);
    write_journal(f->theirs, "reproduce x", OTHER_BUILD, f->data, all, 4, 0, 0);
    struct repro_journal_merged got;
    assert_int_equal(adopt(f, NULL, &got), 0);
    assert_int_equal(got.verified, 2);
    assert_int_equal(got.present, 2);
    assert_int_equal(got.added, 2);
    assert_int_equal(got.dropped, 0);
    assert_int_equal(count(f->mine, f), 4);
    /* Again: everything is there, each shared record checked again. */
    assert_int_equal(adopt(f, NULL, &got), 0);
    assert_int_equal(got.verified, 4);
    assert_int_equal(got.added, 0);
}

static void a_differing_record_refuses_all(void **state)
{
    struct fix *f = *state;
    write_journal(f->mine, "reproduce x", f->build, f->data, shared, 2, 0, 0);
    write_journal(f->theirs, "reproduce x", OTHER_BUILD, f->data, all, 4, 1, 0);
    struct repro_journal_merged got;
    assert_int_equal(adopt(f, NULL, &got), -1);
    assert_non_null(strstr(f->err, "record 0/1 differs"));
    assert_int_equal(got.added, 0);
    assert_int_equal(count(f->mine, f), 2);
}

static void only_the_results_are_compared(void **state)
{
    struct fix *f = *state;
    write_journal(f->mine, "reproduce x", f->build, f->data, shared, 2, 0, 0);
    /* Their costs differ from mine (a record's second half), their results do not. */
    write_journal(f->theirs, "reproduce x", OTHER_BUILD, f->data, all, 4, 0, 1000);
    struct repro_journal_merged got;
    assert_int_equal(adopt(f, NULL, &got), -1);
    assert_int_equal(adopt(f, result_only, &got), 0);
    assert_int_equal(got.verified, 2);
    assert_int_equal(got.added, 2);
}

static void nothing_shared_nothing_adopted(void **state)
{
    struct fix *f = *state;
    static const size_t apart[] = {3};
    write_journal(f->mine, "reproduce x", f->build, f->data, shared, 2, 0, 0);
    write_journal(f->theirs, "reproduce x", OTHER_BUILD, f->data, apart, 1, 0, 0);
    struct repro_journal_merged got;
    assert_int_equal(adopt(f, NULL, &got), -1);
    assert_non_null(strstr(f->err, "shares no record with"));
    assert_int_equal(count(f->mine, f), 2);
    /* This build's own journal needs no shared record: it is a plain merge. */
    write_journal(f->theirs, "reproduce x", f->build, f->data, apart, 1, 0, 0);
    assert_int_equal(adopt(f, NULL, &got), 0);
    assert_int_equal(got.added, 1);
    assert_int_equal(got.verified, 0);
    assert_int_equal(count(f->mine, f), 3);
}

static void other_runs_data_or_builds_are_refused(void **state)
{
    struct fix *f = *state;
    struct repro_journal_merged got;
    write_journal(f->theirs, "reproduce x", OTHER_BUILD, f->data, all, 4, 0, 0);
    /* Into a journal that is not there. */
    assert_int_equal(adopt(f, NULL, &got), -1);
    assert_non_null(strstr(f->err, "no such journal"));
    assert_int_equal(access(f->mine, F_OK), -1);
    /* Into another build's journal: it cannot vouch for anything. */
    write_journal(f->mine, "reproduce x", "fedcba9876543210", f->data, shared, 2, 0, 0);
    assert_int_equal(adopt(f, NULL, &got), -1);
    assert_non_null(strstr(f->err, "not a journal of this build"));
    unlink(f->mine);
    /* Into this build's journal made with other data. */
    write_journal(f->mine, "reproduce x", f->build, "fedcba9876543210", shared, 2, 0, 0);
    assert_int_equal(adopt(f, NULL, &got), -1);
    assert_non_null(strstr(f->err, "not a journal of this build"));
    unlink(f->mine);
    /* From a journal of another run, or of this run with another record size. */
    write_journal(f->mine, "reproduce y", f->build, f->data, shared, 2, 0, 0);
    assert_int_equal(adopt(f, NULL, &got), -1);
    assert_non_null(strstr(f->err, "belongs to another run (it holds: reproduce x"));
    assert_non_null(strstr(f->err, " holds: reproduce y"));
    unlink(f->mine);
    char *identity = identity_of("reproduce x", f->build, f->data);
    struct repro_journal *j = repro_journal_open(f->mine, identity, 4, f->err, sizeof f->err);
    assert_non_null(j);
    repro_journal_close(j);
    free(identity);
    assert_int_equal(adopt(f, NULL, &got), -1);
    assert_non_null(strstr(f->err, "belongs to another run"));
    unlink(f->mine);
    /* From a journal made with other data. */
    write_journal(f->mine, "reproduce x", f->build, f->data, shared, 2, 0, 0);
    write_journal(f->theirs, "reproduce x", OTHER_BUILD, "fedcba9876543210", all, 4, 0, 0);
    assert_int_equal(adopt(f, NULL, &got), -1);
    assert_non_null(strstr(f->err, "made with other data"));
    assert_int_equal(count(f->mine, f), 2);
    /* From a file that is not a journal, or is not there. */
    FILE *t = fopen(f->theirs, "w");
    assert_non_null(t);
    fputs("hello\n", t);
    fclose(t);
    assert_int_equal(adopt(f, NULL, &got), -1);
    assert_non_null(strstr(f->err, "not a corun reproduce journal"));
    unlink(f->theirs);
    assert_int_equal(adopt(f, NULL, &got), -1);
    assert_non_null(strstr(f->err, "cannot open"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(agreeing_records_let_the_rest_in, setup, teardown),
        cmocka_unit_test_setup_teardown(a_differing_record_refuses_all, setup, teardown),
        cmocka_unit_test_setup_teardown(only_the_results_are_compared, setup, teardown),
        cmocka_unit_test_setup_teardown(nothing_shared_nothing_adopted, setup, teardown),
        cmocka_unit_test_setup_teardown(other_runs_data_or_builds_are_refused, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
