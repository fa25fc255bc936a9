/* report — printing a session's epochs and events the same way for `run`, `show` and
 * `branch`: an aligned table for people, JSON for programs. */
#ifndef CORUN_REPORT_H
#define CORUN_REPORT_H

#include <stdio.h>

#include "corun/session.h"

/* One row per kernel and a system row for epoch e, after the table heading when e is the first
 * (prev NULL) or its columns differ from those of prev, the epoch printed before it (a
 * predictor chosen or dropped adds or removes the prediction columns). */
void report_epoch_text(FILE *out, const struct scenario *sc, const struct session_epoch *e,
                       const struct session_epoch *prev);
/* Epoch e as a JSON object, preceded by ", " unless first. */
void report_epoch_json(FILE *out, const struct scenario *sc, const struct session_epoch *e,
                       int first);
/* The opening of a JSON document about sc: {"scenario": ..., "epochs": [ */
void report_json_begin(FILE *out, const struct scenario *sc);
/* The event log as "epoch N  kind  text" lines. */
void report_events_text(FILE *out, const struct session *s);
/* The log entries from *seen on (allocator decisions, switches) as "  [kind] text" lines,
 * unless json; warnings (a model outside its training configuration) go to stderr as well,
 * json or not. *seen ends at the log's length. */
void report_events_since(FILE *out, const struct session *s, unsigned *seen, bool json);
/* "], "events": [...]}" closing a document begun by report_json_begin. */
void report_json_end(FILE *out, const struct session *s);

#endif
