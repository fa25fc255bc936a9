/* accel_scenario — an accelerator scenario (mode = "accelerator"): applications that share a
 * non-preemptive GPU as streams of tasks (Prophet §3–6). Each application is a trace of tasks
 * run in FIFO order: host-to-device copies, kernels and device-to-host copies. A
 * latency-sensitive (LS) application issues queries, each one pass over its trace, closed
 * loop or with Poisson arrivals, and has a QoS target; a batch application runs its trace
 * again and again. Traces come from application profiles (data/apps/NAME.cfg, in the same
 * format as an inline `tasks` list). Every setting is described by the tables below. */
#ifndef CORUN_ACCEL_SCENARIO_H
#define CORUN_ACCEL_SCENARIO_H

#include <stdint.h>

#include "corun/conftable.h"
#include "corun/diag.h"
#include "corun/gpu.h"
#include "corun/kernel.h"

#define ACCEL_MAX_TASKS 32
#define ACCEL_MAX_APPS  16 /* MPS serves at most 16 client processes (Prophet §7.3) */

enum accel_task_type { ACCEL_H2D, ACCEL_KERNEL, ACCEL_D2H };
enum accel_copy { ACCEL_COPY_SHARED, ACCEL_COPY_EXCLUSIVE }; /* pageable (BS) or pinned (BE) */
enum accel_role { ACCEL_LS, ACCEL_BATCH };
enum accel_arrival { ACCEL_CLOSED, ACCEL_POISSON };

struct accel_task {
    int type;                     /* enum accel_task_type */
    uint64_t bytes;               /* copies */
    int copy;                     /* copies: enum accel_copy */
    struct kernel_profile kernel; /* kernels: a library kernel or an inline profile */
};

/* An application's trace: a profile file's or a scenario entry's own. */
struct accel_trace {
    char *description;
    char *source; /* where its numbers come from */
    unsigned ntasks;
    struct accel_task *tasks; /* ntasks of them, heap */
};

struct accel_app {
    char *name;         /* data/apps/NAME.cfg unless the entry lists its own tasks */
    int role;           /* enum accel_role */
    unsigned instances; /* batch: copies of it that run side by side */
    double stagger_ms;  /* batch: instance j of the n starts its first pass j x this / n late */
    int arrival;        /* LS: enum accel_arrival */
    double rate_qps;    /* LS, Poisson: mean queries per second */
    unsigned queries;   /* LS: queries measured */
    double qos_target;  /* LS: p99 latency bound as a multiple of the solo p99 (0: unset) */
    struct accel_trace trace;
};

struct accel_scenario {
    char *path, *text; /* as given; the file's whole text */
    char *name, *description, *gpu_name;
    struct gpu_config gpu;
    uint64_t seed;
    double warmup_ms; /* the LS queries arrive this much later beside batch applications */
    unsigned napps;
    struct accel_app apps[ACCEL_MAX_APPS];
};

extern const struct conf_table accel_scenario_table;
extern const struct conf_table accel_app_table;

/* Seconds of GPU time above which an LS application's Poisson arrivals make a long simulation
 * (the shipped scenarios span under 1 s): the idle time between queries is jumped over, but a
 * batch application keeps the GPU working through the span (a busy second of k40 time, about
 * 745 M cycles, is some ten minutes of one core), so the bound is lower beside one. */
#define ACCEL_LONG_SPAN_S      10.0
#define ACCEL_LONG_BUSY_SPAN_S 1.0
/* The longest expected span of an LS application's Poisson arrivals, queries / rate_qps, in
 * seconds of GPU time, and its application's index in *app (0 when there is none). */
double accel_scenario_arrival_span(const struct accel_scenario *sc, unsigned *app);
extern const struct conf_table accel_task_table;

/* 1 when the libconfig file at path says mode = "accelerator", 0 when it does not, -1 when it
 * cannot be read or parsed (scenario_load then gives the message). */
int accel_scenario_probe(const char *path);
/* Load and validate path, resolving the GPU preset, application profiles and kernels under
 * datadir. Each mistake goes to diags as "FILE:LINE: SETTING: what was expected". Returns 0,
 * or -1 (sc then holds nothing). Release with accel_scenario_done either way. */
int accel_scenario_load(struct accel_scenario *sc, const char *path, const char *datadir,
                        struct diag *diags);
int accel_scenario_load_text(struct accel_scenario *sc, const char *name, const char *text,
                             const char *datadir, struct diag *diags);
void accel_scenario_done(struct accel_scenario *sc);
/* Load application profile data/apps/NAME.cfg into t (release with accel_trace_done).
 * Returns 0, or -1 with diags. */
int accel_trace_load(const char *datadir, const char *name, struct accel_trace *t,
                     struct diag *diags);
/* The same from the application profile at path, wherever it is, named name. */
int accel_trace_load_path(const char *path, const char *name, const char *datadir,
                          struct accel_trace *t, struct diag *diags);
void accel_trace_done(struct accel_trace *t);
/* Whether each kernel task of t, loaded from the application profile at path, fits an SM of
 * gpu (named gpu_name): a message per kernel that does not, "PATH:LINE: tasks[K].kernel: on
 * GPU NAME: ...", with the line of the setting the refusal names, else of the task's kernel.
 * Returns how many do not fit. */
unsigned accel_trace_check_gpu(const char *path, const struct accel_trace *t,
                               const struct gpu_config *gpu, const char *gpu_name,
                               struct diag *diags);

#endif
