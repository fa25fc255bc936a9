/* testutil — shared helpers for the CMocka unit tests. */
#ifndef CORUN_TESTUTIL_H
#define CORUN_TESTUTIL_H

#include <stdio.h>

#include "corun/accel_scenario.h"
#include "corun/diag.h"
#include "corun/gpu.h"

/* Load the GPU preset called name from the data directory ($CORUN_DATADIR, as make check sets
 * it) into out; fails the running test when it does not load. The presets are the one source of
 * the papers' parameters, so tests do not restate them. */
void test_preset(const char *name, struct gpu_config *out);

/* Writes text to a fresh temporary file; returns its path (free it and unlink it). */
char *test_write_temp(const char *text);
/* Remove dir and everything under it (a test's mkdtemp directory). */
void test_remove_tree(const char *dir);
/* Whether some message of d holds every one of the NULL-terminated needles. */
int test_diag_has(const struct diag *d, ...);

/* Loads an accelerator scenario from text (as file "test.cfg", with the data directory's
 * application profiles); fails the running test, printing the messages, when it does not. */
void test_accel_load(struct accel_scenario *sc, const char *text);

/* The scenario of two copy-only applications whose timeline tests work out by hand (an LS
 * application q of two sharing copies, a batch application b with an exclusive h2d): see
 * test_accel_run's copies_by_hand. */
extern const char test_accel_copies_cfg[];

/* Fails the running test unless the text of $CORUN_DATADIR/doc between the lines begin_mark and
 * end_mark is exactly what print writes; regen names the command that rewrites it. Skips when
 * CORUN_DATADIR (the source tree) is not set. */
void test_doc_matches(const char *doc, const char *begin_mark, const char *end_mark,
                      void (*print)(FILE *), const char *regen);

#endif
