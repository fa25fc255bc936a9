/* Unit tests for the catalog's read-only queries (`corun runs query`): rows and column names,
 * writes and several statements refused, syntax errors named, and a time limit that stops an
 * endless query. Every test works in its own mkdtemp directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "catalog_fixtures.h"
#include "corun/catalog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void query_fails_with(struct catalog *cat, const char *sql, int rc, const char *want)
{
    char err[512] = "";
    struct collect c = {.stop_after = 0};
    assert_int_equal(catalog_query(cat, sql, collect_row, &c, err, sizeof err), rc);
    if (!strstr(err, want))
        fail_msg("query %s: want \"%s\" in \"%s\"", sql, want, err);
    assert_int_equal(c.rows, 0);
}

static void query_fails(struct catalog *cat, const char *sql, const char *want)
{
    query_fails_with(cat, sql, -1, want);
}

static void test_query_rows_and_names(void **state)
{
    struct fixture *f = *state;
    struct catalog *cat = open_ok(f->path);
    struct catalog_run r = sample_run();
    add_run_ok(cat, &r);
    r.predictor = NULL;
    r.metrics.has_are = false;
    add_run_ok(cat, &r);

    struct collect c = {.stop_after = 0};
    query_ok(cat,
             "  SELECT id, mix AS kernels, predictor, mean_are, epoch_cycles FROM runs "
             "ORDER BY id; -- a trailing comment\n",
             &c);
    assert_string_equal(c.text, "id|kernels|predictor|mean_are|epoch_cycles\n"
                                "1|stream+compute|hsm|0.05|50000\n"
                                "2|stream+compute|none|NULL|50000\n");
    assert_int_equal(c.rows, 2);
    /* Column names even when no row matches. */
    query_ok(cat, "SELECT gpu FROM runs WHERE id > 100", &c);
    assert_string_equal(c.text, "gpu\n");
    /* The callback may stop early. */
    c.stop_after = 1;
    query_ok(cat, "SELECT id FROM runs ORDER BY id", &c);
    assert_string_equal(c.text, "id\n1\n");
    catalog_close(cat);
}

static void test_query_refuses_writes(void **state)
{
    struct fixture *f = *state;
    struct catalog *cat = open_ok(f->path);
    struct catalog_run r = sample_run();
    add_run_ok(cat, &r);
    char want[512];
    snprintf(want, sizeof want,
             "catalog %s: refused a query that would change the catalog: expected a query that "
             "only reads, such as SELECT ...: DELETE FROM runs",
             f->path);
    query_fails(cat, "DELETE FROM runs", want);
    query_fails(cat, "UPDATE runs SET seed = 0", "refused a query that would change");
    query_fails(cat, "INSERT INTO runs (id) VALUES (5)", "refused a query that would change");
    query_fails(cat, "DROP TABLE runs", "refused a query that would change");
    /* journal_mode set, and the pragmas that act even without a value (sqlite3_stmt_readonly
     * says they write, as it says of journal_mode read). */
    query_fails(cat, "PRAGMA journal_mode=delete", "refused PRAGMA journal_mode with a value");
    query_fails(cat, "PRAGMA main.journal_mode = WAL", "refused PRAGMA journal_mode with a value");
    query_fails(cat, "PRAGMA wal_checkpoint",
                "refused PRAGMA wal_checkpoint, which acts rather than reads");
    query_fails(cat, "PRAGMA wal_checkpoint(TRUNCATE)", "refused PRAGMA wal_checkpoint with a");
    query_fails(cat, "PRAGMA incremental_vacuum",
                "refused PRAGMA incremental_vacuum, which acts rather than reads");
    /* What sqlite3_stmt_readonly() lets through, as it leaves the file as it is, and is no
     * query: a transaction, another database attached, a pragma given a value (it sets the
     * connection's state) or one that acts. */
    snprintf(want, sizeof want,
             "catalog %s: refused a transaction statement (BEGIN), which is no query: expected a "
             "query that only reads, such as SELECT ...: BEGIN",
             f->path);
    query_fails(cat, "BEGIN", want);
    query_fails(cat, "commit", "refused a transaction statement (COMMIT)");
    query_fails(cat, "SAVEPOINT s", "refused a transaction statement (SAVEPOINT)");
    query_fails(cat, "RELEASE s", "refused a transaction statement (RELEASE)");
    query_fails(cat, "ATTACH ':memory:' AS m", "refused ATTACH, which is no query: expected");
    query_fails(cat, "PRAGMA writable_schema=1",
                "refused PRAGMA writable_schema with a value, which sets it (PRAGMA "
                "writable_schema alone reads it): expected a query that only reads, such as "
                "SELECT ...: PRAGMA writable_schema=1");
    query_fails(cat, "PRAGMA main.Query_Only(0)", "refused PRAGMA Query_Only with a value");
    query_fails(cat, "PRAGMA user_version = 9", "refused PRAGMA user_version with a value");
    query_fails(cat, "PRAGMA optimize", "refused PRAGMA optimize, which acts rather than reads");
    query_fails(cat, "SELECT 1; DELETE FROM runs",
                "the query holds more than one statement; run one at a time: SELECT 1; DELETE");
    query_fails(cat, "  -- nothing\n", "the query is empty");

    struct collect c = {.stop_after = 0};
    query_ok(cat, "SELECT count(*), sum(seed) FROM runs", &c);
    assert_string_equal(c.text, "count(*)|sum(seed)\n1|42\n");
    query_ok(cat, "PRAGMA user_version", &c);
    assert_string_equal(c.text, "user_version\n2\n");
    /* Pragmas that read, an argument naming what, and their table-valued forms. */
    query_ok(cat, "PRAGMA writable_schema", &c);
    assert_string_equal(c.text, "writable_schema\n0\n");
    /* journal_mode read (it was refused as a write: sqlite3_stmt_readonly() is false for it). */
    query_ok(cat, "PRAGMA journal_mode", &c);
    assert_string_equal(c.text, "journal_mode\nwal\n");
    query_ok(cat, "pragma MAIN.Journal_Mode;", &c);
    assert_string_equal(c.text, "journal_mode\nwal\n");
    query_ok(cat, "PRAGMA table_info(runs)", &c);
    assert_int_equal(c.rows, 19);
    query_ok(cat, "PRAGMA quick_check(runs)", &c);
    assert_string_equal(c.text, "quick_check\nok\n");
    query_ok(cat, "SELECT count(*) FROM pragma_index_list('runs')", &c);
    assert_string_equal(c.text, "count(*)\n1\n");
    query_ok(cat, "EXPLAIN QUERY PLAN SELECT * FROM runs", &c);
    assert_int_equal(c.rows, 1);
    catalog_close(cat);
}

static void test_query_syntax_error(void **state)
{
    struct fixture *f = *state;
    struct catalog *cat = open_ok(f->path);
    char want[512];
    snprintf(want, sizeof want,
             "catalog %s: query failed: near \"SELEC\": syntax error: SELEC * FROM runs", f->path);
    query_fails(cat, "SELEC * FROM runs", want);
    query_fails(cat, "SELECT * FROM nonesuch", "query failed: no such table: nonesuch: SELECT");
    catalog_close(cat);
}

/* `runs --timeout`: within the limit a query of many steps (SQLite asks the progress handler
 * every 10,000; this one takes milliseconds, well under the limit even under valgrind) runs to
 * its end; past it, one that would never end is stopped, with the limit and the way to lift
 * it in the message. */
static void test_query_time_limit(void **state)
{
    struct fixture *f = *state;
    struct catalog *cat = open_ok(f->path);
    catalog_set_query_limit(cat, 2);
    struct collect c = {.stop_after = 0};
    query_ok(cat,
             "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 20000) "
             "SELECT count(*) AS rows FROM n",
             &c);
    assert_string_equal(c.text, "rows\n20000\n");
    query_fails_with(cat,
                     "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT "
                     "count(*) FROM n",
                     -2,
                     "the query ran for more than 2 s and was stopped (runs --timeout S allows "
                     "longer");
    catalog_close(cat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_query_rows_and_names, catalog_setup, catalog_teardown),
        cmocka_unit_test_setup_teardown(test_query_refuses_writes, catalog_setup, catalog_teardown),
        cmocka_unit_test_setup_teardown(test_query_syntax_error, catalog_setup, catalog_teardown),
        cmocka_unit_test_setup_teardown(test_query_time_limit, catalog_setup, catalog_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
