/* cmd_reproduce_prophet — `corun reproduce prophet --accuracy | --colocation | --scaleout
 * [--quick] [--resume FILE] [-j N]`: Prophet's experiments printed beside its published figures. */
#include "cmd_reproduce_prophet.h"
#include "reproduce_prophet_pairs.h"

#include "slurm_cli.h"

#include "corun/accel_predict.h"
#include "corun/cli.h"
#include "corun/datadir.h"
#include "corun/reproduce_journal.h"
#include "corun/reproduce_prophet.h"
#include "corun/reproduce_scaleout.h"
#include "corun/util.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define QUICK_QUERIES       6
#define FULL_QUERIES        40
#define QUICK_COLOC_QUERIES 6
#define FULL_COLOC_QUERIES  20
#define QOS_TARGET          2.0 /* Prophet 7.3: mean latency under 2 x solo */
#define LS_LOAD             0.3 /* co-location: the LS query rate, x what it serves alone */

bool reproduce_prophet_wanted(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "prophet") == 0)
            return true;
    return false;
}

void reproduce_prophet_list(void)
{
    printf("%-8s %-11s %s\n", "prophet", "--accuracy",
           "Prophet Figs. 12-14: predicted vs measured degradation of LS applications beside a "
           "batch one");
    printf("%-8s             77 pairs (--quick: 6, two per class), %d closed-loop queries "
           "(--quick: %d)\n",
           "", FULL_QUERIES, QUICK_QUERIES);
    printf("%-8s %-11s %s\n", "prophet", "--colocation",
           "Prophet 7.3: the most batch instances (0-15) keeping mean latency <= 2 x solo, "
           "predicted vs measured; utilization improvement");
    printf("%-8s             7 pairs (--quick: dig beside pf), %d queries (--quick: %d)\n", "",
           FULL_COLOC_QUERIES, QUICK_COLOC_QUERIES);
    printf("%-8s %-11s %s\n", "prophet", "--scaleout",
           "Prophet 7.4: a cluster's GPUs used, utilization and QoS violations over a diurnal "
           "LS load, per predictor");
    printf("%-8s             700 GPUs, 7 LS x 11 batch applications, 8 slots a day (--quick: 4 "
           "GPUs, 2 x 2, 2 slots)\n",
           "");
}

void reproduce_prophet_help(FILE *out)
{
    fprintf(out,
            "usage: corun reproduce prophet --accuracy | --colocation | --scaleout [--quick]\n"
            "                       [--queries N] [--resume FILE] [-j N] [--shard K/N]\n"
            "                       [--slurm [--shards N] [SBATCH OPTIONS] [--slurm-dir DIR]\n"
            "                       [--wait]]\n\n"
            "Prophet's experiments on accelerator scenarios (k40, a non-preemptive GPU shared by\n"
            "streams of copies and kernels; docs/accelerator.md), printed beside the paper's\n"
            "figures:\n"
            "  --accuracy     Figs. 12-14: predicted against measured degradation of an LS\n"
            "                 application beside a batch one; 77 pairs (--quick: 6), %d\n"
            "                 closed-loop queries each (--quick: %d); about 2 h of one core\n"
            "  --colocation   7.3: the most batch instances (0-15) that keep the mean latency\n"
            "                 within %.0f x alone, predicted against measured; 7 pairs (--quick:\n"
            "                 1), %d Poisson queries (--quick: %d); about 1 h\n"
            "  --scaleout     7.4: a cluster's GPUs, utilization and QoS violations over a\n"
            "                 day's LS load, per predictor; 385 cells (--quick: 4 GPUs, 2 x 2\n"
            "                 applications, 2 slots); about 28 h (docs/journals/ keeps them)\n\n"
            "  --quick        the small form above\n"
            "  --queries N    the LS application's queries per run (1 to 100000)\n"
            "  --resume FILE  keep each finished pair or cell in FILE (the scale-out study its\n"
            "                 LS curves in FILE.curves too); the same command goes on from it\n"
            "  -j, --jobs N   spread the pairs, curves or cells over N worker processes (1 to\n"
            "                 64, default 1)\n"
            "  --shard K/N    run the K-th of N parts (consecutive pairs or cells) into the\n"
            "                 --resume journal, to merge with `corun reproduce merge`\n"
            "  --slurm ...    submit the shards as a Slurm job (`corun help slurm`)\n\n"
            "A failed pair, curve or cell is named on stderr; the others print their rows, the\n"
            "summary is left out and the exit status is 1.\n",
            FULL_QUERIES, QUICK_QUERIES, QOS_TARGET, FULL_COLOC_QUERIES, QUICK_COLOC_QUERIES);
}

static void scaleout_progress(void *ctx, double done)
{
    (void)ctx;
    cli_progress("configurations", done);
}

/* The cells' table: the instances each decider chose and the measured p99 for them (the
 * cells a shard has, in a shard). */
static void print_cells(const struct so_params *p, const struct so_result *r)
{
    printf("\ninstances chosen and the measured p99 over p99 alone (* above the target):\n");
    printf("%-8s %-7s %5s", "LS", "batch", "load");
    for (int d = 1; d < SO_DECIDERS; d++)
        printf(" %13s", so_decider_name(d));
    printf("\n");
    for (size_t a = 0; a < p->nls; a++)
        for (size_t b = 0; b < p->nbatch; b++)
            for (unsigned l = 0; l < r->levels; l++) {
                size_t i = (a * p->nbatch + b) * r->levels + l;
                const struct so_cell *c = &r->cells[i];
                if (!r->present[i])
                    continue;
                printf("%-8s %-7s %4.0f%%", p->ls[a], p->batch[b], 100 * r->load[l]);
                for (int d = 1; d < SO_DECIDERS; d++) {
                    int k = c->k[d];
                    printf("    %2d %6.2fx%s", k, c->p99_x[k], c->p99_x[k] > p->target ? "*" : " ");
                }
                printf("\n");
            }
}

/* After curves or cells failed: each failure on stderr, the rows of the cells that finished,
 * and what was lost; the summary is left out. The finished cells are in the journal, with
 * --resume. */
static int scaleout_failed(const struct so_params *p, struct so_result *r, struct repro_journal *j,
                           struct repro_journal *cj)
{
    for (const char *l = r->failures; *l;) {
        const char *nl = strchr(l, '\n');
        fprintf(stderr, "corun: reproduce prophet --scaleout: %.*s\n", (int)(nl - l), l);
        l = nl + 1;
    }
    if (r->journal_error[0])
        fprintf(stderr, "corun: reproduce prophet --scaleout: %s\n", r->journal_error);
    if (r->curves_error[0])
        fprintf(stderr, "corun: reproduce prophet --scaleout: %s\n", r->curves_error);
    size_t ncells = p->nls * p->nbatch * r->levels, done = r->simulated_cells + r->resumed;
    print_cells(p, r);
    printf("\n%zu of %zu cells not simulated (the failures named on stderr), %zu finished",
           r->failed, ncells - r->missing, done);
    if (j)
        printf("; the summary needs every cell: the same command with --resume %s simulates only "
               "the rest\n",
               repro_journal_path(j));
    else
        printf("; the summary needs every cell (with --resume FILE a rerun simulates only what is "
               "missing)\n");
    so_result_done(r);
    repro_journal_close(j);
    repro_journal_close(cj);
    return CLI_FAILED;
}

/* The experiment's name in its journals: other --queries are another run. Heap. */
static char *run_what(const char *what, unsigned queries)
{
    return queries ? xasprintf("%s --queries %u", what, queries) : xstrdup(what);
}

static int journal_open(struct prophet_journal *jn, const char *resume, const char *datadir,
                        const char *what, bool quick, unsigned queries, size_t size)
{
    char *id = run_what(what, queries);
    int rc = pj_open(jn, resume, datadir, id, quick, size);
    free(id);
    return rc;
}

static int scaleout(const char *datadir, bool quick, unsigned queries, const char *resume,
                    unsigned jobs, struct prophet_shard sh)
{
    struct so_params p;
    so_params_default(quick, &p);
    if (queries)
        p.queries = queries;
    struct prophet_journal jn;
    if (journal_open(&jn, resume, datadir, "--scaleout", quick, queries,
                     sizeof(struct so_cell_record)))
        return CLI_BAD_INPUT; /* a journal it cannot take: bad input, as in hsm's */
    /* Beside it, the LS applications' curves, so that a stopped run does not measure them
     * again: only time is lost without them, so a file of another build or run is left as it
     * is and the curves are measured. */
    struct repro_journal *cj = NULL;
    if (resume) {
        char *curves = reproduce_prophet_curves_path(resume),
             *what = run_what("--scaleout curves", queries);
        char *id = pj_identity(what, quick), err[512];
        cj = repro_journal_open_run(curves, datadir, id, so_curve_record_size(p.queries), err,
                                    sizeof err);
        if (!cj)
            fprintf(stderr,
                    "corun: reproduce prophet --scaleout: %s (the curves are measured "
                    "and not kept)\n",
                    err);
        free(id);
        free(what);
        free(curves);
    }
    if (!quick && !resume) /* a stop would lose a day's work */
        fprintf(stderr, "corun: reproduce prophet --scaleout: the full form takes about 28 h of "
                        "one core at 20 queries a configuration and keeps nothing if it stops: "
                        "--resume FILE keeps each cell as it finishes; the source tree's "
                        "docs/journals/ keeps all 385, from which this build prints the tables "
                        "after simulating one to vouch for the rest (docs/journals/README.md)\n");
    p.journal = jn.j;
    p.curves = cj;
    p.shard = sh.k;
    p.shards = sh.n;
    p.jobs = jobs;
    printf("prophet --scaleout%s: %u k40 GPUs, %u per LS application (", quick ? " --quick" : "",
           p.gpus, p.gpus / (unsigned)p.nls);
    for (size_t i = 0; i < p.nls; i++)
        printf("%s%s", i ? ", " : "", p.ls[i]);
    printf("), each beside up to %d instances of one batch application (GPU g: the %zu in turn:",
           SO_MAX_INSTANCES, p.nbatch);
    for (size_t i = 0; i < p.nbatch; i++)
        printf(" %s", p.batch[i]);
    printf(");\n%u batch instances to run, %d to a GPU without an LS application; a day of %u "
           "slots, the LS load from %.0f %% to %.0f %% of the rate it serves alone (a cosine);\n"
           "QoS: p99 <= %.2f x its p99 alone under the same arrivals (Prophet 7.4's 70 %% policy); "
           "%u Poisson queries per configuration\n",
           p.batch_pool, SO_GPU_PROCS, p.slots, 100 * p.trough, 100 * p.peak, p.target, p.queries);
    struct so_result r;
    char err[512];
    int rc = so_run(datadir, &p, &r, scaleout_progress, NULL, err, sizeof err);
    cli_progress("configurations", 1);
    if (rc && r.failures) /* the cells that finished are kept and shown */
        return scaleout_failed(&p, &r, jn.j, cj);
    if (rc) {
        fprintf(stderr, "corun: reproduce prophet --scaleout: %s\n", err);
        so_result_done(&r);
        repro_journal_close(jn.j);
        repro_journal_close(cj);
        return CLI_FAILED;
    }
    print_cells(&p, &r);
    if (r.curves_error[0]) /* they are measured again next time: a warning */
        fprintf(stderr, "corun: reproduce prophet --scaleout: %s\n", r.curves_error);
    if (r.curves_resumed)
        printf("(%zu LS curve%s read from %s, not measured again)\n", r.curves_resumed,
               r.curves_resumed == 1 ? "" : "s", repro_journal_path(cj));
    if (r.missing) { /* a shard: its cells are in the journal, the summary needs all of them */
        size_t ncells = p.nls * p.nbatch * r.levels;
        printf("\nshard %u/%u: %zu of the %zu cells simulated into %s (%zu read from it); the "
               "summary needs every cell: merge the shards' journals (`corun reproduce merge`; a "
               "Slurm job: `corun slurm collect JOB`)\n"
               "%u configuration%s simulated, %.1f M core cycles.\n",
               sh.k, sh.n, r.simulated_cells, ncells, repro_journal_path(jn.j), r.resumed,
               r.simulations, r.simulations == 1 ? "" : "s", r.cycles / 1e6);
        /* the journal is all a shard leaves: losing a cell of it is a failure */
        rc = r.journal_error[0] ? CLI_FAILED : CLI_OK;
        if (rc)
            fprintf(stderr, "corun: reproduce prophet --scaleout: %s\n", r.journal_error);
        so_result_done(&r);
        repro_journal_close(jn.j);
        repro_journal_close(cj);
        return rc;
    }
    printf("\n%-11s %9s %5s %10s %10s %8s %12s %15s %11s\n", "decider", "GPUs used", "peak",
           "batch on", "MPS slots", "SM busy", "co-located", "QoS violations", "over 10 %");
    printf("%-11s %9s %5s %10s %10s %8s %12s %15s %11s\n", "", "(mean)", "", "LS GPUs", "used",
           "(LS GPUs)", "GPU-slots", "", "");
    for (int d = 0; d < SO_DECIDERS; d++) {
        const struct so_summary *s = &r.sum[d];
        double n = s->colocations ? s->colocations : 1;
        printf("%-11s %9.1f %5u %10.1f %9.1f%% %7.1f%% %12u %14.1f%% %10.1f%%\n",
               so_decider_name(d), s->gpus_mean, s->gpus_peak, s->placed_mean, 100 * s->slot_share,
               100 * s->sm_busy, s->colocations, 100 * s->violations / n,
               100 * s->violations10 / n);
    }
    printf("Prophet 7.4 (700 GPUs, 70 %% policy): utilization 80.15 %% with Prophet against a low "
           "one without co-location;\nQoS violations in under 7.8 %% of its co-locations (every "
           "policy); with every PE filled, over 70 %% of co-locations more than 10 %% "
           "degraded.\n%u configuration%s simulated, %.1f M core cycles.\n",
           r.simulations, r.simulations == 1 ? "" : "s", r.cycles / 1e6);
    if (r.journal_error[0])
        fprintf(stderr, "corun: reproduce prophet --scaleout: %s\n", r.journal_error);
    if (r.resumed)
        printf("(%zu of the %zu cells read from %s: their configurations and cycles are counted "
               "above, not simulated again)\n",
               r.resumed, p.nls * p.nbatch * r.levels, repro_journal_path(jn.j));
    so_result_done(&r);
    repro_journal_close(jn.j);
    repro_journal_close(cj);
    return CLI_OK;
}

static int accuracy_pair(const struct pairs_run *pr, size_t i, void *rec, char *err, size_t errlen)
{
    struct rp_accuracy_row *row = rec;
    if (rp_accuracy_run(pr->datadir, &pr->pairs[i], pr->queries, pr->memo, row, err, errlen))
        return -1;
    /* zeroed by rp_accuracy_run, padding included; kept without its pointers */
    memset(&row->pair, 0, sizeof(row->pair));
    return 0;
}

static void accuracy_print(struct pairs_run *pr, size_t i, const void *rec)
{
    struct rp_accuracy_row row;
    memcpy(&row, rec, sizeof row);
    row.pair = pr->pairs[i];
    printf("%-18s %-8s %-7s %8.2fx %8.2fx %7.1f%% %10.2fx %8.0f%% %7.2fx %7.1f%%\n",
           rp_class_name(row.pair.cls), row.pair.ls, row.pair.batch, row.measured, row.prophet,
           100 * row.prophet_error, row.sequential, 100 * row.sequential_error, row.bubble,
           100 * row.bubble_error);
    fflush(stdout);
}

static int accuracy(const char *datadir, bool quick, unsigned queries, const char *resume,
                    unsigned jobs, struct prophet_shard sh)
{
    struct prophet_journal jn;
    if (journal_open(&jn, resume, datadir, "--accuracy", quick, queries,
                     sizeof(struct rp_accuracy_row)))
        return CLI_BAD_INPUT; /* a journal it cannot take: bad input, as in hsm's */
    struct pairs_run pr = {.label = "pairs",
                           .rsize = sizeof(struct rp_accuracy_row),
                           .jn = &jn,
                           .sh = sh,
                           .run = accuracy_pair,
                           .print = accuracy_print,
                           .datadir = datadir,
                           .memo = accel_memo_new(),
                           .queries = queries ? queries
                                      : quick ? QUICK_QUERIES
                                              : FULL_QUERIES};
    pr.n = rp_accuracy_pairs(quick, &pr.pairs);
    printf("prophet --accuracy%s: %zu pairs on k40, %u closed-loop quer%s of the LS application "
           "beside one batch instance;\ndegradation = mean query latency beside it / alone; "
           "error = |predicted - measured| / measured\n",
           quick ? " --quick" : "", pr.n, pr.queries, pr.queries == 1 ? "y" : "ies");
    printf("%-18s %-8s %-7s %9s %9s %8s %11s %9s %8s %8s\n", "class", "LS", "batch", "measured",
           "prophet", "error", "sequential", "error", "bubble", "error");
    fflush(stdout);
    if (pr_run(&pr, jobs))
        return pr_failed(&pr);
    if (pr.missing)
        return pr_shard_done(&pr);
    double sum[RP_CLASSES] = {0}, seq[RP_CLASSES] = {0}, bub[RP_CLASSES] = {0}, worst_seq = 0;
    unsigned count[RP_CLASSES] = {0};
    uint64_t cycles = 0;
    for (size_t i = 0; i < pr.n; i++) {
        const struct rp_accuracy_row *row = pr_rec(&pr, i);
        int c = pr.pairs[i].cls;
        sum[c] += row->prophet_error;
        seq[c] += row->sequential_error;
        bub[c] += row->bubble_error;
        count[c]++;
        if (row->sequential_error > worst_seq)
            worst_seq = row->sequential_error;
        cycles += row->cycles;
    }
    printf("\n%-18s %5s %14s %21s %17s %13s %18s\n", "class", "pairs", "prophet error",
           "published (Prophet)", "sequential error", "bubble error", "published (bubble)");
    for (int c = 0; c < RP_CLASSES; c++) {
        if (!count[c])
            continue;
        printf("%-18s %5u %13.1f%% %20.1f%% %16.0f%% %12.1f%%", rp_class_name(c), count[c],
               100 * sum[c] / count[c], 100 * rp_published_error[c], 100 * seq[c] / count[c],
               100 * bub[c] / count[c]);
        if (c == RP_PCIE)
            printf(" %17.1f%%", 100 * RP_PUBLISHED_BUBBLE_ERROR);
        else
            printf(" %18s", "-");
        printf("\n");
    }
    printf("(Prophet reports the sequential model's error up to 13100 %%; here up to %.0f %%. It "
           "gives the bubble's only for PCIe-intensive pairs.)\n%.1f M core cycles simulated.\n",
           100 * worst_seq, cycles / 1e6);
    pr_done(&pr);
    pj_close(&jn);
    return CLI_OK;
}

/* A co-location pair's journal record. */
struct coloc_record {
    struct rp_coloc_point pt[16];
    uint64_t cycles;
};

static int coloc_pair(const struct pairs_run *pr, size_t i, void *rec, char *err, size_t errlen)
{
    struct coloc_record *r = rec;
    return rp_coloc_run(pr->datadir, &pr->pairs[i], pr->queries, QOS_TARGET, LS_LOAD, r->pt,
                        &r->cycles, err, errlen);
}

static void coloc_print(struct pairs_run *pr, size_t i, const void *rec)
{
    const struct coloc_record *r = rec;
    const struct rp_coloc_point *pt = r->pt;
    printf("\n%s beside n x %s (latency / latency alone):\n%3s %10s %-5s %9s %9s %-5s %11s "
           "%-5s %9s %13s %s\n",
           pr->pairs[i].ls, pr->pairs[i].batch, "n", "measured", "QoS", "(p99)", "prophet", "QoS",
           "sequential", "QoS", "GPU util", "prophet-even", "QoS");
    for (int k = 0; k < 16; k++)
        printf("%3u %9.2fx %-5s %8.2fx %8.2fx %-5s %10.2fx %-5s %8.1f%% %12.2fx %s\n",
               pt[k].instances, pt[k].measured_x, pt[k].measured_met ? "met" : "no",
               pt[k].measured_p99_x, pt[k].prophet_x, pt[k].prophet_met ? "met" : "no",
               pt[k].sequential_x, pt[k].sequential_met ? "met" : "no", 100 * pt[k].gpu_util,
               pt[k].even_x, pt[k].even_met ? "met" : "no");
    int m = rp_coloc_largest(pt, 0), p = rp_coloc_largest(pt, 1), s = rp_coloc_largest(pt, 2);
    printf("most %s instances keeping the target: measured %d, prophet %d, sequential %d, "
           "prophet-even %d (-1: none)\n",
           pr->pairs[i].batch, m, p, s, rp_coloc_largest(pt, 3));
    if (p >= 0)
        printf("prophet's choice on the core: %.2fx (%s); SM time busy %.1f %% against %.1f "
               "%% alone. %.1f M core cycles.\n",
               pt[p].measured_x, pt[p].measured_met ? "met" : "violated", 100 * pt[p].gpu_util,
               100 * pt[0].gpu_util, r->cycles / 1e6);
    fflush(stdout);
}

static int colocation(const char *datadir, bool quick, unsigned queries, const char *resume,
                      unsigned jobs, struct prophet_shard sh)
{
    struct prophet_journal jn;
    if (journal_open(&jn, resume, datadir, "--colocation", quick, queries,
                     sizeof(struct coloc_record)))
        return CLI_BAD_INPUT; /* a journal it cannot take: bad input, as in hsm's */
    struct pairs_run pr = {.label = "co-location",
                           .rsize = sizeof(struct coloc_record),
                           .jn = &jn,
                           .sh = sh,
                           .run = coloc_pair,
                           .print = coloc_print,
                           .datadir = datadir,
                           .queries = queries ? queries
                                      : quick ? QUICK_COLOC_QUERIES
                                              : FULL_COLOC_QUERIES};
    pr.n = rp_coloc_pairs(quick, &pr.pairs);
    printf("prophet --colocation%s: on k40, %u Poisson quer%s of the LS application (at %.0f "
           "%% of the rate it serves alone) beside 0 to 15\nbatch instances; QoS target (Prophet "
           "7.3): mean latency <= %.1f x the mean alone under the same arrivals (n = 0;\nmeasured "
           "or predicted). Utilization improvement (Prophet 7.3): the instances chosen / 15.\n",
           quick ? " --quick" : "", pr.queries, pr.queries == 1 ? "y" : "ies", 100 * LS_LOAD,
           QOS_TARGET);
    fflush(stdout);
    if (pr_run(&pr, jobs))
        return pr_failed(&pr);
    if (pr.missing)
        return pr_shard_done(&pr);
    struct rp_coloc_point(*pts)[16] = xcalloc(pr.n, sizeof(*pts));
    uint64_t total = 0;
    for (size_t i = 0; i < pr.n; i++) {
        const struct coloc_record *r = pr_rec(&pr, i);
        memcpy(pts[i], r->pt, sizeof(r->pt));
        total += r->cycles;
    }
    struct rp_coloc_summary sum;
    rp_coloc_summarize((const struct rp_coloc_point(*)[16])pts, pr.n, QOS_TARGET, &sum);
    printf("\nover the %u pair(s)     utilization improvement  choices violating QoS (worst)\n"
           "measured (oracle)     %6.1f %%\n"
           "prophet               %6.1f %%                 %u of %u (%.1f %%)\n"
           "sequential            %6.1f %%                 %u of %u (%.1f %%)\n"
           "prophet-even          %6.1f %%                 %u of %u (%.1f %%)  (corun's variant)\n"
           "Prophet 7.3 (published, 77 co-locations): prophet %.1f %%, oracle %.1f %%; 7 of 77 "
           "choices violating, by 0.4 to 7.8 %%.\n%.1f M core cycles simulated.\n",
           sum.pairs, 100 * sum.oracle_util, 100 * sum.prophet_util, sum.prophet_violations,
           sum.pairs, 100 * sum.prophet_worst, 100 * sum.sequential_util, sum.sequential_violations,
           sum.pairs, 100 * sum.sequential_worst, 100 * sum.even_util, sum.even_violations,
           sum.pairs, 100 * sum.even_worst, 100 * RP_PUBLISHED_UTIL, 100 * RP_PUBLISHED_ORACLE_UTIL,
           total / 1e6);
    free(pts);
    pr_done(&pr);
    pj_close(&jn);
    return CLI_OK;
}

/* The value of option `name` at argv[*i] ("--name V" or "--name=V") into *value: 1 taken, 0
 * not this option, -1 after a message when its value is missing. */
static int take_value(const char *name, int argc, char **argv, int *i, const char **value)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0 || (argv[*i][n] && argv[*i][n] != '='))
        return 0;
    *value = argv[*i][n] == '=' ? argv[*i] + n + 1 : *i + 1 < argc ? argv[++*i] : NULL;
    if (!*value || !**value) {
        fprintf(stderr, "corun: reproduce prophet: %s needs a value\n", name);
        return -1;
    }
    return 1;
}

/* Before a job is submitted, what every task would meet: a --resume journal of another run
 * (refused, as a local run refuses it; CLI_BAD_INPUT), and more shards than the experiment
 * has pairs or cells (lowered, said). */
static int slurm_check(bool acc, bool coloc, bool quick, unsigned queries, const char *resume,
                       struct slurm_options *so)
{
    const char *what = acc ? "--accuracy" : coloc ? "--colocation" : "--scaleout";
    const struct rp_pair *pairs;
    size_t n, size;
    if (acc) {
        n = rp_accuracy_pairs(quick, &pairs);
        size = sizeof(struct rp_accuracy_row);
    } else if (coloc) {
        n = rp_coloc_pairs(quick, &pairs);
        size = sizeof(struct coloc_record);
    } else {
        struct so_params p;
        so_params_default(quick, &p);
        n = p.nls * p.nbatch * (p.slots / 2 + 1);
        size = sizeof(struct so_cell_record);
    }
    if (resume && access(resume, F_OK) == 0) {
        char *datadir = datadir_locate(), *run = run_what(what, queries),
             *id = pj_identity(run, quick), err[512];
        int rc = repro_journal_check_run(resume, datadir, id, size, err, sizeof err);
        free(id);
        free(run);
        free(datadir);
        if (rc != 0) {
            fprintf(stderr, "corun: reproduce prophet: %s\n", err);
            return CLI_BAD_INPUT;
        }
    }
    char name[64];
    snprintf(name, sizeof name, "prophet %s%s", what, quick ? " --quick" : "");
    slurm_cli_cap_shards("reproduce", name, n, acc || coloc ? "pair" : "cell",
                         acc || coloc ? "pairs" : "cells", so);
    return CLI_OK;
}

int reproduce_prophet_main(int argc, char **argv, const struct slurm_options *slurm)
{
    bool quick = false, acc = false, coloc = false, scale = false;
    const char *resume = NULL, *shard_text = NULL, *catalog = NULL, *queries_text = NULL;
    struct prophet_shard sh = {0, 0};
    unsigned jobs = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "prophet") == 0)
            continue;
        const char *a = argv[i], *jv = NULL;
        if (strcmp(a, "-j") == 0 || strcmp(a, "--jobs") == 0) {
            jv = i + 1 < argc ? argv[++i] : "";
        } else if (strncmp(a, "-j", 2) == 0 && a[2] != '-') {
            jv = a + 2;
        } else if (strncmp(a, "--jobs=", 7) == 0) {
            jv = a + 7;
        }
        if (jv) {
            unsigned long v;
            if (cli_parse_uint("-j", jv, 1, 64, &v) != 0)
                return CLI_BAD_INPUT;
            jobs = (unsigned)v;
            continue;
        }
        int t;
        if ((t = take_value("--resume", argc, argv, &i, &resume)) != 0 ||
            (t = take_value("--shard", argc, argv, &i, &shard_text)) != 0 ||
            (t = take_value("--catalog", argc, argv, &i, &catalog)) != 0 ||
            (t = take_value("--queries", argc, argv, &i, &queries_text)) != 0) {
            if (t < 0)
                return CLI_BAD_INPUT;
        } else if (strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (strcmp(argv[i], "--accuracy") == 0)
            acc = true;
        else if (strcmp(argv[i], "--colocation") == 0)
            coloc = true;
        else if (strcmp(argv[i], "--scaleout") == 0)
            scale = true;
        else {
            fprintf(stderr,
                    "corun: reproduce prophet: unknown argument '%s' (expected --accuracy, "
                    "--colocation or --scaleout, and --quick, --queries N, --resume FILE, -j N, "
                    "--shard K/N, --slurm with its options)\n",
                    argv[i]);
            return CLI_BAD_INPUT;
        }
    }
    if (acc + coloc + scale != 1) {
        fprintf(stderr, "corun: reproduce prophet: give one of --accuracy, --colocation and "
                        "--scaleout\n");
        return CLI_BAD_INPUT;
    }
    if (shard_text && cli_parse_shard(shard_text, &sh.k, &sh.n) != 0)
        return CLI_BAD_INPUT;
    unsigned long queries = 0;
    if (queries_text && cli_parse_uint("--queries", queries_text, 1, 100000, &queries) != 0)
        return CLI_BAD_INPUT;
    /* A --slurm task passes its shard's catalog too; these experiments record no runs. */
    if (catalog && !sh.n)
        fprintf(stderr,
                "corun: reproduce prophet: --catalog %s ignored: Prophet's experiments "
                "record no runs in a catalog\n",
                catalog);
    /* Before submitting too: a job whose every task would refuse it ran on the cluster. */
    if (cli_resume_usable("reproduce prophet", resume) != 0)
        return CLI_BAD_INPUT;
    if (slurm) {
        if (sh.n)
            return slurm_cli_shard_refused();
        struct slurm_options so = *slurm;
        int rc = slurm_check(acc, coloc, quick, (unsigned)queries, resume, &so);
        return rc ? rc : slurm_cli_submit(SLURM_REPRODUCE, argc, argv, NULL, resume, &so);
    }
    if (sh.n && !resume) {
        fprintf(stderr,
                "corun: reproduce prophet: --shard %u/%u needs --resume FILE: a shard's "
                "results go only to its journal, to be merged with the others'\n",
                sh.k, sh.n);
        return CLI_BAD_INPUT;
    }
    char *datadir = datadir_locate();
    unsigned q = (unsigned)queries;
    int rc = acc     ? accuracy(datadir, quick, q, resume, jobs, sh)
             : coloc ? colocation(datadir, quick, q, resume, jobs, sh)
                     : scaleout(datadir, quick, q, resume, jobs, sh);
    free(datadir);
    return rc;
}

char *reproduce_prophet_curves_path(const char *journal)
{
    return xasprintf("%s" PROPHET_CURVES_SUFFIX, journal);
}

size_t reproduce_prophet_result_bytes(const char *what, size_t record_size)
{
    static const struct {
        const char *what;
        size_t size, results;
    } records[] = {
        {"prophet --scaleout", sizeof(struct so_cell_record),
         offsetof(struct so_cell_record, simulations)},
        {"prophet --accuracy", sizeof(struct rp_accuracy_row),
         offsetof(struct rp_accuracy_row, cycles)},
        {"prophet --colocation", sizeof(struct coloc_record),
         offsetof(struct coloc_record, cycles)},
    };
    for (size_t i = 0; i < CORUN_ARRAY_LEN(records); i++) {
        size_t n = strlen(records[i].what);
        if (strncmp(what, records[i].what, n) == 0 && (what[n] == '\0' || what[n] == ' ') &&
            record_size == records[i].size)
            return records[i].results;
    }
    return record_size;
}
