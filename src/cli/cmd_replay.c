/* cmd_replay — `corun replay RUN.h5`: the workbench in REPLAY mode on a recorded run. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "corun/accel_runfile.h"
#include "corun/cli.h"
#include "corun/datadir.h"
#include "corun/session.h"
#include "corun/tui.h"

/* An accelerator run file: the accelerator view on what it recorded. */
static int replay_accelerator(const char *path, const struct tui_options *opt)
{
    struct accel_record rec;
    char err[768];
    if (accel_runfile_read(path, &rec, err, sizeof err) != 0) {
        fprintf(stderr, "corun: %s\n", err);
        return CLI_BAD_INPUT;
    }
    int rc = CLI_OK;
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fprintf(stderr, "corun: the workbench needs a terminal; 'corun show %s' prints the run\n",
                path);
        rc = CLI_BAD_INPUT;
    } else if (tui_accel_replay(&rec, path, opt) != 0) {
        rc = CLI_FAILED;
    }
    accel_record_done(&rec);
    return rc;
}

static int replay_run(int argc, char **argv)
{
    struct cli_workbench_args wa;
    if (cli_workbench_args(argc, argv, &cmd_replay, false, &wa) != 0)
        return CLI_BAD_INPUT;
    const char *path = wa.arg;
    if (!path) {
        fprintf(stderr, "corun: replay: expected a run file (RUN.h5)\n");
        cli_usage_error(&cmd_replay);
        return CLI_BAD_INPUT;
    }
    char *datadir = datadir_locate();
    struct tui_options opt = {.datadir = datadir, .projector = wa.projector, .catalog = wa.catalog};
    char err[512];
    int rc = CLI_OK;
    if (accel_runfile_probe(path) == 1) {
        rc = replay_accelerator(path, &opt);
        free(datadir);
        return rc;
    }
    /* A run file that cannot be opened is reported before curses takes the terminal. */
    struct session *r = session_replay(path, datadir, err, sizeof err);
    if (!r) {
        fprintf(stderr, "corun: %s\n", err);
        rc = CLI_BAD_INPUT;
    } else if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fprintf(stderr, "corun: the workbench needs a terminal; 'corun show %s' prints the run\n",
                path);
        session_delete(r);
        rc = CLI_BAD_INPUT;
    } else if (cli_workbench_catalog(opt.catalog) != 0) {
        session_delete(r);
        rc = CLI_BAD_INPUT;
    } else if (session_set_threads(r, cli_default_threads()), tui_main(r, &opt) != 0) {
        rc = CLI_FAILED;
    }
    free(datadir);
    return rc;
}

const struct cli_command cmd_replay = {
    .name = "replay",
    .args = "RUN.h5 [--theme projector] [--catalog PATH]",
    .summary = "open the workbench on a recorded run, to move through its epochs and branch",
    .help = "The same screen as 'corun tui', showing REPLAY and the run file: the panels show the\n"
            "epoch moved to (the DRAM panel has no per-channel figures: run files do not keep\n"
            "them). Nothing is simulated until b branches.\n\n"
            "Keys (besides F1/?, Tab, Up/Down, Ctrl-L and q, as in 'corun help tui'):\n"
            "  Left, Right  the previous / next epoch\n"
            "  Home, End    the first / last epoch\n"
            "  g            go to an epoch by number (a refused one shows the valid range)\n"
            "  b            branch: a live run continuing after the epoch shown; the recorded\n"
            "               epochs are simulated again and checked, then Space steps the branch\n"
            "  o            open another run file (one that cannot be opened keeps this one)\n\n"
            "--catalog PATH: the catalog a branch looks in for its references and where a\n"
            "saved branch gets its row (default: $XDG_DATA_HOME/corun/catalog.db).\n\n"
            "Exit status 2 when RUN.h5 or --catalog's file cannot be opened (before the screen\n"
            "starts).\n\n"
            "An accelerator run file (corun run ACCEL_SCENARIO --out, or s in the workbench's\n"
            "accelerator view) opens the accelerator view on the run it holds: Left/Right pan\n"
            "and + - zoom the timeline, Home/End go to its start/end.\n",
    .run = replay_run,
};
