/* catalog_internal — what the catalog's files share: the handle, error messages, write
 * transactions and binding helpers. Not part of the public API. */
#ifndef CORUN_CATALOG_INTERNAL_H
#define CORUN_CATALOG_INTERNAL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "corun/catalog.h"

/* "coru": tells a corun catalog from other SQLite files (PRAGMA application_id). */
#define CATALOG_APPLICATION_ID 0x636f7275

struct catalog {
    sqlite3 *db;
    char *path;
    unsigned busy_ms;
    unsigned query_limit_s; /* catalog_query's limit; 0: none */
    bool readonly;          /* the file could only be opened for reading */
    unsigned write_depth;   /* catalog_begin_write calls not yet committed; 0: none */
};

/* The message for SQLite result rc of connection db on the catalog at path, while doing what,
 * written to err; returns -1. */
int catalog_describe(sqlite3 *db, const char *path, unsigned busy_ms, int rc, const char *what,
                     char *err, size_t errlen);
/* The same for the main connection (what: e.g. "adding a run"). */
int catalog_fail(const struct catalog *cat, int rc, const char *what, char *err, size_t errlen);

/* SQLite's quick check by pragma ("PRAGMA quick_check(sweep_results)", "PRAGMA
 * other.quick_check") of the file at path: 0, or -1 with "catalog PATH is damaged (its first
 * finding) while WHAT" and tail after it, or the error that stopped the check. */
int catalog_quick_check(struct catalog *cat, const char *pragma, const char *path, const char *what,
                        const char *tail, char *err, size_t errlen);

/* Step st once, expecting no row, and finalize it; 0, or -1 with catalog_fail's message. */
int catalog_step_done(struct catalog *cat, sqlite3_stmt *st, const char *what, char *err,
                      size_t errlen);

/* Make the table of finished reproduce runs (catalog_results.c) unless it exists; inside a
 * write transaction. */
int catalog_make_results_table(struct catalog *cat, const char *what, char *err, size_t errlen);

/* Prepare sql (fixed text, never user input) on the main connection. */
int catalog_prepare(struct catalog *cat, const char *sql, sqlite3_stmt **st, const char *what,
                    char *err, size_t errlen);

/* The current time as "YYYY-MM-DDTHH:MM:SSZ". */
void catalog_now_utc(char buf[32]);

/* Bind helpers: NULL text and non-finite doubles bind SQL NULL. */
int catalog_bind_text(sqlite3_stmt *st, int i, const char *s);
int catalog_bind_double(sqlite3_stmt *st, int i, double v);
/* 64-bit hashes as 16 hex digits. */
int catalog_bind_hash(sqlite3_stmt *st, int i, uint64_t h);
/* A recorded run's file, scenario name and path and GPU as parameters 1 to 4 (the first
 * columns of runs and of accel_runs). */
void catalog_bind_run_source(sqlite3_stmt *st, const char *run_path, const char *scenario_name,
                             const char *scenario_path, const char *gpu);

/* Copies of column i: a heap string or NULL; a double or NAN for NULL. */
char *catalog_column_strdup(sqlite3_stmt *st, int i);
double catalog_column_double(sqlite3_stmt *st, int i);

/* The predictor name stored for p: "none" when p is NULL or empty. */
const char *catalog_predictor_name(const char *p);

#endif
