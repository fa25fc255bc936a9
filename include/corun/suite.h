/* suite — mix suites (scenarios/suites/NAME.cfg): one GPU preset and epoch settings for a list
 * of mixes, each a tag from the suite's own tag list, 1 to SUITE_MAX_KERNELS kernel names and
 * an optional SM split. Validated through suite_table, like scenarios. */
#ifndef CORUN_SUITE_H
#define CORUN_SUITE_H

#include <stddef.h>

#include "corun/conftable.h"
#include "corun/diag.h"

#define SUITE_MAX_KERNELS 8

extern const struct conf_table suite_table;
extern const struct conf_table suite_mix_table;

struct suite_mix {
    char *tag;
    unsigned nkernels;
    char *kernels[SUITE_MAX_KERNELS];
    unsigned sms[SUITE_MAX_KERNELS]; /* all 0: no split given (even partition) */
    int line;                        /* where the mix starts in the file */
};

struct suite {
    char *path;
    char *name, *description, *gpu;
    unsigned gpu_sms; /* the preset's SM count, for splits */
    unsigned epochs, epoch_cycles;
    char **tags;
    size_t ntags;
    struct suite_mix *mixes;
    size_t nmixes;
};

/* Load and validate path against the presets and kernels in DATADIR. Every mistake goes to
 * diags as "FILE:LINE: SETTING: problem (expected ...)"; returns 0 or -1. Release with
 * suite_done either way. */
int suite_load(const char *path, const char *datadir, struct suite *out, struct diag *diags);
void suite_done(struct suite *s);

#endif
