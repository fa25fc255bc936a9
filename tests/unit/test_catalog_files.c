/* Unit tests for the SQLite catalog, continued: files that are not catalogs, a newer schema
 * refused and an old one migrated, directories that cannot hold it, a read-only file, and two
 * writers at once. Every test works in its own mkdtemp directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "catalog_fixtures.h"
#include "corun/catalog.h"
#include "corun/preset.h"
#include "testutil.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, n, fp), n);
    fclose(fp);
}

/* Whether path holds exactly data. */
static int file_holds(const char *path, const void *data, size_t n)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return 0;
    char *buf = malloc(n + 1);
    size_t got = fread(buf, 1, n + 1, fp);
    fclose(fp);
    int same = got == n && memcmp(buf, data, n) == 0;
    free(buf);
    return same;
}

/* ---- bad files ---- */

static void expect_open_error(const char *path, const char *want)
{
    char err[512] = "";
    struct catalog *cat = catalog_open(path, err, sizeof err);
    if (cat)
        catalog_close(cat);
    assert_null(cat);
    if (strcmp(err, want) != 0)
        fail_msg("open %s: want \"%s\", got \"%s\"", path, want, err);
}

static void test_not_a_database(void **state)
{
    struct fixture *f = *state;
    char path[256], want[512];

    unsigned char junk[4096];
    unsigned seed = 12345;
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (unsigned char)((seed = seed * 1103515245u + 12345u) >> 16);
    snprintf(path, sizeof path, "%s/random.db", f->dir);
    write_file(path, junk, sizeof junk);
    snprintf(want, sizeof want, "%s is not a corun catalog (not an SQLite database)", path);
    expect_open_error(path, want);
    assert_true(file_holds(path, junk, sizeof junk));

    const char *text = "name = \"not a catalog\";\n";
    snprintf(path, sizeof path, "%s/text.cfg", f->dir);
    write_file(path, text, strlen(text));
    snprintf(want, sizeof want, "%s is not a corun catalog (not an SQLite database)", path);
    expect_open_error(path, want);
    assert_true(file_holds(path, text, strlen(text)));

    /* An SQLite database of another program. */
    snprintf(path, sizeof path, "%s/other.db", f->dir);
    raw_exec(path, "CREATE TABLE notes (body TEXT)");
    snprintf(want, sizeof want,
             "%s is not a corun catalog (an SQLite database of another program); give another "
             "path with --catalog",
             path);
    expect_open_error(path, want);

    /* A directory. */
    snprintf(want, sizeof want, "catalog %s is a directory; give a file path with --catalog",
             f->dir);
    expect_open_error(f->dir, want);

    /* A FIFO (the header's read blocked, or SQLite said "Illegal seek") and a device. */
    snprintf(path, sizeof path, "%s/fifo", f->dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    snprintf(want, sizeof want,
             "catalog %s is not a regular file (a FIFO, device or socket); give a file path with "
             "--catalog",
             path);
    expect_open_error(path, want);
    snprintf(want, sizeof want,
             "catalog /dev/null is not a regular file (a FIFO, device or socket); give a file "
             "path with --catalog");
    expect_open_error("/dev/null", want);

    /* An empty file becomes a catalog. */
    snprintf(path, sizeof path, "%s/empty.db", f->dir);
    write_file(path, "", 0);
    catalog_close(open_ok(path));
}

static void test_newer_schema_refused(void **state)
{
    struct fixture *f = *state;
    catalog_close(open_ok(f->path));
    char sql[64], want[512], newer[16];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", CATALOG_SCHEMA_VERSION + 1);
    raw_exec(f->path, sql);
    snprintf(want, sizeof want,
             "catalog %s has schema version %d, newer than this corun's %d; use a newer corun or "
             "another --catalog",
             f->path, CATALOG_SCHEMA_VERSION + 1, CATALOG_SCHEMA_VERSION);
    expect_open_error(f->path, want);
    snprintf(newer, sizeof newer, "%d", CATALOG_SCHEMA_VERSION + 1);
    assert_string_equal(raw_text(f->path, "PRAGMA user_version"), newer); /* left alone */
}

/* Schema 1 keyed a sweep result by suite, mix, predictor, allocator and seed only, so a sweep
 * with other epochs, or a later corun, took an older result for its own. Opening a version-1
 * catalog keeps its results with an empty configuration, which no sweep's key matches. */
static void test_schema1_sweep_results_migrate(void **state)
{
    struct fixture *f = *state;
    catalog_close(open_ok(f->path));
    raw_exec(f->path,
             "DROP TABLE sweep_results; "
             "CREATE TABLE sweep_results (id INTEGER PRIMARY KEY, suite TEXT NOT NULL, mix TEXT "
             "NOT NULL, predictor TEXT NOT NULL, allocator TEXT NOT NULL, seed INTEGER NOT NULL, "
             "run_id INTEGER REFERENCES runs (id) ON DELETE SET NULL, mean_stp REAL, mean_antt "
             "REAL, mean_fairness REAL, min_fairness REAL, mean_are REAL, max_are REAL, "
             "created_utc TEXT NOT NULL, UNIQUE (suite, mix, predictor, allocator, seed)); "
             "INSERT INTO sweep_results (suite, mix, predictor, allocator, seed, mean_stp, "
             "created_utc) VALUES ('s', 'stream', 'none', 'even', 1, 1.5, 'then'); "
             "PRAGMA user_version = 1");
    struct catalog *cat = open_ok(f->path);
    char err[512];
    bool done = true;
    struct catalog_sweep_key key = {"s", "stream", NULL, "even", 1, "hbm80, 3 x 1000 cycles"};
    assert_int_equal(catalog_sweep_done(cat, &key, &done, err, sizeof err), 0);
    assert_false(done);
    struct catalog_metrics m = {.mean_stp = 1.25};
    assert_int_equal(catalog_put_sweep_result(cat, &key, 0, &m, NULL, err, sizeof err), 0);
    assert_int_equal(catalog_sweep_done(cat, &key, &done, err, sizeof err), 0);
    assert_true(done);
    catalog_close(cat);
    assert_string_equal(raw_text(f->path, "SELECT group_concat(config || '=' || mean_stp, ';') "
                                          "FROM (SELECT * FROM sweep_results ORDER BY id)"),
                        "=1.5;hbm80, 3 x 1000 cycles=1.25");
    char v[16];
    snprintf(v, sizeof v, "%d", CATALOG_SCHEMA_VERSION);
    assert_string_equal(raw_text(f->path, "PRAGMA user_version"), v);
}

/* A path given with --catalog names a directory that exists: none is made (issue 21, defect
 * 11, where `--catalog /x/y/c.db` made /x/y). Only the default place gets its directories. */
static void test_bad_directories(void **state)
{
    struct fixture *f = *state;
    char path[256], file[128], dir[160], want[1536];
    snprintf(file, sizeof file, "%s/plain", f->dir);
    write_file(file, "x", 1);
    snprintf(path, sizeof path, "%s/plain/sub/catalog.db", f->dir);
    snprintf(want, sizeof want, "cannot create catalog %s: cannot write in directory %s/sub (%s)",
             path, file, strerror(ENOTDIR));
    expect_open_error(path, want);
    expect_open_error("", "the catalog path is empty; use --catalog PATH");
    snprintf(dir, sizeof dir, "%s/x/y", f->dir);
    snprintf(path, sizeof path, "%s/c.db", dir);
    snprintf(want, sizeof want, "cannot create catalog %s: cannot write in directory %s (%s)", path,
             dir, strerror(ENOENT));
    expect_open_error(path, want);
    struct stat st;
    snprintf(dir, sizeof dir, "%s/x", f->dir);
    assert_int_equal(stat(dir, &st), -1); /* nothing made */

    char *old_xdg = getenv("XDG_DATA_HOME") ? strdup(getenv("XDG_DATA_HOME")) : NULL;
    snprintf(dir, sizeof dir, "%s/xdg", f->dir);
    setenv("XDG_DATA_HOME", dir, 1);
    char err[1536] = "";
    struct catalog *cat = catalog_open(NULL, err, sizeof err);
    if (!cat)
        fail_msg("catalog_open(NULL): %s", err);
    catalog_close(cat);
    snprintf(path, sizeof path, "%s/corun/catalog.db", dir);
    assert_int_equal(stat(path, &st), 0);
    snprintf(dir, sizeof dir, "%s", file); /* a file where a directory should be */
    setenv("XDG_DATA_HOME", dir, 1);
    snprintf(want, sizeof want, "is not a directory");
    cat = catalog_open(NULL, err, sizeof err);
    assert_null(cat);
    assert_non_null(strstr(err, want));
    /* A directory that cannot be made (a name longer than any file system takes): said so,
     * with the system's reason, not left for the open to stumble on. */
    char longdir[512];
    snprintf(longdir, sizeof longdir, "%s/%0300d", f->dir, 0);
    setenv("XDG_DATA_HOME", longdir, 1);
    cat = catalog_open(NULL, err, sizeof err);
    assert_null(cat);
    snprintf(want, sizeof want, "cannot create directory %s for catalog %s/corun/catalog.db: %s",
             longdir, longdir, strerror(ENAMETOOLONG));
    if (strcmp(err, want) != 0)
        fail_msg("want \"%s\", got \"%s\"", want, err);
    if (old_xdg)
        setenv("XDG_DATA_HOME", old_xdg, 1);
    else
        unsetenv("XDG_DATA_HOME");
    free(old_xdg);
}

/* A read-only file can be read (list, query) but not written, with a message saying why. */
static void test_read_only_file(void **state)
{
    struct fixture *f = *state;
    if (geteuid() == 0)
        skip(); /* root ignores file permissions */
    struct catalog *cat = open_ok(f->path);
    struct catalog_run r = sample_run();
    add_run_ok(cat, &r);
    catalog_close(cat);
    assert_int_equal(chmod(f->path, 0444), 0);

    cat = open_ok(f->path);
    struct collect c = {.stop_after = 0};
    query_ok(cat, "SELECT count(*) FROM runs", &c);
    assert_string_equal(c.text, "count(*)\n1\n");
    char err[512], want[512];
    assert_int_equal(catalog_add_run(cat, &r, NULL, err, sizeof err), -1);
    snprintf(want, sizeof want, "catalog %s is read-only", f->path);
    if (strncmp(err, want, strlen(want)) != 0 || !strstr(err, "adding a run"))
        fail_msg("read-only add: got \"%s\"", err);
    catalog_close(cat);
}

/* ---- two writers ---- */

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* In a child: run sql (which opens a transaction), tell the parent through ready, commit after
 * hold_ms. */
static void child_holds_lock(const char *path, int ready, long hold_ms, const char *sql)
{
    sqlite3 *db;
    int ok = sqlite3_open(path, &db) == SQLITE_OK &&
             sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK;
    char byte = ok ? 'y' : 'n';
    ok = write(ready, &byte, 1) == 1 && ok;
    sleep_ms(hold_ms);
    ok = ok && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK;
    sqlite3_close(db);
    _exit(ok ? 0 : 1);
}

/* Forks a child that runs sql on path and holds its transaction for hold_ms; returns once
 * the transaction is open. */
static pid_t fork_lock_holder(const char *path, long hold_ms, const char *sql)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        child_holds_lock(path, fds[1], hold_ms, sql);
    }
    close(fds[1]);
    char byte = 0;
    assert_int_equal(read(fds[0], &byte, 1), 1);
    close(fds[0]);
    assert_int_equal(byte, 'y');
    return pid;
}

/* Waits for fork_lock_holder's child, which must have committed and exited cleanly. */
static void join_lock_holder(pid_t pid)
{
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A writer that finds another process's transaction waits for its commit, then succeeds. */
static void test_concurrent_writer_waits(void **state)
{
    struct fixture *f = *state;
    catalog_close(open_ok(f->path)); /* the schema, for the child */
    pid_t pid = fork_lock_holder(f->path, 300,
                                 "BEGIN IMMEDIATE; INSERT INTO runs (scenario_name, gpu, mix, "
                                 "allocator, seed, epochs, epoch_cycles, created_utc, "
                                 "corun_version) VALUES ('child', 'hbm80', 'stream', 'even', 1, "
                                 "1, 1, 'now', 'test')");

    struct catalog *cat = open_ok(f->path); /* opening does not need the write lock */
    struct catalog_run r = sample_run();
    int64_t id = add_run_ok(cat, &r); /* blocks until the child commits */
    join_lock_holder(pid);
    /* The child's run went in first, ours after its commit. */
    struct collect c = {.stop_after = 0};
    query_ok(cat, "SELECT id, scenario_name FROM runs ORDER BY id", &c);
    assert_string_equal(c.text, "id|scenario_name\n1|child\n2|default\n");
    assert_int_equal(id, 2);
    catalog_close(cat);
}

/* A process that finds another's write transaction on a catalog still in rollback mode (two
 * processes opening a new catalog at once) is refused its switch to WAL at once, without the
 * busy timeout; it reads the mode again and retries until the other commits. */
static void test_open_waits_for_the_wal_switch(void **state)
{
    struct fixture *f = *state;
    pid_t pid = fork_lock_holder(f->path, 300, "BEGIN IMMEDIATE");

    struct catalog *cat = open_ok(f->path); /* not "locked ... while switching to WAL mode" */
    assert_string_equal(raw_text(f->path, "PRAGMA journal_mode"), "wal");
    join_lock_holder(pid);
    catalog_close(cat);
}

/* With a short busy timeout the writer gives up with the "locked" message; it succeeds once
 * the other connection commits. */
static void test_locked_message(void **state)
{
    struct fixture *f = *state;
    struct catalog *cat = open_ok(f->path);
    catalog_set_busy_timeout(cat, 200);
    sqlite3 *other;
    assert_int_equal(sqlite3_open(f->path, &other), SQLITE_OK);
    assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);

    char err[512], want[512];
    struct catalog_run r = sample_run();
    assert_int_equal(catalog_add_run(cat, &r, NULL, err, sizeof err), -1);
    snprintf(want, sizeof want,
             "catalog %s is locked by another process (waited 0.2 s) while adding a run; try "
             "again or use --catalog",
             f->path);
    assert_string_equal(err, want);
    struct catalog_sweep_key key = {"s", "stream", NULL, "even", 1, "c"};
    struct catalog_metrics m = {1, 1, 1, 1, false, 0, 0};
    assert_int_equal(catalog_put_sweep_result(cat, &key, 0, &m, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "is locked by another process (waited 0.2 s) while storing a "
                                "sweep result"));
    /* Readers are not blocked by a writer (WAL). */
    struct collect c = {.stop_after = 0};
    query_ok(cat, "SELECT count(*) FROM runs", &c);
    assert_string_equal(c.text, "count(*)\n0\n");
    bool done;
    assert_int_equal(catalog_sweep_done(cat, &key, &done, err, sizeof err), 0);

    assert_int_equal(sqlite3_exec(other, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(other);
    add_run_ok(cat, &r);
    catalog_close(cat);
}

/* A write transaction around a look and an add (as `runs add` makes one, so that two adds of
 * a file at once add it once): the adds inside join it, another writer waits for its end (here
 * gives up after its busy timeout), a rollback undoes the adds and a commit keeps them. */
static void test_write_transaction_around_adds(void **state)
{
    struct fixture *f = *state;
    struct catalog *cat = open_ok(f->path), *other = open_ok(f->path);
    catalog_set_busy_timeout(other, 100);
    char err[512];
    struct catalog_run r = sample_run();
    assert_int_equal(catalog_begin_write(cat, "adding a run", err, sizeof err), 0);
    add_run_ok(cat, &r); /* it began a transaction inside one: "cannot start a transaction" */
    assert_string_equal(raw_text(f->path, "SELECT count(*) FROM runs"), "0");
    assert_int_equal(catalog_begin_write(other, "adding a run", err, sizeof err), -1);
    assert_non_null(strstr(err, "is locked by another process (waited 0.1 s) while adding a run"));
    catalog_rollback(cat);
    assert_string_equal(raw_text(f->path, "SELECT count(*) FROM runs"), "0");

    assert_int_equal(catalog_begin_write(cat, "adding a run", err, sizeof err), 0);
    add_run_ok(cat, &r);
    add_run_ok(cat, &r);
    assert_string_equal(raw_text(f->path, "SELECT count(*) FROM runs"), "0");
    assert_int_equal(catalog_commit(cat, "adding a run", err, sizeof err), 0);
    assert_string_equal(raw_text(f->path, "SELECT count(*) FROM runs"), "2");
    add_run_ok(other, &r); /* the lock is free again */
    catalog_close(cat);
    catalog_close(other);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_not_a_database, catalog_setup, catalog_teardown),
        cmocka_unit_test_setup_teardown(test_newer_schema_refused, catalog_setup, catalog_teardown),
        cmocka_unit_test_setup_teardown(test_schema1_sweep_results_migrate, catalog_setup,
                                        catalog_teardown),
        cmocka_unit_test_setup_teardown(test_bad_directories, catalog_setup, catalog_teardown),
        cmocka_unit_test_setup_teardown(test_read_only_file, catalog_setup, catalog_teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_writer_waits, catalog_setup,
                                        catalog_teardown),
        cmocka_unit_test_setup_teardown(test_open_waits_for_the_wal_switch, catalog_setup,
                                        catalog_teardown),
        cmocka_unit_test_setup_teardown(test_locked_message, catalog_setup, catalog_teardown),
        cmocka_unit_test_setup_teardown(test_write_transaction_around_adds, catalog_setup,
                                        catalog_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
