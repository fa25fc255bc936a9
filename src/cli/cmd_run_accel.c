/* cmd_run_accel — `corun run` on an accelerator scenario: the task engine's result as a
 * table or one JSON document. */
#include "cmd_run_accel.h"

#include "corun/accel_predict.h"
#include "corun/accel_run.h"
#include "corun/accel_runfile.h"
#include "corun/accel_scenario.h"
#include "corun/cli.h"
#include "corun/columns.h"
#include "corun/diag.h"
#include "corun/pcie.h"
#include "corun/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The bar appears once the run has lasted a second, so short runs print nothing. */
struct bar {
    struct timespec start;
    bool shown;
};

static void progress(void *ctx, double done)
{
    struct bar *b = ctx;
    if (!b->shown) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        double s =
            (double)(now.tv_sec - b->start.tv_sec) + (double)(now.tv_nsec - b->start.tv_nsec) / 1e9;
        if (s < 1.0)
            return;
        b->shown = true;
    }
    cli_progress("queries", done);
}

static bool stop_asked(void)
{
    return cli_stop_requested() != 0;
}

/* The LS queries r answered (a run stopped part way: not every one). */
static unsigned answered(const struct accel_record *r)
{
    unsigned n = 0;
    for (unsigned a = 0; a < r->napps; a++)
        n += r->app[a].role == ACCEL_LS ? r->app[a].queries : 0;
    return n;
}

/* out with -N before its .h5 (x.h5: x-2.h5), or after it when it has no .h5. */
static char *numbered_name(const char *out, unsigned n)
{
    size_t len = strlen(out);
    const char *slash = strrchr(out, '/'), *base = slash ? slash + 1 : out;
    if (strlen(base) > 3 && strcmp(out + len - 3, ".h5") == 0)
        return xasprintf("%.*s-%u.h5", (int)(len - 3), out, n);
    return xasprintf("%s-%u", out, n);
}

/* rec to out, checked free before the run. A file that took the name while the run went on (a
 * second run with the same --out) is not replaced, and the run is not thrown away either: it
 * goes to the first free OUT-N, N from 2, said. *written: the name used (NULL: out). 0, or
 * -1 with the message of out's failure. */
static int write_record(const char *out, const struct accel_record *rec, char **written, char *err,
                        size_t errlen)
{
    *written = NULL;
    struct stat st;
    if (accel_runfile_write(out, rec, err, errlen) == 0)
        return 0;
    if (lstat(out, &st) != 0)
        return -1; /* failed for another reason than the name */
    for (unsigned n = 2; n <= 99; n++) {
        char *other = numbered_name(out, n), why[512];
        if (lstat(other, &st) != 0) {
            if (accel_runfile_write(other, rec, why, sizeof why) == 0) {
                fprintf(stderr,
                        "corun: %s: appeared while the run went on, and a run file is never "
                        "overwritten; the run is recorded in %s instead\n",
                        out, other);
                *written = other;
                return 0;
            }
            if (lstat(other, &st) != 0) { /* not taken meanwhile: that failure is the reason */
                free(other);
                snprintf(err, errlen, "%s (it appeared while the run went on); %s", out, why);
                return -1;
            }
        }
        free(other);
    }
    return -1;
}

/* What a run stopped by a signal kept, after its table. */
static void say_stopped(const char *path, const struct accel_scenario *sc,
                        const struct accel_record *r, bool recorded)
{
    unsigned asked = 0;
    for (unsigned a = 0; a < sc->napps; a++)
        asked += sc->apps[a].role == ACCEL_LS ? sc->apps[a].queries : 0;
    fprintf(stderr, "corun: %s: stopped by %s at %.3f ms of simulated time", path, cli_stop_name(),
            r->sim_ms);
    if (asked)
        fprintf(stderr, " (%u of %u queries answered)", answered(r), asked);
    else
        fprintf(stderr, " (%llu tasks done)", (unsigned long long)r->tasks_done);
    fprintf(stderr, "; the run so far is above%s\n", recorded ? ", and recorded" : "");
}

static const char *role_name(unsigned role)
{
    return role == ACCEL_LS ? "ls" : "batch";
}

static bool predicted(const struct accel_record *r)
{
    return r->predictor && strcmp(r->predictor, "none") != 0;
}

/* The measured (which = 0) or predicted latencies of LS application a, in query order. */
static void print_latencies(const struct accel_record *r, unsigned a, unsigned n, int which)
{
    unsigned q = 0;
    for (size_t i = 0; i < r->nqueries && q < n; i++) {
        const struct accel_query_rec *x = &r->queries[i];
        if (x->app != a)
            continue;
        if (q++)
            printf(", ");
        cli_json_number(stdout, which ? x->predicted_ms : x->latency_ms);
    }
}

/* LS application a's queries that never completed (a copy starved behind exclusive ones). */
static unsigned never_completed(const struct accel_record *r, unsigned a)
{
    unsigned n = 0;
    for (size_t i = 0; i < r->nqueries; i++)
        n += r->queries[i].app == a && isinf(r->queries[i].latency_ms);
    return n;
}

/* v with the decimals asked, and a % sign when percent, into buf; "-" when there is none
 * (NaN): a solo p99 before the solo runs ended, a forecast's error before a query was
 * answered. */
static const char *number_or_dash(char *buf, size_t n, int decimals, bool percent, double v)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.*f%s", decimals, v, percent ? "%" : "");
    return buf;
}

/* A latency in ms (accel_ms_text), or "-" when there is none (NaN). */
static const char *ms_or_dash(char *buf, size_t n, double ms)
{
    return isnan(ms) ? strcpy(buf, "-") : accel_ms_text(buf, n, ms);
}

static void print_table(const struct accel_record *r)
{
    char solo[32], error[32], p50[32], p99[32];
    printf("%s (gpu %s, seed %llu): %s ms simulated (%.2f M core cycles); solo runs %.2f M "
           "cycles\n",
           r->scenario_name, r->gpu_preset, (unsigned long long)r->seed,
           accel_ms_text(p50, sizeof p50, r->sim_ms), r->cycles / 1e6, r->solo_cycles / 1e6);
    printf("%-12s %-5s %5s %8s %9s %9s %12s %7s  %s\n", "application", "role", "procs", "queries",
           "p50 ms", "p99 ms", "solo p99 ms", "target", "QoS (p99 <= target x solo p99)");
    for (unsigned a = 0; a < r->napps; a++) {
        const struct accel_app_rec *ar = &r->app[a];
        int w = util_pad_width(ar->name, 12);         /* by columns, for a name of wide glyphs */
        if (ar->role == ACCEL_LS && ar->queries == 0) /* nothing to judge: not "met" */
            printf("%-*s %-5s %5u %8u %9s %9s %12s %6.2fx  no query answered\n", w, ar->name,
                   role_name(ar->role), ar->instances, ar->queries, "-", "-",
                   ms_or_dash(solo, sizeof solo, ar->solo_p99_ms), ar->qos_target);
        else if (ar->role == ACCEL_LS)
            printf("%-*s %-5s %5u %8u %9s %9s %12s %6.2fx  %s (%.2fx solo)\n", w, ar->name,
                   role_name(ar->role), ar->instances, ar->queries,
                   accel_ms_text(p50, sizeof p50, ar->p50_ms),
                   accel_ms_text(p99, sizeof p99, ar->p99_ms),
                   accel_ms_text(solo, sizeof solo, ar->solo_p99_ms), ar->qos_target,
                   ar->qos_met ? "met" : "violated",
                   ar->solo_p99_ms > 0 ? ar->p99_ms / ar->solo_p99_ms : 0);
        else
            printf("%-*s %-5s %5u   passes %llu\n", w, ar->name, role_name(ar->role), ar->instances,
                   (unsigned long long)ar->passes);
    }
    for (unsigned a = 0; a < r->napps; a++) {
        unsigned n = r->app[a].role == ACCEL_LS ? never_completed(r, a) : 0;
        if (n)
            printf(
                "%s: %u of %u queries never completed: a copy of it waited %.0f ms of simulated "
                "time behind bandwidth-exclusive copies that left the link no gap (their latency "
                "is inf)\n",
                r->app[a].name, n, r->app[a].queries, PCIE_STARVED_NS / 1e6);
    }
    if (predicted(r)) {
        printf("predicted by %s from solo-run profiles (%.2f M core cycles to measure):\n",
               r->predictor, r->profile_cycles / 1e6);
        printf("%-12s %9s %9s %12s %9s  %s\n", "application", "p50 ms", "p99 ms", "solo ms",
               "p99 error", "QoS");
        for (unsigned a = 0; a < r->napps; a++) {
            const struct accel_app_rec *ar = &r->app[a];
            if (ar->role == ACCEL_LS)
                printf("%-*s %9s %9s %12s %9s  %s\n", util_pad_width(ar->name, 12), ar->name,
                       accel_ms_text(p50, sizeof p50, ar->pred_p50_ms),
                       accel_ms_text(p99, sizeof p99, ar->pred_p99_ms),
                       accel_ms_text(solo, sizeof solo, ar->pred_solo_ms),
                       number_or_dash(error, sizeof error, 1, true, 100 * ar->pred_error),
                       ar->pred_qos_met ? "met" : "violated");
        }
    }
    printf("GPU utilization %.1f %% of SM time busy; PCIe busy: host to device %.1f %%, device "
           "to host %.1f %%; %llu tasks done\n",
           100 * r->gpu_util, 100 * r->h2d_busy, 100 * r->d2h_busy,
           (unsigned long long)r->tasks_done);
}

static void print_json(const struct accel_record *r)
{
    printf("{\"scenario\": ");
    cli_json_string(stdout, r->scenario_name);
    printf(", \"mode\": \"accelerator\", \"complete\": %s, \"gpu\": ",
           r->complete ? "true" : "false");
    cli_json_string(stdout, r->gpu_preset);
    printf(", \"seed\": %llu, \"cycles\": %llu, \"simulated_ms\": ", (unsigned long long)r->seed,
           (unsigned long long)r->cycles);
    cli_json_number(stdout, r->sim_ms);
    printf(", \"solo_cycles\": %llu, \"gpu_utilization\": ", (unsigned long long)r->solo_cycles);
    cli_json_number(stdout, r->gpu_util);
    printf(", \"pcie_busy_h2d\": ");
    cli_json_number(stdout, r->h2d_busy);
    printf(", \"pcie_busy_d2h\": ");
    cli_json_number(stdout, r->d2h_busy);
    printf(", \"tasks_done\": %llu, \"applications\": [", (unsigned long long)r->tasks_done);
    for (unsigned a = 0; a < r->napps; a++) {
        const struct accel_app_rec *ar = &r->app[a];
        printf("%s{\"name\": ", a ? ", " : "");
        cli_json_string(stdout, ar->name);
        printf(", \"role\": \"%s\", \"processes\": %u", role_name(ar->role), ar->instances);
        if (ar->role == ACCEL_LS) {
            const double v[] = {ar->p50_ms,      ar->p99_ms,      ar->mean_ms,
                                ar->solo_p50_ms, ar->solo_p99_ms, ar->qos_target};
            const char *k[] = {"p50_ms",      "p99_ms",      "mean_ms",
                               "solo_p50_ms", "solo_p99_ms", "qos_target"};
            printf(", \"queries\": %u", ar->queries);
            for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
                printf(", \"%s\": ", k[i]);
                cli_json_number(stdout, v[i]);
            }
            printf(", \"never_completed\": %u", never_completed(r, a));
            printf(", \"qos_met\": %s, \"latency_ms\": [", ar->queries == 0 ? "null"
                                                           : ar->qos_met    ? "true"
                                                                            : "false");
            print_latencies(r, a, ar->queries, 0);
            printf("]");
            if (predicted(r)) {
                printf(", \"predicted\": {\"predictor\": \"%s\"", r->predictor);
                const double pv[] = {ar->pred_p50_ms, ar->pred_p99_ms, ar->pred_solo_ms,
                                     ar->pred_error};
                const char *pk[] = {"p50_ms", "p99_ms", "solo_ms", "p99_error"};
                for (size_t i = 0; i < sizeof pv / sizeof pv[0]; i++) {
                    printf(", \"%s\": ", pk[i]);
                    cli_json_number(stdout, pv[i]);
                }
                printf(", \"qos_met\": %s, \"latency_ms\": [", ar->pred_qos_met ? "true" : "false");
                print_latencies(r, a, ar->queries, 1);
                printf("]}");
            }
        } else {
            printf(", \"passes\": %llu", (unsigned long long)ar->passes);
        }
        printf("}");
    }
    printf("]}\n");
}

void cmd_accel_print(const struct accel_record *r, bool json)
{
    if (!r->complete && !json)
        printf("(saved part way through the run, at %.3f ms: the figures cover that much)\n",
               r->sim_ms);
    if (json)
        print_json(r);
    else
        print_table(r);
}

int cmd_run_accelerator(const char *path, const char *datadir, const struct run_accel_options *o)
{
    struct diag diags;
    diag_init(&diags);
    struct accel_scenario sc;
    int rc = accel_scenario_load(&sc, path, datadir, &diags);
    diag_print(&diags, stderr);
    diag_done(&diags);
    if (rc != 0) {
        accel_scenario_done(&sc);
        return CLI_BAD_INPUT;
    }
    if (o->has_seed)
        sc.seed = o->seed;
    cli_warn_long_span(path, &sc);
    /* The file is written at the end: a name it cannot take is said before simulating. */
    if (o->out && (cli_check_new_runfile(o->out, "simulating") != 0 ||
                   cli_catalog_writable(o->catalog, "adding the run") != 0)) {
        accel_scenario_done(&sc);
        return CLI_BAD_INPUT;
    }
    char why[256];
    if (o->predictor != ACCEL_PREDICT_NONE && accel_common_start(&sc, why, sizeof why)) {
        fprintf(stderr, "corun: %s: --predictor %s: %s\n", path, accel_predictor_name(o->predictor),
                why); /* refused before simulating */
        accel_scenario_done(&sc);
        return CLI_BAD_INPUT;
    }
    if (o->dry) {
        accel_scenario_done(&sc);
        return CLI_OK;
    }
    struct bar b = {.shown = false};
    clock_gettime(CLOCK_MONOTONIC, &b.start);
    struct accel_run_options ro = {.predictor = o->predictor,
                                   .record_tasks = o->out != NULL,
                                   .stop = stop_asked,
                                   .progress = progress,
                                   .ctx = &b,
                                   .threads = o->threads};
    struct accel_result r;
    char err[768];
    cli_stop_install(); /* a signal ends the run at its next turn, keeping what it has */
    rc = accel_run(&sc, &ro, &r, err, sizeof err);
    bool stopped = rc > 0;
    if (b.shown && !stopped)
        cli_progress("queries", 1);
    else if (b.shown && isatty(STDERR_FILENO))
        fputc('\n', stderr); /* after the bar */
    /* The run can complete and its forecast fail: the measured run is kept, not lost. */
    bool forecast_failed = rc < 0 && r.napps > 0;
    if (stopped && r.napps == 0) {
        fprintf(stderr,
                "corun: %s: stopped by %s during the solo runs (each LS application alone, the "
                "reference of its QoS target), before the applications ran together; nothing "
                "to keep\n",
                path, cli_stop_name());
        rc = CLI_FAILED;
    } else if (rc < 0 && !forecast_failed) {
        fprintf(stderr, "corun: %s: %s\n", path, err);
        rc = CLI_FAILED;
    } else {
        struct accel_record rec;
        accel_result_to_record(&sc, &r, !stopped, &rec);
        cmd_accel_print(&rec, o->json);
        rc = stopped ? CLI_FAILED : CLI_OK;
        if (forecast_failed && cli_stop_requested()) {
            fprintf(stderr,
                    "corun: %s: stopped by %s during its %s forecast; the run is measured "
                    "(above), without a forecast\n",
                    path, cli_stop_name(), accel_predictor_name(o->predictor));
            rc = CLI_FAILED;
        } else if (forecast_failed) {
            fprintf(stderr,
                    "corun: %s: the run is measured (above) but its %s forecast failed: %s\n", path,
                    accel_predictor_name(o->predictor), err);
            rc = CLI_FAILED;
        }
        int64_t id = 0;
        bool recorded = false;
        char *other = NULL; /* the name the run went to when o->out was taken meanwhile */
        const char *out = o->out;
        if (out && write_record(out, &rec, &other, err, sizeof err) != 0) {
            fprintf(stderr, "corun: %s; nothing recorded (the run's summary is above)\n", err);
            rc = CLI_FAILED;
        } else if (out && (out = other ? other : out) &&
                   accel_record_catalog(&rec, out, o->catalog, &id, err, sizeof err) != 0) {
            cli_catalog_failed(out, o->catalog, err);
            rc = CLI_FAILED;
        } else if (out) {
            fprintf(stderr, "corun: recorded %zu tasks and %zu queries", rec.ntasks, rec.nqueries);
            if (stopped)
                fprintf(stderr, " (%u answered)", answered(&rec));
            fprintf(stderr, " in %s (catalog run a%lld)\n", out, (long long)id);
            recorded = true;
        }
        if (other)
            rc = CLI_FAILED; /* kept, but not where it was asked for */
        free(other);
        if (stopped)
            say_stopped(path, &sc, &rec, recorded);
        accel_record_done(&rec);
    }
    accel_result_done(&r);
    accel_scenario_done(&sc);
    return rc;
}
