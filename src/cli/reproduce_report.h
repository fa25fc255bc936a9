/* reproduce_report — printing a reproduce part's results (cmd_reproduce.c's tables). */
#ifndef CORUN_CLI_REPRODUCE_REPORT_H
#define CORUN_CLI_REPRODUCE_REPORT_H

#include <stdbool.h>

#include "corun/reproduce.h"

/* What --resume FILE (path; NULL: none) did for a run of nmixes mixes, a line or three on
 * stdout: mixes read from the journal, a torn tail cut off, a mix that could not be kept. */
void reproduce_print_resume(const char *path, const struct repro_resume *r, size_t nmixes);
/* After a run with --resume FILE (path; NULL: none) whose results are printed: a finished mix
 * that could not be put in the journal is said on stderr as well (with --json it is said
 * nowhere else), and fails a shard (shards > 0), since the journal is all a shard leaves. The
 * exit status: rc, or CLI_FAILED then. */
int reproduce_journal_status(const char *path, const struct repro_resume *r, unsigned shards,
                             int rc);
/* r as a table on stdout: per predictor the per-epoch and over-the-run errors in %, overall
 * (beside the published figures) and per category; predictors without a model say why. */
void reproduce_print_text(const struct repro_options *ro, const struct repro_part_result *r);
/* r as one JSON object on stdout (a ",\n" before it unless first), per-mix errors included. */
void reproduce_print_json(const struct repro_options *ro, const struct repro_part_result *r,
                          bool first);

#endif
