/* tui — the ncurses workbench. */
#ifndef CORUN_TUI_H
#define CORUN_TUI_H

#include "corun/session.h"

/* Run the workbench on s (live, or a replay from session_replay) until the user quits. It owns
 * s from now on, may replace it (o opens a run file, b branches a replay) and deletes whichever
 * it holds at the end; datadir is for the run files opened with o. Returns 0, or -1 when the
 * terminal cannot be initialised (a message is printed). */
int tui_main(struct session *s, const char *datadir);

#endif
