/* plot — pictures of a run for slides: NP history (true and predicted per kernel), fairness
 * and STP, and the SM partition over the epochs, drawn with cairo into an SVG or PNG file.
 * The caller hands plain arrays (cmd_plot reads them from a run file). */
#ifndef CORUN_PLOT_H
#define CORUN_PLOT_H

#include <stddef.h>

#include "corun/accel_runfile.h"
#include "corun/gpu.h"

struct plot_data {
    const char *title; /* the scenario's name */
    unsigned nepochs;  /* >= 1 */
    unsigned nkernels; /* 1 to GPU_MAX_KERNELS */
    const char *name[GPU_MAX_KERNELS];
    /* [nepochs] each; NaN where there is no value (a kernel not in the mix, no prediction). */
    const double *np_true[GPU_MAX_KERNELS], *np_pred[GPU_MAX_KERNELS];
    const double *fairness, *stp;
    unsigned sms;
    const int *owner; /* [nepochs x sms]: kernel index, or negative (idle, gated) */
};

/* Draw d into path, an SVG or a PNG by its extension (.svg, .png), width x height pixels.
 * A picture there is replaced only once the new one is whole. Returns 0; -2 with a message
 * naming path for what the caller asked (another extension, a size out of 200 to 10000, a
 * directory or a symbolic link at path, a file or directory that cannot be written); -1 with
 * one for a failure while writing (a full disk). */
int plot_write(const struct plot_data *d, const char *path, unsigned width, unsigned height,
               char *err, size_t errlen);

/* An accelerator run r drawn into path as plot_write does: a timeline of its tasks (one row per
 * process, kernels solid, copies light) and its LS queries' latencies against the QoS bound.
 * -2 with a message also for a run without tasks. */
int plot_accel_write(const struct accel_record *r, const char *path, unsigned width,
                     unsigned height, char *err, size_t errlen);

#endif
