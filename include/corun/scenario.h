/* scenario — a scenario file (under scenarios/): the GPU preset and its overrides, the mix of
 * kernels with their priorities, QoS targets and weights, the epoch length, run length, seed
 * and an optional lesson text. Every setting is described by scenario_table. */
#ifndef CORUN_SCENARIO_H
#define CORUN_SCENARIO_H

#include <stdint.h>

#include "corun/conftable.h"
#include "corun/diag.h"
#include "corun/gpu.h"
#include "corun/kernel.h"

#define SCENARIO_MAX_KERNELS 8
/* A kernel's name, in bytes with the NUL: what a run file keeps (RUNFILE_NAME_MAX), so that a
 * scenario check takes is one run can record. */
#define SCENARIO_KERNEL_NAME_MAX 32

enum scenario_priority { SCENARIO_LOW, SCENARIO_HIGH };
/* What the SMs that kernels[].sms leave over are at the start. */
enum scenario_unassigned { SCENARIO_UNASSIGNED_IDLE, SCENARIO_UNASSIGNED_GATED };
/* How static-smqos turns smqos_policy x SMs into a count (SMQoS leaves it open). */
enum scenario_rounding { SCENARIO_ROUND_NEAREST, SCENARIO_ROUND_DOWN };

struct scenario_kernel {
    char *name;
    int priority;      /* enum scenario_priority */
    double qos_target; /* NP the kernel should keep when it has high priority */
    double weight;     /* share for weighted fairness; 0 in every entry means equal shares */
    unsigned sms;      /* SMs at the start; 0 in every entry means an even split */
    struct kernel_profile profile;
};

struct scenario {
    char *path; /* as given to scenario_load */
    char *text; /* the file's whole text, as recorded in run files */
    char *name;
    char *description;
    char *gpu_name;
    struct gpu_config gpu; /* the preset with gpu_overrides applied */
    uint64_t seed;
    unsigned epochs;
    unsigned epoch_cycles;
    char *lesson;
    /* A predictor name, checked by the session against the registry (io cannot see it). */
    char *predictor;
    int predictor_line; /* where it was set, for that message; 0: not set */
    /* An allocator name, checked by the session against the registry, and its settings. */
    char *allocator;
    int allocator_line;
    double fairness_threshold; /* fair, themis-engine */
    double qos_upper;          /* qos: shrink the high-priority kernel above this NP */
    double hp_share;           /* proportional: the high-priority kernel's share of SMs */
    double smqos_policy;       /* smqos, static-smqos: IPC target / isolated IPC */
    unsigned smqos_interval;   /* smqos: core cycles between decisions */
    double smqos_threshold;    /* smqos: Algorithm 2's threshold */
    unsigned smqos_batch_min;  /* smqos: fewest SMs left to a batch kernel (1; 0 takes all) */
    int static_smqos_rounding; /* enum scenario_rounding: static-smqos' SM count */
    int unassigned_sms; /* enum scenario_unassigned: idle SMs cost static power, gated none */
    unsigned nkernels;
    struct scenario_kernel kernels[SCENARIO_MAX_KERNELS];
};

extern const struct conf_table scenario_table;
extern const struct conf_table scenario_kernel_table;

/* Load and validate path, resolving presets and kernels under datadir. Every mistake found is
 * added to diags as "FILE:LINE: SETTING: what was expected". Returns 0, or -1 when anything is
 * wrong (sc is then empty). Release with scenario_done either way. */
int scenario_load(struct scenario *sc, const char *path, const char *datadir, struct diag *diags);
/* scenario_load on text already in memory (e.g. recorded in a run file); name stands for the
 * file in messages and becomes sc->path. */
int scenario_load_text(struct scenario *sc, const char *name, const char *text, const char *datadir,
                       struct diag *diags);
/* Apply one "KEY=VALUE" change to a loaded scenario (`corun run --set`): KEY is a top-level
 * setting (not gpu, gpu_overrides or kernels), gpu.SETTING[.SUB...] for the GPU,
 * kernels[K].priority or kernels[K].qos_target, or weights=W1,W2,... (one per kernel); VALUE is
 * written as in a scenario file (a bare word is taken as a string). Validated through the same
 * tables, with messages naming "--set". Returns 0, or -1 with diags. */
int scenario_set(struct scenario *sc, const char *assignment, struct diag *diags);
/* Read KEY as "kernels[K].SETTING": K in digits only (one past UINT_MAX reads as UINT_MAX,
 * out of any mix's range; sscanf's %u wrapped 4294967296 to kernel 0) and SETTING, of a-z and
 * _, into setting[len]. Returns 0, or -1 when KEY is not of that form. */
int scenario_kernel_key(const char *key, unsigned *k, char *setting, size_t len);
/* Applies one "gpu.SETTING=VALUE" to a preset alone (as --set does to a scenario's GPU);
 * 0, or -1 with a message in diags. The caller checks the result with gpu_config_check. */
int scenario_set_gpu(struct gpu_config *gpu, const char *assignment, struct diag *diags);
/* Read "W1,W2,..." into w[0..n): n numbers from 0 to 1, all 0 (equal shares) or summing to 1.
 * Returns 0, or -1 with diags ("--set: weights: expected ..."). */
int scenario_parse_weights(const char *value, unsigned n, double *w, struct diag *diags);
/* A mix change: append the library kernel `name` (built in or data/kernels/NAME.cfg under
 * datadir, as kernels[].name in a scenario) with the kernel entry's defaults (low priority,
 * weight 0, sms 0). Returns its index, or -1 with diags ("kernel NAME: ...": unknown, with the
 * known names; sc already holds SCENARIO_MAX_KERNELS) and sc unchanged. */
int scenario_add_kernel(struct scenario *sc, const char *name, const char *datadir,
                        struct diag *diags);
/* Drop kernels n and after (n >= 1): the mix a run started with, for a branch. */
void scenario_keep_kernels(struct scenario *sc, unsigned n);
/* A deep copy of src into dst (release with scenario_done). */
void scenario_copy(struct scenario *dst, const struct scenario *src);
void scenario_done(struct scenario *sc);

#endif
