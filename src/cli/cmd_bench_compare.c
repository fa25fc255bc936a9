/* cmd_bench_compare — `corun bench --compare OTHER`: this binary and another run the same
 * scenarios, interleaved, and the CPU time per simulated cycle of each is printed as a ratio,
 * with whether their outputs are identical. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd_bench_compare.h"
#include "cmd_run.h"
#include "corun/accel_scenario.h"
#include "corun/bench.h"
#include "corun/cli.h"
#include "corun/datadir.h"
#include "corun/util.h"

enum { THIS, OTHER, SIDES };

/* The environment variables that move the time limits (the tests, which would otherwise wait
 * a minute for a binary that never ends). */
#define PROBE_ENV  "CORUN_BENCH_PROBE_SECONDS"
#define MARGIN_ENV "CORUN_BENCH_MARGIN_SECONDS"

struct side {
    const char *label;
    char *binary;
    const char *datadir; /* NULL: inherit CORUN_DATADIR */
    char *xdg;           /* its own caches */
    char **extra;        /* --args / --other-args, split on blanks */
    size_t nextra;
    int wall, cold; /* from the options */
    double margin;  /* the seconds a run is given beyond 20 times this binary's */
};

static char **split_blanks(const char *text, size_t *n)
{
    char *copy = xstrdup(text ? text : ""), *save = NULL;
    char **v = NULL;
    *n = 0;
    for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        v = xrealloc(v, (*n + 1) * sizeof(*v));
        v[(*n)++] = xstrdup(w);
    }
    free(copy);
    return v;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* The tail of a child's stderr, so a failure says why. */
static void print_tail(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[512], last[4][512] = {{0}};
    unsigned n = 0;
    while (fgets(line, sizeof line, f))
        snprintf(last[n++ % 4], sizeof last[0], "%s", line);
    fclose(f);
    for (unsigned i = n > 4 ? n - 4 : 0; i < n; i++)
        fprintf(stderr, "    %s", last[i % 4]);
}

/* SIGINT, SIGTERM or SIGHUP that stopped a child's run (its process group was killed), for
 * bench_compare to end as the signal would once it cleaned up; 0 when none came. */
static int stop_signal;

static const char *signal_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP";
}

/* Seconds from the environment variable name (a whole number from 1 to 86400), else def;
 * -1 after a message when it holds something else. */
static double env_seconds(const char *name, double def)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return def;
    char *end;
    errno = 0;
    unsigned long n = strtoul(v, &end, 10);
    if (*end || errno || n < 1 || n > 86400 || v[0] == '-') {
        fprintf(stderr, "corun: bench: %s=%s: expected a whole number of seconds from 1 to 86400\n",
                name, v);
        return -1;
    }
    return (double)n;
}

/* The arguments of `ARGV0 run SCENARIO --epochs N --json EXTRA...` (no --epochs for an
 * accelerator scenario, which runs to its end), NULL-terminated; the caller frees the array. */
static char **run_argv(char *argv0, const char *scenario, char *epochs, char **extra, size_t nextra)
{
    char **argv = xmalloc((nextra + 8) * sizeof(*argv));
    size_t n = 0;
    if (argv0)
        argv[n++] = argv0;
    argv[n++] = "run";
    argv[n++] = (char *)scenario;
    if (accel_scenario_probe(scenario) != 1) {
        argv[n++] = "--epochs";
        argv[n++] = epochs;
    }
    argv[n++] = "--json";
    for (size_t i = 0; i < nextra; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    return argv;
}

/* Whether word is `run`'s --out as getopt takes it: -o, -oFILE, --out, --out=FILE or an
 * abbreviation (--o, --ou; `run` has no other long option in o). */
static bool is_out_option(const char *w)
{
    if (w[0] == '-' && w[1] == 'o')
        return true;
    if (strncmp(w, "--", 2) != 0)
        return false;
    size_t len = strcspn(w + 2, "=");
    return len >= 1 && len <= 3 && strncmp(w + 2, "out", len) == 0;
}

int bench_compare_check_no_out(const struct bench_compare_options *o)
{
    int rc = 0;
    for (int s = 0; s < SIDES; s++) {
        const char *args = s == THIS ? o->args : o->other_args;
        size_t n;
        char **words = split_blanks(args, &n);
        for (size_t i = 0; i < n; i++) {
            if (rc == 0 && is_out_option(words[i])) {
                fprintf(stderr,
                        "corun: bench: %s \"%s\": %s writes a run file, and bench runs each "
                        "binary several times on the same arguments (the second run finds the "
                        "first's file and fails); expected them without it\n",
                        s == THIS ? "--args" : "--other-args", args, words[i]);
                rc = -1;
            }
            free(words[i]);
        }
        free(words);
    }
    return rc;
}

int bench_compare_check_args(const struct bench_compare_options *o, const char *scenario)
{
    size_t nextra;
    char **extra = split_blanks(o->args, &nextra);
    char ep[16];
    snprintf(ep, sizeof ep, "%u", o->epochs);
    char **argv = run_argv(NULL, scenario, ep, extra, nextra);
    int argc = 0;
    while (argv[argc])
        argc++;
    int rc = cmd_run_check(argc, argv);
    if (rc != CLI_OK)
        fprintf(stderr,
                "corun: bench: --args \"%s\": this binary's `run %s` refuses them (above); "
                "expected options of `corun run`\n",
                o->args ? o->args : "", scenario);
    for (size_t i = 0; i < nextra; i++)
        free(extra[i]);
    free(extra);
    free(argv);
    return rc == CLI_OK ? 0 : -1;
}

/* One `run SCENARIO --epochs N --json` of side s (an accelerator scenario runs to its end,
 * without --epochs); its stdout goes to out. this_wall: this binary's wall seconds on the same
 * run, or -1 for no limit: the run is given 20 times them plus s->margin, generous enough
 * that a slower build that works is timed, while one that never ends is not waited for.
 * Returns the CPU seconds (the wall seconds with --wall) and *wall the wall seconds, or -1
 * after a message. */
static double run_once(const struct side *s, const char *scenario, unsigned epochs, const char *out,
                       const char *errfile, double this_wall, double *wall)
{
    double limit_s = this_wall < 0 ? 0 : 20 * this_wall + s->margin;
    char ep[16];
    snprintf(ep, sizeof ep, "%u", epochs);
    char **argv = run_argv(s->binary, scenario, ep, s->extra, s->nextra);
    double cpu = -1;
    char err[512];
    if (s->cold) { /* a fresh cache: every private-mode reference is simulated */
        nftw(s->xdg, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        mkdir(s->xdg, 0700);
    }
    struct bench_child c = {.argv = argv,
                            .datadir = s->datadir,
                            .xdg = s->xdg,
                            .out_path = out,
                            .err_path = errfile,
                            .limit_s = limit_s};
    int rc = bench_spawn(&c, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "corun: bench: %s\n", err);
    } else if (rc == 2) {
        stop_signal = c.stop_signal;
        fprintf(stderr, "corun: bench: stopped by %s; the run of %s on %s was killed\n",
                signal_name(c.stop_signal), s->binary, scenario);
    } else if (rc == 1) {
        fprintf(stderr,
                "corun: bench: %s binary %s did not finish on %s within %.1f s (20 times this "
                "binary's %.2f s on the same run, plus %.0f s: %s sets them), and was killed; its "
                "last words:\n",
                s->label, s->binary, scenario, limit_s, this_wall, s->margin, MARGIN_ENV);
        print_tail(errfile);
    } else if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0) {
        fprintf(stderr, "corun: bench: %s binary %s failed on %s (%s %d); its last words:\n",
                s->label, s->binary, scenario, WIFEXITED(c.status) ? "exit" : "signal",
                WIFEXITED(c.status) ? WEXITSTATUS(c.status) : WTERMSIG(c.status));
        print_tail(errfile);
    } else {
        cpu = s->wall ? c.wall_s : c.cpu_s;
        *wall = c.wall_s;
    }
    free(argv);
    return cpu;
}

/* The first line `BINARY --version` prints, for the heading, given limit_s seconds. Returns 0,
 * or -1 after a message when it did not answer in time or a signal stopped it. */
static int version_of(const struct side *s, const char *tmp, double limit_s, char *buf, size_t len)
{
    char *out = xasprintf("%s/version", tmp), *errf = xasprintf("%s/version.err", tmp);
    char *argv[] = {s->binary, "--version", NULL};
    char err[256];
    snprintf(buf, len, "version unknown");
    struct bench_child c = {.argv = argv,
                            .datadir = s->datadir,
                            .xdg = s->xdg,
                            .out_path = out,
                            .err_path = errf,
                            .limit_s = limit_s};
    int rc = bench_spawn(&c, err, sizeof err);
    if (rc == 0) {
        FILE *f = fopen(out, "r");
        if (f && fgets(buf, (int)len, f))
            buf[strcspn(buf, "\n")] = '\0';
        if (f)
            fclose(f);
    } else if (rc == 1) {
        fprintf(stderr,
                "corun: bench: --compare %s: `%s --version` did not answer within %.0f s (%s "
                "sets the limit), and was killed; expected a corun build\n",
                s->binary, s->binary, limit_s, PROBE_ENV);
    } else if (rc == 2) {
        stop_signal = c.stop_signal;
        fprintf(stderr, "corun: bench: stopped by %s; `%s --version` was killed\n",
                signal_name(c.stop_signal), s->binary);
    }
    free(out);
    free(errf);
    return rc == 1 || rc == 2 ? -1 : 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The M core cycles side s's `run --json` document at path says it simulated; 0 after a
 * message when it holds none (the binary exited 0 but is not corun, or printed no document). */
static double simulated_mcycles(const struct side *s, const char *scenario, const char *path,
                                const char *version)
{
    double m = bench_json_cycles(path) / 1e6;
    if (m <= 0)
        fprintf(stderr,
                "corun: bench: %s binary %s printed no `run --json` document with simulated "
                "cycles on %s (its --version: '%s'); expected a corun build\n",
                s->label, s->binary, scenario, version);
    return m;
}

/* Times one scenario; prints its row. Returns 0, or -1 when a run failed. */
static int compare_scenario(struct side *sides, const char *scenario, const char *tmp,
                            const struct bench_compare_options *o, char version[][128])
{
    double *cpu[SIDES];
    char *first[SIDES], *out[SIDES], *errf[SIDES];
    int rc = 0, deterministic[SIDES] = {1, 1};
    /* A run's wall seconds, and this binary's, which set the other's limit. */
    double wall = 0, this_wall = -1;
    for (int s = 0; s < SIDES; s++) {
        cpu[s] = xmalloc(o->runs * sizeof(*cpu[s]));
        first[s] = xasprintf("%s/%s.first.json", tmp, sides[s].label);
        out[s] = xasprintf("%s/%s.json", tmp, sides[s].label);
        errf[s] = xasprintf("%s/%s.err", tmp, sides[s].label);
        /* untimed: fills the private-mode caches, as a second run of the mix finds them */
        if (!o->cold && rc == 0 &&
            run_once(&sides[s], scenario, 1, out[s], errf[s], s == THIS ? -1 : this_wall, &wall) <
                0)
            rc = -1;
        if (s == THIS)
            this_wall = wall;
    }
    double cycles[SIDES] = {0, 0}; /* M core cycles of each side's first timed run */
    for (unsigned r = 0; rc == 0 && r < o->runs; r++) {
        for (int k = 0; k < SIDES && rc == 0; k++) {
            int s = r % 2 ? SIDES - 1 - k : k; /* alternate who goes first */
            /* This binary goes first in the first round: its time there sets the other's
             * limit in every round. */
            cpu[s][r] = run_once(&sides[s], scenario, o->epochs, r ? out[s] : first[s], errf[s],
                                 s == THIS ? -1 : this_wall, &wall);
            if (r == 0 && s == THIS)
                this_wall = wall;
            long at;
            char err[512];
            if (cpu[s][r] < 0)
                rc = -1;
            else if (r == 0 && (cycles[s] = simulated_mcycles(&sides[s], scenario, first[s],
                                                              version[s])) <= 0)
                rc = -1;
            else if (r && bench_files_equal(first[s], out[s], &at, err, sizeof err) != 1)
                deterministic[s] = 0;
        }
        cli_progress(base_name(scenario), (double)(r + 1) / o->runs);
    }
    if (rc == 0) {
        long at = -1;
        char err[512];
        int same = bench_files_equal(first[THIS], first[OTHER], &at, err, sizeof err);
        /* Each round ran both binaries back to back: its ratio shows how far the machine's
         * noise moves the speed-up (the medians below reorder cpu[]). */
        double lo = 0, hi = 0;
        for (unsigned r = 0; r < o->runs; r++) {
            double q = cpu[OTHER][r] / cycles[OTHER] / (cpu[THIS][r] / cycles[THIS]);
            lo = r == 0 || q < lo ? q : lo;
            hi = r == 0 || q > hi ? q : hi;
        }
        /* Each side per the cycles it simulated (--args and --other-args may differ). */
        double mine = bench_median(cpu[THIS], o->runs) / cycles[THIS];
        double theirs = bench_median(cpu[OTHER], o->runs) / cycles[OTHER];
        char verdict[64];
        if (same == 1)
            snprintf(verdict, sizeof verdict, "identical");
        else
            snprintf(verdict, sizeof verdict, "DIFFER (byte %ld)", at);
        if (cycles[OTHER] != cycles[THIS])
            snprintf(verdict + strlen(verdict), sizeof verdict - strlen(verdict),
                     ", other simulated %.2f M", cycles[OTHER]);
        printf("%-28s %8.2f M %11.3f %12.3f %8.2fx %5.2f-%-5.2f  %s%s%s\n", base_name(scenario),
               cycles[THIS], mine, theirs, theirs / mine, lo, hi, verdict,
               deterministic[THIS] ? "" : ", this varies",
               deterministic[OTHER] ? "" : ", other varies");
    }
    for (int s = 0; s < SIDES; s++) {
        free(cpu[s]);
        free(first[s]);
        free(out[s]);
        free(errf[s]);
    }
    return rc;
}

int bench_compare(const struct bench_compare_options *o, char **scenarios, size_t nscenarios)
{
    double probe = env_seconds(PROBE_ENV, 5), margin = env_seconds(MARGIN_ENV, 60);
    if (probe < 0 || margin < 0)
        return CLI_BAD_INPUT;
    char tmpl[] = "/tmp/corun-bench-XXXXXX";
    char *tmp = mkdtemp(tmpl);
    if (!tmp) {
        perror("corun: bench: cannot make a temporary directory");
        return CLI_FAILED;
    }
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len < 0) {
        perror("corun: bench: cannot find this binary (/proc/self/exe)");
        return CLI_FAILED;
    }
    self[len] = '\0';
    struct side sides[SIDES] = {
        {.label = "this", .binary = xstrdup(self), .datadir = o->this_datadir},
        {.label = "other", .binary = xstrdup(o->other), .datadir = o->other_datadir},
    };
    for (int s = 0; s < SIDES; s++)
        sides[s].wall = o->wall, sides[s].cold = o->cold, sides[s].margin = margin;
    sides[THIS].extra = split_blanks(o->args, &sides[THIS].nextra);
    sides[OTHER].extra = split_blanks(o->other_args, &sides[OTHER].nextra);
    char version[SIDES][128];
    for (int s = 0; s < SIDES; s++) {
        sides[s].xdg = xasprintf("%s/%s", tmp, sides[s].label);
        if (mkdir(sides[s].xdg, 0700) != 0)
            perror("corun: bench: mkdir");
    }
    int rc = CLI_OK;
    for (int s = 0; s < SIDES && rc == CLI_OK; s++)
        if (version_of(&sides[s], tmp, probe, version[s], sizeof version[s]) != 0)
            rc = CLI_BAD_INPUT;
    if (rc != CLI_OK)
        goto done;
    /* Every corun build says "corun VERSION (simulator ID)": anything else is refused before
     * the heading, not after a first timed run. */
    if (strncmp(version[OTHER], "corun ", 6) != 0) {
        fprintf(stderr,
                "corun: bench: --compare %s: not a corun build (its --version: '%s'); expected "
                "'corun VERSION (simulator ID)'\n",
                o->other, version[OTHER]);
        rc = CLI_BAD_INPUT;
        goto done;
    }
    printf("%s seconds per simulated M core cycles, `run SCENARIO --epochs %u --json`, median of "
           "%u run%s each, interleaved (accelerator scenarios: to their end)%s\n",
           o->wall ? "Wall" : "CPU", o->epochs, o->runs, o->runs == 1 ? "" : "s",
           o->cold ? ", each with empty private-mode caches" : "");
    for (int s = 0; s < SIDES; s++)
        printf("  %-5s %s (%s)%s%s\n", sides[s].label, sides[s].binary, version[s],
               sides[s].nextra ? " with " : "",
               sides[s].nextra ? (s ? o->other_args : o->args) : "");
    printf("%-28s %10s %11s %12s %9s %11s  %s\n", "scenario", "simulated", "this s/Mcyc",
           "other s/Mcyc", "speed-up", "per round", "outputs");
    for (size_t i = 0; i < nscenarios && rc == CLI_OK; i++)
        if (compare_scenario(sides, scenarios[i], tmp, o, version) != 0)
            rc = CLI_FAILED;
    if (rc == CLI_OK)
        printf("speed-up = other's %s time / this one's (> 1: this one is faster), of the "
               "medians; per round: the lowest and highest of the rounds' own ratios (each round "
               "runs both back to back): when it holds 1, the speed-up is within the machine's "
               "noise; outputs: the --json documents of the two sides' first timed "
               "runs\n",
               o->wall ? "wall" : "CPU");
done:
    nftw(tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    for (int s = 0; s < SIDES; s++) {
        free(sides[s].binary);
        free(sides[s].xdg);
        for (size_t i = 0; i < sides[s].nextra; i++)
            free(sides[s].extra[i]);
        free(sides[s].extra);
    }
    if (stop_signal) { /* the runs it stopped are gone, and so is the temporary directory */
        fflush(stdout);
        signal(stop_signal, SIG_DFL);
        raise(stop_signal);
    }
    return rc;
}
