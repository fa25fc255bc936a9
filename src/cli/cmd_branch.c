/* cmd_branch — `corun branch RUN.h5 EPOCH`: continue a recorded run from one of its epochs. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/catalog.h"
#include "corun/cli.h"
#include "corun/datadir.h"
#include "corun/report.h"
#include "corun/session.h"
#include "corun/util.h"

static int progress(void *ctx, double done)
{
    cli_progress(ctx, done);
    return cli_stop_requested() != 0; /* abandons the epoch */
}

static int branch_run(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"epochs", required_argument, NULL, 'e'},
        {"out", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, 'j'},
        {"catalog", required_argument, NULL, 'C'},
        {NULL, 0, NULL, 0},
    };
    unsigned long more = 1, at;
    const char *out = NULL, *catalog = NULL; /* NULL: the default catalog */
    int json = 0, c;
    cli_getopt_reset();
    while ((c = cli_getopt(argc, argv, ":", longopts)) != -1) {
        if (c == 'e') {
            if (cli_parse_uint("--epochs", optarg, 0, 1000000, &more) != 0)
                return CLI_BAD_INPUT;
        } else if (c == 'o') {
            if (cli_nonempty("--out", optarg) != 0)
                return CLI_BAD_INPUT;
            out = optarg;
        } else if (c == 'j') {
            json = 1;
        } else if (c == 'C') {
            catalog = optarg;
        } else {
            return CLI_BAD_INPUT; /* cli_getopt said why */
        }
    }
    if (cli_operands(&cmd_branch, argc, argv, optind, 2,
                     "a run file and an epoch (RUN.h5 EPOCH)") != 0)
        return CLI_BAD_INPUT;
    if (cli_parse_uint("branch: EPOCH", argv[optind + 1], 0, 1000000, &at) != 0)
        return CLI_BAD_INPUT;
    /* before the recorded epochs are simulated again, which takes as long as they took */
    if (out && cli_check_new_runfile(out, "branching") != 0)
        return CLI_BAD_INPUT;
    if (out && catalog && cli_same_file(out, catalog)) {
        fprintf(stderr, "corun: --out and --catalog both name %s: expected two files\n", out);
        return CLI_BAD_INPUT;
    }
    /* From here a signal is held until the re-simulation looks (it died there without a word,
     * or said only "branching abandoned"). */
    cli_stop_install();
    char *datadir = datadir_locate();
    char err[512];
    int rc = CLI_BAD_INPUT;
    struct session *b = NULL, *r = session_replay(argv[optind], datadir, err, sizeof err);
    free(datadir);
    if (!r) {
        fprintf(stderr, "corun: %s\n", err);
        cli_stop_reraise();
        return CLI_BAD_INPUT;
    }
    /* The references through the trace cache, as `run` does (a cache that fails only costs
     * time), and the branch on the machine's threads (the results do not depend on them). */
    struct catalog *cat = catalog_open(catalog, err, sizeof err);
    if (cat && out && catalog_writable(cat, "adding the branch", err, sizeof err) != 0) {
        catalog_close(cat);
        cat = NULL;
    }
    if (!cat && (out || catalog)) {
        /* The branch would end without its catalog row, or a catalog named with --catalog
         * would go unused: say so before simulating it. */
        fprintf(stderr, "corun: %s; the branch was not started\n", err);
        session_delete(r);
        cli_stop_reraise();
        return CLI_BAD_INPUT; /* as `run` */
    }
    if (!cat)
        fprintf(stderr, "corun: note: no trace cache (%s)\n", err);
    session_set_threads(r, cli_default_threads());
    b = session_branch_cached(r, (unsigned)at, cat, progress, (void *)"re-simulating", err,
                              sizeof err);
    if (!b && cli_stop_requested()) {
        fprintf(stderr,
                "corun: %s: stopped by %s before the branch, while its first %lu epoch%s "
                "simulated again; nothing branched%s\n",
                argv[optind], cli_stop_name(), at, at == 1 ? " was" : "s were",
                out ? " or recorded" : "");
        goto out;
    } else if (!b) {
        fprintf(stderr, "corun: %s\n", err);
        goto out;
    }
    if (out && session_record(b, out, err, sizeof err) != 0) {
        fprintf(stderr, "corun: %s\n", err);
        goto out;
    }
    session_plan_epochs(b, (unsigned)(at + more));
    const struct scenario *sc = session_scenario(b);
    if (json)
        report_json_begin(stdout, sc);
    else
        printf("%s: branched after epoch %lu of %u, %lu more epoch%s\n", argv[optind], at,
               session_epochs_done(r), more, more == 1 ? "" : "s");
    /* The log from the branch point on, as `run` prints it: the branch's note, the changes
     * made at the branch point, then each epoch's decisions before its rows. */
    unsigned seen = 0;
    while (seen < session_event_count(r) && session_event_at(r, seen)->epoch < at)
        seen++;
    report_events_since(stdout, b, &seen, json);
    rc = CLI_OK;
    for (unsigned long i = 0; i < more; i++) {
        int step = cli_stop_requested() ? 1 : session_step_epoch(b, progress, (void *)"branch");
        if (step == 1) {
            cli_stop_report(b, "the branch's epoch", i + 1, more);
            report_events_since(stdout, b, &seen, json);
            rc = CLI_FAILED;
            break;
        }
        const struct session_epoch *e = session_epoch_at(b, session_epochs_done(b) - 1);
        report_events_since(stdout, b, &seen, json); /* this epoch's boundary: before its rows */
        if (json)
            report_epoch_json(stdout, sc, e, i == 0);
        else
            report_epoch_text(stdout, sc, e,
                              i ? session_epoch_at(b, session_epochs_done(b) - 2) : NULL);
        if (step != 0) {
            fprintf(stderr, "corun: %s\n", session_error(b));
            rc = CLI_FAILED;
            break;
        }
    }
    if (json)
        report_json_end(stdout, b);
    if (out && cli_finish_recording(b, out, catalog) != 0)
        rc = CLI_FAILED;
    /* Stopped by a signal too: a reference cut mid-extension is a shorter trace of the same
     * samples (session_refs.c), so a rerun takes it from the cache as the workbench's does. */
    if (cat && session_traces_to_catalog(b, cat, err, sizeof err) != 0)
        fprintf(stderr, "corun: note: traces not cached (%s)\n", err);
out:
    catalog_close(cat);
    session_delete(b);
    session_delete(r);
    cli_stop_reraise(); /* stopped by a signal, with what it had kept: end as the signal does */
    return rc;
}

const struct cli_command cmd_branch = {
    .name = "branch",
    .args = "RUN.h5 EPOCH [--epochs N] [--out NEW.h5] [--catalog PATH] [--json]",
    .summary = "continue a recorded run after its EPOCH-th epoch, re-simulated and checked",
    .help = "The recorded scenario and seed are simulated again for EPOCH epochs and compared\n"
            "with the file (a file from another corun or with changed kernels is refused), then\n"
            "N more epochs (default 1; 0: none, so --out keeps the first EPOCH, checked) run\n"
            "and are printed with the log, as `run` prints them. The recorded switches, parameter\n"
            "and mix changes are re-applied where they happened up to EPOCH; those made at\n"
            "EPOCH itself (a lesson's step opened there too) are left out, and a note names\n"
            "each (a branch is where to choose again), except at 0, where they are the run's\n"
            "set-up (--predictor, --allocator). A lesson's scores made at EPOCH grade epochs\n"
            "the branch holds and are kept in its log, as are the run's \"branched from\"\n"
            "notes unless EPOCH is 0: a branch of a branch names its whole chain.\n"
            "After EPOCH nothing recorded is applied: the branch goes its own way.\n"
            "--out records the branch, from its first epoch, to a new run file with a row in\n"
            "the catalog (--catalog PATH, default\n"
            "$XDG_DATA_HOME/corun/catalog.db; a signal stops it as it stops `run`). As `run`\n"
            "does, it takes the kernels' private-mode references from the catalog's trace\n"
            "cache when they are there, stores them back, and uses the machine's cores; the\n"
            "results do not depend on either.\n",
    .run = branch_run,
};
