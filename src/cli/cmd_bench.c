/* cmd_bench — `corun bench`: the simulator's performance figures. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd_bench_compare.h"
#include "corun/accel_scenario.h"
#include "corun/bench.h"
#include "corun/cli.h"
#include "corun/datadir.h"
#include "corun/diag.h"
#include "corun/dramtrace.h"
#include "corun/preset.h"
#include "corun/scenario.h"
#include "corun/session.h"
#include "corun/trace.h"
#include "corun/util.h"

struct options {
    int quick;
    const char *traces; /* directory of generated .trace files, or NULL */
    const char *gpu;
    struct bench_compare_options cmp; /* cmp.other set: --compare */
    int ncmp_only;                    /* how many --compare-only options were given */
    int runs_set, epochs_set;
};

static int parse(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"quick", no_argument, NULL, 'q'},
        {"traces", required_argument, NULL, 't'},
        {"gpu", required_argument, NULL, 'g'},
        {"compare", required_argument, NULL, 'c'},
        {"runs", required_argument, NULL, 'n'},
        {"epochs", required_argument, NULL, 'e'},
        {"args", required_argument, NULL, 'a'},
        {"other-args", required_argument, NULL, 'A'},
        {"other-datadir", required_argument, NULL, 'D'},
        {"wall", no_argument, NULL, 'W'},
        {"cold", no_argument, NULL, 'C'},
        {NULL, 0, NULL, 0},
    };
    *o = (struct options){.gpu = "hbm80", .cmp = {.runs = 5, .epochs = 2}};
    cli_getopt_reset();
    int c;
    unsigned long v;
    while ((c = cli_getopt(argc, argv, ":", longopts)) != -1) {
        switch (c) {
        case 'q': o->quick = 1; break;
        case 't': o->traces = optarg; break;
        case 'g': o->gpu = optarg; break;
        case 'c': o->cmp.other = optarg; break;
        case 'n':
            if (cli_parse_uint("--runs", optarg, 1, 99, &v) != 0)
                return -1;
            o->cmp.runs = (unsigned)v, o->ncmp_only++, o->runs_set = 1;
            break;
        case 'e':
            if (cli_parse_uint("--epochs", optarg, 1, 1000, &v) != 0)
                return -1;
            o->cmp.epochs = (unsigned)v, o->ncmp_only++, o->epochs_set = 1;
            break;
        case 'a': o->cmp.args = optarg, o->ncmp_only++; break;
        case 'A': o->cmp.other_args = optarg, o->ncmp_only++; break;
        case 'D': o->cmp.other_datadir = optarg, o->ncmp_only++; break;
        case 'W': o->cmp.wall = 1, o->ncmp_only++; break;
        case 'C': o->cmp.cold = 1, o->ncmp_only++; break;
        default: return -1;
        }
    }
    if (!o->cmp.other && (o->ncmp_only || optind != argc)) {
        fprintf(stderr, "corun: bench: %s\n",
                optind != argc ? "scenarios are given only with --compare OTHER"
                               : "--runs, --epochs, --args, --other-args, --other-datadir, "
                                 "--wall and --cold go with --compare OTHER");
        cli_usage_error(&cmd_bench);
        return -1;
    }
    if (o->cmp.other && (o->traces || strcmp(o->gpu, "hbm80") != 0)) {
        /* It advised --args "--set gpu=P", which run refuses: the preset is not a --set. */
        fprintf(stderr, "corun: bench: --compare times scenarios; --gpu and --traces do not "
                        "apply (name the preset in a SCENARIO file's gpu setting; --args \"--set "
                        "gpu.K=V\" changes one of its settings)\n");
        return -1;
    }
    return 0;
}

/* Whether the scenario loads as `check` would take it; its mistakes printed when not. */
static bool scenario_usable(const char *path, const char *datadir)
{
    struct diag d;
    diag_init(&d);
    int rc;
    if (accel_scenario_probe(path) == 1) {
        struct accel_scenario a;
        rc = accel_scenario_load(&a, path, datadir, &d);
        accel_scenario_done(&a);
    } else {
        struct scenario sc;
        rc = scenario_load(&sc, path, datadir, &d);
        if (rc == 0)
            rc = session_check_choices(&sc, &d);
        scenario_done(&sc);
    }
    diag_print(&d, stderr);
    diag_done(&d);
    return rc == 0;
}

/* --other-datadir: a directory with data/ in it, as the other binary needs (a run of it found
 * out, exit 1). */
static int check_other_datadir(const char *dir)
{
    struct stat st;
    char *data = xasprintf("%s/data", dir);
    const char *why = stat(dir, &st) != 0    ? strerror(errno)
                      : !S_ISDIR(st.st_mode) ? "not a directory"
                      : stat(data, &st) != 0 ? "it holds no data/ directory"
                      : !S_ISDIR(st.st_mode) ? "its data is not a directory"
                                             : NULL;
    if (why)
        fprintf(stderr,
                "corun: bench: --other-datadir %s: %s (expected the other binary's data "
                "directory, holding its data/)\n",
                dir, why);
    free(data);
    return why ? -1 : 0;
}

/* OTHER found as a shell finds a command: a name without a slash that is no file here is
 * looked for on PATH (`--compare corun`). Returns the file (to free), or NULL. */
static char *find_on_path(const char *name)
{
    const char *path = getenv("PATH");
    if (strchr(name, '/') || !path || access(name, F_OK) == 0)
        return NULL;
    char *dirs = xstrdup(path), *save = NULL, *found = NULL;
    for (char *d = strtok_r(dirs, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
        char *f = xasprintf("%s/%s", d, name);
        struct stat st;
        if (stat(f, &st) == 0 && S_ISREG(st.st_mode) && access(f, X_OK) == 0)
            found = f;
        else
            free(f);
    }
    free(dirs);
    return found;
}

/* --compare: the scenarios named, or the default one and a four-kernel mix. */
static int run_compare(struct options *o, int argc, char **argv)
{
    char *on_path = find_on_path(o->cmp.other);
    if (on_path)
        o->cmp.other = on_path;
    struct stat st;
    const char *why = stat(o->cmp.other, &st) != 0 ? strerror(errno)
                      : S_ISDIR(st.st_mode)        ? "is a directory"
                      : access(o->cmp.other, X_OK) ? strerror(errno)
                                                   : NULL;
    if (why) {
        fprintf(stderr, "corun: bench: --compare %s: %s (expected an executable corun binary)\n",
                o->cmp.other, why);
        free(on_path);
        return CLI_BAD_INPUT;
    }
    if (o->cmp.other_datadir && check_other_datadir(o->cmp.other_datadir) != 0) {
        free(on_path);
        return CLI_BAD_INPUT;
    }
    if (bench_compare_check_no_out(&o->cmp) != 0) {
        free(on_path);
        return CLI_BAD_INPUT;
    }
    if (o->quick && !o->runs_set)
        o->cmp.runs = 3;
    if (o->quick && !o->epochs_set)
        o->cmp.epochs = 1;
    char *datadir = datadir_locate();
    size_t n = optind < argc ? (size_t)(argc - optind) : 2;
    /* Names resolved here, so that the other binary is given the same files; without names,
     * the default scenario and a four-kernel mix. */
    char **scenarios = xcalloc(n, sizeof(*scenarios));
    if (optind < argc) {
        for (size_t i = 0; i < n; i++)
            scenarios[i] = cli_find_scenario(argv[optind + i], datadir, "scenarios");
    } else {
        scenarios[0] = datadir_default_scenario(datadir);
        scenarios[1] = xasprintf("%s/scenarios/studies/quad-mixed.cfg", datadir);
    }
    int rc = CLI_OK;
    for (size_t i = 0; i < n; i++)
        if (!scenarios[i]) {
            rc = CLI_BAD_INPUT; /* a name found nowhere: said where it was looked for */
        } else if (access(scenarios[i], R_OK) != 0) {
            fprintf(stderr, "corun: bench: %s: %s (expected a scenario file)\n", scenarios[i],
                    strerror(errno));
            rc = CLI_BAD_INPUT;
        } else if (!scenario_usable(scenarios[i], datadir)) {
            rc = CLI_BAD_INPUT; /* said before timing anything (a failed run, exit 1) */
        } else if (o->cmp.args && bench_compare_check_args(&o->cmp, scenarios[i]) != 0) {
            rc = CLI_BAD_INPUT; /* this binary's run refuses them: not its failure, exit 1 */
        }
    if (rc == CLI_OK)
        rc = bench_compare(&o->cmp, scenarios, n);
    for (size_t i = 0; i < n; i++)
        free(scenarios[i]);
    free(scenarios);
    free(datadir);
    free(on_path);
    return rc;
}

/* Median CPU ms per epoch of `epochs` epochs of the pair on cfg; -1 on error. */
static double epoch_ms(const struct gpu_config *cfg, const struct kernel_profile *const *pair,
                       unsigned epochs, uint64_t cycles, double *total_ms)
{
    double *ms = calloc(epochs, sizeof(*ms));
    char err[256];
    if (!ms || bench_epochs(cfg, pair, 2, epochs, cycles, 1, ms, err, sizeof err) != 0) {
        fprintf(stderr, "corun: bench: %s\n", ms ? err : "out of memory");
        free(ms);
        return -1;
    }
    double total = 0;
    for (unsigned i = 0; i < epochs; i++)
        total += ms[i];
    if (total_ms)
        *total_ms = total;
    double median = bench_median(ms, epochs);
    free(ms);
    return median;
}

static int bench_core(const struct options *o, const struct gpu_config *gpu,
                      const struct kernel_profile *const *pair)
{
    const uint64_t cycles = o->quick ? 100000 : 500000;
    const unsigned epochs = o->quick ? 3 : 7;
    double real_us = (double)cycles / gpu->core_clock_mhz;
    printf("GPU core: %s, %s + %s on an even split, epochs of %llu core cycles (%.0f us of GPU "
           "time)\n",
           o->gpu, pair[0]->name, pair[1]->name, (unsigned long long)cycles, real_us);
    cli_progress("epochs", 0);
    double med = epoch_ms(gpu, pair, epochs, cycles, NULL);
    cli_progress("epochs", 1);
    if (med < 0)
        return -1;
    printf("  median epoch     %.1f ms CPU (%u epochs)\n", med, epochs);
    printf("  speed            %.2f M core cycles per CPU second\n", cycles / med / 1e3);
    printf("  slowdown         %.0fx the simulated GPU's real time\n", med * 1e3 / real_us);

    printf("  scaling in SMs   (median CPU ms per epoch)\n");
    /* Half, three quarters and all of the GPU's SMs, each once and at least one (a preset of
     * 3 SMs gives 1, 2 and 3; of 1, one line). */
    for (unsigned q = 2, last = 0; q <= 4; q++) {
        unsigned sms = gpu->sms * q / 4 > 0 ? gpu->sms * q / 4 : 1;
        if (sms == last)
            continue;
        last = sms;
        struct gpu_config c = *gpu;
        c.sms = sms;
        double m = epoch_ms(&c, pair, epochs, cycles, NULL);
        if (m < 0)
            return -1;
        printf("    %4u %-10s %7.1f ms  (%.2f ms per 10 SMs)\n", sms, sms == 1 ? "SM" : "SMs", m,
               m * 10 / sms);
    }
    printf("  scaling in epochs (total CPU ms of N consecutive epochs)\n");
    double one = 0;
    for (unsigned n = 1; n <= 4; n++) {
        double total;
        if (epoch_ms(gpu, pair, n, cycles, &total) < 0)
            return -1;
        if (n == 1)
            one = total;
        printf("    %u epoch%s         %7.1f ms  (%.2f x one epoch)\n", n, n > 1 ? "s" : " ", total,
               total / one);
    }
    return 0;
}

static int bench_dram(const struct options *o, const struct gpu_config *gpu)
{
    static const char *const patterns[] = {"stream", "random", "mix", "mix2k"};
    const size_t n = o->quick ? 200000 : 1000000;
    printf("DRAM alone: %s's memory system, %s\n", o->gpu,
           o->traces ? "trace files (parse + simulate)" : "generated streams (simulate only)");
    uint64_t *addrs = malloc(n * sizeof(*addrs));
    if (!addrs)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < 4 && rc == 0; i++) {
        struct trace t = {0};
        char err[512];
        double t0 = bench_cpu_seconds();
        if (o->traces) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s.trace", o->traces, patterns[i]);
            if (trace_load(path, &t, err, sizeof err) != 0) {
                fprintf(stderr, "corun: bench: %s\n", err);
                rc = -1;
                break;
            }
        } else {
            bench_gen_trace(patterns[i], n, 12345, addrs);
            t0 = bench_cpu_seconds();
        }
        struct dramtrace_result r;
        const uint64_t *a = o->traces ? t.addrs : addrs;
        size_t count = o->traces ? t.count : n;
        if (dramtrace_run(&gpu->dram, 0, a, o->traces ? t.writes : NULL, count, NULL, NULL, &r, err,
                          sizeof err) != 0) {
            fprintf(stderr, "corun: bench: %s\n", err);
            rc = -1;
        } else {
            double s = bench_cpu_seconds() - t0;
            printf(
                "  %-7s %8zu requests  %6.2f M requests per CPU s  (%.1f %% of peak, RBH %.2f)\n",
                patterns[i], count, (double)count / s / 1e6, r.utilization_pct, r.row_hit_rate);
        }
        trace_free(&t);
        cli_progress("DRAM traces", (double)(i + 1) / 4);
    }
    free(addrs);
    return rc;
}

/* Every trace --traces needs is there and parses before any timing starts (a mistake on a
 * line of the last was found after the core benchmark, exit 1); the timed runs parse them
 * again, as their figures include the parsing. */
static int check_traces(const char *dir)
{
    static const char *const patterns[] = {"stream", "random", "mix", "mix2k"};
    for (size_t i = 0; i < CORUN_ARRAY_LEN(patterns); i++) {
        char *path = xasprintf("%s/%s.trace", dir, patterns[i]);
        struct stat st;
        const char *why = stat(path, &st) != 0      ? strerror(errno)
                          : !S_ISREG(st.st_mode)    ? "not a regular file"
                          : access(path, R_OK) != 0 ? strerror(errno)
                                                    : NULL;
        struct trace t = {0};
        char err[512];
        bool bad = why || trace_load(path, &t, err, sizeof err) != 0;
        if (why)
            fprintf(stderr,
                    "corun: bench: --traces %s: cannot read %s: %s (expected %s.trace, made by "
                    "tools/gen_dram_traces.py)\n",
                    dir, path, why, patterns[i]);
        else if (bad)
            fprintf(stderr, "corun: bench: --traces %s: %s\n", dir, err);
        trace_free(&t);
        free(path);
        if (bad)
            return -1;
    }
    return 0;
}

static int bench_run(int argc, char **argv)
{
    struct options o;
    if (parse(argc, argv, &o) != 0)
        return CLI_BAD_INPUT;
    if (o.cmp.other)
        return run_compare(&o, argc, argv);
    char *datadir = datadir_locate();
    struct diag diags;
    diag_init(&diags);
    struct gpu_config gpu;
    struct kernel_profile mem = {0}, compute = {0};
    int rc = CLI_BAD_INPUT;
    if (o.traces && check_traces(o.traces) != 0)
        goto out;
    if (preset_gpu_find(datadir, o.gpu, "corun: --gpu", &gpu, &diags) != 0 ||
        preset_kernel_find(datadir, "stream", "corun: bench", &mem, &diags) != 0 ||
        preset_kernel_find(datadir, "compute", "corun: bench", &compute, &diags) != 0) {
        diag_print(&diags, stderr);
        goto out;
    }
    const struct kernel_profile *pair[2] = {&mem, &compute};
    rc = bench_core(&o, &gpu, pair) == 0 && bench_dram(&o, &gpu) == 0 ? CLI_OK : CLI_FAILED;
out:
    kernel_profile_done(&mem);
    kernel_profile_done(&compute);
    diag_done(&diags);
    free(datadir);
    return rc;
}

const struct cli_command cmd_bench = {
    .name = "bench",
    .args = "[--quick] [--gpu P] [--traces DIR] | --compare OTHER [options] [SCENARIO...]",
    .summary = "measure the simulator's speed: cycles per second, scaling, DRAM requests/s; "
               "or compare two binaries",
    .help = "Prints figures; it is not a test and passes no judgement. Times are CPU time of the\n"
            "simulating thread (medians over several epochs), so other load on the machine does\n"
            "not swing them the way it swings wall time.\n\n"
            "  --quick        shorter epochs and traces\n"
            "  --gpu P        the preset to measure (default hbm80)\n"
            "  --traces DIR   time DIR/{stream,random,mix,mix2k}.trace (as written by\n"
            "                 tools/gen_dram_traces.py -o DIR in corun's source tree), parsing\n"
            "                 included; without it corun generates streams of the same kinds\n"
            "                 in memory\n\n"
            "With --compare OTHER, this binary and the corun binary OTHER each run `run SCENARIO\n"
            "--epochs N --json` on every SCENARIO (default: the default scenario and\n"
            "studies/quad-mixed.cfg, a four-kernel mix), one untimed run each first (it fills\n"
            "the private-mode caches, kept apart per binary), then the timed runs interleaved,\n"
            "alternating which goes first. Prints the median CPU seconds (user + system) per\n"
            "simulated M core cycles of each (of all its threads: a run uses the machine's CPUs\n"
            "by default, and a second thread's waits add CPU time and noise; --args \"--threads\n"
            "1\" --other-args \"--threads 1\" compares one thread of each, when both builds have\n"
            "--threads), the speed-up (other / this: above 1 this binary is\n"
            "faster), the lowest and highest ratio of single rounds (both binaries back to back:\n"
            "how far the machine's noise moves it), and whether the two binaries' --json outputs\n"
            "are byte-identical. Each side's cost is per the cycles its own output says it\n"
            "simulated (the row names the other's when --args and --other-args make them\n"
            "differ); a binary whose run prints no such output is not a corun build, and is\n"
            "refused. An accelerator scenario runs to its end (no --epochs); its cycles are the\n"
            "shared run's, its CPU time includes the solo runs.\n"
            "A binary whose --version does not answer within 5 s (the environment variable\n"
            "CORUN_BENCH_PROBE_SECONDS changes it) is refused. A run of the other binary is\n"
            "given 20 times this binary's wall time on the same run plus 60 s\n"
            "(CORUN_BENCH_MARGIN_SECONDS), then killed and reported as a failure. Each run goes\n"
            "in a process group of its own, killed with all it started when corun gets SIGINT,\n"
            "SIGTERM or SIGHUP.\n\n"
            "  --compare OTHER        the other corun binary (e.g. the build before a change)\n"
            "  --runs N               timed runs of each binary per scenario (default 5)\n"
            "  --epochs N             epochs per run (default 2)\n"
            "  --args \"A B\"           extra arguments for this binary's runs, split on blanks\n"
            "                         (e.g. \"--set gpu.sms=40\"), checked as `run` checks them\n"
            "                         before anything is timed; not --out (every run would\n"
            "                         write the one run file)\n"
            "  --other-args \"A B\"     extra arguments for the other binary's runs (not --out)\n"
            "  --other-datadir DIR    the other binary's data directory (its CORUN_DATADIR), when\n"
            "                         its profiles differ from this one's\n"
            "  --wall                 time wall seconds instead of CPU seconds (to compare\n"
            "                         --threads counts: threads add CPU time, save wall time)\n"
            "  --cold                 no warm-up run, and empty private-mode caches for every\n"
            "                         run, so the references are simulated each time\n"
            "  --quick                3 runs of 1 epoch\n",
    .run = bench_run,
};
