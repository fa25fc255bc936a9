/* session_plot — a session's epochs as the arrays `corun plot` draws (struct plot_data). */
#ifndef CORUN_SESSION_PLOT_H
#define CORUN_SESSION_PLOT_H

#include "corun/plot.h"
#include "corun/session.h"

/* The arrays behind a struct plot_data, owned here. */
struct session_plot {
    struct plot_data d;
    double *block; /* np_true and np_pred per kernel, then fairness and STP: [nepochs] each */
    int *owner;    /* [nepochs x sms] */
};

/* Fill p from r's epochs (a live session or a replay): per epoch and kernel its true NP and
 * the predictor's, NaN where the kernel was not in the mix or no predictor ran; the system's
 * fairness and STP, NaN where the epoch has no metrics; the SM owners, GPU_SM_IDLE past an
 * epoch's SMs. The kernels are the last epoch's. Returns 0, or -1 when r has no epochs (p is
 * then empty and session_plot_done may still be called). */
int session_plot_fill(const struct session *r, struct session_plot *p);
void session_plot_done(struct session_plot *p);

#endif
