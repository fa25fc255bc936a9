/* tui — the workbench screen. For now: the version, the scenario and its mix, and q to quit. */
#include "corun/tui.h"

#include <curses.h>
#include <stdio.h>

#include "config.h"

static void draw(const struct scenario *sc)
{
    erase();
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    attron(A_REVERSE);
    mvhline(0, 0, ' ', cols);
    mvprintw(0, 1, "corun %s", PACKAGE_VERSION);
    attroff(A_REVERSE);
    mvprintw(2, 2, "Scenario: %s", sc->name);
    mvprintw(3, 2, "GPU:      %s (%u SMs)", sc->gpu_name, sc->gpu.sms);
    mvprintw(4, 2, "Epochs:   %u x %u cycles, seed %llu", sc->epochs, sc->epoch_cycles,
             (unsigned long long)sc->seed);
    mvprintw(6, 2, "Mix:");
    for (unsigned i = 0; i < sc->nkernels && 7 + (int)i < rows - 2; i++)
        mvprintw(7 + (int)i, 4, "%-12s %s", sc->kernels[i].name,
                 sc->kernels[i].priority == SCENARIO_HIGH ? "high priority" : "");
    attron(A_REVERSE);
    mvhline(rows - 1, 0, ' ', cols);
    mvprintw(rows - 1, 1, "q Quit");
    attroff(A_REVERSE);
    wnoutrefresh(stdscr);
    doupdate();
}

int tui_main(const struct scenario *sc)
{
    SCREEN *screen = newterm(NULL, stdout, stdin);
    if (!screen) {
        fprintf(stderr, "corun: cannot initialise the terminal (is TERM set?)\n");
        return -1;
    }
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    draw(sc);
    for (;;) {
        int ch = getch();
        if (ch == 'q' || ch == 'Q')
            break;
        if (ch == KEY_RESIZE || ch == 12 /* ^L */)
            draw(sc);
    }
    endwin();
    delscreen(screen);
    return 0;
}
