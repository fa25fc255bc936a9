/* calibrate — kernel profiles measured alone on a GPU preset, classified by measurement, and
 * checked against the targets their files carry (paper, target_class, target_mpki).
 *
 * Class by measurement (the question HSM's classifier asks — would more SMs help? — answered
 * by running the kernel rather than by estimating its bandwidth demand): IPC on all N SMs and
 * on N/2 SMs give scaling = IPC(N) / (2 IPC(N/2)). A kernel whose IPC has stopped growing
 * (scaling < CALIBRATE_MEMORY_SCALING) is memory-bound; one that still scales is balanced when
 * it already uses CALIBRATE_BALANCED_BW_PCT % of the peak bandwidth on N SMs, else
 * compute-bound. Papers with two classes (HSM, SMQoS) compare memory against not-memory;
 * Themis compares all three.
 *
 * MPKI: the simulator counts warp instructions; the papers' MPKI (GPGPU-Sim's instruction
 * count) is per 1000 thread instructions, so with full warps paper MPKI = warp MPKI / 32. */
#ifndef CORUN_CALIBRATE_H
#define CORUN_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "corun/diag.h"
#include "corun/preset.h"
#include "corun/util.h"

#define CALIBRATE_MEMORY_SCALING   0.85
#define CALIBRATE_BALANCED_BW_PCT  15.0
#define CALIBRATE_THREADS_PER_WARP 32
#define CALIBRATE_MPKI_TOLERANCE   0.25 /* relative */
#define CALIBRATE_DEFAULT_CYCLES   50000
#define CALIBRATE_QUICK_CYCLES     20000

struct calib_measure {
    unsigned sms;         /* all of the preset's SMs */
    double ipc, ipc_half; /* on sms and on sms / 2 */
    double scaling;       /* ipc / (2 ipc_half) */
    double mpki_warp;     /* LLC misses per 1000 warp instructions, on all SMs */
    double mpki_thread;   /* the papers' convention: mpki_warp / 32 */
    double rbh, bandwidth_gbs, bandwidth_pct, l2_miss_rate;
    int measured_class; /* enum kernel_class */
};

/* Names of the choice values (enum kernel_paper, kernel_class, kernel_split). */
const char *calibrate_paper_name(int paper);
const char *calibrate_class_name(int cls);
const char *calibrate_split_name(int split);

/* The GPU preset the paper of p set its targets on ("hbm80" for HSM, "themis60", "smqos24"),
 * or NULL when p has no paper with targets. */
const char *calibrate_target_gpu(const struct kernel_profile *p);

/* The class for a measured scaling and bandwidth share (see above). */
int calibrate_classify(double scaling, double bandwidth_pct);

/* Whether measured class matches target for p's paper (2 or 3 classes, see above); true when
 * there is no target. */
bool calibrate_class_matches(const struct kernel_profile *p, int measured);

/* The all-SM half of calibrate_measure: p alone on every SM of cfg for `cycles` after a
 * warm-up (scaling, ipc_half and measured_class stay 0). Returns 0, or -1 with a message. */
int calibrate_measure_all_sms(const struct gpu_config *cfg, const struct kernel_profile *p,
                              uint64_t cycles, uint64_t seed, struct calib_measure *out, char *err,
                              size_t errlen);
/* Measure p alone on all of cfg's SMs and on half of them, each for `cycles` after a warm-up,
 * telling progress (may be NULL) how much of the two runs is done. Returns 0, or -1 with a
 * message in err. */
int calibrate_measure(const struct gpu_config *cfg, const struct kernel_profile *p, uint64_t cycles,
                      uint64_t seed, util_progress_fn progress, void *ctx,
                      struct calib_measure *out, char *err, size_t errlen);

struct calib_row {
    char *kernel;
    int paper, target_class, split;
    double target_mpki; /* 0: none */
    double mpki_error;  /* (measured - target) / target; 0 without a target */
    bool mpki_ok, class_ok;
    struct calib_measure m;
};

struct calib_report {
    char *gpu;
    uint64_t cycles;
    struct calib_row *rows;
    size_t count;
    size_t failures; /* rows with a class or MPKI out of tolerance */
};

/* Called before each kernel is measured (done of total so far) and once at the end. */
typedef void (*calib_progress_fn)(void *user, const char *kernel, size_t done, size_t total);

/* Re-measure every profile in DATADIR whose targets were set on gpu (only the names in only,
 * when n_only > 0) for `cycles` each. Unknown names, a bad preset or a broken profile go to
 * diags and return -1; a measured drift is not an error (see report->failures). Release with
 * calibrate_report_done. */
int calibrate_run(const char *datadir, const char *gpu, uint64_t cycles, const char *const *only,
                  size_t n_only, calib_progress_fn progress, void *user,
                  struct calib_report *report, struct diag *diags);
/* What calibrate_run checks before it measures (the preset, the names, the profiles): 0, or -1
 * with the same messages in diags. */
int calibrate_check(const char *datadir, const char *gpu, const char *const *only, size_t n_only,
                    struct diag *diags);
void calibrate_report_done(struct calib_report *r);

/* Store what r measured in the catalog at catalog_path (NULL: the default catalog): each
 * profile in the kernel library (its source: DATADIR/data/kernels/NAME.cfg, or "built-in")
 * and its measurement on all of r->gpu's SMs. Returns the number of kernels stored, or -1 with
 * a message in err when the catalog cannot be opened or a profile or write fails (the rows
 * before it stay stored). */
int calibrate_record(const char *datadir, const struct calib_report *r, const char *catalog_path,
                     char *err, size_t errlen);

#endif
