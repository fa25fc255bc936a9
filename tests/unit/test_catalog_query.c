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

static void query_fails(struct catalog *cat, const char *sql, const char *want)
{
    char err[512] = "";
    struct collect c = {.stop_after = 0};
    assert_int_equal(catalog_query(cat, sql, collect_row, &c, err, sizeof err), -1);
    if (!strstr(err, want))
        fail_msg("query %s: want \"%s\" in \"%s\"", sql, want, err);
    assert_int_equal(c.rows, 0);
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
             "catalog %s: refused a query that would change the catalog (queries only read): "
             "DELETE FROM runs",
             f->path);
    query_fails(cat, "DELETE FROM runs", want);
    query_fails(cat, "UPDATE runs SET seed = 0", "refused a query that would change");
    query_fails(cat, "INSERT INTO runs (id) VALUES (5)", "refused a query that would change");
    query_fails(cat, "DROP TABLE runs", "refused a query that would change");
    query_fails(cat, "PRAGMA user_version = 9", "refused a query that would change");
    query_fails(cat, "SELECT 1; DELETE FROM runs",
                "the query holds more than one statement; run one at a time: SELECT 1; DELETE");
    query_fails(cat, "  -- nothing\n", "the query is empty");

    struct collect c = {.stop_after = 0};
    query_ok(cat, "SELECT count(*), sum(seed) FROM runs", &c);
    assert_string_equal(c.text, "count(*)|sum(seed)\n1|42\n");
    query_ok(cat, "PRAGMA user_version", &c);
    assert_string_equal(c.text, "user_version\n2\n");
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
    query_fails(cat,
                "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) "
                "FROM n",
                "the query ran for more than 2 s and was stopped (runs --timeout S allows longer");
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
