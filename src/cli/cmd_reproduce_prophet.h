/* cmd_reproduce_prophet — the prophet experiments of `corun reproduce` (cmd_reproduce.c hands
 * them over). */
#ifndef CORUN_CMD_REPRODUCE_PROPHET_H
#define CORUN_CMD_REPRODUCE_PROPHET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* True when the arguments name the prophet experiment. */
bool reproduce_prophet_wanted(int argc, char **argv);
/* Its lines of `corun reproduce --list`. */
void reproduce_prophet_list(void);
/* `corun help reproduce prophet` (and `corun reproduce prophet --help`): its own synopsis, its
 * three experiments and their options, to out. */
void reproduce_prophet_help(FILE *out);
struct slurm_options;
/* `corun reproduce prophet --accuracy | --colocation | --scaleout [--quick] ...`; submitted as a
 * Slurm job instead when slurm is not NULL (its options, taken off argv). A CLI_* code. */
int reproduce_prophet_main(int argc, char **argv, const struct slurm_options *slurm);
/* The leading bytes of a journal record of the run `what` (a journal's run description) that
 * hold its results, for a prophet experiment's record of record_size bytes; the rest counts
 * what the process simulated for it (core cycles, configurations), which depends on what it
 * had measured before. record_size for any other run. */
size_t reproduce_prophet_result_bytes(const char *what, size_t record_size);
/* The scale-out study keeps its LS curves beside its journal, in JOURNAL plus this suffix. */
#define PROPHET_CURVES_SUFFIX ".curves"
/* That file for the journal at path; the caller frees it. */
char *reproduce_prophet_curves_path(const char *journal);

#endif
