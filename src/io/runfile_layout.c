/* runfile_layout — the datasets of a new run file: the header's attributes, /kernels, the
 * per-kernel and system series, the events, the partition and the counters that commit each
 * append (docs/runfile.md). runfile_write.c creates the file and appends to it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/util.h"
#include "runfile_internal.h"

int rf_write_attr(hid_t obj, const char *name, enum runfile_type t, const void *value)
{
    hid_t ft = rf_file_type(t), mt = rf_mem_type(t);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, ft, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t rc = a < 0 ? -1 : H5Awrite(a, mt, value);
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(space);
    H5Tclose(ft);
    H5Tclose(mt);
    return rc < 0 ? -1 : 0;
}

static int write_string_attr(hid_t obj, const char *name, const char *value)
{
    return rf_write_attr(obj, name, RUNFILE_STRING, &value);
}

/* The "unit" and "description" attributes every dataset carries. */
static int describe(hid_t ds, const char *unit, const char *description)
{
    if (unit && write_string_attr(ds, "unit", unit) < 0)
        return -1;
    return write_string_attr(ds, "description", description);
}

static int write_header(hid_t file, const struct runfile_header *h)
{
    const struct runfile_table *t = &runfile_header_table;
    for (size_t i = 0; i < t->count; i++)
        if (rf_write_attr(file, t->fields[i].name, t->fields[i].type,
                          (const char *)h + t->fields[i].offset) < 0)
            return -1;
    return 0;
}

/* Values never written read as missing: NaN for floats, 0 (or "") for the rest. */
static void set_fill_value(hid_t dcpl, hid_t ftype)
{
    if (H5Tget_class(ftype) == H5T_FLOAT) {
        double nan = NAN;
        H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &nan);
    } else {
        static const unsigned char zeros[RUNFILE_TEXT_MAX];
        if (H5Tget_size(ftype) <= sizeof(zeros))
            H5Pset_fill_value(dcpl, ftype, zeros);
    }
}

int rf_write_kernel_rows(struct runfile *rf, unsigned first, unsigned n)
{
    _Static_assert(RUNFILE_NAME_MAX >= sizeof(double), "a kernel value fits a name's room");
    const struct runfile_table *t = &runfile_kernel_table;
    for (size_t i = 0; i < t->count; i++) {
        const struct runfile_field *f = &t->fields[i];
        size_t size = f->type == RUNFILE_NAME ? RUNFILE_NAME_MAX : rf_value_size(f->type);
        unsigned char buf[GPU_MAX_KERNELS * RUNFILE_NAME_MAX] = {0};
        for (unsigned k = 0; k < n; k++) {
            const char *value = (const char *)&rf->hdr.kernels[first + k] + f->offset;
            if (f->type == RUNFILE_NAME) /* checked to fit, with its NUL */
                memcpy(buf + k * size, *(char *const *)value, strlen(*(char *const *)value));
            else
                memcpy(buf + k * size, value, size);
        }
        hsize_t start = first, count = n;
        hid_t fs = H5Dget_space(rf->kernels[i]), ms = H5Screate_simple(1, &count, NULL);
        hid_t mt = rf_mem_type(f->type);
        herr_t rc = fs < 0 || ms < 0 ? -1 : 0;
        if (rc >= 0)
            rc = H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL);
        if (rc >= 0)
            rc = H5Dwrite(rf->kernels[i], mt, ms, fs, H5P_DEFAULT, buf);
        if (rc < 0)
            rf_h5_reason(rf->why, sizeof(rf->why));
        H5Tclose(mt);
        if (ms >= 0)
            H5Sclose(ms);
        if (fs >= 0)
            H5Sclose(fs);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* /kernels: one small dataset per field of the kernel table, [kernels] growing up to
 * GPU_MAX_KERNELS, one kernel per chunk so that adding one never rewrites another's. */
static int make_kernels(struct runfile *rf)
{
    const struct runfile_table *t = &runfile_kernel_table;
    hid_t g = H5Gcreate2(rf->file, t->where + 1, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return -1;
    hsize_t n = rf->hdr.nkernels, max = GPU_MAX_KERNELS, chunk = 1;
    hid_t space = H5Screate_simple(1, &n, &max);
    int rc = 0;
    for (size_t i = 0; i < t->count && rc == 0; i++) {
        const struct runfile_field *f = &t->fields[i];
        hid_t ft = rf_file_type(f->type);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcpl, 1, &chunk);
        set_fill_value(dcpl, ft);
        rf->kernels[i] = H5Dcreate2(g, f->name, ft, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        if (rf->kernels[i] < 0 || describe(rf->kernels[i], f->unit, f->description) < 0)
            rc = -1;
        H5Pclose(dcpl);
        H5Tclose(ft);
    }
    H5Sclose(space);
    H5Gclose(g);
    return rc < 0 ? -1 : rf_write_kernel_rows(rf, 0, rf->hdr.nkernels);
}

/* An empty dataset of shape [0 x width] (width 0: [0]) that grows by rows, and in its second
 * dimension up to max_width. */
static hid_t make_series(hid_t loc, const char *name, hid_t ftype, hsize_t width, hsize_t max_width,
                         hsize_t rows, const char *unit, const char *description)
{
    int rank = width ? 2 : 1;
    hsize_t dims[2] = {0, width}, maxdims[2] = {H5S_UNLIMITED, max_width};
    hsize_t chunk[2] = {rows, max_width};
    hid_t space = H5Screate_simple(rank, dims, maxdims);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, rank, chunk);
    H5Pset_shuffle(dcpl);
    H5Pset_deflate(dcpl, RF_DEFLATE_LEVEL);
    set_fill_value(dcpl, ftype);
    hid_t ds = H5Dcreate2(loc, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    if (ds >= 0 && describe(ds, unit, description) < 0) {
        H5Dclose(ds);
        return H5I_INVALID_HID;
    }
    return ds;
}

static int make_table_series(hid_t file, const struct runfile_table *t, hsize_t width,
                             hsize_t max_width, hid_t *out)
{
    hid_t g = H5Gcreate2(file, t->where + 1, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < t->count && rc == 0; i++) {
        hid_t ft = rf_file_type(t->fields[i].type);
        out[i] = make_series(g, t->fields[i].name, ft, width, max_width, RF_CHUNK_ROWS,
                             t->fields[i].unit, t->fields[i].description);
        rc = out[i] < 0 ? -1 : 0;
        H5Tclose(ft);
    }
    H5Gclose(g);
    return rc;
}

static hid_t make_count(hid_t file, const char *name, uint64_t value, const char *description)
{
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    /* Allocated now, so committing a count later is one in-place write of 8 bytes. */
    H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
    hid_t ds = H5Dcreate2(file, name, H5T_STD_U64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    if (ds >= 0 && (H5Dwrite(ds, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, &value) < 0 ||
                    describe(ds, NULL, description) < 0)) {
        H5Dclose(ds);
        return H5I_INVALID_HID;
    }
    return ds;
}

static int make_events(struct runfile *rf)
{
    hid_t g = H5Gcreate2(rf->file, RF_EVENTS, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return -1;
    hid_t u64 = H5Tcopy(H5T_STD_U64LE);
    hid_t kind = rf_fixed_string(RUNFILE_KIND_MAX), text = rf_fixed_string(RUNFILE_TEXT_MAX);
    const hid_t types[RF_EV_COUNT] = {u64, u64, kind, text};
    const char *const units[RF_EV_COUNT] = {"epochs", "cycles", NULL, NULL};
    const char *const desc[RF_EV_COUNT] = {
        "epoch the event belongs to", "core cycle of the event",
        "what changed: predictor, allocator, parameter, repartition, mix, note, ...",
        "what happened and why"};
    int rc = 0;
    for (int i = 0; i < RF_EV_COUNT && rc == 0; i++) {
        rf->events[i] =
            make_series(g, rf_event_names[i], types[i], 0, 0, RF_CHUNK_ROWS, units[i], desc[i]);
        rc = rf->events[i] < 0 ? -1 : 0;
    }
    H5Tclose(u64);
    H5Tclose(kind);
    H5Tclose(text);
    H5Gclose(g);
    return rc;
}

int rf_make_layout(struct runfile *rf)
{
    const struct runfile_header *h = &rf->hdr;
    /* /per_kernel rows are chunks of GPU_MAX_KERNELS columns, so that adding a kernel only
     * widens the extent: no chunk is rewritten, and earlier rows read the fill values. */
    if (write_header(rf->file, h) < 0 || make_kernels(rf) < 0 ||
        make_table_series(rf->file, &runfile_per_kernel_table, h->nkernels, GPU_MAX_KERNELS,
                          rf->per_kernel) < 0 ||
        make_table_series(rf->file, &runfile_system_table, 0, 0, rf->system) < 0 ||
        make_events(rf) < 0)
        return -1;
    hid_t i16 = H5Tcopy(H5T_STD_I16LE);
    rf->partition = make_series(rf->file, RF_PARTITION, i16, h->sms, h->sms, RF_CHUNK_ROWS, NULL,
                                "owner of each SM: kernel index, -1 idle, -2 power-gated");
    H5Tclose(i16);
    if (rf->partition < 0)
        return -1;
    rf->epoch_count = make_count(rf->file, RF_EPOCH_COUNT, 0, "complete epochs");
    rf->event_count = make_count(rf->file, RF_EVENT_COUNT, 0, "complete events");
    rf->kernel_count = make_count(rf->file, RF_KERNEL_COUNT, h->nkernels,
                                  "complete kernels: /kernels entries and /per_kernel columns");
    return rf->epoch_count < 0 || rf->event_count < 0 || rf->kernel_count < 0 ? -1 : 0;
}
