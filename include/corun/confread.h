/* confread — reading one libconfig file with a user-facing message for every way it can fail
 * (missing, not a file, unreadable, syntax error). */
#ifndef CORUN_CONFREAD_H
#define CORUN_CONFREAD_H

#include <stdbool.h>

#include "corun/conftable.h"
#include "corun/diag.h"

struct conf_file;

/* The largest settings file read, in bytes: the largest corun ships is a suite of some 30 KB,
 * and a text past this is a mistake (a 3 GB file took half a minute and 4 GB of memory to be
 * called "binary data"). */
#define CONFREAD_MAX_BYTES (64ll << 20)

/* Parse path. On failure adds one message to diags and returns NULL. */
struct conf_file *confread_open(const char *path, struct diag *diags);
/* Parse text (a file's contents recorded elsewhere, e.g. in a run file); name stands for the
 * file in messages. On failure adds one message to diags and returns NULL. */
struct conf_file *confread_parse(const char *name, const char *text, struct diag *diags);
void confread_close(struct conf_file *f);
/* The root group, for conf_apply. */
const struct conf_group *confread_root(const struct conf_file *f);
/* The file's whole text, as read (NUL-terminated). */
const char *confread_text(const struct conf_file *f);
/* The setting's depth when the text holds exactly one setting (a chain of groups of one member
 * each, down to a value): `a = 1;` is 1, `a = { b = 1; };` is 2. 0 when it holds none or more
 * than one (`a = 1; b = 2;`), or a group's value is not one member. */
unsigned confread_single_depth(const struct conf_file *f);
/* 1 when path parses as libconfig and has the setting key (a dotted path), 0 when it parses
 * without it, -1 when it does not parse (quietly: the loader that follows says why). */
int confread_probe(const char *path, const char *key);
/* Whether a probe may open path: a regular file of at most CONFREAD_MAX_BYTES (a FIFO's open
 * would wait for a writer). The loader says why it refuses the rest. */
bool confread_probeable(const char *path);
/* The same for any of the n keys, the file parsed once. */
int confread_probe_any(const char *path, const char *const *keys, size_t n);
/* When the file lacks the top-level setting `key` that the kind `want` ("a scenario") has but
 * has the one of another kind of corun file (a suite's mixes, a lesson's steps, ...): one
 * message saying what the file is and which command takes it (heap; the caller frees it).
 * NULL otherwise: then the file's own mistakes are the message. */
char *confread_kind_hint(const struct conf_file *f, const char *path, const char *key,
                         const char *want);

#endif
