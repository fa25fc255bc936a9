/* tui — the ncurses workbench. */
#ifndef CORUN_TUI_H
#define CORUN_TUI_H

#include <stdbool.h>

#include "corun/lesson.h"
#include "corun/session.h"

struct tui_options {
    const char *datadir;         /* for the run files opened with o */
    bool projector;              /* --theme projector: high contrast, a larger chart */
    const struct lesson *lesson; /* a lesson to teach on s (its scenario's session), or NULL */
    const char *catalog; /* where saves get their rows and the trace cache is; NULL: default */
};

/* Run the workbench on s (live, or a replay from session_replay) until the user quits. It owns
 * s from now on, may replace it (o opens a run file, b branches a replay) and deletes whichever
 * it holds at the end. Returns 0, or -1 when the terminal cannot be initialised (a message is
 * printed). */
int tui_main(struct session *s, const struct tui_options *opt);

struct accel_scenario;
struct accel_record;

/* The accelerator view on a live run of sc (an accelerator scenario, which must outlive the
 * call): the timeline of tasks, the LS latencies against their targets beside the predictor's
 * forecast, the utilization; a worker thread steps the run. Returns 0, or -1 when the run or
 * the terminal cannot be set up (a message is printed before the screen starts). */
int tui_accel_main(const struct accel_scenario *sc, const struct tui_options *opt);
/* The accelerator view on rec, read from the run file at path (taken over: rec is left
 * empty). Returns 0, or -1 when the terminal cannot be initialised. */
int tui_accel_replay(struct accel_record *rec, const char *path, const struct tui_options *opt);

#endif
