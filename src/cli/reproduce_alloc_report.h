/* reproduce_alloc_report — `corun reproduce` for the SM-allocation experiments
 * (cmd_reproduce_alloc.c parses and runs; reproduce_alloc_report.c prints). */
#ifndef CORUN_CLI_REPRODUCE_ALLOC_REPORT_H
#define CORUN_CLI_REPRODUCE_ALLOC_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "corun/reproduce_alloc.h"

/* 1 when argv asks for an allocation experiment (--fairness, --qos, or an experiment only
 * this family has, like smqos). */
bool reproduce_alloc_wanted(int argc, char **argv);
/* `corun reproduce hsm --threshold --help`: the experiment the arguments name (else every
 * allocation experiment), its policies and options, to out; true. */
bool reproduce_alloc_help(int argc, char **argv, FILE *out);
/* `corun reproduce EXPERIMENT --fairness|--qos ...`: parse, then run and print, or with slurm
 * (NULL: none) submit it as a Slurm job; a CLI exit status. */
struct slurm_options;
int reproduce_alloc_main(int argc, char **argv, const struct slurm_options *slurm);
/* The --list lines of the allocation experiments. */
void reproduce_alloc_list(void);

/* Hours of one core for the whole of x at the suite's size (mixes x policies x cycles). */
double reproduce_alloc_projected_hours(const struct ralloc_experiment *x, size_t mixes,
                                       unsigned epochs, unsigned epoch_cycles);
/* r as tables on stdout: per policy and group the experiment's metrics, then the published
 * figures beside ours, what was not run, and failed mixes. */
void reproduce_alloc_print(const struct ralloc_options *o, const struct ralloc_result *r);
/* m's key in --json ("stp", "hp_sms"). */
const char *reproduce_alloc_metric_key(enum ralloc_metric m);
/* r as one JSON document on stdout (reproduce_alloc_json.c): per policy and group the metrics,
 * the published figures beside ours, and per mix and policy each kernel's NP and SMs. */
void reproduce_alloc_print_json(const struct ralloc_options *o, const struct ralloc_result *r);

#endif
