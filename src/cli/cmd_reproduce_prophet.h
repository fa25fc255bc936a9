/* cmd_reproduce_prophet — the prophet experiments of `corun reproduce` (cmd_reproduce.c hands
 * them over). */
#ifndef CORUN_CMD_REPRODUCE_PROPHET_H
#define CORUN_CMD_REPRODUCE_PROPHET_H

#include <stdbool.h>

/* True when the arguments name the prophet experiment. */
bool reproduce_prophet_wanted(int argc, char **argv);
/* Its lines of `corun reproduce --list`. */
void reproduce_prophet_list(void);
struct slurm_options;
/* `corun reproduce prophet --accuracy | --colocation | --scaleout [--quick] ...`; submitted as a
 * Slurm job instead when slurm is not NULL (its options, taken off argv). A CLI_* code. */
int reproduce_prophet_main(int argc, char **argv, const struct slurm_options *slurm);

#endif
