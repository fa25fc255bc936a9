/* catalog_fixtures — what the catalog's unit tests share (catalog_fixtures.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "catalog_fixtures.h"
#include "testutil.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int catalog_setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    snprintf(f->dir, sizeof f->dir, "/tmp/corun-catalog-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->path, sizeof f->path, "%s/sub/catalog.db", f->dir);
    char sub[96];
    snprintf(sub, sizeof sub, "%s/sub", f->dir);
    if (mkdir(sub, 0777) != 0)
        return -1;
    *state = f;
    return 0;
}

int catalog_teardown(void **state)
{
    struct fixture *f = *state;
    chmod(f->dir, 0700);
    test_remove_tree(f->dir);
    free(f);
    return 0;
}

struct catalog *open_ok(const char *path)
{
    char err[512] = "";
    struct catalog *cat = catalog_open(path, err, sizeof err);
    if (!cat)
        fail_msg("catalog_open: %s", err);
    return cat;
}

/* Run sql on a separate raw connection (for what the API deliberately cannot do). */
void raw_exec(const char *path, const char *sql)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", sql, msg);
    sqlite3_close(db);
}

/* The first column of the first row of sql on a raw connection, in a static buffer. */
const char *raw_text(const char *path, const char *sql)
{
    static char buf[256];
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    snprintf(buf, sizeof buf, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return buf;
}

int collect_row(void *ctx, size_t ncols, const char *const *names, const char *const *values)
{
    struct collect *c = ctx;
    for (size_t i = 0; i < ncols; i++) {
        const char *v = values ? (values[i] ? values[i] : "NULL") : names[i];
        size_t len = strlen(c->text);
        snprintf(c->text + len, sizeof c->text - len, "%s%s", i ? "|" : "", v);
    }
    size_t len = strlen(c->text);
    snprintf(c->text + len, sizeof c->text - len, "\n");
    if (values)
        c->rows++;
    return c->stop_after && c->rows == c->stop_after;
}

void query_ok(struct catalog *cat, const char *sql, struct collect *c)
{
    char err[512] = "";
    memset(c->text, 0, sizeof c->text);
    c->rows = 0;
    if (catalog_query(cat, sql, collect_row, c, err, sizeof err) != 0)
        fail_msg("catalog_query(%s): %s", sql, err);
}

struct catalog_run sample_run(void)
{
    return (struct catalog_run){
        .run_path = "runs/a.h5",
        .scenario_name = "default",
        .scenario_path = "scenarios/default.cfg",
        .gpu = "hbm80",
        .mix = "stream+compute",
        .predictor = "hsm",
        .allocator = "fair",
        .seed = 42,
        .epochs = 20,
        .epoch_cycles = 50000,
        .metrics = {1.5, 1.4, 0.8, 0.6, true, 0.05, 0.12},
    };
}

int64_t add_run_ok(struct catalog *cat, const struct catalog_run *r)
{
    char err[512] = "";
    int64_t id = 0;
    if (catalog_add_run(cat, r, &id, err, sizeof err) != 0)
        fail_msg("catalog_add_run: %s", err);
    return id;
}
