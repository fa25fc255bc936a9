/* accel_sim — an accelerator scenario's run (accel_run.h says what the task engine does),
 * stepped in spans of simulated time so that the workbench's worker thread can run it a piece
 * at a time, show it between pieces and stop it when asked. The first step also runs each LS
 * application alone (its solo latency). A step ends at the first turn of the engine's loop at
 * or after the time asked (a turn runs the core to the next copy completion or query arrival,
 * at most a million core cycles), so a run stepped is the run unstepped, turn for turn, and
 * its results are the same to the bit. Layer: app. */
#ifndef CORUN_ACCEL_SIM_H
#define CORUN_ACCEL_SIM_H

#include "corun/accel_run.h"

#include <stdbool.h>
#include <stddef.h>

struct accel_sim;

/* A run of sc (which must outlive it) with options o (copied; NULL: defaults), nothing
 * simulated yet. NULL with a message when the GPU cannot be built. */
struct accel_sim *accel_sim_new(const struct accel_scenario *sc, const struct accel_run_options *o,
                                char *err, size_t errlen);
void accel_sim_delete(struct accel_sim *s);
/* Runs ns more nanoseconds of the co-located run (INFINITY: to its end); the first call runs
 * the solo runs first. Returns 0 (more to run), 1 (the run has ended) or -1 with a message (a
 * kernel the core refuses, or o->cancel: the run is then fit only for deleting). */
int accel_sim_step(struct accel_sim *s, double ns, char *err, size_t errlen);
/* Whether the solo runs (the QoS targets' references) have ended. A step that o->stop ends
 * returns 0 and may leave them unended; the next step runs them again from the start. */
bool accel_sim_solo_done(const struct accel_sim *s);
bool accel_sim_finished(const struct accel_sim *s);
/* The co-located run's time, in nanoseconds. */
double accel_sim_now_ns(const struct accel_sim *s);
/* Whether the scenario has an LS application (a predictor has something to predict). */
bool accel_sim_has_ls(const struct accel_sim *s);
/* The result so far into r (release with accel_result_done): the queries completed, the
 * utilization and busy time up to now, every task completed (with o->record_tasks). Before
 * the solo runs have ended, each LS application's solo latencies are NaN (not measured). */
void accel_sim_result(const struct accel_sim *s, struct accel_result *r);
/* Fills r's pred_ fields with predictor's forecast of every LS query (the solo-run profiles
 * are measured on the first call and kept); pred_error is NaN while no query of the
 * application has been answered. Returns 0, or -1 with a message. */
int accel_sim_predict(struct accel_sim *s, int predictor, struct accel_result *r, char *err,
                      size_t errlen);

#endif
