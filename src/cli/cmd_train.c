/* cmd_train — `corun train MODEL --gpu P`: fit a predictor's model from private-mode runs and
 * write its model file. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/cli.h"
#include "corun/conftable.h"
#include "corun/datadir.h"
#include "corun/diag.h"
#include "corun/modelfile.h"
#include "corun/train.h"
#include "corun/util.h"

/* Models that can be trained; the predictors without a model need no training. */
static const char *const trainable[] = {"hsm"};

struct options {
    const char *model;
    const char *gpu;
    const char *out; /* NULL: the data directory's model file */
    unsigned long cycles;
    int quick;
};

static int parse(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"gpu", required_argument, NULL, 'g'},
        {"cycles", required_argument, NULL, 'c'},
        {"quick", no_argument, NULL, 'q'},
        {"out", required_argument, NULL, 'o'},
        {NULL, 0, NULL, 0},
    };
    *o = (struct options){.gpu = "hbm80", .cycles = TRAIN_HSM_CYCLES};
    cli_getopt_reset();
    int c;
    while ((c = cli_getopt(argc, argv, ":g:c:qo:", longopts)) != -1) {
        switch (c) {
        case 'g': o->gpu = optarg; break;
        case 'c':
            if (cli_parse_uint("--cycles", optarg, 1000, 1000000000, &o->cycles) != 0)
                return -1;
            break;
        case 'q':
            o->quick = 1;
            o->cycles = TRAIN_HSM_QUICK_CYCLES;
            break;
        case 'o': o->out = optarg; break;
        default: return -1;
        }
    }
    if (optind != argc - 1) {
        cli_usage_error(&cmd_train);
        return -1;
    }
    o->model = argv[optind];
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

static int run_train(int argc, char **argv)
{
    struct options o;
    if (parse(argc, argv, &o) != 0)
        return CLI_BAD_INPUT;
    char *datadir = datadir_locate();
    struct diag d;
    diag_init(&d);
    struct train_hsm_result r;
    int rc = CLI_OK;
    if (train_hsm(datadir, o.gpu, o.cycles, progress, NULL, &r, &d) != 0) {
        diag_print(&d, stderr);
        rc = CLI_BAD_INPUT;
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
    char *command = xasprintf("corun train hsm --gpu %s%s", o.gpu, o.quick ? " --quick" : "");
    char *comment = describe(&r, command);
    struct modelfile m = {.model = "hsm",
                          .gpu = r.gpu,
                          .c1 = r.c1,
                          .c2 = r.c2,
                          .r2 = r.r2,
                          .points = (unsigned)r.npoints};
    char err[512];
    if (modelfile_write(path, &m, comment, err, sizeof err) != 0) {
        fprintf(stderr, "corun: %s\n", err);
        rc = CLI_FAILED;
    } else {
        printf("wrote %s\n", path);
    }
    free(comment);
    free(command);
    free(path);
    train_hsm_done(&r);
out:
    diag_done(&d);
    free(datadir);
    return rc;
}

const struct cli_command cmd_train = {
    .name = "train",
    .args = "MODEL [--gpu P] [--quick] [--cycles N] [--out FILE]",
    .summary = "fit a predictor's model from private-mode runs and write its model file",
    .help = "MODEL is hsm: least squares of bandwidth utilization against row-buffer hit rate\n"
            "(HSM section 2.3.2) over the preset's memory-bound training kernels, each run alone\n"
            "on every SM. Prints the points, c1, c2 and R^2, and writes the model file.\n\n"
            "  --gpu P          GPU preset (default hbm80)\n"
            "  --quick          a short window per kernel (for tests)\n"
            "  --cycles N       the measured window per kernel (default 100000)\n"
            "  --out FILE       write the model here instead of DATADIR/data/models/hsm-P.cfg\n\n"
            "A progress bar goes to stderr when it is a terminal.\n",
    .run = run_train,
};
