/* accel_runfile — the HDF5 run file of an accelerator run: the scenario, the GPU preset, the
 * summary `corun run` prints (per-application latencies, utilization, the predictor's figures),
 * each LS query's latency and the predictor's forecast of it, and the task table (every task
 * completed: application, process, query or pass, kind, when it was issued, started and ended).
 * The file is written whole, once (at the end of a run, or when the workbench saves), under a
 * temporary name that is linked at its path only when complete. docs/runfile.md describes the
 * layout. Layer: io. */
#ifndef CORUN_ACCEL_RUNFILE_H
#define CORUN_ACCEL_RUNFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "corun/accel_scenario.h"
#include "corun/runfile.h"

#define ACCEL_RUNFILE_VERSION 1 /* readers refuse a file whose accel_schema_version is newer */

/* One task that completed. Times are nanoseconds of the co-located run. */
struct accel_task_rec {
    unsigned app;       /* the scenario's application index */
    unsigned proc;      /* the process (GPU stream): the LS application, or one batch instance */
    uint64_t pass;      /* LS: the query (0-based); batch: the instance's pass over its trace */
    unsigned task;      /* the task's index in its application's trace */
    int kind;           /* enum accel_task_type */
    unsigned exclusive; /* copies: 1 bandwidth-exclusive (pinned), 0 sharing */
    uint64_t bytes;     /* copies: bytes moved */
    double issued_ns;   /* submitted (a kernel launched on its stream, a copy to its link) */
    double start_ns;    /* a kernel: its first thread block on an SM; a copy: issued_ns */
    double end_ns;
    double sms;        /* a kernel: SM-cycles it held / cycles from start to end; copies NaN */
    double link_share; /* a copy: its rate (bytes / (end - issued)) over its kind's rate
                        * alone; kernels NaN */
};

/* One application's summary, as `corun run` prints it. */
struct accel_app_rec {
    char *name;
    unsigned role; /* enum accel_role */
    unsigned instances;
    unsigned queries; /* LS: completed */
    double qos_target;
    double p50_ms, p99_ms, mean_ms, solo_p50_ms, solo_p99_ms, solo_mean_ms;
    unsigned qos_met;
    uint64_t passes; /* batch */
    /* with a predictor (NaN without) */
    double pred_p50_ms, pred_p99_ms, pred_mean_ms, pred_solo_ms, pred_error;
    unsigned pred_qos_met;
};

/* One LS query: measured and forecast latency (NaN: not completed / no predictor). */
struct accel_query_rec {
    unsigned app, query;
    double latency_ms, predicted_ms;
};

struct accel_record {
    unsigned version;              /* set by the reader */
    char *corun_version, *created; /* NULL when writing: this build's, now */
    char *scenario_text, *scenario_path, *scenario_name, *gpu_preset;
    char *predictor; /* "none", "prophet", "sequential", ... */
    uint64_t seed;
    unsigned sms;
    double core_clock_mhz;
    unsigned complete; /* 1: the run reached its end; 0: saved part way */
    uint64_t cycles, solo_cycles, profile_cycles, tasks_done;
    double sim_ms, gpu_util, h2d_busy, d2h_busy;
    unsigned napps;
    struct accel_app_rec app[ACCEL_MAX_APPS];
    size_t nqueries;
    struct accel_query_rec *queries; /* heap, per application in query order */
    size_t ntasks;
    struct accel_task_rec *tasks; /* heap, in completion order */
};

extern const struct runfile_table accel_runfile_root_table;  /* attributes of / */
extern const struct runfile_table accel_runfile_app_table;   /* /applications, [apps] */
extern const struct runfile_table accel_runfile_query_table; /* /queries, [queries] */
extern const struct runfile_table accel_runfile_task_table;  /* /tasks, [tasks] */

/* Print the layout as Markdown (the accelerator section of docs/runfile.md). */
void accel_runfile_print_layout(FILE *out);

/* Write r to a new file at path (never replacing one). Returns 0, or -1 with a message naming
 * path. */
int accel_runfile_write(const char *path, const struct accel_record *r, char *err, size_t errlen);
/* 1 when path is an accelerator run file (an HDF5 file with the root attribute
 * accel_schema_version), else 0 (also when it cannot be read: runfile_open then says why). */
int accel_runfile_probe(const char *path);
/* Read the accelerator run file at path into r (release with accel_record_done). Returns 0,
 * or -1 with a message naming path and what is wrong (as runfile_open does for a spatial one:
 * missing, not HDF5, truncated, damaged, not an accelerator run file, newer version, values no
 * writer makes). */
int accel_runfile_read(const char *path, struct accel_record *r, char *err, size_t errlen);
/* Frees what r owns (also after a failed read) and zeroes it. */
void accel_record_done(struct accel_record *r);
/* Write r, read from the run file src, as CSV files in dir (made when missing; files there of
 * the same names refused or replaced, as runfile_export_csv does): run.csv (one row: the root
 * attributes but the scenario's text), applications.csv, queries.csv and tasks.csv (a row per
 * entry, the application's name first), units in the header row. Returns 0, -2 or -1 as
 * runfile_export_csv does. */
int accel_runfile_export_csv(const struct accel_record *r, const char *src, const char *dir,
                             bool replace, char *err, size_t errlen);

#endif
