/* cmd_plot — `corun plot RUN.h5 --out FILE.svg|.png`: a recorded run as a picture for slides
 * (NP history true and predicted, fairness and STP, the SM partition over the epochs; an
 * accelerator run's task timeline and query latencies). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "corun/accel_runfile.h"
#include "corun/cli.h"
#include "corun/datadir.h"
#include "corun/plot.h"
#include "corun/session.h"
#include "corun/session_plot.h"

/* --width or --height, in pixels. */
static int parse_size(const char *opt, const char *text, unsigned *out)
{
    unsigned long v;
    if (cli_parse_uint(opt, text, 200, 10000, &v) != 0)
        return -1;
    *out = (unsigned)v;
    return 0;
}

static int plot_run(int argc, char **argv)
{
    static const struct option opts[] = {{"out", required_argument, NULL, 'o'},
                                         {"width", required_argument, NULL, 'w'},
                                         {"height", required_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *out = NULL;
    unsigned width = 1200, height = 900;
    cli_getopt_reset();
    int c;
    while ((c = cli_getopt(argc, argv, ":", opts)) != -1) {
        if (c == CLI_OPT_BAD) { /* said, with the nearest option's name */
            cli_usage_error(&cmd_plot);
            return CLI_BAD_INPUT;
        } else if (c == 'o' && cli_nonempty("--out", optarg) != 0)
            return CLI_BAD_INPUT;
        else if (c == 'o')
            out = optarg;
        else if (c == 'w' && parse_size("--width", optarg, &width) != 0)
            return CLI_BAD_INPUT;
        else if (c == 'h' && parse_size("--height", optarg, &height) != 0)
            return CLI_BAD_INPUT;
    }
    if (cli_operands(&cmd_plot, argc, argv, optind, 1, "a run file (RUN.h5)") != 0)
        return CLI_BAD_INPUT;
    if (!out) {
        fprintf(stderr, "corun: plot: expected --out FILE.svg or --out FILE.png\n");
        cli_usage_error(&cmd_plot);
        return CLI_BAD_INPUT;
    }
    /* A picture over the run file it draws (the same name, or a link to it) destroyed the run
     * (exit 0, the catalog still listing it). */
    if (cli_same_file(out, argv[optind])) {
        fprintf(stderr,
                "corun: plot: --out %s is the run file it would draw (%s); choose another "
                "name\n",
                out, argv[optind]);
        return CLI_BAD_INPUT;
    }
    char err[512];
    if (accel_runfile_probe(argv[optind]) == 1) {
        struct accel_record ar;
        int rc = CLI_OK;
        int drawn = accel_runfile_read(argv[optind], &ar, err, sizeof err) != 0
                        ? -2
                        : plot_accel_write(&ar, out, width, height, err, sizeof err);
        if (drawn != 0) {
            fprintf(stderr, "corun: %s\n", err);
            rc = drawn == -1 ? CLI_FAILED : CLI_BAD_INPUT;
        } else {
            printf("corun: drew %zu tasks and %zu queries of %s in %s\n", ar.ntasks, ar.nqueries,
                   argv[optind], out);
        }
        accel_record_done(&ar);
        return rc;
    }
    char *datadir = datadir_locate();
    int rc = CLI_OK;
    struct session *r = session_replay(argv[optind], datadir, err, sizeof err);
    if (!r) {
        fprintf(stderr, "corun: %s\n", err);
        rc = CLI_BAD_INPUT;
    } else {
        struct session_plot p;
        if (session_plot_fill(r, &p) != 0) {
            fprintf(stderr, "corun: %s: the run has no epochs to draw\n", argv[optind]);
            rc = CLI_BAD_INPUT;
        } else if ((rc = plot_write(&p.d, out, width, height, err, sizeof err)) != 0) {
            fprintf(stderr, "corun: %s\n", err);
            rc = rc == -1 ? CLI_FAILED : CLI_BAD_INPUT; /* a full disk; else what was asked */
        } else {
            printf("corun: drew %u epoch%s of %s in %s\n", p.d.nepochs, p.d.nepochs == 1 ? "" : "s",
                   argv[optind], out);
        }
        session_plot_done(&p);
    }
    session_delete(r);
    free(datadir);
    return rc;
}

const struct cli_command cmd_plot = {
    .name = "plot",
    .args = "RUN.h5 --out FILE.svg|FILE.png [--width W] [--height H]",
    .summary = "draw a recorded run for slides: NP history, fairness and STP, SM partition",
    .help = "Three panels over the run's epochs: each kernel's true NP (solid) and the\n"
            "predictor's (dashed), fairness and STP, and the SM partition (one column per\n"
            "epoch, each SM in its owner's colour; idle white, power-gated grey). The file's\n"
            "extension chooses SVG or PNG; the size defaults to 1200x900 pixels (200 to 10000\n"
            "each). A picture already at FILE is replaced, by a whole one only. An\n"
            "accelerator run file draws two: its tasks over time, one row per process\n"
            "(kernels solid, copies light: host to device in the row's upper half, device to\n"
            "host in its lower half), and each LS query's latency in arrival order against\n"
            "the QoS bound (target x solo p99, dashed), with the forecast as rings and a\n"
            "query that never completed as a cross at the top (one not run yet, in a run\n"
            "saved part way, is not drawn). A small picture's text is drawn smaller to fit\n"
            "it.\n",
    .run = plot_run,
};
