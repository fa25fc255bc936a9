/* predict — slowdown predictors (docs/design.md §4): each is a const table of function pointers,
 * and predict_registry.c lists them all in one array.
 *
 * A predictor turns one epoch's counters — only what a real GPU could count
 * (struct gpu_kernel_counters) plus architectural facts — into a predicted normalized
 * progress NP̂ per kernel. Only a predictor with needs_private set (the oracle) is handed the
 * private-mode truth; it is labelled as such wherever it is listed. */
#ifndef CORUN_PREDICT_H
#define CORUN_PREDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "corun/gpu.h"

/* Architectural facts a predictor may use (fixed for a session). */
struct predict_gpu {
    const char *preset;         /* GPU preset name, for messages */
    unsigned sms;               /* sigma: every SM, as in private mode */
    unsigned schedulers_per_sm; /* warp instructions an SM can issue per cycle */
    double core_clock_mhz;      /* f */
    double peak_gbs;            /* B_max */
    unsigned request_bytes;     /* one DRAM request's size (HSM's ReqSize) */
    double dram_clock_mhz;      /* memory clock: DRAM counters count its cycles */
};

/* Coefficients from a trained model file (docs/design.md §7: data/models/MODEL-PRESET.cfg). The
 * session loads the file through io and hands the values over, so predictors never read files. */
#define PREDICT_MAX_COEFS 8
struct predict_model {
    const char *path; /* where they came from, for explain */
    double coef[PREDICT_MAX_COEFS];
    unsigned ncoef;
    /* A network (themis), too big for coef: layer widths, inputs first, and one flat array:
     * input mean [layers[0]], input scale [layers[0]], then the parameters in mlp.h's order.
     * Borrowed for the call to create only (a predictor copies what it keeps); NULL/0 else. */
    const unsigned *layers;
    unsigned nlayers;
    const double *weights;
    size_t nweights;
};

/* One epoch, as the predictor sees it. */
struct predict_input {
    uint64_t epoch_cycles; /* E */
    unsigned nkernels;
    const struct gpu_kernel_counters *c; /* [nkernels] */
    const double *np_private;            /* [nkernels] true NP; only for needs_private, else NULL */
};

struct predict_output {
    double np[GPU_MAX_KERNELS]; /* NP̂; NaN when the model cannot say */
    int cls[GPU_MAX_KERNELS];   /* enum kernel_class, KERNEL_CLASS_NONE without a classifier */
    /* NP̂ is an extrapolation: some input lies far outside the model's training range (Themis:
     * more than THEMIS_FAR_Z standard deviations from its training mean). Callers set it
     * false; models without a training range leave it so. */
    bool far[GPU_MAX_KERNELS];
};

#define PREDICT_EXPLAIN_LINES 16
#define PREDICT_EXPLAIN_WIDTH 96
/* What explain shows: the inputs and intermediate values, one line each. */
struct predict_text {
    unsigned n;
    char line[PREDICT_EXPLAIN_LINES][PREDICT_EXPLAIN_WIDTH];
};

struct predictor_ops {
    const char *name;    /* as in scenarios and --predictor */
    const char *summary; /* one line for menus and help */
    bool needs_private;  /* reads the private-mode truth: simulation only */
    const char *model;   /* stem of its model files ("hsm": hsm-PRESET.cfg), NULL: none */
    /* ASM's priority epochs: while this predictor is active the session runs the GPU with
     * gpu_set_priority_epochs(this many core cycles), which fills the counters' prio_* fields
     * (and, being a scheduling change, alters the run it measures). 0: none. */
    uint64_t priority_epoch_cycles;
    /* It knows its training range and sets predict_output.far where it leaves it. */
    bool flags_far;
    /* State for gpu (model: the model file's coefficients, NULL when model is NULL). NULL with
     * a message in err when the coefficients cannot be used. */
    void *(*create)(const struct predict_gpu *gpu, const struct predict_model *model, char *err,
                    size_t errlen);
    void (*destroy)(void *state);
    /* NP̂ (and class) of every kernel for the epoch in; state remembers it for np_at/explain. */
    void (*predict)(void *state, const struct predict_input *in, struct predict_output *out);
    /* What-if: kernel k's NP on sms SMs, from the last epoch predicted; NaN before one. NULL
     * when the model has no what-if. */
    double (*np_at)(const void *state, unsigned k, double sms);
    /* Kernel k's inputs and intermediate values in the last epoch predicted. */
    void (*explain)(const void *state, unsigned k, struct predict_text *out);
};

/* Appends a printf-formatted line to t (dropped when t is full). */
void predict_text_add(struct predict_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- the registry (predict_registry.c) ---- */

extern const struct predictor_ops predictor_oracle;
extern const struct predictor_ops predictor_hsm;
extern const struct predictor_ops predictor_dase;
extern const struct predictor_ops predictor_asm;
extern const struct predictor_ops predictor_themis;

/* Number of registered predictors. */
size_t predict_registry_count(void);
/* The i-th registered predictor, or NULL past the end. */
const struct predictor_ops *predict_registry_at(size_t i);
/* The predictor called name, or NULL. */
const struct predictor_ops *predict_registry_find(const char *name);
/* Fills names[0..min(n, count)) with the registered names; returns the count. */
size_t predict_registry_names(const char **names, size_t n);

#endif
