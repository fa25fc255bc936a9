/* runfile_write — recording: the file is built under a temporary name, switched to SWMR write
 * mode and only then linked at its path, so that whatever is at the path is a complete file;
 * every append is flushed and then committed by bumping a counter (docs/runfile.md). The
 * datasets it is built with are laid out in runfile_layout.c. */
#define _GNU_SOURCE /* F_OFD_SETLK, F_OFD_GETLK */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "corun/columns.h"
#include "corun/tempfile.h"
#include "corun/util.h"
#include "runfile_internal.h"

/* Why the last HDF5 call failed: the guard knows when a write did. */
static void reason(struct runfile *rf, char *buf, size_t len)
{
    if (rf->guard.failed)
        snprintf(buf, len, "%s", rf->guard.reason);
    else if (rf->why[0])
        snprintf(buf, len, "%s", rf->why);
    else
        rf_h5_reason(buf, len);
    H5Eclear2(H5E_DEFAULT);
}

/* ---- the header ---- */

/* Kernel k (index i) can be recorded. */
static int check_kernel(const char *path, const struct runfile_kernel *k, unsigned i, char *err,
                        size_t errlen)
{
    if (!k->name || !k->name[0])
        return rf_fail(err, errlen, "%s: kernel %u has no name", path, i);
    size_t len = strlen(k->name);
    if (len >= RUNFILE_NAME_MAX)
        return rf_fail(err, errlen,
                       "%s: kernel %u: the name \"%s\" has %zu bytes, a run file keeps at most "
                       "%d; shorten it",
                       path, i, k->name, len, RUNFILE_NAME_MAX - 1);
    if (k->priority != 0 && k->priority != 1)
        return rf_fail(err, errlen, "%s: kernel %s: priority %d is neither 0 (low) nor 1 (high)",
                       path, k->name, k->priority);
    return 0;
}

static int check_header(const char *path, const struct runfile_header *h, char *err, size_t errlen)
{
    if (h->nkernels < 1 || h->nkernels > GPU_MAX_KERNELS)
        return rf_fail(err, errlen, "%s: cannot record %u kernels (1 to %d)", path, h->nkernels,
                       GPU_MAX_KERNELS);
    if (h->sms < 1 || h->sms > RUNFILE_MAX_SMS)
        return rf_fail(err, errlen, "%s: cannot record %u SMs (1 to %d)", path, h->sms,
                       RUNFILE_MAX_SMS);
    for (unsigned k = 0; k < h->nkernels; k++)
        if (check_kernel(path, &h->kernels[k], k, err, errlen) < 0)
            return -1;
    return 0;
}

static void copy_strings(const struct runfile_table *t, void *target)
{
    for (size_t i = 0; i < t->count; i++)
        if (rf_is_string(t->fields[i].type)) {
            char **slot = (char **)((char *)target + t->fields[i].offset);
            *slot = xstrdup(*slot ? *slot : "");
        }
}

/* dst: a copy of src that owns its strings, with the fields runfile_create sets. */
static void copy_header(struct runfile_header *dst, const struct runfile_header *src)
{
    *dst = *src;
    dst->schema_version = RUNFILE_SCHEMA_VERSION;
    dst->schema_minor = RUNFILE_SCHEMA_MINOR;
    dst->nkernels_start = src->nkernels;
    if (!dst->corun_version)
        dst->corun_version = PACKAGE_VERSION;
    char created[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", &tm);
    dst->created = created;
    copy_strings(&runfile_header_table, dst);
    for (unsigned k = 0; k < GPU_MAX_KERNELS; k++) {
        if (k >= dst->nkernels)
            memset(&dst->kernels[k], 0, sizeof(dst->kernels[k]));
        else
            copy_strings(&runfile_kernel_table, &dst->kernels[k]);
    }
}

/* Put the finished file tmp at path without replacing anything that appeared there since. */
static int publish(const char *tmp, const char *path, char *err, size_t errlen)
{
    if (link(tmp, path) == 0) {
        unlink(tmp);
        return 0;
    }
    if (errno == EEXIST)
        return rf_fail(err, errlen, "%s: already exists; a run file is never overwritten", path);
    /* A file system without hard links: rename, which cannot refuse to replace. */
    struct stat st;
    if (stat(path, &st) == 0)
        return rf_fail(err, errlen, "%s: already exists; a run file is never overwritten", path);
    if (rename(tmp, path) != 0)
        return rf_fail(err, errlen, "%s: cannot create: %s", path, strerror(errno));
    return 0;
}

/* An open file description's read lock on the whole file, held while it is recorded: unlike
 * a process's fcntl lock it is not dropped when the process closes another descriptor of the
 * file, and it goes when the recorder dies. -1 where the file system has none (the recording
 * goes on; runfile_being_recorded then cannot tell). */
static int hold_live_lock(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct flock fl = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    if (fd >= 0 && fcntl(fd, F_OFD_SETLK, &fl) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

int runfile_being_recorded(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    int rc = fd >= 0 && fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
    if (fd >= 0)
        close(fd);
    return rc;
}

char *rf_partial_name(const char *path, unsigned n)
{
    return tempfile_name(path, "partial", n);
}

/* A new empty file beside path, named by rf_partial_name (0666 less the umask, unlike
 * mkstemp's 0600); NULL with a message when the directory refuses it. */
static char *make_temp(const char *path, char *err, size_t errlen)
{
    for (unsigned n = 0;; n++) {
        char *tmp = rf_partial_name(path, n);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd >= 0) {
            close(fd);
            return tmp;
        }
        free(tmp);
        if (errno != EEXIST || n == 100) {
            rf_fail(err, errlen, "%s: cannot create: %s", path, strerror(errno));
            return NULL;
        }
    }
}

struct runfile *runfile_create(const char *path, const struct runfile_header *h, char *err,
                               size_t errlen)
{
    rf_quiet();
    if (check_header(path, h, err, errlen) < 0)
        return NULL;
    if (runfile_refuse_existing(path, err, errlen) != 0)
        return NULL;
    char *tmp = make_temp(path, err, errlen);
    if (!tmp)
        return NULL;

    struct runfile *rf = rf_new(path, true);
    copy_header(&rf->hdr, h);
    hid_t fapl = rf_guard_fapl(&rf->guard);
    if (fapl >= 0) {
        /* SWMR needs the 1.10 format; file locks are skipped where the file system has none. */
        H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
        H5Pset_file_locking(fapl, 1, 1);
        /* File space in pages, so that a kill cannot cut a block of metadata in two
         * (RF_PAGE_BYTES); the free-space managers are not saved in the file (persist 0), as
         * with HDF5's default strategy. */
        hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
        if (fcpl >= 0 && (H5Pset_file_space_strategy(fcpl, H5F_FSPACE_STRATEGY_PAGE, 0, 1) < 0 ||
                          H5Pset_file_space_page_size(fcpl, RF_PAGE_BYTES) < 0)) {
            H5Pclose(fcpl);
            fcpl = H5I_INVALID_HID;
        }
        if (fcpl >= 0) {
            rf->file = H5Fcreate(tmp, H5F_ACC_TRUNC, fcpl, fapl);
            H5Pclose(fcpl);
        }
        H5Pclose(fapl);
    }
    /* SWMR is not started on a file a write already failed in (a nearly full disk): HDF5 then
     * could not close it, and crashed closing it again at exit (SIGSEGV after the message). */
    int rc = rf->file < 0 || rf_make_layout(rf) < 0 || rf->guard.failed ||
                     H5Fstart_swmr_write(rf->file) < 0 || rf->guard.failed
                 ? -1
                 : 0;
    if (rc < 0) {
        char why[256];
        reason(rf, why, sizeof(why));
        rf_fail(err, errlen, "%s: cannot create: %s", path, why);
    } else {
        rf->live_fd = hold_live_lock(tmp); /* before the file is at path: never seen unheld */
        rc = publish(tmp, path, err, errlen);
    }
    if (rc < 0) {
        rf_free(rf);
        H5Eclear2(H5E_DEFAULT);
        unlink(tmp);
        rf = NULL;
    }
    free(tmp);
    return rf;
}

/* ---- appending ---- */

/* Grow ds by one row (row `row`, width values; width 0: a 1-D dataset) and write buf there. */
static int append_row(struct runfile *rf, hid_t ds, uint64_t row, hsize_t width, hid_t mem_type,
                      const void *buf)
{
    hsize_t dims[2] = {row + 1, width};
    if (H5Dset_extent(ds, dims) < 0) {
        rf_h5_reason(rf->why, sizeof(rf->why));
        return -1;
    }
    return rf_transfer_row(rf, ds, row, width, mem_type, (void *)buf, true);
}

/* Flush everything appended, then make it count: n complete rows. A crash before the count
 * is on disk leaves the rows uncounted, never counted rows unwritten. */
static int commit(struct runfile *rf, hid_t count_ds, uint64_t n)
{
    if (H5Fflush(rf->file, H5F_SCOPE_LOCAL) < 0 ||
        (!rf->guard.failed &&
         (H5Dwrite(count_ds, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, &n) < 0 ||
          H5Dflush(count_ds) < 0))) {
        rf_h5_reason(rf->why, sizeof(rf->why));
        return -1;
    }
    return rf->guard.failed ? -1 : 0;
}

/* Recording stops on the first failed write: HDF5's state is then unknown. */
static int stop(struct runfile *rf, const char *what, char *err, size_t errlen)
{
    char why[256];
    reason(rf, why, sizeof(why));
    free(rf->failed);
    rf->failed = xasprintf("%s: cannot record %s: %s; recording stopped, and the file keeps its "
                           "first %llu epochs and %llu events",
                           rf->path, what, why, (unsigned long long)rf->nepochs,
                           (unsigned long long)rf->nevents);
    return rf_fail(err, errlen, "%s", rf->failed);
}

static int check_writable(const struct runfile *rf, char *err, size_t errlen)
{
    if (!rf->writing)
        return rf_fail(err, errlen, "%s: opened for reading; cannot append", rf->path);
    if (rf->failed)
        return rf_fail(err, errlen, "%s (earlier)", rf->failed);
    return 0;
}

static int check_epoch(const struct runfile *rf, const struct runfile_epoch *e, char *err,
                       size_t errlen)
{
    const struct runfile_header *h = &rf->hdr;
    if (e->nkernels != h->nkernels)
        return rf_fail(err, errlen, "%s: epoch %llu has %u kernels, the run has %u", rf->path,
                       (unsigned long long)rf->nepochs, e->nkernels, h->nkernels);
    if (e->nsms != h->sms)
        return rf_fail(err, errlen, "%s: epoch %llu has %u SMs, the run has %u", rf->path,
                       (unsigned long long)rf->nepochs, e->nsms, h->sms);
    for (unsigned k = 0; k < e->nkernels; k++)
        if (e->k[k].in_mix > 1)
            return rf_fail(err, errlen, "%s: epoch %llu: kernel %u has in_mix %u (0 or 1)",
                           rf->path, (unsigned long long)rf->nepochs, k, e->k[k].in_mix);
    for (unsigned s = 0; s < e->nsms; s++)
        if (e->owner[s] < GPU_SM_GATED || e->owner[s] >= (int)h->nkernels)
            return rf_fail(err, errlen, "%s: epoch %llu: SM %u has owner %d (-2 to %u)", rf->path,
                           (unsigned long long)rf->nepochs, s, e->owner[s], h->nkernels - 1);
    return 0;
}

static int append_table(struct runfile *rf, hid_t *ds, const struct runfile_table *t, uint64_t row,
                        unsigned width, const void *base, size_t stride)
{
    unsigned n = width ? width : 1;
    for (size_t i = 0; i < t->count; i++) {
        const struct runfile_field *f = &t->fields[i];
        size_t size = rf_row_size(f->type);
        unsigned char buf[RF_ROW_MAX];
        for (unsigned k = 0; k < n; k++)
            rf_to_row(f->type, (const char *)base + k * stride + f->offset, buf + k * size);
        hid_t mt = rf_mem_type(f->type);
        int rc = append_row(rf, ds[i], row, width, mt, buf);
        H5Tclose(mt);
        if (rc < 0)
            return -1;
    }
    return 0;
}

int runfile_append_epoch(struct runfile *rf, const struct runfile_epoch *e, char *err,
                         size_t errlen)
{
    rf_quiet();
    if (check_writable(rf, err, errlen) < 0 || check_epoch(rf, e, err, errlen) < 0)
        return -1;
    uint64_t row = rf->nepochs;
    int16_t owner[RUNFILE_MAX_SMS]; /* as stored: see rf_to_row */
    for (unsigned s = 0; s < e->nsms; s++)
        owner[s] = (int16_t)e->owner[s];
    if (append_table(rf, rf->per_kernel, &runfile_per_kernel_table, row, e->nkernels, e->k,
                     sizeof(e->k[0])) < 0 ||
        append_table(rf, rf->system, &runfile_system_table, row, 0, e, 0) < 0 ||
        append_row(rf, rf->partition, row, e->nsms, H5T_NATIVE_INT16, owner) < 0 ||
        commit(rf, rf->epoch_count, row + 1) < 0) {
        char what[48]; /* numbered from 1, as corun prints epochs */
        snprintf(what, sizeof(what), "epoch %llu", (unsigned long long)row + 1);
        return stop(rf, what, err, errlen);
    }
    rf->nepochs = row + 1;
    return 0;
}

/* Widen /kernels and /per_kernel to n kernels, the last one new (already in rf->hdr). */
static int grow_kernels(struct runfile *rf, unsigned n)
{
    hsize_t dims[2] = {rf->nepochs, n};
    for (size_t i = 0; i < runfile_kernel_table.count; i++)
        if (H5Dset_extent(rf->kernels[i], &dims[1]) < 0) {
            rf_h5_reason(rf->why, sizeof(rf->why));
            return -1;
        }
    if (rf_write_kernel_rows(rf, n - 1, 1) < 0)
        return -1;
    for (size_t i = 0; i < runfile_per_kernel_table.count; i++)
        if (H5Dset_extent(rf->per_kernel[i], dims) < 0) {
            rf_h5_reason(rf->why, sizeof(rf->why));
            return -1;
        }
    return 0;
}

int runfile_add_kernel(struct runfile *rf, const struct runfile_kernel *k, char *err, size_t errlen)
{
    rf_quiet();
    if (check_writable(rf, err, errlen) < 0)
        return -1;
    unsigned n = rf->hdr.nkernels;
    if (n >= GPU_MAX_KERNELS)
        return rf_fail(err, errlen,
                       "%s: cannot add kernel %s: the run has had %d kernels, as many as a run "
                       "file holds",
                       rf->path, k->name ? k->name : "", GPU_MAX_KERNELS);
    if (check_kernel(rf->path, k, n, err, errlen) < 0)
        return -1;
    rf->hdr.kernels[n] = *k;
    copy_strings(&runfile_kernel_table, &rf->hdr.kernels[n]);
    if (grow_kernels(rf, n + 1) < 0 || commit(rf, rf->kernel_count, n + 1) < 0) {
        char what[64];
        snprintf(what, sizeof(what), "kernel %s", k->name);
        return stop(rf, what, err, errlen);
    }
    rf->hdr.nkernels = n + 1;
    return 0;
}

/* Copy src into dst (size bytes with the NUL, the rest zeroed), cut between characters. */
static void copy_utf8(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src);
    util_utf8_whole(dst);
    size_t n = strlen(dst);
    memset(dst + n, 0, size - n);
}

int runfile_append_event(struct runfile *rf, uint64_t epoch, uint64_t cycle, const char *kind,
                         const char *text, char *err, size_t errlen)
{
    rf_quiet();
    if (check_writable(rf, err, errlen) < 0)
        return -1;
    size_t kind_len = kind ? strlen(kind) : 0;
    if (kind_len < 1 || kind_len >= RUNFILE_KIND_MAX)
        return rf_fail(err, errlen, "%s: event kind \"%s\": expected 1 to %d bytes", rf->path,
                       kind ? kind : "", RUNFILE_KIND_MAX - 1);
    char kind_buf[RUNFILE_KIND_MAX], text_buf[RUNFILE_TEXT_MAX];
    copy_utf8(kind_buf, sizeof(kind_buf), kind);
    copy_utf8(text_buf, sizeof(text_buf), text ? text : "");
    hid_t kt = rf_fixed_string(RUNFILE_KIND_MAX), tt = rf_fixed_string(RUNFILE_TEXT_MAX);
    uint64_t row = rf->nevents;
    int rc =
        append_row(rf, rf->events[RF_EV_EPOCH], row, 0, H5T_NATIVE_UINT64, &epoch) < 0 ||
                append_row(rf, rf->events[RF_EV_CYCLE], row, 0, H5T_NATIVE_UINT64, &cycle) < 0 ||
                append_row(rf, rf->events[RF_EV_KIND], row, 0, kt, kind_buf) < 0 ||
                append_row(rf, rf->events[RF_EV_TEXT], row, 0, tt, text_buf) < 0 ||
                commit(rf, rf->event_count, row + 1) < 0
            ? -1
            : 0;
    H5Tclose(kt);
    H5Tclose(tt);
    if (rc < 0) {
        char what[48];
        snprintf(what, sizeof(what), "event %llu", (unsigned long long)row);
        return stop(rf, what, err, errlen);
    }
    rf->nevents = row + 1;
    return 0;
}
