/* prophet_schedule — Prophet's schedule predictor (§3.2, §6): it replays the solo-run traces of
 * co-located applications, each task submitted when its application's previous task ends
 * (the ready-time table), kernels on the concurrent task execution model and copies on the
 * data transfer model of prophet_model.h, and says when each pass over each trace ends.
 *
 * How corun puts the equations together (the paper describes the pieces, not one algorithm):
 *  - kernels: PEs go first come, first served to the oldest task with warps left; a task's
 *    batch takes the PEs its warps fill (prophet_batch_pes) and lasts its eq. 2 time scaled by
 *    eq. 3's slowdown, which is re-evaluated whenever the set of running batches changes (eq.
 *    5's update of the active tasks, in rate form);
 *  - copies, per direction: a sharing copy joins the sharing ones with eqs. 6–8 when it may
 *    move; an exclusive copy waits for the exclusive ones before it (eq. 9), and when it moves
 *    every sharing copy in flight ends its duration later (§5.2.3); a sharing copy submitted
 *    while exclusive ones move or wait starts when they are done (eq. 9). */
#ifndef CORUN_PROPHET_SCHEDULE_H
#define CORUN_PROPHET_SCHEDULE_H

#include <stddef.h>

#include "corun/prophet_model.h"

enum prophet_task_type { PROPHET_H2D, PROPHET_KERNEL, PROPHET_D2H };

/* One task of a solo-run profile. */
struct prophet_task {
    int type;       /* enum prophet_task_type */
    double solo_ns; /* copies: duration alone (kernels: kernel.solo_ns) */
    int exclusive;  /* copies: bandwidth-exclusive (pinned) */
    struct prophet_kernel kernel;
};

struct prophet_app {
    const struct prophet_task *tasks;
    size_t ntasks;
    double start_ns;     /* its entry in the ready-time table at the start */
    unsigned passes;     /* passes over the trace to predict; 0: loop until the others are done */
    double *pass_end_ns; /* [passes]: filled with when each pass ends (unused when looping) */
    /* [passes] or NULL: pass i is submitted no earlier than pass_arrival_ns[i] (an LS
     * query's arrival), nor before pass i - 1 ends */
    const double *pass_arrival_ns;
};

/* Predict apps[0..napps) together on hw. At least one app must have passes > 0. Returns the
 * time the last counted pass ends. */
double prophet_schedule(const struct prophet_hw *hw, struct prophet_app *apps, size_t napps);
/* The same replay on the sequential task execution model (eq. 1, the baseline of Prophet
 * §7.2): one kernel at a time on the whole GPU for its solo duration, in submission order,
 * and per direction one copy at a time for its solo duration, in submission order. */
double prophet_schedule_sequential(const struct prophet_hw *hw, struct prophet_app *apps,
                                   size_t napps);

#endif
