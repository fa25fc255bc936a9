/* cmd_reproduce_alloc — `corun reproduce hsm --fairness`, `hsm --qos`, `hsm --threshold`,
 * `smqos`, `smqos --triples`, `themis --fairness`, `themis --qos`: the papers' SM-allocation
 * experiments, reached through cmd_reproduce.c (which owns the command and the accuracy
 * experiments). The flags come from the experiment table, so a new experiment needs no code
 * here. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/cli.h"
#include "corun/datadir.h"
#include "corun/reproduce.h"
#include "corun/util.h"
#include "reproduce_alloc_report.h"
#include "reproduce_report.h"
#include "slurm_cli.h"

/* 1 when flag (without its dashes) is some allocation experiment's. */
static bool is_experiment_flag(const char *flag)
{
    for (size_t i = 0; i < ralloc_experiment_count(); i++) {
        const char *f = ralloc_experiment_at(i)->flag;
        if (f[0] && strcmp(f, flag) == 0)
            return true;
    }
    return false;
}

bool reproduce_alloc_wanted(int argc, char **argv)
{
    /* The experiment named, so that a flag both kinds use (hsm --quads allocates, themis
     * --quads predicts) goes where that experiment has it. */
    const char *name = NULL;
    for (int i = 1; i < argc && !name; i++)
        if (argv[i][0] != '-' &&
            (repro_experiment_named(argv[i]) || ralloc_experiment_named(argv[i])))
            name = argv[i];
    for (int i = 1; i < argc; i++)
        if ((strncmp(argv[i], "--", 2) == 0 && is_experiment_flag(argv[i] + 2) &&
             (!name || ralloc_experiment_find(name, argv[i] + 2) ||
              !repro_experiment_find(name, argv[i] + 2))) ||
            (argv[i][0] != '-' && !repro_experiment_named(argv[i]) &&
             ralloc_experiment_find(argv[i], "")))
            return true;
    return false;
}

/* "--fairness, --qos or --threshold": the flags of the experiments called name ("no flag" for
 * one without a flag) into buf. */
static void flags_of(const char *name, char *buf, size_t len)
{
    size_t n = 0, at = 0;
    for (size_t i = 0; i < ralloc_experiment_count(); i++)
        n += strcmp(ralloc_experiment_at(i)->name, name) == 0;
    buf[0] = '\0';
    for (size_t i = 0, k = 0; i < ralloc_experiment_count() && at < len; i++) {
        const struct ralloc_experiment *x = ralloc_experiment_at(i);
        if (strcmp(x->name, name) != 0)
            continue;
        k++;
        at += (size_t)snprintf(buf + at, len - at, "%s%s%s",
                               k == 1   ? ""
                               : k == n ? " or "
                                        : ", ",
                               x->flag[0] ? "--" : "no flag", x->flag);
    }
}

void reproduce_alloc_list(void)
{
    for (size_t i = 0; i < ralloc_experiment_count(); i++) {
        const struct ralloc_experiment *x = ralloc_experiment_at(i);
        char flag[32] = "";
        if (x->flag[0])
            snprintf(flag, sizeof flag, "--%s", x->flag);
        printf("%-8s %-11s %s: %s\n", x->name, flag, x->figure, x->caption);
        printf("%-8s             scenarios/suites/%s, %u policies (--quick: %d mixes, %d epochs "
               "of %d cycles)\n",
               "", x->suite, x->npolicies, RALLOC_QUICK_MIXES, RALLOC_QUICK_EPOCHS,
               RALLOC_QUICK_CYCLES);
    }
}

/* ---- `corun reproduce hsm --threshold --help` ---- */

#define ALLOC_SYNOPSIS                                                                             \
    "[-j N] [--threads N] [--quick] [--mixes N] [--epochs N] [--epoch-cycles N] [--seed S] "       \
    "[--catalog PATH] [--gpu PRESET] [--set gpu.K=V]... [--policies LABEL,...] [--resume FILE] "   \
    "[--fresh] [--shard K/N] [--json] [--slurm [--shards N] [SBATCH OPTIONS] [--slurm-dir DIR] "   \
    "[--wait]]"

/* The options after -j and --quick (alloc_help_options prints those). */
static const char alloc_options[] =
    "  --mixes N       N mixes spanning the categories instead of all (--quick's choice)\n"
    "  --epochs N      epochs per run instead of the suite's (or --quick's)\n"
    "  --epoch-cycles N  cycles per epoch instead of the suite's (1000 or more)\n"
    "  --seed S        seed of every run (default 1)\n"
    "  --catalog PATH  the catalog whose trace cache shares private-mode references\n"
    "                  (default $XDG_DATA_HOME/corun/catalog.db)\n"
    "  --gpu PRESET    every mix on PRESET instead of the suite's GPU, its splits scaled\n"
    "  --set gpu.SETTING=VALUE  change a GPU setting for every run, as `corun run --set`\n"
    "                  does (e.g. gpu.order_free=true; not gpu.sms: use --gpu); repeatable,\n"
    "                  at most 16; checked before anything runs and named in the table's\n"
    "                  title, its JSON (\"sets\") and its --resume journal\n"
    "  --policies LABEL,...  only these policies (labels above) and the baseline, in the\n"
    "                  experiment's order; each row is the one the whole run prints\n"
    "  --resume FILE   keep each finished mix in FILE and skip those it holds: the same\n"
    "                  command after a kill picks up where it was; with a finished FILE,\n"
    "                  --json reprints it without simulating. Refused for another\n"
    "                  experiment, other options or another build of corun\n"
    "  --fresh         simulate every run, even one the catalog holds finished: by default\n"
    "                  a (mix, policy) run that this build has finished on the same data\n"
    "                  and scenario (another experiment's baseline, a --policies subset\n"
    "                  before) is read from the catalog, since it would come out the same;\n"
    "                  with --fresh each is simulated and stored again\n"
    "  --shard K/N     only every N-th mix from the K-th (what a --slurm task runs); a mix\n"
    "                  it cannot keep in the --resume journal fails it (exit status 1)\n"
    "  --json          one JSON document: per policy and group the metrics, and each\n"
    "                  run's NP and SMs per kernel\n" SLURM_CLI_HELP
    "Each run prints a projection of its cost; the source tree's docs/results.md has the\n"
    "full tables and what they cost.\n";

static void alloc_help_options(FILE *out)
{
    fprintf(out,
            "Each (mix, policy) is its own run: NP over the run = private cycles of all its\n"
            "instructions / run cycles; the table gives each policy's means over the mixes, per\n"
            "category, and the paper's published figures beside ours (never used as results).\n\n"
            "  -j, --jobs N    N worker processes (1 to 64, default 1); results do not\n"
            "                  depend on N\n"
            "  --threads N     threads of each worker (default: its CPUs over -j): a\n"
            "                  mix's private-mode references side by side, its shared run's\n"
            "                  LLC and DRAM beside its SMs while that is faster; results do\n"
            "                  not depend on N\n"
            "  --quick         %d mixes spanning the categories, %d epochs of %d cycles\n%s",
            RALLOC_QUICK_MIXES, RALLOC_QUICK_EPOCHS, RALLOC_QUICK_CYCLES, alloc_options);
}

/* text to out, its words in lines of at most width columns (a longer word on its own). */
static void print_wrapped(FILE *out, const char *text, size_t width)
{
    size_t col = 0;
    while (*text) {
        size_t len = strcspn(text, " ");
        if (col && col + 1 + len > width) {
            fputc('\n', out);
            col = 0;
        } else if (col) {
            fputc(' ', out);
            col++;
        }
        fwrite(text, 1, len, out);
        col += len;
        text += len;
        text += strspn(text, " ");
    }
    fputc('\n', out);
}

/* One policy as words: "fair driven by hsm, fairness threshold 0.7". */
static void describe_policy(const struct ralloc_policy *p, FILE *out)
{
    fprintf(out, "%s", p->allocator);
    if (p->predictor)
        fprintf(out, " driven by %s", p->predictor);
    if (p->target > 0)
        fprintf(out, ", QoS target %.3g", p->target);
    if (p->hp_share > 0)
        fprintf(out, ", hp_share %.3g", p->hp_share);
    if (p->smqos > 0)
        fprintf(out, ", smqos_policy %.3g", p->smqos);
    if (p->weight0 > 0)
        fprintf(out, ", weights <%.3g, %.3g>", p->weight0, 1 - p->weight0);
    if (p->threshold > 0)
        fprintf(out, ", %s %.3g",
                strcmp(p->allocator, "smqos") == 0 ? "threshold" : "fairness threshold",
                p->threshold);
    if (p->set) /* "smqos_batch_min = 0;" without its ';' */
        fprintf(out, ", %.*s", (int)strcspn(p->set, ";"), p->set);
}

bool reproduce_alloc_help(int argc, char **argv, FILE *out)
{
    const char *name = NULL, *flag = NULL;
    for (int i = 1; i < argc; i++) {
        if (!name && argv[i][0] != '-' && ralloc_experiment_named(argv[i]))
            name = argv[i];
        else if (!flag && strncmp(argv[i], "--", 2) == 0 && is_experiment_flag(argv[i] + 2))
            flag = argv[i] + 2;
    }
    const struct ralloc_experiment *x =
        name ? ralloc_experiment_find(name, flag ? flag : "") : NULL;
    if (!x) {
        fprintf(out,
                "usage: corun reproduce EXPERIMENT [FLAG] %s\n\nthe papers' SM-allocation "
                "experiments:\n",
                ALLOC_SYNOPSIS);
        for (size_t i = 0; i < ralloc_experiment_count(); i++) {
            const struct ralloc_experiment *e = ralloc_experiment_at(i);
            char dashed[32] = "";
            if (e->flag[0])
                snprintf(dashed, sizeof dashed, "--%s", e->flag);
            fprintf(out, "  %-6s %-12s %s\n", e->name, dashed, e->figure);
        }
        fprintf(out, "'corun help reproduce EXPERIMENT FLAG' describes one.\n\n");
        alloc_help_options(out);
        return true;
    }
    fprintf(out, "usage: corun reproduce %s%s%s %s\n\n", x->name, x->flag[0] ? " --" : "", x->flag,
            ALLOC_SYNOPSIS);
    char *what = xasprintf("%s: %s. The mixes: scenarios/suites/%s%s%s.", x->figure, x->caption,
                           x->suite, x->only ? ", only " : "", x->only ? x->only : "");
    print_wrapped(out, what, 88);
    free(what);
    fprintf(out, "\nPolicies, as the table labels them (--policies takes these labels)%s:\n",
            x->baseline >= 0 ? "; the baseline always runs" : "");
    int width = 16;
    for (unsigned p = 0; p < x->npolicies; p++)
        width =
            (int)strlen(x->policies[p].label) > width ? (int)strlen(x->policies[p].label) : width;
    for (unsigned p = 0; p < x->npolicies; p++) {
        fprintf(out, "  %-*s ", width, x->policies[p].label);
        describe_policy(&x->policies[p], out);
        fprintf(out, "%s\n", (int)p == x->baseline ? " (the baseline)" : "");
    }
    /* Labels such as hp<.5,.5> hold what a shell would take for redirections. */
    for (unsigned p = 0; p < x->npolicies; p++)
        if (strpbrk(x->policies[p].label, "<>")) {
            fprintf(out, "  (quoted in the shell: --policies '%s,%s')\n", x->policies[p].label,
                    x->policies[x->npolicies - 1].label);
            break;
        }
    if (x->missing)
        fprintf(out, "Not run: %s\n", x->missing);
    fprintf(out, "\n");
    alloc_help_options(out);
    return true;
}

struct options {
    const char *flag; /* an experiment's flag, or "accuracy" */
    const struct ralloc_experiment *x;
    struct ralloc_options ro;
    bool json;
    const char *policies;     /* --policies, as given */
    struct ralloc_subset sub; /* x when --policies is given (then ro.policies is set) */
};

/* "corun: reproduce: WHAT 'ARG'; see ..." and the usage status. */
static int bad(const char *what, const char *arg)
{
    fprintf(stderr, "corun: reproduce: %s '%s'; see 'corun reproduce --list'\n", what, arg);
    return CLI_BAD_INPUT;
}

static int set_flag(struct options *o, const char *flag)
{
    if (o->flag && strcmp(o->flag, flag) != 0)
        return bad("choose one experiment flag (--accuracy or an allocation experiment's), not "
                   "two: already",
                   o->flag);
    o->flag = flag;
    return CLI_OK;
}

/* getopt's value for experiment i's flag; the fixed options below use letters. */
#define FLAG_OPT 1000

static int parse(int argc, char **argv, struct options *o)
{
    static const struct option fixed[] = {
        {"accuracy", no_argument, NULL, 'a'},       {"jobs", required_argument, NULL, 'j'},
        {"quick", no_argument, NULL, 'q'},          {"mixes", required_argument, NULL, 'm'},
        {"epochs", required_argument, NULL, 'e'},   {"epoch-cycles", required_argument, NULL, 'c'},
        {"seed", required_argument, NULL, 'S'},     {"catalog", required_argument, NULL, 'C'},
        {"resume", required_argument, NULL, 'R'},   {"json", no_argument, NULL, 'J'},
        {"gpu", required_argument, NULL, 'g'},      {"shard", required_argument, NULL, 's'},
        {"policies", required_argument, NULL, 'P'}, {"fresh", no_argument, NULL, 'F'},
        {"threads", required_argument, NULL, 'T'},  {"set", required_argument, NULL, 'X'},
    };
    /* The fixed options, then every experiment's flag once, then the end. */
    size_t nx = ralloc_experiment_count(), nopt = CORUN_ARRAY_LEN(fixed);
    struct option *longopts = xcalloc(nopt + nx + 1, sizeof(*longopts));
    memcpy(longopts, fixed, sizeof fixed);
    for (size_t i = 0; i < nx; i++) {
        const char *f = ralloc_experiment_at(i)->flag;
        bool seen = !f[0];
        for (size_t k = CORUN_ARRAY_LEN(fixed); k < nopt && !seen; k++)
            seen = strcmp(longopts[k].name, f) == 0;
        if (!seen)
            longopts[nopt++] = (struct option){f, no_argument, NULL, FLAG_OPT + (int)i};
    }
    *o = (struct options){.ro = {.jobs = 1, .seed = 1}};
    unsigned long v;
    int c, rc = CLI_OK;
    cli_getopt_reset();
    while (rc == CLI_OK && (c = cli_getopt(argc, argv, ":j:", longopts)) != -1) {
        if (c >= FLAG_OPT && (size_t)(c - FLAG_OPT) < nx) {
            rc = set_flag(o, ralloc_experiment_at((size_t)(c - FLAG_OPT))->flag);
            continue;
        }
        switch (c) {
        case 'a': rc = set_flag(o, "accuracy"); break;
        case 'j':
            rc = cli_parse_uint("-j", optarg, 1, 64, &v) ? CLI_BAD_INPUT : CLI_OK;
            o->ro.jobs = (unsigned)v;
            break;
        case 'T':
            rc = cli_parse_uint("--threads", optarg, 1, 64, &v) ? CLI_BAD_INPUT : CLI_OK;
            o->ro.threads = (unsigned)v;
            break;
        case 'q': o->ro.quick = true; break;
        case 'X': rc = cli_add_gpu_set(&o->ro.sets, "reproduce", optarg); break;
        case 'm':
            rc = cli_parse_uint("--mixes", optarg, 1, 100000, &v) ? CLI_BAD_INPUT : CLI_OK;
            o->ro.mixes = (unsigned)v;
            break;
        case 'e':
            rc = cli_parse_uint("--epochs", optarg, 1, 1000000, &v) ? CLI_BAD_INPUT : CLI_OK;
            o->ro.epochs = (unsigned)v;
            break;
        case 'c':
            rc = cli_parse_uint("--epoch-cycles", optarg, REPRO_EPOCH_CYCLES_MIN,
                                REPRO_EPOCH_CYCLES_MAX, &v)
                     ? CLI_BAD_INPUT
                     : CLI_OK;
            o->ro.epoch_cycles = (unsigned)v;
            break;
        case 'S':
            rc = cli_parse_uint("--seed", optarg, 0, CLI_SEED_MAX, &v) ? CLI_BAD_INPUT : CLI_OK;
            o->ro.seed = v;
            break;
        case 'C': o->ro.catalog = optarg; break;
        case 'R': o->ro.resume = optarg; break;
        case 'g': o->ro.gpu = optarg; break;
        case 's':
            rc = cli_parse_shard(optarg, &o->ro.shard, &o->ro.shards) ? CLI_BAD_INPUT : CLI_OK;
            break;
        case 'J': o->json = true; break;
        case 'P': o->policies = optarg; break;
        case 'F': o->ro.fresh = true; break;
        default: rc = CLI_BAD_INPUT; break;
        }
    }
    free(longopts);
    if (rc != CLI_OK)
        return rc;
    if (cli_operands(&cmd_reproduce, argc, argv, optind, 1,
                     "an experiment's name (EXPERIMENT; --list lists them)") != 0)
        return CLI_BAD_INPUT;
    if (!o->ro.threads)
        o->ro.threads = cli_threads_per_job(o->ro.jobs);
    const char *name = argv[optind];
    if (!ralloc_experiment_named(name))
        return bad("unknown allocation experiment (hsm, smqos, themis):", name);
    if (o->flag && strcmp(o->flag, "accuracy") == 0)
        return bad("--accuracy goes alone (no allocation experiment's flag):", name);
    if (!(o->x = ralloc_experiment_find(name, o->flag ? o->flag : ""))) {
        char flags[160];
        flags_of(name, flags, sizeof flags);
        fprintf(stderr, "corun: reproduce %s: %s: %s; see 'corun reproduce --list'\n", name,
                o->flag ? "no such experiment for it, it takes" : "say which", flags);
        return CLI_BAD_INPUT;
    }
    if (o->policies) {
        char err[1024];
        if (ralloc_experiment_subset(o->x, o->policies, &o->sub, err, sizeof err) != 0) {
            fprintf(stderr, "corun: reproduce: %s\n", err);
            return CLI_BAD_INPUT;
        }
        o->x = &o->sub.x;
        o->ro.policies = o->sub.labels;
    }
    return CLI_OK;
}

int reproduce_alloc_main(int argc, char **argv, const struct slurm_options *slurm)
{
    struct options o;
    int rc = parse(argc, argv, &o);
    if (rc != CLI_OK)
        return rc;
    if (slurm) {
        char *dir = datadir_locate(), err[512];
        o.ro.datadir = dir;
        size_t mixes = 0;
        struct slurm_options so = *slurm;
        if (o.ro.shards) {
            rc = slurm_cli_shard_refused();
        } else if (cli_resume_usable("reproduce", o.ro.resume) != 0) {
            rc = CLI_BAD_INPUT;
        } else if (ralloc_check_options(&o.ro, o.x, &mixes, err, sizeof err) != 0) {
            fprintf(stderr, "corun: reproduce: %s\n", err);
            rc = CLI_BAD_INPUT;
        } else {
            slurm_cli_cap_shards("reproduce", o.x->name, mixes, "mix", "mixes", &so);
            rc = slurm_cli_submit(SLURM_REPRODUCE, argc, argv, o.ro.catalog, o.ro.resume, &so);
        }
        free(dir);
        ralloc_subset_done(&o.sub); /* a no-op without --policies */
        return rc;
    }
    if (cli_resume_usable("reproduce", o.ro.resume) != 0) {
        ralloc_subset_done(&o.sub);
        return CLI_BAD_INPUT;
    }
    char *datadir = datadir_locate();
    o.ro.datadir = datadir;
    /* --gpu, --set and the journal are refused before the heading is printed and the catalog
     * made, as every other refusal is. */
    char refused[512];
    size_t mixes = 0;
    if (ralloc_check_options(&o.ro, o.x, &mixes, refused, sizeof refused) != 0) {
        fprintf(stderr, "corun: reproduce: %s\n", refused);
        ralloc_subset_done(&o.sub); /* a no-op without --policies */
        free(datadir);
        return CLI_BAD_INPUT;
    }
    cli_catalog_cache_warn("reproduce", o.ro.catalog);
    const struct ralloc_experiment *x = o.x;
    if (!o.json) {
        char sets[1024];
        gpu_sets_describe(&o.ro.sets, " --set ", " --set ", sets, sizeof sets);
        printf("corun reproduce %s%s%s%s%s%s%s%s%s: %s\n", x->name, x->flag[0] ? " --" : "",
               x->flag, o.ro.quick ? " --quick" : "", o.ro.gpu ? " --gpu " : "",
               o.ro.gpu ? o.ro.gpu : "", sets, o.ro.policies ? " --policies " : "",
               o.ro.policies ? o.ro.policies : "", x->figure);
        fflush(stdout);
    }
    struct ralloc_result r;
    char err[512];
    struct cli_mixes_bar bar = {.label = x->suite, .start = cli_wall_seconds()};
    int prc = ralloc_run(&o.ro, x, cli_mixes_progress, &bar, &r, err, sizeof err);
    if (prc < 0) {
        fprintf(stderr, "corun: reproduce: %s\n", err);
        ralloc_result_done(&r);     /* a refused journal comes after the mixes are listed */
        ralloc_subset_done(&o.sub); /* a no-op without --policies */
        free(datadir);
        return CLI_BAD_INPUT;
    }
    if (o.json)
        reproduce_alloc_print_json(&o.ro, &r);
    else
        reproduce_alloc_print(&o.ro, &r);
    fflush(stdout);
    rc = reproduce_journal_status(o.ro.resume, &r.resume, o.ro.shards,
                                  prc > 0 ? CLI_FAILED : CLI_OK);
    ralloc_result_done(&r);
    ralloc_subset_done(&o.sub); /* a no-op without --policies */
    free(datadir);
    return rc;
}
