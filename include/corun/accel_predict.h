/* accel_predict — Prophet's inputs measured on the simulation core, and its predictions of an
 * accelerator scenario's LS latencies (Prophet §3.2, Table 1).
 *
 * A solo-run profile has, per application, each task's duration alone: a copy's on the link
 * alone, a kernel's as one grid alone on the shared-dispatch core. A kernel also has its warps
 * (TBs x warps per TB), its theoretical occupancy (resident warps per SM / the SM's warps)
 * and the DRAM bandwidth one SM of it asks for, measured as Prophet does with a small input
 * that cannot saturate the memory: the kernel on a 2-SM copy of the GPU (same memory system),
 * two full rounds of TBs per SM. The hardware side is the preset's SM count and warps per SM,
 * and the effective bandwidth a streaming kernel reaches alone on every SM.
 *
 * Predictions replay those profiles with prophet_schedule (the concurrent task execution and
 * data transfer models) or prophet_schedule_sequential (eq. 1), each LS query submitted at
 * its arrival (accel_arrivals: the same draws as the engine's) and batch instances looping.
 * Layer: app. */
#ifndef CORUN_ACCEL_PREDICT_H
#define CORUN_ACCEL_PREDICT_H

#include "corun/accel_bubble.h"
#include "corun/accel_scenario.h"
#include "corun/prophet_schedule.h"

#include <stddef.h>
#include <stdint.h>

enum accel_predictor {
    ACCEL_PREDICT_NONE,
    ACCEL_PREDICT_PROPHET,
    ACCEL_PREDICT_SEQUENTIAL,
    ACCEL_PREDICT_BUBBLE,       /* the PCIe bubble (accel_bubble.h) */
    ACCEL_PREDICT_PROPHET_EVEN, /* prophet with the link split evenly (prophet_bs_submit_even) */
    ACCEL_PREDICTORS
};

/* The predictor called name ("prophet", "sequential", "bubble", "prophet-even"), or -1. */
int accel_predictor_find(const char *name);
const char *accel_predictor_name(int predictor);
/* One line on what predictor (1 .. ACCEL_PREDICTORS - 1) is, for `corun help predictors`. */
const char *accel_predictor_summary(int predictor);

struct accel_profiles {
    struct prophet_hw hw;
    unsigned napps;                             /* the scenario's applications */
    struct prophet_task *tasks[ACCEL_MAX_APPS]; /* [app][task], heap */
    unsigned ntasks[ACCEL_MAX_APPS];
    double solo_ns[ACCEL_MAX_APPS]; /* a pass alone: the sum of its tasks' */
    uint64_t cycles;                /* core cycles the profiling simulated */
    struct accel_bubble *bubble;    /* the bubble's measurements, heap; NULL unless asked */
};

/* Measures the solo-run profile of every application of sc on its GPU. Returns 0, or -1
 * with a message (a kernel the core refuses). Release with accel_profiles_done. */
int accel_profile(const struct accel_scenario *sc, struct accel_profiles *out, char *err,
                  size_t errlen);
/* The same, plus what predictor needs beyond them (the bubble's curves and pressures, whose
 * runs stop ends: -1 with a message). */
int accel_profile_for(const struct accel_scenario *sc, int predictor, struct accel_profiles *out,
                      accel_stop_fn stop, char *err, size_t errlen);
void accel_profiles_done(struct accel_profiles *p);

/* 0 when every application of sc starts at time 0, as the predictors model them; -1 with a
 * message naming the setting (warmup_ms, an application's stagger_ms) when one does not. */
int accel_common_start(const struct accel_scenario *sc, char *err, size_t errlen);

/* The measurements accel_profile makes (each kernel alone, the effective bandwidth) are
 * deterministic in the GPU configuration, the kernel and the seed; a memo keeps them by those,
 * so that a study profiling the same applications again and again measures each once. */
struct accel_memo;
struct accel_memo *accel_memo_new(void);
void accel_memo_delete(struct accel_memo *m);
/* accel_profile, taking what memo holds and adding what it measures to it (memo NULL: none).
 * out->cycles counts only the cycles simulated by this call. */
int accel_profile_memo(const struct accel_scenario *sc, struct accel_memo *memo,
                       struct accel_profiles *out, char *err, size_t errlen);
/* accel_profile_for with the memo: the bubble's measurements too are kept in it
 * (accel_bubble_measure_memo), under what they depend on. */
int accel_profile_for_memo(const struct accel_scenario *sc, int predictor, struct accel_memo *memo,
                           struct accel_profiles *out, accel_stop_fn stop, char *err,
                           size_t errlen);

/* The arrival times (ns) of n queries of LS application app of sc: Poisson draws from the
 * scenario's seed at its rate, or all 0 in a closed loop (each when the last completes). */
void accel_arrivals(const struct accel_scenario *sc, unsigned app, unsigned n, double *out);

/* Predicts with predictor every LS application's query latencies (ms) in sc run as a whole:
 * lat_ms[app] gets sc->apps[app].queries values (LS applications only; others untouched).
 * The bubble needs p from accel_profile_for. */
void accel_predict(const struct accel_scenario *sc, const struct accel_profiles *p, int predictor,
                   double *lat_ms[ACCEL_MAX_APPS]);

/* The p99 (ms) predictor gives LS application app of sc alone under its arrivals (the
 * reference of its QoS target, as accel_run measures it). */
double accel_predict_alone_p99(const struct accel_scenario *sc, const struct accel_profiles *p,
                               int predictor, unsigned app);

#endif
