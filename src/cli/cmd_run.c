/* cmd_run — `corun run SCENARIO`: run a scenario headless, print each epoch, and record it. */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_run.h"
#include "cmd_run_accel.h"
#include "corun/accel_predict.h"
#include "corun/accel_scenario.h"
#include "corun/catalog.h"
#include "corun/cli.h"
#include "corun/datadir.h"
#include "corun/diag.h"
#include "corun/gpu.h"
#include "corun/predict.h"
#include "corun/preset.h"
#include "corun/report.h"
#include "corun/scenario.h"
#include "corun/session.h"
#include "corun/util.h"

struct options {
    const char *scenario;
    unsigned long epochs;  /* 0: the scenario's */
    const char *seed;      /* NULL: the scenario's */
    const char *out;       /* run file to record, or NULL */
    const char *catalog;   /* NULL: the default catalog */
    const char *predictor; /* NULL: the scenario's */
    const char *allocator; /* NULL: the scenario's */
    const char *sets[32];  /* --set KEY=VALUE, in order */
    unsigned nsets;
    int json;
    int explain; /* print the predictor's explanation of each kernel after each epoch */
    struct mix_change {
        unsigned long epoch; /* before this epoch (1-based) */
        char what;           /* '+' add name, '-' remove kernel index */
        const char *name;
        unsigned long index;
        const char *arg; /* as given, for messages */
    } changes[16];
    unsigned nchanges;
    unsigned long threads; /* for the private-mode references */
    int no_shortcuts;      /* every GPU stepped cycle by cycle */
    int dry;               /* check everything a run checks before simulating, then stop */
};

/* "--add N:NAME" or "--remove N:K" into o->changes. */
static int parse_change(struct options *o, char what, const char *arg)
{
    const char *opt = what == '+' ? "--add" : "--remove";
    if (o->nchanges == CORUN_ARRAY_LEN(o->changes)) {
        fprintf(stderr, "corun: %s: at most %zu mix changes\n", opt, CORUN_ARRAY_LEN(o->changes));
        return -1;
    }
    struct mix_change *c = &o->changes[o->nchanges];
    const char *colon = strchr(arg, ':');
    char *epoch = colon ? xasprintf("%.*s", (int)(colon - arg), arg) : NULL;
    int rc = -1;
    if (!colon || !colon[1])
        fprintf(stderr, "corun: %s %s: expected EPOCH:%s (e.g. %s)\n", opt, arg,
                what == '+' ? "KERNEL" : "INDEX", what == '+' ? "3:lbm" : "3:0");
    else if (cli_parse_uint(opt, epoch, 1, 1000000, &c->epoch) == 0 &&
             (what == '+' ||
              cli_parse_uint(opt, colon + 1, 0, GPU_MAX_KERNELS - 1, &c->index) == 0))
        rc = 0;
    free(epoch);
    if (rc == 0) {
        c->what = what;
        c->name = colon + 1;
        c->arg = arg;
        o->nchanges++;
    }
    return rc;
}

static int parse(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"epochs", required_argument, NULL, 'e'},    {"seed", required_argument, NULL, 's'},
        {"out", required_argument, NULL, 'o'},       {"catalog", required_argument, NULL, 'c'},
        {"set", required_argument, NULL, 'S'},       {"json", no_argument, NULL, 'j'},
        {"predictor", required_argument, NULL, 'p'}, {"allocator", required_argument, NULL, 'a'},
        {"explain", no_argument, NULL, 'x'},         {"add", required_argument, NULL, '+'},
        {"remove", required_argument, NULL, '-'},    {"threads", required_argument, NULL, 'T'},
        {"no-shortcuts", no_argument, NULL, 'N'},    {NULL, 0, NULL, 0},
    };
    *o = (struct options){.threads = cli_default_threads()};
    cli_getopt_reset();
    int c;
    while ((c = cli_getopt(argc, argv, ":", longopts)) != -1) {
        switch (c) {
        case 'e':
            if (cli_parse_uint("--epochs", optarg, 1, 1000000, &o->epochs) != 0)
                return -1;
            break;
        case 's': o->seed = optarg; break;
        case 'o':
            if (cli_nonempty("--out", optarg) != 0) /* it said "corun: : cannot create" */
                return -1;
            o->out = optarg;
            break;
        case 'c': o->catalog = optarg; break;
        case 'S':
            if (o->nsets == CORUN_ARRAY_LEN(o->sets)) {
                fprintf(stderr, "corun: run: --set: at most %zu changes\n",
                        CORUN_ARRAY_LEN(o->sets));
                return -1;
            }
            o->sets[o->nsets++] = optarg;
            break;
        case 'j': o->json = 1; break;
        case 'p':
            if (cli_nonempty("--predictor", optarg) != 0)
                return -1;
            o->predictor = optarg;
            break;
        case 'a':
            if (cli_nonempty("--allocator", optarg) != 0)
                return -1;
            o->allocator = optarg;
            break;
        case 'x': o->explain = 1; break;
        case 'N': o->no_shortcuts = 1; break;
        case 'T':
            if (cli_parse_uint("--threads", optarg, 1, 64, &o->threads) != 0)
                return -1;
            break;
        case '+':
        case '-':
            if (parse_change(o, (char)c, optarg) != 0)
                return -1;
            break;
        default: return -1;
        }
    }
    if (cli_operands(&cmd_run, argc, argv, optind, 1, "a scenario file (SCENARIO)") != 0)
        return -1;
    o->scenario = argv[optind];
    return 0;
}

static int progress(void *ctx, double done)
{
    const double *where = ctx; /* {epoch, epochs} */
    char label[64];
    snprintf(label, sizeof label, "epoch %.0f of %.0f", where[0] + 1, where[1]);
    cli_progress(label, (where[0] + done) / where[1]);
    return cli_stop_requested() != 0; /* abandons the epoch */
}

/* The active predictor's inputs and arithmetic for every kernel's last prediction. */
static void print_explain(const struct session *s)
{
    const struct scenario *sc = session_scenario(s);
    for (unsigned k = 0; k < sc->nkernels; k++) {
        struct predict_text t;
        if (session_predictor_explain(s, k, &t) != 0)
            return;
        printf("  explain %s (%s):\n", sc->kernels[k].name, session_predictor_name(s));
        for (unsigned i = 0; i < t.n; i++)
            printf("    %s\n", t.line[i]);
    }
}

/* Ask the session for the mix changes due before epoch `epoch` (1-based). 0, or -1 with a
 * message. */
static int ask_changes(struct session *s, const struct options *o, unsigned epoch)
{
    char err[512];
    for (unsigned i = 0; i < o->nchanges; i++) {
        const struct mix_change *c = &o->changes[i];
        if (c->epoch != epoch)
            continue;
        int rc = c->what == '+' ? session_add_kernel(s, c->name, err, sizeof err)
                                : session_remove_kernel(s, (unsigned)c->index, err, sizeof err);
        if (rc < 0) {
            fprintf(stderr, "corun: %s %s: %s\n", c->what == '+' ? "--add" : "--remove", c->arg,
                    err);
            return -1;
        }
    }
    return 0;
}

/* The mix changes in the order the run meets them (by epoch, then as given), rehearsed on the
 * kernels' places alone: what session_add_kernel and session_remove_kernel would refuse when
 * the run reached them. Returns 0, or -1 with a message. */
static int rehearse_changes(const struct options *o, unsigned nkernels, unsigned sms)
{
    unsigned order[CORUN_ARRAY_LEN(o->changes)];
    for (unsigned i = 0; i < o->nchanges; i++) {
        unsigned j = i;
        for (; j > 0 && o->changes[order[j - 1]].epoch > o->changes[i].epoch; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    bool gone[GPU_MAX_KERNELS] = {false};
    unsigned total = nkernels, live = nkernels, applied = nkernels;
    unsigned long epoch = 0;
    for (unsigned i = 0; i < o->nchanges; i++) {
        const struct mix_change *c = &o->changes[order[i]];
        if (c->epoch != epoch) { /* the additions of the epoch before joined */
            epoch = c->epoch;
            applied = total;
        }
        const char *why = NULL;
        char text[160];
        if (c->what == '+' && strlen(c->name) >= SESSION_KERNEL_NAME_MAX) {
            snprintf(text, sizeof text, "the kernel's name has %zu bytes, expected at most %d",
                     strlen(c->name), SESSION_KERNEL_NAME_MAX - 1);
            why = text;
        } else if (c->what == '+' && total >= GPU_MAX_KERNELS) {
            snprintf(text, sizeof text, "a run holds at most %d kernels over its life",
                     GPU_MAX_KERNELS);
            why = text;
        } else if (c->what == '+' && live >= sms) {
            snprintf(text, sizeof text,
                     "the mix would hold %u kernels on %u SM%s at epoch %lu (expected at least "
                     "one SM per kernel: remove one first)",
                     live + 1, sms, sms == 1 ? "" : "s", c->epoch);
            why = text;
        } else if (c->what == '+') {
            total++;
            live++;
        } else if (c->index >= total) {
            snprintf(text, sizeof text,
                     "no kernel %lu at epoch %lu: expected an index from 0 to %u", c->index,
                     c->epoch, total - 1);
            why = text;
        } else if (gone[c->index]) {
            snprintf(text, sizeof text, "kernel %lu is already removed by epoch %lu", c->index,
                     c->epoch);
            why = text;
        } else if (live <= 1) {
            snprintf(text, sizeof text, "kernel %lu is the last one in the mix at epoch %lu",
                     c->index, c->epoch);
            why = text;
        } else {
            gone[c->index] = c->index < applied; /* else it withdraws a pending addition */
            live--;
        }
        if (why) {
            fprintf(stderr, "corun: %s %s: %s\n", c->what == '+' ? "--add" : "--remove", c->arg,
                    why);
            return -1;
        }
    }
    return 0;
}

/* Run the epochs, printing each; returns 0, -1 when recording failed, -2 when a mix change
 * was refused, or -3 when a signal stopped the run, abandoning the epoch in flight (messages
 * printed). */
static int run_epochs(struct session *s, const struct options *o, unsigned epochs)
{
    unsigned seen = 0;
    report_events_since(stdout, s, &seen, o->json);
    for (unsigned i = 0; i < epochs; i++) {
        if (ask_changes(s, o, i + 1) != 0)
            return -2;
        double where[2] = {i, epochs};
        int rc = cli_stop_requested() ? 1 : session_step_epoch(s, progress, where);
        if (rc == 1) {
            cli_stop_report(s, "epoch", i + 1, epochs);
            report_events_since(stdout, s, &seen, o->json);
            return -3;
        }
        const struct session_epoch *e = session_epoch_at(s, session_epochs_done(s) - 1);
        /* The allocator's decision at this epoch's boundary comes before its rows. Kernels
         * added during the run are in the session's scenario. */
        const struct scenario *sc = session_scenario(s);
        report_events_since(stdout, s, &seen, o->json);
        if (o->json)
            report_epoch_json(stdout, sc, e, i == 0);
        else
            report_epoch_text(stdout, sc, e,
                              i ? session_epoch_at(s, session_epochs_done(s) - 2) : NULL);
        if (o->explain && !o->json)
            print_explain(s);
        fflush(stdout);
        if (rc != 0) {
            fprintf(stderr, "corun: %s\n", session_error(s));
            return -1;
        }
    }
    return 0;
}

/* An accelerator scenario: the task engine runs it (cmd_run_accel.c); the spatial mode's
 * options mean nothing there and are refused rather than ignored. */
static int run_accelerator(const struct options *o, const char *datadir)
{
    if (o->epochs || o->nsets || o->nchanges || o->explain || o->allocator) {
        fprintf(stderr,
                "corun: %s: an accelerator scenario takes only --predictor, --seed, --out, "
                "--catalog, --threads, --no-shortcuts and --json (--epochs, --set, --add, "
                "--remove, --explain and --allocator are for spatial scenarios)\n",
                o->scenario);
        return CLI_BAD_INPUT;
    }
    struct run_accel_options ro = {.dry = o->dry != 0,
                                   .json = o->json != 0,
                                   .out = o->out,
                                   .catalog = o->catalog,
                                   .threads = (unsigned)o->threads};
    if (o->predictor && strcmp(o->predictor, "none") != 0) {
        ro.predictor = accel_predictor_find(o->predictor);
        if (ro.predictor < 0) {
            fprintf(stderr, "corun: --predictor %s: %s; an accelerator scenario takes none, ",
                    o->predictor,
                    predict_registry_find(o->predictor) ? "that predictor is for spatial scenarios"
                                                        : "unknown predictor");
            for (int i = ACCEL_PREDICT_NONE + 1; i < ACCEL_PREDICTORS; i++)
                fprintf(stderr, "%s%s", accel_predictor_name(i),
                        i + 1 < ACCEL_PREDICTORS ? ", " : " (`corun help predictors`)\n");
            return CLI_BAD_INPUT;
        }
    }
    if (o->seed) {
        unsigned long seed;
        if (cli_parse_uint("--seed", o->seed, 0, CLI_SEED_MAX, &seed) != 0)
            return CLI_BAD_INPUT;
        ro.has_seed = true;
        ro.seed = seed;
    }
    return cmd_run_accelerator(o->scenario, datadir, &ro);
}

/* A run of o.scenario, which names a file. */
static int run_file(struct options o)
{
    if (o.out && o.catalog && cli_same_file(o.out, o.catalog)) { /* either kind of scenario */
        fprintf(stderr, "corun: --out and --catalog both name %s: expected two files\n", o.out);
        return CLI_BAD_INPUT;
    }
    /* Both set the run's length: it logged "set epochs=2" and ran --epochs' 1. Likewise the
     * seed: it logged "set seed=5" and ran --seed's 6. */
    for (unsigned i = 0; i < o.nsets; i++) {
        if (o.epochs && strncmp(o.sets[i], "epochs=", 7) == 0) {
            fprintf(stderr,
                    "corun: --set %s and --epochs %lu both give the run's length: expected one\n",
                    o.sets[i], o.epochs);
            return CLI_BAD_INPUT;
        }
        if (o.seed && strncmp(o.sets[i], "seed=", 5) == 0) {
            fprintf(stderr,
                    "corun: --set %s and --seed %s both give the run's seed: expected one\n",
                    o.sets[i], o.seed);
            return CLI_BAD_INPUT;
        }
    }
    int mode = accel_scenario_probe(o.scenario);
    if (mode == 1) {
        char *dir = datadir_locate();
        int arc = run_accelerator(&o, dir);
        free(dir);
        return arc;
    }
    if (mode == 0 && o.predictor && accel_predictor_find(o.predictor) >= 0) {
        const char *names[32];
        size_t n = predict_registry_names(names, CORUN_ARRAY_LEN(names));
        fprintf(stderr,
                "corun: --predictor %s: that predictor is for accelerator scenarios (mode = "
                "\"accelerator\"); %s is spatial and takes none",
                o.predictor, o.scenario);
        for (size_t i = 0; i < n && i < CORUN_ARRAY_LEN(names); i++)
            fprintf(stderr, ", %s", names[i]);
        fprintf(stderr, " (`corun help predictors`)\n");
        return CLI_BAD_INPUT;
    }
    char *datadir = datadir_locate();
    struct diag diags;
    diag_init(&diags);
    struct scenario sc;
    int rc = CLI_BAD_INPUT;
    struct session *s = NULL;
    char err[512];
    if (scenario_load(&sc, o.scenario, datadir, &diags) != 0) {
        diag_print(&diags, stderr);
        goto out;
    }
    for (unsigned i = 0; i < o.nsets; i++)
        scenario_set(&sc, o.sets[i], &diags);
    if (!diags.count)
        session_check_choices(&sc, &diags);
    if (diags.count) {
        cli_print_diags("run", &diags);
        goto out;
    }
    if (o.seed) {
        unsigned long seed;
        if (cli_parse_uint("--seed", o.seed, 0, CLI_SEED_MAX, &seed) != 0)
            goto out;
        sc.seed = seed;
    }
    s = session_new(&sc, err, sizeof err);
    if (!s) {
        /* A setting's error is placed already (FILE:LINE: name: ...), as check prints it. */
        bool placed = strncmp(err, o.scenario, strlen(o.scenario)) == 0;
        bool set = strncmp(err, "--set:", 6) == 0;
        fprintf(stderr, "%s%s%s\n",
                placed ? ""
                : set  ? "corun: run"
                       : o.scenario,
                placed ? "" : ": ", err);
        goto out;
    }
    session_set_threads(s, (unsigned)o.threads);
    /* The scenario's own predictor or allocator named again changes nothing: no event. */
    if (o.predictor && strcmp(o.predictor, session_predictor_name(s)) != 0 &&
        session_set_predictor(s, o.predictor, err, sizeof err) != 0) {
        fprintf(stderr, "corun: --predictor: %s\n", err);
        goto out;
    }
    if (o.allocator && strcmp(o.allocator, session_allocator_name(s)) != 0 &&
        session_set_allocator(s, o.allocator, err, sizeof err) != 0) {
        fprintf(stderr, "corun: --allocator: %s\n", err);
        goto out;
    }
    /* Recorded as events, so a replay and a branch apply them to the recorded scenario too. */
    for (unsigned i = 0; i < o.nsets; i++) {
        char text[256];
        snprintf(text, sizeof text, "set %s", o.sets[i]);
        session_note(s, "parameter", text);
    }
    /* Every mix change is checked before anything is simulated or recorded: a refused one
     * must leave no run file or catalog row behind. */
    unsigned epochs = o.epochs ? (unsigned)o.epochs : sc.epochs;
    /* Kernels to add are checked now, not when the run reaches them: that each is known, and
     * that its thread block fits an SM of this run's GPU (with its overrides; refused at its
     * epoch, the run had recorded the epochs before it). */
    for (unsigned i = 0; i < o.nchanges && !diags.count; i++) {
        if (o.changes[i].what != '+')
            continue;
        struct kernel_profile p = {0};
        /* "corun: " as --add's other refusals begin (the diag names no file here) */
        char *where = xasprintf("corun: --add %s", o.changes[i].arg);
        if (preset_kernel_find(datadir, o.changes[i].name, where, &p, &diags) == 0 &&
            preset_kernel_check(datadir, NULL, &sc.gpu, &p, err, sizeof err) != 0)
            diag_add(&diags, "%s: %s", where, err);
        free(where);
        kernel_profile_done(&p);
    }
    if (diags.count) {
        diag_print(&diags, stderr);
        goto out;
    }
    for (unsigned i = 0; i < o.nchanges; i++)
        if (o.changes[i].epoch > epochs) {
            fprintf(stderr, "corun: %s %s: expected an epoch from 1 to %u (the run's length)\n",
                    o.changes[i].what == '+' ? "--add" : "--remove", o.changes[i].arg, epochs);
            goto out;
        }
    if (rehearse_changes(&o, sc.nkernels, sc.gpu.sms) != 0)
        goto out;
    if (o.dry) { /* no catalog opened, no file written */
        rc = CLI_OK;
        goto out;
    }
    /* The catalog's trace cache spares re-simulating the private-mode references; without a
     * usable catalog the run goes on and simulates them. */
    struct catalog *cat = catalog_open(o.catalog, err, sizeof err);
    if (cat && o.out && catalog_writable(cat, "adding the run", err, sizeof err) != 0) {
        catalog_close(cat); /* found at the end, the run made and its file kept, it said */
        cat = NULL;         /* "try again" to a command a kept file then refused */
    }
    if (!cat && (o.out || o.catalog)) {
        /* The run would end without its catalog row, or a catalog named with --catalog would
         * go unused (it ran, with a note): say so before simulating it. */
        fprintf(stderr, "corun: %s; the run was not started\n", err);
        goto out;
    }
    if (!cat || session_traces_from_catalog(s, cat, err, sizeof err) < 0)
        fprintf(stderr, "corun: note: no trace cache (%s)\n", err);
    if (o.out && session_record(s, o.out, err, sizeof err) != 0) {
        catalog_close(cat);
        fprintf(stderr, "corun: %s\n", err);
        goto out;
    }
    if (o.json)
        report_json_begin(stdout, &sc);
    else
        printf("%s (gpu %s): %u epoch%s of %u cycles, seed %llu\n", sc.name, sc.gpu_name, epochs,
               epochs == 1 ? "" : "s", sc.epoch_cycles, (unsigned long long)sc.seed);
    session_plan_epochs(s, epochs);
    cli_stop_install();
    int ran = run_epochs(s, &o, epochs);
    rc = ran == 0 ? CLI_OK : ran == -2 ? CLI_BAD_INPUT : CLI_FAILED;
    /* Stopped by a signal too: a reference cut mid-extension is a shorter trace of the same
     * samples (session_refs.c), so a rerun takes it from the cache as the workbench's does. */
    if (cat && session_traces_to_catalog(s, cat, err, sizeof err) != 0)
        fprintf(stderr, "corun: note: traces not cached (%s)\n", err);
    catalog_close(cat);
    if (o.json)
        report_json_end(stdout, s);
    if (o.out && cli_finish_recording(s, o.out, o.catalog) != 0)
        rc = CLI_FAILED;
out:
    session_delete(s);
    scenario_done(&sc);
    diag_done(&diags);
    free(datadir);
    return rc;
}

/* run's arguments, run (dry: checked as a run checks them, nothing simulated). */
static int run_args(int argc, char **argv, bool dry)
{
    struct options o;
    if (parse(argc, argv, &o) != 0)
        return CLI_BAD_INPUT;
    char *datadir = datadir_locate();
    char *path = cli_find_scenario(o.scenario, datadir, "scenarios");
    free(datadir);
    if (!path)
        return CLI_BAD_INPUT;
    o.scenario = path;
    if (dry)
        o.dry = 1;
    else if (o.no_shortcuts)
        gpu_set_default_fast_forward(false); /* before any GPU, the references' included */
    int rc = run_file(o);
    free(path);
    return rc;
}

static int run_run(int argc, char **argv)
{
    int rc = run_args(argc, argv, false);
    cli_stop_reraise(); /* stopped by a signal, with what it had kept: end as the signal does */
    return rc;
}

int cmd_run_check(int argc, char **argv)
{
    return run_args(argc, argv, true);
}

const struct cli_command cmd_run = {
    .name = "run",
    .args = "SCENARIO [--epochs N] [--seed S] [--set K=V]... [--out RUN.h5] [--catalog PATH] "
            "[--predictor P] [--allocator A] [--add N:KERNEL]... [--remove N:K]... [--explain] "
            "[--json] [--threads N] [--no-shortcuts]",
    .summary = "run a scenario headless, print each epoch, and optionally record it",
    .help = "SCENARIO is a file, or the name of one corun ships (`corun run default`,\n"
            "`corun run studies/quad-mixed`: scenarios/NAME.cfg in its data directory).\n"
            "Per epoch and kernel: SMs (time-weighted), IPC (warp instructions per core cycle),\n"
            "true NP (private-mode cycles for the epoch's instructions / epoch cycles), DRAM\n"
            "bandwidth in GB/s and row-buffer hit rate; per epoch STP, ANTT and fairness.\n\n"
            "  --epochs N       run N epochs instead of the scenario's\n"
            "  --seed S         seed every random stream with S instead of the scenario's\n"
            "  --set KEY=VALUE  change a scenario setting (epochs=5, epoch_cycles=100000,\n"
            "                   gpu.sms=40, gpu.dram.timing.faw=30, kernels[1].priority=high,\n"
            "                   kernels[0].qos_target=0.5, weights=0.25,0.75, ...; not mode);\n"
            "                   repeatable, validated like the scenario file, and recorded as\n"
            "                   parameter events\n"
            "  --out RUN.h5     record the run to a new HDF5 run file (flushed every epoch, so\n"
            "                   a crash loses at most the epoch in flight) and add it to the\n"
            "                   catalog\n"
            "  --catalog PATH   the catalog to add it to, and whose trace cache keeps the\n"
            "                   kernels' private-mode references for the next run, with\n"
            "                   --out or not (default: $XDG_DATA_HOME/corun/catalog.db)\n"
            "  --predictor P    predict each kernel's NP with P and print NP^, its error\n"
            "                   |NP^ - NP| / NP and the predicted class (`corun help predictors`;\n"
            "                   oracle is the private-mode truth, simulation only; none: no "
            "prediction)\n"
            "  --allocator A    repartition the SMs with A at every epoch boundary (static: keep\n"
            "                   the scenario's split; even, proportional, static-smqos, fair,\n"
            "                   qos, themis-engine, smqos, bw-app: `corun help allocators`);\n"
            "                   its decisions are printed and recorded with their reasons\n"
            "  --add N:KERNEL   before epoch N, add the library kernel KERNEL to the mix (it\n"
            "                   takes the next index; the SMs are split evenly over the new mix)\n"
            "  --remove N:K     before epoch N, remove kernel K (0-based) from the mix; its SMs\n"
            "                   go to the others. Both are recorded as mix events (at most 8\n"
            "                   kernels over a run, removed ones included)\n"
            "  --explain        after each epoch, the predictor's inputs and intermediate values\n"
            "                   for every kernel (as the workbench's explain panel shows them)\n"
            "  --json           one JSON document on stdout\n"
            "  --threads N      threads for the kernels' private-mode references, which\n"
            "                   are separate simulations run side by side, and ahead\n"
            "                   while the epoch's shared run goes on; with none to run\n"
            "                   ahead (cached), the shared run's LLC and DRAM on a\n"
            "                   second thread while that is faster than one (it times\n"
            "                   itself: not beside another busy job), and with\n"
            "                   gpu.order_free=true its SMs too, at most one thread\n"
            "                   per CPU (default: the CPUs it may run on, at most 8);\n"
            "                   accelerator scenarios: above 1, the solo runs beside\n"
            "                   the co-located one; the results do not depend on N\n"
            "  --no-shortcuts   step every GPU cycle by cycle, without the simulator's\n"
            "                   shortcuts (an SM's compute rotation fast-forwarded,\n"
            "                   stretches in which nothing is due jumped over), the\n"
            "                   private-mode references too (cached apart): the same\n"
            "                   output, slower; `corun bench --compare corun\n"
            "                   --other-args --no-shortcuts` checks that and times the\n"
            "                   shortcuts\n\n"
            "A progress bar goes to stderr when it is a terminal. Ctrl-C (SIGINT), SIGTERM,\n"
            "SIGHUP, or its output closed (SIGPIPE: `corun run ... | head`) stops a spatial\n"
            "run within a fraction of an epoch: the epoch in flight is abandoned, the run\n"
            "file is closed with the epochs before it and gets its catalog row, --json's\n"
            "output is completed, and corun ends as the signal does. An accelerator run stops\n"
            "at the next turn of its loop and keeps the co-located run so far: its table or\n"
            "JSON (\"complete\": false), its run file and catalog row marked part way, and\n"
            "where it stopped on stderr; stopped during the solo runs, it keeps nothing, and\n"
            "during a forecast, the measured run without the forecast.\n\n"
            "An accelerator scenario (mode = \"accelerator\", `corun help accelerator`) runs\n"
            "its applications' tasks on the k40-style GPU with kernels sharing the SMs first\n"
            "come, first served and copies sharing the PCIe link: each LS application alone\n"
            "first (its solo latency, under the same arrivals; with --threads above 1 on a\n"
            "thread beside the rest), then every application together. It prints each LS\n"
            "application's query latency p50 and p99 in ms, its solo p99 and whether p99 <=\n"
            "qos_target x solo p99, each batch application's passes, the GPU utilization (SM\n"
            "time holding thread blocks), the link's busy time and the tasks done (in --json\n"
            "gpu_utilization, pcie_busy_h2d and pcie_busy_d2h are fractions of the run). Only\n"
            "--predictor, --seed, --out, --catalog, --threads, --no-shortcuts and --json apply; "
            "--out writes the\n"
            "run and its task table to a new HDF5 file ('corun show' prints it again) and adds\n"
            "it to the catalog ('corun runs list' shows it as aN). --predictor prophet "
            "(Prophet's schedule\n"
            "predictor), prophet-even (its variant with the link split evenly among sharing\n"
            "copies) or sequential (one task at a time per queue, Prophet's eq. 1) measures\n"
            "every application's solo-run profile on the simulated GPU and prints the LS\n"
            "latencies it predicts from them beside the measured ones, with the error of the\n"
            "p99: |predicted - measured| / measured. --predictor bubble (Prophet's PCIe-bubble\n"
            "baseline) measures each LS application beside 0-15 copy-only bubbles and each\n"
            "batch application's pressure in bubbles, and scales the latencies alone.\n",
    .run = run_run,
};
