/* runfile_csv — a run file as CSV tables for spreadsheets and pandas, columns from the layout
 * tables, units in the header row ("bandwidth_gbs [GB/s]"). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    case RUNFILE_NAME: fputs(*(char *const *)p, f); break;
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

static void put_header(FILE *f, const char *first, const struct runfile_table *t)
{
    fputs(first, f);
    for (size_t i = 0; i < t->count; i++) {
        const char *unit = t->fields[i].unit;
        if (unit && strcmp(unit, "1") != 0)
            fprintf(f, ",%s [%s]", t->fields[i].name, unit);
        else
            fprintf(f, ",%s", t->fields[i].name);
    }
    fputc('\n', f);
}

static void put_row(FILE *f, const struct runfile_table *t, const void *base)
{
    for (size_t i = 0; i < t->count; i++) {
        fputc(',', f);
        put_value(f, t->fields[i].type, (const char *)base + t->fields[i].offset);
    }
    fputc('\n', f);
}

enum { CSV_KERNELS, CSV_SYSTEM, CSV_PARTITION, CSV_EVENTS, CSV_COUNT };
static const char *const csv_names[CSV_COUNT] = {"kernels.csv", "system.csv", "partition.csv",
                                                 "events.csv"};

/* Close every file; the first failure (with its message) wins. */
static int close_all(FILE **f, char **paths, int rc, char *err, size_t errlen)
{
    for (int i = 0; i < CSV_COUNT; i++) {
        if (f[i]) {
            int bad = ferror(f[i]);
            if (fclose(f[i]) != 0 || bad)
                if (rc == 0)
                    rc = rf_fail(err, errlen, "%s: cannot write: %s", paths[i],
                                 strerror(errno ? errno : EIO));
        }
        free(paths[i]);
    }
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
            put_row(f[CSV_KERNELS], &runfile_per_kernel_table, &e->k[k]);
        }
        if (rc == 0) {
            fprintf(f[CSV_SYSTEM], "%" PRIu64, i + 1);
            put_row(f[CSV_SYSTEM], &runfile_system_table, e);
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

/* path for writing, replacing a regular file; what is not one (a symbolic link, whose target
 * would be overwritten, a FIFO, a device) is refused. NULL with a message. */
static FILE *create_regular(const char *path, char *err, size_t errlen)
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
        rf_fail(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
    }
    return f;
}

int runfile_export_csv(struct runfile *rf, const char *dir, char *err, size_t errlen)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return rf_fail(err, errlen, "%s: cannot make the directory: %s", dir, strerror(errno));
    FILE *f[CSV_COUNT] = {NULL};
    char *paths[CSV_COUNT] = {NULL};
    for (int i = 0; i < CSV_COUNT; i++) {
        paths[i] = xasprintf("%s/%s", dir, csv_names[i]);
        f[i] = create_regular(paths[i], err, errlen);
        if (!f[i])
            return close_all(f, paths, -1, err, errlen);
    }
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
    return close_all(f, paths, rc, err, errlen);
}
