/* tui — the ncurses workbench. */
#ifndef CORUN_TUI_H
#define CORUN_TUI_H

#include <stdbool.h>

#include "corun/lesson.h"
#include "corun/session.h"

struct tui_options {
    const char *datadir;         /* for the run files opened with o */
    bool projector;              /* --theme projector: high contrast, a larger chart */
    const struct lesson *lesson; /* a lesson to teach on s (its scenario's session), or NULL */
};

/* Run the workbench on s (live, or a replay from session_replay) until the user quits. It owns
 * s from now on, may replace it (o opens a run file, b branches a replay) and deletes whichever
 * it holds at the end. Returns 0, or -1 when the terminal cannot be initialised (a message is
 * printed). */
int tui_main(struct session *s, const struct tui_options *opt);

#endif
