/* tui_accel — the workbench's accelerator view (tui_accel.c: the loop, layout and keys;
 * tui_accel_worker.c: the thread that steps the run; view_accel*.c: the panels). An
 * accelerator scenario has no epochs of a partition, so it has its own screen: a timeline of
 * tasks per process, each LS application's latencies against its QoS target beside the
 * predictor's forecast, and the GPU's and the link's busy time. Live, the worker steps an
 * accel_sim and publishes the run so far as an accel_record (what a run file holds); a replay
 * shows a record read from a run file. Views only read that record. Layer: tui. */
#ifndef CORUN_TUI_ACCEL_H
#define CORUN_TUI_ACCEL_H

#include <stdbool.h>

#include "corun/accel_runfile.h"
#include "corun/accel_scenario.h"
#include "corun/accel_sim.h"
#include "tui_internal.h"

/* ---- the worker (tui_accel_worker.c) ---- */

struct tui_accel_status {
    bool running;    /* stepping by itself until the run ends */
    bool busy;       /* a step or a prediction is computing */
    bool stepping;   /* a step is computing */
    bool finished;   /* the run has ended */
    unsigned steps;  /* steps done */
    unsigned queued; /* single steps waiting */
    int predictor;   /* enum accel_predictor of the snapshots from now on */
    /* The first step measures each LS application alone first: the one being measured (its
     * index among the record's applications), its queries done and to do; solo_total is 0
     * until the first of them begins. */
    unsigned solo_app, solo_done, solo_total;
    char error[512];  /* why the run stopped, or "" */
    char notice[512]; /* a forecast that failed (the run goes on without it), or "": taken
                       * once, then the status line's note until a key makes another */
};

struct tui_accel_worker;

/* Starts the thread on sim (a run of sc, made with record_tasks and the worker's cancel flag:
 * tui_accel_worker_cancel_flag), which it owns from now on; steps are step_ns of simulated
 * time. It publishes a first snapshot at once. */
struct tui_accel_worker *tui_accel_worker_start(const struct accel_scenario *sc, double step_ns,
                                                int predictor, char *err, size_t errlen);
/* Stops a step in flight at its next turn, joins the thread, deletes the run and frees w. */
void tui_accel_worker_stop(struct tui_accel_worker *w);
/* Queues one step. */
void tui_accel_worker_step(struct tui_accel_worker *w);
/* Runs step after step until the run ends (on) or stops after the step in flight (off). */
void tui_accel_worker_run(struct tui_accel_worker *w, bool on);
/* Makes predictor (enum accel_predictor) the one whose forecast the snapshots carry; a new
 * snapshot follows (the first prediction measures the profiles: a second or so). */
void tui_accel_worker_set_predictor(struct tui_accel_worker *w, int predictor);
/* Moves the newest snapshot published since the last call into *rec (freeing what rec held)
 * and returns true; false when there is none. Fills st either way. */
bool tui_accel_worker_take(struct tui_accel_worker *w, struct accel_record *rec,
                           struct tui_accel_status *st);

/* ---- the screen's state ---- */

enum tui_accel_win { TA_HEADER, TA_TIMELINE, TA_LATENCY, TA_SYSTEM, TA_STATUS, TA_COUNT };

struct tui_accel {
    struct tui_style style;
    bool live;
    struct tui_accel_worker *worker; /* live */
    struct tui_accel_status st;
    struct accel_record rec;   /* the run shown: live, as last published; replay, as read */
    char path[TUI_PROMPT_MAX]; /* replay: the run file; live: the last file saved, or "" */
    unsigned saved_steps;      /* live: the steps the last save held */
    bool saved_uncataloged;    /* live: the last save's catalog failed (said again on quit) */
    const char *catalog;       /* live: where a save gets its row; NULL: the default catalog */
    /* The timeline's window: span_ns wide, ending at the run's time (follow) or at end_ns. */
    double span_ns, end_ns;
    bool follow;
    bool help;                       /* the help overlay is open */
    bool prompting;                  /* the save prompt is open */
    char prompt[TUI_PROMPT_MAX];     /* its text */
    char note[TUI_PROMPT_MAX + 160]; /* the status line: what the last action did */
    bool note_is_state; /* the last action stepped, ran or paused: the line follows the run */
    bool too_small;
    WINDOW *frame[TA_COUNT], *inner[TA_COUNT];
};

/* The run's time shown: the simulated time of the record, in ns. */
double tui_accel_now_ns(const struct tui_accel *t);
/* The label of process p's row ("gmm", "md#2") into buf; the application it belongs to, or -1
 * beyond the record's processes. */
int tui_accel_proc(const struct tui_accel *t, unsigned p, char *buf, size_t n);
/* Processes in the record: every LS application and every batch instance. */
unsigned tui_accel_nprocs(const struct tui_accel *t);

/* ---- the panels (view_accel.c, view_accel_lat.c) ---- */

void view_accel_timeline(const struct tui_accel *t, WINDOW *w);
void view_accel_latency(const struct tui_accel *t, WINDOW *w);
void view_accel_system(const struct tui_accel *t, WINDOW *w);
/* Rows the latency panel wants: 5 per LS application. */
int view_accel_latency_rows(const struct tui_accel *t);

/* ---- help (tui_help.c) ---- */

struct tui_accel_key {
    const char *label, *bar, *help; /* bar: its word in the key bar */
    bool live, replay;              /* the modes it works in */
};
/* The accelerator view's help overlay in w: the keys of the mode, then what the panels mean. */
void tui_help_accel_draw(const struct tui_style *st, WINDOW *w, const struct tui_accel_key *keys,
                         size_t nkeys, bool live);
/* Rows the help overlay needs in an interior cols wide (its texts wrap). */
int tui_help_accel_rows(const struct tui_accel_key *keys, size_t nkeys, bool live, int cols);

#endif
