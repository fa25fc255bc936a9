/* testsession — helpers shared by the session unit tests (test_session*.c). */
#ifndef CORUN_TESTSESSION_H
#define CORUN_TESTSESSION_H

#include "corun/catalog.h"
#include "corun/scenario.h"
#include "corun/session.h"

/* Load the scenario text (named name in messages) with kernels from the data directory;
 * fails the running test when it does not load. */
void test_scenario_text(struct scenario *sc, const char *name, const char *text);
/* test_scenario_text, then a session of it; fails the running test when either fails. */
struct session *test_session_open(struct scenario *sc, const char *name, const char *text);
/* The run file at path as a replay; fails the running test when it cannot be read. */
struct session *test_replay_of(const char *path);
/* The number of s's events of kind whose text starts with prefix. */
unsigned test_count_events(const struct session *s, const char *kind, const char *prefix);
/* SMs the session's current partition gives kernel (of the first 64). */
unsigned test_sms_of(const struct session *s, int kernel);

/* A fresh path from the mkstemp template tmpl (its file removed again), for a run file. */
void test_tmp_path(char *tmpl);
/* A fresh catalog at a path made from tmpl as test_tmp_path makes it; fails the running test
 * when it does not open. The caller closes it and unlinks tmpl. */
struct catalog *test_tmp_catalog(char *tmpl);

/* Two kernels (stream, high priority, and compute) on 16 SMs of hbm80, seed 7, three epochs of
 * 20 K cycles: quick, and unbalanced enough that HSM-Fair acts. */
extern const char test_unit_scenario[];
/* A session of test_unit_scenario ("unit.cfg"), loaded into sc; fails the running test when it
 * cannot. */
struct session *test_open_unit(struct scenario *sc);

#endif
