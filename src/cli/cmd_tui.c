/* cmd_tui — `corun tui [SCENARIO]`: the workbench (also what `corun` alone runs). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "corun/cli.h"
#include "corun/datadir.h"
#include "corun/diag.h"
#include "corun/scenario.h"
#include "corun/tui.h"

static int tui_run(int argc, char **argv)
{
    if (argc > 2) {
        fprintf(stderr, "usage: corun tui [SCENARIO]\n");
        return CLI_BAD_INPUT;
    }
    char *datadir = datadir_locate();
    char *path = argc == 2 ? NULL : datadir_default_scenario(datadir);
    struct diag diags;
    diag_init(&diags);
    struct scenario sc;
    int rc = CLI_OK;
    /* A bad scenario is reported before curses takes the terminal. */
    if (scenario_load(&sc, path ? path : argv[1], datadir, &diags) != 0) {
        diag_print(&diags, stderr);
        rc = CLI_BAD_INPUT;
    } else if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fprintf(stderr, "corun: the workbench needs a terminal; for scripts see 'corun --help'\n");
        rc = CLI_BAD_INPUT;
    } else if (tui_main(&sc) != 0) {
        rc = CLI_FAILED;
    }
    scenario_done(&sc);
    diag_done(&diags);
    free(path);
    free(datadir);
    return rc;
}

const struct cli_command cmd_tui = {
    .name = "tui",
    .args = "[SCENARIO]",
    .summary = "open the workbench on SCENARIO (default: scenarios/default.cfg)",
    .help = "Keys: q quits.\n",
    .run = tui_run,
};
