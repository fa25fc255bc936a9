/* cmd_show — `corun show RUN.h5` and `corun export RUN.h5 --csv DIR`: a recorded run (spatial
 * or accelerator), without simulating. */
#include <getopt.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd_run_accel.h"
#include "corun/accel_runfile.h"
#include "corun/cli.h"
#include "corun/datadir.h"
#include "corun/report.h"
#include "corun/runfile.h"
#include "corun/session.h"
#include "corun/util.h"

static int show_run(int argc, char **argv)
{
    int json = 0;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else {
            static const char *const options[] = {"json", NULL};
            cli_refused_arg("show", argv[i], path, options);
            cli_usage_error(&cmd_show);
            return CLI_BAD_INPUT;
        }
    }
    if (!path) {
        fprintf(stderr, "corun: show: expected a run file (RUN.h5)\n");
        cli_usage_error(&cmd_show);
        return CLI_BAD_INPUT;
    }
    char err[512];
    if (accel_runfile_probe(path) == 1) {
        struct accel_record r;
        if (accel_runfile_read(path, &r, err, sizeof err) != 0) {
            fprintf(stderr, "corun: %s\n", err);
            return CLI_BAD_INPUT;
        }
        cmd_accel_print(&r, json);
        accel_record_done(&r);
        return CLI_OK;
    }
    char *datadir = datadir_locate();
    struct session *s = session_replay(path, datadir, err, sizeof err);
    free(datadir);
    if (!s) {
        fprintf(stderr, "corun: %s\n", err);
        return CLI_BAD_INPUT;
    }
    const struct scenario *sc = session_scenario(s);
    unsigned n = session_epochs_done(s);
    if (json) {
        report_json_begin(stdout, sc);
        for (unsigned i = 0; i < n; i++)
            report_epoch_json(stdout, sc, session_epoch_at(s, i), i == 0);
        report_json_end(stdout, s);
    } else {
        /* The epochs' own lengths: an epoch_cycles changed during the run made the scenario's
         * wrong for some of them. */
        uint64_t lo = UINT64_MAX, hi = 0;
        for (unsigned i = 0; i < n; i++) {
            uint64_t c = session_epoch_at(s, i)->cycles;
            lo = c < lo ? c : lo;
            hi = c > hi ? c : hi;
        }
        char len[64];
        if (n && lo != hi)
            snprintf(len, sizeof len, "%llu to %llu", (unsigned long long)lo,
                     (unsigned long long)hi);
        else
            snprintf(len, sizeof len, "%llu", n ? (unsigned long long)lo : sc->epoch_cycles * 1ull);
        printf("%s (gpu %s): %u epoch%s of %s cycles, seed %llu, from %s\n", sc->name, sc->gpu_name,
               n, n == 1 ? "" : "s", len, (unsigned long long)sc->seed, path);
        for (unsigned i = 0; i < n; i++)
            report_epoch_text(stdout, sc, session_epoch_at(s, i),
                              i ? session_epoch_at(s, i - 1) : NULL);
        report_events_text(stdout, s);
    }
    session_delete(s);
    return CLI_OK;
}

const struct cli_command cmd_show = {
    .name = "show",
    .args = "RUN.h5 [--json]",
    .summary = "print a recorded run's epochs and events, without simulating",
    .help = "The same table as `corun run` (or its JSON with --json), read from the run file,\n"
            "then the event log. Works on a file still being recorded or left by a crash.\n"
            "An accelerator run file (`corun run ACCEL_SCENARIO --out RUN.h5`) prints the\n"
            "summary `corun run` printed for it.\n",
    .run = show_run,
};

/* When dir does not exist and its parent is no directory (missing, or a file), says so: only
 * dir is made. */
static bool parent_missing(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) == 0)
        return false;
    char *copy = xstrdup(dir);
    const char *parent = dirname(copy);
    bool missing = stat(parent, &st) != 0 || !S_ISDIR(st.st_mode);
    if (missing)
        fprintf(stderr,
                "corun: export: --csv %s: %s is not a directory (DIR is made when missing, not "
                "its parents)\n",
                dir, parent);
    free(copy);
    return missing;
}

static int export_run(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"csv", required_argument, NULL, 'c'},
        {"force", no_argument, NULL, 'f'},
        {NULL, 0, NULL, 0},
    };
    const char *dir = NULL;
    bool force = false;
    cli_getopt_reset();
    int c;
    while ((c = cli_getopt(argc, argv, ":", longopts)) != -1) {
        if (c == 'c') {
            dir = optarg;
        } else if (c == 'f') {
            force = true;
        } else {
            cli_usage_error(&cmd_export);
            return CLI_BAD_INPUT;
        }
    }
    if (cli_operands(&cmd_export, argc, argv, optind, 1, "a run file (RUN.h5)") != 0)
        return CLI_BAD_INPUT; /* it said which, and the usage */
    if (!dir) {
        fprintf(stderr, "corun: export: expected --csv DIR, the directory to write to\n");
        cli_usage_error(&cmd_export);
        return CLI_BAD_INPUT;
    }
    if (cli_nonempty("--csv", dir) != 0)
        return CLI_BAD_INPUT;
    struct stat st;
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
        fprintf(stderr,
                "corun: export: --csv %s: not a directory (expected the directory to write "
                "the CSV files into; it is made when missing)\n",
                dir);
        return CLI_BAD_INPUT;
    }
    if (parent_missing(dir))
        return CLI_BAD_INPUT;
    const char *path = argv[optind];
    char err[512];
    if (accel_runfile_probe(path) == 1) {
        struct accel_record r;
        int rc = accel_runfile_read(path, &r, err, sizeof err);
        if (rc != 0) {
            fprintf(stderr, "corun: %s\n", err);
            accel_record_done(&r);
            return CLI_BAD_INPUT;
        }
        rc = accel_runfile_export_csv(&r, path, dir, force, err, sizeof err);
        accel_record_done(&r);
        if (rc != 0) {
            fprintf(stderr, "corun: %s\n", err);
            return rc == -2 ? CLI_BAD_INPUT : CLI_FAILED;
        }
        fprintf(stderr, "corun: wrote run.csv, applications.csv, queries.csv and tasks.csv in %s\n",
                dir);
        return CLI_OK;
    }
    struct runfile *rf = runfile_open(path, err, sizeof err);
    if (!rf) {
        fprintf(stderr, "corun: %s\n", err);
        return CLI_BAD_INPUT;
    }
    int rc = runfile_export_csv(rf, dir, force, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "corun: %s\n", err);
    else
        fprintf(stderr,
                "corun: wrote kernels.csv, system.csv, events.csv and partition.csv in "
                "%s\n",
                dir);
    runfile_close(rf, err, sizeof err);
    return rc == 0 ? CLI_OK : rc == -2 ? CLI_BAD_INPUT : CLI_FAILED;
}

const struct cli_command cmd_export = {
    .name = "export",
    .args = "RUN.h5 --csv DIR [--force]",
    .summary = "write a run file's datasets as CSV files (units in the headers)",
    .help = "Writes DIR/kernels.csv (one row per epoch and kernel), system.csv, events.csv and\n"
            "partition.csv; DIR is made when missing (not its parents). From an accelerator\n"
            "run file: run.csv (the run's summary, one row), applications.csv, queries.csv\n"
            "(each LS query's latency and forecast) and tasks.csv (every task: its\n"
            "application, process, kind, bytes, and when it was issued, started and ended).\n"
            "Columns are the run file's datasets, as docs/runfile.md describes them. Files\n"
            "of those names in DIR are refused; --force replaces them (each once every file\n"
            "is whole, so a failed export leaves them as they were).\n",
    .run = export_run,
};
