/* cmd_sweep — `corun sweep SUITE --combos P:A,...`: every mix of a suite with every combination,
 * into the catalog; resumable and shardable. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "corun/catalog.h"
#include "corun/cli.h"
#include "corun/datadir.h"
#include "corun/diag.h"
#include "corun/suite.h"
#include "corun/sweep.h"
#include "corun/util.h"
#include "slurm_cli.h"

static void progress(unsigned done, unsigned total)
{
    char label[64];
    snprintf(label, sizeof label, "%u of %u mixes", done, total);
    cli_progress(label, total ? (double)done / total : 1);
}

static int print_row(void *ctx, size_t ncols, const char *const *names, const char *const *values)
{
    (void)ctx;
    const char *const *cells = values ? values : names;
    for (size_t i = 0; i < ncols; i++)
        printf(i ? " %12s" : "  %-20s", cells[i] ? cells[i] : "-");
    printf("\n");
    return 0;
}

/* list (heap, or NULL when empty) with item (heap) after a comma. Heap. */
static char *sql_list_add(char *list, char *item)
{
    char *next = xasprintf("%s%s%s", list ? list : "", list ? ", " : "", item);
    free(item);
    free(list);
    return next;
}

/* The results in the catalog of this sweep, per combination asked for: the suite's mixes (not
 * those of another suite file of the same name), in this sweep's configuration. 0, or -1 after
 * a message when they cannot be read (a damaged catalog: the table would be short). */
static int print_results(const struct sweep_options *o, const struct sweep_summary *sum)
{
    char err[512];
    struct suite s;
    struct diag d;
    diag_init(&d);
    int loaded = suite_load(o->suite, o->datadir, &s, &d);
    diag_done(&d);
    char *mixes = NULL, *combos = NULL;
    for (size_t m = 0; loaded == 0 && m < s.nmixes; m++) {
        char key[256]; /* as sweep.c's items keep it */
        sweep_mix_key((const char *const *)s.mixes[m].kernels, s.mixes[m].sms, s.mixes[m].nkernels,
                      key, sizeof key);
        char *q = cli_sql_quoted(key);
        mixes = sql_list_add(mixes, xasprintf("'%s'", q));
        free(q);
    }
    suite_done(&s);
    for (unsigned c = 0; c < o->ncombos; c++) {
        char *p = cli_sql_quoted(o->combos[c].predictor);
        char *a = cli_sql_quoted(o->combos[c].allocator);
        combos = sql_list_add(combos, xasprintf("('%s', '%s')", p, a));
        free(a);
        free(p);
    }
    struct catalog *cat = mixes ? catalog_open(o->catalog, err, sizeof err) : NULL;
    if (!cat) {
        if (mixes)
            fprintf(stderr, "corun: %s\n", err);
        else
            fprintf(stderr, "corun: sweep: %s could not be read again for the table\n", o->suite);
        free(mixes);
        free(combos);
        return -1;
    }
    char *suite = cli_sql_quoted(sum->suite), *config = cli_sql_quoted(sum->config);
    char *sql =
        xasprintf("SELECT predictor || ':' || allocator AS combination, count(*) AS mixes, "
                  "printf('%%.3f', avg(mean_stp)) AS mean_STP, "
                  "printf('%%.3f', avg(mean_antt)) AS mean_ANTT, "
                  "printf('%%.3f', avg(mean_fairness)) AS fairness, "
                  "CASE WHEN count(mean_are) > 0 THEN printf('%%.1f%%%%', 100 * avg(mean_are)) END "
                  "AS mean_ARE "
                  "FROM sweep_results WHERE suite = '%s' AND seed = %llu AND config = '%s' "
                  "AND mix IN (%s) AND (predictor, allocator) IN (VALUES %s) "
                  "GROUP BY predictor, allocator ORDER BY 1",
                  suite, (unsigned long long)o->seed, config, mixes, combos);
    free(suite);
    free(config);
    free(mixes);
    free(combos);
    int rc = catalog_query(cat, sql, print_row, NULL, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "corun: %s\n", err);
    free(sql);
    catalog_close(cat);
    return rc;
}

/* The suite, and --set's settings against its preset, checked before a Slurm job is
 * submitted for it, so that no task fails on them. */
static int suite_checked(const char *path, const char *datadir, const struct gpu_sets *sets,
                         size_t *nmixes)
{
    struct suite s;
    struct diag d;
    diag_init(&d);
    int rc = suite_load(path, datadir, &s, &d) == 0 ? CLI_OK : CLI_BAD_INPUT;
    if (rc != CLI_OK)
        diag_print(&d, stderr);
    else
        *nmixes = s.nmixes;
    char err[512];
    if (rc == CLI_OK && gpu_sets_check(sets, datadir, s.gpu, err, sizeof err) != 0) {
        fprintf(stderr, "corun: sweep: %s\n", err);
        rc = CLI_BAD_INPUT;
    }
    suite_done(&s);
    diag_done(&d);
    return rc;
}

static const char merge_help[] =
    "usage: corun sweep merge [--catalog PATH] [--] CATALOG...\n\n"
    "Copies into the catalog (--catalog's, or the default) the sweep results of each CATALOG\n"
    "that it lacks: the catalogs of --shard K/N sweeps run on machines that do not share\n"
    "one. Their private-mode traces (a longer one replaces a shorter) and finished reproduce\n"
    "runs come too. Each CATALOG is merged in one transaction; one holding a result that\n"
    "this catalog has with other values (another simulator or data under the same key) is\n"
    "refused with nothing of it merged, and the ones merged before it stay. Merging again\n"
    "adds nothing; a CATALOG named twice in one merge (or by two names, such as A and ./A or\n"
    "a link to A) is refused, before anything is merged. `--` ends the options: the\n"
    "arguments after it are catalogs (a file named -x.db). Then `corun sweep SUITE` with the\n"
    "shards' options runs nothing that the catalog holds and prints the table. `corun slurm\n"
    "collect JOB` does this for a --slurm job.\n";

/* `corun sweep merge [--catalog PATH] [--] CATALOG...` (options and catalogs in any order). */
static int merge_main(int argc, char **argv)
{
    const char *into = NULL;
    int nfiles = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--catalog") == 0) {
            if (i + 1 == argc) {
                fprintf(stderr, "corun: sweep merge: --catalog needs a value\n");
                return CLI_BAD_INPUT;
            }
            into = argv[++i];
        } else if (strncmp(argv[i], "--catalog=", 10) == 0) {
            into = argv[i] + 10;
        } else if (strcmp(argv[i], "--") == 0) {
            while (++i < argc)
                argv[++nfiles] = argv[i];
        } else if (argv[i][0] == '-') {
            fprintf(stderr,
                    "corun: sweep merge: unknown option '%s' (it takes catalogs and "
                    "--catalog PATH)\n",
                    argv[i]);
            return CLI_BAD_INPUT;
        } else {
            argv[++nfiles] = argv[i]; /* the files, in order, from argv[1] */
        }
    }
    if (!nfiles) {
        fprintf(stderr, "corun: sweep merge: expected at least one catalog to merge; see "
                        "'corun help sweep merge'\n");
        return CLI_BAD_INPUT;
    }
    /* A catalog merged twice is a slip (a glob that caught it again): the second pass would
     * add nothing and print counts that look like another shard's. */
    for (int i = 2; i <= nfiles; i++)
        for (int j = 1; j < i; j++)
            if (cli_same_file(argv[j], argv[i])) {
                fprintf(stderr,
                        "corun: sweep merge: %s and %s are the same catalog: expected each "
                        "catalog once\n",
                        argv[j], argv[i]);
                return CLI_BAD_INPUT;
            }
    char err[1024];
    char *target = into ? xstrdup(into) : catalog_default_path();
    bool existed = !target || access(target, F_OK) == 0;
    struct catalog *cat = catalog_open(into, err, sizeof err);
    if (!cat) {
        fprintf(stderr, "corun: %s\n", err);
        free(target);
        return CLI_BAD_INPUT;
    }
    const char *path = catalog_path(cat);
    int rc = CLI_OK, merged = 0;
    unsigned long added = 0;
    for (int i = 1; i <= nfiles; i++) {
        if (cli_same_file(path, argv[i])) {
            fprintf(stderr, "corun: sweep merge: %s is the catalog merged into\n", argv[i]);
            rc = CLI_BAD_INPUT;
            break;
        }
        struct catalog_merged m;
        if (catalog_merge(cat, argv[i], &m, err, sizeof err) != 0) {
            fprintf(stderr, "corun: sweep merge: %s\n", err);
            rc = CLI_BAD_INPUT;
            break;
        }
        added += m.added;
        merged++;
        printf("%s: %lu sweep results added, %lu already in %s; %lu private-mode traces, %lu "
               "reproduce runs copied\n",
               argv[i], m.added, m.present, path, m.traces, m.runs);
    }
    if (rc == CLI_OK)
        printf("%lu sweep results added to %s; `corun sweep SUITE` with the shards' options "
               "prints the table\n",
               added, path);
    catalog_close(cat);
    if (rc != CLI_OK && !merged && !existed) /* made by this merge, and nothing came in */
        for (size_t i = 0; i < 3; i++) {
            char *file = xasprintf("%s%s", target, (const char *[]){"", "-wal", "-shm"}[i]);
            unlink(file);
            free(file);
        }
    free(target);
    return rc;
}

static bool sweep_help_for(int argc, char **argv, FILE *out)
{
    return cli_help_verb(argc, argv, "merge", merge_help, out);
}

/* A sweep stopped by a signal dies of it, as it did, but says so (it ended without a word):
 * each item is stored as it finishes, and the same command goes on from them. */
static void note_stops(const char *catalog)
{
    char *path = catalog ? NULL : catalog_default_path(), note[512];
    snprintf(note, sizeof note,
             "the items finished are kept in the catalog %.400s: the same command goes on from "
             "them\n",
             catalog ? catalog
             : path  ? path
                     : "");
    free(path);
    cli_stop_note_install("sweep", note);
}

static int sweep_main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "merge") == 0)
        return merge_main(argc - 1, argv + 1);
    static const struct option longopts[] = {
        {"combos", required_argument, NULL, 'c'},
        {"jobs", required_argument, NULL, 'j'},
        {"shard", required_argument, NULL, 's'},
        {"seed", required_argument, NULL, 'S'},
        {"epochs", required_argument, NULL, 'e'},
        {"catalog", required_argument, NULL, 'C'},
        {"threads", required_argument, NULL, 'T'},
        {"set", required_argument, NULL, 'X'},
        {NULL, 0, NULL, 0},
    };
    struct slurm_options so;
    bool slurm;
    if (slurm_cli_take_options(&argc, argv, &slurm, &so) != 0)
        return CLI_BAD_INPUT;
    struct sweep_options o = {.shard = 1, .shards = 1, .jobs = 1, .seed = 1};
    const char *combos = "none:static";
    char err[2048]; /* a suite's mistakes, a line each */
    unsigned long v;
    int c;
    cli_getopt_reset();
    while ((c = cli_getopt(argc, argv, ":j:", longopts)) != -1) {
        switch (c) {
        case 'c': combos = optarg; break;
        case 'j':
            if (cli_parse_uint("-j", optarg, 1, 64, &v) != 0)
                return CLI_BAD_INPUT;
            o.jobs = (unsigned)v;
            break;
        case 's':
            if (cli_parse_shard(optarg, &o.shard, &o.shards) != 0)
                return CLI_BAD_INPUT;
            break;
        case 'S':
            if (cli_parse_uint("--seed", optarg, 0, CLI_SEED_MAX, &v) != 0)
                return CLI_BAD_INPUT;
            o.seed = v;
            break;
        case 'e':
            if (cli_parse_uint("--epochs", optarg, 1, 1000000, &v) != 0)
                return CLI_BAD_INPUT;
            o.epochs = (unsigned)v;
            break;
        case 'C': o.catalog = optarg; break;
        case 'X':
            if (cli_add_gpu_set(&o.sets, "sweep", optarg) != CLI_OK)
                return CLI_BAD_INPUT;
            break;
        case 'T':
            if (cli_parse_uint("--threads", optarg, 1, 64, &v) != 0)
                return CLI_BAD_INPUT;
            o.threads = (unsigned)v;
            break;
        default: return 2;
        }
    }
    if (cli_operands(&cmd_sweep, argc, argv, optind, 1,
                     "a suite file (SUITE; `corun suite list` lists the suites corun ships)") != 0)
        return CLI_BAD_INPUT;
    if (!o.threads)
        o.threads = cli_threads_per_job(o.jobs);
    if (sweep_parse_combos(&o, combos, err, sizeof err) != 0) {
        fprintf(stderr, "corun: %s\n", err);
        return CLI_BAD_INPUT;
    }
    char *datadir = datadir_locate();
    o.datadir = datadir;
    char *suite = cli_find_scenario(argv[optind], datadir, "scenarios/suites");
    if (!suite) {
        free(datadir);
        return CLI_BAD_INPUT;
    }
    o.suite = suite;
    if (slurm) {
        size_t nmixes = 0;
        int checked = o.shards > 1 ? slurm_cli_shard_refused()
                                   : suite_checked(o.suite, datadir, &o.sets, &nmixes);
        /* The catalog collect merges into, as a sweep here would find it. */
        if (checked == CLI_OK && sweep_check_catalog(o.catalog, false, err, sizeof err) != 0) {
            fprintf(stderr, "corun: sweep: %s\n", err);
            checked = CLI_BAD_INPUT;
        }
        /* A shard past the last item would be a task that runs nothing: fewer shards give the
         * same results. */
        size_t items = nmixes * o.ncombos;
        if (checked == CLI_OK && items < so.shards) {
            fprintf(stderr,
                    "corun: sweep: %s has %zu item%s (%zu mix%s x %u combination%s), so %zu "
                    "shard%s, not %u\n",
                    argv[optind], items, items == 1 ? "" : "s", nmixes, nmixes == 1 ? "" : "es",
                    o.ncombos, o.ncombos == 1 ? "" : "s", items, items == 1 ? "" : "s", so.shards);
            so.shards = (unsigned)items;
        }
        free(datadir);
        free(suite);
        return checked == CLI_OK ? slurm_cli_submit(SLURM_SWEEP, argc, argv, o.catalog, NULL, &so)
                                 : checked;
    }
    note_stops(o.catalog);
    struct sweep_summary sum;
    int rc = sweep_run(&o, progress, &sum, err, sizeof err);
    if (sum.items || rc == 0) {
        printf("%s, shard %u/%u: %u items, %u already in the catalog, %u run now, %u failed\n",
               o.suite, o.shard, o.shards, sum.items, sum.skipped, sum.run, sum.failed);
        /* A shard past the last item runs nothing: said, or an empty table looked like a sweep
         * that had silently done nothing. */
        if (rc == 0 && sum.items == 0)
            fprintf(stderr,
                    "corun: sweep: shard %u/%u has no items: the suite has fewer than %u items "
                    "(mixes x combinations), so it ran nothing; the other shards run them all\n",
                    o.shard, o.shards, o.shard);
        if (print_results(&o, &sum) != 0 && rc == 0)
            rc = 1; /* the items are stored; their table could not be read */
    }
    if (rc < 0)
        fprintf(stderr, "corun: sweep: %s\n", err);
    free(suite);
    free(datadir);
    return rc == 0 ? CLI_OK : (sum.items || rc > 0 ? CLI_FAILED : CLI_BAD_INPUT);
}

const struct cli_command cmd_sweep = {
    .name = "sweep",
    .args = "SUITE [--combos P:A,...] [-j N] [--threads N] [--shard K/N] [--seed S] [--epochs N] "
            "[--set gpu.K=V]... [--catalog P] "
            "[--slurm [--shards N] [SBATCH OPTIONS] [--slurm-dir DIR] [--wait]] | merge "
            "CATALOG... [--catalog P]",
    .summary = "run every mix of a suite with every predictor:allocator pair into the catalog",
    .help =
        "SUITE is a suite file, or the name of one corun ships (hsm-pairs:\n"
        "scenarios/suites/hsm-pairs.cfg).\n\n"
        "  --combos P:A,...\n"
        "                  predictor:allocator pairs (default none:static). Predictors:\n"
        "                  none or any of `corun help predictors`; allocators: any of\n"
        "                  `corun help allocators` (static: the mix keeps its split)\n"
        "  -j, --jobs N    N worker processes (1 to 64, default 1)\n"
        "  --threads N     threads of each worker: its mix's private-mode references side\n"
        "                  by side, and its shared run's LLC and DRAM beside its SMs while\n"
        "                  that is faster (default: its CPUs over -j); the results do not\n"
        "                  depend on N\n"
        "  --shard K/N     take every N-th item starting at the K-th, so N processes or\n"
        "                  machines sharing the catalog split the suite between them\n"
        "  --seed S        seed of every run (default 1)\n"
        "  --epochs N      epochs per mix instead of the suite's\n"
        "  --set gpu.SETTING=VALUE  change a GPU setting for every mix, as `corun run --set`\n"
        "                  does (e.g. gpu.order_free=true; not gpu.sms); repeatable, at\n"
        "                  most 16; checked before anything runs\n"
        "  --catalog PATH  the catalog (default $XDG_DATA_HOME/corun/catalog.db)\n" SLURM_CLI_HELP
        "\nItems already in the catalog are skipped, so a killed sweep resumes where it\n"
        "stopped; a result counts only for the configuration it was made in (the suite's\n"
        "preset, the --set settings, the epochs and their cycles, this build of corun and\n"
        "its data: column config), so other --epochs, --set or another corun run the items\n"
        "again. Prints the suite's results per pair in this configuration; `corun runs\n"
        "query` reads them all (table sweep_results). With --slurm each array task runs\n"
        "one shard into a catalog of its own in the job directory; `corun slurm collect\n"
        "JOB` merges them into --catalog's and prints the table. Without Slurm, `corun\n"
        "sweep merge CATALOG...` joins the catalogs of shards run on machines that do not\n"
        "share one (`corun help sweep merge`).\n",
    .help_for = sweep_help_for,
    .run = sweep_main,
};
