/* catalog_fixtures — what the catalog's unit tests (test_catalog.c, test_catalog_files.c)
 * share: a mkdtemp directory per test, raw SQLite access for what the API cannot do, query
 * results collected as text, and a sample run. Include after cmocka.h. */
#ifndef CORUN_CATALOG_FIXTURES_H
#define CORUN_CATALOG_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

#include "corun/catalog.h"

struct fixture {
    char dir[64];
    char path[128]; /* dir/sub/catalog.db, sub made by catalog_setup */
};

/* Query results collected as one string: "a|b\n1|2\n", NULL shown as "NULL". */
struct collect {
    char text[4096];
    size_t rows;
    size_t stop_after; /* 0: never stop */
};

/* catalog_setup makes dir and dir/sub (the catalog goes to path) and gives a struct fixture as the
 * state; catalog_teardown removes it all. */
int catalog_setup(void **state);
int catalog_teardown(void **state);
/* catalog_open, failing the test when it fails. */
struct catalog *open_ok(const char *path);
/* Run sql on a separate raw connection (for what the API deliberately cannot do). */
void raw_exec(const char *path, const char *sql);
/* The first column of the first row of sql on a raw connection, in a static buffer. */
const char *raw_text(const char *path, const char *sql);
int collect_row(void *ctx, size_t ncols, const char *const *names, const char *const *values);
/* sql's rows into c, failing the test when the query fails. */
void query_ok(struct catalog *cat, const char *sql, struct collect *c);
struct catalog_run sample_run(void);
/* catalog_add_run, failing the test when it fails; the run's id. */
int64_t add_run_ok(struct catalog *cat, const struct catalog_run *r);

#endif
