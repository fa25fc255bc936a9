/* catalog — the SQLite catalog (docs/design.md §7): the kernel library with measured solo
 * characteristics per GPU preset, runs with their summary metrics, results of headless sweeps
 * and the cache of private-mode traces, in one file ($XDG_DATA_HOME/corun/catalog.db unless
 * the user names another with --catalog).
 *
 * Several processes may write at once (a sharded sweep): the file is in WAL mode and every
 * write is one short IMMEDIATE transaction, which waits up to the busy timeout for another
 * writer and then fails with "catalog PATH is locked by another process".
 *
 * The tables are meant to be queried by hand (`corun runs query "SELECT ..."`): plain names,
 * units in column names (epoch_cycles, bandwidth_gbs), times as ISO 8601 UTC text
 * ("2024-05-01T12:00:00Z") in *_utc columns, 64-bit hashes as 16 hex digits. Seeds are stored
 * as SQLite integers: seeds of 2^63 and more read back exactly but show as negative numbers.
 *
 * Every function that can fail returns 0, or -1 with a message in err that names the catalog
 * file and what failed. */
#ifndef CORUN_CATALOG_H
#define CORUN_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "corun/kernel.h"
#include "corun/solo.h"

/* The schema this build creates and reads; older catalogs are migrated when opened. */
#define CATALOG_SCHEMA_VERSION  2
#define CATALOG_BUSY_TIMEOUT_MS 5000

struct catalog;

/* $XDG_DATA_HOME/corun/catalog.db, else ~/.local/share/corun/catalog.db; the caller frees.
 * NULL when neither XDG_DATA_HOME nor a home directory is known. */
char *catalog_default_path(void);

/* Open (creating the file, and migrating its schema) the catalog at path, whose directory must
 * exist, or at catalog_default_path() when path is NULL (its directories are made). A read-only
 * file opens for reading only. Returns the handle, or NULL with a message. */
struct catalog *catalog_open(const char *path, char *err, size_t errlen);
/* 0 when the catalog can take a write now (not opened read-only, not locked by another
 * process past the usual wait); -1 with the message a write would get, for `what` ("adding
 * the run"). A command that will write at its end asks before it simulates anything. */
int catalog_writable(struct catalog *cat, const char *what, char *err, size_t errlen);
void catalog_close(struct catalog *cat);

/* The file's path, as opened. */
const char *catalog_path(const struct catalog *cat);

/* How long a write waits for another process's write transaction (CATALOG_BUSY_TIMEOUT_MS
 * after catalog_open). */
void catalog_set_busy_timeout(struct catalog *cat, unsigned ms);

/* A write transaction around several calls, so that what is read inside (is this run's file
 * in the catalog already?) still holds when the writes inside are made: another process's
 * write waits for its end. catalog_begin_write takes the catalog's write lock (BEGIN
 * IMMEDIATE, waiting up to the busy timeout; what: "adding a run"); the adds, puts and
 * catalog_begin_write calls inside join it rather than begin their own. catalog_commit ends
 * the one begun last and, at the outermost, commits; catalog_rollback, or a write inside that
 * fails (it rolls back), undoes the whole transaction. 0, or -1 with a message. */
int catalog_begin_write(struct catalog *cat, const char *what, char *err, size_t errlen);
int catalog_commit(struct catalog *cat, const char *what, char *err, size_t errlen);
void catalog_rollback(struct catalog *cat);

/* ---- runs -------------------------------------------------------------------------------- */

/* A run's summary metrics. Non-finite values are stored as NULL and read back as NAN. */
struct catalog_metrics {
    double mean_stp, mean_antt, mean_fairness, min_fairness;
    bool has_are; /* a predictor was active: mean_are and max_are are valid */
    double mean_are, max_are;
};

/* One row of `runs`. Strings are borrowed in catalog_add_run; see get and list for reads. */
struct catalog_run {
    int64_t id;                /* set by the catalog */
    const char *run_path;      /* the HDF5 run file; NULL when the run was not saved */
    const char *scenario_name; /* required */
    const char *scenario_path; /* NULL when the scenario did not come from a file */
    const char *gpu;           /* GPU preset; required */
    const char *mix;           /* kernel names joined by '+', e.g. "stream+compute"; required */
    const char *predictor;     /* NULL or "none": no predictor */
    const char *allocator;     /* required */
    uint64_t seed;
    unsigned epochs;
    uint64_t epoch_cycles;
    const char *created_utc;   /* NULL in catalog_add_run: now */
    const char *corun_version; /* NULL in catalog_add_run: this build's */
    struct catalog_metrics metrics;
};

/* Insert run; its id goes to *id_out (may be NULL). */
int catalog_add_run(struct catalog *cat, const struct catalog_run *run, int64_t *id_out, char *err,
                    size_t errlen);
/* Call fn for every run, oldest first, until it returns nonzero. The run's strings live only
 * during the call. */
int catalog_list_runs(struct catalog *cat, int (*fn)(const struct catalog_run *run, void *ctx),
                      void *ctx, char *err, size_t errlen);
/* Fill out with run id (heap strings: release with catalog_run_done); -1 when there is none. */
int catalog_get_run(struct catalog *cat, int64_t id, struct catalog_run *out, char *err,
                    size_t errlen);
void catalog_run_done(struct catalog_run *run);

/* ---- accelerator runs -------------------------------------------------------------------- */

/* One application of an accelerator run, as `corun run` summarizes it. NaN is stored as NULL
 * and read back as NAN. */
struct catalog_accel_app {
    const char *name;
    bool ls; /* latency-sensitive; else batch */
    unsigned instances;
    double qos_target;          /* LS: the p99 bound, a multiple of the solo p99 */
    double p99_ms, solo_p99_ms; /* LS */
    bool qos_met;               /* LS: p99_ms <= qos_target x solo_p99_ms */
    double pred_p99_ms;         /* LS: the predictor's (NaN: no predictor) */
    uint64_t passes;            /* batch: passes over its trace, every instance together */
};

/* One row of `accel_runs` with its rows of `accel_run_apps`. Strings and apps are borrowed in
 * catalog_add_accel_run; heap in a read (release with catalog_accel_run_done). */
struct catalog_accel_run {
    int64_t id;                /* set by the catalog: its own sequence, shown as aN */
    const char *run_path;      /* the HDF5 run file, absolute; NULL when not saved */
    const char *scenario_name; /* required */
    const char *scenario_path; /* NULL when the scenario did not come from a file */
    const char *gpu;           /* required */
    const char *predictor;     /* NULL or "none": no predictor */
    uint64_t seed;
    bool complete;           /* the run reached its end (else saved part way) */
    double sim_ms, gpu_util; /* simulated time; share of SM time busy */
    uint64_t tasks_done;
    const char *created_utc;   /* NULL in catalog_add_accel_run: now */
    const char *corun_version; /* NULL in catalog_add_accel_run: this build's */
    size_t napps;
    struct catalog_accel_app *apps;
};

/* Insert run and its applications (one transaction; the tables are made when first written,
 * so an older corun sharing the catalog ignores them); its id goes to *id_out (may be NULL). */
int catalog_add_accel_run(struct catalog *cat, const struct catalog_accel_run *run, int64_t *id_out,
                          char *err, size_t errlen);
/* Call fn for every accelerator run, oldest first, until it returns nonzero; the run lives only
 * during the call. None when no accelerator run was ever added. */
int catalog_list_accel_runs(struct catalog *cat,
                            int (*fn)(const struct catalog_accel_run *run, void *ctx), void *ctx,
                            char *err, size_t errlen);
/* Fill out with accelerator run id; -1 with a message when there is none. */
int catalog_get_accel_run(struct catalog *cat, int64_t id, struct catalog_accel_run *out, char *err,
                          size_t errlen);
void catalog_accel_run_done(struct catalog_accel_run *run);

/* ---- hand-written queries ---------------------------------------------------------------- */

/* Called once with values NULL to give the column names, then once per row; values[i] is NULL
 * for SQL NULL, a blob shows as "<N-byte blob>". Return nonzero to stop. */
typedef int (*catalog_row_fn)(void *ctx, size_t ncols, const char *const *names,
                              const char *const *values);

/* Run one read-only statement (the user's own SQL) on a read-only connection. A statement
 * that would write, several statements, or a syntax error fail with -1, one that runs longer
 * than the query limit (a recursive query may never end) with -2, each with a message quoting
 * sql. */
int catalog_query(struct catalog *cat, const char *sql, catalog_row_fn fn, void *ctx, char *err,
                  size_t errlen);

#define CATALOG_QUERY_LIMIT_S 30 /* default limit of catalog_query, in seconds */
/* How long catalog_query may run, in seconds (0: no limit). */
void catalog_set_query_limit(struct catalog *cat, unsigned seconds);

/* ---- private-mode traces ----------------------------------------------------------------- */

/* Store a trace (insts[i]: cumulative instructions at cycle i * SOLO_SAMPLE_CYCLES) under key;
 * like solo_cache_put it replaces a stored one only when it has more samples. kernel and gpu
 * are names kept for people reading the table (may be NULL). */
int catalog_put_solo_trace(struct catalog *cat, const struct solo_key *key, const char *kernel,
                           const char *gpu, const uint64_t *insts, size_t n, char *err,
                           size_t errlen);
/* The trace stored under key: *insts_out (heap, the caller frees) and *n_out, or NULL and 0
 * when none is stored with this build's SOLO_SAMPLE_CYCLES. */
int catalog_get_solo_trace(struct catalog *cat, const struct solo_key *key, uint64_t **insts_out,
                           size_t *n_out, char *err, size_t errlen);

/* ---- kernel library ---------------------------------------------------------------------- */

/* Insert or replace kernel p; source is "built-in" or the profile's file path. */
int catalog_put_kernel(struct catalog *cat, const struct kernel_profile *p, const char *source,
                       char *err, size_t errlen);
/* Read kernel name into out (release with kernel_profile_done) and, when source_out is not
 * NULL, its source (the caller frees); *found is false (and out empty) when it is not there. */
int catalog_get_kernel(struct catalog *cat, const char *name, struct kernel_profile *out,
                       char **source_out, bool *found, char *err, size_t errlen);

/* A kernel's measured solo characteristics on a GPU preset (from solo_characterize). */
struct catalog_measurement {
    const char *kernel; /* must be in the kernel library */
    const char *gpu;
    unsigned sms;
    double ipc, bandwidth_gbs, bandwidth_pct, rbh, mpki;
    const char *class_name;   /* the kernel's class, e.g. "memory"; NULL when unknown */
    const char *measured_utc; /* NULL: now */
};

/* Insert or replace the measurement of (kernel, gpu, sms). */
int catalog_put_measurement(struct catalog *cat, const struct catalog_measurement *m, char *err,
                            size_t errlen);

/* ---- sweeps ------------------------------------------------------------------------------ */

/* What identifies one experiment of a sweep. */
struct catalog_sweep_key {
    const char *suite;
    const char *mix;       /* the mix key, e.g. "stream+compute" */
    const char *predictor; /* NULL or "none": no predictor */
    const char *allocator;
    uint64_t seed;
    /* Everything else the result depends on, as the sweep words it (the preset, epochs and
     * cycles, corun's build and data); results stored under another are not this one's. */
    const char *config;
};

/* Check the sweep results' table and its indexes (SQLite's quick_check of them): 0, or -1 when
 * they are damaged, with a message naming the catalog. A damaged index answers "not stored"
 * for results that are, so a sweep asks before it looks items up, and runs nothing twice. */
int catalog_check_sweep_results(struct catalog *cat, char *err, size_t errlen);

/* *done: whether a result for key is stored already. */
int catalog_sweep_done(struct catalog *cat, const struct catalog_sweep_key *key, bool *done,
                       char *err, size_t errlen);
/* Store the result of key unless one is stored already (then nothing changes); *inserted (may
 * be NULL) tells which. run_id: the run in `runs`, or 0 when it was not recorded. */
int catalog_put_sweep_result(struct catalog *cat, const struct catalog_sweep_key *key,
                             int64_t run_id, const struct catalog_metrics *metrics, bool *inserted,
                             char *err, size_t errlen);

/* ---- finished reproduce runs ---------------------------------------------------------- */

/* The result stored under key (size bytes into out; *found false, and out untouched, when
 * there is none or it has another size). key must name everything the result depends on. */
int catalog_get_result(struct catalog *cat, const char *key, void *out, size_t size, bool *found,
                       char *err, size_t errlen);
/* Store size bytes of result under key, replacing what was there. */
int catalog_put_result(struct catalog *cat, const char *key, const void *result, size_t size,
                       char *err, size_t errlen);

/* ---- merging ----------------------------------------------------------------------------- */

/* What catalog_merge did. */
struct catalog_merged {
    unsigned long added;   /* sweep results copied */
    unsigned long present; /* sweep results this catalog held already, with the same values */
    unsigned long traces;  /* private-mode traces copied or lengthened */
    unsigned long runs;    /* finished reproduce runs copied */
    bool source_bad;       /* the failure was the file at path's: unreadable, not a corun catalog
                            * of this schema, or damaged (not this catalog's, nor a lock's) */
};

/* Copy into cat the sweep results of the catalog at path that cat lacks, its private-mode
 * traces (a longer one replaces a shorter one) and the finished reproduce runs that cat lacks,
 * in one transaction, so merging twice adds nothing and no result is ever stored twice.
 * Refused, with nothing changed, when path is not a corun catalog of this schema or holds a
 * sweep result whose key cat has with other values. */
int catalog_merge(struct catalog *cat, const char *path, struct catalog_merged *out, char *err,
                  size_t errlen);

#endif
