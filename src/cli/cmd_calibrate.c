/* cmd_calibrate — `corun calibrate [--gpu P]`: re-measure the profiles whose targets are for
 * preset P and print measured against target; exit 1 when one is out of tolerance. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/calibrate.h"
#include "corun/catalog.h"
#include "corun/cli.h"
#include "corun/datadir.h"
#include "corun/diag.h"

struct options {
    const char *gpu;
    const char *catalog; /* NULL: the default catalog */
    unsigned long cycles;
    int json;
    char **only;
    size_t n_only;
};

static int parse(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"gpu", required_argument, NULL, 'g'},     {"cycles", required_argument, NULL, 'c'},
        {"quick", no_argument, NULL, 'q'},         {"json", no_argument, NULL, 'j'},
        {"catalog", required_argument, NULL, 'C'}, {NULL, 0, NULL, 0},
    };
    *o = (struct options){.gpu = "hbm80", .cycles = CALIBRATE_DEFAULT_CYCLES};
    cli_getopt_reset();
    int c, quick = 0, cycles = 0;
    while ((c = cli_getopt(argc, argv, ":", longopts)) != -1) {
        switch (c) {
        case 'g': o->gpu = optarg; break;
        case 'c':
            if (cli_parse_uint("--cycles", optarg, 1000, 1000000000, &o->cycles) != 0)
                return -1;
            cycles = 1;
            break;
        case 'q':
            o->cycles = CALIBRATE_QUICK_CYCLES;
            quick = 1;
            break;
        case 'j': o->json = 1; break;
        case 'C': o->catalog = optarg; break;
        default: return -1;
        }
    }
    o->only = argv + optind;
    o->n_only = (size_t)(argc - optind);
    if (quick && cycles) { /* the later one won: --cycles 5000 --quick ran 20000 */
        fprintf(stderr,
                "corun: calibrate: --quick and --cycles both set the cycles: expected one\n");
        return -1;
    }
    return cli_names_once("calibrate", (const char *const *)o->only, o->n_only);
}

static void progress(void *user, const char *kernel, size_t done, size_t total)
{
    (void)user;
    cli_progress(kernel, total ? (double)done / (double)total : 1);
}

static const char *mark(bool ok)
{
    return ok ? "ok" : "DRIFT";
}

/* A row's status: ok, or DRIFT naming every check it failed. */
static const char *row_status(const struct calib_row *w)
{
    if (w->mpki_ok && w->class_ok)
        return "ok";
    if (!w->mpki_ok && !w->class_ok)
        return "DRIFT (mpki, class)";
    return w->class_ok ? "DRIFT (mpki)" : "DRIFT (class)";
}

static void print_text(const struct calib_report *r)
{
    printf("calibration on %s, %llu cycles per run; MPKI per 1000 thread instructions (warp "
           "MPKI / 32), tolerance %.0f %%\n",
           r->gpu, (unsigned long long)r->cycles, 100 * CALIBRATE_MPKI_TOLERANCE);
    printf("%-12s %-7s %5s %9s %9s %7s %6s %6s %6s %-9s %-9s %s\n", "kernel", "paper", "split",
           "mpki", "target", "error", "scale", "bw%", "rbh", "class", "target", "status");
    for (size_t i = 0; i < r->count; i++) {
        const struct calib_row *w = &r->rows[i];
        char target[32] = "-", error[32] = "-";
        if (w->target_mpki > 0) {
            snprintf(target, sizeof target, "%.4f", w->target_mpki);
            snprintf(error, sizeof error, "%+.1f%%", 100 * w->mpki_error);
        }
        /* MPKI spans 0.0004 to 60 here: fixed decimals, so a column reads alike down. */
        printf("%-12s %-7s %5s %9.4f %9s %7s %6.2f %6.1f %6.3f %-9s %-9s %s\n", w->kernel,
               calibrate_paper_name(w->paper), w->split ? calibrate_split_name(w->split) : "-",
               w->m.mpki_thread, target, error, w->m.scaling, w->m.bandwidth_pct, w->m.rbh,
               calibrate_class_name(w->m.measured_class), calibrate_class_name(w->target_class),
               row_status(w));
    }
    printf("%zu of %zu within tolerance\n", r->count - r->failures, r->count);
}

static void print_json(const struct calib_report *r)
{
    printf("{\"gpu\": ");
    cli_json_string(stdout, r->gpu);
    printf(", \"cycles\": %llu, \"tolerance\": %g, \"failures\": %zu, \"kernels\": [",
           (unsigned long long)r->cycles, CALIBRATE_MPKI_TOLERANCE, r->failures);
    for (size_t i = 0; i < r->count; i++) {
        const struct calib_row *w = &r->rows[i];
        printf("%s\n  {\"name\": ", i ? "," : "");
        cli_json_string(stdout, w->kernel);
        printf(", \"paper\": \"%s\", \"split\": \"%s\", \"mpki\": %.5f, \"mpki_warp\": %.4f, ",
               calibrate_paper_name(w->paper), calibrate_split_name(w->split), w->m.mpki_thread,
               w->m.mpki_warp);
        /* Without a published MPKI there is nothing to be off from: null, "none" (the text
         * prints "-"), not a perfect 0 and "ok". */
        if (w->target_mpki > 0)
            printf("\"target_mpki\": %g, \"mpki_error\": %.4f, \"mpki_status\": \"%s\", ",
                   w->target_mpki, w->mpki_error, mark(w->mpki_ok));
        else
            printf("\"target_mpki\": null, \"mpki_error\": null, \"mpki_status\": \"none\", ");
        printf("\"ipc\": %.4f, "
               "\"ipc_half\": %.4f, \"scaling\": %.4f, \"bandwidth_pct\": %.3f, \"rbh\": %.4f, "
               "\"class\": \"%s\", \"target_class\": \"%s\", \"class_status\": \"%s\"}",
               w->m.ipc, w->m.ipc_half, w->m.scaling, w->m.bandwidth_pct, w->m.rbh,
               calibrate_class_name(w->m.measured_class), calibrate_class_name(w->target_class),
               mark(w->class_ok));
    }
    printf("\n]}\n");
}

static int calibrate_cmd_run(int argc, char **argv)
{
    struct options o;
    if (parse(argc, argv, &o) != 0)
        return CLI_BAD_INPUT;
    char *datadir = datadir_locate();
    struct diag diags;
    diag_init(&diags);
    struct calib_report r;
    int rc = CLI_BAD_INPUT;
    /* Names and preset first: a mistyped kernel made the catalog and warned of it, then was
     * refused. */
    if (calibrate_check(datadir, o.gpu, (const char *const *)o.only, o.n_only, &diags) != 0)
        goto out;
    rc = CLI_FAILED; /* from here a failure is the measurement's */
    /* The catalog is a record of the measurement, not part of it: without one the calibration
     * still stands, and the user hears so before it starts, not after. */
    char err[512];
    struct catalog *cat = catalog_open(o.catalog, err, sizeof err);
    bool record = cat != NULL;
    catalog_close(cat);
    if (!record)
        fprintf(stderr, "corun: warning: the measurements will not be stored in the catalog: %s\n",
                err);
    /* Stopped by a signal it dies of it, as it did, but says so (it ended without a word). */
    cli_stop_note_install("calibrate",
                          record ? "nothing is stored: the catalog gets the measurements once "
                                   "every kernel is measured\n"
                                 : "nothing is kept\n");
    if (calibrate_run(datadir, o.gpu, o.cycles, (const char *const *)o.only, o.n_only, progress,
                      NULL, &r, &diags) == 0) {
        if (o.json)
            print_json(&r);
        else
            print_text(&r);
        rc = r.failures ? CLI_FAILED : CLI_OK;
        if (record && calibrate_record(datadir, &r, o.catalog, err, sizeof err) < 0)
            fprintf(stderr, "corun: warning: the measurements were not stored in the catalog: %s\n",
                    err);
        calibrate_report_done(&r);
    }
out:
    diag_print(&diags, stderr);
    diag_done(&diags);
    free(datadir);
    return rc;
}

const struct cli_command cmd_calibrate = {
    .name = "calibrate",
    .args = "[--gpu P] [--quick] [--cycles C] [--json] [--catalog PATH] [KERNEL...]",
    .summary = "re-measure the kernel profiles with targets on a preset against those targets",
    .help =
        "  --gpu P      the preset (default hbm80): measures every profile whose paper set its\n"
        "               targets there (hbm80: HSM, themis60: Themis, smqos24: SMQoS)\n"
        "  --quick      a shorter window (20000 cycles)\n"
        "  --cycles C   cycles per run (default 50000); each kernel runs on all SMs and half\n"
        "  --json       one JSON object on stdout (tolerance and mpki_error as fractions:\n"
        "               0.25 is 25 %; bandwidth_pct in %)\n"
        "  --catalog PATH\n"
        "               store each profile and its all-SM measurement in this catalog's\n"
        "               kernel library (default: $XDG_DATA_HOME/corun/catalog.db); a catalog\n"
        "               that cannot be written is a warning, not a failure\n"
        "  KERNEL...    only these kernels\n"
        "MPKI is compared per 1000 thread instructions (the papers' count; corun's warp\n"
        "MPKI / 32) within 25 %; the class by measurement must match the paper's. scale is\n"
        "the IPC on all SMs over twice the IPC on half (1: linear in the SMs, 0.5: no gain).\n"
        "Exit status 1 when a kernel is out of tolerance.\n",
    .run = calibrate_cmd_run,
};
