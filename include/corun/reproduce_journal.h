/* reproduce_journal — the results journal behind `corun reproduce ... --resume FILE`: every
 * finished mix's fixed-size result is appended to FILE and pushed to the disk, so a run killed
 * after hours loses at most the mix being written, and a rerun with the same FILE loads what it
 * holds and runs only the rest.
 *
 * A journal belongs to one run identity (the experiment, its options and the build, one line)
 * and one result size; opening it for another is an error, never a silent reuse. A record is
 * keyed by (part, index): the experiment's part and the mix's index in its suite. Results are
 * copied byte for byte, padding included, so a caller zeroes a result before filling it.
 *
 * One process at a time: open takes a write lock on the file and fails while another process
 * holds it. Functions that can fail return NULL or -1 with a message in err that names the file,
 * what was expected and what was found. */
#ifndef CORUN_REPRODUCE_JOURNAL_H
#define CORUN_REPRODUCE_JOURNAL_H

#include <stddef.h>

/* Room for repro_build_id's answer, NUL included. */
#define REPRO_BUILD_ID_LEN 17

/* A journal's first line, without its newline. */
#define REPRO_JOURNAL_MAGIC_LINE "corun reproduce journal 1"

struct repro_journal;

/* Open the journal at path (creating it when missing or empty) for the run called identity
 * (one line, no newline) whose results are result_size bytes each, and load every intact
 * record it holds; a damaged record that an intact one follows is skipped (see
 * repro_journal_damaged) and a torn or corrupt tail is cut off the file (see
 * repro_journal_dropped).
 * NULL with a message when path is not a journal, was written for another identity or result
 * size, is in use by another process, or cannot be read or written. Close with
 * repro_journal_close. */
struct repro_journal *repro_journal_open(const char *path, const char *identity, size_t result_size,
                                         char *err, size_t errlen);

/* repro_journal_open for reading only, as a merge's source: a shared lock (other readers may
 * hold it too; a run writing it may not), and nothing of the file is cut or written: a torn
 * tail is left out of the records (and counted by repro_journal_dropped), and an empty file
 * holds none. Puts are not allowed. */
struct repro_journal *repro_journal_open_source(const char *path, const char *identity,
                                                size_t result_size, char *err, size_t errlen);

/* The stored result of (part, index) (result_size bytes, owned by the journal and valid until
 * the next put of the same key or close), or NULL when there is none. */
const void *repro_journal_get(const struct repro_journal *j, unsigned part, size_t index);

/* Append the result of (part, index) and push it to the disk (fflush + fsync). A key already
 * stored is replaced in memory and appended again: the last record wins on load. 0, or -1 with
 * a message; after a failure the file holds what it held before (the partial record is cut
 * off again) and the journal stays usable. */
int repro_journal_put(struct repro_journal *j, unsigned part, size_t index, const void *result,
                      char *err, size_t errlen);

/* Distinct keys held: loaded plus put. */
/* The i-th record held (0 <= i < repro_journal_count), in (part, index) order: its result,
 * and its key in *part and *index. */
const void *repro_journal_at(const struct repro_journal *j, size_t i, unsigned *part,
                             size_t *index);
size_t repro_journal_count(const struct repro_journal *j);

/* Bytes of a torn or corrupt tail cut off when opening (0: none, or j NULL), for a note; a
 * source opened read-only keeps them in the file. */
size_t repro_journal_dropped(const struct repro_journal *j);
/* Damaged records skipped in the middle of the file when opening (each followed by an intact
 * one), for a note: their mixes are not held, so a run simulates them again. */
size_t repro_journal_damaged(const struct repro_journal *j);

/* The path as given to repro_journal_open. */
const char *repro_journal_path(const struct repro_journal *j);

/* Close the file and free everything; NULL is fine. */
void repro_journal_close(struct repro_journal *j);

/* This executable's identity, to put in journal identities so that a different build never
 * reuses results: a 64-bit FNV-1a of /proc/self/exe as 16 hex digits (REPRO_BUILD_ID_LEN
 * bytes with the NUL); "unknown-" and the package version when the executable cannot be read. */
void repro_build_id(char *out, size_t len);

/* The data a run reads, for the same purpose: a 64-bit FNV-1a of the names and contents of
 * every file under datadir/data (presets, kernels, models) and datadir/scenarios/suites, in
 * name order, as 16 hex digits (REPRO_BUILD_ID_LEN bytes with the NUL). */
void repro_data_id(const char *datadir, char *out, size_t len);

/* repro_journal_open for a run described by what (the experiment and every option that changes
 * its results), with this build's and datadir's ids added to the identity. */
struct repro_journal *repro_journal_open_run(const char *path, const char *datadir,
                                             const char *what, size_t result_size, char *err,
                                             size_t errlen);
/* Whether such a run would open the journal at path (0; else -1 with its message), read only:
 * a check before submitting a job, which must not cut or write the file. */
int repro_journal_check_run(const char *path, const char *datadir, const char *what,
                            size_t result_size, char *err, size_t errlen);

/* What repro_journal_merge did. */
struct repro_journal_merged {
    size_t added;    /* records copied */
    size_t present;  /* records the target held already (kept as they were) */
    size_t dropped;  /* bytes of a torn or damaged tail at the end of `from`, left out (the
                      * file is not changed) */
    size_t damaged;  /* damaged records skipped in the middle of `from` */
    size_t verified; /* repro_journal_adopt: records both held, found byte-identical */
};

/* Copy into the journal at `into` (created when missing) every record of the journal at `from`
 * that it does not hold, so merging twice adds nothing. `from` must come from this build of
 * corun with the data under datadir (its identity ends with their ids), and `into` must belong
 * to the same run; otherwise, or when either cannot be read or written, -1 with a message (the
 * records copied before a failed write stay; merging again completes them). */
int repro_journal_merge(const char *into, const char *from, const char *datadir,
                        struct repro_journal_merged *out, char *err, size_t errlen);

/* Like repro_journal_merge for a journal `from` written by another build of corun (a long study
 * that outlived the build it began with), with the same data and run: `into` must be a journal
 * of this build and data that holds at least one of `from`'s records, each such record
 * simulated again by this build and byte-identical to `from`'s; then the rest of `from` is
 * added as this build's. A sample, not a proof: it shows the two builds agree on the records
 * both hold. result_bytes (NULL: the whole record) says how many leading bytes of a record of
 * the run are its results, the part compared; the rest may say how the run went. -1 with a message
 * (nothing added) when a shared record differs, none is shared, the data or the run differ, or
 * `into` is not this build's. */
typedef size_t (*repro_result_bytes_fn)(const char *what, size_t record_size);
int repro_journal_adopt(const char *into, const char *from, const char *datadir,
                        repro_result_bytes_fn result_bytes, struct repro_journal_merged *out,
                        char *err, size_t errlen);

/* The items of identity line a ("(", ")", ", ", "; " and " | " part them) that b does not
 * hold, joined by ", "; "" when there are none. Two whole lines overflowed a message and hid
 * the advice after them; the items that differ are what the user needs. The caller frees. */
char *repro_identity_items_not_in(const char *a, const char *b);

#endif
