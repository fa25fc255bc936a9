/* reproduce_report — printing a reproduce part's results (cmd_reproduce.c's tables). */
#ifndef CORUN_CLI_REPRODUCE_REPORT_H
#define CORUN_CLI_REPRODUCE_REPORT_H

#include <stdbool.h>

#include "corun/reproduce.h"

/* --set ASSIGNMENT into sets (repro_sets_add); prints the message and returns CLI_BAD_INPUT
 * when it is not a GPU setting reproduce takes, else CLI_OK. */
int cli_reproduce_set(struct repro_sets *sets, const char *assignment);
/* sets as a JSON array of strings on stdout. */
void cli_reproduce_sets_json(const struct repro_sets *sets);

/* What --resume FILE (path; NULL: none) did for a run of nmixes mixes, a line or three on
 * stdout: mixes read from the journal, a torn tail cut off, a mix that could not be kept. */
void reproduce_print_resume(const char *path, const struct repro_resume *r, size_t nmixes);
/* r as a table on stdout: per predictor the per-epoch and over-the-run errors in %, overall
 * (beside the published figures) and per category; predictors without a model say why. */
void reproduce_print_text(const struct repro_options *ro, const struct repro_part_result *r);
/* r as one JSON object on stdout (a ",\n" before it unless first), per-mix errors included. */
void reproduce_print_json(const struct repro_options *ro, const struct repro_part_result *r,
                          bool first);

#endif
