/* cmd_tui — `corun tui [SCENARIO]`: the workbench (also what `corun` alone runs). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "corun/accel_scenario.h"
#include "corun/cli.h"
#include "corun/datadir.h"
#include "corun/diag.h"
#include "corun/scenario.h"
#include "corun/session.h"
#include "corun/tui.h"

/* An accelerator scenario: the accelerator view (tui_accel.c) on a live run of it. */
static int tui_accelerator(const char *path, const char *datadir, const struct tui_options *opt)
{
    struct diag diags;
    diag_init(&diags);
    struct accel_scenario sc;
    int rc = accel_scenario_load(&sc, path, datadir, &diags);
    diag_print(&diags, stderr);
    diag_done(&diags);
    if (rc != 0)
        rc = CLI_BAD_INPUT;
    else if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fprintf(stderr, "corun: the workbench needs a terminal; 'corun run %s' runs it without\n",
                path);
        rc = CLI_BAD_INPUT;
    } else if (cli_workbench_catalog(opt->catalog) != 0) {
        rc = CLI_BAD_INPUT;
    } else {
        rc = tui_accel_main(&sc, opt) == 0 ? CLI_OK : CLI_FAILED;
    }
    accel_scenario_done(&sc);
    return rc;
}

static int tui_run(int argc, char **argv)
{
    struct cli_workbench_args wa;
    if (cli_workbench_args(argc, argv, &cmd_tui, true, &wa) != 0)
        return CLI_BAD_INPUT;
    const char *given = wa.arg;
    char *datadir = datadir_locate();
    char *path =
        given ? cli_find_scenario(given, datadir, "scenarios") : datadir_default_scenario(datadir);
    if (!path) {
        free(datadir);
        return CLI_BAD_INPUT;
    }
    struct diag diags;
    diag_init(&diags);
    struct scenario sc;
    struct session *s = NULL;
    char err[512];
    int rc = CLI_OK;
    /* A bad scenario, or one that cannot be simulated, is reported before curses takes the
     * terminal. */
    struct tui_options opt = {.datadir = datadir, .projector = wa.projector, .catalog = wa.catalog};
    if (accel_scenario_probe(path) == 1) {
        rc = tui_accelerator(path, datadir, &opt);
    } else if (scenario_load(&sc, path, datadir, &diags) != 0 ||
               session_check_choices(&sc, &diags) != 0) {
        diag_print(&diags, stderr);
        rc = CLI_BAD_INPUT;
    } else if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fprintf(stderr, "corun: the workbench needs a terminal; for scripts see 'corun --help'\n");
        rc = CLI_BAD_INPUT;
    } else if (cli_workbench_catalog(opt.catalog) != 0) {
        rc = CLI_BAD_INPUT;
    } else if (!(s = session_new(&sc, err, sizeof err))) {
        fprintf(stderr, "corun: %s: %s\n", sc.path, err);
        rc = CLI_BAD_INPUT;
    } else if (session_set_threads(s, cli_default_threads()), tui_main(s, &opt) != 0) {
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
    .args = "[SCENARIO] [--theme projector] [--catalog PATH]",
    .summary = "open the workbench on SCENARIO (default: scenarios/default.cfg)",
    .help = "The screen: a header (scenario, GPU, epoch, cycle, predictor, allocator, LIVE or\n"
            "REPLAY, running or paused, the epoch in flight), the kernel table, the NP history,\n"
            "the SM map, system metrics, the DRAM channels, the event log and the explain panel.\n"
            "The simulation runs on its own thread: keys work while an epoch computes.\n"
            "As with `run`, the kernels' private-mode references come from the catalog's\n"
            "trace cache when they are there (the event log says how many) and are stored\n"
            "back when the run is left. --catalog PATH names that catalog, where a save (s)\n"
            "also gets its row (default: $XDG_DATA_HOME/corun/catalog.db); one that cannot be\n"
            "made is refused before the screen starts (exit 2).\n"
            "SCENARIO may be one corun ships, named without its directory and .cfg\n"
            "(`corun tui demo-pair`).\n\n"
            "Keys:\n"
            "  F1, ?       show the keys; any key closes the help\n"
            "  Space       step one epoch (while one computes: queue another)\n"
            "  r           run / pause (a pause waits for the epoch in flight; a run stops\n"
            "              after the scenario's epochs, r again goes on)\n"
            "  + -         run faster / slower (max, 10/s, 5/s, 2/s, 1/s, 1 per 2 s, 1 per 5 s)\n"
            "  p           predictor menu: none or any registered predictor, with its summary;\n"
            "              the choice applies from the next epoch boundary and is logged, and\n"
            "              the table's NP pred, Error and Class, the chart's lowercase series\n"
            "              and the explain panel show its predictions\n"
            "  a           allocator menu: static or any registered allocator (how the SMs\n"
            "              are shared), from the next epoch boundary, logged\n"
            "  e           edit parameters: the fairness threshold, QoS targets, weights ...\n"
            "              (the values each takes are shown; a bad one is refused)\n"
            "  k           edit the mix: add a kernel from the library, remove one, or set a\n"
            "              kernel's priority, from the next epoch boundary\n"
            "  Left        rewind one epoch: the run is re-simulated to the end of the epoch\n"
            "              before (exactly: the simulator is deterministic), later epochs are\n"
            "              dropped, and p, a or e can try another policy from there\n"
            "  G           predict, then reveal: step one epoch whose true NP, fairness and STP\n"
            "              stay hidden until the class has typed its guesses (g opens the form\n"
            "              again); the reveal shows each beside the truth, and the score is an\n"
            "              event of the run\n"
            "  Tab         focus the next panel (Shift-Tab: the previous one)\n"
            "  s           save: record the run to a new run file (default\n"
            "              corun-YYYYMMDD-HHMMSS.h5), then every later epoch as it finishes\n"
            "  o           open a run file and replay it (one that cannot be opened keeps\n"
            "              this run); see 'corun help replay' for the replay keys\n"
            "  Up, Down    select a kernel (scroll the event log when it has focus)\n"
            "  Enter       open whole, wrapped: the event log's bottom line when the log has\n"
            "              focus, else the explain panel of the selected kernel; a text taller\n"
            "              than the screen shows a page (Space or PgDn the next, Up and Down a\n"
            "              line, Home and End the first and last; Space on the last closes it)\n"
            "  Ctrl-L      redraw the screen\n"
            "  q           quit at once, even while an epoch computes; with epochs not\n"
            "              recorded it asks first (y quits)\n\n"
            "Needs a terminal of at least 80x24. NO_COLOR (non-empty) turns colour off; without\n"
            "a UTF-8 locale, or on TERM=vt100, only ASCII is drawn. --theme projector is for a\n"
            "classroom: bold high-contrast text and a taller chart (NO_COLOR still holds).\n"
            "'corun lesson list' lists the guided lessons.\n\n"
            "An accelerator scenario (mode = \"accelerator\") opens the accelerator view: a\n"
            "timeline of each process's tasks (kernels solid, '.' a kernel waiting for SMs,\n"
            "'>' '<' copies to and from the GPU, coloured by application), each LS\n"
            "application's p50 and p99 against its QoS target with a histogram of its\n"
            "latencies, the predictor's forecast beside them, and the GPU's and the link's busy\n"
            "time. Space steps 0.5 ms of the GPU's time, r runs / pauses, p switches the\n"
            "predictor (none, prophet, sequential, bubble, prophet-even), s saves the run so\n"
            "far to a run file that 'corun replay' and 'corun show' read, Left/Right pan and\n"
            "+ - zoom the timeline, ? shows the keys, q quits.\n",
    .run = tui_run,
};
