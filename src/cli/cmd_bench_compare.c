/* cmd_bench_compare — `corun bench --compare OTHER`: this binary and another run the same
 * scenarios, interleaved, and the CPU time per simulated cycle of each is printed as a ratio,
 * with whether their outputs are identical. */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd_bench_compare.h"
#include "corun/accel_scenario.h"
#include "corun/bench.h"
#include "corun/cli.h"
#include "corun/datadir.h"
#include "corun/util.h"

enum { THIS, OTHER, SIDES };

struct side {
    const char *label;
    char *binary;
    const char *datadir; /* NULL: inherit CORUN_DATADIR */
    char *xdg;           /* its own caches */
    char **extra;        /* --args / --other-args, split on blanks */
    size_t nextra;
    int wall, cold; /* from the options */
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

/* One `run SCENARIO --epochs N --json` of side s (an accelerator scenario runs to its end,
 * without --epochs); its stdout goes to out. Returns the CPU seconds, or -1 after a message. */
static double run_once(const struct side *s, const char *scenario, unsigned epochs, const char *out,
                       const char *errfile)
{
    char ep[16];
    snprintf(ep, sizeof ep, "%u", epochs);
    char **argv = xmalloc((s->nextra + 8) * sizeof(*argv));
    size_t n = 0;
    argv[n++] = s->binary;
    argv[n++] = "run";
    argv[n++] = (char *)scenario;
    if (accel_scenario_probe(scenario) != 1) {
        argv[n++] = "--epochs";
        argv[n++] = ep;
    }
    argv[n++] = "--json";
    for (size_t i = 0; i < s->nextra; i++)
        argv[n++] = s->extra[i];
    argv[n] = NULL;
    double cpu = -1, wall = -1;
    int status;
    char err[512];
    if (s->cold) { /* a fresh cache: every private-mode reference is simulated */
        nftw(s->xdg, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        mkdir(s->xdg, 0700);
    }
    if (bench_spawn(argv, s->datadir, s->xdg, out, errfile, &cpu, &wall, &status, err,
                    sizeof err) != 0) {
        fprintf(stderr, "corun: bench: %s\n", err);
        cpu = -1;
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "corun: bench: %s binary %s failed on %s (%s %d); its last words:\n",
                s->label, s->binary, scenario, WIFEXITED(status) ? "exit" : "signal",
                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        print_tail(errfile);
        cpu = -1;
    } else if (s->wall) {
        cpu = wall;
    }
    free(argv);
    return cpu;
}

/* The first line `BINARY --version` prints, for the heading. */
static void version_of(const struct side *s, const char *tmp, char *buf, size_t len)
{
    char *out = xasprintf("%s/version", tmp), *errf = xasprintf("%s/version.err", tmp);
    char *argv[] = {s->binary, "--version", NULL};
    double cpu;
    int status;
    char err[256];
    snprintf(buf, len, "version unknown");
    if (bench_spawn(argv, s->datadir, s->xdg, out, errf, &cpu, NULL, &status, err, sizeof err) ==
        0) {
        FILE *f = fopen(out, "r");
        if (f && fgets(buf, (int)len, f))
            buf[strcspn(buf, "\n")] = '\0';
        if (f)
            fclose(f);
    }
    free(out);
    free(errf);
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
    for (int s = 0; s < SIDES; s++) {
        cpu[s] = xmalloc(o->runs * sizeof(*cpu[s]));
        first[s] = xasprintf("%s/%s.first.json", tmp, sides[s].label);
        out[s] = xasprintf("%s/%s.json", tmp, sides[s].label);
        errf[s] = xasprintf("%s/%s.err", tmp, sides[s].label);
        /* untimed: fills the private-mode caches, as a second run of the mix finds them */
        if (!o->cold && run_once(&sides[s], scenario, 1, out[s], errf[s]) < 0)
            rc = -1;
    }
    double cycles[SIDES] = {0, 0}; /* M core cycles of each side's first timed run */
    for (unsigned r = 0; rc == 0 && r < o->runs; r++) {
        for (int k = 0; k < SIDES && rc == 0; k++) {
            int s = r % 2 ? SIDES - 1 - k : k; /* alternate who goes first */
            cpu[s][r] = run_once(&sides[s], scenario, o->epochs, r ? out[s] : first[s], errf[s]);
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
        sides[s].wall = o->wall, sides[s].cold = o->cold;
    sides[THIS].extra = split_blanks(o->args, &sides[THIS].nextra);
    sides[OTHER].extra = split_blanks(o->other_args, &sides[OTHER].nextra);
    char version[SIDES][128];
    for (int s = 0; s < SIDES; s++) {
        sides[s].xdg = xasprintf("%s/%s", tmp, sides[s].label);
        if (mkdir(sides[s].xdg, 0700) != 0)
            perror("corun: bench: mkdir");
        version_of(&sides[s], tmp, version[s], sizeof version[s]);
    }
    int rc = CLI_OK;
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
    return rc;
}
