/* tui — the ncurses workbench. */
#ifndef CORUN_TUI_H
#define CORUN_TUI_H

#include "corun/scenario.h"

/* Run the workbench on sc until the user quits. Returns 0, or -1 when the terminal cannot be
 * initialised (a message is printed). */
int tui_main(const struct scenario *sc);

#endif
