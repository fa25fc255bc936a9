/* runfile_csv — a run file (spatial or accelerator) as CSV tables for spreadsheets and pandas,
 * columns from the layout tables, units in the header row ("bandwidth_gbs [GB/s]"). */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "corun/accel_runfile.h"
#include "corun/util.h"
#include "runfile_internal.h"

/* The shortest text that reads back as exactly v. */
static void put_double(FILE *f, double v)
{
    char buf[40];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, sizeof(buf), "%.*g", digits, v);
        if (strtod(buf, NULL) == v || isnan(v))
            break;
    }
    fputs(buf, f);
}

static void put_text(FILE *f, const char *s);

static void put_value(FILE *f, enum runfile_type t, const void *p)
{
    switch (t) {
    case RUNFILE_U64: fprintf(f, "%" PRIu64, *(const uint64_t *)p); break;
    case RUNFILE_UINT:
    case RUNFILE_FLAG: fprintf(f, "%u", *(const unsigned *)p); break;
    case RUNFILE_DOUBLE: put_double(f, *(const double *)p); break;
    case RUNFILE_PRIORITY: fputs(*(const int *)p ? "high" : "low", f); break;
    case RUNFILE_STRING:
    case RUNFILE_NAME: put_text(f, *(char *const *)p ? *(char *const *)p : ""); break;
    case RUNFILE_CLASS: fprintf(f, "%d", *(const int *)p); break;
    case RUNFILE_TEXT: put_text(f, p); break;
    }
}

/* s as one CSV field: quoted when it holds a comma, quote or line break. */
static void put_text(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* The header row: first's columns (NULL: none), then one per field of t. */
static void put_header(FILE *f, const char *first, const struct runfile_table *t)
{
    if (first)
        fputs(first, f);
    for (size_t i = 0; i < t->count; i++) {
        const char *unit = t->fields[i].unit;
        fprintf(f, "%s%s", first || i ? "," : "", t->fields[i].name);
        if (unit && strcmp(unit, "1") != 0)
            fprintf(f, " [%s]", unit);
    }
    fputc('\n', f);
}

/* The rest of a row: one value per field of t (lead: after columns already written). */
static void put_row(FILE *f, const struct runfile_table *t, const void *base, bool lead)
{
    for (size_t i = 0; i < t->count; i++) {
        if (lead || i)
            fputc(',', f);
        put_value(f, t->fields[i].type, (const char *)base + t->fields[i].offset);
    }
    fputc('\n', f);
}

enum { CSV_KERNELS, CSV_SYSTEM, CSV_PARTITION, CSV_EVENTS, CSV_COUNT, CSV_MAX = 4 };
static const char *const csv_names[CSV_COUNT] = {"kernels.csv", "system.csv", "partition.csv",
                                                 "events.csv"};

/* An export's files: each is written under a temporary name beside its own and renamed over
 * it only once every file is whole, so a failure (a damaged run file read half way, a full
 * disk) leaves the files of an export before untouched. */
struct csv_files {
    int n;
    FILE *f[CSV_MAX];
    char *paths[CSV_MAX], *tmp[CSV_MAX];
    const char *made_dir; /* the directory, when this export made it; NULL when it was there */
};

/* Close the files; the first failure (with its message) wins. On success each replaces its
 * name; on a failure the temporary files are removed and the names keep what they held, and a
 * directory the export made is removed again (a failed export left it there, empty). */
static int close_all(struct csv_files *c, int rc, char *err, size_t errlen)
{
    for (int i = 0; i < c->n; i++) {
        if (c->f[i]) {
            int bad = ferror(c->f[i]);
            if (fclose(c->f[i]) != 0 || bad)
                if (rc == 0)
                    rc = rf_fail(err, errlen, "%s: cannot write: %s", c->paths[i],
                                 strerror(errno ? errno : EIO));
        }
    }
    for (int i = 0; i < c->n && rc == 0; i++)
        if (rename(c->tmp[i], c->paths[i]) != 0)
            rc = rf_fail(err, errlen, "%s: cannot replace: %s", c->paths[i], strerror(errno));
    for (int i = 0; i < c->n; i++) {
        if (rc != 0 && c->f[i])
            unlink(c->tmp[i]); /* a renamed one is gone from there already */
        free(c->paths[i]);
        free(c->tmp[i]);
    }
    if (rc != 0 && c->made_dir)
        rmdir(c->made_dir); /* only when empty: nothing of the user's goes */
    return rc;
}

static int write_epochs(struct runfile *rf, FILE **f, char *err, size_t errlen)
{
    const struct runfile_header *h = &rf->hdr;
    struct runfile_epoch *e = xmalloc(sizeof(*e));
    int rc = 0;
    /* Epochs are numbered from 1, as corun numbers them everywhere else. */
    for (uint64_t i = 0; i < rf->nepochs && rc == 0; i++) {
        rc = runfile_read_epoch(rf, i, e, err, errlen);
        for (unsigned k = 0; k < h->nkernels && rc == 0; k++) {
            fprintf(f[CSV_KERNELS], "%" PRIu64 ",%u,", i + 1, k);
            put_text(f[CSV_KERNELS], h->kernels[k].name);
            put_row(f[CSV_KERNELS], &runfile_per_kernel_table, &e->k[k], true);
        }
        if (rc == 0) {
            fprintf(f[CSV_SYSTEM], "%" PRIu64, i + 1);
            put_row(f[CSV_SYSTEM], &runfile_system_table, e, true);
            fprintf(f[CSV_PARTITION], "%" PRIu64, i + 1);
            for (unsigned s = 0; s < h->sms; s++)
                fprintf(f[CSV_PARTITION], ",%d", e->owner[s]);
            fputc('\n', f[CSV_PARTITION]);
        }
    }
    free(e);
    return rc;
}

static int write_events(struct runfile *rf, FILE *f, char *err, size_t errlen)
{
    struct runfile_event ev;
    for (uint64_t i = 0; i < rf->nevents; i++) {
        if (runfile_read_event(rf, i, &ev, err, errlen) < 0)
            return -1;
        fprintf(f, "%" PRIu64 ",%" PRIu64 ",", ev.epoch, ev.cycle);
        put_text(f, ev.kind);
        fputc(',', f);
        put_text(f, ev.text);
        fputc('\n', f);
    }
    return 0;
}

/* path, a temporary name in dir, for writing, replacing a regular file; what is not one (a
 * symbolic link, whose target would be overwritten, a FIFO, a device) is refused. NULL with a
 * message (naming dir when no file can be made there). */
static FILE *create_regular(const char *path, const char *dir, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        rf_fail(err, errlen,
                "%s: exists and is not a regular file (%s); remove it or export to "
                "another directory",
                path, S_ISLNK(st.st_mode) ? "a symbolic link, not followed" : "not replaced");
        return NULL;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK, 0666);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (!f) {
        rf_fail(err, errlen, "%s: cannot write the CSV files in this directory: %s", dir,
                strerror(errno));
        if (fd >= 0)
            close(fd);
    }
    return f;
}

/* dir (made when missing) and its n files names[i], open for writing under their temporary
 * names. A name that is the run file being exported (src; a link to it, or a run file saved
 * as kernels.csv) is refused: it would be replaced by its own export; so is one that exists
 * already unless replace (a file of the user's own of the same name was replaced unsaid).
 * -1 with a message, every file opened closed and removed. */
static int open_all(const char *dir, const char *src, const char *const *names, int n, bool replace,
                    struct csv_files *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->n = n;
    if (mkdir(dir, 0777) == 0)
        c->made_dir = dir;
    else if (errno != EEXIST)
        return rf_fail(err, errlen, "%s: cannot make the directory: %s", dir, strerror(errno));
    struct stat in, st;
    bool have_in = stat(src, &in) == 0;
    int there = 0, first = -1; /* the names that exist already, and the first of them */
    for (int i = 0; i < n; i++) {
        c->paths[i] = xasprintf("%s/%s", dir, names[i]);
        c->tmp[i] = xasprintf("%s/.%s.partial-%ld", dir, names[i], (long)getpid());
        if (have_in && stat(c->paths[i], &st) == 0 && st.st_dev == in.st_dev &&
            st.st_ino == in.st_ino) {
            rf_fail(err, errlen,
                    "%s: is the run file being exported (%s); export to another directory",
                    c->paths[i], src);
            return close_all(c, -1, err, errlen);
        }
        if (lstat(c->paths[i], &st) != 0)
            continue;
        /* The name itself must be a file to replace (not a directory, FIFO or link). */
        if (!S_ISREG(st.st_mode)) {
            rf_fail(err, errlen,
                    "%s: exists and is not a regular file (%s); remove it or export to "
                    "another directory",
                    c->paths[i],
                    S_ISLNK(st.st_mode) ? "a symbolic link, not followed" : "not replaced");
            return close_all(c, -1, err, errlen);
        }
        if (there++ == 0)
            first = i;
    }
    if (there && !replace) {
        char more[64] = "";
        if (there > 1)
            snprintf(more, sizeof more, ", and %d more of the export's files", there - 1);
        rf_fail(err, errlen,
                "%s: exists%s; give --force to replace %s, or export to another directory",
                c->paths[first], more, there > 1 ? "them" : "it");
        return close_all(c, -1, err, errlen);
    }
    for (int i = 0; i < n; i++) {
        c->f[i] = create_regular(c->tmp[i], dir, err, errlen);
        if (!c->f[i])
            return close_all(c, -1, err, errlen);
    }
    return 0;
}

int runfile_export_csv(struct runfile *rf, const char *dir, bool replace, char *err, size_t errlen)
{
    struct csv_files c;
    if (open_all(dir, rf->path, csv_names, CSV_COUNT, replace, &c, err, errlen) != 0)
        return -2;
    FILE **f = c.f;
    put_header(f[CSV_KERNELS], "epoch,kernel,name", &runfile_per_kernel_table);
    put_header(f[CSV_SYSTEM], "epoch", &runfile_system_table);
    fputs("epoch", f[CSV_PARTITION]);
    for (unsigned s = 0; s < rf->hdr.sms; s++)
        fprintf(f[CSV_PARTITION], ",sm%u", s);
    fputc('\n', f[CSV_PARTITION]);
    fputs("after_epoch,cycle,kind,text\n", f[CSV_EVENTS]); /* 0: before epoch 1 */
    errno = 0;
    int rc = write_epochs(rf, f, err, errlen);
    if (rc == 0)
        rc = write_events(rf, f[CSV_EVENTS], err, errlen);
    if (rc != 0) { /* the run file's damage: bad input */
        close_all(&c, rc, err, errlen);
        return -2;
    }
    return close_all(&c, 0, err, errlen);
}

/* ---- an accelerator run ---- */

enum { ACSV_RUN, ACSV_APPS, ACSV_QUERIES, ACSV_TASKS, ACSV_COUNT };
_Static_assert((int)ACSV_COUNT <= (int)CSV_MAX,
               "struct csv_files holds an accelerator run's files");
static const char *const acsv_names[ACSV_COUNT] = {"run.csv", "applications.csv", "queries.csv",
                                                   "tasks.csv"};

/* The root attributes but the scenario's text (a dataset of its own in the run file; `corun
 * show` prints the rest), as a table of its own in fields. */
static struct runfile_table run_columns(struct runfile_field *fields, size_t cap)
{
    const struct runfile_table *t = &accel_runfile_root_table;
    struct runfile_table out = *t;
    out.fields = fields;
    out.count = 0;
    for (size_t i = 0; i < t->count && out.count < cap; i++)
        if (strcmp(t->fields[i].name, "scenario_text") != 0)
            fields[out.count++] = t->fields[i];
    assert(out.count == t->count - 1); /* cap holds every column */
    return out;
}

static const char *app_name(const struct accel_record *r, unsigned app)
{
    return app < r->napps ? r->app[app].name : "?";
}

int accel_runfile_export_csv(const struct accel_record *r, const char *src, const char *dir,
                             bool replace, char *err, size_t errlen)
{
    struct csv_files c;
    if (open_all(dir, src, acsv_names, ACSV_COUNT, replace, &c, err, errlen) != 0)
        return -2;
    FILE **f = c.f;
    errno = 0;
    struct runfile_field fields[32];
    struct runfile_table run = run_columns(fields, CORUN_ARRAY_LEN(fields));
    put_header(f[ACSV_RUN], NULL, &run);
    put_row(f[ACSV_RUN], &run, r, false);
    put_header(f[ACSV_APPS], "app", &accel_runfile_app_table);
    for (unsigned a = 0; a < r->napps; a++) {
        fprintf(f[ACSV_APPS], "%u", a);
        put_row(f[ACSV_APPS], &accel_runfile_app_table, &r->app[a], true);
    }
    put_header(f[ACSV_QUERIES], "application", &accel_runfile_query_table);
    for (size_t q = 0; q < r->nqueries; q++) {
        put_text(f[ACSV_QUERIES], app_name(r, r->queries[q].app));
        put_row(f[ACSV_QUERIES], &accel_runfile_query_table, &r->queries[q], true);
    }
    put_header(f[ACSV_TASKS], "application", &accel_runfile_task_table);
    for (size_t k = 0; k < r->ntasks; k++) {
        put_text(f[ACSV_TASKS], app_name(r, r->tasks[k].app));
        put_row(f[ACSV_TASKS], &accel_runfile_task_table, &r->tasks[k], true);
    }
    return close_all(&c, 0, err, errlen);
}
