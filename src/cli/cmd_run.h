/* cmd_run — what other commands use of `corun run` (cmd_run.c). */
#ifndef CORUN_CMD_RUN_H
#define CORUN_CMD_RUN_H

/* `corun run` with argv (argv[0] is "run") as far as its checks go: the options, the scenario
 * and what the options change in it are checked as a run checks them, with the same messages
 * on stderr, and nothing is simulated or written. Returns CLI_OK, or CLI_BAD_INPUT. */
int cmd_run_check(int argc, char **argv);

#endif
