/* cmd_train — `corun train MODEL --gpu P`: fit a predictor's model from simulated runs and
 * write its model file. */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "corun/cli.h"
#include "corun/conftable.h"
#include "corun/datadir.h"
#include "corun/diag.h"
#include "corun/modelfile.h"
#include "corun/train.h"
#include "corun/util.h"

/* Models that can be trained; the predictors without a model need no training. */
static const char *const trainable[] = {"hsm", "themis"};

struct options {
    const char *model;
    const char *gpu;
    const char *out;      /* NULL: the data directory's model file */
    unsigned long cycles; /* 0: the model's default */
    unsigned long jobs, seed;
    int quick;
    const char *themis_only; /* -j or --seed as given, NULL when neither was */
};

/* Write the model file and say so; CLI_OK or CLI_FAILED (message printed). A model file
 * replaced is not lost: it stays beside as PATH.prev (the data directory's, which every run of
 * the predictor reads, has no history to take it back from; an --out FILE was overwritten
 * without a word). Two trainings to one path ending together take turns (modelfile_replace):
 * the later keeps the earlier's model as PATH.prev. */
static int write_model(const char *path, const struct modelfile *m, const char *comment)
{
    char err[512], *kept = NULL;
    int rc = modelfile_replace(path, m, comment, &kept, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "corun: %s%s\n", err, rc < 0 ? "; nothing written" : "");
        return CLI_FAILED;
    }
    if (kept)
        printf("wrote %s (the model it replaced is kept as %s)\n", path, kept);
    else
        printf("wrote %s\n", path);
    free(kept);
    return CLI_OK;
}

static int parse(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"gpu", required_argument, NULL, 'g'},
        {"cycles", required_argument, NULL, 'c'},
        {"quick", no_argument, NULL, 'q'},
        {"out", required_argument, NULL, 'o'},
        {"jobs", required_argument, NULL, 'j'},
        {"seed", required_argument, NULL, 's'},
        {NULL, 0, NULL, 0},
    };
    *o = (struct options){.gpu = "hbm80", .jobs = 1, .seed = 1};
    cli_getopt_reset();
    int c;
    while ((c = cli_getopt(argc, argv, ":j:", longopts)) != -1) {
        switch (c) {
        case 'g': o->gpu = optarg; break;
        case 'c':
            if (cli_parse_uint("--cycles", optarg, 1000, 1000000000, &o->cycles) != 0)
                return -1;
            break;
        case 'q': o->quick = 1; break;
        case 'o':
            if (cli_nonempty("--out", optarg) != 0)
                return -1;
            o->out = optarg;
            break;
        case 'j':
            if (cli_parse_uint("--jobs", optarg, 1, 64, &o->jobs) != 0)
                return -1;
            o->themis_only = "--jobs";
            break;
        case 's':
            if (cli_parse_uint("--seed", optarg, 0, CLI_SEED_MAX, &o->seed) != 0)
                return -1;
            o->themis_only = "--seed";
            break;
        default: return -1;
        }
    }
    if (cli_operands(&cmd_train, argc, argv, optind, 1, "a model's name (MODEL)") != 0)
        return -1;
    o->model = argv[optind];
    /* hsm's fit is one process of seed-1 solo runs: these were taken and changed nothing. */
    if (strcmp(o->model, "hsm") == 0 && o->themis_only) {
        fprintf(stderr,
                "corun: train: %s is for themis (hsm's fit runs its kernels one after another, "
                "each with seed 1); expected it without %s\n",
                o->themis_only, o->themis_only);
        return -1;
    }
    for (size_t i = 0; i < CORUN_ARRAY_LEN(trainable); i++)
        if (strcmp(o->model, trainable[i]) == 0)
            return 0;
    char *known = conf_known_names(o->model, trainable, CORUN_ARRAY_LEN(trainable));
    fprintf(stderr, "corun: train: no trainable model \"%s\"%s\n", o->model, known);
    free(known);
    return -1;
}

static void progress(void *user, const char *kernel, size_t done, size_t total)
{
    (void)user;
    char label[64];
    snprintf(label, sizeof label, "training: %s", kernel);
    cli_progress(label, total ? (double)done / (double)total : 1);
}

/* The file's comment: what it is, how it was made, the points. The caller frees. */
static char *describe(const struct train_hsm_result *r, const char *command)
{
    char *text = xasprintf("HSM (section 2.3.2) for GPU preset %s: bandwidth utilization = "
                           "c1 * RBH + c2,\nleast squares over %zu memory-bound kernels run "
                           "alone on every SM, %llu cycles each.\nRegenerate with: %s\n"
                           "points (kernel RBH utilization):",
                           r->gpu, r->npoints, (unsigned long long)r->cycles, command);
    for (size_t i = 0; i < r->npoints; i++) {
        char *more = xasprintf("%s\n  %-10s %.4f %.4f", text, r->points[i].kernel, r->points[i].rbh,
                               r->points[i].utilization);
        free(text);
        text = more;
    }
    return text;
}

static int run_hsm(const struct options *opt, const char *datadir)
{
    struct options o = *opt;
    if (!o.cycles)
        o.cycles = o.quick ? TRAIN_HSM_QUICK_CYCLES : TRAIN_HSM_CYCLES;
    struct diag d;
    diag_init(&d);
    struct train_hsm_result r;
    int rc = CLI_OK;
    int trained = train_hsm(datadir, o.gpu, o.cycles, progress, NULL, &r, &d);
    if (trained != 0) {
        diag_print(&d, stderr);
        rc = trained == TRAIN_BAD_INPUT ? CLI_BAD_INPUT : CLI_FAILED;
        goto out;
    }
    printf("HSM training on %s: %zu memory-bound kernels alone on every SM, %llu cycles each\n",
           r.gpu, r.npoints, (unsigned long long)r.cycles);
    printf("%-12s %8s %12s %12s\n", "kernel", "RBH", "util", "fit");
    for (size_t i = 0; i < r.npoints; i++)
        printf("%-12s %8.4f %12.4f %12.4f\n", r.points[i].kernel, r.points[i].rbh,
               r.points[i].utilization, r.c1 * r.points[i].rbh + r.c2);
    printf("c1 = %.6f  c2 = %.6f  R^2 = %.4f\n", r.c1, r.c2, r.r2);
    char *path = o.out ? xstrdup(o.out) : modelfile_path(datadir, "hsm", o.gpu);
    /* A quick fit is written only with --out (it would replace the shipped model): the
     * command that made it says so, or corun refuses it. */
    char cycles[48] = ""; /* given, it is part of how the model was made */
    if (opt->cycles)
        snprintf(cycles, sizeof cycles, " --cycles %lu", opt->cycles);
    char *command = xasprintf("corun train hsm --gpu %s%s%s", o.gpu,
                              o.quick ? " --quick --out FILE" : "", cycles);
    char *comment = describe(&r, command);
    struct modelfile m = {.model = "hsm",
                          .gpu = r.gpu,
                          .sms = r.sms,
                          .c1 = r.c1,
                          .c2 = r.c2,
                          .r2 = r.r2,
                          .points = (unsigned)r.npoints};
    rc = write_model(path, &m, comment);
    free(comment);
    free(command);
    free(path);
    train_hsm_done(&r);
out:
    diag_done(&d);
    return rc;
}

static const char *const class_labels[] = {"all", "compute", "memory", "balanced"};

/* The error table, as printed and as the model file's comment. The caller frees. */
static char *themis_table(const struct train_themis_result *r, const char *prefix)
{
    char *text = xasprintf("%s%-6s %-9s %8s %9s %9s %10s %8s", prefix, "set", "class", "samples",
                           "SD_scal", "SD_inter", "SD(eq.2)", "NP ARE");
    for (size_t i = 0; i < r->nrows; i++) {
        const struct train_themis_row *w = &r->rows[i];
        if (w->samples == 0)
            continue;
        char *more =
            xasprintf("%s\n%s%-6s %-9s %8zu %8.1f%% %8.1f%% %9.1f%% %7.1f%%", text, prefix,
                      w->test ? "test" : "train", class_labels[w->cls], w->samples,
                      100 * w->err_scal, 100 * w->err_inter, 100 * w->err_sd, 100 * w->are_np);
        free(text);
        text = more;
    }
    return text;
}

static const struct train_themis_row *themis_all(const struct train_themis_result *r, bool test)
{
    for (size_t i = 0; i < r->nrows; i++)
        if (r->rows[i].test == test && r->rows[i].cls == KERNEL_CLASS_NONE)
            return &r->rows[i];
    return NULL;
}

static int train_themis_command(const struct options *o, const char *datadir)
{
    struct train_themis_options to = {
        .quick = o->quick, .jobs = (unsigned)o->jobs, .seed = o->seed, .cycles = o->cycles};
    struct diag d;
    diag_init(&d);
    struct train_themis_result r;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int trained = train_themis(datadir, o->gpu, &to, progress, NULL, &r, &d);
    if (trained != 0) {
        diag_print(&d, stderr);
        diag_done(&d);
        return trained == TRAIN_BAD_INPUT ? CLI_BAD_INPUT : CLI_FAILED; /* a worker killed: 1 */
    }
    diag_done(&d);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    char *setup = xasprintf(
        "Themis (section V) for GPU preset %s: %u-%u-%u-%u network, loss eq. 8 (alpha 2, "
        "lambda 0.001), Adam.\n%zu training kernels x %zu levels x 2 pressure producers x %zu SM "
        "splits, %zu test kernels in pairs;\n%zu runs of %llu cycles (after %llu of warm-up), "
        "seed %lu.",
        r.gpu, r.layers[0], r.layers[1], r.layers[2], r.layers[3], r.train_kernels, r.levels,
        r.splits, r.test_kernels, r.runs, (unsigned long long)r.cycles,
        (unsigned long long)r.cycles / 4, o->seed);
    char *table = themis_table(&r, "");
    printf("%s\n%s\n", setup, table);
    printf("paper (Themis section VI-A, Fig. 5): 9.5%% average SD error on the 49 test pairs\n");
    printf("loss (eq. 8) on the training samples: %.5f; took %.1f s with %lu job%s\n", r.loss,
           seconds, o->jobs, o->jobs == 1 ? "" : "s");
    char *path = o->out ? xstrdup(o->out) : modelfile_path(datadir, "themis", o->gpu);
    char cycles[48] = "";
    if (o->cycles)
        snprintf(cycles, sizeof cycles, " --cycles %lu", o->cycles);
    char *command = xasprintf("corun train themis --gpu %s%s%s --seed %lu -j %lu", o->gpu,
                              o->quick ? " --quick --out FILE" : "", cycles, o->seed, o->jobs);
    char *indented = themis_table(&r, "  ");
    char *comment = xasprintf("%s\nRegenerate with: %s (took %.0f s)\nmean relative errors:\n%s",
                              setup, command, seconds, indented);
    const struct train_themis_row *train = themis_all(&r, false), *test = themis_all(&r, true);
    struct modelfile m = {.model = "themis",
                          .gpu = r.gpu,
                          .sms = r.sms,
                          .layers = r.layers,
                          .nlayers = 4,
                          .weights = r.weights,
                          .nweights = r.nweights,
                          .train_error = train ? train->are_np : 0,
                          .test_error = test ? test->are_np : 0,
                          .points = train ? (unsigned)train->samples : 0};
    int rc = write_model(path, &m, comment);
    free(comment);
    free(indented);
    free(command);
    free(path);
    free(table);
    free(setup);
    train_themis_done(&r);
    return rc;
}

/* The model file must be writable before hours of training are spent on it: its directory
 * exists and takes files, and the path is no directory. A device or a FIFO is refused too: the
 * model is renamed over its path, which would put a file where /dev/null was. So is a directory
 * where the one it replaces is kept (PATH.prev): the training was lost at its end. So is a
 * symbolic link, as run --out, export and plot refuse one: the link became the model file, its
 * target keeping the model said to be replaced. (The model is written first under a name of its
 * own beside it, which nothing there can be.) 0, or -1 with a message. */
static int check_writable(const char *path)
{
    char *copy = xstrdup(path);
    const char *dir = dirname(copy);
    char *prev = xasprintf("%s.prev", path);
    struct stat st, link;
    const char *why = NULL;
    bool exists = stat(path, &st) == 0;
    if (lstat(path, &link) == 0 && S_ISLNK(link.st_mode))
        why = "it is a symbolic link, which the model would replace, not follow";
    else if (exists && S_ISDIR(st.st_mode))
        why = "it is a directory";
    else if (exists && !S_ISREG(st.st_mode))
        why = "it is not a regular file (a device or a FIFO), which the model would replace";
    else if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        why = "its directory does not exist";
    else if (access(dir, W_OK | X_OK) != 0)
        why = "its directory cannot be written";
    else if (exists && stat(prev, &st) == 0 && S_ISDIR(st.st_mode))
        why = "the model it replaces is kept beside it, as its name plus .prev, and that is a "
              "directory";
    if (why)
        fprintf(stderr,
                "corun: train: cannot write the model to %s: %s (checked before training; "
                "--out FILE names another place)\n",
                path, why);
    free(prev);
    free(copy);
    return why ? -1 : 0;
}

static int run_train(int argc, char **argv)
{
    struct options o;
    if (parse(argc, argv, &o) != 0)
        return CLI_BAD_INPUT;
    char *datadir = datadir_locate();
    char *path = o.out ? xstrdup(o.out) : modelfile_path(datadir, o.model, o.gpu);
    if (o.quick && !o.out) {
        /* A quick fit is for tests: in the data directory it would become the model every
         * run of the predictor uses. */
        fprintf(stderr,
                "corun: train: --quick fits a model for tests, which would replace %s, the "
                "one the predictor uses; give --out FILE\n",
                path);
        free(path);
        free(datadir);
        return CLI_BAD_INPUT;
    }
    int writable = check_writable(path);
    if (writable != 0) {
        free(path);
        free(datadir);
        return CLI_BAD_INPUT;
    }
    /* A training stopped by a signal dies of it, as it did, but says so (it ended without a
     * word): nothing of it is kept, and the model file is as it was. */
    char note[512];
    snprintf(note, sizeof note, "nothing is kept: %.400s is as it was\n", path);
    cli_stop_note_install("train", note);
    free(path);
    int rc =
        strcmp(o.model, "themis") == 0 ? train_themis_command(&o, datadir) : run_hsm(&o, datadir);
    free(datadir);
    return rc;
}

const struct cli_command cmd_train = {
    .name = "train",
    .args = "MODEL [--gpu P] [--quick] [--cycles N] [-j N] [--seed S] [--out FILE]",
    .summary = "fit a predictor's model from simulated runs and write its model file",
    .help = "MODEL is hsm or themis.\n\n"
            "hsm: least squares of bandwidth utilization against row-buffer hit rate (HSM\n"
            "section 2.3.2) over the preset's memory-bound training kernels, each run alone on\n"
            "every SM. Prints the points, c1, c2 and R^2.\n\n"
            "themis: Themis' 12-12-12-2 network (section V), trained on co-runs of the training\n"
            "kernels with the cache and bandwidth pressure producers (12 levels, 5 SM splits)\n"
            "and solo runs, tested on pairs of the test kernels (Table III). Prints the errors\n"
            "per set and class beside the paper's.\n\n"
            "  --gpu P          GPU preset (default hbm80)\n"
            "  --quick          a short window per run, and for themis fewer kernels (for\n"
            "                   tests)\n"
            "  --cycles N       the measured window per run (default: hsm 100000,\n"
            "                   themis 40000)\n"
            "  -j, --jobs N     themis: simulate in N worker processes (default 1; the model\n"
            "                   is the same for any N)\n"
            "  --seed S         themis: seed of the runs and of the training (default 1)\n"
            "  --out FILE       write the model here instead of DATADIR/data/models/MODEL-P.cfg\n"
            "                   (--quick needs --out); a model file replaced, there or\n"
            "                   here, is kept beside as its name plus .prev\n\n"
            "A progress bar goes to stderr when it is a terminal.\n",
    .run = run_train,
};
