/* accel_runfile — the layout of an accelerator run file and writing one (reading:
 * accel_runfile_read.c). The tables below drive both, and the layout listing. */
#include "corun/accel_runfile.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "accel_runfile_internal.h"
#include "config.h"
#include "corun/util.h"

/* ---- tables ---- */

#define ROOT(f, t, u, d)                                                                           \
    {                                                                                              \
#f, t, u, offsetof(struct accel_record, f), d                                              \
    }
static const struct runfile_field root_fields[] = {
    {ACCEL_RF_VERSION, RUNFILE_UINT, NULL, offsetof(struct accel_record, version),
     "accelerator run file version; a reader refuses a file whose version is newer than its own"},
    ROOT(corun_version, RUNFILE_STRING, NULL, "the corun version that wrote the file"),
    ROOT(created, RUNFILE_STRING, NULL, "when the file was written, ISO 8601 UTC"),
    ROOT(scenario_text, RUNFILE_STRING, NULL, "the scenario file's whole text"),
    ROOT(scenario_path, RUNFILE_STRING, NULL, "the scenario file (absolute when it named one)"),
    ROOT(scenario_name, RUNFILE_STRING, NULL, "the scenario's name"),
    ROOT(gpu_preset, RUNFILE_STRING, NULL, "GPU preset name"),
    ROOT(predictor, RUNFILE_STRING, NULL,
         "the predictor whose forecasts the file holds (none, prophet, sequential, bubble, "
         "prophet-even)"),
    ROOT(seed, RUNFILE_U64, NULL, "random seed of the run (Poisson arrivals, the core)"),
    ROOT(sms, RUNFILE_UINT, "SMs", "streaming multiprocessors of the GPU"),
    ROOT(core_clock_mhz, RUNFILE_DOUBLE, "MHz", "the core clock: cycles per microsecond"),
    ROOT(complete, RUNFILE_UINT, NULL,
         "1: the run reached its end; 0: saved part way (the workbench's s, or a stop)"),
    ROOT(cycles, RUNFILE_U64, "cycles", "core cycles of the co-located run"),
    ROOT(sim_ms, RUNFILE_DOUBLE, "ms", "the same in milliseconds"),
    ROOT(solo_cycles, RUNFILE_U64, "cycles", "core cycles of the LS applications' solo runs"),
    ROOT(profile_cycles, RUNFILE_U64, "cycles",
         "core cycles the predictor's solo-run profiles took (0: no predictor)"),
    ROOT(tasks_done, RUNFILE_U64, "tasks", "tasks completed, every application"),
    ROOT(gpu_util, RUNFILE_DOUBLE, "1", "fraction of SM time during which SMs held thread blocks"),
    ROOT(h2d_busy, RUNFILE_DOUBLE, "1", "fraction of the time the host-to-device link moved data"),
    ROOT(d2h_busy, RUNFILE_DOUBLE, "1", "fraction of the time the device-to-host link moved data"),
    ROOT(napps, RUNFILE_UINT, "applications", "entries of /applications"),
};
const struct runfile_table accel_runfile_root_table = {"/", "attribute", "struct accel_record",
                                                       root_fields, CORUN_ARRAY_LEN(root_fields)};

#define APP(f, t, u, d)                                                                            \
    {                                                                                              \
#f, t, u, offsetof(struct accel_app_rec, f), d                                             \
    }
static const struct runfile_field app_fields[] = {
    APP(name, RUNFILE_STRING, NULL, "the application, as the scenario names it"),
    APP(role, RUNFILE_CLASS, NULL, "0 latency-sensitive (LS), 1 batch"),
    APP(instances, RUNFILE_UINT, "processes", "processes: 1 for LS, the instances of a batch one"),
    APP(queries, RUNFILE_UINT, "queries", "LS: queries completed"),
    APP(qos_target, RUNFILE_DOUBLE, "1", "LS: the p99 bound, a multiple of the solo p99"),
    APP(p50_ms, RUNFILE_DOUBLE, "ms", "LS: median query latency (nearest rank)"),
    APP(p99_ms, RUNFILE_DOUBLE, "ms", "LS: 99th-percentile query latency (inf: a query starved)"),
    APP(mean_ms, RUNFILE_DOUBLE, "ms", "LS: mean query latency"),
    APP(solo_p50_ms, RUNFILE_DOUBLE, "ms", "LS: median latency alone on the GPU, closed loop"),
    APP(solo_p99_ms, RUNFILE_DOUBLE, "ms", "LS: 99th-percentile latency alone"),
    APP(solo_mean_ms, RUNFILE_DOUBLE, "ms", "LS: mean latency alone"),
    APP(qos_met, RUNFILE_FLAG, NULL, "LS: 1 when p99_ms <= qos_target x solo_p99_ms"),
    APP(passes, RUNFILE_U64, "passes", "batch: passes over its trace, every instance together"),
    APP(pred_p50_ms, RUNFILE_DOUBLE, "ms", "LS: the predictor's median (NaN: no predictor)"),
    APP(pred_p99_ms, RUNFILE_DOUBLE, "ms", "LS: the predictor's 99th percentile"),
    APP(pred_mean_ms, RUNFILE_DOUBLE, "ms", "LS: the predictor's mean"),
    APP(pred_solo_ms, RUNFILE_DOUBLE, "ms", "LS: the solo latency its profile gives"),
    APP(pred_error, RUNFILE_DOUBLE, "1", "LS: |predicted p99 - p99| / p99"),
    APP(pred_qos_met, RUNFILE_FLAG, NULL, "LS: the predicted verdict"),
};
const struct runfile_table accel_runfile_app_table = {
    "/applications", "[apps]", "struct accel_app_rec", app_fields, CORUN_ARRAY_LEN(app_fields)};

#define QRY(f, t, u, d)                                                                            \
    {                                                                                              \
#f, t, u, offsetof(struct accel_query_rec, f), d                                           \
    }
static const struct runfile_field query_fields[] = {
    QRY(app, RUNFILE_UINT, NULL, "the LS application (index into /applications)"),
    QRY(query, RUNFILE_UINT, NULL, "the query, 0-based, in arrival order"),
    QRY(latency_ms, RUNFILE_DOUBLE, "ms",
        "arrival to the end of its last task (NaN: not done; inf: never, its copy starved)"),
    QRY(predicted_ms, RUNFILE_DOUBLE, "ms", "the predictor's forecast (NaN: no predictor)"),
};
const struct runfile_table accel_runfile_query_table = {
    "/queries", "[queries]", "struct accel_query_rec", query_fields, CORUN_ARRAY_LEN(query_fields)};

#define TSK(f, t, u, d)                                                                            \
    {                                                                                              \
#f, t, u, offsetof(struct accel_task_rec, f), d                                            \
    }
static const struct runfile_field task_fields[] = {
    TSK(app, RUNFILE_UINT, NULL, "the application (index into /applications)"),
    TSK(proc, RUNFILE_UINT, NULL, "the process (GPU stream): the LS one or a batch instance"),
    TSK(pass, RUNFILE_U64, NULL, "LS: the query (0-based); batch: the instance's pass"),
    TSK(task, RUNFILE_UINT, NULL, "the task's index in its application's trace"),
    TSK(kind, RUNFILE_CLASS, NULL, "0 host-to-device copy, 1 kernel, 2 device-to-host copy"),
    TSK(exclusive, RUNFILE_FLAG, NULL, "copies: 1 bandwidth-exclusive (pinned), 0 sharing"),
    TSK(bytes, RUNFILE_U64, "bytes", "copies: bytes moved (kernels 0)"),
    TSK(issued_ns, RUNFILE_DOUBLE, "ns", "submitted: a kernel launched, a copy given its link"),
    TSK(start_ns, RUNFILE_DOUBLE, "ns", "a kernel's first thread block on an SM; a copy: issued"),
    TSK(end_ns, RUNFILE_DOUBLE, "ns", "completed"),
    TSK(sms, RUNFILE_DOUBLE, "SMs", "kernels: SM-cycles held / cycles from start to end"),
    TSK(link_share, RUNFILE_DOUBLE, "1",
        "copies: bytes / (end - issued) over its kind's rate alone"),
};
const struct runfile_table accel_runfile_task_table = {"/tasks", "[tasks]", "struct accel_task_rec",
                                                       task_fields, CORUN_ARRAY_LEN(task_fields)};

static const char *type_name(enum runfile_type t)
{
    switch (t) {
    case RUNFILE_U64: return "uint64";
    case RUNFILE_UINT: return "uint32";
    case RUNFILE_DOUBLE: return "float64";
    case RUNFILE_STRING: return "string";
    case RUNFILE_FLAG: return "uint8";
    case RUNFILE_CLASS: return "int8";
    default: return "?";
    }
}

void accel_runfile_print_layout(FILE *out)
{
    const struct runfile_table *t[] = {&accel_runfile_root_table, &accel_runfile_app_table,
                                       &accel_runfile_query_table, &accel_runfile_task_table};
    for (size_t i = 0; i < CORUN_ARRAY_LEN(t); i++) {
        if (i == 0)
            fprintf(out, "#### Attributes of `/`, from `%s`\n\n", t[i]->what);
        else
            fprintf(out, "#### `%s/NAME`, shape %s, from `%s`\n\n", t[i]->where, t[i]->shape,
                    t[i]->what);
        fprintf(out, "| name | type | unit | description |\n|---|---|---|---|\n");
        for (size_t f = 0; f < t[i]->count; f++) {
            const struct runfile_field *x = &t[i]->fields[f];
            fprintf(out, "| `%s` | %s | %s | %s |\n", x->name, type_name(x->type),
                    x->unit ? x->unit : "", x->description);
        }
        fprintf(out, "\n");
    }
}

/* ---- writing ---- */

static int describe(hid_t ds, const struct runfile_field *f)
{
    const char *d = f->description;
    if (f->unit && rf_write_attr(ds, "unit", RUNFILE_STRING, &f->unit) < 0)
        return -1;
    return rf_write_attr(ds, "description", RUNFILE_STRING, &d);
}

/* Column f of n structs of size stride at base, as a 1-D dataset in grp. */
static int write_column(hid_t grp, const struct runfile_field *f, const void *base, size_t stride,
                        size_t n)
{
    size_t rs = rf_row_size(f->type);
    unsigned char *buf = xmalloc(n * rs + 1);
    for (size_t i = 0; i < n; i++)
        rf_to_row(f->type, (const char *)base + i * stride + f->offset, buf + i * rs);
    hsize_t dims = n, max = H5S_UNLIMITED, chunk = n < 1 ? 1 : n < 4096 ? n : 4096;
    hid_t space = H5Screate_simple(1, &dims, &max);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &chunk);
    if (f->type != RUNFILE_STRING) {
        H5Pset_shuffle(dcpl);
        H5Pset_deflate(dcpl, ACCEL_RF_DEFLATE_LEVEL);
    }
    hid_t ft = rf_file_type(f->type), mt = rf_mem_type(f->type);
    hid_t ds = H5Dcreate2(grp, f->name, ft, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    int rc = ds < 0 ? -1 : 0;
    if (rc == 0 && n > 0 && H5Dwrite(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
        rc = -1;
    if (rc == 0)
        rc = describe(ds, f);
    if (ds >= 0)
        H5Dclose(ds);
    H5Tclose(ft);
    H5Tclose(mt);
    H5Pclose(dcpl);
    H5Sclose(space);
    free(buf);
    return rc;
}

static int write_group(hid_t file, const struct runfile_table *t, const void *base, size_t stride,
                       size_t n)
{
    hid_t g = H5Gcreate2(file, t->where, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < t->count && rc == 0; i++)
        rc = write_column(g, &t->fields[i], base, stride, n);
    H5Gclose(g);
    return rc;
}

static int write_everything(hid_t file, const struct accel_record *r)
{
    const struct runfile_table *t = &accel_runfile_root_table;
    for (size_t i = 0; i < t->count; i++) {
        const struct runfile_field *f = &t->fields[i];
        if (rf_write_attr(file, f->name, f->type, (const char *)r + f->offset) < 0)
            return -1;
    }
    if (write_group(file, &accel_runfile_app_table, r->app, sizeof(r->app[0]), r->napps) < 0 ||
        write_group(file, &accel_runfile_query_table, r->queries, sizeof(r->queries[0]),
                    r->nqueries) < 0 ||
        write_group(file, &accel_runfile_task_table, r->tasks, sizeof(r->tasks[0]), r->ntasks) < 0)
        return -1;
    return 0;
}

static char *now_iso8601(void)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    char buf[32];
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return xstrdup(buf);
}

int accel_runfile_write(const char *path, const struct accel_record *r, char *err, size_t errlen)
{
    rf_quiet();
    if (runfile_refuse_existing(path, err, errlen) != 0)
        return -1;
    if (r->napps < 1 || r->napps > ACCEL_MAX_APPS)
        return rf_fail(err, errlen, "%s: %u applications (1 to %d)", path, r->napps,
                       ACCEL_MAX_APPS);
    struct accel_record w = *r;
    w.version = ACCEL_RUNFILE_VERSION;
    char *created = now_iso8601();
    w.created = created;
    w.corun_version = r->corun_version ? r->corun_version : (char *)PACKAGE_VERSION;
    const char *none = "";
    char **strings[] = {&w.scenario_text, &w.scenario_path, &w.scenario_name, &w.gpu_preset,
                        &w.predictor};
    for (size_t i = 0; i < CORUN_ARRAY_LEN(strings); i++)
        if (!*strings[i])
            *strings[i] = (char *)none;
    char *tmp = rf_partial_name(path, 0);
    unlink(tmp);
    /* The system's reason when the file cannot be made (HDF5 says only "unknown error"). */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd < 0) {
        rf_fail(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        free(tmp);
        free(created);
        return -1;
    }
    close(fd);
    unlink(tmp);
    /* The 1.10 format, as spatial run files: its superblock records the end of the file, so a
     * reader tells a truncated copy before HDF5 reads it. Written through the recorder's guard
     * driver (runfile_vfd.c): a write that fails (a full disk) is reported, not left to HDF5,
     * which cannot close a file whose flush failed and crashes at exit. */
    struct rf_guard guard = {.driver = H5I_INVALID_HID};
    hid_t fapl = rf_guard_fapl(&guard);
    hid_t file = H5I_INVALID_HID;
    if (fapl >= 0) {
        H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
        file = H5Fcreate(tmp, H5F_ACC_EXCL, H5P_DEFAULT, fapl);
        H5Pclose(fapl);
    }
    int rc = 0;
    if (file < 0 || guard.failed) {
        char why[256];
        if (guard.failed)
            snprintf(why, sizeof why, "%s", guard.reason);
        else
            rf_h5_reason(why, sizeof why);
        if (file >= 0)
            H5Fclose(file);
        rc = rf_fail(err, errlen, "%s: cannot create: %s", path, why);
    } else {
        char why[256] = "";
        if (write_everything(file, &w) < 0)
            rf_h5_reason(why, sizeof why);
        if (H5Fclose(file) < 0 && !why[0])
            rf_h5_reason(why, sizeof why);
        if (guard.failed) /* the first failed write: the reason HDF5 gives after it is vaguer */
            snprintf(why, sizeof why, "%s", guard.reason);
        if (why[0])
            rc = rf_fail(err, errlen, "%s: cannot write: %s", path, why);
        else if (link(tmp, path) != 0) {
            struct stat st;
            if (errno == EEXIST || stat(path, &st) == 0)
                rc = rf_fail(err, errlen, "%s: already exists; a run file is never overwritten",
                             path);
            else if (rename(tmp, path) != 0) /* a file system without hard links */
                rc = rf_fail(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        }
    }
    rf_guard_done(&guard);
    H5Eclear2(H5E_DEFAULT);
    unlink(tmp);
    free(tmp);
    free(created);
    return rc;
}

void accel_record_done(struct accel_record *r)
{
    const struct runfile_table *t = &accel_runfile_root_table;
    for (size_t i = 0; i < t->count; i++)
        if (t->fields[i].type == RUNFILE_STRING)
            free(*(char **)((char *)r + t->fields[i].offset));
    for (unsigned a = 0; a < r->napps && a < ACCEL_MAX_APPS; a++)
        free(r->app[a].name);
    free(r->queries);
    free(r->tasks);
    memset(r, 0, sizeof(*r));
}
