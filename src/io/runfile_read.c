/* runfile_read — opening a run file, including one still being recorded or left behind by a
 * crash: such a file still carries its "open for SWMR write" flag, so it is opened for SWMR
 * reading, and only the rows its counters call complete are used. Its rows are read in
 * runfile_rows.c. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "accel_runfile_internal.h"
#include "corun/confread.h"
#include "corun/util.h"
#include "runfile_internal.h"

/* ---- what is at the path, before HDF5 looks ---- */

/* Superblock status flags (HDF5 file format, superblock versions 2 and 3). */
#define SB_WRITE_ACCESS      0x01
#define SB_SWMR_WRITE_ACCESS 0x04

#define RF_SWMR_READ_ATTEMPTS 10

/* CPU time of the child that reads a file first (survives_reading): reading runs at several
 * MB a CPU second, so this is many times what a good file needs. */
#define RF_CHILD_CPU_S        10
#define RF_CHILD_CPU_S_PER_MB 2
/* The child's exit status for a file it read and found bad. Any status but this and 0 (a
 * sanitizer's, libFuzzer's, an exit inside the library) is taken for a crash. */
#define RF_CHILD_BAD 3

static unsigned child_cpu_s = RF_CHILD_CPU_S;

void runfile_set_read_cpu_limit(unsigned seconds)
{
    child_cpu_s = seconds ? seconds : RF_CHILD_CPU_S;
}

static uint64_t get_le(const unsigned char *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* Look for the HDF5 signature where the format allows it: at 0, 512, 1024, 2048, ... */
int rf_probe_file(const char *path, struct rf_probe *p, char *err, size_t errlen)
{
    static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    memset(p, 0, sizeof(*p));
    p->sb_version = -1;
    struct stat st;
    if (stat(path, &st) != 0)
        return rf_fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return rf_fail(err, errlen, "%s: is a directory, not a run file", path);
    if (!S_ISREG(st.st_mode))
        return rf_fail(err, errlen, "%s: not a regular file, not a run file", path);
    p->size = st.st_size;
    if (st.st_size == 0)
        return rf_fail(err, errlen, "%s: empty file (0 bytes), not a run file", path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return rf_fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    unsigned char b[48];
    for (uint64_t at = 0; at + sizeof(sig) <= (uint64_t)st.st_size; at = at ? at * 2 : 512) {
        size_t got = 0;
        if (fseeko(f, (off_t)at, SEEK_SET) == 0)
            got = fread(b, 1, sizeof(b), f);
        if (got < sizeof(sig) || memcmp(b, sig, sizeof(sig)) != 0)
            continue;
        p->sb_start = at;
        p->sb_version = got > 8 ? b[8] : 0;
        /* Versions 2 and 3: version, offset size, length size, flags, base, ext, EOF address. */
        if (p->sb_version >= 2 && got >= 44 && b[9] == 8) {
            p->flags = b[11];
            p->eoa = get_le(b + 12, 8) + get_le(b + 28, 8);
        }
        break;
    }
    fclose(f);
    if (p->sb_version < 0 && confread_probe(path, "kernels") == 1) /* the likely mix-up */
        return rf_fail(err, errlen,
                       "%s: a scenario, not a run file: `corun run %s --out RUN.h5` records a "
                       "run of it",
                       path, path);
    if (p->sb_version < 0)
        return rf_fail(err, errlen, "%s: not an HDF5 file (no HDF5 signature), so not a run file",
                       path);
    return 0;
}

/* The smallest HDF5 superblock (versions 2 and 3: signature, version, sizes, flags, four
 * addresses of 8 bytes and a checksum). */
#define RF_MIN_SUPERBLOCK_BYTES 48

/* A closed file too short for a superblock, or shorter than its superblock says (a file being
 * recorded, or whose recorder died, may be): -1 with a message, else 0. */
static int cut_short(const char *path, const struct rf_probe *p, char *err, size_t errlen)
{
    if (p->flags & (SB_SWMR_WRITE_ACCESS | SB_WRITE_ACCESS))
        return 0;
    if (p->size < RF_MIN_SUPERBLOCK_BYTES) /* HDF5 itself gives no reason */
        return rf_fail(err, errlen,
                       "%s: truncated: the file has %lld bytes, too few for an HDF5 superblock "
                       "(an incomplete copy?)",
                       path, (long long)p->size);
    if (!p->eoa || (uint64_t)p->size >= p->eoa)
        return 0;
    return rf_fail(err, errlen,
                   "%s: truncated: the file has %lld bytes, its HDF5 superblock says %llu (an "
                   "incomplete copy?)",
                   path, (long long)p->size, (unsigned long long)p->eoa);
}

int runfile_glance(const char *path, char *err, size_t errlen)
{
    struct rf_probe p;
    if (rf_probe_file(path, &p, err, errlen) != 0)
        return -1;
    return cut_short(path, &p, err, errlen);
}

/* ---- the header ---- */

static int read_header(struct runfile *rf, char *err, size_t errlen)
{
    const char *path = rf->path;
    struct runfile_header *h = &rf->hdr;
    htri_t has_schema = H5Aexists(rf->file, "schema_version");
    if (has_schema < 0) {
        rf_h5_reason(rf->why, sizeof(rf->why));
        return rf_fail(err, errlen, "%s: damaged or truncated HDF5 file: %s", path, rf->why);
    }
    if (has_schema == 0 && H5Aexists(rf->file, ACCEL_RF_VERSION) > 0)
        return rf_fail(err, errlen,
                       "%s: an accelerator run file (its task table); `corun show`, `replay`, "
                       "`export` and `plot` read it, this command reads spatial runs only",
                       path);
    if (has_schema == 0)
        return rf_fail(err, errlen,
                       "%s: an HDF5 file, but not a corun run file (no schema_version attribute)",
                       path);
    if (rf_read_attr(rf->file, "schema_version", RUNFILE_UINT, &h->schema_version) < 0)
        return rf_fail(err, errlen, "%s: schema_version is not an integer; not a corun run file",
                       path);
    if (h->schema_version > RUNFILE_SCHEMA_VERSION)
        return rf_fail(err, errlen,
                       "%s: run file schema version %u is newer than this corun reads (version "
                       "%d); open it with a newer corun",
                       path, h->schema_version, RUNFILE_SCHEMA_VERSION);
    const struct runfile_table *t = &runfile_header_table;
    for (size_t i = 0; i < t->count; i++)
        if (rf_read_attr(rf->file, t->fields[i].name, t->fields[i].type,
                         (char *)h + t->fields[i].offset) < 0)
            return rf_fail(err, errlen, "%s: damaged run file: attribute %s of / is %s", path,
                           t->fields[i].name,
                           H5Aexists(rf->file, t->fields[i].name) > 0 ? "unreadable" : "missing");
    if (h->schema_version < 1)
        return rf_fail(err, errlen, "%s: damaged run file: schema_version is %u (expected 1 to %d)",
                       path, h->schema_version, RUNFILE_SCHEMA_VERSION);
    if (h->nkernels_start < 1 || h->nkernels_start > GPU_MAX_KERNELS)
        return rf_fail(err, errlen,
                       "%s: damaged run file: attribute nkernels is %u (expected 1 to %d)", path,
                       h->nkernels_start, GPU_MAX_KERNELS);
    if (h->sms < 1 || h->sms > RUNFILE_MAX_SMS)
        return rf_fail(err, errlen, "%s: damaged run file: attribute sms is %u (expected 1 to %d)",
                       path, h->sms, RUNFILE_MAX_SMS);
    if (h->epoch_cycles < 1)
        return rf_fail(err, errlen,
                       "%s: damaged run file: attribute epoch_cycles is 0 (expected at least 1)",
                       path);
    return 0;
}

/* Open dataset name, of rank `rank` (0: scalar); its extent goes to dims (may be NULL). With
 * width > 0, a 2-D dataset's second dimension must be width. */
static hid_t open_dataset(struct runfile *rf, const char *name, int rank, hsize_t width,
                          hsize_t *dims_out, char *err, size_t errlen)
{
    if (H5Lexists(rf->file, name, H5P_DEFAULT) <= 0) {
        rf_fail(err, errlen, "%s: damaged run file: /%s is missing", rf->path, name);
        H5Eclear2(H5E_DEFAULT);
        return H5I_INVALID_HID;
    }
    hid_t ds = H5Dopen2(rf->file, name, H5P_DEFAULT);
    hid_t space = ds < 0 ? H5I_INVALID_HID : H5Dget_space(ds);
    hsize_t dims[2] = {0, 0};
    int got = space < 0 ? -1 : H5Sget_simple_extent_dims(space, dims, NULL);
    if (space >= 0)
        H5Sclose(space);
    if (got < 0) {
        /* HDF5 could not read the dataset's header: metadata torn by a crash (docs/runfile.md),
         * or bytes changed since; which, the file does not say. */
        if (ds >= 0)
            H5Dclose(ds);
        H5Eclear2(H5E_DEFAULT);
        rf_fail(err, errlen,
                "%s: damaged run file: /%s is unreadable (its HDF5 metadata is damaged: torn by a "
                "crash, or changed since)",
                rf->path, name);
        return H5I_INVALID_HID;
    }
    if (got != rank || (rank == 2 && width && dims[1] != width)) {
        H5Dclose(ds);
        rf_fail(err, errlen, "%s: damaged run file: /%s has an unexpected shape", rf->path, name);
        return H5I_INVALID_HID;
    }
    uint64_t stored = rf_storage_forged(ds, rf->path);
    if (stored) {
        H5Dclose(ds);
        rf_fail(err, errlen,
                "%s: damaged run file: /%s claims %llu bytes of storage, more than the file holds",
                rf->path, name, (unsigned long long)stored);
        return H5I_INVALID_HID;
    }
    if (dims_out)
        memcpy(dims_out, dims, sizeof(dims));
    return ds;
}

static hsize_t min_size(hsize_t a, hsize_t b)
{
    return a < b ? a : b;
}

/* Schema 1 has no /per_kernel/in_mix: its mix never changed; before 2.1 there are no
 * pred_class and explain. */
static bool field_absent(const struct runfile *rf, size_t field)
{
    const struct runfile_header *h = &rf->hdr;
    bool older;
    if (field == rf_in_mix_field())
        older = h->schema_version < 2;
    else if (field >= rf_first_minor1_field())
        older = h->schema_version < 2 || (h->schema_version == 2 && h->schema_minor < 1);
    else
        return false;
    char *name = xasprintf("per_kernel/%s", runfile_per_kernel_table.fields[field].name);
    bool absent = older && H5Lexists(rf->file, name, H5P_DEFAULT) <= 0;
    free(name);
    return absent;
}

/* Open /kernels/ and /per_kernel/. The kernels a reader may use are no more than /kernel_count
 * says (schema 1: the root nkernels) and than every one of those datasets holds, as for epochs
 * (a crash in runfile_add_kernel may have grown some of them), but never fewer than at the
 * start: the file had those before it appeared. *epochs: the fewest rows of /per_kernel/. */
static int open_kernels(struct runfile *rf, hsize_t *epochs, char *err, size_t errlen)
{
    struct runfile_header *h = &rf->hdr;
    hsize_t n = h->nkernels_start, dims[2];
    if (h->schema_version >= 2 || H5Lexists(rf->file, RF_KERNEL_COUNT, H5P_DEFAULT) > 0) {
        rf->kernel_count = open_dataset(rf, RF_KERNEL_COUNT, 0, 0, NULL, err, errlen);
        if (rf->kernel_count < 0)
            return -1;
        uint64_t committed;
        if (rf_read_count(rf, rf->kernel_count, RF_KERNEL_COUNT, GPU_MAX_KERNELS, &committed, err,
                          errlen) < 0)
            return -1;
        n = committed > n ? committed : n;
    }
    rf->kernels_named = (unsigned)n;
    H5Eclear2(H5E_DEFAULT);
    const struct runfile_table *t = &runfile_kernel_table;
    for (size_t i = 0; i < t->count; i++) {
        char *name = xasprintf("kernels/%s", t->fields[i].name);
        rf->kernels[i] = open_dataset(rf, name, 1, 0, dims, err, errlen);
        free(name);
        if (rf->kernels[i] < 0)
            return -1;
        if (dims[0] > rf->kernels_named)
            rf->kernels_named = (unsigned)min_size(dims[0], GPU_MAX_KERNELS);
        n = min_size(n, dims[0]);
    }
    t = &runfile_per_kernel_table;
    for (size_t i = 0; i < t->count; i++) {
        if (field_absent(rf, i)) {
            H5Eclear2(H5E_DEFAULT);
            continue;
        }
        char *name = xasprintf("per_kernel/%s", t->fields[i].name);
        rf->per_kernel[i] = open_dataset(rf, name, 2, 0, dims, err, errlen);
        free(name);
        if (rf->per_kernel[i] < 0)
            return -1;
        n = min_size(n, dims[1]);
        *epochs = min_size(*epochs, dims[0]);
    }
    if (n < h->nkernels_start)
        return rf_fail(err, errlen,
                       "%s: damaged run file: it holds %llu kernels, fewer than the %u it began "
                       "with",
                       rf->path, (unsigned long long)n, h->nkernels_start);
    h->nkernels = (unsigned)n;
    return 0;
}

/* Read the first nkernels entries of every /kernels/ dataset into the header. */
static int read_kernels(struct runfile *rf, char *err, size_t errlen)
{
    const struct runfile_table *t = &runfile_kernel_table;
    unsigned n = rf->hdr.nkernels;
    for (size_t i = 0; i < t->count; i++) {
        const struct runfile_field *f = &t->fields[i];
        hid_t ds = rf->kernels[i];
        hid_t mt = rf_mem_type(f->type);
        size_t size = rf_value_size(f->type);
        bool fixed = false; /* a fixed-length name (schema 2; schema 1's are variable-length) */
        if (f->type == RUNFILE_NAME) {
            hid_t ft = H5Dget_type(ds);
            fixed = ft >= 0 && H5Tget_class(ft) == H5T_STRING && H5Tis_variable_str(ft) == 0;
            size = fixed ? H5Tget_size(ft) : size;
            H5Tclose(mt);
            mt = fixed ? rf_fixed_string(size) : rf_mem_type(RUNFILE_STRING);
            if (ft >= 0)
                H5Tclose(ft);
        }
        char *buf = xcalloc(n, size);
        hsize_t start = 0, count = n;
        hid_t fs = H5Dget_space(ds), ms = H5Screate_simple(1, &count, NULL);
        int rc = fs < 0 || ms < 0 ? -1 : 0;
        if (rc == 0 && (H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0 ||
                        H5Dread(ds, mt, ms, fs, H5P_DEFAULT, buf) < 0)) {
            rf_h5_reason(rf->why, sizeof(rf->why));
            rc = rf_fail(err, errlen, "%s: damaged run file: cannot read /kernels/%s: %s", rf->path,
                         f->name, rf->why);
        }
        for (unsigned k = 0; k < n && rc == 0; k++) {
            char *slot = (char *)&rf->hdr.kernels[k] + f->offset;
            if (fixed) {
                *(char **)slot = xasprintf("%.*s", (int)size, buf + k * size);
            } else if (f->type == RUNFILE_NAME) {
                char *s = *(char **)(buf + k * size);
                *(char **)slot = xstrdup(s ? s : "");
                H5free_memory(s);
            } else {
                memcpy(slot, buf + k * size, size);
            }
        }
        if (ms >= 0)
            H5Sclose(ms);
        if (fs >= 0)
            H5Sclose(fs);
        H5Tclose(mt);
        free(buf);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* Open every other per-epoch dataset; the complete rows are the fewest any of them has
 * (epochs: those of /per_kernel/ already), and no more than the counter says. */
static int open_series(struct runfile *rf, hsize_t epochs, char *err, size_t errlen)
{
    const struct runfile_header *h = &rf->hdr;
    hsize_t dims[2], events = UINT64_MAX;
    const struct runfile_table *t = &runfile_system_table;
    for (size_t i = 0; i < t->count; i++) {
        char *name = xasprintf("system/%s", t->fields[i].name);
        rf->system[i] = open_dataset(rf, name, 1, 0, dims, err, errlen);
        free(name);
        if (rf->system[i] < 0)
            return -1;
        epochs = min_size(epochs, dims[0]);
    }
    rf->partition = open_dataset(rf, RF_PARTITION, 2, h->sms, dims, err, errlen);
    if (rf->partition < 0)
        return -1;
    epochs = min_size(epochs, dims[0]);
    for (int i = 0; i < RF_EV_COUNT; i++) {
        char *name = xasprintf("%s/%s", RF_EVENTS, rf_event_names[i]);
        rf->events[i] = open_dataset(rf, name, 1, 0, dims, err, errlen);
        free(name);
        if (rf->events[i] < 0)
            return -1;
        events = min_size(events, dims[0]);
    }
    rf->epoch_count = open_dataset(rf, RF_EPOCH_COUNT, 0, 0, NULL, err, errlen);
    rf->event_count = open_dataset(rf, RF_EVENT_COUNT, 0, 0, NULL, err, errlen);
    if (rf->epoch_count < 0 || rf->event_count < 0)
        return -1;
    uint64_t nepochs, nevents;
    if (rf_read_count(rf, rf->epoch_count, RF_EPOCH_COUNT, INT64_MAX, &nepochs, err, errlen) < 0 ||
        rf_read_count(rf, rf->event_count, RF_EVENT_COUNT, INT64_MAX, &nevents, err, errlen) < 0)
        return -1;
    rf->nepochs = min_size(nepochs, epochs);
    rf->nevents = min_size(nevents, events);
    /* A forged count and extent (an old-format header carries no checksum) could promise
     * more rows than a lifetime can read; every real row takes room in the file. */
    if (rf->nepochs > rf->file_bytes / RF_MIN_EPOCH_BYTES ||
        rf->nevents > rf->file_bytes / RF_MIN_EVENT_BYTES)
        return rf_fail(err, errlen,
                       "%s: damaged run file: it claims %llu epochs and %llu events, more than "
                       "its %llu bytes can hold",
                       rf->path, (unsigned long long)rf->nepochs, (unsigned long long)rf->nevents,
                       (unsigned long long)rf->file_bytes);
    return 0;
}

/* ---- opening ---- */

hid_t rf_open_hdf5(const char *path, const struct rf_probe *p, char *err, size_t errlen)
{
    unsigned flags = H5F_ACC_RDONLY;
    if (p->flags & SB_SWMR_WRITE_ACCESS) {
        flags |= H5F_ACC_SWMR_READ; /* being recorded, or its recorder died */
    } else if (p->flags & SB_WRITE_ACCESS) {
        rf_fail(err, errlen,
                "%s: the file is marked as open for writing by a program that did not use SWMR; "
                "if no program has it open, clear the mark with: h5clear -s %s",
                path, path);
        return H5I_INVALID_HID;
    } else if (cut_short(path, p, err, errlen) != 0) {
        return H5I_INVALID_HID;
    }
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_file_locking(fapl, 1, 1);
    /* An SWMR reader rereads metadata whose checksum fails, waiting longer each time, in case
     * the writer was midway; HDF5's 100 attempts take minutes on a damaged file. */
    if (flags & H5F_ACC_SWMR_READ)
        H5Pset_metadata_read_attempts(fapl, RF_SWMR_READ_ATTEMPTS);
    hid_t file = H5Fopen(path, flags, fapl);
    H5Pclose(fapl);
    if (file < 0) {
        char why[256];
        rf_h5_reason(why, sizeof(why));
        rf_fail(err, errlen, "%s: damaged or truncated HDF5 file: %s", path, why);
    }
    return file;
}

static struct runfile *open_here(const char *path, const struct rf_probe *p, char *err,
                                 size_t errlen);

/* Open path and read every epoch and event; 0 when all of it reads. */
static int read_everything(const char *path, const struct rf_probe *p)
{
    char err[16];
    struct runfile *rf = open_here(path, p, err, sizeof err);
    if (!rf)
        return 1;
    struct runfile_epoch *e = xmalloc(sizeof(*e));
    struct runfile_event ev;
    int rc = 0;
    for (uint64_t i = 0; rc == 0 && i < rf->nepochs; i++)
        rc = runfile_read_epoch(rf, i, e, err, sizeof err);
    for (uint64_t i = 0; rc == 0 && i < rf->nevents; i++)
        rc = runfile_read_event(rf, i, &ev, err, sizeof err);
    free(e);
    rf_free(rf);
    return rc == 0 ? 0 : 1;
}

/* HDF5 1.10 trusts structures that a damaged file can forge: reading a variable-length string
 * whose global-heap entry is corrupt makes it copy a negative length, and the process dies
 * (found by tests/fuzz). So a child process reads the whole file first; a child killed by a
 * signal, or ended with a status of its own (a sanitizer or libFuzzer ends a process with
 * one), means the file would end us too, and it is refused. A child that merely finds the
 * file bad exits with RF_CHILD_BAD, and the reading here gives the message. -1 with a message
 * when refused. */
int rf_survives_reading(const char *path, const struct rf_probe *p,
                        int (*read_all)(const char *path, const struct rf_probe *p), char *err,
                        size_t errlen)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return 0; /* no child to spare: read it here, unprotected */
    if (pid == 0) {
        /* A crash must end the child: a handler inherited from the parent (a test framework
         * catches SIGSEGV) would carry on in the child's copy of the parent instead. */
        static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGXCPU};
        for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
            signal(fatal[i], SIG_DFL);
        /* HDF5 can also loop for ever on a forged global heap (found by tests/fuzz): the child
         * gets CPU time for reading the file many times over, then SIGXCPU ends it. */
        rlim_t cpu_s = child_cpu_s + (rlim_t)(p->size >> 20) * RF_CHILD_CPU_S_PER_MB;
        struct rlimit limit = {cpu_s, cpu_s + 1};
        setrlimit(RLIMIT_CPU, &limit);
        /* _exit: the parent's atexit handlers are its own */
        _exit(read_all(path, p) == 0 ? 0 : RF_CHILD_BAD);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != RF_CHILD_BAD)
        return rf_fail(err, errlen,
                       "%s: damaged run file: the process reading it ended with exit status "
                       "%d; corun refuses it rather than end too",
                       path, WEXITSTATUS(status));
    if (!WIFSIGNALED(status))
        return 0;
    if (WTERMSIG(status) == SIGXCPU)
        return rf_fail(err, errlen,
                       "%s: damaged run file: the HDF5 library did not finish reading it (more "
                       "than %d s of CPU time); corun refuses it rather than hang",
                       path, (int)(child_cpu_s + (p->size >> 20) * RF_CHILD_CPU_S_PER_MB));
    return rf_fail(err, errlen,
                   "%s: damaged run file: the HDF5 library crashed reading it (signal %d, %s); "
                   "corun refuses it rather than crash too",
                   path, WTERMSIG(status), strsignal(WTERMSIG(status)));
}

struct runfile *runfile_open(const char *path, char *err, size_t errlen)
{
    rf_quiet();
    struct rf_probe p;
    if (rf_probe_file(path, &p, err, errlen) < 0 ||
        rf_survives_reading(path, &p, read_everything, err, errlen) < 0)
        return NULL;
    return open_here(path, &p, err, errlen);
}

static struct runfile *open_here(const char *path, const struct rf_probe *p, char *err,
                                 size_t errlen)
{
    hid_t file = rf_open_hdf5(path, p, err, errlen);
    if (file < 0)
        return NULL;
    struct runfile *rf = rf_new(path, false);
    rf->file_bytes = (uint64_t)p->size;
    rf->file = file;
    hsize_t epochs = UINT64_MAX;
    if (read_header(rf, err, errlen) < 0 || open_kernels(rf, &epochs, err, errlen) < 0 ||
        read_kernels(rf, err, errlen) < 0 || rf_check_kernels(rf, err, errlen) < 0 ||
        open_series(rf, epochs, err, errlen) < 0) {
        rf_free(rf);
        H5Eclear2(H5E_DEFAULT);
        return NULL;
    }
    /* The last rows are the ones a truncation or a crash would have damaged. */
    struct runfile_epoch *e = xmalloc(sizeof(*e));
    struct runfile_event ev;
    int rc = 0;
    if (rf->nepochs > 0)
        rc = runfile_read_epoch(rf, rf->nepochs - 1, e, err, errlen);
    if (rc == 0 && rf->nevents > 0)
        rc = runfile_read_event(rf, rf->nevents - 1, &ev, err, errlen);
    free(e);
    if (rc < 0) {
        rf_free(rf);
        H5Eclear2(H5E_DEFAULT);
        return NULL;
    }
    return rf;
}
