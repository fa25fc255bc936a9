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
    unsigned gpu_sms;   /* the preset's SM count, for splits */
    unsigned split_sms; /* the SM count the mixes' splits are written for: gpu_sms, unless
                           suite_retarget moved the suite to another preset */
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
/* 1 when path parses and has a top-level `mixes` (a suite), 0 when it parses without one,
 * -1 when it does not parse. */
int suite_probe(const char *path);
void suite_done(struct suite *s);

/* Run s on preset gpu instead of its own (`corun reproduce --gpu`): s->gpu and gpu_sms become
 * the preset's; the mixes keep their splits as written (for their names and filters), and
 * suite_split scales them. An unknown preset goes to diags naming `where`; returns 0 or -1. */
int suite_retarget(struct suite *s, const char *datadir, const char *gpu, const char *where,
                   struct diag *diags);
/* Mix m's split on s's GPU into out[m->nkernels]: as written, or scaled from split_sms to
 * gpu_sms SMs by largest remainders (each at least 1, the sum scaled alike); all 0 when m has
 * no split (even partition). */
void suite_split(const struct suite *s, const struct suite_mix *m, unsigned *out);

#endif
