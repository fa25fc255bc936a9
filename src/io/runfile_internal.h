/* runfile internals shared by runfile.c (tables, helpers, closing), runfile_write.c,
 * runfile_read.c, runfile_csv.c and the guard file driver runfile_vfd.c. */
#ifndef CORUN_RUNFILE_INTERNAL_H
#define CORUN_RUNFILE_INTERNAL_H

#include <hdf5.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "corun/runfile.h"

/* Dataset and group names that are not generated from a table. */
#define RF_PARTITION    "partition"
#define RF_EPOCH_COUNT  "epoch_count"
#define RF_EVENT_COUNT  "event_count"
#define RF_KERNEL_COUNT "kernel_count" /* schema 2 on; schema 1: the root attribute nkernels */
#define RF_EVENTS       "events"

/* Rows per chunk of every growing dataset. One: under SWMR a rewritten chunk is moved, never
 * freed, so a chunk that grew epoch by epoch would leave a copy behind at every flush (see
 * docs/runfile.md); and a chunk that is never rewritten cannot be damaged by a later crash. */
#define RF_CHUNK_ROWS    1
#define RF_DEFLATE_LEVEL 6

/* The recorder's file space comes in pages of this size (HDF5's paged aggregation), so that
 * no block of metadata smaller than a page lies across a page boundary. Linux copies a write
 * into the page cache a page at a time and gives up between pages when the process has been
 * killed (generic_perform_write, mm/filemap.c): a write that crosses a boundary can be cut there,
 * one within a page cannot. Under SWMR the object headers and chunk-index blocks are rewritten in
 * place at every epoch, and a cut one fails its checksum and takes the epochs it indexes with it
 * (docs/runfile.md). */
#define RF_PAGE_BYTES 4096

/* Fewer bytes than any epoch or event takes in a file (an epoch writes a chunk and its index
 * entry in each of some 45 datasets, about 1.5 KB in all; an event, in 4): bounds on what a
 * damaged file may claim to hold. */
#define RF_MIN_EPOCH_BYTES 256
#define RF_MIN_EVENT_BYTES 32

enum { RF_EV_EPOCH, RF_EV_CYCLE, RF_EV_KIND, RF_EV_TEXT, RF_EV_COUNT };
extern const char *const rf_event_names[RF_EV_COUNT];

/* What the guard driver (runfile_vfd.c) reports to its recorder. */
struct rf_guard {
    hid_t driver; /* registered for this file */
    bool failed;  /* a write failed: nothing more reaches the file */
    char reason[256];
};

/* A file-access property list that writes through a guard reporting to state (which must
 * outlive the file); H5I_INVALID_HID on failure. Call rf_guard_done after closing the file. */
hid_t rf_guard_fapl(struct rf_guard *state);
/* For the crash tests (tests/runfile_writer.c): when set, called with each write the guard
 * passes on, before it reaches the file, and after each truncation (buf NULL, size the file's
 * new length). */
extern void (*rf_guard_hook)(uint64_t addr, size_t size, const void *buf);
void rf_guard_done(struct rf_guard *state);

struct runfile {
    char *path;
    bool writing;
    hid_t file;
    hid_t *kernels;    /* runfile_kernel_table.count datasets, open while recording */
    hid_t *per_kernel; /* runfile_per_kernel_table.count datasets; in_mix's is invalid in a
                        * schema-1 file, which has none */
    hid_t *system;     /* runfile_system_table.count datasets */
    hid_t partition;
    hid_t events[RF_EV_COUNT];
    hid_t epoch_count, event_count; /* scalar: how many rows are complete */
    hid_t kernel_count;             /* scalar: how many kernels are complete; invalid: schema 1 */
    struct runfile_header hdr;
    unsigned kernels_named; /* kernels the file names, committed or not (<= GPU_MAX_KERNELS) */
    uint64_t nepochs, nevents;
    uint64_t file_bytes;   /* of a file opened for reading, when it was opened */
    struct rf_guard guard; /* of a recorder */
    char *failed;          /* why recording stopped; NULL while it goes on */
    char why[256];         /* what HDF5 said about the last failed row (rf_h5_reason) */
    int live_fd;           /* a recorder's: holds the lock runfile_being_recorded looks for */
};

/* A fresh handle with every id invalid. */
struct runfile *rf_new(const char *path, bool writing);
/* Close every HDF5 object of rf and free it. Returns the H5Fclose status. */
herr_t rf_free(struct runfile *rf);

/* Memory and file types of a field (callers H5Tclose both). */
hid_t rf_mem_type(enum runfile_type t);
hid_t rf_file_type(enum runfile_type t);
/* Writes a scalar attribute of type t (value as its struct holds it) on obj; 0 or -1. */
int rf_write_attr(hid_t obj, const char *name, enum runfile_type t, const void *value);
/* Row `row` of ds (width values; width 0: a 1-D dataset) read into buf, or written from it
 * (write); 0, or -1 with HDF5's reason in rf->why. The row must be within ds's extent. */
int rf_transfer_row(struct runfile *rf, hid_t ds, uint64_t row, hsize_t width, hid_t mem_type,
                    void *buf, bool write);
/* The datasets of the new file rf->file from rf->hdr, their handles into rf (runfile_layout.c);
 * 0 or -1, the reason in rf->why or HDF5's error stack. */
int rf_make_layout(struct runfile *rf);
/* Write kernels [first, first + n) of rf's header into the /kernels datasets; 0 or -1. */
int rf_write_kernel_rows(struct runfile *rf, unsigned first, unsigned n);
/* Fixed-length string types of the event kind and text (callers H5Tclose). */
hid_t rf_fixed_string(size_t size);
/* Bytes a value of type t occupies in its struct. */
size_t rf_value_size(enum runfile_type t);
/* Row buffers hand HDF5 values as the file stores them: a conversion would cost a 1 MB buffer
 * that HDF5 allocates and clears at every read and write. A flag, an unsigned in its struct,
 * is one byte in a row; every other value is as in its struct. */
size_t rf_row_size(enum runfile_type t);
void rf_to_row(enum runfile_type t, const void *value, void *row);
void rf_from_row(enum runfile_type t, const void *row, void *value);
/* Whether a value of type t is a char * the struct owns. */
bool rf_is_string(enum runfile_type t);
/* ---- runfile_read.c: what is at a path before HDF5 looks, and opening it safely ---- */

struct rf_probe {
    off_t size;
    int sb_version;    /* -1: no HDF5 signature */
    unsigned flags;    /* status flags (superblock version >= 2) */
    uint64_t eoa;      /* end-of-file address the superblock records (0: unknown) */
    uint64_t sb_start; /* where the superblock is */
};

/* Finds the HDF5 superblock of the regular file at path. 0, or -1 with a message (missing, a
 * directory, empty, no HDF5 signature). */
int rf_probe_file(const char *path, struct rf_probe *p, char *err, size_t errlen);
/* Opens the probed file read-only (SWMR reading when its writer used SWMR). The file id, or
 * H5I_INVALID_HID with a message (truncated, marked open for writing, damaged). */
hid_t rf_open_hdf5(const char *path, const struct rf_probe *p, char *err, size_t errlen);
/* Runs read_all(path, p) in a child process first, which returns 0 when everything read and
 * nonzero when something did not: a child killed by a signal (HDF5 crashed or looped on forged
 * structures) or ended by an exit status of its own means the file is refused, -1 with a
 * message; otherwise 0 (the caller then reads it and gives any message). */
int rf_survives_reading(const char *path, const struct rf_probe *p,
                        int (*read_all)(const char *path, const struct rf_probe *p), char *err,
                        size_t errlen);

/* ---- runfile_check.c: what the reader refuses ---- */

/* The commit counter ds (named name) into *n: 0 when its value is unreadable, -1 with a
 * message when it is not a count (not an integer, negative, above max). */
int rf_read_count(const struct runfile *rf, hid_t ds, const char *name, uint64_t max, uint64_t *n,
                  char *err, size_t errlen);
/* The kernels' parameters are finite. 0, or -1 with a message naming the dataset. */
int rf_check_kernels(const struct runfile *rf, char *err, size_t errlen);
/* Epoch i as read holds only what a writer could have written. 0, or -1 with a message. */
int rf_check_epoch(const struct runfile *rf, uint64_t i, const struct runfile_epoch *e, char *err,
                   size_t errlen);

/* Where /per_kernel/in_mix is in runfile_per_kernel_table, and the first field of schema 2.1
 * (those from it on may be absent from an older file). */
size_t rf_in_mix_field(void);
size_t rf_first_minor1_field(void);
/* Room for one row of any field: GPU_MAX_KERNELS values of the widest type. */
#define RF_ROW_MAX (GPU_MAX_KERNELS * RUNFILE_EXPLAIN_MAX)

/* -1, with the formatted message in err. */
int rf_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The name a file for path is written under before it is renamed to path (heap): beside it,
 * path.partial-PID-N, or DIR/.corun-partial-PID-N when that would pass the 255 bytes a
 * directory entry holds (a legal name of 240 bytes or more was refused as too long). */
char *rf_partial_name(const char *path, unsigned n);
/* What HDF5 said about its last failure (the innermost cause, e.g. the system's
 * "No space left on device"), into buf; clears HDF5's error stack. */
void rf_h5_reason(char *buf, size_t len);
/* Silences HDF5's own error printing, for this thread. */
void rf_quiet(void);
/* The bytes dataset ds says it stores, when that is more than the file at path holds (0
 * otherwise): a forged chunk index, on which HDF5 would allocate what it claims, gigabytes
 * from a file of kilobytes (found by tests/fuzz). The file is measured after the dataset, so a
 * file still being recorded, which only grows, passes. */
uint64_t rf_storage_forged(hid_t ds, const char *path);

/* Read an attribute of obj named name into value (a field of type t). Returns 0, or -1 when it
 * is missing or of another kind. */
int rf_read_attr(hid_t obj, const char *name, enum runfile_type t, void *value);

#endif
