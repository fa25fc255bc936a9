/* runfile_fixtures — what the run-file unit tests share (runfile_fixtures.c). Include after
 * cmocka.h. */
#ifndef CORUN_RUNFILE_FIXTURES_H
#define CORUN_RUNFILE_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

#include "corun/runfile.h"

#define CYCLES 50000 /* every synthetic epoch's length */

/* Each test gets a fresh temporary directory (runfile_setup) that runfile_teardown removes. */
int runfile_setup(void **state);
int runfile_teardown(void **state);
/* The test's directory. */
const char *test_dir(void);
/* name inside the test's directory (two such paths may be held at once). */
char *in_dir(const char *name);

/* A header of nkernels kernels (LBM, BINO, SAD, ...) on sms SMs, with text that needs care. */
void make_header(struct runfile_header *h, unsigned nkernels, unsigned sms);
/* Every field of table t in base gets a value made from seed and the field's position. */
void fill(const struct runfile_table *t, void *base, uint64_t seed);
/* Epoch i: every field set, the last kernel without a prediction, fairness NaN every third. */
void synth_epoch(uint64_t i, unsigned nkernels, unsigned sms, struct runfile_epoch *e);
void assert_same_table(const struct runfile_table *t, const void *a, const void *b);
void assert_same_epoch(const struct runfile_epoch *want, const struct runfile_epoch *got);
/* Record n epochs (and an event every third) at path; returns the open recorder. */
struct runfile *record(const char *path, unsigned nkernels, unsigned sms, uint64_t n);
void close_ok(struct runfile *rf);
/* rf holds exactly the n epochs record() wrote. */
void assert_epochs(struct runfile *rf, unsigned nkernels, unsigned sms, uint64_t n);
/* Opening path fails with a message containing message. */
void expect_open_error(const char *path, const char *message);
void write_bytes(const char *path, const void *data, size_t n);
/* The whole file, NUL-terminated (free it); its length in *len when len is not NULL. */
char *read_all(const char *path, size_t *len);

#endif
