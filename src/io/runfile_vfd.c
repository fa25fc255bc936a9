/* runfile_vfd — the "guard" file driver the recorder writes through: HDF5's POSIX (sec2)
 * driver, except that the first failed write (a full disk, a file size limit) is remembered
 * instead of reported, and from then on nothing more reaches the file.
 *
 * Why: in HDF5 1.10 a flush that fails leaves the metadata cache unable to flush again, so the
 * file can never be closed and the library crashes at exit. Behind the guard HDF5 never sees a
 * failure; the recorder asks the guard after each flush, reports the error and stops, and the
 * file stays as the failure left it — like a crash at that moment, which readers handle.
 * Only public HDF5 calls are used (H5FDopen, H5FDwrite, ...), as HDF5's own "multi" driver
 * does. */
#include <stdlib.h>
#include <string.h>

#include "runfile_internal.h"

/* The driver's per-file info: where to report. */
struct guard_info {
    struct rf_guard *state;
};

struct guard_file {
    H5FD_t pub; /* filled by HDF5; must come first */
    H5FD_t *inner;
    struct rf_guard *state;
};

static struct guard_file *guard(const H5FD_t *f)
{
    return (struct guard_file *)f;
}

static void *guard_fapl_get(H5FD_t *f)
{
    struct guard_info *info = malloc(sizeof(*info));
    if (info)
        info->state = guard(f)->state;
    return info;
}

static void *guard_fapl_copy(const void *old)
{
    struct guard_info *info = malloc(sizeof(*info));
    if (info)
        memcpy(info, old, sizeof(*info));
    return info;
}

static herr_t guard_fapl_free(void *info)
{
    free(info);
    return 0;
}

static H5FD_t *guard_open(const char *name, unsigned flags, hid_t fapl, haddr_t maxaddr)
{
    const struct guard_info *info = H5Pget_driver_info(fapl);
    if (!info || !info->state)
        return NULL;
    hid_t inner_fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_sec2(inner_fapl);
    H5FD_t *inner = H5FDopen(name, flags, inner_fapl, maxaddr);
    H5Pclose(inner_fapl);
    if (!inner)
        return NULL;
    struct guard_file *g = calloc(1, sizeof(*g));
    if (!g) {
        H5FDclose(inner);
        return NULL;
    }
    g->inner = inner;
    g->state = info->state;
    return &g->pub;
}

static herr_t guard_close(H5FD_t *f)
{
    herr_t rc = H5FDclose(guard(f)->inner);
    free(guard(f));
    return rc;
}

static int guard_cmp(const H5FD_t *a, const H5FD_t *b)
{
    return H5FDcmp(guard(a)->inner, guard(b)->inner);
}

static herr_t guard_query(const H5FD_t *f, unsigned long *flags)
{
    if (!f) { /* asked of the driver itself: sec2's features, SWMR included */
        *flags = 0;
        return H5FDdriver_query(H5FD_SEC2, flags);
    }
    return H5FDquery(guard(f)->inner, flags) < 0 ? -1 : 0;
}

static haddr_t guard_get_eoa(const H5FD_t *f, H5FD_mem_t type)
{
    return H5FDget_eoa(guard(f)->inner, type);
}

static herr_t guard_set_eoa(H5FD_t *f, H5FD_mem_t type, haddr_t addr)
{
    return H5FDset_eoa(guard(f)->inner, type, addr);
}

static haddr_t guard_get_eof(const H5FD_t *f, H5FD_mem_t type)
{
    return H5FDget_eof(guard(f)->inner, type);
}

static herr_t guard_get_handle(H5FD_t *f, hid_t fapl, void **handle)
{
    return H5FDget_vfd_handle(guard(f)->inner, fapl, handle);
}

static herr_t guard_read(H5FD_t *f, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size,
                         void *buf)
{
    return H5FDread(guard(f)->inner, type, dxpl, addr, size, buf);
}

static void guard_failed(struct guard_file *g)
{
    g->state->failed = true;
    rf_h5_reason(g->state->reason, sizeof(g->state->reason));
}

void (*rf_guard_hook)(uint64_t addr, size_t size, const void *buf);

static herr_t guard_write(H5FD_t *f, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size,
                          const void *buf)
{
    struct guard_file *g = guard(f);
    if (g->state->failed)
        return 0;
    if (rf_guard_hook)
        rf_guard_hook(addr, size, buf);
    if (H5FDwrite(g->inner, type, dxpl, addr, size, buf) < 0)
        guard_failed(g);
    return 0;
}

static herr_t guard_flush(H5FD_t *f, hid_t dxpl, hbool_t closing)
{
    struct guard_file *g = guard(f);
    if (!g->state->failed && H5FDflush(g->inner, dxpl, closing) < 0)
        guard_failed(g);
    return 0;
}

static herr_t guard_truncate(H5FD_t *f, hid_t dxpl, hbool_t closing)
{
    struct guard_file *g = guard(f);
    if (g->state->failed)
        return 0;
    if (H5FDtruncate(g->inner, dxpl, closing) < 0)
        guard_failed(g);
    else if (rf_guard_hook)
        rf_guard_hook(0, (size_t)H5FDget_eof(g->inner, H5FD_MEM_DEFAULT), NULL);
    return 0;
}

static herr_t guard_lock(H5FD_t *f, hbool_t rw)
{
    return H5FDlock(guard(f)->inner, rw);
}

static herr_t guard_unlock(H5FD_t *f)
{
    return H5FDunlock(guard(f)->inner);
}

static const H5FD_class_t guard_class = {
    .name = "corun_guard",
    .maxaddr = ((haddr_t)1 << (8 * sizeof(off_t) - 1)) - 1,
    .fc_degree = H5F_CLOSE_WEAK,
    .fapl_size = sizeof(struct guard_info),
    .fapl_get = guard_fapl_get,
    .fapl_copy = guard_fapl_copy,
    .fapl_free = guard_fapl_free,
    .open = guard_open,
    .close = guard_close,
    .cmp = guard_cmp,
    .query = guard_query,
    .get_eoa = guard_get_eoa,
    .set_eoa = guard_set_eoa,
    .get_eof = guard_get_eof,
    .get_handle = guard_get_handle,
    .read = guard_read,
    .write = guard_write,
    .flush = guard_flush,
    .truncate = guard_truncate,
    .lock = guard_lock,
    .unlock = guard_unlock,
    .fl_map = H5FD_FLMAP_DICHOTOMY,
};

hid_t rf_guard_fapl(struct rf_guard *state)
{
    state->driver = H5FDregister(&guard_class);
    if (state->driver < 0)
        return H5I_INVALID_HID;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    struct guard_info info = {state};
    if (fapl < 0 || H5Pset_driver(fapl, state->driver, &info) < 0) {
        if (fapl >= 0)
            H5Pclose(fapl);
        return H5I_INVALID_HID;
    }
    return fapl;
}

void rf_guard_done(struct rf_guard *state)
{
    if (state->driver >= 0)
        H5FDunregister(state->driver);
    state->driver = H5I_INVALID_HID;
}
