/* gpu_sets — `--set gpu.SETTING=VALUE` for the commands that run many mixes (reproduce,
 * sweep, rbh-shift): GPU settings changed for every mix, as `corun run --set` changes them for
 * one scenario. Only the GPU's: these commands set their own epochs, seeds, splits and policies,
 * and their SM count comes from a preset (a suite's splits are written for it). */
#ifndef CORUN_GPU_SETS_H
#define CORUN_GPU_SETS_H

#include <stddef.h>

#define GPU_MAX_SETS 16
/* The assignments' characters together, separators included, at most: a description of them
 * (gpu_sets_describe, with a prefix of up to 16 characters each) fits in 1024 bytes. */
#define GPU_SETS_TEXT_MAX 700

/* The assignments, in the order given; the strings are the caller's. */
struct gpu_sets {
    const char *v[GPU_MAX_SETS];
    unsigned n;
};

struct scenario;

/* Adds one assignment: a GPU setting other than gpu.sms, on one line, within the limits above.
 * 0, or -1 with a message in err. */
int gpu_sets_add(struct gpu_sets *s, const char *assignment, char *err, size_t errlen);
/* Whether every setting applies to preset gpu and leaves a valid GPU: 0, or -1 with the first
 * message in err. s may be NULL (nothing to check). */
int gpu_sets_check(const struct gpu_sets *s, const char *datadir, const char *gpu, char *err,
                   size_t errlen);
/* Applies the settings to preset gpu's configuration cfg, in order, and checks the GPU they
 * leave (gpu_config_check). 0, or -1 with the first message in err. s may be NULL. */
struct gpu_config;
int gpu_sets_apply_gpu(const struct gpu_sets *s, struct gpu_config *cfg, const char *gpu, char *err,
                       size_t errlen);
/* Applies the settings to a mix's scenario's GPU, in order (what scenario_set, run's --set,
 * does with a GPU setting). 0, or -1 with a message in err. s may be NULL. */
int gpu_sets_apply(const struct gpu_sets *s, struct scenario *sc, char *err, size_t errlen);
/* The settings into out, the first after prefix and the others after sep ("" when none). */
void gpu_sets_describe(const struct gpu_sets *s, const char *prefix, const char *sep, char *out,
                       size_t len);

#endif
