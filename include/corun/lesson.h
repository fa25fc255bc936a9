/* lesson — classroom lessons (scenarios/lessons/NAME.cfg): a scenario and a script of steps,
 * each with its text, what the class does, a question and what to notice, and what the step
 * does to the run when it opens (run epochs, switch the predictor or allocator, set
 * parameters, change the mix, show a panel, ask the class to predict). Validated through
 * lesson_table like scenarios; the predictor and allocator names are checked by the caller,
 * which knows the registries. */
#ifndef CORUN_LESSON_H
#define CORUN_LESSON_H

#include <stdbool.h>
#include <stddef.h>

#include "corun/conftable.h"
#include "corun/diag.h"

#define LESSON_MAX_SETS 8

extern const struct conf_table lesson_table;
extern const struct conf_table lesson_step_table;

/* The panels a step may show, as lesson files name them (index: enum lesson_view). */
enum lesson_view {
    LESSON_VIEW_NONE,
    LESSON_VIEW_KERNELS,
    LESSON_VIEW_CHART,
    LESSON_VIEW_SMMAP,
    LESSON_VIEW_SYSTEM,
    LESSON_VIEW_DRAM,
    LESSON_VIEW_LOG,
    LESSON_VIEW_EXPLAIN,
};
extern const char *const lesson_view_names[]; /* NULL-terminated */

struct lesson_step {
    char *title, *text, *task, *question, *notice; /* "" when absent, title required */
    unsigned run;                                  /* epochs to run when the step opens */
    char *predictor, *allocator;                   /* switch to it ("" keep) */
    char *add, *remove;                            /* a library kernel to add, one to remove */
    char *set[LESSON_MAX_SETS];                    /* "KEY=VALUE" parameter changes */
    unsigned nset;
    int view;     /* enum lesson_view: the panel to show */
    bool predict; /* hide the truth after the step's epochs until the class has guessed */
    int line;     /* where the step starts in the file */
};

struct lesson {
    char *path;          /* the lesson file */
    char *name;          /* its stem: what `corun lesson NAME` takes */
    char *title;         /* one line, for the list and the panel */
    char *summary;       /* one line: what the class learns */
    char *scenario;      /* as written: a path relative to DATADIR/scenarios */
    char *scenario_path; /* resolved */
    int scenario_line;   /* where the file names it (0: it does not) */
    struct lesson_step *steps;
    size_t nsteps;
};

/* Load and validate the lesson at path: its settings and steps, and that its scenario file
 * exists (scenario paths are relative to DATADIR/scenarios). Every mistake goes to diags as
 * "FILE:LINE: SETTING: problem (expected ...)"; returns 0 or -1. Release with lesson_done
 * either way. */
int lesson_load(const char *path, const char *datadir, struct lesson *out, struct diag *diags);
void lesson_done(struct lesson *l);

/* Whether the libconfig file at path is a lesson (it has a steps, summary or title setting,
 * which no scenario has: a lesson without its steps was checked as a scenario, six mistakes
 * of another kind of file): 1, 0, or -1 when it cannot be read or parsed (scenario_load then
 * says why). */
int lesson_probe(const char *path);

/* The stems of the .cfg files in DATADIR/scenarios/lessons, sorted, into a NULL-terminated array
 * the caller frees (each string and the array); *n gets their count. */
char **lesson_names(const char *datadir, size_t *n);
/* DATADIR/scenarios/lessons/NAME.cfg, or NULL when name is not a lesson's stem (a path, an
 * empty string); the caller frees. */
char *lesson_path(const char *datadir, const char *name);

#endif
