/* cmd_run — `corun run SCENARIO`: run a scenario headless and print each epoch. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/cli.h"
#include "corun/datadir.h"
#include "corun/diag.h"
#include "corun/scenario.h"
#include "corun/session.h"

struct options {
    const char *scenario;
    unsigned long epochs; /* 0: the scenario's */
    int json;
};

static int parse(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"epochs", required_argument, NULL, 'e'},
        {"json", no_argument, NULL, 'j'},
        {NULL, 0, NULL, 0},
    };
    *o = (struct options){0};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":e:j", longopts, NULL)) != -1) {
        switch (c) {
        case 'e':
            if (cli_parse_uint("--epochs", optarg, 1, 1000000, &o->epochs) != 0)
                return -1;
            break;
        case 'j': o->json = 1; break;
        case ':': fprintf(stderr, "corun: %s needs a value\n", argv[optind - 1]); return -1;
        default: fprintf(stderr, "corun: run: unknown option '%s'\n", argv[optind - 1]); return -1;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "usage: corun run SCENARIO [--epochs N] [--json]\n");
        return -1;
    }
    o->scenario = argv[optind];
    return 0;
}

static int progress(void *ctx, double done)
{
    const double *where = ctx; /* {epoch, epochs} */
    char label[64];
    snprintf(label, sizeof label, "epoch %.0f of %.0f", where[0] + 1, where[1]);
    cli_progress(label, (where[0] + done) / where[1]);
    return 0;
}

static void print_epoch_text(const struct scenario *sc, const struct session_epoch *e)
{
    if (e->index == 0)
        printf("%5s  %-12s %6s %8s %7s %9s %6s\n", "epoch", "kernel", "SMs", "IPC", "NP", "BW GB/s",
               "RBH");
    for (unsigned k = 0; k < e->nkernels; k++) {
        const struct session_kernel_epoch *ke = &e->k[k];
        printf("%5u  %-12s %6.1f %8.1f %7.3f %9.1f %6.3f\n", e->index + 1, sc->kernels[k].name,
               ke->c.sms, ke->c.ipc, ke->np_true, ke->c.bandwidth_gbs, ke->c.rbh);
    }
    if (e->m.valid)
        printf("%5s  system: STP %.3f  ANTT %.3f  fairness %.3f\n", "", e->m.stp, e->m.antt,
               e->m.fairness);
}

static void print_epoch_json(const struct scenario *sc, const struct session_epoch *e)
{
    printf("%s{\"epoch\": %u, \"start_cycle\": %llu, \"cycles\": %llu, \"kernels\": [",
           e->index ? ", " : "", e->index + 1, (unsigned long long)e->start_cycle,
           (unsigned long long)e->cycles);
    for (unsigned k = 0; k < e->nkernels; k++) {
        const struct session_kernel_epoch *ke = &e->k[k];
        printf("%s{\"name\": ", k ? ", " : "");
        cli_json_string(stdout, sc->kernels[k].name);
        printf(", \"sms\": %.3f, \"ipc\": %.4f, \"np\": %.5f, \"instructions\": %llu, "
               "\"bandwidth_gbs\": %.3f, \"rbh\": %.4f, \"l2_misses\": %llu, "
               "\"dram_interference_cycles\": %llu, \"energy_j\": %.6g}",
               ke->c.sms, ke->c.ipc, ke->np_true, (unsigned long long)ke->c.instructions,
               ke->c.bandwidth_gbs, ke->c.rbh, (unsigned long long)ke->c.l2_misses,
               (unsigned long long)ke->c.dram_interference_cycles, ke->c.energy_j);
    }
    printf("], \"stp\": %.5f, \"antt\": %.5f, \"fairness\": %.5f}", e->m.stp, e->m.antt,
           e->m.fairness);
}

static int run_run(int argc, char **argv)
{
    struct options o;
    if (parse(argc, argv, &o) != 0)
        return CLI_BAD_INPUT;
    char *datadir = datadir_locate();
    struct diag diags;
    diag_init(&diags);
    struct scenario sc;
    int rc = CLI_BAD_INPUT;
    struct session *s = NULL;
    if (scenario_load(&sc, o.scenario, datadir, &diags) != 0) {
        diag_print(&diags, stderr);
        goto out;
    }
    char err[512];
    s = session_new(&sc, err, sizeof err);
    if (!s) {
        fprintf(stderr, "%s: %s\n", o.scenario, err);
        goto out;
    }
    unsigned epochs = o.epochs ? (unsigned)o.epochs : sc.epochs;
    if (o.json) {
        printf("{\"scenario\": ");
        cli_json_string(stdout, sc.name);
        printf(", \"gpu\": ");
        cli_json_string(stdout, sc.gpu_name);
        printf(", \"seed\": %llu, \"epoch_cycles\": %u, \"epochs\": [", (unsigned long long)sc.seed,
               sc.epoch_cycles);
    } else {
        printf("%s (gpu %s): %u epochs of %u cycles, seed %llu\n", sc.name, sc.gpu_name, epochs,
               sc.epoch_cycles, (unsigned long long)sc.seed);
    }
    for (unsigned i = 0; i < epochs; i++) {
        double where[2] = {i, epochs};
        session_step_epoch(s, progress, where);
        const struct session_epoch *e = session_epoch_at(s, i);
        if (o.json)
            print_epoch_json(&sc, e);
        else
            print_epoch_text(&sc, e);
        fflush(stdout);
    }
    if (o.json)
        printf("]}\n");
    rc = CLI_OK;
out:
    session_delete(s);
    scenario_done(&sc);
    diag_done(&diags);
    free(datadir);
    return rc;
}

const struct cli_command cmd_run = {
    .name = "run",
    .args = "SCENARIO [--epochs N] [--json]",
    .summary = "run a scenario headless and print each epoch's kernels and metrics",
    .help = "Per epoch and kernel: SMs (time-weighted), IPC (warp instructions per core cycle),\n"
            "true NP (private-mode cycles for the epoch's instructions / epoch cycles), DRAM\n"
            "bandwidth in GB/s and row-buffer hit rate; per epoch STP, ANTT and fairness.\n\n"
            "  --epochs N   run N epochs instead of the scenario's\n"
            "  --json       one JSON document on stdout\n\n"
            "A progress bar goes to stderr when it is a terminal.\n",
    .run = run_run,
};
