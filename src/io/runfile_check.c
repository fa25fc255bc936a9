/* runfile_check — what the reader refuses in a file that HDF5 reads without complaint: values
 * no writer makes (runfile_write.c checks the same before writing). A replay, an export or a
 * branch then only ever sees valid data: owners that index the kernels, flags of 0 and 1,
 * finite numbers (NaN where a value is undefined), counters that are counts. */
#include <math.h>
#include <stdio.h>

#include "runfile_internal.h"

/* A commit counter into *n: 0 when its value is unreadable, so that nothing uncertain is used
 * (a crash may tear it), but -1 with a message when it is plainly not a counter: not an
 * integer, negative, or above max, none of which the writer makes. */
int rf_read_count(const struct runfile *rf, hid_t ds, const char *name, uint64_t max, uint64_t *n,
                  char *err, size_t errlen)
{
    *n = 0;
    hid_t ft = H5Dget_type(ds);
    H5T_class_t cls = ft < 0 ? H5T_NO_CLASS : H5Tget_class(ft);
    H5T_sign_t sign = cls == H5T_INTEGER ? H5Tget_sign(ft) : H5T_SGN_ERROR;
    if (ft >= 0)
        H5Tclose(ft);
    if (cls != H5T_INTEGER)
        return rf_fail(err, errlen,
                       "%s: damaged run file: /%s is not an integer (expected a count)", rf->path,
                       name);
    int64_t v = 0;
    if (sign == H5T_SGN_2) {
        if (H5Dread(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) < 0)
            return 0;
        if (v < 0)
            return rf_fail(err, errlen, "%s: damaged run file: /%s is %lld (expected 0 to %llu)",
                           rf->path, name, (long long)v, (unsigned long long)max);
        *n = (uint64_t)v;
    } else if (H5Dread(ds, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, n) < 0) {
        *n = 0;
        return 0;
    }
    if (*n > max)
        return rf_fail(err, errlen, "%s: damaged run file: /%s is %llu (expected 0 to %llu)",
                       rf->path, name, (unsigned long long)*n, (unsigned long long)max);
    return 0;
}

/* A double of a table that is infinite: NaN means "not defined" in a run file, but no writer
 * records an infinity, and a reader that scales an axis to one would never finish. */
static const char *infinite_field(const struct runfile_table *t, const void *base)
{
    for (size_t i = 0; i < t->count; i++)
        if (t->fields[i].type == RUNFILE_DOUBLE &&
            isinf(*(const double *)((const char *)base + t->fields[i].offset)))
            return t->fields[i].name;
    return NULL;
}

/* The kernels' parameters are what a scenario accepts: finite. */
int rf_check_kernels(const struct runfile *rf, char *err, size_t errlen)
{
    for (unsigned k = 0; k < rf->hdr.nkernels; k++) {
        const char *inf = infinite_field(&runfile_kernel_table, &rf->hdr.kernels[k]);
        if (inf)
            return rf_fail(err, errlen,
                           "%s: damaged run file: /kernels/%s[%u] is infinite (expected a finite "
                           "number)",
                           rf->path, inf, k);
    }
    return 0;
}

/* What the writer would have refused in epoch i (runfile_write.c, check_epoch). */
int rf_check_epoch(const struct runfile *rf, uint64_t i, const struct runfile_epoch *e, char *err,
                   size_t errlen)
{
    const char *path = rf->path;
    unsigned long long row = (unsigned long long)i;
    for (unsigned k = 0; k < e->nkernels; k++) {
        if (e->k[k].in_mix > 1)
            return rf_fail(err, errlen,
                           "%s: damaged run file: /per_kernel/in_mix[%llu][%u] is %u (expected 0 "
                           "or 1)",
                           path, row, k, e->k[k].in_mix);
        const char *inf = infinite_field(&runfile_per_kernel_table, &e->k[k]);
        if (inf)
            return rf_fail(err, errlen,
                           "%s: damaged run file: /per_kernel/%s[%llu][%u] is infinite (expected "
                           "a finite number, or NaN when undefined)",
                           path, inf, row, k);
    }
    const char *inf = infinite_field(&runfile_system_table, e);
    if (inf)
        return rf_fail(err, errlen,
                       "%s: damaged run file: /system/%s[%llu] is infinite (expected a finite "
                       "number, or NaN when undefined)",
                       path, inf, row);
    /* A kernel whose addition a crash left uncommitted may own SMs: it is named in the file,
     * and GPU_MAX_KERNELS bounds every array an owner indexes. */
    unsigned named = rf->kernels_named > e->nkernels ? rf->kernels_named : e->nkernels;
    for (unsigned s = 0; s < e->nsms; s++)
        if (e->owner[s] < GPU_SM_GATED || e->owner[s] >= (int)named)
            return rf_fail(err, errlen,
                           "%s: damaged run file: /" RF_PARTITION "[%llu][%u] is %d (expected a "
                           "kernel index 0 to %u, -1 idle or -2 power-gated)",
                           path, row, s, e->owner[s], named - 1);
    return 0;
}
