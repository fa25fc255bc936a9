/* cmd_runs — `corun runs list | show ID | query SQL | add RUN.h5`: the catalog of recorded
 * runs, spatial and accelerator. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "corun/accel_run.h"
#include "corun/accel_runfile.h"
#include "corun/catalog.h"
#include "corun/cli.h"
#include "corun/columns.h"
#include "corun/datadir.h"
#include "corun/runfile.h"
#include "corun/session.h"
#include "corun/util.h"

/* A metric with its decimals, or "-" when the run has none (no epoch that measured it). */
static const char *metric(double v, int decimals, char *buf, size_t n)
{
    if (isnan(v))
        return "-";
    snprintf(buf, n, "%.*f", decimals, v);
    return buf;
}

/* What became of a row's run file, which the catalog cannot know: NULL when it is still
 * there (or the run was not saved), else "missing" (moved or removed) or "not a run file" (a
 * file of another kind there now), with the reason in why. deep (show) reads the file whole, as
 * replay would, and so also finds one damaged; else (list) it is a glance at its first bytes. */
static const char *file_status(const char *path, bool accel, bool deep, char *why, size_t n)
{
    struct stat st;
    why[0] = '\0';
    if (!path)
        return NULL;
    if (stat(path, &st) != 0 && (errno == ENOENT || errno == ENOTDIR)) {
        snprintf(why, n, "no such file: moved or removed since the run was catalogued");
        return "missing";
    }
    char err[768];
    int rc = runfile_glance(path, err, sizeof err);
    if (rc == 0 && deep && accel) {
        struct accel_record rec;
        rc = accel_runfile_read(path, &rec, err, sizeof err);
        accel_record_done(&rec);
    } else if (rc == 0 && deep) {
        struct runfile *rf = runfile_open(path, err, sizeof err);
        rc = rf ? 0 : -1;
        if (rf)
            runfile_close(rf, err, sizeof err);
    }
    if (rc == 0)
        return NULL;
    /* The reader's message names the file, which the row has shown already. */
    size_t len = strlen(path);
    const char *text =
        strncmp(err, path, len) == 0 && strncmp(err + len, ": ", 2) == 0 ? err + len + 2 : err;
    snprintf(why, n, "%s", text);
    return "not a run file";
}

/* The run file's path as list and show give it: marked when it is gone or no run file now,
 * and in show (deep) why, on the next line. */
static void print_run_file(const char *path, bool accel, bool deep)
{
    char why[768];
    const char *status = file_status(path, accel, deep, why, sizeof why);
    printf("%s", path ? path : "-");
    if (status)
        printf(" (%s)", status);
    printf("\n");
    if (status && deep)
        printf("             %s\n", why);
}

static int print_run_row(const struct catalog_run *r, void *ctx)
{
    if (++*(size_t *)ctx == 1)
        printf("%5s  %-20s  %-8s  %-24s  %6s  %8s  %9s  %s\n", "id", "created (UTC)", "gpu", "mix",
               "epochs", "mean STP", "mean fair", "run file");
    char stp[32], fair[32];
    /* As wide as their headers: "epochs" and "mean fair" stood right of their numbers. */
    printf("%5lld  %-20s  %-*s  %-*s  %6u  %8s  %9s  ", (long long)r->id,
           r->created_utc ? r->created_utc : "", util_pad_width(r->gpu, 8), r->gpu,
           util_pad_width(r->mix, 24), r->mix, r->epochs,
           metric(r->metrics.mean_stp, 3, stp, sizeof stp),
           metric(r->metrics.mean_fairness, 3, fair, sizeof fair));
    print_run_file(r->run_path, false, false);
    return 0;
}

/* The applications of r joined by '+', as a spatial run's mix is. */
static void accel_mix(const struct catalog_accel_run *r, char *buf, size_t n)
{
    buf[0] = '\0';
    for (size_t i = 0; i < r->napps; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, n - used, "%s%s", i ? "+" : "", r->apps[i].name);
    }
}

static int print_accel_row(const struct catalog_accel_run *r, void *ctx)
{
    size_t *rows = ctx; /* spatial, accelerator, accelerator runs saved part way */
    if (++rows[1] == 1)
        printf("%saccelerator runs:\n%5s  %-20s  %-8s  %-24s  %10s  %7s  %7s  %s\n",
               rows[0] ? "\n" : "", "id", "created (UTC)", "gpu", "applications", "sim ms",
               "QoS met", "SM busy", "run file");
    char mix[512], id[24], qos[24], ms[40], sim[32];
    accel_mix(r, mix, sizeof mix);
    /* A run saved part way is marked: its figures are of the part (the list's note says). */
    snprintf(ms, sizeof ms, "%s%s", accel_ms_text(sim, sizeof sim, r->sim_ms),
             r->complete ? "" : "*");
    rows[2] += !r->complete;
    unsigned ls = 0, met = 0;
    for (size_t i = 0; i < r->napps; i++)
        if (r->apps[i].ls) {
            ls++;
            met += r->apps[i].qos_met;
        }
    snprintf(id, sizeof id, "a%lld", (long long)r->id);
    snprintf(qos, sizeof qos, "%u/%u", met, ls);
    printf("%5s  %-20s  %-*s  %-*s  %10s  %7s  %6.1f%%  ", id, r->created_utc ? r->created_utc : "",
           util_pad_width(r->gpu, 8), r->gpu, util_pad_width(mix, 24), mix, ms, qos,
           100 * r->gpu_util);
    print_run_file(r->run_path, true, false);
    return 0;
}

static void show_accel(const struct catalog_accel_run *r)
{
    char sim[32];
    printf("accelerator run a%lld\n  file       ", (long long)r->id);
    print_run_file(r->run_path, true, true);
    printf("  scenario   %s (%s)\n  gpu        %s\n"
           "  predictor  %s\n  seed       %llu\n  simulated  %s ms (%s), %llu tasks done, SMs "
           "busy %.1f %% of the time\n  created    %s by corun %s\n",
           r->scenario_name, r->scenario_path ? r->scenario_path : "-", r->gpu,
           r->predictor ? r->predictor : "none", (unsigned long long)r->seed,
           accel_ms_text(sim, sizeof sim, r->sim_ms),
           r->complete ? "the whole run" : "saved part way", (unsigned long long)r->tasks_done,
           100 * r->gpu_util, r->created_utc, r->corun_version);
    for (size_t i = 0; i < r->napps; i++) {
        const struct catalog_accel_app *a = &r->apps[i];
        printf("  %-*s %s, %u process%s: ", util_pad_width(a->name, 10), a->name,
               a->ls ? "LS" : "batch", a->instances, a->instances == 1 ? "" : "es");
        if (!a->ls) {
            printf("%llu passes\n", (unsigned long long)a->passes);
            continue;
        }
        char p99[32], solo[32];
        accel_ms_text(solo, sizeof solo, a->solo_p99_ms);
        if (isfinite(a->p99_ms))
            printf("p99 %s ms, %.2fx its %s ms alone against %.2fx: %s",
                   accel_ms_text(p99, sizeof p99, a->p99_ms), a->p99_ms / a->solo_p99_ms, solo,
                   a->qos_target, a->qos_met ? "met" : "violated");
        else /* stored as NULL: a query that never completed (inf), or none at all */
            printf("no p99 (a query did not complete, or none was answered), %s ms alone "
                   "against %.2fx: not met",
                   solo, a->qos_target);
        if (isfinite(a->pred_p99_ms))
            printf("; predicted p99 %s ms", accel_ms_text(p99, sizeof p99, a->pred_p99_ms));
        printf("\n");
    }
}

/* One cell: a tab, a line end or a backslash in it written \t, \n, \r or \\ (as PostgreSQL's
 * text COPY writes them), so that a row stays one line of ncols fields whatever a name
 * holds. */
static void print_cell(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '\t': fputs("\\t", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\\': fputs("\\\\", out); break;
        default: fputc(*s, out);
        }
    }
}

/* The header line waits for the first row, or for the query's end: a query that fails (a
 * timeout) prints its message alone, not a header over nothing. */
struct query_out {
    char *header; /* the line, kept (heap) */
    size_t len;
    bool header_done;
};

static void print_line(FILE *out, size_t ncols, const char *const *cells)
{
    for (size_t i = 0; i < ncols; i++) {
        if (i)
            fputc('\t', out);
        if (cells[i])
            print_cell(out, cells[i]);
        else /* SQL NULL as COPY writes it: no value's text reads \N, its backslash doubled */
            fputs("\\N", out);
    }
    fputc('\n', out);
}

/* Tab-separated rows with a header line, as sqlite3 -header -separator prints them but for
 * NULL, written \N (print_line). */
static int print_query_row(void *ctx, size_t ncols, const char *const *names,
                           const char *const *values)
{
    struct query_out *q = ctx;
    if (!values) {
        FILE *mem = open_memstream(&q->header, &q->len);
        if (mem) {
            print_line(mem, ncols, names);
            fclose(mem);
        }
        return 0;
    }
    if (!q->header_done && q->header)
        fputs(q->header, stdout);
    q->header_done = true;
    print_line(stdout, ncols, values);
    return 0;
}

/* The row of the catalog whose run file is the file at path: looked for by runs add. */
struct file_row {
    const char *path; /* absolute */
    int64_t id;       /* 0: none found */
    bool accel;
};

static int find_run_row(const struct catalog_run *r, void *ctx)
{
    struct file_row *f = ctx;
    if (r->run_path && cli_same_file(r->run_path, f->path))
        f->id = r->id;
    return f->id != 0;
}

static int find_accel_row(const struct catalog_accel_run *r, void *ctx)
{
    struct file_row *f = ctx;
    if (r->run_path && cli_same_file(r->run_path, f->path)) {
        f->id = r->id;
        f->accel = true;
    }
    return f->id != 0;
}

/* Looks in cat for a row of the file at abs (the same path, or the same file under another
 * name) into *f. 0, or -1 with a message in err. */
static int find_file_row(struct catalog *cat, const char *abs, struct file_row *f, char *err,
                         size_t errlen)
{
    *f = (struct file_row){.path = abs};
    int rc = catalog_list_runs(cat, find_run_row, f, err, errlen);
    if (rc == 0 && f->id == 0)
        rc = catalog_list_accel_runs(cat, find_accel_row, f, err, errlen);
    return rc;
}

/* `runs add RUN.h5`: a run file whose row the catalog lacks (its run ended with "the catalog
 * failed", e.g. locked) gets it, as `run --out` would have added it: the file is read whole
 * first, as replay reads it, so a file that is not a run file or is damaged is refused. The
 * look for the file's row and the add are one write transaction, so that two adds of one file
 * at once add it once (apart, each looked, found none and added it). */
static int runs_add(const char *file, const char *catalog)
{
    char err[768];
    struct accel_record rec;
    struct session *s = NULL;
    bool accel = accel_runfile_probe(file) == 1;
    /* Its row would hold the epochs so far, and the run adds its own at its end: two rows, one
     * of them wrong for good. */
    if (!accel && runfile_being_recorded(file)) {
        fprintf(stderr,
                "corun: runs add: %s: still being recorded; the corun recording it adds its row "
                "when it ends; nothing added\n",
                file);
        return CLI_BAD_INPUT;
    }
    if (accel && accel_runfile_read(file, &rec, err, sizeof err) != 0) {
        fprintf(stderr, "corun: runs add: %s; nothing added\n", err);
        return CLI_BAD_INPUT;
    }
    if (!accel) {
        char *datadir = datadir_locate();
        s = session_replay(file, datadir, err, sizeof err);
        free(datadir);
        if (!s) {
            fprintf(stderr, "corun: runs add: %s; nothing added\n", err);
            return CLI_BAD_INPUT;
        }
    }
    char *abs = util_absolute_path(file);
    struct file_row f = {0};
    struct catalog *cat = catalog_open(catalog, err, sizeof err);
    int rc = cat ? CLI_OK : CLI_BAD_INPUT;
    /* A catalog that cannot be written (read-only, locked past the wait) may still say the
     * file is there; else its message is the add's. */
    char lock_err[768] = "";
    bool locked = cat && catalog_begin_write(cat, "adding a run", lock_err, sizeof lock_err) == 0;
    if (cat && find_file_row(cat, abs, &f, err, sizeof err) != 0)
        rc = CLI_BAD_INPUT;
    int64_t id = 0;
    if (rc == CLI_OK && f.id)
        printf("%s is in the catalog already, as run %s%lld (`corun runs show %s%lld`); not added "
               "again\n",
               file, f.accel ? "a" : "", (long long)f.id, f.accel ? "a" : "", (long long)f.id);
    else if (rc == CLI_OK && !locked) {
        snprintf(err, sizeof err, "%s", lock_err);
        rc = CLI_FAILED;
    } else if (rc == CLI_OK &&
               ((accel ? accel_record_catalog_into(&rec, file, cat, &id, err, sizeof err)
                       : session_catalog_into(s, cat, &id, err, sizeof err)) != 0 ||
                catalog_commit(cat, "adding a run", err, sizeof err) != 0))
        rc = CLI_FAILED;
    else if (rc == CLI_OK)
        printf("added %s to the catalog as run %s%lld\n", file, accel ? "a" : "", (long long)id);
    if (rc != CLI_OK)
        fprintf(stderr, "corun: runs add: %s\n", err);
    if (cat)
        catalog_rollback(cat); /* nothing to undo but a look, or what failed */
    catalog_close(cat);
    free(abs);
    if (accel)
        accel_record_done(&rec);
    session_delete(s);
    return rc;
}

static int usage(void)
{
    cli_usage_error(&cmd_runs);
    return CLI_BAD_INPUT;
}

/* A run ID as `runs list` prints it: N for a spatial run, aN for an accelerator run. */
static int parse_run_id(const char *text, bool *accel, unsigned long *id)
{
    *accel = text[0] == 'a';
    const char *digits = text + *accel;
    char *end;
    errno = 0;
    unsigned long v = strtoul(digits, &end, 10);
    if (errno || digits[0] < '0' || digits[0] > '9' || *end || v < 1 || v > 4294967295ul) {
        fprintf(stderr,
                "corun: runs show: '%s' is no run ID: expected N (a spatial run) or aN (an "
                "accelerator run), N from 1 to 4294967295, as `corun runs list` shows them\n",
                text);
        return -1;
    }
    *id = v;
    return 0;
}

static int runs_run(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"catalog", required_argument, NULL, 'c'},
        {"timeout", required_argument, NULL, 't'},
        {NULL, 0, NULL, 0},
    };
    const char *path = NULL;
    unsigned long timeout_s = CATALOG_QUERY_LIMIT_S;
    /* Options go before the verb or after it (`corun runs list --catalog F`); an SQL query
     * that starts with '-' follows `--`. */
    cli_getopt_reset();
    int c;
    while ((c = cli_getopt(argc, argv, ":", longopts)) != -1) {
        switch (c) {
        case 'c': path = optarg; break;
        case 't':
            if (cli_parse_uint("--timeout", optarg, 0, 86400, &timeout_s) != 0)
                return CLI_BAD_INPUT;
            break;
        default: return usage();
        }
    }
    int i = optind;
    const char *verb = i < argc ? argv[i] : "list"; /* no verb: the list */
    int nargs = i < argc ? argc - i - 1 : 0;
    bool list = strcmp(verb, "list") == 0;
    if (!list && strcmp(verb, "show") != 0 && strcmp(verb, "query") != 0 &&
        strcmp(verb, "add") != 0) {
        fprintf(stderr, "corun: runs: '%s': expected list, show, query or add\n", verb);
        return usage();
    }
    if (nargs != !list) {
        if (nargs < !list)
            fprintf(stderr, "corun: runs %s: expected %s after it\n", verb,
                    verb[0] == 's'   ? "a run ID"
                    : verb[0] == 'a' ? "a run file (RUN.h5)"
                                     : "an SQL query (one argument: quote it)");
        else
            fprintf(stderr, "corun: runs %s: unexpected argument '%s'%s\n", verb,
                    argv[i + 1 + !list], verb[0] == 'q' ? " (quote an SQL query with spaces)" : "");
        return usage();
    }
    unsigned long id = 0;
    bool accel = false;
    if (strcmp(verb, "show") == 0 && parse_run_id(argv[i + 1], &accel, &id) != 0)
        return CLI_BAD_INPUT;
    /* add writes, as `run --out` does: the catalog is made when missing. */
    if (strcmp(verb, "add") == 0)
        return runs_add(argv[i + 1], path);
    /* A catalog named on the command line is read, never made: a mistyped path would otherwise
     * become an empty catalog that "has no runs yet". */
    if (cli_catalog_exists("runs", path,
                           "a catalog that `corun run --out`, sweep or reproduce wrote; without "
                           "--catalog, the default one") != 0)
        return CLI_BAD_INPUT;
    char err[512];
    struct catalog *cat = catalog_open(path, err, sizeof err);
    if (!cat) {
        fprintf(stderr, "corun: %s\n", err);
        return CLI_BAD_INPUT;
    }
    catalog_set_query_limit(cat, (unsigned)timeout_s);
    int rc = 0;
    if (strcmp(verb, "list") == 0) {
        size_t rows[3] = {0, 0, 0}; /* spatial, accelerator, accelerator saved part way */
        rc = catalog_list_runs(cat, print_run_row, &rows[0], err, sizeof err);
        if (rc == 0)
            rc = catalog_list_accel_runs(cat, print_accel_row, rows, err, sizeof err);
        if (rc == 0 && rows[2])
            printf("* saved part way (stopped, or saved in the workbench before its end): the "
                   "figures are of the part run\n");
        if (rc == 0 && rows[0] + rows[1] == 0)
            printf("(no runs in %s yet: `corun run SCENARIO --out RUN.h5`, or s in the "
                   "workbench, records one)\n",
                   catalog_path(cat));
    } else if (strcmp(verb, "show") == 0) {
        struct catalog_accel_run ar;
        struct catalog_run r;
        if (accel) {
            rc = catalog_get_accel_run(cat, (int64_t)id, &ar, err, sizeof err);
            if (rc == 0) {
                show_accel(&ar);
                catalog_accel_run_done(&ar);
            }
        } else if ((rc = catalog_get_run(cat, (int64_t)id, &r, err, sizeof err)) == 0) {
            char m[4][32];
            printf("run %lld\n  file       ", (long long)r.id);
            print_run_file(r.run_path, false, true);
            printf("  scenario   %s (%s)\n  gpu        %s\n  mix        "
                   "%s\n  predictor  %s\n  allocator  %s\n  seed       %llu\n  epochs     %u of "
                   "%llu cycles\n  created    %s by corun %s\n  mean STP   %s\n  mean ANTT  "
                   "%s\n  fairness   mean %s, min %s\n",
                   r.scenario_name, r.scenario_path ? r.scenario_path : "-", r.gpu, r.mix,
                   r.predictor ? r.predictor : "none", r.allocator, (unsigned long long)r.seed,
                   r.epochs, (unsigned long long)r.epoch_cycles, r.created_utc, r.corun_version,
                   metric(r.metrics.mean_stp, 4, m[0], sizeof m[0]),
                   metric(r.metrics.mean_antt, 4, m[1], sizeof m[1]),
                   metric(r.metrics.mean_fairness, 4, m[2], sizeof m[2]),
                   metric(r.metrics.min_fairness, 4, m[3], sizeof m[3]));
            if (r.metrics.has_are) /* stored, and not shown: the predictor's error */
                printf("  NP error   mean %.1f %%, max %.1f %% (|predicted - true| / true)\n",
                       100 * r.metrics.mean_are, 100 * r.metrics.max_are);
            catalog_run_done(&r);
        }
    } else {
        struct query_out q = {0};
        rc = catalog_query(cat, argv[i + 1], print_query_row, &q, err, sizeof err);
        if (rc == 0 && !q.header_done && q.header) /* no rows: the header alone */
            fputs(q.header, stdout);
        free(q.header);
    }
    if (rc != 0)
        fprintf(stderr, "corun: %s\n", err);
    catalog_close(cat);
    /* A query stopped at its time limit failed while running; the rest is what was asked. */
    return rc == 0 ? CLI_OK : rc == -2 ? CLI_FAILED : CLI_BAD_INPUT;
}

const struct cli_command cmd_runs = {
    .name = "runs",
    .args = "[--catalog PATH] [--timeout S] list | show ID | query SQL | add RUN.h5",
    .summary = "the catalog of recorded runs: list them, show one, query it with SQL, or add one",
    .help = "The catalog is $XDG_DATA_HOME/corun/catalog.db (~/.local/share/corun/catalog.db)\n"
            "unless --catalog names another, which list, show and query only read: it must\n"
            "exist and not be empty (a mistyped path is refused, not made an empty catalog).\n"
            "`add RUN.h5` adds the row of a run file the catalog lacks, as `run --out` adds it\n"
            "(a run whose catalog failed, e.g. was locked, says so and keeps its file): the\n"
            "file is read whole first and refused (exit status 2) when it is no run file, is\n"
            "damaged, or is still being recorded (its run adds its row when it ends); one the\n"
            "catalog has already (the same file) is not added again. add makes the catalog\n"
            "when it is missing, as `run --out` does.\n"
            "`query` runs one SQL query that only reads (SELECT, WITH, EXPLAIN, or a PRAGMA\n"
            "that reads, as PRAGMA table_info(runs); a write, BEGIN, ATTACH or a PRAGMA that\n"
            "sets a value is refused, exit status 2) and prints tab-separated rows under a\n"
            "header (a tab, line end or backslash within a value written \\t, \\n, \\r or\n"
            "\\\\, and SQL NULL \\N, as PostgreSQL's text COPY writes them: the text 'NULL' is\n"
            "NULL, an empty text an empty field), e.g.\n"
            "  corun runs query \"SELECT mix, mean_stp FROM runs ORDER BY mean_stp DESC\"\n"
            "and stops a query that runs longer than --timeout S seconds (default 30; 0: no\n"
            "limit), such as a recursive one that never ends (exit status 1).\n"
            "Tables: runs, kernels, kernel_measurements, solo_traces, sweep_results; accel_runs\n"
            "and accel_run_apps (a row per application of each) once an accelerator run is\n"
            "recorded; reproduce_results (reproduce's finished mix runs, kept so that another\n"
            "experiment reads them instead of simulating them: a key and a blob) once one is.\n"
            "`list` shows accelerator "
            "runs after the spatial ones, with IDs aN:\n"
            "`show a1` shows one. A run file moved or removed since is marked (missing), one\n"
            "overwritten or cut short (not a run file); show also reads the file and says why.\n"
            "`corun runs` alone lists them. The options may also follow the verb (`corun runs\n"
            "list --catalog F`); an SQL query that begins with '-' goes after `--`.\n",
    .run = runs_run,
};
