/* runfile — HDF5 run files: one experiment's header, per-epoch kernel counters, true and
 * predicted NP, SM partitions, system metrics and an event log, recorded epoch by epoch so that
 * a crash loses at most the epoch in flight. Replay and branching read them back without
 * simulating. docs/runfile.md describes the layout and the crash behaviour.
 *
 * The layout is described by the field tables below (in the manner of conftable): writing,
 * reading, the CSV export and the layout listing in docs/runfile.md all come from them. */
#ifndef CORUN_RUNFILE_H
#define CORUN_RUNFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "corun/gpu.h"

#define RUNFILE_SCHEMA_VERSION 2 /* major: readers refuse files with a newer one */
#define RUNFILE_SCHEMA_MINOR   2 /* additions that older readers may ignore */
#define RUNFILE_MAX_SMS        1024
#define RUNFILE_KIND_MAX       16   /* event kind, in bytes with the NUL */
#define RUNFILE_TEXT_MAX       256  /* event text, in bytes with the NUL; longer text is cut */
#define RUNFILE_NAME_MAX       32   /* kernel name, in bytes with the NUL; longer is refused */
#define RUNFILE_EXPLAIN_MAX    1536 /* a predictor's explanation, with the NUL; longer is cut */

/* One kernel of the run. */
struct runfile_kernel {
    char *name;   /* 1 to RUNFILE_NAME_MAX-1 bytes of UTF-8 */
    int priority; /* 0 low, 1 high (enum scenario_priority) */
    double qos_target, weight;
};

/* -1 with why a new run file cannot be made at path when something is there ("PATH: is a
 * directory ...", "PATH: is a symbolic link, not followed ..." (a dangling one too), or
 * anything else: "PATH: already exists; a run file is never overwritten"); 0 when nothing is. */
int runfile_refuse_existing(const char *path, char *err, size_t errlen);
/* 1 when a live corun is recording the run file at path (its recorder holds a lock on it until
 * it closes it or dies), else 0: a finished file, one whose recorder died, or no file. */
int runfile_being_recorded(const char *path);

/* The experiment. Strings handed to runfile_create are copied; those of an open file belong
 * to it. */
struct runfile_header {
    unsigned schema_version, schema_minor; /* set by runfile_create and runfile_open */
    char *corun_version;                   /* NULL in runfile_create: this build's */
    char *scenario_text;                   /* the scenario file's whole text */
    char *scenario_path;
    uint64_t seed;
    char *gpu_preset;
    unsigned sms;
    uint64_t epoch_cycles;   /* core cycles per epoch */
    unsigned nkernels;       /* every kernel of the run: those at the start, then those added */
    unsigned nkernels_start; /* kernels at the start; set by runfile_create and runfile_open */
    struct runfile_kernel kernels[GPU_MAX_KERNELS]; /* by index, stable for the whole run */
    char *created;                                  /* ISO 8601 UTC; set by runfile_create */
};

/* One kernel over one epoch. */
struct runfile_kernel_epoch {
    struct gpu_kernel_counters c;
    double np_true; /* private cycles for the epoch's instructions / epoch cycles */
    double np_pred; /* the predictor's estimate; NaN when there is no predictor */
    /* 1: the kernel was in the mix during the epoch; 0: it had not joined yet (a reader gets
     * 0, NaN for the doubles and 0 for the counters) or had been removed (its values are what
     * the writer gave). Writers set it; a schema-1 file reads 1 everywhere. */
    unsigned in_mix;
    /* Schema 2.1 on (an older file reads KERNEL_CLASS_NONE and ""): the predictor's class of
     * the kernel (enum kernel_class), and its explanation, lines separated by '\n'. */
    int pred_class;
    char explain[RUNFILE_EXPLAIN_MAX];
};

/* What one epoch produced. */
struct runfile_epoch {
    uint64_t start_cycle, cycles;
    unsigned nkernels; /* must be the header's (the kernels added so far count) */
    struct runfile_kernel_epoch k[GPU_MAX_KERNELS];
    unsigned nsms;                  /* must be the header's sms */
    int owner[RUNFILE_MAX_SMS];     /* per SM: kernel index, GPU_SM_IDLE or GPU_SM_GATED */
    struct gpu_system_counters sys; /* sys.cycles is not stored: a reader sets it to cycles */
    double stp, antt, fairness;     /* NaN when not defined (an NP missing) */
};

/* One entry of the event log. */
struct runfile_event {
    uint64_t epoch, cycle;
    char kind[RUNFILE_KIND_MAX]; /* "predictor", "allocator", "parameter", "repartition", ... */
    char text[RUNFILE_TEXT_MAX];
};

/* ---- layout tables ---- */

enum runfile_type {
    RUNFILE_U64,      /* uint64_t, stored as 64-bit unsigned */
    RUNFILE_UINT,     /* unsigned, stored as 32-bit unsigned */
    RUNFILE_DOUBLE,   /* double, stored as 64-bit IEEE */
    RUNFILE_STRING,   /* char *, stored as a variable-length UTF-8 string */
    RUNFILE_PRIORITY, /* int 0/1, stored as an HDF5 enum {low, high} */
    RUNFILE_NAME,     /* char *, stored as a UTF-8 string of RUNFILE_NAME_MAX bytes */
    RUNFILE_FLAG,     /* unsigned 0/1, stored as an 8-bit unsigned integer */
    RUNFILE_CLASS,    /* int (enum kernel_class), stored as an 8-bit signed integer */
    RUNFILE_TEXT,     /* char[RUNFILE_EXPLAIN_MAX] in its struct, stored as a string that long */
};

struct runfile_field {
    const char *name; /* attribute or dataset name */
    enum runfile_type type;
    const char *unit; /* stored as the dataset's "unit" attribute; "1" when dimensionless */
    size_t offset;    /* where the value lives in the table's struct */
    const char *description;
};

struct runfile_table {
    const char *where; /* "/" (attributes) or a group holding one dataset per field */
    const char *shape; /* of each dataset, for the layout listing */
    const char *what;  /* the struct the offsets point into, for the listing */
    const struct runfile_field *fields;
    size_t count;
};

extern const struct runfile_table runfile_header_table;     /* root attributes */
extern const struct runfile_table runfile_kernel_table;     /* /kernels, [kernels], growing */
extern const struct runfile_table runfile_per_kernel_table; /* /per_kernel, [epochs x kernels] */
extern const struct runfile_table runfile_system_table;     /* /system, [epochs] */

/* Print the whole layout as Markdown (the "Layout" section of docs/runfile.md). */
void runfile_print_layout(FILE *out);

/* ---- recording ---- */

struct runfile;

/* A new run file at path (which must not exist yet) for h's experiment, ready for appends.
 * The file appears at path complete and readable (no epochs yet). Returns NULL with a message
 * naming path when h is unusable or the file cannot be made. */
struct runfile *runfile_create(const char *path, const struct runfile_header *h, char *err,
                               size_t errlen);
/* Append epoch e (e->nkernels: the header's nkernels, added kernels included) and flush it to
 * disk. Returns 0, or -1 with a message; after a failure (e.g. a full disk) recording stops,
 * and the file keeps every epoch appended before. */
int runfile_append_epoch(struct runfile *rf, const struct runfile_epoch *e, char *err,
                         size_t errlen);
/* Append an event (kind: 1 to RUNFILE_KIND_MAX-1 bytes; text is cut to RUNFILE_TEXT_MAX-1
 * bytes at a UTF-8 boundary) and flush it. Returns 0, or -1 with a message as above. */
int runfile_append_event(struct runfile *rf, uint64_t epoch, uint64_t cycle, const char *kind,
                         const char *text, char *err, size_t errlen);
/* Add kernel k to the mix from the next appended epoch on: /kernels/ and every /per_kernel/
 * dataset grow by one (earlier epochs read as absent: in_mix 0, NaN for floats), flushed
 * and committed like an epoch. The header's nkernels counts it. Returns 0, or -1 with a
 * message (GPU_MAX_KERNELS kernels already; a name longer than RUNFILE_NAME_MAX - 1 bytes;
 * a write failure as for appends). */
int runfile_add_kernel(struct runfile *rf, const struct runfile_kernel *k, char *err,
                       size_t errlen);
/* Close and free rf (NULL is harmless). Returns 0, or -1 with a message when the final flush
 * failed or recording had stopped on an error. */
int runfile_close(struct runfile *rf, char *err, size_t errlen);

/* ---- reading (also works on a file being recorded or left by a crash) ---- */

/* Open a run file for reading. Returns NULL with a message naming path and what is wrong
 * (missing, empty, not HDF5, damaged or truncated, not a run file, newer schema). */
struct runfile *runfile_open(const char *path, char *err, size_t errlen);
/* A glance at the file at path, for a catalog row that names it: 0 when it is a regular file
 * with an HDF5 signature, as long as its superblock says, else -1 with a message naming path
 * and what it is (missing, a directory, empty, not HDF5, a scenario, truncated). A stat and a
 * few reads, without HDF5 or a child process, so it cannot tell a damaged run file, or another
 * HDF5 file, from a good one: runfile_open (or accel_runfile_read) can. */
int runfile_glance(const char *path, char *err, size_t errlen);
/* Opening reads the whole file in a child process first, so that a file on which the HDF5
 * library crashes or loops is refused rather than taking corun with it; the child gets
 * `seconds` of CPU time (default 10, and 0 restores it) plus 2 s per MB of file before it is
 * taken for a hang. Not thread-safe: set it before opening files. */
void runfile_set_read_cpu_limit(unsigned seconds);
/* The header, with every kernel in the file (nkernels_start of them from the start); valid
 * until runfile_close. */
const struct runfile_header *runfile_header(const struct runfile *rf);
/* Complete epochs in the file (for a recorder: appended so far). */
uint64_t runfile_epoch_count(const struct runfile *rf);
/* Read epoch i (< runfile_epoch_count) into out. Returns 0, or -1 with a message. */
int runfile_read_epoch(struct runfile *rf, uint64_t i, struct runfile_epoch *out, char *err,
                       size_t errlen);
/* Events in the file. */
uint64_t runfile_event_count(const struct runfile *rf);
/* Read event i (< runfile_event_count). Returns 0, or -1 with a message. */
int runfile_read_event(struct runfile *rf, uint64_t i, struct runfile_event *out, char *err,
                       size_t errlen);

/* Write kernels.csv, system.csv, events.csv and partition.csv into dir (made when missing).
 * Files of those names there are refused unless replace; replaced, each is replaced only once
 * all four are whole: a failure leaves them as they were. Returns 0; -2 with a message naming
 * the file when the input is at fault (the run file damaged, an output name that exists
 * without replace, is the run file itself or no file, a directory that cannot be made or
 * written); -1 when writing failed (a full disk). */
int runfile_export_csv(struct runfile *rf, const char *dir, bool replace, char *err, size_t errlen);

#endif
