/* runfile_rows — reading one epoch's or one event's rows of an open run file, checked against
 * what the file's header and counters allow (runfile_read.c opens the file). */
#include <stdio.h>
#include <string.h>

#include "runfile_internal.h"

static int row_failed(const struct runfile *rf, const char *what, uint64_t i, const char *dataset,
                      char *err, size_t errlen)
{
    return rf_fail(err, errlen,
                   "%s: damaged or truncated run file: cannot read %s %llu from %s: %s", rf->path,
                   what, (unsigned long long)i, dataset, rf->why);
}

static int read_table(struct runfile *rf, hid_t *ds, const struct runfile_table *t, uint64_t row,
                      unsigned width, void *base, size_t stride, char *err, size_t errlen)
{
    unsigned n = width ? width : 1;
    for (size_t i = 0; i < t->count; i++) {
        const struct runfile_field *f = &t->fields[i];
        if (ds[i] < 0)
            continue; /* absent from an older file: the caller fills it in */
        size_t size = rf_row_size(f->type);
        unsigned char buf[RF_ROW_MAX];
        hid_t mt = rf_mem_type(f->type);
        int rc = rf_transfer_row(rf, ds[i], row, width, mt, buf, false);
        H5Tclose(mt);
        if (rc < 0) {
            char name[96];
            snprintf(name, sizeof(name), "%s/%s", t->where, f->name);
            return row_failed(rf, "epoch", row, name, err, errlen);
        }
        for (unsigned k = 0; k < n; k++)
            rf_from_row(f->type, buf + k * size, (char *)base + k * stride + f->offset);
    }
    return 0;
}

int runfile_read_epoch(struct runfile *rf, uint64_t i, struct runfile_epoch *out, char *err,
                       size_t errlen)
{
    rf_quiet();
    if (i >= rf->nepochs)
        return rf_fail(err, errlen, "%s: no epoch %llu (the run has %llu)", rf->path,
                       (unsigned long long)i, (unsigned long long)rf->nepochs);
    memset(out, 0, sizeof(*out));
    out->nkernels = rf->hdr.nkernels;
    out->nsms = rf->hdr.sms;
    if (read_table(rf, rf->per_kernel, &runfile_per_kernel_table, i, out->nkernels, out->k,
                   sizeof(out->k[0]), err, errlen) < 0 ||
        read_table(rf, rf->system, &runfile_system_table, i, 0, out, 0, err, errlen) < 0)
        return -1;
    if (rf->per_kernel[rf_in_mix_field()] < 0)
        for (unsigned k = 0; k < out->nkernels; k++)
            out->k[k].in_mix = 1;
    /* pred_class and explain of an older file: memset left KERNEL_CLASS_NONE (0) and "". */
    int16_t owner[RUNFILE_MAX_SMS]; /* as stored: see rf_to_row */
    if (rf_transfer_row(rf, rf->partition, i, out->nsms, H5T_NATIVE_INT16, owner, false) < 0)
        return row_failed(rf, "epoch", i, "/" RF_PARTITION, err, errlen);
    for (unsigned s = 0; s < out->nsms; s++)
        out->owner[s] = owner[s];
    out->sys.cycles = out->cycles;
    return rf_check_epoch(rf, i, out, err, errlen);
}

int runfile_read_event(struct runfile *rf, uint64_t i, struct runfile_event *out, char *err,
                       size_t errlen)
{
    rf_quiet();
    if (i >= rf->nevents)
        return rf_fail(err, errlen, "%s: no event %llu (the run has %llu)", rf->path,
                       (unsigned long long)i, (unsigned long long)rf->nevents);
    memset(out, 0, sizeof(*out));
    hid_t kt = rf_fixed_string(RUNFILE_KIND_MAX), tt = rf_fixed_string(RUNFILE_TEXT_MAX);
    const hid_t types[RF_EV_COUNT] = {H5T_NATIVE_UINT64, H5T_NATIVE_UINT64, kt, tt};
    void *const slots[RF_EV_COUNT] = {&out->epoch, &out->cycle, out->kind, out->text};
    int rc = 0;
    for (int f = 0; f < RF_EV_COUNT && rc == 0; f++)
        if (rf_transfer_row(rf, rf->events[f], i, 0, types[f], slots[f], false) < 0) {
            char name[64];
            snprintf(name, sizeof(name), "/%s/%s", RF_EVENTS, rf_event_names[f]);
            rc = row_failed(rf, "event", i, name, err, errlen);
        }
    H5Tclose(kt);
    H5Tclose(tt);
    out->kind[RUNFILE_KIND_MAX - 1] = '\0';
    out->text[RUNFILE_TEXT_MAX - 1] = '\0';
    return rc;
}
