/* cmd_reproduce — `corun reproduce EXPERIMENT --accuracy`: a paper's predictor-accuracy
 * experiment, our errors printed beside the figures the paper published. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_reproduce_prophet.h"
#include "corun/cli.h"
#include "corun/datadir.h"
#include "corun/predict.h"
#include "corun/reproduce.h"
#include "corun/reproduce_journal.h"
#include "corun/suggest.h"
#include "corun/util.h"
#include "reproduce_alloc_report.h"
#include "reproduce_report.h"
#include "slurm_cli.h"

struct options {
    const struct repro_experiment *exp;
    struct repro_options ro;
    const char *flag; /* "accuracy" or another accuracy experiment's flag ("quads") */
    bool json, list;
};

static void list_experiments(void)
{
    for (size_t i = 0; i < repro_experiment_count(); i++) {
        const struct repro_experiment *e = repro_experiment_at(i);
        char flag[32];
        snprintf(flag, sizeof flag, "--%s", e->flag);
        printf("%-8s %-11s %s\n", e->name, flag, e->summary);
        for (size_t p = 0; p < e->nparts; p++)
            printf("%-8s             %s: scenarios/suites/%s (--quick: %u mixes, %d epochs)\n", "",
                   e->parts[p].figure, e->parts[p].suite, e->parts[p].quick_mixes,
                   REPRO_QUICK_EPOCHS);
    }
    reproduce_alloc_list();
    reproduce_prophet_list();
}

static int unknown_experiment(const char *name)
{
    const char *names[16];
    size_t n = 0;
    for (; n < repro_experiment_count() && n < 16; n++)
        names[n] = repro_experiment_at(n)->name;
    char *near = suggest_names(name, names, n, "'", "'");
    fprintf(stderr,
            "corun: reproduce: unknown experiment '%s'%s%s%s; see 'corun reproduce --list'\n", name,
            near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
    free(near);
    return CLI_BAD_INPUT;
}

/* Every name in the comma-separated list must be a registered predictor that is not the
 * private-mode truth; prints a message and returns -1 otherwise. */
static int check_predictors(const char *list)
{
    char *copy = xstrdup(list), *save = NULL;
    int rc = 0;
    size_t names_given = 0;
    for (char *name = strtok_r(copy, ",", &save); name && rc == 0;
         name = strtok_r(NULL, ",", &save)) {
        names_given++;
        const struct predictor_ops *ops = predict_registry_find(name);
        if (ops && !ops->needs_private)
            continue;
        const char *names[32];
        size_t n = predict_registry_names(names, 32);
        n = n < 32 ? n : 32;
        char *near = ops ? NULL : suggest_names(name, names, n, "'", "'");
        fprintf(stderr, "corun: --predictors: %s '%s'%s%s%s; the predictors:",
                ops ? "the truth is not predicted, leave out" : "unknown predictor", name,
                near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
        free(near);
        const char *sep = " ";
        for (size_t i = 0; i < n; i++) {
            const struct predictor_ops *k = predict_registry_find(names[i]);
            if (k && !k->needs_private) {
                fprintf(stderr, "%s%s", sep, names[i]);
                sep = ", ";
            }
        }
        fputc('\n', stderr);
        rc = -1;
    }
    if (rc == 0 && names_given == 0) { /* "" or only commas */
        fprintf(stderr, "corun: --predictors: expected names separated by commas\n");
        rc = -1;
    }
    free(copy);
    return rc;
}

/* getopt's value for accuracy experiment i's flag (other than --accuracy). */
#define FLAG_OPT 1000

static int parse_options(int argc, char **argv, struct options *o, const struct option *longopts)
{
    unsigned long v;
    int c;
    cli_getopt_reset();
    while ((c = cli_getopt(argc, argv, ":j:", longopts)) != -1) {
        if (c >= FLAG_OPT && (size_t)(c - FLAG_OPT) < repro_experiment_count()) {
            o->flag = repro_experiment_at((size_t)(c - FLAG_OPT))->flag;
            continue;
        }
        switch (c) {
        case 'a': o->flag = "accuracy"; break;
        case 'g': o->ro.gpu = optarg; break;
        case 'j':
            if (cli_parse_uint("-j", optarg, 1, 64, &v) != 0)
                return CLI_BAD_INPUT;
            o->ro.jobs = (unsigned)v;
            break;
        case 'T':
            if (cli_parse_uint("--threads", optarg, 1, 64, &v) != 0)
                return CLI_BAD_INPUT;
            o->ro.threads = (unsigned)v;
            break;
        case 'q': o->ro.quick = true; break;
        case 'X':
            if (cli_add_gpu_set(&o->ro.sets, "reproduce", optarg) != CLI_OK)
                return CLI_BAD_INPUT;
            break;
        case 'e':
            if (cli_parse_uint("--epochs", optarg, 1, REPRO_MAX_EPOCHS, &v) != 0)
                return CLI_BAD_INPUT;
            o->ro.epochs = (unsigned)v;
            break;
        case 'c':
            if (cli_parse_uint("--epoch-cycles", optarg, REPRO_EPOCH_CYCLES_MIN,
                               REPRO_EPOCH_CYCLES_MAX, &v) != 0)
                return CLI_BAD_INPUT;
            o->ro.epoch_cycles = (unsigned)v;
            break;
        case 'S':
            if (cli_parse_uint("--seed", optarg, 0, CLI_SEED_MAX, &v) != 0)
                return CLI_BAD_INPUT;
            o->ro.seed = v;
            break;
        case 'C': o->ro.catalog = optarg; break;
        case 'R': o->ro.resume = optarg; break;
        case 's':
            if (cli_parse_shard(optarg, &o->ro.shard, &o->ro.shards) != 0)
                return CLI_BAD_INPUT;
            break;
        case 'J': o->json = true; break;
        case 'F': o->ro.fresh = true; break;
        case 'l': o->list = true; break;
        case 'P':
            if (check_predictors(optarg) != 0)
                return CLI_BAD_INPUT;
            o->ro.predictors = optarg;
            break;
        default: return CLI_BAD_INPUT;
        }
    }
    return CLI_OK;
}

static int parse(int argc, char **argv, struct options *o)
{
    static const struct option fixed[] = {
        {"accuracy", no_argument, NULL, 'a'},
        {"jobs", required_argument, NULL, 'j'},
        {"quick", no_argument, NULL, 'q'},
        {"epochs", required_argument, NULL, 'e'},
        {"epoch-cycles", required_argument, NULL, 'c'},
        {"seed", required_argument, NULL, 'S'},
        {"catalog", required_argument, NULL, 'C'},
        {"json", no_argument, NULL, 'J'},
        {"list", no_argument, NULL, 'l'},
        {"predictors", required_argument, NULL, 'P'},
        {"resume", required_argument, NULL, 'R'},
        {"gpu", required_argument, NULL, 'g'},
        {"shard", required_argument, NULL, 's'},
        {"fresh", no_argument, NULL, 'F'},
        {"threads", required_argument, NULL, 'T'},
        {"set", required_argument, NULL, 'X'},
    };
    /* The fixed options, then every other accuracy experiment's flag once, then the end. */
    size_t nx = repro_experiment_count(), nopt = CORUN_ARRAY_LEN(fixed);
    struct option *longopts = xcalloc(nopt + nx + 1, sizeof(*longopts));
    memcpy(longopts, fixed, sizeof fixed);
    for (size_t i = 0; i < nx; i++) {
        const char *f = repro_experiment_at(i)->flag;
        bool seen = strcmp(f, "accuracy") == 0;
        for (size_t k = CORUN_ARRAY_LEN(fixed); k < nopt && !seen; k++)
            seen = strcmp(longopts[k].name, f) == 0;
        if (!seen)
            longopts[nopt++] = (struct option){f, no_argument, NULL, FLAG_OPT + (int)i};
    }
    *o = (struct options){.ro = {.jobs = 1, .seed = 1}};
    int rc = parse_options(argc, argv, o, longopts);
    free(longopts);
    if (rc != CLI_OK)
        return rc;
    /* --list alone: with an experiment it exited 2 with the usage alone, nothing said, and
     * other options (--json) were dropped unsaid. */
    for (int i = 1; o->list && i < argc; i++)
        if (strcmp(argv[i], "--list") != 0) {
            fprintf(stderr,
                    "corun: reproduce: --list lists every experiment as text; it takes no '%s'\n",
                    argv[i]);
            cli_usage_error(&cmd_reproduce);
            return CLI_BAD_INPUT;
        }
    if (o->list)
        return CLI_OK;
    if (cli_operands(&cmd_reproduce, argc, argv, optind, 1,
                     "an experiment's name (EXPERIMENT; --list lists them)") != 0)
        return CLI_BAD_INPUT;
    if (!o->ro.threads)
        o->ro.threads = cli_threads_per_job(o->ro.jobs);
    const char *name = argv[optind];
    if (!repro_experiment_named(name))
        return unknown_experiment(name);
    if (!o->flag) {
        fprintf(stderr,
                "corun: reproduce %s: say which experiment (--accuracy, or one of the flags "
                "'corun reproduce --list' shows for it)\n",
                name);
        return CLI_BAD_INPUT;
    }
    if (!(o->exp = repro_experiment_find(name, o->flag))) {
        fprintf(stderr,
                "corun: reproduce %s: no --%s experiment for it; see 'corun reproduce "
                "--list'\n",
                name, o->flag);
        return CLI_BAD_INPUT;
    }
    return CLI_OK;
}

/* `corun reproduce merge FILE SHARD...`: the shards' journals into FILE, for shards run on
 * machines without Slurm; rerunning the experiment with --resume FILE prints its table. */
static const char merge_help[] =
    "usage: corun reproduce merge [--adopt] [--] FILE JOURNAL...\n\n"
    "Copies into the journal FILE (created when missing) every record of each JOURNAL that it\n"
    "does not hold: the journals of --shard K/N runs made on other machines, or of runs cut\n"
    "short. All must come from one run (the same experiment and options) of this build of\n"
    "corun with the same data (another build's: see --adopt); a journal of another run is\n"
    "refused with what it belongs to, and the ones merged before it stay merged. Merging\n"
    "again adds nothing; a JOURNAL named twice (or by two names, such as A and ./A) is\n"
    "refused before anything is merged. Then the same command with --resume FILE (and without\n"
    "--shard) prints the table without simulating what FILE holds. `corun slurm collect JOB`\n"
    "does this for a --slurm job. A scale-out journal's LS curves (JOURNAL.curves) go with it\n"
    "into FILE.curves, so that a run from FILE does not measure them again. A JOURNAL is\n"
    "read, never changed: a torn end (a run killed while writing) or a damaged record in it\n"
    "is left out and counted in its line.\n\n"
    "  --adopt   take JOURNALs written by another build of corun (a long study that\n"
    "            outlived the build it began with), same run and data: FILE must be this\n"
    "            build's and hold at least one of each JOURNAL's records, simulated again\n"
    "            by this build (run that cell or pair with --shard K/N --resume FILE); every\n"
    "            record both hold must be byte-identical in its results (a Prophet\n"
    "            record's core-cycle count, which depends on what the run measured before,\n"
    "            is not compared), or nothing of that JOURNAL is taken. A sample, not a\n"
    "            proof: it shows that the builds agree where tried.\n";

/* A scale-out journal's LS curves, kept beside it in JOURNAL.curves, into FILE.curves, so
 * that a run going on from FILE reads them instead of measuring them again. The curves are
 * a cache, so one that will not merge is a warning, not a failure. */
static void merge_curves(const char *into, const char *from, const char *datadir)
{
    char *src = reproduce_prophet_curves_path(from);
    if (access(src, F_OK) == 0) {
        char *dst = reproduce_prophet_curves_path(into), err[768];
        struct repro_journal_merged m;
        if (repro_journal_merge(dst, src, datadir, &m, err, sizeof err) == 0)
            printf("%s: %zu LS curve%s added, %zu already in %s\n", src, m.added,
                   m.added == 1 ? "" : "s", m.present, dst);
        else
            fprintf(stderr,
                    "corun: reproduce merge: warning: %s (a run from %s measures those LS "
                    "curves again)\n",
                    err, into);
        free(dst);
    }
    free(src);
}

static int merge_main(int argc, char **argv)
{
    bool adopt = argc > 1 && strcmp(argv[1], "--adopt") == 0;
    if (adopt) {
        argc--;
        argv++;
    }
    /* `--` ends the options, as getopt's does for the other commands: a file named -x. */
    bool files_only = argc > 1 && strcmp(argv[1], "--") == 0;
    if (files_only) {
        argc--;
        argv++;
    }
    if (argc < 3) {
        fprintf(stderr, "corun: reproduce merge: expected FILE and at least one JOURNAL to "
                        "merge into it; see 'corun help reproduce merge'\n");
        return CLI_BAD_INPUT;
    }
    for (int i = 1; i < argc && !files_only; i++)
        if (argv[i][0] == '-') {
            fprintf(stderr,
                    "corun: reproduce merge: unknown option '%s' (it takes --adopt, first, "
                    "and journal files; -- before a file named with a -)\n",
                    argv[i]);
            return CLI_BAD_INPUT;
        }
    /* A journal named twice is a slip (a glob that caught it again): the second pass would
     * add nothing, and say so as if it were another shard's. */
    for (int i = 3; i < argc; i++)
        for (int j = 2; j < i; j++)
            if (cli_same_file(argv[j], argv[i])) {
                fprintf(stderr,
                        "corun: reproduce merge: %s and %s are the same journal: expected "
                        "each JOURNAL once\n",
                        argv[j], argv[i]);
                return CLI_BAD_INPUT;
            }
    char *datadir = datadir_locate();
    const char *into = argv[1];
    int rc = CLI_OK;
    size_t added = 0;
    for (int i = 2; i < argc; i++) {
        if (cli_same_file(into, argv[i])) {
            fprintf(stderr, "corun: reproduce merge: %s is FILE itself\n", argv[i]);
            rc = CLI_BAD_INPUT;
            break;
        }
        struct repro_journal_merged m;
        char err[768];
        int mrc = adopt ? repro_journal_adopt(into, argv[i], datadir,
                                              reproduce_prophet_result_bytes, &m, err, sizeof err)
                        : repro_journal_merge(into, argv[i], datadir, &m, err, sizeof err);
        if (mrc != 0) {
            fprintf(stderr, "corun: reproduce merge: %s\n", err);
            rc = CLI_BAD_INPUT;
            break;
        }
        added += m.added;
        printf("%s: %zu record%s added, %zu already in %s", argv[i], m.added,
               m.added == 1 ? "" : "s", m.present, into);
        if (m.verified) /* --adopt, another build's journal */
            printf(" (%zu of them simulated by both builds, byte-identical)", m.verified);
        if (m.damaged)
            printf(" (%zu damaged record%s in its middle skipped)", m.damaged,
                   m.damaged == 1 ? "" : "s");
        if (m.dropped)
            printf(" (a torn tail of %zu bytes left out; %s is not changed)", m.dropped, argv[i]);
        printf("\n");
        if (!adopt) /* another build's curves are measured again: its journal's are not taken */
            merge_curves(into, argv[i], datadir);
    }
    if (rc == CLI_OK && util_ends_with(into, PROPHET_CURVES_SUFFIX))
        printf("%zu record%s added to %s\n", added, added == 1 ? "" : "s", into);
    else if (rc == CLI_OK)
        printf("%zu record%s added to %s; the experiment's command with --resume %s prints its "
               "table\n",
               added, added == 1 ? "" : "s", into, into);
    free(datadir);
    return rc;
}

/* A reproduction stopped by a signal dies of it: what its --resume journal holds is kept, the
 * rest is lost; it says which (it ended without a word). */
static void note_stops(int argc, char **argv)
{
    const char *resume = NULL;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--resume") == 0 && i + 1 < argc)
            resume = argv[i + 1];
        else if (strncmp(argv[i], "--resume=", 9) == 0)
            resume = argv[i] + 9;
    char note[512];
    if (resume)
        snprintf(note, sizeof note,
                 "what finished is kept in %.400s: the same command goes on from it\n", resume);
    else
        snprintf(note, sizeof note,
                 "nothing is kept (--resume FILE keeps each mix, pair or cell as it finishes, "
                 "and the same command goes on from it)\n");
    cli_stop_note_install("reproduce", note);
}

static int reproduce_main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "merge") == 0)
        return merge_main(argc - 1, argv + 1);
    struct slurm_options so;
    bool slurm;
    if (slurm_cli_take_options(&argc, argv, &slurm, &so) != 0)
        return CLI_BAD_INPUT;
    if (!slurm) /* a submission waiting for its job keeps nothing itself */
        note_stops(argc, argv);
    if (reproduce_prophet_wanted(argc, argv))
        return reproduce_prophet_main(argc, argv, slurm ? &so : NULL);
    if (reproduce_alloc_wanted(argc, argv)) /* --fairness, --qos, smqos */
        return reproduce_alloc_main(argc, argv, slurm ? &so : NULL);
    struct options o;
    int rc = parse(argc, argv, &o);
    if (rc != CLI_OK)
        return rc;
    if (slurm && !o.list) {
        if (o.ro.shards)
            return slurm_cli_shard_refused();
        if (cli_resume_usable("reproduce", o.ro.resume) != 0)
            return CLI_BAD_INPUT;
        char *dir = datadir_locate(), err[512];
        o.ro.datadir = dir;
        size_t mixes = 0;
        int checked = repro_check_options(&o.ro, o.exp, &mixes, err, sizeof err);
        free(dir);
        if (checked != 0) {
            fprintf(stderr, "corun: reproduce: %s\n", err);
            return CLI_BAD_INPUT;
        }
        slurm_cli_cap_shards("reproduce", o.exp->name, mixes, "mix", "mixes", &so);
        return slurm_cli_submit(SLURM_REPRODUCE, argc, argv, o.ro.catalog, o.ro.resume, &so);
    }
    if (o.list) {
        list_experiments();
        return CLI_OK;
    }
    if (cli_resume_usable("reproduce", o.ro.resume) != 0)
        return CLI_BAD_INPUT;
    char *datadir = datadir_locate();
    o.ro.datadir = datadir;
    /* --gpu, --set and the journal are refused before the heading is printed and the catalog
     * made, as every other refusal is. */
    char refused[512];
    size_t mixes = 0;
    if (repro_check_options(&o.ro, o.exp, &mixes, refused, sizeof refused) != 0) {
        fprintf(stderr, "corun: reproduce: %s\n", refused);
        free(datadir);
        return CLI_BAD_INPUT;
    }
    cli_catalog_cache_warn("reproduce", o.ro.catalog);
    if (o.json)
        printf("{\"experiment\": \"%s\", \"flag\": \"%s\", \"kind\": \"accuracy\", "
               "\"parts\": [\n",
               o.exp->name, o.exp->flag);
    else {
        char sets[1024];
        gpu_sets_describe(&o.ro.sets, " --set ", " --set ", sets, sizeof sets);
        printf("corun reproduce %s --%s%s%s%s%s: %s\n", o.exp->name, o.exp->flag,
               o.ro.quick ? " --quick" : "", o.ro.gpu ? " --gpu " : "", o.ro.gpu ? o.ro.gpu : "",
               sets, o.exp->summary);
    }
    for (size_t i = 0; i < o.exp->nparts && rc != CLI_BAD_INPUT; i++) {
        struct repro_part_result r;
        char err[512];
        char label[64]; /* an ETA is the part's: say there is more after it */
        if (o.exp->nparts > 1)
            snprintf(label, sizeof label, "%s (part %zu of %zu)", o.exp->parts[i].suite, i + 1,
                     o.exp->nparts);
        else
            snprintf(label, sizeof label, "%s", o.exp->parts[i].suite);
        struct cli_mixes_bar bar = {.label = label, .start = cli_wall_seconds()};
        int prc =
            repro_run_part(&o.ro, &o.exp->parts[i], cli_mixes_progress, &bar, &r, err, sizeof err);
        if (prc < 0) {
            fprintf(stderr, "corun: reproduce: %s\n", err);
            rc = CLI_BAD_INPUT;
        } else {
            o.json ? reproduce_print_json(&o.ro, &r, i == 0) : reproduce_print_text(&o.ro, &r);
            if (prc > 0)
                rc = CLI_FAILED;
            fflush(stdout);
            rc = reproduce_journal_status(o.ro.resume, &r.resume, o.ro.shards, rc);
        }
        fflush(stdout);
        repro_part_result_done(&r);
    }
    if (o.json)
        printf("]}\n");
    free(datadir);
    return rc;
}

/* `corun reproduce hsm --threshold --help`: an allocation experiment's own help; the accuracy
 * and prophet experiments are described by the command's. */
bool cli_reproduce_knows(const char *word)
{
    return strcmp(word, "merge") == 0 || strcmp(word, "prophet") == 0 ||
           repro_experiment_named(word) || ralloc_experiment_named(word);
}

static bool reproduce_help_for(int argc, char **argv, FILE *out)
{
    if (cli_help_verb(argc, argv, "merge", merge_help, out))
        return true;
    if (reproduce_prophet_wanted(argc, argv)) {
        reproduce_prophet_help(out);
        return true;
    }
    if (!reproduce_alloc_wanted(argc, argv))
        return false;
    return reproduce_alloc_help(argc, argv, out);
}

const struct cli_command cmd_reproduce = {
    .name = "reproduce",
    .args = "EXPERIMENT --accuracy|--quads [-j N] [--threads N] [--quick] [--epochs N] "
            "[--epoch-cycles N] "
            "[--seed S] "
            "[--catalog P] [--predictors P,...] [--gpu PRESET] [--set gpu.K=V]... [--resume FILE] "
            "[--fresh] "
            "[--shard K/N] [--json] [--slurm [--shards N] [SBATCH OPTIONS] [--slurm-dir DIR] "
            "[--wait]] | --list | merge [--adopt] FILE JOURNAL...",
    .summary = "run a paper's predictor-accuracy experiment, printed beside its published figures",
    .help =
        "Experiments (--list): hsm --accuracy (HSM Fig. 10: the 105 pairs on hbm80, 10\n"
        "epochs of 500 K cycles, even split; with --gpu gddr5_40, HSM 6.5's GDDR5 GPU, beside\n"
        "its 6.5 % average error), themis --accuracy (Themis Fig. 5: the 49 test pairs x\n"
        "10:50, 20:40, 30:30 on themis60; Fig. 6: the 343 triples, 20:20:20) and themis\n"
        "--quads (Themis Fig. 6: 150 four-application mixes of scenarios/suites/\n"
        "themis-quads.cfg, 15:15:15:15, drawn by corun since the paper lists none).\n"
        "prophet --accuracy | --colocation | --scaleout [--quick] [--queries N] [--resume\n"
        "FILE] (Prophet Figs. 12-14, 7.3 and 7.4, on accelerator scenarios; --queries N: the\n"
        "LS application's queries per run instead of 40, 20 and 20; -j N spreads the pairs, or\n"
        "the scale-out study's curves and cells, over N workers; --shard K/N, which needs\n"
        "--resume, runs the K-th of N runs of consecutive pairs or scale-out cells (listed by\n"
        "LS application) into that journal; the scale-out study keeps its LS curves in\n"
        "FILE.curves beside the journal, so a stopped run does not measure them again; a\n"
        "failed pair, curve or cell is named on stderr, the rest print their rows and the\n"
        "summary is left out, exit status 1; --slurm with its options submits the shards; no\n"
        "other option applies) is described in\n"
        "docs/accelerator.md. Full runs measured, in hours of one core: --accuracy about 2,\n"
        "--colocation about 1, --scaleout about 28. The source tree's docs/journals/ keeps\n"
        "all 385 scale-out cells, from which a build prints that study's tables after\n"
        "simulating one cell to vouch for the rest (docs/journals/README.md).\n\n"
        "Each mix is simulated once with its static partition; every registered predictor but\n"
        "the private-mode truth (oracle) is evaluated on each epoch's counters, since\n"
        "predictors do not change a static run. A predictor without a model for the preset is\n"
        "listed with the command that trains it. A predictor that changes the run it measures\n"
        "(ASM's priority epochs reorder the memory controllers' queues) gets its own run of\n"
        "each mix and is measured against that run's NP; with only such predictors\n"
        "(--predictors asm) the shared run is not simulated.\n\n"
        "Errors, in %: HSM's are ARE of NP, |NP^ - NP| / NP; Themis' are of slowdown (1/NP),\n"
        "|SD^ - SD| / SD, as each paper reports. Per epoch: average and maximum over every\n"
        "kernel-epoch. Over the run: a kernel's NP over the run is the private cycles of all\n"
        "its instructions / the run's cycles (the mean of its epoch NPs); its predicted NP over\n"
        "the run is the mean of its epoch NP^s (predicted private cycles / run cycles). Both\n"
        "overall and per category (the suite's tags; Themis pairs also per split), beside the\n"
        "paper's published figures, which are printed as published and never used as results.\n\n"
        "  --accuracy      the prediction-accuracy experiment (themis --quads: the other one)\n"
        "  -j, --jobs N    N worker processes (1 to 64, default 1); results do not\n"
        "                  depend on N\n"
        "  --threads N     threads of each worker (default: its CPUs over -j): a\n"
        "                  mix's private-mode references side by side, its shared run's\n"
        "                  LLC and DRAM beside its SMs while that is faster; results do\n"
        "                  not depend on N\n"
        "  --quick         a subset spanning the categories (HSM: 15 pairs) with 3 epochs\n"
        "  --epochs N      epochs per mix instead of the suite's (or --quick's)\n"
        "  --epoch-cycles N  cycles per epoch instead of the suite's (1000 or more)\n"
        "  --seed S        seed of every run (default 1)\n"
        "  --catalog PATH  the catalog whose trace cache shares private-mode references\n"
        "                  (default $XDG_DATA_HOME/corun/catalog.db)\n"
        "  --json          one JSON document on stdout, with per-mix errors (as\n"
        "                  fractions: 0.05 is 5 %)\n"
        "  --predictors P,...  evaluate only these registered predictors\n"
        "  --gpu PRESET    run every mix on PRESET instead of the suite's GPU; a suite's SM\n"
        "                  splits are scaled to its SMs (themis60's 10:50 is 13:67 on hbm80),\n"
        "                  and the paper's figures are printed only where it measured PRESET\n"
        "  --set gpu.SETTING=VALUE  change a GPU setting for every mix, as `corun run --set`\n"
        "                  does (e.g. gpu.order_free=true, gpu.llc.latency_cycles=240; not\n"
        "                  gpu.sms: use --gpu); repeatable, at most 16; checked before\n"
        "                  anything runs and named in the title, the JSON (\"sets\") and the\n"
        "                  --resume journal's identity\n"
        "  --resume FILE   keep each finished mix in FILE (created when missing) and skip the\n"
        "                  mixes it holds: rerun the same command after a kill or a stop and\n"
        "                  it picks up where it was, with the same table. FILE is refused for\n"
        "                  another experiment, other options or another build of corun\n"
        "  --fresh         measure every predictor again: by default a predictor that this\n"
        "                  build has measured on a mix before (same data, epochs, seed and\n"
        "                  preset; a table without it, a --predictors subset) is read from\n"
        "                  the catalog, and a mix whose predictors are all there is not\n"
        "                  simulated\n"
        "  --shard K/N     run only every N-th mix starting at the K-th (what each task of a\n"
        "                  --slurm job does); the table covers those mixes alone. A mix it\n"
        "                  cannot keep in the --resume journal fails it (exit status 1)\n"
        "  --list          list the experiments\n" SLURM_CLI_HELP
        "  With --slurm every task keeps its mixes in a journal of its own in the job\n"
        "  directory; `corun slurm collect JOB` merges them into --resume's FILE (default:\n"
        "  the job directory's results.journal) and prints the table a run here prints.\n"
        "  Shards run without Slurm: `corun reproduce merge FILE JOURNAL...` joins their\n"
        "  journals (see 'corun help reproduce merge').\n\n"
        "A progress bar with an ETA goes to stderr when it is a terminal; otherwise (nohup,\n"
        "stderr in a file) a line per finished mix with the time so far and the ETA. Full\n"
        "runs measured, in hours of one core: hsm 2.8 (every predictor), hsm --gpu gddr5_40\n"
        "2.1, themis --quads 3.6 (ASM with runs of its own), themis 2.7 with --predictors\n"
        "themis,hsm,dase (147 pairs in 0.7 h, 343 triples in 2.0 h; ASM's own runs would\n"
        "about double it). Measurements are kept (see --fresh): the same command with asm\n"
        "added later simulates only ASM's runs.\n\n"
        "SM-allocation experiments: hsm --fairness (HSM Figs. 11, 13),\n"
        "hsm --qos (Fig. 12), hsm --threshold (HSM 6.5: HSM-Fair at fairness thresholds\n"
        "0.70-0.95), hsm --quads (HSM 6.5, Fig. 15: even vs Fair on the 20 four-program\n"
        "mixes of scenarios/suites/hsm-quads.cfg), smqos (SMQoS 5.2), smqos --readings\n"
        "(SMQoS 5.2 at 95 %, also in two readings the paper leaves open: SMQoS taking the\n"
        "batch task's last SM, Static-SMQoS rounding its share down), smqos --threshold\n"
        "(SMQoS 5.3: Algorithm 2's threshold 0.01-0.1), smqos --offline (SMQoS 5.4, Figs.\n"
        "11-13: SMQoS beside the best static partition found by search, the rest of the SMs\n"
        "power-gated), smqos --triples (SMQoS 5.5, Fig. 14: the 60 three-task mixes of\n"
        "scenarios/suites/smqos-triples.cfg), themis --fairness (Themis Figs. 9, 10) and\n"
        "themis --qos (Fig. 12). Each (mix, policy) is its own run; they take -j, --quick (6\n"
        "mixes x 3 epochs of 100 K cycles), --mixes N, --epochs N, --epoch-cycles N, --seed,\n"
        "--catalog, --gpu PRESET, --set gpu.K=V, --resume FILE, --shard K/N, --slurm with\n"
        "its options, --json (one JSON document with each run's NP and SMs per mix; with\n"
        "--resume of a finished run it reprints without simulating) and --policies\n"
        "LABEL,... (run only these policies, as the table labels them, e.g. fair/hsm@0.90;\n"
        "the baseline, even or the like, always runs too, so two runs with different\n"
        "policies can be checked against each other by their baseline rows). 'corun help\n"
        "reproduce hsm --threshold' (or --help after an allocation experiment) lists one's\n"
        "policies and options.\n"
        "Full runs measured, in hours of one core: hsm --fairness 5.7 (105 x 5 policies x\n"
        "5 M cycles: 7.8 s per million hbm80 cycles, references included), hsm --qos 5.8,\n"
        "hsm --threshold with one threshold beside even 1.6 to 1.8, hsm --quads 0.85, smqos\n"
        "1.0, smqos --readings 0.7, smqos --threshold 0.1, smqos --offline 2.0,\n"
        "smqos --triples 0.4, themis --fairness 1.0, themis --qos 1.4. The source tree's\n"
        "docs/results.md has their tables. Each run prints its own projection.\n",
    .run = reproduce_main,
    .help_for = reproduce_help_for,
};
