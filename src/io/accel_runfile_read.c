/* accel_runfile_read — reading an accelerator run file back, refusing what no writer makes. A
 * child process reads the whole file first (rf_survives_reading), as for a spatial run file:
 * HDF5 1.10 can crash or loop on forged structures. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "accel_runfile_internal.h"
#include "corun/util.h"

struct reader {
    const char *path;
    hid_t file;
    uint64_t file_bytes;
    char *err;
    size_t errlen;
};

static int damaged(struct reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int damaged(struct reader *rd, const char *fmt, ...)
{
    char what[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return rf_fail(rd->err, rd->errlen, "%s: damaged accelerator run file: %s", rd->path, what);
}

/* ---- columns ---- */

/* The rows of dataset where/name (1-D), or -1 with a message. */
static int64_t column_rows(struct reader *rd, const char *where, const char *name, hid_t *out)
{
    char full[128];
    snprintf(full, sizeof full, "%s/%s", where, name);
    *out = H5I_INVALID_HID;
    if (H5Lexists(rd->file, where, H5P_DEFAULT) <= 0 || H5Lexists(rd->file, full, H5P_DEFAULT) <= 0)
        return damaged(rd, "%s is missing", full);
    hid_t ds = H5Dopen2(rd->file, full, H5P_DEFAULT);
    if (ds < 0)
        return damaged(rd, "%s is unreadable", full);
    hid_t space = H5Dget_space(ds);
    hsize_t dims = 0;
    int rank = space < 0 ? -1 : H5Sget_simple_extent_ndims(space);
    if (rank == 1)
        H5Sget_simple_extent_dims(space, &dims, NULL);
    if (space >= 0)
        H5Sclose(space);
    if (rank != 1) {
        H5Dclose(ds);
        return damaged(rd, "%s has rank %d (expected 1)", full, rank);
    }
    if (dims > ACCEL_RF_MAX_ROWS) {
        H5Dclose(ds);
        return damaged(rd, "%s has %llu rows (at most %llu)", full, (unsigned long long)dims,
                       ACCEL_RF_MAX_ROWS);
    }
    uint64_t stored = rf_storage_forged(ds, rd->path);
    if (stored) {
        H5Dclose(ds);
        return damaged(rd, "%s claims %llu bytes of storage, more than the file holds", full,
                       (unsigned long long)stored);
    }
    *out = ds;
    return (int64_t)dims;
}

/* Reads every column of table t into n structs of size stride at base (n: the rows of its
 * first column; every other must have as many). Returns the rows, or -1 with a message. */
static int64_t read_group(struct reader *rd, const struct runfile_table *t, void **base,
                          size_t stride, int64_t expect)
{
    int64_t n = -1;
    for (size_t i = 0; i < t->count; i++) {
        const struct runfile_field *f = &t->fields[i];
        hid_t ds;
        int64_t rows = column_rows(rd, t->where, f->name, &ds);
        if (rows < 0)
            return -1;
        if (n < 0) {
            n = rows;
            if (expect >= 0 && n != expect) {
                H5Dclose(ds);
                return damaged(rd, "%s/%s has %lld rows (attribute napps says %lld)", t->where,
                               f->name, (long long)n, (long long)expect);
            }
            if (!*base)
                *base = xcalloc((size_t)n + 1, stride);
        } else if (rows != n) {
            H5Dclose(ds);
            return damaged(rd, "%s/%s has %lld rows, %s/%s %lld", t->where, f->name,
                           (long long)rows, t->where, t->fields[0].name, (long long)n);
        }
        size_t rs = rf_row_size(f->type);
        unsigned char *buf = xcalloc((size_t)n + 1, rs);
        hid_t mt = rf_mem_type(f->type);
        herr_t ok = n > 0 ? H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) : 0;
        H5Tclose(mt);
        H5Dclose(ds);
        if (ok < 0) {
            free(buf);
            char why[256];
            rf_h5_reason(why, sizeof why);
            return rf_fail(rd->err, rd->errlen,
                           "%s: damaged or truncated accelerator run file: cannot read %s/%s: %s",
                           rd->path, t->where, f->name, why);
        }
        for (int64_t r = 0; r < n; r++) {
            void *value = (char *)*base + (size_t)r * stride + f->offset;
            if (f->type == RUNFILE_STRING) {
                char *s = *(char **)(buf + (size_t)r * rs);
                *(char **)value = xstrdup(s ? s : "");
                if (s)
                    H5free_memory(s);
            } else {
                rf_from_row(f->type, buf + (size_t)r * rs, value);
            }
        }
        free(buf);
    }
    return n;
}

/* ---- what a writer makes ---- */

/* A value that is finite and not negative, or NaN where NaN means "none". */
static bool plausible(double v)
{
    return isnan(v) || (isfinite(v) && v >= 0);
}

/* A latency, or a figure made of latencies: as plausible, or +inf, a query that never
 * completed (its application starved behind bandwidth-exclusive copies: the run says "their
 * latency is inf", and its file was refused as damaged by show, export and plot). */
static bool plausible_latency(double v)
{
    return isnan(v) || v >= 0;
}

static int check_root(struct reader *rd, const struct accel_record *r)
{
    if (r->version < 1)
        return damaged(rd, "attribute " ACCEL_RF_VERSION " is 0 (expected 1 to %d)",
                       ACCEL_RUNFILE_VERSION);
    if (r->napps < 1 || r->napps > ACCEL_MAX_APPS)
        return damaged(rd, "attribute napps is %u (expected 1 to %d)", r->napps, ACCEL_MAX_APPS);
    if (r->sms < 1 || r->sms > RUNFILE_MAX_SMS)
        return damaged(rd, "attribute sms is %u (expected 1 to %d)", r->sms, RUNFILE_MAX_SMS);
    if (r->complete > 1)
        return damaged(rd, "attribute complete is %u (expected 0 or 1)", r->complete);
    if (!(r->core_clock_mhz > 0) || !isfinite(r->core_clock_mhz))
        return damaged(rd, "attribute core_clock_mhz is %g (expected above 0)", r->core_clock_mhz);
    const double v[] = {r->sim_ms, r->gpu_util, r->h2d_busy, r->d2h_busy};
    const char *k[] = {"sim_ms", "gpu_util", "h2d_busy", "d2h_busy"};
    for (size_t i = 0; i < CORUN_ARRAY_LEN(v); i++)
        if (!isfinite(v[i]) || v[i] < 0)
            return damaged(rd, "attribute %s is %g (expected a finite number, 0 or more)", k[i],
                           v[i]);
    return 0;
}

static int check_apps(struct reader *rd, const struct accel_record *r)
{
    for (unsigned a = 0; a < r->napps; a++) {
        const struct accel_app_rec *x = &r->app[a];
        if (!x->name[0])
            return damaged(rd, "/applications/name[%u] is empty", a);
        if (x->role != ACCEL_LS && x->role != ACCEL_BATCH)
            return damaged(rd, "/applications/role[%u] is %d (expected 0 LS or 1 batch)", a,
                           (int)x->role);
        if (x->qos_met > 1 || x->pred_qos_met > 1)
            return damaged(rd, "/applications/qos_met[%u] is not 0 or 1", a);
        const double v[] = {x->qos_target, x->solo_p50_ms, x->solo_p99_ms, x->solo_mean_ms,
                            x->pred_solo_ms};
        const char *k[] = {"qos_target", "solo_p50_ms", "solo_p99_ms", "solo_mean_ms",
                           "pred_solo_ms"};
        for (size_t i = 0; i < CORUN_ARRAY_LEN(v); i++)
            if (!plausible(v[i]))
                return damaged(rd, "/applications/%s[%u] is %g (expected a number, 0 or more)",
                               k[i], a, v[i]);
        const double lat[] = {x->p50_ms,      x->p99_ms,       x->mean_ms,   x->pred_p50_ms,
                              x->pred_p99_ms, x->pred_mean_ms, x->pred_error};
        const char *lk[] = {"p50_ms",      "p99_ms",       "mean_ms",   "pred_p50_ms",
                            "pred_p99_ms", "pred_mean_ms", "pred_error"};
        for (size_t i = 0; i < CORUN_ARRAY_LEN(lat); i++)
            if (!plausible_latency(lat[i]))
                return damaged(rd,
                               "/applications/%s[%u] is %g (expected a number, 0 or more, or "
                               "inf)",
                               lk[i], a, lat[i]);
    }
    return 0;
}

static int check_rows(struct reader *rd, const struct accel_record *r)
{
    for (size_t i = 0; i < r->nqueries; i++) {
        const struct accel_query_rec *q = &r->queries[i];
        if (q->app >= r->napps || r->app[q->app].role != ACCEL_LS)
            return damaged(rd, "/queries/app[%zu] is %u (expected an LS application's index)", i,
                           q->app);
        if (!plausible_latency(q->latency_ms) || !plausible_latency(q->predicted_ms))
            return damaged(rd,
                           "/queries/latency_ms[%zu] is %g, predicted_ms %g (expected a "
                           "number, 0 or more, inf or NaN)",
                           i, q->latency_ms, q->predicted_ms);
    }
    for (size_t i = 0; i < r->ntasks; i++) {
        const struct accel_task_rec *t = &r->tasks[i];
        if (t->app >= r->napps)
            return damaged(rd, "/tasks/app[%zu] is %u (expected 0 to %u)", i, t->app, r->napps - 1);
        if (t->proc >= ACCEL_MAX_APPS)
            return damaged(rd, "/tasks/proc[%zu] is %u (expected 0 to %d)", i, t->proc,
                           ACCEL_MAX_APPS - 1);
        if (t->kind < ACCEL_H2D || t->kind > ACCEL_D2H)
            return damaged(rd,
                           "/tasks/kind[%zu] is %d (expected 0 host-to-device, 1 kernel or 2 "
                           "device-to-host)",
                           i, t->kind);
        if (t->exclusive > 1)
            return damaged(rd, "/tasks/exclusive[%zu] is %u (expected 0 or 1)", i, t->exclusive);
        if (!isfinite(t->issued_ns) || !isfinite(t->start_ns) || !isfinite(t->end_ns) ||
            t->issued_ns < 0 || t->start_ns < t->issued_ns || t->end_ns < t->start_ns)
            return damaged(rd,
                           "/tasks row %zu: issued %g, start %g, end %g ns (expected 0 <= issued "
                           "<= start <= end)",
                           i, t->issued_ns, t->start_ns, t->end_ns);
        if (!plausible(t->sms) || !plausible(t->link_share))
            return damaged(rd,
                           "/tasks row %zu: sms %g, link_share %g (expected a number, 0 or "
                           "more, or NaN)",
                           i, t->sms, t->link_share);
    }
    return 0;
}

/* ---- opening ---- */

static int read_root(struct reader *rd, struct accel_record *r)
{
    htri_t has = H5Aexists(rd->file, ACCEL_RF_VERSION);
    if (has < 0) {
        char why[256];
        rf_h5_reason(why, sizeof why);
        return rf_fail(rd->err, rd->errlen, "%s: damaged or truncated HDF5 file: %s", rd->path,
                       why);
    }
    if (has == 0)
        return rf_fail(rd->err, rd->errlen,
                       "%s: an HDF5 file, but not a corun accelerator run file (no "
                       "%s attribute)",
                       rd->path, ACCEL_RF_VERSION);
    if (rf_read_attr(rd->file, ACCEL_RF_VERSION, RUNFILE_UINT, &r->version) < 0)
        return damaged(rd, "attribute " ACCEL_RF_VERSION " is not an integer");
    if (r->version > ACCEL_RUNFILE_VERSION)
        return rf_fail(rd->err, rd->errlen,
                       "%s: accelerator run file version %u is newer than this corun reads "
                       "(version %d); open it with a newer corun",
                       rd->path, r->version, ACCEL_RUNFILE_VERSION);
    const struct runfile_table *t = &accel_runfile_root_table;
    for (size_t i = 1; i < t->count; i++) {
        const struct runfile_field *f = &t->fields[i];
        if (rf_read_attr(rd->file, f->name, f->type, (char *)r + f->offset) < 0)
            return damaged(rd, "attribute %s of / is %s", f->name,
                           H5Aexists(rd->file, f->name) > 0 ? "unreadable" : "missing");
    }
    return check_root(rd, r);
}

static int read_here(struct reader *rd, struct accel_record *r)
{
    memset(r, 0, sizeof(*r));
    if (read_root(rd, r) < 0)
        return -1;
    void *apps = NULL, *queries = NULL, *tasks = NULL;
    int64_t n = read_group(rd, &accel_runfile_app_table, &apps, sizeof(r->app[0]), r->napps);
    if (apps) {
        memcpy(r->app, apps, r->napps * sizeof(r->app[0]));
        free(apps);
    }
    if (n < 0)
        return -1;
    int64_t nq = read_group(rd, &accel_runfile_query_table, &queries, sizeof(r->queries[0]), -1);
    r->queries = queries;
    r->nqueries = nq > 0 ? (size_t)nq : 0;
    if (nq < 0)
        return -1;
    int64_t nt = read_group(rd, &accel_runfile_task_table, &tasks, sizeof(r->tasks[0]), -1);
    r->tasks = tasks;
    r->ntasks = nt > 0 ? (size_t)nt : 0;
    if (nt < 0)
        return -1;
    return check_apps(rd, r) < 0 || check_rows(rd, r) < 0 ? -1 : 0;
}

static int open_and_read(const char *path, const struct rf_probe *p, struct accel_record *r,
                         char *err, size_t errlen)
{
    struct reader rd = {.path = path, .err = err, .errlen = errlen};
    memset(r, 0, sizeof(*r));
    rd.file = rf_open_hdf5(path, p, err, errlen);
    if (rd.file < 0)
        return -1;
    rd.file_bytes = (uint64_t)p->size;
    int rc = read_here(&rd, r);
    H5Fclose(rd.file);
    H5Eclear2(H5E_DEFAULT);
    return rc;
}

static int read_everything(const char *path, const struct rf_probe *p)
{
    char err[16];
    struct accel_record r;
    int rc = open_and_read(path, p, &r, err, sizeof err);
    accel_record_done(&r);
    return rc == 0 ? 0 : 1;
}

int accel_runfile_read(const char *path, struct accel_record *r, char *err, size_t errlen)
{
    rf_quiet();
    memset(r, 0, sizeof(*r));
    struct rf_probe p;
    if (rf_probe_file(path, &p, err, errlen) < 0 ||
        rf_survives_reading(path, &p, read_everything, err, errlen) < 0)
        return -1;
    if (open_and_read(path, &p, r, err, errlen) < 0) {
        accel_record_done(r);
        return -1;
    }
    return 0;
}

/* 1 when the file opens and has the attribute, else 0. */
static int has_version(const char *path, const struct rf_probe *p)
{
    char err[16];
    hid_t file = rf_open_hdf5(path, p, err, sizeof err);
    if (file < 0) {
        H5Eclear2(H5E_DEFAULT);
        return 0;
    }
    int is = H5Aexists(file, ACCEL_RF_VERSION) > 0;
    H5Fclose(file);
    H5Eclear2(H5E_DEFAULT);
    return is;
}

static int opens(const char *path, const struct rf_probe *p)
{
    has_version(path, p);
    return 0;
}

int accel_runfile_probe(const char *path)
{
    rf_quiet();
    struct rf_probe p;
    char err[512];
    /* Opening a forged file can crash HDF5 too: a child tries first, and a file it cannot
     * survive is left to the spatial reader, which refuses it with the reason. */
    if (rf_probe_file(path, &p, err, sizeof err) < 0 ||
        rf_survives_reading(path, &p, opens, err, sizeof err) < 0)
        return 0;
    return has_version(path, &p);
}
